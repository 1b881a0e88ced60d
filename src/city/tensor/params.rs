//! The tracer's parameters: one [`StreamlineParams`] per level (main, major,
//! minor), the [`DensityParams`] that rank seeds and space the streets, and
//! [`TensorParams`] holding them all; defaults, serde, validation.

use crate::terrain::ParamError;
use serde::{Deserialize, Serialize};

/// Most steps one streamline may take (`max_length / dstep`).
pub const MAX_LINE_STEPS: f64 = 1.0e6;
/// The default [`StreamlineParams::tolerance`] (metres).
pub const DEFAULT_TOLERANCE: f64 = 0.01;
/// Most random seed candidates per level and family.
pub const MAX_SEED_TRIES: u32 = 100_000;

/// How one level of streets is traced (lengths in metres, angles in radians).
///
/// Deserialising fills missing fields from the defaults (the major level's)
/// and rejects unknown ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct StreamlineParams {
    /// Separation: a seed is kept only this far from every line of its
    /// family (divided by the local density, see [`DensityParams`]); also
    /// the offset of the seeds laid beside a finished line.
    pub dsep: f64,
    /// A line stops when it comes this close to another line of its family
    /// (or to itself, far enough back along it); at most `dsep`.
    pub dtest: f64,
    /// The integration step (one RK4 step per raw point), or with a
    /// `tolerance` the shortest step.
    pub dstep: f64,
    /// Local error allowed per integration step (metres): steps then grow
    /// from `dstep` up to eight times the filing interval
    /// (`dstep · ⌊dtest / 4dstep⌋`) while an embedded error estimate stays
    /// within it, the line's points (and the separation tests) still along
    /// each step's curve at most the filing interval apart. 0: fixed RK4
    /// steps of `dstep`.
    pub tolerance: f64,
    /// How far ahead a dangling end looks for a line to join.
    pub dlookahead: f64,
    /// A dangling end joins a line only where the join leaves within this
    /// angle of the end's own direction.
    pub join_angle: f64,
    /// Random seed candidates drawn per family (after the gates and the
    /// candidates laid along lines), to reach pockets the others miss.
    pub seed_tries: u32,
    /// Douglas–Peucker tolerance of the finished lines (junctions are kept).
    pub simplify_tolerance: f64,
    /// Longest line; tracing stops there.
    pub max_length: f64,
    /// Lines shorter than this (before joining) are dropped.
    pub min_length: f64,
}

impl StreamlineParams {
    /// The main roads' defaults: dsep 400, dtest 200, dstep 1, lookahead 500.
    pub fn main() -> Self {
        Self::with(400.0, 200.0, 500.0)
    }

    /// The major streets' defaults: dsep 100, dtest 30, dstep 1, lookahead 200.
    pub fn major() -> Self {
        Self::with(100.0, 30.0, 200.0)
    }

    /// The minor streets' defaults: dsep 20, dtest 15, dstep 1, lookahead 40.
    pub fn minor() -> Self {
        Self::with(20.0, 15.0, 40.0)
    }

    fn with(dsep: f64, dtest: f64, dlookahead: f64) -> Self {
        Self {
            dsep,
            dtest,
            dstep: 1.0,
            tolerance: DEFAULT_TOLERANCE,
            dlookahead,
            join_angle: 0.1,
            seed_tries: 300,
            simplify_tolerance: 0.5,
            max_length: 4000.0,
            min_length: dtest,
        }
    }

    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        check("dstep", self.dstep, 0.05, 100.0)?;
        check("dtest", self.dtest, 2.0 * self.dstep, 1.0e4)?;
        check("dsep", self.dsep, self.dtest, 1.0e4)?;
        check("tolerance", self.tolerance, 0.0, self.dtest)?;
        check("dlookahead", self.dlookahead, 0.0, 1.0e4)?;
        check(
            "join_angle",
            self.join_angle,
            0.0,
            std::f64::consts::FRAC_PI_2,
        )?;
        check(
            "seed_tries",
            self.seed_tries as f64,
            0.0,
            MAX_SEED_TRIES as f64,
        )?;
        check(
            "simplify_tolerance",
            self.simplify_tolerance,
            0.0,
            self.dtest,
        )?;
        check("max_length", self.max_length, self.dstep, 1.0e5)?;
        check(
            "max_length",
            self.max_length / self.dstep,
            1.0,
            MAX_LINE_STEPS,
        )?;
        check("min_length", self.min_length, 0.0, self.max_length)
    }
}

