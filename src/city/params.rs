//! The settlement layer's parameters: defaults, serde, validation.

use crate::terrain::ParamError;
use serde::{Deserialize, Serialize};

/// Most steps a footprint ray may take (`max_radius · (1 + wobble) / step`).
pub const MAX_RAY_STEPS: f64 = 10_000.0;

/// What shapes the cities: a jittered grid of candidate sites, the ground a
/// site needs, and how its footprint is traced.
///
/// Deserialising fills missing fields from the defaults and rejects unknown
/// ones. Lengths are metres; slopes are rise over run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct SettlementParams {
    /// Salt for every hash that picks a site's position, size, style and shape.
    pub seed: u64,
    /// Side of a grid cell: one candidate site per cell.
    pub spacing: f64,
    /// How far a site's centre may wander from its cell's centre, as a
    /// fraction of the spacing (0 = a regular grid, 1 = anywhere in the cell).
    pub jitter: f64,
    /// Chance that a cell's site is tried at all (0 ..= 1).
    pub chance: f64,
    /// Smallest nominal radius.
    pub min_radius: f64,
    /// Largest nominal radius.
    pub max_radius: f64,
    /// How much a footprint ray's length varies around the radius (a smooth
    /// wobble of a few lobes), as a fraction of it (0 ..= 0.5).
    pub wobble: f64,
    /// Largest mean ground slope (sampled over the site's disc) a site may have.
    pub max_slope: f64,
    /// Once past the core, a footprint ray stops before a step rising or
    /// falling more than this per metre of step (steep ground).
    pub max_step_slope: f64,
    /// Largest fraction of the site's disc samples that may lie under water.
    pub max_lake_fraction: f64,
    /// Chance that a city is [`Planned`](super::CityStyle::Planned) rather
    /// than [`Organic`](super::CityStyle::Organic).
    pub planned_chance: f64,
    /// Number of footprint rays (the boundary's vertex count).
    pub rays: u32,
    /// How much longer a footprint ray may be than its neighbour, as a
    /// fraction of the arc between them at the nominal radius (1 = edges at
    /// most 45° off the circle there; 0.01 ..= 1000). Rays are only ever
    /// shortened to meet it, never past where their walk stopped: lone long
    /// rays (spikes) are cut down, lone short ones (slits) open into bays.
    /// Large values leave the walked rays but for a light rounding of corners.
    pub max_ray_slope: f64,
    /// Length of a step along a footprint ray (also the baseline of the
    /// slope samples).
    pub step: f64,
    /// Every ray must run at least this far over dry ground (the city's
    /// core, where steep steps do not stop it), or the site is dropped.
    pub core_radius: f64,
    /// A footprint must cover at least this fraction of its nominal disc
    /// (π·radius²), or the site is dropped.
    pub min_fill: f64,
    /// Least distance between the footprints of neighbouring cities (each
    /// stops `gap / 2` short of the bisector between their centres).
    pub gap: f64,
    /// Candidate centres tried per cell (each jittered independently): the
    /// suitable one on the smoothest ground wins (valley floors, shores,
    /// plateaus: the least earthwork). 1: the cell's first candidate only.
    /// (3: with 4 to 8, city (1, 0) of the reference world moves where its
    /// layout leaves a highway gate unjoined.)
    pub site_tries: u32,
    /// Baseline of the ground's slope that measures a candidate's
    /// roughness (mean over a few points of its disc), metres: the town's
    /// scale, not the micro-relief.
    pub roughness_scale: f64,
}

impl Default for SettlementParams {
    fn default() -> Self {
        Self {
            seed: 0,
            spacing: 6000.0,
            jitter: 0.7,
            chance: 0.8,
            min_radius: 500.0,
            max_radius: 1500.0,
            wobble: 0.15,
            max_slope: 1.0,
            max_step_slope: 2.5,
            max_lake_fraction: 0.25,
            planned_chance: 0.5,
            rays: 48,
            max_ray_slope: 2.0,
            step: 25.0,
            core_radius: 50.0,
            min_fill: 0.25,
            gap: 200.0,
            site_tries: 3,
            roughness_scale: 150.0,
        }
    }
}

impl SettlementParams {
    /// The farthest a footprint can reach from its centre.
    pub fn reach(&self) -> f64 {
        self.max_radius * (1.0 + self.wobble)
    }

