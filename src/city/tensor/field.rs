//! [`TensorField`]: a weighted average of [`BasisField`]s, its eigenvectors
//! as unit vectors (`None` where the field degenerates), and
//! [`SampledField`], the eigen-field cache the tracer reads: the averaged
//! tensor stored at the corners of a grid and interpolated between them.

use super::basis::{BasisField, Prepared};
use super::{MAX_FIELD_CELLS, TensorError};
use crate::terrain::ParamError;
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::mem::MaybeUninit;

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
#[serde(default, deny_unknown_fields)]
pub struct TensorField {
    /// The basis fields, in the order added (the order does not matter).
    pub fields: Vec<BasisField>,
}

/// `Σ wᵢ·Tᵢ / Σ wᵢ·|Tᵢ|` over the basis fields (zero where none reaches).
fn average(fields: &[Prepared], p: DVec2) -> DVec2 {
    let (mut sum, mut norm) = (DVec2::ZERO, 0.0);
    for f in fields {
        if let Some((n, t)) = f.sample(p) {
            sum += t;
            norm += n;
        }
    }
    if norm > 0.0 { sum / norm } else { DVec2::ZERO }
}

/// The unit major eigenvector of tensor `t` (the one with x ≥ 0 up to
/// rounding, or y > 0 on the y axis); `None` when `|t| <` [`DEGENERATE`] or
/// `t` is not finite.
#[inline(always)]
pub fn major_of(t: DVec2) -> Option<DVec2> {
    let n2 = t.length_squared();
    if !(DEGENERATE * DEGENERATE..f64::INFINITY).contains(&n2) {
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

/// Writes to `out` the unit major eigenvectors (zero where degenerate) of
/// the averaged tensors `sum[i] / norm[i]` (zero where `norm` is not
/// positive): [`major_of`] of each, two at a time where the processor
/// can (the same operations, so the same bits).
fn majors(sum: &[DVec2], norm: &[f64], out: &mut [DVec2]) {
    let one = |s: DVec2, n: f64| {
        let t = if n > 0.0 { s / n } else { DVec2::ZERO };
        major_of(t).unwrap_or(DVec2::ZERO)
    };
    let n = sum.len().min(norm.len()).min(out.len());
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    {
        let pairs = sum[..n].chunks_exact(2).zip(norm[..n].chunks_exact(2));
        for ((s, w), o) in pairs.zip(out.chunks_exact_mut(2)) {
            let [a, b] = majors2([s[0], s[1]], [w[0], w[1]]);
            (o[0], o[1]) = (a, b);
            done += 2;
        }
    }
    for ((o, &s), &w) in out[done..n]
        .iter_mut()
        .zip(&sum[done..n])
        .zip(&norm[done..n])
    {
        *o = one(s, w);
    }
}

/// [`majors`] of two tensors in the lanes of SSE2 registers: each lane
/// the operations of [`major_of`] in order, both sides of each choice
/// computed and one kept.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn majors2(s: [DVec2; 2], w: [f64; 2]) -> [DVec2; 2] {
    // SAFETY: SSE2 is in every x86_64 processor; only registers are used.
    unsafe {
        use std::arch::x86_64::*;
        let pick =
            |m: __m128d, a: __m128d, b: __m128d| _mm_or_pd(_mm_and_pd(m, a), _mm_andnot_pd(m, b));
        let w = _mm_set_pd(w[1], w[0]);
        let t_x = _mm_div_pd(_mm_set_pd(s[1].x, s[0].x), w);
        let t_y = _mm_div_pd(_mm_set_pd(s[1].y, s[0].y), w);
        let n2 = _mm_add_pd(_mm_mul_pd(t_x, t_x), _mm_mul_pd(t_y, t_y));
        let ok = _mm_and_pd(
            _mm_and_pd(
                _mm_cmpgt_pd(w, _mm_setzero_pd()),
                _mm_cmpge_pd(n2, _mm_set1_pd(DEGENERATE * DEGENERATE)),
            ),
            _mm_cmplt_pd(n2, _mm_set1_pd(f64::INFINITY)),
        );
        let n = _mm_sqrt_pd(n2);
        let pos = _mm_cmpge_pd(t_x, _mm_setzero_pd());
        let v_x = pick(pos, _mm_add_pd(t_x, n), t_y);
        let v_y = pick(pos, t_y, _mm_sub_pd(n, t_x));
        let len = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(v_x, v_x), _mm_mul_pd(v_y, v_y)));
        let u_x = _mm_and_pd(ok, _mm_div_pd(v_x, len));
        let u_y = _mm_and_pd(ok, _mm_div_pd(v_y, len));
        let (mut x, mut y) = ([0.0; 2], [0.0; 2]);
        _mm_storeu_pd(x.as_mut_ptr(), u_x);
        _mm_storeu_pd(y.as_mut_ptr(), u_y);
        [DVec2::new(x[0], y[0]), DVec2::new(x[1], y[1])]
    }
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
        for (i, f) in self.fields.iter().enumerate() {
            f.validate().map_err(|e| e.at("fields", i))?;
        }
        Ok(())
    }

    /// The averaged tensor `(m·cos 2θ, m·sin 2θ)` at `p`, `0 ≤ m ≤ 1`; zero
    /// where no basis field reaches.
    pub fn tensor(&self, p: DVec2) -> DVec2 {
        let prepared: Vec<Prepared> = self.fields.iter().map(BasisField::prepare).collect();
        average(&prepared, p)
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
        if !(cells.x >= 0.0
            && cells.y >= 0.0
            && (cells.x + 2.0) * (cells.y + 2.0) <= MAX_FIELD_CELLS)
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
        Ok(SampledField::new(self, min, cell, nx, ny))
    }
}

