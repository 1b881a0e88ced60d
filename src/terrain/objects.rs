//! Things that stand on the ground: trees in woods and thickets, buildings in
//! towns. Both are deterministic per lattice point, so any rectangle that
//! contains a point yields the same object there.

use super::streams::{AreaError, Scan, clip_to_world};
use super::{PI10000, Terrain, TerrainKind, hash2, pi_bits, unit};
use crate::num::{floor_i64, lattice_coord};
use glam::DVec2;

const TREE_SALT: u64 = 0x7733_0001;
const BUILDING_SALT: u64 = 0xb1d6_0002;

/// Side of a building's square footprint, metres.
pub const BUILDING_SIZE: f64 = 12.0;
/// Spacing of the town building lattice, metres.
pub const BUILDING_SPACING: i64 = 16;

/// One tree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tree {
    /// Where the trunk stands (lattice point plus in-tile offset).
    pub pos: DVec2,
    /// Ground height at the trunk.
    pub z: f64,
    /// Which of the four varieties (the seed's selector, 0..4).
    pub variety: u8,
    /// Size factor, 0.75 ..= 1.25.
    pub scale: f64,
    /// Wood or thicket.
    pub kind: TerrainKind,
}

/// One town building: a 12 m square on the 16 m lattice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Building {
    /// Centre of the footprint (a multiple of 16 m on both axes).
    pub centre: DVec2,
    /// Lowest ground under the footprint: where the walls start.
    pub base_z: f64,
    /// Height of the flat roof line.
    pub roof_z: f64,
    /// Number of storeys.
    pub floors: u32,
    /// Roof/colour variant, `0..params.towns.variants`.
    pub variant: u32,
}

impl Building {
    /// The footprint's south-west and north-east corners.
    pub fn footprint(&self) -> (DVec2, DVec2) {
        let h = DVec2::splat(BUILDING_SIZE / 2.0);
        (self.centre - h, self.centre + h)
    }
}

/// Lattice indices whose point `i·s + offset` (|offset| ≤ reach) can fall in
/// `[lo, hi)` within the world limit; empty for non-finite or inverted
/// bounds. The indices stay within ±2⁵²/s + 1, so nothing overflows.
fn lattice_range(lo: f64, hi: f64, s: f64, reach: f64) -> std::ops::Range<i64> {
    if !(lo.is_finite() && hi.is_finite()) || hi <= lo {
        return 0..0;
    }
    let (lo, hi) = (clip_to_world(lo - reach), clip_to_world(hi + reach));
    if hi < lo {
        return 0..0;
    }
    floor_i64(lo / s)..floor_i64(hi / s) + 1
}

fn in_rect(p: DVec2, min: DVec2, max: DVec2) -> bool {
    p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y
}

impl Terrain {
    /// The seed's tree selector at a whole-metre position:
    /// `round(π·10000·x·y) & 3`.
    pub fn tree_variety(&self, xr: i64, yr: i64) -> u8 {
        (pi_bits(xr.wrapping_mul(yr), PI10000) & 3) as u8
    }

    /// The tree at lattice point `(i, j)`, if one grows there (never beyond
    /// [`WORLD_LIMIT`](crate::num::WORLD_LIMIT)).
    pub fn tree_at(&self, i: i64, j: i64) -> Option<Tree> {
        self.tree_at_on(i, j, |x, y| self.terra(x, y))
    }

    /// [`Self::tree_at`] on the ground that `terra` describes (e.g. with
    /// roads laid on it).
    pub(crate) fn tree_at_on(
        &self,
        i: i64,
        j: i64,
        terra: impl Fn(f64, f64) -> super::Terra,
    ) -> Option<Tree> {
        let p = &self.params.trees;
        let s = p.spacing;
        let (xr, yr) = (lattice_coord(i, s as i64)?, lattice_coord(j, s as i64)?);
        let h = hash2(i, j, self.params.seed ^ TREE_SALT);
        let off = DVec2::new(unit(h) - 0.5, unit(h.rotate_left(21)) - 0.5) * (2.0 * p.jitter * s);
        let pos = DVec2::new(xr as f64, yr as f64) + off;
        let t = terra(pos.x, pos.y);
        let density = match t.kind {
            TerrainKind::Wood => p.wood_density,
            TerrainKind::Thicket => p.thicket_density,
            _ => return None,
        };
        if t.feature.is_some() || unit(h.rotate_left(42)) >= density {
            return None;
        }
        Some(Tree {
            pos,
            z: t.height,
            variety: self.tree_variety(xr, yr),
            scale: 0.75 + 0.5 * unit(hash2(j, i, TREE_SALT)),
            kind: t.kind,
        })
    }

