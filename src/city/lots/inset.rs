//! Blocks made buildable: every street's ribbon (a stroke of its width along
//! each straight run) and every obstacle cut out of the block, leaving zero
//! or more [`Shape`]s whose edges know the street they run along. Blocks
//! with no obstacle are cut by lines (dead ends taken out of the ring,
//! convex parts, then half-planes, the dead ends' rectangles, then
//! [`clear_of`] every ribbon); the others, or when that fails, by `i_overlay`.
//! [`clear_of`] also keeps buildings back from the streets.

use super::ribbons::{CAP, Ribbon, apart, maybe_inside, scale, segment_distance};
use super::shape::{Ring, Shape};
use crate::geom::closest_on_segment;
use glam::DVec2;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::core::solver::Solver;
use i_overlay::float::overlay::{FloatOverlay, OverlayOptions};

/// Pieces of a cut-out block smaller than this are dropped (m²).
const MIN_PIECE: f64 = 0.5;
/// Most cuts that keep a shape clear of nearby ribbons.
const MAX_CLEARANCE_CUTS: usize = 16;
/// Most convex parts a block is cut into before it is left to `i_overlay`.
const MAX_PARTS: usize = 64;
/// Street edges of a convex part shorter than this are stubs (metres).
const STUB: f64 = 1e-3;

/// The part of `shape` (its outer ring) kept at least `half + extra` from
/// every ribbon of `near`: while one comes closer, the shape is cut by the
/// line across the way to it (every point of the ribbon lies behind the
/// line through its point nearest to the shape), or, near the ribbon's
/// end, by a chamfer across the bisector of the shape's nearest corner if
/// that keeps more (and the ribbon lies behind it). With `extra` 0 the new
/// edges run along that ribbon's street. `None` if nothing is left or the
/// cuts run out.
pub(super) fn clear_of(mut shape: Shape, near: &[Ribbon], extra: f64) -> Option<Shape> {
    // The shape only shrinks: ribbons out of reach of its box stay so.
    let start = crate::geom::bounds(&shape.outer().pts);
    for _ in 0..MAX_CLEARANCE_CUTS {
        let Some((q, x, r)) = nearest_violation(&shape.outer().pts, near, extra, start) else {
            return Some(shape);
        };
        let dir = (x - q).normalize_or_zero();
        if dir == DVec2::ZERO {
            return None;
        }
        let along = (extra == 0.0).then_some(r.half);
        let c = |u: DVec2| u.dot(q) + r.half + extra;
        // Near a ribbon's end, a chamfer across the nearest corner's
        // bisector may cost less than a cut parallel to an edge; either is
        // safe while the ribbon lies behind the line.
        let back = if q == r.a { r.b - r.a } else { r.a - r.b };
        let chamfer = (q == r.a || q == r.b)
            .then(|| corner_bisector(&shape.outer().pts, q))
            .filter(|&u| u != DVec2::ZERO && u.dot(back) <= 0.0);
        shape = match chamfer {
            None => shape.keep_above(dir, c(dir), along)?,
            Some(u) => {
                let best = shape.clone().keep_above(dir, c(dir), along);
                let other = shape.keep_above(u, c(u), along);
                let area = |s: &Option<Shape>| s.as_ref().map_or(0.0, Shape::area);
                if area(&other) > area(&best) {
                    other
                } else {
                    best
                }?
            }
        };
    }
    nearest_violation(&shape.outer().pts, near, extra, start)
        .is_none()
        .then_some(shape)
}

/// The inward bisector of the corner of `poly` nearest to `q` (zero for a
/// degenerate corner).
fn corner_bisector(poly: &[DVec2], q: DVec2) -> DVec2 {
    let m = poly.len();
    let Some(i) = (0..m)
        .min_by(|&u, &v| (poly[u].distance_squared(q)).total_cmp(&poly[v].distance_squared(q)))
    else {
        return DVec2::ZERO;
    };
    let c = poly[i];
    let (a, b) = (poly[(i + m - 1) % m], poly[(i + 1) % m]);
    ((a - c).normalize_or_zero() + (b - c).normalize_or_zero()).normalize_or_zero()
}

