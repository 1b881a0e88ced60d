//! End-to-end tests of the contour roads: the seed's properties, region
//! stability, the focus-box search, laid roads, refused requests, and the
//! roads pinned bit for bit.

use super::*;
use crate::geom::segment_meets_rect;
use crate::network::{Road, RoadLayer};
use crate::num::java_round;
use crate::terrain::{LaidGround, LaidKind, TerrainKind};
use std::sync::Arc;

fn generate_area(min: (f64, f64), max: (f64, f64)) -> RoadNetwork {
    let t = Terrain::default();
    ContourRoads::new(ContourParams::default())
        .unwrap()
        .generate(&t, DVec2::new(min.0, min.1), DVec2::new(max.0, max.1))
}

#[test]
fn the_seed_map_has_roads_with_the_seed_properties() {
    let t = Terrain::default();
    let net = generate_area((18600.0, 960.0), (19400.0, 1560.0));
    assert!(net.roads.len() >= 5, "{} roads", net.roads.len());
    for r in &net.roads {
        assert!(r.points.len() >= 2);
        // Sample every metre: never in a lake or a town, but at the very end.
        let n = r.points.len();
        for (k, w) in r.points.windows(2).enumerate() {
            let len = w[0].distance(w[1]);
            let samples = len.floor() as usize;
            for s in 0..=samples {
                let q = w[0].lerp(w[1], s as f64 / len.max(1e-9));
                let last = k + 2 == n && s == samples;
                if !last {
                    let k = t.terra(java_round(q.x) as f64, java_round(q.y) as f64).kind;
                    assert!(
                        k != TerrainKind::Lake && k != TerrainKind::Town,
                        "{q} in {k:?}"
                    );
                }
            }
            assert!(len <= 10.0 + 1e-9);
        }
    }
    net.check_planar().unwrap();
}

#[test]
fn roads_have_at_most_100_points_10_m_apart() {
    // Roads touching A, with every road joined to them present: B is A
    // grown by more than a road's length.
    let (a0, a1) = (DVec2::new(18800.0, 1000.0), DVec2::new(19300.0, 1400.0));
    let net = generate_area((17600.0, -200.0), (20500.0, 2600.0));
    let junction: std::collections::HashSet<(u64, u64)> = net
        .junctions
        .iter()
        .map(|j| (j.pos.x.to_bits(), j.pos.y.to_bits()))
        .collect();
    let in_a = |r: &&Road| {
        r.points
            .windows(2)
            .any(|w| segment_meets_rect(w[0], w[1], a0, a1))
    };
    assert!(net.roads.iter().filter(in_a).count() > 5);
    for r in net.roads.iter().filter(in_a) {
        // Growth points: the first, and every vertex that is not a junction
        // (junction points are inserted on segments).
        let n = r.points.len();
        let mut growth = 1;
        let mut run = 0.0;
        for k in 1..n {
            run += r.points[k - 1].distance(r.points[k]);
            let is_junction =
                junction.contains(&(r.points[k].x.to_bits(), r.points[k].y.to_bits()));
            if k + 1 < n && !is_junction {
                assert!((run - 10.0).abs() < 1e-6, "spacing {run}");
                growth += 1;
                run = 0.0;
            }
        }
        assert!(run <= 10.0 + 1e-6);
        assert!(growth < 100, "{growth} growth points");
    }
    net.check_planar().unwrap();
    assert_eq!(
        net,
        generate_area((17600.0, -200.0), (20500.0, 2600.0)),
        "same inputs, same network"
    );
}

#[test]
fn roads_inside_an_area_do_not_depend_on_what_else_is_generated() {
    let a = ((19000.0, 1000.0), (19500.0, 1400.0));
    let alone = generate_area(a.0, a.1);
    let inside_bigger = generate_area((17000.0, -500.0), (21000.0, 3000.0));
    let shifted = generate_area((18800.0, 900.0), (19700.0, 1500.0));
    let pick = |net: &RoadNetwork| -> Vec<Road> {
        let (min, max) = (DVec2::new(a.0.0, a.0.1), DVec2::new(a.1.0, a.1.1));
        let mut v: Vec<Road> = net
            .roads
            .iter()
            .filter(|r| {
                r.points
                    .windows(2)
                    .any(|w| segment_meets_rect(w[0], w[1], min, max))
            })
            .cloned()
            .collect();
        v.sort_by(|x, y| {
            x.points[0]
                .x
                .total_cmp(&y.points[0].x)
                .then(x.points[0].y.total_cmp(&y.points[0].y))
                .then(x.points[1].x.total_cmp(&y.points[1].x))
        });
        v
    };
    assert!(!alone.roads.is_empty());
    assert_eq!(pick(&alone), pick(&inside_bigger));
    assert_eq!(pick(&alone), pick(&shifted));
}

