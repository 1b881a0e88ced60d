//! The sample lattice of one A* search: terrain heights and the links
//! between neighbouring samples (their grade and whether the ground along
//! them is dry), each computed once, on first use, a page at a time.
//!
//! Bresenham (§5.4) always steps to one of a point's 8 neighbours, so every
//! segment's p3 and p4 are read from cached links.

use super::cost::SegTerrain;
use super::frame::{Frame, Paged, bresenham_inner};
use crate::terrain::Terrain;
use glam::DVec2;

/// A link's cached state: `|grade|`, or NaN for unknown, or −1 for wet.
const UNKNOWN: f64 = f64::NAN;
const WET: f64 = -1.0;

/// The four link directions stored at a point (the other four are stored
/// at the neighbour).
const DIRS: [(i64, i64); 4] = [(1, 0), (1, 1), (0, 1), (-1, 1)];

pub(crate) struct Lattice {
    heights: Paged<f64>,
    links: Paged<f64>,
    /// Per point: 0 unknown, 1 all ground within 1.2 sample spacings of it
    /// is above the lake (so any segment near it is dry), 2 not proven.
    safe: Paged<u8>,
    /// Sample spacing and diagonal, metres.
    ss: f64,
    sd: f64,
    /// Lattice points the moves' walks visit, relative to their start.
    patch: Vec<(i64, i64)>,
    walks: Vec<Walk>,
    /// One cell's patch heights (NaN unknown) while its segments are
    /// computed.
    z: Vec<f64>,
}

impl Lattice {
    /// The lattice under the cell window `win` (`frame.sub` samples per cell).
    pub fn new(frame: &Frame, win: (i64, i64, i64, i64), moves: &[(i64, i64)]) -> Self {
        let s = frame.sub;
        let (patch, walks) = walks(moves, s);
        let (x0, x1, y0, y1) = (win.0 * s, win.1 * s, win.2 * s, win.3 * s);
        let ss = frame.cell / s as f64;
        Self {
            heights: Paged::new(x0 - 1, x1 + 1, y0 - 1, y1 + 1, 1, f64::NAN),
            links: Paged::new(x0 - 1, x1 + 1, y0 - 1, y1 + 1, 4, UNKNOWN),
            safe: Paged::new(x0 - 1, x1 + 1, y0 - 1, y1 + 1, 1, 0),
            ss,
            sd: ss * std::f64::consts::SQRT_2,
            patch,
            walks,
            z: Vec::new(),
        }
    }

    /// Terrain height at lattice point `(a, b)`.
    #[inline]
    pub fn height(&mut self, frame: &Frame, terrain: &Terrain, a: i64, b: i64) -> f64 {
        let s = self.heights.slot(a, b);
        let z = self.heights.data[s];
        if !z.is_nan() {
            return z;
        }
        let p = frame.lattice(a, b);
        let z = terrain.height(p.x, p.y);
        self.heights.data[s] = z;
        z
    }

    /// Whether all ground within 1.2 sample spacings of `(a, b)` is dry: a
    /// segment's points all lie within √(1/4 + 1) ≈ 1.12 spacings of one of
    /// its Bresenham points (half a step along the major axis, at most one
    /// across), so a segment whose Bresenham points are all safe is dry.
    #[inline]
    fn safe(&mut self, frame: &Frame, a: i64, b: i64) -> bool {
        let s = self.safe.slot(a, b);
        if self.safe.data[s] == 0 {
            let ok = frame.disc_min(frame.lattice(a, b), 1.2 * self.ss) > frame.lake + 1e-6;
            self.safe.data[s] = if ok { 1 } else { 2 };
        }
        self.safe.data[s] == 1
    }

    /// The link from `(a, b)` to its neighbour `(a + da, b + db)`:
    /// `Some(|grade|)` when the ground along it is dry.
    #[inline]
    fn link(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        a: i64,
        b: i64,
        da: i64,
        db: i64,
    ) -> Option<f64> {
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
        let v = self.links.data[s];
        if !v.is_nan() {
            return (v >= 0.0).then_some(v);
        }
        let (za, zb) = (
            self.height(frame, terrain, a, b),
            self.height(frame, terrain, a + da, b + db),
        );
        let d = if da != 0 && db != 0 { self.sd } else { self.ss };
        let (pa, pb) = (frame.lattice(a, b), frame.lattice(a + da, b + db));
        // Both ends safe: every point of the link is within 0.71 spacings
        // of one of them, so dry (see `safe`).
        let proven = self.safe(frame, a, b) && self.safe(frame, a + da, b + db);
        let v = if proven || frame.dry(terrain, pa, pb, za, zb) {
            (zb - za).abs() / d
        } else {
            WET
        };
        self.links.data[s] = v;
        (v >= 0.0).then_some(v)
    }

