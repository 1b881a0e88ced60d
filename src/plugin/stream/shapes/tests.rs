//! The shapes are closed, outward-facing, sized as documented and deterministic.

use super::solid::Solid;
use super::*;
use bevy::mesh::Indices;
use bevy::mesh::VertexAttributeValues;

/// Checks a mesh's consistency and returns its bounding box and
/// triangle count.
fn check(m: &Mesh) -> (Vec3, Vec3, usize) {
    let Some(VertexAttributeValues::Float32x3(pos)) = m.attribute(Mesh::ATTRIBUTE_POSITION) else {
        panic!("positions")
    };
    let Some(VertexAttributeValues::Float32x3(nrm)) = m.attribute(Mesh::ATTRIBUTE_NORMAL) else {
        panic!("normals")
    };
    let Some(VertexAttributeValues::Unorm8x4(col)) = m.attribute(Mesh::ATTRIBUTE_COLOR) else {
        panic!("colours")
    };
    let Some(Indices::U32(idx)) = m.indices() else {
        panic!("u32 indices")
    };
    assert!(!pos.is_empty());
    assert_eq!(pos.len(), nrm.len());
    assert_eq!(pos.len(), col.len());
    assert_eq!(idx.len() % 3, 0);
    assert!(idx.iter().all(|&i| (i as usize) < pos.len()));
    assert!(col.iter().all(|c| c[3] == 255));
    assert!(
        nrm.iter()
            .all(|n| (Vec3::from(*n).length() - 1.0).abs() < 1e-4)
    );
    let (mut min, mut max, mut volume) = (Vec3::MAX, Vec3::MIN, 0.0);
    for t in idx.chunks(3) {
        let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(pos[t[k] as usize]));
        let g = (b - a).cross(c - a);
        for &i in t {
            assert!(
                g.dot(Vec3::from(nrm[i as usize])) > 0.0,
                "winding disagrees with normal"
            );
        }
        volume += a.dot(b.cross(c)) / 6.0;
    }
    for p in pos {
        min = min.min(Vec3::from(*p));
        max = max.max(Vec3::from(*p));
    }
    // The parts are closed and outward-facing: positive signed volume.
    assert!(volume > 0.0, "signed volume {volume}");
    (min, max, idx.len() / 3)
}

/// Every face of a solid faces away from `centre`.
fn faces_away(s: &Solid, centre: Vec3) -> bool {
    s.0.iter().all(|(t, _)| {
        (t[1] - t[0])
            .cross(t[2] - t[0])
            .dot(t[0] + t[1] + t[2] - 3.0 * centre)
            > 0.0
    })
}

#[test]
fn primitives_face_outwards() {
    let c = srgb(0.5, 0.5, 0.5);
    assert!(faces_away(
        &Solid::frustum(7, 1.0, 0.5, -1.0, 2.0, c),
        v3(0.0, 0.5, 0.0)
    ));
    assert!(faces_away(
        &Solid::frustum(8, 2.0, 0.0, 0.0, 3.0, c),
        v3(0.0, 1.0, 0.0)
    ));
    assert!(faces_away(
        &Solid::cuboid(v3(-1.0, 0.0, 2.0), v3(3.0, 0.5, 2.2), c),
        v3(1.0, 0.25, 2.1)
    ));
    assert!(faces_away(
        &Solid::pitched(0.2, 1.3, c, c),
        v3(0.0, 1.1, 0.0)
    ));
    let mirrored =
        Solid::cuboid(Vec3::ZERO, Vec3::ONE, c).xf(Affine3A::from_scale(v3(-1.0, 1.0, 1.0)));
    assert!(faces_away(&mirrored, v3(-0.5, 0.5, 0.5)));
    let rod = Solid::rod(v3(1.0, 2.0, 3.0), v3(-1.0, 0.0, 4.0), 0.2, 0.1, 5, c);
    assert!(faces_away(&rod, v3(0.0, 1.0, 3.5)));
    for (subdiv, jitter) in [(0, 0.12), (0, 0.15), (1, 0.22)] {
        for seed in 0..100 {
            let b = Solid::blob(subdiv, jitter, seed, c);
            assert_eq!(b.0.len(), 20 * 4usize.pow(subdiv));
            assert!(faces_away(&b, Vec3::ZERO));
        }
    }
}

