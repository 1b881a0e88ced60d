//! Things on the ground near the focus: trees, point features and town
//! buildings within `object_radius`. (Streams are drawn with the roads, as
//! ribbons draped on the chunks.)
//!
//! The ground near the focus is divided into 128 m cells. Each cell's
//! contents are computed on a worker thread, then spawned at most
//! `object_spawns_per_frame` entities a frame as children of one anchored
//! cell entity (so an origin shift moves one transform per cell). Meshes and
//! materials are shared per kind, so Bevy batches them. Cells leave (twice
//! that budget a frame) when the focus is a cell further away than the
//! radius, so the entity count stays bounded. With roads on (the roads
//! plugin and a road radius), a cell waits until the roads over it are
//! laid, so nothing stands on a road; a cell is keyed on the roads it stands
//! on (their fingerprint), so when roads are re-laid, exactly the cells
//! whose roads changed are rebuilt. The trees of cells [`FAR_TREES`] or
//! more from the focus, across the ground and down from a focus above them,
//! are one mesh a cell of their far shapes (see [`trees`]).

use super::coords::{FocusState, RenderOrigin, WorldAnchor, to_bevy};
use super::roads::{LaidRoads, RoadManager};
use super::settings::TerrainState;
#[cfg(doc)]
use super::shapes::FAR_TREES;
use super::tasks::{Job, ReliefWorkers};
use super::upload::UploadBudget;
use crate::num::hash_unit;
use crate::plugin::ReliefAssets;
use crate::terrain::{Feature, LaidGround};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use std::collections::{BTreeSet, HashMap, VecDeque};

mod trees;
pub use trees::FarTrees;
pub(crate) use trees::tree_detail;
use trees::{CellTrees, far_trees};

/// Side of an object cell, metres.
pub const OBJECT_CELL: f64 = 128.0;
/// One object cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
pub struct CellKey {
    /// Column, `x / 128` rounded down.
    pub x: i64,
    /// Row, `y / 128` rounded down.
    pub y: i64,
}

impl CellKey {
    /// South-west corner, metres.
    pub fn corner(&self) -> DVec2 {
        DVec2::new(self.x as f64, self.y as f64) * OBJECT_CELL
    }

    /// The anchor of the cell's entity: its corner at height 0.
    fn base(&self) -> DVec3 {
        self.corner().extend(0.0)
    }

    fn distance(&self, p: DVec2) -> f64 {
        let c = self.corner();
        p.clamp(c, c + DVec2::splat(OBJECT_CELL)).distance(p)
    }

    /// How far the focus `f` is from what stands in the cell, whose highest
    /// ground contact is at `top`: across the ground and, from above, down
    /// to it (trees under a camera 300 m up are as far as trees 300 m off).
    pub fn view_distance(&self, f: DVec3, top: f64) -> f64 {
        let across = self.distance(f.truncate());
        let down = if top.is_finite() {
            (f.z - top).max(0.0)
        } else {
            0.0
        };
        across.hypot(down)
    }
}

/// What an object entity shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Reflect)]
pub enum ObjectKind {
    /// A tree of a variety (0..4).
    Tree(u8),
    /// A point feature.
    Feature(Feature),
    /// A town building with its variant.
    Building(u32),
}

/// Marks every object entity spawned by the plugin.
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct ReliefObject {
    /// What it is.
    pub kind: ObjectKind,
    /// Where it stands, in core coordinates (ground contact point).
    pub world: DVec3,
}

/// Marks an object cell's entity (the parent of its objects).
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct ObjectCell(pub CellKey);

/// One thing to spawn.
#[derive(Clone, Debug)]
pub struct Instance {
    /// What it is.
    pub kind: ObjectKind,
    /// Ground contact point, core coordinates.
    pub world: DVec3,
    /// Rotation about the vertical, radians.
    pub yaw: f32,
    /// Scale in Bevy axes.
    pub scale: Vec3,
}

