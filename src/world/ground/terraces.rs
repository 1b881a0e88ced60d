//! A town built into the ground: its streets on profiles that meet its
//! highways at the gates, and each lot a level pad at the height of the
//! street it faces, with its building's base there. Planned once per city,
//! from the city and its highways alone, so that every region sees the same
//! town.

use super::EarthworkParams;
use super::profile::{Pin, climb, densify, fit_span, stations, steepest};
use crate::city::CityLayout;
use crate::geom::{SegmentGrid, closest_on_segment};
use crate::network::{Road, RoadClass, RoadNetwork, planarize};
use crate::terrain::Terrain;
use glam::DVec2;

/// A level pad: a lot's polygon at one height.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pad {
    /// The outline (a simple polygon).
    pub polygon: Vec<DVec2>,
    /// Its height.
    pub z: f64,
    /// Its building's footprint, if it has one.
    pub building: Option<Vec<DVec2>>,
}

/// A town's streets and pads.
#[derive(Clone, Debug, Default)]
pub(crate) struct CityPlan {
    /// Its streets with their profiles (no highways; wet ends trimmed; too
    /// steep ones as footways with steps).
    pub streets: Vec<Road>,
    /// One pad per lot, in the layout's order.
    pub pads: Vec<Pad>,
    /// Streets that became footways with steps.
    pub to_steps: usize,
}

/// The highways that end at a city, as profiled roads.
pub(crate) type Gates<'a> = &'a [Road];

/// The town's ground at each of `points`: the natural ground averaged over
/// a square of side `2·radius` around it (7 × 7 samples), smooth at the
/// town's scale. The samples are taken together (bit for bit as one by one).
fn surface(terrain: &Terrain, points: &[DVec2], radius: f64) -> Vec<f64> {
    let (mut xs, mut ys) = (Vec::with_capacity(49 * points.len()), Vec::new());
    ys.reserve(49 * points.len());
    for q in points {
        for j in -3..=3 {
            for i in -3..=3 {
                let d = DVec2::new(i as f64, j as f64) * (radius / 3.0);
                xs.push(q.x + d.x);
                ys.push(q.y + d.y);
            }
        }
    }
    let mut h = Vec::new();
    terrain.heights_at_points(&xs, &ys, &mut h);
    h.chunks_exact(49)
        .map(|c| {
            let mut sum = 0.0;
            for v in c {
                sum += v;
            }
            sum / 49.0
        })
        .collect()
}

