//! [`for_each_meeting`]: every two segments of a set of polylines that touch
//! (or come within a tolerance), each reported once, found per grid cell
//! without ever listing all pairs.

use super::{Contact, cells_along_segment_into, contact_point, segment_contact};
use crate::num::floor_i64;
use glam::DVec2;
use std::ops::ControlFlow;

/// How two segments `a` and `b` meet (see [`for_each_meeting`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Meeting {
    /// They touch, as decided exactly by [`segment_contact`].
    Touch(Contact),
    /// They do not touch, but an end (0, 1: `a0`, `a1`; 2, 3: `b0`, `b1`)
    /// lies within the tolerance of the other segment.
    Near(usize),
}

/// The work [`for_each_meeting`] did: entries filed in cells, and candidate
/// pairs examined (both near-linear in the segments for sensible input).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairWork {
    /// `(cell, segment)` entries.
    pub filed: usize,
    /// Pairs of segments sharing a cell that were examined.
    pub pairs: usize,
}

/// One segment: its ends, polyline and index in it.
#[derive(Clone, Copy)]
struct Seg {
    a: DVec2,
    b: DVec2,
    line: u32,
    seg: u32,
}

/// Cell side for `segs`: their mean length, so that each is filed in a few
/// cells and the entries are linear in the segments; never so small that
/// cell indices lose the coordinates' precision, nor below 64 × `near`.
fn cell_size(segs: &[Seg], near: f64) -> f64 {
    let (mut length, mut largest) = (0.0, 0.0f64);
    for s in segs {
        length += s.a.distance(s.b);
        largest = largest
            .max(s.a.abs().max_element())
            .max(s.b.abs().max_element());
    }
    let cell = (length / segs.len().max(1) as f64)
        .max(largest * (-32.0f64).exp2())
        .max(near * 64.0);
    if cell.is_finite() && cell > 0.0 {
        cell
    } else {
        f64::MAX
    }
}

/// Calls `f(a, b, ends, meeting)` for every two segments of `lines` that
/// touch (or, with `near > 0`, where an end of one lies within `near` of the
/// other), each pair once: `a` and `b` are `(line, segment)` with `a < b`,
/// `ends` are `[a0, a1, b0, b1]`. Zero-length and non-finite segments meet
/// nothing. Stops at the first `Break`. With `once` false, a pair may be
/// reported from every cell the two share (for a caller that stops at the
/// first it finds: it is found without delay). Pairs for which
/// `skip(a, b)` holds are passed over untested.
///
/// Segments are filed in square cells along them (side: their mean length),
/// and only segments sharing a cell are compared, one cell at a time, so
/// memory is linear in the segments; a pair is reported from the cell that
/// holds its contact's reference point only. Two consecutive segments of one
/// line that do not turn back are skipped without a test. The order of the
/// calls is fixed by the input (cells, then segments), never by hashing.
pub fn for_each_meeting<B>(
    lines: &[&[DVec2]],
    near: f64,
    once: bool,
    work: Option<&mut PairWork>,
    mut skip: impl FnMut((usize, usize), (usize, usize)) -> bool,
    mut f: impl FnMut((usize, usize), (usize, usize), [DVec2; 4], Meeting) -> ControlFlow<B>,
) -> ControlFlow<B> {
    let near = if near.is_finite() { near.max(0.0) } else { 0.0 };
    let mut segs = Vec::new();
    for (i, pts) in lines.iter().enumerate() {
        for (s, w) in pts.windows(2).enumerate() {
            if w[0] != w[1] && w[0].is_finite() && w[1].is_finite() {
                let (line, seg) = (i as u32, s as u32);
                segs.push(Seg {
                    a: w[0],
                    b: w[1],
                    line,
                    seg,
                });
            }
        }
    }
    let cell = cell_size(&segs, near);
    // A margin over the filing's own eighth of a cell, so that a rounded
    // contact point, or a point within `near`, is in both segments' cells.
    let pad = cell / 64.0 + near;
    let mut filed: Vec<((i64, i64), u32)> = Vec::new();
    let mut cells = Vec::new();
    for (k, s) in segs.iter().enumerate() {
        cells_along_segment_into(s.a, s.b, cell, pad, &mut cells);
        filed.extend(cells.iter().map(|&c| (c, k as u32)));
    }
    filed.sort_unstable();
    let cell_of = |p: DVec2| (floor_i64(p.x / cell), floor_i64(p.y / cell));
    let is_filed = |c: (i64, i64), k: usize| filed.binary_search(&(c, k as u32)).is_ok();
    let mut pairs = 0;
    let mut out = ControlFlow::Continue(());
    'cells: for run in filed.chunk_by(|x, y| x.0 == y.0) {
        let here = run[0].0;
        for (n, &(_, ka)) in run.iter().enumerate() {
            let sa = segs[ka as usize];
            for &(_, kb) in &run[n + 1..] {
                pairs += 1;
                let sb = segs[kb as usize];
                let (a, b) = (
                    (sa.line as usize, sa.seg as usize),
                    (sb.line as usize, sb.seg as usize),
                );
                if skip(a, b) {
                    continue;
                }
                let Some((meeting, at)) = meet(&sa, &sb, near) else {
                    continue;
                };
                // Report from the cell of `at` only; where rounding put it
                // outside either segment's cells, from their first shared
                // cell instead.
                let home = cell_of(at);
                let report = !once
                    || home == here
                    || (!(is_filed(home, ka as usize) && is_filed(home, kb as usize))
                        && first_shared_cell(&sa, &sb, cell, pad) == Some(here));
                if !report {
                    continue;
                }
                let ends = [sa.a, sa.b, sb.a, sb.b];
                if let ControlFlow::Break(x) = f(a, b, ends, meeting) {
                    out = ControlFlow::Break(x);
                    break 'cells;
                }
            }
        }
    }
    if let Some(w) = work {
        *w = PairWork {
            filed: filed.len(),
            pairs,
        };
    }
    out
}

