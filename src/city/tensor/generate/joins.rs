//! Joining: a level's dangling ends to the nearest line, boundary or
//! fixed road ahead (within the lookahead and the join angle), and highway
//! gates no line passed through to the nearest street.

use super::{Generator, LevelState, Target};
use crate::city::tensor::lines::{Insert, Level, LineEnd, Streamline, insert_points, key};
use crate::city::tensor::trace::Family;
use crate::geom::{closest_on_segment, segment_intersection};
use glam::DVec2;

/// A join found for a dangling end.
#[derive(Clone, Copy, Debug)]
struct Join {
    target: Target,
    at: Insert,
}

impl Generator<'_> {
    /// Joins the level's dangling ends, then puts the junction points into
    /// the lines they land on.
    pub(super) fn join_level(&mut self, st: &LevelState) {
        let mut joins = Vec::new();
        for id in st.first..self.lines.len() {
            for end in 0..2 {
                if matches!(
                    self.lines[id].ends[end],
                    LineEnd::Boundary | LineEnd::Obstacle | LineEnd::Joined
                ) {
                    continue;
                }
                if let Some(j) = self.find_join(st, id, end) {
                    joins.push((id, end, j));
                }
            }
        }
        let mut line_inserts: Vec<Vec<Insert>> = vec![Vec::new(); self.lines.len()];
        let mut extensions: Vec<[Vec<DVec2>; 2]> = vec![[Vec::new(), Vec::new()]; self.lines.len()];
        for &(id, end, j) in &joins {
            let pts = &self.lines[id].points;
            let from = if end == 0 { pts[0] } else { pts[pts.len() - 1] };
            extensions[id][end] = straight(from, j.at.point, st.sp.dstep);
            self.junctions.insert(key(j.at.point));
            match j.target {
                Target::Line(t) => line_inserts[t as usize].push(j.at),
                t => self.poly_inserts.push((t, j.at)),
            }
        }
        for (id, (ins, [head, tail])) in line_inserts.into_iter().zip(extensions).enumerate() {
            if ins.is_empty() && head.is_empty() && tail.is_empty() {
                continue;
            }
            let line = &mut self.lines[id];
            let (pts, map) = insert_points(&line.points, ins);
            let times = &mut self.times_of[id];
            if !times.is_empty() {
                let per = self.params.levels()[line.level as usize].dstep;
                let ends = (head.len(), tail.len());
                *times = retimed(times, &map, pts.len(), ends, per);
            }
            let (s, e) = (line.traced.start, line.traced.end);
            let shift = head.len();
            line.traced = map[s] + shift..map[e - 1] + 1 + shift;
            let mut points: Vec<DVec2> = head.into_iter().rev().collect();
            points.extend(pts);
            if !tail.is_empty() {
                points.extend(tail);
                line.ends[1] = LineEnd::Joined;
            }
            if shift > 0 {
                line.ends[0] = LineEnd::Joined;
            }
            line.points = points;
        }
    }

    /// The nearest point within the lookahead, and within the join angle
    /// of the end's direction, on a line, the boundary or a fixed road.
    fn find_join(&self, st: &LevelState, id: usize, end: usize) -> Option<Join> {
        let pts = &self.lines[id].points;
        let n = pts.len();
        let look = st.sp.dlookahead;
        if n < 2 || look <= 0.0 {
            return None;
        }
        let (e, prev, e_idx) = if end == 0 {
            (pts[0], pts[1], 0)
        } else {
            (pts[n - 1], pts[n - 2], n - 1)
        };
        let dir = (e - prev).normalize_or_zero();
        if dir == DVec2::ZERO {
            return None;
        }
        let mut best: Option<(f64, Join)> = None;
        let mut consider = |a: DVec2, b: DVec2, target: Target, seg: u32| {
            for (d, u, point) in join_points(e, dir, look, st.sp.join_angle, a, b) {
                if best.is_none_or(|b| d < b.0) {
                    best = Some((
                        d,
                        Join {
                            target,
                            at: Insert { seg, u, point },
                        },
                    ));
                }
            }
        };
        // Segments of lines with a point filed near the end.
        let own_window = ((look + 3.0 * st.lim.thr) / st.lim.h).ceil() as i64;
        // By length along the line when its points are not `dstep` apart.
        let arcs: Vec<f64> = if st.by_length {
            let mut sum = 0.0;
            let along = pts.windows(2).map(|w| {
                sum += w[0].distance(w[1]);
                sum
            });
            std::iter::once(0.0).chain(along).collect()
        } else {
            Vec::new()
        };
        let own = |raw: i64| match arcs.get(raw as usize) {
            Some(a) => (a - arcs[e_idx]).abs() < own_window as f64 * st.lim.h,
            None => (raw - e_idx as i64).abs() < own_window,
        };
        let every = st.lim.every as i64;
        // Per filed point, the segments `lo..hi` of its line around it;
        // each segment is considered once, by line then index.
        let mut spans: Vec<(u32, i64, i64)> = Vec::new();
        for store in &st.stores {
            for s in store.near(e, look) {
                let raw = s.idx as i64 + st.offsets[s.line as usize] as i64;
                if s.line as usize == id && own(raw) {
                    continue;
                }
                let len = self.lines[s.line as usize].points.len() as i64;
                let (lo, hi) = ((raw - every).max(0), (raw + every).min(len - 1));
                if lo < hi {
                    spans.push((s.line, lo, hi));
                }
            }
        }
        spans.sort_unstable();
        // The line of the last span and the first segment not yet seen.
        let mut done = (u32::MAX, i64::MIN);
        for (l, lo, hi) in spans {
            let seen = if done.0 == l { done.1 } else { i64::MIN };
            let p = &self.lines[l as usize].points;
            for k in lo.max(seen)..hi {
                consider(p[k as usize], p[k as usize + 1], Target::Line(l), k as u32);
            }
            done = (l, hi.max(seen));
        }
        for edge in self.region.ring_edges_near(e, look) {
            consider(edge.a, edge.b, Target::Poly(0), edge.seg);
        }
        for (k, road) in self.fixed.iter().enumerate() {
            for (i, w) in road.windows(2).enumerate() {
                consider(w[0], w[1], Target::Fixed(k as u32), i as u32);
            }
        }
        let (_, j) = best?;
        (!self.region.blocks(e, j.at.point)).then_some(j)
    }

    /// Links every gate no line passed through to the nearest line or
    /// boundary point within the main lookahead, by a straight main road.
    pub(super) fn link_gates(&mut self) {
        let look = self.params.main.dlookahead;
        for g in 0..self.gates.len() {
            let (gate, done) = self.gates[g];
            if done {
                continue;
            }
            let mut cands: Vec<(f64, Join)> = Vec::new();
            let mut consider = |a: DVec2, b: DVec2, target: Target, seg: u32| {
                let (c, u) = closest_on_segment(gate, a, b);
                let d = c.distance(gate);
                if d <= look {
                    cands.push((
                        d,
                        Join {
                            target,
                            at: Insert { seg, u, point: c },
                        },
                    ));
                }
            };
            for (l, line) in self.lines.iter().enumerate() {
                for (k, w) in line.points.windows(2).enumerate() {
                    consider(w[0], w[1], Target::Line(l as u32), k as u32);
                }
            }
            let ring = &self.region.polys()[0];
            for i in 0..ring.len() {
                consider(
                    ring[i],
                    ring[(i + 1) % ring.len()],
                    Target::Poly(0),
                    i as u32,
                );
            }
            cands.sort_by(|a, b| a.0.total_cmp(&b.0));
            if cands.first().is_some_and(|c| c.0 < 1.0e-9) {
                continue; // on the boundary already
            }
            let Some(&(_, j)) = cands
                .iter()
                .find(|c| !self.region.blocks(gate, c.1.at.point))
            else {
                continue;
            };
            self.junctions.insert(key(j.at.point));
            self.junctions.insert(key(gate));
            match j.target {
                Target::Line(t) => {
                    let line = &mut self.lines[t as usize];
                    let (pts, map) = insert_points(&line.points, vec![j.at]);
                    line.traced = map[line.traced.start]..map[line.traced.end - 1] + 1;
                    line.points = pts;
                }
                t => self.poly_inserts.push((t, j.at)),
            }
            let mut points = vec![gate];
            points.extend(straight(gate, j.at.point, self.params.main.dstep));
            self.lines.push(Streamline {
                points,
                level: Level::Main,
                family: Family::Major,
                traced: 0..0,
                ends: [LineEnd::Joined; 2],
            });
            self.gates[g].1 = true;
        }
    }
}

