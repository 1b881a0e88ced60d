//! Timing probes (`cargo test --release --lib roads::planner::timing --
//! --ignored --nocapture`): the bench's 4 km pairs, best of several runs,
//! steadier than a median on a shared machine.

use super::*;
use crate::terrain::Terrain;
use glam::DVec2;
use std::time::Instant;

/// The bench's 4 km pairs (`benches/planner.rs`).
const PAIRS: [((f64, f64), (f64, f64)); 4] = [
    ((0.0, 0.0), (0.0, 4000.0)),
    ((1000.0, 1000.0), (5000.0, 1500.0)),
    ((8000.0, 3000.0), (4200.0, 4300.0)),
    ((-3000.0, 2000.0), (-200.0, -900.0)),
];

/// Timing probe: the bench's 4 km pairs, best of 5 (`--ignored`).
#[test]
#[ignore]
fn probe_astar_4km() {
    let t = Terrain::default();
    let p = PlannerParams::default();
    let mut sum = 0.0;
    for ((ax, ay), (bx, by)) in PAIRS {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let mut best = f64::INFINITY;
        let mut cost = 0.0;
        for _ in 0..5 {
            let s = Instant::now();
            cost = AStarPlanner.plan(&t, from, to, &p).unwrap().cost;
            best = best.min(s.elapsed().as_secs_f64() * 1e3);
        }
        sum += best / 4.0;
        eprintln!("A* {from} -> {to}: {best:.2} ms, cost {cost:.3}");
    }
    eprintln!("mean best {sum:.2} ms");
}

/// Timing probe: sequential on the bench's 4 km pairs (`--ignored`).
#[test]
#[ignore]
fn probe_sequential_4km() {
    let t = Terrain::default();
    let p = PlannerParams::default();
    for ((ax, ay), (bx, by)) in PAIRS {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let mut best = f64::INFINITY;
        let mut cost = 0.0;
        for _ in 0..200 {
            let s = Instant::now();
            cost = SequentialPlanner.plan(&t, from, to, &p).unwrap().cost;
            best = best.min(s.elapsed().as_secs_f64() * 1e3);
        }
        eprintln!("sequential {from} -> {to}: {best:.3} ms, cost {cost:.3}");
    }
}

/// Timing probe: 10 km highways with the road system's settings.
#[test]
#[ignore]
fn probe_highway_10km() {
    let t = Terrain::default();
    let p = crate::world::RoadSystemParams::default().highways;
    for ((ax, ay), (bx, by)) in [
        ((0.0, 0.0), (8000.0, 6000.0)),
        ((5000.0, 0.0), (5000.0, 10000.0)),
    ] {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let mut best = f64::INFINITY;
        let mut road = None;
        for _ in 0..3 {
            let s = Instant::now();
            road = AStarPlanner.plan(&t, from, to, &p).ok();
            best = best.min(s.elapsed().as_secs_f64() * 1e3);
        }
        let (work, cost) = road.map_or((0, f64::NAN), |r| (r.work, r.cost));
        eprintln!("highway {from} -> {to}: {best:.2} ms, {work} expanded, cost {cost:.3}");
    }
}
