//! What stops a path: lake and town, an earlier segment of another start's
//! path, or one proposed in the same round that gets there first; and the
//! crossings between paths of the same start, which become junctions.
//!
//! Only clear crossings become junctions: where a path would touch its own
//! start's roads at an end of a segment, or run along a road (nearly
//! parallel and touching), splitting both segments at a rounded point could
//! leave them touching elsewhere, so the path stops there instead (as it
//! does on any other start's road). This keeps the roads planar even when a
//! large turn brings a path back onto itself.

use super::cells::{cells_between, first_shared};
use super::sim::{Proposal, Sim};
use glam::DVec2;

/// Points this close (metres) count as one: far above the rounding in a
/// point computed on a segment, far below anything a road can mean.
pub(super) const TOUCH: f64 = 1e-6;

/// Below this sine of their angle, two segments that meet run along each
/// other: where they cross is too ill-conditioned to split both there.
const GRAZE: f64 = 1e-3;

/// How segment `a–b` meets segment `c0–c1` (`t` along the first, `u` along
/// the second, both in `[0, 1]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Contact {
    /// A clear crossing, away from every end (`t` and `u` exactly as
    /// [`crate::geom::segment_intersection`] gives them).
    Cross { t: f64, u: f64 },
    /// They touch at or within [`TOUCH`] of an end of one of them (`at_a`:
    /// of `a`; `at_c0`: of `c0`).
    Touch {
        t: f64,
        u: f64,
        at_a: bool,
        at_c0: bool,
    },
    /// Nearly parallel, and within [`TOUCH`] of each other somewhere beyond
    /// `a`: `a–b` would run along `c0–c1`.
    Along,
}

/// How segment `a–b` meets segment `c0–c1`, if it does (both of nonzero
/// length).
pub(super) fn contact(a: DVec2, b: DVec2, c0: DVec2, c1: DVec2) -> Option<Contact> {
    let r = b - a;
    let s = c1 - c0;
    let denom = r.perp_dot(s);
    let d = c0 - a;
    let (lr, ls) = (r.length(), s.length());
    let (et, eu) = (TOUCH / lr, TOUCH / ls);
    // Where the lines cross, if they do: the same arithmetic as
    // `segment_intersection`, with room for touching.
    let crossing = (denom != 0.0 && denom.is_finite())
        .then(|| (d.perp_dot(s) / denom, d.perp_dot(r) / denom))
        .filter(|&(t, u)| (-et..=1.0 + et).contains(&t) && (-eu..=1.0 + eu).contains(&u));
    // Nearly parallel lines cross where they are about to be parallel: only
    // a point on both counts.
    let crossing = crossing.filter(|&(t, u)| (a + r * t).distance(c0 + s * u) <= TOUCH);
    let clear_angle = denom.abs() >= GRAZE * lr * ls;
    if !clear_angle {
        // Nearly parallel: they run along each other if they meet anywhere
        // beyond `a` (at `a` alone they only touch, as paths leaving one
        // start point do).
        let near_ab = |p: DVec2| {
            let (q, t) = crate::geom::closest_on_segment(p, a, b);
            q.distance(p) <= TOUCH && t > et
        };
        let near_cd = |p: DVec2| crate::geom::distance_to_segment(p, c0, c1) <= TOUCH;
        let along =
            crossing.is_some_and(|(t, _)| t > et) || near_cd(b) || near_ab(c0) || near_ab(c1);
        return along.then_some(Contact::Along);
    }
    let (t, u) = crossing?;
    Some(if t > et && t < 1.0 - et && u > eu && u < 1.0 - eu {
        Contact::Cross { t, u }
    } else {
        Contact::Touch {
            t: t.clamp(0.0, 1.0),
            u: u.clamp(0.0, 1.0),
            at_a: t <= et,
            at_c0: u <= eu,
        }
    })
}

/// A junction point to insert into a path's segment. (Its place along the
/// segment is its distance from the segment's start: a fraction would be of
/// the segment proposed or of the one laid, which differ where the path
/// stopped short.)
pub(super) struct Insert {
    pub(super) path: usize,
    pub(super) seg: usize,
    pub(super) point: DVec2,
}

