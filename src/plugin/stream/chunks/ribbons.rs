//! Road and stream ribbons over one chunk: their own meshes, draped on the
//! chunk's triangles (the built ground's): cut by its grid cells and their
//! diagonals, so that they lie a small lift above the ground everywhere, at
//! every level of detail. The stretches of road that are bridges
//! or tunnels are left out (structures draw them); footways are stairs.

use super::ChunkKey;
use super::mesh::ChunkGrid;
use crate::network::{RoadClass, RoadLayer};
use crate::plugin::stream::coords::{dir_to_bevy, to_bevy};
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
                line(&mut r, width, [0.78, 0.78, 0.72, 1.0], 0.0);
                line(&mut r, width - 1.0, [0.07, 0.07, 0.08, 1.0], EDGE_LIFT);
            }
            RoadClass::Highway => line(&mut r, width, [0.07, 0.07, 0.08, 1.0], 0.0),
            RoadClass::Path => {
                line(&mut r, width, STAIR_COLOR, 0.0);
                if step <= STEP_MAX_SPACING {
                    chunk.steps(&mut r, pts, skip, width, deck);
                }
            }
            _ => line(&mut r, width, [0.13, 0.13, 0.13, 1.0], 0.0),
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
        // The ribbon's vertices by position: its pieces share them.
        let mut shared = HashMap::new();
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
            if convex(&quad) {
                self.drape(r, &mut shared, &quad, color, lift, deck);
            } else {
                for tri in [[p[0], p[1], q[1]], [p[0], q[1], q[0]]] {
                    self.drape(r, &mut shared, &tri, color, lift, deck);
                }
            }
        }
    }

    /// Adds convex polygon `poly` (world metres) draped on the chunk's
    /// triangles: cut by the chunk's square, its grid cells and, where a
    /// cell's two triangles are not one plane, its diagonal (as [`triangle`]
    /// splits it), each piece at the ground's height (or `deck`'s, where
    /// that is higher) plus `lift`, lit by the ground's normal, facing up.
    #[allow(clippy::too_many_arguments)]
    fn drape(
        &self,
        r: &mut MeshLists,
        shared: &mut HashMap<[u64; 2], u32>,
        poly: &[DVec2],
        color: [f32; 4],
        lift: f64,
        deck: Option<f64>,
    ) {
        let area = twice_area(poly);
        // (Also what is not finite.)
        if area.abs().partial_cmp(&1e-9) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        let (min, step) = (self.min, self.step);
        // Grid coordinates, counter-clockwise.
        let mut poly: Vec<DVec2> = poly.iter().map(|&p| (p - min) / step).collect();
        if area < 0.0 {
            poly.reverse();
        }
        let q = (self.size / step).round();
        for (n, c) in [
            (DVec2::X, 0.0),
            (DVec2::Y, 0.0),
            (-DVec2::X, -q),
            (-DVec2::Y, -q),
        ] {
            clip(&mut poly, |p| n.dot(p) - c);
        }
        if poly.len() < 3 {
            return;
        }
        let (lo, hi) = poly
            .iter()
            .fold((DVec2::INFINITY, DVec2::NEG_INFINITY), |(lo, hi), &p| {
                (lo.min(p), hi.max(p))
            });
        let last = q as i64 - 1;
        let cells =
            |a: f64, b: f64| (a.floor() as i64).clamp(0, last)..=(b.floor() as i64).clamp(0, last);
        let (mut piece, mut half) = (Vec::new(), Vec::new());
        for j in cells(lo.y, hi.y) {
            for i in cells(lo.x, hi.x) {
                let (x, y) = (i as f64, j as f64);
                piece.clear();
                piece.extend_from_slice(&poly);
                clip(&mut piece, |p| p.x - x);
                clip(&mut piece, |p| x + 1.0 - p.x);
                clip(&mut piece, |p| p.y - y);
                clip(&mut piece, |p| y + 1.0 - p.y);
                if piece.len() < 3 {
                    continue;
                }
                let h = |a: i64, b: i64| (self.height)(a as usize, b as usize);
                let bend = h(i, j) + h(i + 1, j + 1) - h(i + 1, j) - h(i, j + 1);
                if bend.abs() <= 1e-9 * (1.0 + h(i, j).abs()) {
                    self.piece(r, shared, &piece, color, lift, deck);
                    continue;
                }
                // Split by the diagonal (x − i = y − j): below it, then above.
                for sign in [1.0, -1.0] {
                    half.clear();
                    half.extend_from_slice(&piece);
                    clip(&mut half, |p| sign * ((p.x - x) - (p.y - y)));
                    self.piece(r, shared, &half, color, lift, deck);
                }
            }
        }
    }

    /// Adds one convex piece (grid coordinates, counter-clockwise) of a
    /// draped polygon as a fan, its vertices shared with the ribbon's other
    /// pieces (`shared`, by position).
    #[allow(clippy::too_many_arguments)]
    fn piece(
        &self,
        r: &mut MeshLists,
        shared: &mut HashMap<[u64; 2], u32>,
        piece: &[DVec2],
        color: [f32; 4],
        lift: f64,
        deck: Option<f64>,
    ) {
        if piece.len() < 3 || twice_area(piece) < 1e-12 {
            return;
        }
        let mut vertex = |l: DVec2| {
            *shared
                .entry([l.x.to_bits(), l.y.to_bits()])
                .or_insert_with(|| {
                    let q = self.min + l * self.step;
                    let g = (self.ground)(q);
                    let z = deck.map_or(g, |d| g.max(d)) + lift;
                    let v = DVec3::new(q.x - self.min.x, q.y - self.min.y, z);
                    r.positions.push(to_bevy(v, DVec2::ZERO).to_array());
                    // On the ground, its normal; on a deck, up.
                    let up = match deck {
                        Some(d) if d > g => DVec3::Z,
                        _ => (self.normal)(q),
                    };
                    r.normals.push(dir_to_bevy(up).to_array());
                    r.colors.push(color);
                    r.positions.len() as u32 - 1
                })
        };
        let first = vertex(piece[0]);
        let mut prev = (piece[1], vertex(piece[1]));
        for &l in &piece[2..] {
            let next = (l, vertex(l));
            // Slivers (a piece's corner a hair from a cut) are left out:
            // narrower than a hundred-thousandth of their length, their
            // vertices meet in the renderer's precision.
            let (u, v) = (prev.0 - piece[0], l - piece[0]);
            if u.perp_dot(v) > 1e-5 * u.length_squared().max(v.length_squared()) {
                r.indices.extend_from_slice(&[first, prev.1, next.1]);
            }
            prev = next;
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
                self.ribbon(r, &band, &[], width, STEP_COLOR, 0.03, deck);
            }
            s0 += len;
        }
    }
}

