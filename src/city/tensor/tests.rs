//! Tests of the tensor-field streets: the field, RK4, the tracing rules,
//! planarity, obstacles, density, determinism and bad input.

use super::*;
use crate::city::StreetsInput;
use crate::geom::distance_to_segment;
use std::f64::consts::{PI, TAU};

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

fn square(lo: f64, hi: f64) -> Vec<DVec2> {
    vec![v(lo, lo), v(hi, lo), v(hi, hi), v(lo, hi)]
}

/// A 600 m version of the reference field: a grid and a radial centre.
fn small_field() -> TensorField {
    let mut field = TensorField::default();
    field.add(BasisField::grid(v(300.0, 300.0), 600.0, 2.0, 0.3));
    field.add(BasisField::radial(v(390.0, 210.0), 150.0, 3.0));
    field
}

/// Coarser levels for the small square (fast in debug builds).
fn small_params(seed: u64) -> TensorParams {
    let level = |dsep, dtest, dlookahead| StreamlineParams {
        dsep,
        dtest,
        dlookahead,
        ..StreamlineParams::major()
    };
    TensorParams {
        seed,
        main: level(150.0, 75.0, 150.0),
        major: level(60.0, 20.0, 80.0),
        minor: level(30.0, 15.0, 40.0),
        ..TensorParams::default()
    }
}

fn small_input() -> StreetsInput {
    StreetsInput {
        boundary: square(0.0, 600.0),
        ..StreetsInput::default()
    }
}

fn trace(params: TensorParams, field: &TensorField, input: &StreetsInput) -> TracedStreets {
    TensorStreets::new(params)
        .unwrap()
        .trace(field, input)
        .unwrap()
}

/// A round lake of 90 m in the small square.
fn lake() -> Vec<DVec2> {
    (0..24)
        .map(|k| v(250.0, 350.0) + 90.0 * DVec2::from_angle(k as f64 * TAU / 24.0))
        .collect()
}

