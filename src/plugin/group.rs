//! [`ReliefPlugins`]: the world as a plugin group in the style of avian and
//! big_space. Each part is its own plugin and can be left out or replaced:
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_relief::prelude::*;
//! use bevy_relief::plugin::ReliefObjectsPlugin;
//! App::new().add_plugins((
//!     DefaultPlugins,
//!     ReliefPlugins::default().build().disable::<ReliefObjectsPlugin>(), // no trees
//! ));
//! ```
//!
//! [`ReliefPlugin`] adds the whole group.

use super::stream::chunks::{self, ChunkManager};
use super::stream::coords::{self, FocusState, OriginShifted, RenderOrigin};
use super::stream::settings::{self, TerrainSettings, TerrainState};
use super::stream::upload::{self, UploadBudget};
use super::stream::{cities, objects, roads, structures};
use super::{
    ReliefAssets, ReliefError, ReliefPlugin, ReliefStats, ReliefSystems, RoadsLaid, create_assets,
    update_stats,
};
use bevy::app::PluginGroupBuilder;
use bevy::prelude::*;
use bevy::transform::TransformSystems;

/// Every part of the world, configured by the [`ReliefPlugin`] it wraps:
/// `ReliefPlugins::default()`, or
/// `ReliefPlugin::default().view_distance(8000.0).plugins()`.
#[derive(Clone, Debug, Default)]
pub struct ReliefPlugins(pub ReliefPlugin);

impl From<ReliefPlugin> for ReliefPlugins {
    fn from(p: ReliefPlugin) -> Self {
        Self(p)
    }
}

impl PluginGroup for ReliefPlugins {
    fn build(self) -> PluginGroupBuilder {
        let group = PluginGroupBuilder::start::<Self>()
            .add(ReliefCorePlugin(self.0))
            .add(ReliefOriginPlugin)
            .add(ReliefRoadsPlugin)
            .add(ReliefChunksPlugin)
            .add(ReliefObjectsPlugin);
        // Static colliders for avian3d (the game adds avian's plugins).
        #[cfg(feature = "physics")]
        let group = group.add(super::physics::ReliefPhysicsPlugin);
        // One thread for the main schedules (on any number of cores).
        group.add(super::stream::tasks::SingleThreadedSchedulesPlugin::default())
    }
}

/// What every part needs: the settings and the terrain built from them, the
/// laid ground (bare until roads come), the focus (read every frame) and
/// render origin, shared assets, the frame's [`UploadBudget`], messages,
/// statistics and the order of [`ReliefSystems`]. The other parts do
/// nothing without it.
#[derive(Clone, Debug, Default)]
pub struct ReliefCorePlugin(pub ReliefPlugin);

impl Plugin for ReliefCorePlugin {
    fn build(&self, app: &mut App) {
        let state = TerrainState::new(&self.0.settings).unwrap_or_else(|e| {
            error!("ReliefPlugin: {e}; using the reference world");
            let mut s = TerrainState::new(&TerrainSettings::default()).expect("defaults are valid");
            s.settings_error = Some(e);
            s
        });
        let laid = roads::LaidRoads::bare(state.terrain.clone());
        app.insert_resource(self.0.settings.clone())
            .insert_resource(state)
            .insert_resource(laid)
            .insert_resource(self.0.roads.clone())
            .init_resource::<super::stream::tasks::ReliefWorkers>()
            .init_resource::<RenderOrigin>()
            .init_resource::<FocusState>()
            .init_resource::<ReliefStats>()
            .init_resource::<UploadBudget>()
            .register_type::<UploadBudget>()
            .add_message::<OriginShifted>()
            .add_message::<ReliefError>()
            .add_message::<RoadsLaid>()
            .add_systems(Startup, create_assets.in_set(ReliefSystems::Assets))
            .configure_sets(
                PostUpdate,
                (
                    ReliefSystems::Settings,
                    ReliefSystems::Origin,
                    ReliefSystems::Roads,
                    ReliefSystems::Chunks,
                    ReliefSystems::Objects,
                    ReliefSystems::Stats,
                )
                    .chain()
                    .before(TransformSystems::Propagate),
            )
            .add_systems(
                PostUpdate,
                (
                    (settings::apply_settings, upload::refill_upload_budget)
                        .chain()
                        .in_set(ReliefSystems::Settings),
                    coords::read_focus.in_set(ReliefSystems::Origin),
                    update_stats.in_set(ReliefSystems::Stats),
                ),
            );
    }
}

/// The floating origin: moves the render origin after the
/// [`ReliefFocus`](super::ReliefFocus) and re-places anchored entities.
/// Without it the origin stays put (the world still streams around the
/// focus, with f32 precision fading far from the start).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReliefOriginPlugin;

impl Plugin for ReliefOriginPlugin {
    fn build(&self, app: &mut App) {
        app.add_systems(
            PostUpdate,
            (coords::follow_focus, coords::place_anchored)
                .chain()
                .after(coords::read_focus)
                .in_set(ReliefSystems::Origin)
                .run_if(resource_exists::<TerrainState>),
        );
    }

    fn finish(&self, app: &mut App) {
        needs_core(app, "ReliefOriginPlugin");
    }
}

/// Roads and streams around the focus, from the
/// [`RoadSource`](super::RoadSource), laid on the ground. Without it the
/// ground stays bare and objects do not wait for roads.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReliefRoadsPlugin;

impl Plugin for ReliefRoadsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<roads::RoadManager>().add_systems(
            PostUpdate,
            roads::update_roads
                .in_set(ReliefSystems::Roads)
                .run_if(resource_exists::<TerrainState>),
        );
    }

    fn finish(&self, app: &mut App) {
        needs_core(app, "ReliefRoadsPlugin");
    }
}

/// A part without [`ReliefCorePlugin`] has nothing to work on: its systems
/// stay idle, and this says why.
fn needs_core(app: &App, part: &str) {
    if !app.world().contains_resource::<TerrainState>() {
        error!("{part} needs ReliefCorePlugin (part of ReliefPlugins): it does nothing without it");
    }
}

/// The ground as quadtree chunks, with the road ribbons over them, and the
/// roads' bridges and tunnels and the towns' retaining walls.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReliefChunksPlugin;

impl Plugin for ReliefChunksPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ChunkManager>()
            .init_resource::<structures::StructureManager>()
            .add_systems(
                PostUpdate,
                (
                    chunks::request_chunks,
                    chunks::receive_chunks,
                    chunks::retire_chunks,
                    chunks::update_ribbons,
                    // After the ground: it draws on the frame's upload
                    // budget first.
                    structures::update_structures,
                )
                    .chain()
                    .in_set(ReliefSystems::Chunks)
                    .run_if(resource_exists::<ReliefAssets>),
            );
    }

    fn finish(&self, app: &mut App) {
        needs_core(app, "ReliefChunksPlugin");
    }
}

/// Trees, point features and buildings near the focus, and the cities'
/// buildings (one mesh per city).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReliefObjectsPlugin;

impl Plugin for ReliefObjectsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<objects::ObjectManager>()
            .init_resource::<cities::CityManager>()
            .add_systems(
                PostUpdate,
                (
                    // Cities' buildings draw on the upload budget before the
                    // far trees.
                    cities::update_cities,
                    objects::request_cells,
                    objects::tree_detail,
                    objects::spawn_cells,
                )
                    .chain()
                    .in_set(ReliefSystems::Objects)
                    .run_if(resource_exists::<ReliefAssets>),
            );
    }

    fn finish(&self, app: &mut App) {
        needs_core(app, "ReliefObjectsPlugin");
    }
}
