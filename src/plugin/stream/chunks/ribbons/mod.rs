//! Road and stream ribbons over one chunk: their own meshes, draped on the
//! chunk's triangles (the built ground's): cut by its grid cells and their
//! diagonals, so that they lie a small lift above the ground everywhere, at
//! every level of detail. The stretches of road that are bridges
//! or tunnels are left out (structures draw them); footways are stairs.

use super::ChunkKey;
use super::mesh::ChunkGrid;
use crate::network::{RoadClass, RoadLayer};
use crate::plugin::stream::coords::to_bevy;
use crate::plugin::stream::mesh::MeshLists;
use crate::plugin::stream::settings::ViewSettings;
use crate::terrain::{LaidGround, StreamLayer};
use bevy::math::{DVec2, DVec3};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

/// Footway stone (linear RGB; sRGB 0.56, 0.53, 0.48): a warm grey a little
/// darker than the town ground it runs through, with darker step nosings.
/// (Paler, the stairs down a city's slopes shone white from afar.)
pub const STAIR_COLOR: [f32; 4] = [0.274, 0.243, 0.196, 1.0];
/// The step nosings' colour.
pub const STEP_COLOR: [f32; 4] = [0.22, 0.21, 0.19, 1.0];
/// Distance between steps drawn on a footway, metres.
pub const STEP_RUN: f64 = 1.2;
/// Depth of a step's nosing band, metres.
const STEP_BAND: f64 = 0.35;
/// Steps are drawn on chunks at most this fine (vertex spacing, metres):
/// on coarser ones, farther out, bands 1.2 m apart would shimmer.
const STEP_MAX_SPACING: f64 = 2.0;

/// The ribbons of the roads and streams over one chunk, draped on the
/// chunk's own triangles (its [`ChunkGrid`], the same heights of the built
/// ground its mesh stands on), leaving out each road's `spans` (its bridges and tunnels, as
/// arc-length intervals), or `None` where nothing crosses it.
pub fn build_ribbons(
    ground: &LaidGround,
    key: ChunkKey,
    view: &ViewSettings,
    roads: &RoadLayer,
    streams: &StreamLayer,
    spans: &[Vec<(f64, f64)>],
) -> Option<MeshLists> {
    let grid = || ChunkGrid::of(ground, key, view);
    build_ribbons_on(ground, key, view, grid, (roads, streams, spans))
}

