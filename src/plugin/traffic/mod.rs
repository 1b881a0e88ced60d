//! Traffic on the laid roads: [`ReliefTrafficPlugin`] keeps about
//! [`TrafficSettings::traffic_density`] vehicles per kilometre of road within
//! [`TrafficSettings::traffic_radius`] of the focus, each driving a route
//! between random places there (on the right-hand lane, at its road class's
//! speed, slower on grades and near junctions, along the road profiles over
//! bridges and through tunnels). Not part of [`ReliefPlugins`](crate::plugin::ReliefPlugins):
//! a game adds it.
//!
//! The routing graph is built on a worker once per [`LaidRoads`] version;
//! at most [`TrafficSettings::routes_per_frame`] routes are searched per
//! frame. Everything is deterministic given [`TrafficSettings::seed`] (and
//! the frame times): each route's random places come from a ChaCha stream
//! seeded by the seed and a counter.

mod drive;
mod net;

use super::ReliefSystems;
use super::stream::coords::{FocusState, RenderOrigin, dir_to_bevy};
use super::stream::roads::LaidRoads;
use super::stream::tasks::{Job, ReliefWorkers};
use crate::network::{Route, RouteCost};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use drive::Plan;
use net::{Area, TrafficNet};
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use std::sync::Arc;

/// The most vehicles [`TrafficSettings::max_vehicles`] may allow.
pub const MAX_VEHICLES: usize = 2000;

/// Adds traffic around the focus (see the module docs). Needs
/// [`ReliefPlugin`](crate::plugin::ReliefPlugin) with its roads.
#[derive(Clone, Debug, Default)]
pub struct ReliefTrafficPlugin {
    /// The settings to start with.
    pub settings: TrafficSettings,
}

impl Plugin for ReliefTrafficPlugin {
    fn build(&self, app: &mut App) {
        app.insert_resource(self.settings.clone())
            .register_type::<TrafficSettings>()
            .init_resource::<TrafficStats>()
            .init_resource::<TrafficState>()
            .add_systems(
                PostUpdate,
                update_traffic
                    .in_set(ReliefSystems::Objects)
                    .run_if(resource_exists::<LaidRoads>)
                    .run_if(resource_exists::<ReliefWorkers>),
            );
    }
}

/// The traffic's settings (live: edit the resource).
#[derive(Resource, Clone, Debug, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct TrafficSettings {
    /// Traffic on or off (off: every vehicle goes).
    pub enabled: bool,
    /// Vehicles per kilometre of drivable road within the radius (0–100).
    pub traffic_density: f64,
    /// How far from the focus vehicles drive (m, 50–5000).
    pub traffic_radius: f64,
    /// The seed of every random choice.
    pub seed: u64,
    /// The most vehicles at once (at most [`MAX_VEHICLES`]).
    pub max_vehicles: usize,
    /// The most routes searched per frame (1–64).
    pub routes_per_frame: usize,
}

impl Default for TrafficSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            traffic_density: 2.0,
            traffic_radius: 1000.0,
            seed: 1,
            max_vehicles: 1000,
            routes_per_frame: 8,
        }
    }
}

/// A [`TrafficSettings`] field out of range.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("traffic: `{field}` out of range: {value} (allowed {min} to {max})")]
pub struct TrafficError {
    /// The field's name.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// The smallest allowed.
    pub min: f64,
    /// The largest allowed.
    pub max: f64,
}

impl TrafficSettings {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), TrafficError> {
        let check = |field, value: f64, min: f64, max: f64| {
            if (min..=max).contains(&value) {
                Ok(())
            } else {
                Err(TrafficError {
                    field,
                    value,
                    min,
                    max,
                })
            }
        };
        check("traffic_density", self.traffic_density, 0.0, 100.0)?;
        check("traffic_radius", self.traffic_radius, 50.0, 5000.0)?;
        let max = MAX_VEHICLES as f64;
        check("max_vehicles", self.max_vehicles as f64, 0.0, max)?;
        check("routes_per_frame", self.routes_per_frame as f64, 1.0, 64.0)
    }
}

