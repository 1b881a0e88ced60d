//! Planar city time, one core, median and minimum of runs: the issue's
//! reference case — a ring road that is an ellipse with semi-axes 1,000 m
//! and 800 m (64 vertices), no seeds, the three reference levels, min angle
//! 60°, seed 7 — streets and blocks (goal ≤ 50 ms), with node, edge and
//! block counts.
//!
//! Then the settlement layer on the default terrain: cities in three areas
//! and their density over 240 × 240 km, and the cost of the footprints as a
//! town overlay (a million points, against the bare terrain).
//!
//! `cargo bench --no-default-features --bench city` (`CITY_RUNS=n` sets the
//! number of runs, 31 by default; the settlement figures take a third).

mod common;

use bevy_relief::city::lots::{LotParams, LotSummary, subdivide};
use bevy_relief::city::planar::{PlanarParams, PlanarStreets};
use bevy_relief::city::{
    City, CityGround, CityStyle, SettlementParams, Settlements, Streets, StreetsInput,
};
use bevy_relief::terrain::{LaidGround, LaidKind, Overlay, Terrain};
use common::time_ms;
use glam::DVec2;
use std::sync::Arc;

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
    settlements((runs / 3).max(1));
}

/// Cities found in three areas, and their density and styles over
/// 240 × 240 km; then the footprints as a town overlay.
fn settlements(runs: usize) {
    let t = Arc::new(Terrain::default());
    let s = Settlements::new(SettlementParams::default()).expect("default parameters");
    let v = DVec2::new;
    for (min, max) in [
        (v(0.0, 0.0), v(10_000.0, 10_000.0)),
        (v(-5000.0, -5000.0), v(5000.0, 5000.0)),
        (v(-30_000.0, -30_000.0), v(30_000.0, 30_000.0)),
    ] {
        let (median, min_ms, cities) = time_ms(runs, || s.cities_in(&t, min, max));
        println!(
            "cities in {min} .. {max}: median {median:.1} ms, min {min_ms:.1} ms; {} cities",
            cities.len()
        );
    }
    let (ms, _, cities) = time_ms(1, || s.cities_in(&t, v(-120e3, -120e3), v(120e3, 120e3)));
    let planned = (cities.iter())
        .filter(|c| c.style == CityStyle::Planned)
        .count();
    let area = cities.iter().map(City::area).sum::<f64>() / cities.len().max(1) as f64;
    println!(
        "240 x 240 km: {} cities ({planned} planned) in {ms:.0} ms, mean footprint {:.2} km2",
        cities.len(),
        area / 1e6
    );
    overlay(
        &t,
        s.cities_in(&t, v(-30_000.0, -30_000.0), v(30_000.0, 30_000.0)),
    );
}

/// A million points 6 km around the first city: the overlay's `covers`,
/// and the terrain sampled bare and with the footprints laid as town.
fn overlay(t: &Arc<Terrain>, cities: Vec<City>) {
    let Some(c) = cities.first() else {
        println!("overlay: no city");
        return;
    };
    let (lo, hi) = (c.centre - 3000.0, c.centre + 3000.0);
    let pts: Vec<DVec2> = (0..1_000_000)
        .map(|k| {
            let f = DVec2::new((k % 1000) as f64, (k / 1000) as f64) / 1000.0;
            lo + (hi - lo) * f
        })
        .collect();
    let overlay = CityGround::new(cities);
    let (ms, _, n) = time_ms(1, || pts.iter().filter(|p| overlay.covers(**p)).count());
    println!("overlay covers: {n} of 1e6 points in {ms:.0} ms");
    let (ms, _, _) = time_ms(1, || {
        pts.iter().map(|p| t.terra(p.x, p.y).height).sum::<f64>()
    });
    println!("bare terra, 1e6 points: {ms:.0} ms");
    let ground = LaidGround::new(t.clone()).with(LaidKind::Town, Arc::new(overlay));
    let (ms, _, _) = time_ms(1, || {
        pts.iter()
            .map(|p| ground.terra(p.x, p.y).height)
            .sum::<f64>()
    });
    println!("laid terra, 1e6 points: {ms:.0} ms");
}
