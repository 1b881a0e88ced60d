//! Numeric helpers shared across the crate: Java-compatible rounding, exact
//! branch-light floors, and the deterministic hashes that pick variations the
//! seeds leave free. Plain functions, identical on every platform.

/// 2⁵²: from here on every f64 is a whole number.
const TWO52: f64 = 4503599627370496.0;

/// `floor(j)` as an integer when |j| < 2⁵² (where it is exact and fits), with
/// one truncating conversion and no libm call; `None` for larger or NaN.
#[inline(always)]
pub fn floor_int(j: f64) -> Option<i64> {
    if j.abs() < TWO52 {
        // SAFETY: |j| < 2^52, so the truncation fits an i64.
        let t = unsafe { j.to_int_unchecked::<i64>() };
        Some(t - ((t as f64) > j) as i64)
    } else {
        None
    }
}

/// `floor` without a libm call on baseline x86-64 (no SSE4.1): exact for
/// every f64 (larger values are whole already). May turn −0 into +0, which
/// leaves every height unchanged.
#[inline(always)]
pub(crate) fn floor(j: f64) -> f64 {
    match floor_int(j) {
        Some(k) => k as f64,
        None => j,
    }
}

/// Java's and JavaScript's `Math.round`: the nearest integer, halves toward +∞.
/// NaN gives 0 and out-of-range values saturate, never a panic.
#[inline]
pub fn java_round(v: f64) -> i64 {
    java_round_f64(v) as i64
}

/// [`java_round`] as an `f64`, without the conversions (the same value
/// wherever it fits an `i64`).
#[inline]
pub fn java_round_f64(v: f64) -> f64 {
    let f = floor(v);
    if v - f >= 0.5 { f + 1.0 } else { f }
}

/// `floor` without a libm call (exact for every f64).
#[inline]
pub fn fast_floor(v: f64) -> f64 {
    floor(v)
}

/// `⌊v⌋` as an integer without a libm call, saturating at the `i64` range
/// (NaN gives 0).
#[inline]
pub fn floor_i64(v: f64) -> i64 {
    // Beyond 2⁵² every f64 is whole already; `as` saturates and maps NaN to 0.
    match floor_int(v) {
        Some(k) => k,
        None => v as i64,
    }
}

/// The edge of the placed world: ±2⁵² m (about 4.5·10¹⁵ m, 30 000 au).
///
/// Every lattice point or whole metre at which something is found (a
/// tree's lattice point, a building's centre, a mine cell's corner or a
/// shaft, a stream's source, a site) lies within this distance of the
/// origin on both axes; queries beyond it find nothing. Up to 2⁵³ every
/// whole metre is an exact `f64`, so a position inside the limit, with any
/// neighbourhood a query examines around it (all far smaller than 2⁵²),
/// converts between `i64` and `f64` exactly and never overflows. Heights and
/// `terra` are defined everywhere.
pub const WORLD_LIMIT: i64 = 1 << 52;

/// [`WORLD_LIMIT`] as an `f64` (exact).
pub const WORLD_LIMIT_F64: f64 = WORLD_LIMIT as f64;

/// Whether a whole-metre position lies within [`WORLD_LIMIT`] on both axes.
#[inline]
pub fn within_world(x: i64, y: i64) -> bool {
    x.unsigned_abs() <= WORLD_LIMIT as u64 && y.unsigned_abs() <= WORLD_LIMIT as u64
}

/// The coordinate `i · spacing` of a lattice index, or `None` where it would
/// overflow or lie beyond [`WORLD_LIMIT`].
#[inline]
pub fn lattice_coord(i: i64, spacing: i64) -> Option<i64> {
    i.checked_mul(spacing)
        .filter(|v| v.unsigned_abs() <= WORLD_LIMIT as u64)
}

