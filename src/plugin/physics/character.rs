//! [`ReliefCharacter`]: a walking character for the built world, a
//! kinematic capsule moved by avian's move-and-slide against the streamed
//! colliders.
//!
//! Each fixed step, after avian's own, the character
//! - probes the ground under it with its own shape: on ground no steeper
//!   than [`ReliefCharacter::max_slope`] (or [`ReliefCharacter::steps_slope`]
//!   on a footway's steps) it stands, follows the ground down and may jump;
//!   on anything steeper it falls and slides, and cannot walk up into it;
//! - moves and slides along whatever it touches: walls, houses, parapets;
//! - never ends a step below the standing surface the core knows exactly
//!   (the built ground, a bridge deck, a tunnel's floor; see [`standing_height`]).
//!   Where the colliders have not streamed in yet, or a fall was too fast for
//!   them, it is put back on that surface ([`CharacterState::rescues`]).
//!
//! Drive it through [`CharacterControl`]; read [`CharacterState`]. Its
//! transform is a root transform in render space, so the floating origin
//! moves it with everything else.

use super::super::stream::coords::RenderOrigin;
use super::super::stream::roads::LaidRoads;
use crate::network::RoadClass;
use crate::terrain::ParamError;
use avian3d::prelude::*;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use std::time::Duration;

/// How far below its feet the character looks for ground to stand on,
/// metres: it follows ground that falls away by up to this much a step.
const PROBE: f32 = 0.35;
/// A character whose feet are this far below the exact standing surface is
/// put back on it, metres (the colliders' heightfield is linear between its
/// samples, the exact ground is not).
const SINK: f64 = 0.15;
/// Over a bridge or in a tunnel, feet within this height of its road
/// surface stand on it, metres.
const ON_STRUCTURE: f64 = 2.5;
/// Falls are capped at this speed, m/s (terminal velocity, and a bound on
/// how far a step may move).
const MAX_FALL: f32 = 60.0;

/// A walking character (a capsule; spawn it with [`ReliefCharacter::bundle`]).
#[derive(Component, Clone, Debug, PartialEq, Reflect)]
#[reflect(Component)]
pub struct ReliefCharacter {
    /// The capsule's radius, metres.
    pub radius: f32,
    /// The capsule's height, feet to top of head, metres.
    pub height: f32,
    /// Walking speed, m/s.
    pub walk_speed: f32,
    /// Running speed, m/s.
    pub run_speed: f32,
    /// Upward speed of a jump, m/s.
    pub jump_speed: f32,
    /// The steepest ground it stands and walks on, degrees.
    pub max_slope: f32,
    /// The same on a footway (its steps are steep ramps to the colliders).
    pub steps_slope: f32,
    /// Downward acceleration, m/s².
    pub gravity: f32,
}

impl Default for ReliefCharacter {
    fn default() -> Self {
        Self {
            radius: 0.3,
            height: 1.8,
            walk_speed: 4.0,
            run_speed: 9.0,
            jump_speed: 5.0,
            max_slope: 46.0,
            steps_slope: 70.0,
            gravity: 9.81,
        }
    }
}

impl ReliefCharacter {
    /// Everything the character needs, standing with its feet at `feet`
    /// (render space).
    pub fn bundle(self, feet: Vec3) -> impl Bundle {
        let collider = Collider::capsule(self.radius, self.height - 2.0 * self.radius);
        let centre = feet + Vec3::Y * self.height * 0.5;
        (
            self,
            collider,
            RigidBody::Kinematic,
            CustomPositionIntegration,
            Transform::from_translation(centre),
            CharacterControl::default(),
            CharacterState::default(),
        )
    }

    /// Checks every field's range (errors name the field, e.g.
    /// `character.radius`). The character system leaves a character that
    /// fails it where it is, and says so once.
    pub fn validate(&self) -> Result<(), ParamError> {
        let range = |field, value: f32, min: f32, max: f32| {
            ParamError::check_range(field, value as f64, min as f64, max as f64)
        };
        range("character.radius", self.radius, 0.05, 5.0)?;
        let min_height = 2.0 * self.radius + 0.01;
        range("character.height", self.height, min_height, 20.0)?;
        range("character.walk_speed", self.walk_speed, 0.0, 100.0)?;
        range("character.run_speed", self.run_speed, 0.0, 100.0)?;
        range("character.jump_speed", self.jump_speed, 0.0, 50.0)?;
        range("character.max_slope", self.max_slope, 0.0, 89.0)?;
        range("character.steps_slope", self.steps_slope, 0.0, 89.0)?;
        range("character.gravity", self.gravity, 0.0, 100.0)
    }

