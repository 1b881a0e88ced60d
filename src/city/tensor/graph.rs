//! From traced lines to [`Streets`]: each line simplified (Douglas–Peucker,
//! junction points kept), then every polyline — boundary, obstacles, fixed
//! roads, streets — noded: a node wherever two of them touch or cross, so
//! the [`PlanarGraph`] and the network are planar.

use super::lines::{Level, PointHash, Streamline, TracedStreets, key};
use crate::city::polygon::signed_area;
use crate::city::{EdgeRole, Streets};
use crate::geom::{
    CellGrid, Contact, PlanarGraph, cells_along_segment_into, contact_point, distance_to_segment,
    segment_contact,
};
use glam::DVec2;
use std::collections::HashMap;

/// Most side of the cells used to find touching segments (and of the
/// graph's index); it is twice the finest `dsep` where that is less, so a
/// cell holds about as many segments however dense the streets.
pub(crate) const NODE_CELL: f64 = 40.0;
/// Least side of those cells.
pub(crate) const MIN_NODE_CELL: f64 = 1.0;
/// Noding passes before offending edges are dropped (a pass only fails on
/// rounding at near-coincident crossings).
const MAX_NODING_PASSES: usize = 3;
/// A crossing point this close (relative to its magnitude) to a third
/// segment triggers the full planarity check.
const NEAR: f64 = 1.0e-9;
/// Most edges dropped after the noding passes.
const MAX_DROPPED_EDGES: usize = 64;

/// Blocks of at most this area (m²) are dropped: slivers of rounding, not
/// places for lots.
pub const MIN_BLOCK_AREA: f64 = 1.0e-3;

/// Words of the junction filter of [`TracedStreets::simplified`].
const FILTER_WORDS: usize = 1 << 12;

