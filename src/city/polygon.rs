//! Polygon helpers for footprints: bounds, area, containment, box tests.

use glam::DVec2;

/// Signed area of a polygon (positive when counter-clockwise), measured
/// from its first vertex for precision far from the origin.
pub(crate) fn signed_area(poly: &[DVec2]) -> f64 {
    let Some(&o) = poly.first() else {
        return 0.0;
    };
    let n = poly.len();
    (0..n)
        .map(|i| (poly[i] - o).perp_dot(poly[(i + 1) % n] - o))
        .sum::<f64>()
        / 2.0
}

/// Even-odd point-in-polygon test (half-open in y, so a point is never
/// counted twice at a vertex).
pub(crate) fn polygon_contains(poly: &[DVec2], p: DVec2) -> bool {
    if poly.len() < 3 {
        return false;
    }
    let mut inside = false;
    let mut b = poly[poly.len() - 1];
    for &a in poly {
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) * (b.x - a.x) / (b.y - a.y);
            if p.x < x {
                inside = !inside;
            }
        }
        b = a;
    }
    inside
}

/// Whether segment `a–b` meets the closed box `[min, max]` (Liang–Barsky).
pub(crate) fn segment_meets_box(a: DVec2, b: DVec2, min: DVec2, max: DVec2) -> bool {
    crate::geom::segment_box_span(a, b, min, max).is_some()
}
