//! The pieces of [`Earthworks`](super::Earthworks): carriageway lanes, pads,
//! the level cells of a town, and the two cell indexes that say which
//! pieces may matter where, by their boxes (a carriageway only where it
//! may reach: what leaves a cell provably cannot matter anywhere in it,
//! with a margin for rounding). A point's answer is the same as over every
//! piece whose box holds it, in the same order.

use super::terraces::Pad;
use crate::geom::{CellGrid, closest_on_segment, distance_to_segment};
use glam::DVec2;

/// Side of the index cells of slopes, metres.
pub(super) const CELL: f64 = 8.0;

/// Side of the index cells of what covers the ground, metres.
pub(super) const ON: f64 = 4.0;

/// Side of a [`Level`] cell, metres.
const LEVEL: f64 = 4.0;

/// Marks a pad in the indexes.
pub(super) const PAD: u32 = 1 << 31;

/// The index of a piece in an index entry.
pub(super) const INDEX: u32 = !PAD;

/// A piece of carriageway: a segment of a road's centre line with its
/// heights at the ends and its half-width (shoulders included).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lane {
    pub a: DVec2,
    pub b: DVec2,
    pub za: f64,
    pub zb: f64,
    /// Half the road's width.
    pub road: f64,
    /// Half the road's width, shoulders included.
    pub half: f64,
    /// Which carriageway a point on two stands on: the lower rank, then
    /// the nearer centre line (so a highway stays flat across where a
    /// lesser road meets it).
    pub rank: u8,
    /// Whether a wall holds each side (left, right of `a → b`) instead of a
    /// slope.
    pub walled: [bool; 2],
    /// How far each side's slope runs across from the shoulder to its toe
    /// (where it meets the natural ground), metres; 0 where walled.
    pub toe: [f64; 2],
}

impl Lane {
    /// The height at the point of the centre line nearest `p`, and the
    /// distance to it.
    #[inline]
    pub(super) fn at(&self, p: DVec2) -> (f64, f64) {
        let (q, t) = closest_on_segment(p, self.a, self.b);
        (self.za + t * (self.zb - self.za), p.distance(q))
    }

    /// Whether `p` is on the right of `a → b`.
    #[inline]
    pub(super) fn right(&self, p: DVec2) -> bool {
        (self.b - self.a).perp_dot(p - self.a) < 0.0
    }
}

/// A pad with its bounding box and whether a wall holds each edge.
#[derive(Clone, Debug)]
pub(super) struct PadItem {
    pub pad: Pad,
    pub min: DVec2,
    pub max: DVec2,
    pub walled: Vec<bool>,
    /// The longest run of its slopes to their toes.
    pub toe: f64,
}