/// A vehicle driving a route (the game can query it): a quarter of its
/// road's width right of the centre line, at its road class's speed slowed
/// on grades ([`grade_factor`](crate::network::grade_factor)) and to 60 %
/// within 15 m of where its route changes road.
#[derive(Component, Clone, Debug)]
pub struct Vehicle {
    /// Its route (points on the road centre lines' profiles).
    pub route: Arc<Route>,
    /// How far along the route it is (m, 3D).
    pub progress: f64,
    /// Its speed now (m/s; 0 while it waits for a new route).
    pub speed: f64,
    /// Where it is: core coordinates on its lane, on the road surface.
    pub position: DVec3,
    /// Which way it heads (a unit core vector, with the grade).
    pub heading: DVec3,
    /// Its number, in the order vehicles were made.
    pub id: u64,
}

/// How the traffic is doing.
#[derive(Resource, Clone, Debug, Default, PartialEq, Reflect)]
#[reflect(Resource)]
pub struct TrafficStats {
    /// Vehicles alive.
    pub vehicles: usize,
    /// How many the density asks for within the radius.
    pub target: usize,
    /// Drivable road within the radius (km).
    pub road_km: f64,
    /// The routing graph of the current roads is built.
    pub ready: bool,
    /// Routes searched since start.
    pub routes: u64,
    /// Searches that found no route since start.
    pub failed: u64,
    /// The last settings rejected (the last good ones stay in force).
    pub error: Option<String>,
}

/// The plugin's bookkeeping.
#[derive(Resource, Default)]
struct TrafficState {
    net: Option<Arc<TrafficNet>>,
    job: Option<(u64, Job<TrafficNet>)>,
    area: Option<Area>,
    /// The settings in force (the last valid ones).
    applied: Option<TrafficSettings>,
    /// Vehicles made, and random draws made, since start.
    made: u64,
    draws: u64,
    assets: Option<VehicleAssets>,
}

/// The shared vehicle meshes and materials.
#[derive(Clone)]
struct VehicleAssets {
    mesh: Handle<Mesh>,
    colours: Vec<Handle<StandardMaterial>>,
}

/// How a vehicle drives (private to the plugin).
#[derive(Component)]
struct Drive {
    plan: Plan,
    seg: usize,
    /// Route searches that failed in a row since it arrived.
    fails: u8,
}

/// The focus moves this fraction of the radius before the area is redone.
const AREA_STEP: f64 = 0.05;
/// A vehicle this many radii from the focus goes at once.
const FAR: f64 = 1.25;
/// A vehicle that found no new route this many times goes.
const MAX_FAILS: u8 = 3;

/// Vehicle size: width, height, length (m).
const SIZE: Vec3 = Vec3::new(1.8, 1.5, 4.2);
const COLOURS: [[f32; 3]; 5] = [
    [0.75, 0.1, 0.1],
    [0.1, 0.25, 0.7],
    [0.9, 0.9, 0.88],
    [0.15, 0.15, 0.17],
    [0.85, 0.65, 0.1],
];

fn make_assets(
    meshes: &mut Option<ResMut<Assets<Mesh>>>,
    mats: &mut Option<ResMut<Assets<StandardMaterial>>>,
) -> Option<VehicleAssets> {
    let meshes = meshes.as_mut()?;
    let mesh = Cuboid::new(SIZE.x, SIZE.y, SIZE.z)
        .mesh()
        .build()
        .translated_by(Vec3::Y * SIZE.y / 2.0);
    let colours = mats.as_mut().map_or(Vec::new(), |m| {
        (COLOURS.iter())
            .map(|&[r, g, b]| {
                m.add(StandardMaterial {
                    base_color: Color::srgb(r, g, b),
                    perceptual_roughness: 0.5,
                    ..default()
                })
            })
            .collect()
    });
    Some(VehicleAssets {
        mesh: meshes.add(mesh),
        colours,
    })
}

