//! Laid ground: the terrain with overlays laid on it (roads, streams, and
//! whatever else lays itself on the ground), answering `terra()` for
//! everything that reads the ground. The terrain itself knows no roads: an
//! overlay is any shape that says which whole-metre cells it covers.

use super::{Building, Feature, Stream, Terra, Terrain, TerrainKind, Tree};
use crate::geom::{SegmentGrid, distance_to_segment};
use crate::num::java_round;
use glam::DVec2;
use std::sync::Arc;

/// A shape laid on the ground.
pub trait Overlay: Send + Sync + std::fmt::Debug {
    /// Whether the whole-metre cell centred on `p` is covered.
    fn covers(&self, p: DVec2) -> bool;
}

/// What the ground is where something built shapes it (see [`Relief`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BuiltKind {
    /// A carriageway (with its shoulders): the road's profile, flat across.
    Carriageway,
    /// A level pad (a city lot or square).
    Pad,
    /// An embankment: fill sloping down to the natural ground.
    Fill,
    /// A cutting: a face sloping up to the natural ground.
    Cut,
}

impl BuiltKind {
    /// Every kind, in the order of [`Self::index`].
    pub const ALL: [Self; 4] = [Self::Carriageway, Self::Pad, Self::Fill, Self::Cut];

    /// Its place in [`Self::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The built ground at a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Built {
    /// Height, metres.
    pub height: f64,
    /// What shapes it.
    pub kind: BuiltKind,
}

/// Something built that reshapes the ground (earthworks): the height laid
/// over the natural one, near what is built, and nowhere else.
pub trait Relief: Send + Sync + std::fmt::Debug {
    /// The built ground at `p`, where the natural height is `natural`; `None`
    /// where the ground is natural.
    fn built(&self, p: DVec2, natural: f64) -> Option<Built>;

    /// Whether anything built may shape the ground in `[min, max]`
    /// (`false` lets grids skip the area; `true` is always safe).
    fn may_shape(&self, min: DVec2, max: DVec2) -> bool;

    /// Lays the built ground on a grid: `out[j*w + i]` holds the natural
    /// height at `(x0 + i·step, y0 + j·step)` and becomes the built one
    /// there where [`Self::built`] gives one, bit for bit. The default asks
    /// [`Self::built`] sample by sample (see [`shape_by_points`]).
    fn shape_grid(&self, x0: f64, y0: f64, step: f64, w: usize, h: usize, out: &mut [f64]) {
        shape_by_points(self, x0, y0, step, w, h, out);
    }
}

/// Side of the tiles of samples [`shape_by_points`] skips where nothing is
/// built.
pub const SHAPE_TILE: usize = 16;

/// [`Relief::shape_grid`] by [`Relief::built`] at each sample, skipping
/// the tiles of [`SHAPE_TILE`] samples a side that the relief cannot shape.
pub fn shape_by_points<R: Relief + ?Sized>(
    relief: &R,
    x0: f64,
    y0: f64,
    step: f64,
    w: usize,
    h: usize,
    out: &mut [f64],
) {
    for tj in (0..h).step_by(SHAPE_TILE) {
        for ti in (0..w).step_by(SHAPE_TILE) {
            let (i1, j1) = ((ti + SHAPE_TILE).min(w), (tj + SHAPE_TILE).min(h));
            let lo = DVec2::new(x0 + ti as f64 * step, y0 + tj as f64 * step);
            let hi = DVec2::new(x0 + (i1 - 1) as f64 * step, y0 + (j1 - 1) as f64 * step);
            if !relief.may_shape(lo.min(hi), lo.max(hi)) {
                continue;
            }
            for j in tj..j1 {
                let y = y0 + j as f64 * step;
                for i in ti..i1 {
                    let x = x0 + i as f64 * step;
                    let k = j * w + i;
                    if let Some(b) = relief.built(DVec2::new(x, y), out[k]) {
                        out[k] = b.height;
                    }
                }
            }
        }
    }
}

/// What an overlay makes of the ground it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LaidKind {
    /// A road surface: after placed overrides and paths it replaces
    /// everything, and over water it lies at the lake level.
    Road,
    /// Stream water: replaces vegetation only, keeping a water hole (its spring).
    Stream,
    /// City ground: no trees, no lattice buildings; vegetation becomes town
    /// ground (without point features); lakes, mud, paths and streams stay.
    Town,
}

/// The terrain and the overlays laid on it, in the order of [`LaidKind`].
/// Cheap to clone (shared parts).
#[derive(Clone, Debug)]
pub struct LaidGround {
    terrain: Arc<Terrain>,
    overlays: Vec<(LaidKind, Arc<dyn Overlay>)>,
    relief: Option<Arc<dyn Relief>>,
}

