//! Hand-made awkward blocks: a square town, concave (L, U), thin, with a
//! dead end, tiny, with lakes.

use super::*;

#[test]
fn a_square_town_is_cut_into_lots_with_buildings() {
    let s = two_blocks(vec![]);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    let cover = check(&s, &p, &lots);
    assert!(cover >= 0.95, "{cover}");
    let sum = LotSummary::of(&lots);
    assert_eq!(sum.blocks, 2);
    // Each block is 60 × 120 less ribbons: ~ 51 × 112.5 m, so 4 to 16 lots.
    assert!((8..=32).contains(&sum.lots), "{sum:?}");
    assert!(sum.buildings >= sum.lots * 3 / 4, "{sum:?}");
    for l in &lots {
        let a = signed_area(&l.polygon);
        assert!(a >= p.min_area - 1e-9 && a <= p.max_area, "{a}");
    }
}

#[test]
fn concave_blocks_l_and_u() {
    let l = [
        (0., 0.),
        (160., 0.),
        (160., 60.),
        (60., 60.),
        (60., 160.),
        (0., 160.),
    ];
    let u = [
        (0., 0.),
        (150., 0.),
        (150., 130.),
        (110., 130.),
        (110., 50.),
        (40., 50.),
        (40., 130.),
        (0., 130.),
    ];
    for nodes in [&l[..], &u[..]] {
        let s = streets(nodes, &ring(0, nodes.len()), vec![]);
        assert_eq!(s.blocks.len(), 1);
        let p = LotParams::default();
        let lots = subdivide(&s, &p);
        let cover = check(&s, &p, &lots);
        assert!(cover >= 0.8, "{cover}");
        assert!(lots.len() >= 6 && lots.iter().filter(|l| l.building.is_some()).count() >= 4);
    }
}

#[test]
fn a_thin_block_gets_lots_but_no_room_for_buildings() {
    // 300 × 14 m between streets: 14 − 4 (ring) − 3.5 (street) = 6.5 m deep.
    let nodes = [(0., 0.), (300., 0.), (300., 14.), (0., 14.)];
    let mut edges = ring(0, 4);
    edges[2].2 = EdgeRole::Street(0);
    let s = streets(&nodes, &edges, vec![]);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert!(check(&s, &p, &lots) >= 0.9);
    assert!(lots.len() >= 2);
    // 6.5 m less two setbacks leaves 0.5 m: no building fits.
    assert!(lots.iter().all(|l| l.building.is_none()));
}

#[test]
fn a_dead_end_cuts_its_ribbon_out_of_the_block() {
    // A 140 m square with a 70 m dead end from the middle of its south side.
    let nodes = [
        (0., 0.),
        (70., 0.),
        (140., 0.),
        (140., 140.),
        (0., 140.),
        (70., 70.),
    ];
    let mut edges = ring(0, 5);
    edges.push((1, 5, EdgeRole::Street(0)));
    let s = streets(&nodes, &edges, vec![]);
    assert_eq!(s.blocks.len(), 1);
    // The face walks the dead end in and out: a point repeats.
    let b = &s.blocks[0];
    assert_eq!(b.len(), 7);
    assert_eq!(b.iter().filter(|&&q| q == v(70., 0.)).count(), 2);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert!(check(&s, &p, &lots) >= 0.9);
    // Some lot fronts on the dead end (its street edge 3.5 m off x = 70).
    assert!(lots.iter().any(|l| {
        l.polygon
            .iter()
            .any(|q| ((q.x - 70.0).abs() - 3.5).abs() < 1e-6 && q.y > 10.0)
    }));
}

#[test]
fn tiny_blocks_vanish_or_stay_small() {
    // A 9 m triangle vanishes under its ribbons; a 30 m one keeps a scrap.
    for (side, any) in [(9.0, false), (30.0, true)] {
        let h = side * 3f64.sqrt() / 2.0;
        let s = streets(
            &[(0., 0.), (side, 0.), (side / 2.0, h)],
            &ring(0, 3),
            vec![],
        );
        let p = LotParams::default();
        let lots = subdivide(&s, &p);
        check(&s, &p, &lots);
        assert_eq!(!lots.is_empty(), any, "{side}");
        assert!(lots.iter().all(|l| l.building.is_none()));
    }
}