/// The eigen-field cache (the seed's "eigen field"): a [`TensorField`]'s
/// major eigenvector evaluated at the corners of a square grid and, per
/// cell, its four corners turned to agree and interpolated bilinearly
/// (stored as `a + b·u + c·v + d·u·v`). Tracing turns the interpolated
/// vector to agree with the direction it comes from. A cell whose corners
/// differ by more than 60°, or has a degenerate corner, is degenerate
/// itself (lines stop there): it holds a degenerate point of the field or
/// bends too sharply to interpolate. Outside the grid the nearest edge
/// cell repeats.
#[derive(Clone, Debug, PartialEq)]
pub struct SampledField {
    origin: DVec2,
    /// 1 / cell side.
    inv: f64,
    /// Cells per row.
    nx: usize,
    /// The largest fractional cell coordinates, just below `(nx, ny)`.
    top: DVec2,
    cells: Vec<Cell>,
}

/// One cell's interpolation `a + b·u + c·v + d·u·v` (x and y of each,
/// f32), NaN where degenerate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cell([f32; 8]);

/// A point in the eigen-field cache: its cell and where in it (`uv` in
/// `[0, 1)²` inside the grid).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Located {
    pub cell: Cell,
    pub uv: DVec2,
}

impl Located {
    /// The eigenvector at `uv` in this cell (see [`SampledField::towards`]).
    #[inline(always)]
    pub fn at(&self, uv: DVec2, minor: bool, to: DVec2) -> DVec2 {
        let [ax, ay, bx, by, cx, cy, dx, dy] = self.cell.0;
        let (u, v) = (uv.x as f32, uv.y as f32);
        let m = DVec2::new(
            (ax + bx * u + (cx + dx * u) * v) as f64,
            (ay + by * u + (cy + dy * u) * v) as f64,
        );
        let w = if minor { m.perp() } else { m };
        w * 1.0f64.copysign(w.dot(to))
    }

    /// The eigenvector at the located point.
    #[inline(always)]
    pub fn towards(&self, minor: bool, to: DVec2) -> DVec2 {
        self.at(self.uv, minor, to)
    }
}

impl Cell {
    /// A degenerate cell.
    pub(crate) const NAN: Self = Self([f32::NAN; 8]);

    /// The interpolated major (or, with `MINOR`, minor) eigenvector at
    /// `(u, v)`, unaligned. Any two vectors of one cell point within 90°
    /// of each other (the corners agree within 60° and the weights are
    /// convex), so one sign aligns them all.
    #[inline(always)]
    pub(crate) fn eval<const MINOR: bool>(&self, u: f32, v: f32) -> [f32; 2] {
        let [ax, ay, bx, by, cx, cy, dx, dy] = self.0;
        let x = ax + bx * u + (cx + dx * u) * v;
        let y = ay + by * u + (cy + dy * u) * v;
        if MINOR { [-y, x] } else { [x, y] }
    }
}

/// Corners of a cell must agree to this cosine (60°), or it is degenerate.
const MIN_AGREEMENT: f64 = 0.5;

