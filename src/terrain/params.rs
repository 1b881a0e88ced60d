//! Terrain parameters: the reference numbers as defaults, serde, validation.
//! (With the `bevy` feature they also derive `Reflect`, for the inspector.)

use glam::DVec2;
use serde::{Deserialize, Serialize};
use thiserror::Error;

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

/// Why a [`TerrainParams`] was rejected; every variant names the field.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ParamError {
    /// The profile length is not a power of two in `2..=MAX_PROFILE_LEN`.
    #[error("profile: length {0} is not a power of two between 2 and {MAX_PROFILE_LEN}")]
    ProfileLength(usize),
    /// A number that must be finite is NaN or infinite.
    #[error("{field}: must be finite, got {value}")]
    NotFinite {
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A vector set is too short or too long.
    #[error("{field}: needs 5 to {MAX_VECTORS} direction vectors, got {len}")]
    VectorCount {
        /// The offending field.
        field: &'static str,
        /// Its length.
        len: usize,
    },
    /// Two sets that are used pairwise differ in length.
    #[error("{field}: must have the same length as {other} ({len} vs {other_len})")]
    LengthMismatch {
        /// The offending field.
        field: &'static str,
        /// Its length.
        len: usize,
        /// The field it must match.
        other: &'static str,
        /// That field's length.
        other_len: usize,
    },
    /// A number lies outside its allowed range.
    #[error("{field}: {value} is outside {min} ..= {max}")]
    OutOfRange {
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: f64,
        /// Smallest allowed.
        min: f64,
        /// Largest allowed.
        max: f64,
    },
}

fn finite(field: &'static str, value: f64) -> Result<(), ParamError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(ParamError::NotFinite { field, value })
    }
}

/// `value` must be finite and in `min..=max`; the error names `field`.
pub(crate) fn in_range(
    field: &'static str,
    value: f64,
    min: f64,
    max: f64,
) -> Result<(), ParamError> {
    finite(field, value)?;
    if (min..=max).contains(&value) {
        Ok(())
    } else {
        Err(ParamError::OutOfRange {
            field,
            value,
            min,
            max,
        })
    }
}

impl ParamError {
    /// `Ok` when `value` is finite and in `min..=max`; otherwise the error
    /// naming `field`. For the `validate()` of any parameter struct.
    pub fn check_range(field: &'static str, value: f64, min: f64, max: f64) -> Result<(), Self> {
        in_range(field, value, min, max)
    }
}

fn vector_set(field: &'static str, set: &[DVec2]) -> Result<(), ParamError> {
    if !(5..=MAX_VECTORS).contains(&set.len()) {
        return Err(ParamError::VectorCount {
            field,
            len: set.len(),
        });
    }
    for v in set {
        // Components beyond ±1e6 would push (a·x + b·y) past exact f64 integers
        // within a few thousand km.
        in_range(field, v.x, -1e6, 1e6)?;
        in_range(field, v.y, -1e6, 1e6)?;
    }
    Ok(())
}

/// Longest `streams.max_length` accepted, metres (the seed uses 300): with
/// its margin of `max_length + 1` on every side, a 3 km × 3 km request
/// scans (3000 + 2·3001 + 1)² ≈ 8.1·10⁷ m², within
/// [`MAX_SCAN_AREA`](super::MAX_SCAN_AREA).
pub(crate) const MAX_STREAM_LENGTH: f64 = 3000.0;

/// Largest magnitude of any height or threshold we accept (metres).
const BIG: f64 = 1e9;

