//! Terrain chunks: which ones to show around the focus (a quadtree, fine near
//! and coarse far), building their meshes on worker threads, and swapping
//! them in without holes, cracks (skirts hide level changes) or overlaps.

use super::ReliefAssets;
use super::coords::{FocusState, RenderOrigin, WorldAnchor, to_bevy};
use super::mesh::{SNOW, colored_mesh, kind_color};
use super::settings::{TerrainState, ViewSettings};
use crate::roads::{RoadClass, RoadLayer};
use crate::terrain::Terrain;
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Arc;

/// A chunk's place in the quadtree: level 0 is the finest; a chunk at level
/// `l` is `min_chunk_size · 2^l` metres square with its south-west corner at
/// `(x, y) · size`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
pub struct ChunkKey {
    /// Level of detail, 0 = finest.
    pub level: u8,
    /// Column index at this level.
    pub x: i64,
    /// Row index at this level.
    pub y: i64,
}

/// Coarsest level used.
const MAX_LEVEL: u8 = 20;

impl ChunkKey {
    /// Side length, metres.
    pub fn size(&self, view: &ViewSettings) -> f64 {
        view.min_chunk_size * (1u64 << self.level) as f64
    }

    /// South-west corner, metres.
    pub fn corner(&self, view: &ViewSettings) -> DVec2 {
        DVec2::new(self.x as f64, self.y as f64) * self.size(view)
    }

    /// Whether `(x, y)` lies in this chunk.
    pub fn contains(&self, view: &ViewSettings, p: DVec2) -> bool {
        let (min, s) = (self.corner(view), self.size(view));
        p.x >= min.x && p.y >= min.y && p.x < min.x + s && p.y < min.y + s
    }

    /// Distance from `p` to the chunk's square (0 inside).
    pub fn distance(&self, view: &ViewSettings, p: DVec2) -> f64 {
        let (min, s) = (self.corner(view), self.size(view));
        p.clamp(min, min + DVec2::splat(s)).distance(p)
    }

    /// Vertex spacing, metres.
    pub fn spacing(&self, view: &ViewSettings) -> f64 {
        self.size(view) / view.chunk_quads as f64
    }

    /// Whether the chunk draws road and stream ribbons (fine enough to).
    pub fn draws_ribbons(&self, view: &ViewSettings) -> bool {
        self.spacing(view) <= RIBBON_MAX_SPACING
    }

    /// The chunk one level coarser that contains this one.
    pub fn parent(&self) -> ChunkKey {
        ChunkKey {
            level: self.level + 1,
            x: self.x.div_euclid(2),
            y: self.y.div_euclid(2),
        }
    }

    /// Whether `other` lies inside this chunk (or is it).
    pub fn covers(&self, other: &ChunkKey) -> bool {
        if other.level > self.level {
            return false;
        }
        let shift = self.level - other.level;
        other.x >> shift == self.x && other.y >> shift == self.y
    }

    /// Whether the two chunks overlap (one contains the other).
    pub fn overlaps(&self, other: &ChunkKey) -> bool {
        self.covers(other) || other.covers(self)
    }
}

/// The coarsest level for a view: roots are about half the view distance.
fn top_level(view: &ViewSettings) -> u8 {
    let ratio = view.view_distance / view.min_chunk_size;
    (ratio.log2().ceil() as i64 - 1).clamp(0, MAX_LEVEL as i64) as u8
}

/// The chunks to show around `focus`, nearest first: a quadtree whose chunks
/// split while the focus is closer than `lod_factor` × their size, limited
/// to the view distance. They tile the disc without overlap.
pub fn select_chunks(focus: DVec2, view: &ViewSettings) -> Vec<ChunkKey> {
    let mut out = Vec::new();
    if !focus.is_finite() {
        return out;
    }
    let top = top_level(view);
    let s = view.min_chunk_size * (1u64 << top) as f64;
    let r = view.view_distance;
    let (x0, x1) = (
        ((focus.x - r) / s).floor() as i64,
        ((focus.x + r) / s).floor() as i64,
    );
    let (y0, y1) = (
        ((focus.y - r) / s).floor() as i64,
        ((focus.y + r) / s).floor() as i64,
    );
    let mut stack: Vec<ChunkKey> = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            stack.push(ChunkKey { level: top, x, y });
        }
    }
    while let Some(k) = stack.pop() {
        let d = k.distance(view, focus);
        if d > r {
            continue;
        }
        if k.level > 0 && d < view.lod_factor * k.size(view) {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                stack.push(ChunkKey {
                    level: k.level - 1,
                    x: k.x * 2 + dx,
                    y: k.y * 2 + dy,
                });
            }
        } else {
            out.push(k);
        }
    }
    // Nearest first; on a boundary, the chunk that holds the focus first.
    let rank = |k: &ChunkKey| (k.distance(view, focus), !k.contains(view, focus));
    out.sort_by(|a, b| {
        let (ra, rb) = (rank(a), rank(b));
        ra.0.total_cmp(&rb.0).then(ra.1.cmp(&rb.1)).then(a.cmp(b))
    });
    out
}

