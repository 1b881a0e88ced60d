//! [`Earthworks`]: the built ground near roads and towns, as a
//! [`Relief`] laid on the terrain. Where a point lies on a carriageway (the
//! road's width plus shoulders) its height is the road's profile there, flat
//! across; on a town's lot, its pad's height; elsewhere within reach, side
//! slopes run from every carriageway and pad (fill down at `1 : fill_slope`,
//! cut up at `1 : cut_slope`) and the ground is the natural ground held
//! between them: raised to the highest fill, lowered to the lowest cut.
//! Where a slope would run further than `max_slope_run`, a retaining wall
//! at the carriageway's or pad's edge holds it instead.

use super::EarthworkParams;
use super::terraces::Pad;
use crate::geom::{CellGrid, closest_on_segment, distance_to_segment};
use crate::terrain::{Built, BuiltKind, Relief, Terrain};
use glam::DVec2;

/// Side of the index cells of slopes, metres.
const CELL: f64 = 8.0;

/// Side of the index cells of what covers the ground, metres.
const ON: f64 = 4.0;

/// A piece of carriageway: a segment of a road's centre line with its
/// heights at the ends and its half-width (shoulders included).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lane {
    pub a: DVec2,
    pub b: DVec2,
    pub za: f64,
    pub zb: f64,
    /// Half the road's width.
    pub road: f64,
    /// Half the road's width, shoulders included.
    pub half: f64,
    /// Whether a wall holds each side (left, right of `a → b`) instead of a
    /// slope.
    pub walled: [bool; 2],
    /// How far each side's slope runs across from the shoulder to its toe
    /// (where it meets the natural ground), metres; 0 where walled.
    pub toe: [f64; 2],
}

impl Lane {
    /// The height at the point of the centre line nearest `p`, and the
    /// distance to it.
    #[inline]
    fn at(&self, p: DVec2) -> (f64, f64) {
        let (q, t) = closest_on_segment(p, self.a, self.b);
        (self.za + t * (self.zb - self.za), p.distance(q))
    }

    /// Whether `p` is on the right of `a → b`.
    #[inline]
    fn right(&self, p: DVec2) -> bool {
        (self.b - self.a).perp_dot(p - self.a) < 0.0
    }
}

/// A pad with its bounding box and whether a wall holds each edge.
#[derive(Clone, Debug)]
struct PadItem {
    pad: Pad,
    min: DVec2,
    max: DVec2,
    walled: Vec<bool>,
    /// The longest run of its slopes to their toes.
    toe: f64,
}

/// Whether `p` is inside polygon `v` (crossing number).
#[inline]
fn inside(v: &[DVec2], p: DVec2) -> bool {
    let mut inside = false;
    let mut j = v.len() - 1;
    for i in 0..v.len() {
        let (a, b) = (v[i], v[j]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            inside = !inside;
        }
        j = i;
    }
    inside
}

impl PadItem {
    /// Whether `p` is inside.
    #[inline]
    fn contains(&self, p: DVec2) -> bool {
        !(p.cmplt(self.min).any() || p.cmpgt(self.max).any()) && inside(&self.pad.polygon, p)
    }

    /// The distance from `p` (outside) to the nearest edge not held by a
    /// wall.
    #[inline]
    fn slope_distance(&self, p: DVec2) -> f64 {
        let v = &self.pad.polygon;
        let mut d = f64::INFINITY;
        for i in 0..v.len() {
            if !self.walled[i] {
                d = d.min(distance_to_segment(p, v[i], v[(i + 1) % v.len()]));
            }
        }
        d
    }
}

/// The earthworks of a region: what shapes the ground near its roads and
/// towns (a [`Relief`]; see the module docs).
#[derive(Debug)]
pub struct Earthworks {
    lanes: Vec<Lane>,
    pads: Vec<PadItem>,
    /// Items whose slopes reach each cell: lanes as their index, pads as
    /// `PAD | index`.
    grid: CellGrid<u32>,
    /// Items that cover part of each cell (carriageways with shoulders,
    /// pads).
    on: CellGrid<u32>,
    /// Per town, the small cells that lie wholly on one pad, clear of every
    /// carriageway: their height is that pad's.
    level: Vec<Level>,
    fill: f64,
    cut: f64,
}

