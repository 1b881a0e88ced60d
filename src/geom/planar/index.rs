//! [`Index`]: ids by integer cell for a graph that grows anywhere — a
//! [`CellLists`] over a box of cells that grows (with room to spare, all
//! re-filed) when an id is filed outside it. Its cells stay at most
//! `16 × filed + 4096`: where the box would hold more (ids far apart), cells
//! merge two by two along both axes until it does not, and lookups answer
//! for the merged cell (a superset: callers test what they get); as more
//! ids are filed, merged cells split again (all re-filed, each time the
//! allowance has grown fourfold, so the work stays linear).

use crate::geom::CellLists;

/// Ids by cell (see the module docs).
#[derive(Clone, Debug)]
pub(super) struct Index {
    /// The box in (unmerged) cells, inclusive; inverted while empty.
    lo: (i64, i64),
    hi: (i64, i64),
    /// Cells merged `2^shift` to one along each axis.
    shift: u32,
    /// Width of the box in merged cells.
    w: usize,
    lists: CellLists<u32>,
    /// How many filed ids allow finer cells (`usize::MAX` if none).
    refine_at: usize,
    /// Everything filed, in order, for re-filing when the box grows.
    filed: Vec<((i64, i64), u32)>,
}

impl Default for Index {
    fn default() -> Self {
        Self {
            lo: (i64::MAX, i64::MAX),
            hi: (i64::MIN, i64::MIN),
            shift: 0,
            w: 0,
            lists: CellLists::new(0),
            refine_at: usize::MAX,
            filed: Vec::new(),
        }
    }
}

impl Index {
    fn inside(&self, (x, y): (i64, i64)) -> bool {
        x >= self.lo.0 && x <= self.hi.0 && y >= self.lo.1 && y <= self.hi.1
    }

    /// The list of a cell inside the box.
    #[inline]
    fn slot(&self, (x, y): (i64, i64)) -> usize {
        let s = self.shift;
        ((y >> s) - (self.lo.1 >> s)) as usize * self.w + ((x >> s) - (self.lo.0 >> s)) as usize
    }

    /// Files `id` in `cell`.
    pub(super) fn push(&mut self, cell: (i64, i64), id: u32) {
        if !self.inside(cell) {
            self.grow(cell);
        } else if self.filed.len() >= self.refine_at {
            self.rebuild(self.lo, self.hi);
        }
        let k = self.slot(cell);
        self.lists.push(k, id);
        self.filed.push((cell, id));
    }

    /// Grows the box to take `cell`, with as much room again, and re-files.
    #[cold]
    fn grow(&mut self, cell: (i64, i64)) {
        let (lo, hi) = (
            (self.lo.0.min(cell.0), self.lo.1.min(cell.1)),
            (self.hi.0.max(cell.0), self.hi.1.max(cell.1)),
        );
        // Half the span again on each side, within i64.
        let pad = |a: i64, b: i64| {
            let half = (b as i128 - a as i128 + 1) / 2 + 4;
            (
                (a as i128 - half).max(i64::MIN as i128) as i64,
                (b as i128 + half).min(i64::MAX as i128) as i64,
            )
        };
        let ((x0, x1), (y0, y1)) = (pad(lo.0, hi.0), pad(lo.1, hi.1));
        self.rebuild((x0, y0), (x1, y1));
    }

    /// Re-files everything over the box `lo..=hi`, in the finest cells
    /// allowed.
    #[cold]
    fn rebuild(&mut self, (x0, y0): (i64, i64), (x1, y1): (i64, i64)) {
        let cap = |n: usize| 16 * (n as u64 + 1) + 4096;
        let span = |a: i64, b: i64, s: u32| {
            u64::try_from((b >> s) as i128 - (a >> s) as i128 + 1).unwrap_or(u64::MAX)
        };
        let cells = |s: u32| span(x0, x1, s).saturating_mul(span(y0, y1, s));
        let n = self.filed.len();
        let mut shift = 0;
        while shift < 63 && cells(shift) > cap(n) {
            shift += 1;
        }
        self.refine_at = match shift {
            0 => usize::MAX,
            s => usize::try_from(cells(s - 1).saturating_sub(4096) / 16).unwrap_or(usize::MAX),
        };
        let (w, h) = (span(x0, x1, shift), span(y0, y1, shift));
        self.lo = (x0, y0);
        self.hi = (x1, y1);
        self.shift = shift;
        self.w = w as usize;
        self.lists = CellLists::new((w * h) as usize);
        for &(c, id) in &self.filed {
            let k = self.slot(c);
            self.lists.push(k, id);
        }
    }

    /// Calls `f` on the ids filed in the cells `lo..=hi` (inclusive; those
    /// of merged cells meeting the range), row by row, until it returns
    /// `true`; whether it did.
    #[inline]
    pub(super) fn any_in(
        &self,
        lo: (i64, i64),
        hi: (i64, i64),
        mut f: impl FnMut(u32) -> bool,
    ) -> bool {
        let (x0, y0) = (lo.0.max(self.lo.0), lo.1.max(self.lo.1));
        let (x1, y1) = (hi.0.min(self.hi.0), hi.1.min(self.hi.1));
        if x0 > x1 || y0 > y1 {
            return false;
        }
        let s = self.shift;
        let (a, b) = (self.slot((x0, y0)), self.slot((x1, y1)));
        let cols = ((x1 >> s) - (x0 >> s)) as usize;
        let mut row = a;
        while row <= b {
            if self.lists.any_in(row..=row + cols, |&id| f(id)) {
                return true;
            }
            row += self.w;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::Index;

    /// The ids filed in `cell` (and in the cells merged with it).
    fn get(index: &Index, cell: (i64, i64)) -> Vec<u32> {
        let mut out = Vec::new();
        index.any_in(cell, cell, |id| {
            out.push(id);
            false
        });
        out
    }

    #[test]
    fn the_index_grows_and_merges_far_cells() {
        let mut index = Index::default();
        let cells = [
            (0, 0),
            (3, -2),
            (0, 0),
            (-40, 90),
            (i64::MAX, i64::MIN),
            (5, 5),
        ];
        for (id, &c) in cells.iter().enumerate() {
            index.push(c, id as u32);
        }
        // Bounded though the cells span all of i64.
        assert!(index.lists.cell_count() <= 16 * cells.len() + 4096);
        for (id, &c) in cells.iter().enumerate() {
            assert!(get(&index, c).contains(&(id as u32)), "{c:?}");
        }
        let mut seen = Vec::new();
        index.any_in((i64::MIN, i64::MIN), (i64::MAX, i64::MAX), |id| {
            seen.push(id);
            false
        });
        seen.sort_unstable();
        assert_eq!(seen, [0, 1, 2, 3, 4, 5]);
        // Near cells unmerged: exact answers.
        let mut near = Index::default();
        (0..50).for_each(|k| near.push((k % 7, k / 7), k as u32));
        assert_eq!(get(&near, (2, 3)), [23]);
        assert!(get(&near, (9, 9)).is_empty());
        let mut found = Vec::new();
        near.any_in((1, 1), (2, 2), |id| {
            found.push(id);
            false
        });
        assert_eq!(found, [8, 9, 15, 16]);
    }
}
