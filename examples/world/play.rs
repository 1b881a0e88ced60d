//! Play in the example world (the `physics` feature): G walks a physics
//! character ([`ReliefCharacter`]: Space jumps, Shift runs) with the camera
//! at its eyes, and B drops a ball in front of the camera. `--walk` starts
//! walking, `--balls N` drops N balls ahead once the colliders are in.

use super::{FlyCamera, Smoke};
use avian3d::prelude::*;
use bevy::math::DVec3;
use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;
use bevy_relief::plugin::{
    CharacterControl, CharacterState, LaidRoads, ReliefCharacter, ReliefColliders, RenderOrigin,
    standing_height,
};
use bevy_relief::prelude::*;
use std::collections::VecDeque;

/// Balls alive at most: the oldest goes when one more is dropped.
const MAX_BALLS: usize = 64;
/// A ball's radius, metres.
const BALL: f32 = 0.3;
/// Seconds (of game time) the `--balls` get to come to rest before a
/// screenshot.
const SETTLE: f32 = 4.0;

/// Avian's physics, the walker and the balls.
pub struct PlayPlugin;

impl Plugin for PlayPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins(PhysicsPlugins::default())
            .init_resource::<Balls>()
            .add_systems(Update, (walk, drop_balls).after(super::fly_camera));
    }
}

#[derive(Resource, Default)]
struct Balls {
    live: VecDeque<Entity>,
    /// The ball's mesh and a few colours, made on the first drop.
    look: Option<(Handle<Mesh>, Vec<Handle<StandardMaterial>>)>,
    dropped: usize,
    /// Game time since the `--balls` were dropped, seconds.
    since: Option<f32>,
}

/// Spawns the walker when walking starts (standing under the camera) and
/// removes it when it stops; while it walks, steers it from the keys and
/// puts the camera at its eyes.
#[allow(clippy::too_many_arguments)]
fn walk(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    egui: Option<Res<EguiWantsInput>>,
    fixed: Res<Time<Fixed>>,
    laid: Res<LaidRoads>,
    origin: Res<RenderOrigin>,
    smoke: Res<Smoke>,
    camera: Single<(&mut Transform, &FlyCamera), Without<ReliefCharacter>>,
    mut walker: Query<(
        Entity,
        &ReliefCharacter,
        &mut CharacterControl,
        &CharacterState,
    )>,
) {
    let (mut tf, fly) = camera.into_inner();
    let Some((e, ch, mut ctl, st)) = walker.iter_mut().next() else {
        // With `--at`, once the camera is placed over the built ground.
        if fly.walking && (smoke.at.is_none() || smoke.placed) {
            let eye = origin.to_world(tf.translation);
            let z = standing_height(&laid, eye.truncate(), eye.z - 1.7);
            let feet = origin.to_render(eye.truncate().extend(z + 0.05));
            commands.spawn(ReliefCharacter::default().bundle(feet));
        }
        return;
    };
    if !fly.walking {
        commands.entity(e).despawn();
        return;
    }
    let ui_keys = egui.as_ref().is_some_and(|e| e.wants_any_keyboard_input());
    let axis = |pos: KeyCode, neg: KeyCode| {
        (keys.pressed(pos) as i32 - keys.pressed(neg) as i32) as f32 * !ui_keys as i32 as f32
    };
    let fwd = Vec3::new(-fly.yaw.sin(), 0.0, -fly.yaw.cos());
    let right = Vec3::new(-fwd.z, 0.0, fwd.x);
    ctl.direction = (fwd * axis(KeyCode::KeyW, KeyCode::KeyS)
        + right * axis(KeyCode::KeyD, KeyCode::KeyA))
    .normalize_or_zero();
    ctl.run = keys.any_pressed([KeyCode::ShiftLeft, KeyCode::ShiftRight]);
    ctl.jump |= !ui_keys && keys.just_pressed(KeyCode::Space);
    if st.feet != DVec3::ZERO {
        let feet = st.feet_at(fixed.overstep_fraction_f64());
        tf.translation = origin.to_render(feet + DVec3::Z * ch.eye_height() as f64);
    }
}

/// B drops a ball 2.5 m in front of the camera; `--balls N` drops N in a
/// fan ahead once the colliders around are in.
#[allow(clippy::too_many_arguments)]
fn drop_balls(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    egui: Option<Res<EguiWantsInput>>,
    mut balls: ResMut<Balls>,
    mut smoke: ResMut<Smoke>,
    colliders: Res<ReliefColliders>,
    stats: Res<ReliefStats>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    camera: Single<&Transform, With<FlyCamera>>,
    time: Res<Time>,
    mut frame: Local<u32>,
) {
    let mut drops: Vec<(Vec3, Vec3)> = Vec::new();
    let ui_keys = egui.as_ref().is_some_and(|e| e.wants_any_keyboard_input());
    let (fwd, right) = (camera.forward().as_vec3(), camera.right().as_vec3());
    if !ui_keys && keys.just_pressed(KeyCode::KeyB) {
        drops.push((camera.translation + fwd * 2.5, fwd * 3.0));
    }
    let ready = stats.complete && !stats.roads_pending && colliders.complete();
    *frame += 1;
    if smoke.balls > 0 && balls.since.is_none() && frame.is_multiple_of(300) {
        info!(
            "balls wait for the colliders: {} bodies, {} pending, complete {}",
            colliders.bodies(),
            colliders.pending(),
            colliders.complete()
        );
    }
    if smoke.balls > 0 && balls.since.is_none() && ready {
        let flat = Vec3::new(fwd.x, 0.0, fwd.z).normalize_or(Vec3::NEG_Z);
        for k in 0..smoke.balls {
            let (row, col) = ((k / 5) as f32, (k % 5) as f32 - 2.0);
            let at = camera.translation + flat * (5.0 + 1.5 * row) + right * 1.2 * col;
            drops.push((at + Vec3::Y * (1.0 + 0.4 * row), Vec3::ZERO));
        }
        balls.since = Some(0.0);
    }
    if let Some(t) = balls.since.as_mut() {
        *t += time.delta_secs();
        smoke.balls_settled = *t >= SETTLE;
    }
    for (at, v) in drops {
        let dropped = balls.dropped;
        let (mesh, colours) = balls.look.get_or_insert_with(|| {
            let colours = [(0.85, 0.2, 0.15), (0.95, 0.75, 0.1), (0.2, 0.45, 0.85)];
            let colours = (colours.iter())
                .map(|&(r, g, b)| materials.add(Color::srgb(r, g, b)))
                .collect();
            (meshes.add(Sphere::new(BALL).mesh().uv(24, 12)), colours)
        });
        let material = colours[dropped % colours.len()].clone();
        let mesh = mesh.clone();
        let ball = commands
            .spawn((
                RigidBody::Dynamic,
                Collider::sphere(BALL),
                Restitution::new(0.3),
                Friction::new(0.6),
                LinearVelocity(v),
                Mesh3d(mesh),
                MeshMaterial3d(material),
                Transform::from_translation(at),
            ))
            .id();
        balls.dropped += 1;
        balls.live.push_back(ball);
        if balls.live.len() > MAX_BALLS
            && let Some(old) = balls.live.pop_front()
        {
            commands.entity(old).despawn();
        }
    }
}
