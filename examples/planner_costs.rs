//! What the planners' slope weight buys: the default highways of the
//! reference square planned with `highways.weights.slope` ×1 and ×10, and
//! for each the ground they would have to be built on. Also the ground under
//! the square's cities (what the settlements' site choice steers).
//!
//! Along every highway, sampled every 5 m of its length:
//! - the grade of the ground smoothed over 100 m along the road (a moving
//!   average of the natural ground, ±50 m): mean and p95;
//! - an earthwork proxy: the profile capped at the highway grade (8 %) that
//!   is the midpoint of the ground's two 8 %-Lipschitz envelopes
//!   (`min_j g_j + G|s − s_j|` and `max_j g_j − G|s − s_j|`); its cut + fill
//!   under a 10 m carriageway (no side slopes), m³ per km; and the stretches
//!   where its fill exceeds 12 m (bridges) or its cut 15 m (tunnels).
//!
//! - the same at the planner's scale (its 100 m cells): the ground averaged
//!   over 200 m squares, every 100 m: its climb per km, and its 8 % profile's
//!   works and structures. (On the reference terrain, rough at every scale,
//!   the 5 m figures are dominated by relief finer than any route choice.)
//!
//! - the roads scored by the planner's own cost parts (slope, earthworks;
//!   unweighted) on its averaged ground.
//!
//! Under the cities, on a 50 m grid inside every footprint: the median
//! ground slope measured over 10 m and over 400 m (central differences
//! that far apart).
//!
//! `cargo run --release --no-default-features --example planner_costs`
//! (options: `--min X,Y --max X,Y`, metres; default the reference square
//! (0, −6000)–(24000, 18000)). Core only: no Bevy.

use bevy_relief::network::Road;
use bevy_relief::roads::planner::score_path;
use bevy_relief::terrain::Terrain;
use bevy_relief::world::{RoadSystem, RoadSystemParams};
use glam::DVec2;
use std::process::ExitCode;
use std::time::Instant;

/// Spacing of the samples along a road, metres.
const DS: f64 = 5.0;
/// Length the ground is smoothed over along a road, metres.
const SMOOTH: f64 = 100.0;
/// Highway grade limit, fill and cut limits, carriageway width.
const GRADE: f64 = 0.08;
const MAX_FILL: f64 = 12.0;
const MAX_CUT: f64 = 15.0;
const WIDTH: f64 = 10.0;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("planner_costs: {e}");
            ExitCode::from(2)
        }
    }
}

/// Parses `X,Y`.
fn point(s: &str) -> Result<DVec2, String> {
    let (x, y) = s.split_once(',').ok_or(format!("{s}: expected X,Y"))?;
    let f = |v: &str| v.trim().parse::<f64>().map_err(|e| format!("{s}: {e}"));
    Ok(DVec2::new(f(x)?, f(y)?))
}

