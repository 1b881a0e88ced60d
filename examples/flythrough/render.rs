//! `--render`: the fly-through renders every frame for real, offscreen (a
//! camera rendering to a 1920 × 1080 image, no window), on whatever GPU wgpu
//! finds, along a fixed route: countryside, a city from 300 m up and at
//! street level, the highway viaduct, a second city the same way, and out.
//!
//! The route advances by frames, not by wall time (`--seconds S` of route
//! at 60 frames a second): every machine renders the same frames. It
//! reports the CPU frame time (from one frame's start to the next, the
//! runner not pacing), the GPU frame time (timestamp queries through
//! Bevy's `RenderDiagnosticsPlugin`, where the adapter has them), the draw
//! calls (counted from the render phases: one per multi-draw batch set,
//! batchable bin, unbatchable mesh and sorted item), the triangles of the
//! visible meshes, entities, resident memory and the GPU memory wgpu's
//! allocator holds; `--json PATH` writes them. The CPU runs at most
//! `FRAMES_IN_FLIGHT` frames ahead of the GPU, as behind a window's
//! swapchain. `--size WxH` sets the image (a software renderer runs the
//! route sooner at a small one); `--msaa`, `--prepass`, `--occlusion` and
//! `--fxaa` set the camera; `--hide KIND,..` leaves kinds of mesh out (see `View`).

use super::{Flight, report, rss_kib, scene};
use bevy::anti_alias::fxaa::Fxaa;
use bevy::app::{AppExit, PluginGroupBuilder, ScheduleRunnerPlugin};
use bevy::camera::RenderTarget;
use bevy::camera::visibility::RenderLayers;
use bevy::core_pipeline::core_3d::{AlphaMask3d, Opaque3d, Transparent3d};
use bevy::diagnostic::DiagnosticsStore;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy::render::diagnostic::RenderDiagnosticsPlugin;
use bevy::render::occlusion_culling::OcclusionCulling;
use bevy::render::render_phase::{
    BinnedPhaseItem, SortedPhaseItem, ViewBinnedRenderPhases, ViewSortedRenderPhases,
};
use bevy::render::render_resource::PollType;
use bevy::render::render_resource::TextureFormat;
use bevy::render::renderer::{RenderAdapterInfo, RenderDevice, RenderQueue};
use bevy::render::{Render, RenderApp, RenderSystems};
use bevy::window::ExitCondition;
use bevy::winit::WinitPlugin;
use bevy_relief::plugin::{
    ChunkRoads, ChunkWater, CityBuildings, FarTrees, OriginShifted, ReliefObject, ReliefStructures,
    TerrainQuery,
};
use bevy_relief::prelude::*;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The route: core x, y and the camera's height over the built ground.
const ROUTE: [(f64, f64, f64); 11] = [
    (4000.0, 1000.0, 120.0),  // countryside
    (8200.0, 3200.0, 300.0),  // towards the first city, 300 m up
    (9852.0, 4253.0, 300.0),  // over it
    (10400.0, 4700.0, 2.5),   // down to street level
    (11200.0, 5400.0, 2.5),   // through it
    (13899.0, 7120.0, 40.0),  // the highway viaduct
    (15200.0, 7400.0, 300.0), // up over the second city
    (15800.0, 7693.0, 300.0), //
    (16400.0, 8000.0, 2.5),   // street level
    (17000.0, 8300.0, 2.5),   //
    (19000.0, 9000.0, 150.0), // out over the countryside
];

/// Frames a second of route.
const FPS: f64 = 60.0;
/// The image rendered, unless `--size` says otherwise.
const SIZE: (u32, u32) = (1920, 1080);

/// Bevy's plugins for rendering with no window (the runner loops without
/// pacing: the frame time is the benchmark).
pub fn plugins(noop: bool) -> PluginGroupBuilder {
    let plugins = DefaultPlugins
        .set(WindowPlugin {
            primary_window: None,
            exit_condition: ExitCondition::DontExit,
            close_when_requested: false,
            ..default()
        })
        .disable::<WinitPlugin>();
    #[cfg(feature = "noop-gpu")]
    if noop {
        return plugins.set(bevy::render::RenderPlugin {
            render_creation: noop_renderer(),
            ..default()
        });
    }
    let _ = noop;
    plugins
}

