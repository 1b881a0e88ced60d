//! The request's state graph: (cell, incoming direction) states on the
//! frame's grid, with every per-request cache a search needs.
//!
//! What a step costs splits into parts fixed by its segment alone (slope
//! grade, p3, p4, its tie-breaker hash, whether it is dry; cached per cell
//! and move, the lake test only when asked), by the turn alone
//! (smoothness; a table per pair of moves), by its end cell (progress,
//! distance to `to`, the heuristic; cached per cell) and by the state's
//! label (p2, schedule, dither), added per step.

use super::bridge::Deck;
use super::cost::{SegTerrain, smooth_turn, tie_hash, tie_key};
use super::frame::Frame;
use super::lattice::Lattice;
use super::paged::Paged;
use super::togo::CostToGo;
use super::{MAX_WINDOW_BYTES, PlanError, PlannerParams, check_request};
use crate::terrain::Terrain;
use glam::DVec2;

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

/// A cached outgoing segment (its length is its move's, `SearchGraph::len`).
/// `base` is its weighted slope part without p2 (`w·(len·|grade| + p3 +
/// p4)`): NaN unknown, ∞ leaving the window. `to` copies its end cell's
/// data, so one expansion reads one cell's records only. `dry`: 0 not
/// asked yet (the lake test costs most, so it waits until a search needs
/// it), 1 dry, 2 wet.
#[derive(Clone, Copy, Debug)]
pub(super) struct Out {
    pub base: f64,
    pub grade: f64,
    /// The tie-breaker hash of the segment's cells.
    pub tie: f64,
    pub to: CellInfo,
    pub dry: u8,
}

const UNKNOWN: Out = Out {
    base: f64::NAN,
    grade: 0.0,
    tie: 0.0,
    to: CellInfo {
        progress: f64::NAN,
        dist: 0.0,
        h: f64::NAN,
    },
    dry: 0,
};

/// What a cell's position says: progress along the straight line (fraction
/// of direct), distance to `to`, and the heuristic (NaN until asked).
#[derive(Clone, Copy, Debug)]
pub(super) struct CellInfo {
    pub progress: f64,
    pub dist: f64,
    pub h: f64,
}

/// The request's state graph with its caches: what both this crate's A*
/// and any generic search (the bench runs `pathfinding`'s) expand.
pub struct SearchGraph<'t> {
    terrain: &'t Terrain,
    pub(super) params: PlannerParams,
    pub(super) frame: Frame,
    pub(super) moves: Vec<(i64, i64)>,
    /// Each move's length, metres.
    pub(super) len: Vec<f64>,
    /// Each move's walk length on the lattice (its links' lengths summed).
    pub(super) walk_len: Vec<f64>,
    /// `turn[a·k + b]`: the angle from move `a` to move `b`.
    pub(super) turn: Vec<f64>,
    /// Per incoming move `a` (or `k` at the start): the moves `b` it may
    /// turn into (not sharper than `max_turn`), with the turn's weighted
    /// smoothness.
    pub(super) turns_from: Vec<Vec<(usize, f64)>>,
    /// Window in cells: `i0..=i1` × `j0..=j1`.
    pub(super) win: (i64, i64, i64, i64),
    lattice: Lattice,
    outs: Paged<Out>,
    /// Scratch: one cell's segments while they are computed.
    segs: Vec<Option<SegTerrain>>,
    /// Bridges per cell and move (with `params.bridges`).
    pub(super) decks: Paged<Deck>,
    cells: Paged<CellInfo>,
    pub(super) key: u64,
    z_goal: f64,
    /// Longest single move, metres (bridges included).
    pub(super) lmax: f64,
    /// The relaxed cost-to-go search (none with bridges or no slope weight;
    /// boxed: each query takes it out and puts it back).
    pub(super) togo: Option<Box<CostToGo>>,
}

impl<'t> SearchGraph<'t> {
    /// The graph of a request, checked as the planners check one (the
    /// same errors), and [`PlanError::TooShort`] for ends closer than half
    /// a `step`, which have no grid.
    pub fn new(
        terrain: &'t Terrain,
        from: DVec2,
        to: DVec2,
        params: &PlannerParams,
    ) -> Result<Self, PlanError> {
        if check_request(terrain, from, to, params)?.is_some() {
            return Err(PlanError::TooShort {
                length: from.distance(to),
                min: params.step * 0.5,
            });
        }
        Self::build(terrain, from, to, params)
    }

