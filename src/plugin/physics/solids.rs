//! The solid things of a laid region as convex hulls (point sets in core
//! coordinates), grouped by collider cell: buildings as their prisms, bridge
//! decks with parapets and piers, tunnel tubes (floor, walls and ceiling),
//! retaining walls. Pure geometry: the colliders are made from these on the
//! workers.

use super::{COLLIDER_CELL, Cell};
use crate::plugin::LaidRoads;
use crate::plugin::stream::buildings::FOUNDATION;
use crate::plugin::stream::structures::{DECK_THICKNESS, PIER_SPACING};
use crate::terrain::LaidGround;
use crate::world::{Structure, StructureKind};
use bevy::math::{DVec2, DVec3};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Parapet height above a bridge deck and thickness, metres (as drawn).
const PARAPET: (f64, f64) = (1.0, 0.35);
/// A tunnel's clear height over the road, metres (as its portals are drawn).
const OPENING: f64 = 6.0;
/// A tunnel tube's floor, wall and ceiling thickness, metres.
const TUBE: f64 = 1.0;
/// A retaining wall's thickness, metres (as drawn).
const WALL_THICKNESS: f64 = 0.6;
/// How far walls, piers and floors reach into the ground, metres.
const BURIED: f64 = 1.0;
/// A tunnel's floor reaches this far out of each portal, under the opening
/// the ground's height field leaves there, metres (at least its coarsest
/// spacing).
pub const APRON: f64 = 2.5;
/// Long segments are cut into pieces at most this long, so that each
/// piece belongs to the cell it lies in, metres.
const PIECE: f64 = 16.0;
/// Pieces overlap their neighbours by this much at each end (no seam at a
/// bend), metres.
const OVERLAP: f64 = 0.25;
/// Eaves stand at least this high above a building's highest corner, metres
/// (as drawn).
const MIN_STOREY: f64 = 3.0;

/// A convex solid: the hull of these points (core coordinates).
pub type Hull = Vec<DVec3>;

/// The hulls of one cell and a hash of them (0: none).
#[derive(Clone, Debug, Default)]
pub struct CellSolids {
    /// A hash of every point (never 0).
    pub key: u64,
    /// The hulls.
    pub hulls: Arc<Vec<Hull>>,
}

/// Every hull of a laid region by collider cell.
#[derive(Clone, Debug, Default)]
pub struct SolidIndex {
    /// The [`LaidRoads::version`] it was made from.
    pub version: u64,
    /// The terrain generation it was made for.
    pub generation: u64,
    /// The cells with something solid.
    pub cells: BTreeMap<Cell, CellSolids>,
}

impl SolidIndex {
    /// The hulls of `laid`'s buildings and structures.
    pub fn new(laid: &LaidRoads, generation: u64) -> Self {
        let mut hulls: Vec<Hull> = Vec::new();
        for layout in laid.layouts.iter() {
            for b in layout.buildings() {
                building(&mut hulls, &b.footprint, b.height, b.base, &laid.ground);
            }
        }
        let net = laid.roads.network();
        for s in laid.structures.iter() {
            let width = s
                .road
                .and_then(|i| net.roads.get(i))
                .map_or(6.0, |r| r.width);
            structure(&mut hulls, s, width, &laid.ground);
        }
        let mut by_cell: BTreeMap<Cell, Vec<Hull>> = BTreeMap::new();
        for h in hulls {
            let c = h.iter().fold(DVec2::ZERO, |a, p| a + p.truncate()) / h.len() as f64;
            by_cell.entry(collider_cell(c)).or_default().push(h);
        }
        let cells = (by_cell.into_iter())
            .map(|(c, hulls)| {
                let mut h = std::hash::DefaultHasher::new();
                for p in hulls.iter().flatten() {
                    (p.x.to_bits(), p.y.to_bits(), p.z.to_bits()).hash(&mut h);
                }
                let key = h.finish() | 1;
                let hulls = Arc::new(hulls);
                (c, CellSolids { key, hulls })
            })
            .collect();
        Self {
            version: laid.version,
            generation,
            cells,
        }
    }
}

/// The collider cell holding core point `p`.
pub fn collider_cell(p: DVec2) -> Cell {
    (
        (p.x / COLLIDER_CELL).floor() as i64,
        (p.y / COLLIDER_CELL).floor() as i64,
    )
}

/// A prism over `ring` from `lo` to `hi`.
fn prism(ring: &[DVec2], lo: f64, hi: f64) -> Hull {
    (ring.iter())
        .flat_map(|p| [p.extend(lo), p.extend(hi)])
        .collect()
}

