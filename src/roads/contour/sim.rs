//! The simulation: every path of every start grows at once, a step per
//! round, inside the light cone of the focus box; each round proposes the
//! next segments, finds what stops them (see `meet`) and grows or stops.

use super::bounds::{GroundStops, QuickStops};
use super::cells::{CellLists, Cells, NearBox, file};
use super::meet::{Cross, Event, Insert, Obstacle};
use super::steps::{LANES, StepConsts, StepKernel, Steps, candidates};
use super::work::{Budget, RoadWork};
use super::{ContourParams, RoadAreaError, RoadStart};
use crate::terrain::Terrain;
use glam::DVec2;

/// One path of a start: its points so far and its growing tip.
pub(super) struct Path {
    /// Canonical identity: the start's id and which of its paths this is.
    pub(super) key: PathKey,
    pub(super) points: Vec<DVec2>,
    /// Unit direction of the last step, `(sin b, cos b)` for bearing `b`.
    dir: DVec2,
    /// The corners of the box around its points.
    pub(super) lo: DVec2,
    pub(super) hi: DVec2,
    /// The last point, its cell and the height there.
    tip: DVec2,
    tip_cell: (i64, i64),
    tip_height: f64,
    /// Centre of a disk the quick town test cleared (NaN: none yet).
    town_disk: DVec2,
    /// Still growing (not stopped, not full, not out of the light cone).
    growing: bool,
}

pub(super) type PathKey = ((i64, i64), u32);

/// The segment a growing path proposes this round.
#[derive(Clone, Copy, Default)]
pub(super) struct Proposal {
    pub(super) a: DVec2,
    pub(super) b: DVec2,
    pub(super) dir: DVec2,
    /// Index of the new segment in the path.
    pub(super) seg: usize,
    /// Heights at `a` and `b`.
    pub(super) ha: f64,
    pub(super) hb: f64,
    /// Known to meet no lake (by the first quick bound), and no town.
    pub(super) lake_clear: bool,
    pub(super) town_clear: bool,
    /// The lowest and highest cells of its box, and the cell of `b`.
    pub(super) span: ((i64, i64), (i64, i64)),
    pub(super) near: NearBox,
    pub(super) b_cell: (i64, i64),
}

/// The simulation of a set of start points, with every path kept inside the
/// light cone of a focus box.
pub(super) struct Sim<'a> {
    terrain: &'a Terrain,
    pub(super) p: &'a ContourParams,
    pub(super) paths: Vec<Path>,
    pub(super) cells: Cells,
    /// Every segment proposed, filed when proposed: those of the current
    /// round are proposals, earlier ones laid (cut short where their path
    /// stopped, or not laid at all).
    pub(super) segments: CellLists,
    /// The quick lake and town tests.
    quick: &'a QuickStops<'a>,
    pub(super) inserts: Vec<Insert>,
    /// Scratch space for the lake and town stops.
    ground: GroundStops,
    /// What the lane-by-lane step arithmetic needs.
    consts: StepConsts,
    /// The box whose roads must come out exact.
    focus: (DVec2, DVec2),
}

impl<'a> Sim<'a> {
    /// A simulation of `starts` (which must hold every start within
    /// `step·(horizon + 1)` of the focus box) over the area `[lo, hi)` they
    /// lie in.
    pub(super) fn new(
        terrain: &'a Terrain,
        p: &'a ContourParams,
        quick: &'a QuickStops<'a>,
        starts: &[RoadStart],
        focus: (DVec2, DVec2),
        (lo, hi): (DVec2, DVec2),
    ) -> Self {
        // Paths never leave the cone, which ends a step beyond the starts.
        let pad = DVec2::splat(2.0 * p.step);
        let cells = Cells::new(lo - pad, hi + pad);
        // Room for the first points of each path, a million in all at most
        // (the rest as they come).
        let count: usize = starts.iter().map(|s| s.bearings.len()).sum();
        let room = (p.max_points.min(64)).min((1 << 20) / count.max(1)).max(4);
        let mut paths = Vec::with_capacity(count);
        for s in starts {
            let h = terrain.height(s.pos.x, s.pos.y);
            for (k, &b) in s.bearings.iter().enumerate() {
                let (sin, cos) = b.sin_cos();
                paths.push(Path {
                    key: (s.id, k as u32),
                    points: {
                        let mut v = Vec::with_capacity(room);
                        v.push(s.pos);
                        v
                    },
                    dir: DVec2::new(sin, cos),
                    lo: s.pos,
                    hi: s.pos,
                    tip: s.pos,
                    tip_cell: cells.cell(s.pos),
                    tip_height: h,
                    town_disk: DVec2::NAN,
                    growing: true,
                });
            }
        }
        let n = cells.len();
        let consts = StepConsts {
            kernel: StepKernel::detect(),
            turn: p.turn.sin_cos(),
            step: p.step,
            origin: cells.origin,
            last: (cells.w - 1, cells.h - 1),
            disk: quick.disk,
            steepest: quick.slope.as_ref().map_or(f64::INFINITY, |s| s.steepest),
            lake_floor: quick.slope.as_ref().map_or(f64::INFINITY, |s| s.floor),
        };
        Self {
            terrain,
            p,
            paths,
            segments: CellLists::new(n),
            cells,
            quick,
            inserts: Vec::new(),
            ground: GroundStops::default(),
            consts,
            focus,
        }
    }

