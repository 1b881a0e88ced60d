//! Structure meshes: swept boxes for decks, parapets, piers, portals and
//! walls (core coordinates relative to an anchor, flat shaded).

use super::{
    BURIED, DECK_THICKNESS, OPENING, PARAPET, PARAPET_WIDTH, PIER_SPACING, WALL_THICKNESS,
};
use crate::network::{RoadClass, RoadNetwork};
use crate::num::hash_unit;
use crate::plugin::stream::mesh::{MeshLists, linear};
use crate::terrain::Terrain;
use crate::world::{Structure, StructureKind};
use bevy::math::{DVec2, DVec3};

/// A stone colour (linear) varied a little by a position.
fn stone(p: DVec2) -> [f32; 4] {
    let v = 0.92 + 0.16 * hash_unit(p.x.to_bits() as i64, p.y.to_bits() as i64, 71) as f32;
    linear([0.60 * v, 0.57 * v, 0.52 * v])
}

/// Concrete, linear.
fn concrete() -> [f32; 4] {
    linear([0.64, 0.63, 0.60])
}

/// The road surface of a class, linear (as the ribbons draw it).
fn asphalt(class: RoadClass) -> [f32; 4] {
    match class {
        RoadClass::Highway => [0.07, 0.07, 0.08, 1.0],
        RoadClass::Track => [0.32, 0.25, 0.17, 1.0],
        RoadClass::Path => linear([0.70, 0.67, 0.60]),
        _ => [0.13, 0.13, 0.13, 1.0],
    }
}

/// One cross-section of a swept box: a centre, and the bottom and top
/// heights there.
pub(crate) type Section = (DVec2, f64, f64);

/// Which faces of a swept box are drawn (those that stand on something,
/// abut another box or lie in the ground are left out).
#[derive(Clone, Copy)]
struct Faces {
    top: bool,
    bottom: bool,
    /// The sides at `across.0` and `across.1`.
    sides: [bool; 2],
    /// The caps at the first and the last section.
    caps: [bool; 2],
}

impl Faces {
    /// All but the bottom: what stands on or in something.
    const STANDING: Faces = Faces {
        top: true,
        bottom: false,
        sides: [true; 2],
        caps: [true; 2],
    };
    /// Every face: what hangs in the air.
    const ALL: Faces = Faces {
        bottom: true,
        ..Faces::STANDING
    };
}

/// A box swept along `sections`, from `across.0` to `across.1` metres to the
/// right of the centre line, drawing `faces`, flat shaded. `top` colours the
/// top, `side` the rest.
fn sweep(
    m: &mut MeshLists,
    sections: &[Section],
    across: (f64, f64),
    (top, side): ([f32; 4], [f32; 4]),
    faces: Faces,
    anchor: DVec3,
) {
    let n = sections.len();
    if n < 2 {
        return;
    }
    let dir = |k: usize| {
        let (a, b) = (
            sections[k.saturating_sub(1)].0,
            sections[(k + 1).min(n - 1)].0,
        );
        (b - a).normalize_or(DVec2::X)
    };
    // The right-hand vector at each section (mitred by averaging).
    let right: Vec<DVec2> = (0..n)
        .map(|k| {
            let d = dir(k);
            DVec2::new(d.y, -d.x)
        })
        .collect();
    let at = |k: usize, u: f64, z: f64| (sections[k].0 + right[k] * u).extend(z) - anchor;
    let (u0, u1) = across;
    for k in 0..n - 1 {
        let (a, b) = (sections[k], sections[k + 1]);
        let d = (b.0 - a.0).normalize_or(DVec2::X);
        let r = DVec3::new(d.y, -d.x, 0.0);
        let (ta, tb) = (a.2, b.2);
        let (ba, bb) = (a.1, b.1);
        let quad = |ua: f64, za: f64, ub: f64, zb: f64, zc: f64, zd: f64| {
            [
                at(k, ua, za),
                at(k + 1, ub, zb),
                at(k + 1, ub, zc),
                at(k, ua, zd),
            ]
        };
        let top_face = [
            at(k, u0, ta),
            at(k + 1, u0, tb),
            at(k + 1, u1, tb),
            at(k, u1, ta),
        ];
        if faces.top {
            m.face(&top_face, DVec3::Z, top);
        }
        if faces.bottom {
            let under = [
                at(k, u0, ba),
                at(k + 1, u0, bb),
                at(k + 1, u1, bb),
                at(k, u1, ba),
            ];
            m.face(&under, -DVec3::Z, side);
        }
        if faces.sides[0] {
            m.face(&quad(u0, ba, u0, bb, tb, ta), -r, side);
        }
        if faces.sides[1] {
            m.face(&quad(u1, ba, u1, bb, tb, ta), r, side);
        }
    }
    let caps = [(0, -dir(0)), (n - 1, dir(n - 1))];
    for ((k, out), _) in caps.into_iter().zip(faces.caps).filter(|c| c.1) {
        let (lo, hi) = (sections[k].1, sections[k].2);
        let cap = [at(k, u0, lo), at(k, u1, lo), at(k, u1, hi), at(k, u0, hi)];
        m.face(&cap, out.extend(0.0), side);
    }
}