/// Marks a pad in the grid.
const PAD: u32 = 1 << 31;

/// Side of a [`Level`] cell, metres.
const LEVEL: f64 = 4.0;

/// A dense grid over one town's pads: per cell, the pad it lies wholly on
/// (clear of carriageways), or `u32::MAX`.
#[derive(Debug)]
struct Level {
    lo: (i64, i64),
    w: usize,
    h: usize,
    pad: Vec<u32>,
}

impl Level {
    #[inline]
    fn get(&self, p: DVec2) -> Option<u32> {
        let x = crate::num::floor_i64(p.x / LEVEL) - self.lo.0;
        let y = crate::num::floor_i64(p.y / LEVEL) - self.lo.1;
        if x < 0 || y < 0 || x as usize >= self.w || y as usize >= self.h {
            return None;
        }
        let v = self.pad[y as usize * self.w + x as usize];
        (v != u32::MAX).then_some(v)
    }

    /// The level cells of `pads` (`first` is the index of the first), with
    /// those within reach of a carriageway cleared.
    fn new(pads: &[PadItem], first: usize, lanes: &[Lane]) -> Option<Self> {
        let (mut lo, mut hi) = (DVec2::splat(f64::MAX), DVec2::splat(f64::MIN));
        for p in pads {
            (lo, hi) = (lo.min(p.min), hi.max(p.max));
        }
        let c = |v: f64| crate::num::floor_i64(v / LEVEL);
        let (x0, y0, x1, y1) = (c(lo.x), c(lo.y), c(hi.x), c(hi.y));
        let (w, h) = ((x1 - x0 + 1) as usize, (y1 - y0 + 1) as usize);
        // Bounded: a town is a few km across.
        if pads.is_empty() || w.checked_mul(h).is_none_or(|n| n > 8 << 20) {
            return None;
        }
        let mut level = Self {
            lo: (x0, y0),
            w,
            h,
            pad: vec![u32::MAX; w * h],
        };
        for (k, item) in pads.iter().enumerate() {
            let v = &item.pad.polygon;
            for y in c(item.min.y)..=c(item.max.y) {
                for x in c(item.min.x)..=c(item.max.x) {
                    let a = DVec2::new(x as f64, y as f64) * LEVEL;
                    let b = a + DVec2::splat(LEVEL);
                    let corners = [a, DVec2::new(b.x, a.y), b, DVec2::new(a.x, b.y)];
                    let within = corners.iter().all(|&q| inside(v, q))
                        && !v.iter().any(|q| q.cmpgt(a).all() && q.cmplt(b).all());
                    if within {
                        let i = (y - y0) as usize * w + (x - x0) as usize;
                        level.pad[i] = (first + k) as u32;
                    }
                }
            }
        }
        let half_diag = LEVEL * std::f64::consts::FRAC_1_SQRT_2;
        for l in lanes {
            let r = DVec2::splat(l.half + LEVEL);
            let (a, b) = (l.a.min(l.b) - r, l.a.max(l.b) + r);
            if a.cmpgt(hi).any() || b.cmplt(lo).any() {
                continue;
            }
            for y in c(a.y).max(y0)..=c(b.y).min(y1) {
                for x in c(a.x).max(x0)..=c(b.x).min(x1) {
                    let centre = (DVec2::new(x as f64, y as f64) + 0.5) * LEVEL;
                    if distance_to_segment(centre, l.a, l.b) <= l.half + half_diag {
                        level.pad[(y - y0) as usize * w + (x - x0) as usize] = u32::MAX;
                    }
                }
            }
        }
        Some(level)
    }
}

