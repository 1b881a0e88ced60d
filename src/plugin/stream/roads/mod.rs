//! Roads and streams around the focus. A [`RoadSource`] (any
//! [`RoadGenerator`]; by default the [`RoadSystem`] of
//! [`TerrainSettings::roads`]: cities, highways, contour roads) is asked on a worker thread for the square of
//! `road_radius` around the focus, snapped to a 500 m grid, so it runs only
//! every few hundred metres of travel. The network and the streams of the
//! square are then laid on the ground ([`LaidRoads::ground`]): the region's
//! built ground (roads on their profiles with cut and fill, towns on level
//! pads, the cities' footprints as town ground) with the streams added, so
//! that `terra()` reports `Road`, `Stream` and `Town`, nothing is placed on
//! roads and streams, no tree or village house in a city, and everything
//! stands on the built ground. The region's bridges, tunnels and walls are
//! kept with it ([`LaidRoads::structures`]).
//! Because a generator's roads inside an area never depend on what else was
//! asked for, a new network agrees with the old one wherever they overlap:
//! chunks and object cells compare a fingerprint of the roads over them and
//! rebuild only where it changed (chunk meshes: only where the earthworks
//! shaping them changed, [`LaidRoads::ground_print`]).

use super::coords::FocusState;
use super::settings::{TerrainSettings, TerrainState};
use super::structures::StructureCells;
use super::tasks::{Job, ReliefWorkers};
use crate::city::{CityGround, CityLayout};
use crate::network::{RoadLayer, RoadNetwork};
use crate::plugin::{ReliefError, RoadsLaid};
use crate::roads::{RoadError, RoadGenerator};
use crate::terrain::{LaidGround, LaidKind, StreamCache, StreamLayer, Terrain};
use crate::world::{Region, RoadSystem, Structure};
use bevy::math::DVec2;
use bevy::platform::hash::FixedHasher;
use bevy::prelude::*;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

mod laid;

pub use laid::LaidRoads;
use laid::LineSum;

/// The road-region grid, metres.
const SNAP: f64 = 500.0;

/// Makes whole regions for the plugin to lay: the network with its
/// profiles, cities and layouts, the built ground and its structures (a
/// game's own world, or a test's). Any
/// `Fn(&Terrain, DVec2, DVec2) -> Result<Region, RoadError>` is one.
pub trait RegionSource: Send + Sync + 'static {
    /// The region over `[min, max]`.
    fn region(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Result<Region, RoadError>;
}

impl<F> RegionSource for F
where
    F: Fn(&Terrain, DVec2, DVec2) -> Result<Region, RoadError> + Send + Sync + 'static,
{
    fn region(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Result<Region, RoadError> {
        self(terrain, min, max)
    }
}

/// The road generator the plugin asks. Set it with
/// [`ReliefPlugin::with_roads`](crate::plugin::ReliefPlugin::with_roads) (or
/// whole regions with
/// [`ReliefPlugin::with_regions`](crate::plugin::ReliefPlugin::with_regions));
/// without one, the [`RoadSystem`] of [`TerrainSettings::roads`] is used (and
/// follows that setting live).
#[derive(Resource, Clone, Default)]
pub struct RoadSource {
    custom: Option<Source>,
}

impl std::fmt::Debug for RoadSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.custom {
            Some(Source::Custom(_)) => "RoadSource(custom)",
            Some(_) => "RoadSource(custom regions)",
            None => "RoadSource(contour roads of the settings)",
        })
    }
}

impl RoadSource {
    /// A source that always asks `generator`.
    pub fn new(generator: Arc<dyn RoadGenerator>) -> Self {
        Self {
            custom: Some(Source::Custom(generator)),
        }
    }

    /// A source of whole regions.
    pub fn regions(source: Arc<dyn RegionSource>) -> Self {
        Self {
            custom: Some(Source::Regions(source)),
        }
    }

    /// The generator to ask: the custom one, or the road system of the
    /// settings (kept in `made` while they and the terrain `generation`
    /// hold, so that what it remembers, such as planned highways, serves the
    /// next squares too, and never another terrain).
    fn generator(
        &self,
        settings: &TerrainSettings,
        generation: u64,
        made: &mut Option<MadeSystem>,
    ) -> Result<Source, RoadError> {
        if let Some(g) = &self.custom {
            return Ok(g.clone());
        }
        if let Some((p, gen_, g)) = made
            && *p == settings.roads
            && *gen_ == generation
        {
            return Ok(Source::System(g.clone()));
        }
        // Errors name their path in the settings (`roads.highways.step`).
        let g = Arc::new(match made {
            Some((_, gen_, old)) if *gen_ == generation => {
                RoadSystem::reusing(settings.roads.clone(), old).map_err(|e| e.within("roads"))?
            }
            _ => RoadSystem::new(settings.roads.clone()).map_err(|e| e.within("roads"))?,
        });
        *made = Some((settings.roads.clone(), generation, g.clone()));
        Ok(Source::System(g))
    }
}

