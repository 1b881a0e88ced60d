//! The ground the planners cost: the terrain averaged over a window of
//! `ground_window` steps, the road's own scale, not its micro-relief (which
//! is rough at every scale: a mean of a few samples keeps much of it, and a
//! search then threads its way through that noise instead of the relief).
//!
//! The terrain is a sum of terms, each a piecewise-linear periodic profile
//! of one coordinate `j = (a·x + b·y + off) / 128`; each term is averaged
//! exactly along its own direction with a triangular weight spanning the
//! window (`(G(j + w) − 2G(j) + G(j − w)) / w²`, `G` the profile's second
//! integral from prefix sums), at the cost of about three height samples,
//! for any point. (A plain box mean is not enough: its edges sweep over
//! the micro-relief, so it is as rough as the terrain at short range, and
//! a search threads through that.) A mountain-shaped terrain (not such a
//! sum) gets the 1-2-1 × 1-2-1 mean of nine samples half a window apart.
//!
//! It is evaluated at the frame's cell corners and interpolated bilinearly
//! between them (the window spans cells); a point off the lattice has its
//! nearest lattice point's ground. All by lattice index, so the A* lattice,
//! the sequential planner and [`super::score_path`] get the same numbers,
//! bit for bit. Lake tests keep the raw terrain: a road must stay dry where
//! it is.

use super::PlannerParams;
use super::frame::Frame;
use crate::num::fast_floor;
use crate::terrain::Terrain;
use glam::DVec2;

/// The terrain averaged over a window (see the module docs).
pub(crate) struct Smoother {
    /// Per term: `a / 128`, `b / 128`, `off / 128` and the half-window in
    /// profile units.
    terms: Vec<(f64, f64, f64, f64)>,
    prof: Vec<f64>,
    /// `cum[k]`: the profile's integral over `[0, k]`; `total` over a period.
    cum: Vec<f64>,
    total: f64,
    /// `cum2[k]`: the integral of `cum`'s function over `[0, k]`; `total2`
    /// over a period.
    cum2: Vec<f64>,
    total2: f64,
    mask: i64,
    shift: u32,
    /// Without terms (a mountain-shaped terrain): the window, metres.
    sampled: Option<f64>,
}

impl Smoother {
    /// The smoother of a request, or `None` for the raw terrain
    /// (`ground_window` 0).
    pub fn new(frame: &Frame, params: &PlannerParams) -> Option<Self> {
        if params.ground_window <= 0.0 {
            return None;
        }
        // The triangle reaches the window's width each way.
        let half = params.ground_window * frame.cell;
        let prof = frame.prof.clone();
        let n = prof.len();
        let analytic = frame.lipschitz.is_some() && n.is_power_of_two() && !frame.terms.is_empty();
        let (mut cum, mut cum2) = (Vec::with_capacity(n + 1), Vec::with_capacity(n + 1));
        let (mut acc, mut acc2) = (0.0, 0.0);
        cum.push(0.0);
        cum2.push(0.0);
        for k in 0..n {
            let slope = prof[(k + 1) % n] - prof[k];
            acc2 += acc + 0.5 * prof[k] + slope / 6.0;
            acc += prof[k] + 0.5 * slope;
            cum.push(acc);
            cum2.push(acc2);
        }
        let terms = (frame.terms.iter())
            .map(|&(a, b, off)| {
                let reach = half * a.hypot(b) / 128.0;
                (a / 128.0, b / 128.0, off / 128.0, reach)
            })
            .collect();
        Some(Self {
            terms,
            prof,
            cum,
            total: acc,
            cum2,
            total2: acc2,
            mask: n as i64 - 1,
            shift: n.trailing_zeros(),
            sampled: (!analytic).then_some(half),
        })
    }

    /// The profile's second integral from 0 to `x` (`x` within a few
    /// periods of 0): `G(x) = ∫₀ˣ F`, `F(x) = ∫₀ˣ P`.
    #[inline(always)]
    fn second(&self, x: f64) -> f64 {
        let n = fast_floor(x);
        let ni = n as i64;
        let k = (ni & self.mask) as usize;
        let m = (ni >> self.shift) as f64;
        let y = x - m * (self.mask + 1) as f64;
        let f = x - n;
        let p = self.prof[k];
        let slope = self.prof[(k + 1) & self.mask as usize] - p;
        let within = self.cum2[k] + self.cum[k] * f + 0.5 * p * f * f + slope * f * f * f / 6.0;
        let len = (self.mask + 1) as f64;
        self.total * len * m * (m - 1.0) * 0.5 + m * self.total2 + m * self.total * y + within
    }

