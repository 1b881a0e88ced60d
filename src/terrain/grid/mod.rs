//! Heights on a regular grid, bit-identical to [`Terrain::height`] and fast.
//!
//! Each sample performs exactly the floating-point operations of `height` in
//! the same order (no FMA, no incremental stepping), so the results are the
//! same bits. The speed comes from batching: per-row constants are hoisted,
//! the profile and its slopes sit in two small tables, the index wrap is done
//! in f64 (exact for integers) and, where the CPU has AVX-512 or AVX2 (detected
//! at run time), 8 or 4 samples go through each step at once with gathers.

use super::Terrain;
use super::params::MAX_VECTORS;
use thiserror::Error;

/// Most samples one [`Terrain::heights_grid`] call may produce (2²⁸, 2 GiB of f64).
pub const MAX_GRID_SAMPLES: usize = 1 << 28;

/// Why a grid request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum GridError {
    /// `w × h` is larger than [`MAX_GRID_SAMPLES`].
    #[error("heights_grid: {w} × {h} samples exceeds the limit of {MAX_GRID_SAMPLES}")]
    TooLarge {
        /// Requested width.
        w: usize,
        /// Requested height.
        h: usize,
    },
}

/// Which code path evaluates grid rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GridKernel {
    /// Portable scalar code.
    Scalar,
    /// 4 lanes with AVX2 gathers from the f64 tables.
    Avx2,
    /// 8 lanes with AVX-512 gathers from the f64 tables.
    Avx512,
    /// 8 lanes with AVX-512 VBMI byte permutes: the whole profile and its
    /// slopes sit in eight registers. Needs a profile of at most 256 whole
    /// numbers in 0..=255 (the reference profile qualifies); other profiles
    /// fall back to [`GridKernel::Avx512`].
    Avx512Vbmi,
}

impl GridKernel {
    /// Every kernel, slowest first.
    pub const ALL: [GridKernel; 4] = [Self::Scalar, Self::Avx2, Self::Avx512, Self::Avx512Vbmi];

    /// The fastest kernel this CPU supports (for a byte-sized profile).
    pub fn detect() -> Self {
        Self::ALL
            .into_iter()
            .rev()
            .find(|k| k.available())
            .unwrap_or(Self::Scalar)
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            match self {
                Self::Scalar => true,
                Self::Avx2 => has!("avx2"),
                Self::Avx512 => has!("avx512f"),
                Self::Avx512Vbmi => {
                    has!("avx512f")
                        && has!("avx512bw")
                        && has!("avx512dq")
                        && has!("avx512vbmi")
                        && has!("avx2")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self == Self::Scalar
        }
    }
}

/// The profile and its slopes as bytes, tiled to 256 entries, for the VBMI
/// kernel; `None` unless every value fits (whole numbers, profile 0..=255,
/// slopes −128..=127, length ≤ 256).
pub(super) fn byte_tables(prof: &[f64], slope: &[f64]) -> Option<Box<([u8; 256], [i8; 256])>> {
    let n = prof.len();
    let whole = |v: f64, lo: f64, hi: f64| v.fract() == 0.0 && (lo..=hi).contains(&v);
    if n > 256
        || !prof.iter().all(|&v| whole(v, 0.0, 255.0))
        || !slope.iter().all(|&v| whole(v, -128.0, 127.0))
    {
        return None;
    }
    // n divides 256, so index k & 255 tiles onto k & (n - 1).
    Some(Box::new((
        std::array::from_fn(|k| prof[k & (n - 1)] as u8),
        std::array::from_fn(|k| slope[k & (n - 1)] as i8),
    )))
}

/// Per-row constants: `b·y + time offset` for each height vector.
pub(super) struct Row {
    pub by: [f64; MAX_VECTORS],
}

/// `b·y`, or 0 where it overflows for finite `y`: the exact product is then
/// a multiple of 2⁹²⁰, so of the profile's period, and adds nothing.
#[inline(always)]
pub(super) fn by_term(b: f64, y: f64) -> f64 {
    let by = b * y;
    if by.is_infinite() && y.is_finite() {
        0.0
    } else {
        by
    }
}

impl Terrain {
    pub(super) fn row_constants(&self, y: f64) -> Row {
        let mut by = [0.0; MAX_VECTORS];
        for (i, v) in self.height_b.iter().enumerate() {
            by[i] = by_term(*v, y) + self.height_off[i];
        }
        Row { by }
    }