#[test]
fn trees_are_sound_and_of_their_heights() {
    let heights = [(13.5, 14.5), (10.5, 11.8), (11.5, 12.5), (14.5, 15.5)];
    for (v, (lo, hi)) in heights.into_iter().enumerate() {
        let (min, max, tris) = check(&tree_mesh(v));
        assert!((lo..=hi).contains(&max.y), "tree {v} height {}", max.y);
        assert!((-0.6..=-0.4).contains(&min.y), "tree {v} base {}", min.y);
        assert!(
            min.x > -4.5 && max.x < 4.5 && min.z > -4.5 && max.z < 4.5,
            "tree {v} {min} {max}"
        );
        assert!(tris <= 400, "tree {v}: {tris} triangles");
        let again = tree_mesh(v + TREE_VARIETIES);
        assert_eq!(
            again
                .attribute(Mesh::ATTRIBUTE_POSITION)
                .unwrap()
                .as_float3(),
            tree_mesh(v)
                .attribute(Mesh::ATTRIBUTE_POSITION)
                .unwrap()
                .as_float3()
        );
    }
}

#[test]
fn far_trees_keep_the_outline_in_a_fraction_of_the_triangles() {
    for v in 0..TREE_VARIETIES {
        let (near_min, near_max, near) = check(&tree_mesh(v));
        let mesh = far_tree_mesh(v);
        let (min, max, far) = check(&mesh);
        // On shared vertices: fewer than two thirds as many as corners.
        let vertices = mesh.count_vertices();
        println!("tree {v}: {far} far triangles on {vertices} vertices, {near} near");
        assert!(vertices < 2 * far, "tree {v}: {vertices} vertices");
        assert!(
            far * 4 <= near,
            "tree {v}: {far} far against {near} near triangles"
        );
        // Within a metre of the near tree's box (its height within 10 %).
        assert!(
            (max.y / near_max.y - 1.0).abs() < 0.1,
            "tree {v} height {}",
            max.y
        );
        assert!((min.y - near_min.y).abs() < 0.1, "tree {v} base {}", min.y);
        let (a, b) = (max.xz() - min.xz(), near_max.xz() - near_min.xz());
        assert!(
            (a - b).abs().max_element() < 2.0,
            "tree {v} width {a} against {b}"
        );
    }
}

#[test]
fn features_are_sound_and_of_their_sizes() {
    for f in Feature::ALL {
        let (min, max, tris) = check(&feature_mesh(f));
        let size = max - min;
        assert!(tris <= 400, "{f:?}: {tris} triangles");
        assert!(min.y <= 0.0 && min.y >= -0.6, "{f:?} base {}", min.y);
        let (height, width) = (max.y, size.x.max(size.z));
        let ok = match f {
            Feature::Mine => (3.5..=4.8).contains(&height) && width < 3.0,
            Feature::Boulder => (1.3..=1.8).contains(&height) && width < 3.0,
            Feature::Root => (2.0..=3.2).contains(&height) && size.x < 4.5,
            Feature::WaterHole => (0.05..=0.2).contains(&height) && (5.0..=7.0).contains(&width),
            Feature::Knoll => (1.4..=1.6).contains(&height) && (7.5..=9.0).contains(&width),
            Feature::ManMade => (2.7..=3.3).contains(&height) && width < 2.0,
            Feature::Cone => (height - 0.7).abs() < 0.01 && width < 0.4,
        };
        assert!(ok, "{f:?}: {min} {max}");
    }
}

#[test]
fn buildings_fit_the_unit_box() {
    for v in 0..8 {
        let (min, max, tris) = check(&building_mesh(v));
        assert!(tris <= 100, "building {v}: {tris} triangles");
        assert!(
            min.cmpge(v3(-0.5, 0.0, -0.5) - 1e-6).all()
                && max.cmple(v3(0.5, 1.35, 0.5) + 1e-6).all(),
            "building {v}: {min} {max}"
        );
        assert!(max.y > 1.0 && (max.x - min.x) > 0.999 && (max.z - min.z) > 0.999);
    }
    // Pitched roofs rise higher than flat ones.
    assert!(check(&building_mesh(1)).1.y > 1.3 && check(&building_mesh(0)).1.y < 1.2);
}
