//! Creases in the finest ground along its retaining walls. A grid cannot
//! follow a wall's line: the two triangles of a cell it runs through ramp
//! from the ground on one side to the ground on the other, across the wall,
//! and from afar the wall shows between them as a saw-tooth. Each such cell
//! is cut along the wall instead, the ground on either side meeting it at
//! its own height (the wall's top on the higher side, its foot on the
//! other), so the ground stands against the wall as built.

use super::super::coords::to_bevy;
use super::super::mesh::MeshLists;
use super::super::structures::{Section, section_at};
use bevy::math::{DVec2, DVec3};

/// A point of a wall's line (core axes, relative to the chunk), the ground
/// at its foot and its top.
type WallPoint = Section;

/// How close to a cell's edge or corner a point counts as on it, metres.
const ON: f64 = 1.0e-6;

/// One piece of a wall within a cell: the part `t0..t1` of segment `seg` of
/// wall `wall`.
#[derive(Clone, Copy, Debug)]
struct Piece {
    cell: usize,
    wall: usize,
    seg: usize,
    t0: f64,
    t1: f64,
}

/// A point where a wall crosses a cell's edge, with the heights of the
/// ground just before and just after it going anticlockwise round the cell.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    /// Where round the cell, 0..4 from the south-west corner anticlockwise
    /// (a corner at each whole number).
    round: f64,
    at: DVec2,
    before: f64,
    after: f64,
}

/// Cuts the cells of a chunk's grid along `walls` (each a line of points in
/// core axes relative to the chunk's south-west corner; parts outside the
/// chunk are ignored). `m` holds the grid as `ChunkMesh` builds it: vertex
/// `j·(q+1) + i` at `(i·step, j·step)`, and the first `6·q²` indices its
/// cells' two triangles, row by row. A cell is cut along every wall
/// through it (walls that meet inside it, as at a pad's corner, joined; a
/// wall that ends inside it carried on to a corner); any other cell a wall
/// meets (its step turns over there, or a wall lies wholly inside) is a fan
/// round its centre that meets its cut neighbours at their edges. Returns
/// how many cells were cut.
pub(crate) fn crease(m: &mut MeshLists, q: usize, step: f64, walls: &[&[WallPoint]]) -> usize {
    let n = q + 1;
    let mut pieces = Vec::new();
    let size = q as f64 * step;
    // (A wall's segments are a few metres long: some cells each. However
    // many walls come, at most this many pieces are cut.)
    let most = 8 * q * q;
    for (w, line) in walls.iter().enumerate() {
        for (k, s) in line.windows(2).enumerate() {
            if pieces.len() >= most {
                break;
            }
            let (a, b) = (s[0].0, s[1].0);
            let lo = a.min(b).max(DVec2::ZERO);
            let hi = a.max(b).min(DVec2::splat(size));
            if !(lo.cmple(hi).all() && a.is_finite() && b.is_finite()) {
                continue;
            }
            // The cells of the segment's box (within the chunk).
            let cell = |v: f64| ((v / step).floor().max(0.0) as usize).min(q - 1);
            for j in cell(lo.y)..=cell(hi.y) {
                for i in cell(lo.x)..=cell(hi.x) {
                    let (min, max) = cell_box(i, j, step);
                    let span = crate::geom::segment_box_span(a, b, min, max);
                    if let Some((t0, t1)) = span.filter(|t| t.1 - t.0 > 1.0e-12) {
                        let (cell, wall, seg) = (j * q + i, w, k);
                        pieces.push(Piece {
                            cell,
                            wall,
                            seg,
                            t0,
                            t1,
                        });
                    }
                }
            }
        }
    }
    pieces.sort_by_key(|p| (p.cell, p.wall, p.seg));
    let mut cut = vec![false; q * q];
    let mut added = Vec::new();
    for group in pieces.chunk_by(|a, b| a.cell == b.cell) {
        let cell = group[0].cell;
        let (i, j) = (cell % q, cell / q);
        let corner = [(i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1)].map(|(i, j)| j * n + i);
        let Some(ring) = Ring::new(m, walls, group, corner, cell_box(i, j, step)) else {
            continue;
        };
        cut[cell] = true;
        let chords = ring.chords(walls, group);
        match chords.as_ref().and_then(|c| Some((c, ring.parts(c)?))) {
            Some((chords, parts)) => {
                for part in &parts {
                    ring.add(m, part, &mut added);
                }
                ring.close_ends(m, chords, &mut added);
            }
            None => ring.fan(m, &mut added),
        }
    }
    // The grid's cells but those cut, the rest (skirts), the cut cells'.
    let mut indices = Vec::with_capacity(m.indices.len() + added.len());
    for (c, tri) in m.indices[..6 * q * q].chunks_exact(6).enumerate() {
        if !cut[c] {
            indices.extend_from_slice(tri);
        }
    }
    indices.extend_from_slice(&m.indices[6 * q * q..]);
    indices.extend(added);
    m.indices = indices;
    cut.iter().filter(|&&c| c).count()
}

