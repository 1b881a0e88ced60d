//! [`BasisField`]: one editable piece of a tensor field — a grid, a radial
//! pattern, a polyline (shore, river, road) or the terrain's slope — with a
//! centre, a size and a decay, as plain serialisable data.
//!
//! A tensor is stored as `(m·cos 2θ, m·sin 2θ)`: `θ` is the angle of the
//! major eigenvector, `m ≥ 0` its strength. The minor eigenvector is the
//! major one turned a quarter left.

use crate::terrain::{ParamError, Terrain};
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Most points in a polyline basis field.
pub const MAX_POLYLINE_POINTS: usize = 2_000;
/// Most gradient samples in a heightmap basis field.
pub const MAX_HEIGHTMAP_SAMPLES: usize = 4_000_000;

/// What a [`BasisField`] looks like near its centre.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub enum BasisKind {
    /// Straight streets: the major eigenvector at angle `theta` (radians,
    /// counter-clockwise from east), the minor one across it.
    Grid {
        /// Angle of the major direction.
        theta: f64,
    },
    /// Major streets point at the centre, minor ones circle it.
    Radial,
    /// Major streets run towards the line, minor ones along it. Weights
    /// fall with the distance from the line, not from the centre.
    Polyline {
        /// The line's points, relative to the field's centre (so moving
        /// the centre moves the line).
        points: Vec<DVec2>,
    },
    /// The terrain's slope: major streets along the gradient, minor ones
    /// along the contours. Gradients are sampled once, on a grid.
    Heightmap(GradientGrid),
}

/// Height gradients sampled on a grid: a heightmap basis field's data.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct GradientGrid {
    /// World position of sample `(0, 0)`.
    pub origin: DVec2,
    /// Spacing of the samples.
    pub cell: f64,
    /// Samples per row.
    pub nx: u32,
    /// Rows.
    pub ny: u32,
    /// Height gradients (rise per metre), row by row from `origin`.
    pub gradients: Vec<DVec2>,
    /// The slope at which the field pulls at full strength; gentler ground
    /// pulls in proportion, flat ground not at all.
    pub full_slope: f64,
}

impl GradientGrid {
    /// Checks the numbers; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        check("origin", self.origin.length(), 0.0, 1.0e12)?;
        check("cell", self.cell, 0.1, 1.0e5)?;
        check("full_slope", self.full_slope, 1.0e-6, 1.0e3)?;
        let max = MAX_HEIGHTMAP_SAMPLES as f64;
        check("nx", self.nx as f64, 2.0, max)?;
        check("ny", self.ny as f64, 2.0, max)?;
        let n = self.nx as f64 * self.ny as f64;
        check("gradients", self.gradients.len() as f64, n, n)?;
        for (i, g) in self.gradients.iter().enumerate() {
            check("", g.length(), 0.0, 1.0e6).map_err(|e| e.at("gradients", i))?;
        }
        Ok(())
    }

    /// The interpolated gradient at `p`; `None` outside the grid.
    fn at(&self, p: DVec2) -> Option<DVec2> {
        let (nx, ny) = (self.nx as usize, self.ny as usize);
        let f = (p - self.origin) / self.cell;
        if !(f.x >= 0.0 && f.y >= 0.0 && f.x <= (nx - 1) as f64 && f.y <= (ny - 1) as f64) {
            return None;
        }
        let (i, j) = ((f.x as usize).min(nx - 2), (f.y as usize).min(ny - 2));
        let (tx, ty) = (f.x - i as f64, f.y - j as f64);
        let (v, k) = (&self.gradients, j * nx + i);
        let top = v[k].lerp(v[k + 1], tx);
        let bottom = v[k + nx].lerp(v[k + nx + 1], tx);
        Some(top.lerp(bottom, ty))
    }
}

/// One weighted piece of a [`TensorField`](super::TensorField): its tensor
/// at a point counts with weight `max(0, 1 − d/size)^decay`, `d` the
/// distance from the centre (from the line, for a polyline).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct BasisField {
    /// The pattern.
    pub kind: BasisKind,
    /// Where it is centred (world metres).
    pub centre: DVec2,
    /// Reach: the weight is zero from this distance on.
    pub size: f64,
    /// How fast the weight falls (0: flat, 1: linear, higher: sharper).
    pub decay: f64,
}

