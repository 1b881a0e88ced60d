//! Physics colliders (the `physics` feature): a hand-made region (a road on
//! a terrace with a bridge over a gully, a tunnel under a hill, a retaining
//! wall and a town pad with buildings) laid through
//! `ReliefPlugin::with_regions`, avian3d stepping headless with a fixed
//! time step. Spheres dropped across it come to rest on the built ground,
//! the deck, the tunnel's floor and the roofs; one thrown at a wall stays
//! out; resting ones stay put when the floating origin shifts.

use avian3d::prelude::*;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy_relief::plugin::{
    COLLIDER_CELL, ColliderPart, HYSTERESIS, ObjectKind, OriginShifted, ReliefCharacter,
    ReliefCollider, ReliefColliders, ReliefObject, ReliefPhysicsSettings, ViewSettings,
    collider_cell,
};
use bevy_relief::prelude::*;
use bevy_relief::terrain::LaidGround;
use std::time::{Duration, Instant};

mod character;
mod site;

use site::*;

/// The world around `FOCUS` with avian stepping at 64 Hz, 16 ms a frame,
/// and these collider settings.
fn world(physics: ReliefPhysicsSettings) -> App {
    let settings = TerrainSettings {
        view: ViewSettings {
            view_distance: 1500.0,
            object_radius: 150.0,
            recenter_distance: 50.0,
            ..default()
        },
        ..default()
    };
    let plugin = ReliefPlugin::with_settings(settings)
        .unwrap()
        .with_regions(|t: &Terrain, min: DVec2, max: DVec2| Ok(region(t, min, max)));
    let mut app = crate::plugin::app_with((plugin, PhysicsPlugins::default()));
    app.insert_resource(Time::<Fixed>::from_hz(64.0));
    app.insert_resource(physics);
    // What `App::run` does first (avian finishes setting up there).
    app.finish();
    app.cleanup();
    app.world_mut()
        .spawn((Transform::from_xyz(0.0, Z as f32 + 2.0, 0.0), ReliefFocus));
    app.update();
    app.world_mut().resource_mut::<RenderOrigin>().0 = FOCUS;
    let t0 = Instant::now();
    loop {
        app.update();
        let (s, c) = (
            app.world().resource::<ReliefStats>(),
            app.world().resource::<ReliefColliders>(),
        );
        if s.complete
            && s.objects_pending == 0
            && !s.roads_pending
            && s.roads == 2
            && c.complete()
            && c.hulls() > 0
        {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(120),
            "colliders never came"
        );
        std::thread::yield_now();
    }
    let c = app.world().resource::<ReliefColliders>();
    println!(
        "colliders within 400 m: {} bodies, {} height samples ({:.1} MiB as f32), {} hulls; \
         {} built in {:.2} s of worker time ({:.1} ms each; debug build); ready after {:.1} s",
        c.bodies(),
        c.samples(),
        c.samples() as f64 * 4.0 / (1 << 20) as f64,
        c.hulls(),
        c.built,
        c.build_seconds,
        c.build_seconds * 1000.0 / c.built.max(1) as f64,
        t0.elapsed().as_secs_f64(),
    );
    app
}

fn drop_sphere(app: &mut App, at: DVec3) -> Entity {
    let render = app.world().resource::<RenderOrigin>().to_render(at);
    app.world_mut()
        .spawn((
            RigidBody::Dynamic,
            Collider::sphere(R),
            // Spheres that cannot roll slide to a stop on slopes up to 45°.
            LockedAxes::ROTATION_LOCKED,
            Friction::new(1.0).with_combine_rule(CoefficientCombine::Max),
            Transform::from_translation(render),
        ))
        .id()
}

/// Core positions of `spheres`.
fn positions(app: &App, spheres: &[Entity]) -> Vec<DVec3> {
    let origin = app.world().resource::<RenderOrigin>();
    (spheres.iter())
        .map(|&e| origin.to_world(app.world().get::<Transform>(e).unwrap().translation))
        .collect()
}

/// How far a sphere centred at `c` stands off the ground: its centre's
/// distance to the surface (sampled every 5 cm around it) less its
/// radius, negative below the ground.
fn gap(ground: &LaidGround, c: DVec3) -> f64 {
    if c.z < ground.height(c.x, c.y) {
        return c.z - ground.height(c.x, c.y) - R as f64;
    }
    let mut d = f64::INFINITY;
    for i in -15..=15 {
        for j in -15..=15 {
            let (x, y) = (c.x + i as f64 * 0.05, c.y + j as f64 * 0.05);
            d = d.min(c.distance(DVec3::new(x, y, ground.height(x, y))));
        }
    }
    d - R as f64
}

