//! The tracing run: level by level (main, major, minor), seeds popped from
//! the queues alternating between the families, each line traced both ways
//! from its seed, then the level's dangling ends joined; highway gates are
//! seeded first and linked at the end if no line passed through them
//! ([`joins`]).

mod joins;

use super::TensorError;
use super::field::SampledField;
use super::graph::{MIN_NODE_CELL, NODE_CELL};
use super::lines::{
    Insert, Level, LineEnd, PointHash, Streamline, TracedStreets, insert_points, key,
};
use super::params::{StreamlineParams, TensorParams};
use super::region::Region;
use super::seeds::{Band, Density, SeedQueue, Walk};
use super::store::Store;
use super::trace::{Family, Limits, Scratch, Stop, direction, trace_both};
use glam::DVec2;
use std::collections::HashSet;

/// What a join or an end lands on.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// A traced line.
    Line(u32),
    /// The boundary (0) or obstacle `k − 1`.
    Poly(u32),
    /// A fixed road.
    Fixed(u32),
}

/// One level's working state.
struct LevelState<'p> {
    level: Level,
    sp: &'p StreamlineParams,
    lim: Limits,
    stores: [Store; 2],
    /// Per line, raw index minus filed step index.
    offsets: Vec<i32>,
    /// The first line of this level.
    first: usize,
    /// Whether this level or an earlier one steps adaptively: earlier
    /// lines are then filed, and lines walked for seeds, by length along
    /// them (their points are not `dstep` apart).
    by_length: bool,
}

pub(crate) struct Generator<'a> {
    params: &'a TensorParams,
    field: SampledField,
    region: Region,
    density: Density,
    lines: Vec<Streamline>,
    budget: u64,
    /// Junction points (exact bits).
    junctions: HashSet<(u64, u64), PointHash>,
    /// Points to insert into the boundary, obstacles and fixed roads.
    poly_inserts: Vec<(Target, Insert)>,
    fixed: Vec<Vec<DVec2>>,
    /// Gate points and whether a line passes through them.
    gates: Vec<(DVec2, bool)>,
    bounds: (DVec2, DVec2),
    /// The buffers of the line being traced (reused).
    scratch: Scratch,
    /// Per line, when some level steps adaptively: its points' times as
    /// fixed steps would count them (`dstep` a point; see [`Walk::Times`]).
    times_of: Vec<Vec<f64>>,
}

impl<'a> Generator<'a> {
    pub fn new(
        params: &'a TensorParams,
        field: SampledField,
        region: Region,
        fixed: Vec<Vec<DVec2>>,
        budget: u64,
    ) -> Self {
        let boundary = &region.polys()[0];
        let density = Density::new(&params.density, boundary);
        let bounds = crate::geom::bounds(boundary);
        // A gate is the end of a fixed road nearer the density centre.
        let gates = fixed
            .iter()
            .filter(|f| f.len() >= 2)
            .take(super::MAX_GATES)
            .map(|f| {
                let (a, b) = (f[0], f[f.len() - 1]);
                let c = density.centre();
                (if a.distance(c) <= b.distance(c) { a } else { b }, false)
            })
            .collect();
        Self {
            params,
            field,
            region,
            density,
            lines: Vec::new(),
            budget,
            junctions: HashSet::default(),
            poly_inserts: Vec::new(),
            fixed,
            gates,
            bounds,
            scratch: Scratch::default(),
            times_of: Vec::new(),
        }
    }

    /// Traces every level, joins, links the gates and hands over the result.
    pub fn run(mut self) -> Result<TracedStreets, TensorError> {
        for (i, level) in Level::ALL.into_iter().enumerate() {
            let sp = self.params.levels()[i];
            let mut st = self.level_state(level, sp);
            self.trace_level(&mut st, i as u64);
            if self.budget == 0 {
                return Err(super::budget::traced_too_much(sp, i));
            }
            self.join_level(&st);
        }
        self.link_gates();
        let mut polys: Vec<Vec<DVec2>> = self.region.polys().to_vec();
        let mut fixed = std::mem::take(&mut self.fixed);
        for (k, poly) in polys.iter_mut().enumerate() {
            *poly = self.inserted(poly, Target::Poly(k as u32));
        }
        for (k, road) in fixed.iter_mut().enumerate() {
            *road = self.inserted(road, Target::Fixed(k as u32));
        }
        let boundary = polys.remove(0);
        let p = self.params;
        Ok(TracedStreets {
            lines: self.lines,
            boundary,
            obstacles: polys,
            fixed,
            junctions: self.junctions,
            tolerance: [
                p.main.simplify_tolerance,
                p.major.simplify_tolerance,
                p.minor.simplify_tolerance,
            ],
            node_cell: (2.0
                * p.levels()
                    .iter()
                    .map(|l| l.dsep)
                    .fold(f64::INFINITY, f64::min))
            .clamp(MIN_NODE_CELL, NODE_CELL),
        })
    }

