//! Adaptive streamline integration (`StreamlineParams::tolerance` > 0): an
//! embedded Bogacki–Shampine 3(2) pair on the eigen-field (each sample's
//! sign aligned with the step's first, as in the fixed RK4), the step from
//! the local error estimate within `[dstep, STRIDE × the filing interval]`.
//! A step is cut into pieces of equal time along its cubic Hermite curve
//! (the pair's own interpolant), each at most the filing interval long, and
//! each piece is what a whole step was before: the separation tests are
//! sampled along its chord as finely as the distance last found allows (at
//! least every `dstep`), so no check is skipped, and its end is a point of
//! the line; points are filed at most the filing interval (and `every`
//! points) apart, as with fixed steps. So the field is sampled four times a
//! step, not a piece (where the field is smooth, a step is eight pieces).
//!
//! What fixed steps count in steps is counted in integration time here
//! (the sum of the step sizes, `dstep` per fixed step; a piece is at most
//! the filing interval long, and about its time): the own stretch a line does not
//! collide with, the longest line, and the seeds laid along a line, so that
//! the streets are the fixed steps' streets.

use super::bs3::{Bs3, MAX_PIECES, STRETCH, bs3, pieces};
use super::field::{MIN_EIGEN, SampledField};
use super::pending::Pending;
use super::region::{Region, StepCheck};
use super::store::{Sample, Store};
use super::trace::{Limits, Place, Scratch, Stop, floor};
use glam::DVec2;

/// Asks the processor to fetch `x`'s cache line (a hint; nothing where
/// there is no such instruction).
#[inline(always)]
fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints at an address (here a valid one); it
    // reads nothing and cannot fault. SSE is in every x86_64 processor.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// One half of a line traced with adaptive steps.
struct Walker {
    pts: Vec<DVec2>,
    /// Integration time from the seed to each point of `pts`.
    times: Vec<f64>,
    p: DVec2,
    place: Place,
    prev: DVec2,
    /// The next step size to try.
    h: f64,
    /// Integration time so far.
    t: f64,
    /// Distance it may still go before the next collision query.
    safe: f64,
    /// Its filed points the store does not hold yet.
    pend: Pending,
    /// Since the last filed point: the pieces' times or lengths, whichever
    /// is longer, and the points.
    since: f64,
    unfiled: i32,
    k: i32,
    sign: i32,
    stop: Option<Stop>,
}

impl Walker {
    fn new(field: &SampledField, seed: DVec2, dir: DVec2, sign: i32, h: f64) -> Self {
        Self {
            pts: Vec::new(),
            times: Vec::new(),
            p: seed,
            place: Place::of(field, seed),
            prev: dir,
            h,
            t: 0.0,
            safe: -1.0,
            pend: Pending::default(),
            since: 0.0,
            unfiled: 0,
            k: 0,
            sign,
            stop: None,
        }
    }

    /// Pushes point `q`, `dt` later than the last.
    #[inline(always)]
    fn push(&mut self, q: DVec2, dt: f64) {
        self.k += 1;
        self.t += dt;
        self.pts.push(q);
        self.times.push(self.t);
        self.since += dt;
        self.unfiled += 1;
    }

    /// The first try of the next step ([`bs3`] at `self.h`).
    #[inline(always)]
    fn try_step<const MINOR: bool>(&self, field: &SampledField) -> Option<Bs3> {
        bs3::<MINOR>(field, &self.place, self.p, self.prev, self.h)
    }

