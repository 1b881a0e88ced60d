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
//! `t` (in rounds) depends only on start points within `10·t` of `p`.
//!
//! A request is answered from a *focus box* around the area that should hold
//! every road touching it (600 m of margin by default; a road of the seed is
//! at most 990 m long). Growth ends at the horizon `T` (99 rounds), so only
//! the light cone of the box matters: at round `r`, the points within
//! `10·(T + 1 − r)` of it (one step of slack keeps exact the first point of
//! a road that leaves the box). Every start within `10·(T + 1)` of the box is
//! simulated, and a tip that leaves the cone stops growing: nothing it would
//! still do can reach the box in time. If a returned road leaves the box,
//! each side it crossed moves out to `10·T`, where nothing can cross it, and
//! the simulation runs again. The roads inside an area are therefore exactly
//! the same whether it is generated alone, inside a larger area or after
//! flying there from anywhere.
//!
//! **Cheap steps.** A round evaluates the three candidate heights of every
//! tip in one batch, then the rest of each step's arithmetic eight tips at a
//! time ([`Steps`], vectorised). Lake and town are ruled out by bounds first
//! (a slope bound; town sums bounded by profile minima over a disk each path
//! crosses in a few steps), and only segments they cannot clear are sampled
//! metre by metre, again in one height batch. A segment is filed in the
//! 40 m cells its box touches when it is proposed, with a small `f32` box
//! that passes over most pairs before any exact intersection.

use super::{Road, RoadClass, RoadNetwork};
use crate::geom::segment_intersection;
use crate::num::{floor_i64, hash_unit, java_round, java_round_f64};
use crate::terrain::{PI1000, ParamError, Terrain};
use glam::DVec2;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Largest area (with its margin) one call simulates: 50 km × 50 km.
pub const MAX_ROAD_AREA: f64 = 2.5e9;

/// Most growth steps one simulation may take, at worst (every path of every
/// start growing to the horizon): about 10 s of work. With the defaults even
/// [`MAX_ROAD_AREA`] stays at half of it.
pub const MAX_ROAD_STEPS: f64 = 2.0e7;

/// Why a road request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum RoadAreaError {
    /// The area with its margin is not finite or exceeds [`MAX_ROAD_AREA`].
    #[error(
        "road area {width} m × {height} m (with its margin) is not finite or exceeds {MAX_ROAD_AREA} m²"
    )]
    TooLarge {
        /// Width including the margin.
        width: f64,
        /// Height including the margin.
        height: f64,
    },
    /// The parameters allow more growth than [`MAX_ROAD_STEPS`] here.
    #[error(
        "roads here could take up to {steps:.0} growth steps (limit {MAX_ROAD_STEPS}): lower max_points, max_rounds or density, or raise step"
    )]
    TooMuchGrowth {
        /// The bound: start points × 4 paths × growth rounds.
        steps: f64,
    },
}

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
    /// Margin of the first focus box tried around a requested area, metres
    /// (it grows as needed to hold every road that touches the area).
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
            initial_margin: 600.0,
        }
    }
}

