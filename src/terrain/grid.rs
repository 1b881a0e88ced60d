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
mod simd {
    use super::{Row, Terrain};
    use std::arch::x86_64::*;

    /// Evaluates the first multiple-of-4 samples of a row; returns how many.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn row_avx2(
        t: &Terrain,
        x0: f64,
        step: f64,
        row: &Row,
        dst: &mut [f64],
    ) -> usize {
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
                // k mod len, exact for every finite k; NaN masks to 0.
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
    pub(super) unsafe fn row_avx512(
        t: &Terrain,
        x0: f64,
        step: f64,
        row: &Row,
        dst: &mut [f64],
    ) -> usize {
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
                let wrap =
                    _mm512_mul_pd(_mm512_roundscale_pd::<FLOOR>(_mm512_mul_pd(k, vinv)), vlen);
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

    /// The profile and its slopes as byte tables in eight registers.
    #[derive(Clone, Copy)]
    pub(super) struct ByteTables {
        p: [__m512i; 4],
        d: [__m512i; 4],
    }

    impl ByteTables {
        #[target_feature(enable = "avx512f")]
        pub(super) fn load(bytes: &([u8; 256], [i8; 256])) -> Self {
            // SAFETY: each table is 256 bytes; four 64-byte loads cover it.
            let load = |p: *const u8, i: usize| unsafe { _mm512_loadu_si512(p.add(64 * i).cast()) };
            let (pp, dp) = (bytes.0.as_ptr(), bytes.1.as_ptr().cast::<u8>());
            Self {
                p: [load(pp, 0), load(pp, 1), load(pp, 2), load(pp, 3)],
                d: [load(dp, 0), load(dp, 1), load(dp, 2), load(dp, 3)],
            }
        }
    }

    /// One profile term for eight lanes, `P[k] + frac·(P[k+1] − P[k])` with
    /// `j = (a·x + by)/128`, by byte-table permutes. `k` converts to i64 and
    /// truncates to a byte, which is `k mod 256` for every finite `k`
    /// (out-of-range values become 0, as the exact modulo of such huge
    /// multiples of 2048).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx2")]
    fn term_vbmi(t: &ByteTables, a: __m512d, x: __m512d, by: __m512d) -> __m512d {
        const FLOOR: i32 = _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC;
        let recip = _mm512_set1_pd(super::super::RECIP128);
        let j = _mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(a, x), by), recip);
        let k = _mm512_roundscale_pd::<FLOOR>(j);
        let frac = _mm512_sub_pd(j, k);
        let kb = _mm512_castsi128_si512(_mm512_cvtepi64_epi8(_mm512_cvttpd_epi64(k)));
        // Bits 0..6 pick within a 128-byte half, bit 7 picks the half.
        let high = _mm512_movepi8_mask(kb);
        let pick = |q: &[__m512i; 4]| {
            _mm512_mask_blend_epi8(
                high,
                _mm512_permutex2var_epi8(q[0], kb, q[1]),
                _mm512_permutex2var_epi8(q[2], kb, q[3]),
            )
        };
        let p = _mm512_cvtepi32_pd(_mm256_cvtepu8_epi32(_mm512_castsi512_si128(pick(&t.p))));
        let d = _mm512_cvtepi32_pd(_mm256_cvtepi8_epi32(_mm512_castsi512_si128(pick(&t.d))));
        _mm512_add_pd(p, _mm512_mul_pd(frac, d))
    }

    /// Evaluates the first multiple-of-8 samples of a row with byte-table
    /// permutes; returns how many.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx2")]
    pub(super) unsafe fn row_vbmi(
        t: &Terrain,
        bytes: &([u8; 256], [i8; 256]),
        x0: f64,
        step: f64,
        row: &Row,
        dst: &mut [f64],
    ) -> usize {
        let tables = ByteTables::load(bytes);
        let lanes = dst.len() / 8 * 8;
        let vx0 = _mm512_set1_pd(x0);
        let vstep = _mm512_set1_pd(step);
        let lane = _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0);
        let mut c = 0;
        while c < lanes {
            let idx = _mm512_add_pd(_mm512_set1_pd(c as f64), lane);
            let x = _mm512_add_pd(vx0, _mm512_mul_pd(idx, vstep));
            let mut h = _mm512_setzero_pd();
            for (i, &a) in t.height_a.iter().enumerate() {
                let term = term_vbmi(&tables, _mm512_set1_pd(a), x, _mm512_set1_pd(row.by[i]));
                h = _mm512_add_pd(h, term);
            }
            // SAFETY: c + 8 <= dst.len().
            unsafe { _mm512_storeu_pd(dst.as_mut_ptr().add(c), h) };
            c += 8;
        }
        lanes
    }

    /// The unshaped sums at the first multiple-of-8 of the points
    /// `(xs[i], ys[i])`, as [`row_vbmi`] does them; returns how many.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx2")]
    pub(super) unsafe fn points_vbmi(
        t: &Terrain,
        bytes: &([u8; 256], [i8; 256]),
        xs: &[f64],
        ys: &[f64],
        dst: &mut [f64],
    ) -> usize {
        let tables = ByteTables::load(bytes);
        let lanes = dst.len().min(xs.len()).min(ys.len()) / 8 * 8;
        let mut c = 0;
        while c < lanes {
            // SAFETY: c + 8 <= the length of all three slices.
            let (x, y) = unsafe {
                (
                    _mm512_loadu_pd(xs.as_ptr().add(c)),
                    _mm512_loadu_pd(ys.as_ptr().add(c)),
                )
            };
            let mut h = _mm512_setzero_pd();
            for i in 0..t.height_a.len() {
                // The same `b·y + offset` as the scalar row constants.
                let by = _mm512_add_pd(
                    _mm512_mul_pd(_mm512_set1_pd(t.height_b[i]), y),
                    _mm512_set1_pd(t.height_off[i]),
                );
                let term = term_vbmi(&tables, _mm512_set1_pd(t.height_a[i]), x, by);
                h = _mm512_add_pd(h, term);
            }
            // SAFETY: as above.
            unsafe { _mm512_storeu_pd(dst.as_mut_ptr().add(c), h) };
            c += 8;
        }
        lanes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::TerrainParams;

    /// Whether this CPU has what a kernel is compiled for, asked directly
    /// (not through [`GridKernel::available`], which is under test).
    fn cpu_has(kernel: GridKernel) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            match kernel {
                GridKernel::Scalar => true,
                GridKernel::Avx2 => has!("avx2"),
                GridKernel::Avx512 => has!("avx512f"),
                GridKernel::Avx512Vbmi => {
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
            kernel == GridKernel::Scalar
        }
    }

    #[test]
    fn every_kernel_the_cpu_has_runs_and_gives_the_heights_bit_for_bit() {
        let reference = Terrain::default();
        // A profile too long for byte tables, with mountains.
        let mut p = TerrainParams::random(5, 1024).unwrap();
        p.mountain_base = Some(30.0);
        let random = Terrain::new(p).unwrap();
        let mut out = Vec::new();
        let mut tested = Vec::new();
        for kernel in GridKernel::ALL {
            if !cpu_has(kernel) {
                let instead = reference.grid_kernel_for(kernel);
                assert!(cpu_has(instead), "{kernel:?} falls back to {instead:?}");
                eprintln!("GridKernel::{kernel:?} is not on this CPU: untested ({instead:?} runs)");
                continue;
            }
            // The kernel asked for is the one that runs (VBMI needs a
            // byte-sized profile: the long one gets plain AVX-512).
            assert_eq!(reference.grid_kernel_for(kernel), kernel);
            let on_random = match kernel {
                GridKernel::Avx512Vbmi => GridKernel::Avx512,
                k => k,
            };
            assert_eq!(random.grid_kernel_for(kernel), on_random);
            for t in [&reference, &random] {
                // Odd sizes exercise the SIMD tails.
                for (x0, y0, step, w, h) in [
                    (18990.0, 1250.0, 1.0, 37, 5),
                    (-4999.7, -4999.3, 3.7, 23, 7),
                    (1e7 + 0.5, 3.0, -2.5, 9, 9),
                ] {
                    t.heights_grid_with(kernel, x0, y0, step, w, h, &mut out)
                        .unwrap();
                    for j in 0..h {
                        for i in 0..w {
                            let e = t.height(x0 + i as f64 * step, y0 + j as f64 * step);
                            assert_eq!(out[j * w + i].to_bits(), e.to_bits(), "{kernel:?}");
                        }
                    }
                }
            }
            tested.push(kernel);
        }
        eprintln!("grid kernels tested on this CPU: {tested:?}");
        let fastest = GridKernel::ALL.into_iter().rev().find(|&k| cpu_has(k));
        assert_eq!(Some(GridKernel::detect()), fastest);
        // Scattered points: VBMI where the CPU and the profile have it.
        assert_eq!(random.points_kernel(), GridKernel::Scalar);
        if cpu_has(GridKernel::Avx512Vbmi) {
            assert_eq!(reference.points_kernel(), GridKernel::Avx512Vbmi);
        } else {
            assert_eq!(reference.points_kernel(), GridKernel::Scalar);
            eprintln!("heights_at_points: no AVX-512 VBMI on this CPU, only the scalar path ran");
        }
    }
}
