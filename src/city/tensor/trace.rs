//! Streamline integration: a correct RK4 step through the eigen-field (the
//! field sampled along the step, each sample's sign aligned with the
//! direction before it), and one half of a line traced from its seed until
//! it leaves the free region, the field degenerates, it comes too close to
//! a line of its family (or loops back onto itself), or grows too long.

use super::field::{Cell, MIN_EIGEN, SampledField};
use super::pending::Pending;
use super::region::{Hit, Region, StepCheck};
use super::store::Store;
use glam::DVec2;

/// Which eigenvector a line follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Along the major eigenvectors.
    Major,
    /// Along the minor eigenvectors.
    Minor,
}

impl Family {
    /// The other family.
    pub fn other(self) -> Self {
        match self {
            Self::Major => Self::Minor,
            Self::Minor => Self::Major,
        }
    }

    /// 0 for major, 1 for minor.
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The unit eigenvector of `family` at `p`, `None` where degenerate.
pub(crate) fn direction(field: &SampledField, family: Family, p: DVec2) -> Option<DVec2> {
    let v = field.major(p)?;
    Some(match family {
        Family::Major => v,
        Family::Minor => v.perp(),
    })
}

/// Where a point is in the eigen-field cache: its cell and its
/// coordinates in it. A half-line keeps its place and advances it with
/// each step, locating the point afresh only when it leaves the cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Place {
    pub(super) cell: Cell,
    pub(super) i: i32,
    pub(super) j: i32,
    pub(super) u: f32,
    pub(super) v: f32,
}

impl Place {
    /// The place of `p`.
    #[inline(always)]
    pub(super) fn of(field: &SampledField, p: DVec2) -> Self {
        let (i, j, uv) = field.index_of(p);
        Self {
            cell: field.cell(i as i32, j as i32).copied().unwrap_or(Cell::NAN),
            i: i as i32,
            j: j as i32,
            u: uv.x as f32,
            v: uv.y as f32,
        }
    }

    /// Moves by `d` (metres), located afresh at `to` if out of the cell
    /// (in place: the cell is rewritten only then).
    #[inline(always)]
    pub(super) fn advance(&mut self, field: &SampledField, d: DVec2, to: DVec2) {
        let inv = field.inv_cell();
        let (u, v) = (self.u + (d.x * inv) as f32, self.v + (d.y * inv) as f32);
        if inside(u, v) {
            (self.u, self.v) = (u, v);
        } else {
            *self = Self::of(field, to);
        }
    }
}

/// One classical RK4 step of length about `h` from `p`, continuing
/// direction `prev`: `k1` at `p`, `k2` at `p + h/2·k1`, `k3` at
/// `p + h/2·k2`, `k4` at `p + h·k3`, each sample turned to agree with the
/// direction before it (`prev` for k1, k1 for the others). `None` where the
/// field degenerates at `p`.
#[cfg(test)]
pub(crate) fn rk4(
    field: &SampledField,
    minor: bool,
    p: DVec2,
    prev: DVec2,
    h: f64,
) -> Option<DVec2> {
    let place = Place::of(field, p);
    if minor {
        rk4_at::<true>(field, &place, p, prev, h)
    } else {
        rk4_at::<false>(field, &place, p, prev, h)
    }
}

/// Whether cell coordinates `(u, v)` are in the cell, `[0, 1)²`, by their
/// bits: a non-negative f32 orders like its bits, and a negative one or a
/// NaN has bits above 1.0's. (−0.0 counts as outside, which only sends it
/// down the slower path that handles any point.)
#[inline(always)]
pub(super) fn inside(u: f32, v: f32) -> bool {
    u.to_bits().max(v.to_bits()) < 1.0f32.to_bits()
}

/// [`rk4`] from `p` at `place`, the samples in f32 cell coordinates.
#[inline(always)]
fn rk4_at<const MINOR: bool>(
    field: &SampledField,
    place: &Place,
    p: DVec2,
    prev: DVec2,
    h: f64,
) -> Option<DVec2> {
    let (k1, s) = first_sample::<MINOR>(place, prev)?;
    let c = (0.5 * h * field.inv_cell()) as f32;
    let k2 = sample::<MINOR, false>(field, place, p, [k1[0] * c, k1[1] * c], s, k1);
    let k3 = sample::<MINOR, false>(field, place, p, [k2[0] * c, k2[1] * c], s, k1);
    let c2 = 2.0 * c;
    let k4 = sample::<MINOR, false>(field, place, p, [k3[0] * c2, k3[1] * c2], s, k1);
    let sum = |i: usize| (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i]) as f64;
    Some(DVec2::new(sum(0), sum(1)) * (h / 6.0))
}

