//! The given geometry: input checks, the obstacle and area tests, and the
//! first graph — ring, obstacle outlines and fixed roads cut at every
//! contact so the graph is planar before any street is drawn.

use super::StreetsError;
use super::work::{Origin, Work};
use crate::city::polygon::{polygon_contains, signed_area};
use crate::city::{EdgeRole, StreetsInput};
use crate::geom::{Contact, NodeId, PlanarGraph, bounds, contact_point, segment_contact};
use glam::DVec2;
use std::collections::HashMap;

/// Most points the boundary, the fixed roads and the obstacles may have
/// together (their contacts are found pair by pair).
pub const MAX_GIVEN_POINTS: usize = 4096;
/// Farthest a coordinate may lie from the origin, metres.
pub const MAX_COORD: f64 = 1.0e9;
/// Largest seed split number.
pub const MAX_SEED_SPLIT: f64 = 64.0;

/// Checks the input: finite coordinates, a simple counter-clockwise
/// boundary of 3 or more points (or none), fixed roads of 2 or more
/// points, obstacles of 3 or more, split numbers in `0 ..= 64`.
pub(super) fn check_input(input: &StreetsInput) -> Result<(), StreetsError> {
    let finite = |what, ps: &[DVec2]| {
        if ps
            .iter()
            .all(|p| p.is_finite() && p.abs().cmple(DVec2::splat(MAX_COORD)).all())
        {
            Ok(())
        } else {
            Err(StreetsError::NotFinite { what })
        }
    };
    let b = &input.boundary;
    finite("boundary", b)?;
    let count = b.len()
        + input.fixed.iter().map(Vec::len).sum::<usize>()
        + input.obstacles.iter().map(Vec::len).sum::<usize>();
    if count > MAX_GIVEN_POINTS {
        return Err(StreetsError::TooLarge {
            what: "boundary, fixed roads and obstacles",
            len: count,
            max: MAX_GIVEN_POINTS,
        });
    }
    if !b.is_empty() {
        if b.len() < 3 {
            return Err(StreetsError::TooFewPoints {
                what: "boundary",
                len: b.len(),
            });
        }
        if let Some((i, j)) = self_contact(b) {
            return Err(StreetsError::BoundaryNotSimple(i, j));
        }
        let area = signed_area(b);
        if area <= 0.0 {
            return Err(StreetsError::BoundaryClockwise(area));
        }
    }
    for s in &input.seeds {
        finite("seeds", &[s.pos])?;
        if !(0.0..=MAX_SEED_SPLIT).contains(&s.split) {
            return Err(StreetsError::NotFinite { what: "seeds" });
        }
    }
    for f in &input.fixed {
        finite("fixed", f)?;
        if f.len() < 2 {
            return Err(StreetsError::TooFewPoints {
                what: "fixed",
                len: f.len(),
            });
        }
    }
    for o in &input.obstacles {
        finite("obstacles", o)?;
        if o.len() < 3 {
            return Err(StreetsError::TooFewPoints {
                what: "obstacles",
                len: o.len(),
            });
        }
    }
    Ok(())
}

/// The first pair of edges of a closed loop that touch other than at the
/// vertex two neighbours share (or a zero-length edge, as `(i, i)`).
fn self_contact(ring: &[DVec2]) -> Option<(usize, usize)> {
    let n = ring.len();
    let seg = |i: usize| (ring[i], ring[(i + 1) % n]);
    if let Some(i) = (0..n).find(|&i| seg(i).0 == seg(i).1) {
        return Some((i, i));
    }
    for i in 0..n {
        let (a, b) = seg(i);
        for j in i + 1..n {
            let (c, d) = seg(j);
            let adjacent = j == i + 1 || (i == 0 && j == n - 1);
            match segment_contact(a, b, c, d) {
                None => {}
                Some(Contact::Point { t, u }) if adjacent => {
                    // Neighbours share exactly one end and nothing else.
                    let shared = if j == i + 1 { (1.0, 0.0) } else { (0.0, 1.0) };
                    if (t, u) != shared {
                        return Some((i, j));
                    }
                }
                Some(_) => return Some((i, j)),
            }
        }
    }
    None
}

/// The obstacle polygons, for "is this point in an obstacle?".
#[derive(Clone, Debug, Default)]
pub(super) struct Obstacles {
    polys: Vec<(DVec2, DVec2, Vec<DVec2>)>,
}

