//! Traffic on a hand-made network (a 3 × 3 grid of 6 m roads on a tilted
//! plane around the origin, a lone road, a path, a street with steps off
//! it): vehicles fill the roads near the focus at the asked density, drive
//! their routes on the right-hand lane along the profiles at no more than
//! their speed, deterministically, and follow the focus and the settings;
//! pedestrians walk the path, the street and the steps near their right
//! edge at walking pace.

use super::*;
use bevy_relief::network::{Road, RoadClass, RoadNetwork};
use bevy_relief::plugin::{
    Pedestrian, ReliefChunksPlugin, ReliefObjectsPlugin, ReliefTrafficPlugin, TrafficSettings,
    TrafficStats, Trip, Vehicle,
};
use bevy_relief::plugin::{dir_to_bevy, to_bevy};
use bevy_relief::terrain::LaidGround;
use bevy_relief::world::Region;
use std::sync::Arc;

/// The roads' profile: a tilted plane.
fn z_at(p: DVec2) -> f64 {
    100.0 + 0.05 * p.x + 0.03 * p.y
}

fn road(a: DVec2, b: DVec2, class: RoadClass) -> Road {
    let n = (a.distance(b) / 50.0).round() as usize;
    let points: Vec<DVec2> = (0..=n).map(|k| a.lerp(b, k as f64 / n as f64)).collect();
    let mut r = Road::new(points, class, 6.0);
    r.z = r.points.iter().map(|&p| z_at(p)).collect();
    r
}

/// Lines x, y ∈ {−300, 0, 300} from −600 to 600, points every 50 m; a
/// lone road at y = −450 (x 50–200); a path at y = 150 (x 0–300); a street
/// at y = −800 (x −300–300, beyond the vehicles' tests) with steps (a path)
/// from its middle south to y = −1000.
fn network() -> RoadNetwork {
    let mut roads = Vec::new();
    for c in [-300.0, 0.0, 300.0] {
        let v = |x, y| DVec2::new(x, y);
        roads.push(road(v(-600.0, c), v(600.0, c), RoadClass::Road));
        roads.push(road(v(c, -600.0), v(c, 600.0), RoadClass::Road));
    }
    roads.push(road(
        DVec2::new(50.0, -450.0),
        DVec2::new(200.0, -450.0),
        RoadClass::Road,
    ));
    roads.push(road(
        DVec2::new(0.0, 150.0),
        DVec2::new(300.0, 150.0),
        RoadClass::Path,
    ));
    roads.push(road(
        DVec2::new(-300.0, -800.0),
        DVec2::new(300.0, -800.0),
        RoadClass::Street,
    ));
    roads.push(road(
        DVec2::new(0.0, -800.0),
        DVec2::new(0.0, -1000.0),
        RoadClass::Path,
    ));
    RoadNetwork::from_roads(roads)
}

/// Drivable road within `r` of `c` (m): within 500 m of the origin, two
/// 1000 m chords, four of 800 m and the lone road's 150 m.
const NEAR_ORIGIN: f64 = 2.0 * 1000.0 + 4.0 * 800.0 + 150.0;

fn traffic_app(settings: TrafficSettings) -> App {
    let net = Arc::new(network());
    let source = move |t: &Terrain, min: DVec2, max: DVec2| {
        Ok(Region {
            min,
            max,
            network: net.clone(),
            cities: Vec::new(),
            layouts: Vec::new(),
            ground: Arc::new(LaidGround::new(Arc::new(t.clone()))),
            structures: Vec::new(),
            report: Default::default(),
        })
    };
    let world = ReliefPlugin::default()
        .view_distance(1500.0)
        .with_regions(source)
        .plugins()
        .build()
        .disable::<ReliefChunksPlugin>()
        .disable::<ReliefObjectsPlugin>();
    let mut app = app_with((world, ReliefTrafficPlugin { settings }));
    spawn_focus(&mut app, Vec3::new(0.0, 300.0, 0.0));
    app
}

fn settings(seed: u64) -> TrafficSettings {
    TrafficSettings {
        traffic_density: 20.0,
        traffic_radius: 500.0,
        seed,
        ..default()
    }
}

fn stats(app: &App) -> TrafficStats {
    app.world().resource::<TrafficStats>().clone()
}

/// Updates until the routing graph of the laid roads is built.
fn until_ready(app: &mut App) {
    run_until(app, "the traffic's routing graph", |app| {
        let laid = app.world().resource::<LaidRoads>();
        laid.region.is_some() && stats(app).ready
    });
}

