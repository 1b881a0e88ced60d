//! Why a road could not be planned, and the caps that keep a request's
//! memory and time bounded.

use super::ParamError;
use glam::DVec2;
use thiserror::Error;

/// Which end of a request a [`PlanError`] is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum End {
    /// The start point.
    From,
    /// The end point.
    To,
}

/// Why a road could not be planned.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PlanError {
    /// The parameters are invalid.
    #[error("planner parameters: {0}")]
    Params(#[from] ParamError),
    /// An end point is NaN or infinite.
    #[error("{0:?} point is not finite")]
    NotFinite(End),
    /// An end point lies beyond the world's limit (±2⁵² m).
    #[error("{0:?} point {1} lies beyond the world's limit")]
    OutsideWorld(End, DVec2),
    /// An end point is in a lake.
    #[error("{0:?} point {1} is in water")]
    InWater(End, DVec2),
    /// The request is longer than `max_length`.
    #[error("request of {length} m is longer than the maximum {max} m")]
    TooLong {
        /// The straight distance asked for.
        length: f64,
        /// `PlannerParams::max_length`.
        max: f64,
    },
    /// A* expanded `max_expansions` states without reaching the end.
    #[error("search gave up after {0} expanded states")]
    TooMuchWork(usize),
    /// No dry road exists inside the search window (A*), or every candidate
    /// is wet or too sharp a turn (sequential).
    #[error("no road found ({0})")]
    NoRoad(&'static str),
    /// [`super::GameplayParams::set`] was given a name it does not hold.
    #[error("no gameplay parameter named {0:?}")]
    UnknownGameplay(String),
    /// The A* search window is too large to cache: its page directories
    /// would take more than [`MAX_WINDOW_BYTES`].
    #[error(
        "the A* search window is too large: its caches would take {bytes} bytes up front, \
         more than {max}; lower `window` or `min_margin`, or raise `step` or `sample`"
    )]
    WindowTooLarge {
        /// What the window's page directories would take.
        bytes: u64,
        /// [`MAX_WINDOW_BYTES`].
        max: u64,
    },
    /// [`super::SearchGraph::new`] was asked for ends closer than half a
    /// `step`, which have no grid (the planners return the straight road).
    #[error("ends {length} m apart are closer than half a step ({min} m): no grid to search")]
    TooShort {
        /// The straight distance asked for.
        length: f64,
        /// `step / 2`.
        min: f64,
    },
    /// A point (its index) of a path given to [`super::score_path`] or
    /// [`super::cardinal_spline`] is not finite or lies beyond the world's
    /// limit.
    #[error("path point {0} is not finite or lies beyond the world's limit")]
    PathPoint(usize),
    /// Scoring a path would walk more terrain samples than
    /// [`MAX_SCORE_SAMPLES`].
    #[error(
        "scoring the path would take {samples} terrain samples, more than {max}: \
         raise `sample` (or `step`), or score a shorter path"
    )]
    PathTooFine {
        /// Samples the path's segments hold (about its length over the spacing).
        samples: u64,
        /// [`MAX_SCORE_SAMPLES`].
        max: u64,
    },
}

/// Most memory an A* search window's caches may take up front (their
/// page directories, dense over the window; the pages come as the search
/// reaches them): 256 MiB. Any request on the default 40 m grid fits (the
/// longest `max_length`, 1000 km, takes 161 MiB), as does 20 km on a 1 m
/// grid (52 MiB).
pub const MAX_WINDOW_BYTES: u64 = 256 << 20;

/// Most terrain samples [`super::score_path`] walks (8 M, under a second:
/// 2 800 km of road at the finest valid spacing, a third of a metre).
pub const MAX_SCORE_SAMPLES: u64 = 1 << 23;
