//! Headless fly-through benchmark: the focus flies east at 300 m/s for 30 s
//! of game time, paced in real time at 60 Hz, with no window or renderer,
//! from (19000, 1260), 600 m up (`--from X,Y` starts elsewhere). It holds
//! at its start until the ground around it has streamed in (as a game
//! shows its world before the player moves; at most [`HOLD_LIMIT`]).
//!
//! `cargo run --release --example flythrough [-- --seconds S --speed M --workers N --multi-threaded --from X,Y --traffic --density D --walkers D --physics]`
//!
//! `--render` renders every frame offscreen at 1920 × 1080 along a fixed
//! route over countryside, a highway and two cities, and reports CPU and GPU
//! frame times, draw calls, triangles and memory (`render.rs`; `--json
//! PATH` writes them; `--seconds S`: the route's length in 60 Hz frames).
//! `--pace` starts frames at most 60 a second, as behind a display, so the
//! world streams in as a player sees it. `--noop` (built with `--features
//! noop-gpu`) renders on wgpu's no-op backend: Bevy's render thread does
//! all its CPU work and no GPU draws, so a machine without one measures it.
//!
//! `--far`: 1,000 km east from the origin at 1,000 m/s (1,000 s; `--seconds`
//! and `--speed` after it still apply), checking render precision and, at
//! the end, that the ground out there is the ground generated alone
//! (`far.rs`).
//!
//! `--physics` (built with `--features physics`) adds avian3d's
//! `PhysicsPlugins` and streams the static colliders within 400 m of the
//! focus ([`ReliefPhysicsPlugin`](bevy_relief::plugin::ReliefPhysicsPlugin),
//! left out otherwise) and reports what they hold. `--avian` adds avian
//! alone, without our colliders: the baseline that shows what they cost.
//!
//! `--traffic` adds [`ReliefTrafficPlugin`] (vehicles on the roads within
//! 1 km of the focus, pedestrians on the streets within 300 m; `--density
//! D` vehicles per km of road, default 2, `--walkers D` pedestrians per km
//! of street, default 6, each implying `--traffic`) and reports their
//! counts.
//!
//! The plugin's workers ([`ReliefWorkers`], one per core by default) run
//! below the frame's priority; `--workers N` sets how many. The default
//! plugin's [`SingleThreadedSchedulesPlugin`] runs every main schedule on
//! the main thread, and the renderer's on the render thread (hand-offs
//! between threads cost more than they gain).
//! `--multi-threaded` disables the plugin and keeps Bevy's multi-threaded
//! executor.
//!
//! Reports the wall time of a whole frame's update (from the first schedule
//! to the last: what a player feels, contention with the meshing workers
//! included) as median, p99 and max, the main thread's CPU time, how long
//! the frame's threads waited for a core (Linux run delays; read outside
//! the timed span), the part our `PostUpdate` sets take, frames with no ground
//! mesh under the focus once it set off, chunks generated per second,
//! peak entity count and resident memory at 10 s, at the end and by tenth
//! of the flight, also less the meshes held (with no renderer they stay in
//! memory; a game's renderer moves them to the GPU).
//!
//! The frame times count every frame, the hold at the start included.
//! Exits non-zero when the focus was ever without ground once it set off,
//! or when resident memory grew by more than a quarter (and 32 MiB): from
//! 10 s to its peak after, or, with `--far` or once a city's buildings were
//! in reach after 10 s, from the peak of the first half of the flight after
//! 10 s to that of its second (what a city in reach takes is no growth). A benchmark that
//! cannot pass is useless.

use bevy::app::{AppExit, ScheduleRunnerPlugin};
use bevy::math::DVec3;
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy_relief::plugin::{
    CityBuildings, LaidRoads, ReliefTrafficPlugin, ReliefWorkers, TerrainState, TrafficSettings,
    TrafficStats, mesh_bytes,
};
use bevy_relief::prelude::*;
use std::collections::HashMap;
use std::time::{Duration, Instant};

mod far;
mod os;
mod render;
#[path = "../common/scene.rs"]
mod scene;

#[cfg(target_os = "linux")]
use os::main_thread_clock;
use os::{frame_threads_run_delay, main_thread_cpu, rss_kib};