/// Interpolated eigenvectors shorter than this count as degenerate.
pub const MIN_EIGEN: f64 = 0.5;

impl Cell {
    /// The cell of corners `[c00, c10, c01, c11]` (unit or zero).
    #[inline(always)]
    fn new(corners: [DVec2; 4]) -> Self {
        let [c0, c1, c2, c3] = corners;
        // Each corner turned to agree with the first. Turning flips the
        // sign of its dot products exactly, so the six agreement tests
        // need only the six raw dot products.
        let (d1, d2, d3) = (c1.dot(c0), c2.dot(c0), c3.dot(c0));
        let [s1, s2, s3] = [d1, d2, d3].map(|d| 1.0f64.copysign(d));
        let agree = [d1.abs(), d2.abs(), d3.abs()]
            .into_iter()
            .chain([
                s1 * s2 * c1.dot(c2),
                s1 * s3 * c1.dot(c3),
                s2 * s3 * c2.dot(c3),
            ])
            .all(|d| d >= MIN_AGREEMENT);
        let c = [c0, c1 * s1, c2 * s2, c3 * s3];
        if !agree {
            return Self([f32::NAN; 8]);
        }
        let (a, b, cc, d) = (c[0], c[1] - c[0], c[2] - c[0], c[3] - c[1] - c[2] + c[0]);
        Self([a.x, a.y, b.x, b.y, cc.x, cc.y, d.x, d.y].map(|v| v as f32))
    }
}

/// Most threads that sample one eigen-field cache.
const SAMPLING_THREADS: usize = 4;
/// Fewest corners worth a thread of their own.
const MIN_CORNERS_PER_THREAD: usize = 1 << 15;

/// A corner that no grid field reaches alone (see [`lone_grids`]).
const NOT_LONE: u16 = 0;

/// Marks in `lone` (a corner of row `y` each, from `x0`, `step` apart)
/// the corners one grid field alone reaches, surely, with its index + 1;
/// the others [`NOT_LONE`]. There the averaged tensor is that field's own.
fn lone_grids(prepared: &[Prepared], x0: f64, step: f64, y: f64, lone: &mut [u16]) {
    const _: () = assert!(MAX_BASIS_FIELDS < u16::MAX as usize);
    lone.fill(NOT_LONE);
    let n = lone.len();
    for (k, f) in prepared.iter().enumerate() {
        lone[f.surely_reached(x0, step, y, n)].fill(k as u16 + 1);
    }
    // Where another field may reach too (a field's sure reach is within
    // its reach, so two grids' overlap is unmarked whichever came last).
    for (k, f) in prepared.iter().enumerate() {
        for l in &mut lone[f.row_reach(x0, step, y, n)] {
            if *l != k as u16 + 1 {
                *l = NOT_LONE;
            }
        }
    }
}

/// Fills `out` with the cells of rows `first..` (as many as it holds) of
/// the grid of `nx` corners a row from `min`, cells of side `cell`: row
/// by row, field by field (the sums of `average`, in its order), each row
/// of cells from the corners of the row before and this one. Where one
/// grid field alone reaches, its tensor is taken as the average without
/// summing (a cell with four such corners is that field's cell). Every cell
/// of `out` is written (it holds whole rows).
fn sample_rows(
    prepared: &[Prepared],
    min: DVec2,
    cell: f64,
    nx: usize,
    first: usize,
    out: &mut [MaybeUninit<Cell>],
) {
    assert_eq!(out.len() % (nx - 1), 0, "whole rows of cells");
    // Per field: its major and cell where it alone reaches (grids).
    let alone: Vec<(DVec2, Cell)> = (prepared.iter())
        .map(|f| {
            let m = f.grid_tensor().and_then(major_of).unwrap_or(DVec2::ZERO);
            (m, Cell::new([m; 4]))
        })
        .collect();
    let (mut sum, mut norm) = (vec![DVec2::ZERO; nx], vec![0.0; nx]);
    let (mut below, mut above) = (vec![DVec2::ZERO; nx], vec![DVec2::ZERO; nx]);
    let (mut lone_below, mut lone_above) = (vec![NOT_LONE; nx], vec![NOT_LONE; nx]);
    let last = first + out.len() / (nx - 1);
    let mut rows = out.chunks_mut(nx - 1);
    for j in first..=last {
        let y = min.y + j as f64 * cell;
        lone_grids(prepared, min.x, cell, y, &mut lone_above);
        for (k, f) in prepared.iter().enumerate() {
            let me = k as u16 + 1;
            f.add_row(min.x, cell, y, (&mut sum, &mut norm), |i| {
                lone_above[i] == me
            });
        }
        // The majors: runs of corners a grid reaches alone take its own.
        let mut i = 0;
        while i < nx {
            let l = lone_above[i];
            let run = lone_above[i..].iter().take_while(|&&m| m == l).count();
            let out = &mut above[i..i + run];
            if l == NOT_LONE {
                majors(&sum[i..i + run], &norm[i..i + run], out);
            } else {
                out.fill(alone[l as usize - 1].0);
            }
            i += run;
        }
        sum.fill(DVec2::ZERO);
        norm.fill(0.0);
        if j > first {
            let row = rows
                .next()
                .expect("a row of cells per corner row after the first");
            for (i, c) in row.iter_mut().enumerate() {
                let l = lone_below[i];
                c.write(
                    if l != NOT_LONE
                        && [lone_below[i + 1], lone_above[i], lone_above[i + 1]] == [l; 3]
                    {
                        alone[l as usize - 1].1
                    } else {
                        Cell::new([below[i], below[i + 1], above[i], above[i + 1]])
                    },
                );
            }
        }
        std::mem::swap(&mut below, &mut above);
        std::mem::swap(&mut lone_below, &mut lone_above);
    }
}