/// A cell a wall meets: its corners and where walls cross its edges, in
/// order round it.
struct Ring {
    /// The corners' vertices, anticlockwise from the south-west.
    corner: [usize; 4],
    /// The corners (core axes, relative to the chunk).
    at: [DVec3; 4],
    crossings: Vec<Crossing>,
    min: DVec2,
    step: f64,
}

/// A wall through a cell: from `entry` to `exit`, by its turns inside the
/// cell (where it ends inside, its end is the last or first turn).
struct Chord {
    index: usize,
    entry: End,
    exit: End,
    turns: Vec<WallPoint>,
}

/// Where a chord meets the cell's edge: a crossing, or, where its wall
/// ends inside the cell, the corner its line is carried on to. There the
/// ground on both sides meets at the corner's height, and the step between
/// them at the wall's end is closed by a triangle standing on the line.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    Crossing(usize),
    Corner(usize),
}

impl End {
    /// The item of the ring the chord leaves from (`after`) or comes to.
    fn item(self, after: bool) -> Item {
        match self {
            End::Crossing(k) => Item::Copy(k, after),
            End::Corner(c) => Item::Corner(c),
        }
    }
}

/// What goes round a part of a cell while it is split: a corner, a
/// crossing's copy on one side (after it going round, or before), or a
/// chord's turn at the height of one side (high or low).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Item {
    Corner(usize),
    Copy(usize, bool),
    Turn(usize, usize, bool),
}

/// What goes round a part of a cut cell: a corner, or a point on the wall
/// at a height.
#[derive(Clone, Copy, Debug)]
enum Round {
    Corner(usize),
    Wall(DVec2, f64, usize),
}

impl Ring {
    /// The cell's ring, or `None` where a wall crosses at a corner (too
    /// close to tell its sides; the cell is left whole).
    fn new(
        m: &MeshLists,
        walls: &[&[WallPoint]],
        group: &[Piece],
        corner: [usize; 4],
        (min, max): (DVec2, DVec2),
    ) -> Option<Self> {
        let xy = [min, DVec2::new(max.x, min.y), max, DVec2::new(min.x, max.y)];
        let at = [0, 1, 2, 3].map(|c| xy[c].extend(m.positions[corner[c]][1] as f64));
        let step = max.x - min.x;
        let mut ring = Ring {
            corner,
            at,
            crossings: Vec::new(),
            min,
            step,
        };
        for p in group {
            for t in [p.t0, p.t1] {
                let (at, foot, top) = point_at(walls, p, t);
                let Some(round) = ring.round(at) else {
                    continue;
                };
                if (round - round.round()).abs() * step < ON {
                    return None;
                }
                // The edge's ends: the higher one's side gets the top.
                let e = round.floor() as usize;
                let (from, to) = (ring.at[e].z, ring.at[(e + 1) % 4].z);
                // (Where they are level, the ground is: no step either way.)
                let (before, after) = match from.total_cmp(&to) {
                    std::cmp::Ordering::Greater => (top, foot),
                    std::cmp::Ordering::Less => (foot, top),
                    std::cmp::Ordering::Equal => (from, from),
                };
                if !ring
                    .crossings
                    .iter()
                    .any(|c| (c.round - round).abs() * step < ON)
                {
                    ring.crossings.push(Crossing {
                        round,
                        at,
                        before,
                        after,
                    });
                }
            }
        }
        ring.crossings.sort_by(|a, b| a.round.total_cmp(&b.round));
        Some(ring)
    }