impl ContourParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_range("density", self.density, 0.01, 1000.0)?;
        ParamError::check_range("step", self.step, 1.0, 100.0)?;
        ParamError::check_range("max_points", self.max_points as f64, 2.0, 10_000.0)?;
        ParamError::check_range("max_rounds", self.max_rounds as f64, 1.0, 100_000.0)?;
        ParamError::check_range("turn", self.turn, 0.0, std::f64::consts::PI)?;
        ParamError::check_range("width", self.width, 0.1, 100.0)?;
        ParamError::check_range("initial_margin", self.initial_margin, 0.0, 1.0e5)?;
        Ok(())
    }

    /// Rounds in which anything can still grow: every active path grows each
    /// round and stops at `max_points`.
    fn horizon(&self) -> f64 {
        self.max_rounds.min(self.max_points - 1) as f64
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
        if h < tp.lake_level.max(tp.lake_base) || terrain.is_town(xr, yr) {
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
    /// [`MAX_ROAD_AREA`] or not finite, and parameters that could need more
    /// than [`MAX_ROAD_STEPS`] growth steps there.
    pub fn try_generate(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<RoadNetwork, RoadAreaError> {
        let step = self.params.step;
        // Every start whose paths could reach the focus box before growth ends.
        let reach = step * (self.params.horizon() + 1.0);
        let check = |f0: DVec2, f1: DVec2| {
            let size = (f1 - f0).max(DVec2::ZERO) + 2.0 * reach;
            if !(f0.is_finite() && f1.is_finite() && size.x * size.y <= MAX_ROAD_AREA) {
                return Err(RoadAreaError::TooLarge {
                    width: size.x,
                    height: size.y,
                });
            }
            let cells = (size / self.cell + 3.0).element_product();
            let steps = cells * 4.0 * self.params.horizon();
            if steps > MAX_ROAD_STEPS {
                return Err(RoadAreaError::TooMuchGrowth { steps });
            }
            Ok(())
        };
        check(min, max)?;
        if max.x <= min.x || max.y <= min.y {
            return Ok(RoadNetwork::default());
        }
        // A road touching the area lies within its length of it: this box
        // always holds every road returned.
        let full = step * self.params.horizon();
        let (full0, full1) = (min - full, max + full);
        // The first box: the initial margin, or the full one when that
        // simulates at most a quarter more (large areas, where some road
        // would cross the smaller box anyway).
        let cost = |m: f64| ((max - min) + 2.0 * (m + reach)).element_product();
        let first = self.params.initial_margin.min(full);
        let margin = if cost(full) <= 1.25 * cost(first) {
            full
        } else {
            first
        };
        let (mut f0, mut f1) = (min - margin, max + margin);
        let quick = QuickStops::new(terrain, step);
        loop {
            check(f0, f1)?;
            let area = (f0 - reach, f1 + reach);
            let starts = self.starts_in(terrain, area.0, area.1);
            let mut sim = Sim::new(terrain, &self.params, &quick, &starts, (f0, f1), area);
            sim.run();
            let roads = sim.roads_touching(min, max);
            let (mut bmin, mut bmax) = (min, max);
            for p in roads.iter().flat_map(|r| &r.points) {
                bmin = bmin.min(*p);
                bmax = bmax.max(*p);
            }
            let whole = f0.cmple(full0).all() && f1.cmpge(full1).all();
            if whole || (bmin.cmpge(f0).all() && bmax.cmple(f1).all()) {
                return Ok(RoadNetwork::from_roads(roads));
            }
            // Some road leaves the focus box: simulate again with each side
            // it crossed moved out to the full margin.
            let grown = (
                DVec2::select(bmin.cmplt(f0), full0, f0),
                DVec2::select(bmax.cmpgt(f1), full1, f1),
            );
            (f0, f1) = if grown == (f0, f1) {
                (full0, full1)
            } else {
                grown
            };
        }
    }
}

struct Path {
    /// Canonical identity: the start's id and which of its paths this is.
    key: PathKey,
    points: Vec<DVec2>,
    /// Unit direction of the last step, `(sin b, cos b)` for bearing `b`.
    dir: DVec2,
    /// The corners of the box around its points.
    lo: DVec2,
    hi: DVec2,
    /// The last point, its cell and the height there.
    tip: DVec2,
    tip_cell: (i64, i64),
    tip_height: f64,
    /// Centre of a disk the quick town test cleared (NaN: none yet).
    town_disk: DVec2,
    /// Still growing (not stopped, not full, not out of the light cone).
    growing: bool,
}

type PathKey = ((i64, i64), u32);

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

/// The segment a growing path proposes this round.
#[derive(Clone, Copy, Default)]
struct Proposal {
    a: DVec2,
    b: DVec2,
    dir: DVec2,
    /// Index of the new segment in the path.
    seg: usize,
    /// Heights at `a` and `b`.
    ha: f64,
    hb: f64,
    /// Known to meet no lake (by the first quick bound), and no town.
    lake_clear: bool,
    town_clear: bool,
    /// The lowest and highest cells of its box, and the cell of `b`.
    span: ((i64, i64), (i64, i64)),
    near: NearBox,
    b_cell: (i64, i64),
}

const GRID: f64 = 40.0;
/// End of a cell's entry list.
const END: u32 = u32::MAX;

/// Dense 40 m cells over the simulated area. Cell coordinates are clamped to
/// the area, which keeps "boxes that overlap share a cell" true everywhere.
struct Cells {
    origin: DVec2,
    w: i64,
    h: i64,
}

impl Cells {
    fn new(lo: DVec2, hi: DVec2) -> Self {
        let n = ((hi - lo) / GRID).ceil().max(DVec2::ONE);
        Self {
            origin: lo,
            w: n.x as i64,
            h: n.y as i64,
        }
    }

    fn len(&self) -> usize {
        (self.w * self.h) as usize
    }

    fn cell(&self, p: DVec2) -> (i64, i64) {
        (
            cell_coord(p.x, self.origin.x, self.w - 1, floor_i64),
            cell_coord(p.y, self.origin.y, self.h - 1, floor_i64),
        )
    }

    /// The lowest and highest cells of the box around a segment whose ends
    /// are in cells `a` and `b` (cells are monotone in each coordinate).
    fn span(a: (i64, i64), b: (i64, i64)) -> ((i64, i64), (i64, i64)) {
        ((a.0.min(b.0), a.1.min(b.1)), (a.0.max(b.0), a.1.max(b.1)))
    }

    fn index(&self, (x, y): (i64, i64)) -> usize {
        (y * self.w + x) as usize
    }
}

/// The cells from `lo` to `hi`, row by row.
fn cells_between(lo: (i64, i64), hi: (i64, i64)) -> CellsBetween {
    CellsBetween {
        at: lo,
        x0: lo.0,
        hi,
    }
}

/// Iterator of [`cells_between`] (a plain one: a `flat_map` costs more than
/// the one to four cells it usually yields).
struct CellsBetween {
    at: (i64, i64),
    x0: i64,
    hi: (i64, i64),
}

impl Iterator for CellsBetween {
    type Item = (i64, i64);

    #[inline]
    fn next(&mut self) -> Option<(i64, i64)> {
        if self.at.1 > self.hi.1 || self.at.0 > self.hi.0 {
            return None;
        }
        let c = self.at;
        self.at = if c.0 < self.hi.0 {
            (c.0 + 1, c.1)
        } else {
            (self.x0, c.1 + 1)
        };
        Some(c)
    }
}

/// One segment in a cell's list: path, segment index, the lowest cell of
/// its box, the round it was proposed in, a slightly larger box (see
/// [`near_box`]), next entry.
#[derive(Clone, Copy)]
struct Entry {
    path: u32,
    seg: u32,
    lo: (i32, i32),
    round: u32,
    near: NearBox,
    next: u32,
}

/// A box around a segment, relative to the cells' origin, a centimetre
/// larger all round (room for the rounding in points computed on segments),
/// in `f32`: two segments whose boxes are apart cannot meet, and the test
/// needs neither their points nor a division. Rounding to `f32` keeps the
/// order of values, so it never parts boxes that overlap, however coarse.
#[derive(Clone, Copy, Default)]
struct NearBox([f32; 4]);

/// How much larger than its segment's box a [`NearBox`] is.
const NEAR: f64 = 0.01;

/// The [`NearBox`] of `a–b`, relative to `origin`.
#[inline(always)]
fn near_box(origin: DVec2, (ax, ay): (f64, f64), (bx, by): (f64, f64)) -> NearBox {
    NearBox([
        (ax.min(bx) - origin.x - NEAR) as f32,
        (ay.min(by) - origin.y - NEAR) as f32,
        (ax.max(bx) - origin.x + NEAR) as f32,
        (ay.max(by) - origin.y + NEAR) as f32,
    ])
}

impl NearBox {
    fn apart(&self, other: &NearBox) -> bool {
        let (p, q) = (self.0, other.0);
        // Branch-free: most pairs are decided here, unpredictably.
        (p[0] > q[2]) | (q[0] > p[2]) | (p[1] > q[3]) | (q[1] > p[3])
    }
}

/// Segments by cell: one linked list per cell in two flat vectors.
struct CellLists {
    head: Vec<u32>,
    entries: Vec<Entry>,
}

impl CellLists {
    fn new(cells: usize) -> Self {
        Self {
            head: vec![END; cells],
            entries: Vec::new(),
        }
    }

    /// Files segment `seg` of `path`, proposed in `round`, whose box spans
    /// cells `lo..=hi`.
    fn push(
        &mut self,
        cells: &Cells,
        (lo, hi): ((i64, i64), (i64, i64)),
        path: usize,
        seg: usize,
        round: usize,
        near: NearBox,
    ) {
        for c in cells_between(lo, hi) {
            let cell = cells.index(c);
            self.entries.push(Entry {
                path: path as u32,
                seg: seg as u32,
                lo: (lo.0 as i32, lo.1 as i32),
                round: round as u32,
                near,
                next: self.head[cell],
            });
            self.head[cell] = (self.entries.len() - 1) as u32;
        }
    }

    /// The segments in a cell.
    fn iter(&self, cell: usize) -> impl Iterator<Item = &Entry> + '_ {
        let mut at = self.head[cell];
        std::iter::from_fn(move || {
            let e = self.entries.get(at as usize)?;
            at = e.next;
            Some(e)
        })
    }
}

/// How fast the height can change: each height term `P(v·p / 128)` moves at
/// most the profile's steepest step per index.
struct SlopeBound {
    /// Steepest step / 128, times each height vector.
    vectors: Vec<DVec2>,
    /// Most change per metre in any direction: at least `along(dir)`.
    steepest: f64,
    /// What a bound on the height must reach to rule out lake: the lake
    /// level, with room for rounding to whole metres.
    floor: f64,
}

impl SlopeBound {
    /// `None` with mountains, whose shaping is steeper.
    fn new(terrain: &Terrain) -> Option<Self> {
        let tp = terrain.params();
        if tp.mountain_base.is_some() {
            return None;
        }
        let n = tp.profile.len();
        let steepest = (0..n)
            .map(|k| (tp.profile[(k + 1) % n] - tp.profile[k]).abs())
            .fold(0.0, f64::max);
        let vectors: Vec<DVec2> = tp
            .height_vectors
            .iter()
            .map(|v| *v * (steepest / 128.0))
            .collect();
        // Most change from rounding a point to whole metres (half a metre per axis).
        let round: f64 = vectors.iter().map(|v| (v.x.abs() + v.y.abs()) / 2.0).sum();
        // |v·dir| ≤ |v| for a unit `dir`, with room for rounding.
        let steepest = vectors.iter().map(|v| v.length()).sum::<f64>() * (1.0 + 1e-12);
        Some(Self {
            vectors,
            steepest,
            floor: tp.lake_level + 1e-9 + round,
        })
    }

    /// Most change per metre along unit direction `dir`.
    fn along(&self, dir: DVec2) -> f64 {
        self.vectors.iter().map(|v| v.dot(dir).abs()).sum()
    }
}

/// One town vector's share of a quick town test: the profile's minima over
/// every window of indices as long as the run its term can use over the
/// points tested (a growth step, or a town disk).
struct TownWindow {
    v: DVec2,
    /// `|vx| + |vy|`: how far rounding a point to whole metres moves `v·p`
    /// (twice over).
    size: f64,
    /// Indices per window.
    width: i64,
    /// `least[k]`: the smallest profile entry at indices `k..k + width` (wrapping).
    least: Vec<f64>,
    /// Most change of `v·p` from the middle of a point set as wide as the
    /// windows are made for: `|v|·extent/2`, rounded up.
    reach: f64,
}

impl TownWindow {
    /// One per town vector, for point sets at most `extent` metres across
    /// in any direction.
    fn all(tp: &crate::terrain::TerrainParams, extent: f64) -> Vec<Self> {
        (tp.town_vectors.iter())
            .map(|&v| Self::new(v, &tp.profile, extent))
            .collect()
    }

    fn new(v: DVec2, profile: &[f64], extent: f64) -> Self {
        let size = v.x.abs() + v.y.abs();
        // The run the town tests ask for, with a metre to spare.
        let width = ((v.length() * extent + size + 4.0) / 128.0).ceil() as i64 + 1;
        let least = window_minima(profile, width as usize);
        Self {
            v,
            size,
            width,
            least,
            reach: v.length() * extent / 2.0 * (1.0 + 1e-12),
        }
    }
}

/// The least entry of every window of `w` entries of the (wrapping)
/// profile, by start: minima of runs doubling in length up to `w` (over the
/// profile with its start repeated at the end), then two overlapping runs
/// per window.
fn window_minima(profile: &[f64], w: usize) -> Vec<f64> {
    let n = profile.len();
    let w = w.min(n);
    let mut run: Vec<f64> = profile.iter().cycle().take(n + w).copied().collect();
    let mut len = 1;
    // A plain comparison (profiles are finite) vectorises; `f64::min` does not.
    let least = |a: &f64, b: &f64| if b < a { *b } else { *a };
    while 2 * len <= w {
        run = run
            .iter()
            .zip(&run[len..])
            .map(|(a, b)| least(a, b))
            .collect();
        len *= 2;
    }
    run.iter()
        .zip(&run[w - len..])
        .take(n)
        .map(|(a, b)| least(a, b))
        .collect()
}

/// Cheap sufficient tests that a segment meets no lake and no town, so that
/// most growth steps need not sample it metre by metre; built once per
/// request.
struct QuickStops<'a> {
    terrain: &'a Terrain,
    /// Bounds on the height's slope (`None` with mountains).
    slope: Option<SlopeBound>,
    /// Per town vector, profile minima over a step's run of indices.
    towns: Vec<TownWindow>,
    /// The same over a town disk's run.
    disk_towns: Vec<TownWindow>,
    /// Radius of the disks [`Self::town_clear_disk`] is asked about.
    disk: f64,
}

