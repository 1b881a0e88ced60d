//! City sites on a jittered grid, the ground they need, and their footprints.

use super::params::SettlementParams;
use super::polygon::{polygon_contains, segment_meets_box, signed_area};
use super::rays::{Ray, dry, keep_edges_dry, smooth_rays};
pub(crate) use crate::geom::bounds;
use crate::num::{WORLD_LIMIT_F64, floor_i64, hash2, unit};
use crate::terrain::{ParamError, Terrain};
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::f64::consts::{PI, TAU};
use thiserror::Error;

/// Most grid cells one [`Settlements::try_cities_in`] visits.
pub const MAX_AREA_CELLS: u64 = 10_000;

/// How a city's streets will be laid out (by later layers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum CityStyle {
    /// Grown streets: a planar street graph.
    Organic,
    /// Laid-out streets: a tensor-field street plan.
    Planned,
}

/// One city: a site of the settlement grid with its footprint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct City {
    /// The grid cell it belongs to, `(ix, iy)`: a unique, stable id.
    pub id: (i64, i64),
    /// The centre (dry ground), metres.
    pub centre: DVec2,
    /// The nominal radius; the footprint wobbles around it and stops short
    /// of water, steep ground and neighbouring cities.
    pub radius: f64,
    /// How its streets will be laid out.
    pub style: CityStyle,
    /// The footprint: a simple, counter-clockwise, star-shaped polygon
    /// around the centre, first point not repeated; every vertex is dry,
    /// and so is every edge (sampled at most 2 m apart).
    pub boundary: Vec<DVec2>,
}

impl City {
    /// The footprint's bounding box `(min, max)`.
    pub fn bounds(&self) -> (DVec2, DVec2) {
        bounds(&self.boundary)
    }

    /// Whether `p` lies inside the footprint (even-odd rule; points on the
    /// boundary may go either way, always the same way).
    pub fn contains(&self, p: DVec2) -> bool {
        polygon_contains(&self.boundary, p)
    }

    /// The footprint's area, m² (positive: the boundary is counter-clockwise).
    pub fn area(&self) -> f64 {
        signed_area(&self.boundary)
    }

    /// Whether the footprint (boundary and inside) meets the closed
    /// rectangle `[min, max]`.
    pub fn touches(&self, min: DVec2, max: DVec2) -> bool {
        let (lo, hi) = self.bounds();
        if hi.cmplt(min).any() || lo.cmpgt(max).any() {
            return false;
        }
        let n = self.boundary.len();
        (0..n).any(|i| segment_meets_box(self.boundary[i], self.boundary[(i + 1) % n], min, max))
            || self.contains(min)
    }
}

/// Why [`Settlements::try_cities_in`] refused an area.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum CityAreaError {
    /// A corner is NaN or infinite.
    #[error("city area: corners must be finite, got {min} .. {max}")]
    NotFinite {
        /// The lower corner asked for.
        min: DVec2,
        /// The upper corner asked for.
        max: DVec2,
    },
    /// The area (grown by the largest footprint) spans too many grid cells.
    #[error("city area: spans {cells} grid cells, more than {MAX_AREA_CELLS}")]
    TooLarge {
        /// Cells it spans (saturating).
        cells: u64,
    },
}

/// A tried candidate site: where, how large, which style.
#[derive(Clone, Copy, Debug)]
struct Site {
    centre: DVec2,
    radius: f64,
    style: CityStyle,
}

/// Salts of the per-cell hashes, one per quantity.
const TRY: u64 = 0xC17E_0001;
const JX: u64 = 0xC17E_0002;
const JY: u64 = 0xC17E_0003;
const RADIUS: u64 = 0xC17E_0004;
const STYLE: u64 = 0xC17E_0005;
const TURN: u64 = 0xC17E_0006;
const LOBE: u64 = 0xC17E_0010;
/// Salt step between a cell's candidate centres (`JX`/`JY` + k·`TRY_SALT`).
const TRY_SALT: u64 = 0x100;
/// Lobe counts of the footprint's wobble.
const LOBES: [f64; 3] = [2.0, 3.0, 5.0];
/// Suitability samples: rings at `radius · k / RINGS`, `SPOKES` each, plus the centre.
const RINGS: usize = 4;
const SPOKES: usize = 16;

