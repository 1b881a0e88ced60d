//! Degenerate and oversized input: ends a hair apart, windows too large
//! to cache, unchecked paths and splines. Each must end at once with a
//! road or a typed error.

use super::graph::SearchGraph;
use super::*;
use crate::terrain::Terrain;
use glam::DVec2;

fn both() -> [(&'static str, &'static dyn RoadPlanner); 2] {
    [("A*", &AStarPlanner), ("sequential", &SequentialPlanner)]
}

#[test]
fn ends_closer_than_half_a_step_give_the_straight_road() {
    let t = Terrain::default();
    let p = PlannerParams::default();
    let from = DVec2::new(-3000.0, 2000.0);
    // Coincident, 1e-9 m, 1 mm, 1 cm, and just under half a step (20 m).
    for d in [0.0, 1e-9, 1e-3, 1e-2, 19.99] {
        let to = from + DVec2::new(0.8, 0.6) * d;
        for (name, planner) in both() {
            let road = planner
                .plan(&t, from, to, &p)
                .unwrap_or_else(|e| panic!("{name}, {d} m: {e}"));
            assert_eq!(road.points, vec![from, to], "{name}, {d} m");
            assert!(road.bridges.is_empty());
            assert_eq!(road.work, 0, "{name}, {d} m: no search");
            assert!(
                road.cost.is_finite() && road.cost >= 0.0,
                "{name}: {}",
                road.cost
            );
            assert_eq!(road.smoothed, vec![from, to]);
            let rescored = score_path(&t, &road.points, &road.bridges, &p).unwrap();
            assert_eq!(road.cost, rescored.total());
        }
    }
    // Half a step and more: a search, on a grid no finer than the step's half.
    let to = from + DVec2::new(20.0, 0.0);
    let road = AStarPlanner.plan(&t, from, to, &p).unwrap();
    assert_eq!((road.points[0], *road.points.last().unwrap()), (from, to));
    assert!(road.work > 0);
}

#[test]
fn close_ends_across_water_need_a_bridge() {
    let t = Terrain::default();
    let lake = t.params().lake_level;
    // Along y = 1750 from x = 8360 the ground dips under a lake: the first
    // dry point past it.
    let dry = |x: f64| t.height(x, 1750.0) >= lake;
    let from = DVec2::new(8360.0, 1750.0);
    assert!(dry(from.x));
    let wet = (0..600)
        .map(|k| from.x + k as f64)
        .find(|&x| !dry(x))
        .unwrap();
    let shore = (0..600).map(|k| wet + k as f64).find(|&x| dry(x)).unwrap();
    let to = DVec2::new(shore + 5.0, 1750.0);
    assert!(dry(to.x) && from.distance(to) < 500.0, "{to}");
    // A 1 km step: the ends are closer than half of it.
    let mut p = PlannerParams {
        step: 1000.0,
        sample: 100.0,
        ..Default::default()
    };
    for (name, planner) in both() {
        let e = planner.plan(&t, from, to, &p).unwrap_err();
        assert!(matches!(e, PlanError::NoRoad(_)), "{name}: {e:?}");
    }
    p.bridges = true;
    p.max_span = 1000.0;
    for (name, planner) in both() {
        let road = planner.plan(&t, from, to, &p).unwrap();
        assert_eq!(road.points, vec![from, to], "{name}");
        assert_eq!(road.bridges, vec![(0, 1)], "{name}");
        assert!(road.breakdown.bridge > 0.0);
    }
    // Too long a deck for `max_span`: no road.
    p.max_span = 10.0;
    let e = AStarPlanner.plan(&t, from, to, &p).unwrap_err();
    assert!(matches!(e, PlanError::NoRoad(_)), "{e:?}");
}