impl Instance {
    /// Its transform relative to its cell's anchor `base`.
    fn transform(&self, base: DVec3) -> Transform {
        Transform::from_translation(to_bevy(self.world - base, DVec2::ZERO))
            .with_rotation(Quat::from_rotation_y(self.yaw))
            .with_scale(self.scale)
    }
}

/// A cell's contents as computed on a worker thread.
pub struct CellContents {
    key: CellKey,
    generation: u64,
    /// The fingerprint of the roads it was placed around, and their
    /// laid-roads version.
    print: u64,
    version: u64,
    instances: Vec<Instance>,
    /// Its trees' far mesh.
    far_mesh: Option<Mesh>,
}

/// The highest ground contact of a cell's objects (−∞ with none).
fn top_of(instances: &[Instance]) -> f64 {
    (instances.iter()).fold(f64::NEG_INFINITY, |t, i| t.max(i.world.z))
}

/// Everything in one cell of the laid ground, in a canonical order.
pub fn cell_contents(ground: &LaidGround, key: CellKey) -> Vec<Instance> {
    let terrain = ground.terrain();
    let min = key.corner();
    let max = min + DVec2::splat(OBJECT_CELL);
    let mut out = Vec::new();
    let yaw = |p: DVec2, salt: u64| {
        (hash_unit(p.x.to_bits() as i64, p.y.to_bits() as i64, salt) * std::f64::consts::TAU) as f32
    };
    for t in ground.trees_in(min, max) {
        out.push(Instance {
            kind: ObjectKind::Tree(t.variety),
            world: DVec3::new(t.pos.x, t.pos.y, t.z),
            yaw: yaw(t.pos, 1),
            scale: Vec3::splat(t.scale as f32),
        });
    }
    let (x0, y0) = (min.x as i64, min.y as i64);
    for y in y0..y0 + OBJECT_CELL as i64 {
        for x in x0..x0 + OBJECT_CELL as i64 {
            // The cheap generated test first; terra confirms (lakes, towns, placed).
            let placed = terrain.placed_at(x, y).is_some();
            if !placed && terrain.generated_feature(x, y).is_none() {
                continue;
            }
            let (fx, fy) = (x as f64, y as f64);
            if let Some(f) = ground.terra(fx, fy).feature {
                let p = DVec2::new(fx, fy);
                out.push(Instance {
                    kind: ObjectKind::Feature(f),
                    world: DVec3::new(fx, fy, ground.height(fx, fy)),
                    yaw: yaw(p, 2),
                    scale: Vec3::ONE,
                });
            }
        }
    }
    for b in ground.buildings_in(min, max) {
        out.push(Instance {
            kind: ObjectKind::Building(b.variant),
            world: DVec3::new(b.centre.x, b.centre.y, b.base_z - 0.5),
            yaw: 0.0,
            scale: Vec3::new(12.0, (b.roof_z - b.base_z + 0.5) as f32, 12.0),
        });
    }
    out
}

/// A cell whose objects are spawned (or being spawned).
struct LiveCell {
    /// The cell's parent entity.
    entity: Entity,
    /// The roads fingerprint its objects were placed around.
    print: u64,
    /// The highest ground contact of its objects.
    top: f64,
    /// Its features and buildings spawned (its trees are counted in
    /// `trees`).
    spawned: usize,
    /// Its trees.
    trees: CellTrees,
}

/// Objects waiting to be spawned under `parent`, an entity of cell `key`.
struct Spawn {
    key: CellKey,
    parent: Entity,
    list: Vec<Instance>,
}

