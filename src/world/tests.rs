use super::*;
use crate::network::RoadClass;
use crate::roads::check_conformance;

/// Around the city of cell (1, 0) on the reference terrain, centre about
/// (9850, 4250): its footprint, two highways leaving it, contour roads.
fn city_area() -> (DVec2, DVec2) {
    (DVec2::new(8200.0, 2800.0), DVec2::new(11200.0, 5800.0))
}

/// The default system without contour roads: cities and highways only.
fn without_contour_roads() -> RoadSystemParams {
    RoadSystemParams {
        contour_roads: false,
        ..RoadSystemParams::default()
    }
}

#[test]
fn the_system_conforms_and_keeps_contour_roads_out_of_cities() {
    let t = Terrain::default();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let (min, max) = city_area();
    let net = check_conformance(&sys, &t, min, max);
    // Composed through planarize: no two vertices closer than rounding.
    net.check_planar_strict().unwrap();
    let class = |c| net.roads.iter().filter(|r| r.class == c).count();
    assert!(
        class(RoadClass::Highway) >= 2,
        "{}",
        class(RoadClass::Highway)
    );
    assert!(class(RoadClass::Road) >= 5, "{}", class(RoadClass::Road));
    let cities = sys.settlements().cities_in(&t, min, max);
    assert!(!cities.is_empty());
    // The region's cities are the settlements' own, from the same cells.
    assert_eq!(sys.region(&t, min, max).unwrap().cities, cities);
    // No contour road enters a footprint (vertices and segment midpoints).
    let contour = |r: &&crate::network::Road| {
        r.class == RoadClass::Road && r.width == sys.params().contour.width
    };
    for r in net.roads.iter().filter(contour) {
        for w in r.points.windows(2) {
            for c in &cities {
                assert!(
                    !c.contains((w[0] + w[1]) / 2.0),
                    "a road in city {:?}",
                    c.id
                );
            }
        }
    }
    // Contour roads end on highways: junctions between the two classes.
    let t_junctions = (net.junctions.iter())
        .filter(|j| {
            let has = |c| j.roads.iter().any(|&i| net.roads[i].class == c);
            has(RoadClass::Highway) && has(RoadClass::Road)
        })
        .count();
    assert!(t_junctions >= 1, "no contour road ends on a highway");
}

#[test]
fn highways_link_gates_of_neighbouring_cities_and_stay_dry_without_bridges() {
    let t = Terrain::default();
    let mut p = RoadSystemParams::default();
    p.highways.bridges = false;
    p.contour_roads = false;
    p.cities.enabled = false;
    let sys = RoadSystem::new(p).unwrap();
    let (min, max) = city_area();
    let net = RoadGenerator::generate(&sys, &t, min, max).unwrap();
    net.check_planar().unwrap();
    assert!(net.roads.iter().all(|r| r.class == RoadClass::Highway));
    assert!(net.roads.len() >= 2);
    let lake = t.params().lake_level;
    let near = sys
        .settlements()
        .cities_in(&t, min - 20_000.0, max + 20_000.0);
    for r in &net.roads {
        // Every metre dry.
        for w in r.points.windows(2) {
            let n = (w[0].distance(w[1]).ceil() as usize).max(1);
            for i in 0..=n {
                let q = w[0].lerp(w[1], i as f64 / n as f64);
                assert!(t.height(q.x, q.y) >= lake, "highway in water at {q}");
            }
        }
        // Both ends are footprint vertices (gates).
        for end in [r.points[0], *r.points.last().unwrap()] {
            assert!(
                near.iter().any(|c| c.boundary.contains(&end)),
                "highway end {end} is not a gate"
            );
        }
    }
    // Same inputs, same roads (a fresh system, no memo).
    let again = RoadSystem::new(sys.params().clone()).unwrap();
    assert_eq!(RoadGenerator::generate(&again, &t, min, max).unwrap(), net);
}

