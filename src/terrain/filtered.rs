//! The built ground on a coarse grid, filtered to the grid's spacing: what a
//! distant chunk meshes. A grid coarser than what is built (pads and roads a
//! few metres across, retaining walls between them) that took one sample per
//! vertex would alias: each vertex takes whichever pad or road it lands on,
//! and the surface spikes between them. Here each vertex takes the mean
//! height over its cell, from a finer grid of sub-samples: the built height
//! where something is built, else the natural height at the vertex itself.
//! Where nothing is built the heights are the natural ones, and on a level
//! pad the pad's, bit for bit. The same sub-samples tell what each vertex's
//! cell is built of ([`BuiltMix`]), so that its colour can be their mean
//! too, rather than whichever cut face or pad the vertex lands on.

use super::{BuiltKind, GridError, LaidGround};

/// Most sub-samples per side of a vertex's cell (16 a vertex: a 35 × 35
/// chunk grid over a city then costs a few milliseconds at most).
pub const MAX_SUBSAMPLES: usize = 4;

/// Most sub-samples of one grid (bounds the scratch memory: two grids of
/// f64, 4 MiB in all); a larger grid takes fewer per cell.
pub const MAX_FILTER_SAMPLES: usize = 1 << 18;

/// Sub-samples per side of a cell of side `step` for sub-samples about
/// `sub` apart, within [`MAX_SUBSAMPLES`] and, for a `w × h` grid,
/// [`MAX_FILTER_SAMPLES`] in all; 1: no filtering.
pub fn subsamples(step: f64, sub: f64, w: usize, h: usize) -> usize {
    let want = (step / sub).round();
    let mut k = if want.is_finite() && want >= 1.0 {
        (want as usize).min(MAX_SUBSAMPLES)
    } else {
        1
    };
    while k > 1 && w.saturating_mul(k).saturating_mul(h.saturating_mul(k)) > MAX_FILTER_SAMPLES {
        k -= 1;
    }
    k
}

/// The sub-samples of a `k × k` cell its colour is judged by, as (column,
/// row): all of a 2 × 2 or coarser set, else one a row with each column once
/// (a rotated grid, as multisampling lays its samples), so that an edge
/// along either axis is seen at a quarter of the cost.
fn colour_samples(k: usize) -> impl Iterator<Item = (usize, usize)> {
    const _: () = assert!(MAX_SUBSAMPLES <= 4, "rotated grids up to 4 × 4");
    let rook: &'static [usize] = match k {
        3 => &[0, 2, 1],
        4 => &[1, 3, 0, 2],
        _ => &[],
    };
    (0..k).flat_map(move |b| {
        (0..k).filter_map(move |a| (rook.is_empty() || rook[b] == a).then_some((a, b)))
    })
}

/// What a filtered vertex's cell is built of: of the `of` sub-samples it is
/// judged by (every one of a 2 × 2 set, else one in each row and column of
/// the cell's sub-samples), how many each [`BuiltKind`] shapes (`kinds`, in
/// the order of [`BuiltKind::ALL`]); the rest are natural ground (as for
/// the filtered heights, a sub-sample built at its natural height counts
/// as natural).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BuiltMix {
    /// Sub-samples of each kind.
    pub kinds: [u8; 4],
    /// Sub-samples judged.
    pub of: u8,
}

impl BuiltMix {
    /// The sub-samples of natural ground.
    pub fn natural(&self) -> u8 {
        self.of - self.kinds.iter().sum::<u8>()
    }

    /// The mean of `of_kind` for each built sub-sample and `natural` for
    /// the rest, component by component.
    pub fn mean<const N: usize>(
        &self,
        of_kind: impl Fn(BuiltKind) -> [f32; N],
        natural: [f32; N],
    ) -> [f32; N] {
        let mut sum = natural.map(|c| c * self.natural() as f32);
        for (kind, &n) in BuiltKind::ALL.into_iter().zip(&self.kinds) {
            if n > 0 {
                let c = of_kind(kind);
                for (s, c) in sum.iter_mut().zip(c) {
                    *s += c * n as f32;
                }
            }
        }
        sum.map(|s| s / self.of.max(1) as f32)
    }
}