fn full(app: &mut App) -> bool {
    let s = stats(app);
    s.ready && s.vehicles == s.target
}

fn vehicles(app: &mut App) -> Vec<(Vehicle, Transform)> {
    let mut q = app.world_mut().query::<(&Vehicle, &Transform)>();
    let mut v: Vec<_> = (q.iter(app.world()))
        .map(|(v, t)| (v.clone(), *t))
        .collect();
    v.sort_by_key(|(v, _)| v.id);
    v
}

fn pedestrians(app: &mut App) -> Vec<(Pedestrian, Transform)> {
    let mut q = app.world_mut().query::<(&Pedestrian, &Transform)>();
    let mut v: Vec<_> = (q.iter(app.world()))
        .map(|(v, t)| (v.clone(), *t))
        .collect();
    v.sort_by_key(|(v, _)| v.id);
    v
}

/// The route's centre-line point and direction at `progress`.
fn on_route(v: &Trip) -> (DVec3, DVec3) {
    let pts = &v.route.points;
    let mut acc = 0.0;
    for w in pts.windows(2) {
        let l = w[0].distance(w[1]);
        if acc + l >= v.progress && l > 0.0 {
            let t = ((v.progress - acc) / l).clamp(0.0, 1.0);
            return (w[0].lerp(w[1], t), (w[1] - w[0]) / l);
        }
        acc += l;
    }
    let n = pts.len();
    (pts[n - 1], (pts[n - 1] - pts[n - 2]).normalize_or_zero())
}

/// Whether a point lies on one of the grid lines or the lone road.
fn on_a_road(p: DVec2) -> bool {
    let line = |c: f64| (c + 300.0).abs() < 1e-6 || c.abs() < 1e-6 || (c - 300.0).abs() < 1e-6;
    let lone = (p.y + 450.0).abs() < 1e-6 && (50.0 - 1e-6..=200.0 + 1e-6).contains(&p.x);
    lone || ((line(p.x) || line(p.y)) && p.x.abs() <= 600.0 + 1e-6 && p.y.abs() <= 600.0 + 1e-6)
}

#[test]
fn vehicles_fill_the_roads_and_drive_on_the_right_lane() {
    let mut app = traffic_app(settings(7));
    until_ready(&mut app);
    run_until(&mut app, "the vehicles", full);
    let s = stats(&app);
    assert!((s.road_km - NEAR_ORIGIN / 1000.0).abs() < 1e-6, "{s:?}");
    assert_eq!(s.target, (20.0 * NEAR_ORIGIN / 1000.0).round() as usize);
    assert_eq!(vehicles(&mut app).len(), s.target);
    let mut before = vehicles(&mut app);
    let dt = 0.016;
    let mut moved = 0.0;
    for _ in 0..120 {
        app.update();
        let origin = app.world().resource::<RenderOrigin>().0;
        let now = vehicles(&mut app);
        for (v, tf) in &now {
            let (c, d) = on_route(v);
            // On the road's profile, 1.5 m (a quarter of 6 m) right of its
            // centre line, heading along it.
            assert!(on_a_road(c.truncate()), "{} off the roads at {c}", v.id);
            assert!((c.z - z_at(c.truncate())).abs() < 1e-6, "{c}");
            let off = v.position - c;
            assert!(off.z.abs() < 1e-9, "{off}");
            let right = DVec2::new(d.y, -d.x).normalize();
            assert!((off.truncate() - 1.5 * right).length() < 1e-6, "{off} {d}");
            assert!((v.heading - d).length() < 1e-6);
            let want = to_bevy(v.position, origin);
            assert!((tf.translation - want).length() < 1e-3);
            assert!(tf.forward().dot(dir_to_bevy(d).normalize()) > 0.999);
        }
        for (v, _) in &now {
            let Some((w, _)) = before.iter().find(|(w, _)| w.id == v.id) else {
                continue;
            };
            if Arc::ptr_eq(&w.route, &v.route) {
                // Forward, at no more than the road's speed (18 m/s).
                let step = v.progress - w.progress;
                assert!(step >= 0.0 && step <= 18.0 * dt + 1e-9, "{step}");
                moved += step;
            }
        }
        before = now;
    }
    // They do drive, and mostly slower on the grades and at junctions.
    let n = before.len() as f64;
    assert!(moved > n * 120.0 * dt * 5.0, "{moved}");
    assert!(stats(&app).routes > stats(&app).target as u64);
}

