//! [`PlanarGraph`]: the one planar-graph type of the street generators —
//! nodes, undirected labelled edges, a grid index answering "does this
//! segment cross an edge?" and "which nodes lie within r?" from the cells
//! near the question, and faces by the rightmost-turn walk.

use super::{Contact, bounds, segment_contact};
use crate::num::FastHash;
use crate::roads::{Road, RoadClass, RoadNetwork};
use glam::DVec2;
use std::collections::HashMap;

/// Grid cells to the ids filed in them (looked up, never iterated).
type Cells = HashMap<(i64, i64), Vec<u32>, FastHash>;

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
/// [`check_planar`](Self::check_planar) verifies the result. The index maps
/// are only looked up, never iterated, so nothing depends on hash order.
#[derive(Clone, Debug)]
pub struct PlanarGraph {
    cell: f64,
    nodes: Vec<DVec2>,
    /// Per node, the edges at it (edge ids, in insertion order).
    incident: Vec<Vec<u32>>,
    edges: Vec<Edge>,
    node_cells: Cells,
    edge_cells: Cells,
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
            node_cells: Cells::default(),
            edge_cells: Cells::default(),
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
        self.node_cells.entry(k).or_default().push(id);
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
        self.for_edge_cells(p, q, |k| cells.entry(k).or_default().push(id));
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
        for y in lo.1..=hi.1 {
            for x in lo.0..=hi.0 {
                if let Some(ns) = self.node_cells.get(&(x, y)) {
                    for &n in ns {
                        if self.pos(n).distance_squared(p) <= r * r {
                            f(n);
                        }
                    }
                }
            }
        }
    }

    /// Whether any node lies closer than `r` to `p` (strictly).
    pub fn any_node_closer(&self, p: DVec2, r: f64) -> bool {
        let (lo, hi) = (self.key(p - DVec2::splat(r)), self.key(p + DVec2::splat(r)));
        (lo.1..=hi.1).any(|y| {
            (lo.0..=hi.0).any(|x| {
                self.node_cells
                    .get(&(x, y))
                    .is_some_and(|ns| ns.iter().any(|&n| self.pos(n).distance_squared(p) < r * r))
            })
        })
    }

    /// Edge ids filed in the cells along segment `p–q`, ascending, once each.
    pub fn edges_near(&self, p: DVec2, q: DVec2) -> Vec<u32> {
        let mut out = Vec::new();
        self.for_edge_cells(p, q, |k| {
            if let Some(es) = self.edge_cells.get(&k) {
                out.extend_from_slice(es);
            }
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

    /// Connected parts: a part number per node (isolated nodes get their
    /// own), numbered in order of their smallest node.
    pub fn components(&self) -> Vec<u32> {
        let mut part = vec![u32::MAX; self.nodes.len()];
        let mut next = 0;
        let mut stack = Vec::new();
        for s in 0..self.nodes.len() {
            if part[s] != u32::MAX {
                continue;
            }
            part[s] = next;
            stack.push(s as NodeId);
            while let Some(n) = stack.pop() {
                for m in self.neighbours(n).collect::<Vec<_>>() {
                    if part[m as usize] == u32::MAX {
                        part[m as usize] = next;
                        stack.push(m);
                    }
                }
            }
            next += 1;
        }
        part
    }

    /// The graph with only the nodes where `keep` is true (and the edges
    /// between them), ids renumbered in order; also the old-to-new map.
    pub fn retain_nodes(&self, keep: impl Fn(NodeId) -> bool) -> (Self, Vec<Option<NodeId>>) {
        let mut g = Self::new(self.cell);
        let map: Vec<Option<NodeId>> = (0..self.nodes.len() as NodeId)
            .map(|n| keep(n).then(|| g.add_node(self.pos(n))))
            .collect();
        for e in &self.edges {
            if let (Some(a), Some(b)) = (map[e.ends[0] as usize], map[e.ends[1] as usize]) {
                g.add_edge(a, b, e.label);
            }
        }
        (g, map)
    }

    /// The graph with only the edges where `keep` is true (all nodes kept).
    pub fn retain_edges(&self, keep: impl Fn(&Edge) -> bool) -> Self {
        let mut g = Self::new(self.cell);
        for &p in &self.nodes {
            g.add_node(p);
        }
        for e in self.edges.iter().filter(|e| keep(e)) {
            g.add_edge(e.ends[0], e.ends[1], e.label);
        }
        g
    }

    /// Splits every edge for which `len(label)` is `Some(l)` into equal
    /// pieces no longer than `l` (new nodes on the edge, same label); other
    /// edges stay whole. Edge ids change; node ids are kept and new nodes
    /// come after them.
    pub fn split_edges(&self, len: impl Fn(u32) -> Option<f64>) -> Self {
        let mut g = Self::new(self.cell);
        for &p in &self.nodes {
            g.add_node(p);
        }
        for e in &self.edges {
            let [a, b] = e.ends;
            let (p, q) = (self.pos(a), self.pos(b));
            let pieces = match len(e.label) {
                Some(l) if l > 0.0 && l.is_finite() => {
                    ((p.distance(q) / l).ceil() as usize).clamp(1, MAX_SPLIT)
                }
                _ => 1,
            };
            let mut prev = a;
            for k in 1..pieces {
                let n = g.add_node(p.lerp(q, k as f64 / pieces as f64));
                g.add_edge(prev, n, e.label);
                prev = n;
            }
            g.add_edge(prev, b, e.label);
        }
        g
    }

    /// Every face, by the rightmost-turn walk: each directed edge is used
    /// exactly once, each face keeps the walked side on its left. Bounded
    /// faces have positive area; each connected part with an edge has one
    /// outer face (area ≤ 0). Faces come in order of their first directed
    /// edge, so the result depends only on the graph.
    pub fn faces(&self) -> Vec<Face> {
        // Each node's edges sorted counter-clockwise by direction, all in
        // one vector (node `n`'s at `first[n]..first[n + 1]`); `slot[e][k]`
        // is where edge `e` sits among the edges of its end `ends[k]`.
        let mut first = Vec::with_capacity(self.nodes.len() + 1);
        let mut order: Vec<u32> = Vec::with_capacity(2 * self.edges.len());
        let mut slot = vec![[0u32; 2]; self.edges.len()];
        let mut es: Vec<(f64, u32)> = Vec::new();
        for (n, &p) in self.nodes.iter().enumerate() {
            first.push(order.len());
            es.clear();
            es.extend(self.incident[n].iter().map(|&e| {
                let d = self.pos(self.other(e, n as NodeId)) - p;
                (d.y.atan2(d.x), e)
            }));
            es.sort_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));
            for (i, &(_, e)) in es.iter().enumerate() {
                let k = (self.edges[e as usize].ends[0] != n as NodeId) as usize;
                slot[e as usize][k] = i as u32;
                order.push(e);
            }
        }
        first.push(order.len());
        let mut used = vec![[false; 2]; self.edges.len()];
        let mut faces = Vec::new();
        // The walk so far (copied out at its end: no regrowing per face).
        let (mut nodes, mut edges) = (Vec::new(), Vec::new());
        for start in 0..self.edges.len() {
            for fwd in [true, false] {
                if used[start][!fwd as usize] {
                    continue;
                }
                nodes.clear();
                edges.clear();
                let mut area = 0.0;
                let (mut e, mut f) = (start as u32, fwd);
                // A walk uses each directed edge once: at most 2·E steps.
                for _ in 0..2 * self.edges.len() {
                    if used[e as usize][!f as usize] {
                        break;
                    }
                    used[e as usize][!f as usize] = true;
                    let [a, b] = self.edges[e as usize].ends;
                    let (from, to) = if f { (a, b) } else { (b, a) };
                    nodes.push(from);
                    edges.push((e, f));
                    area += self.pos(from).perp_dot(self.pos(to));
                    // At `to` (end `f` of `e`), the next edge clockwise
                    // from the way back.
                    let es = &order[first[to as usize]..first[to as usize + 1]];
                    let i = slot[e as usize][f as usize] as usize;
                    let next = es[(i + es.len() - 1) % es.len()];
                    f = self.edges[next as usize].ends[0] == to;
                    e = next;
                }
                faces.push(Face {
                    nodes: nodes.clone(),
                    edges: edges.clone(),
                    area: area * 0.5,
                });
            }
        }
        faces
    }

    /// The node at the other end of edge `e` from `n`.
    pub fn other(&self, e: u32, n: NodeId) -> NodeId {
        let [a, b] = self.edges[e as usize].ends;
        if a == n { b } else { a }
    }

    /// The polygon of a face (its nodes' positions).
    pub fn face_polygon(&self, face: &Face) -> Vec<DVec2> {
        face.nodes.iter().map(|&n| self.pos(n)).collect()
    }

    /// A graph from a network: a node at every distinct vertex (exact
    /// position), an edge for every segment, labelled with its road's index.
    pub fn from_network(net: &RoadNetwork, cell: f64) -> Self {
        let mut g = Self::new(cell);
        let mut ids: HashMap<(u64, u64), NodeId> = HashMap::new();
        let mut node = |g: &mut Self, p: DVec2| {
            let p = p + DVec2::ZERO; // −0 becomes +0
            *ids.entry((p.x.to_bits(), p.y.to_bits()))
                .or_insert_with(|| g.add_node(p))
        };
        for (i, r) in net.roads.iter().enumerate() {
            for w in r.points.windows(2) {
                let (a, b) = (node(&mut g, w[0]), node(&mut g, w[1]));
                g.add_edge(a, b, i as u32);
            }
        }
        g
    }

    /// The graph as a network: each maximal chain of edges with one label
    /// through nodes of degree 2 becomes one road, styled by `style(label)`
    /// (`None` leaves those edges out). Roads come in order of their first
    /// edge; closed loops start at their smallest node.
    pub fn to_network(&self, style: impl Fn(u32) -> Option<(RoadClass, f64)>) -> RoadNetwork {
        let mut done = vec![false; self.edges.len()];
        let mut roads = Vec::new();
        // The node of every road vertex, in order (for the junctions), and
        // the road being walked.
        let (mut seq, mut points) = (Vec::new(), Vec::new());
        // Whether a chain passes straight through node `n`.
        let through = |n: NodeId, label: u32| {
            self.degree(n) == 2
                && self.incident[n as usize]
                    .iter()
                    .all(|&e| self.edges[e as usize].label == label)
        };
        for start in 0..self.edges.len() {
            if done[start] {
                continue;
            }
            let label = self.edges[start].label;
            let Some((class, width)) = style(label) else {
                done[start] = true;
                continue;
            };
            // Walk back to the chain's first node, then forward collecting.
            let (mut e, mut n) = (start as u32, self.edges[start].ends[0]);
            for _ in 0..self.edges.len() {
                if !through(n, label) {
                    break;
                }
                let prev = self.incident[n as usize]
                    .iter()
                    .copied()
                    .find(|&x| x != e)
                    .unwrap_or(e);
                if prev == start as u32 {
                    break; // a closed loop
                }
                n = self.other(prev, n);
                e = prev;
            }
            points.clear();
            points.push(self.pos(n));
            seq.push(n);
            for _ in 0..self.edges.len() {
                done[e as usize] = true;
                n = self.other(e, n);
                points.push(self.pos(n));
                seq.push(n);
                if !through(n, label) {
                    break;
                }
                let Some(next) = self.incident[n as usize]
                    .iter()
                    .copied()
                    .find(|&x| x != e && !done[x as usize])
                else {
                    break;
                };
                e = next;
            }
            roads.push(Road {
                points: points.clone(),
                class,
                width,
            });
        }
        RoadNetwork::from_node_roads(roads, &self.nodes, &seq)
    }

    /// Bounding box of the nodes.
    pub fn bounds(&self) -> (DVec2, DVec2) {
        bounds(&self.nodes)
    }
}

