//! Roads and streams around the focus. A [`RoadSource`] (any
//! [`RoadGenerator`]; by default the [`RoadSystem`] of
//! [`TerrainSettings::roads`]: cities, highways, contour roads) is asked on a worker thread for the square of
//! `road_radius` around the focus, snapped to a 500 m grid, so it runs only
//! every few hundred metres of travel. The network and the streams of the
//! square are then laid on the ground ([`LaidRoads::ground`]), with the
//! cities' footprints as town ground, so that `terra()` reports `Road`,
//! `Stream` and `Town` and nothing is placed on roads and streams, and no
//! tree or village house in a city.
//! Because a generator's roads inside an area never depend on what else was
//! asked for, a new network agrees with the old one wherever they overlap:
//! chunks and object cells compare a fingerprint of the roads over them and
//! rebuild only where it changed.

use super::coords::FocusState;
use super::settings::{TerrainSettings, TerrainState};
use super::tasks::{Job, ReliefWorkers};
use crate::city::{CityGround, CityLayout};
use crate::network::{RoadLayer, RoadNetwork};
use crate::plugin::{ReliefError, RoadsLaid};
use crate::roads::{RoadError, RoadGenerator};
use crate::terrain::{LaidGround, LaidKind, StreamCache, StreamLayer, Terrain};
use crate::world::{Region, RoadSystem};
use bevy::math::DVec2;
use bevy::prelude::*;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The road-region grid, metres.
const SNAP: f64 = 500.0;

/// The road generator the plugin asks. Set it with
/// [`ReliefPlugin::with_roads`](crate::plugin::ReliefPlugin::with_roads); without
/// one, the [`RoadSystem`] of [`TerrainSettings::roads`] is used (and
/// follows that setting live).
#[derive(Resource, Clone, Default)]
pub struct RoadSource {
    custom: Option<Arc<dyn RoadGenerator>>,
}

impl std::fmt::Debug for RoadSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.custom {
            Some(_) => "RoadSource(custom)",
            None => "RoadSource(contour roads of the settings)",
        })
    }
}

