//! [`PlanarGraph`]: the one planar-graph type of the street generators —
//! nodes, undirected labelled edges, a grid index answering "does this
//! segment cross an edge?" and "which nodes lie within r?" from the cells
//! near the question, and faces by the rightmost-turn walk.

use super::{Contact, segment_contact};
use glam::DVec2;
use index::Index;

mod derive;
mod index;
#[cfg(test)]
pub(crate) mod tests;

pub use derive::MAX_SPLIT;

/// Index of a node in a [`PlanarGraph`].
pub type NodeId = u32;

/// One undirected edge: its two nodes and a label the caller gives it (a
/// street level, "ring", "fixed road", "obstacle"…).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The two ends (never equal).
    pub ends: [NodeId; 2],
    /// The caller's label.
    pub label: u32,
}

/// A straight-line planar graph with a grid index over nodes and edges.
///
/// The graph itself does not refuse crossing edges: generators ask
/// [`crosses`](Self::crosses) first (the article's one hard rule), and
/// [`check_planar`](Self::check_planar) verifies the result.
#[derive(Clone, Debug)]
pub struct PlanarGraph {
    cell: f64,
    nodes: Vec<DVec2>,
    /// Per node, the edges at it (edge ids, in insertion order).
    incident: Vec<Vec<u32>>,
    edges: Vec<Edge>,
    node_cells: Index,
    edge_cells: Index,
}

/// One face of a [`PlanarGraph`]: the nodes met walking its boundary with
/// the face on the left (bounded faces counter-clockwise; a node appears
/// twice where a dangling street enters the face).
#[derive(Clone, Debug, PartialEq)]
pub struct Face {
    /// The boundary walk.
    pub nodes: Vec<NodeId>,
    /// The walk's directed edges `(edge id, forward)`, parallel to `nodes`:
    /// entry `i` leads from `nodes[i]` to `nodes[i + 1]` (cyclically).
    pub edges: Vec<(u32, bool)>,
    /// Signed area (positive for bounded faces, ≤ 0 for an outer face).
    pub area: f64,
}

impl Face {
    /// Whether this is the outer face of its connected part.
    pub fn is_outer(&self) -> bool {
        self.area <= 0.0
    }
}

impl PlanarGraph {
    /// An empty graph indexed with square cells of side `cell` (about the
    /// longest edge or query radius works well).
    pub fn new(cell: f64) -> Self {
        Self {
            cell: if cell.is_finite() && cell > 0.0 {
                cell
            } else {
                1.0
            },
            nodes: Vec::new(),
            incident: Vec::new(),
            edges: Vec::new(),
            node_cells: Index::default(),
            edge_cells: Index::default(),
        }
    }

    /// Calls `f` on each cell an edge `p–q` is filed in: the cells of its
    /// bounding box when they are at most 3 × 3 (no search along it, a few
    /// spare cells at most), else the cells along it.
    fn for_edge_cells(&self, p: DVec2, q: DVec2, mut f: impl FnMut((i64, i64))) {
        let (lo, hi) = (self.key(p.min(q)), self.key(p.max(q)));
        if hi.0 - lo.0 < 3 && hi.1 - lo.1 < 3 {
            for y in lo.1..=hi.1 {
                for x in lo.0..=hi.0 {
                    f((x, y));
                }
            }
        } else {
            super::cells_along_segment(p, q, self.cell, 0.0)
                .into_iter()
                .for_each(f);
        }
    }

