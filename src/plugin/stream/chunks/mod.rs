//! Terrain chunks: which ones to show around the focus (`select`: a
//! quadtree, fine near and coarse far), building their meshes on worker
//! threads (`mesh`), swapping them in without holes, cracks (skirts hide
//! level changes) or overlaps, and the road ribbons over them (`ribbons`),
//! rebuilt only where the roads over a chunk changed.
//!
//! Chunks mesh the built ground. When a new region is laid, a shown chunk is
//! meshed again only where what shapes its ground changed (its
//! [`LaidRoads::ground_print`]: 0 wherever nothing built reaches it, so
//! most chunks never re-mesh). The wanted chunks' prints are taken on a
//! worker after each laying of roads; a changed chunk's new mesh is built on
//! a worker too and swapped in whole, the old one shown until then.

mod check;
mod crease;
mod mesh;
mod refresh;
mod request;
mod ribbons;
mod select;

pub use mesh::{ChunkGrid, ChunkMesh};
pub(crate) use refresh::update_ribbons;
pub(crate) use request::request_chunks;
pub use ribbons::{build_ribbons, build_ribbons_on};
pub use select::{ChunkKey, select_chunks};

use super::coords::{FocusState, RenderOrigin, WorldAnchor};
use super::mesh::MeshLists;
use super::roads::LaidRoads;
use super::settings::{TerrainState, ViewSettings};
use super::structures::{add_wall_parts, walls_in};
use super::tasks::{Job, ReliefWorkers};
use super::upload::UploadBudget;
use crate::plugin::ReliefAssets;
use bevy::math::{DVec2, DVec3};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::prelude::*;
use check::PrintCheck;
use std::collections::VecDeque;

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
    /// The laid-roads version and ground print its mesh was built for.
    ground: (u64, u64),
    water: Option<Entity>,
    road: Option<Entity>,
    /// The laid-roads version its ribbons were last checked against, and the
    /// fingerprint of the roads they show.
    ribbons: Option<(u64, u64)>,
    visible: bool,
}

/// A finished ribbon task: the chunk, the generation and the laid-roads
/// fingerprint it was built for, and the ribbons.
type RibbonResult = (ChunkKey, u64, u64, Option<MeshLists>);

/// A shown chunk's ground print once its mesh is out of date whatever the
/// ground (no print is this: prints are hashes, and 0 where nothing is built).
const STALE: u64 = u64::MAX;

/// Whether chunks meshed with `a` are as meshed with `b` (what a chunk's mesh
/// is built from, besides its key and the ground).
fn meshes_alike(a: &ViewSettings, b: &ViewSettings) -> bool {
    (a.chunk_quads, a.min_chunk_size, a.built_filter)
        == (b.chunk_quads, b.min_chunk_size, b.built_filter)
}

/// A shown chunk's roads fingerprint and ground print, as a ribbon check
/// found them.
type RibbonPrints = (ChunkKey, u64, u64);

/// A chunk mesh being built: for which generation, laid-roads version and
/// ground print (`None`: the job takes it, from that version's roads).
struct Pending {
    generation: u64,
    version: u64,
    print: Option<u64>,
    job: Job<ChunkMesh>,
}

impl Pending {
    /// The ground print this job builds on, as a check of the roads of
    /// `version` that found `found` sees it: its own, or, for a job taking
    /// its print from those very roads, the same as the check's; for one
    /// taking it from older roads, none a check finds ([`STALE`]).
    fn print_as_found(&self, version: u64, found: u64) -> u64 {
        (self.print).unwrap_or(if self.version == version {
            found
        } else {
            STALE
        })
    }
}

/// The chunk bookkeeping: what is wanted, shown and being built.
#[derive(Resource, Default)]
pub struct ChunkManager {
    desired: Vec<ChunkKey>,
    desired_set: HashSet<ChunkKey>,
    present: HashMap<ChunkKey, Present>,
    pending: HashMap<ChunkKey, Pending>,
    /// The wanted chunks' ground prints, checked after each laying of roads
    /// (those found out of date are meshed again as tasks allow).
    ground_check: PrintCheck<(ChunkKey, u64)>,
    ready: VecDeque<ChunkMesh>,
    ribbon_tasks: std::collections::HashMap<ChunkKey, Job<RibbonResult>>,
    /// The shown chunks' roads fingerprints, checked after each laying of
    /// roads (those found changed get new ribbons as tasks allow).
    ribbon_check: PrintCheck<RibbonPrints>,
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
        self.pending.len() + self.ready.len() + self.ribbon_tasks.len()
    }

    /// Whether every wanted chunk is shown, current and nothing is pending.
    pub fn complete(&self, generation: u64) -> bool {
        self.pending_count() == 0
            && self.ground_check.settled()
            && self.ribbon_check.settled()
            && !self.desired.is_empty()
            && self.desired.iter().all(|k| {
                self.present
                    .get(k)
                    .is_some_and(|p| p.generation == generation && p.visible)
            })
    }

    /// A chunk mesh built on the roads of version `built` arrived, `laid`
    /// the newest. Built on older roads, its ground is checked again, unless
    /// a check for the newest has begun: the chunk was then wanted and being
    /// built, so that check compares it.
    fn arrived_on(&mut self, built: u64, laid: u64) {
        let check = &mut self.ground_check;
        check.unchecked |= built != laid && check.began_for != laid;
    }

    /// Whether a shown chunk covers the point (ground under the focus).
    pub fn ground_at(&self, view: &ViewSettings, p: DVec2) -> bool {
        self.present
            .iter()
            .any(|(k, v)| v.visible && k.contains(view, p))
    }
}

