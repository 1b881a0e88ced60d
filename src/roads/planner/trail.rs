//! The sequential planner's road so far, filed by cell, so that a
//! candidate step can be checked against it: a road never crosses itself
//! or runs close beside itself (a high dither weight, which rewards sharp
//! turns, or a long schedule would otherwise coil it over its own track).

use crate::geom::segment_distance;
use crate::num::FastHash as Fast;
use glam::DVec2;
use std::collections::HashMap;

/// The segments of a growing polyline (segment `i` joins points `i` and
/// `i + 1`), filed under every cell (`cell` metres square) their bounding
/// box meets. Only the last segment can be taken off (a step back).
pub(super) struct Trail {
    cell: f64,
    origin: DVec2,
    cells: HashMap<(i64, i64), Vec<u32>, Fast>,
    /// The segments [`Self::gather`] found around the last point.
    local: Vec<u32>,
}

impl Trail {
    /// An empty trail with cells of `cell` metres (> 0) around `origin`.
    pub fn new(origin: DVec2, cell: f64) -> Self {
        Self {
            cell,
            origin,
            cells: HashMap::default(),
            local: Vec::new(),
        }
    }

    /// The cells `a–b`'s bounding box, grown by `pad`, meets.
    fn span(&self, a: DVec2, b: DVec2, pad: f64) -> impl Iterator<Item = (i64, i64)> + use<> {
        let c = |v: f64| (v / self.cell).floor() as i64;
        let (lo, hi) = (a.min(b) - self.origin - pad, a.max(b) - self.origin + pad);
        let (x0, x1, y0, y1) = (c(lo.x), c(hi.x), c(lo.y), c(hi.y));
        (x0..=x1).flat_map(move |x| (y0..=y1).map(move |y| (x, y)))
    }

    /// Files segment `i` of `points` (points `i`, `i + 1`).
    pub fn push(&mut self, points: &[DVec2], i: usize) {
        for key in self.span(points[i], points[i + 1], 0.0) {
            self.cells.entry(key).or_default().push(i as u32);
        }
    }

    /// Takes segment `i` of `points` (the last filed) off again.
    pub fn pop(&mut self, points: &[DVec2], i: usize) {
        for key in self.span(points[i], points[i + 1], 0.0) {
            if let Some(list) = self.cells.get_mut(&key) {
                list.retain(|&s| s as usize != i);
            }
        }
    }

    /// Whether a step from the road's last point to `q` would come closer
    /// than `clear` (> 0) to any of its segments but the last (which ends
    /// where the step starts).
    pub fn near(&self, points: &[DVec2], q: DVec2, clear: f64) -> bool {
        let Some(&p) = points.last() else {
            return false;
        };
        self.span(p, q, clear)
            .any(|key| (self.cells.get(&key)).is_some_and(|list| too_close(points, list, q, clear)))
    }

    /// Gathers the segments filed within `reach` of the road's last point,
    /// for [`Self::near_gathered`]: one lookup per step, not per candidate.
    pub fn gather(&mut self, points: &[DVec2], reach: f64) {
        self.local.clear();
        if let Some(&p) = points.last() {
            for key in self.span(p, p, reach) {
                if let Some(list) = self.cells.get(&key) {
                    self.local.extend_from_slice(list);
                }
            }
        }
        self.local.sort_unstable();
        self.local.dedup();
    }

    /// [`Self::near`] for a step no longer than the gathering's `reach`
    /// less `clear`.
    pub fn near_gathered(&self, points: &[DVec2], q: DVec2, clear: f64) -> bool {
        too_close(points, &self.local, q, clear)
    }
}

/// Whether the step from the last of `points` to `q` comes closer than
/// `clear` to one of segments `list` but the last.
fn too_close(points: &[DVec2], list: &[u32], q: DVec2, clear: f64) -> bool {
    let (Some(&p), last) = (points.last(), points.len().saturating_sub(2)) else {
        return false;
    };
    let (lo, hi) = (p.min(q) - clear, p.max(q) + clear);
    list.iter().any(|&s| {
        let (s, a, b) = (s as usize, points[s as usize], points[s as usize + 1]);
        // Boxes apart by `clear` or more: far enough, no distance needed.
        let apart = a.max(b).cmplt(lo).any() || a.min(b).cmpgt(hi).any();
        s != last && !apart && segment_distance(p, q, a, b) < clear
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    #[test]
    fn a_step_keeps_clear_of_the_road_but_may_leave_its_last_segment() {
        // A hook: east, north, west.
        let pts = vec![v(0.0, 0.0), v(40.0, 0.0), v(40.0, 40.0), v(0.0, 40.0)];
        let mut t = Trail::new(pts[0], 40.0);
        for i in 0..pts.len() - 1 {
            t.push(&pts, i);
        }
        t.gather(&pts, 40.0 + 20.0);
        let near = |pts: &[DVec2], q: DVec2| {
            let n = t.near(pts, q, 20.0);
            if q.distance(pts[pts.len() - 1]) <= 40.0 {
                assert_eq!(t.near_gathered(pts, q, 20.0), n, "{q}");
            }
            n
        };
        // South from (0, 40) to (0, -10) crosses the first segment's start.
        assert!(near(&pts, v(0.0, -10.0)));
        // Down to (20, -5) crosses the first segment.
        assert!(near(&pts, v(20.0, -5.0)));
        // Ending 19 m from it is too close; 21 m is not.
        assert!(near(&pts, v(20.0, 19.0)));
        assert!(!near(&pts, v(20.0, 21.0)));
        // Onwards west, or back beside the last segment: clear.
        assert!(!near(&pts, v(-40.0, 40.0)));
        assert!(!near(&pts, v(-10.0, 30.0)));
        // A long step (a bridge) across several cells is checked in all.
        assert!(near(&pts, v(120.0, 20.0)));
        // Once the last segment is taken off, the way east is free, and
        // the first segment still counts.
        t.pop(&pts, 2);
        let pts = &pts[..3];
        let near = |q| t.near(pts, q, 20.0);
        assert!(!near(v(80.0, 40.0)));
        assert!(!near(v(20.0, 70.0)), "over where the popped one was");
        assert!(near(v(20.0, -10.0)));
    }
}
