//! Post-process smoothing (thesis §6.6): a cardinal spline through the
//! road's points, drawn per segment as a cubic Bézier curve whose two inner
//! control points come from the neighbours' tangents.

use super::{ParamError, PlanError};
use glam::DVec2;

/// The cardinal spline through `points` with `tension` (0 Catmull-Rom,
/// 1 straight segments), `per_segment` points per segment. The first and
/// last points are `points`' own, exactly, as are all the input points.
///
/// Checked as [`super::PlannerParams`] checks the same fields: `tension`
/// in `0..=1` (finite), `per_segment` in `1..=64`; and every point finite
/// ([`PlanError::PathPoint`]).
pub fn cardinal_spline(
    points: &[DVec2],
    tension: f64,
    per_segment: usize,
) -> Result<Vec<DVec2>, PlanError> {
    ParamError::check_range("tension", tension, 0.0, 1.0)?;
    ParamError::check_range("spline_points", per_segment as f64, 1.0, 64.0)?;
    if let Some(k) = points.iter().position(|p| !p.is_finite()) {
        return Err(PlanError::PathPoint(k));
    }
    Ok(spline(points, tension, per_segment))
}

/// [`cardinal_spline`] unchecked (valid parameters, finite points).
pub(crate) fn spline(points: &[DVec2], tension: f64, per: usize) -> Vec<DVec2> {
    let n = points.len();
    if n < 3 {
        return points.to_vec();
    }
    let scale = (1.0 - tension) * 0.5;
    // Tangents: central differences inside, one-sided at the ends.
    let tangent = |i: usize| {
        let a = points[i.saturating_sub(1)];
        let b = points[(i + 1).min(n - 1)];
        (b - a) * scale
    };
    let mut out = Vec::with_capacity((n - 1) * per + 1);
    out.push(points[0]);
    for i in 0..n - 1 {
        let (p0, p3) = (points[i], points[i + 1]);
        // The two virtual points of the Bézier segment.
        let p1 = p0 + tangent(i) / 3.0;
        let p2 = p3 - tangent(i + 1) / 3.0;
        for k in 1..per {
            let t = k as f64 / per as f64;
            let s = 1.0 - t;
            out.push(
                p0 * (s * s * s)
                    + p1 * (3.0 * s * s * t)
                    + p2 * (3.0 * s * t * t)
                    + p3 * (t * t * t),
            );
        }
        out.push(p3);
    }
    out
}