impl Default for Earthworks {
    fn default() -> Self {
        Self {
            lanes: Vec::new(),
            pads: Vec::new(),
            grid: CellGrid::from_cells(CELL, &[]),
            on: CellGrid::from_cells(ON, &[]),
            level: Vec::new(),
            fill: 1.5,
            cut: 1.0,
        }
    }
}

impl Earthworks {
    /// The earthworks of `lanes` and `pads`: each side slope runs to its
    /// toe, where it first meets the natural ground, and one that would not
    /// meet it within `max_slope_run` is held by a wall.
    pub(crate) fn new(
        terrain: &Terrain,
        mut lanes: Vec<Lane>,
        towns: Vec<Vec<Pad>>,
        p: &EarthworkParams,
    ) -> Self {
        let sizes: Vec<usize> = towns.iter().map(|t| t.len()).collect();
        let pads: Vec<Pad> = towns.into_iter().flatten().collect();
        let run = p.max_slope_run;
        // The run from `edge` (height `z`), going `out`, to the toe, sampled
        // every 2 m; `None` past `max_slope_run`.
        let toe = |edge: DVec2, out: DVec2, z: f64| -> Option<f64> {
            let mut d = 0.0;
            loop {
                let q = edge + out * d;
                let t = terrain.height(q.x, q.y);
                if t >= z - d / p.fill_slope && t <= z + d / p.cut_slope {
                    return Some(d);
                }
                if d >= run {
                    return None;
                }
                d = (d + 2.0).min(run);
            }
        };
        for l in &mut lanes {
            let n = (l.b - l.a).perp().normalize_or_zero();
            for (side, out) in [(0, n), (1, -n)] {
                // The farthest toe of three sections, and a sample's margin.
                let toes = [
                    (l.a, l.za),
                    (l.a.lerp(l.b, 0.5), 0.5 * (l.za + l.zb)),
                    (l.b, l.zb),
                ]
                .map(|(c, z)| toe(c + out * l.half, out, z));
                match toes.iter().try_fold(0.0f64, |m, t| t.map(|t| m.max(t))) {
                    Some(t) => l.toe[side] = (t + 2.0).min(run),
                    None => (l.walled[side], l.toe[side]) = (true, 0.0),
                }
            }
        }
        // Each pad edge's run to its toe (0 where walled).
        let mut edge_toes: Vec<Vec<f64>> = Vec::with_capacity(pads.len());
        let mut pads: Vec<PadItem> = (pads.into_iter())
            .map(|pad| {
                let v = &pad.polygon;
                let toes: Vec<f64> = (0..v.len())
                    .map(|i| {
                        let (a, b, out) = edge(v, i);
                        let toes = [a, a.lerp(b, 0.5), b].map(|c| toe(c, out, pad.z));
                        (toes.iter())
                            .try_fold(0.0f64, |m, t| t.map(|t| m.max(t)))
                            .map_or(0.0, |t| (t + 2.0).min(run))
                    })
                    .collect();
                let walled = toes.iter().map(|&t| t == 0.0).collect();
                edge_toes.push(toes);
                let (min, max) = crate::geom::bounds(v);
                PadItem {
                    min,
                    max,
                    walled,
                    toe: 0.0,
                    pad,
                }
            })
            .collect();
        let file = |entries: &mut Vec<((i64, i64), u32)>, lo: DVec2, hi: DVec2, id: u32| {
            let (x0, y0) = (cell(lo.x, CELL), cell(lo.y, CELL));
            let (x1, y1) = (cell(hi.x, CELL), cell(hi.y, CELL));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    entries.push(((x, y), id));
                }
            }
        };
        // What covers each cell: carriageways and pads (finer cells).
        let mut entries = Vec::new();
        let mut file_on = |lo: DVec2, hi: DVec2, id: u32| {
            for y in cell(lo.y, ON)..=cell(hi.y, ON) {
                for x in cell(lo.x, ON)..=cell(hi.x, ON) {
                    entries.push(((x, y), id));
                }
            }
        };
        for (i, l) in lanes.iter().enumerate() {
            let (lo, hi) = (l.a.min(l.b), l.a.max(l.b));
            file_on(lo - l.half, hi + l.half, i as u32);
        }
        for (i, pad) in pads.iter().enumerate() {
            file_on(pad.min, pad.max, PAD | i as u32);
        }
        let on = CellGrid::from_cells(ON, &entries);
        // A slope ends where another carriageway or pad covers the ground
        // (which wins there), a metre on.
        let covered = |q: DVec2, own: u32| {
            on.get(on.cell_of(q)).iter().any(|&id| {
                id != own
                    && if id & PAD == 0 {
                        let l = &lanes[id as usize];
                        l.at(q).1 <= l.half
                    } else {
                        pads[(id & !PAD) as usize].contains(q)
                    }
            })
        };
        let reach = |from: DVec2, out: DVec2, own: u32, toe: f64| {
            (([0.5, 1.0, 2.0, 4.0, 8.0, 16.0].into_iter())
                .take_while(|&d| d < toe)
                .find(|&d| covered(from + out * d, own)))
            .map_or(toe, |d| (d + 1.0).min(toe))
        };
        let lane_caps: Vec<[f64; 2]> = (lanes.iter().enumerate())
            .map(|(i, l)| {
                let (m, n) = (l.a.lerp(l.b, 0.5), (l.b - l.a).perp().normalize_or_zero());
                [(0, n), (1, -n)]
                    .map(|(side, out)| reach(m + out * l.half, out, i as u32, l.toe[side]))
            })
            .collect();
        let pad_toes: Vec<f64> = (pads.iter().enumerate())
            .map(|(i, item)| {
                let v = &item.pad.polygon;
                (0..v.len())
                    .map(|e| {
                        let (a, b, out) = edge(v, e);
                        reach(a.lerp(b, 0.5), out, PAD | i as u32, edge_toes[i][e])
                    })
                    .fold(0.0, f64::max)
            })
            .collect();
        for (l, cap) in lanes.iter_mut().zip(lane_caps) {
            l.toe = cap;
        }
        for (pad, toe) in pads.iter_mut().zip(pad_toes) {
            pad.toe = toe;
        }
        let mut slopes = Vec::new();
        for (i, l) in lanes.iter().enumerate() {
            let (lo, hi) = (l.a.min(l.b), l.a.max(l.b));
            let r = DVec2::splat(l.half + l.toe[0].max(l.toe[1]));
            file(&mut slopes, lo - r, hi + r, i as u32);
        }
        for (i, pad) in pads.iter().enumerate() {
            let r = DVec2::splat(pad.toe);
            file(&mut slopes, pad.min - r, pad.max + r, PAD | i as u32);
        }
        let mut level = Vec::new();
        let mut first = 0;
        for n in sizes {
            level.extend(Level::new(&pads[first..first + n], first, &lanes));
            first += n;
        }
        Self {
            grid: CellGrid::from_cells(CELL, &slopes),
            on,
            level,
            lanes,
            pads,
            fill: p.fill_slope,
            cut: p.cut_slope,
        }
    }

    /// The carriageway pieces.
    pub(crate) fn lanes(&self) -> &[Lane] {
        &self.lanes
    }

    /// The pads and, per edge, whether a wall holds it.
    pub(crate) fn pads(&self) -> impl Iterator<Item = (&Pad, &[bool])> {
        self.pads.iter().map(|p| (&p.pad, p.walled.as_slice()))
    }
}

