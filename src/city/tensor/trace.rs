//! Streamline integration: a correct RK4 step through the eigen-field (the
//! field sampled along the step, each sample's sign aligned with the
//! direction before it), and one half of a line traced from its seed until
//! it leaves the free region, the field degenerates, it comes too close to
//! a line of its family (or loops back onto itself), or grows too long.

use super::field::{Located, MIN_EIGEN, SampledField};
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

/// One classical RK4 step of length about `h` from `p`, continuing
/// direction `prev`: `k1` at `p`, `k2` at `p + h/2·k1`, `k3` at
/// `p + h/2·k2`, `k4` at `p + h·k3`, each sample turned to agree with the
/// direction before it (`prev` for k1, k1 for the others). `None` where the
/// field degenerates at `p`.
#[inline(always)]
pub(crate) fn rk4(
    field: &SampledField,
    minor: bool,
    p: DVec2,
    prev: DVec2,
    h: f64,
) -> Option<DVec2> {
    let here = field.locate(p);
    let k1 = here.towards(minor, prev);
    let k2 = near(field, &here, p, k1 * (0.5 * h), minor, k1);
    let k3 = near(field, &here, p, k2 * (0.5 * h), minor, k1);
    let k4 = near(field, &here, p, k3 * h, minor, k1);
    combine(h, k1, k2, k3, k4)
}

/// The eigenvector at `p + offset`, turned to agree with `to`, reusing
/// `here` (the lookup of `p`) while the point stays in its cell.
#[inline(always)]
fn near(
    field: &SampledField,
    here: &Located,
    p: DVec2,
    offset: DVec2,
    minor: bool,
    to: DVec2,
) -> DVec2 {
    let uv = here.uv + offset * field.inv_cell();
    if uv.x >= 0.0 && uv.y >= 0.0 && uv.x < 1.0 && uv.y < 1.0 {
        here.at(uv, minor, to)
    } else {
        field.towards(p + offset, minor, to)
    }
}

/// The RK4 step from its four samples; `None` where k1 is degenerate.
#[inline(always)]
fn combine(h: f64, k1: DVec2, k2: DVec2, k3: DVec2, k4: DVec2) -> Option<DVec2> {
    (MIN_EIGEN * MIN_EIGEN..)
        .contains(&k1.length_squared())
        .then(|| (k1 + 2.0 * (k2 + k3) + k4) * (h / 6.0))
}

/// [`rk4`] for two points at once, as two independent chains of samples
/// the processor can overlap (the two halves of a line advance together).
#[inline(always)]
fn rk4_both(
    field: &SampledField,
    minor: bool,
    p: [DVec2; 2],
    prev: [DVec2; 2],
    h: f64,
) -> [Option<DVec2>; 2] {
    let here = [field.locate(p[0]), field.locate(p[1])];
    let at = |i: usize, offset: DVec2, to: DVec2| near(field, &here[i], p[i], offset, minor, to);
    let k1 = [
        here[0].towards(minor, prev[0]),
        here[1].towards(minor, prev[1]),
    ];
    let k2 = [
        at(0, k1[0] * (0.5 * h), k1[0]),
        at(1, k1[1] * (0.5 * h), k1[1]),
    ];
    let k3 = [
        at(0, k2[0] * (0.5 * h), k1[0]),
        at(1, k2[1] * (0.5 * h), k1[1]),
    ];
    let k4 = [at(0, k3[0] * h, k1[0]), at(1, k3[1] * h, k1[1])];
    [0, 1].map(|i| combine(h, k1[i], k2[i], k3[i], k4[i]))
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
}

/// One half of a line being traced.
struct Half {
    pts: Vec<DVec2>,
    p: DVec2,
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
    fn new(seed: DVec2, dir: DVec2, sign: i32, every: i32) -> Self {
        Self {
            pts: Vec::new(),
            p: seed,
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
        self.p = q;
        self.prev = d;
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
/// indices `k` forward, `−k` backward). The points exclude the seed.
pub(crate) fn trace_both(
    field: &SampledField,
    region: &Region,
    store: &mut Store,
    family: Family,
    (seed, dir): (DVec2, DVec2),
    line: u32,
    lim: &Limits,
    budget: &mut u64,
) -> [(Vec<DVec2>, Stop); 2] {
    let minor = family == Family::Minor;
    let mut halves = [
        Half::new(seed, dir, 1, lim.every),
        Half::new(seed, -dir, -1, lim.every),
    ];
    let steps = lim.max_steps.min(*budget as usize);
    loop {
        let taken = (halves[0].k + halves[1].k) as usize;
        let running = [halves[0].stop.is_none(), halves[1].stop.is_none()];
        if taken >= steps {
            let end = if steps < lim.max_steps {
                Stop::Budget
            } else {
                Stop::Length
            };
            for h in halves.iter_mut().filter(|h| h.stop.is_none()) {
                h.stop = Some(end);
            }
            break;
        }
        match running {
            [true, true] => {
                let ds = rk4_both(
                    field,
                    minor,
                    [halves[0].p, halves[1].p],
                    [halves[0].prev, halves[1].prev],
                    lim.h,
                );
                for (h, d) in halves.iter_mut().zip(ds) {
                    h.advance(d, region, store, line, lim);
                }
            }
            [true, false] | [false, true] => {
                let h = &mut halves[running[1] as usize];
                let d = rk4(field, minor, h.p, h.prev, lim.h);
                h.advance(d, region, store, line, lim);
            }
            [false, false] => break,
        }
    }
    *budget -= (halves[0].k + halves[1].k) as u64;
    halves.map(|h| h.finish(store, line, lim.every))
}
