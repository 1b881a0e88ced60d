//! Seeds: the density field (priority and local spacing) and the two
//! priority queues of seed candidates, one per family — gates first, then
//! the candidates laid beside and across finished lines (Jobard–Lefer), then
//! random ones — highest density first, jittered by the seed.

use super::params::DensityParams;
use super::trace::Family;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use std::collections::BinaryHeap;
use std::sync::Arc;

/// Most candidates one level queues (a backstop: the run's estimate,
/// [`MAX_ESTIMATED_SEEDS`](super::MAX_ESTIMATED_SEEDS), is far below).
pub(crate) const MAX_QUEUED_SEEDS: usize = 1 << 23;

/// The density field: 1 at the centre, linearly down to the floor at the
/// radius and beyond (see [`DensityParams`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Density {
    centre: DVec2,
    radius: f64,
    floor: f64,
}

impl Density {
    /// The field of `params`, defaulting to the boundary's centroid and its
    /// farthest vertex from there.
    pub fn new(params: &DensityParams, boundary: &[DVec2]) -> Self {
        let centre = params.centre.unwrap_or_else(|| centroid(boundary));
        let far = boundary
            .iter()
            .map(|p| p.distance(centre))
            .fold(0.0, f64::max);
        Self {
            centre,
            radius: params.radius.unwrap_or(far).max(1.0e-3),
            floor: params.floor,
        }
    }

    /// The density at `p`, in `[floor, 1]`.
    #[inline]
    pub fn at(&self, p: DVec2) -> f64 {
        1.0 - (1.0 - self.floor) * (p.distance(self.centre) / self.radius).min(1.0)
    }

    /// Where it is highest.
    pub fn centre(&self) -> DVec2 {
        self.centre
    }
}

/// The area centroid of a polygon (the vertex mean if it has no area).
fn centroid(poly: &[DVec2]) -> DVec2 {
    let Some(&o) = poly.first() else {
        return DVec2::ZERO;
    };
    let (mut a, mut c) = (0.0, DVec2::ZERO);
    for i in 0..poly.len() {
        let (p, q) = (poly[i] - o, poly[(i + 1) % poly.len()] - o);
        let cross = p.perp_dot(q);
        a += cross;
        c += (p + q) * cross;
    }
    if a.abs() > 1.0e-12 {
        o + c / (3.0 * a)
    } else {
        poly.iter().sum::<DVec2>() / poly.len() as f64
    }
}

/// How a candidate came about: the higher band is tried first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Band {
    /// Random, to reach pockets the others miss.
    Random,
    /// Beside or across a finished line, or the density centre.
    Laid,
    /// A highway gate.
    Gate,
}

/// A seed candidate.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub pos: DVec2,
    /// The gate it stands on, if any.
    pub gate: Option<u32>,
}

/// Where a candidate stands in its family's queue: it comes before every
/// candidate of a lower ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Ticket {
    band: Band,
    rank: Rank,
}

/// A queued candidate's rank within its band and family: its priority
/// (as an order-preserving integer) above its reversed sequence number,
/// so the heap pops the highest priority, the earlier on ties.
type Rank = u128;

/// `priority` as an integer ordered like `f64::total_cmp`.
fn ordered_bits(priority: f64) -> u64 {
    let b = priority.to_bits() as i64;
    ((b ^ (((b >> 63) as u64) >> 1) as i64) as u64) ^ (1 << 63)
}

/// One level's seed candidates: per family and band (gates, laid,
/// random; the higher band first) a max-heap of ranks, the candidates
/// themselves stored by sequence number.
pub(crate) struct SeedQueue {
    heaps: [[BinaryHeap<Rank>; 3]; 2],
    /// (Shared with a lent [`Part`] while it is out, when nothing is
    /// pushed: so pushing never copies it.)
    cands: Arc<Vec<Candidate>>,
    rng: ChaCha8Rng,
    jitter: f64,
    density: Density,
}

