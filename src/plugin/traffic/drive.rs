//! How a vehicle drives its route (its speed on each segment: its road's
//! class, slowed on grades and near junctions; its pose on the right-hand
//! lane), and how a pedestrian walks one (at walking pace, slower on
//! grades, near the right-hand edge). Pure: no Bevy.

use crate::network::{RoadClass, RoadNetwork, Route, grade_factor};
use bevy::math::{DVec2, DVec3};

/// Within this distance (m) of a point where the route changes road,
/// vehicles slow to [`JUNCTION_SLOW`] of their speed.
pub const JUNCTION_ZONE: f64 = 15.0;
/// The fraction of its speed a vehicle keeps near a junction.
pub const JUNCTION_SLOW: f64 = 0.6;
/// How far right of the centre line vehicles drive, as a fraction of the
/// road's width (a quarter: the middle of the right-hand lane).
pub const LANE: f64 = 0.25;
/// How far in from the road's right-hand edge pedestrians walk (m).
pub const KERB: f64 = 0.75;

/// Who travels: vehicles drive, pedestrians walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// On every road but footways, at the class's speed.
    Drive,
    /// On streets and footways, at walking pace.
    Walk,
}

impl Mode {
    /// Whether this mode uses roads of `class`.
    pub fn uses(self, class: RoadClass) -> bool {
        match self {
            Self::Drive => class != RoadClass::Path,
            Self::Walk => matches!(class, RoadClass::Street | RoadClass::Path),
        }
    }
}

/// What a vehicle needs to drive its route, worked out once per route.
#[derive(Clone, Debug, Default)]
pub(super) struct Plan {
    /// Cumulative 3D distance (m) at each route point.
    cum: Vec<f64>,
    /// Per segment: the speed on it (m/s), class and grade.
    speed: Vec<f64>,
    /// Per segment: how far right of the centre line (m).
    lane: Vec<f64>,
    /// The distances along the route where it changes road, ascending.
    turns: Vec<f64>,
}

impl Plan {
    /// The plan of `route` for `mode`, found on `net` (whose road indices it
    /// names).
    pub fn new(route: &Route, net: &RoadNetwork, mode: Mode) -> Self {
        let pts = &route.points;
        let mut cum = Vec::with_capacity(pts.len());
        let mut acc = 0.0;
        cum.push(0.0);
        for w in pts.windows(2) {
            acc += w[0].distance(w[1]);
            cum.push(acc);
        }
        let n = pts.len().saturating_sub(1);
        let (mut speed, mut lane) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for (i, w) in pts.windows(2).enumerate() {
            let j = route.road_ends.partition_point(|&e| e <= i);
            let road = (route.roads.get(j)).and_then(|&r| net.roads.get(r));
            let (class, width) = road.map_or((RoadClass::Road, 6.0), |r| (r.class, r.width));
            let run = w[0].truncate().distance(w[1].truncate());
            let grade = (w[1].z - w[0].z) / run;
            // On foot, every road is walked at a footway's pace.
            let class = if mode == Mode::Walk {
                RoadClass::Path
            } else {
                class
            };
            speed.push(class.speed() * grade_factor(class, grade));
            lane.push(match mode {
                Mode::Drive => LANE * width,
                Mode::Walk => (width / 2.0 - KERB).max(0.0),
            });
        }
        // Pedestrians do not slow at junctions.
        let turns = match mode {
            Mode::Drive => (route.road_ends.iter())
                .take(route.road_ends.len().saturating_sub(1))
                .map(|&e| cum[e.min(cum.len() - 1)])
                .collect(),
            Mode::Walk => Vec::new(),
        };
        Self {
            cum,
            speed,
            lane,
            turns,
        }
    }

    /// The route's length (m).
    pub fn length(&self) -> f64 {
        self.cum.last().copied().unwrap_or(0.0)
    }

    /// The segment holding `progress`, looking on from `from` (a vehicle's
    /// last segment: it only moves on).
    pub fn segment(&self, progress: f64, from: usize) -> usize {
        let last = self.speed.len().saturating_sub(1);
        let mut i = from.min(last);
        while i < last && self.cum[i + 1] <= progress {
            i += 1;
        }
        i
    }

