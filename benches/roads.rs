//! Contour-road generation time, one core, median of several runs: the
//! seed's 800 × 600 m map around (19000, 1260), the 3 × 3 km square the
//! plugin lays around the player (`road_radius` 1500 m), and a 10 × 10 km
//! region.
//!
//! `cargo bench --no-default-features --bench roads`
//!
//! Every figure includes what stability costs: the start points around the
//! area whose paths could reach it or change what reaches it (within 1 km of
//! its focus box) are simulated too, so the roads are exactly those of any
//! larger area.

mod common;

use bevy_relief::roads::{ContourParams, ContourRoads, planarize};
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
}