/// A step's first sample: the eigenvector at `place`, turned to agree
/// with the direction `prev` the line comes from, and the sign that turned
/// it (the step's other samples start inside the cell with it); `None`
/// where it is shorter than [`MIN_EIGEN`] or NaN (a degenerate cell).
#[inline(always)]
pub(super) fn first_sample<const MINOR: bool>(
    place: &Place,
    prev: DVec2,
) -> Option<([f32; 2], f32)> {
    let m = place.cell.eval::<MINOR>(place.u, place.v);
    let s = 1.0f32.copysign(m[0] * prev.x as f32 + m[1] * prev.y as f32);
    let k1 = [m[0] * s, m[1] * s];
    let long = (((MIN_EIGEN * MIN_EIGEN) as f32)..).contains(&(k1[0] * k1[0] + k1[1] * k1[1]));
    long.then_some((k1, s))
}

/// The eigenvector `du` (cell units) from `place` (at point `p`) with
/// k1's sign `s` inside the place's cell (see [`Cell::eval`]), else from
/// the cell it falls in, turned to agree with `to` (k1). Only the
/// neighbouring cells are read directly (fixed steps), or with `ANY` any
/// cell (adaptive steps, up to a million cells away); farther or off the
/// grid, [`off_grid`]. (Within a cell of the place, `floor` is the
/// neighbour's offset exactly, so both read the neighbours alike.)
#[inline(always)]
pub(super) fn sample<const MINOR: bool, const ANY: bool>(
    field: &SampledField,
    place: &Place,
    p: DVec2,
    du: [f32; 2],
    s: f32,
    to: [f32; 2],
) -> [f32; 2] {
    let (u, v) = (place.u + du[0], place.v + du[1]);
    if inside(u, v) {
        let m = place.cell.eval::<MINOR>(u, v);
        return [m[0] * s, m[1] * s];
    }
    let near = if ANY {
        u.abs() < 1.0e6 && v.abs() < 1.0e6
    } else {
        (u > -1.0) & (v > -1.0) & (u < 2.0) & (v < 2.0)
    };
    if !near {
        return off_grid(field, MINOR, p, du, to);
    }
    let (fu, fv) = (floor(u), floor(v));
    match field.cell(place.i + fu, place.j + fv) {
        Some(cell) => {
            let m = cell.eval::<MINOR>(u - fu as f32, v - fv as f32);
            let s = 1.0f32.copysign(m[0] * to[0] + m[1] * to[1]);
            [m[0] * s, m[1] * s]
        }
        None => off_grid(field, MINOR, p, du, to),
    }
}

/// `x.floor()` as an integer, for |x| < 1e6 (callers check), without a
/// library call.
#[inline(always)]
pub(super) fn floor(x: f32) -> i32 {
    debug_assert!(x.abs() < 1.0e6);
    // SAFETY: |x| < 1e6 (callers check, NaN excluded) fits an i32.
    let t = unsafe { x.to_int_unchecked::<i32>() };
    t - (t as f32 > x) as i32
}

/// [`sample`] off the grid (the nearest edge cell's value) or a cell or
/// more away.
#[cold]
#[inline(never)]
fn off_grid(field: &SampledField, minor: bool, p: DVec2, du: [f32; 2], to: [f32; 2]) -> [f32; 2] {
    let q = p + DVec2::new(du[0] as f64, du[1] as f64) * field.cell_side();
    let w = field.towards(q, minor, DVec2::new(to[0] as f64, to[1] as f64));
    [w.x as f32, w.y as f32]
}

/// Why a half-line stopped.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stop {
    /// It met the boundary or an obstacle (its last point is on the edge).
    Edge(Hit),
    /// The field has no direction ahead.
    Degenerate,
    /// The next step would leave the free region without crossing an edge
    /// (only from a start on an edge; a safety net).
    Blocked,
    /// It came within the test distance of a line of its family or of an
    /// earlier stretch of itself.
    Close,
    /// It reached the longest line allowed.
    Length,
    /// The whole run's step budget is spent.
    Budget,
}

