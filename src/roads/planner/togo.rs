//! The A* heuristic: the exact cost-to-go of a relaxed problem, found by a
//! backward search resumed on demand (reverse resumable A*, Silver 2005).
//!
//! The relaxed problem keeps the grid's cells and segments but has no
//! direction in its state: a segment from cell `p` costs its slope part
//! with p2 and the turn taken at their cheapest over the segments that can
//! enter `p` (0 at the start cell), and nothing for the schedule, dither
//! and tie-breaker. Every real step costs at least that, so the relaxed
//! cost-to-go is admissible and consistent for the real states. Its search
//! is 4–32 times smaller than the real one, and a cell it cannot reach
//! from the goal is no road at all (∞).

use super::astar::Open;
use super::frame::Paged;
use super::graph::SearchGraph;
use std::collections::BinaryHeap;

/// The backward search's state, kept between queries.
pub(crate) struct CostToGo {
    /// Per cell: best relaxed cost to the goal and whether it is final.
    g: Paged<(f64, bool)>,
    heap: BinaryHeap<Open>,
    z_start: f64,
    pops: usize,
    /// Per cell and move `m'`: the segment entering the cell along `m'`,
    /// its weighted slope part and grade: (NaN, NaN) not known yet,
    /// (∞, NaN) none. Filled by [`SearchGraph`]'s segment cache too.
    pub in_edge: Paged<(f64, f64)>,
}

impl CostToGo {
    /// Starts the backward search at the goal cell `(n, 0)`.
    pub fn new(win: (i64, i64, i64, i64), n: i64, z_start: f64, k: usize) -> Self {
        let mut g = Paged::new(win.0, win.1, win.2, win.3, 1, (f64::INFINITY, false));
        let s = g.slot(n, 0);
        g.data[s].0 = 0.0;
        let mut heap = BinaryHeap::new();
        heap.push(Open {
            f: 0.0,
            slot: s as u32,
        });
        Self {
            g,
            heap,
            z_start,
            pops: 0,
            in_edge: Paged::new(win.0, win.1, win.2, win.3, k, (f64::NAN, f64::NAN)),
        }
    }
}

impl SearchGraph<'_> {
    /// The relaxed cost from cell `(i, j)` to the goal (∞ if it cannot get
    /// there inside the window); `simple` when the backward search is off
    /// or has used up its budget.
    pub(crate) fn cost_to_go(&mut self, i: i64, j: i64, simple: f64) -> f64 {
        let Some(mut b) = self.togo.take() else {
            return simple;
        };
        let ws = self.params.weights.slope;
        let k = self.moves.len();
        let sub = self.frame.sub;
        let target = b.g.slot(i, j);
        let r = loop {
            let (g, done) = b.g.data[target];
            if done {
                break g;
            }
            if b.pops >= self.params.max_expansions {
                break simple;
            }
            let Some(Open { slot, .. }) = b.heap.pop() else {
                break f64::INFINITY;
            };
            let slot = slot as usize;
            let (gc, closed) = b.g.data[slot];
            if closed {
                continue;
            }
            b.g.data[slot].1 = true;
            b.pops += 1;
            let (ci, cj, _) = b.g.cell_of(slot);
            let at_c = self.in_edges(&mut b, ci, cj);
            for m in 0..k {
                let (base, grade) = b.in_edge.data[at_c + m];
                if base == f64::INFINITY {
                    continue;
                }
                let (pi, pj) = (ci - self.moves[m].0, cj - self.moves[m].1);
                let entry = if pi == 0 && pj == 0 {
                    0.0
                } else {
                    let at = self.in_edges(&mut b, pi, pj);
                    // NaN (no segment) and ∞ (too sharp) never win.
                    let mut best = f64::INFINITY;
                    let wl = ws * self.len[m];
                    let ins = &b.in_edge.data[at..at + k];
                    for (mi, &(_, gi)) in ins.iter().enumerate() {
                        best = best.min(wl * (grade - gi).abs() + self.smooth[mi * k + m]);
                    }
                    if best.is_finite() { best } else { 0.0 }
                };
                let ng = gc + base + entry;
                let ps = b.g.slot(pi, pj);
                if ng < b.g.data[ps].0 {
                    b.g.data[ps].0 = ng;
                    let hb = ws * (self.height(pi * sub, pj * sub) - b.z_start).abs();
                    b.heap.push(Open {
                        f: ng + hb,
                        slot: ps as u32,
                    });
                }
            }
        };
        self.togo = Some(b);
        r
    }
}

impl SearchGraph<'_> {
    /// Fills (once) and returns the index of cell `(i, j)`'s entering
    /// segments.
    fn in_edges(&mut self, b: &mut CostToGo, i: i64, j: i64) -> usize {
        let k = self.moves.len();
        let at = b.in_edge.slot(i, j);
        for m in 0..k {
            if !b.in_edge.data[at + m].0.is_nan() {
                continue;
            }
            let (pi, pj) = (i - self.moves[m].0, j - self.moves[m].1);
            b.in_edge.data[at + m] = match self.inside(pi, pj).then(|| self.edge(pi, pj, m)) {
                Some(Some(e)) => (e.base, e.grade),
                _ => (f64::INFINITY, f64::NAN),
            };
        }
        at
    }
}
