//! Streamline integration: a correct RK4 step through the eigen-field (the
//! field sampled along the step, each sample's sign aligned with the
//! direction before it), and one half of a line traced from its seed until
//! it leaves the free region, the field degenerates, it comes too close to
//! a line of its family (or loops back onto itself), or grows too long.

use super::field::{MIN_EIGEN, SampledField};
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
/// field degenerates at `p`. Samples in `p`'s cache cell reuse its lookup.
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
    if !(MIN_EIGEN * MIN_EIGEN..).contains(&k1.length_squared()) {
        return None;
    }
    let scale = field.inv_cell();
    let at = |offset: DVec2, to: DVec2| {
        let uv = here.uv + offset * scale;
        if uv.x >= 0.0 && uv.y >= 0.0 && uv.x < 1.0 && uv.y < 1.0 {
            here.at(uv, minor, to)
        } else {
            field.towards(p + offset, minor, to)
        }
    };
    let k2 = at(k1 * (0.5 * h), k1);
    let k3 = at(k2 * (0.5 * h), k1);
    let k4 = at(k3 * h, k1);
    Some((k1 + 2.0 * (k2 + k3) + k4) * (h / 6.0))
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
        if !(min_step2..).contains(&d.length_squared()) {
            break Stop::Degenerate;
        }
        let q = p + d;
        k += 1;
        match region.step(p, q) {
            StepCheck::Clear => {}
            StepCheck::Hit(hit) => {
                pts.push(hit.point);
                break Stop::Edge(hit);
            }
            StepCheck::Blocked => {
                k -= 1;
                break Stop::Blocked;
            }
        }
        safe -= lim.h;
        if safe < 0.0 {
            let near = store.nearest(q, lim.reach, (line, sign * k, lim.window));
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
