use super::*;
use crate::terrain::Terrain;

#[test]
fn ribbons_drape_on_fine_chunks_face_up_and_are_lit_as_the_ground() {
    use crate::roads::{ContourParams, ContourRoads};
    use std::sync::Arc;
    let t = Terrain::default();
    let (min, max) = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
    let net = ContourRoads::new(ContourParams::default())
        .unwrap()
        .generate(&t, min, max);
    let p = net.roads[0].points[2];
    let roads = RoadLayer::new(Arc::new(net));
    let streams = StreamLayer::default();
    let view = ViewSettings::default();
    let key = finest_at(p, &view);
    let g = LaidGround::new(Arc::new(t.clone()));
    let r =
        build_ribbons(&g, key, &view, &roads, &streams, &[]).expect("a road crosses this chunk");
    for tri in r.indices.chunks(3) {
        let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| Vec3::from(r.positions[i as usize]));
        assert!((b - a).cross(c - a).y > 0.0);
    }
    // Ribbon vertices stand just above the true ground (within the
    // chunk's own interpolation error at 2 m spacing).
    for q in &r.positions {
        let w = key.corner(&view) + DVec2::new(q[0] as f64, -q[2] as f64);
        let h = t.height(w.x, w.y);
        assert!((q[1] as f64 - h).abs() < 1.5, "{} vs {h}", q[1]);
    }
    // Their normals are those the ground's mesh has under them (its
    // vertices' normals across the triangle), not straight up: the
    // slope tilts them.
    let mesh = super::super::mesh::ChunkMesh::build(&g, key, 1, &view);
    let (step, n) = (key.spacing(&view), view.chunk_quads as usize + 1);
    let mut tilted = 0;
    for (q, nr) in r.positions.iter().zip(&r.normals) {
        let l = DVec2::new(q[0] as f64, -q[2] as f64) / step;
        let under: Vec3 = (triangle(l, n - 1).iter())
            .map(|&(i, j, f)| Vec3::from(mesh.lists.normals[j * n + i]) * f as f32)
            .sum();
        let nr = Vec3::from(*nr);
        assert!(nr.dot(under.normalize()) > 0.9999, "{nr} vs {under}");
        tilted += (nr.y < 5f32.to_radians().cos()) as usize;
    }
    assert!(
        tilted * 2 > r.normals.len(),
        "{tilted} of {}",
        r.normals.len()
    );
    // Nothing crosses a chunk far away.
    let far = ChunkKey {
        level: 0,
        x: key.x + 1000,
        y: key.y,
    };
    assert!(build_ribbons(&g, far, &view, &roads, &streams, &[]).is_none());
}

/// How a chunk's ribbons lie on its ground: over each ribbon triangle,
/// at its centroid and three points towards its corners, the ribbon's
/// height above the chunk's own triangles (`ground`, local metres);
/// deck triangles (flat, above water) are left out.
fn clearances(r: &MeshLists, ground: impl Fn(DVec2) -> f64) -> Vec<f64> {
    let mut out = Vec::new();
    for t in r.indices.chunks_exact(3) {
        let p = [t[0], t[1], t[2]].map(|i| {
            let q = r.positions[i as usize];
            DVec3::new(q[0] as f64, -q[2] as f64, q[1] as f64)
        });
        if r.colors[t[0] as usize] == PIER_COLOR {
            continue;
        }
        for w in [
            [1.0, 1.0, 1.0],
            [4.0, 1.0, 1.0],
            [1.0, 4.0, 1.0],
            [1.0, 1.0, 4.0],
        ] {
            let s: f64 = w.iter().sum();
            let q = (p[0] * w[0] + p[1] * w[1] + p[2] * w[2]) / s;
            out.push(q.z - ground(q.truncate()));
        }
    }
    out
}