impl SampledField {
    /// The field of `field` over cells of side `cell` from `min`, with
    /// `nx × ny` corners (both ≥ 2). A large grid is sampled in bands of
    /// rows on several threads (see [`SAMPLING_THREADS`]; they inherit the
    /// caller's scheduling, e.g. the plugin workers' idle class); every
    /// cell is computed alike either way, so the result is the same.
    fn new(field: &TensorField, min: DVec2, cell: f64, nx: usize, ny: usize) -> Self {
        let prepared: Vec<Prepared> = field.fields.iter().map(BasisField::prepare).collect();
        let rows = ny - 1;
        let n = (nx - 1) * rows;
        // Not filled first: each band's thread writes (and faults in) its own.
        let mut cells: Vec<Cell> = Vec::with_capacity(n);
        let cores = super::cores();
        let threads = cores
            .min(SAMPLING_THREADS)
            .min(nx * ny / MIN_CORNERS_PER_THREAD)
            .max(1);
        let band = rows.div_ceil(threads) * (nx - 1);
        let sample = |k: usize, out: &mut [MaybeUninit<Cell>]| {
            sample_rows(&prepared, min, cell, nx, k * band / (nx - 1), out);
        };
        // The first band on this thread, the others on their own; a band
        // whose thread cannot be started is sampled here afterwards.
        let mut left = Vec::new();
        std::thread::scope(|s| {
            let mut bands = cells.spare_capacity_mut()[..n].chunks_mut(band).enumerate();
            let first = bands.next();
            for (k, out) in bands {
                let spawned = std::thread::Builder::new().spawn_scoped(s, move || sample(k, out));
                if spawned.is_err() {
                    left.push(k);
                }
            }
            if let Some((_, out)) = first {
                sample(0, out);
            }
        });
        for k in left {
            let end = ((k + 1) * band).min(n);
            sample(k, &mut cells.spare_capacity_mut()[k * band..end]);
        }
        // SAFETY: the bands cover the first `n` cells, and each band was
        // sampled in full, on its thread or here (`sample_rows` writes
        // every cell of its rows; a thread that panicked would have ended
        // the scope above with its panic).
        unsafe { cells.set_len(n) };
        let shrink = |n: usize| (n - 1) as f64 * (1.0 - f64::EPSILON) - 1.0e-9;
        Self {
            origin: min,
            inv: 1.0 / cell,
            nx: nx - 1,
            top: DVec2::new(shrink(nx), shrink(ny)),
            cells,
        }
    }

    /// The cell holding `p` and where `p` lies in it.
    #[inline(always)]
    pub(crate) fn locate(&self, p: DVec2) -> Located {
        let (i, j, uv) = self.index_of(p);
        Located {
            cell: self.cells[j as usize * self.nx + i as usize],
            uv,
        }
    }

