//! City buildings around the focus: every city laid with the roads
//! ([`LaidRoads::layouts`]) gets one entity with one mesh of all its
//! buildings, built on a worker thread. (Its streets are roads of the laid
//! network, drawn as ribbons with the other roads.) A city whose layout is
//! no longer laid, or changed, goes; the mesh is swapped when the new one
//! is ready, so a re-laid city never blinks out.

use super::ReliefAssets;
use super::buildings::{MeshLists, add_building};
use super::coords::{RenderOrigin, WorldAnchor};
use super::roads::LaidRoads;
use super::settings::TerrainState;
use super::tasks::{Job, ReliefWorkers};
use crate::city::CityLayout;
use bevy::math::DVec3;
use bevy::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Marks a city's buildings entity.
#[derive(Component, Clone, Copy, Debug, Reflect)]
pub struct CityBuildings {
    /// The city's id (its settlement cell).
    pub city: (i64, i64),
    /// How many buildings the mesh holds.
    pub buildings: usize,
}

/// A city's finished buildings mesh.
struct Built {
    mesh: Mesh,
    buildings: usize,
}

/// City bookkeeping.
#[derive(Resource, Default)]
pub struct CityManager {
    /// Cities shown: their entity and the layout it shows.
    shown: BTreeMap<(i64, i64), (Entity, Arc<CityLayout>)>,
    pending: BTreeMap<(i64, i64), (Arc<CityLayout>, Job<Built>)>,
    /// The laid-roads version last looked at.
    version: u64,
}

/// Starts meshes for newly laid cities, spawns finished ones, and takes
/// away cities no longer laid.
pub(crate) fn update_cities(
    mut commands: Commands,
    laid: Res<LaidRoads>,
    state: Res<TerrainState>,
    workers: Res<ReliefWorkers>,
    origin: Res<RenderOrigin>,
    assets: Res<ReliefAssets>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut cities: ResMut<CityManager>,
) {
    let cm = &mut *cities;
    if cm.version != laid.version {
        cm.version = laid.version;
        let wanted: BTreeMap<(i64, i64), &Arc<CityLayout>> =
            laid.layouts.iter().map(|l| (l.city.id, l)).collect();
        // Gone, or laid anew with another layout.
        let same = |id: &(i64, i64), l: &Arc<CityLayout>| {
            wanted.get(id).is_some_and(|w| Arc::ptr_eq(w, l))
        };
        cm.pending.retain(|id, (l, _)| same(id, l));
        let gone: Vec<(i64, i64)> = (cm.shown.iter())
            .filter(|(id, _)| !wanted.contains_key(*id))
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            if let Some((e, _)) = cm.shown.remove(&id) {
                commands.entity(e).despawn();
            }
        }
        for (id, layout) in wanted {
            let current = cm
                .shown
                .get(&id)
                .is_some_and(|(_, l)| Arc::ptr_eq(l, layout))
                || cm.pending.contains_key(&id);
            if current {
                continue;
            }
            let (layout, terrain) = (layout.clone(), state.terrain.clone());
            let job_layout = layout.clone();
            let job = workers.spawn(move || {
                let mut m = MeshLists::default();
                let c = job_layout.city.centre;
                let anchor = DVec3::new(c.x, c.y, 0.0);
                let mut n = 0;
                for b in job_layout.buildings() {
                    add_building(
                        &mut m,
                        &b.footprint,
                        b.height,
                        |p| terrain.height(p.x, p.y),
                        anchor,
                    );
                    n += 1;
                }
                Built {
                    mesh: m.into_mesh(),
                    buildings: n,
                }
            });
            cm.pending.insert(id, (layout, job));
        }
    }
    let mut finished = Vec::new();
    cm.pending.retain(|id, (layout, job)| match job.take() {
        Some(built) => {
            finished.push((*id, layout.clone(), built));
            false
        }
        None => true,
    });
    for (id, layout, b) in finished {
        let c = layout.city.centre;
        let anchor = WorldAnchor(DVec3::new(c.x, c.y, 0.0));
        let mut e = commands.spawn((
            Name::new(format!("city buildings {id:?}")),
            CityBuildings {
                city: id,
                buildings: b.buildings,
            },
            anchor,
            Transform::from_translation(origin.to_render(anchor.0)),
            Visibility::Inherited,
            Mesh3d(meshes.add(b.mesh)),
        ));
        if let Some(m) = &assets.vertex {
            e.insert(MeshMaterial3d(m.clone()));
        }
        let e = e.id();
        if let Some((old, _)) = cm.shown.insert(id, (e, layout)) {
            commands.entity(old).despawn();
        }
    }
}
