//! Random street graphs on many seeds, determinism, heights, parameters
//! and degenerate input.

use super::*;

#[test]
fn random_street_graphs_keep_every_invariant() {
    let mut total = 0;
    for seed in 0..24 {
        let s = random_streets(seed, 4 + seed as usize % 3);
        let p = LotParams {
            seed,
            ..LotParams::default()
        };
        let lots = subdivide(&s, &p);
        let cover = check(&s, &p, &lots);
        assert!(cover >= 0.7, "seed {seed}: {cover}");
        total += lots.len();
    }
    assert!(total > 400, "{total}");
}

/// The planar generator's reference city (the `city` bench's ellipse, with
/// its many dead ends): slow in debug, so run it with `--release --ignored`
/// (`cargo test --release --no-default-features --lib the_reference_planar_city
/// -- --ignored`: under a second).
#[test]
#[ignore]
fn the_reference_planar_city_keeps_every_invariant() {
    use crate::city::StreetsInput;
    use crate::city::planar::{PlanarParams, PlanarStreets};
    let boundary = (0..64)
        .map(|i| {
            let a = i as f64 / 64.0 * std::f64::consts::TAU;
            v(1000.0 * a.cos(), 800.0 * a.sin())
        })
        .collect();
    let input = StreetsInput {
        boundary,
        ..StreetsInput::default()
    };
    let s = (PlanarStreets::new(PlanarParams::default()).unwrap())
        .generate(&input)
        .unwrap();
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    let cover = check(&s, &p, &lots);
    assert!(cover >= 0.8 && lots.len() > 3000, "{cover}, {}", lots.len());
}

#[test]
fn same_inputs_same_lots_in_any_block_order() {
    let s = random_streets(3, 6);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert_eq!(lots, subdivide(&s, &p));
    // The blocks reversed: the same lots, block by block.
    let mut r = s.clone();
    r.blocks.reverse();
    r.block_widths.reverse();
    let back = subdivide(&r, &p);
    let n = s.blocks.len();
    let key = |l: &Lot| format!("{:?}", l.polygon);
    let mut a: Vec<String> = lots
        .iter()
        .map(|l| format!("{} {}", l.block, key(l)))
        .collect();
    let mut b: Vec<String> = back
        .iter()
        .map(|l| format!("{} {}", n - 1 - l.block, key(l)))
        .collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // Another seed moves the cuts.
    let other = subdivide(&s, &LotParams { seed: 1, ..p });
    assert_ne!(lots, other);
}

#[test]
fn buildings_rise_towards_the_centre() {
    let s = random_streets(9, 8);
    let centre = v(245., 245.);
    let p = LotParams {
        centre,
        radius: 350.0,
        ..LotParams::default()
    };
    let lots = subdivide(&s, &p);
    let (mut near, mut far) = (vec![], vec![]);
    for b in lots.iter().filter_map(|l| l.building.as_ref()) {
        let c = b.footprint.iter().sum::<DVec2>() / b.footprint.len() as f64;
        if c.distance(centre) < 120.0 {
            near.push(b.height);
        } else if c.distance(centre) > 250.0 {
            far.push(b.height);
        }
    }
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    assert!(near.len() >= 10 && far.len() >= 10);
    assert!(
        mean(&near) > mean(&far) + 5.0,
        "{} {}",
        mean(&near),
        mean(&far)
    );
    // No jitter: strictly by distance.
    let p0 = LotParams {
        height_jitter: 0.0,
        ..p.clone()
    };
    assert!(
        p0.height_at(centre) == p.max_height && p0.height_at(centre + v(400., 0.)) == p.min_height
    );
    assert!(p0.height_at(centre + v(100., 0.)) > p0.height_at(centre + v(200., 0.)));
}

#[test]
fn bad_params_are_refused_by_name_and_give_no_lots() {
    assert!(LotParams::default().validate().is_ok());
    let s = two_blocks(vec![]);
    let cases: Vec<(&str, LotParams)> = vec![
        (
            "min_area",
            LotParams {
                min_area: f64::NAN,
                ..Default::default()
            },
        ),
        (
            "max_area",
            LotParams {
                max_area: 100.0,
                ..Default::default()
            },
        ),
        (
            "min_frontage",
            LotParams {
                min_frontage: -1.0,
                ..Default::default()
            },
        ),
        (
            "split_jitter",
            LotParams {
                split_jitter: 0.5,
                ..Default::default()
            },
        ),
        (
            "setback",
            LotParams {
                setback: f64::INFINITY,
                ..Default::default()
            },
        ),
        (
            "radius",
            LotParams {
                radius: 0.0,
                ..Default::default()
            },
        ),
        (
            "centre",
            LotParams {
                centre: v(f64::NAN, 0.),
                ..Default::default()
            },
        ),
        (
            "max_height",
            LotParams {
                max_height: 1.0,
                ..Default::default()
            },
        ),
        (
            "max_lots",
            LotParams {
                max_lots: 0,
                ..Default::default()
            },
        ),
    ];
    for (field, p) in cases {
        let msg = p.validate().unwrap_err().to_string();
        assert!(msg.starts_with(field), "{field}: {msg}");
        assert!(subdivide(&s, &p).is_empty());
    }
}