/// A renderer on wgpu's no-op backend (`--noop`, with the `noop-gpu`
/// feature): every GPU command is accepted and dropped, buffers are plain
/// memory, and the adapter claims every feature and limit, so Bevy takes the
/// paths it takes on a desktop GPU (GPU preprocessing, multi-draw). What is
/// left is the render thread's own CPU work.
#[cfg(feature = "noop-gpu")]
fn noop_renderer() -> bevy::render::settings::RenderCreation {
    use bevy::render::renderer::{
        RenderAdapter, RenderAdapterInfo, RenderDevice, RenderInstance, RenderQueue, WgpuWrapper,
    };
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor {
        backends: wgpu::Backends::NOOP,
        flags: wgpu::InstanceFlags::empty(),
        memory_budget_thresholds: default(),
        backend_options: wgpu::BackendOptions {
            noop: wgpu::NoopBackendOptions { enable: true },
            ..default()
        },
        display: None,
    });
    let adapter = bevy::tasks::block_on(instance.request_adapter(&default()))
        .expect("wgpu's no-op backend gives an adapter");
    let descriptor = wgpu::DeviceDescriptor {
        label: None,
        // Without the adapter's own format features (the no-op adapter
        // supports no format), the formats have WebGPU's guaranteed ones.
        required_features: adapter.features()
            - wgpu::Features::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES,
        // A desktop GPU's limits where Bevy sizes things by them (the
        // no-op adapter's are all the largest number).
        required_limits: wgpu::Limits {
            max_bind_groups: 8,
            max_vertex_buffers: 16,
            max_bindings_per_bind_group: 1000,
            max_color_attachments: 8,
            max_texture_dimension_2d: 32768,
            max_texture_array_layers: 2048,
            max_uniform_buffer_binding_size: 65536,
            min_uniform_buffer_offset_alignment: 64,
            min_storage_buffer_offset_alignment: 32,
            ..adapter.limits()
        },
        // SAFETY: nothing reaches a GPU; Bevy asks the same of real ones.
        experimental_features: unsafe { wgpu::ExperimentalFeatures::enabled() },
        memory_hints: default(),
        trace: wgpu::Trace::Off,
    };
    let (device, queue) = bevy::tasks::block_on(adapter.request_device(&descriptor))
        .expect("wgpu's no-op backend gives a device");
    let info = adapter.get_info();
    bevy::render::settings::RenderCreation::manual(
        RenderDevice::from(device),
        RenderQueue(Arc::new(WgpuWrapper::new(queue))),
        RenderAdapterInfo(WgpuWrapper::new(info)),
        RenderAdapter(Arc::new(WgpuWrapper::new(adapter))),
        RenderInstance(Arc::new(WgpuWrapper::new(instance))),
    )
}

/// How the route is seen: the camera's settings, what it leaves out, and
/// whether frames keep a display's pace.
#[derive(Clone)]
pub struct View {
    /// The image's width and height (`--size WxH`; [`SIZE`] unless told).
    pub size: (u32, u32),
    /// The camera's multisampling (`--msaa N`; 4, Bevy's default and the
    /// world example's, unless told).
    pub msaa: Msaa,
    /// A depth prepass (`--prepass`): the opaque pass shades each pixel
    /// once.
    pub prepass: bool,
    /// Bevy's GPU two-phase occlusion culling (`--occlusion`, with the
    /// prepass it needs).
    pub occlusion: bool,
    /// FXAA after the main pass (`--fxaa`: edges smoothed without MSAA).
    pub fxaa: bool,
    /// No timestamp queries (`--no-gpu-timing`): the CPU frame without the
    /// cost of reading them back, and no GPU times.
    pub no_gpu_timing: bool,
    /// What the camera does not draw (`--hide ground,roads,..`): the GPU
    /// time each kind costs is the difference.
    pub hide: Vec<Kind>,
    /// Frames start at most [`FPS`] a second (`--pace`), as behind a 60 Hz
    /// display, so the world streams in as it would for a player; a
    /// frame's CPU time is then from its start to the next one's, less the
    /// wait.
    pub pace: bool,
}

impl Default for View {
    fn default() -> Self {
        Self {
            size: SIZE,
            msaa: Msaa::default(),
            prepass: false,
            occlusion: false,
            fxaa: false,
            no_gpu_timing: false,
            hide: Vec::new(),
            pace: false,
        }
    }
}

/// What the world draws, by the plugin's components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The ground chunks ([`TerrainChunk`]).
    Ground,
    /// The lakes on them ([`ChunkWater`]).
    Water,
    /// Their road ribbons ([`ChunkRoads`]).
    Roads,
    /// Trees and point features ([`ReliefObject`], [`FarTrees`]).
    Objects,
    /// Cities' buildings (the tiles under [`CityBuildings`]).
    Buildings,
    /// Bridges and tunnels ([`ReliefStructures`]).
    Structures,
}

impl Kind {
    const ALL: [(Kind, &str); 6] = [
        (Kind::Ground, "ground"),
        (Kind::Water, "water"),
        (Kind::Roads, "roads"),
        (Kind::Objects, "objects"),
        (Kind::Buildings, "buildings"),
        (Kind::Structures, "structures"),
    ];
    pub const NAMES: &str = "ground, water, roads, objects, buildings, structures";

