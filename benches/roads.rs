//! Contour-road generation time, one core, median of several runs:
//! the seed's 800 × 600 m map around (19000, 1260), and a 10 × 10 km region.
//!
//! `cargo bench --no-default-features --bench roads`
//!
//! Every figure includes the stability margin: the start points around the
//! area whose paths could reach it or change what reaches it are simulated
//! too, so the roads are exactly those of any larger area.

use bevy_relief::roads::{ContourParams, ContourRoads};
use bevy_relief::terrain::Terrain;
use glam::DVec2;
use std::hint::black_box;
use std::time::Instant;

fn median_ms(runs: usize, mut f: impl FnMut() -> usize) -> (f64, usize) {
    let mut t = Vec::with_capacity(runs);
    let mut n = 0;
    for _ in 0..runs {
        let s = Instant::now();
        n = black_box(f());
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], n)
}

fn main() {
    let terrain = Terrain::default();
    let roads = ContourRoads::new(ContourParams::default()).expect("defaults are valid");
    let map = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
    let (ms, n) = median_ms(15, || roads.generate(&terrain, map.0, map.1).roads.len());
    println!(
        "contour roads, 800 x 600 m map at (19000, 1260): {ms:7.2} ms median of 15 ({n} roads)"
    );
    let big = (DVec2::new(15000.0, -4000.0), DVec2::new(25000.0, 6000.0));
    let (ms, n) = median_ms(5, || roads.generate(&terrain, big.0, big.1).roads.len());
    println!("contour roads, 10 x 10 km region:               {ms:7.2} ms median of 5 ({n} roads)");
}
