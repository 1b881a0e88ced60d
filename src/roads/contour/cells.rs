//! The cell index of filed segments: dense 40 m cells over the simulated
//! area, one list of entries per cell (a [`CellLists`], filed round by round
//! while it is searched), and the small `f32` near boxes that pass over most
//! pairs of segments before any exact intersection.

use crate::num::floor_i64;
use glam::DVec2;

const GRID: f64 = 40.0;

/// Dense 40 m cells over the simulated area. Cell coordinates are clamped to
/// the area, which keeps "boxes that overlap share a cell" true everywhere.
pub(super) struct Cells {
    pub(super) origin: DVec2,
    pub(super) w: i64,
    pub(super) h: i64,
}

impl Cells {
    pub(super) fn new(lo: DVec2, hi: DVec2) -> Self {
        let n = ((hi - lo) / GRID).ceil().max(DVec2::ONE);
        Self {
            origin: lo,
            w: n.x as i64,
            h: n.y as i64,
        }
    }

    pub(super) fn len(&self) -> usize {
        (self.w * self.h) as usize
    }

    pub(super) fn cell(&self, p: DVec2) -> (i64, i64) {
        (
            cell_coord(p.x, self.origin.x, self.w - 1, floor_i64),
            cell_coord(p.y, self.origin.y, self.h - 1, floor_i64),
        )
    }

    /// The lowest and highest cells of the box around a segment whose ends
    /// are in cells `a` and `b` (cells are monotone in each coordinate).
    pub(super) fn span(a: (i64, i64), b: (i64, i64)) -> ((i64, i64), (i64, i64)) {
        ((a.0.min(b.0), a.1.min(b.1)), (a.0.max(b.0), a.1.max(b.1)))
    }

    /// How many cells a span from [`Self::span`] holds.
    pub(super) fn count((lo, hi): ((i64, i64), (i64, i64))) -> u64 {
        ((hi.0 - lo.0 + 1) * (hi.1 - lo.1 + 1)) as u64
    }

    pub(super) fn index(&self, (x, y): (i64, i64)) -> usize {
        (y * self.w + x) as usize
    }
}

/// The cells from `lo` to `hi`, row by row.
pub(super) fn cells_between(lo: (i64, i64), hi: (i64, i64)) -> CellsBetween {
    CellsBetween {
        at: lo,
        x0: lo.0,
        hi,
    }
}

/// Iterator of [`cells_between`] (a plain one: a `flat_map` costs more than
/// the one to four cells it usually yields).
pub(super) struct CellsBetween {
    at: (i64, i64),
    x0: i64,
    hi: (i64, i64),
}

impl Iterator for CellsBetween {
    type Item = (i64, i64);

    #[inline]
    fn next(&mut self) -> Option<(i64, i64)> {
        if self.at.1 > self.hi.1 || self.at.0 > self.hi.0 {
            return None;
        }
        let c = self.at;
        self.at = if c.0 < self.hi.0 {
            (c.0 + 1, c.1)
        } else {
            (self.x0, c.1 + 1)
        };
        Some(c)
    }
}

/// One segment in a cell's list: path, segment index, the lowest cell of
/// its box, the round it was proposed in, a slightly larger box (see
/// [`near_box`]).
#[derive(Clone, Copy)]
pub(super) struct Entry {
    pub(super) path: u32,
    pub(super) seg: u32,
    pub(super) lo: (i32, i32),
    pub(super) round: u32,
    pub(super) near: NearBox,
}

/// A box around a segment, relative to the cells' origin, a centimetre
/// larger all round (room for the rounding in points computed on segments),
/// in `f32`: two segments whose boxes are apart cannot meet, and the test
/// needs neither their points nor a division. Rounding to `f32` keeps the
/// order of values, so it never parts boxes that overlap, however coarse.
#[derive(Clone, Copy, Default)]
pub(super) struct NearBox(pub(super) [f32; 4]);

