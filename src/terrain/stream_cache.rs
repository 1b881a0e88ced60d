//! [`StreamCache`]: the streams of an area that moves, without scanning
//! again the ground it has already scanned.

use super::{AreaError, Stream, Terrain};
use glam::DVec2;
use std::collections::HashMap;
use std::sync::Arc;

/// Side of a cached tile of stream sources, metres.
const TILE: i64 = 256;

/// Stream sources found so far, by 256 m tile, for one terrain. Keep one
/// per terrain (a new terrain needs a new cache) and pass it to
/// [`Terrain::streams_in_cached`]; the answers are exactly those of
/// [`Terrain::streams_in`], and only tiles not seen before are scanned.
#[derive(Clone, Debug, Default)]
pub struct StreamCache {
    tiles: HashMap<(i64, i64), Arc<Vec<Stream>>>,
}

impl StreamCache {
    /// Tiles held.
    pub fn len(&self) -> usize {
        self.tiles.len()
    }

    /// Whether no tile is held.
    pub fn is_empty(&self) -> bool {
        self.tiles.is_empty()
    }
}

impl Terrain {
    /// [`Self::streams_in`] through a cache of the sources already scanned;
    /// tiles the request does not touch are dropped from the cache, so it
    /// holds at most one request's worth.
    pub fn streams_in_cached(
        &self,
        min: DVec2,
        max: DVec2,
        cache: &mut StreamCache,
    ) -> Result<Vec<Stream>, AreaError> {
        let scan = self.stream_scan(min, max)?;
        let (xs, ys) = (scan.xs, scan.ys);
        if xs.is_empty() || ys.is_empty() {
            return Ok(Vec::new());
        }
        let tile = |v: i64| v.div_euclid(TILE);
        let (tx, ty) = (
            tile(xs.start)..=tile(xs.end - 1),
            tile(ys.start)..=tile(ys.end - 1),
        );
        cache
            .tiles
            .retain(|(x, y), _| tx.contains(x) && ty.contains(y));
        let inside = |p: &DVec2| p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y;
        let mut out: Vec<Stream> = Vec::new();
        for j in ty.clone() {
            for i in tx.clone() {
                let sources = cache
                    .tiles
                    .entry((i, j))
                    .or_insert_with(|| Arc::new(self.tile_sources(i, j)));
                out.extend(
                    (sources.iter())
                        .filter(|s| xs.contains(&s.source.0) && ys.contains(&s.source.1))
                        .filter(|s| s.points.iter().any(inside))
                        .cloned(),
                );
            }
        }
        // Row by row, as `streams_in` finds them.
        out.sort_by_key(|s| (s.source.1, s.source.0));
        Ok(out)
    }

    /// Every stream whose source lies in tile `(i, j)`.
    fn tile_sources(&self, i: i64, j: i64) -> Vec<Stream> {
        let (x0, y0) = (i.saturating_mul(TILE), j.saturating_mul(TILE));
        let mut out = Vec::new();
        for y in y0..y0.saturating_add(TILE) {
            for x in x0..x0.saturating_add(TILE) {
                out.extend(self.stream_from(x, y));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_streams_are_the_scanned_ones_as_the_area_moves() {
        let t = Terrain::default();
        let mut cache = StreamCache::default();
        let mut seen = 0;
        for k in 0..4 {
            let min = DVec2::new(230.5 * k as f64, 300.0 - 170.0 * k as f64);
            let max = min + DVec2::new(1400.0, 1300.0);
            let cached = t.streams_in_cached(min, max, &mut cache).unwrap();
            assert_eq!(cached, t.streams_in(min, max).unwrap(), "{min}");
            seen += cached.len();
        }
        assert!(seen > 4, "{seen}");
        assert!(!cache.is_empty());
        // Refusals are the same.
        let (a, b) = (DVec2::splat(-1.0e6), DVec2::splat(1.0e6));
        assert_eq!(
            t.streams_in_cached(a, b, &mut cache).unwrap_err(),
            t.streams_in(a, b).unwrap_err()
        );
    }
}