/// The fixed numbers of a level's tracing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Step length.
    pub h: f64,
    /// Collision distance to filed points (`dtest` plus half the filing
    /// interval, so the distance to the lines themselves is ≥ `dtest`).
    pub thr: f64,
    /// Search radius of a collision query.
    pub reach: f64,
    /// Every how many steps a point is filed.
    pub every: i32,
    /// Own points fewer than this many steps away are not collisions.
    pub window: i32,
    /// Most steps of the whole line.
    pub max_steps: usize,
    /// Local error allowed per step (metres); 0: fixed steps of `h`.
    pub tol: f64,
    /// The filing interval (`every · h`): with adaptive steps the longest
    /// piece a step is filed in.
    pub max_h: f64,
    /// Longest adaptive step ([`longest_step`](super::bs3::longest_step)).
    pub max_stride: f64,
    /// Adaptive: own points closer than this in integration time are not
    /// collisions (`window · h`).
    pub own_time: f64,
    /// Adaptive: most integration time of the whole line (`max_steps · h`).
    pub max_time: f64,
}

/// The buffers a line is traced into, kept from line to line (no
/// regrowing): its two halves' points (without the seed), with adaptive
/// steps their integration times, and their pending filed points.
#[derive(Default)]
pub(crate) struct Scratch {
    pub halves: [Vec<DVec2>; 2],
    pub times: [Vec<f64>; 2],
    pub(super) pends: [Pending; 2],
}

/// One half of a line being traced.
struct Half {
    pts: Vec<DVec2>,
    p: DVec2,
    place: Place,
    prev: DVec2,
    /// Distance it may still go before the next collision query (a step is
    /// never longer than `h`).
    safe: f64,
    /// Steps taken (the filed step index is `sign·k`).
    k: i32,
    sign: i32,
    /// Steps until the next point is filed.
    to_file: i32,
    stop: Option<Stop>,
}

impl Half {
    fn new(field: &SampledField, seed: DVec2, dir: DVec2, sign: i32, every: i32) -> Self {
        Self {
            pts: Vec::new(),
            p: seed,
            place: Place::of(field, seed),
            prev: dir,
            safe: -1.0,
            k: 0,
            sign,
            to_file: every,
            stop: None,
        }
    }

    /// Takes the RK4 displacement `d` (`None`: degenerate), unless the step
    /// leaves the free region or comes too close to the family.
    #[inline(always)]
    fn advance(
        &mut self,
        d: Option<DVec2>,
        field: &SampledField,
        region: &Region,
        store: &mut Store,
        line: u32,
        lim: &Limits,
    ) {
        let min_step = MIN_EIGEN * lim.h;
        let Some(d) = d.filter(|d| (min_step * min_step..).contains(&d.length_squared())) else {
            self.stop = Some(Stop::Degenerate);
            return;
        };
        let q = self.p + d;
        match region.step(self.p, q) {
            StepCheck::Clear => {}
            StepCheck::Hit(hit) => {
                self.k += 1;
                self.pts.push(hit.point);
                self.stop = Some(Stop::Edge(hit));
                return;
            }
            StepCheck::Blocked => {
                self.stop = Some(Stop::Blocked);
                return;
            }
        }
        self.safe -= lim.h;
        if self.safe < 0.0 {
            let near = store.nearest(q, lim.reach, (line, self.sign * (self.k + 1), lim.window));
            if near < lim.thr {
                self.stop = Some(Stop::Close);
                return;
            }
            self.safe = near - lim.thr;
        }
        self.k += 1;
        self.pts.push(q);
        self.to_file -= 1;
        if self.to_file == 0 {
            store.insert(q, line, self.sign * self.k);
            self.to_file = lim.every;
        }
        self.place.advance(field, d, q);
        self.p = q;
        self.prev = d;
    }