#[test]
fn traffic_is_deterministic_given_the_seed() {
    let positions = |seed| {
        let mut app = traffic_app(settings(seed));
        until_ready(&mut app);
        for _ in 0..150 {
            app.update();
        }
        (vehicles(&mut app).into_iter())
            .map(|(v, _)| (v.id, v.position, v.progress))
            .collect::<Vec<_>>()
    };
    let a = positions(11);
    assert!(a.len() > 50, "{}", a.len());
    assert_eq!(a, positions(11));
    assert_ne!(a, positions(12));
}

#[test]
fn traffic_follows_the_focus_and_the_settings() {
    let mut app = traffic_app(settings(3));
    until_ready(&mut app);
    run_until(&mut app, "the vehicles", full);
    let first = stats(&app).target;
    let focus = {
        let mut q = app
            .world_mut()
            .query_filtered::<Entity, With<ReliefFocus>>();
        q.single(app.world()).unwrap()
    };
    // Core x (the render origin follows the focus).
    let move_to = |app: &mut App, x: f64| {
        let origin = app.world().resource::<RenderOrigin>().0;
        let render = to_bevy(DVec3::new(x, 0.0, 300.0), origin);
        app.world_mut()
            .get_mut::<Transform>(focus)
            .unwrap()
            .translation = render;
    };
    // 450 m east: the lines x = 300 and y = 0 lie in the disc, and parts
    // of the others.
    move_to(&mut app, 450.0);
    run_until(&mut app, "traffic 450 m east", |app| {
        full(app) && stats(app).target != first
    });
    let s = stats(&app);
    let chord = |d: f64| 2.0 * (500.0f64 * 500.0 - d * d).sqrt();
    // y = ±300 and y = 0, from the disc's west edge to x = 600.
    let h = 2.0 * (600.0 - (450.0 - chord(300.0) / 2.0)) + (600.0 - (450.0 - 500.0));
    // x = 300 and x = 0 (x = −300 lies outside); the lone road misses it.
    let v = chord(150.0) + chord(450.0);
    let lone = (200.0f64.min(450.0 + chord(450.0) / 2.0) - 50.0f64.max(450.0 - chord(450.0) / 2.0))
        .max(0.0);
    let want = h + v + lone;
    assert!((s.road_km * 1000.0 - want).abs() < 1e-6, "{s:?} {want}");
    assert_eq!(vehicles(&mut app).len(), s.target);
    // None left far behind (1.25 radii).
    let f = DVec2::new(450.0, 0.0);
    assert!(
        (vehicles(&mut app).iter()).all(|(v, _)| v.position.truncate().distance(f) <= 625.0 + 1.0),
        "vehicles left behind"
    );
    // Far away: no road, no vehicles.
    move_to(&mut app, 5000.0);
    run_until(&mut app, "no traffic far away", |app| {
        stats(app).target == 0 && vehicles(app).is_empty()
    });
    // Back; then a bad setting is refused and the last good ones stay.
    move_to(&mut app, 0.0);
    run_until(&mut app, "traffic back", |app| {
        full(app) && stats(app).target == first
    });
    app.world_mut()
        .resource_mut::<TrafficSettings>()
        .traffic_density = -1.0;
    app.update();
    let s = stats(&app);
    assert!(
        s.error.as_deref().unwrap().contains("traffic_density"),
        "{s:?}"
    );
    assert_eq!(s.target, first);
    // Half the density, half the vehicles; off, none.
    app.world_mut()
        .resource_mut::<TrafficSettings>()
        .traffic_density = 10.0;
    run_until(&mut app, "half the traffic", |app| {
        full(app) && vehicles(app).len() == (10.0 * NEAR_ORIGIN / 1000.0).round() as usize
    });
    assert!(stats(&app).error.is_none());
    app.world_mut().resource_mut::<TrafficSettings>().enabled = false;
    app.update();
    app.update();
    assert!(vehicles(&mut app).is_empty());
}

/// Whether a point lies on the path, the street or its steps.
fn on_a_walk(p: DVec2) -> bool {
    let path = (p.y - 150.0).abs() < 1e-6 && (-1e-6..=300.0 + 1e-6).contains(&p.x);
    let street = (p.y + 800.0).abs() < 1e-6 && p.x.abs() <= 300.0 + 1e-6;
    let steps = p.x.abs() < 1e-6 && (-1000.0 - 1e-6..=-800.0 + 1e-6).contains(&p.y);
    path || street || steps
}

