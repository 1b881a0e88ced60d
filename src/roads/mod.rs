//! Roads: the planar road graph that every generator produces and the
//! renderer draws ([`RoadNetwork`]), the one seam generators fit
//! ([`RoadGenerator`]), [`planarize`] to combine their networks, and the
//! generators themselves ([`ContourRoads`], after Relf's contour-following
//! roads). [`RoadLayer`] lays a network on the ground.

mod contour;
mod generator;
mod layer;
mod network;
mod planarize;
pub mod planner;
mod system;

pub use contour::{
    ContourParams, ContourRoads, MAX_ROAD_AREA, MAX_ROAD_STEPS, RoadAreaError, RoadStart, RoadWork,
};
pub use generator::{RoadError, RoadGenerator};
pub use layer::RoadLayer;
pub use network::{Junction, PlanarityError, PlanarityFault, Road, RoadClass, RoadNetwork};
pub use planarize::planarize;
pub use system::{RoadSystem, RoadSystemParams};