/// Twice the signed area of a polygon (counter-clockwise: positive).
fn twice_area(poly: &[DVec2]) -> f64 {
    let n = poly.len();
    (0..n).map(|k| poly[k].perp_dot(poly[(k + 1) % n])).sum()
}

/// Whether a quadrilateral is convex (either way round).
fn convex(q: &[DVec2; 4]) -> bool {
    let turns = (0..4).map(|k| (q[(k + 1) % 4] - q[k]).perp_dot(q[(k + 2) % 4] - q[(k + 1) % 4]));
    let (mut pos, mut neg) = (false, false);
    for t in turns {
        pos |= t > 0.0;
        neg |= t < 0.0;
    }
    !(pos && neg)
}

/// Cuts convex polygon `poly` down to where `side(p) >= 0` (Sutherland and
/// Hodgman's step), in place.
fn clip(poly: &mut Vec<DVec2>, side: impl Fn(DVec2) -> f64) {
    let n = poly.len();
    if n == 0 {
        return;
    }
    let mut out = Vec::with_capacity(n + 2);
    for k in 0..n {
        let (a, b) = (poly[k], poly[(k + 1) % n]);
        let (sa, sb) = (side(a), side(b));
        if sa >= 0.0 {
            out.push(a);
        }
        if (sa >= 0.0) != (sb >= 0.0) {
            // From the lesser end, so that the polygons either side of a
            // cut find the same point, to the bit.
            let ((a, sa), (b, sb)) = if (a.x, a.y) <= (b.x, b.y) {
                ((a, sa), (b, sb))
            } else {
                ((b, sb), (a, sa))
            };
            out.push(a + (b - a) * (sa / (sa - sb)));
        }
    }
    *poly = out;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::Terrain;

    #[test]
    fn ribbons_drape_on_fine_chunks_face_up_and_are_lit_as_the_ground() {
        use crate::roads::{ContourParams, ContourRoads};
        use std::sync::Arc;
        let t = Terrain::default();
        let (min, max) = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
        let net = ContourRoads::new(ContourParams::default())
            .unwrap()
            .generate(&t, min, max);
        let p = net.roads[0].points[2];
        let roads = RoadLayer::new(Arc::new(net));
        let streams = StreamLayer::default();
        let view = ViewSettings::default();
        let key = ChunkKey {
            level: 0,
            x: (p.x / 64.0).floor() as i64,
            y: (p.y / 64.0).floor() as i64,
        };
        let g = LaidGround::new(Arc::new(t.clone()));
        let r = build_ribbons(&g, key, &view, &roads, &streams, &[])
            .expect("a road crosses this chunk");
        for tri in r.indices.chunks(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| Vec3::from(r.positions[i as usize]));
            assert!((b - a).cross(c - a).y > 0.0);
        }
        // Ribbon vertices stand just above the true ground (within the
        // chunk's own interpolation error at 2 m spacing).
        for q in &r.positions {
            let w = key.corner(&view) + DVec2::new(q[0] as f64, -q[2] as f64);
            let h = t.height(w.x, w.y);
            assert!((q[1] as f64 - h).abs() < 1.5, "{} vs {h}", q[1]);
        }
        // Their normals are those the ground's mesh has under them (its
        // vertices' normals across the triangle), not straight up: the
        // slope tilts them.
        let mesh = super::super::mesh::ChunkMesh::build(&g, key, 1, &view);
        let (step, n) = (key.spacing(&view), view.chunk_quads as usize + 1);
        let mut tilted = 0;
        for (q, nr) in r.positions.iter().zip(&r.normals) {
            let l = DVec2::new(q[0] as f64, -q[2] as f64) / step;
            let under: Vec3 = (triangle(l, n - 1).iter())
                .map(|&(i, j, f)| Vec3::from(mesh.lists.normals[j * n + i]) * f as f32)
                .sum();
            let nr = Vec3::from(*nr);
            assert!(nr.dot(under.normalize()) > 0.9999, "{nr} vs {under}");
            tilted += (nr.y < 5f32.to_radians().cos()) as usize;
        }
        assert!(
            tilted * 2 > r.normals.len(),
            "{tilted} of {}",
            r.normals.len()
        );
        // Nothing crosses a chunk far away.
        let far = ChunkKey {
            level: 0,
            x: key.x + 1000,
            y: key.y,
        };
        assert!(build_ribbons(&g, far, &view, &roads, &streams, &[]).is_none());
    }

    /// How a chunk's ribbons lie on its ground: over each ribbon triangle,
    /// at its centroid and three points towards its corners, the ribbon's
    /// height above the chunk's own triangles (`ground`, local metres);
    /// deck triangles (flat, above water) are left out.
    fn clearances(r: &MeshLists, ground: impl Fn(DVec2) -> f64) -> Vec<f64> {
        let mut out = Vec::new();
        for t in r.indices.chunks_exact(3) {
            let p = [t[0], t[1], t[2]].map(|i| {
                let q = r.positions[i as usize];
                DVec3::new(q[0] as f64, -q[2] as f64, q[1] as f64)
            });
            if r.colors[t[0] as usize] == PIER_COLOR {
                continue;
            }
            for w in [
                [1.0, 1.0, 1.0],
                [4.0, 1.0, 1.0],
                [1.0, 4.0, 1.0],
                [1.0, 1.0, 4.0],
            ] {
                let s: f64 = w.iter().sum();
                let q = (p[0] * w[0] + p[1] * w[1] + p[2] * w[2]) / s;
                out.push(q.z - ground(q.truncate()));
            }
        }
        out
    }

    #[test]
    fn ribbons_lie_on_the_chunk_s_ground_everywhere() {
        use crate::plugin::stream::structures::road_spans;
        use crate::world::{RoadSystem, RoadSystemParams, StructureKind};
        // Chunks of 2, 4 and 16 m grids over the planned city's slopes
        // (terraces, stairs).
        let t = Terrain::default();
        let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
        let view = ViewSettings::default();
        for level in [0, 1, 3] {
            let key = ChunkKey {
                level,
                x: (15700.0 / (64.0 * f64::from(1 << level))) as i64,
                y: (7600.0 / (64.0 * f64::from(1 << level))) as i64,
            };
            let (min, size) = (key.corner(&view), key.size(&view));
            let region = sys.region(&t, min, min + size).unwrap();
            let kinds = [StructureKind::Bridge, StructureKind::Tunnel];
            let spans = road_spans(&region.network, &region.structures, &kinds);
            let roads = RoadLayer::new(region.network.clone());
            let (g, streams) = (&region.ground, StreamLayer::default());
            let r = build_ribbons(g, key, &view, &roads, &streams, &spans).expect("ribbons");
            let grid = ChunkGrid::of(g, key, &view);
            let (q, step) = (view.chunk_quads as usize, key.spacing(&view));
            let w = q + 3;
            let ground = |p: DVec2| {
                (triangle(p / step, q).into_iter())
                    .map(|(i, j, f)| f * grid.built[(j + 1) * w + i + 1])
                    .sum::<f64>()
            };
            let c = clearances(&r, ground);
            let lo = c.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = c.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            println!(
                "level {level} (step {step} m): {} points, clearance {lo:.3} to {hi:.3} m, {} vertices, {} triangles",
                c.len(),
                r.positions.len(),
                r.indices.len() / 3
            );
            // Everywhere the lift above the ground (a step's nosing 3 cm
            // more). Sampled at the vertices only (as before), the ribbons
            // sank up to 3.0 m into it on the 4 m grid (at 17 % of these
            // points) and 1.1 m on the 16 m one, and stood up to 1.9 m off it.
            let lift = 0.15 + 0.03 * step;
            assert!(c.len() > 1000, "{}", c.len());
            assert!(lo > lift - 1e-3 && hi < lift + 0.03 + 1e-3, "{lo} to {hi}");
            // Every triangle faces up.
            for t in r.indices.chunks_exact(3) {
                let [a, b, c] = [t[0], t[1], t[2]].map(|i| Vec3::from(r.positions[i as usize]));
                assert!((b - a).cross(c - a).y > 0.0, "{a} {b} {c}");
            }
        }
    }

    #[test]
    fn a_road_over_water_is_a_deck_above_the_lake() {
        use crate::network::{Road, RoadClass, RoadNetwork};
        use std::sync::Arc;
        let t = Terrain::default();
        let lake = t.params().lake_level;
        // (-1811, 3062) is in a lake: a highway straight across it.
        let (a, b) = (DVec2::new(-1811.0, 3040.0), DVec2::new(-1811.0, 3090.0));
        assert!(t.height(a.x, a.y) < lake && t.height(b.x, b.y) < lake);
        let net = RoadNetwork::from_roads(vec![Road {
            z: Vec::new(),
            points: vec![a, b],
            class: RoadClass::Highway,
            width: 10.0,
        }]);
        let roads = RoadLayer::new(Arc::new(net));
        let view = ViewSettings::default();
        let key = ChunkKey {
            level: 0,
            x: (a.x / 64.0).floor() as i64,
            y: (a.y / 64.0).floor() as i64,
        };
        let g = LaidGround::new(Arc::new(t.clone()));
        let r =
            build_ribbons(&g, key, &view, &roads, &StreamLayer::default(), &[]).expect("a deck");
        let mut pier_feet = 0;
        for (q, c) in r.positions.iter().zip(&r.colors) {
            let w = key.corner(&view) + DVec2::new(q[0] as f64, -q[2] as f64);
            if *c == PIER_COLOR {
                // Piers reach from under the water up to the deck.
                let z = q[1] as f64;
                assert!(z < lake || z >= lake + DECK_HEIGHT - 1e-3, "pier at {z}");
                pier_feet += (z < lake) as usize;
            } else if t.height(w.x, w.y) < lake {
                assert!(q[1] as f64 >= lake + DECK_HEIGHT, "{} under the deck", q[1]);
            }
        }
        // The chunk holds 32 m of the deck (y 3040 to 3072): one pier, at
        // 12 m; its four faces have two foot vertices each.
        assert_eq!(pier_feet, 8, "pier foot vertices");
    }

    #[test]
    fn bridge_and_tunnel_stretches_are_left_out_and_footways_have_steps() {
        use crate::network::{Road, RoadNetwork};
        use std::sync::Arc;
        let t = Terrain::default();
        let g = LaidGround::new(Arc::new(t.clone()));
        let view = ViewSettings::default();
        let key = ChunkKey {
            level: 0,
            x: 300,
            y: 20,
        };
        let min = key.corner(&view);
        // A street across the chunk whose stretch 30–54 m along (x 20–44 m
        // into the chunk) is a bridge, and a footway beside it.
        let (a, b) = (min + DVec2::new(-10.0, 32.0), min + DVec2::new(80.0, 32.0));
        let up = DVec2::new(0.0, 12.0);
        let net = RoadNetwork::from_roads(vec![
            Road::new(vec![a, b], RoadClass::Street, 6.0),
            Road::new(vec![a + up, b + up], RoadClass::Path, 3.0),
        ]);
        let roads = RoadLayer::new(Arc::new(net));
        let spans = vec![vec![(30.0, 54.0)], vec![]];
        let r = build_ribbons(&g, key, &view, &roads, &StreamLayer::default(), &spans)
            .expect("ribbons");
        let local = |q: &[f32; 3]| DVec2::new(q[0] as f64, -q[2] as f64);
        let street: Vec<DVec2> = (r.positions.iter().zip(&r.colors))
            .filter(|(_, c)| **c == [0.13, 0.13, 0.13, 1.0])
            .map(|(q, _)| local(q))
            .collect();
        assert!(!street.is_empty());
        assert!(
            street
                .iter()
                .all(|p| p.x <= 20.0 + 1e-3 || p.x >= 44.0 - 1e-3),
            "a street vertex on the bridge"
        );
        // The ribbon stops exactly at the bridge's ends.
        for end in [20.0, 44.0] {
            assert!(street.iter().any(|p| (p.x - end).abs() < 1e-3), "{end}");
        }
        // No quad spans the bridge: every street triangle lies on one side.
        for tri in r.indices.chunks(3) {
            let xs = [tri[0], tri[1], tri[2]].map(|i| local(&r.positions[i as usize]).x);
            let c = r.colors[tri[0] as usize];
            if c == [0.13, 0.13, 0.13, 1.0] {
                assert!(xs.iter().all(|&x| x <= 20.001) || xs.iter().all(|&x| x >= 43.999));
            }
        }
        // The footway: pale stone with a dark step every 1.2 m across the
        // chunk (its bands counted by where their triangles lie along it).
        let count = |colour: [f32; 4]| r.colors.iter().filter(|c| **c == colour).count();
        assert!(count(STAIR_COLOR) > 0);
        let mut bands: Vec<i64> = (r.indices.chunks(3))
            .filter(|t| r.colors[t[0] as usize] == STEP_COLOR)
            .map(|t| {
                let x = t
                    .iter()
                    .map(|&i| local(&r.positions[i as usize]).x)
                    .sum::<f64>()
                    / 3.0;
                ((x + 10.0) / STEP_RUN).floor() as i64
            })
            .collect();
        bands.dedup();
        let steps = bands.len();
        assert!((50..=56).contains(&steps), "{steps} steps");
        // A coarser chunk over it draws the footway without steps.
        let coarse = key.parent();
        let r = build_ribbons(&g, coarse, &view, &roads, &StreamLayer::default(), &spans)
            .expect("ribbons");
        let count = |colour: [f32; 4]| r.colors.iter().filter(|c| **c == colour).count();
        assert!(count(STAIR_COLOR) > 0 && count(STEP_COLOR) == 0);
    }
}
