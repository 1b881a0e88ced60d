//! [`planarize`]: networks from several generators made into one planar
//! network, with a vertex and a junction wherever roads touch or cross.

use super::graph::{point_key, segment_pairs};
use super::{Road, RoadNetwork};
use crate::geom::{Contact, segment_contact};
use glam::DVec2;
use std::collections::HashSet;

/// Rounds of node insertion at most: one settles every input this crate
/// makes; more only mend crossings that rounding a crossing point created.
const MAX_ROUNDS: usize = 4;

/// One planar network from several: every crossing and touch becomes a
/// vertex of both roads (and so a junction), every input vertex is kept, and
/// where two roads run along the same stretch, the later one gives it up
/// (it is split there), so that no stretch is drawn twice.
pub fn planarize(networks: Vec<RoadNetwork>) -> RoadNetwork {
    let mut roads: Vec<Road> = networks
        .into_iter()
        .flat_map(|n| n.roads)
        .map(|mut r| {
            for p in &mut r.points {
                *p += DVec2::ZERO; // −0 becomes +0
            }
            r.points.dedup();
            r
        })
        .filter(|r| r.points.len() >= 2)
        .collect();
    for _ in 0..MAX_ROUNDS {
        if !insert_contacts(&mut roads) {
            break;
        }
    }
    let roads = drop_shared_stretches(roads);
    RoadNetwork::from_roads(roads)
}

/// Inserts every contact point into the segments it lies inside; whether
/// anything was inserted.
fn insert_contacts(roads: &mut [Road]) -> bool {
    // (road, segment, parameter, point)
    let mut inserts: Vec<(usize, usize, f64, DVec2)> = Vec::new();
    for (i, s, j, t) in segment_pairs(roads) {
        let (a0, a1) = (roads[i].points[s], roads[i].points[s + 1]);
        let (b0, b1) = (roads[j].points[t], roads[j].points[t + 1]);
        let inside = |v: f64| v > 0.0 && v < 1.0;
        match segment_contact(a0, a1, b0, b1) {
            None => {}
            Some(Contact::Point { t: u, u: v }) => {
                let p = if u == 0.0 {
                    a0
                } else if u == 1.0 {
                    a1
                } else if v == 0.0 {
                    b0
                } else if v == 1.0 {
                    b1
                } else {
                    a0.lerp(a1, u)
                };
                if inside(u) && p != a0 && p != a1 {
                    inserts.push((i, s, u, p));
                }
                if inside(v) && p != b0 && p != b1 {
                    inserts.push((j, t, v, p));
                }
            }
            Some(Contact::Overlap { .. }) => {
                // Each segment gets the other's ends that lie inside it.
                for (k, seg, p0, p1, q) in [(i, s, a0, a1, [b0, b1]), (j, t, b0, b1, [a0, a1])] {
                    for p in q {
                        let d = p1 - p0;
                        let v = (p - p0).dot(d) / d.length_squared();
                        if inside(v) && p != p0 && p != p1 {
                            inserts.push((k, seg, v, p));
                        }
                    }
                }
            }
        }
    }
    if inserts.is_empty() {
        return false;
    }
    inserts.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    for group in inserts.chunk_by(|a, b| a.0 == b.0) {
        let road = &mut roads[group[0].0];
        let mut out = Vec::with_capacity(road.points.len() + group.len());
        let mut next = group.iter().peekable();
        for (s, &p) in road.points.iter().enumerate() {
            out.push(p);
            while let Some(&&(_, seg, _, q)) = next.peek() {
                if seg != s {
                    break;
                }
                if out.last() != Some(&q) {
                    out.push(q);
                }
                next.next();
            }
        }
        out.dedup();
        road.points = out;
    }
    true
}

