//! Tensor-field streets (Chen et al. 2008; the tensor seed): a
//! [`TensorField`] built from editable [`BasisField`]s (grid, radial,
//! polyline, heightmap), and [`TensorStreets`], which traces streamlines
//! through it at three levels (main roads, major and minor streets) and
//! returns them as planar [`Streets`].
//!
//! How a level is traced:
//! - the field's major eigenvector is sampled once on a grid
//!   ([`SampledField`], the seed's eigen-field cache; a large grid in
//!   bands of rows on up to four threads) and interpolated per cell; cells whose corners disagree by more than 60° (degenerate points,
//!   sharp bends) are degenerate;
//! - lines are integrated by a classical RK4 at `dstep`, the field sampled
//!   along the step with each sample's sign aligned to the direction before;
//!   or, with a `tolerance`, by an embedded Bogacki–Shampine 3(2) pair
//!   whose steps (`dstep` up to the filing interval, about `dtest / 4`)
//!   keep the local error within it, the separation tests sampled along
//!   each step as finely as `dtest` needs;
//! - seeds come from two priority queues (major, minor) by density
//!   ([`DensityParams`]): gates first, then candidates `dsep / density`
//!   beside finished lines and across them, then random ones; the families
//!   alternate, and a seed is kept only `dsep / density` from its family;
//! - while a line is traced, the other family's best seed is traced too,
//!   on a second thread, as the next line; it is kept if it still is the
//!   next once the first is added, so the streets are those traced one by
//!   one, on any number of cores;
//! - a line stops at the boundary or an obstacle (ending on it), where the
//!   field degenerates, within `dtest` of its family or of its own earlier
//!   stretch, or at `max_length`; dangling ends then join the nearest line
//!   ahead within `dlookahead` and the join angle;
//! - lines are simplified (junctions kept) and noded against each other and
//!   the boundary, so every crossing is a junction; streets that reach
//!   nothing given (ring, fixed road, obstacle) are left out, and blocks of
//!   no area ([`MIN_BLOCK_AREA`]) dropped.
//!
//! A run is refused up front when the boundary's area and a level's
//! spacings promise too much work ([`MAX_ESTIMATED_STEPS`],
//! [`MAX_ESTIMATED_SEEDS`]), and fails if it traces more than
//! [`MAX_TRACE_STEPS`] after all; either error names the field to raise.
//!
//! ```
//! use bevy_relief::city::{Streets, StreetsInput};
//! use bevy_relief::city::tensor::{BasisField, TensorField, TensorParams, TensorStreets, StreamlineParams};
//! use glam::DVec2;
//! let mut field = TensorField::default();
//! field.add(BasisField::grid(DVec2::new(200.0, 200.0), 400.0, 2.0, 0.3));
//! field.add(BasisField::radial(DVec2::new(260.0, 140.0), 80.0, 5.0));
//! assert!(field.major(DVec2::new(50.0, 50.0)).is_some());
//! let params = TensorParams {
//!     seed: 42,
//!     main: StreamlineParams { dsep: 150.0, dtest: 75.0, dlookahead: 150.0, ..StreamlineParams::main() },
//!     major: StreamlineParams { dsep: 60.0, dtest: 20.0, dlookahead: 80.0, ..StreamlineParams::major() },
//!     ..TensorParams::default()
//! };
//! let square = vec![DVec2::ZERO, DVec2::new(400.0, 0.0), DVec2::new(400.0, 400.0), DVec2::new(0.0, 400.0)];
//! let input = StreetsInput { boundary: square, ..StreetsInput::default() };
//! let streets: Streets = TensorStreets::new(params).unwrap().generate(&field, &input).unwrap();
//! assert!(streets.network.check_planar().is_ok() && !streets.blocks.is_empty());
//! ```

mod adaptive;
mod basis;
mod bs3;
mod budget;
mod field;
mod generate;
mod graph;
mod lines;
mod params;
mod pending;
mod region;
mod seeds;
mod store;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_adaptive;
#[cfg(test)]
mod tests_limits;
mod trace;

