//! Tests of the planar street generator: the invariants of issue 12 on
//! many seeds, on obstacles, fixed roads and seed-grown cities, on real
//! city footprints; determinism; bad parameters and inputs.

use super::work::{Origin, Work};
use super::*;
use crate::city::polygon::signed_area;
use crate::city::{SeedNode, SettlementParams, Settlements};
use crate::geom::PlanarGraph;
use crate::terrain::Terrain;
use std::f64::consts::TAU;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// A counter-clockwise ellipse of `n` vertices.
fn ellipse(centre: DVec2, a: f64, b: f64, n: usize) -> Vec<DVec2> {
    (0..n)
        .map(|i| {
            let t = i as f64 / n as f64 * TAU;
            centre + v(a * t.cos(), b * t.sin())
        })
        .collect()
}

/// The reference levels cut to `n` (the debug tests use two).
fn params(seed: u64, n: usize) -> PlanarParams {
    let mut p = PlanarParams {
        seed,
        ..PlanarParams::default()
    };
    p.levels.truncate(n);
    p
}

fn ring_input(boundary: Vec<DVec2>) -> StreetsInput {
    StreetsInput {
        boundary,
        ..StreetsInput::default()
    }
}

/// The graph (with obstacle outlines and node origins) and the output.
fn run(p: &PlanarParams, input: &StreetsInput) -> (Work, Streets) {
    let g = PlanarStreets::new(p.clone()).unwrap();
    let work = g.build(input).unwrap();
    let streets = g.output(&work, input);
    (work, streets)
}

fn is_street(g: &PlanarGraph, e: u32) -> bool {
    matches!(work::role(g, e), EdgeRole::Street(_))
}

/// Everything issue 12 asks of the streets, on the graph before output
/// (`work`, with obstacle outlines) and on the output.
///
/// Clearance, exactly: a node made by level `l`'s node step lies at least
/// `levels[l].clearance` from every node made before it (given, seed,
/// split or generated; node ids follow creation order). Given, seed and
/// split nodes have no clearance of their own.
fn check(p: &PlanarParams, input: &StreetsInput, work: &Work, s: &Streets) {
    let g = &work.graph;
    let cos_min = p.min_angle_deg.to_radians().cos();
    assert_eq!(g.check_planar(), Ok(()));
    assert_eq!(s.graph.check_planar(), Ok(()));
    assert!(s.network.check_planar().is_ok());
    let obstacles = Obstacles::new(&input.obstacles);
    for n in 0..g.node_count() as NodeId {
        let here = g.pos(n);
        let streets: Vec<u32> = (g.incident(n).iter().copied())
            .filter(|&e| is_street(g, e))
            .collect();
        if !streets.is_empty() {
            assert!(g.degree(n) <= p.max_degree as usize, "degree at {here}");
            assert!(
                !obstacles.contains(here),
                "street node {here} in an obstacle"
            );
            // Off the ring, strictly inside it.
            let on_ring = g
                .incident(n)
                .iter()
                .any(|&e| work::role(g, e) == EdgeRole::Ring);
            if !input.boundary.is_empty() && !on_ring {
                assert!(polygon_contains(&input.boundary, here), "{here} outside");
            }
        }
        // Angles between a street and any other edge at the node.
        for &e in &streets {
            let d = (g.pos(g.other(e, n)) - here).normalize();
            for &f in g.incident(n) {
                if f != e {
                    let d2 = (g.pos(g.other(f, n)) - here).normalize();
                    assert!(d.dot(d2) <= cos_min + 1e-9, "angle at {here}");
                }
            }
        }
        if let Origin::Level(l) = work.meta[n as usize].origin {
            let c = p.levels[l as usize].clearance;
            for m in g.nodes_within(here, c) {
                assert!(
                    m >= n || g.pos(m).distance(here) >= c,
                    "clearance at {here}"
                );
            }
        }
    }
    for (i, e) in g.edges().iter().enumerate() {
        if is_street(g, i as u32) {
            let [a, b] = e.ends;
            assert!(!g.shares_neighbour(a, b), "triangle at {}", g.pos(a));
            let mid = g.pos(a).lerp(g.pos(b), 0.5);
            assert!(
                !obstacles.contains(mid),
                "street through an obstacle at {mid}"
            );
            if !input.boundary.is_empty() {
                assert!(
                    polygon_contains(&input.boundary, mid),
                    "street outside at {mid}"
                );
            }
        }
    }
    // Euler on the output: V − E + F = 1 + C (F counts the outer face once).
    let out = &s.graph;
    let parts = out.components();
    let c = parts.iter().max().map_or(0, |&m| m as usize + 1);
    let faces = out.faces();
    let bounded = faces.iter().filter(|f| !f.is_outer()).count();
    // Blocks: the bounded faces but the obstacles' insides.
    let obstacle = EdgeRole::Obstacle.label();
    let insides = (faces.iter())
        .filter(|f| {
            !f.is_outer()
                && f.edges
                    .iter()
                    .all(|&(e, _)| out.edges()[e as usize].label == obstacle)
        })
        .count();
    assert_eq!(bounded - insides, s.blocks.len());
    assert_eq!(
        out.node_count() as i64 - out.edge_count() as i64 + bounded as i64 + 1,
        1 + c as i64
    );
    assert!(s.blocks.iter().all(|b| signed_area(b) > 0.0));
}

