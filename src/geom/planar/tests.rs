//! Faces, crossing queries, splitting and the planarity check on small graphs.

use super::*;

/// A 10 m square of four edges labelled 0 (also the network layer's fixture).
pub(crate) fn square() -> PlanarGraph {
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
fn split_edges_cuts_every_edge_into_short_pieces() {
    let g = square().split_edges(|_| Some(3.0));
    assert_eq!((g.node_count(), g.edge_count()), (16, 16));
    assert!(g.check_planar().is_ok());
    assert_eq!(g.faces().len(), 2);
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

#[test]
fn node_queries_cost_the_filled_cells_not_the_radius() {
    // A 1 m index: a 10⁹ m radius spans 10¹⁸ cells, of which the index
    // visits only those of its (small) box.
    let mut g = square();
    let far = g.add_node(DVec2::new(-3.0e6, 4.0e7));
    assert_eq!(g.nodes_within(DVec2::ZERO, 1.0e9), vec![0, 1, 2, 3, far]);
    assert!(g.any_node_closer(DVec2::new(1.0e8, 0.0), 1.0e9));
    assert!(!g.any_node_closer(DVec2::new(1.0e8, 0.0), 1.0e6));
    let mut fine = PlanarGraph::new(1.0);
    let a = fine.add_node(DVec2::new(0.5, 0.5));
    let b = fine.add_node(DVec2::new(1.0e12, -1.0e12));
    assert_eq!(fine.nodes_within(DVec2::ZERO, 1.0e13), vec![a, b]);
    assert_eq!(fine.nodes_within(DVec2::ZERO, 1.0), vec![a]);
}
