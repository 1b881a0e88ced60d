//! City footprints and highways on the map.

use super::golden::golden_hash;
use super::*;
use crate::city::City;
use crate::{
    network::RoadClass,
    roads::RoadGenerator,
    world::{RoadSystem, RoadSystemParams},
};
use std::time::Instant;

/// No scale bar, north lines or contours (1 km apart, so none here): the
/// fill shows except under roads and outlines.
fn plain(scale: f64) -> MapStyle {
    MapStyle {
        metres_per_pixel: scale,
        contour_interval: 1000.0,
        scale_bar: false,
        north_lines: 0.0,
    }
}

fn pixel(img: &MapImage, x: usize, y: usize) -> [u8; 3] {
    let i = (y * img.width + x) * 4;
    [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]
}

/// The reference terrain's city of cell (1, 0), its roads and the map
/// of 400 × 300 pixels at 3 m/px around (10100, 4500) (the footprint
/// without its streets, so that its fill shows).
fn city_map() -> (City, crate::network::RoadNetwork, MapImage, View) {
    let t = Terrain::default();
    let mut p = RoadSystemParams::default();
    p.cities.enabled = false;
    let sys = RoadSystem::new(p).unwrap();
    let (w, h, s) = (400usize, 300usize, 3.0);
    let centre = DVec2::new(10100.0, 4500.0);
    let half = DVec2::new(w as f64, h as f64) * s / 2.0;
    let cities = sys
        .settlements()
        .cities_in(&t, centre - half, centre + half);
    let city = cities.iter().find(|c| c.id == (1, 0)).unwrap().clone();
    assert!(city.centre.distance(DVec2::new(9852.0, 4253.0)) < 50.0);
    let net = RoadGenerator::generate(&sys, &t, centre - half, centre + half).unwrap();
    let layers = MapLayers {
        roads: Some(&net),
        cities: &cities,
        ..Default::default()
    };
    let img = render_map(&t, centre, w, h, &plain(s), layers).unwrap();
    let view = View {
        x0: centre.x - half.x,
        y0: centre.y + half.y,
        s,
        width: w,
        height: h,
    };
    (city, net, img, view)
}

#[test]
fn a_city_is_filled_with_the_settlement_colour_and_highways_drawn_over() {
    let (city, net, img, v) = city_map();
    // Inside the footprint: mostly settlement colour; outside: none.
    let (mut inside, mut filled) = (0, 0);
    for py in 0..v.height {
        for px in 0..v.width {
            let p = DVec2::new(
                v.x0 + (px as f64 + 0.5) * v.s,
                v.y0 - (py as f64 + 0.5) * v.s,
            );
            let c = pixel(&img, px, py);
            if city.contains(p) {
                inside += 1;
                filled += (c == colors::CITY) as usize;
            } else {
                assert_ne!(c, colors::CITY, "({px}, {py}) outside the city");
            }
        }
    }
    assert!(inside > 20_000, "{inside} pixels inside");
    assert!(filled * 10 > inside * 9, "{filled} of {inside} filled");
    // The highway out of the city towards (15135, 7272): its fill along
    // its centre line, framed by black edges.
    let hw: Vec<_> = net
        .roads
        .iter()
        .filter(|r| r.class == RoadClass::Highway)
        .collect();
    assert!(!hw.is_empty(), "highways");
    let (mut on, mut samples) = (0, 0);
    for r in &hw {
        for seg in r.points.windows(2) {
            let p = v.to_px(seg[0].lerp(seg[1], 0.5));
            let (x, y) = (p.x.round(), p.y.round());
            if x < 2.0 || y < 2.0 || x > v.width as f64 - 3.0 || y > v.height as f64 - 3.0 {
                continue;
            }
            samples += 1;
            on += (pixel(&img, x as usize, y as usize) == colors::HIGHWAY_FILL) as usize;
        }
    }
    assert!(samples >= 10, "{samples} highway samples");
    assert!(
        on * 10 >= samples * 8,
        "{on} of {samples} on the highway fill"
    );
    let count = |c: Rgb| img.rgba.chunks(4).filter(|p| p[..3] == c).count();
    assert!(count(colors::HIGHWAY_FILL) > 500);
}