#[test]
fn pedestrians_walk_streets_paths_and_steps_near_their_right_edge() {
    let walkers = TrafficSettings {
        traffic_density: 0.0,
        pedestrian_density: 50.0,
        pedestrian_radius: 1100.0,
        ..settings(5)
    };
    let mut app = traffic_app(walkers.clone());
    run_until(&mut app, "the pedestrians", |app| {
        let s = stats(app);
        s.walk_ready && s.pedestrian_target > 0 && s.pedestrians == s.pedestrian_target
    });
    // The path (300 m), the street (600 m) and its steps (200 m); no road.
    let s = stats(&app);
    assert!((s.walk_km - 1.1).abs() < 1e-6, "{s:?}");
    assert_eq!((s.pedestrian_target, s.vehicles), (55, 0));
    let mut before = pedestrians(&mut app);
    let dt = 0.016;
    let (mut moved, mut on_steps) = (0.0, 0);
    for _ in 0..120 {
        app.update();
        let origin = app.world().resource::<RenderOrigin>().0;
        let now = pedestrians(&mut app);
        for (w, tf) in &now {
            let (c, d) = on_route(w);
            assert!(on_a_walk(c.truncate()), "{} off the walks at {c}", w.id);
            assert!((c.z - z_at(c.truncate())).abs() < 1e-6, "{c}");
            // 0.75 m in from the right edge of a 6 m road: 2.25 m right.
            let off = w.position - c;
            let right = DVec2::new(d.y, -d.x).normalize();
            assert!(off.z.abs() < 1e-9 && (off.truncate() - 2.25 * right).length() < 1e-6);
            assert!((tf.translation - to_bevy(w.position, origin)).length() < 1e-3);
            // Upright on the grade.
            assert!(tf.up().dot(Vec3::Y) > 0.9999, "{:?}", tf.up());
            on_steps += (c.x.abs() < 1e-6 && c.y < -800.0 - 1e-6) as usize;
        }
        for (w, _) in &now {
            let Some((b, _)) = before.iter().find(|(b, _)| b.id == w.id) else {
                continue;
            };
            if Arc::ptr_eq(&b.route, &w.route) {
                // At walking pace at most (1.4 m/s, less on the grades).
                let step = w.progress - b.progress;
                assert!(step >= 0.0 && step <= 1.4 * dt + 1e-9, "{step}");
                moved += step;
            }
        }
        before = now;
    }
    let n = before.len() as f64;
    assert!(moved > n * 120.0 * dt * 1.0, "{moved}");
    assert!(on_steps > 0, "nobody on the steps");
    // The same seed, the same walkers.
    let mut again = traffic_app(walkers);
    run_until(&mut again, "the pedestrians again", |app| {
        let s = stats(app);
        s.walk_ready && s.pedestrians == 55
    });
    for _ in 0..120 {
        again.update();
    }
    let key = |v: Vec<(Pedestrian, Transform)>| -> Vec<(u64, usize)> {
        v.iter()
            .map(|(w, _)| (w.id, w.route.points.len()))
            .collect()
    };
    assert_eq!(key(pedestrians(&mut again)), key(before));
}

#[test]
fn traffic_settings_are_checked() {
    let ok = TrafficSettings::default();
    assert_eq!(ok.validate(), Ok(()));
    for (bad, field) in [
        (
            TrafficSettings {
                traffic_density: f64::NAN,
                ..default()
            },
            "traffic_density",
        ),
        (
            TrafficSettings {
                traffic_radius: 0.0,
                ..default()
            },
            "traffic_radius",
        ),
        (
            TrafficSettings {
                max_vehicles: 5000,
                ..default()
            },
            "max_vehicles",
        ),
        (
            TrafficSettings {
                routes_per_frame: 0,
                ..default()
            },
            "routes_per_frame",
        ),
        (
            TrafficSettings {
                pedestrian_density: f64::INFINITY,
                ..default()
            },
            "pedestrian_density",
        ),
        (
            TrafficSettings {
                pedestrian_radius: -5.0,
                ..default()
            },
            "pedestrian_radius",
        ),
        (
            TrafficSettings {
                max_pedestrians: 1 << 40,
                ..default()
            },
            "max_pedestrians",
        ),
    ] {
        let e = bad.validate().unwrap_err().to_string();
        assert!(e.starts_with(&format!("traffic.{field}: ")), "{e}");
    }
}
