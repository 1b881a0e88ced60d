//! [`Region`]: where streets may run — inside the boundary, outside every
//! obstacle — as a raster of cells that are free, blocked, or crossed by a
//! constraint edge (only those need an exact test), so a traced step costs
//! one cell lookup away from the edges.

use super::TensorError;
use crate::city::polygon::polygon_contains;
use crate::geom::{distance_to_segment, segment_intersection};
use glam::DVec2;

const BLOCKED: u8 = 0;
const FREE: u8 = 1;
const MIXED: u8 = 2;
// `Region::new` computes the states from these values.
const _: () = assert!(BLOCKED == 0 && FREE == 1 && MIXED == 2);

/// A constraint edge: segment `seg` of polygon `poly` (0 = the boundary).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstraintEdge {
    pub a: DVec2,
    pub b: DVec2,
    pub poly: u32,
    pub seg: u32,
}

/// Where a segment meets a constraint edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    /// The meeting point.
    pub point: DVec2,
    /// Which edge.
    pub edge: ConstraintEdge,
    /// Parameter of the point along the edge.
    pub u: f64,
}

/// What a traced step meets.
#[derive(Clone, Copy, Debug)]
pub(crate) enum StepCheck {
    /// Nothing: free ground.
    Clear,
    /// A constraint edge.
    Hit(Hit),
    /// Ground that is not free, without crossing an edge.
    Blocked,
}

/// The free region as a raster with the constraint edges filed by cell.
pub(crate) struct Region {
    origin: DVec2,
    cell: f64,
    inv: f64,
    nx: usize,
    ny: usize,
    /// `(nx, ny)` as floats.
    size: DVec2,
    state: Vec<u8>,
    /// Per cell, `edge_ids[starts[c]..starts[c + 1]]` are the edges within
    /// `pad` of it.
    starts: Vec<u32>,
    edge_ids: Vec<u32>,
    edges: Vec<ConstraintEdge>,
    /// Boundary first, then the obstacles (open rings).
    polys: Vec<Vec<DVec2>>,
}

impl Region {
    /// The region inside `boundary` and outside `obstacles`, cells of side
    /// `cell`; a step of at most `pad` ending in a cell not marked as
    /// crossed cannot cross an edge.
    pub fn new(
        boundary: &[DVec2],
        obstacles: &[Vec<DVec2>],
        cell: f64,
        pad: f64,
    ) -> Result<Self, TensorError> {
        let (lo, hi) = crate::geom::bounds(boundary);
        // Two cells around the boundary, or more, so that every step
        // (at most `pad`) out of it ends on the raster.
        let margin = (pad / cell + 1.0).ceil().clamp(2.0, 1.0e6);
        let origin = lo - DVec2::splat(margin * cell);
        let span = (hi - lo) / cell + 2.0 * margin;
        if !(0.0..=super::MAX_FIELD_CELLS).contains(&(span.x * span.y)) {
            return Err(TensorError::TooLarge {
                what: "region cells",
                count: span.x * span.y,
            });
        }
        let (nx, ny) = (span.x.ceil() as usize, span.y.ceil() as usize);
        let mut polys = vec![boundary.to_vec()];
        polys.extend(obstacles.iter().filter(|o| o.len() >= 3).cloned());
        let mut edges = Vec::new();
        for (k, poly) in polys.iter().enumerate() {
            for i in 0..poly.len() {
                let (a, b) = (poly[i], poly[(i + 1) % poly.len()]);
                if a != b {
                    edges.push(ConstraintEdge {
                        a,
                        b,
                        poly: k as u32,
                        seg: i as u32,
                    });
                }
            }
        }
        // File every edge in the cells within `pad` of it, edge by edge: a
        // segment's cells are distinct, and the grouping keeps the filing
        // order, so each cell lists its edges once each, in rising order
        // (as sorting would, without the sort).
        let mut filed: Vec<(u32, u32)> = Vec::new();
        let mut cells = Vec::new();
        for (e, edge) in edges.iter().enumerate() {
            let (a, b) = (edge.a - origin, edge.b - origin);
            crate::geom::cells_along_segment_into(a, b, cell, pad, &mut cells);
            for &(x, y) in &cells {
                if (0..nx as i64).contains(&x) && (0..ny as i64).contains(&y) {
                    filed.push(((y as usize * nx + x as usize) as u32, e as u32));
                }
            }
        }
        let (starts, edge_ids) =
            crate::geom::group_by_key(nx * ny, &filed, |f| f.0 as usize, |f| f.1);
        let mut region = Self {
            origin,
            cell,
            inv: 1.0 / cell,
            nx,
            ny,
            size: DVec2::new(nx as f64, ny as f64),
            state: vec![BLOCKED; nx * ny],
            starts,
            edge_ids,
            edges,
            polys,
        };
        region.classify();
        Ok(region)
    }