impl<'a> QuickStops<'a> {
    /// The tests for steps of at most `step` metres.
    fn new(terrain: &'a Terrain, step: f64) -> Self {
        let tp = terrain.params();
        Self {
            terrain,
            slope: SlopeBound::new(terrain),
            towns: TownWindow::all(tp, step),
            disk_towns: TownWindow::all(tp, 2.0 * Self::DISK * step),
            disk: Self::DISK * step,
        }
    }

    /// Whether no whole-metre sample along `a → b` can be lake (`ha`, `hb`:
    /// the heights at the ends): along the segment the height moves at most
    /// `along(dir)` per metre from either end. (The step lanes try the same
    /// bound with the steepest slope of all first, which needs no dot
    /// products.)
    fn lake_clear(&self, a: DVec2, b: DVec2, ha: f64, hb: f64) -> bool {
        let len = a.distance(b);
        self.slope
            .as_ref()
            .is_some_and(|s| (ha + hb - len * s.along((b - a) / len)) / 2.0 >= s.floor)
    }

    /// A sufficient test that no whole-metre sample along `a → b` is town.
    /// Each town term's index `⌊v·p⌋ >> 7` moves linearly along the segment,
    /// so it stays within the indices of its ends.
    fn town_clear(&self, a: DVec2, b: DVec2) -> bool {
        let far = a.abs().max(b.abs()).max_element();
        let range = |w: &TownWindow| {
            let (ja, jb) = (w.v.dot(a), w.v.dot(b));
            (ja.min(jb), ja.max(jb))
        };
        (self.town_least(&self.towns, far, range))
            .is_some_and(|least| least >= self.terrain.params().town_threshold)
    }

    /// Radius of a town disk, in steps: a straight path crosses one in
    /// about four.
    const DISK: f64 = 2.5;

    /// A sufficient test that no whole-metre point within [`Self::disk`] of
    /// `c` is town: over the disk, `v·p` stays within `|v|·radius` of `v·c`.
    fn town_clear_disk(&self, c: DVec2) -> bool {
        self.town_least_disk(c)
            .is_some_and(|least| least >= self.terrain.params().town_threshold)
    }

    /// The lower bound behind [`Self::town_clear_disk`] (see [`Self::town_least`]).
    fn town_least_disk(&self, c: DVec2) -> Option<f64> {
        let far = c.abs().max_element() + self.disk;
        // Beyond this the rounding room below would outgrow the windows.
        if !far.is_finite() || far >= 1e11 {
            return None;
        }
        let mask = self.terrain.params().profile.len() as i64 - 1;
        let mut least = 0.0;
        for w in &self.disk_towns {
            // As in `town_least`, but only the lowest index is needed: the
            // windows are made for the whole run a disk can use.
            let spread = w.reach + 0.5 * w.size + 1.0 + 1e-14 * w.size * (far + 1.0);
            let k0 = floor_i64(w.v.dot(c) - spread) >> 7;
            least += w.least[(k0 & mask) as usize];
        }
        Some(least)
    }