fn run() -> Result<(), String> {
    let (mut min, mut max) = (DVec2::new(0.0, -6000.0), DVec2::new(24000.0, 18000.0));
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().ok_or(format!("{a}: missing value"));
        match a.as_str() {
            "--min" => min = point(value()?)?,
            "--max" => max = point(value()?)?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    let terrain = Terrain::default();
    println!(
        "highways of ({}, {})–({}, {}), ground sampled every {DS} m",
        min.x, min.y, max.x, max.y
    );
    for factor in [1.0, 10.0] {
        let mut params = RoadSystemParams::default();
        params.highways.weights.slope *= factor;
        let system = RoadSystem::new(params).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let roads = system
            .highways_in(&terrain, min, max)
            .map_err(|e| e.to_string())?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        let f = Figures::of(&terrain, &roads);
        // What the planner itself sees: the roads scored on its ground (the
        // terrain averaged over its window), unweighted, at x1's weights.
        let mut own = RoadSystemParams::default().highways;
        own.max_grade = GRADE;
        let (mut climb, mut works) = (0.0, 0.0);
        for r in &roads {
            if let Ok(b) = score_path(&terrain, &r.points, &[], &own) {
                climb += b.slope / own.weights.slope;
                works += b.earthworks / own.weights.slope;
            }
        }
        println!(
            "slope weight x{factor:<2}: {} highways, {:.1} km; smoothed grade mean {:.1} %, p95 {:.1} %; \
             8 % profile: {:.0} m³/km cut+fill, {} bridges, {} tunnels ({:.0} ms)",
            roads.len(),
            f.length / 1e3,
            100.0 * f.mean,
            100.0 * f.p95,
            f.volume / (f.length / 1e3).max(1e-9),
            f.bridges,
            f.tunnels,
            ms
        );
        println!(
            "    on the planner's own ground: slope part {:.1} per km, earthworks part {:.1} per km",
            climb / f.length * 1e3,
            works / f.length * 1e3
        );
        println!(
            "    at the planner's scale (ground averaged over 200 m squares, every 100 m): climb {:.1} m/km; \
             8 % profile {:.0} m³/km, {} bridges, {} tunnels",
            f.climb / f.length * 1e3,
            f.coarse_volume / (f.length / 1e3).max(1e-9),
            f.coarse_bridges,
            f.coarse_tunnels
        );
    }
    let system = RoadSystem::new(RoadSystemParams::default()).map_err(|e| e.to_string())?;
    let cities = system.settlements().cities_in(&terrain, min, max);
    let (mut fine, mut coarse) = (Vec::new(), Vec::new());
    for c in &cities {
        let (lo, hi) = c.bounds();
        let (nx, ny) = (((hi.x - lo.x) / 50.0) as i64, ((hi.y - lo.y) / 50.0) as i64);
        for iy in 0..=ny {
            for ix in 0..=nx {
                let p = lo + DVec2::new(ix as f64, iy as f64) * 50.0;
                if c.contains(p) {
                    fine.push(slope(&terrain, p, 10.0));
                    coarse.push(slope(&terrain, p, 400.0));
                }
            }
        }
    }
    println!(
        "{} cities, {} ground samples: median slope over 10 m {:.1} %, over 400 m {:.1} %",
        cities.len(),
        fine.len(),
        100.0 * quantile(&mut fine, 0.5),
        100.0 * quantile(&mut coarse, 0.5)
    );
    Ok(())
}

/// The ground's slope at `p` over a baseline `l` (central differences).
fn slope(terrain: &Terrain, p: DVec2, l: f64) -> f64 {
    let h = |dx: f64, dy: f64| terrain.height(p.x + dx, p.y + dy);
    let e = l / 2.0;
    DVec2::new(h(e, 0.0) - h(-e, 0.0), h(0.0, e) - h(0.0, -e)).length() / l
}

/// The mean ground over a square of side `side` centred on `p` (11 × 11 taps).
fn square_mean(terrain: &Terrain, p: DVec2, side: f64) -> f64 {
    let mut sum = 0.0;
    for iy in -5..=5 {
        for ix in -5..=5 {
            let d = DVec2::new(ix as f64, iy as f64) * (side / 10.0);
            sum += terrain.height(p.x + d.x, p.y + d.y);
        }
    }
    sum / 121.0
}

/// The `q` quantile (0 of none).
fn quantile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// The figures of a set of roads.
#[derive(Default)]
struct Figures {
    length: f64,
    mean: f64,
    p95: f64,
    volume: f64,
    bridges: usize,
    tunnels: usize,
    climb: f64,
    coarse_volume: f64,
    coarse_bridges: usize,
    coarse_tunnels: usize,
}

impl Figures {
    fn of(terrain: &Terrain, roads: &[Road]) -> Self {
        let mut f = Figures::default();
        let mut grades = Vec::new();
        for r in roads {
            let ground: Vec<f64> = resample(&r.points)
                .iter()
                .map(|p| terrain.height(p.x, p.y))
                .collect();
            f.length += r.length();
            // The ground smoothed along the road, and its grades.
            let half = (SMOOTH / DS / 2.0).round() as usize;
            let smooth = moving_average(&ground, half);
            grades.extend(smooth.windows(2).map(|w| (w[1] - w[0]).abs() / DS));
            // At the planner's scale: the ground averaged over 200 m
            // squares every 100 m, its climb and its 8 % profile's works.
            let wide: Vec<f64> = resample(&r.points)
                .iter()
                .step_by(20)
                .map(|p| square_mean(terrain, *p, 200.0))
                .collect();
            f.climb += wide.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>();
            let profile = capped(&wide, GRADE * 100.0);
            let (mut fill_run, mut cut_run) = (false, false);
            for (g, z) in wide.iter().zip(&profile) {
                f.coarse_volume += (g - z).abs() * 100.0 * WIDTH;
                let (fill, cut) = (z - g > MAX_FILL, g - z > MAX_CUT);
                f.coarse_bridges += (fill && !fill_run) as usize;
                f.coarse_tunnels += (cut && !cut_run) as usize;
                (fill_run, cut_run) = (fill, cut);
            }
            // The 8 % profile and its works.
            let profile = capped(&ground, GRADE * DS);
            let (mut fill_run, mut cut_run) = (false, false);
            for (g, z) in ground.iter().zip(&profile) {
                f.volume += (g - z).abs() * DS * WIDTH;
                let (fill, cut) = (z - g > MAX_FILL, g - z > MAX_CUT);
                f.bridges += (fill && !fill_run) as usize;
                f.tunnels += (cut && !cut_run) as usize;
                (fill_run, cut_run) = (fill, cut);
            }
        }
        f.mean = grades.iter().sum::<f64>() / grades.len().max(1) as f64;
        f.p95 = quantile(&mut grades, 0.95);
        f
    }
}

/// Points every `DS` metres along a polyline (its ends included).
fn resample(points: &[DVec2]) -> Vec<DVec2> {
    let mut out = Vec::new();
    let mut carry = 0.0;
    for w in points.windows(2) {
        let (a, b) = (w[0], w[1]);
        let len = a.distance(b);
        let mut s = carry;
        while s < len {
            out.push(a + (b - a) * (s / len));
            s += DS;
        }
        carry = s - len;
    }
    out.extend(points.last().copied());
    out
}

/// Centred moving average over `2·half + 1` samples (shorter at the ends).
fn moving_average(v: &[f64], half: usize) -> Vec<f64> {
    let mut prefix = vec![0.0];
    for x in v {
        prefix.push(prefix.last().copied().unwrap_or(0.0) + x);
    }
    (0..v.len())
        .map(|k| {
            let (a, b) = (k.saturating_sub(half), (k + half + 1).min(v.len()));
            (prefix[b] - prefix[a]) / (b - a) as f64
        })
        .collect()
}

/// The midpoint of the two Lipschitz envelopes of `g` with slope `d` per
/// sample: a profile that never climbs more than `d` a sample.
fn capped(g: &[f64], d: f64) -> Vec<f64> {
    // Largest d-Lipschitz function below g, smallest above it.
    let mut below = g.to_vec();
    let mut above = g.to_vec();
    for k in 1..g.len() {
        below[k] = below[k].min(below[k - 1] + d);
        above[k] = above[k].max(above[k - 1] - d);
    }
    for k in (0..g.len().saturating_sub(1)).rev() {
        below[k] = below[k].min(below[k + 1] + d);
        above[k] = above[k].max(above[k + 1] - d);
    }
    below
        .iter()
        .zip(&above)
        .map(|(a, b)| (a + b) / 2.0)
        .collect()
}
