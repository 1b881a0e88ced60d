//! A buildable piece into lots (recursive cuts across its oriented bounding
//! box, each kept only if every part keeps street frontage), and a lot into
//! a building footprint (the lot clipped back from its edges).

use super::LotParams;
use super::inset::{Ribbon, segment_distance};
use super::shape::{Ring, Shape};
use crate::city::polygon::signed_area;
use crate::geom::closest_on_segment;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::RngCore;

/// Deepest recursion of the lot cuts (2^24 lots from one piece).
const MAX_DEPTH: u32 = 24;
/// Most vertices of a building footprint.
pub const MAX_FOOTPRINT_VERTICES: usize = 12;
/// A footprint narrower than this (across its bounding box) is no building.
const MIN_BUILDING_WIDTH: f64 = 4.0;
/// Most extra cuts that keep a footprint clear of nearby streets.
const MAX_CLEARANCE_CUTS: usize = 8;
/// Frontage shorter than this is no street access (metres).
const MIN_ACCESS: f64 = 0.5;

fn unit(rng: &mut ChaCha8Rng) -> f64 {
    crate::num::unit(rng.next_u64())
}

/// Splits `piece` into lots (outer rings, counter-clockwise), appending to
/// `out` until it holds `cap` lots. A part is cut while it is larger than a
/// random threshold in `max_area · [0.5, 1]`, across the long or else the
/// short axis of its bounding box, near the middle; a cut stands only if
/// every part keeps `min_area` and `min_frontage`. Holes are cut open first;
/// parts with no street access are dropped.
pub(super) fn split(
    piece: Shape,
    p: &LotParams,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Ring>,
    cap: usize,
) {
    let mut stack = vec![(piece, 0u32)];
    while let Some((shape, depth)) = stack.pop() {
        if out.len() >= cap {
            return;
        }
        let parts = if shape.rings.len() > 1 {
            // A hole is opened, or the shape dropped.
            Some(
                open_hole(&shape)
                    .filter(|_| depth < MAX_DEPTH)
                    .unwrap_or_default(),
            )
        } else {
            cut_in_two(&shape, depth, p, rng)
        };
        if let Some(parts) = parts {
            stack.extend(parts.into_iter().map(|s| (s, depth + 1)));
            continue;
        }
        let ring = shape.rings.into_iter().next().expect("a shape has a ring");
        let access: f64 = (ring.edges())
            .filter(|e| e.2)
            .map(|(a, b, _)| a.distance(b))
            .sum();
        if access >= MIN_ACCESS {
            out.push(ring);
        }
    }
}

/// The parts of one lot cut of a shape without holes, or `None` when the
/// shape is a lot already (small enough, or no cut keeps every part at
/// `min_area` and `min_frontage`).
fn cut_in_two(
    shape: &Shape,
    depth: u32,
    p: &LotParams,
    rng: &mut ChaCha8Rng,
) -> Option<Vec<Shape>> {
    let area = shape.area();
    let threshold = p.max_area * (0.5 + 0.5 * unit(rng));
    if area <= threshold || area < 2.0 * p.min_area || depth >= MAX_DEPTH {
        return None;
    }
    let ok = |s: &Shape| s.area() >= p.min_area && s.frontage() >= p.min_frontage;
    let (long, u, v) = shape.obb();
    for (n, (lo, hi)) in [(long, u), (long.perp(), v)] {
        let f = 0.5 + p.split_jitter * (2.0 * unit(rng) - 1.0);
        if let Some([a, b]) = shape.cut(n, lo + (hi - lo) * f) {
            let parts: Vec<Shape> = a.into_iter().chain(b).collect();
            if parts.iter().all(ok) {
                return Some(parts);
            }
        }
    }
    None
}

/// Cuts a shape with holes through its first hole (a line across the
/// hole's longest edge at its middle), so that the hole opens to the outside.
fn open_hole(shape: &Shape) -> Option<Vec<Shape>> {
    let hole = &shape.rings[1];
    let (a, b, _) = hole
        .edges()
        .max_by(|x, y| x.0.distance(x.1).total_cmp(&y.0.distance(y.1)))?;
    let n = (b - a).normalize_or_zero();
    if n == DVec2::ZERO {
        return None;
    }
    let [x, y] = shape.cut(n, n.dot((a + b) / 2.0))?;
    Some(x.into_iter().chain(y).collect())
}

/// The part of `shape` on the side `n·p ≥ c` (its largest piece), or `None`
/// if nothing is left.
fn keep_above(shape: Shape, n: DVec2, c: f64) -> Option<Shape> {
    match shape.cut(n, c) {
        Some([above, _]) => above
            .into_iter()
            .max_by(|a, b| a.area().total_cmp(&b.area())),
        None => {
            let pts = &shape.outer().pts;
            pts.iter().all(|&q| n.dot(q) >= c).then_some(shape)
        }
    }
}

