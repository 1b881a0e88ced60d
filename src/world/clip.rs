//! Contour roads among cities and highways: cut where they enter a city
//! footprint, and ended on the first highway they meet (a T-junction at a
//! highway vertex). Each road is cut on its own, against whole footprints
//! and whole highways, so the pieces are the same in any area.

use super::highways::Highway;
use crate::city::City;
use crate::geom::bounds;
use crate::geom::{distance_to_segment, segment_intersection};
use crate::network::Road;
use glam::DVec2;

/// Pieces shorter than this are dropped, metres.
pub(crate) const MIN_PIECE: f64 = 20.0;

/// The parts of `road` outside every footprint in `cities`. A cut point
/// that is not `dry` is left out (the piece ends at its last vertex).
pub(crate) fn outside_cities(
    road: &Road,
    cities: &[&City],
    dry: impl Fn(DVec2) -> bool,
) -> Vec<Vec<DVec2>> {
    let (lo, hi) = bounds(&road.points);
    let near: Vec<&City> = (cities.iter().copied())
        .filter(|c| {
            let (a, b) = c.bounds();
            !(b.cmplt(lo).any() || a.cmpgt(hi).any())
        })
        .collect();
    if near.is_empty() {
        let mut p = road.points.clone();
        trim_wet(&mut p, &dry);
        return vec![p];
    }
    let inside = |p: DVec2| near.iter().any(|c| c.contains(p));
    let mut pieces = Vec::new();
    let mut cur: Vec<DVec2> = Vec::new();
    for w in road.points.windows(2) {
        let (a, b) = (w[0], w[1]);
        // Where the segment crosses a footprint edge, in order along it.
        let mut ts: Vec<f64> = vec![0.0, 1.0];
        for c in &near {
            let n = c.boundary.len();
            for i in 0..n {
                let (p, q) = (c.boundary[i], c.boundary[(i + 1) % n]);
                if let Some((t, _)) = segment_intersection(a, b, p, q) {
                    ts.push(t);
                }
            }
        }
        ts.sort_by(f64::total_cmp);
        ts.dedup();
        for s in ts.windows(2) {
            let (p, q) = (at(a, b, s[0]), at(a, b, s[1]));
            if inside((p + q) / 2.0) {
                if cur.len() >= 2 {
                    pieces.push(std::mem::take(&mut cur));
                }
                cur.clear();
                continue;
            }
            if cur.last() != Some(&p) {
                if !cur.is_empty() {
                    pieces.push(std::mem::take(&mut cur));
                }
                cur.push(p);
            }
            cur.push(q);
        }
    }
    if cur.len() >= 2 {
        pieces.push(cur);
    }
    for p in &mut pieces {
        trim_wet(p, &dry);
        for end in [0, 1] {
            if p.len() >= 2 {
                if end == 1 {
                    p.reverse();
                }
                meet_ring(p, &near, &dry);
                if end == 1 {
                    p.reverse();
                }
            }
        }
    }
    pieces.retain(|p| p.len() >= 2 && length(p) >= MIN_PIECE);
    pieces
}

/// How far a cut end may move to a footprint vertex, metres.
const SNAP: f64 = 60.0;
/// How far a cut end that cannot move stops short of the footprint, metres.
const GAP: f64 = 1.5;

/// A piece whose first point is a cut on a footprint edge starts instead on
/// the nearer vertex of that edge (a vertex of the city's ring road: a
/// junction, and one the ring has whatever else is asked for) when that is
/// dry, close, and reached without crossing the footprint; else it starts
/// [`GAP`] short of the footprint, touching nothing.
fn meet_ring(p: &mut Vec<DVec2>, cities: &[&City], dry: impl Fn(DVec2) -> bool) {
    let (cut, next) = (p[0], p[1]);
    let Some((c, i)) = cities.iter().find_map(|c| {
        let n = c.boundary.len();
        (0..n)
            .find(|&i| distance_to_segment(cut, c.boundary[i], c.boundary[(i + 1) % n]) < 1e-7)
            .map(|i| (c, i))
    }) else {
        return;
    };
    let n = c.boundary.len();
    let (a, b) = (c.boundary[i], c.boundary[(i + 1) % n]);
    let v = if cut.distance(a) <= cut.distance(b) {
        a
    } else {
        b
    };
    let clear = (0..n).all(|k| {
        let (q, r) = (c.boundary[k], c.boundary[(k + 1) % n]);
        q == v || r == v || segment_intersection(next, v, q, r).is_none()
    });
    if v.distance(cut) <= SNAP && dry(v) && clear && v != next {
        p[0] = v;
    } else {
        let d = next.distance(cut);
        if d > GAP {
            p[0] = cut + (next - cut) * (GAP / d);
        } else {
            p.remove(0);
        }
    }
}

/// `piece` up to the first highway it meets, ended exactly on that
/// highway's nearest vertex (a shared vertex: a junction), or just before
/// the crossing when that vertex is not `dry` (a bridge); the piece whole
/// when it meets none.
pub(crate) fn end_on_highway(
    piece: &[DVec2],
    highways: &[Highway],
    dry: impl Fn(DVec2) -> bool,
) -> Vec<DVec2> {
    let (lo, hi) = bounds(piece);
    let near: Vec<&[DVec2]> = (highways.iter())
        .map(|h| h.road.points.as_slice())
        .filter(|h| {
            let (a, b) = bounds(h);
            !(b.cmplt(lo).any() || a.cmpgt(hi).any())
        })
        .collect();
    for (i, w) in piece.windows(2).enumerate() {
        // The first crossing along this segment (ties: the earlier highway).
        let mut first: Option<(f64, DVec2)> = None;
        for h in &near {
            for v in h.windows(2) {
                if let Some((t, u)) = segment_intersection(w[0], w[1], v[0], v[1])
                    && first.is_none_or(|f| t < f.0)
                {
                    let at = if u < 0.5 { v[0] } else { v[1] };
                    first = Some((t, at));
                }
            }
        }
        if let Some((_, at)) = first {
            let mut out = piece[..=i].to_vec();
            if dry(at) {
                out.push(at);
                out.dedup();
            }
            return out;
        }
    }
    piece.to_vec()
}

/// Drops wet ends: cut points (only ever the ends of a piece), and a
/// contour road's last step into a lake (the shore is close by).
pub(crate) fn trim_wet(p: &mut Vec<DVec2>, dry: impl Fn(DVec2) -> bool) {
    while p.last().is_some_and(|&q| !dry(q)) {
        p.pop();
    }
    let wet = p.iter().take_while(|&&q| !dry(q)).count();
    p.drain(..wet);
}

/// The point at `t` along `a–b`, exactly `a` and `b` at 0 and 1.
fn at(a: DVec2, b: DVec2, t: f64) -> DVec2 {
    if t <= 0.0 {
        a
    } else if t >= 1.0 {
        b
    } else {
        a + (b - a) * t
    }
}

pub(crate) fn length(points: &[DVec2]) -> f64 {
    points.windows(2).map(|w| w[0].distance(w[1])).sum()
}