impl LaidGround {
    /// [`heights_grid_filtered`](Self::heights_grid_filtered), and in `mix`
    /// what each vertex's cell is built of ([`LaidGround::built`] at some
    /// of the same sub-samples, see [`BuiltMix`]). `mix` is left empty
    /// where nothing is filtered (a grid no coarser than `sub`, no relief,
    /// or nothing built in reach): each vertex is then its own point sample.
    pub fn heights_grid_filtered_mix(
        &self,
        corner: (f64, f64, f64),
        size: (usize, usize),
        sub: f64,
        (out, natural): (&mut Vec<f64>, &mut Vec<f64>),
        mix: &mut Vec<BuiltMix>,
    ) -> Result<(), GridError> {
        self.filtered(corner, size, sub, out, natural, Some(mix))
    }

    /// [`heights_grid_and_natural`](Self::heights_grid_and_natural) with the
    /// built ground filtered to the grid's spacing (`corner` = `(x0, y0,
    /// step)`, `size` = `(w, h)`): `out[j*w + i]` is the
    /// mean at `k × k` points spread evenly over the `step`-square cell
    /// centred on `(x0 + i·step, y0 + j·step)` of the built height where
    /// something is built, else the natural height at the cell's centre;
    /// `k` from [`subsamples`] for sub-samples about `sub` apart. Where the
    /// points agree (nothing built, or one level pad) it is their height
    /// bit for bit, and with `k` = 1 (a grid no coarser than `sub`)
    /// [`heights_grid_and_natural`]'s.
    ///
    /// [`heights_grid_and_natural`]: Self::heights_grid_and_natural
    pub fn heights_grid_filtered(
        &self,
        corner: (f64, f64, f64),
        size: (usize, usize),
        sub: f64,
        out: &mut Vec<f64>,
        natural: &mut Vec<f64>,
    ) -> Result<(), GridError> {
        self.filtered(corner, size, sub, out, natural, None)
    }