/// What stops a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Obstacle {
    /// Lake or town, or a road the path would run along (nothing to meet:
    /// the segment ends there).
    Ground,
    /// An existing segment of another start's path (or of its own start's,
    /// touched rather than crossed).
    Old { path: usize, seg: usize, u: f64 },
    /// Another path growing in the same round, arriving at `u` (its own time
    /// within the round); valid if it gets there.
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
    /// start's paths) against laid and proposed segments; returns how many
    /// filed segments it looked at.
    pub(super) fn meetings(
        &self,
        i: usize,
        round: u32,
        props: &[Proposal],
        events: &mut Vec<Event>,
        crosses: &mut Vec<Cross>,
    ) -> u64 {
        let Proposal {
            a, b, span, near, ..
        } = props[i];
        let me = self.start_id(i);
        let (mine, hi) = span;
        let mut tests = 0;
        for c in cells_between(mine, hi) {
            let cell = self.cells.index(c);
            for e in self.segments.iter(cell) {
                tests += 1;
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
                let (t, u, clear) = match contact(a, b, c0, c1) {
                    None | Some(Contact::Touch { at_a: true, .. }) => {
                        continue; // At the tip: met before, nothing new.
                    }
                    Some(Contact::Along) => {
                        events.push(Event {
                            t: 0.0,
                            path: i,
                            obstacle: Obstacle::Ground,
                        });
                        continue;
                    }
                    Some(Contact::Cross { t, u }) => (t, u, true),
                    Some(Contact::Touch { t, u, .. }) => (t, u, false),
                };
                let point = c0.lerp(c1, u);
                if clear && self.start_id(j) == me {
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
        tests
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
        let Proposal {
            a: c0,
            b: c1,
            seg: k_seg,
            ..
        } = props[k];
        let (me, other) = (self.start_id(i), self.start_id(k));
        let (t, u, clear) = match contact(a, b, c0, c1) {
            None => return,
            Some(Contact::Along) => {
                events.push(Event {
                    t: 0.0,
                    path: i,
                    obstacle: Obstacle::Ground,
                });
                return;
            }
            Some(Contact::Cross { t, u }) => (t, u, true),
            // Tips that touch were handled when they met, but for a start
            // point: the start's paths are there from the beginning, so
            // another start's path passing through it meets them there.
            Some(Contact::Touch { at_a: true, .. }) => return,
            Some(Contact::Touch { at_c0: true, .. }) if k_seg != 0 || other == me => return,
            Some(Contact::Touch { t, u, .. }) => (t, u, false),
        };
        if clear && other == me {
            if i < k {
                crosses.push(Cross {
                    a: (i, t),
                    b: (k, 0, u, true),
                    point: c0.lerp(c1, u),
                });
            }
        } else if u < t || (u == t && self.paths[k].key < self.paths[i].key) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::segment_intersection;

    fn v(x: f64, y: f64) -> DVec2 {
        DVec2::new(x, y)
    }

    #[test]
    fn contacts_tell_crossings_from_touches_and_runs_along() {
        let (a, b) = (v(0.0, 0.0), v(10.0, 0.0));
        // A clear crossing: exactly the bits of `segment_intersection`.
        let (c0, c1) = (v(3.0, -4.0), v(4.0, 5.0));
        let (t, u) = segment_intersection(a, b, c0, c1).unwrap();
        assert_eq!(contact(a, b, c0, c1), Some(Contact::Cross { t, u }));
        // Apart.
        assert_eq!(contact(a, b, v(3.0, 1.0), v(4.0, 5.0)), None);
        // Touching an end of the other segment, or with the far end.
        assert_eq!(
            contact(a, b, v(5.0, 0.0), v(5.0, 5.0)),
            Some(Contact::Touch {
                t: 0.5,
                u: 0.0,
                at_a: false,
                at_c0: true
            })
        );
        assert_eq!(
            contact(a, b, v(10.0, -3.0), v(10.0, 3.0)),
            Some(Contact::Touch {
                t: 1.0,
                u: 0.5,
                at_a: false,
                at_c0: false
            })
        );
        // Within a micrometre short of it counts as touching.
        let short = contact(a, v(10.0 - 1e-9, 0.0), v(10.0, -3.0), v(10.0, 3.0));
        assert!(
            matches!(short, Some(Contact::Touch { t: 1.0, .. })),
            "{short:?}"
        );
        // Leaving a point on the other segment.
        assert!(matches!(
            contact(a, b, v(0.0, -3.0), v(0.0, 3.0)),
            Some(Contact::Touch { at_a: true, .. })
        ));
        // Running along the other, overlapping or nearly parallel and close.
        assert_eq!(
            contact(a, b, v(5.0, 0.0), v(15.0, 0.0)),
            Some(Contact::Along)
        );
        assert_eq!(
            contact(a, b, v(12.0, 1e-7), v(2.0, -1e-7)),
            Some(Contact::Along)
        );
        // Nearly parallel, apart, or only sharing `a` (two paths leaving one
        // start point in opposite directions).
        assert_eq!(contact(a, b, v(0.0, 1e-3), v(10.0, 1e-3)), None);
        assert_eq!(contact(a, b, a, v(-10.0, 1e-12)), None);
    }
}
