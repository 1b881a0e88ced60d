//! Vertical profiles: a road's heights fitted to the ground at the road's
//! own scale under its class's grade limit, with smooth vertical curves.
//!
//! The fit is the midpoint of the lower and upper grade-limited envelopes
//! of the smoothed ground (the grade-limited line nearest to it at its
//! worst point, balancing cut against fill), computed in two linear passes.

use super::EarthworkParams;
use crate::network::RoadClass;
use crate::terrain::Terrain;
use glam::DVec2;

/// `points` with points added so that no segment is longer than `step`
/// (each long segment split evenly; the given points stay, bit for bit).
pub(crate) fn densify(points: &[DVec2], step: f64) -> Vec<DVec2> {
    let mut out = Vec::with_capacity(points.len());
    for w in points.windows(2) {
        out.push(w[0]);
        let n = (w[0].distance(w[1]) / step).ceil();
        // Bounded: a road's side is bounded by the world's area limits.
        let n = if n.is_finite() {
            n.min(1.0e6) as usize
        } else {
            1
        };
        for k in 1..n {
            out.push(w[0].lerp(w[1], k as f64 / n as f64));
        }
    }
    out.extend(points.last());
    out
}

/// Arc length at each point, from the first.
pub(crate) fn stations(points: &[DVec2]) -> Vec<f64> {
    let mut s = Vec::with_capacity(points.len());
    let mut at = 0.0;
    for (k, p) in points.iter().enumerate() {
        if k > 0 {
            at += points[k - 1].distance(*p);
        }
        s.push(at);
    }
    s
}

/// The ground a road of half-width `half` would be built on at each point:
/// the mean of the natural ground at its centre and both edges, or over
/// water a deck's height above the lake.
pub(crate) fn ground_along(
    terrain: &Terrain,
    points: &[DVec2],
    half: f64,
    clearance: f64,
) -> Vec<f64> {
    let lake = terrain.params().lake_level;
    let n = points.len();
    // The centre and both edges of every point, taken together (bit for
    // bit as one by one).
    let (mut xs, mut ys) = (Vec::with_capacity(3 * n), Vec::with_capacity(3 * n));
    for k in 0..n {
        let p = points[k];
        let dir = points[(k + 1).min(n - 1)] - points[k.saturating_sub(1)];
        let side = dir.perp().normalize_or_zero() * half;
        xs.extend([p.x, p.x + side.x, p.x - side.x]);
        ys.extend([p.y, p.y + side.y, p.y - side.y]);
    }
    let mut h = Vec::new();
    terrain.heights_at_points(&xs, &ys, &mut h);
    h.chunks_exact(3)
        .map(|s| {
            let (c, l, r) = (s[0], s[1], s[2]);
            if c < lake {
                return lake + clearance;
            }
            (c + l.max(lake) + r.max(lake)) / 3.0
        })
        .collect()
}

/// The mean of `g` over the points within `window / 2` along the road of
/// each point (a sliding window: linear).
pub(crate) fn smooth(s: &[f64], g: &[f64], window: f64) -> Vec<f64> {
    let half = window / 2.0;
    let (mut lo, mut hi, mut sum) = (0, 0, 0.0);
    let mut out = Vec::with_capacity(g.len());
    for k in 0..g.len() {
        while hi < g.len() && s[hi] <= s[k] + half {
            sum += g[hi];
            hi += 1;
        }
        while s[lo] < s[k] - half {
            sum -= g[lo];
            lo += 1;
        }
        // Summed afresh for each point where the window is short, so that
        // rounding does not build up along long roads.
        let n = hi - lo;
        out.push(if n <= 64 {
            g[lo..hi].iter().sum::<f64>() / n as f64
        } else {
            sum / n as f64
        });
    }
    out
}

/// The grade-limited profile nearest to `g` at its worst point: the
/// midpoint of the largest `grade`-limited function below `g` and the least
/// one above it (both limited, so is their mean).
pub(crate) fn fit(s: &[f64], g: &[f64], grade: f64) -> Vec<f64> {
    let n = g.len();
    let (mut lower, mut upper) = (g.to_vec(), g.to_vec());
    for k in 1..n {
        let run = grade * (s[k] - s[k - 1]);
        lower[k] = lower[k].min(lower[k - 1] + run);
        upper[k] = upper[k].max(upper[k - 1] - run);
    }
    for k in (0..n.saturating_sub(1)).rev() {
        let run = grade * (s[k + 1] - s[k]);
        lower[k] = lower[k].min(lower[k + 1] + run);
        upper[k] = upper[k].max(upper[k + 1] - run);
    }
    lower
        .iter()
        .zip(&upper)
        .map(|(a, b)| 0.5 * (a + b))
        .collect()
}