/// A chunk's mesh as plain data, built off the main thread. Positions are
/// Bevy-axis offsets from the chunk's south-west corner at height 0.
#[derive(Clone, Debug, Default)]
pub struct ChunkMesh {
    /// Which chunk.
    pub key: ChunkKey,
    /// The settings generation it was built for.
    pub generation: u64,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// Vertex colours (linear RGBA).
    pub colors: Vec<[f32; 4]>,
    /// Triangle indices.
    pub indices: Vec<u32>,
    /// Lowest ground height.
    pub min_height: f64,
    /// Highest ground height.
    pub max_height: f64,
    /// Road ribbons draped on this chunk's own triangles, if any.
    pub roads: Option<Ribbons>,
    /// The road-network version it was built with.
    pub roads_version: u64,
}

/// Triangle-list geometry for the road ribbons of one chunk (same layout as
/// the ground: Bevy-axis offsets from the chunk's south-west corner).
#[derive(Clone, Debug, Default)]
pub struct Ribbons {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Vertex normals.
    pub normals: Vec<[f32; 3]>,
    /// Vertex colours.
    pub colors: Vec<[f32; 4]>,
    /// Triangle indices.
    pub indices: Vec<u32>,
}

/// Road ribbons are drawn on chunks whose vertex spacing is at most this;
/// further out the ground's own road colour stands in for them.
const RIBBON_MAX_SPACING: f64 = 16.0;