#[derive(Resource)]
struct Flight {
    seconds: f64,
    speed: f64,
    start: DVec3,
    frame_start: Option<Instant>,
    sets_start: Option<Instant>,
    /// Wall time of each frame's update, first schedule to last.
    frames: Vec<f64>,
    /// Wall time of our `PostUpdate` sets per frame.
    ours: Vec<f64>,
    marks: Vec<[f64; 4]>,
    /// The frame threads' summed run delay when the frame started, ns.
    wait_start: u64,
    /// The main thread's CPU clock (Linux).
    #[cfg(target_os = "linux")]
    main_clock: libc::clockid_t,
    /// The main thread's CPU time when the frame started, ns.
    cpu_start: u64,
    /// The main thread's CPU time during each frame, ms.
    cpu: Vec<f64>,
    /// Their run delay during each frame, ms.
    waits: Vec<f64>,
    /// Frames without ground under the focus once it set off.
    no_ground: u32,
    /// The first frames without ground: time, focus x, chunks desired,
    /// present and pending.
    no_ground_at: Vec<(f64, f64, usize, usize, usize)>,
    peak_entities: u32,
    /// Bytes of the meshes added each frame (what the renderer uploads),
    /// and the largest one.
    mesh_bytes: Vec<u64>,
    largest_mesh: u64,
    /// The bytes of each mesh asset held, and their sum: with no renderer
    /// here they stay in memory, where a game's renderer moves them to the
    /// GPU.
    mesh_sizes: HashMap<AssetId<Mesh>, u64>,
    meshes_held: u64,
    rss_10s: Option<u64>,
    /// The most resident memory in each tenth of the flight (from 10 s), KiB.
    rss_tenths: [u64; 10],
    /// The most resident memory in each half of the flight after 10 s, KiB.
    rss_halves: [u64; 2],
    /// The same less the meshes held, KiB.
    rss_less_meshes_tenths: [u64; 10],
    /// `--far`: memory is flat when the second half's peak is no higher
    /// than the first half's (a long flight passes several cities in each;
    /// the memory a city in reach takes is no growth).
    far: bool,
    /// A city's buildings were in reach after 10 s: memory is judged as
    /// with `far`.
    cities_seen: bool,
    /// Seconds of flight (from setting off).
    elapsed: f64,
    /// Whether the focus has set off (see [`HOLD_LIMIT`]).
    started: bool,
    /// `--render`: the route sets off (`render.rs`), not the hold.
    by_route: bool,
    /// Seconds it held at its start.
    held: f64,
    /// Vehicles: the most at once, and the sum over frames (for the mean).
    peak_vehicles: usize,
    vehicle_frames: f64,
    peak_pedestrians: usize,
    /// With `--physics`: the colliders' bodies, height samples and hulls at
    /// the most, bodies built and the worker seconds they took.
    colliders: Option<[f64; 5]>,
}

