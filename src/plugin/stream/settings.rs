//! The live settings (`TerrainSettings`) and the terrain built from them.

use crate::plugin::ReliefError;
use crate::roads::RoadError;
use crate::terrain::{MAX_SCAN_AREA, ParamError, RonError, Terrain, TerrainParams};
use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thiserror::Error;

/// Everything a player can tune live: the terrain parameters and how much
/// of the world is shown. Change it (e.g. in the inspector) and the world
/// regenerates around the focus; invalid values are reported in
/// [`TerrainState::settings_error`] and the last good world stays.
#[derive(Resource, Clone, Debug, PartialEq, Default, Reflect, Serialize, Deserialize)]
#[reflect(Resource)]
#[serde(default, deny_unknown_fields)]
pub struct TerrainSettings {
    /// The world's parameters.
    pub params: TerrainParams,
    /// What is streamed around the focus.
    pub view: ViewSettings,
    /// The road system's parameters (cities, highways, contour roads), used
    /// when the plugin's road source is the default one (see
    /// [`RoadSource`](super::roads::RoadSource)).
    pub roads: crate::world::RoadSystemParams,
}

/// How much of the world is streamed, and how fast.
#[derive(Clone, Debug, PartialEq, Reflect, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ViewSettings {
    /// Ground is shown to this distance from the focus, metres.
    pub view_distance: f64,
    /// Side of the finest chunks, metres (a power of two).
    pub min_chunk_size: f64,
    /// Quads along a chunk side (vertex spacing = chunk size / quads).
    pub chunk_quads: u32,
    /// A chunk splits into four while the focus is closer than this many
    /// chunk sizes: larger = finer detail further out.
    pub lod_factor: f64,
    /// Chunks coarser than this mesh the built ground (pads, roads, cut and
    /// fill) as its mean over each vertex's cell, from sub-samples about
    /// this far apart (at most 4 a side), so that distant terraces do not
    /// alias into spikes; metres, 0 = one sample per vertex.
    pub built_filter: f64,
    /// Trees, features and buildings are placed to this distance, metres.
    pub object_radius: f64,
    /// Most chunk or object-cell tasks running at once.
    pub max_tasks: usize,
    /// Most finished chunk meshes uploaded per frame.
    pub chunk_uploads_per_frame: usize,
    /// The mebibytes of streamed meshes (chunks, structures, city buildings)
    /// handed to the renderer per frame, nearest and the ground first (the
    /// mesh crossing it goes too: one a frame at least).
    pub upload_mib_per_frame: f64,
    /// Most object entities spawned per frame.
    pub object_spawns_per_frame: usize,
    /// The render origin moves to the focus when it is this far away, metres.
    pub recenter_distance: f64,
    /// Roads (and streams) are laid this far around the focus, metres
    /// (0 = none).
    pub road_radius: f64,
    /// Show the water surfaces of lakes.
    pub water: bool,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            view_distance: 6000.0,
            min_chunk_size: 64.0,
            chunk_quads: 32,
            lod_factor: 1.5,
            built_filter: 2.0,
            object_radius: 400.0,
            max_tasks: 8,
            chunk_uploads_per_frame: 6,
            upload_mib_per_frame: 2.0,
            object_spawns_per_frame: 250,
            recenter_distance: 1000.0,
            road_radius: 1500.0,
            water: true,
        }
    }
}

/// Why settings were rejected; the message names the field by its full path
/// (`params.lake_level`, `view.road_radius`, `roads.highways.step`).
#[derive(Clone, Debug, PartialEq, Error)]
pub enum SettingsError {
    /// A parameter or view setting is invalid.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The road square with the streams' reach is larger than a stream scan
    /// may cover.
    #[error(
        "view.road_radius: {radius} m with streams up to {max_length} m long needs a stream scan over {side:.0} m square (at most {:.0} m): lower one of them",
        MAX_SCAN_AREA.sqrt()
    )]
    RoadRadius {
        /// The road radius.
        radius: f64,
        /// `params.streams.max_length`.
        max_length: f64,
        /// The scan's side.
        side: f64,
    },
    /// Settings text that could not be read (a misspelt key is named with
    /// its path).
    #[error("settings file: {0}")]
    Parse(#[from] RonError),
}