#[test]
fn ribbons_lie_on_the_chunk_s_ground_everywhere() {
    use crate::plugin::stream::structures::road_spans;
    use crate::world::{RoadSystem, RoadSystemParams, StructureKind};
    // Chunks of 2, 4 and 16 m grids over the planned city's slopes
    // (terraces, stairs).
    let t = Terrain::default();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let view = ViewSettings::default();
    for level in [0, 1, 3] {
        let key = ChunkKey {
            level,
            x: (15700.0 / (64.0 * f64::from(1 << level))) as i64,
            y: (7600.0 / (64.0 * f64::from(1 << level))) as i64,
        };
        let (min, size) = (key.corner(&view), key.size(&view));
        let region = sys.region(&t, min, min + size).unwrap();
        let kinds = [StructureKind::Bridge, StructureKind::Tunnel];
        let spans = road_spans(&region.network, &region.structures, &kinds);
        let roads = RoadLayer::new(region.network.clone());
        let (g, streams) = (&region.ground, StreamLayer::default());
        let r = build_ribbons(g, key, &view, &roads, &streams, &spans).expect("ribbons");
        let grid = ChunkGrid::of(g, key, &view);
        let (q, step) = (view.chunk_quads as usize, key.spacing(&view));
        let w = q + 3;
        let ground = |p: DVec2| {
            (triangle(p / step, q).into_iter())
                .map(|(i, j, f)| f * grid.built[(j + 1) * w + i + 1])
                .sum::<f64>()
        };
        let c = clearances(&r, ground);
        let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        println!(
            "level {level} (step {step} m): {} points, clearance {lo:.3} to {hi:.3} m, {} vertices, {} triangles",
            c.len(),
            r.positions.len(),
            r.indices.len() / 3
        );
        // Everywhere the lift above the ground, plus its layer (a step's
        // nosing 3 cm, a street 6 cm, a highway 9–13 cm). Sampled at the vertices only (as before), the ribbons
        // sank up to 3.0 m into it on the 4 m grid (at 17 % of these
        // points) and 1.1 m on the 16 m one, and stood up to 1.9 m off it.
        let lift = 0.15 + 0.03 * step;
        assert!(c.len() > 1000, "{}", c.len());
        assert!(
            lo > lift - 1e-3 && hi < lift + HIGHWAY_LAYER + EDGE_LIFT + 1e-3,
            "{lo} to {hi}"
        );
        // Every triangle faces up.
        for t in r.indices.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(r.positions[i as usize]));
            assert!((b - a).cross(c - a).y > 0.0, "{a} {b} {c}");
        }
    }
}

#[test]
fn a_road_over_water_is_a_deck_above_the_lake() {
    use crate::network::{Road, RoadClass, RoadNetwork};
    use std::sync::Arc;
    let t = Terrain::default();
    let lake = t.params().lake_level;
    // (-1811, 3062) is in a lake: a highway straight across it.
    let (a, b) = (DVec2::new(-1811.0, 3040.0), DVec2::new(-1811.0, 3090.0));
    assert!(t.height(a.x, a.y) < lake && t.height(b.x, b.y) < lake);
    let net = RoadNetwork::from_roads(vec![Road {
        z: Vec::new(),
        points: vec![a, b],
        class: RoadClass::Highway,
        width: 10.0,
    }]);
    let roads = RoadLayer::new(Arc::new(net));
    let view = ViewSettings::default();
    let key = finest_at(a, &view);
    let g = LaidGround::new(Arc::new(t.clone()));
    let r = build_ribbons(&g, key, &view, &roads, &StreamLayer::default(), &[]).expect("a deck");
    let mut pier_feet = 0;
    for (q, c) in r.positions.iter().zip(&r.colors) {
        let w = key.corner(&view) + DVec2::new(q[0] as f64, -q[2] as f64);
        if *c == PIER_COLOR {
            // Piers reach from under the water up to the deck.
            let z = q[1] as f64;
            assert!(z < lake || z >= lake + DECK_HEIGHT - 1e-3, "pier at {z}");
            pier_feet += (z < lake) as usize;
        } else if t.height(w.x, w.y) < lake {
            assert!(q[1] as f64 >= lake + DECK_HEIGHT, "{} under the deck", q[1]);
        }
    }
    // The chunk holds 32 m of the deck (y 3040 to 3072): one pier, at
    // 12 m; its four faces have two foot vertices each.
    assert_eq!(pier_feet, 8, "pier foot vertices");
}

