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

/// Side of the index cells, metres.
const CELL: f64 = 8.0;

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
    /// Items by cell: lanes as their index, pads as `PAD | index`.
    grid: CellGrid<u32>,
    fill: f64,
    cut: f64,
    run: f64,
}

/// Marks a pad in the grid.
const PAD: u32 = 1 << 31;

impl Default for Earthworks {
    fn default() -> Self {
        Self {
            lanes: Vec::new(),
            pads: Vec::new(),
            grid: CellGrid::from_cells(CELL, &[]),
            fill: 1.5,
            cut: 1.0,
            run: 0.0,
        }
    }
}

impl Earthworks {
    /// The earthworks of `lanes` and `pads`: each side slope that would not
    /// meet the natural ground within `max_slope_run` is held by a wall.
    pub(crate) fn new(
        terrain: &Terrain,
        mut lanes: Vec<Lane>,
        pads: Vec<Pad>,
        p: &EarthworkParams,
    ) -> Self {
        let run = p.max_slope_run;
        // Whether a slope from height `z` at `edge`, running away along
        // `out`, would not meet the natural ground within the run.
        let walled = |edge: DVec2, out: DVec2, z: f64| {
            let far = edge + out * run;
            let t = terrain.height(far.x, far.y);
            t < z - run / p.fill_slope || t > z + run / p.cut_slope
        };
        for l in &mut lanes {
            let m = l.a.lerp(l.b, 0.5);
            let n = (l.b - l.a).perp().normalize_or_zero();
            let z = 0.5 * (l.za + l.zb);
            l.walled = [walled(m + n * l.half, n, z), walled(m - n * l.half, -n, z)];
        }
        let pads: Vec<PadItem> = (pads.into_iter())
            .filter(|pad| pad.polygon.len() >= 3)
            .map(|pad| {
                let v = &pad.polygon;
                let ccw = area2(v) > 0.0;
                let walled = (0..v.len())
                    .map(|i| {
                        let (a, b) = (v[i], v[(i + 1) % v.len()]);
                        let n = (b - a).perp().normalize_or_zero();
                        let out = if ccw { -n } else { n };
                        walled(a.lerp(b, 0.5), out, pad.z)
                    })
                    .collect();
                let (min, max) = crate::geom::bounds(v);
                PadItem {
                    min,
                    max,
                    walled,
                    pad,
                }
            })
            .collect();
        let mut entries: Vec<((i64, i64), u32)> = Vec::new();
        let mut file = |lo: DVec2, hi: DVec2, id: u32| {
            let (x0, y0) = (cell(lo.x), cell(lo.y));
            let (x1, y1) = (cell(hi.x), cell(hi.y));
            for y in y0..=y1 {
                for x in x0..=x1 {
                    entries.push(((x, y), id));
                }
            }
        };
        for (i, l) in lanes.iter().enumerate() {
            let r = DVec2::splat(l.half + run);
            file(l.a.min(l.b) - r, l.a.max(l.b) + r, i as u32);
        }
        for (i, pad) in pads.iter().enumerate() {
            let r = DVec2::splat(run);
            file(pad.min - r, pad.max + r, PAD | i as u32);
        }
        entries.sort_unstable();
        Self {
            grid: CellGrid::from_cells(CELL, &entries),
            lanes,
            pads,
            fill: p.fill_slope,
            cut: p.cut_slope,
            run,
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

/// The index cell of a coordinate.
fn cell(v: f64) -> i64 {
    crate::num::floor_i64(v / CELL)
}

/// Twice the signed area of a polygon.
fn area2(v: &[DVec2]) -> f64 {
    (0..v.len())
        .map(|i| v[i].perp_dot(v[(i + 1) % v.len()]))
        .sum()
}

impl Relief for Earthworks {
    fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
        let items = self.grid.get(self.grid.cell_of(p));
        if items.is_empty() {
            return None;
        }
        // The nearest carriageway, whether p is on the road proper (not its
        // shoulder: a pad keeps its level there), and the pad p is on.
        let (mut lane, mut pad) = (None::<(f64, f64, bool)>, None::<&Pad>);
        let (mut floor, mut ceiling) = (f64::NEG_INFINITY, f64::INFINITY);
        for &id in items {
            if id & PAD == 0 {
                let l = &self.lanes[id as usize];
                let (z, d) = l.at(p);
                if d <= l.half {
                    if lane.is_none_or(|(best, _, _)| d < best) {
                        lane = Some((d, z, d <= l.road));
                    }
                    continue;
                }
                let run = d - l.half;
                if run > self.run || l.walled[usize::from(l.right(p))] {
                    continue;
                }
                floor = floor.max(z - run / self.fill);
                ceiling = ceiling.min(z + run / self.cut);
            } else {
                let item = &self.pads[(id & !PAD) as usize];
                if pad.is_none() && item.contains(p) {
                    pad = Some(&item.pad);
                    continue;
                }
                let run = item.slope_distance(p);
                if run > self.run {
                    continue;
                }
                floor = floor.max(item.pad.z - run / self.fill);
                ceiling = ceiling.min(item.pad.z + run / self.cut);
            }
        }
        // A building stands level even where a road's edge runs under it.
        let under_building = |pad: &Pad| pad.building.as_ref().is_some_and(|b| inside(b, p));
        match (lane, pad) {
            (Some((_, z, true)), Some(pad)) if !under_building(pad) => {
                return Some(Built {
                    height: z,
                    kind: BuiltKind::Carriageway,
                });
            }
            (Some((_, z, true)), None) | (Some((_, z, false)), None) => {
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
