//! City layouts: a city's streets inside its footprint — planar-graph
//! streets for an [`Organic`](CityStyle::Organic) city, tensor-field
//! streets for a [`Planned`](CityStyle::Planned) one — joined to the
//! highways at its gates and kept off wet and steep ground, then its lots
//! and buildings. A layout is a function of the city, its highways and the
//! parameters alone, so every region that shows the city shows the same.

use super::design::{CityBases, city_field};
use super::lots::{Lot, LotParams, subdivide};
use super::planar::{PlanarParams, PlanarStreets, StreetsError};
use super::polygon::signed_area;
use super::streets::{Streets, StreetsInput};
use super::tensor::{
    MAX_FIELD_CELLS, MAX_HEIGHTMAP_SAMPLES, TensorError, TensorParams, TensorStreets,
};
use super::{City, CityStyle};
use crate::geom::polyline_prefix;
use crate::terrain::{ParamError, Terrain};
use glam::DVec2;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::float::simplify::SimplifyShape;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// How cities are laid out.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct CityParams {
    /// Streets, lots and buildings in cities (off: footprints only).
    pub enabled: bool,
    /// Streets of organic cities (the seed is mixed with each city's id).
    pub planar: PlanarParams,
    /// Streets of planned cities (the seed is mixed with each city's id).
    pub tensor: TensorParams,
    /// Planned cities whose basis fields were edited by hand.
    pub fields: Vec<CityBases>,
    /// Spacing of the terrain-slope samples of a planned city's field, metres.
    pub slope_cell: f64,
    /// Slope (rise over run) from which the terrain pulls a planned city's
    /// streets at full strength.
    pub full_slope: f64,
    /// Lots and buildings (centre and radius come from each city).
    pub lots: LotParams,
    /// Grid on which wet and steep ground is found, metres.
    pub obstacle_cell: f64,
    /// Ground steeper than this (rise over run, over one grid cell) is kept
    /// free of streets. Relf's ground is rough at this scale (a city's
    /// median is about 1): the default keeps only cliffs free.
    pub max_slope: f64,
    /// Steep patches smaller than this many grid cells are left alone.
    pub min_steep_cells: u32,
    /// How far a highway is followed out of its gate as a fixed road, metres.
    pub gate_reach: f64,
}

impl Default for CityParams {
    fn default() -> Self {
        Self {
            enabled: true,
            planar: PlanarParams::default(),
            tensor: TensorParams::default(),
            fields: Vec::new(),
            slope_cell: 50.0,
            full_slope: 1.0,
            lots: LotParams::default(),
            obstacle_cell: 20.0,
            max_slope: 2.5,
            min_steep_cells: 4,
            gate_reach: 60.0,
        }
    }
}

impl CityParams {
    /// Checks every part; the error names the field.
    pub fn validate(&self) -> Result<(), ParamError> {
        self.planar.validate().map_err(|e| e.within("planar"))?;
        self.tensor.validate().map_err(|e| e.within("tensor"))?;
        self.lots.validate().map_err(|e| e.within("lots"))?;
        for (i, f) in self.fields.iter().enumerate() {
            f.validate().map_err(|e| e.at("fields", i))?;
        }
        ParamError::check_range("slope_cell", self.slope_cell, 5.0, 1000.0)?;
        ParamError::check_range("full_slope", self.full_slope, 1e-3, 100.0)?;
        ParamError::check_range("obstacle_cell", self.obstacle_cell, 2.0, 500.0)?;
        ParamError::check_range("max_slope", self.max_slope, 0.01, 100.0)?;
        ParamError::check_range("min_steep_cells", self.min_steep_cells as f64, 1.0, 1.0e4)?;
        ParamError::check_range("gate_reach", self.gate_reach, 1.0, 1000.0)
    }
}

/// Why a city could not be laid out.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum LayoutError {
    /// The parameters are not valid.
    #[error("city parameters: {0}")]
    Params(#[from] ParamError),
    /// The footprint is wider than the obstacle grid or a planned city's
    /// slope field may cover.
    #[error(
        "city {id:?} too large: {across:.0} m across, at most {most:.0} m \
         (raise obstacle_cell{}, or make the city smaller)",
        if *.planned { ", slope_cell or tensor.field_cell" } else { "" }
    )]
    TooLarge {
        /// The city.
        id: (i64, i64),
        /// The footprint's larger side, metres.
        across: f64,
        /// The most allowed with these parameters, metres.
        most: f64,
        /// Whether the city is planned (its slope field bounds it too).
        planned: bool,
    },
    /// The planar street generator refused (organic cities).
    #[error("city {id:?}: planar streets: {source}")]
    Planar {
        /// The city.
        id: (i64, i64),
        /// Why.
        #[source]
        source: StreetsError,
    },
    /// The tensor street generator refused (planned cities).
    #[error("city {id:?}: tensor streets: {source}")]
    Tensor {
        /// The city.
        id: (i64, i64),
        /// Why.
        #[source]
        source: TensorError,
    },
}