/// The streets are one connected graph (an obstacle outline that no
/// street reaches stands apart).
fn connected(s: &Streets) -> bool {
    let g = &s.graph;
    let obstacle = EdgeRole::Obstacle.label();
    let parts = g.components();
    let road = |n: u32| {
        g.incident(n)
            .iter()
            .any(|&e| g.edges()[e as usize].label != obstacle)
    };
    let first = (0..g.node_count() as u32)
        .find(|&n| road(n))
        .map(|n| parts[n as usize]);
    (0..g.node_count() as u32).all(|n| !road(n) || Some(parts[n as usize]) == first)
}

/// The blocks' areas (obstacle outlines no street reaches are cut out of
/// them) add up to the ring's, less the obstacles inside it.
fn tiles(s: &Streets, ring: &[DVec2]) -> bool {
    let sum: f64 = s.blocks.iter().map(|b| signed_area(b)).sum::<f64>();
    let inside: f64 = (s.obstacles.iter())
        .filter(|o| o.iter().all(|&p| polygon_contains(ring, p)))
        .map(|o| signed_area(o).abs())
        .sum();
    let area = signed_area(ring) - inside;
    (sum - area).abs() <= 1e-6 * area
}

fn street_count(s: &Streets) -> usize {
    let g = &s.graph;
    (0..g.edge_count() as u32)
        .filter(|&e| is_street(g, e))
        .count()
}

#[test]
fn rings_on_twenty_seeds_keep_every_invariant() {
    let ring = ellipse(v(300.0, -200.0), 600.0, 450.0, 40);
    let input = ring_input(ring.clone());
    for seed in 0..20 {
        let p = params(seed, 2);
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert!(connected(&s), "seed {seed}");
        assert!(tiles(&s, &ring), "seed {seed}");
        // Both levels drew streets; the blocks are many.
        for l in 0..2 {
            let label = EdgeRole::Street(l).label();
            assert!(s.graph.edges().iter().any(|e| e.label == label));
        }
        assert!(
            s.blocks.len() > 20,
            "seed {seed}: {} blocks",
            s.blocks.len()
        );
    }
}

#[test]
fn the_same_input_gives_the_same_city_and_another_seed_another() {
    let input = ring_input(ellipse(DVec2::ZERO, 500.0, 400.0, 32));
    let a = PlanarStreets::new(params(3, 2)).unwrap();
    let (x, y) = (a.generate(&input).unwrap(), a.generate(&input).unwrap());
    assert_eq!(x.network, y.network);
    assert_eq!(x.blocks, y.blocks);
    assert_eq!(x.graph.nodes(), y.graph.nodes());
    let z = PlanarStreets::new(params(4, 2))
        .unwrap()
        .generate(&input)
        .unwrap();
    assert_ne!(x.network, z.network);
}

