//! Plane geometry shared by the terrain overlays and the road generators
//! (f64, core coordinates): segment contacts decided exactly, cells along
//! segments, [`group_by_key`] (the counting sort behind the cell indexes),
//! [`CellGrid`] and [`CellLists`], indexes of entries by cell (static and
//! growing), [`SegmentGrid`], an index of polylines by cell,
//! [`for_each_meeting`] (which segments touch, near-linearly),
//! [`snap_groups`] (points too close to tell apart), and [`PlanarGraph`], the
//! street generators' planar graph with faces.

mod cell_grid;
mod contacts;
mod overlaps;
pub mod planar;
mod segment_grid;
mod snap;

pub use cell_grid::{CellGrid, CellLists};
pub use contacts::{Meeting, PairWork, for_each_meeting};
pub use overlaps::keep_first_along_lines;
pub use planar::{Edge, Face, NodeId, PlanarGraph};
pub use segment_grid::SegmentGrid;
pub use snap::{SNAP_DISTANCE, largest_coordinate, snap_groups, snap_tolerance};
pub(crate) use snap::{find, union};

use glam::DVec2;

/// Where segments `a0–a1` and `b0–b1` meet: `(t, u)` with the point at
/// `a0 + t·(a1 − a0) = b0 + u·(b1 − b0)`, both in `[0, 1]`. Parallel
/// segments give `None` (collinear overlaps are not reported).
pub fn segment_intersection(a0: DVec2, a1: DVec2, b0: DVec2, b1: DVec2) -> Option<(f64, f64)> {
    let r = a1 - a0;
    let s = b1 - b0;
    let denom = r.perp_dot(s);
    if denom == 0.0 || !denom.is_finite() {
        return None;
    }
    let d = b0 - a0;
    let t = d.perp_dot(s) / denom;
    let u = d.perp_dot(r) / denom;
    ((0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&u)).then_some((t, u))
}

/// Bounding box `(min, max)` of points (inverted infinities when empty).
pub fn bounds(points: &[DVec2]) -> (DVec2, DVec2) {
    (points.iter()).fold((DVec2::INFINITY, DVec2::NEG_INFINITY), |(lo, hi), &p| {
        (lo.min(p), hi.max(p))
    })
}

/// The least and greatest turn round the closed ring `ring`: the cross
/// product of each edge with the next. A ring is convex anticlockwise where
/// the least is `>= 0` (strictly where `> 0`), clockwise where the greatest
/// is `<= 0`. A turn that is NaN makes both NaN, so no such test holds.
pub fn turn_range(ring: &[DVec2]) -> (f64, f64) {
    let n = ring.len();
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for i in 0..n {
        let (a, b, c) = (ring[i], ring[(i + 1) % n], ring[(i + 2) % n]);
        let t = (b - a).perp_dot(c - b);
        if t.is_nan() || lo.is_nan() {
            (lo, hi) = (f64::NAN, f64::NAN);
        } else {
            (lo, hi) = (lo.min(t), hi.max(t));
        }
    }
    (lo, hi)
}

/// The first `length` metres of a polyline (all of it when shorter).
pub fn polyline_prefix(points: &[DVec2], length: f64) -> Vec<DVec2> {
    let mut out: Vec<DVec2> = points.first().copied().into_iter().collect();
    let mut left = length;
    for w in points.windows(2) {
        let d = w[0].distance(w[1]);
        if d >= left {
            out.push(w[0] + (w[1] - w[0]) * (left / d.max(1e-12)));
            break;
        }
        out.push(w[1]);
        left -= d;
    }
    out
}

/// Least distance between segments `a–b` and `c–d`.
pub fn segment_distance(a: DVec2, b: DVec2, c: DVec2, d: DVec2) -> f64 {
    let side = |p: DVec2, q: DVec2, r: DVec2| (q - p).perp_dot(r - p);
    if side(a, b, c) * side(a, b, d) < 0.0 && side(c, d, a) * side(c, d, b) < 0.0 {
        return 0.0; // a proper crossing; touching shows in the distances below
    }
    // One square root for the least of the squared distances: the same.
    let d2 = |p: DVec2, a: DVec2, b: DVec2| closest_on_segment(p, a, b).0.distance_squared(p);
    ((d2(a, c, d).min(d2(b, c, d))).min(d2(c, a, b).min(d2(d, a, b)))).sqrt()
}

