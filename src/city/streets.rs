//! What every street generator takes and gives: [`StreetsInput`] (a ring,
//! seed nodes, fixed roads, obstacles) and [`Streets`] (one planar network
//! and its blocks), built from a labelled [`PlanarGraph`] by
//! [`Streets::from_graph`].

use crate::geom::{Face, PlanarGraph};
use crate::network::{RoadClass, RoadNetwork};
use glam::DVec2;
use serde::{Deserialize, Serialize};

/// A node the streets grow from, with the article's split number: how many
/// generations of nodes it may spawn (a fraction is a chance).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedNode {
    /// Where.
    pub pos: DVec2,
    /// Split number (≥ 0).
    pub split: f64,
}

/// The inputs of a street generator (world metres).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreetsInput {
    /// A counter-clockwise loop the city stays inside (it becomes the ring
    /// road); empty: grow freely from the seeds.
    pub boundary: Vec<DVec2>,
    /// Nodes to grow from.
    pub seeds: Vec<SeedNode>,
    /// Existing roads the streets must join (the highways reaching the
    /// city), as polylines; they are kept as they are.
    pub fixed: Vec<Vec<DVec2>>,
    /// Polygons the streets stay out of (lakes, steep ground).
    pub obstacles: Vec<Vec<DVec2>>,
}

/// What an edge of a street generator's [`PlanarGraph`] is; its label is
/// [`EdgeRole::label`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeRole {
    /// A piece of the boundary ring.
    Ring,
    /// A piece of a fixed road.
    Fixed,
    /// A piece of an obstacle's outline (never output as a road).
    Obstacle,
    /// A main road of a generator (the tensor field's main streamlines).
    Main,
    /// A street of recursion level `n` (0 = the widest).
    Street(u8),
}

impl EdgeRole {
    /// The graph label of this role.
    pub fn label(self) -> u32 {
        match self {
            Self::Ring => 0,
            Self::Fixed => 1,
            Self::Obstacle => 2,
            Self::Main => 3,
            Self::Street(n) => 16 + n as u32,
        }
    }

    /// The role of a graph label.
    pub fn from_label(label: u32) -> Self {
        match label {
            0 => Self::Ring,
            1 => Self::Fixed,
            2 => Self::Obstacle,
            3 => Self::Main,
            n => Self::Street(n.saturating_sub(16).min(255) as u8),
        }
    }

    /// Whether the role is given to a generator rather than made by it.
    pub fn is_given(self) -> bool {
        matches!(self, Self::Ring | Self::Fixed | Self::Obstacle)
    }

    /// The default look: ring roads as roads, fixed roads as highways, main
    /// roads as roads, streets narrowing with the level.
    pub fn default_style(self) -> Option<(RoadClass, f64)> {
        match self {
            Self::Ring => Some((RoadClass::Road, 8.0)),
            Self::Fixed => Some((RoadClass::Highway, RoadClass::Highway.default_width())),
            Self::Obstacle => None,
            Self::Main => Some((RoadClass::Road, 9.0)),
            Self::Street(n) => Some((RoadClass::Street, (7.0 - 1.5 * n as f64).max(4.0))),
        }
    }
}

/// A street generator's output.
#[derive(Clone, Debug)]
pub struct Streets {
    /// The ring, fixed roads and streets as one planar network (streets
    /// are [`RoadClass::Street`]).
    pub network: RoadNetwork,
    /// The bounded faces of the street graph, counter-clockwise, less the
    /// obstacles inside them (a point repeats where a dead-end street
    /// enters a block, and at both ends of a bridge to an obstacle's
    /// outline).
    pub blocks: Vec<Vec<DVec2>>,
    /// Per block, per edge `blocks[b][i] → blocks[b][i + 1]` (cyclic), the
    /// width of the road along it.
    pub block_widths: Vec<Vec<f64>>,
    /// The obstacles the streets kept out of (lots keep out of them too).
    pub obstacles: Vec<Vec<DVec2>>,
    /// The street graph itself, labelled by [`EdgeRole::label`] (with the
    /// obstacle outlines the streets kept to).
    pub graph: PlanarGraph,
}

impl Streets {
    /// The output of a finished graph: nodes with no edge are dropped, the
    /// network is styled by `style` (obstacle outlines are never roads),
    /// blocks are the bounded faces but those bounded by obstacle outlines
    /// alone (the obstacles' insides). A block along a shore keeps the
    /// shore as an edge of width 0; an obstacle outline inside a block that
    /// no street reaches is cut out of it (the block's ring runs to it along
    /// a bridge, around it clockwise and back, all of width 0).
    pub fn from_graph(
        graph: &PlanarGraph,
        obstacles: Vec<Vec<DVec2>>,
        style: impl Fn(EdgeRole) -> Option<(RoadClass, f64)>,
    ) -> Self {
        Self::from_owned_graph(graph.clone(), obstacles, style)
    }