/// Plans `layout`'s town: `highways` are the highways that end at its gates,
/// with their profiles. Streets follow the town's smoothed ground
/// ([`surface`]): they meet at its height at every junction (at the
/// highway's at a gate) and between junctions take the profile with the
/// least earthworks under the street grade limit, or, where junctions lie
/// too far apart in height for it, a straight grade. A street steeper than
/// `max_street_grade` anywhere becomes a footway with steps. Returns the
/// plan and the layout with every building's base on its pad.
pub(crate) fn plan(
    terrain: &Terrain,
    layout: &CityLayout,
    highways: Gates,
    p: &EarthworkParams,
) -> (CityPlan, CityLayout) {
    let lake = terrain.params().lake_level;
    let dry = |q: DVec2| terrain.height(q.x, q.y) >= lake;
    let radius = p.town_smoothing;
    let mut roads: Vec<Road> = highways.to_vec();
    for r in &layout.streets.network.roads {
        if r.class == RoadClass::Highway {
            continue;
        }
        let mut pts = r.points.clone();
        super::super::clip::trim_wet(&mut pts, dry);
        if pts.len() < 2 {
            continue;
        }
        let points = densify(&pts, p.step);
        let z = surface(terrain, &points, radius);
        roads.push(Road {
            points,
            z,
            ..r.clone()
        });
    }
    let mut net = planarize(vec![RoadNetwork::from_roads(roads)]);
    // Heights at junctions: a highway's where one passes, else the
    // surface's (every street has it there).
    let mut pinned: std::collections::HashMap<(u64, u64), f64> = Default::default();
    for j in &net.junctions {
        let highway = (j.roads.iter())
            .map(|&i| &net.roads[i])
            .find(|r| r.class == RoadClass::Highway);
        if let Some(k) = highway.and_then(|h| h.points.iter().position(|&q| q == j.pos)) {
            let h = highway.expect("found on it");
            pinned.insert((j.pos.x.to_bits(), j.pos.y.to_bits()), h.z[k]);
        }
    }
    let junction: std::collections::HashSet<(u64, u64)> = (net.junctions.iter())
        .map(|j| (j.pos.x.to_bits(), j.pos.y.to_bits()))
        .collect();
    // Each junction's platform, per road through it.
    let mut platform: Platforms = Default::default();
    for j in &net.junctions {
        for &i in &j.roads {
            let flat = super::junctions::platform(&net, i, &j.roads, p);
            platform.insert(((j.pos.x.to_bits(), j.pos.y.to_bits()), i), flat);
        }
    }
    // A vertex where each platform ends, so that it is level no further.
    for (i, r) in net.roads.iter_mut().enumerate() {
        if r.class == RoadClass::Highway {
            continue;
        }
        let s = stations(&r.points);
        let mut at: Vec<f64> = Vec::new();
        for (k, q) in r.points.iter().enumerate() {
            let key = ((q.x.to_bits(), q.y.to_bits()), i);
            if let Some(&f) = platform.get(&key).filter(|&&f| f > 0.0) {
                at.extend([s[k] - f, s[k] + f]);
            }
        }
        at.sort_by(f64::total_cmp);
        mark_stations(r, &s, &at);
    }
    let (settled, steep) = settle(&net, &junction, &pinned, &platform, p);
    let mut to_steps = 0;
    let mut streets = Vec::new();
    for (i, mut r) in
        (net.roads.into_iter().enumerate()).filter(|(_, r)| r.class != RoadClass::Highway)
    {
        let pins: Vec<(usize, Pin)> = (r.points.iter().enumerate())
            .filter_map(|(k, q)| {
                let key = (q.x.to_bits(), q.y.to_bits());
                junction.contains(&key).then(|| {
                    let flat = platform.get(&(key, i)).copied().unwrap_or(0.0);
                    (
                        k,
                        Pin {
                            z: settled[&key],
                            flat,
                        },
                    )
                })
            })
            .collect();
        r.z = between_pins(&r.points, &r.z, &pins, p);
        let s = stations(&r.points);
        if steep[i] || steepest(&s, &r.z) > p.max_street_grade + 1e-9 {
            r.class = RoadClass::Path;
            to_steps += 1;
        }
        streets.push(r);
    }
    let pads = pads_of(terrain, layout, &streets, p);
    let mut laid = layout.clone();
    for (lot, pad) in laid.lots.iter_mut().zip(&pads) {
        if let Some(b) = lot.building.as_mut() {
            b.base = pad.z;
        }
    }
    (
        CityPlan {
            streets,
            pads,
            to_steps,
        },
        laid,
    )
}

/// Most sweeps of [`settle`] in one round.
const SETTLE_SWEEPS: usize = 400;

/// Most rounds of [`settle`].
const SETTLE_ROUNDS: usize = 12;

/// How far over its climb (a fraction of it) a stretch between junctions
/// may stay drivable after [`settle`] (rounding and the sweeps' end).
const SETTLE_SLACK: f64 = 0.005;

/// `r` with a vertex added at each of the stations `at` (ascending) that
/// falls inside a segment, not within 0.25 m of a vertex; heights
/// interpolated.
fn mark_stations(r: &mut Road, s: &[f64], at: &[f64]) {
    let (mut points, mut z) = (Vec::with_capacity(r.points.len()), Vec::new());
    let mut next = 0;
    for k in 0..r.points.len() {
        if k > 0 {
            while next < at.len() && at[next] < s[k] {
                let t = (at[next] - s[k - 1]) / (s[k] - s[k - 1]);
                if at[next] > s[k - 1] + 0.25 && at[next] < s[k] - 0.25 {
                    points.push(r.points[k - 1].lerp(r.points[k], t));
                    z.push(r.z[k - 1] + t * (r.z[k] - r.z[k - 1]));
                }
                next += 1;
            }
        } else {
            while next < at.len() && at[next] <= s[0] {
                next += 1;
            }
        }
        points.push(r.points[k]);
        z.push(r.z[k]);
    }
    (r.points, r.z) = (points, z);
}

/// Per junction and road through it, the length of its platform.
type Platforms = std::collections::HashMap<((u64, u64), usize), f64>;

/// Junction heights, and which streets become steps.
type Settled = (std::collections::HashMap<(u64, u64), f64>, Vec<bool>);

