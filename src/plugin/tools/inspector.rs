//! The in-game inspector: every [`TerrainSettings`] field live (through
//! bevy-inspector-egui), a height-vectors editor in the spirit of the seed's
//! "Redesign" menu, lake level, random worlds, saving and loading settings as
//! RON files under `assets/worlds/`, and a stats line.
//!
//! Add [`ReliefInspectorPlugin`] next to `ReliefPlugin` (it adds `EguiPlugin`
//! and the inspector's config plugin if they are missing). F1 hides it.

use super::city_editor::{FieldOverlay, city_section, nearest_city, update_field_overlay};
use super::editor::{profile_plot, vector_editor};
use crate::plugin::ReliefStats;
use crate::plugin::stream::settings::{SettingsError, TerrainSettings, TerrainState};
use crate::plugin::traffic::{TrafficSettings, TrafficStats};
use crate::terrain::TerrainParams;
use bevy::diagnostic::{DiagnosticsStore, FrameTimeDiagnosticsPlugin};
use bevy::prelude::*;
use bevy_egui::{EguiContext, EguiPlugin, EguiPrimaryContextPass, PrimaryEguiContext, egui};
use std::path::PathBuf;

/// The inspector window; see the module docs.
pub struct ReliefInspectorPlugin;

impl Plugin for ReliefInspectorPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<EguiPlugin>() {
            app.add_plugins(EguiPlugin::default());
        }
        if !app.is_plugin_added::<bevy_inspector_egui::DefaultInspectorConfigPlugin>() {
            app.add_plugins(bevy_inspector_egui::DefaultInspectorConfigPlugin);
        }
        if !app.is_plugin_added::<FrameTimeDiagnosticsPlugin>() {
            app.add_plugins(FrameTimeDiagnosticsPlugin::default());
        }
        app.init_resource::<InspectorState>()
            .init_resource::<FieldOverlay>()
            .register_type::<TerrainSettings>()
            .add_systems(
                Update,
                (
                    toggle_inspector,
                    update_field_overlay.run_if(resource_exists::<crate::plugin::LaidRoads>),
                )
                    .in_set(crate::plugin::ReliefSystems::Inspector),
            )
            .add_systems(
                EguiPrimaryContextPass,
                inspector_ui.in_set(crate::plugin::ReliefSystems::Inspector),
            );
    }
}

/// The inspector's own state.
#[derive(Resource, Debug)]
pub struct InspectorState {
    /// Shown or hidden (F1).
    pub open: bool,
    /// Seed for "New random world".
    pub seed: u64,
    /// File name (without `.ron`) for saving.
    pub name: String,
    /// The last save/load message.
    pub message: String,
    /// World files found under `assets/worlds/` (read when first shown, after saving, and on ⟳).
    pub files: Option<Vec<String>>,
}

impl Default for InspectorState {
    fn default() -> Self {
        Self {
            open: true,
            seed: 1,
            name: "my_world".into(),
            message: String::new(),
            files: None,
        }
    }
}

/// Where world files live: `assets/worlds/` under Bevy's asset root
/// (`BEVY_ASSET_ROOT`, else `CARGO_MANIFEST_DIR`, else the working directory).
pub fn worlds_dir() -> PathBuf {
    let root = std::env::var_os("BEVY_ASSET_ROOT")
        .or_else(|| std::env::var_os("CARGO_MANIFEST_DIR"))
        .map(PathBuf::from)
        .unwrap_or_default();
    root.join("assets").join("worlds")
}

/// World files present, sorted by name.
pub fn world_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(worlds_dir())
        .map(|dir| {
            dir.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_str()?
                        .strip_suffix(".ron")
                        .map(str::to_owned)
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Why a world file could not be saved or loaded.
#[derive(Debug, thiserror::Error)]
pub enum WorldFileError {
    /// The name has characters other than letters, digits, `-` and `_`.
    #[error("bad file name {0:?}: use letters, digits, - and _")]
    BadName(String),
    /// The file or its directory could not be read or written.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file's settings are unreadable or invalid (the key or field is
    /// named by its full path).
    #[error("{}: {source}", .path.display())]
    Settings {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SettingsError,
    },
}

/// Saves settings to `assets/worlds/<name>.ron`; the name may use letters,
/// digits, `-` and `_` only.
pub fn save_world(name: &str, settings: &TerrainSettings) -> Result<PathBuf, WorldFileError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(WorldFileError::BadName(name.to_owned()));
    }
    let dir = worlds_dir();
    if let Err(source) = std::fs::create_dir_all(&dir) {
        return Err(WorldFileError::Io { path: dir, source });
    }
    let path = dir.join(format!("{name}.ron"));
    match std::fs::write(&path, settings.to_ron()) {
        Ok(()) => Ok(path),
        Err(source) => Err(WorldFileError::Io { path, source }),
    }
}

