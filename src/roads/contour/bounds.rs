//! Lake and town bounds: cheap sufficient tests that a growth step meets
//! no lake (a slope bound) and no town (profile minima over windows), and
//! the whole-metre samples of the steps they cannot clear.

use crate::num::{floor_i64, java_round_f64};
use crate::terrain::Terrain;
use glam::DVec2;

/// How fast the height can change: each height term `P(v·p / 128)` moves at
/// most the profile's steepest step per index.
pub(super) struct SlopeBound {
    /// Steepest step / 128, times each height vector.
    vectors: Vec<DVec2>,
    /// Most change per metre in any direction: at least `along(dir)`.
    pub(super) steepest: f64,
    /// What a bound on the height must reach to rule out lake: the lake
    /// level, with room for rounding to whole metres.
    pub(super) floor: f64,
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
pub(super) struct QuickStops<'a> {
    terrain: &'a Terrain,
    /// Bounds on the height's slope (`None` with mountains).
    pub(super) slope: Option<SlopeBound>,
    /// Per town vector, profile minima over a step's run of indices.
    towns: Vec<TownWindow>,
    /// The same over a town disk's run.
    disk_towns: Vec<TownWindow>,
    /// Radius of the disks [`Self::town_clear_disk`] is asked about.
    pub(super) disk: f64,
}

impl<'a> QuickStops<'a> {
    /// The tests for steps of at most `step` metres.
    pub(super) fn new(terrain: &'a Terrain, step: f64) -> Self {
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
    pub(super) fn town_clear_disk(&self, c: DVec2) -> bool {
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
pub(super) struct GroundStops {
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
    pub(super) fn find(
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{hash_unit, java_round};
    use crate::roads::ContourParams;

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
}
