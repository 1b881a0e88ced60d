//! The request's frame: a grid anchored at `from` and turned so that `to`
//! is a grid point, its finer sample lattice, Bresenham walks on it and the
//! lake test along a segment.

use super::PlannerParams;
use crate::terrain::Terrain;
use glam::DVec2;

/// A request's grid: cell `(i, j)` is `from + (i·u + j·v)·cell`, `to` is
/// cell `(n, 0)`. Terrain samples lie on the lattice `sub` times finer.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub from: DVec2,
    pub to: DVec2,
    /// Unit vector from `from` towards `to`.
    pub u: DVec2,
    /// `u` turned left.
    pub v: DVec2,
    /// `to` is cell `(n, 0)`.
    pub n: i64,
    /// Cell size, metres (the step, adjusted so `to` falls on the grid).
    pub cell: f64,
    /// Samples per cell along an axis.
    pub sub: i64,
    /// `|to − from|`.
    pub direct: f64,
    /// The lake level.
    pub lake: f64,
    /// An upper bound of the terrain's slope (m/m), for the dryness proof;
    /// `None` where it cannot be bounded simply (mountain shaping).
    pub lipschitz: Option<f64>,
    /// The height terms `(a, b, offset)`: term `i` is the profile,
    /// linearly interpolated, at `(a·x + b·y + offset) / 128`.
    terms: Vec<(f64, f64, f64)>,
    prof: Vec<f64>,
    mask: i64,
    /// Range minima of the profile (sparse table over two periods):
    /// `mins[l][i]` = min of `prof[i .. i + 2^l]` (indices mod the length);
    /// empty for very long profiles.
    mins: Vec<Vec<f64>>,
}

impl Frame {
    pub fn new(terrain: &Terrain, from: DVec2, to: DVec2, params: &PlannerParams) -> Self {
        let d = to - from;
        let direct = d.length();
        let u = if direct > 0.0 { d / direct } else { DVec2::X };
        let n = ((direct / params.step).round() as i64).max(1);
        let cell = if direct > 0.0 {
            direct / n as f64
        } else {
            params.step
        };
        let sub = ((cell / params.sample).round() as i64).max(1);
        let tp = terrain.params();
        let lipschitz = tp.mountain_base.is_none().then(|| {
            let prof = &tp.profile;
            let max_step = (0..prof.len())
                .map(|k| (prof[(k + 1) % prof.len()] - prof[k]).abs())
                .fold(0.0, f64::max);
            tp.height_vectors.iter().map(|v| v.length()).sum::<f64>() * max_step / 128.0
        });
        let terms = tp
            .height_vectors
            .iter()
            .enumerate()
            .map(|(k, v)| {
                (
                    v.x,
                    v.y,
                    tp.time_vector.get(k).copied().unwrap_or(0.0) * tp.time,
                )
            })
            .collect();
        let prof = &tp.profile;
        let mut mins = Vec::new();
        if prof.len() <= 4096 {
            let n = prof.len();
            mins.push((0..2 * n).map(|i| prof[i % n]).collect::<Vec<f64>>());
            while 1usize << mins.len() <= n {
                let half = 1usize << (mins.len() - 1);
                let last = mins.last().expect("level 0");
                let next = (0..2 * n)
                    .map(|i| last[i].min(last[(i + half).min(2 * n - 1)]))
                    .collect();
                mins.push(next);
            }
        }
        Self {
            mins,
            terms,
            prof: tp.profile.clone(),
            mask: tp.profile.len() as i64 - 1,
            from,
            to,
            u,
            v: u.perp(),
            n,
            cell,
            sub,
            direct,
            lake: tp.lake_level,
            lipschitz,
        }
    }

    /// The position of grid cell `(i, j)`; `from` and `to` exactly at theirs.
    #[inline]
    pub fn point(&self, i: i64, j: i64) -> DVec2 {
        self.lattice(i * self.sub, j * self.sub)
    }

