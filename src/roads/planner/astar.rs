//! A* over (cell, incoming direction) states (Galin et al. 2010) on the
//! request's grid, with the shared cost function.
//!
//! A state's record holds the best road found to it (its label): cost,
//! length and last grade, and its parent. The turn at a cell, the slope
//! parts and the tie-breaker depend on the state alone, so for them the
//! search is exact; the schedule (road length so far) and dither's older
//! angles are read from the label, as in the thesis (§6.2.1).
//!
//! Records are created a page of 8 × 8 cells at a time when a cell is first
//! reached; terrain heights and each cell's outgoing segments are cached
//! the same way, within one search.

use super::cost::{SegTerrain, Step, deck, step_cost, tie_hash, tie_key};
use super::frame::{Frame, Paged};
use super::lattice::Lattice;
use super::togo::CostToGo;
use super::{PlanError, PlannedRoad, PlannerParams, RoadPlanner, check_request, finish};
use crate::terrain::Terrain;
use glam::DVec2;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

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
        check_request(terrain, from, to, params)?;
        if from == to {
            return Ok(finish(terrain, params, vec![from, to], Vec::new(), 0));
        }
        let mut graph = SearchGraph::new(terrain, from, to, params);
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

/// A state of the search: a grid cell of the request's frame (`(0, 0)` is
/// `from`, `goal()` is `to`) and the move that reached it (an index into
/// [`crate::roads::planner::Connexity::moves`], or the move count at the start).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SearchState {
    /// Cell along the straight line.
    pub i: i32,
    /// Cell across it (left positive).
    pub j: i32,
    /// Incoming move.
    pub dir: u8,
}

/// A cached outgoing segment: its terrain part, or wet / outside.
#[derive(Clone, Copy, Debug)]
struct Edge {
    seg: SegTerrain,
    /// 0 unknown, 1 usable, 2 wet or leaving the window.
    state: u8,
}

const UNKNOWN: Edge = Edge {
    seg: SegTerrain {
        len: 0.0,
        grade: 0.0,
        p3: 0.0,
        p4: 0.0,
        dry: true,
    },
    state: 0,
};

/// The request's state graph with its caches: what both this crate's A*
/// and any generic search (the bench runs `pathfinding`'s) expand.
pub struct SearchGraph<'t> {
    terrain: &'t Terrain,
    pub(super) params: PlannerParams,
    pub(super) frame: Frame,
    pub(super) moves: Vec<(i64, i64)>,
    /// `turn[a·k + b]`: the angle from move `a` to move `b`.
    pub(super) turn: Vec<f64>,
    /// Window in cells: `i0..=i1` × `j0..=j1`.
    win: (i64, i64, i64, i64),
    lattice: Lattice,
    edges: Paged<Edge>,
    key: u64,
    z_goal: f64,
    /// Longest single move, metres (bridges included).
    lmax: f64,
    /// The relaxed cost-to-go search (none with bridges or no slope weight).
    pub(super) togo: Option<CostToGo>,
}

impl<'t> SearchGraph<'t> {
    /// The graph of a request (not checked: see [`RoadPlanner::plan`]).
    pub fn new(terrain: &'t Terrain, from: DVec2, to: DVec2, params: &PlannerParams) -> Self {
        let frame = Frame::new(terrain, from, to, params);
        let moves: Vec<(i64, i64)> = params
            .connexity
            .moves()
            .iter()
            .map(|&(a, b)| (a as i64, b as i64))
            .collect();
        let k = moves.len();
        let v = |m: (i64, i64)| DVec2::new(m.0 as f64, m.1 as f64);
        let mut turn = vec![0.0; k * k];
        for a in 0..k {
            for b in 0..k {
                turn[a * k + b] = super::cost::angle(v(moves[a]), v(moves[b]));
            }
        }
        let margin = (params.window * frame.direct * params.distance_factor).max(params.min_margin);
        let m = (margin / frame.cell).ceil() as i64 + 1;
        let win = (-m, frame.n + m, -m, m);
        let lattice = Lattice::new(&frame, win);
        let edges = Paged::new(win.0, win.1, win.2, win.3, k, UNKNOWN);
        let longest = moves.iter().map(|&m| v(m).length()).fold(0.0, f64::max);
        let mut lmax = longest * frame.cell;
        if params.bridges {
            lmax = lmax.max(params.max_span + longest * frame.cell);
        }
        let z_goal = terrain.height(to.x, to.y);
        let togo = (!params.bridges && params.weights.slope > 0.0)
            .then(|| CostToGo::new(win, frame.n, terrain.height(from.x, from.y), moves.len()));
        Self {
            togo,
            terrain,
            params: params.clone(),
            key: tie_key(params.seed),
            moves,
            turn,
            win,
            lattice,
            edges,
            z_goal,
            lmax,
            frame,
        }
    }

    /// The start state.
    pub fn start(&self) -> SearchState {
        SearchState {
            i: 0,
            j: 0,
            dir: self.moves.len() as u8,
        }
    }

    /// Whether a state is at `to`.
    pub fn is_goal(&self, s: SearchState) -> bool {
        s.i as i64 == self.frame.n && s.j == 0
    }