/// Linear interpolation of `values` (one per line point) at arc `s` along
/// `line`, with the point there.
fn along(line: &[DVec3], values: &[f64], s: f64) -> (DVec3, f64, DVec2) {
    let mut acc = 0.0;
    for (k, w) in line.windows(2).enumerate() {
        let len = w[0].truncate().distance(w[1].truncate());
        if s <= acc + len || k + 2 == line.len() {
            let t = if len > 0.0 {
                ((s - acc) / len).clamp(0.0, 1.0)
            } else {
                0.0
            };
            let v = |i: usize| values.get(i).copied().unwrap_or(w[0].z);
            let dir = (w[1] - w[0]).truncate().normalize_or(DVec2::X);
            return (w[0].lerp(w[1], t), v(k) + t * (v(k + 1) - v(k)), dir);
        }
        acc += len;
    }
    (
        line[0],
        values.first().copied().unwrap_or(line[0].z),
        DVec2::X,
    )
}

/// A bridge's deck keeps the points of its line that stray more than this
/// from a straight run between the kept ones, metres.
const STRAIGHT: f64 = 0.02;

/// `line` with the points that lie within `tol` of the straight runs between
/// the others dropped (Douglas–Peucker in 3-D; the ends are kept).
fn simplify(line: &[DVec3], tol: f64) -> Vec<DVec3> {
    let keep = crate::geom::douglas_peucker(
        line.len(),
        |_| false,
        |a, b| {
            let (pa, d) = (line[a], line[b] - line[a]);
            let off = |p: DVec3| {
                let t = (p - pa).dot(d) / d.length_squared().max(f64::MIN_POSITIVE);
                (pa + d * t.clamp(0.0, 1.0)).distance(p)
            };
            let (i, e) = (a + 1..b)
                .map(|i| (i, off(line[i])))
                .fold((0, tol), |w, x| if x.1 > w.1 { x } else { w });
            (e > tol).then_some(i)
        },
    );
    (line.iter().zip(keep))
        .filter_map(|(p, k)| k.then_some(*p))
        .collect()
}

fn length(line: &[DVec3]) -> f64 {
    line.windows(2)
        .map(|w| w[0].truncate().distance(w[1].truncate()))
        .sum()
}

/// A bridge: the deck (the road surface on top, `DECK_THICKNESS` deep),
/// parapets both sides from the deck's bottom (they are its sides), and
/// piers every [`PIER_SPACING`] metres or so (none at the ends, where the
/// deck meets the ground) down to the lower of its foot and the natural
/// ground (a lake's bed). Deck and parapets follow the line without the
/// points that lie within [`STRAIGHT`] of a straight run.
fn add_bridge(
    m: &mut MeshLists,
    s: &Structure,
    width: f64,
    class: RoadClass,
    terrain: &Terrain,
    anchor: DVec3,
) {
    let half = width / 2.0 + PARAPET_WIDTH;
    let line = simplify(&s.line, STRAIGHT);
    let deck: Vec<Section> = (line.iter())
        .map(|p| (p.truncate(), p.z - DECK_THICKNESS, p.z))
        .collect();
    let surface = Faces {
        sides: [false; 2],
        ..Faces::ALL
    };
    let colours = (asphalt(class), concrete());
    sweep(m, &deck, (-half, half), colours, surface, anchor);
    let rail: Vec<Section> = (line.iter())
        .map(|p| (p.truncate(), p.z - DECK_THICKNESS, p.z + PARAPET))
        .collect();
    let grey = (concrete(), concrete());
    for across in [(-half, -half + PARAPET_WIDTH), (half - PARAPET_WIDTH, half)] {
        sweep(m, &rail, across, grey, Faces::STANDING, anchor);
    }
    let len = length(&s.line);
    let n = (len / PIER_SPACING).round() as usize;
    for k in 1..n {
        let (p, foot, dir) = along(&s.line, &s.foot, len * k as f64 / n as f64);
        let c = p.truncate();
        let bottom = foot.min(terrain.height(c.x, c.y)) - BURIED;
        let top = p.z - DECK_THICKNESS;
        if top <= bottom {
            continue;
        }
        // Taller piers are stouter.
        let (along, across) = (
            0.8 + 0.015 * (top - bottom),
            width * 0.3 + 0.01 * (top - bottom),
        );
        let pier = [
            (c - dir * along, bottom, top),
            (c + dir * along, bottom, top),
        ];
        sweep(m, &pier, (-across, across), grey, Faces::STANDING, anchor);
    }
}

