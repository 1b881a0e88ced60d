//! Plane geometry shared by the road generators (f64, core coordinates).

use glam::DVec2;

/// Where segments `a0–a1` and `b0–b1` meet: `(t, u)` with the point at
/// `a0 + t·(a1 − a0) = b0 + u·(b1 − b0)`, both in `[0, 1]`. Parallel
/// segments give `None` (collinear overlaps are not reported).
pub fn segment_intersection(a0: DVec2, a1: DVec2, b0: DVec2, b1: DVec2) -> Option<(f64, f64)> {
    let r = a1 - a0;
    let s = b1 - b0;
    let denom = r.perp_dot(s);
    if denom == 0.0 || !denom.is_finite() {
        return None;
    }
    let d = b0 - a0;
    let t = d.perp_dot(s) / denom;
    let u = d.perp_dot(r) / denom;
    ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then_some((t, u))
}

/// The point of segment `a–b` nearest to `p`, and its parameter in `[0, 1]`.
pub fn closest_on_segment(p: DVec2, a: DVec2, b: DVec2) -> (DVec2, f64) {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + ab * t, t)
}

/// Distance from `p` to segment `a–b`.
pub fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    closest_on_segment(p, a, b).0.distance(p)
}

/// Integer cells of size `cell` that the box around segment `a–b` (grown by
/// `pad`) overlaps.
pub fn cells_of_segment(
    a: DVec2,
    b: DVec2,
    cell: f64,
    pad: f64,
) -> impl Iterator<Item = (i64, i64)> {
    let lo = (a.min(b) - pad) / cell;
    let hi = (a.max(b) + pad) / cell;
    let (x0, y0, x1, y1) = (
        lo.x.floor() as i64,
        lo.y.floor() as i64,
        hi.x.floor() as i64,
        hi.y.floor() as i64,
    );
    (y0..=y1).flat_map(move |y| (x0..=x1).map(move |x| (x, y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intersections() {
        let (t, u) = segment_intersection(
            DVec2::ZERO,
            DVec2::new(10.0, 0.0),
            DVec2::new(5.0, -5.0),
            DVec2::new(5.0, 5.0),
        )
        .unwrap();
        assert_eq!((t, u), (0.5, 0.5));
        // Touching at an end counts.
        assert!(
            segment_intersection(DVec2::ZERO, DVec2::X, DVec2::X, DVec2::new(1.0, 1.0)).is_some()
        );
        assert!(
            segment_intersection(
                DVec2::ZERO,
                DVec2::X,
                DVec2::new(2.0, -1.0),
                DVec2::new(2.0, 1.0)
            )
            .is_none()
        );
        assert!(
            segment_intersection(DVec2::ZERO, DVec2::X, DVec2::Y, DVec2::new(1.0, 1.0)).is_none()
        );
    }

    #[test]
    fn closest_points_and_cells() {
        let (p, t) = closest_on_segment(DVec2::new(3.0, 4.0), DVec2::ZERO, DVec2::new(10.0, 0.0));
        assert_eq!((p, t), (DVec2::new(3.0, 0.0), 0.3));
        assert_eq!(
            distance_to_segment(DVec2::new(-3.0, 4.0), DVec2::ZERO, DVec2::X),
            5.0
        );
        let cells: Vec<_> =
            cells_of_segment(DVec2::new(1.0, 1.0), DVec2::new(25.0, 3.0), 20.0, 0.0).collect();
        assert_eq!(cells, vec![(0, 0), (1, 0)]);
    }
}
