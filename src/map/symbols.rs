//! Line and point symbols drawn over the ground: streams, roads, point
//! features, north lines, the player's mark and the scale bar.

use super::{MapImage, MapMarker, View, colors};
use crate::network::{Road, RoadClass, RoadNetwork};
use crate::num::WORLD_LIMIT_F64;
use crate::terrain::{Feature, Stream, Terrain};
use glam::DVec2;

/// Streams: dark blue lines, 2 m wide (1 to 2 pixels).
pub(super) fn streams(img: &mut MapImage, v: &View, streams: &[Stream]) {
    for st in streams {
        for w in st.points.windows(2) {
            img.line(
                v.to_px(w[0]),
                v.to_px(w[1]),
                (2.0 / v.s).clamp(1.0, 2.0),
                colors::WATER_LINE,
            );
        }
    }
}

/// Roads: black casing, light fill (tracks: black only); then highways
/// over them as the major-road symbol (ISOM 502): two black edge lines
/// with a brown fill between, as wide as the road (5 to 14 pixels: at
/// least twice an ordinary road, never mistaken for a contour),
/// so a road ending on a highway stops at its edge line.
pub(super) fn roads(img: &mut MapImage, v: &View, net: &RoadNetwork) {
    let highway = |r: &&Road| r.class == RoadClass::Highway;
    for pass in 0..2 {
        for r in net.roads.iter().filter(|r| !highway(r)) {
            let w = (r.width / v.s).clamp(2.0, 8.0);
            for seg in r.points.windows(2) {
                let (a, b) = (v.to_px(seg[0]), v.to_px(seg[1]));
                match (pass, r.class) {
                    (0, _) => img.line(a, b, w + 1.5, colors::BLACK),
                    (1, RoadClass::Track | RoadClass::Path) => {}
                    (1, _) => img.line(a, b, (w - 1.5).max(1.0), colors::ROAD_FILL),
                    _ => {}
                }
            }
        }
    }
    for pass in 0..2 {
        for r in net.roads.iter().filter(highway) {
            let w = (r.width / v.s).clamp(5.0, 14.0);
            for seg in r.points.windows(2) {
                let (a, b) = (v.to_px(seg[0]), v.to_px(seg[1]));
                match pass {
                    0 => img.line(a, b, w + 2.0, colors::BLACK),
                    _ => img.line(a, b, w, colors::HIGHWAY_FILL),
                }
            }
        }
    }
}

/// Point features as map symbols (scanned on whole metres; cones are movable
/// and so not on the map).
/// Only at 1 m per pixel or finer, where every whole metre has its pixel,
/// and within the world limit, where whole metres are exact: at most
/// (width + 1) × (height + 1) points.
pub(super) fn features(img: &mut MapImage, terrain: &Terrain, v: &View) {
    if v.s > 1.0 {
        return;
    }
    let (wmin, wmax) = v.world();
    let metres = |lo: f64, hi: f64| {
        let (a, b) = (
            lo.ceil().max(-WORLD_LIMIT_F64),
            hi.floor().min(WORLD_LIMIT_F64),
        );
        a as i64..=b as i64
    };
    for y in metres(wmin.y, wmax.y) {
        for x in metres(wmin.x, wmax.x) {
            if terrain.generated_feature(x, y).is_none() {
                continue;
            }
            let Some(f) = terrain.terra(x as f64, y as f64).feature else {
                continue;
            };
            let p = v.to_px(DVec2::new(x as f64, y as f64));
            symbol(img, f, p);
        }
    }
}

/// A map symbol at pixel `p`.
fn symbol(img: &mut MapImage, f: Feature, p: DVec2) {
    let b = colors::BLACK;
    match f {
        Feature::Boulder => img.disc(p.x, p.y, 2.0, b),
        Feature::Knoll => img.disc(p.x, p.y, 2.5, colors::CONTOUR),
        Feature::Mine => {
            // An open "V": a mine shaft or cave.
            img.line(p + DVec2::new(-3.0, -3.0), p + DVec2::new(0.0, 3.0), 1.2, b);
            img.line(p + DVec2::new(3.0, -3.0), p + DVec2::new(0.0, 3.0), 1.2, b);
        }
        Feature::Root | Feature::ManMade => {
            let c = if f == Feature::Root {
                colors::CONTOUR
            } else {
                b
            };
            img.line(p + DVec2::new(-3.0, -3.0), p + DVec2::new(3.0, 3.0), 1.2, c);
            img.line(p + DVec2::new(3.0, -3.0), p + DVec2::new(-3.0, 3.0), 1.2, c);
        }
        Feature::WaterHole => {
            let w = colors::WATER_LINE;
            img.line(p + DVec2::new(-3.5, 2.5), p + DVec2::new(3.5, 2.5), 1.2, w);
            img.line(p + DVec2::new(-3.5, 2.5), p + DVec2::new(0.0, -3.5), 1.2, w);
            img.line(p + DVec2::new(3.5, 2.5), p + DVec2::new(0.0, -3.5), 1.2, w);
        }
        Feature::Cone => {}
    }
}

/// North lines, along world x multiples of the spacing `n`: none closer than
/// a pixel, so at most one per pixel column (and as many tries where the
/// f64 steps stall, far out).
pub(super) fn north_lines(img: &mut MapImage, v: &View, n: f64) {
    let (wmin, wmax) = v.world();
    if n.is_finite() && n >= v.s {
        let mut x = (wmin.x / n).ceil() * n;
        for _ in 0..=v.width {
            if x.is_nan() || x >= wmax.x {
                break;
            }
            let px = v.to_px(DVec2::new(x, 0.0)).x.round();
            if (0.0..v.width as f64).contains(&px) {
                for py in (0..v.height as i64).filter(|py| py % 6 < 4) {
                    img.put(px as i64, py, colors::NORTH);
                }
            }
            x += n;
        }
    }
}

/// The player: a red ring with a heading tick.
pub(super) fn marker(img: &mut MapImage, v: &View, m: MapMarker) {
    let p = v.to_px(m.pos);
    let dir = DVec2::new(m.heading.sin(), -m.heading.cos());
    img.line(p, p + dir * 14.0, 2.0, colors::ME);
    img.disc(p.x, p.y, 5.0, colors::ME);
    img.disc(p.x, p.y, 2.5, [255, 255, 255]);
}

/// A scale bar in the bottom-left corner: a round length near 1/4 of the width.
pub(super) fn scale_bar(img: &mut MapImage, s: f64) {
    let target = img.width as f64 * s / 4.0;
    let round = [1.0, 2.0, 5.0]
        .iter()
        .flat_map(|m| (0..7).map(move |e| m * 10f64.powi(e)))
        .filter(|&v| v <= target)
        .fold(1.0, f64::max);
    let (x, y) = (12, img.height as i64 - 26);
    // At very fine scales even the shortest bar (1 m) would not fit: none.
    let len = (round / s).round();
    if len.is_nan() || len > (img.width as i64 - x) as f64 {
        return;
    }
    let len = len as i64;
    let label = if round >= 1000.0 {
        format!("{} km", round / 1000.0)
    } else {
        format!("{round} m")
    };
    img.rect(
        x - 6,
        y - 6,
        x + len.max(label.len() as i64 * 8) + 8,
        y + 20,
        [255, 255, 255],
    );
    img.rect(x, y + 10, x + len, y + 13, colors::BLACK);
    img.rect(x, y + 5, x + 2, y + 13, colors::BLACK);
    img.rect(x + len - 2, y + 5, x + len, y + 13, colors::BLACK);
    img.text(x, y - 4, &label, colors::BLACK);
}
