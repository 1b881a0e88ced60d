//! The Bevy side: [`ReliefPlugin`] (the plugin group [`ReliefPlugins`])
//! streams the world around a [`ReliefFocus`].
//!
//! - `group`: the plugin group and its parts;
//! - `stream`: the streaming core (settings, focus and floating origin,
//!   roads, chunks, objects, cities, worker threads, mesh builders);
//! - `tools`: optional plugins: the inspector ([`ReliefInspectorPlugin`]),
//!   the map overlay ([`ReliefMapPlugin`]) and the road-planner tool
//!   ([`ReliefPlannerToolPlugin`]);
//! - `traffic`: vehicles on the roads, pedestrians on streets and footways
//!   ([`ReliefTrafficPlugin`], optional).
//!
//! With the `physics` feature, `physics` makes static avian3d colliders
//! around the focus (`ReliefPhysicsPlugin`, part of the group).
//!
//! Everything a game names is re-exported here; the modules are internal.

mod group;
#[cfg(feature = "physics")]
pub(crate) mod physics;
pub(crate) mod stream;
pub(crate) mod tools;
pub(crate) mod traffic;

use crate::roads::{RoadError, RoadGenerator};
use crate::terrain::{Feature, LaidGround, ParamError, Terra, Terrain, TerrainParams};
use bevy::ecs::system::SystemParam;
use bevy::math::DVec3;
use bevy::prelude::*;
use std::sync::Arc;
use stream::chunks::ChunkManager;
use stream::coords::FocusState;
use stream::{cities, objects, roads, shapes, structures};

pub use group::{
    ReliefChunksPlugin, ReliefCorePlugin, ReliefObjectsPlugin, ReliefOriginPlugin, ReliefPlugins,
    ReliefRoadsPlugin,
};
#[cfg(feature = "physics")]
pub use physics::{
    COLLIDER_CELL, CharacterControl, CharacterState, ColliderPart, HYSTERESIS, ReliefCharacter,
    ReliefCollider, ReliefColliders, ReliefPhysicsPlugin, ReliefPhysicsSettings, collider_cell,
    standing_height,
};
pub use stream::chunks::{ChunkKey, ChunkRoads, ChunkWater, TerrainChunk};
pub use stream::cities::{CITY_TILE, CityBuildings};
pub use stream::coords::{
    OriginShifted, ReliefFocus, RenderOrigin, WorldAnchor, dir_to_bevy, from_bevy, to_bevy,
};
pub use stream::objects::{CellKey, FarTrees, OBJECT_CELL, ObjectCell, ObjectKind, ReliefObject};
pub use stream::roads::{LaidRoads, RegionSource, RoadSource};
pub use stream::settings::{SettingsError, TerrainSettings, TerrainState, ViewSettings};
pub use stream::shapes::FAR_TREES;
pub use stream::structures::{ReliefStructures, STRUCTURE_CELL};
pub use stream::tasks::{
    Job, ReliefWorkers, SingleThreadedSchedulesPlugin, relief_task_pools,
    single_threaded_render_schedules, single_threaded_schedules,
};
pub use stream::upload::{UploadBudget, mesh_bytes};
pub use tools::city_editor::FieldOverlay;
pub use tools::inspector::{InspectorState, ReliefInspectorPlugin};
pub use tools::map_overlay::{MapOverlay, ReliefMapPlugin};
pub use tools::planner_tool::{PlanSummary, PlannerChoice, PlannerTool, ReliefPlannerToolPlugin};
pub use tools::smoke::is_blank;
pub use traffic::{
    MAX_PEDESTRIANS, MAX_VEHICLES, Pedestrian, ReliefTrafficPlugin, TrafficSettings, TrafficStats,
    Trip, Vehicle,
};

/// Every system of ours is in one of these sets. The first six run in this
/// order in `PostUpdate` (after game code has moved the focus in `Update`,
/// before transforms propagate); the tools' and the start-up's run where
/// their variant says. Order your own systems around them.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReliefSystems {
    /// Settings changes rebuild the terrain.
    Settings,
    /// The focus is read and the render origin follows it.
    Origin,
    /// Roads and streams are generated and laid on the ground.
    Roads,
    /// Terrain chunks (and their road ribbons) are chosen, built and swapped in.
    Chunks,
    /// Things on the ground are spawned and despawned.
    Objects,
    /// Statistics are gathered.
    Stats,
    /// The map overlay is drawn (in `Update`, with `ReliefMapPlugin`).
    Map,
    /// The inspector window (in the egui pass, with `ReliefInspectorPlugin`).
    Inspector,
    /// The road-planner tool (in `Update` and the egui pass, with
    /// `ReliefPlannerToolPlugin`).
    Planner,
    /// The shared meshes and materials are made (in `Startup`).
    Assets,
    /// Physics characters move (in `FixedPostUpdate`, after avian's
    /// writeback, with the `physics` feature).
    Characters,
}

