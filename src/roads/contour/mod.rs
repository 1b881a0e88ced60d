//! Relf's contour-following roads, made stable in a limitless world.
//!
//! The seed: from sparse start points, 2–4 paths leave in spread, jittered
//! bearings; every round each path grows 10 m in whichever of the bearings
//! `b`, `b ± 0.09` keeps the height nearest the current one; a path stops on
//! meeting another start's path (ending exactly on it), on lake or town, at
//! 100 points, and growth ends after 300 rounds.
//!
//! **Stable anywhere.** The seed grows paths one after another, so the
//! result depends on the order and so on where the player began. Here all
//! tips advance *simultaneously* at 10 m per round (continuous time within a
//! round): when two paths cross, the one that reached the crossing first
//! stops the other (ties go to the smaller start id). Nothing then travels
//! faster than 10 m per round, so what a road does at a point `p` at time
//! `t` (in rounds) depends only on start points within `10·t` of `p`.
//!
//! A request is answered from a *focus box* around the area that should hold
//! every road touching it (600 m of margin by default; a road of the seed is
//! at most 990 m long). Growth ends at the horizon `T` (99 rounds), so only
//! the light cone of the box matters: at round `r`, the points within
//! `10·(T + 1 − r)` of it (one step of slack keeps exact the first point of
//! a road that leaves the box). Every start within `10·(T + 1)` of the box is
//! simulated, and a tip that leaves the cone stops growing: nothing it would
//! still do can reach the box in time. If a returned road leaves the box,
//! each side it crossed moves out to `10·T`, where nothing can cross it, and
//! the simulation runs again. The roads inside an area are therefore exactly
//! the same whether it is generated alone, inside a larger area or after
//! flying there from anywhere.
//!
//! **Cheap steps.** A round evaluates the three candidate heights of every
//! tip in one batch, then the rest of each step's arithmetic eight tips at a
//! time ([`steps::Steps`], vectorised). Lake and town are ruled out by bounds first
//! (a slope bound; town sums bounded by profile minima over a disk each path
//! crosses in a few steps), and only segments they cannot clear are sampled
//! metre by metre, again in one height batch. A segment is filed in the
//! 40 m cells its box touches when it is proposed, with a small `f32` box
//! that passes over most pairs before any exact intersection.
//!
//! **Bounded work.** Every kind of work a request does (start-grid cells,
//! growth steps, cell entries, lake and town samples, segment pair tests,
//! crossings) is counted against a budget that grows with the area asked
//! for ([`RoadWork`]): whatever parameters [`ContourParams::validate`]
//! accepts, a request ends in bounded time and memory, with roads or a
//! [`RoadAreaError::TooMuchWork`] that says what to change.
//!
//! **Layout.** This file holds the public API and the focus-box driver
//! ([`ContourRoads::try_generate`]); `starts` the start points; `cells` the
//! 40 m cell index of filed segments; `bounds` the quick lake and town
//! tests; `steps` the vectorised step lanes; `sim` the simultaneous growth;
//! `meet` the events and crossings that stop paths; `output` the roads
//! returned; `work` the budgets.

mod bounds;
mod cells;
mod meet;
mod output;
mod sim;
mod starts;
mod steps;
mod work;

pub use starts::RoadStart;
pub use work::RoadWork;

use crate::network::{RoadClass, RoadNetwork};
use crate::terrain::{ParamError, Terrain};
use bounds::QuickStops;
use glam::DVec2;
use serde::{Deserialize, Serialize};
use sim::Sim;
use thiserror::Error;
use work::Budget;

/// Largest area (with its margin) one call simulates: 50 km × 50 km.
pub const MAX_ROAD_AREA: f64 = 2.5e9;

/// Longest side of an area the world composes in one call, metres (the side
/// of a square of [`MAX_ROAD_AREA`]).
pub const MAX_ROAD_SIDE: f64 = 50_000.0;

/// Most growth steps one simulation could take at worst (every path of every
/// start growing to the horizon), checked before simulating: requests beyond
/// it are refused at once. With the defaults even [`MAX_ROAD_AREA`] stays at
/// half of it. (The steps really taken are bounded by
/// [`RoadWork::Steps`].)
pub const MAX_ROAD_STEPS: f64 = 2.0e7;

/// Farthest coordinate (metres, either axis) a road request may reach with
/// its margin. Here `f64` positions are about 1.2e-7 m apart, an eighth of
/// the micrometre within which crossings count points as one; much farther
/// that rounding would decide which roads meet, and at 1e17 m it exceeds the
/// step itself (a step would not move). The cities' limit too.
pub const MAX_ROAD_COORD: f64 = 1.0e9;

