//! Conversion between a [`RoadNetwork`] and the street generators'
//! [`PlanarGraph`] (which lives in `geom` and knows no roads).

use super::{Road, RoadClass, RoadNetwork};
use crate::geom::{NodeId, PlanarGraph};
use glam::DVec2;
use std::collections::HashMap;

impl RoadNetwork {
    /// The network as a planar graph: a node at every distinct vertex (exact
    /// position), an edge for every segment, labelled with its road's index.
    pub fn to_graph(&self, cell: f64) -> PlanarGraph {
        let mut g = PlanarGraph::new(cell);
        let mut ids: HashMap<(u64, u64), NodeId> = HashMap::new();
        let mut node = |g: &mut PlanarGraph, p: DVec2| {
            let p = p + DVec2::ZERO; // −0 becomes +0
            *ids.entry((p.x.to_bits(), p.y.to_bits()))
                .or_insert_with(|| g.add_node(p))
        };
        for (i, r) in self.roads.iter().enumerate() {
            for w in r.points.windows(2) {
                let (a, b) = (node(&mut g, w[0]), node(&mut g, w[1]));
                g.add_edge(a, b, i as u32);
            }
        }
        g
    }

    /// A planar graph as a network: each maximal chain of edges with one label
    /// through nodes of degree 2 becomes one road, styled by `style(label)`
    /// (`None` leaves those edges out). Roads come in order of their first
    /// edge; closed loops start at their smallest node.
    pub fn from_graph(g: &PlanarGraph, style: impl Fn(u32) -> Option<(RoadClass, f64)>) -> Self {
        let mut done = vec![false; g.edges().len()];
        let mut roads = Vec::new();
        // The node of every road vertex, in order (for the junctions), and
        // the road being walked.
        let (mut seq, mut points) = (Vec::new(), Vec::new());
        // Whether a chain passes straight through node `n`.
        let through = |n: NodeId, label: u32| {
            g.degree(n) == 2
                && g.incident(n)
                    .iter()
                    .all(|&e| g.edges()[e as usize].label == label)
        };
        for start in 0..g.edges().len() {
            if done[start] {
                continue;
            }
            let label = g.edges()[start].label;
            let Some((class, width)) = style(label) else {
                done[start] = true;
                continue;
            };
            // Walk back to the chain's first node, then forward collecting.
            let (mut e, mut n) = (start as u32, g.edges()[start].ends[0]);
            for _ in 0..g.edges().len() {
                if !through(n, label) {
                    break;
                }
                let prev = g.incident(n).iter().copied().find(|&x| x != e).unwrap_or(e);
                if prev == start as u32 {
                    break; // a closed loop
                }
                n = g.other(prev, n);
                e = prev;
            }
            points.clear();
            points.push(g.pos(n));
            seq.push(n);
            for _ in 0..g.edges().len() {
                done[e as usize] = true;
                n = g.other(e, n);
                points.push(g.pos(n));
                seq.push(n);
                if !through(n, label) {
                    break;
                }
                let Some(next) = g
                    .incident(n)
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
                z: Vec::new(),
            });
        }
        Self::from_node_roads(roads, g.nodes(), &seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::planar::tests::square;

    #[test]
    fn split_and_round_trip_through_a_network() {
        let g = square().split_edges(|_| Some(3.0));
        assert_eq!((g.node_count(), g.edge_count()), (16, 16));
        assert!(g.check_planar().is_ok());
        let net = RoadNetwork::from_graph(&g, |_| Some((RoadClass::Street, 6.0)));
        // One closed road of 17 points (the loop, first point repeated).
        assert_eq!(net.roads.len(), 1);
        assert_eq!(net.roads[0].points.len(), 17);
        assert!((net.roads[0].length() - 40.0).abs() < 1e-9);
        let back = net.to_graph(10.0);
        assert_eq!((back.node_count(), back.edge_count()), (16, 16));
        assert_eq!(back.faces().len(), 2);
    }
}
