//! Blocks into lots and buildings (plain Rust, no Bevy).
//!
//! [`subdivide`] takes a street generator's [`Streets`] and, block by block:
//! - cuts every street's ribbon (half its width either side of the centre
//!   line, for every road of the network near the block, dead ends
//!   included) and every obstacle out of the block, which may leave several
//!   pieces or none (`inset`: a block with no obstacle has its dead ends
//!   taken out of its ring, is cut into convex parts at its dents and each
//!   part cut back by half-planes and clear of each dead end's rectangle,
//!   then kept clear of every ribbon; other blocks go through `i_overlay`);
//! - cuts each piece into lots by recursive cuts across its oriented
//!   bounding box, keeping a cut only if every part keeps `min_area` and
//!   `min_frontage` (`parcel`);
//! - gives each lot a building set back from the streets and its other
//!   edges, as tall as its distance to the city centre allows, with seeded
//!   variety (`building`).
//!
//! Everything is cut by lines through `shape::Shape::cut`, which keeps track
//! of which edges run along a street. A block's lots depend only on that
//! block, the roads and obstacles near it and the parameters, never on the
//! order blocks come in.
//!
//! ```
//! use bevy_relief::city::lots::{LotParams, subdivide};
//! use bevy_relief::city::{EdgeRole, Streets};
//! use bevy_relief::geom::PlanarGraph;
//! use glam::DVec2;
//! // One 100 m square block inside a ring road.
//! let mut g = PlanarGraph::new(100.0);
//! let ring = [(0., 0.), (100., 0.), (100., 100.), (0., 100.)].map(|(x, y)| g.add_node(DVec2::new(x, y)));
//! for i in 0..4 {
//!     g.add_edge(ring[i], ring[(i + 1) % 4], EdgeRole::Ring.label());
//! }
//! let streets = Streets::from_graph(&g, vec![], EdgeRole::default_style);
//! let lots = subdivide(&streets, &LotParams::default());
//! assert!(lots.len() >= 4);
//! assert!(lots.iter().all(|l| l.building.as_ref().is_some_and(|b| b.height > 0.0)));
//! ```

mod building;
mod hull;
mod inset;
mod parcel;
mod ribbons;
mod shape;
mod simplify;
#[cfg(test)]
mod tests;

pub use building::MAX_FOOTPRINT_VERTICES;
pub use simplify::{SIMPLIFY_ABOVE, TOLERANCE as SIMPLIFY_TOLERANCE};

use super::Streets;
use super::polygon::signed_area;
use crate::terrain::ParamError;
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use ribbons::Ribbons;
use serde::{Deserialize, Serialize};

/// Most lots [`LotParams::max_lots`] may ask for.
pub const MAX_LOTS: u32 = 10_000_000;
/// Blocks with more vertices than this are skipped.
pub const MAX_BLOCK_VERTICES: usize = 100_000;
/// Blocks with more vertices than this once simplified (see
/// [`SIMPLIFY_ABOVE`]) are skipped: the cuts cost about the square of a
/// block's vertex count, and this many take well under a second.
pub const MAX_SIMPLIFIED_VERTICES: usize = 2048;

/// How blocks become lots and buildings. `Default` suits a European town.
///
/// Deserialising fills missing fields from the defaults and rejects unknown
/// ones. Lengths are metres, areas square metres.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct LotParams {
    /// Salt for the cuts' placement and the heights' variety.
    pub seed: u64,
    /// No cut leaves a lot smaller than this.
    pub min_area: f64,
    /// A part larger than a threshold drawn in `max_area · [0.5, 1]` is cut.
    pub max_area: f64,
    /// No cut leaves a lot with less street frontage than this.
    pub min_frontage: f64,
    /// How far a cut may move off the middle of the side it crosses, as a
    /// fraction of that side (0 ..= 0.4).
    pub split_jitter: f64,
    /// A building keeps this far from its lot's street edges (so at least
    /// half the street's width plus this from the centre line).
    pub setback: f64,
    /// A building keeps this far from its lot's other edges.
    pub side_gap: f64,
    /// A building reaches at most this far back from its setback line.
    pub building_depth: f64,
    /// Lots whose footprint would be smaller than this get no building.
    pub min_building_area: f64,
    /// Where buildings are tallest.
    pub centre: DVec2,
    /// Heights fall from `max_height` at the centre to `min_height` at
    /// this distance and beyond.
    pub radius: f64,
    /// Lowest building.
    pub min_height: f64,
    /// Tallest building.
    pub max_height: f64,
    /// Each height varies by up to this fraction either way (then clamped
    /// to the range).
    pub height_jitter: f64,
    /// Most lots in all (a hard cap).
    pub max_lots: u32,
}

