//! The cost function (thesis §6.3), one step at a time, and [`score_path`],
//! which scores any road with it: both planners' results are comparable.
//!
//! A road `P₀ … Pₙ` costs the sum of its steps; step `k` adds segment
//! `l₀ = Pₖ₋₁Pₖ` after `l₁, l₂, l₃` (the earlier segments). Its parts:
//!
//! - **distance** (§6.3.1): `dev = 100·(proj/direct − length/desired)` in
//!   percent; `dev⁴ / (len·factor)` ahead of schedule, `dev² / (len·factor)`
//!   behind (`len` the segment's length in metres).
//! - **slope** (§6.3.2): `len·(p1 + p2) + p3 + p4`, p1 the segment's grade,
//!   p2 its change from the previous segment's, p3 and p4 the mean and
//!   largest grade between the terrain samples Bresenham finds on the way;
//!   all on the ground averaged over `ground_window` steps (`ground.rs`;
//!   0: the raw samples).
//! - **earthworks**: the slope weight times what building the segment under
//!   `max_grade` takes (cut and fill, viaducts, tunnels: `ground::works`).
//! - **smoothness** (§6.3.3): the thesis charges `a³ + b + c + d` per step,
//!   `a` the newest turn and `b, c, d` the three before; summed over a road,
//!   every turn `θ` thus costs `θ³ + 3θ`. We charge that at the turn itself
//!   (only the last three turns of a road differ from the literal window,
//!   by their echoes), so a step's smoothness depends on the two segments
//!   meeting there alone and (cell, incoming direction) is an exact A* state.
//! - **dither** (§6.3.4): `(π−a) + (π−b) + (π−c) + ⅔(π−θ₀,₂) + ⅓(π−θ₀,₃)`,
//!   with the same regrouping: `3(π−a) + ⅔(π−θ₀,₂) + ⅓(π−θ₀,₃)` per turn
//!   (`θ₀,ₓ` the angle between `l₀` and `lₓ`; terms whose segments do not
//!   exist yet are left out).
//! - **bridge**: `bridge_cost · len` on a bridge (whose deck is straight, so
//!   p3 = p4 = p1 there).
//! - **tie**: the weighted sum above times `tie_breaker · h`, `h ∈ [0, 1)` a
//!   hash of the segment's grid cells and the seed (§6.2.1: about 0.1 %).

use super::frame::{Frame, bresenham_inner};
use super::ground::{GroundMap, works};
use super::{CostWeights, MAX_SCORE_SAMPLES, PlanError, PlannerParams};
use crate::terrain::Terrain;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// A road's cost per part, each already weighted; [`Self::total`] is the cost.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CostBreakdown {
    /// Schedule deviation (§6.3.1).
    pub distance: f64,
    /// Slope (§6.3.2).
    pub slope: f64,
    /// Cut and fill, viaducts and tunnels under the grade limit.
    pub earthworks: f64,
    /// Smoothness (§6.3.3).
    pub smoothness: f64,
    /// Dither (§6.3.4).
    pub dither: f64,
    /// Bridges.
    pub bridge: f64,
    /// Tie-breaker (§6.2.1).
    pub tie: f64,
}

impl CostBreakdown {
    /// The sum of the parts.
    #[inline]
    pub fn total(&self) -> f64 {
        self.distance
            + self.slope
            + self.earthworks
            + self.smoothness
            + self.dither
            + self.bridge
            + self.tie
    }

    /// Adds another breakdown part by part.
    #[inline]
    pub fn add(&mut self, o: &CostBreakdown) {
        self.distance += o.distance;
        self.slope += o.slope;
        self.earthworks += o.earthworks;
        self.smoothness += o.smoothness;
        self.dither += o.dither;
        self.bridge += o.bridge;
        self.tie += o.tie;
    }
}

/// What the terrain says about one segment.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SegTerrain {
    /// Horizontal length, metres.
    pub len: f64,
    /// Signed grade `Δz / len`.
    pub grade: f64,
    /// Mean absolute grade between the Bresenham samples.
    pub p3: f64,
    /// Largest absolute grade between them.
    pub p4: f64,
    /// What building it under the grade limit takes, unweighted
    /// (`ground::works`; none on a deck).
    pub works: f64,
    /// Whether the ground along it stays above the lake level (where a
    /// planner has checked; `true` otherwise).
    pub dry: bool,
}

