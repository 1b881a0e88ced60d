//! Tensor-field streets on the reference scenario, side by side with
//! ProbableTrain/MapGenerator (`../shared/peers/mapgen`, node): a 2000 ×
//! 2000 m square, a grid (centre (1000, 1000), size 2000, decay 2, θ 0.3)
//! and a radial field (centre (1300, 700), size 400, decay 5), the default
//! three levels, seed 42. Ours: median and minimum of several runs of the
//! tracing (integration, seeding, joins; the peer's timed span) plus
//! simplification, and of the whole `generate` (also noding, the planar
//! graph and its blocks); lines per level and street lengths for both.
//!
//! `cargo bench --no-default-features --bench tensor [-- RUNS] [--no-peer]
//! [--tolerance T]` (`--no-peer` skips the peer, e.g. under callgrind;
//! `--generate-only` times only `generate`, for `perf stat`; `--trace-only`
//! times only trace+simplify and prints the raw points' fingerprint; `--tolerance`
//! sets every level's integration tolerance, 0 for fixed steps)

mod common;

use bevy_relief::city::StreetsInput;
use bevy_relief::city::tensor::{
    BasisField, Level, TensorField, TensorParams, TensorStreets, TracedStreets,
};
use common::time_ms;
use glam::DVec2;
use std::path::Path;
use std::process::Command;

const PEER: &str = "/work/shared/peers/mapgen/bench.js";

/// What the peer printed: min and median ms, lines per level, raw points.
struct Peer {
    min: f64,
    median: f64,
    lines: [usize; 3],
    raw_points: usize,
    simplified_points: usize,
}

/// Runs the peer and parses its summary line
/// (`mapgen 2km: min X ms, median Y ms over N runs; lines main/major/minor = a/b/c; points = P (…; raw R)`).
fn run_peer(runs: usize) -> Option<Peer> {
    if !Path::new(PEER).exists() {
        println!("peer: {PEER} not found, skipped");
        return None;
    }
    let out = Command::new("node")
        .args([PEER, "--scenario", "2km", "--runs", &runs.to_string()])
        .output()
        .map_err(|e| println!("peer: node did not run ({e}), skipped"))
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.starts_with("mapgen 2km:"))?;
    let num_after = |key: &str| -> Option<f64> {
        let rest = &line[line.find(key)? + key.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        rest[..end].parse().ok()
    };
    let lines_text = &line[line.find("= ")? + 2..];
    let mut lines = [0usize; 3];
    for (slot, part) in lines.iter_mut().zip(lines_text.split(['/', ';'])) {
        *slot = part.trim().parse().ok()?;
    }
    Some(Peer {
        min: num_after("min ")?,
        median: num_after("median ")?,
        lines,
        raw_points: num_after("raw ")? as usize,
        simplified_points: num_after("points = ")? as usize,
    })
}

