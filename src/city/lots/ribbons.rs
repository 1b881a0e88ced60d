//! Street ribbons (a stroke of a road's width along each straight run) and
//! their index: a [`CellGrid`], each ribbon filed in the cells within its
//! reach, so a block's query costs work in proportion to
//! its cells and the ribbons near it, and nothing depends on hash order.

use crate::city::polygon::polygon_contains;
pub(super) use crate::geom::segment_distance;
use crate::geom::{CellGrid, distance_to_segment};
use crate::network::RoadNetwork;
use crate::num::floor_i64;
use glam::DVec2;

/// A ribbon's hexagonal ends reach this far past the segment, as a multiple
/// of the half width (1 / cos 30°): the hexagon contains the round cap.
pub(super) const CAP: f64 = 1.154_700_538_379_251_6;

/// Preferred cell side of the ribbon grid (metres).
const CELL: f64 = 24.0;
/// Most grid cells per ribbon (plus a floor): a larger extent gets larger
/// cells.
const CELLS_PER_RIBBON: f64 = 8.0;
/// Cell coordinates are padded by this much when filing (a safety margin
/// against rounding; it only adds candidates).
const MARGIN: f64 = 1e-6;

/// One straight run of a road and half its width.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Ribbon {
    pub a: DVec2,
    pub b: DVec2,
    pub half: f64,
    /// The unit normal of the centre line (zero if too short to tell).
    n: DVec2,
}

impl Ribbon {
    /// The distance from `p` to the centre line, less the half width
    /// (negative on the street).
    pub fn clearance(&self, p: DVec2) -> f64 {
        distance_to_segment(p, self.a, self.b) - self.half
    }

    /// The signed distance of `p` from the centre line's line (positive
    /// on its left; zero for a ribbon too short to tell).
    pub fn side(&self, p: DVec2) -> f64 {
        self.n.dot(p - self.a)
    }

    /// A bound on the rounding in [`Self::side`] and [`segment_distance`]
    /// for points within `scale` of the origin on each axis: if both ends
    /// of a segment have [`Self::side`] beyond `d + margin` on one side
    /// ([`apart`]), `segment_distance` finds it farther than `d`.
    pub fn margin(&self, scale: f64) -> f64 {
        let own = self.a.abs().max(self.b.abs()).max_element();
        1e-12 + 256.0 * f64::EPSILON * scale.max(own)
    }

    /// How far from the centre line [`Ribbons::near`] looks: the hexagon's
    /// reach and a millimetre.
    fn reach(&self) -> f64 {
        self.half * CAP + 1e-3
    }

    /// A convex hexagon holding every point within the half width of the
    /// centre line (counter-clockwise).
    pub fn hexagon(&self) -> [[f64; 2]; 6] {
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
    grid: Grid,
    /// `seen[i]` is the query that last met ribbon `i`.
    seen: Vec<u32>,
    query: u32,
    /// The last query's candidates (kept for their room).
    ids: Vec<u32>,
}

impl Ribbons {
    /// The ribbons of a network, collinear runs of a road merged; `None` if
    /// a point or a width is not finite or a width is negative.
    pub fn new(net: &RoadNetwork) -> Option<Self> {
        let mut list = Vec::new();
        for road in &net.roads {
            let finite = road.points.iter().all(|p| p.is_finite());
            if !(finite && road.width.is_finite() && road.width >= 0.0) {
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
                            n: (p[i] - p[start]).perp().normalize_or_zero(),
                        });
                    }
                    start = i;
                }
            }
        }
        let grid = Grid::new(&list);
        Some(Self {
            seen: vec![u32::MAX; list.len()],
            list,
            grid,
            query: 0,
            ids: Vec::new(),
        })
    }

    /// The ribbons that may reach into `poly` (their hexagon meets it or
    /// comes within a millimetre), in the order of [`Self::list`].
    pub fn near(&mut self, poly: &[DVec2]) -> Vec<Ribbon> {
        let (lo, hi) = crate::geom::bounds(poly);
        if !(lo.is_finite() && hi.is_finite()) {
            return Vec::new();
        }
        if self.query == u32::MAX {
            self.seen.fill(u32::MAX);
            self.query = 0;
        }
        let q = self.query;
        self.query += 1;
        let (ids, seen) = (&mut self.ids, &mut self.seen);
        ids.clear();
        self.grid.visit(lo, hi, |i| {
            if seen[i as usize] != q {
                seen[i as usize] = q;
                ids.push(i);
            }
        });
        ids.sort_unstable();
        let mut out = Vec::with_capacity(ids.len());
        let m = poly.len();
        let big = scale(lo, hi);
        out.extend((ids.iter()).map(|&i| self.list[i as usize]).filter(|r| {
            let reach = r.reach();
            let (rlo, rhi) = (r.a.min(r.b) - reach, r.a.max(r.b) + reach);
            if !(rlo.cmple(hi).all() && rhi.cmpge(lo).all()) {
                return false;
            }
            // An edge within reach, or the ribbon inside the polygon.
            let t = reach + r.margin(big);
            for j in 0..m {
                let (p, q) = (poly[j], poly[if j + 1 == m { 0 } else { j + 1 }]);
                if p.min(q).cmple(rhi).all()
                    && p.max(q).cmpge(rlo).all()
                    && !apart(r.side(p), r.side(q), t)
                    && segment_distance(r.a, r.b, p, q) <= reach
                {
                    return true;
                }
            }
            maybe_inside(lo, hi, r.a) && polygon_contains(poly, r.a)
        }));
        out
    }
}

