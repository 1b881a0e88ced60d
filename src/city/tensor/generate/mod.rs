//! The tracing run: level by level (main, major, minor), seeds popped from
//! the queues alternating between the families, each line traced both ways
//! from its seed, then the level's dangling ends joined; highway gates are
//! seeded first and linked at the end if no line passed through them
//! ([`joins`]).

mod ahead;
mod joins;
mod line;

use super::TensorError;
use super::field::SampledField;
use super::graph::{MIN_NODE_CELL, NODE_CELL};
use super::lines::{
    Insert, Level, LineEnd, PointHash, Streamline, TracedStreets, insert_points, key,
};
use super::params::{StreamlineParams, TensorParams};
use super::region::Region;
use super::seeds::{Band, Candidate, Density, SeedQueue, Ticket, Walk, lay};
use super::store::Store;
use super::trace::{Family, Limits, Scratch, Stop};
use ahead::Ahead;
use glam::DVec2;
use line::{LineCx, Traced};
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
    field: &'a SampledField,
    region: &'a Region,
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
        field: &'a SampledField,
        region: &'a Region,
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

    /// Traces every level (with `ahead`, a line of each family at once),
    /// joins, links the gates and hands over the result.
    pub fn run(mut self, ahead: bool) -> Result<TracedStreets, TensorError> {
        // One helper thread for every level.
        std::thread::scope(|scope| {
            let mut ahead = Ahead::new(scope, ahead);
            for (i, level) in Level::ALL.into_iter().enumerate() {
                let sp = self.params.levels()[i];
                let mut st = self.level_state(level, sp);
                self.trace_level(&mut st, i as u64, &mut ahead);
                if self.budget == 0 {
                    return Err(super::budget::traced_too_much(sp, i));
                }
                self.join_level(&st);
            }
            Ok(())
        })?;
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
        // Each family's store filled on a thread of its own.
        let store_of = |family: Family| {
            let mut store = Store::new(lo - margin, hi + margin, reach / 2.0, room);
            for (id, line) in self.lines.iter().enumerate() {
                if line.family != family {
                    continue;
                }
                if by_length {
                    file_by_length(&mut store, &line.points, id as u32, every, every as f64 * h);
                    continue;
                }
                // Every `every`-th point and the last.
                let n = line.points.len();
                let last = n.checked_sub(1).filter(|&l| l % every as usize != 0);
                for i in (0..n).step_by(every as usize).chain(last) {
                    store.insert(line.points[i], id as u32, i as i32);
                }
            }
            store
        };
        let worth = earlier_points(&self.lines) >= super::MIN_PARALLEL_POINTS;
        let (major, minor) = super::both(
            worth,
            || store_of(Family::Major),
            || store_of(Family::Minor),
        );
        let stores = [major, minor];
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

    /// Seeds and traces one level until its queues run dry. While a line
    /// is traced, the best seed of the other family is traced as the next
    /// line, on a helper thread ([`Ahead`]; the families' stores are apart),
    /// and kept if it is the line the run traces next: the streets are the
    /// same as traced one by one.
    fn trace_level(&mut self, st: &mut LevelState, salt: u64, ahead: &mut Ahead<'a>) {
        let seed = self.params.seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut queue = SeedQueue::new(seed, self.params.priority_jitter, self.density);
        // Only candidates on free ground are queued (the region does not
        // change, so a pop need not ask again), and none a pop would reject
        // already (the stores only grow while the level is traced).
        let (dsep, density, region) = (st.sp.dsep, self.density, self.region);
        let free = |_: Family, p: DVec2| region.is_free(p);
        let keep = |stores: &[Store; 2], f: Family, p: DVec2| {
            apart(stores, f, p, dsep / density.at(p), None) && region.is_free(p)
        };
        for family in [Family::Major, Family::Minor] {
            if st.level == Level::Main {
                for (g, &(pos, _)) in self.gates.iter().enumerate() {
                    queue.push_if(family, Band::Gate, pos, Some(g as u32), free);
                }
            }
            queue.push_if(family, Band::Laid, self.density.centre(), None, free);
        }
        // Along the earlier lines: laid and checked on two threads (the
        // stores and the region are only read), queued in order.
        let lay_along = |lines: &[Streamline], times_of: &[Vec<f64>]| {
            let mut laid = Vec::new();
            for (line, times) in lines.iter().zip(times_of) {
                let vel =
                    |p: DVec2, to: DVec2| (self.field).towards(p, line.family == Family::Minor, to);
                let walk = if st.by_length {
                    Walk::Times {
                        times,
                        per: self.params.levels()[line.level as usize].dstep,
                        step: st.sp.dstep,
                        // Gate links are not traced through the field.
                        vel: (!line.traced.is_empty()).then_some(&vel as _),
                    }
                } else {
                    Walk::Steps(st.sp.dstep)
                };
                lay(&line.points, line.family, dsep, walk, density, |f, p| {
                    laid.push((f, p, keep(&st.stores, f, p)));
                });
            }
            laid
        };
        // Split where half the earlier lines' length lies behind (a walk
        // along a line costs by its length, not its points).
        let total: f64 = self.lines.iter().map(Streamline::length).sum();
        let mut behind = 0.0;
        let half = (self.lines.iter())
            .take_while(|l| {
                behind += l.length();
                behind <= 0.5 * total
            })
            .count();
        let (first, second) = (self.lines.split_at(half), self.times_of.split_at(half));
        let worth = earlier_points(&self.lines) >= super::MIN_PARALLEL_POINTS;
        let (a, b) = super::both(
            worth,
            || lay_along(first.0, second.0),
            || lay_along(first.1, second.1),
        );
        for &(f, p, kept) in a.iter().chain(&b) {
            queue.push_if(f, Band::Laid, p, None, |_, _| kept);
        }
        let (lo, hi) = self.bounds;
        for family in [Family::Major, Family::Minor] {
            queue.random(family, st.sp.seed_tries, lo, hi, free);
        }
        self.trace_queued(st, &mut queue, ahead);
    }

    /// Traces lines from the level's queued seeds, the families taking
    /// turns, until the queues run dry or the budget is spent; with `ahead`,
    /// the next line is traced while the current one is (see
    /// [`trace_level`](Self::trace_level)).
    fn trace_queued(&mut self, st: &mut LevelState, queue: &mut SeedQueue, ahead: &mut Ahead<'a>) {
        let (dsep, density) = (st.sp.dsep, self.density);
        let cx = LineCx {
            field: self.field,
            region: self.region,
            lim: st.lim,
            density,
            dsep,
            dstep: st.sp.dstep,
            min_length: st.sp.min_length,
            timed: self.timed(Level::Minor),
        };
        // Room for two whole lines: neither is cut short by the budget.
        let spare = if ahead.on() {
            2 * st.lim.max_steps as u64 + 4
        } else {
            u64::MAX
        };
        let mut family = Family::Major;
        while self.budget > 0 && !(queue.is_empty(Family::Major) && queue.is_empty(Family::Minor)) {
            let other = family.other();
            if queue.is_empty(family) {
                family = other;
                continue;
            }
            // The other family's best seed, traced meanwhile as the next
            // line; this family's seed is found while it is traced.
            let id = self.lines.len() as u32;
            let next = (self.budget >= spare)
                .then(|| best(queue, &st.stores, other, dsep, density, None))
                .flatten();
            if let Some((_, n)) = next {
                let store = std::mem::replace(&mut st.stores[other.index()], Store::placeholder());
                let lent = (store, queue.lend(other));
                ahead.start(cx, lent, (other, n.pos, id + 1), self.budget);
            }
            let Some((_, c)) = best(queue, &st.stores, family, dsep, density, None) else {
                // None kept: the next line is the other family's (and
                // not line `id + 1`).
                if next.is_some() {
                    let back = returned(queue, &mut st.stores, ahead.finish());
                    back.undo(queue, &mut st.stores);
                }
                family = other;
                continue;
            };
            queue.pop(family);
            let store = &mut st.stores[family.index()];
            let (used, line) = cx.trace(store, &mut self.scratch, (family, c.pos, id), self.budget);
            let back = next.map(|(t, n)| (t, n, returned(queue, &mut st.stores, ahead.finish())));
            self.budget -= used;
            let Some(line) = line else {
                if let Some((_, _, back)) = back {
                    back.undo(queue, &mut st.stores);
                }
                continue;
            };
            // The next line's points are not yet there for these.
            self.accept(st, queue, line, c, back.is_some().then_some(id + 1));
            family = other;
            let Some((t, n, back)) = back else {
                continue;
            };
            // The next line's seed (pruned if its line was kept) must
            // still be the best.
            let first = best(queue, &st.stores, other, dsep, density, Some(id + 1));
            match first {
                Some((f, _)) if f > t => {
                    back.undo(queue, &mut st.stores);
                    continue;
                }
                Some((f, _)) if f == t => {
                    queue.pop(other);
                }
                _ => {}
            }
            #[cfg(test)]
            KEPT_AHEAD.with(|k| k.set(k.get() + 1));
            self.budget -= back.used;
            if let Some(line) = back.line {
                self.accept(st, queue, line, n, None);
                family = family.other();
            }
        }
    }

    /// Adds a traced line of the level, seeded at `c`: its ends, and the
    /// seed candidates along it queued (those the other family's store
    /// decides with the points of line `skip` not counted).
    fn accept(
        &mut self,
        st: &mut LevelState,
        queue: &mut SeedQueue,
        line: Traced,
        c: Candidate,
        skip: Option<u32>,
    ) {
        let ends = line.stops.map(|s| self.end_of(s));
        st.offsets.push(line.before as i32);
        if let Some(g) = c.gate {
            self.gates[g as usize].1 = true;
            self.junctions.insert(key(c.pos));
        }
        let (dsep, density) = (st.sp.dsep, self.density);
        for l in &line.laid {
            queue.push_if(l.family, Band::Laid, l.pos, None, |f, p| {
                (l.keep).unwrap_or_else(|| apart(&st.stores, f, p, dsep / density.at(p), skip))
            });
        }
        self.lines.push(Streamline {
            traced: 0..line.points.len(),
            points: line.points,
            level: st.level,
            family: line.family,
            ends,
        });
        self.times_of.push(line.times);
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

#[cfg(test)]
thread_local! {
    /// Lines traced ahead and kept, on this thread (for the tests).
    pub(crate) static KEPT_AHEAD: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A line traced ahead, its store and seeds given back.
struct Returned {
    family: Family,
    pruned: Vec<Ticket>,
    used: u64,
    line: Option<Traced>,
}

/// Gives back the store and seeds lent with a line traced ahead.
fn returned(queue: &mut SeedQueue, stores: &mut [Store; 2], done: ahead::Done) -> Returned {
    let family = done.seeds.family();
    stores[family.index()] = done.store;
    queue.give_back(done.seeds);
    Returned {
        family,
        pruned: done.pruned,
        used: done.used,
        line: done.line,
    }
}

impl Returned {
    /// As if it had not been traced: its line unfiled from its family's
    /// store, its pruned seeds queued again.
    fn undo(self, queue: &mut SeedQueue, stores: &mut [Store; 2]) {
        queue.restore(self.family, &self.pruned);
        if self.line.is_some() {
            stores[self.family.index()].undo();
        }
    }
}

/// How many points `lines` have.
fn earlier_points(lines: &[Streamline]) -> usize {
    lines.iter().map(|l| l.points.len()).sum()
}

/// Whether no point of `family` (but line `skip`'s) is within `r` of `p`.
fn apart(stores: &[Store; 2], family: Family, p: DVec2, r: f64, skip: Option<u32>) -> bool {
    !stores[family.index()].any_within(p, r, skip)
}

/// The best candidate of `family` that a pop would keep (the points of line
/// `skip` not counted), left queued; those before it, which no pop would
/// keep now or later, are dropped.
fn best(
    queue: &mut SeedQueue,
    stores: &[Store; 2],
    family: Family,
    dsep: f64,
    density: Density,
    skip: Option<u32>,
) -> Option<(Ticket, Candidate)> {
    loop {
        let (t, c) = queue.peek(family)?;
        if apart(stores, family, c.pos, dsep / density.at(c.pos), skip) {
            return Some((t, c));
        }
        queue.pop(family);
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