#[test]
fn search_graph_refuses_ends_without_a_grid() {
    let t = Terrain::default();
    let p = PlannerParams::default();
    let from = DVec2::new(-3000.0, 2000.0);
    for d in [0.0, 1e-9, 1.0] {
        let e = SearchGraph::new(&t, from, from + DVec2::new(d, 0.0), &p).err();
        assert!(
            matches!(e, Some(PlanError::TooShort { .. })),
            "{d} m: {e:?}"
        );
    }
    let mut bad = p.clone();
    bad.step = f64::NAN;
    let e = SearchGraph::new(&t, from, from + DVec2::X * 100.0, &bad).err();
    assert!(matches!(e, Some(PlanError::Params(_))), "{e:?}");
}

#[test]
fn a_window_too_large_to_cache_is_refused() {
    let t = Terrain::default();
    // Valid fields, together a window of millions of cells a side.
    let p = PlannerParams {
        step: 1.0,
        sample: 0.5,
        window: 4.0,
        distance_factor: 10.0,
        ..Default::default()
    };
    let (from, to) = (DVec2::new(0.0, 0.0), DVec2::new(0.0, 4000.0));
    let e = AStarPlanner.plan(&t, from, to, &p).unwrap_err();
    let PlanError::WindowTooLarge { bytes, max } = e else {
        panic!("{e:?}");
    };
    assert!(bytes > max && max == MAX_WINDOW_BYTES);
    assert!(e.to_string().contains("window"), "{e}");
    let e = SearchGraph::new(&t, from, to, &p).err();
    assert!(matches!(e, Some(PlanError::WindowTooLarge { .. })), "{e:?}");
    // The cap leaves the usual requests alone: a 20 km one at the defaults.
    let q = PlannerParams {
        max_expansions: 1,
        ..Default::default()
    };
    let far = DVec2::new(8000.0, 3000.0) + DVec2::new(-12000.0, 16000.0);
    let e = AStarPlanner.plan(&t, DVec2::new(8000.0, 3000.0), far, &q);
    assert!(!matches!(e, Err(PlanError::WindowTooLarge { .. })), "{e:?}");
}

#[test]
fn score_path_checks_its_input() {
    let t = Terrain::default();
    let ok = PlannerParams::default();
    let pts = [DVec2::new(0.0, 0.0), DVec2::new(0.0, 400.0)];
    assert!(score_path(&t, &pts, &[], &ok).is_ok());
    assert_eq!(score_path(&t, &[], &[], &ok), Ok(CostBreakdown::default()));
    // Step and sample: 0 and 1e-9 hung (a walk of 10¹¹ samples per metre).
    for (step, sample) in [(0.0, 20.0), (1e-9, 1e-9), (40.0, 0.0), (40.0, f64::NAN)] {
        let p = PlannerParams {
            step,
            sample,
            ..ok.clone()
        };
        let e = score_path(&t, &pts, &[], &p).unwrap_err();
        assert!(matches!(e, PlanError::Params(_)), "{step}, {sample}: {e:?}");
    }
    // Points not finite or beyond the world.
    for bad in [f64::NAN, f64::INFINITY, 1e300] {
        let path = [pts[0], DVec2::new(bad, 0.0), pts[1]];
        let e = score_path(&t, &path, &[], &ok).unwrap_err();
        assert_eq!(e, PlanError::PathPoint(1));
    }
    // Ends a hair apart with a long way between: the frame keeps the
    // step's grid (the cell once shrank to the ends' distance).
    let loop_path = [
        DVec2::new(0.0, 0.0),
        DVec2::new(300.0, 0.0),
        DVec2::new(300.0, 300.0),
        DVec2::new(1e-9, 0.0),
    ];
    let c = score_path(&t, &loop_path, &[], &ok).unwrap();
    assert!(c.total().is_finite());
    // Too many samples for the finest valid spacing: refused, naming `sample`.
    let fine = PlannerParams {
        step: 1.0,
        sample: 0.5,
        ..ok.clone()
    };
    let far = [
        DVec2::ZERO,
        DVec2::new(4.0e6, 0.0),
        DVec2::new(4.0e6, 4.0e6),
        DVec2::ZERO,
    ];
    let e = score_path(&t, &far, &[], &fine).unwrap_err();
    assert!(matches!(e, PlanError::PathTooFine { .. }), "{e:?}");
    assert!(e.to_string().contains("sample"), "{e}");
    // Bridge ranges out of order or past the end are ignored, not a panic.
    let odd = [(1, 0), (0, usize::MAX), (7, 9)];
    let c = score_path(&t, &pts, &odd, &ok).unwrap();
    assert!(c.bridge > 0.0);
}

