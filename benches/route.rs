//! Routes over a real 10 × 10 km region (`RoadSystem::region` at (5000, 0)):
//! the router's build (graph and snapping grid), a route corner to corner
//! by time and by length (goal ≤ 5 ms), random routes across the region,
//! and our Dijkstra against `pathfinding`'s on the same compact graph from
//! the same node to the same node (costs in integer mm / µs for it; goal
//! ours ≤ 1.2× theirs).
//!
//! `cargo bench --no-default-features --bench route`

mod common;

use bevy_relief::network::{RoadNetwork, RouteCost, RouteGraph, RouteParams, Router};
use bevy_relief::terrain::Terrain;
use bevy_relief::world::{RoadSystem, RoadSystemParams};
use common::time_ms;
use glam::DVec2;
use pathfinding::prelude::dijkstra;

/// Each node's connected component: the lowest node reachable.
fn components(g: &RouteGraph) -> Vec<usize> {
    let mut comp = vec![usize::MAX; g.node_count()];
    for s in 0..g.node_count() {
        if comp[s] != usize::MAX {
            continue;
        }
        let mut stack = vec![s];
        comp[s] = s;
        while let Some(n) = stack.pop() {
            for (m, _, _) in g.edges(n) {
                if comp[m as usize] == usize::MAX {
                    comp[m as usize] = s;
                    stack.push(m as usize);
                }
            }
        }
    }
    comp
}

/// The node of component `c` nearest to `p`.
fn nearest_node(g: &RouteGraph, comp: &[usize], c: usize, p: DVec2) -> usize {
    (0..g.node_count())
        .filter(|&n| comp[n] == c)
        .min_by(|&a, &b| {
            (g.node_pos(a).distance(p))
                .total_cmp(&g.node_pos(b).distance(p))
                .then(a.cmp(&b))
        })
        .expect("a node")
}

fn main() {
    let t = Terrain::default();
    let min = DVec2::new(5000.0, 0.0);
    let max = min + 10_000.0;
    let sys = RoadSystem::new(RoadSystemParams::default()).expect("defaults");
    let region = sys.region(&t, min, max).expect("region");
    let net = &region.network;
    let vertices: usize = net.roads.iter().map(|r| r.points.len()).sum();
    println!(
        "network: {} roads, {vertices} vertices, {} junctions",
        net.roads.len(),
        net.junctions.len(),
    );
    // As the world joins its roads (grade-separated crossings apart), and
    // every shared vertex joined whatever the heights (as in 2D).
    let flat = RouteParams {
        level_gap: 1.0e9,
        ..RouteParams::default()
    };
    for (name, params) in [("levels", RouteParams::default()), ("2D", flat)] {
        println!("-- junctions {name}:");
        bench(net, &params, min, max);
    }
}

fn bench(net: &RoadNetwork, params: &RouteParams, min: DVec2, max: DVec2) {
    let (build, build_min, router) =
        time_ms(5, || Router::with_params(net, params).expect("params"));
    let g = router.graph();
    println!(
        "graph: {} nodes, {} edges; router build {build:.1} ms (min {build_min:.1})",
        g.node_count(),
        g.edge_count(),
    );
    // Corner to corner: the nodes of the largest connected part nearest to
    // the corners.
    let comp = components(g);
    let mut size = vec![0usize; comp.len()];
    comp.iter().for_each(|&c| size[c] += 1);
    let main = (0..size.len())
        .max_by_key(|&c| (size[c], usize::MAX - c))
        .expect("nodes");
    println!(
        "largest connected part: {} of {} nodes",
        size[main],
        g.node_count()
    );
    let (na, nb) = (
        nearest_node(g, &comp, main, min),
        nearest_node(g, &comp, main, max),
    );
    let (a, b) = (g.node_pos(na), g.node_pos(nb));
    for cost in [RouteCost::Time, RouteCost::Length] {
        let (ms, best, r) = time_ms(20, || router.route(a, b, cost).expect("a route"));
        println!(
            "route {a:.0} -> {b:.0} by {cost:?}: {ms:.2} ms (min {best:.2}); {:.0} m, {:.0} s, {} points, {} roads",
            r.length,
            r.time,
            r.points.len(),
            r.roads.len()
        );
    }
    // Random ends anywhere in the region (some may be off every road).
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let pairs: Vec<(DVec2, DVec2)> = (0..200)
        .map(|_| {
            let p = min + DVec2::new(next(), next()) * 10_000.0;
            let q = min + DVec2::new(next(), next()) * 10_000.0;
            (p, q)
        })
        .collect();
    let (ms, _, ok) = time_ms(3, || {
        (pairs.iter())
            .filter(|(p, q)| router.route(*p, *q, RouteCost::Time).is_ok())
            .count()
    });
    println!(
        "200 random routes by time: {:.3} ms each ({ok} found)",
        ms / 200.0
    );
    // The same search on the same graph: ours against pathfinding's.
    for (cost, scale) in [(RouteCost::Time, 1e6), (RouteCost::Length, 1e3)] {
        let (ours, ours_min, mine) = time_ms(20, || g.shortest_path(na, nb, cost));
        let (theirs, theirs_min, other) = time_ms(20, || {
            dijkstra(
                &(na as u32),
                |&n| {
                    g.edges(n as usize).map(move |(m, l, t)| {
                        let c = if cost == RouteCost::Time { t } else { l };
                        (m, (c * scale).round() as u64)
                    })
                },
                |&n| n as usize == nb,
            )
        });
        let (mine, other) = (mine.expect("a path"), other.expect("a path"));
        println!(
            "node {na} -> {nb} by {cost:?}: ours {ours:.2} ms (min {ours_min:.2}), pathfinding {theirs:.2} ms (min {theirs_min:.2}); ratio {:.2} (min {:.2}); costs {:.3} / {:.3}, {} / {} nodes",
            ours / theirs,
            ours_min / theirs_min,
            mine.0,
            other.1 as f64 / scale,
            mine.1.len(),
            other.0.len(),
        );
    }
}
