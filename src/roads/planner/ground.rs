//! The ground the planners cost (with `smooth_ground`): the terrain at the
//! road's own scale, and what building a road on it takes.
//!
//! On the frame's cell grid, `S(i, j)` is the 1-2-1 × 1-2-1 mean of the
//! raw heights of cell `(i, j)` and its eight neighbours (a window two
//! cells wide); a lattice point's ground is `S` interpolated bilinearly
//! between the corners of its cell. Everything is by lattice index, so the A* lattice,
//! the sequential planner and [`super::score_path`] get the same numbers,
//! bit for bit. A point off the lattice has the ground of its nearest
//! lattice point (at most half a sample away, in a window cells wide).
//!
//! Lake tests keep the raw terrain: a road must stay dry where it is.

use super::PlannerParams;
use super::frame::Frame;
use crate::terrain::Terrain;

/// `S` of cell `(i, j)` (`sub` lattice points per cell) from the raw
/// lattice heights `raw(a, b)`: the 1-2-1 × 1-2-1 mean of the cell's and
/// its eight neighbours' raw heights (a window two cells wide; each raw
/// sample serves nine cells, so a new cell costs about one).
#[inline]
pub(crate) fn kernel(i: i64, j: i64, sub: i64, mut raw: impl FnMut(i64, i64) -> f64) -> f64 {
    let mut sum = 0.0;
    for (dj, wj) in [(-1, 0.25), (0, 0.5), (1, 0.25)] {
        let b = (j + dj) * sub;
        let row =
            0.25 * raw((i - 1) * sub, b) + 0.5 * raw(i * sub, b) + 0.25 * raw((i + 1) * sub, b);
        sum += wj * row;
    }
    sum
}

/// A direct-mapped cache of values by lattice or cell index: a pure
/// function's results, so what it forgets is only computed again.
pub(crate) struct Memo {
    keys: Vec<(i64, i64)>,
    vals: Vec<f64>,
}

impl Memo {
    const BITS: u32 = 12;

    fn new() -> Self {
        Self {
            keys: vec![(i64::MIN, i64::MIN); 1 << Self::BITS],
            vals: vec![0.0; 1 << Self::BITS],
        }
    }

    #[inline(always)]
    fn slot(a: i64, b: i64) -> usize {
        let h = (a as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ (b as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        (h >> (64 - Self::BITS)) as usize
    }

    #[inline(always)]
    fn get(&self, a: i64, b: i64) -> Option<f64> {
        let s = Self::slot(a, b);
        (self.keys[s] == (a, b)).then(|| self.vals[s])
    }

    #[inline(always)]
    fn put(&mut self, a: i64, b: i64, v: f64) {
        let s = Self::slot(a, b);
        self.keys[s] = (a, b);
        self.vals[s] = v;
    }
}

/// The lattice index `a` as (cell, remainder in `0..sub`).
#[inline]
pub(crate) fn split(a: i64, sub: i64) -> (i64, i64) {
    (a.div_euclid(sub), a.rem_euclid(sub))
}

/// Bilinear blend of a cell's corners `s = [S(i, j), S(i+1, j), S(i, j+1),
/// S(i+1, j+1)]` at remainders `(ra, rb)` of `sub`.
#[inline]
pub(crate) fn blend(s: [f64; 4], ra: i64, rb: i64, sub: i64) -> f64 {
    let (u, v) = (ra as f64 / sub as f64, rb as f64 / sub as f64);
    (s[0] * (1.0 - u) + s[1] * u) * (1.0 - v) + (s[2] * (1.0 - u) + s[3] * u) * v
}

/// What building a segment that climbs `dz` over `len` metres takes,
/// unweighted: the climb beyond `max_grade` (`e = |dz| − max_grade·len`)
/// split evenly between a cut at the high end and a fill at the low end,
/// each growing linearly from nothing mid-segment to `e / 2` at its end.
/// The cut and fill section (depths capped at `max_cut` / `max_fill`) costs
/// `earthwork_cost` per m², and where the fill would exceed `max_fill` the
/// road stands on a viaduct (`viaduct_cost` a metre), where the cut would
/// exceed `max_cut` it runs in a tunnel (`tunnel_cost` a metre).
/// Continuous and never decreasing in `|dz|`.
#[inline]
pub(crate) fn works(dz: f64, len: f64, p: &PlannerParams) -> f64 {
    let e = dz.abs() - p.max_grade * len;
    if e <= 0.0 || e.is_nan() {
        return 0.0;
    }
    let (d, half) = (0.5 * e, 0.5 * len);
    let side = |cap: f64, structure: f64| {
        if d <= cap {
            p.earthwork_cost * half * d * 0.5
        } else {
            let beyond = 1.0 - cap / d;
            p.earthwork_cost * half * cap * (1.0 - 0.5 * cap / d) + structure * half * beyond
        }
    };
    side(p.max_fill, p.viaduct_cost) + side(p.max_cut, p.tunnel_cost)
}

/// Raw and smoothed lattice heights for the planners that do not search a
/// window (the sequential planner, scoring), cached.
pub(crate) struct GroundMap<'a> {
    terrain: &'a Terrain,
    frame: &'a Frame,
    smooth: bool,
    raw: Memo,
    cells: Memo,
    ground: Memo,
}

impl<'a> GroundMap<'a> {
    pub fn new(terrain: &'a Terrain, frame: &'a Frame, params: &PlannerParams) -> Self {
        Self {
            terrain,
            frame,
            smooth: params.smooth_ground,
            raw: Memo::new(),
            cells: Memo::new(),
            ground: Memo::new(),
        }
    }