fn range(field: &'static str, value: f64, min: f64, max: f64) -> Result<(), SettingsError> {
    Ok(ParamError::check_range(field, value, min, max)?)
}

impl ViewSettings {
    /// Checks every field; the error names the first offending one.
    pub fn validate(&self) -> Result<(), SettingsError> {
        range("view.view_distance", self.view_distance, 100.0, 100_000.0)?;
        range("view.min_chunk_size", self.min_chunk_size, 8.0, 4096.0)?;
        if !(self.min_chunk_size as u64).is_power_of_two() || self.min_chunk_size.fract() != 0.0 {
            return Err(ParamError::out_of_range(
                "view.min_chunk_size (a power of two)",
                self.min_chunk_size,
                8.0,
                4096.0,
            )
            .into());
        }
        range("view.chunk_quads", self.chunk_quads as f64, 2.0, 256.0)?;
        range("view.lod_factor", self.lod_factor, 1.0, 8.0)?;
        range("view.built_filter", self.built_filter, 0.0, 1000.0)?;
        range("view.object_radius", self.object_radius, 0.0, 5000.0)?;
        range("view.max_tasks", self.max_tasks as f64, 1.0, 256.0)?;
        range(
            "view.chunk_uploads_per_frame",
            self.chunk_uploads_per_frame as f64,
            1.0,
            1000.0,
        )?;
        range(
            "view.upload_mib_per_frame",
            self.upload_mib_per_frame,
            0.0625,
            1024.0,
        )?;
        range(
            "view.object_spawns_per_frame",
            self.object_spawns_per_frame as f64,
            1.0,
            100_000.0,
        )?;
        range(
            "view.recenter_distance",
            self.recenter_distance,
            10.0,
            100_000.0,
        )?;
        range("view.road_radius", self.road_radius, 0.0, 10_000.0)?;
        Ok(())
    }
}

impl TerrainSettings {
    /// Checks the parameters and the view settings.
    pub fn validate(&self) -> Result<(), SettingsError> {
        self.params.validate().map_err(|e| e.within("params"))?;
        self.view.validate()?;
        self.roads.validate().map_err(|e| e.within("roads"))?;
        // The road task scans the streams of its square, grown by the
        // longest stream (as `Terrain::streams_in` does).
        let (radius, max_length) = (self.view.road_radius, self.params.streams.max_length);
        let side = 2.0 * radius + 2.0 * (max_length.ceil() + 1.0);
        if radius > 0.0 && side * side > MAX_SCAN_AREA {
            return Err(SettingsError::RoadRadius {
                radius,
                max_length,
                side,
            });
        }
        Ok(())
    }

    /// The settings as RON text (for `assets/worlds/*.ron`).
    pub fn to_ron(&self) -> String {
        let cfg = ron::ser::PrettyConfig::new()
            .depth_limit(3)
            .compact_arrays(true);
        ron::ser::to_string_pretty(self, cfg).unwrap_or_default()
    }

    /// Settings from RON text; missing fields take their defaults. The result
    /// is validated.
    pub fn from_ron(text: &str) -> Result<Self, SettingsError> {
        let s: Self = crate::terrain::from_ron(text)?;
        s.validate()?;
        Ok(s)
    }
}

/// The terrain built from the current valid settings, shared with workers.
#[derive(Resource, Clone, Debug)]
pub struct TerrainState {
    /// The terrain itself.
    pub terrain: Arc<Terrain>,
    /// The view settings in force.
    pub view: ViewSettings,
    /// Bumped whenever the terrain changes: older chunks are regenerated.
    pub generation: u64,
    /// Why the latest settings were rejected, if they were (cleared by the
    /// next good settings).
    pub settings_error: Option<SettingsError>,
    /// Why the roads around the focus could not be made, if they could not
    /// (cleared by the next network laid, or by turning roads off).
    pub roads_error: Option<RoadError>,
}

impl TerrainState {
    /// The state for valid settings.
    pub fn new(settings: &TerrainSettings) -> Result<Self, SettingsError> {
        settings.view.validate()?;
        Ok(Self {
            terrain: Arc::new(
                Terrain::new(settings.params.clone()).map_err(|e| e.within("params"))?,
            ),
            view: settings.view.clone(),
            generation: 0,
            settings_error: None,
            roads_error: None,
        })
    }