impl Obstacles {
    pub(super) fn new(polys: &[Vec<DVec2>]) -> Self {
        Self {
            polys: polys
                .iter()
                .map(|p| {
                    let (lo, hi) = bounds(p);
                    (lo, hi, p.clone())
                })
                .collect(),
        }
    }

    /// Whether `p` lies inside obstacle `k` (even-odd; bounding box first).
    fn in_one(&self, k: usize, p: DVec2) -> bool {
        let (lo, hi, poly) = &self.polys[k];
        p.cmpge(*lo).all() && p.cmple(*hi).all() && polygon_contains(poly, p)
    }

    /// Whether `p` lies inside any obstacle.
    pub(super) fn contains(&self, p: DVec2) -> bool {
        (0..self.polys.len()).any(|k| self.in_one(k, p))
    }
}

/// Where a pass of the generator may put nodes and streets.
#[derive(Clone, Copy, Debug)]
pub(super) enum Area<'a> {
    /// Anywhere.
    Plane,
    /// Inside a polygon (the ring, or a bounded face).
    Inside(&'a [DVec2]),
    /// Outside every one of these polygons (the outer faces).
    Outside(&'a [Vec<DVec2>]),
}

/// An [`Area`] minus the obstacles.
#[derive(Clone, Copy, Debug)]
pub(super) struct Region<'a> {
    area: Area<'a>,
    obstacles: &'a Obstacles,
    /// A box around the area (everything, but for [`Area::Inside`]).
    bounds: (DVec2, DVec2),
}

impl<'a> Region<'a> {
    pub(super) fn new(area: Area<'a>, obstacles: &'a Obstacles) -> Self {
        let bounds = match area {
            Area::Inside(poly) => bounds(poly),
            _ => (DVec2::NEG_INFINITY, DVec2::INFINITY),
        };
        Self {
            area,
            obstacles,
            bounds,
        }
    }

    /// Whether `p` lies in the box around the area (a quick first test).
    pub(super) fn in_bounds(&self, p: DVec2) -> bool {
        p.cmpge(self.bounds.0).all() && p.cmple(self.bounds.1).all()
    }

    /// Whether `p` may hold a node or a street's midpoint.
    pub(super) fn contains(&self, p: DVec2) -> bool {
        let inside = match self.area {
            Area::Plane => true,
            Area::Inside(poly) => self.in_bounds(p) && polygon_contains(poly, p),
            Area::Outside(polys) => !polys.iter().any(|poly| polygon_contains(poly, p)),
        };
        inside && !self.obstacles.contains(p)
    }
}

/// One given segment before it is cut at its contacts.
struct Piece {
    ends: [DVec2; 2],
    role: EdgeRole,
    /// The obstacle it outlines (obstacles only).
    obstacle: usize,
    /// Where it is cut: parameters and exact points.
    cuts: Vec<(f64, DVec2)>,
}

/// The parameter of `p` along `a–b`.
fn along(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let d = b - a;
    (p - a).dot(d) / d.length_squared()
}

/// Records where pieces `i` and `j` touch on both.
fn cut_pair(pieces: &mut [Piece], i: usize, j: usize) {
    let ([a, b], [c, d]) = (pieces[i].ends, pieces[j].ends);
    match segment_contact(a, b, c, d) {
        None => {}
        Some(Contact::Point { t, u }) => {
            // An end of either piece is taken exactly.
            let p = contact_point(t, u, a, b, c, d);
            pieces[i].cuts.push((t, p));
            pieces[j].cuts.push((u, p));
        }
        Some(Contact::Overlap { .. }) => {
            // Each is cut at the other's ends that lie along it.
            for (k, [p, q], ends) in [(i, [a, b], [c, d]), (j, [c, d], [a, b])] {
                for e in ends {
                    let t = along(e, p, q);
                    if t > 0.0 && t < 1.0 {
                        pieces[k].cuts.push((t, e));
                    }
                }
            }
        }
    }
}

