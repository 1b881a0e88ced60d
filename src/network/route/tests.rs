use super::*;
use crate::network::{Road, RoadClass, point_key};

fn road(class: RoadClass, pts: &[(f64, f64)]) -> Road {
    let points = pts.iter().map(|&(x, y)| DVec2::new(x, y)).collect();
    Road::new(points, class, class.default_width())
}

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
}

/// Checks what every route must hold: its ends are the snapped points,
/// every point lies on a road (on its profile), its length is its points'
/// distances, and no road comes twice in a row.
fn check(net: &RoadNetwork, r: &Route, from: DVec2, to: DVec2) {
    assert!(r.points.len() >= 2);
    let (s, e) = (
        net.nearest_road(from).unwrap(),
        net.nearest_road(to).unwrap(),
    );
    assert!(
        r.points[0].truncate().distance(s.1) < 1e-9,
        "{:?} {s:?}",
        r.points[0]
    );
    assert!(r.points.last().unwrap().truncate().distance(e.1) < 1e-9);
    for p in &r.points {
        let on = net.roads.iter().any(|road| {
            road.points.windows(2).enumerate().any(|(k, w)| {
                let (q, t) = closest_on_segment(p.truncate(), w[0], w[1]);
                let z = if road.has_profile() {
                    road.z[k] + t * (road.z[k + 1] - road.z[k])
                } else {
                    0.0
                };
                q.distance(p.truncate()) < 1e-9 && (z - p.z).abs() < 1e-9
            })
        });
        assert!(on, "{p} is on no road");
    }
    let sum: f64 = r.points.windows(2).map(|w| w[0].distance(w[1])).sum();
    assert!(close(sum, r.length), "{sum} {}", r.length);
    assert!(r.roads.windows(2).all(|w| w[0] != w[1]), "{:?}", r.roads);
    // Each segment runs along the road `road_ends` gives it.
    assert_eq!(r.road_ends.len(), r.roads.len());
    assert_eq!(r.road_ends.last(), Some(&(r.points.len() - 1)));
    assert!(r.road_ends.windows(2).all(|w| w[0] <= w[1]));
    for (i, w) in r.points.windows(2).enumerate() {
        let j = r.road_ends.partition_point(|&e| e <= i);
        let mid = (w[0].truncate() + w[1].truncate()) / 2.0;
        let road = &net.roads[r.roads[j]];
        let on = (road.points.windows(2))
            .any(|s| closest_on_segment(mid, s[0], s[1]).0.distance(mid) < 1e-9);
        assert!(on, "segment {i} is not on road {}", r.roads[j]);
    }
    if r.length > 0.0 {
        // No step straight up or down (from one level to another).
        assert!(
            r.points
                .windows(2)
                .all(|w| w[0].truncate() != w[1].truncate())
        );
    }
    assert!(r.time.is_finite() && r.time >= 0.0);
}

#[test]
fn length_and_time_choose_different_roads() {
    // A 1 km street straight across, or a 1.6 km highway around.
    let net = RoadNetwork::from_roads(vec![
        road(RoadClass::Road, &[(-100.0, 0.0), (0.0, 0.0)]),
        road(
            RoadClass::Street,
            &[(0.0, 0.0), (500.0, 0.0), (1000.0, 0.0)],
        ),
        road(
            RoadClass::Highway,
            &[(0.0, 0.0), (0.0, 300.0), (1000.0, 300.0), (1000.0, 0.0)],
        ),
        road(RoadClass::Road, &[(1000.0, 0.0), (1100.0, 0.0)]),
    ]);
    let (from, to) = (v(-100.0, -5.0), v(1100.0, -5.0));
    let short = net.route(from, to, RouteCost::Length).unwrap();
    let fast = net.route(from, to, RouteCost::Time).unwrap();
    check(&net, &short, from, to);
    check(&net, &fast, from, to);
    assert_eq!(short.roads, vec![0, 1, 3]);
    assert_eq!(fast.roads, vec![0, 2, 3]);
    assert!(close(short.length, 1200.0) && close(fast.length, 1800.0));
    assert!(close(short.time, 200.0 / 18.0 + 1000.0 / 12.0));
    assert!(close(fast.time, 200.0 / 18.0 + 1600.0 / 25.0));
    assert!(fast.time < short.time);
    // Backwards: the same roads reversed, the points reversed.
    let back = net.route(to, from, RouteCost::Time).unwrap();
    assert_eq!(back.roads, vec![3, 2, 0]);
    let mut pts = back.points.clone();
    pts.reverse();
    assert_eq!(pts, fast.points);
}