/// The height of every junction of the town's streets: the town's ground
/// there (its highway's where one is `pinned`), moved by at most
/// `max_street_shift` so that the streets between junctions keep
/// `max_grade.street`. Where the ground is too steep for that, the
/// steepest stretches become footways with steps, which keep no limit, so
/// that the streets around them can: rounds of sweeps, each sweep closing
/// every drivable stretch's excess over the limit (half at each end, all at
/// the free end where one is pinned) in the network's order until none
/// moves by a millimetre, and each round then turning the stretches still
/// over the limit into steps. Deterministic and bounded. Returns the
/// heights by junction and, per road of `net`, whether it became steps.
fn settle(
    net: &RoadNetwork,
    junction: &std::collections::HashSet<(u64, u64)>,
    pinned: &std::collections::HashMap<(u64, u64), f64>,
    platform: &Platforms,
    p: &EarthworkParams,
) -> Settled {
    let key = |q: DVec2| (q.x.to_bits(), q.y.to_bits());
    let grade = p.max_grade.street;
    // Nodes in the order first met, with their ground, whether fixed.
    let mut index: std::collections::HashMap<(u64, u64), usize> = Default::default();
    let mut ground: Vec<(f64, bool)> = Vec::new();
    // Edges: the stretches of a street between consecutive junctions, with
    // the most they may climb and their road.
    let mut edges: Vec<(usize, usize, f64, usize)> = Vec::new();
    let streets = || (net.roads.iter().enumerate()).filter(|(_, r)| r.class != RoadClass::Highway);
    for (_, r) in streets() {
        for (k, &q) in r.points.iter().enumerate() {
            if junction.contains(&key(q)) {
                index.entry(key(q)).or_insert_with(|| {
                    let fixed = pinned.get(&key(q));
                    ground.push((fixed.copied().unwrap_or(r.z[k]), fixed.is_some()));
                    ground.len() - 1
                });
            }
        }
    }
    // Junctions joined by a stretch shorter than a platform there are one
    // node (at the first's ground, or the highway's where one is on a
    // highway), so that they agree.
    let mut parent: Vec<usize> = (0..ground.len()).collect();
    let find = |parent: &mut Vec<usize>, mut i: usize| {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    };
    for (i, r) in streets() {
        let s = stations(&r.points);
        let mut last: Option<(usize, f64, f64)> = None;
        for (k, &q) in r.points.iter().enumerate() {
            let Some(&node) = index.get(&key(q)) else {
                continue;
            };
            let flat = platform.get(&(key(q), i)).copied().unwrap_or(0.0);
            if let Some((a, at, flat_a)) = last
                && s[k] - at < flat.max(flat_a)
            {
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, node));
                let (keep, gone) = (ra.min(rb), ra.max(rb));
                // Two junctions on highways keep their own heights.
                if keep != gone && !(ground[keep].1 && ground[gone].1) {
                    parent[gone] = keep;
                    if ground[gone].1 {
                        ground[keep] = ground[gone];
                    }
                }
            }
            last = Some((node, s[k], flat));
        }
    }
    for k in index.values_mut() {
        *k = find(&mut parent, *k);
    }
    for (i, r) in streets() {
        let s = stations(&r.points);
        let mut last: Option<(usize, usize, f64)> = None;
        for (k, &q) in r.points.iter().enumerate() {
            let Some(&node) = index.get(&key(q)) else {
                continue;
            };
            let flat = platform.get(&(key(q), i)).copied().unwrap_or(0.0);
            if let Some((a, at, flat_a)) = last
                && a != node
            {
                // How far it may climb, level on the platforms.
                let rise = climb(&s[at..=k], (flat_a, flat), grade, p.junction_grade);
                edges.push((a, node, rise, i));
            }
            last = Some((node, k, flat));
        }
    }
    let shift = p.max_street_shift;
    let mut z: Vec<f64> = ground.iter().map(|g| g.0).collect();
    let bound = |i: usize, v: f64| {
        let (g, fixed) = ground[i];
        if fixed {
            g
        } else {
            v.clamp(g - shift, g + shift)
        }
    };
    let mut steps = vec![false; net.roads.len()];
    for _ in 0..SETTLE_ROUNDS {
        for _ in 0..SETTLE_SWEEPS {
            let mut moved: f64 = 0.0;
            for &(a, b, rise, _) in edges.iter().filter(|e| !steps[e.3]) {
                let d = z[b] - z[a];
                let excess = d.abs() - rise;
                if excess <= 0.0 {
                    continue;
                }
                let towards = excess * d.signum();
                let (ma, mb) = match (ground[a].1, ground[b].1) {
                    (true, true) => continue,
                    (true, false) => (0.0, -towards),
                    (false, true) => (towards, 0.0),
                    (false, false) => (0.5 * towards, -0.5 * towards),
                };
                let (na, nb) = (bound(a, z[a] + ma), bound(b, z[b] + mb));
                moved = moved.max((na - z[a]).abs()).max((nb - z[b]).abs());
                (z[a], z[b]) = (na, nb);
            }
            if moved < 1e-3 {
                break;
            }
        }
        let mut more = false;
        for &(a, b, rise, i) in &edges {
            if !steps[i] && (z[b] - z[a]).abs() > rise * (1.0 + SETTLE_SLACK) {
                steps[i] = true;
                more = true;
            }
        }
        if !more {
            break;
        }
    }
    let heights = (index.into_iter()).map(|(k, i)| (k, z[i])).collect();
    (heights, steps)
}

