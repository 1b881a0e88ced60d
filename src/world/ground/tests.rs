//! The built ground over the reference city: profiles within their limits
//! and one height at every junction, carriageways flat on their profiles,
//! level pads under buildings, the natural ground beyond the reach, bridges
//! and tunnels where the fill or cut would be too high, region-stable
//! heights, and parameters checked.

use super::super::{Region, RoadSystem, RoadSystemParams};
use super::profile::{stations, steepest};
use super::works::MIN_STEP;
use super::{EarthworkParams, StructureKind};
use crate::network::RoadClass;
use crate::terrain::{BuiltKind, Terrain};
use glam::DVec2;
use std::sync::OnceLock;

/// Around the reference city of cell (1, 0) (centre about (9850, 4250)):
/// its streets and lots, highways, contour roads.
fn area() -> (DVec2, DVec2) {
    (DVec2::new(9000.0, 3500.0), DVec2::new(10600.0, 5000.0))
}

/// The region of [`area`] with the default parameters (made once).
fn region() -> &'static (Terrain, Region) {
    static R: OnceLock<(Terrain, Region)> = OnceLock::new();
    R.get_or_init(|| {
        let t = Terrain::default();
        let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
        let (min, max) = area();
        let r = sys.region(&t, min, max).unwrap();
        (t, r)
    })
}

/// Whether segment `k` of road `i` is on a bridge or in a tunnel.
fn on_structure(r: &Region, i: usize, k: usize) -> bool {
    let road = &r.network.roads[i];
    r.structures.iter().any(|s| {
        s.road == Some(i)
            && s.kind != StructureKind::Wall
            && (road
                .points
                .iter()
                .position(|p| p.x == s.line[0].x && p.y == s.line[0].y))
            .is_some_and(|first| first <= k && k < first + s.line.len() - 1)
    })
}

#[test]
fn profiles_keep_their_grade_limits() {
    let (_, r) = region();
    let e = EarthworkParams::default();
    let mut country = Vec::new();
    let mut seen = [0; 5];
    for road in &r.network.roads {
        assert!(road.has_profile(), "{:?}", road.class);
        let s = stations(&road.points);
        let grades: Vec<f64> = (1..s.len())
            .map(|k| (road.z[k] - road.z[k - 1]).abs() / (s[k] - s[k - 1]))
            .collect();
        seen[road.class as usize] += 1;
        match road.class {
            RoadClass::Highway => {
                assert!(steepest(&s, &road.z) <= e.max_grade.highway + 1e-9)
            }
            // Towns' junctions settle so that streets keep their limit (a
            // stretch that cannot became steps).
            RoadClass::Street => assert!(
                steepest(&s, &road.z) <= e.max_grade.street * 1.01 + 1e-9,
                "{}",
                steepest(&s, &road.z)
            ),
            // Contour roads (a town's avenues are its streets).
            RoadClass::Road if road.width == RoadSystemParams::default().contour.width => {
                country.extend(grades)
            }
            _ => {}
        }
    }
    assert!(seen[RoadClass::Highway as usize] > 0 && seen[RoadClass::Street as usize] > 0);
    country.sort_by(f64::total_cmp);
    let p95 = country[country.len() * 95 / 100];
    assert!(p95 <= e.max_grade.road + 1e-9, "country roads p95 {p95}");
}

#[test]
fn roads_meet_at_one_height_unless_one_bridges_the_other() {
    let (_, r) = region();
    let mut met = 0;
    for j in &r.network.junctions {
        let at: Vec<(usize, usize)> = (j.roads.iter())
            .map(|&i| {
                (
                    i,
                    r.network.roads[i]
                        .points
                        .iter()
                        .position(|&p| p == j.pos)
                        .unwrap(),
                )
            })
            .collect();
        // A road that ends on another meets it (or stops short of it): only
        // roads passing through may pass over one another.
        let ends = at
            .iter()
            .any(|&(i, k)| k == 0 || k + 1 == r.network.roads[i].points.len());
        let bridged = !ends
            && at.iter().any(|&(i, k)| {
                let n = r.network.roads[i].points.len();
                on_structure(r, i, k)
                    || (k > 0 && on_structure(r, i, k - 1))
                    || (k + 1 < n && on_structure(r, i, k.min(n - 2)))
            });
        if bridged {
            continue;
        }
        let zs: Vec<f64> = at.iter().map(|&(i, k)| r.network.roads[i].z[k]).collect();
        let (lo, hi) = zs
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), &z| (a.min(z), b.max(z)));
        assert!(hi - lo <= 0.01, "junction at {}: {zs:?}", j.pos);
        met += 1;
    }
    assert!(met > 50, "{met}");
}

