//! [`LaidRoads`]: what is laid on the ground around the focus, and the
//! fingerprints that say what changed where when a new region is laid.

use crate::city::{CityGround, CityLayout};
use crate::network::{Road, RoadLayer};
use crate::plugin::stream::structures::StructureCells;
use crate::terrain::{LaidGround, StreamLayer, Terrain};
use crate::world::Structure;
use bevy::math::DVec2;
use bevy::platform::hash::FixedHasher;
use bevy::prelude::*;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::Arc;

/// What is laid on the ground around the focus: the ground everything reads
/// (the terrain with the roads and streams on it), the indexed roads and
/// streams, and the square they cover.
#[derive(Resource, Clone)]
pub struct LaidRoads {
    /// The terrain with the roads and streams laid on it.
    pub ground: Arc<LaidGround>,
    /// The roads, indexed.
    pub roads: Arc<RoadLayer>,
    /// The streams, indexed.
    pub streams: Arc<StreamLayer>,
    /// The cities touching the square, laid as town ground.
    pub cities: Arc<CityGround>,
    /// Their streets, lots and buildings (the streets are in `roads`).
    pub layouts: Arc<Vec<Arc<CityLayout>>>,
    /// The square whose roads (all roads with a point in it) and streams are
    /// laid; objects are placed only inside it. `None` until the first network.
    pub region: Option<(DVec2, DVec2)>,
    /// The region's bridges, tunnels and retaining walls.
    pub structures: Arc<Vec<Structure>>,
    /// The structures by mesh cell, keyed.
    pub(crate) structure_cells: Arc<StructureCells>,
    /// Bumped whenever something is laid or taken away.
    pub version: u64,
    /// Every road, then every stream, then every city, summed up for
    /// [`Self::fingerprint`].
    pub(super) lines: Arc<Vec<LineSum>>,
    /// For each road, a hash of each segment (its ends and their heights),
    /// for [`Self::ground_print`].
    pub(super) segments: Arc<Vec<Vec<u64>>>,
    /// For each road, the stretches (arc-length intervals, ascending) that
    /// are bridges or tunnels: drawn by structures, not ribbons.
    pub(super) spans: Arc<Vec<Vec<(f64, f64)>>>,
    /// For each road, its bridges' stretches.
    pub(super) bridges: Arc<Vec<Vec<(f64, f64)>>>,
    /// The terrain the roads were laid for (the state's, by pointer).
    pub(super) terrain: Arc<Terrain>,
    /// A hash of the earthwork parameters (0 with a custom generator).
    pub(super) salt: u64,
    /// How far from a road or a city its earthworks may reach, metres.
    pub(super) reach: f64,
}

impl LaidRoads {
    /// Nothing laid on `terrain`.
    pub fn bare(terrain: Arc<Terrain>) -> Self {
        Self {
            ground: Arc::new(LaidGround::new(terrain.clone())),
            roads: Arc::default(),
            streams: Arc::default(),
            cities: Arc::default(),
            layouts: Arc::default(),
            region: None,
            structures: Arc::default(),
            structure_cells: Arc::default(),
            version: 0,
            lines: Arc::default(),
            segments: Arc::default(),
            spans: Arc::default(),
            bridges: Arc::default(),
            terrain,
            salt: 0,
            reach: 0.0,
        }
    }

    /// The height of a bridge deck's road surface at `p`, where `p` lies on
    /// a bridge (within its road's half width of the centre line).
    pub fn deck_at(&self, p: DVec2) -> Option<f64> {
        self.on_stretch(p, &self.bridges)
    }

    /// The height of the road surface at `p` on a bridge or in a tunnel
    /// (within its road's half width of the centre line): what stands
    /// there instead of the built ground.
    pub fn span_at(&self, p: DVec2) -> Option<f64> {
        self.on_stretch(p, &self.spans)
    }

    /// The nearest road's surface at `p` where `p` is on its carriageway
    /// and on one of its `stretches`.
    fn on_stretch(&self, p: DVec2, stretches: &[Vec<(f64, f64)>]) -> Option<f64> {
        let (i, _, d) = self.roads.nearest(p, 50.0)?;
        let spans = stretches.get(i).filter(|s| !s.is_empty())?;
        let road = &self.roads.network().roads[i];
        if d > road.width / 2.0 + 0.5 {
            return None;
        }
        let (s, z) = crate::plugin::stream::structures::profile_at(road, p)?;
        spans.iter().any(|&(a, b)| a <= s && s <= b).then_some(z)
    }

    /// How far the earthworks of a road or a town may reach, metres.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// [`Self::spans`] of every road.
    pub(crate) fn all_spans(&self) -> Arc<Vec<Vec<(f64, f64)>>> {
        self.spans.clone()
    }

    /// The bridge and tunnel stretches of road `i` (arc-length intervals
    /// along its points, ascending; empty for most roads).
    pub fn spans(&self, i: usize) -> &[(f64, f64)] {
        self.spans.get(i).map_or(&[], Vec::as_slice)
    }

