//! The built ground of a collider cell as a height field, open over the
//! tunnels' portals.

use super::{Built, COLLIDER_CELL, Cell, solids};
use crate::plugin::LaidRoads;
use crate::world::StructureKind;
use avian3d::parry::shape::{HeightField, HeightFieldCellStatus, HeightFieldFlags, SharedShape};
use avian3d::parry::utils::Array2;
use avian3d::prelude::Collider;
use bevy::math::DVec2;
use bevy::prelude::*;
use std::time::Instant;

/// The built ground over a cell as a height field of `n` × `n` cells,
/// relative to the cell's centre at height 0, open where a tunnel's tube
/// comes out of it (see [`tunnel_openings`]).
pub(super) fn ground_body(laid: &LaidRoads, c: Cell, n: usize) -> Built {
    let t0 = Instant::now();
    let step = COLLIDER_CELL / n as f64;
    let (x0, y0) = (c.0 as f64 * COLLIDER_CELL, c.1 as f64 * COLLIDER_CELL);
    let w = n + 1;
    let mut out = Vec::with_capacity(w * w);
    let collider = (laid.ground)
        .heights_grid(x0, y0, step, w, w, &mut out)
        .ok()
        .map(|()| {
            // Parry's rows run along Bevy's +Z (core south), its columns along
            // +X, column-major: row i is core y = y1 − i·step.
            let mut data = Vec::with_capacity(w * w);
            for col in 0..w {
                for row in 0..w {
                    data.push(out[(n - row) * w + col] as f32);
                }
            }
            let heights = Array2::new(w, w, data);
            let scale = Vec3::new(COLLIDER_CELL as f32, 1.0, COLLIDER_CELL as f32);
            let flags = HeightFieldFlags::FIX_INTERNAL_EDGES;
            let mut field = HeightField::with_flags(heights, scale, flags);
            for (row, col) in tunnel_openings(laid, c, n, &out) {
                field.set_cell_status(row, col, HeightFieldCellStatus::CELL_REMOVED);
            }
            Collider::from(SharedShape::new(field))
        });
    Built {
        collider,
        size: w * w,
        seconds: t0.elapsed().as_secs_f64(),
    }
}

/// The height-field cells `(row, col)` of collider cell `c` (`n` × `n`,
/// heights `h` row by row from the south) to leave open: over a tunnel's
/// tube (to the outside of its walls, and up to a cell beyond each portal)
/// where the ground comes below the tube's top, so that the portals are
/// open and the approach cutting runs into the tube. Deeper under a hill
/// the ground stays whole.
pub(crate) fn tunnel_openings(
    laid: &LaidRoads,
    c: Cell,
    n: usize,
    h: &[f64],
) -> Vec<(usize, usize)> {
    let step = COLLIDER_CELL / n as f64;
    let min = DVec2::new(c.0 as f64, c.1 as f64) * COLLIDER_CELL;
    let max = min + COLLIDER_CELL;
    let net = laid.roads.network();
    let mut open = Vec::new();
    for s in laid.structures.iter() {
        if s.kind != StructureKind::Tunnel || s.line.len() < 2 {
            continue;
        }
        let width = s
            .road
            .and_then(|i| net.roads.get(i))
            .map_or(6.0, |r| r.width);
        let half = solids::tube_half(width);
        let reach = half + step;
        let (lo, hi) = (s.line.iter()).fold((DVec2::MAX, DVec2::MIN), |(lo, hi), p| {
            (lo.min(p.truncate()), hi.max(p.truncate()))
        });
        if lo.cmpgt(max + reach).any() || hi.cmplt(min - reach).any() {
            continue;
        }
        let last = s.line.len() - 2;
        for row in 0..n {
            for col in 0..n {
                let q = min + DVec2::new(col as f64 + 0.5, (n - row) as f64 - 0.5) * step;
                let (r0, r1) = (n - row - 1, n - row);
                let lowest = [h[r0 * (n + 1) + col], h[r0 * (n + 1) + col + 1]]
                    .into_iter()
                    .chain([h[r1 * (n + 1) + col], h[r1 * (n + 1) + col + 1]])
                    .fold(f64::INFINITY, f64::min);
                let over = (s.line.windows(2).enumerate()).any(|(k, w)| {
                    let (a, b) = (w[0].truncate(), w[1].truncate());
                    let len = a.distance(b);
                    if len <= 1e-9 {
                        return false;
                    }
                    let d = (b - a) / len;
                    let t = (q - a).dot(d);
                    let (t0, t1) = (
                        if k == 0 { -0.75 * step } else { 0.0 },
                        if k == last { len + 0.75 * step } else { len },
                    );
                    let across = (q - a).perp_dot(d).abs();
                    let z = w[0].z + (w[1].z - w[0].z) * (t / len).clamp(0.0, 1.0);
                    (t0..=t1).contains(&t) && across <= half && lowest < z + solids::TUBE_TOP + 0.5
                });
                if over {
                    open.push((row, col));
                }
            }
        }
    }
    open
}