/// The closest pair `(on the ribbon, on the polygon)` for the ribbon that
/// most violates `half + extra`, if any does, among those of `near` whose
/// reach meets the box `start` (the shape's first bounds).
fn nearest_violation(
    poly: &[DVec2],
    near: &[Ribbon],
    extra: f64,
    (lo0, hi0): (DVec2, DVec2),
) -> Option<(DVec2, DVec2, Ribbon)> {
    if poly.is_empty() {
        return None;
    }
    let (lo, hi) = crate::geom::bounds(poly);
    let mut worst: Option<(f64, DVec2, DVec2, Ribbon)> = None;
    let (m, big) = (poly.len(), scale(lo, hi));
    for r in near {
        let need = r.half + extra;
        let reach = DVec2::splat(need);
        let (rmin, rmax) = (r.a.min(r.b), r.a.max(r.b));
        let meets =
            |lo: DVec2, hi: DVec2| rmin.cmplt(hi + reach).all() && rmax.cmpgt(lo - reach).all();
        if !(meets(lo0, hi0) && meets(lo, hi)) {
            continue;
        }
        if maybe_inside(lo, hi, r.a) && crate::city::polygon::polygon_contains(poly, r.a) {
            return Some((r.a, r.a, *r)); // no line keeps the shape clear
        }
        let (rlo, rhi) = (rmin - reach, rmax + reach);
        // `slack` is at least -1e-9 for edges apart by `t` from the line.
        let t = need - 1e-9 + r.margin(big);
        let s0 = r.side(poly[0]);
        let mut sp = s0;
        for i in 0..m {
            let (a, b) = (poly[i], poly[if i + 1 == m { 0 } else { i + 1 }]);
            let sq = if i + 1 == m { s0 } else { r.side(b) };
            let far = apart(sp, sq, t);
            sp = sq;
            if far || a.min(b).cmpgt(rhi).any() || a.max(b).cmplt(rlo).any() {
                continue; // too far for `slack` to be negative
            }
            let slack = segment_distance(a, b, r.a, r.b) - need;
            if slack < -1e-9 && worst.is_none_or(|w| slack < w.0) {
                let (q, x) = closest_pair(r.a, r.b, a, b);
                worst = Some((slack, q, x, *r));
            }
        }
    }
    worst.map(|w| (w.1, w.2, w.3))
}

/// The closest points `(on a–b, on c–d)` of two segments that do not cross.
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

