//! Road planner time on the reference terrain, one core, median of runs:
//! a 4 km road by A* (16-connexity) and by the sequential planner, and our
//! A* against `pathfinding`'s `astar` on the same (cell, direction) state
//! graph with the same cost (thesis figures, C# 2012: A* 375 ms, sequential
//! 15 ms for 4000 px).
//!
//! Also 10 km highways with the road system's planner settings (bridges,
//! 100 m grid, the "speed" profile). Each line gives the median and, in
//! brackets, the best run (steadier on a shared machine).
//!
//! `cargo bench --no-default-features --bench planner`

mod common;

use bevy_relief::roads::planner::{
    AStarPlanner, PlannedRoad, PlannerParams, RoadPlanner, SearchGraph, SearchState,
    SequentialPlanner,
};
use bevy_relief::terrain::Terrain;
use bevy_relief::world::RoadSystemParams;
use common::time_ms;
use glam::DVec2;
use pathfinding::num_traits::Zero;
use std::cell::RefCell;
use std::ops::Add;

/// `f64` with the order and zero `pathfinding` needs.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Cost(f64);
impl Eq for Cost {}
impl PartialOrd for Cost {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Cost {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}
impl Add for Cost {
    type Output = Cost;
    fn add(self, o: Cost) -> Cost {
        Cost(self.0 + o.0)
    }
}
impl Zero for Cost {
    fn zero() -> Self {
        Cost(0.0)
    }
    fn is_zero(&self) -> bool {
        self.0 == 0.0
    }
}

fn pathfinding_astar(
    terrain: &Terrain,
    from: DVec2,
    to: DVec2,
    params: &PlannerParams,
    relaxed: bool,
) -> (Vec<SearchState>, f64) {
    let graph = RefCell::new(SearchGraph::new(terrain, from, to, params).expect("a valid request"));
    let start = graph.borrow().start();
    let (path, cost) = pathfinding::directed::astar::astar(
        &start,
        |s| {
            graph
                .borrow_mut()
                .successors(*s)
                .into_iter()
                .map(|(t, c)| (t, Cost(c)))
        },
        |s| {
            let mut g = graph.borrow_mut();
            Cost(if relaxed {
                g.heuristic(*s)
            } else {
                g.simple_heuristic(*s)
            })
        },
        |s| graph.borrow().is_goal(*s),
    )
    .expect("a road exists");
    (path, cost.0)
}

/// The 4 km test pairs: dry end points on the reference terrain.
const PAIRS: [((f64, f64), (f64, f64)); 4] = [
    ((0.0, 0.0), (0.0, 4000.0)),
    ((1000.0, 1000.0), (5000.0, 1500.0)),
    ((8000.0, 3000.0), (4200.0, 4300.0)),
    ((-3000.0, 2000.0), (-200.0, -900.0)),
];

/// One run of one planner on every pair, for instruction counts
/// (`valgrind --tool=callgrind <bench binary> --once astar`; also
/// `exact`, `pathfinding`, `pathfinding-plain`, `sequential`).
fn once(what: &str) {
    let terrain = Terrain::default();
    let params = PlannerParams::default();
    let mut exact = params.clone();
    exact.weights.distance = 0.0;
    for &((ax, ay), (bx, by)) in &PAIRS {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let road = |p: &PlannerParams, seq: bool| {
            let r = if seq {
                SequentialPlanner.plan(&terrain, from, to, p)
            } else {
                AStarPlanner.plan(&terrain, from, to, p)
            };
            r.map(|r| (r.cost, r.work)).expect("a road")
        };
        let (cost, work) = match what {
            "astar" => road(&params, false),
            "exact" => road(&exact, false),
            "sequential" => road(&params, true),
            "pathfinding" => (pathfinding_astar(&terrain, from, to, &exact, true).1, 0),
            "pathfinding-plain" => (pathfinding_astar(&terrain, from, to, &exact, false).1, 0),
            _ => panic!("--once astar | exact | sequential | pathfinding | pathfinding-plain"),
        };
        println!("{what} ({ax}, {ay}) -> ({bx}, {by}): cost {cost}, work {work}");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--once") {
        once(args.get(i + 1).map_or("astar", |s| s.as_str()));
        return;
    }
    let terrain = Terrain::default();
    let params = PlannerParams::default();
    let mut sum = (0.0, 0.0);
    for &((ax, ay), (bx, by)) in &PAIRS {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let (a_ms, a_best, a) = time_ms(7, || AStarPlanner.plan(&terrain, from, to, &params));
        let (s_ms, s_best, s) = time_ms(31, || SequentialPlanner.plan(&terrain, from, to, &params));
        let (a, s): (PlannedRoad, PlannedRoad) = match (a, s) {
            (Ok(a), Ok(s)) => (a, s),
            (a, s) => {
                println!(
                    "({ax}, {ay}) -> ({bx}, {by}): A* {:?}, sequential {:?}",
                    a.err(),
                    s.err()
                );
                continue;
            }
        };
        println!(
            "{:.0} m ({ax}, {ay}) -> ({bx}, {by}): A* 16-conn {a_ms:7.2} ms [{a_best:.2}] ({} expanded, cost {:.1}, {:.0} m); sequential {s_ms:6.3} ms [{s_best:.3}] (cost {:.1}, {:.0} m)",
            from.distance(to),
            a.work,
            a.cost,
            a.length(),
            s.cost,
            s.length()
        );
        sum = (
            sum.0 + a_ms / PAIRS.len() as f64,
            sum.1 + s_ms / PAIRS.len() as f64,
        );
    }
    println!(
        "mean of {} pairs: A* {:.2} ms (thesis 375), sequential {:.3} ms (thesis 15)",
        PAIRS.len(),
        sum.0,
        sum.1
    );

    // Against pathfinding: the parts that read a road's label (schedule,
    // dither) off, so a state alone fixes every step's cost. pathfinding
    // gets the graph's successors and either the plain height-difference
    // heuristic or the same relaxed cost-to-go ours uses.
    let mut exact = params.clone();
    exact.weights.distance = 0.0;
    let (mut r_plain, mut r_same) = (0.0, 0.0);
    let n = PAIRS.len() as f64;
    for &((ax, ay), (bx, by)) in &PAIRS {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let (ours_ms, _, ours) = time_ms(5, || {
            AStarPlanner
                .plan(&terrain, from, to, &exact)
                .expect("A* road")
        });
        let (plain_ms, _, (p1, c1)) =
            time_ms(3, || pathfinding_astar(&terrain, from, to, &exact, false));
        let (same_ms, _, (p2, c2)) =
            time_ms(3, || pathfinding_astar(&terrain, from, to, &exact, true));
        let check = |len: usize, c: f64| {
            if len == ours.points.len() && (c - ours.cost).abs() <= 1e-9 * c {
                "same cost"
            } else {
                "DIFFERENT ROAD"
            }
        };
        println!(
            "state-exact: ours {ours_ms:6.2} ms (cost {:.3}); pathfinding::astar, plain h {plain_ms:7.2} ms ({}, {:.2}x), relaxed h {same_ms:6.2} ms ({}, {:.2}x)",
            ours.cost,
            check(p1.len(), c1),
            plain_ms / ours_ms,
            check(p2.len(), c2),
            same_ms / ours_ms,
        );
        r_plain += plain_ms / ours_ms / n;
        r_same += same_ms / ours_ms / n;
    }
    println!(
        "mean speed-up over pathfinding::astar: {r_plain:.2}x with its plain heuristic, {r_same:.2}x with ours"
    );
    highways(&terrain);
}

/// 10 km highways by A* with the road system's planner settings.
fn highways(terrain: &Terrain) {
    let p = RoadSystemParams::default().highways;
    for ((ax, ay), (bx, by)) in [
        ((0.0, 0.0), (8000.0, 6000.0)),
        ((5000.0, 0.0), (5000.0, 10000.0)),
    ] {
        let (from, to) = (DVec2::new(ax, ay), DVec2::new(bx, by));
        let (ms, best, road) = time_ms(3, || AStarPlanner.plan(terrain, from, to, &p));
        match road {
            Ok(r) => println!(
                "highway {:.0} m ({ax}, {ay}) -> ({bx}, {by}): A* {ms:7.2} ms [{best:.2}] ({} expanded, cost {:.1}, {:.0} m, {} bridges)",
                from.distance(to),
                r.work,
                r.cost,
                r.length(),
                r.bridges.len()
            ),
            Err(e) => println!("highway ({ax}, {ay}) -> ({bx}, {by}): {e}"),
        }
    }
}
