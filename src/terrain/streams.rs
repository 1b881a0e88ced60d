//! Streams: from each water hole, step to the lowest point of the
//! neighbourhood window until a lake, a hollow (marsh) or the length limit.

use super::{Feature, Terrain, TerrainKind, java_round};
use crate::num::{WORLD_LIMIT_F64, within_world};
use glam::DVec2;
use thiserror::Error;

/// Largest area, in square metres, that one eager scan (streams, mine
/// shafts, trees, buildings) may cover: 10 km × 10 km, about two seconds of
/// work. It is measured on the points actually visited (whole metres, or
/// lattice cells for trees and buildings), margins included.
pub const MAX_SCAN_AREA: f64 = 1.0e8;

/// A rectangle too large (or not finite) to scan point by point.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
#[error("scan area {width} m × {height} m is not finite or exceeds {MAX_SCAN_AREA} m²")]
pub struct AreaError {
    /// Width of the scanned rectangle, including any margin.
    pub width: f64,
    /// Height of the scanned rectangle, including any margin.
    pub height: f64,
}

/// The lattice points one eager scan visits: indices `xs × ys`, whose
/// points lie within [`WORLD_LIMIT`](crate::num::WORLD_LIMIT).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Scan {
    pub xs: std::ops::Range<i64>,
    pub ys: std::ops::Range<i64>,
}

impl Scan {
    const EMPTY: Self = Self { xs: 0..0, ys: 0..0 };

    /// The scan of `[min, max)`: `indices(lo, hi)` gives the index range
    /// visited along one axis (clipped to the world limit), `cell` the
    /// spacing of the points in metres. Non-finite corners are refused; an
    /// empty or inverted rectangle scans nothing; more than
    /// [`MAX_SCAN_AREA`] m² of visited cells (`cell²` each) is refused, so
    /// the work is bounded whatever the shape of the rectangle.
    pub(crate) fn new(
        min: DVec2,
        max: DVec2,
        cell: f64,
        indices: impl Fn(f64, f64) -> std::ops::Range<i64>,
    ) -> Result<Self, AreaError> {
        if !(min.is_finite() && max.is_finite()) {
            let size = (max - min).max(DVec2::ZERO);
            return Err(AreaError {
                width: size.x,
                height: size.y,
            });
        }
        if !(max.x > min.x && max.y > min.y) {
            return Ok(Self::EMPTY);
        }
        let (xs, ys) = (indices(min.x, max.x), indices(min.y, max.y));
        if xs.is_empty() || ys.is_empty() {
            return Ok(Self::EMPTY);
        }
        let side = |r: &std::ops::Range<i64>| r.end.saturating_sub(r.start) as f64 * cell;
        let (width, height) = (side(&xs), side(&ys));
        if width * height <= MAX_SCAN_AREA {
            Ok(Self { xs, ys })
        } else {
            Err(AreaError { width, height })
        }
    }

    /// Every point, row by row from the south-west.
    pub(crate) fn points(self) -> impl Iterator<Item = (i64, i64)> {
        let xs = self.xs;
        self.ys.flat_map(move |y| xs.clone().map(move |x| (x, y)))
    }
}

/// A coordinate clamped to the placed world, `±WORLD_LIMIT`.
pub(crate) fn clip_to_world(v: f64) -> f64 {
    v.clamp(-WORLD_LIMIT_F64, WORLD_LIMIT_F64)
}

/// How a stream ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamEnd {
    /// It reached a lake.
    Lake,
    /// It reached a hollow with no lower ground nearby: marsh.
    Marsh,
    /// It reached the length limit.
    MaxLength,
}

/// One stream, from its water hole downhill.
#[derive(Clone, Debug, PartialEq)]
pub struct Stream {
    /// The water hole it starts from.
    pub source: (i64, i64),
    /// Whole-metre points from the source to the end.
    pub points: Vec<DVec2>,
    /// Why it stops.
    pub end: StreamEnd,
    /// Length along the points, metres.
    pub length: f64,
}

