//! The built ground over a grid ([`Relief::shape_grid`] of [`Earthworks`]):
//! the same answer as [`Relief::built`] at every sample, bit for bit, with
//! the pieces that may matter narrowed once per block of samples instead
//! of per sample. A block keeps, in index order, every piece that may
//! matter at one of its samples (with a margin for rounding): the
//! carriageways that may reach it; per pad, the polygon edges whose
//! crossing test differs between its samples (the others' crossings are
//! counted once), or none where the pad holds all of it; and, when a
//! sample needs them, the slopes that may reach it, each pad with only the
//! edges that may be its nearest. The answer at a sample then comes from
//! the same steps as a point's (`Earthworks::standing`, `sloped`), in
//! the same order.

use super::laid::{Earthworks, before, stand, takes_over};
use super::narrow::{Lists, disc};
use crate::terrain::{Relief, SHAPE_TILE, shape_by_points};
use glam::DVec2;
use std::ops::Range;

/// Samples on a side of a block.
const BLOCK: usize = 4;

/// Blocks in a tile (at most).
pub(super) const TILE_BLOCKS: usize = (SHAPE_TILE / BLOCK) * (SHAPE_TILE / BLOCK);

impl Earthworks {
    /// The carriageway nearest each sample of `block` among the block's
    /// lanes, as [`Earthworks::standing`] finds it (the same arithmetic as
    /// `Lane::at`, written out so that the samples go side by side).
    #[inline(always)]
    fn lanes_over(&self, lists: &Lists, block: &mut Block) {
        for &i in &lists.lanes {
            let l = &self.lanes[i];
            let r = DVec2::splat(l.half);
            let (lo, hi) = (l.a.min(l.b) - r, l.a.max(l.b) + r);
            let ab = l.b - l.a;
            let len2 = ab.length_squared();
            let (d, z) = (&mut block.ld, &mut block.lz);
            if len2 > 0.0 {
                for s in 0..N {
                    let (px, py) = (block.px[s], block.py[s]);
                    let t = (((px - l.a.x) * ab.x + (py - l.a.y) * ab.y) / len2).clamp(0.0, 1.0);
                    let (dx, dy) = (px - (l.a.x + ab.x * t), py - (l.a.y + ab.y * t));
                    d[s] = (dx * dx + dy * dy).sqrt();
                    z[s] = l.za + t * (l.zb - l.za);
                }
            } else {
                for s in 0..N {
                    let (dx, dy) = (block.px[s] - l.a.x, block.py[s] - l.a.y);
                    d[s] = (dx * dx + dy * dy).sqrt();
                    z[s] = l.za;
                }
            }
            // The nearest so far is at `d` (∞ where none: one found is
            // within its half-width).
            for s in 0..N {
                let (px, py) = (block.px[s], block.py[s]);
                let out = (px < lo.x) | (py < lo.y) | (px > hi.x) | (py > hi.y);
                let d = block.ld[s];
                let rank = block.rank[s];
                let first = before(l.rank, d, block.lz[s], rank, block.d[s], block.z[s]);
                let take = !out & (d <= l.half) & first;
                block.d[s] = if take { d } else { block.d[s] };
                block.rank[s] = if take { l.rank } else { rank };
                block.z[s] = if take { block.lz[s] } else { block.z[s] };
                block.road[s] = if take { l.road } else { block.road[s] };
            }
        }
    }