/// A building as its walls are drawn: from a foundation below the lowest of
/// its base and its corners' ground to the eaves. A convex footprint is one
/// prism; any other is cut into triangles, a prism each.
pub fn building(out: &mut Vec<Hull>, footprint: &[DVec2], height: f64, base: f64, g: &LaidGround) {
    if footprint.len() < 3
        || !footprint.iter().all(|p| p.is_finite())
        || !height.is_finite()
        || !base.is_finite()
    {
        return;
    }
    let zs: Vec<f64> = footprint.iter().map(|p| g.height(p.x, p.y)).collect();
    let lo = zs.iter().copied().fold(base, f64::min) - FOUNDATION;
    let high = zs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let hi = (base + height.max(2.0)).max(high + MIN_STOREY);
    // Counter-clockwise, as lots are; a clockwise one is turned.
    let mut ring = footprint.to_vec();
    let area: f64 = (0..ring.len())
        .map(|i| ring[i].perp_dot(ring[(i + 1) % ring.len()]))
        .sum();
    if area < 0.0 {
        ring.reverse();
    }
    if crate::geom::turn_range(&ring).0 >= 0.0 {
        out.push(prism(&ring, lo, hi));
        return;
    }
    let mut tris: Vec<usize> = Vec::new();
    earcut::Earcut::new().earcut(ring.iter().map(|p| [p.x, p.y]), &[], &mut tris);
    for t in tris.chunks_exact(3) {
        out.push(prism(&[ring[t[0]], ring[t[1]], ring[t[2]]], lo, hi));
    }
}

/// A straight piece from `a` to `b` (core points; their `z` the reference
/// height), from `u.0` to `u.1` metres right of the line, from `z.0` to
/// `z.1` metres about the reference: its 8 corners.
fn slab(a: DVec3, b: DVec3, u: (f64, f64), z: (f64, f64)) -> Hull {
    let d = (b - a).truncate().normalize_or(DVec2::X);
    let right = DVec2::new(d.y, -d.x);
    let mut h = Vec::with_capacity(8);
    for p in [a, b] {
        for across in [u.0, u.1] {
            let c = p.truncate() + right * across;
            h.push(c.extend(p.z + z.0));
            h.push(c.extend(p.z + z.1));
        }
    }
    h
}

/// `line` cut into pieces at most [`PIECE`] long, each grown by
/// [`OVERLAP`] at both ends, with the values of `foot` at their ends.
fn pieces(line: &[DVec3], foot: &[f64]) -> Vec<(DVec3, DVec3, f64, f64)> {
    let mut out = Vec::new();
    for (k, w) in line.windows(2).enumerate() {
        let len = w[0].truncate().distance(w[1].truncate());
        if len <= 1e-6 {
            continue;
        }
        let (fa, fb) = (
            foot.get(k).copied().unwrap_or(w[0].z),
            foot.get(k + 1).copied().unwrap_or(w[1].z),
        );
        let n = (len / PIECE).ceil().max(1.0) as usize;
        for i in 0..n {
            let (s, t) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
            let grow = OVERLAP / len;
            let (s, t) = (s - grow, t + grow);
            out.push((
                w[0].lerp(w[1], s),
                w[0].lerp(w[1], t),
                fa + (fb - fa) * s,
                fa + (fb - fa) * t,
            ));
        }
    }
    out
}

/// A bridge (deck, parapets, piers), a tunnel (a tube of floor, walls and
/// ceiling along its road: the ground above it stays a height field) or a
/// retaining wall. Structures with fewer than two points or a non-finite
/// one are skipped.
pub fn structure(out: &mut Vec<Hull>, s: &Structure, width: f64, g: &LaidGround) {
    if s.line.len() < 2
        || !s.line.iter().all(|p| p.is_finite())
        || !s.foot.iter().all(|f| f.is_finite())
        || !width.is_finite()
    {
        return;
    }
    match s.kind {
        StructureKind::Bridge => {
            let half = width / 2.0 + PARAPET.1;
            for (a, b, ..) in pieces(&s.line, &s.foot) {
                out.push(slab(a, b, (-half, half), (-DECK_THICKNESS, 0.0)));
                let rail = (-0.05, PARAPET.0);
                out.push(slab(a, b, (-half, -half + PARAPET.1), rail));
                out.push(slab(a, b, (half - PARAPET.1, half), rail));
            }
            piers(out, s, width, g);
        }
        StructureKind::Tunnel => {
            let half = tube_half(width) - TUBE;
            let n = s.line.len();
            for (inner, outer) in [(s.line[0], s.line[1]), (s.line[n - 1], s.line[n - 2])] {
                let out_dir = (inner - outer).truncate().normalize_or(DVec2::X);
                let apron = inner + (out_dir * APRON).extend(0.0);
                out.push(slab(apron, inner, (-half, half), (-TUBE, 0.0)));
            }
            for (a, b, ..) in pieces(&s.line, &s.foot) {
                out.push(slab(a, b, (-half, half), (-TUBE, 0.0)));
                out.push(slab(a, b, (-half, half), (OPENING, OPENING + TUBE)));
                let wall = (-TUBE, OPENING + TUBE);
                out.push(slab(a, b, (-half - TUBE, -half), wall));
                out.push(slab(a, b, (half, half + TUBE), wall));
            }
        }
        StructureKind::Wall => {
            let half = WALL_THICKNESS / 2.0;
            for (a, b, fa, fb) in pieces(&s.line, &s.foot) {
                // Bottom and top at each end: the hull of a straight piece.
                let mut h = slab(a, b, (-half, half), (0.0, 0.3));
                for (k, f) in [(0, fa), (1, fa), (2, fb), (3, fb)] {
                    let p = if k < 2 { a } else { b };
                    h[2 * k].z = f.min(p.z) - BURIED;
                }
                out.push(h);
            }
        }
    }
}

