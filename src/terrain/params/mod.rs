//! Terrain parameters: the reference numbers as defaults, serde, validation.
//! (With the `bevy` feature they also derive `Reflect`, for the inspector.)

use glam::DVec2;
use serde::{Deserialize, Serialize};

mod load;
#[cfg(test)]
mod tests;
mod validate;

pub use load::{RonError, from_ron};
pub use validate::ParamError;

/// Longest `streams.max_length` accepted, metres (the seed uses 300): with
/// its margin of `max_length + 1` on every side, a 3 km × 3 km request
/// scans (3000 + 2·3001 + 1)² ≈ 8.1·10⁷ m², within
/// [`MAX_SCAN_AREA`](crate::terrain::MAX_SCAN_AREA).
pub(crate) const MAX_STREAM_LENGTH: f64 = 3000.0;

/// The 1983 profile of The Forest (256 entries), as published by the author.
pub const REFERENCE_PROFILE: [f64; 256] = [
    77., 80., 84., 88., 92., 96., 101., 104., 108., 112., 115., 118., 120., 123., 126., 129., 131.,
    133., 134., 134., 133., 133., 131., 130., 129., 126., 123., 122., 122., 122., 123., 125., 126.,
    130., 134., 137., 137., 138., 138., 137., 135., 133., 129., 123., 118., 111., 105., 101., 97.,
    93., 90., 86., 82., 78., 74., 71., 69., 67., 67., 67., 66., 67., 69., 71., 73., 74., 73., 73.,
    71., 69., 66., 62., 58., 54., 52., 52., 54., 55., 58., 59., 62., 63., 63., 65., 65., 65., 66.,
    66., 67., 69., 70., 73., 77., 80., 82., 85., 88., 90., 93., 95., 96., 96., 96., 96., 93., 92.,
    90., 85., 80., 75., 71., 67., 63., 60., 58., 55., 52., 50., 47., 44., 43., 41., 40., 39., 36.,
    35., 33., 32., 30., 28., 24., 20., 15., 11., 7., 3., 2., 2., 2., 2., 2., 2., 3., 6., 7., 10.,
    11., 15., 18., 22., 24., 25., 25., 26., 26., 25., 25., 25., 25., 25., 26., 28., 29., 30., 33.,
    36., 37., 39., 39., 40., 40., 40., 39., 39., 39., 37., 37., 37., 36., 36., 36., 35., 35., 33.,
    33., 32., 30., 28., 25., 20., 15., 11., 10., 9., 9., 9., 9., 11., 14., 15., 17., 17., 18., 18.,
    18., 18., 18., 18., 17., 17., 17., 15., 14., 13., 11., 11., 10., 10., 10., 11., 13., 14., 17.,
    20., 22., 25., 28., 30., 35., 39., 41., 45., 50., 58., 63., 69., 73., 77., 80., 82., 84., 84.,
    85., 85., 84., 84., 82., 81., 80., 75., 73., 71., 71., 73., 74., 75.,
];

/// Longest profile accepted (a power of two); longer ones only cost memory.
pub const MAX_PROFILE_LEN: usize = 1 << 20;
/// Most direction vectors accepted in one set.
pub const MAX_VECTORS: usize = 64;

fn vectors(a: [f64; 5], b: [f64; 5]) -> Vec<DVec2> {
    a.iter().zip(b).map(|(&a, b)| DVec2::new(a, b)).collect()
}

/// Everything that shapes a Relf world. `Default` is the reference world of
/// `shared/reference/RELF_REFERENCE.md`.
///
/// Deserialising fills missing fields from the defaults and rejects unknown
/// ones (a misspelt key is an error naming it), here and in every nested
/// parameter struct.
///
/// A direction vector `(a, b)` contributes `profile[(a·x + b·y) / 128]` to a
/// sum; the "A" and "B" tables of the seed are the x and y components.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TerrainParams {
    /// The periodic 1-D profile; its length must be a power of two ≥ 2.
    pub profile: Vec<f64>,
    /// Height directions (AH, BH).
    pub height_vectors: Vec<DVec2>,
    /// Town directions (A1, B1).
    pub town_vectors: Vec<DVec2>,
    /// Open-land / wood directions (A2, B2).
    pub vegetation_vectors: Vec<DVec2>,
    /// Moor / thicket directions (A3, B3). Point features use the swapped
    /// pairs `(vegetation.y, undergrowth.x)`, as in the seed.
    pub undergrowth_vectors: Vec<DVec2>,
    /// Town where the town sum is below this.
    pub town_threshold: f64,
    /// Open land (grass or moor) where the vegetation sum is below this.
    pub open_threshold: f64,
    /// On open land: grass below, moor at or above this undergrowth sum.
    pub moor_threshold: f64,
    /// In woodland: thicket below, runnable wood at or above this undergrowth sum.
    pub thicket_threshold: f64,
    /// The normal lake level (LAKE_HT0): ground below it is lake or, when the
    /// level is lowered, mud.
    pub lake_base: f64,
    /// The current lake level: rain raises it, draining lowers it.
    pub lake_level: f64,
    /// Dry ground at or above this height carries snow.
    pub snow_level: f64,
    /// Heights above this become `base + dz·√dz` (mountains); `None` = off.
    pub mountain_base: Option<f64>,
    /// Time-evolution components (the third vector, one per height vector).
    pub time_vector: Vec<f64>,
    /// The time at which the terrain is evaluated (seconds, or any unit).
    /// At 0 the heights are exactly the reference.
    pub time: f64,
    /// Paths as intersections of two surfaces; `None` = off.
    pub paths: Option<PathParams>,
    /// Seed for variations the seed text leaves free (tree presence, buildings).
    pub seed: u64,
    /// Trees in woods and thickets.
    pub trees: TreeParams,
    /// Buildings in towns.
    pub towns: TownParams,
    /// Streams from water holes.
    pub streams: StreamParams,
    /// The mine level under the ground.
    pub mines: MineParams,
    /// Irregular caverns between two height fields.
    pub caverns: CavernParams,
}

