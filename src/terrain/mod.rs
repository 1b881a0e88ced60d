//! The Relf terrain generator: a pure, deterministic function of parameters
//! and position (no Bevy).
//!
//! ```
//! use bevy_relief::terrain::{Terrain, TerrainKind};
//! let t = Terrain::default(); // the reference world
//! assert_eq!(t.height(-1811.0, 3062.0), 111.25);
//! assert_eq!(t.terra(-1811.0, 3062.0).kind, TerrainKind::Lake);
//! ```
//!
//! This module owns heights ([`Terrain::height`], [`Terrain::heights_grid`]),
//! lakes, terrain kinds and point features ([`Terrain::terra`]) and placed
//! overrides; the submodules add trees and buildings, streams, mines and
//! caverns, random profiles and site finding, and bounds on heights and
//! town sums for callers that rule ground out without sampling it.

mod bounds;
mod filtered;
mod grid;
#[cfg(test)]
mod hostile_tests;
mod kinds;
mod laid;
mod objects;
mod params;
mod placed;
mod random;
mod stream_cache;
mod streams;
mod underground;

pub use bounds::{HeightSlopeBound, TownBound};
pub use filtered::{BuiltMix, MAX_FILTER_SAMPLES, MAX_SUBSAMPLES, subsamples};
pub use grid::{GridError, GridKernel, MAX_GRID_SAMPLES};
pub use kinds::{ControlCode, Feature, Terra, TerrainKind};
pub use laid::{
    Built, BuiltKind, LaidGround, LaidKind, Overlay, Relief, SHAPE_TILE, StreamLayer,
    shape_by_points,
};
pub use objects::{Building, Tree};
pub use params::{
    CavernParams, MAX_PROFILE_LEN, MAX_VECTORS, MineParams, ParamError, PathParams,
    REFERENCE_PROFILE, RonError, StreamParams, TerrainParams, TownParams, TreeParams, from_ron,
};
pub use placed::Placed;
pub use random::{GoodSite, MAX_SITE_CANDIDATES, random_profile};
pub use stream_cache::StreamCache;
pub use streams::{AreaError, MAX_SCAN_AREA, Stream, StreamEnd};

pub use crate::num::{fast_floor, floor_i64, hash_unit, java_round, java_round_f64};
pub(crate) use crate::num::{hash2, pi_bits, pi_frac, unit};
use glam::DVec2;
use std::collections::HashMap;

/// 1/128: the profile index scale (multiplied, never divided, as in the reference).
pub const RECIP128: f64 = 1.0 / 128.0;
/// π·1000, for the man-made object bits.
pub const PI1000: f64 = std::f64::consts::PI * 1000.0;
/// π·10000, for cone and tree-selector bits.
pub const PI10000: f64 = std::f64::consts::PI * 10000.0;

/// The mountain shaping: above `base`, `base + dz·√dz`.
#[inline]
pub(crate) fn mountain(z: f64, base: f64) -> f64 {
    if z > base {
        let dz = z - base;
        base + dz * dz.sqrt()
    } else {
        z
    }
}

/// A Relf world: validated parameters, derived tables and placed overrides.
///
/// Cheap to clone for a few kB; share it behind an `Arc` for worker threads.
#[derive(Clone, Debug)]
pub struct Terrain {
    params: TerrainParams,
    /// The profile (a copy, for locality with `slope`).
    prof: Vec<f64>,
    /// `slope[k] = prof[(k+1) & mask] − prof[k]`, the interpolation step.
    slope: Vec<f64>,
    mask: i64,
    height_a: Vec<f64>,
    height_b: Vec<f64>,
    /// `time_vector[i] · time`, added to `b·y`.
    height_off: Vec<f64>,
    /// Point-feature vectors: `(vegetation.y, undergrowth.x)` pairs.
    feature_vectors: Vec<DVec2>,
    /// Byte copies of `prof` and `slope` for the VBMI grid kernel, when they fit.
    bytes: Option<Box<([u8; 256], [i8; 256])>>,
    placed: HashMap<(i64, i64), Placed>,
}

