//! Keeping shown chunks' road ribbons current when roads are laid anew
//! (checked under the frame's budget, rebuilt on workers, swapped whole).

use super::super::roads::LaidRoads;
use super::super::settings::TerrainState;
use super::super::tasks::ReliefWorkers;
use super::super::upload::UploadBudget;
use super::{CHECK_BUDGET, ChunkKey, ChunkManager, build_ribbons, replace_child, roads_child};
use crate::plugin::ReliefAssets;
use bevy::math::DVec2;
use bevy::prelude::*;
use std::time::Instant;

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
    if chunks.ribbons_version != laid.version {
        chunks.ribbons_version = laid.version;
        chunks.ribbons_unchecked = true;
    }
    // Nothing to check, or no room for a task: the check waits (a full
    // queue would stop it at the first chunk whose ribbons changed).
    if !chunks.ribbons_unchecked || chunks.ribbon_tasks.len() >= view.max_tasks {
        return;
    }
    chunks.ribbons_unchecked = false;
    let ChunkManager {
        present,
        pending,
        ribbon_tasks,
        desired,
        desired_set,
        ribbons_unchecked,
        ..
    } = &mut *chunks;
    // Nearest first (the desired list's order), then any other shown chunk.
    let others: Vec<ChunkKey> = (present.keys().copied())
        .filter(|k| !desired_set.contains(k))
        .collect();
    let (started, mut checked) = (Instant::now(), 0);
    for &key in desired.iter().chain(&others) {
        let Some(p) = present.get_mut(&key) else {
            continue;
        };
        // A chunk being meshed again gets its ribbons with its new mesh.
        let remeshing = (pending.get(&key)).is_some_and(|j| j.generation == state.generation);
        if p.generation != state.generation
            || p.ribbons.is_some_and(|r| r.0 == laid.version)
            || !key.draws_ribbons(view)
            || remeshing
        {
            continue;
        }
        if ribbon_tasks.len() >= view.max_tasks || (checked > 0 && started.elapsed() > CHECK_BUDGET)
        {
            *ribbons_unchecked = true; // the rest on a later frame
            break;
        }
        checked += 1;
        let min = key.corner(view);
        let max = min + DVec2::splat(key.size(view));
        let print = laid.fingerprint(min, max);
        let unchanged = p.ribbons.is_some_and(|r| r.1 == print);
        if !unchanged && laid.ground_print(min, max) != p.ground.1 {
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