    /// Where `p` lies round the cell's edge (0..4 from the south-west
    /// corner, anticlockwise), or `None` inside it.
    fn round(&self, p: DVec2) -> Option<f64> {
        let d = (p - self.min) / self.step;
        let near = |v: f64| v.abs() * self.step < ON;
        if near(d.y) {
            Some(d.x.clamp(0.0, 1.0))
        } else if near(d.x - 1.0) {
            Some(1.0 + d.y.clamp(0.0, 1.0))
        } else if near(d.y - 1.0) {
            Some(2.0 + (1.0 - d.x).clamp(0.0, 1.0))
        } else if near(d.x) {
            Some((3.0 + (1.0 - d.y).clamp(0.0, 1.0)) % 4.0)
        } else {
            None
        }
    }

    /// The cell split along `chords`, each side of each at the same height
    /// where it comes in and goes out; `None` otherwise (its step turns
    /// over). Each part anticlockwise: the corners and crossings round it,
    /// and the walls' turns that bound it, at its side's height.
    fn parts(&self, chords: &[Chord]) -> Option<Vec<Vec<Round>>> {
        let ring = self.ring();
        // Split along each chord in turn (they do not cross: each lies in
        // one part).
        let mut parts = vec![ring];
        for chord in chords {
            let (entry, exit) = (chord.entry.item(true), chord.exit.item(false));
            let holds = |p: &Vec<Item>| p.contains(&entry) && p.contains(&exit);
            let at = parts.iter().position(holds)?;
            let part = parts.swap_remove(at);
            let find = |item: Item| part.iter().position(|&i| i == item);
            let (e, x) = (find(entry)?, find(exit)?);
            // From the entry's after side round to the exit's before side,
            // back along the wall; and the rest, forward along it (a corner
            // the wall is carried on to is in both).
            let n = part.len();
            let (mut left, mut right) = (Vec::new(), Vec::new());
            let mut k = e;
            while k != (x + 1) % n {
                left.push(part[k]);
                k = (k + 1) % n;
            }
            if let End::Corner(c) = chord.exit {
                right.push(Item::Corner(c));
            }
            while k != e {
                right.push(part[k]);
                k = (k + 1) % n;
            }
            if let End::Crossing(a) = chord.entry
                && !right.contains(&Item::Copy(a, false))
            {
                return None;
            }
            if let End::Corner(c) = chord.entry {
                right.push(Item::Corner(c));
            }
            let high = self.high(chord)?;
            let turns = 0..chord.turns.len();
            left.extend(
                turns
                    .clone()
                    .rev()
                    .map(|t| Item::Turn(chord.index, t, high)),
            );
            right.extend(turns.map(|t| Item::Turn(chord.index, t, !high)));
            parts.extend([left, right]);
        }
        let rounds = parts.iter().map(|part| {
            let lit = part.iter().find_map(|i| match *i {
                Item::Corner(c) => Some(c),
                _ => None,
            });
            let turn = |ch: usize, t: usize, high: bool| {
                let w: WallPoint = chords[ch].turns[t];
                Round::Wall(w.0, if high { w.2 } else { w.1 }, lit.unwrap_or(0))
            };
            part.iter()
                .map(|&i| match i {
                    Item::Turn(ch, t, high) => turn(ch, t, high),
                    i => self.round_of(i),
                })
                .collect()
        });
        Some(rounds.collect())
    }

    /// The whole ring: the corners and each crossing's before- and
    /// after-side copies, anticlockwise.
    fn ring(&self) -> Vec<Item> {
        let mut ring = Vec::with_capacity(4 + 2 * self.crossings.len());
        let mut next = self.crossings.iter().enumerate().peekable();
        for c in 0..4 {
            ring.push(Item::Corner(c));
            while let Some((k, _)) = next.next_if(|(_, x)| x.round < (c + 1) as f64) {
                ring.extend([Item::Copy(k, false), Item::Copy(k, true)]);
            }
        }
        ring
    }