/// A tunnel tube's half-width to the outside of its walls, for a road
/// `width` wide.
pub fn tube_half(width: f64) -> f64 {
    width / 2.0 + 1.0 + TUBE
}

/// The top of a tunnel's tube over its road surface, metres.
pub const TUBE_TOP: f64 = OPENING + TUBE;

/// A bridge's piers, as drawn: every [`PIER_SPACING`] metres or so but at
/// the ends, from below the lower of the foot and the ground to the deck.
fn piers(out: &mut Vec<Hull>, s: &Structure, width: f64, g: &LaidGround) {
    let lens: Vec<f64> = (s.line.windows(2))
        .map(|w| w[0].truncate().distance(w[1].truncate()))
        .collect();
    let len: f64 = lens.iter().sum();
    let n = (len / PIER_SPACING).round() as usize;
    for k in 1..n {
        let mut at = len * k as f64 / n as f64;
        let Some(i) = (0..lens.len()).find(|&i| {
            let inside = at <= lens[i] || i + 1 == lens.len();
            if !inside {
                at -= lens[i];
            }
            inside
        }) else {
            continue;
        };
        let t = if lens[i] > 0.0 { at / lens[i] } else { 0.0 };
        let (a, b) = (s.line[i], s.line[i + 1]);
        let p = a.lerp(b, t);
        let foot = |j: usize| s.foot.get(j).copied().unwrap_or(p.z);
        let f = foot(i) + t * (foot(i + 1) - foot(i));
        let bottom = f.min(g.height(p.x, p.y)) - BURIED;
        let top = p.z - DECK_THICKNESS;
        if top <= bottom {
            continue;
        }
        let tall = top - bottom;
        let (along, across) = (0.8 + 0.015 * tall, width * 0.3 + 0.01 * tall);
        let dir = (b - a).truncate().normalize_or(DVec2::X).extend(0.0);
        let (pa, pb) = ((p - dir * along), (p + dir * along));
        let (pa, pb) = (pa.truncate().extend(top), pb.truncate().extend(top));
        out.push(slab(pa, pb, (-across, across), (bottom - top, 0.0)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::{Terrain, TerrainParams};

    fn ground() -> LaidGround {
        LaidGround::new(Arc::new(Terrain::new(TerrainParams::default()).unwrap()))
    }

    #[test]
    fn an_l_shaped_building_is_cut_into_convex_prisms() {
        let g = ground();
        let l = [
            (0.0, 0.0),
            (20.0, 0.0),
            (20.0, 10.0),
            (10.0, 10.0),
            (10.0, 20.0),
            (0.0, 20.0),
        ]
        .map(|(x, y)| DVec2::new(x, y) + DVec2::new(5000.0, 5000.0));
        let mut out = Vec::new();
        building(&mut out, &l, 9.0, 300.0, &g);
        assert_eq!(out.len(), 4, "n − 2 triangles");
        let square = [l[0], l[1], l[2], DVec2::new(l[0].x, l[2].y)];
        building(&mut out, &square, 9.0, 300.0, &g);
        assert_eq!(out.len(), 5);
        // Its top is the eaves: at least 9 m above the base.
        assert!(out[4].iter().all(|p| p.z < 300.0 || p.z >= 309.0));
        // Nothing from a degenerate footprint.
        building(&mut out, &l[..2], 9.0, 300.0, &g);
        building(&mut out, &[l[0], l[1], DVec2::NAN], 9.0, 300.0, &g);
        assert_eq!(out.len(), 5);
    }

    #[test]
    fn long_lines_are_cut_into_overlapping_pieces() {
        let line = [DVec3::new(0.0, 0.0, 10.0), DVec3::new(100.0, 0.0, 20.0)];
        let p = pieces(&line, &[0.0, 10.0]);
        assert_eq!(p.len(), 7);
        for w in p.windows(2) {
            assert!(w[0].1.x > w[1].0.x, "overlap");
        }
        assert!((p[0].0.x + OVERLAP).abs() < 1e-9 && (p[6].1.x - 100.0 - OVERLAP).abs() < 1e-9);
    }
}
