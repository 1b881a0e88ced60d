//! The step lanes: a growth step's arithmetic (nearest bearing, next point,
//! its cell, the near box, the town disk test, the first lake bound) for
//! eight tips at once, branch-free so that it vectorises, with AVX-512 where
//! the CPU has it.

use super::cells::{NearBox, cell_coord, near_box};
use crate::num::floor_i64;
use glam::DVec2;

/// The directions of the bearings `b`, `b − turn`, `b + turn` from the
/// direction `(ux, uy)` of `b`, by the angle-sum formulas (`turn` = sine and
/// cosine of the turn). The candidate points and the step lanes both take
/// them from here, so the direction chosen is the one whose height was taken.
#[inline(always)]
pub(super) fn candidates((ux, uy): (f64, f64), (st, ct): (f64, f64)) -> [(f64, f64); 3] {
    [
        (ux, uy),
        (ux * ct - uy * st, uy * ct + ux * st),
        (ux * ct + uy * st, uy * ct - ux * st),
    ]
}

/// Tips handled side by side in a growth step's arithmetic.
pub(super) const LANES: usize = 8;

/// Which code runs the step lanes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StepKernel {
    /// The lanes compiled for the baseline CPU.
    Plain,
    /// The same lanes compiled with AVX-512 (`floor` one instruction).
    Avx512,
}

impl StepKernel {
    /// The kernel for this CPU: AVX-512 where it has every feature that code
    /// is compiled with.
    pub(super) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f")
                && has!("avx512dq")
                && has!("avx512vl")
                && has!("avx2")
                && has!("sse4.1")
            {
                return Self::Avx512;
            }
        }
        Self::Plain
    }
}

/// What [`Steps::run`] needs besides the tips.
pub(super) struct StepConsts {
    /// The code to run them with (from [`StepKernel::detect`]).
    pub(super) kernel: StepKernel,
    /// Sine and cosine of the turn.
    pub(super) turn: (f64, f64),
    pub(super) step: f64,
    /// The cells' origin and their highest coordinates.
    pub(super) origin: DVec2,
    pub(super) last: (i64, i64),
    /// Radius of a town disk.
    pub(super) disk: f64,
    /// The lake test's steepest slope (infinite with mountains: no quick
    /// test) and the height the bound must reach.
    pub(super) steepest: f64,
    pub(super) lake_floor: f64,
}

/// The arithmetic of a growth step for [`LANES`] tips at once, lane by lane
/// without branches, so that the compiler can vectorise it (and does with
/// AVX-512, where the CPU has it). Every lane does exactly the operations of
/// one tip in order, so the results are the same bits either way.
#[derive(Default)]
pub(super) struct Steps {
    // In: the tip, its direction and height, the heights of the three
    // candidate points, the centre of its town disk.
    tip_x: [f64; LANES],
    tip_y: [f64; LANES],
    dir0_x: [f64; LANES],
    dir0_y: [f64; LANES],
    pub(super) h: [f64; LANES],
    h_cand: [[f64; 3]; LANES],
    pub(super) disk_x: [f64; LANES],
    pub(super) disk_y: [f64; LANES],
    // Out: the chosen direction, the next point, its height and cell, the
    // segment's near box, and whether the town disk holds the segment.
    pub(super) dir_x: [f64; LANES],
    pub(super) dir_y: [f64; LANES],
    pub(super) next_x: [f64; LANES],
    pub(super) next_y: [f64; LANES],
    pub(super) hb: [f64; LANES],
    pub(super) cell_x: [i64; LANES],
    pub(super) cell_y: [i64; LANES],
    pub(super) near: [NearBox; LANES],
    pub(super) within: [bool; LANES],
    /// The lake test's first, steepest-slope bound clears the segment.
    pub(super) lake_clear: [bool; LANES],
}

impl Steps {
    #[cfg(test)]
    fn load_all_from(&mut self, other: &Steps) {
        for k in 0..LANES {
            let (tip, dir) = (
                DVec2::new(other.tip_x[k], other.tip_y[k]),
                DVec2::new(other.dir0_x[k], other.dir0_y[k]),
            );
            self.load(k, tip, dir, other.h[k], &other.h_cand[k]);
            (self.disk_x[k], self.disk_y[k]) = (other.disk_x[k], other.disk_y[k]);
        }
    }

