//! A picture of tensor-field streets over their field.
//!
//! ```text
//! cargo run --release --no-default-features --example tensor -- [--out tensor.png]
//!     [--seed N] [--world IX,IY]
//! ```
//!
//! Without `--world`, the reference scenario: a 2,000 m square, a grid
//! field (centre (1000, 1000), size 2000, decay 2, 0.3 rad) and a radial one
//! (centre (1300, 700), size 400, decay 5), the default three levels. With
//! `--world IX,IY`, the planned city of that settlement cell on the default
//! terrain, its field as the world designs it. The field is drawn as a
//! cross-hatch (major orange, minor blue) under the streets.

use bevy_relief::city::tensor::{BasisField, TensorField, TensorParams, TensorStreets};
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
            eprintln!("tensor: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let (mut out, mut seed, mut world) = ("tensor.png".to_string(), 42u64, None);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--out" => out = value,
            "--seed" => seed = value.parse().map_err(|e| format!("--seed: {e}"))?,
            "--world" => {
                let (x, y) = value.split_once(',').ok_or("--world wants IX,IY")?;
                let p = |s: &str| s.trim().parse::<i64>().map_err(|e| format!("--world: {e}"));
                world = Some((p(x)?, p(y)?));
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    let t0 = Instant::now();
    let (field, streets) = match world {
        None => {
            let mut field = TensorField::default();
            field.add(BasisField::grid(DVec2::splat(1000.0), 2000.0, 2.0, 0.3));
            field.add(BasisField::radial(DVec2::new(1300.0, 700.0), 400.0, 5.0));
            let input = StreetsInput {
                boundary: [(0., 0.), (2000., 0.), (2000., 2000.), (0., 2000.)]
                    .map(|(x, y)| DVec2::new(x, y))
                    .into(),
                ..StreetsInput::default()
            };
            let params = TensorParams {
                seed,
                ..TensorParams::default()
            };
            let streets = TensorStreets::new(params)
                .map_err(|e| e.to_string())?
                .generate(&field, &input)
                .map_err(|e| e.to_string())?;
            (field, streets)
        }
        Some(id) => {
            let terrain = Terrain::default();
            let sys = RoadSystem::new(RoadSystemParams::default()).map_err(|e| e.to_string())?;
            let city =
                (sys.settlements().city_at(&terrain, id)).ok_or(format!("no city in {id:?}"))?;
            let layout = sys.layout(&terrain, &city).map_err(|e| e.to_string())?;
            let field = (layout.field.clone()).ok_or(format!("city {id:?} is not planned"))?;
            (field, layout.streets.clone())
        }
    };
    let length: f64 = streets.network.roads.iter().map(|r| r.length()).sum();
    println!(
        "{:.0} ms: {} roads, {:.1} km, {} blocks",
        t0.elapsed().as_secs_f64() * 1e3,
        streets.network.roads.len(),
        length / 1000.0,
        streets.blocks.len()
    );
    draw(&field, &streets, &out)
}

fn draw(field: &TensorField, streets: &Streets, out: &str) -> Result<(), String> {
    let (lo, hi) = streets.graph.bounds();
    let pad = DVec2::splat(40.0);
    let mut s = Sketch::new(lo - pad, hi + pad, 1600, [250, 249, 245])?;
    for o in &streets.obstacles {
        s.polygon(o, [170, 205, 230]);
    }
    // The cross-hatch: a stroke along each eigenvector every 25 m.
    let step = 25.0;
    let (nx, ny) = (
        ((hi.x - lo.x) / step) as usize,
        ((hi.y - lo.y) / step) as usize,
    );
    for j in 0..=ny {
        for i in 0..=nx {
            let p = lo + DVec2::new(i as f64, j as f64) * step;
            for (d, c) in [
                (field.major(p), [245, 170, 110]),
                (field.minor(p), [140, 175, 240]),
            ] {
                if let Some(d) = d {
                    s.line(&[p - d * 8.0, p + d * 8.0], 1.5, c);
                }
            }
        }
    }
    let mut roads: Vec<_> = streets.network.roads.iter().collect();
    roads.sort_by(|x, y| x.width.total_cmp(&y.width));
    for r in roads {
        let c = match r.class {
            RoadClass::Street => [70, 70, 70],
            RoadClass::Highway => [150, 60, 20],
            _ => [20, 20, 20],
        };
        s.line(&r.points, r.width, c);
    }
    std::fs::write(out, s.to_png()?).map_err(|e| format!("{out}: {e}"))?;
    println!("wrote {out}");
    Ok(())
}