#[test]
fn the_fill_follows_city_contains_exactly() {
    // A jagged, thin, concave footprint on its own: every pixel whose centre
    // is inside and not lake is settlement, contour, outline or shore.
    let t = Terrain::default();
    let boundary: Vec<DVec2> = (0..97)
        .map(|i| {
            let a = i as f64 / 97.0 * std::f64::consts::TAU;
            let r = if i % 2 == 0 { 60.0 } else { 23.7 };
            DVec2::new(a.cos(), a.sin()) * r + DVec2::new(3.3, -1.9)
        })
        .collect();
    let city = City {
        id: (0, 0),
        centre: DVec2::ZERO,
        radius: 60.0,
        style: crate::city::CityStyle::Organic,
        boundary,
    };
    let layers = MapLayers {
        cities: std::slice::from_ref(&city),
        ..Default::default()
    };
    let (w, h, s) = (150, 130, 1.0);
    let img = render_map(&t, DVec2::ZERO, w, h, &plain(s), layers).unwrap();
    let base = render_map(&t, DVec2::ZERO, w, h, &plain(s), MapLayers::default()).unwrap();
    for py in 0..h {
        for px in 0..w {
            let p = DVec2::new(-75.0 + px as f64 + 0.5, 65.0 - py as f64 - 0.5);
            let c = pixel(&img, px, py);
            if city.contains(p) && pixel(&base, px, py) != colors::LAKE {
                assert!(
                    [
                        colors::CITY,
                        colors::CONTOUR,
                        colors::BLACK,
                        colors::WATER_LINE
                    ]
                    .contains(&c),
                    "({px}, {py}) inside: {c:?}"
                );
            } else {
                assert_ne!(c, colors::CITY, "({px}, {py}) outside");
            }
        }
    }
}

#[test]
fn maps_without_cities_in_view_are_unchanged_and_work_stays_bounded() {
    let centre = DVec2::new(9852.0, 4800.0);
    // Cities off the map change nothing: a huge one far away, the real
    // one moved 100 km east.
    let ring = |c: DVec2, r: f64, n: usize| -> Vec<DVec2> {
        (0..n)
            .map(|i| {
                let a = i as f64 / n as f64 * std::f64::consts::TAU;
                c + DVec2::new(a.cos(), a.sin()) * r
            })
            .collect()
    };
    let city = |boundary| City {
        id: (0, 0),
        centre: DVec2::ZERO,
        radius: 1.0,
        style: crate::city::CityStyle::Planned,
        boundary,
    };
    let far = [
        city(ring(centre + DVec2::new(1e5, 0.0), 1000.0, 64)),
        city(ring(centre + DVec2::new(0.0, -5e6), 1e6, 200_000)),
    ];
    let start = Instant::now();
    assert_eq!(golden_hash(centre, 3.0, &far), 0xe6e3_2e03_d700_faa1);
    // A footprint of 400 000 points around the whole map, 10⁷ m across:
    // each edge costs its rows on the map, none here but the sides'.
    let huge = [city(ring(centre, 1e7, 400_000))];
    let layers = MapLayers {
        cities: &huge,
        ..Default::default()
    };
    let t = Terrain::default();
    let img = render_map(&t, centre, 400, 300, &plain(3.0), layers).unwrap();
    let count = img
        .rgba
        .chunks(4)
        .filter(|p| p[..3] == colors::CITY)
        .count();
    assert!(count > 400 * 300 * 9 / 10, "{count}");
    let secs = start.elapsed().as_secs_f64();
    assert!(secs < 20.0, "{secs} s");
}

#[test]
fn city_buildings_are_black_and_small_ones_still_show() {
    let t = Terrain::default();
    let centre = DVec2::new(500.0, 500.0);
    let big: Vec<DVec2> = [(-20., -10.), (20., -10.), (20., 10.), (-20., 10.)]
        .map(|(x, y)| centre + DVec2::new(x, y))
        .into();
    let tiny: Vec<DVec2> = [(0., 0.), (3., 0.), (3., 3.), (0., 3.)]
        .map(|(x, y)| centre + DVec2::new(60.0 + x, y))
        .into();
    let far: Vec<DVec2> = big.iter().map(|p| *p + DVec2::splat(1e6)).collect();
    let buildings = [big, tiny, far];
    let layers = MapLayers {
        buildings: &buildings,
        ..Default::default()
    };
    let img = render_map(&t, centre, 200, 100, &plain(2.0), layers).unwrap();
    let px = |p: DVec2| {
        let (x, y) = (
            (p.x - centre.x) / 2.0 + 100.0,
            (centre.y - p.y) / 2.0 + 50.0,
        );
        let i = (y as usize * 200 + x as usize) * 4;
        [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]
    };
    assert_eq!(px(centre), colors::BLACK);
    assert_eq!(px(centre + DVec2::new(61.5, 1.5)), colors::BLACK);
    assert_ne!(px(centre + DVec2::new(40.0, 0.0)), colors::BLACK);
}
