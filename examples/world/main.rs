//! The example world: fly over the limitless Relf terrain and tune it live.
//!
//! `cargo run --release --example world [-- --screenshot PATH] [--frames N] [--map] [--road-view]
//! [--at X,Y] [--look X,Y] [--height H] [--look-height H] [--plan X,Y X,Y] [--sequential]
//! [--no-inspector] [--traffic] [--walk] [--balls N]]`
//!
//! `--traffic`: vehicles on the roads and pedestrians on the streets around
//! the camera ([`ReliefTrafficPlugin`](bevy_relief::plugin::ReliefTrafficPlugin);
//! their densities and radii are in the inspector's Traffic section).
//!
//! With the `physics` feature (`cargo run --release --features physics
//! --example world`), walking is a physics character on avian3d's colliders
//! (see `play.rs`): `--walk` starts walking, `--balls N` drops N balls ahead
//! once the colliders are in.
//!
//! `--at`, `--look`: where the camera stands and looks (core x, y); `--height`
//! and `--look-height`: metres above the ground there (the built ground, once
//! the roads around the start are laid: the camera is placed again then).
//!
//! Controls: hold the right mouse button and move the mouse to look; W/S
//! forward/back, A/D left/right, E/Q up/down, Shift to go fast (up to
//! 1,000 m/s), G to toggle walking on the ground (with the `physics`
//! feature: Space jumps, Shift runs, B drops a ball), M for the map, F1 to hide
//! the inspector, 1 / 2 to mark a road's start / end at the crosshair for the
//! road planner (3 clears), Esc to quit. The camera ignores the mouse while
//! it is over a window.

use bevy::app::AppExit;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::window::WindowResolution;
use bevy_egui::input::EguiWantsInput;
use bevy_relief::plugin::{
    FieldOverlay, InspectorState, MapOverlay, PlannerChoice, PlannerTool, ReliefInspectorPlugin,
    ReliefMapPlugin, ReliefPlannerToolPlugin, is_blank,
};
use bevy_relief::prelude::*;
use std::path::PathBuf;

#[cfg(feature = "physics")]
mod play;
#[path = "../common/scene.rs"]
mod scene;

/// The start: a hilltop 250 m east of (19000, 1260), chosen (by a line-of-
/// sight search) for its view over the lakes to the east-south-east.
const START: DVec2 = DVec2::new(19250.0, 1285.0);
/// Where the camera first looks: the middle of the visible lakes.
const LOOK_AT: DVec3 = DVec3::new(19980.0, 917.0, 204.0);

#[derive(Resource, Default)]
struct Smoke {
    screenshot: Option<PathBuf>,
    frames: Option<u32>,
    /// Open the map overlay at the start (and wait for it before capturing).
    map: bool,
    /// Move the camera to look along the nearest road once roads are laid.
    road_view: bool,
    /// Whether the road view has been taken.
    road_view_done: bool,
    frame: u32,
    /// When the wait was last reported (every [`REPORT_EVERY`]).
    reported: Option<std::time::Instant>,
    /// Frames since the world around the start was complete.
    settled: u32,
    requested: bool,
    /// Set by the capture observer: was the image more than one flat colour?
    captured: Option<bool>,
    /// Blank captures so far (the renderer may still be compiling its
    /// pipelines when the world is complete: then it is asked again).
    blank: u32,
    /// `--at X,Y`, `--look X,Y`, `--height H`, `--look-height H`: where the
    /// camera starts.
    at: Option<DVec2>,
    look: Option<DVec2>,
    height: Option<f64>,
    look_height: Option<f64>,
    /// Whether the camera was placed again on the built ground.
    placed: bool,
    /// `--plan X,Y X,Y`: a road for the planner tool to plan at the start.
    plan: Option<(DVec2, DVec2)>,
    /// `--sequential`: the tool plans with the sequential planner, not A*.
    sequential: bool,
    /// `--field`: show the nearest planned city's tensor field.
    field: bool,
    /// `--no-inspector`: start with the inspector hidden (F1 shows it).
    no_inspector: bool,
    /// `--traffic`: vehicles on the roads, pedestrians on the streets.
    traffic: bool,
    /// `--walk`: start walking.
    walk: bool,
    /// `--msaa N` (1, 2, 4 or 8; Bevy's default 4) and `--prepass` (a depth
    /// prepass): the cheaper camera for a weak GPU is `--msaa 1 --prepass`
    /// (README, Performance).
    msaa: Option<Msaa>,
    prepass: bool,
    /// `--balls N`: balls to drop ahead once the colliders are in (the
    /// `physics` feature), and whether they have come to rest.
    balls: usize,
    balls_settled: bool,
}