#[test]
fn profiles_lengthen_and_grades_slow() {
    let mut hill = road(RoadClass::Road, &[(0.0, 0.0), (50.0, 0.0), (100.0, 0.0)]);
    hill.z = vec![0.0, 10.0, 0.0];
    let flat = road(RoadClass::Road, &[(0.0, 0.0), (50.0, 0.0), (100.0, 0.0)]);
    let (from, to) = (v(0.0, 1.0), v(100.0, 1.0));
    let up = RoadNetwork::from_roads(vec![hill]);
    let r = up.route(from, to, RouteCost::Time).unwrap();
    check(&up, &r, from, to);
    let l = 2.0 * (50.0f64 * 50.0 + 100.0).sqrt();
    assert!(close(r.length, l));
    // A 20 % grade: 1 − 3 × 0.2 = 40 % of the flat speed.
    assert!(close(r.time, l / (18.0 * 0.4)), "{}", r.time);
    assert_eq!(r.points[1], DVec3::new(50.0, 0.0, 10.0));
    let flat = RoadNetwork::from_roads(vec![flat])
        .route(from, to, RouteCost::Time)
        .unwrap();
    assert!(close(flat.length, 100.0) && close(flat.time, 100.0 / 18.0));
    assert!(r.length > flat.length && r.time > 2.0 * flat.time);
    // Mid-segment ends take their height from the profile.
    let mid = up
        .route(v(25.0, 3.0), v(75.0, -3.0), RouteCost::Length)
        .unwrap();
    assert_eq!(mid.points[0], DVec3::new(25.0, 0.0, 5.0));
    assert_eq!(mid.points[2], DVec3::new(75.0, 0.0, 5.0));
    // Grades: the floor, walkers, a vertical step.
    assert_eq!(grade_factor(RoadClass::Highway, 0.5), 0.3);
    assert!(close(grade_factor(RoadClass::Path, 0.2), 0.6));
    assert_eq!(grade_factor(RoadClass::Street, f64::INFINITY), 0.3);
    assert_eq!(grade_factor(RoadClass::Street, 0.0), 1.0);
}

#[test]
fn same_segment_both_ways_and_zero_length() {
    let net = RoadNetwork::from_roads(vec![road(
        RoadClass::Street,
        &[(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)],
    )]);
    let (a, b) = (v(30.0, 5.0), v(70.0, -3.0));
    let r = net.route(a, b, RouteCost::Length).unwrap();
    check(&net, &r, a, b);
    assert_eq!(
        r.points,
        vec![DVec3::new(30.0, 0.0, 0.0), DVec3::new(70.0, 0.0, 0.0)]
    );
    assert_eq!((r.roads.as_slice(), r.length), (&[0][..], 40.0));
    let back = net.route(b, a, RouteCost::Length).unwrap();
    assert_eq!(back.points[0], DVec3::new(70.0, 0.0, 0.0));
    assert_eq!(back.length, 40.0);
    // Across a vertex of the same road.
    let (c, d) = (v(50.0, -1.0), v(101.0, 50.0));
    let r = net.route(c, d, RouteCost::Time).unwrap();
    check(&net, &r, c, d);
    assert_eq!(r.points.len(), 3);
    assert!(close(r.length, 100.0) && close(r.time, 100.0 / 12.0));
    // One point: a zero-length route of two equal points.
    let z = net.route(a, a, RouteCost::Time).unwrap();
    assert_eq!(z.points, vec![DVec3::new(30.0, 0.0, 0.0); 2]);
    assert_eq!((z.roads, z.length, z.time), (vec![0], 0.0, 0.0));
}

