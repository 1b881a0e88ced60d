//! The sample lattice of one A* search: terrain heights and the links
//! between neighbouring samples (their grade and whether the ground along
//! them is dry), each computed once, on first use, a page at a time.
//!
//! Bresenham (§5.4) always steps to one of a point's 8 neighbours, so every
//! segment's p3 and p4 are read from cached links.

use super::cost::SegTerrain;
use super::frame::{Frame, Paged, bresenham_inner};
use crate::terrain::Terrain;

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
}

impl Lattice {
    /// The lattice under the cell window `win` (`frame.sub` samples per cell).
    pub fn new(frame: &Frame, win: (i64, i64, i64, i64)) -> Self {
        let s = frame.sub;
        let (x0, x1, y0, y1) = (win.0 * s, win.1 * s, win.2 * s, win.3 * s);
        let ss = frame.cell / s as f64;
        Self {
            heights: Paged::new(x0 - 1, x1 + 1, y0 - 1, y1 + 1, 1, f64::NAN),
            links: Paged::new(x0 - 1, x1 + 1, y0 - 1, y1 + 1, 4, UNKNOWN),
            safe: Paged::new(x0 - 1, x1 + 1, y0 - 1, y1 + 1, 1, 0),
            ss,
            sd: ss * std::f64::consts::SQRT_2,
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

    /// The segment between lattice points `p` and `q` (Bresenham's links),
    /// or `None` where it is wet.
    pub fn segment(
        &mut self,
        frame: &Frame,
        terrain: &Terrain,
        p: (i64, i64),
        q: (i64, i64),
    ) -> Option<SegTerrain> {
        let (zp, zq) = (
            self.height(frame, terrain, p.0, p.1),
            self.height(frame, terrain, q.0, q.1),
        );
        let len = frame.lattice(p.0, p.1).distance(frame.lattice(q.0, q.1));
        let mut inner = [(0i64, 0i64); 64];
        let mut n = 0;
        bresenham_inner(p, q, |x, y| {
            if n < inner.len() {
                inner[n] = (x, y);
                n += 1;
            }
        });
        inner[n] = q;
        let path = &inner[..=n];
        // Every point safe (see `safe`): the segment is dry.
        let safe = self.safe(frame, p.0, p.1) && path.iter().all(|&(x, y)| self.safe(frame, x, y));
        let (mut sum, mut max, mut dry) = (0.0f64, 0.0f64, true);
        let (mut prev, mut zprev) = (p, zp);
        for &(x, y) in path {
            let g = if safe {
                let z = self.height(frame, terrain, x, y);
                let d = if x != prev.0 && y != prev.1 {
                    self.sd
                } else {
                    self.ss
                };
                let g = (z - zprev).abs() / d;
                zprev = z;
                Some(g)
            } else {
                self.link(frame, terrain, prev.0, prev.1, x - prev.0, y - prev.1)
            };
            let Some(g) = g else {
                dry = false;
                break;
            };
            sum += g;
            max = max.max(g);
            prev = (x, y);
        }
        let count = path.len() as u32;
        // Bresenham's links are the segment itself only along an axis or a
        // diagonal; otherwise check the straight segment too.
        let (da, db) = ((q.0 - p.0).abs(), (q.1 - p.1).abs());
        if !safe && dry && da != 0 && db != 0 && da != db {
            dry = frame.dry(
                terrain,
                frame.lattice(p.0, p.1),
                frame.lattice(q.0, q.1),
                zp,
                zq,
            );
        }
        dry.then(|| SegTerrain {
            len,
            grade: if len > 0.0 { (zq - zp) / len } else { 0.0 },
            p3: sum / count as f64,
            p4: max,
            dry: true,
        })
    }
}
