//! Draws an orienteering-style map of the terrain to a PNG file: the
//! default road system's cities (settlement areas), highways and roads.
//!
//! `cargo run --release --no-default-features --example map -- --x 9852 --y 4800 --width 1200 --height 900 --scale 3 --out map.png`
//!
//! Options: `--scale M` metres per pixel (default 1), `--contour M` contour
//! interval (default 5 m per metre-per-pixel, rounded up to 5, 10, 20, 25,
//! 50, …, so contours stay apart at coarse scales), `--no-roads`,
//! `--seed S` for a random world instead of the reference one.

use bevy_relief::map::{MapLayers, MapStyle, render_map};
use bevy_relief::terrain::{Terrain, TerrainParams};
use bevy_relief::world::{RoadSystem, RoadSystemParams};
use glam::DVec2;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("map: {e}");
            ExitCode::from(2)
        }
    }
}

/// The default contour interval at `scale` m/px: 5 m at 1 m/px or finer,
/// else 5·scale rounded up to a round interval.
fn default_interval(scale: f64) -> f64 {
    let want = 5.0 * scale.max(1.0);
    [
        5.0, 10.0, 20.0, 25.0, 50.0, 100.0, 200.0, 250.0, 500.0, 1000.0,
    ]
    .into_iter()
    .find(|&v| v >= want)
    .unwrap_or(1000.0)
}

fn run() -> Result<(), String> {
    let (mut x, mut y, mut w, mut h, mut scale) = (19000.0, 1260.0, 800usize, 600usize, 1.0);
    let (mut out, mut roads, mut seed, mut contour) = ("map.png".to_string(), true, None, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--x" => x = val()?.parse().map_err(|e| format!("--x: {e}"))?,
            "--y" => y = val()?.parse().map_err(|e| format!("--y: {e}"))?,
            "--width" => w = val()?.parse().map_err(|e| format!("--width: {e}"))?,
            "--height" => h = val()?.parse().map_err(|e| format!("--height: {e}"))?,
            "--scale" => scale = val()?.parse().map_err(|e| format!("--scale: {e}"))?,
            "--contour" => contour = Some(val()?.parse().map_err(|e| format!("--contour: {e}"))?),
            "--out" => out = val()?,
            "--seed" => seed = Some(val()?.parse::<u64>().map_err(|e| format!("--seed: {e}"))?),
            "--no-roads" => roads = false,
            _ => return Err(format!("unknown argument {a}")),
        }
    }
    let params = match seed {
        Some(s) => TerrainParams::random(s, 256).map_err(|e| e.to_string())?,
        None => TerrainParams::default(),
    };
    let terrain = Terrain::new(params).map_err(|e| e.to_string())?;
    let centre = DVec2::new(x, y);
    let half = DVec2::new(w as f64, h as f64) * scale / 2.0;
    let (min, max) = (centre - half, centre + half);
    let start = Instant::now();
    let system = RoadSystem::new(RoadSystemParams::default()).map_err(|e| e.to_string())?;
    let (cities, net) = if roads {
        let region = (system.region(&terrain, min, max)).map_err(|e| format!("roads: {e}"))?;
        (region.cities, Some(region.network))
    } else {
        (system.settlements().cities_in(&terrain, min, max), None)
    };
    let t_roads = start.elapsed();
    let streams = terrain.streams_in(min, max).map_err(|e| e.to_string())?;
    let style = MapStyle {
        metres_per_pixel: scale,
        contour_interval: contour.unwrap_or_else(|| default_interval(scale)),
        ..Default::default()
    };
    let layers = MapLayers {
        roads: net.as_deref(),
        streams: &streams,
        marker: None,
        cities: &cities,
        buildings: &[],
    };
    let img = render_map(&terrain, centre, w, h, &style, layers)?;
    let png = img.to_png()?;
    std::fs::write(&out, png).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "{out}: {w} x {h} px at {scale} m/px around ({x}, {y}), contours every {} m; {} cities and {} roads in {:.1} ms, {} streams; {:.0} ms in all",
        style.contour_interval,
        cities.len(),
        net.as_ref().map_or(0, |n| n.roads.len()),
        t_roads.as_secs_f64() * 1e3,
        streams.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
