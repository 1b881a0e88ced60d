//! Below the ground: the mine level (a grid of open or solid cells reached by
//! mine shafts) and irregular caverns between two height fields.

use super::streams::{AreaError, check_area};
use super::{Feature, PI10000, Terrain, pi_frac};
use glam::DVec2;

impl Terrain {
    /// The mine cell containing a ground position.
    pub fn mine_cell(&self, x: f64, y: f64) -> (i64, i64) {
        let c = self.params.mines.cell as f64;
        ((x / c).floor() as i64, (y / c).floor() as i64)
    }

    /// Whether mine cell `(i, j)` lies under a mine shaft: some whole-metre
    /// point of its square carries a `Mine` feature.
    pub fn mine_open_above(&self, i: i64, j: i64) -> bool {
        let c = self.params.mines.cell as i64;
        (0..c).any(|dy| {
            (0..c).any(|dx| {
                let (x, y) = (i * c + dx, j * c + dy);
                self.generated_feature(x, y) == Some(Feature::Mine)
                    && self.terra(x as f64, y as f64).feature == Some(Feature::Mine)
            })
        })
    }

    /// Whether mine cell `(i, j)` is open (a tunnel) rather than rock: always
    /// under a shaft, else where the fraction of π·10000·x·y of the cell's
    /// centre exceeds the openness threshold. Cells connect only through
    /// their edges, never diagonally.
    pub fn mine_is_open(&self, i: i64, j: i64) -> bool {
        if self.mine_open_above(i, j) {
            return true;
        }
        let c = self.params.mines.cell as i64;
        let (x, y) = (i * c + c / 2, j * c + c / 2);
        pi_frac(x.wrapping_mul(y), PI10000) > self.params.mines.openness
    }

    /// Every mine shaft (a `Mine` feature that `terra()` reports) in
    /// `[min, max)`, row by row; at most [`super::MAX_SCAN_AREA`] at once.
    pub fn mine_shafts_in(&self, min: DVec2, max: DVec2) -> Result<Vec<(i64, i64)>, AreaError> {
        check_area(min, max)?;
        let (x0, x1) = (min.x.ceil() as i64, max.x.ceil() as i64);
        let (y0, y1) = (min.y.ceil() as i64, max.y.ceil() as i64);
        let mut out = Vec::new();
        for y in y0..y1 {
            for x in x0..x1 {
                if self.generated_feature(x, y) == Some(Feature::Mine)
                    && self.terra(x as f64, y as f64).feature == Some(Feature::Mine)
                {
                    out.push((x, y));
                }
            }
        }
        Ok(out)
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