impl Default for LotParams {
    fn default() -> Self {
        Self {
            seed: 0,
            min_area: 300.0,
            max_area: 1500.0,
            min_frontage: 8.0,
            split_jitter: 0.15,
            setback: 3.0,
            side_gap: 0.5,
            building_depth: 16.0,
            min_building_area: 30.0,
            centre: DVec2::ZERO,
            radius: 800.0,
            min_height: 6.0,
            max_height: 24.0,
            height_jitter: 0.25,
            max_lots: 200_000,
        }
    }
}

impl LotParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        check("min_area", self.min_area, 1.0, 1.0e6)?;
        check("max_area", self.max_area, self.min_area, 1.0e8)?;
        check("min_frontage", self.min_frontage, 0.0, 1.0e4)?;
        check("split_jitter", self.split_jitter, 0.0, 0.4)?;
        check("setback", self.setback, 0.0, 1.0e3)?;
        check("side_gap", self.side_gap, 0.0, 1.0e3)?;
        check("building_depth", self.building_depth, 1.0, 1.0e4)?;
        check("min_building_area", self.min_building_area, 1.0, 1.0e8)?;
        check("centre", self.centre.x, -1.0e9, 1.0e9)?;
        check("centre", self.centre.y, -1.0e9, 1.0e9)?;
        check("radius", self.radius, 1.0, 1.0e7)?;
        check("min_height", self.min_height, 0.0, 1.0e4)?;
        check("max_height", self.max_height, self.min_height, 1.0e4)?;
        check("height_jitter", self.height_jitter, 0.0, 1.0)?;
        check("max_lots", self.max_lots as f64, 1.0, MAX_LOTS as f64)
    }

    /// The height of a building centred at `at`: from `max_height` at the
    /// centre down to `min_height` at `radius`, times a factor within
    /// `1 ± height_jitter` hashed from the position and seed.
    pub fn height_at(&self, at: DVec2) -> f64 {
        let t = (1.0 - at.distance(self.centre) / self.radius).clamp(0.0, 1.0);
        let base = self.min_height + (self.max_height - self.min_height) * t;
        let q = (at * 100.0).round();
        let h = crate::num::hash2(q.x as i64, q.y as i64, self.seed ^ 0x6c6f_7473);
        let jitter = self.height_jitter * (2.0 * crate::num::unit(h) - 1.0);
        (base * (1.0 + jitter)).clamp(self.min_height, self.max_height)
    }
}

/// A building: a simple polygon (counter-clockwise, at most
/// [`MAX_FOOTPRINT_VERTICES`]) inside its lot, and its height.
#[derive(Clone, Debug, PartialEq)]
pub struct Building {
    /// The ground plan.
    pub footprint: Vec<DVec2>,
    /// Height above its base, metres.
    pub height: f64,
    /// The ground height its walls start at, metres: the natural ground at
    /// the footprint's centre as laid out (0 from [`subdivide`] alone), the
    /// height of its level pad once the world has built the ground.
    pub base: f64,
}

/// One lot: a simple polygon (counter-clockwise) with street frontage, off
/// every street's ribbon, and its building if it has room for one.
#[derive(Clone, Debug, PartialEq)]
pub struct Lot {
    /// The lot's outline.
    pub polygon: Vec<DVec2>,
    /// Its building.
    pub building: Option<Building>,
    /// The index of its block in [`Streets::blocks`].
    pub block: usize,
}

/// Counts and areas of a set of lots (for benchmarks and reports).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LotSummary {
    /// Lots.
    pub lots: usize,
    /// Lots with a building.
    pub buildings: usize,
    /// Blocks with at least one lot.
    pub blocks: usize,
    /// Total lot area, m².
    pub lot_area: f64,
    /// Total footprint area, m².
    pub building_area: f64,
    /// Mean building height, metres (0 without buildings).
    pub mean_height: f64,
}

impl LotSummary {
    /// The summary of `lots`.
    pub fn of(lots: &[Lot]) -> Self {
        let mut s = Self::default();
        let mut blocks: Vec<usize> = lots.iter().map(|l| l.block).collect();
        blocks.sort_unstable();
        blocks.dedup();
        s.blocks = blocks.len();
        s.lots = lots.len();
        for l in lots {
            s.lot_area += signed_area(&l.polygon);
            if let Some(b) = &l.building {
                s.buildings += 1;
                s.building_area += signed_area(&b.footprint);
                s.mean_height += b.height;
            }
        }
        if s.buildings > 0 {
            s.mean_height /= s.buildings as f64;
        }
        s
    }
}