    /// A lower bound on the town sum over a set of points (all coordinates
    /// at most `far` in size), from the range `v·p` takes over them for each
    /// town vector `v`; `None` when some term's run is too long for its
    /// window. Rounding a point to whole metres moves `v·p` by at most
    /// `(|vx| + |vy|)/2`, so a term can only use the profile entries over a
    /// short run of indices, and is at least their minimum (taken over a
    /// window at least as long).
    fn town_least(
        &self,
        windows: &[TownWindow],
        far: f64,
        range: impl Fn(&TownWindow) -> (f64, f64),
    ) -> Option<f64> {
        let mask = self.terrain.params().profile.len() as i64 - 1;
        let mut least = 0.0;
        for w in windows {
            let (j0, j1) = range(w);
            // Half a metre per axis, and room for rounding in the products.
            let pad = 0.5 * w.size + 1.0 + 1e-14 * w.size * (far + 1.0);
            let k0 = floor_i64(j0 - pad) >> 7;
            let k1 = floor_i64(j1 + pad) >> 7;
            if !(j0.is_finite() && j1.is_finite() && k1 - k0 < w.width) {
                return None;
            }
            least += w.least[(k0 & mask) as usize];
        }
        Some(least)
    }
}

/// Lake and town stops for a batch of segments: the quick tests first, then
/// the whole-metre samples of the segments they cannot clear, with the
/// heights of all those samples in one batch.
#[derive(Default)]
struct GroundStops {
    /// Per segment to sample: its index in the batch, whether lake and town
    /// are already excluded, its length and its samples' range.
    open: Vec<(usize, bool, bool, f64, std::ops::Range<usize>)>,
    xs: Vec<f64>,
    ys: Vec<f64>,
    hs: Vec<f64>,
    /// Each sample's distance along its segment.
    ds: Vec<f64>,
}

impl GroundStops {
    /// For each segment `a → b` (with the heights at its ends, and whether it
    /// is already known to meet no lake, or no town) that lake or town stops,
    /// its index and where it must stop, as a fraction: at the last
    /// whole-metre sample before the first blocked one.
    fn find(
        &mut self,
        quick: &QuickStops,
        segments: impl Iterator<Item = (DVec2, DVec2, f64, f64, bool, bool)>,
        stops: &mut Vec<(usize, f64)>,
    ) {
        let terrain = quick.terrain;
        self.open.clear();
        self.xs.clear();
        self.ys.clear();
        self.ds.clear();
        for (n, (a, b, ha, hb, lake_known, town_known)) in segments.enumerate() {
            if lake_known && town_known {
                continue;
            }
            let lake_clear = lake_known || quick.lake_clear(a, b, ha, hb);
            let town_clear = town_known || quick.town_clear(a, b);
            if lake_clear && town_clear {
                continue;
            }
            // Samples at every whole metre along the segment and at its end.
            let len = a.distance(b);
            let first = self.xs.len();
            for k in 1..=len.floor() as usize + 1 {
                let d = (k as f64).min(len);
                let q = a + (b - a) * (d / len);
                self.xs.push(java_round_f64(q.x));
                self.ys.push(java_round_f64(q.y));
                self.ds.push(d);
                if d >= len {
                    break;
                }
            }
            let range = first..self.xs.len();
            self.open.push((n, lake_clear, town_clear, len, range));
        }
        terrain.heights_at_points(&self.xs, &self.ys, &mut self.hs);
        let level = terrain.params().lake_level;
        for (n, lake_clear, town_clear, len, range) in self.open.drain(..) {
            let mut prev = 0.0;
            for k in range {
                let town = || terrain.is_town(self.xs[k] as i64, self.ys[k] as i64);
                if (!lake_clear && self.hs[k] < level) || (!town_clear && town()) {
                    stops.push((n, prev / len));
                    break;
                }
                prev = self.ds[k];
            }
        }
    }
}

/// The directions of the bearings `b`, `b − turn`, `b + turn` from the
/// direction `(ux, uy)` of `b`, by the angle-sum formulas (`turn` = sine and
/// cosine of the turn). The candidate points and the step lanes both take
/// them from here, so the direction chosen is the one whose height was taken.
#[inline(always)]
fn candidates((ux, uy): (f64, f64), (st, ct): (f64, f64)) -> [(f64, f64); 3] {
    [
        (ux, uy),
        (ux * ct - uy * st, uy * ct + ux * st),
        (ux * ct + uy * st, uy * ct - ux * st),
    ]
}

/// The cell coordinate of `v` along an axis whose cells start at `origin`
/// (any monotone map to cells will do, as long as it is this one).
#[inline(always)]
fn cell_coord(v: f64, origin: f64, last: i64, floor: impl Fn(f64) -> i64) -> i64 {
    floor((v - origin) * (1.0 / GRID)).max(0).min(last)
}

/// Tips handled side by side in a growth step's arithmetic.
const LANES: usize = 8;

/// What [`Steps::run`] needs besides the tips.
struct StepConsts {
    /// Sine and cosine of the turn.
    turn: (f64, f64),
    step: f64,
    /// The cells' origin and their highest coordinates.
    origin: DVec2,
    last: (i64, i64),
    /// Radius of a town disk.
    disk: f64,
    /// The lake test's steepest slope (infinite with mountains: no quick
    /// test) and the height the bound must reach.
    steepest: f64,
    lake_floor: f64,
}

/// The arithmetic of a growth step for [`LANES`] tips at once, lane by lane
/// without branches, so that the compiler can vectorise it (and does with
/// AVX-512, where the CPU has it). Every lane does exactly the operations of
/// one tip in order, so the results are the same bits either way.
#[derive(Default)]
struct Steps {
    // In: the tip, its direction and height, the heights of the three
    // candidate points, the centre of its town disk.
    tip_x: [f64; LANES],
    tip_y: [f64; LANES],
    dir0_x: [f64; LANES],
    dir0_y: [f64; LANES],
    h: [f64; LANES],
    h_cand: [[f64; 3]; LANES],
    disk_x: [f64; LANES],
    disk_y: [f64; LANES],
    // Out: the chosen direction, the next point, its height and cell, the
    // segment's near box, and whether the town disk holds the segment.
    dir_x: [f64; LANES],
    dir_y: [f64; LANES],
    next_x: [f64; LANES],
    next_y: [f64; LANES],
    hb: [f64; LANES],
    cell_x: [i64; LANES],
    cell_y: [i64; LANES],
    near: [NearBox; LANES],
    within: [bool; LANES],
    /// The lake test's first, steepest-slope bound clears the segment.
    lake_clear: [bool; LANES],
}

impl Steps {
    #[cfg(test)]
    fn load_all_from(&mut self, other: &Steps) {
        for k in 0..LANES {
            let (tip, dir) = (
                DVec2::new(other.tip_x[k], other.tip_y[k]),
                DVec2::new(other.dir0_x[k], other.dir0_y[k]),
            );
            self.load(k, tip, dir, other.h[k], &other.h_cand[k]);
            (self.disk_x[k], self.disk_y[k]) = (other.disk_x[k], other.disk_y[k]);
        }
    }

    /// Every output, as bits.
    #[cfg(test)]
    fn bits(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for k in 0..LANES {
            out.extend(
                [
                    self.dir_x[k],
                    self.dir_y[k],
                    self.next_x[k],
                    self.next_y[k],
                    self.hb[k],
                ]
                .map(f64::to_bits),
            );
            out.extend([
                self.cell_x[k] as u64,
                self.cell_y[k] as u64,
                self.within[k] as u64,
                self.lake_clear[k] as u64,
            ]);
            out.extend(self.near[k].0.map(|v| v.to_bits() as u64));
        }
        out
    }

