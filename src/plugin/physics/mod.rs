//! [`ReliefPhysicsPlugin`] (the `physics` feature): static avian3d colliders
//! streamed around the focus within [`ReliefPhysicsSettings::collider_radius`].
//!
//! The world is cut into [`COLLIDER_CELL`] squares. Each cell within the
//! radius gets up to two static bodies, anchored ([`WorldAnchor`]) so that
//! the floating origin re-places them exactly, in the same frame as it
//! shifts everything else (nothing falls through):
//! - the built ground ([`LaidRoads::ground`]: roads on their profiles,
//!   towns on their pads, cuttings and embankments) as a height field, at
//!   `fine_spacing` within `fine_radius` of the focus and `coarse_spacing`
//!   beyond;
//! - its solids ([`solids`]) as one triangle mesh of convex hulls' faces:
//!   city buildings (their walls' prisms; a footprint that is not convex is
//!   cut into triangles), bridge decks with parapets and piers, retaining
//!   walls, and tunnel tubes. The ground over a tunnel stays the hillside
//!   above it: the tube's floor is what stands in the tunnel.
//!
//! Both are built on the [`ReliefWorkers`] and inserted at most
//! `inserts_per_frame` a frame, nearest first; a changed cell's new body
//! replaces the old one in the frame it arrives. Cells are removed once
//! farther than the radius plus [`HYSTERESIS`].
//!
//! Village houses (objects near the focus, which come and go with their
//! object cells) get a static box each: their unit mesh's walls, scaled
//! with them.
//!
//! [`ReliefCharacter`] entities walk on them (see [`character`]).
//!
//! The plugin makes colliders only: add avian's `PhysicsPlugins` yourself
//! (any schedule and length unit). Apps driven by `App::update` alone (tests)
//! call `app.finish()` and `app.cleanup()` first, as `App::run` does: avian
//! sets up some of its resources there.

mod character;
mod ground;
mod settings;
mod solids;

use super::ReliefSystems;
use super::stream::coords::{FocusState, RenderOrigin, WorldAnchor, to_bevy};
use super::stream::objects::{ObjectKind, ReliefObject};
use super::stream::roads::LaidRoads;
use super::stream::settings::TerrainState;
use super::stream::tasks::{Job, ReliefWorkers};
use crate::terrain::ParamError;
use avian3d::prelude::{Collider, RigidBody};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use solids::{Hull, SolidIndex};
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::time::Instant;

pub use character::{CharacterControl, CharacterState, ReliefCharacter, standing_height};
pub use settings::ReliefPhysicsSettings;
pub use solids::collider_cell;

/// Side of a collider cell, metres.
pub const COLLIDER_CELL: f64 = 128.0;
/// Cells stay until this much farther than the radius, metres.
pub const HYSTERESIS: f64 = 32.0;
/// The focus moves this far before the cells are chosen again, metres (a
/// quarter cell: a cell comes at most this late, well within the
/// hysteresis).
const LOOK_STEP: f64 = 32.0;
/// At most this many bodies are being built at once.
const MAX_PENDING: usize = 16;
/// Bodies are built in batches of at most this many (one job each: fewer
/// hand-offs to the workers).
const BATCH: usize = 8;

/// A cell `(x, y)`: core coordinates divided by [`COLLIDER_CELL`], rounded down.
pub type Cell = (i64, i64);

/// What a collider body holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Reflect)]
pub enum ColliderPart {
    /// The built ground, a height field.
    Ground,
    /// Buildings and structures, a triangle mesh of convex hulls' faces.
    Solids,
}

/// Marks a static body of ours.
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct ReliefCollider {
    /// Its cell.
    pub cell: Cell,
    /// What it holds.
    pub part: ColliderPart,
    /// Height samples (ground) or hulls (solids).
    pub size: usize,
}

/// A finished body, from a worker.
struct Built {
    collider: Option<Collider>,
    size: usize,
    seconds: f64,
}

type Slot = (Cell, ColliderPart);

/// Bodies built by one job: each with its slot and key.
type Batch = Vec<(Slot, u64, Built)>;

