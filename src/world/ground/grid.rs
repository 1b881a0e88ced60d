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

use super::laid::{Earthworks, stand, takes_over};
use super::pieces::{BOX, INDEX, PAD, SURE};
use crate::geom::{closest_on_segment, distance_to_segment};
use crate::terrain::{Relief, SHAPE_TILE, shape_by_points};
use glam::DVec2;
use std::ops::Range;

/// Samples on a side of a block.
const BLOCK: usize = 4;

/// Blocks in a tile (at most).
const TILE_BLOCKS: usize = (SHAPE_TILE / BLOCK) * (SHAPE_TILE / BLOCK);

/// A pad that may hold samples of a block: whether a sample must be
/// checked against its box, the crossings of the edges counted once, and
/// the edges to test per sample (a range of [`Lists::edges`]).
#[derive(Clone, Debug)]
struct PadTest {
    pad: usize,
    check_box: bool,
    parity: bool,
    edges: Range<usize>,
}

/// The pieces that may matter in a tile, then in a block (reused buffers).
#[derive(Debug, Default)]
struct Lists {
    /// The tile's candidates: what may cover it, the slopes that may reach
    /// it (ids as filed, without marks; lanes first).
    tile_on: Vec<u32>,
    tile_slopes: Vec<u32>,
    /// The tile's carriageways and pads (edges in `tile_edges`).
    tile_lanes: Vec<usize>,
    /// Per tile lane, the blocks it may reach (bit `b` for block `b`).
    lane_blocks: Vec<u16>,
    /// The tile's blocks: each one's centre and reach ([`disc`]).
    cx: [f64; TILE_BLOCKS],
    cy: [f64; TILE_BLOCKS],
    cr: [f64; TILE_BLOCKS],
    tile_pads: Vec<PadTest>,
    tile_edges: Vec<usize>,
    /// The block's carriageways and pads.
    lanes: Vec<usize>,
    pads: Vec<PadTest>,
    edges: Vec<usize>,
    /// The block's slopes (once a sample needs them): lanes, pads with the
    /// range of `slope_edges` that may be nearest.
    slopes_ready: bool,
    slope_lanes: Vec<usize>,
    slope_pads: Vec<(usize, Range<usize>)>,
    slope_edges: Vec<usize>,
}

/// The centre of a box and the distance from it to the box's corners,
/// with a [`margin`] for rounding.
fn disc(lo: DVec2, hi: DVec2) -> (DVec2, f64) {
    ((lo + hi) * 0.5, (hi - lo).length() * 0.5 + margin(lo, hi))
}

/// The margin for rounding over `[lo, hi]`: a millimetre, more where
/// coordinates are large.
#[inline]
fn margin(lo: DVec2, hi: DVec2) -> f64 {
    1e-3 + 1e-9 * lo.abs().max(hi.abs()).max_element()
}

impl Earthworks {
    /// Gathers a tile's candidates from the indexes.
    fn gather(&self, lists: &mut Lists, lo: DVec2, hi: DVec2) {
        let (ids, slopes) = (&mut lists.tile_on, &mut lists.tile_slopes);
        ids.clear();
        slopes.clear();
        let (c, r) = disc(lo, hi);
        self.on.for_each_in_box(lo, hi, |on| {
            ids.extend(
                on.iter()
                    .map(|&id| if id & PAD != 0 { id & !SURE } else { id }),
            );
        });
        self.grid.for_each_in_box(lo, hi, |items| {
            slopes.extend(
                items
                    .iter()
                    .filter(|&&id| (id & (PAD | BOX)) != (PAD | BOX)),
            );
        });
        for v in [&mut *ids, &mut *slopes] {
            v.sort_unstable();
            v.dedup();
        }
        // Narrowed to the tile's disc; each pad's edges classified over it.
        lists.tile_lanes.clear();
        lists.tile_pads.clear();
        lists.tile_edges.clear();
        for &id in ids.iter() {
            if id & PAD == 0 {
                let l = &self.lanes[id as usize];
                if distance_to_segment(c, l.a, l.b) <= l.half + r {
                    lists.tile_lanes.push(id as usize);
                }
            } else {
                let k = (id & INDEX) as usize;
                let all = PadTest {
                    pad: k,
                    check_box: true,
                    parity: false,
                    edges: 0..self.pads[k].pad.polygon.len(),
                };
                let t = self.pad_test(&all, None, lo, hi, &mut lists.tile_edges);
                lists.tile_pads.extend(t);
            }
        }
        // The blocks each lane may reach, side by side (unused blocks
        // reach nothing: their reach is −1).
        lists.lane_blocks.clear();
        for &i in &lists.tile_lanes {
            let l = &self.lanes[i];
            let ab = l.b - l.a;
            let len2 = ab.length_squared().max(f64::MIN_POSITIVE);
            let mut mask = 0u16;
            for b in 0..TILE_BLOCKS {
                let (px, py) = (lists.cx[b], lists.cy[b]);
                let t = (((px - l.a.x) * ab.x + (py - l.a.y) * ab.y) / len2).clamp(0.0, 1.0);
                let (dx, dy) = (px - (l.a.x + ab.x * t), py - (l.a.y + ab.y * t));
                let reach = l.half + lists.cr[b];
                mask |= u16::from((reach >= 0.0) & (dx * dx + dy * dy <= reach * reach)) << b;
            }
            lists.lane_blocks.push(mask);
        }
        let slopes = &mut lists.tile_slopes;
        slopes.retain(|&id| {
            id & PAD != 0 || {
                let l = &self.lanes[id as usize];
                distance_to_segment(c, l.a, l.b) <= l.half + l.toe[0].max(l.toe[1]) + r
            }
        });
    }

