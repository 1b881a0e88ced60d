//! The world: the layer that composes roads and cities into one answer per
//! area. [`RoadSystem`] makes every layer of roads one planar
//! [`RoadNetwork`] per region — cities (their footprints), highways between
//! neighbouring cities (A*), and contour roads in the countryside, which stop
//! at footprints and end on the first highway they meet — and each city's
//! streets, joined to its highways at the gates, with its lots and buildings.
//! [`RoadSystem::region`] returns all of it for an area as one [`Region`].
//!
//! ```
//! use bevy_relief::world::{Region, RoadSystem, RoadSystemParams};
//! use bevy_relief::terrain::Terrain;
//! use glam::DVec2;
//! let terrain = Terrain::default();
//! let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
//! let region: Region = sys
//!     .region(&terrain, DVec2::new(0.0, 0.0), DVec2::new(600.0, 600.0))
//!     .unwrap();
//! assert!(region.network.check_planar().is_ok());
//! ```

mod cities;
mod clip;
mod ground;
mod highways;
#[cfg(test)]
mod settings_tests;
#[cfg(test)]
mod tests;

use crate::city::{
    City, CityGround, CityLayout, CityParams, LayoutError, SettlementParams, Settlements,
};
use crate::network::{Road, RoadClass, RoadLayer, RoadNetwork, planarize};
use crate::roads::planner::{GameplayParams, PlannerParams};
use crate::roads::{
    ContourParams, ContourRoads, MAX_ROAD_AREA, MAX_ROAD_SIDE, RoadAreaError, RoadError,
    RoadGenerator,
};
use crate::terrain::{LaidGround, LaidKind, ParamError, Terrain};
use glam::DVec2;
pub use ground::{
    ClassGrades, EarthworkParams, EarthworkReport, Earthworks, Structure, StructureKind,
};
use highways::{CityCells, Highways};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Everything the road system is made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct RoadSystemParams {
    /// Where cities are.
    pub settlements: SettlementParams,
    /// How highways are planned (A*; by default the gameplay profile
    /// "speed" at 1, bridges allowed).
    pub highways: PlannerParams,
    /// Highway width, metres.
    pub highway_width: f64,
    /// Longest link between two city centres, metres.
    pub max_link: f64,
    /// Contour roads in the countryside.
    pub contour_roads: bool,
    /// How contour roads are grown.
    pub contour: ContourParams,
    /// How cities are laid out: streets, lots, buildings.
    pub cities: CityParams,
    /// How roads and towns are built into the ground.
    pub earthworks: EarthworkParams,
}

impl Default for RoadSystemParams {
    fn default() -> Self {
        let mut highways = PlannerParams {
            bridges: true,
            // Highways are long: a coarser grid than a country lane's.
            step: 100.0,
            sample: 50.0,
            ..PlannerParams::default()
        };
        let mut g = GameplayParams::default();
        if g.set("speed", 1.0).is_ok() {
            highways.weights = g.weights(&highways.weights);
        }
        Self {
            settlements: SettlementParams::default(),
            highways,
            highway_width: RoadClass::Highway.default_width(),
            max_link: 14_000.0,
            contour_roads: true,
            contour: ContourParams::default(),
            cities: CityParams::default(),
            earthworks: EarthworkParams::default(),
        }
    }
}

impl RoadSystemParams {
    /// Checks every part; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.settlements
            .validate()
            .map_err(|e| e.within("settlements"))?;
        self.highways.validate().map_err(|e| e.within("highways"))?;
        self.contour.validate().map_err(|e| e.within("contour"))?;
        self.cities.validate().map_err(|e| e.within("cities"))?;
        (self.earthworks.validate()).map_err(|e| e.within("earthworks"))?;
        ParamError::check_range("highway_width", self.highway_width, 1.0, 100.0)?;
        let longest = self.highways.max_length.min(MAX_LINK);
        ParamError::check_range("max_link", self.max_link, 0.0, longest)?;
        // How far a highway's search may stray from its two cities bounds
        // the cities every request must look at: keep it bounded.
        let h = &self.highways;
        let margin = h.window * self.max_link * h.distance_factor;
        let field = if margin >= h.min_margin {
            "highways.window"
        } else {
            "highways.min_margin"
        };
        let margin = margin.max(h.min_margin);
        ParamError::check_range(field, margin, 0.0, MAX_HIGHWAY_MARGIN)?;
        let cells = (self.max_link + 2.0 * margin) * (2.0 * margin) / (h.step * h.step);
        if cells > MAX_HIGHWAY_CELLS {
            return Err(ParamError::TooMuchWork {
                field: "highways.step".into(),
                what: "the longest link's search window, in cells,",
                value: cells,
                max: MAX_HIGHWAY_CELLS,
                advice: "raise highways.step, or lower max_link, highways.window or highways.min_margin",
            });
        }
        Ok(())
    }
}