/// How `a` and `b` meet, with the contact's reference point: the touching
/// point, an overlap's least end (in `x`, then `y`), or the near end.
fn meet(a: &Seg, b: &Seg, near: f64) -> Option<(Meeting, DVec2)> {
    let (a0, a1, b0, b1) = (a.a, a.b, b.a, b.b);
    // Consecutive segments of a line meet at their shared vertex; anything
    // more needs `b` to turn back along `a`.
    let consecutive = a.line == b.line && a.seg + 1 == b.seg && a1 == b0;
    if consecutive && (a1 - a0).dot(b1 - b0) >= 0.0 {
        return None;
    }
    if a0.min(a1).cmpgt(b0.max(b1) + near).any() || b0.min(b1).cmpgt(a0.max(a1) + near).any() {
        return None;
    }
    let ends = [(a0, b0, b1), (a1, b0, b1), (b0, a0, a1), (b1, a0, a1)];
    match segment_contact(a0, a1, b0, b1) {
        // The shared vertex alone, or a spike with its far end near `a`.
        Some(Contact::Point { t: 1.0, u: 0.0 }) if consecutive => [0, 3]
            .into_iter()
            .find(|&k| {
                near > 0.0 && super::distance_to_segment(ends[k].0, ends[k].1, ends[k].2) <= near
            })
            .map(|k| (Meeting::Near(k), ends[k].0)),
        Some(c @ Contact::Point { t, u }) => {
            Some((Meeting::Touch(c), contact_point(t, u, a0, a1, b0, b1)))
        }
        Some(c @ Contact::Overlap { .. }) => {
            // Collinear: an end lies on the other segment when in its box.
            let inside = |p: DVec2, q0: DVec2, q1: DVec2| {
                p.cmpge(q0.min(q1)).all() && p.cmple(q0.max(q1)).all()
            };
            let least = (ends.into_iter())
                .filter(|&(p, q0, q1)| inside(p, q0, q1))
                .map(|e| e.0)
                .min_by(|p, q| p.x.total_cmp(&q.x).then(p.y.total_cmp(&q.y)))
                .unwrap_or(a0);
            Some((Meeting::Touch(c), least))
        }
        None if near > 0.0 => (0..4)
            .find(|&k| super::distance_to_segment(ends[k].0, ends[k].1, ends[k].2) <= near)
            .map(|k| (Meeting::Near(k), ends[k].0)),
        None => None,
    }
}