#[test]
fn spline_checks_tension_and_points() {
    let pts = [DVec2::ZERO, DVec2::new(10.0, 0.0), DVec2::new(10.0, 10.0)];
    for tension in [f64::NAN, f64::INFINITY, -0.1, 1.5] {
        let e = cardinal_spline(&pts, tension, 4).unwrap_err();
        assert!(
            matches!(e, PlanError::Params(ref p) if p.to_string().contains("tension")),
            "{tension}: {e:?}"
        );
    }
    for per in [0, 65] {
        assert!(cardinal_spline(&pts, 0.5, per).is_err(), "{per}");
    }
    let bad = [pts[0], DVec2::new(f64::NAN, 1.0), pts[2]];
    assert_eq!(
        cardinal_spline(&bad, 0.5, 4).unwrap_err(),
        PlanError::PathPoint(1)
    );
    let s = cardinal_spline(&pts, 0.5, 4).unwrap();
    assert!(s.iter().all(|p| p.is_finite()) && s.len() == 9);
}

#[test]
fn few_candidates_give_a_sane_road() {
    // The 4 km pairs of the bench: with 3 candidates (validation's least)
    // roads at factor 1 came to 1.7 to 2.5 times the direct line, and to
    // 8.7 elsewhere (a fan of three across 180° offers sharp turns only);
    // 5 and 7 came to 1.8 and 2.4. Now 1.17 to 1.50, as with the default 9.
    let t = Terrain::default();
    for k in [3, 5, 7] {
        // The fan's mechanics, on the thesis' cost (raw ground, no works).
        let p = PlannerParams {
            candidates: k,
            ..super::tests::thesis()
        };
        for ((a, b), (c, d)) in [
            ((0.0, 0.0), (0.0, 4000.0)),
            ((1000.0, 1000.0), (5000.0, 1500.0)),
            ((8000.0, 3000.0), (4200.0, 4300.0)),
            ((-3000.0, 2000.0), (-200.0, -900.0)),
        ] {
            let (from, to) = (DVec2::new(a, b), DVec2::new(c, d));
            let road = SequentialPlanner.plan(&t, from, to, &p).unwrap();
            let ratio = road.length() / from.distance(to);
            assert!(
                ratio <= 1.55,
                "{k} candidates, {from} -> {to}: {ratio:.2} times the direct line"
            );
        }
    }
}

#[test]
fn a_fine_smoothed_road_is_checked_and_planarized_in_linear_work() {
    use crate::network::{Road, RoadClass, RoadNetwork, planarize};
    // The probe's case: 1 m steps, 64 spline points a step — a dense,
    // wiggly polyline of tens of thousands of points.
    let t = Terrain::default();
    let p = PlannerParams {
        step: 1.0,
        sample: 0.5,
        spline_points: 64,
        ..PlannerParams::default()
    };
    let (from, to) = (DVec2::new(8000.0, 3000.0), DVec2::new(7700.0, 3100.0));
    let road = SequentialPlanner.plan(&t, from, to, &p).unwrap();
    assert!(road.smoothed.len() > 10_000, "{}", road.smoothed.len());
    let net = RoadNetwork::from_roads(vec![Road {
        z: Vec::new(),
        points: road.smoothed,
        class: RoadClass::Road,
        width: 5.0,
    }]);
    // Either verdict is fine (a spline may loop); it must come, bounded.
    let _ = net.check_planar();
    let flat = planarize(vec![net]);
    flat.check_planar_strict().unwrap();
}