    /// A corner or a crossing's copy (lit as the corner on its side) as what
    /// goes round a part (a chord's turn is placed by its part).
    fn round_of(&self, item: Item) -> Round {
        match item {
            Item::Copy(k, after) => {
                let x = &self.crossings[k];
                let c = x.round.floor() as usize;
                if after {
                    Round::Wall(x.at, x.after, (c + 1) % 4)
                } else {
                    Round::Wall(x.at, x.before, c % 4)
                }
            }
            Item::Corner(c) => Round::Corner(c),
            Item::Turn(..) => unreachable!("a chord's turns are its parts' own"),
        }
    }

    /// Whether the part on the right of a chord (going from its entry to its
    /// exit) is the wall's high side, as its crossings say; `None` where
    /// they disagree (the step turns over) or it has none.
    fn high(&self, chord: &Chord) -> Option<bool> {
        let at = |end: End, after: bool| match end {
            End::Crossing(k) => Some(self.is_high(k, after)),
            End::Corner(_) => None,
        };
        match (at(chord.entry, true), at(chord.exit, false)) {
            (Some(a), Some(b)) => (a == b).then_some(a),
            (a, b) => a.or(b),
        }
    }

    /// Whether a crossing's copy on one side (`after` or before) is the
    /// wall's top there.
    fn is_high(&self, k: usize, after: bool) -> bool {
        let x = &self.crossings[k];
        let (z, other) = if after {
            (x.after, x.before)
        } else {
            (x.before, x.after)
        };
        z > other
    }

    /// The walls through the cell as chords: its pieces joined end to start
    /// (within a wall, or from one wall to the next at a turn inside the
    /// cell), from a crossing to a crossing, each crossing the end of one.
    /// A wall that ends inside is carried on from its end to the corner its
    /// line points to most nearly that no chord crosses. `None` where a
    /// chord has no crossing, two would share a corner, or a piece is left.
    fn chords(&self, walls: &[&[WallPoint]], group: &[Piece]) -> Option<Vec<Chord>> {
        let crossing = |p: DVec2| self.crossings.iter().position(|c| c.at.distance(p) < ON);
        let ends: Vec<(WallPoint, WallPoint)> = (group.iter())
            .map(|p| (point_at(walls, p, p.t0), point_at(walls, p, p.t1)))
            .collect();
        let joins = |a: DVec2, b: DVec2| a.distance(b) < ON;
        // A chord starts at a crossing, or where a wall starts inside.
        let head = |k: usize| {
            let at = ends[k].0.0;
            crossing(at).is_some() || !(0..ends.len()).any(|j| j != k && joins(ends[j].1.0, at))
        };
        let mut used = vec![false; group.len()];
        let mut chords = Vec::new();
        let mut open = Vec::new();
        for start in 0..group.len() {
            if used[start] || !head(start) {
                continue;
            }
            let (mut at, mut turns) = (start, Vec::new());
            used[at] = true;
            let entry = crossing(ends[start].0.0).map(End::Crossing);
            if entry.is_none() {
                turns.push(ends[start].0);
            }
            let exit = loop {
                let end = ends[at].1;
                if let Some(exit) = crossing(end.0) {
                    break Some(End::Crossing(exit));
                }
                turns.push(end);
                // On to the piece that starts here, if any.
                match (0..group.len()).find(|&k| !used[k] && joins(ends[k].0.0, end.0)) {
                    Some(next) => {
                        used[next] = true;
                        at = next;
                    }
                    None => break None,
                }
            };
            if entry.is_some() && entry == exit {
                return None;
            }
            let index = chords.len();
            // (Ends inside the cell are placed once every chord is known.)
            for (end, is_exit) in [(entry, false), (exit, true)] {
                if end.is_none() {
                    open.push((index, is_exit));
                }
            }
            let corner = End::Corner(usize::MAX);
            chords.push(Chord {
                index,
                entry: entry.unwrap_or(corner),
                exit: exit.unwrap_or(corner),
                turns,
            });
        }
        // Every piece on a chord, every crossing an end of one.
        let real = (chords.iter())
            .flat_map(|c| [c.entry, c.exit])
            .filter(|e| matches!(e, End::Crossing(_)))
            .count();
        if !(used.iter().all(|&u| u) && real == self.crossings.len()) {
            return None;
        }
        if open.is_empty() {
            return Some(chords); // most cells
        }
        // The chords' lines (segments), and the lines carried on so far.
        let mut lines: Vec<(DVec2, DVec2)> = Vec::new();
        for c in &chords {
            let mut pts: Vec<DVec2> = Vec::with_capacity(c.turns.len() + 2);
            if let End::Crossing(k) = c.entry {
                pts.push(self.crossings[k].at);
            }
            pts.extend(c.turns.iter().map(|t| t.0));
            if let End::Crossing(k) = c.exit {
                pts.push(self.crossings[k].at);
            }
            lines.extend(pts.windows(2).map(|w| (w[0], w[1])));
        }
        let clear = |a: DVec2, b: DVec2, lines: &[(DVec2, DVec2)]| {
            // (From just past the wall's end, which is on its own line.)
            let a = a.lerp(b, 1.0e-6);
            !(lines.iter()).any(|&(p, q)| crate::geom::segment_intersection(a, b, p, q).is_some())
        };
        for (index, is_exit) in open {
            let turns = &chords[index].turns;
            let (end, from) = match (is_exit, turns.len()) {
                (_, 0) => return None,
                (true, n) => (turns[n - 1].0, line_before(&chords[index], self, true)),
                (false, _) => (turns[0].0, line_before(&chords[index], self, false)),
            };
            let ahead = (end - from).normalize_or_zero();
            let mut order: Vec<usize> = (0..4).collect();
            let cos = |c: usize| ahead.dot((self.at[c].truncate() - end).normalize_or_zero());
            order.sort_by(|&a, &b| cos(b).total_cmp(&cos(a)));
            let c = *order
                .iter()
                .find(|&&c| clear(end, self.at[c].truncate(), &lines))?;
            lines.push((end, self.at[c].truncate()));
            let chord = &mut chords[index];
            if is_exit {
                chord.exit = End::Corner(c);
            } else {
                chord.entry = End::Corner(c);
            }
        }
        Some(chords)
    }