/// `X,Y` as a point.
fn point(s: Option<String>) -> Option<DVec2> {
    let s = s?;
    let (x, y) = s.split_once(',')?;
    Some(DVec2::new(x.trim().parse().ok()?, y.trim().parse().ok()?))
}

#[derive(Component)]
struct FlyCamera {
    yaw: f32,
    pitch: f32,
    walking: bool,
    /// Cruise speed in m/s (mouse wheel), doubled… up to 1,000 with Shift.
    speed: f32,
}

fn main() -> AppExit {
    let mut smoke = Smoke::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--screenshot" => smoke.screenshot = args.next().map(PathBuf::from),
            "--frames" => smoke.frames = args.next().and_then(|s| s.parse().ok()),
            "--map" => smoke.map = true,
            "--road-view" => smoke.road_view = true,
            "--field" => smoke.field = true,
            "--no-inspector" => smoke.no_inspector = true,
            "--traffic" => smoke.traffic = true,
            "--walk" => smoke.walk = true,
            "--prepass" => smoke.prepass = true,
            "--msaa" => {
                let n = args.next().and_then(|s| s.parse::<u32>().ok());
                let Some(n) = n.filter(|n| [1, 2, 4, 8].contains(n)) else {
                    eprintln!("--msaa takes 1, 2, 4 or 8");
                    return AppExit::from_code(2);
                };
                smoke.msaa = Some(Msaa::from_samples(n));
            }
            "--balls" => {
                smoke.balls = args
                    .next()
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(0)
                    .min(50)
            }
            "--sequential" => smoke.sequential = true,
            "--at" => smoke.at = point(args.next()),
            "--look" => smoke.look = point(args.next()),
            "--height" => smoke.height = args.next().and_then(|s| s.parse().ok()),
            "--look-height" => smoke.look_height = args.next().and_then(|s| s.parse().ok()),
            "--plan" => {
                smoke.plan = point(args.next()).zip(point(args.next()));
            }
            other => {
                eprintln!(
                    "unknown argument {other}; use --screenshot PATH, --frames N, --map, --road-view, --field, --at X,Y, --look X,Y, --height H, --look-height H, --plan X,Y X,Y, --sequential, --no-inspector, --traffic, --walk, --balls N, --msaa N, --prepass"
                );
                return AppExit::from_code(2);
            }
        }
    }
    // Walking, the camera starts at eye height (and looks from there).
    if smoke.walk && smoke.height.is_none() {
        smoke.height = Some(1.7);
    }
    // Capturing on a CPU renderer, every frame costs seconds: build the
    // world around the start in as few frames as possible.
    let mut settings = TerrainSettings::default();
    if smoke.screenshot.is_some() {
        settings.view.max_tasks = 256;
        settings.view.chunk_uploads_per_frame = 1000;
        settings.view.upload_mib_per_frame = 1024.0;
        settings.view.object_spawns_per_frame = 20_000;
    }
    let relief = ReliefPlugin::with_settings(settings).expect("valid settings");
    let traffic = smoke.traffic;
    let mut app = App::new();
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "bevy_relief: world".into(),
            resolution: WindowResolution::from((1280, 720)),
            ..default()
        }),
        ..default()
    }))
    .add_plugins((
        relief,
        ReliefInspectorPlugin,
        ReliefMapPlugin,
        ReliefPlannerToolPlugin,
    ))
    .insert_resource(smoke)
    .add_systems(Startup, setup)
    .add_systems(Update, (fly_camera, road_view, place_again, smoke_mode));
    scene::sky(&mut app);
    if traffic {
        app.add_plugins(bevy_relief::plugin::ReliefTrafficPlugin::default());
    }
    #[cfg(feature = "physics")]
    app.add_plugins(play::PlayPlugin);
    app.run()
}