    /// The averaged ground at `p`.
    #[inline]
    pub fn at(&self, terrain: &Terrain, p: DVec2) -> f64 {
        if let Some(h) = self.sampled {
            let z = |dx: f64, dy: f64| terrain.height(p.x + dx * h, p.y + dy * h);
            let row = |dy: f64| 0.25 * z(-1.0, dy) + 0.5 * z(0.0, dy) + 0.25 * z(1.0, dy);
            return 0.25 * row(-1.0) + 0.5 * row(0.0) + 0.25 * row(1.0);
        }
        let mut sum = 0.0;
        for &(a, b, off, w) in &self.terms {
            let j = a * p.x + b * p.y + off;
            if j.is_nan() || j.abs() >= 1e15 {
                return terrain.height(p.x, p.y);
            }
            if w < 1e-9 {
                let k = fast_floor(j);
                let f = j - k;
                let k = (k as i64 & self.mask) as usize;
                let next = self.prof[(k + 1) & self.mask as usize];
                sum += self.prof[k] + f * (next - self.prof[k]);
                continue;
            }
            // The second difference ignores what is linear in `j`: shift
            // `j` into the first period (G(x + whole periods) differs from
            // G(x) by a linear function).
            let len = (self.mask + 1) as f64;
            let j0 = j - fast_floor(j / len) * len;
            let g = self.second(j0 + w) - 2.0 * self.second(j0) + self.second(j0 - w);
            sum += g / (w * w);
        }
        sum
    }
}

/// The lattice index `a` as (cell, remainder in `0..sub`).
#[inline]
pub(crate) fn split(a: i64, sub: i64) -> (i64, i64) {
    (a.div_euclid(sub), a.rem_euclid(sub))
}