    /// `poly` with the insertions recorded for `target`.
    fn inserted(&self, poly: &[DVec2], target: Target) -> Vec<DVec2> {
        let ins = (self.poly_inserts.iter())
            .filter(|(t, _)| *t == target)
            .map(|(_, i)| *i)
            .collect();
        insert_points(poly, ins).0
    }

    /// Whether `level` or an earlier one steps adaptively.
    fn timed(&self, level: Level) -> bool {
        (self.params.levels()[..=level as usize].iter()).any(|l| l.tolerance > 0.0)
    }

    /// The level's limits and stores, with every earlier line filed.
    fn level_state<'p>(&self, level: Level, sp: &'p StreamlineParams) -> LevelState<'p> {
        let h = sp.dstep;
        let every = sp.every();
        let thr = sp.dtest + 0.5 * every as f64 * h;
        let reach = 1.5 * thr;
        let window = (3.0 * thr / h).ceil() as i32;
        let max_steps = (sp.max_length / h) as usize;
        let lim = Limits {
            h,
            thr,
            reach,
            every,
            window,
            max_steps,
            tol: sp.tolerance,
            max_h: sp.max_step(),
            max_stride: super::bs3::longest_step(sp.max_step()),
            own_time: window as f64 * h,
            max_time: max_steps as f64 * h,
        };
        let by_length = self.timed(level);
        let (lo, hi) = self.bounds;
        let margin = DVec2::splat(reach);
        // Room for the earlier lines' filed points and about this level's
        // (each family fills the area with lines `dsep` apart).
        let earlier: usize = (self.lines.iter())
            .map(|l| l.points.len() / every as usize + 2)
            .sum();
        let area = (hi - lo).x * (hi - lo).y;
        let traced = 1.5 * area / sp.dsep / (every as f64 * h);
        let room = earlier / 2 + (traced.min(1.0e7) as usize);
        let mut stores = [0, 1].map(|_| Store::new(lo - margin, hi + margin, reach / 2.0, room));
        for (id, line) in self.lines.iter().enumerate() {
            let store = &mut stores[line.family.index()];
            if by_length {
                file_by_length(store, &line.points, id as u32, every, every as f64 * h);
                continue;
            }
            // Every `every`-th point and the last.
            let n = line.points.len();
            let last = n.checked_sub(1).filter(|&l| l % every as usize != 0);
            for i in (0..n).step_by(every as usize).chain(last) {
                store.insert(line.points[i], id as u32, i as i32);
            }
        }
        LevelState {
            level,
            sp,
            lim,
            stores,
            offsets: vec![0; self.lines.len()],
            first: self.lines.len(),
            by_length,
        }
    }

    /// Seeds and traces one level until its queues run dry.
    fn trace_level(&mut self, st: &mut LevelState, salt: u64) {
        let seed = self.params.seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut queue = SeedQueue::new(seed, self.params.priority_jitter, self.density);
        // Only candidates on free ground are queued (the region does not
        // change, so a pop need not ask again), and none a pop would reject
        // already (the stores only grow while the level is traced).
        let (dsep, density) = (st.sp.dsep, self.density);
        let apart = |stores: &[Store; 2], f: Family, p: DVec2| {
            !stores[f.index()].any_within(p, dsep / density.at(p))
        };
        let keep = |region: &Region, stores: &[Store; 2], f: Family, p: DVec2| {
            apart(stores, f, p) && region.is_free(p)
        };
        let free = |_: Family, p: DVec2| self.region.is_free(p);
        for family in [Family::Major, Family::Minor] {
            if st.level == Level::Main {
                for (g, &(pos, _)) in self.gates.iter().enumerate() {
                    queue.push_if(family, Band::Gate, pos, Some(g as u32), free);
                }
            }
            queue.push_if(family, Band::Laid, self.density.centre(), None, free);
        }
        let dstep = st.sp.dstep;
        let field = &self.field;
        let vels =
            [false, true].map(|minor| move |p: DVec2, to: DVec2| field.towards(p, minor, to));
        for (line, times) in self.lines.iter().zip(&self.times_of) {
            let walk = if st.by_length {
                Walk::Times {
                    times,
                    per: self.params.levels()[line.level as usize].dstep,
                    step: dstep,
                    // Gate links are not traced through the field.
                    vel: (!line.traced.is_empty()).then_some(&vels[line.family.index()] as _),
                }
            } else {
                Walk::Steps(dstep)
            };
            queue.along(&line.points, line.family, dsep, walk, |f, p| {
                keep(&self.region, &st.stores, f, p)
            });
        }
        let (lo, hi) = self.bounds;
        for family in [Family::Major, Family::Minor] {
            queue.random(family, st.sp.seed_tries, lo, hi, free);
        }
        let mut family = Family::Major;
        while self.budget > 0 && !(queue.is_empty(Family::Major) && queue.is_empty(Family::Minor)) {
            let Some(c) = queue.pop(family) else {
                family = family.other();
                continue;
            };
            if !apart(&st.stores, family, c.pos) {
                continue;
            }
            if let Some((line, times)) = self.trace_line(st, c.pos, family) {
                if let Some(g) = c.gate {
                    self.gates[g as usize].1 = true;
                    self.junctions.insert(key(c.pos));
                }
                let field = &self.field;
                let minor = family == Family::Minor;
                let vel = |p: DVec2, to: DVec2| field.towards(p, minor, to);
                let walk = if st.lim.tol > 0.0 {
                    Walk::Times {
                        times: &times,
                        per: dstep,
                        step: dstep,
                        vel: Some(&vel),
                    }
                } else {
                    Walk::Steps(dstep)
                };
                queue.along(&line.points, family, dsep, walk, |f, p| {
                    keep(&self.region, &st.stores, f, p)
                });
                self.lines.push(line);
                self.times_of.push(times);
                family = family.other();
            }
        }
    }

    /// Traces a line of `family` through `seed` (both ways), with its
    /// points' times from its first (integration times with adaptive steps,
    /// else `dstep` apart; none if no level steps adaptively); `None` if
    /// the field degenerates there or the line is too short (its points
    /// are then unfiled again).
    fn trace_line(
        &mut self,
        st: &mut LevelState,
        seed: DVec2,
        family: Family,
    ) -> Option<(Streamline, Vec<f64>)> {
        let dir = direction(&self.field, family, seed)?;
        let id = self.lines.len() as u32;
        let store = &mut st.stores[family.index()];
        store.mark();
        store.insert(seed, id, 0);
        let [stop_f, stop_b] = trace_both(
            &self.field,
            &self.region,
            store,
            family,
            (seed, dir),
            id,
            &st.lim,
            &mut self.budget,
            &mut self.scratch,
        );
        let [fwd, bwd] = &self.scratch.halves;
        let mut points = Vec::with_capacity(bwd.len() + 1 + fwd.len());
        points.extend(bwd.iter().rev());
        points.push(seed);
        points.extend_from_slice(fwd);
        if super::lines::shorter_than(&points, st.sp.min_length.max(1.0e-9)) {
            store.undo();
            return None;
        }
        let times = if st.lim.tol > 0.0 {
            let [fwd, bwd] = &self.scratch.times;
            let t0 = bwd.last().copied().unwrap_or(0.0);
            let mut times = Vec::with_capacity(points.len());
            times.extend(bwd.iter().rev().map(|t| t0 - t));
            times.push(t0);
            times.extend(fwd.iter().map(|t| t0 + t));
            times
        } else if self.timed(Level::Minor) {
            (0..points.len()).map(|i| i as f64 * st.lim.h).collect()
        } else {
            Vec::new()
        };
        let ends = [stop_b, stop_f].map(|s| self.end_of(s));
        st.offsets.push(self.scratch.halves[1].len() as i32);
        let line = Streamline {
            traced: 0..points.len(),
            points,
            level: st.level,
            family,
            ends,
        };
        Some((line, times))
    }

    /// What a stop means for the line's end (recording edge junctions).
    fn end_of(&mut self, stop: Stop) -> LineEnd {
        match stop {
            Stop::Edge(hit) => {
                self.junctions.insert(key(hit.point));
                let at = Insert {
                    seg: hit.edge.seg,
                    u: hit.u,
                    point: hit.point,
                };
                self.poly_inserts.push((Target::Poly(hit.edge.poly), at));
                if hit.edge.poly == 0 {
                    LineEnd::Boundary
                } else {
                    LineEnd::Obstacle
                }
            }
            Stop::Degenerate => LineEnd::Degenerate,
            Stop::Blocked => LineEnd::Obstacle,
            Stop::Close => LineEnd::Close,
            Stop::Length => LineEnd::Length,
            Stop::Budget => LineEnd::Budget,
        }
    }
}

/// Files `points` (line `id`) so that filed points are at most `gap` apart
/// along it and at most `every` points apart (step index: the point's, or
/// for points laid between two, the first's), the first and last included.
fn file_by_length(store: &mut Store, points: &[DVec2], id: u32, every: i32, gap: f64) {
    let Some(&first) = points.first() else {
        return;
    };
    store.insert(first, id, 0);
    let (mut since, mut unfiled) = (0.0, 0);
    for (i, w) in points.windows(2).enumerate() {
        let len = w[0].distance(w[1]);
        // A segment longer than the gap: points laid along it.
        let n = (len / gap).ceil().min(1.0e6) as usize;
        for j in 1..n {
            store.insert(w[0].lerp(w[1], j as f64 / n as f64), id, i as i32);
        }
        since = if n > 1 { len / n as f64 } else { since + len };
        unfiled += 1;
        let next = points
            .get(i + 2)
            .map_or(f64::INFINITY, |&p| p.distance(w[1]));
        if since + next.min(gap) > gap || unfiled >= every {
            store.insert(w[1], id, i as i32 + 1);
            (since, unfiled) = (0.0, 0);
        }
    }
}
