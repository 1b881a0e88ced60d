//! Roads: the one seam road generators fit ([`RoadGenerator`]) and the
//! generators themselves — [`ContourRoads`] (after Relf's contour-following
//! roads) and Löbker's [`planner`]s. They take their network types from
//! [`crate::network`] and know nothing of cities; the world layer
//! ([`crate::world`]) composes them with the cities.

mod contour;
mod generator;
pub mod planner;

pub use contour::{
    ContourParams, ContourRoads, MAX_ROAD_AREA, MAX_ROAD_COORD, MAX_ROAD_SIDE, MAX_ROAD_STEPS,
    RoadAreaError, RoadStart, RoadWork,
};
#[cfg(test)]
pub(crate) use generator::check_conformance;
pub use generator::{RoadError, RoadGenerator};