    /// The position of lattice point `(a, b)` (`sub` per cell).
    #[inline]
    pub fn lattice(&self, a: i64, b: i64) -> DVec2 {
        if b == 0 && a == 0 {
            return self.from;
        }
        if b == 0 && a == self.n * self.sub {
            return self.to;
        }
        let s = self.cell / self.sub as f64;
        self.from + self.u * (a as f64 * s) + self.v * (b as f64 * s)
    }

    /// The nearest lattice point of a position.
    #[inline]
    pub fn to_lattice(&self, p: DVec2) -> (i64, i64) {
        let d = p - self.from;
        let s = self.cell / self.sub as f64;
        (round(d.dot(self.u) / s), round(d.dot(self.v) / s))
    }

    /// The nearest grid cell of a position.
    #[inline]
    pub fn to_cell(&self, p: DVec2) -> (i64, i64) {
        let d = p - self.from;
        (
            round(d.dot(self.u) / self.cell),
            round(d.dot(self.v) / self.cell),
        )
    }

    /// Progress of a point along the straight line, as a fraction of `direct`.
    #[inline]
    pub fn progress(&self, p: DVec2) -> f64 {
        if self.direct > 0.0 {
            (p - self.from).dot(self.u) / self.direct
        } else {
            1.0
        }
    }

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

/// `x.round() as i64` without a libm call (baseline x86-64 has no
/// `roundsd`): exact, as `x − trunc(x)` is, below 2⁵² in magnitude.
#[inline]
fn round(x: f64) -> i64 {
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x.round() as i64;
    }
    let t = x as i64;
    let f = x - t as f64;
    if f >= 0.5 {
        t + 1
    } else if f <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// Calls `f` on the lattice points strictly between `a` and `b` on the
/// Bresenham line (§5.4), in order from `a`.
#[inline]
pub(crate) fn bresenham_inner(a: (i64, i64), b: (i64, i64), mut f: impl FnMut(i64, i64)) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs(), dy.abs());
    let steep = ay > ax;
    let (major, minor) = if steep { (ay, ax) } else { (ax, ay) };
    let mut err = 2 * minor - major;
    let (mut x, mut y) = a;
    for _ in 1..major {
        if err > 0 {
            if steep {
                x += sx;
            } else {
                y += sy;
            }
            err -= 2 * major;
        }
        err += 2 * minor;
        if steep {
            y += sy;
        } else {
            x += sx;
        }
        f(x, y);
    }
}

#[cfg(test)]
#[test]
fn round_matches_std() {
    for x in [
        0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.4999999999999996,
        -7.5,
        1e15 + 0.5,
        3e16,
        f64::NAN,
        1e300,
    ] {
        assert_eq!(round(x), x.round() as i64, "{x}");
    }
}

/// Height terms the lake test keeps on the stack (more go to the heap).
const INLINE_TERMS: usize = 8;

/// Cells per page side (log₂): pages of 8 × 8 cells.
const PAGE_BITS: i64 = 3;
const PAGE: i64 = 1 << PAGE_BITS;

/// A window of cells with `per_cell` records each. A small window is one
/// flat array (row by row); a larger one is allocated a page at a time,
/// when a cell of the page is first touched, and only its page directory
/// is dense (one `u32` per 64 cells).
#[derive(Clone, Debug)]
pub(crate) struct Paged<T: Copy> {
    x0: i64,
    y0: i64,
    /// Flat: the window's width in cells; paged: 0.
    stride: i64,
    /// Paged: the directory's width and height in pages.
    w: i64,
    h: i64,
    dir: Vec<u32>,
    /// Flat: cell `(x, y)`'s records from `((y − y0)·stride + x − x0) ·
    /// per_cell`; paged: page `k` holds `PAGE² · per_cell` records from
    /// `k · PAGE² · per_cell`.
    pub data: Vec<T>,
    per_cell: usize,
    fill: T,
    /// Each page's first cell.
    origins: Vec<(i64, i64)>,
}

/// Largest flat window, bytes.
const FLAT_BYTES: usize = 4 << 20;

