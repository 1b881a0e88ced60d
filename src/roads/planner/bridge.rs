//! Bridges for the A* graph: where a segment is wet and bridges are
//! allowed, a straight, costed move along the same bearing to the first
//! dry cell within `max_span`, cached per cell and move.

use super::cost::{SegTerrain, deck};
use super::graph::SearchGraph;
use super::paged::Paged;

/// A cached bridge along a wet segment: `steps` moves long (0 unknown, −1
/// none), its length, weighted slope part and grade.
#[derive(Clone, Copy, Debug)]
pub(super) struct Deck {
    pub steps: i32,
    pub len: f64,
    pub base: f64,
    pub grade: f64,
}

/// The bridge cache of window `win` (`k` moves): the whole window with
/// `bridges`, a single cell (never used) without.
pub(super) fn decks(win: (i64, i64, i64, i64), k: usize, bridges: bool) -> Paged<Deck> {
    let none = Deck {
        steps: 0,
        len: 0.0,
        base: 0.0,
        grade: 0.0,
    };
    let w = if bridges { win } else { (0, 0, 0, 0) };
    Paged::new(w.0, w.1, w.2, w.3, k, none)
}

impl SearchGraph<'_> {
    /// A bridge from cell `(i, j)` along move `m`: the first dry cell within
    /// `max_span`, as (its distance in moves, the deck's terrain part).
    fn bridge(&mut self, i: i64, j: i64, m: usize) -> Option<(i64, SegTerrain)> {
        let (di, dj) = self.moves[m];
        let p = self.frame.point(i, j);
        let sub = self.frame.sub;
        for k in 1..=1024 {
            let (qi, qj) = (i + k * di, j + k * dj);
            let q = self.frame.point(qi, qj);
            if !self.inside(qi, qj) || p.distance(q) > self.params.max_span {
                return None;
            }
            // Dry where it lands; the deck's grade on the costed ground.
            if self.height(qi * sub, qj * sub) >= self.frame.lake {
                let (zp, zq) = (
                    self.ground(i * sub, j * sub),
                    self.ground(qi * sub, qj * sub),
                );
                return Some((k, deck(p, q, zp, zq)));
            }
        }
        None
    }

    /// [`Self::bridge`], cached.
    pub(super) fn deck(&mut self, i: i64, j: i64, m: usize) -> Deck {
        let s = self.decks.slot(i, j) + m;
        if self.decks.data[s].steps == 0 {
            let w = self.params.weights;
            self.decks.data[s] = match self.bridge(i, j, m) {
                Some((k, seg)) => Deck {
                    steps: k as i32,
                    len: seg.len,
                    base: w.slope * (seg.len * seg.grade.abs() + seg.p3 + seg.p4),
                    grade: seg.grade,
                },
                None => Deck {
                    steps: -1,
                    ..self.decks.data[s]
                },
            };
        }
        self.decks.data[s]
    }
}