    /// The pad each sample of `block` is on among the block's pads.
    #[inline(always)]
    fn pads_over(&self, lists: &Lists, block: &mut Block) {
        for t in &lists.pads {
            let item = &self.pads[t.pad];
            let mut holds = [t.parity; N];
            let v = &item.pad.polygon;
            for &i in &lists.edges[t.edges.clone()] {
                let (a, b) = (v[i], v[if i == 0 { v.len() - 1 } else { i - 1 }]);
                // As `inside` tests each edge: whether it spans a row, and
                // where it crosses it, once per row (the same for its
                // samples).
                let (mut spans, mut xs) = ([false; BLOCK], [0.0; BLOCK]);
                for r in 0..BLOCK {
                    let y = block.y[r];
                    spans[r] = (a.y > y) != (b.y > y);
                    xs[r] = (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x;
                }
                for (s, h) in holds.iter_mut().enumerate() {
                    let r = s / BLOCK;
                    *h ^= spans[r] & (block.px[s] < xs[r]);
                }
            }
            if t.check_box {
                for (s, h) in holds.iter_mut().enumerate() {
                    let p = block.p(s);
                    *h &= !(p.cmplt(item.min).any() | p.cmpgt(item.max).any());
                }
            }
            for (s, _) in holds.iter().enumerate().filter(|(_, h)| **h) {
                let current = block.pad[s].map(|k| &self.pads[k].pad);
                if takes_over(current, &item.pad, block.p(s)) {
                    block.pad[s] = Some(t.pad);
                }
            }
        }
    }

    /// The fill or cut at the samples of `block` that need it (`need`),
    /// from the slopes the block's `lists` narrows to: the same arithmetic
    /// as [`Earthworks::lane_slope`], the pads' slope distance and
    /// [`Earthworks::sloped`], in the same order, written out so that the
    /// samples go side by side. Writes the heights that change into `out`.
    #[inline(always)]
    fn slopes_over(&self, lists: &Lists, block: &Block, need: &[bool; N], out: &mut [f64]) {
        let (mut floor, mut ceiling) = ([f64::NEG_INFINITY; N], [f64::INFINITY; N]);
        let slopes = &lists.slopes;
        for &i in &slopes.lanes {
            let l = &self.lanes[i];
            let r = DVec2::splat(l.half + l.toe[0].max(l.toe[1]));
            let (lo, hi) = (l.a.min(l.b) - r, l.a.max(l.b) + r);
            let ab = l.b - l.a;
            let len2 = ab.length_squared();
            for s in 0..N {
                let (px, py) = (block.px[s], block.py[s]);
                let out = (px < lo.x) | (py < lo.y) | (px > hi.x) | (py > hi.y);
                let t = if len2 > 0.0 {
                    (((px - l.a.x) * ab.x + (py - l.a.y) * ab.y) / len2).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                let (dx, dy) = (px - (l.a.x + ab.x * t), py - (l.a.y + ab.y * t));
                let z = l.za + t * (l.zb - l.za);
                let run = (dx * dx + dy * dy).sqrt() - l.half;
                let right = ab.x * (py - l.a.y) - ab.y * (px - l.a.x) < 0.0;
                let toe = if right { l.toe[1] } else { l.toe[0] };
                let take = need[s] & !out & (run <= toe);
                let (f, c) = (
                    floor[s].max(z - run / self.fill),
                    ceiling[s].min(z + run / self.cut),
                );
                floor[s] = if take { f } else { floor[s] };
                ceiling[s] = if take { c } else { ceiling[s] };
            }
        }
        for (k, edges) in &slopes.pads {
            let item = &self.pads[*k];
            let r = DVec2::splat(item.toe);
            let (lo, hi) = (item.min - r, item.max + r);
            let v = &item.pad.polygon;
            let mut d2 = [f64::INFINITY; N];
            for &i in &slopes.edges[edges.clone()] {
                let (a, b) = (v[i], v[(i + 1) % v.len()]);
                let ab = b - a;
                let len2 = ab.length_squared();
                for (s, d2) in d2.iter_mut().enumerate() {
                    let (px, py) = (block.px[s], block.py[s]);
                    let t = if len2 > 0.0 {
                        (((px - a.x) * ab.x + (py - a.y) * ab.y) / len2).clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    let (dx, dy) = (a.x + ab.x * t - px, a.y + ab.y * t - py);
                    *d2 = d2.min(dx * dx + dy * dy);
                }
            }
            let z = item.pad.z;
            for s in 0..N {
                let (px, py) = (block.px[s], block.py[s]);
                let out = (px < lo.x) | (py < lo.y) | (px > hi.x) | (py > hi.y);
                let run = d2[s].sqrt();
                let take = need[s] & !out & (run <= item.toe);
                let (f, c) = (
                    floor[s].max(z - run / self.fill),
                    ceiling[s].min(z + run / self.cut),
                );
                floor[s] = if take { f } else { floor[s] };
                ceiling[s] = if take { c } else { ceiling[s] };
            }
        }
        for s in (0..N).filter(|&s| need[s]) {
            let k = block.k[s];
            let natural = out[k];
            if natural < floor[s] {
                out[k] = floor[s].min(ceiling[s]);
            } else if natural > ceiling[s] {
                out[k] = ceiling[s];
            }
        }
    }

    /// Lays the built ground on the samples `[i0, i1) × [j0, j1)` of a tile
    /// whose candidates `lists` holds.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn block(
        &self,
        lists: &mut Lists,
        block: &mut Block,
        grid: &Grid,
        b: usize,
        cols: Range<usize>,
        rows: Range<usize>,
        out: &mut [f64],
    ) {
        let (lo, hi) = grid.corners(cols.start, rows.start, cols.end, rows.end);
        block.reset(grid, cols.clone(), rows.clone());
        // Level cells first: they win.
        for level in &self.level {
            let xs = block.x.map(|x| level.column(x));
            let ys = block.y.map(|y| level.row(y));
            let (c0, c1) = (xs[0].min(xs[BLOCK - 1]), xs[0].max(xs[BLOCK - 1]));
            let (r0, r1) = (ys[0].min(ys[BLOCK - 1]), ys[0].max(ys[BLOCK - 1]));
            if c0 == c1 && r0 == r1 {
                // One cell holds the block.
                if let Some(k) = level.at(c0, r0) {
                    let z = self.pads[k as usize].pad.z;
                    for s in (0..N).filter(|&s| !block.done[s]) {
                        out[block.k[s]] = z;
                    }
                    return;
                }
                continue;
            }
            for s in 0..N {
                if block.done[s] {
                    continue;
                }
                if let Some(k) = level.at(xs[s % BLOCK], ys[s / BLOCK]) {
                    block.done[s] = true;
                    out[block.k[s]] = self.pads[k as usize].pad.z;
                }
            }
        }
        if block.done.iter().all(|&d| d) {
            return;
        }
        self.narrow(lists, b, lo, hi);
        (block.d, block.rank, block.pad) = ([f64::INFINITY; N], [u8::MAX; N], [None; N]);
        self.lanes_over(lists, block);
        self.pads_over(lists, block);

        let mut need = [false; N];
        for (s, need) in need.iter_mut().enumerate() {
            if block.done[s] {
                continue;
            }
            let (p, k) = (block.p(s), block.k[s]);
            let d = block.d[s];
            let lane = (d < f64::INFINITY).then_some((block.z[s], d <= block.road[s]));
            let pad = block.pad[s].map(|k| &self.pads[k].pad);
            match stand(p, lane, pad) {
                Some(b) => out[k] = b.height,
                None => *need = true,
            }
        }
        if need.iter().any(|&n| n) {
            self.narrow_slopes(lists, lo, hi);
            self.slopes_over(lists, block, &need, out);
        }
    }

    /// [`Relief::shape_grid`]: tiles nothing may shape are skipped; each
    /// other tile's candidates are gathered once, and narrowed per block.
    /// Compiled with AVX-512 too, run where the CPU has it: the samples of
    /// a block then go side by side in wide registers (the same IEEE
    /// arithmetic, so the same bits).
    pub(super) fn shape(&self, x0: f64, y0: f64, step: f64, w: usize, h: usize, out: &mut [f64]) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512dq") && has!("avx512vl") && has!("avx2") {
                // SAFETY: the CPU has every feature it is compiled with.
                return unsafe { self.shape_avx512(x0, y0, step, w, h, out) };
            }
        }
        self.shape_lanes(x0, y0, step, w, h, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
    unsafe fn shape_avx512(
        &self,
        x0: f64,
        y0: f64,
        step: f64,
        w: usize,
        h: usize,
        out: &mut [f64],
    ) {
        self.shape_lanes(x0, y0, step, w, h, out);
    }

    /// [`Self::shape`], to be compiled for the CPU's features.
    #[inline(always)]
    fn shape_lanes(&self, x0: f64, y0: f64, step: f64, w: usize, h: usize, out: &mut [f64]) {
        let span = |a: f64, n: usize| [a, a + n.saturating_sub(1) as f64 * step];
        if !span(x0, w)
            .iter()
            .chain(&span(y0, h))
            .all(|v| v.is_finite())
        {
            return shape_by_points(self, x0, y0, step, w, h, out);
        }
        let grid = Grid { x0, y0, step, w };
        let mut lists = Lists::default();
        let mut block = Block::default();
        for tj in (0..h).step_by(SHAPE_TILE) {
            for ti in (0..w).step_by(SHAPE_TILE) {
                let (i1, j1) = ((ti + SHAPE_TILE).min(w), (tj + SHAPE_TILE).min(h));
                let (lo, hi) = grid.corners(ti, tj, i1, j1);
                if !self.may_shape(lo, hi) {
                    continue;
                }
                let blocks = || {
                    let rows = (tj..j1)
                        .step_by(BLOCK)
                        .map(move |bj| bj..(bj + BLOCK).min(j1));
                    rows.flat_map(move |rows| {
                        let cols = (ti..i1)
                            .step_by(BLOCK)
                            .map(move |bi| bi..(bi + BLOCK).min(i1));
                        cols.map(move |cols| (cols, rows.clone()))
                    })
                };
                lists.cr = [f64::NEG_INFINITY; TILE_BLOCKS];
                for (b, (cols, rows)) in blocks().enumerate() {
                    let (lo, hi) = grid.corners(cols.start, rows.start, cols.end, rows.end);
                    let (c, r) = disc(lo, hi);
                    (lists.cx[b], lists.cy[b], lists.cr[b]) = (c.x, c.y, r);
                }
                self.gather(&mut lists, lo, hi);
                for (b, (cols, rows)) in blocks().enumerate() {
                    self.block(&mut lists, &mut block, &grid, b, cols, rows, out);
                }
            }
        }
    }
}

/// A grid's samples: `(x0 + i·step, y0 + j·step)`, row `j` at `j·w`.
struct Grid {
    x0: f64,
    y0: f64,
    step: f64,
    w: usize,
}

impl Grid {
    #[inline]
    fn x(&self, i: usize) -> f64 {
        self.x0 + i as f64 * self.step
    }

