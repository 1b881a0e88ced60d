//! Keeping shown chunks' road ribbons current when roads are laid anew
//! (checked and rebuilt on workers, swapped whole).

use super::super::roads::LaidRoads;
use super::super::settings::TerrainState;
use super::super::tasks::ReliefWorkers;
use super::super::upload::UploadBudget;
use super::{ChunkKey, ChunkManager, build_ribbons, replace_child, roads_child};
use crate::plugin::ReliefAssets;
use bevy::math::DVec2;
use bevy::prelude::*;

/// Keeps every shown chunk's road ribbons current: when roads are laid anew,
/// a chunk whose roads fingerprint changed gets new ribbons (built on a
/// worker, swapped in whole); the others keep theirs. A chunk whose ground
/// was meshed again gets new ribbons too.
pub(crate) fn update_ribbons(
    mut commands: Commands,
    state: Res<TerrainState>,
    laid: Res<LaidRoads>,
    assets: Res<ReliefAssets>,
    workers: Res<ReliefWorkers>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut budget: ResMut<UploadBudget>,
    mut chunks: ResMut<ChunkManager>,
) {
    let view = &state.view;
    let ChunkManager {
        present,
        ribbon_tasks,
        ..
    } = &mut *chunks;
    for (key, generation, print, ribbons) in super::super::take_finished(ribbon_tasks) {
        let Some(p) = present.get_mut(&key) else {
            continue;
        };
        if generation != p.generation || p.ribbons.map(|r| r.1) != Some(print) {
            continue; // stale: another task is (or will be) on its way
        }
        // (Counted in the budget, not held back: the old ribbons are stale.)
        let child = ribbons.map(|r| roads_child(&mut meshes, &mut budget, &assets, r));
        replace_child(&mut commands, p.entity, &mut p.road, child);
    }
    // The shown chunks whose ribbons are not known current have their
    // prints taken on a worker (nearest first, then any other shown chunk).
    let ChunkManager {
        ribbon_check,
        present,
        desired,
        desired_set,
        ..
    } = &mut *chunks;
    ribbon_check.follow(laid.version, state.generation);
    ribbon_check.begin(|| {
        let others = (present.keys()).filter(|k| !desired_set.contains(*k));
        let keys: Vec<ChunkKey> = (desired.iter().chain(others))
            .filter(|k| {
                (present.get(*k)).is_some_and(|p| {
                    p.generation == state.generation
                        && p.ribbons.is_none_or(|r| r.0 != laid.version)
                        && k.draws_ribbons(view)
                })
            })
            .copied()
            .collect();
        if keys.is_empty() {
            return None;
        }
        let (laid, view) = (laid.clone(), view.clone());
        Some(workers.spawn(move || {
            (keys.into_iter())
                .map(|k| {
                    let min = k.corner(&view);
                    let max = min + DVec2::splat(k.size(&view));
                    (k, laid.fingerprint(min, max), laid.ground_print(min, max))
                })
                .collect()
        }))
    });
    // Then what it found: chunks whose roads changed get new ribbons, as
    // tasks allow.
    let ChunkManager {
        present,
        pending,
        ribbon_tasks,
        ribbon_check,
        ..
    } = &mut *chunks;
    while ribbon_tasks.len() < view.max_tasks {
        let Some((key, print, ground)) = ribbon_check.found.pop_front() else {
            break;
        };
        let Some(p) = present.get_mut(&key) else {
            continue;
        };
        // A chunk being meshed again gets its ribbons with its new mesh.
        let remeshing = (pending.get(&key)).is_some_and(|j| j.generation == state.generation);
        if p.generation != state.generation
            || p.ribbons.is_some_and(|r| r.0 == laid.version)
            || remeshing
        {
            continue;
        }
        let unchanged = p.ribbons.is_some_and(|r| r.1 == print);
        if !unchanged && ground != p.ground.1 {
            // Its ground will be meshed again, and the ribbons with it.
            continue;
        }
        p.ribbons = Some((laid.version, print));
        if unchanged {
            continue;
        }
        let (ground, view, generation) = (laid.ground.clone(), view.clone(), p.generation);
        let (roads, streams, spans) = (laid.roads.clone(), laid.streams.clone(), laid.all_spans());
        ribbon_tasks.insert(
            key,
            workers.spawn(move || {
                let r = build_ribbons(&ground, key, &view, &roads, &streams, &spans);
                (key, generation, print, r)
            }),
        );
    }
}
