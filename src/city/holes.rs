//! Obstacles standing apart inside a block (a lake no street reaches) cut
//! out of it: the block's ring runs along a bridge to the obstacle's
//! outline, around it clockwise and back, so no block covers an obstacle.

use super::polygon::{polygon_contains, signed_area};
use crate::geom::{bounds, segment_contact};
use glam::DVec2;

/// Nearest block vertices tried as a bridge's end, per obstacle.
const BRIDGE_CANDIDATES: usize = 64;

/// Bridges each clockwise outline of `holes` into the smallest block of
/// `blocks` holding it (its edges and the bridge's two get width 0 in
/// `widths`). An outline in no block, or with no bridge that crosses
/// nothing among its block's nearest vertices, is left alone.
pub(crate) fn cut_holes(blocks: &mut [Vec<DVec2>], widths: &mut [Vec<f64>], holes: &[Vec<DVec2>]) {
    if holes.is_empty() {
        return;
    }
    let boxes: Vec<(DVec2, DVec2)> = blocks.iter().map(|b| bounds(b)).collect();
    let areas: Vec<f64> = blocks.iter().map(|b| signed_area(b)).collect();
    // Each hole's block, then every block's holes, in order.
    let mut of_block: Vec<Vec<usize>> = vec![Vec::new(); blocks.len()];
    for (h, hole) in holes.iter().enumerate() {
        let Some(&p) = hole.first() else { continue };
        let home = (0..blocks.len())
            .filter(|&b| {
                let (lo, hi) = boxes[b];
                p.cmpge(lo).all() && p.cmple(hi).all() && polygon_contains(&blocks[b], p)
            })
            .min_by(|&a, &b| areas[a].total_cmp(&areas[b]));
        if let Some(b) = home {
            of_block[b].push(h);
        }
    }
    for (b, mine) in of_block.iter().enumerate() {
        for &h in mine {
            let others: Vec<&[DVec2]> = mine.iter().map(|&k| holes[k].as_slice()).collect();
            bridge(&mut blocks[b], &mut widths[b], &holes[h], &others);
        }
    }
}

/// Splices `hole` into `block` at the shortest bridge (from the hole's
/// easternmost vertex to one of the block's nearest vertices) that meets
/// no edge of the block or of `holes` but at its own ends.
fn bridge(block: &mut Vec<DVec2>, widths: &mut Vec<f64>, hole: &[DVec2], holes: &[&[DVec2]]) {
    let Some(hi) = (0..hole.len())
        .max_by(|&a, &b| (hole[a].x.total_cmp(&hole[b].x)).then(hole[a].y.total_cmp(&hole[b].y)))
    else {
        return;
    };
    let h = hole[hi];
    let mut near: Vec<usize> = (0..block.len()).collect();
    near.sort_by(|&a, &b| {
        (block[a]
            .distance_squared(h)
            .total_cmp(&block[b].distance_squared(h)))
        .then(a.cmp(&b))
    });
    let clear = |o: DVec2| {
        let loops = std::iter::once(block.as_slice()).chain(holes.iter().copied());
        loops.into_iter().all(|ring| {
            let m = ring.len();
            (0..m).all(|i| {
                let (a, b) = (ring[i], ring[(i + 1) % m]);
                [a, b].iter().any(|&e| e == o || e == h) || segment_contact(o, h, a, b).is_none()
            })
        })
    };
    let Some(io) = (near.into_iter())
        .take(BRIDGE_CANDIDATES)
        .find(|&i| clear(block[i]))
    else {
        return;
    };
    let o = block[io];
    let mut pts = Vec::with_capacity(block.len() + hole.len() + 2);
    pts.extend_from_slice(&block[..=io]);
    pts.extend_from_slice(&hole[hi..]);
    pts.extend_from_slice(&hole[..=hi]);
    pts.push(o);
    pts.extend_from_slice(&block[io + 1..]);
    let mut w = Vec::with_capacity(pts.len());
    w.extend_from_slice(&widths[..io]);
    w.extend(std::iter::repeat_n(0.0, hole.len() + 2));
    w.extend_from_slice(&widths[io..]);
    *block = pts;
    *widths = w;
}
