use super::*;
use crate::network::{Road, RoadClass};
use crate::terrain::Terrain;

fn road() -> RoadNetwork {
    let pts = vec![
        DVec2::new(0.0, 0.0),
        DVec2::new(100.0, 0.0),
        DVec2::new(100.0, 200.0),
    ];
    RoadNetwork::from_roads(vec![Road::new(pts, RoadClass::Road, 6.0)])
}

fn structure(
    kind: StructureKind,
    road: Option<usize>,
    line: &[(f64, f64, f64)],
    foot: &[f64],
) -> Structure {
    Structure {
        kind,
        road,
        line: line.iter().map(|&(x, y, z)| DVec3::new(x, y, z)).collect(),
        foot: foot.to_vec(),
    }
}

#[test]
fn bridges_and_tunnels_are_spans_of_their_roads_and_walls_none() {
    let net = road();
    let s = [
        // A bridge from 40 m along to 150 m (round the corner at 100).
        structure(
            StructureKind::Bridge,
            Some(0),
            &[(40.0, 0.0, 5.0), (100.0, 0.0, 5.0), (100.0, 50.0, 5.0)],
            &[0.0; 3],
        ),
        // A tunnel given end first, overlapping nothing.
        structure(
            StructureKind::Tunnel,
            Some(0),
            &[(100.0, 190.0, 5.0), (100.0, 170.0, 5.0)],
            &[30.0; 2],
        ),
        // Walls and structures of roads that do not exist: no spans.
        structure(
            StructureKind::Wall,
            None,
            &[(0.0, 10.0, 5.0), (50.0, 10.0, 5.0)],
            &[1.0; 2],
        ),
        structure(
            StructureKind::Bridge,
            Some(7),
            &[(0.0, 0.0, 5.0), (50.0, 0.0, 5.0)],
            &[0.0; 2],
        ),
    ];
    let both = [StructureKind::Bridge, StructureKind::Tunnel];
    let spans = road_spans(&net, &s, &both);
    assert_eq!(spans, vec![vec![(40.0, 150.0), (270.0, 290.0)]]);
    let bridges = road_spans(&net, &s, &[StructureKind::Bridge]);
    assert_eq!(bridges, vec![vec![(40.0, 150.0)]]);
    // The profile along the road: none, then linear between its points.
    assert_eq!(profile_at(&net.roads[0], DVec2::new(50.0, 3.0)), None);
    let mut r = net.roads[0].clone();
    r.z = vec![10.0, 20.0, 40.0];
    assert_eq!(profile_at(&r, DVec2::new(50.0, 3.0)), Some((50.0, 15.0)));
    assert_eq!(profile_at(&r, DVec2::new(97.0, 100.0)), Some((200.0, 30.0)));
}

/// The lowest and highest vertex heights (core z) of a structure's mesh.
fn heights(s: &Structure, net: &RoadNetwork, t: &Terrain) -> (f64, f64) {
    let mut m = MeshLists::default();
    add_structure(&mut m, s, net, t, DVec3::new(0.0, 0.0, 100.0));
    let (lo, hi) = m.height_range().expect("a mesh");
    (lo as f64 + 100.0, hi as f64 + 100.0)
}

#[test]
fn a_bridge_has_a_deck_parapets_and_piers_down_to_its_foot() {
    // Far out over the lake west of the start: the natural ground is its bed.
    let t = Terrain::default();
    let net = road();
    let (a, b) = (DVec2::new(-1811.0, 3040.0), DVec2::new(-1811.0, 3160.0));
    let bed = t.height(-1811.0, 3100.0).min(t.height(-1811.0, 3070.0));
    let lake = t.params().lake_level;
    let deck = lake + 8.0;
    let s = Structure {
        kind: StructureKind::Bridge,
        road: Some(0),
        line: vec![a.extend(deck), b.extend(deck)],
        foot: vec![lake, lake],
    };
    let (lo, hi) = heights(&s, &net, &t);
    // Parapets a metre above the deck; piers (every 30 m: three of them,
    // at 30, 60 and 90 m) a metre into the lake bed.
    assert!((hi - (deck + PARAPET)).abs() < 1e-3, "{hi}");
    assert!(lo < lake - 1.0 && lo <= bed, "{lo} vs bed {bed}");
    let mut m = MeshLists::default();
    add_structure(&mut m, &s, &net, &t, DVec3::ZERO);
    // The deck: top, bottom and 2 caps (the parapets are its sides); two
    // parapets and three piers, standing on something: no bottom.
    assert_eq!(m.vertex_count(), (4 + 2 * 5 + 3 * 5) * 4);
    // A short bridge needs no pier.
    let short = Structure {
        line: vec![a.extend(deck), (a + DVec2::new(0.0, 12.0)).extend(deck)],
        ..s.clone()
    };
    let (lo, _) = heights(&short, &net, &t);
    assert!((lo - (deck - DECK_THICKNESS)).abs() < 1e-3, "{lo}");
}

