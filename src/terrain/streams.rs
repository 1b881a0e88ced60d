//! Streams: from each water hole, step to the lowest point of the
//! neighbourhood window until a lake, a hollow (marsh) or the length limit.

use super::{Feature, Terrain, TerrainKind, java_round};
use glam::DVec2;
use thiserror::Error;

/// Largest area, in square metres, that one eager scan (streams, mine
/// shafts) may cover: 10 km × 10 km, about two seconds of work.
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

/// Checks a scan rectangle; an empty or inverted one is fine (nothing to scan).
pub(crate) fn check_area(min: DVec2, max: DVec2) -> Result<(), AreaError> {
    let size = (max - min).max(DVec2::ZERO);
    let ok = min.is_finite() && max.is_finite() && size.x * size.y <= MAX_SCAN_AREA;
    if ok {
        Ok(())
    } else {
        Err(AreaError {
            width: size.x,
            height: size.y,
        })
    }
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
        self.generated_feature(xr, yr) == Some(Feature::WaterHole)
            && self.terra(xr as f64, yr as f64).feature == Some(Feature::WaterHole)
    }

    /// The stream from the water hole at `(xr, yr)`, or `None` when there is
    /// no water hole there or no lower ground beside it. At most
    /// `max_length` metres (each step is at least 1 m, so it always ends).
    pub fn stream_from(&self, xr: i64, yr: i64) -> Option<Stream> {
        if !self.is_water_hole(xr, yr) {
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
    /// grown rectangle may cover at most [`MAX_SCAN_AREA`].
    pub fn streams_in(&self, min: DVec2, max: DVec2) -> Result<Vec<Stream>, AreaError> {
        let reach = self.params.streams.max_length.ceil() + 1.0;
        check_area(min - reach, max + reach)?;
        if max.x <= min.x || max.y <= min.y {
            return Ok(Vec::new());
        }
        let (x0, x1) = (java_round(min.x - reach), java_round(max.x + reach));
        let (y0, y1) = (java_round(min.y - reach), java_round(max.y + reach));
        let inside = |p: &DVec2| p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y;
        let mut out = Vec::new();
        for y in y0..=y1 {
            for x in x0..=x1 {
                if let Some(s) = self.stream_from(x, y)
                    && s.points.iter().any(inside)
                {
                    out.push(s);
                }
            }
        }
        Ok(out)
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
