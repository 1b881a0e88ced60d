//! The A* heuristic: the exact cost-to-go of a relaxed problem, found by a
//! backward search resumed on demand (reverse resumable A*, Silver 2005).
//!
//! The relaxed problem keeps the grid's cells and moves but has no
//! direction in its state. A segment from cell `p` costs its slope part
//! with p3 and p4 at their least, `|Δz| / walk` each (the mean of the
//! grades along the walk is at least the walk's whole climb over its
//! length, the largest at least the mean): read from its end cells'
//! heights and the move's nominal length alone (a hair under, for
//! rounding), no walk, no lake test beyond leaving out wet cells (a
//! cell's own point lies on every segment that enters or leaves it, so no
//! real road touches a wet one). p2 and the turn are taken at their
//! cheapest over the segments that can enter `p` (0 at the start cell),
//! and the schedule, dither and tie-breaker cost nothing. Every real step
//! costs at least that, so the relaxed cost-to-go is admissible and
//! consistent for the real states. Its search is 4–32 times smaller than
//! the real one and needs one height per cell.

use super::astar::Open;
use super::graph::SearchGraph;
use super::ground::works;
use super::paged::Paged;
use dary_heap::QuaternaryHeap;

/// One cell of the backward search.
#[derive(Clone, Copy, Debug)]
struct Cell {
    /// Best relaxed cost to the goal so far.
    g: f64,
    /// Whether `g` is final.
    closed: bool,
    /// Whether every entering segment is in `in_edge`.
    known: bool,
    /// The cell (set when first reached).
    i: i32,
    j: i32,
}

/// The backward search's state, kept between queries.
pub(crate) struct CostToGo {
    cells: Paged<Cell>,
    heap: QuaternaryHeap<Open>,
    z_start: f64,
    pops: usize,
    /// Per cell and move `m'`: the segment entering the cell along `m'`,
    /// its relaxed cost and grade: (∞, ∞) none (from outside the window).
    in_edge: Paged<(f64, f64)>,
    /// Per move `m`: the moves `m'` a road may turn from into `m` (not too
    /// sharp), with the turn's smoothness.
    turns_into: Vec<Vec<(usize, f64)>>,
    /// Flat window: per move `m`, how far before a cell's slot in `cells`
    /// lies the cell `m` leads from (empty when paged).
    back: Vec<usize>,
}

