//! Convex hulls and the oriented bounding box of least area that picks the
//! lot cuts and measures a building's width.

use super::shape::{pred, succ};
use glam::DVec2;

/// The oriented bounding box of least area of a ring: the unit direction of
/// its long side, and its extents `(min, max)` along that direction and
/// along the perpendicular.
pub(super) fn obb(pts: &[DVec2]) -> (DVec2, (f64, f64), (f64, f64)) {
    let m = pts.len();
    let convex = (0..m).all(|i| {
        let (a, b, c) = (pts[pred(i, m)], pts[i], pts[succ(i, m)]);
        (b - a).perp_dot(c - b) >= 0.0
    });
    let owned;
    let hull = if convex {
        pts
    } else {
        owned = convex_hull(pts);
        &owned
    };
    let extent = |dir: DVec2| {
        (hull.iter()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &p| {
            (lo.min(dir.dot(p)), hi.max(dir.dot(p)))
        })
    };
    // Both extents in one pass (the same values as two).
    let extents = |dir: DVec2| {
        let n = dir.perp();
        let (mut u, mut v) = (
            (f64::INFINITY, f64::NEG_INFINITY),
            (f64::INFINITY, f64::NEG_INFINITY),
        );
        for &p in hull {
            let (a, b) = (dir.dot(p), n.dot(p));
            u = (u.0.min(a), u.1.max(a));
            v = (v.0.min(b), v.1.max(b));
        }
        (u, v)
    };
    let mut best = (f64::INFINITY, DVec2::X, None);
    for i in 0..hull.len() {
        let dir = (hull[succ(i, hull.len())] - hull[i]).normalize_or_zero();
        if dir == DVec2::ZERO {
            continue;
        }
        let (u, v) = extents(dir);
        let area = (u.1 - u.0) * (v.1 - v.0);
        if area < best.0 {
            best = (area, dir, Some((u, v)));
        }
    }
    let mut dir = best.1;
    let (mut u, mut v) = best.2.unwrap_or_else(|| extents(dir));
    if v.1 - v.0 > u.1 - u.0 {
        dir = dir.perp();
        (u, v) = (v, extent(dir.perp()));
    }
    (dir, u, v)
}

/// Convex hull (Andrew's monotone chain), counter-clockwise, no collinear
/// points.
pub(super) fn convex_hull(pts: &[DVec2]) -> Vec<DVec2> {
    let mut p: Vec<DVec2> = pts.to_vec();
    p.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    p.dedup();
    if p.len() < 3 {
        return p;
    }
    let mut hull: Vec<DVec2> = Vec::with_capacity(2 * p.len());
    for pass in 0..2 {
        let floor = hull.len();
        let it: Box<dyn Iterator<Item = &DVec2>> = if pass == 0 {
            Box::new(p.iter())
        } else {
            Box::new(p.iter().rev())
        };
        for &q in it {
            while hull.len() >= floor + 2 {
                let (a, b) = (hull[hull.len() - 2], hull[hull.len() - 1]);
                if (b - a).perp_dot(q - a) > 0.0 {
                    break;
                }
                hull.pop();
            }
            hull.push(q);
        }
        hull.pop();
    }
    hull
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn obb_of_a_rotated_rectangle() {
        let (c, s) = (0.6, 0.8);
        let rot = |x: f64, y: f64| (c * x - s * y, s * x + c * y);
        let r =
            [rot(0., 0.), rot(50., 0.), rot(50., 20.), rot(0., 20.)].map(|(x, y)| DVec2::new(x, y));
        let (dir, u, v) = obb(&r);
        assert!((dir.x.abs() - c).abs() < 1e-12 && (dir.y.abs() - s).abs() < 1e-12);
        assert!((u.1 - u.0 - 50.0).abs() < 1e-9 && (v.1 - v.0 - 20.0).abs() < 1e-9);
        assert_eq!(convex_hull(&r).len(), 4);
    }
}
