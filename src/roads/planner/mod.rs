//! Runtime road planners after Löbker (2013), *Runtime procedural
//! generation of roads*: one road between two points, shaped by a weighted
//! cost function (thesis §6.3) that two planners minimise in different ways.
//!
//! - [`SequentialPlanner`]: the thesis' variant of Sun et al.: from the last
//!   point, a fan of candidates one step away, centred on the end point and
//!   narrowing from about 180° at the start to under 30° near the end; the
//!   cheapest is kept. Linear in distance; it steps back only out of a
//!   dead end.
//! - [`AStarPlanner`]: A* on a grid of `step` metres with 4-, 8-, 16- or
//!   32-connexity (thesis fig. 6.6). Its search state is (cell, incoming
//!   direction), as Galin et al. 2010, so the turn at a cell is charged
//!   honestly; bounded by a window around the straight line and a cap on
//!   expanded states.
//!
//! Both return a [`PlannedRoad`] scored by the same function
//! ([`score_path`]), so their costs compare. The slope parts are taken on
//! the ground at the road's own scale (the terrain averaged over
//! `ground_window` steps, not its micro-relief), and a road pays for what
//! building it under `max_grade` takes: cut and fill, viaducts past
//! `max_fill`, tunnels past `max_cut` ([`CostBreakdown::earthworks`]). [`GameplayParams`] (speed,
//! fun, realism, difficulty, or your own) move several weights at once
//! (thesis §6.4). Plain Rust, no Bevy.
//!
//! Ends closer than half a `step` get the straight road between them,
//! unsearched (on a bridge, or [`PlanError::NoRoad`], where it crosses
//! water): no grid cell is finer than that, so A*'s window stays bounded,
//! and one whose caches would take over [`MAX_WINDOW_BYTES`] is refused
//! before it is made.
//!
//! ```
//! use bevy_relief::roads::planner::{AStarPlanner, PlannerParams, RoadPlanner};
//! use bevy_relief::terrain::Terrain;
//! use glam::DVec2;
//! let terrain = Terrain::default();
//! let (from, to) = (DVec2::new(-3000.0, 2000.0), DVec2::new(-2000.0, 1500.0));
//! let road = AStarPlanner.plan(&terrain, from, to, &PlannerParams::default()).unwrap();
//! assert_eq!((road.points[0], *road.points.last().unwrap()), (from, to));
//! ```

mod astar;
mod bridge;
mod cost;
mod error;
mod expand;
mod frame;
mod gameplay;
mod graph;
mod ground;
mod lake;
mod lattice;
#[cfg(test)]
mod limits;
mod paged;
mod sequential;
mod smooth;
#[cfg(test)]
mod tests;
mod togo;
mod trail;

pub use astar::AStarPlanner;
pub use cost::{CostBreakdown, score_path};
pub use error::{End, MAX_SCORE_SAMPLES, MAX_WINDOW_BYTES, PlanError};
pub use gameplay::{Curve, GameplayParam, GameplayParams, Weight, WeightLink};
pub use graph::{SearchGraph, SearchState};
pub use sequential::SequentialPlanner;
pub use smooth::cardinal_spline;

pub use crate::terrain::ParamError;
use crate::terrain::Terrain;
use glam::DVec2;
use serde::{Deserialize, Serialize};

/// Which grid neighbours an A* state may move to (thesis fig. 6.6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum Connexity {
    /// The 4 axis neighbours.
    Four,
    /// Axis and diagonal neighbours.
    Eight,
    /// Also the knight's moves (±1, ±2) and (±2, ±1).
    #[default]
    Sixteen,
    /// Also (±1, ±3), (±3, ±1), (±2, ±3), (±3, ±2).
    ThirtyTwo,
}

impl Connexity {
    /// The moves in grid cells, sorted by bearing (counter-clockwise from east).
    pub fn moves(self) -> Vec<(i32, i32)> {
        let reach: &[(i32, i32)] = match self {
            Connexity::Four => &[(1, 0)],
            Connexity::Eight => &[(1, 0), (1, 1)],
            Connexity::Sixteen => &[(1, 0), (1, 1), (2, 1), (1, 2)],
            Connexity::ThirtyTwo => &[
                (1, 0),
                (1, 1),
                (2, 1),
                (1, 2),
                (3, 1),
                (1, 3),
                (3, 2),
                (2, 3),
            ],
        };
        let mut all = Vec::new();
        for &(a, b) in reach {
            for (x, y) in [(a, b), (-b, a), (-a, -b), (b, -a)] {
                if !all.contains(&(x, y)) {
                    all.push((x, y));
                }
                // Mirror images across the axes (the (2, 1) family has 8).
                if a != b && b != 0 && !all.contains(&(y, x)) {
                    all.push((y, x));
                }
            }
        }
        all.sort_by(|p, q| {
            let ap = (p.1 as f64)
                .atan2(p.0 as f64)
                .rem_euclid(std::f64::consts::TAU);
            let aq = (q.1 as f64)
                .atan2(q.0 as f64)
                .rem_euclid(std::f64::consts::TAU);
            ap.total_cmp(&aq)
        });
        all
    }
}

