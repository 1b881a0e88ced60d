//! The sample lattice of one A* search: terrain heights, which points lie
//! well clear of water, and which links between neighbouring samples are
//! dry, each computed once, on first use, a page at a time.
//!
//! Bresenham (§5.4) always steps to one of a point's 8 neighbours, and its
//! walk is the same from every lattice point, so each move's walk is found
//! once per search ([`Walks`]) and a cell's segments are read off the
//! heights of the few points they share.

use super::PlannerParams;
use super::cost::SegTerrain;
use super::frame::{Frame, bresenham_inner};
use super::ground::{Smoother, blend, works};
use super::lake::Disc;
use super::paged::Paged;
use crate::terrain::Terrain;

/// A link's or a point's cached state (a point is safe `WIDE` or only
/// `NEAR`, see [`Caches::safe`]).
const UNKNOWN: u8 = 0;
const YES: u8 = 1;
const NO: u8 = 2;
const WIDE: u8 = 3;
const NEAR: u8 = 4;

/// The four link directions stored at a point (the other four are stored
/// at the neighbour).
const DIRS: [(i64, i64); 4] = [(1, 0), (1, 1), (0, 1), (-1, 1)];

/// The moves' Bresenham walks on the lattice, relative to their start.
struct Walks {
    /// The lattice points the walks visit (index 0: the start).
    patch: Vec<(i64, i64)>,
    /// Per move: its points after the start as patch indices, the last its
    /// end, each with the length of the link that reaches it.
    steps: Vec<Vec<(u16, f64)>>,
    /// Per move: not along an axis or a diagonal, so the straight segment
    /// leaves the links and its own dryness is checked too.
    straight: Vec<bool>,
    /// How far, in sample spacings, a point of such a straight segment can
    /// lie from the nearest point of its walk (a little over).
    reach: f64,
}

/// How far every point of a link lies from one of its ends, at most, in
/// sample spacings (√2/2, a little over).
const NEAR_REACH: f64 = 0.72;

impl Walks {
    /// The walks of `moves` (in cells, `sub` lattice steps each), with
    /// sample spacing `ss` (diagonal `sd`).
    fn new(moves: &[(i64, i64)], sub: i64, ss: f64, sd: f64) -> Self {
        let mut patch = vec![(0, 0)];
        let mut index = |p: (i64, i64)| -> u16 {
            match patch.iter().position(|&q| q == p) {
                Some(k) => k as u16,
                None => {
                    patch.push(p);
                    (patch.len() - 1) as u16
                }
            }
        };
        let mut steps = Vec::with_capacity(moves.len());
        for &(mi, mj) in moves {
            let q = (mi * sub, mj * sub);
            let mut pts = vec![(0, 0)];
            bresenham_inner((0, 0), q, |x, y| pts.push((x, y)));
            pts.push(q);
            let walk: Vec<(u16, f64)> = pts
                .windows(2)
                .map(|w| {
                    let diagonal = w[0].0 != w[1].0 && w[0].1 != w[1].1;
                    (index(w[1]), if diagonal { sd } else { ss })
                })
                .collect();
            steps.push(walk);
        }
        let straight: Vec<bool> = moves
            .iter()
            .map(|&(mi, mj)| mi != 0 && mj != 0 && mi.abs() != mj.abs())
            .collect();
        // Sample each straight segment finely; at each sample, the nearest
        // walk point's distance.
        let mut reach = 0.0f64;
        for (m, &(mi, mj)) in moves.iter().enumerate().filter(|&(m, _)| straight[m]) {
            let pts: Vec<(i64, i64)> = std::iter::once((0, 0))
                .chain(steps[m].iter().map(|&(k, _)| patch[k as usize]))
                .collect();
            let (qx, qy) = ((mi * sub) as f64, (mj * sub) as f64);
            let n = 16 * (mi.abs().max(mj.abs()) * sub) as usize;
            for t in 0..=n {
                let (x, y) = (qx * t as f64 / n as f64, qy * t as f64 / n as f64);
                let near = pts
                    .iter()
                    .map(|&(a, b)| (a as f64 - x).hypot(b as f64 - y))
                    .fold(f64::INFINITY, f64::min);
                reach = reach.max(near);
            }
        }
        Self {
            patch,
            steps,
            straight,
            // Between the samples (under √2/16 apart) the distance grows
            // by at most half their spacing; and a margin.
            reach: reach + 0.05,
        }
    }
}