#[test]
fn the_focus_box_search_gives_the_same_roads_from_any_first_margin() {
    let t = Terrain::default();
    let with = |m: f64| {
        ContourRoads::new(ContourParams {
            initial_margin: m,
            ..Default::default()
        })
        .unwrap()
    };
    // Away from the seed's map: hills, lake shores, town patches.
    for (x, y) in [
        (-2300.0, 400.0),
        (-800.0, 9000.0),
        (3000.0, 3000.0),
        (1500.0, -10000.0),
    ] {
        let (min, max) = (DVec2::new(x, y), DVec2::new(x + 300.0, y + 300.0));
        // The full margin at once holds every road: the reference.
        let reference = with(1.0e5).generate(&t, min, max);
        assert!(!reference.roads.is_empty(), "{min}");
        for m in [0.0, 150.0, 700.0] {
            assert_eq!(
                with(m).generate(&t, min, max),
                reference,
                "{min}, first margin {m}"
            );
        }
    }
}

#[test]
fn bad_parameters_and_areas_are_refused() {
    let p = ContourParams {
        step: f64::NAN,
        ..Default::default()
    };
    assert!(
        ContourRoads::new(p)
            .unwrap_err()
            .to_string()
            .starts_with("step")
    );
    let p = ContourParams {
        max_points: 1,
        ..Default::default()
    };
    assert!(
        ContourRoads::new(p)
            .unwrap_err()
            .to_string()
            .starts_with("max_points")
    );
    let c = ContourRoads::new(ContourParams::default()).unwrap();
    let t = Terrain::default();
    assert!(matches!(
        c.try_generate(&t, DVec2::ZERO, DVec2::splat(1.0e5)),
        Err(RoadAreaError::TooLarge { .. })
    ));
    assert!(matches!(
        c.try_generate(&t, DVec2::splat(f64::NAN), DVec2::ONE),
        Err(RoadAreaError::TooLarge { .. })
    ));
    // A small area is fine with the defaults...
    assert!(c.try_generate(&t, DVec2::ZERO, DVec2::splat(500.0)).is_ok());
    // ...but 1 m steps for 10,000 points would take minutes: refused at once.
    let long = ContourRoads::new(ContourParams {
        step: 1.0,
        max_points: 10_000,
        max_rounds: 100_000,
        ..Default::default()
    })
    .unwrap();
    let err = long
        .try_generate(&t, DVec2::ZERO, DVec2::splat(500.0))
        .unwrap_err();
    assert!(matches!(err, RoadAreaError::TooMuchGrowth { .. }));
    assert!(err.to_string().contains("max_points"), "{err}");
    assert_eq!(
        c.generate(&t, DVec2::ONE, DVec2::ZERO),
        RoadNetwork::default()
    );
}

/// FNV-1a over every road point and junction, as bits: any change to the
/// roads changes it.
fn network_hash(net: &RoadNetwork) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut write = |v: u64| {
        for b in v.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    };
    write(net.roads.len() as u64);
    for r in &net.roads {
        write(r.points.len() as u64);
        for p in &r.points {
            write(p.x.to_bits());
            write(p.y.to_bits());
        }
        write(r.width.to_bits());
        write(r.class as u64);
    }
    write(net.junctions.len() as u64);
    for j in &net.junctions {
        write(j.pos.x.to_bits());
        write(j.pos.y.to_bits());
        for &r in &j.roads {
            write(r as u64);
        }
    }
    h
}

