//! Routes along a [`RoadNetwork`]: [`RoadNetwork::route`] and the reusable
//! [`Router`] behind it (a compact graph of junctions and road ends, a
//! Dijkstra search on it, and a grid to snap the ends onto the roads).

mod graph;
#[cfg(test)]
mod tests;

pub use graph::{LEVEL_GAP, RouteGraph, grade_factor};

use super::RoadNetwork;
use crate::geom::{SegmentGrid, closest_on_segment};
use glam::{DVec2, DVec3};

/// The default [`RouteParams::max_snap`] (m).
pub const MAX_SNAP: f64 = 500.0;

/// How a [`Router`] snaps the ends and joins the roads.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteParams {
    /// How far from every road an end may be (m, finite, ≥ 0); default
    /// [`MAX_SNAP`].
    pub max_snap: f64,
    /// Roads sharing a vertex meet there only where their profile heights
    /// are less than this apart (m, finite, > 0); default [`LEVEL_GAP`].
    pub level_gap: f64,
}

impl Default for RouteParams {
    fn default() -> Self {
        Self {
            max_snap: MAX_SNAP,
            level_gap: LEVEL_GAP,
        }
    }
}

impl RouteParams {
    /// Checks every field.
    pub fn validate(&self) -> Result<(), RouteError> {
        let bad = |field, value: f64| RouteError::BadParam { field, value };
        if !(self.max_snap.is_finite() && self.max_snap >= 0.0) {
            return Err(bad("max_snap", self.max_snap));
        }
        if !(self.level_gap.is_finite() && self.level_gap > 0.0) {
            return Err(bad("level_gap", self.level_gap));
        }
        Ok(())
    }
}

/// The snapping grid's cell side (m).
const CELL: f64 = 64.0;

/// What a route minimises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RouteCost {
    /// Its length along the roads (3D, along the profiles).
    Length,
    /// Its travel time: each piece's length over its class's
    /// [`speed`](super::RoadClass::speed), slowed on grades
    /// ([`grade_factor`]); no junction delays.
    Time,
}

/// Which end of a route an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RouteEnd {
    /// The `from` argument.
    From,
    /// The `to` argument.
    To,
}

impl std::fmt::Display for RouteEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::From => "from",
            Self::To => "to",
        })
    }
}

/// Why there is no route.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RouteError {
    /// An end is NaN or infinite.
    #[error("route: `{0}` is not finite")]
    NonFinite(RouteEnd),
    /// An end lies farther than `max_snap` from every road.
    #[error("route: `{end}` is farther than {max_snap} m from every road")]
    TooFar {
        /// Which end.
        end: RouteEnd,
        /// The limit it broke (m).
        max_snap: f64,
    },
    /// No way along the roads joins the two ends.
    #[error("route: no way along the roads joins `from` and `to`")]
    NoPath,
    /// The network has no road to route on.
    #[error("route: the network has no usable road")]
    EmptyNetwork,
    /// A [`RouteParams`] field out of range.
    #[error("route params: `{field}` out of range: {value}")]
    BadParam {
        /// The field's name.
        field: &'static str,
        /// Its value.
        value: f64,
    },
}

/// A route along the roads.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    /// The way, on the road profiles (z from each road's profile, linear
    /// between its points; 0 on a road without one): from the snapped start,
    /// through every road vertex passed, to the snapped end. At least two
    /// points (the same twice for a zero-length route); no two consecutive
    /// points are equal otherwise.
    pub points: Vec<DVec3>,
    /// The roads travelled, in order (indices into
    /// [`RoadNetwork::roads`]), none twice in a row.
    pub roads: Vec<usize>,
    /// For each of `roads`, the index in `points` where the route leaves
    /// it (ascending; the last is `points.len() - 1`): the segment from
    /// `points[i]` runs along the first road whose end is past `i`.
    pub road_ends: Vec<usize>,
    /// Its 3D length (m): the sum of its points' distances.
    pub length: f64,
    /// Its travel time (s), as [`RouteCost::Time`] counts it.
    pub time: f64,
}