fn setup(
    mut commands: Commands,
    ground: TerrainQuery,
    smoke: Res<Smoke>,
    mut map: ResMut<MapOverlay>,
    mut tool: ResMut<PlannerTool>,
    mut field: ResMut<FieldOverlay>,
    mut inspector: ResMut<InspectorState>,
) {
    map.open = smoke.map;
    inspector.open = !smoke.no_inspector;
    field.on = smoke.field;
    if let Some((from, to)) = smoke.plan {
        (tool.start, tool.end) = (Some(from), Some(to));
    }
    if smoke.sequential {
        tool.planner = PlannerChoice::Sequential;
    }
    commands.spawn(scene::sun());
    // The render origin starts at (0, 0): the camera starts 19 km out and the
    // floating origin recentres on the first frame.
    let (eye, look) = camera_pose(&ground, &smoke);
    let mut camera = commands.spawn((
        Camera3d::default(),
        smoke.msaa.unwrap_or_default(),
        Transform::from_translation(eye).looking_to(look, Vec3::Y),
        FlyCamera {
            yaw: (-look.x).atan2(-look.z),
            pitch: look.y.asin(),
            walking: smoke.walk,
            speed: 40.0,
        },
        ReliefFocus,
        scene::haze(),
    ));
    if smoke.prepass {
        camera.insert(bevy::core_pipeline::prepass::DepthPrepass);
    }
}

/// Where the camera stands and which way it looks (render space), from
/// `--at`, `--look`, `--height` and `--look-height` over the ground as laid
/// now.
fn camera_pose(ground: &TerrainQuery, smoke: &Smoke) -> (Vec3, Vec3) {
    let start = smoke.at.unwrap_or(START);
    let above = smoke.height.unwrap_or(30.0);
    let eye = DVec3::new(start.x, start.y, ground.height(start.x, start.y) + above);
    let up = smoke.look_height.unwrap_or(0.0);
    let look_at = match (smoke.look, smoke.at) {
        (Some(l), _) => DVec3::new(l.x, l.y, ground.height(l.x, l.y) + up),
        (None, Some(a)) => DVec3::new(a.x + 1000.0, a.y, ground.height(a.x + 1000.0, a.y) + up),
        (None, None) => LOOK_AT,
    };
    let (eye, target) = (ground.to_render(eye), ground.to_render(look_at));
    (eye, (target - eye).normalize())
}

/// With `--at`, once the roads around the start are laid, places the camera
/// again over the built ground (a terrace or a road cut is not the natural
/// ground the camera started over).
fn place_again(
    mut smoke: ResMut<Smoke>,
    stats: Res<ReliefStats>,
    ground: TerrainQuery,
    camera: Single<(&mut Transform, &mut FlyCamera)>,
) {
    if smoke.placed || smoke.at.is_none() || stats.roads == 0 || stats.roads_pending {
        return;
    }
    let (eye, look) = camera_pose(&ground, &smoke);
    let (mut tf, mut fly) = camera.into_inner();
    *tf = Transform::from_translation(eye).looking_to(look, Vec3::Y);
    fly.yaw = (-look.x).atan2(-look.z);
    fly.pitch = look.y.asin();
    smoke.placed = true;
}

