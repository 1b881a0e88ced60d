//! Roads and streams around the focus: a contour-road network generated on a worker
//! thread for the square of `road_radius` around the focus (snapped to a
//! 500 m grid, so it is regenerated only every few hundred metres of travel),
//! laid on the terrain with the streams so that `terra()` reports `Road` and
//! `Stream` and nothing is placed on them; chunks near the focus then drape
//! ribbons on their own triangles. Because the roads inside any area never depend on what else is
//! generated, a new network agrees with the old one wherever they overlap.

use super::coords::FocusState;
use super::settings::TerrainState;
use crate::roads::{ContourParams, ContourRoads, Road, RoadClass, RoadLayer, RoadNetwork};
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

/// What a network is generated for: the snapped centre, the settings
/// generation and the road settings (so that changing them live regenerates).
#[derive(Clone, PartialEq)]
struct RoadKey {
    centre: DVec2,
    generation: u64,
    radius: f64,
    params: ContourParams,
}

/// Road bookkeeping.
#[derive(Resource, Default)]
pub struct RoadManager {
    /// The network being generated or shown.
    target: Option<RoadKey>,
    task: Option<Task<Result<Laid, String>>>,
    /// Roads in the current network.
    pub roads: usize,
}

/// Starts a new network when the focus moves to another grid square or the
/// road settings change, and lays finished networks on the terrain. A
/// network that cannot be made is reported in [`TerrainState::error`] and
/// laid empty, so that the rest of the world still comes.
pub(crate) fn update_roads(
    focus: Res<FocusState>,
    mut state: ResMut<TerrainState>,
    mut roads: ResMut<RoadManager>,
) {
    let r = state.view.road_radius;
    if r <= 0.0 {
        // Roads off: take any laid ones away.
        roads.target = None;
        roads.task = None;
        if state.terrain.roads().is_some() || state.terrain.streams().is_some() {
            lay(&mut state, &mut roads, None);
        }
        return;
    }
    let Some(f) = focus.world else { return };
    let wanted = RoadKey {
        centre: (f.truncate() / SNAP).round() * SNAP,
        generation: state.generation,
        radius: r,
        params: state.view.roads.clone(),
    };
    if let Some(task) = roads.task.as_mut()
        && let Some(result) = check_ready(task)
    {
        roads.task = None;
        let current = roads.target.as_ref() == Some(&wanted);
        match result {
            Ok(laid) if current => lay(&mut state, &mut roads, Some(laid)),
            Ok(_) => {}
            Err(e) => {
                warn!("roads: {e}");
                state.error = Some(format!("roads: {e}"));
                if current {
                    let region = (wanted.centre - r, wanted.centre + r);
                    lay(&mut state, &mut roads, Some(Laid::empty(region)));
                }
            }
        }
    }
    if roads.target.as_ref() == Some(&wanted) || roads.task.is_some() {
        return;
    }
    // The settings were validated, so this only fails on code paths that
    // bypass them; report it like a failed network.
    let generator = match ContourRoads::new(state.view.roads.clone()) {
        Ok(g) => g,
        Err(e) => {
            state.error = Some(format!("roads: {e}"));
            return;
        }
    };
    let (min, max) = (wanted.centre - r, wanted.centre + r);
    roads.target = Some(wanted);
    // Generate from the terrain without roads and streams: the network
    // depends only on the ground.
    let mut bare = (*state.terrain).clone();
    bare.set_roads(None);
    bare.set_streams(None);
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

impl Laid {
    /// No roads and no streams over `region`.
    fn empty(region: (DVec2, DVec2)) -> Self {
        let none = || Arc::new(RoadLayer::new(Arc::new(RoadNetwork::default())));
        Self {
            roads: none(),
            streams: none(),
            region,
        }
    }
}

/// Lays a network on the terrain (or takes the laid one away).
fn lay(state: &mut TerrainState, roads: &mut RoadManager, laid: Option<Laid>) {
    let mut terrain = (*state.terrain).clone();
    roads.roads = laid.as_ref().map_or(0, |l| l.roads.network().roads.len());
    terrain.set_roads(laid.as_ref().map(|l| l.roads.clone()));
    terrain.set_streams(laid.as_ref().map(|l| l.streams.clone()));
    state.road_region = laid.map(|l| l.region);
    state.terrain = Arc::new(terrain);
    state.roads_version += 1;
}