    /// [`from_graph`](Self::from_graph) taking the graph by value (no copy).
    pub fn from_owned_graph(
        graph: PlanarGraph,
        obstacles: Vec<Vec<DVec2>>,
        style: impl Fn(EdgeRole) -> Option<(RoadClass, f64)>,
    ) -> Self {
        let obstacle = EdgeRole::Obstacle.label();
        // Rebuilt only when something goes.
        let graph = if (0..graph.node_count() as u32).all(|n| graph.degree(n) > 0) {
            graph
        } else {
            graph.retain_nodes(|n| graph.degree(n) > 0).0
        };
        let style = |l: u32| match EdgeRole::from_label(l) {
            EdgeRole::Obstacle => None,
            role => style(role),
        };
        let network = RoadNetwork::from_graph(&graph, style);
        let label = |e: u32| graph.edges()[e as usize].label;
        let width = |e: u32| style(label(e)).map_or(0.0, |s| s.1);
        let only_obstacles = |f: &Face| f.edges.iter().all(|&(e, _)| label(e) == obstacle);
        // Obstacle outlines no street reaches: their outer walks, cut out
        // of the blocks holding them below.
        let (faces, holes): (Vec<Face>, Vec<Face>) = (graph.faces().into_iter())
            .filter(|f| !only_obstacles(f) || f.area < 0.0)
            .partition(|f| !f.is_outer() && !only_obstacles(f));
        let holes: Vec<Vec<DVec2>> = (holes.iter())
            .filter(|f| f.area < 0.0 && only_obstacles(f))
            .map(|f| graph.face_polygon(f))
            .collect();
        let mut blocks: Vec<Vec<DVec2>> = faces.iter().map(|f| graph.face_polygon(f)).collect();
        let mut block_widths: Vec<Vec<f64>> = faces
            .iter()
            .map(|f| f.edges.iter().map(|&(e, _)| width(e)).collect())
            .collect();
        super::holes::cut_holes(&mut blocks, &mut block_widths, &holes);
        Self {
            network,
            blocks,
            block_widths,
            obstacles,
            graph,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_round_trip_through_labels() {
        for r in [
            EdgeRole::Ring,
            EdgeRole::Fixed,
            EdgeRole::Obstacle,
            EdgeRole::Main,
            EdgeRole::Street(0),
            EdgeRole::Street(3),
        ] {
            assert_eq!(EdgeRole::from_label(r.label()), r);
        }
    }

    #[test]
    fn a_ring_with_one_street_makes_two_blocks() {
        let mut g = PlanarGraph::new(50.0);
        let ring = [(0., 0.), (100., 0.), (100., 100.), (0., 100.)]
            .map(|(x, y)| g.add_node(DVec2::new(x, y)));
        for i in 0..4 {
            g.add_edge(ring[i], ring[(i + 1) % 4], EdgeRole::Ring.label());
        }
        let (a, b) = (
            g.add_node(DVec2::new(50.0, 0.0)),
            g.add_node(DVec2::new(50.0, 100.0)),
        );
        // Re-ring through the street's ends, then the street.
        let mut h = PlanarGraph::new(50.0);
        for &p in g.nodes() {
            h.add_node(p);
        }
        for (x, y) in [(ring[0], a), (a, ring[1]), (ring[2], b), (b, ring[3])] {
            h.add_edge(x, y, EdgeRole::Ring.label());
        }
        h.add_edge(ring[1], ring[2], EdgeRole::Ring.label());
        h.add_edge(ring[3], ring[0], EdgeRole::Ring.label());
        h.add_edge(a, b, EdgeRole::Street(0).label());
        // An obstacle (a pond) inside a block: its inside is no block and
        // its outline no road.
        let pond = [(70., 40.), (90., 40.), (80., 60.)].map(|(x, y)| h.add_node(DVec2::new(x, y)));
        for i in 0..3 {
            h.add_edge(pond[i], pond[(i + 1) % 3], EdgeRole::Obstacle.label());
        }
        let s = Streets::from_graph(&h, vec![], EdgeRole::default_style);
        assert_eq!(s.blocks.len(), 2);
        // The pond is cut out of its block, along a bridge of width 0.
        let areas: Vec<f64> = s
            .blocks
            .iter()
            .map(|b| crate::city::polygon::signed_area(b))
            .collect();
        assert!(
            (areas.iter().sum::<f64>() - (100.0 * 100.0 - 200.0)).abs() < 1e-9,
            "{areas:?}"
        );
        let east = (s.blocks.iter()).position(|b| b.len() > 4).unwrap();
        assert_eq!(s.blocks[east].len(), 4 + 3 + 2);
        assert_eq!(
            s.block_widths[east].iter().filter(|&&w| w == 0.0).count(),
            5
        );
        assert!(
            s.blocks
                .iter()
                .all(|b| crate::city::polygon::signed_area(b) > 0.0)
        );
        let widths: Vec<f64> = s.block_widths.iter().flatten().copied().collect();
        assert!(widths.contains(&7.0) && widths.contains(&8.0));
        assert_eq!(s.graph.node_count(), 9);
        assert!(
            s.network
                .roads
                .iter()
                .all(|r| r.points.len() == 2 || r.class == RoadClass::Road)
        );
        assert!(s.network.check_planar().is_ok());
        let streets = s
            .network
            .roads
            .iter()
            .filter(|r| r.class == RoadClass::Street);
        assert_eq!(streets.count(), 1);
    }
}
