//! City layouts in the road system: each city laid out once (memo per
//! terrain and city parameters), with the highways that end at its gates.

use super::RoadSystemParams;
use super::ground::{CityPlan, plan, profiled};
use super::highways::{CityCells, Highways};
use crate::city::{City, CityLayout, LayoutError, lay_out};
use crate::terrain::{Terrain, TerrainParams};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Layouts kept between requests at most (then the memo starts afresh).
const MEMO_LIMIT: usize = 256;

/// Laid-out cities by id, for one terrain and one set of city parameters.
#[derive(Debug, Default)]
pub(crate) struct Layouts {
    memo: Mutex<Memo>,
}

/// A layout (its buildings on their pads when the town is built into the
/// ground) and the town's plan.
pub(crate) type Laid = Result<(Arc<CityLayout>, Option<Arc<CityPlan>>), LayoutError>;

#[derive(Debug, Default)]
struct Memo {
    terrain: Option<TerrainParams>,
    cities: BTreeMap<(i64, i64), Laid>,
}

impl Layouts {
    /// The layouts `other` made, for a system whose layouts would come out
    /// the same (see [`RoadSystem::reusing`](super::RoadSystem::reusing)).
    pub(crate) fn carried_from(other: &Layouts) -> Self {
        let memo = other.memo.lock().unwrap_or_else(|e| e.into_inner());
        Self {
            memo: Mutex::new(Memo {
                terrain: memo.terrain.clone(),
                cities: memo.cities.clone(),
            }),
        }
    }

    /// The layout of `city` and its town's plan (computed once).
    pub(crate) fn get(
        &self,
        params: &RoadSystemParams,
        highways: &Highways,
        terrain: &Terrain,
        cells: &mut CityCells,
        city: &City,
    ) -> Laid {
        {
            let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
            if memo.terrain.as_ref() != Some(terrain.params()) {
                memo.terrain = Some(terrain.params().clone());
                memo.cities.clear();
            }
            if let Some(l) = memo.cities.get(&city.id) {
                return l.clone();
            }
        }
        let (lo, hi) = city.bounds();
        let near = highways.near(params, terrain, cells, lo, hi);
        let ends: Vec<&[glam::DVec2]> = (near.iter())
            .filter(|h| h.link.0 == city.id || h.link.1 == city.id)
            .map(|h| h.road.points.as_slice())
            .collect();
        let e = &params.earthworks;
        let laid = lay_out(city, terrain, &ends, &params.cities).map(|layout| {
            if !e.enabled {
                return (Arc::new(layout), None);
            }
            let gates: Vec<_> = (near.iter())
                .filter(|h| h.link.0 == city.id || h.link.1 == city.id)
                .map(|h| profiled(terrain, &h.road, e))
                .collect();
            let (town, layout) = plan(terrain, &layout, &gates, e);
            (Arc::new(layout), Some(Arc::new(town)))
        });
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        if memo.cities.len() >= MEMO_LIMIT {
            memo.cities.clear();
        }
        memo.cities.insert(city.id, laid.clone());
        laid
    }
}
