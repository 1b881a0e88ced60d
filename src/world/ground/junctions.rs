//! Roads meet at junctions at one height. At each junction the first road
//! by rank (a fixed road, then the higher class, then a tie broken by its
//! geometry) keeps its height; every other road through it is pinned there,
//! and refitted (least earthworks under its grade limit) on each side of the
//! pin up to the next pin, or for at most [`window`] along it, back to its
//! own profile. So the height of a point depends only on the junctions
//! within two windows of it along its road, and a region's heights are the
//! same however it was asked for.

use super::EarthworkParams;
use super::profile::{PATH_GRADE, Pin, deck_weights, fit_span, ground_along, smooth, stations};
use crate::network::{RoadClass, RoadNetwork, point_key};
use crate::terrain::Terrain;
use glam::DVec2;

/// How a road ranks at a junction: lower keeps its height (and its
/// carriageway where it overlaps another's).
pub(crate) fn rank(class: RoadClass, fixed: bool) -> u8 {
    if fixed {
        return 0;
    }
    match class {
        RoadClass::Highway => 1,
        RoadClass::Street => 2,
        RoadClass::Road => 3,
        RoadClass::Track => 4,
        RoadClass::Path => 5,
    }
}

/// Orders points: by `x`, then `y`.
fn cmp_point(a: DVec2, b: DVec2) -> std::cmp::Ordering {
    a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y))
}

/// How far along a road a pin at a junction reshapes it at most, metres.
pub(crate) fn window(p: &EarthworkParams) -> f64 {
    2.0 * p.max_reach
}

/// How far along road `i` a junction's platform reaches: as far as the
/// other roads' carriageways (`others`) reach across it, more where they
/// cross at a slant.
pub(crate) fn platform(net: &RoadNetwork, i: usize, others: &[usize], p: &EarthworkParams) -> f64 {
    (others.iter().filter(|&&o| o != i))
        .map(|&o| 1.5 * (net.roads[o].width / 2.0 + p.shoulder))
        .fold(0.0, f64::max)
}

/// A crossing where one road passes over another on a bridge: the upper
/// road's vertex there, and the half-length its bridge needs.
pub(crate) type Overpass = (usize, f64);

