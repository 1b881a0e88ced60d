//! The planar street generator's parameters (the article's knobs): per
//! level clearance, extension range, connection radius and split length;
//! the minimum angle, candidates per split, degree cap, scoring weights.

use crate::terrain::ParamError;
use serde::{Deserialize, Serialize};

/// Most recursion levels.
pub const MAX_LEVELS: usize = 8;

/// One level of the recursion (metres).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct StreetLevel {
    /// No new node closer than this to any node already there.
    pub clearance: f64,
    /// New nodes lie this far (min, max) from the node they grow from.
    pub extension: (f64, f64),
    /// The longest street edge this level may draw.
    pub connection_radius: f64,
    /// After this level, ring and street edges are split into pieces no
    /// longer than this (anchors for the next level); unused on the last.
    pub split_length: f64,
}

impl Default for StreetLevel {
    /// The reference first level.
    fn default() -> Self {
        Self {
            clearance: 100.0,
            extension: (120.0, 200.0),
            connection_radius: 200.0,
            split_length: 80.0,
        }
    }
}

/// What shapes the planar streets. Defaults are the reference
/// three levels with the article's other values.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct PlanarParams {
    /// Seed of every random choice (candidate positions, nodes picked).
    pub seed: u64,
    /// No street makes an angle below this (degrees) with any edge at
    /// either of its ends (0 ..= 90; the article likes 55–65).
    pub min_angle_deg: f64,
    /// Split number the outer face grows with after each level when there
    /// is no boundary (0 keeps the city inside its first streets; with a
    /// boundary it is unused: the city stays inside its ring).
    pub outer_split: f64,
    /// The levels, widest streets first (1 ..= 8).
    pub levels: Vec<StreetLevel>,
    /// How many candidates (min, max) a node tries around it when it splits.
    pub candidates: (u32, u32),
    /// No node gets more edges than this (3 ..= 8; the article: 4).
    pub max_degree: u32,
    /// Score weight of a turn away from the street's direction (0 ..= 100).
    pub align_weight: f64,
    /// Score weight of an edge's length over the connection radius (0 ..= 100).
    pub distance_weight: f64,
    /// Chance that a street goes on through a node where another street
    /// ended (the article: "we can stop or continue").
    pub continue_at_end: f64,
    /// Chance that a street goes on across another street.
    pub continue_at_crossing: f64,
    /// Street widths by level (the last repeats for deeper levels).
    pub street_widths: Vec<f64>,
}

impl Default for PlanarParams {
    fn default() -> Self {
        let level = |c: f64, e: (f64, f64), r: f64, s: f64| StreetLevel {
            clearance: c,
            extension: e,
            connection_radius: r,
            split_length: s,
        };
        Self {
            seed: 7,
            min_angle_deg: 60.0,
            outer_split: 0.0,
            levels: vec![
                level(100.0, (120.0, 200.0), 200.0, 80.0),
                level(40.0, (50.0, 80.0), 80.0, 32.0),
                level(16.0, (20.0, 32.0), 32.0, 0.0),
            ],
            candidates: (10, 16),
            max_degree: 4,
            align_weight: 1.0,
            distance_weight: 0.5,
            continue_at_end: 0.7,
            continue_at_crossing: 0.5,
            street_widths: vec![7.0, 5.5, 4.0],
        }
    }
}

/// `levels[i].<field>` names for error messages.
macro_rules! level_names {
    ($($i:literal)*) => {
        [$([
            concat!("levels[", $i, "].clearance"),
            concat!("levels[", $i, "].extension.0"),
            concat!("levels[", $i, "].extension.1"),
            concat!("levels[", $i, "].connection_radius"),
            concat!("levels[", $i, "].split_length"),
        ]),*]
    };
}
const LEVEL_NAMES: [[&str; 5]; MAX_LEVELS] = level_names!(0 1 2 3 4 5 6 7);

/// Longest length any level may use, metres.
const MAX_LENGTH: f64 = 1.0e5;
/// Shortest clearance and split length, metres.
const MIN_LENGTH: f64 = 0.1;

impl PlanarParams {
    /// Checks every field; the error names the first offending one.
    ///
    /// Per level: `0.1 ≤ clearance < extension.0 ≤ extension.1 ≤ 1e5`,
    /// `clearance ≤ connection_radius ≤ 1e5`, and on every level but the
    /// last `0.1 ≤ split_length ≤ 1e5`.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        check("min_angle_deg", self.min_angle_deg, 0.0, 90.0)?;
        check("outer_split", self.outer_split, 0.0, 16.0)?;
        check("levels", self.levels.len() as f64, 1.0, MAX_LEVELS as f64)?;
        for (i, l) in self.levels.iter().enumerate() {
            let [c, e0, e1, r, s] = LEVEL_NAMES[i];
            check(c, l.clearance, MIN_LENGTH, MAX_LENGTH)?;
            check(e0, l.extension.0, l.clearance, MAX_LENGTH)?;
            if l.extension.0 == l.clearance {
                // The range is closed; the extension must exceed the clearance.
                return Err(ParamError::out_of_range(
                    e0,
                    l.extension.0,
                    l.clearance,
                    MAX_LENGTH,
                ));
            }
            check(e1, l.extension.1, l.extension.0, MAX_LENGTH)?;
            check(r, l.connection_radius, l.clearance, MAX_LENGTH)?;
            if i + 1 < self.levels.len() {
                check(s, l.split_length, MIN_LENGTH, MAX_LENGTH)?;
            }
        }
        check("candidates.0", self.candidates.0 as f64, 1.0, 64.0)?;
        check(
            "candidates.1",
            self.candidates.1 as f64,
            self.candidates.0 as f64,
            64.0,
        )?;
        check("max_degree", self.max_degree as f64, 3.0, 8.0)?;
        check("align_weight", self.align_weight, 0.0, 100.0)?;
        check("distance_weight", self.distance_weight, 0.0, 100.0)?;
        check("continue_at_end", self.continue_at_end, 0.0, 1.0)?;
        check("continue_at_crossing", self.continue_at_crossing, 0.0, 1.0)?;
        check(
            "street_widths",
            self.street_widths.len() as f64,
            1.0,
            MAX_LEVELS as f64,
        )?;
        for &w in &self.street_widths {
            check("street_widths", w, 0.5, 100.0)?;
        }
        Ok(())
    }

    /// The width of level `n`'s streets (the last entry for deeper levels;
    /// 4 m when there is none).
    pub fn street_width(&self, n: usize) -> f64 {
        let w = &self.street_widths;
        w.get(n.min(w.len().saturating_sub(1)))
            .copied()
            .unwrap_or(4.0)
    }
}