/// The per-point and per-link caches.
struct Caches {
    heights: Paged<f64>,
    /// The costed ground per lattice point (`ground.rs`; the raw height
    /// without smoothing), over the same window as `heights`.
    ground: Paged<f64>,
    smoother: Option<Smoother>,
    /// The averaged ground per cell corner (`ground.rs`).
    cells: Paged<f64>,
    /// Per point and direction of `DIRS`: whether the link is dry.
    links: Paged<u8>,
    /// Per point: how far around it all ground is proven above the lake.
    safe: Paged<u8>,
    /// The safe test's bounds, wide and near.
    wide: Disc,
    near: Disc,
    /// Their radii, metres.
    radii: (f64, f64),
}

impl Caches {
    /// Terrain height at lattice point `(a, b)`.
    #[inline(always)]
    fn height(&mut self, frame: &Frame, terrain: &Terrain, a: i64, b: i64) -> f64 {
        let s = self.heights.slot(a, b);
        let z = self.heights.data[s];
        if !z.is_nan() {
            return z;
        }
        self.height_new(frame, terrain, s, a, b)
    }

    #[inline(never)]
    fn height_new(&mut self, frame: &Frame, terrain: &Terrain, s: usize, a: i64, b: i64) -> f64 {
        let p = frame.lattice(a, b);
        let z = terrain.height(p.x, p.y);
        self.heights.data[s] = z;
        z
    }

    /// The costed ground at lattice point `(a, b)`.
    #[inline(always)]
    fn ground(&mut self, frame: &Frame, terrain: &Terrain, a: i64, b: i64) -> f64 {
        let s = self.ground.slot(a, b);
        let z = self.ground.data[s];
        if !z.is_nan() {
            return z;
        }
        self.ground_new(frame, terrain, s, a, b)
    }

    #[inline(never)]
    fn ground_new(&mut self, frame: &Frame, terrain: &Terrain, s: usize, a: i64, b: i64) -> f64 {
        let z = if self.smoother.is_some() {
            blend(a, b, frame.sub, |i, j| self.cell(frame, terrain, i, j))
        } else {
            self.height(frame, terrain, a, b)
        };
        self.ground.data[s] = z;
        z
    }

    /// The averaged ground at cell corner `(i, j)`.
    fn cell(&mut self, frame: &Frame, terrain: &Terrain, i: i64, j: i64) -> f64 {
        let s = self.cells.slot(i, j);
        let z = self.cells.data[s];
        if !z.is_nan() {
            return z;
        }
        let m = self.smoother.as_ref().expect("averaging");
        let z = m.at(terrain, frame.point(i, j));
        self.cells.data[s] = z;
        z
    }

    /// Whether all ground near `(a, b)` is dry: within [`Walks::reach`]
    /// spacings (`wide`: every point of a walk leaving the links lies that
    /// close to one of its Bresenham points, so a walk whose points are all
    /// safe is dry), or within 0.72 (not `wide`: every point of a link lies
    /// within √2/2 of an end, as every point of a walk along an axis or a
    /// diagonal does of its points).
    #[inline(always)]
    fn safe(&mut self, frame: &Frame, a: i64, b: i64, wide: bool) -> bool {
        let s = self.safe.slot(a, b);
        if self.safe.data[s] == UNKNOWN {
            // The point's height if known (else NaN, which proves nothing).
            let h = self.heights.slot(a, b);
            let z = self.heights.data[h];
            self.safe.data[s] = self.safety(frame, a, b, z);
        }
        self.safe.data[s] == WIDE || (!wide && self.safe.data[s] == NEAR)
    }

    /// The point's safety; first from its height `z` and the slope bound
    /// (no sums), then from the discs' bounds.
    #[inline(never)]
    fn safety(&self, frame: &Frame, a: i64, b: i64, z: f64) -> u8 {
        let level = frame.lake + 1e-6;
        let above = |r: f64| frame.lipschitz.is_some_and(|lip| z - level > lip * r);
        let p = frame.lattice(a, b);
        if above(self.radii.0) || self.wide.min(frame, p) > level {
            WIDE
        } else if above(self.radii.1) || self.near.min(frame, p) > level {
            NEAR
        } else {
            NO
        }
    }