/// Splits later roads where they repeat a segment (the same two vertices)
/// of an earlier one, dropping the repeat.
fn drop_shared_stretches(roads: Vec<Road>) -> Vec<Road> {
    let mut seen: HashSet<((u64, u64), (u64, u64))> = HashSet::new();
    let mut out = Vec::with_capacity(roads.len());
    for road in roads {
        let mut piece: Vec<DVec2> = vec![road.points[0]];
        for w in road.points.windows(2) {
            let (ka, kb) = (point_key(w[0]), point_key(w[1]));
            if seen.insert((ka.min(kb), ka.max(kb))) {
                piece.push(w[1]);
            } else {
                if piece.len() >= 2 {
                    out.push(Road {
                        points: std::mem::take(&mut piece),
                        ..road.clone()
                    });
                }
                piece = vec![w[1]];
            }
        }
        if piece.len() >= 2 {
            out.push(Road {
                points: piece,
                ..road
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::distance_to_segment;
    use crate::network::RoadClass;

    fn road(points: &[(f64, f64)], class: RoadClass) -> Road {
        Road {
            points: points.iter().map(|&(x, y)| DVec2::new(x, y)).collect(),
            class,
            width: class.default_width(),
        }
    }

    fn net(roads: Vec<Road>) -> RoadNetwork {
        RoadNetwork::from_roads(roads)
    }

    /// Every vertex of `before` is a vertex of `after`, and every vertex of
    /// `after` lies on a segment of `before` (the geometry is kept).
    fn keeps_geometry(before: &[Road], after: &RoadNetwork) {
        let all: HashSet<_> = after
            .roads
            .iter()
            .flat_map(|r| r.points.iter().map(|&p| point_key(p)))
            .collect();
        for r in before {
            for &p in &r.points {
                assert!(all.contains(&point_key(p)), "lost vertex {p}");
            }
        }
        for r in &after.roads {
            for &p in &r.points {
                let d = before
                    .iter()
                    .flat_map(|b| b.points.windows(2))
                    .map(|w| distance_to_segment(p, w[0], w[1]))
                    .fold(f64::INFINITY, f64::min);
                assert!(d < 1e-9, "{p} is off the input by {d}");
            }
        }
    }

    #[test]
    fn crossings_touches_and_overlaps_become_junctions() {
        let a = vec![
            road(&[(0.0, 0.0), (100.0, 0.0)], RoadClass::Highway),
            road(&[(0.0, 50.0), (100.0, 53.0)], RoadClass::Highway),
        ];
        let b = vec![
            // Crosses both highways.
            road(&[(10.0, -20.0), (37.0, 80.0)], RoadClass::Road),
            // Ends on the first highway (a T).
            road(&[(60.0, 30.0), (60.0, 0.0)], RoadClass::Road),
            // Runs along the first highway for a stretch, then leaves it.
            road(&[(80.0, 0.0), (90.0, 0.0), (95.0, 20.0)], RoadClass::Road),
            // Crosses itself.
            road(
                &[(-30.0, 10.0), (-10.0, 30.0), (-10.0, 10.0), (-30.0, 30.0)],
                RoadClass::Track,
            ),
        ];
        assert!(
            net(a.iter().chain(&b).cloned().collect())
                .check_planar()
                .is_err()
        );
        let out = planarize(vec![net(a.clone()), net(b.clone())]);
        out.check_planar().unwrap();
        let before: Vec<Road> = a.into_iter().chain(b).collect();
        keeps_geometry(&before, &out);
        // Two crossings, the T, where the stretch road leaves the highway.
        assert_eq!(out.junctions.len(), 4, "{:?}", out.junctions);
        // The track's crossing with itself is a vertex of it.
        let track = out
            .roads
            .iter()
            .find(|r| r.class == RoadClass::Track)
            .unwrap();
        assert!(
            track.points.contains(&DVec2::new(-20.0, 20.0)),
            "{:?}",
            track.points
        );
        // The shared stretch is drawn once, by the highway.
        let on_stretch = |r: &Road| {
            r.points
                .windows(2)
                .any(|w| w[0].y == 0.0 && w[1].y == 0.0 && w[0].x >= 80.0 && w[1].x <= 90.0)
        };
        let owners: Vec<_> = out.roads.iter().filter(|r| on_stretch(r)).collect();
        assert_eq!(owners.len(), 1);
        assert_eq!(owners[0].class, RoadClass::Highway);
    }

    #[test]
    fn many_random_crossing_networks_come_out_planar() {
        use rand_chacha::ChaCha8Rng;
        use rand_chacha::rand_core::{RngCore, SeedableRng};
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut f = || (rng.next_u32() % 100_000) as f64 / 97.0;
        for _ in 0..20 {
            let nets: Vec<RoadNetwork> = (0..3)
                .map(|_| {
                    net((0..6)
                        .map(|_| {
                            let pts: Vec<(f64, f64)> = (0..5).map(|_| (f(), f())).collect();
                            road(&pts, RoadClass::Road)
                        })
                        .collect())
                })
                .collect();
            let before: Vec<Road> = nets.iter().flat_map(|n| n.roads.clone()).collect();
            let out = planarize(nets);
            out.check_planar().unwrap();
            keeps_geometry(&before, &out);
        }
    }
}
