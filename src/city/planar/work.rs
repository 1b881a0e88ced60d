//! The graph being built and what the generator knows of each node (where
//! it came from, whether streets may use it), with the steps between
//! levels: re-indexing, splitting edges, pruning; and the seeded random
//! numbers.

use super::StreetsError;
use crate::city::EdgeRole;
use crate::geom::{CellLists, NodeId, PlanarGraph};
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};

/// Most nodes a city may have (more is [`StreetsError::TooMuchWork`]).
pub const MAX_NODES: usize = 200_000;

/// Where a node came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Origin {
    /// The ring, a fixed road or an obstacle outline.
    Given,
    /// A seed of the input.
    Seed,
    /// Made by splitting an edge between levels.
    Split,
    /// Made by the node step of this level.
    Level(u8),
}

/// What the generator knows of a node.
#[derive(Clone, Copy, Debug)]
pub(super) struct Meta {
    /// Read by the tests' clearance check.
    #[cfg_attr(not(test), allow(dead_code))]
    pub origin: Origin,
    /// Streets may not use it (obstacle outlines, given nodes in obstacles).
    pub blocked: bool,
    /// A fixed road's end that a street must reach.
    pub gate: bool,
    /// Split number (seeds).
    pub split: f64,
    /// The last pass (face) that counted it as its own.
    pub pass: u32,
}

/// The graph and its nodes' [`Meta`], kept parallel, and a dense copy of
/// the node index for one level's queries.
#[derive(Clone, Debug)]
pub(super) struct Work {
    pub graph: PlanarGraph,
    pub meta: Vec<Meta>,
    grid: Option<NodeGrid>,
}

impl Work {
    /// Every node of `graph` gets `origin`.
    pub(super) fn new(graph: PlanarGraph, origin: Origin) -> Self {
        let meta = vec![Meta::new(origin, 0.0); graph.node_count()];
        Self {
            graph,
            meta,
            grid: None,
        }
    }

    /// Adds a node.
    pub(super) fn add_node(&mut self, p: DVec2, origin: Origin, split: f64) -> NodeId {
        self.meta.push(Meta::new(origin, split));
        let n = self.graph.add_node(p);
        if let Some(grid) = &mut self.grid {
            grid.insert(p, n);
        }
        n
    }

    /// Indexes the nodes in a dense grid of cells of side `cell` over
    /// `bounds` (the graph's own index answers outside it, or when the
    /// grid would be huge), until the graph is rebuilt.
    pub(super) fn index_nodes(&mut self, bounds: (DVec2, DVec2), cell: f64) {
        self.grid = NodeGrid::new(bounds, cell).map(|mut grid| {
            for (n, &p) in self.graph.nodes().iter().enumerate() {
                grid.insert(p, n as NodeId);
            }
            grid
        });
    }

    /// Whether any node lies closer than `r` to `p`.
    pub(super) fn any_node_closer(&self, p: DVec2, r: f64) -> bool {
        match &self.grid {
            Some(grid) if grid.covers(p, r) => {
                grid.visit(p, r, |q, _| q.distance_squared(p) < r * r)
            }
            _ => self.graph.any_node_closer(p, r),
        }
    }

    /// Calls `f` on each node within `r` of `p` (in an order that depends
    /// only on the graph and the level).
    pub(super) fn for_nodes_within(&self, p: DVec2, r: f64, mut f: impl FnMut(NodeId)) {
        match &self.grid {
            Some(grid) if grid.covers(p, r) => {
                grid.visit(p, r, |q, n| {
                    if q.distance_squared(p) <= r * r {
                        f(n)
                    }
                    false
                });
            }
            _ => self.graph.for_nodes_within(p, r, f),
        }
    }

    /// Whether a street edge ends at `n`.
    pub(super) fn has_street(&self, n: NodeId) -> bool {
        let g = &self.graph;
        g.incident(n)
            .iter()
            .any(|&e| matches!(role(g, e), EdgeRole::Street(_)))
    }

    /// The same graph indexed with cells of side `cell` (ids kept).
    pub(super) fn reindex(&mut self, cell: f64) {
        let mut g = PlanarGraph::new(cell);
        for &p in self.graph.nodes() {
            g.add_node(p);
        }
        for e in self.graph.edges() {
            g.add_edge(e.ends[0], e.ends[1], e.label);
        }
        self.graph = g;
        self.grid = None;
    }