fn main() -> AppExit {
    let mut seconds = 30.0;
    let mut speed = 300.0;
    let mut workers = None;
    let mut multi_threaded = false;
    let mut traffic: Option<TrafficSettings> = None;
    let mut physics = false;
    let mut avian = false;
    let mut render = false;
    let mut noop = false;
    let mut pace = false;
    let mut json = None;
    let mut msaa = None;
    let mut prepass = false;
    let mut occlusion = false;
    let mut fxaa = false;
    let mut no_gpu_timing = false;
    let mut hide = Vec::new();
    let mut size = None;
    let mut start = DVec3::new(19000.0, 1260.0, 600.0);
    let mut far = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        // Switches.
        let physics_build = cfg!(feature = "physics");
        let switch = match a.as_str() {
            "--multi-threaded" => Some(&mut multi_threaded),
            "--physics" if physics_build => Some(&mut physics),
            "--avian" if physics_build => Some(&mut avian),
            "--prepass" => Some(&mut prepass),
            "--occlusion" => Some(&mut occlusion),
            "--fxaa" => Some(&mut fxaa),
            "--no-gpu-timing" => Some(&mut no_gpu_timing),
            "--render" => Some(&mut render),
            "--pace" => Some(&mut pace),
            "--noop" => Some(&mut noop),
            _ => None,
        };
        if let Some(on) = switch {
            *on = true;
            continue;
        }
        if a == "--far" {
            (far, seconds, speed) = (true, 1000.0, 1000.0);
            start = DVec3::new(0.0, 0.0, 600.0);
            continue;
        }
        if a == "--hide" {
            let kinds: Option<Vec<_>> =
                (args.next()).and_then(|v| v.split(',').map(render::Kind::parse).collect());
            let Some(kinds) = kinds else {
                eprintln!("--hide needs a list of {}", render::Kind::NAMES);
                return AppExit::from_code(2);
            };
            hide = kinds;
            continue;
        }
        if a == "--size" {
            let wh = args.next().and_then(|v| {
                let (w, h) = v.split_once('x')?;
                Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?))
            });
            let Some(wh) =
                wh.filter(|&(w, h)| (16..=7680).contains(&w) && (16..=4320).contains(&h))
            else {
                eprintln!("--size needs WxH: 16 to 7680 pixels wide, 16 to 4320 high");
                return AppExit::from_code(2);
            };
            size = Some(wh);
            continue;
        }
        if a == "--json" {
            let Some(path) = args.next() else {
                eprintln!("--json needs a path");
                return AppExit::from_code(2);
            };
            json = Some(path);
            continue;
        }
        if a == "--from" {
            let at = args.next().and_then(|v| {
                let (x, y) = v.split_once(',')?;
                Some((x.parse::<f64>().ok()?, y.parse::<f64>().ok()?))
            });
            let Some((x, y)) = at.filter(|(x, y)| x.is_finite() && y.is_finite()) else {
                eprintln!("--from needs X,Y (core metres)");
                return AppExit::from_code(2);
            };
            (start.x, start.y) = (x, y);
            continue;
        }
        if a == "--traffic" {
            traffic.get_or_insert_with(TrafficSettings::default);
            continue;
        }
        let v = args.next().and_then(|s| s.parse::<f64>().ok());
        match (a.as_str(), v) {
            ("--seconds", Some(v)) if v > 0.0 => seconds = v,
            ("--speed", Some(v)) if v >= 0.0 => speed = v,
            ("--msaa", Some(v)) if [1.0, 2.0, 4.0, 8.0].contains(&v) => {
                msaa = Some(Msaa::from_samples(v as u32));
            }
            ("--workers", Some(v)) if v >= 1.0 => workers = Some(ReliefWorkers::new(v as usize)),
            ("--density", Some(v)) if (0.0..=100.0).contains(&v) => {
                traffic
                    .get_or_insert_with(TrafficSettings::default)
                    .traffic_density = v;
            }
            ("--walkers", Some(v)) if (0.0..=200.0).contains(&v) => {
                traffic
                    .get_or_insert_with(TrafficSettings::default)
                    .pedestrian_density = v;
            }
            _ => {
                eprintln!(
                    "usage: flythrough [--seconds S] [--speed M] [--workers N] [--multi-threaded] [--from X,Y] [--traffic] [--density D] [--walkers D] [--physics | --avian (with --features physics)] [--far] [--render [--json PATH] [--size WxH] [--msaa 1|2|4|8] [--prepass] [--occlusion] [--fxaa] [--no-gpu-timing] [--hide KIND,..] [--pace] [--noop (with --features noop-gpu)]]"
                );
                return AppExit::from_code(2);
            }
        }
    }
    let view_flags = [
        prepass,
        occlusion,
        fxaa,
        no_gpu_timing,
        !hide.is_empty(),
        size.is_some(),
        noop,
        pace,
    ];
    if noop && !cfg!(feature = "noop-gpu") {
        eprintln!(
            "--noop needs wgpu's no-op backend: cargo run --release --features noop-gpu --example flythrough -- --render --noop"
        );
        return AppExit::from_code(2);
    }
    if (json.is_some() || msaa.is_some() || view_flags.contains(&true)) && !render {
        eprintln!(
            "--json, --size, --msaa, --prepass, --occlusion, --fxaa, --no-gpu-timing, --hide, --noop and --pace go with --render: add it"
        );
        return AppExit::from_code(2);
    }
    let relief = ReliefPlugin::default().plugins().build();
    // The default plugin runs the main schedules on one thread;
    // `--multi-threaded` keeps Bevy's executor.
    let relief = if multi_threaded {
        relief.disable::<SingleThreadedSchedulesPlugin>()
    } else {
        relief
    };
    // Without the feature there are no colliders to leave out.
    #[cfg(not(feature = "physics"))]
    let _ = (physics, avian);
    #[cfg(feature = "physics")]
    let relief = if physics {
        relief
    } else {
        relief.disable::<bevy_relief::plugin::ReliefPhysicsPlugin>()
    };
    let mut app = App::new();
    // Before the plugin, so that it keeps these workers.
    app.insert_resource(workers.unwrap_or_default());
    if render {
        app.add_plugins((render::plugins(noop), relief));
        let view = render::View {
            size: size.unwrap_or(render::View::default().size),
            msaa: msaa.unwrap_or_default(),
            prepass: prepass || occlusion,
            occlusion,
            fxaa,
            no_gpu_timing,
            hide,
            pace,
        };
        render::add(&mut app, seconds, json, view);
    } else {
        app.add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 60.0,
            ))),
            TransformPlugin,
            AssetPlugin::default(),
            MeshPlugin,
            relief,
        ))
        .add_systems(Startup, spawn_focus)
        .add_systems(Update, fly);
    }
    app.insert_resource(Flight {
        // With `--render` the route ends the run, by frames.
        seconds: if render { f64::INFINITY } else { seconds },
        speed,
        start,
        frame_start: None,
        sets_start: None,
        frames: Vec::new(),
        ours: Vec::new(),
        marks: Vec::new(),
        wait_start: 0,
        #[cfg(target_os = "linux")]
        main_clock: main_thread_clock(),
        cpu_start: 0,
        cpu: Vec::new(),
        waits: Vec::new(),
        no_ground: 0,
        no_ground_at: Vec::new(),
        peak_entities: 0,
        mesh_bytes: Vec::new(),
        largest_mesh: 0,
        mesh_sizes: HashMap::new(),
        meshes_held: 0,
        rss_10s: None,
        cities_seen: false,
        rss_tenths: [0; 10],
        rss_halves: [0; 2],
        rss_less_meshes_tenths: [0; 10],
        far,
        elapsed: 0.0,
        started: false,
        by_route: render,
        held: 0.0,
        peak_vehicles: 0,
        vehicle_frames: 0.0,
        peak_pedestrians: 0,
        colliders: None,
    })
    .add_systems(First, frame_begin)
    .add_systems(Last, (added_meshes.before(frame_end), frame_end));
    if let Some(settings) = traffic {
        app.add_plugins(ReliefTrafficPlugin { settings });
    }
    if far {
        app.init_resource::<far::Far>()
            .add_systems(Last, far::precision.before(frame_end))
            .add_systems(PostUpdate, far_end.after(end));
    }
    #[cfg(feature = "physics")]
    if physics || avian {
        app.add_plugins(avian3d::prelude::PhysicsPlugins::default());
    }
    #[cfg(feature = "physics")]
    if physics {
        app.add_systems(Last, collider_figures.before(frame_end));
    }
    app.add_systems(
        PostUpdate,
        (
            begin.before(ReliefSystems::Settings),
            mark::<0>
                .after(ReliefSystems::Origin)
                .before(ReliefSystems::Chunks),
            mark::<1>
                .after(ReliefSystems::Chunks)
                .before(ReliefSystems::Objects),
            mark::<2>
                .after(ReliefSystems::Objects)
                .before(ReliefSystems::Stats),
            end.after(ReliefSystems::Stats),
        ),
    )
    .run()
}