    /// Takes one step, `first` its first try (shrunk until its error is
    /// within the tolerance or it is `dstep`), in pieces of at most the
    /// filing interval along the step's curve, each checked as a step of
    /// its own (see [`piece`](Self::piece)), while the half has taken fewer
    /// than `k_max` steps and traced for less than `t_max`; `other` is the
    /// other half's `times`, pending points and position.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn step<const MINOR: bool>(
        &mut self,
        first: Option<Bs3>,
        other: (&[f64], &Pending, DVec2),
        (k_max, t_max): (i32, f64),
        field: &SampledField,
        region: &Region,
        store: &mut Store,
        line: u32,
        lim: &Limits,
    ) {
        let mut tried = first;
        let step = loop {
            let Some(step) = tried else {
                self.stop = Some(Stop::Degenerate);
                return;
            };
            if step.err <= lim.tol || step.h <= lim.h {
                break step;
            }
            // NaN (a degenerate sample) shrinks the most.
            let h = (step.h * (0.9 * (lim.tol / step.err).cbrt()).max(0.2)).max(lim.h);
            tried = bs3::<MINOR>(field, &self.place, self.p, self.prev, h);
        };
        let (h, err, d) = (step.h, step.err, step.d);
        // The next step: at most 5 times longer; the cube root only when
        // it matters (not at the longest step with room to spare).
        self.h = if h >= lim.max_stride && err <= 0.729 * lim.tol {
            lim.max_stride
        } else {
            (h * (0.9 * (lim.tol / err).cbrt()).min(5.0)).clamp(lim.h, lim.max_stride)
        };
        let min_step = MIN_EIGEN * h;
        if !(min_step * min_step..).contains(&d.length_squared()) {
            self.stop = Some(Stop::Degenerate);
            return;
        }
        let start = self.p;
        let mut ends = [DVec2::ZERO; MAX_PIECES];
        let (n, longest) = pieces(&step, start, lim.max_h, &mut ends);
        let dt = h / n as f64;
        for (j, &q) in ends[..n].iter().enumerate() {
            // The next piece's time or length, whichever is longer: this
            // step's (its curve may be a little longer than its time), or
            // at most the next step's (a piece of a step shorter than the
            // filing interval is its chord, no longer than its time).
            let next = if j + 1 < n {
                dt.max(longest)
            } else {
                self.h.min(lim.max_h)
            };
            if self.k >= k_max || self.t >= t_max {
                // Out of steps or time: the line ends here.
                self.place = Place::of(field, self.p);
                return;
            }
            if !self.piece((q, dt, next), other, region, store, line, lim) {
                return;
            }
        }
        self.place.advance(field, d, start + d);
        self.prev = d;
        // The cells the next step samples, fetched while this one ends.
        let inv = field.inv_cell() as f32;
        let ahead = (self.h / h) as f32 * inv;
        for f in [0.5, 1.0] {
            let (u, v) = (
                self.place.u + f * ahead * d.x as f32,
                self.place.v + f * ahead * d.y as f32,
            );
            if u.abs() < 1.0e6 && v.abs() < 1.0e6 {
                let (i, j) = (self.place.i + floor(u), self.place.j + floor(v));
                if let Some(cell) = field.cell(i, j) {
                    prefetch(cell);
                }
            }
        }
    }

    /// Goes on to `q`, `dt` later, unless that leaves the free region or
    /// comes too close to the family (then it stops, and says so); the
    /// piece after it takes at most `next`.
    #[inline(always)]
    fn piece(
        &mut self,
        (q, dt, next): (DVec2, f64, f64),
        (other, other_pend, other_p): (&[f64], &Pending, DVec2),
        region: &Region,
        store: &mut Store,
        line: u32,
        lim: &Limits,
    ) -> bool {
        let d = q - self.p;
        let len2 = d.length_squared();
        if !(len2 > 0.0 && len2.is_finite()) {
            self.stop = Some(Stop::Degenerate);
            return false;
        }
        let len = len2.sqrt();
        match region.step(self.p, q) {
            StepCheck::Clear => {}
            StepCheck::Hit(hit) => {
                // At the end of the fixed step it falls in, as fixed steps
                // count it (which the seeds laid along the line follow).
                let t = self.t + dt * hit.point.distance(self.p) / len;
                let whole = ((t / lim.h).floor() + 1.0) * lim.h;
                self.push(hit.point, whole - self.t);
                self.stop = Some(Stop::Edge(hit));
                return false;
            }
            StepCheck::Blocked => {
                self.stop = Some(Stop::Blocked);
                return false;
            }
        }
        // The collision tests along the chord: each query clears the
        // distance to the nearest point beyond the threshold.
        let mut done = 0.0;
        while self.safe < len - done {
            let at = (done + self.safe.max(lim.h)).min(len);
            let x = self.p + d * (at / len);
            let here = self.sign as f64 * (self.t + dt * at / len);
            let time_of = |s: &Sample| -> f64 {
                let own = (s.idx > 0) == (self.sign > 0);
                let (times, sign) = if own {
                    (&self.times[..], self.sign)
                } else {
                    (other, -self.sign)
                };
                match s.idx.unsigned_abs() as usize {
                    0 => 0.0,
                    i => times.get(i - 1).map_or(f64::INFINITY, |t| sign as f64 * t),
                }
            };
            // The pending points first (they are the nearest, and most are
            // skipped), then the store's.
            let local = store.local(x);
            let mut best = (lim.reach * lim.reach) as f32;
            // (The other half's lie within `own_time + max_h` of where it
            // is in time, pieces being at most `STRETCH` times as long:
            // once that is beyond reach, none can be near.)
            let far = lim.reach + (lim.own_time + lim.max_h) * STRETCH + 1.0;
            let other_near = x.distance_squared(other_p) < far * far;
            for (pend, own) in [(&self.pend, true), (other_pend, false)]
                .into_iter()
                .take(1 + other_near as usize)
            {
                let at = (here, own);
                pend.lower(store, x, lim.reach, local, at, lim.own_time, &mut best);
            }
            let best = store.nearest_below(x, lim.reach, best, |s| {
                s.line == line && (time_of(s) - here).abs() < lim.own_time
            });
            let near = (best as f64).sqrt().min(lim.reach);
            if near < lim.thr {
                // End where it is known clear, within `dstep` of the test
                // that failed.
                let ok = done + self.safe.max(0.0);
                if ok >= 0.5 * lim.h {
                    self.push(self.p + d * (ok / len), dt * ok / len);
                }
                self.stop = Some(Stop::Close);
                return false;
            }
            self.safe = near - lim.thr;
            done = at;
        }
        self.safe -= len - done;
        self.push(q, dt);
        self.since += (len - dt).max(0.0);
        self.p = q;
        // Filed so that filed points are at most the filing interval (along
        // the pieces' chords) and `every` points apart.
        if self.since + next > lim.max_h || self.unfiled >= lim.every {
            let t = self.t;
            self.pend
                .push(store, q, self.sign as f64 * t, self.sign * self.k);
            // Filed once its own queries can no longer skip it.
            (self.pend).file_while(store, line, |s| t - s.abs() >= lim.own_time);
            self.since = 0.0;
            self.unfiled = 0;
        }
        true
    }

    /// Steps on alone until it stops, has taken `steps` steps or traced
    /// for time `until`.
    #[allow(clippy::too_many_arguments)]
    fn run<const MINOR: bool>(
        &mut self,
        steps: usize,
        until: f64,
        other: (&[f64], &Pending, DVec2),
        field: &SampledField,
        region: &Region,
        store: &mut Store,
        line: u32,
        lim: &Limits,
    ) {
        let k_max = steps.min(i32::MAX as usize) as i32;
        while self.stop.is_none() && self.k < k_max && self.t < until {
            let first = self.try_step::<MINOR>(field);
            self.step::<MINOR>(
                first,
                other,
                (k_max, until),
                field,
                region,
                store,
                line,
                lim,
            );
        }
    }

    /// Files the pending points and the last point if it was not, and
    /// hands over points, times, its (emptied) pending buffer and stop.
    fn finish(mut self, store: &mut Store, line: u32) -> (Vec<DVec2>, Vec<f64>, Pending, Stop) {
        self.pend.file_while(store, line, |_| true);
        if self.unfiled > 0
            && let Some(&last) = self.pts.last()
        {
            store.insert(last, line, self.sign * self.k);
        }
        (
            self.pts,
            self.times,
            self.pend,
            self.stop.unwrap_or(Stop::Length),
        )
    }
}

