//! [`Shape`]: a polygon with holes whose edges know whether they face a
//! street, cut in two by a line (every piece of each side, holes kept), or
//! clipped to one side in place.

use super::hull::obb;
use crate::city::polygon::{polygon_contains, signed_area};
use glam::DVec2;

/// One closed ring of a [`Shape`]: the interior on its left (outer rings
/// counter-clockwise, holes clockwise); `street[i]` is the half width of
/// the street the edge `pts[i] → pts[i + 1]` (cyclic) runs along, if any.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Ring {
    pub pts: Vec<DVec2>,
    pub street: Vec<Option<f64>>,
}

impl Ring {
    /// Signed area (positive for an outer ring).
    pub fn area(&self) -> f64 {
        signed_area(&self.pts)
    }

    /// The first vertex where the ring dents inwards by more than a
    /// centimetre (turns right off the line between its neighbours), if any.
    pub fn dent(&self) -> Option<usize> {
        let (pts, m) = (&self.pts, self.pts.len());
        (0..m).find(|&i| {
            let (a, b, c) = (pts[pred(i, m)], pts[i], pts[succ(i, m)]);
            (b - a).perp_dot(c - b) < -DENT * a.distance(c)
        })
    }

    /// A copy with room to clip corners off in place.
    pub fn with_slack(&self) -> Ring {
        let mut r = Ring {
            pts: Vec::with_capacity(self.pts.len() + SLACK),
            street: Vec::with_capacity(self.pts.len() + SLACK),
        };
        r.pts.extend_from_slice(&self.pts);
        r.street.extend_from_slice(&self.street);
        r
    }

    /// The edges as `(from, to, half width of the street along it)`.
    pub fn edges(&self) -> impl Iterator<Item = (DVec2, DVec2, Option<f64>)> + '_ {
        let n = self.pts.len();
        (0..n).map(move |i| (self.pts[i], self.pts[succ(i, n)], self.street[i]))
    }
}

/// A polygon: the outer ring first, then its holes.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Shape {
    pub rings: Vec<Ring>,
}

/// The index after `i` in a ring of `m` (a branch, not a division).
pub(super) fn succ(i: usize, m: usize) -> usize {
    if i + 1 >= m { 0 } else { i + 1 }
}

/// The index before `i` in a ring of `m`.
pub(super) fn pred(i: usize, m: usize) -> usize {
    if i == 0 { m.saturating_sub(1) } else { i - 1 }
}

/// Vertices closer than this to a cutting line move the line (metres).
const ON_LINE: f64 = 1e-6;
/// Spare room in new rings, so that clipping corners off them in place
/// does not reallocate.
pub(super) const SLACK: usize = 4;
/// A vertex denting a ring by more than this makes it concave (metres).
const DENT: f64 = 0.01;

impl Shape {
    /// Area (holes subtracted).
    pub fn area(&self) -> f64 {
        self.rings.iter().map(Ring::area).sum()
    }

    /// Total length of the edges facing a street.
    pub fn frontage(&self) -> f64 {
        (self.rings.iter().flat_map(Ring::edges))
            .filter(|e| e.2.is_some())
            .map(|(a, b, _)| a.distance(b))
            .sum()
    }

    /// The outer ring.
    pub fn outer(&self) -> &Ring {
        &self.rings[0]
    }