/// Sets every road's heights at its junctions to those of the road that
/// ranks first there (roads marked `fixed` keep theirs everywhere), except
/// where the two heights differ by `separation` or more: there the higher
/// road passes over the lower on a bridge (returned, per road). Every road
/// of `net` must have a profile.
pub(crate) fn join(
    terrain: &Terrain,
    net: &mut RoadNetwork,
    fixed: &[bool],
    p: &EarthworkParams,
) -> Vec<Vec<Overpass>> {
    let mut pins: Vec<Vec<(usize, Pin)>> = vec![Vec::new(); net.roads.len()];
    let mut over: Vec<Vec<Overpass>> = vec![Vec::new(); net.roads.len()];
    let mut trims: Vec<Vec<(usize, f64)>> = vec![Vec::new(); net.roads.len()];
    let key = |i: usize| {
        let r = &net.roads[i];
        (
            rank(r.class, fixed[i]),
            r.points[0],
            r.points[r.points.len() - 1],
        )
    };
    let order = |a: usize, b: usize| {
        let (ka, kb) = (key(a), key(b));
        ka.0.cmp(&kb.0)
            .then(cmp_point(ka.1, kb.1))
            .then(cmp_point(ka.2, kb.2))
            .then(a.cmp(&b))
    };
    let tops: Vec<usize> = (net.junctions.iter())
        .map(|j| {
            (j.roads.iter().copied())
                .min_by(|&a, &b| order(a, b))
                .expect("a junction has roads")
        })
        .collect();
    let heights = cluster_heights(net, fixed, &tops, &order, p);
    for (j, (&top, height)) in net.junctions.iter().zip(tops.iter().zip(heights)) {
        let top_road = &net.roads[top];
        let Some(top_k) = top_road.points.iter().position(|&q| q == j.pos) else {
            continue;
        };
        let Some(height) = height else {
            continue;
        };
        for &i in &j.roads {
            if fixed[i] {
                continue;
            }
            let r = &net.roads[i];
            // The platform; the first road keeps its own profile, and a
            // highway its grade.
            let own = i == top || r.class == RoadClass::Highway;
            let flat = if own {
                0.0
            } else {
                platform(net, i, &j.roads, p)
            };
            // Only a road passing through can pass over or under another
            // that passes through.
            let through = |r: &crate::network::Road, k: usize| k > 0 && k + 1 < r.points.len();
            // A road that ends this far from the other in height stops short
            // of it instead (a dead end), if it is long enough.
            let short = (j.roads.iter())
                .map(|&o| net.roads[o].width / 2.0)
                .fold(0.0, f64::max)
                + p.shoulder
                + 2.0;
            let stops = |r: &crate::network::Road| r.length() > 2.0 * short + p.step;
            for (k, _) in r.points.iter().enumerate().filter(|(_, q)| **q == j.pos) {
                if i == top || (height - r.z[k]).abs() < p.separation {
                    pins[i].push((k, Pin { z: height, flat }));
                    continue;
                }
                let two = j.roads.len() == 2;
                match (through(r, k), through(top_road, top_k)) {
                    (true, true) => {}
                    (false, _) if stops(r) => {
                        trims[i].push((k, short));
                        continue;
                    }
                    (true, false) if two && !fixed[top] && stops(top_road) => {
                        trims[top].push((top_k, short));
                        continue;
                    }
                    _ => {
                        pins[i].push((k, Pin { z: height, flat }));
                        continue;
                    }
                }
                // Grade-separated: the higher one bridges the lower.
                let (upper, at, lower) = if height > r.z[k] {
                    (top, top_k, r)
                } else {
                    (i, k, top_road)
                };
                over[upper].push((at, lower.width / 2.0 + p.shoulder + 4.0));
            }
        }
    }
    for (i, mut ps) in pins.into_iter().enumerate() {
        let r = &net.roads[i];
        if ps
            .iter()
            .all(|(k, pin)| r.z[*k] == pin.z && pin.flat == 0.0)
        {
            continue;
        }
        ps.sort_by_key(|x| x.0);
        ps.dedup_by_key(|x| x.0);
        let z = refit(terrain, &r.points, &r.z, r.class, r.width, &ps, p);
        net.roads[i].z = z;
    }
    if trims.iter().any(|t| !t.is_empty()) {
        for (i, t) in trims.iter().enumerate().filter(|(_, t)| !t.is_empty()) {
            trim(&mut net.roads[i], t, &mut over[i]);
        }
        *net = RoadNetwork::from_roads(std::mem::take(&mut net.roads));
    }
    over
}

/// The height of each junction (`None` where its first road, `tops`, does
/// not pass through it): its first road's there, except that junctions
/// joined along a road by a stretch shorter than a platform there, or too
/// short to climb between their heights under its grade limit (their
/// heights less than `separation` apart; at most one of them with a fixed
/// road or a highway through it), take one height, that of the one whose
/// first road comes first by `order` (then by position), so that two pins
/// that close on one road agree.
fn cluster_heights(
    net: &RoadNetwork,
    fixed: &[bool],
    tops: &[usize],
    order: &dyn Fn(usize, usize) -> std::cmp::Ordering,
    p: &EarthworkParams,
) -> Vec<Option<f64>> {
    let js = &net.junctions;
    let own: Vec<Option<f64>> = (js.iter().zip(tops))
        .map(|(j, &t)| {
            let r = &net.roads[t];
            r.points.iter().position(|&q| q == j.pos).map(|k| r.z[k])
        })
        .collect();
    let index: std::collections::HashMap<(u64, u64), usize> = (js.iter().enumerate())
        .map(|(i, j)| (point_key(j.pos), i))
        .collect();
    // Junctions with a fixed road or a highway through them keep its
    // height: a cluster holds at most one.
    let mut anchored: Vec<bool> = (js.iter())
        .map(|j| (j.roads.iter()).any(|&i| fixed[i] || net.roads[i].class == RoadClass::Highway))
        .collect();
    let mut parent: Vec<usize> = (0..js.len()).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut joined = false;
    for (i, r) in net.roads.iter().enumerate() {
        let limit = p.max_grade.of(r.class).min(PATH_GRADE);
        let mut last: Option<(usize, f64, f64)> = None;
        let mut at = 0.0;
        for (k, &q) in r.points.iter().enumerate() {
            if k > 0 {
                at += r.points[k - 1].distance(q);
            }
            let Some(&j) = index.get(&point_key(q)) else {
                continue;
            };
            let flat = platform(net, i, &js[j].roads, p);
            if let Some((a, s, flat_a)) = last
                && own[a].is_some()
                && own[j].is_some()
                && let dz = (own[a].unwrap_or(0.0) - own[j].unwrap_or(0.0)).abs()
                && dz < p.separation
                && (at - s < flat.max(flat_a) || dz > limit * (at - s))
            {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, j));
                if ra != rb && !(anchored[ra] && anchored[rb]) {
                    let (keep, gone) = (ra.min(rb), ra.max(rb));
                    parent[gone] = keep;
                    anchored[keep] |= anchored[gone];
                    joined = true;
                }
            }
            last = Some((j, at, flat));
        }
    }
    if !joined {
        return own;
    }
    // Each cluster's first junction.
    let mut lead: Vec<usize> = (0..js.len()).collect();
    for j in 0..js.len() {
        let root = find(&mut parent, j);
        let l = lead[root];
        let first = order(tops[j], tops[l])
            .then(cmp_point(js[j].pos, js[l].pos))
            .is_lt();
        if own[j].is_some() && (own[l].is_none() || first) {
            lead[root] = j;
        }
    }
    (0..js.len())
        .map(|j| {
            let root = find(&mut parent, j);
            own[j].and(own[lead[root]])
        })
        .collect()
}

