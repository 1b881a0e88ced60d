//! Lots and buildings for a synthetic city the size of the issue's
//! reference (an ellipse of semi-axes 1,000 m and 800 m): an irregular
//! jittered grid of streets, one core, minimum and median of runs.
//! Target: ≤ 30 ms.
//!
//! `cargo bench --no-default-features --bench lots`

mod common;

use bevy_relief::city::lots::{LotParams, LotSummary, subdivide};
use bevy_relief::city::{EdgeRole, Streets};
use bevy_relief::geom::PlanarGraph;
use common::time_ms;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// A jittered grid of `spacing` inside the ellipse, every fourth line a
/// main street, the rest narrower; some edges left out, so blocks merge
/// into larger and concave ones.
fn city(spacing: f64, seed: u64) -> Streets {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut unit = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
    let (ax, ay) = (1000.0, 800.0);
    let (nx, ny) = ((ax / spacing) as i64, (ay / spacing) as i64);
    let mut g = PlanarGraph::new(spacing);
    let mut id = std::collections::BTreeMap::new();
    for j in -ny..=ny {
        for i in -nx..=nx {
            let p = DVec2::new(i as f64, j as f64) * spacing;
            if (p.x / ax).powi(2) + (p.y / ay).powi(2) <= 1.0 {
                let jitter = DVec2::new(unit() - 0.5, unit() - 0.5) * spacing * 0.3;
                id.insert((i, j), g.add_node(p + jitter));
            }
        }
    }
    let role = |k: i64| {
        if k % 4 == 0 {
            EdgeRole::Street(0)
        } else {
            EdgeRole::Street(2)
        }
    };
    for (&(i, j), &a) in &id {
        for (di, dj, r) in [(1, 0, role(j)), (0, 1, role(i))] {
            if let Some(&b) = id.get(&(i + di, j + dj))
                && (r == EdgeRole::Street(0) || unit() < 0.9)
            {
                g.add_edge(a, b, r.label());
            }
        }
    }
    Streets::from_graph(&g, vec![], EdgeRole::default_style)
}

fn main() {
    let params = LotParams {
        radius: 1000.0,
        ..LotParams::default()
    };
    for spacing in [80.0, 60.0, 40.0] {
        let streets = city(spacing, 7);
        let (median, min, lots) = time_ms(31, || subdivide(&streets, &params));
        let s = LotSummary::of(&lots);
        let vertices: usize = streets.blocks.iter().map(Vec::len).sum();
        println!(
            "grid {spacing} m: {} blocks ({vertices} vertices), {} roads -> {} lots in {} blocks, {} buildings; lots {:.0} m² each, buildings {:.0} m² and {:.1} m tall on average: {min:.2} ms (median {median:.2}); fingerprint {:016x}",
            streets.blocks.len(),
            streets.network.roads.len(),
            s.lots,
            s.blocks,
            s.buildings,
            s.lot_area / s.lots.max(1) as f64,
            s.building_area / s.buildings.max(1) as f64,
            s.mean_height,
            common::fingerprint(&lots),
        );
    }
}