    /// Cuts the shape by the line `n·p = c` (`n` a unit normal): the pieces
    /// on the side `n·p > c`, then those on the other side; the new edges
    /// along the line get the street `along`. The line moves
    /// up (towards `+n`) by a few micrometres until no vertex lies on it.
    /// `None` when the line misses the shape or the cut fails its checks
    /// (the pieces' areas must add up to the shape's).
    pub fn cut(&self, n: DVec2, mut c: f64, along: Option<f64>) -> Option<[Vec<Shape>; 2]> {
        let s = |c: f64| -> Vec<Vec<f64>> {
            let side = |p: DVec2| n.dot(p) - c;
            (self.rings.iter())
                .map(|r| r.pts.iter().map(|&p| side(p)).collect())
                .collect()
        };
        let mut sides = s(c);
        for _ in 0..8 {
            if sides.iter().flatten().all(|v| v.abs() >= ON_LINE) {
                break;
            }
            c += 3.0 * ON_LINE;
            sides = s(c);
        }
        if !sides
            .iter()
            .flatten()
            .all(|v| v.abs() >= ON_LINE && v.is_finite())
        {
            return None;
        }
        let d = n.perp();
        // Crossings: (position along the line, ring, edge, point).
        let mut xs: Vec<(f64, usize, usize, DVec2)> = Vec::new();
        for (r, ring) in self.rings.iter().enumerate() {
            let m = ring.pts.len();
            for i in 0..m {
                let (sa, sb) = (sides[r][i], sides[r][succ(i, m)]);
                if (sa > 0.0) != (sb > 0.0) {
                    let (a, b) = (ring.pts[i], ring.pts[succ(i, m)]);
                    let p = a + (b - a) * (sa / (sa - sb));
                    xs.push((d.dot(p), r, i, p));
                }
            }
        }
        if xs.is_empty() || xs.len() % 2 == 1 {
            return None;
        }
        let out = if xs.len() == 2 && self.rings.len() == 1 {
            self.split_ring(&sides[0], [xs[0].2, xs[1].2], [xs[0].3, xs[1].3], along)
        } else {
            self.split_rings(&sides, xs, along)?
        };
        let sum: f64 = out.iter().flatten().map(Shape::area).sum();
        let whole = self.area();
        if (sum - whole).abs() > 1e-6 * whole.abs() + 1e-6
            || out.iter().flatten().any(|p| p.area() <= 0.0)
        {
            return None;
        }
        Some(out)
    }

    /// The part of the shape on the side `n·p ≥ c` (its largest piece;
    /// new edges get the street `along`), or `None` if nothing is left (or
    /// the cut fails its checks: less is always safe). A ring the line
    /// crosses at most twice is clipped in one pass.
    pub fn keep_above(mut self, n: DVec2, mut c: f64, along: Option<f64>) -> Option<Shape> {
        if self.rings.len() == 1 {
            let ring = &self.rings[0];
            let (m, mut tries) = (ring.pts.len(), 0);
            // One pass for the vertices' clearance of the line and the
            // edges leaving and entering the side above it.
            let (clear, all, crossings, leave, enter) = loop {
                let (mut clear, mut all, mut crossings) = (true, true, 0);
                let (mut leave, mut enter) = (0, 0);
                let mut prev = ring.pts.last().is_some_and(|&p| n.dot(p) - c > 0.0);
                for (k, &p) in ring.pts.iter().enumerate() {
                    let v = n.dot(p) - c;
                    clear &= v.abs() >= ON_LINE;
                    let a = v > 0.0;
                    all &= a;
                    if a != prev {
                        crossings += 1;
                        // The edge into vertex `k` crosses.
                        let edge = (k + m - 1) % m;
                        if prev {
                            leave = edge;
                        } else {
                            enter = edge;
                        }
                    }
                    prev = a;
                }
                if clear || tries == 8 {
                    // After eight moves the line counts as not clear.
                    break (clear && tries < 8, all, crossings, leave, enter);
                }
                c += 3.0 * ON_LINE;
                tries += 1;
            };
            if crossings == 0 {
                return all.then_some(self);
            }
            if crossings == 2 && clear {
                clip_ring(&mut self.rings[0], |p| n.dot(p) - c, along, leave, enter);
                return Some(self);
            }
        }
        match self.cut(n, c, along) {
            Some([above, _]) => above
                .into_iter()
                .max_by(|a, b| a.area().total_cmp(&b.area())),
            None => (self.rings.iter().flat_map(|r| &r.pts))
                .all(|&q| n.dot(q) >= c)
                .then_some(self),
        }
    }

    /// The pieces on each side when one ring crosses the line twice, at
    /// edges `at` (ascending) in points `x`: each side's chain closed along
    /// the line.
    fn split_ring(
        &self,
        sides: &[f64],
        at: [usize; 2],
        x: [DVec2; 2],
        along: Option<f64>,
    ) -> [Vec<Shape>; 2] {
        let ring = &self.rings[0];
        let m = ring.pts.len();
        let chain = |from: usize, to: usize, xa: DVec2, xb: DVec2| {
            // Room for the clips that may follow (see `clip_ring`).
            let len = (to + m - from) % m + 2 + SLACK;
            let mut piece = Ring {
                pts: Vec::with_capacity(len),
                street: Vec::with_capacity(len),
            };
            piece.pts.push(xa);
            piece.street.push(ring.street[from]);
            let mut i = succ(from, m);
            loop {
                piece.pts.push(ring.pts[i]);
                piece.street.push(ring.street[i]);
                if i == to {
                    break;
                }
                i = succ(i, m);
            }
            piece.pts.push(xb);
            piece.street.push(along);
            Shape { rings: vec![piece] }
        };
        let a = chain(at[0], at[1], x[0], x[1]);
        let b = chain(at[1], at[0], x[1], x[0]);
        if sides[(at[0] + 1) % m] > 0.0 {
            [vec![a], vec![b]]
        } else {
            [vec![b], vec![a]]
        }
    }

