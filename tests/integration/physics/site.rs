//! The hand-made region of the physics tests: a road on a terrace with a
//! bridge over a gully, a tunnel under a hill, a retaining wall, a town pad
//! with houses, and a 60° bank south of the terrace with a footway's steps
//! up it.

use bevy::math::{DVec2, DVec3};
use bevy_relief::city::lots::{Building, Lot};
use bevy_relief::city::{City, CityLayout, CityStyle, Streets};
use bevy_relief::geom::PlanarGraph;
use bevy_relief::network::{Road, RoadClass, RoadLayer, RoadNetwork};
use bevy_relief::prelude::*;
use bevy_relief::terrain::{Built, BuiltKind, LaidGround, LaidKind, Relief};
use bevy_relief::world::{Structure, StructureKind};
use std::sync::Arc;

/// The road: y = Y, x from X0 to X1, on a terrace HALF wide each side at Z.
pub const Y: f64 = 1300.0;
pub const X0: f64 = 18700.0;
pub const X1: f64 = 19700.0;
pub const HALF: f64 = 20.0;
pub const Z: f64 = 280.0;
/// The bridge over a gully 25 m deep, and the tunnel under a hill 30 m high.
pub const BRIDGE: (f64, f64) = (19000.0, 19100.0);
pub const TUNNEL: (f64, f64) = (19300.0, 19400.0);
/// The town pad north of the road, 2 m above it, and its buildings' height.
pub const PAD: (DVec2, DVec2) = (DVec2::new(19450.0, 1325.0), DVec2::new(19650.0, 1425.0));
pub const PAD_Z: f64 = Z + 2.0;
pub const STOREYS: f64 = 10.0;
/// The bank: from the terrace's south edge it climbs STEEP over 10 m
/// southwards to a landing (BANK_TOP above the road, 14 m deep), between
/// x = BANK.0 and BANK.1; a footway (its steps) climbs it at x = STEPS_X.
pub const BANK: (f64, f64) = (19160.0, 19240.0);
pub const STEEP: f64 = 60.0;
pub const BANK_RUN: f64 = 10.0;
pub const BANK_DEPTH: f64 = 24.0;
pub const STEPS_X: f64 = 19180.0;
pub fn bank_top() -> f64 {
    BANK_RUN * STEEP.to_radians().tan()
}

/// The focus, and the spheres' radius.
pub const FOCUS: DVec2 = DVec2::new(19200.0, Y);
pub const R: f32 = 0.25;

#[derive(Debug)]
struct Site;

pub fn inside(p: DVec2, lo: DVec2, hi: DVec2) -> bool {
    p.cmpge(lo).all() && p.cmple(hi).all()
}

impl Relief for Site {
    fn built(&self, p: DVec2, natural: f64) -> Option<Built> {
        let dy = (p.y - Y).abs();
        let kind = if dy <= 4.0 {
            BuiltKind::Carriageway
        } else if natural < Z {
            BuiltKind::Fill
        } else {
            BuiltKind::Cut
        };
        let at = |height, kind| Some(Built { height, kind });
        if inside(p, PAD.0, PAD.1) {
            return at(PAD_Z, BuiltKind::Pad);
        }
        let up = Y - HALF - p.y;
        if up > 0.0 && up <= BANK_DEPTH && (BANK.0..=BANK.1).contains(&p.x) {
            let h = Z + up.min(BANK_RUN) * STEEP.to_radians().tan();
            return at(
                h,
                if natural < h {
                    BuiltKind::Fill
                } else {
                    BuiltKind::Cut
                },
            );
        }
        if dy > HALF || !(X0..=X1).contains(&p.x) {
            return None;
        }
        if p.x > BRIDGE.0 && p.x < BRIDGE.1 {
            at(Z - 25.0, BuiltKind::Fill)
        } else if (TUNNEL.0..=TUNNEL.1).contains(&p.x) {
            at(Z + 30.0, BuiltKind::Cut)
        } else {
            at(Z, kind)
        }
    }

    fn may_shape(&self, min: DVec2, max: DVec2) -> bool {
        let meets = |lo: DVec2, hi: DVec2| min.cmple(hi).all() && max.cmpge(lo).all();
        meets(DVec2::new(X0, Y - HALF), DVec2::new(X1, Y + HALF))
            || meets(PAD.0, PAD.1)
            || meets(
                DVec2::new(BANK.0, Y - HALF - BANK_DEPTH),
                DVec2::new(BANK.1, Y - HALF),
            )
    }
}