/// Longest highway link between two city centres, metres: a region looks
/// for cities this far around it.
pub const MAX_LINK: f64 = 30_000.0;

/// Widest search margin of a highway around its straight line
/// (`highways.window × max_link × highways.distance_factor`, at least
/// `highways.min_margin`), metres.
pub const MAX_HIGHWAY_MARGIN: f64 = 5_000.0;

/// Most grid cells in the search window of the longest highway link
/// (`(max_link + 2 margin) × 2 margin / highways.step²`; about 4,700 with the
/// defaults): the bound on one link's planning work.
pub const MAX_HIGHWAY_CELLS: f64 = 20_000.0;

/// The road system: a [`RoadGenerator`] for every layer at once.
#[derive(Debug)]
pub struct RoadSystem {
    params: RoadSystemParams,
    settlements: Settlements,
    contour: ContourRoads,
    highways: Highways,
    layouts: cities::Layouts,
}

impl RoadSystem {
    /// A road system with these parameters (checked).
    pub fn new(params: RoadSystemParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self {
            settlements: Settlements::new(params.settlements.clone())?,
            contour: ContourRoads::new(params.contour.clone())?,
            params,
            highways: Highways::default(),
            layouts: cities::Layouts::default(),
        })
    }

    /// A road system with these parameters that keeps what `old` made and
    /// would make the same: the highways it planned when the settlement and
    /// highway settings are the same (so that editing city streets or
    /// contour roads live replans no highway), and with the city settings
    /// the same too, the cities it laid out (so that editing contour roads
    /// lays out no city again). Both stay keyed on the terrain.
    pub fn reusing(params: RoadSystemParams, old: &RoadSystem) -> Result<Self, ParamError> {
        let mut new = Self::new(params)?;
        let (a, b) = (&new.params, &old.params);
        if a.settlements == b.settlements
            && a.highways == b.highways
            && a.highway_width == b.highway_width
            && a.max_link == b.max_link
        {
            new.highways = Highways::carried_from(&old.highways);
            if a.cities == b.cities {
                new.layouts = cities::Layouts::carried_from(&old.layouts);
            }
        }
        Ok(new)
    }

    /// The parameters.
    pub fn params(&self) -> &RoadSystemParams {
        &self.params
    }

    /// The settlements (cities) the system links.
    pub fn settlements(&self) -> &Settlements {
        &self.settlements
    }

    /// The highways with a point in `[min, max]`, whole, by link.
    ///
    /// Areas not finite or beyond [`MAX_ROAD_AREA`] are refused, whatever
    /// the contour-road setting (every layer's work grows with the area).
    pub fn highways_in(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<Vec<Road>, RoadError> {
        check_area(min, max)?;
        let mut cities = CityCells::new(&self.settlements, terrain);
        let near = self
            .highways
            .near(&self.params, terrain, &mut cities, min, max);
        Ok((near.into_iter())
            .filter(|h| h.road.meets_rect(min, max))
            .map(|h| (*h.road).clone())
            .collect())
    }
}

impl RoadSystem {
    /// The streets, lots and buildings of `city` (laid out once, then
    /// remembered for this terrain).
    pub fn layout(&self, terrain: &Terrain, city: &City) -> Result<Arc<CityLayout>, LayoutError> {
        let mut cells = CityCells::new(&self.settlements, terrain);
        (self.layouts)
            .get(&self.params, &self.highways, terrain, &mut cells, city)
            .map(|l| l.0)
    }