/// The ribbons filed in a [`CellGrid`] by the cells within their reach.
/// Ribbons that would fill too many cells are kept apart in `wide` and met
/// by every query.
struct Grid {
    cells: CellGrid<u32>,
    wide: Vec<u32>,
}

impl Grid {
    fn new(list: &[Ribbon]) -> Self {
        let (mut lo, mut hi) = (DVec2::INFINITY, DVec2::NEG_INFINITY);
        for r in list {
            let reach = DVec2::splat(r.reach());
            lo = lo.min(r.a.min(r.b) - reach);
            hi = hi.max(r.a.max(r.b) + reach);
        }
        if list.is_empty() || !(lo.is_finite() && hi.is_finite()) {
            return Self {
                cells: CellGrid::from_cells(CELL, &[]),
                wide: (0..list.len() as u32).collect(),
            };
        }
        // Cells of CELL, or larger to keep their number near the ribbons'.
        let size = hi - lo;
        let most = CELLS_PER_RIBBON * list.len() as f64 + 1024.0;
        let cell = CELL
            .max((size.x * size.y / most).sqrt())
            .max(size.max_element() / most);
        let area = Area {
            cell,
            lo: (floor_i64(lo.x / cell), floor_i64(lo.y / cell)),
            hi: (floor_i64(hi.x / cell), floor_i64(hi.y / cell)),
        };
        let cells = ((area.hi.0 - area.lo.0 + 1) * (area.hi.1 - area.lo.1 + 1)) as usize;
        // Each ribbon's cells as (cell, ribbon).
        let (mut filed, mut wide) = (Vec::new(), Vec::new());
        for (i, r) in list.iter().enumerate() {
            let n = filed.len();
            if !area.cells_of(r, i as u32, &mut filed, n + cells / 4 + 64) {
                filed.truncate(n);
                wide.push(i as u32);
            }
        }
        Self {
            cells: CellGrid::from_cells(cell, &filed),
            wide,
        }
    }

    /// Calls `f` with every ribbon filed in a cell that meets `[lo, hi]`
    /// (some more than once), and every wide ribbon.
    fn visit(&self, lo: DVec2, hi: DVec2, mut f: impl FnMut(u32)) {
        self.wide.iter().for_each(|&i| f(i));
        self.cells
            .for_each_in_box(lo, hi, |ids| ids.iter().for_each(|&i| f(i)));
    }
}

/// The cells `lo..=hi` (of side `cell`) that hold the ribbons' reach.
struct Area {
    cell: f64,
    lo: (i64, i64),
    hi: (i64, i64),
}

impl Area {
    /// Appends to `out` the cells (with `id`) holding a point within the
    /// ribbon's reach; `false` (and `out` unfinished) if `out` would grow
    /// past `most`.
    fn cells_of(&self, r: &Ribbon, id: u32, out: &mut Vec<((i64, i64), u32)>, most: usize) -> bool {
        let (a, b) = (r.a / self.cell, r.b / self.cell);
        let pad = r.reach() / self.cell + MARGIN;
        let d = b - a;
        let row = |v: f64| floor_i64(v).clamp(self.lo.1, self.hi.1);
        let col = |u: f64| floor_i64(u).clamp(self.lo.0, self.hi.0);
        for y in row(a.y.min(b.y) - pad)..=row(a.y.max(b.y) + pad) {
            // The part of the segment within `pad` of this row's band.
            let (v0, v1) = (y as f64 - pad, y as f64 + 1.0 + pad);
            let (t0, t1) = if d.y.abs() < 1e-12 {
                if a.y < v0 || a.y > v1 {
                    continue;
                }
                (0.0, 1.0)
            } else {
                let (s0, s1) = ((v0 - a.y) / d.y, (v1 - a.y) / d.y);
                (s0.min(s1).max(0.0), s0.max(s1).min(1.0))
            };
            if t0 > t1 {
                continue;
            }
            let (u0, u1) = (a.x + d.x * t0, a.x + d.x * t1);
            let (c0, c1) = (col(u0.min(u1) - pad), col(u0.max(u1) + pad));
            if out.len() + (c1 - c0 + 1) as usize > most {
                return false;
            }
            out.extend((c0..=c1).map(|x| ((x, y), id)));
        }
        true
    }
}

/// Whether two [`Ribbon::side`]s lie beyond `t` on one side of the line.
pub(super) fn apart(sp: f64, sq: f64, t: f64) -> bool {
    (sp > t && sq > t) || (sp < -t && sq < -t)
}

/// The largest coordinate (in absolute value) of the box `[lo, hi]`.
pub(super) fn scale(lo: DVec2, hi: DVec2) -> f64 {
    lo.abs().max(hi.abs()).max_element()
}

/// Whether `p` may lie in a polygon with bounds `[lo, hi]`: when not,
/// [`polygon_contains`] is false (no edge spans `p.y`, or each one that
/// does passes on one side of `p`, with room for rounding, and there are
/// an even number of them).
pub(super) fn maybe_inside(lo: DVec2, hi: DVec2, p: DVec2) -> bool {
    let room = 1e-12 * (1.0 + scale(lo, hi));
    p.y >= lo.y && p.y < hi.y && p.x >= lo.x - room && p.x <= hi.x + room
}