    /// Narrows `t` (a pad over a larger box, its edges in `edges`, or all
    /// of them where `None`) to `[lo, hi]`, adding the edges that stay to
    /// test to `out`: `None` where the pad holds none of its samples.
    fn pad_test(
        &self,
        t: &PadTest,
        edges: Option<&[usize]>,
        lo: DVec2,
        hi: DVec2,
        out: &mut Vec<usize>,
    ) -> Option<PadTest> {
        let item = &self.pads[t.pad];
        if hi.cmplt(item.min).any() || lo.cmpgt(item.max).any() {
            return None;
        }
        let check_box = t.check_box && (lo.cmplt(item.min).any() || hi.cmpgt(item.max).any());
        let margin = margin(lo, hi);
        // Each edge's crossing (as `inside` tests it) for every sample, none,
        // or some.
        let (v, start) = (&item.pad.polygon, out.len());
        let mut parity = t.parity;
        let known = |y: f64| y > hi.y || y <= lo.y;
        let mut class = |i: usize| {
            let (a, b) = (v[i], v[if i == 0 { v.len() - 1 } else { i - 1 }]);
            let left = a.x.max(b.x) < lo.x - margin;
            if known(a.y) && known(b.y) {
                if (a.y > hi.y) == (b.y > hi.y) || left {
                    return;
                }
                if a.x.min(b.x) > hi.x + margin {
                    parity = !parity;
                    return;
                }
            } else if left {
                return;
            }
            out.push(i);
        };
        match edges {
            Some(edges) => edges[t.edges.clone()].iter().for_each(|&i| class(i)),
            None => t.edges.clone().for_each(class),
        }
        let edges = start..out.len();
        (!edges.is_empty() || check_box || parity).then_some(PadTest {
            pad: t.pad,
            check_box,
            parity,
            edges,
        })
    }

    /// Narrows the tile's cover candidates to a block `[lo, hi]` (the box
    /// of its samples).
    fn narrow(&self, lists: &mut Lists, b: usize, lo: DVec2, hi: DVec2) {
        lists.lanes.clear();
        lists.pads.clear();
        lists.edges.clear();
        lists.slopes_ready = false;
        let bit = 1u16 << b;
        let lanes = lists.tile_lanes.iter().zip(&lists.lane_blocks);
        lists
            .lanes
            .extend(lanes.filter(|(_, m)| *m & bit != 0).map(|(&i, _)| i));
        for t in &lists.tile_pads {
            let t = self.pad_test(t, Some(&lists.tile_edges), lo, hi, &mut lists.edges);
            lists.pads.extend(t);
        }
    }

    /// Narrows the tile's slopes to the block `[lo, hi]`.
    fn narrow_slopes(&self, lists: &mut Lists, lo: DVec2, hi: DVec2) {
        let (c, r) = disc(lo, hi);
        lists.slope_lanes.clear();
        lists.slope_pads.clear();
        lists.slope_edges.clear();
        lists.slopes_ready = true;
        for &id in &lists.tile_slopes {
            if id & PAD == 0 {
                let l = &self.lanes[id as usize];
                if distance_to_segment(c, l.a, l.b) <= l.half + l.toe[0].max(l.toe[1]) + r {
                    lists.slope_lanes.push(id as usize);
                }
                continue;
            }
            let k = (id & INDEX) as usize;
            let item = &self.pads[k];
            let v = &item.pad.polygon;
            // The least a slope edge's distance may be over the block, and
            // the least the nearest may be at most.
            let start = lists.slope_edges.len();
            let (mut least, mut most) = (f64::INFINITY, f64::INFINITY);
            for i in (0..v.len()).filter(|&i| !item.walled[i]) {
                let d = distance_to_segment(c, v[i], v[(i + 1) % v.len()]);
                (least, most) = (least.min(d - r), most.min(d + r));
            }
            if least > item.toe {
                continue;
            }
            for i in (0..v.len()).filter(|&i| !item.walled[i]) {
                if distance_to_segment(c, v[i], v[(i + 1) % v.len()]) - r <= most {
                    lists.slope_edges.push(i);
                }
            }
            lists.slope_pads.push((k, start..lists.slope_edges.len()));
        }
    }

