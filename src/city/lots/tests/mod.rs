//! Invariants of [`subdivide`] on hand-made awkward blocks ([`blocks`]) and
//! random planar street graphs ([`cities`]), and the helpers that check
//! them: every lot in its block, off every street and obstacle, no two lots
//! overlapping, every building in its lot and `setback` beyond every
//! street's half width, most of the buildable area covered.

mod blocks;
mod cities;

use super::*;
use crate::city::EdgeRole;
use crate::city::polygon;
use crate::geom::{PlanarGraph, segment_intersection};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::float::single::SingleFloatOverlay;
use rand_chacha::rand_core::RngCore;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// Streets from nodes and labelled edges.
fn streets(
    nodes: &[(f64, f64)],
    edges: &[(usize, usize, EdgeRole)],
    obstacles: Vec<Vec<DVec2>>,
) -> Streets {
    let mut g = PlanarGraph::new(64.0);
    for &(x, y) in nodes {
        g.add_node(v(x, y));
    }
    for &(a, b, role) in edges {
        assert!(!g.crosses(
            g.pos(a as u32),
            g.pos(b as u32),
            [Some(a as u32), Some(b as u32)]
        ));
        g.add_edge(a as u32, b as u32, role.label());
    }
    Streets::from_graph(&g, obstacles, EdgeRole::default_style)
}

/// A closed loop of ring edges through `n` consecutive nodes from `first`.
fn ring(first: usize, n: usize) -> Vec<(usize, usize, EdgeRole)> {
    (0..n)
        .map(|i| (first + i, first + (i + 1) % n, EdgeRole::Ring))
        .collect()
}

fn area_of(shapes: &[Vec<Vec<[f64; 2]>>]) -> f64 {
    (shapes.iter().flatten())
        .map(|c| signed_area(&c.iter().map(|&[x, y]| v(x, y)).collect::<Vec<_>>()))
        .sum()
}

fn arr(p: &[DVec2]) -> Vec<[f64; 2]> {
    p.iter().map(|q| [q.x, q.y]).collect()
}

/// Area of `a` outside `b`, and of `a` inside `b`.
fn outside_inside(a: &[DVec2], b: &[DVec2]) -> (f64, f64) {
    let (a, b) = (arr(a), arr(b));
    (
        area_of(&a.overlay(&b, OverlayRule::Difference, FillRule::NonZero)),
        area_of(&a.overlay(&b, OverlayRule::Intersect, FillRule::NonZero)),
    )
}

/// Whether a polygon is simple: no two non-adjacent edges meet, no
/// repeated vertex.
fn simple(p: &[DVec2]) -> bool {
    let m = p.len();
    (0..m).all(|i| {
        (i + 1..m).all(|j| {
            let adjacent = j == i + 1 || (i == 0 && j == m - 1);
            p[i] != p[j]
                && (adjacent
                    || segment_intersection(p[i], p[(i + 1) % m], p[j], p[(j + 1) % m]).is_none())
        })
    })
}

/// Every street segment with half its width.
fn segments(s: &Streets) -> Vec<(DVec2, DVec2, f64)> {
    (s.network.roads.iter())
        .flat_map(|r| {
            r.points
                .windows(2)
                .map(move |w| (w[0], w[1], r.width / 2.0))
        })
        .collect()
}

/// Least distance from polygon `p` (edges and inside) to segment `a–b`.
fn poly_distance(p: &[DVec2], a: DVec2, b: DVec2) -> f64 {
    if polygon::polygon_contains(p, a) || polygon::polygon_contains(p, b) {
        return 0.0;
    }
    let m = p.len();
    (0..m)
        .map(|i| ribbons::segment_distance(p[i], p[(i + 1) % m], a, b))
        .fold(f64::INFINITY, f64::min)
}