/// The buildable pieces of `block` (see [`inset`]) without `i_overlay`, for
/// a block with no obstacle whose only repeated vertices are dead ends:
/// the dead ends are taken out of the ring ([`strip_spurs`]), the rest cut
/// into convex parts along the bisectors of its dents, each part cut back
/// from its street edges by their half `widths` (a half-plane: exact in a
/// convex part, and safe anywhere) and clear of each dead end
/// ([`clear_spur`]), then kept clear of every ribbon `near`. `None` when
/// the block does not qualify or the cuts fail.
fn convex_inset(block: &[DVec2], widths: &[f64], near: &[Ribbon]) -> Option<Vec<Shape>> {
    if widths.len() != block.len() {
        return None;
    }
    let (pts, widths, spurs) = strip_spurs(block, widths)?;
    let mut sorted = pts.clone();
    sorted.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    if sorted.windows(2).any(|w| w[0] == w[1]) {
        return None;
    }
    let ring = Ring {
        street: widths.iter().map(|w| Some(w / 2.0)).collect(),
        pts,
    };
    let mut todo = vec![Shape { rings: vec![ring] }];
    let mut parts = Vec::new();
    while let Some(s) = todo.pop() {
        if parts.len() + todo.len() >= MAX_PARTS {
            return None;
        }
        let Some(i) = s.outer().dent() else {
            parts.push(s);
            continue;
        };
        // Cut along the dent's bisector: each edge at the dent then stays
        // whole in one part, whose half-plane cuts little of the other side.
        let (pts, m) = (&s.outer().pts, s.outer().pts.len());
        let (a, b, c) = (pts[(i + m - 1) % m], pts[i], pts[(i + 1) % m]);
        let (d1, d2) = ((a - b).normalize_or_zero(), (c - b).normalize_or_zero());
        let n = (d1 + d2).try_normalize().unwrap_or(d1.perp()).perp();
        let [x, y] = s.cut(n, n.dot(b), None)?;
        todo.extend(x.into_iter().chain(y));
    }
    let mut out = Vec::new();
    'parts: for part in parts {
        let mut shape = Shape {
            rings: part.rings.iter().map(Ring::with_slack).collect(),
        };
        for (a, b, half) in part.outer().edges() {
            // Stubs a cut leaves of an edge are left to `clear_of`.
            let n = (b - a).perp().normalize_or_zero();
            if let Some(h) = half.filter(|&h| h > 0.0 && a.distance(b) > STUB) {
                match shape.keep_above(n, n.dot(a) + h, Some(h)) {
                    Some(s) => shape = s,
                    None => continue 'parts,
                }
            }
        }
        let mut pieces = vec![shape];
        for &spur in &spurs {
            pieces = clear_spur(pieces, spur)?;
        }
        for piece in pieces {
            out.push(clear_of(piece, near, 0.0)?);
        }
    }
    Some(out)
}

/// A dead end's straight run: from `a` (nearer the block's ring) to `b`,
/// and its half width.
type Spur = (DVec2, DVec2, f64);

/// `block` and its edges' `widths` less every dead end (the ring goes out
/// to a tip and back the same way; one copy of the point it leaves from is
/// kept), and the dead ends' runs. `None` if fewer than three points are
/// left.
fn strip_spurs(block: &[DVec2], widths: &[f64]) -> Option<(Vec<DVec2>, Vec<f64>, Vec<Spur>)> {
    let (mut pts, mut widths) = (block.to_vec(), widths.to_vec());
    let mut spurs = Vec::new();
    // Each pass takes two points off.
    for _ in 0..=block.len() / 2 {
        let m = pts.len();
        if m < 3 {
            return None;
        }
        let Some(tip) = (0..m).find(|&i| pts[(i + m - 1) % m] == pts[(i + 1) % m]) else {
            return Some((pts, widths, spurs));
        };
        let (prev, next) = ((tip + m - 1) % m, (tip + 1) % m);
        spurs.push((pts[prev], pts[tip], widths[prev] / 2.0));
        // The edge out of the kept point now leads where `next`'s did.
        widths[prev] = widths[next];
        let keep = |i: &usize| *i != tip && *i != next;
        pts = (0..m).filter(keep).map(|i| pts[i]).collect();
        widths = (0..m).filter(keep).map(|i| widths[i]).collect();
    }
    None
}

/// `shapes` less the rectangle `h` either side of the spur `a–b` and past
/// its ends (which holds its ribbon): each shape is split across the spur
/// at both ends and along it, and the pieces beside it cut back by `h`,
/// their new edges running along its street. `None` if a cut fails.
fn clear_spur(shapes: Vec<Shape>, (a, b, h): Spur) -> Option<Vec<Shape>> {
    let Some(d) = (b - a).try_normalize() else {
        return Some(shapes);
    };
    let n = d.perp();
    let (lo, hi) = (a.min(b) - h, a.max(b) + h);
    let mut out = Vec::new();
    for s in shapes {
        let (slo, shi) = crate::geom::bounds(&s.outer().pts);
        if slo.cmpgt(hi).any() || shi.cmplt(lo).any() {
            out.push(s);
            continue;
        }
        let [beyond, rest] = halves(s, d, d.dot(b) + h)?;
        out.extend(beyond);
        for r in rest {
            let [middle, behind] = halves(r, d, d.dot(a) - h)?;
            out.extend(behind);
            for m in middle {
                let [left, right] = halves(m, n, n.dot(a))?;
                let c = n.dot(a) + h;
                out.extend(
                    left.into_iter()
                        .filter_map(|s| s.keep_above(n, c, Some(0.0))),
                );
                let c = -n.dot(a) + h;
                out.extend(
                    right
                        .into_iter()
                        .filter_map(|s| s.keep_above(-n, c, Some(0.0))),
                );
            }
        }
    }
    Some(out)
}

