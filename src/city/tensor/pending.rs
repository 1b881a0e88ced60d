//! [`Pending`]: the points a half-line filed last, held out of the
//! [`Store`] while its own queries would skip them (they lie within the
//! own-stretch window), so that a query tests them against the window in
//! one pass over flat arrays instead of one by one inside the store's
//! cells. Every point is in exactly one of the two, so a query's answer is
//! the same; they are filed once the line has moved on, and all at its end.

use super::store::Store;
use glam::DVec2;

/// One half-line's pending filed points, oldest first.
#[derive(Default)]
pub(crate) struct Pending {
    /// Coordinates as the store holds them ([`Store::local`]).
    xs: Vec<f32>,
    ys: Vec<f32>,
    /// Integration times, signed like the step indices.
    ts: Vec<f64>,
    ps: Vec<DVec2>,
    idxs: Vec<i32>,
    /// The first point not yet filed.
    head: usize,
}

impl Pending {
    /// Empties it, keeping its room.
    pub fn clear(&mut self) {
        self.xs.clear();
        self.ys.clear();
        self.ts.clear();
        self.ps.clear();
        self.idxs.clear();
        self.head = 0;
    }

    /// Holds `p`, step `idx` at signed time `t`.
    pub fn push(&mut self, store: &Store, p: DVec2, t: f64, idx: i32) {
        let (x, y) = store.local(p);
        self.xs.push(x);
        self.ys.push(y);
        self.ts.push(t);
        self.ps.push(p);
        self.idxs.push(idx);
    }

    /// Files the oldest points in `store` (as line `line`) while `done`
    /// holds for their signed times.
    pub fn file_while(&mut self, store: &mut Store, line: u32, done: impl Fn(f64) -> bool) {
        while self.head < self.ps.len() && done(self.ts[self.head]) {
            store.insert(self.ps[self.head], line, self.idxs[self.head]);
            self.head += 1;
        }
    }

    /// Lowers `best` (squared, f32, as [`Store::nearest_below`]) to the
    /// squared distance from `x` (local `q`) of each point closer than it
    /// that is not within `own_time` of signed time `here` and that the
    /// store would find for a query of radius `r` at `x`. With `own` (the
    /// query's own half, `here` beyond every point's time) the points
    /// within `own_time` are the newest ones, so the scan stops at the
    /// first.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub fn lower(
        &self,
        store: &Store,
        x: DVec2,
        r: f64,
        q: (f32, f32),
        (here, own): (f64, bool),
        own_time: f64,
        best: &mut f32,
    ) {
        let (qx, qy) = q;
        let n = self.ps.len();
        let (xs, ys, ts) = (
            &self.xs[self.head..n],
            &self.ys[self.head..n],
            &self.ts[self.head..n],
        );
        for k in 0..xs.len() {
            let d2 = (xs[k] - qx) * (xs[k] - qx) + (ys[k] - qy) * (ys[k] - qy);
            // (As the store's skip test: NaN is not skipped.)
            let skipped = (ts[k] - here).abs() < own_time;
            if own && skipped {
                break;
            }
            if d2 < *best && !skipped && store.spans(x, r, self.ps[self.head + k]) {
                *best = d2;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pending points and the store answer as a store holding them all.
    #[test]
    fn pending_and_store_answer_as_one_store() {
        let (lo, hi) = (DVec2::ZERO, DVec2::splat(100.0));
        let (mut all, mut part) = (Store::new(lo, hi, 6.0, 64), Store::new(lo, hi, 6.0, 64));
        let mut pend = Pending::default();
        // A spiral line (step k at time k, as one half files it) ...
        let at = |k: i32| {
            let a = k as f64 * 0.21;
            DVec2::splat(50.0) + DVec2::new(a.cos(), a.sin()) * (5.0 + 1.3 * a)
        };
        for k in 1..200 {
            all.insert(at(k), 7, k);
            pend.push(&part, at(k), k as f64, k);
            pend.file_while(&mut part, 7, |t| 199.0 - t >= 40.0);
        }
        // ... and another line in the store.
        for k in 0..100 {
            let p = DVec2::new(k as f64, 30.0 + (k as f64 * 0.1).sin());
            all.insert(p, 3, k);
            part.insert(p, 3, k);
        }
        assert!(pend.head > 0 && pend.head < pend.ps.len());
        let own_time = 25.0;
        // Queries anywhere along it (as the other half asks), and from
        // beyond its newest point (as its own half asks: `own`).
        let queries = (1..200).step_by(3).map(|k| (at(k), k as f64, false));
        let ahead = (0..40).map(|j| {
            (
                at(199) + DVec2::new(0.3 * j as f64, -2.0),
                199.0 + j as f64 * 0.5,
                true,
            )
        });
        for (p, here, own) in queries.chain(ahead) {
            let x = p + DVec2::new(0.7, -0.4);
            let skip = |s: &super::super::store::Sample| {
                s.line == 7 && (s.idx as f64 - here).abs() < own_time
            };
            for r in [4.0, 12.0, 30.0] {
                let want = all.nearest_below(x, r, (r * r) as f32, skip);
                let mut best = (r * r) as f32;
                pend.lower(&part, x, r, part.local(x), (here, own), own_time, &mut best);
                assert_eq!(part.nearest_below(x, r, best, skip), want, "{here} {r}");
            }
        }
    }
}