#[test]
fn direct_or_round_whichever_is_shorter() {
    // A long U-shaped road whose ends a short road joins.
    let net = RoadNetwork::from_roads(vec![
        road(
            RoadClass::Road,
            &[(0.0, 0.0), (0.0, 1000.0), (10.0, 1000.0), (10.0, 0.0)],
        ),
        road(RoadClass::Road, &[(0.0, 0.0), (10.0, 0.0)]),
    ]);
    let (a, b) = (v(-1.0, 10.0), v(11.0, 10.0));
    let r = net.route(a, b, RouteCost::Length).unwrap();
    check(&net, &r, a, b);
    assert_eq!(r.roads, vec![0, 1, 0]);
    assert!(close(r.length, 30.0));
    let (c, d) = (v(-1.0, 500.0), v(-1.0, 600.0));
    let r = net.route(c, d, RouteCost::Length).unwrap();
    assert_eq!((r.roads, r.points.len()), (vec![0], 2));
    assert!(close(r.length, 100.0));
    // A closed loop with no junction: the shorter way round.
    let ring = RoadNetwork::from_roads(vec![road(
        RoadClass::Street,
        &[
            (0.0, 0.0),
            (100.0, 0.0),
            (100.0, 100.0),
            (0.0, 100.0),
            (0.0, 0.0),
        ],
    )]);
    let (e, f) = (v(10.0, -1.0), v(-1.0, 10.0));
    let r = ring.route(e, f, RouteCost::Length).unwrap();
    check(&ring, &r, e, f);
    assert!(close(r.length, 20.0), "{}", r.length);
}

#[test]
fn errors_name_their_cause() {
    let net = RoadNetwork::from_roads(vec![
        road(RoadClass::Road, &[(0.0, 0.0), (100.0, 0.0)]),
        road(RoadClass::Road, &[(0.0, 50.0), (100.0, 50.0)]),
    ]);
    let far = net.route(v(0.0, 600.0), v(0.0, 0.0), RouteCost::Length);
    assert_eq!(
        far,
        Err(RouteError::TooFar {
            end: RouteEnd::From,
            max_snap: MAX_SNAP
        })
    );
    assert!(far.unwrap_err().to_string().contains("`from`"));
    // Within the limit (499 m from road 1), but road 1 and road 0 never meet.
    assert_eq!(
        net.route(v(50.0, 549.0), v(0.0, 0.0), RouteCost::Length),
        Err(RouteError::NoPath)
    );
    assert!(
        net.route(v(50.0, 549.0), v(0.0, 50.0), RouteCost::Length)
            .is_ok()
    );
    let params = RouteParams {
        max_snap: 10.0,
        ..RouteParams::default()
    };
    let tight = Router::with_params(&net, &params).unwrap();
    assert!(matches!(
        tight.route(v(0.0, 0.0), v(50.0, 61.0), RouteCost::Time),
        Err(RouteError::TooFar {
            end: RouteEnd::To,
            ..
        })
    ));
    for bad in [f64::NAN, -1.0, f64::INFINITY] {
        for (field, max_snap, level_gap) in [("max_snap", bad, 1.0), ("level_gap", 1.0, bad)] {
            let p = RouteParams {
                max_snap,
                level_gap,
            };
            let e = Router::with_params(&net, &p).unwrap_err();
            assert!(matches!(e, RouteError::BadParam { field: f, .. } if f == field));
            assert!(e.to_string().contains(field), "{e}");
        }
    }
    let zero = RouteParams {
        level_gap: 0.0,
        ..RouteParams::default()
    };
    assert!(Router::with_params(&net, &zero).is_err());
    for (from, to, end) in [
        (v(f64::NAN, 0.0), v(0.0, 0.0), RouteEnd::From),
        (v(0.0, 0.0), v(0.0, f64::INFINITY), RouteEnd::To),
    ] {
        let e = net.route(from, to, RouteCost::Time).unwrap_err();
        assert_eq!(e, RouteError::NonFinite(end));
        assert!(e.to_string().contains(&format!("`{end}`")), "{e}");
    }
    // No roads, or only unusable ones (a non-finite point, one point).
    for empty in [
        RoadNetwork::default(),
        RoadNetwork::from_roads(vec![
            road(RoadClass::Road, &[(0.0, 0.0), (f64::NAN, 1.0)]),
            road(RoadClass::Road, &[(5.0, 5.0)]),
        ]),
    ] {
        assert_eq!(
            empty.route(v(0.0, 0.0), v(1.0, 1.0), RouteCost::Time),
            Err(RouteError::EmptyNetwork)
        );
    }
    // A non-finite height is no profile; a NaN road beside a good one is
    // left out.
    let mut odd = road(RoadClass::Road, &[(0.0, 0.0), (100.0, 0.0)]);
    odd.z = vec![1.0, f64::NAN];
    let net = RoadNetwork::from_roads(vec![
        road(RoadClass::Road, &[(0.0, 1.0), (f64::NAN, 1.0)]),
        odd,
    ]);
    let r = net
        .route(v(0.0, 0.0), v(100.0, 0.0), RouteCost::Time)
        .unwrap();
    assert_eq!(r.roads, vec![1]);
    assert!(r.points.iter().all(|p| p.z == 0.0) && close(r.length, 100.0));
}