/// A 64-bit mix (splitmix64 finaliser) of a lattice point and a salt, for
/// variations the seed leaves free. Deterministic on every platform.
#[inline]
pub(crate) fn hash2(x: i64, y: i64, salt: u64) -> u64 {
    let mut z = (x as u64)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((y as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F))
        .wrapping_add(salt.wrapping_mul(0x1656_67B1_9E37_79F9));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A value in `[0, 1)` from a hash.
#[inline]
pub(crate) fn unit(h: u64) -> f64 {
    (h >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A deterministic value in `[0, 1)` for a lattice point and a salt (for
/// variations such as an object's rotation).
pub fn hash_unit(x: i64, y: i64, salt: u64) -> f64 {
    unit(hash2(x, y, salt))
}

/// Below this |x·y| the seed's "bits of π·x·y" are exact in f64; beyond it
/// (hundreds of km out) they would decay to zeros, so a hash takes over.
const PI_BITS_LIMIT: i64 = 1 << 36;

/// `round(scale · xy)` as the seed uses it for pseudo-random bits, exact near
/// the origin and hashed far away so that variety never dies out.
#[inline]
pub(crate) fn pi_bits(xy: i64, scale: f64) -> i64 {
    if xy.unsigned_abs() < PI_BITS_LIMIT as u64 {
        java_round(scale * xy as f64)
    } else {
        hash2(xy, scale.to_bits() as i64, 0x5eed) as i64
    }
}

/// The fractional part of `scale · xy` (hashed far away, as [`pi_bits`]).
#[inline]
pub(crate) fn pi_frac(xy: i64, scale: f64) -> f64 {
    if xy.unsigned_abs() < PI_BITS_LIMIT as u64 {
        let u = scale * xy as f64;
        u - u.floor()
    } else {
        unit(hash2(xy, scale.to_bits() as i64, 0xf4ac))
    }
}

/// A multiply-rotate hasher for small integer keys (grid cells): SipHash
/// costs more than the lookups it guards. Only for tables that are looked
/// up, never iterated.
#[derive(Default)]
pub(crate) struct FastHasher(u64);

impl std::hash::Hasher for FastHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_i64(&mut self, v: i64) {
        self.write_u64(v as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// [`FastHasher`] for `HashMap`s and `HashSet`s.
pub(crate) type FastHash = std::hash::BuildHasherDefault<FastHasher>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_i64_is_floor_saturated() {
        let big = 9.223_372_036_854_774e18;
        for v in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999,
            -2.001,
            1e15 + 0.5,
            -1e15 - 0.5,
            4.5e15,
            big,
            -big,
            9.3e18,
            -9.3e18,
            1e300,
            -1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
        ] {
            // `as` saturates and maps NaN to 0.
            assert_eq!(floor_i64(v), v.floor() as i64, "{v}");
        }
    }

    #[test]
    fn lattice_coords_stay_inside_the_world() {
        assert_eq!(lattice_coord(3, 16), Some(48));
        assert_eq!(lattice_coord(-3, 16), Some(-48));
        assert_eq!(lattice_coord(WORLD_LIMIT / 16, 16), Some(WORLD_LIMIT));
        assert_eq!(lattice_coord(WORLD_LIMIT / 16 + 1, 16), None);
        assert_eq!(lattice_coord(i64::MAX, 16), None);
        assert_eq!(lattice_coord(i64::MIN, 1), None);
        assert_eq!(lattice_coord(i64::MIN, -1), None);
        assert!(within_world(WORLD_LIMIT, -WORLD_LIMIT));
        assert!(!within_world(WORLD_LIMIT + 1, 0));
        assert!(!within_world(0, i64::MIN));
        // Every whole metre up to the limit (and well past it) is exact.
        assert_eq!((WORLD_LIMIT_F64 + 1.0) as i64, WORLD_LIMIT + 1);
        assert_eq!((-WORLD_LIMIT_F64 - 3001.0) as i64, -WORLD_LIMIT - 3001);
    }

    #[test]
    fn java_round_halves_go_up() {
        assert_eq!(java_round(-2.5), -2);
        assert_eq!(java_round(2.5), 3);
        assert_eq!(java_round(-0.5), 0);
        assert_eq!(java_round(0.49999999999999994), 0);
        assert_eq!(java_round(f64::NAN), 0);
        assert_eq!(java_round(f64::INFINITY), i64::MAX);
        assert_eq!(java_round(-1e300), i64::MIN);
    }
}
