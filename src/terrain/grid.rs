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
    /// 4 lanes with AVX2 gathers.
    Avx2,
    /// 8 lanes with AVX-512 gathers.
    Avx512,
}

impl GridKernel {
    /// The fastest kernel this CPU supports.
    pub fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Self::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Self::Avx2;
            }
        }
        Self::Scalar
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        match self {
            Self::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Self::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Self::Avx512 => std::arch::is_x86_feature_detected!("avx512f"),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// Per-row constants: `b·y + time offset` for each height vector.
pub(super) struct Row {
    pub by: [f64; MAX_VECTORS],
}

impl Terrain {
    pub(super) fn row_constants(&self, y: f64) -> Row {
        let mut by = [0.0; MAX_VECTORS];
        for (i, v) in self.height_b.iter().enumerate() {
            by[i] = v * y + self.height_off[i];
        }
        Row { by }
    }

    /// The unshaped sum for one sample (before mountains); `height` and the
    /// grid tails both use exactly this.
    #[inline(always)]
    pub(super) fn profile_sum(&self, x: f64, row: &Row) -> f64 {
        let mut ht = 0.0;
        for (i, &a) in self.height_a.iter().enumerate() {
            let j = (a * x + row.by[i]) * super::RECIP128;
            let k = j.floor();
            let frac = j - k;
            let idx = ((k as i64) & self.mask) as usize;
            ht += self.prof[idx] + frac * self.slope[idx];
        }
        ht
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
        self.heights_grid_with(GridKernel::detect(), x0, y0, step, w, h, out)
    }

    /// [`Self::heights_grid`] with a chosen kernel (for tests and benchmarks);
    /// a kernel the CPU lacks falls back to the scalar one.
    #[allow(clippy::too_many_arguments)]
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
        let kernel = if kernel.available() { kernel } else { GridKernel::Scalar };
        out.clear();
        out.resize(n, 0.0);
        if n == 0 {
            return Ok(());
        }
        for (j, dst) in out.chunks_exact_mut(w).enumerate() {
            let y = y0 + j as f64 * step;
            let row = self.row_constants(y);
            let done = match kernel {
                GridKernel::Scalar => 0,
                // SAFETY: `available()` confirmed the CPU feature.
                #[cfg(target_arch = "x86_64")]
                GridKernel::Avx2 => unsafe { simd::row_avx2(self, x0, step, &row, dst) },
                #[cfg(target_arch = "x86_64")]
                GridKernel::Avx512 => unsafe { simd::row_avx512(self, x0, step, &row, dst) },
                #[cfg(not(target_arch = "x86_64"))]
                _ => 0,
            };
            for (i, v) in dst.iter_mut().enumerate().skip(done) {
                *v = self.profile_sum(x0 + i as f64 * step, &row);
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
mod simd {
    use super::{Row, Terrain};
    use std::arch::x86_64::*;

    /// Evaluates the first multiple-of-4 samples of a row; returns how many.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn row_avx2(t: &Terrain, x0: f64, step: f64, row: &Row, dst: &mut [f64]) -> usize {
        let len = t.prof.len() as f64;
        let lanes = dst.len() / 4 * 4;
        let recip = _mm256_set1_pd(super::super::RECIP128);
        let vlen = _mm256_set1_pd(len);
        let vinv = _mm256_set1_pd(1.0 / len);
        let vmask = _mm_set1_epi32(t.mask as i32);
        let vx0 = _mm256_set1_pd(x0);
        let vstep = _mm256_set1_pd(step);
        let lane = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
        let prof = t.prof.as_ptr();
        let slope = t.slope.as_ptr();
        let n = t.height_a.len();
        let mut c = 0;
        while c < lanes {
            let idx = _mm256_add_pd(_mm256_set1_pd(c as f64), lane);
            let x = _mm256_add_pd(vx0, _mm256_mul_pd(idx, vstep));
            let mut h = _mm256_setzero_pd();
            for i in 0..n {
                let a = _mm256_set1_pd(t.height_a[i]);
                let by = _mm256_set1_pd(row.by[i]);
                let j = _mm256_mul_pd(_mm256_add_pd(_mm256_mul_pd(a, x), by), recip);
                let k = _mm256_floor_pd(j);
                let frac = _mm256_sub_pd(j, k);
                // k mod len, exact for integers below 2^53; NaN masks to 0.
                let wrap = _mm256_mul_pd(_mm256_floor_pd(_mm256_mul_pd(k, vinv)), vlen);
                let ki = _mm_and_si128(_mm256_cvttpd_epi32(_mm256_sub_pd(k, wrap)), vmask);
                // SAFETY: ki is masked into 0..len, inside both tables.
                let p = unsafe { _mm256_i32gather_pd::<8>(prof, ki) };
                let d = unsafe { _mm256_i32gather_pd::<8>(slope, ki) };
                h = _mm256_add_pd(h, _mm256_add_pd(p, _mm256_mul_pd(frac, d)));
            }
            // SAFETY: c + 4 <= dst.len().
            unsafe { _mm256_storeu_pd(dst.as_mut_ptr().add(c), h) };
            c += 4;
        }
        lanes
    }

    /// Evaluates the first multiple-of-8 samples of a row; returns how many.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn row_avx512(t: &Terrain, x0: f64, step: f64, row: &Row, dst: &mut [f64]) -> usize {
        const FLOOR: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
        let len = t.prof.len() as f64;
        let lanes = dst.len() / 8 * 8;
        let recip = _mm512_set1_pd(super::super::RECIP128);
        let vlen = _mm512_set1_pd(len);
        let vinv = _mm512_set1_pd(1.0 / len);
        let vmask = _mm256_set1_epi32(t.mask as i32);
        let vx0 = _mm512_set1_pd(x0);
        let vstep = _mm512_set1_pd(step);
        let lane = _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0);
        let prof = t.prof.as_ptr();
        let slope = t.slope.as_ptr();
        let n = t.height_a.len();
        let mut c = 0;
        while c < lanes {
            let idx = _mm512_add_pd(_mm512_set1_pd(c as f64), lane);
            let x = _mm512_add_pd(vx0, _mm512_mul_pd(idx, vstep));
            let mut h = _mm512_setzero_pd();
            for i in 0..n {
                let a = _mm512_set1_pd(t.height_a[i]);
                let by = _mm512_set1_pd(row.by[i]);
                let j = _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(a, x), by), recip);
                let k = _mm512_roundscale_pd::<FLOOR>(j);
                let frac = _mm512_sub_pd(j, k);
                let wrap = _mm512_mul_pd(_mm512_roundscale_pd::<FLOOR>(_mm512_mul_pd(k, vinv)), vlen);
                let ki = _mm256_and_si256(_mm512_cvttpd_epi32(_mm512_sub_pd(k, wrap)), vmask);
                // SAFETY: ki is masked into 0..len, inside both tables.
                let p = unsafe { _mm512_i32gather_pd::<8>(ki, prof) };
                let d = unsafe { _mm512_i32gather_pd::<8>(ki, slope) };
                h = _mm512_add_pd(h, _mm512_add_pd(p, _mm512_mul_pd(frac, d)));
            }
            // SAFETY: c + 8 <= dst.len().
            unsafe { _mm512_storeu_pd(dst.as_mut_ptr().add(c), h) };
            c += 8;
        }
        lanes
    }
}