impl RoadSource {
    /// A source that always asks `generator`.
    pub fn new(generator: Arc<dyn RoadGenerator>) -> Self {
        Self {
            custom: Some(generator),
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
            return Ok(Source::Custom(g.clone()));
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
enum Source {
    /// A custom generator: its network, no cities.
    Custom(Arc<dyn RoadGenerator>),
    /// The world's road system: network, cities and their layouts.
    System(Arc<RoadSystem>),
}

impl Source {
    fn region(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Result<Region, RoadError> {
        match self {
            Self::Custom(g) => Region::from_generator(g.as_ref(), terrain, min, max),
            Self::System(s) => s.region(terrain, min, max),
        }
    }
}

/// The default road system, with the settings and terrain generation it
/// was made for.
type MadeSystem = (crate::world::RoadSystemParams, u64, Arc<RoadSystem>);

/// What is laid on the ground around the focus: the ground everything reads
/// (the terrain with the roads and streams on it), the indexed roads and
/// streams, and the square they cover.
#[derive(Resource, Clone)]
pub struct LaidRoads {
    /// The terrain with the roads and streams laid on it.
    pub ground: Arc<LaidGround>,
    /// The roads, indexed.
    pub roads: Arc<RoadLayer>,
    /// The streams, indexed.
    pub streams: Arc<StreamLayer>,
    /// The cities touching the square, laid as town ground.
    pub cities: Arc<CityGround>,
    /// Their streets, lots and buildings (the streets are in `roads`).
    pub layouts: Arc<Vec<Arc<CityLayout>>>,
    /// The square whose roads (all roads with a point in it) and streams are
    /// laid; objects are placed only inside it. `None` until the first network.
    pub region: Option<(DVec2, DVec2)>,
    /// Bumped whenever something is laid or taken away.
    pub version: u64,
    /// Every road, then every stream, summed up for [`Self::fingerprint`].
    lines: Arc<Vec<LineSum>>,
}

impl LaidRoads {
    /// Nothing laid on `terrain`.
    pub fn bare(terrain: Arc<Terrain>) -> Self {
        Self {
            ground: Arc::new(LaidGround::new(terrain)),
            roads: Arc::default(),
            streams: Arc::default(),
            cities: Arc::default(),
            layouts: Arc::default(),
            region: None,
            version: 0,
            lines: Arc::default(),
        }
    }

    /// A hash of every road and stream near `[min, max]` (and of whether the
    /// box lies in the laid region): equal fingerprints mean the same roads
    /// there, so whatever was built over the box still stands.
    pub fn fingerprint(&self, min: DVec2, max: DVec2) -> u64 {
        let mut h = std::hash::DefaultHasher::new();
        self.covers(min, max).hash(&mut h);
        let (nr, lines) = (self.roads.network().roads.len(), &self.lines);
        let mut near: Vec<u64> = if (max - min).max_element() <= SMALL_BOX {
            // Small boxes ask the index: a few cells.
            (self.roads.roads_in(min, max).into_iter())
                .chain(
                    self.streams
                        .streams_near(min, max)
                        .into_iter()
                        .map(|i| nr + i),
                )
                .map(|i| lines[i].hash)
                .collect()
        } else {
            // Large ones test every line's box: bounded by the line count,
            // not by how many cells the box holds.
            let (lo, hi) = (min - LINE_PAD, max + LINE_PAD);
            (lines.iter())
                .filter(|l| l.lo.cmple(hi).all() && l.hi.cmpge(lo).all())
                .map(|l| l.hash)
                .collect()
        };
        near.sort_unstable();
        near.hash(&mut h);
        h.finish()
    }

    /// Whether the whole box lies in the laid region.
    pub fn covers(&self, min: DVec2, max: DVec2) -> bool {
        self.region
            .is_some_and(|(a, b)| min.cmpge(a).all() && max.cmple(b).all())
    }
}

/// Boxes up to this side are fingerprinted through the road index, metres.
const SMALL_BOX: f64 = 300.0;
/// How far a line's box is grown for the large-box test (more than any
/// ribbon's half width), metres.
const LINE_PAD: f64 = 60.0;

/// A road or stream in brief: a hash of its geometry and its bounding box.
#[derive(Clone, Copy, Debug)]
struct LineSum {
    hash: u64,
    lo: DVec2,
    hi: DVec2,
}

impl LineSum {
    fn new(points: &[DVec2], extra: u64) -> Self {
        let mut h = std::hash::DefaultHasher::new();
        extra.hash(&mut h);
        let (mut lo, mut hi) = (DVec2::INFINITY, DVec2::NEG_INFINITY);
        for p in points {
            (p.x.to_bits(), p.y.to_bits()).hash(&mut h);
            (lo, hi) = (lo.min(*p), hi.max(*p));
        }
        Self {
            hash: h.finish(),
            lo,
            hi,
        }
    }
}

/// What a road task produces.
struct Laid {
    roads: Arc<RoadLayer>,
    streams: Arc<StreamLayer>,
    cities: Arc<CityGround>,
    layouts: Vec<Arc<CityLayout>>,
    region: (DVec2, DVec2),
    lines: Vec<LineSum>,
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
    if !Arc::ptr_eq(laid.ground.terrain(), &state.terrain) {
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
                lay(&state, &mut laid, &mut roads, new);
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
                    lay(&state, &mut laid, &mut roads, Laid::empty(region));
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
    roads.target = Some(wanted);
    let terrain = state.terrain.clone();
    let cache = roads.stream_cache.clone();
    roads.task = Some(workers.spawn(move || {
        let Region {
            network: net,
            cities,
            layouts,
            ..
        } = generator.region(&terrain, min, max)?;
        let streams = {
            let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
            terrain.streams_in_cached(min, max, &mut cache)?
        };
        let lines = (net.roads.iter())
            .map(|r| LineSum::new(&r.points, r.width.to_bits() ^ r.class as u64))
            .chain(streams.iter().map(|s| LineSum::new(&s.points, 1)))
            .chain(cities.iter().map(|c| LineSum::new(&c.boundary, 2)))
            .collect();
        Ok(Laid {
            roads: Arc::new(RoadLayer::new(net)),
            streams: Arc::new(StreamLayer::new(streams, StreamLayer::WIDTH)),
            cities: Arc::new(CityGround::new(cities)),
            layouts,
            region: (min, max),
            lines,
        })
    }));
}

impl Laid {
    /// No roads and no streams over `region`.
    fn empty(region: (DVec2, DVec2)) -> Self {
        Self {
            roads: Arc::new(RoadLayer::new(Arc::new(RoadNetwork::default()))),
            streams: Arc::default(),
            cities: Arc::default(),
            layouts: Vec::new(),
            region,
            lines: Vec::new(),
        }
    }
}

/// Lays a network on the ground (no terrain copies: the ground shares it).
fn lay(state: &TerrainState, laid: &mut LaidRoads, roads: &mut RoadManager, new: Laid) {
    roads.roads = new.roads.network().roads.len();
    let ground = LaidGround::new(state.terrain.clone())
        .with(LaidKind::Road, new.roads.clone())
        .with(LaidKind::Stream, new.streams.clone())
        .with(LaidKind::Town, new.cities.clone());
    *laid = LaidRoads {
        ground: Arc::new(ground),
        roads: new.roads,
        streams: new.streams,
        cities: new.cities,
        layouts: Arc::new(new.layouts),
        region: Some(new.region),
        version: laid.version + 1,
        lines: Arc::new(new.lines),
    };
}
