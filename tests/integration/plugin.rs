//! Headless Bevy: the plugin streaming the world in an `App` with no window
//! or renderer, driven by `App::update()`.

use bevy::math::{DVec2, DVec3};
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy_relief::plugin::{ObjectKind, ReliefObject};
use bevy_relief::prelude::*;
use bevy_relief::terrain::{Overlay, TerrainKind};
use std::time::{Duration, Instant};

fn app_with<M>(plugin: impl bevy::app::Plugins<M>) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        TransformPlugin,
        AssetPlugin::default(),
        MeshPlugin,
        plugin,
    ));
    // Time advances by a fixed frame per update, whatever the wall clock does.
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        Duration::from_millis(16),
    ));
    app
}

fn small_world() -> ReliefPlugin {
    ReliefPlugin::default()
        .view_distance(1500.0)
        .object_radius(150.0)
}

/// Updates until `done` holds (yielding to the worker threads between
/// frames); panics after 60 s.
fn run_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    loop {
        app.update();
        if done(app) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "timed out waiting for {what}"
        );
        std::thread::yield_now();
    }
}

fn settled(app: &mut App) -> bool {
    let s = app.world().resource::<ReliefStats>();
    s.complete && s.objects_pending == 0 && !s.roads_pending
}

fn spawn_focus(app: &mut App, render: Vec3) -> Entity {
    app.world_mut()
        .spawn((Transform::from_translation(render), ReliefFocus))
        .id()
}

fn chunk_keys(app: &mut App) -> Vec<(TerrainChunk, Visibility)> {
    let mut q = app.world_mut().query::<(&TerrainChunk, &Visibility)>();
    q.iter(app.world()).map(|(c, v)| (*c, *v)).collect()
}

#[test]
fn plugin_adds_to_a_minimal_app_and_rejects_bad_settings() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        MeshPlugin,
        ReliefPlugin::default(),
    ));
    app.update();
    let state = app.world().resource::<TerrainState>();
    assert_eq!(state.terrain.height(-1811.0, 3062.0), 111.25);
    let bad = TerrainParams {
        profile: vec![],
        ..Default::default()
    };
    assert!(
        ReliefPlugin::with_params(bad)
            .unwrap_err()
            .to_string()
            .starts_with("profile")
    );
    let p = TerrainParams {
        lake_level: 250.0,
        ..Default::default()
    };
    let mut app = app_with(ReliefPlugin::with_params(p).unwrap());
    app.update();
    assert_eq!(
        app.world()
            .resource::<TerrainState>()
            .terrain
            .params()
            .lake_level,
        250.0
    );
}

#[test]
fn chunks_appear_around_the_focus_and_leave_when_it_moves_away() {
    let mut app = app_with(small_world());
    let focus = spawn_focus(&mut app, Vec3::new(0.0, 500.0, 0.0));
    run_until(&mut app, "the first world", settled);
    let stats = app.world().resource::<ReliefStats>().clone();
    assert!(stats.ground_under_focus);
    assert!(stats.objects > 0);
    let chunks = chunk_keys(&mut app);
    assert_eq!(chunks.len(), stats.chunks_desired);
    assert!(chunks.iter().all(|(_, v)| *v == Visibility::Inherited));
    let first_count = chunks.len();

    // Fly 10 km east in 100 m steps; counts stay bounded on the way.
    let mut peak = 0;
    for _ in 0..100 {
        app.world_mut()
            .get_mut::<Transform>(focus)
            .unwrap()
            .translation
            .x += 100.0;
        app.update();
        let n = app.world().entities().count_spawned();
        peak = peak.max(n);
    }
    run_until(&mut app, "the world 10 km away", settled);
    let view = app.world().resource::<TerrainState>().view.clone();
    let f = app
        .world()
        .resource::<ReliefStats>()
        .focus
        .unwrap()
        .truncate();
    assert!((f.x - 10_000.0).abs() < 1e-6 && f.y.abs() < 1e-6, "{f}");
    for (c, _) in chunk_keys(&mut app) {
        assert!(
            c.key.distance(&view, f) <= view.view_distance,
            "{:?}",
            c.key
        );
        assert!(c.key.distance(&view, DVec2::ZERO) > 10_000.0 - 2.0 * view.view_distance);
    }
    let mut objects = app.world_mut().query::<&ReliefObject>();
    for o in objects.iter(app.world()) {
        assert!(o.world.truncate().distance(f) < 1200.0, "{:?}", o.world);
    }
    let settled_count = app.world().entities().count_spawned();
    assert!(chunk_keys(&mut app).len() < 2 * first_count);
    assert!(
        peak < 3 * settled_count.max(1000),
        "peak {peak}, settled {settled_count}"
    );
}