/// Steps until every sphere is still; panics after `max` frames.
fn settle(app: &mut App, spheres: &[Entity], max: usize) {
    for _ in 0..max {
        app.update();
        let still = (spheres.iter()).all(|&e| {
            app.world()
                .get::<LinearVelocity>(e)
                .is_some_and(|v| v.length() < 0.02)
        });
        if still {
            return;
        }
    }
    let origin = app.world().resource::<RenderOrigin>().0;
    let moving: Vec<String> = (spheres.iter())
        .filter_map(|&e| {
            let v = app.world().get::<LinearVelocity>(e)?.0;
            let t = app.world().get::<Transform>(e)?.translation;
            let p = bevy_relief::plugin::from_bevy(t, origin);
            (v.length() >= 0.02).then(|| format!("at {p} at {v}"))
        })
        .collect();
    panic!("spheres still moving after {max} frames: {moving:#?}");
}

/// Where the drops go: `(point, surface height there)`, the surface being
/// the built ground unless named.
fn places(ground: &LaidGround, houses: &[DVec2]) -> Vec<(DVec2, Option<f64>)> {
    let mut out: Vec<(DVec2, Option<f64>)> = Vec::new();
    let by_a_house = |p: DVec2| houses.iter().any(|h| h.distance(p) < 15.0);
    // Slopes under 30° over 4 m (a sphere that cannot roll, at a friction
    // of 1, stays on up to 45°; steeper ground has it slide on and on).
    let gentle = |p: DVec2| {
        let h = |dx: f64, dy: f64| ground.height(p.x + dx, p.y + dy);
        let g = DVec2::new(h(2.0, 0.0) - h(-2.0, 0.0), h(0.0, 2.0) - h(0.0, -2.0)) / 4.0;
        g.length() < 30f64.to_radians().tan()
    };
    // The countryside: a spiral out to 360 m, off the terrace and the pad,
    // where the ground is not too steep to rest on.
    let mut k = 0;
    while out.len() < 120 {
        k += 1;
        let (a, r) = (
            k as f64 * 2.399_963,
            40.0 + 320.0 * ((k % 97) as f64 / 97.0),
        );
        let p = FOCUS + DVec2::new(a.cos(), a.sin()) * r;
        let off_site = (p.y - Y).abs() > HALF + 4.0 && !inside(p, PAD.0 - 4.0, PAD.1 + 4.0);
        if off_site
            && gentle(p)
            && !by_a_house(p)
            && !(p.x > 18790.0 && p.x < 18910.0 && (p.y - Y).abs() < HALF + 8.0)
            && !inside(
                p,
                DVec2::new(BANK.0 - 4.0, Y - HALF - BANK_DEPTH - 4.0),
                DVec2::new(BANK.1 + 4.0, Y),
            )
        {
            out.push((p, None));
        }
    }
    // The road and terrace, clear of the structures' ends.
    for i in 0..30 {
        let x = [18760.0, 19120.0, 19420.0][i % 3] + 20.0 * (i / 3) as f64 % 170.0;
        out.push((DVec2::new(x, Y - 15.0 + (i % 7) as f64 * 5.0), None));
    }
    // The bridge deck, between its parapets.
    for i in 0..15 {
        let p = DVec2::new(19005.0 + 6.0 * i as f64, Y - 2.4 + 0.35 * i as f64);
        out.push((p, Some(Z)));
    }
    // The tunnel's floor, away from its mouths.
    for i in 0..15 {
        let p = DVec2::new(19310.0 + 5.5 * i as f64, Y - 2.5 + 0.35 * i as f64);
        out.push((p, Some(Z)));
    }
    // The town: the pad between the houses, and the flat roofs.
    for i in 0..10 {
        let x = [10.0, 50.0, 90.0, 130.0, 140.0][i % 5];
        out.push((PAD.0 + DVec2::new(x, [50.0, 90.0][i / 5]), None));
    }
    for (i, f) in footprints().iter().take(6).enumerate() {
        let c = f.iter().sum::<DVec2>() / 4.0;
        for d in [-4.0, 4.0].iter().take(if i < 4 { 2 } else { 1 }) {
            out.push((c + DVec2::new(*d, 2.0), Some(PAD_Z + STOREYS)));
        }
    }
    out
}

