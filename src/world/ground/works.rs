//! Building a set of profiled roads and pads into the ground: one planar
//! network whose roads meet at one height at every junction, the stretches
//! that are bridges or tunnels, the carriageways and pads that shape the
//! ground ([`Earthworks`]), and the retaining walls.

use super::junctions::{Overpass, join, rank};
use super::laid::{Earthworks, Lane};
use super::terraces::Pad;
use super::{EarthworkParams, Structure, StructureKind};
use crate::network::{Road, RoadNetwork, planarize, point_key};
use crate::terrain::{BuiltKind, Relief, Terrain};
use glam::{DVec2, DVec3};
use std::collections::HashSet;

/// A stretch of a road, from one vertex to a later one, that is a bridge or
/// a tunnel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Span {
    pub kind: StructureKind,
    pub first: usize,
    pub last: usize,
}

/// What [`build`] makes.
#[derive(Debug)]
pub(crate) struct Works {
    /// Every road, planar, with its final profile.
    pub network: RoadNetwork,
    /// Each road's bridges and tunnels.
    pub spans: Vec<Vec<Span>>,
    /// The built ground.
    pub earthworks: Earthworks,
    /// Retaining walls.
    pub walls: Vec<Structure>,
}

/// Builds `roads` (each with its own profile; those in `towns` are towns'
/// streets, which keep theirs: they come from their town's plan) and
/// `pads` (by town).
pub(crate) fn build(
    terrain: &Terrain,
    roads: Vec<Road>,
    towns: std::ops::Range<usize>,
    pads: Vec<Vec<Pad>>,
    p: &EarthworkParams,
) -> Works {
    // A town's street is known after planarizing by its first segment.
    let key = |a: DVec2, b: DVec2| (point_key(a), point_key(b));
    let town: HashSet<_> = (roads[towns].iter())
        .flat_map(|r| r.points.windows(2).map(|w| key(w[0], w[1])))
        .collect();
    let mut network = planarize(vec![RoadNetwork::from_roads(roads)]);
    let fixed: Vec<bool> = (network.roads.iter())
        .map(|r| town.contains(&key(r.points[0], r.points[1])))
        .collect();
    let over = join(terrain, &mut network, &fixed, p);
    let spans: Vec<Vec<Span>> = (network.roads.iter().zip(&over))
        .map(|(r, o)| spans_of(terrain, r, o, p))
        .collect();
    let mut lanes = Vec::new();
    // Each road's lanes, as a range of `lanes`.
    let mut of_road = Vec::with_capacity(network.roads.len());
    for (r, sp) in network.roads.iter().zip(&spans) {
        let start = lanes.len();
        for k in 0..r.points.len() - 1 {
            if sp.iter().any(|s| s.first <= k && k < s.last) {
                continue;
            }
            lanes.push(Lane {
                a: r.points[k],
                b: r.points[k + 1],
                za: r.z[k],
                zb: r.z[k + 1],
                road: r.width / 2.0,
                half: r.width / 2.0 + p.shoulder,
                rank: rank(r.class, false),
                walled: [false; 2],
                toe: [0.0; 2],
            });
        }
        of_road.push(start..lanes.len());
    }
    let earthworks = Earthworks::new(terrain, lanes, pads, p);
    let mut walls = lane_walls(terrain, &earthworks, &of_road);
    walls.extend(pad_walls(terrain, &earthworks));
    Works {
        network,
        spans,
        earthworks,
        walls,
    }
}