    /// The filtered grid, with the cells' mixes where `mix` is given.
    fn filtered(
        &self,
        (x0, y0, step): (f64, f64, f64),
        (w, h): (usize, usize),
        sub: f64,
        out: &mut Vec<f64>,
        natural: &mut Vec<f64>,
        mut mix: Option<&mut Vec<BuiltMix>>,
    ) -> Result<(), GridError> {
        if let Some(m) = mix.as_deref_mut() {
            m.clear();
        }
        let k = subsamples(step, sub, w, h);
        let relief = match self.relief() {
            Some(relief) if k > 1 => relief,
            _ => return self.heights_grid_and_natural((x0, y0, step), w, h, out, natural),
        };
        self.terrain().heights_grid(x0, y0, step, w, h, natural)?;
        out.clear();
        out.extend_from_slice(natural);
        let half = 0.5 * step;
        let (lo, hi) = (
            glam::DVec2::new(x0 - half, y0 - half),
            glam::DVec2::new(
                x0 + w.saturating_sub(1) as f64 * step + half,
                y0 + h.saturating_sub(1) as f64 * step + half,
            ),
        );
        if w == 0 || h == 0 || !relief.may_shape(lo, hi) {
            return Ok(());
        }
        // The sub-samples: `k × k` per cell, the cells' grid `k` times finer.
        let fine = step / k as f64;
        let (fx0, fy0) = (x0 - half + 0.5 * fine, y0 - half + 0.5 * fine);
        let (fw, fh) = (w * k, h * k);
        let (mut laid, mut bare) = (Vec::new(), Vec::new());
        self.terrain()
            .heights_grid(fx0, fy0, fine, fw, fh, &mut bare)?;
        laid.extend_from_slice(&bare);
        relief.shape_grid(fx0, fy0, fine, fw, fh, &mut laid);
        let per = (k * k) as f64;
        if let Some(m) = mix.as_deref_mut() {
            m.resize(w * h, BuiltMix::default());
        }
        for j in 0..h {
            for i in 0..w {
                // Each sub-sample: the built height where something is built,
                // else the vertex's natural height (the grid's own picture
                // of the natural ground, which the filter leaves alone).
                let at = natural[j * w + i];
                let (mut sum, mut lo, mut hi) = (0.0, f64::INFINITY, f64::NEG_INFINITY);
                for b in 0..k {
                    let row = (j * k + b) * fw + i * k;
                    for (&l, &n) in laid[row..row + k].iter().zip(&bare[row..row + k]) {
                        let v = if l != n { l } else { at };
                        sum += v;
                        (lo, hi) = (lo.min(v), hi.max(v));
                    }
                }
                // All alike (a pad, or nothing built): that height exactly.
                out[j * w + i] = if lo == hi { lo } else { sum / per };
                let Some(m) = mix.as_deref_mut() else {
                    continue;
                };
                // What the colour sub-samples stand on.
                let mut cell = BuiltMix::default();
                for (a, b) in colour_samples(k) {
                    let at = (j * k + b) * fw + i * k + a;
                    cell.of += 1;
                    let p = glam::DVec2::new(
                        fx0 + (i * k + a) as f64 * fine,
                        fy0 + (j * k + b) as f64 * fine,
                    );
                    // (Unshaped, as the heights take it: nothing to ask.)
                    if laid[at] != bare[at]
                        && let Some(built) = relief.built(p, bare[at])
                    {
                        cell.kinds[built.kind.index()] += 1;
                    }
                }
                m[j * w + i] = cell;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::terrain::{Built, BuiltKind, Relief, Terrain};
    use glam::DVec2;
    use std::sync::Arc;

    /// Terraces 10 m wide in x, alternately 6 m above the natural ground
    /// and level with it (the kind of steps a coarse grid aliases).
    #[derive(Debug)]
    struct Steps;

    impl Relief for Steps {
        fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
            let raised = (p.x / 10.0).floor().rem_euclid(2.0) == 0.0;
            Some(Built {
                height: natural + if raised { 6.0 } else { 0.0 },
                kind: BuiltKind::Pad,
            })
        }

        fn may_shape(&self, _: DVec2, _: DVec2) -> bool {
            true
        }
    }

    /// Nothing built anywhere, but it says it may be.
    #[derive(Debug)]
    struct Nothing;

    impl Relief for Nothing {
        fn built(&self, _: DVec2, _: f64) -> Option<Built> {
            None
        }

        fn may_shape(&self, _: DVec2, _: DVec2) -> bool {
            true
        }
    }

    fn ground(relief: Option<Arc<dyn Relief>>) -> LaidGround {
        let g = LaidGround::new(Arc::new(Terrain::default()));
        match relief {
            Some(r) => g.with_relief(r),
            None => g,
        }
    }

    #[test]
    fn a_coarse_grid_takes_the_mean_of_the_steps_not_one_of_them() {
        let g = ground(Some(Arc::new(Steps)));
        let t = g.terrain().clone();
        let (w, h, step) = (24, 6, 8.0);
        let (x0, y0) = (19000.0, 1200.0);
        let (mut out, mut natural) = (Vec::new(), Vec::new());
        g.heights_grid_filtered((x0, y0, step), (w, h), 2.0, &mut out, &mut natural)
            .unwrap();
        let (mut pointwise, mut bare) = (Vec::new(), Vec::new());
        g.heights_grid_and_natural((x0, y0, step), w, h, &mut pointwise, &mut bare)
            .unwrap();
        assert_eq!(natural, bare);
        for (k, (&o, &n)) in out.iter().zip(&natural).enumerate() {
            let (x, y) = (x0 + (k % w) as f64 * step, y0 + (k / w) as f64 * step);
            // 4 × 4 sub-samples 2 m apart over [x − 4, x + 4)²: raised ones
            // at their built height, the rest at the vertex's natural one.
            let mut sum = 0.0;
            for b in 0..4 {
                for a in 0..4 {
                    let p = DVec2::new(x - 3.0 + 2.0 * a as f64, y - 3.0 + 2.0 * b as f64);
                    let raised = (p.x / 10.0).floor().rem_euclid(2.0) == 0.0;
                    sum += if raised { t.height(p.x, p.y) + 6.0 } else { n };
                }
            }
            assert!((o - sum / 16.0).abs() < 1.0e-9, "{k}: {o} {}", sum / 16.0);
        }
        // (Point samples jump between the two levels, by the full 6 m.)
        let jumps = (pointwise.iter().zip(&bare)).map(|(p, n)| p - n);
        assert!(jumps.clone().any(|e| (e - 6.0).abs() < 1.0e-9) && jumps.clone().any(|e| e == 0.0));
    }

    /// A level pad 36 m wide at 300 m, natural ground around it.
    #[derive(Debug)]
    struct Pad;

    impl Relief for Pad {
        fn built(&self, p: DVec2, _: f64) -> Option<Built> {
            ((19102.0..19138.0).contains(&p.x)).then_some(Built {
                height: 300.0,
                kind: BuiltKind::Pad,
            })
        }

        fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
            min.x < 19138.0 && max.x >= 19102.0
        }
    }

    #[test]
    fn a_level_pad_stays_level_and_its_edges_are_means() {
        let g = ground(Some(Arc::new(Pad)));
        let (x0, y0, step) = (19000.0, 1200.0, 8.0);
        let (mut out, mut natural) = (Vec::new(), Vec::new());
        g.heights_grid_filtered((x0, y0, step), (30, 4), 2.0, &mut out, &mut natural)
            .unwrap();
        for (k, (&o, &n)) in out.iter().zip(&natural).enumerate() {
            let x = x0 + (k % 30) as f64 * step;
            // Cells [x − 4, x + 4) (sub-samples at x ± 1 and x ± 3) wholly on
            // the pad, wholly off it, and three quarters on at its edges.
            if (19112.0..=19128.0).contains(&x) {
                assert_eq!(o, 300.0, "{x}");
            } else if x == 19104.0 || x == 19136.0 {
                let want = (3.0 * 300.0 + n) / 4.0;
                assert!((o - want).abs() < 1.0e-9, "{x}: {o} {want}");
            } else {
                assert_eq!(o, n, "{x}");
            }
        }
    }

    #[test]
    fn a_cell_s_mix_counts_its_built_sub_samples_by_kind() {
        let g = ground(Some(Arc::new(Pad)));
        let (x0, y0, step) = (19000.0, 1200.0, 8.0);
        let (mut out, mut natural, mut mix) = (Vec::new(), Vec::new(), Vec::new());
        let grids = (&mut out, &mut natural);
        g.heights_grid_filtered_mix((x0, y0, step), (30, 4), 2.0, grids, &mut mix)
            .unwrap();
        // The same heights as without the mixes.
        let (mut plain, mut bare) = (Vec::new(), Vec::new());
        g.heights_grid_filtered((x0, y0, step), (30, 4), 2.0, &mut plain, &mut bare)
            .unwrap();
        assert_eq!((&out, &natural), (&plain, &bare));
        assert_eq!(mix.len(), 30 * 4);
        let pad = BuiltKind::Pad.index();
        for (k, m) in mix.iter().enumerate() {
            let x = x0 + (k % 30) as f64 * step;
            // Four colour sub-samples, one in each column (x − 3, x − 1,
            // x + 1, x + 3): at the pad's edges, one of them is off it.
            let on = if (19112.0..=19128.0).contains(&x) {
                4
            } else if x == 19104.0 || x == 19136.0 {
                3
            } else {
                0
            };
            let mut want = [0; 4];
            want[pad] = on;
            assert_eq!(*m, BuiltMix { kinds: want, of: 4 }, "{x}");
            assert_eq!(m.natural(), 4 - on);
        }
        // The mean: a quarter natural at the pad's edge.
        let edge = mix[13];
        let c = edge.mean(|k| [k.index() as f32, 1.0], [10.0, 0.0]);
        assert_eq!(c, [(3.0 * pad as f32 + 10.0) / 4.0, 0.75]);
        // Where nothing is built, all natural.
        let nothing = ground(Some(Arc::new(Nothing)));
        let grids = (&mut out, &mut natural);
        (nothing.heights_grid_filtered_mix((x0, y0, step), (6, 2), 2.0, grids, &mut mix)).unwrap();
        assert!(mix.iter().all(|m| *m
            == BuiltMix {
                kinds: [0; 4],
                of: 4
            }));
        // Nothing filtered: no mixes (each vertex is its own sample).
        for (g, step) in [(ground(Some(Arc::new(Pad))), 2.0), (ground(None), 8.0)] {
            let grids = (&mut out, &mut natural);
            g.heights_grid_filtered_mix((x0, y0, step), (30, 4), 2.0, grids, &mut mix)
                .unwrap();
            assert!(mix.is_empty());
        }
    }

    #[test]
    fn colour_sub_samples_take_each_row_and_column_once() {
        for k in 1..=MAX_SUBSAMPLES {
            let s: Vec<(usize, usize)> = colour_samples(k).collect();
            if k <= 2 {
                assert_eq!(s.len(), k * k);
                continue;
            }
            assert_eq!(s.len(), k);
            for c in 0..k {
                assert_eq!(s.iter().filter(|p| p.0 == c).count(), 1, "{k}: column {c}");
                assert_eq!(s.iter().filter(|p| p.1 == c).count(), 1, "{k}: row {c}");
            }
        }
    }

    #[test]
    fn fine_grids_and_bare_ground_keep_their_heights_bit_for_bit() {
        let (x0, y0) = (19000.0, 1200.0);
        let grid = |g: &LaidGround, step: f64, filtered: bool| {
            let (mut out, mut natural) = (Vec::new(), Vec::new());
            if filtered {
                g.heights_grid_filtered((x0, y0, step), (20, 20), 2.0, &mut out, &mut natural)
            } else {
                g.heights_grid_and_natural((x0, y0, step), 20, 20, &mut out, &mut natural)
            }
            .unwrap();
            (out, natural)
        };
        // A grid as fine as the sub-samples: point samples.
        let steps = ground(Some(Arc::new(Steps)));
        assert_eq!(grid(&steps, 2.0, true), grid(&steps, 2.0, false));
        assert_eq!(grid(&steps, 2.9, true), grid(&steps, 2.9, false));
        // Nothing built, or no relief: the natural heights.
        for g in [ground(Some(Arc::new(Nothing))), ground(None)] {
            let (out, natural) = grid(&g, 16.0, true);
            assert_eq!(out, natural);
            assert_eq!((out, natural), grid(&ground(None), 16.0, false));
        }
    }

    #[test]
    fn sub_samples_are_bounded() {
        assert_eq!(subsamples(2.0, 2.0, 35, 35), 1);
        assert_eq!(subsamples(8.0, 2.0, 35, 35), 4);
        assert_eq!(subsamples(32.0, 2.0, 35, 35), MAX_SUBSAMPLES);
        // A large grid takes fewer, a huge one none.
        assert_eq!(subsamples(32.0, 2.0, 258, 258), 1);
        assert_eq!(subsamples(32.0, 2.0, 200, 200), 2);
        assert_eq!(subsamples(32.0, 2.0, usize::MAX, 2), 1);
        // Nonsense spacing: none.
        for (step, sub) in [(f64::NAN, 2.0), (8.0, 0.0), (8.0, -1.0), (-8.0, 2.0)] {
            assert_eq!(subsamples(step, sub, 35, 35), 1, "{step} {sub}");
        }
    }
}
