//! Headless Bevy: the plugin in an `App` with no window or renderer.

use bevy::prelude::*;
use bevy_relief::prelude::*;
use bevy_relief::terrain::TerrainParams;

#[test]
fn plugin_adds_to_a_headless_app() {
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ReliefPlugin::default()));
    app.update();
    let terrain = app.world().resource::<ReliefTerrain>();
    assert_eq!(terrain.height(-1811.0, 3062.0), 111.25);
}

#[test]
fn plugin_takes_custom_params_and_rejects_bad_ones() {
    let p = TerrainParams {
        lake_level: 250.0,
        ..Default::default()
    };
    let mut app = App::new();
    app.add_plugins((MinimalPlugins, ReliefPlugin::with_params(p).unwrap()));
    app.update();
    assert_eq!(
        app.world().resource::<ReliefTerrain>().params().lake_level,
        250.0
    );
    let bad = TerrainParams {
        profile: vec![],
        ..Default::default()
    };
    let err = ReliefPlugin::with_params(bad).unwrap_err();
    assert!(err.to_string().starts_with("profile"));
}
