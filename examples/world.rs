//! The example world: fly over the Relf terrain.
//!
//! `cargo run --release --example world [-- --screenshot PATH] [--frames N]`
//!
//! Controls: hold the right mouse button and move the mouse to look; W/S
//! forward/back, A/D left/right, E/Q up/down, Shift to go fast (up to
//! 1,000 m/s), Esc to quit.
//!
//! This first look shows a 4 km square around the start as one static mesh
//! coloured by terrain kind, with the lakes and the town buildings.

use bevy::app::AppExit;
use bevy::input::mouse::AccumulatedMouseMotion;
use bevy::light::GlobalAmbientLight;
use bevy::math::{DVec2, DVec3};
use bevy::pbr::{DistanceFog, FogFalloff};
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, ScreenshotCaptured, save_to_disk};
use bevy::window::WindowResolution;
use bevy_relief::plugin::coords::to_bevy;
use bevy_relief::plugin::mesh::ground_mesh;
use bevy_relief::plugin::smoke::is_blank;
use bevy_relief::prelude::*;
use std::path::PathBuf;

/// The start: a hilltop 250 m east of (19000, 1260), chosen (by a line-of-
/// sight search) for its view over the lakes to the east-south-east.
const START: DVec2 = DVec2::new(19250.0, 1285.0);
/// Where the camera first looks: the middle of the visible lakes.
const LOOK_AT: DVec3 = DVec3::new(19980.0, 917.0, 204.0);
/// Centre and side of the square of ground shown, metres, and its vertex spacing.
const CENTRE: DVec2 = DVec2::new(20100.0, 900.0);
const PATCH: f64 = 4000.0;
const STEP: f64 = 5.0;

#[derive(Resource, Default)]
struct Smoke {
    screenshot: Option<PathBuf>,
    frames: Option<u32>,
    frame: u32,
    requested: bool,
    /// Set by the capture observer: was the image more than one flat colour?
    captured: Option<bool>,
}

#[derive(Component)]
struct FlyCamera {
    yaw: f32,
    pitch: f32,
}

