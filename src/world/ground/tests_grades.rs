//! No cliffs where junctions lie close together: pins that close on one
//! road agree (country roads), close junctions of a town are one (its
//! streets), and a footway between close pins climbs within its grade.

use super::super::{RoadSystem, RoadSystemParams};
use super::EarthworkParams;
use super::junctions::join;
use super::profile::{PATH_GRADE, stations, steepest};
use crate::network::{Road, RoadClass, RoadNetwork};
use crate::terrain::Terrain;
use glam::DVec2;

fn road(points: &[DVec2], z: f64) -> Road {
    Road {
        z: vec![z; points.len()],
        ..Road::new(points.to_vec(), RoadClass::Road, 5.0)
    }
}

#[test]
fn two_junctions_a_hand_apart_give_one_road_one_height() {
    let t = Terrain::default();
    let p = EarthworkParams::default();
    let at = |x: f64, y: f64| DVec2::new(3000.0 + x, 3000.0 + y);
    // `b` ends where `a` starts; 0.4 m on, `c` crosses `a`. `b` ranks
    // first at the first junction, `a` at the second, 4 m higher.
    let b = road(&[at(-100.0, 0.0), at(-50.0, 0.0), at(0.0, 0.0)], 100.0);
    let a_pts: Vec<DVec2> = [0.0, 0.4]
        .into_iter()
        .chain((1..=20).map(|k| k as f64 * 10.0))
        .map(|x| at(x, 0.0))
        .collect();
    let a = road(&a_pts, 104.0);
    let c_pts: Vec<DVec2> = (-10..=10).map(|k| at(0.4, k as f64 * 10.0)).collect();
    let c = road(&c_pts, 96.0);
    let mut net = RoadNetwork::from_roads(vec![a, b, c]);
    assert_eq!(net.junctions.len(), 2);
    join(&t, &mut net, &[false; 3], &p);
    for j in &net.junctions {
        let zs: Vec<f64> = (j.roads.iter())
            .map(|&i| {
                let r = &net.roads[i];
                r.z[r.points.iter().position(|&q| q == j.pos).unwrap()]
            })
            .collect();
        assert!(zs.iter().all(|&z| z == 100.0), "{zs:?}");
    }
    for r in &net.roads {
        let g = steepest(&stations(&r.points), &r.z);
        assert!(g <= p.max_grade.road * (1.0 + 1e-9), "{g}");
    }
}

#[test]
fn footways_of_a_town_climb_no_cliff_between_close_junctions() {
    // A town of cell (1, 1) whose streets have junctions millimetres
    // apart, near (15750, 8465).
    let t = Terrain::default();
    let sys = RoadSystem::new(RoadSystemParams::default()).unwrap();
    let (min, max) = (DVec2::new(15400.0, 8100.0), DVec2::new(16100.0, 8800.0));
    let r = sys.region(&t, min, max).unwrap();
    let mut paths = 0;
    for road in &r.network.roads {
        let g = steepest(&stations(&road.points), &road.z);
        if road.class == RoadClass::Path {
            paths += 1;
            assert!(g <= PATH_GRADE * (1.0 + 1e-9), "{g} at {}", road.points[0]);
        }
    }
    assert!(paths > 20, "{paths}");
}
