//! The map's tests: layers, limits, and golden hashes of fixed maps.

mod cities;

use super::raster::clip_segment;
use super::*;

#[test]
fn a_map_has_lakes_shores_and_contours() {
    let t = Terrain::default();
    // (-1811, 3062) is deep in a lake.
    let img = render_map(
        &t,
        DVec2::new(-1811.0, 3062.0),
        200,
        150,
        &MapStyle::default(),
        MapLayers::default(),
    )
    .unwrap();
    assert_eq!(img.rgba.len(), 200 * 150 * 4);
    let count = |c: Rgb| img.rgba.chunks(4).filter(|p| p[..3] == c).count();
    assert!(count(colors::CONTOUR) > 200, "contours");
    assert!(count(colors::LAKE) > 2000, "lake");
    assert!(count(colors::WATER_LINE) > 50, "shore line");
    let png = img.to_png().unwrap();
    assert_eq!(&png[1..4], b"PNG");
    assert!(
        render_map(
            &t,
            DVec2::ZERO,
            0,
            10,
            &MapStyle::default(),
            MapLayers::default()
        )
        .is_err()
    );
    assert!(
        render_map(
            &t,
            DVec2::ZERO,
            100_000,
            100_000,
            &MapStyle::default(),
            MapLayers::default()
        )
        .is_err()
    );
    let bad = MapStyle {
        metres_per_pixel: f64::NAN,
        ..Default::default()
    };
    assert!(matches!(
        render_map(&t, DVec2::ZERO, 10, 10, &bad, MapLayers::default()),
        Err(MapError::Scale(_))
    ));
    let bad = MapStyle {
        contour_interval: 0.0,
        ..Default::default()
    };
    let err = render_map(&t, DVec2::ZERO, 10, 10, &bad, MapLayers::default()).unwrap_err();
    assert!(matches!(err, MapError::ContourInterval(_)), "{err:?}");
    assert!(err.to_string().starts_with("contour_interval"), "{err}");
    let far = DVec2::new(f64::INFINITY, 0.0);
    assert!(matches!(
        render_map(&t, far, 10, 10, &plain(), MapLayers::default()),
        Err(MapError::Centre(_))
    ));
}

#[test]
fn png_refuses_images_it_cannot_hold() {
    let image = |width: usize, height: usize, len: usize| MapImage {
        width,
        height,
        rgba: vec![255; len],
    };
    // A side beyond u32 (once written as 1 × 1), no pixels, too many.
    for (w, h) in [
        (1 << 32 | 1, 1),
        (1, 1 << 32 | 1),
        (0, 0),
        (0, 5),
        (4097, 4096),
    ] {
        let err = image(w, h, 4).to_png().unwrap_err();
        assert!(
            matches!(err, MapError::Size { width, height } if (width, height) == (w, h)),
            "{w} {h}: {err:?}"
        );
        assert!(err.to_string().contains("change width or height"), "{err}");
    }
    // Pixel data that is not the image's size.
    assert!(matches!(
        image(3, 2, 4).to_png(),
        Err(MapError::PixelData {
            expected: 24,
            len: 4
        })
    ));
    let png = image(3, 2, 24).to_png().unwrap();
    assert_eq!(&png[1..4], b"PNG");
}

fn plain() -> MapStyle {
    MapStyle {
        scale_bar: false,
        north_lines: 0.0,
        ..Default::default()
    }
}

fn count(img: &MapImage, c: Rgb) -> usize {
    img.rgba.chunks(4).filter(|p| p[..3] == c).count()
}

#[test]
fn north_lines_closer_than_a_pixel_are_left_out() {
    let t = Terrain::default();
    for n in [1e-9, 0.5, f64::MIN_POSITIVE, f64::INFINITY, f64::NAN, -5.0] {
        let style = MapStyle {
            north_lines: n,
            ..plain()
        };
        let img = render_map(&t, DVec2::ZERO, 30, 20, &style, MapLayers::default()).unwrap();
        assert_eq!(count(&img, colors::NORTH), 0, "{n}");
    }
    // One a pixel apart fills every column, four rows in six.
    let style = MapStyle {
        north_lines: 1.0,
        ..plain()
    };
    let img = render_map(&t, DVec2::ZERO, 30, 12, &style, MapLayers::default()).unwrap();
    // (Pixel centres sit half-way between whole metres; the first line
    // rounds off the image.)
    assert_eq!(count(&img, colors::NORTH), 29 * 8);
    // Far out, where x + n no longer moves, the loop still ends.
    for c in [1e17, 9.2e18, 1e300] {
        let style = MapStyle {
            north_lines: 5.0,
            metres_per_pixel: 2.0,
            ..plain()
        };
        let centre = DVec2::new(c, -c);
        let img = render_map(&t, centre, 16, 6, &style, MapLayers::default()).unwrap();
        assert!(count(&img, colors::NORTH) <= 16 * 4);
    }
}