#[test]
fn the_roads_stay_the_same_bit_for_bit() {
    // Hashes taken from the single-file generator before it was split, so
    // refactoring cannot change a road without this noticing.
    let t = Terrain::default();
    let (min, max) = (DVec2::ZERO, DVec2::new(800.0, 600.0));
    let with = |p: ContourParams| ContourRoads::new(p).unwrap().try_generate(&t, min, max);
    let default = with(ContourParams::default()).unwrap();
    assert_eq!(default.roads.len(), 17);
    assert_eq!(network_hash(&default), 0x0d9d_d681_ae2e_a837);
    let other = with(ContourParams {
        step: 2.5,
        turn: 0.4,
        density: 60.0,
        seed: 1,
        max_points: 40,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(other.roads.len(), 82);
    assert_eq!(network_hash(&other), 0xfb07_2b36_dfe2_928b);
}

#[test]
fn a_path_through_another_start_point_ends_there() {
    // Dense starts and 100 m steps: the path from (1606, 2572) leaves due
    // north (bearing 0.09, turned by 0.09) and reaches the start point at
    // (1606, 2603) in its first step, where that start's paths begin.
    let t = Terrain::default();
    let c = ContourRoads::new(ContourParams {
        density: 1000.0,
        step: 100.0,
        max_points: 2,
        ..Default::default()
    })
    .unwrap();
    let net = c.generate(&t, DVec2::new(1400.0, 2400.0), DVec2::new(1800.0, 2800.0));
    net.check_planar().unwrap();
    let (from, start) = (DVec2::new(1606.0, 2572.0), DVec2::new(1606.0, 2603.0));
    let road = (net.roads.iter())
        .find(|r| r.points[0] == from && r.points[1].x == from.x)
        .expect("the road going north");
    assert_eq!(road.points, vec![from, start]);
    assert!(net.junctions.iter().any(|j| j.pos == start));
}

#[test]
fn paths_that_come_back_onto_their_own_roads_stay_planar() {
    // Large turns make paths wander back onto their own roads: touching
    // them at a vertex, landing on them, running along them. Each of these
    // was a place where the roads were not planar.
    let t = Terrain::default();
    for (turn, step, density, at) in [
        (1.0, 5.0, 100.0, DVec2::new(3300.0, -100.0)),
        (
            std::f64::consts::FRAC_PI_3,
            2.0,
            100.0,
            DVec2::new(3300.0, -100.0),
        ),
        (
            std::f64::consts::FRAC_PI_2,
            5.0,
            10.0,
            DVec2::new(-3000.0, 5000.0),
        ),
        (
            std::f64::consts::FRAC_PI_2,
            1.0,
            10.0,
            DVec2::new(-900.0, 3300.0),
        ),
    ] {
        let p = ContourParams {
            turn,
            step,
            density,
            ..Default::default()
        };
        let net = ContourRoads::new(p).unwrap().generate(&t, at, at + 800.0);
        assert!(net.roads.len() > 10, "turn {turn}, step {step}");
        if let Err(e) = net.check_planar() {
            panic!("turn {turn}, step {step}: not planar at {}", e.at);
        }
    }
    // A turn beyond a right angle points back along the last step: refused.
    let back = ContourParams {
        turn: 2.0,
        ..Default::default()
    };
    let err = ContourRoads::new(back).unwrap_err().to_string();
    assert!(err.starts_with("turn"), "{err}");
}

/// The whole-metre cell a point lies in (as `terra()` reads it).
fn whole_metre(p: DVec2) -> DVec2 {
    DVec2::new(java_round(p.x) as f64, java_round(p.y) as f64)
}

#[test]
fn laid_roads_show_in_terra_and_keep_trees_and_buildings_off() {
    let t = Arc::new(Terrain::default());
    let (min, max) = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
    let net = Arc::new(
        ContourRoads::new(ContourParams::default())
            .unwrap()
            .generate(&t, min, max),
    );
    let layer = Arc::new(RoadLayer::new(net.clone()));
    let ground = LaidGround::new(t.clone()).with(LaidKind::Road, layer.clone());
    // A centre-line vertex's cell is road, at the road's surface height.
    let mid = net.roads[0].points[1];
    let s = ground.terra(mid.x, mid.y);
    assert_eq!(s.kind, TerrainKind::Road);
    assert_eq!(s.height, t.height(mid.x, mid.y).max(204.0));
    for tree in ground.trees_in(min, max) {
        assert!(
            !layer.on_road(whole_metre(tree.pos)),
            "tree on a road at {}",
            tree.pos
        );
    }
    assert!(ground.trees_in(min, max).count() < t.trees_in(min, max).count());
    // Elsewhere the laid ground is the bare ground, bit for bit.
    let (mut on, mut off) = (0, 0);
    for j in 0..120 {
        for i in 0..160 {
            let (x, y) = (min.x + i as f64 * 5.0 + 0.3, min.y + j as f64 * 5.0 - 0.2);
            let (laid, bare) = (ground.terra(x, y), t.terra(x, y));
            if layer.on_road(whole_metre(DVec2::new(x, y))) {
                on += 1;
                assert_eq!(laid.kind, TerrainKind::Road);
                assert_eq!(laid.height, bare.height);
            } else {
                off += 1;
                assert_eq!(laid, bare);
            }
        }
    }
    assert!(on > 50 && off > 10_000, "{on} {off}");
    let (_, q, d) = layer.nearest(mid + DVec2::new(3.0, 0.0), 100.0).unwrap();
    assert!(d <= 3.0 + 1e-9 && q.distance(mid) <= 10.0);
}

/// Every road has two distinct points at least and never turns back on
/// itself (the turn is at most a right angle, junction points lie on the
/// segments).
fn assert_roads_go_forward(net: &RoadNetwork, what: &str) {
    for r in &net.roads {
        assert!(r.points.len() >= 2, "{what}: a road of {:?}", r.points);
        for w in r.points.windows(3) {
            let (d0, d1) = (w[1] - w[0], w[2] - w[1]);
            assert!(d0 != DVec2::ZERO && d1 != DVec2::ZERO, "{what}: {w:?}");
            assert!(d0.dot(d1) >= 0.0, "{what}: a road turns back at {w:?}");
        }
    }
}

#[test]
fn junctions_on_a_path_stopped_short_keep_their_order() {
    // Dense starts, 20 m steps: a path stops short on another road, after
    // paths of the same round ended on its proposed segment and before
    // later ones ended on the part it laid. Their junction points were
    // ordered by fractions of different segments, and the road ran back
    // and forth along its line.
    let t = Terrain::default();
    let c = ContourRoads::new(ContourParams {
        density: 1000.0,
        step: 20.0,
        max_points: 5,
        ..Default::default()
    })
    .unwrap();
    for at in [
        DVec2::new(19000.0, 1260.0),
        DVec2::new(-2300.0, 400.0),
        DVec2::new(3000.0, 3000.0),
    ] {
        let net = c.try_generate(&t, at, at + 500.0).unwrap();
        assert!(net.roads.len() > 100, "{at}: {} roads", net.roads.len());
        if let Err(e) = net.check_planar() {
            panic!("{at}: not planar at {}", e.at);
        }
        assert_roads_go_forward(&net, &format!("{at}"));
    }
}

#[test]
fn areas_too_far_for_exact_positions_are_refused() {
    let t = Terrain::default();
    let c = ContourRoads::new(ContourParams::default()).unwrap();
    // At 1e17 m positions are 16 m apart, more than a step.
    let far = DVec2::splat(1e17);
    let err = c.try_generate(&t, far, far + 500.0).unwrap_err();
    assert!(matches!(err, RoadAreaError::TooFar { .. }), "{err:?}");
    assert!(err.to_string().contains("nearer the origin"), "{err}");
    assert_eq!(c.generate(&t, far, far + 500.0), RoadNetwork::default());
    // Just too far once the margin is counted, on either side.
    for at in [
        DVec2::new(0.0, MAX_ROAD_COORD - 600.0),
        DVec2::splat(-MAX_ROAD_COORD),
    ] {
        assert!(matches!(
            c.try_generate(&t, at, at + 100.0),
            Err(RoadAreaError::TooFar { .. })
        ));
    }
    // Within the limit: planar roads of two points or more.
    for at in [
        DVec2::splat(1.0e8),
        DVec2::new(MAX_ROAD_COORD - 3000.0, -MAX_ROAD_COORD + 2500.0),
    ] {
        let net = c.try_generate(&t, at, at + 500.0).unwrap();
        assert!(!net.roads.is_empty(), "{at}");
        net.check_planar().unwrap();
        assert_roads_go_forward(&net, &format!("{at}"));
    }
}

#[test]
fn paths_crossing_at_one_point_share_one_junction() {
    // Three paths of one start cross at one point in the same round (large
    // turns, dense starts); each pair's crossing came out an ulp from the
    // others', and the roads shared two junctions in opposite orders.
    let t = Terrain::default();
    for (step, density, at) in [
        (5.0, 1000.0, DVec2::new(-1200.0, 400.0)),
        (20.0, 1000.0, DVec2::new(-1200.0, 400.0)),
        (20.0, 300.0, DVec2::new(-7000.0, 5000.0)),
    ] {
        let p = ContourParams {
            density,
            step,
            max_points: 12,
            turn: 1.2,
            ..Default::default()
        };
        let net = ContourRoads::new(p).unwrap().generate(&t, at, at + 400.0);
        assert!(
            net.roads.len() > 50,
            "step {step}: {} roads",
            net.roads.len()
        );
        if let Err(e) = net.check_planar() {
            panic!("step {step}, density {density}: not planar at {}", e.at);
        }
        assert_roads_go_forward(&net, &format!("step {step}, density {density}"));
    }
}