/// An FNV-1a hash of every raw point's bits, to tell the same streets
/// from changed ones.
fn fingerprint(traced: &TracedStreets) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for p in traced.lines.iter().flat_map(|l| &l.points) {
        for b in [p.x.to_bits(), p.y.to_bits()]
            .iter()
            .flat_map(|v| v.to_le_bytes())
        {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    hash
}

fn main() {
    let runs: usize = std::env::args()
        .skip(1)
        .take_while(|a| a != "--tolerance")
        .find_map(|a| a.parse().ok())
        .unwrap_or(15);
    let mut field = TensorField::default();
    field.add(BasisField::grid(
        DVec2::new(1000.0, 1000.0),
        2000.0,
        2.0,
        0.3,
    ));
    field.add(BasisField::radial(DVec2::new(1300.0, 700.0), 400.0, 5.0));
    let input = StreetsInput {
        boundary: vec![
            DVec2::ZERO,
            DVec2::new(2000.0, 0.0),
            DVec2::new(2000.0, 2000.0),
            DVec2::new(0.0, 2000.0),
        ],
        ..StreetsInput::default()
    };
    let mut params = TensorParams {
        seed: 42,
        ..TensorParams::default()
    };
    // `--tolerance T`: every level's integration tolerance (0: fixed steps).
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--tolerance") {
        let t: f64 = (args.get(i + 1).and_then(|t| t.parse().ok())).expect("--tolerance T");
        for level in [&mut params.main, &mut params.major, &mut params.minor] {
            level.tolerance = t;
        }
    }
    let gen_ = TensorStreets::new(params).expect("valid parameters");

    if std::env::args().any(|a| a == "--generate-only") {
        let (g_med, g_min, _) = time_ms(runs, || gen_.generate(&field, &input).expect("generates"));
        println!("ours  generate: median {g_med:.1} ms, min {g_min:.1} ms");
        return;
    }
    if std::env::args().any(|a| a == "--trace-only") {
        let (t_med, t_min, (traced, _)) = time_ms(runs, || {
            let t = gen_.trace(&field, &input).expect("traces");
            let simple = t.simplified();
            (t, simple)
        });
        println!("ours  trace+simplify: median {t_med:.1} ms, min {t_min:.1} ms");
        println!(
            "ours  raw points' fingerprint {:016x}",
            fingerprint(&traced)
        );
        return;
    }
    let (t_med, t_min, traced) = time_ms(runs, || {
        let t = gen_.trace(&field, &input).expect("traces");
        let simple = t.simplified();
        (t, simple)
    });
    let (g_med, g_min, streets) =
        time_ms(runs, || gen_.generate(&field, &input).expect("generates"));
    let (c_med, c_min, _) = time_ms(runs, || {
        let pad = DVec2::splat(10.0);
        (field.sampled(-pad, DVec2::splat(2000.0) + pad, 5.0)).expect("samples")
    });
    let (traced, simple) = traced;
    let (t_only, _, _) = time_ms(runs, || gen_.trace(&field, &input).expect("traces"));
    let (s_only, _, _) = time_ms(runs, || traced.simplified());
    let (n_only, _, graph) = time_ms(runs, || traced.graph());
    let (b_only, _, _) = time_ms(runs, || {
        bevy_relief::city::Streets::from_graph(
            &graph,
            traced.obstacles.clone(),
            bevy_relief::city::EdgeRole::default_style,
        )
    });

    println!("tensor streets, 2 × 2 km reference scenario, seed 42, {runs} runs");
    println!("ours  trace+simplify: median {t_med:.1} ms, min {t_min:.1} ms");
    println!(
        "ours  generate (also noding, graph, blocks): median {g_med:.1} ms, min {g_min:.1} ms"
    );
    println!("ours  of which the eigen-field cache (5 m): median {c_med:.1} ms, min {c_min:.1} ms");
    println!(
        "ours  phases (medians): trace {t_only:.1} ms, simplify {s_only:.1} ms, simplify+noding {n_only:.1} ms, network+blocks {b_only:.1} ms"
    );
    let mut raw = 0.0;
    let mut raw_pts = 0;
    for level in Level::ALL {
        let simple_len: f64 = (simple.iter())
            .filter(|(_, l)| *l == level)
            .map(|(p, _)| p.windows(2).map(|w| w[0].distance(w[1])).sum::<f64>())
            .sum();
        let simple_pts: usize = (simple.iter())
            .filter(|(_, l)| *l == level)
            .map(|(p, _)| p.len())
            .sum();
        println!(
            "ours  {level:?}: {} lines, raw {:.1} km ({} points), simplified {:.1} km ({simple_pts} points)",
            traced.of(level).count(),
            traced.raw_length(level) / 1e3,
            traced.raw_points(level),
            simple_len / 1e3,
        );
        raw += traced.raw_length(level);
        raw_pts += traced.raw_points(level);
    }
    println!(
        "ours  raw points' fingerprint {:016x}",
        fingerprint(&traced)
    );
    let final_len: f64 = (streets.network.roads.iter()).map(|r| r.length()).sum();
    println!(
        "ours  total raw {:.1} km ({raw_pts} points); final network {:.1} km incl. the 8 km ring, {} roads, {} blocks, {} junctions",
        raw / 1e3,
        final_len / 1e3,
        streets.network.roads.len(),
        streets.blocks.len(),
        streets.network.junctions.len(),
    );
    if std::env::args().any(|a| a == "--no-peer") {
        return;
    }
    let Some(peer) = run_peer(10) else {
        return;
    };
    println!(
        "peer  mapgen (node): median {:.1} ms, min {:.1} ms; lines {}/{}/{}; raw {} points ≈ {:.1} km at dstep 1; {} simplified points",
        peer.median,
        peer.min,
        peer.lines[0],
        peer.lines[1],
        peer.lines[2],
        peer.raw_points,
        peer.raw_points as f64 / 1e3,
        peer.simplified_points,
    );
    println!(
        "ratio peer/ours: trace+simplify min {:.1}×, median {:.1}×; whole generate min {:.1}×, median {:.1}×",
        peer.min / t_min,
        peer.median / t_med,
        peer.min / g_min,
        peer.median / g_med,
    );
    println!(
        "raw length ours/peer: {:.3} (raw points {raw_pts} vs {})",
        raw / peer.raw_points as f64,
        peer.raw_points,
    );
}
