//! A picture of one city: streets by level, blocks, lots and buildings.
//!
//! ```text
//! cargo run --release --no-default-features --example city -- [--out city.png]
//!     [--seed N] [--levels N] [--world IX,IY] [--width PX]
//! ```
//!
//! Without `--world`, the article's setting: a ring road (an ellipse of
//! 1,000 × 800 m) filled with three levels of planar-graph streets. With
//! `--world IX,IY`, the city of that settlement cell on the default terrain,
//! laid out as the world lays it out (its footprint, the highways at its
//! gates, lakes and steep ground kept free). Prints counts and times.

use bevy_relief::city::lots::{LotParams, subdivide};
use bevy_relief::city::planar::{PlanarParams, PlanarStreets};
use bevy_relief::city::{Streets, StreetsInput};
use bevy_relief::map::Sketch;
use bevy_relief::terrain::Terrain;
use bevy_relief::{
    network::RoadClass,
    world::{RoadSystem, RoadSystemParams},
};
use glam::DVec2;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("city: {e}");
            ExitCode::FAILURE
        }
    }
}

struct Args {
    out: String,
    seed: u64,
    levels: usize,
    world: Option<(i64, i64)>,
    width: usize,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        out: "city.png".into(),
        seed: 7,
        levels: 3,
        world: None,
        width: 1600,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let num = |s: String| s.parse::<u64>().map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--out" => a.out = value()?,
            "--seed" => a.seed = num(value()?)?,
            "--levels" => a.levels = num(value()?)? as usize,
            "--width" => a.width = num(value()?)? as usize,
            "--world" => {
                let v = value()?;
                let (x, y) = v.split_once(',').ok_or("--world wants IX,IY")?;
                let p = |s: &str| s.trim().parse::<i64>().map_err(|e| format!("--world: {e}"));
                a.world = Some((p(x)?, p(y)?));
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(a)
}

fn run() -> Result<(), String> {
    let a = args()?;
    let t0 = Instant::now();
    let (streets, lots, title) = match a.world {
        None => {
            let ring: Vec<DVec2> = (0..64)
                .map(|i| {
                    let t = i as f64 / 64.0 * std::f64::consts::TAU;
                    DVec2::new(1000.0 * t.cos(), 800.0 * t.sin())
                })
                .collect();
            let mut params = PlanarParams {
                seed: a.seed,
                ..PlanarParams::default()
            };
            params.levels.truncate(a.levels.max(1));
            let input = StreetsInput {
                boundary: ring,
                ..StreetsInput::default()
            };
            let streets = PlanarStreets::new(params)
                .map_err(|e| e.to_string())?
                .generate(&input)
                .map_err(|e| e.to_string())?;
            let t = t0.elapsed();
            let lots = subdivide(
                &streets,
                &LotParams {
                    radius: 1000.0,
                    ..LotParams::default()
                },
            );
            println!(
                "ring 1000 x 800 m, seed {}: streets {:.1} ms, lots {:.1} ms",
                a.seed,
                t.as_secs_f64() * 1e3,
                (t0.elapsed() - t).as_secs_f64() * 1e3
            );
            (streets, lots, format!("ring 1000 x 800 m, seed {}", a.seed))
        }
        Some(id) => {
            let terrain = Terrain::default();
            let sys = RoadSystem::new(RoadSystemParams::default()).map_err(|e| e.to_string())?;
            let city = sys
                .settlements()
                .city_at(&terrain, id)
                .ok_or(format!("no city in cell {id:?}"))?;
            let layout = sys.layout(&terrain, &city).map_err(|e| e.to_string())?;
            println!(
                "city {id:?} ({:?}, centre {:.0}, radius {:.0} m) with its highways: {:.0} ms",
                city.style,
                city.centre,
                city.radius,
                t0.elapsed().as_secs_f64() * 1e3
            );
            let title = format!("city {} {}, {:?}", id.0, id.1, city.style);
            (layout.streets.clone(), layout.lots.clone(), title)
        }
    };
    let g = &streets.graph;
    let buildings = lots.iter().filter(|l| l.building.is_some()).count();
    println!(
        "{} nodes, {} edges, {} blocks, {} lots, {} buildings",
        g.node_count(),
        g.edge_count(),
        streets.blocks.len(),
        lots.len(),
        buildings
    );
    println!("{title}");
    draw(&streets, &lots, &a)
}

fn draw(streets: &Streets, lots: &[bevy_relief::city::lots::Lot], a: &Args) -> Result<(), String> {
    let (lo, hi) = streets.graph.bounds();
    let pad = DVec2::splat(60.0);
    let mut s = Sketch::new(lo - pad, hi + pad, a.width, [246, 244, 236])?;
    for o in &streets.obstacles {
        s.polygon(o, [170, 205, 230]);
    }
    for b in &streets.blocks {
        s.polygon(b, [232, 226, 206]);
    }
    for l in lots {
        s.polygon(&l.polygon, [214, 206, 180]);
        s.outline(&l.polygon, 1.0, [246, 244, 236]);
    }
    for b in lots.iter().filter_map(|l| l.building.as_ref()) {
        s.polygon(&b.footprint, [120, 62, 48]);
    }
    // Roads, the widest on top; streets darker the wider (the level).
    let mut roads: Vec<_> = streets.network.roads.iter().collect();
    roads.sort_by(|x, y| x.width.total_cmp(&y.width));
    for r in roads {
        let color = match r.class {
            RoadClass::Highway => [150, 60, 20],
            RoadClass::Street => {
                let v = (150.0 - 14.0 * r.width).clamp(40.0, 160.0) as u8;
                [v, v, v]
            }
            _ => [25, 25, 25],
        };
        s.line(&r.points, r.width, color);
    }
    let png = s.to_png()?;
    std::fs::write(&a.out, png).map_err(|e| format!("{}: {e}", a.out))?;
    println!("wrote {}", a.out);
    Ok(())
}