/// The point of segment `a–b` nearest to `p`, and its parameter in `[0, 1]`.
pub fn closest_on_segment(p: DVec2, a: DVec2, b: DVec2) -> (DVec2, f64) {
    let ab = b - a;
    let len2 = ab.length_squared();
    let t = if len2 > 0.0 {
        ((p - a).dot(ab) / len2).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (a + ab * t, t)
}

/// Distance from `p` to segment `a–b`.
pub fn distance_to_segment(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    closest_on_segment(p, a, b).0.distance(p)
}

/// How two segments touch (see [`segment_contact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Contact {
    /// They meet in one point: `a0 + t·(a1 − a0)`, `b0 + u·(b1 − b0)`. Where
    /// the point is an end of either segment, that end's parameter is
    /// exactly 0 or 1 (decided by exact orientation tests), so the point can
    /// be taken from the segment's own vertex.
    Point {
        /// Parameter on `a`.
        t: f64,
        /// Parameter on `b`.
        u: f64,
    },
    /// They are collinear and share a stretch of positive length, from
    /// parameter `t.0` to `t.1` on `a` (ascending).
    Overlap {
        /// The shared stretch on `a`.
        t: (f64, f64),
    },
}

/// The point where `a0–a1` and `b0–b1` meet at `Contact::Point { t, u }`:
/// an end of either segment exactly when the contact is there, else the
/// point at `t` along `a0–a1`.
pub fn contact_point(t: f64, u: f64, a0: DVec2, a1: DVec2, b0: DVec2, b1: DVec2) -> DVec2 {
    if t == 0.0 {
        a0
    } else if t == 1.0 {
        a1
    } else if u == 0.0 {
        b0
    } else if u == 1.0 {
        b1
    } else {
        a0.lerp(a1, t)
    }
}

fn orient(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    let p = |v: DVec2| robust::Coord { x: v.x, y: v.y };
    robust::orient2d(p(a), p(b), p(c))
}

/// The parameter of `p` along `a–b` (for a point known to lie on its line).
fn param_on(p: DVec2, a: DVec2, b: DVec2) -> f64 {
    let d = b - a;
    if d.x.abs() >= d.y.abs() {
        (p.x - a.x) / d.x
    } else {
        (p.y - a.y) / d.y
    }
}

/// How segments `a0–a1` and `b0–b1` touch, if they do: in one point
/// (crossing, or an end on the other segment), or along a shared stretch.
/// Which case holds is decided exactly (robust orientation predicates);
/// only the parameters of a proper crossing are rounded. Zero-length and
/// non-finite segments touch nothing.
pub fn segment_contact(a0: DVec2, a1: DVec2, b0: DVec2, b1: DVec2) -> Option<Contact> {
    if a0 == a1
        || b0 == b1
        || !(a0.is_finite() && a1.is_finite() && b0.is_finite() && b1.is_finite())
    {
        return None;
    }
    let (o1, o2) = (orient(a0, a1, b0), orient(a0, a1, b1));
    let (o3, o4) = (orient(b0, b1, a0), orient(b0, b1, a1));
    if o1 == 0.0 && o2 == 0.0 {
        // Collinear: compare parameters along `a`.
        let (u0, u1) = (param_on(b0, a0, a1), param_on(b1, a0, a1));
        let (lo, hi) = (u0.min(u1).max(0.0), u0.max(u1).min(1.0));
        return if hi > lo {
            Some(Contact::Overlap { t: (lo, hi) })
        } else if hi == lo {
            // Touching end to end.
            let t = lo;
            let u = if t == u0 { 0.0 } else { 1.0 };
            Some(Contact::Point { t, u })
        } else {
            None
        };
    }
    if o1 * o2 > 0.0 || o3 * o4 > 0.0 {
        return None;
    }
    // Ends exactly on the other segment get exact parameters.
    let (t, u) = if o3 == 0.0 {
        (0.0, param_on(a0, b0, b1))
    } else if o4 == 0.0 {
        (1.0, param_on(a1, b0, b1))
    } else if o1 == 0.0 {
        (param_on(b0, a0, a1), 0.0)
    } else if o2 == 0.0 {
        (param_on(b1, a0, a1), 1.0)
    } else {
        let (r, s, d) = (a1 - a0, b1 - b0, b0 - a0);
        let denom = r.perp_dot(s);
        (
            (d.perp_dot(s) / denom).clamp(0.0, 1.0),
            (d.perp_dot(r) / denom).clamp(0.0, 1.0),
        )
    };
    Some(Contact::Point {
        t: t.clamp(0.0, 1.0),
        u: u.clamp(0.0, 1.0),
    })
}

