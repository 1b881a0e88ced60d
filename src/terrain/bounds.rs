//! Bounds derived from the profile, for callers that want to rule things out
//! without sampling: how fast the height can change ([`HeightSlopeBound`])
//! and how low the town sum can be over a set of points ([`TownBound`]).
//! Both are exact bounds (never optimistic), with room for rounding.

use super::Terrain;
use crate::num::floor_i64;
use glam::DVec2;

/// How fast the height can change: each height term `P(v·p / 128)` moves at
/// most the profile's steepest step per index, so per metre along a unit
/// direction `d` at most `steepest/128 · |v·d|`. Without mountains only (the
/// mountain shaping is steeper).
#[derive(Clone, Debug)]
pub struct HeightSlopeBound {
    /// Steepest step / 128, times each height vector.
    vectors: Vec<DVec2>,
    /// Most change per metre in any direction.
    steepest: f64,
    /// Most change from rounding a point to whole metres.
    rounding: f64,
}

impl HeightSlopeBound {
    /// Most change of the height per metre along unit direction `dir`.
    #[inline]
    pub fn along(&self, dir: DVec2) -> f64 {
        self.vectors.iter().map(|v| v.dot(dir).abs()).sum()
    }

    /// Most change of the height per metre in any direction (at least
    /// [`Self::along`] for every unit direction).
    pub fn steepest(&self) -> f64 {
        self.steepest
    }

    /// Most change of the height from rounding a point to whole metres (half
    /// a metre per axis).
    pub fn rounding(&self) -> f64 {
        self.rounding
    }
}

