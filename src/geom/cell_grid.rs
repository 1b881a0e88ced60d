//! [`CellGrid`]: a static, compact index of entries by square cell — build
//! once from `(cell, value)` pairs with [`group_by_key`](super::group_by_key),
//! then ask "what is in cell (x, y)?" or "what is in the cells meeting this
//! box?". Cells are the integer cells of side `cell` with the world origin
//! as a corner (cell `(x, y)` covers `[x·cell, (x+1)·cell) × [y·cell, (y+1)·cell)`,
//! the cells [`cells_along_segment`](super::cells_along_segment) names), so
//! callers file by those and look up by points.
//!
//! The grid holds only the cells of its entries' bounding box, as CSR
//! arrays: `starts` (one `u32` per cell, plus one) and `values`. Its size is
//! bounded: when that box would hold more than [`CellGrid::max_cells`] cells
//! (`4 × entries + 4096`), cells are merged two by two along both axes
//! until it does not (a coarser grid gives supersets of the same answers,
//! never fewer entries), so memory stays proportional to the entries
//! however far apart they lie.
//!
//! [`CellLists`] is the growing variant, for indexes filed while they are
//! searched (or undone): a fixed number of cells (numbered by the caller),
//! each a list of chunks of values, newest first, in one pool.

use glam::DVec2;
use std::ops::ControlFlow;

/// Entries by square cell, in CSR form (see the module docs).
#[derive(Clone, Debug)]
pub struct CellGrid<T> {
    cell: f64,
    /// Cells merged `2^shift` to one along each axis.
    shift: u32,
    /// Lowest (merged) cell of the box.
    lo: (i64, i64),
    /// Box size in (merged) cells.
    w: u64,
    h: u64,
    starts: Vec<u32>,
    values: Vec<T>,
}

impl<T: Copy + PartialEq> CellGrid<T> {
    /// The most cells a grid of `entries` entries holds.
    pub fn max_cells(entries: usize) -> u64 {
        4 * entries as u64 + 4096
    }

    /// Files each `value` in its cell `(x, y)` (cells of side `cell`). A
    /// cell's values keep the order of `entries`; a value filed again
    /// right after itself in one cell (as happens when cells merge) is kept
    /// once. A `cell` that is not finite and positive is taken as 1.
    pub fn from_cells(cell: f64, entries: &[((i64, i64), T)]) -> Self {
        let cell = if cell.is_finite() && cell > 0.0 {
            cell
        } else {
            1.0
        };
        let Some(&(first, _)) = entries.first() else {
            return Self {
                cell,
                shift: 0,
                lo: (0, 0),
                w: 1,
                h: 1,
                starts: vec![0, 0],
                values: Vec::new(),
            };
        };
        let (mut lo, mut hi) = (first, first);
        for &((x, y), _) in entries {
            lo = (lo.0.min(x), lo.1.min(y));
            hi = (hi.0.max(x), hi.1.max(y));
        }
        let cap = Self::max_cells(entries.len());
        // Arithmetic shifts floor, so merged cells stay monotone; i64 >> 63
        // leaves two cells at most on an axis. Spans in i128 (the widest,
        // 2^64, saturates).
        let span = |a: i64, b: i64, s: u32| {
            u64::try_from((b >> s) as i128 - (a >> s) as i128 + 1).unwrap_or(u64::MAX)
        };
        let mut shift = 0;
        while shift < 63 && span(lo.0, hi.0, shift).saturating_mul(span(lo.1, hi.1, shift)) > cap {
            shift += 1;
        }
        let (w, h) = (span(lo.0, hi.0, shift), span(lo.1, hi.1, shift));
        let lo = (lo.0 >> shift, lo.1 >> shift);
        let slot = |(x, y): (i64, i64)| {
            ((y >> shift) - lo.1) as usize * w as usize + ((x >> shift) - lo.0) as usize
        };
        let (mut starts, mut values) =
            super::group_by_key((w * h) as usize, entries, |e| slot(e.0), |e| e.1);
        if shift > 0 {
            // Drop repeats in a row within each cell, in place.
            let mut out = 0;
            for k in 0..(w * h) as usize {
                let (from, to) = (starts[k] as usize, starts[k + 1] as usize);
                starts[k] = out as u32;
                for i in from..to {
                    if i == from || values[i] != values[i - 1] {
                        values[out] = values[i];
                        out += 1;
                    }
                }
            }
            starts[(w * h) as usize] = out as u32;
            values.truncate(out);
        }
        Self {
            cell,
            shift,
            lo,
            w,
            h,
            starts,
            values,
        }
    }
}

impl<T> CellGrid<T> {
    /// The side of the cells entries were filed by.
    pub fn cell(&self) -> f64 {
        self.cell
    }

