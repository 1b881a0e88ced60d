//! [`EarthworkParams`]: how roads and towns are built into the ground.

use crate::network::RoadClass;
use crate::terrain::ParamError;
use serde::{Deserialize, Serialize};

/// A steepest grade per road class (rise over run: 0.08 is 8 %).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct ClassGrades {
    /// Highways.
    pub highway: f64,
    /// Country roads.
    pub road: f64,
    /// Town streets.
    pub street: f64,
    /// Tracks.
    pub track: f64,
}

impl Default for ClassGrades {
    fn default() -> Self {
        Self {
            highway: 0.08,
            road: 0.12,
            street: 0.15,
            track: 0.20,
        }
    }
}

impl ClassGrades {
    /// The limit for `class` (a footway keeps none: it has steps).
    pub fn of(&self, class: RoadClass) -> f64 {
        match class {
            RoadClass::Highway => self.highway,
            RoadClass::Road => self.road,
            RoadClass::Street => self.street,
            RoadClass::Track => self.track,
            RoadClass::Path => f64::INFINITY,
        }
    }

    fn validate(&self) -> Result<(), ParamError> {
        let check = |f, v| ParamError::check_range(f, v, 0.01, 1.0);
        check("highway", self.highway)?;
        check("road", self.road)?;
        check("street", self.street)?;
        check("track", self.track)
    }
}

/// How roads and towns are built into the ground: vertical profiles under
/// grade limits, cut and fill with side slopes, bridges where the fill would
/// be too high, tunnels where the cut would be too deep, retaining walls,
/// and level pads for lots.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct EarthworkParams {
    /// Build roads and towns into the ground (off: everything lies on the
    /// natural ground, as generated).
    pub enabled: bool,
    /// Steepest grade of each class's profile.
    pub max_grade: ClassGrades,
    /// A street that cannot keep this grade becomes a footway with steps
    /// ([`RoadClass::Path`]).
    pub max_street_grade: f64,
    /// Length over which the ground under a road is averaged before its
    /// profile is fitted: the road's own scale, metres.
    pub smoothing: f64,
    /// Spacing of profile points, metres (vertical curves need them).
    pub step: f64,
    /// Highest fill under a road before it becomes a bridge, metres.
    pub max_fill: f64,
    /// Deepest cut under a road before it becomes a tunnel, metres.
    pub max_cut: f64,
    /// Farthest a road's earthworks reach from its centre line, and a town's
    /// beyond its lots, metres.
    pub max_reach: f64,
    /// Longest side slope before a retaining wall holds it instead, metres
    /// (measured across from the shoulder).
    pub max_slope_run: f64,
    /// Fill side slope, horizontal per vertical (1.5: 1 in 1.5).
    pub fill_slope: f64,
    /// Cut side slope, horizontal per vertical.
    pub cut_slope: f64,
    /// Shoulder each side of the carriageway, metres: flat with it.
    pub shoulder: f64,
    /// A bridge deck's clearance over a lake's water, metres.
    pub clearance: f64,
    /// Half-side of the square a town's ground is averaged over before its
    /// streets are fitted to it, metres.
    pub town_smoothing: f64,
    /// Where two roads cross with their own heights this far apart or more,
    /// the higher passes over the lower on a bridge instead of meeting it,
    /// metres.
    pub separation: f64,
    /// How far a town's lot may be raised or lowered from the natural
    /// ground under it, metres: a lot is a level pad at its street's height,
    /// but no further than this from its ground (a retaining wall takes up
    /// the rest at the street).
    pub max_pad_step: f64,
    /// How far a town's junction may be raised or lowered from the town's
    /// ground, metres, so that the streets between junctions keep
    /// `max_grade.street`.
    pub max_street_shift: f64,
    /// The steepest a road may be within a junction's platform (where
    /// other roads' carriageways cross it), so that no carriageway tilts
    /// more across than this there.
    pub junction_grade: f64,
}

impl Default for EarthworkParams {
    fn default() -> Self {
        Self {
            enabled: true,
            max_grade: ClassGrades::default(),
            max_street_grade: 0.25,
            smoothing: 40.0,
            step: 10.0,
            max_fill: 12.0,
            max_cut: 15.0,
            max_reach: 60.0,
            max_slope_run: 24.0,
            fill_slope: 1.5,
            cut_slope: 1.0,
            shoulder: 1.0,
            clearance: 4.0,
            max_pad_step: 6.0,
            max_street_shift: 20.0,
            junction_grade: 0.02,
            separation: 7.0,
            town_smoothing: 30.0,
        }
    }
}

impl EarthworkParams {
    /// Checks every field; the error names it.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        self.max_grade
            .validate()
            .map_err(|e| e.within("max_grade"))?;
        check("max_street_grade", self.max_street_grade, 0.05, 2.0)?;
        check("smoothing", self.smoothing, 0.0, 1000.0)?;
        check("step", self.step, 1.0, 100.0)?;
        check("max_fill", self.max_fill, 0.5, 100.0)?;
        check("max_cut", self.max_cut, 0.5, 100.0)?;
        check("max_reach", self.max_reach, 5.0, 500.0)?;
        check("max_slope_run", self.max_slope_run, 0.0, self.max_reach)?;
        check("fill_slope", self.fill_slope, 0.25, 10.0)?;
        check("cut_slope", self.cut_slope, 0.1, 10.0)?;
        check("shoulder", self.shoulder, 0.0, 10.0)?;
        check("clearance", self.clearance, 0.0, 100.0)?;
        check("max_pad_step", self.max_pad_step, 0.0, 100.0)?;
        check("max_street_shift", self.max_street_shift, 0.0, 100.0)?;
        check("junction_grade", self.junction_grade, 0.0, 1.0)?;
        check("separation", self.separation, 0.5, 1000.0)?;
        check("town_smoothing", self.town_smoothing, 0.0, 500.0)?;
        Ok(())
    }
}
