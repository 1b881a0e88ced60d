//! Earthworks: roads and towns built into the ground. Every road of a region
//! gets a vertical profile ([`Road::z`](crate::network::Road::z)) under its
//! class's grade limit, the same at every junction; the ground is cut and
//! filled under it with side slopes ([`Earthworks`], a
//! [`Relief`](crate::terrain::Relief) laid on the terrain), towns stand on
//! level pads; where the fill would be too high a road is a bridge, where
//! the cut would be too deep a tunnel, and steps in the ground are retaining
//! walls ([`Structure`]).

mod grid;
mod junctions;
mod laid;
mod narrow;
mod params;
mod pieces;
mod profile;
mod structures;
mod terraces;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_grades;
#[cfg(test)]
mod tests_grid;
mod works;

pub use laid::Earthworks;
pub use params::{ClassGrades, EarthworkParams};
pub use structures::{Structure, StructureKind};

pub(crate) use junctions::window;
pub(crate) use pieces::inside;
pub(crate) use profile::profiled;
pub(crate) use terraces::{CityPlan, Pad, plan};
pub(crate) use works::build;

/// What building a region's earthworks changed (for reports and
/// benchmarks).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EarthworkReport {
    /// Streets of the region's towns too steep to drive, now footways with
    /// steps.
    pub streets_to_steps: usize,
}
