//! City layouts in the road system: each city laid out once (memo per
//! terrain and city parameters), with the highways that end at its gates.

use super::RoadSystemParams;
use super::ground::{CityPlan, inside, plan, profiled};
use super::highways::{CityCells, Highways};
use crate::city::lots::Lot;
use crate::city::{City, CityLayout, LayoutError, lay_out};
use crate::geom::{bounds, segment_distance};
use crate::terrain::{Terrain, TerrainParams};
use glam::DVec2;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Layouts are kept for the cities within this many settlement cells (in
/// x and in y) of the one laid out last: a player's surroundings, not
/// every city passed on a long journey (each layout holds its streets,
/// lots, buildings and pads).
const MEMO_REACH: u64 = 3;

/// Laid-out cities by id, for one terrain and one set of city parameters.
#[derive(Debug, Default)]
pub(crate) struct Layouts {
    memo: Mutex<Memo>,
}

/// How far beyond a highway's carriageway and shoulders a lot keeps,
/// metres.
const LOT_MARGIN: f64 = 1.0;

/// `lots` less those within `keep_off` of any of `highways` (or holding one
/// of their vertices): a highway between other cities may cross a town,
/// whose layout knows only its own gates. Lots are tested against the
/// highways' segments near them, so the answer is the city's and its
/// highways' alone.
fn off_highways(mut lots: Vec<Lot>, highways: &[&[DVec2]], keep_off: f64) -> Vec<Lot> {
    if lots.is_empty() {
        return lots;
    }
    let grow = DVec2::splat(keep_off);
    let (mut lo, mut hi) = (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY));
    for l in &lots {
        let (a, b) = bounds(&l.polygon);
        (lo, hi) = (lo.min(a), hi.max(b));
    }
    // The segments that could come near a lot, with their grown boxes.
    let segs: Vec<(DVec2, DVec2, DVec2, DVec2)> = (highways.iter())
        .flat_map(|h| h.windows(2))
        .map(|w| (w[0], w[1], w[0].min(w[1]) - grow, w[0].max(w[1]) + grow))
        .filter(|&(_, _, a, b)| a.cmple(hi).all() && b.cmpge(lo).all())
        .collect();
    if segs.is_empty() {
        return lots;
    }
    lots.retain(|l| {
        let v = &l.polygon;
        let (a, b) = bounds(v);
        !segs.iter().any(|&(p, q, slo, shi)| {
            slo.cmple(b).all()
                && shi.cmpge(a).all()
                && (inside(v, p)
                    || (0..v.len())
                        .any(|i| segment_distance(p, q, v[i], v[(i + 1) % v.len()]) <= keep_off))
        })
    });
    lots
}