/// The weights of the cost function's parts (thesis §6.3); 0 turns a part off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct CostWeights {
    /// Schedule deviation (§6.3.1): ahead⁴, behind², per step length × factor.
    pub distance: f64,
    /// Slope `dist·(p1 + p2) + p3 + p4` (§6.3.2).
    pub slope: f64,
    /// Smoothness `a³ + b + c + d` (§6.3.3).
    pub smoothness: f64,
    /// Dither `4π − a − b − c − ⅔θ₀,₂ − ⅓θ₀,₃` (§6.3.4): rewards zigzags.
    pub dither: f64,
    /// Uncertainty (§6.3.5): the chance, 0..=1, that the sequential planner
    /// takes a random candidate instead of the best. A* ignores it.
    pub uncertainty: f64,
}

impl Default for CostWeights {
    /// The thesis' neutral setting (§8.2 "all sliders low"): distance, slope
    /// and smoothness on, dither and uncertainty off.
    fn default() -> Self {
        Self {
            distance: 1.0,
            slope: 1.0,
            smoothness: 1.0,
            dither: 0.0,
            uncertainty: 0.0,
        }
    }
}

/// Everything a planner needs besides the terrain and the end points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct PlannerParams {
    /// A* neighbourhood (thesis fig. 6.6).
    pub connexity: Connexity,
    /// The cost function's weights.
    pub weights: CostWeights,
    /// Desired road length over the direct distance, ≥ 1 (§6.3.1).
    pub distance_factor: f64,
    /// Segment length (sequential) and grid cell (A*), metres (40: ours).
    /// Ends closer than half of it are joined by a straight road.
    pub step: f64,
    /// Spacing of the terrain samples Bresenham walks between two points
    /// for p3 and p4 (§5.4, §6.3.2), metres, from `step / 16` to `step`;
    /// rounded so a step holds a whole number of them.
    pub sample: f64,
    /// Seed of the tie-breaker and of the uncertainty draws.
    pub seed: u64,
    /// Tie-breaker: each step's cost grows by up to this fraction (§6.2.1: 0.1 %).
    pub tie_breaker: f64,
    /// Whether a road may cross water on a bridge.
    pub bridges: bool,
    /// Longest bridge, metres.
    pub max_span: f64,
    /// Extra cost per metre of bridge (on top of the usual parts).
    pub bridge_cost: f64,
    /// Longest request (straight distance between the end points), metres.
    pub max_length: f64,
    /// Sharpest turn between two segments, radians (0 < t ≤ π).
    pub max_turn: f64,
    /// Sequential: candidates in the fan (thesis app. D: 5 to 15); a fan
    /// wider than 22.5° per gap between them gets more, one per 22.5°.
    pub candidates: usize,
    /// Sequential: the fan's spread at the start, degrees (§6.1: about 180).
    pub fan_start: f64,
    /// Sequential: the fan's spread at the end, degrees (§6.1: under 30).
    pub fan_end: f64,
    /// A*: the search window's margin around the straight line, as a
    /// fraction of the desired length (direct × factor).
    pub window: f64,
    /// A*: the window's smallest margin, metres.
    pub min_margin: f64,
    /// A*: most states expanded before giving up (1 M: about 3 s on one
    /// core here; a 19 km road on the reference terrain needs 0.53 M).
    pub max_expansions: usize,
    /// Compute [`PlannedRoad::smoothed`] (cardinal spline, §6.6).
    pub smoothing: bool,
    /// Cardinal-spline tension, 0 (Catmull-Rom) ..= 1 (straight segments).
    pub tension: f64,
    /// Spline points per segment.
    pub spline_points: usize,
    /// How far each way the costed ground is averaged (with weights falling
    /// linearly to 0 there), in steps: the road's own scale, not the
    /// terrain's micro-relief (0 ..= 16; 0: the raw terrain samples, the
    /// thesis' cost).
    pub ground_window: f64,
    /// Steepest grade the road is built to (rise over run): a segment of
    /// that ground climbing more needs cut and fill (highways take the
    /// earthworks' highway grade).
    pub max_grade: f64,
    /// Highest fill, metres: a segment needing more stands on a viaduct.
    pub max_fill: f64,
    /// Deepest cut, metres: a segment needing more runs in a tunnel.
    pub max_cut: f64,
    /// Cost per m² of cut and fill along a segment (its longitudinal
    /// section: the grade's excess split between a cut at the high end and
    /// a fill at the low end), times the slope weight.
    pub earthwork_cost: f64,
    /// Cost per metre of viaduct (where the fill would exceed `max_fill`),
    /// times the slope weight.
    pub viaduct_cost: f64,
    /// Cost per metre of tunnel (where the cut would exceed `max_cut`),
    /// times the slope weight.
    pub tunnel_cost: f64,
}