    /// Every standing error, one per source (settings, then roads).
    pub fn errors(&self) -> impl Iterator<Item = ReliefError> + '_ {
        let settings = self.settings_error.clone().map(ReliefError::Settings);
        let roads = self.roads_error.clone().map(ReliefError::Roads);
        settings.into_iter().chain(roads)
    }
}

/// Rebuilds the terrain when the settings change (the inspector, a loaded
/// file, game code, a startup system before the first frame). Invalid
/// settings keep the last good world.
pub(crate) fn apply_settings(
    settings: Res<TerrainSettings>,
    mut state: ResMut<TerrainState>,
    mut errors: MessageWriter<ReliefError>,
) {
    // (On the first frame they count as changed: the state was built from
    // them as the plugin was added, and only what differs is applied.)
    if !settings.is_changed() {
        return;
    }
    match settings.validate() {
        Ok(()) => {
            let params_changed = state.terrain.params() != &settings.params;
            if params_changed {
                let terrain = Terrain::new(settings.params.clone()).expect("validated");
                state.terrain = Arc::new(terrain);
                state.generation += 1;
            }
            if state.view != settings.view {
                state.view = settings.view.clone();
            }
            state.settings_error = None;
        }
        Err(e) => {
            if state.settings_error.as_ref() != Some(&e) {
                warn!("terrain settings rejected: {e}");
                state.settings_error = Some(e.clone());
                errors.write(ReliefError::Settings(e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ron_round_trip_and_validation() {
        let s = TerrainSettings::default();
        assert_eq!(TerrainSettings::from_ron(&s.to_ron()).unwrap(), s);
        assert_eq!(
            TerrainSettings::from_ron("(view: (view_distance: 8000.0))")
                .unwrap()
                .view
                .view_distance,
            8000.0
        );
        let e = TerrainSettings::from_ron("(view: (min_chunk_size: 100.0))").unwrap_err();
        assert!(e.to_string().contains("view.min_chunk_size"), "{e}");
        let e = TerrainSettings::from_ron("(params: (lake_level: inf))").unwrap_err();
        assert!(e.to_string().contains("lake_level"), "{e}");
        assert!(TerrainSettings::from_ron("(nonsense").is_err());
        // A misspelt key is named, not silently replaced by its default.
        let e = TerrainSettings::from_ron("(view: (view_distanse: 8000.0))").unwrap_err();
        assert!(e.to_string().contains("view_distanse"), "{e}");
        let e = TerrainSettings::from_ron("(road: (density: 3.0))").unwrap_err();
        assert!(e.to_string().contains("road"), "{e}");
        // Deep inside: the key and its full path.
        let e = TerrainSettings::from_ron("(roads: (contour: (denisty: 3.0)))").unwrap_err();
        assert!(
            matches!(&e, SettingsError::Parse(RonError::UnknownKey { path, key, .. })
                if path == "roads.contour.denisty" && key == "denisty"),
            "{e}"
        );
        // Invalid values are named by their full path too.
        let e = TerrainSettings::from_ron("(roads: (highways: (step: -1.0)))").unwrap_err();
        assert!(e.to_string().starts_with("roads.highways.step"), "{e}");
        let e = TerrainSettings::from_ron("(params: (trees: (jitter: 2.0)))").unwrap_err();
        assert!(e.to_string().starts_with("params.trees.jitter"), "{e}");
        for bad in ["0.0", "-1.0", "NaN", "1e9"] {
            let text = format!("(view: (upload_mib_per_frame: {bad}))");
            let e = TerrainSettings::from_ron(&text).unwrap_err();
            assert!(
                e.to_string().starts_with("view.upload_mib_per_frame"),
                "{e}"
            );
        }
        // Validation agrees with what the road task accepts.
        let mut s = TerrainSettings::default();
        s.view.road_radius = 4900.0;
        assert!(matches!(
            s.validate(),
            Err(SettingsError::RoadRadius { .. })
        ));
        s.view.road_radius = 4000.0;
        s.validate().unwrap();
    }
}