    /// The position of a state's cell.
    pub fn point(&self, s: SearchState) -> DVec2 {
        self.frame.point(s.i as i64, s.j as i64)
    }

    /// Whether [`Self::successors`] gives the full step costs: true when
    /// the parts read from a road's label (schedule, dither) are off and
    /// there are no bridges, so a state alone fixes a step's cost.
    pub fn is_exact(&self) -> bool {
        let w = &self.params.weights;
        w.distance == 0.0 && w.dither == 0.0 && !self.params.bridges
    }

    #[inline]
    pub(super) fn inside(&self, i: i64, j: i64) -> bool {
        i >= self.win.0 && i <= self.win.1 && j >= self.win.2 && j <= self.win.3
    }

    /// Terrain height at lattice point `(a, b)`, cached.
    #[inline]
    pub(super) fn height(&mut self, a: i64, b: i64) -> f64 {
        self.lattice.height(&self.frame, self.terrain, a, b)
    }

    /// The segment from cell `(i, j)` along move `m`, or `None` when it is
    /// wet or leaves the window. Cached.
    #[inline]
    pub(super) fn edge(&mut self, i: i64, j: i64, m: usize) -> Option<SegTerrain> {
        let s = self.edges.slot(i, j) + m;
        let e = self.edges.data[s];
        match e.state {
            1 => return Some(e.seg),
            2 => return None,
            _ => {}
        }
        let (qi, qj) = (i + self.moves[m].0, j + self.moves[m].1);
        let sub = self.frame.sub;
        let seg = if self.inside(qi, qj) {
            self.lattice.segment(
                &self.frame,
                self.terrain,
                (i * sub, j * sub),
                (qi * sub, qj * sub),
            )
        } else {
            None
        };
        self.edges.data[s] = match seg {
            Some(seg) => Edge { seg, state: 1 },
            None => Edge {
                seg: UNKNOWN.seg,
                state: 2,
            },
        };
        seg
    }

    /// A bridge from cell `(i, j)` along move `m`: the first dry cell within
    /// `max_span`, as (its cell, the deck's terrain part).
    fn bridge(&mut self, i: i64, j: i64, m: usize) -> Option<((i64, i64), SegTerrain)> {
        let (di, dj) = self.moves[m];
        let p = self.frame.point(i, j);
        let zp = self.height(i * self.frame.sub, j * self.frame.sub);
        for k in 1..=1024 {
            let (qi, qj) = (i + k * di, j + k * dj);
            let q = self.frame.point(qi, qj);
            if !self.inside(qi, qj) || p.distance(q) > self.params.max_span {
                return None;
            }
            let zq = self.height(qi * self.frame.sub, qj * self.frame.sub);
            if zq >= self.frame.lake {
                return Some(((qi, qj), deck(p, q, zp, zq)));
            }
        }
        None
    }

    /// The heuristic: a lower bound of the cost from a state to `to`, the
    /// exact cost-to-go of a relaxed problem (see `togo.rs`); ∞ where `to`
    /// cannot be reached. Admissible and consistent.
    pub fn heuristic(&mut self, s: SearchState) -> f64 {
        let (i, j) = (s.i as i64, s.j as i64);
        let z = self.height(i * self.frame.sub, j * self.frame.sub);
        let simple = self.params.weights.slope * (self.z_goal - z).abs();
        self.cost_to_go(i, j, simple)
    }

    /// The plain admissible heuristic: the slope part's height difference
    /// to `to` (what [`Self::heuristic`] falls back to).
    pub fn simple_heuristic(&mut self, s: SearchState) -> f64 {
        let (i, j) = (s.i as i64, s.j as i64);
        let z = self.height(i * self.frame.sub, j * self.frame.sub);
        self.params.weights.slope * (self.z_goal - z).abs()
    }

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
        self.expand(i, j, &label, |t, c, _, _| {
            out.push((t, c.total()));
        });
        out
    }

    /// Calls `f(state, cost, segment, bridge)` for each step out of cell
    /// `(i, j)` reached with `label`.
    #[inline]
    fn expand(
        &mut self,
        i: i64,
        j: i64,
        label: &Label,
        mut f: impl FnMut(SearchState, super::CostBreakdown, SegTerrain, bool),
    ) {
        let k = self.moves.len();
        let din = label.din;
        let w = self.params.weights;
        for m in 0..k {
            let turn = (din < k).then(|| self.turn[din * k + m]);
            if turn.is_some_and(|t| t > self.params.max_turn + 1e-9) {
                continue;
            }
            let (qi, qj, seg, is_bridge) = match self.edge(i, j, m) {
                Some(seg) => (i + self.moves[m].0, j + self.moves[m].1, seg, false),
                None if self.params.bridges => match self.bridge(i, j, m) {
                    Some(((qi, qj), seg)) => (qi, qj, seg, true),
                    None => continue,
                },
                None => continue,
            };
            let length = label.len + seg.len;
            let progress = if w.distance > 0.0 {
                self.frame.progress(self.frame.point(qi, qj))
            } else {
                0.0
            };
            let step = Step {
                seg,
                prev_grade: label.grade,
                turn,
                th02: label.back2.map(|b| self.turn[b * k + m]),
                th03: label.back3.map(|b| self.turn[b * k + m]),
                progress,
                length,
                bridge: is_bridge,
                tie: tie_hash((i, j), (qi, qj), self.key),
            };
            let c = step_cost(&w, &self.params, self.frame.direct, &step);
            let t = SearchState {
                i: qi as i32,
                j: qj as i32,
                dir: m as u8,
            };
            f(t, c, seg, is_bridge);
        }
    }
}