    /// The wall-side triangle at each end of a chord carried on to a
    /// corner: from its top to its foot there and on to the corner, facing
    /// the lower side.
    fn close_ends(&self, m: &mut MeshLists, chords: &[Chord], out: &mut Vec<u32>) {
        for chord in chords {
            for is_exit in [false, true] {
                let (End::Corner(c), Some(w)) = (
                    if is_exit { chord.exit } else { chord.entry },
                    if is_exit {
                        chord.turns.last()
                    } else {
                        chord.turns.first()
                    },
                ) else {
                    continue;
                };
                let Some(high) = self.high(chord) else {
                    continue;
                };
                // Along the chord (entry to exit) on the carried-on part;
                // the high side is on its right.
                let corner = self.at[c].truncate();
                let fwd = if is_exit { corner - w.0 } else { w.0 - corner };
                let low = if high { fwd.perp() } else { -fwd.perp() };
                let (top, foot) = (w.0.extend(w.2), w.0.extend(w.1));
                let normal = (foot - top).cross(self.at[c] - top);
                let ids = [
                    self.vertex(m, Round::Wall(w.0, w.2, c)),
                    self.vertex(m, Round::Wall(w.0, w.1, c)),
                    self.corner[c] as u32,
                ];
                if normal.truncate().dot(low) >= 0.0 {
                    out.extend(ids);
                } else {
                    out.extend([ids[0], ids[2], ids[1]]);
                }
            }
        }
    }

