//! What [`PlanarGraph`] derives: its connected parts, subgraphs, split
//! edges and faces by the rightmost-turn walk.

use super::{Edge, Face, NodeId, PlanarGraph};
use crate::geom::bounds;
use glam::DVec2;

impl PlanarGraph {
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

    /// Bounding box of the nodes.
    pub fn bounds(&self) -> (DVec2, DVec2) {
        bounds(&self.nodes)
    }
}

/// Pieces one edge may be split into at most.
pub const MAX_SPLIT: usize = 4096;