/// A building footprint for `lot` (counter-clockwise, at most
/// [`MAX_FOOTPRINT_VERTICES`]): the lot less `setback` along its street
/// edges and `side_gap` along the others, no deeper than `building_depth`
/// behind the setback of its longest street edge, and at least `setback`
/// beyond the half width of every ribbon in `near`. `None` when that leaves
/// less than `min_building_area` or a sliver.
pub(super) fn footprint(lot: &Ring, near: &[Ribbon], p: &LotParams) -> Option<Vec<DVec2>> {
    let (fa, fb, _) = (lot.edges())
        .filter(|e| e.2)
        .max_by(|x, y| x.0.distance(x.1).total_cmp(&y.0.distance(y.1)))?;
    let mut shape = Shape {
        rings: vec![lot.clone()],
    };
    for (a, b, street) in lot.edges() {
        let n = (b - a).perp().normalize_or_zero();
        if n != DVec2::ZERO {
            let gap = if street { p.setback } else { p.side_gap };
            shape = keep_above(shape, n, n.dot(a) + gap)?;
        }
    }
    let n = (fb - fa).perp().normalize_or_zero();
    if n != DVec2::ZERO {
        shape = keep_above(shape, -n, -(n.dot(fa) + p.setback + p.building_depth))?;
    }
    for _ in 0..MAX_CLEARANCE_CUTS {
        let Some((q, x, r)) = nearest_violation(&shape.outer().pts, near, p.setback) else {
            break;
        };
        let u = (x - q).normalize_or_zero();
        if u == DVec2::ZERO {
            return None;
        }
        shape = keep_above(shape, u, u.dot(q) + r.half + p.setback)?;
    }
    if nearest_violation(&shape.outer().pts, near, p.setback).is_some() {
        return None;
    }
    let pts = simplify(shape.rings.swap_remove(0).pts)?;
    let (_, _, (w0, w1)) = Shape {
        rings: vec![Ring {
            street: vec![false; pts.len()],
            pts: pts.clone(),
        }],
    }
    .obb();
    (signed_area(&pts) >= p.min_building_area && w1 - w0 >= MIN_BUILDING_WIDTH).then_some(pts)
}

/// The closest pair `(on the ribbon, on the polygon)` for the ribbon that
/// comes nearest to violating `half + setback`, if any does.
fn nearest_violation(
    poly: &[DVec2],
    near: &[Ribbon],
    setback: f64,
) -> Option<(DVec2, DVec2, Ribbon)> {
    let mut worst: Option<(f64, DVec2, DVec2, Ribbon)> = None;
    let m = poly.len();
    for r in near {
        let need = r.half + setback;
        for i in 0..m {
            let (a, b) = (poly[i], poly[(i + 1) % m]);
            let d = segment_distance(a, b, r.a, r.b);
            let slack = d - need;
            if slack < -1e-9 && worst.is_none_or(|w| slack < w.0) {
                let (q, x) = closest_pair(r.a, r.b, a, b);
                worst = Some((slack, q, x, *r));
            }
        }
    }
    worst.map(|w| (w.1, w.2, w.3))
}

/// The closest points `(on a–b, on c–d)` of two segments that do not cross
/// (for crossing ones, some pair of equal points on the crossing side).
fn closest_pair(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> (DVec2, DVec2) {
    let cands = [
        (closest_on_segment(c, a, b).0, c),
        (closest_on_segment(d, a, b).0, d),
        (a, closest_on_segment(a, c, d).0),
        (b, closest_on_segment(b, c, d).0),
    ];
    (cands.into_iter())
        .min_by(|x, y| x.0.distance(x.1).total_cmp(&y.0.distance(y.1)))
        .expect("four candidates")
}

/// Drops repeated and collinear vertices, then (for a convex polygon) the
/// corners that cut away least area until at most
/// [`MAX_FOOTPRINT_VERTICES`] remain; `None` for a non-convex polygon that
/// stays above the limit.
fn simplify(mut pts: Vec<DVec2>) -> Option<Vec<DVec2>> {
    let tri = |pts: &[DVec2], i: usize| {
        let m = pts.len();
        let (a, b, c) = (pts[(i + m - 1) % m], pts[i], pts[(i + 1) % m]);
        (b - a).perp_dot(c - b) / 2.0
    };
    let mut i = 0;
    while i < pts.len() && pts.len() >= 3 {
        let m = pts.len();
        let (a, b, c) = (pts[(i + m - 1) % m], pts[i], pts[(i + 1) % m]);
        if a.distance(b) < 1e-6 || tri(&pts, i).abs() <= 1e-9 * (b - a).length() * (c - b).length()
        {
            pts.remove(i);
            i = i.saturating_sub(1);
        } else {
            i += 1;
        }
    }
    let convex = (0..pts.len()).all(|i| tri(&pts, i) > 0.0);
    while pts.len() > MAX_FOOTPRINT_VERTICES {
        if !convex {
            return None;
        }
        let i = (0..pts.len()).min_by(|&x, &y| tri(&pts, x).total_cmp(&tri(&pts, y)))?;
        pts.remove(i);
    }
    (pts.len() >= 3).then_some(pts)
}