/// Collects finished meshes and uploads a few per frame (nearest first,
/// `chunk_uploads_per_frame` at most), counted in the frame's
/// [`UploadBudget`] but never held back by it: a missing chunk is a hole
/// (and near a city, where ribbons are heavy, two chunks may spend it).
pub(crate) fn receive_chunks(
    mut commands: Commands,
    state: Res<TerrainState>,
    laid: Res<LaidRoads>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut budget: ResMut<UploadBudget>,
    mut chunks: ResMut<ChunkManager>,
    mut existing: Query<(&mut Mesh3d, &mut TerrainChunk)>,
) {
    let ChunkManager {
        pending,
        ready,
        desired,
        ..
    } = &mut *chunks;
    pending.retain(|_, p| match p.job.take() {
        Some(m) => {
            ready.push_back(m);
            false
        }
        None => true,
    });
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
        let Some(mut data) = chunks.ready.pop_front() else {
            break;
        };
        if data.generation != state.generation || !chunks.desired_set.contains(&data.key) {
            continue;
        }
        chunks.generated += 1;
        chunks.dirty = true;
        chunks.arrived_on(data.ground.0, laid.version);
        let (key, generation, ground) = (data.key, data.generation, data.ground);
        let wet = data.wet.filter(|_| view.water);
        let ribbons = data.ribbons.take();
        let handle = budget.upload_now(&mut meshes, data.into_mesh());
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
                    ground,
                    water: None,
                    road: None,
                    ribbons: None,
                    visible: false,
                };
                chunks.present.insert(key, p);
                entity
            }
        };
        chunks.ribbon_check.unchecked = true;
        let p = chunks.present.get_mut(&key).expect("just ensured");
        p.generation = generation;
        p.ground = ground;
        // New ground: the ribbons built with it, or draped anew.
        p.ribbons = None;
        if let Some((version, print, r)) = ribbons {
            p.ribbons = Some((version, print));
            let child = r.map(|r| roads_child(&mut meshes, &mut budget, &assets, r));
            replace_child(&mut commands, entity, &mut p.road, child);
        }
        // The water surface is a child of the chunk.
        // Over the chunk's wet part only: the GPU draws no water under the
        // rest of its ground.
        let water = wet.map(|[x0, y0, x1, y1]| {
            let (mid, span) = (
                DVec2::new(x0 + x1, y0 + y1) / 2.0,
                DVec2::new(x1 - x0, y1 - y0),
            );
            let tf = Transform::from_xyz(mid.x as f32, lake as f32, -mid.y as f32)
                .with_scale(Vec3::new(span.x as f32, 1.0, span.y as f32));
            (
                Name::new("water"),
                ChunkWater,
                tf,
                Mesh3d(assets.water_quad.clone()),
                assets.water.clone(),
            )
        });
        replace_child(&mut commands, entity, &mut p.water, water);
    }
}

/// A chunk's road ribbons as its child's components.
fn roads_child(
    meshes: &mut Assets<Mesh>,
    budget: &mut UploadBudget,
    assets: &ReliefAssets,
    ribbons: MeshLists,
) -> (
    Name,
    ChunkRoads,
    Transform,
    Mesh3d,
    Option<Handle<StandardMaterial>>,
) {
    let mesh = Mesh3d(budget.upload_now(meshes, ribbons.into_mesh()));
    let road = assets.road.clone();
    (
        Name::new("roads"),
        ChunkRoads,
        Transform::IDENTITY,
        mesh,
        road,
    )
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

/// Whether a present chunk is drawn, given the `kept` ones (unwanted but
/// still covering ground a wanted chunk has not yet come for). A wanted
/// chunk waits while a kept one still covers part of its ground; a kept
/// chunk gives way only to a coarser kept one, which covers it whole: so
/// overlapping kept chunks never hide each other and leave a hole (as they
/// did at 1,000 m/s), and no two drawn chunks overlap.
fn drawn(k: &ChunkKey, kept: &[ChunkKey]) -> bool {
    let is_kept = kept.contains(k);
    !(kept.iter()).any(|s| s != k && s.overlaps(k) && (!is_kept || s.level > k.level))
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
    for (&k, _) in present.iter().filter(|(k, _)| !desired_set.contains(*k)) {
        let needed = desired.iter().any(|d| d.overlaps(&k) && !ready.contains(d));
        if needed { kept.push(k) } else { gone.push(k) }
    }
    for k in gone {
        if let Some(p) = present.remove(&k) {
            commands.entity(p.entity).despawn();
        }
    }
    for (k, p) in present.iter_mut() {
        let show = drawn(k, &kept);
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
mod tests;