fn fly_camera(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    egui: Option<Res<EguiWantsInput>>,
    ground: TerrainQuery,
    mut exit: MessageWriter<AppExit>,
    camera: Single<(&mut Transform, &mut FlyCamera)>,
) {
    let (mut tf, mut fly) = camera.into_inner();
    let ui_pointer = egui.as_ref().is_some_and(|e| e.wants_any_pointer_input());
    let ui_keys = egui.as_ref().is_some_and(|e| e.wants_any_keyboard_input());
    if keys.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
    if !ui_pointer && buttons.pressed(MouseButton::Right) && motion.delta != Vec2::ZERO {
        fly.yaw -= motion.delta.x * 0.003;
        fly.pitch = (fly.pitch - motion.delta.y * 0.003).clamp(-1.55, 1.55);
        tf.rotation = Quat::from_euler(EulerRot::YXZ, fly.yaw, fly.pitch, 0.0);
    }
    if !ui_pointer && scroll.delta.y != 0.0 {
        fly.speed = (fly.speed * 1.2f32.powf(scroll.delta.y)).clamp(2.0, 1000.0);
    }
    if ui_keys {
        return;
    }
    if keys.just_pressed(KeyCode::KeyG) {
        fly.walking = !fly.walking;
    }
    let axis = |pos: KeyCode, neg: KeyCode| {
        keys.pressed(pos) as i32 as f32 - keys.pressed(neg) as i32 as f32
    };
    let fast = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let dt = time.delta_secs();
    if fly.walking && cfg!(feature = "physics") {
        // The physics character walks (`play.rs`).
    } else if fly.walking {
        // Walk: level movement at 1.7 m above the ground or the water.
        let fwd = Vec3::new(-fly.yaw.sin(), 0.0, -fly.yaw.cos());
        let right = Vec3::new(-fwd.z, 0.0, fwd.x);
        let dir =
            fwd * axis(KeyCode::KeyW, KeyCode::KeyS) + right * axis(KeyCode::KeyD, KeyCode::KeyA);
        let speed = if fast { 12.0 } else { 4.0 };
        let p = tf.translation + dir.normalize_or_zero() * speed * dt;
        tf.translation = ground.on_ground(p, 1.7);
    } else {
        let (fwd, right) = (tf.forward(), tf.right());
        let dir = fwd * axis(KeyCode::KeyW, KeyCode::KeyS)
            + right * axis(KeyCode::KeyD, KeyCode::KeyA)
            + Vec3::Y * axis(KeyCode::KeyE, KeyCode::KeyQ);
        let speed = if fast { 1000.0 } else { fly.speed };
        let p = tf.translation + dir.normalize_or_zero() * speed * dt;
        // Never below the surface.
        let floor = ground.surface_y(p) + 1.0;
        tf.translation = Vec3::new(p.x, p.y.max(floor), p.z);
    }
}

/// `--road-view`: once the roads are laid, stand 40 m back along the road
/// nearest the start and 30 m up, looking down along it.
fn road_view(
    mut smoke: ResMut<Smoke>,
    ground: TerrainQuery,
    camera: Single<(&mut Transform, &mut FlyCamera)>,
) {
    if !smoke.road_view || smoke.road_view_done {
        return;
    }
    let layer = ground.roads();
    let Some((i, p, _)) = layer.nearest(START, 2000.0) else {
        return;
    };
    let road = &layer.network().roads[i];
    let k = road
        .points
        .iter()
        .position(|q| q.distance(p) < 10.0)
        .unwrap_or(0)
        .min(road.points.len() - 2);
    let dir = (road.points[k + 1] - road.points[k]).normalize_or(DVec2::X);
    let eye = road.points[k] - dir * 40.0;
    let target = road.points[(k + 4).min(road.points.len() - 1)];
    let top = ground
        .height(eye.x, eye.y)
        .max(ground.height(road.points[k].x, road.points[k].y));
    let eye = DVec3::new(eye.x, eye.y, top.max(204.0) + 30.0);
    let target = DVec3::new(target.x, target.y, ground.height(target.x, target.y));
    let (eye, target) = (ground.to_render(eye), ground.to_render(target));
    let (mut tf, mut fly) = camera.into_inner();
    let look = (target - eye).normalize();
    *tf = Transform::from_translation(eye).looking_to(look, Vec3::Y);
    fly.yaw = (-look.x).atan2(-look.z);
    fly.pitch = look.y.asin();
    smoke.road_view_done = true;
}

