//! [`snap_groups`]: points too close to tell apart, found and made one.

use crate::num::{FastHash, floor_i64};
use glam::DVec2;
use std::collections::HashMap;

/// Points closer than this (metres) are one point: far below anything a
/// road or street draws, far above the rounding of a crossing point.
pub const SNAP_DISTANCE: f64 = 1.0e-6;

/// The distance within which points of a set are one: [`SNAP_DISTANCE`],
/// or eight units in the last place of the largest coordinate (`largest`)
/// where that is more.
pub fn snap_tolerance(largest: f64) -> f64 {
    let rel = largest.abs() * 8.0 * f64::EPSILON;
    if rel.is_finite() {
        SNAP_DISTANCE.max(rel)
    } else {
        SNAP_DISTANCE
    }
}

/// The largest absolute coordinate of the finite points.
pub fn largest_coordinate<'a>(points: impl IntoIterator<Item = &'a DVec2>) -> f64 {
    (points.into_iter())
        .filter(|p| p.is_finite())
        .fold(0.0, |m, p| p.abs().max_element().max(m))
}

/// Groups `points` that lie within `snap_tolerance` of the largest
/// coordinate of each other, transitively (a chain of close points is one
/// group), and gives each point its group's representative: the index of
/// the group's least point (by `x`, then `y`; the first of equal points).
/// A point with no close neighbour is its own; non-finite points too. −0
/// and +0 are equal. The work is near-linear: points are filed in cells of
/// half the tolerance, and only neighbouring cells are compared.
pub fn snap_groups(points: &[DVec2]) -> Vec<u32> {
    let tol = snap_tolerance(largest_coordinate(points));
    let cell = tol / 2.0;
    let key = |p: DVec2| (floor_i64(p.x / cell), floor_i64(p.y / cell));
    // `total_cmp`'s order as integers (−0 taken as +0).
    let ordered = |v: f64| {
        let b = (v + 0.0).to_bits() as i64;
        b ^ (((b >> 63) as u64) >> 1) as i64
    };
    let order = |i: u32, j: u32| {
        let (p, q) = (points[i as usize], points[j as usize]);
        (ordered(p.x), ordered(p.y), i).cmp(&(ordered(q.x), ordered(q.y), j))
    };
    // Finite points by cell, then position, so a cell is a run and equal
    // points are neighbours.
    let mut sorted: Vec<((i64, i64), i64, i64, u32)> = (0..points.len() as u32)
        .filter(|&i| points[i as usize].is_finite())
        .map(|i| {
            let p = points[i as usize];
            (key(p), ordered(p.x), ordered(p.y), i)
        })
        .collect();
    sorted.sort_unstable();
    let mut parent: Vec<u32> = (0..points.len() as u32).collect();
    // Equal points are one from the start; only distinct ones are compared.
    let same = |a: &((i64, i64), i64, i64, u32), b: &((i64, i64), i64, i64, u32)| {
        (a.0, a.1, a.2) == (b.0, b.1, b.2)
    };
    let mut distinct = Vec::with_capacity(sorted.len());
    for run in sorted.chunk_by(same) {
        for e in &run[1..] {
            union(&mut parent, run[0].3, e.3);
        }
        distinct.push((run[0].0, run[0].3));
    }
    let mut runs: HashMap<(i64, i64), (usize, usize), FastHash> = HashMap::default();
    let mut start = 0;
    for run in distinct.chunk_by(|a, b| a.0 == b.0) {
        // Any two points of a cell are within `tol` (its diagonal is less).
        for e in &run[1..] {
            union(&mut parent, run[0].1, e.1);
        }
        runs.insert(run[0].0, (start, start + run.len()));
        start += run.len();
    }
    // Cells up to two apart may hold points within `tol`: each pair of
    // cells compared once (the second after the first), until one close
    // pair joins them.
    for run in distinct.chunk_by(|a, b| a.0 == b.0) {
        let (x, y) = run[0].0;
        for (dx, dy) in (-2..=2i64).flat_map(|dx| (-2..=2i64).map(move |dy| (dx, dy))) {
            if (dx, dy) <= (0, 0) {
                continue;
            }
            let Some(&(s, e)) = runs.get(&(x.saturating_add(dx), y.saturating_add(dy))) else {
                continue;
            };
            'pairs: for a in run {
                for b in &distinct[s..e] {
                    if find(&mut parent, a.1) == find(&mut parent, b.1) {
                        break 'pairs;
                    }
                    if points[a.1 as usize].distance(points[b.1 as usize]) <= tol {
                        union(&mut parent, a.1, b.1);
                        break 'pairs;
                    }
                }
            }
        }
    }
    // Each group's least point represents it.
    let mut least: Vec<u32> = (0..points.len() as u32).collect();
    for &(_, i) in &distinct {
        let r = find(&mut parent, i) as usize;
        if order(i, least[r]).is_lt() {
            least[r] = i;
        }
    }
    (0..points.len() as u32)
        .map(|i| least[find(&mut parent, i) as usize])
        .collect()
}

/// The root of `i` in a union-find forest (halving the path).
pub(crate) fn find(parent: &mut [u32], mut i: u32) -> u32 {
    while parent[i as usize] != i {
        let up = parent[parent[i as usize] as usize];
        parent[i as usize] = up;
        i = up;
    }
    i
}

/// Joins the sets of `a` and `b`; the lower root becomes the root.
pub(crate) fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_an_ulp_apart_are_one_and_others_stay() {
        let y = 7199.250299518743f64;
        let p = [
            DVec2::new(15722.79030899168, y.next_up()),
            DVec2::new(15722.79030899168, y),
            DVec2::new(0.0, 0.0),
            DVec2::new(-0.0, 0.0),
            DVec2::new(0.0, 2.0e-6),
            DVec2::new(f64::NAN, 0.0),
            DVec2::new(3.0, 3.0),
            DVec2::new(3.0 + 0.9e-6, 3.0),
            DVec2::new(3.0 + 1.8e-6, 3.0),
        ];
        assert_eq!(snap_groups(&p), vec![1, 1, 2, 2, 4, 5, 6, 6, 6]);
        assert_eq!(snap_tolerance(1.0e3), SNAP_DISTANCE);
        assert!(snap_tolerance(1.0e12) > SNAP_DISTANCE);
        assert_eq!(snap_tolerance(f64::INFINITY), SNAP_DISTANCE);
    }

    #[test]
    fn groups_match_brute_force() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 50) as f64 * 0.4e-6
        };
        let p: Vec<DVec2> = (0..200)
            .map(|_| DVec2::new(next(), next() + 100.0))
            .collect();
        let g = snap_groups(&p);
        for i in 0..p.len() {
            for j in 0..p.len() {
                if p[i].distance(p[j]) <= snap_tolerance(100.0) {
                    assert_eq!(g[i], g[j], "{i} {j}");
                }
            }
        }
    }
}