/// A network's routing graph and snapping index, built once
/// ([`RoadNetwork::router`]) and reused for any number of routes. It holds
/// its own copy of the roads' geometry, so it outlives the borrow of the
/// network (route on the network it came from: road indices are its).
#[derive(Clone, Debug)]
pub struct Router {
    graph: RouteGraph,
    grid: SegmentGrid,
    segments: usize,
    max_snap: f64,
    /// Per node: its connected component (the lowest node index in it).
    component: Vec<u32>,
}

/// Where an end lands on a road: segment `seg` at `t` in `[0, 1]`.
#[derive(Clone, Copy, Debug)]
struct Snap {
    road: usize,
    seg: u32,
    t: f64,
    dist: f64,
}

/// A stretch along one road, from one position `(vertex, t)` to another.
type Leg = (u32, (u32, f64), (u32, f64));

impl RoadNetwork {
    /// The shortest route between the road points nearest to `from` and `to`
    /// (within [`MAX_SNAP`]), by 3D length along the profiles or by travel
    /// time, turning only at junctions whose roads' heights there are less
    /// than [`LEVEL_GAP`] apart (see [`Router::new`]). Builds a [`Router`]
    /// for the one route (near-linear in the network's size): callers
    /// routing more than once should keep one from [`router`](Self::router).
    pub fn route(&self, from: DVec2, to: DVec2, cost: RouteCost) -> Result<Route, RouteError> {
        self.router().route(from, to, cost)
    }

    /// The network's routing graph and snapping index, to reuse.
    pub fn router(&self) -> Router {
        Router::new(self)
    }
}

impl Router {
    /// Builds the graph and index of `net` with the default
    /// [`RouteParams`]. Roads meet where they share a vertex that is a
    /// junction or a road end, at heights less than `level_gap` apart. Roads
    /// with fewer than two points or a non-finite point are left out; a
    /// profile of the wrong length or with a non-finite height counts as
    /// none (z = 0).
    pub fn new(net: &RoadNetwork) -> Self {
        Self::build(net, &RouteParams::default())
    }

    /// [`new`](Self::new) with other parameters (checked first).
    pub fn with_params(net: &RoadNetwork, params: &RouteParams) -> Result<Self, RouteError> {
        params.validate()?;
        Ok(Self::build(net, params))
    }

    fn build(net: &RoadNetwork, params: &RouteParams) -> Self {
        let graph = RouteGraph::new(net, params.level_gap);
        let fv = &graph.first_vertex;
        let lines = (net.roads.iter().enumerate()).map(|(i, r)| {
            if fv[i + 1] > fv[i] {
                r.points.as_slice()
            } else {
                &[]
            }
        });
        let grid = SegmentGrid::new(CELL, lines, |_| 0.0);
        let segments = (0..net.roads.len())
            .map(|i| (fv[i + 1] - fv[i]).saturating_sub(1) as usize)
            .sum();
        let component = graph.components();
        Self {
            graph,
            grid,
            segments,
            max_snap: params.max_snap,
            component,
        }
    }

    /// The connected part of the network that road `road`'s segment `seg`
    /// (from its point `seg` to the next) belongs to: a route joins two
    /// places on segments of the same component (and none on different
    /// ones). `None` for a road left out of the graph or a segment out of
    /// range.
    pub fn component(&self, road: usize, seg: usize) -> Option<u32> {
        let g = &self.graph;
        let (v0, v1) = (*g.first_vertex.get(road)?, *g.first_vertex.get(road + 1)?);
        if seg + 1 >= (v1 - v0) as usize {
            return None;
        }
        let s = Snap {
            road,
            seg: seg as u32,
            t: 0.0,
            dist: 0.0,
        };
        let piece = g.pieces.get(self.piece_of(&s))?;
        self.component.get(piece.a as usize).copied()
    }