impl Terrain {
    /// Whether the cell holds a water hole that `terra()` reports (not in a
    /// lake or town, not moved away).
    fn is_water_hole(&self, xr: i64, yr: i64) -> bool {
        // A generated water hole needs `x·y & 0xff` in 128..160: an integer
        // test that passes over seven cells in eight before the profile sums.
        (128..160).contains(&(xr.wrapping_mul(yr) & 0xff))
            && self.generated_feature(xr, yr) == Some(Feature::WaterHole)
            && self.terra(xr as f64, yr as f64).feature == Some(Feature::WaterHole)
    }

    /// The stream from the water hole at `(xr, yr)`, or `None` when there is
    /// no water hole there or no lower ground beside it. At most
    /// `max_length` metres (each step is at least 1 m, so it always ends).
    /// Sources beyond [`WORLD_LIMIT`](crate::num::WORLD_LIMIT) have none.
    pub fn stream_from(&self, xr: i64, yr: i64) -> Option<Stream> {
        // Within the limit every point of the stream (at most `max_length`
        // away) is an exact f64 and no step overflows.
        if !within_world(xr, yr) || !self.is_water_hole(xr, yr) {
            return None;
        }
        let p = &self.params.streams;
        let r = (p.window / 2) as i64;
        let (mut cx, mut cy) = (xr, yr);
        let mut ch = self.height(cx as f64, cy as f64);
        let mut points = vec![DVec2::new(cx as f64, cy as f64)];
        let mut length = 0.0;
        let end = loop {
            // Lowest point of the window; ties keep the first in row order.
            let mut best = (cx, cy, ch);
            for dy in -r..=r {
                for dx in -r..=r {
                    let (x, y) = (cx + dx, cy + dy);
                    let h = self.height(x as f64, y as f64);
                    if h < best.2 {
                        best = (x, y, h);
                    }
                }
            }
            if (best.0, best.1) == (cx, cy) {
                break StreamEnd::Marsh;
            }
            let step = DVec2::new((best.0 - cx) as f64, (best.1 - cy) as f64).length();
            if length + step > p.max_length {
                break StreamEnd::MaxLength;
            }
            length += step;
            (cx, cy, ch) = best;
            points.push(DVec2::new(cx as f64, cy as f64));
            if ch < self.params.lake_level {
                break StreamEnd::Lake;
            }
        };
        (points.len() > 1).then_some(Stream {
            source: (xr, yr),
            points,
            end,
            length,
        })
    }

    /// Every stream with a point in `[min, max)`, ordered by source (row by
    /// row). A stream is the same whichever rectangle finds it: sources are
    /// searched in the rectangle grown by the longest possible stream. The
    /// whole metres of the grown rectangle (within
    /// [`WORLD_LIMIT`](crate::num::WORLD_LIMIT)) may cover at most
    /// [`MAX_SCAN_AREA`]; validated parameters always allow 3 km × 3 km.
    pub fn streams_in(&self, min: DVec2, max: DVec2) -> Result<Vec<Stream>, AreaError> {
        let scan = self.stream_scan(min, max)?;
        let inside = |p: &DVec2| p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y;
        Ok(scan
            .points()
            .filter_map(|(x, y)| self.stream_from(x, y))
            .filter(|s| s.points.iter().any(inside))
            .collect())
    }

    /// The sources [`Self::streams_in`] searches for `[min, max)`: the whole
    /// metres of the rectangle grown by the longest possible stream.
    pub(super) fn stream_scan(&self, min: DVec2, max: DVec2) -> Result<Scan, AreaError> {
        let reach = self.params.streams.max_length.ceil() + 1.0;
        Scan::new(min, max, 1.0, |lo, hi| {
            java_round(clip_to_world(lo - reach))..java_round(clip_to_world(hi + reach)) + 1
        })
    }