#[test]
fn carriageways_lie_flat_on_their_profiles() {
    let (_, r) = region();
    let g = &r.ground;
    let (min, max) = (r.min, r.max);
    let (mut n, mut flat, mut under) = (0, 0, 0);
    for (i, road) in r.network.roads.iter().enumerate() {
        for k in 0..road.points.len() - 1 {
            let (a, b) = (road.points[k], road.points[k + 1]);
            let m = a.lerp(b, 0.5);
            if on_structure(r, i, k) || !(m.cmpge(min).all() && m.cmplt(max).all()) {
                continue;
            }
            let z = 0.5 * (road.z[k] + road.z[k + 1]);
            // A town may have put a building on a highway that crosses it
            // (its layout knows only those ending at its gates): the
            // building stands level there.
            let natural = g.terrain().height(m.x, m.y);
            if g.built(m, natural)
                .is_some_and(|b| b.kind == BuiltKind::Pad)
            {
                under += 1;
                continue;
            }
            // Near a junction a point may be on the carriageway of a road
            // through it that ranks first there: then its profile.
            let near: Vec<usize> = (r.network.junctions.iter())
                .filter(|j| j.pos.distance(m) < 15.0)
                .flat_map(|j| j.roads.iter().copied())
                .collect();
            let h = g.height(m.x, m.y);
            let on = |o: usize| {
                let q = &r.network.roads[o];
                (0..q.points.len() - 1).any(|s| {
                    let (c, t) = crate::geom::closest_on_segment(m, q.points[s], q.points[s + 1]);
                    let zq = q.z[s] + t * (q.z[s + 1] - q.z[s]);
                    c.distance(m) <= q.width / 2.0 + 1.0 && (h - zq).abs() < 1e-6
                })
            };
            let off = (h - z).abs();
            assert!(
                off < 1e-6 || near.iter().any(|&o| on(o)),
                "road {i} at {m}: {off}"
            );
            let near = !near.is_empty();
            // Across, away from junctions (where carriageways overlap): the
            // profile's height out to the edges.
            if near {
                continue;
            }
            let side = (b - a).perp().normalize() * (road.width / 2.0 - 0.01);
            n += 1;
            flat += usize::from(
                [m + side, m - side]
                    .iter()
                    .all(|q| (g.height(q.x, q.y) - z).abs() <= 0.02 * road.width),
            );
        }
    }
    assert!(n > 500 && flat as f64 >= 0.99 * n as f64, "{flat} of {n}");
    assert!(under * 100 < n, "{under} under buildings");
}

#[test]
fn buildings_stand_level_on_their_pads() {
    let (_, r) = region();
    let mut n = 0;
    for b in r.layouts.iter().flat_map(|l| l.buildings()) {
        let c = b.footprint.iter().sum::<DVec2>() / b.footprint.len() as f64;
        if !(c.cmpge(r.min).all() && c.cmplt(r.max).all()) {
            continue;
        }
        n += 1;
        for q in b.footprint.iter().map(|v| v.lerp(c, 0.02)).chain([c]) {
            let h = r.ground.height(q.x, q.y);
            assert!(
                (h - b.base).abs() <= 0.1,
                "building at {c}: ground {h} base {}",
                b.base
            );
        }
    }
    assert!(n > 100, "{n}");
}