    /// The terrain parts of the segments from the cell at lattice point
    /// `o` along every move whose target `usable` accepts, in one pass over
    /// the lattice points their walks share: `out[m]` is `None` where not
    /// usable. Whether they are dry is [`Self::dry_walk`]'s question.
    pub fn cell_segments(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        o: (i64, i64),
        usable: impl Fn(usize) -> bool,
        out: &mut [Option<SegTerrain>],
    ) {
        let n = self.patch.len();
        self.z.clear();
        self.z.resize(n, f64::NAN);
        let p0 = frame.lattice(o.0, o.1);
        for (m, slot) in out.iter_mut().enumerate() {
            *slot = None;
            if !usable(m) {
                continue;
            }
            let walk = std::mem::take(&mut self.walks[m]);
            *slot = Some(self.walk(frame, terrain, o, p0, &walk));
            self.walks[m] = walk;
        }
    }

    /// Height of patch point `k` around `o`, cached for this cell.
    #[inline]
    fn patch_z(&mut self, frame: &Frame, terrain: &Terrain, o: (i64, i64), k: usize) -> f64 {
        if self.z[k].is_nan() {
            let (da, db) = self.patch[k];
            self.z[k] = self.height(frame, terrain, o.0 + da, o.1 + db);
        }
        self.z[k]
    }

    /// One move's segment from the cell at `o` (position `p0`).
    fn walk(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        o: (i64, i64),
        p0: DVec2,
        walk: &Walk,
    ) -> SegTerrain {
        let zp = self.patch_z(frame, terrain, o, 0);
        let end = *walk.pts.last().expect("a move has an end") as usize;
        let zq = self.patch_z(frame, terrain, o, end);
        let q = self.patch[end];
        let len = p0.distance(frame.lattice(o.0 + q.0, o.1 + q.1));
        let (mut sum, mut max) = (0.0f64, 0.0f64);
        let (mut prev, mut zprev) = (0usize, zp);
        for &k in &walk.pts {
            let k = k as usize;
            let z = self.patch_z(frame, terrain, o, k);
            let (a, b) = (self.patch[prev], self.patch[k]);
            let d = if a.0 != b.0 && a.1 != b.1 {
                self.sd
            } else {
                self.ss
            };
            let g = (z - zprev).abs() / d;
            zprev = z;
            sum += g;
            max = max.max(g);
            prev = k;
        }
        SegTerrain {
            len,
            grade: if len > 0.0 { (zq - zp) / len } else { 0.0 },
            p3: sum / walk.pts.len() as f64,
            p4: max,
            dry: true,
        }
    }

    /// Whether move `m`'s segment from lattice point `o` is dry: its
    /// Bresenham links are, and the straight segment where it leaves them.
    pub fn dry_walk(&mut self, frame: &Frame, terrain: &Terrain, o: (i64, i64), m: usize) -> bool {
        let walk = std::mem::take(&mut self.walks[m]);
        let dry = self.dry_walk_of(frame, terrain, o, &walk);
        self.walks[m] = walk;
        dry
    }

    fn dry_walk_of(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        o: (i64, i64),
        walk: &Walk,
    ) -> bool {
        let patch = std::mem::take(&mut self.patch);
        let dry = self.dry_points(frame, terrain, o, walk, &patch);
        self.patch = patch;
        dry
    }

    fn dry_points(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        o: (i64, i64),
        walk: &Walk,
        patch: &[(i64, i64)],
    ) -> bool {
        let at = |k: u16| {
            let (da, db) = patch[k as usize];
            (o.0 + da, o.1 + db)
        };
        // Every point safe (see `safe`): the segment is dry.
        let mut safe = self.safe(frame, o.0, o.1);
        for &k in &walk.pts {
            let (x, y) = at(k);
            safe = safe && self.safe(frame, x, y);
        }
        if safe {
            return true;
        }
        let mut prev = o;
        for &k in &walk.pts {
            let (x, y) = at(k);
            if self
                .link(frame, terrain, prev.0, prev.1, x - prev.0, y - prev.1)
                .is_none()
            {
                return false;
            }
            prev = (x, y);
        }
        // Bresenham's links are the segment itself only along an axis or a
        // diagonal; otherwise check the straight segment too.
        !walk.straight || {
            let zp = self.height(frame, terrain, o.0, o.1);
            let zq = self.height(frame, terrain, prev.0, prev.1);
            let (p, q) = (frame.lattice(o.0, o.1), frame.lattice(prev.0, prev.1));
            frame.dry(terrain, p, q, zp, zq)
        }
    }
}

/// One move's Bresenham walk (§5.4) on the lattice: the points after the
/// start, as indices into [`Lattice`]'s patch, the last the move's end.
#[derive(Clone, Debug, Default)]
struct Walk {
    pts: Vec<u16>,
    /// Not along an axis or a diagonal: the straight segment leaves the
    /// links, so its own dryness is checked too.
    straight: bool,
}

/// The walks of `moves` (in cells, `sub` lattice steps each) and the
/// lattice points they visit relative to their start (index 0: the start).
fn walks(moves: &[(i64, i64)], sub: i64) -> (Vec<(i64, i64)>, Vec<Walk>) {
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
    let mut all = Vec::with_capacity(moves.len());
    for &(mi, mj) in moves {
        let q = (mi * sub, mj * sub);
        let mut pts = Vec::new();
        bresenham_inner((0, 0), q, |x, y| pts.push(index((x, y))));
        pts.push(index(q));
        all.push(Walk {
            pts,
            straight: mi != 0 && mj != 0 && mi.abs() != mj.abs(),
        });
    }
    (patch, all)
}