#[test]
fn the_scale_bar_stays_in_the_image() {
    let t = Terrain::default();
    for s in [1e-300, 1e-9, 1e-3, 0.01, 1.0, 1000.0] {
        let style = MapStyle {
            metres_per_pixel: s,
            scale_bar: true,
            north_lines: 0.0,
            ..Default::default()
        };
        for (w, h) in [(1, 1), (5, 40), (40, 5), (200, 60)] {
            let img = render_map(&t, DVec2::ZERO, w, h, &style, MapLayers::default()).unwrap();
            assert_eq!(img.rgba.len(), w * h * 4);
        }
    }
    // A bar that fits is drawn: 50 m at 1 m per pixel on 200 px.
    let style = MapStyle {
        scale_bar: true,
        ..plain()
    };
    let img = render_map(&t, DVec2::ZERO, 200, 60, &style, MapLayers::default()).unwrap();
    let bar_row = 60 - 26 + 11;
    let black = (0..200)
        .filter(|&x| img.rgba[(bar_row * 200 + x) * 4..][..3] == colors::BLACK)
        .count();
    assert_eq!(black, 50);
}

#[test]
fn extreme_centres_sizes_and_layers_are_safe() {
    let t = Terrain::default();
    let far = [
        1e6,
        -1e12,
        1e18,
        9.2e18,
        -9.3e18,
        i64::MAX as f64,
        4503599627370496.0,
        1e300,
        f64::MAX,
        -f64::MAX,
    ];
    let streams = [Stream {
        source: (0, 0),
        points: vec![
            DVec2::new(-1e300, 0.0),
            DVec2::new(1e300, 1.0),
            DVec2::new(f64::MAX, -f64::MAX),
            DVec2::new(f64::NAN, 0.0),
            DVec2::new(f64::INFINITY, 3.0),
            DVec2::new(-f64::MAX, f64::MAX),
        ],
        end: crate::terrain::StreamEnd::Marsh,
        length: 1.0,
    }];
    let city = |boundary: Vec<DVec2>| crate::city::City {
        id: (0, 0),
        centre: DVec2::ZERO,
        radius: 1.0,
        style: crate::city::CityStyle::Organic,
        boundary,
    };
    let (m, inf) = (f64::MAX, f64::INFINITY);
    let cities = [
        city(vec![
            DVec2::new(-m, -m),
            DVec2::new(m, -m),
            DVec2::new(0.0, m),
        ]),
        city(vec![
            DVec2::new(-m, 0.0),
            DVec2::new(m, 1.0),
            DVec2::new(m, -m),
        ]),
        city(vec![DVec2::ZERO, DVec2::new(inf, 0.0), DVec2::ONE]),
        city(vec![DVec2::ZERO, DVec2::NAN, DVec2::ONE]),
        city(vec![DVec2::ZERO, DVec2::ONE]),
        city(vec![]),
        city(vec![
            DVec2::splat(-1e300),
            DVec2::new(1e300, -1e300),
            DVec2::splat(1e300),
        ]),
        city(vec![
            DVec2::ZERO,
            DVec2::new(1e-300, 0.0),
            DVec2::new(0.0, 1e-300),
        ]),
    ];
    for &c in &far {
        for centre in [DVec2::new(c, 0.0), DVec2::new(0.0, c), DVec2::splat(c)] {
            for s in [1e-6, 1.0, 12.0, 1000.0] {
                let style = MapStyle {
                    metres_per_pixel: s,
                    contour_interval: 1e-300,
                    north_lines: s,
                    scale_bar: true,
                };
                let layers = MapLayers {
                    roads: None,
                    streams: &streams,
                    marker: Some(MapMarker {
                        pos: DVec2::new(-c, c),
                        heading: 1.0,
                    }),
                    cities: &cities,
                    buildings: &[],
                };
                let img = render_map(&t, centre, 9, 7, &style, layers).unwrap();
                assert_eq!(img.rgba.len(), 9 * 7 * 4);
            }
        }
    }
    // Sizes beyond the limit are refused before anything is allocated.
    for (w, h) in [
        (usize::MAX, 2),
        (2, usize::MAX),
        (usize::MAX, usize::MAX),
        (MAX_MAP_PIXELS + 1, 1),
        (4097, 4096),
    ] {
        let r = render_map(&t, DVec2::ZERO, w, h, &plain(), MapLayers::default());
        assert!(
            matches!(r, Err(MapError::Size { width, height }) if (width, height) == (w, h)),
            "{w} {h}"
        );
    }
    // A long thin map is fine, and bounded by its pixels.
    let img = render_map(&t, DVec2::ZERO, 20_000, 1, &plain(), MapLayers::default()).unwrap();
    assert_eq!(img.width, 20_000);
}

