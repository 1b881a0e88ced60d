//! The creases: synthetic steps held by walls (two through a cell, a pad's
//! corner, walls that end), and a chunk of a real hill town.

use super::*;

const Q: usize = 32;
const STEP: f64 = 2.0;

/// A chunk's grid as `ChunkMesh` lays it, on the ground `h`.
fn grid(h: impl Fn(DVec2) -> f64) -> MeshLists {
    let n = Q + 1;
    let mut m = MeshLists::default();
    for j in 0..n {
        for i in 0..n {
            let p = DVec2::new(i as f64, j as f64) * STEP;
            m.positions
                .push(to_bevy(p.extend(h(p)), DVec2::ZERO).to_array());
            m.normals.push([0.0, 1.0, 0.0]);
            m.colors.push([(i % 2) as f32, (j % 2) as f32, 0.5, 1.0]);
        }
    }
    for j in 0..Q as u32 {
        for i in 0..Q as u32 {
            let v = j * n as u32 + i;
            let (v10, v01, v11) = (v + 1, v + n as u32, v + n as u32 + 1);
            m.indices.extend([v, v10, v11, v, v11, v01]);
        }
    }
    m
}

/// The walls as `crease` takes them.
fn lines(walls: &[Vec<WallPoint>]) -> Vec<&[WallPoint]> {
    walls.iter().map(|w| &w[..]).collect()
}

/// The mesh's triangles in core axes.
fn triangles(m: &MeshLists) -> Vec<[DVec3; 3]> {
    let at = |v: u32| {
        let p = m.positions[v as usize];
        DVec3::new(p[0] as f64, -p[2] as f64, p[1] as f64)
    };
    (m.indices.chunks_exact(3))
        .map(|t| [at(t[0]), at(t[1]), at(t[2])])
        .collect()
}

/// Twice a triangle's area seen from above (anticlockwise positive).
fn area(t: &[DVec3; 3]) -> f64 {
    (t[1] - t[0]).truncate().perp_dot((t[2] - t[0]).truncate())
}

/// The mesh's surface over `p`: the height of a triangle (not standing
/// on edge) holding it.
fn surface(tris: &[[DVec3; 3]], p: DVec2) -> f64 {
    for t in tris.iter().filter(|t| area(t) > 1.0e-9) {
        let d = area(t);
        let (a, b, c) = (t[0].truncate(), t[1].truncate(), t[2].truncate());
        let u = (b - p).perp_dot(c - p) / d;
        let v = (c - p).perp_dot(a - p) / d;
        let w = 1.0 - u - v;
        if u >= -1.0e-9 && v >= -1.0e-9 && w >= -1.0e-9 {
            return u * t[0].z + v * t[1].z + w * t[2].z;
        }
    }
    panic!("no triangle over {p}");
}

/// The points of a wall from `a` to `b` every 4 m (as the works lay
/// them), from `foot` to `top`.
fn wall(a: DVec2, b: DVec2, foot: f64, top: f64) -> Vec<WallPoint> {
    let n = (a.distance(b) / 4.0).ceil() as usize;
    (0..=n)
        .map(|k| (a.lerp(b, k as f64 / n as f64), foot, top))
        .collect()
}

/// Where the mesh is open (an edge of one triangle only): the chunk's
/// sides, or along a wall (which stands there).
fn open_edges_lie_on(m: &MeshLists, walls: &[Vec<WallPoint>]) {
    let key = |p: DVec3| [p.x, p.y, p.z].map(|v| (v * 1.0e4).round() as i64);
    let mut edges = std::collections::BTreeMap::new();
    for t in triangles(m) {
        for k in 0..3 {
            let (a, b) = (key(t[k]), key(t[(k + 1) % 3]));
            let e = edges
                .entry((a.min(b), a.max(b)))
                .or_insert((0, t[k], t[(k + 1) % 3]));
            e.0 += 1;
        }
    }
    let size = Q as f64 * STEP;
    let on_side = |p: DVec3| {
        [p.x, p.y]
            .iter()
            .any(|&v| v.abs() < 1.0e-4 || (v - size).abs() < 1.0e-4)
    };
    let on_wall = |p: DVec3| {
        walls.iter().any(|w| {
            w.windows(2)
                .any(|s| crate::geom::distance_to_segment(p.truncate(), s[0].0, s[1].0) < 1.0e-4)
        })
    };
    for &(_, a, b) in edges.values().filter(|e| e.0 == 1) {
        let along = (a - b).truncate().abs().min_element() < 1.0e-4;
        let side = on_side(a) && on_side(b) && along;
        assert!(side || (on_wall(a) && on_wall(b)), "open edge {a} {b}");
    }
}