    /// Raw terrain height at lattice point `(a, b)`.
    #[inline]
    pub fn raw(&mut self, a: i64, b: i64) -> f64 {
        if let Some(z) = self.raw.get(a, b) {
            return z;
        }
        let p = self.frame.lattice(a, b);
        let z = self.terrain.height(p.x, p.y);
        self.raw.put(a, b, z);
        z
    }

    /// `S` of cell `(i, j)`.
    fn cell(&mut self, i: i64, j: i64) -> f64 {
        if let Some(s) = self.cells.get(i, j) {
            return s;
        }
        let s = kernel(i, j, self.frame.sub, |a, b| self.raw(a, b));
        self.cells.put(i, j, s);
        s
    }

    /// The costed ground at a point: its nearest lattice point's (the
    /// terrain's height there, exactly, without smoothing).
    #[inline]
    pub fn at(&mut self, p: glam::DVec2) -> f64 {
        if !self.smooth {
            return self.terrain.height(p.x, p.y);
        }
        let (a, b) = self.frame.to_lattice(p);
        self.ground(a, b)
    }

    /// The costed ground at lattice point `(a, b)`.
    #[inline]
    pub fn ground(&mut self, a: i64, b: i64) -> f64 {
        if !self.smooth {
            return self.raw(a, b);
        }
        if let Some(z) = self.ground.get(a, b) {
            return z;
        }
        let sub = self.frame.sub;
        let ((i, ra), (j, rb)) = (split(a, sub), split(b, sub));
        let z = if ra == 0 && rb == 0 {
            self.cell(i, j)
        } else {
            let s = [
                self.cell(i, j),
                if ra > 0 { self.cell(i + 1, j) } else { 0.0 },
                if rb > 0 { self.cell(i, j + 1) } else { 0.0 },
                if ra > 0 && rb > 0 {
                    self.cell(i + 1, j + 1)
                } else {
                    0.0
                },
            ];
            blend(s, ra, rb, sub)
        };
        self.ground.put(a, b, z);
        z
    }
}

#[cfg(test)]
mod tests {
    use super::super::graph::SearchGraph;
    use super::super::{AStarPlanner, PlannedRoad, RoadPlanner, score_path};
    use super::*;
    use glam::DVec2;

    fn road(p: &PlannerParams, from: DVec2, to: DVec2) -> PlannedRoad {
        AStarPlanner.plan(&Terrain::default(), from, to, p).unwrap()
    }

    /// Climb per metre of `points` on the ground at the planner's scale
    /// (`params`' frame for the road's ends).
    fn climb(p: &PlannerParams, points: &[DVec2]) -> f64 {
        let t = Terrain::default();
        let frame = Frame::new(&t, points[0], *points.last().unwrap(), p);
        let mut map = GroundMap::new(&t, &frame, p);
        let z: Vec<f64> = points.iter().map(|&q| map.at(q)).collect();
        let len: f64 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
        z.windows(2).map(|w| (w[1] - w[0]).abs()).sum::<f64>() / len
    }

    #[test]
    fn the_ground_is_smoother_than_the_terrain_and_the_same_everywhere() {
        let t = Terrain::default();
        let p = PlannerParams::default();
        let (from, to) = (DVec2::new(0.0, 0.0), DVec2::new(0.0, 1500.0));
        let frame = Frame::new(&t, from, to, &p);
        let mut map = GroundMap::new(&t, &frame, &p);
        let mut graph = SearchGraph::new(&t, from, to, &p).unwrap();
        let (mut rough, mut smooth) = (0.0, 0.0);
        for a in 0..60 {
            for b in [-3, 0, 5] {
                // The A* lattice and the maps agree bit for bit.
                assert_eq!(graph.ground(a, b), map.ground(a, b), "({a}, {b})");
                // Second differences: the micro-relief.
                let raw = map.raw(a + 1, b) - 2.0 * map.raw(a, b) + map.raw(a - 1, b);
                let gr = map.ground(a + 1, b) - 2.0 * map.ground(a, b) + map.ground(a - 1, b);
                rough += raw.abs();
                smooth += gr.abs();
            }
        }
        assert!(smooth < 0.5 * rough, "{smooth} vs {rough}");
        // A cell point's ground is the 1-2-1 mean of the cells around.
        let sub = frame.sub;
        assert_eq!(sub, 2);
        let w = [1.0, 2.0, 1.0];
        let mut sum = 0.0;
        for (dj, wb) in (-1..=1).zip(w) {
            for (di, wa) in (-1..=1).zip(w) {
                sum += wa * wb * map.raw((10 + di) * sub, (4 + dj) * sub);
            }
        }
        let want = sum / 16.0;
        assert!((map.ground(10 * sub, 4 * sub) - want).abs() < 1e-9);
        // Off: the raw terrain.
        let raw = PlannerParams {
            smooth_ground: false,
            ..p
        };
        let mut m2 = GroundMap::new(&t, &frame, &raw);
        assert_eq!(m2.ground(7, 3), m2.raw(7, 3));
    }

