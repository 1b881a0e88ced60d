//! The tracing run: level by level (main, major, minor), seeds popped from
//! the queues alternating between the families, each line traced both ways
//! from its seed, then the level's dangling ends joined; highway gates are
//! seeded first and linked at the end if no line passed through them.

use super::field::SampledField;
use super::lines::{
    Insert, Level, LineEnd, PointHash, Streamline, TracedStreets, insert_points, key,
};
use super::params::{StreamlineParams, TensorParams};
use super::region::Region;
use super::seeds::{Band, Density, SeedQueue};
use super::store::Store;
use super::trace::{Family, Limits, Stop, direction, trace_both};
use super::{MAX_TRACE_STEPS, TensorError};
use crate::geom::{closest_on_segment, segment_intersection};
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

/// A join found for a dangling end.
#[derive(Clone, Copy, Debug)]
struct Join {
    target: Target,
    at: Insert,
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
}

impl<'a> Generator<'a> {
    pub fn new(
        params: &'a TensorParams,
        field: SampledField,
        region: Region,
        fixed: Vec<Vec<DVec2>>,
    ) -> Self {
        let boundary = &region.polys()[0];
        let density = Density::new(&params.density, boundary);
        let bounds = crate::geom::bounds(boundary);
        // A gate is the end of a fixed road nearer the density centre.
        let gates = fixed
            .iter()
            .filter(|f| f.len() >= 2)
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
            budget: MAX_TRACE_STEPS,
            junctions: HashSet::default(),
            poly_inserts: Vec::new(),
            fixed,
            gates,
            bounds,
        }
    }

    /// Traces every level, joins, links the gates and hands over the result.
    pub fn run(mut self) -> Result<TracedStreets, TensorError> {
        for (i, level) in Level::ALL.into_iter().enumerate() {
            let sp = self.params.levels()[i];
            let mut st = self.level_state(level, sp);
            self.trace_level(&mut st, i as u64);
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
            let n = line.points.len();
            for (i, &p) in line.points.iter().enumerate() {
                if i % every as usize == 0 || i + 1 == n {
                    store.insert(p, id as u32, i as i32);
                }
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
        for line in &self.lines {
            queue.along(&line.points, line.family, st.sp.dsep, st.sp.dstep);
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
            let sep = st.sp.dsep / self.density.at(c.pos);
            if !self.region.is_free(c.pos) || st.stores[family.index()].any_within(c.pos, sep) {
                continue;
            }
            if let Some(line) = self.trace_line(st, c.pos, family) {
                if let Some(g) = c.gate {
                    self.gates[g as usize].1 = true;
                    self.junctions.insert(key(c.pos));
                }
                queue.along(&line.points, family, st.sp.dsep, st.sp.dstep);
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
        let [(fwd, stop_f), (bwd, stop_b)] = trace_both(
            &self.field,
            &self.region,
            store,
            family,
            (seed, dir),
            id,
            &st.lim,
            &mut self.budget,
        );
        let mut points: Vec<DVec2> = bwd.iter().rev().copied().collect();
        points.push(seed);
        points.extend_from_slice(&fwd);
        if super::lines::polyline_length(&points) < st.sp.min_length.max(1.0e-9) {
            store.undo();
            return None;
        }
        let ends = [stop_b, stop_f].map(|s| self.end_of(s));
        st.offsets.push(bwd.len() as i32);
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

    /// Joins the level's dangling ends, then puts the junction points into
    /// the lines they land on.
    fn join_level(&mut self, st: &LevelState) {
        let mut joins = Vec::new();
        for id in st.first..self.lines.len() {
            for end in 0..2 {
                if matches!(
                    self.lines[id].ends[end],
                    LineEnd::Boundary | LineEnd::Obstacle | LineEnd::Joined
                ) {
                    continue;
                }
                if let Some(j) = self.find_join(st, id, end) {
                    joins.push((id, end, j));
                }
            }
        }
        let mut line_inserts: Vec<Vec<Insert>> = vec![Vec::new(); self.lines.len()];
        let mut extensions: Vec<[Vec<DVec2>; 2]> = vec![[Vec::new(), Vec::new()]; self.lines.len()];
        for &(id, end, j) in &joins {
            let pts = &self.lines[id].points;
            let from = if end == 0 { pts[0] } else { pts[pts.len() - 1] };
            extensions[id][end] = straight(from, j.at.point, st.sp.dstep);
            self.junctions.insert(key(j.at.point));
            match j.target {
                Target::Line(t) => line_inserts[t as usize].push(j.at),
                t => self.poly_inserts.push((t, j.at)),
            }
        }
        for (id, (ins, [head, tail])) in line_inserts.into_iter().zip(extensions).enumerate() {
            if ins.is_empty() && head.is_empty() && tail.is_empty() {
                continue;
            }
            let line = &mut self.lines[id];
            let (pts, map) = insert_points(&line.points, ins);
            let (s, e) = (line.traced.start, line.traced.end);
            let shift = head.len();
            line.traced = map[s] + shift..map[e - 1] + 1 + shift;
            let mut points: Vec<DVec2> = head.into_iter().rev().collect();
            points.extend(pts);
            if !tail.is_empty() {
                points.extend(tail);
                line.ends[1] = LineEnd::Joined;
            }
            if shift > 0 {
                line.ends[0] = LineEnd::Joined;
            }
            line.points = points;
        }
    }

    /// The nearest point within the lookahead, and within the join angle
    /// of the end's direction, on a line, the boundary or a fixed road.
    fn find_join(&self, st: &LevelState, id: usize, end: usize) -> Option<Join> {
        let pts = &self.lines[id].points;
        let n = pts.len();
        let look = st.sp.dlookahead;
        if n < 2 || look <= 0.0 {
            return None;
        }
        let (e, prev, e_idx) = if end == 0 {
            (pts[0], pts[1], 0)
        } else {
            (pts[n - 1], pts[n - 2], n - 1)
        };
        let dir = (e - prev).normalize_or_zero();
        if dir == DVec2::ZERO {
            return None;
        }
        let mut best: Option<(f64, Join)> = None;
        let mut consider = |a: DVec2, b: DVec2, target: Target, seg: u32| {
            for (d, u, point) in join_points(e, dir, look, st.sp.join_angle, a, b) {
                if best.is_none_or(|b| d < b.0) {
                    best = Some((
                        d,
                        Join {
                            target,
                            at: Insert { seg, u, point },
                        },
                    ));
                }
            }
        };
        // Segments of lines with a point filed near the end.
        let own_window = ((look + 3.0 * st.lim.thr) / st.lim.h).ceil() as i64;
        let every = st.lim.every as i64;
        let mut segs: Vec<(u32, u32)> = Vec::new();
        for store in &st.stores {
            for (_, s) in store.near(e, look) {
                let raw = s.idx as i64 + st.offsets[s.line as usize] as i64;
                if s.line as usize == id && (raw - e_idx as i64).abs() < own_window {
                    continue;
                }
                let len = self.lines[s.line as usize].points.len() as i64;
                for k in (raw - every).max(0)..(raw + every).min(len - 1) {
                    segs.push((s.line, k as u32));
                }
            }
        }
        segs.sort_unstable();
        segs.dedup();
        for (l, k) in segs {
            let p = &self.lines[l as usize].points;
            consider(p[k as usize], p[k as usize + 1], Target::Line(l), k);
        }
        for edge in self.region.ring_edges_near(e, look) {
            consider(edge.a, edge.b, Target::Poly(0), edge.seg);
        }
        for (k, road) in self.fixed.iter().enumerate() {
            for (i, w) in road.windows(2).enumerate() {
                consider(w[0], w[1], Target::Fixed(k as u32), i as u32);
            }
        }
        let (_, j) = best?;
        (!self.region.blocks(e, j.at.point)).then_some(j)
    }

    /// Links every gate no line passed through to the nearest line or
    /// boundary point within the main lookahead, by a straight main road.
    fn link_gates(&mut self) {
        let look = self.params.main.dlookahead;
        for g in 0..self.gates.len() {
            let (gate, done) = self.gates[g];
            if done {
                continue;
            }
            let mut cands: Vec<(f64, Join)> = Vec::new();
            let mut consider = |a: DVec2, b: DVec2, target: Target, seg: u32| {
                let (c, u) = closest_on_segment(gate, a, b);
                let d = c.distance(gate);
                if d <= look {
                    cands.push((
                        d,
                        Join {
                            target,
                            at: Insert { seg, u, point: c },
                        },
                    ));
                }
            };
            for (l, line) in self.lines.iter().enumerate() {
                for (k, w) in line.points.windows(2).enumerate() {
                    consider(w[0], w[1], Target::Line(l as u32), k as u32);
                }
            }
            let ring = &self.region.polys()[0];
            for i in 0..ring.len() {
                consider(
                    ring[i],
                    ring[(i + 1) % ring.len()],
                    Target::Poly(0),
                    i as u32,
                );
            }
            cands.sort_by(|a, b| a.0.total_cmp(&b.0));
            if cands.first().is_some_and(|c| c.0 < 1.0e-9) {
                continue; // on the boundary already
            }
            let Some(&(_, j)) = cands
                .iter()
                .find(|c| !self.region.blocks(gate, c.1.at.point))
            else {
                continue;
            };
            self.junctions.insert(key(j.at.point));
            self.junctions.insert(key(gate));
            match j.target {
                Target::Line(t) => {
                    let line = &mut self.lines[t as usize];
                    let (pts, map) = insert_points(&line.points, vec![j.at]);
                    line.traced = map[line.traced.start]..map[line.traced.end - 1] + 1;
                    line.points = pts;
                }
                t => self.poly_inserts.push((t, j.at)),
            }
            let mut points = vec![gate];
            points.extend(straight(gate, j.at.point, self.params.main.dstep));
            self.lines.push(Streamline {
                points,
                level: Level::Main,
                family: Family::Major,
                traced: 0..0,
                ends: [LineEnd::Joined; 2],
            });
            self.gates[g].1 = true;
        }
    }
}

/// The points after `from` on the way to `to`, about `step` apart, ending
/// exactly at `to`.
fn straight(from: DVec2, to: DVec2, step: f64) -> Vec<DVec2> {
    let n = (from.distance(to) / step).ceil().clamp(1.0, 1.0e6) as usize;
    let mut out: Vec<DVec2> = (1..n).map(|i| from.lerp(to, i as f64 / n as f64)).collect();
    out.push(to);
    out
}

/// Join points on segment `a–b` for an end at `e` heading `dir`: where the
/// straight continuation meets it, and its nearest point if that lies
/// within `angle` of `dir`; each as `(distance, u, point)` within `look`.
fn join_points(
    e: DVec2,
    dir: DVec2,
    look: f64,
    angle: f64,
    a: DVec2,
    b: DVec2,
) -> impl Iterator<Item = (f64, f64, DVec2)> {
    let on = |u: f64| {
        if u <= 0.0 {
            a
        } else if u >= 1.0 {
            b
        } else {
            a.lerp(b, u)
        }
    };
    let ray = segment_intersection(e, e + dir * look, a, b)
        .filter(|&(t, _)| t > 0.0)
        .map(|(t, u)| (t * look, u, on(u)));
    let (c, u) = closest_on_segment(e, a, b);
    let d = c.distance(e);
    let near =
        (d > 1.0e-9 && d <= look && dir.dot((c - e) / d) >= angle.cos()).then(|| (d, u, on(u)));
    ray.into_iter().chain(near)
}