/// The focus, where the flight starts.
fn spawn_focus(mut commands: Commands, origin: Res<RenderOrigin>, flight: Res<Flight>) {
    commands.spawn((
        Transform::from_translation(origin.to_render(flight.start)),
        ReliefFocus,
    ));
}

/// The longest the focus holds at its start for the ground to stream in.
const HOLD_LIMIT: f64 = 60.0;

/// Moves the focus east once it set off; the distance follows real time.
fn fly(
    time: Res<Time<Real>>,
    flight: Res<Flight>,
    mut focus: Single<&mut Transform, With<ReliefFocus>>,
) {
    if flight.started {
        focus.translation.x += (flight.speed * time.delta_secs_f64()) as f32;
    }
}

/// Keeps the colliders' largest figures (`--physics`).
#[cfg(feature = "physics")]
fn collider_figures(
    mut flight: ResMut<Flight>,
    colliders: Res<bevy_relief::plugin::ReliefColliders>,
) {
    if !flight.ours.len().is_multiple_of(10) {
        return;
    }
    let c = &colliders;
    let now = [
        c.bodies() as f64,
        c.samples() as f64,
        c.hulls() as f64,
        c.built as f64,
        c.build_seconds,
    ];
    let most = flight.colliders.get_or_insert(now);
    for (m, n) in most.iter_mut().zip(now) {
        *m = m.max(n);
    }
}