/// [`Shape::cut`], or the whole shape on its side when the line misses it.
fn halves(s: Shape, n: DVec2, c: f64) -> Option<[Vec<Shape>; 2]> {
    if let Some(parts) = s.cut(n, c, None) {
        return Some(parts);
    }
    let mut pts = s.rings.iter().flat_map(|r| &r.pts);
    if pts.clone().all(|p| n.dot(*p) >= c) {
        Some([vec![s], vec![]])
    } else if pts.all(|p| n.dot(*p) <= c) {
        Some([vec![], vec![s]])
    } else {
        None
    }
}

/// The buildable pieces of `block`: the block less the ribbons `near` and
/// the `obstacles`, each piece's edges marked with the street they run
/// along. Pieces with no street frontage are dropped. With the block's
/// street `widths` and no obstacle, a block is cut without `i_overlay`
/// (see [`convex_inset`]); otherwise, or when that fails, `i_overlay`
/// subtracts every ribbon's hexagon and every obstacle.
pub(super) fn inset(
    block: &[DVec2],
    widths: Option<&[f64]>,
    near: &[Ribbon],
    obstacles: &[&[DVec2]],
) -> Vec<Shape> {
    let fast = widths.filter(|_| obstacles.is_empty());
    let shapes = fast
        .and_then(|w| convex_inset(block, w, near))
        .unwrap_or_else(|| overlay_inset(block, near, obstacles));
    (shapes.into_iter())
        .filter(|s| {
            s.rings
                .first()
                .is_some_and(|r| r.pts.len() >= 3 && r.area() > 0.0)
                && s.area() >= MIN_PIECE
                && s.frontage() > 0.0
        })
        .collect()
}

/// [`inset`] by `i_overlay`: an edge runs along a street if its middle is
/// within reach of a ribbon's hexagon.
pub(super) fn overlay_inset(
    block: &[DVec2],
    near: &[Ribbon],
    obstacles: &[&[DVec2]],
) -> Vec<Shape> {
    let subject: Vec<[f64; 2]> = block.iter().map(|p| [p.x, p.y]).collect();
    let mut clip: Vec<Vec<[f64; 2]>> = near.iter().map(|r| r.hexagon().to_vec()).collect();
    clip.extend((obstacles.iter()).map(|o| o.iter().map(|p| [p.x, p.y]).collect::<Vec<_>>()));
    let mut options = OverlayOptions::<f64, i32>::default();
    options.min_output_area = MIN_PIECE;
    let shapes = FloatOverlay::<[f64; 2], i32>::with_subj_and_clip_custom(
        &subject,
        &clip,
        options,
        Solver::default(),
    )
    .overlay(OverlayRule::Difference, FillRule::NonZero);
    let facing = |a: DVec2, b: DVec2| {
        let m = (a + b) / 2.0;
        (near.iter())
            .find(|r| r.clearance(m) <= r.half * (CAP - 1.0) + 1e-3)
            .map(|r| r.half)
    };
    (shapes.into_iter())
        .map(|contours| Shape {
            rings: (contours.into_iter())
                .map(|c| {
                    let mut pts: Vec<DVec2> =
                        c.into_iter().map(|[x, y]| DVec2::new(x, y)).collect();
                    pts.dedup();
                    let m = pts.len();
                    let street = (0..m).map(|i| facing(pts[i], pts[(i + 1) % m])).collect();
                    Ring { pts, street }
                })
                .filter(|r| r.pts.len() >= 3)
                .collect(),
        })
        .collect()
}
