//! Bridges, tunnels and retaining walls ([`Structure`]s of the laid region):
//! bridge decks with parapets on piers down to the ground or the lake bed,
//! stone portals at both ends of a tunnel (nothing is drawn inside the
//! hill), stone walls from their top down to their foot. The road ribbons
//! leave out the stretches of road that are bridges and tunnels
//! ([`road_spans`]).
//!
//! Structures are grouped by the 1 km cell of their first point; each cell
//! gets one anchored mesh, built on a worker thread and keyed on what it is
//! built from, so that re-laid roads rebuild only the cells whose structures
//! changed, and a changed cell's mesh is swapped whole when the new one is
//! ready.

use super::buildings::{MeshLists, linear};
use super::coords::{RenderOrigin, WorldAnchor};
use super::roads::LaidRoads;
use super::settings::TerrainState;
use super::tasks::{Job, ReliefWorkers};
use crate::network::{RoadClass, RoadNetwork};
use crate::num::hash_unit;
use crate::plugin::ReliefAssets;
use crate::terrain::Terrain;
use crate::world::{Structure, StructureKind};
use bevy::math::{DVec2, DVec3};
use bevy::prelude::*;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Side of a structure cell, metres.
pub const STRUCTURE_CELL: f64 = 1024.0;
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
    /// How many structures the mesh holds.
    pub structures: usize,
}