    #[inline]
    fn y(&self, j: usize) -> f64 {
        self.y0 + j as f64 * self.step
    }

    /// The box of the samples `[i0, i1) × [j0, j1)`.
    fn corners(&self, i0: usize, j0: usize, i1: usize, j1: usize) -> (DVec2, DVec2) {
        let (a, b) = (
            DVec2::new(self.x(i0), self.y(j0)),
            DVec2::new(self.x(i1 - 1), self.y(j1 - 1)),
        );
        (a.min(b), a.max(b))
    }
}

/// Samples in a block.
const N: usize = BLOCK * BLOCK;

/// A block's samples side by side (row by row, `BLOCK` a row; past a
/// partial block's edge, its last column and row again, marked done), and
/// what is found at each.
#[derive(Debug)]
struct Block {
    x: [f64; BLOCK],
    y: [f64; BLOCK],
    /// Each sample's coordinates.
    px: [f64; N],
    py: [f64; N],
    /// A lane's distance and height at each sample.
    ld: [f64; N],
    lz: [f64; N],
    /// Each sample's place in the output (those in use).
    k: [usize; N],
    /// Whether it is decided (or past a partial block's edge).
    done: [bool; N],
    /// The carriageway it stands on: its distance (∞ where none), rank,
    /// height and the half-width of its road proper.
    d: [f64; N],
    rank: [u8; N],
    z: [f64; N],
    road: [f64; N],
    /// The pad it is on.
    pad: [Option<usize>; N],
}

impl Default for Block {
    fn default() -> Self {
        Self {
            x: [0.0; BLOCK],
            y: [0.0; BLOCK],
            px: [0.0; N],
            py: [0.0; N],
            ld: [0.0; N],
            lz: [0.0; N],
            k: [0; N],
            done: [true; N],
            d: [f64::INFINITY; N],
            rank: [u8::MAX; N],
            z: [0.0; N],
            road: [0.0; N],
            pad: [None; N],
        }
    }
}

impl Block {
    /// Sample `s`.
    #[inline]
    fn p(&self, s: usize) -> DVec2 {
        DVec2::new(self.px[s], self.py[s])
    }

    fn reset(&mut self, grid: &Grid, cols: Range<usize>, rows: Range<usize>) {
        let (nc, nr) = (cols.len(), rows.len());
        for c in 0..BLOCK {
            self.x[c] = grid.x(cols.start + c.min(nc - 1));
            self.y[c] = grid.y(rows.start + c.min(nr - 1));
        }
        for s in 0..N {
            let (r, c) = (s / BLOCK, s % BLOCK);
            self.k[s] = (rows.start + r) * grid.w + cols.start + c;
            self.done[s] = r >= nr || c >= nc;
            (self.px[s], self.py[s]) = (self.x[c], self.y[r]);
        }
    }
}