impl ReliefSystems {
    /// Every set.
    pub const ALL: [Self; 11] = [
        Self::Settings,
        Self::Origin,
        Self::Roads,
        Self::Chunks,
        Self::Objects,
        Self::Stats,
        Self::Map,
        Self::Inspector,
        Self::Planner,
        Self::Assets,
        Self::Characters,
    ];
}

/// The old name of [`ReliefSystems`].
#[deprecated(note = "renamed to ReliefSystems")]
pub type ReliefSet = ReliefSystems;

/// The old name of [`SingleThreadedSchedulesPlugin`] (which then kept one
/// thread for two cores or fewer; it now does so on any number).
#[deprecated(note = "renamed to SingleThreadedSchedulesPlugin")]
pub type FewCoresPlugin = SingleThreadedSchedulesPlugin;

/// Something the world could not do, as a message (also kept in
/// [`TerrainState`], one slot per source: [`TerrainState::settings_error`]
/// until the next good settings, [`TerrainState::roads_error`] until the
/// next network).
#[derive(Message, Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReliefError {
    /// Settings were rejected; the last good world stays.
    #[error("{0}")]
    Settings(#[from] SettingsError),
    /// The road source could not make the roads around the focus; they are
    /// laid empty so the rest of the world still comes.
    #[error("roads: {0}")]
    Roads(#[from] RoadError),
}

/// Roads were laid on the ground around the focus.
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoadsLaid {
    /// How many roads the network has.
    pub roads: usize,
    /// The [`LaidRoads::version`] now in force.
    pub version: u64,
}

/// Shared meshes and materials. Materials are `None` in headless apps
/// (no `PbrPlugin`): entities then get meshes but nothing to draw with.
#[derive(Resource, Clone, Debug)]
pub struct ReliefAssets {
    /// The ground: white, lit, coloured by the vertex colours.
    pub ground: Option<Handle<StandardMaterial>>,
    /// Lake water.
    pub water: Option<Handle<StandardMaterial>>,
    /// Road ribbons: vertex-coloured, drawn a little in front of the ground.
    pub road: Option<Handle<StandardMaterial>>,
    /// A unit square in the XZ plane, centred on the origin.
    pub water_quad: Handle<Mesh>,
    /// White, lit, vertex-coloured: trees and features.
    pub vertex: Option<Handle<StandardMaterial>>,
    /// Building walls, one tint per variant.
    pub walls: Vec<Handle<StandardMaterial>>,
    /// Tree meshes by variety.
    pub trees: Vec<Handle<Mesh>>,
    /// Feature meshes, in the order of [`Feature::ALL`](crate::terrain::Feature::ALL).
    pub features: Vec<Handle<Mesh>>,
    /// Unit building meshes by roof variant.
    pub buildings: Vec<Handle<Mesh>>,
}

/// How the streaming is doing (for the stats line and benchmarks).
#[derive(Resource, Clone, Debug, Default, Reflect)]
#[reflect(Resource)]
pub struct ReliefStats {
    /// Chunks wanted around the focus.
    pub chunks_desired: usize,
    /// Chunk entities alive.
    pub chunks_present: usize,
    /// Chunk tasks running or waiting for upload.
    pub chunks_pending: usize,
    /// Chunk meshes built since start.
    pub chunks_generated: u64,
    /// Every wanted chunk is shown and current, nothing pending.
    pub complete: bool,
    /// A shown chunk lies under the focus.
    pub ground_under_focus: bool,
    /// The focus position in core coordinates.
    pub focus: Option<DVec3>,
    /// Object cells alive.
    pub object_cells: usize,
    /// Object cells being computed or spawned.
    pub objects_pending: usize,
    /// Object entities alive (near trees, features, buildings).
    pub objects: usize,
    /// Trees shown in far meshes, one a cell ([`FarTrees`]).
    pub far_trees: usize,
    /// Roads in the network around the focus.
    pub roads: usize,
    /// A road network is being generated (objects near the focus wait for it).
    pub roads_pending: bool,
    /// Cities whose buildings are shown (one mesh each).
    pub cities: usize,
    /// City meshes being built.
    pub cities_pending: usize,
    /// City meshes built since start.
    pub city_meshes_built: u64,
    /// Cells whose bridges, tunnels and walls are shown (one mesh each).
    pub structure_cells: usize,
    /// Structure meshes being built.
    pub structures_pending: usize,
}

/// Adds the Relf world to a Bevy app. `Default` gives the reference world.
///
/// ```no_run
/// use bevy::prelude::*;
/// use bevy_relief::prelude::*;
/// App::new()
///     .add_plugins((DefaultPlugins, ReliefPlugin::default().view_distance(8000.0)))
///     .add_systems(Startup, |mut commands: Commands| {
///         commands.spawn((Camera3d::default(), Transform::from_xyz(0.0, 450.0, 0.0), ReliefFocus));
///     })
///     .run();
/// ```
///
/// Headless (tests, servers): `MinimalPlugins`, `TransformPlugin`,
/// `AssetPlugin::default()` and `MeshPlugin` are all it needs; materials are
/// added only when the render plugins are present.
#[derive(Clone, Debug, Default)]
pub struct ReliefPlugin {
    settings: TerrainSettings,
    roads: RoadSource,
}

impl ReliefPlugin {
    /// A plugin for a world with these parameters (checked here, so that a
    /// bad configuration is an error at start-up rather than a panic later).
    pub fn with_params(params: TerrainParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self {
            settings: TerrainSettings {
                params,
                ..default()
            },
            ..default()
        })
    }

    /// A plugin with complete settings (e.g. loaded from a RON file).
    pub fn with_settings(settings: TerrainSettings) -> Result<Self, SettingsError> {
        settings.validate()?;
        Ok(Self {
            settings,
            ..default()
        })
    }

    /// Roads from this generator instead of the contour roads of
    /// [`TerrainSettings::roads`].
    pub fn with_roads(mut self, generator: impl RoadGenerator + 'static) -> Self {
        self.roads = RoadSource::new(Arc::new(generator));
        self
    }

    /// Whole regions (roads, towns, built ground, structures) from `source`
    /// instead of the road system of [`TerrainSettings::roads`].
    pub fn with_regions(mut self, source: impl RegionSource) -> Self {
        self.roads = RoadSource::regions(Arc::new(source));
        self
    }

    /// Ground is shown to this distance, metres.
    pub fn view_distance(mut self, metres: f64) -> Self {
        self.settings.view.view_distance = metres;
        self
    }

    /// Trees, features and buildings are placed to this distance, metres.
    pub fn object_radius(mut self, metres: f64) -> Self {
        self.settings.view.object_radius = metres;
        self
    }
}