/// [`build_ribbons`] on the chunk's grid, made by `grid` if anything
/// crosses the chunk (the same heights as its mesh's, to the bit).
pub fn build_ribbons_on(
    ground: &LaidGround,
    key: ChunkKey,
    view: &ViewSettings,
    grid: impl FnOnce() -> ChunkGrid,
    (roads, streams, spans): (&RoadLayer, &StreamLayer, &[Vec<(f64, f64)>]),
) -> Option<MeshLists> {
    let size = key.size(view);
    let step = key.spacing(view);
    let min = key.corner(view);
    let max = min + DVec2::splat(size);
    let (road_ids, stream_ids) = (roads.roads_in(min, max), streams.streams_near(min, max));
    if road_ids.is_empty() && stream_ids.is_empty() {
        return None;
    }
    let terrain = ground.terrain();
    let q = view.chunk_quads as usize;
    let w = q + 3;
    let grid = grid();
    let height = |i: usize, j: usize| grid.built[(j + 1) * w + i + 1];
    let corners = |p: DVec2| triangle((p - min) / step, q);
    let ground = |p: DVec2| {
        (corners(p).into_iter())
            .map(|(i, j, f)| f * height(i, j))
            .sum()
    };
    // The ground's normal there, as its mesh shades it (its vertices'
    // normals across the triangle), so that a ribbon is lit as the ground
    // it lies on.
    let normal = |p: DVec2| {
        let n = (corners(p).into_iter()).map(|(i, j, f)| f * grid.normals[j * (q + 1) + i]);
        n.sum::<DVec3>().normalize_or(DVec3::Z)
    };
    // Far out, ribbons are at least a quarter of a grid step wide, so that
    // roads stay visible on coarse chunks.
    let least = step / 4.0;
    let net = roads.network();
    let chunk = Chunk {
        min,
        size,
        step,
        height: &height,
        ground: &ground,
        normal: &normal,
    };
    let mut r = MeshLists::default();
    // A road on the natural ground (no profile) crosses water on a deck (a
    // bridge or a causeway) above the lake, on piers down to the lake bed; a
    // built road's bridges are structures.
    let lake = terrain.params().lake_level;
    for &i in &road_ids {
        let road = &net.roads[i];
        let skip = spans.get(i).map_or(&[][..], Vec::as_slice);
        let deck = (!road.has_profile()).then_some(lake + DECK_HEIGHT);
        let width = road.width.max(least);
        let pts = road.points.as_slice();
        let line = |r: &mut MeshLists, width: f64, color: [f32; 4], raise: f64| {
            chunk.ribbon(r, pts, skip, width, color, raise, deck);
        };
        match road.class {
            RoadClass::Track => line(&mut r, width, [0.32, 0.25, 0.17, 1.0], 0.0),
            // Dark asphalt between pale edge lines: the edge colour runs the
            // full width, the asphalt a metre narrower just above it.
            RoadClass::Highway if width > 2.0 => {
                line(&mut r, width, [0.78, 0.78, 0.72, 1.0], HIGHWAY_LAYER);
                let asphalt = HIGHWAY_LAYER + EDGE_LIFT;
                line(&mut r, width - 1.0, [0.07, 0.07, 0.08, 1.0], asphalt);
            }
            RoadClass::Highway => line(&mut r, width, [0.07, 0.07, 0.08, 1.0], HIGHWAY_LAYER),
            RoadClass::Path => {
                line(&mut r, width, STAIR_COLOR, 0.0);
                if step <= STEP_MAX_SPACING {
                    chunk.steps(&mut r, pts, skip, width, deck);
                }
            }
            _ => line(&mut r, width, [0.13, 0.13, 0.13, 1.0], ROAD_LAYER),
        }
        if deck.is_some() {
            piers(
                &mut r,
                pts,
                road.width,
                min,
                size,
                |p| (terrain.height(p.x, p.y) < lake).then(|| ground(p)),
                lake + DECK_HEIGHT,
            );
        }
    }
    let water = [0.08, 0.22, 0.36, 1.0];
    for i in stream_ids {
        let s = &streams.streams()[i];
        let width = streams.width().max(least);
        chunk.ribbon(&mut r, &s.points, &[], width, water, 0.0, None);
    }
    (!r.is_empty()).then(|| {
        // Trimmed here, on the worker: they wait a while for their upload.
        r.trim();
        r
    })
}

/// The triangle of a chunk of `quads` quads a side under grid point `l`
/// (in grid steps from its corner, clamped to the chunk), as its mesh
/// splits each quad (along the diagonal from `(i, j)` to `(i + 1, j + 1)`):
/// its corners and their weights at `l`.
fn triangle(l: DVec2, quads: usize) -> [(usize, usize, f64); 3] {
    let l = l.clamp(DVec2::ZERO, DVec2::splat(quads as f64 - 1e-9));
    let (i, j) = (l.x.floor() as usize, l.y.floor() as usize);
    let (fx, fy) = (l.x - i as f64, l.y - j as f64);
    if fx >= fy {
        [(i, j, 1.0 - fx), (i + 1, j, fx - fy), (i + 1, j + 1, fy)]
    } else {
        [(i, j, 1.0 - fy), (i, j + 1, fy - fx), (i + 1, j + 1, fx)]
    }
}

/// Piers stand this far apart along a road over water (counted from the
/// road's first point, so neighbouring chunks agree), metres.
const PIER_SPACING: f64 = 24.0;
/// A pier's thickness along the road, metres.
const PIER_THICKNESS: f64 = 1.6;
/// Concrete, linear RGB.
const PIER_COLOR: [f32; 4] = [0.42, 0.42, 0.40, 1.0];