    /// Adds the polygon `part` (anticlockwise), with vertices of its own
    /// for its points on the wall, lit and coloured as the corner beside
    /// them, triangulated.
    fn add(&self, m: &mut MeshLists, part: &[Round], out: &mut Vec<u32>) {
        let mut flat = Vec::with_capacity(part.len());
        let mut ids = Vec::with_capacity(part.len());
        for &r in part {
            let (p, id) = match r {
                Round::Corner(c) => (self.at[c].truncate(), self.corner[c] as u32),
                Round::Wall(at, ..) => (at, self.vertex(m, r)),
            };
            flat.push(p);
            ids.push(id);
        }
        // Twice the area of a, b, c (anticlockwise positive).
        let area = |[a, b, c]: [DVec2; 3]| (b - a).perp_dot(c - a);
        // Most parts are convex (a square cut by straight walls): a fan.
        let n = flat.len();
        let turn = |k: usize| area([k, (k + 1) % n, (k + 2) % n].map(|i| flat[i]));
        if (0..n).all(|k| turn(k) >= -1.0e-9) {
            for k in 1..n.saturating_sub(1) {
                out.extend([ids[0], ids[k], ids[k + 1]]);
            }
            return;
        }
        let mut tris: Vec<usize> = Vec::new();
        earcut::Earcut::new().earcut(flat.iter().map(|p| [p.x, p.y]), &[], &mut tris);
        for t in tris.chunks_exact(3) {
            let [a, b, c] = [t[0], t[1], t[2]];
            // Anticlockwise seen from above, as the grid's.
            let (b, c) = if area([a, b, c].map(|i| flat[i])) < 0.0 {
                (c, b)
            } else {
                (b, c)
            };
            out.extend([ids[a], ids[b], ids[c]]);
        }
    }

    /// A fan round the cell's centre (at its corners' mean height) through
    /// its corners and both copies of every crossing.
    fn fan(&self, m: &mut MeshLists, out: &mut Vec<u32>) {
        let centre = self.min + DVec2::splat(self.step / 2.0);
        let z = self.at.iter().map(|p| p.z).sum::<f64>() / 4.0;
        let id = m.positions.len() as u32;
        m.positions
            .push(to_bevy(centre.extend(z), DVec2::ZERO).to_array());
        let normal = (self.corner.iter())
            .map(|&v| bevy::math::Vec3::from_array(m.normals[v]))
            .sum::<bevy::math::Vec3>()
            .normalize_or_zero();
        m.normals.push(normal.to_array());
        let mut colour = [0.0; 4];
        for &v in &self.corner {
            for (c, k) in colour.iter_mut().zip(m.colors[v]) {
                *c += k / 4.0;
            }
        }
        m.colors.push(colour);
        let ids: Vec<u32> = (self.ring().into_iter())
            .map(|i| self.vertex(m, self.round_of(i)))
            .collect();
        for k in 0..ids.len() {
            out.extend([id, ids[k], ids[(k + 1) % ids.len()]]);
        }
    }

    /// The vertex of what goes round a part: a corner's own, or a new one on
    /// the wall, lit and coloured as the corner beside it.
    fn vertex(&self, m: &mut MeshLists, r: Round) -> u32 {
        match r {
            Round::Corner(c) => self.corner[c] as u32,
            Round::Wall(at, z, c) => {
                let v = self.corner[c];
                m.positions
                    .push(to_bevy(at.extend(z), DVec2::ZERO).to_array());
                m.normals.push(m.normals[v]);
                m.colors.push(m.colors[v]);
                m.positions.len() as u32 - 1
            }
        }
    }
}

/// The point on a chord's line before its last turn (`at_exit`) or after
/// its first: the turn next to it, or the crossing at its other end.
fn line_before(chord: &Chord, ring: &Ring, at_exit: bool) -> DVec2 {
    let n = chord.turns.len();
    let (other, next) = if at_exit {
        (chord.entry, n.checked_sub(2).map(|k| chord.turns[k].0))
    } else {
        (chord.exit, chord.turns.get(1).map(|t| t.0))
    };
    next.or(match other {
        End::Crossing(k) => Some(ring.crossings[k].at),
        End::Corner(_) => None,
    })
    .unwrap_or(chord.turns[0].0)
}

/// Cell `(i, j)`'s square (its sides exactly those of its neighbours').
fn cell_box(i: usize, j: usize, step: f64) -> (DVec2, DVec2) {
    let at = |i: usize, j: usize| DVec2::new(i as f64, j as f64) * step;
    (at(i, j), at(i + 1, j + 1))
}

/// The point at `t` along a piece's segment: where, its foot and its top.
fn point_at(walls: &[&[WallPoint]], p: &Piece, t: f64) -> WallPoint {
    section_at(walls[p.wall][p.seg], walls[p.wall][p.seg + 1], t)
}

#[cfg(test)]
mod tests;
