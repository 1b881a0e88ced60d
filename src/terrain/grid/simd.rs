//! The AVX2 and AVX-512 row kernels: the scalar sum's operations, 4 or 8
//! samples at a time (gathers for the profile tables).

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
