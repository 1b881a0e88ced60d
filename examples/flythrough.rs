//! Headless fly-through benchmark: the focus flies east at 300 m/s for 30 s
//! of game time, paced in real time at 60 Hz, with no window or renderer.
//!
//! `cargo run --release --example flythrough [-- --seconds S --speed M]`
//!
//! Reports the main-thread time of our systems per frame (median, p99, max:
//! the span of `ReliefSet`, including applying their commands), frames with
//! no ground mesh under the focus after the first second, chunks generated
//! per second, peak entity count and resident memory at 10 s and at the end.

use bevy::app::{AppExit, ScheduleRunnerPlugin};
use bevy::math::DVec3;
use bevy::mesh::MeshPlugin;
use bevy::prelude::*;
use bevy_relief::prelude::*;
use std::time::{Duration, Instant};

#[derive(Resource)]
struct Flight {
    seconds: f64,
    speed: f64,
    start: DVec3,
    frame_start: Option<Instant>,
    ours: Vec<f64>,
    no_ground_after_1s: u32,
    peak_entities: u32,
    rss_10s: Option<u64>,
    peak_rss_after_10s: u64,
    elapsed: f64,
}

fn main() -> AppExit {
    let mut seconds = 30.0;
    let mut speed = 300.0;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().and_then(|s| s.parse::<f64>().ok());
        match (a.as_str(), v) {
            ("--seconds", Some(v)) if v > 0.0 => seconds = v,
            ("--speed", Some(v)) if v >= 0.0 => speed = v,
            _ => {
                eprintln!("usage: flythrough [--seconds S] [--speed M]");
                return AppExit::from_code(2);
            }
        }
    }
    let start = DVec3::new(19000.0, 1260.0, 600.0);
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::from_secs_f64(
                1.0 / 60.0,
            ))),
            TransformPlugin,
            AssetPlugin::default(),
            MeshPlugin,
            ReliefPlugin::default(),
        ))
        .insert_resource(Flight {
            seconds,
            speed,
            start,
            frame_start: None,
            ours: Vec::new(),
            no_ground_after_1s: 0,
            peak_entities: 0,
            rss_10s: None,
            peak_rss_after_10s: 0,
            elapsed: 0.0,
        })
        .add_systems(
            Startup,
            |mut commands: Commands, origin: Res<RenderOrigin>, flight: Res<Flight>| {
                commands.spawn((
                    Transform::from_translation(origin.to_render(flight.start)),
                    ReliefFocus,
                ));
            },
        )
        .add_systems(Update, fly)
        .add_systems(
            PostUpdate,
            (
                begin.before(ReliefSet::Settings),
                end.after(ReliefSet::Stats),
            ),
        )
        .run()
}

/// Moves the focus east; the distance follows real time.
fn fly(
    time: Res<Time<Real>>,
    flight: Res<Flight>,
    mut focus: Single<&mut Transform, With<ReliefFocus>>,
) {
    focus.translation.x += (flight.speed * time.delta_secs_f64()) as f32;
}

fn begin(mut flight: ResMut<Flight>) {
    flight.frame_start = Some(Instant::now());
}

fn end(
    time: Res<Time<Real>>,
    mut flight: ResMut<Flight>,
    stats: Res<ReliefStats>,
    entities: &bevy::ecs::entity::Entities,
    mut exit: MessageWriter<AppExit>,
) {
    let Some(t0) = flight.frame_start.take() else {
        return;
    };
    flight.ours.push(t0.elapsed().as_secs_f64() * 1e3);
    flight.elapsed += time.delta_secs_f64();
    let t = flight.elapsed;
    if t > 1.0 && !stats.ground_under_focus {
        flight.no_ground_after_1s += 1;
    }
    flight.peak_entities = flight.peak_entities.max(entities.count_spawned());
    if flight.ours.len().is_multiple_of(10) {
        let rss = rss_kib();
        if t >= 10.0 {
            flight.rss_10s.get_or_insert(rss);
            flight.peak_rss_after_10s = flight.peak_rss_after_10s.max(rss);
        }
    }
    if t >= flight.seconds {
        report(&flight, &stats);
        exit.write(AppExit::Success);
    }
}

/// Resident memory in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))?
                .split_whitespace()
                .nth(1)?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn report(flight: &Flight, stats: &ReliefStats) {
    let mut v = flight.ours.clone();
    v.sort_by(f64::total_cmp);
    let pick = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    let frames = v.len();
    let f = stats.focus.unwrap_or_default();
    println!(
        "fly-through: {:.0} s at {:.0} m/s, {frames} frames ({:.1} fps), ended at ({:.0}, {:.0})",
        flight.elapsed,
        flight.speed,
        frames as f64 / flight.elapsed,
        f.x,
        f.y
    );
    println!(
        "  our main-thread time per frame: median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        pick(0.5),
        pick(0.99),
        pick(1.0)
    );
    println!(
        "  frames without ground under the focus after 1 s: {}",
        flight.no_ground_after_1s
    );
    println!(
        "  chunks generated: {} ({:.1} per second)",
        stats.chunks_generated,
        stats.chunks_generated as f64 / flight.elapsed
    );
    println!(
        "  peak entities: {}; objects at the end: {}",
        flight.peak_entities, stats.objects
    );
    println!(
        "  resident memory: {:.0} MiB at 10 s, peak {:.0} MiB after 10 s, {:.0} MiB at the end",
        flight.rss_10s.unwrap_or(0) as f64 / 1024.0,
        flight.peak_rss_after_10s as f64 / 1024.0,
        rss_kib() as f64 / 1024.0
    );
}
