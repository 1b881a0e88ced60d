//! Planar-graph streets (seed 002): nodes, then streets joining them under
//! the article's constraints, then every edge split and every bounded face
//! filled the same way with the next level's smaller distances.
//!
//! The given geometry enters the graph first ([`StreetsInput`]): the
//! boundary as ring edges, obstacle outlines as constraint edges (streets
//! route around them by the no-crossing rule and are dropped from the
//! output), fixed roads as edges whose ends on or inside the ring are gates
//! that streets are grown from first. Level 0 fills the ring ("nodes inside
//! a loop", starting from the ring's nodes) or, without a boundary, grows
//! from the seeds by their split numbers. Each later level splits ring and
//! street edges to the previous level's `split_length`, then fills every
//! bounded face with the face's own nodes as its loop (and, without a
//! boundary, the outer face from `outer_split`). After each level, isolated
//! nodes and all street-only parts but the largest are removed.
//!
//! What the output keeps: the graph is planar; every node with a street
//! has at most `max_degree` edges; a street makes at least `min_angle_deg`
//! with every other edge at both its ends (two given edges may meet at any
//! angle); no street closes a triangle; streets stay inside the boundary
//! (when given) and out of the obstacles; a node made by level `l`'s node
//! step lies at least `levels[l].clearance` from every node made before it
//! (given, seed, split or generated; nodes made by splitting edges have no
//! clearance of their own); the same input gives the same streets.
//!
//! ```
//! use bevy_relief::city::planar::{PlanarParams, PlanarStreets};
//! use bevy_relief::city::{SeedNode, StreetsInput};
//! use glam::DVec2;
//! let ring: Vec<DVec2> = (0..32)
//!     .map(|i| DVec2::from_angle(i as f64 / 32.0 * std::f64::consts::TAU) * 300.0)
//!     .collect();
//! let input = StreetsInput { boundary: ring, ..StreetsInput::default() };
//! let streets = PlanarStreets::new(PlanarParams::default()).unwrap().generate(&input).unwrap();
//! assert!(streets.network.check_planar().is_ok() && !streets.blocks.is_empty());
//! ```

mod edges;
mod input;
mod nodes;
mod params;
#[cfg(test)]
mod tests;
mod work;

pub use input::{MAX_COORD, MAX_GIVEN_POINTS, MAX_SEED_SPLIT};
pub use params::{MAX_LEVELS, PlanarParams, StreetLevel};
pub use work::MAX_NODES;

use super::polygon::{polygon_contains, signed_area};
use super::{EdgeRole, Streets, StreetsInput};
use crate::geom::NodeId;
use crate::network::RoadClass;
use crate::terrain::ParamError;
use edges::Streeter;
use glam::DVec2;
use input::{Area, Obstacles, Region};
use nodes::Wedge;
use thiserror::Error;
use work::{Rng, Work};

/// Why [`PlanarStreets::generate`] refused its input.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum StreetsError {
    /// The parameters are invalid.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// A coordinate is NaN, infinite or beyond [`MAX_COORD`], or a seed's
    /// split number is not in `0 ..= MAX_SEED_SPLIT`.
    #[error("{what}: a coordinate or split number is not finite or out of range")]
    NotFinite {
        /// Which input.
        what: &'static str,
    },
    /// A boundary of 1 or 2 points, a fixed road of 1, an obstacle of 2.
    #[error("{what}: too few points ({len})")]
    TooFewPoints {
        /// Which input.
        what: &'static str,
        /// How many it has.
        len: usize,
    },
    /// The boundary touches itself (edges `i` and `j`; `(i, i)`: edge `i`
    /// has zero length).
    #[error("boundary: not a simple loop (edges {0} and {1} touch)")]
    BoundaryNotSimple(usize, usize),
    /// The boundary is not counter-clockwise (its signed area).
    #[error("boundary: not counter-clockwise (signed area {0})")]
    BoundaryClockwise(f64),
    /// The given geometry has too many points.
    #[error("{what}: {len} points, at most {max}")]
    TooLarge {
        /// Which input.
        what: &'static str,
        /// How many points.
        len: usize,
        /// The most allowed.
        max: usize,
    },
    /// The city would (or, for a boundary, could at the densest packing)
    /// have more than `max` nodes.
    #[error("too much work: more than {max} nodes")]
    TooMuchWork {
        /// The cap.
        max: usize,
    },
}