impl SeedQueue {
    /// An empty queue; `seed` drives the jitter and the random candidates.
    pub fn new(seed: u64, jitter: f64, density: Density) -> Self {
        Self {
            heaps: Default::default(),
            cands: Arc::default(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            jitter,
            density,
        }
    }

    fn unit(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Queues a candidate with priority `density·(1 − jitter·u)` if
    /// `keep(family, pos)` (the jitter is drawn either way, so the other
    /// candidates keep their priorities).
    #[inline]
    pub fn push_if(
        &mut self,
        family: Family,
        band: Band,
        pos: DVec2,
        gate: Option<u32>,
        keep: impl Fn(Family, DVec2) -> bool,
    ) {
        let priority = self.density.at(pos) * (1.0 - self.jitter * self.unit());
        if !keep(family, pos) || self.cands.len() >= MAX_QUEUED_SEEDS {
            return;
        }
        let seq = self.cands.len() as u64;
        debug_assert_eq!(Arc::strong_count(&self.cands), 1, "queued while lent");
        Arc::make_mut(&mut self.cands).push(Candidate { pos, gate });
        let rank = ((ordered_bits(priority) as u128) << 64) | (u64::MAX - seq) as u128;
        self.heaps[family.index()][band as usize].push(rank);
    }

    /// The best candidate of `family`: highest band, then priority, then
    /// the earliest; with its ticket.
    pub fn pop(&mut self, family: Family) -> Option<(Ticket, Candidate)> {
        let top = self.peek(family)?;
        self.heaps[family.index()][top.0.band as usize].pop();
        Some(top)
    }

    /// [`pop`](Self::pop) without taking it off.
    pub fn peek(&self, family: Family) -> Option<(Ticket, Candidate)> {
        top(&self.heaps[family.index()], &self.cands)
    }

    /// Lends `family`'s candidates (to be pruned on another thread) until
    /// they are [given back](Self::give_back); nothing may be queued
    /// meanwhile, nor `family` popped.
    pub fn lend(&mut self, family: Family) -> Part {
        Part {
            family,
            heaps: std::mem::take(&mut self.heaps[family.index()]),
            cands: Arc::clone(&self.cands),
        }
    }

    /// Takes back what was lent.
    pub fn give_back(&mut self, part: Part) {
        self.heaps[part.family.index()] = part.heaps;
    }

    /// Queues again candidates of `family` taken off.
    pub fn restore(&mut self, family: Family, tickets: &[Ticket]) {
        for t in tickets {
            self.heaps[family.index()][t.band as usize].push(t.rank);
        }
    }

    /// Whether `family` has no candidate left.
    pub fn is_empty(&self, family: Family) -> bool {
        self.heaps[family.index()].iter().all(BinaryHeap::is_empty)
    }

    /// `n` random candidates of `family` in `[min, max]`; only those for
    /// which `keep(family, pos)` holds are queued.
    pub fn random(
        &mut self,
        family: Family,
        n: u32,
        min: DVec2,
        max: DVec2,
        keep: impl Fn(Family, DVec2) -> bool,
    ) {
        for _ in 0..n {
            let p = min + (max - min) * DVec2::new(self.unit(), self.unit());
            self.push_if(family, Band::Random, p, None, &keep);
        }
    }
}

/// The best candidate in `heaps` (by band), with its ticket.
fn top(heaps: &[BinaryHeap<Rank>; 3], cands: &[Candidate]) -> Option<(Ticket, Candidate)> {
    let (band, rank) = [Band::Gate, Band::Laid, Band::Random]
        .into_iter()
        .find_map(|b| heaps[b as usize].peek().map(|&r| (b, r)))?;
    let seq = u64::MAX - rank as u64;
    Some((Ticket { band, rank }, cands[seq as usize]))
}

/// One family's queued candidates, lent ([`SeedQueue::lend`]).
pub(crate) struct Part {
    family: Family,
    heaps: [BinaryHeap<Rank>; 3],
    cands: Arc<Vec<Candidate>>,
}

impl Part {
    /// Whose candidates.
    pub fn family(&self) -> Family {
        self.family
    }

    /// Takes off the best candidates while `drop(pos)` says so, their
    /// tickets to `out`.
    pub fn prune(&mut self, drop: impl Fn(DVec2) -> bool, out: &mut Vec<Ticket>) {
        while let Some((t, c)) = top(&self.heaps, &self.cands) {
            if !drop(c.pos) {
                return;
            }
            self.heaps[t.band as usize].pop();
            out.push(t);
        }
    }
}

/// Seed candidates along a line of `family` (walked as `walk` says), in
/// order to `out(family, pos)`: beside it, `dsep / density` to either side,
/// for its own family, and on it for the other family, about every
/// `dsep / density` along it.
pub(crate) fn lay(
    points: &[DVec2],
    family: Family,
    dsep: f64,
    walk: Walk,
    density: Density,
    mut out: impl FnMut(Family, DVec2),
) {
    let mut at = |p: DVec2, dir: DVec2| {
        let gap = dsep / density.at(p);
        let normal = dir.perp().normalize_or_zero();
        if normal != DVec2::ZERO {
            out(family, p + normal * gap);
            out(family, p - normal * gap);
        }
        out(family.other(), p);
        gap
    };
    let step = match walk {
        Walk::Steps(step) => step,
        Walk::Times {
            times,
            per,
            step,
            vel,
        } => return lay_by(points, (times, per), vel, step, at),
    };
    let n = points.len();
    let mut i = 0;
    while i < n {
        let (a, b) = (points[i.saturating_sub(1)], points[(i + 1).min(n - 1)]);
        let gap = at(points[i], b - a);
        i += ((gap / step) as usize).max(1);
    }
}

/// [`lay`] by `times` (one per point, rising; `per` a fixed step):
/// candidates every whole number of fixed steps, as many as [`lay`] skips
/// (`at(p, dir)` lays them and says the gap). Between points: with the
/// line's velocity `vel(p, towards)` (`dp/dt`), on the cubic through both
/// with their velocities, turned by the velocity there; else across the
/// segment.
fn lay_by(
    points: &[DVec2],
    (times, per): (&[f64], f64),
    vel: Option<&dyn Fn(DVec2, DVec2) -> DVec2>,
    step: f64,
    mut at: impl FnMut(DVec2, DVec2) -> f64,
) {
    let n = points.len().min(times.len());
    // The candidate's time, and the segment it is on.
    let (mut t, mut i) = (times.first().copied().unwrap_or(0.0), 0);
    while i < n {
        while i + 1 < n && times[i + 1] <= t {
            i += 1;
        }
        let (a, b) = (
            points[i.min(n.saturating_sub(2))],
            points[(i + 1).min(n - 1)],
        );
        let span = times[(i + 1).min(n - 1)] - times[i];
        let (p, dir) = if i + 1 < n && span > 0.0 {
            let u = ((t - times[i]) / span).clamp(0.0, 1.0);
            match vel {
                Some(vel) => hermite(a, b, vel(a, b - a) * span, vel(b, b - a) * span, u)
                    .map(|p| (p, vel(p, b - a)))
                    .unwrap_or((a.lerp(b, u), b - a)),
                None => (a.lerp(b, u), b - a),
            }
        } else {
            (points[i], b - a)
        };
        let gap = at(p, dir);
        t += (gap / step).floor().max(1.0) * per;
        // Past the end (or NaN).
        if t.partial_cmp(&times[n - 1]).is_none_or(|o| o.is_gt()) {
            break;
        }
    }
}

/// The point at `u` (0 ..= 1) on the cubic from `a` to `b` with end
/// derivatives `da`, `db`; `None` if not finite (a degenerate velocity).
fn hermite(a: DVec2, b: DVec2, da: DVec2, db: DVec2, u: f64) -> Option<DVec2> {
    let (u2, u3) = (u * u, u * u * u);
    let p = a * (2.0 * u3 - 3.0 * u2 + 1.0)
        + da * (u3 - 2.0 * u2 + u)
        + b * (3.0 * u2 - 2.0 * u3)
        + db * (u3 - u2);
    p.is_finite().then_some(p)
}

/// How [`SeedQueue::along`] walks a line.
#[derive(Clone, Copy)]
pub(crate) enum Walk<'a> {
    /// By points, `step` apart.
    Steps(f64),
    /// By the points' times, as if fixed steps of time `per` apart and
    /// walked as [`Walk::Steps`] with `step`; `vel` gives the line's
    /// velocity `dp/dt` at a point (turned towards its second argument).
    Times {
        times: &'a [f64],
        per: f64,
        step: f64,
        vel: Option<&'a dyn Fn(DVec2, DVec2) -> DVec2>,
    },
}
