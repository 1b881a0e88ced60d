//! Random worlds: sum-of-sines profiles from a seed, and finding good sites
//! for the player and objects in a world nobody has explored.

use super::objects::{BUILDING_SIZE, BUILDING_SPACING};
use super::params::{MAX_PROFILE_LEN, ParamError};
use super::{Feature, Terrain, TerrainKind, java_round};
use crate::num::{WORLD_LIMIT_F64, within_world};
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use std::f64::consts::TAU;

/// A random profile of `len` entries (a power of two) from `seed`: 32 sine
/// waves with amplitudes 16..90, whole numbers of cycles 2..len/32 over the
/// profile (so it wraps smoothly) and random phases, each rounded and divided
/// by 8, as in the seed's `makeProfile`. Values are balanced around zero.
pub fn random_profile(seed: u64, len: usize) -> Result<Vec<f64>, ParamError> {
    if !(2..=MAX_PROFILE_LEN).contains(&len) || !len.is_power_of_two() {
        return Err(ParamError::profile_length(len));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut uniform =
        |lo: f64, hi: f64| lo + (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo);
    let l = len as f64;
    let mut p = vec![0.0; len];
    for _ in 0..32 {
        let a = uniform(16.0, 90.0);
        let cycles = java_round(uniform(2.0, l / 32.0)).max(1) as f64;
        let lambda = l / cycles;
        let phase = uniform(0.0, TAU);
        for (j, v) in p.iter_mut().enumerate() {
            *v += java_round(a * (phase + TAU * j as f64 / lambda).sin()) as f64 / 8.0;
        }
    }
    Ok(p)
}

/// Most candidate positions [`Terrain::find_good_site`] examines.
pub const MAX_SITE_CANDIDATES: usize = 1000;
/// Spacing of the candidate spiral's first ring, metres; ring `r` is
/// `SITE_STEP + r` metres from the previous one, so 1000 candidates reach
/// about 270 m out while staying dense near the start.
const SITE_STEP: i64 = 3;

/// The result of [`Terrain::find_good_site`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GoodSite {
    /// The chosen whole-metre position.
    pub pos: DVec2,
    /// True when every criterion holds there; false means the best compromise
    /// found within the search limit.
    pub ok: bool,
}

/// Offsets of a square spiral around the origin, ring by ring.
fn spiral() -> impl Iterator<Item = (i64, i64)> {
    (0i64..).flat_map(|r| {
        let ring: Box<dyn Iterator<Item = (i64, i64)>> = if r == 0 {
            Box::new(std::iter::once((0, 0)))
        } else {
            Box::new(
                (-r + 1..=r)
                    .map(move |d| (r, d))
                    .chain((-r..r).rev().map(move |d| (d, r)))
                    .chain((-r..r).rev().map(move |d| (-r, d)))
                    .chain((-r + 1..=r).map(move |d| (d, -r))),
            )
        };
        ring
    })
}

impl Terrain {
    /// How many of the site criteria hold at a whole-metre position, checked
    /// in order of importance (the count stops at the first failure):
    /// dry land ≥ 10 m above the lake; grass, moor or open wood; no feature;
    /// ≥ 7 m from any mine shaft; ≥ 10 m from any building. Positions
    /// beyond [`WORLD_LIMIT`](crate::num::WORLD_LIMIT) score 0: nothing is
    /// placed there, and their neighbourhood is not exact in `f64`.
    pub fn site_score(&self, xr: i64, yr: i64) -> u32 {
        if !within_world(xr, yr) {
            return 0;
        }
        let t = self.terra(xr as f64, yr as f64);
        if t.height < self.params.lake_level + 10.0 {
            return 0;
        }
        if !matches!(
            t.kind,
            TerrainKind::Grass | TerrainKind::Moor | TerrainKind::Wood
        ) {
            return 1;
        }
        if t.feature.is_some() {
            return 2;
        }
        for dy in -7i64..=7 {
            for dx in -7i64..=7 {
                if dx * dx + dy * dy <= 49
                    && self.terra((xr + dx) as f64, (yr + dy) as f64).feature == Some(Feature::Mine)
                {
                    return 3;
                }
            }
        }
        let reach = 10.0 + BUILDING_SIZE / 2.0;
        let s = BUILDING_SPACING as f64;
        let p = DVec2::new(xr as f64, yr as f64);
        for j in ((p.y - reach) / s).floor() as i64..=((p.y + reach) / s).ceil() as i64 {
            for i in ((p.x - reach) / s).floor() as i64..=((p.x + reach) / s).ceil() as i64 {
                if let Some(b) = self.building_at(i, j) {
                    let (lo, hi) = b.footprint();
                    if p.clamp(lo, hi).distance(p) < 10.0 {
                        return 4;
                    }
                }
            }
        }
        5
    }