/// The frame's update starts.
fn frame_begin(mut flight: ResMut<Flight>) {
    flight.wait_start = frame_threads_run_delay();
    flight.cpu_start = main_thread_cpu(&flight);
    flight.frame_start = Some(Instant::now());
}

/// The frame's update ends: its wall time is recorded.
fn frame_end(mut flight: ResMut<Flight>) {
    if let Some(t0) = flight.frame_start.take() {
        flight.frames.push(t0.elapsed().as_secs_f64() * 1e3);
        let cpu = main_thread_cpu(&flight).saturating_sub(flight.cpu_start);
        flight.cpu.push(cpu as f64 / 1e6);
        let waited = frame_threads_run_delay().saturating_sub(flight.wait_start);
        flight.waits.push(waited as f64 / 1e6);
    }
}

/// The bytes of the meshes added this frame (vertices and indices), and
/// of the meshes held.
fn added_meshes(
    mut flight: ResMut<Flight>,
    mut events: MessageReader<AssetEvent<Mesh>>,
    meshes: Res<Assets<Mesh>>,
) {
    let mut frame = 0;
    for e in events.read() {
        match e {
            AssetEvent::Added { id } => {
                let Some(mesh) = meshes.get(*id) else {
                    continue;
                };
                let bytes = mesh_bytes(mesh) as u64;
                frame += bytes;
                flight.largest_mesh = flight.largest_mesh.max(bytes);
                flight.meshes_held += bytes;
                flight.mesh_sizes.insert(*id, bytes);
            }
            AssetEvent::Removed { id } => {
                if let Some(bytes) = flight.mesh_sizes.remove(id) {
                    flight.meshes_held -= bytes;
                }
            }
            _ => {}
        }
    }
    if flight.started {
        flight.mesh_bytes.push(frame);
    }
}

fn begin(mut flight: ResMut<Flight>) {
    flight.sets_start = Some(Instant::now());
    flight.marks.push([0.0; 4]);
}

/// Time since `begin` when set `N` is done (0: origin, 1: chunks, 2: objects).
fn mark<const N: usize>(mut flight: ResMut<Flight>) {
    if let Some(t0) = flight.sets_start {
        let ms = t0.elapsed().as_secs_f64() * 1e3;
        if let Some(m) = flight.marks.last_mut() {
            m[N] = ms;
        }
    }
}

