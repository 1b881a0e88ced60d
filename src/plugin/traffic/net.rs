//! The traffic's view of the laid roads: the roads vehicles drive (paths
//! left out) or pedestrians walk (streets and paths), missing profiles
//! taken from the ground, a [`Router`] on them, and their segments in a
//! grid, to pick random places near the focus within reach of one another.

use super::drive::Mode;
use crate::network::{RoadNetwork, Router};
use crate::terrain::LaidGround;
use bevy::math::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::RngCore;
use std::collections::{BTreeMap, HashMap};

/// The segment grid's cell side (m).
const CELL: f64 = 200.0;

/// A travelled segment: road `road` from its point `k` to the next.
#[derive(Clone, Copy, Debug)]
struct Seg {
    a: DVec2,
    b: DVec2,
    /// The router's component.
    comp: u32,
}

/// The travelled network of one [`LaidRoads`](crate::plugin::LaidRoads)
/// version, with its router (built on a worker).
pub(super) struct TrafficNet {
    /// The laid roads' version it was built from.
    pub version: u64,
    /// The roads travelled: the laid ones, the others emptied (no points,
    /// so the router leaves them out and indices still match), every road
    /// on a profile.
    pub net: RoadNetwork,
    pub router: Router,
    segs: Vec<Seg>,
    cells: HashMap<(i64, i64), Vec<u32>>,
}

/// The travelled road within a disc: each segment's stretch inside it.
#[derive(Debug, Default)]
pub(super) struct Area {
    pub centre: DVec2,
    pub radius: f64,
    /// Segment, and the stretch `[t0, t1]` of it inside the disc.
    pieces: Vec<(u32, f64, f64)>,
    /// Cumulative length of the pieces (m), one more than the pieces.
    cum: Vec<f64>,
    /// Per component: its pieces (indices into `pieces`) and their
    /// cumulative length.
    comps: BTreeMap<u32, (Vec<u32>, Vec<f64>)>,
}

impl Area {
    /// The travelled road length inside the disc (m).
    pub fn length(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }
}

fn cell_of(p: DVec2) -> (i64, i64) {
    ((p.x / CELL).floor() as i64, (p.y / CELL).floor() as i64)
}

/// A uniform number in `[0, 1)`.
pub(super) fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

impl TrafficNet {
    /// Builds the network `mode` travels of `net` laid on `ground`.
    pub fn new(version: u64, net: &RoadNetwork, ground: &LaidGround, mode: Mode) -> Self {
        let mut net = net.clone();
        for r in &mut net.roads {
            if !mode.uses(r.class) {
                r.points.clear();
                r.z.clear();
            } else if !r.has_profile() {
                r.z = r.points.iter().map(|p| ground.height(p.x, p.y)).collect();
            }
        }
        let router = net.router();
        let mut segs = Vec::new();
        let mut cells: HashMap<(i64, i64), Vec<u32>> = HashMap::new();
        for (i, r) in net.roads.iter().enumerate() {
            for (k, w) in r.points.windows(2).enumerate() {
                let Some(comp) = router.component(i, k) else {
                    continue;
                };
                let (a, b) = (w[0], w[1]);
                if a == b {
                    continue;
                }
                let id = segs.len() as u32;
                segs.push(Seg { a, b, comp });
                let (lo, hi) = (cell_of(a.min(b)), cell_of(a.max(b)));
                for cx in lo.0..=hi.0 {
                    for cy in lo.1..=hi.1 {
                        cells.entry((cx, cy)).or_default().push(id);
                    }
                }
            }
        }
        Self {
            version,
            net,
            router,
            segs,
            cells,
        }
    }