/// Collider bookkeeping and figures (a resource).
#[derive(Resource, Default)]
pub struct ReliefColliders {
    /// Bodies shown: the key they were built from and their entity (`None`:
    /// built with nothing to hold).
    shown: BTreeMap<Slot, (u64, Option<Entity>, usize)>,
    /// A clone of each shown body's collider (shared shapes: cheap), so that
    /// the last reference to a despawned body's shapes is dropped on a
    /// worker, not in the frame.
    held: BTreeMap<Slot, Collider>,
    /// Colliders of bodies despawned this frame, freed on a worker next
    /// frame (once the despawns have been applied).
    retired: Vec<Collider>,
    /// Bodies being built, with the key they are built for.
    pending: BTreeMap<Slot, u64>,
    /// The jobs building them.
    batches: Vec<Job<Batch>>,
    /// Finished, waiting for their turn to be inserted.
    ready: Vec<(Slot, u64, Built)>,
    /// Wanted bodies, nearest first: the slot and its key.
    wanted: Vec<(Slot, u64, usize)>,
    solids: Arc<SolidIndex>,
    solids_job: Option<(u64, u64, Job<SolidIndex>)>,
    /// Ground prints by cell. After a new region is laid they may be stale
    /// until `prints_job` brings the new ones: a cell keeps its old body
    /// for those few frames.
    prints: BTreeMap<Cell, u64>,
    /// The laid version `prints` were computed for.
    prints_for: u64,
    /// Prints for a newly laid version, computed on a worker.
    prints_job: Option<(u64, Job<BTreeMap<Cell, u64>>)>,
    /// Prints of cells new to the radius, computed on a worker: until they
    /// come, such a cell's ground is not wanted yet.
    new_prints: Option<(u64, Job<Vec<(Cell, u64)>>)>,
    /// Cells within the radius without a print at the last look.
    unprinted: usize,
    /// Where, for which laid version and generation the cells were chosen.
    looked: Option<(DVec2, u64, u64)>,
    good: Option<ReliefPhysicsSettings>,
    /// The last settings rejected, while they stand.
    pub error: Option<ParamError>,
    /// Bodies inserted since start.
    pub built: u64,
    /// Worker time spent building them, seconds.
    pub build_seconds: f64,
}

impl ReliefColliders {
    /// Static bodies alive.
    pub fn bodies(&self) -> usize {
        self.shown.values().filter(|s| s.1.is_some()).count()
    }

    /// Height samples held by the ground bodies.
    pub fn samples(&self) -> usize {
        self.sizes(ColliderPart::Ground)
    }

    /// Convex hulls held by the solid bodies.
    pub fn hulls(&self) -> usize {
        self.sizes(ColliderPart::Solids)
    }

    fn sizes(&self, part: ColliderPart) -> usize {
        (self.shown.iter())
            .filter(|(s, _)| s.1 == part)
            .map(|(_, v)| v.2)
            .sum()
    }

    /// Bodies being built or waiting to be inserted.
    pub fn pending(&self) -> usize {
        self.pending.len() + self.ready.len() + self.solids_job.is_some() as usize + self.unprinted
    }

    /// Every wanted body is in and current.
    pub fn complete(&self) -> bool {
        self.looked.is_some()
            && self.pending() == 0
            && (self.wanted.iter()).all(|(s, k, _)| self.shown.get(s).is_some_and(|v| v.0 == *k))
    }
}

/// Static colliders around the focus for avian3d (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReliefPhysicsPlugin;

impl Plugin for ReliefPhysicsPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<ReliefPhysicsSettings>()
            .init_resource::<ReliefColliders>()
            .register_type::<ReliefPhysicsSettings>()
            .register_type::<ReliefCharacter>()
            .register_type::<CharacterState>()
            .add_systems(
                FixedPostUpdate,
                character::move_characters
                    .in_set(ReliefSystems::Characters)
                    // Without avian's plugins (spatial queries) nothing moves.
                    .run_if(resource_exists::<avian3d::collider_tree::ColliderTrees>)
                    .after(avian3d::schedule::PhysicsSystems::Writeback)
                    .before(avian3d::schedule::PhysicsSystems::Last),
            )
            .add_systems(
                PostUpdate,
                update_colliders
                    .run_if(resource_exists::<TerrainState>)
                    .in_set(ReliefSystems::Objects),
            )
            .add_observer(house_colliders);
    }
}