/// The terrain part of segment `p → q` (ground heights `zp`, `zq`): the
/// lattice points Bresenham finds between them, heights from `height(a, b)`.
#[inline]
pub(crate) fn seg_terrain(
    frame: &Frame,
    params: &PlannerParams,
    p: DVec2,
    q: DVec2,
    zp: f64,
    zq: f64,
    height: &mut impl FnMut(i64, i64) -> f64,
) -> SegTerrain {
    let len = p.distance(q);
    let grade = if len > 0.0 { (zq - zp) / len } else { 0.0 };
    let (mut prev, mut zprev) = (p, zp);
    let (mut sum, mut max, mut count) = (0.0f64, 0.0f64, 0u32);
    let mut visit = |pt: DVec2, z: f64| {
        let d = prev.distance(pt);
        let g = if d > 0.0 { (z - zprev).abs() / d } else { 0.0 };
        sum += g;
        max = max.max(g);
        count += 1;
        prev = pt;
        zprev = z;
    };
    bresenham_inner(frame.to_lattice(p), frame.to_lattice(q), |a, b| {
        visit(frame.lattice(a, b), height(a, b))
    });
    visit(q, zq);
    SegTerrain {
        len,
        grade,
        p3: sum / count as f64,
        p4: max,
        works: works(zq - zp, len, params),
        dry: true,
    }
}

/// A bridge deck's terrain part: straight, so every grade is the segment's.
#[inline]
pub(crate) fn deck(p: DVec2, q: DVec2, zp: f64, zq: f64) -> SegTerrain {
    let len = p.distance(q);
    let grade = if len > 0.0 { (zq - zp) / len } else { 0.0 };
    SegTerrain {
        len,
        grade,
        p3: grade.abs(),
        p4: grade.abs(),
        works: 0.0,
        dry: true,
    }
}

/// The unsigned angle between two directions, radians in `[0, π]`.
#[inline]
pub(crate) fn angle(a: DVec2, b: DVec2) -> f64 {
    let d = a.length() * b.length();
    if d > 0.0 {
        (a.dot(b) / d).clamp(-1.0, 1.0).acos()
    } else {
        0.0
    }
}

/// Smoothness of one turn `θ` (see the module docs): `θ³ + 3θ`.
#[inline]
pub(crate) fn smooth_turn(theta: f64) -> f64 {
    theta * theta * theta + 3.0 * theta
}

/// Dither of one turn: `3(π − a) + ⅔(π − θ₀,₂) + ⅓(π − θ₀,₃)`.
#[inline]
pub(crate) fn dither_turn(a: f64, th02: Option<f64>, th03: Option<f64>) -> f64 {
    3.0 * (PI - a)
        + th02.map_or(0.0, |t| 2.0 / 3.0 * (PI - t))
        + th03.map_or(0.0, |t| 1.0 / 3.0 * (PI - t))
}

/// The schedule deviation's cost (§6.3.1) after a segment of `len` metres
/// that ends at `progress` (fraction of direct) with `length` metres built.
#[inline]
pub(crate) fn schedule(progress: f64, length: f64, len: f64, direct: f64, factor: f64) -> f64 {
    if direct <= 0.0 || len <= 0.0 {
        return 0.0;
    }
    let dev = 100.0 * (progress - length / (direct * factor));
    let d2 = dev * dev;
    (if dev > 0.0 { d2 * d2 } else { d2 }) / (len * factor)
}

/// Everything one step's cost needs beyond the weights.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub seg: SegTerrain,
    /// The previous segment's grade (none on the first step).
    pub prev_grade: Option<f64>,
    /// The turn from the previous segment, radians (none on the first step).
    pub turn: Option<f64>,
    /// Angles between this segment and the ones two and three back.
    pub th02: Option<f64>,
    pub th03: Option<f64>,
    /// Progress (fraction of direct) at the segment's end.
    pub progress: f64,
    /// Road length including this segment.
    pub length: f64,
    pub bridge: bool,
    /// Tie-breaker hash in `[0, 1)`.
    pub tie: f64,
}

/// One step's weighted cost.
#[inline]
pub(crate) fn step_cost(
    w: &CostWeights,
    params: &PlannerParams,
    direct: f64,
    s: &Step,
) -> CostBreakdown {
    let seg = &s.seg;
    let p2 = s.prev_grade.map_or(0.0, |g| (seg.grade - g).abs());
    let mut c = CostBreakdown {
        distance: w.distance
            * schedule(
                s.progress,
                s.length,
                seg.len,
                direct,
                params.distance_factor,
            ),
        slope: w.slope * (seg.len * (seg.grade.abs() + p2) + seg.p3 + seg.p4),
        earthworks: w.slope * seg.works,
        smoothness: s.turn.map_or(0.0, |a| w.smoothness * smooth_turn(a)),
        dither: match s.turn {
            Some(a) if w.dither > 0.0 => w.dither * dither_turn(a, s.th02, s.th03),
            _ => 0.0,
        },
        bridge: if s.bridge {
            params.bridge_cost * seg.len
        } else {
            0.0
        },
        tie: 0.0,
    };
    c.tie = c.total() * params.tie_breaker * s.tie;
    c
}

/// The tie-breaker's key for a seed (the first draw of its ChaCha8 stream).
pub(crate) fn tie_key(seed: u64) -> u64 {
    ChaCha8Rng::seed_from_u64(seed).next_u64()
}