impl ReliefPlugin {
    /// The same configuration as a plugin group, whose parts can be
    /// replaced: `ReliefPlugin::default().plugins().build().disable::<ReliefObjectsPlugin>()`.
    pub fn plugins(self) -> ReliefPlugins {
        ReliefPlugins(self)
    }
}

impl Plugin for ReliefPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(self.clone().plugins());
    }
}

/// Creates the shared meshes and (when rendering) materials, at start-up.
fn create_assets(world: &mut World) {
    let Some(mut meshes) = world.get_resource_mut::<Assets<Mesh>>() else {
        error!(
            "ReliefPlugin needs MeshPlugin (part of DefaultPlugins): nothing is shown without it"
        );
        return;
    };
    let water_quad = meshes.add(Plane3d::default().mesh().size(1.0, 1.0).build());
    let trees = (0..shapes::TREE_VARIETIES)
        .map(|v| meshes.add(shapes::tree_mesh(v)))
        .collect();
    let features = Feature::ALL
        .iter()
        .map(|&f| meshes.add(shapes::feature_mesh(f)))
        .collect();
    let buildings = (0..4)
        .map(|v| meshes.add(shapes::building_mesh(v)))
        .collect();
    let mut assets = ReliefAssets {
        ground: None,
        water: None,
        road: None,
        water_quad,
        vertex: None,
        walls: Vec::new(),
        trees,
        features,
        buildings,
    };
    if let Some(mut mats) = world.get_resource_mut::<Assets<StandardMaterial>>() {
        let mut lit = |color: Color, roughness: f32| {
            mats.add(StandardMaterial {
                base_color: color,
                perceptual_roughness: roughness,
                reflectance: 0.2,
                ..default()
            })
        };
        assets.ground = Some(lit(Color::WHITE, 0.95));
        assets.vertex = Some(lit(Color::WHITE, 0.85));
        assets.walls = [
            [1.0, 0.97, 0.90],
            [0.93, 0.72, 0.60],
            [0.98, 0.96, 0.94],
            [0.80, 0.78, 0.76],
        ]
        .map(|[r, g, b]| lit(Color::srgb(r, g, b), 0.8))
        .to_vec();
        assets.road = Some(mats.add(StandardMaterial {
            base_color: Color::WHITE,
            perceptual_roughness: 0.9,
            reflectance: 0.1,
            depth_bias: 50.0,
            ..default()
        }));
        // Opaque: a blended surface cost the GPU up to 0.9 ms a frame over a
        // lake (its chunk-wide quads, and the lake bed shaded beneath),
        // for a bed that showed through at 12 %.
        assets.water = Some(mats.add(StandardMaterial {
            base_color: Color::srgb(0.13, 0.32, 0.45),
            perceptual_roughness: 0.08,
            reflectance: 0.6,
            ..default()
        }));
    }
    world.insert_resource(assets);
}