/// `r` with each end in `ends` (a vertex, 0 or the last, and a length) cut
/// back by at least that length, to a vertex; `over` (its overpasses)
/// renumbered. The road must be longer than the lengths together.
fn trim(r: &mut crate::network::Road, ends: &[(usize, f64)], over: &mut Vec<Overpass>) {
    let s = stations(&r.points);
    let n = r.points.len();
    let (mut first, mut last) = (0, n - 1);
    for &(k, length) in ends {
        if k == 0 {
            first = s.iter().position(|&x| x >= length).unwrap_or(first);
        } else {
            last = s
                .iter()
                .rposition(|&x| s[n - 1] - x >= length)
                .unwrap_or(last);
        }
    }
    if first >= last {
        return;
    }
    r.points = r.points[first..=last].to_vec();
    r.z = r.z[first..=last].to_vec();
    over.retain(|o| (first..=last).contains(&o.0));
    over.iter_mut().for_each(|o| o.0 -= first);
}

/// `z` refitted around `pins` (ascending vertices, with their heights and
/// platforms).
fn refit(
    terrain: &Terrain,
    points: &[DVec2],
    z: &[f64],
    class: RoadClass,
    width: f64,
    pins: &[(usize, Pin)],
    p: &EarthworkParams,
) -> Vec<f64> {
    let n = points.len();
    let limit = p.max_grade.of(class).min(PATH_GRADE);
    let len = |k: usize| points[k].distance(points[k + 1]);
    let reach = window(p);
    // The vertex `reach` along from `k` (forward or back), or the road's end.
    let walk = |(k, _): (usize, Pin), forward: bool| -> (usize, bool) {
        let (mut at, mut d) = (k, 0.0);
        loop {
            if (forward && at + 1 >= n) || (!forward && at == 0) {
                return (at, true);
            }
            d += if forward { len(at) } else { len(at - 1) };
            at = if forward { at + 1 } else { at - 1 };
            if d >= reach {
                return (at, false);
            }
        }
    };
    // Windows: (first, last, and at each end the platform of the pin there,
    // or `Some(0.0)` where the window ends on the road's own profile, or
    // `None` at a free end of the road).
    type End = Option<f64>;
    let mut windows: Vec<(usize, usize, End, End)> = Vec::new();
    let (first, last) = (pins[0], pins[pins.len() - 1]);
    let (m, end) = walk(first, false);
    windows.push((m, first.0, (!end).then_some(0.0), Some(first.1.flat)));
    for w in pins.windows(2) {
        let ((a, pa), (b, pb)) = (w[0], w[1]);
        let (ma, end_a) = walk(w[0], true);
        if end_a || ma >= b {
            windows.push((a, b, Some(pa.flat), Some(pb.flat)));
        } else {
            let (mb, _) = walk(w[1], false);
            if mb <= ma {
                windows.push((a, b, Some(pa.flat), Some(pb.flat)));
            } else {
                windows.push((a, ma, Some(pa.flat), Some(0.0)));
                windows.push((mb, b, Some(0.0), Some(pb.flat)));
            }
        }
    }
    let (m, end) = walk(last, true);
    windows.push((last.0, m, Some(last.1.flat), (!end).then_some(0.0)));
    let mut out = z.to_vec();
    for &(k, pin) in pins {
        out[k] = pin.z;
    }
    for (a, b, pin_a, pin_b) in windows {
        if a >= b {
            continue;
        }
        let pts = &points[a..=b];
        let ground = ground_along(terrain, pts, width / 2.0, p.clearance);
        let weight = deck_weights(terrain, &ground, p.clearance);
        let target = smooth(&stations(pts), &ground, p.smoothing);
        let pin = |k: usize, flat: Option<f64>| flat.map(|flat| Pin { z: out[k], flat });
        let ends = (pin(a, pin_a), pin(b, pin_b));
        let fitted = fit_span(pts, target, weight, ends, limit, p.junction_grade, false);
        out[a..=b].copy_from_slice(&fitted);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::Road;

    fn road(points: &[(f64, f64)], class: RoadClass, z: f64) -> Road {
        let points: Vec<DVec2> = points.iter().map(|&(x, y)| DVec2::new(x, y)).collect();
        let z = vec![z; points.len()];
        Road {
            z,
            ..Road::new(points, class, 5.0)
        }
    }

    #[test]
    fn roads_meet_at_the_height_of_the_first_and_come_back_to_their_own() {
        let t = Terrain::default();
        let p = EarthworkParams::default();
        let (x0, y0) = (3000.0, 3000.0);
        let line: Vec<(f64, f64)> = (0..=80)
            .map(|k| (x0 + k as f64 * 5.0 - 200.0, y0))
            .collect();
        let cross: Vec<(f64, f64)> = (0..=80)
            .map(|k| (x0, y0 + k as f64 * 5.0 - 200.0))
            .collect();
        let mut own = road(&line, RoadClass::Road, 0.0);
        own.z = own.points.iter().map(|q| t.height(q.x, q.y)).collect();
        let mut high = road(&cross, RoadClass::Highway, 0.0);
        high.z = high
            .points
            .iter()
            .map(|q| t.height(q.x, q.y) + 3.0)
            .collect();
        let mut net = RoadNetwork::from_roads(vec![own.clone(), high.clone()]);
        assert!(
            join(&t, &mut net, &[false, false], &p)
                .iter()
                .all(|o| o.is_empty())
        );
        assert_eq!(net.roads[1].z, high.z, "the highway keeps its own");
        let r = &net.roads[0];
        let at = r
            .points
            .iter()
            .position(|q| *q == DVec2::new(x0, y0))
            .unwrap();
        let h = high.z[high
            .points
            .iter()
            .position(|q| *q == DVec2::new(x0, y0))
            .unwrap()];
        assert_eq!(r.z[at], h);
        // Beyond the window the road keeps its own heights.
        for (k, q) in r.points.iter().enumerate() {
            if (q.x - x0).abs() > window(&p) + 1e-9 {
                assert_eq!(r.z[k], own.z[k], "{k}");
            }
        }
        // Fixed roads keep theirs; the other comes to them.
        let mut street = own.clone();
        street.class = RoadClass::Street;
        let mut net = RoadNetwork::from_roads(vec![street.clone(), high.clone()]);
        join(&t, &mut net, &[true, false], &p);
        assert_eq!(net.roads[0].z, street.z);
        let hz = &net.roads[1];
        let at = hz
            .points
            .iter()
            .position(|q| *q == DVec2::new(x0, y0))
            .unwrap();
        assert_eq!(
            hz.z[at],
            street.z[street
                .points
                .iter()
                .position(|q| *q == DVec2::new(x0, y0))
                .unwrap()]
        );
    }
}