/// A height ordered totally (for the heaps of [`fit_least`]).
#[derive(Clone, Copy, PartialEq)]
struct H(f64);
impl Eq for H {}
impl PartialOrd for H {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for H {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// Breakpoints of a convex piecewise-linear function on one side of its
/// least value, each with the change of slope there, stored less the
/// side's shift (see [`fit_least`]).
struct Side<T: Ord> {
    heap: std::collections::BinaryHeap<(T, u64)>,
    shift: f64,
}

/// The `grade`-limited profile with the least earthworks: the least sum of
/// `weight[k]·|z[k] − g[k]|`, exactly, in `O(n log n)`. The cost of the best
/// profile up to each point, as a function of its height there, is convex
/// and piecewise linear; it is kept as its breakpoints in two heaps (left
/// and right of its least value), a grade limit widening them apart, each
/// point's term adding a breakpoint ("slope trick"). Then the heights are
/// read back from the last point. A weight over the sum of all others pins
/// a point to its height. `limit[k]` is the grade limit from point `k − 1`
/// to `k` (`limit[0]` is unused).
pub(crate) fn fit_least(s: &[f64], g: &[f64], weight: &[u64], limit: &[f64]) -> Vec<f64> {
    use std::cmp::Reverse;
    let n = g.len();
    let mut left: Side<H> = Side {
        heap: std::collections::BinaryHeap::with_capacity(2 * n),
        shift: 0.0,
    };
    let mut right: Side<Reverse<H>> = Side {
        heap: std::collections::BinaryHeap::with_capacity(2 * n),
        shift: 0.0,
    };
    // Moves `units` of slope from the top of one side to the other.
    fn shuttle<A: Ord, B: Ord>(
        from: &mut Side<A>,
        to: &mut Side<B>,
        mut units: u64,
        get: impl Fn(&A) -> f64,
        put: impl Fn(f64) -> B,
    ) {
        while units > 0 {
            let Some((v, c)) = from.heap.pop() else {
                return;
            };
            let m = c.min(units);
            let at = get(&v) + from.shift;
            to.heap.push((put(at - to.shift), m));
            if c > m {
                from.heap.push((v, c - m));
            }
            units -= m;
        }
    }
    let (gl, pl) = (|h: &H| h.0, H);
    let (gr, pr) = (|h: &Reverse<H>| h.0.0, |v| Reverse(H(v)));
    // Where each point's cost is least.
    let mut best: Vec<(f64, f64)> = Vec::with_capacity(n);
    for k in 0..n {
        if k > 0 {
            let run = limit[k] * (s[k] - s[k - 1]);
            left.shift -= run;
            right.shift += run;
        }
        let w = weight[k].max(1);
        // + w·max(0, x − g): through the left side into the right.
        left.heap.push((H(g[k] - left.shift), w));
        shuttle(&mut left, &mut right, w, gl, pr);
        // + w·max(0, g − x): through the right side into the left.
        right.heap.push((Reverse(H(g[k] - right.shift)), w));
        shuttle(&mut right, &mut left, w, gr, pl);
        let a = left
            .heap
            .peek()
            .map_or(f64::NEG_INFINITY, |h| h.0.0 + left.shift);
        let b = right
            .heap
            .peek()
            .map_or(f64::INFINITY, |h| h.0.0.0 + right.shift);
        best.push((a, b));
    }
    let mut z = vec![0.0; n];
    if n == 0 {
        return z;
    }
    // Into `[a, b]`, which rounding may leave inverted by an ulp or so.
    let into = |v: f64, (a, b): (f64, f64)| v.max(a.min(b)).min(b.max(a));
    z[n - 1] = into(g[n - 1], best[n - 1]);
    for k in (0..n - 1).rev() {
        let run = limit[k + 1] * (s[k + 1] - s[k]);
        z[k] = into(z[k + 1], best[k]).clamp(z[k + 1] - run, z[k + 1] + run);
    }
    z
}

/// The steepest grade between consecutive points.
pub(crate) fn steepest(s: &[f64], z: &[f64]) -> f64 {
    (1..z.len())
        .map(|k| (z[k] - z[k - 1]).abs() / (s[k] - s[k - 1]).max(1e-9))
        .fold(0.0, f64::max)
}

/// Weights of a fit to `ground` (the ground under a road, or over water a
/// deck's height): over water it counts many times over, so the road stays
/// above the lake.
pub(crate) fn deck_weights(terrain: &Terrain, ground: &[f64], clearance: f64) -> Vec<u64> {
    let lake = terrain.params().lake_level + clearance;
    ground
        .iter()
        .map(|&h| if h <= lake { 16 } else { 1 })
        .collect()
}

/// A weight that outweighs every other point of a fit: a pin.
const PIN: u64 = 1 << 40;

/// How much steeper than its limit (a fraction of it) a road may be beside
/// a junction's platform to keep it.
pub(crate) const SPARE: f64 = 0.01;

/// A pinned end of a [`fit_span`]: its height, and how far from it the
/// road keeps level (a junction's platform), metres.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pin {
    pub z: f64,
    pub flat: f64,
}

/// The least-earthworks fit of `target` (weighted by `weight`) along
/// `points` under `grade`, with either end pinned where given: within a
/// pin's `flat` distance of it no steeper than `flat_grade` (unless the two
/// pins lie too far apart in height for that and not `keep_platforms`, or
/// even with it, the rest would be steeper than [`PATH_GRADE`]), and
/// as steep as two pins need where they lie further apart in height than
/// the limits allow.
pub(crate) fn fit_span(
    points: &[DVec2],
    mut target: Vec<f64>,
    mut weight: Vec<u64>,
    (first, last): (Option<Pin>, Option<Pin>),
    grade: f64,
    flat_grade: f64,
    keep_platforms: bool,
) -> Vec<f64> {
    let s = stations(points);
    let e = target.len() - 1;
    for (k, pin) in [(0, first), (e, last)] {
        if let Some(pin) = pin {
            (target[k], weight[k]) = (pin.z, PIN);
        }
    }
    let flats = (first.map_or(0.0, |p| p.flat), last.map_or(0.0, |p| p.flat));
    let mut limit = limits(&s, flats, grade, flat_grade);
    if let (Some(a), Some(b)) = (first, last) {
        // Where the pins lie further apart in height than the limits allow,
        // the grade off the platforms gives way by up to `SPARE`, then the
        // platforms, then the grade.
        let need = (b.z - a.z).abs() * (1.0 + 1e-9);
        let run = |k: usize| s[k] - s[k - 1];
        let have: f64 = (1..=e).map(|k| limit[k] * run(k)).sum();
        if need > have {
            let level: Vec<bool> = limit.iter().map(|&l| l < grade).collect();
            let on: f64 = (1..=e)
                .filter(|&k| level[k])
                .map(|k| limit[k] * run(k))
                .sum();
            let free: f64 = (1..=e).filter(|&k| !level[k]).map(run).sum();
            let steeper = (need - on) / free;
            // Platforms are kept while the rest stays within a footway's
            // grade: pins on a short street would otherwise meet in a cliff.
            let most = if keep_platforms {
                PATH_GRADE.max(grade)
            } else {
                grade * (1.0 + SPARE)
            };
            if free > 0.0 && steeper <= most {
                (1..=e)
                    .filter(|&k| !level[k])
                    .for_each(|k| limit[k] = steeper);
            } else {
                let steep = if s[e] > 0.0 { need / s[e] } else { grade };
                limit.iter_mut().for_each(|l| *l = grade.max(steep));
            }
        }
    }
    let mut z = fit_least(&s, &target, &weight, &limit);
    // Exactly at the pins (the fit's rounding aside).
    z[0] = first.map_or(z[0], |p| p.z);
    z[e] = last.map_or(z[e], |p| p.z);
    z
}

/// The grade limit of each segment of a span with stations `s` (`[k]` from
/// point `k − 1` to `k`): `flat_grade` on the segments that start within
/// `flats.0` of its first point or end within `flats.1` of its last (the
/// junctions' platforms), `grade` elsewhere.
pub(crate) fn limits(s: &[f64], flats: (f64, f64), grade: f64, flat_grade: f64) -> Vec<f64> {
    let e = s.len() - 1;
    let level = |k: usize| s[k - 1] - s[0] < flats.0 || s[e] - s[k] < flats.1;
    let flat_grade = flat_grade.min(grade);
    (0..=e)
        .map(|k| if k > 0 && level(k) { flat_grade } else { grade })
        .collect()
}

/// The most a span with stations `s` may climb under [`limits`].
pub(crate) fn climb(s: &[f64], flats: (f64, f64), grade: f64, flat_grade: f64) -> f64 {
    let limit = limits(s, flats, grade, flat_grade);
    (1..s.len()).map(|k| limit[k] * (s[k] - s[k - 1])).sum()
}

/// A road's own profile (before it meets others at junctions), at its
/// (densified) points: the least-earthworks fit to the ground under it,
/// averaged at the road's own scale, with vertical curves.
pub(crate) fn free_profile(
    terrain: &Terrain,
    points: &[DVec2],
    class: RoadClass,
    width: f64,
    p: &EarthworkParams,
) -> Vec<f64> {
    let s = stations(points);
    let g = ground_along(terrain, points, width / 2.0, p.clearance);
    let ground = smooth(&s, &g, p.smoothing);
    let grade = p.max_grade.of(class).min(PATH_GRADE);
    let limit = vec![grade; s.len()];
    let z = fit_least(&s, &ground, &deck_weights(terrain, &g, p.clearance), &limit);
    // Vertical curves: a short mean keeps the grade limit (a mean of limited
    // functions), and a last fit makes sure of it.
    fit(&s, &smooth(&s, &z, 3.0 * p.step), grade)
}

/// The grade a footway with steps is fitted to (steps keep no limit).
pub(crate) const PATH_GRADE: f64 = 10.0;

/// `road` densified to the profile's spacing, with its own profile (see
/// [`free_profile`]).
pub(crate) fn profiled(
    terrain: &Terrain,
    road: &crate::network::Road,
    p: &EarthworkParams,
) -> crate::network::Road {
    let points = densify(&road.points, p.step);
    let z = free_profile(terrain, &points, road.class, road.width, p);
    crate::network::Road {
        points,
        class: road.class,
        width: road.width,
        z,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fit_keeps_the_limit_and_stays_between_the_envelopes() {
        let s: Vec<f64> = (0..200).map(|k| k as f64 * 5.0).collect();
        let g: Vec<f64> = s
            .iter()
            .map(|x| 30.0 * (x / 90.0).sin() + 8.0 * (x / 13.0).cos())
            .collect();
        let z = fit(&s, &g, 0.08);
        assert!(steepest(&s, &z) <= 0.08 + 1e-12);
        // Nearest at the worst point: no limited profile deviates less, so
        // the worst cut equals the worst fill.
        let cut = z
            .iter()
            .zip(&g)
            .map(|(a, b)| b - a)
            .fold(f64::MIN, f64::max);
        let fill = z
            .iter()
            .zip(&g)
            .map(|(a, b)| a - b)
            .fold(f64::MIN, f64::max);
        assert!((cut - fill).abs() < 1e-9, "{cut} {fill}");
        // Ground already within the limit is kept as it is.
        let gentle: Vec<f64> = s.iter().map(|x| 0.05 * x).collect();
        assert_eq!(fit(&s, &gentle, 0.08), gentle);
    }

    #[test]
    fn the_least_earthworks_fit_beats_every_other_limited_profile() {
        let s: Vec<f64> = (0..120).map(|k| k as f64 * 5.0).collect();
        let g: Vec<f64> = s
            .iter()
            .map(|x| 30.0 * (x / 90.0).sin() + 8.0 * (x / 13.0).cos() + (x / 7.0).sin())
            .collect();
        let w = vec![1; s.len()];
        let cost = |z: &[f64]| z.iter().zip(&g).map(|(a, b)| (a - b).abs()).sum::<f64>();
        let z = fit_least(&s, &g, &w, &[0.1; 120]);
        assert!(steepest(&s, &z) <= 0.1 + 1e-9, "{}", steepest(&s, &z));
        let least = cost(&z);
        assert!(least < cost(&fit(&s, &g, 0.1)));
        // No nearby limited profile does better: moving any point (and what
        // the limit then forces) costs more.
        for k in (0..s.len()).step_by(7) {
            for d in [-0.5, 0.5] {
                let mut y = z.clone();
                y[k] += d;
                let y = fit(&s, &y, 0.1);
                assert!(steepest(&s, &y) <= 0.1 + 1e-9);
                assert!(cost(&y) >= least - 1e-9, "{k} {d}: {} < {least}", cost(&y));
            }
        }
        // Ground within the limit is kept.
        let gentle: Vec<f64> = s.iter().map(|x| 0.05 * x).collect();
        let z = fit_least(&s, &gentle, &w, &[0.1; 120]);
        assert!(z.iter().zip(&gentle).all(|(a, b)| (a - b).abs() < 1e-9));
    }

    #[test]
    fn a_pinned_span_is_level_on_its_platforms_where_the_pins_allow() {
        let pts: Vec<DVec2> = (0..=10).map(|k| DVec2::new(k as f64 * 5.0, 0.0)).collect();
        let s = stations(&pts);
        let ground: Vec<f64> = s.iter().map(|x| 0.3 * x).collect();
        let pin = |z, flat| Some(Pin { z, flat });
        let fit = |a, b| fit_span(&pts, ground.clone(), vec![1; 11], (a, b), 0.15, 0.02, false);
        // 4.5 m: 6 m platforms at both ends, level over their 2 segments.
        let z = fit(pin(0.0, 6.0), pin(4.5, 6.0));
        assert_eq!((z[0], z[10]), (0.0, 4.5));
        for k in [1, 2, 9, 10] {
            assert!((z[k] - z[k - 1]).abs() <= 0.02 * 5.0 + 1e-9, "{k}: {z:?}");
        }
        assert!(steepest(&s, &z) <= 0.15 + 1e-9);
        // 7 m: too much for the platforms, so the grade limit alone.
        let z = fit(pin(0.0, 6.0), pin(7.0, 6.0));
        assert!(steepest(&s, &z) <= 0.15 + 1e-9, "{z:?}");
        // Unless they are kept: then steeper between them.
        let z = fit_span(
            &pts,
            ground.clone(),
            vec![1; 11],
            (pin(0.0, 6.0), pin(7.0, 6.0)),
            0.15,
            0.02,
            true,
        );
        assert!((z[2] - z[0]).abs() <= 0.02 * 10.0 + 1e-9, "{z:?}");
        assert!(steepest(&s, &z) > 0.2, "{z:?}");
        assert!((climb(&s, (6.0, 6.0), 0.15, 0.02) - (0.02 * 20.0 + 0.15 * 30.0)).abs() < 1e-12);
    }

    #[test]
    fn densified_roads_keep_their_points_and_a_short_spacing() {
        let pts = vec![DVec2::ZERO, DVec2::new(25.0, 0.0), DVec2::new(25.0, 3.0)];
        let d = densify(&pts, 10.0);
        assert_eq!(d.len(), 5);
        assert!(pts.iter().all(|p| d.contains(p)));
        assert!(d.windows(2).all(|w| w[0].distance(w[1]) <= 10.0));
    }

    #[test]
    fn a_road_up_a_cliff_keeps_its_limit() {
        let t = Terrain::default();
        let p = EarthworkParams::default();
        // Find a steep 200 m line: the ground rises over 60 m along it.
        let mut found = None;
        'search: for i in 0..200 {
            let a = DVec2::new(i as f64 * 137.0, 5000.0);
            for dir in [DVec2::X, DVec2::Y, DVec2::NEG_X, DVec2::NEG_Y] {
                let b = a + dir * 200.0;
                let lake = t.params().lake_level;
                let dry = (0..=20).all(|k| {
                    let q = a.lerp(b, k as f64 / 20.0);
                    t.height(q.x, q.y) > lake
                });
                if dry && t.height(b.x, b.y) - t.height(a.x, a.y) > 60.0 {
                    found = Some((a, b));
                    break 'search;
                }
            }
        }
        let (a, b) = found.expect("the default world has steep slopes");
        let pts = densify(&[a, b], p.step);
        // A country road there keeps its limit, whatever the earthworks.
        let z = free_profile(&t, &pts, RoadClass::Road, 5.0, &p);
        assert_eq!(z.len(), pts.len());
        assert!(steepest(&stations(&pts), &z) <= p.max_grade.road + 1e-9);
    }
}