/// Why a road request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum RoadAreaError {
    /// The area with its margin is not finite or exceeds [`MAX_ROAD_AREA`].
    #[error(
        "road area {width} m × {height} m (with its margin) is not finite or exceeds {MAX_ROAD_AREA} m²"
    )]
    TooLarge {
        /// Width including the margin.
        width: f64,
        /// Height including the margin.
        height: f64,
    },
    /// A side of the area is negative (`min` beyond `max`) or longer than
    /// [`MAX_ROAD_SIDE`].
    #[error(
        "road area {width} m × {height} m: each side must be between 0 and {MAX_ROAD_SIDE} m (is min beyond max?)"
    )]
    BadSide {
        /// Width asked for.
        width: f64,
        /// Height asked for.
        height: f64,
    },
    /// The area with its margin reaches beyond [`MAX_ROAD_COORD`] from the
    /// origin, where positions are too coarse for exact roads.
    #[error(
        "road area reaches {coord} m from the origin (with its margin), beyond {MAX_ROAD_COORD} m where positions are too coarse for roads: ask for an area nearer the origin"
    )]
    TooFar {
        /// The farthest coordinate, including the margin.
        coord: f64,
    },
    /// The parameters allow more growth than [`MAX_ROAD_STEPS`] here.
    #[error(
        "roads here could take up to {steps:.0} growth steps (limit {MAX_ROAD_STEPS}): lower max_points, max_rounds or density, or raise step"
    )]
    TooMuchGrowth {
        /// The bound: start points × 4 paths × growth rounds.
        steps: f64,
    },
    /// The request needs more of some work than its budget
    /// ([`RoadWork::limit`]) allows.
    #[error("roads here need more than {limit} {} (the limit for an area this size): {}", .work.name(), .work.advice())]
    TooMuchWork {
        /// The work that ran out.
        work: RoadWork,
        /// Its limit.
        limit: u64,
    },
}

/// The contour-road generator's parameters; defaults are the seed's numbers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct ContourParams {
    /// Start points per km² (on a jittered grid; those on lake, mud or town
    /// are dropped, so dry land has about this many).
    pub density: f64,
    /// Growth per round, metres (seed: 10).
    pub step: f64,
    /// Most points in one path (seed: 100).
    pub max_points: usize,
    /// Most growth rounds (seed: 300).
    pub max_rounds: usize,
    /// Bearing change tried either side each step, radians (seed: 0.09); at
    /// most a right angle (a larger turn points back, and a path would double
    /// back along its own last segment, which is no road).
    pub turn: f64,
    /// Class of the roads made.
    pub class: RoadClass,
    /// Width of the roads made, metres.
    pub width: f64,
    /// Seed for the start points' positions.
    pub seed: u64,
    /// Margin of the first focus box tried around a requested area, metres
    /// (it grows as needed to hold every road that touches the area).
    pub initial_margin: f64,
}

impl Default for ContourParams {
    fn default() -> Self {
        Self {
            density: 10.0,
            step: 10.0,
            max_points: 100,
            max_rounds: 300,
            turn: 0.09,
            class: RoadClass::Road,
            width: RoadClass::Road.default_width(),
            seed: 0,
            initial_margin: 600.0,
        }
    }
}

impl ContourParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_range("density", self.density, 0.01, 1000.0)?;
        ParamError::check_range("step", self.step, 1.0, 100.0)?;
        ParamError::check_range("max_points", self.max_points as f64, 2.0, 10_000.0)?;
        ParamError::check_range("max_rounds", self.max_rounds as f64, 1.0, 100_000.0)?;
        ParamError::check_range("turn", self.turn, 0.0, std::f64::consts::FRAC_PI_2)?;
        ParamError::check_range("width", self.width, 0.1, 100.0)?;
        ParamError::check_range("initial_margin", self.initial_margin, 0.0, 1.0e5)?;
        Ok(())
    }

    /// Rounds in which anything can still grow: every active path grows each
    /// round and stops at `max_points`.
    pub(super) fn horizon(&self) -> f64 {
        self.max_rounds.min(self.max_points - 1) as f64
    }
}

/// The contour-road generator.
#[derive(Clone, Debug)]
pub struct ContourRoads {
    params: ContourParams,
    cell: f64,
}

