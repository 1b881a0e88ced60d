//! The lake test: whether the ground along a segment, or around a point,
//! stays above the lake level. The ground is a sum of terms, each the
//! terrain profile linearly interpolated along one direction, so these are
//! exact (or bounded from below) from the profile alone.

use super::frame::Frame;
use crate::terrain::Terrain;
use glam::DVec2;

/// Height terms the lake test keeps on the stack (more go to the heap).
const INLINE_TERMS: usize = 8;

impl Frame {
    /// Whether the ground between two points, with heights `za` and `zb`,
    /// stays at or above the lake level. Proven at once with the slope
    /// bound where the ends are high enough; else exactly: the ground is a
    /// sum of piecewise-linear terms, linear between the points where a
    /// term's profile index crosses a whole number, so its lowest point on
    /// the segment is at one of those (or an end).
    pub fn dry(&self, terrain: &Terrain, a: DVec2, b: DVec2, za: f64, zb: f64) -> bool {
        if !(za >= self.lake && zb >= self.lake) {
            return false;
        }
        let Some(lip) = self.lipschitz else {
            return self.dry_sampled(terrain, a, b);
        };
        if za.min(zb) - self.lake >= lip * a.distance(b) * 0.5 {
            return true;
        }
        // Each term's profile index along the segment: j = ja + t·(jb − ja)
        // (on the stack for the usual few terms).
        let n = self.terms.len();
        let mut inline = [(0.0, 0.0); INLINE_TERMS];
        let mut heap = Vec::new();
        let js: &mut [(f64, f64)] = if n <= INLINE_TERMS {
            &mut inline[..n]
        } else {
            heap.resize(n, (0.0, 0.0));
            &mut heap
        };
        let mut lowest = 0.0;
        for (k, &(ta, tb, off)) in self.terms.iter().enumerate() {
            let ja = (ta * a.x + tb * a.y + off) / 128.0;
            let jb = (ta * b.x + tb * b.y + off) / 128.0;
            if !(ja.abs() < 1e12 && jb.abs() < 1e12) || (ja - jb).abs() > 4096.0 {
                return self.dry_sampled(terrain, a, b);
            }
            js[k] = (ja, jb);
            // The term's own lowest value: at an end or a whole index.
            let (lo, hi) = (crate::num::fast_floor(ja.min(jb)) + 1.0, ja.max(jb));
            lowest += self.term(ja).min(self.term(jb)).min(self.range_min(lo, hi));
        }
        // A margin far above rounding, below anything that matters.
        let level = self.lake + 1e-6;
        if lowest >= level {
            return true;
        }
        if za.min(zb) <= level {
            return false;
        }
        self.sweep(js, level)
    }

    /// The exact test behind [`Self::dry`]: the ground along the segment
    /// is the sum of the terms, each linear in `t` between the points where
    /// its index `ja + t·(jb − ja)` crosses a whole number; walking those
    /// points in order, the sum changes by its summed slope in between, so
    /// its lowest value is at one of them (or an end, above `level`
    /// already). Whether it stays above `level` at every one.
    fn sweep(&self, js: &[(f64, f64)], level: f64) -> bool {
        if js.len() <= INLINE_TERMS {
            self.sweep_n::<INLINE_TERMS>(js, level)
        } else {
            self.sweep_n::<{ crate::terrain::MAX_VECTORS }>(js, level)
        }
    }

    /// [`Self::sweep`] for up to `N` terms.
    fn sweep_n<const N: usize>(&self, js: &[(f64, f64)], level: f64) -> bool {
        let n = js.len();
        // Per term: the next crossing's t, the piece's lower index, its
        // direction (±1), the index's rate and its inverse, and the slope
        // (per unit t).
        let mut tn = [f64::INFINITY; N];
        let mut piece = [0i64; N];
        let mut dir = [0i64; N];
        let mut rate = [0.0f64; N];
        let mut inv = [0.0f64; N];
        let mut slope = [0.0f64; N];
        let mask = self.mask;
        let slope_at = |i: i64, d: f64| -> f64 {
            let i = (i & mask) as usize;
            (self.prof[(i + 1) & mask as usize] - self.prof[i]) * d
        };
        let (mut total, mut z) = (0.0, 0.0);
        let mut events = n + 1;
        for (k, &(ja, jb)) in js.iter().enumerate() {
            z += self.term(ja);
            let d = jb - ja;
            let f = crate::num::fast_floor(ja);
            rate[k] = d;
            inv[k] = 1.0 / d;
            if d > 0.0 {
                (piece[k], dir[k]) = (f as i64, 1);
                tn[k] = (f + 1.0 - ja) * inv[k];
            } else if d < 0.0 {
                // The piece below `ja` (`ja` itself when whole).
                let i = if f == ja { f - 1.0 } else { f };
                (piece[k], dir[k]) = (i as i64, -1);
                tn[k] = (i - ja) * inv[k];
            } else {
                continue;
            }
            slope[k] = slope_at(piece[k], d);
            total += slope[k];
            events += crate::num::fast_floor(d.abs()) as usize + 1;
        }
        let mut t = 0.0;
        for _ in 0..events {
            let (mut next, mut at) = (0, tn[0]);
            for (k, &x) in tn.iter().enumerate().take(n).skip(1) {
                if x < at {
                    (next, at) = (k, x);
                }
            }
            if at >= 1.0 {
                return true;
            }
            z += total * (at - t);
            t = at;
            if z <= level {
                return false;
            }
            let p = piece[next] + dir[next];
            piece[next] = p;
            total -= slope[next];
            slope[next] = slope_at(p, rate[next]);
            total += slope[next];
            // From the crossing's own index, so the t's never drift.
            let knot = if dir[next] > 0 { p + 1 } else { p };
            tn[next] = (knot as f64 - js[next].0) * inv[next];
        }
        // More crossings than the indices allow: rounding; say wet.
        false
    }

