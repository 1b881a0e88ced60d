//! Placed overrides: features moved, removed or added, and terrain kinds
//! (roads, paths, streams …) stamped onto whole-metre cells.

use super::{Feature, Terrain, TerrainKind};
use serde::{Deserialize, Serialize};

/// What has been placed on one whole-metre cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Placed {
    /// The cell is of this kind, whatever the generator says (no feature).
    Kind(TerrainKind),
    /// This feature stands here instead of any generated one.
    Feature(Feature),
    /// The generated feature has gone (moved away or removed).
    NoFeature,
}

impl Terrain {
    /// Stamps a terrain kind onto a cell; `terra()` reports it from then on.
    pub fn place_kind(&mut self, x: i64, y: i64, kind: TerrainKind) {
        self.placed.insert((x, y), Placed::Kind(kind));
    }

    /// Puts a feature on a cell, replacing any generated one.
    pub fn place_feature(&mut self, x: i64, y: i64, feature: Feature) {
        self.placed.insert((x, y), Placed::Feature(feature));
    }

    /// Removes whatever feature `terra()` reports at a cell.
    pub fn remove_feature(&mut self, x: i64, y: i64) {
        self.placed.insert((x, y), Placed::NoFeature);
    }

    /// Moves the feature at `from` to `to`; returns it, or `None` (and changes
    /// nothing) when there is no feature at `from`.
    pub fn move_feature(&mut self, from: (i64, i64), to: (i64, i64)) -> Option<Feature> {
        let f = self.terra(from.0 as f64, from.1 as f64).feature?;
        self.remove_feature(from.0, from.1);
        self.place_feature(to.0, to.1, f);
        Some(f)
    }

    /// Forgets any override at a cell: the generated terrain shows again.
    pub fn clear_placed(&mut self, x: i64, y: i64) {
        self.placed.remove(&(x, y));
    }

    /// Forgets every cell stamped with `kind` (e.g. all streams).
    pub fn clear_kind(&mut self, kind: TerrainKind) {
        self.placed.retain(|_, p| *p != Placed::Kind(kind));
    }

    /// The override at a cell, if any.
    pub fn placed_at(&self, x: i64, y: i64) -> Option<Placed> {
        self.placed.get(&(x, y)).copied()
    }

    /// Number of overridden cells.
    pub fn placed_count(&self) -> usize {
        self.placed.len()
    }

    /// Every override, sorted by position (a stable order for saving).
    pub fn placed_sorted(&self) -> Vec<((i64, i64), Placed)> {
        let mut v: Vec<_> = self.placed.iter().map(|(&k, &p)| (k, p)).collect();
        v.sort_by_key(|e| e.0);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn place_move_remove() {
        let mut t = Terrain::default();
        // (321, 99) has a man-made object in the reference.
        assert_eq!(t.terra(321.0, 99.0).feature, Some(Feature::ManMade));
        assert_eq!(t.move_feature((321, 99), (330, 99)), Some(Feature::ManMade));
        assert_eq!(t.terra(321.0, 99.0).feature, None);
        assert_eq!(t.terra(330.2, 98.7).feature, Some(Feature::ManMade));
        assert_eq!(t.move_feature((321, 99), (0, 0)), None);
        t.clear_placed(321, 99);
        t.clear_placed(330, 99);
        assert_eq!(t.terra(321.0, 99.0).feature, Some(Feature::ManMade));
        assert_eq!(t.terra(330.0, 99.0).feature, None);

        t.remove_feature(321, 99);
        assert_eq!(t.terra(321.0, 99.0).feature, None);
        assert_eq!(
            t.terra(321.0, 99.0).kind,
            Terrain::default().terra(321.0, 99.0).kind
        );

        let before = t.terra(10.4, 9.6);
        t.place_kind(10, 10, TerrainKind::Road);
        let road = t.terra(10.4, 9.6);
        assert_eq!(road.kind, TerrainKind::Road);
        assert_eq!(road.feature, None);
        assert_eq!(road.height, before.height.max(204.0));
        t.place_kind(11, 10, TerrainKind::Stream);
        t.clear_kind(TerrainKind::Road);
        assert_eq!(t.terra(10.4, 9.6), before);
        assert_eq!(t.terra(11.0, 10.0).kind, TerrainKind::Stream);
        assert_eq!(t.placed_sorted().len(), t.placed_count());
    }

    #[test]
    fn a_road_over_a_lake_stays_at_the_water_surface() {
        let mut t = Terrain::default();
        t.place_kind(-1811, 3062, TerrainKind::Road);
        let s = t.terra(-1811.0, 3062.0);
        assert_eq!((s.kind, s.height), (TerrainKind::Road, 204.0));
    }
}