/// How many settlement cells apart `a` and `b` are (the larger of the x
/// and y steps).
pub(crate) fn cells_apart(a: (i64, i64), b: (i64, i64)) -> u64 {
    a.0.abs_diff(b.0).max(a.1.abs_diff(b.1))
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
        let ends: Vec<&[DVec2]> = (near.iter())
            .filter(|h| h.link.0 == city.id || h.link.1 == city.id)
            .map(|h| h.road.points.as_slice())
            .collect();
        let e = &params.earthworks;
        let all: Vec<&[DVec2]> = near.iter().map(|h| h.road.points.as_slice()).collect();
        let keep_off = params.highway_width / 2.0 + e.shoulder + LOT_MARGIN;
        let laid = lay_out(city, terrain, &ends, &params.cities).map(|mut layout| {
            layout.lots = off_highways(std::mem::take(&mut layout.lots), &all, keep_off);
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
        memo.cities
            .retain(|&id, _| cells_apart(id, city.id) <= MEMO_REACH);
        memo.cities.insert(city.id, laid.clone());
        laid
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RoadSystem, RoadSystemParams};
    use super::*;
    use crate::network::RoadClass;
    use crate::terrain::Terrain;

    fn lot(min: DVec2, side: f64) -> Lot {
        let v = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        Lot {
            polygon: v.map(|(x, y)| min + DVec2::new(x, y) * side).to_vec(),
            building: None,
            block: 0,
        }
    }

    #[test]
    fn the_memo_keeps_the_layouts_near_the_last_one_only() {
        let t = Terrain::default();
        let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
        let s = sys.settlements();
        let along = |from: i64| (from..from + 20).find_map(|x| s.city_at(&t, (x, 2)));
        let a = along(0).unwrap();
        let b = along(a.id.0 + MEMO_REACH as i64 + 1).unwrap();
        let kept = || -> Vec<(i64, i64)> {
            let memo = sys.layouts.memo.lock().unwrap();
            memo.cities.keys().copied().collect()
        };
        let first = sys.layout(&t, &a).unwrap();
        assert!(Arc::ptr_eq(&first, &sys.layout(&t, &a).unwrap()), "memo");
        // Laying out a city beyond the reach drops the first.
        sys.layout(&t, &b).unwrap();
        assert_eq!(kept(), vec![b.id]);
        // Laid out again, the same layout (a new one).
        let again = sys.layout(&t, &a).unwrap();
        assert!(!Arc::ptr_eq(&first, &again));
        assert_eq!(first.lots, again.lots);
        assert_eq!(kept(), vec![a.id]);
        assert_eq!(cells_apart(a.id, (a.id.0 + 3, a.id.1 - 2)), 3);
        assert_eq!(cells_apart(a.id, (a.id.0, a.id.1 - 4)), 4);
    }

    #[test]
    fn lots_near_a_highway_or_around_one_are_dropped() {
        let h = [DVec2::new(0.0, 0.0), DVec2::new(100.0, 0.0)];
        let lots = vec![
            lot(DVec2::new(10.0, 6.5), 10.0),     // 6.5 m off: kept
            lot(DVec2::new(30.0, 5.5), 10.0),     // 5.5 m off: dropped
            lot(DVec2::new(50.0, -5.0), 10.0),    // across it: dropped
            lot(DVec2::new(-10.0, -40.0), 200.0), // around it: dropped
            lot(DVec2::new(105.0, 0.5), 10.0),    // 5 m past its end: dropped
        ];
        let kept = off_highways(lots, &[&h], 6.0);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].polygon[0], DVec2::new(10.0, 6.5));
    }

    /// City (3, 2) of the default world: the highway between two other
    /// cities crosses it near (19660, 16400).
    fn crossed() -> (DVec2, DVec2) {
        (DVec2::new(19300.0, 16000.0), DVec2::new(20000.0, 16700.0))
    }

    #[test]
    fn buildings_keep_off_a_highway_that_crosses_their_town() {
        let t = Terrain::default();
        let params = RoadSystemParams::default();
        let sys = RoadSystem::new(params.clone()).unwrap();
        let (min, max) = crossed();
        let r = sys.region(&t, min, max).unwrap();
        let town = (r.layouts.iter()).find(|l| l.city.id == (3, 2)).unwrap();
        // A highway runs through the town (a vertex well inside).
        assert!(r.network.roads.iter().any(|h| {
            h.class == RoadClass::Highway && h.points.iter().any(|&q| town.city.contains(q))
        }));
        let keep_off = params.highway_width / 2.0 + params.earthworks.shoulder;
        let mut n = 0;
        for b in town.buildings() {
            let c = b.footprint.iter().sum::<DVec2>() / b.footprint.len() as f64;
            if !(c.cmpge(min).all() && c.cmplt(max).all()) {
                continue;
            }
            n += 1;
            for q in b.footprint.iter().chain([&c]) {
                let h = r.ground.height(q.x, q.y);
                assert!((h - b.base).abs() <= 0.1, "at {q}: {h} on base {}", b.base);
            }
            for h in (r.network.roads.iter()).filter(|h| h.class == RoadClass::Highway) {
                for w in h.points.windows(2) {
                    for (i, &v) in b.footprint.iter().enumerate() {
                        let u = b.footprint[(i + 1) % b.footprint.len()];
                        assert!(segment_distance(w[0], w[1], v, u) > keep_off, "at {c}");
                    }
                }
            }
        }
        assert!(n > 50, "{n}");
        // The same lots however the town was asked for.
        let other = RoadSystem::new(params).unwrap();
        let (a, b) = (min + 500.0, max + 300.0);
        let alone = other.region(&t, a, b).unwrap();
        let again = (alone.layouts.iter())
            .find(|l| l.city.id == (3, 2))
            .unwrap();
        assert_eq!(again.lots.len(), town.lots.len());
        assert!(
            (again.lots.iter().zip(&town.lots))
                .all(|(x, y)| x.polygon == y.polygon && x.building == y.building)
        );
    }
}