/// Piers under a road's deck: every [`PIER_SPACING`] metres along it where
/// `bed(p)` says there is water (giving the ground's height there), a block
/// across the road from a metre under the bed to the deck, each in the one
/// chunk that holds its foot.
fn piers(
    r: &mut MeshLists,
    points: &[DVec2],
    width: f64,
    min: DVec2,
    size: f64,
    bed: impl Fn(DVec2) -> Option<f64>,
    deck: f64,
) {
    let max = min + DVec2::splat(size);
    let mut next = PIER_SPACING / 2.0;
    let mut along = 0.0;
    for w in points.windows(2) {
        let len = w[0].distance(w[1]);
        let dir = (w[1] - w[0]).normalize_or(DVec2::X);
        while next <= along + len {
            let p = w[0] + dir * (next - along);
            next += PIER_SPACING;
            if p.cmplt(min).any() || p.cmpge(max).any() {
                continue;
            }
            let Some(floor) = bed(p) else { continue };
            let (d, s) = (dir * PIER_THICKNESS / 2.0, dir.perp() * width * 0.35);
            let foot = [p - d - s, p + d - s, p + d + s, p - d + s];
            let (lo, hi) = (floor - 1.0, deck);
            for k in 0..4 {
                let (a, b) = (foot[k], foot[(k + 1) % 4]);
                let out = (b - a).perp().normalize_or_zero() * -1.0;
                let n = to_bevy(out.extend(0.0), DVec2::ZERO).to_array();
                let base = r.positions.len() as u32;
                for (q, z) in [(a, lo), (b, lo), (b, hi), (a, hi)] {
                    let v = DVec3::new(q.x - min.x, q.y - min.y, z);
                    r.positions.push(to_bevy(v, DVec2::ZERO).to_array());
                    r.normals.push(n);
                    r.colors.push(PIER_COLOR);
                }
                r.indices
                    .extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
            }
        }
        along += len;
    }
}

/// How high a road deck stands above the lake, metres.
const DECK_HEIGHT: f64 = 1.5;

/// How far a highway's asphalt lies above its edge lines, metres.
const EDGE_LIFT: f64 = 0.04;
/// How far a step's nosing lies above its footway, metres.
const NOSING_LAYER: f64 = 0.03;
/// How far streets and country roads lie above footways, tracks and streams,
/// metres, and highways above them: where two ribbons overlap (a flight of
/// stairs ending on a street, a street at a highway's gate) the same one is
/// always on top, not whichever the depth test's rounding picks triangle by
/// triangle (a saw-tooth along the ground's triangles).
const ROAD_LAYER: f64 = 0.06;
/// See [`ROAD_LAYER`].
const HIGHWAY_LAYER: f64 = 0.09;

/// The chunk ribbons are draped on: its corner, size, grid step, its grid's
/// heights, and the height and normal of its triangles.
struct Chunk<'a> {
    min: DVec2,
    size: f64,
    step: f64,
    /// The grid's height at vertex `(i, j)` (`0..=quads` each way).
    height: &'a dyn Fn(usize, usize) -> f64,
    ground: &'a dyn Fn(DVec2) -> f64,
    normal: &'a dyn Fn(DVec2) -> DVec3,
}