    fn load(&mut self, k: usize, tip: DVec2, dir: DVec2, h: f64, heights: &[f64]) {
        (self.tip_x[k], self.tip_y[k]) = (tip.x, tip.y);
        (self.dir0_x[k], self.dir0_y[k]) = (dir.x, dir.y);
        self.h[k] = h;
        self.h_cand[k] = [heights[0], heights[1], heights[2]];
    }

    fn run(&mut self, c: &StepConsts) {
        #[cfg(target_arch = "x86_64")]
        if crate::terrain::GridKernel::Avx512.available() {
            // SAFETY: the CPU has the features.
            return unsafe { self.run_avx512(c) };
        }
        self.run_lanes(c, floor_i64);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,sse4.1")]
    unsafe fn run_avx512(&mut self, c: &StepConsts) {
        // `floor` is one instruction here; `as` saturates as `floor_i64` does.
        self.run_lanes(c, |v| v.floor() as i64);
    }

    /// The seed's `nextBearing` (of the three candidates, the one whose
    /// height is nearest the tip's, ties going straight on), the next point,
    /// its cell, the near box (see [`near_box`]), whether the town disk
    /// holds the segment, and the lake test's steepest-slope bound.
    #[inline(always)]
    fn run_lanes(&mut self, c: &StepConsts, floor: impl Fn(f64) -> i64) {
        for k in 0..LANES {
            let [(ux, uy), (c1x, c1y), (c2x, c2y)] =
                candidates((self.dir0_x[k], self.dir0_y[k]), c.turn);
            let h = self.h[k];
            let [h0, h1, h2] = self.h_cand[k];
            let (d0, d1, d2) = ((h - h0).abs(), (h - h1).abs(), (h - h2).abs());
            let one = (d1 < d0) & (d1 < d2);
            let two = (d2 < d0) & (d2 < d1);
            let pick = |v0: f64, v1: f64, v2: f64| {
                if one {
                    v1
                } else if two {
                    v2
                } else {
                    v0
                }
            };
            let (dx, dy) = (pick(ux, c1x, c2x), pick(uy, c1y, c2y));
            self.hb[k] = pick(h0, h1, h2);
            (self.dir_x[k], self.dir_y[k]) = (dx, dy);
            let (ax, ay) = (self.tip_x[k], self.tip_y[k]);
            let (bx, by) = (ax + dx * c.step, ay + dy * c.step);
            (self.next_x[k], self.next_y[k]) = (bx, by);
            self.cell_x[k] = cell_coord(bx, c.origin.x, c.last.0, &floor);
            self.cell_y[k] = cell_coord(by, c.origin.y, c.last.1, &floor);
            self.near[k] = near_box(c.origin, (ax, ay), (bx, by));
            let (ex, ey) = (self.disk_x[k], self.disk_y[k]);
            let d2 = |px: f64, py: f64| (px - ex) * (px - ex) + (py - ey) * (py - ey);
            self.within[k] = (d2(ax, ay) <= c.disk * c.disk) & (d2(bx, by) <= c.disk * c.disk);
            // `QuickStops::lake_clear` with the steepest slope of all.
            let len = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).sqrt();
            self.lake_clear[k] = (h + self.hb[k] - len * c.steepest) / 2.0 >= c.lake_floor;
        }
    }
}

/// The simulation of a set of start points, with every path kept inside the
/// light cone of a focus box.
struct Sim<'a> {
    terrain: &'a Terrain,
    p: &'a ContourParams,
    paths: Vec<Path>,
    cells: Cells,
    /// Every segment proposed, filed when proposed: those of the current
    /// round are proposals, earlier ones laid (cut short where their path
    /// stopped, or not laid at all).
    segments: CellLists,
    /// The quick lake and town tests.
    quick: &'a QuickStops<'a>,
    inserts: Vec<Insert>,
    /// Scratch space for the lake and town stops.
    ground: GroundStops,
    /// What the lane-by-lane step arithmetic needs.
    consts: StepConsts,
    /// The box whose roads must come out exact.
    focus: (DVec2, DVec2),
}

impl<'a> Sim<'a> {
    /// A simulation of `starts` (which must hold every start within
    /// `step·(horizon + 1)` of the focus box) over the area `[lo, hi)` they
    /// lie in.
    fn new(
        terrain: &'a Terrain,
        p: &'a ContourParams,
        quick: &'a QuickStops<'a>,
        starts: &[RoadStart],
        focus: (DVec2, DVec2),
        (lo, hi): (DVec2, DVec2),
    ) -> Self {
        // Paths never leave the cone, which ends a step beyond the starts.
        let pad = DVec2::splat(2.0 * p.step);
        let cells = Cells::new(lo - pad, hi + pad);
        let mut paths = Vec::new();
        for s in starts {
            let h = terrain.height(s.pos.x, s.pos.y);
            for (k, &b) in s.bearings.iter().enumerate() {
                let (sin, cos) = b.sin_cos();
                paths.push(Path {
                    key: (s.id, k as u32),
                    points: {
                        let mut v = Vec::with_capacity(p.max_points.min(128));
                        v.push(s.pos);
                        v
                    },
                    dir: DVec2::new(sin, cos),
                    lo: s.pos,
                    hi: s.pos,
                    tip: s.pos,
                    tip_cell: cells.cell(s.pos),
                    tip_height: h,
                    town_disk: DVec2::NAN,
                    growing: true,
                });
            }
        }
        let n = cells.len();
        let consts = StepConsts {
            turn: p.turn.sin_cos(),
            step: p.step,
            origin: cells.origin,
            last: (cells.w - 1, cells.h - 1),
            disk: quick.disk,
            steepest: quick.slope.as_ref().map_or(f64::INFINITY, |s| s.steepest),
            lake_floor: quick.slope.as_ref().map_or(f64::INFINITY, |s| s.floor),
        };
        Self {
            terrain,
            p,
            paths,
            segments: CellLists::new(n),
            cells,
            quick,
            inserts: Vec::new(),
            ground: GroundStops::default(),
            consts,
            focus,
        }
    }

    fn start_id(&self, path: usize) -> (i64, i64) {
        self.paths[path].key.0
    }

    /// Whether a tip at `p` after round `r` can still affect the focus box:
    /// nothing moves faster than a step per round, and growth ends at the
    /// horizon. One step more than that keeps exact the first point of a
    /// road that leaves the box (so the check after the run sees it).
    fn in_cone(&self, p: DVec2, r: f64) -> bool {
        self.within_focus(p, self.p.step * (self.p.horizon() + 1.0 - r))
    }

    /// Whether `p` is within `reach` of the focus box.
    #[inline]
    fn within_focus(&self, p: DVec2, reach: f64) -> bool {
        let (f0, f1) = self.focus;
        // The distance to the box per axis (zero inside its span).
        let d = (f0 - p).max(p - f1).max(DVec2::ZERO);
        reach >= 0.0 && d.length_squared() <= reach * reach
    }