/// The lots and buildings of every block of `streets`, block by block (in
/// block order). Empty when the parameters do not validate or the streets
/// hold a non-finite point or width; blocks that are not finite, not
/// counter-clockwise or larger than [`MAX_BLOCK_VERTICES`] are skipped.
/// Blocks of more than [`SIMPLIFY_ABOVE`] vertices are simplified first
/// (runs of nearly straight edges merged within [`SIMPLIFY_TOLERANCE`]);
/// those still above [`MAX_SIMPLIFIED_VERTICES`] are skipped too.
pub fn subdivide(streets: &Streets, params: &LotParams) -> Vec<Lot> {
    let mut lots = Vec::new();
    if params.validate().is_err() {
        return lots;
    }
    let Some(mut ribbons) = Ribbons::new(&streets.network) else {
        return lots;
    };
    if !(streets.obstacles.iter().flatten()).all(|p| p.is_finite()) {
        return lots;
    }
    let obstacles: Vec<((DVec2, DVec2), &[DVec2])> = (streets.obstacles.iter())
        .filter(|o| o.len() >= 3)
        .map(|o| (crate::geom::bounds(o), o.as_slice()))
        .collect();
    let cap = params.max_lots as usize;
    for (b, block) in streets.blocks.iter().enumerate() {
        if lots.len() >= cap {
            break;
        }
        if block.len() < 3
            || block.len() > MAX_BLOCK_VERTICES
            || !block.iter().all(|p| p.is_finite())
            || signed_area(block) <= 0.0
        {
            continue;
        }
        let seed = block_seed(block, params.seed);
        let mut widths = streets.block_widths.get(b).map(Vec::as_slice);
        let simplified;
        let block = if block.len() > SIMPLIFY_ABOVE {
            simplified = simplify::simplify(block, widths);
            widths = simplified.1.as_deref();
            &simplified.0
        } else {
            block
        };
        if block.len() > MAX_SIMPLIFIED_VERTICES {
            continue;
        }
        let near = ribbons.near(block);
        let (lo, hi) = crate::geom::bounds(block);
        let obs: Vec<&[DVec2]> = (obstacles.iter())
            .filter(|((olo, ohi), _)| olo.cmple(hi).all() && ohi.cmpge(lo).all())
            .map(|o| o.1)
            .collect();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut rings = Vec::new();
        for piece in inset::inset(block, widths, &near, &obs) {
            parcel::split(piece, params, &mut rng, &mut rings, cap - lots.len());
        }
        for ring in rings {
            let local;
            let near = if near.len() > MANY_RIBBONS {
                local = within_reach(&near, &ring.pts, params.setback);
                &local
            } else {
                &near
            };
            let building = building::footprint(&ring, near, params).map(|footprint| {
                let c = footprint.iter().sum::<DVec2>() / footprint.len() as f64;
                Building {
                    height: params.height_at(c),
                    footprint,
                    base: 0.0,
                }
            });
            lots.push(Lot {
                polygon: ring.pts,
                building,
                block: b,
            });
        }
    }
    lots
}

/// Ribbons near a block above which each lot's building looks only at
/// those within its reach ([`within_reach`]).
const MANY_RIBBONS: usize = 256;

/// The ribbons of `near` whose box comes within their half width plus
/// `extra` of the box of `poly`: all that keeping a shape inside `poly`
/// `extra` clear of the ribbons can meet.
fn within_reach(near: &[ribbons::Ribbon], poly: &[DVec2], extra: f64) -> Vec<ribbons::Ribbon> {
    let (lo, hi) = crate::geom::bounds(poly);
    (near.iter())
        .filter(|r| {
            let reach = DVec2::splat(r.half + extra + 1e-6);
            r.a.min(r.b).cmplt(hi + reach).all() && r.a.max(r.b).cmpgt(lo - reach).all()
        })
        .copied()
        .collect()
}

/// A block's seed: its vertices' mean (to the centimetre) and count, hashed
/// with the parameters' seed, so it does not depend on the block's index.
fn block_seed(block: &[DVec2], seed: u64) -> u64 {
    let c = (block.iter().sum::<DVec2>() / block.len() as f64 * 100.0).round();
    crate::num::hash2(c.x as i64, c.y as i64, seed ^ ((block.len() as u64) << 32))
}