/// A 6 × 6 grid of 500 m lines with a vertex every 50 m (junctions every
/// 100 m), on a profile, of mixed classes, and a dead end meeting a line at
/// a vertex between crossings.
fn grid() -> RoadNetwork {
    let z = |p: DVec2| 0.05 * p.x + 10.0 * (p.y / 70.0).sin();
    let classes = [RoadClass::Highway, RoadClass::Path, RoadClass::Street];
    let mut roads = Vec::new();
    for i in 0..6 {
        let c = 100.0 * i as f64;
        let along = |f: &dyn Fn(f64) -> DVec2| (0..=10).map(|k| f(50.0 * k as f64)).collect();
        roads.push(Road::new(along(&|s| v(s, c)), classes[i % 3], 5.0));
        roads.push(Road::new(along(&|s| v(c, s)), classes[(i + 1) % 3], 5.0));
    }
    roads.push(road(RoadClass::Track, &[(250.0, 580.0), (250.0, 500.0)]));
    for r in &mut roads {
        r.z = r.points.iter().map(|&p| z(p)).collect();
    }
    let net = RoadNetwork::from_roads(roads);
    net.check_planar().unwrap();
    net
}

#[test]
fn matches_a_search_over_every_vertex() {
    use pathfinding::prelude::dijkstra;
    let net = grid();
    let router = net.router();
    // The reference: every vertex a node, costs in micro-units.
    let mut adj: std::collections::BTreeMap<(u64, u64), Vec<((u64, u64), u64, u64)>> =
        Default::default();
    for r in &net.roads {
        for k in 1..r.points.len() {
            let (a, b) = (
                r.points[k - 1].extend(r.z[k - 1]),
                r.points[k].extend(r.z[k]),
            );
            let (run, l) = (a.truncate().distance(b.truncate()), a.distance(b));
            let t = l / (r.class.speed() * grade_factor(r.class, (b.z - a.z) / run));
            let (ka, kb) = (point_key(a.truncate()), point_key(b.truncate()));
            let (l, t) = ((l * 1e6).round() as u64, (t * 1e6).round() as u64);
            adj.entry(ka).or_default().push((kb, l, t));
            adj.entry(kb).or_default().push((ka, l, t));
        }
    }
    let keys: Vec<(u64, u64)> = adj.keys().copied().collect();
    let pos = |k: (u64, u64)| v(f64::from_bits(k.0), f64::from_bits(k.1));
    for q in 0..40 {
        let (a, b) = (keys[q * 7 % keys.len()], keys[(q * 13 + 5) % keys.len()]);
        for (cost, pick) in [(RouteCost::Length, 0), (RouteCost::Time, 1)] {
            let (_, want) = dijkstra(
                &a,
                |n| {
                    adj[n]
                        .iter()
                        .map(move |e| (e.0, if pick == 0 { e.1 } else { e.2 }))
                },
                |n| *n == b,
            )
            .unwrap();
            let r = router.route(pos(a), pos(b), cost).unwrap();
            check(&net, &r, pos(a), pos(b));
            let got = if pick == 0 { r.length } else { r.time };
            assert!(
                (got - want as f64 / 1e6).abs() < 1e-3,
                "{q} {cost:?}: {got} {want}"
            );
        }
    }
}