/// What a state's best road so far says about the next step.
struct Label {
    len: f64,
    grade: Option<f64>,
    din: usize,
    back2: Option<usize>,
    back3: Option<usize>,
}

/// A state's record.
#[derive(Clone, Copy, Debug)]
struct Node {
    g: f64,
    len: f64,
    grade: f64,
    parent: u32,
    closed: bool,
    bridge: bool,
}

const NO_NODE: Node = Node {
    g: f64::INFINITY,
    len: 0.0,
    grade: f64::NAN,
    parent: u32::MAX,
    closed: false,
    bridge: false,
};

/// A heap entry: smallest `f` first, then smallest record index (so the
/// order never depends on anything but the inputs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Open {
    pub f: f64,
    pub slot: u32,
}

impl PartialEq for Open {
    fn eq(&self, o: &Self) -> bool {
        self.cmp(o) == Ordering::Equal
    }
}
impl Eq for Open {}
impl PartialOrd for Open {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Open {
    fn cmp(&self, o: &Self) -> Ordering {
        o.f.total_cmp(&self.f).then(o.slot.cmp(&self.slot))
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
    let mut nodes = Paged::new(x0, x1, y0, y1, k + 1, NO_NODE);
    let mut heap = BinaryHeap::new();
    let start = nodes.slot(0, 0) + k;
    nodes.data[start].g = 0.0;
    heap.push(Open {
        f: graph.heuristic(graph.start()),
        slot: start as u32,
    });
    // The schedule's bound holds for factor 1 only (never ahead of schedule).
    let sched_bound = w.distance > 0.0 && graph.params.distance_factor == 1.0;
    let mut expanded = 0;
    let mut found: Vec<(SearchState, f64, f64, f64, bool)> = Vec::with_capacity(k);
    while let Some(Open { slot, .. }) = heap.pop() {
        let slot = slot as usize;
        let node = nodes.data[slot];
        if node.closed {
            continue;
        }
        nodes.data[slot].closed = true;
        let (i, j, din) = nodes.cell_of(slot);
        if i == graph.frame.n && j == 0 {
            return Ok(rebuild(graph, &nodes, slot, node.g, expanded));
        }
        expanded += 1;
        if expanded > graph.params.max_expansions {
            return Err(PlanError::TooMuchWork(graph.params.max_expansions));
        }
        let dir_of = |s: u32| {
            (s != u32::MAX)
                .then(|| nodes.cell_of(s as usize).2)
                .filter(|&d| d < k)
        };
        let back2 = dir_of(node.parent);
        let back3 = back2.and_then(|_| dir_of(nodes.data[node.parent as usize].parent));
        let label = Label {
            len: node.len,
            grade: (din < k).then_some(node.grade),
            din,
            back2,
            back3,
        };
        found.clear();
        graph.expand(i, j, &label, |t, c, seg, bridge| {
            found.push((t, c.total(), seg.len, seg.grade, bridge));
        });
        for &(t, c, seg_len, seg_grade, bridge) in &found {
            let g = node.g + c;
            let ts = nodes.slot(t.i as i64, t.j as i64) + t.dir as usize;
            // A closed state keeps its road: its successors were costed
            // from its label, which must not change under them.
            if g >= nodes.data[ts].g || nodes.data[ts].closed {
                continue;
            }
            let len = node.len + seg_len;
            nodes.data[ts] = Node {
                g,
                len,
                grade: seg_grade,
                parent: slot as u32,
                closed: false,
                bridge,
            };
            let mut h = graph.heuristic(t);
            if h == f64::INFINITY {
                continue;
            }
            if sched_bound {
                let p = graph.frame.point(t.i as i64, t.j as i64);
                let dev = 100.0 * (graph.frame.progress(p) - len / graph.frame.direct);
                let r = p.distance(graph.frame.to);
                if dev < 0.0 {
                    h += w.distance * dev * dev * r / (graph.lmax * graph.lmax);
                }
            }
            heap.push(Open {
                f: g + h,
                slot: ts as u32,
            });
        }
    }
    Err(PlanError::NoRoad("no dry road inside the search window"))
}

fn rebuild(
    graph: &SearchGraph,
    nodes: &Paged<Node>,
    goal: usize,
    cost: f64,
    expanded: usize,
) -> Found {
    let mut rev = Vec::new();
    let mut slot = goal as u32;
    while slot != u32::MAX && rev.len() <= nodes.data.len() {
        let (i, j, _) = nodes.cell_of(slot as usize);
        let n = nodes.data[slot as usize];
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