#[test]
fn bad_parameters_are_errors() {
    let bad = [
        RoadSystemParams {
            max_link: f64::NAN,
            ..Default::default()
        },
        RoadSystemParams {
            highway_width: -1.0,
            ..Default::default()
        },
        RoadSystemParams {
            max_link: 1.0e9,
            ..Default::default()
        },
    ];
    for p in bad {
        assert!(RoadSystem::new(p).is_err());
    }
    let mut p = RoadSystemParams::default();
    p.highways.step = 0.0;
    assert!(RoadSystem::new(p).is_err());
    // City parameters: each bad value is refused with its field named.
    let city = |f: fn(&mut crate::city::CityParams)| {
        let mut p = RoadSystemParams::default();
        f(&mut p.cities);
        RoadSystem::new(p).unwrap_err().to_string()
    };
    assert!(city(|c| c.max_slope = f64::NAN).contains("max_slope"));
    assert!(city(|c| c.obstacle_cell = 0.0).contains("obstacle_cell"));
    assert!(city(|c| c.planar.min_angle_deg = 120.0).contains("min_angle"));
    assert!(city(|c| c.lots.min_area = -1.0).contains("min_area"));
    assert!(city(|c| c.tensor.minor.dsep = f64::INFINITY).contains("dsep"));
    assert!(
        city(|c| c.fields.push(crate::city::CityBases {
            city: (0, 0),
            bases: vec![crate::city::tensor::BasisField::radial(
                DVec2::ZERO,
                -5.0,
                1.0
            )],
        }))
        .contains("size")
    );
    // Areas beyond the contour roads' limit are typed errors.
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let e = RoadGenerator::generate(&sys, &Terrain::default(), DVec2::ZERO, DVec2::splat(1.0e6));
    assert!(matches!(e, Err(RoadError::Area(_))), "{e:?}");
    // Without contour roads too, and for NaN areas: refused at once.
    let highways_only = RoadSystem::new(without_contour_roads()).unwrap();
    let t = Terrain::default();
    for (lo, hi) in [
        (DVec2::ZERO, DVec2::splat(1.0e9)),
        (DVec2::splat(f64::NAN), DVec2::ZERO),
        (DVec2::splat(-1.0e300), DVec2::splat(1.0e300)),
    ] {
        let e = RoadGenerator::generate(&highways_only, &t, lo, hi);
        assert!(matches!(e, Err(RoadError::Area(_))), "{e:?}");
        assert!(highways_only.highways_in(&t, lo, hi).is_err());
    }
}

#[test]
fn a_gate_is_the_rim_vertex_facing_the_other_city_not_a_bay_bottom() {
    use crate::city::{City, CityStyle};
    // A 16-gon of radius 1000 with a bay: the vertex facing +x (index 0)
    // pulled in to 200 m, its neighbours to 600 and 580 m.
    let boundary: Vec<DVec2> = (0..16)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / 16.0;
            let r = match i {
                0 => 200.0,
                1 => 600.0,
                15 => 580.0,
                3 => 990.0,
                _ => 1000.0,
            };
            DVec2::new(a.cos(), a.sin()) * r
        })
        .collect();
    let city = City {
        id: (0, 0),
        centre: DVec2::ZERO,
        radius: 1000.0,
        style: CityStyle::Organic,
        boundary: boundary.clone(),
    };
    // Within ±30° of +x: indices 15, 0, 1 (22.5° apart); the farthest wins.
    assert_eq!(highways::gate(&city, DVec2::new(6000.0, 0.0)), boundary[1]);
    // Towards 45°: indices 1, 2, 3 lie in the cone.
    let towards = DVec2::new(1.0, 1.0) * 4000.0;
    assert_eq!(highways::gate(&city, towards), boundary[2]);
    // Always a boundary vertex, and deterministic.
    for k in 0..64 {
        let a = std::f64::consts::TAU * k as f64 / 64.0;
        let g = highways::gate(&city, DVec2::new(a.cos(), a.sin()) * 5000.0);
        assert!(boundary.contains(&g));
        assert_eq!(
            g,
            highways::gate(&city, DVec2::new(a.cos(), a.sin()) * 5000.0)
        );
    }
    // A coarse footprint with no vertex in the cone: the nearest in angle,
    // ties to the lower index.
    let square = City {
        boundary: vec![
            DVec2::new(1.0, 0.0),
            DVec2::new(0.0, 1.0),
            DVec2::new(-1.0, 0.0),
            DVec2::new(0.0, -1.0),
        ],
        ..city
    };
    assert_eq!(
        highways::gate(&square, DVec2::new(10.0, 8.0)),
        DVec2::new(1.0, 0.0)
    );
    assert_eq!(
        highways::gate(&square, DVec2::new(10.0, 10.0)),
        DVec2::new(1.0, 0.0)
    );
}

#[test]
fn one_system_on_two_terrains_gives_each_its_own_highways() {
    use crate::terrain::TerrainParams;
    let sys = RoadSystem::new(without_contour_roads()).unwrap();
    let (min, max) = city_area();
    let t = Terrain::default();
    let wet = Terrain::new(TerrainParams::default().with_rain(6.0)).unwrap();
    let first = RoadGenerator::generate(&sys, &t, min, max).unwrap();
    let on_wet = RoadGenerator::generate(&sys, &wet, min, max).unwrap();
    let fresh = RoadSystem::new(sys.params().clone()).unwrap();
    assert_eq!(
        on_wet,
        RoadGenerator::generate(&fresh, &wet, min, max).unwrap()
    );
    assert_eq!(first, RoadGenerator::generate(&sys, &t, min, max).unwrap());
}