#[test]
fn a_fractional_or_zero_split_number_is_a_chance() {
    let seed = |split| StreetsInput {
        seeds: vec![SeedNode {
            pos: DVec2::ZERO,
            split,
        }],
        ..StreetsInput::default()
    };
    let p = params(1, 1);
    // Split 0 never splits: a lone node, removed as isolated.
    assert_eq!(run(&p, &seed(0.0)).1.graph.node_count(), 0);
    // Split 0.5 splits on some seeds and not on others.
    let grew: Vec<bool> = (0..16)
        .map(|s| run(&params(s, 1), &seed(0.5)).1.graph.edge_count() > 0)
        .collect();
    assert!(grew.contains(&true) && grew.contains(&false), "{grew:?}");
    // More generations, more nodes.
    let n = |split| run(&p, &seed(split)).1.graph.node_count();
    assert!(n(1.0) > 0 && n(1.0) < n(2.0) && n(2.0) < n(3.0));
}

#[test]
fn seeds_grow_a_connected_city_and_the_outer_split_sprawls() {
    let seeds: Vec<SeedNode> = [(0., 0.), (450., 0.), (-450., 0.), (0., 450.), (0., -450.)]
        .map(|(x, y)| SeedNode {
            pos: v(x, y),
            split: 2.5,
        })
        .to_vec();
    let input = StreetsInput {
        seeds,
        ..StreetsInput::default()
    };
    for seed in 0..4 {
        let p = params(seed, 2);
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert!(connected(&s) && s.blocks.len() > 5);
        // Growing the outer face spreads the city.
        let sprawl = PlanarParams {
            outer_split: 1.0,
            ..p.clone()
        };
        let (work2, s2) = run(&sprawl, &input);
        check(&sprawl, &input, &work2, &s2);
        let area = |s: &Streets| {
            let (lo, hi) = s.graph.bounds();
            (hi - lo).x * (hi - lo).y
        };
        assert!(area(&s2) > area(&s), "seed {seed}");
    }
}

#[test]
fn streets_route_around_obstacles_inside_and_across_the_ring() {
    let ring = ellipse(DVec2::ZERO, 600.0, 450.0, 40);
    let inside = ellipse(v(-200.0, 0.0), 120.0, 90.0, 16);
    let across = ellipse(v(560.0, 0.0), 200.0, 150.0, 20);
    for seed in 0..6 {
        let input = StreetsInput {
            boundary: ring.clone(),
            obstacles: vec![inside.clone(), across.clone()],
            ..StreetsInput::default()
        };
        let p = params(seed, 2);
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert_eq!(s.obstacles, input.obstacles);
        // The ring stops at the lake that crosses it.
        let ring_label = EdgeRole::Ring.label();
        assert!(s.graph.edges().iter().all(|e| {
            e.label != ring_label
                || !polygon_contains(
                    &across,
                    s.graph.pos(e.ends[0]).lerp(s.graph.pos(e.ends[1]), 0.5),
                )
        }));
        assert!(street_count(&s) > 50);
        // A lake inside alone: the blocks still tile the ring.
        let input = StreetsInput {
            obstacles: vec![inside.clone()],
            ..input
        };
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert!(tiles(&s, &ring) && connected(&s));
    }
}

#[test]
fn fixed_roads_stay_whole_and_every_gate_gets_a_street() {
    let ring = ellipse(DVec2::ZERO, 600.0, 450.0, 40);
    // One highway ends inside, one crosses the ring and ends on nothing
    // inside, one ends exactly on a ring vertex.
    let fixed = vec![
        vec![v(-1200.0, 100.0), v(-800.0, 60.0), v(-250.0, 20.0)],
        vec![v(0.0, -1000.0), v(10.0, -300.0)],
        vec![v(600.0, 900.0), ring[10]],
    ];
    let gates = [v(-250.0, 20.0), v(10.0, -300.0), ring[10]];
    for seed in 0..6 {
        let input = StreetsInput {
            boundary: ring.clone(),
            fixed: fixed.clone(),
            ..StreetsInput::default()
        };
        let p = params(seed, 2);
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert!(connected(&s));
        let g = &s.graph;
        for gate in gates {
            let n = g.nodes_within(gate, 0.0)[0];
            assert!(
                g.incident(n).iter().any(|&e| is_street(g, e)),
                "seed {seed}: no street at gate {gate}"
            );
        }
        // The fixed roads are in the network whole, as highways.
        let highway: f64 = (s.network.roads.iter())
            .filter(|r| r.class == RoadClass::Highway)
            .map(|r| r.length())
            .sum();
        let given: f64 = (fixed.iter())
            .flat_map(|f| f.windows(2).map(|w| w[0].distance(w[1])))
            .sum();
        assert!((highway - given).abs() < 1e-6, "{highway} vs {given}");
    }
}

