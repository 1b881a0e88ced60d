//! Tests of city layouts: size limits, typed errors, lots off water.

use super::lots::Lot;
use super::planar::StreetsError;
use super::*;
use crate::terrain::Terrain;
use glam::DVec2;
use std::error::Error;

fn cities() -> Vec<City> {
    let t = Terrain::default();
    let s = Settlements::new(SettlementParams::default()).unwrap();
    s.cities_in(&t, DVec2::new(0.0, -6000.0), DVec2::new(24_000.0, 18_000.0))
}

/// A city with a round footprint of `radius` and `n` vertices.
fn round(style: CityStyle, radius: f64, n: usize) -> City {
    let centre = DVec2::new(3000.0, 3000.0);
    City {
        id: (0, 0),
        centre,
        radius,
        style,
        boundary: (0..n)
            .map(|i| {
                centre + DVec2::from_angle(i as f64 / n as f64 * std::f64::consts::TAU) * radius
            })
            .collect(),
    }
}

#[test]
fn a_city_too_large_is_refused_before_any_work() {
    let t = Terrain::default();
    let p = CityParams::default();
    // A 100 km planned ring once failed in the slope field after seconds.
    for style in [CityStyle::Planned, CityStyle::Organic] {
        let city = round(style, 50_000.0, 256);
        match lay_out(&city, &t, &[], &p) {
            Err(LayoutError::TooLarge {
                id, across, most, ..
            }) => {
                assert_eq!(id, (0, 0));
                assert!(across > 99_000.0 && most < across, "{across} {most}");
                assert_eq!(most, max_city_extent(&p, style));
            }
            other => panic!("{style:?}: {:?}", other.map(|l| l.lots.len())),
        }
    }
    let e = lay_out(&round(CityStyle::Planned, 50_000.0, 64), &t, &[], &p).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("too large") && msg.contains("slope_cell"),
        "{msg}"
    );
    // A NaN footprint is refused the same way.
    let mut nan = round(CityStyle::Organic, 500.0, 16);
    nan.boundary[3].x = f64::NAN;
    assert!(matches!(
        lay_out(&nan, &t, &[], &p),
        Err(LayoutError::TooLarge { .. })
    ));
    // The largest allowed extent is within both generators' caps.
    let most = max_city_extent(&p, CityStyle::Planned);
    let side = most / p.slope_cell + 2.0;
    assert!(side * side <= crate::city::tensor::MAX_HEIGHTMAP_SAMPLES as f64);
    assert!(most / p.obstacle_cell <= MAX_OBSTACLE_CELLS as f64);
    let cells = most / p.tensor.field_cell + 6.0;
    assert!(cells * cells <= crate::city::tensor::MAX_FIELD_CELLS);
    // An 8 km planned ring, past the traced field's cap, is refused at once
    // too (it used to fail in the tensor field after the obstacles).
    let e = lay_out(&round(CityStyle::Planned, 4_000.0, 64), &t, &[], &p).unwrap_err();
    assert!(matches!(e, LayoutError::TooLarge { .. }), "{e}");
    assert!(e.to_string().contains("field_cell"), "{e}");
}

#[test]
fn generator_failures_keep_their_typed_source() {
    let t = Terrain::default();
    let mut city = round(CityStyle::Organic, 500.0, 16);
    // A clockwise footprint: the planar generator refuses it.
    city.boundary.reverse();
    let Err(e) = lay_out(&city, &t, &[], &CityParams::default()) else {
        panic!("a clockwise city was laid out");
    };
    match &e {
        LayoutError::Planar { id, source } => {
            assert_eq!(*id, (0, 0));
            assert!(
                matches!(source, StreetsError::BoundaryClockwise(_)),
                "{source}"
            );
        }
        other => panic!("{other}"),
    }
    assert!(e.source().is_some());
    // A footprint of two points: the tensor generator refuses it.
    city.style = CityStyle::Planned;
    city.boundary.truncate(2);
    let Err(e) = lay_out(&city, &t, &[], &CityParams::default()) else {
        panic!("a two-point planned city was laid out");
    };
    assert!(matches!(e, LayoutError::Tensor { .. }), "{e}");
    assert!(e.source().is_some());
}

/// Whether a lot has a vertex or its centre below the lake level.
fn wet(t: &Terrain, lot: &Lot) -> bool {
    let lake = t.params().lake_level;
    let c = lot.polygon.iter().sum::<DVec2>() / lot.polygon.len() as f64;
    (lot.polygon.iter().chain([&c])).any(|p| t.height(p.x, p.y) < lake)
}

/// The cities by the reference lakes (a lake inside the ring of (1, 0), a
/// ring that crossed lakes at (2, 1)): no lot lies in water.
#[test]
fn no_lot_of_the_reference_cities_lies_in_a_lake() {
    let t = Terrain::default();
    let cities = cities();
    let mut seen = 0;
    for id in [(1, 0), (2, 1)] {
        let city = cities
            .iter()
            .find(|c| c.id == id)
            .expect("a reference city");
        let l = lay_out(city, &t, &[], &CityParams::default()).unwrap();
        assert!(l.lots.len() > 1000, "{id:?}: {}", l.lots.len());
        assert!(!l.streets.obstacles.is_empty());
        let bad: Vec<&Lot> = l.lots.iter().filter(|lot| wet(&t, lot)).collect();
        assert!(bad.is_empty(), "{id:?}: {} lots in water", bad.len());
        seen += l.lots.len();
    }
    assert!(seen > 5000, "{seen}");
}
