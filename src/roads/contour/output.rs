//! The roads a simulation returns: the paths touching the requested area,
//! with their junction points inserted, in canonical order.

use super::meet::{Insert, TOUCH};
use super::sim::Sim;
use crate::geom::segment_meets_rect;
use crate::network::Road;
use glam::DVec2;

/// Where three or more paths cross at one point, each pair's crossing is
/// computed on its own segments, and the points may differ by a rounding:
/// roads through it would then share two junctions an ulp apart, in either
/// order. Every junction point within [`TOUCH`] of another becomes the
/// least (by x, then y) of those within [`TOUCH`] of it; returns the points
/// that change (sorted by their bits, for lookup), usually none.
fn merged_junctions(inserts: &[Insert]) -> Vec<((u64, u64), DVec2)> {
    let mut pts: Vec<DVec2> = inserts.iter().map(|i| i.point).collect();
    pts.sort_by(|a, b| a.x.total_cmp(&b.x).then(a.y.total_cmp(&b.y)));
    pts.dedup();
    let mut moved = Vec::new();
    for (k, &p) in pts.iter().enumerate() {
        // The least point within TOUCH lies at most TOUCH to the left.
        let least = (pts[..k].iter().rev())
            .take_while(|q| p.x - q.x <= TOUCH)
            .filter(|q| q.distance(p) <= TOUCH)
            .last();
        if let Some(&q) = least {
            moved.push(((p.x.to_bits(), p.y.to_bits()), q));
        }
    }
    moved.sort_by_key(|m| m.0);
    moved
}

impl Sim<'_> {
    /// The roads (paths with two or more points, junction points inserted)
    /// that have a point in `[min, max)`, in canonical order.
    pub(super) fn roads_touching(&self, min: DVec2, max: DVec2) -> Vec<Road> {
        let mut order: Vec<usize> = (0..self.paths.len())
            .filter(|&i| {
                let path = &self.paths[i];
                path.lo.cmple(max).all()
                    && path.hi.cmpge(min).all()
                    && (path.points.windows(2)).any(|w| segment_meets_rect(w[0], w[1], min, max))
            })
            .collect();
        order.sort_by_key(|&i| self.paths[i].key);
        // The junction points to insert into each of them.
        let mut slot = vec![usize::MAX; self.paths.len()];
        for (k, &i) in order.iter().enumerate() {
            slot[i] = k;
        }
        let mut extra: Vec<Vec<&Insert>> = vec![Vec::new(); order.len()];
        for ins in &self.inserts {
            if let Some(list) = extra.get_mut(slot[ins.path]) {
                list.push(ins);
            }
        }
        let moved = merged_junctions(&self.inserts);
        let merged =
            |p: DVec2| match moved.binary_search_by_key(&(p.x.to_bits(), p.y.to_bits()), |m| m.0) {
                Ok(k) => moved[k].1,
                Err(_) => p,
            };
        order
            .into_iter()
            .zip(extra)
            .map(|(i, mut ins)| {
                let pts = &self.paths[i].points;
                // Along each segment by distance from its start.
                let along = |i: &Insert| pts[i.seg].distance_squared(i.point);
                ins.sort_by(|a, b| {
                    (a.seg.cmp(&b.seg))
                        .then(along(a).total_cmp(&along(b)))
                        .then(a.point.x.total_cmp(&b.point.x))
                        .then(a.point.y.total_cmp(&b.point.y))
                });
                let mut out: Vec<DVec2> = Vec::with_capacity(pts.len() + ins.len());
                let mut k = 0;
                for (s, &p) in pts.iter().enumerate() {
                    // (A path that stopped on a junction ends at its point.)
                    let p = if moved.is_empty() { p } else { merged(p) };
                    if out.last() != Some(&p) {
                        out.push(p);
                    }
                    while k < ins.len() && ins[k].seg == s {
                        let q = merged(ins[k].point);
                        if out.last() != Some(&q) && pts.get(s + 1).map(|&n| merged(n)) != Some(q) {
                            out.push(q);
                        }
                        k += 1;
                    }
                }
                Road {
                    points: out,
                    class: self.p.class,
                    width: self.p.width,
                    z: Vec::new(),
                }
            })
            // A road is two distinct points at least.
            .filter(|r| r.points.len() >= 2)
            .collect()
    }
}