    /// Every output, as bits.
    #[cfg(test)]
    fn bits(&self) -> Vec<u64> {
        let mut out = Vec::new();
        for k in 0..LANES {
            out.extend(
                [
                    self.dir_x[k],
                    self.dir_y[k],
                    self.next_x[k],
                    self.next_y[k],
                    self.hb[k],
                ]
                .map(f64::to_bits),
            );
            out.extend([
                self.cell_x[k] as u64,
                self.cell_y[k] as u64,
                self.within[k] as u64,
                self.lake_clear[k] as u64,
            ]);
            out.extend(self.near[k].0.map(|v| v.to_bits() as u64));
        }
        out
    }

    pub(super) fn load(&mut self, k: usize, tip: DVec2, dir: DVec2, h: f64, heights: &[f64]) {
        (self.tip_x[k], self.tip_y[k]) = (tip.x, tip.y);
        (self.dir0_x[k], self.dir0_y[k]) = (dir.x, dir.y);
        self.h[k] = h;
        self.h_cand[k] = [heights[0], heights[1], heights[2]];
    }

    /// Runs the lanes with `c.kernel`; returns the kernel that ran.
    pub(super) fn run(&mut self, c: &StepConsts) -> StepKernel {
        #[cfg(target_arch = "x86_64")]
        if c.kernel == StepKernel::Avx512 {
            // SAFETY: `StepKernel::detect` found every feature it needs.
            unsafe { self.run_avx512(c) };
            return StepKernel::Avx512;
        }
        self.run_lanes(c, floor_i64);
        StepKernel::Plain
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,sse4.1")]
    unsafe fn run_avx512(&mut self, c: &StepConsts) {
        // `floor` is one instruction here; `as` saturates as `floor_i64` does.
        self.run_lanes(c, |v| v.floor() as i64);
    }

    /// The seed's `nextBearing` (of the three candidates, the one whose
    /// height is nearest the tip's, ties going straight on), the next point,
    /// its cell, the near box (see [`near_box`]), whether the town disk
    /// holds the segment, and the lake test's steepest-slope bound.
    #[inline(always)]
    fn run_lanes(&mut self, c: &StepConsts, floor: impl Fn(f64) -> i64) {
        for k in 0..LANES {
            let [(ux, uy), (c1x, c1y), (c2x, c2y)] =
                candidates((self.dir0_x[k], self.dir0_y[k]), c.turn);
            let h = self.h[k];
            let [h0, h1, h2] = self.h_cand[k];
            let (d0, d1, d2) = ((h - h0).abs(), (h - h1).abs(), (h - h2).abs());
            let one = (d1 < d0) & (d1 < d2);
            let two = (d2 < d0) & (d2 < d1);
            let pick = |v0: f64, v1: f64, v2: f64| {
                if one {
                    v1
                } else if two {
                    v2
                } else {
                    v0
                }
            };
            let (dx, dy) = (pick(ux, c1x, c2x), pick(uy, c1y, c2y));
            self.hb[k] = pick(h0, h1, h2);
            (self.dir_x[k], self.dir_y[k]) = (dx, dy);
            let (ax, ay) = (self.tip_x[k], self.tip_y[k]);
            let (bx, by) = (ax + dx * c.step, ay + dy * c.step);
            (self.next_x[k], self.next_y[k]) = (bx, by);
            self.cell_x[k] = cell_coord(bx, c.origin.x, c.last.0, &floor);
            self.cell_y[k] = cell_coord(by, c.origin.y, c.last.1, &floor);
            self.near[k] = near_box(c.origin, (ax, ay), (bx, by));
            let (ex, ey) = (self.disk_x[k], self.disk_y[k]);
            let d2 = |px: f64, py: f64| (px - ex) * (px - ex) + (py - ey) * (py - ey);
            self.within[k] = (d2(ax, ay) <= c.disk * c.disk) & (d2(bx, by) <= c.disk * c.disk);
            // `QuickStops::lake_clear` with the steepest slope of all.
            let len = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).sqrt();
            self.lake_clear[k] = (h + self.hb[k] - len * c.steepest) / 2.0 >= c.lake_floor;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::hash_unit;

    /// One tip's step done plainly, one branch at a time, as the seed
    /// states it: the oracle every kernel of the lanes must match bit for
    /// bit. Its outputs in the order of [`Steps::bits`].
    fn one_step(
        c: &StepConsts,
        tip: DVec2,
        u: DVec2,
        h: f64,
        cand: [f64; 3],
        disk: DVec2,
    ) -> Vec<u64> {
        // The bearing turned by `s` (the sine of ± the turn) by the
        // angle-sum formulas.
        let (st, ct) = c.turn;
        let turned = |s: f64| DVec2::new(u.x * ct - u.y * s, u.y * ct + u.x * s);
        let dirs = [u, turned(st), turned(-st)];
        // The candidate whose height is nearest the tip's; the straight one
        // unless a turn is strictly nearer than both others.
        let d = cand.map(|hc| (h - hc).abs());
        let best = if d[1] < d[0] && d[1] < d[2] {
            1
        } else if d[2] < d[0] && d[2] < d[1] {
            2
        } else {
            0
        };
        let (dir, hb) = (dirs[best], cand[best]);
        let next = DVec2::new(tip.x + dir.x * c.step, tip.y + dir.y * c.step);
        let cell = |v: f64, o: f64, last: i64| cell_coord(v, o, last, |v| v.floor() as i64);
        let inside = |p: DVec2| {
            let e = p - disk;
            e.x * e.x + e.y * e.y <= c.disk * c.disk
        };
        let seg = next - tip;
        let len = (seg.x * seg.x + seg.y * seg.y).sqrt();
        let lake_clear = (h + hb - len * c.steepest) / 2.0 >= c.lake_floor;
        let mut out: Vec<u64> = [dir.x, dir.y, next.x, next.y, hb]
            .map(f64::to_bits)
            .to_vec();
        out.extend([
            cell(next.x, c.origin.x, c.last.0) as u64,
            cell(next.y, c.origin.y, c.last.1) as u64,
            (inside(tip) && inside(next)) as u64,
            lake_clear as u64,
        ]);
        let near = near_box(c.origin, tip.into(), next.into());
        out.extend(near.0.map(|v| v.to_bits() as u64));
        out
    }

    #[test]
    fn step_lanes_match_a_plain_step_on_every_kernel() {
        // The lanes as this CPU runs them (vectorised where it can), and the
        // plain lanes, against the plain step of each tip, on tips near and
        // far from the origin, with near ties and tips beyond the cells.
        let consts = StepConsts {
            kernel: StepKernel::detect(),
            turn: 0.09f64.sin_cos(),
            step: 10.0,
            origin: DVec2::new(-3.0e4, 7.0e5),
            last: (900, 700),
            disk: 25.0,
            steepest: 13.0,
            lake_floor: 150.0,
        };
        let mut ran = None;
        for n in 0..500i64 {
            let h = |k: usize, salt: i64| hash_unit(n * 16 + k as i64, salt, 11);
            let mut lanes = Steps::default();
            let mut expected = Vec::new();
            for k in 0..LANES {
                let tip = consts.origin + DVec2::new(h(k, 1), h(k, 2)) * 36_000.0 - 50.0;
                let a = h(k, 3) * std::f64::consts::TAU;
                let dir = DVec2::new(a.sin(), a.cos());
                let base = h(k, 4) * 300.0;
                // Some candidates tie with each other or with the tip.
                let cand = [
                    base + h(k, 5).round(),
                    base + h(k, 6).round(),
                    base + h(k, 7),
                ];
                let disk = DVec2::new(tip.x + h(k, 8) * 40.0, tip.y);
                lanes.load(k, tip, dir, base, &cand);
                (lanes.disk_x[k], lanes.disk_y[k]) = (disk.x, disk.y);
                expected.extend(one_step(&consts, tip, dir, base, cand, disk));
            }
            let mut plain = Steps::default();
            plain.load_all_from(&lanes);
            ran = Some(lanes.run(&consts));
            plain.run_lanes(&consts, floor_i64);
            assert_eq!(lanes.bits(), expected, "set {n}, {ran:?}");
            assert_eq!(plain.bits(), expected, "set {n}, plain lanes");
        }
        // The vectorised code must have run wherever the CPU has it.
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            let avx512 = has!("avx512f") && has!("avx512dq") && has!("avx512vl");
            if avx512 && has!("avx2") && has!("sse4.1") {
                assert_eq!(ran, Some(StepKernel::Avx512));
            } else {
                eprintln!(
                    "step lanes: no AVX-512 on this CPU, only the plain lanes ran ({ran:?}) \
                     against the plain step: their AVX-512 build is untested here"
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        eprintln!(
            "step lanes: not x86-64, only the plain lanes ran against the plain step ({ran:?})"
        );
    }
}