#[test]
fn tunnels_get_two_portals_and_walls_reach_their_foot() {
    let t = Terrain::default();
    let net = road();
    let tunnel = structure(
        StructureKind::Tunnel,
        Some(0),
        &[(0.0, 0.0, 200.0), (300.0, 0.0, 210.0)],
        &[212.0, 240.0],
    );
    let mut m = MeshLists::default();
    add_structure(&mut m, &tunnel, &net, &t, DVec3::ZERO);
    // Per portal: two posts (no bottom, no cap inside the hill: 4 faces), a
    // lintel between them (top, bottom and front) and the dark opening's
    // face.
    assert_eq!(m.vertex_count(), 2 * (2 * 4 + 3 + 1) * 4);
    let (lo, hi) = heights(&tunnel, &net, &t);
    assert!((lo - (200.0 - BURIED)).abs() < 1e-3, "{lo}");
    // Headwalls rise to the hillside above them, at most 12 m over the
    // opening: the far one (hill at 240 m) to 210 + 6 + 12 m.
    assert!((hi - 228.0).abs() < 1e-3, "{hi}");
    let wall = structure(
        StructureKind::Wall,
        None,
        &[(0.0, 0.0, 310.0), (20.0, 0.0, 312.0), (40.0, 5.0, 312.0)],
        &[304.0, 303.0, 306.0],
    );
    let (lo, hi) = heights(&wall, &net, &t);
    assert!((lo - (303.0 - BURIED)).abs() < 1e-3, "{lo}");
    assert!((hi - 312.3).abs() < 1e-3, "{hi}");
    // Bad lines draw nothing.
    for bad in [
        structure(StructureKind::Wall, None, &[(0.0, 0.0, 1.0)], &[0.0]),
        structure(
            StructureKind::Wall,
            None,
            &[(0.0, 0.0, f64::NAN), (1.0, 0.0, 1.0)],
            &[0.0; 2],
        ),
    ] {
        let mut m = MeshLists::default();
        add_structure(&mut m, &bad, &net, &t, DVec3::ZERO);
        assert!(m.is_empty());
    }
}

#[test]
fn every_face_of_a_structure_faces_its_stored_normal() {
    let t = Terrain::default();
    let net = road();
    let mut m = MeshLists::default();
    let s = structure(
        StructureKind::Bridge,
        Some(0),
        &[(0.0, 0.0, 300.0), (50.0, 10.0, 302.0), (100.0, 0.0, 304.0)],
        &[250.0; 3],
    );
    add_structure(&mut m, &s, &net, &t, DVec3::ZERO);
    m.check_windings();
}

#[test]
fn a_straight_even_deck_is_drawn_from_its_ends_and_a_curved_one_keeps_its_bends() {
    let t = Terrain::default();
    let net = road();
    // 60 m at a 4 % grade sampled every 5 m, 2 m above its foot: no pier.
    let line: Vec<(f64, f64, f64)> = (0..=12)
        .map(|k| (k as f64 * 5.0, 0.0, 300.0 + k as f64 * 0.2))
        .collect();
    let vertices = |line: &[(f64, f64, f64)]| {
        let s = structure(
            StructureKind::Bridge,
            Some(0),
            line,
            &vec![298.0; line.len()],
        );
        let mut m = MeshLists::default();
        add_structure(&mut m, &s, &net, &t, DVec3::ZERO);
        m.check_windings();
        m.vertex_count()
    };
    let ends = [line[0], line[12]];
    assert_eq!(vertices(&line), vertices(&ends));
    // A bend of a metre is kept.
    let mut bent = line.clone();
    bent[6].1 = 1.0;
    assert!(vertices(&bent) > vertices(&line));
    // So is a change of grade of a few centimetres.
    let mut kinked = line.clone();
    kinked[6].2 += 0.05;
    assert!(vertices(&kinked) > vertices(&line));
}

