//! The planar road graph every generator produces and the renderer draws.

use crate::geom::{Contact, Meeting, closest_on_segment, for_each_meeting, segment_meets_rect};
use crate::num::FastHash;
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write;
use std::ops::ControlFlow;

/// What kind of road, which sets its default width and look.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum RoadClass {
    /// A main road between towns.
    Highway,
    /// A country road.
    Road,
    /// A town street.
    Street,
    /// An unpaved track.
    Track,
    /// A footway: where a street is too steep to drive, steps.
    Path,
}

impl RoadClass {
    /// Default width in metres.
    pub fn default_width(self) -> f64 {
        match self {
            Self::Highway => 10.0,
            Self::Road => 5.0,
            Self::Street => 6.0,
            Self::Track => 3.0,
            Self::Path => 3.0,
        }
    }

    /// Typical travel speed on the flat, m/s (what [`RoadNetwork::route`]
    /// times by): highway 25 (90 km/h), road 18, street 12, track 10, path
    /// 1.4 (walking pace).
    pub fn speed(self) -> f64 {
        match self {
            Self::Highway => 25.0,
            Self::Road => 18.0,
            Self::Street => 12.0,
            Self::Track => 10.0,
            Self::Path => 1.4,
        }
    }

    /// Lower-case name (GeoJSON `class` property).
    pub fn name(self) -> &'static str {
        match self {
            Self::Highway => "highway",
            Self::Road => "road",
            Self::Street => "street",
            Self::Track => "track",
            Self::Path => "path",
        }
    }
}

/// One road: a polyline of world points (f64 metres, x east, y north).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Road {
    /// The centre line, at least two points.
    pub points: Vec<DVec2>,
    /// What kind of road.
    pub class: RoadClass,
    /// Width in metres.
    pub width: f64,
    /// The vertical profile: the carriageway's height at each point (metres,
    /// linear between points), or empty where the road lies on the natural
    /// ground (a raw generator's output; the world fills it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub z: Vec<f64>,
}

impl Road {
    /// A road on the natural ground (no profile).
    pub fn new(points: Vec<DVec2>, class: RoadClass, width: f64) -> Self {
        Self {
            points,
            class,
            width,
            z: Vec::new(),
        }
    }

    /// Whether the road has a vertical profile (one height per point).
    pub fn has_profile(&self) -> bool {
        !self.z.is_empty() && self.z.len() == self.points.len()
    }

    /// Whether the road has a point in the rectangle `[min, max)`.
    pub fn meets_rect(&self, min: DVec2, max: DVec2) -> bool {
        self.points
            .windows(2)
            .any(|w| segment_meets_rect(w[0], w[1], min, max))
    }

    /// Length along the points, metres.
    pub fn length(&self) -> f64 {
        self.points.windows(2).map(|w| w[0].distance(w[1])).sum()
    }
}

/// A point where two or more roads meet or one ends on another. Its
/// position is a vertex of every road through it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Junction {
    /// Where.
    pub pos: DVec2,
    /// Indices into [`RoadNetwork::roads`], ascending.
    pub roads: Vec<usize>,
}

/// A planar road graph: roads, and junctions wherever roads touch or cross.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RoadNetwork {
    /// The roads.
    pub roads: Vec<Road>,
    /// The junctions: every point that is a vertex of two or more roads.
    pub junctions: Vec<Junction>,
}

/// Where a network is not planar (see [`RoadNetwork::check_planar`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("roads {} and {} are not planar at {at}: {kind}", roads.0, roads.1)]
pub struct PlanarityError {
    /// The two roads (indices; the same one twice for a fault of one road).
    pub roads: (usize, usize),
    /// Where.
    pub at: DVec2,
    /// What is wrong there.
    pub kind: PlanarityFault,
}