    /// Steps on alone until it stops or has taken `steps` steps in all.
    #[inline(never)]
    fn run<const MINOR: bool>(
        &mut self,
        steps: usize,
        field: &SampledField,
        region: &Region,
        store: &mut Store,
        line: u32,
        lim: &Limits,
    ) {
        while self.stop.is_none() && (self.k as usize) < steps {
            let d = rk4_at::<MINOR>(field, &self.place, self.p, self.prev, lim.h);
            self.advance(d, field, region, store, line, lim);
        }
    }

    /// Files the last point if it was not, and hands over points and stop.
    fn finish(self, store: &mut Store, line: u32, every: i32) -> (Vec<DVec2>, Stop) {
        if self.to_file != every
            && let Some(&last) = self.pts.last()
        {
            store.insert(last, line, self.sign * self.k);
        }
        (self.pts, self.stop.unwrap_or(Stop::Length))
    }
}

/// Traces line `line` from `seed` both ways (along `dir`, then against
/// it), the two halves in step, filing their points in `store` (step
/// indices `k` forward, `−k` backward). The points (without the seed)
/// replace the contents of `scratch.halves`. Fixed RK4 steps of `h` where
/// `lim.tol` is 0, else adaptive ones
/// ([`trace_adaptive`](super::adaptive::trace_adaptive)), their
/// integration times in `scratch.times`.
pub(crate) fn trace_both(
    field: &SampledField,
    region: &Region,
    store: &mut Store,
    family: Family,
    seed: (DVec2, DVec2),
    line: u32,
    lim: &Limits,
    budget: &mut u64,
    scratch: &mut Scratch,
) -> [Stop; 2] {
    use super::adaptive::trace_adaptive;
    let bufs = &mut scratch.halves;
    match (family, lim.tol > 0.0) {
        (Family::Major, false) => {
            trace_family::<false>(field, region, store, seed, line, lim, budget, bufs)
        }
        (Family::Minor, false) => {
            trace_family::<true>(field, region, store, seed, line, lim, budget, bufs)
        }
        (Family::Major, true) => {
            trace_adaptive::<false>(field, region, store, seed, line, lim, budget, scratch)
        }
        (Family::Minor, true) => {
            trace_adaptive::<true>(field, region, store, seed, line, lim, budget, scratch)
        }
    }
}

/// [`trace_both`] for the major (or, with `MINOR`, the minor) family.
fn trace_family<const MINOR: bool>(
    field: &SampledField,
    region: &Region,
    store: &mut Store,
    (seed, dir): (DVec2, DVec2),
    line: u32,
    lim: &Limits,
    budget: &mut u64,
    bufs: &mut [Vec<DVec2>; 2],
) -> [Stop; 2] {
    let mut halves = [
        Half::new(field, seed, dir, 1, lim.every),
        Half::new(field, seed, -dir, -1, lim.every),
    ];
    for (h, buf) in halves.iter_mut().zip(bufs.iter_mut()) {
        buf.clear();
        h.pts = std::mem::take(buf);
    }
    let steps = lim.max_steps.min(*budget as usize);
    let [a, b] = &mut halves;
    // In step while both run: each files its points as it goes, so the
    // other's are in the store in the same order every time.
    while a.stop.is_none() && b.stop.is_none() && ((a.k + b.k) as usize) < steps {
        // Two independent chains of samples the processor overlaps.
        let da = rk4_at::<MINOR>(field, &a.place, a.p, a.prev, lim.h);
        let db = rk4_at::<MINOR>(field, &b.place, b.p, b.prev, lim.h);
        a.advance(da, field, region, store, line, lim);
        b.advance(db, field, region, store, line, lim);
    }
    let (alone, other_k) = if a.stop.is_none() { (a, b.k) } else { (b, a.k) };
    alone.run::<MINOR>(
        steps - (other_k as usize).min(steps),
        field,
        region,
        store,
        line,
        lim,
    );
    // Whatever still runs has used up the steps.
    let end = if steps < lim.max_steps {
        Stop::Budget
    } else {
        Stop::Length
    };
    for h in halves.iter_mut().filter(|h| h.stop.is_none()) {
        h.stop = Some(end);
    }
    *budget = budget.saturating_sub((halves[0].k + halves[1].k) as u64);
    let [a, b] = halves.map(|h| h.finish(store, line, lim.every));
    (bufs[0], bufs[1]) = (a.0, b.0);
    [a.1, b.1]
}
