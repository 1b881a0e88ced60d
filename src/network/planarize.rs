//! [`planarize`]: networks from several generators made into one planar
//! network, with a vertex and a junction wherever roads touch or cross.

use super::graph::point_key;
use super::{Road, RoadNetwork};
use crate::geom::{
    Contact, Meeting, closest_on_segment, for_each_meeting, keep_first_along_lines,
    largest_coordinate, snap_groups, snap_tolerance,
};
use glam::DVec2;
use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::ControlFlow;

/// Rounds of node insertion at most: one settles most inputs; more mend
/// crossings that rounding or snapping a crossing point created, and merge
/// crossing points that rounding set apart.
const MAX_ROUNDS: usize = 8;

/// One planar network from several: every crossing and touch becomes a
/// vertex of both roads (and so a junction), and where two roads run along
/// the same stretch, the later one gives it up (it is split there), so that
/// no stretch is drawn twice (identical roads become one).
///
/// Points too close to tell apart are one: vertices (given or made at
/// crossings) within the snap tolerance of each other
/// ([`crate::geom::snap_tolerance`]: 1 μm, or 8 ulps of the largest
/// coordinate) move to the least of them, and a vertex within it of another
/// road's segment becomes a vertex of that segment. Every other input vertex
/// is kept. A non-finite point cannot be placed: it is dropped, and its road
/// is split there (pieces of under two points are dropped). The result
/// passes [`RoadNetwork::check_planar_strict`] (mending what rounding breaks
/// takes a few rounds, at most `MAX_ROUNDS`). The work and memory are
/// near-linear in the vertices (memory always; time too unless very many
/// distinct segments overlap one another along one line: finding which
/// overlap compares them in pairs).
pub fn planarize(networks: Vec<RoadNetwork>) -> RoadNetwork {
    let mut roads: Vec<Road> = Vec::new();
    for mut road in networks.into_iter().flat_map(|n| n.roads) {
        if !road.has_profile() {
            road.z.clear();
        }
        let mut start = 0;
        for piece in road.points.split(|p| !p.is_finite()) {
            if piece.len() >= 2 {
                let z = if road.z.is_empty() {
                    Vec::new()
                } else {
                    road.z[start..start + piece.len()].to_vec()
                };
                roads.push(Road {
                    points: piece.iter().map(|&p| p + DVec2::ZERO).collect(), // −0 becomes +0
                    z,
                    ..road.clone()
                });
            }
            start += piece.len() + 1;
        }
    }
    let near = snap_tolerance(largest_coordinate(roads.iter().flat_map(|r| &r.points)));
    for round in 0..=MAX_ROUNDS {
        snap_vertices(&mut roads);
        roads = drop_shared_stretches(roads);
        if round == MAX_ROUNDS || !insert_contacts(&mut roads, near) {
            break;
        }
    }
    RoadNetwork::from_roads(roads)
}

/// Moves every vertex to its snap group's representative, drops repeated
/// consecutive points and roads left with under two.
fn snap_vertices(roads: &mut Vec<Road>) {
    let points: Vec<DVec2> = roads
        .iter()
        .flat_map(|r| r.points.iter().copied())
        .collect();
    let group = snap_groups(&points);
    let mut k = 0;
    for r in roads.iter_mut() {
        for p in &mut r.points {
            *p = points[group[k] as usize];
            k += 1;
        }
        dedup(r);
    }
    roads.retain(|r| r.points.len() >= 2);
}

/// Drops repeated consecutive points (and their heights: the first stays).
fn dedup(r: &mut Road) {
    if r.z.is_empty() {
        r.points.dedup();
        return;
    }
    let mut k = 0;
    for i in 0..r.points.len() {
        if k == 0 || r.points[i] != r.points[k - 1] {
            r.points[k] = r.points[i];
            r.z[k] = r.z[i];
            k += 1;
        }
    }
    r.points.truncate(k);
    r.z.truncate(k);
}

