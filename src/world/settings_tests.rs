//! Every settings type refuses unknown keys; errors name full paths. (Here,
//! in the top layer of the core, because it walks the settings of every layer.)

use super::RoadSystemParams;
use crate::city::lots::LotParams;
use crate::city::planar::PlanarParams;
use crate::city::tensor::{
    BasisField, BasisKind, DensityParams, GradientGrid, StreamlineParams, TensorField, TensorParams,
};
use crate::city::{CityBases, CityParams, SeedNode, SettlementParams, StreetsInput};
use crate::roads::ContourParams;
use crate::roads::planner::{
    CostWeights, Curve, GameplayParams, PlannerParams, Weight, WeightLink,
};
use crate::terrain::*;
use glam::DVec2;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt::Debug;

/// `value` reads back from its RON, and with an extra key at its top level
/// is refused with that key named.
fn refuses_unknown_key<T: Serialize + DeserializeOwned + PartialEq + Debug>(value: T) {
    let text = ron::to_string(&value).unwrap();
    assert_eq!(from_ron::<T>(&text).as_ref(), Ok(&value), "{text}");
    let open = text.find('(').unwrap() + 1;
    let bad = format!("{}bogus_key: 0, {}", &text[..open], &text[open..]);
    let e = from_ron::<T>(&bad).unwrap_err();
    assert!(
        matches!(&e, RonError::UnknownKey { path, key, line: 1, .. }
            if path == "bogus_key" && key == "bogus_key"),
        "{}: {e}",
        std::any::type_name::<T>()
    );
    assert!(e.to_string().contains("bogus_key"), "{e}");
}

#[test]
fn every_settings_type_refuses_unknown_keys() {
    let grid = GradientGrid {
        origin: DVec2::ZERO,
        cell: 10.0,
        nx: 2,
        ny: 2,
        gradients: vec![DVec2::ZERO; 4],
        full_slope: 1.0,
    };
    let basis = BasisField::radial(DVec2::ZERO, 100.0, 1.0);
    let link = WeightLink {
        weight: Weight::Slope,
        curve: Curve::Linear,
        at_zero: 1.0,
        at_one: 2.0,
        add: false,
    };
    refuses_unknown_key(TerrainParams::default());
    refuses_unknown_key(PathParams::default());
    refuses_unknown_key(TreeParams::default());
    refuses_unknown_key(TownParams::default());
    refuses_unknown_key(StreamParams::default());
    refuses_unknown_key(MineParams::default());
    refuses_unknown_key(CavernParams::default());
    refuses_unknown_key(SettlementParams::default());
    refuses_unknown_key(ContourParams::default());
    refuses_unknown_key(PlannerParams::default());
    refuses_unknown_key(CostWeights::default());
    refuses_unknown_key(GameplayParams::default());
    refuses_unknown_key(GameplayParams::default().params[0].clone());
    refuses_unknown_key(link);
    refuses_unknown_key(RoadSystemParams::default());
    refuses_unknown_key(crate::world::EarthworkParams::default());
    refuses_unknown_key(crate::world::ClassGrades::default());
    refuses_unknown_key(CityParams::default());
    refuses_unknown_key(CityBases {
        city: (1, 2),
        bases: vec![basis.clone()],
    });
    refuses_unknown_key(PlanarParams::default());
    refuses_unknown_key(PlanarParams::default().levels[0].clone());
    refuses_unknown_key(TensorParams::default());
    refuses_unknown_key(StreamlineParams::default());
    refuses_unknown_key(DensityParams::default());
    refuses_unknown_key(LotParams::default());
    refuses_unknown_key(TensorField {
        fields: vec![basis.clone()],
    });
    refuses_unknown_key(basis);
    refuses_unknown_key(BasisKind::Grid { theta: 0.5 });
    refuses_unknown_key(BasisKind::Polyline {
        points: vec![DVec2::ZERO, DVec2::X],
    });
    refuses_unknown_key(grid);
    refuses_unknown_key(StreetsInput::default());
    refuses_unknown_key(SeedNode {
        pos: DVec2::ONE,
        split: 2.0,
    });
}