    /// How many cells were merged into one along each axis (1 unless the
    /// entries' box was too large).
    pub fn merge(&self) -> u64 {
        1 << self.shift
    }

    /// How many cells the grid holds.
    pub fn cell_count(&self) -> usize {
        self.starts.len() - 1
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The cell `(x, y)` of side [`cell`](Self::cell) holding `p`.
    #[inline]
    pub fn cell_of(&self, p: DVec2) -> (i64, i64) {
        (
            crate::num::floor_i64(p.x / self.cell),
            crate::num::floor_i64(p.y / self.cell),
        )
    }

    /// The slot of merged cell `(x, y)`, if inside the box.
    #[inline]
    fn slot(&self, (x, y): (i64, i64)) -> Option<usize> {
        let dx = u64::try_from(x as i128 - self.lo.0 as i128).ok()?;
        let dy = u64::try_from(y as i128 - self.lo.1 as i128).ok()?;
        (dx < self.w && dy < self.h).then(|| (dy * self.w + dx) as usize)
    }

    #[inline]
    fn at(&self, k: usize) -> &[T] {
        &self.values[self.starts[k] as usize..self.starts[k + 1] as usize]
    }

    /// The values filed in cell `(x, y)` (with those of the cells merged
    /// with it, if any), in filing order.
    #[inline]
    pub fn get(&self, (x, y): (i64, i64)) -> &[T] {
        match self.slot((x >> self.shift, y >> self.shift)) {
            Some(k) => self.at(k),
            None => &[],
        }
    }

    /// Each non-empty (merged) cell's values, row by row.
    pub fn groups(&self) -> impl Iterator<Item = &[T]> + '_ {
        (0..self.cell_count())
            .map(|k| self.at(k))
            .filter(|s| !s.is_empty())
    }

    /// Calls `f` on the values of each (merged) cell meeting the box
    /// `[min, max]`, row by row (a value filed in several cells comes once
    /// per cell). Non-finite or inverted boxes meet nothing.
    pub fn for_each_in_box(&self, min: DVec2, max: DVec2, mut f: impl FnMut(&[T])) {
        let _ = self.try_each_in_box(min, max, |vs| {
            f(vs);
            ControlFlow::<()>::Continue(())
        });
    }

    /// Whether any value is filed in a cell meeting `[min, max]` (stops at
    /// the first).
    pub fn any_in_box(&self, min: DVec2, max: DVec2) -> bool {
        self.try_each_in_box(min, max, |_| ControlFlow::Break(()))
            .is_break()
    }

    /// [`Self::for_each_in_box`], stopping when `f` breaks.
    fn try_each_in_box<B>(
        &self,
        min: DVec2,
        max: DVec2,
        mut f: impl FnMut(&[T]) -> ControlFlow<B>,
    ) -> ControlFlow<B> {
        if !(min.is_finite() && max.is_finite() && min.cmple(max).all()) {
            return ControlFlow::Continue(());
        }
        let (a, b) = (self.cell_of(min), self.cell_of(max));
        let s = self.shift;
        // Clamped to the box in i128: no cell outside it is visited.
        let clamp = |v: i64, lo: i64, n: u64| {
            (v as i128 - lo as i128).clamp(-1, n as i128) // −1 and n: outside
        };
        let (x0, x1) = (
            clamp(a.0 >> s, self.lo.0, self.w).max(0),
            clamp(b.0 >> s, self.lo.0, self.w).min(self.w as i128 - 1),
        );
        let (y0, y1) = (
            clamp(a.1 >> s, self.lo.1, self.h).max(0),
            clamp(b.1 >> s, self.lo.1, self.h).min(self.h as i128 - 1),
        );
        for y in y0..=y1 {
            for x in x0..=x1 {
                let vs = self.at((y as u64 * self.w + x as u64) as usize);
                if !vs.is_empty() {
                    f(vs)?;
                }
            }
        }
        ControlFlow::Continue(())
    }

    /// Calls `f` on the values of the cells meeting the square of half-side
    /// `r` around `p` (a superset of those filed within `r` of `p`).
    pub fn for_each_near(&self, p: DVec2, r: f64, f: impl FnMut(&[T])) {
        self.for_each_in_box(p - DVec2::splat(r), p + DVec2::splat(r), f);
    }
}

/// End of a list in [`CellLists`].
const END: u32 = u32::MAX;

/// Up to `N` values of one cell, and the cell's previous chunk.
#[derive(Clone, Copy, Debug)]
struct Chunk<T, const N: usize> {
    s: [T; N],
    n: u32,
    next: u32,
}

/// Values filed one by one in a fixed number of cells: each cell a list of
/// chunks of up to `N` values in one pool, newest chunk first, values in
/// filing order within a chunk (no allocation per cell). Chunks of several
/// values make scans of full cells cheaper (fewer links to follow). At
/// most `u32::MAX − 1` chunks: callers bound their work below that.
#[derive(Clone, Debug)]
pub struct CellLists<T, const N: usize = 1> {
    /// Per cell, its newest chunk or [`END`].
    head: Vec<u32>,
    chunks: Vec<Chunk<T, N>>,
}

