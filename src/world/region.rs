//! [`Region`]: what the world holds over one area, and how
//! [`RoadSystem::region`] composes it — every road with a point in the area,
//! whole, built into the ground with the towns around them.

use super::ground::{self, EarthworkParams, EarthworkReport, Structure, StructureKind};
use super::highways::CityCells;
use super::{RoadSystem, check_area, clip};
use crate::city::{City, CityGround, CityLayout};
use crate::network::{Road, RoadClass, RoadLayer, RoadNetwork, planarize};
use crate::roads::{RoadError, RoadGenerator};
use crate::terrain::{LaidGround, LaidKind, Terrain};
use glam::DVec2;
use std::sync::Arc;

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
    /// [`MAX_ROAD_SIDE`](crate::roads::MAX_ROAD_SIDE), or beyond
    /// [`MAX_ROAD_AREA`](crate::roads::MAX_ROAD_AREA) (grown by the
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
