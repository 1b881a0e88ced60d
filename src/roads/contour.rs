//! Relf's contour-following roads, made stable in a limitless world.
//!
//! The seed: from sparse start points, 2–4 paths leave in spread, jittered
//! bearings; every round each path grows 10 m in whichever of the bearings
//! `b`, `b ± 0.09` keeps the height nearest the current one; a path stops on
//! meeting another start's path (ending exactly on it), on lake or town, at
//! 100 points, and growth ends after 300 rounds.
//!
//! **Stable anywhere.** The seed grows paths one after another, so the
//! result depends on the order and so on where the player began. Here all
//! tips advance *simultaneously* at 10 m per round (continuous time within a
//! round): when two paths cross, the one that reached the crossing first
//! stops the other (ties go to the smaller start id). Nothing then travels
//! faster than 10 m per round, so what a road does at a point `p` at time
//! `t` (in rounds) depends only on start points within `10·t` of `p`. A
//! region is simulated with all start points within a margin around it, and
//! every returned road is checked against that bound (its points' cones must
//! lie inside the simulated region); if one is not, the margin doubles, up
//! to the margin that covers any possible road. The roads inside an area are
//! therefore exactly the same whether it is generated alone, inside a
//! larger area or after flying there from anywhere.

use super::{Road, RoadClass, RoadNetwork};
use crate::geom::{cells_of_segment, segment_intersection};
use crate::terrain::params::in_range as range;
use crate::terrain::{AreaError, PI1000, ParamError, Terrain, hash_unit, java_round};

/// Largest area (with its margin) one call simulates: 50 km × 50 km.
pub const MAX_ROAD_AREA: f64 = 2.5e9;
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast hasher for grid cells (FxHash's mix): the keys are small integer
/// pairs from our own arithmetic, so no protection from hostile keys is needed.
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
}

type CellMap<V> = HashMap<(i64, i64), V, BuildHasherDefault<CellHasher>>;

/// The contour-road generator's parameters; defaults are the seed's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default)]
pub struct ContourParams {
    /// Start points per km² (on a jittered grid; those on lake, mud or town
    /// are dropped, so dry land has about this many).
    pub density: f64,
    /// Growth per round, metres (seed: 10).
    pub step: f64,
    /// Most points in one path (seed: 100).
    pub max_points: usize,
    /// Most growth rounds (seed: 300).
    pub max_rounds: usize,
    /// Bearing change tried either side each step, radians (seed: 0.09).
    pub turn: f64,
    /// Class of the roads made.
    pub class: RoadClass,
    /// Width of the roads made, metres.
    pub width: f64,
    /// Seed for the start points' positions.
    pub seed: u64,
    /// First margin tried around a requested area, metres (it grows as needed).
    pub initial_margin: f64,
}

impl Default for ContourParams {
    fn default() -> Self {
        Self {
            density: 10.0,
            step: 10.0,
            max_points: 100,
            max_rounds: 300,
            turn: 0.09,
            class: RoadClass::Road,
            width: RoadClass::Road.default_width(),
            seed: 0,
            initial_margin: 1800.0,
        }
    }
}

impl ContourParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        range("density", self.density, 0.01, 1000.0)?;
        range("step", self.step, 1.0, 100.0)?;
        range("max_points", self.max_points as f64, 2.0, 10_000.0)?;
        range("max_rounds", self.max_rounds as f64, 1.0, 100_000.0)?;
        range("turn", self.turn, 0.0, std::f64::consts::PI)?;
        range("width", self.width, 0.1, 100.0)?;
        range("initial_margin", self.initial_margin, 0.0, 1.0e5)?;
        Ok(())
    }

    /// Rounds in which anything can still grow: every active path grows each
    /// round and stops at `max_points`.
    fn horizon(&self) -> f64 {
        self.max_rounds.min(self.max_points - 1) as f64
    }

    /// The margin that covers any road whatever happens: a road reaches
    /// `step·T` from its start, and its fate depends on starts within
    /// `step·T` of its points.
    fn full_margin(&self) -> f64 {
        3.0 * self.step * self.horizon() + 2.0 * self.step
    }
}

/// A road start point and the paths that leave it.
#[derive(Clone, Debug, PartialEq)]
pub struct RoadStart {
    /// Where (whole metres).
    pub pos: DVec2,
    /// Its grid cell: the canonical id that breaks ties.
    pub id: (i64, i64),
    /// Initial bearings of its paths, radians clockwise from north (2 to 4).
    pub bearings: Vec<f64>,
}