/// Object cell bookkeeping.
#[derive(Resource, Default)]
pub struct ObjectManager {
    /// Cells alive.
    cells: HashMap<CellKey, LiveCell>,
    /// Where the trees' detail was last chosen.
    detail_at: Option<DVec3>,
    pending: HashMap<CellKey, Job<CellContents>>,
    /// The check of the live cells against newly laid roads, on a worker:
    /// the cells whose roads changed, with the prints they had.
    recheck: Option<Job<Vec<(CellKey, u64)>>>,
    /// Objects waiting to be spawned, by cell.
    spawning: VecDeque<Spawn>,
    /// Cells whose trees are changing over between near and far.
    unsettled: BTreeSet<CellKey>,
    generation: u64,
    /// The laid-roads version the cells were last checked against.
    roads_version: u64,
    /// Cells alive whose roads changed, waiting to be placed again.
    stale: BTreeSet<CellKey>,
    /// Object entities alive (near trees, features, buildings).
    pub objects: usize,
    /// Trees shown in far meshes ([`FarTrees`]).
    pub far_trees: usize,
}

impl ObjectManager {
    /// Despawns cell `key` with everything under it; the entities it had.
    fn remove_cell(&mut self, key: CellKey, commands: &mut Commands) -> usize {
        let Some(cell) = self.cells.remove(&key) else {
            return 0;
        };
        commands.entity(cell.entity).despawn();
        self.spawning.retain(|s| s.key != key);
        self.unsettled.remove(&key);
        let n = cell.spawned + cell.trees.near_spawned;
        self.objects -= n;
        match cell.trees.mesh {
            Some(trees::FarMesh::Shown { visible, .. }) => {
                self.far_trees -= visible as usize * cell.trees.list.len();
                n + 1
            }
            _ => n,
        }
    }

    /// Cells alive.
    pub fn cell_count(&self) -> usize {
        self.cells.len()
    }

    /// Cells being computed or spawned (and the check against newly laid
    /// roads, while it runs).
    pub fn pending_count(&self) -> usize {
        self.pending.len()
            + self.spawning.len()
            + self.unsettled.len()
            + self.stale.len()
            + self.recheck.is_some() as usize
    }
}

fn wanted(key: &CellKey, focus: DVec2, state: &TerrainState, slack: f64) -> bool {
    let r = state.view.object_radius;
    r > 0.0 && key.distance(focus) <= r + slack
}

/// Whether a cell's objects can be placed now: while roads are being laid
/// (`roads_on`: a road plugin and a road radius), only once the roads over
/// the whole cell are (so that nothing stands on a road).
fn roads_known(key: &CellKey, roads_on: bool, laid: &LaidRoads) -> bool {
    let (lo, hi) = cell_box(key, laid);
    !roads_on || laid.covers(lo, hi)
}

/// The fingerprint of the roads a cell's objects are placed around (over
/// its [`cell_box`]).
fn roads_print(key: &CellKey, laid: &LaidRoads) -> u64 {
    let (lo, hi) = cell_box(key, laid);
    laid.fingerprint(lo, hi)
}

/// A cell's box, grown by the widest road's half width (whatever stands in
/// the cell may be kept off a road just outside it) or the earthworks'
/// reach (whatever stands in it stands on the ground they shape).
fn cell_box(key: &CellKey, laid: &LaidRoads) -> (DVec2, DVec2) {
    let pad = laid.reach().max(60.0);
    (
        key.corner() - pad,
        key.corner() + DVec2::splat(OBJECT_CELL + pad),
    )
}

