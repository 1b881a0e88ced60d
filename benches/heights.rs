//! Height-field throughput on a 1024 × 1024 grid, side by side in one run:
//! `Terrain::heights_grid` (each kernel), `Terrain::height` per sample, and
//! `noise::Fbm<Perlin>` with 5 octaves per sample.
//!
//! `cargo bench --no-default-features --bench heights`
//!
//! Rounds interleave the methods so that machine noise hits them alike; each
//! figure is the median over rounds, in nanoseconds per sample.

use bevy_relief::terrain::{GridKernel, Terrain};
use noise::{Fbm, MultiFractal, NoiseFn, Perlin};
use std::hint::black_box;
use std::time::Instant;

const N: usize = 1024;
const X0: f64 = 18000.0;
const Y0: f64 = 1000.0;
const STEP: f64 = 1.0;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    let t = Terrain::default();
    let fbm: Fbm<Perlin> = Fbm::new(0).set_octaves(5);
    let mut out = Vec::with_capacity(N * N);
    let kernels: Vec<GridKernel> = GridKernel::ALL
        .into_iter()
        .filter(|k| k.available())
        .collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); kernels.len() + 3];
    let per_sample = |start: Instant| start.elapsed().as_secs_f64() * 1e9 / (N * N) as f64;
    for _ in 0..rounds {
        let s = Instant::now();
        t.heights_grid(X0, Y0, STEP, N, N, &mut out).unwrap();
        black_box(&out);
        times[0].push(per_sample(s));
        for (i, &k) in kernels.iter().enumerate() {
            let s = Instant::now();
            t.heights_grid_with(k, X0, Y0, STEP, N, N, &mut out)
                .unwrap();
            black_box(&out);
            times[3 + i].push(per_sample(s));
        }
        let s = Instant::now();
        for j in 0..N {
            let y = Y0 + j as f64 * STEP;
            for i in 0..N {
                out[j * N + i] = t.height(black_box(X0 + i as f64 * STEP), y);
            }
        }
        black_box(&out);
        times[1].push(per_sample(s));
        let s = Instant::now();
        for j in 0..N {
            let y = (Y0 + j as f64 * STEP) / 256.0;
            for i in 0..N {
                out[j * N + i] = fbm.get([black_box((X0 + i as f64 * STEP) / 256.0), y]);
            }
        }
        black_box(&out);
        times[2].push(per_sample(s));
    }
    let grid = median(&mut times[0]);
    let height = median(&mut times[1]);
    let fbm_ns = median(&mut times[2]);
    println!("1024 x 1024 grid, median of {rounds} interleaved rounds, ns per sample:");
    println!("  heights_grid ({:?}): {grid:7.2}", t.grid_kernel());
    for (i, k) in kernels.iter().enumerate() {
        println!(
            "    kernel {:<8} {:7.2}",
            format!("{k:?}:"),
            median(&mut times[3 + i])
        );
    }
    println!("  height per sample:  {height:7.2}");
    println!("  Fbm<Perlin> 5 oct:  {fbm_ns:7.2}");
    println!(
        "ratios: Fbm/grid = {:.1}x, Fbm/height = {:.1}x, height/grid = {:.1}x",
        fbm_ns / grid,
        fbm_ns / height,
        height / grid
    );
}
