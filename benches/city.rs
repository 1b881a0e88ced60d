//! Planar city time, one core, median and minimum of runs: the issue's
//! reference case — a ring road that is an ellipse with semi-axes 1,000 m
//! and 800 m (64 vertices), no seeds, the three reference levels, min angle
//! 60°, seed 7 — streets and blocks (goal ≤ 50 ms), with node, edge and
//! block counts.
//!
//! `cargo bench --no-default-features --bench city` (`CITY_RUNS=n` sets the
//! number of runs, 31 by default).

mod common;

use bevy_relief::city::lots::{LotParams, LotSummary, subdivide};
use bevy_relief::city::planar::{PlanarParams, PlanarStreets};
use bevy_relief::city::{Streets, StreetsInput};
use common::time_ms;
use glam::DVec2;

/// The reference ring: an ellipse 2 km × 1.6 km, 64 vertices, counter-clockwise.
fn ellipse() -> Vec<DVec2> {
    (0..64)
        .map(|i| {
            let a = i as f64 / 64.0 * std::f64::consts::TAU;
            DVec2::new(1000.0 * a.cos(), 800.0 * a.sin())
        })
        .collect()
}

/// Lots and buildings for the reference city (goal ≤ 30 ms more).
fn lots_and_buildings(streets: &Streets, runs: usize) {
    let params = LotParams {
        radius: 1000.0,
        ..LotParams::default()
    };
    let (median, min, lots) = time_ms(runs, || subdivide(streets, &params));
    let s = LotSummary::of(&lots);
    println!(
        "lots and buildings: median {median:.1} ms, min {min:.1} ms (goal <= 30 ms): {} lots, {} buildings, fingerprint {:016x}",
        s.lots,
        s.buildings,
        common::fingerprint(&lots)
    );
}

fn main() {
    let generator = PlanarStreets::new(PlanarParams::default()).expect("reference parameters");
    let input = StreetsInput {
        boundary: ellipse(),
        ..StreetsInput::default()
    };
    // CITY_RUNS=1 for a single run (under callgrind, say).
    let runs = std::env::var("CITY_RUNS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(31);
    let (median, min, streets) = time_ms(runs, || generator.generate(&input).expect("streets"));
    let g = &streets.graph;
    println!(
        "planar city, reference ellipse: median {median:.2} ms, min {min:.2} ms \
         (goal 50 ms); {} nodes, {} edges, {} blocks, {} roads",
        g.node_count(),
        g.edge_count(),
        streets.blocks.len(),
        streets.network.roads.len()
    );
    lots_and_buildings(&streets, runs);
}