/// The unit tensor whose major eigenvector points along `d` (zero for a
/// zero vector), without trigonometry.
#[inline]
pub(crate) fn tensor_along(d: DVec2) -> DVec2 {
    let l2 = d.length_squared();
    if l2 > 0.0 {
        DVec2::new(d.x * d.x - d.y * d.y, 2.0 * d.x * d.y) / l2
    } else {
        DVec2::ZERO
    }
}

impl BasisField {
    /// A grid around `centre`, major direction at angle `theta`.
    pub fn grid(centre: DVec2, size: f64, decay: f64, theta: f64) -> Self {
        Self {
            kind: BasisKind::Grid { theta },
            centre,
            size,
            decay,
        }
    }

    /// A radial pattern around `centre`.
    pub fn radial(centre: DVec2, size: f64, decay: f64) -> Self {
        Self {
            kind: BasisKind::Radial,
            centre,
            size,
            decay,
        }
    }

    /// A polyline (world points); its centre is their mean.
    pub fn polyline(points: Vec<DVec2>, size: f64, decay: f64) -> Self {
        let centre = if points.is_empty() {
            DVec2::ZERO
        } else {
            points.iter().sum::<DVec2>() / points.len() as f64
        };
        Self {
            kind: BasisKind::Polyline {
                points: points.into_iter().map(|p| p - centre).collect(),
            },
            centre,
            size,
            decay,
        }
    }

    /// The terrain's slope over `[min, max]`, gradients sampled every
    /// `cell` metres (central differences over one cell), full strength
    /// from `full_slope` on. Centred on the rectangle with a flat weight
    /// (decay 0) reaching past its corners.
    pub fn heightmap(
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
        cell: f64,
        full_slope: f64,
    ) -> Result<Self, ParamError> {
        let check = ParamError::check_range;
        check("heightmap.cell", cell, 0.1, 1.0e5)?;
        check("heightmap.full_slope", full_slope, 1.0e-6, 1.0e3)?;
        for (name, v) in [("heightmap.min", min), ("heightmap.max", max)] {
            check(name, v.x, -1.0e12, 1.0e12)?;
            check(name, v.y, -1.0e12, 1.0e12)?;
        }
        let span = max - min;
        check("heightmap.max.x", span.x, 0.0, 1.0e9)?;
        check("heightmap.max.y", span.y, 0.0, 1.0e9)?;
        let (nx, ny) = (span.x / cell + 2.0, span.y / cell + 2.0);
        check("heightmap.cell", nx * ny, 1.0, MAX_HEIGHTMAP_SAMPLES as f64)?;
        let (nx, ny) = (nx as u32, ny as u32);
        let h = cell / 2.0;
        let mut gradients = Vec::with_capacity((nx * ny) as usize);
        for j in 0..ny {
            for i in 0..nx {
                let p = min + DVec2::new(i as f64, j as f64) * cell;
                let dx = terrain.height(p.x + h, p.y) - terrain.height(p.x - h, p.y);
                let dy = terrain.height(p.x, p.y + h) - terrain.height(p.x, p.y - h);
                let g = DVec2::new(dx, dy) / cell;
                gradients.push(if g.is_finite() { g } else { DVec2::ZERO });
            }
        }
        Ok(Self {
            kind: BasisKind::Heightmap(GradientGrid {
                origin: min,
                cell,
                nx,
                ny,
                gradients,
                full_slope,
            }),
            centre: (min + max) / 2.0,
            size: span.length().max(cell),
            decay: 0.0,
        })
    }

    /// Checks the numbers; the error names the first offending one.
    pub fn validate(&self) -> Result<(), ParamError> {
        let check = ParamError::check_range;
        check("centre.x", self.centre.x, -1.0e12, 1.0e12)?;
        check("centre.y", self.centre.y, -1.0e12, 1.0e12)?;
        check("size", self.size, 1.0e-6, 1.0e9)?;
        check("decay", self.decay, 0.0, 100.0)?;
        match &self.kind {
            BasisKind::Grid { theta } => check("kind.theta", *theta, -1.0e6, 1.0e6),
            BasisKind::Radial => Ok(()),
            BasisKind::Polyline { points } => {
                check(
                    "kind.points",
                    points.len() as f64,
                    2.0,
                    MAX_POLYLINE_POINTS as f64,
                )?;
                for (i, p) in points.iter().enumerate() {
                    check("", p.length(), 0.0, 1.0e9).map_err(|e| e.at("kind.points", i))?;
                }
                Ok(())
            }
            BasisKind::Heightmap(grid) => grid.validate().map_err(|e| e.within("kind.0")),
        }
    }