    /// Whether the link from `(a, b)` to its neighbour `(a + da, b + db)`
    /// is dry.
    fn link(&mut self, frame: &Frame, terrain: &Terrain, a: i64, b: i64, da: i64, db: i64) -> bool {
        // Store at the end from which the link is one of `DIRS`.
        let (a, b, da, db) = if db > 0 || (db == 0 && da > 0) {
            (a, b, da, db)
        } else {
            (a + da, b + db, -da, -db)
        };
        let k = DIRS
            .iter()
            .position(|&d| d == (da, db))
            .expect("a neighbour");
        let s = self.links.slot(a, b) + k;
        if self.links.data[s] == UNKNOWN {
            // Both ends safe: every point of the link is within 0.71
            // spacings of one of them, so dry (see `safe`).
            let dry = (self.safe(frame, a, b, false) && self.safe(frame, a + da, b + db, false))
                || {
                    let (za, zb) = (
                        self.height(frame, terrain, a, b),
                        self.height(frame, terrain, a + da, b + db),
                    );
                    let (pa, pb) = (frame.lattice(a, b), frame.lattice(a + da, b + db));
                    frame.dry(terrain, pa, pb, za, zb)
                };
            self.links.data[s] = if dry { YES } else { NO };
        }
        self.links.data[s] == YES
    }
}

/// A search's lattice: the moves' walks and the caches.
pub(crate) struct Lattice {
    walks: Walks,
    c: Caches,
    /// With a flat height cache: each patch point's offset in it.
    flat: Vec<isize>,
}

/// The grades along a walk from height `zp` (`z(k)` the height of patch
/// point `k`): their sum and largest, and the end's height.
#[inline(always)]
fn walk(steps: &[(u16, f64)], zp: f64, mut z: impl FnMut(usize) -> f64) -> (f64, f64, f64) {
    let (mut sum, mut max, mut zprev) = (0.0f64, 0.0f64, zp);
    for &(k, d) in steps {
        let z = z(k as usize);
        let g = (z - zprev).abs() / d;
        zprev = z;
        sum += g;
        max = max.max(g);
    }
    (sum, max, zprev)
}

impl Lattice {
    /// The lattice under the cell window `win` (`frame.sub` samples per
    /// cell) for `moves`, and two cells beyond (the ground's window).
    pub fn new(
        frame: &Frame,
        params: &PlannerParams,
        win: (i64, i64, i64, i64),
        moves: &[(i64, i64)],
    ) -> Self {
        let s = frame.sub;
        let (x0, x1, y0, y1) = (
            (win.0 - 2) * s - 1,
            (win.1 + 2) * s + 1,
            (win.2 - 2) * s - 1,
            (win.3 + 2) * s + 1,
        );
        let ss = frame.cell / s as f64;
        let walks = Walks::new(moves, s, ss, ss * std::f64::consts::SQRT_2);
        let heights = Paged::new(x0, x1, y0, y1, 1, f64::NAN);
        let flat = match heights.stride() {
            Some(w) => walks
                .patch
                .iter()
                .map(|&(da, db)| (db * w + da) as isize)
                .collect(),
            None => Vec::new(),
        };
        let c = Caches {
            ground: Paged::new(x0, x1, y0, y1, 1, f64::NAN),
            smoother: Smoother::new(frame, params),
            cells: Paged::new(win.0 - 2, win.1 + 2, win.2 - 2, win.3 + 2, 1, f64::NAN),
            heights,
            links: Paged::new(x0, x1, y0, y1, 4, UNKNOWN),
            safe: Paged::new(x0, x1, y0, y1, 1, UNKNOWN),
            wide: frame.disc(walks.reach.max(NEAR_REACH) * ss),
            near: frame.disc(NEAR_REACH * ss),
            radii: (walks.reach.max(NEAR_REACH) * ss, NEAR_REACH * ss),
        };
        Self { walks, flat, c }
    }