#[test]
fn degenerate_streets_give_nothing_and_never_panic() {
    let empty = Streets::from_graph(&PlanarGraph::new(10.0), vec![], EdgeRole::default_style);
    assert!(subdivide(&empty, &LotParams::default()).is_empty());
    let p = LotParams::default();
    // A NaN road point or width: nothing.
    let mut s = two_blocks(vec![]);
    s.network.roads[0].points[0].x = f64::NAN;
    assert!(subdivide(&s, &p).is_empty());
    let mut s = two_blocks(vec![]);
    s.network.roads[0].width = f64::NAN;
    assert!(subdivide(&s, &p).is_empty());
    // A NaN block, a clockwise one and a two-point one are skipped.
    let mut s = two_blocks(vec![]);
    s.blocks[0][0].y = f64::NAN;
    s.blocks[1].reverse();
    s.blocks.push(vec![v(0., 0.), v(1., 1.)]);
    assert!(subdivide(&s, &p).is_empty());
    // A NaN obstacle: nothing.
    let mut s = two_blocks(vec![]);
    s.obstacles
        .push(vec![v(0., 0.), v(f64::NAN, 1.), v(1., 0.)]);
    assert!(subdivide(&s, &p).is_empty());
    // The lot cap holds.
    let s = two_blocks(vec![]);
    assert_eq!(subdivide(&s, &LotParams { max_lots: 3, ..p }).len(), 3);
}

#[test]
fn lot_params_round_trip_through_ron() {
    let p = LotParams {
        seed: 5,
        centre: v(10., -3.),
        ..LotParams::default()
    };
    let text = ron::to_string(&p).unwrap();
    assert_eq!(ron::from_str::<LotParams>(&text).unwrap(), p);
    assert_eq!(ron::from_str::<LotParams>("(seed: 2)").unwrap().seed, 2);
    assert!(ron::from_str::<LotParams>("(sead: 2)").is_err());
}

/// The ribbon index and its shortcuts find exactly the ribbons a scan of
/// all of them finds, for blocks and for small shapes anywhere (also with
/// the city moved to negative coordinates, where its cells are negative).
#[test]
fn ribbons_near_a_shape_are_those_a_scan_finds() {
    use super::ribbons::{CAP, Ribbons, segment_distance};
    let scan = |list: &[ribbons::Ribbon], poly: &[DVec2]| -> Vec<ribbons::Ribbon> {
        let m = poly.len();
        (list.iter())
            .filter(|r| {
                let reach = r.half * CAP + 1e-3;
                (0..m).any(|j| segment_distance(r.a, r.b, poly[j], poly[(j + 1) % m]) <= reach)
                    || polygon::polygon_contains(poly, r.a)
            })
            .copied()
            .collect()
    };
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut unit = move || crate::num::unit(rng.next_u64());
    for seed in 0..8 {
        let mut s = random_streets(seed, 4 + seed as usize % 3);
        if seed >= 6 {
            let off = v(-12_345.6, -98_765.4);
            for road in &mut s.network.roads {
                road.points.iter_mut().for_each(|p| *p += off);
            }
            s.blocks.iter_mut().flatten().for_each(|p| *p += off);
        }
        let mut ribbons = Ribbons::new(&s.network).unwrap();
        let list = ribbons.list.clone();
        for block in &s.blocks {
            assert_eq!(ribbons.near(block), scan(&list, block));
        }
        let (lo, hi) = crate::geom::bounds(&s.blocks.concat());
        for _ in 0..300 {
            let c = lo + (hi - lo) * DVec2::new(unit(), unit());
            let (w, h) = (1.0 + 30.0 * unit(), 1.0 + 30.0 * unit());
            let quad = [c, c + v(w, 0.0), c + v(w, h), c + v(0.0, h)];
            assert_eq!(ribbons.near(&quad), scan(&list, &quad));
        }
    }
}