/// Most cells along each side of the obstacle grid.
pub const MAX_OBSTACLE_CELLS: usize = 2048;

/// The widest footprint (its bounding box's larger side) these parameters
/// lay out for a city of `style`: the obstacle grid's and, for a planned
/// city, the slope field's and the sampled tensor field's caps.
pub fn max_city_extent(params: &CityParams, style: CityStyle) -> f64 {
    let grid = MAX_OBSTACLE_CELLS as f64 * params.obstacle_cell;
    match style {
        CityStyle::Organic => grid,
        CityStyle::Planned => {
            // `BasisField::heightmap` samples `(side / cell + 2)²` points.
            let side = (MAX_HEIGHTMAP_SAMPLES as f64).sqrt().floor() - 2.0;
            // The traced field: `(side / cell + 6)²` cells (a two-cell pad
            // each side, and its corners).
            let field = MAX_FIELD_CELLS.sqrt().floor() - 6.0;
            (grid.min(side * params.slope_cell)).min(field * params.tensor.field_cell)
        }
    }
}

/// A city's streets, lots and buildings.
#[derive(Clone, Debug)]
pub struct CityLayout {
    /// The city.
    pub city: City,
    /// Its streets (the ring, the highway stubs at its gates, the streets)
    /// and blocks.
    pub streets: Streets,
    /// Its lots, with their buildings.
    pub lots: Vec<Lot>,
    /// The tensor field its streets follow (planned cities).
    pub field: Option<super::tensor::TensorField>,
}

impl CityLayout {
    /// The buildings.
    pub fn buildings(&self) -> impl Iterator<Item = &super::lots::Building> {
        self.lots.iter().filter_map(|l| l.building.as_ref())
    }
}

/// Lays out `city`: `highways` are the highways that end at its gates (any
/// others are ignored), each a polyline with the gate at one end.
pub fn lay_out(
    city: &City,
    terrain: &Terrain,
    highways: &[&[DVec2]],
    params: &CityParams,
) -> Result<CityLayout, LayoutError> {
    params.validate()?;
    let (lo, hi) = city.bounds();
    let finite = city.boundary.iter().all(|p| p.is_finite());
    let across = if finite {
        (hi - lo).max_element()
    } else {
        f64::INFINITY
    };
    let most = max_city_extent(params, city.style);
    if !across.is_finite() || across > most {
        return Err(LayoutError::TooLarge {
            id: city.id,
            across,
            most,
            planned: city.style == CityStyle::Planned,
        });
    }
    let outward = from_gates(city, highways);
    let input = StreetsInput {
        boundary: city.boundary.clone(),
        seeds: Vec::new(),
        fixed: (outward.iter())
            .map(|h| {
                // The generator wants a fixed road ending on its gate.
                let mut stub = polyline_prefix(h, params.gate_reach);
                stub.reverse();
                stub
            })
            .collect(),
        obstacles: obstacles(city, terrain, params),
    };
    let id = city.id;
    let planar_err = |source: StreetsError| LayoutError::Planar { id, source };
    let tensor_err = |source: TensorError| LayoutError::Tensor { id, source };
    let mut used_field = None;
    let streets = match city.style {
        CityStyle::Organic => {
            let planar = PlanarParams {
                seed: mix(params.planar.seed, city.id),
                ..params.planar.clone()
            };
            PlanarStreets::new(planar)
                .map_err(|e| planar_err(e.into()))?
                .generate(&input)
                .map_err(planar_err)?
        }
        CityStyle::Planned => {
            let tensor = TensorParams {
                seed: mix(params.tensor.seed, city.id),
                ..params.tensor.clone()
            };
            let edited = (params.fields.iter())
                .find(|f| f.city == city.id)
                .map(|f| f.bases.as_slice());
            let field = city_field(
                city,
                terrain,
                &outward,
                edited,
                params.slope_cell,
                params.full_slope,
            )?;
            let streets = TensorStreets::new(tensor)
                .map_err(|e| tensor_err(e.into()))?
                .generate(&field, &input)
                .map_err(tensor_err)?;
            used_field = Some(field);
            streets
        }
    };
    let lots = subdivide(
        &streets,
        &LotParams {
            centre: city.centre,
            radius: city.radius,
            seed: mix(params.lots.seed, city.id),
            ..params.lots.clone()
        },
    );
    let mut lots = off_water(lots, terrain);
    for b in lots.iter_mut().filter_map(|l| l.building.as_mut()) {
        let c = b.footprint.iter().sum::<DVec2>() / b.footprint.len() as f64;
        b.base = terrain.height(c.x, c.y);
    }
    Ok(CityLayout {
        city: city.clone(),
        streets,
        lots,
        field: used_field,
    })
}

/// `lots` less those with a vertex or their centre on water: puddles
/// smaller than the obstacle grid sees.
fn off_water(mut lots: Vec<Lot>, terrain: &Terrain) -> Vec<Lot> {
    let wet = terrain.params().lake_level;
    let dry = |p: &DVec2| terrain.height(p.x, p.y) >= wet;
    lots.retain(|l| {
        let centre = l.polygon.iter().sum::<DVec2>() / l.polygon.len().max(1) as f64;
        l.polygon.iter().all(dry) && dry(&centre)
    });
    lots
}

