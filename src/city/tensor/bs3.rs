//! The adaptive tracer's integration step: an embedded Bogacki–Shampine
//! 3(2) pair on the eigen-field, and the pieces a step is cut into along
//! its curve (see [`adaptive`](super::adaptive)).

use super::field::SampledField;
use super::trace::{Place, first_sample, sample};
use glam::DVec2;

/// A step is at most this many filing intervals long (in time; see
/// [`longest_step`]).
pub(super) const STRIDE: f64 = 8.0;

/// The longest step for filing interval `filing`: [`STRIDE`] intervals, a
/// little less, so that a straight step's pieces fit them.
pub(super) fn longest_step(filing: f64) -> f64 {
    filing * STRIDE * 0.999
}

/// A piece is at most this many times as long as its time (else the step
/// is cut along its chord, never longer than its time), so that what is
/// near in time along a line is near in space.
pub(super) const STRETCH: f64 = 1.01;

/// Most pieces a step is cut into: room for a piece more than [`STRIDE`]
/// where its curve is a little longer than its time, and enough that
/// pieces along its chord always fit.
pub(super) const MAX_PIECES: usize = 2 * STRIDE as usize;

/// One Bogacki–Shampine step of size `h` from `p` (at `place`), continuing
/// `prev`.
#[inline(always)]
pub(super) fn bs3<const MINOR: bool>(
    field: &SampledField,
    place: &Place,
    p: DVec2,
    prev: DVec2,
    h: f64,
) -> Option<Bs3> {
    let (k1, s) = first_sample::<MINOR>(place, prev)?;
    let c = (h * field.inv_cell()) as f32;
    let by = |k: [f32; 2], f: f32| [k[0] * f, k[1] * f];
    let k2 = sample::<MINOR, true>(field, place, p, by(k1, 0.5 * c), s, k1);
    let k3 = sample::<MINOR, true>(field, place, p, by(k2, 0.75 * c), s, k1);
    let y = |i: usize| (2.0 / 9.0) * k1[i] + (1.0 / 3.0) * k2[i] + (4.0 / 9.0) * k3[i];
    let y = [y(0), y(1)];
    let k4 = sample::<MINOR, true>(field, place, p, by(y, c), s, k1);
    let e = |i: usize| {
        (-5.0 / 72.0) * k1[i] + (1.0 / 12.0) * k2[i] + (1.0 / 9.0) * k3[i] - 0.125 * k4[i]
    };
    let (ex, ey) = (e(0), e(1));
    let err = ((ex * ex + ey * ey) as f64).sqrt() * h;
    let v = |k: [f32; 2]| DVec2::new(k[0] as f64, k[1] as f64);
    Some(Bs3 {
        d: v(y) * h,
        err,
        h,
        k1: v(k1),
        k4: v(k4),
    })
}

/// A [`bs3`] step: its third-order displacement `d` over time `h`, the norm
/// of its difference to the second-order one (metres; NaN where a sample is
/// degenerate), and the directions at its ends (`k4`: at `p + d`), for the
/// points along it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bs3 {
    pub d: DVec2,
    pub err: f64,
    pub h: f64,
    pub k1: DVec2,
    pub k4: DVec2,
}

impl Bs3 {
    /// Where the step is at `θ` ∈ [0, 1] of its time, from its start: the
    /// cubic Hermite curve through both ends with their directions (the
    /// pair's own third-order interpolant).
    #[inline(always)]
    pub(super) fn at(&self, th: f64) -> DVec2 {
        let (t2, t3) = (th * th, th * th * th);
        let h01 = 3.0 * t2 - 2.0 * t3;
        let h10 = t3 - 2.0 * t2 + th;
        let h11 = t3 - t2;
        self.d * h01 + (self.k1 * h10 + self.k4 * h11) * self.h
    }
}

/// Fills `ends` with the ends of `step`'s pieces from `start`: of equal
/// time, as few as keep each at most `most` long and at most [`STRETCH`]
/// times its time (its curve may be a little longer than its time), else
/// [`MAX_PIECES`] along its chord; how many, and the longest's length.
pub(super) fn pieces(
    step: &Bs3,
    start: DVec2,
    most: f64,
    ends: &mut [DVec2; MAX_PIECES],
) -> (usize, f64) {
    let first = (step.h / most).ceil().clamp(1.0, MAX_PIECES as f64) as usize;
    for n in first..=MAX_PIECES {
        let mut from = start;
        let mut longest = 0.0f64;
        for (j, end) in ends[..n].iter_mut().enumerate() {
            *end = if j + 1 == n {
                start + step.d
            } else {
                start + step.at((j + 1) as f64 / n as f64)
            };
            // (NaN fails.)
            longest = longest.max(end.distance_squared(from));
            from = *end;
        }
        let dt = step.h / n as f64 * STRETCH;
        if longest <= most * most && longest <= dt * dt {
            return (n, longest.sqrt());
        }
    }
    for (j, end) in ends.iter_mut().enumerate() {
        *end = start + step.d * ((j + 1) as f64 / MAX_PIECES as f64);
    }
    (MAX_PIECES, step.d.length() / MAX_PIECES as f64)
}