impl LaidGround {
    /// The bare terrain, nothing laid.
    pub fn new(terrain: Arc<Terrain>) -> Self {
        Self {
            terrain,
            overlays: Vec::new(),
            relief: None,
        }
    }

    /// The ground reshaped by `relief` (earthworks; one at most, the last
    /// given).
    pub fn with_relief(mut self, relief: Arc<dyn Relief>) -> Self {
        self.relief = Some(relief);
        self
    }

    /// The earthworks shaping the ground, if any.
    pub fn relief(&self) -> Option<&Arc<dyn Relief>> {
        self.relief.as_ref()
    }

    /// Lays one more overlay.
    pub fn with(mut self, kind: LaidKind, overlay: Arc<dyn Overlay>) -> Self {
        self.overlays.push((kind, overlay));
        self
    }

    /// The terrain under the overlays.
    pub fn terrain(&self) -> &Arc<Terrain> {
        &self.terrain
    }

    /// Whether anything is laid.
    pub fn is_bare(&self) -> bool {
        self.overlays.is_empty() && self.relief.is_none()
    }

    fn covered(&self, kind: LaidKind, p: DVec2) -> bool {
        self.overlays.iter().any(|(k, o)| *k == kind && o.covers(p))
    }

    /// Ground height: the built ground where earthworks shape it, else the
    /// natural terrain bit for bit (overlays do not move it).
    pub fn height(&self, x: f64, y: f64) -> f64 {
        let natural = self.terrain.height(x, y);
        self.built(DVec2::new(x, y), natural)
            .map_or(natural, |b| b.height)
    }

    /// What is built at a point whose natural height is `natural`, if
    /// anything.
    pub fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
        self.relief.as_ref().and_then(|r| r.built(p, natural))
    }

    /// [`Terrain::heights_grid`] on the built ground: `out[j*w + i]` is
    /// [`Self::height`] at `(x0 + i·step, y0 + j·step)`, bit for bit.
    pub fn heights_grid(
        &self,
        x0: f64,
        y0: f64,
        step: f64,
        w: usize,
        h: usize,
        out: &mut Vec<f64>,
    ) -> Result<(), super::GridError> {
        self.terrain.heights_grid(x0, y0, step, w, h, out)?;
        if let Some(relief) = &self.relief {
            relief.shape_grid(x0, y0, step, w, h, out);
        }
        Ok(())
    }

    /// [`heights_grid`](Self::heights_grid), with the natural ground's
    /// heights on the same grid in `natural`.
    pub fn heights_grid_and_natural(
        &self,
        (x0, y0, step): (f64, f64, f64),
        w: usize,
        h: usize,
        out: &mut Vec<f64>,
        natural: &mut Vec<f64>,
    ) -> Result<(), super::GridError> {
        self.terrain.heights_grid(x0, y0, step, w, h, natural)?;
        out.clear();
        out.extend_from_slice(natural);
        if let Some(relief) = &self.relief {
            relief.shape_grid(x0, y0, step, w, h, out);
        }
        Ok(())
    }

    /// Everything about the ground at a position, overlays and earthworks
    /// included. Order: paths and placed overrides, roads, lake, mud,
    /// features, towns, streams, city ground, vegetation; then where
    /// earthworks shape the ground, its height is the built one, a
    /// carriageway is road, a pad city ground, and an embankment or cutting
    /// [`TerrainKind::Earthwork`] (none of them has a feature).
    pub fn terra(&self, x: f64, y: f64) -> Terra {
        let t = self.terra_laid(x, y);
        let Some(b) = self.built(DVec2::new(x, y), t.height) else {
            return t;
        };
        let kind = match b.kind {
            BuiltKind::Carriageway => TerrainKind::Road,
            BuiltKind::Pad => TerrainKind::Town,
            BuiltKind::Fill | BuiltKind::Cut => TerrainKind::Earthwork,
        };
        Terra {
            height: b.height,
            depth: 0.0,
            kind,
            feature: None,
            code: None,
            snow: t.snow,
        }
    }

    /// [`Self::terra`] before earthworks.
    fn terra_laid(&self, x: f64, y: f64) -> Terra {
        let t = self.terrain.terra(x, y);
        if self.overlays.is_empty() || t.kind == TerrainKind::Path {
            return t;
        }
        let (xr, yr) = (java_round(x), java_round(y));
        let cell = DVec2::new(xr as f64, yr as f64);
        // A placed kind stands; a placed feature (or its absence) keeps roads off.
        let placed = self.terrain.placed_at(xr, yr);
        if placed.is_none() && self.covered(LaidKind::Road, cell) {
            let snow = if t.kind == TerrainKind::Lake {
                self.terrain.height(x, y) >= self.terrain.params().snow_level
            } else {
                t.snow
            };
            return Terra {
                height: t.height,
                depth: 0.0,
                kind: TerrainKind::Road,
                feature: None,
                code: None,
                snow,
            };
        }
        if matches!(placed, Some(super::Placed::Kind(_))) {
            return t;
        }
        let vegetation = matches!(
            t.kind,
            TerrainKind::Grass | TerrainKind::Moor | TerrainKind::Wood | TerrainKind::Thicket
        );
        if vegetation && self.covered(LaidKind::Stream, cell) {
            let spring = t.feature == Some(Feature::WaterHole);
            return Terra {
                kind: TerrainKind::Stream,
                feature: t.feature.filter(|_| spring),
                code: t.code.filter(|_| spring),
                ..t
            };
        }
        if vegetation && self.covered(LaidKind::Town, cell) {
            return Terra {
                kind: TerrainKind::Town,
                feature: None,
                code: None,
                ..t
            };
        }
        t
    }

    /// Whether the whole-metre cell of a position is city ground.
    fn in_city(&self, x: f64, y: f64) -> bool {
        let cell = DVec2::new(java_round(x) as f64, java_round(y) as f64);
        self.covered(LaidKind::Town, cell)
    }

    /// Whether a building's centre or a corner stands on city ground.
    fn building_in_city(&self, b: &Building) -> bool {
        let r = super::objects::BUILDING_SIZE / 2.0;
        [(0.0, 0.0), (-r, -r), (r, -r), (-r, r), (r, r)]
            .iter()
            .any(|&(dx, dy)| self.in_city(b.centre.x + dx, b.centre.y + dy))
    }

    /// [`Terrain::tree_at`] on the laid ground (no tree on a road, stream or
    /// city ground).
    pub fn tree_at(&self, i: i64, j: i64) -> Option<Tree> {
        self.terrain.tree_at_on(i, j, |x, y| self.terra(x, y))
    }

    /// [`Terrain::trees_in`] on the laid ground.
    pub fn trees_in(&self, min: DVec2, max: DVec2) -> impl Iterator<Item = Tree> + '_ {
        (self.terrain)
            .try_trees_in_on(min, max, move |x, y| self.terra(x, y))
            .into_iter()
            .flatten()
    }

    /// [`Terrain::building_at`] on the laid ground (no building on a road,
    /// none touching city ground).
    pub fn building_at(&self, i: i64, j: i64) -> Option<Building> {
        (self.terrain)
            .building_at_on(i, j, |x, y| self.terra(x, y))
            .filter(|b| !self.building_in_city(b))
    }

    /// [`Terrain::buildings_in`] on the laid ground.
    pub fn buildings_in(&self, min: DVec2, max: DVec2) -> impl Iterator<Item = Building> + '_ {
        (self.terrain)
            .try_buildings_in_on(min, max, move |x, y| self.terra(x, y))
            .into_iter()
            .flatten()
            .filter(|b| !self.building_in_city(b))
    }
}

