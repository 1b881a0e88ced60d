//! One kind of traveller around the focus ([`Vehicle`]s or
//! [`Pedestrian`]s): its routing graph, its count following the density,
//! new routes within the frame's budget, and each one's move along its
//! route. The same system serves both kinds ([`Kind`]).

use super::drive::{Mode, Plan};
use super::net::{Area, TrafficNet};
use super::{Pedestrian, TrafficSettings, TrafficStats, Trip, Vehicle};
use crate::network::{Route, RouteCost};
use crate::plugin::stream::coords::{FocusState, RenderOrigin, dir_to_bevy};
use crate::plugin::stream::roads::LaidRoads;
use crate::plugin::stream::tasks::{Job, ReliefWorkers};
use bevy::ecs::component::Mutable;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use std::marker::PhantomData;
use std::ops::DerefMut;
use std::sync::Arc;

/// The focus moves this fraction of the radius before the area is redone.
const AREA_STEP: f64 = 0.05;
/// A traveller this many radii from the focus goes at once.
const FAR: f64 = 1.25;
/// A traveller that found no new route this many times goes.
const MAX_FAILS: u8 = 3;

/// A kind of traveller: its component, how it travels, its settings and
/// figures, and how it looks.
pub(super) trait Kind:
    Component<Mutability = Mutable> + DerefMut<Target = Trip> + From<Trip>
{
    /// How it travels.
    const MODE: Mode;
    /// Density (per km), radius (m), the most at once and the most routes
    /// searched per frame.
    fn settings(s: &TrafficSettings) -> (f64, f64, usize, usize);
    /// Writes its figures: alive, wanted, road within the radius (km) and
    /// whether its routing graph is built.
    fn report(stats: &mut TrafficStats, alive: usize, target: usize, km: f64, ready: bool);
    /// Its mesh, in Bevy's frame: standing on the origin, facing −Z.
    fn mesh() -> Mesh;
    /// Its colours (sRGB).
    const COLOURS: &'static [[f32; 3]];
}

impl From<Trip> for Vehicle {
    fn from(t: Trip) -> Self {
        Self(t)
    }
}

impl From<Trip> for Pedestrian {
    fn from(t: Trip) -> Self {
        Self(t)
    }
}

/// Vehicle size: width, height, length (m).
const CAR: Vec3 = Vec3::new(1.8, 1.5, 4.2);

impl Kind for Vehicle {
    const MODE: Mode = Mode::Drive;
    const COLOURS: &'static [[f32; 3]] = &[
        [0.75, 0.1, 0.1],
        [0.1, 0.25, 0.7],
        [0.9, 0.9, 0.88],
        [0.15, 0.15, 0.17],
        [0.85, 0.65, 0.1],
    ];

    fn settings(s: &TrafficSettings) -> (f64, f64, usize, usize) {
        let (density, radius) = (s.traffic_density, s.traffic_radius);
        (density, radius, s.max_vehicles, s.routes_per_frame)
    }

    fn report(stats: &mut TrafficStats, alive: usize, target: usize, km: f64, ready: bool) {
        (stats.vehicles, stats.target, stats.road_km, stats.ready) = (alive, target, km, ready);
    }

    fn mesh() -> Mesh {
        Cuboid::new(CAR.x, CAR.y, CAR.z)
            .mesh()
            .build()
            .translated_by(Vec3::Y * CAR.y / 2.0)
    }
}

/// A pedestrian's radius and height (m).
const WALKER: (f32, f32) = (0.25, 1.7);

impl Kind for Pedestrian {
    const MODE: Mode = Mode::Walk;
    const COLOURS: &'static [[f32; 3]] = &[
        [0.2, 0.3, 0.55],
        [0.55, 0.15, 0.15],
        [0.25, 0.45, 0.25],
        [0.8, 0.75, 0.6],
        [0.3, 0.3, 0.32],
        [0.85, 0.55, 0.2],
    ];

    /// A quarter of the vehicles' route budget: footways are dense in
    /// towns on slopes (thousands of steps), so each search costs more, and
    /// a walk lasts minutes.
    fn settings(s: &TrafficSettings) -> (f64, f64, usize, usize) {
        let (density, radius) = (s.pedestrian_density, s.pedestrian_radius);
        let budget = s.routes_per_frame.div_ceil(4);
        (density, radius, s.max_pedestrians, budget)
    }

    fn report(stats: &mut TrafficStats, alive: usize, target: usize, km: f64, ready: bool) {
        stats.pedestrians = alive;
        stats.pedestrian_target = target;
        (stats.walk_km, stats.walk_ready) = (km, ready);
    }

    fn mesh() -> Mesh {
        let (r, h) = WALKER;
        Capsule3d::new(r, h - 2.0 * r)
            .mesh()
            .rings(2)
            .latitudes(6)
            .longitudes(8)
            .build()
            .translated_by(Vec3::Y * h / 2.0)
    }
}

