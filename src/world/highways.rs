//! Highways: which neighbouring cities are linked (a Gabriel graph of the
//! city centres, links no longer than `max_link`), the gates on their
//! footprints, and each link's road planned whole with the A* planner.
//! Everything is a function of the links themselves, so any area that
//! touches a highway gets the same highway.

use super::RoadSystemParams;
use crate::city::{City, Settlements};
use crate::geom::{Contact, bounds, segment_contact};
use crate::network::{Road, RoadClass};
use crate::roads::planner::{AStarPlanner, PlannerParams, RoadPlanner};
use crate::terrain::{Terrain, TerrainParams};
use glam::DVec2;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// A link between two cities, the lower id first.
pub(crate) type LinkKey = ((i64, i64), (i64, i64));

/// Planned roads are kept for the links with an end within this many
/// settlement cells (in x and in y) of the last one planned: one region's
/// highways span up to about six cells (links out to the neighbours of its
/// cities' neighbours), so a smaller reach would plan some of them again
/// for every region.
const LINK_REACH: u64 = 8;

/// The cities of the settlement grid, each computed once per request.
pub(crate) struct CityCells<'a> {
    settlements: &'a Settlements,
    terrain: &'a Terrain,
    cells: BTreeMap<(i64, i64), Option<Arc<City>>>,
}

impl<'a> CityCells<'a> {
    pub(crate) fn new(settlements: &'a Settlements, terrain: &'a Terrain) -> Self {
        Self {
            settlements,
            terrain,
            cells: BTreeMap::new(),
        }
    }

    fn at(&mut self, cell: (i64, i64)) -> Option<Arc<City>> {
        let (s, t) = (self.settlements, self.terrain);
        (self.cells.entry(cell))
            .or_insert_with(|| s.city_at(t, cell).map(Arc::new))
            .clone()
    }

    /// The farthest a footprint reaches from its centre.
    pub(crate) fn reach(&self) -> f64 {
        self.settlements.params().reach()
    }

    /// Every city whose centre lies within the box (cells with a margin of
    /// one, since a centre may be jittered into its neighbour's reach), by id.
    pub(crate) fn centres_in(&mut self, min: DVec2, max: DVec2) -> Vec<Arc<City>> {
        let (a, b) = (self.settlements.cell_of(min), self.settlements.cell_of(max));
        let mut out = Vec::new();
        for iy in a.1.saturating_sub(1)..=b.1.saturating_add(1) {
            for ix in a.0.saturating_sub(1)..=b.0.saturating_add(1) {
                if let Some(c) = self.at((ix, iy))
                    && c.centre.cmpge(min).all()
                    && c.centre.cmple(max).all()
                {
                    out.push(c);
                }
            }
        }
        out
    }
}

/// The highway links and their roads, with a memo of planned links shared
/// between requests.
#[derive(Debug, Default)]
pub(crate) struct Highways {
    memo: Mutex<Memo>,
}

/// Planned roads by link, for the terrain and planner settings they were
/// planned with.
#[derive(Debug, Default)]
struct Memo {
    terrain: Option<TerrainParams>,
    planner: Option<PlannerParams>,
    roads: BTreeMap<LinkKey, Option<Arc<Road>>>,
}

impl Memo {
    /// The memo for `terrain` and `planner`: emptied when it was another's.
    fn on(
        &mut self,
        terrain: &Terrain,
        planner: &PlannerParams,
    ) -> &mut BTreeMap<LinkKey, Option<Arc<Road>>> {
        if self.terrain.as_ref() != Some(terrain.params()) || self.planner.as_ref() != Some(planner)
        {
            self.terrain = Some(terrain.params().clone());
            self.planner = Some(planner.clone());
            self.roads.clear();
        }
        &mut self.roads
    }
}

/// How highways are planned: the road system's highway settings, built to
/// the earthworks' highway grade and fill and cut limits (so the planner
/// costs the works the profile will need).
pub(crate) fn planner_params(params: &RoadSystemParams) -> PlannerParams {
    let e = &params.earthworks;
    PlannerParams {
        max_grade: e.max_grade.highway,
        max_fill: e.max_fill,
        max_cut: e.max_cut,
        ..params.highways.clone()
    }
}

/// One highway: its link and its road.
#[derive(Clone, Debug)]
pub(crate) struct Highway {
    pub(crate) link: LinkKey,
    pub(crate) road: Arc<Road>,
}

impl Highways {
    /// Highways holding what `other` planned (for the same settings).
    pub(crate) fn carried_from(other: &Highways) -> Self {
        let memo = other.memo.lock().unwrap_or_else(|e| e.into_inner());
        Self {
            memo: Mutex::new(Memo {
                terrain: memo.terrain.clone(),
                planner: memo.planner.clone(),
                roads: memo.roads.clone(),
            }),
        }
    }