/// For every road of `net`, the stretches that are bridges or tunnels, as
/// arc-length intervals along its points (ascending, merged): the ends of
/// each such structure's line projected on its road.
pub fn road_spans(net: &RoadNetwork, structures: &[Structure]) -> Vec<Vec<(f64, f64)>> {
    let mut spans = vec![Vec::new(); net.roads.len()];
    for s in structures {
        let (Some(i), Some(a), Some(b)) = (s.road, s.line.first(), s.line.last()) else {
            continue;
        };
        if s.kind == StructureKind::Wall || i >= net.roads.len() {
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

/// The arc length along `pts` of the point nearest `p`.
fn arc_at(pts: &[DVec2], p: DVec2) -> f64 {
    let (mut best, mut arc, mut along) = (f64::INFINITY, f64::NAN, 0.0);
    for w in pts.windows(2) {
        let d = w[1] - w[0];
        let len = d.length();
        let t = if len > 0.0 {
            ((p - w[0]).dot(d) / (len * len)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dist = (w[0] + d * t).distance(p);
        if dist < best {
            (best, arc) = (dist, along + t * len);
        }
        along += len;
    }
    arc
}

/// A stone colour (linear) varied a little by a position.
fn stone(p: DVec2) -> [f32; 4] {
    let v = 0.92 + 0.16 * hash_unit(p.x.to_bits() as i64, p.y.to_bits() as i64, 71) as f32;
    linear([0.60 * v, 0.57 * v, 0.52 * v])
}

/// Concrete, linear.
fn concrete() -> [f32; 4] {
    linear([0.64, 0.63, 0.60])
}

/// The road surface of a class, linear (as the ribbons draw it).
fn asphalt(class: RoadClass) -> [f32; 4] {
    match class {
        RoadClass::Highway => [0.07, 0.07, 0.08, 1.0],
        RoadClass::Track => [0.32, 0.25, 0.17, 1.0],
        RoadClass::Path => linear([0.70, 0.67, 0.60]),
        _ => [0.13, 0.13, 0.13, 1.0],
    }
}

/// One cross-section of a swept box: a centre, and the bottom and top
/// heights there.
type Section = (DVec2, f64, f64);

/// A box swept along `sections`, from `across.0` to `across.1` metres to the
/// right of the centre line: top, bottom, both sides and the end caps, flat
/// shaded. `top` colours the top, `side` the rest.
fn sweep(
    m: &mut MeshLists,
    sections: &[Section],
    across: (f64, f64),
    top: [f32; 4],
    side: [f32; 4],
    anchor: DVec3,
) {
    let n = sections.len();
    if n < 2 {
        return;
    }
    let dir = |k: usize| {
        let (a, b) = (
            sections[k.saturating_sub(1)].0,
            sections[(k + 1).min(n - 1)].0,
        );
        (b - a).normalize_or(DVec2::X)
    };
    // The right-hand vector at each section (mitred by averaging).
    let right: Vec<DVec2> = (0..n)
        .map(|k| {
            let d = dir(k);
            DVec2::new(d.y, -d.x)
        })
        .collect();
    let at = |k: usize, u: f64, z: f64| (sections[k].0 + right[k] * u).extend(z) - anchor;
    let (u0, u1) = across;
    for k in 0..n - 1 {
        let (a, b) = (sections[k], sections[k + 1]);
        let d = (b.0 - a.0).normalize_or(DVec2::X);
        let r = DVec3::new(d.y, -d.x, 0.0);
        let (ta, tb) = (a.2, b.2);
        let (ba, bb) = (a.1, b.1);
        let quad = |ua: f64, za: f64, ub: f64, zb: f64, zc: f64, zd: f64| {
            [
                at(k, ua, za),
                at(k + 1, ub, zb),
                at(k + 1, ub, zc),
                at(k, ua, zd),
            ]
        };
        let top_face = [
            at(k, u0, ta),
            at(k + 1, u0, tb),
            at(k + 1, u1, tb),
            at(k, u1, ta),
        ];
        m.face(&top_face, DVec3::Z, top);
        let bottom = [
            at(k, u0, ba),
            at(k + 1, u0, bb),
            at(k + 1, u1, bb),
            at(k, u1, ba),
        ];
        m.face(&bottom, -DVec3::Z, side);
        m.face(&quad(u0, ba, u0, bb, tb, ta), -r, side);
        m.face(&quad(u1, ba, u1, bb, tb, ta), r, side);
    }
    for (k, out) in [(0, -dir(0)), (n - 1, dir(n - 1))] {
        let (lo, hi) = (sections[k].1, sections[k].2);
        let cap = [at(k, u0, lo), at(k, u1, lo), at(k, u1, hi), at(k, u0, hi)];
        m.face(&cap, out.extend(0.0), side);
    }
}

/// Linear interpolation of `values` (one per line point) at arc `s` along
/// `line`, with the point there.
fn along(line: &[DVec3], values: &[f64], s: f64) -> (DVec3, f64, DVec2) {
    let mut acc = 0.0;
    for (k, w) in line.windows(2).enumerate() {
        let len = w[0].truncate().distance(w[1].truncate());
        if s <= acc + len || k + 2 == line.len() {
            let t = if len > 0.0 {
                ((s - acc) / len).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let v = |i: usize| values.get(i).copied().unwrap_or(w[0].z);
            let dir = (w[1] - w[0]).truncate().normalize_or(DVec2::X);
            return (w[0].lerp(w[1], t), v(k) + t * (v(k + 1) - v(k)), dir);
        }
        acc += len;
    }
    (
        line[0],
        values.first().copied().unwrap_or(line[0].z),
        DVec2::X,
    )
}

fn length(line: &[DVec3]) -> f64 {
    line.windows(2)
        .map(|w| w[0].truncate().distance(w[1].truncate()))
        .sum()
}

/// A bridge: the deck (the road surface on top, `DECK_THICKNESS` deep),
/// parapets both sides, and piers every [`PIER_SPACING`] metres or so (none
/// at the ends, where the deck meets the ground) down to the lower of its
/// foot and the natural ground (a lake's bed).
fn add_bridge(
    m: &mut MeshLists,
    s: &Structure,
    width: f64,
    class: RoadClass,
    terrain: &Terrain,
    anchor: DVec3,
) {
    let half = width / 2.0 + PARAPET_WIDTH;
    let deck: Vec<Section> = s
        .line
        .iter()
        .map(|p| (p.truncate(), p.z - DECK_THICKNESS, p.z))
        .collect();
    sweep(m, &deck, (-half, half), asphalt(class), concrete(), anchor);
    let rail: Vec<Section> = s
        .line
        .iter()
        .map(|p| (p.truncate(), p.z - 0.05, p.z + PARAPET))
        .collect();
    sweep(
        m,
        &rail,
        (-half, -half + PARAPET_WIDTH),
        concrete(),
        concrete(),
        anchor,
    );
    sweep(
        m,
        &rail,
        (half - PARAPET_WIDTH, half),
        concrete(),
        concrete(),
        anchor,
    );
    let len = length(&s.line);
    let n = (len / PIER_SPACING).round() as usize;
    for k in 1..n {
        let (p, foot, dir) = along(&s.line, &s.foot, len * k as f64 / n as f64);
        let c = p.truncate();
        let bottom = foot.min(terrain.height(c.x, c.y)) - BURIED;
        let top = p.z - DECK_THICKNESS;
        if top <= bottom {
            continue;
        }
        let pier = [(c - dir * 0.8, bottom, top), (c + dir * 0.8, bottom, top)];
        let across = width * 0.3;
        sweep(m, &pier, (-across, across), concrete(), concrete(), anchor);
    }
}

/// Portals at both ends of a tunnel: a stone headwall across the road up to
/// the hillside above (its foot there), with the opening dark.
fn add_portals(m: &mut MeshLists, s: &Structure, width: f64, anchor: DVec3) {
    let n = s.line.len();
    let ends = [
        (s.line[0], s.line[1], s.foot.first()),
        (s.line[n - 1], s.line[n - 2], s.foot.last()),
    ];
    let half = width / 2.0 + 1.0;
    for (p, inner, foot) in ends {
        // `o` points out of the hill.
        let o = (p - inner).truncate().normalize_or(DVec2::X);
        let c = p.truncate();
        let hill = foot.copied().unwrap_or(p.z + OPENING + 4.0);
        let head = (hill + 0.5).clamp(p.z + OPENING + 1.5, p.z + OPENING + 12.0);
        let colour = stone(c);
        // Swept inwards, from 1 m outside the portal to 2 m inside.
        let (out, ins) = (c + o * 1.0, c - o * 2.0);
        let frame = |lo: f64, hi: f64| [(out, lo, hi), (ins, lo, hi)];
        let post = frame(p.z - BURIED, head);
        // Seen along the inward sweep, "right" is the outward view's left.
        sweep(m, &post, (-half - 1.5, -half), colour, colour, anchor);
        sweep(m, &post, (half, half + 1.5), colour, colour, anchor);
        sweep(
            m,
            &frame(p.z + OPENING, head),
            (-half, half),
            colour,
            colour,
            anchor,
        );
        // The dark opening, a little behind the frame's face.
        let dark = [0.015, 0.015, 0.017, 1.0];
        let plug = [
            (c + o * 0.3, p.z + 0.02, p.z + OPENING),
            (ins, p.z + 0.02, p.z + OPENING),
        ];
        sweep(m, &plug, (-half, half), dark, dark, anchor);
    }
}

/// A retaining wall: stone, `WALL_THICKNESS` thick, from below its foot to a
/// little above its top.
fn add_wall(m: &mut MeshLists, s: &Structure, anchor: DVec3) {
    let sections: Vec<Section> = (s.line.iter().enumerate())
        .map(|(k, p)| {
            let foot = s.foot.get(k).copied().unwrap_or(p.z).min(p.z);
            (p.truncate(), foot - BURIED, p.z + 0.3)
        })
        .collect();
    let half = WALL_THICKNESS / 2.0;
    let colour = stone(s.line[0].truncate());
    sweep(m, &sections, (-half, half), colour, colour, anchor);
}

/// Adds one structure (its road, for bridges and tunnels, gives the width
/// and surface); skipped when its line has fewer than two finite points.
pub fn add_structure(
    m: &mut MeshLists,
    s: &Structure,
    net: &RoadNetwork,
    terrain: &Terrain,
    anchor: DVec3,
) {
    if s.line.len() < 2
        || !s.line.iter().all(|p| p.is_finite())
        || !s.foot.iter().all(|f| f.is_finite())
    {
        return;
    }
    let road = s.road.and_then(|i| net.roads.get(i));
    let (width, class) = road.map_or((6.0, RoadClass::Road), |r| (r.width, r.class));
    match s.kind {
        StructureKind::Bridge => add_bridge(m, s, width, class, terrain, anchor),
        StructureKind::Tunnel => add_portals(m, s, width, anchor),
        StructureKind::Wall => add_wall(m, s, anchor),
    }
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
    /// The laid-roads version last looked at.
    version: u64,
    /// Structure meshes built since start.
    pub(crate) built: u64,
}

impl StructureManager {
    /// Cells shown with something to draw.
    pub(crate) fn shown_count(&self) -> usize {
        self.shown.values().filter(|s| s.1.is_some()).count()
    }

    /// Cell meshes being built.
    pub(crate) fn pending_count(&self) -> usize {
        self.pending.len()
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

/// Starts meshes for cells whose structures are new or changed, spawns
/// finished ones, and takes away cells with none left.
pub(crate) fn update_structures(
    mut commands: Commands,
    laid: Res<LaidRoads>,
    state: Res<TerrainState>,
    workers: Res<ReliefWorkers>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut manager: ResMut<StructureManager>,
) {
    let sm = &mut *manager;
    if sm.version != laid.version {
        sm.version = laid.version;
        let net = laid.roads.network();
        let mut cells: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
        for (i, s) in laid.structures.iter().enumerate() {
            if let Some(c) = cell_of(s) {
                cells.entry(c).or_default().push(i);
            }
        }
        let wanted: BTreeMap<(i64, i64), (u64, Vec<usize>)> = (cells.into_iter())
            .map(|(c, ids)| {
                (
                    c,
                    (cell_key(&ids, &laid.structures, net, state.generation), ids),
                )
            })
            .collect();
        sm.pending
            .retain(|c, p| wanted.get(c).is_some_and(|w| w.0 == p.0));
        let gone: Vec<(i64, i64)> = (sm.shown.keys())
            .filter(|c| !wanted.contains_key(*c))
            .copied()
            .collect();
        for c in gone {
            if let Some((_, Some(e))) = sm.shown.remove(&c) {
                commands.entity(e).despawn();
            }
        }
        for (c, (key, ids)) in wanted {
            if sm.shown.get(&c).is_some_and(|s| s.0 == key) {
                sm.pending.remove(&c);
                continue;
            }
            if sm.pending.contains_key(&c) {
                continue;
            }
            let (all, roads, terrain) = (
                laid.structures.clone(),
                laid.roads.clone(),
                state.terrain.clone(),
            );
            let job = workers.spawn(move || {
                let mut m = MeshLists::default();
                let anchor = DVec3::new(c.0 as f64, c.1 as f64, 0.0) * STRUCTURE_CELL;
                for &i in &ids {
                    add_structure(&mut m, &all[i], roads.network(), &terrain, anchor);
                }
                Built {
                    mesh: (!m.is_empty()).then(|| m.into_mesh()),
                    structures: ids.len(),
                }
            });
            sm.pending.insert(c, (key, job));
        }
    }
    let mut finished = Vec::new();
    sm.pending.retain(|c, (key, job)| match job.take() {
        Some(b) => {
            finished.push((*c, *key, b));
            false
        }
        None => true,
    });
    for (c, key, b) in finished {
        sm.built += 1;
        if let Some((_, Some(e))) = sm.shown.remove(&c) {
            commands.entity(e).despawn();
        }
        let Some(mesh) = b.mesh else {
            sm.shown.insert(c, (key, None));
            continue;
        };
        let anchor = WorldAnchor(DVec3::new(c.0 as f64, c.1 as f64, 0.0) * STRUCTURE_CELL);
        let mut e = commands.spawn((
            Name::new(format!("structures {c:?}")),
            ReliefStructures {
                cell: c,
                structures: b.structures,
            },
            anchor,
            Transform::from_translation(origin.to_render(anchor.0)),
            Visibility::Inherited,
            Mesh3d(meshes.add(mesh)),
        ));
        if let Some(m) = &assets.vertex {
            e.insert(MeshMaterial3d(m.clone()));
        }
        sm.shown.insert(c, (key, Some(e.id())));
    }
}
