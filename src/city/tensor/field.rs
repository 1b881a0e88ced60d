//! [`TensorField`]: a weighted average of [`BasisField`]s, its eigenvectors
//! as unit vectors (`None` where the field degenerates), and
//! [`SampledField`], the eigen-field cache the tracer reads: the averaged
//! tensor stored at the corners of a grid and interpolated between them.

use super::basis::BasisField;
use super::{MAX_FIELD_CELLS, TensorError};
use crate::terrain::ParamError;
use glam::DVec2;
use serde::{Deserialize, Serialize};

/// Most basis fields in one [`TensorField`].
pub const MAX_BASIS_FIELDS: usize = 1024;

/// Below this strength the averaged tensor counts as degenerate: the
/// basis fields cancel (or none reaches the point), so it has no direction.
pub const DEGENERATE: f64 = 1.0e-6;

/// A tensor field: the weighted average of its basis fields' tensors.
///
/// [`tensor`](Self::tensor) is `Σ wᵢ·Tᵢ / Σ wᵢ·|Tᵢ|`, so its strength is 1
/// where the fields agree and falls to 0 where they cancel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default)]
pub struct TensorField {
    /// The basis fields, in the order added (the order does not matter).
    pub fields: Vec<BasisField>,
}

/// Anything the tracer can read a tensor from.
pub(crate) trait Sampler {
    /// The averaged tensor at `p` (zero where nothing reaches).
    fn tensor(&self, p: DVec2) -> DVec2;
}

/// The unit major eigenvector of tensor `t` (the one with x ≥ 0 up to
/// rounding, or y > 0 on the y axis); `None` when `|t| <` [`DEGENERATE`] or
/// `t` is not finite.
#[inline(always)]
pub fn major_of(t: DVec2) -> Option<DVec2> {
    let n2 = t.length_squared();
    if !(n2 >= DEGENERATE * DEGENERATE) || !n2.is_finite() {
        return None;
    }
    let n = n2.sqrt();
    // (n + a, b) ∥ (cos θ, sin θ) unless cos θ ≈ 0; then (b, n − a).
    let v = if t.x >= 0.0 {
        DVec2::new(t.x + n, t.y)
    } else {
        DVec2::new(t.y, n - t.x)
    };
    Some(v / v.length())
}

impl TensorField {
    /// Adds a basis field.
    pub fn add(&mut self, field: BasisField) -> &mut Self {
        self.fields.push(field);
        self
    }

    /// Checks every basis field and their number.
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_range(
            "fields",
            self.fields.len() as f64,
            0.0,
            MAX_BASIS_FIELDS as f64,
        )?;
        self.fields.iter().try_for_each(BasisField::validate)
    }

    /// The averaged tensor `(m·cos 2θ, m·sin 2θ)` at `p`, `0 ≤ m ≤ 1`; zero
    /// where no basis field reaches.
    pub fn tensor(&self, p: DVec2) -> DVec2 {
        let (mut sum, mut norm) = (DVec2::ZERO, 0.0);
        for f in &self.fields {
            if let Some((w, t)) = f.sample(p) {
                sum += w * t;
                norm += w * t.length();
            }
        }
        if norm > 0.0 { sum / norm } else { DVec2::ZERO }
    }

    /// The major eigenvector at `p` (unit), `None` where degenerate.
    pub fn major(&self, p: DVec2) -> Option<DVec2> {
        major_of(self.tensor(p))
    }

    /// The minor eigenvector at `p` (unit, the major one turned left),
    /// `None` where degenerate.
    pub fn minor(&self, p: DVec2) -> Option<DVec2> {
        self.major(p).map(DVec2::perp)
    }

    /// The field sampled at the corners of cells of side `cell` covering
    /// `[min, max]` (see [`SampledField`]).
    pub fn sampled(&self, min: DVec2, max: DVec2, cell: f64) -> Result<SampledField, TensorError> {
        self.validate()?;
        ParamError::check_range("field_cell", cell, 1.0e-3, 1.0e6)?;
        let cells = (max - min) / cell;
        if !(cells.x >= 0.0 && cells.y >= 0.0 && (cells.x + 2.0) * (cells.y + 2.0) <= MAX_FIELD_CELLS)
        {
            return Err(TensorError::TooLarge {
                what: "field cells",
                count: (cells.x + 2.0) * (cells.y + 2.0),
            });
        }
        let (nx, ny) = (
            (cells.x.ceil() as usize + 1).max(2),
            (cells.y.ceil() as usize + 1).max(2),
        );
        let mut data = Vec::with_capacity(nx * ny);
        for j in 0..ny {
            for i in 0..nx {
                let t = self.tensor(min + DVec2::new(i as f64, j as f64) * cell);
                data.push([t.x as f32, t.y as f32]);
            }
        }
        Ok(SampledField {
            origin: min,
            cell,
            nx,
            ny,
            data,
        })
    }
}

impl Sampler for TensorField {
    fn tensor(&self, p: DVec2) -> DVec2 {
        TensorField::tensor(self, p)
    }
}

/// The eigen-field cache: a [`TensorField`]'s averaged tensor at the corners
/// of a square grid, interpolated bilinearly between them (interpolating
/// tensors, unlike eigenvectors, needs no sign fixing). Outside the grid it
/// repeats the nearest edge.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledField {
    origin: DVec2,
    cell: f64,
    nx: usize,
    ny: usize,
    data: Vec<[f32; 2]>,
}

impl SampledField {
    /// The interpolated tensor at `p`.
    #[inline(always)]
    pub fn tensor(&self, p: DVec2) -> DVec2 {
        let f = (p - self.origin) / self.cell;
        let fx = f.x.clamp(0.0, (self.nx - 1) as f64);
        let fy = f.y.clamp(0.0, (self.ny - 1) as f64);
        // NaN becomes cell 0 and stays NaN through the weights.
        let i = (fx as usize).min(self.nx - 2);
        let j = (fy as usize).min(self.ny - 2);
        let (tx, ty) = (fx - i as f64, fy - j as f64);
        let k = j * self.nx + i;
        let at = |k: usize| {
            let v = self.data[k];
            DVec2::new(v[0] as f64, v[1] as f64)
        };
        let top = at(k).lerp(at(k + 1), tx);
        let bottom = at(k + self.nx).lerp(at(k + self.nx + 1), tx);
        top.lerp(bottom, ty)
    }

    /// The major eigenvector at `p` (unit), `None` where degenerate.
    pub fn major(&self, p: DVec2) -> Option<DVec2> {
        major_of(self.tensor(p))
    }

    /// The minor eigenvector at `p` (unit), `None` where degenerate.
    pub fn minor(&self, p: DVec2) -> Option<DVec2> {
        self.major(p).map(DVec2::perp)
    }
}

impl Sampler for SampledField {
    #[inline(always)]
    fn tensor(&self, p: DVec2) -> DVec2 {
        SampledField::tensor(self, p)
    }
}
