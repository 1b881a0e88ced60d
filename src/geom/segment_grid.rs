//! [`SegmentGrid`]: polylines' segments filed in square cells along their
//! length, for "what is near this point?" and "what meets this box?".

use super::cells_along_segment;
use glam::DVec2;

/// Segments of numbered polylines filed by cell: a sorted list of
/// `(cell, line, segment)`, so building and every query cost work
/// proportional to the lines' length or the answer, never to an area, and
/// nothing depends on hash order.
#[derive(Clone, Debug, Default)]
pub struct SegmentGrid {
    cell: f64,
    /// `((row, column), line, segment)`, sorted.
    filed: Vec<((i64, i64), u32, u32)>,
}

impl SegmentGrid {
    /// Files every segment of `lines` in the cells of side `cell` within
    /// `pad(line)` of it (and the ring of cells around those).
    pub fn new<'a>(
        cell: f64,
        lines: impl IntoIterator<Item = &'a [DVec2]>,
        pad: impl Fn(usize) -> f64,
    ) -> Self {
        let mut filed = Vec::new();
        for (i, pts) in lines.into_iter().enumerate() {
            for (s, w) in pts.windows(2).enumerate() {
                for (x, y) in cells_along_segment(w[0], w[1], cell, pad(i)) {
                    filed.push(((y, x), i as u32, s as u32));
                }
            }
        }
        filed.sort_unstable();
        filed.dedup();
        Self { cell, filed }
    }

    /// The cell side, metres.
    pub fn cell(&self) -> f64 {
        self.cell
    }

    fn cell_of(&self, p: DVec2) -> (i64, i64) {
        (
            crate::num::floor_i64(p.y / self.cell),
            crate::num::floor_i64(p.x / self.cell),
        )
    }

    fn row_range(&self, row: i64, x0: i64, x1: i64) -> &[((i64, i64), u32, u32)] {
        let lo = self.filed.partition_point(|e| e.0 < (row, x0));
        let hi = self.filed.partition_point(|e| e.0 <= (row, x1));
        &self.filed[lo..hi]
    }

    /// `(line, segment)` filed in the cell holding `p` and the `ring` cells
    /// around it (a segment may come more than once).
    pub fn near(&self, p: DVec2, ring: i64) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (row, col) = self.cell_of(p);
        (row.saturating_sub(ring)..=row.saturating_add(ring)).flat_map(move |r| {
            self.row_range(r, col.saturating_sub(ring), col.saturating_add(ring))
                .iter()
                .map(|e| (e.1 as usize, e.2 as usize))
        })
    }

    /// Lines with a segment filed in a cell that meets `[min, max]`
    /// (ascending, each once).
    pub fn lines_in(&self, min: DVec2, max: DVec2) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        if !(min.is_finite() && max.is_finite()) || max.x < min.x || max.y < min.y {
            return out;
        }
        let ((r0, c0), (r1, c1)) = (self.cell_of(min), self.cell_of(max));
        let rows = (r1 as i128 - r0 as i128 + 1) as f64;
        // A cell's entries come line by line: each line's run is taken once
        // (a city's cells hold many segments of few lines).
        let mut take = |e: &((i64, i64), u32, u32)| {
            if out.last() != Some(&(e.1 as usize)) {
                out.push(e.1 as usize);
            }
        };
        if rows * 4.0 > self.filed.len() as f64 {
            // A box larger than what is filed: scan the entries instead.
            (self.filed.iter())
                .filter(|e| (r0..=r1).contains(&e.0.0) && (c0..=c1).contains(&e.0.1))
                .for_each(take);
        } else {
            for r in r0..=r1 {
                self.row_range(r, c0, c1).iter().for_each(&mut take);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_and_lines_in_agree_with_brute_force() {
        let lines: Vec<Vec<DVec2>> = vec![
            vec![
                DVec2::new(0.0, 0.0),
                DVec2::new(300.0, 40.0),
                DVec2::new(310.0, 400.0),
            ],
            vec![DVec2::new(-500.0, -500.0), DVec2::new(-480.0, -520.0)],
            vec![DVec2::new(1.0e5, 1.0e5), DVec2::new(-1.0e5, -1.0e5)],
        ];
        let g = SegmentGrid::new(32.0, lines.iter().map(|l| l.as_slice()), |_| 3.0);
        for k in 0..300 {
            let p = DVec2::new((k * 37 % 900) as f64 - 450.0, (k * 53 % 800) as f64 - 400.0);
            let near: Vec<_> = g.near(p, 0).collect();
            for (i, l) in lines.iter().enumerate() {
                for (s, w) in l.windows(2).enumerate() {
                    if crate::geom::distance_to_segment(p, w[0], w[1]) <= 3.0 {
                        assert!(near.contains(&(i, s)), "{p} {i} {s}");
                    }
                }
            }
        }
        assert_eq!(
            g.lines_in(DVec2::new(-10.0, -10.0), DVec2::new(10.0, 10.0)),
            vec![0, 2]
        );
        assert_eq!(
            g.lines_in(DVec2::splat(-1.0e15), DVec2::splat(1.0e15)),
            vec![0, 1, 2]
        );
        assert!(g.lines_in(DVec2::splat(f64::NAN), DVec2::ZERO).is_empty());
    }
}
