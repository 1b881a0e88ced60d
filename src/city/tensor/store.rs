//! [`Store`]: the points of one family's lines by cell, filed while lines
//! are traced and undone when one is dropped, for "how far is the nearest
//! line?" (separation and collision tests) and "which lines are near?"
//! (joins).
//!
//! A query's span is the *fine* cells (half the search radius) meeting
//! the square around it, but points are kept in cells of [`SPAN`]² fine
//! ones, each a list of chunks of eight points stored column-wise (the
//! coordinates, one cache line, apart from the rest), so a query looks at
//! a few cells and tests eight points at once. A point counts only if its
//! fine cell is in the span, exactly as if fine cells were scanned one by
//! one.

use glam::DVec2;

/// A filed point: where (relative to the grid's origin), which line, and
/// its signed step index along the line (see [`Store::nearest`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    x: f32,
    y: f32,
    /// The line.
    pub line: u32,
    /// Step index: forward steps count up from the seed, backward ones down.
    pub idx: i32,
}

/// Points per chunk, tested at once.
const LANES: usize = 8;
// `below` tests two groups of four.
const _: () = assert!(LANES == 8);

/// Fine cells per side of a cell.
const SPAN: usize = 2;
const _: () = assert!(SPAN * SPAN <= 8);

/// End of a chunk list.
const END: u32 = u32::MAX;

/// The coordinates of up to [`LANES`] points of one cell (unused lanes at
/// infinity, never below a distance): one cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Chunk {
    xs: [f32; LANES],
    ys: [f32; LANES],
}

/// A chunk's count, its cell's older chunk, and where its points are.
#[derive(Clone, Copy, Debug)]
struct Meta {
    /// Each point's fine cell within the cell: `di + SPAN·dj`.
    sub: [u8; LANES],
    n: u32,
    next: u32,
}

/// The rest of a chunk's points: line and step index.
#[derive(Clone, Copy, Debug)]
struct Tags {
    lines: [u32; LANES],
    idxs: [i32; LANES],
}

/// One family's points by cell (no allocation per cell; nothing depends on
/// the order of a cell's points: the queries are minima, existence, sets).
pub(crate) struct Store {
    origin: DVec2,
    inv: f64,
    /// Fine cells per row and column.
    nx: usize,
    ny: usize,
    /// Cells per row.
    cx: usize,
    /// Per cell, its newest chunk or [`END`].
    head: Vec<u32>,
    chunks: Vec<Chunk>,
    meta: Vec<Meta>,
    tags: Vec<Tags>,
    /// Cells of the insertions since [`mark`](Self::mark), for undoing.
    log: Vec<u32>,
}

impl Store {
    /// An empty store over `[min, max]` (points outside go to the edge
    /// cells), fine cells of side `cell`, room for about `points` points.
    pub fn new(min: DVec2, max: DVec2, cell: f64, points: usize) -> Self {
        let n = ((max - min) / cell).ceil().max(DVec2::ONE);
        let (nx, ny) = (n.x as usize, n.y as usize);
        let (cx, cy) = (nx.div_ceil(SPAN), ny.div_ceil(SPAN));
        // A chunk holds four points on average or more (the room is only
        // reserved; a few megabytes at most).
        let chunks = (points / 4).min(1 << 15);
        Self {
            origin: min,
            inv: 1.0 / cell,
            nx,
            ny,
            cx,
            head: vec![END; cx * cy],
            chunks: Vec::with_capacity(chunks),
            meta: Vec::with_capacity(chunks),
            tags: Vec::with_capacity(chunks),
            log: Vec::new(),
        }
    }

    /// An empty store of one cell, to stand in for one lent out.
    pub fn placeholder() -> Self {
        Self::new(DVec2::ZERO, DVec2::ONE, 1.0, 0)
    }

    /// The fine cell of `p` (the nearest edge cell outside).
    #[inline]
    fn coords(&self, p: DVec2) -> (usize, usize) {
        let f = (p - self.origin) * self.inv;
        (
            ((f.x.max(0.0) as u32) as usize).min(self.nx - 1),
            ((f.y.max(0.0) as u32) as usize).min(self.ny - 1),
        )
    }