/// The graph of the given geometry, cut at every contact: ring edges
/// ([`EdgeRole::Ring`]) outside the obstacles, obstacle outlines
/// ([`EdgeRole::Obstacle`]) inside the ring and outside the other
/// obstacles, fixed roads ([`EdgeRole::Fixed`]) whole. Seeds follow (those
/// inside the ring and outside the obstacles, not on a node). Gates are the
/// fixed roads' ends on or inside the ring, outside the obstacles.
pub(super) fn given_graph(input: &StreetsInput, obstacles: &Obstacles, cell: f64) -> Work {
    let ring = &input.boundary;
    let mut pieces = Vec::new();
    let mut closed = |pts: &[DVec2], role, obstacle| {
        for i in 0..pts.len() {
            let ends = [pts[i], pts[(i + 1) % pts.len()]];
            pieces.push(Piece {
                ends,
                role,
                obstacle,
                cuts: Vec::new(),
            });
        }
    };
    closed(ring, EdgeRole::Ring, 0);
    for (k, o) in input.obstacles.iter().enumerate() {
        closed(o, EdgeRole::Obstacle, k);
    }
    for f in &input.fixed {
        for w in f.windows(2) {
            pieces.push(Piece {
                ends: [w[0], w[1]],
                role: EdgeRole::Fixed,
                obstacle: 0,
                cuts: Vec::new(),
            });
        }
    }
    let boxes: Vec<(DVec2, DVec2)> = pieces.iter().map(|p| bounds(&p.ends)).collect();
    for i in 0..pieces.len() {
        for j in i + 1..pieces.len() {
            let ((a0, a1), (b0, b1)) = (boxes[i], boxes[j]);
            if a0.cmple(b1).all() && b0.cmple(a1).all() {
                cut_pair(&mut pieces, i, j);
            }
        }
    }
    // Which cut pieces stay.
    let keep = |piece: &Piece, mid: DVec2| match piece.role {
        EdgeRole::Ring => !obstacles.contains(mid),
        EdgeRole::Obstacle => {
            (ring.is_empty() || polygon_contains(ring, mid))
                && !(0..input.obstacles.len())
                    .any(|k| k != piece.obstacle && obstacles.in_one(k, mid))
        }
        _ => true,
    };
    let mut graph = PlanarGraph::new(cell);
    let mut ids: HashMap<(u64, u64), NodeId> = HashMap::new();
    let mut node = |g: &mut PlanarGraph, p: DVec2| {
        let p = p + DVec2::ZERO; // −0 becomes +0
        *ids.entry((p.x.to_bits(), p.y.to_bits()))
            .or_insert_with(|| g.add_node(p))
    };
    for mut piece in pieces {
        let [a, b] = piece.ends;
        piece.cuts.push((0.0, a));
        piece.cuts.push((1.0, b));
        piece.cuts.sort_by(|x, y| x.0.total_cmp(&y.0));
        piece.cuts.dedup_by(|x, y| x.1 == y.1);
        for w in piece.cuts.windows(2) {
            if w[0].1 != w[1].1 && keep(&piece, w[0].1.lerp(w[1].1, 0.5)) {
                let (p, q) = (node(&mut graph, w[0].1), node(&mut graph, w[1].1));
                graph.add_edge(p, q, piece.role.label());
            }
        }
    }
    let (graph, _) = graph.retain_nodes(|n| graph.degree(n) > 0);
    let mut work = Work::new(graph, Origin::Given);
    let obstacle = EdgeRole::Obstacle.label();
    for n in 0..work.graph.node_count() as NodeId {
        let g = &work.graph;
        let outline = g
            .incident(n)
            .iter()
            .all(|&e| g.edges()[e as usize].label == obstacle);
        work.meta[n as usize].blocked = outline || obstacles.contains(g.pos(n));
    }
    // Gates: found again by position.
    let ring_label = EdgeRole::Ring.label();
    for f in &input.fixed {
        for end in [f[0], f[f.len() - 1]] {
            let Some(&n) = work.graph.nodes_within(end, 0.0).first() else {
                continue;
            };
            let g = &work.graph;
            let on_ring = g
                .incident(n)
                .iter()
                .any(|&e| g.edges()[e as usize].label == ring_label);
            if !work.meta[n as usize].blocked
                && (ring.is_empty() || on_ring || polygon_contains(ring, end))
            {
                work.meta[n as usize].gate = true;
            }
        }
    }
    for s in &input.seeds {
        let inside = ring.is_empty() || polygon_contains(ring, s.pos);
        if inside && !obstacles.contains(s.pos) && !work.graph.any_node_closer(s.pos, 1e-6) {
            work.add_node(s.pos, Origin::Seed, s.split);
        }
    }
    work
}