/// Loads `assets/worlds/<name>.ron` (validated).
pub fn load_world(name: &str) -> Result<TerrainSettings, WorldFileError> {
    let path = worlds_dir().join(format!("{name}.ron"));
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(source) => return Err(WorldFileError::Io { path, source }),
    };
    TerrainSettings::from_ron(&text).map_err(|source| WorldFileError::Settings { path, source })
}

fn toggle_inspector(keys: Res<ButtonInput<KeyCode>>, mut state: ResMut<InspectorState>) {
    if keys.just_pressed(KeyCode::F1) {
        state.open = !state.open;
    }
}

fn inspector_ui(world: &mut World) {
    if !world.resource::<InspectorState>().open {
        return;
    }
    let Ok(ctx) = world
        .query_filtered::<&mut EguiContext, With<PrimaryEguiContext>>()
        .single_mut(world)
    else {
        return;
    };
    let mut ctx = ctx.clone();
    let fps = world
        .resource::<DiagnosticsStore>()
        .get(&FrameTimeDiagnosticsPlugin::FPS)
        .and_then(|d| d.smoothed())
        .unwrap_or(0.0);
    let entities = world.entities().count_spawned();
    let stats = world.resource::<ReliefStats>().clone();
    let errors: Vec<_> = world.resource::<TerrainState>().errors().collect();
    let mut settings = world.resource::<TerrainSettings>().clone();
    let before = settings.clone();
    let mut ist = std::mem::take(&mut *world.resource_mut::<InspectorState>());
    let focus = stats.focus.unwrap_or_default().truncate();
    let city =
        (world.get_resource::<crate::plugin::LaidRoads>()).and_then(|l| nearest_city(l, focus));
    let mut hatch = world.get_resource::<FieldOverlay>().is_some_and(|o| o.on);
    // Traffic, only with its plugin.
    let mut traffic = world.get_resource::<TrafficSettings>().cloned();
    let traffic_before = traffic.clone();
    let traffic_stats = world.get_resource::<TrafficStats>().cloned();

    egui::Window::new("bevy_relief")
        .default_pos([8.0, 8.0])
        .default_width(340.0)
        .show(ctx.get_mut(), |ui| {
            let f = stats.focus.unwrap_or_default();
            ui.monospace(format!(
                "{fps:5.1} fps  chunks {}/{}  pending {}+{}",
                stats.chunks_present,
                stats.chunks_desired,
                stats.chunks_pending,
                stats.objects_pending,
            ));
            ui.monospace(format!(
                "objects {}  far trees {}  entities {entities}",
                stats.objects, stats.far_trees,
            ));
            ui.monospace(format!("focus ({:.1}, {:.1}, {:.1})", f.x, f.y, f.z));
            for e in &errors {
                ui.colored_label(egui::Color32::LIGHT_RED, format!("rejected: {e}"));
            }
            ui.separator();
            egui::ScrollArea::vertical()
                .max_height(640.0)
                .show(ui, |ui| {
                    world_section(ui, &mut settings, &mut ist);
                    let p = &mut settings.params;
                    egui::CollapsingHeader::new("Height vectors (Redesign)")
                        .default_open(true)
                        .show(ui, |ui| {
                            vector_editor(ui, "height", &mut p.height_vectors, 40.0, 5, 64);
                            ui.label("Longer vectors make hillier ground. The profile:");
                            profile_plot(ui, &p.profile);
                        });
                    // The time vector must match the height vectors in length.
                    p.time_vector.resize(p.height_vectors.len(), 0.0);
                    for (title, id, set) in [
                        ("Town vectors", "town", &mut p.town_vectors),
                        (
                            "Vegetation vectors",
                            "vegetation",
                            &mut p.vegetation_vectors,
                        ),
                    ] {
                        egui::CollapsingHeader::new(title)
                            .show(ui, |ui| vector_editor(ui, id, set, 80.0, 5, 64));
                    }
                    egui::CollapsingHeader::new("Undergrowth vectors").show(ui, |ui| {
                        let n = p.vegetation_vectors.len();
                        vector_editor(ui, "undergrowth", &mut p.undergrowth_vectors, 80.0, n, n)
                    });
                    p.undergrowth_vectors.resize(
                        p.vegetation_vectors.len(),
                        bevy::math::DVec2::new(10.0, 10.0),
                    );
                    egui::CollapsingHeader::new("Earthworks").show(ui, |ui| {
                        earthworks_section(ui, &mut settings.roads.earthworks);
                    });
                    egui::CollapsingHeader::new("City").show(ui, |ui| {
                        city_section(ui, &mut settings, city.as_deref(), focus, &mut hatch);
                    });
                    if let Some(t) = traffic.as_mut() {
                        egui::CollapsingHeader::new("Traffic").show(ui, |ui| {
                            traffic_section(ui, t, traffic_stats.as_ref());
                        });
                    }
                    egui::CollapsingHeader::new("All settings").show(ui, |ui| {
                        // Edits here go straight to the resource through reflection.
                        if settings == before {
                            bevy_inspector_egui::bevy_inspector::ui_for_resource::<TerrainSettings>(
                                world, ui,
                            );
                        } else {
                            ui.label("(applying…)");
                        }
                    });
                });
            if !ist.message.is_empty() {
                ui.separator();
                ui.label(&ist.message);
            }
        });

    if settings != before {
        *world.resource_mut::<TerrainSettings>() = settings;
    }
    *world.resource_mut::<InspectorState>() = ist;
    if let Some(mut o) = world.get_resource_mut::<FieldOverlay>() {
        o.on = hatch;
    }
    if traffic != traffic_before
        && let (Some(t), Some(mut res)) = (traffic, world.get_resource_mut::<TrafficSettings>())
    {
        *res = t;
    }
}

