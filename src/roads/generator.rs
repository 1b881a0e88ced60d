//! The one seam every road generator fits: [`RoadGenerator`], and its typed
//! error [`RoadError`].

use super::{ContourRoads, RoadAreaError};
use crate::network::RoadNetwork;
use crate::terrain::{AreaError, ParamError, Terrain};
use glam::DVec2;
use thiserror::Error;

/// A source of roads for any area of the world.
pub trait RoadGenerator: Send + Sync {
    /// Every road with a point in `[min, max]`, whole; the same inside any
    /// area however it was asked for (alone, inside a larger area, shifted).
    fn generate(&self, terrain: &Terrain, min: DVec2, max: DVec2)
    -> Result<RoadNetwork, RoadError>;
}

/// Why a generator could not answer.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum RoadError {
    /// The area, or the work it would take, is beyond the generator's limits.
    #[error(transparent)]
    Area(#[from] RoadAreaError),
    /// The generator's parameters are invalid.
    #[error(transparent)]
    Params(#[from] ParamError),
    /// The streams laid with the roads could not be scanned over the area.
    #[error("streams: {0}")]
    Streams(#[from] AreaError),
}

impl RoadGenerator for ContourRoads {
    fn generate(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<RoadNetwork, RoadError> {
        Ok(self.try_generate(terrain, min, max)?)
    }
}

/// The conformance test every generator's tests call: the roads meeting an
/// area are exactly the same whether it is asked for alone, inside a larger
/// area or shifted (their heights, where they have a profile, at the points
/// in the area); the network is planar; no road point is under a lake but
/// on a deck above it (a profile over the water).
#[cfg(test)]
pub(crate) fn check_conformance(
    generator: &dyn RoadGenerator,
    terrain: &Terrain,
    min: DVec2,
    max: DVec2,
) -> RoadNetwork {
    use crate::geom::segment_meets_rect;
    use crate::network::Road;
    // The stretches of the roads of `net` in `[lo, hi)`: each run of
    // points inside with a point beyond it at either end (where a road ends
    // outside the area, as for a dead end stopping short of a junction out
    // there, may depend on what lies beyond), in a canonical order.
    let meeting = |net: &RoadNetwork, lo: DVec2, hi: DVec2| {
        let inside = |p: DVec2| p.cmpge(lo).all() && p.cmplt(hi).all();
        let mut runs: Vec<Road> = Vec::new();
        for i in net.roads_meeting(lo, hi) {
            let r = &net.roads[i];
            let n = r.points.len();
            // A segment meets the area: its ends and the runs around it.
            let near = |k: usize| {
                inside(r.points[k])
                    || (k > 0 && segment_meets_rect(r.points[k - 1], r.points[k], lo, hi))
                    || (k + 1 < n && segment_meets_rect(r.points[k], r.points[k + 1], lo, hi))
            };
            let mut k = 0;
            while k < n {
                if !near(k) {
                    k += 1;
                    continue;
                }
                let start = k;
                while k < n && near(k) {
                    k += 1;
                }
                let mut run = Road::new(r.points[start..k].to_vec(), r.class, r.width);
                if r.has_profile() {
                    // Heights beyond the area may differ (roads it does not
                    // hold shape them there).
                    run.z = (start..k)
                        .map(|j| if inside(r.points[j]) { r.z[j] } else { 0.0 })
                        .collect();
                }
                runs.push(run);
            }
        }
        runs.sort_by(|a, b| {
            let key = |r: &Road| -> Vec<(u64, u64)> {
                r.points
                    .iter()
                    .map(|&p| crate::network::point_key(p))
                    .collect()
            };
            key(a).cmp(&key(b))
        });
        runs
    };
    let alone = generator.generate(terrain, min, max).expect("area alone");
    alone.check_planar().expect("planar");
    let size = max - min;
    let larger = generator
        .generate(terrain, min - size * 0.5, max + size * 0.75)
        .expect("larger area");
    assert_eq!(
        meeting(&alone, min, max),
        meeting(&larger, min, max),
        "inside a larger area"
    );
    let shift = size * DVec2::new(0.4, -0.3);
    let shifted = generator
        .generate(terrain, min + shift, max + shift)
        .expect("shifted area");
    let (lo, hi) = (min.max(min + shift), max.min(max + shift));
    assert_eq!(
        meeting(&alone, lo, hi),
        meeting(&shifted, lo, hi),
        "shifted area"
    );
    let lake = terrain.params().lake_level;
    for r in &alone.roads {
        for (k, p) in r.points.iter().enumerate() {
            let deck = r.z.get(k).is_some_and(|&z| z >= lake);
            assert!(
                terrain.height(p.x, p.y) >= lake || deck,
                "road point {p} in a lake"
            );
        }
    }
    alone
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roads::ContourParams;

    #[test]
    fn contour_roads_conform() {
        let g = ContourRoads::new(ContourParams::default()).unwrap();
        let t = Terrain::default();
        let net = check_conformance(&g, &t, DVec2::new(-400.0, 200.0), DVec2::new(900.0, 1100.0));
        assert!(net.roads.len() > 3, "{}", net.roads.len());
        // Through the trait, errors are typed.
        let e = RoadGenerator::generate(&g, &t, DVec2::ZERO, DVec2::splat(1.0e6)).unwrap_err();
        assert!(matches!(e, RoadError::Area(_)), "{e}");
    }
}
