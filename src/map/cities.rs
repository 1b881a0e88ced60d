//! City footprints: the settlement fill under the roads and a thin black
//! outline, both clipped to the map.

use super::raster::Scanlines;
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
/// [`colors::CITY`] (see [`Scanlines`]).
pub(super) fn fill(img: &mut MapImage, v: &View, cities: &[Shown<'_>], water: &[bool]) {
    let mut fill = Scanlines::new(v);
    for c in cities {
        fill.polygon(img, v, &c.city.boundary, colors::CITY, |i| !water[i]);
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

/// City buildings: black footprints (ISOM 521), at least a pixel each.
pub(super) fn buildings(img: &mut MapImage, v: &View, buildings: &[Vec<DVec2>]) {
    let (wmin, wmax) = v.world();
    let mut fill = Scanlines::new(v);
    for b in buildings {
        let (lo, hi) = crate::geom::bounds(b);
        if b.len() < 3 || hi.cmplt(wmin).any() || lo.cmpgt(wmax).any() {
            continue;
        }
        if (hi - lo).max_element() < 2.0 * v.s {
            // Smaller than two pixels: a dot.
            let c = v.to_px((lo + hi) / 2.0);
            img.put(c.x.round() as i64, c.y.round() as i64, colors::BLACK);
        } else {
            fill.polygon(img, v, b, colors::BLACK, |_| true);
        }
    }
}

/// Whether `p` lies in one of the footprints.
pub(super) fn covers(cities: &[Shown<'_>], p: DVec2) -> bool {
    cities
        .iter()
        .any(|c| p.cmpge(c.lo).all() && p.cmple(c.hi).all() && c.city.contains(p))
}