/// Side of a [`StreamLayer`]'s index cells, metres.
const STREAM_CELL: f64 = 32.0;

/// Streams laid on the ground as water lines of a width: an [`Overlay`]
/// covering every whole-metre cell whose centre lies within half the width
/// of a stream, and the streams themselves for drawing.
#[derive(Clone, Debug, Default)]
pub struct StreamLayer {
    streams: Vec<Stream>,
    width: f64,
    grid: SegmentGrid,
}

impl StreamLayer {
    /// Default width of a stream's water, metres.
    pub const WIDTH: f64 = 1.6;

    /// Indexes streams of this width.
    pub fn new(streams: Vec<Stream>, width: f64) -> Self {
        let grid = SegmentGrid::new(
            STREAM_CELL,
            streams.iter().map(|s| s.points.as_slice()),
            |_| width / 2.0 + 1.0,
        );
        Self {
            streams,
            width,
            grid,
        }
    }

    /// The streams.
    pub fn streams(&self) -> &[Stream] {
        &self.streams
    }

    /// Width of the water, metres.
    pub fn width(&self) -> f64 {
        self.width
    }

    /// Indices of the streams with a segment near `[min, max]` (ascending).
    pub fn streams_near(&self, min: DVec2, max: DVec2) -> Vec<usize> {
        self.grid.lines_in(min, max)
    }
}