    /// Stamps a stream's points onto the terrain as `Stream` cells (and its
    /// end as `Marsh` when it ends in a hollow), leaving other overrides alone.
    pub fn place_stream(&mut self, stream: &Stream) {
        // The source keeps its water hole.
        for p in stream.points.iter().skip(1) {
            let (x, y) = (p.x as i64, p.y as i64);
            if self.placed_at(x, y).is_none() {
                self.place_kind(x, y, TerrainKind::Stream);
            }
        }
        if stream.end == StreamEnd::Marsh
            && let Some(p) = stream.points.last()
        {
            self.place_kind(p.x as i64, p.y as i64, TerrainKind::Marsh);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn some_streams(t: &Terrain) -> Vec<Stream> {
        t.streams_in(DVec2::new(0.0, 0.0), DVec2::new(2000.0, 2000.0))
            .unwrap()
    }

    #[test]
    fn huge_or_non_finite_areas_are_refused_quickly() {
        let t = Terrain::default();
        assert!(t.streams_in(DVec2::ZERO, DVec2::splat(1.0e6)).is_err());
        assert!(t.streams_in(DVec2::splat(f64::NAN), DVec2::ONE).is_err());
        assert_eq!(t.streams_in(DVec2::ONE, DVec2::ZERO), Ok(vec![]));
        assert!(t.mine_shafts_in(DVec2::ZERO, DVec2::splat(1.0e9)).is_err());
    }

    #[test]
    fn every_valid_stream_setting_scans_three_km_square() {
        use crate::terrain::params::MAX_STREAM_LENGTH;
        use crate::terrain::{StreamParams, TerrainParams};
        let (min, max) = (DVec2::new(-1234.5, 777.25), DVec2::new(1765.5, 3777.25));
        let mut checked = 0;
        for window in [3, 5, 11, 51, 101] {
            for max_length in [0.0, 0.5, 300.0, 2999.5, MAX_STREAM_LENGTH, 3000.5, 5000.0] {
                let p = TerrainParams {
                    streams: StreamParams { window, max_length },
                    ..Default::default()
                };
                // Only what validation accepts needs to work, and all of it must.
                let Ok(t) = Terrain::new(p) else {
                    assert!(max_length > MAX_STREAM_LENGTH);
                    continue;
                };
                let scan = t.stream_scan(min, max).unwrap();
                assert!(scan.xs.end - scan.xs.start >= 3000);
                checked += 1;
            }
        }
        assert_eq!(checked, 25);
        // The margin counts: a request that fits alone is refused when grown.
        let t = Terrain::default();
        assert!(t.streams_in(DVec2::ZERO, DVec2::splat(9700.0)).is_err());
        // Thin rectangles are measured by the points visited, not their area.
        assert!(
            t.mine_shafts_in(DVec2::ZERO, DVec2::new(1.0e9, 1.0e-9))
                .is_err()
        );
    }

    #[test]
    fn streams_run_downhill_and_end_properly() {
        let t = Terrain::default();
        let ss = some_streams(&t);
        assert!(!ss.is_empty());
        for s in &ss {
            assert!(s.length <= 300.0);
            let hs: Vec<f64> = s.points.iter().map(|p| t.height(p.x, p.y)).collect();
            assert!(hs.windows(2).all(|w| w[1] < w[0]), "not downhill: {hs:?}");
            for w in s.points.windows(2) {
                let d = w[1] - w[0];
                assert!(d.x.abs() <= 5.0 && d.y.abs() <= 5.0);
            }
            let last = *hs.last().unwrap();
            match s.end {
                StreamEnd::Lake => assert!(last < 204.0),
                StreamEnd::Marsh | StreamEnd::MaxLength => assert!(last >= 204.0),
            }
            assert_eq!(
                t.terra(s.points[0].x, s.points[0].y).feature,
                Some(Feature::WaterHole)
            );
        }
    }

    #[test]
    fn the_same_stream_from_any_rectangle() {
        let t = Terrain::default();
        for s in some_streams(&t) {
            let p = s.points[s.points.len() / 2];
            let small = t.streams_in(p, p + DVec2::ONE).unwrap();
            assert!(small.contains(&s));
        }
    }

    #[test]
    fn placing_a_stream_marks_the_ground() {
        let mut t = Terrain::default();
        let s = some_streams(&t).remove(0);
        t.place_stream(&s);
        let mid = s.points[1];
        assert_eq!(t.terra(mid.x, mid.y).kind, TerrainKind::Stream);
        t.clear_kind(TerrainKind::Stream);
        assert_ne!(t.terra(mid.x, mid.y).kind, TerrainKind::Stream);
    }
}