    /// Splits ring and street edges into pieces no longer than `len`; new
    /// nodes are [`Origin::Split`].
    pub(super) fn split(&mut self, len: f64) -> Result<(), StreetsError> {
        let splits = |label| {
            matches!(
                EdgeRole::from_label(label),
                EdgeRole::Ring | EdgeRole::Street(_)
            )
        };
        let g = &self.graph;
        let extra: f64 = g
            .edges()
            .iter()
            .filter(|e| splits(e.label))
            .map(|e| (g.pos(e.ends[0]).distance(g.pos(e.ends[1])) / len).ceil() - 1.0)
            .sum();
        if g.node_count() as f64 + extra > MAX_NODES as f64 {
            return Err(StreetsError::TooMuchWork { max: MAX_NODES });
        }
        self.graph = g.split_edges(|label| splits(label).then_some(len));
        self.grid = None;
        let n = self.graph.node_count();
        self.meta.resize(n, Meta::new(Origin::Split, 0.0));
        Ok(())
    }

    /// Drops isolated nodes and the street-only parts other than the one
    /// with the most street edges (parts with a given edge stay).
    pub(super) fn prune(&mut self) {
        let g = &self.graph;
        let part = g.components();
        let parts = part.iter().max().map_or(0, |&p| p as usize + 1);
        let (mut streets, mut given) = (vec![0usize; parts], vec![false; parts]);
        for e in g.edges() {
            let p = part[e.ends[0] as usize] as usize;
            match EdgeRole::from_label(e.label) {
                EdgeRole::Street(_) => streets[p] += 1,
                _ => given[p] = true,
            }
        }
        // The first part with the most street edges.
        let main = (0..parts).rev().max_by_key(|&p| streets[p]);
        let keep = |n: NodeId| {
            let p = part[n as usize] as usize;
            g.degree(n) > 0 && (given[p] || Some(p) == main)
        };
        if (0..g.node_count() as NodeId).all(keep) {
            return;
        }
        let (graph, map) = g.retain_nodes(keep);
        let mut meta = vec![Meta::new(Origin::Given, 0.0); graph.node_count()];
        for (old, new) in map.iter().enumerate() {
            if let Some(new) = new {
                meta[*new as usize] = self.meta[old];
            }
        }
        self.graph = graph;
        self.meta = meta;
        self.grid = None;
    }
}

impl Meta {
    fn new(origin: Origin, split: f64) -> Self {
        Self {
            origin,
            blocked: false,
            gate: false,
            split,
            pass: u32::MAX,
        }
    }
}

/// Most cells of a [`NodeGrid`].
const MAX_GRID_CELLS: f64 = 4.0e6;

/// Node positions in a dense grid of [`CellLists`] (the graph's own index
/// costs more per query).
#[derive(Clone, Debug)]
struct NodeGrid {
    lo: DVec2,
    hi: DVec2,
    cell: f64,
    width: usize,
    /// Per cell, position and node, newest first.
    lists: CellLists<(DVec2, NodeId)>,
}

impl NodeGrid {
    fn new(bounds: (DVec2, DVec2), cell: f64) -> Option<Self> {
        let (lo, hi) = bounds;
        let size = ((hi - lo) / cell).floor() + 1.0;
        if !(size.is_finite() && size.min_element() >= 1.0) || size.x * size.y > MAX_GRID_CELLS {
            return None;
        }
        Some(Self {
            lo,
            hi,
            cell,
            width: size.x as usize,
            lists: CellLists::new(size.x as usize * size.y as usize),
        })
    }

    /// Whether the box of radius `r` around `p` lies inside the grid.
    fn covers(&self, p: DVec2, r: f64) -> bool {
        (p - r).cmpge(self.lo).all() && (p + r).cmple(self.hi).all()
    }

    /// The cell of a covered point (truncation is the floor here).
    fn cell_of(&self, p: DVec2) -> (usize, usize) {
        let c = (p - self.lo) / self.cell;
        (c.x as usize, c.y as usize)
    }

    fn insert(&mut self, p: DVec2, n: NodeId) {
        if self.covers(p, 0.0) {
            let (x, y) = self.cell_of(p);
            self.lists.push(y * self.width + x, (p, n));
        }
    }

    /// Calls `f` on the entries in the cells meeting the box of radius `r`
    /// around `p` (covered) until it returns true; whether it did.
    fn visit(&self, p: DVec2, r: f64, mut f: impl FnMut(DVec2, NodeId) -> bool) -> bool {
        let ((x0, y0), (x1, y1)) = (self.cell_of(p - r), self.cell_of(p + r));
        (y0..=y1).any(|y| {
            let k = y * self.width;
            self.lists.any_in(k + x0..=k + x1, |&(q, n)| f(q, n))
        })
    }
}

/// The role of edge `e`.
pub(super) fn role(g: &PlanarGraph, e: u32) -> EdgeRole {
    EdgeRole::from_label(g.edges()[e as usize].label)
}

/// The generator's random numbers (ChaCha8 from the seed).
pub(super) struct Rng(ChaCha8Rng);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Self(ChaCha8Rng::seed_from_u64(seed))
    }

    /// Uniform in `[0, 1)`.
    pub(super) fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(super) fn below(&mut self, n: usize) -> usize {
        ((self.0.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `[a, b)`.
    pub(super) fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * self.unit()
    }
}