/// What [`RoadNetwork::check_planar`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanarityFault {
    /// Two segments cross or touch away from a vertex of both.
    #[error("they cross or touch away from a shared vertex")]
    Crossing,
    /// Two segments run along the same stretch.
    #[error("they overlap along a stretch")]
    Overlap,
    /// Two distinct vertices lie within the snap tolerance
    /// ([`crate::geom::snap_tolerance`]): too close to tell apart (only
    /// [`RoadNetwork::check_planar_strict`] looks).
    #[error("two distinct vertices are closer than the snap tolerance")]
    CloseVertices,
    /// A vertex is NaN or infinite.
    #[error("a vertex is not finite")]
    NonFinite,
}

/// Junctions in their canonical order: by their roads, then position.
/// Positions are distinct, so an unstable sort is deterministic.
fn sort_junctions(junctions: &mut [Junction]) {
    junctions.sort_unstable_by(|a, b| {
        a.roads
            .cmp(&b.roads)
            .then(a.pos.x.total_cmp(&b.pos.x))
            .then(a.pos.y.total_cmp(&b.pos.y))
    });
}

impl RoadNetwork {
    /// A network from roads, with the junctions found from shared vertices.
    pub fn from_roads(roads: Vec<Road>) -> Self {
        // Vertices keyed by their exact bits: a junction is a shared vertex.
        let mut at: Vec<((u64, u64), usize)> = roads
            .iter()
            .enumerate()
            .flat_map(|(i, r)| r.points.iter().map(move |&p| (point_key(p), i)))
            .collect();
        at.sort_unstable();
        at.dedup();
        let mut junctions: Vec<Junction> = at
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|g| g.len() >= 2)
            .map(|g| Junction {
                pos: DVec2::new(f64::from_bits(g[0].0.0), f64::from_bits(g[0].0.1)),
                roads: g.iter().map(|e| e.1).collect(),
            })
            .collect();
        sort_junctions(&mut junctions);
        Self { roads, junctions }
    }

    /// [`from_roads`](Self::from_roads) for roads along the nodes of a
    /// graph: `nodes[k]` is the node (position `pos[nodes[k]]`) of the
    /// `k`-th vertex of all roads in order. The same junctions, found per
    /// node (nodes at one position count as one) instead of by sorting
    /// every vertex; inconsistent input falls back to `from_roads`.
    pub(crate) fn from_node_roads(roads: Vec<Road>, pos: &[DVec2], nodes: &[u32]) -> Self {
        let total: usize = roads.iter().map(|r| r.points.len()).sum();
        if total != nodes.len() || nodes.iter().any(|&n| n as usize >= pos.len()) {
            return Self::from_roads(roads);
        }
        // One id per distinct position: its first node.
        let mut first: HashMap<(u64, u64), u32, FastHash> =
            HashMap::with_capacity_and_hasher(pos.len(), FastHash::default());
        let canon: Vec<u32> = (pos.iter().enumerate())
            .map(|(i, &p)| *first.entry(point_key(p)).or_insert(i as u32))
            .collect();
        // Calls `f(position id, road)` on every vertex. A road's vertices
        // are visited together, so "last road seen here" dedups.
        let each = |f: &mut dyn FnMut(usize, usize)| {
            let mut k = 0;
            for (r, road) in roads.iter().enumerate() {
                for &n in &nodes[k..k + road.points.len()] {
                    f(canon[n as usize] as usize, r);
                }
                k += road.points.len();
            }
        };
        let (mut last, mut count) = (vec![usize::MAX; pos.len()], vec![0u32; pos.len()]);
        each(&mut |c, r| {
            if last[c] != r {
                last[c] = r;
                count[c] += 1;
            }
        });
        let mut slot = vec![u32::MAX; pos.len()];
        let mut junctions = Vec::new();
        for c in (0..pos.len()).filter(|&c| count[c] >= 2) {
            slot[c] = junctions.len() as u32;
            junctions.push(Junction {
                pos: pos[c] + DVec2::ZERO, // −0 becomes +0, as in `point_key`
                roads: Vec::with_capacity(count[c] as usize),
            });
        }
        last.fill(usize::MAX);
        each(&mut |c, r| {
            if let Some(j) = junctions.get_mut(slot[c] as usize)
                && last[c] != r
            {
                last[c] = r;
                j.roads.push(r);
            }
        });
        sort_junctions(&mut junctions);
        Self { roads, junctions }
    }

    /// The nearest point on any road to `p`: `(road index, point, distance)`.
    pub fn nearest_road(&self, p: DVec2) -> Option<(usize, DVec2, f64)> {
        let mut best: Option<(usize, DVec2, f64)> = None;
        for (i, r) in self.roads.iter().enumerate() {
            for w in r.points.windows(2) {
                let (q, _) = closest_on_segment(p, w[0], w[1]);
                let d = q.distance(p);
                if best.is_none_or(|b| d < b.2) {
                    best = Some((i, q, d));
                }
            }
        }
        best
    }

    /// Checks planarity: wherever two segments (of different roads, or
    /// non-adjacent segments of one road) touch or cross, the point must be a
    /// vertex of both; segments must never overlap along a stretch (two roads
    /// on one line, or a road turning back on itself); every vertex must be
    /// finite. Contacts are decided with exact predicates; the work and
    /// memory are near-linear in the vertices (duplicated roads fail at the
    /// first pair they share).
    pub fn check_planar(&self) -> Result<(), PlanarityError> {
        for (i, r) in self.roads.iter().enumerate() {
            if let Some(&at) = r.points.iter().find(|p| !p.is_finite()) {
                let kind = PlanarityFault::NonFinite;
                return Err(PlanarityError {
                    roads: (i, i),
                    at,
                    kind,
                });
            }
        }
        let lines: Vec<&[DVec2]> = self.roads.iter().map(|r| r.points.as_slice()).collect();
        let found = for_each_meeting(
            &lines,
            0.0,
            false,
            None,
            |_, _| false,
            |(i, _), (j, _), e, m| {
                let (at, kind) = match m {
                    Meeting::Touch(Contact::Overlap { t: (lo, _) }) => {
                        (e[0].lerp(e[1], lo), PlanarityFault::Overlap)
                    }
                    // Touching at a vertex of both is a junction (or the joint
                    // of two consecutive segments).
                    Meeting::Touch(Contact::Point { t, u })
                        if (t == 0.0 || t == 1.0) && (u == 0.0 || u == 1.0) =>
                    {
                        return ControlFlow::Continue(());
                    }
                    Meeting::Touch(Contact::Point { t, .. }) => {
                        (e[0].lerp(e[1], t), PlanarityFault::Crossing)
                    }
                    Meeting::Near(_) => return ControlFlow::Continue(()),
                };
                ControlFlow::Break(PlanarityError {
                    roads: (i, j),
                    at,
                    kind,
                })
            },
        );
        match found {
            ControlFlow::Break(e) => Err(e),
            ControlFlow::Continue(()) => Ok(()),
        }
    }

    /// [`check_planar`](Self::check_planar), and no two distinct vertices
    /// closer than the snap tolerance ([`crate::geom::snap_tolerance`]: 1 μm
    /// for any sensible world), which rounding cannot tell apart: what
    /// [`planarize`](super::planarize) makes. (Generators' raw output may
    /// hold such pairs, e.g. a contact point computed twice.)
    pub fn check_planar_strict(&self) -> Result<(), PlanarityError> {
        self.check_planar()?;
        let (points, road): (Vec<DVec2>, Vec<usize>) = (self.roads.iter().enumerate())
            .flat_map(|(i, r)| r.points.iter().map(move |&p| (p, i)))
            .unzip();
        let group = crate::geom::snap_groups(&points);
        for (k, &g) in group.iter().enumerate() {
            let rep = points[g as usize];
            if point_key(rep) != point_key(points[k]) {
                return Err(PlanarityError {
                    roads: (road[g as usize].min(road[k]), road[g as usize].max(road[k])),
                    at: rep,
                    kind: PlanarityFault::CloseVertices,
                });
            }
        }
        Ok(())
    }

    /// Indices of the roads with a point in `[min, max)` (ascending).
    pub fn roads_meeting(&self, min: DVec2, max: DVec2) -> Vec<usize> {
        (0..self.roads.len())
            .filter(|&i| self.roads[i].meets_rect(min, max))
            .collect()
    }

    /// The network as a GeoJSON `FeatureCollection` (roads as `LineString`s
    /// with `class` and `width`, their profile's height as each position's
    /// third number where they have one, junctions as `Point`s with
    /// `degree`), in the world's metres, so it can be checked in any GIS
    /// tool.
    pub fn to_geojson(&self) -> String {
        let mut s = String::from("{\"type\":\"FeatureCollection\",\"features\":[");
        let mut first = true;
        let mut sep = |s: &mut String| {
            if !std::mem::take(&mut first) {
                s.push(',');
            }
        };
        for (i, r) in self.roads.iter().enumerate() {
            sep(&mut s);
            let _ = write!(
                s,
                "{{\"type\":\"Feature\",\"properties\":{{\"id\":{i},\"class\":\"{}\",\"width\":{}}},",
                r.class.name(),
                Json(r.width)
            );
            s.push_str("\"geometry\":{\"type\":\"LineString\",\"coordinates\":[");
            let z = r.has_profile().then_some(r.z.as_slice());
            for (k, p) in r.points.iter().enumerate() {
                let _ = write!(
                    s,
                    "{}[{},{}",
                    if k > 0 { "," } else { "" },
                    Json(p.x),
                    Json(p.y)
                );
                if let Some(z) = z {
                    let _ = write!(s, ",{}", Json(z[k]));
                }
                s.push(']');
            }
            s.push_str("]}}");
        }
        for j in &self.junctions {
            sep(&mut s);
            let _ = write!(
                s,
                "{{\"type\":\"Feature\",\"properties\":{{\"junction\":true,\"degree\":{}}},\"geometry\":{{\"type\":\"Point\",\"coordinates\":[{},{}]}}}}",
                j.roads.len(),
                Json(j.pos.x),
                Json(j.pos.y)
            );
        }
        s.push_str("]}");
        s
    }
}