/// The integer cells of size `cell` that lie within `pad` of segment `a–b`
/// (and possibly a few more within `pad + cell/8`), sorted and without
/// repeats. The work is proportional to the segment's length over `cell`
/// plus the cells found, never to its bounding box; non-finite segments
/// (and a pad of over a thousand cells) give none.
pub fn cells_along_segment(a: DVec2, b: DVec2, cell: f64, pad: f64) -> Vec<(i64, i64)> {
    let mut out = Vec::new();
    cells_along_segment_into(a, b, cell, pad, &mut out);
    out
}

/// [`cells_along_segment`] into `out` (cleared first), reusing its room.
pub fn cells_along_segment_into(
    a: DVec2,
    b: DVec2,
    cell: f64,
    pad: f64,
    out: &mut Vec<(i64, i64)>,
) {
    out.clear();
    if !(a.is_finite() && b.is_finite() && cell > 0.0 && pad.is_finite() && pad >= 0.0) {
        return;
    }
    // Samples every quarter cell: each point of the segment lies within an
    // eighth of a cell of one, so a cell within `pad` of the segment lies
    // within `reach` of a sample, on each axis. The cells are those of the
    // samples' boxes.
    let reach = cell / 8.0 + pad;
    let steps = ((b - a).length() / (0.25 * cell)).ceil().max(1.0);
    if steps > 1.0e8 || reach / cell > 1.0e3 {
        return;
    }
    let span = |v: f64| {
        (
            crate::num::floor_i64((v - reach) / cell),
            crate::num::floor_i64((v + reach) / cell),
        )
    };
    // Sample `k`'s box (columns, rows), the samples taken by rising x.
    let n = steps as i64;
    let flip = b.x < a.x;
    let box_of = |k: i64| {
        let p = a.lerp(b, (if flip { n - k } else { k }) as f64 / steps);
        (span(p.x), span(p.y))
    };
    // Along the segment both coordinates move monotonically, by at most a
    // quarter cell a sample, so the boxes meeting a column are a run of
    // samples and their rows one range, from the run's two ends.
    let (mut first, mut last) = (0, 0);
    let ((x0, _), _) = box_of(0);
    let ((_, x1), _) = box_of(n);
    for x in x0..=x1 {
        while box_of(first).0.1 < x {
            first += 1;
        }
        while last < n && box_of(last + 1).0.0 <= x {
            last += 1;
        }
        let ((_, ya), (_, yb)) = (box_of(first), box_of(last));
        out.extend((ya.0.min(yb.0)..=ya.1.max(yb.1)).map(|y| (x, y)));
    }
}

/// Whether segment `a–b` has a point in the rectangle `[min, max)` (its
/// edges, as crossed by the segment, count).
pub fn segment_meets_rect(a: DVec2, b: DVec2, min: DVec2, max: DVec2) -> bool {
    if a.max(b).cmplt(min).any() || a.min(b).cmpgt(max).any() {
        return false;
    }
    let inside = |p: DVec2| p.x >= min.x && p.y >= min.y && p.x < max.x && p.y < max.y;
    if inside(a) || inside(b) {
        return true;
    }
    let corners = [min, DVec2::new(max.x, min.y), max, DVec2::new(min.x, max.y)];
    (0..4).any(|k| segment_intersection(a, b, corners[k], corners[(k + 1) % 4]).is_some())
}