impl ChunkMesh {
    /// Builds the mesh: a grid of `chunk_quads` quads per side with a skirt
    /// hanging from every edge (deep enough to hide the step to a coarser
    /// neighbour), normals from the height field, colours by kind and snow.
    pub fn build(terrain: &Terrain, key: ChunkKey, generation: u64, view: &ViewSettings) -> Self {
        let q = view.chunk_quads as usize;
        let n = q + 1;
        let size = key.size(view);
        let step = key.spacing(view);
        let min = key.corner(view);
        let mut h = Vec::new();
        terrain
            .heights_grid(min.x - step, min.y - step, step, n + 2, n + 2, &mut h)
            .expect("chunk grids are small");
        let w = n + 2;
        let height = |i: usize, j: usize| h[(j + 1) * w + i + 1];
        let draws_ribbons = key.draws_ribbons(view);
        let mut m = ChunkMesh {
            key,
            generation,
            min_height: f64::MAX,
            max_height: f64::MIN,
            ..default()
        };
        for j in 0..n {
            for i in 0..n {
                let z = height(i, j);
                m.min_height = m.min_height.min(z);
                m.max_height = m.max_height.max(z);
                let local = DVec3::new(i as f64 * step, j as f64 * step, z);
                m.positions.push(to_bevy(local, DVec2::ZERO).to_array());
                let dzdx = (h[(j + 1) * w + i + 2] - h[(j + 1) * w + i]) / (2.0 * step);
                let dzdy = (h[(j + 2) * w + i + 1] - h[j * w + i + 1]) / (2.0 * step);
                let nrm = DVec3::new(-dzdx, -dzdy, 1.0).normalize();
                m.normals.push([nrm.x as f32, nrm.z as f32, -nrm.y as f32]);
                let (x, y) = (min.x + local.x, min.y + local.y);
                // Where ribbons draw the roads, the ground under them keeps its own colour.
                let t = if draws_ribbons {
                    terrain.terra_under_roads(x, y)
                } else {
                    terrain.terra(x, y)
                };
                let c = if t.snow { SNOW } else { kind_color(t.kind) };
                m.colors.push([c[0], c[1], c[2], 1.0]);
            }
        }
        for j in 0..q as u32 {
            for i in 0..q as u32 {
                let v00 = j * n as u32 + i;
                let (v10, v01, v11) = (v00 + 1, v00 + n as u32, v00 + n as u32 + 1);
                m.indices.extend_from_slice(&[v00, v10, v11, v00, v11, v01]);
            }
        }
        // Skirts: each edge's vertices again, lowered; the quads face outwards.
        let depth = (step * 1.5 + 2.0) as f32;
        let edge = |k: usize| -> Vec<u32> {
            let k = k as u32;
            let n = n as u32;
            match k {
                0 => (0..n).collect(),                                // south, west → east
                1 => (0..n).map(|j| j * n + n - 1).collect(),         // east, south → north
                2 => (0..n).rev().map(|i| (n - 1) * n + i).collect(), // north, east → west
                _ => (0..n).rev().map(|j| j * n).collect(),           // west, north → south
            }
        };
        for side in 0..4 {
            let top = edge(side);
            let base = m.positions.len() as u32;
            for &v in &top {
                let mut p = m.positions[v as usize];
                p[1] -= depth;
                m.positions.push(p);
                m.normals.push(m.normals[v as usize]);
                m.colors.push(m.colors[v as usize]);
            }
            for k in 0..top.len() as u32 - 1 {
                let (a, b) = (top[k as usize], top[k as usize + 1]);
                let (c, d) = (base + k, base + k + 1);
                // Walking the edge anticlockwise, the outside is on the right.
                m.indices.extend_from_slice(&[a, c, d, a, d, b]);
            }
        }
        if draws_ribbons {
            let ground = |p: DVec2| {
                // The height of this chunk's own triangles at p (clamped to the chunk).
                let l = ((p - min) / step).clamp(DVec2::ZERO, DVec2::splat(q as f64 - 1e-9));
                let (i, j) = (l.x.floor() as usize, l.y.floor() as usize);
                let (fx, fy) = (l.x - i as f64, l.y - j as f64);
                let (h00, h10, h01, h11) = (
                    height(i, j),
                    height(i + 1, j),
                    height(i, j + 1),
                    height(i + 1, j + 1),
                );
                if fx >= fy {
                    h00 + fx * (h10 - h00) + fy * (h11 - h10)
                } else {
                    h00 + fy * (h01 - h00) + fx * (h11 - h01)
                }
            };
            let mut r = Ribbons::default();
            if let Some(roads) = terrain.roads() {
                ribbons(&mut r, roads, min, size, step, &ground, |road| {
                    match road.class {
                        RoadClass::Track => [0.32, 0.25, 0.17, 1.0],
                        _ => [0.13, 0.13, 0.13, 1.0],
                    }
                });
            }
            if let Some(water) = terrain.streams() {
                ribbons(&mut r, water, min, size, step, &ground, |_| {
                    [0.08, 0.22, 0.36, 1.0]
                });
            }
            m.roads = (!r.indices.is_empty()).then_some(r);
        }
        m
    }

    /// The Bevy meshes: the ground, and the road ribbons if there are any.
    pub fn into_meshes(self) -> (Mesh, Option<Mesh>) {
        let roads = self
            .roads
            .map(|r| colored_mesh(r.positions, r.normals, r.colors, r.indices));
        (
            colored_mesh(self.positions, self.normals, self.colors, self.indices),
            roads,
        )
    }
}