impl Default for Terrain {
    fn default() -> Self {
        Self::new(TerrainParams::default()).expect("reference parameters are valid")
    }
}

impl Terrain {
    /// Builds a terrain; invalid parameters are rejected with the field named.
    pub fn new(params: TerrainParams) -> Result<Self, ParamError> {
        params.validate()?;
        let n = params.profile.len();
        let prof = params.profile.clone();
        let slope: Vec<f64> = (0..n).map(|k| prof[(k + 1) & (n - 1)] - prof[k]).collect();
        let feature_vectors = params
            .vegetation_vectors
            .iter()
            .zip(&params.undergrowth_vectors)
            .map(|(v, u)| DVec2::new(v.y, u.x))
            .collect();
        Ok(Self {
            bytes: grid::byte_tables(&prof, &slope),
            prof,
            slope,
            mask: (n - 1) as i64,
            height_a: params.height_vectors.iter().map(|v| v.x).collect(),
            height_b: params.height_vectors.iter().map(|v| v.y).collect(),
            height_off: params.time_vector.iter().map(|c| c * params.time).collect(),
            feature_vectors,
            placed: HashMap::new(),
            params,
        })
    }

    /// The parameters this terrain was built from.
    pub fn params(&self) -> &TerrainParams {
        &self.params
    }

    /// Ground height at any real position: the sum over the height vectors of
    /// the linearly interpolated profile, then mountain shaping if enabled.
    /// Non-finite input gives NaN, never a panic.
    pub fn height(&self, x: f64, y: f64) -> f64 {
        let ht = self.height_sum(x, y, |b, y| b * y);
        if ht.is_nan() {
            return self.height_nan(x, y);
        }
        match self.params.mountain_base {
            Some(base) => mountain(ht, base),
            None => ht,
        }
    }

    /// [`Self::height`] where the plain sum gave NaN: NaN for non-finite
    /// input, else some `b·y` overflowed (beyond about 10³⁰⁶ m) and is
    /// reduced exactly. Off the hot path, so every other height costs what
    /// it did.
    #[cold]
    #[inline(never)]
    fn height_nan(&self, x: f64, y: f64) -> f64 {
        if !(x.is_finite() && y.is_finite()) {
            return f64::NAN;
        }
        let ht = self.height_sum(x, y, grid::by_term);
        match self.params.mountain_base {
            Some(base) => mountain(ht, base),
            None => ht,
        }
    }

    /// The unshaped height sum, with `b·y` computed by `by`.
    #[inline(always)]
    fn height_sum(&self, x: f64, y: f64, by: impl Fn(f64, f64) -> f64) -> f64 {
        let mut ht = 0.0;
        for i in 0..self.height_a.len() {
            ht += self.term(
                self.height_a[i],
                by(self.height_b[i], y) + self.height_off[i],
                x,
            );
        }
        ht
    }

    /// The un-interpolated profile sum over one vector set, at whole-metre
    /// coordinates (the seed's `calcProf`).
    fn calc_prof(&self, set: &[DVec2], xr: f64, yr: f64) -> f64 {
        set.iter()
            .map(|v| {
                self.prof
                    [((crate::num::floor(v.x * xr + v.y * yr) as i64) >> 7 & self.mask) as usize]
            })
            .sum()
    }

    /// The point feature generated at a whole-metre position, ignoring lakes,
    /// towns and placed overrides (see [`Self::terra`] for what is really there).
    pub fn generated_feature(&self, xr: i64, yr: i64) -> Option<Feature> {
        let xryr = xr.wrapping_mul(yr);
        let a = self.calc_prof(&self.feature_vectors, xr as f64, yr as f64);
        let f = java_round(a * xryr as f64 * RECIP128) & 0xffff;
        match f {
            4 => Some(match xryr & 0xff {
                0..32 => Feature::Mine,
                32..128 => Feature::Boulder,
                128..160 => Feature::WaterHole,
                160..200 => Feature::Knoll,
                _ => Feature::Root,
            }),
            8 if java_round(PI1000 * xryr as f64) & 0xff < 4 => Some(Feature::ManMade),
            16 if java_round(PI10000 * xryr as f64) & 0xff < 8 => Some(Feature::Cone),
            _ => None,
        }
    }