#[test]
fn changing_the_settings_regenerates_the_world() {
    let mut app = app_with(small_world());
    spawn_focus(&mut app, Vec3::new(0.0, 500.0, 0.0));
    run_until(&mut app, "the first world", settled);
    let before = app.world().resource::<TerrainState>().generation;
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .params
        .lake_level += 30.0;
    app.update();
    let after = app.world().resource::<TerrainState>().generation;
    assert_eq!(after, before + 1);
    run_until(&mut app, "the flooded world", settled);
    let chunks = chunk_keys(&mut app);
    assert!(!chunks.is_empty());
    assert!(chunks.iter().all(|(c, _)| c.generation == after));
    // Invalid settings are reported and the world stays.
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .params
        .profile
        .clear();
    app.update();
    let state = app.world().resource::<TerrainState>();
    let e = state.settings_error.as_ref().expect("settings rejected");
    assert!(e.to_string().starts_with("params.profile"), "{e}");
    assert_eq!(state.generation, after);
}

#[test]
fn floating_origin_keeps_transforms_near_zero_after_a_1000_km_jump() {
    let mut app = app_with(small_world());
    let focus = spawn_focus(&mut app, Vec3::new(0.0, 500.0, 0.0));
    run_until(&mut app, "the first world", settled);
    app.world_mut()
        .get_mut::<Transform>(focus)
        .unwrap()
        .translation += Vec3::new(1.0e6, 0.0, -2.5e5);
    run_until(&mut app, "the world 1,000 km away", settled);
    let origin = app.world().resource::<RenderOrigin>().0;
    assert_eq!(origin, DVec2::new(1.0e6, 2.5e5));
    let f = app.world().resource::<ReliefStats>().focus.unwrap();
    assert_eq!(f, DVec3::new(1.0e6, 2.5e5, 500.0));
    let limit = app.world().resource::<TerrainState>().view.view_distance as f32 + 1000.0;
    let mut q = app
        .world_mut()
        .query_filtered::<&Transform, Without<ChildOf>>();
    for t in q.iter(app.world()) {
        assert!(t.translation.length() < limit, "{}", t.translation);
    }
    assert!(app.world().resource::<ReliefStats>().ground_under_focus);
}

#[test]
fn objects_stand_on_the_ground_where_the_terrain_says() {
    let mut app = app_with(small_world());
    // Near (285, 389): a mine shaft in the reference.
    spawn_focus(&mut app, Vec3::new(285.0, 400.0, -389.0));
    run_until(&mut app, "the objects", settled);
    app.update();
    let terrain = app.world().resource::<TerrainState>().terrain.clone();
    let origin = *app.world().resource::<RenderOrigin>();
    let mut q = app.world_mut().query::<(&ReliefObject, &GlobalTransform)>();
    let (mut features, mut trees) = (0, 0);
    let mut mine = false;
    for (o, g) in q.iter(app.world()) {
        match o.kind {
            ObjectKind::Feature(f) => {
                features += 1;
                assert_eq!(o.world.z, terrain.height(o.world.x, o.world.y));
                assert_eq!(terrain.terra(o.world.x, o.world.y).feature, Some(f));
                mine |= f == Feature::Mine && o.world.truncate() == DVec2::new(285.0, 389.0);
            }
            ObjectKind::Tree(_) => {
                trees += 1;
                assert_eq!(o.world.z, terrain.height(o.world.x, o.world.y));
                assert!(terrain.terra(o.world.x, o.world.y).kind.is_wooded());
            }
            _ => continue,
        }
        let expect = origin.to_render(o.world);
        assert!(
            g.translation().distance(expect) < 0.01,
            "{} vs {}",
            g.translation(),
            expect
        );
    }
    assert!(mine, "the mine shaft at (285, 389)");
    assert!(
        features >= 1 && trees > 100,
        "{features} features, {trees} trees"
    );
}

