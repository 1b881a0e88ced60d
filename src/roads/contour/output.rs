//! The roads a simulation returns: the paths touching the requested area,
//! with their junction points inserted, in canonical order.

use super::meet::Insert;
use super::sim::Sim;
use crate::geom::segment_meets_rect;
use crate::roads::Road;
use glam::DVec2;

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
                    if out.last() != Some(&p) {
                        out.push(p);
                    }
                    while k < ins.len() && ins[k].seg == s {
                        if out.last() != Some(&ins[k].point)
                            && pts.get(s + 1) != Some(&ins[k].point)
                        {
                            out.push(ins[k].point);
                        }
                        k += 1;
                    }
                }
                Road {
                    points: out,
                    class: self.p.class,
                    width: self.p.width,
                }
            })
            // A road is two distinct points at least.
            .filter(|r| r.points.len() >= 2)
            .collect()
    }
}
