//! A road network laid on the terrain: fast "is this cell road?" and
//! "nearest road" queries through a grid of segments.

use super::RoadNetwork;
use crate::geom::{cells_of_segment, closest_on_segment};
use glam::DVec2;
use std::collections::HashMap;
use std::sync::Arc;

const CELL: f64 = 32.0;

/// Roads indexed for point queries; attach one to a terrain with
/// [`crate::terrain::Terrain::set_roads`] and `terra()` reports `Road` on
/// every whole-metre cell whose centre lies within half a road's width of
/// its centre line.
#[derive(Clone, Debug, Default)]
pub struct RoadLayer {
    net: Arc<RoadNetwork>,
    grid: HashMap<(i64, i64), Vec<(u32, u32)>>,
}

impl RoadLayer {
    /// Indexes a network.
    pub fn new(net: Arc<RoadNetwork>) -> Self {
        let mut grid: HashMap<(i64, i64), Vec<(u32, u32)>> = HashMap::new();
        for (i, r) in net.roads.iter().enumerate() {
            for (s, w) in r.points.windows(2).enumerate() {
                for c in cells_of_segment(w[0], w[1], CELL, r.width / 2.0 + 1.0) {
                    grid.entry(c).or_default().push((i as u32, s as u32));
                }
            }
        }
        Self { net, grid }
    }

    /// The network.
    pub fn network(&self) -> &Arc<RoadNetwork> {
        &self.net
    }

    fn near(&self, p: DVec2) -> impl Iterator<Item = (usize, DVec2, f64)> + '_ {
        let c = ((p.x / CELL).floor() as i64, (p.y / CELL).floor() as i64);
        self.grid.get(&c).into_iter().flatten().map(move |&(i, s)| {
            let pts = &self.net.roads[i as usize].points;
            let (q, _) = closest_on_segment(p, pts[s as usize], pts[s as usize + 1]);
            (i as usize, q, q.distance(p))
        })
    }

    /// Indices of the roads with a segment near `[min, max]` (ascending).
    pub fn roads_in(&self, min: DVec2, max: DVec2) -> Vec<usize> {
        let (c0, c1) = ((min / CELL).floor(), (max / CELL).floor());
        let mut out: Vec<usize> = Vec::new();
        for y in c0.y as i64..=c1.y as i64 {
            for x in c0.x as i64..=c1.x as i64 {
                out.extend(
                    self.grid
                        .get(&(x, y))
                        .into_iter()
                        .flatten()
                        .map(|&(i, _)| i as usize),
                );
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Whether `p` lies on a road (within half its width of the centre line).
    pub fn on_road(&self, p: DVec2) -> bool {
        self.near(p)
            .any(|(i, _, d)| d <= self.net.roads[i].width / 2.0)
    }

    /// The nearest road point within `max_distance`: `(road index, point,
    /// distance)`. Every segment within one grid cell of `p` is registered in
    /// the 3 × 3 cells around it, so those answer exactly up to that distance;
    /// further out the whole network is scanned.
    pub fn nearest(&self, p: DVec2, max_distance: f64) -> Option<(usize, DVec2, f64)> {
        let c = ((p.x / CELL).floor() as i64, (p.y / CELL).floor() as i64);
        let mut best: Option<(usize, DVec2, f64)> = None;
        for dy in -1..=1 {
            for dx in -1..=1 {
                for &(i, s) in self.grid.get(&(c.0 + dx, c.1 + dy)).into_iter().flatten() {
                    let pts = &self.net.roads[i as usize].points;
                    let (q, _) = closest_on_segment(p, pts[s as usize], pts[s as usize + 1]);
                    let d = q.distance(p);
                    if best.is_none_or(|b| d < b.2) {
                        best = Some((i as usize, q, d));
                    }
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roads::{Road, RoadClass};

    #[test]
    fn nearest_agrees_with_a_full_scan() {
        let road = |pts: &[(f64, f64)]| Road {
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