/// Gives each new village house a static box over its unit mesh's walls
/// (x and z from −0.5 to 0.5, y from 0 to 1), scaled with it (an observer:
/// nothing to look at in frames without new objects).
fn house_colliders(
    add: On<Add, ReliefObject>,
    objects: Query<&ReliefObject>,
    mut commands: Commands,
) {
    let Ok(o) = objects.get(add.entity) else {
        return;
    };
    if matches!(o.kind, ObjectKind::Building(_)) {
        let walls = Collider::cuboid(1.0, 1.0, 1.0);
        let body = Collider::compound(vec![(Vec3::Y * 0.5, Quat::IDENTITY, walls)]);
        commands
            .entity(add.entity)
            .insert((RigidBody::Static, body));
    }
}

/// The distance from `p` to a cell's square.
fn distance_to(c: Cell, p: DVec2) -> f64 {
    let min = DVec2::new(c.0 as f64, c.1 as f64) * COLLIDER_CELL;
    let q = p.clamp(min, min + COLLIDER_CELL);
    q.distance(p)
}

fn centre(c: Cell) -> DVec3 {
    DVec3::new(c.0 as f64 + 0.5, c.1 as f64 + 0.5, 0.0) * COLLIDER_CELL
}

fn update_colliders(
    mut commands: Commands,
    mut m: ResMut<ReliefColliders>,
    settings: Res<ReliefPhysicsSettings>,
    focus: Res<FocusState>,
    state: Res<TerrainState>,
    laid: Res<LaidRoads>,
    origin: Res<RenderOrigin>,
    workers: Res<ReliefWorkers>,
) {
    let m = &mut *m;
    if settings.is_changed() || m.good.is_none() {
        match settings.validate() {
            Ok(()) => {
                m.error = None;
                if m.good.as_ref() != Some(&*settings) {
                    m.good = Some(settings.clone());
                    m.looked = None;
                }
            }
            Err(e) => {
                if m.error.as_ref() != Some(&e) {
                    error!("ReliefPhysicsPlugin: {e}; the last good settings stay");
                }
                m.error = Some(e);
            }
        }
    }
    if !m.retired.is_empty() {
        workers.free(std::mem::take(&mut m.retired));
    }
    let s = m.good.clone().unwrap_or_default();
    let Some(f) = focus.world.map(|f| f.truncate()) else {
        return;
    };
    let generation = state.generation;
    // The solids, once per laid region.
    let idx_current = m.solids.version == laid.version && m.solids.generation == generation;
    let job_current = m.solids_job.as_ref().map(|j| (j.0, j.1)) == Some((laid.version, generation));
    if !idx_current && !job_current {
        let l = laid.clone();
        let job = workers.spawn(move || SolidIndex::new(&l, generation));
        m.solids_job = Some((laid.version, generation, job));
    }
    if let Some(idx) = m.solids_job.as_mut().and_then(|j| j.2.take()) {
        // The old index is freed on a worker (thousands of hulls).
        workers.free(std::mem::replace(&mut m.solids, Arc::new(idx)));
        m.solids_job = None;
        m.looked = None;
    }
    // The ground prints of a newly laid region, on a worker (a frame's
    // share of time otherwise).
    if m.prints_for != laid.version && m.prints_job.as_ref().is_none_or(|j| j.0 != laid.version) {
        let (l, r) = (laid.clone(), s.collider_radius + HYSTERESIS + COLLIDER_CELL);
        let job = workers.spawn(move || ground_prints(&l, f, r));
        m.prints_job = Some((laid.version, job));
    }
    if let Some((version, job)) = m.prints_job.as_mut()
        && let Some(prints) = job.take()
    {
        if *version == laid.version {
            (m.prints, m.prints_for) = (prints, *version);
            m.looked = None;
        }
        m.prints_job = None;
    }
    if let Some((version, job)) = m.new_prints.as_mut()
        && let Some(prints) = job.take()
    {
        if *version == m.prints_for {
            m.prints.extend(prints);
        }
        m.new_prints = None;
        m.looked = None;
    }
    let moved = m.looked.is_none_or(|(at, v, g)| {
        at.distance(f) > LOOK_STEP || v != laid.version || g != generation
    });
    if moved {
        look(&mut commands, m, &s, f, &laid, generation, &workers);
    }
    start_batch(m, &laid, &workers);
    // Finished batches: bodies still wanted as built wait their turn.
    let mut i = 0;
    while i < m.batches.len() {
        let Some(batch) = m.batches[i].take() else {
            i += 1;
            continue;
        };
        m.batches.swap_remove(i);
        for (slot, key, b) in batch {
            if m.pending.get(&slot) == Some(&key) {
                m.pending.remove(&slot);
                m.ready.retain(|r| r.0 != slot);
                m.ready.push((slot, key, b));
            } else {
                m.retired.extend(b.collider);
            }
        }
    }
    // Insert the nearest first, a few a frame.
    m.ready.sort_by(|a, b| {
        let (da, db) = (distance_to(a.0.0, f), distance_to(b.0.0, f));
        db.total_cmp(&da)
    });
    for _ in 0..s.inserts_per_frame {
        let Some((slot, key, b)) = m.ready.pop() else {
            break;
        };
        m.build_seconds += b.seconds;
        let anchor = centre(slot.0);
        let entity = b.collider.map(|c| {
            m.built += 1;
            m.retired.extend(m.held.insert(slot, c.clone()));
            commands
                .spawn((
                    ReliefCollider {
                        cell: slot.0,
                        part: slot.1,
                        size: b.size,
                    },
                    RigidBody::Static,
                    c,
                    WorldAnchor(anchor),
                    Transform::from_translation(origin.to_render(anchor)),
                ))
                .id()
        });
        let size = if entity.is_some() { b.size } else { 0 };
        if let Some((_, Some(old), _)) = m.shown.insert(slot, (key, entity, size)) {
            commands.entity(old).despawn();
        }
        if entity.is_none() {
            m.retired.extend(m.held.remove(&slot));
        }
    }
    debug_assert!(
        m.held
            .keys()
            .eq(m.shown.iter().filter(|s| s.1.1.is_some()).map(|s| s.0))
    );
}