/// Adds ribbons for every line of `layer` crossing the chunk
/// `[min, min + size)`: the centre lines resampled finely enough to follow
/// the chunk's triangles, each sample given its width across, heights from
/// `ground` plus a small lift, colours from `color`.
fn ribbons(
    r: &mut Ribbons,
    layer: &RoadLayer,
    min: DVec2,
    size: f64,
    step: f64,
    ground: &dyn Fn(DVec2) -> f64,
    color: impl Fn(&crate::roads::Road) -> [f32; 4],
) {
    let max = min + DVec2::splat(size);
    let net = layer.network();
    let lift = 0.15 + 0.03 * step;
    let inside = |p: DVec2| p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y;
    let ds = (step / 2.0).clamp(0.5, 4.0);
    for i in layer.roads_in(min, max) {
        let road = &net.roads[i];
        let color = color(road);
        // Samples along the centre line.
        let mut pts: Vec<DVec2> = Vec::new();
        for w in road.points.windows(2) {
            let n = (w[0].distance(w[1]) / ds).ceil().max(1.0) as usize;
            pts.extend((0..n).map(|k| w[0].lerp(w[1], k as f64 / n as f64)));
        }
        pts.extend(road.points.last());
        // Keep the samples inside, and one either side of each inside run, so
        // that neighbouring chunks' ribbons overlap rather than gap.
        let keep: Vec<bool> = (0..pts.len())
            .map(|k| {
                inside(pts[k])
                    || (k > 0 && inside(pts[k - 1]))
                    || (k + 1 < pts.len() && inside(pts[k + 1]))
            })
            .collect();
        let mut prev: Option<u32> = None;
        for k in 0..pts.len() {
            if !keep[k] {
                prev = None;
                continue;
            }
            let (a, b) = (pts[k.saturating_sub(1)], pts[(k + 1).min(pts.len() - 1)]);
            let dir = (b - a).normalize_or(DVec2::X);
            let side = DVec2::new(dir.y, -dir.x) * (road.width / 2.0);
            let base = r.positions.len() as u32;
            // Three vertices across (left, centre, right), so that the ribbon
            // follows the ground's triangles across its width too.
            for q in [pts[k] - side, pts[k], pts[k] + side] {
                let z = ground(q) + lift;
                r.positions
                    .push(to_bevy(DVec3::new(q.x - min.x, q.y - min.y, z), DVec2::ZERO).to_array());
                r.normals.push([0.0, 1.0, 0.0]);
                r.colors.push(color);
            }
            if let Some(p) = prev {
                // Counter-clockwise seen from above, left to right.
                for d in 0..2 {
                    let (a, b) = (p + d, base + d);
                    r.indices.extend_from_slice(&[a, a + 1, b + 1, a, b + 1, b]);
                }
            }
            prev = Some(base);
        }
    }
}

/// Marks every terrain chunk entity.
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct TerrainChunk {
    /// Which chunk.
    pub key: ChunkKey,
    /// The settings generation its mesh was built for.
    pub generation: u64,
}

/// Marks the water surface of a chunk (a child of the chunk entity).
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct ChunkWater;

/// Marks the road ribbons of a chunk (a child of the chunk entity).
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct ChunkRoads;

struct Present {
    entity: Entity,
    generation: u64,
    roads_version: u64,
    water: Option<Entity>,
    road: Option<Entity>,
    visible: bool,
}

/// The chunk bookkeeping: what is wanted, shown and being built.
#[derive(Resource, Default)]
pub struct ChunkManager {
    desired: Vec<ChunkKey>,
    desired_set: HashSet<ChunkKey>,
    present: HashMap<ChunkKey, Present>,
    pending: HashMap<ChunkKey, Task<ChunkMesh>>,
    ready: VecDeque<ChunkMesh>,
    selected_at: Option<(DVec2, u64, ViewSettings)>,
    /// Something changed since the last retire pass.
    dirty: bool,
    /// Chunk meshes built since start.
    pub generated: u64,
}

impl ChunkManager {
    /// Chunks wanted around the focus.
    pub fn desired(&self) -> &[ChunkKey] {
        &self.desired
    }

    /// Chunk entities alive (shown or waiting to be replaced).
    pub fn present_count(&self) -> usize {
        self.present.len()
    }

    /// Tasks running or results waiting for upload.
    pub fn pending_count(&self) -> usize {
        self.pending.len() + self.ready.len()
    }

    /// Whether every wanted chunk is shown, current and nothing is pending.
    pub fn complete(&self, generation: u64) -> bool {
        self.pending_count() == 0
            && !self.desired.is_empty()
            && self.desired.iter().all(|k| {
                self.present
                    .get(k)
                    .is_some_and(|p| p.generation == generation && p.visible)
            })
    }

    /// Whether a shown chunk covers the point (ground under the focus).
    pub fn ground_at(&self, view: &ViewSettings, p: DVec2) -> bool {
        self.present
            .iter()
            .any(|(k, v)| v.visible && k.contains(view, p))
    }
}

