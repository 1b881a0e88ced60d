//! A buildable piece into lots: recursive cuts across its oriented bounding
//! box, each kept only if every part keeps street frontage.

use super::LotParams;
use super::shape::{Ring, Shape};
use glam::DVec2;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::RngCore;

/// Deepest recursion of the lot cuts (2^24 lots from one piece).
const MAX_DEPTH: u32 = 24;
/// Frontage shorter than this is no street access (metres).
const MIN_ACCESS: f64 = 0.5;

fn unit(rng: &mut ChaCha8Rng) -> f64 {
    crate::num::unit(rng.next_u64())
}

/// Splits `piece` into lots (outer rings, counter-clockwise), appending to
/// `out` until it holds `cap` lots. A part is cut while it is larger than a
/// random threshold in `max_area · [0.5, 1]`, across the long or else the
/// short axis of its bounding box, near the middle; a cut stands only if
/// every part keeps `min_area` and `min_frontage`. Holes are cut open first;
/// parts with no street access are dropped.
pub(super) fn split(
    piece: Shape,
    p: &LotParams,
    rng: &mut ChaCha8Rng,
    out: &mut Vec<Ring>,
    cap: usize,
) {
    let mut stack = vec![(piece, 0u32)];
    while let Some((shape, depth)) = stack.pop() {
        if out.len() >= cap {
            return;
        }
        let parts = if shape.rings.len() > 1 {
            // A hole is opened, or the shape dropped.
            Some(
                open_hole(&shape)
                    .filter(|_| depth < MAX_DEPTH)
                    .unwrap_or_default(),
            )
        } else {
            cut_in_two(&shape, depth, p, rng)
        };
        if let Some(parts) = parts {
            stack.extend(parts.into_iter().map(|s| (s, depth + 1)));
            continue;
        }
        let ring = shape.rings.into_iter().next().expect("a shape has a ring");
        let access: f64 = (ring.edges())
            .filter(|e| e.2.is_some())
            .map(|(a, b, _)| a.distance(b))
            .sum();
        if access >= MIN_ACCESS {
            out.push(ring);
        }
    }
}

/// The parts of one lot cut of a shape without holes, or `None` when the
/// shape is a lot already (small enough, or no cut keeps every part at
/// `min_area` and `min_frontage`).
fn cut_in_two(
    shape: &Shape,
    depth: u32,
    p: &LotParams,
    rng: &mut ChaCha8Rng,
) -> Option<Vec<Shape>> {
    let area = shape.area();
    let threshold = p.max_area * (0.5 + 0.5 * unit(rng));
    if area <= threshold || area < 2.0 * p.min_area || depth >= MAX_DEPTH {
        return None;
    }
    let ok = |s: &Shape| s.area() >= p.min_area && s.frontage() >= p.min_frontage;
    let (long, u, v) = shape.obb();
    for (n, (lo, hi)) in [(long, u), (long.perp(), v)] {
        let f = 0.5 + p.split_jitter * (2.0 * unit(rng) - 1.0);
        if let Some([a, b]) = shape.cut(n, lo + (hi - lo) * f, None) {
            let parts: Vec<Shape> = a.into_iter().chain(b).collect();
            if parts.iter().all(ok) {
                return Some(parts);
            }
        }
    }
    None
}

/// Cuts a shape with holes through its first hole (a line across the
/// hole's longest edge at its middle), so that the hole opens to the outside.
fn open_hole(shape: &Shape) -> Option<Vec<Shape>> {
    let hole = &shape.rings[1];
    let (a, b, _) = hole
        .edges()
        .max_by(|x, y| x.0.distance(x.1).total_cmp(&y.0.distance(y.1)))?;
    let n = (b - a).normalize_or_zero();
    if n == DVec2::ZERO {
        return None;
    }
    let [x, y] = shape.cut(n, n.dot((a + b) / 2.0), None)?;
    Some(x.into_iter().chain(y).collect())
}