/// The bridges and tunnels of a profiled road: where the fill under it
/// would exceed `max_fill` (or it crosses water), a bridge; where the cut
/// would exceed `max_cut`, a tunnel; each carried on while the fill (cut)
/// is over half of that, at most `max_reach` further, to its abutments
/// (portals). Where it passes over another road (`over`), a bridge too.
pub(crate) fn spans_of(
    terrain: &Terrain,
    r: &Road,
    over: &[Overpass],
    p: &EarthworkParams,
) -> Vec<Span> {
    let lake = terrain.params().lake_level;
    let n = r.points.len();
    // The natural ground at every vertex, then at each segment's quarter
    // points, taken together (bit for bit as one by one).
    let (mut xs, mut ys) = (Vec::with_capacity(4 * n), Vec::with_capacity(4 * n));
    xs.extend(r.points.iter().map(|q| q.x));
    ys.extend(r.points.iter().map(|q| q.y));
    for k in 0..n.saturating_sub(1) {
        for t in [0.25, 0.5, 0.75] {
            let q = r.points[k].lerp(r.points[k + 1], t);
            xs.push(q.x);
            ys.push(q.y);
        }
    }
    let mut heights = Vec::new();
    terrain.heights_at_points(&xs, &ys, &mut heights);
    let (natural, quarters) = heights.split_at(n);
    // The fill (negative: cut) at each vertex and at the middle of the
    // segment after it; water counts as too much fill.
    let fill = |k: usize| {
        if natural[k] < lake {
            f64::INFINITY
        } else {
            r.z[k] - natural[k]
        }
    };
    // The most fill and the most cut at a segment's quarter points.
    let mid: Vec<(f64, f64)> = (0..n.saturating_sub(1))
        .map(|k| {
            [0.25, 0.5, 0.75]
                .iter()
                .enumerate()
                .fold((f64::MIN, f64::MIN), |(f, c), (e, &t)| {
                    let h = quarters[3 * k + e];
                    if h < lake {
                        return (f64::INFINITY, c);
                    }
                    let d = r.z[k] + t * (r.z[k + 1] - r.z[k]) - h;
                    (f.max(d), c.max(-d))
                })
        })
        .collect();
    // The most fill (cut) at a vertex or along a segment beside it.
    let most = |k: usize, sign: f64| {
        let side = |m: (f64, f64)| if sign > 0.0 { m.0 } else { m.1 };
        let mut m = sign * fill(k);
        if k > 0 {
            m = m.max(side(mid[k - 1]));
        }
        if k + 1 < n {
            m = m.max(side(mid[k]));
        }
        m
    };
    let mut out = Vec::new();
    for (kind, core, near) in [
        (
            StructureKind::Bridge,
            (&|k: usize| most(k, 1.0) > p.max_fill) as &dyn Fn(usize) -> bool,
            (&|k: usize| fill(k) > 0.5 * p.max_fill) as &dyn Fn(usize) -> bool,
        ),
        (
            StructureKind::Tunnel,
            &|k: usize| most(k, -1.0) > p.max_cut,
            &|k: usize| -fill(k) > 0.5 * p.max_cut,
        ),
    ] {
        let mut on = vec![false; n];
        if kind == StructureKind::Bridge {
            for &(k, half) in over {
                on[k] = true;
                for dir in [-1i64, 1] {
                    let (mut j, mut d) = (k as i64, 0.0);
                    while d < half && j + dir >= 0 && j + dir < n as i64 {
                        d += r.points[j as usize].distance(r.points[(j + dir) as usize]);
                        j += dir;
                        on[j as usize] = true;
                    }
                }
            }
        }
        for k in (0..n).filter(|&k| core(k)) {
            on[k] = true;
            for dir in [-1i64, 1] {
                let (mut j, mut d) = (k as i64, 0.0);
                loop {
                    let next = j + dir;
                    if next < 0 || next >= n as i64 {
                        break;
                    }
                    d += r.points[j as usize].distance(r.points[next as usize]);
                    if d > p.max_reach || on[next as usize] && core(next as usize) {
                        break;
                    }
                    on[next as usize] = true;
                    j = next;
                    if !near(j as usize) {
                        break;
                    }
                }
            }
        }
        let mut k = 0;
        while k < n {
            if !on[k] {
                k += 1;
                continue;
            }
            let first = k;
            while k + 1 < n && on[k + 1] {
                k += 1;
            }
            let (first, last) = if first == k {
                // One point: the segment on to its neighbour.
                if k + 1 < n {
                    (k, k + 1)
                } else {
                    (k.saturating_sub(1), k)
                }
            } else {
                (first, k)
            };
            if first < last {
                out.push(Span { kind, first, last });
            }
            k += 1;
        }
    }
    out.sort_by_key(|s| (s.first, s.last));
    out
}

/// The least step in the built ground that gets a wall, metres.
pub(super) const MIN_STEP: f64 = 0.5;
/// The longest stretch of a wall between the points where its top and foot
/// are taken from the ground, metres: on a hillside the ground beside it is
/// far from straight between a lane's ends or a pad's corners.
const WALL_STEP: f64 = 4.0;
/// How far to either side of a wall the ground is taken, metres.
const BEYOND: f64 = 0.25;
/// Fewest probes of the built ground worth two threads (each costs about
/// 0.15 µs; a 10 km region has some 800,000).
const MIN_PARALLEL_PROBES: usize = 1 << 12;

/// A point where a wall may stand, or the end of a line of them.
enum Station {
    Break,
    At {
        /// Where, on the edge of a carriageway or pad.
        at: DVec2,
        /// Unit vector out of the carriageway or pad.
        out: DVec2,
        /// The level of the pad whose edge this is; none on a carriageway.
        pad: Option<f64>,
    },
}

