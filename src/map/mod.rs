//! Orienteering-style maps of the terrain, in the seed's spirit: ISOM-like
//! colours by terrain kind, lakes, contours every 5 m with every fifth
//! thicker (marching squares on the height grid, one cell per pixel), roads,
//! streams, features as map symbols, buildings, north lines and a scale bar.
//! Pure Rust: the same renderer makes PNG files and the in-game overlay.

mod font;

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
    /// Spacing of the north lines, metres (0 = none).
    pub north_lines: f64,
    /// Draw the scale bar.
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

    fn disc(&mut self, cx: f64, cy: f64, r: f64, c: Rgb) {
        let ri = r.ceil() as i64;
        for dy in -ri..=ri {
            for dx in -ri..=ri {
                let (x, y) = (cx.round() as i64 + dx, cy.round() as i64 + dy);
                if ((x as f64 - cx).powi(2) + (y as f64 - cy).powi(2)) <= r * r {
                    self.put(x, y, c);
                }
            }
        }
    }

    /// A line of the given width from `a` to `b` (pixel coordinates).
    fn line(&mut self, a: DVec2, b: DVec2, width: f64, c: Rgb) {
        let n = (a.distance(b).ceil() as usize * 2).max(1);
        for k in 0..=n {
            let p = a.lerp(b, k as f64 / n as f64);
            self.disc(p.x, p.y, width / 2.0, c);
        }
    }

    fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb) {
        for y in y0..y1 {
            for x in x0..x1 {
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
                            self.rect(
                                cx + rx * 2,
                                y + ry as i64 * 2,
                                cx + rx * 2 + 2,
                                y + ry as i64 * 2 + 2,
                                c,
                            );
                        }
                    }
                }
            }
            cx += 8;
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
            if (l0 as i64 + 1..=l1 as i64).any(|l| l.rem_euclid(5) == 0) {
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
    // Buildings: black squares.
    for b in terrain.buildings_in(wmin - 8.0, wmax + 8.0) {
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
    // Only at 1 m per pixel or finer, where every whole metre has its pixel.
    let (fx0, fx1) = (wmin.x.ceil() as i64, wmax.x.floor() as i64);
    let (fy0, fy1) = (wmin.y.ceil() as i64, wmax.y.floor() as i64);
    if s <= 1.0 {
        for y in fy0..=fy1 {
            for x in fx0..=fx1 {
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
    // North lines, along world x multiples of the spacing.
    if style.north_lines > 0.0 {
        let n = style.north_lines;
        let mut x = (wmin.x / n).ceil() * n;
        while x < wmax.x {
            let px = to_px(DVec2::new(x, 0.0)).x.round() as i64;
            for py in 0..height as i64 {
                if py % 6 < 4 {
                    img.put(px, py, colors::NORTH);
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
    let len = (round / s).round() as i64;
    let (x, y) = (12, img.height as i64 - 26);
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
