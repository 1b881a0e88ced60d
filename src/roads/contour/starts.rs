//! Start points: one per cell of a jittered grid (dropped on lake and town),
//! each with 2–4 bearings from the seed's bits.

use super::work::{Budget, RoadWork};
use super::{ContourRoads, RoadAreaError};
use crate::num::{hash_unit, java_round};
use crate::terrain::{PI1000, Terrain};
use glam::DVec2;

/// A road start point and the paths that leave it.
#[derive(Clone, Debug, PartialEq)]
pub struct RoadStart {
    /// Where (whole metres).
    pub pos: DVec2,
    /// Its grid cell: the canonical id that breaks ties.
    pub id: (i64, i64),
    /// Initial bearings of its paths, radians clockwise from north (2 to 4).
    pub bearings: Vec<f64>,
}

impl ContourRoads {
    /// The start point of grid cell `(i, j)`, if it lies on dry, non-town land.
    pub fn start_at(&self, terrain: &Terrain, i: i64, j: i64) -> Option<RoadStart> {
        let s = self.params.seed;
        let jitter = DVec2::new(hash_unit(i, j, s ^ 0x5a17), hash_unit(j, i, s ^ 0x7e11));
        let p = (DVec2::new(i as f64, j as f64) + jitter) * self.cell;
        let (xr, yr) = (java_round(p.x), java_round(p.y));
        let h = terrain.height(xr as f64, yr as f64);
        let tp = terrain.params();
        if h < tp.lake_level.max(tp.lake_base) || terrain.is_town(xr, yr) {
            return None;
        }
        // The seed's bits: (π·1000·x·y) & 0xff, truncated as JavaScript's `&` does.
        let xy = xr.wrapping_mul(yr);
        let bits = if xy.unsigned_abs() < 1 << 36 {
            ((PI1000 * xy as f64).trunc() as i64 & 0xff) as u32
        } else {
            (hash_unit(xy, 1000, s) * 256.0) as u32
        };
        let n = match (bits & 3) + 1 {
            1 => 3,
            n => n,
        };
        let spread = std::f64::consts::TAU / n as f64;
        let jitter = bits as f64 * 0.01;
        Some(RoadStart {
            pos: DVec2::new(xr as f64, yr as f64),
            id: (i, j),
            bearings: (0..n).map(|k| spread * k as f64 + jitter).collect(),
        })
    }

    /// Every start point in `[min, max)`, in canonical (row, column) order.
    ///
    /// Empty when the area's start grid has more cells than
    /// [`RoadWork::StartCells`] allows, or the area is not finite (see
    /// [`Self::try_starts_in`], which says so).
    pub fn starts_in(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Vec<RoadStart> {
        self.try_starts_in(terrain, min, max).unwrap_or_default()
    }

    /// [`Self::starts_in`], refusing areas whose start grid has more cells
    /// than [`RoadWork::StartCells`] allows, or that are not finite.
    pub fn try_starts_in(
        &self,
        terrain: &Terrain,
        min: DVec2,
        max: DVec2,
    ) -> Result<Vec<RoadStart>, RoadAreaError> {
        let area = (max - min).max(DVec2::ZERO).element_product();
        Budget::for_area(area).spend(RoadWork::StartCells, self.start_cells(min, max))?;
        Ok(self.scan_starts(terrain, min, max))
    }

    /// The start grid's cells that hold every start in `[min, max)`.
    fn cell_range(&self, min: DVec2, max: DVec2) -> (DVec2, DVec2) {
        (
            (min / self.cell).floor() - 1.0,
            (max / self.cell).floor() + 1.0,
        )
    }

    /// How many cells of the start grid [`Self::starts_in`] looks at
    /// (`u64::MAX` for an area that is not finite).
    pub(super) fn start_cells(&self, min: DVec2, max: DVec2) -> u64 {
        let (c0, c1) = self.cell_range(min, max);
        let n = (c1 - c0 + 1.0).max(DVec2::ZERO).element_product();
        if min.is_finite() && max.is_finite() && n < u64::MAX as f64 {
            n as u64
        } else {
            u64::MAX
        }
    }

    /// Every start point in `[min, max)`, however many cells that takes.
    pub(super) fn scan_starts(&self, terrain: &Terrain, min: DVec2, max: DVec2) -> Vec<RoadStart> {
        let (c0, c1) = self.cell_range(min, max);
        let mut out = Vec::new();
        for j in c0.y as i64..=c1.y as i64 {
            for i in c0.x as i64..=c1.x as i64 {
                if let Some(s) = self.start_at(terrain, i, j)
                    && s.pos.x >= min.x
                    && s.pos.y >= min.y
                    && s.pos.x < max.x
                    && s.pos.y < max.y
                {
                    out.push(s);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roads::ContourParams;
    use crate::terrain::TerrainKind;

    #[test]
    fn start_points_are_sparse_dry_and_deterministic() {
        let t = Terrain::default();
        let c = ContourRoads::new(ContourParams::default()).unwrap();
        let (min, max) = (DVec2::new(0.0, 0.0), DVec2::new(4000.0, 4000.0));
        let s = c.starts_in(&t, min, max);
        // About 10 per km² of dry, non-town land.
        assert!((60..=170).contains(&s.len()), "{}", s.len());
        for p in &s {
            let k = t.terra(p.pos.x, p.pos.y).kind;
            assert!(
                !matches!(k, TerrainKind::Lake | TerrainKind::Town | TerrainKind::Mud),
                "{k:?}"
            );
            assert!((2..=4).contains(&p.bearings.len()));
        }
        let threes = s.iter().filter(|p| p.bearings.len() == 3).count();
        assert!(threes * 2 > s.len(), "3 paths should be the most common");
        assert_eq!(s, c.starts_in(&t, min, max));
    }

    #[test]
    fn absurd_areas_have_no_start_points() {
        let t = Terrain::default();
        let c = ContourRoads::new(ContourParams::default()).unwrap();
        let (min, max) = (DVec2::ZERO, DVec2::splat(2000.0));
        assert_eq!(
            c.try_starts_in(&t, min, max).unwrap(),
            c.starts_in(&t, min, max)
        );
        // A million km² (its grid has ten million cells), and areas that are
        // not finite: refused at once, and `starts_in` gives none.
        for (min, max) in [
            (DVec2::splat(-5e5), DVec2::splat(5e5)),
            (DVec2::ZERO, DVec2::new(f64::INFINITY, 10.0)),
            (DVec2::splat(f64::NAN), DVec2::ONE),
        ] {
            let err = c.try_starts_in(&t, min, max).unwrap_err();
            assert!(
                matches!(
                    err,
                    RoadAreaError::TooMuchWork {
                        work: RoadWork::StartCells,
                        ..
                    }
                ),
                "{err}"
            );
            assert!(c.starts_in(&t, min, max).is_empty());
        }
    }
}