/// How often a screenshot's wait for the world is reported (wall time: a
/// software renderer may take seconds a frame).
const REPORT_EVERY: std::time::Duration = std::time::Duration::from_secs(20);

/// `--frames N` exits after N frames; `--screenshot PATH` waits until the
/// world around the start is complete (every chunk and object near the
/// focus, and the `--plan` road), lets a few frames render, captures the
/// window, checks it is not blank, saves it and exits (non-zero when blank
/// or nothing arrives in time).
fn smoke_mode(
    mut commands: Commands,
    mut smoke: ResMut<Smoke>,
    stats: Res<ReliefStats>,
    map: Res<MapOverlay>,
    tool: Res<PlannerTool>,
    mut exit: MessageWriter<AppExit>,
) {
    smoke.frame += 1;
    let frame = smoke.frame;
    if smoke.frames.is_some_and(|n| frame >= n) && smoke.screenshot.is_none() {
        exit.write(AppExit::Success);
        return;
    }
    let Some(path) = smoke.screenshot.clone() else {
        return;
    };
    let ready = stats.complete
        && stats.objects_pending == 0
        && stats.structures_pending == 0
        && !stats.roads_pending
        && (smoke.at.is_none() || smoke.placed)
        && (!smoke.map || map.shown())
        && (!smoke.road_view || smoke.road_view_done)
        && (smoke.plan.is_none() || tool.last.is_some())
        && (smoke.balls == 0 || smoke.balls_settled || !cfg!(feature = "physics"));
    smoke.settled = if ready { smoke.settled + 1 } else { 0 };
    let due = smoke.reported.is_none_or(|t| t.elapsed() >= REPORT_EVERY);
    if due && !smoke.requested {
        smoke.reported = Some(std::time::Instant::now());
        info!(
            "frame {frame}, waiting: complete {} (chunks {} of {}, {} pending, {} built), objects pending {}, structures pending {}, roads pending {}, placed {}, balls settled {}",
            stats.complete,
            stats.chunks_present,
            stats.chunks_desired,
            stats.chunks_pending,
            stats.chunks_generated,
            stats.objects_pending,
            stats.structures_pending,
            stats.roads_pending,
            smoke.placed,
            smoke.balls_settled
        );
    }
    const SETTLE: u32 = 8;
    const GIVE_UP: u32 = 5000;
    if smoke.settled >= SETTLE && !smoke.requested {
        smoke.requested = true;
        info!(
            "world complete after {frame} frames: {} chunks, {} objects, {} far trees; capturing",
            stats.chunks_present, stats.objects, stats.far_trees
        );
        if let Some(last) = &tool.last {
            match last {
                Ok(r) => info!(
                    "planned road: {:.0} m, cost {:.1}, {:.1} ms",
                    r.length, r.cost, r.ms
                ),
                Err(e) => info!("no planned road: {e}"),
            }
        }
        let mut save = save_to_disk(path.clone());
        commands.spawn(Screenshot::primary_window()).observe(
            move |captured: On<ScreenshotCaptured>, mut smoke: ResMut<Smoke>| {
                smoke.captured = Some(!captured.image.data.as_deref().is_none_or(is_blank));
                save(captured);
            },
        );
    }
    match smoke.captured {
        Some(ok) if path.exists() => {
            if ok {
                info!("screenshot saved to {}", path.display());
                exit.write(AppExit::Success);
            } else if smoke.blank < 20 {
                smoke.blank += 1;
                info!(
                    "blank capture ({}): the renderer is not ready; again",
                    smoke.blank
                );
                let _ = std::fs::remove_file(&path);
                (smoke.captured, smoke.requested, smoke.settled) = (None, false, 0);
            } else {
                error!("screenshot {} is blank", path.display());
                exit.write(AppExit::error());
            }
        }
        _ if frame > GIVE_UP => {
            error!(
                "no screenshot after {GIVE_UP} frames (complete: {})",
                stats.complete
            );
            exit.write(AppExit::error());
        }
        _ => {}
    }
}
