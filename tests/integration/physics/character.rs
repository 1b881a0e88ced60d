//! The walking character on the hand-made site: it walks the road over the
//! bridge and through the tunnel at its speed on the surface, is stopped by
//! a house and a cliff, slides down steep ground, jumps and lands, climbs a
//! footway's steps up a 60° bank but not the bank beside them, and stands
//! on the ground far from any collider right after the focus jumps there
//! and the origin shifts.

use super::*;
use bevy_relief::plugin::{CharacterControl, CharacterState, ReliefCharacter, standing_height};

/// A character with its feet at `feet` (core coordinates).
fn spawn(app: &mut App, feet: DVec3) -> Entity {
    let render = app.world().resource::<RenderOrigin>().to_render(feet);
    let bundle = ReliefCharacter::default().bundle(render);
    app.world_mut().spawn(bundle).id()
}

/// Asks `e` to go along core direction `dir` (x east, y north).
fn steer(app: &mut App, e: Entity, dir: DVec2, run: bool) {
    let mut c = app.world_mut().get_mut::<CharacterControl>(e).unwrap();
    c.direction = Vec3::new(dir.x as f32, 0.0, -dir.y as f32);
    c.run = run;
}

fn state(app: &App, e: Entity) -> CharacterState {
    app.world().get::<CharacterState>(e).unwrap().clone()
}

/// Updates for `frames` frames (16 ms each), returning the state after each.
fn frames(app: &mut App, e: Entity, frames: usize) -> Vec<CharacterState> {
    (0..frames)
        .map(|_| {
            app.update();
            state(app, e)
        })
        .collect()
}

#[test]
fn a_character_runs_the_road_over_the_bridge_and_through_the_tunnel() {
    let mut app = world(ReliefPhysicsSettings {
        fine_radius: 400.0,
        ..default()
    });
    // The exact surface it falls back on: the deck, the tube's floor under
    // the hill (feet near the road), the hillside over it (feet up there).
    let laid = app.world().resource::<LaidRoads>().clone();
    let mid = |x0: f64, x1: f64| DVec2::new((x0 + x1) / 2.0, Y + 1.0);
    assert_eq!(standing_height(&laid, mid(BRIDGE.0, BRIDGE.1), Z + 0.5), Z);
    assert_eq!(standing_height(&laid, mid(TUNNEL.0, TUNNEL.1), Z + 0.5), Z);
    assert_eq!(
        standing_height(&laid, mid(TUNNEL.0, TUNNEL.1), Z + 30.0),
        Z + 30.0
    );
    let run = ReliefCharacter::default().run_speed as f64;
    for (from, to) in [
        (BRIDGE.0 - 20.0, BRIDGE.1 + 20.0),
        (TUNNEL.0 - 20.0, TUNNEL.1 + 20.0),
    ] {
        let e = spawn(&mut app, DVec3::new(from, Y - 1.0, Z));
        // Settle on the road, then run east.
        frames(&mut app, e, 10);
        steer(&mut app, e, DVec2::X, true);
        let t = (to - from) / run;
        let states = frames(&mut app, e, (t / 0.016).ceil() as usize);
        let last = states.last().unwrap();
        for s in &states {
            assert!(
                (s.feet.z - Z).abs() < 0.1 && s.grounded,
                "off the road surface at {} (grounded: {})",
                s.feet,
                s.grounded
            );
            assert!((s.feet.y - (Y - 1.0)).abs() < 0.2, "strayed to {}", s.feet);
        }
        let speed = (last.feet.x - from) / t;
        assert!(
            (speed / run - 1.0).abs() < 0.05,
            "ran {speed:.2} m/s, not {run}"
        );
        assert_eq!(last.rescues, 0, "the colliders carried it");
        println!("ran {from}..{} at {speed:.2} m/s", last.feet.x);
        app.world_mut().despawn(e);
    }
}