impl ContourRoads {
    /// A generator; invalid parameters are rejected with the field named.
    pub fn new(params: ContourParams) -> Result<Self, ParamError> {
        params.validate()?;
        let cell = 1000.0 / params.density.sqrt();
        Ok(Self { params, cell })
    }

    /// The parameters.
    pub fn params(&self) -> &ContourParams {
        &self.params
    }

    /// Every road with a point in `[min, max)`, whole (not clipped), with the
    /// junctions between them. The same roads whatever else was generated
    /// before, and whichever larger area contains this one. An area too
    /// large to simulate (see [`Self::try_generate`]) gives an empty network.
    pub fn generate(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> RoadNetwork {
        self.try_generate(terrain, min, max).unwrap_or_default()
    }

    /// [`Self::generate`], refusing areas (with their margin) beyond
    /// [`MAX_ROAD_AREA`], not finite or reaching beyond [`MAX_ROAD_COORD`],
    /// and parameters that could need more
    /// than [`MAX_ROAD_STEPS`] growth steps there, at once; and requests
    /// that turn out to need more of some work than its budget allows (see
    /// [`RoadWork`]), as soon as they do.
    pub fn try_generate(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<RoadNetwork, RoadAreaError> {
        let area = (max - min).max(DVec2::ZERO).element_product();
        self.generate_within(terrain, min, max, &mut Budget::for_area(area))
    }

    /// [`Self::try_generate`] within `budget`, which counts the work done.
    fn generate_within(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
        budget: &mut Budget,
    ) -> Result<RoadNetwork, RoadAreaError> {
        let step = self.params.step;
        // Every start whose paths could reach the focus box before growth ends.
        let reach = step * (self.params.horizon() + 1.0);
        let check = |f0: DVec2, f1: DVec2| {
            let size = (f1 - f0).max(DVec2::ZERO) + 2.0 * reach;
            if !(f0.is_finite() && f1.is_finite() && size.x * size.y <= MAX_ROAD_AREA) {
                return Err(RoadAreaError::TooLarge {
                    width: size.x,
                    height: size.y,
                });
            }
            let coord = (f0 - reach).abs().max((f1 + reach).abs()).max_element();
            if coord > MAX_ROAD_COORD {
                return Err(RoadAreaError::TooFar { coord });
            }
            let cells = (size / self.cell + 3.0).element_product();
            let steps = cells * 4.0 * self.params.horizon();
            if steps > MAX_ROAD_STEPS {
                return Err(RoadAreaError::TooMuchGrowth { steps });
            }
            Ok(())
        };
        check(min, max)?;
        if max.x <= min.x || max.y <= min.y {
            return Ok(RoadNetwork::default());
        }
        // A road touching the area lies within its length of it: this box
        // always holds every road returned.
        let full = step * self.params.horizon();
        let (full0, full1) = (min - full, max + full);
        // The first box: the initial margin, or the full one when that
        // simulates at most a quarter more (large areas, where some road
        // would cross the smaller box anyway).
        let cost = |m: f64| ((max - min) + 2.0 * (m + reach)).element_product();
        let first = self.params.initial_margin.min(full);
        let margin = if cost(full) <= 1.25 * cost(first) {
            full
        } else {
            first
        };
        let (mut f0, mut f1) = (min - margin, max + margin);
        let quick = QuickStops::new(terrain, step);
        loop {
            check(f0, f1)?;
            let area = (f0 - reach, f1 + reach);
            budget.spend(RoadWork::StartCells, self.start_cells(area.0, area.1))?;
            let starts = self.scan_starts(terrain, area.0, area.1);
            let mut sim = Sim::new(terrain, &self.params, &quick, &starts, (f0, f1), area);
            sim.run(budget)?;
            let roads = sim.roads_touching(min, max);
            let (mut bmin, mut bmax) = (min, max);
            for p in roads.iter().flat_map(|r| &r.points) {
                bmin = bmin.min(*p);
                bmax = bmax.max(*p);
            }
            let whole = f0.cmple(full0).all() && f1.cmpge(full1).all();
            if whole || (bmin.cmpge(f0).all() && bmax.cmple(f1).all()) {
                return Ok(RoadNetwork::from_roads(roads));
            }
            // Some road leaves the focus box: simulate again with each side
            // it crossed moved out to the full margin.
            let grown = (
                DVec2::select(bmin.cmplt(f0), full0, f0),
                DVec2::select(bmax.cmpgt(f1), full1, f1),
            );
            (f0, f1) = if grown == (f0, f1) {
                (full0, full1)
            } else {
                grown
            };
        }
    }
}

#[cfg(test)]
mod tests;