/// Distance from `p` to a polyline.
fn to_polyline(p: DVec2, line: &[DVec2]) -> f64 {
    line.windows(2)
        .map(|w| distance_to_segment(p, w[0], w[1]))
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn basis_tensors_point_where_the_seed_says() {
    // Grid: major at θ. Radial: major towards the centre.
    let mut f = TensorField::default();
    f.add(BasisField::grid(v(0.0, 0.0), 100.0, 1.0, 0.4));
    let m = f.major(v(10.0, 5.0)).unwrap();
    assert!((m.y.atan2(m.x) - 0.4).abs() < 1e-12, "{m}");
    assert!((f.minor(v(10.0, 5.0)).unwrap().dot(m)).abs() < 1e-12);
    let mut r = TensorField::default();
    r.add(BasisField::radial(v(0.0, 0.0), 100.0, 2.0));
    let p = v(30.0, 40.0);
    assert!(r.major(p).unwrap().perp_dot(p).abs() < 1e-9);
    assert!((r.major(p).unwrap().length() - 1.0).abs() < 1e-12);
    // Polyline along x: major towards it (along y), minor along it.
    let mut l = TensorField::default();
    l.add(BasisField::polyline(
        vec![v(-50.0, 0.0), v(50.0, 0.0)],
        40.0,
        1.0,
    ));
    assert!(l.major(v(3.0, 10.0)).unwrap().x.abs() < 1e-12);
    assert!(l.minor(v(3.0, 0.0)).unwrap().y.abs() < 1e-12);
    // Weights: (1 − d/size)^decay, zero from `size` on.
    assert!(l.major(v(3.0, 41.0)).is_none());
    // Degenerate: nothing reaches, or the radial centre itself; never NaN.
    assert_eq!(TensorField::default().major(v(1.0, 2.0)), None);
    assert_eq!(r.major(v(0.0, 0.0)), None);
    assert_eq!(r.major(v(f64::NAN, 0.0)), None);
}

#[test]
fn heightmap_major_runs_along_the_gradient() {
    let terrain = crate::terrain::Terrain::default();
    let (lo, hi) = (v(1000.0, 1000.0), v(1200.0, 1200.0));
    let b = BasisField::heightmap(&terrain, lo, hi, 10.0, 1e-6).unwrap();
    assert!(b.validate().is_ok());
    let mut f = TensorField::default();
    f.add(b);
    let mut checked = 0;
    for (i, j) in [(3, 4), (10, 2), (15, 17)] {
        let p = lo + v(i as f64, j as f64) * 10.0;
        let g = v(
            terrain.height(p.x + 5.0, p.y) - terrain.height(p.x - 5.0, p.y),
            terrain.height(p.x, p.y + 5.0) - terrain.height(p.x, p.y - 5.0),
        );
        if g.length() > 1e-3 {
            let m = f.major(p).unwrap();
            assert!(m.perp_dot(g.normalize()).abs() < 1e-9, "{m} {g}");
            checked += 1;
        }
    }
    assert!(checked > 0);
    assert!(BasisField::heightmap(&terrain, lo, hi, 0.0, 0.1).is_err());
    assert!(BasisField::heightmap(&terrain, lo, v(1e9, 1e9), 1.0, 0.1).is_err());
}

#[test]
fn rk4_closes_a_circle_around_a_radial_centre() {
    let c = v(500.0, 500.0);
    let mut field = TensorField::default();
    field.add(BasisField::radial(c, 2000.0, 1.0));
    let cache = field
        .sampled(
            v(0.0, 0.0),
            v(1000.0, 1000.0),
            TensorParams::default().field_cell,
        )
        .unwrap();
    for r in [100.0, 200.0, 400.0] {
        let start = c + v(r, 0.0);
        let (mut p, mut prev) = (start, v(0.0, 1.0));
        let (mut turned, mut last) = (0.0, 0.0);
        for _ in 0..(1.2 * TAU * r) as usize {
            let d = trace::rk4(&cache, true, p, prev, 1.0).unwrap();
            p += d;
            prev = d;
            let a = (p - c).y.atan2((p - c).x).rem_euclid(TAU);
            turned += (a - last + PI).rem_euclid(TAU) - PI;
            last = a;
            if turned >= TAU {
                break;
            }
        }
        assert!(turned >= TAU);
        // Back at the start within 1 % of the radius, on the circle.
        assert!(p.distance(start) < 0.01 * r, "r {r}: {}", p.distance(start));
        assert!((p.distance(c) - r).abs() < 0.01 * r);
    }
}

#[test]
fn streets_follow_the_field_and_keep_their_distance() {
    let field = small_field();
    let params = small_params(7);
    let t = trace(params.clone(), &field, &small_input());
    assert!(t.of(Level::Minor).count() > 10, "{}", t.lines.len());
    let cache = field
        .sampled(v(0.0, 0.0), v(600.0, 600.0), params.field_cell)
        .unwrap();
    let mut checked = 0.0;
    for line in &t.lines {
        let pts = &line.points[line.traced.clone()];
        for w in pts.windows(2) {
            let mid = (w[0] + w[1]) / 2.0;
            // Away from degenerate spots and from where the fields blend sharply.
            if cache.major(mid).is_none() || field.tensor(mid).length() < 0.5 {
                continue;
            }
            let e = match line.family {
                Family::Major => field.major(mid).unwrap(),
                Family::Minor => field.minor(mid).unwrap(),
            };
            let d = (w[1] - w[0]).normalize();
            assert!(
                d.perp_dot(e).abs() < 3f64.to_radians().sin(),
                "{d} vs {e} at {mid}"
            );
            checked += w[0].distance(w[1]);
        }
    }
    // Metres of line checked.
    assert!(checked > 10_000.0, "{checked}");
    // Lines of one family: each traced point at least dtest from every
    // earlier line of that family (only joins come closer).
    let dtest = |l: Level| params.levels()[l as usize].dtest;
    for (i, a) in t.lines.iter().enumerate() {
        for b in &t.lines[..i] {
            if a.family != b.family || b.traced.is_empty() {
                continue;
            }
            let bp = &b.points[b.traced.clone()];
            for &p in a.points[a.traced.clone()].iter().step_by(3) {
                let d = to_polyline(p, bp);
                assert!(d >= dtest(a.level) * 0.999, "{:?} {d}", a.level);
            }
        }
    }
}

#[test]
fn streets_are_planar_with_a_node_at_every_crossing() {
    let field = small_field();
    let s = TensorStreets::new(small_params(3))
        .unwrap()
        .generate(&field, &small_input())
        .unwrap();
    assert!(s.network.check_planar().is_ok());
    assert!(s.graph.check_planar().is_ok());
    assert!(s.blocks.len() > 20, "{}", s.blocks.len());
    // Main roads are roads, the rest streets (and the ring).
    use crate::network::RoadClass;
    assert!(s.network.roads.iter().any(|r| r.class == RoadClass::Street));
    assert!(
        s.network
            .roads
            .iter()
            .all(|r| r.class != RoadClass::Highway)
    );
    // Crossing families meet: many junctions of degree 4.
    let fours = (0..s.graph.node_count() as u32)
        .filter(|&n| s.graph.degree(n) == 4)
        .count();
    assert!(fours > 20, "{fours}");
}

#[test]
fn no_street_enters_an_obstacle() {
    let field = small_field();
    let lake = lake();
    let input = StreetsInput {
        obstacles: vec![lake.clone()],
        ..small_input()
    };
    let t = trace(small_params(5), &field, &input);
    let inside = |p: DVec2| crate::city::polygon::polygon_contains(&lake, p);
    let mut shore = 0;
    for line in &t.lines {
        for w in line.points.windows(2) {
            assert!(!inside((w[0] + w[1]) / 2.0), "{:?}", w);
        }
        shore += line
            .ends
            .iter()
            .filter(|&&e| e == LineEnd::Obstacle)
            .count();
    }
    assert!(shore > 3, "{shore}");
    let s = t.to_streets();
    assert!(s.network.check_planar().is_ok());
    assert_eq!(s.obstacles.len(), 1);
}

#[test]
fn streets_are_denser_where_the_density_is_higher() {
    let field = small_field();
    let mut params = small_params(11);
    params.density = DensityParams {
        centre: Some(v(300.0, 300.0)),
        radius: Some(300.0),
        floor: 0.3,
    };
    let t = trace(params, &field, &small_input());
    let (mut inner, mut outer) = (0.0, 0.0);
    for line in t.of(Level::Minor).chain(t.of(Level::Major)) {
        for w in line.points.windows(2) {
            let d = ((w[0] + w[1]) / 2.0).distance(v(300.0, 300.0));
            let len = w[0].distance(w[1]);
            if d < 120.0 {
                inner += len;
            } else if d > 300.0 {
                outer += len;
            }
        }
    }
    let inner_area = PI * 120.0 * 120.0;
    let outer_area = 600.0 * 600.0 - PI * 300.0 * 300.0;
    let (di, d_o) = (inner / inner_area, outer / outer_area);
    assert!(di > 1.5 * d_o, "{di} vs {d_o}");
}

#[test]
fn same_seed_same_streets_other_seed_other_streets() {
    let field = small_field();
    let a = trace(small_params(1), &field, &small_input());
    let b = trace(small_params(1), &field, &small_input());
    let c = trace(small_params(2), &field, &small_input());
    assert_eq!(a.lines, b.lines);
    assert_eq!(a.boundary, b.boundary);
    assert_ne!(a.lines, c.lines);
}

#[test]
fn lines_traced_ahead_are_the_lines_traced_one_by_one() {
    // While a line is traced, the next (the other family's best seed) is
    // traced too and kept if it is still the next: the streets must be
    // those traced one by one, bit for bit, with any tolerance, obstacles,
    // gates, and a budget that runs out.
    let field = small_field();
    let lake = lake();
    let fixed_steps = |seed| {
        let mut p = small_params(seed);
        for level in [&mut p.main, &mut p.major, &mut p.minor] {
            level.tolerance = 0.0;
        }
        p
    };
    let cases = [
        (small_params(1), small_input()),
        (fixed_steps(2), small_input()),
        (
            small_params(5),
            StreetsInput {
                obstacles: vec![lake],
                ..small_input()
            },
        ),
        (
            fixed_steps(4),
            StreetsInput {
                fixed: vec![vec![v(-200.0, 300.0), v(0.0, 300.0), v(300.0, 300.0)]],
                ..small_input()
            },
        ),
    ];
    let kept = || generate::KEPT_AHEAD.with(|k| k.get());
    for (params, input) in cases {
        let g = TensorStreets::new(params).unwrap();
        let before = kept();
        let ahead = g
            .trace_within(&field, &input, MAX_TRACE_STEPS, true)
            .unwrap();
        let mid = kept();
        assert!(mid > before + 3, "{} lines kept ahead", mid - before);
        let alone = g
            .trace_within(&field, &input, MAX_TRACE_STEPS, false)
            .unwrap();
        assert_eq!(kept(), mid, "one by one, nothing is traced ahead");
        assert_eq!(ahead.lines, alone.lines);
        assert_eq!(ahead.junctions, alone.junctions);
        assert_eq!(
            (ahead.boundary, ahead.obstacles, ahead.fixed),
            (alone.boundary, alone.obstacles, alone.fixed)
        );
        // Running out of steps: the same error, at every budget.
        for steps in (500..4_000).step_by(350) {
            let a = g.trace_within(&field, &input, steps, true).map(|t| t.lines);
            let b = g
                .trace_within(&field, &input, steps, false)
                .map(|t| t.lines);
            assert_eq!(a, b, "{steps} steps");
        }
    }
}

#[test]
fn highway_gates_are_joined() {
    let field = small_field();
    let gate = v(300.0, 300.0);
    let input = StreetsInput {
        fixed: vec![vec![v(-200.0, 300.0), v(0.0, 300.0), gate]],
        ..small_input()
    };
    let s = TensorStreets::new(small_params(4))
        .unwrap()
        .generate(&field, &input)
        .unwrap();
    assert!(s.network.check_planar().is_ok());
    let node = s.graph.nodes().iter().position(|&p| p == gate).unwrap();
    assert!(s.graph.degree(node as u32) >= 2);
}

#[test]
fn degenerate_fields_give_empty_or_valid_streets() {
    let g = TensorStreets::new(small_params(0)).unwrap();
    // Nothing reaches the square: the ring alone.
    let mut far = TensorField::default();
    far.add(BasisField::grid(v(1e5, 1e5), 10.0, 1.0, 0.0));
    for field in [TensorField::default(), far] {
        let s = g.generate(&field, &small_input()).unwrap();
        assert_eq!(s.network.roads.len(), 1);
        assert_eq!(s.blocks.len(), 1);
    }
    // One radial centre: rays and circles, stopping short of the centre.
    let mut radial = TensorField::default();
    radial.add(BasisField::radial(v(300.0, 300.0), 1000.0, 1.0));
    let t = g.trace(&radial, &small_input()).unwrap();
    assert!(t.lines.len() > 10);
    assert!(
        t.lines
            .iter()
            .flat_map(|l| &l.points)
            .all(|p| p.is_finite())
    );
    assert!(t.to_streets().network.check_planar().is_ok());
    // Two grids at right angles cancel exactly along a line.
    let mut cancel = TensorField::default();
    cancel.add(BasisField::grid(v(0.0, 300.0), 600.0, 1.0, 0.0));
    cancel.add(BasisField::grid(v(600.0, 300.0), 600.0, 1.0, PI / 2.0));
    assert!(cancel.major(v(300.0, 100.0)).is_none());
    let t = g.trace(&cancel, &small_input()).unwrap();
    assert!(t.to_streets().network.check_planar().is_ok());
}

#[test]
fn bad_parameters_and_inputs_are_errors() {
    let bad = |f: fn(&mut TensorParams)| {
        let mut p = TensorParams::default();
        f(&mut p);
        TensorStreets::new(p).is_err()
    };
    assert!(TensorStreets::new(TensorParams::default()).is_ok());
    assert!(bad(|p| p.minor.dstep = f64::NAN));
    assert!(bad(|p| p.minor.dtest = 30.0)); // more than dsep
    assert!(bad(|p| p.major.join_angle = -0.1));
    assert!(bad(|p| p.main.max_length = 1e9));
    assert!(bad(|p| p.main.dstep = 1e-3));
    assert!(bad(|p| p.density.floor = 0.0));
    assert!(bad(|p| p.field_cell = 0.0));
    assert!(bad(|p| p.minor.seed_tries = u32::MAX));
    let g = TensorStreets::new(small_params(0)).unwrap();
    let field = small_field();
    let with = |boundary: Vec<DVec2>| StreetsInput {
        boundary,
        ..StreetsInput::default()
    };
    assert!(g.generate(&field, &with(vec![])).is_err());
    assert!(
        g.generate(&field, &with(vec![v(0.0, 0.0), v(1.0, 1.0), v(2.0, 2.0)]))
            .is_err()
    );
    assert!(
        g.generate(
            &field,
            &with(vec![v(0.0, 0.0), v(f64::NAN, 1.0), v(2.0, 0.0)])
        )
        .is_err()
    );
    assert!(matches!(
        g.generate(&field, &with(square(0.0, 1e6))),
        Err(TensorError::TooLarge { .. } | TensorError::Budget { .. })
    ));
    let mut nan = small_field();
    nan.add(BasisField::radial(v(f64::NAN, 0.0), 10.0, 1.0));
    assert!(g.generate(&nan, &small_input()).is_err());
    let mut negative = small_field();
    negative.add(BasisField::grid(v(0.0, 0.0), -5.0, 1.0, 0.0));
    assert!(g.generate(&negative, &small_input()).is_err());
    let mut short = small_field();
    short.add(BasisField::polyline(vec![v(0.0, 0.0)], 5.0, 1.0));
    assert!(g.generate(&short, &small_input()).is_err());
}

#[test]
fn fields_and_params_round_trip_through_ron() {
    let mut field = small_field();
    field.add(BasisField::polyline(
        vec![v(0.0, 0.0), v(50.0, 10.0)],
        80.0,
        2.0,
    ));
    let text = ron::to_string(&field).unwrap();
    assert_eq!(ron::from_str::<TensorField>(&text).unwrap(), field);
    let params = small_params(9);
    let text = ron::to_string(&params).unwrap();
    assert_eq!(ron::from_str::<TensorParams>(&text).unwrap(), params);
    let partial: TensorParams = ron::from_str("(seed: 3)").unwrap();
    assert_eq!(partial.minor, StreamlineParams::minor());
}

/// The reference scenario (slow in debug builds; `benches/tensor.rs` times it).
#[test]
#[ignore]
fn reference_scenario_matches_the_peer_length() {
    let mut field = TensorField::default();
    field.add(BasisField::grid(v(1000.0, 1000.0), 2000.0, 2.0, 0.3));
    field.add(BasisField::radial(v(1300.0, 700.0), 400.0, 5.0));
    let params = TensorParams {
        seed: 42,
        ..TensorParams::default()
    };
    let input = StreetsInput {
        boundary: square(0.0, 2000.0),
        ..StreetsInput::default()
    };
    let t = trace(params, &field, &input);
    let raw: f64 = Level::ALL.iter().map(|&l| t.raw_length(l)).sum();
    // The peer traces about 299 km of raw streamline on this scenario.
    assert!((raw / 299_000.0 - 1.0).abs() < 0.2, "{raw}");
    assert!(t.to_streets().network.check_planar().is_ok());
}
