//! planarize on degenerate input: crossings at one point, non-finite
//! points, identical and overlapping roads, points too close to tell apart.

use super::*;
use crate::network::{PlanarityFault, RoadClass};

fn road(points: Vec<DVec2>) -> Road {
    Road {
        z: Vec::new(),
        points,
        class: RoadClass::Road,
        width: 5.0,
    }
}

fn net(roads: Vec<Road>) -> RoadNetwork {
    RoadNetwork::from_roads(roads)
}

#[test]
fn ten_roads_crossing_at_one_point_meet_at_one_junction() {
    let centre = DVec2::new(1234.567, 890.123);
    let roads: Vec<Road> = (0..10)
        .map(|k| {
            let d = DVec2::from_angle(0.1 + k as f64 * 0.31) * (100.0 + k as f64 * 7.3);
            road(vec![centre - d, centre + d])
        })
        .collect();
    let out = planarize(vec![net(roads)]);
    out.check_planar_strict().unwrap();
    assert_eq!(out.junctions.len(), 1, "{:?}", out.junctions);
    assert_eq!(out.junctions[0].roads.len(), 10);
    assert!(out.junctions[0].pos.distance(centre) < 1.0e-9);
}

#[test]
fn non_finite_points_split_their_road_and_are_dropped() {
    let v = DVec2::new;
    let out = planarize(vec![net(vec![
        road(vec![
            v(0.0, 0.0),
            v(10.0, 0.0),
            v(f64::NAN, 1.0),
            v(10.0, 5.0),
            v(0.0, 5.0),
        ]),
        road(vec![v(f64::INFINITY, 0.0), v(3.0, 3.0)]),
    ])]);
    assert!(
        out.roads
            .iter()
            .flat_map(|r| &r.points)
            .all(|p| p.is_finite())
    );
    assert_eq!(out.roads.len(), 2);
    out.check_planar_strict().unwrap();
    let bad = net(vec![road(vec![v(0.0, 0.0), v(f64::NAN, 0.0)])]);
    assert_eq!(
        bad.check_planar_strict().unwrap_err().kind,
        PlanarityFault::NonFinite
    );
}

#[test]
fn identical_roads_become_one() {
    // 2,000 copies of a 50-point road, and 20,000 of a two-point one.
    let wiggle: Vec<DVec2> = (0..50)
        .map(|k| DVec2::new(k as f64 * 3.0, (k as f64 * 0.7).sin() * 5.0))
        .collect();
    let mut roads = vec![road(wiggle); 2000];
    roads.extend(vec![
        road(vec![
            DVec2::new(0.0, 20.0),
            DVec2::new(100.0, 20.0)
        ]);
        20_000
    ]);
    let input = net(roads);
    assert_eq!(
        input.check_planar_strict().unwrap_err().kind,
        PlanarityFault::Overlap
    );
    let out = planarize(vec![input]);
    out.check_planar_strict().unwrap();
    assert_eq!(out.roads.len(), 2);
    assert_eq!(out.roads[0].points.len(), 50);
}

#[test]
fn a_road_back_and_forth_along_a_line_is_drawn_once() {
    let pts: Vec<DVec2> = (0..200)
        .map(|k| {
            DVec2::new(
                if k % 2 == 0 {
                    k as f64 * 0.1
                } else {
                    100.0 - k as f64 * 0.1
                },
                0.0,
            )
        })
        .collect();
    let input = net(vec![road(pts)]);
    assert_eq!(
        input.check_planar_strict().unwrap_err().kind,
        PlanarityFault::Overlap
    );
    let out = planarize(vec![input]);
    out.check_planar_strict().unwrap();
    let length: f64 = out.roads.iter().map(Road::length).sum();
    assert!((length - 99.9).abs() < 1.0e-9, "{length}");
}

#[test]
fn a_fine_straight_road_stays_as_it_is() {
    // 10,000 points along 100 m (1 cm apart).
    let pts: Vec<DVec2> = (0..10_000)
        .map(|k| DVec2::new(k as f64 * 0.01, 0.0))
        .collect();
    let input = net(vec![road(pts.clone())]);
    input.check_planar_strict().unwrap();
    let out = planarize(vec![input]);
    assert_eq!(out.roads, vec![road(pts)]);
}

#[test]
fn points_an_ulp_apart_are_one() {
    // As found in `RoadSystem` output: two vertices one ulp apart.
    let y = 7199.250299518743f64;
    let (p, q) = (
        DVec2::new(15722.79030899168, y),
        DVec2::new(15722.79030899168, y.next_up()),
    );
    let input = net(vec![
        road(vec![p - DVec2::new(50.0, 10.0), p]),
        road(vec![q, q + DVec2::new(30.0, 40.0)]),
        // A vertex 0.1 μm off another road's segment.
        road(vec![
            DVec2::new(15700.0, y - 30.0 - 1.0e-7),
            DVec2::new(15700.0, y - 100.0),
        ]),
        road(vec![
            DVec2::new(15650.0, y - 30.0),
            DVec2::new(15750.0, y - 30.0),
        ]),
    ]);
    input.check_planar().unwrap(); // exactly planar, yet
    let e = input.check_planar_strict().unwrap_err();
    assert_eq!((e.kind, e.roads), (PlanarityFault::CloseVertices, (0, 1)));
    let out = planarize(vec![input]);
    out.check_planar_strict().unwrap();
    assert_eq!(out.junctions.len(), 2, "{:?}", out.junctions);
    assert_eq!(out.junctions[0].pos, p);
}

#[test]
fn roads_along_shared_grid_lines_come_out_planar() {
    use rand_chacha::ChaCha8Rng;
    use rand_chacha::rand_core::{RngCore, SeedableRng};
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..30 {
        // Walks on a 10 m grid: they share lines, stretches, vertices.
        let roads: Vec<Road> = (0..8)
            .map(|_| {
                let mut p = DVec2::new((rng.next_u32() % 6) as f64, (rng.next_u32() % 6) as f64);
                let mut points = vec![p * 10.0];
                for _ in 0..6 {
                    let d = [DVec2::X, DVec2::Y, -DVec2::X, -DVec2::Y][rng.next_u32() as usize % 4];
                    p += d * (1 + rng.next_u32() % 4) as f64;
                    points.push(p * 10.0);
                }
                Road {
                    z: Vec::new(),
                    points,
                    class: RoadClass::Street,
                    width: 6.0,
                }
            })
            .collect();
        let length = |rs: &[Road]| {
            // Total length of the union, on a 1 m raster of segment midpoints.
            let mut cells: Vec<(i64, i64)> = rs
                .iter()
                .flat_map(|r| r.points.windows(2))
                .flat_map(|w| {
                    let n = w[0].distance(w[1]).round() as i64;
                    (0..n).map(move |k| {
                        let q = w[0].lerp(w[1], (k as f64 + 0.5) / n as f64) * 2.0;
                        (q.x.round() as i64, q.y.round() as i64)
                    })
                })
                .collect();
            let all = cells.len();
            cells.sort_unstable();
            cells.dedup();
            (cells.len(), all)
        };
        let out = planarize(vec![RoadNetwork::from_roads(roads.clone())]);
        out.check_planar_strict().unwrap();
        let (union, _) = length(&roads);
        let (kept, drawn) = length(&out.roads);
        // The same ground, each metre drawn once.
        assert_eq!((kept, drawn), (union, union));
    }
}