/// Chooses the chunks around the focus and starts building missing ones.
pub(crate) fn request_chunks(
    focus: Res<FocusState>,
    state: Res<TerrainState>,
    mut chunks: ResMut<ChunkManager>,
) {
    let Some(f) = focus.world else { return };
    let view = &state.view;
    let f2 = f.truncate();
    let reselect = match &chunks.selected_at {
        None => true,
        Some((at, generation, v)) => {
            at.distance(f2) > view.min_chunk_size / 8.0
                || *generation != state.generation
                || v != view
        }
    };
    if reselect {
        let desired = select_chunks(f2, view);
        chunks.desired_set = desired.iter().copied().collect();
        chunks.desired = desired;
        chunks.selected_at = Some((f2, state.generation, view.clone()));
        chunks.dirty = true;
        // Tasks for chunks no longer wanted are dropped (which cancels them).
        let ChunkManager {
            pending,
            desired_set,
            ready,
            ..
        } = &mut *chunks;
        pending.retain(|k, _| desired_set.contains(k));
        ready.retain(|m| desired_set.contains(&m.key));
    }
    let pool = AsyncComputeTaskPool::get();
    let ChunkManager {
        desired,
        present,
        pending,
        ready,
        ..
    } = &mut *chunks;
    for &key in desired.iter() {
        if pending.len() >= view.max_tasks {
            break;
        }
        // Current: this generation, and (if it draws ribbons) these roads.
        let ribbons = key.draws_ribbons(view);
        let fresh =
            |g: u64, r: u64| g == state.generation && (!ribbons || r == state.roads_version);
        let current = present
            .get(&key)
            .is_some_and(|p| fresh(p.generation, p.roads_version))
            || ready
                .iter()
                .any(|m| m.key == key && fresh(m.generation, m.roads_version));
        if current || pending.contains_key(&key) {
            continue;
        }
        let terrain = Arc::clone(&state.terrain);
        let (generation, roads_version, view) =
            (state.generation, state.roads_version, view.clone());
        pending.insert(
            key,
            pool.spawn(async move {
                let mut m = ChunkMesh::build(&terrain, key, generation, &view);
                m.roads_version = roads_version;
                m
            }),
        );
    }
}

/// Collects finished meshes and uploads a few per frame (nearest first).
pub(crate) fn receive_chunks(
    mut commands: Commands,
    state: Res<TerrainState>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut chunks: ResMut<ChunkManager>,
    mut existing: Query<(&mut Mesh3d, &mut TerrainChunk)>,
) {
    let ChunkManager {
        pending,
        ready,
        desired,
        ..
    } = &mut *chunks;
    ready.extend(super::take_finished(pending));
    if ready.is_empty() {
        return;
    }
    // Upload in the order of the desired list (nearest first).
    let rank: HashMap<ChunkKey, usize> = desired.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    ready
        .make_contiguous()
        .sort_by_key(|m| rank.get(&m.key).copied().unwrap_or(usize::MAX));
    let view = state.view.clone();
    let lake = state.terrain.params().lake_level;
    for _ in 0..view.chunk_uploads_per_frame {
        let Some(data) = chunks.ready.pop_front() else {
            break;
        };
        if data.generation != state.generation || !chunks.desired_set.contains(&data.key) {
            continue;
        }
        chunks.generated += 1;
        chunks.dirty = true;
        let (key, generation, roads_version) = (data.key, data.generation, data.roads_version);
        let wet = view.water && data.min_height < lake;
        let (ground, road) = data.into_meshes();
        let handle = meshes.add(ground);
        let road = road.map(|m| meshes.add(m));
        let size = key.size(&view) as f32;
        let tag = TerrainChunk { key, generation };
        let entity = match chunks.present.get(&key) {
            Some(p) => {
                if let Ok((mut m, mut t)) = existing.get_mut(p.entity) {
                    m.0 = handle;
                    *t = tag;
                }
                p.entity
            }
            None => {
                let min = key.corner(&view);
                let anchor = WorldAnchor(DVec3::new(min.x, min.y, 0.0));
                let mut e = commands.spawn((
                    Name::new(format!("chunk L{} ({}, {})", key.level, key.x, key.y)),
                    tag,
                    anchor,
                    Transform::from_translation(origin.to_render(anchor.0)),
                    Visibility::Hidden,
                    Mesh3d(handle),
                ));
                if let Some(mat) = &assets.ground {
                    e.insert(MeshMaterial3d(mat.clone()));
                }
                let entity = e.id();
                let p = Present {
                    entity,
                    generation,
                    roads_version,
                    water: None,
                    road: None,
                    visible: false,
                };
                chunks.present.insert(key, p);
                entity
            }
        };
        let p = chunks.present.get_mut(&key).expect("just ensured");
        p.generation = generation;
        p.roads_version = roads_version;
        // The water surface and the road ribbons are children of the chunk.
        let water = wet.then(|| {
            let tf = Transform::from_xyz(size / 2.0, lake as f32, -size / 2.0)
                .with_scale(Vec3::new(size, 1.0, size));
            (
                Name::new("water"),
                ChunkWater,
                tf,
                Mesh3d(assets.water_quad.clone()),
                assets.water.clone(),
            )
        });
        replace_child(&mut commands, entity, &mut p.water, water);
        let ribbons = road.map(|h| {
            (
                Name::new("roads"),
                ChunkRoads,
                Transform::IDENTITY,
                Mesh3d(h),
                assets.road.clone(),
            )
        });
        replace_child(&mut commands, entity, &mut p.road, ribbons);
    }
}