    /// Links planned so far.
    #[cfg(test)]
    pub(crate) fn planned(&self) -> usize {
        self.memo
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .roads
            .len()
    }

    /// How far a link's road can stray from the box of its two centres:
    /// the gates lie within the largest footprint radius, and the A* window
    /// reaches `margin` beyond the straight line between them.
    pub(crate) fn reach(params: &RoadSystemParams) -> f64 {
        let s = &params.settlements;
        let h = &params.highways;
        let wobble = s.max_radius * (1.0 + s.wobble);
        let window = (h.window * params.max_link * h.distance_factor).max(h.min_margin);
        wobble + window + 2.0 * h.step
    }

    /// The links whose road could come near `[min, max]`, by key: pairs of
    /// cities no farther apart than `max_link` with no third city inside
    /// the circle on their centres' segment (Gabriel).
    pub(crate) fn links_near(
        params: &RoadSystemParams,
        cities: &mut CityCells,
        min: DVec2,
        max: DVec2,
    ) -> Vec<(Arc<City>, Arc<City>)> {
        let reach = Self::reach(params);
        let grow = DVec2::splat(params.max_link + reach);
        let near = cities.centres_in(min - grow, max + grow);
        let mut links = Vec::new();
        for (i, a) in near.iter().enumerate() {
            for b in &near[i + 1..] {
                let (a, b) = if a.id < b.id { (a, b) } else { (b, a) };
                let d = a.centre.distance(b.centre);
                if d > params.max_link || d == 0.0 {
                    continue;
                }
                let (lo, hi) = (
                    a.centre.min(b.centre) - reach,
                    a.centre.max(b.centre) + reach,
                );
                if hi.cmplt(min).any() || lo.cmpgt(max).any() {
                    continue;
                }
                let (m, r) = ((a.centre + b.centre) / 2.0, d / 2.0);
                let blocked = (cities.centres_in(m - r, m + r).iter())
                    .any(|c| c.id != a.id && c.id != b.id && c.centre.distance(m) < r);
                if !blocked {
                    links.push((a.clone(), b.clone()));
                }
            }
        }
        links.sort_by_key(|(a, b)| (a.id, b.id));
        links
    }

    /// The road of one link, planned once (memo), or `None` when no dry road
    /// was found within the planner's limits.
    pub(crate) fn road(
        &self,
        params: &PlannerParams,
        width: f64,
        terrain: &Terrain,
        a: &City,
        b: &City,
    ) -> Option<Arc<Road>> {
        let key = (a.id, b.id);
        if let Some(r) = (self.memo.lock().unwrap_or_else(|e| e.into_inner()))
            .on(terrain, params)
            .get(&key)
        {
            return r.clone();
        }
        let (from, to) = (gate(a, b.centre), gate(b, a.centre));
        let road = AStarPlanner
            .plan(terrain, from, to, params)
            .ok()
            .map(|p| {
                // Bridges stay straight decks between dry ends: smoothed
                // points would stand in the water.
                let points = if p.smoothed.len() >= 2 && p.bridges.is_empty() {
                    p.smoothed
                } else {
                    p.points
                };
                Arc::new(Road {
                    points: dedup(points),
                    class: RoadClass::Highway,
                    width,
                    z: Vec::new(),
                })
            })
            .filter(|r| r.points.len() >= 2);
        let mut memo = self.memo.lock().unwrap_or_else(|e| e.into_inner());
        let memo = memo.on(terrain, params);
        // Planned roads are kept for the links near this one; the memo only
        // saves work, the roads are the same either way.
        let near = |c| super::cities::cells_apart(c, key.0) <= LINK_REACH;
        memo.retain(|k, _| near(k.0) || near(k.1));
        memo.insert(key, road.clone());
        road
    }

    /// The highways that could come near `[min, max]`, each with a vertex
    /// wherever another highway crosses it (computed from the pair alone,
    /// so both get the same point), by link.
    pub(crate) fn near(
        &self,
        params: &RoadSystemParams,
        terrain: &Terrain,
        cities: &mut CityCells,
        min: DVec2,
        max: DVec2,
    ) -> Vec<Highway> {
        let planner = planner_params(params);
        let plan = |cities: &mut CityCells, min, max| -> Vec<Highway> {
            Self::links_near(params, cities, min, max)
                .into_iter()
                .filter_map(|(a, b)| {
                    let road = self.road(&planner, params.highway_width, terrain, &a, &b)?;
                    Some(Highway {
                        link: (a.id, b.id),
                        road,
                    })
                })
                .collect()
        };
        let mut out = plan(cities, min, max);
        for h in &mut out {
            let (lo, hi) = bounds(&h.road.points);
            let others = plan(cities, lo, hi);
            let others: Vec<(&[DVec2], bool)> = (others.iter())
                .filter(|o| o.link != h.link)
                .map(|o| (o.road.points.as_slice(), h.link < o.link))
                .collect();
            let mut road = (*h.road).clone();
            road.points = with_crossings(&h.road.points, &others);
            h.road = Arc::new(road);
        }
        out
    }
}