/// The tie-breaker hash of the segment between two grid cells, in `[0, 1)`.
#[inline]
pub(crate) fn tie_hash(a: (i64, i64), b: (i64, i64), key: u64) -> f64 {
    let x = a.0.wrapping_mul(0x1_0000_01b3) ^ a.1;
    let y = b.0.wrapping_mul(0x1_0000_01b3) ^ b.1;
    crate::num::hash_unit(x, y, key)
}

/// Scores a road with the shared cost function. `points` run from the
/// request's start to its end; `bridges` are the point-index ranges that
/// cross water on a deck (as in [`super::PlannedRoad::bridges`]).
///
/// Checked: the parameters ([`PlannerParams::validate`]), every point
/// finite and inside the world ([`PlanError::PathPoint`]), and the terrain
/// samples the segments' walks take, at most [`MAX_SCORE_SAMPLES`]
/// ([`PlanError::PathTooFine`]).
pub fn score_path(
    terrain: &Terrain,
    points: &[DVec2],
    bridges: &[(usize, usize)],
    params: &PlannerParams,
) -> Result<CostBreakdown, PlanError> {
    params.validate()?;
    let limit = crate::num::WORLD_LIMIT_F64;
    if let Some(k) = points
        .iter()
        .position(|p| !(p.x.abs() <= limit && p.y.abs() <= limit))
    {
        return Err(PlanError::PathPoint(k));
    }
    let (Some(&from), Some(&to)) = (points.first(), points.last()) else {
        return Ok(CostBreakdown::default());
    };
    // A segment's walk visits at most its length over the sample spacing,
    // plus one, lattice points.
    let frame = Frame::new(terrain, from, to, params);
    let spacing = frame.cell / frame.sub as f64;
    let samples: f64 = points
        .windows(2)
        .map(|w| w[0].distance(w[1]) / spacing + 2.0)
        .sum();
    if samples > MAX_SCORE_SAMPLES as f64 {
        return Err(PlanError::PathTooFine {
            samples: samples as u64,
            max: MAX_SCORE_SAMPLES,
        });
    }
    Ok(score_in(terrain, &frame, points, bridges, params))
}

/// [`score_path`] unchecked, for a planner's own road.
pub(crate) fn score(
    terrain: &Terrain,
    points: &[DVec2],
    bridges: &[(usize, usize)],
    params: &PlannerParams,
) -> CostBreakdown {
    let (Some(&from), Some(&to)) = (points.first(), points.last()) else {
        return CostBreakdown::default();
    };
    let frame = Frame::new(terrain, from, to, params);
    score_in(terrain, &frame, points, bridges, params)
}

/// Scores `points` (at least one) on the frame of their ends.
fn score_in(
    terrain: &Terrain,
    frame: &Frame,
    points: &[DVec2],
    bridges: &[(usize, usize)],
    params: &PlannerParams,
) -> CostBreakdown {
    let mut map = GroundMap::new(terrain, frame, params);
    score_with(&mut map, frame, points, bridges, params)
}

/// [`score_in`] reading the ground from `map` (a planner's own, on the
/// same frame: what it has computed already is not computed again).
pub(crate) fn score_with(
    map: &mut GroundMap,
    frame: &Frame,
    points: &[DVec2],
    bridges: &[(usize, usize)],
    params: &PlannerParams,
) -> CostBreakdown {
    let mut total = CostBreakdown::default();
    let from = points[0];
    // Segment `k` (ending at point `k`) is a deck when some range `(a, b)`
    // has `a < k ≤ b`: a running count over the ranges' starts and ends.
    let mut open = vec![0i64; points.len() + 1];
    for &(a, b) in bridges {
        let (a, b) = (a.saturating_add(1), b.min(points.len() - 1));
        if a <= b {
            open[a] += 1;
            open[b + 1] -= 1;
        }
    }
    let key = tie_key(params.seed);
    let dither = params.weights.dither > 0.0;
    let mut dirs: Vec<DVec2> = Vec::with_capacity(points.len());
    let (mut length, mut prev_grade, mut decks) = (0.0, None, open[0]);
    let mut zp = map.at(from);
    for k in 1..points.len() {
        let (p, q) = (points[k - 1], points[k]);
        let zq = map.at(q);
        decks += open[k];
        let bridge = decks > 0;
        let seg = if bridge {
            deck(p, q, zp, zq)
        } else {
            seg_terrain(frame, params, p, q, zp, zq, &mut |a, b| map.ground(a, b))
        };
        let d = q - p;
        let back = |n: usize| (dirs.len() >= n).then(|| angle(d, dirs[dirs.len() - n]));
        length += seg.len;
        let step = Step {
            seg,
            prev_grade,
            turn: back(1),
            // The older angles matter to dither alone (acos is dear).
            th02: dither.then(|| back(2)).flatten(),
            th03: dither.then(|| back(3)).flatten(),
            progress: frame.progress(q),
            length,
            bridge,
            tie: tie_hash(frame.to_cell(p), frame.to_cell(q), key),
        };
        total.add(&step_cost(&params.weights, params, frame.direct, &step));
        dirs.push(d);
        prev_grade = Some(seg.grade);
        zp = zq;
    }
    total
}
