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
use super::seeds::{Band, Density, SeedQueue};
use super::store::Store;
use super::trace::{Family, Limits, Stop, direction, trace_both};
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
    /// The two halves of the line being traced (reused).
    halves: [Vec<DVec2>; 2],
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
            halves: Default::default(),
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

    /// The level's limits and stores, with every earlier line filed.
    fn level_state<'p>(&self, level: Level, sp: &'p StreamlineParams) -> LevelState<'p> {
        let h = sp.dstep;
        let every = ((sp.dtest / (4.0 * h)).floor() as i32).max(1);
        let thr = sp.dtest + 0.5 * every as f64 * h;
        let reach = 1.5 * thr;
        let lim = Limits {
            h,
            thr,
            reach,
            every,
            window: (3.0 * thr / h).ceil() as i32,
            max_steps: (sp.max_length / h) as usize,
        };
        let (lo, hi) = self.bounds;
        let margin = DVec2::splat(reach);
        let mut stores = [0, 1].map(|_| Store::new(lo - margin, hi + margin, reach / 2.0));
        for (id, line) in self.lines.iter().enumerate() {
            let store = &mut stores[line.family.index()];
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
        }
    }

    /// Seeds and traces one level until its queues run dry.
    fn trace_level(&mut self, st: &mut LevelState, salt: u64) {
        let seed = self.params.seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut queue = SeedQueue::new(seed, self.params.priority_jitter, self.density);
        for family in [Family::Major, Family::Minor] {
            if st.level == Level::Main {
                for (g, &(pos, _)) in self.gates.iter().enumerate() {
                    queue.push(family, Band::Gate, pos, Some(g as u32));
                }
            }
            queue.push(family, Band::Laid, self.density.centre(), None);
        }
        // A candidate a pop would reject already (the stores only grow
        // while the level is traced) is not queued.
        let (dsep, density) = (st.sp.dsep, self.density);
        let keep = |region: &Region, stores: &[Store; 2], f: Family, p: DVec2| {
            region.is_free(p) && !stores[f.index()].any_within(p, dsep / density.at(p))
        };
        for line in &self.lines {
            queue.along(&line.points, line.family, dsep, st.sp.dstep, |f, p| {
                keep(&self.region, &st.stores, f, p)
            });
        }
        let (lo, hi) = self.bounds;
        for family in [Family::Major, Family::Minor] {
            queue.random(family, st.sp.seed_tries, lo, hi);
        }
        let mut family = Family::Major;
        while self.budget > 0 && !(queue.is_empty(Family::Major) && queue.is_empty(Family::Minor)) {
            let Some(c) = queue.pop(family) else {
                family = family.other();
                continue;
            };
            if !keep(&self.region, &st.stores, family, c.pos) {
                continue;
            }
            if let Some(line) = self.trace_line(st, c.pos, family) {
                if let Some(g) = c.gate {
                    self.gates[g as usize].1 = true;
                    self.junctions.insert(key(c.pos));
                }
                queue.along(&line.points, family, dsep, st.sp.dstep, |f, p| {
                    keep(&self.region, &st.stores, f, p)
                });
                self.lines.push(line);
                family = family.other();
            }
        }
    }

    /// Traces a line of `family` through `seed` (both ways); `None` if the
    /// field degenerates there or the line is too short (its points are
    /// then unfiled again).
    fn trace_line(
        &mut self,
        st: &mut LevelState,
        seed: DVec2,
        family: Family,
    ) -> Option<Streamline> {
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
            &mut self.halves,
        );
        let [fwd, bwd] = &self.halves;
        let mut points = Vec::with_capacity(bwd.len() + 1 + fwd.len());
        points.extend(bwd.iter().rev());
        points.push(seed);
        points.extend_from_slice(fwd);
        if super::lines::shorter_than(&points, st.sp.min_length.max(1.0e-9)) {
            store.undo();
            return None;
        }
        let ends = [stop_b, stop_f].map(|s| self.end_of(s));
        st.offsets.push(self.halves[1].len() as i32);
        Some(Streamline {
            traced: 0..points.len(),
            points,
            level: st.level,
            family,
            ends,
        })
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