#[test]
fn roads_are_laid_draped_and_kept_clear() {
    let mut app = app_with(small_world());
    // Over the seed's map around (19000, 1260).
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(19000.0, 1260.0);
    run_until(&mut app, "roads and objects", |app| {
        let s = app.world().resource::<ReliefStats>();
        s.complete && s.objects_pending == 0 && s.roads > 0
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    let terrain = laid.ground.terrain().clone();
    let (min, max) = laid.region.unwrap();
    // Streams of the same region are laid with the roads, drawn as water ribbons.
    let streams = laid.streams.clone();
    assert_eq!(
        streams.streams().len(),
        terrain.streams_in(min, max).unwrap().len()
    );
    let layer = laid.roads.clone();
    let net = layer.network();
    let v = net.roads[0].points[1];
    assert_eq!(laid.ground.terra(v.x, v.y).kind, TerrainKind::Road);
    assert_ne!(terrain.terra(v.x, v.y).kind, TerrainKind::Road);
    // Ribbons hang under the chunks near the focus.
    let mut ribbons = app.world_mut().query::<&bevy_relief::plugin::ChunkRoads>();
    assert!(ribbons.iter(app.world()).count() > 0);
    // No tree or feature stands on a road cell.
    let mut q = app.world_mut().query::<&ReliefObject>();
    for o in q.iter(app.world()) {
        if matches!(
            o.kind,
            ObjectKind::Tree(_) | ObjectKind::Feature(_) | ObjectKind::Building(_)
        ) {
            let cell = DVec2::new(o.world.x.round(), o.world.y.round());
            assert!(!layer.on_road(cell), "{:?} on a road", o.kind);
            // Only a stream's spring (a water hole) stands on it.
            assert!(
                !streams.covers(cell) || matches!(o.kind, ObjectKind::Feature(Feature::WaterHole)),
                "{:?} in a stream",
                o.kind
            );
        }
    }
}

#[test]
fn road_settings_apply_live_and_failures_are_reported() {
    let mut app = app_with(small_world());
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(19000.0, 1260.0);
    let roads = |app: &App| app.world().resource::<ReliefStats>().roads;
    run_until(&mut app, "the first roads", |app| roads(app) > 0);
    run_until(&mut app, "the world around them", settled);
    let first = roads(&app);
    let meshed = app.world().resource::<ReliefStats>().chunks_generated;
    // Denser start points, same place: a new network without moving.
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .roads
        .contour
        .density = 30.0;
    run_until(&mut app, "denser roads", |app| roads(app) > first);
    run_until(&mut app, "the world around them", settled);
    // The ground was not re-meshed for the roads, and no object stands on
    // one of the new roads (the trees placed before them are gone).
    assert_eq!(
        app.world().resource::<ReliefStats>().chunks_generated,
        meshed
    );
    let laid = app.world().resource::<LaidRoads>().clone();
    let mut q = app.world_mut().query::<&ReliefObject>();
    let mut objects = 0;
    for o in q.iter(app.world()) {
        let cell = DVec2::new(o.world.x.round(), o.world.y.round());
        assert!(
            !laid.roads.on_road(cell),
            "{:?} on a new road at {cell}",
            o.kind
        );
        objects += 1;
    }
    assert!(objects > 100, "{objects}");
    // Settings that would take minutes: refused with a clear message, the
    // roads taken away and the rest of the world still placed.
    {
        let mut s = app.world_mut().resource_mut::<TerrainSettings>();
        s.roads.contour.step = 1.0;
        s.roads.contour.max_points = 10_000;
        s.roads.contour.max_rounds = 100_000;
    }
    run_until(&mut app, "the refusal", |app| {
        let error = app.world().resource::<TerrainState>().roads_error.clone();
        error.is_some_and(|e| e.to_string().contains("max_points"))
    });
    run_until(&mut app, "objects without roads", |app| {
        settled(app) && roads(app) == 0
    });
    assert!(app.world().resource::<ReliefStats>().objects > 0);
    // Roads off: none laid.
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .view
        .road_radius = 0.0;
    app.update();
    assert!(app.world().resource::<LaidRoads>().ground.is_bare());
    assert_eq!(app.world().resource::<TerrainState>().errors().count(), 0);
}

#[test]
fn few_cores_plugin_runs_every_main_schedule_on_the_calling_thread() {
    #[derive(Resource, Default)]
    struct Seen(Vec<(&'static str, std::thread::ThreadId)>);
    fn seen<const S: usize>(mut s: ResMut<Seen>) {
        let names = ["First", "PreUpdate", "Update", "PostUpdate", "Last"];
        s.0.push((names[S], std::thread::current().id()));
    }
    let mut app = app_with((
        small_world(),
        FewCoresPlugin {
            max_cores: usize::MAX,
        },
    ));
    app.init_resource::<Seen>()
        .add_systems(First, seen::<0>)
        .add_systems(PreUpdate, seen::<1>)
        .add_systems(Update, (seen::<2>, seen::<2>, seen::<2>))
        .add_systems(PostUpdate, (seen::<3>, seen::<3>))
        .add_systems(Last, seen::<4>);
    spawn_focus(&mut app, Vec3::new(0.0, 500.0, 0.0));
    for _ in 0..5 {
        app.update();
    }
    let here = std::thread::current().id();
    let seen = &app.world().resource::<Seen>().0;
    assert_eq!(seen.len(), 5 * 8);
    for (schedule, thread) in seen {
        assert_eq!(
            *thread, here,
            "a system in {schedule} ran on another thread"
        );
    }
}

/// The world with one part of the group left out.
fn without<P: Plugin>() -> App {
    let mut app = app_with(
        ReliefPlugin::default()
            .view_distance(1500.0)
            .object_radius(150.0)
            .plugins()
            .build()
            .disable::<P>(),
    );
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app
}

/// The world without the floating origin, its focus 5 km east.
fn without_origin() -> App {
    let mut app = app_with(
        ReliefPlugin::default()
            .view_distance(1500.0)
            .object_radius(150.0)
            .plugins()
            .build()
            .disable::<bevy_relief::plugin::ReliefOriginPlugin>(),
    );
    spawn_focus(&mut app, Vec3::new(5000.0, 600.0, 0.0));
    app
}

fn objects(app: &mut App) -> usize {
    let mut q = app.world_mut().query::<&ReliefObject>();
    q.iter(app.world()).count()
}

#[test]
fn plugin_group_parts_can_be_left_out() {
    use bevy_relief::plugin::{
        ReliefChunksPlugin, ReliefCorePlugin, ReliefObjectsPlugin, ReliefRoadsPlugin,
    };
    let stats = |app: &App| app.world().resource::<ReliefStats>().clone();
    // No objects: ground and roads.
    let mut app = without::<ReliefObjectsPlugin>();
    run_until(&mut app, "ground and roads", |app| {
        let s = stats(app);
        s.complete && s.roads > 0
    });
    assert_eq!(objects(&mut app), 0);
    // No roads: ground, and objects all the same (they do not wait for
    // roads that never come).
    let mut app = without::<ReliefRoadsPlugin>();
    run_until(&mut app, "ground and objects", |app| {
        let s = stats(app);
        s.complete && s.objects > 0 && s.objects_pending == 0
    });
    assert!(app.world().resource::<LaidRoads>().ground.is_bare());
    assert!(objects(&mut app) > 0);
    // No chunks: roads and objects.
    let mut app = without::<ReliefChunksPlugin>();
    run_until(&mut app, "roads and objects", |app| {
        let s = stats(app);
        s.roads > 0 && s.objects > 0 && s.objects_pending == 0
    });
    assert_eq!(chunk_keys(&mut app).len(), 0);
    // No floating origin: everything streams around the focus, the origin
    // stays put.
    let mut app = without_origin();
    run_until(&mut app, "the whole world", settled);
    let s = stats(&app);
    assert!(s.roads > 0 && s.objects > 0 && s.ground_under_focus);
    assert_eq!(s.focus.unwrap().truncate(), DVec2::new(5000.0, 0.0));
    assert_eq!(app.world().resource::<RenderOrigin>().0, DVec2::ZERO);
    // No core: the other parts have nothing to work on and stay idle (no
    // panic).
    let mut app = without::<ReliefCorePlugin>();
    for _ in 0..5 {
        app.update();
    }
    assert!(!app.world().contains_resource::<TerrainState>());
    assert_eq!(objects(&mut app), 0);
}

/// A generator of one straight east–west road through every area, for
/// `with_roads`.
struct StraightRoad;

impl bevy_relief::roads::RoadGenerator for StraightRoad {
    fn generate(
        &self,
        _terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<bevy_relief::network::RoadNetwork, bevy_relief::roads::RoadError> {
        use bevy_relief::network::{Road, RoadClass, RoadNetwork};
        let y = 1300.0;
        let roads = (min.y <= y && y <= max.y)
            .then(|| Road {
                // Whole 1 km pieces, so any area gets the same road there.
                points: vec![
                    DVec2::new((min.x / 1000.0).floor() * 1000.0, y),
                    DVec2::new((max.x / 1000.0).ceil() * 1000.0, y),
                ],
                class: RoadClass::Highway,
                width: 10.0,
            })
            .into_iter()
            .collect();
        Ok(RoadNetwork::from_roads(roads))
    }
}

#[test]
fn a_custom_road_generator_is_laid_and_drawn() {
    let mut app = app_with(small_world().with_roads(StraightRoad));
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(19000.0, 1260.0);
    run_until(&mut app, "the road and the world", |app| {
        settled(app) && app.world().resource::<ReliefStats>().roads == 1
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    assert_eq!(
        laid.roads.network().roads[0].class,
        bevy_relief::network::RoadClass::Highway
    );
    assert_eq!(laid.ground.terra(19003.0, 1300.0).kind, TerrainKind::Road);
    // Ribbons hang under the chunks, and no object stands on the road.
    let mut ribbons = app.world_mut().query::<&bevy_relief::plugin::ChunkRoads>();
    assert!(ribbons.iter(app.world()).count() > 0);
    let mut q = app.world_mut().query::<&ReliefObject>();
    for o in q.iter(app.world()) {
        assert!((o.world.y - 1300.0).abs() > 5.0, "{:?} on the road", o.kind);
    }
}

#[test]
fn cities_are_town_ground_with_highways_and_no_trees() {
    let mut app = app_with(small_world().object_radius(500.0));
    // Near the edge of the city of cell (1, 0), centre about (9850, 4250).
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(9850.0, 5150.0);
    run_until(&mut app, "roads, cities and objects", |app| {
        settled(app) && app.world().resource::<ReliefStats>().roads > 0
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    let cities = laid.cities.cities();
    assert!(!cities.is_empty(), "no city laid");
    let net = laid.roads.network();
    assert!(
        net.roads
            .iter()
            .any(|r| r.class == bevy_relief::network::RoadClass::Highway),
        "no highway"
    );
    let c = &cities[0];
    assert_eq!(
        laid.ground.terra(c.centre.x, c.centre.y).kind,
        TerrainKind::Town
    );
    // The city's streets are roads of the network, and its buildings come
    // as one mesh entity.
    assert!(laid.layouts.iter().any(|l| l.city.id == c.id));
    assert!(
        net.roads
            .iter()
            .any(|r| r.class == bevy_relief::network::RoadClass::Street),
        "no street"
    );
    run_until(&mut app, "city buildings", |app| {
        let mut q = app
            .world_mut()
            .query::<(&bevy_relief::plugin::CityBuildings, &Mesh3d)>();
        q.iter(app.world()).any(|(b, _)| b.buildings > 100)
    });
    // Objects came, and no tree or village house stands in a city.
    let mut q = app.world_mut().query::<&ReliefObject>();
    let mut n = 0;
    for o in q.iter(app.world()) {
        n += 1;
        if matches!(o.kind, ObjectKind::Tree(_) | ObjectKind::Building(_)) {
            // Ground is laid by whole-metre cell: the cell's centre counts.
            let p = o.world.truncate().round();
            assert!(
                !cities.iter().any(|c| c.contains(p)),
                "{:?} at {} in a city",
                o.kind,
                o.world
            );
        }
    }
    assert!(n > 0, "no objects at all");
}

/// The planner tool's last road (it must have one, and without an error).
fn last_road(app: &App) -> bevy_relief::plugin::PlanSummary {
    use bevy_relief::plugin::PlannerTool;
    let last = app.world().resource::<PlannerTool>().last.clone();
    last.expect("a road").expect("no planning error")
}

#[test]
fn the_planner_tool_plans_and_draws_a_road_and_replans_on_a_change() {
    use bevy_relief::plugin::{PlannerChoice, PlannerTool, ReliefPlannerToolPlugin};
    let mut app = app_with((small_world(), ReliefPlannerToolPlugin));
    app.init_resource::<ButtonInput<KeyCode>>();
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    // Two dry points about a kilometre apart.
    let terrain = app.world().resource::<TerrainState>().terrain.clone();
    let dry = |mut p: DVec2| {
        while terrain.height(p.x, p.y) < terrain.params().lake_level + 1.0 {
            p.x += 10.0;
        }
        p
    };
    let (from, to) = (
        dry(DVec2::new(18700.0, 1000.0)),
        dry(DVec2::new(19500.0, 1500.0)),
    );
    {
        let mut tool = app.world_mut().resource_mut::<PlannerTool>();
        tool.start = Some(from);
        tool.end = Some(to);
    }
    let done = |app: &mut App| app.world().resource::<PlannerTool>().last.is_some();
    run_until(&mut app, "the first road", done);
    let first = last_road(&app);
    assert!(
        first.length >= from.distance(to) && first.cost > 0.0,
        "{first:?}"
    );
    let mut q = app.world_mut().query::<&Name>();
    assert!(q.iter(app.world()).any(|n| n.as_str() == "planned road"));
    // Another planner: planned anew.
    {
        let mut tool = app.world_mut().resource_mut::<PlannerTool>();
        tool.planner = PlannerChoice::Sequential;
        tool.last = None;
    }
    run_until(&mut app, "the sequential road", done);
    let second = last_road(&app);
    assert_ne!(first, second);
    let roads = q
        .iter(app.world())
        .filter(|n| n.as_str() == "planned road")
        .count();
    assert_eq!(roads, 1, "the old road is replaced");
}

/// A road source that always fails.
struct NoRoads;

impl bevy_relief::roads::RoadGenerator for NoRoads {
    fn generate(
        &self,
        _terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<bevy_relief::network::RoadNetwork, bevy_relief::roads::RoadError> {
        let size = max - min;
        Err(bevy_relief::roads::RoadAreaError::TooLarge {
            width: size.x,
            height: size.y,
        }
        .into())
    }
}

#[test]
fn settings_and_roads_keep_an_error_each() {
    let mut app = app_with(small_world().with_roads(NoRoads));
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    let state = |app: &App| app.world().resource::<TerrainState>().clone();
    run_until(&mut app, "the roads' error", |app| {
        state(app).roads_error.is_some()
    });
    // Bad settings: their error stands beside the roads'.
    let good = app.world().resource::<TerrainSettings>().view.clone();
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .view
        .view_distance = 1.0;
    app.update();
    let s = state(&app);
    let e = s.settings_error.as_ref().expect("settings rejected");
    assert!(e.to_string().contains("view.view_distance"), "{e}");
    assert!(s.roads_error.is_some());
    assert_eq!(s.errors().count(), 2);
    // Good settings clear their own error only.
    app.world_mut().resource_mut::<TerrainSettings>().view = good;
    app.update();
    let s = state(&app);
    assert_eq!(s.settings_error, None);
    assert!(s.roads_error.is_some());
    // Roads off: no roads, no roads' error.
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .view
        .road_radius = 0.0;
    app.update();
    assert_eq!(state(&app).errors().count(), 0);
}

#[test]
fn every_system_of_ours_is_in_a_relief_set() {
    use bevy::ecs::schedule::NodeId;
    use bevy::ecs::schedule::graph::Direction;
    use bevy_relief::plugin::ReliefPlannerToolPlugin;
    let mut app = app_with((small_world(), ReliefPlannerToolPlugin));
    app.init_resource::<ButtonInput<KeyCode>>();
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    let mut ours = 0;
    for (label, schedule) in app.world().resource::<Schedules>().iter() {
        let graph = schedule.graph();
        // A schedule that ran keeps its systems in its executable.
        let systems: Vec<_> = match schedule.systems() {
            Ok(run) => run.collect(),
            Err(_) => graph.systems.iter().map(|(k, s, _)| (k, s)).collect(),
        };
        for (key, system) in systems {
            let name = system.name().to_string();
            if !name.starts_with("bevy_relief") {
                continue;
            }
            ours += 1;
            let in_ours = (graph.hierarchy().graph())
                .neighbors_directed(NodeId::System(key), Direction::Incoming)
                .any(|n| match n {
                    NodeId::Set(k) => graph
                        .system_sets
                        .get(k)
                        .is_some_and(|set| ReliefSystems::ALL.iter().any(|r| set.dyn_eq(r))),
                    NodeId::System(_) => false,
                });
            assert!(in_ours, "{name} (in {label:?}) is in no ReliefSystems set");
        }
    }
    assert!(ours >= 15, "only {ours} systems of ours");
}

#[test]
fn a_contour_road_edit_rebuilds_no_city_mesh() {
    let mut app = app_with(small_world());
    // Near the city of cell (1, 0), centre about (9850, 4250).
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(9850.0, 5150.0);
    let stats = |app: &App| app.world().resource::<ReliefStats>().clone();
    let done = |app: &mut App| {
        let s = stats(app);
        settled(app) && s.cities > 0 && s.cities_pending == 0
    };
    run_until(&mut app, "roads and city buildings", done);
    let city_entities = |app: &mut App| {
        let mut q = app
            .world_mut()
            .query_filtered::<Entity, With<bevy_relief::plugin::CityBuildings>>();
        let mut e: Vec<Entity> = q.iter(app.world()).collect();
        e.sort();
        e
    };
    let (before, built) = (city_entities(&mut app), stats(&app).city_meshes_built);
    let version = app.world().resource::<LaidRoads>().version;
    app.world_mut()
        .resource_mut::<TerrainSettings>()
        .roads
        .contour
        .density *= 2.0;
    run_until(&mut app, "the denser roads", |app| {
        app.world().resource::<LaidRoads>().version > version && done(app)
    });
    assert_eq!(stats(&app).city_meshes_built, built);
    assert_eq!(city_entities(&mut app), before);
}