    /// One profile term: `P[k] + frac·(P[k+1] − P[k])` with `j = (a·x + by)/128`.
    /// The index is `k` modulo the profile length, exact for every finite `k`.
    ///
    /// Finite `x` and `by` always give a finite term: where `a·x` or the sum
    /// overflows f64, [`Self::term_overflowed`] reduces it modulo the
    /// period exactly. Non-finite `x` or `by` give NaN.
    #[inline(always)]
    pub(super) fn term(&self, a: f64, by: f64, x: f64) -> f64 {
        let j = (a * x + by) * super::RECIP128;
        let Some(k) = crate::num::floor_int(j) else {
            return self.term_huge(a, by, x, j);
        };
        let idx = (k & self.mask) as usize;
        self.prof[idx] + (j - k as f64) * self.slope[idx]
    }

    /// [`Self::term`] where `|j| ≥ 2⁵²` or `j` is not finite (off the hot path).
    #[cold]
    #[inline(never)]
    fn term_huge(&self, a: f64, by: f64, x: f64, j: f64) -> f64 {
        if j.is_finite() {
            self.term_whole(j)
        } else {
            self.term_overflowed(a, by, x)
        }
    }

    /// The term at a huge, finite `j` (|j| ≥ 2⁵², so whole already):
    /// `P[j mod len]`, the wrap done in f64, exactly.
    #[inline]
    fn term_whole(&self, j: f64) -> f64 {
        let len = self.prof.len() as f64;
        let idx = (((j - (j / len).floor() * len) as i64) & self.mask) as usize;
        // `frac = j − k` is +0 here: the same operations as the finite case.
        self.prof[idx] + 0.0 * self.slope[idx]
    }

    /// The term where `j` is not finite. Non-finite `x` or `by` give NaN;
    /// for finite ones `a·x` or `a·x + by` overflowed, and both are reduced
    /// modulo the period `128·len` (a power of two, at most 2²⁷) exactly:
    /// - an overflowing `a·x` (|a| > 1, |x| ≥ 2¹⁰⁰⁴, validated |a| ≤ 10⁶) is
    ///   a multiple of at least 2⁸⁹⁹, so of the period: it counts as 0;
    /// - an overflowing sum of two finite f64 has both terms of magnitude at
    ///   least 2⁹⁷⁰, multiples of 2⁹¹⁸, so the sum is a multiple of the
    ///   period too: `j` counts as 0.
    ///
    /// Where the sum of finite terms stays finite nothing changes, so every
    /// height that was finite before is bit-identical.
    #[cold]
    #[inline(never)]
    fn term_overflowed(&self, a: f64, by: f64, x: f64) -> f64 {
        if !(x.is_finite() && by.is_finite()) {
            return f64::NAN;
        }
        let ax = a * x;
        let ax = if ax.is_finite() { ax } else { 0.0 };
        let sum = ax + by;
        let j = if sum.is_finite() {
            sum * super::RECIP128
        } else {
            0.0
        };
        match crate::num::floor_int(j) {
            Some(k) => {
                let idx = (k & self.mask) as usize;
                self.prof[idx] + (j - k as f64) * self.slope[idx]
            }
            None => self.term_whole(j),
        }
    }

    /// Whether `a·x + by` stays finite for every height vector and every
    /// `x = x0 + i·step`, `i < w` (false for non-finite input): then the
    /// SIMD kernels, which do not reduce overflowing terms, give exactly the
    /// scalar results. Rounding is monotonic, so the bound computed with
    /// `|x0| + w·|step|` bounds every sample's.
    fn row_is_finite(&self, x0: f64, step: f64, w: usize, row: &Row) -> bool {
        let xm = x0.abs() + w as f64 * step.abs();
        self.height_a
            .iter()
            .zip(&row.by)
            .all(|(a, by)| a.abs() * xm + by.abs() < f64::INFINITY)
    }

    /// The unshaped sum for one grid sample (before mountains).
    #[inline(always)]
    fn row_sum(&self, x: f64, row: &Row) -> f64 {
        let mut ht = 0.0;
        for (i, &a) in self.height_a.iter().enumerate() {
            ht += self.term(a, row.by[i], x);
        }
        ht
    }