/// One kind's bookkeeping (a resource per kind).
#[derive(Resource)]
pub(super) struct Fleet<K> {
    net: Option<Arc<TrafficNet>>,
    job: Option<(u64, Job<TrafficNet>)>,
    area: Option<Area>,
    /// The settings in force (the last valid ones).
    applied: Option<TrafficSettings>,
    /// Travellers made, and random draws made, since start.
    made: u64,
    draws: u64,
    assets: Option<Assets3d>,
    kind: PhantomData<fn() -> K>,
}

impl<K> Default for Fleet<K> {
    fn default() -> Self {
        Self {
            net: None,
            job: None,
            area: None,
            applied: None,
            made: 0,
            draws: 0,
            assets: None,
            kind: PhantomData,
        }
    }
}

/// The shared mesh and materials of a kind.
#[derive(Clone)]
struct Assets3d {
    mesh: Handle<Mesh>,
    colours: Vec<Handle<StandardMaterial>>,
}

/// How a traveller follows its route (private to the plugin).
#[derive(Component)]
pub(super) struct Drive {
    plan: Plan,
    seg: usize,
    /// Route searches that failed in a row since it arrived.
    fails: u8,
}

fn make_assets<K: Kind>(
    meshes: &mut Option<ResMut<Assets<Mesh>>>,
    mats: &mut Option<ResMut<Assets<StandardMaterial>>>,
) -> Option<Assets3d> {
    let meshes = meshes.as_mut()?;
    let colours = mats.as_mut().map_or(Vec::new(), |m| {
        (K::COLOURS.iter())
            .map(|&[r, g, b]| {
                m.add(StandardMaterial {
                    base_color: Color::srgb(r, g, b),
                    perceptual_roughness: 0.6,
                    ..default()
                })
            })
            .collect()
    });
    Some(Assets3d {
        mesh: meshes.add(K::mesh()),
        colours,
    })
}

/// A random stream for draw number `draw` of `mode` under `seed`.
fn stream(seed: u64, mode: Mode, draw: u64) -> ChaCha8Rng {
    let mut s = [0u8; 32];
    s[..8].copy_from_slice(&seed.to_le_bytes());
    s[8..16].copy_from_slice(&draw.to_le_bytes());
    s[16] = (mode == Mode::Walk) as u8;
    ChaCha8Rng::from_seed(s)
}

/// A route from `from` (in component `comp`) to a random place in the area
/// in the same component, with its plan.
fn new_route(
    net: &TrafficNet,
    area: &Area,
    from: DVec2,
    comp: u32,
    mode: Mode,
    rng: &mut ChaCha8Rng,
) -> Option<(Route, Plan)> {
    let (to, _) = net.pick(area, Some(comp), rng)?;
    let cost = match mode {
        Mode::Drive => RouteCost::Time,
        Mode::Walk => RouteCost::Length,
    };
    let route = net.router.route(from, to, cost).ok()?;
    let plan = Plan::new(&route, &net.net, mode);
    Some((route, plan))
}

