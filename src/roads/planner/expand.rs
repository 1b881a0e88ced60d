//! One step out of a state: the moves a state may take and what each
//! costs (for this crate's A* and, through [`SearchGraph::successors`], for
//! any generic search).

use super::cost::{dither_turn, schedule, tie_hash};
use super::graph::{CellInfo, Out, SearchGraph, SearchState};

/// What a state's best road so far says about the next step.
pub(super) struct Label {
    pub len: f64,
    pub grade: Option<f64>,
    pub din: usize,
    pub back2: Option<usize>,
    pub back3: Option<usize>,
}

/// One step out of a state.
pub(super) struct Step {
    pub to: SearchState,
    pub cost: f64,
    /// The segment's length and grade.
    pub len: f64,
    pub grade: f64,
    pub bridge: bool,
    /// The end cell's data (its heuristic only for the crate's own A*).
    pub cell: CellInfo,
}

impl SearchGraph<'_> {
    /// The states one step from `s` and the steps' costs. The parts read
    /// from a road's label (schedule, dither's older angles) are computed as
    /// if the road began at `s`, so these are the real costs only when
    /// [`Self::is_exact`].
    pub fn successors(&mut self, s: SearchState) -> Vec<(SearchState, f64)> {
        let k = self.moves.len();
        let (i, j, din) = (s.i as i64, s.j as i64, s.dir as usize);
        let prev_grade = if din < k {
            let (mi, mj) = self.moves[din];
            self.edge(i - mi, j - mj, din).map(|e| e.grade)
        } else {
            None
        };
        let label = Label {
            len: 0.0,
            grade: prev_grade,
            din,
            back2: None,
            back3: None,
        };
        let mut out = Vec::with_capacity(k);
        self.expand(i, j, &label, false, 0, |s| out.push((s.to, s.cost)));
        out
    }

    /// Calls `f` for each step out of cell `(i, j)` reached with `label`.
    /// A step costs, as [`super::cost::step_cost`] says, the weighted sum
    /// of its parts times `1 + tie_breaker · hash`. With `own` (this
    /// crate's A*) the steps come with their end cell's heuristic, and
    /// (without bridges) their lake tests are left to the search, which
    /// makes them when it takes a state ([`Self::seg_dry`]), and it skips
    /// the moves whose bit is set in `closed` (their states are closed).
    #[inline(always)]
    pub(super) fn expand(
        &mut self,
        i: i64,
        j: i64,
        label: &Label,
        own: bool,
        closed: u64,
        mut f: impl FnMut(Step),
    ) {
        let k = self.moves.len();
        let din = label.din;
        let w = self.params.weights;
        let at = self.out_slot(i, j);
        let row = din * k;
        let tb = self.params.tie_breaker;
        for x in 0..self.turns_from[din].len() {
            let (m, smooth) = self.turns_from[din][x];
            let bridges = self.params.bridges;
            let lazy = own && !bridges;
            if lazy && closed >> m & 1 == 1 {
                continue;
            }
            let o = self.out_at(at + m, i, j, m);
            if o.base == f64::INFINITY {
                // Leaves the window (a bridge along it would too).
                continue;
            }
            let (qi, qj, o, len, slot) = if lazy || self.seg_dry(at + m, i, j, m) {
                let (qi, qj) = (i + self.moves[m].0, j + self.moves[m].1);
                (qi, qj, o, self.len[m], at + m)
            } else if bridges {
                let d = self.deck(i, j, m);
                if d.steps < 0 {
                    continue;
                }
                let (qi, qj) = (
                    i + d.steps as i64 * self.moves[m].0,
                    j + d.steps as i64 * self.moves[m].1,
                );
                let o = Out {
                    base: d.base,
                    grade: d.grade,
                    tie: tie_hash((i, j), (qi, qj), self.key),
                    to: self.cell(qi, qj).1,
                    dry: 1,
                };
                (qi, qj, o, d.len, usize::MAX)
            } else {
                continue;
            };
            let mut c = o.base + smooth;
            if let Some(g) = label.grade {
                c += w.slope * len * (o.grade - g).abs();
            }
            if w.distance > 0.0 {
                let progress = o.to.progress;
                let p = &self.params;
                let s = schedule(
                    progress,
                    label.len + len,
                    len,
                    self.frame.direct,
                    p.distance_factor,
                );
                c += w.distance * s;
            }
            if w.dither > 0.0 && din < k {
                let th02 = label.back2.map(|b| self.turn[b * k + m]);
                let th03 = label.back3.map(|b| self.turn[b * k + m]);
                c += w.dither * dither_turn(self.turn[row + m], th02, th03);
            }
            let bridge = slot == usize::MAX;
            if bridge {
                c += self.params.bridge_cost * len;
            }
            c += c * tb * o.tie;
            let to = SearchState {
                i: qi as i32,
                j: qj as i32,
                dir: m as u8,
            };
            let mut cell = o.to;
            if own && cell.h.is_nan() {
                cell.h = self.step_h(slot, qi, qj).1;
            }
            f(Step {
                to,
                cost: c,
                len,
                grade: o.grade,
                bridge,
                cell,
            });
        }
    }
}