/// A labelled slider on one line.
fn slider(
    ui: &mut egui::Ui,
    label: &str,
    v: &mut f64,
    range: std::ops::RangeInclusive<f64>,
    suffix: &str,
) {
    ui.horizontal(|ui| {
        ui.label(label);
        ui.add(egui::Slider::new(v, range).suffix(suffix));
    });
}

/// The traffic's settings ([`ReliefTrafficPlugin`](crate::plugin::ReliefTrafficPlugin)).
fn traffic_section(ui: &mut egui::Ui, t: &mut TrafficSettings, stats: Option<&TrafficStats>) {
    ui.checkbox(&mut t.enabled, "Vehicles and pedestrians");
    slider(
        ui,
        "Vehicle density",
        &mut t.traffic_density,
        0.0..=100.0,
        " /km",
    );
    slider(
        ui,
        "Vehicle radius",
        &mut t.traffic_radius,
        50.0..=5000.0,
        " m",
    );
    slider(
        ui,
        "Pedestrian density",
        &mut t.pedestrian_density,
        0.0..=200.0,
        " /km",
    );
    slider(
        ui,
        "Pedestrian radius",
        &mut t.pedestrian_radius,
        50.0..=2000.0,
        " m",
    );
    if let Some(s) = stats {
        ui.monospace(format!(
            "{} / {} vehicles on {:.1} km of road\n{} / {} pedestrians on {:.1} km of street",
            s.vehicles, s.target, s.road_km, s.pedestrians, s.pedestrian_target, s.walk_km
        ));
        if let Some(e) = &s.error {
            ui.colored_label(egui::Color32::LIGHT_RED, e);
        }
    }
}

/// The earthworks' parameters (`roads.earthworks`): an edit lays the roads
/// around the focus again, and the ground they shape is meshed again.
fn earthworks_section(ui: &mut egui::Ui, e: &mut crate::world::EarthworkParams) {
    ui.checkbox(&mut e.enabled, "Build roads and towns into the ground");
    ui.label("Steepest grade (rise over run)");
    let g = &mut e.max_grade;
    slider(ui, "  highway", &mut g.highway, 0.01..=0.3, "");
    slider(ui, "  road", &mut g.road, 0.01..=0.4, "");
    slider(ui, "  street", &mut g.street, 0.01..=0.5, "");
    slider(ui, "  track", &mut g.track, 0.01..=0.6, "");
    slider(ui, "Steps beyond", &mut e.max_street_grade, 0.05..=1.0, "");
    slider(ui, "Bridge over fill", &mut e.max_fill, 0.5..=60.0, " m");
    slider(ui, "Tunnel under cut", &mut e.max_cut, 0.5..=60.0, " m");
    slider(ui, "Reach", &mut e.max_reach, 5.0..=200.0, " m");
    let reach = e.max_reach;
    slider(
        ui,
        "Wall beyond slope run",
        &mut e.max_slope_run,
        0.0..=reach,
        " m",
    );
    slider(ui, "Fill slope (h:v)", &mut e.fill_slope, 0.25..=5.0, "");
    slider(ui, "Cut slope (h:v)", &mut e.cut_slope, 0.1..=5.0, "");
    slider(ui, "Shoulder", &mut e.shoulder, 0.0..=5.0, " m");
    slider(
        ui,
        "Clearance over water",
        &mut e.clearance,
        0.0..=30.0,
        " m",
    );
    slider(
        ui,
        "Largest pad step",
        &mut e.max_pad_step,
        0.0..=30.0,
        " m",
    );
    slider(
        ui,
        "Junction moves for street grade",
        &mut e.max_street_shift,
        0.0..=60.0,
        " m",
    );
    slider(
        ui,
        "Junction platform grade",
        &mut e.junction_grade,
        0.0..=0.2,
        "",
    );
    slider(ui, "Profile smoothing", &mut e.smoothing, 0.0..=100.0, "");
    slider(ui, "Profile point spacing", &mut e.step, 1.0..=100.0, " m");
}