/// Pieces one edge may be split into at most.
pub const MAX_SPLIT: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    fn square() -> PlanarGraph {
        let mut g = PlanarGraph::new(10.0);
        let ns: Vec<_> = [(0., 0.), (10., 0.), (10., 10.), (0., 10.)]
            .map(|(x, y)| g.add_node(DVec2::new(x, y)))
            .into();
        for i in 0..4 {
            g.add_edge(ns[i], ns[(i + 1) % 4], 0).unwrap();
        }
        g
    }

    #[test]
    fn faces_of_a_square_with_a_diagonal_and_a_dangling_edge() {
        let mut g = square();
        g.add_edge(0, 2, 1).unwrap();
        let c = g.add_node(DVec2::new(20.0, 5.0));
        g.add_edge(1, c, 1).unwrap();
        let faces = g.faces();
        // Euler: V − E + F = 1 + C.
        assert_eq!(g.node_count() + faces.len(), g.edge_count() + 2);
        let mut areas: Vec<f64> = faces.iter().map(|f| f.area).collect();
        areas.sort_by(f64::total_cmp);
        assert_eq!(areas, vec![-100.0, 50.0, 50.0]);
        // Every directed edge once.
        let walked: usize = faces.iter().map(|f| f.edges.len()).sum();
        assert_eq!(walked, 2 * g.edge_count());
        // The outer face walks the dangling edge both ways.
        let outer = faces.iter().find(|f| f.is_outer()).unwrap();
        assert_eq!(outer.nodes.iter().filter(|&&n| n == c).count(), 1);
        assert_eq!(outer.nodes.iter().filter(|&&n| n == 1).count(), 2);
    }

    #[test]
    fn crossing_queries_allow_only_shared_ends() {
        let g = square();
        let p = |x, y| DVec2::new(x, y);
        // The diagonal meets the square only at its own end nodes.
        assert!(!g.crosses(p(0., 0.), p(10., 10.), [Some(0), Some(2)]));
        // Named wrongly, the same segment touches nodes it does not own.
        assert!(g.crosses(p(0., 0.), p(10., 10.), [None, Some(2)]));
        // Leaving the square crosses an edge; running along one overlaps.
        assert!(g.crosses(p(5., 5.), p(15., 5.), [None, None]));
        assert!(g.crosses(p(0., 0.), p(5., 0.), [Some(0), None]));
        assert!(!g.crosses(p(2., 2.), p(8., 8.), [None, None]));
        // Through a node.
        assert!(g.crosses(p(-5., -5.), p(5., 5.), [None, None]));
        assert_eq!(g.nodes_within(p(1., 1.), 2.0), vec![0]);
        assert!(g.any_node_closer(p(1., 1.), 1.5) && !g.any_node_closer(p(1., 1.), 1.4));
    }

    #[test]
    fn split_and_round_trip_through_a_network() {
        let g = square().split_edges(|_| Some(3.0));
        assert_eq!((g.node_count(), g.edge_count()), (16, 16));
        assert!(g.check_planar().is_ok());
        let net = g.to_network(|_| Some((RoadClass::Street, 6.0)));
        // One closed road of 17 points (the loop, first point repeated).
        assert_eq!(net.roads.len(), 1);
        assert_eq!(net.roads[0].points.len(), 17);
        assert!((net.roads[0].length() - 40.0).abs() < 1e-9);
        let back = PlanarGraph::from_network(&net, 10.0);
        assert_eq!((back.node_count(), back.edge_count()), (16, 16));
        assert_eq!(back.faces().len(), 2);
    }

    #[test]
    fn check_planar_finds_a_crossing_and_components_count_parts() {
        let mut g = square();
        g.add_edge(0, 2, 0).unwrap();
        g.add_edge(1, 3, 0).unwrap();
        assert!(g.check_planar().is_err());
        let lone = g.add_node(DVec2::new(50.0, 50.0));
        let parts = g.components();
        assert_eq!(parts[lone as usize], 1);
        assert!(parts[..4].iter().all(|&p| p == 0));
        let (h, map) = g.retain_nodes(|n| n != lone);
        assert_eq!((h.node_count(), h.edge_count(), map[4]), (4, 6, None));
    }
}