    /// Feet to eyes, metres.
    pub fn eye_height(&self) -> f32 {
        self.height - 0.12
    }
}

/// What the character is asked to do (set by the game each frame).
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct CharacterControl {
    /// The wanted horizontal direction in render space (x and z; y is
    /// ignored); its length, at most 1, scales the speed.
    pub direction: Vec3,
    /// Run instead of walk.
    pub run: bool,
    /// Jump (cleared at the next step: a jump asked for in the air is
    /// dropped).
    pub jump: bool,
}

/// What the character is doing (written each fixed step).
#[derive(Component, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Component)]
pub struct CharacterState {
    /// Standing on walkable ground.
    pub grounded: bool,
    /// On a footway (its steps count as walkable up to `steps_slope`).
    pub on_steps: bool,
    /// The ground's normal under it (render space), or zero in the air.
    pub ground_normal: Vec3,
    /// Its velocity, m/s (render space).
    pub velocity: Vec3,
    /// Where its feet were after the previous and the last step (core
    /// coordinates): interpolate between them to draw a camera smoothly.
    pub previous: DVec3,
    /// See `previous`.
    pub feet: DVec3,
    /// Steps that ended with the feet put back on the exact surface.
    pub rescues: u64,
}

impl CharacterState {
    /// The feet between the last two steps, `t` from 0 (previous) to 1
    /// (last): pass `Time<Fixed>::overstep_fraction()`.
    pub fn feet_at(&self, t: f64) -> DVec3 {
        self.previous.lerp(self.feet, t.clamp(0.0, 1.0))
    }
}

/// The standing surface at `p` for feet at `z` (core coordinates): the
/// road surface on a bridge or in a tunnel ([`LaidRoads::span_at`]) where
/// it is within [`ON_STRUCTURE`] of `z`, else the built ground.
pub fn standing_height(laid: &LaidRoads, p: DVec2, z: f64) -> f64 {
    match laid.span_at(p) {
        Some(surface) if (surface - z).abs() <= ON_STRUCTURE => surface,
        _ => laid.ground.height(p.x, p.y),
    }
}

/// The exact standing surface under `feet` (core coordinates) as a probe
/// hit: how far below the feet it is and its normal (render space), if
/// within [`PROBE`] below them (or less than [`SINK`] above).
fn exact_ground(laid: &LaidRoads, feet: DVec3) -> Option<(f32, Vec3)> {
    let p = feet.truncate();
    let surface = standing_height(laid, p, feet.z);
    let gap = feet.z - surface;
    if !(-SINK..=PROBE as f64).contains(&gap) {
        return None;
    }
    // The slope over a metre around it (level on a structure).
    let h = |dx: f64, dy: f64| standing_height(laid, p + DVec2::new(dx, dy), surface);
    let (gx, gy) = (h(0.5, 0.0) - h(-0.5, 0.0), h(0.0, 0.5) - h(0.0, -0.5));
    let n = Vec3::new(-gx as f32, 1.0, gy as f32).normalize();
    Some((gap.max(0.0) as f32, n))
}

/// Whether `p` is on a footway's carriageway.
fn on_footway(laid: &LaidRoads, p: DVec2) -> bool {
    laid.roads.nearest(p, 8.0).is_some_and(|(i, _, d)| {
        let r = &laid.roads.network().roads[i];
        r.class == RoadClass::Path && d <= r.width * 0.5 + 0.3
    })
}