    /// The speed (m/s) at `progress` on segment `seg`: its class's, slowed
    /// on its grade and within [`JUNCTION_ZONE`] of a turn.
    pub fn speed_at(&self, progress: f64, seg: usize) -> f64 {
        let v = self.speed.get(seg).copied().unwrap_or(0.0);
        let k = self.turns.partition_point(|&t| t < progress);
        let near = |t: Option<&f64>| t.is_some_and(|t| (t - progress).abs() <= JUNCTION_ZONE);
        if near(self.turns.get(k)) || near(k.checked_sub(1).and_then(|k| self.turns.get(k))) {
            v * JUNCTION_SLOW
        } else {
            v
        }
    }

    /// Where a vehicle at `progress` on segment `seg` is (on the right-hand
    /// lane, on the profile) and where it heads (a unit 3D vector).
    pub fn pose(&self, route: &Route, progress: f64, seg: usize) -> (DVec3, DVec3) {
        let pts = &route.points;
        let Some(&a) = pts.get(seg) else {
            return (DVec3::ZERO, DVec3::X);
        };
        let b = pts.get(seg + 1).copied().unwrap_or(a);
        let len = self.cum.get(seg + 1).map_or(0.0, |c| c - self.cum[seg]);
        let t = if len > 0.0 {
            ((progress - self.cum[seg]) / len).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let dir = (b - a).normalize_or(DVec3::X);
        let flat = DVec2::new(dir.x, dir.y).normalize_or_zero();
        let right = DVec2::new(flat.y, -flat.x) * self.lane.get(seg).copied().unwrap_or(0.0);
        (a.lerp(b, t) + right.extend(0.0), dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{Road, RoadClass};

    #[test]
    fn speeds_lanes_and_turns() {
        // East on a flat road, then north up a 10 % street.
        let mut a = Road::new(
            vec![DVec2::new(0.0, 0.0), DVec2::new(100.0, 0.0)],
            RoadClass::Road,
            8.0,
        );
        a.z = vec![0.0, 0.0];
        let mut b = Road::new(
            vec![DVec2::new(100.0, 0.0), DVec2::new(100.0, 100.0)],
            RoadClass::Street,
            6.0,
        );
        b.z = vec![0.0, 10.0];
        let net = RoadNetwork::from_roads(vec![a, b]);
        let route = net
            .route(
                DVec2::new(0.0, 0.0),
                DVec2::new(100.0, 100.0),
                crate::network::RouteCost::Length,
            )
            .unwrap();
        let plan = Plan::new(&route, &net, Mode::Drive);
        assert!((plan.length() - route.length).abs() < 1e-9);
        // Flat road: full speed away from the turn, 60 % near it.
        assert_eq!(plan.speed_at(10.0, 0), 18.0);
        assert_eq!(plan.speed_at(90.0, 0), 18.0 * JUNCTION_SLOW);
        let s = plan.segment(150.0, 0);
        assert_eq!(s, 1);
        assert!((plan.speed_at(150.0, s) - 12.0 * 0.7).abs() < 1e-9);
        // Right of the way: south of an eastward road, east of a northward one.
        let (p, d) = plan.pose(&route, 50.0, 0);
        assert_eq!(p, DVec3::new(50.0, -2.0, 0.0));
        assert_eq!(d, DVec3::X);
        let (q, _) = plan.pose(&route, 100.0 + 50.0 * 101f64.sqrt() / 10.0, 1);
        assert!((q - DVec3::new(101.5, 50.0, 5.0)).length() < 1e-9, "{q}");
        // On foot: walking pace, slower on the grade (2·|grade|), no
        // slowing at the turn, near the right-hand edge.
        let walk = Plan::new(&route, &net, Mode::Walk);
        assert_eq!(walk.speed_at(10.0, 0), 1.4);
        assert_eq!(walk.speed_at(99.0, 0), 1.4);
        assert!((walk.speed_at(150.0, 1) - 1.4 * 0.8).abs() < 1e-9);
        let (p, _) = walk.pose(&route, 50.0, 0);
        assert_eq!(p, DVec3::new(50.0, -(4.0 - KERB), 0.0));
        assert!(Mode::Walk.uses(RoadClass::Path) && !Mode::Drive.uses(RoadClass::Path));
        assert!(!Mode::Walk.uses(RoadClass::Highway) && Mode::Drive.uses(RoadClass::Street));
    }
}
