//! # bevy_relief
//!
//! Limitless procedural worlds for the Bevy game engine, after Graham Relf's
//! terrain generator: ground heights from sums of a periodic profile in several
//! directions, lakes, terrain kinds, sparse point features, trees, towns,
//! streams, mines and caverns, all computed on demand from the position.
//!
//! The crate has two halves:
//! - a pure core with no Bevy dependency ([`terrain`]: heights, kinds,
//!   objects, streams and the laid ground; [`roads`]: the road graph, the
//!   generator seam and the generators; [`geom`], [`num`], [`map`]):
//!   deterministic functions of parameters and position, usable on a server
//!   or in tests (`default-features = false`);
//! - the Bevy glue in `plugin` (feature `bevy`, on by default), which streams
//!   the world around the player as meshes.
//!
//! Core coordinates are f64 metres, x east, y north, z up.

pub mod city;
pub mod geom;
pub mod map;
pub mod num;
pub mod roads;
pub mod terrain;

/// The README's code runs as a doctest, so it cannot go stale.
#[cfg(all(doctest, feature = "bevy"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

#[cfg(feature = "bevy")]
pub mod plugin;

/// The names a Bevy game needs: `use bevy_relief::prelude::*;`.
#[cfg(feature = "bevy")]
pub mod prelude {
    #[allow(deprecated)]
    pub use crate::plugin::ReliefSet;
    pub use crate::plugin::{
        FewCoresPlugin, LaidRoads, OriginShifted, ReliefError, ReliefFocus, ReliefPlugin,
        ReliefPlugins, ReliefStats, ReliefSystems, ReliefWorkers, RenderOrigin, RoadsLaid,
        TerrainChunk, TerrainQuery, TerrainSettings, TerrainState, ViewSettings, WorldAnchor,
    };
    pub use crate::terrain::{Feature, Terra, Terrain, TerrainKind, TerrainParams};
}
