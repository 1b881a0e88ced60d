//! The world's regions: `RoadSystem::region` over 10 × 10 km at three
//! places, cold (a new system: highways planned, cities laid out) and again
//! shifted 500 m (highways and layouts remembered) — goal ≤ 1 s on 2 cores;
//! and a 1 km² region with the largest highway settings validation allows
//! (`max_link` = `MAX_LINK`, `highways.step` 150 m), which must stay
//! well under a second too.
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
}