/// Keeps one kind's travellers around the focus (see the module docs).
#[allow(clippy::too_many_arguments)]
pub(super) fn update<K: Kind>(
    mut commands: Commands,
    settings: Res<TrafficSettings>,
    laid: Res<LaidRoads>,
    focus: Res<FocusState>,
    origin: Res<RenderOrigin>,
    workers: Res<ReliefWorkers>,
    time: Res<Time>,
    mut state: ResMut<Fleet<K>>,
    mut stats: ResMut<TrafficStats>,
    mut meshes: Option<ResMut<Assets<Mesh>>>,
    mut mats: Option<ResMut<Assets<StandardMaterial>>>,
    mut travellers: Query<(Entity, &mut K, &mut Drive, &mut Transform)>,
) {
    let state = &mut *state;
    if settings.is_changed() || state.applied.is_none() {
        match settings.validate() {
            Ok(()) => {
                state.applied = Some(settings.clone());
                stats.error = None;
            }
            Err(e) => {
                if K::MODE == Mode::Drive {
                    warn!("{e}");
                }
                stats.error = Some(e.to_string());
            }
        }
    }
    let Some(s) = state.applied.clone() else {
        return;
    };
    let (density, radius, most, routes) = K::settings(&s);
    let ready = |state: &Fleet<K>| (state.net.as_ref()).is_some_and(|n| n.version == laid.version);
    let focus = focus.world.map(|f| f.truncate());
    let (Some(centre), true) = (focus, s.enabled) else {
        for (e, ..) in &travellers {
            commands.entity(e).despawn();
        }
        K::report(&mut stats, 0, 0, 0.0, ready(state));
        return;
    };
    // The routing graph: once per laid version, on a worker.
    if state.net.as_ref().is_none_or(|n| n.version != laid.version)
        && state.job.as_ref().is_none_or(|j| j.0 != laid.version)
    {
        let (version, net, ground) = (laid.version, laid.roads.clone(), laid.ground.clone());
        let job = workers.spawn(move || TrafficNet::new(version, net.network(), &ground, K::MODE));
        state.job = Some((version, job));
    }
    if let Some((_, job)) = state.job.as_mut()
        && let Some(net) = job.take()
    {
        state.net = Some(Arc::new(net));
        state.job = None;
        state.area = None;
    }
    let ready = ready(state);
    let Some(net) = state.net.clone() else {
        K::report(&mut stats, 0, 0, 0.0, false);
        return;
    };
    let stale = state
        .area
        .as_ref()
        .is_none_or(|a| a.radius != radius || a.centre.distance(centre) > AREA_STEP * radius);
    if stale {
        state.area = Some(net.area(centre, radius));
    }
    let Some(area) = state.area.as_ref() else {
        return;
    };
    let km = area.length() / 1000.0;
    let target = ((density * km).round() as usize).min(most);

    // Move, and note who has arrived or strayed.
    let dt = time.delta_secs_f64();
    let far = FAR * radius;
    let mut alive: Vec<(u64, Entity, f64)> = Vec::new();
    let mut arrived: Vec<(u64, Entity)> = Vec::new();
    for (e, mut v, mut d, mut tf) in &mut travellers {
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
            place::<K>(&mut tf, &origin, p, h);
        }
        alive.push((v.id, e, from_focus));
    }

    // Fewer if the density asks: the farthest go first.
    if alive.len() > target {
        alive.sort_by(|a, b| b.2.total_cmp(&a.2).then(b.0.cmp(&a.0)));
        let mut gone: Vec<Entity> = (alive.drain(..alive.len() - target))
            .map(|(_, e, _)| e)
            .collect();
        for &e in &gone {
            commands.entity(e).despawn();
        }
        gone.sort_unstable();
        arrived.retain(|a| gone.binary_search(&a.1).is_err());
    }

    // New routes, within the budget: arrivals first, then newcomers.
    let mut budget = routes;
    arrived.sort_unstable();
    for (_, e) in arrived {
        if budget == 0 {
            break;
        }
        budget -= 1;
        let Ok((_, mut v, mut d, mut tf)) = travellers.get_mut(e) else {
            continue;
        };
        let mut rng = stream(s.seed, K::MODE, state.draws);
        state.draws += 1;
        stats.routes += 1;
        let here = v.route.points.last().copied().unwrap_or(v.position);
        let found = (net.locate(here.truncate()))
            .and_then(|c| new_route(&net, area, here.truncate(), c, K::MODE, &mut rng));
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
        place::<K>(&mut tf, &origin, p, h);
    }
    let mut count = alive.len();
    if count < target && state.assets.is_none() {
        state.assets = make_assets::<K>(&mut meshes, &mut mats);
    }
    while count < target && budget > 0 {
        budget -= 1;
        let mut rng = stream(s.seed, K::MODE, state.draws);
        state.draws += 1;
        stats.routes += 1;
        let found = (net.pick(area, None, &mut rng))
            .and_then(|(from, comp)| new_route(&net, area, from, comp, K::MODE, &mut rng));
        let Some((route, plan)) = found else {
            stats.failed += 1;
            continue;
        };
        let (p, h) = plan.pose(&route, 0.0, 0);
        let id = state.made;
        state.made += 1;
        let mut tf = Transform::default();
        place::<K>(&mut tf, &origin, p, h);
        let trip = Trip {
            route: Arc::new(route),
            progress: 0.0,
            speed: 0.0,
            position: p,
            heading: h,
            id,
        };
        let drive = Drive {
            plan,
            seg: 0,
            fails: 0,
        };
        let mut e = commands.spawn((K::from(trip), drive, tf, Visibility::default()));
        if let Some(a) = &state.assets {
            e.insert(Mesh3d(a.mesh.clone()));
            if !a.colours.is_empty() {
                let c = a.colours[id as usize % a.colours.len()].clone();
                e.insert(MeshMaterial3d(c));
            }
        }
        count += 1;
    }
    K::report(&mut stats, count, target, km, ready);
}

/// Puts a traveller's transform at core `p`, heading `h` (a pedestrian
/// upright, a vehicle with the grade).
fn place<K: Kind>(tf: &mut Transform, origin: &RenderOrigin, p: DVec3, h: DVec3) {
    tf.translation = origin.to_render(p);
    let mut dir = dir_to_bevy(h);
    if K::MODE == Mode::Walk {
        dir.y = 0.0;
    }
    if dir.length_squared() > 1e-6 {
        tf.look_to(dir, Vec3::Y);
    }
}
