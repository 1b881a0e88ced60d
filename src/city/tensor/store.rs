//! [`Store`]: the points of one family's lines filed in a dense grid (a
//! [`CellLists`](crate::geom::CellLists) in chunks of seven, filed while
//! lines are traced and undone when one is dropped), for "how far is the
//! nearest line?" (separation and collision tests) and "which lines are
//! near?" (joins).

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

/// Samples per chunk of a cell's list (chunks of one, a plain linked list,
/// cost 2.4 % more on the tensor bench: 300.7 M vs 293.6 M instructions).
const CHUNK: usize = 7;

/// One family's points by cell (no allocation per cell; lookups only,
/// nothing depends on the order beyond insertion).
pub(crate) struct Store {
    origin: DVec2,
    inv: f64,
    nx: usize,
    ny: usize,
    lists: crate::geom::CellLists<Sample, CHUNK>,
    /// Cells of the insertions since [`mark`](Self::mark), for undoing.
    log: Vec<u32>,
}

impl Store {
    /// An empty store over `[min, max]` (points outside go to the edge cells).
    pub fn new(min: DVec2, max: DVec2, cell: f64) -> Self {
        let n = ((max - min) / cell).ceil().max(DVec2::ONE);
        let (nx, ny) = (n.x as usize, n.y as usize);
        Self {
            origin: min,
            inv: 1.0 / cell,
            nx,
            ny,
            lists: crate::geom::CellLists::new(nx * ny),
            log: Vec::new(),
        }
    }

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
        let c = j * self.nx + i;
        let q = p - self.origin;
        let sample = Sample {
            x: q.x as f32,
            y: q.y as f32,
            line,
            idx,
        };
        self.lists.push(c, sample);
        self.log.push(c as u32);
    }

    /// Forgets the undo log (the points so far stay).
    pub fn mark(&mut self) {
        self.log.clear();
    }

    /// Removes every point inserted since the last [`mark`](Self::mark).
    pub fn undo(&mut self) {
        while let Some(c) = self.log.pop() {
            self.lists.pop(c as usize);
        }
    }

    /// The cells meeting the square of half-side `r` around `p`.
    #[inline]
    fn span(&self, p: DVec2, r: f64) -> ((usize, usize), (usize, usize)) {
        (self.coords(p - r), self.coords(p + r))
    }

    /// Calls `f` on the samples of the cells meeting the square of
    /// half-side `r` around `p` until it returns `true`; whether it did.
    #[inline(always)]
    fn scan(&self, p: DVec2, r: f64, mut f: impl FnMut(&Sample) -> bool) -> bool {
        let ((i0, j0), (i1, j1)) = self.span(p, r);
        for j in j0..=j1 {
            if self
                .lists
                .any_in(j * self.nx + i0..=j * self.nx + i1, &mut f)
            {
                return true;
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
        let q = p - self.origin;
        let (qx, qy) = (q.x as f32, q.y as f32);
        let mut best = (r * r) as f32;
        self.scan(p, r, |s| {
            let d2 = (s.x - qx) * (s.x - qx) + (s.y - qy) * (s.y - qy);
            if d2 < best && !skip(s) {
                best = d2;
            }
            false
        });
        (best as f64).sqrt().min(r)
    }

    /// Whether any point lies closer than `r` to `p`.
    pub fn any_within(&self, p: DVec2, r: f64) -> bool {
        let q = p - self.origin;
        let (qx, qy, r2) = (q.x as f32, q.y as f32, (r * r) as f32);
        self.scan(p, r, |s| {
            (s.x - qx) * (s.x - qx) + (s.y - qy) * (s.y - qy) < r2
        })
    }

    /// Every point filed in the cells within `r` of `p` (a superset of the
    /// points within `r`).
    pub fn near(&self, p: DVec2, r: f64) -> Vec<Sample> {
        let mut out = Vec::new();
        self.scan(p, r, |s| {
            out.push(*s);
            false
        });
        out
    }
}