#[test]
fn beyond_the_reach_the_ground_is_natural_bit_for_bit() {
    let (t, r) = region();
    let e = EarthworkParams::default();
    let reach = e.max_reach;
    let (min, max) = (r.min + DVec2::splat(reach), r.max - DVec2::splat(reach));
    let segs: Vec<(DVec2, DVec2)> = (r.network.roads.iter())
        .flat_map(|road| road.points.windows(2).map(|w| (w[0], w[1])))
        .collect();
    let lots: Vec<DVec2> = (r.layouts.iter())
        .flat_map(|l| l.lots.iter().flat_map(|lot| lot.polygon.iter().copied()))
        .collect();
    let mut natural = 0;
    for j in 0..60 {
        for i in 0..60 {
            let p = min + (max - min) * DVec2::new(i as f64 + 0.37, j as f64 + 0.61) / 60.0;
            let far = segs
                .iter()
                .all(|&(a, b)| crate::geom::distance_to_segment(p, a, b) > reach)
                && lots.iter().all(|v| v.distance(p) > reach + 100.0);
            if far {
                assert_eq!(
                    r.ground.height(p.x, p.y).to_bits(),
                    t.height(p.x, p.y).to_bits()
                );
                natural += 1;
            }
        }
    }
    assert!(natural > 20, "{natural}");
}

#[test]
fn fills_and_cuts_past_their_limits_are_bridges_and_tunnels() {
    let (t, r) = region();
    let e = EarthworkParams::default();
    let lake = t.params().lake_level;
    let (mut bridges, mut tunnels) = (0, 0);
    for (i, road) in r.network.roads.iter().enumerate() {
        for k in 0..road.points.len() - 1 {
            if on_structure(r, i, k) {
                continue;
            }
            for v in [k, k + 1] {
                let q = road.points[v];
                let natural = t.height(q.x, q.y);
                let inner = (v == k && k > 0 && on_structure(r, i, k - 1))
                    || (v == k + 1 && k + 2 < road.points.len() && on_structure(r, i, k + 1));
                if inner {
                    continue;
                }
                assert!(natural >= lake, "road {i} on the water at {q}");
                assert!(road.z[v] - natural <= e.max_fill + 1e-9, "fill at {q}");
                assert!(natural - road.z[v] <= e.max_cut + 1e-9, "cut at {q}");
            }
        }
    }
    for s in &r.structures {
        assert_eq!(s.line.len(), s.foot.len());
        match s.kind {
            StructureKind::Bridge => bridges += 1,
            StructureKind::Tunnel => tunnels += 1,
            StructureKind::Wall => assert!(s.road.is_none()),
        }
        if s.kind != StructureKind::Wall {
            assert!(s.road.is_some());
        }
    }
    assert!(bridges > 0 && tunnels > 0, "{bridges} {tunnels}");
}

#[test]
fn the_built_ground_is_region_stable() {
    let (t, r) = region();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let (min, max) = (
        r.min + DVec2::new(300.0, 400.0),
        r.min + DVec2::new(900.0, 1000.0),
    );
    let alone = sys.region(t, min, max).unwrap();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    alone
        .ground
        .heights_grid(min.x, min.y, 2.0, 300, 300, &mut a)
        .unwrap();
    r.ground
        .heights_grid(min.x, min.y, 2.0, 300, 300, &mut b)
        .unwrap();
    let differ = a
        .iter()
        .zip(&b)
        .filter(|(x, y)| x.to_bits() != y.to_bits())
        .count();
    assert_eq!(differ, 0, "of {}", a.len());
    // The grid is the point query, bit for bit, and something is built.
    let mut built = 0;
    for (k, h) in a.iter().enumerate().step_by(97) {
        let (x, y) = (
            min.x + (k % 300) as f64 * 2.0,
            min.y + (k / 300) as f64 * 2.0,
        );
        assert_eq!(h.to_bits(), alone.ground.height(x, y).to_bits());
        built += usize::from(
            alone
                .ground
                .built(DVec2::new(x, y), t.height(x, y))
                .is_some(),
        );
    }
    assert!(built > 50, "{built}");
}

#[test]
fn trees_and_features_keep_off_what_is_built() {
    let (_, r) = region();
    let (min, max) = area();
    let mut n = 0;
    for tree in r.ground.trees_in(min, max) {
        let p = tree.pos;
        let natural = r.ground.terrain().height(p.x, p.y);
        let built = r.ground.built(p, natural).map(|b| b.kind);
        assert!(
            !matches!(
                built,
                Some(BuiltKind::Carriageway | BuiltKind::Cut | BuiltKind::Fill)
            ),
            "a tree on {built:?} at {p}"
        );
        n += 1;
    }
    assert!(n > 100, "{n}");
}

