//! The Bevy side: [`ReliefPlugin`], coordinate mapping and meshing.
//!
//! Streaming the world around a focus arrives with the next milestone; for
//! now the plugin provides the shared terrain as a resource, and `mesh`
//! builds ground patches from it.

pub mod coords;
pub mod editor;
pub mod mesh;
pub mod shapes;
pub mod smoke;

use crate::terrain::{ParamError, Terrain, TerrainParams};
use bevy::prelude::*;
use std::sync::Arc;

/// The world's terrain, shared with worker threads.
#[derive(Resource, Clone, Debug, Deref)]
pub struct ReliefTerrain(pub Arc<Terrain>);

/// Adds the Relf world to a Bevy app. `Default` gives the reference world.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_relief::prelude::*;
/// App::new().add_plugins((DefaultPlugins, ReliefPlugin::default())).run();
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReliefPlugin {
    params: TerrainParams,
}

impl ReliefPlugin {
    /// A plugin for a world with these parameters (checked here, so that a
    /// bad configuration is an error at start-up rather than a panic later).
    pub fn with_params(params: TerrainParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self { params })
    }
}

impl Plugin for ReliefPlugin {
    fn build(&self, app: &mut App) {
        let terrain = Terrain::new(self.params.clone()).expect("validated in with_params");
        app.insert_resource(ReliefTerrain(Arc::new(terrain)));
    }
}
