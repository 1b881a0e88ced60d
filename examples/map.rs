//! Draws an orienteering-style map of the terrain to a PNG file.
//!
//! `cargo run --release --example map -- --x 19000 --y 1260 --width 800 --height 600 --out map.png`
//!
//! Options: `--scale M` metres per pixel (default 1), `--no-roads`, `--seed S`
//! for a random world instead of the reference one.

use bevy_relief::map::{MapLayers, MapStyle, render_map};
use bevy_relief::roads::{ContourParams, ContourRoads};
use bevy_relief::terrain::{Terrain, TerrainParams};
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

fn run() -> Result<(), String> {
    let (mut x, mut y, mut w, mut h, mut scale) = (19000.0, 1260.0, 800usize, 600usize, 1.0);
    let (mut out, mut roads, mut seed) = ("map.png".to_string(), true, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--x" => x = val()?.parse().map_err(|e| format!("--x: {e}"))?,
            "--y" => y = val()?.parse().map_err(|e| format!("--y: {e}"))?,
            "--width" => w = val()?.parse().map_err(|e| format!("--width: {e}"))?,
            "--height" => h = val()?.parse().map_err(|e| format!("--height: {e}"))?,
            "--scale" => scale = val()?.parse().map_err(|e| format!("--scale: {e}"))?,
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
    let start = Instant::now();
    let net = roads.then(|| {
        let c = ContourRoads::new(ContourParams::default()).expect("defaults are valid");
        c.generate(&terrain, centre - half, centre + half)
    });
    let t_roads = start.elapsed();
    let streams = terrain
        .streams_in(centre - half, centre + half)
        .map_err(|e| e.to_string())?;
    let style = MapStyle {
        metres_per_pixel: scale,
        ..Default::default()
    };
    let layers = MapLayers {
        roads: net.as_ref(),
        streams: &streams,
        marker: None,
    };
    let img = render_map(&terrain, centre, w, h, &style, layers)?;
    let png = img.to_png()?;
    std::fs::write(&out, png).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "{out}: {w} x {h} px at {scale} m/px around ({x}, {y}); {} roads in {:.1} ms, {} streams; {:.0} ms in all",
        net.as_ref().map_or(0, |n| n.roads.len()),
        t_roads.as_secs_f64() * 1e3,
        streams.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    Ok(())
}