/// Starts cell tasks near the focus; despawns cells that fell out of range.
pub(crate) fn request_cells(
    mut commands: Commands,
    focus: Res<FocusState>,
    state: Res<TerrainState>,
    laid: Res<LaidRoads>,
    workers: Res<ReliefWorkers>,
    road_plugin: Option<Res<RoadManager>>,
    mut objects: ResMut<ObjectManager>,
) {
    let Some(f) = focus.world else { return };
    let f = f.truncate();
    // Without the roads plugin no roads ever come: objects do not wait.
    let roads_on = road_plugin.is_some() && state.view.road_radius > 0.0;
    let om = &mut *objects;
    if om.generation != state.generation {
        // New world: everything goes and comes back.
        for (_, cell) in om.cells.drain() {
            commands.entity(cell.entity).despawn();
        }
        om.pending.clear();
        om.recheck = None;
        om.spawning.clear();
        om.unsettled.clear();
        om.objects = 0;
        om.far_trees = 0;
        om.generation = state.generation;
    }
    // Leave with a cell of slack, so cells at the edge do not flicker.
    let mut gone = Vec::new();
    for k in om.cells.keys() {
        if !wanted(k, f, &state, OBJECT_CELL) {
            gone.push(*k);
        }
    }
    // Roads laid anew: cells whose roads changed are placed again (the old
    // objects stay until the new ones come). A worker compares the prints
    // (a few hundred microseconds for a city's cells); a newer laying
    // replaces the check, which cancels it.
    if om.roads_version != laid.version {
        om.roads_version = laid.version;
        let cells: Vec<(CellKey, u64)> = om.cells.iter().map(|(k, c)| (*k, c.print)).collect();
        let laid = laid.clone();
        om.recheck = Some(workers.spawn(move || {
            (cells.into_iter())
                .filter(|(k, print)| roads_print(k, &laid) != *print)
                .collect()
        }));
    }
    if let Some(changed) = om.recheck.as_mut().and_then(Job::take) {
        om.recheck = None;
        for (k, print) in changed {
            // (Not a cell placed again since, on these roads.)
            if om.cells.get(&k).is_some_and(|c| c.print == print) {
                om.pending.remove(&k);
                om.stale.insert(k);
            }
        }
    }
    om.stale.retain(|k| om.cells.contains_key(k));
    // A bounded number of entities go per frame (at least one cell); the
    // rest go on the next frames.
    gone.sort();
    let mut budget = 2 * state.view.object_spawns_per_frame;
    for k in gone {
        if budget == 0 {
            break;
        }
        let n = om.remove_cell(k, &mut commands);
        budget = budget.saturating_sub(n.max(1));
    }
    om.pending.retain(|k, _| wanted(k, f, &state, OBJECT_CELL));
    // Wanted cells, nearest first.
    let r = state.view.object_radius;
    let (c0, c1) = (
        ((f - r) / OBJECT_CELL).floor(),
        ((f + r) / OBJECT_CELL).floor(),
    );
    let mut want: Vec<CellKey> = Vec::new();
    for y in c0.y as i64..=c1.y as i64 {
        for x in c0.x as i64..=c1.x as i64 {
            let k = CellKey { x, y };
            if wanted(&k, f, &state, 0.0)
                && roads_known(&k, roads_on, &laid)
                && !om.cells.contains_key(&k)
                && !om.pending.contains_key(&k)
            {
                want.push(k);
            }
        }
    }
    want.extend(
        (om.stale.iter())
            .filter(|k| roads_known(k, roads_on, &laid) && !om.pending.contains_key(k))
            .copied(),
    );
    want.sort_by(|a, b| a.distance(f).total_cmp(&b.distance(f)).then(a.cmp(b)));
    for k in want {
        if om.pending.len() >= state.view.max_tasks {
            break;
        }
        om.stale.remove(&k);
        let laid = laid.clone();
        let generation = state.generation;
        om.pending.insert(
            k,
            workers.spawn(move || {
                let instances = cell_contents(&laid.ground, k);
                CellContents {
                    key: k,
                    generation,
                    print: roads_print(&k, &laid),
                    version: laid.version,
                    // (Built whether or not the cell arrives far: most cells
                    // in reach are.)
                    far_mesh: trees::far_mesh(&instances, k.base()),
                    instances,
                }
            }),
        );
    }
}

