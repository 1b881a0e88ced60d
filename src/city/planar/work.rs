//! The graph being built and what the generator knows of each node (where
//! it came from, whether streets may use it), with the steps between
//! levels: re-indexing, splitting edges, pruning; and the seeded random
//! numbers.

use super::StreetsError;
use crate::city::EdgeRole;
use crate::geom::{NodeId, PlanarGraph};
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

/// The graph and its nodes' [`Meta`], kept parallel.
#[derive(Clone, Debug)]
pub(super) struct Work {
    pub graph: PlanarGraph,
    pub meta: Vec<Meta>,
}

impl Work {
    /// Every node of `graph` gets `origin`.
    pub(super) fn new(graph: PlanarGraph, origin: Origin) -> Self {
        let meta = vec![Meta::new(origin, 0.0); graph.node_count()];
        Self { graph, meta }
    }

    /// Adds a node.
    pub(super) fn add_node(&mut self, p: DVec2, origin: Origin, split: f64) -> NodeId {
        self.meta.push(Meta::new(origin, split));
        self.graph.add_node(p)
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
