//! The sequential planner (thesis §6.1): Löbker's variant of Sun et al.
//!
//! From the last point, `candidates` points one `step` away spread over a
//! fan centred on the direction to the end point. The fan narrows as the
//! road gets closer (from `fan_start` ≈ 180° to `fan_end` < 30°), so the
//! road cannot drift away, instead of moving the chosen point towards the
//! end as Sun et al. do (which spoils the choice, fig. 6.1). The cheapest
//! candidate under the shared cost function is kept; with probability
//! `weights.uncertainty` a random one instead (§6.3.5). Linear in distance.
//!
//! Ours adds what the thesis leaves to chance: a step keeps half a step
//! clear of the road so far (so dither, which rewards the sharpest turns,
//! zigzags instead of coiling over its own track); a road asked to be
//! longer than the direct line keeps its fan wide enough to keep that
//! schedule (else it runs ahead, then coils to lose length); a blocked road
//! looks all around, without dither, and a dead end steps back; a fan never
//! leaves more than 22.5° between candidates (it gets more than
//! `candidates` where needed).

use super::cost::{
    SegTerrain, Step, angle, deck, score_with, seg_terrain, step_cost, tie_hash, tie_key,
};
use super::frame::Frame;
use super::ground::GroundMap;
use super::trail::Trail;
use super::{
    CostWeights, PlanError, PlannedRoad, PlannerParams, RoadPlanner, check_request, finish_scored,
};
use crate::num::FastHash as Fast;
use crate::terrain::Terrain;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use std::collections::HashSet;

/// Beyond the half-angle a road needs to keep its schedule, what its fan
/// keeps for turning (radians, 20°).
const KEEP_SCHEDULE_ROOM: f64 = 20.0 * std::f64::consts::PI / 180.0;

/// Widest angle between neighbouring candidates of the fan (radians,
/// 22.5°: the default's 9 across 180°). A wider fan of fewer candidates
/// offers sharp turns only: three across 180° sent a road sideways,
/// zigzagging, to 8.7 times the direct line.
const MAX_GAP: f64 = 22.5 * std::f64::consts::PI / 180.0;

/// The sequential planner (thesis §6.1, "SequentialPlanner").
#[derive(Clone, Copy, Debug, Default)]
pub struct SequentialPlanner;

/// One candidate for the next point.
#[derive(Clone, Copy)]
struct Candidate {
    q: DVec2,
    /// Its raw height (for the lake test) and its costed ground.
    zq: f64,
    gq: f64,
    seg: SegTerrain,
    bridge: bool,
    cost: f64,
}

