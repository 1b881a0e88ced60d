//! The request's frame: a grid anchored at `from` and turned so that `to`
//! is a grid point, its finer sample lattice and Bresenham walks on it
//! (the lake test on it is `lake.rs`).

use super::PlannerParams;
use crate::terrain::Terrain;
use glam::DVec2;

/// A request's grid: cell `(i, j)` is `from + (i·u + j·v)·cell`, `to` is
/// cell `(n, 0)`. Terrain samples lie on the lattice `sub` times finer.
#[derive(Clone, Debug)]
pub(crate) struct Frame {
    pub from: DVec2,
    pub to: DVec2,
    /// Unit vector from `from` towards `to`.
    pub u: DVec2,
    /// `u` turned left.
    pub v: DVec2,
    /// `to` is cell `(n, 0)` (`n` ≥ 1), or off the grid for ends closer
    /// than half a step (`n` = 0; the planners do not search those).
    pub n: i64,
    /// Cell size, metres (the step, adjusted so `to` falls on the grid).
    pub cell: f64,
    /// Samples per cell along an axis.
    pub sub: i64,
    /// `|to − from|`.
    pub direct: f64,
    /// The lake level.
    pub lake: f64,
    /// An upper bound of the terrain's slope (m/m), for the dryness proof;
    /// `None` where it cannot be bounded simply (mountain shaping).
    pub lipschitz: Option<f64>,
    /// The height terms `(a, b, offset)`: term `i` is the profile,
    /// linearly interpolated, at `(a·x + b·y + offset) / 128`.
    pub(super) terms: Vec<(f64, f64, f64)>,
    pub(super) prof: Vec<f64>,
    pub(super) mask: i64,
    /// Range minima of the profile (sparse table over two periods):
    /// `mins[l][i]` = min of `prof[i .. i + 2^l]` (indices mod the length);
    /// empty for very long profiles.
    pub(super) mins: Vec<Vec<f64>>,
}

impl Frame {
    pub fn new(terrain: &Terrain, from: DVec2, to: DVec2, params: &PlannerParams) -> Self {
        let d = to - from;
        let direct = d.length();
        let u = if direct > 0.0 { d / direct } else { DVec2::X };
        // Ends closer than half a step get no grid of their own (a cell
        // that small would make the window's cell count unbounded): the
        // cell stays `step` and `to` is off the grid (`n` = 0).
        let n = if direct >= params.step * 0.5 {
            ((direct / params.step).round() as i64).max(1)
        } else {
            0
        };
        let cell = if n > 0 {
            direct / n as f64
        } else {
            params.step
        };
        let sub = ((cell / params.sample).round() as i64).max(1);
        let tp = terrain.params();
        let lipschitz = tp.mountain_base.is_none().then(|| {
            let prof = &tp.profile;
            let max_step = (0..prof.len())
                .map(|k| (prof[(k + 1) % prof.len()] - prof[k]).abs())
                .fold(0.0, f64::max);
            tp.height_vectors.iter().map(|v| v.length()).sum::<f64>() * max_step / 128.0
        });
        let terms = tp
            .height_vectors
            .iter()
            .enumerate()
            .map(|(k, v)| {
                (
                    v.x,
                    v.y,
                    tp.time_vector.get(k).copied().unwrap_or(0.0) * tp.time,
                )
            })
            .collect();
        let prof = &tp.profile;
        let mut mins = Vec::new();
        if prof.len() <= 4096 {
            let n = prof.len();
            mins.push((0..2 * n).map(|i| prof[i % n]).collect::<Vec<f64>>());
            while 1usize << mins.len() <= n {
                let half = 1usize << (mins.len() - 1);
                let last = mins.last().expect("level 0");
                let next = (0..2 * n)
                    .map(|i| last[i].min(last[(i + half).min(2 * n - 1)]))
                    .collect();
                mins.push(next);
            }
        }
        Self {
            mins,
            terms,
            prof: tp.profile.clone(),
            mask: tp.profile.len() as i64 - 1,
            from,
            to,
            u,
            v: u.perp(),
            n,
            cell,
            sub,
            direct,
            lake: tp.lake_level,
            lipschitz,
        }
    }

    /// The position of grid cell `(i, j)`; `from` and `to` exactly at theirs.
    #[inline]
    pub fn point(&self, i: i64, j: i64) -> DVec2 {
        self.lattice(i * self.sub, j * self.sub)
    }

    /// The position of lattice point `(a, b)` (`sub` per cell).
    #[inline]
    pub fn lattice(&self, a: i64, b: i64) -> DVec2 {
        if b == 0 && a == 0 {
            return self.from;
        }
        if b == 0 && a == self.n * self.sub {
            return self.to;
        }
        let s = self.cell / self.sub as f64;
        self.from + self.u * (a as f64 * s) + self.v * (b as f64 * s)
    }

    /// The nearest lattice point of a position.
    #[inline]
    pub fn to_lattice(&self, p: DVec2) -> (i64, i64) {
        let d = p - self.from;
        let s = self.cell / self.sub as f64;
        (round(d.dot(self.u) / s), round(d.dot(self.v) / s))
    }

    /// The nearest grid cell of a position.
    #[inline]
    pub fn to_cell(&self, p: DVec2) -> (i64, i64) {
        let d = p - self.from;
        (
            round(d.dot(self.u) / self.cell),
            round(d.dot(self.v) / self.cell),
        )
    }

    /// Progress of a point along the straight line, as a fraction of `direct`.
    #[inline]
    pub fn progress(&self, p: DVec2) -> f64 {
        if self.direct > 0.0 {
            (p - self.from).dot(self.u) / self.direct
        } else {
            1.0
        }
    }
}

/// `x.round() as i64` without a libm call (baseline x86-64 has no
/// `roundsd`): exact, as `x − trunc(x)` is, below 2⁵² in magnitude.
#[inline]
fn round(x: f64) -> i64 {
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        return x.round() as i64;
    }
    let t = x as i64;
    let f = x - t as f64;
    if f >= 0.5 {
        t + 1
    } else if f <= -0.5 {
        t - 1
    } else {
        t
    }
}

/// Calls `f` on the lattice points strictly between `a` and `b` on the
/// Bresenham line (§5.4), in order from `a`.
#[inline]
pub(crate) fn bresenham_inner(a: (i64, i64), b: (i64, i64), mut f: impl FnMut(i64, i64)) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let (sx, sy) = (dx.signum(), dy.signum());
    let (ax, ay) = (dx.abs(), dy.abs());
    let steep = ay > ax;
    let (major, minor) = if steep { (ay, ax) } else { (ax, ay) };
    let mut err = 2 * minor - major;
    let (mut x, mut y) = a;
    for _ in 1..major {
        if err > 0 {
            if steep {
                x += sx;
            } else {
                y += sy;
            }
            err -= 2 * major;
        }
        err += 2 * minor;
        if steep {
            y += sy;
        } else {
            x += sx;
        }
        f(x, y);
    }
}

#[cfg(test)]
#[test]
fn round_matches_std() {
    for x in [
        0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.4999999999999996,
        -7.5,
        1e15 + 0.5,
        3e16,
        f64::NAN,
        1e300,
    ] {
        assert_eq!(round(x), x.round() as i64, "{x}");
    }
}