    /// How far from every road an end may be (m).
    pub fn max_snap(&self) -> f64 {
        self.max_snap
    }

    /// The routing graph.
    pub fn graph(&self) -> &RouteGraph {
        &self.graph
    }

    /// The shortest route between the road points nearest to `from` and
    /// `to` (snapped onto the nearest segment, ties to the lower road, then
    /// segment), by `cost`. Runs in the routed area's size, not the
    /// network's (plus one pass of allocations per node).
    pub fn route(&self, from: DVec2, to: DVec2, cost: RouteCost) -> Result<Route, RouteError> {
        let s = self.snap(from, RouteEnd::From)?;
        let e = self.snap(to, RouteEnd::To)?;
        let g = &self.graph;
        let (ps_i, pe_i) = (self.piece_of(&s), self.piece_of(&e));
        let (ps, pe) = (g.pieces[ps_i], g.pieces[pe_i]);
        let c = |road: u32, at: (u32, f64)| self.cost_at(cost, road, at);
        let (cs, ce) = (c(ps.road, (s.seg, s.t)), c(pe.road, (e.seg, e.t)));
        let sources = [
            (ps.a, cs - c(ps.road, (ps.k0, 0.0))),
            (ps.b, c(ps.road, (ps.k1, 0.0)) - cs),
        ];
        let targets = [
            (pe.a, ce - c(pe.road, (pe.k0, 0.0))),
            (pe.b, c(pe.road, (pe.k1, 0.0)) - ce),
        ];
        let direct = if ps_i == pe_i {
            (ce - cs).abs()
        } else {
            f64::INFINITY
        };
        let found = g
            .search(cost, &sources, &targets, direct)
            .ok_or(RouteError::NoPath)?;
        let (sat, eat) = ((s.seg, s.t), (e.seg, e.t));
        let mut legs: Vec<Leg> = Vec::with_capacity(found.edges.len() + 2);
        match found.target {
            None => legs.push((ps.road, sat, eat)),
            Some(ti) => {
                let k = if found.source == 0 { ps.k0 } else { ps.k1 };
                legs.push((ps.road, sat, (k, 0.0)));
                for &edge in &found.edges {
                    let (p, back) = g.edge_piece(edge);
                    let (a, b) = if back { (p.k1, p.k0) } else { (p.k0, p.k1) };
                    legs.push((p.road, (a, 0.0), (b, 0.0)));
                }
                let k = if ti == 0 { pe.k0 } else { pe.k1 };
                legs.push((pe.road, (k, 0.0), eat));
            }
        }
        Ok(self.walk(&legs, s.road))
    }

    /// The route's points, roads, length and time along its legs.
    fn walk(&self, legs: &[Leg], start_road: usize) -> Route {
        let g = &self.graph;
        let mut r = Route::default();
        let push = |points: &mut Vec<DVec3>, p: DVec3| {
            if points.last() != Some(&p) {
                points.push(p);
            }
        };
        for &(road, a, b) in legs {
            let (a, b) = (norm(a), norm(b));
            let base = g.first_vertex[road as usize] as usize;
            push(&mut r.points, self.point_at(road, a));
            if a < b {
                for k in a.0 + 1..=b.0 {
                    push(&mut r.points, g.xyz[base + k as usize]);
                }
            } else {
                for k in (b.0 + 1..=a.0).rev() {
                    push(&mut r.points, g.xyz[base + k as usize]);
                }
            }
            push(&mut r.points, self.point_at(road, b));
            if a != b {
                if r.roads.last() != Some(&(road as usize)) {
                    r.roads.push(road as usize);
                    r.road_ends.push(0);
                }
                if let Some(end) = r.road_ends.last_mut() {
                    *end = r.points.len() - 1;
                }
            }
            let t = self.cost_at(RouteCost::Time, road, b) - self.cost_at(RouteCost::Time, road, a);
            r.time += t.abs();
        }
        if r.points.len() == 1 {
            r.points.push(r.points[0]);
        }
        if r.roads.is_empty() {
            r.roads.push(start_road);
            r.road_ends.push(0);
        }
        if let Some(end) = r.road_ends.last_mut() {
            *end = r.points.len() - 1;
        }
        r.length = r.points.windows(2).map(|w| w[0].distance(w[1])).sum();
        r
    }

