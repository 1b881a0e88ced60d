//! Drawing primitives on a [`MapImage`]: pixels, discs, thick lines,
//! rectangles and the label font, each clipped to the image so the work is
//! bounded by its size wherever the shapes lie.

use super::{MapError, MapImage, Rgb, View, font};
use glam::DVec2;

impl MapImage {
    pub(super) fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            rgba: vec![255; width * height * 4],
        }
    }

    pub(super) fn put(&mut self, x: i64, y: i64, c: Rgb) {
        if x >= 0 && y >= 0 && (x as usize) < self.width && (y as usize) < self.height {
            let i = (y as usize * self.width + x as usize) * 4;
            self.rgba[i..i + 3].copy_from_slice(&c);
        }
    }

    /// The pixels within `r` of `(cx, cy)`; nothing unless the disc is finite
    /// and touches the image, and only the image's pixels are visited.
    pub(super) fn disc(&mut self, cx: f64, cy: f64, r: f64, c: Rgb) {
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
    pub(super) fn line(&mut self, a: DVec2, b: DVec2, width: f64, c: Rgb) {
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
    pub(super) fn rect(&mut self, x0: i64, y0: i64, x1: i64, y1: i64, c: Rgb) {
        let (w, h) = (self.width as i64, self.height as i64);
        for y in y0.max(0)..y1.min(h) {
            for x in x0.max(0)..x1.min(w) {
                self.put(x, y, c);
            }
        }
    }

    /// A label in the 3 × 5 font at twice its size, top-left at `(x, y)`.
    pub(super) fn text(&mut self, x: i64, y: i64, s: &str, c: Rgb) {
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

    /// The image as PNG bytes; refused when its size is not 1 ..=
    /// [`MAX_MAP_PIXELS`](super::MAX_MAP_PIXELS) pixels or `rgba` does not
    /// hold exactly its pixels.
    pub fn to_png(&self) -> Result<Vec<u8>, MapError> {
        MapError::check_size(self.width, self.height)?;
        // (Within the cap, neither the product nor a side overflows.)
        let expected = self.width * self.height * 4;
        if self.rgba.len() != expected {
            return Err(MapError::PixelData {
                expected,
                len: self.rgba.len(),
            });
        }
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width as u32, self.height as u32);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut w = enc.write_header()?;
        w.write_image_data(&self.rgba)?;
        w.finish()?;
        Ok(out)
    }
}

/// The part of the segment `a`–`b` inside the box `[lo, hi]`, or `None`
/// when it misses the box or is not finite. Ends inside the box are kept
/// exactly.
pub(super) fn clip_segment(a: DVec2, b: DVec2, lo: DVec2, hi: DVec2) -> Option<(DVec2, DVec2)> {
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
    // (The parameters are finite: `d` and the box are.)
    let (t0, t1) = crate::geom::segment_box_span(a, b, lo, hi)?;
    let at = |t: f64| match t {
        0.0 => a,
        1.0 => b,
        _ => a + d * t,
    };
    Some((at(t0), at(t1)))
}

/// Polygon filling by scanlines: each edge toggles the parity of the first
/// pixel right of where it crosses a row's centre line, then each row the
/// polygon spans is swept once; the work is the edges' rows within the map
/// plus the pixels of the rows a polygon spans. A pixel is inside when its
/// centre is (the even-odd rule).
pub(super) struct Scanlines {
    /// Row-major parity toggles, one column past the right edge.
    toggle: Vec<bool>,
}

impl Scanlines {
    pub(super) fn new(v: &View) -> Self {
        Self {
            toggle: vec![false; (v.width + 1) * v.height],
        }
    }

    /// Fills `poly` with `c` where `keep(pixel index)` holds.
    pub(super) fn polygon(
        &mut self,
        img: &mut MapImage,
        v: &View,
        poly: &[DVec2],
        c: Rgb,
        keep: impl Fn(usize) -> bool,
    ) {
        let (width, height, s) = (v.width, v.height, v.s);
        if poly.len() < 3 || !poly.iter().all(|p| p.is_finite()) {
            return;
        }
        let (lo, hi) = crate::geom::bounds(poly);
        let centre_y = |py: usize| v.y0 - (py as f64 + 0.5) * s;
        let centre_x = |px: usize| v.x0 + (px as f64 + 0.5) * s;
        // The rows the polygon spans (one more each side: exact tests follow).
        let row = |y: f64| ((v.y0 - y) / s - 0.5).clamp(-1.0, height as f64);
        let (r0, r1) = (
            (row(hi.y) - 1.0).max(0.0) as usize,
            ((row(lo.y) + 1.0).max(0.0) as usize).min(height),
        );
        let mut b = poly[poly.len() - 1];
        for &a in poly.iter() {
            let (e0, e1) = (
                (row(a.y.max(b.y)) - 1.0).max(0.0) as usize,
                ((row(a.y.min(b.y)) + 1.0).max(0.0) as usize).min(height),
            );
            for py in e0..e1 {
                let y = centre_y(py);
                if (a.y > y) == (b.y > y) {
                    continue;
                }
                let x = a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y);
                // The first pixel whose centre is not left of x.
                let mut col = ((x - v.x0) / s - 0.5).ceil().clamp(0.0, width as f64) as usize;
                for _ in 0..2 {
                    if col > 0 && centre_x(col - 1) >= x {
                        col -= 1;
                    } else if col < width && centre_x(col) < x {
                        col += 1;
                    }
                }
                let t = &mut self.toggle[py * (width + 1) + col];
                *t = !*t;
            }
            b = a;
        }
        // Sweep the rows, clearing the toggles for the next polygon.
        for py in r0..r1 {
            let mut inside = false;
            for px in 0..=width {
                let t = &mut self.toggle[py * (width + 1) + px];
                inside ^= *t;
                *t = false;
                if inside && px < width && keep(py * width + px) {
                    img.put(px as i64, py as i64, c);
                }
            }
        }
    }
}