impl<T: Copy> Paged<T> {
    /// A window `x0..=x1` × `y0..=y1` with `per_cell` records per cell.
    pub fn new(x0: i64, x1: i64, y0: i64, y1: i64, per_cell: usize, fill: T) -> Self {
        let cells = ((x1 - x0 + 1) as u128) * ((y1 - y0 + 1) as u128);
        let bytes = cells * (per_cell * std::mem::size_of::<T>()) as u128;
        if bytes <= FLAT_BYTES as u128 {
            return Self {
                x0,
                y0,
                stride: x1 - x0 + 1,
                w: 0,
                h: 0,
                dir: Vec::new(),
                data: vec![fill; cells as usize * per_cell],
                per_cell,
                fill,
                origins: Vec::new(),
            };
        }
        let w = ((x1 - x0) >> PAGE_BITS) + 1;
        let h = ((y1 - y0) >> PAGE_BITS) + 1;
        // Room for the whole window up front (within reason): pages are
        // then never moved, and untouched room costs address space only.
        let room = ((w * h) as usize * (per_cell << (2 * PAGE_BITS))).min(1 << 21);
        Self {
            x0,
            y0,
            stride: 0,
            w,
            h,
            dir: vec![u32::MAX; (w * h) as usize],
            data: Vec::with_capacity(room),
            per_cell,
            fill,
            origins: Vec::new(),
        }
    }

    /// The window's width when it is flat (a cell `dx, dy` away from
    /// another then has its records `(dy·width + dx) · per_cell` further).
    pub fn stride(&self) -> Option<i64> {
        (self.stride > 0).then_some(self.stride)
    }

    /// The index in `data` of cell `(x, y)`'s first record, allocating its
    /// page if needed. The cell must lie in the window.
    #[inline(always)]
    pub fn slot(&mut self, x: i64, y: i64) -> usize {
        let (dx, dy) = (x - self.x0, y - self.y0);
        if self.stride > 0 {
            debug_assert!(dx >= 0 && dy >= 0 && dx < self.stride);
            return (dy * self.stride + dx) as usize * self.per_cell;
        }
        let (px, py) = (dx >> PAGE_BITS, dy >> PAGE_BITS);
        debug_assert!(px >= 0 && py >= 0 && px < self.w && py < self.h);
        let d = (py * self.w + px) as usize;
        let mut page = self.dir[d];
        if page == u32::MAX {
            page = self.allocate(d, px, py);
        }
        let local = ((dy & (PAGE - 1)) << PAGE_BITS | (dx & (PAGE - 1))) as usize;
        (page as usize * (PAGE * PAGE) as usize + local) * self.per_cell
    }

    /// Allocates the page at directory entry `d` (page `(px, py)`).
    #[cold]
    #[inline(never)]
    fn allocate(&mut self, d: usize, px: i64, py: i64) -> u32 {
        let page = (self.data.len() / (self.per_cell << (2 * PAGE_BITS))) as u32;
        self.dir[d] = page;
        self.origins
            .push((self.x0 + (px << PAGE_BITS), self.y0 + (py << PAGE_BITS)));
        let n = self.data.len() + (self.per_cell << (2 * PAGE_BITS));
        self.data.resize(n, self.fill);
        page
    }

    /// The cell of a record index and the record's index within its cell.
    #[inline]
    pub fn cell_of(&self, index: usize) -> (i64, i64, usize) {
        let cell = index / self.per_cell;
        if self.stride > 0 {
            let stride = self.stride as usize;
            return (
                self.x0 + (cell % stride) as i64,
                self.y0 + (cell / stride) as i64,
                index % self.per_cell,
            );
        }
        let page = cell >> (2 * PAGE_BITS);
        let local = (cell & ((PAGE * PAGE) as usize - 1)) as i64;
        let (ox, oy) = self.origins[page];
        (
            ox + (local & (PAGE - 1)),
            oy + (local >> PAGE_BITS),
            index % self.per_cell,
        )
    }
}
