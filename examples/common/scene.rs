//! The light and air the example world is seen in, shared by the examples
//! that render it (`world`, and `flythrough --render`, which must measure
//! the same picture): the sky, the ambient light, a sun without shadow
//! maps and the haze towards the horizon.

use bevy::light::GlobalAmbientLight;
use bevy::prelude::*;

/// The sky colour and the ambient light (resources).
pub fn sky(app: &mut App) -> &mut App {
    app.insert_resource(ClearColor(Color::srgb(0.62, 0.75, 0.90)))
        .insert_resource(GlobalAmbientLight {
            brightness: 250.0,
            ..default()
        })
}

/// The sun: 5,000 lux from the south-west, high, without shadow maps (the
/// far field pays for none).
pub fn sun() -> impl Bundle {
    (
        DirectionalLight {
            illuminance: 5_000.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(-1.0, 1.4, 0.6).looking_at(Vec3::ZERO, Vec3::Y),
    )
}

/// The haze: sky-coloured, things fade out by 9 km.
pub fn haze() -> DistanceFog {
    DistanceFog {
        color: Color::srgb(0.66, 0.76, 0.88),
        falloff: FogFalloff::from_visibility(9000.0),
        ..default()
    }
}