fn main() -> AppExit {
    let mut smoke = Smoke::default();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--screenshot" => smoke.screenshot = args.next().map(PathBuf::from),
            "--frames" => smoke.frames = args.next().and_then(|s| s.parse().ok()),
            other => {
                eprintln!("unknown argument {other}; use --screenshot PATH and/or --frames N");
                return AppExit::from_code(2);
            }
        }
    }
    App::new()
        .add_plugins(DefaultPlugins.set(WindowPlugin {
            primary_window: Some(Window {
                title: "bevy_relief: world".into(),
                resolution: WindowResolution::from((1280, 720)),
                ..default()
            }),
            ..default()
        }))
        .add_plugins(ReliefPlugin::default())
        .insert_resource(smoke)
        .insert_resource(ClearColor(Color::srgb(0.62, 0.75, 0.90)))
        .insert_resource(GlobalAmbientLight {
            brightness: 250.0,
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(Update, (fly_camera, smoke_mode))
        .run()
}

fn setup(
    mut commands: Commands,
    terrain: Res<ReliefTerrain>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let origin = START;
    let min = CENTRE - DVec2::splat(PATCH / 2.0);
    let n = (PATCH / STEP) as usize + 1;
    commands.spawn((
        Mesh3d(meshes.add(ground_mesh(&terrain, min, STEP, n, origin))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::WHITE,
            perceptual_roughness: 0.95,
            reflectance: 0.2,
            ..default()
        })),
    ));
    // Lakes: one water surface at the lake level; the ground above it hides it.
    let level = terrain.params().lake_level;
    commands.spawn((
        Mesh3d(meshes.add(Plane3d::default().mesh().size(PATCH as f32, PATCH as f32))),
        MeshMaterial3d(materials.add(StandardMaterial {
            base_color: Color::srgba(0.13, 0.32, 0.45, 0.88),
            alpha_mode: AlphaMode::Blend,
            perceptual_roughness: 0.08,
            reflectance: 0.6,
            ..default()
        })),
        Transform::from_translation(to_bevy(DVec3::new(CENTRE.x, CENTRE.y, level), origin)),
    ));
    // Town buildings: one shared unit cube, four wall colours by variant.
    let cube = meshes.add(Cuboid::new(1.0, 1.0, 1.0));
    let walls: Vec<_> = [
        [0.80, 0.76, 0.68],
        [0.72, 0.52, 0.42],
        [0.86, 0.84, 0.80],
        [0.62, 0.60, 0.58],
    ]
    .into_iter()
    .map(|[r, g, b]| {
        materials.add(StandardMaterial {
            base_color: Color::srgb(r, g, b),
            ..default()
        })
    })
    .collect();
    for b in terrain.buildings_in(min, min + DVec2::splat(PATCH)) {
        let base = DVec3::new(b.centre.x, b.centre.y, b.base_z);
        let height = (b.roof_z - b.base_z) as f32;
        commands.spawn((
            Mesh3d(cube.clone()),
            MeshMaterial3d(walls[b.variant as usize % walls.len()].clone()),
            Transform::from_translation(to_bevy(base, origin) + Vec3::Y * height / 2.0)
                .with_scale(Vec3::new(12.0, height, 12.0)),
        ));
    }
    commands.spawn((
        DirectionalLight {
            illuminance: 5_000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(-1.0, 1.4, 0.6).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    let eye = DVec3::new(START.x, START.y, terrain.height(START.x, START.y) + 30.0);
    let (eye_b, target) = (to_bevy(eye, origin), to_bevy(LOOK_AT, origin));
    let look = (target - eye_b).normalize();
    commands.spawn((
        Camera3d::default(),
        Transform::from_translation(eye_b).looking_to(look, Vec3::Y),
        FlyCamera {
            yaw: (-look.x).atan2(-look.z),
            pitch: look.y.asin(),
        },
        DistanceFog {
            color: Color::srgb(0.66, 0.76, 0.88),
            falloff: FogFalloff::from_visibility(9000.0),
            ..default()
        },
    ));
}

fn fly_camera(
    time: Res<Time>,
    keys: Res<ButtonInput<KeyCode>>,
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    mut exit: MessageWriter<AppExit>,
    camera: Single<(&mut Transform, &mut FlyCamera)>,
) {
    if keys.just_pressed(KeyCode::Escape) {
        exit.write(AppExit::Success);
    }
    let (mut tf, mut fly) = camera.into_inner();
    if buttons.pressed(MouseButton::Right) && motion.delta != Vec2::ZERO {
        fly.yaw -= motion.delta.x * 0.003;
        fly.pitch = (fly.pitch - motion.delta.y * 0.003).clamp(-1.55, 1.55);
        tf.rotation = Quat::from_euler(EulerRot::YXZ, fly.yaw, fly.pitch, 0.0);
    }
    let axis = |pos: KeyCode, neg: KeyCode| {
        keys.pressed(pos) as i32 as f32 - keys.pressed(neg) as i32 as f32
    };
    let (fwd, right) = (tf.forward(), tf.right());
    let dir = fwd * axis(KeyCode::KeyW, KeyCode::KeyS)
        + right * axis(KeyCode::KeyD, KeyCode::KeyA)
        + Vec3::Y * axis(KeyCode::KeyE, KeyCode::KeyQ);
    let fast = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    let speed = if fast { 1000.0 } else { 40.0 };
    tf.translation += dir.normalize_or_zero() * speed * time.delta_secs();
}

/// `--frames N` exits after N frames; `--screenshot PATH` lets the pipelines
/// warm up, captures the window, checks it is not blank, saves it and exits
/// (non-zero when the image is blank or nothing arrives in time).
fn smoke_mode(mut commands: Commands, mut smoke: ResMut<Smoke>, mut exit: MessageWriter<AppExit>) {
    smoke.frame += 1;
    let frame = smoke.frame;
    if smoke.frames.is_some_and(|n| frame >= n) && smoke.screenshot.is_none() {
        exit.write(AppExit::Success);
        return;
    }
    let Some(path) = smoke.screenshot.clone() else {
        return;
    };
    const WARM_UP: u32 = 40;
    const GIVE_UP: u32 = 2000;
    if frame == WARM_UP && !smoke.requested {
        smoke.requested = true;
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
            } else {
                error!("screenshot {} is blank", path.display());
                exit.write(AppExit::error());
            }
        }
        _ if frame > GIVE_UP => {
            error!("no screenshot after {GIVE_UP} frames");
            exit.write(AppExit::error());
        }
        _ => {}
    }
}
