//! [`TerrainParams::validate`] and its typed [`ParamError`].

use super::*;
use thiserror::Error;

/// Why a parameter struct was rejected. Every variant names the offending
/// field by its full path from the struct validated (`trees.spacing`,
/// `levels[1].clearance`); a struct that holds others prefixes their errors
/// with [`within`](Self::within), so the plugin's settings report e.g.
/// `roads.highways.step`.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ParamError {
    /// The profile length is not a power of two in `2..=MAX_PROFILE_LEN`.
    #[error("{field}: length {len} is not a power of two between 2 and {MAX_PROFILE_LEN}")]
    ProfileLength {
        /// The profile's path.
        field: String,
        /// Its length.
        len: usize,
    },
    /// A number that must be finite is NaN or infinite.
    #[error("{field}: must be finite, got {value}")]
    NotFinite {
        /// The offending field.
        field: String,
        /// Its value.
        value: f64,
    },
    /// A vector set is too short or too long.
    #[error("{field}: needs 5 to {MAX_VECTORS} direction vectors, got {len}")]
    VectorCount {
        /// The offending field.
        field: String,
        /// Its length.
        len: usize,
    },
    /// Two sets that are used pairwise differ in length.
    #[error("{field}: must have the same length as {other} ({len} vs {other_len})")]
    LengthMismatch {
        /// The offending field.
        field: String,
        /// Its length.
        len: usize,
        /// The field it must match.
        other: String,
        /// That field's length.
        other_len: usize,
    },
    /// Settings that together ask for more work than a bound allows.
    #[error("{field}: {what} would be {value:.0}, more than {max:.0}: {advice}")]
    TooMuchWork {
        /// The field to change first.
        field: String,
        /// What would be too large.
        what: &'static str,
        /// Its value for these settings.
        value: f64,
        /// The bound.
        max: f64,
        /// What to change.
        advice: &'static str,
    },
    /// A number lies outside its allowed range.
    #[error("{field}: {value} is outside {min} ..= {max}")]
    OutOfRange {
        /// The offending field.
        field: String,
        /// Its value.
        value: f64,
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
}

/// `parent.field`, or `parent[i]…` when `field` starts with an index.
fn join(parent: &str, field: &str) -> String {
    match (
        parent.is_empty(),
        field.is_empty() || field.starts_with('['),
    ) {
        (true, _) => field.to_owned(),
        (false, true) => format!("{parent}{field}"),
        (false, false) => format!("{parent}.{field}"),
    }
}

fn finite(field: &'static str, value: f64) -> Result<(), ParamError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ParamError::NotFinite {
            field: field.into(),
            value,
        })
    }
}

/// `value` must be finite and in `min..=max`; the error names `field`.
pub(crate) fn in_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
) -> Result<(), ParamError> {
    finite(field, value)?;
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ParamError::out_of_range(field, value, min, max))
    }
}

impl ParamError {
    /// `Ok` when `value` is finite and in `min..=max`; otherwise the error
    /// naming `field`. For the `validate()` of any parameter struct.
    pub fn check_range(field: &'static str, value: f64, min: f64, max: f64) -> Result<(), Self> {
        in_range(field, value, min, max)
    }

    /// An [`OutOfRange`](Self::OutOfRange) error naming `field` (for a rule
    /// that [`check_range`](Self::check_range) cannot state, e.g. "odd").
    pub fn out_of_range(field: &'static str, value: f64, min: f64, max: f64) -> Self {
        Self::OutOfRange {
            field: field.into(),
            value,
            min,
            max,
        }
    }

    /// A profile of `len` entries, which is not a power of two in
    /// `2..=MAX_PROFILE_LEN`.
    pub fn profile_length(len: usize) -> Self {
        Self::ProfileLength {
            field: "profile".into(),
            len,
        }
    }

    /// The error with its path prefixed by `parent` (`parent.field`): how a
    /// struct reports a part's error, e.g.
    /// `self.contour.validate().map_err(|e| e.within("contour"))`.
    #[must_use]
    pub fn within(mut self, parent: &str) -> Self {
        match &mut self {
            Self::LengthMismatch { field, other, .. } => {
                *field = join(parent, field);
                *other = join(parent, other);
            }
            Self::ProfileLength { field, .. }
            | Self::NotFinite { field, .. }
            | Self::VectorCount { field, .. }
            | Self::TooMuchWork { field, .. }
            | Self::OutOfRange { field, .. } => *field = join(parent, field),
        }
        self
    }

    /// The error of item `index` of the list `parent` (`parent[index].field`).
    #[must_use]
    pub fn at(self, parent: &str, index: usize) -> Self {
        self.within(&format!("{parent}[{index}]"))
    }

    /// The offending field's full path.
    pub fn field(&self) -> &str {
        match self {
            Self::ProfileLength { field, .. }
            | Self::NotFinite { field, .. }
            | Self::VectorCount { field, .. }
            | Self::LengthMismatch { field, .. }
            | Self::TooMuchWork { field, .. }
            | Self::OutOfRange { field, .. } => field,
        }
    }
}

fn vector_set(field: &'static str, set: &[DVec2]) -> Result<(), ParamError> {
    if !(5..=MAX_VECTORS).contains(&set.len()) {
        return Err(ParamError::VectorCount {
            field: field.into(),
            len: set.len(),
        });
    }
    for v in set {
        // Components beyond ±1e6 would push (a·x + b·y) past exact f64 integers
        // within a few thousand km.
        in_range(field, v.x, -1e6, 1e6)?;
        in_range(field, v.y, -1e6, 1e6)?;
    }
    Ok(())
}