/// A seed mixed with a city's id (SplitMix64 steps), so cities differ.
fn mix(seed: u64, id: (i64, i64)) -> u64 {
    let mut z = seed
        ^ (id.0 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (id.1 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The highways with an end on a vertex of the footprint (a gate), each
/// from that gate outwards, in a fixed order.
fn from_gates(city: &City, highways: &[&[DVec2]]) -> Vec<Vec<DVec2>> {
    let at_gate = |p: Option<&DVec2>| p.is_some_and(|p| city.boundary.contains(p));
    let mut out: Vec<Vec<DVec2>> = Vec::new();
    for h in highways.iter().filter(|h| h.len() >= 2) {
        if at_gate(h.first()) {
            out.push(h.to_vec());
        }
        if at_gate(h.last()) {
            out.push(h.iter().rev().copied().collect());
        }
    }
    let key = |s: &Vec<DVec2>| (s[0].x, s[0].y, s[1].x, s[1].y);
    out.sort_by(|a, b| {
        let (a, b) = (key(a), key(b));
        (a.0.total_cmp(&b.0))
            .then(a.1.total_cmp(&b.1))
            .then(a.2.total_cmp(&b.2))
            .then(a.3.total_cmp(&b.3))
    });
    out.dedup();
    out
}

/// Wet or steep ground inside the footprint's box, as polygons: the union
/// of the grid cells with a corner or the centre in the footprint that are
/// wet anywhere on their corners or centre (so their outlines run on dry
/// ground) or steeper than the limit (outer outlines only: what such
/// ground encloses is left alone too).
fn obstacles(city: &City, terrain: &Terrain, params: &CityParams) -> Vec<Vec<DVec2>> {
    let (lo, hi) = city.bounds();
    let c = params.obstacle_cell;
    let (nx, ny) = (
        ((hi.x - lo.x) / c)
            .ceil()
            .clamp(1.0, MAX_OBSTACLE_CELLS as f64) as usize,
        ((hi.y - lo.y) / c)
            .ceil()
            .clamp(1.0, MAX_OBSTACLE_CELLS as f64) as usize,
    );
    let wet = terrain.params().lake_level + WET_MARGIN;
    let h = |p: DVec2| terrain.height(p.x, p.y);
    let corner = |i: usize, j: usize| lo + DVec2::new(i as f64, j as f64) * c;
    let corners: Vec<f64> = (0..=ny)
        .flat_map(|j| (0..=nx).map(move |i| (i, j)))
        .map(|(i, j)| h(corner(i, j)))
        .collect();
    let at = |i: usize, j: usize| corners[j * (nx + 1) + i];
    let (mut wet_cells, mut steep_cells): (Vec<Vec<[f64; 2]>>, Vec<Vec<[f64; 2]>>) =
        (Vec::new(), Vec::new());
    for j in 0..ny {
        for i in 0..nx {
            let p = corner(i, j) + DVec2::splat(c / 2.0);
            // Cells the footprint's edge cuts count too: water just inside
            // the ring is kept free even where the cell's centre is outside.
            let inside = std::iter::once(p)
                .chain([(0, 0), (1, 0), (0, 1), (1, 1)].map(|(di, dj)| corner(i + di, j + dj)))
                .any(|q| city.contains(q));
            if !inside {
                continue;
            }
            let z = [at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1), h(p)];
            let slope = DVec2::new((z[1] + z[3]) - (z[0] + z[2]), (z[2] + z[3]) - (z[0] + z[1]))
                .length()
                / (2.0 * c);
            let (a, b) = (corner(i, j), corner(i + 1, j + 1));
            let square = vec![[a.x, a.y], [b.x, a.y], [b.x, b.y], [a.x, b.y]];
            if z.iter().any(|&z| z < wet) {
                wet_cells.push(square);
            } else if slope > params.max_slope {
                steep_cells.push(square);
            }
        }
    }
    // Steep patches big enough to matter, then everything merged.
    let min_area = params.min_steep_cells as f64 * c * c - 1e-6;
    let mut all = wet_cells;
    all.extend(outlines(&steep_cells).into_iter().filter(|o| {
        let o: Vec<DVec2> = o.iter().map(|&[x, y]| DVec2::new(x, y)).collect();
        signed_area(&o).abs() >= min_area
    }));
    outlines(&all)
        .into_iter()
        .map(|o| o.into_iter().map(|[x, y]| DVec2::new(x, y)).collect())
        .collect()
}

/// The outer outlines of the union of polygons.
fn outlines(polys: &[Vec<[f64; 2]>]) -> Vec<Vec<[f64; 2]>> {
    if polys.is_empty() {
        return Vec::new();
    }
    (polys.simplify_shape(FillRule::NonZero).into_iter())
        .filter_map(|shape| shape.into_iter().next())
        .collect()
}

/// Ground this close above the lake level counts as wet, metres.
const WET_MARGIN: f64 = 0.25;
