//! Below the ground: the mine level (a grid of open or solid cells reached by
//! mine shafts) and irregular caverns between two height fields.

use super::streams::{AreaError, Scan};
use super::{Feature, PI10000, Terrain, pi_frac};
use crate::num::{WORLD_LIMIT_F64, lattice_coord};
use glam::DVec2;

impl Terrain {
    /// The mine cell containing a ground position.
    pub fn mine_cell(&self, x: f64, y: f64) -> (i64, i64) {
        let c = self.params.mines.cell as f64;
        ((x / c).floor() as i64, (y / c).floor() as i64)
    }

    /// Whether mine cell `(i, j)` lies under a mine shaft: some whole-metre
    /// point of its square carries a `Mine` feature. False for cells beyond
    /// [`WORLD_LIMIT`](crate::num::WORLD_LIMIT).
    pub fn mine_open_above(&self, i: i64, j: i64) -> bool {
        let c = self.params.mines.cell as i64;
        let (Some(x0), Some(y0)) = (lattice_coord(i, c), lattice_coord(j, c)) else {
            return false;
        };
        (0..c).any(|dy| {
            (0..c).any(|dx| {
                let (x, y) = (x0 + dx, y0 + dy);
                self.generated_feature(x, y) == Some(Feature::Mine)
                    && self.terra(x as f64, y as f64).feature == Some(Feature::Mine)
            })
        })
    }

    /// Whether mine cell `(i, j)` is open (a tunnel) rather than rock: always
    /// under a shaft, else where the fraction of π·10000·x·y of the cell's
    /// centre exceeds the openness threshold. Cells connect only through
    /// their edges, never diagonally. Cells beyond
    /// [`WORLD_LIMIT`](crate::num::WORLD_LIMIT) are rock.
    pub fn mine_is_open(&self, i: i64, j: i64) -> bool {
        let c = self.params.mines.cell as i64;
        let (Some(x0), Some(y0)) = (lattice_coord(i, c), lattice_coord(j, c)) else {
            return false;
        };
        if self.mine_open_above(i, j) {
            return true;
        }
        let (x, y) = (x0 + c / 2, y0 + c / 2);
        pi_frac(x.wrapping_mul(y), PI10000) > self.params.mines.openness
    }

    /// Every mine shaft (a `Mine` feature that `terra()` reports) in
    /// `[min, max)`, row by row; at most [`super::MAX_SCAN_AREA`] whole
    /// metres at once, none beyond [`WORLD_LIMIT`](crate::num::WORLD_LIMIT).
    pub fn mine_shafts_in(&self, min: DVec2, max: DVec2) -> Result<Vec<(i64, i64)>, AreaError> {
        // Half-open ranges: a metre past the limit so that it is included.
        let clip = |v: f64| v.clamp(-WORLD_LIMIT_F64, WORLD_LIMIT_F64 + 1.0);
        let scan = Scan::new(min, max, 1.0, |lo, hi| {
            clip(lo).ceil() as i64..clip(hi).ceil() as i64
        })?;
        Ok(scan
            .points()
            .filter(|&(x, y)| {
                self.generated_feature(x, y) == Some(Feature::Mine)
                    && self.terra(x as f64, y as f64).feature == Some(Feature::Mine)
            })
            .collect())
    }

    /// Height of the mine floor at a shaft: the ground less the mine depth.
    pub fn mine_floor(&self, x: f64, y: f64) -> f64 {
        self.height(x, y) - self.params.mines.depth
    }

    /// The cavern at a position, as `(floor, roof)` heights, or `None` where
    /// the rock is solid. Floor and roof are the height field, scaled and
    /// offset differently; a cavern is where the roof lies above the floor
    /// and at least `min_cover` below the ground.
    pub fn cavern(&self, x: f64, y: f64) -> Option<(f64, f64)> {
        let c = &self.params.caverns;
        let (sx, sy) = (x * c.scale, y * c.scale);
        let floor = c.level + self.height(sx + c.floor_offset.x, sy + c.floor_offset.y);
        let roof = c.level + c.gap + self.height(sx + c.roof_offset.x, sy + c.roof_offset.y);
        (roof > floor && roof <= self.height(x, y) - c.min_cover).then_some((floor, roof))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shafts_open_their_cells_and_the_rest_is_a_mix() {
        let t = Terrain::default();
        // (285, 389) and (128, 662) are mines in the reference.
        let shafts = t.mine_shafts_in(DVec2::ZERO, DVec2::splat(1000.0)).unwrap();
        assert!(shafts.contains(&(285, 389)) && shafts.contains(&(128, 662)));
        assert!(shafts.contains(&(801, 947)));
        assert_eq!(shafts.len(), 3);
        for &(x, y) in &shafts {
            let (i, j) = t.mine_cell(x as f64 + 0.2, y as f64 - 0.3);
            assert!(t.mine_open_above(i, j));
            assert!(t.mine_is_open(i, j));
            assert_eq!(
                t.mine_floor(x as f64, y as f64),
                t.height(x as f64, y as f64) - 20.0
            );
        }
        let open = (0..40)
            .flat_map(|j| (0..40).map(move |i| (i, j)))
            .filter(|&(i, j)| t.mine_is_open(i, j))
            .count();
        // The threshold 0.4 leaves about 60 % open.
        assert!((800..1100).contains(&open), "{open}");
    }

    #[test]
    fn extreme_mine_cells_are_rock_and_never_overflow() {
        let t = Terrain::default();
        for i in [i64::MIN, -(1 << 50), i64::MAX / 16, i64::MAX] {
            for j in [0, i, i64::MIN, i64::MAX] {
                assert!(!t.mine_is_open(i, j));
                assert!(!t.mine_open_above(j, i));
            }
        }
        // The cell of any position converts without overflow.
        for v in [f64::MAX, -f64::MAX, f64::NAN, 1e300, i64::MAX as f64] {
            let (i, j) = t.mine_cell(v, -v);
            let _ = t.mine_is_open(i, j);
        }
        // Scans beyond the world's edge find nothing; straddling it is refused
        // when too large.
        let far = DVec2::splat(1.0e17);
        assert_eq!(t.mine_shafts_in(far, far + 100.0), Ok(vec![]));
        assert!(
            t.mine_shafts_in(DVec2::splat(-1e300), DVec2::splat(1e300))
                .is_err()
        );
    }

    #[test]
    fn caverns_are_bounded_and_sometimes_present() {
        let t = Terrain::default();
        let mut n = 0;
        for i in 0..100 {
            for j in 0..100 {
                let (x, y) = (i as f64 * 20.0, j as f64 * 20.0);
                if let Some((f, r)) = t.cavern(x, y) {
                    assert!(r > f && r <= t.height(x, y) - 10.0);
                    n += 1;
                }
            }
        }
        assert!(n > 100 && n < 9000, "{n}");
    }
}