    pub(super) fn start_id(&self, path: usize) -> (i64, i64) {
        self.paths[path].key.0
    }

    /// Whether a tip at `p` after round `r` can still affect the focus box:
    /// nothing moves faster than a step per round, and growth ends at the
    /// horizon. One step more than that keeps exact the first point of a
    /// road that leaves the box (so the check after the run sees it).
    fn in_cone(&self, p: DVec2, r: f64) -> bool {
        self.within_focus(p, self.p.step * (self.p.horizon() + 1.0 - r))
    }

    /// Whether `p` is within `reach` of the focus box.
    #[inline]
    fn within_focus(&self, p: DVec2, reach: f64) -> bool {
        let (f0, f1) = self.focus;
        // The distance to the box per axis (zero inside its span).
        let d = (f0 - p).max(p - f1).max(DVec2::ZERO);
        reach >= 0.0 && d.length_squared() <= reach * reach
    }

    /// The segments up to eight paths propose this round (filed at once),
    /// given the heights of their three candidate points each: the
    /// arithmetic lane by lane (see [`Steps`]), then what needs branches.
    /// Returns how many cell entries were filed.
    #[inline(never)] // Measured: the growth loop runs faster around a call.
    fn propose(
        &mut self,
        lanes: &mut Steps,
        chunk: &[usize],
        heights: &[f64],
        r: usize,
        props: &mut [Proposal],
    ) -> u64 {
        let mut filed = 0;
        for (k, &i) in chunk.iter().enumerate() {
            let path = &self.paths[i];
            lanes.load(
                k,
                path.tip,
                path.dir,
                path.tip_height,
                &heights[3 * k..3 * k + 3],
            );
            (lanes.disk_x[k], lanes.disk_y[k]) = (path.town_disk.x, path.town_disk.y);
        }
        lanes.run(&self.consts);
        for (k, &i) in chunk.iter().enumerate() {
            let path = &self.paths[i];
            let tip = path.tip;
            let dir = DVec2::new(lanes.dir_x[k], lanes.dir_y[k]);
            let next = DVec2::new(lanes.next_x[k], lanes.next_y[k]);
            let next_cell = (lanes.cell_x[k], lanes.cell_y[k]);
            let span = Cells::span(path.tip_cell, next_cell);
            let near = lanes.near[k];
            let seg = path.points.len() - 1;
            // A path crosses a town disk in a few steps: one town test for
            // all of them, centred a little ahead.
            let town_clear = lanes.within[k] || {
                let c = tip + dir * (0.9 * self.quick.disk);
                let clear = self.quick.town_clear_disk(c);
                if clear {
                    self.paths[i].town_disk = c;
                }
                clear
            };
            file(&mut self.segments, &self.cells, span, i, seg, r, near);
            filed += Cells::count(span);
            props[i] = Proposal {
                a: tip,
                b: next,
                dir,
                seg,
                ha: lanes.h[k],
                hb: lanes.hb[k],
                lake_clear: lanes.lake_clear[k],
                town_clear,
                span,
                near,
                b_cell: next_cell,
            };
        }
        filed
    }