/// Heights with the least earthworks from `g` under the street grade limit
/// through `pins` (ascending vertices): each stretch between two pins fitted
/// alone, level on the junctions' platforms, as steep as the pins need
/// where they lie further apart in height than the limit allows; the ends
/// beyond the first and last pin free.
fn between_pins(
    points: &[DVec2],
    g: &[f64],
    pins: &[(usize, Pin)],
    p: &EarthworkParams,
) -> Vec<f64> {
    let n = points.len();
    let ones = |a: usize, b: usize| vec![1; b - a + 1];
    let (grade, flat) = (p.max_grade.street, p.junction_grade);
    if pins.is_empty() {
        return fit_span(
            points,
            g.to_vec(),
            ones(0, n - 1),
            (None, None),
            grade,
            flat,
            true,
        );
    }
    let mut out = g.to_vec();
    let (first, last) = (pins[0], pins[pins.len() - 1]);
    let mut spans = vec![(0, None, first.0, Some(first.1))];
    spans.extend((pins.windows(2)).map(|w| (w[0].0, Some(w[0].1), w[1].0, Some(w[1].1))));
    spans.push((last.0, Some(last.1), n - 1, None));
    for (a, za, b, zb) in spans {
        if a < b {
            let fitted = fit_span(
                &points[a..=b],
                g[a..=b].to_vec(),
                ones(a, b),
                (za, zb),
                grade,
                flat,
                true,
            );
            out[a..=b].copy_from_slice(&fitted);
        }
    }
    out
}

/// Each lot's pad: level at the height of the street point nearest to the
/// lot (its frontage), but at most `max_pad_step` from the natural ground
/// under it (the mean of its corners and centre), or at that ground with no
/// street near.
fn pads_of(
    terrain: &Terrain,
    layout: &CityLayout,
    streets: &[Road],
    p: &EarthworkParams,
) -> Vec<Pad> {
    const CELL: f64 = 32.0;
    let grid = SegmentGrid::new(CELL, streets.iter().map(|r| r.points.as_slice()), |_| 0.0);
    // Each segment's number, and the lot that last looked at it: a segment
    // met again (filed in several cells, or in an inner ring) changes
    // nothing, so it is looked at once per lot.
    let mut first = Vec::with_capacity(streets.len());
    let mut count = 0;
    for r in streets {
        first.push(count);
        count += r.points.len().saturating_sub(1);
    }
    let mut seen = vec![usize::MAX; count];
    (layout.lots.iter().enumerate())
        .map(|(n, lot)| {
            let c = lot.polygon.iter().sum::<DVec2>() / lot.polygon.len() as f64;
            let mut best = (f64::INFINITY, f64::NAN);
            // Rings of cells outwards until a street is found, and one more
            // (a nearer one may be filed there); bounded.
            let mut stop = 8;
            let mut ring = 0;
            while ring < stop {
                for (i, s) in grid.near(c, ring) {
                    if std::mem::replace(&mut seen[first[i] + s], n) == n {
                        continue;
                    }
                    let r = &streets[i];
                    for &v in &lot.polygon {
                        let (q, t) = closest_on_segment(v, r.points[s], r.points[s + 1]);
                        let d = v.distance(q);
                        if d < best.0 {
                            best = (d, r.z[s] + t * (r.z[s + 1] - r.z[s]));
                        }
                    }
                }
                if best.0.is_finite() && stop == 8 {
                    stop = ring + 2;
                }
                ring += 1;
            }
            // The natural ground under the lot: its centre and corners.
            let ground = (lot.polygon.iter().chain([&c]))
                .map(|q| terrain.height(q.x, q.y))
                .sum::<f64>()
                / (lot.polygon.len() + 1) as f64;
            let z = if best.1.is_finite() {
                best.1
                    .clamp(ground - p.max_pad_step, ground + p.max_pad_step)
            } else {
                ground
            };
            Pad {
                polygon: lot.polygon.clone(),
                z,
                building: lot.building.as_ref().map(|b| b.footprint.clone()),
            }
        })
        .collect()
}