/// A vertex's identity: its exact bits, with −0 taken as +0.
pub(crate) fn point_key(p: DVec2) -> (u64, u64) {
    ((p.x + 0.0).to_bits(), (p.y + 0.0).to_bits())
}

/// A number as JSON: non-finite values (which JSON cannot hold) as `null`.
struct Json(f64);

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_finite() {
            write!(f, "{}", self.0)
        } else {
            f.write_str("null")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn road(points: &[(f64, f64)]) -> Road {
        Road {
            z: Vec::new(),
            points: points.iter().map(|&(x, y)| DVec2::new(x, y)).collect(),
            class: RoadClass::Road,
            width: 5.0,
        }
    }

    #[test]
    fn junctions_by_node_match_junctions_by_vertex() {
        // Nodes 0..=5; node 5 sits where node 1 does (−0 against +0); road
        // 2 is a closed loop.
        let pos = [
            (0., 0.),
            (10., 0.),
            (10., 10.),
            (0., 10.),
            (20., 0.),
            (10., -0.),
        ]
        .map(|(x, y)| DVec2::new(x, y));
        let chains: [&[u32]; 4] = [&[0, 1, 4], &[5, 2], &[2, 3, 0, 2], &[4, 2]];
        let roads: Vec<Road> = (chains.iter())
            .map(|c| Road {
                z: Vec::new(),
                points: c.iter().map(|&n| pos[n as usize]).collect(),
                class: RoadClass::Street,
                width: 5.0,
            })
            .collect();
        let seq: Vec<u32> = chains.concat();
        let by_node = RoadNetwork::from_node_roads(roads.clone(), &pos, &seq);
        assert_eq!(by_node, RoadNetwork::from_roads(roads.clone()));
        assert_eq!(by_node.junctions.len(), 4);
        // Inconsistent node lists fall back.
        assert_eq!(
            RoadNetwork::from_node_roads(roads.clone(), &pos, &seq[1..]),
            by_node
        );
    }

    #[test]
    fn junctions_planarity_and_geojson() {
        let net = RoadNetwork::from_roads(vec![
            road(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)]),
            road(&[(10.0, 10.0), (10.0, 0.0)]),
        ]);
        assert_eq!(
            net.junctions,
            vec![Junction {
                pos: DVec2::new(10.0, 0.0),
                roads: vec![0, 1]
            }]
        );
        net.check_planar().unwrap();
        let crossing = RoadNetwork::from_roads(vec![
            road(&[(0.0, 0.0), (20.0, 0.0)]),
            road(&[(10.0, 10.0), (10.0, -10.0)]),
        ]);
        assert_eq!(
            crossing.check_planar().unwrap_err().at,
            DVec2::new(10.0, 0.0)
        );
        // Roads overlapping along a stretch, or one turning back on itself,
        // are not planar even where the stretch ends at shared vertices.
        let overlap = RoadNetwork::from_roads(vec![
            road(&[(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)]),
            road(&[(10.0, 0.0), (20.0, 0.0), (30.0, 5.0)]),
        ]);
        assert!(overlap.check_planar().is_err());
        let retrace = RoadNetwork::from_roads(vec![road(&[(0.0, 0.0), (10.0, 0.0), (4.0, 0.0)])]);
        assert!(retrace.check_planar().is_err());
        // Two paths leaving a start point in opposite directions (found in
        // contour roads): collinear segments 7 m apart, where the plain
        // intersection formula divides a zero by a rounding error. Not a
        // meeting.
        let apart = RoadNetwork::from_roads(vec![
            road(&[
                (3452.0, -7.0),
                (3453.3882411994805, -8.439717462582465),
                (3454.776482398961, -9.87943492516493),
            ]),
            road(&[
                (3452.0, -7.0),
                (3446.447035202078, -1.2411301496701415),
                (3445.0587940025976, 0.198587312912323),
            ]),
        ]);
        apart.check_planar().unwrap();
        // −0 and +0 are one junction.
        let signed = RoadNetwork::from_roads(vec![
            road(&[(-0.0, 0.0), (10.0, 0.0)]),
            road(&[(0.0, -0.0), (0.0, 10.0)]),
        ]);
        assert_eq!(signed.junctions.len(), 1);
        signed.check_planar().unwrap();
        let g = net.to_geojson();
        assert!(g.starts_with("{\"type\":\"FeatureCollection\""));
        assert!(g.contains("\"coordinates\":[[0,0],[10,0],[20,0]]"));
        assert!(g.contains("\"degree\":2"));
        assert_eq!(g.matches('{').count(), g.matches('}').count());
        let (i, p, d) = net.nearest_road(DVec2::new(14.0, 3.0)).unwrap();
        assert_eq!((i, p, d), (0, DVec2::new(14.0, 0.0), 3.0));
        // Non-finite numbers are written as JSON's null, never NaN.
        let bad = RoadNetwork::from_roads(vec![road(&[(f64::NAN, 0.0), (1.0, f64::INFINITY)])]);
        let g = bad.to_geojson();
        assert!(!g.contains("NaN") && !g.contains("inf"), "{g}");
        assert!(g.contains("[null,0]"), "{g}");
        // A profile's heights are each position's third number.
        let mut up = road(&[(0.0, 0.0), (10.0, 0.0)]);
        up.z = vec![100.0, 101.5];
        let g = RoadNetwork::from_roads(vec![up]).to_geojson();
        assert!(
            g.contains("\"coordinates\":[[0,0,100],[10,0,101.5]]"),
            "{g}"
        );
    }
}