/// How much larger than its segment's box a [`NearBox`] is.
const NEAR: f64 = 0.01;

/// The [`NearBox`] of `a–b`, relative to `origin`.
#[inline(always)]
pub(super) fn near_box(origin: DVec2, (ax, ay): (f64, f64), (bx, by): (f64, f64)) -> NearBox {
    NearBox([
        (ax.min(bx) - origin.x - NEAR) as f32,
        (ay.min(by) - origin.y - NEAR) as f32,
        (ax.max(bx) - origin.x + NEAR) as f32,
        (ay.max(by) - origin.y + NEAR) as f32,
    ])
}

impl NearBox {
    pub(super) fn apart(&self, other: &NearBox) -> bool {
        let (p, q) = (self.0, other.0);
        // Branch-free: most pairs are decided here, unpredictably.
        (p[0] > q[2]) | (q[0] > p[2]) | (p[1] > q[3]) | (q[1] > p[3])
    }
}

/// Segments by cell (the shared growing index, [`crate::geom::CellLists`]).
pub(super) type CellLists = crate::geom::CellLists<Entry>;

/// Files segment `seg` of `path`, proposed in `round`, whose box spans
/// cells `lo..=hi`, in each of those cells.
pub(super) fn file(
    lists: &mut CellLists,
    cells: &Cells,
    (lo, hi): ((i64, i64), (i64, i64)),
    path: usize,
    seg: usize,
    round: usize,
    near: NearBox,
) {
    let entry = Entry {
        path: path as u32,
        seg: seg as u32,
        lo: (lo.0 as i32, lo.1 as i32),
        round: round as u32,
        near,
    };
    for c in cells_between(lo, hi) {
        lists.push(cells.index(c), entry);
    }
}

/// The cell coordinate of `v` along an axis whose cells start at `origin`
/// (any monotone map to cells will do, as long as it is this one).
#[inline(always)]
pub(super) fn cell_coord(v: f64, origin: f64, last: i64, floor: impl Fn(f64) -> i64) -> i64 {
    floor((v - origin) * (1.0 / GRID)).max(0).min(last)
}

/// The first cell that two boxes with these lowest cells share.
pub(super) fn first_shared(p: (i64, i64), q: (i64, i64)) -> (i64, i64) {
    (p.0.max(q.0), p.1.max(q.1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::hash_unit;

    #[test]
    fn near_boxes_of_segments_that_meet_are_never_apart() {
        // Cells over a long strip, far from the world's origin, where `f32`
        // steps are coarse.
        for (lo, hi) in [
            (DVec2::new(-500.0, -500.0), DVec2::new(3000.0, 3000.0)),
            (
                DVec2::new(7.0e6, -3.0e6),
                DVec2::new(8.2e6, -3.0e6 + 2000.0),
            ),
        ] {
            let cells = Cells::new(lo, hi);
            for k in 0..2000i64 {
                let h = |salt: u64| hash_unit(k, salt as i64, 3);
                // Two 10 m segments through the same point, or end to end.
                let p = lo + (hi - lo) * DVec2::new(h(1), h(2));
                let (u, v) = (h(3) * std::f64::consts::TAU, h(4) * std::f64::consts::TAU);
                let (du, dv) = (DVec2::new(u.sin(), u.cos()), DVec2::new(v.sin(), v.cos()));
                let a = (p - du * 10.0 * h(5), p + du * 10.0 * (1.0 - h(5)));
                let b = if k % 2 == 0 {
                    (p - dv * 10.0 * h(6), p + dv * 10.0 * (1.0 - h(6)))
                } else {
                    (a.1, a.1 + dv * 10.0)
                };
                let near = |(p, q): (DVec2, DVec2)| near_box(cells.origin, (p.x, p.y), (q.x, q.y));
                let (na, nb) = (near(a), near(b));
                assert!(!na.apart(&nb), "{a:?} and {b:?}");
            }
        }
    }
}