    /// Files `p` as step `idx` of `line`.
    #[inline]
    pub fn insert(&mut self, p: DVec2, line: u32, idx: i32) {
        let (i, j) = self.coords(p);
        let c = (j / SPAN) * self.cx + i / SPAN;
        let q = p - self.origin;
        let h = self.head[c];
        let k = match self.meta.get(h as usize) {
            Some(m) if (m.n as usize) < LANES => h as usize,
            _ => {
                debug_assert!(self.chunks.len() < END as usize);
                self.head[c] = self.chunks.len() as u32;
                self.chunks.push(Chunk {
                    xs: [f32::INFINITY; LANES],
                    ys: [f32::INFINITY; LANES],
                });
                self.meta.push(Meta {
                    sub: [0; LANES],
                    n: 0,
                    next: h,
                });
                self.tags.push(Tags {
                    lines: [0; LANES],
                    idxs: [0; LANES],
                });
                self.chunks.len() - 1
            }
        };
        let (ch, meta, tags) = (&mut self.chunks[k], &mut self.meta[k], &mut self.tags[k]);
        let l = meta.n as usize;
        (ch.xs[l], ch.ys[l]) = (q.x as f32, q.y as f32);
        tags.lines[l] = line;
        tags.idxs[l] = idx;
        meta.sub[l] = (i % SPAN + SPAN * (j % SPAN)) as u8;
        meta.n += 1;
        self.log.push(c as u32);
    }

    /// Forgets the undo log (the points so far stay).
    pub fn mark(&mut self) {
        self.log.clear();
    }

    /// Removes every point inserted since the last [`mark`](Self::mark).
    pub fn undo(&mut self) {
        while let Some(c) = self.log.pop() {
            let h = self.head[c as usize] as usize;
            let Some(meta) = self.meta.get_mut(h) else {
                continue;
            };
            meta.n -= 1;
            let l = meta.n as usize;
            let ch = &mut self.chunks[h];
            (ch.xs[l], ch.ys[l]) = (f32::INFINITY, f32::INFINITY);
            if meta.n == 0 {
                self.head[c as usize] = meta.next;
                // Undone in reverse: an emptied chunk is the newest.
                if h + 1 == self.chunks.len() {
                    self.chunks.pop();
                    self.meta.pop();
                    self.tags.pop();
                }
            }
        }
    }

    /// Chunk `k`'s point `l`.
    #[inline(always)]
    fn sample(&self, k: usize, l: usize) -> Sample {
        let (ch, tags) = (&self.chunks[k], &self.tags[k]);
        Sample {
            x: ch.xs[l],
            y: ch.ys[l],
            line: tags.lines[l],
            idx: tags.idxs[l],
        }
    }

    /// The fine cells meeting the square of half-side `r` around `p`.
    #[inline]
    fn span(&self, p: DVec2, r: f64) -> ((usize, usize), (usize, usize)) {
        (self.coords(p - r), self.coords(p + r))
    }

    /// Calls `f(chunk, lanes)` on the chunks of the cells holding the
    /// fine cells meeting the square of half-side `r` around `p`, with the
    /// bits of its points in those fine cells whose squared distance to `p`
    /// is below `*r2` (f32, which `f` may lower), until `f` returns `true`;
    /// whether it did.
    #[inline(always)]
    fn scan(
        &self,
        p: DVec2,
        r: f64,
        r2: &mut f32,
        mut f: impl FnMut(&Self, usize, u32, &mut f32) -> bool,
    ) -> bool {
        let q = p - self.origin;
        let (qx, qy) = (q.x as f32, q.y as f32);
        let ((i0, j0), (i1, j1)) = self.span(p, r);
        // Which fine columns (rows) of cell column `c` are in the span, as
        // bits by offset.
        let part = |c: usize, lo: usize, hi: usize| -> u32 {
            (0..SPAN).fold(0, |b, d| {
                b | (((lo..=hi).contains(&(c * SPAN + d))) as u32) << d
            })
        };
        for cj in j0 / SPAN..=j1 / SPAN {
            let rows = part(cj, j0, j1);
            let row = cj * self.cx;
            for ci in i0 / SPAN..=i1 / SPAN {
                let cols = part(ci, i0, i1);
                // By fine cell `di + SPAN·dj`: whether it is in the span.
                let mut fine = 0u32;
                for s in 0..SPAN * SPAN {
                    fine |= ((cols >> (s % SPAN)) & (rows >> (s / SPAN)) & 1) << s;
                }
                let whole = fine == (1 << (SPAN * SPAN)) - 1;
                let mut h = self.head[row + ci];
                while let Some(meta) = self.meta.get(h as usize) {
                    let mut m = below(&self.chunks[h as usize], qx, qy, *r2);
                    // (Only points within rounding of the radius can be
                    // near and out of the span: tested when any is near.)
                    if m != 0 && !whole {
                        for l in 0..LANES {
                            m &= !((((fine >> meta.sub[l]) & 1) ^ 1) << l);
                        }
                    }
                    if m != 0 && f(self, h as usize, m, r2) {
                        return true;
                    }
                    h = meta.next;
                }
            }
        }
        false
    }