/// Starts one job for the nearest wanted bodies that are neither in nor
/// coming (at most [`BATCH`], and [`MAX_PENDING`] in all).
fn start_batch(m: &mut ReliefColliders, laid: &LaidRoads, workers: &ReliefWorkers) {
    enum Work {
        Ground(usize),
        Solids(Arc<Vec<Hull>>),
    }
    let room = MAX_PENDING.saturating_sub(m.pending.len()).min(BATCH);
    let mut work = Vec::new();
    for &(slot, key, n) in &m.wanted {
        if work.len() >= room {
            break;
        }
        let shown = m.shown.get(&slot).is_some_and(|v| v.0 == key);
        let coming =
            m.pending.get(&slot) == Some(&key) || m.ready.iter().any(|r| r.0 == slot && r.1 == key);
        if shown || coming {
            continue;
        }
        let w = match slot.1 {
            ColliderPart::Ground => Work::Ground(n),
            ColliderPart::Solids => match m.solids.cells.get(&slot.0) {
                Some(c) => Work::Solids(c.hulls.clone()),
                None => continue,
            },
        };
        work.push((slot, key, w));
    }
    if work.is_empty() {
        return;
    }
    for (slot, key, _) in &work {
        m.pending.insert(*slot, *key);
    }
    let l = laid.clone();
    m.batches.push(workers.spawn(move || {
        (work.into_iter())
            .map(|(slot, key, w)| {
                let b = match w {
                    Work::Ground(n) => ground::ground_body(&l, slot.0, n),
                    Work::Solids(hulls) => solid_body(&hulls, slot.0),
                };
                (slot, key, b)
            })
            .collect()
    }));
}