#[test]
fn bad_earthwork_parameters_name_their_field() {
    let bad = |f: &dyn Fn(&mut EarthworkParams)| {
        let mut p = RoadSystemParams::default();
        f(&mut p.earthworks);
        RoadSystem::new(p).unwrap_err().to_string()
    };
    assert!(bad(&|e| e.max_fill = -1.0).contains("earthworks.max_fill"));
    assert!(bad(&|e| e.max_grade.highway = f64::NAN).contains("earthworks.max_grade.highway"));
    assert!(bad(&|e| e.max_slope_run = 1e6).contains("earthworks.max_slope_run"));
    assert!(bad(&|e| e.step = 0.0).contains("earthworks.step"));
    assert!(bad(&|e| e.max_street_shift = -2.0).contains("earthworks.max_street_shift"));
    assert!(bad(&|e| e.junction_grade = f64::INFINITY).contains("earthworks.junction_grade"));
    let ron = "(earthworks: (max_fil: 3.0))";
    let err = crate::terrain::from_ron::<RoadSystemParams>(ron)
        .unwrap_err()
        .to_string();
    assert!(err.contains("max_fil"), "{err}");
}

#[test]
fn switched_off_everything_lies_on_the_natural_ground() {
    let t = Terrain::default();
    let mut p = RoadSystemParams::default();
    p.earthworks.enabled = false;
    p.contour_roads = false;
    let sys = RoadSystem::new(p).unwrap();
    let (min, max) = (DVec2::new(9500.0, 4000.0), DVec2::new(9900.0, 4400.0));
    let r = sys.region(&t, min, max).unwrap();
    assert!(r.structures.is_empty());
    assert!(r.network.roads.iter().all(|road| road.z.is_empty()));
    let p = DVec2::new(9700.0, 4200.0);
    assert_eq!(r.ground.height(p.x, p.y), t.height(p.x, p.y));
}

/// Every retaining wall holds a step of the built ground: at each point its
/// top is the ground on one side and its foot the ground on the other, so
/// no wall stands free above the ground (as one from a lane's end over a
/// pad cut into the hill did) and none hangs above the ground at its foot.
#[test]
fn walls_hold_steps_of_the_built_ground() {
    let (_, r) = region();
    let (mut points, mut lines) = (0, 0);
    // The most any wall stands above the ground, and its foot hangs.
    let (mut over, mut hangs) = (f64::MIN, f64::MIN);
    for s in (r.structures.iter()).filter(|s| s.kind == StructureKind::Wall) {
        lines += 1;
        for (k, (top, &foot)) in s.line.iter().zip(&s.foot).enumerate() {
            let q = top.truncate();
            // Across the wall (as the segment before or after it runs), a
            // half metre each way: the least the top stands above the
            // ground there, and the foot above the ground a quarter metre
            // to either side.
            let (mut up, mut hang) = (f64::MAX, f64::MAX);
            for (a, b) in [(k.saturating_sub(1), k), (k, (k + 1).min(s.line.len() - 1))] {
                if a == b {
                    continue;
                }
                let across = (s.line[b] - s.line[a]).truncate().normalize().perp();
                let g: Vec<f64> = (-4..=4)
                    .map(|i| q + across * (i as f64 / 8.0))
                    .map(|p| r.ground.height(p.x, p.y))
                    .collect();
                up = up.min(top.z - g.iter().copied().fold(f64::MIN, f64::max));
                hang = hang.min(foot - g[2].min(g[6]));
            }
            (over, hangs) = (over.max(up), hangs.max(hang));
            assert!(top.z - foot >= MIN_STEP - 1e-9, "{top} {foot}");
            points += 1;
        }
    }
    // Probes a little off the wall's own (a lane's normal at a bend) may
    // find a slope beside it some centimetres higher or lower.
    assert!(over <= 0.3, "a wall stands {over} m above the ground");
    assert!(
        hangs <= 0.05,
        "a wall's foot hangs {hangs} m above the ground"
    );
    assert!(
        lines > 1000 && points > 3 * lines,
        "{lines} walls, {points} points"
    );
}
