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
use super::tasks::{Job, ReliefWorkers};
use crate::city::{CityGround, CityLayout};
use crate::network::{RoadLayer, RoadNetwork};
use crate::plugin::{ReliefError, RoadsLaid};
use crate::roads::{RoadError, RoadGenerator};
use crate::terrain::{LaidGround, LaidKind, StreamCache, StreamLayer, Terrain};
use crate::world::{Region, RoadSystem, Structure};
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
    /// The region's bridges, tunnels and retaining walls.
    pub structures: Arc<Vec<Structure>>,
    /// Bumped whenever something is laid or taken away.
    pub version: u64,
    /// Every road, then every stream, then every city, summed up for
    /// [`Self::fingerprint`].
    lines: Arc<Vec<LineSum>>,
    /// For each road, the stretches (arc-length intervals, ascending) that
    /// are bridges or tunnels: drawn by structures, not ribbons.
    spans: Arc<Vec<Vec<(f64, f64)>>>,
    /// The terrain the roads were laid for (the state's, by pointer).
    terrain: Arc<Terrain>,
    /// A hash of the earthwork parameters (0 with a custom generator).
    salt: u64,
    /// How far from a road or a city its earthworks may reach, metres.
    reach: f64,
}

impl LaidRoads {
    /// Nothing laid on `terrain`.
    pub fn bare(terrain: Arc<Terrain>) -> Self {
        Self {
            ground: Arc::new(LaidGround::new(terrain.clone())),
            roads: Arc::default(),
            streams: Arc::default(),
            cities: Arc::default(),
            layouts: Arc::default(),
            region: None,
            structures: Arc::default(),
            version: 0,
            lines: Arc::default(),
            spans: Arc::default(),
            terrain,
            salt: 0,
            reach: 0.0,
        }
    }

    /// How far the earthworks of a road or a town may reach, metres.
    pub fn reach(&self) -> f64 {
        self.reach
    }

    /// [`Self::spans`] of every road.
    pub(crate) fn all_spans(&self) -> Arc<Vec<Vec<(f64, f64)>>> {
        self.spans.clone()
    }

    /// The bridge and tunnel stretches of road `i` (arc-length intervals
    /// along its points, ascending; empty for most roads).
    pub fn spans(&self, i: usize) -> &[(f64, f64)] {
        self.spans.get(i).map_or(&[], Vec::as_slice)
    }

    /// A hash of what shapes the built ground over `[min, max]`: 0 where
    /// nothing built may shape it (the natural terrain), else the roads
    /// (with their profiles) and towns within the earthworks' reach and the
    /// earthwork parameters. Equal prints, equal ground: a chunk mesh built
    /// on it still stands.
    pub fn ground_print(&self, min: DVec2, max: DVec2) -> u64 {
        let shaped = (self.ground.relief()).is_some_and(|r| r.may_shape(min, max));
        if !shaped {
            return 0;
        }
        let (lo, hi) = (min - self.reach, max + self.reach);
        let net = self.roads.network();
        let nr = net.roads.len();
        let ns = self.streams.streams().len();
        let lines = &self.lines;
        let candidates: Vec<usize> = if (hi - lo).max_element() <= SMALL_BOX {
            self.roads.roads_in(lo, hi)
        } else {
            (0..nr.min(lines.len()))
                .filter(|&i| lines[i].meets(lo, hi, LINE_PAD))
                .collect()
        };
        // Only the pieces of a road near the box count: a long road clipped
        // elsewhere by another region shapes this ground all the same.
        let mut near: Vec<u64> = candidates
            .into_iter()
            .map(|i| {
                let r = &net.roads[i];
                let mut h = std::hash::DefaultHasher::new();
                (r.width.to_bits(), r.class as u8).hash(&mut h);
                let z = |k: usize| r.z.get(k).map_or(0, |z| z.to_bits());
                for (k, w) in r.points.windows(2).enumerate() {
                    let (a, b) = (w[0].min(w[1]), w[0].max(w[1]));
                    if a.cmple(hi + LINE_PAD).all() && b.cmpge(lo - LINE_PAD).all() {
                        let (p, q) = (w[0], w[1]);
                        (p.x.to_bits(), p.y.to_bits(), z(k)).hash(&mut h);
                        (q.x.to_bits(), q.y.to_bits(), z(k + 1)).hash(&mut h);
                    }
                }
                h.finish()
            })
            .collect();
        // Towns: a few, each tested by its box.
        near.extend(
            (lines.iter().skip(nr + ns))
                .filter(|l| l.meets(lo, hi, LINE_PAD))
                .map(|l| l.hash),
        );
        near.sort_unstable();
        let mut h = std::hash::DefaultHasher::new();
        (self.salt, near).hash(&mut h);
        h.finish() | 1
    }