    /// Checks every field; the error names the first offending one.
    ///
    /// Besides each field's range: the spacing must hold two largest
    /// footprints and the gap (`spacing ≥ 2·reach + gap`), so only the eight
    /// neighbouring cells can crowd a city; a ray takes at most
    /// [`MAX_RAY_STEPS`] steps; the core fits inside the smallest wobbled radius.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        check("jitter", self.jitter, 0.0, 1.0)?;
        check("chance", self.chance, 0.0, 1.0)?;
        check("min_radius", self.min_radius, 10.0, 1.0e5)?;
        check("max_radius", self.max_radius, self.min_radius, 1.0e5)?;
        check("wobble", self.wobble, 0.0, 0.5)?;
        check("max_slope", self.max_slope, 0.0, 1.0e3)?;
        check("max_step_slope", self.max_step_slope, 0.0, 1.0e3)?;
        check("max_lake_fraction", self.max_lake_fraction, 0.0, 1.0)?;
        check("planned_chance", self.planned_chance, 0.0, 1.0)?;
        check("rays", self.rays as f64, 8.0, 1024.0)?;
        check("max_ray_slope", self.max_ray_slope, 0.01, 1.0e3)?;
        check("step", self.step, 0.5, 1.0e4)?;
        check("step", self.step, self.reach() / MAX_RAY_STEPS, 1.0e4)?;
        check(
            "core_radius",
            self.core_radius,
            0.5,
            self.min_radius * (1.0 - self.wobble),
        )?;
        check("min_fill", self.min_fill, 0.0, 1.0)?;
        check("gap", self.gap, 0.0, 1.0e5)?;
        check("site_tries", self.site_tries as f64, 1.0, 16.0)?;
        check("roughness_scale", self.roughness_scale, 1.0, 1.0e4)?;
        check(
            "spacing",
            self.spacing,
            2.0 * self.reach() + self.gap,
            1.0e7,
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_validate_and_bad_values_are_named() {
        SettlementParams::default().validate().unwrap();
        let bad = |f: fn(&mut SettlementParams)| {
            let mut p = SettlementParams::default();
            f(&mut p);
            p.validate().unwrap_err()
        };
        let field = |e: ParamError| match e {
            ParamError::NotFinite { field, .. } | ParamError::OutOfRange { field, .. } => field,
            other => panic!("{other:?}"),
        };
        assert_eq!(field(bad(|p| p.spacing = f64::NAN)), "spacing");
        assert_eq!(field(bad(|p| p.spacing = -6000.0)), "spacing");
        assert_eq!(field(bad(|p| p.spacing = 1e300)), "spacing");
        // Too tight for two footprints side by side.
        assert_eq!(field(bad(|p| p.spacing = 3000.0)), "spacing");
        assert_eq!(field(bad(|p| p.jitter = 1.5)), "jitter");
        assert_eq!(field(bad(|p| p.chance = -0.1)), "chance");
        assert_eq!(field(bad(|p| p.min_radius = f64::INFINITY)), "min_radius");
        assert_eq!(field(bad(|p| p.max_radius = 400.0)), "max_radius");
        assert_eq!(field(bad(|p| p.wobble = f64::NAN)), "wobble");
        assert_eq!(field(bad(|p| p.max_slope = -1.0)), "max_slope");
        assert_eq!(
            field(bad(|p| p.max_lake_fraction = 2.0)),
            "max_lake_fraction"
        );
        assert_eq!(
            field(bad(|p| p.planned_chance = f64::NAN)),
            "planned_chance"
        );
        assert_eq!(field(bad(|p| p.rays = 3)), "rays");
        assert_eq!(field(bad(|p| p.rays = u32::MAX)), "rays");
        assert_eq!(field(bad(|p| p.max_ray_slope = 0.0)), "max_ray_slope");
        assert_eq!(field(bad(|p| p.max_ray_slope = f64::NAN)), "max_ray_slope");
        assert_eq!(field(bad(|p| p.step = 0.0)), "step");
        // A million steps a ray.
        assert_eq!(
            field(bad(|p| {
                p.step = 0.5;
                p.max_radius = 90_000.0;
                p.spacing = 1.0e6;
            })),
            "step"
        );
        assert_eq!(field(bad(|p| p.core_radius = 600.0)), "core_radius");
        assert_eq!(field(bad(|p| p.min_fill = f64::NAN)), "min_fill");
        assert_eq!(field(bad(|p| p.gap = -1.0)), "gap");
        assert_eq!(field(bad(|p| p.site_tries = 0)), "site_tries");
        assert_eq!(field(bad(|p| p.site_tries = 1000)), "site_tries");
        assert_eq!(
            field(bad(|p| p.roughness_scale = f64::NAN)),
            "roughness_scale"
        );
        assert_eq!(field(bad(|p| p.roughness_scale = 0.0)), "roughness_scale");
    }

    #[test]
    fn serde_fills_defaults_and_rejects_unknown_keys() {
        let p: SettlementParams = ron::from_str("(spacing: 8000.0)").unwrap();
        assert_eq!(p.spacing, 8000.0);
        assert_eq!(p.rays, SettlementParams::default().rays);
        assert!(ron::from_str::<SettlementParams>("(spacign: 8000.0)").is_err());
        let s = ron::to_string(&SettlementParams::default()).unwrap();
        assert_eq!(
            ron::from_str::<SettlementParams>(&s).unwrap(),
            SettlementParams::default()
        );
    }
}