    /// Column and row of the cell holding `p` (the nearest edge cell
    /// outside the grid) and where `p` lies in it.
    #[inline(always)]
    pub(crate) fn index_of(&self, p: DVec2) -> (u32, u32, DVec2) {
        let f = (p - self.origin) * self.inv;
        // `if` rather than `max`/`min`: one instruction each, and NaN → 0.
        let fx = if f.x > 0.0 { f.x } else { 0.0 };
        let fy = if f.y > 0.0 { f.y } else { 0.0 };
        let fx = if fx < self.top.x { fx } else { self.top.x };
        let fy = if fy < self.top.y { fy } else { self.top.y };
        // SAFETY: `fx`, `fy` are finite and in `[0, top]`, so they fit a u32.
        let (i, j) = unsafe { (fx.to_int_unchecked::<u32>(), fy.to_int_unchecked::<u32>()) };
        (i, j, DVec2::new(fx - i as f64, fy - j as f64))
    }

    /// Cell `(i, j)`, `None` outside the grid.
    #[inline(always)]
    pub(crate) fn cell(&self, i: i32, j: i32) -> Option<&Cell> {
        if (i as u32 as usize) < self.nx {
            self.cells
                .get(j as u32 as usize * self.nx + i as u32 as usize)
        } else {
            None
        }
    }

    /// 1 / cell side.
    #[inline(always)]
    pub(crate) fn inv_cell(&self) -> f64 {
        self.inv
    }

    /// The cell side.
    #[inline(always)]
    pub(crate) fn cell_side(&self) -> f64 {
        1.0 / self.inv
    }

    /// The interpolated major (or, with `minor`, minor) eigenvector at `p`,
    /// turned to agree with `to`: about unit length, NaN where degenerate.
    #[inline(always)]
    pub(crate) fn towards(&self, p: DVec2, minor: bool, to: DVec2) -> DVec2 {
        self.locate(p).towards(minor, to)
    }

    /// The major eigenvector at `p` (unit, either sign), `None` where
    /// degenerate.
    pub fn major(&self, p: DVec2) -> Option<DVec2> {
        let m = self.towards(p, false, DVec2::X);
        (m.length() >= MIN_EIGEN).then(|| m.normalize())
    }