/// Largest magnitude of any height or threshold we accept (metres).
const BIG: f64 = 1e9;

impl TerrainParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let n = self.profile.len();
        if !(2..=MAX_PROFILE_LEN).contains(&n) || !n.is_power_of_two() {
            return Err(ParamError::profile_length(n));
        }
        for &p in &self.profile {
            in_range("profile", p, -1e6, 1e6)?;
        }
        vector_set("height_vectors", &self.height_vectors)?;
        vector_set("town_vectors", &self.town_vectors)?;
        vector_set("vegetation_vectors", &self.vegetation_vectors)?;
        vector_set("undergrowth_vectors", &self.undergrowth_vectors)?;
        if self.undergrowth_vectors.len() != self.vegetation_vectors.len() {
            return Err(ParamError::LengthMismatch {
                field: "undergrowth_vectors".into(),
                len: self.undergrowth_vectors.len(),
                other: "vegetation_vectors".into(),
                other_len: self.vegetation_vectors.len(),
            });
        }
        if self.time_vector.len() != self.height_vectors.len() {
            return Err(ParamError::LengthMismatch {
                field: "time_vector".into(),
                len: self.time_vector.len(),
                other: "height_vectors".into(),
                other_len: self.height_vectors.len(),
            });
        }
        for &c in &self.time_vector {
            in_range("time_vector", c, -1e6, 1e6)?;
        }
        in_range("time", self.time, -BIG, BIG)?;
        for (field, v) in [
            ("town_threshold", self.town_threshold),
            ("open_threshold", self.open_threshold),
            ("moor_threshold", self.moor_threshold),
            ("thicket_threshold", self.thicket_threshold),
            ("lake_base", self.lake_base),
            ("lake_level", self.lake_level),
            ("snow_level", self.snow_level),
        ] {
            in_range(field, v, -BIG, BIG)?;
        }
        if let Some(base) = self.mountain_base {
            in_range("mountain_base", base, -BIG, BIG)?;
        }
        if let Some(p) = &self.paths {
            in_range("paths.offset", p.offset.x, -BIG, BIG)?;
            in_range("paths.offset", p.offset.y, -BIG, BIG)?;
            in_range("paths.tolerance", p.tolerance, 0.0, 1e4)?;
        }
        let t = &self.trees;
        in_range("trees.spacing", t.spacing, 1.0, 1000.0)?;
        if t.spacing.fract() != 0.0 {
            return Err(ParamError::out_of_range(
                "trees.spacing (a whole number)",
                t.spacing,
                1.0,
                1000.0,
            ));
        }
        in_range("trees.wood_density", t.wood_density, 0.0, 1.0)?;
        in_range("trees.thicket_density", t.thicket_density, 0.0, 1.0)?;
        in_range("trees.jitter", t.jitter, 0.0, 0.5)?;
        let w = &self.towns;
        in_range("towns.building_chance", w.building_chance, 0.0, 1.0)?;
        in_range("towns.min_floors", w.min_floors as f64, 1.0, 100.0)?;
        in_range(
            "towns.max_floors",
            w.max_floors as f64,
            w.min_floors as f64,
            100.0,
        )?;
        in_range("towns.floor_height", w.floor_height, 0.5, 20.0)?;
        in_range("towns.variants", w.variants as f64, 1.0, 256.0)?;
        let s = &self.streams;
        if s.window.is_multiple_of(2) {
            return Err(ParamError::out_of_range(
                "streams.window (odd)",
                s.window as f64,
                3.0,
                101.0,
            ));
        }
        in_range("streams.window", s.window as f64, 3.0, 101.0)?;
        // Longer streams would grow the stream scan's margin past
        // MAX_SCAN_AREA; this bound leaves `streams_in` at least 3 km × 3 km.
        in_range("streams.max_length", s.max_length, 0.0, MAX_STREAM_LENGTH)?;
        let m = &self.mines;
        in_range("mines.cell", m.cell as f64, 1.0, 1024.0)?;
        in_range("mines.openness", m.openness, 0.0, 1.0)?;
        in_range("mines.depth", m.depth, 0.0, 1e4)?;
        let c = &self.caverns;
        in_range("caverns.level", c.level, -BIG, BIG)?;
        in_range("caverns.gap", c.gap, -BIG, BIG)?;
        for (field, v) in [
            ("caverns.floor_offset", c.floor_offset),
            ("caverns.roof_offset", c.roof_offset),
        ] {
            in_range(field, v.x, -BIG, BIG)?;
            in_range(field, v.y, -BIG, BIG)?;
        }
        in_range("caverns.scale", c.scale, 1e-3, 1e3)?;
        in_range("caverns.min_cover", c.min_cover, 0.0, 1e4)?;
        Ok(())
    }

    /// The reference world with a random sum-of-sines profile of `len`
    /// entries made from `seed` (see [`crate::terrain::random_profile`]): lake
    /// level 34 and snow at 2.4 × the profile maximum, as in the seed.
    pub fn random(seed: u64, len: usize) -> Result<Self, ParamError> {
        let profile = crate::terrain::random_profile(seed, len)?;
        let max = profile.iter().copied().fold(f64::MIN, f64::max);
        Ok(Self {
            profile,
            lake_base: 34.0,
            lake_level: 34.0,
            snow_level: max * 2.4,
            seed,
            ..Self::default()
        })
    }

    /// Normal lake level plus `metres` of rain (negative drains the lakes).
    pub fn with_rain(mut self, metres: f64) -> Self {
        self.lake_level = self.lake_base + metres;
        self
    }
}
