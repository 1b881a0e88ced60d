//! The tracer's raw output: [`Streamline`]s by [`Level`] and
//! [`Family`](super::Family), with the boundary, obstacles and fixed roads
//! carrying the junction points lines end on ([`TracedStreets`]).

use super::trace::Family;
use crate::city::EdgeRole;
use glam::DVec2;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::ops::Range;

/// The three levels of streets, traced in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Level {
    /// Main roads.
    Main,
    /// Major streets.
    Major,
    /// Minor streets.
    Minor,
}

impl Level {
    /// The levels in tracing order.
    pub const ALL: [Level; 3] = [Level::Main, Level::Major, Level::Minor];

    /// The graph role of its edges: `Main`, `Street(0)`, `Street(1)`.
    pub fn role(self) -> EdgeRole {
        match self {
            Self::Main => EdgeRole::Main,
            Self::Major => EdgeRole::Street(0),
            Self::Minor => EdgeRole::Street(1),
        }
    }
}

/// Why an end of a line is where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LineEnd {
    /// On the boundary.
    Boundary,
    /// On an obstacle's outline.
    Obstacle,
    /// The field has no direction there (nothing joined it on).
    Degenerate,
    /// It came within `dtest` of a line of its family, or of itself.
    Close,
    /// It reached `max_length`.
    Length,
    /// The run's step budget ran out (never in a finished run: running
    /// out is an error).
    Budget,
    /// Joined onto another line, the boundary or a fixed road.
    Joined,
}

/// One traced street.
#[derive(Clone, Debug, PartialEq)]
pub struct Streamline {
    /// The raw polyline (points `dstep` apart, or with a tolerance up to
    /// the filing interval, about `dtest / 4`), junction points included.
    pub points: Vec<DVec2>,
    /// Its level.
    pub level: Level,
    /// The eigenvector it follows.
    pub family: Family,
    /// The part traced through the field (outside it: straight joins).
    pub traced: Range<usize>,
    /// Why its first and last points are where they are.
    pub ends: [LineEnd; 2],
}

impl Streamline {
    /// Length along the raw points.
    pub fn length(&self) -> f64 {
        polyline_length(&self.points)
    }
}

pub(crate) fn polyline_length(points: &[DVec2]) -> f64 {
    points.windows(2).map(|w| w[0].distance(w[1])).sum()
}

/// Whether [`polyline_length`] is below `len`, summed in the same order but
/// stopping once the sum reaches `len` (it only grows from there).
pub(crate) fn shorter_than(points: &[DVec2], len: f64) -> bool {
    let mut sum = 0.0;
    for w in points.windows(2) {
        sum += w[0].distance(w[1]);
        if sum >= len {
            return false;
        }
    }
    sum < len
}

/// Everything traced for one city, before simplification and noding.
#[derive(Clone, Debug)]
pub struct TracedStreets {
    /// The lines, level by level, in tracing order (gate links last).
    pub lines: Vec<Streamline>,
    /// The boundary ring (open), with the points where lines end on it.
    pub boundary: Vec<DVec2>,
    /// The obstacle rings (open), with the points where lines end on them.
    pub obstacles: Vec<Vec<DVec2>>,
    /// The fixed roads, with the points where lines join them.
    pub fixed: Vec<Vec<DVec2>>,
    /// Junction points that simplification keeps (exact bits).
    pub(crate) junctions: HashSet<(u64, u64), PointHash>,
    /// Simplification tolerance per level.
    pub(crate) tolerance: [f64; 3],
    /// Side of the cells that find touching segments when noding.
    pub(crate) node_cell: f64,
}

impl TracedStreets {
    /// The lines of `level`.
    pub fn of(&self, level: Level) -> impl Iterator<Item = &Streamline> {
        self.lines.iter().filter(move |l| l.level == level)
    }

    /// Total raw length of the lines of `level`.
    pub fn raw_length(&self, level: Level) -> f64 {
        self.of(level).map(Streamline::length).sum()
    }

    /// Total raw points of the lines of `level`.
    pub fn raw_points(&self, level: Level) -> usize {
        self.of(level).map(|l| l.points.len()).sum()
    }

    /// Whether `p` is a junction point (kept by simplification).
    pub fn is_junction(&self, p: DVec2) -> bool {
        self.junctions.contains(&key(p))
    }
}

/// The exact bits of a point (−0 as +0).
pub(crate) fn key(p: DVec2) -> (u64, u64) {
    let p = p + DVec2::ZERO;
    (p.x.to_bits(), p.y.to_bits())
}

/// A multiply-rotate hasher for exact point keys: cheap, and enough for
/// lookups (nothing iterates these maps).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointHasher(u64);

impl Hasher for PointHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(26) ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0 ^ (self.0 >> 29)
    }
}

/// [`PointHasher`] as a `BuildHasher`.
pub(crate) type PointHash = BuildHasherDefault<PointHasher>;

/// A point to insert into a polyline: on segment `seg` (from point `seg`
/// to the next, cyclically), at parameter `u` along it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Insert {
    pub seg: u32,
    pub u: f64,
    pub point: DVec2,
}

/// `points` with `inserts` placed on their segments (in order along each,
/// repeats and points already there skipped), and where each old point went.
pub(crate) fn insert_points(
    points: &[DVec2],
    mut inserts: Vec<Insert>,
) -> (Vec<DVec2>, Vec<usize>) {
    inserts.sort_by(|a, b| a.seg.cmp(&b.seg).then(a.u.total_cmp(&b.u)));
    let mut out = Vec::with_capacity(points.len() + inserts.len());
    let mut map = Vec::with_capacity(points.len());
    let mut next = inserts.iter().peekable();
    let n = points.len();
    for (i, &p) in points.iter().enumerate() {
        map.push(out.len());
        out.push(p);
        let following = points[(i + 1) % n];
        while let Some(ins) = next.next_if(|ins| ins.seg as usize <= i) {
            let k = key(ins.point);
            if k != key(*out.last().unwrap_or(&p)) && k != key(following) {
                out.push(ins.point);
            }
        }
    }
    (out, map)
}

#[cfg(test)]
mod tests {
    use super::{polyline_length, shorter_than};
    use glam::DVec2;

    #[test]
    fn shorter_than_agrees_with_the_length() {
        let pts: Vec<DVec2> = (0..50)
            .map(|i| DVec2::new(i as f64 * 0.7, (i as f64 * 0.3).sin()))
            .collect();
        for n in [0, 1, 2, 10, 50] {
            let len = polyline_length(&pts[..n]);
            for l in [0.0, 1.0e-9, len * 0.5, len, len * 1.0000001, len + 1.0] {
                assert_eq!(shorter_than(&pts[..n], l), len < l, "{n} {l}");
            }
        }
    }
}