    /// The minor eigenvector at `p` (unit, either sign), `None` where
    /// degenerate.
    pub fn minor(&self, p: DVec2) -> Option<DVec2> {
        self.major(p).map(DVec2::perp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `sample_rows` over `nx × ny` corners, in bands of `band` rows.
    fn in_bands(
        prepared: &[Prepared],
        min: DVec2,
        cell: f64,
        (nx, ny): (usize, usize),
        band: usize,
    ) -> Vec<Cell> {
        let mut cells = vec![MaybeUninit::new(Cell::NAN); (nx - 1) * (ny - 1)];
        for (k, out) in cells.chunks_mut(band * (nx - 1)).enumerate() {
            sample_rows(prepared, min, cell, nx, k * band, out);
        }
        // SAFETY: every cell was initialised (and then sampled).
        cells
            .into_iter()
            .map(|c| unsafe { c.assume_init() })
            .collect()
    }

    /// Cells sampled in bands of rows (as threads sample them) are the
    /// cells sampled in one pass, bit for bit, whatever the bands.
    #[test]
    fn bands_of_rows_sample_the_same_cells() {
        let mut field = TensorField::default();
        field.add(BasisField::grid(DVec2::new(100.0, 80.0), 300.0, 2.0, 0.3));
        field.add(BasisField::radial(DVec2::new(140.0, 60.0), 90.0, 5.0));
        let prepared: Vec<Prepared> = field.fields.iter().map(BasisField::prepare).collect();
        let (min, cell, nx, ny) = (DVec2::new(-3.0, -7.0), 2.5, 97, 83);
        let whole = in_bands(&prepared, min, cell, (nx, ny), ny);
        let bits = |cells: &[Cell]| -> Vec<u32> {
            cells.iter().flat_map(|c| c.0.map(f32::to_bits)).collect()
        };
        assert!(whole.iter().any(|c| c.0[0].is_nan()) && whole.iter().any(|c| !c.0[0].is_nan()));
        for band in [1, 7, 40, 82] {
            let banded = in_bands(&prepared, min, cell, (nx, ny), band);
            assert_eq!(bits(&banded), bits(&whole), "bands of {band} rows");
        }
        // A grid large enough for threads gives the one-pass cells too.
        let (nx, ny) = (400, 300);
        let big = SampledField::new(&field, min, cell, nx, ny);
        let one = in_bands(&prepared, min, cell, (nx, ny), ny);
        assert_eq!(bits(&big.cells), bits(&one));
    }

    /// Where one grid field alone reaches, its own tensor is taken without
    /// weighing: the cells are still those of the averaged field at their
    /// corners (to the f32 they are stored in), degenerate ones included.
    #[test]
    fn a_grid_alone_is_its_own_average() {
        let mut field = TensorField::default();
        field.add(BasisField::grid(DVec2::new(100.0, 80.0), 150.0, 2.0, 0.3));
        field.add(BasisField::radial(DVec2::new(140.0, 60.0), 40.0, 5.0));
        field.add(BasisField::grid(DVec2::new(260.0, 90.0), 80.0, 1.5, 1.1));
        let prepared: Vec<Prepared> = field.fields.iter().map(BasisField::prepare).collect();
        let (min, cell, nx, ny) = (DVec2::new(-80.0, -90.0), 2.5, 181, 141);
        let cells = in_bands(&prepared, min, cell, (nx, ny), 50);
        let corner = |i: usize, j: usize| {
            let p = min + DVec2::new(i as f64, j as f64) * cell;
            field.major(p).unwrap_or(DVec2::ZERO)
        };
        let grid_cell = Cell::new([major_of(DVec2::new(0.6f64.cos(), 0.6f64.sin())).unwrap(); 4]);
        let (mut lone, mut degenerate) = (0, 0);
        for (k, c) in cells.iter().enumerate() {
            let (i, j) = (k % (nx - 1), k / (nx - 1));
            let want = Cell::new([
                corner(i, j),
                corner(i + 1, j),
                corner(i, j + 1),
                corner(i + 1, j + 1),
            ]);
            assert_eq!(c.0[0].is_nan(), want.0[0].is_nan(), "cell {i}, {j}");
            degenerate += c.0[0].is_nan() as usize;
            for (a, b) in c.0.iter().zip(&want.0).filter(|(a, _)| !a.is_nan()) {
                assert!((a - b).abs() <= 2.0e-7, "cell {i}, {j}: {c:?} {want:?}");
            }
            lone += (c.0 == grid_cell.0) as usize;
        }
        assert!(degenerate > 1000 && lone > 5000, "{degenerate} {lone}");
        // Along a row through the radial field: the first grid's corners
        // alone, none where the radial one or both grids may reach, then
        // the second grid's; beyond the first's sure reach, none.
        let y = 60.0;
        let mut marks = vec![NOT_LONE; nx];
        lone_grids(&prepared, min.x, cell, y, &mut marks);
        let at = |x: f64| marks[((x - min.x) / cell).round() as usize];
        assert_eq!(
            [at(0.0), at(90.0), at(140.0), at(200.0), at(270.0)],
            [1, 1, 0, 0, 3]
        );
        assert_eq!(at(-79.0), 0);
    }

    /// The paired eigenvectors are `major_of`'s, bit for bit, degenerate
    /// and odd inputs included.
    #[test]
    fn rows_of_majors_match_major_of() {
        let mut s = 77u64;
        let mut unit = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        let mut sum: Vec<DVec2> = (0..999).map(|_| DVec2::new(unit(), unit())).collect();
        let mut norm: Vec<f64> = (0..999).map(|_| unit().abs() * 2.0).collect();
        let odd = [
            (DVec2::ZERO, 0.0),
            (DVec2::ZERO, 1.0),
            (DVec2::new(1.0e-7, 0.0), 1.0),
            (DVec2::new(-0.5, 0.0), 1.0),
            (DVec2::new(-0.0, 0.3), 1.0),
            (DVec2::new(f64::NAN, 0.3), 1.0),
            (DVec2::new(1.0, 1.0), -1.0),
            (DVec2::new(1.0e300, 1.0e300), 1.0e-300),
        ];
        for (k, (t, w)) in odd.into_iter().enumerate() {
            (sum[k * 7], norm[k * 7]) = (t, w);
        }
        let mut out = vec![DVec2::ZERO; sum.len()];
        majors(&sum, &norm, &mut out);
        assert_eq!(out.len(), sum.len());
        for ((m, &s), &w) in out.iter().zip(&sum).zip(&norm) {
            let t = if w > 0.0 { s / w } else { DVec2::ZERO };
            let want = major_of(t).unwrap_or(DVec2::ZERO);
            assert_eq!(
                (m.x.to_bits(), m.y.to_bits()),
                (want.x.to_bits(), want.y.to_bits()),
                "{s} {w}"
            );
        }
    }
}