/// One town vector's share of a [`TownBound`]: the profile's minima over
/// every window of indices as long as the run its term can use over the
/// points bounded.
#[derive(Clone, Debug)]
struct TownTerm {
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

impl TownTerm {
    fn new(v: DVec2, profile: &[f64], extent: f64) -> Self {
        let size = v.x.abs() + v.y.abs();
        // The run the bounds ask for, with a metre to spare.
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

/// Lower bounds on the town sum (the seed's `calcProf` over the town
/// vectors, which makes a whole-metre point town below the threshold) over
/// point sets at most `extent` metres across: segments, and disks of radius
/// `extent / 2`. Each term is the minimum of the profile over the short run
/// of indices it can use over the set (each one lookup in a table of window
/// minima).
#[derive(Clone, Debug)]
pub struct TownBound {
    terms: Vec<TownTerm>,
    mask: i64,
    threshold: f64,
    radius: f64,
}

impl TownBound {
    /// A lower bound on the town sum at every whole-metre point that a point
    /// of the segment `a–b` rounds to; `None` when the segment is too long
    /// for the windows (longer than the extent) or not finite. Each term's
    /// index `⌊v·p⌋ >> 7` moves linearly along the segment, so it stays
    /// within the indices of its ends.
    #[inline]
    pub fn least_on_segment(&self, a: DVec2, b: DVec2) -> Option<f64> {
        let far = a.abs().max(b.abs()).max_element();
        self.least(far, |w| {
            let (ja, jb) = (w.v.dot(a), w.v.dot(b));
            (ja.min(jb), ja.max(jb))
        })
    }

    /// Whether no whole-metre point that a point of `a–b` rounds to is town
    /// (a sufficient test: `false` may still be clear).
    #[inline]
    pub fn clear_on_segment(&self, a: DVec2, b: DVec2) -> bool {
        self.least_on_segment(a, b)
            .is_some_and(|least| least >= self.threshold)
    }

    /// Radius of the disks [`Self::least_on_disk`] bounds: half the extent.
    pub fn radius(&self) -> f64 {
        self.radius
    }

    /// A lower bound on the town sum at every whole-metre point that a point
    /// within [`Self::radius`] of `c` rounds to (over the disk, `v·p` stays
    /// within `|v|·radius` of `v·c`); `None` when `c` is not finite or too far
    /// out (beyond 10⁸ km) for the rounding room.
    #[inline]
    pub fn least_on_disk(&self, c: DVec2) -> Option<f64> {
        let far = c.abs().max_element() + self.radius;
        // Beyond this the rounding room below would outgrow the windows.
        if !far.is_finite() || far >= 1e11 {
            return None;
        }
        let mut least = 0.0;
        for w in &self.terms {
            // As in `least`, but only the lowest index is needed: the
            // windows are made for the whole run a disk can use.
            let spread = w.reach + 0.5 * w.size + 1.0 + 1e-14 * w.size * (far + 1.0);
            let k0 = floor_i64(w.v.dot(c) - spread) >> 7;
            least += w.least[(k0 & self.mask) as usize];
        }
        Some(least)
    }

    /// Whether no whole-metre point within [`Self::radius`] of `c` (or that
    /// one rounds to) is town (a sufficient test).
    #[inline]
    pub fn clear_on_disk(&self, c: DVec2) -> bool {
        self.least_on_disk(c)
            .is_some_and(|least| least >= self.threshold)
    }

    /// A lower bound on the town sum over a set of points (all coordinates
    /// at most `far` in size), from the range `v·p` takes over them for each
    /// town vector `v`; `None` when some term's run is too long for its
    /// window. Rounding a point to whole metres moves `v·p` by at most
    /// `(|vx| + |vy|)/2`, so a term can only use the profile entries over a
    /// short run of indices, and is at least their minimum (taken over a
    /// window at least as long).
    #[inline]
    fn least(&self, far: f64, range: impl Fn(&TownTerm) -> (f64, f64)) -> Option<f64> {
        let mut least = 0.0;
        for w in &self.terms {
            let (j0, j1) = range(w);
            // Half a metre per axis, and room for rounding in the products.
            let pad = 0.5 * w.size + 1.0 + 1e-14 * w.size * (far + 1.0);
            let k0 = floor_i64(j0 - pad) >> 7;
            let k1 = floor_i64(j1 + pad) >> 7;
            if !(j0.is_finite() && j1.is_finite() && k1 - k0 < w.width) {
                return None;
            }
            least += w.least[(k0 & self.mask) as usize];
        }
        Some(least)
    }
}

impl Terrain {
    /// How fast the height can change (see [`HeightSlopeBound`]); `None`
    /// with mountains, whose shaping is steeper.
    pub fn height_slope_bound(&self) -> Option<HeightSlopeBound> {
        if self.params.mountain_base.is_some() {
            return None;
        }
        let profile = &self.params.profile;
        let n = profile.len();
        let steepest = (0..n)
            .map(|k| (profile[(k + 1) % n] - profile[k]).abs())
            .fold(0.0, f64::max);
        let vectors: Vec<DVec2> = (self.params.height_vectors.iter())
            .map(|v| *v * (steepest / 128.0))
            .collect();
        let rounding = vectors.iter().map(|v| (v.x.abs() + v.y.abs()) / 2.0).sum();
        // |v·dir| ≤ |v| for a unit `dir`, with room for rounding.
        let steepest = vectors.iter().map(|v| v.length()).sum::<f64>() * (1.0 + 1e-12);
        Some(HeightSlopeBound {
            vectors,
            steepest,
            rounding,
        })
    }

    /// Lower bounds on the town sum over point sets at most `extent` metres
    /// across (see [`TownBound`]); built in time linear in the profile's
    /// length, per town vector.
    pub fn town_bound(&self, extent: f64) -> TownBound {
        TownBound {
            terms: (self.params.town_vectors.iter())
                .map(|&v| TownTerm::new(v, &self.params.profile, extent))
                .collect(),
            mask: self.mask,
            threshold: self.params.town_threshold,
            radius: extent / 2.0,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::{hash_unit, java_round, java_round_f64};

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
    fn the_slope_bound_holds_between_any_two_points() {
        let mountains = crate::terrain::TerrainParams {
            mountain_base: Some(300.0),
            ..Default::default()
        };
        assert!(
            Terrain::new(mountains)
                .unwrap()
                .height_slope_bound()
                .is_none()
        );
        let random = crate::terrain::TerrainParams::random(3, 1024).unwrap();
        for t in [Terrain::default(), Terrain::new(random).unwrap()] {
            let s = t.height_slope_bound().unwrap();
            for k in 0..5000i64 {
                let h = |salt: i64| hash_unit(k, salt, 13);
                let scale = [1.0, 1e3, 1e6][k as usize % 3];
                let a = DVec2::new(h(1), h(2)) * 3000.0 * scale;
                let angle = h(3) * std::f64::consts::TAU;
                let dir = DVec2::new(angle.sin(), angle.cos());
                let len = h(4) * 40.0;
                let b = a + dir * len;
                let change = (t.height(b.x, b.y) - t.height(a.x, a.y)).abs();
                let along = s.along(dir);
                assert!(along <= s.steepest());
                assert!(change <= along * len + 1e-9, "{a} → {b}: {change}");
                // Rounding a point to whole metres.
                let r = DVec2::new(java_round_f64(a.x), java_round_f64(a.y));
                let moved = (t.height(r.x, r.y) - t.height(a.x, a.y)).abs();
                assert!(moved <= s.rounding() + 1e-9, "{a}: {moved}");
            }
        }
    }

    #[test]
    fn the_town_bounds_hold_at_every_point_they_cover() {
        let t = Terrain::default();
        let tp = t.params();
        // A growth step's and a town disk's bounds, as the contour roads use them.
        let (segment, disk) = (t.town_bound(10.0), t.town_bound(50.0));
        let r = disk.radius();
        assert_eq!(r, 25.0);
        let town_sum = |x: i64, y: i64| t.calc_prof(&tp.town_vectors, x as f64, y as f64);
        // Every whole-metre point whose unit square around it meets the set.
        let covered = |lo: DVec2, hi: DVec2, meets: &dyn Fn(DVec2) -> bool| {
            let mut v = Vec::new();
            for y in (lo.y - 1.0).floor() as i64..=(hi.y + 1.0) as i64 {
                for x in (lo.x - 1.0).floor() as i64..=(hi.x + 1.0) as i64 {
                    if meets(DVec2::new(x as f64, y as f64)) {
                        v.push((x, y));
                    }
                }
            }
            v
        };
        let (mut cleared, mut clear_segments) = (0, 0);
        for k in 0..2000u64 {
            // Near and far from the origin, around town patches and not.
            let scale = [1.0, 1e3, 1e6][k as usize % 3];
            let c =
                DVec2::new(hash_unit(k as i64, 5, 7), hash_unit(k as i64, 6, 7)) * 3000.0 * scale;
            let bound = disk.least_on_disk(c).expect("a disk's runs fit");
            assert_eq!(disk.clear_on_disk(c), bound >= tp.town_threshold);
            cleared += disk.clear_on_disk(c) as usize;
            let in_disk = |p: DVec2| ((c - p).abs() - 0.5).max(DVec2::ZERO).length() <= r;
            for (x, y) in covered(c - r, c + r, &in_disk) {
                assert!(
                    town_sum(x, y) >= bound,
                    "({x}, {y}) below the bound of the disk at {c}"
                );
            }
            // A 10 m segment from the disk's centre: its points round to
            // points of the unit squares it crosses.
            let angle = hash_unit(k as i64, 8, 7) * std::f64::consts::TAU;
            let b = c + DVec2::new(angle.sin(), angle.cos()) * 10.0;
            let bound = segment.least_on_segment(c, b).expect("a step fits");
            clear_segments += segment.clear_on_segment(c, b) as usize;
            for s in 0..=200 {
                let q = c.lerp(b, s as f64 / 200.0);
                let (x, y) = (java_round(q.x), java_round(q.y));
                assert!(town_sum(x, y) >= bound, "{q} below the bound of {c} → {b}");
            }
            // Too long for the windows: no bound.
            assert_eq!(segment.least_on_segment(c, c + 500.0), None);
        }
        assert!(cleared > 1500, "{cleared} of 2000 disks cleared");
        assert!(
            clear_segments > 1500,
            "{clear_segments} of 2000 steps cleared"
        );
    }
}
