//! The world's regions: `RoadSystem::region` over 10 × 10 km at three
//! places, cold (a new system: highways planned, cities laid out) and again
//! shifted 500 m (highways and layouts remembered) — goal ≤ 1 s on 2 cores;
//! and a 1 km² region with the largest highway settings validation allows
//! (`max_link` = `MAX_LINK`, `highways.step` 150 m), which must stay
//! well under a second too. Then the earthworks: the cold region with them
//! and without (goal ≤ 1.5 s with), and the built ground's grid
//! (`LaidGround::heights_grid`) per sample against `Terrain::heights_grid`,
//! where nothing is built (goal ≤ 1.5×) and over a city (goal ≤ 25 ns),
//! and the same samples as point queries (`LaidGround::height`); and a
//! chunk's grid over the city at coarse spacings, point-sampled, filtered
//! (`LaidGround::heights_grid_filtered`) and filtered with each cell's mix
//! of built kinds (`heights_grid_filtered_mix`, what a chunk's colours take).
//!
//! `cargo bench --no-default-features --bench world`

mod common;

use bevy_relief::network::RoadClass;
use bevy_relief::terrain::Terrain;
use bevy_relief::world::{MAX_LINK, RoadSystem, RoadSystemParams};
use common::time_ms;
use glam::DVec2;

fn main() {
    let t = Terrain::default();
    for (x, y) in [(5000.0, 0.0), (10000.0, 5000.0), (-15000.0, -15000.0)] {
        let min = DVec2::new(x, y);
        let (_, cold, (sys, region)) = time_ms(1, || {
            let sys = RoadSystem::new(RoadSystemParams::default()).expect("defaults");
            let region = sys.region(&t, min, min + 10_000.0).expect("region");
            (sys, region)
        });
        let highways = (region.network.roads.iter())
            .filter(|r| r.class == RoadClass::Highway)
            .count();
        let (_, warm, _) = time_ms(1, || sys.region(&t, min + 500.0, min + 10_500.0));
        println!(
            "region 10 x 10 km at {min}: cold {cold:.0} ms ({} roads, {highways} highways, {} cities), shifted 500 m {warm:.0} ms",
            region.network.roads.len(),
            region.cities.len(),
        );
    }
    let mut p = RoadSystemParams::default();
    (p.max_link, p.highways.max_length) = (MAX_LINK, MAX_LINK);
    p.highways.step = 150.0;
    let min = DVec2::new(9000.0, 4000.0);
    let (_, ms, region) = time_ms(1, || {
        let sys = RoadSystem::new(p.clone()).expect("largest allowed");
        sys.region(&t, min, min + 1000.0)
    });
    let roads = region.map_or(0, |r| r.network.roads.len());
    println!("region 1 km², largest highway settings: {ms:.0} ms ({roads} roads)");
    earthworks(&t);
}

/// The earthworks' cost: regions with and without, and the built ground's
/// grid against the terrain's.
fn earthworks(t: &Terrain) {
    for (x, y) in [(5000.0, 0.0), (10000.0, 5000.0)] {
        let min = DVec2::new(x, y);
        let mut off = RoadSystemParams::default();
        off.earthworks.enabled = false;
        let (_, bare, _) = time_ms(1, || {
            let sys = RoadSystem::new(off.clone()).expect("defaults");
            sys.region(t, min, min + 10_000.0).expect("region")
        });
        let (_, built, region) = time_ms(1, || {
            let sys = RoadSystem::new(RoadSystemParams::default()).expect("defaults");
            sys.region(t, min, min + 10_000.0).expect("region")
        });
        println!(
            "region 10 x 10 km at {min}, cold: {built:.0} ms with earthworks, {bare:.0} ms without ({:.2}x); {} structures",
            built / bare,
            region.structures.len()
        );
    }
    // A 2 km region around the reference city (centre about (9850, 4250)).
    let min = DVec2::new(8800.0, 3200.0);
    let sys = RoadSystem::new(RoadSystemParams::default()).expect("defaults");
    let region = sys.region(t, min, min + 2000.0).expect("region");
    let ground = &region.ground;
    let n = 256usize;
    let mut out = Vec::new();
    let mut per = |what: &str, x0: f64, y0: f64, step: f64| {
        let (_, laid, _) = time_ms(7, || {
            ground
                .heights_grid(x0, y0, step, n, n, &mut out)
                .expect("grid");
            out.len()
        });
        let (_, bare, _) = time_ms(7, || {
            t.heights_grid(x0, y0, step, n, n, &mut out).expect("grid");
            out.len()
        });
        // The same samples one by one (`LaidGround::height`).
        let (_, point, _) = time_ms(3, || {
            let mut sum = 0.0;
            for j in 0..n {
                for i in 0..n {
                    sum += ground.height(x0 + i as f64 * step, y0 + j as f64 * step);
                }
            }
            sum
        });
        let ns = |ms: f64| ms * 1e6 / (n * n) as f64;
        println!(
            "heights_grid {what}: built ground {:.1} ns a sample, terrain {:.1} ns ({:.2}x); point queries {:.1} ns",
            ns(laid),
            ns(bare),
            laid / bare,
            ns(point)
        );
    };
    // Far from the region's roads and towns: nothing built.
    per("where nothing is built", -50_000.0, -50_000.0, 2.0);
    // Over the city: its lots and streets, 1 m apart.
    per("over the city (1 m)", 9600.0, 4000.0, 1.0);
    // A chunk's grid over the city (35 × 35 with its border, as chunks of
    // 32 quads mesh) at the coarser levels' spacings: one sample per vertex,
    // and filtered to the spacing from sub-samples 2 m apart (the default
    // `view.built_filter`).
    let (mut h, mut natural) = (Vec::new(), Vec::new());
    for step in [4.0, 8.0, 16.0, 32.0] {
        let at = (9850.0 - 17.0 * step, 4250.0 - 17.0 * step, step);
        let (_, point, _) = time_ms(9, || {
            (ground.heights_grid_and_natural(at, 35, 35, &mut h, &mut natural)).expect("grid")
        });
        let (_, filtered, _) = time_ms(9, || {
            (ground.heights_grid_filtered(at, (35, 35), 2.0, &mut h, &mut natural)).expect("grid")
        });
        let mut mix = Vec::new();
        let (_, mixed, _) = time_ms(9, || {
            let grids = (&mut h, &mut natural);
            (ground.heights_grid_filtered_mix(at, (35, 35), 2.0, grids, &mut mix)).expect("grid")
        });
        let k = bevy_relief::terrain::subsamples(step, 2.0, 35, 35);
        println!(
            "chunk grid over the city at {step} m: one sample a vertex {point:.3} ms, filtered ({k} x {k} sub-samples) {filtered:.3} ms, with what each cell is built of (its colour) {mixed:.3} ms"
        );
    }
}
