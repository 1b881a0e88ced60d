//! [`ReliefPhysicsSettings`]: where colliders are made and how finely, and
//! their checks.

use super::COLLIDER_CELL;
use crate::terrain::ParamError;
use bevy::prelude::*;

/// Where colliders are made and how finely (a resource: change it live;
/// a bad value is reported and the last good settings stay).
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct ReliefPhysicsSettings {
    /// Colliders stand within this distance of the focus, metres (16–5000).
    pub collider_radius: f64,
    /// The ground is sampled every `fine_spacing` metres within this
    /// distance (0 to `collider_radius`).
    pub fine_radius: f64,
    /// The ground's sample spacing near the focus, metres (0.25–16; rounded
    /// to divide [`COLLIDER_CELL`]).
    pub fine_spacing: f64,
    /// The ground's sample spacing farther away, metres (0.25–16).
    pub coarse_spacing: f64,
    /// Bodies inserted per frame at most (1–1000).
    pub inserts_per_frame: usize,
}

impl Default for ReliefPhysicsSettings {
    fn default() -> Self {
        Self {
            collider_radius: 400.0,
            fine_radius: 100.0,
            fine_spacing: 1.0,
            coarse_spacing: 2.0,
            inserts_per_frame: 4,
        }
    }
}

impl ReliefPhysicsSettings {
    /// Checks every field's range (errors name the field, e.g.
    /// `physics.collider_radius`).
    pub fn validate(&self) -> Result<(), ParamError> {
        let range = |field: &'static str, value: f64, min: f64, max: f64| {
            ParamError::check_range(field, value, min, max).map_err(|e| e.within("physics"))
        };
        range("collider_radius", self.collider_radius, 16.0, 5000.0)?;
        range("fine_radius", self.fine_radius, 0.0, self.collider_radius)?;
        range("fine_spacing", self.fine_spacing, 0.25, 16.0)?;
        range("coarse_spacing", self.coarse_spacing, 0.25, 16.0)?;
        let inserts = self.inserts_per_frame as f64;
        range("inserts_per_frame", inserts, 1.0, 1000.0)
    }

    /// Ground cells per side of a collider cell at `distance` from the focus.
    pub(super) fn cells_per_side(&self, distance: f64) -> usize {
        let spacing = if distance <= self.fine_radius {
            self.fine_spacing
        } else {
            self.coarse_spacing
        };
        (COLLIDER_CELL / spacing).round().clamp(1.0, 256.0) as usize
    }
}
