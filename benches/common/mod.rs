//! Helpers the benches share: one timer, and the lot benches' fingerprint.

// Each bench uses the part it needs.
#![allow(dead_code)]

use bevy_relief::city::lots::Lot;
use std::hint::black_box;
use std::time::Instant;

/// The median and the minimum wall time (ms; the minimum is the steadier
/// figure on a shared machine) of `runs` calls (at least one), and the
/// last result. The previous result is dropped before the clock starts.
pub fn time_ms<T>(runs: usize, mut f: impl FnMut() -> T) -> (f64, f64, T) {
    let mut last = None;
    let mut t: Vec<f64> = (0..runs.max(1))
        .map(|_| {
            drop(last.take());
            let start = Instant::now();
            last = Some(black_box(f()));
            start.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0], last.expect("at least one run"))
}

/// An FNV-1a hash of every lot's block, outline, footprint and height, to
/// tell bit-identical output from changed output.
pub fn fingerprint(lots: &[Lot]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |v: u64| {
        for b in v.to_le_bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    };
    for l in lots {
        eat(l.block as u64);
        eat(l.polygon.len() as u64);
        l.polygon.iter().for_each(|p| {
            eat(p.x.to_bits());
            eat(p.y.to_bits());
        });
        if let Some(b) = &l.building {
            eat(b.footprint.len() as u64);
            b.footprint.iter().for_each(|p| {
                eat(p.x.to_bits());
                eat(p.y.to_bits());
            });
            eat(b.height.to_bits());
        }
    }
    h
}