    /// The pieces on each side in general (any rings, any crossings `xs`):
    /// walks along the rings, across the line from each crossing to its
    /// partner; holes the line misses go into the piece around them.
    fn split_rings(
        &self,
        sides: &[Vec<f64>],
        mut xs: Vec<(f64, usize, usize, DVec2)>,
        along: Option<f64>,
    ) -> Option<[Vec<Shape>; 2]> {
        xs.sort_by(|x, y| x.0.total_cmp(&y.0));
        // Along `d`, the shape is inside between crossings 2k and 2k + 1:
        // there the boundary enters the + side, then leaves it.
        let rising = |x: &(f64, usize, usize, DVec2)| sides[x.1][x.2] < 0.0;
        if xs.chunks(2).any(|p| !rising(&p[0]) || rising(&p[1])) {
            return None;
        }
        // The crossing on each (ring, edge), if any.
        let offsets: Vec<usize> = (self.rings.iter())
            .scan(0, |o, r| {
                let at = *o;
                *o += r.pts.len();
                Some(at)
            })
            .collect();
        let total = offsets
            .last()
            .map_or(0, |&o| o + self.rings.last().map_or(0, |r| r.pts.len()));
        let mut crossing = vec![usize::MAX; total];
        for (k, x) in xs.iter().enumerate() {
            crossing[offsets[x.1] + x.2] = k;
        }
        let mut visited = vec![false; total];
        let mut out = [Vec::new(), Vec::new()];
        for (side, pieces) in out.iter_mut().enumerate() {
            let positive = side == 0;
            for (r, ring) in self.rings.iter().enumerate() {
                if !xs.iter().any(|x| x.1 == r) {
                    continue; // untouched rings are placed below
                }
                for start in 0..ring.pts.len() {
                    if visited[offsets[r] + start] || (sides[r][start] > 0.0) != positive {
                        continue;
                    }
                    let walked =
                        self.walk(r, start, along, &xs, &crossing, &offsets, &mut visited)?;
                    pieces.push(Shape {
                        rings: vec![walked],
                    });
                }
            }
        }
        // Rings the line misses: holes go into the piece around them.
        for (r, ring) in self.rings.iter().enumerate() {
            if xs.iter().any(|x| x.1 == r) {
                continue;
            }
            if r == 0 {
                return None;
            }
            let side = (sides[r][0] <= 0.0) as usize;
            let host = out[side]
                .iter_mut()
                .find(|p| polygon_contains(&p.rings[0].pts, ring.pts[0]))?;
            host.rings.push(ring.clone());
        }
        Some(out)
    }

    /// One piece of a cut: from vertex `start` of ring `r`, along the rings,
    /// across the line from each crossing to its partner.
    fn walk(
        &self,
        mut r: usize,
        start: usize,
        along: Option<f64>,
        xs: &[(f64, usize, usize, DVec2)],
        crossing: &[usize],
        offsets: &[usize],
        visited: &mut [bool],
    ) -> Option<Ring> {
        let mut piece = Ring {
            pts: Vec::new(),
            street: Vec::new(),
        };
        let (r0, mut i) = (r, start);
        for _ in 0..=crossing.len() + xs.len() {
            let ring = &self.rings[r];
            visited[offsets[r] + i] = true;
            piece.pts.push(ring.pts[i]);
            piece.street.push(ring.street[i]);
            let k = crossing[offsets[r] + i];
            if k != usize::MAX {
                // Out across the line, back in at the partner crossing.
                let (x, y) = (&xs[k], &xs[k ^ 1]);
                piece.pts.push(x.3);
                piece.street.push(along);
                piece.pts.push(y.3);
                piece.street.push(self.rings[y.1].street[y.2]);
                r = y.1;
                i = y.2;
            }
            i = (i + 1) % self.rings[r].pts.len();
            if r == r0 && i == start {
                return Some(piece);
            }
            if visited[offsets[r] + i] {
                return None; // joined another walk: the cut is inconsistent
            }
        }
        None
    }

    /// The outer ring's oriented bounding box (see [`obb`]).
    pub fn obb(&self) -> (DVec2, (f64, f64), (f64, f64)) {
        obb(&self.outer().pts)
    }
}