fn end(
    time: Res<Time<Real>>,
    mut flight: ResMut<Flight>,
    stats: Res<ReliefStats>,
    traffic: Option<Res<TrafficStats>>,
    entities: &bevy::ecs::entity::Entities,
    cities: Query<(), With<CityBuildings>>,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(t0) = flight.sets_start.take() else {
        return;
    };
    flight.ours.push(t0.elapsed().as_secs_f64() * 1e3);
    if !flight.started {
        flight.held += time.delta_secs_f64();
        if flight.by_route {
            return;
        }
        if stats.complete && stats.ground_under_focus || flight.held >= HOLD_LIMIT {
            flight.started = true;
            println!(
                "fly-through: sets off after {:.2} s at the start ({})",
                flight.held,
                if stats.complete {
                    "the ground around it is in"
                } else {
                    "held long enough"
                }
            );
        }
        return;
    }
    flight.elapsed += time.delta_secs_f64();
    let t = flight.elapsed;
    if let Some(v) = &traffic {
        flight.peak_vehicles = flight.peak_vehicles.max(v.vehicles);
        flight.vehicle_frames += v.vehicles as f64;
        flight.peak_pedestrians = flight.peak_pedestrians.max(v.pedestrians);
    }
    if !stats.ground_under_focus {
        flight.no_ground += 1;
        if flight.no_ground_at.len() < 20 {
            let x = stats.focus.map_or(f64::NAN, |f| f.x);
            let (d, p, q) = (
                stats.chunks_desired,
                stats.chunks_present,
                stats.chunks_pending,
            );
            flight.no_ground_at.push((t, x, d, p, q));
        }
    }
    if flight.ours.len().is_multiple_of(10) {
        // Counting walks every entity slot: not every frame.
        flight.peak_entities = flight.peak_entities.max(entities.count_spawned());
        let rss = rss_kib();
        if t >= 10.0 {
            flight.rss_10s.get_or_insert(rss);
            flight.cities_seen |= !cities.is_empty();
            let tenth = ((t / flight.seconds * 10.0) as usize).min(9);
            flight.rss_tenths[tenth] = flight.rss_tenths[tenth].max(rss);
            let second = 2.0 * t >= 10.0 + flight.seconds;
            let half = &mut flight.rss_halves[second as usize];
            *half = (*half).max(rss);
            let less = rss.saturating_sub(flight.meshes_held / 1024);
            let slot = &mut flight.rss_less_meshes_tenths[tenth];
            *slot = (*slot).max(less);
        }
    }
    if t >= flight.seconds {
        let failures = report(&flight, &stats, traffic.as_deref());
        exit.write(if failures == 0 {
            AppExit::Success
        } else {
            AppExit::from_code(1)
        });
    }
}

/// `--far`: once the flight is over, its own figures and checks (the exit
/// code turns to 1 when one fails).
fn far_end(
    flight: Res<Flight>,
    far: Res<far::Far>,
    laid: Res<LaidRoads>,
    settings: Res<TerrainSettings>,
    state: Res<TerrainState>,
    mut done: Local<bool>,
    mut exit: MessageWriter<AppExit>,
) {
    if *done || flight.elapsed < flight.seconds {
        return;
    }
    *done = true;
    if far::report(&far, &laid, &settings, &state) > 0 {
        exit.write(AppExit::from_code(1));
    }
}