    fn key(&self, p: DVec2) -> (i64, i64) {
        (
            crate::num::floor_i64(p.x / self.cell),
            crate::num::floor_i64(p.y / self.cell),
        )
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of edges.
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Node positions.
    pub fn nodes(&self) -> &[DVec2] {
        &self.nodes
    }

    /// Where node `n` is.
    pub fn pos(&self, n: NodeId) -> DVec2 {
        self.nodes[n as usize]
    }

    /// The edges.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// Degree of node `n`.
    pub fn degree(&self, n: NodeId) -> usize {
        self.incident[n as usize].len()
    }

    /// Edge ids at node `n`.
    pub fn incident(&self, n: NodeId) -> &[u32] {
        &self.incident[n as usize]
    }

    /// The neighbours of node `n` (in the order their edges were added).
    pub fn neighbours(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.incident[n as usize].iter().map(move |&e| {
            let [a, b] = self.edges[e as usize].ends;
            if a == n { b } else { a }
        })
    }

    /// The edge between `a` and `b`, if any.
    pub fn edge_between(&self, a: NodeId, b: NodeId) -> Option<u32> {
        let (x, y) = if self.degree(a) <= self.degree(b) {
            (a, b)
        } else {
            (b, a)
        };
        self.incident[x as usize]
            .iter()
            .copied()
            .find(|&e| self.edges[e as usize].ends.contains(&y))
    }

    /// Adds a node at `p` and returns its id (no check for a node already
    /// there: see [`nodes_within`](Self::nodes_within)).
    pub fn add_node(&mut self, p: DVec2) -> NodeId {
        let id = self.nodes.len() as NodeId;
        self.nodes.push(p);
        self.incident.push(Vec::new());
        let k = self.key(p);
        self.node_cells.push(k, id);
        id
    }

    /// Adds the edge `a–b` with `label` and returns its id; `None` when
    /// `a == b` or the edge exists already.
    pub fn add_edge(&mut self, a: NodeId, b: NodeId, label: u32) -> Option<u32> {
        if a == b || self.edge_between(a, b).is_some() {
            return None;
        }
        let id = self.edges.len() as u32;
        self.edges.push(Edge {
            ends: [a, b],
            label,
        });
        self.incident[a as usize].push(id);
        self.incident[b as usize].push(id);
        let (p, q) = (self.pos(a), self.pos(b));
        let mut cells = std::mem::take(&mut self.edge_cells);
        self.for_edge_cells(p, q, |k| cells.push(k, id));
        self.edge_cells = cells;
        Some(id)
    }

    /// Nodes within distance `r` of `p` (inclusive), ascending by id.
    pub fn nodes_within(&self, p: DVec2, r: f64) -> Vec<NodeId> {
        let mut out = Vec::new();
        self.for_nodes_within(p, r, |n| out.push(n));
        out.sort_unstable();
        out
    }

    /// Calls `f` on each node within distance `r` of `p` (inclusive), in
    /// an order that depends only on the graph (no allocation).
    pub fn for_nodes_within(&self, p: DVec2, r: f64, mut f: impl FnMut(NodeId)) {
        if !(r >= 0.0 && r.is_finite()) {
            return;
        }
        let (lo, hi) = (self.key(p - DVec2::splat(r)), self.key(p + DVec2::splat(r)));
        self.node_cells.any_in(lo, hi, |n| {
            if self.pos(n).distance_squared(p) <= r * r {
                f(n);
            }
            false
        });
    }

    /// Whether any node lies closer than `r` to `p` (strictly).
    pub fn any_node_closer(&self, p: DVec2, r: f64) -> bool {
        let (lo, hi) = (self.key(p - DVec2::splat(r)), self.key(p + DVec2::splat(r)));
        (self.node_cells).any_in(lo, hi, |n| self.pos(n).distance_squared(p) < r * r)
    }

    /// Edge ids filed in the cells along segment `p–q`, ascending, once each.
    pub fn edges_near(&self, p: DVec2, q: DVec2) -> Vec<u32> {
        let mut out = Vec::new();
        self.for_edge_cells(p, q, |k| {
            self.edge_cells.any_in(k, k, |e| {
                out.push(e);
                false
            });
        });
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether the segment `p–q` would cross the graph: touch or cross any
    /// edge, or pass through any node, anywhere except where an edge meets
    /// the segment's own end nodes `ends` at that node (decided exactly). A
    /// collinear overlap always counts as a crossing.
    pub fn crosses(&self, p: DVec2, q: DVec2, ends: [Option<NodeId>; 2]) -> bool {
        let (lo, hi) = (p.min(q), p.max(q));
        self.edges_near(p, q).into_iter().any(|e| {
            let [a, b] = self.edges[e as usize].ends;
            let (pa, pb) = (self.pos(a), self.pos(b));
            // Boxes apart: no contact (the exact test only where they meet).
            if pa.max(pb).cmplt(lo).any() || pa.min(pb).cmpgt(hi).any() {
                return false;
            }
            match segment_contact(p, q, pa, pb) {
                None => false,
                Some(Contact::Overlap { .. }) => true,
                Some(Contact::Point { t, u }) => {
                    // Allowed only at a shared end node.
                    let shared = |node: NodeId, at_t: f64| {
                        ends[if at_t == 0.0 { 0 } else { 1 }] == Some(node)
                    };
                    let ok = (t == 0.0 || t == 1.0)
                        && ((u == 0.0 && shared(a, t)) || (u == 1.0 && shared(b, t)));
                    !ok
                }
            }
        })
    }

    /// Whether nodes `a` and `b` have a common neighbour (an edge `a–b` would
    /// close a triangle).
    pub fn shares_neighbour(&self, a: NodeId, b: NodeId) -> bool {
        self.neighbours(a)
            .any(|n| n != b && self.edge_between(n, b).is_some())
    }

    /// The smallest angle (radians) the direction `dir` from node `n` makes
    /// with any edge already at `n`; π for a node with no edges.
    pub fn min_angle_at(&self, n: NodeId, dir: DVec2) -> f64 {
        let p = self.pos(n);
        let d = dir.normalize_or_zero();
        self.neighbours(n)
            .map(|m| {
                let e = (self.pos(m) - p).normalize_or_zero();
                d.dot(e).clamp(-1.0, 1.0).acos()
            })
            .fold(std::f64::consts::PI, f64::min)
    }

    /// Checks that no two edges touch away from a shared end node (and that
    /// no edge passes through a node): the first offending pair, if any.
    pub fn check_planar(&self) -> Result<(), (u32, u32)> {
        for (i, e) in self.edges.iter().enumerate() {
            let [a, b] = e.ends;
            for j in self.edges_near(self.pos(a), self.pos(b)) {
                if j as usize <= i {
                    continue;
                }
                let [c, d] = self.edges[j as usize].ends;
                let contact = segment_contact(self.pos(a), self.pos(b), self.pos(c), self.pos(d));
                let bad = match contact {
                    None => false,
                    Some(Contact::Overlap { .. }) => true,
                    Some(Contact::Point { t, u }) => {
                        let at = |n: NodeId| [a, b][(t == 1.0) as usize] == n;
                        !((t == 0.0 || t == 1.0) && ((u == 0.0 && at(c)) || (u == 1.0 && at(d))))
                    }
                };
                if bad {
                    return Err((i as u32, j));
                }
            }
        }
        Ok(())
    }
}
