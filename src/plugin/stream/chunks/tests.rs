use super::*;
use bevy::ecs::system::RunSystemOnce;
use std::time::Duration;

/// A world of bare ground (no roads laid, their version `version`) with the
/// focus 300 m over the origin.
fn bare_world(version: u64) -> World {
    use crate::plugin::stream::settings::TerrainSettings;
    let state = TerrainState::new(&TerrainSettings::default()).unwrap();
    let mut laid = LaidRoads::bare(state.terrain.clone());
    laid.version = version;
    let mut world = World::new();
    world.insert_resource(FocusState {
        world: Some(DVec3::new(0.0, 0.0, 300.0)),
    });
    world.insert_resource(state);
    world.insert_resource(laid);
    world.init_resource::<ReliefWorkers>();
    world
}

/// Runs `request_chunks` until no ground check is under way (at most 5 s).
fn run_until_checked(world: &mut World) {
    for _ in 0..1000 {
        world.run_system_once(request_chunks).unwrap();
        if !world.resource::<ChunkManager>().ground_check.is_running() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn kept_chunks_of_two_levels_leave_no_hole_and_no_overlap() {
    let key = |level, x, y| ChunkKey { level, x, y };
    // A coarse chunk and a finer one inside it, both unwanted but kept
    // (the selection moved on twice), and a wanted chunk inside both.
    let (coarse, fine, wanted) = (key(3, 0, 0), key(1, 1, 1), key(0, 2, 2));
    let kept = [coarse, fine];
    let present = [coarse, fine, wanted, key(0, 9, 9)];
    assert!(drawn(&coarse, &kept));
    assert!(!drawn(&fine, &kept) && !drawn(&wanted, &kept));
    // Every point of the coarse chunk is drawn exactly once.
    let view = ViewSettings::default();
    let size = coarse.size(&view);
    for i in 0..16 {
        for j in 0..16 {
            let p = DVec2::new(i as f64 + 0.5, j as f64 + 0.5) * size / 16.0;
            let n = (present.iter())
                .filter(|k| drawn(k, &kept) && k.contains(&view, p))
                .count();
            assert_eq!(n, 1, "at {p}");
        }
    }
}

#[test]
fn the_ground_is_checked_on_a_worker_while_newly_wanted_chunks_start() {
    let mut world = bare_world(0);
    // Every wanted chunk's ground is to be checked.
    let mut chunks = ChunkManager::default();
    chunks.ground_check.unchecked = true;
    world.insert_resource(chunks);
    world.run_system_once(request_chunks).unwrap();
    let chunks = world.resource::<ChunkManager>();
    // The check runs on a worker; meanwhile the nearest are started,
    // nearest first, up to the tasks allowed at once, each job taking its
    // own ground print (none is taken in the frame).
    assert!(chunks.ground_check.is_running() && !chunks.ground_check.unchecked);
    let started = chunks.pending.len();
    assert_eq!(started, ViewSettings::default().max_tasks);
    assert!(chunks.pending.values().all(|p| p.print.is_none()));
    let nearest = &chunks.desired()[..started];
    assert!(nearest.iter().all(|k| chunks.pending.contains_key(k)));
    assert!(!chunks.complete(0));
    // Say every other wanted chunk is shown, all on ground as it is (print
    // 0: bare) but the farthest, meshed for other ground.
    let generation = world.resource::<TerrainState>().generation;
    let mut chunks = world.resource_mut::<ChunkManager>();
    let keys = chunks.desired()[started..].to_vec();
    for (n, &k) in keys.iter().enumerate() {
        let print = if n + 1 == keys.len() { STALE } else { 0 };
        chunks.present.insert(k, shown(generation, print));
    }
    // Once the check is in, what it found is compared with the meshes:
    // only the farthest is meshed again. (The jobs started are building on
    // these roads, and take their prints from them: they are left be.)
    run_until_checked(&mut world);
    let chunks = world.resource::<ChunkManager>();
    assert!(!chunks.ground_check.is_running(), "the check never came in");
    // The tasks are all taken: what it found waits.
    assert!(chunks.pending.values().all(|p| p.print.is_none()));
    assert!(!chunks.ground_check.found.is_empty());
    // Once the jobs are in (shown, on this ground), the rest of it is gone
    // through.
    let mut chunks = world.resource_mut::<ChunkManager>();
    let nearest: Vec<ChunkKey> = chunks.pending.drain().map(|(k, _)| k).collect();
    for k in nearest {
        chunks.present.insert(k, shown(generation, 0));
    }
    world.run_system_once(request_chunks).unwrap();
    let chunks = world.resource::<ChunkManager>();
    assert!(chunks.ground_check.found.is_empty());
    let again: Vec<_> = (chunks.pending.iter())
        .filter_map(|(k, p)| Some((*k, p.print?)))
        .collect();
    assert_eq!(again, [(*keys.last().unwrap(), 0)]);
}

/// A shown chunk of terrain `generation` on ground of print `print`, built
/// on the roads of version 0.
fn shown(generation: u64, print: u64) -> Present {
    Present {
        entity: Entity::PLACEHOLDER,
        generation,
        ground: (0, print),
        water: None,
        road: None,
        ribbons: None,
        visible: true,
    }
}

#[test]
fn a_kept_chunk_wanted_again_on_older_roads_is_checked_once() {
    let mut world = bare_world(3);
    let generation = world.resource::<TerrainState>().generation;
    // Every chunk about to be wanted is shown, its ground checked against
    // these roads, but one: kept from before, last checked against roads
    // of version 2 (its print, 0, is the bare ground's: still current).
    let view = ViewSettings::default();
    let keys = select_chunks(DVec2::ZERO, &view);
    let kept = keys[keys.len() / 2];
    let mut chunks = ChunkManager::default();
    chunks.ground_check.follow(3, generation);
    chunks.ground_check.unchecked = false;
    chunks.ground_check.began_for = 3;
    for &k in &keys {
        let mut present = shown(generation, 0);
        present.ground.0 = if k == kept { 2 } else { 3 };
        chunks.present.insert(k, present);
    }
    world.insert_resource(chunks);
    // Wanted again: the ground is checked.
    world.run_system_once(request_chunks).unwrap();
    assert!(world.resource::<ChunkManager>().ground_check.is_running());
    run_until_checked(&mut world);
    let mut chunks = world.resource_mut::<ChunkManager>();
    assert!(chunks.ground_check.settled());
    // Its ground was as shown: nothing is meshed again, and the chunk is
    // now known current for these roads.
    assert!(chunks.pending.is_empty());
    assert_eq!(chunks.present[&kept].ground, (3, 0));
    assert!(chunks.complete(generation));
    // A mesh built on older roads that arrives after this check began was
    // in it: no second check. Before any check for these roads, one.
    chunks.arrived_on(2, 3);
    assert!(!chunks.ground_check.unchecked);
    chunks.ground_check.began_for = 2;
    chunks.arrived_on(2, 3);
    assert!(chunks.ground_check.unchecked);
}