#[test]
fn real_city_footprints_keep_every_invariant() {
    let settlements = Settlements::new(SettlementParams::default()).unwrap();
    let cities = settlements.cities_in(&Terrain::default(), DVec2::ZERO, DVec2::splat(20_000.0));
    assert!(cities.len() >= 3, "{} cities", cities.len());
    for (i, city) in cities.iter().enumerate() {
        let p = params(i as u64, 3);
        let input = ring_input(city.boundary.clone());
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert!(
            connected(&s) && tiles(&s, &city.boundary),
            "city {:?}",
            city.id
        );
        assert!(street_count(&s) > 10, "city {:?}", city.id);
    }
}

/// The reference case with all three levels.
#[test]
fn the_reference_city_keeps_every_invariant() {
    let ring = ellipse(DVec2::ZERO, 1000.0, 800.0, 64);
    let input = ring_input(ring.clone());
    for seed in [7, 8] {
        let p = params(seed, 3);
        let (work, s) = run(&p, &input);
        check(&p, &input, &work, &s);
        assert!(connected(&s) && tiles(&s, &ring));
        assert!(s.blocks.len() > 1000);
    }
}

#[test]
fn bad_parameters_are_named() {
    let bad = |f: fn(&mut PlanarParams)| {
        let mut p = PlanarParams::default();
        f(&mut p);
        match PlanarStreets::new(p).unwrap_err() {
            ParamError::NotFinite { field, .. } | ParamError::OutOfRange { field, .. } => field,
            other => panic!("{other:?}"),
        }
    };
    PlanarParams::default().validate().unwrap();
    assert_eq!(bad(|p| p.min_angle_deg = 95.0), "min_angle_deg");
    assert_eq!(bad(|p| p.min_angle_deg = f64::NAN), "min_angle_deg");
    assert_eq!(bad(|p| p.outer_split = -1.0), "outer_split");
    assert_eq!(bad(|p| p.levels.clear()), "levels");
    assert_eq!(
        bad(|p| p.levels = vec![StreetLevel::default(); 9]),
        "levels"
    );
    assert_eq!(bad(|p| p.levels[1].clearance = 0.0), "levels[1].clearance");
    assert_eq!(
        bad(|p| p.levels[0].extension.0 = 100.0),
        "levels[0].extension.0"
    );
    assert_eq!(
        bad(|p| p.levels[2].extension = (30.0, 25.0)),
        "levels[2].extension.1"
    );
    assert_eq!(
        bad(|p| p.levels[1].connection_radius = f64::INFINITY),
        "levels[1].connection_radius"
    );
    assert_eq!(
        bad(|p| p.levels[0].split_length = 0.0),
        "levels[0].split_length"
    );
    // The last level's split length is unused.
    let mut p = PlanarParams::default();
    p.levels[2].split_length = f64::NAN;
    p.validate().unwrap();
    assert_eq!(bad(|p| p.candidates = (0, 16)), "candidates.0");
    assert_eq!(bad(|p| p.candidates = (12, 10)), "candidates.1");
    assert_eq!(bad(|p| p.max_degree = 2), "max_degree");
    assert_eq!(bad(|p| p.align_weight = -1.0), "align_weight");
    assert_eq!(bad(|p| p.distance_weight = f64::NAN), "distance_weight");
    assert_eq!(bad(|p| p.continue_at_end = 1.5), "continue_at_end");
    assert_eq!(
        bad(|p| p.continue_at_crossing = -0.1),
        "continue_at_crossing"
    );
    assert_eq!(bad(|p| p.street_widths.clear()), "street_widths");
    assert_eq!(bad(|p| p.street_widths[0] = 0.0), "street_widths");
    // Serde fills the defaults and names unknown keys.
    let p: PlanarParams = ron::from_str("(seed: 9)").unwrap();
    assert_eq!(p.levels, PlanarParams::default().levels);
    assert!(ron::from_str::<PlanarParams>("(sed: 9)").is_err());
}