impl<T: Copy, const N: usize> CellLists<T, N> {
    /// Empty lists for cells `0..cells`.
    pub fn new(cells: usize) -> Self {
        Self {
            head: vec![END; cells],
            chunks: Vec::new(),
        }
    }

    /// How many cells there are.
    pub fn cell_count(&self) -> usize {
        self.head.len()
    }

    /// Files `value` in `cell`.
    #[inline]
    pub fn push(&mut self, cell: usize, value: T) {
        let h = self.head[cell];
        // (Linked chunks of one are full: no need to look.)
        match self.chunks.get_mut(h as usize).filter(|_| N > 1) {
            Some(ch) if (ch.n as usize) < N => {
                ch.s[ch.n as usize] = value;
                ch.n += 1;
            }
            _ => {
                debug_assert!(self.chunks.len() < END as usize);
                self.head[cell] = self.chunks.len() as u32;
                self.chunks.push(Chunk {
                    s: [value; N],
                    n: 1,
                    next: h,
                });
            }
        }
    }

    /// The values in `cell` chunk by chunk: newest chunk first, each in
    /// filing order.
    #[inline]
    pub fn chunks(&self, cell: usize) -> impl Iterator<Item = &[T]> + '_ {
        let mut at = self.head[cell];
        std::iter::from_fn(move || {
            let ch = self.chunks.get(at as usize)?;
            at = ch.next;
            Some(&ch.s[..ch.n as usize])
        })
    }

    /// The values in `cell` (in the order of [`chunks`](Self::chunks)).
    #[inline]
    pub fn iter(&self, cell: usize) -> impl Iterator<Item = &T> + '_ {
        let (mut at, mut k) = (self.head[cell], 0);
        std::iter::from_fn(move || {
            loop {
                let ch = self.chunks.get(at as usize)?;
                if N == 1 {
                    // Linked chunks of one hold one value (emptied ones are
                    // unlinked): a plain linked list.
                    at = ch.next;
                    return Some(&ch.s[0]);
                }
                if k < ch.n {
                    k += 1;
                    return Some(&ch.s[k as usize - 1]);
                }
                (at, k) = (ch.next, 0);
            }
        })
    }

    /// Calls `f` on the values of cells `cells` (cell by cell, each in the
    /// order of [`chunks`](Self::chunks)) until it returns `true`; whether
    /// it did. The tight loop for scans of a row of cells.
    #[inline(always)]
    pub fn any_in(
        &self,
        cells: std::ops::RangeInclusive<usize>,
        mut f: impl FnMut(&T) -> bool,
    ) -> bool {
        for &head in &self.head[cells] {
            let mut h = head;
            while let Some(ch) = self.chunks.get(h as usize) {
                if ch.s[..ch.n as usize].iter().any(&mut f) {
                    return true;
                }
                h = ch.next;
            }
        }
        false
    }

    /// Takes the newest value out of `cell` (whether there was one); the
    /// room of a chunk it empties is given back when that is the pool's
    /// newest (as when undoing filings in reverse).
    pub fn pop(&mut self, cell: usize) -> bool {
        let h = self.head[cell] as usize;
        let Some(ch) = self.chunks.get_mut(h) else {
            return false;
        };
        ch.n -= 1;
        if ch.n == 0 {
            self.head[cell] = ch.next;
            if h + 1 == self.chunks.len() {
                self.chunks.pop();
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random entries: `(cell, id)` with ids grouped in filing order.
    fn entries(n: u32, spread: i64) -> Vec<((i64, i64), u32)> {
        let mut seed = 99u64;
        let mut next = |m: i64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as i64).rem_euclid(m)
        };
        let mut out = Vec::new();
        for id in 0..n {
            let (x, y) = (next(2 * spread) - spread, next(2 * spread) - spread);
            for k in 0..1 + next(3) {
                out.push(((x + k, y), id));
            }
        }
        out
    }

    /// What a brute-force scan files in cell `c`.
    fn brute(es: &[((i64, i64), u32)], c: (i64, i64)) -> Vec<u32> {
        es.iter().filter(|e| e.0 == c).map(|e| e.1).collect()
    }

    #[test]
    fn cells_hold_their_entries_in_filing_order() {
        let es = entries(400, 12);
        let grid = CellGrid::from_cells(5.0, &es);
        assert_eq!(grid.merge(), 1);
        assert_eq!(grid.len(), es.len());
        for y in -16..16 {
            for x in -16..16 {
                assert_eq!(grid.get((x, y)), brute(&es, (x, y)).as_slice(), "{x} {y}");
            }
        }
        let total: usize = grid.groups().map(<[u32]>::len).sum();
        assert_eq!(total, es.len());
        // Points find their cells: (−0.1, 7) lies in cell (−1, 1).
        assert_eq!(grid.cell_of(DVec2::new(-0.1, 7.0)), (-1, 1));
    }

    #[test]
    fn box_queries_visit_the_cells_meeting_the_box() {
        let es = entries(300, 10);
        let grid = CellGrid::from_cells(2.0, &es);
        let mut got = Vec::new();
        grid.for_each_in_box(DVec2::new(-3.0, 0.5), DVec2::new(4.0, 6.0), |vs| {
            got.extend_from_slice(vs)
        });
        let mut want = Vec::new();
        for y in 0..=3 {
            for x in -2..=2 {
                want.extend(brute(&es, (x, y)));
            }
        }
        assert_eq!(got, want);
        assert!(grid.any_in_box(DVec2::new(-3.0, 0.5), DVec2::new(4.0, 6.0)));
        assert!(!grid.any_in_box(DVec2::splat(1e9), DVec2::splat(2e9)));
        assert!(!grid.any_in_box(DVec2::splat(1.0), DVec2::splat(-1.0)));
        // Boxes outside, inverted or not finite meet nothing.
        let mut n = 0;
        let mut count = |vs: &[u32]| n += vs.len();
        grid.for_each_in_box(DVec2::splat(1e9), DVec2::splat(2e9), &mut count);
        grid.for_each_in_box(DVec2::splat(1.0), DVec2::splat(-1.0), &mut count);
        grid.for_each_near(DVec2::ZERO, f64::NAN, &mut count);
        assert_eq!(n, 0);
        // A box covering everything sees every entry.
        grid.for_each_near(DVec2::ZERO, 1e300, |vs| n += vs.len());
        assert_eq!(n, es.len());
    }

    #[test]
    fn far_apart_entries_merge_cells_and_stay_small() {
        let es = vec![
            ((i64::MAX, 0), 1u32),
            ((i64::MIN, i64::MIN), 2),
            ((0, 0), 3),
            ((0, 1), 3),
            ((1, 0), 3),
        ];
        let grid = CellGrid::from_cells(10.0, &es);
        assert!(grid.cell_count() as u64 <= CellGrid::<u32>::max_cells(es.len()));
        assert!(grid.merge() > 1);
        // Supersets of the answers, repeats in a row kept once.
        for e in &es {
            assert!(grid.get(e.0).contains(&e.1), "{e:?}");
        }
        assert_eq!(grid.get((0, 0)).iter().filter(|&&v| v == 3).count(), 1);
        assert_eq!(grid.len(), 3);
        // A spread that merges moderately.
        let es = entries(200, 1 << 20);
        let grid = CellGrid::from_cells(1.0, &es);
        assert!(
            grid.merge() > 1 && grid.cell_count() as u64 <= CellGrid::<u32>::max_cells(es.len())
        );
        for e in &es {
            assert!(grid.get(e.0).contains(&e.1));
        }
    }

    #[test]
    fn empty_and_degenerate_grids_answer_nothing() {
        let grid = CellGrid::<u32>::from_cells(f64::NAN, &[]);
        assert!(grid.is_empty() && grid.get((0, 0)).is_empty());
        assert_eq!(grid.cell(), 1.0);
        assert_eq!(grid.groups().count(), 0);
    }

    #[test]
    fn cell_lists_file_newest_first_and_undo_in_reverse() {
        let mut lists = CellLists::<u32>::new(4);
        for (cell, v) in [(0, 1), (2, 2), (0, 3), (3, 4), (0, 5)] {
            lists.push(cell, v);
        }
        assert_eq!(lists.iter(0).copied().collect::<Vec<_>>(), [5, 3, 1]);
        assert_eq!(lists.iter(1).count(), 0);
        // Undoing the last two filings.
        assert!(lists.pop(0) && lists.pop(3));
        assert_eq!(lists.iter(0).copied().collect::<Vec<_>>(), [3, 1]);
        assert!(lists.iter(3).next().is_none() && !lists.pop(3));
        assert!(lists.pop(2) && lists.iter(2).next().is_none());
        // Chunks of three: newest chunk first, filing order within.
        let mut lists = CellLists::<u32, 3>::new(2);
        (1..=7).for_each(|v| lists.push(1, v));
        assert_eq!(
            lists.iter(1).copied().collect::<Vec<_>>(),
            [7, 4, 5, 6, 1, 2, 3]
        );
        assert!(lists.pop(1) && lists.pop(1));
        lists.push(1, 8);
        assert_eq!(
            lists.iter(1).copied().collect::<Vec<_>>(),
            [4, 5, 8, 1, 2, 3]
        );
        assert_eq!(lists.chunks(0).count(), 0);
    }
}