    /// Marks cells crossed by edges as mixed, the others free or blocked by
    /// their centre, one scanline per row.
    fn classify(&mut self) {
        let mut inside = vec![false; self.nx];
        let mut covered = vec![false; self.nx];
        let mut xs = Vec::new();
        for j in 0..self.ny {
            let y = self.origin.y + (j as f64 + 0.5) * self.cell;
            inside.fill(false);
            covered.fill(false);
            for (k, poly) in self.polys.iter().enumerate() {
                xs.clear();
                let mut b = poly[poly.len() - 1];
                for &a in poly {
                    if (a.y > y) != (b.y > y) {
                        xs.push(a.x + (y - a.y) * (b.x - a.x) / (b.y - a.y));
                    }
                    b = a;
                }
                xs.sort_by(f64::total_cmp);
                let target = if k == 0 { &mut inside } else { &mut covered };
                for pair in xs.chunks_exact(2) {
                    let from = ((pair[0] - self.origin.x) / self.cell - 0.5)
                        .ceil()
                        .max(0.0);
                    let to = ((pair[1] - self.origin.x) / self.cell - 0.5).floor();
                    let (from, to) = (from as usize, (to.min(self.nx as f64 - 1.0)) as i64);
                    for c in target.iter_mut().take((to + 1).max(0) as usize).skip(from) {
                        *c = true;
                    }
                }
            }
            // Branch-free, so it vectorises (see the states' values).
            let row = j * self.nx..(j + 1) * self.nx;
            let crossed = self.starts[row.start..=row.end].windows(2);
            for (((s, w), &inside), &covered) in (self.state[row].iter_mut())
                .zip(crossed)
                .zip(&inside)
                .zip(&covered)
            {
                *s = ((inside & !covered) as u8).max(MIXED * (w[0] != w[1]) as u8);
            }
        }
    }

    #[inline(always)]
    fn cell_of(&self, p: DVec2) -> Option<usize> {
        let f = (p - self.origin) * self.inv;
        (f.cmpge(DVec2::ZERO) & f.cmplt(self.size)).all().then(|| {
            // SAFETY: `f` is in `[0, size)` and the sizes fit a u32 (at most
            // MAX_FIELD_CELLS cells), so the truncations do too.
            let (x, y) = unsafe { (f.x.to_int_unchecked::<u32>(), f.y.to_int_unchecked::<u32>()) };
            y as usize * self.nx + x as usize
        })
    }

    fn edges_in(&self, c: usize) -> impl Iterator<Item = &ConstraintEdge> {
        let ids = &self.edge_ids[self.starts[c] as usize..self.starts[c + 1] as usize];
        ids.iter().map(|&e| &self.edges[e as usize])
    }

    /// Whether streets may start at `p`: free, and (near the edges, tested
    /// exactly) not on or within a micrometre of an edge.
    pub fn is_free(&self, p: DVec2) -> bool {
        match self.cell_of(p) {
            None => false,
            Some(c) => match self.state[c] {
                FREE => true,
                BLOCKED => false,
                _ => {
                    let margin = 1.0e-6 * (1.0 + 1.0e-6 * p.abs().max_element());
                    polygon_contains(&self.polys[0], p)
                        && !self.polys[1..].iter().any(|o| polygon_contains(o, p))
                        && self
                            .edges_in(c)
                            .all(|e| distance_to_segment(p, e.a, e.b) > margin)
                }
            },
        }
    }

    /// What a step `p → q` of at most `pad` from a free point meets: the
    /// first constraint edge it crosses, or (a safety net, for a start on
    /// an edge) ground that is not free.
    #[inline(always)]
    pub fn step(&self, p: DVec2, q: DVec2) -> StepCheck {
        let Some(c) = self.cell_of(q) else {
            return StepCheck::Blocked;
        };
        match self.state[c] {
            FREE => StepCheck::Clear,
            BLOCKED => StepCheck::Blocked,
            _ => self
                .first_hit(p, q, self.edges_in(c))
                .map_or(StepCheck::Clear, StepCheck::Hit),
        }
    }

