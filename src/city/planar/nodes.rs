//! The article's node step: from an open list (first in, first out), each
//! node that splits tries 10–16 candidates on a circle at random distances
//! within the extension range; a candidate inside the region and farther
//! than the clearance from every node becomes a node and joins the list.
//! Split numbers ("nodes around seed nodes") or none ("nodes inside a
//! loop": every node splits, the region bounds the growth).

use super::input::Region;
use super::work::{MAX_NODES, Origin, Rng, Work};
use super::{PlanarParams, StreetLevel, StreetsError};
use crate::geom::NodeId;
use glam::DVec2;
use std::collections::VecDeque;

/// Grows nodes from `open` (node, split number; `f64::INFINITY` always
/// splits) and returns the new ones, in order.
pub(super) fn grow_nodes(
    work: &mut Work,
    rng: &mut Rng,
    params: &PlanarParams,
    level: (u8, &StreetLevel),
    region: &Region,
    open: impl IntoIterator<Item = (NodeId, f64)>,
) -> Result<Vec<NodeId>, StreetsError> {
    let (l, lv) = level;
    let (cmin, cmax) = params.candidates;
    let mut open: VecDeque<(NodeId, f64)> = open.into_iter().collect();
    let mut made = Vec::new();
    // Each pop either ends a node for good or comes from a node made here.
    while let Some((n, split)) = open.pop_front() {
        let splits = split >= 1.0 || (split > 0.0 && rng.unit() < split);
        if !splits {
            continue;
        }
        let p = work.graph.pos(n);
        let k = cmin + rng.below((cmax - cmin + 1) as usize) as u32;
        // Directions evenly round the circle from a random start.
        let turn = DVec2::from_angle(std::f64::consts::TAU / k as f64);
        let mut dir = DVec2::from_angle(rng.unit() * std::f64::consts::TAU);
        for _ in 0..k {
            let q = p + dir * rng.range(lv.extension.0, lv.extension.1);
            dir = turn.rotate(dir);
            if region.in_bounds(q)
                && !work.graph.any_node_closer(q, lv.clearance)
                && region.contains(q)
            {
                if work.graph.node_count() >= MAX_NODES {
                    return Err(StreetsError::TooMuchWork { max: MAX_NODES });
                }
                let m = work.add_node(q, Origin::Level(l), 0.0);
                made.push(m);
                open.push_back((m, split - 1.0));
            }
        }
    }
    Ok(made)
}