impl RoadPlanner for SequentialPlanner {
    fn plan(
        &self,
        terrain: &Terrain,
        from: DVec2,
        to: DVec2,
        params: &PlannerParams,
    ) -> Result<PlannedRoad, PlanError> {
        if let Some(road) = check_request(terrain, from, to, params)? {
            return Ok(road);
        }
        let frame = Frame::new(terrain, from, to, params);
        let key = tie_key(params.seed);
        let mut rng = ChaCha8Rng::seed_from_u64(params.seed);
        rng.set_stream(1);
        let mut ground = GroundMap::new(terrain, &frame, params);
        let dither = params.weights.dither > 0.0;
        let step = params.step;
        let mut points = vec![from];
        let mut bridges = Vec::new();
        let mut dirs: Vec<DVec2> = Vec::new();
        let (mut length, mut prev_grade, mut random_picks) = (0.0, None, 0);
        let mut zp = terrain.height(from.x, from.y);
        let mut gp = ground.at(from);
        // Per point: road length, grade in, height and ground (to step back).
        let mut marks = vec![(length, prev_grade, zp, gp)];
        let max_steps = (params.distance_factor * frame.direct * 16.0 / step).ceil() as usize + 256;
        let mut cands: Vec<Candidate> = Vec::with_capacity(params.candidates);
        let mut widen = false;
        // Cells (half a step) the road has been through: never again, so it
        // cannot pace back and forth in front of a lake.
        let half = step * 0.5;
        let visit_key = |q: DVec2| {
            let d = q - from;
            ((d.x / half).floor() as i64, (d.y / half).floor() as i64)
        };
        let mut visited: HashSet<(i64, i64), Fast> = HashSet::default();
        visited.insert(visit_key(from));
        // The road so far: a step keeps half a step clear of it.
        let mut trail = Trail::new(from, step);
        let unblock = CostWeights {
            dither: 0.0,
            ..params.weights
        };
        for _ in 0..max_steps {
            let p = *points.last().expect("never empty");
            let rem = to - p;
            let last = rem.length() <= step;
            let centre = rem.y.atan2(rem.x);
            // How far along the road is (§6.1: the fan narrows as the road
            // approaches the end): by built length, so a longer road may
            // wander; and by the distance left, so a road turned away from
            // the end (round a lake) opens its fan again instead of pacing
            // along the shore with a narrow one (relaxed by the factor's
            // excess: a road asked to be longer wanders as before).
            let built = length / (params.distance_factor * frame.direct).max(1e-9);
            let near = 1.0 - rem.length() / frame.direct.max(1e-9) + params.distance_factor - 1.0;
            let progress = built.min(near).clamp(0.0, 1.0);
            let mut spread =
                (params.fan_start + (params.fan_end - params.fan_start) * progress).to_radians();
            // A road asked to be longer must be able to keep its schedule:
            // the length still wanted over the distance left needs a fan at
            // least that wide (1/cos of its half-angle), with room to turn,
            // or it runs ahead and can only coil to lose length.
            let wanted = params.distance_factor * frame.direct - length;
            if wanted > rem.length() {
                let need = (rem.length() / wanted).acos() + KEEP_SCHEDULE_ROOM;
                spread = spread.max(2.0 * need).min(params.fan_start.to_radians());
            }
            // At most `MAX_GAP` between candidates: a wide fan gets more.
            let mut k = if last {
                1
            } else {
                params
                    .candidates
                    .max((spread / MAX_GAP - 1e-9).ceil() as usize + 1)
            };
            if widen {
                // Blocked: look all around (a full circle, its ends apart).
                spread = std::f64::consts::TAU * (1.0 - 1.0 / (4 * k) as f64);
                k *= 4;
            }
            trail.gather(&points, step + half);
            // Blocked, the road looks for a way on, not for a sharp turn.
            let weights = if widen { &unblock } else { &params.weights };
            cands.clear();
            for c in 0..k {
                let q = if last {
                    to
                } else {
                    let a = centre + spread * (c as f64 / (k - 1) as f64 - 0.5);
                    p + DVec2::new(a.cos(), a.sin()) * step
                };
                let d = q - p;
                let back = |n: usize| (dirs.len() >= n).then(|| angle(d, dirs[dirs.len() - n]));
                let turn = back(1);
                let limit = if widen {
                    0.8 * std::f64::consts::PI
                } else {
                    params.max_turn
                };
                if !last
                    && (turn.is_some_and(|t| t > limit)
                        || visited.contains(&visit_key(q))
                        || trail.near_gathered(&points, q, half))
                {
                    continue;
                }
                let zq = terrain.height(q.x, q.y);
                let gq = ground.at(q);
                let mut seg = seg_terrain(&frame, params, p, q, gp, gq, &mut |a, b| {
                    ground.ground(a, b)
                });
                // The lake test costs most: without bridges it waits until a
                // candidate is about to be taken (`dry` is then "unknown").
                seg.dry = !params.bridges || frame.dry(terrain, p, q, zp, zq);
                let mut bridge = false;
                let (mut q, mut zq, mut gq) = (q, zq, gq);
                if !seg.dry {
                    if !params.bridges {
                        continue;
                    }
                    // Extend along the same bearing to the first dry point.
                    let Some((bq, bz)) = landing(terrain, &frame, p, d, params) else {
                        continue;
                    };
                    if trail.near(&points, bq, half) {
                        continue;
                    }
                    (q, zq, gq, bridge) = (bq, bz, ground.at(bq), true);
                    seg = deck(p, q, gp, gq);
                }
                let step = Step {
                    seg,
                    prev_grade,
                    turn,
                    // The older angles matter to dither alone (acos is dear).
                    th02: dither.then(|| back(2)).flatten(),
                    th03: dither.then(|| back(3)).flatten(),
                    progress: frame.progress(q),
                    length: length + seg.len,
                    bridge,
                    tie: tie_hash(frame.to_cell(p), frame.to_cell(q), key),
                };
                let cost = step_cost(weights, params, frame.direct, &step).total();
                cands.push(Candidate {
                    q,
                    zq,
                    gq,
                    seg,
                    bridge,
                    cost,
                });
            }
            if cands.is_empty() && !last && !widen {
                widen = true;
                continue;
            }
            let widened = widen;
            widen = false;
            if cands.is_empty() {
                // A dead end (a lake ahead): step back; the dropped point's
                // cell stays visited, so the road tries elsewhere.
                (length, prev_grade, zp, gp) =
                    step_back(&mut points, &mut dirs, &mut trail, &mut marks, &mut bridges)?;
                continue;
            }
            let draw = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let random = draw < params.weights.uncertainty;
            let mut pick = None;
            if random {
                let r = rng.next_u64();
                // The drawn candidate, or the next dry one after it.
                for k in 0..cands.len() {
                    let i = (r as usize + k) % cands.len();
                    if lazily_dry(terrain, &frame, p, zp, &cands[i], params) {
                        pick = Some(i);
                        break;
                    }
                }
                random_picks += 1;
            } else {
                let mut order: Vec<usize> = (0..cands.len()).collect();
                order.sort_by(|&a, &b| cands[a].cost.total_cmp(&cands[b].cost).then(a.cmp(&b)));
                pick = order
                    .into_iter()
                    .find(|&i| lazily_dry(terrain, &frame, p, zp, &cands[i], params));
            }
            let Some(pick) = pick else {
                if !last && !widened {
                    widen = true;
                    continue;
                }
                (length, prev_grade, zp, gp) =
                    step_back(&mut points, &mut dirs, &mut trail, &mut marks, &mut bridges)?;
                continue;
            };
            let c = cands[pick];
            if c.bridge {
                bridges.push((points.len() - 1, points.len()));
            }
            // A bridge may land past the end point's distance: stop there.
            let done = last || (c.q == to);
            dirs.push(c.q - p);
            visited.insert(visit_key(c.q));
            points.push(c.q);
            trail.push(&points, points.len() - 2);
            length += c.seg.len;
            prev_grade = Some(c.seg.grade);
            (zp, gp) = (c.zq, c.gq);
            marks.push((length, prev_grade, zp, gp));
            if done {
                let n = points.len();
                // Scored on the ground computed on the way.
                let breakdown = score_with(&mut ground, &frame, &points, &bridges, params);
                let mut road = finish_scored(breakdown, params, points, bridges, n - 1);
                road.random_picks = random_picks;
                return Ok(road);
            }
        }
        Err(PlanError::TooMuchWork(max_steps))
    }
}