/// The ground at lattice point `(a, b)` from its cell corners' `cell(i, j)`
/// (bilinear; a corner with weight 0 is not asked for).
#[inline]
pub(crate) fn blend(a: i64, b: i64, sub: i64, mut cell: impl FnMut(i64, i64) -> f64) -> f64 {
    let ((i, ra), (j, rb)) = (split(a, sub), split(b, sub));
    if ra == 0 && rb == 0 {
        return cell(i, j);
    }
    let (u, v) = (ra as f64 / sub as f64, rb as f64 / sub as f64);
    let s00 = cell(i, j);
    let s10 = if ra > 0 { cell(i + 1, j) } else { 0.0 };
    let (s01, s11) = if rb > 0 {
        (
            cell(i, j + 1),
            if ra > 0 { cell(i + 1, j + 1) } else { 0.0 },
        )
    } else {
        (0.0, 0.0)
    };
    (s00 * (1.0 - u) + s10 * u) * (1.0 - v) + (s01 * (1.0 - u) + s11 * u) * v
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

/// A direct-mapped cache of values by lattice index: a pure function's
/// results, so what it forgets is only computed again. Allocated on first
/// use (a short road's scoring uses one of the three).
pub(crate) struct Memo {
    keys: Vec<(i64, i64)>,
    vals: Vec<f64>,
}

impl Memo {
    const BITS: u32 = 12;

    fn new() -> Self {
        Self {
            keys: Vec::new(),
            vals: Vec::new(),
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
        (self.keys.get(s) == Some(&(a, b))).then(|| self.vals[s])
    }

    #[inline(always)]
    fn put(&mut self, a: i64, b: i64, v: f64) {
        if self.keys.is_empty() {
            self.keys = vec![(i64::MIN, i64::MIN); 1 << Self::BITS];
            self.vals = vec![0.0; 1 << Self::BITS];
        }
        let s = Self::slot(a, b);
        self.keys[s] = (a, b);
        self.vals[s] = v;
    }
}

/// Raw and averaged lattice heights for the planners that do not search a
/// window (the sequential planner, scoring), cached.
pub(crate) struct GroundMap<'a> {
    terrain: &'a Terrain,
    frame: &'a Frame,
    smoother: Option<Smoother>,
    raw: Memo,
    cells: Memo,
    ground: Memo,
}

impl<'a> GroundMap<'a> {
    pub fn new(terrain: &'a Terrain, frame: &'a Frame, params: &PlannerParams) -> Self {
        Self {
            terrain,
            frame,
            smoother: Smoother::new(frame, params),
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

    /// The costed ground at a point: its nearest lattice point's (the
    /// terrain's height there, exactly, without averaging).
    #[inline]
    pub fn at(&mut self, p: DVec2) -> f64 {
        if self.smoother.is_none() {
            return self.terrain.height(p.x, p.y);
        }
        let (a, b) = self.frame.to_lattice(p);
        self.ground(a, b)
    }

    /// The averaged ground at cell corner `(i, j)`.
    fn cell(&mut self, i: i64, j: i64) -> f64 {
        if let Some(z) = self.cells.get(i, j) {
            return z;
        }
        let s = self.smoother.as_ref().expect("averaging");
        let z = s.at(self.terrain, self.frame.point(i, j));
        self.cells.put(i, j, z);
        z
    }

    /// The costed ground at lattice point `(a, b)`.
    #[inline]
    pub fn ground(&mut self, a: i64, b: i64) -> f64 {
        if self.smoother.is_none() {
            return self.raw(a, b);
        }
        if let Some(z) = self.ground.get(a, b) {
            return z;
        }
        let z = blend(a, b, self.frame.sub, |i, j| self.cell(i, j));
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
    fn the_ground_is_the_terrain_averaged_and_the_same_everywhere() {
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
                assert_eq!(map.ground(a, b), map.at(frame.lattice(a, b)));
                if a % 2 == 0 && b % 2 == 0 {
                    let s = Smoother::new(&frame, &p).unwrap();
                    assert_eq!(map.ground(a, b), s.at(&t, frame.lattice(a, b)));
                }
                // Second differences: the micro-relief.
                let raw = map.raw(a + 1, b) - 2.0 * map.raw(a, b) + map.raw(a - 1, b);
                let gr = map.ground(a + 1, b) - 2.0 * map.ground(a, b) + map.ground(a - 1, b);
                rough += raw.abs();
                smooth += gr.abs();
            }
        }
        assert!(smooth < 0.5 * rough, "{smooth} vs {rough}");
        // A window of nothing: the terrain itself.
        let tiny = PlannerParams {
            ground_window: 1e-12,
            ..p.clone()
        };
        let m = Smoother::new(&frame, &tiny).unwrap();
        for k in 0..50 {
            let q = DVec2::new(37.3 * k as f64 - 900.0, 11.9 * k as f64 + 250.0);
            assert!((m.at(&t, q) - t.height(q.x, q.y)).abs() < 1e-6, "{q}");
        }
        // Off: the raw terrain, exactly.
        let raw = PlannerParams {
            ground_window: 0.0,
            ..p
        };
        let mut m2 = GroundMap::new(&t, &frame, &raw);
        assert_eq!(m2.ground(7, 3), m2.raw(7, 3));
        let q = DVec2::new(12.3, 45.6);
        assert_eq!(m2.at(q), t.height(q.x, q.y));
    }

    #[test]
    fn the_window_mean_is_exact_along_the_terms_far_out_too() {
        // Five parallel terms: the terrain varies along one direction only,
        // and the ground is its triangle-weighted mean over the window along it.
        let dir = DVec2::new(12.0, 5.0);
        let params = crate::terrain::TerrainParams {
            height_vectors: vec![dir, dir * 0.5, dir * 1.5, dir, dir * 2.0],
            ..Default::default()
        };
        let t = Terrain::new(params).unwrap();
        let p = PlannerParams::default();
        let frame = Frame::new(&t, DVec2::ZERO, DVec2::new(400.0, 0.0), &p);
        let map = Smoother::new(&frame, &p).unwrap();
        let half = p.ground_window * frame.cell;
        let u = dir.normalize();
        for k in 0..20 {
            let far = if k % 2 == 0 { 1.0 } else { 3.0e5 };
            let q = DVec2::new(-3000.0 + 317.0 * k as f64, 1234.0 - 91.0 * k as f64) * far;
            let n = 4000;
            let (mut sum, mut total) = (0.0, 0.0);
            for i in 0..n {
                let s = -half + 2.0 * half * (i as f64 + 0.5) / n as f64;
                let r = q + u * s;
                let w = 1.0 - s.abs() / half;
                sum += w * t.height(r.x, r.y);
                total += w;
            }
            let mean = sum / total;
            let z = map.at(&t, q);
            assert!((z - mean).abs() < 1e-3, "{q}: {z} vs {mean}");
        }
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