/// What a road task asks for its region.
#[derive(Clone)]
enum Source {
    /// A custom generator: its network, no cities.
    Custom(Arc<dyn RoadGenerator>),
    /// Custom regions.
    Regions(Arc<dyn RegionSource>),
    /// The world's road system: network, cities and their layouts.
    System(Arc<RoadSystem>),
}

impl Source {
    fn region(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Result<Region, RoadError> {
        match self {
            Self::Custom(g) => Region::from_generator(g.as_ref(), terrain, min, max),
            Self::Regions(r) => r.region(terrain, min, max),
            Self::System(s) => s.region(terrain, min, max),
        }
    }
}

/// The default road system, with the settings and terrain generation it
/// was made for.
type MadeSystem = (crate::world::RoadSystemParams, u64, Arc<RoadSystem>);

/// What a road task produces.
struct Laid {
    ground: Arc<LaidGround>,
    structures: Arc<Vec<Structure>>,
    structure_cells: Arc<StructureCells>,
    spans: Vec<Vec<(f64, f64)>>,
    bridges: Vec<Vec<(f64, f64)>>,
    salt: u64,
    reach: f64,
    roads: Arc<RoadLayer>,
    streams: Arc<StreamLayer>,
    cities: Arc<CityGround>,
    layouts: Vec<Arc<CityLayout>>,
    region: (DVec2, DVec2),
    lines: Vec<LineSum>,
    segments: Vec<Vec<u64>>,
}

/// What a network is generated for: the snapped centre, the terrain's
/// generation, the radius and the road settings (so that changing them live
/// regenerates).
#[derive(Clone, PartialEq)]
struct RoadKey {
    centre: DVec2,
    generation: u64,
    radius: f64,
    params: crate::world::RoadSystemParams,
}

/// Road bookkeeping.
#[derive(Resource, Default)]
pub struct RoadManager {
    /// The network being generated or shown.
    target: Option<RoadKey>,
    task: Option<Job<Result<Laid, RoadError>>>,
    /// The stream sources already scanned on this terrain (a moving road
    /// square scans only the ground it has not seen).
    stream_cache: Arc<Mutex<StreamCache>>,
    /// Roads in the current network.
    pub roads: usize,
    /// The default road system, while the settings it was made from hold.
    system: Option<MadeSystem>,
}

impl RoadManager {
    /// Whether a network is being generated.
    pub fn pending(&self) -> bool {
        self.task.is_some()
    }
}

/// Starts a new network when the focus moves to another grid square or the
/// road settings change, and lays finished networks on the ground. A
/// network that cannot be made is reported (a [`ReliefError`] message and
/// [`TerrainState::roads_error`]) and laid empty, so that the rest of the world
/// still comes.
pub(crate) fn update_roads(
    focus: Res<FocusState>,
    settings: Res<TerrainSettings>,
    source: Res<RoadSource>,
    workers: Res<ReliefWorkers>,
    mut state: ResMut<TerrainState>,
    mut laid: ResMut<LaidRoads>,
    mut roads: ResMut<RoadManager>,
    mut errors: MessageWriter<ReliefError>,
    mut done: MessageWriter<RoadsLaid>,
) {
    if !Arc::ptr_eq(&laid.terrain, &state.terrain) {
        // A new terrain: nothing is laid on it yet.
        let version = laid.version + 1;
        *laid = LaidRoads {
            version,
            ..LaidRoads::bare(state.terrain.clone())
        };
        roads.roads = 0;
        roads.stream_cache = Arc::default();
    }
    let r = state.view.road_radius;
    if r <= 0.0 {
        // Roads off: take any laid ones away.
        roads.target = None;
        roads.task = None;
        if state.roads_error.is_some() {
            state.roads_error = None;
        }
        if !laid.ground.is_bare() || laid.region.is_some() {
            let version = laid.version + 1;
            *laid = LaidRoads {
                version,
                ..LaidRoads::bare(state.terrain.clone())
            };
            roads.roads = 0;
        }
        return;
    }
    let Some(f) = focus.world else { return };
    let wanted = RoadKey {
        centre: (f.truncate() / SNAP).round() * SNAP,
        generation: state.generation,
        radius: r,
        params: settings.roads.clone(),
    };
    if let Some(task) = roads.task.as_mut()
        && let Some(result) = task.take()
    {
        roads.task = None;
        let current = roads.target.as_ref() == Some(&wanted);
        match result {
            Ok(new) if current => {
                if state.roads_error.is_some() {
                    state.roads_error = None;
                }
                lay(&state, &mut laid, &mut roads, &workers, new);
                done.write(RoadsLaid {
                    roads: roads.roads,
                    version: laid.version,
                });
            }
            Ok(_) => {}
            Err(e) => {
                warn!("roads: {e}");
                state.roads_error = Some(e.clone());
                errors.write(ReliefError::Roads(e));
                if current {
                    let region = (wanted.centre - r, wanted.centre + r);
                    let empty = Laid::empty(&state.terrain, region);
                    lay(&state, &mut laid, &mut roads, &workers, empty);
                }
            }
        }
    }
    if roads.target.as_ref() == Some(&wanted) || roads.task.is_some() {
        return;
    }
    let generator = match source.generator(&settings, state.generation, &mut roads.system) {
        Ok(g) => g,
        Err(e) => {
            // Settings are validated first, so this is rare: report it like
            // a failed network.
            state.roads_error = Some(e.clone());
            errors.write(ReliefError::Roads(e));
            return;
        }
    };
    let (min, max) = (wanted.centre - r, wanted.centre + r);
    // What the earthworks depend on beyond the roads (a custom generator
    // builds none).
    let (salt, reach) = match &generator {
        Source::Custom(_) => (0, 0.0),
        Source::Regions(_) => (0, crate::world::EarthworkParams::default().max_reach),
        Source::System(_) => {
            let e = &settings.roads.earthworks;
            (FixedHasher.hash_one(format!("{e:?}")), e.max_reach)
        }
    };
    roads.target = Some(wanted);
    let terrain = state.terrain.clone();
    let generation = state.generation;
    let cache = roads.stream_cache.clone();
    roads.task = Some(workers.spawn(move || {
        let Region {
            network: net,
            cities,
            layouts,
            ground,
            structures,
            ..
        } = generator.region(&terrain, min, max)?;
        let streams = {
            let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
            terrain.streams_in_cached(min, max, &mut cache)?
        };
        use crate::world::StructureKind::{Bridge, Tunnel};
        let spans = super::structures::road_spans(&net, &structures, &[Bridge, Tunnel]);
        let bridges = super::structures::road_spans(&net, &structures, &[Bridge]);
        let lines = (net.roads.iter().enumerate())
            .map(|(i, r)| {
                let mut h = FixedHasher.build_hasher();
                (r.width.to_bits(), r.class as u64).hash(&mut h);
                (r.z.iter().map(|z| z.to_bits())).for_each(|z| z.hash(&mut h));
                (spans[i].iter()).for_each(|&(a, b)| (a.to_bits(), b.to_bits()).hash(&mut h));
                LineSum::new(&r.points, h.finish())
            })
            .chain(streams.iter().map(|s| LineSum::new(&s.points, 1)))
            .chain(cities.iter().map(|c| {
                // A town's ground follows its lots and buildings.
                let mut h = FixedHasher.build_hasher();
                for l in layouts.iter().filter(|l| l.city.id == c.id) {
                    for lot in &l.lots {
                        (lot.polygon.iter())
                            .for_each(|p| (p.x.to_bits(), p.y.to_bits()).hash(&mut h));
                        if let Some(b) = &lot.building {
                            b.base.to_bits().hash(&mut h);
                        }
                    }
                }
                LineSum::new(&c.boundary, h.finish() ^ 2)
            }))
            .collect();
        let segments = net.roads.iter().map(laid::segment_hashes).collect();
        let streams = Arc::new(StreamLayer::new(streams, StreamLayer::WIDTH));
        // The built ground, with the streams laid on it too.
        let ground = (*ground).clone().with(LaidKind::Stream, streams.clone());
        let structure_cells = super::structures::structure_cells(&structures, &net, generation);
        Ok(Laid {
            ground: Arc::new(ground),
            structures: Arc::new(structures),
            structure_cells: Arc::new(structure_cells),
            spans,
            bridges,
            salt,
            reach,
            roads: Arc::new(RoadLayer::new(net)),
            streams,
            cities: Arc::new(CityGround::new(cities)),
            layouts,
            region: (min, max),
            lines,
            segments,
        })
    }));
}

impl Laid {
    /// No roads and no streams over `region`: the bare terrain.
    fn empty(terrain: &Arc<Terrain>, region: (DVec2, DVec2)) -> Self {
        Self {
            ground: Arc::new(LaidGround::new(terrain.clone())),
            structures: Arc::default(),
            structure_cells: Arc::default(),
            spans: Vec::new(),
            bridges: Vec::new(),
            salt: 0,
            reach: 0.0,
            roads: Arc::new(RoadLayer::new(Arc::new(RoadNetwork::default()))),
            streams: Arc::default(),
            cities: Arc::default(),
            layouts: Vec::new(),
            region,
            lines: Vec::new(),
            segments: Vec::new(),
        }
    }
}

/// Lays a region on the ground: its built ground (no terrain copies: the
/// ground shares it), roads, towns and structures. The region it replaces
/// is freed on a worker (freeing a region's many allocations takes a frame's
/// share of time).
fn lay(
    state: &TerrainState,
    laid: &mut LaidRoads,
    roads: &mut RoadManager,
    workers: &ReliefWorkers,
    new: Laid,
) {
    roads.roads = new.roads.network().roads.len();
    let version = laid.version + 1;
    let new = LaidRoads {
        ground: new.ground,
        roads: new.roads,
        streams: new.streams,
        cities: new.cities,
        layouts: Arc::new(new.layouts),
        region: Some(new.region),
        structures: new.structures,
        structure_cells: new.structure_cells,
        version,
        lines: Arc::new(new.lines),
        segments: Arc::new(new.segments),
        spans: Arc::new(new.spans),
        bridges: Arc::new(new.bridges),
        terrain: state.terrain.clone(),
        salt: new.salt,
        reach: new.reach,
    };
    workers.free(std::mem::replace(laid, new));
}
