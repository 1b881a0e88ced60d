//! Orienteering-style maps of the terrain, in the seed's spirit: ISOM-like
//! colours by terrain kind, lakes, contours every 5 m with every fifth
//! thicker (marching squares on the height grid, one cell per pixel), roads,
//! streams, features as map symbols, buildings, north lines and a scale bar.
//! Pure Rust: the same renderer makes PNG files and the in-game overlay.

mod font;

use crate::num::WORLD_LIMIT_F64;
use crate::roads::{RoadClass, RoadNetwork};
use crate::terrain::{Feature, Stream, Terrain, TerrainKind};
use glam::DVec2;

/// What to draw, and how.
#[derive(Clone, Debug, PartialEq)]
pub struct MapStyle {
    /// Metres per pixel (1 = the seed's scale).
    pub metres_per_pixel: f64,
    /// Contour interval, metres (every fifth contour is thicker).
    pub contour_interval: f64,
    /// Spacing of the north lines, metres (0 = none; none either when they
    /// would be closer than a pixel, or not finite).
    pub north_lines: f64,
    /// Draw the scale bar (left out when even 1 m would not fit the image).
    pub scale_bar: bool,
}

impl Default for MapStyle {
    fn default() -> Self {
        Self {
            metres_per_pixel: 1.0,
            contour_interval: 5.0,
            north_lines: 250.0,
            scale_bar: true,
        }
    }
}

/// An RGBA8 image, rows from the top (north) down.
#[derive(Clone, Debug, PartialEq)]
pub struct MapImage {
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
    /// `width × height × 4` bytes, row-major from the top-left.
    pub rgba: Vec<u8>,
}

type Rgb = [u8; 3];

/// Map colours (after ISOM 2017).
pub mod colors {
    /// Open land: yellow.
    pub const GRASS: [u8; 3] = [255, 186, 53];
    /// Rough open land: light yellow-ochre.
    pub const MOOR: [u8; 3] = [255, 221, 154];
    /// Runnable forest: white.
    pub const WOOD: [u8; 3] = [255, 255, 255];
    /// Thicket (difficult to run): green.
    pub const THICKET: [u8; 3] = [139, 206, 121];
    /// Water: blue.
    pub const LAKE: [u8; 3] = [128, 203, 240];
    /// Shore line and streams: dark blue.
    pub const WATER_LINE: [u8; 3] = [0, 140, 215];
    /// Settlement: olive buff.
    pub const TOWN: [u8; 3] = [205, 200, 150];
    /// Mud: pale brown.
    pub const MUD: [u8; 3] = [222, 196, 150];
    /// Marsh: pale blue-green.
    pub const MARSH: [u8; 3] = [170, 220, 210];
    /// Snow: very pale blue.
    pub const SNOW: [u8; 3] = [232, 242, 255];
    /// Contours and knolls: brown.
    pub const CONTOUR: [u8; 3] = [209, 92, 0];
    /// Roads, buildings, rocks, man-made objects: black.
    pub const BLACK: [u8; 3] = [20, 20, 20];
    /// Road fill.
    pub const ROAD_FILL: [u8; 3] = [250, 235, 200];
    /// North lines.
    pub const NORTH: [u8; 3] = [40, 90, 200];
    /// The player.
    pub const ME: [u8; 3] = [220, 20, 60];
}

