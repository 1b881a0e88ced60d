//! The object cells' unit tests.

use super::trees::{DETAIL_STEP, far_mesh};
use super::*;
use crate::plugin::stream::shapes::{FAR_TREES, far_tree_mesh};
use crate::terrain::Terrain;
use bevy::mesh::VertexAttributeValues;

#[test]
fn a_cell_is_as_far_as_its_nearest_point_across_and_its_top_below() {
    let key = CellKey { x: 1, y: 0 }; // x 128..256, y 0..128
    // Beside it, level with its top: the distance across.
    assert_eq!(key.view_distance(DVec3::new(100.0, 64.0, 50.0), 50.0), 28.0);
    // Above it: the height over its top; below its top: none.
    assert_eq!(
        key.view_distance(DVec3::new(200.0, 64.0, 350.0), 50.0),
        300.0
    );
    assert_eq!(key.view_distance(DVec3::new(200.0, 64.0, 10.0), 50.0), 0.0);
    // Both: 3, 4, 5.
    assert_eq!(key.view_distance(DVec3::new(98.0, 64.0, 90.0), 50.0), 50.0);
    // An empty cell: across only.
    let empty = top_of(&[]);
    assert_eq!(
        key.view_distance(DVec3::new(100.0, 64.0, 900.0), empty),
        28.0
    );
    // Near below FAR_TREES, far from 8 m beyond it, either between.
    let at = |h: f64| DVec3::new(200.0, 64.0, 50.0 + h);
    assert!(!far_trees(&key, at(FAR_TREES - 1.0), 50.0, true));
    assert!(far_trees(&key, at(FAR_TREES + 1.0), 50.0, true));
    assert!(!far_trees(&key, at(FAR_TREES + 1.0), 50.0, false));
    assert!(far_trees(&key, at(FAR_TREES + DETAIL_STEP), 50.0, false));
}

#[test]
fn cell_contents_are_deterministic_and_on_the_ground() {
    let t = Terrain::default();
    let ground = LaidGround::new(std::sync::Arc::new(t.clone()));
    // A cell with a known mine shaft at (285, 389).
    let key = CellKey { x: 2, y: 3 };
    let a = cell_contents(&ground, key);
    let b = cell_contents(&ground, key);
    assert_eq!(a.len(), b.len());
    assert!(
        a.iter()
            .any(|i| i.kind == ObjectKind::Feature(Feature::Mine)
                && i.world.truncate() == DVec2::new(285.0, 389.0))
    );
    for (i, j) in a.iter().zip(&b) {
        assert_eq!((i.kind, i.world, i.yaw), (j.kind, j.world, j.yaw));
        match i.kind {
            ObjectKind::Tree(_) | ObjectKind::Feature(_) => {
                assert_eq!(i.world.z, t.height(i.world.x, i.world.y))
            }
            _ => {}
        }
    }
}

/// The positions of a mesh's vertices.
fn positions(m: &Mesh) -> Vec<Vec3> {
    match m.attribute(Mesh::ATTRIBUTE_POSITION) {
        Some(VertexAttributeValues::Float32x3(p)) => p.iter().map(|&p| p.into()).collect(),
        _ => panic!("no positions"),
    }
}

#[test]
fn a_cell_s_far_mesh_is_its_trees_where_their_entities_would_stand() {
    let ground = LaidGround::new(std::sync::Arc::new(Terrain::default()));
    let key = CellKey { x: 2, y: 3 };
    let all = cell_contents(&ground, key);
    let trees: Vec<Instance> = (all.iter())
        .filter(|i| matches!(i.kind, ObjectKind::Tree(_)))
        .cloned()
        .collect();
    assert!(trees.len() > 20, "{} trees", trees.len());
    // Each tree's far mesh as its entity would place it, in the cell's order.
    let mut want = Vec::new();
    for t in &trees {
        let ObjectKind::Tree(v) = t.kind else {
            unreachable!()
        };
        let tf = t.transform(key.base());
        want.extend(
            positions(&far_tree_mesh(v as usize))
                .into_iter()
                .map(|p| tf.transform_point(p)),
        );
    }
    // The other objects add nothing to it.
    let got = positions(&far_mesh(&all, key.base()).unwrap());
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(&want) {
        assert!(a.distance(*b) < 1e-4, "{a} against {b}");
    }
    // Within the cell (and a crown's width beyond), on the ground.
    let top = top_of(&all) as f32;
    for p in &got {
        assert!(
            (-10.0..138.0).contains(&p.x) && (-138.0..10.0).contains(&p.z),
            "{p}"
        );
        assert!(p.y < top + 20.0, "{p}");
    }
    assert!(far_mesh(&[], key.base()).is_none());
}