/// A point key's bit in the junction filter.
#[inline]
fn filter_bit(k: (u64, u64)) -> usize {
    let h = (k.0 ^ k.1.rotate_left(29)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (h >> 46) as usize
}

/// `points` simplified to within `tol`, keeping the ends and every point
/// for which `keep` holds.
pub(crate) fn simplify(points: &[DVec2], tol: f64, keep: impl Fn(DVec2) -> bool) -> Vec<DVec2> {
    let n = points.len();
    if n <= 2 || tol <= 0.0 {
        return points.to_vec();
    }
    let kept = crate::geom::douglas_peucker(
        n,
        |i| keep(points[i]),
        |a, b| {
            let (pa, pb) = (points[a], points[b]);
            let ab = pb - pa;
            let len2 = ab.length_squared();
            let scale = if len2 > 0.0 { len2.sqrt() } else { 1.0 };
            // Distance from the chord, times its length (no division).
            let mut worst = (tol * scale, None);
            for (k, &p) in (a + 1..).zip(&points[a + 1..b]) {
                let ap = p - pa;
                let t = ap.dot(ab);
                let d = if t <= 0.0 || len2 == 0.0 {
                    ap.length() * scale
                } else if t >= len2 {
                    (p - pb).length() * scale
                } else {
                    ap.perp_dot(ab).abs()
                };
                if d > worst.0 {
                    worst = (d, Some(k));
                }
            }
            worst.1
        },
    );
    let count = kept.iter().filter(|k| **k).count();
    let mut out = Vec::with_capacity(count);
    out.extend(
        (points.iter().zip(&kept))
            .filter(|(_, k)| **k)
            .map(|(p, _)| *p),
    );
    out
}

impl TracedStreets {
    /// The lines of each level simplified with its tolerance (junctions
    /// kept), with their level.
    pub fn simplified(&self) -> Vec<(Vec<DVec2>, Level)> {
        // Most points are no junction: a bit per hash rules them out
        // before the set is asked.
        let mut bits = vec![0u64; FILTER_WORDS];
        for &k in &self.junctions {
            let b = filter_bit(k);
            bits[b / 64] |= 1 << (b % 64);
        }
        let maybe = |p: DVec2| {
            let b = filter_bit(key(p));
            bits[b / 64] & (1 << (b % 64)) != 0
        };
        let simplified = |lines: &[Streamline]| -> Vec<(Vec<DVec2>, Level)> {
            (lines.iter())
                .map(|l| {
                    let tol = self.tolerance[l.level as usize];
                    let keep = |p: DVec2| maybe(p) && self.is_junction(p);
                    (simplify(&l.points, tol, keep), l.level)
                })
                .collect()
        };
        // Half the lines on a second thread.
        let (a, b) = self.lines.split_at(self.lines.len() / 2);
        let points: usize = self.lines.iter().map(|l| l.points.len()).sum();
        let worth = points >= super::MIN_PARALLEL_WORK;
        let (mut a, b) = super::both(worth, || simplified(a), || simplified(b));
        a.extend(b);
        a
    }

    /// The planar street graph: boundary ([`EdgeRole::Ring`]), obstacles,
    /// fixed roads and simplified lines (`Main`, `Street(0)`, `Street(1)`),
    /// noded at every contact. Streets that reach neither the ring nor a
    /// fixed road nor an obstacle (dead ends joined to nothing, which would
    /// make faces of no area or blocks inside blocks) are left out.
    pub fn graph(&self) -> PlanarGraph {
        drop_unreached(self.noded())
    }

    /// [`graph`](Self::graph) with every street.
    fn noded(&self) -> PlanarGraph {
        let closed = |ring: &[DVec2]| {
            let mut r = ring.to_vec();
            r.extend(ring.first());
            r
        };
        let mut polys: Vec<(Vec<DVec2>, u32)> =
            vec![(closed(&self.boundary), EdgeRole::Ring.label())];
        polys.extend((self.obstacles.iter()).map(|o| (closed(o), EdgeRole::Obstacle.label())));
        polys.extend((self.fixed.iter()).map(|f| (f.clone(), EdgeRole::Fixed.label())));
        polys.extend(
            (self.simplified().into_iter()).map(|(pts, level)| (pts, level.role().label())),
        );
        let (mut graph, mut close) = node(&polys, self.node_cell);
        for _ in 1..MAX_NODING_PASSES {
            if !close || graph.check_planar().is_ok() {
                return graph;
            }
            let edges: Vec<(Vec<DVec2>, u32)> = (graph.edges().iter())
                .map(|e| (vec![graph.pos(e.ends[0]), graph.pos(e.ends[1])], e.label))
                .collect();
            (graph, close) = node(&edges, self.node_cell);
        }
        // Still touching after the passes: drop generated edges until planar.
        for _ in 0..MAX_DROPPED_EDGES {
            let Err((a, b)) = graph.check_planar() else {
                break;
            };
            let given = |e: u32| EdgeRole::from_label(graph.edges()[e as usize].label).is_given();
            let dropped = graph.edges()[if given(b) { a } else { b } as usize];
            graph = graph.retain_edges(|e| *e != dropped);
        }
        graph
    }

    /// The streets: the planar graph's network (main roads as
    /// [`RoadClass::Road`](crate::network::RoadClass::Road), streets as
    /// [`RoadClass::Street`](crate::network::RoadClass::Street)) and its blocks
    /// (each of more than [`MIN_BLOCK_AREA`]).
    pub fn to_streets(&self) -> Streets {
        let mut s = Streets::from_owned_graph(
            self.graph(),
            self.obstacles.clone(),
            EdgeRole::default_style,
        );
        if s.blocks.iter().any(|b| signed_area(b) <= MIN_BLOCK_AREA) {
            let (blocks, widths) = std::mem::take(&mut s.blocks)
                .into_iter()
                .zip(std::mem::take(&mut s.block_widths))
                .filter(|(b, _)| signed_area(b) > MIN_BLOCK_AREA)
                .unzip();
            (s.blocks, s.block_widths) = (blocks, widths);
        }
        s
    }
}

/// `graph` without the connected parts made of generated streets alone
/// (no ring, fixed road or obstacle edge); rebuilt only if there are any.
fn drop_unreached(graph: PlanarGraph) -> PlanarGraph {
    let parts = graph.components();
    let mut reached = vec![false; graph.node_count()];
    for e in graph.edges() {
        if EdgeRole::from_label(e.label).is_given() {
            reached[parts[e.ends[0] as usize] as usize] = true;
        }
    }
    let keep = |e: &crate::geom::Edge| reached[parts[e.ends[0] as usize] as usize];
    if graph.edges().iter().all(keep) {
        return graph;
    }
    graph.retain_edges(keep)
}

/// A graph of `polys` (points, label) with a node at every point where two
/// segments touch: shared vertices, crossings, ends on other segments and
/// the ends of collinear overlaps; and whether a computed crossing point
/// lies so close to a third segment that rounding may have made the graph
/// non-planar (otherwise it is planar by construction).
fn node(polys: &[(Vec<DVec2>, u32)], cell: f64) -> (PlanarGraph, bool) {
    // Segments and the cells they pass.
    let mut segs: Vec<(DVec2, DVec2, u32)> = Vec::new();
    for (pts, label) in polys {
        for w in pts.windows(2) {
            if w[0] != w[1] && w[0].is_finite() && w[1].is_finite() {
                segs.push((w[0], w[1], *label));
            }
        }
    }
    let mut filed: Vec<((i64, i64), u32)> = Vec::new();
    let mut cells = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        cells_along_segment_into(s.0, s.1, cell, 0.0, &mut cells);
        filed.extend(cells.iter().map(|&c| (c, i as u32)));
    }
    // Each cell's segments ascend (filed in order), so pairs come as (low, high).
    let grid = CellGrid::from_cells(cell, &filed);
    drop(filed);
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    for run in grid.groups() {
        for (k, &a) in run.iter().enumerate() {
            for &b in &run[k + 1..] {
                let (s, t) = (&segs[a as usize], &segs[b as usize]);
                if s.0.min(s.1).cmple(t.0.max(t.1)).all() && t.0.min(t.1).cmple(s.0.max(s.1)).all()
                {
                    pairs.push((a, b));
                }
            }
        }
    }
    sort_pairs(&mut pairs, segs.len());
    let mut crossings: Vec<(DVec2, u32, u32)> = Vec::new();
    // Split points per segment, as (parameter, point).
    let mut splits: Vec<Vec<(f64, DVec2)>> = vec![Vec::new(); segs.len()];
    for (i, j) in pairs {
        let ((a0, a1, _), (b0, b1, _)) = (segs[i as usize], segs[j as usize]);
        match segment_contact(a0, a1, b0, b1) {
            None => {}
            Some(Contact::Point { t, u }) => {
                let p = contact_point(t, u, a0, a1, b0, b1);
                if ![0.0, 1.0].contains(&t) && ![0.0, 1.0].contains(&u) {
                    crossings.push((p, i, j));
                }
                splits[i as usize].push((t, p));
                splits[j as usize].push((u, p));
            }
            Some(Contact::Overlap { .. }) => {
                // Each segment is split at the other's ends inside it.
                for (s, (p0, p1), (q0, q1)) in [(i, (a0, a1), (b0, b1)), (j, (b0, b1), (a0, a1))] {
                    for q in [q0, q1] {
                        let t = (q - p0).dot(p1 - p0) / p1.distance_squared(p0);
                        if t > 0.0 && t < 1.0 {
                            splits[s as usize].push((t, q));
                        }
                    }
                }
            }
        }
    }
    // A crossing point within rounding of a third segment may break planarity.
    let close = crossings.iter().any(|&(p, i, j)| {
        cells_along_segment_into(p, p, cell, 0.0, &mut cells);
        cells.iter().any(|&c| {
            grid.get(c).iter().any(|&f| {
                let (a, b, _) = segs[f as usize];
                f != i
                    && f != j
                    && distance_to_segment(p, a, b) < NEAR * (1.0 + p.abs().max_element())
            })
        })
    });
    let mut graph = PlanarGraph::new(cell);
    let mut ids: HashMap<(u64, u64), u32, PointHash> = HashMap::default();
    let mut node_at = |g: &mut PlanarGraph, p: DVec2| {
        *ids.entry(key(p))
            .or_insert_with(|| g.add_node(p + DVec2::ZERO))
    };
    for (s, (a, b, label)) in segs.iter().enumerate() {
        let mut cuts = std::mem::take(&mut splits[s]);
        cuts.push((0.0, *a));
        cuts.push((1.0, *b));
        cuts.sort_by(|x, y| x.0.total_cmp(&y.0));
        let mut prev = node_at(&mut graph, cuts[0].1);
        for &(_, p) in &cuts[1..] {
            let n = node_at(&mut graph, p);
            graph.add_edge(prev, n, *label);
            prev = n;
        }
    }
    (graph, close)
}

