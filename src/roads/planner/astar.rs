//! A* over (cell, incoming direction) states (Galin et al. 2010) on the
//! request's grid, with the shared cost function.
//!
//! A state's record holds the best road found to it (its label): cost,
//! length and last grade, and its parent. The turn at a cell, the slope
//! parts and the tie-breaker depend on the state alone, so for them the
//! search is exact; the schedule (road length so far) and dither's older
//! angles are read from the label, as in the thesis (§6.2.1).
//!
//! A state's segment is the same whichever road reaches it, so its lake
//! test (the dearest part of a step) waits until the state is taken, and
//! a wet state is dropped then: states pushed but never taken cost none.
//! Records, terrain heights and each cell's outgoing segments (all of a
//! cell's at once, when it is first expanded) live in per-search caches
//! over the window: one flat array each for a small window, else paged.

use super::expand::Label;
use super::graph::SearchGraph;
use super::paged::Paged;
use super::{PlanError, PlannedRoad, PlannerParams, RoadPlanner, check_request, finish};
use crate::terrain::Terrain;
use dary_heap::QuaternaryHeap;
use glam::DVec2;

/// The A* planner (thesis §6.2, "StarPlanner").
#[derive(Clone, Copy, Debug, Default)]
pub struct AStarPlanner;

impl RoadPlanner for AStarPlanner {
    fn plan(
        &self,
        terrain: &Terrain,
        from: DVec2,
        to: DVec2,
        params: &PlannerParams,
    ) -> Result<PlannedRoad, PlanError> {
        if let Some(road) = check_request(terrain, from, to, params)? {
            return Ok(road);
        }
        let mut graph = SearchGraph::build(terrain, from, to, params)?;
        let found = search(&mut graph)?;
        Ok(finish(
            terrain,
            params,
            found.points,
            found.bridges,
            found.expanded,
        ))
    }
}

/// A state's record (its cost `g` apart, in a denser array of its own),
/// with the state itself (cell and incoming move), so that taking a state
/// needs no division.
#[derive(Clone, Copy, Debug)]
struct Node {
    len: f64,
    grade: f64,
    parent: u32,
    i: i32,
    j: i32,
    dir: u8,
    bridge: bool,
}

const NO_NODE: Node = Node {
    len: 0.0,
    grade: f64::NAN,
    parent: u32::MAX,
    i: 0,
    j: 0,
    dir: 0,
    bridge: false,
};

/// The records and their costs: `g[s]` is record `s`'s cost so far, ∞
/// unreached, stored negated (sign bit set) once the state is closed.
///
/// State `(q, m)` is filed under the cell it came from, `q − moves[m]`
/// (the start under its own cell, at index `k`): the states one expansion
/// reaches sit side by side.
struct Records {
    nodes: Paged<Node>,
    g: Vec<f64>,
    /// Per cell, bit `m`: state `(q, m)` filed under it is closed.
    closed: Vec<u64>,
    moves: Vec<(i64, i64)>,
}

impl Records {
    /// The record index of state `(i, j, dir)`.
    #[inline]
    fn slot(&mut self, i: i64, j: i64, dir: usize) -> usize {
        let (di, dj) = self.moves.get(dir).copied().unwrap_or((0, 0));
        let s = self.nodes.slot(i - di, j - dj) + dir;
        if self.g.len() < self.nodes.data.len() {
            self.g.resize(self.nodes.data.len(), f64::INFINITY);
            let cells = self.nodes.data.len() / (self.moves.len() + 1);
            self.closed.resize(cells, 0);
        }
        s
    }

    /// The state `(i, j, dir)` of a (reached) record.
    #[inline]
    fn state(&self, slot: usize) -> (i64, i64, usize) {
        let n = &self.nodes.data[slot];
        (n.i as i64, n.j as i64, n.dir as usize)
    }
}

/// A heap entry: smallest `f` first, then smallest record index (so the
/// order never depends on anything but the inputs). The pair is one
/// number, `f`'s bits (which order as the numbers do for `f` ≥ 0) above
/// the index, complemented for the max-heap: one comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Open(u128);

impl Open {
    /// The entry of record `slot` at `f` (not negative).
    #[inline]
    pub fn new(f: f64, slot: usize) -> Self {
        debug_assert!(f >= 0.0);
        // + 0.0: −0.0 becomes 0.0.
        Self(!(((f + 0.0).to_bits() as u128) << 32 | slot as u128))
    }

    /// The entry's record index.
    #[inline]
    pub fn slot(self) -> usize {
        !self.0 as u32 as usize
    }
}

/// A found road: its points, bridges, the search's cost and work.
pub(crate) struct Found {
    pub points: Vec<DVec2>,
    pub bridges: Vec<(usize, usize)>,
    /// The search's own cost (the tests compare it with the re-scored one).
    #[cfg_attr(not(test), allow(dead_code))]
    pub cost: f64,
    pub expanded: usize,
}

