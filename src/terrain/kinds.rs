//! What the ground is: terrain kinds, point features, orienteering codes.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of ground at a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum TerrainKind {
    /// Water below the lake level.
    Lake,
    /// Paved town ground with buildings.
    Town,
    /// Open grassland (yellow on the map).
    Grass,
    /// Rough open moorland (ochre).
    Moor,
    /// Runnable woodland (white).
    Wood,
    /// Dense thicket (green).
    Thicket,
    /// A placed road.
    Road,
    /// Lake bed exposed when the level is lowered.
    Mud,
    /// A path (placed, or from the two-surface option).
    Path,
    /// A placed stream.
    Stream,
    /// Marsh (where a stream ends in a hollow).
    Marsh,
    /// Built ground that is no road: a road's embankment or cutting, or a
    /// retaining wall (bare; no trees or features).
    Earthwork,
}

impl TerrainKind {
    /// Every kind, in declaration order.
    pub const ALL: [TerrainKind; 12] = [
        Self::Lake,
        Self::Town,
        Self::Grass,
        Self::Moor,
        Self::Wood,
        Self::Thicket,
        Self::Road,
        Self::Mud,
        Self::Path,
        Self::Stream,
        Self::Marsh,
        Self::Earthwork,
    ];

    /// Lower-case name, as in the reference CSV files (`"lake"`, `"town"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::Lake => "lake",
            Self::Town => "town",
            Self::Grass => "grass",
            Self::Moor => "moor",
            Self::Wood => "wood",
            Self::Thicket => "thicket",
            Self::Road => "road",
            Self::Mud => "mud",
            Self::Path => "path",
            Self::Stream => "stream",
            Self::Marsh => "marsh",
            Self::Earthwork => "earthwork",
        }
    }

    /// Whether trees grow here.
    pub fn is_wooded(self) -> bool {
        matches!(self, Self::Wood | Self::Thicket)
    }
}

/// A point feature on the ground at a whole-metre position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum Feature {
    /// A mine shaft or cave entrance, leading to the mine level.
    Mine,
    /// A boulder.
    Boulder,
    /// An upturned tree root (rootstock).
    Root,
    /// A water hole (pond); streams start here.
    WaterHole,
    /// A knoll.
    Knoll,
    /// A man-made object, such as a sculpture.
    ManMade,
    /// A traffic cone: movable, so not on the map.
    Cone,
}

impl Feature {
    /// Every feature, in declaration order.
    pub const ALL: [Feature; 7] = [
        Self::Mine,
        Self::Boulder,
        Self::Root,
        Self::WaterHole,
        Self::Knoll,
        Self::ManMade,
        Self::Cone,
    ];

    /// Lower-case name, as in the reference CSV files (`"mine"`, `"man_made"`, …).
    pub fn name(self) -> &'static str {
        match self {
            Self::Mine => "mine",
            Self::Boulder => "boulder",
            Self::Root => "root",
            Self::WaterHole => "waterhole",
            Self::Knoll => "knoll",
            Self::ManMade => "man_made",
            Self::Cone => "cone",
        }
    }

    /// The orienteering description of the feature.
    pub fn description(self) -> &'static str {
        match self {
            Self::Mine => "mineshaft",
            Self::Boulder => "boulder",
            Self::Root => "rootstock",
            Self::WaterHole => "water hole",
            Self::Knoll => "knoll",
            Self::ManMade => "man-made",
            Self::Cone => "cone",
        }
    }
}

/// A two-letter orienteering control code, e.g. `"KD"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ControlCode(pub [u8; 2]);

impl ControlCode {
    /// The code of the control at a whole-metre position: letters from
    /// `|x| mod 26` and `|y| mod 26`.
    pub fn at(xr: i64, yr: i64) -> Self {
        let letter = |v: i64| b'A' + (v.unsigned_abs() % 26) as u8;
        Self([letter(xr), letter(yr)])
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).unwrap_or("??")
    }
}

impl fmt::Display for ControlCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything about the ground at one position, from [`crate::terrain::Terrain::terra`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Terra {
    /// Surface height: the ground, or the water surface in a lake.
    pub height: f64,
    /// Water depth in a lake, else 0.
    pub depth: f64,
    /// The kind of ground.
    pub kind: TerrainKind,
    /// The point feature here, if any.
    pub feature: Option<Feature>,
    /// The orienteering code of a feature that carries a flag.
    pub code: Option<ControlCode>,
    /// Dry ground at or above the snow level.
    pub snow: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_codes() {
        assert_eq!(ControlCode::at(0, 25).as_str(), "AZ");
        assert_eq!(ControlCode::at(-27, 52).to_string(), "BA");
        assert_eq!(ControlCode::at(i64::MIN, i64::MAX).as_str().len(), 2);
    }
}
