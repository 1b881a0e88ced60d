//! Cities: a sparse settlement layer above the terrain (plain Rust, no Bevy).
//!
//! Relf's `Town` kind makes villages, and they stay as they are. Cities are
//! new: one candidate site per cell of a jittered grid (6 km by default),
//! tried with a chance and kept where the ground suits a city (a dry centre,
//! a gentle mean slope, little water over the site's disc). A city has a
//! nominal radius (0.5–1.5 km), a [`CityStyle`] that later layers turn into
//! streets, and a footprint polygon traced by rays from the centre that stop
//! at lake shores, steep steps and `gap / 2` short of the bisector with a
//! neighbouring site, so footprints never overlap; its vertices are pulled
//! in where an edge between them would cross water, so the ring road it
//! becomes stays on dry ground.
//!
//! Everything about a site comes from hashing its cell (and sampling the
//! terrain around it and its eight neighbours), so the layer is
//! region-stable by construction: [`Settlements::cities_in`] returns the
//! same cities for an area whether it is asked alone or inside a larger one.
//!
//! [`CityGround`] lays the footprints on the terrain as town ground
//! (through the terrain's [`Overlay`](crate::terrain::Overlay) seam, with
//! [`LaidKind::Town`](crate::terrain::LaidKind::Town)).
//!
//! ```
//! use bevy_relief::city::{City, CityStyle, SettlementParams, Settlements};
//! use bevy_relief::terrain::Terrain;
//! use glam::DVec2;
//! let terrain = Terrain::default();
//! let s = Settlements::new(SettlementParams::default()).unwrap();
//! let cities: Vec<City> = s.cities_in(&terrain, DVec2::ZERO, DVec2::splat(20_000.0));
//! for c in &cities {
//!     assert!(c.contains(c.centre) && c.area() > 0.0);
//! }
//! ```

mod design;
mod ground;
mod holes;
mod layout;
#[cfg(test)]
mod layout_tests;
pub mod lots;
mod params;
pub mod planar;
pub(crate) mod polygon;
mod rays;
mod settlements;
mod streets;
pub mod tensor;
#[cfg(test)]
mod tests;

pub use design::{CityBases, city_field, designed_bases};
pub use ground::CityGround;
pub use layout::{
    CityLayout, CityParams, LayoutError, MAX_OBSTACLE_CELLS, lay_out, max_city_extent,
};
pub use params::{MAX_RAY_STEPS, SettlementParams};
pub use settlements::{City, CityAreaError, CityStyle, MAX_AREA_CELLS, Settlements};
pub use streets::{EdgeRole, SeedNode, Streets, StreetsInput};
