//! The compact routing graph: nodes at junctions and road ends, one edge per
//! road piece between consecutive nodes, in CSR form, and the Dijkstra search
//! over it.

use super::RouteCost;
use crate::network::{RoadClass, RoadNetwork, point_key};
use glam::{DVec2, DVec3};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// No predecessor / no node.
const NONE: u32 = u32::MAX;

/// The default [`RouteParams::level_gap`](super::RouteParams::level_gap)
/// (m): the earthworks' default `separation`, from which on the world
/// bridges one road over the other instead of joining them.
pub const LEVEL_GAP: f64 = 7.0;

/// The slowest a grade makes anything: this fraction of the flat speed.
const MIN_GRADE_FACTOR: f64 = 0.3;

/// How much a grade slows travel on `class`: `max(0.3, 1 − k·|grade|)` of
/// the flat speed, with `k` = 3 for vehicles (a 10 % grade: 70 %) and 2 on
/// paths (walkers); a vertical step (no horizontal run) takes the floor.
pub fn grade_factor(class: RoadClass, grade: f64) -> f64 {
    let k = if class == RoadClass::Path { 2.0 } else { 3.0 };
    let f = 1.0 - k * grade.abs();
    if f.is_nan() {
        MIN_GRADE_FACTOR
    } else {
        f.max(MIN_GRADE_FACTOR)
    }
}

/// One stretch of a road between two consecutive nodes along it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Piece {
    pub road: u32,
    /// Its first and last vertex (road-local indices, `k0 < k1`).
    pub k0: u32,
    pub k1: u32,
    /// The nodes at `k0` and `k1`.
    pub a: u32,
    pub b: u32,
}

/// The routing graph of a network (see [`Router`](super::Router)): nodes at
/// junctions and road ends, an edge per road piece between them (both ways)
/// with its 3D length and travel time. Exposed so benchmarks and tools can
/// run other searches on the very same graph.
#[derive(Clone, Debug, Default)]
pub struct RouteGraph {
    /// Node positions.
    pos: Vec<DVec2>,
    /// CSR: node `n`'s edges are `first_edge[n]..first_edge[n + 1]`.
    first_edge: Vec<u32>,
    to: Vec<u32>,
    /// Per edge: 3D length (m) and time (s).
    length: Vec<f64>,
    time: Vec<f64>,
    /// Per edge: its piece `<< 1`, with bit 0 set when it runs `b → a`.
    edge_piece: Vec<u32>,
    pub(super) pieces: Vec<Piece>,
    /// Road `r`'s pieces are `first_piece[r]..first_piece[r + 1]`.
    pub(super) first_piece: Vec<u32>,
    /// Every usable road's vertices with their heights, road by road: road
    /// `r`'s are `first_vertex[r]..first_vertex[r + 1]`.
    pub(super) xyz: Vec<DVec3>,
    pub(super) first_vertex: Vec<u32>,
    /// Per vertex: cumulative 3D length and time from its road's start.
    pub(super) cum_length: Vec<f64>,
    pub(super) cum_time: Vec<f64>,
}

/// A search's answer: the best total, which target it ended at (`None`:
/// the direct way won) and the edges taken, in order, from the source node.
pub(super) struct Found {
    pub total: f64,
    pub target: Option<usize>,
    pub source: usize,
    pub edges: Vec<u32>,
}

