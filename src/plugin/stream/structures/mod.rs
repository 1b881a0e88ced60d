//! Bridges, tunnels and retaining walls ([`Structure`]s of the laid region):
//! bridge decks with parapets on piers down to the ground or the lake bed,
//! stone portals at both ends of a tunnel (nothing is drawn inside the
//! hill), stone walls from their top down to their foot (walls with the
//! finest chunks of ground, which meet them: [`walls_in`]). The road ribbons
//! leave out the stretches of road that are bridges and tunnels
//! ([`road_spans`]).
//!
//! Structures are grouped by the 256 m cell of their first point (walls in
//! every cell they cross, for the chunks that draw their parts); each cell
//! gets one anchored mesh, built on a worker thread and keyed on what it is
//! built from, so that re-laid roads rebuild only the cells whose structures
//! changed, and a changed cell's mesh is swapped whole when the new one is
//! ready. Finished meshes go to the renderer nearest first, within the
//! frame's [`UploadBudget`] (what the ground left of it).

use super::coords::{FocusState, RenderOrigin, WorldAnchor};
use super::mesh::MeshLists;
use super::roads::LaidRoads;
use super::settings::TerrainState;
use super::tasks::{Job, ReliefWorkers};
use super::upload::UploadBudget;
use crate::network::{Road, RoadNetwork};
use crate::plugin::ReliefAssets;
use crate::world::{Structure, StructureKind};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::hash::{Hash, Hasher};
use std::sync::Arc;

mod mesh;
#[cfg(test)]
mod tests;

pub use mesh::add_structure;
pub(crate) use mesh::{Section, add_wall_parts, section_at, walls_in};

/// Side of a structure cell, metres: small enough that one cell's mesh is
/// a small upload (near a city a 1,024 m cell held 14 MiB) and that cells
/// out of view are culled.
pub const STRUCTURE_CELL: f64 = 256.0;
/// Piers stand about this far apart under a bridge, metres.
pub const PIER_SPACING: f64 = 30.0;
/// A bridge deck's thickness under the road surface, metres.
pub const DECK_THICKNESS: f64 = 1.0;
/// Parapet height above the deck, metres.
const PARAPET: f64 = 1.0;
/// Parapet thickness, metres; the deck is this much wider than the road on
/// each side.
const PARAPET_WIDTH: f64 = 0.35;
/// A tunnel opening's height above the road, metres.
const OPENING: f64 = 6.0;
/// A retaining wall's thickness, metres.
const WALL_THICKNESS: f64 = 0.6;
/// How far walls, piers and portals reach into the ground, metres.
const BURIED: f64 = 1.0;

/// Marks the entity holding one cell's structures.
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct ReliefStructures {
    /// The cell: `(x, y)` of its first points, divided by
    /// [`STRUCTURE_CELL`] and rounded down.
    pub cell: (i64, i64),
    /// How many structures the mesh holds (bridges and tunnels: walls are
    /// drawn with the ground's finest chunks).
    pub structures: usize,
}