/// Douglas–Peucker over the `n` points of a line, by index: which points
/// to keep. The ends and the points `keep` names are kept; between two kept
/// points `a` and `b`, `farthest(a, b)` names the point of `a + 1..b`
/// farthest from the chord if it lies beyond the tolerance (the caller's
/// measure), which is kept in turn, and so on.
pub fn douglas_peucker(
    n: usize,
    keep: impl Fn(usize) -> bool,
    mut farthest: impl FnMut(usize, usize) -> Option<usize>,
) -> Vec<bool> {
    let mut kept: Vec<bool> = (0..n).map(|i| i == 0 || i + 1 == n || keep(i)).collect();
    let anchors: Vec<usize> = (0..n).filter(|&i| kept[i]).collect();
    let mut stack = Vec::new();
    for w in anchors.windows(2) {
        stack.push((w[0], w[1]));
        while let Some((a, b)) = stack.pop() {
            if let Some(k) = farthest(a, b).filter(|k| (a + 1..b).contains(k)) {
                kept[k] = true;
                stack.push((a, k));
                stack.push((k, b));
            }
        }
    }
    kept
}

/// The part of segment `a–b` within the closed box `[min, max]`, as the
/// parameters `t0 ≤ t1` along it (Liang–Barsky); `None` where they do not
/// meet.
pub fn segment_box_span(a: DVec2, b: DVec2, min: DVec2, max: DVec2) -> Option<(f64, f64)> {
    let d = b - a;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [
        (-d.x, a.x - min.x),
        (d.x, max.x - a.x),
        (-d.y, a.y - min.y),
        (d.y, max.y - a.y),
    ] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
            if t0 > t1 {
                return None;
            }
        }
    }
    Some((t0, t1))
}