    /// Every tree standing in `[min, max)`, row by row from the south-west;
    /// nothing when [`Self::try_trees_in`] refuses the rectangle (not
    /// finite, or more than [`MAX_SCAN_AREA`](super::MAX_SCAN_AREA) of
    /// lattice cells).
    pub fn trees_in(&self, min: DVec2, max: DVec2) -> impl Iterator<Item = Tree> + '_ {
        self.try_trees_in(min, max).into_iter().flatten()
    }

    /// Every tree standing in `[min, max)`, row by row from the south-west,
    /// or an error when the corners are not finite or the lattice cells
    /// examined (the rectangle grown by the largest jitter, rounded out to
    /// whole cells) cover more than [`MAX_SCAN_AREA`](super::MAX_SCAN_AREA).
    /// No tree stands beyond [`WORLD_LIMIT`](crate::num::WORLD_LIMIT).
    pub fn try_trees_in(
        &self,
        min: DVec2,
        max: DVec2,
    ) -> Result<impl Iterator<Item = Tree> + '_, AreaError> {
        self.try_trees_in_on(min, max, |x, y| self.terra(x, y))
    }

    /// [`Self::try_trees_in`] on the ground that `terra` describes (e.g.
    /// with roads laid on it).
    pub(crate) fn try_trees_in_on<'a>(
        &'a self,
        min: DVec2,
        max: DVec2,
        terra: impl Fn(f64, f64) -> super::Terra + 'a,
    ) -> Result<impl Iterator<Item = Tree> + 'a, AreaError> {
        let s = self.params.trees.spacing;
        let reach = self.params.trees.jitter * s;
        let scan = Scan::new(min, max, s, |lo, hi| lattice_range(lo, hi, s, reach))?;
        Ok(scan
            .points()
            .filter_map(move |(i, j)| self.tree_at_on(i, j, &terra))
            .filter(move |t| in_rect(t.pos, min, max)))
    }

    /// The building centred on lattice point `(i, j)` (at `16i, 16j`), if any:
    /// the centre and all four corners must be town ground. None beyond
    /// [`WORLD_LIMIT`](crate::num::WORLD_LIMIT).
    pub fn building_at(&self, i: i64, j: i64) -> Option<Building> {
        self.building_at_on(i, j, |x, y| self.terra(x, y))
    }

    /// [`Self::building_at`] on the ground that `terra` describes.
    pub(crate) fn building_at_on(
        &self,
        i: i64,
        j: i64,
        terra: impl Fn(f64, f64) -> super::Terra,
    ) -> Option<Building> {
        let p = &self.params.towns;
        let (x, y) = (
            lattice_coord(i, BUILDING_SPACING)?,
            lattice_coord(j, BUILDING_SPACING)?,
        );
        let centre = DVec2::new(x as f64, y as f64);
        let h = hash2(i, j, self.params.seed ^ BUILDING_SALT);
        if unit(h) >= p.building_chance {
            return None;
        }
        let r = BUILDING_SIZE / 2.0;
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for d in [
            DVec2::ZERO,
            DVec2::new(-r, -r),
            DVec2::new(r, -r),
            DVec2::new(-r, r),
            DVec2::new(r, r),
        ] {
            let t = terra(centre.x + d.x, centre.y + d.y);
            if t.kind != TerrainKind::Town {
                return None;
            }
            lo = lo.min(t.height);
            hi = hi.max(t.height);
        }
        let span = (p.max_floors - p.min_floors + 1) as u64;
        let floors = p.min_floors + ((h >> 20) % span) as u32;
        Some(Building {
            centre,
            base_z: lo,
            roof_z: hi + floors as f64 * p.floor_height,
            floors,
            variant: ((h >> 40) % p.variants as u64) as u32,
        })
    }

    /// Every building whose centre lies in `[min, max)`, row by row; nothing
    /// when [`Self::try_buildings_in`] refuses the rectangle.
    pub fn buildings_in(&self, min: DVec2, max: DVec2) -> impl Iterator<Item = Building> + '_ {
        self.try_buildings_in(min, max).into_iter().flatten()
    }

    /// Every building whose centre lies in `[min, max)`, row by row, or an
    /// error when the corners are not finite or the 16 m lattice cells
    /// examined cover more than [`MAX_SCAN_AREA`](super::MAX_SCAN_AREA).
    /// No building stands beyond [`WORLD_LIMIT`](crate::num::WORLD_LIMIT).
    pub fn try_buildings_in(
        &self,
        min: DVec2,
        max: DVec2,
    ) -> Result<impl Iterator<Item = Building> + '_, AreaError> {
        self.try_buildings_in_on(min, max, |x, y| self.terra(x, y))
    }

    /// [`Self::try_buildings_in`] on the ground that `terra` describes.
    pub(crate) fn try_buildings_in_on<'a>(
        &'a self,
        min: DVec2,
        max: DVec2,
        terra: impl Fn(f64, f64) -> super::Terra + 'a,
    ) -> Result<impl Iterator<Item = Building> + 'a, AreaError> {
        let s = BUILDING_SPACING as f64;
        let scan = Scan::new(min, max, s, |lo, hi| lattice_range(lo, hi, s, 0.0))?;
        Ok(scan
            .points()
            .filter_map(move |(i, j)| self.building_at_on(i, j, &terra))
            .filter(move |b| in_rect(b.centre, min, max)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_grow_only_in_woods_and_thickets_and_tile_exactly() {
        let t = Terrain::default();
        let (min, max) = (DVec2::new(18800.0, 1000.0), DVec2::new(19400.0, 1500.0));
        let all: Vec<Tree> = t.trees_in(min, max).collect();
        assert!(all.len() > 500, "{}", all.len());
        let mut varieties = [0; 4];
        for tr in &all {
            let s = t.terra(tr.pos.x, tr.pos.y);
            assert!(s.kind.is_wooded() && s.feature.is_none());
            assert_eq!(tr.z, t.height(tr.pos.x, tr.pos.y));
            varieties[tr.variety as usize] += 1;
        }
        assert!(varieties.iter().all(|&n| n > 20), "{varieties:?}");
        // Four quarters give exactly the same trees as the whole.
        let mid = (min + max) / 2.0;
        let mut parts: Vec<Tree> = Vec::new();
        for (a, b) in [
            (min, mid),
            (DVec2::new(mid.x, min.y), DVec2::new(max.x, mid.y)),
            (DVec2::new(min.x, mid.y), DVec2::new(mid.x, max.y)),
            (mid, max),
        ] {
            parts.extend(t.trees_in(a, b));
        }
        assert_eq!(parts.len(), all.len());
        for tr in &all {
            assert!(parts.contains(tr));
        }
        // Thickets are denser than woods.
        let thick = all
            .iter()
            .filter(|t| t.kind == TerrainKind::Thicket)
            .count();
        assert!(thick > 0);
    }

    #[test]
    fn density_zero_means_no_trees_and_bad_rects_are_empty() {
        let mut p = crate::terrain::TerrainParams::default();
        p.trees.wood_density = 0.0;
        p.trees.thicket_density = 0.0;
        let t = Terrain::new(p).unwrap();
        assert_eq!(t.trees_in(DVec2::ZERO, DVec2::splat(500.0)).count(), 0);
        let t = Terrain::default();
        assert_eq!(
            t.trees_in(DVec2::splat(f64::NAN), DVec2::splat(5.0))
                .count(),
            0
        );
        assert_eq!(t.trees_in(DVec2::splat(50.0), DVec2::splat(5.0)).count(), 0);
    }

    #[test]
    fn extreme_lattice_points_have_nothing_and_never_overflow() {
        use crate::num::WORLD_LIMIT;
        let t = Terrain::default();
        for i in [
            i64::MIN,
            i64::MIN + 1,
            -(1 << 60),
            i64::MAX / 16 + 1,
            i64::MAX,
        ] {
            for j in [0, i, -1, i64::MAX] {
                assert_eq!(t.building_at(i, j), None);
                assert_eq!(t.building_at(j, i), None);
                assert_eq!(t.tree_at(i, j), None);
                assert_eq!(t.tree_at(j, i), None);
            }
        }
        // Just inside the limit lattice points are still examined, exactly.
        let i = WORLD_LIMIT / BUILDING_SPACING;
        if let Some(b) = t.building_at(i, -i) {
            assert_eq!(
                b.centre,
                DVec2::new(WORLD_LIMIT as f64, -WORLD_LIMIT as f64)
            );
        }
        assert_eq!(t.building_at(i + 1, 0), None);
    }

    #[test]
    fn object_scans_are_bounded_by_the_cells_they_visit() {
        use crate::terrain::MAX_SCAN_AREA;
        let t = Terrain::default();
        let side = MAX_SCAN_AREA.sqrt();
        // Refused: too large, too long and thin, straddling the world's edge,
        // not finite. The plain iterators then yield nothing.
        for (min, max) in [
            (DVec2::ZERO, DVec2::splat(1.0e6)),
            (DVec2::ZERO, DVec2::new(1.0e12, 1.0e-9)),
            (DVec2::splat(-1.0e300), DVec2::splat(1.0e300)),
            (DVec2::splat(f64::MIN), DVec2::splat(f64::MAX)),
            (DVec2::ZERO, DVec2::new(f64::INFINITY, 1.0)),
            (DVec2::new(f64::NAN, 0.0), DVec2::ONE),
        ] {
            assert!(t.try_trees_in(min, max).is_err(), "{min} {max}");
            assert!(t.try_buildings_in(min, max).is_err(), "{min} {max}");
            assert_eq!(t.trees_in(min, max).count(), 0);
            assert_eq!(t.buildings_in(min, max).count(), 0);
        }
        // Accepted: within the limit (buildings' cells are 16 m, so a larger
        // rectangle than for trees), empty, inverted, or beyond the world.
        let near = DVec2::splat(side * 0.9);
        assert!(t.try_trees_in(DVec2::ZERO, near).is_ok());
        assert!(t.try_buildings_in(DVec2::ZERO, near).is_ok());
        assert!(
            t.try_trees_in(DVec2::ZERO, DVec2::splat(side * 1.01))
                .is_err()
        );
        assert_eq!(
            t.try_buildings_in(DVec2::ONE, DVec2::ZERO).unwrap().count(),
            0
        );
        let beyond = DVec2::splat(1.0e17);
        assert_eq!(t.try_trees_in(beyond, beyond * 2.0).unwrap().count(), 0);
        assert_eq!(
            t.try_buildings_in(-beyond * 2.0, -beyond).unwrap().count(),
            0
        );
        let err = t
            .try_trees_in(DVec2::ZERO, DVec2::splat(1.0e6))
            .err()
            .unwrap();
        assert!(err.width >= 1.0e6 && err.height >= 1.0e6, "{err}");
    }

    #[test]
    fn buildings_sit_in_towns_on_the_lattice() {
        let t = Terrain::default();
        let (min, max) = (DVec2::new(-3000.0, -3000.0), DVec2::new(3000.0, 3000.0));
        let bs: Vec<Building> = t.buildings_in(min, max).collect();
        assert!(bs.len() > 100, "{}", bs.len());
        let mut variants = [0; 4];
        let mut floors = [0; 5];
        for b in &bs {
            assert_eq!(b.centre.x % 16.0, 0.0);
            assert_eq!(b.centre.y % 16.0, 0.0);
            let (lo, hi) = b.footprint();
            assert_eq!(hi - lo, DVec2::splat(12.0));
            for c in [lo, hi, b.centre] {
                assert_eq!(t.terra(c.x, c.y).kind, TerrainKind::Town);
                assert!(t.height(c.x, c.y) >= b.base_z);
            }
            assert!(b.roof_z >= b.base_z + 3.2);
            variants[b.variant as usize] += 1;
            floors[b.floors as usize] += 1;
        }
        assert!(variants.iter().all(|&n| n > 0), "{variants:?}");
        assert!(floors[1..].iter().all(|&n| n > 0), "{floors:?}");
        assert_eq!(bs, t.buildings_in(min, max).collect::<Vec<_>>());
    }
}