/// Portals at both ends of a tunnel: a stone headwall across the road up to
/// the hillside above (its foot there), with the opening dark. (The faces
/// inside the hill, and those where the posts, lintel and opening meet, are
/// left out.)
fn add_portals(m: &mut MeshLists, s: &Structure, width: f64, anchor: DVec3) {
    let n = s.line.len();
    let ends = [
        (s.line[0], s.line[1], s.foot.first()),
        (s.line[n - 1], s.line[n - 2], s.foot.last()),
    ];
    let half = width / 2.0 + 1.0;
    for (p, inner, foot) in ends {
        // `o` points out of the hill.
        let o = (p - inner).truncate().normalize_or(DVec2::X);
        let c = p.truncate();
        let hill = foot.copied().unwrap_or(p.z + OPENING + 4.0);
        let head = (hill + 0.5).clamp(p.z + OPENING + 1.5, p.z + OPENING + 12.0);
        let colour = (stone(c), stone(c));
        // Swept inwards, from 1 m outside the portal to 2 m inside.
        let (out, ins) = (c + o * 1.0, c - o * 2.0);
        let frame = |lo: f64, hi: f64| [(out, lo, hi), (ins, lo, hi)];
        let post = frame(p.z - BURIED, head);
        let outside = Faces {
            caps: [true, false],
            ..Faces::STANDING
        };
        // Seen along the inward sweep, "right" is the outward view's left.
        sweep(m, &post, (-half - 1.5, -half), colour, outside, anchor);
        sweep(m, &post, (half, half + 1.5), colour, outside, anchor);
        let lintel = frame(p.z + OPENING, head);
        let between = Faces {
            sides: [false; 2],
            ..outside
        };
        let under = Faces {
            bottom: true,
            ..between
        };
        sweep(m, &lintel, (-half, half), colour, under, anchor);
        // The dark opening, a little behind the frame's face: its face only.
        let dark = [0.015, 0.015, 0.017, 1.0];
        let plug = [
            (c + o * 0.3, p.z + 0.02, p.z + OPENING),
            (ins, p.z + 0.02, p.z + OPENING),
        ];
        let face = Faces {
            top: false,
            ..between
        };
        sweep(m, &plug, (-half, half), (dark, dark), face, anchor);
    }
}

/// A retaining wall: stone, `WALL_THICKNESS` thick, from below its foot to a
/// little above its top.
fn add_wall(m: &mut MeshLists, s: &Structure, anchor: DVec3) {
    sweep_wall(m, s, &wall_points(s), anchor);
}

/// A wall's line: each point, the ground at its foot and its top.
fn wall_points(s: &Structure) -> Vec<Section> {
    (s.line.iter().enumerate())
        .map(|(k, p)| {
            let foot = s.foot.get(k).copied().unwrap_or(p.z).min(p.z);
            (p.truncate(), foot, p.z)
        })
        .collect()
}

/// Sweeps a run of a wall's points (in its stone), from a little below its
/// foot to a little above its top.
fn sweep_wall(m: &mut MeshLists, s: &Structure, points: &[Section], anchor: DVec3) {
    let half = WALL_THICKNESS / 2.0;
    let colour = stone(s.line[0].truncate());
    let sections: Vec<Section> = (points.iter())
        .map(|&(p, foot, top)| (p, foot - BURIED, top + 0.3))
        .collect();
    sweep(
        m,
        &sections,
        (-half, half),
        (colour, colour),
        Faces::STANDING,
        anchor,
    );
}

