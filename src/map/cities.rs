//! City footprints: the settlement fill under the roads and a thin black
//! outline, both clipped to the map.

use super::{MapImage, View, colors};
use crate::city::City;
use glam::DVec2;

/// The cities worth drawing: a footprint of three or more finite points,
/// of finite extent, whose bounding box meets the map (grown by a pixel for
/// the outline). Far-away cities cost only their bounding box.
pub(super) fn visible<'a>(v: &View, cities: &'a [City]) -> Vec<Shown<'a>> {
    let (wmin, wmax) = v.world();
    let (wmin, wmax) = (wmin - v.s, wmax + v.s);
    cities
        .iter()
        .map(|c| {
            let (lo, hi) = c.bounds();
            Shown { city: c, lo, hi }
        })
        .filter(|c| {
            c.city.boundary.len() >= 3
                && c.city.boundary.iter().all(|p| p.is_finite())
                && (c.hi - c.lo).is_finite()
                && c.hi.cmpge(wmin).all()
                && c.lo.cmple(wmax).all()
        })
        .collect()
}

/// A city on the map, with its footprint's bounding box.
pub(super) struct Shown<'a> {
    city: &'a City,
    lo: DVec2,
    hi: DVec2,
}

/// Fills every non-lake pixel whose centre lies inside a footprint (the
/// even-odd rule of [`City::contains`], with its very arithmetic) with
/// [`colors::CITY`]. Scanline fill: each edge toggles the parity of the
/// first pixel right of where it crosses a row, then each row is swept
/// once; the work is the edges' rows within the map plus the pixels of
/// the rows a city spans.
pub(super) fn fill(img: &mut MapImage, v: &View, cities: &[Shown<'_>], water: &[bool]) {
    let (width, height, s) = (v.width, v.height, v.s);
    let centre_y = |py: usize| v.y0 - (py as f64 + 0.5) * s;
    let centre_x = |px: usize| v.x0 + (px as f64 + 0.5) * s;
    // Row-major parity toggles, one column past the right edge.
    let mut toggle = vec![false; (width + 1) * height];
    for &Shown { city, lo, hi } in cities {
        let poly = &city.boundary;
        // The rows the city spans (one more each side: exact tests follow).
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
                let mut c = ((x - v.x0) / s - 0.5).ceil().clamp(0.0, width as f64) as usize;
                for _ in 0..2 {
                    if c > 0 && centre_x(c - 1) >= x {
                        c -= 1;
                    } else if c < width && centre_x(c) < x {
                        c += 1;
                    }
                }
                let t = &mut toggle[py * (width + 1) + c];
                *t = !*t;
            }
            b = a;
        }
        // Sweep the rows, clearing the toggles for the next city.
        for py in r0..r1 {
            let mut inside = false;
            for px in 0..=width {
                let t = &mut toggle[py * (width + 1) + px];
                inside ^= *t;
                *t = false;
                if inside && px < width && !water[py * width + px] {
                    img.put(px as i64, py as i64, colors::CITY);
                }
            }
        }
    }
}

/// The footprints' outlines: thin black lines.
pub(super) fn outline(img: &mut MapImage, v: &View, cities: &[Shown<'_>]) {
    for c in cities {
        let poly = &c.city.boundary;
        let mut b = poly[poly.len() - 1];
        for &a in poly.iter() {
            img.line(v.to_px(b), v.to_px(a), 1.0, colors::BLACK);
            b = a;
        }
    }
}

/// Whether `p` lies in one of the footprints.
pub(super) fn covers(cities: &[Shown<'_>], p: DVec2) -> bool {
    cities
        .iter()
        .any(|c| p.cmpge(c.lo).all() && p.cmple(c.hi).all() && c.city.contains(p))
}
