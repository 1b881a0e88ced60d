//! The streaming core: everything [`ReliefPlugins`](super::ReliefPlugins)
//! runs around the focus.
//!
//! - `settings`: [`TerrainSettings`](settings::TerrainSettings) (live,
//!   reflectable) and the terrain built from them;
//! - `coords`: core ↔ Bevy coordinates, the focus and the floating origin;
//! - `roads`: the roads of a [`RoadSource`](roads::RoadSource) and the
//!   streams around the focus, laid on the ground;
//! - `chunks`: the ground as quadtree chunks meshed on worker threads;
//! - `objects`: trees, point features and village buildings near the focus;
//! - `cities`, `buildings`: each city's buildings, a mesh per tile;
//! - `structures`: bridges, tunnels and retaining walls, one mesh per cell;
//! - `tasks`: the worker threads below the frame's priority;
//! - `upload`: the frame's budget of mesh bytes for the renderer;
//! - `mesh`, `shapes`: mesh builders.

pub(crate) mod buildings;
pub(crate) mod chunks;
pub(crate) mod cities;
pub(crate) mod coords;
pub(crate) mod mesh;
pub(crate) mod objects;
pub(crate) mod roads;
pub(crate) mod settings;
pub(crate) mod shapes;
pub(crate) mod structures;
pub(crate) mod tasks;
pub(crate) mod upload;

/// Removes the finished jobs from `pending` and returns their results
/// (never blocking).
pub(crate) fn take_finished<K: Eq + std::hash::Hash, T>(
    pending: &mut std::collections::HashMap<K, tasks::Job<T>>,
) -> Vec<T> {
    let mut done = Vec::new();
    pending.retain(|_, job| match job.take() {
        Some(result) => {
            done.push(result);
            false
        }
        None => true,
    });
    done
}
