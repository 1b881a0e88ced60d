//! Orienteering-style maps of the terrain, in the seed's spirit: ISOM-like
//! colours by terrain kind, lakes, contours every 5 m with every fifth
//! thicker (marching squares on the height grid, one cell per pixel), roads,
//! streams, features as map symbols, buildings, north lines and a scale bar.
//! Pure Rust: the same renderer makes PNG files and the in-game overlay.

mod cities;
mod error;
mod font;
mod ground;
mod raster;
mod sketch;
mod symbols;
#[cfg(test)]
mod tests;

use crate::city::City;
use crate::network::RoadNetwork;
use crate::terrain::{Stream, Terrain};
use glam::DVec2;

pub use error::MapError;
pub use sketch::Sketch;

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
    /// Earthworks (embankments, cuttings, walls): pale grey-brown.
    pub const EARTHWORK: [u8; 3] = [215, 205, 190];
    /// Snow: very pale blue.
    pub const SNOW: [u8; 3] = [232, 242, 255];
    /// Contours and knolls: brown.
    pub const CONTOUR: [u8; 3] = [209, 92, 0];
    /// Roads, buildings, rocks, man-made objects: black.
    pub const BLACK: [u8; 3] = [20, 20, 20];
    /// Road fill.
    pub const ROAD_FILL: [u8; 3] = [250, 235, 200];
    /// Highway fill between its two black edges (ISOM 502, major road:
    /// brown 50 %, i.e. [`CONTOUR`] half mixed with white).
    pub const HIGHWAY_FILL: [u8; 3] = [232, 174, 128];
    /// City footprints: olive green, ISOM 520 ("area that shall not be
    /// entered"), the colour orienteering maps give built-up private
    /// ground. Chosen over the grey/brown town tint because it cannot be
    /// mistaken for open land, paths or [`TOWN`] ground, and the brown
    /// contours, black outline and buildings stay legible on it.
    pub const CITY: [u8; 3] = [178, 186, 92];
    /// North lines.
    pub const NORTH: [u8; 3] = [40, 90, 200];
    /// The player.
    pub const ME: [u8; 3] = [220, 20, 60];
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
    /// Cities whose footprints to draw as settlement (those off the map
    /// cost only their bounding box).
    pub cities: &'a [City],
    /// Building footprints (city buildings), drawn black like the
    /// terrain's own; those off the map cost only their bounding box.
    pub buildings: &'a [Vec<DVec2>],
}

/// Draws the map of `width × height` pixels centred on `centre`.
/// Errors for sizes beyond [`MAX_MAP_PIXELS`], a bad scale, contour
/// interval or centre.
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
) -> Result<MapImage, MapError> {
    let s = style.metres_per_pixel;
    if !(s.is_finite() && s > 0.0 && s <= 1000.0) {
        return Err(MapError::Scale(s));
    }
    MapError::check_size(width, height)?;
    let interval = style.contour_interval;
    if !(interval.is_finite() && interval > 0.0) {
        return Err(MapError::ContourInterval(interval));
    }
    if !centre.is_finite() {
        return Err(MapError::Centre(centre));
    }
    let mut img = MapImage::new(width, height);
    let v = View {
        x0: centre.x - width as f64 * s / 2.0,
        y0: centre.y + height as f64 * s / 2.0,
        s,
        width,
        height,
    };
    let shown = cities::visible(&v, layers.cities);
    let water = ground::kinds(&mut img, terrain, &v);
    cities::fill(&mut img, &v, &shown, &water);
    ground::contours(&mut img, terrain, &v, style.contour_interval, &water)?;
    ground::shores(&mut img, &v, &water);
    ground::buildings(&mut img, terrain, &v, &shown);
    cities::outline(&mut img, &v, &shown);
    cities::buildings(&mut img, &v, layers.buildings);
    symbols::streams(&mut img, &v, layers.streams);
    if let Some(net) = layers.roads {
        symbols::roads(&mut img, &v, net);
    }
    symbols::features(&mut img, terrain, &v);
    symbols::north_lines(&mut img, &v, style.north_lines);
    if let Some(m) = layers.marker {
        symbols::marker(&mut img, &v, m);
    }
    if style.scale_bar {
        symbols::scale_bar(&mut img, s);
    }
    Ok(img)
}

/// Where the map lies: the world position of its top-left corner, its
/// scale and size. Pixel `(px, py)` covers world x from `x0 + px·s` and
/// y down from `y0 − py·s` (y grows downwards on screen).
struct View {
    x0: f64,
    y0: f64,
    s: f64,
    width: usize,
    height: usize,
}

impl View {
    /// Pixel coordinates of a world point (pixel centres are whole).
    fn to_px(&self, p: DVec2) -> DVec2 {
        DVec2::new(
            (p.x - self.x0) / self.s - 0.5,
            (self.y0 - p.y) / self.s - 0.5,
        )
    }

    /// The world rectangle `(min, max)` the map covers.
    fn world(&self) -> (DVec2, DVec2) {
        (
            DVec2::new(self.x0, self.y0 - self.height as f64 * self.s),
            DVec2::new(self.x0 + self.width as f64 * self.s, self.y0),
        )
    }
}