/// The ground seen from above: the chunk's square once over, no
/// triangle turned over.
fn covers_the_square_once(m: &MeshLists) {
    let tris = triangles(m);
    let least = tris.iter().map(area).fold(f64::MAX, f64::min);
    // (Slivers standing on the wall's line may round either way in f32.)
    assert!(least > -1.0e-4, "{least}");
    let total = tris.iter().map(area).sum::<f64>() / 2.0;
    let size = Q as f64 * STEP;
    assert!((total - size * size).abs() < 1.0e-3, "{total}");
}

/// The worst the mesh's surface misses `want` at `points`.
fn worst(m: &MeshLists, points: &[(DVec2, f64)]) -> f64 {
    let tris = triangles(m);
    (points.iter())
        .map(|&(p, want)| (surface(&tris, p) - want).abs())
        .fold(0.0, f64::max)
}

#[test]
fn the_ground_meets_walls_through_it_on_both_sides() {
    // Two steps a metre apart along lines slanting across the grid, each
    // held by a wall: the ground level at 0 m south of the first, 10 m
    // between them, 15 m north of the second.
    let (a, b) = (DVec2::new(-3.0, 20.3), DVec2::new(67.0, 39.2));
    let across = (b - a).normalize().perp();
    let (c, d) = (a + across, b + across);
    let north = |p: DVec2, on: DVec2| (b - a).perp_dot(p - on) > 0.0;
    let h = |p: DVec2| match (north(p, a), north(p, c)) {
        (false, _) => 0.0,
        (true, false) => 10.0,
        (true, true) => 15.0,
    };
    let walls = vec![wall(a, b, 0.0, 10.0), wall(c, d, 10.0, 15.0)];
    // A third of a metre either side of each wall, all along it.
    let inside = |p: &DVec2| p.cmpgt(DVec2::splat(0.6)).all() && p.cmplt(DVec2::splat(63.4)).all();
    let beside: Vec<(DVec2, f64)> = (1..640)
        .map(|k| a.lerp(b, k as f64 / 640.0))
        .filter(inside)
        .flat_map(|p| {
            let q = p + across;
            [
                (p - across * 0.3, 0.0),
                (p + across * 0.3, 10.0),
                (q - across * 0.3, 10.0),
                (q + across * 0.3, 15.0),
            ]
        })
        .collect();
    let mut m = grid(h);
    // The grid's triangles ramp across the walls.
    assert!(worst(&m, &beside) > 3.0, "{}", worst(&m, &beside));
    let cut = crease(&mut m, Q, STEP, &lines(&walls));
    assert!(cut >= 41, "{cut}");
    // Cells with both walls through them are cut along both.
    assert!(worst(&m, &beside) < 1.0e-4, "{}", worst(&m, &beside));
    covers_the_square_once(&m);
    open_edges_lie_on(&m, &walls);
    // New vertices copy the corner beside them: lit and coloured so.
    assert_eq!(m.positions.len(), m.normals.len());
    assert_eq!(m.positions.len(), m.colors.len());
}