/// For every road of `net`, the stretches that are structures of `kinds`
/// (bridges and tunnels: walls have no road), as arc-length intervals along
/// its points (ascending, merged): the ends of each such structure's line
/// projected on its road.
pub fn road_spans(
    net: &RoadNetwork,
    structures: &[Structure],
    kinds: &[StructureKind],
) -> Vec<Vec<(f64, f64)>> {
    let mut spans = vec![Vec::new(); net.roads.len()];
    for s in structures {
        let (Some(i), Some(a), Some(b)) = (s.road, s.line.first(), s.line.last()) else {
            continue;
        };
        if !kinds.contains(&s.kind) || i >= net.roads.len() {
            continue;
        }
        let pts = &net.roads[i].points;
        let (sa, sb) = (arc_at(pts, a.truncate()), arc_at(pts, b.truncate()));
        if sa.is_finite() && sb.is_finite() && sa != sb {
            spans[i].push((sa.min(sb), sa.max(sb)));
        }
    }
    for list in &mut spans {
        list.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut merged: Vec<(f64, f64)> = Vec::with_capacity(list.len());
        for &(a, b) in list.iter() {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        *list = merged;
    }
    spans
}

/// The arc length along a road of the point nearest `p`, and the road's
/// profile height there (`None` without a profile).
pub fn profile_at(road: &Road, p: DVec2) -> Option<(f64, f64)> {
    if !road.has_profile() {
        return None;
    }
    let (arc, k, t) = nearest_along(&road.points, p)?;
    Some((arc, road.z[k] + t * (road.z[k + 1] - road.z[k])))
}

/// The arc length along `pts` of the point nearest `p`.
fn arc_at(pts: &[DVec2], p: DVec2) -> f64 {
    nearest_along(pts, p).map_or(f64::NAN, |n| n.0)
}

/// The point of `pts` nearest `p`: its arc length, its segment and the
/// parameter along that segment (the first of equally near ones).
fn nearest_along(pts: &[DVec2], p: DVec2) -> Option<(f64, usize, f64)> {
    let (mut best, mut out, mut along) = (f64::INFINITY, None, 0.0);
    for (k, w) in pts.windows(2).enumerate() {
        let d = w[1] - w[0];
        let len = d.length();
        let t = if len > 0.0 {
            ((p - w[0]).dot(d) / (len * len)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dist = (w[0] + d * t).distance(p);
        if dist < best {
            (best, out) = (dist, Some((along + t * len, k, t)));
        }
        along += len;
    }
    out
}

/// The middle of a cell (its mesh's anchor), at height 0.
fn cell_centre(c: (i64, i64)) -> DVec3 {
    DVec3::new(c.0 as f64 + 0.5, c.1 as f64 + 0.5, 0.0) * STRUCTURE_CELL
}

/// The cell a structure belongs to (its first point's).
fn cell_of(s: &Structure) -> Option<(i64, i64)> {
    let p = s.line.first()?.truncate();
    p.is_finite().then(|| {
        (
            (p.x / STRUCTURE_CELL).floor() as i64,
            (p.y / STRUCTURE_CELL).floor() as i64,
        )
    })
}

/// The cells a structure's line crosses (those of each segment's box).
fn cells_crossed(s: &Structure) -> BTreeSet<(i64, i64)> {
    let cell = |v: f64| (v / STRUCTURE_CELL).floor() as i64;
    let mut out = BTreeSet::new();
    for w in s.line.windows(2) {
        let (a, b) = (w[0].truncate(), w[1].truncate());
        if !(a.is_finite() && b.is_finite()) {
            continue;
        }
        let (lo, hi) = (a.min(b), a.max(b));
        // (A segment over 16 km, which no wall has, by its ends alone.)
        if (hi - lo).max_element() > 64.0 * STRUCTURE_CELL {
            out.extend([a, b].map(|p| (cell(p.x), cell(p.y))));
            continue;
        }
        for x in cell(lo.x)..=cell(hi.x) {
            out.extend((cell(lo.y)..=cell(hi.y)).map(|y| (x, y)));
        }
    }
    out
}

/// Takes this frame's share of the built cells: nearest to `f` first,
/// while `budget` is open (counting their meshes' bytes, which the caller
/// hands over).
fn take_within_budget(
    ready: &mut BTreeMap<(i64, i64), (u64, Built)>,
    f: DVec2,
    budget: &mut UploadBudget,
    meshes: &mut Assets<Mesh>,
) -> Vec<((i64, i64), u64, Option<Handle<Mesh>>, usize)> {
    if ready.is_empty() || !budget.open() {
        return Vec::new(); // most frames: nothing to order
    }
    let mut order: Vec<((i64, i64), f64)> = (ready.keys())
        .map(|&c| (c, cell_centre(c).truncate().distance_squared(f)))
        .collect();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    let mut taken = Vec::new();
    for (c, _) in order {
        if !budget.open() {
            break;
        }
        if let Some((key, b)) = ready.remove(&c) {
            let mesh = b.mesh.map(|m| budget.upload(meshes, m));
            taken.push((c, key, mesh, b.structures));
        }
    }
    taken
}

/// A cell's finished mesh.
struct Built {
    mesh: Option<Mesh>,
    structures: usize,
}

/// Structure bookkeeping: cells shown and being built, with the key of what
/// each was built from.
#[derive(Resource, Default)]
pub struct StructureManager {
    /// Cells shown (`None`: built, but with nothing to draw).
    shown: BTreeMap<(i64, i64), (u64, Option<Entity>)>,
    pending: BTreeMap<(i64, i64), (u64, Job<Built>)>,
    /// Built, waiting for their frame's upload budget.
    ready: BTreeMap<(i64, i64), (u64, Built)>,
    /// The laid-roads version last looked at.
    version: u64,
    /// The region's structures by cell: the key of what each cell's mesh is
    /// built from, and the structures' indices.
    cells: Arc<StructureCells>,
    /// Where the focus was when the cells in view were last chosen.
    looked_from: Option<DVec2>,
    /// Structure meshes built since start.
    pub(crate) built: u64,
}

impl StructureManager {
    /// Cells shown with something to draw.
    pub(crate) fn shown_count(&self) -> usize {
        self.shown.values().filter(|s| s.1.is_some()).count()
    }

    /// Cell meshes being built or waiting to be uploaded.
    pub(crate) fn pending_count(&self) -> usize {
        self.pending.len() + self.ready.len()
    }
}

/// What a cell's mesh is built from: its structures (with their roads'
/// width and class) and the terrain generation.
fn cell_key(ids: &[usize], all: &[Structure], net: &RoadNetwork, generation: u64) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    generation.hash(&mut h);
    for &i in ids {
        let s = &all[i];
        (s.kind, s.line.len(), s.foot.len()).hash(&mut h);
        for p in &s.line {
            (p.x.to_bits(), p.y.to_bits(), p.z.to_bits()).hash(&mut h);
        }
        s.foot.iter().for_each(|f| f.to_bits().hash(&mut h));
        if let Some(r) = s.road.and_then(|i| net.roads.get(i)) {
            (r.width.to_bits(), r.class as u8).hash(&mut h);
        }
    }
    h.finish()
}

/// A region's structures by cell: the key of what each cell's mesh is built
/// from (its bridges and tunnels; `None` where it has none, only walls),
/// and the structures' indices (with the walls that cross it, which the
/// finest chunks draw).
pub(crate) type StructureCells = BTreeMap<(i64, i64), (Option<u64>, Arc<Vec<usize>>)>;

/// Groups `all` by cell and keys each cell (on the worker that lays the
/// region, not in the frame).
pub(crate) fn structure_cells(
    all: &[Structure],
    net: &RoadNetwork,
    generation: u64,
) -> StructureCells {
    let mut cells: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    for (i, s) in all.iter().enumerate() {
        if s.kind == StructureKind::Wall {
            // Every cell a wall crosses: the finest chunks there draw their part.
            for c in cells_crossed(s) {
                cells.entry(c).or_default().push(i);
            }
        } else if let Some(c) = cell_of(s) {
            cells.entry(c).or_default().push(i);
        }
    }
    (cells.into_iter())
        .map(|(c, ids)| {
            let drawn: Vec<usize> = (ids.iter().copied())
                .filter(|&i| all[i].kind != StructureKind::Wall)
                .collect();
            let key = (!drawn.is_empty()).then(|| cell_key(&drawn, all, net, generation));
            (c, (key, Arc::new(ids)))
        })
        .collect()
}

/// Starts meshes for cells whose structures are new or changed, spawns
/// finished ones, and takes away cells with none left.
pub(crate) fn update_structures(
    mut commands: Commands,
    laid: Res<LaidRoads>,
    state: Res<TerrainState>,
    focus: Res<FocusState>,
    workers: Res<ReliefWorkers>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut budget: ResMut<UploadBudget>,
    mut manager: ResMut<StructureManager>,
) {
    let sm = &mut *manager;
    let Some(f) = focus.world.map(|f| f.truncate()) else {
        return;
    };
    if sm.version != laid.version {
        // The region's structures by cell, keyed on the worker that laid it.
        sm.version = laid.version;
        sm.cells = laid.structure_cells.clone();
        sm.looked_from = None;
    }
    // Cells within the view distance (looked at again every 64 m).
    let moved = sm.looked_from.is_none_or(|at| at.distance(f) > 64.0);
    if moved {
        sm.looked_from = Some(f);
        let reach = state.view.view_distance;
        // (A cell of walls alone has no mesh of its own.)
        let wanted: BTreeMap<(i64, i64), (u64, Arc<Vec<usize>>)> = (sm.cells.iter())
            .filter_map(|(c, (key, ids))| {
                let lo = DVec2::new(c.0 as f64, c.1 as f64) * STRUCTURE_CELL;
                let near = f.clamp(lo, lo + STRUCTURE_CELL).distance(f) <= reach;
                Some((*c, (key.filter(|_| near)?, ids.clone())))
            })
            .collect();
        sm.pending
            .retain(|c, p| wanted.get(c).is_some_and(|w| w.0 == p.0));
        sm.ready
            .retain(|c, p| wanted.get(c).is_some_and(|w| w.0 == p.0));
        let gone: Vec<(i64, i64)> = (sm.shown.iter())
            .filter(|(c, _)| !wanted.contains_key(*c))
            .map(|(c, _)| *c)
            .collect();
        for c in gone {
            if let Some((_, Some(e))) = sm.shown.remove(&c) {
                commands.entity(e).despawn();
            }
        }
        for (c, (key, ids)) in wanted {
            if sm.shown.get(&c).is_some_and(|s| s.0 == key) {
                sm.pending.remove(&c);
                sm.ready.remove(&c);
                continue;
            }
            if sm.pending.contains_key(&c) || sm.ready.contains_key(&c) {
                continue;
            }
            let (all, roads, terrain) = (
                laid.structures.clone(),
                laid.roads.clone(),
                state.terrain.clone(),
            );
            let job = workers.spawn(move || {
                let mut m = MeshLists::default();
                let anchor = cell_centre(c);
                // (Walls are drawn with the finest ground: `walls_in`.)
                let spans = ids.iter().map(|&i| &all[i]);
                let spans: Vec<&Structure> =
                    spans.filter(|s| s.kind != StructureKind::Wall).collect();
                for s in &spans {
                    add_structure(&mut m, s, roads.network(), &terrain, anchor);
                }
                Built {
                    mesh: (!m.is_empty()).then(|| m.into_mesh()),
                    structures: spans.len(),
                }
            });
            sm.pending.insert(c, (key, job));
        }
    }
    sm.pending.retain(|c, (key, job)| match job.take() {
        Some(b) => {
            sm.ready.insert(*c, (*key, b));
            false
        }
        None => true,
    });
    for (c, key, mesh, structures) in take_within_budget(&mut sm.ready, f, &mut budget, &mut meshes)
    {
        sm.built += 1;
        if let Some((_, Some(e))) = sm.shown.remove(&c) {
            commands.entity(e).despawn();
        }
        let Some(mesh) = mesh else {
            sm.shown.insert(c, (key, None));
            continue;
        };
        let anchor = WorldAnchor(cell_centre(c));
        let mut e = commands.spawn((
            Name::new(format!("structures {c:?}")),
            ReliefStructures {
                cell: c,
                structures,
            },
            anchor,
            Transform::from_translation(origin.to_render(anchor.0)),
            Visibility::Inherited,
            Mesh3d(mesh),
        ));
        if let Some(m) = &assets.vertex {
            e.insert(MeshMaterial3d(m.clone()));
        }
        sm.shown.insert(c, (key, Some(e.id())));
    }
}
