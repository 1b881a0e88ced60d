//! Lake and town stops: cheap sufficient tests that a growth step meets no
//! lake (the terrain's slope bound) and no town (its town-sum bounds), and
//! the whole-metre samples of the steps they cannot clear.

use super::RoadAreaError;
use super::work::{Budget, RoadWork};
use crate::num::java_round_f64;
use crate::terrain::{HeightSlopeBound, Terrain, TownBound};
use glam::DVec2;

/// The lake test's bound: the terrain's slope bound and the height it must
/// keep above.
pub(super) struct SlopeBound {
    bound: HeightSlopeBound,
    /// Most change per metre in any direction: at least `along(dir)`.
    pub(super) steepest: f64,
    /// What a bound on the height must reach to rule out lake: the lake
    /// level, with room for rounding to whole metres.
    pub(super) floor: f64,
}

impl SlopeBound {
    /// `None` with mountains, whose shaping is steeper.
    fn new(terrain: &Terrain) -> Option<Self> {
        let bound = terrain.height_slope_bound()?;
        Some(Self {
            steepest: bound.steepest(),
            floor: terrain.params().lake_level + 1e-9 + bound.rounding(),
            bound,
        })
    }
}

/// Cheap sufficient tests that a segment meets no lake and no town, so that
/// most growth steps need not sample it metre by metre; built once per
/// request.
pub(super) struct QuickStops<'a> {
    terrain: &'a Terrain,
    /// Bounds on the height's slope (`None` with mountains).
    pub(super) slope: Option<SlopeBound>,
    /// Town sums over a step.
    towns: TownBound,
    /// Town sums over a town disk.
    disk_towns: TownBound,
    /// Radius of the disks [`Self::town_clear_disk`] is asked about.
    pub(super) disk: f64,
}

impl<'a> QuickStops<'a> {
    /// The tests for steps of at most `step` metres.
    pub(super) fn new(terrain: &'a Terrain, step: f64) -> Self {
        Self {
            terrain,
            slope: SlopeBound::new(terrain),
            towns: terrain.town_bound(step),
            disk_towns: terrain.town_bound(2.0 * Self::DISK * step),
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
            .is_some_and(|s| (ha + hb - len * s.bound.along((b - a) / len)) / 2.0 >= s.floor)
    }

    /// A sufficient test that no whole-metre sample along `a → b` is town.
    fn town_clear(&self, a: DVec2, b: DVec2) -> bool {
        self.towns.clear_on_segment(a, b)
    }

    /// Radius of a town disk, in steps: a straight path crosses one in
    /// about four.
    const DISK: f64 = 2.5;

    /// A sufficient test that no whole-metre point within [`Self::disk`] of
    /// `c` is town.
    pub(super) fn town_clear_disk(&self, c: DVec2) -> bool {
        self.disk_towns.clear_on_disk(c)
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
    /// whole-metre sample before the first blocked one. The samples are
    /// counted in `budget` before they are taken, and taken in batches of
    /// at most about [`Self::BATCH`] (so memory does not grow with a round).
    pub(super) fn find(
        &mut self,
        quick: &QuickStops,
        segments: impl Iterator<Item = (DVec2, DVec2, f64, f64, bool, bool)>,
        stops: &mut Vec<(usize, f64)>,
        budget: &mut Budget,
    ) -> Result<(), RoadAreaError> {
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
            budget.spend(RoadWork::Samples, len as u64 + 1)?;
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
            if self.xs.len() >= Self::BATCH {
                self.sample(quick.terrain, stops);
            }
        }
        self.sample(quick.terrain, stops);
        Ok(())
    }

    /// Samples gathered before heights are taken for all of them at once.
    const BATCH: usize = 1 << 16;

    /// Takes the samples gathered so far, adds the stops they give to
    /// `stops` (in the order of the segments) and clears them.
    fn sample(&mut self, terrain: &Terrain, stops: &mut Vec<(usize, f64)>) {
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
        self.xs.clear();
        self.ys.clear();
        self.ds.clear();
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
            GroundStops::default()
                .find(
                    &quick,
                    batch_segments,
                    &mut batch,
                    &mut Budget::for_area(0.0),
                )
                .unwrap();
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
        // All at once, in several batches of samples.
        let mut all = Vec::new();
        let every = segments
            .iter()
            .map(|&(a, b, ha, hb)| (a, b, ha, hb, false, false));
        (GroundStops::default())
            .find(&quick, every, &mut all, &mut Budget::for_area(0.0))
            .unwrap();
        assert_eq!(all, expected);
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
}