/// The contour-road generator.
#[derive(Clone, Debug)]
pub struct ContourRoads {
    params: ContourParams,
    cell: f64,
}

struct Path {
    start: usize,
    points: Vec<DVec2>,
    bearing: f64,
    tip_height: f64,
    /// Still growing (not stopped, not full).
    growing: bool,
}

/// A junction point to insert into a path's segment.
struct Insert {
    path: usize,
    seg: usize,
    u: f64,
    point: DVec2,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Obstacle {
    /// Lake or town (or nothing: the segment ends there).
    Ground,
    /// An existing segment of another start's path.
    Old { path: usize, seg: usize, u: f64 },
    /// Another start's path growing in the same round, arriving at `u` (its
    /// own time within the round); valid if it gets there.
    New { path: usize, u: f64 },
}

struct Event {
    t: f64,
    path: usize,
    obstacle: Obstacle,
}

/// A crossing between paths of the same start: a junction, not a stop.
struct Cross {
    a: (usize, f64),
    b: (usize, usize, f64, bool),
    point: DVec2,
}

const GRID: f64 = 32.0;

/// The simulation of one rectangle of start points.
struct Sim<'a> {
    terrain: &'a Terrain,
    p: &'a ContourParams,
    starts: Vec<RoadStart>,
    paths: Vec<Path>,
    grid: CellMap<Vec<(u32, u32)>>,
    /// Bound on the height's slope (metres per metre), if known.
    slope: Option<f64>,
    inserts: Vec<Insert>,
}

impl ContourRoads {
    /// A generator; invalid parameters are rejected with the field named.
    pub fn new(params: ContourParams) -> Result<Self, ParamError> {
        params.validate()?;
        let cell = 1000.0 / params.density.sqrt();
        Ok(Self { params, cell })
    }

    /// The parameters.
    pub fn params(&self) -> &ContourParams {
        &self.params
    }

    /// The start point of grid cell `(i, j)`, if it lies on dry, non-town land.
    pub fn start_at(&self, terrain: &Terrain, i: i64, j: i64) -> Option<RoadStart> {
        let s = self.params.seed;
        let jitter = DVec2::new(hash_unit(i, j, s ^ 0x5a17), hash_unit(j, i, s ^ 0x7e11));
        let p = (DVec2::new(i as f64, j as f64) + jitter) * self.cell;
        let (xr, yr) = (java_round(p.x), java_round(p.y));
        let h = terrain.height(xr as f64, yr as f64);
        let tp = terrain.params();
        if h < tp.lake_level.max(tp.lake_base) || terrain.is_lake_or_town(xr, yr) {
            return None;
        }
        // The seed's bits: (π·1000·x·y) & 0xff, truncated as JavaScript's `&` does.
        let xy = xr.wrapping_mul(yr);
        let bits = if xy.unsigned_abs() < 1 << 36 {
            ((PI1000 * xy as f64).trunc() as i64 & 0xff) as u32
        } else {
            (hash_unit(xy, 1000, s) * 256.0) as u32
        };
        let n = match (bits & 3) + 1 {
            1 => 3,
            n => n,
        };
        let spread = std::f64::consts::TAU / n as f64;
        let jitter = bits as f64 * 0.01;
        Some(RoadStart {
            pos: DVec2::new(xr as f64, yr as f64),
            id: (i, j),
            bearings: (0..n).map(|k| spread * k as f64 + jitter).collect(),
        })
    }