/// The planar street generator.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarStreets {
    params: PlanarParams,
}

impl PlanarStreets {
    /// A generator with checked parameters.
    pub fn new(params: PlanarParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self { params })
    }

    /// Its parameters.
    pub fn params(&self) -> &PlanarParams {
        &self.params
    }

    /// The streets for `input`: the same input gives the same streets.
    pub fn generate(&self, input: &StreetsInput) -> Result<Streets, StreetsError> {
        let work = self.build(input)?;
        Ok(self.output(&work, input))
    }

    /// The output of a finished graph: streets styled by level.
    fn output(&self, work: &Work, input: &StreetsInput) -> Streets {
        Streets::from_graph(&work.graph, input.obstacles.clone(), |role| match role {
            EdgeRole::Street(n) => Some((RoadClass::Street, self.params.street_width(n as usize))),
            other => other.default_style(),
        })
    }

    /// The labelled graph with obstacle outlines, and what is known of
    /// each node.
    fn build(&self, input: &StreetsInput) -> Result<Work, StreetsError> {
        input::check_input(input)?;
        let levels = &self.params.levels;
        // No level can pack its nodes denser than a triangular lattice of
        // side `clearance`: refuse rings that could pass the cap.
        let area = signed_area(&input.boundary);
        let densest: f64 = (levels.iter())
            .map(|l| area * 2.0 / 3f64.sqrt() / (l.clearance * l.clearance))
            .sum();
        if densest > MAX_NODES as f64 {
            return Err(StreetsError::TooMuchWork { max: MAX_NODES });
        }
        let obstacles = Obstacles::new(&input.obstacles);
        let mut work = input::given_graph(input, &obstacles, levels[0].connection_radius);
        let mut run = Run {
            params: &self.params,
            rng: Rng::new(self.params.seed),
            ring: &input.boundary,
            obstacles: &obstacles,
            pass: 0,
        };
        for (l, lv) in levels.iter().enumerate() {
            if l > 0 {
                work.reindex(lv.connection_radius);
                work.split(levels[l - 1].split_length)?;
            }
            // Dense node cells where this level can reach.
            let (lo, hi) = crate::geom::bounds(work.graph.nodes());
            let (rlo, rhi) = crate::geom::bounds(&input.boundary);
            let margin = 2.0 * lv.extension.1 + lv.connection_radius;
            let bounds = (lo.min(rlo) - margin, hi.max(rhi) + margin);
            work.index_nodes(bounds, lv.clearance);
            if l == 0 {
                run.first_level(&mut work)?;
            } else {
                run.face_level(&mut work, l as u8)?;
            }
            work.prune();
        }
        Ok(work)
    }
}

/// An entry of the node step's open list: node, split number, wedge.
type Open = (NodeId, f64, Option<Wedge>);

/// One run of the generator: what every pass shares.
struct Run<'a> {
    params: &'a PlanarParams,
    rng: Rng,
    ring: &'a [DVec2],
    obstacles: &'a Obstacles,
    /// The number of the current pass.
    pass: u32,
}