    #[cold]
    fn first_hit<'a>(
        &'a self,
        p: DVec2,
        q: DVec2,
        edges: impl Iterator<Item = &'a ConstraintEdge>,
    ) -> Option<Hit> {
        let mut best: Option<(f64, Hit)> = None;
        for e in edges {
            if let Some((t, u)) = segment_intersection(p, q, e.a, e.b)
                && best.is_none_or(|b| t < b.0)
            {
                let point = if u == 0.0 {
                    e.a
                } else if u == 1.0 {
                    e.b
                } else {
                    e.a.lerp(e.b, u)
                };
                best = Some((t, Hit { point, edge: *e, u }));
            }
        }
        best.map(|b| b.1)
    }

    /// Whether a segment `p → q` of any length meets a constraint edge
    /// before its very end (a join may end on the boundary).
    pub fn blocks(&self, p: DVec2, q: DVec2) -> bool {
        let cells =
            crate::geom::cells_along_segment(p - self.origin, q - self.origin, self.cell, 0.0);
        cells.into_iter().any(|(x, y)| {
            (0..self.nx as i64).contains(&x)
                && (0..self.ny as i64).contains(&y)
                && self.edges_in(y as usize * self.nx + x as usize).any(|e| {
                    segment_intersection(p, q, e.a, e.b).is_some_and(|(t, _)| t < 1.0 - 1e-9)
                })
        })
    }

    /// The boundary's edges filed within `r` (in each direction) of `p`,
    /// possibly repeated.
    pub fn ring_edges_near(&self, p: DVec2, r: f64) -> Vec<ConstraintEdge> {
        let (lo, hi) = (
            (p - r - self.origin) / self.cell,
            (p + r - self.origin) / self.cell,
        );
        let clamp = |v: f64, n: usize| (v.max(0.0) as usize).min(n - 1);
        let mut out = Vec::new();
        if !(lo.is_finite() && hi.is_finite()) {
            return out;
        }
        for y in clamp(lo.y, self.ny)..=clamp(hi.y, self.ny) {
            for x in clamp(lo.x, self.nx)..=clamp(hi.x, self.nx) {
                out.extend(self.edges_in(y * self.nx + x).filter(|e| e.poly == 0));
            }
        }
        out
    }

    /// The boundary and obstacle rings (boundary first).
    pub fn polys(&self) -> &[Vec<DVec2>] {
        &self.polys
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each cell lists the edges near it once each, in rising order: what
    /// sorting the filings would give.
    #[test]
    fn cells_list_their_edges_as_sorted_filings_would() {
        let ring = |c: DVec2, r: f64, n: usize| -> Vec<DVec2> {
            (0..n)
                .map(|k| {
                    let a = k as f64 / n as f64 * std::f64::consts::TAU;
                    c + DVec2::new(a.cos(), a.sin()) * r * (1.0 + 0.3 * (3.0 * a).sin())
                })
                .collect()
        };
        let boundary = ring(DVec2::splat(100.0), 90.0, 37);
        let obstacles = vec![ring(DVec2::new(90.0, 110.0), 20.0, 11)];
        let (cell, pad) = (4.0, 9.0);
        let region = Region::new(&boundary, &obstacles, cell, pad).unwrap();
        let mut filed: Vec<(u32, u32)> = Vec::new();
        for (e, edge) in region.edges.iter().enumerate() {
            let (a, b) = (edge.a - region.origin, edge.b - region.origin);
            for (x, y) in crate::geom::cells_along_segment(a, b, cell, pad) {
                if (0..region.nx as i64).contains(&x) && (0..region.ny as i64).contains(&y) {
                    filed.push(((y as usize * region.nx + x as usize) as u32, e as u32));
                }
            }
        }
        filed.sort_unstable();
        filed.dedup();
        let (starts, ids) =
            crate::geom::group_by_key(region.nx * region.ny, &filed, |f| f.0 as usize, |f| f.1);
        assert!(ids.len() > 100);
        assert_eq!((region.starts, region.edge_ids), (starts, ids));
    }
}