fn world_section(ui: &mut egui::Ui, settings: &mut TerrainSettings, ist: &mut InspectorState) {
    let p = &mut settings.params;
    ui.horizontal(|ui| {
        ui.label("Lake level");
        ui.add(
            egui::Slider::new(
                &mut p.lake_level,
                (p.lake_base - 60.0)..=(p.lake_base + 120.0),
            )
            .suffix(" m"),
        );
    });
    ui.horizontal(|ui| {
        if ui.button("Rain +2 m").clicked() {
            p.lake_level += 2.0;
        }
        if ui.button("Normal level").clicked() {
            p.lake_level = p.lake_base;
        }
        if ui.button("Drain −10 m").clicked() {
            p.lake_level -= 10.0;
        }
    });
    ui.horizontal(|ui| {
        ui.label("Seed");
        ui.add(egui::DragValue::new(&mut ist.seed));
        if ui.button("New random world").clicked() {
            ist.seed = ist.seed.wrapping_add(1);
            match TerrainParams::random(ist.seed, p.profile.len().max(256)) {
                Ok(r) => {
                    *p = TerrainParams {
                        trees: p.trees.clone(),
                        towns: p.towns.clone(),
                        ..r
                    }
                }
                Err(e) => ist.message = e.to_string(),
            }
        }
        if ui.button("Reference").clicked() {
            *p = TerrainParams::default();
        }
    });
    ui.horizontal(|ui| {
        ui.label("File");
        ui.text_edit_singleline(&mut ist.name);
        if ui.button("Save").clicked() {
            ist.message = match save_world(&ist.name, settings) {
                Ok(path) => format!("saved {}", path.display()),
                Err(e) => e.to_string(),
            };
            ist.files = None;
        }
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Load:");
        if ui
            .small_button("⟳")
            .on_hover_text("Look for files again")
            .clicked()
        {
            ist.files = None;
        }
        // The directory is read only when needed, not every frame.
        for name in ist.files.get_or_insert_with(world_files).clone() {
            if ui.small_button(&name).clicked() {
                match load_world(&name) {
                    Ok(s) => {
                        *settings = s;
                        ist.message = format!("loaded {name}");
                    }
                    Err(e) => ist.message = e.to_string(),
                }
            }
        }
    });
    ui.separator();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_and_load_round_trip() {
        let dir = std::env::temp_dir().join(format!("relief-worlds-{}", std::process::id()));
        // SAFETY: tests in this module are the only users of BEVY_ASSET_ROOT.
        unsafe { std::env::set_var("BEVY_ASSET_ROOT", &dir) };
        let mut s = TerrainSettings::default();
        s.params.lake_level = 215.5;
        s.view.view_distance = 7000.0;
        let path = save_world("test_world", &s).unwrap();
        assert!(path.ends_with("assets/worlds/test_world.ron"));
        assert_eq!(world_files(), vec!["test_world".to_string()]);
        assert_eq!(load_world("test_world").unwrap(), s);
        assert!(save_world("../evil", &s).is_err());
        assert!(matches!(
            save_world("../evil", &s),
            Err(WorldFileError::BadName(_))
        ));
        assert!(matches!(
            load_world("missing"),
            Err(WorldFileError::Io { .. })
        ));
        std::fs::write(dir.join("assets/worlds/bad.ron"), "(params: (profile: []))").unwrap();
        let e = load_world("bad").unwrap_err();
        assert!(e.to_string().contains("params.profile"), "{e}");
        std::fs::write(dir.join("assets/worlds/typo.ron"), "(view: (watr: false))").unwrap();
        let e = load_world("typo").unwrap_err();
        assert!(e.to_string().contains("view.watr"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        unsafe { std::env::remove_var("BEVY_ASSET_ROOT") };
    }
}