impl MapImage {
    fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            rgba: vec![255; width * height * 4],
        }
    }

    fn put(&mut self, x: i64, y: i64, c: Rgb) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let i = (y as usize * self.width + x as usize) * 4;
            self.rgba[i..i + 3].copy_from_slice(&c);
        }
    }

    /// The pixels within `r` of `(cx, cy)`; nothing unless the disc is finite
    /// and touches the image, and only the image's pixels are visited.
    fn disc(&mut self, cx: f64, cy: f64, r: f64, c: Rgb) {
        let (w, h) = (self.width as f64, self.height as f64);
        if !(r >= 0.0 && cx + r >= -1.0 && cy + r >= -1.0 && cx - r <= w && cy - r <= h) {
            return;
        }
        // The centre lies within r of the image: the loops visit only pixels.
        let ri = r.ceil() as i64;
        let (rx, ry) = (cx.round() as i64, cy.round() as i64);
        let (w, h) = (self.width as i64, self.height as i64);
        for y in ry.saturating_sub(ri).max(0)..=ry.saturating_add(ri).min(h - 1) {
            for x in rx.saturating_sub(ri).max(0)..=rx.saturating_add(ri).min(w - 1) {
                if ((x as f64 - cx).powi(2) + (y as f64 - cy).powi(2)) <= r * r {
                    self.put(x, y, c);
                }
            }
        }
    }

    /// A line of the given width from `a` to `b` (pixel coordinates),
    /// clipped to the image (grown by the half width): the work is bounded
    /// by the image's size, wherever the ends lie.
    fn line(&mut self, a: DVec2, b: DVec2, width: f64, c: Rgb) {
        let m = width / 2.0 + 1.0;
        let lo = DVec2::splat(-m);
        let hi = DVec2::new(self.width as f64, self.height as f64) + m;
        let Some((a, b)) = clip_segment(a, b, lo, hi) else {
            return;
        };
        let n = (a.distance(b).ceil() as usize * 2).max(1);
        for k in 0..=n {
            let p = a.lerp(b, k as f64 / n as f64);
            self.disc(p.x, p.y, width / 2.0, c);
        }
    }

    /// Fills `[x0, x1) × [y0, y1)`, clipped to the image.
    fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb) {
        let (w, h) = (self.width as i64, self.height as i64);
        for y in y0.max(0)..y1.min(h) {
            for x in x0.max(0)..x1.min(w) {
                self.put(x, y, c);
            }
        }
    }

    fn text(&mut self, x: i64, y: i64, s: &str, c: Rgb) {
        let mut cx = x;
        for ch in s.chars() {
            if let Some(rows) = font::glyph(ch) {
                for (ry, row) in rows.iter().enumerate() {
                    for rx in 0..3 {
                        if row & (4 >> rx) != 0 {
                            let (px, py) =
                                (cx.saturating_add(rx * 2), y.saturating_add(ry as i64 * 2));
                            self.rect(px, py, px.saturating_add(2), py.saturating_add(2), c);
                        }
                    }
                }
            }
            cx = cx.saturating_add(8);
        }
    }

    /// The image as PNG bytes.
    pub fn to_png(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header().map_err(|e| e.to_string())?;
        w.write_image_data(&self.rgba).map_err(|e| e.to_string())?;
        w.finish().map_err(|e| e.to_string())?;
        Ok(out)
    }
}

/// The part of the segment `a`–`b` inside the box `[lo, hi]`, or `None`
/// when it misses the box or is not finite. Ends inside the box are kept
/// exactly.
fn clip_segment(a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> Option<(DVec2, DVec2)> {
    if !(a.is_finite() && b.is_finite()) {
        return None;
    }
    if !(b - a).is_finite() {
        // Ends more than f64::MAX apart: clip each half (whose extent is finite).
        let m = a * 0.5 + b * 0.5;
        return match (clip_finite(a, m, lo, hi), clip_finite(m, b, lo, hi)) {
            (Some((p, _)), Some((_, q))) => Some((p, q)),
            (one, None) | (None, one) => one,
        };
    }
    clip_finite(a, b, lo, hi)
}

/// [`clip_segment`] for `b − a` finite (Liang–Barsky).
fn clip_finite(a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> Option<(DVec2, DVec2)> {
    let d = b - a;
    if !d.is_finite() {
        return None;
    }
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-d.x, a.x - lo.x),
        (d.x, hi.x - a.x),
        (-d.y, a.y - lo.y),
        (d.y, hi.y - a.y),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else if p < 0.0 {
            t0 = t0.max(q / p);
        } else {
            t1 = t1.min(q / p);
        }
    }
    // (Both are finite: `d` and the box are.)
    if t0 > t1 {
        return None;
    }
    let at = |t: f64| match t {
        0.0 => a,
        1.0 => b,
        _ => a + d * t,
    };
    Some((at(t0), at(t1)))
}