#[test]
fn lakes_are_kept_out_of_lots() {
    // One lake straddling the cross street, one inside the east block.
    let lakes = vec![circle(v(60., 20.), 25.0), circle(v(95., 70.), 12.0)];
    let s = two_blocks(lakes);
    let p = LotParams {
        max_area: 800.0,
        ..LotParams::default()
    };
    let lots = subdivide(&s, &p);
    assert!(check(&s, &p, &lots) >= 0.7);
    assert!(lots.len() >= 8);
}

/// A ring road of `n` points around an ellipse of 300 × 240 m: one block.
fn fine_ring(n: usize) -> Streets {
    let mut g = PlanarGraph::new(64.0);
    for i in 0..n {
        let a = i as f64 / n as f64 * std::f64::consts::TAU;
        g.add_node(v(300.0 * a.cos(), 240.0 * a.sin()));
    }
    for i in 0..n {
        g.add_edge(i as u32, ((i + 1) % n) as u32, EdgeRole::Ring.label());
    }
    Streets::from_graph(&g, vec![], EdgeRole::default_style)
}

/// A block of 100,000 vertices (once over a minute) is simplified first:
/// its lots are about those of a coarse twin, and keep every invariant.
#[test]
fn a_finely_sampled_block_is_cut_like_a_coarse_one() {
    let p = LotParams::default();
    let fine = fine_ring(100_000);
    assert_eq!(fine.blocks.len(), 1);
    assert!(fine.blocks[0].len() > MAX_SIMPLIFIED_VERTICES);
    let lots = subdivide(&fine, &p);
    let twin = fine_ring(720);
    let coarse = subdivide(&twin, &p);
    let (a, b) = (lots.len() as f64, coarse.len() as f64);
    assert!(a > 50.0 && (a - b).abs() <= 0.1 * b, "{a} vs {b}");
    // Every lot is simple, inside the ring and off its ribbon (half of 8 m;
    // the twin's ring is within 3 mm of the fine one).
    let ring = &twin.blocks[0];
    for lot in &lots {
        assert!(simple(&lot.polygon) && signed_area(&lot.polygon) > 0.0);
        for &q in &lot.polygon {
            assert!(polygon::polygon_contains(ring, q), "{q}");
            let d = (0..ring.len())
                .map(|i| crate::geom::distance_to_segment(q, ring[i], ring[(i + 1) % ring.len()]))
                .fold(f64::INFINITY, f64::min);
            assert!(d >= 4.0 - 0.01, "{q}: {d}");
        }
    }
}

/// A block that stays large once simplified (a saw tooth of 10,000 teeth)
/// is skipped, quickly.
#[test]
fn a_block_too_detailed_to_simplify_is_skipped() {
    let mut nodes: Vec<(f64, f64)> = (0..=20_000)
        .map(|i| (i as f64 * 0.1, if i % 2 == 0 { 0.0 } else { 1.0 }))
        .collect();
    nodes.extend([(2000.0, 300.0), (0.0, 300.0)]);
    let n = nodes.len();
    let s = streets(&nodes, &ring(0, n), vec![]);
    assert_eq!(s.blocks.len(), 1);
    assert!(subdivide(&s, &LotParams::default()).is_empty());
}

/// A lake no street reaches, inside a block: the block excludes it and no
/// lot lies on it.
#[test]
fn a_lake_inside_a_block_is_cut_out_of_it() {
    let lake = circle(v(60., 60.), 25.0);
    let mut nodes: Vec<(f64, f64)> = vec![(0., 0.), (120., 0.), (120., 120.), (0., 120.)];
    // The lake's outline, clockwise, as obstacle edges.
    nodes.extend(lake.iter().rev().map(|p| (p.x, p.y)));
    let mut edges = ring(0, 4);
    edges.extend((0..24).map(|i| (4 + i, 4 + (i + 1) % 24, EdgeRole::Obstacle)));
    let s = streets(&nodes, &edges, vec![lake.clone()]);
    assert_eq!(s.blocks.len(), 1);
    let area = signed_area(&s.blocks[0]);
    assert!(
        (area - (120.0 * 120.0 - signed_area(&lake))).abs() < 1e-6,
        "{area}"
    );
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert!(lots.len() >= 4, "{}", lots.len());
    check(&s, &p, &lots);
    for l in &lots {
        let c = l.polygon.iter().sum::<DVec2>() / l.polygon.len() as f64;
        assert!(!polygon::polygon_contains(&lake, c), "{c}");
        let (_, inside) = outside_inside(&l.polygon, &lake);
        assert!(inside < 1e-3, "{inside}");
    }
}
