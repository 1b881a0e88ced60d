//! A footprint's rays: walked samples, smoothed lengths, and the vertices
//! pulled in until every edge between them is dry.

use crate::terrain::Terrain;
use glam::DVec2;

/// One walked footprint ray: the samples at `reach · k / steps` for `k` in
/// `1 ..= samples` are dry and passed the step test; `walked` is the last.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ray {
    pub(super) dir: DVec2,
    pub(super) reach: f64,
    pub(super) steps: f64,
    pub(super) samples: u32,
    pub(super) walked: f64,
}

impl Ray {
    /// The distance of sample `k`, exactly as walked.
    pub(super) fn sample(&self, k: u32) -> f64 {
        self.reach * k as f64 / self.steps
    }

    /// The index of the last walked sample no farther than `len`, but
    /// not short of the first one reaching `core` (walked rays all reach it).
    /// At most `samples` steps.
    pub(super) fn sample_index_at_most(&self, len: f64, core: f64) -> u32 {
        let mut k = self.samples;
        while k > 1 && self.sample(k) > len && self.sample(k - 1) >= core {
            k -= 1;
        }
        k
    }
}

/// Most distance between two samples of a footprint edge that are tested
/// for water, metres.
pub(crate) const EDGE_STEP: f64 = 2.0;

/// Whether every sample of segment `a–b` (its ends and points at most
/// [`EDGE_STEP`] apart) is dry.
fn edge_is_dry(terrain: &Terrain, a: DVec2, b: DVec2, shore: f64) -> bool {
    let n = (a.distance(b) / EDGE_STEP).ceil().max(1.0);
    (0..=n as u32).all(|k| {
        let q = a.lerp(b, k as f64 / n);
        dry(terrain.height(q.x, q.y), shore)
    })
}

/// Pulls footprint vertices in along their rays (ground below `shore` is
/// wet) (to earlier walked
/// samples, never short of the core) until every edge between neighbouring
/// rays' ends `ends` (sample indices) is dry: of a wet edge's two ends the
/// farther one moves in by one sample (the one nearer the water on a tie).
/// The rays' order is kept, so the footprint stays star-shaped and simple.
/// `None` when an edge stays wet with both ends at the core.
pub(super) fn keep_edges_dry(
    terrain: &Terrain,
    c: DVec2,
    rays: &[Ray],
    ends: &mut [u32],
    core: f64,
    shore: f64,
) -> Option<()> {
    let n = rays.len();
    let at = |i: usize, ends: &[u32]| c + rays[i].dir * rays[i].sample(ends[i]);
    // An end may move in while the sample before it is walked and it stays
    // at or beyond the first sample that reaches the core (as walked rays do).
    let can_move = |i: usize, ends: &[u32]| ends[i] > 1 && rays[i].sample(ends[i] - 1) >= core;
    let mut todo: Vec<usize> = (0..n).rev().collect();
    let mut queued = vec![true; n];
    while let Some(i) = todo.pop() {
        queued[i] = false;
        let j = (i + 1) % n;
        if i == j {
            continue;
        }
        let (a, b) = (at(i, ends), at(j, ends));
        if edge_is_dry(terrain, a, b, shore) {
            continue;
        }
        let (da, db) = (rays[i].sample(ends[i]), rays[j].sample(ends[j]));
        let pick = match (can_move(i, ends), can_move(j, ends)) {
            (false, false) => return None,
            (true, false) => i,
            (false, true) => j,
            (true, true) if da > db => i,
            (true, true) if db > da => j,
            (true, true) => {
                let wet = (0..=8)
                    .map(|k| a.lerp(b, k as f64 / 8.0))
                    .position(|q| !dry(terrain.height(q.x, q.y), shore))
                    .unwrap_or(4);
                if wet <= 4 { i } else { j }
            }
        };
        ends[pick] -= 1;
        // The edges on both sides of the moved end are tested again.
        for e in [(pick + n - 1) % n, pick] {
            if !queued[e] {
                queued[e] = true;
                todo.push(e);
            }
        }
    }
    Some(())
}

/// Passes of the `[1, 2, 1] / 4` filter that round a footprint's corners.
const ROUNDING_PASSES: usize = 3;

/// Smoothed ray lengths, never longer than `limits` (so a ray never passes
/// where its walk stopped). First the largest lengths whose neighbours
/// differ by at most `slope` per ray, around the circle: a lone long ray
/// (spike) is cut down to its neighbours' level, a lone short ray (slit)
/// opens into a bay whose sides rise by `slope` per ray, and no two
/// neighbouring rays leave a long saw-tooth edge between them. Then a few
/// passes of a `[1, 2, 1] / 4` filter (still capped by `limits`) round the
/// corners that leaves. `O(n²)`, deterministic.
pub(crate) fn smooth_rays(limits: &[f64], slope: f64) -> Vec<f64> {
    let n = limits.len();
    let mut r: Vec<f64> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let d = i.abs_diff(j);
                    limits[j] + slope * d.min(n - d) as f64
                })
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    for _ in 0..ROUNDING_PASSES {
        r = (0..n)
            .map(|i| {
                let mean = (r[(i + n - 1) % n] + 2.0 * r[i] + r[(i + 1) % n]) / 4.0;
                mean.min(limits[i])
            })
            .collect();
    }
    r
}

/// Whether ground of height `h` is dry (a NaN height is not).
pub(super) fn dry(h: f64, shore: f64) -> bool {
    h >= shore
}