/// Prints the figures; returns how many checks failed.
fn report(flight: &Flight, stats: &ReliefStats, traffic: Option<&TrafficStats>) -> u32 {
    let quantiles = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        let pick = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        (pick(0.5), pick(0.99), pick(1.0))
    };
    let frames = flight.frames.len();
    let f = stats.focus.unwrap_or_default();
    println!(
        "fly-through: {:.0} s at {:.0} m/s, {frames} frames ({:.1} fps), ended at ({:.0}, {:.0})",
        flight.elapsed,
        flight.speed,
        frames as f64 / flight.elapsed,
        f.x,
        f.y
    );
    let (m, p, x) = quantiles(&flight.frames);
    println!("  app.update() wall time per frame: median {m:.3} ms, p99 {p:.3} ms, max {x:.3} ms");
    let (m, p, x) = quantiles(&flight.cpu);
    println!("    main thread's CPU time: median {m:.3} ms, p99 {p:.3} ms, max {x:.3} ms");
    let (m, p, x) = quantiles(&flight.waits);
    println!(
        "    waiting for a core (the frame's threads): median {m:.3} ms, p99 {p:.3} ms, max {x:.3} ms"
    );
    let (m, p, x) = quantiles(&flight.ours);
    println!("  of which our PostUpdate sets: median {m:.3} ms, p99 {p:.3} ms, max {x:.3} ms");
    let part = |f: &dyn Fn(&[f64; 4]) -> f64| {
        let mut p: Vec<f64> = flight.marks.iter().map(f).collect();
        p.sort_by(f64::total_cmp);
        (p[p.len() / 2], p[((p.len() - 1) as f64 * 0.99) as usize])
    };
    let (o, c, b) = (
        part(&|m| m[0]),
        part(&|m| m[1] - m[0]),
        part(&|m| m[2] - m[1]),
    );
    println!(
        "    by set, median / p99: settings+origin {:.3} / {:.3}, chunks {:.3} / {:.3}, objects {:.3} / {:.3} ms",
        o.0, o.1, c.0, c.1, b.0, b.1
    );
    println!(
        "  frames without ground under the focus once it set off: {}",
        flight.no_ground
    );
    for (t, x, d, p, q) in &flight.no_ground_at {
        println!("    at {t:.3} s, x {x:.0} m: chunks desired {d}, present {p}, pending {q}");
    }
    let mut bytes = flight.mesh_bytes.clone();
    bytes.sort_unstable();
    let at = |p: f64| {
        bytes
            .get(((bytes.len().max(1) - 1) as f64 * p) as usize)
            .copied()
    };
    let mib = |b: Option<u64>| b.unwrap_or(0) as f64 / 1048576.0;
    println!(
        "  meshes added per frame: p50 {:.2} MiB, p99 {:.2} MiB, max {:.2} MiB; the largest mesh {:.2} MiB",
        mib(at(0.5)),
        mib(at(0.99)),
        mib(at(1.0)),
        mib(Some(flight.largest_mesh))
    );
    println!(
        "  chunks generated: {} ({:.1} per second)",
        stats.chunks_generated,
        stats.chunks_generated as f64 / flight.elapsed
    );
    println!(
        "  peak entities: {}; objects at the end: {}, and {} trees in far meshes",
        flight.peak_entities, stats.objects, stats.far_trees
    );
    println!(
        "  resident memory: {:.0} MiB at 10 s, peak {:.0} MiB after 10 s, {:.0} MiB at the end",
        flight.rss_10s.unwrap_or(0) as f64 / 1024.0,
        flight.rss_tenths.iter().max().copied().unwrap_or(0) as f64 / 1024.0,
        rss_kib() as f64 / 1024.0
    );
    let mib = flight
        .rss_tenths
        .map(|k| format!("{:.0}", k as f64 / 1024.0));
    println!("    peak by tenth of the flight: {} MiB", mib.join(", "));
    let less = flight
        .rss_less_meshes_tenths
        .map(|k| format!("{:.0}", k as f64 / 1024.0));
    println!(
        "    less the meshes held (a renderer keeps them on the GPU), peak by tenth: {} MiB",
        less.join(", ")
    );
    if let Some(v) = traffic {
        println!(
            "  traffic: {} vehicles at the end ({} wanted on {:.1} km of road), mean {:.0}, peak {}; {} routes ({} not found)",
            v.vehicles,
            v.target,
            v.road_km,
            flight.vehicle_frames / flight.ours.len().max(1) as f64,
            flight.peak_vehicles,
            v.routes,
            v.failed
        );
        println!(
            "  pedestrians: {} at the end ({} wanted on {:.1} km of street and footway), peak {}",
            v.pedestrians, v.pedestrian_target, v.walk_km, flight.peak_pedestrians
        );
    }
    if let Some([bodies, samples, hulls, built, seconds]) = flight.colliders {
        println!(
            "  colliders: at most {bodies:.0} bodies, {samples:.0} height samples ({:.1} MiB as f32), {hulls:.0} hulls; {built:.0} built in {seconds:.2} s of worker time ({:.2} ms each)",
            samples * 4.0 / (1u64 << 20) as f64,
            seconds * 1000.0 / built.max(1.0)
        );
    }
    let mut failures = 0;
    if flight.no_ground > 0 {
        println!("FAIL: the focus had no ground under it once it set off");
        failures += 1;
    }
    let by_halves = flight.far || flight.cities_seen;
    let (at10, peak) = if by_halves {
        (flight.rss_halves[0], flight.rss_halves[1])
    } else {
        let peak = flight.rss_tenths.iter().max().copied().unwrap_or(0);
        (flight.rss_10s.unwrap_or(0), peak)
    };
    let what = if by_halves {
        "at its peak in the first half of the flight after 10 s"
    } else {
        "at 10 s"
    };
    if flight.rss_10s.is_some() && peak > at10 + (at10 / 4).max(32 * 1024) {
        println!("FAIL: resident memory grew from {at10} KiB {what} to {peak} KiB");
        failures += 1;
    }
    failures
}