/// Side of a building's square footprint, metres (as the terrain's): the
/// map draws buildings at this many metres per pixel or finer.
const BUILDING_SIDE: f64 = 12.0;

/// Side of the tiles in which the map looks for buildings, metres: a tile's
/// lattice cells stay within [`crate::terrain::MAX_SCAN_AREA`].
const BUILDING_TILE: f64 = 8000.0;

/// Largest map in pixels (the renderer allocates a height grid as large).
pub const MAX_MAP_PIXELS: usize = 4096 * 4096;

/// The player's mark on the map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MapMarker {
    /// Where, in world coordinates.
    pub pos: DVec2,
    /// Heading, radians clockwise from north.
    pub heading: f64,
}

/// Everything a map shows besides the terrain itself.
#[derive(Clone, Copy, Debug, Default)]
pub struct MapLayers<'a> {
    /// Roads to draw.
    pub roads: Option<&'a RoadNetwork>,
    /// Streams to draw.
    pub streams: &'a [Stream],
    /// The player.
    pub marker: Option<MapMarker>,
}

/// Draws the map of `width × height` pixels centred on `centre`.
/// Errors for sizes beyond [`MAX_MAP_PIXELS`] or a bad scale.
///
/// The work is bounded by the pixel count (plus the layers' own points):
/// buildings are drawn up to 12 m per pixel (where one covers a pixel),
/// point features up to 1 m per pixel, north lines at least a pixel apart,
/// and every line, symbol and label is clipped to the image.
pub fn render_map(
    terrain: &Terrain,
    centre: DVec2,
    width: usize,
    height: usize,
    style: &MapStyle,
    layers: MapLayers<'_>,
) -> Result<MapImage, String> {
    let s = style.metres_per_pixel;
    if !(s.is_finite() && s > 0.0 && s <= 1000.0) {
        return Err(format!("metres_per_pixel: {s} is outside (0, 1000]"));
    }
    if width == 0 || height == 0 || width.saturating_mul(height) > MAX_MAP_PIXELS {
        return Err(format!(
            "map size {width} × {height} must be 1 ..= {MAX_MAP_PIXELS} pixels"
        ));
    }
    if !(centre.is_finite() && style.contour_interval.is_finite() && style.contour_interval > 0.0) {
        return Err("centre and contour_interval must be finite (interval > 0)".into());
    }
    let mut img = MapImage::new(width, height);
    // World position of pixel (px, py)'s centre; y grows downwards on screen.
    let x0 = centre.x - width as f64 * s / 2.0;
    let y0 = centre.y + height as f64 * s / 2.0;
    let to_px = |p: DVec2| DVec2::new((p.x - x0) / s - 0.5, (y0 - p.y) / s - 0.5);
    let lake = terrain.params().lake_level;

    // Kinds and snow, pixel by pixel.
    let mut water = vec![false; width * height];
    for py in 0..height {
        for px in 0..width {
            let (x, y) = (x0 + (px as f64 + 0.5) * s, y0 - (py as f64 + 0.5) * s);
            let t = terrain.terra(x, y);
            let c = match t.kind {
                TerrainKind::Lake | TerrainKind::Stream => colors::LAKE,
                TerrainKind::Grass => colors::GRASS,
                TerrainKind::Moor => colors::MOOR,
                TerrainKind::Wood => colors::WOOD,
                TerrainKind::Thicket => colors::THICKET,
                TerrainKind::Town => colors::TOWN,
                TerrainKind::Mud => colors::MUD,
                TerrainKind::Marsh => colors::MARSH,
                TerrainKind::Road | TerrainKind::Path => colors::ROAD_FILL,
            };
            water[py * width + px] = t.kind == TerrainKind::Lake;
            img.put(px as i64, py as i64, if t.snow { colors::SNOW } else { c });
        }
    }
    // Contours by marching squares: a pixel is on a contour when the heights
    // at its four corners straddle a level; every fifth level is thicker.
    let mut h = Vec::new();
    terrain
        .heights_grid(x0, y0 - height as f64 * s, s, width + 1, height + 1, &mut h)
        .map_err(|e| e.to_string())?;
    // heights_grid rows run south to north; pixel rows north to south.
    let corner = |px: usize, py: usize| h[(height - py) * (width + 1) + px];
    let iv = style.contour_interval;
    let mut index = Vec::new();
    for py in 0..height {
        for px in 0..width {
            let c = [
                corner(px, py),
                corner(px + 1, py),
                corner(px, py + 1),
                corner(px + 1, py + 1),
            ];
            let (lo, hi) = c
                .iter()
                .fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let (l0, l1) = ((lo / iv).floor(), (hi / iv).floor());
            if l0 == l1 || hi < lake || water[py * width + px] {
                continue;
            }
            img.put(px as i64, py as i64, colors::CONTOUR);
            // A level in l0+1 ..= l1 is a multiple of 5 (an index contour):
            // one comparison, however many levels a tiny interval puts here.
            if (l1 / 5.0).floor() > (l0 / 5.0).floor() {
                index.push((px as i64, py as i64));
            }
        }
    }
    for (px, py) in index {
        img.put(px + 1, py, colors::CONTOUR);
        img.put(px, py + 1, colors::CONTOUR);
    }
    // Shore lines.
    for py in 0..height {
        for px in 0..width {
            let w = water[py * width + px];
            let edge = (px + 1 < width && water[py * width + px + 1] != w)
                || (py + 1 < height && water[(py + 1) * width + px] != w);
            if edge {
                img.put(px as i64, py as i64, colors::WATER_LINE);
            }
        }
    }
    let (wmin, wmax) = (
        DVec2::new(x0, y0 - height as f64 * s),
        DVec2::new(x0 + width as f64 * s, y0),
    );
    // Buildings: black squares, where one covers at least a pixel. Scanned
    // in tiles that each stay within the buildings' scan limit: at most
    // MAX_MAP_PIXELS · BUILDING_SIDE² / 16² lattice points in all.
    if s <= BUILDING_SIDE {
        let (bmin, bmax) = (wmin - 8.0, wmax + 8.0);
        let tiles = ((bmax - bmin) / BUILDING_TILE)
            .ceil()
            .min(DVec2::splat(1e6));
        let tile_min = |tx: f64, ty: f64| (bmin + DVec2::new(tx, ty) * BUILDING_TILE).min(bmax);
        for ty in 0..tiles.y as usize {
            for tx in 0..tiles.x as usize {
                let (tx, ty) = (tx as f64, ty as f64);
                let Ok(found) =
                    terrain.try_buildings_in(tile_min(tx, ty), tile_min(tx + 1.0, ty + 1.0))
                else {
                    continue;
                };
                for b in found {
                    let (lo, hi) = b.footprint();
                    let (a, c) = (to_px(DVec2::new(lo.x, hi.y)), to_px(DVec2::new(hi.x, lo.y)));
                    img.rect(
                        a.x.round() as i64,
                        a.y.round() as i64,
                        c.x.round().max(a.x.round() + 1.0) as i64,
                        c.y.round().max(a.y.round() + 1.0) as i64,
                        colors::BLACK,
                    );
                }
            }
        }
    }
    // Streams.
    for st in layers.streams {
        for w in st.points.windows(2) {
            img.line(
                to_px(w[0]),
                to_px(w[1]),
                (2.0 / s).clamp(1.0, 2.0),
                colors::WATER_LINE,
            );
        }
    }
    // Roads: black casing, light fill (tracks: black only).
    if let Some(net) = layers.roads {
        for pass in 0..2 {
            for r in &net.roads {
                let w = (r.width / s).clamp(2.0, 8.0);
                for seg in r.points.windows(2) {
                    let (a, b) = (to_px(seg[0]), to_px(seg[1]));
                    match (pass, r.class) {
                        (0, _) => img.line(a, b, w + 1.5, colors::BLACK),
                        (1, RoadClass::Track) => {}
                        (1, _) => img.line(a, b, (w - 1.5).max(1.0), colors::ROAD_FILL),
                        _ => {}
                    }
                }
            }
        }
    }
    // Point features as map symbols (scanned on whole metres; cones are movable
    // and so not on the map).
    // Only at 1 m per pixel or finer, where every whole metre has its pixel,
    // and within the world limit, where whole metres are exact: at most
    // (width + 1) × (height + 1) points.
    let metres = |lo: f64, hi: f64| {
        let (a, b) = (
            lo.ceil().max(-WORLD_LIMIT_F64),
            hi.floor().min(WORLD_LIMIT_F64),
        );
        a as i64..=b as i64
    };
    if s <= 1.0 {
        for y in metres(wmin.y, wmax.y) {
            for x in metres(wmin.x, wmax.x) {
                if terrain.generated_feature(x, y).is_none() {
                    continue;
                }
                let Some(f) = terrain.terra(x as f64, y as f64).feature else {
                    continue;
                };
                let p = to_px(DVec2::new(x as f64, y as f64));
                symbol(&mut img, f, p);
            }
        }
    }
    // North lines, along world x multiples of the spacing: none closer than
    // a pixel, so at most one per pixel column (and as many tries where the
    // f64 steps stall, far out).
    let n = style.north_lines;
    if n.is_finite() && n >= s {
        let mut x = (wmin.x / n).ceil() * n;
        for _ in 0..=width {
            if x.is_nan() || x >= wmax.x {
                break;
            }
            let px = to_px(DVec2::new(x, 0.0)).x.round();
            if (0.0..width as f64).contains(&px) {
                for py in (0..height as i64).filter(|py| py % 6 < 4) {
                    img.put(px as i64, py, colors::NORTH);
                }
            }
            x += n;
        }
    }
    if let Some(m) = layers.marker {
        let p = to_px(m.pos);
        let dir = DVec2::new(m.heading.sin(), -m.heading.cos());
        img.line(p, p + dir * 14.0, 2.0, colors::ME);
        img.disc(p.x, p.y, 5.0, colors::ME);
        img.disc(p.x, p.y, 2.5, [255, 255, 255]);
    }
    if style.scale_bar {
        scale_bar(&mut img, s);
    }
    Ok(img)
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

/// A scale bar in the bottom-left corner: a round length near 1/4 of the width.
fn scale_bar(img: &mut MapImage, s: f64) {
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

#[cfg(test)]
mod tests {
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
        assert!(render_map(&t, DVec2::ZERO, 10, 10, &bad, MapLayers::default()).is_err());
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
            assert!(r.unwrap_err().contains("map size"), "{w} {h}");
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
}

#[cfg(test)]
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
    pub(super) fn golden_hash(centre: DVec2, scale: f64) -> u64 {
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
        };
        let img = render_map(&t, centre, 400, 300, &style, layers).unwrap();
        fnv(&img.rgba)
    }

    #[test]
    fn fixed_maps_render_bit_for_bit_as_before() {
        let a = golden_hash(DVec2::new(19000.0, 1260.0), 1.0);
        let b = golden_hash(DVec2::new(9852.0, 4800.0), 3.0);
        assert_eq!(a, 0x8b56_c164_8f86_3c74, "{a:#018x}");
        assert_eq!(b, 0xe6e3_2e03_d700_faa1, "{b:#018x}");
    }
}
