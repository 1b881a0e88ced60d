//! A lot's building footprint: the lot clipped by half-planes, back from
//! its edges, no deeper than allowed behind its main frontage, and clear of
//! every nearby street's ribbon.

use super::LotParams;
use super::hull::obb;
use super::inset::clear_of;
use super::ribbons::Ribbon;
use super::shape::{Ring, Shape};
use crate::city::polygon::signed_area;
use glam::DVec2;

/// Most vertices of a building footprint.
pub const MAX_FOOTPRINT_VERTICES: usize = 12;
/// A footprint narrower than this (across its bounding box) is no building.
const MIN_BUILDING_WIDTH: f64 = 4.0;

/// A building footprint for `lot` (counter-clockwise, simple, at most
/// [`MAX_FOOTPRINT_VERTICES`]): the lot less `side_gap` along its edges
/// that face no street (and, if it is convex, `setback` along the others)
/// and beyond `building_depth` behind the setback of its main frontage
/// (the longest street edge), then cut by the line
/// across the way to the nearest ribbon of `near` closer than
/// `half + setback`, until none is. Each cut keeps the largest piece, so
/// the footprint lies in the lot. `None` when no footprint of
/// `min_building_area` and some width is left.
pub(super) fn footprint(lot: &Ring, near: &[Ribbon], p: &LotParams) -> Option<Vec<DVec2>> {
    let (fa, fb, _) = (lot.edges())
        .filter(|e| e.2.is_some())
        .max_by(|x, y| x.0.distance(x.1).total_cmp(&y.0.distance(y.1)))?;
    let mut shape = Shape {
        rings: vec![lot.with_slack()],
    };
    // In a convex lot (but for dents under a centimetre) a street edge's
    // half-plane is exact, and its ribbon lies wholly behind its line (an
    // inset line or a clearance cut), so it saves a clearance search.
    let convex = lot.dent().is_none();
    for (a, b, street) in lot.edges() {
        let n = (b - a).perp().normalize_or_zero();
        let gap = if street.is_none() {
            p.side_gap
        } else if convex {
            p.setback
        } else {
            continue;
        };
        if n != DVec2::ZERO {
            shape = shape.keep_above(n, n.dot(a) + gap, None)?;
        }
    }
    let n = (fb - fa).perp().normalize_or_zero();
    if n != DVec2::ZERO {
        shape = shape.keep_above(-n, -(n.dot(fa) + p.setback + p.building_depth), None)?;
    }
    let mut shape = clear_of(shape, near, p.setback)?;
    let pts = simplify(shape.rings.swap_remove(0).pts)?;
    let (_, _, (w0, w1)) = obb(&pts);
    (signed_area(&pts) >= p.min_building_area && w1 - w0 >= MIN_BUILDING_WIDTH).then_some(pts)
}

/// Drops repeated and collinear vertices, then (for a convex polygon) the
/// corners that cut away least area until at most
/// [`MAX_FOOTPRINT_VERTICES`] remain: each cut shrinks the polygon, so it
/// stays inside and clear. `None` for a concave polygon still above the
/// limit.
fn simplify(mut pts: Vec<DVec2>) -> Option<Vec<DVec2>> {
    let turn = |pts: &[DVec2], i: usize| {
        let m = pts.len();
        let (a, b, c) = (pts[(i + m - 1) % m], pts[i], pts[(i + 1) % m]);
        (b - a).perp_dot(c - b) / 2.0
    };
    let mut i = 0;
    while i < pts.len() && pts.len() >= 3 {
        let m = pts.len();
        let (a, b, c) = (pts[(i + m - 1) % m], pts[i], pts[(i + 1) % m]);
        if a.distance(b) < 1e-6 || turn(&pts, i).abs() <= 1e-9 * (b - a).length() * (c - b).length()
        {
            pts.remove(i);
            i = i.saturating_sub(1);
        } else {
            i += 1;
        }
    }
    let convex = (0..pts.len()).all(|i| turn(&pts, i) > 0.0);
    while pts.len() > MAX_FOOTPRINT_VERTICES {
        if !convex {
            return None;
        }
        let i = (0..pts.len()).min_by(|&x, &y| turn(&pts, x).total_cmp(&turn(&pts, y)))?;
        pts.remove(i);
    }
    (pts.len() >= 3).then_some(pts)
}