/// Checks every invariant of `lots` for `s` and returns the share of the
/// buildable area (blocks not tiny) the lots cover.
fn check(s: &Streets, p: &LotParams, lots: &[Lot]) -> f64 {
    let segs = segments(s);
    for (k, lot) in lots.iter().enumerate() {
        let poly = &lot.polygon;
        assert!(
            poly.len() >= 3 && signed_area(poly) > 0.0 && simple(poly),
            "lot {k} {poly:?}"
        );
        // In its block, off its streets and obstacles.
        let (out, _) = outside_inside(poly, &s.blocks[lot.block]);
        assert!(out < 1e-3, "lot {k} leaves its block by {out} m²");
        let mut access = false;
        // Streets whose box is farther than this from the lot's box are
        // farther from the lot and its building than any test below asks.
        let (lo, hi) = crate::geom::bounds(poly);
        let near = |&&(a, b, h): &&(DVec2, DVec2, f64)| {
            let reach = DVec2::splat(h + p.setback + 1.0 + 1e-3);
            a.min(b).cmple(hi + reach).all() && a.max(b).cmpge(lo - reach).all()
        };
        let close: Vec<&(DVec2, DVec2, f64)> = segs.iter().filter(near).collect();
        for &&(a, b, h) in &close {
            let d = poly_distance(poly, a, b);
            assert!(
                d >= h - 1e-3,
                "lot {k} is {d} m from a street of half width {h}"
            );
            // Street access: the lot comes within a metre of the edge of
            // some street (cuts that keep clear of a wider street's end
            // may leave a verge).
            access |= d <= h + 1.0;
        }
        assert!(access, "lot {k} has no street access");
        for o in &s.obstacles {
            let (_, inside) = outside_inside(poly, o);
            assert!(inside < 1e-3, "lot {k} covers {inside} m² of an obstacle");
        }
        // Its building inside it, clear of every street.
        if let Some(bd) = &lot.building {
            let f = &bd.footprint;
            assert!(
                f.len() >= 3 && f.len() <= MAX_FOOTPRINT_VERTICES && simple(f),
                "{f:?}"
            );
            assert!(signed_area(f) >= p.min_building_area);
            let (out, _) = outside_inside(f, poly);
            assert!(out < 1e-6, "building {k} leaves its lot by {out} m²");
            for &&(a, b, h) in &close {
                let d = poly_distance(f, a, b);
                assert!(
                    d >= h + p.setback - 1e-6,
                    "building {k} {d} m from a street ({h})"
                );
            }
            assert!((p.min_height..=p.max_height).contains(&bd.height));
        }
    }
    // No two lots overlap.
    let boxes: Vec<(DVec2, DVec2)> = lots
        .iter()
        .map(|l| crate::geom::bounds(&l.polygon))
        .collect();
    for i in 0..lots.len() {
        for j in i + 1..lots.len() {
            let ((a0, a1), (b0, b1)) = (boxes[i], boxes[j]);
            if a0.cmplt(b1).all() && b0.cmplt(a1).all() {
                let (_, inside) = outside_inside(&lots[i].polygon, &lots[j].polygon);
                assert!(inside < 1e-3, "lots {i} and {j} overlap by {inside} m²");
            }
        }
    }
    coverage(s, p, lots)
}

/// The share of the buildable area (every street's ribbon and obstacle cut
/// out exactly, by `i_overlay`) of blocks that are not tiny covered by lots.
fn coverage(s: &Streets, p: &LotParams, lots: &[Lot]) -> f64 {
    let mut ribbons = ribbons::Ribbons::new(&s.network).unwrap();
    let (mut buildable, mut covered) = (0.0, 0.0);
    for (b, block) in s.blocks.iter().enumerate() {
        let near = ribbons.near(block);
        let obs: Vec<&[DVec2]> = s.obstacles.iter().map(|o| o.as_slice()).collect();
        let area: f64 = inset::overlay_inset(block, &near, &obs)
            .iter()
            .map(|x| x.area())
            .sum();
        if area >= 2.0 * p.min_area {
            buildable += area;
            covered += (lots.iter().filter(|l| l.block == b))
                .map(|l| signed_area(&l.polygon))
                .sum::<f64>();
        }
    }
    if buildable > 0.0 {
        covered / buildable
    } else {
        1.0
    }
}