/// Inserts every contact point (and every vertex within `near` of another
/// segment) into the segments it lies inside; whether anything changed.
/// Where segments overlap, only that is mended this round (see
/// [`keep_first`]).
fn insert_contacts(roads: &mut Vec<Road>, near: f64) -> bool {
    // (road, segment, parameter, point)
    let mut inserts: Vec<(usize, usize, f64, DVec2)> = Vec::new();
    // Segments (numbered over all roads) joined where they overlap.
    let first: Vec<usize> = (roads.iter())
        .scan(0, |n, r| {
            Some(std::mem::replace(n, *n + r.points.len() - 1))
        })
        .collect();
    let segments = roads.iter().map(|r| r.points.len() - 1).sum::<usize>() as u32;
    let overlaps: RefCell<Vec<u32>> = RefCell::new(Vec::new());
    let id = |(i, s): (usize, usize)| (first[i] + s) as u32;
    // Two segments already known to lie on one overlapping line need no
    // test: that line is all this round mends.
    let known = |a, b| {
        let mut o = overlaps.borrow_mut();
        !o.is_empty() && crate::geom::find(&mut o, id(a)) == crate::geom::find(&mut o, id(b))
    };
    let inside = |v: f64| v > 0.0 && v < 1.0;
    let lines: Vec<&[DVec2]> = roads.iter().map(|r| r.points.as_slice()).collect();
    let _ = for_each_meeting::<()>(&lines, near, true, None, known, |(i, s), (j, t), e, m| {
        let [a0, a1, b0, b1] = e;
        match m {
            Meeting::Touch(Contact::Point { t: u, u: v }) => {
                let p = crate::geom::contact_point(u, v, a0, a1, b0, b1);
                if inside(u) && p != a0 && p != a1 {
                    inserts.push((i, s, u, p));
                }
                if inside(v) && p != b0 && p != b1 {
                    inserts.push((j, t, v, p));
                }
            }
            Meeting::Touch(Contact::Overlap { .. }) => {
                let mut o = overlaps.borrow_mut();
                if o.is_empty() {
                    *o = (0..segments).collect();
                }
                crate::geom::union(&mut o, id((i, s)), id((j, t)));
            }
            Meeting::Near(end) => {
                // The end goes into the other segment.
                let (k, seg, p, q0, q1) = match end {
                    0 | 1 => (j, t, e[end], b0, b1),
                    _ => (i, s, e[end], a0, a1),
                };
                let v = closest_on_segment(p, q0, q1).1;
                if inside(v) && p != q0 && p != q1 {
                    inserts.push((k, seg, v, p));
                }
            }
        }
        ControlFlow::Continue(())
    });
    let overlaps = overlaps.into_inner();
    if !overlaps.is_empty() {
        keep_first(roads, overlaps);
        return true;
    }
    if inserts.is_empty() {
        return false;
    }
    inserts.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
    for group in inserts.chunk_by(|a, b| a.0 == b.0) {
        let road = &mut roads[group[0].0];
        let profiled = !road.z.is_empty();
        let mut out = Vec::with_capacity(road.points.len() + group.len());
        let mut zs = Vec::with_capacity(if profiled { out.capacity() } else { 0 });
        let mut next = group.iter().peekable();
        for (s, &p) in road.points.iter().enumerate() {
            out.push(p);
            if profiled {
                zs.push(road.z[s]);
            }
            while let Some(&&(_, seg, u, q)) = next.peek() {
                if seg != s {
                    break;
                }
                if out.last() != Some(&q) {
                    out.push(q);
                    if profiled {
                        zs.push(road.z[s] + u * (road.z[s + 1] - road.z[s]));
                    }
                }
                next.next();
            }
        }
        road.points = out;
        road.z = zs;
        dedup(road);
    }
    true
}

/// Where segments overlap along a line (`overlaps`: segments over all
/// roads, joined in a union-find forest where they overlap),
/// the first keeps each shared stretch, with every segment end on the line
/// along it as a vertex; the others give it up and are split there. Linear
/// in the segments, however many overlap one another.
fn keep_first(roads: &mut Vec<Road>, overlaps: Vec<u32>) {
    let segs: Vec<(DVec2, DVec2)> = (roads.iter())
        .flat_map(|r| r.points.windows(2).map(|w| (w[0], w[1])))
        .collect();
    let kept = keep_first_along_lines(&segs, overlaps);
    let mut out = Vec::with_capacity(roads.len());
    let mut id = 0u32;
    for road in roads.drain(..) {
        let profiled = !road.z.is_empty();
        // A point on segment `s`, with its height there.
        let at = |s: usize, p: DVec2| -> (DVec2, f64) {
            if !profiled {
                return (p, 0.0);
            }
            let (a, b) = (road.points[s], road.points[s + 1]);
            let t = if p == a {
                0.0
            } else if p == b {
                1.0
            } else {
                ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0)
            };
            (p, road.z[s] + t * (road.z[s + 1] - road.z[s]))
        };
        let mut piece = vec![at(0, road.points[0])];
        let mut flush = |piece: &mut Vec<(DVec2, f64)>, start: (DVec2, f64)| {
            let done = std::mem::replace(piece, vec![start]);
            if done.len() >= 2 {
                out.push(Road {
                    points: done.iter().map(|q| q.0).collect(),
                    z: if profiled {
                        done.iter().map(|q| q.1).collect()
                    } else {
                        Vec::new()
                    },
                    ..road.clone()
                });
            }
        };
        let last = |piece: &Vec<(DVec2, f64)>| piece.last().map(|q| q.0);
        for (s, w) in road.points.windows(2).enumerate() {
            match kept.binary_search_by_key(&id, |e| e.0) {
                Err(_) => piece.push(at(s, w[1])),
                Ok(k) => {
                    for run in &kept[k].1 {
                        if last(&piece) != Some(run[0]) {
                            flush(&mut piece, at(s, run[0]));
                        }
                        piece.extend(run[1..].iter().map(|&p| at(s, p)));
                    }
                    if last(&piece) != Some(w[1]) {
                        flush(&mut piece, at(s, w[1]));
                    }
                }
            }
            id += 1;
        }
        flush(&mut piece, (DVec2::ZERO, 0.0));
    }
    *roads = out;
}