#[test]
fn built_cells_go_to_the_renderer_nearest_first_within_the_frames_budget() {
    // A mesh of `n` vertices (positions only, no indices): 12 n bytes.
    let built = |n: usize| Built {
        mesh: Some(
            Mesh::new(
                bevy::mesh::PrimitiveTopology::TriangleList,
                bevy::asset::RenderAssetUsages::default(),
            )
            .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, vec![[0.0f32; 3]; n]),
        ),
        structures: 1,
    };
    let mut ready = BTreeMap::new();
    // Cells 0..6 along x, 1,200 bytes each, and an empty one, the farthest.
    for i in 0..6 {
        ready.insert((i, 0), (i as u64, built(100)));
    }
    ready.insert(
        (-2, 0),
        (
            99,
            Built {
                mesh: None,
                structures: 0,
            },
        ),
    );
    let f = DVec2::new(STRUCTURE_CELL * 2.5, STRUCTURE_CELL * 0.5);
    let mut meshes = Assets::<Mesh>::default();
    let mut take = |ready: &mut BTreeMap<_, _>, budget: &mut UploadBudget| {
        let taken = take_within_budget(ready, f, budget, &mut meshes);
        taken.iter().map(|x| x.0.0).collect::<Vec<_>>()
    };
    // 3,000 bytes: cell 2, then 1 and 3 (equally near: by cell), 3 crossing
    // the budget; then 0 and 4, and 5 crossing it.
    let mut budget = UploadBudget::new(3000);
    assert_eq!(take(&mut ready, &mut budget), [2, 1, 3]);
    assert_eq!(budget.spent(), 3600);
    // Nothing more this frame.
    assert_eq!(take(&mut ready, &mut budget), [0; 0]);
    let mut budget = UploadBudget::new(3000);
    assert_eq!(take(&mut ready, &mut budget), [0, 4, 5]);
    // The empty cell costs nothing; nothing is lost.
    assert_eq!(take(&mut ready, &mut UploadBudget::new(1)), [-2]);
    assert!(ready.is_empty());
    // A mesh larger than the whole budget still goes (one a frame at least).
    let mut huge = BTreeMap::from([((0, 0), (0, built(1 << 20)))]);
    assert_eq!(take(&mut huge, &mut UploadBudget::new(1000)).len(), 1);
}

#[test]
fn walls_are_drawn_in_parts_by_the_boxes_they_cross() {
    let net = road();
    let all = vec![
        structure(
            StructureKind::Wall,
            None,
            &[(10.0, 10.0, 5.0), (30.0, 10.0, 5.0)],
            &[1.0; 2],
        ),
        // Starts in the next cell east, ends in the first.
        structure(
            StructureKind::Wall,
            None,
            &[(260.0, 20.0, 5.0), (250.0, 20.0, 5.0)],
            &[1.0; 2],
        ),
        structure(
            StructureKind::Bridge,
            Some(0),
            &[(40.0, 0.0, 5.0), (90.0, 0.0, 5.0)],
            &[0.0; 2],
        ),
        // A bad line: skipped.
        structure(
            StructureKind::Wall,
            None,
            &[(20.0, 20.0, f64::NAN), (25.0, 20.0, 5.0)],
            &[1.0; 2],
        ),
        // A long wall rising from 5 to 15 m across three cells.
        structure(
            StructureKind::Wall,
            None,
            &[(20.0, 40.0, 5.0), (340.0, 40.0, 10.0), (600.0, 40.0, 15.0)],
            &[0.0; 3],
        ),
    ];
    let cells = structure_cells(&all, &net, 1);
    let draw = |min: (f64, f64), max: (f64, f64)| {
        let mut m = MeshLists::default();
        let (min, max) = (DVec2::new(min.0, min.1), DVec2::new(max.0, max.1));
        let parts = walls_in(&all, &cells, (min, max));
        add_wall_parts(&mut m, &all, &parts);
        assert_eq!(parts.is_empty(), m.is_empty());
        (parts.len(), m)
    };
    let count = |min, max| draw(min, max).0;
    assert_eq!(count((0.0, 0.0), (64.0, 64.0)), 2);
    assert_eq!(count((0.0, 0.0), (512.0, 512.0)), 3);
    // Each box its part: the short wall across the cells' edge in both.
    assert_eq!(count((256.0, 0.0), (320.0, 32.0)), 1);
    assert_eq!(count((192.0, 0.0), (256.0, 32.0)), 1);
    // Touching a box's edge is not crossing it.
    assert_eq!(count((-54.0, 0.0), (10.0, 32.0)), 0);
    assert_eq!(count((-512.0, -512.0), (0.0, 0.0)), 0);
    // Anchored at the box's corner, the long wall's part is cut at the
    // box's sides (0 and 64 m from its corner), its top at the east side
    // interpolated (10 + 5 · 44 / 260 m, and 0.3 m over it).
    let (n, m) = draw((320.0, 0.0), (384.0, 64.0));
    assert_eq!(n, 1);
    let xs = m.positions.iter().map(|p| p[0]);
    let (lo, hi) = xs.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
    assert!(lo.abs() < 1.0e-4 && (hi - 64.0).abs() < 1.0e-4, "{lo} {hi}");
    let top = m.positions.iter().map(|p| p[1]).fold(f32::MIN, f32::max);
    let want = 10.0 + 5.0 * 44.0 / 260.0 + 0.3;
    assert!((top as f64 - want).abs() < 1.0e-4, "{top} {want}");
    assert!(m.positions.iter().all(|p| (-64.0..=0.0).contains(&p[2])));
    // A cell's key is its bridges' and tunnels' (its mesh draws only
    // those): a changed wall leaves it, and a cell of walls alone, be.
    let mut raised = all.clone();
    raised[0].line[0].z += 1.0;
    raised[4].line[2].z += 1.0;
    let again = structure_cells(&raised, &net, 1);
    assert_eq!(
        again.keys().collect::<Vec<_>>(),
        cells.keys().collect::<Vec<_>>()
    );
    assert!(again.iter().all(|(c, (key, _))| *key == cells[c].0));
}
