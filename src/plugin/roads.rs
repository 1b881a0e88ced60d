//! Roads and streams around the focus: a contour-road network generated on a worker
//! thread for the square of `road_radius` around the focus (snapped to a
//! 500 m grid, so it is regenerated only every few hundred metres of travel),
//! laid on the terrain with the streams so that `terra()` reports `Road` and
//! `Stream` and nothing is placed on them; chunks near the focus then drape
//! ribbons on their own triangles. Because the roads inside any area never depend on what else is
//! generated, a new network agrees with the old one wherever they overlap.

use super::coords::FocusState;
use super::settings::TerrainState;
use crate::roads::{ContourRoads, Road, RoadClass, RoadLayer, RoadNetwork};
use bevy::math::DVec2;
use bevy::prelude::*;
use bevy::tasks::{AsyncComputeTaskPool, Task, futures::check_ready};
use std::sync::Arc;

/// The road-region grid, metres.
const SNAP: f64 = 500.0;
/// Width of a stream's water ribbon, metres.
const STREAM_WIDTH: f64 = 1.6;

/// What a road task produces: the roads, the streams (as a network of
/// water lines, for drawing) and the square they cover.
struct Laid {
    roads: Arc<RoadLayer>,
    streams: Arc<RoadLayer>,
    region: (DVec2, DVec2),
}

/// Road bookkeeping.
#[derive(Resource, Default)]
pub struct RoadManager {
    /// The region being generated or shown: its centre and settings generation.
    target: Option<(DVec2, u64)>,
    task: Option<Task<Result<Laid, String>>>,
    /// Roads in the current network.
    pub roads: usize,
}

/// Starts a new network when the focus moves to another grid square, and
/// lays finished networks on the terrain.
pub(crate) fn update_roads(
    focus: Res<FocusState>,
    mut state: ResMut<TerrainState>,
    mut roads: ResMut<RoadManager>,
) {
    let r = state.view.road_radius;
    if r <= 0.0 {
        return;
    }
    if let Some(task) = roads.task.as_mut()
        && let Some(result) = check_ready(task)
    {
        roads.task = None;
        match result {
            Ok(laid) if roads.target.is_some_and(|t| t.1 == state.generation) => {
                roads.roads = laid.roads.network().roads.len();
                let mut terrain = (*state.terrain).clone();
                terrain.set_roads(Some(laid.roads));
                terrain.set_streams(Some(laid.streams));
                state.terrain = Arc::new(terrain);
                state.roads_version += 1;
                state.road_region = Some(laid.region);
            }
            Ok(_) => {}
            Err(e) => warn!("roads: {e}"),
        }
    }
    let Some(f) = focus.world else { return };
    let centre = (f.truncate() / SNAP).round() * SNAP;
    let wanted = (centre, state.generation);
    if roads.target == Some(wanted) || roads.task.is_some() {
        return;
    }
    let generator = match ContourRoads::new(state.view.roads.clone()) {
        Ok(g) => g,
        Err(e) => {
            warn!("roads: {e}");
            return;
        }
    };
    roads.target = Some(wanted);
    // Generate from the terrain without roads and streams: the network
    // depends only on the ground.
    let mut bare = (*state.terrain).clone();
    bare.set_roads(None);
    bare.set_streams(None);
    let (min, max) = (centre - r, centre + r);
    roads.task = Some(AsyncComputeTaskPool::get().spawn(async move {
        let net = generator
            .try_generate(&bare, min, max)
            .map_err(|e| e.to_string())?;
        let streams = bare.streams_in(min, max).map_err(|e| e.to_string())?;
        let water = RoadNetwork::from_roads(
            streams
                .into_iter()
                .map(|s| Road {
                    points: s.points,
                    class: RoadClass::Track,
                    width: STREAM_WIDTH,
                })
                .collect(),
        );
        Ok(Laid {
            roads: Arc::new(RoadLayer::new(Arc::new(net))),
            streams: Arc::new(RoadLayer::new(Arc::new(water))),
            region: (min, max),
        })
    }));
}