    pub fn parse(name: &str) -> Option<Kind> {
        (Self::ALL.iter()).find_map(|(k, n)| (*n == name).then_some(*k))
    }

    fn name(self) -> &'static str {
        (Self::ALL.iter())
            .find(|(k, _)| *k == self)
            .map_or("", |(_, n)| n)
    }
}

/// The render layer the camera does not see, for the hidden kinds.
const HIDDEN_LAYER: usize = 1;

/// Moves the new meshes of the hidden kinds to a layer the camera does not
/// see (a chunk's visibility is the plugin's; its layer is not).
#[allow(clippy::type_complexity)]
fn hide_kinds(
    mut commands: Commands,
    bench: Res<Bench>,
    added: Query<
        (
            Entity,
            Option<&ChildOf>,
            Has<TerrainChunk>,
            Has<ChunkWater>,
            Has<ChunkRoads>,
            Has<ReliefObject>,
            Has<FarTrees>,
            Has<ReliefStructures>,
        ),
        Added<Mesh3d>,
    >,
    cities: Query<(), With<CityBuildings>>,
) {
    if bench.view.hide.is_empty() {
        return;
    }
    for (e, parent, ground, water, roads, object, far_trees, structure) in &added {
        let kind = if ground {
            Kind::Ground
        } else if water {
            Kind::Water
        } else if roads {
            Kind::Roads
        } else if object || far_trees {
            Kind::Objects
        } else if structure {
            Kind::Structures
        } else if parent.is_some_and(|p| cities.contains(p.parent())) {
            Kind::Buildings
        } else {
            continue;
        };
        if bench.view.hide.contains(&kind) {
            commands.entity(e).insert(RenderLayers::layer(HIDDEN_LAYER));
        }
    }
}

