//! Which chunks to show around the focus: a quadtree, fine near and coarse far.

use crate::plugin::stream::settings::ViewSettings;
use bevy::math::DVec2;
use bevy::prelude::*;

/// Road ribbons are drawn on chunks whose vertex spacing is at most this.
const RIBBON_MAX_SPACING: f64 = 64.0;

/// Chunks at most this fine (vertex spacing, metres) draw retaining walls
/// (and the finest level always).
const WALL_MAX_SPACING: f64 = 2.0;

/// A chunk's place in the quadtree: level 0 is the finest; a chunk at level
/// `l` is `min_chunk_size · 2^l` metres square with its south-west corner at
/// `(x, y) · size`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Reflect)]
pub struct ChunkKey {
    /// Level of detail, 0 = finest.
    pub level: u8,
    /// Column index at this level.
    pub x: i64,
    /// Row index at this level.
    pub y: i64,
}

/// Coarsest level used.
const MAX_LEVEL: u8 = 20;

impl ChunkKey {
    /// Side length, metres.
    pub fn size(&self, view: &ViewSettings) -> f64 {
        view.min_chunk_size * (1u64 << self.level) as f64
    }

    /// South-west corner, metres.
    pub fn corner(&self, view: &ViewSettings) -> DVec2 {
        DVec2::new(self.x as f64, self.y as f64) * self.size(view)
    }

    /// Whether `(x, y)` lies in this chunk.
    pub fn contains(&self, view: &ViewSettings, p: DVec2) -> bool {
        let (min, s) = (self.corner(view), self.size(view));
        p.x >= min.x && p.y >= min.y && p.x < min.x + s && p.y < min.y + s
    }

    /// Distance from `p` to the chunk's square (0 inside).
    pub fn distance(&self, view: &ViewSettings, p: DVec2) -> f64 {
        let (min, s) = (self.corner(view), self.size(view));
        p.clamp(min, min + DVec2::splat(s)).distance(p)
    }

    /// Vertex spacing, metres.
    pub fn spacing(&self, view: &ViewSettings) -> f64 {
        self.size(view) / view.chunk_quads as f64
    }

    /// Whether the chunk draws road and stream ribbons (fine enough to).
    pub fn draws_ribbons(&self, view: &ViewSettings) -> bool {
        self.spacing(view) <= RIBBON_MAX_SPACING
    }

    /// Whether the chunk draws its part of the retaining walls: the
    /// finest level, or any with vertices 2 m apart or less (a coarser grid
    /// cannot meet a wall's foot and top: its triangles would cut across
    /// the wall's face in a saw-tooth).
    pub fn draws_walls(&self, view: &ViewSettings) -> bool {
        self.level == 0 || self.spacing(view) <= WALL_MAX_SPACING
    }

    /// The chunk one level coarser that contains this one.
    pub fn parent(&self) -> ChunkKey {
        ChunkKey {
            level: self.level + 1,
            x: self.x.div_euclid(2),
            y: self.y.div_euclid(2),
        }
    }

    /// Whether `other` lies inside this chunk (or is it).
    pub fn covers(&self, other: &ChunkKey) -> bool {
        if other.level > self.level {
            return false;
        }
        let shift = self.level - other.level;
        other.x >> shift == self.x && other.y >> shift == self.y
    }

    /// Whether the two chunks overlap (one contains the other).
    pub fn overlaps(&self, other: &ChunkKey) -> bool {
        self.covers(other) || other.covers(self)
    }
}

/// The coarsest level for a view: roots are about half the view distance.
fn top_level(view: &ViewSettings) -> u8 {
    let ratio = view.view_distance / view.min_chunk_size;
    (ratio.log2().ceil() as i64 - 1).clamp(0, MAX_LEVEL as i64) as u8
}

/// The chunks to show around `focus`, nearest first: a quadtree whose chunks
/// split while the focus is closer than `lod_factor` × their size, limited
/// to the view distance. They tile the disc without overlap.
pub fn select_chunks(focus: DVec2, view: &ViewSettings) -> Vec<ChunkKey> {
    let mut out = Vec::new();
    if !focus.is_finite() {
        return out;
    }
    let top = top_level(view);
    let s = view.min_chunk_size * (1u64 << top) as f64;
    let r = view.view_distance;
    let (x0, x1) = (
        ((focus.x - r) / s).floor() as i64,
        ((focus.x + r) / s).floor() as i64,
    );
    let (y0, y1) = (
        ((focus.y - r) / s).floor() as i64,
        ((focus.y + r) / s).floor() as i64,
    );
    let mut stack: Vec<ChunkKey> = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            stack.push(ChunkKey { level: top, x, y });
        }
    }
    while let Some(k) = stack.pop() {
        let d = k.distance(view, focus);
        if d > r {
            continue;
        }
        if k.level > 0 && d < view.lod_factor * k.size(view) {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                stack.push(ChunkKey {
                    level: k.level - 1,
                    x: k.x * 2 + dx,
                    y: k.y * 2 + dy,
                });
            }
        } else {
            out.push(k);
        }
    }
    // Nearest first; on a boundary, the chunk that holds the focus first.
    let rank = |k: &ChunkKey| (k.distance(view, focus), !k.contains(view, focus));
    out.sort_by(|a, b| {
        let (ra, rb) = (rank(a), rank(b));
        ra.0.total_cmp(&rb.0).then(ra.1.cmp(&rb.1)).then(a.cmp(b))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(keys: &[ChunkKey], view: &ViewSettings) -> f64 {
        keys.iter().map(|k| k.size(view).powi(2)).sum()
    }

    #[test]
    fn selection_tiles_the_view_without_overlap_and_is_fine_near_the_focus() {
        let view = ViewSettings::default();
        for focus in [
            DVec2::new(19000.0, 1260.0),
            DVec2::new(-3.5, 7.25),
            DVec2::new(1.0e9, -2.0e8),
        ] {
            let keys = select_chunks(focus, &view);
            assert!(keys.len() > 50 && keys.len() < 400, "{}", keys.len());
            for (i, a) in keys.iter().enumerate() {
                for b in &keys[i + 1..] {
                    assert!(!a.overlaps(b), "{a:?} {b:?}");
                }
            }
            // The finest level is under the focus, and it comes first.
            assert_eq!(keys[0].level, 0);
            assert!(keys[0].contains(&view, focus), "{focus} {:?}", &keys[..3]);
            // Everything within the view distance is covered.
            let r = view.view_distance * 0.99;
            for i in 0..64 {
                let a = i as f64 / 64.0 * std::f64::consts::TAU;
                for d in [0.0, 100.0, 1000.0, r] {
                    let p = focus + DVec2::new(a.cos(), a.sin()) * d;
                    assert_eq!(
                        keys.iter().filter(|k| k.contains(&view, p)).count(),
                        1,
                        "{p}"
                    );
                }
            }
            assert!(area(&keys, &view) >= std::f64::consts::PI * r * r);
            // Sizes grow with distance.
            for k in &keys {
                assert!(
                    k.level == 0 || k.distance(&view, focus) >= view.lod_factor * k.size(&view)
                );
            }
        }
        assert!(select_chunks(DVec2::splat(f64::NAN), &view).is_empty());
    }

    #[test]
    fn keys_nest() {
        let k = ChunkKey {
            level: 0,
            x: -3,
            y: 5,
        };
        assert_eq!(
            k.parent(),
            ChunkKey {
                level: 1,
                x: -2,
                y: 2
            }
        );
        assert!(k.parent().parent().covers(&k));
        assert!(!k.covers(&k.parent()));
        assert!(k.overlaps(&k.parent()));
    }
}