    /// The graph of a checked request with ends at least half a step
    /// apart; [`PlanError::WindowTooLarge`] before anything is allocated
    /// when its caches' page directories would take over
    /// [`MAX_WINDOW_BYTES`].
    pub(super) fn build(
        terrain: &'t Terrain,
        from: DVec2,
        to: DVec2,
        params: &PlannerParams,
    ) -> Result<Self, PlanError> {
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
        let mut smooth = vec![0.0; (k + 1) * k];
        for a in 0..k {
            for b in 0..k {
                let t = super::cost::angle(v(moves[a]), v(moves[b]));
                turn[a * k + b] = t;
                smooth[a * k + b] = if t > params.max_turn + 1e-9 {
                    f64::INFINITY
                } else {
                    params.weights.smoothness * smooth_turn(t)
                };
            }
        }
        let len = moves.iter().map(|&m| v(m).length() * frame.cell).collect();
        let margin = (params.window * frame.direct * params.distance_factor).max(params.min_margin);
        let m = (margin / frame.cell).ceil() as i64 + 1;
        let win = (-m, frame.n + m, -m, m);
        // Each cache's page directory is dense over the window: 4 bytes per
        // 8 × 8 cells (six caches, a seventh with bridges, over the window
        // and a cell beyond) or lattice points (four, over the window `sub`
        // times finer, two cells and a sample beyond).
        let pages = |a: i64, b: i64, s: i64| ((b - a + 1) as u128 * s as u128 + 2) / 8 + 1;
        let sub = frame.sub;
        let bytes = 4
            * (4 * pages(win.0 - 2, win.1 + 2, sub) * pages(win.2 - 2, win.3 + 2, sub)
                + 7 * pages(win.0 - 1, win.1 + 1, 1) * pages(win.2 - 1, win.3 + 1, 1));
        if bytes > MAX_WINDOW_BYTES as u128 {
            return Err(PlanError::WindowTooLarge {
                bytes: bytes.min(u64::MAX as u128) as u64,
                max: MAX_WINDOW_BYTES,
            });
        }
        let mut lattice = Lattice::new(&frame, params, win, &moves);
        let walk_len = lattice.walk_lengths();
        let outs = Paged::new(win.0, win.1, win.2, win.3, k, UNKNOWN);
        let decks = super::bridge::decks(win, k, params.bridges);
        let nan = CellInfo {
            progress: f64::NAN,
            dist: 0.0,
            h: f64::NAN,
        };
        let cells = Paged::new(win.0, win.1, win.2, win.3, 1, nan);
        let longest = moves.iter().map(|&m| v(m).length()).fold(0.0, f64::max);
        let mut lmax = longest * frame.cell;
        if params.bridges {
            lmax = lmax.max(params.max_span + longest * frame.cell);
        }
        let z_goal = lattice.ground(&frame, terrain, frame.n * sub, 0);
        let z_start = lattice.ground(&frame, terrain, 0, 0);
        let togo = (!params.bridges && params.weights.slope > 0.0)
            .then(|| Box::new(CostToGo::new(win, frame.n, z_start, &smooth, &moves)));
        let turns_from = (0..=k)
            .map(|a| {
                (0..k)
                    .map(|b| (b, smooth[a * k + b]))
                    .filter(|&(_, t)| t < f64::INFINITY)
                    .collect()
            })
            .collect();
        Ok(Self {
            turns_from,
            togo,
            terrain,
            params: params.clone(),
            key: tie_key(params.seed),
            moves,
            len,
            turn,
            win,
            lattice,
            walk_len,
            outs,
            segs: Vec::new(),
            decks,
            cells,
            z_goal,
            lmax,
            frame,
        })
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

    /// The costed ground at lattice point `(a, b)` (`ground.rs`), cached.
    #[inline]
    pub(super) fn ground(&mut self, a: i64, b: i64) -> f64 {
        self.lattice.ground(&self.frame, self.terrain, a, b)
    }

    /// The index in `outs` of cell `(i, j)`'s first move (the cell must lie
    /// in the window).
    #[inline]
    pub(super) fn out_slot(&mut self, i: i64, j: i64) -> usize {
        self.outs.slot(i, j)
    }

    /// The segment from cell `(i, j)` along move `m` (its slot `s`, from
    /// [`Self::out_slot`]), computed on first use.
    #[inline]
    pub(super) fn out_at(&mut self, s: usize, i: i64, j: i64, m: usize) -> Out {
        let o = self.outs.data[s];
        if !o.base.is_nan() {
            return o;
        }
        self.fill_cell(s - m, i, j);
        self.outs.data[s]
    }

    /// Computes all of cell `(i, j)`'s outgoing segments (its slot `at`),
    /// sharing their lattice points.
    #[inline(never)]
    fn fill_cell(&mut self, at: usize, i: i64, j: i64) {
        let k = self.moves.len();
        let sub = self.frame.sub;
        let mut segs = std::mem::take(&mut self.segs);
        segs.resize(k, None);
        let (win, moves) = (self.win, &self.moves);
        let inside = |m: usize| {
            let (qi, qj) = (i + moves[m].0, j + moves[m].1);
            qi >= win.0 && qi <= win.1 && qj >= win.2 && qj <= win.3
        };
        self.lattice.cell_segments(
            &self.frame,
            self.terrain,
            &self.params,
            (i * sub, j * sub),
            inside,
            &mut segs,
        );
        let ws = self.params.weights.slope;
        for (m, seg) in segs.iter().enumerate() {
            let (qi, qj) = (i + self.moves[m].0, j + self.moves[m].1);
            let o = match seg {
                Some(seg) => Out {
                    base: ws * (seg.len * seg.grade.abs() + seg.p3 + seg.p4 + seg.works),
                    grade: seg.grade,
                    tie: tie_hash((i, j), (qi, qj), self.key),
                    to: self.cell(qi, qj).1,
                    dry: 0,
                },
                None => Out {
                    base: f64::INFINITY,
                    ..UNKNOWN
                },
            };
            self.outs.data[at + m] = o;
        }
        self.segs = segs;
    }

    /// The segment from cell `(i, j)` along move `m`, or `None` when it
    /// leaves the window (wet or not). Cached.
    #[inline]
    pub(super) fn edge(&mut self, i: i64, j: i64, m: usize) -> Option<Out> {
        let s = self.out_slot(i, j) + m;
        let o = self.out_at(s, i, j, m);
        (o.base < f64::INFINITY).then_some(o)
    }

    /// Whether the segment in slot `s` (from cell `(i, j)` along move `m`,
    /// inside the window) is dry. Cached.
    #[inline]
    pub(super) fn seg_dry(&mut self, s: usize, i: i64, j: i64, m: usize) -> bool {
        match self.outs.data[s].dry {
            1 => true,
            2 => false,
            _ => {
                let sub = self.frame.sub;
                let o = (i * sub, j * sub);
                let dry = self.lattice.dry_walk(&self.frame, self.terrain, o, m);
                self.outs.data[s].dry = if dry { 1 } else { 2 };
                dry
            }
        }
    }

    /// Cell `(i, j)`'s position data (its heuristic still NaN if unasked).
    #[inline]
    pub(super) fn cell(&mut self, i: i64, j: i64) -> (usize, CellInfo) {
        let s = self.cells.slot(i, j);
        let c = self.cells.data[s];
        if !c.progress.is_nan() {
            return (s, c);
        }
        let p = self.frame.point(i, j);
        let c = CellInfo {
            progress: self.frame.progress(p),
            dist: p.distance(self.frame.to),
            h: f64::NAN,
        };
        self.cells.data[s] = c;
        (s, c)
    }

    /// The heuristic: a lower bound of the cost from a state to `to`, the
    /// exact cost-to-go of a relaxed problem (see `togo.rs`); ∞ where `to`
    /// cannot be reached. Admissible and consistent. Cached per cell.
    pub fn heuristic(&mut self, s: SearchState) -> f64 {
        self.cell_h(s.i as i64, s.j as i64).1
    }

    /// [`Self::heuristic`] of cell `(i, j)`, with the cell's position data.
    #[inline]
    pub(super) fn cell_h(&mut self, i: i64, j: i64) -> (CellInfo, f64) {
        let (s, c) = self.cell(i, j);
        if !c.h.is_nan() {
            return (c, c.h);
        }
        let z = self.ground(i * self.frame.sub, j * self.frame.sub);
        let simple = self.params.weights.slope * (self.z_goal - z).abs();
        let h = self.cost_to_go(i, j, simple);
        self.cells.data[s].h = h;
        (c, h)
    }

    /// The end cell's data and heuristic of a step from [`Self::expand`]
    /// (`slot` its cache slot) that ends at cell `(i, j)`.
    #[inline]
    pub(super) fn step_h(&mut self, slot: usize, i: i64, j: i64) -> (CellInfo, f64) {
        if slot == usize::MAX {
            return self.cell_h(i, j);
        }
        let c = self.outs.data[slot].to;
        if !c.h.is_nan() {
            return (c, c.h);
        }
        let (c, h) = self.cell_h(i, j);
        self.outs.data[slot].to.h = h;
        (c, h)
    }

    /// The plain admissible heuristic: the slope part's height difference
    /// to `to` (what [`Self::heuristic`] falls back to).
    pub fn simple_heuristic(&mut self, s: SearchState) -> f64 {
        let (i, j) = (s.i as i64, s.j as i64);
        let z = self.ground(i * self.frame.sub, j * self.frame.sub);
        self.params.weights.slope * (self.z_goal - z).abs()
    }
}