/// The walls along lines of stations: runs of two or more points where the
/// built ground just inside and just outside differ by [`MIN_STEP`] or
/// more. On a carriageway's edge the ground on either side is taken as
/// built (another lane may hold it); none where a pad is on either side
/// (pads have their own walls). On a pad's edge, where the pad holds it;
/// between two pads, the higher one's.
fn walls_along(terrain: &Terrain, works: &Earthworks, stations: &[Station]) -> Vec<Structure> {
    // The natural ground at every probe, in one batch.
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for s in stations {
        if let Station::At { at, out, .. } = *s {
            for q in [at - out * BEYOND, at + out * BEYOND] {
                xs.push(q.x);
                ys.push(q.y);
            }
        }
    }
    let mut natural = Vec::new();
    terrain.heights_at_points(&xs, &ys, &mut natural);
    // Then what is built there (the most of the cost, on two threads).
    let judge = |range: std::ops::Range<usize>| -> Vec<(f64, Option<BuiltKind>)> {
        (range.map(|i| {
            let h = natural[i];
            (works.built(DVec2::new(xs[i], ys[i]), h))
                .map_or((h, None), |b| (b.height, Some(b.kind)))
        }))
        .collect()
    };
    let half = natural.len() / 2;
    let (mut probes, rest) = crate::threads::both(
        natural.len() >= MIN_PARALLEL_PROBES,
        || judge(0..half),
        || judge(half..natural.len()),
    );
    probes.extend(rest);
    let mut probe = probes.into_iter();
    let mut runs = WallRuns::default();
    for s in stations {
        let Station::At { at, pad, .. } = *s else {
            runs.flush();
            continue;
        };
        let (near, far) = (probe.next().unwrap(), probe.next().unwrap());
        let is_pad = |g: (f64, Option<BuiltKind>)| g.1 == Some(BuiltKind::Pad);
        match pad {
            None if !is_pad(near) && !is_pad(far) => runs.push(at, near.0, far.0),
            Some(z) if near == (z, Some(BuiltKind::Pad)) && !(is_pad(far) && far.0 > z) => {
                runs.push(at, z, far.0)
            }
            _ => runs.flush(),
        }
    }
    runs.flush();
    runs.out
}

/// Walls gathered point by point along a line.
#[derive(Default)]
struct WallRuns {
    out: Vec<Structure>,
    line: Vec<DVec3>,
    foot: Vec<f64>,
}

impl WallRuns {
    /// A point at `at` between ground at `z` and `beyond`: on the wall if
    /// they differ by [`MIN_STEP`] or more, else the end of it.
    fn push(&mut self, at: DVec2, z: f64, beyond: f64) {
        if (beyond - z).abs() < MIN_STEP {
            return self.flush();
        }
        let top = at.extend(z.max(beyond));
        if self.line.last() != Some(&top) {
            self.line.push(top);
            self.foot.push(z.min(beyond));
        }
    }

    /// Ends the wall so far.
    fn flush(&mut self) {
        if self.line.len() >= 2 {
            self.out.push(Structure {
                kind: StructureKind::Wall,
                road: None,
                line: std::mem::take(&mut self.line),
                foot: std::mem::take(&mut self.foot),
            });
        }
        self.line.clear();
        self.foot.clear();
    }
}

/// Stations along `a`–`b`: both ends and at most [`WALL_STEP`] apart.
fn stations_along(
    a: DVec2,
    b: DVec2,
    out: DVec2,
    pad: Option<f64>,
) -> impl Iterator<Item = Station> {
    // At most 1,024 pieces: a lane or a pad's edge is far shorter.
    let n = (a.distance(b) / WALL_STEP).ceil().clamp(1.0, 1024.0) as usize;
    (0..=n).map(move |k| Station::At {
        at: a.lerp(b, k as f64 / n as f64),
        out,
        pad,
    })
}

/// Walls along the walled sides of carriageways, by runs of a road's lanes
/// walled on that side.
fn lane_walls(
    terrain: &Terrain,
    works: &Earthworks,
    of_road: &[std::ops::Range<usize>],
) -> Vec<Structure> {
    let lanes = works.lanes();
    let mut stations = Vec::new();
    for range in of_road {
        for side in 0..2 {
            let mut prev_b: Option<DVec2> = None;
            for l in &lanes[range.clone()] {
                if prev_b != Some(l.a) || !l.walled[side] {
                    stations.push(Station::Break);
                }
                prev_b = Some(l.b);
                if l.walled[side] {
                    let sign = if side == 0 { 1.0 } else { -1.0 };
                    let out = (l.b - l.a).perp().normalize_or_zero() * sign;
                    let (a, b) = (l.a + out * l.half, l.b + out * l.half);
                    // Where the lane before ends on the same line, its last
                    // station is this one's first.
                    let same = match stations.last() {
                        Some(&Station::At { at, out: o, .. }) => at == a && o == out,
                        _ => false,
                    };
                    let along = stations_along(a, b, out, None);
                    stations.extend(along.skip(usize::from(same)));
                }
            }
            stations.push(Station::Break);
        }
    }
    walls_along(terrain, works, &stations)
}

/// Walls around pads, edge by edge.
fn pad_walls(terrain: &Terrain, works: &Earthworks) -> Vec<Structure> {
    let mut stations = Vec::new();
    for (pad, _) in works.pads() {
        let v = &pad.polygon;
        let ccw = (0..v.len())
            .map(|i| v[i].perp_dot(v[(i + 1) % v.len()]))
            .sum::<f64>()
            > 0.0;
        for i in 0..v.len() {
            let (a, b) = (v[i], v[(i + 1) % v.len()]);
            let n = (b - a).perp().normalize_or_zero();
            let out = if ccw { -n } else { n };
            stations.extend(stations_along(a, b, out, Some(pad.z)));
            stations.push(Station::Break);
        }
    }
    walls_along(terrain, works, &stations)
}