    /// The segments whose boxes meet the square around `c` of half side
    /// `r`, each once, ascending.
    fn near(&self, c: DVec2, r: f64) -> Vec<u32> {
        let (lo, hi) = (cell_of(c - r), cell_of(c + r));
        let mut out = Vec::new();
        for cx in lo.0..=hi.0 {
            for cy in lo.1..=hi.1 {
                if let Some(v) = self.cells.get(&(cx, cy)) {
                    out.extend_from_slice(v);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The travelled road within `radius` of `centre`.
    pub fn area(&self, centre: DVec2, radius: f64) -> Area {
        let mut area = Area {
            centre,
            radius,
            cum: vec![0.0],
            ..Area::default()
        };
        for s in self.near(centre, radius) {
            let seg = self.segs[s as usize];
            let Some((t0, t1)) = clip(seg.a, seg.b, centre, radius) else {
                continue;
            };
            let len = (t1 - t0) * seg.a.distance(seg.b);
            if len <= 0.0 {
                continue;
            }
            let i = area.pieces.len() as u32;
            area.pieces.push((s, t0, t1));
            let total = area.length() + len;
            area.cum.push(total);
            let (ids, cum) = area
                .comps
                .entry(seg.comp)
                .or_insert((Vec::new(), vec![0.0]));
            ids.push(i);
            let last = cum.last().copied().unwrap_or(0.0);
            cum.push(last + len);
        }
        area
    }

    /// A random place on the travelled road in `area` (uniform along its
    /// length), in component `comp` if given: the point and its component.
    pub fn pick(
        &self,
        area: &Area,
        comp: Option<u32>,
        rng: &mut ChaCha8Rng,
    ) -> Option<(DVec2, u32)> {
        let (ids, cum): (Option<&[u32]>, &[f64]) = match comp {
            None => (None, &area.cum),
            Some(c) => {
                let (ids, cum) = area.comps.get(&c)?;
                (Some(ids), cum)
            }
        };
        let total = *cum.last()?;
        if total <= 0.0 {
            return None;
        }
        let u = unit(rng) * total;
        let j = cum.partition_point(|&c| c <= u).clamp(1, cum.len() - 1) - 1;
        let piece = ids.map_or(j, |ids| ids[j] as usize);
        let (s, t0, t1) = area.pieces[piece];
        let f = ((u - cum[j]) / (cum[j + 1] - cum[j])).clamp(0.0, 1.0);
        let seg = self.segs[s as usize];
        Some((seg.a.lerp(seg.b, t0 + f * (t1 - t0)), seg.comp))
    }

    /// The component of the travelled segment nearest to `p` within 1 m.
    pub fn locate(&self, p: DVec2) -> Option<u32> {
        let mut best: Option<(f64, u32)> = None;
        for s in self.near(p, 1.0) {
            let seg = self.segs[s as usize];
            let (q, _) = crate::geom::closest_on_segment(p, seg.a, seg.b);
            let d = q.distance(p);
            if d <= 1.0 && best.is_none_or(|b| d < b.0) {
                best = Some((d, seg.comp));
            }
        }
        best.map(|b| b.1)
    }
}

/// The stretch `[t0, t1]` of segment `a`–`b` inside the disc (`None` if
/// it misses it).
fn clip(a: DVec2, b: DVec2, c: DVec2, r: f64) -> Option<(f64, f64)> {
    let d = b - a;
    let f = a - c;
    let qa = d.length_squared();
    if qa == 0.0 {
        return None;
    }
    let qb = 2.0 * f.dot(d);
    let qc = f.length_squared() - r * r;
    let disc = qb * qb - 4.0 * qa * qc;
    if disc <= 0.0 {
        return None;
    }
    let sq = disc.sqrt();
    let (t0, t1) = ((-qb - sq) / (2.0 * qa), (-qb + sq) / (2.0 * qa));
    let (t0, t1) = (t0.max(0.0), t1.min(1.0));
    (t0 < t1).then_some((t0, t1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{Road, RoadClass};
    use crate::terrain::Terrain;
    use rand_chacha::rand_core::SeedableRng;
    use std::sync::Arc;

    #[test]
    fn clipped_lengths_and_picks_stay_in_the_disc_and_component() {
        let road = |pts: &[(f64, f64)], class| {
            let points = pts.iter().map(|&(x, y)| DVec2::new(x, y)).collect();
            Road::new(points, class, 6.0)
        };
        let net = RoadNetwork::from_roads(vec![
            road(&[(-500.0, 0.0), (0.0, 0.0), (500.0, 0.0)], RoadClass::Road),
            road(&[(0.0, 300.0), (0.0, 600.0)], RoadClass::Street),
            road(&[(0.0, 0.0), (0.0, -400.0)], RoadClass::Path),
        ]);
        let ground = LaidGround::new(Arc::new(Terrain::default()));
        let t = TrafficNet::new(3, &net, &ground, Mode::Drive);
        // The path is left out; profiles come from the ground.
        assert!(t.net.roads[2].points.is_empty());
        assert_eq!(t.net.roads[0].z[1], ground.height(0.0, 0.0));
        let area = t.area(DVec2::ZERO, 400.0);
        assert!((area.length() - 900.0).abs() < 1e-6, "{}", area.length());
        assert_eq!(area.comps.len(), 2);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let main = t.locate(DVec2::new(10.0, 0.0)).unwrap();
        assert_ne!(t.locate(DVec2::new(0.0, 350.0)), Some(main));
        assert_eq!(t.locate(DVec2::new(0.0, -100.0)), None);
        for _ in 0..200 {
            let (p, c) = t.pick(&area, None, &mut rng).unwrap();
            assert!(p.length() <= 400.0 + 1e-9);
            let (q, _) = t.pick(&area, Some(main), &mut rng).unwrap();
            assert!(q.y == 0.0 && q.x.abs() <= 400.0, "{q}");
            assert_eq!(t.locate(p), Some(c));
        }
        assert!(t.pick(&area, Some(u32::MAX), &mut rng).is_none());
        assert_eq!(t.area(DVec2::new(5000.0, 0.0), 400.0).length(), 0.0);
        // On foot: the street and the path, not the road.
        let w = TrafficNet::new(3, &net, &ground, Mode::Walk);
        assert!(w.net.roads[0].points.is_empty() && !w.net.roads[2].points.is_empty());
        let area = w.area(DVec2::ZERO, 400.0);
        assert!((area.length() - 500.0).abs() < 1e-6, "{}", area.length());
    }
}