/// The unknown key's full path, or the failing value's.
fn path_of<T: DeserializeOwned + Debug>(text: &str) -> RonError {
    from_ron::<T>(text).unwrap_err()
}

#[test]
fn unknown_keys_are_named_with_their_path() {
    let e = path_of::<RoadSystemParams>("(\n  contour: (\n    denisty: 3.0,\n  ),\n)");
    assert_eq!(
        e,
        RonError::UnknownKey {
            path: "contour.denisty".into(),
            key: "denisty".into(),
            expected: e
                .to_string()
                .split("expected one of ")
                .nth(1)
                .unwrap()
                .into(),
            line: 3,
            col: 5,
        }
    );
    assert!(e.to_string().contains("density, step"), "{e}");
    for (text, path) in [
        (
            "(highways: (weights: (slpoe: 1.0)))",
            "highways.weights.slpoe",
        ),
        (
            "(cities: (tensor: (density: (flor: 1.0))))",
            "cities.tensor.density.flor",
        ),
        (
            "(cities: (planar: (levels: [(), (clearnce: 1.0)])))",
            "cities.planar.levels[1].clearnce",
        ),
        (
            "(cities: (fields: [(city: (0, 0), bases: [(kind: Radial, centre: (0.0, 0.0), size: 1.0, decay: 1.0, sise: 2.0)])]))",
            "cities.fields[0].bases[0].sise",
        ),
        (
            "(cities: (fields: [(city: (0, 0), bases: [(kind: Grid(thetta: 1.0), centre: (0.0, 0.0), size: 1.0, decay: 1.0)])]))",
            "cities.fields[0].bases[0].kind.thetta",
        ),
        (
            "(cities: (fields: [(city: (0, 0), bases: [(kind: Heightmap((orign: (0.0, 0.0)))))])]))",
            "cities.fields[0].bases[0].kind.0.orign",
        ),
        // Comments, strings and raw strings do not confuse the path.
        (
            "(highways: /* ( [ */ (step: 30.0, // ) ]\n sampel: 1.0))",
            "highways.sampel",
        ),
    ] {
        let e = path_of::<RoadSystemParams>(text);
        assert!(
            matches!(&e, RonError::UnknownKey { path: p, .. } if p == path),
            "{text}: {e}"
        );
    }
    for (text, path) in [
        ("(paths: Some((tolerence: 1.0)))", "paths.tolerence"),
        ("(trees: (spacing: 4.0, jiter: 0.1))", "trees.jiter"),
    ] {
        let e = path_of::<TerrainParams>(text);
        assert!(
            matches!(&e, RonError::UnknownKey { path: p, .. } if p == path),
            "{text}: {e}"
        );
    }
    let text =
        r##"(params: [(name: "a(b, [c", value: 0.5, links: []), (name: r#"x")"#, valeu: 1.0)])"##;
    let e = path_of::<GameplayParams>(text);
    assert_eq!(e.path(), "params[1].valeu", "{e}");
}

#[test]
fn bad_values_in_text_are_named_with_their_path() {
    let e = path_of::<RoadSystemParams>("(contour: (step: \"ten\"))");
    assert!(matches!(&e, RonError::Invalid { .. }), "{e}");
    assert_eq!(e.path(), "contour.step", "{e}");
    assert!(e.to_string().starts_with("contour.step: "), "{e}");
    let e = path_of::<TerrainParams>("(trees: (spacing: 4.0, jitter: [1]))");
    assert_eq!(e.path(), "trees.jitter", "{e}");
    let e = path_of::<TerrainParams>("(lake_level: 3.0");
    assert!(e.to_string().starts_with("lake_level: "), "{e}");
    let e = path_of::<TerrainParams>("[");
    assert!(e.to_string().starts_with("top level: "), "{e}");
}

