//! The article's node step: from an open list (first in, first out), each
//! node that splits tries 10–16 candidates on a circle at random distances
//! within the extension range; a candidate inside the region and farther
//! than the clearance from every node becomes a node and joins the list.
//! Split numbers ("nodes around seed nodes") or none ("nodes inside a
//! loop": every node splits, the region bounds the growth). A node on a
//! face's boundary tries only the candidates that head into the face (its
//! [`Wedge`] there): the others would fall outside but where the face
//! curls back.

use super::input::Region;
use super::work::{MAX_NODES, Origin, Rng, Work};
use super::{PlanarParams, StreetLevel, StreetsError};
use crate::geom::NodeId;
use glam::DVec2;
use std::collections::VecDeque;

/// The directions from a node into a face: counter-clockwise from `from`
/// round to `to` (the way to the next node of the face's walk, then the way
/// back to the previous one; the face lies left of its walk).
#[derive(Clone, Copy, Debug)]
pub(super) struct Wedge {
    pub from: DVec2,
    pub to: DVec2,
}

impl Wedge {
    /// Whether direction `d` heads into the wedge (a wedge whose sides
    /// coincide, at a dead end, is the whole turn).
    fn contains(&self, d: DVec2) -> bool {
        let (a, b) = (self.from, self.to);
        if a.perp_dot(b) == 0.0 && a.dot(b) > 0.0 {
            true
        } else if a.perp_dot(b) >= 0.0 {
            a.perp_dot(d) >= 0.0 && d.perp_dot(b) >= 0.0
        } else {
            a.perp_dot(d) >= 0.0 || d.perp_dot(b) >= 0.0
        }
    }
}

/// Grows nodes from `open` (node, split number — `f64::INFINITY` always
/// splits —, the wedge it may grow into) and returns the new ones, in order.
pub(super) fn grow_nodes(
    work: &mut Work,
    rng: &mut Rng,
    params: &PlanarParams,
    level: (u8, &StreetLevel),
    region: &Region,
    open: impl IntoIterator<Item = (NodeId, f64, Option<Wedge>)>,
) -> Result<Vec<NodeId>, StreetsError> {
    let (l, lv) = level;
    let (cmin, cmax) = params.candidates;
    let mut open: VecDeque<_> = open.into_iter().collect();
    let mut made = Vec::new();
    // Each pop either ends a node for good or comes from a node made here.
    while let Some((n, split, wedge)) = open.pop_front() {
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
            let ahead = wedge.is_none_or(|w| w.contains(dir));
            dir = turn.rotate(dir);
            if ahead
                && region.in_bounds(q)
                && !work.any_node_closer(q, lv.clearance)
                && region.contains(q)
            {
                if work.graph.node_count() >= MAX_NODES {
                    return Err(StreetsError::TooMuchWork { max: MAX_NODES });
                }
                let m = work.add_node(q, Origin::Level(l), 0.0);
                made.push(m);
                open.push_back((m, split - 1.0, None));
            }
        }
    }
    Ok(made)
}