    /// A hash of every road and stream near `[min, max]` (and of whether the
    /// box lies in the laid region): equal fingerprints mean the same roads
    /// there, so whatever was built over the box still stands.
    pub fn fingerprint(&self, min: DVec2, max: DVec2) -> u64 {
        let mut h = std::hash::DefaultHasher::new();
        (self.covers(min, max), self.salt).hash(&mut h);
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
            (lines.iter())
                .filter(|l| l.meets(min, max, LINE_PAD))
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
    /// Whether the line's box, grown by `pad`, meets `[min, max]`.
    fn meets(&self, min: DVec2, max: DVec2, pad: f64) -> bool {
        self.lo.cmple(max + pad).all() && self.hi.cmpge(min - pad).all()
    }

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
    ground: Arc<LaidGround>,
    structures: Arc<Vec<Structure>>,
    spans: Vec<Vec<(f64, f64)>>,
    salt: u64,
    reach: f64,
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
                    let empty = Laid::empty(&state.terrain, region);
                    lay(&state, &mut laid, &mut roads, empty);
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
        Source::System(_) => {
            let e = &settings.roads.earthworks;
            let mut h = std::hash::DefaultHasher::new();
            format!("{e:?}").hash(&mut h);
            (h.finish(), e.max_reach)
        }
    };
    roads.target = Some(wanted);
    let terrain = state.terrain.clone();
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
        let spans = super::structures::road_spans(&net, &structures);
        let lines = (net.roads.iter().enumerate())
            .map(|(i, r)| {
                let mut h = std::hash::DefaultHasher::new();
                (r.width.to_bits(), r.class as u64).hash(&mut h);
                (r.z.iter().map(|z| z.to_bits())).for_each(|z| z.hash(&mut h));
                (spans[i].iter()).for_each(|&(a, b)| (a.to_bits(), b.to_bits()).hash(&mut h));
                LineSum::new(&r.points, h.finish())
            })
            .chain(streams.iter().map(|s| LineSum::new(&s.points, 1)))
            .chain(cities.iter().map(|c| {
                // A town's ground follows its lots and buildings.
                let mut h = std::hash::DefaultHasher::new();
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
        let streams = Arc::new(StreamLayer::new(streams, StreamLayer::WIDTH));
        // The built ground, with the streams laid on it too.
        let ground = (*ground).clone().with(LaidKind::Stream, streams.clone());
        Ok(Laid {
            ground: Arc::new(ground),
            structures: Arc::new(structures),
            spans,
            salt,
            reach,
            roads: Arc::new(RoadLayer::new(net)),
            streams,
            cities: Arc::new(CityGround::new(cities)),
            layouts,
            region: (min, max),
            lines,
        })
    }));
}

impl Laid {
    /// No roads and no streams over `region`: the bare terrain.
    fn empty(terrain: &Arc<Terrain>, region: (DVec2, DVec2)) -> Self {
        Self {
            ground: Arc::new(LaidGround::new(terrain.clone())),
            structures: Arc::default(),
            spans: Vec::new(),
            salt: 0,
            reach: 0.0,
            roads: Arc::new(RoadLayer::new(Arc::new(RoadNetwork::default()))),
            streams: Arc::default(),
            cities: Arc::default(),
            layouts: Vec::new(),
            region,
            lines: Vec::new(),
        }
    }
}

/// Lays a region on the ground: its built ground (no terrain copies: the
/// ground shares it), roads, towns and structures.
fn lay(state: &TerrainState, laid: &mut LaidRoads, roads: &mut RoadManager, new: Laid) {
    roads.roads = new.roads.network().roads.len();
    *laid = LaidRoads {
        ground: new.ground,
        roads: new.roads,
        streams: new.streams,
        cities: new.cities,
        layouts: Arc::new(new.layouts),
        region: Some(new.region),
        structures: new.structures,
        version: laid.version + 1,
        lines: Arc::new(new.lines),
        spans: Arc::new(new.spans),
        terrain: state.terrain.clone(),
        salt: new.salt,
        reach: new.reach,
    };
}
