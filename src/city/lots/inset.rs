//! Blocks made buildable: every street's ribbon (a stroke of its width along
//! each straight run) and every obstacle cut out of the block with
//! `i_overlay`, leaving zero or more [`Shape`]s whose edges know whether
//! they face a street.

use super::shape::{Ring, Shape};
use crate::geom::{SegmentGrid, distance_to_segment};
use crate::roads::RoadNetwork;
use glam::DVec2;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::core::solver::Solver;
use i_overlay::float::overlay::{FloatOverlay, OverlayOptions};

/// A ribbon's hexagonal ends reach this far past the segment, as a multiple
/// of the half width (1 / cos 30°): the hexagon contains the round cap.
const CAP: f64 = 1.154_700_538_379_251_6;

/// Pieces of a cut-out block smaller than this are dropped (m²).
const MIN_PIECE: f64 = 0.5;

/// One straight run of a road and half its width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ribbon {
    pub a: DVec2,
    pub b: DVec2,
    pub half: f64,
}

impl Ribbon {
    /// The distance from `p` to the centre line, less the half width
    /// (negative on the street).
    pub fn clearance(&self, p: DVec2) -> f64 {
        distance_to_segment(p, self.a, self.b) - self.half
    }

    /// A convex hexagon holding every point within the half width of the
    /// centre line (counter-clockwise).
    fn hexagon(&self) -> [[f64; 2]; 6] {
        let d = (self.b - self.a).normalize_or(DVec2::X) * self.half;
        let n = d.perp();
        let k = CAP / 2.0;
        [
            self.a - d * k - n,
            self.b + d * k - n,
            self.b + d * CAP,
            self.b + d * k + n,
            self.a - d * k + n,
            self.a - d * CAP,
        ]
        .map(|p| [p.x, p.y])
    }
}

/// Every road's ribbons, filed by cell.
pub(super) struct Ribbons {
    pub list: Vec<Ribbon>,
    grid: SegmentGrid,
}

impl Ribbons {
    /// The ribbons of a network, collinear runs of a road merged; `None` if
    /// a point or a width is not finite or a width is negative.
    pub fn new(net: &RoadNetwork) -> Option<Self> {
        let mut list = Vec::new();
        let mut longest: f64 = 1.0;
        for road in &net.roads {
            if !(road.width.is_finite() && road.width >= 0.0)
                || !road.points.iter().all(|p| p.is_finite())
            {
                return None;
            }
            let mut start = 0;
            for i in 1..road.points.len() {
                let p = &road.points;
                let straight = i + 1 < p.len() && {
                    let (u, v) = (p[i] - p[start], p[i + 1] - p[i]);
                    u.perp_dot(v).abs() <= 1e-9 * u.length() * v.length() && u.dot(v) > 0.0
                };
                if !straight {
                    if p[start] != p[i] {
                        list.push(Ribbon {
                            a: p[start],
                            b: p[i],
                            half: road.width / 2.0,
                        });
                        longest = longest.max(p[start].distance(p[i]));
                    }
                    start = i;
                }
            }
        }
        let lines: Vec<[DVec2; 2]> = list.iter().map(|r| [r.a, r.b]).collect();
        let cell = longest.clamp(16.0, 256.0);
        let grid = SegmentGrid::new(cell, lines.iter().map(|l| l.as_slice()), |i| {
            list[i].half * CAP
        });
        Some(Self { list, grid })
    }

    /// The ribbons that may reach into `poly` (their hexagon meets it or
    /// comes within a millimetre), ascending.
    pub fn near(&self, poly: &[DVec2]) -> Vec<usize> {
        let (lo, hi) = crate::geom::bounds(poly);
        let mut out = self.grid.lines_in(lo, hi);
        out.retain(|&i| {
            let r = &self.list[i];
            let reach = r.half * CAP + 1e-3;
            let (rlo, rhi) = (r.a.min(r.b) - reach, r.a.max(r.b) + reach);
            rlo.cmple(hi).all()
                && rhi.cmpge(lo).all()
                && (crate::city::polygon::polygon_contains(poly, r.a)
                    || (0..poly.len()).any(|j| {
                        segment_distance(r.a, r.b, poly[j], poly[(j + 1) % poly.len()]) <= reach
                    }))
        });
        out
    }
}

/// Least distance between segments `a–b` and `c–d`.
pub(super) fn segment_distance(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> f64 {
    if crate::geom::segment_intersection(a, b, c, d).is_some() {
        return 0.0;
    }
    (distance_to_segment(a, c, d).min(distance_to_segment(b, c, d)))
        .min(distance_to_segment(c, a, b).min(distance_to_segment(d, a, b)))
}

/// The buildable pieces of `block`: the block less the ribbons `near` and
/// the `obstacles`, each piece's edges marked as facing a street where they
/// run along a ribbon's edge. Pieces with no street frontage are dropped.
pub(super) fn inset(block: &[DVec2], near: &[Ribbon], obstacles: &[&[DVec2]]) -> Vec<Shape> {
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
        near.iter()
            .any(|r| r.clearance(m) <= r.half * (CAP - 1.0) + 1e-3)
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
        .filter(|s| !s.rings.is_empty() && s.area() >= MIN_PIECE && s.frontage() > 0.0)
        .collect()
}