#[test]
fn spheres_rest_on_the_built_ground_and_a_wall_stops_a_throw() {
    // The ground at 1 m everywhere: the colliders are checked against the
    // built ground itself (the default 2 m beyond 100 m of the focus can
    // differ from it by a few decimetres on rough ground).
    let mut app = world(ReliefPhysicsSettings {
        fine_radius: 400.0,
        ..default()
    });
    let laid = app.world().resource::<LaidRoads>().clone();
    assert_eq!(laid.deck_at(DVec2::new(19050.0, Y)), Some(Z));
    // Village houses (placed by the objects part) stand in the countryside,
    // each a static body: drops keep clear of them.
    let houses: Vec<DVec2> = {
        let mut q = app.world_mut().query::<(&ReliefObject, Has<Collider>)>();
        (q.iter(app.world()))
            .filter(|(o, _)| matches!(o.kind, ObjectKind::Building(_)))
            .map(|(o, body)| {
                assert!(body, "a house with no collider at {}", o.world);
                o.world.truncate()
            })
            .collect()
    };
    println!("{} village houses", houses.len());
    let places = places(&laid.ground, &houses);
    assert_eq!(places.len(), 200);
    let spheres: Vec<Entity> = (places.iter())
        .map(|&(p, surface)| {
            let z = surface.unwrap_or_else(|| laid.ground.height(p.x, p.y));
            drop_sphere(&mut app, p.extend(z + 1.5))
        })
        .collect();
    settle(&mut app, &spheres, 900);
    let mut worst = 0.0f64;
    let mut wrong = Vec::new();
    for ((p0, surface), p) in places.iter().zip(positions(&app, &spheres)) {
        let off = match surface {
            Some(z) => p.z - R as f64 - z,
            None => gap(&laid.ground, p),
        };
        worst = worst.max(off.abs());
        if off.abs() > 0.2 {
            wrong.push(format!("dropped at {p0}, rests at {p}, {off:+.3} m off"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of 200 off the surface: {wrong:#?}",
        wrong.len()
    );
    println!("200 spheres at rest, the worst {worst:.3} m off the surface");
    // Thrown at 30 m/s at the west wall of the first house, 3 m up.
    let wall_x = PAD.0.x + 30.0 - 8.0;
    let c = DVec3::new(wall_x - 6.0, PAD.0.y + 30.0, PAD_Z + 3.0);
    let ball = drop_sphere(&mut app, c);
    app.world_mut()
        .entity_mut(ball)
        .insert(LinearVelocity(Vec3::X * 30.0));
    for _ in 0..120 {
        app.update();
    }
    let p = positions(&app, &[ball])[0];
    assert!(
        p.x < wall_x - R as f64 + 0.05,
        "the ball went through the wall: {p}"
    );
}

#[test]
fn resting_spheres_stay_put_when_the_origin_shifts() {
    let mut app = world(ReliefPhysicsSettings::default());
    let laid = app.world().resource::<LaidRoads>().clone();
    let at = [
        DVec2::new(19150.0, Y + 2.0),
        DVec2::new(19050.0, Y - 1.0),
        DVec2::new(19350.0, Y + 1.0),
        FOCUS + DVec2::new(30.0, -80.0),
    ];
    let spheres: Vec<Entity> = (at.iter())
        .map(|&p| {
            let deck_or_tube =
                (BRIDGE.0 < p.x && p.x < BRIDGE.1) || (TUNNEL.0 < p.x && p.x < TUNNEL.1);
            let z = if deck_or_tube {
                Z
            } else {
                laid.ground.height(p.x, p.y)
            };
            drop_sphere(&mut app, p.extend(z + 1.0))
        })
        .collect();
    // A village house (as the objects part spawns them: a unit box scaled)
    // on the terrace, 6 m tall, with a sphere on its roof.
    let house = DVec3::new(19180.0, Y + 8.0, Z);
    let render = app.world().resource::<RenderOrigin>().to_render(house);
    app.world_mut().spawn((
        ReliefObject {
            kind: ObjectKind::Building(0),
            world: house,
        },
        Transform::from_translation(render).with_scale(Vec3::new(10.0, 6.0, 10.0)),
    ));
    let on_roof = drop_sphere(&mut app, house + DVec3::new(1.0, 1.0, 7.0));
    let spheres = [spheres, vec![on_roof]].concat();
    settle(&mut app, &spheres, 600);
    let roof = positions(&app, &[on_roof])[0].z - R as f64;
    assert!((roof - (Z + 6.0)).abs() < 0.05, "{roof}");
    let before = positions(&app, &spheres);
    // The focus walks 80 m east: past `recenter_distance`, the origin jumps.
    let focus = {
        let mut q = app
            .world_mut()
            .query_filtered::<Entity, With<ReliefFocus>>();
        q.single(app.world()).unwrap()
    };
    app.world_mut()
        .get_mut::<Transform>(focus)
        .unwrap()
        .translation
        .x += 80.0;
    app.update();
    let origin = app.world().resource::<RenderOrigin>().0;
    assert_eq!(origin, FOCUS + DVec2::new(80.0, 0.0), "the origin shifted");
    let shifted = app.world().resource::<Messages<OriginShifted>>();
    assert!(!shifted.is_empty());
    for _ in 0..240 {
        app.update();
    }
    for (a, b) in before.iter().zip(positions(&app, &spheres)) {
        assert!(a.distance(b) < 0.05, "a sphere at rest at {a} moved to {b}");
    }
    // Once the new cells' bodies have come (on idle workers: later on a busy
    // machine), the ground bodies cover the radius around the new focus,
    // and none is left beyond it and its hysteresis.
    crate::plugin::run_until(&mut app, "the new cells' colliders", |app| {
        app.world().resource::<ReliefColliders>().complete()
    });
    let focus = FOCUS + DVec2::new(80.0, 0.0);
    let mut q = app.world_mut().query::<&ReliefCollider>();
    let bodies: Vec<ReliefCollider> = q.iter(app.world()).copied().collect();
    let from_focus = |c: (i64, i64)| {
        let min = DVec2::new(c.0 as f64, c.1 as f64) * COLLIDER_CELL;
        focus.clamp(min, min + COLLIDER_CELL).distance(focus)
    };
    let s = ReliefPhysicsSettings::default();
    assert!(
        bodies
            .iter()
            .all(|b| from_focus(b.cell) <= s.collider_radius + HYSTERESIS)
    );
    let ground: Vec<(i64, i64)> = (bodies.iter())
        .filter(|b| b.part == ColliderPart::Ground)
        .map(|b| b.cell)
        .collect();
    for cy in -8..=8 {
        for cx in -8..=8 {
            let c = collider_cell(focus + DVec2::new(cx as f64, cy as f64) * COLLIDER_CELL);
            if from_focus(c) <= s.collider_radius {
                assert!(ground.contains(&c), "no ground at {c:?}");
            }
        }
    }
    // A bad setting is reported; the colliders stay.
    let bodies = app.world().resource::<ReliefColliders>().bodies();
    let mut settings = app.world_mut().resource_mut::<ReliefPhysicsSettings>();
    settings.collider_radius = -1.0;
    app.update();
    let c = app.world().resource::<ReliefColliders>();
    let e = c
        .error
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(e.starts_with("physics.collider_radius"), "{e}");
    assert_eq!(c.bodies(), bodies);
}

#[test]
fn physics_settings_are_checked_by_name() {
    assert_eq!(ReliefPhysicsSettings::default().validate(), Ok(()));
    let bad = |f: fn(&mut ReliefPhysicsSettings)| {
        let mut s = ReliefPhysicsSettings::default();
        f(&mut s);
        s.validate().unwrap_err().to_string()
    };
    let e = bad(|s| s.collider_radius = f64::NAN);
    assert!(
        e.starts_with("physics.collider_radius: must be finite, got NaN"),
        "{e}"
    );
    let e = bad(|s| s.fine_radius = 500.0);
    assert!(e.starts_with("physics.fine_radius"), "{e}");
    assert!(bad(|s| s.coarse_spacing = 0.0).starts_with("physics.coarse_spacing"));
    assert!(bad(|s| s.inserts_per_frame = 0).starts_with("physics.inserts_per_frame"));
}

#[test]
fn character_settings_are_checked_by_name() {
    assert_eq!(ReliefCharacter::default().validate(), Ok(()));
    let bad = |f: fn(&mut ReliefCharacter)| {
        let mut c = ReliefCharacter::default();
        f(&mut c);
        c.validate().unwrap_err().to_string()
    };
    let e = bad(|c| c.radius = f32::NAN);
    assert!(
        e.starts_with("character.radius: must be finite, got NaN"),
        "{e}"
    );
    // A capsule shorter than its two caps.
    assert!(bad(|c| c.height = 0.5).starts_with("character.height"));
    assert!(bad(|c| c.run_speed = -1.0).starts_with("character.run_speed"));
    assert!(bad(|c| c.max_slope = 90.0).starts_with("character.max_slope"));
    assert!(bad(|c| c.gravity = f32::INFINITY).starts_with("character.gravity"));
}

/// Without avian's plugins the physics plugin makes its colliders and
/// leaves a character where it is: no panic for a missing resource.
#[test]
fn without_avian_a_character_stays_put_and_nothing_panics() {
    let plugin = ReliefPlugin::default()
        .view_distance(1500.0)
        .object_radius(150.0);
    let mut app = crate::plugin::app_with(plugin);
    app.world_mut()
        .spawn((Transform::from_xyz(0.0, 400.0, 0.0), ReliefFocus));
    let feet = Vec3::new(1.0, 300.0, 2.0);
    let e = app
        .world_mut()
        .spawn(bevy_relief::plugin::ReliefCharacter::default().bundle(feet))
        .id();
    for _ in 0..30 {
        app.update();
    }
    let t = app.world().get::<Transform>(e).unwrap().translation;
    assert!(t.distance(feet) < 2.0, "moved to {t}");
}