    /// The distance from `p` to the nearest point, or `r` if none is nearer;
    /// points of line `own.0` fewer than `own.2` steps from step `own.1`
    /// are ignored (a line does not collide with the stretch it is on).
    #[inline]
    pub fn nearest(&self, p: DVec2, r: f64, own: (u32, i32, i32)) -> f64 {
        let (own_line, own_idx, window) = own;
        self.nearest_but(p, r, |s| {
            s.line == own_line && (s.idx - own_idx).abs() < window
        })
    }

    /// The distance from `p` to the nearest point for which `skip` is
    /// false, or `r` if none is nearer.
    #[inline(always)]
    pub fn nearest_but(&self, p: DVec2, r: f64, skip: impl Fn(&Sample) -> bool) -> f64 {
        let best = self.nearest_below(p, r, (r * r) as f32, skip);
        (best as f64).sqrt().min(r)
    }

    /// `p` as the store holds points: relative to its origin, in f32.
    #[inline(always)]
    pub fn local(&self, p: DVec2) -> (f32, f32) {
        let q = p - self.origin;
        (q.x as f32, q.y as f32)
    }

    /// Whether a query of radius `r` at `p` would look at point `at` (its
    /// fine cell is in the query's span).
    #[inline]
    pub fn spans(&self, p: DVec2, r: f64, at: DVec2) -> bool {
        let ((i0, j0), (i1, j1)) = self.span(p, r);
        let (i, j) = self.coords(at);
        (i0..=i1).contains(&i) && (j0..=j1).contains(&j)
    }

    /// The smallest squared distance (f32) from `p` to a point for which
    /// `skip` is false, if below `best`, else `best` (at most `r²`: only
    /// the cells within `r` are searched).
    #[inline(always)]
    pub fn nearest_below(
        &self,
        p: DVec2,
        r: f64,
        mut best: f32,
        skip: impl Fn(&Sample) -> bool,
    ) -> f32 {
        let (qx, qy) = self.local(p);
        self.scan(p, r, &mut best, |st, k, mut m, best| {
            while m != 0 {
                let l = m.trailing_zeros() as usize;
                m &= m - 1;
                let s = st.sample(k, l);
                let d2 = (s.x - qx) * (s.x - qx) + (s.y - qy) * (s.y - qy);
                if d2 < *best && !skip(&s) {
                    *best = d2;
                }
            }
            false
        });
        best
    }

    /// Whether any point lies closer than `r` to `p`, but those of line
    /// `but`.
    pub fn any_within(&self, p: DVec2, r: f64, but: Option<u32>) -> bool {
        let Some(but) = but else {
            return self.scan(p, r, &mut ((r * r) as f32), |_, _, _, _| true);
        };
        self.scan(p, r, &mut ((r * r) as f32), |st, k, m, _| {
            let lines = &st.tags[k].lines;
            (0..LANES).any(|l| m >> l & 1 != 0 && lines[l] != but)
        })
    }

    /// Every point filed in the fine cells within `r` of `p` (a superset
    /// of the points within `r`).
    pub fn near(&self, p: DVec2, r: f64) -> Vec<Sample> {
        let ((i0, j0), (i1, j1)) = self.span(p, r);
        let mut out = Vec::new();
        for cj in j0 / SPAN..=j1 / SPAN {
            for ci in i0 / SPAN..=i1 / SPAN {
                let mut h = self.head[cj * self.cx + ci];
                while let Some(meta) = self.meta.get(h as usize) {
                    for l in 0..meta.n as usize {
                        let s = meta.sub[l] as usize;
                        let (i, j) = (ci * SPAN + s % SPAN, cj * SPAN + s / SPAN);
                        if (i0..=i1).contains(&i) && (j0..=j1).contains(&j) {
                            out.push(self.sample(h as usize, l));
                        }
                    }
                    h = meta.next;
                }
            }
        }
        out
    }
}

