//! The article's edge step: pick a node at random, grow a street from it
//! edge by edge to the best node within the connection radius, until no
//! node is left that can start one. A candidate must keep the graph planar
//! (no crossing: the one hard rule), not double an edge, not close a
//! triangle, make no angle below the minimum with any edge at either end,
//! and not push a node past the degree cap; among those left, the one best
//! aligned with the street and nearest wins.

use super::PlanarParams;
use super::input::Region;
use super::work::{Rng, Work};
use crate::geom::NodeId;
use glam::DVec2;

/// Most edges one street may have.
const MAX_STREET_EDGES: usize = 10_000;

/// Grows the streets of one pass.
pub(super) struct Streeter<'a> {
    pub work: &'a mut Work,
    pub rng: &'a mut Rng,
    pub params: &'a PlanarParams,
    pub region: Region<'a>,
    /// The pass number: candidates are the nodes whose `meta.pass` is it.
    pub pass: u32,
    /// The level's connection radius.
    pub radius: f64,
    /// The label of this level's streets.
    pub label: u32,
    /// Cosine of the minimum angle.
    pub cos_min: f64,
    /// Candidates of [`best`](Self::best), kept between calls.
    pub scratch: Vec<(f64, NodeId)>,
}

impl Streeter<'_> {
    /// Grows streets from `gates` first (each once), then from random
    /// picks among `nodes` until none can start a street.
    pub(super) fn run(&mut self, gates: &[NodeId], mut nodes: Vec<NodeId>) {
        for &g in gates {
            self.street_from(g);
        }
        let max_degree = self.params.max_degree as usize;
        // Each round removes a node or adds an edge; a planar graph has
        // fewer than 3 edges a node.
        let cap = 4 * (self.work.graph.node_count() + nodes.len()) + 16;
        for _ in 0..cap {
            if nodes.is_empty() {
                break;
            }
            let i = self.rng.below(nodes.len());
            let n = nodes[i];
            if self.work.graph.degree(n) >= max_degree || self.street_from(n) == 0 {
                nodes.swap_remove(i);
            }
        }
    }

    /// The article's "create a street from the node": a random first
    /// direction, then on from each node reached while the degree rules
    /// say so. Returns the number of edges drawn.
    fn street_from(&mut self, start: NodeId) -> usize {
        let (s, c) = (self.rng.unit() * std::f64::consts::TAU).sin_cos();
        let mut dir = DVec2::new(c, s);
        let mut at = start;
        for k in 0..MAX_STREET_EDGES {
            let Some(next) = self.best(at, dir) else {
                return k;
            };
            self.work.graph.add_edge(at, next, self.label);
            dir = (self.work.graph.pos(next) - self.work.graph.pos(at)).normalize();
            at = next;
            let go_on = match self.work.graph.degree(at) {
                1 => true,
                2 => self.rng.unit() < self.params.continue_at_end,
                3 => self.rng.unit() < self.params.continue_at_crossing,
                _ => false,
            };
            if !go_on || self.work.graph.degree(at) >= self.params.max_degree as usize {
                return k + 1;
            }
        }
        MAX_STREET_EDGES
    }

    /// Whether the direction `u` (unit) from node `n` keeps the minimum
    /// angle with every edge at `n`.
    fn angle_ok(&self, n: NodeId, u: DVec2) -> bool {
        let g = &self.work.graph;
        let p = g.pos(n);
        g.neighbours(n).all(|m| {
            let e = g.pos(m) - p;
            u.dot(e) <= self.cos_min * e.length()
        })
    }

    /// The best node to join `from` to, heading `dir`, if any: nodes of
    /// this pass within the radius, by score, the first that meets every
    /// rule (the dearer rules only until one does).
    fn best(&mut self, from: NodeId, dir: DVec2) -> Option<NodeId> {
        let g = &self.work.graph;
        let p = g.pos(from);
        let max_degree = self.params.max_degree as usize;
        let mut cands = std::mem::take(&mut self.scratch);
        cands.clear();
        self.work.for_nodes_within(p, self.radius, |m| {
            let meta = &self.work.meta[m as usize];
            if m != from && meta.pass == self.pass && !meta.blocked && g.degree(m) < max_degree {
                let d = g.pos(m) - p;
                let len = d.length();
                if len > 0.0 {
                    let score = self.params.align_weight * 0.5 * (1.0 - d.dot(dir) / len)
                        + self.params.distance_weight * len / self.radius;
                    cands.push((score, m));
                }
            }
        });
        cands.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let found = cands.iter().map(|&(_, m)| m).find(|&m| {
            let q = g.pos(m);
            let u = (q - p).normalize();
            g.edge_between(from, m).is_none()
                && self.angle_ok(from, u)
                && self.angle_ok(m, -u)
                && !g.shares_neighbour(from, m)
                && self.region.contains(p.lerp(q, 0.5))
                && !g.crosses(p, q, [Some(from), Some(m)])
        });
        self.scratch = cands;
        found
    }
}