impl Default for TerrainParams {
    fn default() -> Self {
        Self {
            profile: REFERENCE_PROFILE.to_vec(),
            height_vectors: vectors([0., 13., 21., 22., 29.], [27., 26., 21., 11., 1.]),
            town_vectors: vectors([-43., -43., -56., 31., 4.], [-3., -12., 22., 2., 32.]),
            vegetation_vectors: vectors(
                [-24., -25., 60., 10., -30.],
                [15., -54., -34., -51., -43.],
            ),
            undergrowth_vectors: vectors(
                [-51., -62., -58., -64., 33.],
                [-44., 20., 27., -64., -44.],
            ),
            town_threshold: 120.0,
            open_threshold: 255.0,
            moor_threshold: 255.0,
            thicket_threshold: 200.0,
            lake_base: 204.0,
            lake_level: 204.0,
            snow_level: 560.0,
            mountain_base: None,
            time_vector: vec![1.0, -2.0, 3.0, -1.0, 2.0],
            time: 0.0,
            paths: None,
            seed: 0,
            trees: TreeParams::default(),
            towns: TownParams::default(),
            streams: StreamParams::default(),
            mines: MineParams::default(),
            caverns: CavernParams::default(),
        }
    }
}

/// Paths where the ground has the same height as the ground at a fixed offset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct PathParams {
    /// The offset to the second surface (the seed uses 4000, 2000).
    pub offset: DVec2,
    /// Path where the two heights differ by less than this (metres; seed: 2).
    pub tolerance: f64,
}

impl Default for PathParams {
    fn default() -> Self {
        Self {
            offset: DVec2::new(4000.0, 2000.0),
            tolerance: 2.0,
        }
    }
}

/// Trees stand on a square lattice, jittered within each tile.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TreeParams {
    /// Lattice spacing in metres (a whole number ≥ 1).
    pub spacing: f64,
    /// Fraction of lattice points in runnable wood that carry a tree.
    pub wood_density: f64,
    /// Fraction of lattice points in thicket that carry a tree.
    pub thicket_density: f64,
    /// Largest in-tile offset as a fraction of the spacing (0 ..= 0.5).
    pub jitter: f64,
}

impl Default for TreeParams {
    fn default() -> Self {
        Self {
            spacing: 6.0,
            wood_density: 0.55,
            thicket_density: 0.95,
            jitter: 0.4,
        }
    }
}

/// Buildings: 12 m squares on the 16 m lattice inside towns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct TownParams {
    /// Chance that a town lattice point has a building (0 ..= 1).
    pub building_chance: f64,
    /// Fewest storeys.
    pub min_floors: u32,
    /// Most storeys.
    pub max_floors: u32,
    /// Height of one storey in metres.
    pub floor_height: f64,
    /// Number of roof/colour variants (1 ..= 256).
    pub variants: u32,
}

impl Default for TownParams {
    fn default() -> Self {
        Self {
            building_chance: 0.8,
            min_floors: 1,
            max_floors: 4,
            floor_height: 3.2,
            variants: 4,
        }
    }
}

/// Streams run downhill from water holes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct StreamParams {
    /// Side of the square window searched for the next, lowest point (odd; seed: 11).
    pub window: u32,
    /// Longest stream in metres (seed: 300; at most 3000).
    pub max_length: f64,
}

impl Default for StreamParams {
    fn default() -> Self {
        Self {
            window: 11,
            max_length: 300.0,
        }
    }
}

/// The mine level: a 16 m grid of cells, open or solid rock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct MineParams {
    /// Cell size in metres (seed: 16).
    pub cell: u32,
    /// A cell is open where its pseudo-random fraction exceeds this (seed: 0.4).
    pub openness: f64,
    /// Depth of the mine floor below the ground at a shaft, metres.
    pub depth: f64,
}

impl Default for MineParams {
    fn default() -> Self {
        Self {
            cell: 16,
            openness: 0.4,
            depth: 20.0,
        }
    }
}

/// Caverns: open space between a floor and a roof height field.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct CavernParams {
    /// Height of the cavern layer's datum (negative: below the lakes).
    pub level: f64,
    /// Vertical gap added to the roof field: larger means more open space.
    pub gap: f64,
    /// Horizontal offset of the floor field.
    pub floor_offset: DVec2,
    /// Horizontal offset of the roof field.
    pub roof_offset: DVec2,
    /// Horizontal scale of both fields (> 1 gives slower undulations).
    pub scale: f64,
    /// Least rock between a cavern's roof and the ground, metres.
    pub min_cover: f64,
}

impl Default for CavernParams {
    fn default() -> Self {
        Self {
            level: -300.0,
            gap: -30.0,
            floor_offset: DVec2::new(1700.0, -2300.0),
            roof_offset: DVec2::new(-3100.0, 900.0),
            scale: 0.5,
            min_cover: 10.0,
        }
    }
}