impl Overlay for StreamLayer {
    fn covers(&self, p: DVec2) -> bool {
        self.grid.near(p, 0).any(|(i, s)| {
            let pts = &self.streams[i].points;
            distance_to_segment(p, pts[s], pts[s + 1]) <= self.width / 2.0
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(p: DVec2) -> DVec2 {
        DVec2::new(java_round(p.x) as f64, java_round(p.y) as f64)
    }

    #[test]
    fn laid_streams_show_in_terra_and_keep_trees_out() {
        let t = Arc::new(Terrain::default());
        let (min, max) = (DVec2::new(0.0, 0.0), DVec2::new(2000.0, 2000.0));
        let ss = t.streams_in(min, max).unwrap();
        assert!(ss.len() > 2);
        let layer = Arc::new(StreamLayer::new(ss.clone(), StreamLayer::WIDTH));
        let ground = LaidGround::new(t.clone()).with(LaidKind::Stream, layer.clone());
        // The spring keeps its water hole; dry points along the way are
        // stream, with no other feature.
        let mut along = 0;
        for s in &ss {
            let spring = ground.terra(s.points[0].x, s.points[0].y);
            assert_eq!(spring.feature, Some(Feature::WaterHole));
            for p in &s.points[1..] {
                let here = ground.terra(p.x, p.y);
                if !matches!(
                    here.kind,
                    TerrainKind::Lake | TerrainKind::Mud | TerrainKind::Town
                ) {
                    assert_eq!(here.kind, TerrainKind::Stream, "{p}");
                    assert!(here.feature.is_none_or(|f| f == Feature::WaterHole));
                    along += 1;
                }
                // The ground under them is unchanged.
                assert_ne!(t.terra(p.x, p.y).kind, TerrainKind::Stream);
            }
        }
        assert!(along > 20);
        for tree in ground.trees_in(min, max) {
            assert!(
                !layer.covers(cell(tree.pos)),
                "a tree in a stream at {}",
                tree.pos
            );
        }
        assert!(ground.trees_in(min, max).count() < t.trees_in(min, max).count());
        assert_eq!(layer.streams_near(min, max).len(), ss.len());
    }

    /// A disc laid as city ground (the terrain's tests know no cities).
    #[derive(Debug)]
    struct Disc(DVec2, f64);

    impl Overlay for Disc {
        fn covers(&self, p: DVec2) -> bool {
            p.distance(self.0) <= self.1
        }
    }

    #[test]
    fn laid_town_ground_keeps_trees_and_buildings_out_and_the_rest_bare() {
        let t = Arc::new(Terrain::default());
        let (min, max) = (DVec2::new(-2000.0, -2000.0), DVec2::new(2000.0, 2000.0));
        // A disc around a village's building, reaching into the woods.
        let b = t.buildings_in(min, max).next().expect("a building");
        let disc = Arc::new(Disc(b.centre, 700.0));
        let ground = LaidGround::new(t.clone()).with(LaidKind::Town, disc.clone());
        let near = |p: DVec2| p.distance(disc.0) <= disc.1;
        let (bare_in, laid_in) = (
            t.buildings_in(min, max).filter(|b| near(b.centre)).count(),
            ground
                .buildings_in(min, max)
                .filter(|b| near(b.centre))
                .count(),
        );
        assert!(bare_in > 0 && laid_in == 0, "{bare_in} {laid_in}");
        let i = (b.centre.x / 16.0) as i64;
        let j = (b.centre.y / 16.0) as i64;
        assert_eq!(t.building_at(i, j), Some(b));
        assert_eq!(ground.building_at(i, j), None);
        let inside = |p: DVec2| disc.covers(cell(p));
        let trees_in = t.trees_in(min, max).filter(|t| inside(t.pos)).count();
        assert!(trees_in > 100, "{trees_in}");
        assert_eq!(
            ground.trees_in(min, max).filter(|t| inside(t.pos)).count(),
            0
        );
        // Outside, trees and buildings are the bare ones.
        let far = |p: DVec2| p.distance(disc.0) > disc.1 + 20.0;
        assert!(
            ground
                .trees_in(min, max)
                .filter(|t| far(t.pos))
                .eq(t.trees_in(min, max).filter(|t| far(t.pos)))
        );
        assert!(
            ground
                .buildings_in(min, max)
                .filter(|b| far(b.centre))
                .eq(t.buildings_in(min, max).filter(|b| far(b.centre)))
        );
        // Inside, vegetation is town ground and lakes stay; outside, bit for bit.
        let (mut town, mut lake) = (0, 0);
        for j in 0..200 {
            for i in 0..200 {
                let (x, y) = (min.x + i as f64 * 20.0 + 0.3, min.y + j as f64 * 20.0 - 0.2);
                let (laid, bare) = (ground.terra(x, y), t.terra(x, y));
                if disc.covers(cell(DVec2::new(x, y))) {
                    assert_eq!(laid.height, bare.height);
                    match bare.kind {
                        TerrainKind::Lake | TerrainKind::Mud => {
                            assert_eq!(laid, bare);
                            lake += 1;
                        }
                        _ => {
                            assert_eq!(laid.kind, TerrainKind::Town);
                            assert_eq!(laid.feature, None);
                            town += 1;
                        }
                    }
                } else {
                    assert_eq!(laid, bare);
                }
            }
        }
        assert!(town > 1000 && lake > 0, "{town} {lake}");
    }
}
