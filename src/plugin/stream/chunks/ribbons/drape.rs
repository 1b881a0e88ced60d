//! Draping a ribbon's polygons on a chunk's triangles: cut by the chunk's
//! square, its grid cells and, where a cell bends, its diagonal, each piece
//! on its ground triangle plus a lift.

use super::Chunk;
use crate::city::polygon::signed_area;
use crate::geom::bounds;
use crate::plugin::stream::coords::{dir_to_bevy, to_bevy};
use crate::plugin::stream::mesh::MeshLists;
use bevy::math::{DVec2, DVec3};
use bevy::platform::collections::HashMap;

/// A ribbon being draped: the lists its pieces go into, its vertices by
/// position (its pieces share them), and how it lies and looks.
pub(super) struct Draped<'a> {
    pub(super) out: &'a mut MeshLists,
    pub(super) shared: HashMap<[u64; 2], u32>,
    pub(super) color: [f32; 4],
    /// How far above the ground (or the deck) it lies, metres.
    pub(super) lift: f64,
    /// The deck it lies on, where that is higher than the ground.
    pub(super) deck: Option<f64>,
}

impl Chunk<'_> {
    /// Adds convex polygon `poly` (world metres) of ribbon `d` draped on the
    /// chunk's triangles: cut by the chunk's square, its grid cells and,
    /// where a cell's two triangles are not one plane, its diagonal (as
    /// [`super::triangle`] splits it), each piece at the ground's height (or
    /// the deck's, where that is higher) plus the lift, lit by the ground's
    /// normal, facing up.
    pub(super) fn drape(&self, d: &mut Draped, poly: &[DVec2]) {
        let area = signed_area(poly);
        // (Also what is not finite.)
        if area.abs().partial_cmp(&1e-9) != Some(std::cmp::Ordering::Greater) {
            return;
        }
        let (min, step) = (self.min, self.step);
        // Grid coordinates, counter-clockwise.
        let mut poly: Vec<DVec2> = poly.iter().map(|&p| (p - min) / step).collect();
        if area < 0.0 {
            poly.reverse();
        }
        let q = (self.size / step).round();
        let last = q as i64 - 1;
        // Cells `a..=b` of a span of grid coordinates, within the chunk.
        let cells =
            |a: f64, b: f64| (a.floor() as i64).clamp(0, last)..=(b.floor() as i64).clamp(0, last);
        let (mut strip, mut piece, mut half, mut cut) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        // Column by column (each cut once), then cell by cell within it.
        let (lo, hi) = bounds(&poly);
        for i in cells(lo.x, hi.x) {
            let x = i as f64;
            clip(&poly, |p| p.x - x, &mut cut);
            clip(&cut, |p| x + 1.0 - p.x, &mut strip);
            let (lo, hi) = bounds(&strip);
            for j in cells(lo.y, hi.y) {
                let y = j as f64;
                clip(&strip, |p| p.y - y, &mut cut);
                clip(&cut, |p| y + 1.0 - p.y, &mut piece);
                if piece.len() < 3 {
                    continue;
                }
                let h = |a: i64, b: i64| (self.height)(a as usize, b as usize);
                let bend = h(i, j) + h(i + 1, j + 1) - h(i + 1, j) - h(i, j + 1);
                if bend.abs() <= 1e-9 * (1.0 + h(i, j).abs()) {
                    self.piece(d, &piece);
                    continue;
                }
                // Split by the diagonal (x − i = y − j): below it, then above.
                for sign in [1.0, -1.0] {
                    clip(&piece, |p| sign * ((p.x - x) - (p.y - y)), &mut half);
                    self.piece(d, &half);
                }
            }
        }
    }

    /// Adds one convex piece (grid coordinates, counter-clockwise) of a
    /// draped polygon as a fan, its vertices shared with the ribbon's other
    /// pieces (by position).
    fn piece(&self, d: &mut Draped, piece: &[DVec2]) {
        if piece.len() < 3 || signed_area(piece) < 5e-13 {
            return;
        }
        let Draped {
            out: r,
            shared,
            color,
            lift,
            deck,
        } = d;
        let (color, lift, deck) = (*color, *lift, *deck);
        let mut vertex = |l: DVec2| {
            *shared
                .entry([l.x.to_bits(), l.y.to_bits()])
                .or_insert_with(|| {
                    let q = self.min + l * self.step;
                    let g = (self.ground)(q);
                    let z = deck.map_or(g, |d| g.max(d)) + lift;
                    let v = DVec3::new(q.x - self.min.x, q.y - self.min.y, z);
                    r.positions.push(to_bevy(v, DVec2::ZERO).to_array());
                    // On the ground, its normal; on a deck, up.
                    let up = match deck {
                        Some(d) if d > g => DVec3::Z,
                        _ => (self.normal)(q),
                    };
                    r.normals.push(dir_to_bevy(up).to_array());
                    r.colors.push(color);
                    r.positions.len() as u32 - 1
                })
        };
        let first = vertex(piece[0]);
        let mut prev = (piece[1], vertex(piece[1]));
        for &l in &piece[2..] {
            let next = (l, vertex(l));
            // Slivers (a piece's corner a hair from a cut) are left out:
            // narrower than a hundred-thousandth of their length, their
            // vertices meet in the renderer's precision.
            let (u, v) = (prev.0 - piece[0], l - piece[0]);
            if u.perp_dot(v) > 1e-5 * u.length_squared().max(v.length_squared()) {
                r.indices.extend_from_slice(&[first, prev.1, next.1]);
            }
            prev = next;
        }
    }
}

/// Convex polygon `poly` cut down to where `side(p) >= 0` (Sutherland and
/// Hodgman's step), into `out`.
fn clip(poly: &[DVec2], side: impl Fn(DVec2) -> f64, out: &mut Vec<DVec2>) {
    out.clear();
    let n = poly.len();
    for k in 0..n {
        let (a, b) = (poly[k], poly[(k + 1) % n]);
        let (sa, sb) = (side(a), side(b));
        if sa >= 0.0 {
            out.push(a);
        }
        if (sa >= 0.0) != (sb >= 0.0) {
            // From the lesser end, so that the polygons either side of a
            // cut find the same point, to the bit.
            let ((a, sa), (b, sb)) = if (a.x, a.y) <= (b.x, b.y) {
                ((a, sa), (b, sb))
            } else {
                ((b, sb), (a, sa))
            };
            out.push(a + (b - a) * (sa / (sa - sb)));
        }
    }
}