    /// A hash of what shapes the built ground over `[min, max]`: 0 where
    /// nothing built may shape it (the natural terrain), else the roads
    /// (with their profiles) and towns within the earthworks' reach and the
    /// earthwork parameters. Equal prints, equal ground: a chunk mesh built
    /// on it still stands.
    pub fn ground_print(&self, min: DVec2, max: DVec2) -> u64 {
        let shaped = (self.ground.relief()).is_some_and(|r| r.may_shape(min, max));
        if !shaped {
            return 0;
        }
        let (lo, hi) = (min - self.reach, max + self.reach);
        let net = self.roads.network();
        let nr = net.roads.len();
        let ns = self.streams.streams().len();
        let (lines, segments) = (&self.lines, &self.segments);
        let small = (hi - lo).max_element() <= SMALL_BOX;
        let candidates: Vec<usize> = if small {
            self.roads.roads_in(lo, hi)
        } else {
            (0..nr.min(lines.len()))
                .filter(|&i| lines[i].meets(lo, hi, LINE_PAD))
                .collect()
        };
        // For a small box only the pieces of a road near it count (a long
        // road clipped elsewhere by another region shapes this ground all
        // the same); a large box takes each road's summed hash, which keeps
        // the frame's cost bounded by the road count.
        let mut near: Vec<u64> = candidates
            .into_iter()
            .map(|i| {
                if !small {
                    return lines[i].hash;
                }
                let r = &net.roads[i];
                let mut h = FixedHasher.build_hasher();
                (r.width.to_bits(), r.class as u8).hash(&mut h);
                let hashes = segments.get(i).map_or(&[][..], Vec::as_slice);
                for (w, s) in r.points.windows(2).zip(hashes) {
                    let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
                    if a.cmple(hi + LINE_PAD).all() && b.cmpge(lo - LINE_PAD).all() {
                        h.write_u64(*s);
                    }
                }
                h.finish()
            })
            .collect();
        // Towns: a few, each tested by its box.
        near.extend(
            (lines.iter().skip(nr + ns))
                .filter(|l| l.meets(lo, hi, LINE_PAD))
                .map(|l| l.hash),
        );
        near.sort_unstable();
        FixedHasher.hash_one((self.salt, near)) | 1
    }

    /// A hash of every road and stream near `[min, max]` (and of whether the
    /// box lies in the laid region): equal fingerprints mean the same roads
    /// there, so whatever was built over the box still stands.
    pub fn fingerprint(&self, min: DVec2, max: DVec2) -> u64 {
        let mut h = FixedHasher.build_hasher();
        (self.covers(min, max), self.salt).hash(&mut h);
        let (nr, lines) = (self.roads.network().roads.len(), &self.lines);
        let mut near: Vec<u64> = if (max - min).max_element() <= SMALL_BOX {
            // Small boxes ask the index: a few cells.
            (self.roads.roads_in(min, max).into_iter())
                .chain(
                    self.streams
                        .streams_near(min, max)
                        .into_iter()
                        .map(|i| nr + i),
                )
                .map(|i| lines[i].hash)
                .collect()
        } else {
            // Large ones test every line's box: bounded by the line count,
            // not by how many cells the box holds.
            (lines.iter())
                .filter(|l| l.meets(min, max, LINE_PAD))
                .map(|l| l.hash)
                .collect()
        };
        near.sort_unstable();
        near.hash(&mut h);
        h.finish()
    }

    /// Whether the whole box lies in the laid region.
    pub fn covers(&self, min: DVec2, max: DVec2) -> bool {
        self.region
            .is_some_and(|(a, b)| min.cmpge(a).all() && max.cmple(b).all())
    }
}

/// Boxes up to this side are fingerprinted through the road index, metres.
const SMALL_BOX: f64 = 300.0;
/// How far a line's box is grown for the large-box test (more than any
/// ribbon's half width), metres.
const LINE_PAD: f64 = 60.0;

/// A road or stream in brief: a hash of its geometry and its bounding box.
#[derive(Clone, Copy, Debug)]
pub(super) struct LineSum {
    hash: u64,
    lo: DVec2,
    hi: DVec2,
}

impl LineSum {
    /// Whether the line's box, grown by `pad`, meets `[min, max]`.
    fn meets(&self, min: DVec2, max: DVec2, pad: f64) -> bool {
        self.lo.cmple(max + pad).all() && self.hi.cmpge(min - pad).all()
    }

    pub(super) fn new(points: &[DVec2], extra: u64) -> Self {
        let mut h = FixedHasher.build_hasher();
        extra.hash(&mut h);
        let (mut lo, mut hi) = (DVec2::INFINITY, DVec2::NEG_INFINITY);
        for p in points {
            (p.x.to_bits(), p.y.to_bits()).hash(&mut h);
            (lo, hi) = (lo.min(*p), hi.max(*p));
        }
        Self {
            hash: h.finish(),
            lo,
            hi,
        }
    }
}

/// A hash of each of `road`'s segments: its ends and their heights (see
/// [`LaidRoads::ground_print`]).
pub(super) fn segment_hashes(road: &Road) -> Vec<u64> {
    let z = |k: usize| road.z.get(k).map_or(0, |z| z.to_bits());
    (road.points.windows(2).enumerate())
        .map(|(k, w)| {
            let (p, q) = (w[0], w[1]);
            FixedHasher.hash_one((
                p.x.to_bits(),
                p.y.to_bits(),
                z(k),
                q.x.to_bits(),
                q.y.to_bits(),
                z(k + 1),
            ))
        })
        .collect()
}