    /// The carriageway nearest each sample of `block` among the block's
    /// lanes, as [`Earthworks::standing`] finds it (the same arithmetic as
    /// `Lane::at`, written out so that the samples go side by side).
    #[inline]
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
                let take = !out & (d <= l.half) & (d < block.d[s]);
                block.d[s] = if take { d } else { block.d[s] };
                block.z[s] = if take { block.lz[s] } else { block.z[s] };
                block.road[s] = if take { l.road } else { block.road[s] };
            }
        }
    }

    /// The pad each sample of `block` is on among the block's pads.
    #[inline]
    fn pads_over(&self, lists: &Lists, block: &mut Block) {
        for t in &lists.pads {
            let item = &self.pads[t.pad];
            let mut holds = [t.parity; N];
            let v = &item.pad.polygon;
            for &i in &lists.edges[t.edges.clone()] {
                let (a, b) = (v[i], v[if i == 0 { v.len() - 1 } else { i - 1 }]);
                for (s, h) in holds.iter_mut().enumerate() {
                    let p = block.p(s);
                    // As `inside` tests each edge.
                    let x = (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x;
                    *h ^= ((a.y > p.y) != (b.y > p.y)) & (p.x < x);
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

    /// The fill or cut at `p`, a sample of the block `lists` narrows to.
    fn slope_at(
        &self,
        lists: &mut Lists,
        lo: DVec2,
        hi: DVec2,
        p: DVec2,
        natural: f64,
    ) -> Option<f64> {
        if !lists.slopes_ready {
            self.narrow_slopes(lists, lo, hi);
        }
        let lanes = (lists.slope_lanes.iter()).filter_map(|&i| Self::lane_slope(&self.lanes[i], p));
        let pads = lists.slope_pads.iter().filter_map(|(k, edges)| {
            let item = &self.pads[*k];
            if !Self::in_slope_box(item, p) {
                return None;
            }
            let v = &item.pad.polygon;
            let mut d2 = f64::INFINITY;
            for &i in &lists.slope_edges[edges.clone()] {
                let (q, _) = closest_on_segment(p, v[i], v[(i + 1) % v.len()]);
                d2 = d2.min(q.distance_squared(p));
            }
            let run = d2.sqrt();
            (run <= item.toe).then_some((item.pad.z, run))
        });
        self.sloped(natural, lanes.chain(pads)).map(|b| b.height)
    }

    /// Lays the built ground on the samples `[i0, i1) × [j0, j1)` of a tile
    /// whose candidates `lists` holds.
    #[allow(clippy::too_many_arguments)]
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
                if !block.done[s] {
                    if let Some(k) = level.at(xs[s % BLOCK], ys[s / BLOCK]) {
                        block.done[s] = true;
                        out[block.k[s]] = self.pads[k as usize].pad.z;
                    }
                }
            }
        }
        if block.done.iter().all(|&d| d) {
            return;
        }
        self.narrow(lists, b, lo, hi);
        (block.d, block.pad) = ([f64::INFINITY; N], [None; N]);
        self.lanes_over(lists, block);
        self.pads_over(lists, block);

        for s in 0..N {
            if block.done[s] {
                continue;
            }
            let (p, k) = (block.p(s), block.k[s]);
            let d = block.d[s];
            let lane = (d < f64::INFINITY).then_some((block.z[s], d <= block.road[s]));
            let pad = block.pad[s].map(|k| &self.pads[k].pad);
            let z = match stand(p, lane, pad) {
                Some(b) => Some(b.height),
                None => self.slope_at(lists, lo, hi, p, out[k]),
            };
            if let Some(z) = z {
                out[k] = z;
            }
        }
    }

    /// [`Relief::shape_grid`]: tiles nothing may shape are skipped; each
    /// other tile's candidates are gathered once, and narrowed per block.
    pub(super) fn shape(&self, x0: f64, y0: f64, step: f64, w: usize, h: usize, out: &mut [f64]) {
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
    /// The nearest carriageway: its distance (∞ where none), its height
    /// and the half-width of its road proper.
    d: [f64; N],
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