/// The fixed-step times of a line's points after [`insert_points`] (`old`
/// before, `map` where each old point went, `n` points after) and `ends.0`
/// points put before it and `ends.1` after: as fixed steps count them, an
/// inserted or added point is one step (`per`) after the point before it.
fn retimed(old: &[f64], map: &[usize], n: usize, ends: (usize, usize), per: f64) -> Vec<f64> {
    let mut body = vec![f64::NAN; n];
    for (i, (&m, &t)) in map.iter().zip(old).enumerate() {
        body[m] = t + (m - i) as f64 * per;
    }
    let (head, tail) = ends;
    let mut out: Vec<f64> = (0..head).map(|k| k as f64 * per).collect();
    let mut last = -per;
    for t in body {
        last = if t.is_nan() { last + per } else { t };
        out.push(last + head as f64 * per);
    }
    let end = out.last().copied().unwrap_or(0.0);
    out.extend((1..=tail).map(|k| end + k as f64 * per));
    out
}

/// The points after `from` on the way to `to`, about `step` apart, ending
/// exactly at `to`.
fn straight(from: DVec2, to: DVec2, step: f64) -> Vec<DVec2> {
    let n = (from.distance(to) / step).ceil().clamp(1.0, 1.0e6) as usize;
    let mut out: Vec<DVec2> = (1..n).map(|i| from.lerp(to, i as f64 / n as f64)).collect();
    out.push(to);
    out
}

/// Join points on segment `a–b` for an end at `e` heading `dir`: where the
/// straight continuation meets it, and its nearest point if that lies
/// within `angle` of `dir`; each as `(distance, u, point)` within `look`.
fn join_points(
    e: DVec2,
    dir: DVec2,
    look: f64,
    angle: f64,
    a: DVec2,
    b: DVec2,
) -> impl Iterator<Item = (f64, f64, DVec2)> {
    let on = |u: f64| {
        if u <= 0.0 {
            a
        } else if u >= 1.0 {
            b
        } else {
            a.lerp(b, u)
        }
    };
    let ray = segment_intersection(e, e + dir * look, a, b)
        .filter(|&(t, _)| t > 0.0)
        .map(|(t, u)| (t * look, u, on(u)));
    let (c, u) = closest_on_segment(e, a, b);
    let d = c.distance(e);
    let near =
        (d > 1.0e-9 && d <= look && dir.dot((c - e) / d) >= angle.cos()).then(|| (d, u, on(u)));
    ray.into_iter().chain(near)
}
