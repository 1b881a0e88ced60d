//! [`Sketch`]: a plain drawing of world geometry on a blank image — the
//! examples' pictures of cities, street levels, lots and fields — with the
//! map's clipped primitives, so any input costs at most the image's pixels
//! plus its own points.

use super::raster::Scanlines;
use super::{MapError, MapImage, Rgb, View};
use glam::DVec2;

/// A world rectangle drawn on an image, north up.
pub struct Sketch {
    img: MapImage,
    view: View,
    fill: Scanlines,
}

impl Sketch {
    /// A blank `background` image of `width` pixels showing `[min, max]`
    /// (the height follows the rectangle's shape).
    pub fn new(min: DVec2, max: DVec2, width: usize, background: Rgb) -> Result<Self, MapError> {
        let size = max - min;
        if !(min.is_finite() && size.is_finite() && size.x > 0.0 && size.y > 0.0) {
            return Err(MapError::SketchArea { min, max });
        }
        let s = size.x / width.max(1) as f64;
        let height = (size.y / s).ceil() as usize;
        MapError::check_size(width, height)?;
        let mut img = MapImage::new(width, height);
        for px in img.rgba.chunks_exact_mut(4) {
            px[..3].copy_from_slice(&background);
        }
        let view = View {
            x0: min.x,
            y0: max.y,
            s,
            width,
            height,
        };
        Ok(Self {
            fill: Scanlines::new(&view),
            img,
            view,
        })
    }

    /// Metres per pixel.
    pub fn scale(&self) -> f64 {
        self.view.s
    }

    /// Fills a polygon (even-odd rule).
    pub fn polygon(&mut self, poly: &[DVec2], c: Rgb) {
        self.fill
            .polygon(&mut self.img, &self.view, poly, c, |_| true);
    }

    /// A polyline `width` metres wide (at least one pixel).
    pub fn line(&mut self, points: &[DVec2], width: f64, c: Rgb) {
        let w = (width / self.view.s).max(1.0);
        for p in points.windows(2) {
            let (a, b) = (self.view.to_px(p[0]), self.view.to_px(p[1]));
            self.img.line(a, b, w, c);
        }
    }

    /// A closed polygon's outline, `px` pixels wide.
    pub fn outline(&mut self, poly: &[DVec2], px: f64, c: Rgb) {
        for (i, &a) in poly.iter().enumerate() {
            let b = poly[(i + 1) % poly.len()];
            self.img.line(self.view.to_px(a), self.view.to_px(b), px, c);
        }
    }

    /// A dot of `px` pixels radius.
    pub fn dot(&mut self, p: DVec2, px: f64, c: Rgb) {
        let q = self.view.to_px(p);
        self.img.disc(q.x, q.y, px, c);
    }

    /// A label at pixel `(x, y)` (top-left), in the map's font.
    pub fn text(&mut self, x: i64, y: i64, s: &str, c: Rgb) {
        self.img.text(x, y, s, c);
    }

    /// The image.
    pub fn image(&self) -> &MapImage {
        &self.img
    }

    /// The image as PNG bytes.
    pub fn to_png(&self) -> Result<Vec<u8>, MapError> {
        self.img.to_png()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_and_lines_land_where_the_world_says() {
        let mut s = Sketch::new(DVec2::ZERO, DVec2::new(100.0, 50.0), 200, [255; 3]).unwrap();
        assert_eq!(
            (s.image().width, s.image().height, s.scale()),
            (200, 100, 0.5)
        );
        let sq = [(10., 10.), (30., 10.), (30., 30.), (10., 30.)].map(|(x, y)| DVec2::new(x, y));
        s.polygon(&sq, [0, 0, 0]);
        s.line(
            &[DVec2::new(60.0, 25.0), DVec2::new(90.0, 25.0)],
            2.0,
            [255, 0, 0],
        );
        let at = |x: f64, y: f64| {
            let (px, py) = ((x / 0.5) as usize, ((50.0 - y) / 0.5) as usize);
            let i = (py * 200 + px) * 4;
            [
                s.image().rgba[i],
                s.image().rgba[i + 1],
                s.image().rgba[i + 2],
            ]
        };
        assert_eq!(at(20.0, 20.0), [0, 0, 0]);
        assert_eq!(at(40.0, 20.0), [255, 255, 255]);
        assert_eq!(at(75.0, 25.0), [255, 0, 0]);
        assert_eq!(at(75.0, 35.0), [255, 255, 255]);
        let nan = DVec2::new(f64::NAN, 1.0);
        assert!(matches!(
            Sketch::new(DVec2::ZERO, nan, 10, [0; 3]),
            Err(MapError::SketchArea { .. })
        ));
        assert!(matches!(
            Sketch::new(DVec2::ZERO, DVec2::new(1.0, 1e9), 10, [0; 3]),
            Err(MapError::Size { width: 10, .. })
        ));
    }
}
