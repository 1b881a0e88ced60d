//! Contour-road generation time, one core, median of several runs: the
//! seed's 800 × 600 m map around (19000, 1260), the 3 × 3 km square the
//! plugin lays around the player (`road_radius` 1500 m), and a 10 × 10 km
//! region; then single requests with hostile parameters, which their work
//! budgets keep short.
//!
//! `cargo bench --no-default-features --bench roads`
//!
//! `ROAD_CASE="density step max_points turn max_rounds size"` times that one
//! request instead of the hostile ones (on a `size` m square at the origin;
//! e.g. `ROAD_CASE="10 10 100 0.09 300 10000"` for the defaults).
//!
//! Every figure includes what stability costs: the start points around the
//! area whose paths could reach it or change what reaches it (within 1 km of
//! its focus box) are simulated too, so the roads are exactly those of any
//! larger area.

mod common;

use bevy_relief::network::{RoadNetwork, planarize};
use bevy_relief::roads::{ContourParams, ContourRoads, RoadAreaError};
use bevy_relief::terrain::Terrain;
use common::time_ms;
use glam::DVec2;

fn main() {
    let terrain = Terrain::default();
    let roads = ContourRoads::new(ContourParams::default()).expect("defaults are valid");
    let map = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
    let (ms, _, n) = time_ms(31, || roads.generate(&terrain, map.0, map.1).roads.len());
    println!(
        "contour roads, 800 x 600 m map at (19000, 1260): {ms:7.2} ms median of 31 ({n} roads)"
    );
    // Squares far apart: whether a road leaves the first focus box (and the
    // box must grow) depends on the place, so this is a mean over eight.
    let mut total = (0.0, 0);
    for k in 0..8 {
        let min = DVec2::new(-20000.0 + 5300.0 * k as f64, 9000.0 - 4100.0 * k as f64);
        let max = min + 3000.0;
        let (ms, _, n) = time_ms(3, || roads.generate(&terrain, min, max).roads.len());
        total = (total.0 + ms / 8.0, total.1 + n);
    }
    println!(
        "contour roads, 3 x 3 km squares:                {:7.2} ms mean of 8 ({} roads)",
        total.0, total.1
    );
    let big = (DVec2::new(15000.0, -4000.0), DVec2::new(25000.0, 6000.0));
    let (ms, _, n) = time_ms(5, || roads.generate(&terrain, big.0, big.1).roads.len());
    println!("contour roads, 10 x 10 km region:               {ms:7.2} ms median of 5 ({n} roads)");
    // What checking and combining that network costs.
    let net = roads.generate(&terrain, big.0, big.1);
    let (ms, _, ok) = time_ms(5, || net.check_planar().is_ok());
    println!(
        "check_planar of the 10 x 10 km roads:           {ms:7.2} ms median of 5 (planar: {ok})"
    );
    let (ms, _, n) = time_ms(5, || planarize(vec![net.clone()]).roads.len());
    println!("planarize of the 10 x 10 km roads:              {ms:7.2} ms median of 5 ({n} roads)");
    requests(&terrain);
}

/// The parameter sets a hostile probe found (7.8 s and 1.5 GiB for a 10 km
/// square before the work budgets): density, step, max_points, turn,
/// max_rounds, side of the square at the origin.
const HOSTILE: [[f64; 6]; 5] = [
    [1000.0, 100.0, 2.0, 0.09, 300.0, 10_000.0],
    [1000.0, 1.0, 10_000.0, 0.09, 300.0, 10_000.0],
    [
        1000.0,
        50.0,
        10.0,
        std::f64::consts::FRAC_PI_2,
        300.0,
        10_000.0,
    ],
    [1000.0, 1.0, 2.0, 0.09, 300.0, 10_000.0],
    [300.0, 30.0, 30.0, 0.09, 300.0, 10_000.0],
];

/// The time of one request for each case (`ROAD_CASE`, or [`HOSTILE`]),
/// with its roads or what it was refused for.
fn requests(terrain: &Terrain) {
    let cases = match std::env::var("ROAD_CASE") {
        Ok(case) => {
            let v: Vec<f64> = (case.split_whitespace())
                .map(|s| s.parse().expect("ROAD_CASE: six numbers"))
                .collect();
            vec![<[f64; 6]>::try_from(v).expect("ROAD_CASE: six numbers")]
        }
        Err(_) => HOSTILE.to_vec(),
    };
    for v in cases {
        let p = ContourParams {
            density: v[0],
            step: v[1],
            max_points: v[2] as usize,
            turn: v[3],
            max_rounds: v[4] as usize,
            ..Default::default()
        };
        let case = format!("{} {} {} {} {} {}", v[0], v[1], v[2], v[3], v[4], v[5]);
        let roads = match ContourRoads::new(p) {
            Ok(roads) => roads,
            Err(e) => {
                println!("contour roads, case {case}: {e}");
                continue;
            }
        };
        let (min, max) = (DVec2::ZERO, DVec2::splat(v[5]));
        let (ms, _, out) = time_ms(3, || roads.try_generate(terrain, min, max));
        let out = match out {
            Ok(net) => outcome(&net),
            Err(e @ RoadAreaError::TooMuchWork { .. }) => format!("refused: {e}"),
            Err(e) => format!("refused at once: {e}"),
        };
        println!("contour roads, case {case}: {ms:7.2} ms median of 3, {out}");
    }
}

/// The roads of a network, and whether they are planar.
fn outcome(net: &RoadNetwork) -> String {
    match net.check_planar() {
        Ok(()) => format!("{} roads", net.roads.len()),
        Err(e) => format!("{} roads, NOT PLANAR at {}", net.roads.len(), e.at),
    }
}