/// The lanes of `ch` whose squared distance to `(qx, qy)` is below `r2`,
/// as bits (unused lanes, at infinity, never are).
#[inline(always)]
fn below(ch: &Chunk, qx: f32, qy: f32, r2: f32) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is in every x86_64 processor; the loads read the
    // chunk's own arrays (two groups of four of eight).
    unsafe {
        use std::arch::x86_64::*;
        let (vx, vy, vr) = (_mm_set1_ps(qx), _mm_set1_ps(qy), _mm_set1_ps(r2));
        let group = |k: usize| {
            let dx = _mm_sub_ps(_mm_loadu_ps(ch.xs.as_ptr().add(k)), vx);
            let dy = _mm_sub_ps(_mm_loadu_ps(ch.ys.as_ptr().add(k)), vy);
            let d2 = _mm_add_ps(_mm_mul_ps(dx, dx), _mm_mul_ps(dy, dy));
            _mm_movemask_ps(_mm_cmplt_ps(d2, vr)) as u32
        };
        group(0) | group(4) << 4
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut m = 0u32;
        for l in 0..LANES {
            let (dx, dy) = (ch.xs[l] - qx, ch.ys[l] - qy);
            m |= ((dx * dx + dy * dy < r2) as u32) << l;
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pseudo-random points in `[-20, 120]²` (some outside the store's box).
    fn points(n: usize, seed: u64) -> Vec<DVec2> {
        let mut s = seed;
        let mut unit = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n)
            .map(|_| DVec2::new(unit(), unit()) * 140.0 - 20.0)
            .collect()
    }

    /// The points filed in the fine cells of the square of half-side `r`
    /// around `p` (what scanning fine cells one by one finds).
    fn in_span(st: &Store, pts: &[(DVec2, u32, i32)], p: DVec2, r: f64) -> Vec<(DVec2, u32, i32)> {
        let ((i0, j0), (i1, j1)) = st.span(p, r);
        (pts.iter().copied())
            .filter(|&(q, _, _)| {
                let (i, j) = st.coords(q);
                (i0..=i1).contains(&i) && (j0..=j1).contains(&j)
            })
            .collect()
    }

    fn d2(st: &Store, a: DVec2, b: DVec2) -> f32 {
        let (a, b) = (a - st.origin, b - st.origin);
        let (ax, ay, bx, by) = (a.x as f32, a.y as f32, b.x as f32, b.y as f32);
        (ax - bx) * (ax - bx) + (ay - by) * (ay - by)
    }

    #[test]
    fn queries_match_a_scan_of_every_point_through_undo() {
        let mut st = Store::new(DVec2::ZERO, DVec2::splat(100.0), 7.0, 16);
        let mut filed = Vec::new();
        for (k, p) in points(600, 7).into_iter().enumerate() {
            if k == 400 {
                st.mark();
            }
            st.insert(p, (k % 13) as u32, k as i32);
            filed.push((p, (k % 13) as u32, k as i32));
        }
        let check = |st: &Store, filed: &[(DVec2, u32, i32)]| {
            for (q, r) in points(300, 11)
                .into_iter()
                .zip([3.0, 9.0, 14.0, 30.0].iter().cycle())
            {
                let cands = in_span(st, filed, q, *r);
                let r2 = (r * r) as f32;
                let skip = |line: u32, idx: i32| line == 3 && idx % 2 == 0;
                let best = (cands.iter())
                    .filter(|c| !skip(c.1, c.2))
                    .map(|c| d2(st, c.0, q))
                    .fold(r2, f32::min);
                let got = st.nearest_but(q, *r, |s| skip(s.line, s.idx));
                assert_eq!(got, (best as f64).sqrt().min(*r), "{q} {r}");
                let any = cands.iter().any(|c| d2(st, c.0, q) < r2);
                assert_eq!(st.any_within(q, *r, None), any, "{q} {r}");
                let any_but = (cands.iter()).any(|c| c.1 != 3 && d2(st, c.0, q) < r2);
                assert_eq!(st.any_within(q, *r, Some(3)), any_but, "{q} {r}");
                let mut near: Vec<(u32, i32)> =
                    st.near(q, *r).iter().map(|s| (s.line, s.idx)).collect();
                let mut want: Vec<(u32, i32)> = cands.iter().map(|c| (c.1, c.2)).collect();
                near.sort_unstable();
                want.sort_unstable();
                assert_eq!(near, want, "{q} {r}");
            }
        };
        check(&st, &filed);
        st.undo();
        filed.truncate(400);
        check(&st, &filed);
        // Filing again after the undo reuses the room.
        for (k, p) in points(50, 5).into_iter().enumerate() {
            st.insert(p, 99, k as i32);
            filed.push((p, 99, k as i32));
        }
        check(&st, &filed);
    }
}