/// A* from the graph's start to its goal.
pub(crate) fn search(graph: &mut SearchGraph) -> Result<Found, PlanError> {
    let k = graph.moves.len();
    let w = graph.params.weights;
    let (x0, x1, y0, y1) = graph.win;
    let mut rec = Records {
        nodes: Paged::new(x0, x1, y0, y1, k + 1, NO_NODE),
        g: Vec::new(),
        closed: Vec::new(),
        moves: graph.moves.clone(),
    };
    let mut heap = QuaternaryHeap::new();
    let start = rec.slot(0, 0, k);
    rec.g[start] = 0.0;
    rec.nodes.data[start].dir = k as u8;
    heap.push(Open::new(graph.heuristic(graph.start()), start));
    // The schedule's bound holds for factor 1 only (never ahead of schedule).
    let sched_bound = w.distance > 0.0 && graph.params.distance_factor == 1.0;
    let sched_scale = w.distance / (graph.lmax * graph.lmax);
    let direct = graph.frame.direct;
    let (goal, max) = (graph.frame.n, graph.params.max_expansions);
    let mut expanded = 0;
    let lazy = !graph.params.bridges;
    while let Some(open) = heap.pop() {
        let slot = open.slot();
        let g0 = rec.g[slot];
        if g0.is_sign_negative() {
            continue;
        }
        rec.g[slot] = -g0;
        let node = rec.nodes.data[slot];
        let (i, j, din) = rec.state(slot);
        rec.closed[(slot - din) / (k + 1)] |= 1 << din;
        // A state's segment is the same whichever road reached it: its
        // lake test waits until the state is taken, and a wet one is dropped.
        if lazy && din < k && !node.bridge {
            let (pi, pj) = (i - graph.moves[din].0, j - graph.moves[din].1);
            let s = graph.out_slot(pi, pj) + din;
            if !graph.seg_dry(s, pi, pj, din) {
                continue;
            }
        }
        if i == goal && j == 0 {
            return Ok(rebuild(graph, &rec, slot, g0, expanded));
        }
        expanded += 1;
        if expanded > max {
            return Err(PlanError::TooMuchWork(max));
        }
        // Dither alone reads the older directions.
        let (back2, back3) = if w.dither > 0.0 {
            let dir_of = |s: u32| {
                (s != u32::MAX)
                    .then(|| rec.nodes.data[s as usize].dir as usize)
                    .filter(|&d| d < k)
            };
            let back2 = dir_of(node.parent);
            let back3 = back2.and_then(|_| dir_of(rec.nodes.data[node.parent as usize].parent));
            (back2, back3)
        } else {
            (None, None)
        };
        let label = Label {
            len: node.len,
            grade: (din < k).then_some(node.grade),
            din,
            back2,
            back3,
        };
        let here = rec.slot(i, j, k) - k;
        let closed = rec.closed[here / (k + 1)];
        graph.expand(i, j, &label, true, closed, |step| {
            let g = g0 + step.cost;
            let t = step.to;
            // Every step but a bridge is filed under this cell.
            let ts = if step.bridge {
                rec.slot(t.i as i64, t.j as i64, t.dir as usize)
            } else {
                here + t.dir as usize
            };
            // A closed state keeps its road: its successors were costed
            // from its label, which must not change under them.
            let old = rec.g[ts];
            if old.is_sign_negative() || g >= old {
                return;
            }
            let len = node.len + step.len;
            rec.g[ts] = g;
            rec.nodes.data[ts] = Node {
                len,
                grade: step.grade,
                parent: slot as u32,
                i: t.i,
                j: t.j,
                dir: t.dir,
                bridge: step.bridge,
            };
            let (cell, mut h) = (step.cell, step.cell.h);
            if h == f64::INFINITY {
                return;
            }
            if sched_bound {
                let dev = 100.0 * (cell.progress - len / direct);
                if dev < 0.0 {
                    h += sched_scale * dev * dev * cell.dist;
                }
            }
            heap.push(Open::new(g + h, ts));
        });
    }
    Err(PlanError::NoRoad("no dry road inside the search window"))
}

fn rebuild(graph: &SearchGraph, rec: &Records, goal: usize, cost: f64, expanded: usize) -> Found {
    let mut rev = Vec::new();
    let mut slot = goal as u32;
    while slot != u32::MAX && rev.len() <= rec.nodes.data.len() {
        let (i, j, _) = rec.state(slot as usize);
        let n = rec.nodes.data[slot as usize];
        rev.push((graph.frame.point(i, j), n.bridge));
        slot = n.parent;
    }
    rev.reverse();
    let bridges = (1..rev.len())
        .filter(|&k| rev[k].1)
        .map(|k| (k - 1, k))
        .collect();
    Found {
        points: rev.into_iter().map(|(p, _)| p).collect(),
        bridges,
        cost,
        expanded,
    }
}