    /// Searches outward from `(x, y)` for a site meeting all the criteria of
    /// [`Self::site_score`]. Examines at most [`MAX_SITE_CANDIDATES`]
    /// positions on a widening spiral (about 270 m out); if none qualifies,
    /// returns the best one with `ok == false`. Every position returned was
    /// scored. Non-finite input, or input beyond
    /// [`WORLD_LIMIT`](crate::num::WORLD_LIMIT), returns itself, not ok.
    pub fn find_good_site(&self, x: f64, y: f64) -> GoodSite {
        if !(x.abs() <= WORLD_LIMIT_F64 && y.abs() <= WORLD_LIMIT_F64) {
            return GoodSite {
                pos: DVec2::new(x, y),
                ok: false,
            };
        }
        let (x0, y0) = (java_round(x), java_round(y));
        let mut best = (0, x0, y0);
        for (dx, dy) in spiral().take(MAX_SITE_CANDIDATES) {
            let scale = SITE_STEP + dx.abs().max(dy.abs());
            // Within a few hundred metres of a point inside the limit: exact.
            let (cx, cy) = (x0 + dx * scale, y0 + dy * scale);
            let score = self.site_score(cx, cy);
            if score == 5 {
                return GoodSite {
                    pos: DVec2::new(cx as f64, cy as f64),
                    ok: true,
                };
            }
            if score > best.0 {
                best = (score, cx, cy);
            }
        }
        GoodSite {
            pos: DVec2::new(best.1 as f64, best.2 as f64),
            ok: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::TerrainParams;

    #[test]
    fn random_profiles_are_deterministic_periodic_and_any_power_of_two() {
        let a = random_profile(42, 256).unwrap();
        assert_eq!(a, random_profile(42, 256).unwrap());
        assert_ne!(a, random_profile(43, 256).unwrap());
        assert!(a.iter().all(|v| (v * 8.0).fract() == 0.0));
        // Smooth wrap: the jump from the last entry to the first is like any other.
        let max_step = a
            .windows(2)
            .map(|w| (w[1] - w[0]).abs())
            .fold(0.0, f64::max);
        assert!((a[0] - a[255]).abs() <= max_step + 1.0);
        let mean = a.iter().sum::<f64>() / 256.0;
        assert!(mean.abs() < 20.0, "{mean}");
        for len in [2, 4, 64, 1024, 4096] {
            let p = random_profile(1, len).unwrap();
            assert_eq!(p.len(), len);
            assert!(p.iter().all(|v| v.is_finite()));
        }
        assert_eq!(random_profile(1, 100), Err(ParamError::profile_length(100)));
        assert_eq!(random_profile(1, 0), Err(ParamError::profile_length(0)));
    }

    #[test]
    fn random_worlds_have_sea_and_land() {
        let t = Terrain::new(TerrainParams::random(9, 256).unwrap()).unwrap();
        let (mut lake, mut land) = (0, 0);
        for i in 0..100 {
            for j in 0..100 {
                if t.terra(i as f64 * 37.0, j as f64 * 41.0).kind == TerrainKind::Lake {
                    lake += 1
                } else {
                    land += 1
                }
            }
        }
        assert!(lake > 500 && land > 500, "{lake} {land}");
    }

    #[test]
    fn good_sites_meet_the_criteria() {
        let t = Terrain::default();
        for &(x, y) in &[
            (19000.0, 1260.0),
            (-1811.0, 3062.0),
            (0.0, 0.0),
            (2345.6, -789.1),
        ] {
            let s = t.find_good_site(x, y);
            assert!(s.ok, "{x} {y}");
            assert_eq!(t.site_score(s.pos.x as i64, s.pos.y as i64), 5);
            let g = t.terra(s.pos.x, s.pos.y);
            assert!(g.height >= 214.0 && g.feature.is_none() && g.kind != TerrainKind::Thicket);
        }
        // Deep in a flooded world nothing qualifies: the search ends, not ok.
        let flooded = Terrain::new(TerrainParams::default().with_rain(1000.0)).unwrap();
        let s = flooded.find_good_site(100.0, 100.0);
        assert!(!s.ok);
        assert!(!t.find_good_site(f64::NAN, 0.0).ok);
    }

    #[test]
    fn sites_are_only_reported_where_they_were_scored() {
        use crate::num::WORLD_LIMIT;
        let t = Terrain::default();
        for (x, y) in [
            (i64::MAX, i64::MAX),
            (i64::MIN, 0),
            (0, i64::MIN),
            (WORLD_LIMIT + 1, 0),
            (-WORLD_LIMIT - 1, 5),
        ] {
            assert_eq!(t.site_score(x, y), 0);
        }
        // Input beyond the world's edge returns itself, not ok.
        for (x, y) in [
            (1.0e18, 1.0e18),
            (-1.0e30, 0.0),
            (0.0, f64::MAX),
            (9.3e18, -9.3e18),
            (f64::INFINITY, 0.0),
        ] {
            let s = t.find_good_site(x, y);
            assert!(!s.ok && s.pos == DVec2::new(x, y), "{x} {y}: {s:?}");
        }
        // At the edge, candidates past it are never chosen.
        let edge = WORLD_LIMIT as f64;
        let s = t.find_good_site(edge, -edge);
        assert!(s.pos.x <= edge && s.pos.y >= -edge, "{s:?}");
        assert!(s.pos.distance(DVec2::new(edge, -edge)) < 400.0);
        if s.ok {
            assert_eq!(t.site_score(s.pos.x as i64, s.pos.y as i64), 5);
        }
    }

    #[test]
    fn spiral_visits_each_offset_once() {
        let v: Vec<_> = spiral().take(81).collect();
        let mut s = v.clone();
        s.sort();
        s.dedup();
        assert_eq!(s.len(), 81);
        assert!(v.iter().all(|&(x, y)| x.abs() <= 4 && y.abs() <= 4));
    }
}