    /// The segments up to eight paths propose this round (filed at once),
    /// given the heights of their three candidate points each: the
    /// arithmetic lane by lane (see [`Steps`]), then what needs branches.
    #[inline(never)] // Measured: the growth loop runs faster around a call.
    fn propose(
        &mut self,
        lanes: &mut Steps,
        chunk: &[usize],
        heights: &[f64],
        r: usize,
        props: &mut [Proposal],
    ) {
        for (k, &i) in chunk.iter().enumerate() {
            let path = &self.paths[i];
            lanes.load(
                k,
                path.tip,
                path.dir,
                path.tip_height,
                &heights[3 * k..3 * k + 3],
            );
            (lanes.disk_x[k], lanes.disk_y[k]) = (path.town_disk.x, path.town_disk.y);
        }
        lanes.run(&self.consts);
        for (k, &i) in chunk.iter().enumerate() {
            let path = &self.paths[i];
            let tip = path.tip;
            let dir = DVec2::new(lanes.dir_x[k], lanes.dir_y[k]);
            let next = DVec2::new(lanes.next_x[k], lanes.next_y[k]);
            let next_cell = (lanes.cell_x[k], lanes.cell_y[k]);
            let span = Cells::span(path.tip_cell, next_cell);
            let near = lanes.near[k];
            let seg = path.points.len() - 1;
            // A path crosses a town disk in a few steps: one town test for
            // all of them, centred a little ahead.
            let town_clear = lanes.within[k] || {
                let c = tip + dir * (0.9 * self.quick.disk);
                let clear = self.quick.town_clear_disk(c);
                if clear {
                    self.paths[i].town_disk = c;
                }
                clear
            };
            self.segments.push(&self.cells, span, i, seg, r, near);
            props[i] = Proposal {
                a: tip,
                b: next,
                dir,
                seg,
                ha: lanes.h[k],
                hb: lanes.hb[k],
                lake_clear: lanes.lake_clear[k],
                town_clear,
                span,
                near,
                b_cell: next_cell,
            };
        }
    }