/// A square footprint of side `side` at `c`, counter-clockwise.
fn square(c: DVec2, side: f64) -> Vec<DVec2> {
    let h = side / 2.0;
    [(-h, -h), (h, -h), (h, h), (-h, h)]
        .map(|(x, y)| c + DVec2::new(x, y))
        .to_vec()
}

/// The town's buildings: 3 × 2 squares 16 m wide, 40 m apart, and an L.
pub fn footprints() -> Vec<Vec<DVec2>> {
    let mut out: Vec<Vec<DVec2>> = (0..3)
        .flat_map(|i| (0..2).map(move |j| (i, j)))
        .map(|(i, j)| {
            square(
                PAD.0 + DVec2::new(30.0 + 40.0 * i as f64, 30.0 + 40.0 * j as f64),
                16.0,
            )
        })
        .collect();
    let o = DVec2::new(19600.0, 1340.0);
    out.push(
        [
            (0.0, 0.0),
            (30.0, 0.0),
            (30.0, 10.0),
            (10.0, 10.0),
            (10.0, 30.0),
            (0.0, 30.0),
        ]
        .map(|(x, y)| o + DVec2::new(x, y))
        .to_vec(),
    );
    out
}

fn layout() -> CityLayout {
    let lots = (footprints().into_iter())
        .map(|f| Lot {
            polygon: f.clone(),
            building: Some(Building {
                footprint: f,
                height: STOREYS,
                base: PAD_Z,
            }),
            block: 0,
        })
        .collect();
    CityLayout {
        city: City {
            id: (0, 0),
            centre: (PAD.0 + PAD.1) / 2.0,
            radius: 100.0,
            style: CityStyle::Organic,
            boundary: square((PAD.0 + PAD.1) / 2.0, 100.0),
        },
        streets: Streets {
            network: RoadNetwork::default(),
            blocks: Vec::new(),
            block_widths: Vec::new(),
            obstacles: Vec::new(),
            graph: PlanarGraph::new(10.0),
        },
        lots,
        field: None,
    }
}

fn line(x0: f64, x1: f64, y: f64, z: f64) -> Vec<DVec3> {
    vec![DVec3::new(x0, y, z), DVec3::new(x1, y, z)]
}

pub fn region(terrain: &Terrain, min: DVec2, max: DVec2) -> Region {
    let mut road = Road::new(
        vec![DVec2::new(X0, Y), DVec2::new(X1, Y)],
        RoadClass::Road,
        6.0,
    );
    road.z = vec![Z, Z];
    // The footway up the bank: from the terrace to the landing.
    let (y0, y1) = (Y - HALF + 3.0, Y - HALF - BANK_DEPTH + 2.0);
    let mut steps = Road::new(
        vec![
            DVec2::new(STEPS_X, y0),
            DVec2::new(STEPS_X, Y - HALF - BANK_RUN),
            DVec2::new(STEPS_X, y1),
        ],
        RoadClass::Path,
        3.0,
    );
    steps.z = vec![Z, Z + bank_top(), Z + bank_top()];
    let network = Arc::new(RoadNetwork::from_roads(vec![road, steps]));
    let ground = LaidGround::new(Arc::new(terrain.clone()))
        .with(LaidKind::Road, Arc::new(RoadLayer::new(network.clone())))
        .with_relief(Arc::new(Site));
    let structure = |kind, road, line, foot| Structure {
        kind,
        road,
        line,
        foot,
    };
    Region {
        min,
        max,
        network,
        cities: Vec::new(),
        layouts: vec![Arc::new(layout())],
        ground: Arc::new(ground),
        structures: vec![
            structure(
                StructureKind::Bridge,
                Some(0),
                line(BRIDGE.0, BRIDGE.1, Y, Z),
                vec![Z - 25.0; 2],
            ),
            structure(
                StructureKind::Tunnel,
                Some(0),
                line(TUNNEL.0, TUNNEL.1, Y, Z),
                vec![Z + 30.0; 2],
            ),
            structure(
                StructureKind::Wall,
                None,
                line(18800.0, 18900.0, Y + HALF, Z),
                vec![Z - 5.0; 2],
            ),
        ],
        report: Default::default(),
    }
}
