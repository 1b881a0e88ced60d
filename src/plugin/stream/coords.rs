//! The one place where core coordinates meet Bevy's, and the floating origin.
//!
//! Core: f64 metres, x east, y north, z up. Bevy: f32, Y up, −Z north, and
//! every translation relative to a render origin near the focus, so that f32
//! precision is spent where the player is looking.
//!
//! The floating origin is a small system of our own rather than `big_space`:
//! the world is a single height field with a few kilometres in view, so one
//! origin that jumps to the focus (shifting every root transform by the same
//! whole-metre amount) is all it takes, it keeps the ordinary
//! `TransformPlugin` (headless apps and other plugins work unchanged), and
//! entities anchored in the world ([`WorldAnchor`]) are re-placed exactly
//! from f64 rather than shifted, so no error accumulates.

use bevy::math::{DVec2, DVec3, Vec3};
use bevy::prelude::*;

/// A core point as a Bevy translation relative to `origin` (a core x, y).
#[inline]
pub fn to_bevy(p: DVec3, origin: DVec2) -> Vec3 {
    Vec3::new(
        (p.x - origin.x) as f32,
        p.z as f32,
        -(p.y - origin.y) as f32,
    )
}

/// A Bevy translation relative to `origin` back to a core point.
#[inline]
pub fn from_bevy(v: Vec3, origin: DVec2) -> DVec3 {
    DVec3::new(origin.x + v.x as f64, origin.y - v.z as f64, v.y as f64)
}

/// A core direction (no origin) as a Bevy direction.
#[inline]
pub fn dir_to_bevy(d: DVec3) -> Vec3 {
    Vec3::new(d.x as f32, d.z as f32, -d.y as f32)
}

/// Marks the entity whose position the world streams around (the player or
/// the camera). With several, the first found is used.
#[derive(Component, Clone, Copy, Debug, Default, Reflect)]
pub struct ReliefFocus;

/// A world position in core coordinates; the entity's `Transform`
/// translation is kept equal to it relative to the render origin.
#[derive(Component, Clone, Copy, Debug, PartialEq, Reflect)]
pub struct WorldAnchor(pub DVec3);

/// The core (x, y) that Bevy's origin stands for.
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct RenderOrigin(pub DVec2);

impl RenderOrigin {
    /// A core point as a render-space translation.
    pub fn to_render(&self, p: DVec3) -> Vec3 {
        to_bevy(p, self.0)
    }

    /// A render-space translation as a core point.
    pub fn to_world(&self, v: Vec3) -> DVec3 {
        from_bevy(v, self.0)
    }
}

/// Sent when the render origin moves: every root transform was shifted by
/// `-render_delta`. Games that cache render-space positions adjust them.
#[derive(Message, Clone, Copy, Debug)]
pub struct OriginShifted {
    /// New origin minus old, in core metres.
    pub delta: DVec2,
    /// The same shift in render space (what was subtracted).
    pub render_delta: Vec3,
}

/// Where the focus is, in core coordinates (`None` without a focus).
#[derive(Resource, Clone, Copy, Debug, Default)]
pub struct FocusState {
    /// The focus position.
    pub world: Option<DVec3>,
}

/// Reads the focus into [`FocusState`] (part of the core: everything else
/// streams around it, with or without the floating origin).
pub(crate) fn read_focus(
    origin: Res<RenderOrigin>,
    mut focus_state: ResMut<FocusState>,
    focus: Query<(&Transform, &GlobalTransform, Has<ChildOf>), With<ReliefFocus>>,
) {
    let world = focus.iter().next().map(|(tf, gtf, child)| {
        // A child's own transform is relative to its parent.
        let render = if child {
            gtf.translation()
        } else {
            tf.translation
        };
        origin.to_world(render)
    });
    let world = world.filter(|w| w.is_finite());
    if focus_state.world != world {
        focus_state.world = world;
    }
}

/// Moves the render origin to the focus when it has strayed further than
/// `recenter_distance`: root transforms shift by the same whole-metre
/// vector, anchored entities are re-placed from f64.
pub(crate) fn follow_focus(
    mut origin: ResMut<RenderOrigin>,
    focus_state: Res<FocusState>,
    state: Res<super::settings::TerrainState>,
    mut q: ParamSet<(
        Query<&mut Transform, (Without<ChildOf>, Without<WorldAnchor>)>,
        Query<(&WorldAnchor, &mut Transform), Without<ChildOf>>,
    )>,
    mut shifted: MessageWriter<OriginShifted>,
) {
    let Some(world) = focus_state.world else {
        return;
    };
    if world.truncate().distance(origin.0) < state.view.recenter_distance {
        return;
    }
    let new = DVec2::new(world.x.round(), world.y.round());
    let delta = new - origin.0;
    let render_delta = Vec3::new(delta.x as f32, 0.0, -delta.y as f32);
    origin.0 = new;
    for mut t in &mut q.p0() {
        t.translation -= render_delta;
    }
    for (a, mut t) in &mut q.p1() {
        t.translation = to_bevy(a.0, new);
    }
    shifted.write(OriginShifted {
        delta,
        render_delta,
    });
}

/// Places newly anchored entities (and any whose anchor changed).
pub(crate) fn place_anchored(
    origin: Res<RenderOrigin>,
    mut q: Query<(&WorldAnchor, &mut Transform), (Changed<WorldAnchor>, Without<ChildOf>)>,
) {
    for (a, mut t) in &mut q {
        t.translation = origin.to_render(a.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_axes() {
        let o = DVec2::new(1.0e6, -2.0e6);
        let p = DVec3::new(1.0e6 + 12.5, -2.0e6 + 3.25, 204.0);
        let v = to_bevy(p, o);
        assert_eq!(v, Vec3::new(12.5, 204.0, -3.25));
        assert_eq!(from_bevy(v, o), p);
        // North is −Z, up is +Y.
        assert_eq!(dir_to_bevy(DVec3::Y), Vec3::NEG_Z);
        assert_eq!(dir_to_bevy(DVec3::Z), Vec3::Y);
    }
}