/// Spawns finished cells' objects, at most `object_spawns_per_frame` a
/// frame, and changes cells' trees over between near and far.
#[allow(clippy::too_many_arguments)]
pub(crate) fn spawn_cells(
    mut commands: Commands,
    state: Res<TerrainState>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    focus: Res<FocusState>,
    laid: Res<LaidRoads>,
    mut budget: ResMut<UploadBudget>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut objects: ResMut<ObjectManager>,
) {
    let om = &mut *objects;
    for c in super::take_finished(&mut om.pending) {
        if c.generation != state.generation {
            continue;
        }
        // Placed on roads laid over since (after the check of the live
        // cells): shown now, and placed again if its roads changed.
        if c.version != laid.version && roads_print(&c.key, &laid) != c.print {
            om.stale.insert(c.key);
        }
        // A cell placed again replaces its old objects.
        om.remove_cell(c.key, &mut commands);
        let anchor = WorldAnchor(c.key.base());
        let e = commands
            .spawn((
                Name::new(format!("objects ({}, {})", c.key.x, c.key.y)),
                ObjectCell(c.key),
                anchor,
                Transform::from_translation(origin.to_render(anchor.0)),
                Visibility::Inherited,
            ))
            .id();
        let top = top_of(&c.instances);
        let far = (focus.world).is_some_and(|f| far_trees(&c.key, f, top, true));
        let trees = CellTrees::new(&c.instances, far, c.far_mesh);
        let mut others = c.instances;
        others.retain(|i| !matches!(i.kind, ObjectKind::Tree(_)));
        let cell = LiveCell {
            entity: e,
            print: c.print,
            top,
            spawned: 0,
            trees,
        };
        om.cells.insert(c.key, cell);
        om.unsettled.insert(c.key);
        om.spawning.push_back(Spawn {
            key: c.key,
            parent: e,
            list: others,
        });
    }
    let mut frame = trees::Frame {
        commands: &mut commands,
        budget: &mut budget,
        meshes: &mut meshes,
        assets: &assets,
    };
    for key in std::mem::take(&mut om.unsettled) {
        if !om.settle(key, &mut frame) {
            om.unsettled.insert(key);
        }
    }
    let mut spawns = state.view.object_spawns_per_frame;
    while spawns > 0 {
        let Some(next) = om.spawning.front_mut() else {
            break;
        };
        let base = next.key.base();
        let take = next.list.len().min(spawns);
        // Spawned in batches, each entity whole (no component added after).
        let (mut lit, mut plain) = (Vec::new(), Vec::new());
        for inst in next.list.drain(..take) {
            let (mesh, material) = match inst.kind {
                ObjectKind::Tree(v) => (
                    assets.trees[v as usize % assets.trees.len()].clone(),
                    assets.vertex.clone(),
                ),
                ObjectKind::Feature(f) => (
                    assets.features[feature_index(f)].clone(),
                    assets.vertex.clone(),
                ),
                ObjectKind::Building(v) => (
                    assets.buildings[v as usize % assets.buildings.len()].clone(),
                    assets
                        .walls
                        .get(v as usize % assets.walls.len().max(1))
                        .cloned(),
                ),
            };
            let object = (
                ReliefObject {
                    kind: inst.kind,
                    world: inst.world,
                },
                inst.transform(base),
                Mesh3d(mesh),
                ChildOf(next.parent),
            );
            match material {
                Some(m) => lit.push((object, MeshMaterial3d(m))),
                None => plain.push(object),
            }
        }
        commands.spawn_batch(lit);
        commands.spawn_batch(plain);
        spawns -= take;
        om.objects += take;
        if let Some(cell) = om.cells.get_mut(&next.key) {
            if cell.entity == next.parent {
                cell.spawned += take;
            } else {
                cell.trees.near_spawned += take;
            }
        }
        if next.list.is_empty() {
            om.spawning.pop_front();
        }
    }
}

/// The index of a feature in [`Feature::ALL`].
pub fn feature_index(f: Feature) -> usize {
    Feature::ALL.iter().position(|&g| g == f).unwrap_or(0)
}

#[cfg(test)]
mod tests;