fn update_stats(
    state: Res<TerrainState>,
    chunks: Option<Res<ChunkManager>>,
    objects: Option<Res<objects::ObjectManager>>,
    roads: Option<Res<roads::RoadManager>>,
    cities: Option<Res<cities::CityManager>>,
    structures: Option<Res<structures::StructureManager>>,
    focus: Res<FocusState>,
    mut stats: ResMut<ReliefStats>,
) {
    stats.focus = focus.world;
    if let Some(cities) = cities {
        stats.cities = cities.shown_count();
        stats.cities_pending = cities.pending_count();
        stats.city_meshes_built = cities.built;
    }
    if let Some(s) = structures {
        stats.structure_cells = s.shown_count();
        stats.structures_pending = s.pending_count();
    }
    if let Some(roads) = roads {
        stats.roads = roads.roads;
        stats.roads_pending = roads.pending();
    }
    if let Some(objects) = objects {
        stats.object_cells = objects.cell_count();
        stats.objects_pending = objects.pending_count();
        stats.objects = objects.objects;
        stats.far_trees = objects.far_trees;
    }
    let Some(chunks) = chunks else {
        return;
    };
    stats.chunks_desired = chunks.desired().len();
    stats.chunks_present = chunks.present_count();
    stats.chunks_pending = chunks.pending_count();
    stats.chunks_generated = chunks.generated;
    stats.complete = chunks.complete(state.generation);
    stats.ground_under_focus = focus
        .world
        .is_some_and(|f| chunks.ground_at(&state.view, f.truncate()));
}

/// Gameplay access to the ground: heights and kinds in core coordinates, and
/// conversions and ground-following in Bevy's render space.
#[derive(SystemParam)]
pub struct TerrainQuery<'w> {
    state: Res<'w, TerrainState>,
    laid: Res<'w, LaidRoads>,
    origin: Res<'w, RenderOrigin>,
}

impl TerrainQuery<'_> {
    /// The terrain (shareable with worker threads).
    pub fn terrain(&self) -> &Arc<Terrain> {
        &self.state.terrain
    }

    /// The ground as everything reads it: the terrain with the roads and
    /// streams around the focus laid on it.
    pub fn ground(&self) -> &Arc<LaidGround> {
        &self.laid.ground
    }

    /// Ground height at core `(x, y)`: the built ground (roads on their
    /// profiles, towns on their pads) around the focus, the natural terrain
    /// elsewhere.
    pub fn height(&self, x: f64, y: f64) -> f64 {
        self.laid.ground.height(x, y)
    }

    /// Everything about the ground at core `(x, y)`, roads and streams included.
    pub fn terra(&self, x: f64, y: f64) -> Terra {
        self.laid.ground.terra(x, y)
    }

    /// A render-space translation as core coordinates.
    pub fn to_world(&self, render: Vec3) -> DVec3 {
        self.origin.to_world(render)
    }

    /// Core coordinates as a render-space translation.
    pub fn to_render(&self, world: DVec3) -> Vec3 {
        self.origin.to_render(world)
    }

    /// The render-space Y of the ground (or lake surface, or bridge deck)
    /// under a render-space point.
    pub fn surface_y(&self, render: Vec3) -> f32 {
        let w = self.to_world(render);
        let ground = self.laid.ground.terra(w.x, w.y).height;
        let deck = self.laid.deck_at(w.truncate());
        deck.map_or(ground, |d| d.max(ground)) as f32
    }

    /// The roads laid around the focus.
    pub fn roads(&self) -> &Arc<crate::network::RoadLayer> {
        &self.laid.roads
    }

    /// The nearest road point to core `(x, y)` within `max_distance`:
    /// `(road index, point, distance)` in the network around the focus.
    pub fn nearest_road(
        &self,
        x: f64,
        y: f64,
        max_distance: f64,
    ) -> Option<(usize, bevy::math::DVec2, f64)> {
        self.laid
            .roads
            .nearest(bevy::math::DVec2::new(x, y), max_distance)
    }

    /// `render` moved vertically to stand `clearance` metres above the ground
    /// or the water surface.
    pub fn on_ground(&self, render: Vec3, clearance: f32) -> Vec3 {
        Vec3::new(render.x, self.surface_y(render) + clearance, render.z)
    }
}