pub use basis::{BasisField, BasisKind, GradientGrid, MAX_HEIGHTMAP_SAMPLES, MAX_POLYLINE_POINTS};
pub use budget::{MAX_ESTIMATED_SEEDS, MAX_ESTIMATED_STEPS};
pub use field::{DEGENERATE, MAX_BASIS_FIELDS, SampledField, TensorField, major_of};
pub use graph::MIN_BLOCK_AREA;
pub use lines::{Level, LineEnd, Streamline, TracedStreets};
pub use params::{
    DEFAULT_TOLERANCE, DensityParams, MAX_LINE_STEPS, MAX_SEED_TRIES, StreamlineParams,
    TensorParams,
};
pub use trace::Family;

pub(crate) use crate::threads::{both, cores};

use crate::city::{Streets, StreetsInput};
use crate::terrain::ParamError;
use glam::DVec2;
use thiserror::Error;

/// Most cells in the sampled field and in the region raster.
pub const MAX_FIELD_CELLS: f64 = 2.0e6;
/// Most integration steps of one run (all lines of all levels); a run
/// that needs more is an error ([`TensorError::Budget`]). Runs are also
/// refused up front by their estimate ([`MAX_ESTIMATED_STEPS`]).
pub const MAX_TRACE_STEPS: u64 = 20_000_000;
/// Most points in the boundary, and in all obstacles together.
pub const MAX_INPUT_POINTS: usize = 100_000;
/// Most points in all fixed roads together.
pub const MAX_FIXED_POINTS: usize = 10_000;
/// Most highway gates seeded and linked (the first fixed roads'); the
/// others' roads are still joined where they meet streets.
pub const MAX_GATES: usize = 64;

/// Why streets could not be traced.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum TensorError {
    /// A parameter or a basis field is out of range.
    #[error(transparent)]
    Param(#[from] ParamError),
    /// The boundary, an obstacle or a fixed road is unusable.
    #[error("{what}: {why}")]
    Input {
        /// Which input.
        what: &'static str,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The parameters would trace too much on this boundary (see
    /// [`MAX_ESTIMATED_STEPS`], [`MAX_ESTIMATED_SEEDS`]); `field` is the one
    /// to raise.
    #[error(
        "{field}: about {estimate:.2e} {what} on this boundary, more than allowed ({limit:.0e}); raise it or trace a smaller area"
    )]
    Budget {
        /// The parameter to raise, e.g. `minor.dstep`.
        field: &'static str,
        /// What would be too many.
        what: &'static str,
        /// The estimate.
        estimate: f64,
        /// The most allowed.
        limit: f64,
    },
    /// The area needs too many cells.
    #[error("{what}: {count} is more than allowed ({MAX_FIELD_CELLS})")]
    TooLarge {
        /// What would be too many.
        what: &'static str,
        /// How many.
        count: f64,
    },
}

/// The tensor-field street generator.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorStreets {
    params: TensorParams,
}

impl TensorStreets {
    /// A generator; invalid parameters are rejected with the field named.
    pub fn new(params: TensorParams) -> Result<Self, ParamError> {
        params.validate()?;
        Ok(Self { params })
    }

    /// The parameters.
    pub fn params(&self) -> &TensorParams {
        &self.params
    }

    /// The streets of `field` inside `input.boundary`, out of
    /// `input.obstacles`, joined to `input.fixed` (see [`trace`](Self::trace)).
    pub fn generate(
        &self,
        field: &TensorField,
        input: &StreetsInput,
    ) -> Result<Streets, TensorError> {
        Ok(self.trace(field, input)?.to_streets())
    }

    /// The raw lines, before simplification and noding. `input.seeds` are
    /// not used (the field and the density place the seeds). Tracing more
    /// than [`MAX_TRACE_STEPS`] in all is an error too (lines packed far
    /// closer than `dsep`, which the estimate cannot foresee).
    pub fn trace(
        &self,
        field: &TensorField,
        input: &StreetsInput,
    ) -> Result<TracedStreets, TensorError> {
        self.trace_within(field, input, MAX_TRACE_STEPS, true)
    }