impl CostToGo {
    /// Starts the backward search at the goal cell `(n, 0)`; `smooth` is
    /// the graph's turn table (`k` moves).
    pub fn new(
        win: (i64, i64, i64, i64),
        n: i64,
        z_start: f64,
        smooth: &[f64],
        moves: &[(i64, i64)],
    ) -> Self {
        let k = moves.len();
        let open = Cell {
            g: f64::INFINITY,
            closed: false,
            known: false,
            i: 0,
            j: 0,
        };
        let mut cells = Paged::new(win.0, win.1, win.2, win.3, 1, open);
        let s = cells.slot(n, 0);
        cells.data[s].g = 0.0;
        (cells.data[s].i, cells.data[s].j) = (n as i32, 0);
        let mut heap = QuaternaryHeap::new();
        heap.push(Open::new(0.0, s));
        let turns_into = (0..k)
            .map(|m| {
                (0..k)
                    .map(|mi| (mi, smooth[mi * k + m]))
                    .filter(|&(_, t)| t < f64::INFINITY)
                    .collect()
            })
            .collect();
        let back = cells.stride().map_or(Vec::new(), |w| {
            moves
                .iter()
                .map(|&(mi, mj)| (mj * w + mi) as usize)
                .collect()
        });
        Self {
            back,
            cells,
            heap,
            z_start,
            pops: 0,
            in_edge: Paged::new(win.0, win.1, win.2, win.3, k, (f64::NAN, f64::NAN)),
            turns_into,
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
        let target = b.cells.slot(i, j);
        let r = loop {
            let c = b.cells.data[target];
            if c.closed {
                break c.g;
            }
            if b.pops >= self.params.max_expansions {
                break simple;
            }
            let Some(open) = b.heap.pop() else {
                break f64::INFINITY;
            };
            let slot = open.slot();
            let Cell { g: gc, closed, .. } = b.cells.data[slot];
            if closed {
                continue;
            }
            b.cells.data[slot].closed = true;
            b.pops += 1;
            let (ci, cj) = (b.cells.data[slot].i as i64, b.cells.data[slot].j as i64);
            let at_c = self.in_edges(&mut b, slot, ci, cj);
            for m in 0..k {
                let (base, grade) = b.in_edge.data[at_c + m];
                if base == f64::INFINITY {
                    continue;
                }
                let (pi, pj) = (ci - self.moves[m].0, cj - self.moves[m].1);
                let ps = match b.back.get(m) {
                    Some(&d) => slot.wrapping_sub(d),
                    None => b.cells.slot(pi, pj),
                };
                let p = b.cells.data[ps];
                // The heuristic below is consistent: closed is final.
                if p.closed || gc + base >= p.g {
                    continue;
                }
                let entry = if pi == 0 && pj == 0 {
                    0.0
                } else {
                    let at = self.in_edges(&mut b, ps, pi, pj);
                    // ∞ (no segment) never wins.
                    let wl = ws * self.len[m];
                    let ins = &b.in_edge.data[at..at + k];
                    let mut best = f64::INFINITY;
                    for &(mi, t) in &b.turns_into[m] {
                        let x = wl * (grade - ins[mi].1).abs() + t;
                        if x < best {
                            best = x;
                        }
                    }
                    // A hair under too (its grades are nominal).
                    if best.is_finite() {
                        (best - 1e-9).max(0.0)
                    } else {
                        0.0
                    }
                };
                let ng = gc + base + entry;
                if ng < p.g {
                    b.cells.data[ps].g = ng;
                    (b.cells.data[ps].i, b.cells.data[ps].j) = (pi as i32, pj as i32);
                    let hb = ws * (self.ground(pi * sub, pj * sub) - b.z_start).abs();
                    b.heap.push(Open::new(ng + hb, ps));
                }
            }
        };
        self.togo = Some(b);
        r
    }

    /// Fills (once) and returns the index of cell `(i, j)`'s entering
    /// segments (`cell` its slot in the search's cells).
    fn in_edges(&mut self, b: &mut CostToGo, cell: usize, i: i64, j: i64) -> usize {
        let at = b.in_edge.slot(i, j);
        if b.cells.data[cell].known {
            return at;
        }
        let ws = self.params.weights.slope;
        let sub = self.frame.sub;
        let (wq, zq) = (self.height(i * sub, j * sub), self.ground(i * sub, j * sub));
        let lake = self.frame.lake;
        for m in 0..self.moves.len() {
            let (pi, pj) = (i - self.moves[m].0, j - self.moves[m].1);
            let (wp, zp) = if self.inside(pi, pj) {
                (
                    self.height(pi * sub, pj * sub),
                    self.ground(pi * sub, pj * sub),
                )
            } else {
                (f64::NAN, f64::NAN)
            };
            // No road enters or leaves a wet cell (its own point is on every
            // segment that does), so wet cells leave the relaxed problem too.
            b.in_edge.data[at + m] = if wp >= lake && wq >= lake {
                // The move's nominal length (the segment's own differs by
                // rounding): the cost a hair under, for admissibility. The
                // earthworks depend on the end heights alone.
                let dz = zq - zp;
                let p34 = 2.0 * dz.abs() / self.walk_len[m];
                let works = works(dz, self.len[m], &self.params);
                (
                    ws * (dz.abs() + p34 + works) * (1.0 - 1e-9),
                    dz / self.len[m],
                )
            } else {
                (f64::INFINITY, f64::INFINITY)
            };
        }
        b.cells.data[cell].known = true;
        at
    }
}