    /// The cities whose footprint touches `[min, max]`, by id.
    fn cities_touching(cells: &mut CityCells, min: DVec2, max: DVec2) -> Vec<Arc<City>> {
        let reach = DVec2::splat(cells.reach());
        let mut near = cells.centres_in(min - reach, max + reach);
        near.retain(|c| c.touches(min, max));
        near.sort_by_key(|c| c.id);
        near
    }

    /// The layouts of `cities` and their plans (those that cannot be laid
    /// out are left out; [`Self::layout`] says why). None with
    /// `cities.enabled` off.
    fn layouts_of(
        &self,
        terrain: &Terrain,
        cells: &mut CityCells,
        cities: &[Arc<City>],
    ) -> Vec<(Arc<CityLayout>, Option<Arc<ground::CityPlan>>)> {
        if !self.params.cities.enabled {
            return Vec::new();
        }
        (cities.iter())
            .filter_map(|c| {
                (self.layouts)
                    .get(&self.params, &self.highways, terrain, cells, c)
                    .ok()
            })
            .collect()
    }
}

/// Refuses areas that are not finite, have a negative side or one longer
/// than [`MAX_ROAD_SIDE`], or are larger than [`MAX_ROAD_AREA`].
fn check_area(min: DVec2, max: DVec2) -> Result<(), RoadAreaError> {
    let size = max - min;
    let (width, height) = (size.x, size.y);
    if !(min.is_finite() && max.is_finite() && size.is_finite()) {
        return Err(RoadAreaError::TooLarge { width, height });
    }
    if !(size.cmpge(DVec2::ZERO).all() && size.cmple(DVec2::splat(MAX_ROAD_SIDE)).all()) {
        return Err(RoadAreaError::BadSide { width, height });
    }
    if width * height > MAX_ROAD_AREA {
        return Err(RoadAreaError::TooLarge { width, height });
    }
    Ok(())
}

/// Every part of the world over an area, before roads are made one network.
struct Parts {
    /// Highways and contour roads with a point in the area, in that order.
    highways: Vec<Road>,
    contour: Vec<Road>,
    /// The cities whose footprint touches the area, by id, with their
    /// layouts and plans (those laid out).
    touching: Vec<Arc<City>>,
    layouts: Vec<(Arc<CityLayout>, Option<Arc<ground::CityPlan>>)>,
    /// Their streets with a point in the area, wet ends trimmed.
    streets: Vec<Road>,
}

