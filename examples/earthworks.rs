//! Earthworks figures: how steep the roads are and how much the buildings'
//! ground drops on the natural ground ("natural") and as built ("built"),
//! per road class, with the earthworks' volumes, the structures and the
//! timings of a region and of the built ground's grid.
//!
//! `cargo run --release --no-default-features --example earthworks -- [--tiles N] [--tile M]`
//! measures N × N tiles of M metres from (0, −6000) (default 3 × 3 tiles of
//! 8000 m: the reference square (0, −6000)–(24000, 18000)), counting each road
//! piece in the tile that holds its middle.

use bevy_relief::network::RoadClass;
use bevy_relief::terrain::{LaidGround, Terrain};
use bevy_relief::world::{Region, RoadSystem, RoadSystemParams, StructureKind};
use glam::DVec2;
use std::time::Instant;

/// Samples of one class.
#[derive(Default)]
struct Class {
    length: f64,
    grades: Vec<f64>,
    cross: Vec<f64>,
    cut: f64,
    fill: f64,
}

#[derive(Default)]
struct Figures {
    classes: [Class; 5],
    drops: Vec<f64>,
    bridges: usize,
    tunnels: usize,
    walls: usize,
    over_fill: usize,
    over_cut: usize,
    wall_heights: Vec<f64>,
}

fn class_index(c: RoadClass) -> usize {
    match c {
        RoadClass::Highway => 0,
        RoadClass::Road | RoadClass::Track => 1,
        RoadClass::Street => 2,
        RoadClass::Path => 3,
    }
}

const NAMES: [&str; 4] = [
    "highways",
    "country roads",
    "streets (drivable)",
    "footways (steps)",
];

fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// Samples the region's roads every 5 m (pieces whose middle lies in the
/// tile), on the natural ground and as built.
fn measure(region: &Region, terrain: &Terrain, built: bool, f: &mut Figures) {
    let (min, max) = (region.min, region.max);
    let inside = |p: DVec2| p.cmpge(min).all() && p.cmplt(max).all();
    let ground: &LaidGround = &region.ground;
    let e = bevy_relief::world::EarthworkParams::default();
    let in_structure: Vec<Vec<(usize, usize)>> = {
        let mut v = vec![Vec::new(); region.network.roads.len()];
        for s in &region.structures {
            if let (Some(r), StructureKind::Bridge | StructureKind::Tunnel) = (s.road, s.kind) {
                let pts = &region.network.roads[r].points;
                let first = pts
                    .iter()
                    .position(|p| p.x == s.line[0].x && p.y == s.line[0].y);
                if let Some(first) = first {
                    v[r].push((first, first + s.line.len() - 1));
                }
            }
        }
        v
    };
    for (ri, r) in region.network.roads.iter().enumerate() {
        let c = &mut f.classes[class_index(r.class)];
        let half = r.width / 2.0;
        for k in 0..r.points.len() - 1 {
            let (a, b) = (r.points[k], r.points[k + 1]);
            if !inside(a.lerp(b, 0.5)) {
                continue;
            }
            let len = a.distance(b);
            c.length += len;
            let on_structure = in_structure[ri].iter().any(|&(i, j)| i <= k && k < j);
            let n = (len / 5.0).ceil().max(1.0) as usize;
            let dir = (b - a).normalize_or_zero();
            let side = dir.perp() * half;
            let z = |t: f64| {
                if built && r.has_profile() {
                    r.z[k] + t * (r.z[k + 1] - r.z[k])
                } else {
                    let p = a.lerp(b, t);
                    terrain.height(p.x, p.y)
                }
            };
            for s in 0..n {
                let (t0, t1) = (s as f64 / n as f64, (s + 1) as f64 / n as f64);
                c.grades.push((z(t1) - z(t0)).abs() / (len / n as f64));
                let p = a.lerp(b, (t0 + t1) / 2.0);
                let (l, rr) = (p + side * 0.999, p - side * 0.999);
                let h = |q: DVec2| {
                    if built {
                        ground.height(q.x, q.y)
                    } else {
                        terrain.height(q.x, q.y)
                    }
                };
                if !on_structure {
                    c.cross.push((h(l) - h(rr)).abs() / r.width);
                }
                if built && r.has_profile() && !on_structure {
                    let d = z((t0 + t1) / 2.0) - terrain.height(p.x, p.y);
                    let w = r.width + 2.0 * e.shoulder;
                    let seg = len / n as f64;
                    if d > 0.0 {
                        c.fill += seg * d * (w + d * e.fill_slope);
                        f.over_fill += usize::from(d > e.max_fill);
                    } else {
                        c.cut += seg * -d * (w - d * e.cut_slope);
                        f.over_cut += usize::from(-d > e.max_cut);
                    }
                }
            }
        }
    }
    for l in &region.layouts {
        for b in l.buildings() {
            let c = b.footprint.iter().sum::<DVec2>() / b.footprint.len() as f64;
            if !inside(c) {
                continue;
            }
            let hs: Vec<f64> = (b.footprint.iter().chain([&c]))
                .map(|q| {
                    if built {
                        ground.height(q.x, q.y)
                    } else {
                        terrain.height(q.x, q.y)
                    }
                })
                .collect();
            let drop = if built {
                hs.iter().map(|h| (h - b.base).abs()).fold(0.0, f64::max)
            } else {
                hs.iter().fold(f64::MIN, |a, &b| a.max(b))
                    - hs.iter().fold(f64::MAX, |a, &b| a.min(b))
            };
            f.drops.push(drop);
        }
    }
    if built {
        for s in &region.structures {
            let mid = DVec2::new(s.line[s.line.len() / 2].x, s.line[s.line.len() / 2].y);
            if !inside(mid) {
                continue;
            }
            match s.kind {
                StructureKind::Bridge => f.bridges += 1,
                StructureKind::Tunnel => f.tunnels += 1,
                StructureKind::Wall => {
                    f.walls += 1;
                    let h = (s.line.iter().zip(&s.foot))
                        .map(|(q, foot)| q.z - foot)
                        .fold(0.0, f64::max);
                    f.wall_heights.push(h);
                }
            }
        }
    }
}