/// Half-width of the cone, around the direction to the other city, in which
/// a gate is looked for (30°).
const GATE_CONE_COS: f64 = 0.866_025_403_784_438_6;

/// The gate facing `towards`: of the footprint vertices within ±30° of the
/// direction to it, the one farthest from the centre (on the rim, not at the
/// bottom of a bay); the nearest in angle when none lies in that cone.
/// Ties go to the lowest index, so it is deterministic.
pub(crate) fn gate(city: &City, towards: DVec2) -> DVec2 {
    let dir = (towards - city.centre).normalize_or_zero();
    let facing = |p: DVec2| (p - city.centre).normalize_or_zero().dot(dir);
    let first_max = |best: Option<DVec2>, p: DVec2, key: &dyn Fn(DVec2) -> f64| match best {
        Some(b) if key(p) <= key(b) => Some(b),
        _ => Some(p),
    };
    let rim = (city.boundary.iter().copied())
        .filter(|&p| facing(p) >= GATE_CONE_COS)
        .fold(None, |best, p| {
            first_max(best, p, &|q| (q - city.centre).length_squared())
        });
    rim.or_else(|| {
        (city.boundary.iter().copied()).fold(None, |best, p| first_max(best, p, &facing))
    })
    .unwrap_or(city.centre)
}

/// `points` with a vertex added at every proper crossing with the `others`
/// (each with whether `points` is the first of the pair). A crossing point
/// is computed from the pair's original segments in the pair's order, so
/// both roads of a pair get bit-identical points.
fn with_crossings(points: &[DVec2], others: &[(&[DVec2], bool)]) -> Vec<DVec2> {
    let mut out = Vec::with_capacity(points.len());
    for w in points.windows(2) {
        out.push(w[0]);
        let (lo, hi) = (w[0].min(w[1]), w[0].max(w[1]));
        let mut cuts: Vec<(f64, DVec2)> = Vec::new();
        for &(other, first) in others {
            let (olo, ohi) = bounds(other);
            if hi.cmplt(olo).any() || lo.cmpgt(ohi).any() {
                continue;
            }
            for v in other.windows(2) {
                let (p, q) = if first { (w, v) } else { (v, w) };
                if let Some(Contact::Point { t, u }) = segment_contact(p[0], p[1], q[0], q[1]) {
                    // Proper crossings only: shared ends are junctions already.
                    if t > 0.0 && t < 1.0 && u > 0.0 && u < 1.0 {
                        let at = p[0] + (p[1] - p[0]) * t;
                        let along = if first { t } else { u };
                        cuts.push((along, at));
                    }
                }
            }
        }
        cuts.sort_by(|a, b| a.0.total_cmp(&b.0));
        out.extend(cuts.into_iter().map(|c| c.1));
    }
    out.extend(points.last().copied());
    dedup(out)
}

fn dedup(mut points: Vec<DVec2>) -> Vec<DVec2> {
    points.dedup();
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highways_are_planned_to_the_earthworks_limits() {
        let mut params = RoadSystemParams::default();
        params.earthworks.max_grade.highway = 0.05;
        params.earthworks.max_fill = 9.0;
        params.earthworks.max_cut = 11.0;
        let p = planner_params(&params);
        assert_eq!((p.max_grade, p.max_fill, p.max_cut), (0.05, 9.0, 11.0));
        assert_eq!(p.weights, params.highways.weights);
        assert_eq!(p.step, params.highways.step);
    }

    #[test]
    fn crossings_are_the_same_points_on_both_roads() {
        let h = [DVec2::new(0.0, 0.0), DVec2::new(100.0, 0.3)];
        let a = [DVec2::new(10.1, -5.0), DVec2::new(10.7, 5.0)];
        let b = [DVec2::new(61.3, -5.0), DVec2::new(59.9, 5.2)];
        // `h` is the first of both pairs: one segment gets two crossings.
        let hx = with_crossings(&h, &[(&a, true), (&b, true)]);
        let ax = with_crossings(&a, &[(&h, false)]);
        let bx = with_crossings(&b, &[(&h, false)]);
        assert_eq!(hx.len(), 4);
        assert_eq!((hx[1], hx[2]), (ax[1], bx[1]));
        // Ends and touches add nothing.
        assert_eq!(
            with_crossings(&h, &[(&[h[1], DVec2::new(120.0, 9.0)], true)]),
            h
        );
    }
}
