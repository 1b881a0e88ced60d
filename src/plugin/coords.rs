//! The one place where core coordinates meet Bevy's.
//!
//! Core: f64 metres, x east, y north, z up. Bevy: f32, Y up, −Z north, and
//! every translation relative to a render origin near the camera, so that
//! f32 precision is spent where the player is looking.

use bevy::math::{DVec2, DVec3, Vec3};

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