/// Despawns a chunk's old child in `slot` and spawns the new one, if any
/// (with its material when rendering).
fn replace_child<B: Bundle>(
    commands: &mut Commands,
    parent: Entity,
    slot: &mut Option<Entity>,
    child: Option<(Name, B, Transform, Mesh3d, Option<Handle<StandardMaterial>>)>,
) {
    if let Some(old) = slot.take() {
        commands.entity(old).despawn();
    }
    if let Some((name, marker, tf, mesh, material)) = child {
        let mut e = commands.spawn((
            name,
            marker,
            tf,
            Visibility::Inherited,
            mesh,
            ChildOf(parent),
        ));
        if let Some(m) = material {
            e.insert(MeshMaterial3d(m));
        }
        *slot = Some(e.id());
    }
}

/// Shows wanted chunks and retires unwanted ones once the ground they cover
/// is fully shown by wanted chunks, so the switch happens in one frame: no
/// holes, no two levels drawn over each other.
pub(crate) fn retire_chunks(
    mut commands: Commands,
    mut chunks: ResMut<ChunkManager>,
    mut vis: Query<&mut Visibility, With<TerrainChunk>>,
) {
    if !chunks.dirty {
        return;
    }
    chunks.dirty = false;
    let ChunkManager {
        desired,
        desired_set,
        present,
        ..
    } = &mut *chunks;
    let ready: HashSet<ChunkKey> = desired
        .iter()
        .copied()
        .filter(|k| present.contains_key(k))
        .collect();
    // Unwanted chunks still needed because some wanted chunk over them is missing.
    let mut kept: Vec<ChunkKey> = Vec::new();
    let mut gone: Vec<ChunkKey> = Vec::new();
    for (&k, _) in present.iter().filter(|(k, _)| !desired_set.contains(k)) {
        let needed = desired.iter().any(|d| d.overlaps(&k) && !ready.contains(d));
        if needed { kept.push(k) } else { gone.push(k) }
    }
    for k in gone {
        if let Some(p) = present.remove(&k) {
            commands.entity(p.entity).despawn();
        }
    }
    for (k, p) in present.iter_mut() {
        let show = !kept.iter().any(|s| s != k && s.overlaps(k));
        if show != p.visible {
            p.visible = show;
            if let Ok(mut v) = vis.get_mut(p.entity) {
                *v = if show {
                    Visibility::Inherited
                } else {
                    Visibility::Hidden
                };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(keys: &[ChunkKey], view: &ViewSettings) -> f64 {
        keys.iter().map(|k| k.size(view).powi(2)).sum()
    }

    #[test]
    fn selection_tiles_the_view_without_overlap_and_is_fine_near_the_focus() {
        let view = ViewSettings::default();
        for focus in [
            DVec2::new(19000.0, 1260.0),
            DVec2::new(-3.5, 7.25),
            DVec2::new(1.0e9, -2.0e8),
        ] {
            let keys = select_chunks(focus, &view);
            assert!(keys.len() > 50 && keys.len() < 400, "{}", keys.len());
            for (i, a) in keys.iter().enumerate() {
                for b in &keys[i + 1..] {
                    assert!(!a.overlaps(b), "{a:?} {b:?}");
                }
            }
            // The finest level is under the focus, and it comes first.
            assert_eq!(keys[0].level, 0);
            assert!(keys[0].contains(&view, focus), "{focus} {:?}", &keys[..3]);
            // Everything within the view distance is covered.
            let r = view.view_distance * 0.99;
            for i in 0..64 {
                let a = i as f64 / 64.0 * std::f64::consts::TAU;
                for d in [0.0, 100.0, 1000.0, r] {
                    let p = focus + DVec2::new(a.cos(), a.sin()) * d;
                    assert_eq!(
                        keys.iter().filter(|k| k.contains(&view, p)).count(),
                        1,
                        "{p}"
                    );
                }
            }
            assert!(area(&keys, &view) >= std::f64::consts::PI * r * r);
            // Sizes grow with distance.
            for k in &keys {
                assert!(
                    k.level == 0 || k.distance(&view, focus) >= view.lod_factor * k.size(&view)
                );
            }
        }
        assert!(select_chunks(DVec2::splat(f64::NAN), &view).is_empty());
    }

    #[test]
    fn keys_nest() {
        let k = ChunkKey {
            level: 0,
            x: -3,
            y: 5,
        };
        assert_eq!(
            k.parent(),
            ChunkKey {
                level: 1,
                x: -2,
                y: 2
            }
        );
        assert!(k.parent().parent().covers(&k));
        assert!(!k.covers(&k.parent()));
        assert!(k.overlaps(&k.parent()));
    }

    #[test]
    fn chunk_mesh_matches_heights_and_has_skirts() {
        let t = Terrain::default();
        let view = ViewSettings {
            chunk_quads: 8,
            ..Default::default()
        };
        let key = ChunkKey {
            level: 1,
            x: 148,
            y: 9,
        };
        let m = ChunkMesh::build(&t, key, 3, &view);
        let n = 9;
        assert_eq!(m.positions.len(), n * n + 4 * n);
        assert_eq!(m.indices.len(), 8 * 8 * 6 + 4 * 8 * 6);
        let min = key.corner(&view);
        let step = key.size(&view) / 8.0;
        for j in 0..n {
            for i in 0..n {
                let p = m.positions[j * n + i];
                let h = t.height(min.x + i as f64 * step, min.y + j as f64 * step);
                assert_eq!(
                    p,
                    [
                        (i as f64 * step) as f32,
                        h as f32,
                        -(j as f64 * step) as f32
                    ]
                );
            }
        }
        // Every triangle faces up or outwards, never into the chunk.
        let centre = Vec3::new(64.0, 0.0, -64.0);
        for tri in m.indices.chunks(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| Vec3::from(m.positions[i as usize]));
            let nrm = (b - a).cross(c - a);
            let mid = (a + b + c) / 3.0;
            let outward = Vec3::new(mid.x - centre.x, 0.0, mid.z - centre.z);
            assert!(
                nrm.y > 0.0 || (nrm.y.abs() < 1e-3 && nrm.dot(outward) > 0.0),
                "{tri:?} {nrm}"
            );
        }
        assert!(m.min_height <= m.max_height);
        assert_eq!(m.generation, 3);
    }

    #[test]
    fn ribbons_drape_on_fine_chunks_and_face_up() {
        use crate::roads::{ContourParams, ContourRoads, RoadLayer};
        let mut t = Terrain::default();
        let (min, max) = (DVec2::new(18600.0, 960.0), DVec2::new(19400.0, 1560.0));
        let net = ContourRoads::new(ContourParams::default())
            .unwrap()
            .generate(&t, min, max);
        let p = net.roads[0].points[2];
        t.set_roads(Some(Arc::new(RoadLayer::new(Arc::new(net)))));
        let view = ViewSettings::default();
        let key = ChunkKey {
            level: 0,
            x: (p.x / 64.0).floor() as i64,
            y: (p.y / 64.0).floor() as i64,
        };
        let m = ChunkMesh::build(&t, key, 0, &view);
        let r = m.roads.expect("a road crosses this chunk");
        assert_eq!(r.positions.len() % 3, 0);
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
        // Coarse chunks draw no ribbons.
        let coarse = ChunkMesh::build(
            &t,
            ChunkKey {
                level: 5,
                x: key.x >> 5,
                y: key.y >> 5,
            },
            0,
            &view,
        );
        assert!(coarse.roads.is_none());
    }
}