    /// The tables behind [`Disc::min`] for discs of radius `r`.
    pub fn disc(&self, r: f64) -> Disc {
        let n = self.prof.len();
        let terms = self
            .terms
            .iter()
            .map(|&(a, b, off)| {
                let reach = r * (a * a + b * b).sqrt() / 128.0;
                // The whole indices strictly above `j − reach` and up to
                // `j + reach`: `c` or `c + 1` of them, from any start.
                let c = crate::num::fast_floor(2.0 * reach).min(n as f64) as usize;
                let table = |count: usize| -> Vec<f64> {
                    (0..n)
                        .map(|s| {
                            (0..count)
                                .map(|t| self.prof[(s + t) & self.mask as usize])
                                .fold(f64::INFINITY, f64::min)
                        })
                        .collect()
                };
                DiscTerm {
                    a: a / 128.0,
                    b: b / 128.0,
                    off: off / 128.0,
                    reach,
                    c,
                    mins: [table(c), table((c + 1).min(n))],
                }
            })
            .collect();
        Disc { terms }
    }

    /// The least profile value at the whole indices in `lo .. hi` (`lo` whole).
    #[inline]
    fn range_min(&self, lo: f64, hi: f64) -> f64 {
        if lo >= hi {
            return f64::INFINITY;
        }
        // ⌈hi − lo⌉ without a libm call.
        let count = -crate::num::fast_floor(lo - hi) as usize;
        let n = self.prof.len();
        if self.mins.is_empty() || count > n {
            let mut m = f64::INFINITY;
            for w in 0..count.min(n) {
                m = m.min(self.prof[((lo as i64 + w as i64) & self.mask) as usize]);
            }
            return m;
        }
        let i = (lo as i64 & self.mask) as usize;
        let l = (usize::BITS - 1 - count.leading_zeros()) as usize;
        self.mins[l][i].min(self.mins[l][i + count - (1 << l)])
    }

    /// One height term: the profile at index `j`, linearly interpolated.
    #[inline]
    fn term(&self, j: f64) -> f64 {
        let k = crate::num::fast_floor(j);
        let i = (k as i64 & self.mask) as usize;
        let next = self.prof[(i + 1) & self.mask as usize];
        self.prof[i] + (j - k) * (next - self.prof[i])
    }

    /// Without a slope bound: samples every 0.25 m.
    fn dry_sampled(&self, terrain: &Terrain, a: DVec2, b: DVec2) -> bool {
        let k = ((a.distance(b) / 0.25).ceil() as usize).clamp(1, 1 << 20);
        (0..=k).all(|i| {
            let p = a.lerp(b, i as f64 / k as f64);
            terrain.height(p.x, p.y) >= self.lake
        })
    }
}

/// One height term's share of [`Disc`].
pub(crate) struct DiscTerm {
    /// The term's index is `a·x + b·y + off` at `(x, y)`.
    a: f64,
    b: f64,
    off: f64,
    /// How far the index moves across the disc's radius.
    reach: f64,
    /// Whole indices a disc spans: `c` or `c + 1`.
    c: usize,
    /// `mins[k][s]`: the least profile value at the `c + k` indices from `s`.
    mins: [Vec<f64>; 2],
}

/// A lower bound of the ground within a fixed radius of any point: each
/// term's least value over the indices that disc can reach, summed (from
/// [`Frame::disc`]).
pub(crate) struct Disc {
    terms: Vec<DiscTerm>,
}

impl Disc {
    /// The bound at `p`.
    pub fn min(&self, frame: &Frame, p: DVec2) -> f64 {
        let mut lowest = 0.0;
        for t in &self.terms {
            let j = t.a * p.x + t.b * p.y + t.off;
            let (lo, hi) = (j - t.reach, j + t.reach);
            if !(lo.abs() < 1e12 && hi.abs() < 1e12) {
                return f64::NEG_INFINITY;
            }
            let (flo, fhi) = (crate::num::fast_floor(lo), crate::num::fast_floor(hi));
            let count = (fhi - flo) as usize;
            let start = ((flo as i64 + 1) & frame.mask) as usize;
            let whole = if count == t.c {
                t.mins[0][start]
            } else if count == t.c + 1 {
                t.mins[1][start]
            } else {
                frame.range_min(flo + 1.0, hi)
            };
            lowest += frame.term(lo).min(frame.term(hi)).min(whole);
        }
        lowest
    }
}
