//! `--far`: 1,000 km east from the origin at 1,000 m/s. Checks that render
//! positions stay exact relative to the camera however far out (every
//! anchored entity's f32 offset from the focus against the f64 truth), and
//! at the end that the ground out there is the ground generated alone: the
//! laid region's heights around the focus, bit for bit, against
//! `RoadSystem::region` over a square of its own.

use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy_relief::plugin::{LaidRoads, TerrainState, WorldAnchor};
use bevy_relief::prelude::*;
use bevy_relief::world::RoadSystem;

/// The render-precision figures (a resource).
#[derive(Resource, Default)]
pub struct Far {
    /// The largest error of an anchored entity's offset from the focus,
    /// within 1 km of it and at any distance, metres.
    pub near: f64,
    pub all: f64,
    /// The focus at the last check (core x, y).
    pub focus: DVec2,
    /// Entities checked, summed over the frames checked.
    pub checked: u64,
}

/// Every 30th frame: each anchored entity's render offset from the focus
/// (f32, as the GPU sees it) against its core offset (f64).
pub fn precision(
    mut far: ResMut<Far>,
    mut frame: Local<u64>,
    origin: Res<RenderOrigin>,
    focus: Single<&Transform, With<ReliefFocus>>,
    anchored: Query<(&WorldAnchor, &Transform), Without<ReliefFocus>>,
) {
    *frame += 1;
    if !(*frame).is_multiple_of(30) {
        return;
    }
    let f = focus.translation;
    let focus_world = origin.to_world(f);
    far.focus = focus_world.truncate();
    for (a, t) in &anchored {
        let seen = t.translation - f;
        let d = a.0 - focus_world;
        let truth = DVec3::new(d.x, d.z, -d.y);
        let err = (seen.as_dvec3() - truth).length();
        far.all = far.all.max(err);
        if d.truncate().length() < 1000.0 {
            far.near = far.near.max(err);
        }
        far.checked += 1;
    }
}

/// Prints the figures and compares the laid ground around the focus with a
/// region generated alone; returns how many checks failed.
pub fn report(
    far: &Far,
    laid: &LaidRoads,
    settings: &TerrainSettings,
    state: &TerrainState,
) -> u32 {
    let focus = far.focus;
    let mut failures = 0;
    println!(
        "  render precision: offsets from the focus within {:.3} mm of the f64 truth within 1 km, {:.3} mm at any distance ({} checks)",
        far.near * 1e3,
        far.all * 1e3,
        far.checked
    );
    if far.near > 1e-3 {
        println!("FAIL: a render position more than 1 mm off near the focus");
        failures += 1;
    }
    // A 2 km square inside the laid region, centred as near the focus as it
    // allows; the middle kilometre is compared.
    let Some((min, max)) = laid.region else {
        println!("FAIL: no region laid at the end");
        return failures + 1;
    };
    let c = focus.clamp(min + 1000.0, max - 1000.0);
    let alone = match RoadSystem::new(settings.roads.clone()) {
        Ok(s) => (s.region(&state.terrain, c - 1000.0, c + 1000.0)).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    match alone {
        Ok(region) => {
            let mut differ = 0;
            let n = 101;
            for i in 0..n {
                for j in 0..n {
                    let p = c - 500.0 + DVec2::new(i as f64, j as f64) * (1000.0 / (n - 1) as f64);
                    if laid.ground.height(p.x, p.y).to_bits()
                        != region.ground.height(p.x, p.y).to_bits()
                    {
                        differ += 1;
                    }
                }
            }
            println!(
                "  region-stable at ({:.0}, {:.0}): {} of {} heights differ from the region generated alone ({} roads in it)",
                c.x,
                c.y,
                differ,
                n * n,
                region.network.roads.len()
            );
            if differ > 0 {
                println!("FAIL: the world out there is not the world generated alone");
                failures += 1;
            }
        }
        Err(e) => {
            println!("FAIL: the region alone: {e}");
            failures += 1;
        }
    }
    failures
}