    /// Each move's walk length: its links' summed lengths, metres.
    pub fn walk_lengths(&self) -> Vec<f64> {
        let w = &self.walks.steps;
        w.iter().map(|s| s.iter().map(|&(_, d)| d).sum()).collect()
    }

    /// Terrain height at lattice point `(a, b)`.
    #[inline]
    pub fn height(&mut self, frame: &Frame, terrain: &Terrain, a: i64, b: i64) -> f64 {
        self.c.height(frame, terrain, a, b)
    }

    /// The costed ground at lattice point `(a, b)` (`ground.rs`).
    #[inline]
    pub fn ground(&mut self, frame: &Frame, terrain: &Terrain, a: i64, b: i64) -> f64 {
        self.c.ground(frame, terrain, a, b)
    }

    /// The terrain parts of the segments from the cell at lattice point
    /// `o` along every move whose target `usable` accepts: `out[m]` is
    /// `None` where not usable. Whether they are dry is [`Self::dry_walk`]'s question.
    pub fn cell_segments(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        params: &PlannerParams,
        o: (i64, i64),
        usable: impl Fn(usize) -> bool,
        out: &mut [Option<SegTerrain>],
    ) {
        let Self { walks, c, flat } = self;
        let p0 = frame.lattice(o.0, o.1);
        let zp = c.ground(frame, terrain, o.0, o.1);
        let z_of = |c: &mut Caches, k: usize| {
            let (da, db) = walks.patch[k];
            c.ground(frame, terrain, o.0 + da, o.1 + db)
        };
        let base = c.ground.slot(o.0, o.1) as isize;
        // A flat cache: each patch point at a fixed offset from the cell's.
        let z_flat = |c: &mut Caches, k: usize| {
            let s = (base + flat[k]) as usize;
            let z = c.ground.data[s];
            if z.is_nan() {
                let (da, db) = walks.patch[k];
                c.ground_new(frame, terrain, s, o.0 + da, o.1 + db)
            } else {
                z
            }
        };
        for (m, slot) in out.iter_mut().enumerate() {
            *slot = None;
            if !usable(m) {
                continue;
            }
            let steps = &walks.steps[m];
            let (sum, max, zq) = if flat.is_empty() {
                walk(steps, zp, |k| z_of(c, k))
            } else {
                walk(steps, zp, |k| z_flat(c, k))
            };
            let end = walks.patch[steps.last().expect("a move has an end").0 as usize];
            let len = p0.distance(frame.lattice(o.0 + end.0, o.1 + end.1));
            *slot = Some(SegTerrain {
                len,
                grade: if len > 0.0 { (zq - zp) / len } else { 0.0 },
                p3: sum / steps.len() as f64,
                p4: max,
                works: works(zq - zp, len, params),
                dry: true,
            });
        }
    }

    /// Whether move `m`'s segment from lattice point `o` is dry: its
    /// Bresenham links are, and the straight segment where it leaves them.
    pub fn dry_walk(&mut self, frame: &Frame, terrain: &Terrain, o: (i64, i64), m: usize) -> bool {
        let Self { walks, c, .. } = self;
        let at = |k: u16| {
            let (da, db) = walks.patch[k as usize];
            (o.0 + da, o.1 + db)
        };
        let steps = &walks.steps[m];
        // Every point safe (see `safe`): the segment is dry.
        let wide = walks.straight[m];
        if c.safe(frame, o.0, o.1, wide)
            && steps.iter().all(|&(k, _)| {
                let (x, y) = at(k);
                c.safe(frame, x, y, wide)
            })
        {
            return true;
        }
        let mut prev = o;
        for &(k, _) in steps {
            let (x, y) = at(k);
            if !c.link(frame, terrain, prev.0, prev.1, x - prev.0, y - prev.1) {
                return false;
            }
            prev = (x, y);
        }
        // Bresenham's links are the segment itself only along an axis or a
        // diagonal; otherwise check the straight segment too.
        !walks.straight[m] || {
            let zp = c.height(frame, terrain, o.0, o.1);
            let zq = c.height(frame, terrain, prev.0, prev.1);
            let (p, q) = (frame.lattice(o.0, o.1), frame.lattice(prev.0, prev.1));
            frame.dry(terrain, p, q, zp, zq)
        }
    }
}