/// [`trace_both`](super::trace::trace_both) with adaptive steps, for the
/// major (or, with `MINOR`, the minor) family: the two halves in step,
/// filing as they go; the line ends at time `lim.max_time` (both halves)
/// or `lim.max_steps`. The points and their integration times replace the
/// contents of `scratch.halves` and `scratch.times`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn trace_adaptive<const MINOR: bool>(
    field: &SampledField,
    region: &Region,
    store: &mut Store,
    (seed, dir): (DVec2, DVec2),
    line: u32,
    lim: &Limits,
    budget: &mut u64,
    scratch: &mut Scratch,
) -> [Stop; 2] {
    let mut halves = [
        Walker::new(field, seed, dir, 1, lim.h),
        Walker::new(field, seed, -dir, -1, lim.h),
    ];
    for (k, h) in halves.iter_mut().enumerate() {
        h.pts = std::mem::take(&mut scratch.halves[k]);
        h.times = std::mem::take(&mut scratch.times[k]);
        h.pend = std::mem::take(&mut scratch.pends[k]);
        h.pts.clear();
        h.times.clear();
        h.pend.clear();
    }
    let steps = lim.max_steps.min(*budget as usize);
    // The most steps one half may have taken, the other having taken `k`.
    let limit = |k: i32| (steps - (k as usize).min(steps)).min(i32::MAX as usize) as i32;
    let [a, b] = &mut halves;
    while a.stop.is_none()
        && b.stop.is_none()
        && ((a.k + b.k) as usize) < steps
        && a.t + b.t < lim.max_time
    {
        // Two independent chains of samples the processor overlaps.
        let (ta, tb) = (a.try_step::<MINOR>(field), b.try_step::<MINOR>(field));
        a.step::<MINOR>(
            ta,
            (&b.times, &b.pend, b.p),
            (limit(b.k), lim.max_time - b.t),
            field,
            region,
            store,
            line,
            lim,
        );
        b.step::<MINOR>(
            tb,
            (&a.times, &a.pend, a.p),
            (limit(a.k), lim.max_time - a.t),
            field,
            region,
            store,
            line,
            lim,
        );
    }
    let (alone, other) = if a.stop.is_none() { (a, b) } else { (b, a) };
    alone.run::<MINOR>(
        steps - (other.k as usize).min(steps),
        lim.max_time - other.t,
        (&other.times, &other.pend, other.p),
        field,
        region,
        store,
        line,
        lim,
    );
    let (k, t) = (alone.k + other.k, alone.t + other.t);
    // Whatever still runs has used up the steps or the time.
    let end = if t < lim.max_time && steps < lim.max_steps {
        Stop::Budget
    } else {
        Stop::Length
    };
    for h in halves.iter_mut().filter(|h| h.stop.is_none()) {
        h.stop = Some(end);
    }
    *budget = budget.saturating_sub(k as u64);
    let [a, b] = halves.map(|h| h.finish(store, line));
    scratch.halves = [a.0, b.0];
    scratch.times = [a.1, b.1];
    scratch.pends = [a.2, b.2];
    [a.3, b.3]
}