    /// Grows every path until growth ends, counting the work in `budget`
    /// (and stopping with an error as soon as some work runs out).
    pub(super) fn run(&mut self, budget: &mut Budget) -> Result<(), RoadAreaError> {
        let turn = self.p.turn.sin_cos();
        let mut props = vec![Proposal::default(); self.paths.len()];
        let mut stop: Vec<Option<(f64, Obstacle)>> = vec![None; self.paths.len()];
        let (mut events, mut crosses): (Vec<Event>, Vec<Cross>) = (Vec::new(), Vec::new());
        let mut active: Vec<usize> = (0..self.paths.len()).collect();
        let (mut xs, mut ys, mut hs) = (Vec::new(), Vec::new(), Vec::new());
        let mut ground = Vec::new();
        // Reused: lanes past the end of a round's last chunk hold old tips,
        // whose results are never read.
        let mut lanes = Steps::default();
        for i in 0..self.paths.len() {
            let start = self.paths[i].points[0];
            self.paths[i].growing = self.in_cone(start, 0.0);
        }
        for r in 1..=self.p.max_rounds {
            active.retain(|&i| self.paths[i].growing);
            if active.is_empty() {
                break;
            }
            budget.spend(RoadWork::Steps, active.len() as u64)?;
            // How near the focus box a tip must end this round to grow on
            // (see `in_cone`).
            let reach = self.p.step * (self.p.horizon() + 1.0 - r as f64);
            // 1. Every growing path proposes its next segment; lake and town
            // may stop it part way.
            events.clear();
            crosses.clear();
            // Three candidate points per path, their heights in one batch.
            xs.resize(3 * active.len(), 0.0);
            ys.resize(3 * active.len(), 0.0);
            for ((x3, y3), &i) in xs
                .chunks_exact_mut(3)
                .zip(ys.chunks_exact_mut(3))
                .zip(&active)
            {
                let path = &self.paths[i];
                for (k, (ux, uy)) in candidates(path.dir.into(), turn).into_iter().enumerate() {
                    (x3[k], y3[k]) = (path.tip.x + ux * self.p.step, path.tip.y + uy * self.p.step);
                }
            }
            self.terrain.heights_at_points(&xs, &ys, &mut hs);
            for (n, chunk) in active.chunks(LANES).enumerate() {
                let heights = &hs[3 * LANES * n..];
                let filed = self.propose(&mut lanes, chunk, heights, r, &mut props);
                budget.spend(RoadWork::CellEntries, filed)?;
            }
            for &i in &active {
                stop[i] = None;
            }
            ground.clear();
            let segments = active.iter().map(|&i| {
                let p = &props[i];
                (p.a, p.b, p.ha, p.hb, p.lake_clear, p.town_clear)
            });
            self.ground
                .find(self.quick, segments, &mut ground, budget)?;
            for &(n, t) in &ground {
                events.push(Event {
                    t,
                    path: active[n],
                    obstacle: Obstacle::Ground,
                });
            }
            // 2. What else could stop each one, and when (fraction of the round).
            // (Counted eight paths at a time.)
            for chunk in active.chunks(LANES) {
                let found = events.len() + crosses.len();
                let mut tests = 0;
                for &i in chunk {
                    tests += self.meetings(i, r as u32, &props, &mut events, &mut crosses);
                }
                budget.spend(RoadWork::PairTests, tests)?;
                let found = events.len() + crosses.len() - found;
                budget.spend(RoadWork::Meetings, found as u64)?;
            }
            // 3. Resolve in time order: a path stops at its first valid event.
            events.sort_by(|x, y| self.event_order(x, y));
            for e in &events {
                if stop[e.path].is_some() {
                    continue;
                }
                // Another path this round is an obstacle where it gets to
                // (at its start only if it leaves it: a path stopped where
                // it began lays nothing).
                let valid = match e.obstacle {
                    Obstacle::New { path, u } => stop[path].is_none_or(|s| s.0 >= u && s.0 > 0.0),
                    _ => true,
                };
                if valid {
                    stop[e.path] = Some((e.t, e.obstacle));
                }
            }
            let reaches = |path: usize, t: f64| stop[path].is_none_or(|s| s.0 >= t);
            for c in &crosses {
                let (i, t) = c.a;
                let (j, s, u, new) = c.b;
                if reaches(i, t) && (!new || reaches(j, u)) {
                    let seg_j = if new { props[j].seg } else { s };
                    self.inserts.push(Insert {
                        path: i,
                        seg: props[i].seg,
                        point: c.point,
                    });
                    self.inserts.push(Insert {
                        path: j,
                        seg: seg_j,
                        point: c.point,
                    });
                }
            }
            // 4. Grow or stop (the segments are filed already).
            for &i in &active {
                let Proposal {
                    a,
                    b,
                    dir,
                    hb,
                    b_cell,
                    ..
                } = props[i];
                match stop[i] {
                    None => {
                        let grows = self.paths[i].points.len() + 1 < self.p.max_points
                            && self.within_focus(b, reach);
                        let path = &mut self.paths[i];
                        path.points.push(b);
                        (path.lo, path.hi) = (path.lo.min(b), path.hi.max(b));
                        path.tip = b;
                        path.tip_cell = b_cell;
                        path.dir = dir;
                        path.tip_height = hb;
                        path.growing = grows;
                    }
                    Some((t, obstacle)) => {
                        self.paths[i].growing = false;
                        let end = match obstacle {
                            Obstacle::Ground => a.lerp(b, t),
                            Obstacle::Old { path, seg, u } => {
                                let p = self.paths[path].points[seg]
                                    .lerp(self.paths[path].points[seg + 1], u);
                                self.inserts.push(Insert {
                                    path,
                                    seg,
                                    point: p,
                                });
                                p
                            }
                            Obstacle::New { path, u } => {
                                let o = props[path];
                                let p = o.a.lerp(o.b, u);
                                self.inserts.push(Insert {
                                    path,
                                    seg: o.seg,
                                    point: p,
                                });
                                p
                            }
                        };
                        if t != 0.0 && end != a {
                            let path = &mut self.paths[i];
                            path.points.push(end);
                            (path.lo, path.hi) = (path.lo.min(end), path.hi.max(end));
                            path.tip = end;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
