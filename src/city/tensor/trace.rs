//! Streamline integration: a correct RK4 step through the eigen-field (the
//! field sampled along the step, each sample's sign aligned with the
//! direction before it), and one half of a line traced from its seed until
//! it leaves the free region, the field degenerates, it comes too close to
//! a line of its family (or loops back onto itself), or grows too long.

use super::field::{Sampler, major_of};
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
#[inline(always)]
pub(crate) fn direction<S: Sampler>(field: &S, family: Family, p: DVec2) -> Option<DVec2> {
    let v = major_of(field.tensor(p))?;
    Some(match family {
        Family::Major => v,
        Family::Minor => v.perp(),
    })
}

#[inline(always)]
fn aligned(v: DVec2, to: DVec2) -> DVec2 {
    if v.dot(to) < 0.0 { -v } else { v }
}

/// One classical RK4 step of length about `h` from `p`, continuing
/// direction `prev`: `k1` at `p`, `k2` at `p + h/2·k1`, `k3` at
/// `p + h/2·k2`, `k4` at `p + h·k3`, every sample turned to agree with
/// `prev` (k1) or k1 (the others). `None` where any sample degenerates.
#[inline(always)]
pub(crate) fn rk4<S: Sampler>(
    field: &S,
    family: Family,
    p: DVec2,
    prev: DVec2,
    h: f64,
) -> Option<DVec2> {
    let k1 = aligned(direction(field, family, p)?, prev);
    let k2 = aligned(direction(field, family, p + k1 * (0.5 * h))?, k1);
    let k3 = aligned(direction(field, family, p + k2 * (0.5 * h))?, k1);
    let k4 = aligned(direction(field, family, p + k3 * h)?, k1);
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
pub(crate) fn trace_half<S: Sampler>(
    field: &S,
    region: &Region,
    store: &mut Store,
    family: Family,
    (seed, dir): (DVec2, DVec2),
    (line, sign): (u32, i32),
    lim: &Limits,
    budget: &mut u64,
) -> (Vec<DVec2>, Stop) {
    let mut pts = Vec::new();
    let (mut p, mut prev) = (seed, dir);
    // Distance the line may still go before the next collision query.
    let mut safe = -1.0;
    let mut k: i32 = 0;
    let stop = loop {
        if pts.len() >= lim.max_steps {
            break Stop::Length;
        }
        if *budget == 0 {
            break Stop::Budget;
        }
        *budget -= 1;
        let Some(d) = rk4(field, family, p, prev, lim.h) else {
            break Stop::Degenerate;
        };
        let len = d.length();
        if !(len > lim.h * 1.0e-3) {
            break Stop::Degenerate;
        }
        let q = p + d;
        if let Some(hit) = region.step_hit(p, q) {
            k += 1;
            pts.push(hit.point);
            break Stop::Edge(hit);
        }
        k += 1;
        safe -= len;
        if safe < 0.0 {
            let near = store.nearest(q, lim.reach, Some((line, sign * k, lim.window)));
            if near < lim.thr {
                break Stop::Close;
            }
            safe = near - lim.thr;
        }
        pts.push(q);
        if k % lim.every == 0 {
            store.insert(q, line, sign * k);
        }
        p = q;
        prev = d / len;
    };
    if k % lim.every != 0
        && let Some(&last) = pts.last()
    {
        store.insert(last, line, sign * k);
    }
    (pts, stop)
}