/// Sorts `pairs` (both ids below `n`) and drops repeats, as `sort_unstable`
/// and `dedup` would: a counting sort by the first id, then each (small)
/// bucket by the second.
fn sort_pairs(pairs: &mut Vec<(u32, u32)>, n: usize) {
    let (starts, mut second) = crate::geom::group_by_key(n, pairs, |p| p.0 as usize, |p| p.1);
    pairs.clear();
    for (i, w) in starts.windows(2).enumerate() {
        let bucket = &mut second[w[0] as usize..w[1] as usize];
        bucket.sort_unstable();
        let mut last = None;
        for &j in bucket.iter() {
            if last != Some(j) {
                pairs.push((i as u32, j));
                last = Some(j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{node, sort_pairs};
    use glam::DVec2;

    #[test]
    fn sort_pairs_sorts_and_dedups_like_sort_unstable() {
        let mut pairs: Vec<(u32, u32)> = (0..900u32).map(|k| (k * 7 % 23, k * 13 % 31)).collect();
        let mut want = pairs.clone();
        want.sort_unstable();
        want.dedup();
        sort_pairs(&mut pairs, 23);
        assert_eq!(pairs, want);
    }

    #[test]
    fn segments_far_apart_are_noded_in_a_small_grid() {
        let v = DVec2::new;
        let polys = [
            (vec![v(0.0, 0.0), v(10.0, 10.0)], 1),
            (vec![v(0.0, 10.0), v(10.0, 0.0)], 1),
            (vec![v(1.0e17, 1.0e17), v(1.0e17 + 64.0, 1.0e17)], 2),
            (vec![v(-1.0e17, 5.0), v(-1.0e17, 69.0)], 2),
        ];
        let (graph, close) = node(&polys, 1.0);
        assert!(!close);
        assert_eq!((graph.node_count(), graph.edge_count()), (9, 6));
        assert_eq!(graph.nodes_within(v(5.0, 5.0), 1e-9).len(), 1);
    }
}