impl Default for PlannerParams {
    /// The thesis' numbers where it gives them (tie-breaker 0.1 % §6.2.1,
    /// fan ≈180° to <30° §6.1, 5–15 candidates app. D, 16-connexity
    /// fig. 6.6/6.7, factor 1 and uncertainty 0 "neutral" §8.2); the rest
    /// (step, sample, window, spans, caps) are ours: the thesis states none.
    fn default() -> Self {
        Self {
            connexity: Connexity::Sixteen,
            weights: CostWeights::default(),
            distance_factor: 1.0,
            step: 40.0,
            sample: 20.0,
            seed: 0,
            tie_breaker: 0.001,
            bridges: false,
            max_span: 300.0,
            bridge_cost: 1.0,
            max_length: 20_000.0,
            max_turn: std::f64::consts::FRAC_PI_2,
            candidates: 9,
            fan_start: 180.0,
            fan_end: 25.0,
            window: 0.1,
            min_margin: 200.0,
            max_expansions: 1_000_000,
            smoothing: true,
            tension: 0.5,
            spline_points: 4,
            ground_window: 1.5,
            max_grade: 0.12,
            max_fill: 12.0,
            max_cut: 15.0,
            earthwork_cost: 0.05,
            viaduct_cost: 1.0,
            tunnel_cost: 1.5,
        }
    }
}

impl PlannerParams {
    /// Checks every field's range; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        let w = &self.weights;
        for (field, v) in [
            ("weights.distance", w.distance),
            ("weights.slope", w.slope),
            ("weights.smoothness", w.smoothness),
            ("weights.dither", w.dither),
        ] {
            ParamError::check_range(field, v, 0.0, 1e6)?;
        }
        ParamError::check_range("weights.uncertainty", w.uncertainty, 0.0, 1.0)?;
        ParamError::check_range("distance_factor", self.distance_factor, 1.0, 10.0)?;
        ParamError::check_range("step", self.step, 1.0, 1000.0)?;
        ParamError::check_range(
            "sample",
            self.sample,
            (self.step / 16.0).max(0.5),
            self.step,
        )?;
        ParamError::check_range("tie_breaker", self.tie_breaker, 0.0, 0.01)?;
        ParamError::check_range("max_span", self.max_span, 0.0, 10_000.0)?;
        ParamError::check_range("bridge_cost", self.bridge_cost, 0.0, 1e6)?;
        ParamError::check_range("max_length", self.max_length, 1.0, 1e6)?;
        ParamError::check_range("max_turn", self.max_turn, 0.1, std::f64::consts::PI)?;
        ParamError::check_range("candidates", self.candidates as f64, 3.0, 64.0)?;
        ParamError::check_range("fan_start", self.fan_start, 1.0, 360.0)?;
        ParamError::check_range("fan_end", self.fan_end, 1.0, self.fan_start)?;
        ParamError::check_range("window", self.window, 0.0, 4.0)?;
        ParamError::check_range("min_margin", self.min_margin, 0.0, 100_000.0)?;
        ParamError::check_range("max_expansions", self.max_expansions as f64, 1.0, 1e9)?;
        ParamError::check_range("tension", self.tension, 0.0, 1.0)?;
        ParamError::check_range("spline_points", self.spline_points as f64, 1.0, 64.0)?;
        ParamError::check_range("ground_window", self.ground_window, 0.0, 16.0)?;
        ParamError::check_range("max_grade", self.max_grade, 0.005, 2.0)?;
        ParamError::check_range("max_fill", self.max_fill, 0.5, 200.0)?;
        ParamError::check_range("max_cut", self.max_cut, 0.5, 200.0)?;
        ParamError::check_range("earthwork_cost", self.earthwork_cost, 0.0, 1e6)?;
        ParamError::check_range("viaduct_cost", self.viaduct_cost, 0.0, 1e6)?;
        ParamError::check_range("tunnel_cost", self.tunnel_cost, 0.0, 1e6)?;
        Ok(())
    }
}