/// Groups `entries` by a small integer key (every key below `n`), keeping
/// their order within a key (a counting sort): returns `starts` (`n + 1`
/// offsets) and the values, key `k`'s being `values[starts[k]..starts[k + 1]]`.
pub fn group_by_key<E, T: Copy>(
    n: usize,
    entries: &[E],
    key: impl Fn(&E) -> usize,
    value: impl Fn(&E) -> T,
) -> (Vec<u32>, Vec<T>) {
    let mut starts = vec![0u32; n + 1];
    for e in entries {
        starts[key(e) + 1] += 1;
    }
    for k in 0..n {
        starts[k + 1] += starts[k];
    }
    let Some(first) = entries.first() else {
        return (starts, Vec::new());
    };
    let mut values = vec![value(first); entries.len()];
    // Each key's start serves as its cursor, which ends at the next key's
    // start: shifted back by one place after.
    for e in entries {
        let at = &mut starts[key(e)];
        values[*at as usize] = value(e);
        *at += 1;
    }
    starts.copy_within(0..n, 1);
    starts[0] = 0;
    (starts, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_range_tells_convex_rings_either_way_round() {
        let v = |x, y| DVec2::new(x, y);
        let square = [v(0.0, 0.0), v(2.0, 0.0), v(2.0, 2.0), v(0.0, 2.0)];
        assert_eq!(turn_range(&square), (4.0, 4.0));
        let mut cw = square;
        cw.reverse();
        assert_eq!(turn_range(&cw), (-4.0, -4.0));
        // A dart: one reflex corner.
        let dart = [v(0.0, 0.0), v(2.0, 1.0), v(4.0, 0.0), v(2.0, 4.0)];
        let (lo, hi) = turn_range(&dart);
        assert!(lo < 0.0 && hi > 0.0);
        // A point on a side turns by 0: convex, not strictly.
        let flat = [v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0), v(1.0, 1.0)];
        assert_eq!(turn_range(&flat).0, 0.0);
        // NaN anywhere fails every test.
        let bad = [v(0.0, 0.0), v(f64::NAN, 0.0), v(1.0, 1.0)];
        let (lo, hi) = turn_range(&bad);
        assert!(lo.is_nan() && hi.is_nan());
    }

    #[test]
    fn douglas_peucker_keeps_the_ends_the_named_and_the_far_points() {
        // Heights along a line: a bump of 3 at index 4, 0.5 at index 7.
        let y: [f64; 10] = [0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.5, 0.0, 0.0];
        let run = |tol: f64, keep: &dyn Fn(usize) -> bool| {
            let kept = douglas_peucker(y.len(), keep, |a, b| {
                // The chord is flat between kept points here: |y| is the
                // distance.
                let k = (a + 1..b).max_by(|&i, &j| y[i].total_cmp(&y[j]).then(j.cmp(&i)))?;
                (y[k] > tol).then_some(k)
            });
            (0..y.len()).filter(|&i| kept[i]).collect::<Vec<_>>()
        };
        assert_eq!(run(1.0, &|_| false), [0, 4, 9]);
        assert_eq!(run(0.1, &|_| false), [0, 4, 7, 9]);
        assert_eq!(run(1.0, &|i| i == 2), [0, 2, 4, 9]);
        assert!(douglas_peucker(0, |_| false, |_, _| None).is_empty());
        assert_eq!(douglas_peucker(1, |_| false, |_, _| None), [true]);
    }

    #[test]
    fn group_by_key_is_a_stable_sort_by_key() {
        let entries: Vec<(usize, u32)> =
            (0..500u32).map(|i| ((i * 7919 % 13) as usize, i)).collect();
        let (starts, values) = group_by_key(16, &entries, |e| e.0, |e| e.1);
        let mut sorted = entries.clone();
        sorted.sort_by_key(|e| e.0);
        assert_eq!(values, sorted.iter().map(|e| e.1).collect::<Vec<_>>());
        for k in 0..16 {
            let want = entries.iter().filter(|e| e.0 == k).count();
            assert_eq!((starts[k + 1] - starts[k]) as usize, want);
        }
        assert_eq!(
            group_by_key(3, &[] as &[(usize, u32)], |e| e.0, |e| e.1),
            (vec![0; 4], vec![])
        );
    }

    #[test]
    fn intersections() {
        let (t, u) = segment_intersection(
            DVec2::ZERO,
            DVec2::new(10.0, 0.0),
            DVec2::new(5.0, -5.0),
            DVec2::new(5.0, 5.0),
        )
        .unwrap();
        assert_eq!((t, u), (0.5, 0.5));
        // Touching at an end counts.
        assert!(
            segment_intersection(DVec2::ZERO, DVec2::X, DVec2::X, DVec2::new(1.0, 1.0)).is_some()
        );
        assert!(
            segment_intersection(
                DVec2::ZERO,
                DVec2::X,
                DVec2::new(2.0, -1.0),
                DVec2::new(2.0, 1.0)
            )
            .is_none()
        );
        assert!(
            segment_intersection(DVec2::ZERO, DVec2::X, DVec2::Y, DVec2::new(1.0, 1.0)).is_none()
        );
    }

    #[test]
    fn closest_points_and_cells() {
        let (p, t) = closest_on_segment(DVec2::new(3.0, 4.0), DVec2::ZERO, DVec2::new(10.0, 0.0));
        assert_eq!((p, t), (DVec2::new(3.0, 0.0), 0.3));
        assert_eq!(
            distance_to_segment(DVec2::new(-3.0, 4.0), DVec2::ZERO, DVec2::X),
            5.0
        );
    }

    #[test]
    fn contacts_are_classified_exactly() {
        let v = DVec2::new;
        // A proper crossing.
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(10.0, 0.0), v(5.0, -5.0), v(5.0, 5.0)),
            Some(Contact::Point { t: 0.5, u: 0.5 })
        );
        // An end on the other's interior: exact parameter 1 on b.
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(10.0, 10.0), v(-5.0, 5.0), v(5.0, 5.0)),
            Some(Contact::Point { t: 0.5, u: 1.0 })
        );
        // Collinear overlap, in either direction.
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(10.0, 0.0), v(12.0, 0.0), v(4.0, 0.0)),
            Some(Contact::Overlap { t: (0.4, 1.0) })
        );
        // Collinear, end to end: one point.
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(10.0, 0.0), v(10.0, 0.0), v(20.0, 0.0)),
            Some(Contact::Point { t: 1.0, u: 0.0 })
        );
        // Collinear and apart, parallel, degenerate, non-finite.
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(1.0, 0.0), v(2.0, 0.0), v(3.0, 0.0)),
            None
        );
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(1.0, 0.0), v(0.0, 1.0), v(1.0, 1.0)),
            None
        );
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(0.0, 0.0), v(0.0, 0.0), v(1.0, 1.0)),
            None
        );
        assert_eq!(
            segment_contact(v(0.0, 0.0), v(f64::NAN, 0.0), v(0.0, 0.0), v(1.0, 1.0)),
            None
        );
        // −0 and +0 are the same point.
        assert_eq!(
            segment_contact(v(-0.0, 0.0), v(10.0, 0.0), v(0.0, -0.0), v(0.0, 10.0)),
            Some(Contact::Point { t: 0.0, u: 0.0 })
        );
    }

    /// The cells of the samples' boxes, gathered and sorted one by one.
    fn cells_by_samples(a: DVec2, b: DVec2, cell: f64, pad: f64) -> Vec<(i64, i64)> {
        let reach = cell / 8.0 + pad;
        let steps = ((b - a).length() / (0.25 * cell)).ceil().max(1.0);
        let span = |v: f64| {
            crate::num::floor_i64((v - reach) / cell)..=crate::num::floor_i64((v + reach) / cell)
        };
        let mut out = Vec::new();
        for k in 0..=steps as i64 {
            let p = a.lerp(b, k as f64 / steps);
            for y in span(p.y) {
                out.extend(span(p.x).map(|x| (x, y)));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    #[test]
    fn cells_along_a_segment_are_the_samples_boxes() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..3000 {
            let a = DVec2::new(next() * 400.0 - 200.0, next() * 400.0 - 200.0);
            let mut b =
                a + DVec2::new(next() - 0.5, next() - 0.5) * 10.0f64.powf(next() * 4.0 - 1.0);
            if next() < 0.1 {
                b.x = a.x;
            }
            let cell = [0.5, 5.0, 40.0][(next() * 3.0) as usize];
            let pad = [0.0, 1.01, 3.5][(next() * 3.0) as usize];
            assert_eq!(
                cells_along_segment(a, b, cell, pad),
                cells_by_samples(a, b, cell, pad),
                "{a} {b} {cell} {pad}"
            );
        }
    }

    #[test]
    fn cells_along_a_segment_cover_its_padding_and_not_its_box() {
        let (a, b) = (DVec2::new(1.0, 1.0), DVec2::new(25.0, 3.0));
        let cells = cells_along_segment(a, b, 20.0, 0.0);
        assert!(cells.contains(&(0, 0)) && cells.contains(&(1, 0)));
        // Brute force: every cell within the padding of the segment is listed.
        let (a, b, pad, cell) = (DVec2::new(-37.0, 12.5), DVec2::new(211.0, -90.0), 7.0, 16.0);
        let cells = cells_along_segment(a, b, cell, pad);
        for y in -12..12 {
            for x in -6..16 {
                let lo = DVec2::new(x as f64, y as f64) * cell;
                let centre = lo + cell / 2.0;
                // Distance from the cell (a square) to the segment ≤ pad?
                let q = closest_on_segment(centre, a, b).0;
                let d = (q - q.clamp(lo, lo + cell)).length();
                if d <= pad {
                    assert!(cells.binary_search(&(x, y)).is_ok(), "{x} {y}");
                }
            }
        }
        // A 140 km diagonal costs cells along it, not its box.
        let long = cells_along_segment(DVec2::ZERO, DVec2::splat(1.0e5), 32.0, 3.5);
        assert!(long.len() < 100_000, "{}", long.len());
        assert!(
            cells_along_segment(DVec2::ZERO, DVec2::splat(f64::INFINITY), 32.0, 0.0).is_empty()
        );
    }
}