impl TerrainParams {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let n = self.profile.len();
        if !(2..=MAX_PROFILE_LEN).contains(&n) || !n.is_power_of_two() {
            return Err(ParamError::ProfileLength(n));
        }
        for &p in &self.profile {
            in_range("profile", p, -1e6, 1e6)?;
        }
        vector_set("height_vectors", &self.height_vectors)?;
        vector_set("town_vectors", &self.town_vectors)?;
        vector_set("vegetation_vectors", &self.vegetation_vectors)?;
        vector_set("undergrowth_vectors", &self.undergrowth_vectors)?;
        if self.undergrowth_vectors.len() != self.vegetation_vectors.len() {
            return Err(ParamError::LengthMismatch {
                field: "undergrowth_vectors",
                len: self.undergrowth_vectors.len(),
                other: "vegetation_vectors",
                other_len: self.vegetation_vectors.len(),
            });
        }
        if self.time_vector.len() != self.height_vectors.len() {
            return Err(ParamError::LengthMismatch {
                field: "time_vector",
                len: self.time_vector.len(),
                other: "height_vectors",
                other_len: self.height_vectors.len(),
            });
        }
        for &c in &self.time_vector {
            in_range("time_vector", c, -1e6, 1e6)?;
        }
        in_range("time", self.time, -BIG, BIG)?;
        for (field, v) in [
            ("town_threshold", self.town_threshold),
            ("open_threshold", self.open_threshold),
            ("moor_threshold", self.moor_threshold),
            ("thicket_threshold", self.thicket_threshold),
            ("lake_base", self.lake_base),
            ("lake_level", self.lake_level),
            ("snow_level", self.snow_level),
        ] {
            in_range(field, v, -BIG, BIG)?;
        }
        if let Some(base) = self.mountain_base {
            in_range("mountain_base", base, -BIG, BIG)?;
        }
        if let Some(p) = &self.paths {
            in_range("paths.offset", p.offset.x, -BIG, BIG)?;
            in_range("paths.offset", p.offset.y, -BIG, BIG)?;
            in_range("paths.tolerance", p.tolerance, 0.0, 1e4)?;
        }
        let t = &self.trees;
        in_range("trees.spacing", t.spacing, 1.0, 1000.0)?;
        if t.spacing.fract() != 0.0 {
            return Err(ParamError::OutOfRange {
                field: "trees.spacing (a whole number)",
                value: t.spacing,
                min: 1.0,
                max: 1000.0,
            });
        }
        in_range("trees.wood_density", t.wood_density, 0.0, 1.0)?;
        in_range("trees.thicket_density", t.thicket_density, 0.0, 1.0)?;
        in_range("trees.jitter", t.jitter, 0.0, 0.5)?;
        let w = &self.towns;
        in_range("towns.building_chance", w.building_chance, 0.0, 1.0)?;
        in_range("towns.min_floors", w.min_floors as f64, 1.0, 100.0)?;
        in_range(
            "towns.max_floors",
            w.max_floors as f64,
            w.min_floors as f64,
            100.0,
        )?;
        in_range("towns.floor_height", w.floor_height, 0.5, 20.0)?;
        in_range("towns.variants", w.variants as f64, 1.0, 256.0)?;
        let s = &self.streams;
        if s.window.is_multiple_of(2) {
            return Err(ParamError::OutOfRange {
                field: "streams.window (odd)",
                value: s.window as f64,
                min: 3.0,
                max: 101.0,
            });
        }
        in_range("streams.window", s.window as f64, 3.0, 101.0)?;
        // Longer streams would grow the stream scan's margin past
        // MAX_SCAN_AREA; this bound leaves `streams_in` at least 3 km × 3 km.
        in_range("streams.max_length", s.max_length, 0.0, MAX_STREAM_LENGTH)?;
        let m = &self.mines;
        in_range("mines.cell", m.cell as f64, 1.0, 1024.0)?;
        in_range("mines.openness", m.openness, 0.0, 1.0)?;
        in_range("mines.depth", m.depth, 0.0, 1e4)?;
        let c = &self.caverns;
        in_range("caverns.level", c.level, -BIG, BIG)?;
        in_range("caverns.gap", c.gap, -BIG, BIG)?;
        for v in [c.floor_offset, c.roof_offset] {
            in_range("caverns offsets", v.x, -BIG, BIG)?;
            in_range("caverns offsets", v.y, -BIG, BIG)?;
        }
        in_range("caverns.scale", c.scale, 1e-3, 1e3)?;
        in_range("caverns.min_cover", c.min_cover, 0.0, 1e4)?;
        Ok(())
    }

    /// The reference world with a random sum-of-sines profile of `len`
    /// entries made from `seed` (see [`crate::terrain::random_profile`]): lake
    /// level 34 and snow at 2.4 × the profile maximum, as in the seed.
    pub fn random(seed: u64, len: usize) -> Result<Self, ParamError> {
        let profile = super::random_profile(seed, len)?;
        let max = profile.iter().copied().fold(f64::MIN, f64::max);
        Ok(Self {
            profile,
            lake_base: 34.0,
            lake_level: 34.0,
            snow_level: max * 2.4,
            seed,
            ..Self::default()
        })
    }

    /// Normal lake level plus `metres` of rain (negative drains the lakes).
    pub fn with_rain(mut self, metres: f64) -> Self {
        self.lake_level = self.lake_base + metres;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_matches_reference_tables() {
        let p = TerrainParams::default();
        p.validate().unwrap();
        assert_eq!(p.profile.len(), 256);
        assert_eq!(p.profile.iter().sum::<f64>(), 15291.0);
        assert_eq!(p.height_vectors[4], DVec2::new(29.0, 1.0));
    }

    #[test]
    fn errors_name_the_field() {
        let mut p = TerrainParams::default();
        p.profile.pop();
        assert_eq!(p.validate(), Err(ParamError::ProfileLength(255)));
        let mut p = TerrainParams::default();
        p.profile.clear();
        assert!(p.validate().unwrap_err().to_string().starts_with("profile"));
        let p = TerrainParams {
            lake_level: f64::NAN,
            ..Default::default()
        };
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("lake_level")
        );
        let mut p = TerrainParams::default();
        p.height_vectors.truncate(4);
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("height_vectors")
        );
        let mut p = TerrainParams::default();
        p.undergrowth_vectors.push(DVec2::ONE);
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("undergrowth_vectors")
        );
        let mut p = TerrainParams::default();
        p.trees.wood_density = -0.1;
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("trees.wood_density")
        );
        let mut p = TerrainParams::default();
        p.streams.window = 10;
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("streams.window")
        );
        let mut p = TerrainParams::default();
        p.height_vectors[0].x = f64::INFINITY;
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("height_vectors")
        );
    }

    #[test]
    fn the_shipped_reference_world_file_is_the_default() {
        let text = include_str!("../../assets/worlds/reference.ron");
        let p: TerrainParams = ron::from_str(text).unwrap();
        assert_eq!(p, TerrainParams::default());
    }

    #[test]
    fn misspelt_keys_are_rejected_by_name() {
        let err = ron::from_str::<TerrainParams>("(lake_levl: 3.0)").unwrap_err();
        assert!(err.to_string().contains("lake_levl"), "{err}");
        // In every nested struct too.
        for (text, key) in [
            ("(trees: (spacin: 4.0))", "spacin"),
            ("(towns: (variant: 2))", "variant"),
            ("(streams: (max_len: 10.0))", "max_len"),
            ("(mines: (depht: 5.0))", "depht"),
            ("(caverns: (levle: 1.0))", "levle"),
            ("(paths: Some((tolerence: 1.0)))", "tolerence"),
        ] {
            let err = ron::from_str::<TerrainParams>(text).unwrap_err();
            assert!(err.to_string().contains(key), "{text}: {err}");
        }
        // Known keys still load, missing ones still default.
        let p: TerrainParams = ron::from_str("(trees: (spacing: 4.0))").unwrap();
        assert_eq!(p.trees.spacing, 4.0);
        assert_eq!(p.trees.jitter, TreeParams::default().jitter);
    }

    #[test]
    fn stream_length_is_bounded() {
        let mut p = TerrainParams::default();
        p.streams.max_length = MAX_STREAM_LENGTH;
        p.validate().unwrap();
        p.streams.max_length = MAX_STREAM_LENGTH + 0.5;
        assert!(
            p.validate()
                .unwrap_err()
                .to_string()
                .starts_with("streams.max_length")
        );
    }

    #[test]
    fn serde_round_trip() {
        let p = TerrainParams::random(7, 512).unwrap();
        let text = ron::to_string(&p).unwrap();
        let back: TerrainParams = ron::from_str(&text).unwrap();
        assert_eq!(p, back);
        // Missing fields take the reference defaults.
        let partial: TerrainParams = ron::from_str("(lake_level: 210.0)").unwrap();
        assert_eq!(partial, TerrainParams::default().with_rain(6.0));
    }
}