#[test]
fn cities_get_streets_joined_to_their_highways_and_buildings() {
    let t = Terrain::default();
    let p = without_contour_roads();
    let sys = RoadSystem::new(p).unwrap();
    let (min, max) = city_area();
    let net = check_conformance(&sys, &t, min, max);
    // Composed through planarize: no two vertices closer than rounding.
    net.check_planar_strict().unwrap();
    let layouts = sys.region(&t, min, max).unwrap().layouts;
    assert!(!layouts.is_empty());
    for l in &layouts {
        let streets = &l.streets.network;
        assert!(streets.roads.iter().any(|r| r.class == RoadClass::Street));
        assert!(l.buildings().count() > 50, "{}", l.buildings().count());
        // Every highway end at one of its gates is a junction with a street
        // or the ring in the region's network.
        for h in net.roads.iter().filter(|r| r.class == RoadClass::Highway) {
            for end in [h.points[0], *h.points.last().unwrap()] {
                if !l.city.boundary.contains(&end) {
                    continue;
                }
                let j = (net.junctions.iter()).find(|j| j.pos == end);
                let joined = j.is_some_and(|j| {
                    j.roads
                        .iter()
                        .any(|&i| net.roads[i].class != RoadClass::Highway)
                });
                assert!(joined, "gate {end} of city {:?} is not joined", l.city.id);
            }
        }
    }
    // The same layout object serves the next request (memo).
    let again = sys.region(&t, min, max).unwrap().layouts;
    assert!(Arc::ptr_eq(&layouts[0], &again[0]));
}

#[test]
fn a_system_made_anew_for_city_edits_keeps_the_planned_highways() {
    let t = Terrain::default();
    let p = without_contour_roads();
    let old = RoadSystem::new(p.clone()).unwrap();
    let (min, max) = city_area();
    let before = old.highways_in(&t, min, max).unwrap();
    assert!(old.highways.planned() > 0);
    let mut edited = p.clone();
    edited.cities.planar.seed += 1;
    let new = RoadSystem::reusing(edited, &old).unwrap();
    assert_eq!(new.highways.planned(), old.highways.planned());
    assert_eq!(new.highways_in(&t, min, max).unwrap(), before);
    // Other highway settings plan afresh.
    let mut wider = p;
    wider.highway_width += 2.0;
    assert_eq!(
        RoadSystem::reusing(wider, &old).unwrap().highways.planned(),
        0
    );
}

#[test]
fn areas_with_a_zero_negative_or_huge_side_are_refused_at_once() {
    let t = Terrain::default();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let o = DVec2::new(9000.0, 4000.0);
    // 1e6 km × 0 m, inverted, NaN, infinite: refused before any work.
    for (min, max) in [
        (o, o + DVec2::new(1.0e9, 0.0)),
        (o, o + DVec2::new(-100.0, 100.0)),
        (o, o + DVec2::new(100.0, -1.0e9)),
        (o, DVec2::new(f64::NAN, 0.0)),
        (o, DVec2::splat(f64::INFINITY)),
    ] {
        let e = sys.highways_in(&t, min, max).unwrap_err();
        assert!(matches!(e, RoadError::Area(_)), "{min} {max}: {e}");
        let e = sys.region(&t, min, max).unwrap_err();
        assert!(matches!(e, RoadError::Area(_)), "{min} {max}: {e}");
    }
    // A zero-width strip of ordinary length is an area like any other.
    let strip = sys.region(&t, o, o + DVec2::new(0.0, 300.0)).unwrap();
    assert!(strip.network.check_planar().is_ok());
}

#[test]
fn highway_extremes_are_refused_naming_the_field() {
    let with = |f: fn(&mut RoadSystemParams)| {
        let mut p = RoadSystemParams::default();
        f(&mut p);
        RoadSystem::new(p).unwrap_err()
    };
    // The probe's extremes: each would make a region scan a continent.
    let e = with(|p| {
        p.highways.max_length = 1.0e6;
        p.max_link = 1.0e6;
    });
    assert_eq!(e.field(), "max_link", "{e}");
    let e = with(|p| p.highways.window = 4.0);
    assert_eq!(e.field(), "highways.window", "{e}");
    let e = with(|p| p.highways.min_margin = 1.0e5);
    assert_eq!(e.field(), "highways.min_margin", "{e}");
    let e = with(|p| (p.highways.step, p.highways.sample) = (40.0, 20.0));
    assert!(matches!(e, ParamError::TooMuchWork { .. }), "{e}");
    assert_eq!(e.field(), "highways.step", "{e}");
    // The largest link allowed still makes a system, with a coarser grid.
    let mut p = RoadSystemParams::default();
    (p.max_link, p.highways.max_length) = (MAX_LINK, MAX_LINK);
    p.highways.step = 150.0;
    RoadSystem::new(p).unwrap();
}

#[test]
fn a_system_made_anew_for_contour_edits_keeps_the_laid_out_cities() {
    let t = Terrain::default();
    let p = without_contour_roads();
    let old = RoadSystem::new(p.clone()).unwrap();
    let (min, max) = city_area();
    let city = (old.settlements().cities_in(&t, min, max).into_iter())
        .next()
        .expect("a city");
    let before = old.layout(&t, &city).unwrap();
    let mut contour = p.clone();
    contour.contour.density *= 2.0;
    let new = RoadSystem::reusing(contour, &old).unwrap();
    assert!(Arc::ptr_eq(&new.layout(&t, &city).unwrap(), &before));
    // City settings lay the city out afresh.
    let mut edited = p;
    edited.cities.planar.seed += 1;
    let fresh = RoadSystem::reusing(edited, &old).unwrap();
    assert!(!Arc::ptr_eq(&fresh.layout(&t, &city).unwrap(), &before));
}