/// Chooses the wanted bodies around `f` (nearest first), drops what is
/// beyond the radius and its hysteresis, and jobs no longer wanted. Cells
/// new to the radius get their prints on a worker; their ground is wanted
/// once they come.
fn look(
    commands: &mut Commands,
    m: &mut ReliefColliders,
    s: &ReliefPhysicsSettings,
    f: DVec2,
    laid: &LaidRoads,
    generation: u64,
    workers: &ReliefWorkers,
) {
    m.looked = Some((f, laid.version, generation));
    let r = s.collider_radius;
    let (lo, hi) = (collider_cell(f - r), collider_cell(f + r));
    let mut wanted: Vec<(f64, Slot, u64, usize)> = Vec::new();
    let mut unprinted = Vec::new();
    for cy in lo.1..=hi.1 {
        for cx in lo.0..=hi.0 {
            let c = (cx, cy);
            let d = distance_to(c, f);
            if d > r {
                continue;
            }
            let n = s.cells_per_side(d);
            if let Some(print) = m.prints.get(&c) {
                let mut h = std::hash::DefaultHasher::new();
                (generation, n, print).hash(&mut h);
                wanted.push((d, (c, ColliderPart::Ground), h.finish(), n));
            } else {
                unprinted.push(c);
            }
            if let Some(solid) = m.solids.cells.get(&c) {
                wanted.push((d, (c, ColliderPart::Solids), solid.key, 0));
            }
        }
    }
    m.unprinted = unprinted.len();
    // Prints for a newly laid version are coming (`prints_job`) otherwise.
    if !unprinted.is_empty() && m.new_prints.is_none() && m.prints_for == laid.version {
        let l = laid.clone();
        let job = workers.spawn(move || {
            unprinted
                .into_iter()
                .map(|c| (c, cell_print(&l, c)))
                .collect()
        });
        m.new_prints = Some((laid.version, job));
    }
    wanted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    m.wanted = wanted.into_iter().map(|w| (w.1, w.2, w.3)).collect();
    let keep = r + HYSTERESIS;
    let solids = m.solids.clone();
    // Solids no longer in the region go at once; the rest beyond `keep`.
    let gone = |slot: &Slot| {
        distance_to(slot.0, f) > keep
            || (slot.1 == ColliderPart::Solids && !solids.cells.contains_key(&slot.0))
    };
    m.pending.retain(|slot, _| distance_to(slot.0, f) <= r);
    m.ready.retain(|(slot, ..)| !gone(slot));
    m.prints.retain(|c, _| distance_to(*c, f) <= keep);
    let drop: Vec<Slot> = m.shown.keys().filter(|s| gone(s)).copied().collect();
    for slot in drop {
        if let Some((_, Some(e), _)) = m.shown.remove(&slot) {
            commands.entity(e).despawn();
        }
        m.retired.extend(m.held.remove(&slot));
    }
}

/// What shapes a cell's ground ([`LaidRoads::ground_print`]).
fn cell_print(laid: &LaidRoads, c: Cell) -> u64 {
    let min = DVec2::new(c.0 as f64, c.1 as f64) * COLLIDER_CELL;
    laid.ground_print(min, min + COLLIDER_CELL)
}

/// The prints of the cells within `r` of `f`.
fn ground_prints(laid: &LaidRoads, f: DVec2, r: f64) -> BTreeMap<Cell, u64> {
    let (lo, hi) = (collider_cell(f - r), collider_cell(f + r));
    let cells = (lo.1..=hi.1).flat_map(|y| (lo.0..=hi.0).map(move |x| (x, y)));
    (cells.filter(|&c| distance_to(c, f) <= r))
        .map(|c| (c, cell_print(laid, c)))
        .collect()
}

/// A cell's hulls as one triangle mesh of their faces, relative to the
/// cell's centre. One mesh rather than a compound of convex shapes: avian
/// computes a body's mass properties as it is inserted, twice, even a
/// static one's; a compound's triangulate every hull (0.13 ms of the frame
/// for 150 hulls, measured), a mesh's take one pass over its triangles.
fn solid_body(hulls: &[Hull], c: Cell) -> Built {
    use avian3d::parry::transformation::try_convex_hull;
    let t0 = Instant::now();
    let at = centre(c).truncate();
    let (mut vertices, mut triangles) = (Vec::new(), Vec::<[u32; 3]>::new());
    let mut size = 0;
    for h in hulls {
        let pts: Vec<Vec3> = h.iter().map(|&p| to_bevy(p, at)).collect();
        // A flat or degenerate hull holds nothing.
        let Ok((v, t)) = try_convex_hull(&pts) else {
            continue;
        };
        if t.len() < 4 {
            continue;
        }
        let base = vertices.len() as u32;
        vertices.extend(v);
        triangles.extend(t.iter().map(|t| t.map(|i| i + base)));
        size += 1;
    }
    // Without flags a mesh is refused only when it has no triangles.
    let collider = (size > 0)
        .then(|| Collider::try_trimesh(vertices, triangles).ok())
        .flatten();
    Built {
        size: if collider.is_some() { size } else { 0 },
        collider,
        seconds: t0.elapsed().as_secs_f64(),
    }
}