/// The runs of `sections` within the box `[min, max]`, cut where they leave
/// it (heights interpolated along each segment).
fn clipped(sections: &[Section], (min, max): (DVec2, DVec2)) -> Vec<Vec<Section>> {
    let mut runs: Vec<Vec<Section>> = Vec::new();
    let mut open = false;
    for w in sections.windows(2) {
        // The part of w[0] → w[1] in the box, more than a point.
        let span = crate::geom::segment_box_span(w[0].0, w[1].0, min, max);
        let Some((t0, t1)) = span.filter(|t| t.0 < t.1) else {
            open = false;
            continue;
        };
        let at = |t: f64| section_at(w[0], w[1], t);
        let (start, end) = (
            if t0 > 0.0 { at(t0) } else { w[0] },
            if t1 < 1.0 { at(t1) } else { w[1] },
        );
        if !open || t0 > 0.0 {
            runs.push(vec![start]);
        }
        runs.last_mut().expect("a run was opened").push(end);
        open = t1 >= 1.0;
    }
    runs
}

/// The section at `t` of the way from `a` to `b`, heights interpolated.
pub(crate) fn section_at(a: Section, b: Section, t: f64) -> Section {
    (
        a.0.lerp(b.0, t),
        a.1 + (b.1 - a.1) * t,
        a.2 + (b.2 - a.2) * t,
    )
}

/// Whether a structure can be drawn: two finite points or more, finite feet.
fn drawable(s: &Structure) -> bool {
    s.line.len() >= 2
        && s.line.iter().all(|p| p.is_finite())
        && s.foot.iter().all(|f| f.is_finite())
}

/// Adds one structure (its road, for bridges and tunnels, gives the width
/// and surface); skipped when its line has fewer than two finite points.
pub fn add_structure(
    m: &mut MeshLists,
    s: &Structure,
    net: &RoadNetwork,
    terrain: &Terrain,
    anchor: DVec3,
) {
    if !drawable(s) {
        return;
    }
    let road = s.road.and_then(|i| net.roads.get(i));
    let (width, class) = road.map_or((6.0, RoadClass::Road), |r| (r.width, r.class));
    match s.kind {
        StructureKind::Bridge => add_bridge(m, s, width, class, terrain, anchor),
        StructureKind::Tunnel => add_portals(m, s, width, anchor),
        StructureKind::Wall => add_wall(m, s, anchor),
    }
}

/// The parts within `[min, max]` of the retaining walls of `all` (found
/// through their structure cells, `cells`, which list a wall in every cell
/// it crosses): each wall's index and a run of its points (where, relative
/// to `min`; the ground at its foot; its top), cut at the box's sides.
/// Walls are drawn with the finest chunks of ground
/// (`ChunkKey::draws_walls`), each chunk its own part of them, its grid
/// creased along them: a coarser grid cannot meet a wall's foot and top,
/// and would cut across its face (or the wall would stand out of it, a
/// saw-tooth from afar).
pub(crate) fn walls_in(
    all: &[Structure],
    cells: &super::StructureCells,
    (min, max): (DVec2, DVec2),
) -> Vec<(usize, Vec<Section>)> {
    let cell = |v: f64| (v / super::STRUCTURE_CELL).floor() as i64;
    let ((x0, y0), (x1, y1)) = ((cell(min.x), cell(min.y)), (cell(max.x), cell(max.y)));
    // (The cells' map is ordered by x, then y: the columns in the box, and
    // of them the cells in its rows. A wall may be in several.)
    let columns = cells.range((x0, i64::MIN)..=(x1, i64::MAX));
    let mut ids: Vec<usize> = (columns.filter(|(c, _)| (y0..=y1).contains(&c.1)))
        .flat_map(|(_, (_, ids))| ids.iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let mut parts = Vec::new();
    for (i, s) in ids.iter().filter_map(|&i| Some((i, all.get(i)?))) {
        if s.kind == StructureKind::Wall && drawable(s) {
            let local =
                |run: Vec<Section>| run.into_iter().map(|(p, f, t)| (p - min, f, t)).collect();
            let runs = clipped(&wall_points(s), (min, max));
            parts.extend(runs.into_iter().map(|run| (i, local(run))));
        }
    }
    parts
}

/// Adds the wall parts `parts` of `all` (from [`walls_in`], in the axes of
/// the mesh).
pub(crate) fn add_wall_parts(
    m: &mut MeshLists,
    all: &[Structure],
    parts: &[(usize, Vec<Section>)],
) {
    for (i, run) in parts {
        sweep_wall(m, &all[*i], run, DVec3::ZERO);
    }
}