    /// Every start point in `[min, max)`, in canonical (row, column) order.
    pub fn starts_in(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Vec<RoadStart> {
        let (c0, c1) = (
            (min / self.cell).floor() - 1.0,
            (max / self.cell).floor() + 1.0,
        );
        let mut out = Vec::new();
        for j in c0.y as i64..=c1.y as i64 {
            for i in c0.x as i64..=c1.x as i64 {
                if let Some(s) = self.start_at(terrain, i, j)
                    && s.pos.x >= min.x
                    && s.pos.y >= min.y
                    && s.pos.x < max.x
                    && s.pos.y < max.y
                {
                    out.push(s);
                }
            }
        }
        out
    }

    /// Every road with a point in `[min, max)`, whole (not clipped), with the
    /// junctions between them. The same roads whatever else was generated
    /// before, and whichever larger area contains this one. An area too
    /// large to simulate (see [`Self::try_generate`]) gives an empty network.
    pub fn generate(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> RoadNetwork {
        self.try_generate(terrain, min, max).unwrap_or_default()
    }

    /// [`Self::generate`], refusing areas (with their margin) beyond
    /// [`MAX_ROAD_AREA`] or not finite.
    pub fn try_generate(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<RoadNetwork, AreaError> {
        let full = self.params.full_margin();
        let check = |m: f64| {
            let size = (max - min).max(DVec2::ZERO) + 2.0 * m;
            if min.is_finite() && max.is_finite() && size.x * size.y <= MAX_ROAD_AREA {
                Ok(())
            } else {
                Err(AreaError {
                    width: size.x,
                    height: size.y,
                })
            }
        };
        check(0.0)?;
        if max.x <= min.x || max.y <= min.y {
            return Ok(RoadNetwork::default());
        }
        let mut margin = self.params.initial_margin.min(full);
        loop {
            check(margin)?;
            let (lo, hi) = (min - margin, max + margin);
            let mut sim = Sim::new(terrain, &self.params, self.starts_in(terrain, lo, hi));
            sim.run();
            let roads = sim.roads_touching(min, max);
            let (mut bmin, mut bmax) = (min, max);
            for p in roads.iter().flat_map(|r| &r.points) {
                bmin = bmin.min(*p);
                bmax = bmax.max(*p);
            }
            if margin >= full || sim.exact_for(lo, hi, bmin, bmax) {
                return Ok(RoadNetwork::from_roads(roads));
            }
            margin = (margin * 1.5).max(self.params.step * 10.0).min(full);
        }
    }
}

impl<'a> Sim<'a> {
    fn new(terrain: &'a Terrain, p: &'a ContourParams, starts: Vec<RoadStart>) -> Self {
        let mut paths = Vec::new();
        for (i, s) in starts.iter().enumerate() {
            for &b in &s.bearings {
                paths.push(Path {
                    start: i,
                    points: vec![s.pos],
                    bearing: b,
                    tip_height: terrain.height(s.pos.x, s.pos.y),
                    growing: true,
                });
            }
        }
        let slope = terrain.slope_bound();
        Self {
            terrain,
            p,
            starts,
            paths,
            grid: CellMap::default(),
            slope,
            inserts: Vec::new(),
        }
    }

    /// The seed's `nextBearing`: of `b`, `b − turn`, `b + turn`, the one whose
    /// point `step` ahead has the height nearest the current one (strict
    /// comparisons: ties go straight on). Returns the bearing, the height of
    /// the point it leads to, and the unit direction `(sin b, cos b)`.
    fn next_bearing(&self, tip: DVec2, h: f64, b0: f64) -> (f64, f64, DVec2) {
        let d = self.p.step;
        // One sin/cos pair; the side bearings by the angle-sum formulas.
        let (s0, c0) = b0.sin_cos();
        let (st, ct) = self.p.turn.sin_cos();
        let at = |s: f64, c: f64| self.terrain.height(tip.x + d * s, tip.y + d * c);
        let (u0, u1, u2) = (
            DVec2::new(s0, c0),
            DVec2::new(s0 * ct - c0 * st, c0 * ct + s0 * st),
            DVec2::new(s0 * ct + c0 * st, c0 * ct - s0 * st),
        );
        let (h0, h1, h2) = (at(u0.x, u0.y), at(u1.x, u1.y), at(u2.x, u2.y));
        let (d0, d1, d2) = ((h - h0).abs(), (h - h1).abs(), (h - h2).abs());
        if d1 < d0 && d1 < d2 {
            (b0 - self.p.turn, h1, u1)
        } else if d2 < d0 && d2 < d1 {
            (b0 + self.p.turn, h2, u2)
        } else {
            (b0, h0, u0)
        }
    }

    /// Where along `a → b` (as a fraction) the path must stop for lake or
    /// town: at the last whole-metre sample before the first blocked one.
    /// `ha`, `hb` are the heights at the ends.
    fn ground_stop(&self, a: DVec2, b: DVec2, ha: f64, hb: f64) -> Option<f64> {
        let (lake_clear, town_clear) = self.surely_clear(a, b, ha, hb);
        if lake_clear && town_clear {
            return None;
        }
        let tp = self.terrain.params();
        let len = a.distance(b);
        let n = len.floor() as usize;
        let mut prev = 0.0;
        for k in 1..=n + 1 {
            let d = (k as f64).min(len);
            let q = a + (b - a) * (d / len);
            let (xr, yr) = (java_round(q.x), java_round(q.y));
            let lake = !lake_clear && self.terrain.height(xr as f64, yr as f64) < tp.lake_level;
            if lake || (!town_clear && self.terrain.is_town(xr, yr)) {
                return Some(prev / len);
            }
            prev = d;
            if d >= len {
                break;
            }
        }
        None
    }

    /// Cheap sufficient tests that no sample along `a → b` is lake, and that
    /// none is town: the slope bound keeps every sample above the lake level;
    /// the smallest town sum possible over the box of sampled cells (each
    /// term's lowest profile value over the indices the box spans) stays at
    /// or above the town threshold.
    fn surely_clear(&self, a: DVec2, b: DVec2, ha: f64, hb: f64) -> (bool, bool) {
        let tp = self.terrain.params();
        let reach = a.distance(b) / 2.0 + std::f64::consts::FRAC_1_SQRT_2;
        let lake = self
            .slope
            .is_some_and(|s| ha.min(hb) - s * reach >= tp.lake_level);
        let (lo, hi) = (a.min(b), a.max(b));
        let (x0, x1) = (java_round(lo.x) as f64, java_round(hi.x) as f64);
        let (y0, y1) = (java_round(lo.y) as f64, java_round(hi.y) as f64);
        let profile = &tp.profile;
        let mask = profile.len() as i64 - 1;
        let mut least = 0.0;
        for v in &tp.town_vectors {
            let index =
                |x: f64, y: f64| (crate::terrain::fast_floor(v.x * x + v.y * y) as i64) >> 7;
            let corners = [index(x0, y0), index(x1, y0), index(x0, y1), index(x1, y1)];
            let (k0, k1) = (
                *corners.iter().min().unwrap_or(&0),
                *corners.iter().max().unwrap_or(&0),
            );
            if k1 - k0 > 16 {
                return (lake, false);
            }
            least += (k0..=k1)
                .map(|k| profile[(k & mask) as usize])
                .fold(f64::INFINITY, f64::min);
        }
        (lake, least >= tp.town_threshold)
    }

    fn start_id(&self, path: usize) -> (i64, i64) {
        self.starts[self.paths[path].start].id
    }

    fn run(&mut self) {
        let rounds = self.p.max_rounds;
        let mut new_grid: CellMap<Vec<u32>> = CellMap::default();
        let mut seg: Vec<Option<(DVec2, DVec2, f64, usize, f64)>> = vec![None; self.paths.len()];
        let mut stop: Vec<Option<(f64, Obstacle)>> = vec![None; self.paths.len()];
        let (mut events, mut crosses): (Vec<Event>, Vec<Cross>) = (Vec::new(), Vec::new());
        let mut active: Vec<usize> = Vec::new();
        for _ in 0..rounds {
            active.clear();
            active.extend((0..self.paths.len()).filter(|&i| self.paths[i].growing));
            if active.is_empty() {
                break;
            }
            // 1. Every growing path proposes its next segment.
            // tip, next point, bearing, index of the new segment, height at next
            new_grid.clear();
            for &i in &active {
                let path = &self.paths[i];
                let tip = *path.points.last().expect("paths start with a point");
                let (b, h, dir) = self.next_bearing(tip, path.tip_height, path.bearing);
                let next = tip + dir * self.p.step;
                seg[i] = Some((tip, next, b, path.points.len() - 1, h));
                stop[i] = None;
                for c in cells_of_segment(tip, next, GRID, 0.0) {
                    new_grid.entry(c).or_default().push(i as u32);
                }
            }
            // 2. What could stop each one, and when (fraction of the round).
            events.clear();
            crosses.clear();
            for &i in &active {
                let (a, b, _, _, hb) = seg[i].expect("proposed");
                if let Some(t) = self.ground_stop(a, b, self.paths[i].tip_height, hb) {
                    events.push(Event {
                        t,
                        path: i,
                        obstacle: Obstacle::Ground,
                    });
                }
                let me = self.start_id(i);
                let mine = first_cell(a, b);
                for c in cells_of_segment(a, b, GRID, 0.0) {
                    for &(j, s) in self.grid.get(&c).map(Vec::as_slice).unwrap_or(&[]) {
                        let (j, s) = (j as usize, s as usize);
                        // The path's own last segment shares the tip.
                        if j == i && s + 2 == self.paths[i].points.len() {
                            continue;
                        }
                        let (c0, c1) = (self.paths[j].points[s], self.paths[j].points[s + 1]);
                        // A pair sharing several cells is seen in the first only.
                        if c != first_shared(mine, first_cell(c0, c1)) {
                            continue;
                        }
                        let Some((t, u)) = segment_intersection(a, b, c0, c1) else {
                            continue;
                        };
                        if t == 0.0 {
                            continue; // At the tip: met before, nothing new.
                        }
                        let point = c0.lerp(c1, u);
                        if self.start_id(j) == me {
                            crosses.push(Cross {
                                a: (i, t),
                                b: (j, s, u, false),
                                point,
                            });
                        } else {
                            events.push(Event {
                                t,
                                path: i,
                                obstacle: Obstacle::Old { path: j, seg: s, u },
                            });
                        }
                    }
                    for &k in new_grid.get(&c).map(Vec::as_slice).unwrap_or(&[]) {
                        let k = k as usize;
                        if k == i {
                            continue;
                        }
                        let (c0, c1, _, _, _) = seg[k].expect("proposed");
                        if c != first_shared(mine, first_cell(c0, c1)) {
                            continue;
                        }
                        let Some((t, u)) = segment_intersection(a, b, c0, c1) else {
                            continue;
                        };
                        if t == 0.0 || u == 0.0 {
                            continue; // Tips that touch were handled when they met.
                        }
                        let other = self.start_id(k);
                        if other == me {
                            if i < k {
                                crosses.push(Cross {
                                    a: (i, t),
                                    b: (k, 0, u, true),
                                    point: c0.lerp(c1, u),
                                });
                            }
                        } else if u < t || (u == t && other < me) {
                            events.push(Event {
                                t,
                                path: i,
                                obstacle: Obstacle::New { path: k, u },
                            });
                        }
                    }
                }
            }
            // 3. Resolve in time order (ties by start id, then path): a path
            // stops at its first valid event.
            events.sort_by(|x, y| {
                x.t.total_cmp(&y.t)
                    .then(self.start_id(x.path).cmp(&self.start_id(y.path)))
                    .then(x.path.cmp(&y.path))
            });
            for e in &events {
                if stop[e.path].is_some() {
                    continue;
                }
                let valid = match e.obstacle {
                    Obstacle::New { path, u } => stop[path].is_none_or(|s| s.0 >= u),
                    _ => true,
                };
                if valid {
                    stop[e.path] = Some((e.t, e.obstacle));
                }
            }
            let reaches = |path: usize, t: f64| stop[path].is_none_or(|s| s.0 >= t);
            for c in &crosses {
                let (i, t) = c.a;
                let (j, s, u, new) = c.b;
                if reaches(i, t) && (!new || reaches(j, u)) {
                    let seg_j = if new { seg[j].expect("proposed").3 } else { s };
                    self.inserts.push(Insert {
                        path: i,
                        seg: seg[i].expect("proposed").3,
                        u: t,
                        point: c.point,
                    });
                    self.inserts.push(Insert {
                        path: j,
                        seg: seg_j,
                        u,
                        point: c.point,
                    });
                }
            }
            // 4. Grow or stop.
            for &i in &active {
                let (a, b, bearing, _, hb) = seg[i].expect("proposed");
                let n = self.paths[i].points.len();
                match stop[i] {
                    None => {
                        self.paths[i].points.push(b);
                        self.paths[i].bearing = bearing;
                        self.paths[i].tip_height = hb;
                        for c in cells_of_segment(a, b, GRID, 0.0) {
                            self.grid
                                .entry(c)
                                .or_default()
                                .push((i as u32, (n - 1) as u32));
                        }
                        if n + 1 >= self.p.max_points {
                            self.paths[i].growing = false;
                        }
                    }
                    Some((t, obstacle)) => {
                        self.paths[i].growing = false;
                        let end = match obstacle {
                            Obstacle::Ground => a.lerp(b, t),
                            Obstacle::Old { path, seg, u } => {
                                let p = self.paths[path].points[seg]
                                    .lerp(self.paths[path].points[seg + 1], u);
                                self.inserts.push(Insert {
                                    path,
                                    seg,
                                    u,
                                    point: p,
                                });
                                p
                            }
                            Obstacle::New { path, u } => {
                                let (c0, c1, _, seg, _) = seg[path].expect("proposed");
                                let p = c0.lerp(c1, u);
                                self.inserts.push(Insert {
                                    path,
                                    seg,
                                    u,
                                    point: p,
                                });
                                p
                            }
                        };
                        if t > 0.0 && end != a {
                            self.paths[i].points.push(end);
                            for c in cells_of_segment(a, end, GRID, 0.0) {
                                self.grid
                                    .entry(c)
                                    .or_default()
                                    .push((i as u32, (n - 1) as u32));
                            }
                        }
                    }
                }
            }
        }
    }

    /// The roads (paths with two or more points, junction points inserted)
    /// that have a point in `[min, max)`, in canonical order.
    fn roads_touching(&self, min: DVec2, max: DVec2) -> Vec<Road> {
        let mut extra: HashMap<usize, Vec<&Insert>> = HashMap::new();
        for ins in &self.inserts {
            extra.entry(ins.path).or_default().push(ins);
        }
        let mut order: Vec<usize> = (0..self.paths.len())
            .filter(|&i| {
                self.paths[i]
                    .points
                    .windows(2)
                    .any(|w| segment_meets_rect(w[0], w[1], min, max))
            })
            .collect();
        order.sort_by_key(|&i| (self.start_id(i), i));
        order
            .into_iter()
            .map(|i| {
                let pts = &self.paths[i].points;
                let mut ins = extra.remove(&i).unwrap_or_default();
                ins.sort_by(|a, b| a.seg.cmp(&b.seg).then(a.u.total_cmp(&b.u)));
                let mut out: Vec<DVec2> = Vec::with_capacity(pts.len() + ins.len());
                let mut k = 0;
                for (s, &p) in pts.iter().enumerate() {
                    if out.last() != Some(&p) {
                        out.push(p);
                    }
                    while k < ins.len() && ins[k].seg == s {
                        if out.last() != Some(&ins[k].point)
                            && pts.get(s + 1) != Some(&ins[k].point)
                        {
                            out.push(ins[k].point);
                        }
                        k += 1;
                    }
                }
                Road {
                    points: out,
                    class: self.p.class,
                    width: self.p.width,
                }
            })
            .collect()
    }

    /// Whether the simulation of `[lo, hi)` is exact for everything that
    /// touches the box `[bmin, bmax]` (the requested area and the roads
    /// returned). A path's point reached at time `k` is exact when every
    /// start within `step·k` of it was simulated; a path whose first inexact
    /// point is too far from the box to reach it with the growth it has left
    /// cannot change anything there.
    fn exact_for(&self, lo: DVec2, hi: DVec2, bmin: DVec2, bmax: DVec2) -> bool {
        let step = self.p.step;
        let n = self.p.max_points as f64;
        self.paths.iter().all(|path| {
            let first_bad = path.points.iter().enumerate().position(|(k, p)| {
                let r = step * (k as f64 + 1.0);
                !(p.x - r >= lo.x && p.y - r >= lo.y && p.x + r < hi.x && p.y + r < hi.y)
            });
            let Some(k) = first_bad else { return true };
            let q = path.points[k.saturating_sub(1)];
            let reach = step * (n - k as f64 + 2.0);
            q.clamp(bmin, bmax).distance(q) > reach
        })
    }
}

/// The lowest grid cell a segment's box touches (as `cells_of_segment` counts).
fn first_cell(a: DVec2, b: DVec2) -> (i64, i64) {
    let lo = a.min(b) / GRID;
    (lo.x.floor() as i64, lo.y.floor() as i64)
}

/// The first cell that two boxes with these lowest cells share.
fn first_shared(p: (i64, i64), q: (i64, i64)) -> (i64, i64) {
    (p.0.max(q.0), p.1.max(q.1))
}

/// Whether segment `a–b` has a point in the half-open rectangle `[min, max)`.
fn segment_meets_rect(a: DVec2, b: DVec2, min: DVec2, max: DVec2) -> bool {
    let inside = |p: DVec2| p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y;
    if inside(a) || inside(b) {
        return true;
    }
    let corners = [min, DVec2::new(max.x, min.y), max, DVec2::new(min.x, max.y)];
    (0..4).any(|k| segment_intersection(a, b, corners[k], corners[(k + 1) % 4]).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::TerrainKind;

    fn generate_area(min: (f64, f64), max: (f64, f64)) -> RoadNetwork {
        let t = Terrain::default();
        ContourRoads::new(ContourParams::default())
            .unwrap()
            .generate(&t, DVec2::new(min.0, min.1), DVec2::new(max.0, max.1))
    }

    #[test]
    fn the_seed_map_has_roads_with_the_seed_properties() {
        let t = Terrain::default();
        let net = generate_area((18600.0, 960.0), (19400.0, 1560.0));
        assert!(net.roads.len() >= 5, "{} roads", net.roads.len());
        for r in &net.roads {
            assert!(r.points.len() >= 2);
            // Sample every metre: never in a lake or a town, but at the very end.
            let n = r.points.len();
            for (k, w) in r.points.windows(2).enumerate() {
                let len = w[0].distance(w[1]);
                let samples = len.floor() as usize;
                for s in 0..=samples {
                    let q = w[0].lerp(w[1], s as f64 / len.max(1e-9));
                    let last = k + 2 == n && s == samples;
                    if !last {
                        let k = t.terra(java_round(q.x) as f64, java_round(q.y) as f64).kind;
                        assert!(
                            k != TerrainKind::Lake && k != TerrainKind::Town,
                            "{q} in {k:?}"
                        );
                    }
                }
                assert!(len <= 10.0 + 1e-9);
            }
        }
        net.check_planar().unwrap();
    }

    #[test]
    fn roads_have_at_most_100_points_10_m_apart() {
        // Roads touching A, with every road joined to them present: B is A
        // grown by more than a road's length.
        let (a0, a1) = (DVec2::new(18800.0, 1000.0), DVec2::new(19300.0, 1400.0));
        let net = generate_area((17600.0, -200.0), (20500.0, 2600.0));
        let junction: std::collections::HashSet<(u64, u64)> = net
            .junctions
            .iter()
            .map(|j| (j.pos.x.to_bits(), j.pos.y.to_bits()))
            .collect();
        let in_a = |r: &&Road| {
            r.points
                .windows(2)
                .any(|w| segment_meets_rect(w[0], w[1], a0, a1))
        };
        assert!(net.roads.iter().filter(in_a).count() > 5);
        for r in net.roads.iter().filter(in_a) {
            // Growth points: the first, and every vertex that is not a junction
            // (junction points are inserted on segments).
            let n = r.points.len();
            let mut growth = 1;
            let mut run = 0.0;
            for k in 1..n {
                run += r.points[k - 1].distance(r.points[k]);
                let is_junction =
                    junction.contains(&(r.points[k].x.to_bits(), r.points[k].y.to_bits()));
                if k + 1 < n && !is_junction {
                    assert!((run - 10.0).abs() < 1e-6, "spacing {run}");
                    growth += 1;
                    run = 0.0;
                }
            }
            assert!(run <= 10.0 + 1e-6);
            assert!(growth < 100, "{growth} growth points");
        }
        net.check_planar().unwrap();
        assert_eq!(
            net,
            generate_area((17600.0, -200.0), (20500.0, 2600.0)),
            "same inputs, same network"
        );
    }

    #[test]
    fn roads_inside_an_area_do_not_depend_on_what_else_is_generated() {
        let a = ((19000.0, 1000.0), (19500.0, 1400.0));
        let alone = generate_area(a.0, a.1);
        let inside_bigger = generate_area((17000.0, -500.0), (21000.0, 3000.0));
        let shifted = generate_area((18800.0, 900.0), (19700.0, 1500.0));
        let pick = |net: &RoadNetwork| -> Vec<Road> {
            let (min, max) = (DVec2::new(a.0.0, a.0.1), DVec2::new(a.1.0, a.1.1));
            let mut v: Vec<Road> = net
                .roads
                .iter()
                .filter(|r| {
                    r.points
                        .windows(2)
                        .any(|w| segment_meets_rect(w[0], w[1], min, max))
                })
                .cloned()
                .collect();
            v.sort_by(|x, y| {
                x.points[0]
                    .x
                    .total_cmp(&y.points[0].x)
                    .then(x.points[0].y.total_cmp(&y.points[0].y))
                    .then(x.points[1].x.total_cmp(&y.points[1].x))
            });
            v
        };
        assert!(!alone.roads.is_empty());
        assert_eq!(pick(&alone), pick(&inside_bigger));
        assert_eq!(pick(&alone), pick(&shifted));
    }

    #[test]
    fn the_margin_search_gives_the_same_roads_from_any_first_margin() {
        let t = Terrain::default();
        let (min, max) = (DVec2::new(-2300.0, 400.0), DVec2::new(-1900.0, 700.0));
        let full = ContourRoads::new(ContourParams {
            initial_margin: 1.0e5,
            ..Default::default()
        })
        .unwrap();
        let reference = full.generate(&t, min, max);
        assert!(!reference.roads.is_empty());
        for m in [0.0, 150.0, 700.0] {
            let c = ContourRoads::new(ContourParams {
                initial_margin: m,
                ..Default::default()
            })
            .unwrap();
            assert_eq!(c.generate(&t, min, max), reference, "first margin {m}");
        }
    }

    #[test]
    fn start_points_are_sparse_dry_and_deterministic() {
        let t = Terrain::default();
        let c = ContourRoads::new(ContourParams::default()).unwrap();
        let (min, max) = (DVec2::new(0.0, 0.0), DVec2::new(4000.0, 4000.0));
        let s = c.starts_in(&t, min, max);
        // About 10 per km² of dry, non-town land.
        assert!((60..=170).contains(&s.len()), "{}", s.len());
        for p in &s {
            let k = t.terra(p.pos.x, p.pos.y).kind;
            assert!(
                !matches!(k, TerrainKind::Lake | TerrainKind::Town | TerrainKind::Mud),
                "{k:?}"
            );
            assert!((2..=4).contains(&p.bearings.len()));
        }
        let threes = s.iter().filter(|p| p.bearings.len() == 3).count();
        assert!(threes * 2 > s.len(), "3 paths should be the most common");
        assert_eq!(s, c.starts_in(&t, min, max));
    }

    #[test]
    fn laid_roads_show_in_terra_and_keep_trees_off() {
        let mut t = Terrain::default();
        let (min, max) = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
        let net = std::sync::Arc::new(
            ContourRoads::new(ContourParams::default())
                .unwrap()
                .generate(&t, min, max),
        );
        let trees_before = t.trees_in(min, max).count();
        t.set_roads(Some(std::sync::Arc::new(crate::roads::RoadLayer::new(
            net.clone(),
        ))));
        // A centre-line vertex's cell is road, at the road's surface height.
        let mid = net.roads[0].points[1];
        let s = t.terra(mid.x, mid.y);
        assert_eq!(s.kind, TerrainKind::Road);
        assert_eq!(s.height, t.height(mid.x, mid.y).max(204.0));
        let layer = t.roads().unwrap();
        for tree in t.trees_in(min, max) {
            let cell = DVec2::new(java_round(tree.pos.x) as f64, java_round(tree.pos.y) as f64);
            assert!(!layer.on_road(cell), "tree on a road at {}", tree.pos);
        }
        assert!(t.trees_in(min, max).count() < trees_before);
        let (_, q, d) = layer.nearest(mid + DVec2::new(3.0, 0.0), 100.0).unwrap();
        assert!(d <= 3.0 + 1e-9 && q.distance(mid) <= 10.0);
    }

    #[test]
    fn bad_parameters_and_areas_are_refused() {
        let p = ContourParams {
            step: f64::NAN,
            ..Default::default()
        };
        assert!(
            ContourRoads::new(p)
                .unwrap_err()
                .to_string()
                .starts_with("step")
        );
        let p = ContourParams {
            max_points: 1,
            ..Default::default()
        };
        assert!(
            ContourRoads::new(p)
                .unwrap_err()
                .to_string()
                .starts_with("max_points")
        );
        let c = ContourRoads::new(ContourParams::default()).unwrap();
        let t = Terrain::default();
        assert!(
            c.try_generate(&t, DVec2::ZERO, DVec2::splat(1.0e5))
                .is_err()
        );
        assert!(
            c.try_generate(&t, DVec2::splat(f64::NAN), DVec2::ONE)
                .is_err()
        );
        assert_eq!(
            c.generate(&t, DVec2::ONE, DVec2::ZERO),
            RoadNetwork::default()
        );
    }
}