/// Keeps the part of `ring` where `side` is positive, for a ring that
/// crosses zero exactly twice, leaving that side on edge `i` and entering
/// it on edge `j`, in place (as Sutherland–Hodgman would list it, from the
/// first vertex); the edge along the line gets the street `along`.
fn clip_ring(ring: &mut Ring, side: impl Fn(DVec2) -> f64, along: Option<f64>, i: usize, j: usize) {
    let (m, pts) = (ring.pts.len(), &ring.pts);
    let cross = |k: usize| {
        let (p, q) = (pts[k], pts[(k + 1) % m]);
        let (sp, sq) = (side(p), side(q));
        p + (q - p) * (sp / (sp - sq))
    };
    let (xi, xj) = (cross(i), cross(j));
    let sj = ring.street[j];
    if i < j {
        // The first vertex is kept: the run off the side becomes the two
        // crossings.
        ring.pts.splice(i + 1..=j, [xi, xj]);
        ring.street.splice(i + 1..=j, [along, sj]);
    } else {
        ring.pts.truncate(i + 1);
        ring.pts.push(xi);
        ring.pts[j] = xj;
        ring.pts.drain(..j);
        ring.street.truncate(i + 1);
        ring.street.push(along);
        ring.street.drain(..j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(rings: &[&[(f64, f64)]]) -> Shape {
        Shape {
            rings: (rings.iter())
                .map(|r| Ring {
                    pts: r.iter().map(|&(x, y)| DVec2::new(x, y)).collect(),
                    street: vec![Some(1.0); r.len()],
                })
                .collect(),
        }
    }

    #[test]
    fn a_u_cut_across_its_arms_gives_three_pieces() {
        // A U opening upwards: arms x ∈ [0, 10] and [20, 30], base y < 10.
        let u = shape(&[&[
            (0., 0.),
            (30., 0.),
            (30., 30.),
            (20., 30.),
            (20., 10.),
            (10., 10.),
            (10., 30.),
            (0., 30.),
        ]]);
        let [above, below] = u.cut(DVec2::Y, 20.0, None).unwrap();
        assert_eq!((above.len(), below.len()), (2, 1));
        let mut areas: Vec<f64> = above.iter().map(Shape::area).collect();
        areas.sort_by(f64::total_cmp);
        assert_eq!(areas, vec![100.0, 100.0]);
        assert!((below[0].area() - 500.0).abs() < 1e-9);
        // The cut edges do not face a street; the rest still do.
        let cut_len: f64 = (below[0].outer().edges())
            .filter(|e| e.2.is_none())
            .map(|(a, b, _)| a.distance(b))
            .sum();
        assert!((cut_len - 20.0).abs() < 1e-9);
        assert!((below[0].frontage() - (30. + 20. + 20. + 10. + 20.)).abs() < 1e-9);
        // Across the base only: one ring crossed twice.
        let [above, below] = u.cut(DVec2::Y, 5.0, None).unwrap();
        assert_eq!((above.len(), below.len()), (1, 1));
        assert_eq!((above[0].area(), below[0].area()), (550.0, 150.0));
        assert_eq!(below[0].frontage(), 30.0 + 5.0 + 5.0);
        // A line that misses the shape is no cut.
        assert!(u.cut(DVec2::Y, 40.0, None).is_none());
    }

    #[test]
    fn a_hole_is_opened_by_a_cut_through_it_and_kept_by_one_that_misses() {
        let h = shape(&[
            &[(0., 0.), (40., 0.), (40., 40.), (0., 40.)],
            &[(10., 10.), (10., 20.), (20., 20.), (20., 10.)],
        ]);
        assert_eq!(h.area(), 1500.0);
        let [right, left] = h.cut(DVec2::X, 15.0, None).unwrap();
        assert_eq!((right.len(), left.len()), (1, 1));
        assert!(right.iter().chain(&left).all(|p| p.rings.len() == 1));
        assert_eq!(right[0].area() + left[0].area(), 1500.0);
        let [right, left] = h.cut(DVec2::X, 30.0, None).unwrap();
        assert_eq!((right[0].rings.len(), left[0].rings.len()), (1, 2));
        assert!((left[0].area() - 1100.0).abs() < 1e-9);
        // A vertex on the line moves the line a little.
        let [a, b] = h.cut(DVec2::X, 10.0, None).unwrap();
        assert!((a[0].area() + b[0].area() - 1500.0).abs() < 1e-6);
    }
}