    /// [`trace`](Self::trace) with at most `steps` integration steps (with
    /// fixed steps, the line that reaches the limit may take one more: its
    /// two halves step together); with `ahead`, the next line is traced
    /// while the current one is (the same lines, sooner).
    pub(crate) fn trace_within(
        &self,
        field: &TensorField,
        input: &StreetsInput,
        steps: u64,
        ahead: bool,
    ) -> Result<TracedStreets, TensorError> {
        field.validate()?;
        check_input(input)?;
        let area = crate::city::polygon::signed_area(&input.boundary).abs();
        budget::check(&self.params, area)?;
        let (lo, hi) = crate::geom::bounds(&input.boundary);
        let cell = self.params.field_cell;
        let pad = DVec2::splat(2.0 * cell);
        let max_step = self
            .params
            .levels()
            .iter()
            .map(|l| l.max_step())
            .fold(0.0, f64::max);
        let obstacles: Vec<Vec<DVec2>> = (input.obstacles.iter())
            .filter(|o| o.len() >= 3)
            .cloned()
            .collect();
        // The region is rasterised while the field is sampled.
        let cells = ((hi - lo) / cell).element_product();
        let (sampled, region) = both(
            cells >= MIN_PARALLEL_WORK as f64,
            || field.sampled(lo - pad, hi + pad, cell),
            || {
                region::Region::new(
                    &input.boundary,
                    &obstacles,
                    REGION_CELL * cell,
                    1.01 * max_step,
                )
            },
        );
        let (sampled, region) = (sampled?, region?);
        let fixed = input
            .fixed
            .iter()
            .filter(|f| f.len() >= 2)
            .cloned()
            .collect();
        generate::Generator::new(&self.params, &sampled, &region, fixed, steps).run(ahead)
    }
}

/// Side of the region's raster cells, in field cells: the raster only
/// tells steps and seeds far from every edge (most of them) from those that
/// need an exact test, so it can be coarser than the field (the streets are
/// the same either way; finer, it took 0.6 ms to build in the reference
/// scenario, beside the field).
const REGION_CELL: f64 = 4.0;

/// Fewest field cells or line points worth sharing between two threads
/// (starting one takes tens of microseconds).
pub(crate) const MIN_PARALLEL_WORK: usize = 1 << 13;

/// Fewest earlier lines' points worth filing, or laying seeds along, on
/// two threads: each costs far more than a field cell (seed candidates are
/// checked against the stores and the region; 7,790 points took 1.1 ms on
/// one thread and 0.6 ms on two).
pub(crate) const MIN_PARALLEL_POINTS: usize = 1 << 10;

/// Rejects a boundary that is not a finite ring with an area, and
/// non-finite or oversized obstacles and fixed roads.
fn check_input(input: &StreetsInput) -> Result<(), TensorError> {
    let bad = |what, why| Err(TensorError::Input { what, why });
    let finite = |pts: &[DVec2]| {
        pts.iter()
            .all(|p| p.is_finite() && p.abs().max_element() < 1.0e12)
    };
    let b = &input.boundary;
    if b.len() < 3 || b.len() > MAX_INPUT_POINTS {
        return bad("boundary", "needs 3 to MAX_INPUT_POINTS points");
    }
    if !finite(b) {
        return bad("boundary", "points must be finite");
    }
    let area = crate::city::polygon::signed_area(b).abs();
    if area.is_nan() || area == 0.0 {
        return bad("boundary", "encloses no area");
    }
    for (what, set, most) in [
        ("obstacles", &input.obstacles, MAX_INPUT_POINTS),
        ("fixed", &input.fixed, MAX_FIXED_POINTS),
    ] {
        if set.iter().map(Vec::len).sum::<usize>() > most {
            return bad(what, "too many points");
        }
        if !set.iter().all(|p| finite(p)) {
            return bad(what, "points must be finite");
        }
    }
    Ok(())
}