/// The index cell of a coordinate, for cells of side `side`.
fn cell(v: f64, side: f64) -> i64 {
    crate::num::floor_i64(v / side)
}

/// Edge `i` of polygon `v` (from vertex `i` to the next) and its outward
/// normal.
fn edge(v: &[DVec2], i: usize) -> (DVec2, DVec2, DVec2) {
    let (a, b) = (v[i], v[(i + 1) % v.len()]);
    let n = (b - a).perp().normalize_or_zero();
    (a, b, if area2(v) > 0.0 { -n } else { n })
}

/// Twice the signed area of a polygon.
fn area2(v: &[DVec2]) -> f64 {
    (0..v.len())
        .map(|i| v[i].perp_dot(v[(i + 1) % v.len()]))
        .sum()
}

impl Relief for Earthworks {
    fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
        for level in &self.level {
            if let Some(k) = level.get(p) {
                return Some(Built {
                    height: self.pads[k as usize].pad.z,
                    kind: BuiltKind::Pad,
                });
            }
        }
        let items = self.grid.get(self.grid.cell_of(p));
        if items.is_empty() {
            return None;
        }
        // First what p stands on: the nearest carriageway (and whether p is
        // on the road proper, not its shoulder: a pad keeps its level
        // there), and the pad p is on.
        let (mut lane, mut pad) = (None::<(f64, f64, bool)>, None::<&Pad>);
        // A building stands level even where a road's edge runs under it.
        let under_building = |pad: &Pad| pad.building.as_ref().is_some_and(|b| inside(b, p));
        for &id in self.on.get(self.on.cell_of(p)) {
            if id & PAD == 0 {
                let l = &self.lanes[id as usize];
                let r = DVec2::splat(l.half);
                if p.cmplt(l.a.min(l.b) - r).any() || p.cmpgt(l.a.max(l.b) + r).any() {
                    continue;
                }
                let (z, d) = l.at(p);
                if d <= l.half && lane.is_none_or(|(best, _, _)| d < best) {
                    lane = Some((d, z, d <= l.road));
                }
            } else {
                // Where lots overlap, the one whose building p is under.
                let item = &self.pads[(id & !PAD) as usize];
                if pad.is_none_or(|q| !under_building(q))
                    && item.contains(p)
                    && (pad.is_none() || under_building(&item.pad))
                {
                    pad = Some(&item.pad);
                }
            }
        }
        match (lane, pad) {
            (Some((_, z, true)), Some(pad)) if !under_building(pad) => {
                return Some(Built {
                    height: z,
                    kind: BuiltKind::Carriageway,
                });
            }
            (Some((_, z, _)), None) => {
                return Some(Built {
                    height: z,
                    kind: BuiltKind::Carriageway,
                });
            }
            (_, Some(pad)) => {
                return Some(Built {
                    height: pad.z,
                    kind: BuiltKind::Pad,
                });
            }
            (None, None) => {}
        }
        // Then the side slopes that reach p.
        let (mut floor, mut ceiling) = (f64::NEG_INFINITY, f64::INFINITY);
        for &id in items {
            let (z, run) = if id & PAD == 0 {
                let l = &self.lanes[id as usize];
                let r = DVec2::splat(l.half + l.toe[0].max(l.toe[1]));
                if p.cmplt(l.a.min(l.b) - r).any() || p.cmpgt(l.a.max(l.b) + r).any() {
                    continue;
                }
                let (z, d) = l.at(p);
                let run = d - l.half;
                if run > l.toe[usize::from(l.right(p))] {
                    continue;
                }
                (z, run)
            } else {
                let item = &self.pads[(id & !PAD) as usize];
                let r = DVec2::splat(item.toe);
                if p.cmplt(item.min - r).any() || p.cmpgt(item.max + r).any() {
                    continue;
                }
                let run = item.slope_distance(p);
                if run > item.toe {
                    continue;
                }
                (item.pad.z, run)
            };
            floor = floor.max(z - run / self.fill);
            ceiling = ceiling.min(z + run / self.cut);
        }
        if natural < floor {
            Some(Built {
                height: floor.min(ceiling),
                kind: BuiltKind::Fill,
            })
        } else if natural > ceiling {
            Some(Built {
                height: ceiling,
                kind: BuiltKind::Cut,
            })
        } else {
            None
        }
    }

    fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
        let mut any = false;
        self.grid.for_each_in_box(min, max, |_| any = true);
        any
    }
}