    /// [`Terrain::height`] at many points, bit for bit: `out[i]` is the
    /// height at `(xs[i], ys[i])` (`out` is resized to the shorter input).
    /// Eight points at a time with the VBMI kernel where it applies, which
    /// makes a batch of scattered points several times cheaper.
    pub fn heights_at_points(&self, xs: &[f64], ys: &[f64], out: &mut Vec<f64>) {
        let n = xs.len().min(ys.len());
        // Every entry is written below: only a longer buffer needs filling.
        out.truncate(n);
        out.resize(n, 0.0);
        #[cfg(target_arch = "x86_64")]
        let done = match &self.bytes {
            // SAFETY: `points_kernel` confirmed the CPU features.
            Some(b) if self.points_kernel() == GridKernel::Avx512Vbmi => unsafe {
                simd::points_vbmi(self, b, xs, ys, out)
            },
            _ => 0,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        // The SIMD lanes give NaN where `a·x + b·y` overflows f64; the
        // scalar path reduces such terms exactly (see `term`), so those
        // points are done again (never the case within 10³⁰⁰ m).
        for i in 0..done {
            if out[i].is_nan() && xs[i].is_finite() && ys[i].is_finite() {
                out[i] = self.height(xs[i], ys[i]);
            } else if let Some(base) = self.params.mountain_base {
                out[i] = super::mountain(out[i], base);
            }
        }
        for i in done..n {
            out[i] = self.height(xs[i], ys[i]);
        }
    }

    /// The fastest kernel for this terrain on this CPU.
    pub fn grid_kernel(&self) -> GridKernel {
        self.grid_kernel_for(GridKernel::detect())
    }

    /// The kernel that [`Self::heights_grid_with`] runs when asked for
    /// `kernel`: that one where the CPU and the profile allow it,
    /// [`GridKernel::Avx512`] for VBMI on a profile without byte tables,
    /// otherwise [`GridKernel::Scalar`].
    pub fn grid_kernel_for(&self, kernel: GridKernel) -> GridKernel {
        let kernel = match kernel {
            GridKernel::Avx512Vbmi if self.bytes.is_none() => GridKernel::Avx512,
            k => k,
        };
        if kernel.available() {
            kernel
        } else {
            GridKernel::Scalar
        }
    }

    /// The kernel that [`Self::heights_at_points`] runs: VBMI where the CPU
    /// and the profile allow it, otherwise [`GridKernel::Scalar`].
    pub fn points_kernel(&self) -> GridKernel {
        if self.bytes.is_some() && GridKernel::Avx512Vbmi.available() {
            GridKernel::Avx512Vbmi
        } else {
            GridKernel::Scalar
        }
    }

    /// Fills `out` (resized to `w·h`) so that
    /// `out[j*w + i] == height(x0 + i*step, y0 + j*step)` bit for bit.
    ///
    /// Allocation-free when `out` already has the capacity.
    pub fn heights_grid(
        &self,
        x0: f64,
        y0: f64,
        step: f64,
        w: usize,
        h: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), GridError> {
        self.heights_grid_with(self.grid_kernel(), x0, y0, step, w, h, out)
    }

    /// [`Self::heights_grid`] with a chosen kernel (for tests and benchmarks);
    /// a kernel the CPU or the profile cannot use falls back to one that can
    /// ([`Self::grid_kernel_for`] says which runs).
    pub fn heights_grid_with(
        &self,
        kernel: GridKernel,
        x0: f64,
        y0: f64,
        step: f64,
        w: usize,
        h: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), GridError> {
        let n = w.checked_mul(h).filter(|&n| n <= MAX_GRID_SAMPLES);
        let Some(n) = n else {
            out.clear();
            return Err(GridError::TooLarge { w, h });
        };
        let kernel = self.grid_kernel_for(kernel);
        out.clear();
        out.resize(n, 0.0);
        if n == 0 {
            return Ok(());
        }
        for (j, dst) in out.chunks_exact_mut(w).enumerate() {
            let y = y0 + j as f64 * step;
            let row = self.row_constants(y);
            // Rows where `a·x + b·y` could overflow (or is not finite) take
            // the scalar path, which handles overflow exactly (see `term`).
            let kernel = if self.row_is_finite(x0, step, w, &row) {
                kernel
            } else {
                GridKernel::Scalar
            };
            let done = match kernel {
                GridKernel::Scalar => 0,
                // SAFETY: `available()` confirmed the CPU feature.
                #[cfg(target_arch = "x86_64")]
                GridKernel::Avx2 => unsafe { simd::row_avx2(self, x0, step, &row, dst) },
                #[cfg(target_arch = "x86_64")]
                GridKernel::Avx512 => unsafe { simd::row_avx512(self, x0, step, &row, dst) },
                #[cfg(target_arch = "x86_64")]
                GridKernel::Avx512Vbmi => match &self.bytes {
                    Some(b) => unsafe { simd::row_vbmi(self, b, x0, step, &row, dst) },
                    None => 0,
                },
                #[cfg(not(target_arch = "x86_64"))]
                _ => 0,
            };
            for (i, v) in dst.iter_mut().enumerate().skip(done) {
                *v = self.row_sum(x0 + i as f64 * step, &row);
            }
        }
        if let Some(base) = self.params.mountain_base {
            for v in out.iter_mut() {
                *v = super::mountain(*v, base);
            }
        }
        Ok(())
    }
}

#[cfg(target_arch = "x86_64")]
mod simd;
#[cfg(test)]
mod tests;