/// A planned road.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlannedRoad {
    /// The road's points; the first is `from` and the last `to`, exactly.
    pub points: Vec<DVec2>,
    /// The shared cost of `points` ([`score_path`]): `breakdown.total()`.
    pub cost: f64,
    /// The cost per part, weighted.
    pub breakdown: CostBreakdown,
    /// Bridges as point-index ranges `(a, b)`: the straight segment from
    /// `points[a]` to `points[b]` (b = a + 1) crosses water on a deck.
    pub bridges: Vec<(usize, usize)>,
    /// The cardinal spline through `points` for display (empty when
    /// smoothing is off); same end points.
    pub smoothed: Vec<DVec2>,
    /// Search work: states expanded (A*) or steps taken (sequential).
    pub work: usize,
    /// Sequential: steps where uncertainty picked a random candidate.
    pub random_picks: usize,
}

impl PlannedRoad {
    /// Total horizontal length, metres.
    pub fn length(&self) -> f64 {
        self.points.windows(2).map(|w| w[0].distance(w[1])).sum()
    }
}

/// A road planner: a road from `from` to `to` on `terrain`.
pub trait RoadPlanner {
    /// Plans one road; the same inputs give the same road, bit for bit.
    fn plan(
        &self,
        terrain: &Terrain,
        from: DVec2,
        to: DVec2,
        params: &PlannerParams,
    ) -> Result<PlannedRoad, PlanError>;
}

/// Checks a request (parameters, end points, length; cheap) and answers the
/// trivial one: `Some(road)` for ends closer than half a `step` (the
/// straight road, as the sequential planner's last step; `[from, from]`
/// for coincident ends), `None` when there is a road to plan.
pub(crate) fn check_request(
    terrain: &Terrain,
    from: DVec2,
    to: DVec2,
    params: &PlannerParams,
) -> Result<Option<PlannedRoad>, PlanError> {
    params.validate()?;
    let lake = terrain.params().lake_level;
    for (end, p) in [(End::From, from), (End::To, to)] {
        if !p.is_finite() {
            return Err(PlanError::NotFinite(end));
        }
        // Keep the search window (max_length plus margins) inside too.
        let reach = crate::num::WORLD_LIMIT_F64 - 4.0 * params.max_length.max(params.min_margin);
        if p.x.abs() > reach || p.y.abs() > reach {
            return Err(PlanError::OutsideWorld(end, p));
        }
        if terrain.height(p.x, p.y).is_nan() || terrain.height(p.x, p.y) < lake {
            return Err(PlanError::InWater(end, p));
        }
    }
    let length = from.distance(to);
    if length > params.max_length {
        return Err(PlanError::TooLong {
            length,
            max: params.max_length,
        });
    }
    if length >= params.step * 0.5 {
        return Ok(None);
    }
    straight(terrain, from, to, params).map(Some)
}

/// The straight road between ends closer than half a `step` (a grid cell
/// would be finer than the planners' own floor): dry, a bridge where it
/// crosses water and bridges are allowed (and it fits `max_span`), else
/// [`PlanError::NoRoad`].
fn straight(
    terrain: &Terrain,
    from: DVec2,
    to: DVec2,
    params: &PlannerParams,
) -> Result<PlannedRoad, PlanError> {
    let frame = frame::Frame::new(terrain, from, to, params);
    let (zf, zt) = (terrain.height(from.x, from.y), terrain.height(to.x, to.y));
    let bridges = if from == to || frame.dry(terrain, from, to, zf, zt) {
        Vec::new()
    } else if params.bridges && from.distance(to) <= params.max_span {
        vec![(0, 1)]
    } else {
        return Err(PlanError::NoRoad(
            "the straight road between ends closer than half a step crosses water",
        ));
    };
    Ok(finish(terrain, params, vec![from, to], bridges, 0))
}

/// Builds the [`PlannedRoad`] for a planner's points: scored by the shared
/// function, smoothed for display when asked.
pub(crate) fn finish(
    terrain: &Terrain,
    params: &PlannerParams,
    points: Vec<DVec2>,
    bridges: Vec<(usize, usize)>,
    work: usize,
) -> PlannedRoad {
    let breakdown = cost::score(terrain, &points, &bridges, params);
    finish_scored(breakdown, params, points, bridges, work)
}

/// [`finish`] for points already scored.
pub(crate) fn finish_scored(
    breakdown: CostBreakdown,
    params: &PlannerParams,
    points: Vec<DVec2>,
    bridges: Vec<(usize, usize)>,
    work: usize,
) -> PlannedRoad {
    let smoothed = if params.smoothing {
        smooth::spline(&points, params.tension, params.spline_points)
    } else {
        Vec::new()
    };
    PlannedRoad {
        cost: breakdown.total(),
        breakdown,
        points,
        bridges,
        smoothed,
        work,
        random_picks: 0,
    }
}