/// A square ring of side 120 m at the origin with a street across it, and
/// `obstacles`.
fn two_blocks(obstacles: Vec<Vec<DVec2>>) -> Streets {
    let nodes = [
        (0., 0.),
        (60., 0.),
        (120., 0.),
        (120., 120.),
        (60., 120.),
        (0., 120.),
    ];
    let mut edges = ring(0, 6);
    edges.push((1, 4, EdgeRole::Street(1)));
    streets(&nodes, &edges, obstacles)
}

/// A 24-gon of radius `r` around `c`.
fn circle(c: DVec2, r: f64) -> Vec<DVec2> {
    (0..24)
        .map(|i| c + DVec2::from_angle(i as f64 * std::f64::consts::TAU / 24.0) * r)
        .collect()
}

/// A connected random planar street graph: a jittered grid with missing
/// and diagonal edges and dead ends, labels of every width, and on odd
/// seeds a lake somewhere.
fn random_streets(seed: u64, n: usize) -> Streets {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut u = move || crate::num::unit(rng.next_u64());
    let mut g = PlanarGraph::new(64.0);
    let spacing = 70.0;
    for j in 0..n {
        for i in 0..n {
            let jit = v(u() - 0.5, u() - 0.5) * 30.0;
            g.add_node(v(i as f64, j as f64) * spacing + jit);
        }
    }
    let roles = [
        EdgeRole::Ring,
        EdgeRole::Main,
        EdgeRole::Street(0),
        EdgeRole::Street(1),
        EdgeRole::Street(3),
    ];
    let add = |g: &mut PlanarGraph, a: u32, b: u32, r: f64| {
        if !g.crosses(g.pos(a), g.pos(b), [Some(a), Some(b)]) {
            g.add_edge(a, b, roles[(r * roles.len() as f64) as usize].label());
        }
    };
    let id = |i: usize, j: usize| (j * n + i) as u32;
    for j in 0..n {
        for i in 0..n {
            if i + 1 < n && u() < 0.85 {
                let r = u();
                add(&mut g, id(i, j), id(i + 1, j), r);
            }
            if j + 1 < n && u() < 0.85 {
                let r = u();
                add(&mut g, id(i, j), id(i, j + 1), r);
            }
            if i + 1 < n && j + 1 < n && u() < 0.15 {
                let r = u();
                add(&mut g, id(i, j), id(i + 1, j + 1), r);
            }
        }
    }
    // Dead ends into the blocks.
    for _ in 0..n {
        let a = (u() * (n * n) as f64) as u32;
        let to = g.pos(a) + DVec2::from_angle(u() * std::f64::consts::TAU) * (20.0 + 20.0 * u());
        if !g.any_node_closer(to, 15.0) && !g.crosses(g.pos(a), to, [Some(a), None]) {
            let b = g.add_node(to);
            g.add_edge(a, b, EdgeRole::Street(2).label());
        }
    }
    // Keep the largest connected part.
    let parts = g.components();
    let mut count = vec![0usize; parts.len()];
    for &c in &parts {
        count[c as usize] += 1;
    }
    let big = (0..count.len())
        .max_by_key(|&c| (count[c], std::cmp::Reverse(c)))
        .unwrap_or(0);
    let (g, _) = g.retain_nodes(|x| parts[x as usize] as usize == big);
    let lakes = (seed % 2 == 1)
        .then(|| circle(v(u(), u()) * spacing * (n - 1) as f64, 15.0 + 30.0 * u()))
        .into_iter()
        .collect();
    Streets::from_graph(&g, lakes, EdgeRole::default_style)
}
