//! Streamline integration: a correct RK4 step through the eigen-field (the
//! field sampled along the step, each sample's sign aligned with the
//! direction before it), and one half of a line traced from its seed until
//! it leaves the free region, the field degenerates, it comes too close to
//! a line of its family (or loops back onto itself), or grows too long.

use super::field::{MIN_EIGEN, SampledField};
use super::region::{Hit, Region};
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
pub(crate) fn rk4(field: &SampledField, minor: bool, p: DVec2, prev: DVec2, h: f64) -> Option<DVec2> {
    let k1 = field.towards(p, minor, prev);
    if !(k1.length_squared() >= MIN_EIGEN * MIN_EIGEN) {
        return None;
    }
    let k2 = field.towards(p + k1 * (0.5 * h), minor, k1);
    let k3 = field.towards(p + k2 * (0.5 * h), minor, k1);
    let k4 = field.towards(p + k3 * h, minor, k1);
    Some((k1 + 2.0 * (k2 + k3) + k4) * (h / 6.0))
}

/// Why a half-line stopped.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Stop {
    /// It met the boundary or an obstacle (its last point is on the edge).
    Edge(Hit),
    /// The field has no direction ahead.
    Degenerate,
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

/// Traces one half of line `line` from `seed` along `dir`, filing its
/// points in `store` (step indices `sign·k`). The points exclude the seed.
pub(crate) fn trace_half(
    field: &SampledField,
    region: &Region,
    store: &mut Store,
    family: Family,
    (seed, dir): (DVec2, DVec2),
    (line, sign): (u32, i32),
    lim: &Limits,
    budget: &mut u64,
) -> (Vec<DVec2>, Stop) {
    let minor = family == Family::Minor;
    let mut pts = Vec::new();
    let (mut p, mut prev) = (seed, dir);
    // Distance the line may still go before the next collision query (a
    // step is never longer than `h`).
    let mut safe = -1.0;
    let mut k: i32 = 0;
    let mut to_file = lim.every;
    let min_step2 = (MIN_EIGEN * lim.h) * (MIN_EIGEN * lim.h);
    let steps = lim.max_steps.min(*budget as usize);
    let stop = loop {
        if k as usize >= steps {
            break if steps < lim.max_steps {
                Stop::Budget
            } else {
                Stop::Length
            };
        }
        let Some(d) = rk4(field, minor, p, prev, lim.h) else {
            break Stop::Degenerate;
        };
        if !(d.length_squared() >= min_step2) {
            break Stop::Degenerate;
        }
        let q = p + d;
        k += 1;
        if let Some(hit) = region.step_hit(p, q) {
            pts.push(hit.point);
            break Stop::Edge(hit);
        }
        safe -= lim.h;
        if safe < 0.0 {
            let near = store.nearest(q, lim.reach, Some((line, sign * k, lim.window)));
            if near < lim.thr {
                k -= 1;
                break Stop::Close;
            }
            safe = near - lim.thr;
        }
        pts.push(q);
        to_file -= 1;
        if to_file == 0 {
            store.insert(q, line, sign * k);
            to_file = lim.every;
        }
        p = q;
        prev = d;
    };
    *budget -= k as u64;
    if to_file != lim.every
        && let Some(&last) = pts.last()
    {
        store.insert(last, line, sign * pts.len() as i32);
    }
    (pts, stop)
}