    /// The field ready for repeated sampling (constants worked out once).
    pub(crate) fn prepare(&self) -> Prepared<'_> {
        let grid = match self.kind {
            BasisKind::Grid { theta } => DVec2::new((2.0 * theta).cos(), (2.0 * theta).sin()),
            _ => DVec2::ZERO,
        };
        let int_decay =
            (self.decay.fract() == 0.0 && self.decay <= 64.0).then_some(self.decay as i32);
        // Where a polyline's weight can be non-zero: its box grown by `size`.
        let reach = match &self.kind {
            BasisKind::Polyline { points } => {
                let (lo, hi) = crate::geom::bounds(points);
                (lo + self.centre - self.size, hi + self.centre + self.size)
            }
            _ => (DVec2::NEG_INFINITY, DVec2::INFINITY),
        };
        Prepared {
            field: self,
            grid,
            inv_size: 1.0 / self.size,
            int_decay,
            reach,
        }
    }
}

/// A [`BasisField`] with its constants worked out, for sampling.
pub(crate) struct Prepared<'a> {
    field: &'a BasisField,
    /// The grid's tensor.
    grid: DVec2,
    inv_size: f64,
    /// The decay, when it is a small whole number (`powi` is cheaper).
    int_decay: Option<i32>,
    /// Outside this box the weight is zero.
    reach: (DVec2, DVec2),
}