#[test]
fn bridge_and_tunnel_stretches_are_left_out_and_footways_have_steps() {
    use crate::network::{Road, RoadNetwork};
    use std::sync::Arc;
    let t = Terrain::default();
    let g = LaidGround::new(Arc::new(t.clone()));
    let view = ViewSettings::default();
    let key = ChunkKey {
        level: 0,
        x: 300,
        y: 20,
    };
    let min = key.corner(&view);
    // A street across the chunk whose stretch 30–54 m along (x 20–44 m
    // into the chunk) is a bridge, and a footway beside it.
    let (a, b) = (min + DVec2::new(-10.0, 32.0), min + DVec2::new(80.0, 32.0));
    let up = DVec2::new(0.0, 12.0);
    let net = RoadNetwork::from_roads(vec![
        Road::new(vec![a, b], RoadClass::Street, 6.0),
        Road::new(vec![a + up, b + up], RoadClass::Path, 3.0),
    ]);
    let roads = RoadLayer::new(Arc::new(net));
    let spans = vec![vec![(30.0, 54.0)], vec![]];
    let r =
        build_ribbons(&g, key, &view, &roads, &StreamLayer::default(), &spans).expect("ribbons");
    let local = |q: &[f32; 3]| DVec2::new(q[0] as f64, -q[2] as f64);
    let street: Vec<DVec2> = (r.positions.iter().zip(&r.colors))
        .filter(|(_, c)| **c == [0.13, 0.13, 0.13, 1.0])
        .map(|(q, _)| local(q))
        .collect();
    assert!(!street.is_empty());
    assert!(
        street
            .iter()
            .all(|p| p.x <= 20.0 + 1e-3 || p.x >= 44.0 - 1e-3),
        "a street vertex on the bridge"
    );
    // The ribbon stops exactly at the bridge's ends.
    for end in [20.0, 44.0] {
        assert!(street.iter().any(|p| (p.x - end).abs() < 1e-3), "{end}");
    }
    // No quad spans the bridge: every street triangle lies on one side.
    for tri in r.indices.chunks(3) {
        let xs = [tri[0], tri[1], tri[2]].map(|i| local(&r.positions[i as usize]).x);
        let c = r.colors[tri[0] as usize];
        if c == [0.13, 0.13, 0.13, 1.0] {
            assert!(xs.iter().all(|&x| x <= 20.001) || xs.iter().all(|&x| x >= 43.999));
        }
    }
    // The footway: pale stone with a dark step every 1.2 m across the
    // chunk (its bands counted by where their triangles lie along it).
    let count = |colour: [f32; 4]| r.colors.iter().filter(|c| **c == colour).count();
    assert!(count(STAIR_COLOR) > 0);
    let mut bands: Vec<i64> = (r.indices.chunks(3))
        .filter(|t| r.colors[t[0] as usize] == STEP_COLOR)
        .map(|t| {
            let x = t
                .iter()
                .map(|&i| local(&r.positions[i as usize]).x)
                .sum::<f64>()
                / 3.0;
            ((x + 10.0) / STEP_RUN).floor() as i64
        })
        .collect();
    bands.dedup();
    let steps = bands.len();
    assert!((50..=56).contains(&steps), "{steps} steps");
    // A coarser chunk over it draws the footway without steps.
    let coarse = key.parent();
    let r =
        build_ribbons(&g, coarse, &view, &roads, &StreamLayer::default(), &spans).expect("ribbons");
    let count = |colour: [f32; 4]| r.colors.iter().filter(|c| **c == colour).count();
    assert!(count(STAIR_COLOR) > 0 && count(STEP_COLOR) == 0);
}

/// The finest chunk holding `p`.
fn finest_at(p: DVec2, view: &ViewSettings) -> ChunkKey {
    let at = (p / view.min_chunk_size).floor();
    ChunkKey {
        level: 0,
        x: at.x as i64,
        y: at.y as i64,
    }
}
