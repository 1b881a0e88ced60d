//! Narrowing for [`Relief::shape_grid`](crate::terrain::Relief::shape_grid)
//! of [`Earthworks`]: the pieces that may matter in a tile of samples,
//! gathered once from the indexes, then in each block of it. Only what
//! provably cannot matter at any sample of the box (with a [`margin`] for
//! rounding) is left out, and what stays keeps its index order.

use super::grid::TILE_BLOCKS;
use super::laid::Earthworks;
use super::pieces::{INDEX, PAD};
use crate::geom::distance_to_segment;
use glam::DVec2;
use std::ops::Range;

/// A pad that may hold samples of a block: whether a sample must be
/// checked against its box, the crossings of the edges counted once, and
/// the edges to test per sample (a range of [`Lists::edges`]).
#[derive(Clone, Debug)]
pub(super) struct PadTest {
    pub(super) pad: usize,
    pub(super) check_box: bool,
    pub(super) parity: bool,
    pub(super) edges: Range<usize>,
}

/// The pieces that may matter in a tile, then in a block (reused buffers).
#[derive(Debug, Default)]
pub(super) struct Lists {
    /// The tile's candidates: what may cover it, the slopes that may reach
    /// it (ids as filed, without marks; lanes first).
    pub(super) tile_on: Vec<u32>,
    pub(super) tile_slopes: Vec<u32>,
    /// The tile's carriageways and pads (edges in `tile_edges`).
    pub(super) tile_lanes: Vec<usize>,
    /// Per tile lane, the blocks it may reach (bit `b` for block `b`).
    pub(super) lane_blocks: Vec<u16>,
    /// The tile's blocks: each one's centre and reach ([`disc`]).
    pub(super) cx: [f64; TILE_BLOCKS],
    pub(super) cy: [f64; TILE_BLOCKS],
    pub(super) cr: [f64; TILE_BLOCKS],
    pub(super) tile_pads: Vec<PadTest>,
    pub(super) tile_edges: Vec<usize>,
    /// The block's carriageways and pads.
    pub(super) lanes: Vec<usize>,
    pub(super) pads: Vec<PadTest>,
    pub(super) edges: Vec<usize>,
    /// The tile's box, and its slopes (once a sample needs them): those
    /// filed, then those that may reach the tile.
    tile_box: (DVec2, DVec2),
    tile_slopes_ready: bool,
    filed: Slopes,
    near_tile: Slopes,
    /// The block's slopes (once a sample needs them).
    pub(super) slopes: Slopes,
    /// Distances to edges (scratch).
    distances: Vec<f64>,
}

/// Slopes that may reach a box: lanes, and pads with the range of `edges`
/// that may be nearest.
#[derive(Debug, Default)]
pub(super) struct Slopes {
    pub(super) lanes: Vec<usize>,
    pub(super) pads: Vec<(usize, Range<usize>)>,
    pub(super) edges: Vec<usize>,
}

impl Slopes {
    fn clear(&mut self) {
        self.lanes.clear();
        self.pads.clear();
        self.edges.clear();
    }
}

/// The centre of a box and the distance from it to the box's corners,
/// with a [`margin`] for rounding.
pub(super) fn disc(lo: DVec2, hi: DVec2) -> (DVec2, f64) {
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
    pub(super) fn gather(&self, lists: &mut Lists, lo: DVec2, hi: DVec2) {
        (lists.tile_box, lists.tile_slopes_ready) = ((lo, hi), false);
        let (ids, slopes) = (&mut lists.tile_on, &mut lists.tile_slopes);
        ids.clear();
        slopes.clear();
        let (c, r) = disc(lo, hi);
        self.on.for_each_in_box(lo, hi, |on| ids.extend(on));
        self.grid
            .for_each_in_box(lo, hi, |items| slopes.extend(items));
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
    pub(super) fn narrow(&self, lists: &mut Lists, b: usize, lo: DVec2, hi: DVec2) {
        lists.lanes.clear();
        lists.pads.clear();
        lists.edges.clear();
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

    /// Narrows the tile's slopes to the block `[lo, hi]` (first to the
    /// tile, once).
    pub(super) fn narrow_slopes(&self, lists: &mut Lists, lo: DVec2, hi: DVec2) {
        if !lists.tile_slopes_ready {
            let all = &mut lists.filed;
            all.clear();
            for &id in &lists.tile_slopes {
                if id & PAD == 0 {
                    all.lanes.push(id as usize);
                    continue;
                }
                let (k, start) = ((id & INDEX) as usize, all.edges.len());
                let walled = &self.pads[k].walled;
                all.edges.extend((0..walled.len()).filter(|&i| !walled[i]));
                all.pads.push((k, start..all.edges.len()));
            }
            let (tlo, thi) = lists.tile_box;
            let d = &mut lists.distances;
            self.slopes_within(&lists.filed, tlo, thi, &mut lists.near_tile, d);
            lists.tile_slopes_ready = true;
        }
        let d = &mut lists.distances;
        self.slopes_within(&lists.near_tile, lo, hi, &mut lists.slopes, d);
    }

    /// The slopes of `from` that may reach `[lo, hi]`, each pad with the
    /// edges that may be nearest there.
    fn slopes_within(
        &self,
        from: &Slopes,
        lo: DVec2,
        hi: DVec2,
        out: &mut Slopes,
        distances: &mut Vec<f64>,
    ) {
        let (c, r) = disc(lo, hi);
        out.clear();
        for &i in &from.lanes {
            let l = &self.lanes[i];
            if distance_to_segment(c, l.a, l.b) <= l.half + l.toe[0].max(l.toe[1]) + r {
                out.lanes.push(i);
            }
        }
        // Farther from a pad's box than its toe (with a margin for
        // rounding), no edge of it can be within reach.
        let slack = r + margin(lo, hi);
        for (k, edges) in &from.pads {
            let item = &self.pads[*k];
            let reach = DVec2::splat(item.toe + slack);
            if c.cmplt(item.min - reach).any() || c.cmpgt(item.max + reach).any() {
                continue;
            }
            let v = &item.pad.polygon;
            let edges = &from.edges[edges.clone()];
            // The least a slope edge's distance may be over the box, and the
            // least the nearest may be at most.
            distances.clear();
            let (mut least, mut most) = (f64::INFINITY, f64::INFINITY);
            for &i in edges {
                let d = distance_to_segment(c, v[i], v[(i + 1) % v.len()]);
                distances.push(d);
                (least, most) = (least.min(d - r), most.min(d + r));
            }
            if least > item.toe {
                continue;
            }
            let start = out.edges.len();
            let near = edges.iter().zip(distances.iter());
            out.edges
                .extend(near.filter(|(_, d)| *d - r <= most).map(|(&i, _)| i));
            out.pads.push((*k, start..out.edges.len()));
        }
    }
}