impl StreamlineParams {
    /// Points a line files in the collision store: every this many fixed
    /// steps (about `dtest / 4` apart).
    pub(crate) fn every(&self) -> i32 {
        ((self.dtest / (4.0 * self.dstep)).floor() as i32).max(1)
    }

    /// The longest piece of the line one step makes: `dstep`, or with a
    /// tolerance the filing interval.
    pub(crate) fn max_step(&self) -> f64 {
        if self.tolerance > 0.0 {
            self.every() as f64 * self.dstep
        } else {
            self.dstep
        }
    }
}

impl Default for StreamlineParams {
    fn default() -> Self {
        Self::major()
    }
}

/// The density field that ranks seeds and spaces streets: 1 at `centre`,
/// falling linearly to `floor` at `radius` and beyond. A seed's priority is
/// the density where it lies (so the dense middle is laid out first), and
/// the separation there is `dsep / density` (so streets are denser where it
/// is higher). `floor = 1` gives uniform streets.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct DensityParams {
    /// Where streets are densest; `None`: the boundary's centroid.
    pub centre: Option<glam::DVec2>,
    /// Distance from the centre at which the density reaches its floor;
    /// `None`: the farthest boundary point from the centre.
    pub radius: Option<f64>,
    /// The density far from the centre, relative to 1 there (0.1 ..= 1).
    pub floor: f64,
}

impl Default for DensityParams {
    fn default() -> Self {
        Self {
            centre: None,
            radius: None,
            floor: 0.75,
        }
    }
}

impl DensityParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        if let Some(c) = self.centre {
            check("centre.x", c.x, -1.0e12, 1.0e12)?;
            check("centre.y", c.y, -1.0e12, 1.0e12)?;
        }
        if let Some(r) = self.radius {
            check("radius", r, 1.0e-3, 1.0e7)?;
        }
        check("floor", self.floor, 0.1, 1.0)
    }
}

/// Everything the tensor-field street tracer takes besides the field.
///
/// Deserialising fills missing fields from the defaults and rejects unknown
/// ones.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TensorParams {
    /// Seed of the random candidates and of the priority jitter.
    pub seed: u64,
    /// Main roads ([`RoadClass::Road`](crate::network::RoadClass::Road)).
    pub main: StreamlineParams,
    /// Major streets.
    pub major: StreamlineParams,
    /// Minor streets.
    pub minor: StreamlineParams,
    /// Where streets are densest (seed priority and spacing).
    pub density: DensityParams,
    /// Cell of the sampled eigen-field the lines are traced through (the
    /// field is evaluated at its corners and interpolated between).
    pub field_cell: f64,
    /// A seed's priority is its density times `1 − jitter·u`, `u` uniform in
    /// `[0, 1)`: how much the seed reorders the candidates (0 ..= 1).
    pub priority_jitter: f64,
}

impl Default for TensorParams {
    fn default() -> Self {
        Self {
            seed: 0,
            main: StreamlineParams::main(),
            major: StreamlineParams::major(),
            minor: StreamlineParams::minor(),
            density: DensityParams::default(),
            field_cell: 5.0,
            priority_jitter: 0.25,
        }
    }
}

impl TensorParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.main.validate().map_err(|e| e.within("main"))?;
        self.major.validate().map_err(|e| e.within("major"))?;
        self.minor.validate().map_err(|e| e.within("minor"))?;
        self.density.validate().map_err(|e| e.within("density"))?;
        ParamError::check_range("field_cell", self.field_cell, 0.25, 1000.0)?;
        ParamError::check_range("priority_jitter", self.priority_jitter, 0.0, 1.0)
    }

    /// The three levels, main first.
    pub fn levels(&self) -> [&StreamlineParams; 3] {
        [&self.main, &self.major, &self.minor]
    }
}