/// Where a bridge from `p` along `d` lands: the first dry point within
/// `max_span`, probed every metre.
fn landing(
    terrain: &Terrain,
    frame: &Frame,
    p: DVec2,
    d: DVec2,
    params: &PlannerParams,
) -> Option<(DVec2, f64)> {
    let u = d.normalize_or_zero();
    let start = d.length();
    let mut s = start;
    while s <= params.max_span {
        let q = p + u * s;
        let z = terrain.height(q.x, q.y);
        if z >= frame.lake {
            return Some((q, z));
        }
        s += 1.0;
    }
    None
}

/// Whether a candidate's segment is dry (checked now if it was left for later).
fn lazily_dry(
    terrain: &Terrain,
    frame: &Frame,
    p: DVec2,
    zp: f64,
    c: &Candidate,
    params: &PlannerParams,
) -> bool {
    c.bridge || params.bridges || frame.dry(terrain, p, c.q, zp, c.zq)
}

/// Backs out of a dead end: drops the last point (its cell stays visited,
/// so the road tries elsewhere) and returns the state before it; an error
/// when only the start is left.
fn step_back<T: Copy>(
    points: &mut Vec<DVec2>,
    dirs: &mut Vec<DVec2>,
    trail: &mut Trail,
    marks: &mut Vec<T>,
    bridges: &mut Vec<(usize, usize)>,
) -> Result<T, PlanError> {
    if points.len() <= 1 {
        return Err(PlanError::NoRoad(
            "every way from the start is wet or blocked",
        ));
    }
    trail.pop(points, points.len() - 2);
    points.pop();
    dirs.pop();
    marks.pop();
    if bridges.last().is_some_and(|&(_, b)| b == points.len()) {
        bridges.pop();
    }
    Ok(*marks.last().expect("the start's"))
}
