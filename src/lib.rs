//! # bevy_relief
//!
//! Limitless procedural worlds for the Bevy game engine, after Graham Relf's
//! terrain generator: ground heights from sums of a periodic profile in several
//! directions, lakes, terrain kinds, sparse point features, trees, towns,
//! streams, mines and caverns, all computed on demand from the position.
//!
//! The crate has two halves:
//! - a pure core with no Bevy dependency: deterministic functions of
//!   parameters and position, usable on a server or in tests
//!   (`default-features = false`), in layers that import one way only:
//!   ```text
//!   geom, num, terrain   geometry; heights, kinds, objects, streams, laid ground
//!     → network          RoadNetwork, Road, RoadClass, planarize, RoadLayer
//!       → roads, city    road generators and planners | settlements, streets, lots
//!         → world        RoadSystem: one Region (network, cities, layouts) per area
//!           → map        the map renderer
//!   ```
//! - the Bevy glue in `plugin` (feature `bevy`, on by default), which streams
//!   the world's regions around the player as meshes.
//!
//! Core coordinates are f64 metres, x east, y north, z up.

pub mod city;
pub mod geom;
pub mod map;
pub mod network;
pub mod num;
pub mod roads;
pub mod terrain;
mod threads;
pub mod world;

/// The README's code runs as a doctest, so it cannot go stale.
#[cfg(all(doctest, feature = "bevy"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(feature = "bevy")]
pub mod plugin;

/// The names a Bevy game needs: `use bevy_relief::prelude::*;`.
#[cfg(feature = "bevy")]
pub mod prelude {
    pub use crate::network::{Road, RoadClass, RoadNetwork};
    #[allow(deprecated)]
    pub use crate::plugin::{FewCoresPlugin, ReliefSet};
    pub use crate::plugin::{
        LaidRoads, OriginShifted, ReliefError, ReliefFocus, ReliefPlugin, ReliefPlugins,
        ReliefStats, ReliefSystems, ReliefWorkers, RenderOrigin, RoadsLaid,
        SingleThreadedSchedulesPlugin, TerrainChunk, TerrainQuery, TerrainSettings, TerrainState,
        ViewSettings, WorldAnchor,
    };
    pub use crate::roads::RoadGenerator;
    pub use crate::terrain::{Feature, Terra, Terrain, TerrainKind, TerrainParams};
    pub use crate::world::{Region, RoadSystem, RoadSystemParams};
}