    #[test]
    fn works_grow_with_the_excess_climb_and_become_structures() {
        let p = PlannerParams::default();
        let len = 100.0;
        // Within the grade limit, nothing to build.
        assert_eq!(works(p.max_grade * len, len, &p), 0.0);
        assert_eq!(works(-5.0, len, &p), 0.0);
        let mut last = 0.0;
        for k in 1..400 {
            let dz = p.max_grade * len + 0.25 * k as f64;
            let w = works(dz, len, &p);
            assert!(w > last, "{dz}: {w} after {last}");
            assert_eq!(w, works(-dz, len, &p));
            last = w;
        }
        // Depth 10 m at each end: earthworks alone; 20 m: a viaduct and a
        // tunnel on top.
        let dz = |d: f64| p.max_grade * len + 2.0 * d;
        let earth = p.earthwork_cost * 2.0 * (0.5 * len) * 10.0 * 0.5;
        assert!((works(dz(10.0), len, &p) - earth).abs() < 1e-9);
        let none = PlannerParams {
            viaduct_cost: 0.0,
            tunnel_cost: 0.0,
            ..p.clone()
        };
        let structures = works(dz(20.0), len, &p) - works(dz(20.0), len, &none);
        let want = p.viaduct_cost * 50.0 * (1.0 - 12.0 / 20.0) + p.tunnel_cost * 50.0 * 0.25;
        assert!((structures - want).abs() < 1e-9, "{structures} vs {want}");
    }

    #[test]
    fn earthworks_steer_the_road_and_are_scored() {
        let p = PlannerParams::default();
        let free = PlannerParams {
            earthwork_cost: 0.0,
            viaduct_cost: 0.0,
            tunnel_cost: 0.0,
            ..p.clone()
        };
        let (mut with, mut without) = (0.0, 0.0);
        for (from, to) in [
            (DVec2::new(0.0, 0.0), DVec2::new(0.0, 1500.0)),
            (DVec2::new(-3000.0, 2000.0), DVec2::new(-2000.0, 1500.0)),
        ] {
            let a = road(&p, from, to);
            let b = road(&free, from, to);
            assert!(a.breakdown.earthworks > 0.0);
            assert_eq!(b.breakdown.earthworks, 0.0);
            with += a.breakdown.earthworks;
            without += score_path(&Terrain::default(), &b.points, &b.bridges, &p)
                .unwrap()
                .earthworks;
        }
        assert!(with < 0.9 * without, "{with} vs {without}");
    }

    #[test]
    fn slope_weight_lowers_the_climb_at_the_road_scale() {
        let (mut lo, mut hi) = (0.0, 0.0);
        for (from, to) in [
            (DVec2::new(0.0, 0.0), DVec2::new(0.0, 1500.0)),
            (DVec2::new(1000.0, 1000.0), DVec2::new(2400.0, 1200.0)),
            (DVec2::new(8000.0, 3000.0), DVec2::new(6200.0, 3600.0)),
        ] {
            let mut p = PlannerParams::default();
            lo += climb(&p, &road(&p, from, to).points);
            p.weights.slope *= 10.0;
            hi += climb(&p, &road(&p, from, to).points);
        }
        assert!(hi < 0.97 * lo, "{hi} vs {lo}");
    }

    #[test]
    fn bad_build_params_are_named() {
        let field = |f: fn(&mut PlannerParams)| {
            let mut p = PlannerParams::default();
            f(&mut p);
            match p.validate().unwrap_err() {
                crate::terrain::ParamError::OutOfRange { field, .. }
                | crate::terrain::ParamError::NotFinite { field, .. } => field,
                e => panic!("{e:?}"),
            }
        };
        assert_eq!(field(|p| p.max_grade = 0.0), "max_grade");
        assert_eq!(field(|p| p.max_fill = f64::NAN), "max_fill");
        assert_eq!(field(|p| p.max_cut = -1.0), "max_cut");
        assert_eq!(field(|p| p.earthwork_cost = -0.1), "earthwork_cost");
        assert_eq!(field(|p| p.viaduct_cost = f64::INFINITY), "viaduct_cost");
        assert_eq!(field(|p| p.tunnel_cost = 1e9), "tunnel_cost");
    }
}
