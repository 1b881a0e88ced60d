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
pub(crate) use super::pieces::Lane;
use super::pieces::{CELL, INDEX, Level, ON, PAD, PadItem, cover_index, edge, inside, slope_index};
use super::terraces::Pad;
use crate::geom::CellGrid;
use crate::terrain::{Built, BuiltKind, Relief, Terrain};
use glam::DVec2;

/// The earthworks of a region: what shapes the ground near its roads and
/// towns (a [`Relief`]; see the module docs).
#[derive(Debug)]
pub struct Earthworks {
    pub(super) lanes: Vec<Lane>,
    pub(super) pads: Vec<PadItem>,
    /// Items whose slopes may reach each cell ([`slope_index`]).
    pub(super) grid: CellGrid<u32>,
    /// Items that may cover part of each cell ([`cover_index`]).
    pub(super) on: CellGrid<u32>,
    /// Per town, the small cells that lie wholly on one pad, clear of every
    /// carriageway: their height is that pad's.
    pub(super) level: Vec<Level>,
    /// The side slopes: run over rise of fills and of cuts.
    pub(super) fill: f64,
    pub(super) cut: f64,
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
        // What covers each cell: carriageways and pads (finer cells).
        let on = cover_index(&lanes, &pads);
        // A slope ends where another carriageway or pad covers the ground
        // (which wins there), a metre on.
        let covered = |q: DVec2, own: u32| {
            on.get(on.cell_of(q)).iter().any(|&id| {
                if id & PAD == 0 {
                    let l = &lanes[id as usize];
                    id != own && l.at(q).1 <= l.half
                } else {
                    PAD | (id & INDEX) != own && pads[(id & INDEX) as usize].contains(q)
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
        let mut level = Vec::new();
        let mut first = 0;
        for n in sizes {
            level.extend(Level::new(&pads[first..first + n], first, &lanes));
            first += n;
        }
        Self {
            grid: slope_index(&lanes, &pads),
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

impl Earthworks {
    /// The level pad `p` lies on, if any (it wins over everything else).
    #[inline]
    pub(super) fn level_at(&self, p: DVec2) -> Option<Built> {
        let k = self.level.iter().find_map(|level| level.get(p))?;
        Some(Built {
            height: self.pads[k as usize].pad.z,
            kind: BuiltKind::Pad,
        })
    }

    /// What `p` stands on: the first of `lanes` by rank, then the nearest
    /// (carriageways whose box
    /// may hold it; and whether `p` is on the road proper, not its
    /// shoulder: a pad keeps its level there), or the pad of `pads` (those
    /// holding `p`) it is on. Both in index order: that resolves ties.
    #[inline]
    pub(super) fn standing<'a>(
        &self,
        p: DVec2,
        lanes: impl Iterator<Item = &'a Lane>,
        pads: impl Iterator<Item = &'a Pad>,
    ) -> Option<Built> {
        let mut lane = None::<(u8, f64, f64, bool)>;
        for l in lanes {
            let r = DVec2::splat(l.half);
            if p.cmplt(l.a.min(l.b) - r).any() || p.cmpgt(l.a.max(l.b) + r).any() {
                continue;
            }
            let (z, d) = l.at(p);
            let before =
                |(rank, best, zb, _): (u8, f64, f64, bool)| before(l.rank, d, z, rank, best, zb);
            if d <= l.half && lane.is_none_or(before) {
                lane = Some((l.rank, d, z, d <= l.road));
            }
        }
        let mut pad = None::<&Pad>;
        for item in pads {
            if takes_over(pad, item, p) {
                pad = Some(item);
            }
        }
        stand(p, lane.map(|(_, _, z, road)| (z, road)), pad)
    }

    /// The run from lane `l`'s shoulder to `p` and the height there, if its
    /// slope reaches `p`.
    #[inline]
    pub(super) fn lane_slope(l: &Lane, p: DVec2) -> Option<(f64, f64)> {
        let r = DVec2::splat(l.half + l.toe[0].max(l.toe[1]));
        if p.cmplt(l.a.min(l.b) - r).any() || p.cmpgt(l.a.max(l.b) + r).any() {
            return None;
        }
        let (z, d) = l.at(p);
        let run = d - l.half;
        (run <= l.toe[usize::from(l.right(p))]).then_some((z, run))
    }

    /// Whether `p` lies in the box of pad `item`'s slopes.
    #[inline]
    pub(super) fn in_slope_box(item: &PadItem, p: DVec2) -> bool {
        let r = DVec2::splat(item.toe);
        !(p.cmplt(item.min - r).any() || p.cmpgt(item.max + r).any())
    }

    /// The ground held between the side slopes `(height, run)` that reach
    /// a point whose natural height is `natural`: raised to the highest
    /// fill, lowered to the lowest cut (lanes first, then pads, in index
    /// order).
    #[inline]
    pub(super) fn sloped(
        &self,
        natural: f64,
        slopes: impl Iterator<Item = (f64, f64)>,
    ) -> Option<Built> {
        let (mut floor, mut ceiling) = (f64::NEG_INFINITY, f64::INFINITY);
        for (z, run) in slopes {
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
}

/// Whether `p` is under the building of `pad`.
#[inline]
fn under_building(pad: &Pad, p: DVec2) -> bool {
    pad.building.as_ref().is_some_and(|b| inside(b, p))
}

/// How far apart two carriageways over one point may be in height for the
/// first by rank to take it (the roads of a junction, near it), metres;
/// further apart (two roads side by side at different heights) the nearer
/// centre line does.
pub(super) const JOINED: f64 = 3.0;

/// Whether a carriageway of `rank`, at distance `d` and height `z` from a
/// point, takes it from the one found so far (`best_rank`, `best_d`,
/// `best_z`): see [`JOINED`].
#[inline]
pub(super) fn before(rank: u8, d: f64, z: f64, best_rank: u8, best_d: f64, best_z: f64) -> bool {
    // Branch-free, so that a block's samples go side by side.
    let joined = (z - best_z).abs() <= JOINED;
    let nearer = d < best_d;
    let first = (rank < best_rank) | ((rank == best_rank) & nearer);
    (joined & first) | (!joined & nearer)
}

/// Whether `item`, a pad holding `p`, takes over from `current`, the pad
/// found so far: where lots overlap, the one whose building `p` is under.
#[inline]
pub(super) fn takes_over(current: Option<&Pad>, item: &Pad, p: DVec2) -> bool {
    current.is_none_or(|q| !under_building(q, p)) && (current.is_none() || under_building(item, p))
}

/// The ground at `p` from the nearest carriageway holding it (its height
/// there, and whether `p` is on the road proper) and the pad holding it:
/// the road wins, but on its shoulder a pad keeps its level, and a
/// building stands level even where a road's edge runs under it.
#[inline]
pub(super) fn stand(p: DVec2, lane: Option<(f64, bool)>, pad: Option<&Pad>) -> Option<Built> {
    match (lane, pad) {
        (Some((z, true)), Some(pad)) if !under_building(pad, p) => Some(Built {
            height: z,
            kind: BuiltKind::Carriageway,
        }),
        (Some((z, _)), None) => Some(Built {
            height: z,
            kind: BuiltKind::Carriageway,
        }),
        (_, Some(pad)) => Some(Built {
            height: pad.z,
            kind: BuiltKind::Pad,
        }),
        (None, None) => None,
    }
}

impl Relief for Earthworks {
    fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
        if let Some(b) = self.level_at(p) {
            return Some(b);
        }
        // Nothing filed here: nothing built.
        let items = self.grid.get(self.grid.cell_of(p));
        if items.is_empty() {
            return None;
        }
        // Lanes come before pads in a cell.
        let on = self.on.get(self.on.cell_of(p));
        let split = on.partition_point(|&id| id & PAD == 0);
        let lanes = on[..split].iter().map(|&id| &self.lanes[id as usize]);
        let pads = (on[split..].iter()).filter_map(|&id| {
            let item = &self.pads[(id & INDEX) as usize];
            item.contains(p).then_some(&item.pad)
        });
        if let Some(b) = self.standing(p, lanes, pads) {
            return Some(b);
        }
        let slopes = items.iter().filter_map(|&id| {
            if id & PAD == 0 {
                Self::lane_slope(&self.lanes[id as usize], p)
            } else {
                let item = &self.pads[(id & INDEX) as usize];
                if !Self::in_slope_box(item, p) {
                    return None;
                }
                let run = item.slope_distance(p);
                (run <= item.toe).then_some((item.pad.z, run))
            }
        });
        self.sloped(natural, slopes)
    }

    fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
        self.grid.any_in_box(min, max)
    }

    fn shape_grid(&self, x0: f64, y0: f64, step: f64, w: usize, h: usize, out: &mut [f64]) {
        self.shape(x0, y0, step, w, h, out);
    }
}