#[test]
fn a_house_and_a_cliff_stop_a_character_it_slides_on_steep_ground_and_jumps() {
    let mut app = world(ReliefPhysicsSettings::default());
    let r = ReliefCharacter::default().radius as f64;
    // The first house's west wall, walked into from 6 m west of it.
    let wall_x = PAD.0.x + 30.0 - 8.0;
    let e = spawn(&mut app, DVec3::new(wall_x - 6.0, PAD.0.y + 30.0, PAD_Z));
    steer(&mut app, e, DVec2::X, false);
    let states = frames(&mut app, e, 200);
    let s = states.last().unwrap();
    assert!(
        s.feet.x < wall_x - r + 0.05,
        "walked into the house: {}",
        s.feet
    );
    assert!(s.feet.x > wall_x - r - 0.1, "stopped short: {}", s.feet);
    assert!(s.grounded && (s.feet.z - PAD_Z).abs() < 0.05, "{}", s.feet);
    // The cliff where the tunnel's hill stands 30 m over the terrace.
    let e = spawn(&mut app, DVec3::new(TUNNEL.0 - 8.0, Y + 12.0, Z));
    steer(&mut app, e, DVec2::X, true);
    let states = frames(&mut app, e, 200);
    let s = states.last().unwrap();
    assert!(s.feet.x < TUNNEL.0 + 0.5, "went into the hill: {}", s.feet);
    assert!(
        states.iter().all(|s| s.feet.z < Z + 1.0),
        "climbed the cliff"
    );
    // Steep natural ground (60–75° over 1 and 2 m): it slides down.
    let laid = app.world().resource::<LaidRoads>().clone();
    let angle = |p: DVec2, r: f64| {
        let h = |dx: f64, dy: f64| laid.ground.height(p.x + dx, p.y + dy);
        let g = DVec2::new(h(r, 0.0) - h(-r, 0.0), h(0.0, r) - h(0.0, -r)) / (2.0 * r);
        g.length().atan().to_degrees()
    };
    let steep = (1..20_000)
        .map(|k| {
            let a = k as f64 * 2.399_963;
            FOCUS + DVec2::new(a.cos(), a.sin()) * (60.0 + (k % 290) as f64)
        })
        .find(|&p| {
            (p.y - Y).abs() > HALF + 10.0
                && [1.0, 2.0]
                    .iter()
                    .all(|&r| (60.0..75.0).contains(&angle(p, r)))
        })
        .expect("steep ground near the site");
    let z0 = laid.ground.height(steep.x, steep.y);
    let e = spawn(&mut app, steep.extend(z0 + 0.05));
    let states = frames(&mut app, e, 60);
    let s = states.last().unwrap();
    assert!(
        s.feet.z < z0 - 0.5,
        "stood on a {:.0}° slope at {steep}: {} from {z0:.2}",
        angle(steep, 1.0),
        s.feet
    );
    // A jump on the road: up by about v² / 2g, and down again.
    let c = ReliefCharacter::default();
    let e = spawn(&mut app, DVec3::new(18850.0, Y, Z));
    frames(&mut app, e, 10);
    app.world_mut().get_mut::<CharacterControl>(e).unwrap().jump = true;
    let states = frames(&mut app, e, 120);
    let top = states.iter().map(|s| s.feet.z).fold(f64::MIN, f64::max) - Z;
    let ideal = (c.jump_speed * c.jump_speed / (2.0 * c.gravity)) as f64;
    assert!(
        (top / ideal - 1.0).abs() < 0.1,
        "jumped {top:.2} m, not {ideal:.2}"
    );
    let s = states.last().unwrap();
    assert!(s.grounded && (s.feet.z - Z).abs() < 0.05, "{}", s.feet);
    assert!(states.iter().any(|s| !s.grounded), "never left the ground");
}

#[test]
fn a_character_climbs_steps_up_a_60_degree_bank_but_not_the_bank_beside_them() {
    let mut app = world(ReliefPhysicsSettings::default());
    let climb = |app: &mut App, x: f64| {
        let e = spawn(app, DVec3::new(x, Y - HALF + 2.0, Z));
        steer(app, e, -DVec2::Y, false);
        let states = frames(app, e, 600);
        let on = states.iter().filter(|s| s.on_steps).count();
        (on, states.last().unwrap().clone())
    };
    // On the footway the steps (a 60° ramp to the colliders) are walkable
    // (at half speed).
    let top = Z + bank_top();
    let (on, s) = climb(&mut app, STEPS_X);
    assert!(on > 60, "on the steps {on} frames");
    assert!(
        s.grounded && (s.feet.z - top).abs() < 0.2 && s.feet.y < Y - HALF - BANK_RUN,
        "did not climb the steps to the landing at {top:.2}: {}",
        s.feet
    );
    // Beside it the same bank is too steep (over 46°): it stays below.
    let (on, s) = climb(&mut app, STEPS_X + 40.0);
    assert_eq!(on, 0);
    assert!(s.feet.z < Z + 2.0, "climbed the 60° bank: {}", s.feet);
}

#[test]
fn a_character_sent_far_away_stands_on_the_ground_before_its_colliders_come() {
    let mut app = world(ReliefPhysicsSettings::default());
    let laid = app.world().resource::<LaidRoads>().clone();
    // A gentle place 3 km east, where no collider is yet.
    let mut p = FOCUS + DVec2::new(3000.0, 400.0);
    let slope = |p: DVec2| {
        let h = |dx: f64, dy: f64| laid.ground.height(p.x + dx, p.y + dy);
        DVec2::new(h(2.0, 0.0) - h(-2.0, 0.0), h(0.0, 2.0) - h(0.0, -2.0)).length() / 4.0
    };
    while slope(p) > 0.3 {
        p.x += 7.0;
    }
    let ground = laid.ground.height(p.x, p.y);
    // The focus and the character jump there together.
    let focus = {
        let mut q = app
            .world_mut()
            .query_filtered::<Entity, With<ReliefFocus>>();
        q.single(app.world()).unwrap()
    };
    let render = app
        .world()
        .resource::<RenderOrigin>()
        .to_render(p.extend(ground + 2.0));
    app.world_mut()
        .get_mut::<Transform>(focus)
        .unwrap()
        .translation = render;
    let e = spawn(&mut app, p.extend(ground + 0.5));
    let states = frames(&mut app, e, 400);
    let origin = app.world().resource::<RenderOrigin>().0;
    assert!(origin.distance(p) < 60.0, "the origin followed: {origin}");
    for s in &states {
        let g = laid.ground.height(s.feet.x, s.feet.y);
        assert!(
            s.feet.z > g - 0.25,
            "fell to {:.2} m under the ground",
            g - s.feet.z
        );
    }
    let s = states.last().unwrap();
    let g = laid.ground.height(s.feet.x, s.feet.y);
    assert!(
        s.grounded && (s.feet.z - g).abs() < 0.1,
        "{} over {g}",
        s.feet
    );
    // The colliders come (on idle workers: later on a busy machine), and
    // it stays on the ground meanwhile.
    crate::plugin::run_until(&mut app, "the colliders", |app| {
        let s = state(app, e);
        let g = laid.ground.height(s.feet.x, s.feet.y);
        assert!(s.feet.z > g - 0.25, "fell to {:.2} m under", g - s.feet.z);
        app.world().resource::<ReliefColliders>().complete()
    });
    println!("{} rescues before the colliders came", s.rescues);
}
