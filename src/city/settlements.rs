//! City sites on a jittered grid, the ground they need, and their footprints.

use super::params::SettlementParams;
use super::polygon::{polygon_contains, segment_meets_box, signed_area};
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
    /// around the centre, first point not repeated; every vertex is dry.
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

    /// The cell's candidate site, if it is tried and lies inside the world.
    fn candidate(&self, cell: (i64, i64)) -> Option<Site> {
        let p = &self.params;
        if self.unit(cell, TRY) >= p.chance {
            return None;
        }
        let at =
            |i: i64, salt| (i as f64 + 0.5 + p.jitter * (self.unit(cell, salt) - 0.5)) * p.spacing;
        let centre = DVec2::new(at(cell.0, JX), at(cell.1, JY));
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

    /// The cell's candidate site if the ground suits a city: a dry centre,
    /// a gentle mean slope and little water over the site's disc.
    fn suitable_site(&self, terrain: &Terrain, cell: (i64, i64)) -> Option<Site> {
        let site = self.candidate(cell)?;
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
    /// its smoothed length. `None` when a ray stays inside the core or the
    /// area is too small.
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
        keep_edges_dry(terrain, c, &rays, &mut ends, p.core_radius)?;
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

/// One walked footprint ray: the samples at `reach · k / steps` for `k` in
/// `1 ..= samples` are dry and passed the step test; `walked` is the last.
#[derive(Clone, Copy, Debug)]
struct Ray {
    dir: DVec2,
    reach: f64,
    steps: f64,
    samples: u32,
    walked: f64,
}

impl Ray {
    /// The distance of sample `k`, exactly as walked.
    fn sample(&self, k: u32) -> f64 {
        self.reach * k as f64 / self.steps
    }

    /// The distance of the last walked sample no farther than `len`, but
    /// not short of the first one reaching `core` (walked rays all reach it).
    /// At most `samples` steps.
    fn sample_index_at_most(&self, len: f64, core: f64) -> u32 {
        let mut k = self.samples;
        while k > 1 && self.sample(k) > len && self.sample(k - 1) >= core {
            k -= 1;
        }
        k
    }
}

/// Most distance between two samples of a footprint edge that are tested
/// for water, metres.
pub(crate) const EDGE_STEP: f64 = 2.0;

/// Whether every sample of segment `a–b` (its ends and points at most
/// [`EDGE_STEP`] apart) is dry.
fn edge_is_dry(terrain: &Terrain, a: DVec2, b: DVec2, shore: f64) -> bool {
    let n = (a.distance(b) / EDGE_STEP).ceil().max(1.0);
    (0..=n as u32).all(|k| {
        let q = a.lerp(b, k as f64 / n);
        dry(terrain.height(q.x, q.y), shore)
    })
}

/// Pulls footprint vertices in along their rays (to earlier walked
/// samples, never short of the core) until every edge between neighbouring
/// rays' ends `ends` (sample indices) is dry: of a wet edge's two ends the
/// farther one moves in by one sample (the one nearer the water on a tie).
/// The rays' order is kept, so the footprint stays star-shaped and simple.
/// `None` when an edge stays wet with both ends at the core.
fn keep_edges_dry(
    terrain: &Terrain,
    c: DVec2,
    rays: &[Ray],
    ends: &mut [u32],
    core: f64,
) -> Option<()> {
    let shore = Settlements::shore(terrain);
    let n = rays.len();
    let at = |i: usize, ends: &[u32]| c + rays[i].dir * rays[i].sample(ends[i]);
    // An end may move in while the sample before it is walked and it stays
    // at or beyond the first sample that reaches the core (as walked rays do).
    let can_move = |i: usize, ends: &[u32]| ends[i] > 1 && rays[i].sample(ends[i] - 1) >= core;
    let mut todo: Vec<usize> = (0..n).rev().collect();
    let mut queued = vec![true; n];
    while let Some(i) = todo.pop() {
        queued[i] = false;
        let j = (i + 1) % n;
        if i == j {
            continue;
        }
        let (a, b) = (at(i, ends), at(j, ends));
        if edge_is_dry(terrain, a, b, shore) {
            continue;
        }
        let (da, db) = (rays[i].sample(ends[i]), rays[j].sample(ends[j]));
        let pick = match (can_move(i, ends), can_move(j, ends)) {
            (false, false) => return None,
            (true, false) => i,
            (false, true) => j,
            (true, true) if da > db => i,
            (true, true) if db > da => j,
            (true, true) => {
                let wet = (0..=8)
                    .map(|k| a.lerp(b, k as f64 / 8.0))
                    .position(|q| !dry(terrain.height(q.x, q.y), shore))
                    .unwrap_or(4);
                if wet <= 4 { i } else { j }
            }
        };
        ends[pick] -= 1;
        // The edges on both sides of the moved end are tested again.
        for e in [(pick + n - 1) % n, pick] {
            if !queued[e] {
                queued[e] = true;
                todo.push(e);
            }
        }
    }
    Some(())
}

/// Passes of the `[1, 2, 1] / 4` filter that round a footprint's corners.
const ROUNDING_PASSES: usize = 3;

/// Smoothed ray lengths, never longer than `limits` (so a ray never passes
/// where its walk stopped). First the largest lengths whose neighbours
/// differ by at most `slope` per ray, around the circle: a lone long ray
/// (spike) is cut down to its neighbours' level, a lone short ray (slit)
/// opens into a bay whose sides rise by `slope` per ray, and no two
/// neighbouring rays leave a long saw-tooth edge between them. Then a few
/// passes of a `[1, 2, 1] / 4` filter (still capped by `limits`) round the
/// corners that leaves. `O(n²)`, deterministic.
pub(crate) fn smooth_rays(limits: &[f64], slope: f64) -> Vec<f64> {
    let n = limits.len();
    let mut r: Vec<f64> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    let d = i.abs_diff(j);
                    limits[j] + slope * d.min(n - d) as f64
                })
                .fold(f64::INFINITY, f64::min)
        })
        .collect();
    for _ in 0..ROUNDING_PASSES {
        r = (0..n)
            .map(|i| {
                let mean = (r[(i + n - 1) % n] + 2.0 * r[i] + r[(i + 1) % n]) / 4.0;
                mean.min(limits[i])
            })
            .collect();
    }
    r
}

/// Whether ground of height `h` is dry (a NaN height is not).
fn dry(h: f64, shore: f64) -> bool {
    h >= shore
}