/// Splits later roads where they repeat a segment (the same two vertices)
/// of an earlier one, dropping the repeat.
fn drop_shared_stretches(roads: Vec<Road>) -> Vec<Road> {
    let mut seen: HashSet<((u64, u64), (u64, u64))> = HashSet::new();
    let mut out = Vec::with_capacity(roads.len());
    for road in roads {
        // Pieces as ranges of the road's points.
        let mut start = 0;
        let piece = |from: usize, to: usize| Road {
            points: road.points[from..to].to_vec(),
            z: road.z.get(from..to).map_or_else(Vec::new, |z| z.to_vec()),
            ..road.clone()
        };
        for (k, w) in road.points.windows(2).enumerate() {
            let (ka, kb) = (point_key(w[0]), point_key(w[1]));
            if !seen.insert((ka.min(kb), ka.max(kb))) {
                if k > start {
                    out.push(piece(start, k + 1));
                }
                start = k + 1;
            }
        }
        if road.points.len() - 1 > start {
            out.push(piece(start, road.points.len()));
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
            z: Vec::new(),
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
                .check_planar_strict()
                .is_err()
        );
        let out = planarize(vec![net(a.clone()), net(b.clone())]);
        out.check_planar_strict().unwrap();
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
    fn heights_are_carried_and_interpolated_at_new_vertices() {
        let mut a = road(&[(0.0, 0.0), (100.0, 0.0), (100.0, 100.0)], RoadClass::Road);
        a.z = vec![10.0, 20.0, 40.0];
        let mut b = road(&[(25.0, -10.0), (25.0, 10.0)], RoadClass::Street);
        b.z = vec![0.0, 4.0];
        // Overlaps `a` along its last segment, then leaves it.
        let mut c = road(
            &[(100.0, 50.0), (100.0, 80.0), (120.0, 80.0)],
            RoadClass::Track,
        );
        c.z = vec![1.0, 2.0, 3.0];
        let unprofiled = road(&[(50.0, -5.0), (50.0, 5.0)], RoadClass::Track);
        let out = planarize(vec![net(vec![a, b, c, unprofiled])]);
        out.check_planar_strict().unwrap();
        for r in &out.roads {
            if r.class == RoadClass::Track && r.points[0].x == 50.0 {
                assert!(r.z.is_empty());
                continue;
            }
            assert!(r.has_profile(), "{r:?}");
            for (p, z) in r.points.iter().zip(&r.z) {
                let want = match r.class {
                    RoadClass::Road if p.y == 0.0 => 10.0 + p.x / 10.0,
                    RoadClass::Road => 20.0 + p.y / 5.0,
                    RoadClass::Street => 2.0 + p.y / 5.0,
                    _ if p.x == 100.0 => 1.0 + (p.y - 50.0) / 30.0,
                    _ => 2.0 + (p.x - 100.0) / 20.0,
                };
                assert!(
                    (z - want).abs() < 1e-12,
                    "{:?} at {p}: {z} vs {want}",
                    r.class
                );
            }
        }
        // The crossing at (25, 0) is a vertex of both, each at its own height.
        let at = |class| {
            let r = out.roads.iter().find(|r| r.class == class).unwrap();
            let k = r.points.iter().position(|&p| p == DVec2::new(25.0, 0.0));
            r.z[k.unwrap()]
        };
        assert_eq!((at(RoadClass::Road), at(RoadClass::Street)), (12.5, 2.0));
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
            out.check_planar_strict().unwrap();
            keeps_geometry(&before, &out);
        }
    }
}

#[cfg(test)]
mod degenerate_tests;