/// The first cell (in sorted order) that both segments are filed in.
fn first_shared_cell(a: &Seg, b: &Seg, cell: f64, pad: f64) -> Option<(i64, i64)> {
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    cells_along_segment_into(a.a, a.b, cell, pad, &mut ca);
    cells_along_segment_into(b.a, b.b, cell, pad, &mut cb);
    ca.into_iter().find(|c| cb.binary_search(c).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(lines: &[Vec<DVec2>], near: f64) -> (Vec<(usize, usize, usize, usize)>, PairWork) {
        let refs: Vec<&[DVec2]> = lines.iter().map(|l| l.as_slice()).collect();
        let mut work = PairWork::default();
        let mut out = Vec::new();
        let _ = for_each_meeting::<()>(
            &refs,
            near,
            true,
            Some(&mut work),
            |_, _| false,
            |a, b, _, _| {
                out.push((a.0, a.1, b.0, b.1));
                ControlFlow::Continue(())
            },
        );
        (out, work)
    }

    /// Brute force: every pair of segments that touch.
    fn brute(lines: &[Vec<DVec2>]) -> Vec<(usize, usize, usize, usize)> {
        let segs: Vec<(usize, usize, DVec2, DVec2)> = (lines.iter().enumerate())
            .flat_map(|(i, l)| {
                l.windows(2)
                    .enumerate()
                    .map(move |(s, w)| (i, s, w[0], w[1]))
            })
            .collect();
        let mut out = Vec::new();
        for (n, x) in segs.iter().enumerate() {
            for y in &segs[n + 1..] {
                let adjacent = x.0 == y.0 && x.1 + 1 == y.1;
                match segment_contact(x.2, x.3, y.2, y.3) {
                    Some(Contact::Point { t: 1.0, u: 0.0 }) if adjacent => {}
                    Some(_) => out.push((x.0, x.1, y.0, y.1)),
                    None => {}
                }
            }
        }
        out
    }

    #[test]
    fn every_touching_pair_is_reported_once() {
        let mut seed = 99u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) % 40) as f64 * 2.5
        };
        for _ in 0..40 {
            let lines: Vec<Vec<DVec2>> = (0..8)
                .map(|_| (0..6).map(|_| DVec2::new(next(), next())).collect())
                .collect();
            let (mut got, _) = all(&lines, 0.0);
            got.sort_unstable();
            let mut want = brute(&lines);
            want.sort_unstable();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn a_long_fine_straight_line_costs_linear_work() {
        // 10,000 points along 100 m, plus a road crossing it.
        let line: Vec<DVec2> = (0..10_000)
            .map(|k| DVec2::new(k as f64 * 0.01, 0.0))
            .collect();
        let cross = vec![DVec2::new(50.005, -1.0), DVec2::new(50.005, 1.0)];
        let (got, work) = all(&[line, cross], 0.0);
        assert_eq!(got, vec![(0, 5000, 1, 0)]);
        assert!(work.filed < 100_000 && work.pairs < 100_000, "{work:?}");
    }

    #[test]
    fn near_ends_are_found() {
        let lines = vec![
            vec![DVec2::new(0.0, 0.0), DVec2::new(10.0, 0.0)],
            vec![DVec2::new(5.0, 1.0e-7), DVec2::new(5.0, 10.0)],
        ];
        let refs: Vec<&[DVec2]> = lines.iter().map(|l| l.as_slice()).collect();
        let mut seen = Vec::new();
        let _ = for_each_meeting::<()>(
            &refs,
            1.0e-6,
            true,
            None,
            |_, _| false,
            |a, b, _, m| {
                seen.push((a, b, m));
                ControlFlow::Continue(())
            },
        );
        assert_eq!(seen, vec![((0, 0), (1, 0), Meeting::Near(2))]);
        assert_eq!(all(&lines, 0.0).0, vec![]);
    }
}
