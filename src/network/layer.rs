//! A road network laid on the ground: fast "is this cell road?" and
//! "nearest road" queries through a [`SegmentGrid`].

use super::RoadNetwork;
use crate::geom::{SegmentGrid, closest_on_segment};
use crate::terrain::Overlay;
use glam::DVec2;
use std::sync::Arc;

const CELL: f64 = 32.0;

/// Roads indexed for point queries. As an [`Overlay`] on a
/// [`crate::terrain::LaidGround`] it makes `terra()` report `Road` on every
/// whole-metre cell whose centre lies within half a road's width of its
/// centre line.
#[derive(Clone, Debug, Default)]
pub struct RoadLayer {
    net: Arc<RoadNetwork>,
    grid: SegmentGrid,
}

impl RoadLayer {
    /// Indexes a network (work proportional to its roads' length).
    pub fn new(net: Arc<RoadNetwork>) -> Self {
        let grid = SegmentGrid::new(CELL, net.roads.iter().map(|r| r.points.as_slice()), |i| {
            net.roads[i].width / 2.0 + 1.0
        });
        Self { net, grid }
    }

    /// The network.
    pub fn network(&self) -> &Arc<RoadNetwork> {
        &self.net
    }

    fn distances(&self, p: DVec2, ring: i64) -> impl Iterator<Item = (usize, DVec2, f64)> + '_ {
        self.grid.near(p, ring).map(move |(i, s)| {
            let pts = &self.net.roads[i].points;
            let (q, _) = closest_on_segment(p, pts[s], pts[s + 1]);
            (i, q, q.distance(p))
        })
    }

    /// Indices of the roads with a segment near `[min, max]` (ascending);
    /// the work is bounded by the network's size, whatever the box.
    pub fn roads_in(&self, min: DVec2, max: DVec2) -> Vec<usize> {
        self.grid.lines_in(min, max)
    }

    /// Whether `p` lies on a road (within half its width of the centre line).
    pub fn on_road(&self, p: DVec2) -> bool {
        self.distances(p, 0)
            .any(|(i, _, d)| d <= self.net.roads[i].width / 2.0)
    }

    /// The nearest road point within `max_distance`: `(road index, point,
    /// distance)`. Every segment within one grid cell of `p` is filed in the
    /// 3 × 3 cells around it, so those answer exactly up to that distance;
    /// further out the whole network is scanned.
    pub fn nearest(&self, p: DVec2, max_distance: f64) -> Option<(usize, DVec2, f64)> {
        let mut best: Option<(usize, DVec2, f64)> = None;
        for c in self.distances(p, 1) {
            if best.is_none_or(|b| c.2 < b.2 || (c.2 == b.2 && c.0 < b.0)) {
                best = Some(c);
            }
        }
        match best {
            Some(b) if b.2 <= CELL => Some(b),
            _ if max_distance <= CELL => None,
            _ => self.net.nearest_road(p),
        }
        .filter(|b| b.2 <= max_distance)
    }
}

impl Overlay for RoadLayer {
    fn covers(&self, p: DVec2) -> bool {
        self.on_road(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{Road, RoadClass};

    #[test]
    fn nearest_agrees_with_a_full_scan() {
        let road = |pts: &[(f64, f64)]| Road {
            z: Vec::new(),
            points: pts.iter().map(|&(x, y)| DVec2::new(x, y)).collect(),
            class: RoadClass::Road,
            width: 5.0,
        };
        let net = Arc::new(RoadNetwork::from_roads(vec![
            road(&[(0.0, 0.0), (100.0, 0.0)]),
            road(&[(40.0, 31.0), (40.0, 200.0)]),
            road(&[(-300.0, -300.0), (-290.0, -310.0)]),
        ]));
        let layer = RoadLayer::new(net.clone());
        for i in 0..400 {
            let p = DVec2::new((i * 37 % 500) as f64 - 250.0, (i * 53 % 460) as f64 - 230.0) + 0.25;
            let exact = net.nearest_road(p).unwrap();
            let got = layer.nearest(p, 1.0e9).unwrap();
            assert_eq!((got.0, got.2), (exact.0, exact.2), "{p}");
            assert_eq!(layer.nearest(p, 20.0).is_some(), exact.2 <= 20.0);
            assert_eq!(layer.on_road(p), exact.2 <= 2.5);
        }
    }
}
