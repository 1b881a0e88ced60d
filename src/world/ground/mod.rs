//! Earthworks: roads and towns built into the ground. Every road of a region
//! gets a vertical profile ([`Road::z`](crate::network::Road::z)) under its
//! class's grade limit, the same at every junction; the ground is cut and
//! filled under it with side slopes ([`Earthworks`], a
//! [`Relief`](crate::terrain::Relief) laid on the terrain), towns stand on
//! level pads; where the fill would be too high a road is a bridge, where
//! the cut would be too deep a tunnel, and steps in the ground are retaining
//! walls ([`Structure`]).

mod params;
mod structures;

pub use params::{ClassGrades, EarthworkParams};
pub use structures::{Structure, StructureKind};

use crate::terrain::{Built, Relief};
use glam::DVec2;

/// The earthworks of a region: what shapes the ground near its roads and
/// towns (a [`Relief`]).
#[derive(Debug, Default)]
pub struct Earthworks {}

impl Relief for Earthworks {
    fn built(&self, _p: DVec2, _natural: f64) -> Option<Built> {
        None
    }

    fn may_shape(&self, _min: DVec2, _max: DVec2) -> bool {
        false
    }
}

/// What building a region's earthworks changed (for reports and
/// benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EarthworkReport {
    /// Streets too steep to drive, now footways with steps.
    pub streets_to_steps: usize,
}