impl RoadSystem {
    /// Every road with a point in `[min, max]`, whole, and the cities that
    /// touch it.
    fn parts(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Result<Parts, RoadError> {
        let mut cities = CityCells::new(&self.settlements, terrain);
        // Contour roads first: whole, they may reach far beyond the area, and
        // every highway and footprint they could meet must be known.
        let contour = if self.params.contour_roads {
            self.contour.try_generate(terrain, min, max)?.roads
        } else {
            Vec::new()
        };
        let (mut lo, mut hi) = (min, max);
        for r in &contour {
            let (a, b) = crate::geom::bounds(&r.points);
            (lo, hi) = (lo.min(a), hi.max(b));
        }
        let highways = self
            .highways
            .near(&self.params, terrain, &mut cities, lo, hi);
        let reach = DVec2::splat(cities.reach());
        let footprints: Vec<Arc<City>> = cities.centres_in(lo - reach, hi + reach);
        let footprints: Vec<&City> = footprints.iter().map(|c| c.as_ref()).collect();
        let lake = terrain.params().lake_level;
        let dry = |p: DVec2| terrain.height(p.x, p.y) >= lake;
        // City streets (their highway stubs are the highways' own ends); a
        // ring road cut where a lake crosses the footprint ends on its last
        // dry vertex. A town built into the ground has them in its plan.
        let touching = Self::cities_touching(&mut cities, min, max);
        let layouts = self.layouts_of(terrain, &mut cities, &touching);
        let mut streets = Vec::new();
        for (l, plan) in &layouts {
            if let Some(plan) = plan {
                streets.extend(
                    plan.streets
                        .iter()
                        .filter(|r| r.meets_rect(min, max))
                        .cloned(),
                );
                continue;
            }
            for r in &l.streets.network.roads {
                if r.class == RoadClass::Highway {
                    continue;
                }
                let mut r = r.clone();
                clip::trim_wet(&mut r.points, dry);
                if r.points.len() >= 2 && r.meets_rect(min, max) {
                    streets.push(r);
                }
            }
        }
        let mut pieces = Vec::new();
        for r in &contour {
            for piece in clip::outside_cities(r, &footprints, dry) {
                let points = clip::end_on_highway(&piece, &highways, dry);
                let road = Road::new(points, r.class, r.width);
                if road.points.len() >= 2
                    && clip::length(&road.points) >= clip::MIN_PIECE
                    && road.meets_rect(min, max)
                {
                    pieces.push(road);
                }
            }
        }
        Ok(Parts {
            highways: (highways.iter())
                .filter(|h| h.road.meets_rect(min, max))
                .map(|h| (*h.road).clone())
                .collect(),
            contour: pieces,
            touching,
            layouts,
            streets,
        })
    }

    /// Everything the world has over `[min, max]`, as one consistent answer:
    /// the planar network of every road with a point in the area (highways,
    /// city streets, contour roads) with their profiles, the cities whose
    /// footprint touches it, their layouts (streets, lots, buildings on
    /// their pads), the built ground and its structures. Region-stable: the
    /// same inside any area however it was asked for (roads are whole, and
    /// their heights within the area are the same; beyond it, they may
    /// differ where they meet roads that this region does not hold).
    ///
    /// Areas not finite, with a negative side or a side over
    /// [`MAX_ROAD_SIDE`], or beyond [`MAX_ROAD_AREA`] (grown by the
    /// earthworks' margin, when they are built) are refused at once.
    pub fn region(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Result<Region, RoadError> {
        check_area(min, max)?;
        let e = &self.params.earthworks;
        let terrain_arc = Arc::new(terrain.clone());
        if !e.enabled {
            let parts = self.parts(terrain, min, max)?;
            let roads = (parts.highways.into_iter())
                .chain(parts.streets)
                .chain(parts.contour)
                .collect();
            let network = Arc::new(planarize(vec![RoadNetwork::from_roads(roads)]));
            let cities: Vec<City> = parts.touching.iter().map(|c| (**c).clone()).collect();
            let ground = LaidGround::new(terrain_arc)
                .with(LaidKind::Road, Arc::new(RoadLayer::new(network.clone())))
                .with(LaidKind::Town, Arc::new(CityGround::new(cities.clone())));
            return Ok(Region {
                min,
                max,
                network,
                cities,
                layouts: parts.layouts.into_iter().map(|l| l.0).collect(),
                ground: Arc::new(ground),
                structures: Vec::new(),
                report: EarthworkReport::default(),
            });
        }
        // Heights within the area depend on roads and towns within the
        // margin around it: the ground on those within reach, and each
        // road's heights on the junctions within two ramps.
        let margin = DVec2::splat(earthwork_margin(e));
        let (lo, hi) = (min - margin, max + margin);
        check_area(lo, hi)?;
        let parts = self.parts(terrain, lo, hi)?;
        let mut roads: Vec<Road> = (parts.highways.iter())
            .map(|r| ground::profiled(terrain, r, e))
            .collect();
        // Towns' streets keep the heights of their town's plan.
        let towns = roads.len()..roads.len() + parts.streets.len();
        roads.extend(parts.streets);
        roads.extend(
            parts
                .contour
                .iter()
                .map(|r| ground::profiled(terrain, r, e)),
        );
        let pads: Vec<Vec<ground::Pad>> = (parts.layouts.iter())
            .filter_map(|l| l.1.as_ref())
            .map(|plan| {
                (plan.pads.iter())
                    .filter(|pad| {
                        let (a, b) = crate::geom::bounds(&pad.polygon);
                        pad.polygon.len() >= 3 && a.cmple(hi).all() && b.cmpge(lo).all()
                    })
                    .cloned()
                    .collect()
            })
            .collect();
        let works = ground::build(terrain, roads, towns, pads, e);
        // The region's roads: those with a point in the area.
        let mut index = vec![usize::MAX; works.network.roads.len()];
        let mut kept = Vec::new();
        for (i, r) in works.network.roads.iter().enumerate() {
            if r.meets_rect(min, max) {
                index[i] = kept.len();
                kept.push(r.clone());
            }
        }
        let network = Arc::new(RoadNetwork::from_roads(kept));
        let lake = terrain.params().lake_level;
        let mut structures = Vec::new();
        for (i, spans) in works.spans.iter().enumerate() {
            if index[i] == usize::MAX {
                continue;
            }
            let r = &works.network.roads[i];
            for s in spans {
                let ks = s.first..=s.last;
                let natural = |k: usize| terrain.height(r.points[k].x, r.points[k].y);
                structures.push(Structure {
                    kind: s.kind,
                    road: Some(index[i]),
                    line: ks.clone().map(|k| r.points[k].extend(r.z[k])).collect(),
                    foot: ks
                        .map(|k| match s.kind {
                            StructureKind::Bridge => natural(k).max(lake),
                            _ => natural(k),
                        })
                        .collect(),
                });
            }
        }
        structures.extend(works.walls.into_iter().filter(|w| {
            w.line
                .iter()
                .any(|q| q.x >= min.x && q.y >= min.y && q.x <= max.x && q.y <= max.y)
        }));
        // The region's own cities: those touching the area.
        let own = |c: &City| c.touches(min, max);
        let cities: Vec<City> = (parts.touching.iter())
            .filter(|c| own(c))
            .map(|c| (**c).clone())
            .collect();
        let mut report = EarthworkReport::default();
        let mut layouts = Vec::new();
        for (l, plan) in parts.layouts {
            if own(&l.city) {
                report.streets_to_steps += plan.map_or(0, |p| p.to_steps);
                layouts.push(l);
            }
        }
        let ground = LaidGround::new(terrain_arc)
            .with(LaidKind::Road, Arc::new(RoadLayer::new(network.clone())))
            .with(LaidKind::Town, Arc::new(CityGround::new(cities.clone())))
            .with_relief(Arc::new(works.earthworks));
        Ok(Region {
            min,
            max,
            network,
            cities,
            layouts,
            ground: Arc::new(ground),
            structures,
            report,
        })
    }
}

/// How far around an area the roads and towns that shape its ground lie:
/// the reach of their earthworks, and two junction ramps, with room to
/// spare.
fn earthwork_margin(e: &EarthworkParams) -> f64 {
    e.max_reach + 2.0 * ground::window(e) + e.smoothing + 50.0
}

impl RoadGenerator for RoadSystem {
    fn generate(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<RoadNetwork, RoadError> {
        let network = self.region(terrain, min, max)?.network;
        Ok(Arc::try_unwrap(network).unwrap_or_else(|n| (*n).clone()))
    }
}

/// What the world holds over one area: one consistent answer from
/// [`RoadSystem::region`] (or [`Region::from_generator`] for any road
/// generator, with no cities).
#[derive(Clone, Debug)]
pub struct Region {
    /// The area's low corner.
    pub min: DVec2,
    /// The area's high corner.
    pub max: DVec2,
    /// Every road with a point in the area, whole: one planar network.
    pub network: Arc<RoadNetwork>,
    /// The cities whose footprint touches the area.
    pub cities: Vec<City>,
    /// Their streets, lots and buildings, by city id (the streets are also
    /// in `network`; a city that cannot be laid out is left out, and
    /// [`RoadSystem::layout`] says why).
    pub layouts: Vec<Arc<CityLayout>>,
    /// The built ground: the terrain with the roads, the towns and their
    /// earthworks laid on it. Its height is the profile along every
    /// carriageway, level on every lot, side slopes between, and the natural
    /// terrain bit for bit beyond the earthworks' reach.
    pub ground: Arc<LaidGround>,
    /// Bridges, tunnels and retaining walls.
    pub structures: Vec<Structure>,
    /// What the earthworks changed.
    pub report: EarthworkReport,
}

impl Region {
    /// The region of any road generator: its network, and no cities.
    pub fn from_generator(
        generator: &dyn RoadGenerator,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<Self, RoadError> {
        let network = Arc::new(generator.generate(terrain, min, max)?);
        Ok(Self {
            min,
            max,
            ground: Arc::new(
                LaidGround::new(Arc::new(terrain.clone()))
                    .with(LaidKind::Road, Arc::new(RoadLayer::new(network.clone()))),
            ),
            network,
            cities: Vec::new(),
            layouts: Vec::new(),
            structures: Vec::new(),
            report: EarthworkReport::default(),
        })
    }
}
