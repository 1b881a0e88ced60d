//! City footprints laid on the terrain as town ground.

use super::settlements::{City, bounds};
use crate::terrain::Overlay;
use glam::DVec2;

/// City footprints as an [`Overlay`]: lay it with
/// [`LaidKind::Town`](crate::terrain::LaidKind::Town) and the ground inside
/// becomes town (no trees, no lattice buildings; lakes stay).
///
/// ```
/// use bevy_relief::city::{CityGround, SettlementParams, Settlements};
/// use bevy_relief::terrain::{LaidGround, LaidKind, Terrain};
/// use glam::DVec2;
/// use std::sync::Arc;
/// let t = Arc::new(Terrain::default());
/// let s = Settlements::new(SettlementParams::default()).unwrap();
/// let cities = s.cities_in(&t, DVec2::splat(-9000.0), DVec2::splat(9000.0));
/// let ground = LaidGround::new(t).with(LaidKind::Town, Arc::new(CityGround::new(cities)));
/// # let _ = ground;
/// ```
#[derive(Clone, Debug, Default)]
pub struct CityGround {
    cities: Vec<City>,
    /// Each city's bounding box, checked before its polygon.
    boxes: Vec<(DVec2, DVec2)>,
}

impl CityGround {
    /// Indexes the footprints of these cities.
    pub fn new(cities: Vec<City>) -> Self {
        let boxes = cities.iter().map(|c| bounds(&c.boundary)).collect();
        Self { cities, boxes }
    }

    /// The cities laid.
    pub fn cities(&self) -> &[City] {
        &self.cities
    }

    /// The city whose footprint holds `p`, if any.
    pub fn city_at(&self, p: DVec2) -> Option<&City> {
        self.boxes
            .iter()
            .zip(&self.cities)
            .find(|((lo, hi), c)| p.cmpge(*lo).all() && p.cmple(*hi).all() && c.contains(p))
            .map(|(_, c)| c)
    }
}

impl Overlay for CityGround {
    fn covers(&self, p: DVec2) -> bool {
        self.city_at(p).is_some()
    }
}