/// Adds the route, the camera, the light and the counters.
pub fn add(app: &mut App, seconds: f64, json: Option<String>, view: View) {
    let draws = DrawCount::default();
    app.add_plugins(ScheduleRunnerPlugin::run_loop(Duration::ZERO));
    if !view.no_gpu_timing {
        app.add_plugins(RenderDiagnosticsPlugin);
    }
    app.insert_resource(draws.clone())
        .insert_resource(Bench {
            frames: (seconds * FPS).round().max(2.0) as u64,
            json,
            view,
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(First, tick)
        .add_systems(Update, follow_route)
        .add_systems(PostUpdate, hide_kinds)
        .add_systems(
            Last,
            (gpu_times, note_meshes, count_scene, note_shifts, finish)
                .chain()
                .after(super::frame_end),
        );
    scene::sky(app);
    let clock = RenderClock::default();
    app.insert_resource(clock.clone());
    if let Some(render) = app.get_sub_app_mut(RenderApp) {
        use RenderSystems as R;
        render
            .insert_resource(draws)
            .insert_resource(clock)
            .add_systems(
                Render,
                (
                    count_draws.after(R::PhaseSort).before(R::Render),
                    render_mark::<0>.before(R::ExtractCommands),
                    render_mark::<1>
                        .after(R::ExtractCommands)
                        .before(R::PrepareAssets),
                    render_mark::<2>
                        .after(R::PrepareAssets)
                        .before(R::PrepareMeshes),
                    render_mark::<3>
                        .after(R::PrepareMeshes)
                        .before(R::CreateViews),
                    render_mark::<4>.after(R::PrepareViews).before(R::Queue),
                    render_mark::<5>.after(R::Queue).before(R::PhaseSort),
                    render_mark::<6>.after(R::PhaseSort).before(R::Prepare),
                    render_mark::<7>
                        .after(R::PrepareResources)
                        .before(R::PrepareResourcesBatchPhases),
                    render_mark::<8>
                        .after(R::PrepareResourcesBatchPhases)
                        .before(R::PrepareResourcesWritePhaseBuffers),
                    render_mark::<9>
                        .after(R::PrepareResourcesFlush)
                        .before(R::PrepareBindGroups),
                    render_mark::<10>.after(R::Prepare).before(R::Render),
                    render_mark::<11>.after(R::Render).before(R::Cleanup),
                    frames_in_flight.after(render_mark::<11>).before(R::Cleanup),
                    render_mark::<12>.after(R::PostCleanup),
                ),
            );
    }
}

/// The render world's stages, timed by [`render_mark`] (wall time on the
/// render thread, ms).
const RENDER_STAGES: [&str; 12] = [
    "extract commands",
    "prepare assets (uploads)",
    "prepare meshes (allocator)",
    "views, specialize",
    "queue",
    "sort",
    "prepare resources",
    "prepare: batch phases",
    "prepare: write and collect phase buffers, flush",
    "prepare: bind groups",
    "render graph (encode, submit)",
    "waiting for the GPU (at most 2 frames ahead), cleanup",
];

/// Frames the CPU may run ahead of the GPU, as a window's swapchain allows
/// (wgpu's default frame latency): rendering to an image has no swapchain
/// to hold it back, so without this bound the CPU queues frames until the
/// driver stalls it for a long one.
const FRAMES_IN_FLIGHT: usize = 2;

/// The frames in flight, oldest first: each waits for its marker
/// submission to finish.
#[derive(Default)]
struct InFlight(std::collections::VecDeque<Box<dyn FnOnce(&RenderDevice) + Send + Sync>>);

/// Ends a frame's GPU work with a marker submission and waits, if the CPU
/// is more than [`FRAMES_IN_FLIGHT`] frames ahead, for the oldest to finish.
fn frames_in_flight(
    mut flight: Local<InFlight>,
    queue: Res<RenderQueue>,
    device: Res<RenderDevice>,
) {
    let marker = queue.submit([]);
    flight.0.push_back(Box::new(move |device: &RenderDevice| {
        let wait = PollType::Wait {
            submission_index: Some(marker),
            timeout: Some(Duration::from_secs(5)),
        };
        if let Err(e) = device.poll(wait) {
            eprintln!("render: waiting for the GPU failed: {e}");
        }
    }));
    while flight.0.len() > FRAMES_IN_FLIGHT {
        if let Some(wait) = flight.0.pop_front() {
            wait(&device);
        }
    }
}

/// Each frame's render-world stage times, shared with the main world.
#[derive(Resource, Clone, Default)]
struct RenderClock(Arc<Mutex<RenderTimes>>);

#[derive(Default)]
struct RenderTimes {
    prev: Option<Instant>,
    now: [f64; RENDER_STAGES.len()],
    frames: Vec<[f64; RENDER_STAGES.len()]>,
}

/// Mark `I` of the render schedule: the stage before it took this long.
fn render_mark<const I: usize>(clock: Res<RenderClock>) {
    let now = Instant::now();
    let Ok(mut t) = clock.0.lock() else { return };
    if I > 0
        && let Some(prev) = t.prev
    {
        t.now[I - 1] = (now - prev).as_secs_f64() * 1e3;
    }
    t.prev = Some(now);
    if I == RENDER_STAGES.len() {
        let frame = t.now;
        t.frames.push(frame);
    }
}

/// Draw calls of the last frame, counted in the render world.
#[derive(Resource, Clone, Default)]
struct DrawCount(Arc<AtomicUsize>);

#[derive(Resource, Default)]
struct Bench {
    frames: u64,
    frame: u64,
    json: Option<String>,
    view: View,
    last: Option<Instant>,
    /// With `--pace`: the start of the last frame's slot.
    slot: Option<Instant>,
    /// The frames on which the render origin moved.
    shifts: Vec<u64>,
    /// Start to start, ms.
    intervals: Vec<f64>,
    /// GPU time of each frame with timestamps, ms.
    gpu: Vec<f64>,
    gpu_seen: BTreeMap<String, Instant>,
    /// Each pass's GPU times (`render/…/elapsed_gpu`, any depth), ms.
    passes: BTreeMap<String, Vec<f64>>,
    /// The route's leg of each interval and each GPU time.
    interval_legs: Vec<usize>,
    gpu_legs: Vec<usize>,
    draws: Vec<usize>,
    triangles: Vec<u64>,
    /// Each mesh's triangles, noted when an entity takes it (the streamed
    /// meshes leave the main world once uploaded).
    mesh_triangles: HashMap<AssetId<Mesh>, u64>,
    entities: u32,
    rss_kib: u64,
    gpu_bytes: u64,
    done: bool,
    /// The route has begun (after the world around its start came).
    started: bool,
    /// When the wait for the world began.
    waiting_since: Option<Instant>,
}

/// The longest wait for the world around the route's start.
const WARM_UP: Duration = Duration::from_secs(120);

fn setup(mut commands: Commands, mut images: ResMut<Assets<Image>>, bench: Res<Bench>) {
    let (w, h) = bench.view.size;
    let mut image = Image::new_target_texture(w, h, TextureFormat::Rgba8UnormSrgb, None);
    image.texture_descriptor.usage |= bevy::render::render_resource::TextureUsages::COPY_SRC;
    let target = images.add(image);
    commands.spawn(scene::sun());
    let mut camera = commands.spawn((
        Camera3d::default(),
        RenderTarget::Image(target.into()),
        Transform::default(),
        ReliefFocus,
        scene::haze(),
        bench.view.msaa,
    ));
    if bench.view.prepass {
        camera.insert(bevy::core_pipeline::prepass::DepthPrepass);
    }
    if bench.view.occlusion {
        camera.insert(OcclusionCulling);
    }
    if bench.view.fxaa {
        camera.insert(Fxaa::default());
    }
}

/// Where on the route at fraction `s` (0–1): core x, y, the height over
/// the ground and the leg (0-based, between [`ROUTE`]'s points).
fn route_at(s: f64) -> (DVec2, f64, usize) {
    let mut left = s.clamp(0.0, 1.0) * route_length();
    for (i, w) in ROUTE.windows(2).enumerate() {
        let (a, b) = (DVec2::new(w[0].0, w[0].1), DVec2::new(w[1].0, w[1].1));
        let len = a.distance(b);
        if left <= len {
            let t = if len > 0.0 { left / len } else { 0.0 };
            return (a.lerp(b, t), w[0].2 + (w[1].2 - w[0].2) * t, i);
        }
        left -= len;
    }
    let last = ROUTE[ROUTE.len() - 1];
    (DVec2::new(last.0, last.1), last.2, ROUTE.len() - 2)
}

/// The leg of the route at frame `frame` of `frames`.
fn leg_of(frame: u64, frames: u64) -> usize {
    route_at(frame as f64 / (frames.max(2) - 1) as f64).2
}

/// The route's length over the ground, metres.
fn route_length() -> f64 {
    (ROUTE.windows(2))
        .map(|w| DVec2::new(w[0].0 - w[1].0, w[0].1 - w[1].1).length())
        .sum()
}

/// Places the camera (the focus) for this frame, looking 400 m ahead. The
/// route waits at its start until the world there is complete (at most
/// [`WARM_UP`]); the figures count from then.
fn follow_route(
    mut bench: ResMut<Bench>,
    mut flight: ResMut<Flight>,
    stats: Res<ReliefStats>,
    ground: TerrainQuery,
    mut camera: Single<(&mut Transform, &mut Camera), With<ReliefFocus>>,
    render_clock: Res<RenderClock>,
) {
    if !bench.started {
        // Nothing is drawn while the world comes, and the frames leave the
        // cores to the workers (a CPU renderer would take them all).
        camera.1.is_active = false;
        std::thread::sleep(Duration::from_millis(10));
        let since = *bench.waiting_since.get_or_insert_with(Instant::now);
        // The roads, towns and objects around the start are in.
        let ready = stats.complete
            && stats.roads > 0
            && stats.objects > 0
            && since.elapsed() > Duration::from_secs(2)
            && !stats.roads_pending
            && stats.objects_pending == 0
            && stats.cities_pending == 0
            && stats.structures_pending == 0;
        if ready || since.elapsed() > WARM_UP {
            println!(
                "render: the route begins after {:.1} s ({})",
                since.elapsed().as_secs_f64(),
                if ready {
                    "world complete"
                } else {
                    "waited long enough"
                }
            );
            bench.started = true;
            camera.1.is_active = true;
            // The figures count from here.
            bench.intervals.clear();
            bench.shifts.clear();
            bench.gpu.clear();
            bench.passes.clear();
            if let Ok(mut t) = render_clock.0.lock() {
                t.frames.clear();
            }
            bench.interval_legs.clear();
            bench.gpu_legs.clear();
            bench.draws.clear();
            bench.triangles.clear();
            flight.frames.clear();
            flight.cpu.clear();
            flight.waits.clear();
            flight.ours.clear();
            flight.marks.clear();
            flight.no_ground = 0;
            flight.started = true;
            flight.elapsed = 0.0;
            flight.speed = route_length() / (bench.frames as f64 / FPS);
        }
    }
    let s = bench.frame as f64 / (bench.frames - 1) as f64;
    let (p, h, _) = route_at(s);
    let (q, hq, _) = route_at(s + 400.0 / route_length());
    let q = if q.distance(p) < 1.0 {
        p + DVec2::X * 400.0
    } else {
        q
    };
    let eye = DVec3::new(p.x, p.y, ground.height(p.x, p.y) + h);
    let at = DVec3::new(q.x, q.y, ground.height(q.x, q.y) + hq * 0.3);
    let (eye, at) = (ground.to_render(eye), ground.to_render(at));
    *camera.0 = Transform::from_translation(eye).looking_at(at, Vec3::Y);
}

/// A frame starts: the time since the last start (with `--pace`, after
/// waiting for the frame's slot).
fn tick(mut bench: ResMut<Bench>) {
    let mut now = Instant::now();
    if let Some(t) = bench.last {
        bench.intervals.push((now - t).as_secs_f64() * 1e3);
        let leg = leg_of(bench.frame, bench.frames);
        bench.interval_legs.push(leg);
        if bench.view.pace {
            // Slots keep to the clock; a late frame starts the next at once.
            let due = bench.slot.unwrap_or(t) + Duration::from_secs_f64(1.0 / FPS);
            bench.slot = Some(if now < due {
                std::thread::sleep(due - now);
                now = Instant::now();
                due
            } else {
                now
            });
        }
    }
    bench.last = Some(now);
}

/// Notes the frames on which the render origin moved (every root transform
/// shifted, so every mesh instance is extracted anew).
fn note_shifts(mut shifted: MessageReader<OriginShifted>, mut bench: ResMut<Bench>) {
    if shifted.read().count() > 0 && bench.started {
        let frame = bench.frame;
        bench.shifts.push(frame);
    }
}

/// The GPU time of the newest frame whose timestamps came back: the sum of
/// the top-level passes' `elapsed_gpu` (`render/<pass>/elapsed_gpu`).
fn gpu_times(store: Res<DiagnosticsStore>, mut bench: ResMut<Bench>) {
    let mut sum = 0.0;
    let mut fresh = false;
    for d in store.iter() {
        let path = d.path().as_str();
        if !(path.starts_with("render/") && path.ends_with("/elapsed_gpu")) {
            continue;
        }
        let Some(m) = d.measurement() else { continue };
        let new = bench.gpu_seen.get(path) != Some(&m.time);
        if new {
            bench.gpu_seen.insert(path.to_string(), m.time);
            bench
                .passes
                .entry(path.to_string())
                .or_default()
                .push(m.value);
        }
        if path.matches('/').count() != 2 {
            continue;
        }
        fresh |= new;
        sum += m.value;
    }
    if fresh {
        bench.gpu.push(sum);
        let leg = leg_of(bench.frame, bench.frames);
        bench.gpu_legs.push(leg);
    }
}

/// Notes the triangles of the meshes entities took this frame (before the
/// render world takes the data of those only it uses).
fn note_meshes(
    mut bench: ResMut<Bench>,
    taken: Query<&Mesh3d, Changed<Mesh3d>>,
    meshes: Res<Assets<Mesh>>,
) {
    for m in &taken {
        let id = m.0.id();
        if bench.mesh_triangles.contains_key(&id) {
            continue;
        }
        let Some(mesh) = meshes.get(id) else {
            continue;
        };
        let n = match mesh.try_indices_option() {
            Ok(Some(i)) => i.len(),
            Ok(None) => (mesh.try_attribute(Mesh::ATTRIBUTE_POSITION)).map_or(0, |p| p.len()),
            Err(_) => continue,
        };
        bench.mesh_triangles.insert(id, n as u64 / 3);
    }
}

/// Every 30th frame: triangles in view, entities, memory.
fn count_scene(
    mut bench: ResMut<Bench>,
    visible: Query<(&Mesh3d, &ViewVisibility)>,
    meshes: Res<Assets<Mesh>>,
    entities: &bevy::ecs::entity::Entities,
    device: Option<Res<RenderDevice>>,
) {
    if !bench.started {
        return;
    }
    bench.frame += 1;
    if !bench.frame.is_multiple_of(30) {
        return;
    }
    let triangles: u64 = (visible.iter())
        .filter(|(_, v)| v.get())
        .filter_map(|(m, _)| bench.mesh_triangles.get(&m.0.id()))
        .sum();
    bench.triangles.push(triangles);
    // The meshes dropped since are forgotten.
    bench.mesh_triangles.retain(|id, _| meshes.contains(*id));
    bench.entities = bench.entities.max(entities.count_spawned());
    bench.rss_kib = bench.rss_kib.max(rss_kib());
    if let Some(report) = device.and_then(|d| d.wgpu_device().generate_allocator_report()) {
        bench.gpu_bytes = bench.gpu_bytes.max(report.total_reserved_bytes);
    }
}

/// Counts the draw calls the render phases will issue.
fn count_draws(
    opaque: Option<Res<ViewBinnedRenderPhases<Opaque3d>>>,
    mask: Option<Res<ViewBinnedRenderPhases<AlphaMask3d>>>,
    transparent: Option<Res<ViewSortedRenderPhases<Transparent3d>>>,
    count: Res<DrawCount>,
) {
    fn binned<B: BinnedPhaseItem>(p: &ViewBinnedRenderPhases<B>) -> usize {
        (p.0.values())
            .map(|ph| {
                ph.multidrawable_meshes.len()
                    + ph.batchable_meshes.len()
                    + ph.unbatchable_meshes
                        .values()
                        .map(|u| u.entities.len())
                        .sum::<usize>()
                    + ph.non_mesh_items.len()
            })
            .sum()
    }
    fn sorted<S: SortedPhaseItem>(p: &ViewSortedRenderPhases<S>) -> usize {
        p.0.values().map(|ph| ph.items.len()).sum()
    }
    let n = opaque.map_or(0, |p| binned(&p))
        + mask.map_or(0, |p| binned(&p))
        + transparent.map_or(0, |p| sorted(&p));
    count.0.store(n, Ordering::Relaxed);
}

/// At the route's end: the figures, and the exit.
fn finish(
    mut bench: ResMut<Bench>,
    draws: Res<DrawCount>,
    flight: Res<Flight>,
    stats: Res<ReliefStats>,
    adapter: Option<Res<RenderAdapterInfo>>,
    clock: Res<RenderClock>,
    mut exit: MessageWriter<AppExit>,
) {
    let n = draws.0.load(Ordering::Relaxed);
    bench.draws.push(n);
    if !bench.started {
        return;
    }
    if bench.done || bench.frame < bench.frames {
        return;
    }
    bench.done = true;
    let failures = report(&flight, &stats, None);
    let gpu_name = adapter.map_or("unknown".to_string(), |a| {
        format!("{} ({:?}, {})", a.name, a.backend, a.driver)
    });
    let q = |v: &[f64], p: f64| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        (!v.is_empty()).then(|| v[((v.len() - 1) as f64 * p).round() as usize])
    };
    let (cpu, gpu) = (&bench.intervals, &bench.gpu);
    let draws: Vec<f64> = bench.draws.iter().map(|&d| d as f64).collect();
    let tris: Vec<f64> = bench.triangles.iter().map(|&t| t as f64).collect();
    let ms = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.2} ms"));
    let hidden: Vec<&str> = bench.view.hide.iter().map(|k| k.name()).collect();
    println!(
        "render: {} frames at {}x{} on {gpu_name}, MSAA {}{}{}{}{}",
        bench.frame,
        bench.view.size.0,
        bench.view.size.1,
        bench.view.msaa.samples(),
        if bench.view.prepass {
            ", depth prepass"
        } else {
            ""
        },
        if bench.view.occlusion {
            ", occlusion culling"
        } else {
            ""
        },
        if bench.view.fxaa { ", FXAA" } else { "" },
        if hidden.is_empty() {
            String::new()
        } else {
            format!(", without {}", hidden.join(", "))
        }
    );
    println!(
        "  CPU frame (start to start): p50 {}, p99 {}",
        ms(q(cpu, 0.5)),
        ms(q(cpu, 0.99))
    );
    println!(
        "  GPU frame (timestamps, {} frames): p50 {}, p99 {}",
        gpu.len(),
        ms(q(gpu, 0.5)),
        ms(q(gpu, 0.99))
    );
    println!(
        "  draw calls: p50 {:.0}, max {:.0}; triangles in view: p50 {:.0}, max {:.0}",
        q(&draws, 0.5).unwrap_or(0.0),
        q(&draws, 1.0).unwrap_or(0.0),
        q(&tris, 0.5).unwrap_or(0.0),
        q(&tris, 1.0).unwrap_or(0.0)
    );
    println!(
        "  entities at most {}; resident memory at most {:.0} MiB; GPU memory (wgpu's allocator) at most {}",
        bench.entities,
        bench.rss_kib as f64 / 1024.0,
        if bench.gpu_bytes > 0 {
            format!("{:.0} MiB", bench.gpu_bytes as f64 / 1048576.0)
        } else {
            "n/a".to_string()
        }
    );
    // Where the time goes: the passes, the legs and the slowest frames.
    let mut passes: Vec<(&String, f64, f64)> = (bench.passes.iter())
        .filter_map(|(p, v)| Some((p, q(v, 0.5)?, q(v, 0.99)?)))
        .collect();
    passes.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!("  GPU passes, p50 / p99 (ms):");
    for (p, p50, p99) in passes.iter().take(12) {
        let name = p
            .trim_start_matches("render/")
            .trim_end_matches("/elapsed_gpu");
        println!("    {name}: {p50:.3} / {p99:.3}");
    }
    if let Ok(t) = clock.0.lock() {
        let total: Vec<f64> = t.frames.iter().map(|f| f.iter().sum()).collect();
        println!(
            "  render world (render thread, {} frames), p50 / p99: all {} / {}",
            t.frames.len(),
            ms(q(&total, 0.5)),
            ms(q(&total, 0.99))
        );
        for (i, name) in RENDER_STAGES.iter().enumerate() {
            let v: Vec<f64> = t.frames.iter().map(|f| f[i]).collect();
            println!("    {name}: {} / {}", ms(q(&v, 0.5)), ms(q(&v, 0.99)));
        }
        // The slowest render frames, by stage (those over a tenth of it).
        let mut order: Vec<usize> = (0..total.len()).collect();
        order.sort_by(|a, b| total[*b].total_cmp(&total[*a]));
        for &i in order.iter().take(6) {
            let parts: Vec<String> = (RENDER_STAGES.iter().zip(&t.frames[i]))
                .filter(|(_, s)| **s > 0.1 * total[i])
                .map(|(n, s)| format!("{n} {s:.2}"))
                .collect();
            println!("    slow, {:.2} ms: {}", total[i], parts.join("; "));
        }
        // The frames after the origin moved: every mesh instance extracted anew.
        let slowest = |v: &[f64], f: u64| {
            let f = (f as usize).min(v.len());
            v[f..(f + 3).min(v.len())]
                .iter()
                .copied()
                .fold(0.0, f64::max)
        };
        let r: Vec<f64> = bench.shifts.iter().map(|&f| slowest(&total, f)).collect();
        let c: Vec<f64> = (bench.shifts.iter())
            .map(|&f| slowest(&bench.intervals, f))
            .collect();
        println!(
            "  the origin moved {} times; the slowest of the three frames from each, p50 / max: render thread {} / {}, CPU frame {} / {}",
            bench.shifts.len(),
            ms(q(&r, 0.5)),
            ms(q(&r, 1.0)),
            ms(q(&c, 0.5)),
            ms(q(&c, 1.0))
        );
    }
    println!("  by leg of the route, CPU frame p50 / p99, GPU frame p50 / p99 (ms):");
    for (leg, w) in ROUTE.windows(2).enumerate() {
        let pick = |v: &[f64], legs: &[usize]| -> Vec<f64> {
            (v.iter().zip(legs))
                .filter(|(_, l)| **l == leg)
                .map(|(x, _)| *x)
                .collect()
        };
        let c = pick(&bench.intervals, &bench.interval_legs);
        let g = pick(&bench.gpu, &bench.gpu_legs);
        println!(
            "    ({:.0}, {:.0}, {} m) to ({:.0}, {:.0}, {} m): {} / {}, {} / {}",
            w[0].0,
            w[0].1,
            w[0].2,
            w[1].0,
            w[1].1,
            w[1].2,
            ms(q(&c, 0.5)),
            ms(q(&c, 0.99)),
            ms(q(&g, 0.5)),
            ms(q(&g, 0.99))
        );
    }
    let mut worst: Vec<(usize, f64)> = bench.intervals.iter().copied().enumerate().collect();
    worst.sort_by(|a, b| b.1.total_cmp(&a.1));
    let worst: Vec<String> = (worst.iter().take(8))
        .map(|(i, t)| format!("{t:.1} ms (frame {i}, leg {})", bench.interval_legs[*i]))
        .collect();
    println!("  slowest CPU frames: {}", worst.join(", "));
    if let Some(path) = &bench.json {
        let num = |v: Option<f64>| v.map_or("null".to_string(), |v| format!("{v:.3}"));
        let json = format!(
            "{{\"gpu\": {:?}, \"width\": {}, \"height\": {}, \"frames\": {}, \"cpu_ms_p50\": {}, \"cpu_ms_p99\": {}, \"gpu_ms_p50\": {}, \"gpu_ms_p99\": {}, \"draw_calls_p50\": {}, \"draw_calls_max\": {}, \"triangles_p50\": {}, \"triangles_max\": {}, \"entities_max\": {}, \"rss_mib_max\": {:.1}, \"gpu_mib_max\": {}, \"frames_without_ground\": {}, \"msaa\": {}, \"prepass\": {}, \"occlusion\": {}, \"fxaa\": {}, \"hidden\": {:?}}}\n",
            gpu_name,
            bench.view.size.0,
            bench.view.size.1,
            bench.frame,
            num(q(cpu, 0.5)),
            num(q(cpu, 0.99)),
            num(q(gpu, 0.5)),
            num(q(gpu, 0.99)),
            num(q(&draws, 0.5)),
            num(q(&draws, 1.0)),
            num(q(&tris, 0.5)),
            num(q(&tris, 1.0)),
            bench.entities,
            bench.rss_kib as f64 / 1024.0,
            num((bench.gpu_bytes > 0).then(|| bench.gpu_bytes as f64 / 1048576.0)),
            flight.no_ground,
            bench.view.msaa.samples(),
            bench.view.prepass,
            bench.view.occlusion,
            bench.view.fxaa,
            hidden,
        );
        if let Err(e) = std::fs::write(path, json) {
            eprintln!("could not write {path}: {e}");
        }
    }
    exit.write(if failures == 0 {
        AppExit::Success
    } else {
        AppExit::from_code(1)
    });
}