#[test]
fn mid_segment_routes_hold_and_repeat() {
    let net = grid();
    let router = net.router();
    for q in 0..60 {
        let f = |k: u64| ((k * 2654435761) % 1000) as f64 * 0.61 - 40.0;
        let (a, b) = (v(f(q), f(q + 101)), v(f(q + 7), f(q + 55)));
        for cost in [RouteCost::Length, RouteCost::Time] {
            let r = router.route(a, b, cost).unwrap();
            check(&net, &r, a, b);
            // Deterministic, and as long (or as quick) both ways.
            assert_eq!(r, net.router().route(a, b, cost).unwrap());
            let back = router.route(b, a, cost).unwrap();
            let (x, y) = match cost {
                RouteCost::Length => (r.length, back.length),
                RouteCost::Time => (r.time, back.time),
            };
            assert!((x - y).abs() < 1e-6, "{a} {b} {cost:?}");
        }
        let (l, t) = (
            router.route(a, b, RouteCost::Length).unwrap(),
            router.route(a, b, RouteCost::Time).unwrap(),
        );
        assert!(l.length <= t.length + 1e-9 && t.time <= l.time + 1e-9);
    }
    // One component, with the dead end; a lone road is another.
    let c = router.component(0, 0).unwrap();
    assert!(
        (0..net.roads.len())
            .all(|i| router.component(i, 3.min(net.roads[i].points.len() - 2)) == Some(c))
    );
    assert_eq!(router.component(0, 10), None);
    assert_eq!(router.component(net.roads.len(), 0), None);
    // The graph is compact: junctions and ends only.
    let g = router.graph();
    assert_eq!(g.node_count(), 36 + 2);
    assert_eq!(g.edges(0).count(), 2);
}

#[test]
fn an_overpass_is_no_junction() {
    // Road 1 crosses over road 0 at (50, 0), 8 m up, sharing the vertex.
    let mut under = road(RoadClass::Road, &[(0.0, 0.0), (50.0, 0.0), (100.0, 0.0)]);
    under.z = vec![0.0; 3];
    let mut over = road(RoadClass::Road, &[(50.0, -50.0), (50.0, 0.0), (50.0, 50.0)]);
    over.z = vec![8.0; 3];
    let net = RoadNetwork::from_roads(vec![under.clone(), over.clone()]);
    assert_eq!(net.junctions.len(), 1);
    let (a, b) = (v(0.0, 0.0), v(50.0, 50.0));
    assert_eq!(net.route(a, b, RouteCost::Length), Err(RouteError::NoPath));
    let router = net.router();
    assert_eq!(router.graph().node_count(), 6);
    // Two components, both halves of each road in its own.
    let c = |road, seg| router.component(road, seg).unwrap();
    assert_eq!((c(0, 0), c(1, 0)), (c(0, 1), c(1, 1)));
    assert_ne!(c(0, 0), c(1, 0));
    // A ramp joins them; a road without a profile joins the lowest level.
    let mut ramp = road(RoadClass::Road, &[(100.0, 0.0), (50.0, 50.0)]);
    ramp.z = vec![0.0, 8.0];
    let flat = road(RoadClass::Road, &[(50.0, 0.0), (100.0, -60.0)]);
    let net = RoadNetwork::from_roads(vec![under.clone(), over.clone(), ramp, flat]);
    let r = net.route(a, b, RouteCost::Length).unwrap();
    check(&net, &r, a, b);
    assert_eq!(r.roads, vec![0, 2]);
    // No step straight up or down.
    assert!(
        r.points
            .windows(2)
            .all(|w| w[0].truncate() != w[1].truncate())
    );
    assert_eq!(
        net.route(v(100.0, -60.0), a, RouteCost::Length)
            .unwrap()
            .roads,
        vec![3, 0]
    );
    // A wider gap joins them; within the gap, they meet; without profiles,
    // too.
    let wide = RouteParams {
        level_gap: 9.0,
        ..RouteParams::default()
    };
    let net = RoadNetwork::from_roads(vec![under.clone(), over.clone()]);
    let r = Router::with_params(&net, &wide)
        .unwrap()
        .route(a, b, RouteCost::Length);
    assert_eq!(r.unwrap().roads, vec![0, 1]);
    over.z = vec![LEVEL_GAP - 0.5; 3];
    let net = RoadNetwork::from_roads(vec![under.clone(), over.clone()]);
    assert_eq!(
        net.route(a, b, RouteCost::Length).unwrap().roads,
        vec![0, 1]
    );
    (under.z, over.z) = (Vec::new(), Vec::new());
    let net = RoadNetwork::from_roads(vec![under, over]);
    assert_eq!(
        net.route(a, b, RouteCost::Length).unwrap().roads,
        vec![0, 1]
    );
}