#[test]
fn degenerate_inputs_give_errors_or_nothing() {
    let g = PlanarStreets::new(params(1, 2)).unwrap();
    // Nothing at all: an empty city.
    let s = g.generate(&StreetsInput::default()).unwrap();
    assert_eq!((s.graph.node_count(), s.blocks.len()), (0, 0));
    // A triangle ring: at least itself.
    let tri = vec![v(0.0, 0.0), v(300.0, 0.0), v(0.0, 300.0)];
    let s = g.generate(&ring_input(tri.clone())).unwrap();
    assert!(tiles(&s, &tri));
    // A ring too small for any node or chord: the ring alone, one block.
    let s = g
        .generate(&ring_input(ellipse(DVec2::ZERO, 20.0, 10.0, 3)))
        .unwrap();
    assert_eq!((s.blocks.len(), street_count(&s)), (1, 0));
    let err = |input: StreetsInput| g.generate(&input).unwrap_err();
    let nan = v(f64::NAN, 0.0);
    assert_eq!(
        err(ring_input(vec![v(0.0, 0.0), nan, v(0.0, 1.0)])),
        StreetsError::NotFinite { what: "boundary" }
    );
    assert_eq!(
        err(ring_input(vec![v(0.0, 0.0), v(1.0, 0.0)])),
        StreetsError::TooFewPoints {
            what: "boundary",
            len: 2
        }
    );
    let mut cw = tri.clone();
    cw.reverse();
    assert!(matches!(
        err(ring_input(cw)),
        StreetsError::BoundaryClockwise(_)
    ));
    let bow = vec![v(0.0, 0.0), v(100.0, 100.0), v(100.0, 0.0), v(0.0, 100.0)];
    assert!(matches!(
        err(ring_input(bow)),
        StreetsError::BoundaryNotSimple(..)
    ));
    let doubled = vec![v(0.0, 0.0), v(100.0, 0.0), v(100.0, 0.0), v(0.0, 100.0)];
    assert_eq!(
        err(ring_input(doubled)),
        StreetsError::BoundaryNotSimple(1, 1)
    );
    let seeds = |split| StreetsInput {
        seeds: vec![SeedNode {
            pos: DVec2::ZERO,
            split,
        }],
        ..StreetsInput::default()
    };
    assert!(matches!(
        err(seeds(f64::NAN)),
        StreetsError::NotFinite { .. }
    ));
    assert!(matches!(err(seeds(1e6)), StreetsError::NotFinite { .. }));
    let short = StreetsInput {
        fixed: vec![vec![v(0.0, 0.0)]],
        ..StreetsInput::default()
    };
    assert!(matches!(
        err(short),
        StreetsError::TooFewPoints { what: "fixed", .. }
    ));
    let flat = StreetsInput {
        obstacles: vec![vec![v(0.0, 0.0), v(1.0, 0.0)]],
        ..StreetsInput::default()
    };
    assert!(matches!(
        err(flat),
        StreetsError::TooFewPoints {
            what: "obstacles",
            ..
        }
    ));
    let many = ring_input(ellipse(DVec2::ZERO, 1e4, 1e4, MAX_GIVEN_POINTS + 1));
    assert!(matches!(err(many), StreetsError::TooLarge { .. }));
    // A ring far too big for the clearance is refused before any work.
    let huge = ring_input(ellipse(DVec2::ZERO, 50_000.0, 50_000.0, 64));
    assert_eq!(err(huge), StreetsError::TooMuchWork { max: MAX_NODES });
}