    /// The point at `(vertex, t)` along a road, on its profile.
    fn point_at(&self, road: u32, (k, t): (u32, f64)) -> DVec3 {
        let i = self.graph.first_vertex[road as usize] as usize + k as usize;
        let xyz = &self.graph.xyz;
        if t == 0.0 {
            xyz[i]
        } else if t == 1.0 {
            xyz[i + 1]
        } else {
            xyz[i].lerp(xyz[i + 1], t)
        }
    }

    /// The cumulative cost from a road's start to `(vertex, t)` along it.
    fn cost_at(&self, cost: RouteCost, road: u32, (k, t): (u32, f64)) -> f64 {
        let g = &self.graph;
        let cum = match cost {
            RouteCost::Length => &g.cum_length,
            RouteCost::Time => &g.cum_time,
        };
        let i = g.first_vertex[road as usize] as usize + k as usize;
        if t == 0.0 {
            cum[i]
        } else {
            cum[i] + t * (cum[i + 1] - cum[i])
        }
    }

    /// The piece holding a snap's segment.
    fn piece_of(&self, s: &Snap) -> usize {
        let g = &self.graph;
        let (lo, hi) = (
            g.first_piece[s.road] as usize,
            g.first_piece[s.road + 1] as usize,
        );
        lo + g.pieces[lo..hi].partition_point(|p| p.k1 <= s.seg)
    }

    /// The nearest road point to `p` within `max_snap`. Looks in growing
    /// squares of cells (doubling, up to `max_snap`), or scans every segment
    /// once the square would hold more cells than there are segments.
    fn snap(&self, p: DVec2, end: RouteEnd) -> Result<Snap, RouteError> {
        if !p.is_finite() {
            return Err(RouteError::NonFinite(end));
        }
        if self.segments == 0 {
            return Err(RouteError::EmptyNetwork);
        }
        let g = &self.graph;
        let mut best: Option<Snap> = None;
        let consider = |best: &mut Option<Snap>, road: usize, seg: usize| {
            let i = g.first_vertex[road] as usize + seg;
            let (q, t) = closest_on_segment(p, g.xyz[i].truncate(), g.xyz[i + 1].truncate());
            let dist = q.distance(p);
            let better = best.is_none_or(|b| {
                dist < b.dist || (dist == b.dist && (road, seg as u32) < (b.road, b.seg))
            });
            if dist.is_finite() && better {
                *best = Some(Snap {
                    road,
                    seg: seg as u32,
                    t,
                    dist,
                });
            }
        };
        let last = (self.max_snap / CELL).ceil().max(1.0);
        let mut ring = 1.0f64;
        loop {
            let side = 2.0 * ring + 1.0;
            if side * side > self.segments as f64 {
                for road in 0..g.first_vertex.len() - 1 {
                    let n = (g.first_vertex[road + 1] - g.first_vertex[road]) as usize;
                    (0..n.saturating_sub(1)).for_each(|seg| consider(&mut best, road, seg));
                }
                break;
            }
            self.grid
                .near(p, ring as i64)
                .for_each(|(road, seg)| consider(&mut best, road, seg));
            if best.is_some_and(|b| b.dist <= ring * CELL) || ring >= last {
                break;
            }
            ring = (2.0 * ring).min(last);
        }
        best.filter(|b| b.dist <= self.max_snap)
            .ok_or(RouteError::TooFar {
                end,
                max_snap: self.max_snap,
            })
    }
}

/// A position with `t = 1` as the next vertex, so positions compare.
fn norm((k, t): (u32, f64)) -> (u32, f64) {
    if t >= 1.0 { (k + 1, 0.0) } else { (k, t) }
}