/// A random stream for draw number `draw` under `seed`.
fn stream(seed: u64, draw: u64) -> ChaCha8Rng {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    s[8..16].copy_from_slice(&draw.to_le_bytes());
    ChaCha8Rng::from_seed(s)
}

/// A route from `from` (in component `comp`) to a random place in the area
/// in the same component, with its plan.
fn new_route(
    net: &TrafficNet,
    area: &Area,
    from: DVec2,
    comp: u32,
    rng: &mut ChaCha8Rng,
) -> Option<(Route, Plan)> {
    let (to, _) = net.pick(area, Some(comp), rng)?;
    let route = net.router.route(from, to, RouteCost::Time).ok()?;
    let plan = Plan::new(&route, &net.net);
    Some((route, plan))
}

#[allow(clippy::too_many_arguments)]
fn update_traffic(
    mut commands: Commands,
    settings: Res<TrafficSettings>,
    laid: Res<LaidRoads>,
    focus: Res<FocusState>,
    origin: Res<RenderOrigin>,
    workers: Res<ReliefWorkers>,
    time: Res<Time>,
    mut state: ResMut<TrafficState>,
    mut stats: ResMut<TrafficStats>,
    mut meshes: Option<ResMut<Assets<Mesh>>>,
    mut mats: Option<ResMut<Assets<StandardMaterial>>>,
    mut vehicles: Query<(Entity, &mut Vehicle, &mut Drive, &mut Transform)>,
) {
    let state = &mut *state;
    if settings.is_changed() || state.applied.is_none() {
        match settings.validate() {
            Ok(()) => {
                state.applied = Some(settings.clone());
                stats.error = None;
            }
            Err(e) => {
                warn!("{e}");
                stats.error = Some(e.to_string());
            }
        }
    }
    let Some(s) = state.applied.clone() else {
        return;
    };
    let focus = focus.world.map(|f| f.truncate());
    let (Some(centre), true) = (focus, s.enabled) else {
        for (e, ..) in &vehicles {
            commands.entity(e).despawn();
        }
        stats.vehicles = 0;
        stats.target = 0;
        return;
    };
    // The routing graph: once per laid version, on a worker.
    if state.net.as_ref().is_none_or(|n| n.version != laid.version)
        && state.job.as_ref().is_none_or(|j| j.0 != laid.version)
    {
        let (version, net, ground) = (laid.version, laid.roads.clone(), laid.ground.clone());
        let job = workers.spawn(move || TrafficNet::new(version, net.network(), &ground));
        state.job = Some((version, job));
    }
    if let Some((_, job)) = state.job.as_mut()
        && let Some(net) = job.take()
    {
        state.net = Some(Arc::new(net));
        state.job = None;
        state.area = None;
    }
    stats.ready = state
        .net
        .as_ref()
        .is_some_and(|n| n.version == laid.version);
    let Some(net) = state.net.clone() else {
        return;
    };
    let stale = state.area.as_ref().is_none_or(|a| {
        a.radius != s.traffic_radius || a.centre.distance(centre) > AREA_STEP * s.traffic_radius
    });
    if stale {
        state.area = Some(net.area(centre, s.traffic_radius));
    }
    let Some(area) = state.area.as_ref() else {
        return;
    };
    let road_km = area.length() / 1000.0;
    let target = ((s.traffic_density * road_km).round() as usize).min(s.max_vehicles);
    stats.road_km = road_km;
    stats.target = target;

    // Drive, and note who has arrived or strayed.
    let dt = time.delta_secs_f64();
    let (far, radius) = (FAR * s.traffic_radius, s.traffic_radius);
    let mut alive: Vec<(u64, Entity, f64)> = Vec::new();
    let mut arrived: Vec<(u64, Entity)> = Vec::new();
    for (e, mut v, mut d, mut tf) in &mut vehicles {
        let from_focus = v.position.truncate().distance(centre);
        if from_focus > far {
            commands.entity(e).despawn();
            continue;
        }
        let length = d.plan.length();
        if v.progress >= length {
            v.speed = 0.0;
            if from_focus > radius {
                commands.entity(e).despawn();
                continue;
            }
            arrived.push((v.id, e));
        } else {
            let seg = d.plan.segment(v.progress, d.seg);
            v.speed = d.plan.speed_at(v.progress, seg);
            v.progress = (v.progress + v.speed * dt).min(length);
            d.seg = d.plan.segment(v.progress, seg);
            let (p, h) = d.plan.pose(&v.route, v.progress, d.seg);
            (v.position, v.heading) = (p, h);
            place(&mut tf, &origin, p, h);
        }
        alive.push((v.id, e, from_focus));
    }

    // Fewer vehicles if the density asks: the farthest go first.
    if alive.len() > target {
        alive.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.0.cmp(&a.0)));
        for &(_, e, _) in &alive[..alive.len() - target] {
            commands.entity(e).despawn();
            arrived.retain(|a| a.1 != e);
        }
        alive.drain(..alive.len() - target);
    }

    // New routes, within the budget: arrivals first, then new vehicles.
    let mut budget = s.routes_per_frame;
    arrived.sort_unstable();
    for (_, e) in arrived {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let Ok((_, mut v, mut d, mut tf)) = vehicles.get_mut(e) else {
            continue;
        };
        let mut rng = stream(s.seed, state.draws);
        state.draws += 1;
        stats.routes += 1;
        let here = v.route.points.last().copied().unwrap_or(v.position);
        let found = (net.locate(here.truncate()))
            .and_then(|c| new_route(&net, area, here.truncate(), c, &mut rng));
        let Some((route, plan)) = found else {
            stats.failed += 1;
            d.fails += 1;
            if d.fails >= MAX_FAILS {
                commands.entity(e).despawn();
            }
            continue;
        };
        *d = Drive {
            plan,
            seg: 0,
            fails: 0,
        };
        v.route = Arc::new(route);
        v.progress = 0.0;
        let (p, h) = d.plan.pose(&v.route, 0.0, 0);
        (v.position, v.heading) = (p, h);
        place(&mut tf, &origin, p, h);
    }
    let mut count = alive.len();
    if count < target && state.assets.is_none() {
        state.assets = make_assets(&mut meshes, &mut mats);
    }
    while count < target && budget > 0 {
        budget -= 1;
        let mut rng = stream(s.seed, state.draws);
        state.draws += 1;
        stats.routes += 1;
        let found = net
            .pick(area, None, &mut rng)
            .and_then(|(from, comp)| new_route(&net, area, from, comp, &mut rng));
        let Some((route, plan)) = found else {
            stats.failed += 1;
            continue;
        };
        let (p, h) = plan.pose(&route, 0.0, 0);
        let id = state.made;
        state.made += 1;
        let mut tf = Transform::default();
        place(&mut tf, &origin, p, h);
        let mut e = commands.spawn((
            Vehicle {
                route: Arc::new(route),
                progress: 0.0,
                speed: 0.0,
                position: p,
                heading: h,
                id,
            },
            Drive {
                plan,
                seg: 0,
                fails: 0,
            },
            tf,
            Visibility::default(),
        ));
        if let Some(a) = &state.assets {
            e.insert(Mesh3d(a.mesh.clone()));
            if !a.colours.is_empty() {
                let c = a.colours[id as usize % a.colours.len()].clone();
                e.insert(MeshMaterial3d(c));
            }
        }
        count += 1;
    }
    stats.vehicles = count;
}

/// Puts a vehicle's transform at core `p`, heading `h`.
fn place(tf: &mut Transform, origin: &RenderOrigin, p: DVec3, h: DVec3) {
    tf.translation = origin.to_render(p);
    let dir = dir_to_bevy(h);
    if dir.length_squared() > 1e-6 {
        tf.look_to(dir, Vec3::Y);
    }
}