impl Prepared<'_> {
    /// The basis weight at distance `d`.
    #[inline]
    fn weight_at(&self, d: f64) -> f64 {
        if d.is_nan() || d >= self.field.size {
            return 0.0;
        }
        let base = 1.0 - d * self.inv_size;
        match self.int_decay {
            Some(k) => {
                // Square-and-multiply (inline, unlike `powi`).
                let (mut r, mut b, mut e) = (1.0, base, k);
                while e > 0 {
                    if e & 1 == 1 {
                        r *= b;
                    }
                    b *= b;
                    e >>= 1;
                }
                r
            }
            None => base.powf(self.field.decay),
        }
    }

    /// The corners `x0 + i·step` (`i < n`) of row `y` that the field may
    /// reach (more, not fewer: outside them its weight is zero).
    pub(crate) fn row_reach(&self, x0: f64, step: f64, y: f64, n: usize) -> Range<usize> {
        let f = self.field;
        let (lo, hi) = match f.kind {
            BasisKind::Polyline { .. } => {
                let (lo, hi) = self.reach;
                if !(lo.y..=hi.y).contains(&y) {
                    return 0..0;
                }
                (lo.x, hi.x)
            }
            _ => {
                let dy = y - f.centre.y;
                // (NaN reaches nothing.)
                if dy.abs().partial_cmp(&f.size) != Some(std::cmp::Ordering::Less) {
                    return 0..0;
                }
                let half = (f.size * f.size - dy * dy).sqrt();
                (f.centre.x - half, f.centre.x + half)
            }
        };
        // A corner beyond each end (rounding).
        let i = |x: f64| ((x - x0) / step).clamp(-1.0, n as f64 + 1.0);
        let (a, b) = (
            (i(lo).floor() - 1.0).max(0.0),
            (i(hi).ceil() + 2.0).max(0.0),
        );
        (a as usize).min(n)..(b as usize).min(n)
    }

    /// A grid field's tensor (`None` for other kinds).
    pub(crate) fn grid_tensor(&self) -> Option<DVec2> {
        matches!(self.field.kind, BasisKind::Grid { .. }).then_some(self.grid)
    }

    /// The corners of row `y` (as [`row_reach`](Self::row_reach)) a grid
    /// field surely reaches: those within 99 % of its size, where its
    /// weight is at least `0.01^decay`, well above zero. Where it alone
    /// reaches, the averaged tensor is its own, whatever its weight.
    pub(crate) fn surely_reached(&self, x0: f64, step: f64, y: f64, n: usize) -> Range<usize> {
        let f = self.field;
        let (r, dy) = (0.99 * f.size, y - f.centre.y);
        if self.grid_tensor().is_none()
            || dy.abs().partial_cmp(&r) != Some(std::cmp::Ordering::Less)
        {
            return 0..0;
        }
        let half = (r * r - dy * dy).sqrt();
        // A corner inside each end (rounding).
        let i = |x: f64| ((x - x0) / step).clamp(-2.0, n as f64 + 2.0);
        let a = (i(f.centre.x - half).ceil() + 1.0).max(0.0) as usize;
        let b = (i(f.centre.x + half).floor()).max(0.0) as usize;
        a.min(n)..b.min(n).max(a.min(n))
    }

    /// Adds [`sample`](Self::sample) at the points `(x0 + i·step, y)` to
    /// `sum[i]` and `norm[i]`, skipping the points a radial field cannot
    /// reach (the same sums as sampling each point) and those `skip`
    /// names.
    pub(crate) fn add_row(
        &self,
        x0: f64,
        step: f64,
        y: f64,
        (sum, norm): (&mut [DVec2], &mut [f64]),
        skip: impl Fn(usize) -> bool,
    ) {
        let f = self.field;
        let n = sum.len().min(norm.len());
        let (lo, hi) = match f.kind {
            BasisKind::Radial => {
                let dy = f.centre.y - y;
                // (NaN reaches nothing either.)
                if dy.abs().partial_cmp(&f.size) != Some(std::cmp::Ordering::Less) {
                    return;
                }
                // A cell beyond the reach on each side (rounding).
                let i = |x: f64| ((x - x0) / step).clamp(-1.0, n as f64 + 1.0);
                let lo = (i(f.centre.x - f.size).floor() - 1.0).max(0.0) as usize;
                let hi = (i(f.centre.x + f.size).ceil() + 2.0).max(0.0) as usize;
                (lo.min(n), hi.min(n))
            }
            _ => (0, n),
        };
        if let BasisKind::Grid { .. } = f.kind {
            for i in (lo..hi).filter(|&i| !skip(i)) {
                let p = DVec2::new(x0 + i as f64 * step, y);
                let w = self.weight_at(p.distance(f.centre));
                if w > 0.0 {
                    sum[i] += w * self.grid;
                    norm[i] += w;
                }
            }
            return;
        }
        for i in (lo..hi).filter(|&i| !skip(i)) {
            if let Some((w, t)) = self.sample(DVec2::new(x0 + i as f64 * step, y)) {
                sum[i] += t;
                norm[i] += w;
            }
        }
    }

    /// `(w·|T|, w·T)` at `p` (weight `w`, tensor `T`); `None` where the
    /// weight is zero.
    #[inline]
    pub(crate) fn sample(&self, p: DVec2) -> Option<(f64, DVec2)> {
        let f = self.field;
        match &f.kind {
            BasisKind::Grid { .. } => {
                let w = self.weight_at(p.distance(f.centre));
                (w > 0.0).then(|| (w, w * self.grid))
            }
            BasisKind::Radial => {
                let d = f.centre - p;
                let d2 = d.length_squared();
                if d2.is_nan() || d2 >= f.size * f.size {
                    return None;
                }
                let w = self.weight_at(d2.sqrt()) * (d2 > 0.0) as u8 as f64;
                (w > 0.0).then(|| (w, w * tensor_along(d)))
            }
            BasisKind::Polyline { points } => {
                if !(p.cmpge(self.reach.0).all() && p.cmple(self.reach.1).all()) {
                    return None;
                }
                let q = p - f.centre;
                let (near, tangent) = nearest_on_polyline(points, q)?;
                let w = self.weight_at(near.distance(q));
                let towards = near - q;
                let dir = if towards.length_squared() > 1.0e-18 {
                    towards
                } else {
                    tangent.perp()
                };
                (w > 0.0).then(|| (w, w * tensor_along(dir)))
            }
            BasisKind::Heightmap(grid) => {
                let w = self.weight_at(p.distance(f.centre));
                if w <= 0.0 {
                    return None;
                }
                let g = grid.at(p)?;
                let strength = (g.length() / grid.full_slope).min(1.0);
                Some((w * strength, tensor_along(g) * (w * strength)))
            }
        }
    }
}

/// The nearest point of a polyline to `q` and the direction of its segment.
fn nearest_on_polyline(points: &[DVec2], q: DVec2) -> Option<(DVec2, DVec2)> {
    let mut best: Option<(f64, DVec2, DVec2)> = None;
    for w in points.windows(2) {
        let (c, _) = crate::geom::closest_on_segment(q, w[0], w[1]);
        let d2 = c.distance_squared(q);
        if best.is_none_or(|b| d2 < b.0) {
            best = Some((d2, c, w[1] - w[0]));
        }
    }
    best.map(|(_, c, t)| (c, t))
}