impl Chunk<'_> {
    /// Adds the ribbon of one centre line (width, colour, extra lift) over
    /// the chunk `[min, min + size)`: a cross-section (left, right) at each
    /// of the line's points, and between each two a quad draped on the
    /// chunk's triangles ([`Self::drape`]), so that the ribbon lies a small
    /// lift above the ground (or on `deck`, where that is higher)
    /// everywhere, however the ground bends. The arc-length intervals of
    /// `skip` are left out, the ribbon ending exactly at their ends.
    #[allow(clippy::too_many_arguments)]
    fn ribbon(
        &self,
        r: &mut MeshLists,
        points: &[DVec2],
        skip: &[(f64, f64)],
        width: f64,
        color: [f32; 4],
        raise: f64,
        deck: Option<f64>,
    ) {
        let (min, max) = (self.min, self.min + DVec2::splat(self.size));
        let lift = 0.15 + 0.03 * self.step + raise;
        // The line's own points (and the ends of its skipped stretches):
        // the drape follows the ground between them.
        let pts = samples(points, skip);
        let skipped = |a: f64, b: f64| {
            let mid = (a + b) / 2.0;
            skip.iter().any(|&(s0, s1)| s0 <= mid && mid <= s1)
        };
        let section = |k: usize| {
            let (a, b) = (
                pts[k.saturating_sub(1)].0,
                pts[(k + 1).min(pts.len() - 1)].0,
            );
            let side = (b - a).normalize_or(DVec2::X).perp() * (width / 2.0);
            [pts[k].0 + side, pts[k].0 - side]
        };
        let reach = width / 2.0;
        let mut d = Draped {
            out: r,
            shared: HashMap::new(),
            color,
            lift,
            deck,
        };
        for k in 1..pts.len() {
            let (a, b) = (pts[k - 1], pts[k]);
            let (lo, hi) = (a.0.min(b.0) - reach, a.0.max(b.0) + reach);
            if skipped(a.1, b.1) || lo.cmpge(max).any() || hi.cmple(min).any() {
                continue;
            }
            let (p, q) = (section(k - 1), section(k));
            // One quad between the two sections (two triangles where a
            // sharp bend folds it).
            let quad = [p[0], p[1], q[1], q[0]];
            let (lo, hi) = crate::geom::turn_range(&quad);
            if lo >= 0.0 || hi <= 0.0 {
                self.drape(&mut d, &quad);
            } else {
                for tri in [[p[0], p[1], q[1]], [p[0], q[1], q[0]]] {
                    self.drape(&mut d, &tri);
                }
            }
        }
    }

    /// A footway's steps: a dark nosing band across it every
    /// [`STEP_RUN`] metres (none on its bridges and tunnels).
    fn steps(
        &self,
        r: &mut MeshLists,
        points: &[DVec2],
        skip: &[(f64, f64)],
        width: f64,
        deck: Option<f64>,
    ) {
        let (lo, hi) = (self.min - 1.0, self.min + self.size + 1.0);
        let mut next = STEP_RUN / 2.0;
        let mut s0 = 0.0;
        for w in points.windows(2) {
            let len = w[0].distance(w[1]);
            let dir = (w[1] - w[0]).normalize_or(DVec2::X);
            while next + STEP_BAND <= s0 + len {
                let a = w[0] + dir * (next - s0);
                let s = next;
                next += STEP_RUN;
                let in_span = skip.iter().any(|&(s1, s2)| s + STEP_BAND >= s1 && s <= s2);
                if in_span || a.cmplt(lo).any() || a.cmpgt(hi).any() {
                    continue;
                }
                let band = [a, a + dir * STEP_BAND];
                self.ribbon(r, &band, &[], width, STEP_COLOR, NOSING_LAYER, deck);
            }
            s0 += len;
        }
    }
}

/// The points of a line with their arc lengths, and the ends of the `skip`
/// intervals on it; points inside an interval are left out.
fn samples(points: &[DVec2], skip: &[(f64, f64)]) -> Vec<(DVec2, f64)> {
    let mut out: Vec<(DVec2, f64)> = Vec::new();
    let mut ts: Vec<f64> = Vec::new();
    let mut s0 = 0.0;
    for w in points.windows(2) {
        let len = w[0].distance(w[1]);
        ts.clear();
        ts.push(0.0);
        if len > 0.0 {
            for &(a, b) in skip {
                ts.extend(
                    [a, b]
                        .into_iter()
                        .filter(|&e| e >= s0 && e < s0 + len)
                        .map(|e| (e - s0) / len),
                );
            }
        }
        ts.sort_by(f64::total_cmp);
        for &t in &ts {
            let s = s0 + t * len;
            if out.last().is_none_or(|l| s - l.1 > 1e-9) {
                out.push((w[0].lerp(w[1], t), s));
            }
        }
        s0 += len;
    }
    if let Some(&p) = points.last() {
        out.push((p, s0));
    }
    if !skip.is_empty() {
        out.retain(|&(_, s)| !skip.iter().any(|&(a, b)| s > a + 1e-6 && s < b - 1e-6));
    }
    out
}

mod drape;
use drape::Draped;
#[cfg(test)]
mod tests;