    /// Every event that could stop proposal `i` (and crossings with its own
    /// start's paths) against laid and proposed segments.
    fn meetings(
        &self,
        i: usize,
        round: u32,
        props: &[Proposal],
        events: &mut Vec<Event>,
        crosses: &mut Vec<Cross>,
    ) {
        let Proposal {
            a, b, span, near, ..
        } = props[i];
        let me = self.start_id(i);
        let (mine, hi) = span;
        for c in cells_between(mine, hi) {
            let cell = self.cells.index(c);
            for e in self.segments.iter(cell) {
                let (j, s, lo) = (e.path as usize, e.seg as usize, e.lo);
                // A pair sharing several cells is seen in the first only.
                if (c != first_shared(mine, (lo.0 as i64, lo.1 as i64))) | near.apart(&e.near) {
                    continue;
                }
                if e.round == round {
                    self.meet_proposal(i, j, props, events, crosses);
                    continue;
                }
                let points = &self.paths[j].points;
                // Not laid (its path stopped where it began), or the path's
                // own last segment, which shares the tip.
                if s + 1 >= points.len() || (j == i && s + 2 == points.len()) {
                    continue;
                }
                let (c0, c1) = (points[s], points[s + 1]);
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
        }
    }

    /// What proposal `k` means for proposal `i` (both of this round).
    fn meet_proposal(
        &self,
        i: usize,
        k: usize,
        props: &[Proposal],
        events: &mut Vec<Event>,
        crosses: &mut Vec<Cross>,
    ) {
        if k == i {
            return;
        }
        let Proposal { a, b, .. } = props[i];
        let Proposal { a: c0, b: c1, .. } = props[k];
        let Some((t, u)) = segment_intersection(a, b, c0, c1) else {
            return;
        };
        if t == 0.0 || u == 0.0 {
            return; // Tips that touch were handled when they met.
        }
        let (me, other) = (self.start_id(i), self.start_id(k));
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

    /// A total, canonical order of events: time, the path stopped, then what
    /// stops it (so nothing depends on which area was simulated).
    fn event_order(&self, x: &Event, y: &Event) -> std::cmp::Ordering {
        let key = |o: Obstacle| match o {
            Obstacle::Ground => (0, ((0, 0), 0), 0, 0.0),
            Obstacle::Old { path, seg, u } => (1, self.paths[path].key, seg, u),
            Obstacle::New { path, u } => (2, self.paths[path].key, 0, u),
        };
        let (kx, ky) = (key(x.obstacle), key(y.obstacle));
        x.t.total_cmp(&y.t)
            .then(self.paths[x.path].key.cmp(&self.paths[y.path].key))
            .then(kx.0.cmp(&ky.0))
            .then(kx.1.cmp(&ky.1))
            .then(kx.2.cmp(&ky.2))
            .then(kx.3.total_cmp(&ky.3))
    }

    fn run(&mut self) {
        let turn = self.p.turn.sin_cos();
        let mut props = vec![Proposal::default(); self.paths.len()];
        let mut stop: Vec<Option<(f64, Obstacle)>> = vec![None; self.paths.len()];
        let (mut events, mut crosses): (Vec<Event>, Vec<Cross>) = (Vec::new(), Vec::new());
        let mut active: Vec<usize> = (0..self.paths.len()).collect();
        let (mut xs, mut ys, mut hs) = (Vec::new(), Vec::new(), Vec::new());
        let mut ground = Vec::new();
        // Reused: lanes past the end of a round's last chunk hold old tips,
        // whose results are never read.
        let mut lanes = Steps::default();
        for i in 0..self.paths.len() {
            let start = self.paths[i].points[0];
            self.paths[i].growing = self.in_cone(start, 0.0);
        }
        for r in 1..=self.p.max_rounds {
            active.retain(|&i| self.paths[i].growing);
            if active.is_empty() {
                break;
            }
            // How near the focus box a tip must end this round to grow on
            // (see `in_cone`).
            let reach = self.p.step * (self.p.horizon() + 1.0 - r as f64);
            // 1. Every growing path proposes its next segment; lake and town
            // may stop it part way.
            events.clear();
            crosses.clear();
            // Three candidate points per path, their heights in one batch.
            xs.resize(3 * active.len(), 0.0);
            ys.resize(3 * active.len(), 0.0);
            for ((x3, y3), &i) in xs
                .chunks_exact_mut(3)
                .zip(ys.chunks_exact_mut(3))
                .zip(&active)
            {
                let path = &self.paths[i];
                for (k, (ux, uy)) in candidates(path.dir.into(), turn).into_iter().enumerate() {
                    (x3[k], y3[k]) = (path.tip.x + ux * self.p.step, path.tip.y + uy * self.p.step);
                }
            }
            self.terrain.heights_at_points(&xs, &ys, &mut hs);
            for (n, chunk) in active.chunks(LANES).enumerate() {
                let heights = &hs[3 * LANES * n..];
                self.propose(&mut lanes, chunk, heights, r, &mut props);
            }
            for &i in &active {
                stop[i] = None;
            }
            ground.clear();
            let segments = active.iter().map(|&i| {
                let p = &props[i];
                (p.a, p.b, p.ha, p.hb, p.lake_clear, p.town_clear)
            });
            self.ground.find(self.quick, segments, &mut ground);
            for &(n, t) in &ground {
                events.push(Event {
                    t,
                    path: active[n],
                    obstacle: Obstacle::Ground,
                });
            }
            // 2. What else could stop each one, and when (fraction of the round).
            for &i in &active {
                self.meetings(i, r as u32, &props, &mut events, &mut crosses);
            }
            // 3. Resolve in time order: a path stops at its first valid event.
            events.sort_by(|x, y| self.event_order(x, y));
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
                    let seg_j = if new { props[j].seg } else { s };
                    self.inserts.push(Insert {
                        path: i,
                        seg: props[i].seg,
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
            // 4. Grow or stop (the segments are filed already).
            for &i in &active {
                let Proposal {
                    a,
                    b,
                    dir,
                    hb,
                    b_cell,
                    ..
                } = props[i];
                match stop[i] {
                    None => {
                        let grows = self.paths[i].points.len() + 1 < self.p.max_points
                            && self.within_focus(b, reach);
                        let path = &mut self.paths[i];
                        path.points.push(b);
                        (path.lo, path.hi) = (path.lo.min(b), path.hi.max(b));
                        path.tip = b;
                        path.tip_cell = b_cell;
                        path.dir = dir;
                        path.tip_height = hb;
                        path.growing = grows;
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
                                let o = props[path];
                                let p = o.a.lerp(o.b, u);
                                self.inserts.push(Insert {
                                    path,
                                    seg: o.seg,
                                    u,
                                    point: p,
                                });
                                p
                            }
                        };
                        if t != 0.0 && end != a {
                            let path = &mut self.paths[i];
                            path.points.push(end);
                            (path.lo, path.hi) = (path.lo.min(end), path.hi.max(end));
                            path.tip = end;
                        }
                    }
                }
            }
        }
    }

    /// The roads (paths with two or more points, junction points inserted)
    /// that have a point in `[min, max)`, in canonical order.
    fn roads_touching(&self, min: DVec2, max: DVec2) -> Vec<Road> {
        let mut order: Vec<usize> = (0..self.paths.len())
            .filter(|&i| {
                let path = &self.paths[i];
                path.lo.cmple(max).all()
                    && path.hi.cmpge(min).all()
                    && (path.points.windows(2)).any(|w| segment_meets_rect(w[0], w[1], min, max))
            })
            .collect();
        order.sort_by_key(|&i| self.paths[i].key);
        // The junction points to insert into each of them.
        let mut slot = vec![usize::MAX; self.paths.len()];
        for (k, &i) in order.iter().enumerate() {
            slot[i] = k;
        }
        let mut extra: Vec<Vec<&Insert>> = vec![Vec::new(); order.len()];
        for ins in &self.inserts {
            if let Some(list) = extra.get_mut(slot[ins.path]) {
                list.push(ins);
            }
        }
        order
            .into_iter()
            .zip(extra)
            .map(|(i, mut ins)| {
                let pts = &self.paths[i].points;
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
}

/// The first cell that two boxes with these lowest cells share.
fn first_shared(p: (i64, i64), q: (i64, i64)) -> (i64, i64) {
    (p.0.max(q.0), p.1.max(q.1))
}

/// Whether segment `a–b` has a point in the half-open rectangle `[min, max)`.
fn segment_meets_rect(a: DVec2, b: DVec2, min: DVec2, max: DVec2) -> bool {
    if a.max(b).cmplt(min).any() || a.min(b).cmpgt(max).any() {
        return false;
    }
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
    fn the_focus_box_search_gives_the_same_roads_from_any_first_margin() {
        let t = Terrain::default();
        let with = |m: f64| {
            ContourRoads::new(ContourParams {
                initial_margin: m,
                ..Default::default()
            })
            .unwrap()
        };
        // Away from the seed's map: hills, lake shores, town patches.
        for (x, y) in [
            (-2300.0, 400.0),
            (-800.0, 9000.0),
            (3000.0, 3000.0),
            (1500.0, -10000.0),
        ] {
            let (min, max) = (DVec2::new(x, y), DVec2::new(x + 300.0, y + 300.0));
            // The full margin at once holds every road: the reference.
            let reference = with(1.0e5).generate(&t, min, max);
            assert!(!reference.roads.is_empty(), "{min}");
            for m in [0.0, 150.0, 700.0] {
                assert_eq!(
                    with(m).generate(&t, min, max),
                    reference,
                    "{min}, first margin {m}"
                );
            }
        }
    }

    /// The seed's stop rule sampled plainly: the last whole-metre sample
    /// before the first lake or town one.
    fn ground_stop_by_samples(t: &Terrain, a: DVec2, b: DVec2) -> Option<f64> {
        let len = a.distance(b);
        let mut prev = 0.0;
        for k in 1..=len.floor() as usize + 1 {
            let d = (k as f64).min(len);
            let q = a + (b - a) * (d / len);
            let (xr, yr) = (java_round(q.x), java_round(q.y));
            if t.height(xr as f64, yr as f64) < t.params().lake_level || t.is_town(xr, yr) {
                return Some(prev / len);
            }
            prev = d;
            if d >= len {
                break;
            }
        }
        None
    }

    #[test]
    fn the_quick_lake_and_town_tests_never_miss_a_stop() {
        let t = Terrain::default();
        let p = ContourParams::default();
        let quick = QuickStops::new(&t, p.step);
        let segments: Vec<_> = (0..20_000u64)
            .map(|k| {
                // Half around lakes and hills, half around town patches;
                // every fifth shorter than a step, as a path's last one is.
                let centre = DVec2::new(0.0, if k % 2 == 0 { 0.0 } else { -10_000.0 });
                let at = centre
                    + DVec2::new(hash_unit(k as i64, 1, 7), hash_unit(k as i64, 2, 7)) * 6000.0
                    - 3000.0;
                let angle = hash_unit(k as i64, 3, 7) * std::f64::consts::TAU;
                let len = if k % 5 == 0 {
                    hash_unit(k as i64, 4, 7) * p.step
                } else {
                    p.step
                };
                let b = at + DVec2::new(angle.sin(), angle.cos()) * len;
                (at, b, t.height(at.x, at.y), t.height(b.x, b.y))
            })
            .collect();
        let mut found = Vec::new();
        // In batches of several sizes, as rounds have.
        let mut start = 0;
        for size in (1..).cycle() {
            let end = (start + size).min(segments.len());
            let mut batch = Vec::new();
            let batch_segments = segments[start..end]
                .iter()
                .map(|&(a, b, ha, hb)| (a, b, ha, hb, false, false));
            GroundStops::default().find(&quick, batch_segments, &mut batch);
            found.extend(batch.into_iter().map(|(n, t)| (start + n, t)));
            start = end;
            if start == segments.len() {
                break;
            }
        }
        let expected: Vec<(usize, f64)> = (segments.iter().enumerate())
            .filter_map(|(n, &(a, b, _, _))| Some((n, ground_stop_by_samples(&t, a, b)?)))
            .collect();
        assert_eq!(found, expected);
        let stops = found.len();
        let towns = (segments.iter())
            .filter(|(a, b, _, _)| {
                (0..=10).any(|d| {
                    let q = a.lerp(*b, d as f64 / 10.0);
                    t.is_town(java_round(q.x), java_round(q.y))
                })
            })
            .count();
        let clear_by_bound = (segments.iter())
            .filter(|(a, b, _, _)| quick.town_clear(*a, *b))
            .count();
        // Stops of both kinds occur, and the town bound clears most segments.
        assert!(
            stops > 1000 && towns > 50,
            "{stops} stops, {towns} by towns"
        );
        assert!(
            clear_by_bound > 15_000,
            "{clear_by_bound} cleared by the bound"
        );
    }

    #[test]
    fn near_boxes_of_segments_that_meet_are_never_apart() {
        // Cells over a long strip, far from the world's origin, where `f32`
        // steps are coarse.
        for (lo, hi) in [
            (DVec2::new(-500.0, -500.0), DVec2::new(3000.0, 3000.0)),
            (
                DVec2::new(7.0e6, -3.0e6),
                DVec2::new(8.2e6, -3.0e6 + 2000.0),
            ),
        ] {
            let cells = Cells::new(lo, hi);
            for k in 0..2000i64 {
                let h = |salt: u64| hash_unit(k, salt as i64, 3);
                // Two 10 m segments through the same point, or end to end.
                let p = lo + (hi - lo) * DVec2::new(h(1), h(2));
                let (u, v) = (h(3) * std::f64::consts::TAU, h(4) * std::f64::consts::TAU);
                let (du, dv) = (DVec2::new(u.sin(), u.cos()), DVec2::new(v.sin(), v.cos()));
                let a = (p - du * 10.0 * h(5), p + du * 10.0 * (1.0 - h(5)));
                let b = if k % 2 == 0 {
                    (p - dv * 10.0 * h(6), p + dv * 10.0 * (1.0 - h(6)))
                } else {
                    (a.1, a.1 + dv * 10.0)
                };
                let near = |(p, q): (DVec2, DVec2)| near_box(cells.origin, (p.x, p.y), (q.x, q.y));
                let (na, nb) = (near(a), near(b));
                assert!(!na.apart(&nb), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn step_lanes_give_the_same_bits_on_every_path() {
        // The vectorised arithmetic (where the CPU has it) against the plain
        // one, on tips near and far from the origin, with near ties.
        let consts = StepConsts {
            turn: 0.09f64.sin_cos(),
            step: 10.0,
            origin: DVec2::new(-3.0e4, 7.0e5),
            last: (900, 700),
            disk: 25.0,
            steepest: 13.0,
            lake_floor: 150.0,
        };
        for n in 0..500i64 {
            let h = |k: usize, salt: i64| hash_unit(n * 16 + k as i64, salt, 11);
            let mut lanes = Steps::default();
            for k in 0..LANES {
                let tip = consts.origin + DVec2::new(h(k, 1), h(k, 2)) * 36_000.0 - 50.0;
                let a = h(k, 3) * std::f64::consts::TAU;
                let base = h(k, 4) * 300.0;
                // Some candidates tie with each other or with the tip.
                let cand = [
                    base + h(k, 5).round(),
                    base + h(k, 6).round(),
                    base + h(k, 7),
                ];
                lanes.load(k, tip, DVec2::new(a.sin(), a.cos()), base, &cand);
                (lanes.disk_x[k], lanes.disk_y[k]) = (tip.x + h(k, 8) * 40.0, tip.y);
            }
            let mut plain = Steps::default();
            plain.load_all_from(&lanes);
            lanes.run(&consts);
            plain.run_lanes(&consts, floor_i64);
            assert_eq!(lanes.bits(), plain.bits(), "set {n}");
        }
    }

    #[test]
    fn window_minima_match_a_scan() {
        for n in [1, 5, 64] {
            let profile: Vec<f64> = (0..n).map(|k| ((k * 37 + 11) % 64) as f64 - 20.0).collect();
            for w in 1..=n + 3 {
                let scan: Vec<f64> = (0..n)
                    .map(|k| {
                        (k..k + w)
                            .map(|d| profile[d % n])
                            .fold(f64::INFINITY, f64::min)
                    })
                    .collect();
                assert_eq!(window_minima(&profile, w), scan, "n {n}, w {w}");
            }
        }
    }

    #[test]
    fn the_town_disk_bound_holds_at_every_point_it_covers() {
        let t = Terrain::default();
        let tp = t.params();
        let quick = QuickStops::new(&t, ContourParams::default().step);
        let r = quick.disk;
        // The seed's town sum at a whole-metre point.
        let town_sum = |x: i64, y: i64| -> f64 {
            let mask = tp.profile.len() as i64 - 1;
            (tp.town_vectors.iter())
                .map(|v| {
                    tp.profile
                        [((v.x * x as f64 + v.y * y as f64).floor() as i64 >> 7 & mask) as usize]
                })
                .sum()
        };
        let mut cleared = 0;
        for k in 0..2000u64 {
            // Near and far from the origin, around town patches and not.
            let scale = [1.0, 1e3, 1e6][k as usize % 3];
            let c =
                DVec2::new(hash_unit(k as i64, 5, 7), hash_unit(k as i64, 6, 7)) * 3000.0 * scale;
            let bound = quick.town_least_disk(c).expect("a disk's runs fit");
            cleared += quick.town_clear_disk(c) as usize;
            // Every whole-metre point a point of the disk rounds to (its unit
            // square meets the disk) has at least the bound.
            let lo = (c - r - 1.0).floor();
            for y in lo.y as i64..=(c.y + r + 1.0) as i64 {
                for x in lo.x as i64..=(c.x + r + 1.0) as i64 {
                    let gap = ((c - DVec2::new(x as f64, y as f64)).abs() - 0.5).max(DVec2::ZERO);
                    if gap.length() <= r {
                        assert!(
                            town_sum(x, y) >= bound,
                            "({x}, {y}) below the bound of the disk at {c}"
                        );
                    }
                }
            }
        }
        assert!(cleared > 1500, "{cleared} of 2000 disks cleared");
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
        assert!(matches!(
            c.try_generate(&t, DVec2::ZERO, DVec2::splat(1.0e5)),
            Err(RoadAreaError::TooLarge { .. })
        ));
        assert!(matches!(
            c.try_generate(&t, DVec2::splat(f64::NAN), DVec2::ONE),
            Err(RoadAreaError::TooLarge { .. })
        ));
        // A small area is fine with the defaults...
        assert!(c.try_generate(&t, DVec2::ZERO, DVec2::splat(500.0)).is_ok());
        // ...but 1 m steps for 10,000 points would take minutes: refused at once.
        let long = ContourRoads::new(ContourParams {
            step: 1.0,
            max_points: 10_000,
            max_rounds: 100_000,
            ..Default::default()
        })
        .unwrap();
        let err = long
            .try_generate(&t, DVec2::ZERO, DVec2::splat(500.0))
            .unwrap_err();
        assert!(matches!(err, RoadAreaError::TooMuchGrowth { .. }));
        assert!(err.to_string().contains("max_points"), "{err}");
        assert_eq!(
            c.generate(&t, DVec2::ONE, DVec2::ZERO),
            RoadNetwork::default()
        );
    }
}
