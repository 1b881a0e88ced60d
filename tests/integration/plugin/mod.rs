//! Headless Bevy: the plugin streaming the world in an `App` with no window
//! or renderer, driven by `App::update()`.

use bevy::math::{DVec2, DVec3};
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy_relief::plugin::{ObjectKind, ReliefObject};
use bevy_relief::prelude::*;
use bevy_relief::terrain::{Overlay, TerrainKind};
use std::time::{Duration, Instant};

/// One app at a time: each has worker threads of its own in Linux's idle
/// class, which run only on a core no other thread wants. Apps updated back
/// to back on every core at once (the test harness's threads; on two cores
/// the plugin runs the main schedules on one thread) would leave them
/// almost nothing. The lock is held until the test's thread ends.
fn one_app_at_a_time() {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    thread_local! {
        static HELD: std::cell::RefCell<Option<std::sync::MutexGuard<'static, ()>>> =
            const { std::cell::RefCell::new(None) };
    }
    HELD.with(|held| {
        let mut held = held.borrow_mut();
        if held.is_none() {
            // A test that failed holding it poisoned it; the next goes on.
            *held = Some(LOCK.lock().unwrap_or_else(|e| e.into_inner()));
        }
    });
}

pub(crate) fn app_with<M>(plugin: impl bevy::app::Plugins<M>) -> App {
    one_app_at_a_time();
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
/// frames); panics after 180 s (a hang, not a slow machine: the worlds
/// here take seconds).
pub(crate) fn run_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    loop {
        app.update();
        if done(app) {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(180),
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

/// Whether the world, its roads among it, has come in around the focus.
fn roads_settled(app: &mut App) -> bool {
    let s = app.world().resource::<ReliefStats>();
    s.complete && s.objects_pending == 0 && s.roads > 0
}

/// A small world over the seed's roads around (19000, 1260), settled; with
/// `before` applied to its settings first.
fn world_over_roads(before: impl FnOnce(&mut TerrainSettings)) -> App {
    let mut app = app_with(small_world());
    before(&mut app.world_mut().resource_mut::<TerrainSettings>());
    spawn_focus(&mut app, Vec3::new(0.0, 600.0, 0.0));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = DVec2::new(19000.0, 1260.0);
    run_until(&mut app, "roads and objects", roads_settled);
    app
}

/// How many objects of the kinds `pick` takes there are, and how many of
/// them stand on a road cell of `roads`.
fn objects_on_roads(
    app: &mut App,
    roads: &bevy_relief::network::RoadLayer,
    pick: impl Fn(ObjectKind) -> bool,
) -> (usize, usize) {
    let mut q = app.world_mut().query::<&ReliefObject>();
    let (mut objects, mut on_roads) = (0, 0);
    for o in q.iter(app.world()).filter(|o| pick(o.kind)) {
        objects += 1;
        let cell = DVec2::new(o.world.x.round(), o.world.y.round());
        on_roads += roads.on_road(cell) as usize;
    }
    (objects, on_roads)
}

fn chunk_keys(app: &mut App) -> Vec<(TerrainChunk, Visibility)> {
    let mut q = app.world_mut().query::<(&TerrainChunk, &Visibility)>();
    q.iter(app.world()).map(|(c, v)| (*c, *v)).collect()
}

#[test]
fn settings_changed_before_the_first_frame_apply() {
    // Game code (a startup system, or between adding the plugin and the
    // first update) changes the settings: the first frame applies them.
    let mut app = app_with(small_world());
    let before = app.world().resource::<TerrainState>().generation;
    app.add_systems(Startup, |mut s: ResMut<TerrainSettings>| {
        s.view.object_radius = 123.0;
    });
    let mut settings = app.world_mut().resource_mut::<TerrainSettings>();
    settings.view.upload_mib_per_frame = 0.25;
    settings.params.lake_level += 10.0;
    app.update();
    let state = app.world().resource::<TerrainState>();
    assert_eq!(state.view.object_radius, 123.0);
    assert_eq!(state.view.upload_mib_per_frame, 0.25);
    assert_eq!(state.generation, before + 1);
    // Settings left alone rebuild nothing on the first frame.
    let mut app = app_with(small_world());
    let before = app.world().resource::<TerrainState>().generation;
    app.update();
    assert_eq!(app.world().resource::<TerrainState>().generation, before);
}

#[test]
fn plugin_adds_to_a_minimal_app_and_rejects_bad_settings() {
    one_app_at_a_time();
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
    let mut app = world_over_roads(|_| {});
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
    // Road points are road on the laid ground (not on the bare terrain),
    // where they are carriageways (not bridges, tunnels or their ends).
    let on_roads = (net.roads.iter().flat_map(|r| &r.points))
        .filter(|v| laid.ground.terra(v.x, v.y).kind == TerrainKind::Road)
        .filter(|v| terrain.terra(v.x, v.y).kind != TerrainKind::Road)
        .count();
    let all: usize = net.roads.iter().map(|r| r.points.len()).sum();
    assert!(
        on_roads * 2 > all,
        "{on_roads} of {all} road points are road"
    );
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
    // Without earthworks the ground never re-meshes for roads (with them,
    // only where they shape it: see `earthworks`).
    let mut app = world_over_roads(|s| s.roads.earthworks.enabled = false);
    let roads = |app: &App| app.world().resource::<ReliefStats>().roads;
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
    let (objects, on_roads) = objects_on_roads(&mut app, &laid.roads, |_| true);
    assert!(objects > 100, "{objects}");
    assert_eq!(on_roads, 0, "of {objects} objects, on the new roads");
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
fn single_threaded_schedules_plugin_runs_every_main_schedule_on_the_calling_thread() {
    #[derive(Resource, Default)]
    struct Seen(Vec<(&'static str, std::thread::ThreadId)>);
    fn seen<const S: usize>(mut s: ResMut<Seen>) {
        let names = ["First", "PreUpdate", "Update", "PostUpdate", "Last"];
        s.0.push((names[S], std::thread::current().id()));
    }
    // The default plugin does so on any number of cores.
    let mut app = app_with(small_world().plugins());
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

mod earthworks;
mod parts;
mod traffic;