impl RouteGraph {
    /// Builds the graph (work near-linear in the vertices). Roads with fewer
    /// than two points or a non-finite point are left out; a profile with a
    /// non-finite height, or of the wrong length, counts as none (z = 0).
    /// Roads sharing a vertex that is a junction or a road end meet there,
    /// unless their profile heights there are `level_gap` or more apart (an
    /// overpass sharing the top road's vertex): the heights there, sorted,
    /// split into levels wherever one is `level_gap` above the last, and
    /// each level is its own node; a road without a profile joins the
    /// lowest.
    pub(super) fn new<'a>(net: &'a RoadNetwork, level_gap: f64) -> Self {
        let usable = |r: &crate::network::Road| {
            r.points.len() >= 2 && r.points.iter().all(|p| p.is_finite())
        };
        let profile = |r: &'a crate::network::Road| {
            (r.has_profile() && r.z.iter().all(|z| z.is_finite())).then_some(r.z.as_slice())
        };
        // Node positions: junctions and road ends, by their exact bits.
        let mut keys: Vec<(u64, u64)> = net.junctions.iter().map(|j| point_key(j.pos)).collect();
        for r in net.roads.iter().filter(|r| usable(r)) {
            keys.push(point_key(r.points[0]));
            keys.push(point_key(r.points[r.points.len() - 1]));
        }
        keys.sort_unstable();
        keys.dedup();
        // Every vertex at a node position: (road, vertex, position, height).
        let mut hits: Vec<(u32, u32, u32, Option<f64>)> = Vec::new();
        let mut profiles: Vec<Option<&[f64]>> = Vec::with_capacity(net.roads.len());
        for (i, r) in net.roads.iter().enumerate() {
            profiles.push(if usable(r) { profile(r) } else { None });
            if !usable(r) {
                continue;
            }
            let z = profiles[i];
            for (k, &p) in r.points.iter().enumerate() {
                if let Ok(at) = keys.binary_search(&point_key(p)) {
                    hits.push((i as u32, k as u32, at as u32, z.map(|z| z[k])));
                }
            }
        }
        // The levels at each position: heights sorted, split at gaps.
        let mut heights: Vec<(u32, f64)> =
            (hits.iter()).filter_map(|h| Some((h.2, h.3?))).collect();
        heights.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
        let mut first_level = Vec::with_capacity(keys.len() + 1);
        let mut lows: Vec<f64> = Vec::with_capacity(keys.len());
        let mut pos = Vec::with_capacity(keys.len());
        let mut h = 0;
        for (at, key) in keys.iter().enumerate() {
            first_level.push(lows.len() as u32);
            let mut prev = None;
            while h < heights.len() && heights[h].0 as usize == at {
                let z = heights[h].1;
                if prev.is_none_or(|p: f64| z - p >= level_gap) {
                    lows.push(z);
                }
                prev = Some(z);
                h += 1;
            }
            if prev.is_none() {
                lows.push(f64::NEG_INFINITY);
            }
            let n = lows.len() - pos.len();
            pos.extend(std::iter::repeat_n(
                DVec2::new(f64::from_bits(key.0), f64::from_bits(key.1)),
                n,
            ));
        }
        first_level.push(lows.len() as u32);
        let node_of = |at: u32, z: Option<f64>| {
            let (lo, hi) = (
                first_level[at as usize] as usize,
                first_level[at as usize + 1] as usize,
            );
            let up = z.map_or(0, |z| lows[lo..hi].partition_point(|&l| l <= z));
            (lo + up.saturating_sub(1)) as u32
        };
        let mut hit = hits.iter().peekable();
        let mut g = Self {
            pos,
            first_piece: Vec::with_capacity(net.roads.len() + 1),
            first_vertex: Vec::with_capacity(net.roads.len() + 1),
            ..Self::default()
        };
        for (i, r) in net.roads.iter().enumerate() {
            g.first_piece.push(g.pieces.len() as u32);
            g.first_vertex.push(g.xyz.len() as u32);
            if !usable(r) {
                continue;
            }
            let z = profiles[i];
            let (speed, base) = (r.class.speed(), g.xyz.len());
            let (mut len, mut time) = (0.0, 0.0);
            let (mut k0, mut a) = (0u32, NONE);
            for (k, &p) in r.points.iter().enumerate() {
                let q = p.extend(z.map_or(0.0, |z| z[k]));
                if k > 0 {
                    let prev = g.xyz[base + k - 1];
                    let (run, rise) = (prev.truncate().distance(p), (q.z - prev.z).abs());
                    let l = prev.distance(q);
                    len += l;
                    if l > 0.0 {
                        time += l / (speed * grade_factor(r.class, rise / run));
                    }
                }
                g.xyz.push(q);
                g.cum_length.push(len);
                g.cum_time.push(time);
                let Some(&(_, _, at, hz)) = hit.next_if(|h| (h.0, h.1) == (i as u32, k as u32))
                else {
                    continue;
                };
                let n = node_of(at, hz);
                if a != NONE {
                    g.pieces.push(Piece {
                        road: i as u32,
                        k0,
                        k1: k as u32,
                        a,
                        b: n,
                    });
                }
                (k0, a) = (k as u32, n);
            }
        }
        g.first_piece.push(g.pieces.len() as u32);
        g.first_vertex.push(g.xyz.len() as u32);
        g.build_csr();
        g
    }

    /// Fills the CSR from the pieces: both ways, in piece order; a piece
    /// returning to its own node, or with a non-finite cost, gets no edge.
    fn build_csr(&mut self) {
        let mut degree = vec![0u32; self.pos.len() + 1];
        let costs: Vec<Option<(f64, f64)>> = (0..self.pieces.len())
            .map(|i| {
                let p = self.pieces[i];
                let (l, t) = self.piece_cost(i);
                (p.a != p.b && l.is_finite() && t.is_finite()).then_some((l, t))
            })
            .collect();
        for (p, c) in self.pieces.iter().zip(&costs) {
            if c.is_some() {
                degree[p.a as usize] += 1;
                degree[p.b as usize] += 1;
            }
        }
        let mut acc = 0u32;
        self.first_edge = (degree.iter())
            .map(|&d| {
                let s = acc;
                acc += d;
                s
            })
            .collect();
        let m = acc as usize;
        (self.to, self.edge_piece) = (vec![NONE; m], vec![0; m]);
        (self.length, self.time) = (vec![0.0; m], vec![0.0; m]);
        let mut fill = self.first_edge.clone();
        for (i, (p, c)) in self.pieces.iter().zip(&costs).enumerate() {
            let Some((l, t)) = *c else { continue };
            for (from, to, back) in [(p.a, p.b, 0), (p.b, p.a, 1)] {
                let e = fill[from as usize] as usize;
                fill[from as usize] += 1;
                self.to[e] = to;
                self.edge_piece[e] = (i as u32) << 1 | back;
                (self.length[e], self.time[e]) = (l, t);
            }
        }
    }

    /// A piece's 3D length and time.
    fn piece_cost(&self, i: usize) -> (f64, f64) {
        let p = self.pieces[i];
        let base = self.first_vertex[p.road as usize] as usize;
        let (v0, v1) = (base + p.k0 as usize, base + p.k1 as usize);
        (
            self.cum_length[v1] - self.cum_length[v0],
            self.cum_time[v1] - self.cum_time[v0],
        )
    }

    /// Per node, its connected component along the edges: the lowest node
    /// index in it.
    pub(super) fn components(&self) -> Vec<u32> {
        let n = self.pos.len();
        let mut comp = vec![NONE; n];
        let mut stack = Vec::new();
        for start in 0..n {
            if comp[start] != NONE {
                continue;
            }
            comp[start] = start as u32;
            stack.push(start as u32);
            while let Some(u) = stack.pop() {
                for (v, _, _) in self.edges(u as usize) {
                    if comp[v as usize] == NONE {
                        comp[v as usize] = start as u32;
                        stack.push(v);
                    }
                }
            }
        }
        comp
    }

    /// The number of nodes.
    pub fn node_count(&self) -> usize {
        self.pos.len()
    }

    /// The number of directed edges (two per piece).
    pub fn edge_count(&self) -> usize {
        self.to.len()
    }

    /// A node's position.
    pub fn node_pos(&self, n: usize) -> DVec2 {
        self.pos[n]
    }

    /// A node's edges: `(neighbour, 3D length m, time s)`, in a fixed order.
    pub fn edges(&self, n: usize) -> impl Iterator<Item = (u32, f64, f64)> + '_ {
        let r = self.first_edge[n] as usize..self.first_edge[n + 1] as usize;
        r.map(move |e| (self.to[e], self.length[e], self.time[e]))
    }

    /// The cheapest way from node `from` to node `to`: its cost and its
    /// nodes (both ends included); `None` when unreachable or out of range.
    pub fn shortest_path(
        &self,
        from: usize,
        to: usize,
        cost: RouteCost,
    ) -> Option<(f64, Vec<u32>)> {
        let n = self.pos.len();
        if from >= n || to >= n {
            return None;
        }
        let found = self.search(
            cost,
            &[(from as u32, 0.0)],
            &[(to as u32, 0.0)],
            f64::INFINITY,
        )?;
        let mut nodes = vec![from as u32];
        nodes.extend(found.edges.iter().map(|&e| self.to[e as usize]));
        Some((found.total, nodes))
    }

    /// The piece an edge runs along, and whether it runs `b → a`.
    pub(super) fn edge_piece(&self, e: u32) -> (Piece, bool) {
        let v = self.edge_piece[e as usize];
        (self.pieces[(v >> 1) as usize], v & 1 == 1)
    }

    /// Multi-source Dijkstra: start at `sources` (node, initial cost), end at
    /// the cheapest `target` (node, cost from it to the end), unless nothing
    /// beats `direct`. Each node is settled at most once and the heap holds
    /// at most one entry per edge relaxed, so the loop is bounded by the
    /// edges. Ties go to the lower node index, then the first edge found.
    pub(super) fn search(
        &self,
        cost: RouteCost,
        sources: &[(u32, f64)],
        targets: &[(u32, f64)],
        direct: f64,
    ) -> Option<Found> {
        let w = match cost {
            RouteCost::Length => &self.length,
            RouteCost::Time => &self.time,
        };
        let n = self.pos.len();
        let mut dist = vec![f64::INFINITY; n];
        let mut pred = vec![NONE; n];
        let mut done = vec![false; n];
        // Costs are finite and non-negative, so their bits order as they do.
        let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
        for &(s, c) in sources {
            if (s as usize) < n && c.is_finite() && c < dist[s as usize] {
                dist[s as usize] = c.max(0.0);
                heap.push(Reverse((dist[s as usize].to_bits(), s)));
            }
        }
        let (mut best, mut target) = (direct, None);
        while let Some(Reverse((key, u))) = heap.pop() {
            let d = f64::from_bits(key);
            if d >= best {
                break;
            }
            let ui = u as usize;
            if done[ui] || key != dist[ui].to_bits() {
                continue;
            }
            done[ui] = true;
            for (i, &(t, c)) in targets.iter().enumerate() {
                if t == u && d + c < best {
                    (best, target) = (d + c, Some(i));
                }
            }
            let edges = self.first_edge[ui] as usize..self.first_edge[ui + 1] as usize;
            let out = self.to[edges.clone()].iter().zip(&w[edges.clone()]);
            for (e, (&v, &c)) in edges.zip(out) {
                let (nd, vi) = (d + c, v as usize);
                if nd < dist[vi] && !done[vi] {
                    dist[vi] = nd;
                    pred[vi] = e as u32;
                    heap.push(Reverse((nd.to_bits(), v)));
                }
            }
        }
        if !best.is_finite() {
            return None;
        }
        let Some(ti) = target else {
            return Some(Found {
                total: best,
                target: None,
                source: 0,
                edges: Vec::new(),
            });
        };
        // Back from the target along the predecessors, to a source node.
        let mut edges = Vec::new();
        let mut at = targets[ti].0;
        while pred[at as usize] != NONE && edges.len() < n {
            let e = pred[at as usize];
            edges.push(e);
            at = self.edge_from(e);
        }
        edges.reverse();
        // The source that set the root's cost (the first, on a tie).
        let source = (0..sources.len())
            .filter(|&i| sources[i].0 == at && sources[i].1.max(0.0) == dist[at as usize])
            .min()?;
        Some(Found {
            total: best,
            target: Some(ti),
            source,
            edges,
        })
    }

    /// The node an edge leaves from.
    fn edge_from(&self, e: u32) -> u32 {
        let (p, back) = self.edge_piece(e);
        if back { p.b } else { p.a }
    }
}