fn report(name: &str, f: &mut Figures, built: bool) {
    println!("\n## {name}");
    println!(
        "| class | km | grade p50 | grade p95 | max | > 12.1 % | cross p50 | cross p95 | cut m³/km | fill m³/km |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let mut km = 0.0;
    for (i, c) in f.classes.iter_mut().enumerate().take(4) {
        if c.length == 0.0 {
            continue;
        }
        km += c.length / 1000.0;
        let steep = c.grades.iter().filter(|&&g| g > 0.121).count() as f64 / c.grades.len() as f64;
        let max = c.grades.iter().fold(0.0f64, |a, &b| a.max(b));
        println!(
            "| {} | {:.0} | {:.1} % | {:.1} % | {:.1} % | {:.0} % | {:.1} % | {:.1} % | {:.0} | {:.0} |",
            NAMES[i],
            c.length / 1000.0,
            100.0 * percentile(&mut c.grades, 0.5),
            100.0 * percentile(&mut c.grades, 0.95),
            100.0 * max,
            100.0 * steep,
            100.0 * percentile(&mut c.cross, 0.5),
            100.0 * percentile(&mut c.cross, 0.95),
            c.cut / (c.length / 1000.0),
            c.fill / (c.length / 1000.0),
        );
    }
    let n = f.drops.len();
    let over3 = f.drops.iter().filter(|&&d| d > 3.0).count();
    let over01 = f.drops.iter().filter(|&&d| d > 0.1).count();
    println!(
        "buildings: {n}; ground {} p50 {:.2} m, p90 {:.2} m, max {:.2} m; over 3 m: {over3}; over 0.1 m: {over01}",
        if built {
            "off the base"
        } else {
            "drop corner to corner"
        },
        percentile(&mut f.drops, 0.5),
        percentile(&mut f.drops, 0.9),
        f.drops.iter().fold(0.0f64, |a, &b| a.max(b)),
    );
    if built {
        let per = 100.0 / km.max(1e-9);
        println!(
            "structures per 100 km of road: {:.1} bridges, {:.1} tunnels, {:.1} walls ({} / {} / {} over {km:.0} km); \
             samples past max_fill / max_cut off structures: {} / {}",
            f.bridges as f64 * per,
            f.tunnels as f64 * per,
            f.walls as f64 * per,
            f.bridges,
            f.tunnels,
            f.walls,
            f.over_fill,
            f.over_cut,
        );
        let m = f.wall_heights.iter().fold(0.0f64, |a, &b| a.max(b));
        println!(
            "walls' height: p50 {:.1} m, p90 {:.1} m, max {m:.1} m",
            percentile(&mut f.wall_heights, 0.5),
            percentile(&mut f.wall_heights, 0.9),
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str, default: f64| {
        (args.iter().position(|a| a == name))
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (tiles, tile) = (arg("--tiles", 3.0) as i64, arg("--tile", 8000.0));
    let terrain = Terrain::default();
    let mut natural = Figures::default();
    let mut built = Figures::default();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let mut times = Vec::new();
    for j in 0..tiles {
        for i in 0..tiles {
            let min = DVec2::new(i as f64 * tile, -6000.0 + j as f64 * tile);
            let max = min + DVec2::splat(tile);
            let t = Instant::now();
            let region = sys.region(&terrain, min, max).unwrap();
            times.push(t.elapsed().as_secs_f64());
            measure(&region, &terrain, false, &mut natural);
            measure(&region, &terrain, true, &mut built);
        }
    }
    println!(
        "{} tiles of {tile} m: region {:.2} s total ({:.2} s the slowest)",
        times.len(),
        times.iter().sum::<f64>(),
        times.iter().fold(0.0f64, |a, &b| a.max(b))
    );
    report("On the natural ground (as before)", &mut natural, false);
    report("As built", &mut built, true);
}
