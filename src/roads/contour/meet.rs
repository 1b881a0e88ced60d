//! What stops a path: lake and town, an earlier segment of another start's
//! path, or one proposed in the same round that gets there first; and the
//! crossings between paths of the same start, which become junctions.

use super::cells::{cells_between, first_shared};
use super::sim::{Proposal, Sim};
use crate::geom::segment_intersection;
use glam::DVec2;

/// A junction point to insert into a path's segment.
pub(super) struct Insert {
    pub(super) path: usize,
    pub(super) seg: usize,
    pub(super) u: f64,
    pub(super) point: DVec2,
}

/// What stops a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Obstacle {
    /// Lake or town (or nothing: the segment ends there).
    Ground,
    /// An existing segment of another start's path.
    Old { path: usize, seg: usize, u: f64 },
    /// Another start's path growing in the same round, arriving at `u` (its
    /// own time within the round); valid if it gets there.
    New { path: usize, u: f64 },
}

/// What could stop `path` at `t` (its own time within the round).
pub(super) struct Event {
    pub(super) t: f64,
    pub(super) path: usize,
    pub(super) obstacle: Obstacle,
}

/// A crossing between paths of the same start: a junction, not a stop.
pub(super) struct Cross {
    pub(super) a: (usize, f64),
    pub(super) b: (usize, usize, f64, bool),
    pub(super) point: DVec2,
}

impl Sim<'_> {
    /// Every event that could stop proposal `i` (and crossings with its own
    /// start's paths) against laid and proposed segments.
    pub(super) fn meetings(
        &self,
        i: usize,
        round: u32,
        props: &[Proposal],
        events: &mut Vec<Event>,
        crosses: &mut Vec<Cross>,
    ) {
        let Proposal {
            a, b, span, near, ..
        } = props[i];
        let me = self.start_id(i);
        let (mine, hi) = span;
        for c in cells_between(mine, hi) {
            let cell = self.cells.index(c);
            for e in self.segments.iter(cell) {
                let (j, s, lo) = (e.path as usize, e.seg as usize, e.lo);
                // A pair sharing several cells is seen in the first only.
                if (c != first_shared(mine, (lo.0 as i64, lo.1 as i64))) | near.apart(&e.near) {
                    continue;
                }
                if e.round == round {
                    self.meet_proposal(i, j, props, events, crosses);
                    continue;
                }
                let points = &self.paths[j].points;
                // Not laid (its path stopped where it began), or the path's
                // own last segment, which shares the tip.
                if s + 1 >= points.len() || (j == i && s + 2 == points.len()) {
                    continue;
                }
                let (c0, c1) = (points[s], points[s + 1]);
                let Some((t, u)) = segment_intersection(a, b, c0, c1) else {
                    continue;
                };
                if t == 0.0 {
                    continue; // At the tip: met before, nothing new.
                }
                let point = c0.lerp(c1, u);
                if self.start_id(j) == me {
                    crosses.push(Cross {
                        a: (i, t),
                        b: (j, s, u, false),
                        point,
                    });
                } else {
                    events.push(Event {
                        t,
                        path: i,
                        obstacle: Obstacle::Old { path: j, seg: s, u },
                    });
                }
            }
        }
    }

    /// What proposal `k` means for proposal `i` (both of this round).
    fn meet_proposal(
        &self,
        i: usize,
        k: usize,
        props: &[Proposal],
        events: &mut Vec<Event>,
        crosses: &mut Vec<Cross>,
    ) {
        if k == i {
            return;
        }
        let Proposal { a, b, .. } = props[i];
        let Proposal { a: c0, b: c1, .. } = props[k];
        let Some((t, u)) = segment_intersection(a, b, c0, c1) else {
            return;
        };
        if t == 0.0 || u == 0.0 {
            return; // Tips that touch were handled when they met.
        }
        let (me, other) = (self.start_id(i), self.start_id(k));
        if other == me {
            if i < k {
                crosses.push(Cross {
                    a: (i, t),
                    b: (k, 0, u, true),
                    point: c0.lerp(c1, u),
                });
            }
        } else if u < t || (u == t && other < me) {
            events.push(Event {
                t,
                path: i,
                obstacle: Obstacle::New { path: k, u },
            });
        }
    }

    /// A total, canonical order of events: time, the path stopped, then what
    /// stops it (so nothing depends on which area was simulated).
    pub(super) fn event_order(&self, x: &Event, y: &Event) -> std::cmp::Ordering {
        let key = |o: Obstacle| match o {
            Obstacle::Ground => (0, ((0, 0), 0), 0, 0.0),
            Obstacle::Old { path, seg, u } => (1, self.paths[path].key, seg, u),
            Obstacle::New { path, u } => (2, self.paths[path].key, 0, u),
        };
        let (kx, ky) = (key(x.obstacle), key(y.obstacle));
        x.t.total_cmp(&y.t)
            .then(self.paths[x.path].key.cmp(&self.paths[y.path].key))
            .then(kx.0.cmp(&ky.0))
            .then(kx.1.cmp(&ky.1))
            .then(kx.2.cmp(&ky.2))
            .then(kx.3.total_cmp(&ky.3))
    }
}
