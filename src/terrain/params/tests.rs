//! Defaults are the reference numbers; bad values are refused by name.

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
    assert_eq!(p.validate(), Err(ParamError::profile_length(255)));
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
    let text = include_str!("../../../assets/worlds/reference.ron");
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