/// The settlement layer: cities as a pure function of the parameters, the
/// terrain and a grid cell, so any region sees the same cities.
///
/// ```
/// use bevy_relief::city::{SettlementParams, Settlements};
/// use bevy_relief::terrain::Terrain;
/// use glam::DVec2;
/// let t = Terrain::default();
/// let s = Settlements::new(SettlementParams::default()).unwrap();
/// let cities = s.cities_in(&t, DVec2::splat(-6000.0), DVec2::splat(6000.0));
/// assert!(cities.windows(2).all(|w| w[0].id < w[1].id));
/// ```
#[derive(Clone, Debug)]
pub struct Settlements {
    params: SettlementParams,
}

impl Settlements {
    /// The layer for these parameters; invalid ones are rejected with the
    /// field named.
    pub fn new(params: SettlementParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self { params })
    }

    /// The parameters.
    pub fn params(&self) -> &SettlementParams {
        &self.params
    }

    /// The grid cell holding a point, `(ix, iy)` (saturating far outside the world).
    pub fn cell_of(&self, p: DVec2) -> (i64, i64) {
        let s = self.params.spacing;
        (floor_i64(p.x / s), floor_i64(p.y / s))
    }

    /// The city of one grid cell, if its site is tried, suits a city and
    /// keeps a large enough footprint. A pure function of the cell, the
    /// parameters and the terrain (its neighbours' sites bound its footprint).
    pub fn city_at(&self, terrain: &Terrain, cell: (i64, i64)) -> Option<City> {
        self.city_with(terrain, cell, &mut |c| self.suitable_site(terrain, c))
    }

    /// Every city whose footprint meets the closed rectangle `[min, max]`,
    /// sorted by id; none when [`Self::try_cities_in`] refuses the area.
    pub fn cities_in(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Vec<City> {
        self.try_cities_in(terrain, min, max).unwrap_or_default()
    }

    /// Every city whose footprint meets the closed rectangle `[min, max]`,
    /// sorted by id, or an error when a corner is not finite or the cells
    /// that could hold such a city number more than [`MAX_AREA_CELLS`]. An
    /// inverted rectangle holds none.
    pub fn try_cities_in(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<Vec<City>, CityAreaError> {
        if !(min.is_finite() && max.is_finite()) {
            return Err(CityAreaError::NotFinite { min, max });
        }
        if !(max.x >= min.x && max.y >= min.y) {
            return Ok(Vec::new());
        }
        let reach = DVec2::splat(self.params.reach());
        let (lo, hi) = (self.cell_of(min - reach), self.cell_of(max + reach));
        let span = |a: i64, b: i64| (b as i128 - a as i128 + 1) as u128;
        let cells = span(lo.0, hi.0).saturating_mul(span(lo.1, hi.1));
        if cells > MAX_AREA_CELLS as u128 {
            return Err(CityAreaError::TooLarge {
                cells: u64::try_from(cells).unwrap_or(u64::MAX),
            });
        }
        // Neighbouring cells share their sites' suitability.
        let mut memo = HashMap::new();
        let mut site = |c: (i64, i64)| {
            *memo
                .entry(c)
                .or_insert_with(|| self.suitable_site(terrain, c))
        };
        let mut out = Vec::new();
        for ix in lo.0..=hi.0 {
            for iy in lo.1..=hi.1 {
                if let Some(city) = self.city_with(terrain, (ix, iy), &mut site)
                    && city.touches(min, max)
                {
                    out.push(city);
                }
            }
        }
        out.sort_by_key(|c| c.id);
        Ok(out)
    }

    /// A value in `[0, 1)` for a cell and a quantity (the seed and the
    /// quantity's salt are mixed first, so nearby seeds share no values).
    fn unit(&self, cell: (i64, i64), salt: u64) -> f64 {
        let key = hash2(self.params.seed as i64, salt as i64, 0xC17E);
        unit(hash2(cell.0, cell.1, key))
    }

    /// The cell's `k`-th candidate site, if the cell is tried and it lies
    /// inside the world (every candidate has the cell's radius and style).
    fn candidate(&self, cell: (i64, i64), k: u32) -> Option<Site> {
        let p = &self.params;
        if self.unit(cell, TRY) >= p.chance {
            return None;
        }
        let salt = k as u64 * TRY_SALT;
        let at =
            |i: i64, salt| (i as f64 + 0.5 + p.jitter * (self.unit(cell, salt) - 0.5)) * p.spacing;
        let centre = DVec2::new(at(cell.0, JX + salt), at(cell.1, JY + salt));
        if !(centre.x.abs() <= WORLD_LIMIT_F64 && centre.y.abs() <= WORLD_LIMIT_F64) {
            return None;
        }
        Some(Site {
            centre,
            radius: p.min_radius + (p.max_radius - p.min_radius) * self.unit(cell, RADIUS),
            style: if self.unit(cell, STYLE) < p.planned_chance {
                CityStyle::Planned
            } else {
                CityStyle::Organic
            },
        })
    }

    /// Ground below this is water (lake, or mud where the lake was lowered).
    fn shore(terrain: &Terrain) -> f64 {
        let t = terrain.params();
        t.lake_level.max(t.lake_base)
    }

    /// The cell's site: a cell holds a city where its first candidate
    /// suits one (so the tries move cities, never add any), and the city
    /// stands at the suitable candidate on the smoothest ground
    /// ([`Self::roughness`]; ties to the earlier).
    fn suitable_site(&self, terrain: &Terrain, cell: (i64, i64)) -> Option<Site> {
        let first = self.suits(terrain, self.candidate(cell, 0)?)?;
        if self.params.site_tries <= 1 {
            return Some(first);
        }
        let mut tries: Vec<(f64, u32, Site)> = (0..self.params.site_tries)
            .filter_map(|k| Some((k, self.candidate(cell, k)?)))
            .map(|(k, s)| (self.roughness(terrain, &s), k, s))
            .collect();
        tries.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        // The first candidate is suitable: the search ends there at the latest.
        (tries.into_iter()).find_map(|(_, k, s)| {
            if k == 0 {
                Some(first)
            } else {
                self.suits(terrain, s)
            }
        })
    }

    /// How rough the ground of a site is at the town's scale: the mean
    /// slope over `roughness_scale` (central differences) at its centre and
    /// 24 points of its disc (rings of eight at a third, two thirds and all
    /// of its radius). Earthworks for streets and pads grow with it.
    fn roughness(&self, terrain: &Terrain, site: &Site) -> f64 {
        let e = self.params.roughness_scale / 2.0;
        let rings = [1.0, 2.0, 3.0].into_iter().flat_map(|f| {
            (0..8).map(move |i| {
                let a = TAU * (i as f64 + 0.5 * f) / 8.0;
                DVec2::new(a.cos(), a.sin()) * (site.radius * f / 3.0)
            })
        });
        let mut sum = 0.0;
        for q in std::iter::once(DVec2::ZERO)
            .chain(rings)
            .map(|d| site.centre + d)
        {
            let h = |dx: f64, dy: f64| terrain.height(q.x + dx, q.y + dy);
            sum += DVec2::new(h(e, 0.0) - h(-e, 0.0), h(0.0, e) - h(0.0, -e)).length() / (2.0 * e);
        }
        // NaN (never on finite ground) sorts last.
        let r = sum / 25.0;
        if r.is_nan() { f64::INFINITY } else { r }
    }

    /// The site if the ground suits a city: a dry centre, a gentle mean
    /// slope and little water over the site's disc.
    fn suits(&self, terrain: &Terrain, site: Site) -> Option<Site> {
        let p = &self.params;
        let shore = Self::shore(terrain);
        let c = site.centre;
        if !dry(terrain.height(c.x, c.y), shore) {
            return None;
        }
        let e = p.step / 2.0;
        let (mut wet, mut dried, mut slope) = (0usize, 0usize, 0.0);
        let rings = (1..=RINGS).flat_map(|k| {
            (0..SPOKES).map(move |i| {
                let a = TAU * i as f64 / SPOKES as f64;
                DVec2::new(a.cos(), a.sin()) * (site.radius * k as f64 / RINGS as f64)
            })
        });
        for q in std::iter::once(DVec2::ZERO).chain(rings).map(|d| c + d) {
            if !dry(terrain.height(q.x, q.y), shore) {
                wet += 1;
                continue;
            }
            let h = |dx: f64, dy: f64| terrain.height(q.x + dx, q.y + dy);
            let g = DVec2::new(h(e, 0.0) - h(-e, 0.0), h(0.0, e) - h(0.0, -e)) / (2.0 * e);
            slope += g.length();
            dried += 1;
        }
        let lake = wet as f64 / (wet + dried) as f64;
        // NaN slopes (never on finite ground) fail the test.
        (lake <= p.max_lake_fraction && slope / dried as f64 <= p.max_slope).then_some(site)
    }

    /// The cell's city, with `site` giving any cell's suitable site.
    fn city_with(
        &self,
        terrain: &Terrain,
        cell: (i64, i64),
        site: &mut dyn FnMut((i64, i64)) -> Option<Site>,
    ) -> Option<City> {
        let own = site(cell)?;
        let mut neighbours = Vec::with_capacity(8);
        for dx in -1..=1i64 {
            for dy in -1..=1i64 {
                if (dx, dy) == (0, 0) {
                    continue;
                }
                let (Some(nx), Some(ny)) = (cell.0.checked_add(dx), cell.1.checked_add(dy)) else {
                    continue;
                };
                if let Some(n) = site((nx, ny)) {
                    neighbours.push(n.centre);
                }
            }
        }
        let boundary = self.footprint(terrain, cell, &own, &neighbours)?;
        Some(City {
            id: cell,
            centre: own.centre,
            radius: own.radius,
            style: own.style,
            boundary,
        })
    }

    /// The footprint of a suitable site: one ray per direction, out to the
    /// wobbled radius (clipped `gap / 2` short of the bisector with each
    /// neighbouring site), walked to the last sample before water or a steep
    /// step; then the rays are smoothed ([`smooth_rays`]: never past where
    /// their walk stopped) and each ends at its last walked sample within
    /// its smoothed length, pulled in further where an edge would cross
    /// water ([`keep_edges_dry`]). `None` when a ray stays inside the core,
    /// an edge by the core stays wet or the area is too small.
    fn footprint(
        &self,
        terrain: &Terrain,
        cell: (i64, i64),
        site: &Site,
        neighbours: &[DVec2],
    ) -> Option<Vec<DVec2>> {
        let p = &self.params;
        let c = site.centre;
        let rays = self.walk_rays(terrain, cell, site, neighbours)?;
        let limits: Vec<f64> = rays.iter().map(|r| r.walked).collect();
        let slope = p.max_ray_slope * site.radius * TAU / rays.len() as f64;
        let lengths = smooth_rays(&limits, slope);
        let mut ends: Vec<u32> = (rays.iter().zip(&lengths))
            .map(|(ray, &len)| ray.sample_index_at_most(len, p.core_radius))
            .collect();
        keep_edges_dry(
            terrain,
            c,
            &rays,
            &mut ends,
            p.core_radius,
            Self::shore(terrain),
        )?;
        let mut boundary: Vec<DVec2> = Vec::with_capacity(rays.len());
        for (ray, &k) in rays.iter().zip(&ends) {
            let end = c + ray.dir * ray.sample(k);
            if boundary.last() != Some(&end) {
                boundary.push(end);
            }
        }
        while boundary.len() > 1 && boundary.first() == boundary.last() {
            boundary.pop();
        }
        let area = signed_area(&boundary);
        (boundary.len() >= 3 && area > 0.0 && area >= p.min_fill * PI * site.radius * site.radius)
            .then_some(boundary)
    }

    /// The footprint's rays, walked: `None` when one stops inside the core.
    fn walk_rays(
        &self,
        terrain: &Terrain,
        cell: (i64, i64),
        site: &Site,
        neighbours: &[DVec2],
    ) -> Option<Vec<Ray>> {
        let p = &self.params;
        let shore = Self::shore(terrain);
        let c = site.centre;
        let lobes = LOBES.map(|k| {
            let amp = 0.5 + self.unit(cell, LOBE + 2 * k as u64);
            let phase = TAU * self.unit(cell, LOBE + 2 * k as u64 + 1);
            (k, amp, phase)
        });
        let total: f64 = lobes.iter().map(|l| l.1).sum();
        let turn = self.unit(cell, TURN);
        let n = p.rays as usize;
        let h0 = terrain.height(c.x, c.y);
        let mut rays = Vec::with_capacity(n);
        for i in 0..n {
            let a = TAU * (i as f64 + turn) / n as f64;
            let dir = DVec2::new(a.cos(), a.sin());
            let w: f64 = lobes
                .iter()
                .map(|&(k, amp, ph)| amp * (k * a + ph).sin())
                .sum();
            let mut r = site.radius * (1.0 + p.wobble * w / total);
            for &q in neighbours {
                let d = q - c;
                let dist = d.length();
                let along = dir.dot(d) / dist;
                if along > 0.0 {
                    r = r.min((dist - p.gap) / 2.0 / along);
                }
            }
            if r.is_nan() || r < p.core_radius {
                return None;
            }
            let steps = (r / p.step).ceil().max(1.0);
            let (mut prev_h, mut prev_d, mut walked) = (h0, 0.0, 0u32);
            for k in 1..=steps as u32 {
                let d = r * k as f64 / steps;
                let q = c + dir * d;
                let h = terrain.height(q.x, q.y);
                let steep = (h - prev_h).abs() > p.max_step_slope * (d - prev_d);
                if !dry(h, shore) || (steep && prev_d >= p.core_radius) {
                    break;
                }
                (prev_h, prev_d, walked) = (h, d, k);
            }
            if prev_d < p.core_radius || walked == 0 {
                return None;
            }
            rays.push(Ray {
                dir,
                reach: r,
                steps,
                samples: walked,
                walked: prev_d,
            });
        }
        Some(rays)
    }
}
#[cfg(test)]
#[test]
fn a_city_stands_at_its_smoothest_suitable_candidate() {
    let t = Terrain::default();
    let s = Settlements::new(SettlementParams {
        site_tries: 8,
        ..Default::default()
    })
    .unwrap();
    let (mut first, mut chosen, mut moved) = (0.0, 0.0, 0);
    for (ix, iy) in (-5..5).flat_map(|x| (-5..5).map(move |y| (x, y))) {
        let Some(site) = s.suitable_site(&t, (ix, iy)) else {
            continue;
        };
        // The cell holds a city exactly where its first candidate suits one.
        let c0 = s.candidate((ix, iy), 0).unwrap();
        assert!(s.suits(&t, c0).is_some());
        let r = s.roughness(&t, &site);
        for k in 0..s.params.site_tries {
            let c = s.candidate((ix, iy), k).unwrap();
            if s.suits(&t, c).is_some() {
                assert!(r <= s.roughness(&t, &c), "({ix}, {iy}) try {k}");
            }
        }
        assert_eq!((site.radius, site.style), (c0.radius, c0.style));
        first += s.roughness(&t, &c0);
        chosen += r;
        moved += (site.centre != c0.centre) as usize;
    }
    assert!(
        moved > 5 && chosen < 0.95 * first,
        "{moved}: {chosen} vs {first}"
    );
}
