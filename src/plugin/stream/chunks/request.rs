//! Which chunks to build: the selection around the focus, the newly wanted
//! ones started at once, and the ground check after each laying of roads
//! (on a worker), whose changed chunks are meshed again.

use super::*;

/// Chooses the chunks around the focus and starts building missing ones, and
/// those whose built ground changed since their mesh was built.
pub(crate) fn request_chunks(
    focus: Res<FocusState>,
    state: Res<TerrainState>,
    laid: Res<LaidRoads>,
    workers: Res<ReliefWorkers>,
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
    // Settings a mesh is built from changed (live, in the inspector): every
    // shown chunk is meshed again, its old mesh shown until the new one is in.
    let remesh = (chunks.selected_at.as_ref()).is_some_and(|(_, _, v)| !meshes_alike(v, view));
    if remesh {
        let ChunkManager {
            pending,
            ready,
            present,
            ..
        } = &mut *chunks;
        pending.clear();
        ready.clear();
        present.values_mut().for_each(|p| p.ground.1 = STALE);
        chunks.ground_check.unchecked = true;
    }
    if reselect {
        let desired = select_chunks(f2, view);
        // A kept chunk wanted again, its ground last checked against older
        // roads (no check since covered it): every wanted chunk's ground is
        // checked again.
        let stale = |k: &ChunkKey| {
            (chunks.present.get(k)).is_some_and(|p| p.ground.0 != laid.version)
                && !chunks.desired_set.contains(k)
        };
        chunks.ground_check.unchecked |= desired.iter().any(stale);
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
    // Newly laid roads (or a chunk built on older ones, or new mesh
    // settings): every wanted chunk's ground print is taken again, on a
    // worker.
    let generation = state.generation;
    let ChunkManager {
        ground_check,
        desired,
        ..
    } = &mut *chunks;
    ground_check.follow(laid.version, generation);
    ground_check.begin(|| {
        let (keys, laid, view) = (desired.clone(), laid.clone(), view.clone());
        Some(workers.spawn(move || {
            (keys.into_iter())
                .map(|k| {
                    let min = k.corner(&view);
                    (k, laid.ground_print(min, min + DVec2::splat(k.size(&view))))
                })
                .collect()
        }))
    });
    let ChunkManager {
        desired,
        desired_set,
        present,
        pending,
        ready,
        ground_check,
        ..
    } = &mut *chunks;
    let ground_found = &mut ground_check.found;
    let version = laid.version;
    // The newest of the queued, waiting and shown meshes built for this
    // terrain: its ground print as a check of these roads that found `found`
    // sees it, and whether it is queued.
    let have = |key: &ChunkKey, pending: &HashMap<ChunkKey, Pending>, present: &Shown, found| {
        let queued = (pending.get(key))
            .filter(|p| p.generation == generation)
            .map(|p| p.print_as_found(version, found));
        let waiting = || {
            (ready.iter().rev())
                .find(|m| m.key == *key && m.generation == generation)
                .map(|m| m.ground.1)
        };
        let shown = || shown_print(present, key, generation);
        (queued.or_else(waiting).or_else(shown), queued.is_some())
    };
    let start = |key: ChunkKey, print: Option<u64>| {
        let (laid, view) = (laid.clone(), view.clone());
        let job = workers.spawn(move || mesh_chunk(&laid, key, generation, &view, print));
        Pending {
            generation,
            version,
            print,
            job,
        }
    };
    // Chunks with no mesh (newly wanted, nearest first) start at once, each
    // job taking its ground print: a check takes frames, and at 1,000 m/s
    // the ground under the focus would wait for it.
    for &key in desired.iter() {
        // (Shown first: the quickest to look up.)
        let shown = shown_print(present, &key, generation).is_some();
        if shown || have(&key, pending, present, STALE).0.is_some() {
            continue; // most chunks, most frames
        }
        if pending.len() >= view.max_tasks {
            break; // the rest on a later frame
        }
        pending.insert(key, start(key, None));
    }
    // Then what the check found: chunks whose ground changed are meshed
    // again (a task for other ground is replaced, which cancels it).
    while let Some(&(key, print)) = ground_found.front() {
        let (had, queued) = have(&key, pending, present, print);
        if !desired_set.contains(&key) || had.is_none() || had == Some(print) {
            // A shown mesh of this ground is current for these roads.
            let on_it = |p: &&mut Present| p.generation == generation && p.ground.1 == print;
            if let Some(p) = present.get_mut(&key).filter(on_it) {
                p.ground.0 = laid.version;
            }
            ground_found.pop_front();
            continue;
        }
        if pending.len() >= view.max_tasks && !queued {
            break;
        }
        ground_found.pop_front();
        pending.insert(key, start(key, Some(print)));
    }
}

/// The shown chunks.
type Shown = HashMap<ChunkKey, Present>;

/// The ground print of chunk `key`'s shown mesh, if built for terrain
/// generation `generation`.
fn shown_print(present: &Shown, key: &ChunkKey, generation: u64) -> Option<u64> {
    (present.get(key))
        .filter(|p| p.generation == generation)
        .map(|p| p.ground.1)
}

/// Meshes chunk `key` on the laid ground whose print is `print` (taken
/// here where not known). Its
/// ribbons come with it, draped on the same ground (they are swapped in
/// together), and where it is fine enough the parts of the retaining walls
/// within it; their prints are taken here too.
fn mesh_chunk(
    laid: &LaidRoads,
    key: ChunkKey,
    generation: u64,
    view: &ViewSettings,
    print: Option<u64>,
) -> ChunkMesh {
    let min = key.corner(view);
    let max = min + DVec2::splat(key.size(view));
    let print = print.unwrap_or_else(|| laid.ground_print(min, max));
    let ground = &laid.ground;
    // One grid for the ground and the ribbons draped on it.
    let grid = ChunkGrid::for_mesh(ground, key, view);
    let mut m = ChunkMesh::build_on(ground, key, generation, view, &grid);
    m.ground = (laid.version, print);
    // (Nothing is laid before the first region.)
    if laid.region.is_none() {
        return m;
    }
    if key.draws_walls(view) {
        let parts = walls_in(&laid.structures, &laid.structure_cells, (min, max));
        let (q, step) = (view.chunk_quads as usize, key.spacing(view));
        let lines: Vec<&[_]> = parts.iter().map(|(_, run)| &run[..]).collect();
        crease::crease(&mut m.lists, q, step, &lines);
        add_wall_parts(&mut m.lists, &laid.structures, &parts);
    }
    if key.draws_ribbons(view) {
        let (rp, spans) = (laid.fingerprint(min, max), laid.all_spans());
        let layers = (&*laid.roads, &*laid.streams, &spans[..]);
        let r = build_ribbons_on(ground, key, view, || grid, layers);
        m.ribbons = Some((laid.version, rp, r));
    }
    m
}