#[test]
fn validation_errors_name_full_paths() {
    let e = ParamError::check_range("step", -1.0, 1.0, 2.0).unwrap_err();
    assert_eq!(e.field(), "step");
    let e = e.within("highways").within("roads");
    assert_eq!(e.field(), "roads.highways.step");
    assert!(
        e.to_string()
            .starts_with("roads.highways.step: -1 is outside"),
        "{e}"
    );
    let e = ParamError::check_range("clearance", f64::NAN, 1.0, 2.0).unwrap_err();
    assert_eq!(
        e.at("levels", 2).within("planar").field(),
        "planar.levels[2].clearance"
    );

    let bad = |f: fn(&mut RoadSystemParams)| {
        let mut p = RoadSystemParams::default();
        f(&mut p);
        p.validate().unwrap_err().field().to_owned()
    };
    RoadSystemParams::default().validate().unwrap();
    assert_eq!(bad(|p| p.highways.step = -1.0), "highways.step");
    assert_eq!(bad(|p| p.contour.step = f64::NAN), "contour.step");
    assert_eq!(bad(|p| p.settlements.step = -1.0), "settlements.step");
    assert_eq!(
        bad(|p| p.highways.weights.slope = -1.0),
        "highways.weights.slope"
    );
    assert_eq!(
        bad(|p| p.cities.tensor.density.floor = 2.0),
        "cities.tensor.density.floor"
    );
    assert_eq!(
        bad(|p| p.cities.tensor.minor.dstep = 0.0),
        "cities.tensor.minor.dstep"
    );
    assert_eq!(bad(|p| p.cities.lots.radius = 0.0), "cities.lots.radius");
    assert_eq!(
        bad(|p| p.cities.planar.levels[1].clearance = 0.0),
        "cities.planar.levels[1].clearance"
    );
    assert_eq!(
        bad(|p| p.cities.fields = vec![CityBases {
            city: (0, 0),
            bases: vec![
                BasisField::radial(DVec2::ZERO, 10.0, 1.0),
                BasisField::radial(DVec2::ZERO, -10.0, 1.0),
            ],
        }]),
        "cities.fields[0].bases[1].size"
    );
    assert_eq!(
        bad(|p| p.cities.fields = vec![CityBases {
            city: (0, 0),
            bases: vec![BasisField::polyline(
                vec![DVec2::ZERO, DVec2::NAN],
                10.0,
                1.0
            )],
        }]),
        "cities.fields[0].bases[0].centre.x"
    );
    let mut g = GameplayParams::default();
    g.params[2].links[1].at_one = f64::INFINITY;
    assert_eq!(
        g.validate().unwrap_err().field(),
        "params[2].links[1].at_one"
    );
    let mut t = TensorField::default();
    t.add(BasisField::radial(DVec2::ZERO, 10.0, 1.0));
    t.add(BasisField::grid(DVec2::ZERO, 10.0, 1.0, f64::NAN));
    assert_eq!(t.validate().unwrap_err().field(), "fields[1].kind.theta");
    let mut p = TerrainParams::default();
    p.undergrowth_vectors.push(DVec2::ONE);
    let e = p.validate().unwrap_err().within("params");
    assert!(
        e.to_string().contains(
            "params.undergrowth_vectors: must have the same length as params.vegetation_vectors"
        ),
        "{e}"
    );
}

#[test]
fn any_text_gives_an_error_not_a_panic() {
    let text =
        ron::ser::to_string_pretty(&RoadSystemParams::default(), Default::default()).unwrap();
    let text = text.replacen("(", "( /* é \"( */ // ü\n", 2);
    for (k, _) in text.char_indices().step_by(29) {
        let _ = from_ron::<RoadSystemParams>(&text[..k]);
        for odd in ["\"é\\", "r#\"", "'", "/*", "ü:", "b'\\"] {
            let _ = from_ron::<RoadSystemParams>(&format!("{}{odd}{}", &text[..k], &text[k..]));
        }
    }
}