/// Whether `p` is inside polygon `v` (crossing number).
#[inline]
pub(crate) fn inside(v: &[DVec2], p: DVec2) -> bool {
    let mut inside = false;
    let mut j = v.len() - 1;
    for i in 0..v.len() {
        let (a, b) = (v[i], v[j]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

impl PadItem {
    /// Whether `p` is inside.
    #[inline]
    pub fn contains(&self, p: DVec2) -> bool {
        !(p.cmplt(self.min).any() || p.cmpgt(self.max).any()) && inside(&self.pad.polygon, p)
    }

    /// The distance from `p` (outside) to the nearest edge not held by a
    /// wall.
    #[inline]
    pub fn slope_distance(&self, p: DVec2) -> f64 {
        let v = &self.pad.polygon;
        // The least square, then its root: the same as the least root.
        let mut d2 = f64::INFINITY;
        for i in 0..v.len() {
            if !self.walled[i] {
                let (q, _) = closest_on_segment(p, v[i], v[(i + 1) % v.len()]);
                d2 = d2.min(q.distance_squared(p));
            }
        }
        d2.sqrt()
    }
}

/// The index cell of a coordinate, for cells of side `side`.
pub(super) fn cell(v: f64, side: f64) -> i64 {
    crate::num::floor_i64(v / side)
}

/// Edge `i` of polygon `v` (from vertex `i` to the next) and its outward
/// normal.
pub(super) fn edge(v: &[DVec2], i: usize) -> (DVec2, DVec2, DVec2) {
    let (a, b) = (v[i], v[(i + 1) % v.len()]);
    let n = (b - a).perp().normalize_or_zero();
    (a, b, if area2(v) > 0.0 { -n } else { n })
}

/// Twice the signed area of a polygon.
fn area2(v: &[DVec2]) -> f64 {
    (0..v.len())
        .map(|i| v[i].perp_dot(v[(i + 1) % v.len()]))
        .sum()
}

/// A dense grid over one town's pads: per cell, the pad it lies wholly on
/// (clear of carriageways), or `u32::MAX`.
#[derive(Debug)]
pub(super) struct Level {
    lo: (i64, i64),
    w: usize,
    h: usize,
    pad: Vec<u32>,
}

impl Level {
    /// The pad whose level cell holds `p`, if any.
    #[inline]
    pub fn get(&self, p: DVec2) -> Option<u32> {
        self.at(self.column(p.x), self.row(p.y))
    }

    /// The column of the cells holding `x` (may be outside).
    #[inline]
    pub fn column(&self, x: f64) -> i64 {
        crate::num::floor_i64(x / LEVEL) - self.lo.0
    }

    /// The row of the cells holding `y` (may be outside).
    #[inline]
    pub fn row(&self, y: f64) -> i64 {
        crate::num::floor_i64(y / LEVEL) - self.lo.1
    }

    /// The pad of cell `(x, y)` ([`Self::column`], [`Self::row`]), if any.
    #[inline]
    pub fn at(&self, x: i64, y: i64) -> Option<u32> {
        if x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            return None;
        }
        let v = self.pad[y as usize * self.w + x as usize];
        (v != u32::MAX).then_some(v)
    }

    /// The level cells of `pads` (`first` is the index of the first), with
    /// those within reach of a carriageway cleared.
    pub fn new(pads: &[PadItem], first: usize, lanes: &[Lane]) -> Option<Self> {
        let (mut lo, mut hi) = (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN));
        for p in pads {
            (lo, hi) = (lo.min(p.min), hi.max(p.max));
        }
        let c = |v: f64| crate::num::floor_i64(v / LEVEL);
        let (x0, y0, x1, y1) = (c(lo.x), c(lo.y), c(hi.x), c(hi.y));
        let (w, h) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
        // Bounded: a town is a few km across.
        if pads.is_empty() || w.checked_mul(h).is_none_or(|n| n > 8 << 20) {
            return None;
        }
        let mut level = Self {
            lo: (x0, y0),
            w,
            h,
            pad: vec![u32::MAX; w * h],
        };
        for (k, item) in pads.iter().enumerate() {
            let v = &item.pad.polygon;
            for y in c(item.min.y)..=c(item.max.y) {
                for x in c(item.min.x)..=c(item.max.x) {
                    let a = DVec2::new(x as f64, y as f64) * LEVEL;
                    let b = a + DVec2::splat(LEVEL);
                    let corners = [a, DVec2::new(b.x, a.y), b, DVec2::new(a.x, b.y)];
                    let within = corners.iter().all(|&q| inside(v, q))
                        && !v.iter().any(|q| q.cmpgt(a).all() && q.cmplt(b).all());
                    if within {
                        let i = (y - y0) as usize * w + (x - x0) as usize;
                        level.pad[i] = (first + k) as u32;
                    }
                }
            }
        }
        let half_diag = LEVEL * std::f64::consts::FRAC_1_SQRT_2;
        for l in lanes {
            let r = DVec2::splat(l.half + LEVEL);
            let (a, b) = (l.a.min(l.b) - r, l.a.max(l.b) + r);
            if a.cmpgt(hi).any() || b.cmplt(lo).any() {
                continue;
            }
            for y in c(a.y).max(y0)..=c(b.y).min(y1) {
                for x in c(a.x).max(x0)..=c(b.x).min(x1) {
                    let centre = (DVec2::new(x as f64, y as f64) + 0.5) * LEVEL;
                    if distance_to_segment(centre, l.a, l.b) <= l.half + half_diag {
                        level.pad[(y - y0) as usize * w + (x - x0) as usize] = u32::MAX;
                    }
                }
            }
        }
        Some(level)
    }
}

/// Index entries: `(cell, value)`.
type Entries = Vec<((i64, i64), u32)>;

/// Files in `entries` each cell of side `side` meeting `[lo, hi]` for which
/// `tag`, given the cell's coordinates, its centre and the distance from
/// the centre to its corners (rounding included), names a value.
fn file(
    entries: &mut Entries,
    side: f64,
    lo: DVec2,
    hi: DVec2,
    mut tag: impl FnMut((i64, i64), DVec2, f64) -> Option<u32>,
) {
    let r = side * std::f64::consts::FRAC_1_SQRT_2;
    for y in cell(lo.y, side)..=cell(hi.y, side) {
        for x in cell(lo.x, side)..=cell(hi.x, side) {
            let c = (DVec2::new(x as f64, y as f64) + 0.5) * side;
            // A millimetre, and more where coordinates are large.
            let reach = r + 1e-3 + 1e-9 * c.abs().max_element();
            if let Some(v) = tag((x, y), c, reach) {
                entries.push(((x, y), v));
            }
        }
    }
}

/// What may cover each cell of side [`ON`]: the carriageways (shoulders
/// included) that may reach into it, as their index, and the pads whose
/// box meets it, as `PAD | index`.
pub(super) fn cover_index(lanes: &[Lane], pads: &[PadItem]) -> CellGrid<u32> {
    let mut entries = Vec::new();
    for (i, l) in lanes.iter().enumerate() {
        let (lo, hi) = (l.a.min(l.b), l.a.max(l.b));
        file(&mut entries, ON, lo - l.half, hi + l.half, |_, c, r| {
            (distance_to_segment(c, l.a, l.b) <= l.half + r).then_some(i as u32)
        });
    }
    for (i, item) in pads.iter().enumerate() {
        let id = PAD | i as u32;
        file(&mut entries, ON, item.min, item.max, |_, _, _| Some(id));
    }
    CellGrid::from_cells(ON, &entries)
}

/// The slopes that may reach each cell of side [`CELL`] (those whose box,
/// out to the toes, meets it): lanes as their index, pads as
/// `PAD | index`. A cell with nothing filed has nothing built on it.
pub(super) fn slope_index(lanes: &[Lane], pads: &[PadItem]) -> CellGrid<u32> {
    let mut entries = Vec::new();
    for (i, l) in lanes.iter().enumerate() {
        let (lo, hi) = (l.a.min(l.b), l.a.max(l.b));
        let reach = l.half + l.toe[0].max(l.toe[1]);
        file(&mut entries, CELL, lo - reach, hi + reach, |_, _, _| {
            Some(i as u32)
        });
    }
    for (i, item) in pads.iter().enumerate() {
        let (r, id) = (DVec2::splat(item.toe), PAD | i as u32);
        file(&mut entries, CELL, item.min - r, item.max + r, |_, _, _| {
            Some(id)
        });
    }
    CellGrid::from_cells(CELL, &entries)
}