    /// The vegetation kind at a whole-metre position on dry land (town, grass,
    /// moor, thicket or wood).
    pub fn land_kind(&self, xr: i64, yr: i64) -> TerrainKind {
        let p = &self.params;
        let (x, y) = (xr as f64, yr as f64);
        if self.calc_prof(&p.town_vectors, x, y) < p.town_threshold {
            return TerrainKind::Town;
        }
        let a = self.calc_prof(&p.vegetation_vectors, x, y);
        let b = self.calc_prof(&p.undergrowth_vectors, x, y);
        if a < p.open_threshold {
            if b < p.moor_threshold {
                TerrainKind::Grass
            } else {
                TerrainKind::Moor
            }
        } else if b < p.thicket_threshold {
            TerrainKind::Thicket
        } else {
            TerrainKind::Wood
        }
    }

    /// Whether the whole-metre cell is town ground (ignoring lakes and placed overrides).
    pub fn is_town(&self, xr: i64, yr: i64) -> bool {
        self.calc_prof(&self.params.town_vectors, xr as f64, yr as f64) < self.params.town_threshold
    }

    /// Everything about the ground at a position: height, lake depth, kind,
    /// point feature and its orienteering code, snow.
    ///
    /// Order (the reference's): placed overrides, lake, mud, feature, town,
    /// vegetation. Kinds and features use the rounded position, the height
    /// the exact one. Roads and streams are laid on top by [`LaidGround`].
    pub fn terra(&self, x: f64, y: f64) -> Terra {
        let p = &self.params;
        let ht = self.height(x, y);
        let dry = |kind, feature: Option<Feature>, code| Terra {
            height: ht,
            depth: 0.0,
            kind,
            feature,
            code,
            snow: ht >= p.snow_level,
        };
        if let Some(paths) = &p.paths
            && ht > p.lake_level
            && (ht - self.height(x + paths.offset.x, y + paths.offset.y)).abs() < paths.tolerance
        {
            return dry(TerrainKind::Path, None, None);
        }
        let (xr, yr) = (java_round(x), java_round(y));
        let mut feature = None;
        let mut generate = true;
        if !self.placed.is_empty() {
            match self.placed.get(&(xr, yr)) {
                Some(&Placed::Kind(kind)) => {
                    let mut t = dry(kind, None, None);
                    if kind == TerrainKind::Road {
                        t.height = ht.max(p.lake_level);
                    } else if kind == TerrainKind::Lake {
                        t.height = ht.max(p.lake_level);
                        t.depth = (p.lake_level - ht).max(0.0);
                    }
                    return t;
                }
                Some(&Placed::Feature(f)) => {
                    feature = Some(f);
                    generate = false;
                }
                Some(Placed::NoFeature) => generate = false,
                None => {}
            }
        }
        if ht < p.lake_level {
            return Terra {
                height: p.lake_level,
                depth: p.lake_level - ht,
                kind: TerrainKind::Lake,
                feature,
                code: None,
                snow: false,
            };
        }
        if ht < p.lake_base {
            return dry(TerrainKind::Mud, feature, None);
        }
        let mut code = None;
        if generate {
            feature = self.generated_feature(xr, yr);
            if feature.is_some_and(|f| f != Feature::Cone) {
                code = Some(ControlCode::at(xr, yr));
            }
        }
        match self.land_kind(xr, yr) {
            TerrainKind::Town => dry(TerrainKind::Town, None, None),
            kind => dry(kind, feature, code),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_input_never_panics() {
        let t = Terrain::default();
        for (x, y) in [
            (f64::NAN, 0.0),
            (0.0, f64::INFINITY),
            (f64::NEG_INFINITY, f64::NAN),
            (1e300, -1e300),
        ] {
            let h = t.height(x, y);
            assert!(!h.is_finite() || x.is_finite(), "{x} {y} {h}");
            let _ = t.terra(x, y);
        }
        assert!(t.height(f64::NAN, 1.0).is_nan());
        assert!(t.height(f64::INFINITY, 1.0).is_nan());
    }

    #[test]
    fn heights_stay_exact_far_away() {
        // Integer coordinates far out give heights that are exact multiples
        // of 1/128 (every term is an integer plus k/128).
        let t = Terrain::default();
        for &(x, y) in &[(5.0e7, -5.0e7), (-4.9e7, 3.3e7), (1.0e9, 7.0)] {
            let h = t.height(x, y);
            assert!(h.is_finite());
            assert_eq!((h * 128.0).fract(), 0.0, "{x} {y} {h}");
        }
    }

    #[test]
    fn mountains_steepen_only_above_base() {
        let flat = Terrain::default();
        let p = TerrainParams {
            mountain_base: Some(400.0),
            ..Default::default()
        };
        let m = Terrain::new(p).unwrap();
        let mut above = 0;
        for i in 0..2000 {
            let (x, y) = (i as f64 * 7.3, i as f64 * -3.1);
            let (h0, h1) = (flat.height(x, y), m.height(x, y));
            if h0 > 400.0 {
                above += 1;
                assert_eq!(h1, 400.0 + (h0 - 400.0) * (h0 - 400.0).sqrt());
            } else {
                assert_eq!(h0, h1);
            }
        }
        assert!(above > 10);
    }

    #[test]
    fn time_evolution_moves_the_ground_and_is_exact_at_zero() {
        let t0 = Terrain::default();
        let t1 = Terrain::new(TerrainParams {
            time: 50.0,
            ..Default::default()
        })
        .unwrap();
        let t2 = Terrain::new(TerrainParams {
            time: 50.5,
            ..Default::default()
        })
        .unwrap();
        let (x, y) = (19000.0, 1260.0);
        assert_ne!(t0.height(x, y), t1.height(x, y));
        // Slow: half a second later the ground has moved by well under a metre.
        assert!((t1.height(x, y) - t2.height(x, y)).abs() < 1.0);
    }

    #[test]
    fn rain_floods_and_draining_exposes_mud() {
        let base = Terrain::default();
        // Find a shore point 1 m above the lake.
        let (x, y) = (0..20000)
            .map(|i| (i as f64, 1260.0))
            .find(|&(x, y)| (205.0..206.0).contains(&base.height(x, y)))
            .unwrap();
        assert_ne!(base.terra(x, y).kind, TerrainKind::Lake);
        let wet = Terrain::new(TerrainParams::default().with_rain(3.0)).unwrap();
        let s = wet.terra(x, y);
        assert_eq!(s.kind, TerrainKind::Lake);
        assert_eq!(s.height, 207.0);
        assert_eq!(s.depth, 207.0 - base.height(x, y));
        let (lx, ly) = (-1811.0, 3062.0); // 111.25 m: deep in a lake
        let dry = Terrain::new(TerrainParams::default().with_rain(-100.0)).unwrap();
        assert_eq!(dry.terra(lx, ly).kind, TerrainKind::Mud);
        let drained = Terrain::new(TerrainParams::default().with_rain(-92.0)).unwrap();
        assert_eq!(drained.terra(lx, ly).kind, TerrainKind::Lake);
        assert_eq!(drained.terra(lx, ly).depth, 0.75);
    }

    #[test]
    fn paths_option_marks_equal_height_lines() {
        let t = Terrain::new(TerrainParams {
            paths: Some(PathParams::default()),
            ..Default::default()
        })
        .unwrap();
        let mut n = 0;
        for i in 0..200 {
            for j in 0..200 {
                let (x, y) = (i as f64 * 3.0, j as f64 * 3.0);
                let s = t.terra(x, y);
                let h = t.height(x, y);
                let on = h > 204.0 && (h - t.height(x + 4000.0, y + 2000.0)).abs() < 2.0;
                assert_eq!(s.kind == TerrainKind::Path, on);
                n += on as usize;
            }
        }
        assert!(n > 100 && n < 20000, "{n}");
    }
}