#[test]
fn where_walls_end_or_turn_the_ground_is_whole() {
    // A pad's corner, 3 m over the ground: two walls meeting at a right
    // angle inside a cell, each ending inside another; a wall with no
    // step at it; a wall outside the chunk.
    let c = DVec2::new(31.3, 30.7);
    let walls = vec![
        wall(DVec2::new(10.2, 30.7), c, 0.0, 3.0),
        wall(c, DVec2::new(31.3, 50.9), 0.0, 3.0),
        wall(DVec2::new(40.1, 5.5), DVec2::new(51.7, 12.9), 0.0, 10.0),
        wall(DVec2::new(-40.0, 5.0), DVec2::new(-3.0, 60.0), 0.0, 10.0),
    ];
    let h = |p: DVec2| if p.x < c.x && p.y > c.y { 3.0 } else { 0.0 };
    let mut m = grid(h);
    let cut = crease(&mut m, Q, STEP, &lines(&walls));
    assert!(cut > 20, "{cut}");
    covers_the_square_once(&m);
    open_edges_lie_on(&m, &walls);
    // Round the corner (its walls joined there), away from their ends:
    // the pad and the ground beside it as they are.
    let beside: Vec<(DVec2, f64)> = (0..=40)
        .map(|k| k as f64 / 2.0)
        .flat_map(|t| [DVec2::new(c.x - 17.0 + t, c.y), DVec2::new(c.x, c.y + t)])
        .filter(|p| p.distance(c) < 16.0)
        .flat_map(|p| [(p, DVec2::new(-0.3, 0.3)), (p, DVec2::new(0.3, -0.3))])
        .map(|(p, d)| (p + d, h(p + d)))
        .collect();
    assert!(worst(&m, &beside) < 1.0e-4, "{}", worst(&m, &beside));
    // In the cells where the pad's walls end, the ground meets each wall
    // at its top and its foot all the way to its end (a millimetre beside
    // it), and a triangle standing on its line closes the step at the end,
    // facing the lower ground.
    let ends = [
        (DVec2::new(10.2, 30.7), DVec2::X, -DVec2::Y),
        (DVec2::new(31.3, 50.9), -DVec2::Y, DVec2::X),
    ];
    let tris = triangles(&m);
    for (end, inward, low) in ends {
        let beside: Vec<(DVec2, f64)> = (1..=12)
            .map(|k| end + inward * (k as f64 * 0.05))
            .flat_map(|p| [(p + low * 1.0e-3, 0.0), (p - low * 1.0e-3, 3.0)])
            .collect();
        assert!(worst(&m, &beside) < 0.01, "{end}: {}", worst(&m, &beside));
        let closes = |t: &&[DVec3; 3]| {
            let at_end = t.iter().filter(|v| v.truncate().distance(end) < 1.0e-4);
            let heights: Vec<f64> = at_end.map(|v| v.z).collect();
            let normal = (t[1] - t[0]).cross(t[2] - t[0]);
            heights.len() == 2
                && (heights[0] - heights[1]).abs() > 2.99
                && normal.truncate().dot(low) > 0.0
        };
        assert_eq!(tris.iter().filter(closes).count(), 1, "{end}");
    }
    // Nothing to cut: nothing changes.
    let mut plain = grid(h);
    let before = plain.indices.clone();
    assert_eq!(crease(&mut plain, Q, STEP, &lines(&walls[3..])), 0);
    assert_eq!(plain.indices, before);
}

/// A chunk of the hill town of cell (3, 2), among its terraces: some
/// 250 of its 1,024 cells are cut; the ground still covers its square
/// once, open only along walls and at its sides; and a quarter metre
/// beside its walls most of it stands where the built ground does, where
/// the grid's triangles ramped across them.
#[test]
fn a_hill_town_s_chunk_stands_against_its_walls() {
    use crate::world::{RoadSystem, RoadSystemParams, StructureKind};
    let t = crate::terrain::Terrain::default();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let key = super::super::ChunkKey {
        level: 0,
        x: 313,
        y: 263,
    };
    let view = crate::plugin::stream::settings::ViewSettings::default();
    let (min, size) = (key.corner(&view), key.size(&view));
    let r = sys.region(&t, min, min + size).unwrap();
    let walls: Vec<Vec<WallPoint>> = (r.structures.iter())
        .filter(|s| s.kind == StructureKind::Wall)
        .map(|s| {
            (s.line.iter().zip(&s.foot))
                .map(|(p, &foot)| (p.truncate() - min, foot, p.z))
                .collect()
        })
        .collect();
    // A quarter metre either side of each wall, at each of its points in
    // the chunk: the ground as built.
    let beside: Vec<(DVec2, f64)> = (walls.iter())
        .flat_map(|w| w.windows(2).map(|s| (s[0].0, s[1].0)))
        .filter(|(a, b)| a.distance(*b) > 0.1)
        .flat_map(|(a, b)| {
            let across = (b - a).normalize().perp() * 0.25;
            [0.25, 0.5, 0.75]
                .map(|t| a.lerp(b, t))
                .map(|m| [m + across, m - across])
        })
        .flatten()
        .filter(|p| p.cmpgt(DVec2::ZERO).all() && p.cmplt(DVec2::splat(size)).all())
        .map(|p| (p, r.ground.height(p.x + min.x, p.y + min.y)))
        .collect();
    let near = |m: &MeshLists| {
        let tris = triangles(m);
        let off = |&(p, want): &(DVec2, f64)| (surface(&tris, p) - want).abs();
        beside.iter().filter(|b| off(b) < 0.25).count() as f64 / beside.len() as f64
    };
    let mut m = super::super::ChunkMesh::build(&r.ground, key, 0, &view).lists;
    let ramped = near(&m);
    let cut = crease(
        &mut m,
        view.chunk_quads as usize,
        key.spacing(&view),
        &lines(&walls),
    );
    let creased = near(&m);
    assert!(
        beside.len() > 500 && (200..400).contains(&cut),
        "{} {cut}",
        beside.len()
    );
    // (0.14 → 0.81, 0.77 before the cells where walls end were cut: the
    // rest lie in the cells left whole, where a step turns over (15 of
    // those cut), or where the ground bends within a part.)
    assert!(ramped < 0.3 && creased > 0.8, "{ramped} -> {creased}");
    covers_the_square_once(&m);
    open_edges_lie_on(&m, &walls);
}
