//! Large blocks made small: runs of nearly straight edges merged within a
//! small tolerance, in time linear in the block's size, so a finely
//! sampled block (a ring road of many thousand points) costs what a
//! coarse one does.

use crate::geom::distance_to_segment;
use glam::DVec2;

/// Blocks with more vertices than this are simplified first.
pub const SIMPLIFY_ABOVE: usize = 1024;
/// How far a simplified block's edges may stray from the block's
/// vertices, metres.
pub const TOLERANCE: f64 = 0.05;
/// Most vertices one merged edge may replace (bounds the work per edge).
const MAX_RUN: usize = 256;

/// `block` and its edges' `widths` (when given, one per edge) with runs of
/// edges of equal width merged where every vertex dropped lies within
/// [`TOLERANCE`] of the merged edge. Vertices where the width changes,
/// dead-end tips and points the block visits twice are kept.
pub fn simplify(block: &[DVec2], widths: Option<&[f64]>) -> (Vec<DVec2>, Option<Vec<f64>>) {
    let n = block.len();
    let widths = widths.filter(|w| w.len() == n);
    let width = |i: usize| widths.map_or(0.0, |w| w[i % n]);
    let mut sorted: Vec<(DVec2, usize)> = block.iter().copied().zip(0..).collect();
    sorted.sort_by(|a, b| (a.0.x.total_cmp(&b.0.x)).then(a.0.y.total_cmp(&b.0.y)));
    let mut anchor = vec![false; n];
    for w in sorted.windows(2).filter(|w| w[0].0 == w[1].0) {
        anchor[w[0].1] = true;
        anchor[w[1].1] = true;
    }
    anchor[0] = true;
    for i in 1..n {
        let (prev, next) = (block[i - 1], block[(i + 1) % n]);
        if prev == next || width(i - 1).to_bits() != width(i).to_bits() {
            anchor[i] = true;
        }
    }
    // Greedy: from each kept vertex, on to the next while the edge to it
    // passes every vertex it drops within the tolerance (at most `MAX_RUN`,
    // never past an anchor).
    let mut kept = vec![0usize];
    let mut i = 0;
    while i < n {
        let mut best = i + 1;
        let mut j = i + 2;
        while j <= n && j - i <= MAX_RUN && !anchor[(j - 1) % n] {
            let (a, b) = (block[i], block[j % n]);
            if !(i + 1..j).all(|k| distance_to_segment(block[k], a, b) <= TOLERANCE) {
                break;
            }
            best = j;
            j += 1;
        }
        if best < n {
            kept.push(best);
        }
        i = best;
    }
    let pts = kept.iter().map(|&k| block[k]).collect();
    let widths = widths.map(|_| kept.iter().map(|&k| width(k)).collect());
    (pts, widths)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fine_circle_becomes_coarse_and_stays_within_the_tolerance() {
        let n = 100_000;
        let circle: Vec<DVec2> = (0..n)
            .map(|i| DVec2::from_angle(i as f64 / n as f64 * std::f64::consts::TAU) * 300.0)
            .collect();
        let widths = vec![8.0; n];
        let (pts, w) = simplify(&circle, Some(&widths));
        assert!(pts.len() < 1000 && pts.len() > 50, "{}", pts.len());
        assert_eq!(w.unwrap(), vec![8.0; pts.len()]);
        let m = pts.len();
        // Every dropped vertex is near an edge.
        for q in circle.iter().step_by(97) {
            let d = (0..m)
                .map(|k| distance_to_segment(*q, pts[k], pts[(k + 1) % m]))
                .fold(f64::INFINITY, f64::min);
            assert!(d <= TOLERANCE + 1e-9, "{d}");
        }
    }

    #[test]
    fn width_changes_tips_and_repeated_points_are_kept() {
        // A square with a dead end from (5, 0) to (5, 3) and a street
        // change of width at (2, 0), along a finely sampled bottom edge.
        let mut block: Vec<DVec2> = (0..=10).map(|i| DVec2::new(i as f64, 0.0)).collect();
        block.splice(6..6, [DVec2::new(5.0, 3.0), DVec2::new(5.0, 0.0)]);
        block.extend([DVec2::new(10.0, 10.0), DVec2::new(0.0, 10.0)]);
        let mut widths = vec![8.0; block.len()];
        widths[0] = 6.0;
        widths[1] = 6.0;
        let (pts, _) = simplify(&block, Some(&widths));
        for p in [(0.0, 0.0), (2.0, 0.0), (5.0, 0.0), (5.0, 3.0), (10.0, 0.0)] {
            assert!(pts.contains(&DVec2::new(p.0, p.1)), "{p:?} {pts:?}");
        }
        assert_eq!(
            pts.iter().filter(|p| **p == DVec2::new(5.0, 0.0)).count(),
            2
        );
        assert!(!pts.contains(&DVec2::new(7.0, 0.0)));
    }
}
