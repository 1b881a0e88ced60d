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
mod region;
#[cfg(test)]
mod settings_tests;
#[cfg(test)]
mod tests;

use crate::city::{City, CityLayout, CityParams, LayoutError, SettlementParams, Settlements};
use crate::network::{Road, RoadClass, RoadNetwork};
use crate::roads::planner::{GameplayParams, PlannerParams};
use crate::roads::{
    ContourParams, ContourRoads, MAX_ROAD_AREA, MAX_ROAD_SIDE, RoadAreaError, RoadError,
    RoadGenerator,
};
use crate::terrain::{ParamError, Terrain};
use glam::DVec2;
pub use ground::{
    ClassGrades, EarthworkParams, EarthworkReport, Earthworks, Structure, StructureKind,
};
use highways::{CityCells, Highways};
pub use region::Region;
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