impl Run<'_> {
    /// Level 0: the ring filled from its own nodes (and the seeds), or the
    /// seeds grown by their split numbers.
    fn first_level(&mut self, work: &mut Work) -> Result<(), StreetsError> {
        let ring = self.ring;
        let inside: Vec<NodeId> = (0..work.graph.node_count() as NodeId)
            .filter(|&n| {
                let p = work.graph.pos(n);
                !work.meta[n as usize].blocked
                    && (ring.is_empty()
                        || polygon_contains(ring, p)
                        || work
                            .graph
                            .incident(n)
                            .iter()
                            .any(|&e| work::role(&work.graph, e) == EdgeRole::Ring))
            })
            .collect();
        let members = self.members(work, &inside);
        let (area, open): (_, Vec<Open>) = if ring.is_empty() {
            let seeds = (members.iter()).map(|&n| (n, work.meta[n as usize].split, None));
            (Area::Plane, seeds.collect())
        } else {
            let all = members.iter().map(|&n| (n, f64::INFINITY, None));
            (Area::Inside(ring), all.collect())
        };
        self.pass(work, 0, area, members, open)
    }

    /// A later level: every bounded face inside the ring (not an obstacle's
    /// inside) filled with its own nodes as the loop; without a boundary,
    /// the outer face grown from `outer_split`.
    fn face_level(&mut self, work: &mut Work, l: u8) -> Result<(), StreetsError> {
        let faces = work.graph.faces();
        let mut outer = Vec::new();
        let mut outer_nodes = Vec::new();
        for f in &faces {
            if f.is_outer() {
                outer.push(work.graph.face_polygon(f));
                outer_nodes.extend_from_slice(&f.nodes);
                continue;
            }
            let g = &work.graph;
            let all_obstacle = f
                .edges
                .iter()
                .all(|&(e, _)| work::role(g, e) == EdgeRole::Obstacle);
            if all_obstacle || !self.in_ring(g.pos(f.nodes[0]), g.pos(f.nodes[1 % f.nodes.len()])) {
                continue;
            }
            let poly = g.face_polygon(f);
            // Each visit of the walk grows into the face from its side.
            let len = poly.len();
            let open = (0..len)
                .filter(|&i| !work.meta[f.nodes[i] as usize].blocked)
                .map(|i| {
                    let wedge = Wedge {
                        from: poly[(i + 1) % len] - poly[i],
                        to: poly[(i + len - 1) % len] - poly[i],
                    };
                    (f.nodes[i], f64::INFINITY, Some(wedge))
                })
                .collect();
            let members = self.members(work, &f.nodes);
            self.pass(work, l, Area::Inside(&poly), members, open)?;
        }
        if self.ring.is_empty() && self.params.outer_split > 0.0 {
            let members = self.members(work, &outer_nodes);
            let split = self.params.outer_split;
            let open = members.iter().map(|&n| (n, split, None)).collect();
            self.pass(work, l, Area::Outside(&outer), members, open)?;
        }
        Ok(())
    }

    /// Whether the side left of the directed edge `a → b` lies inside the
    /// ring (always, without one).
    fn in_ring(&self, a: DVec2, b: DVec2) -> bool {
        let d = b - a;
        self.ring.is_empty() || polygon_contains(self.ring, a.lerp(b, 0.5) + d.perp() * 1e-7)
    }

    /// The nodes of `nodes` streets may use, once each, in order; starts a
    /// new pass and marks them as its own.
    fn members(&mut self, work: &mut Work, nodes: &[NodeId]) -> Vec<NodeId> {
        self.pass += 1;
        let mut out = Vec::new();
        for &n in nodes {
            let m = &mut work.meta[n as usize];
            if !m.blocked && m.pass != self.pass {
                m.pass = self.pass;
                out.push(n);
            }
        }
        out
    }

    /// One pass: nodes grown from `open` inside `area` (minus the
    /// obstacles), then streets among `members` (marked by
    /// [`members`](Self::members)) and the new nodes.
    fn pass(
        &mut self,
        work: &mut Work,
        l: u8,
        area: Area,
        members: Vec<NodeId>,
        open: Vec<Open>,
    ) -> Result<(), StreetsError> {
        let lv = &self.params.levels[l as usize];
        let region = Region::new(area, self.obstacles);
        let made = nodes::grow_nodes(work, &mut self.rng, self.params, (l, lv), &region, open)?;
        for &m in &made {
            work.meta[m as usize].pass = self.pass;
        }
        let gates: Vec<NodeId> = (members.iter().copied())
            .filter(|&n| work.meta[n as usize].gate && !work.has_street(n))
            .collect();
        let nodes = members.into_iter().chain(made).collect();
        Streeter {
            work,
            rng: &mut self.rng,
            params: self.params,
            region,
            pass: self.pass,
            radius: lv.connection_radius,
            label: EdgeRole::Street(l).label(),
            cos_min: self.params.min_angle_deg.to_radians().cos(),
            scratch: Vec::new(),
        }
        .run(&gates, nodes);
        Ok(())
    }
}