#[test]
fn lines_from_far_away_are_clipped_not_lost() {
    let t = Terrain::default();
    // A stream crossing the map from 10¹² m west to 10¹² m east.
    let streams = [Stream {
        source: (0, 0),
        points: vec![DVec2::new(-1e12, 0.0), DVec2::new(1e12, 0.0)],
        end: crate::terrain::StreamEnd::Marsh,
        length: 2e12,
    }];
    let layers = MapLayers {
        streams: &streams,
        ..Default::default()
    };
    let img = render_map(&t, DVec2::ZERO, 40, 20, &plain(), layers).unwrap();
    // Row 9 or 10 (the line's centre is between them) is water line all across.
    let row = |y: usize| {
        (0..40)
            .filter(|&x| img.rgba[(y * 40 + x) * 4..][..3] == colors::WATER_LINE)
            .count()
    };
    assert_eq!(row(9).max(row(10)), 40);
    // Clipping keeps ends inside the box exactly, and handles overflow.
    let (lo, hi) = (DVec2::ZERO, DVec2::splat(10.0));
    let (a, b) = (DVec2::new(1.5, 2.5), DVec2::new(7.25, 3.0));
    assert_eq!(clip_segment(a, b, lo, hi), Some((a, b)));
    let (p, q) = clip_segment(
        DVec2::new(-f64::MAX, 5.0),
        DVec2::new(f64::MAX, 5.0),
        lo,
        hi,
    )
    .unwrap();
    assert_eq!((p, q), (DVec2::new(0.0, 5.0), DVec2::new(10.0, 5.0)));
    assert_eq!(
        clip_segment(DVec2::splat(20.0), DVec2::splat(30.0), lo, hi),
        None
    );
    assert_eq!(clip_segment(DVec2::NAN, DVec2::ONE, lo, hi), None);
}

#[test]
fn buildings_are_drawn_at_their_own_size() {
    let t = Terrain::default();
    let b = t
        .buildings_in(DVec2::splat(-3000.0), DVec2::splat(3000.0))
        .next()
        .unwrap();
    let (lo, hi) = b.footprint();
    assert_eq!(hi - lo, DVec2::splat(BUILDING_SIDE));
    let img = render_map(&t, b.centre, 40, 40, &plain(), MapLayers::default()).unwrap();
    assert!(count(&img, colors::BLACK) >= 144);
}

#[test]
fn features_appear_as_symbols_where_the_terrain_has_them() {
    let t = Terrain::default();
    // (285, 389) is a mine: the map centred there has black at the "V".
    let img = render_map(
        &t,
        DVec2::new(285.0, 389.0),
        41,
        41,
        &MapStyle {
            scale_bar: false,
            north_lines: 0.0,
            ..Default::default()
        },
        MapLayers::default(),
    )
    .unwrap();
    let px = |x: usize, y: usize| &img.rgba[(y * 41 + x) * 4..(y * 41 + x) * 4 + 3];
    assert_eq!(px(20, 23), colors::BLACK);
}

mod golden {
    //! Hashes of fixed maps, recorded before the module was split and the
    //! city layer added: the renderer must keep drawing them bit for bit.
    use super::*;
    use crate::roads::{ContourParams, ContourRoads};

    /// FNV-1a, 64 bits: stable across platforms and Rust versions.
    pub(super) fn fnv(bytes: &[u8]) -> u64 {
        bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }

    /// The 400 × 300 map around `centre` at `scale` m/px with contour
    /// roads, streams and a marker; the hash of its RGBA bytes.
    pub(super) fn golden_hash(centre: DVec2, scale: f64, cities: &[crate::city::City]) -> u64 {
        let t = Terrain::default();
        let half = DVec2::new(200.0, 150.0) * scale;
        let roads = ContourRoads::new(ContourParams::default())
            .unwrap()
            .generate(&t, centre - half, centre + half);
        let streams = t.streams_in(centre - half, centre + half).unwrap();
        assert!(!roads.roads.is_empty(), "roads around {centre}");
        let style = MapStyle {
            metres_per_pixel: scale,
            ..Default::default()
        };
        let layers = MapLayers {
            roads: Some(&roads),
            streams: &streams,
            marker: Some(MapMarker {
                pos: centre + DVec2::new(30.0, -20.0),
                heading: 0.7,
            }),
            cities,
            buildings: &[],
        };
        let img = render_map(&t, centre, 400, 300, &style, layers).unwrap();
        fnv(&img.rgba)
    }

    #[test]
    fn fixed_maps_render_bit_for_bit_as_before() {
        let a = golden_hash(DVec2::new(19000.0, 1260.0), 1.0, &[]);
        let b = golden_hash(DVec2::new(9852.0, 4800.0), 3.0, &[]);
        assert_eq!(a, 0x8b56_c164_8f86_3c74, "{a:#018x}");
        assert_eq!(b, 0xe6e3_2e03_d700_faa1, "{b:#018x}");
    }
}