/// Moves every character one fixed step (see the module docs).
pub(crate) fn move_characters(
    time: Res<Time>,
    laid: Res<LaidRoads>,
    origin: Res<RenderOrigin>,
    spatial: MoveAndSlide,
    mut q: Query<(
        Entity,
        &ReliefCharacter,
        &Collider,
        &mut Transform,
        &mut CharacterControl,
        &mut CharacterState,
    )>,
    mut refused: Local<bevy::platform::collections::HashSet<Entity>>,
) {
    let dt = time.delta_secs();
    if dt <= 0.0 {
        return;
    }
    for (e, ch, collider, mut tf, mut ctl, mut st) in &mut q {
        if let Err(err) = ch.validate() {
            if refused.insert(e) {
                error!("ReliefCharacter {e}: {err}; it stays where it is");
            }
            continue;
        }
        refused.remove(&e);
        let filter = SpatialQueryFilter::from_excluded_entities([e]);
        let half = ch.height * 0.5;
        let here = origin.to_world(tf.translation);
        st.on_steps = on_footway(&laid, here.truncate());
        let limit = if st.on_steps {
            ch.steps_slope
        } else {
            ch.max_slope
        };
        let walkable = limit.to_radians().cos();
        // The ground under it, within reach of a step: the colliders, or
        // where they have not come yet the exact surface.
        let probe = (spatial.spatial_query)
            .cast_shape(
                collider,
                tf.translation,
                tf.rotation,
                Dir3::NEG_Y,
                &ShapeCastConfig::from_max_distance(PROBE),
                &filter,
            )
            .map(|h| (h.distance, h.normal1))
            .or_else(|| exact_ground(&laid, here - DVec3::Z * half as f64));
        let rising = st.velocity.y > 0.5;
        let ground = probe.filter(|h| h.1.y >= walkable && !rising);
        let mut wish = Vec3::new(ctl.direction.x, 0.0, ctl.direction.z).clamp_length_max(1.0);
        wish *= if ctl.run { ch.run_speed } else { ch.walk_speed };
        let mut v;
        let mut jumped = false;
        if let Some(hit) = ground {
            // Stand: glued to the ground, moving along it.
            tf.translation.y -= (hit.0 - 0.01).max(0.0);
            let n = hit.1;
            v = wish - n * wish.dot(n);
            if v.length_squared() > 0.0 {
                v = v.normalize() * wish.length();
            }
            if std::mem::take(&mut ctl.jump) {
                v.y = ch.jump_speed;
                jumped = true;
            }
            st.ground_normal = n;
        } else {
            // Fall (or slide); steer a little in the air.
            let h = Vec3::new(st.velocity.x, 0.0, st.velocity.z);
            v = h + (wish - h) * (2.0 * dt).min(1.0);
            v.y = (st.velocity.y - ch.gravity * dt).max(-MAX_FALL);
            if let Some(steep) = probe {
                // Never walk up into a face too steep to stand on.
                let out = Vec3::new(steep.1.x, 0.0, steep.1.z).normalize_or_zero();
                let into = v.dot(out);
                if into < 0.0 {
                    v -= out * into;
                }
            }
            st.ground_normal = Vec3::ZERO;
            // A jump asked for in the air is dropped, not kept for landing.
            ctl.jump = false;
        }
        let moved = spatial.move_and_slide(
            collider,
            tf.translation,
            tf.rotation,
            v,
            Duration::from_secs_f32(dt),
            &MoveAndSlideConfig::default(),
            &filter,
            |_| MoveAndSlideHitResponse::Accept,
        );
        tf.translation = moved.position;
        let standing = ground.is_some() && !jumped;
        st.velocity = if standing {
            Vec3::new(moved.projected_velocity.x, 0.0, moved.projected_velocity.z)
        } else {
            moved.projected_velocity
        };
        st.grounded = standing;
        // Never below the exact standing surface.
        let centre = origin.to_world(tf.translation);
        let feet = centre.z - half as f64;
        let surface = standing_height(&laid, centre.truncate(), feet);
        if feet < surface - SINK {
            tf.translation.y += (surface - feet) as f32;
            st.velocity.y = st.velocity.y.max(0.0);
            st.grounded = true;
            st.rescues += 1;
        }
        let feet_now = origin.to_world(tf.translation) - DVec3::Z * half as f64;
        st.previous = if st.feet == DVec3::ZERO {
            feet_now
        } else {
            st.feet
        };
        st.feet = feet_now;
    }
}
