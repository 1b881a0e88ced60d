//! The built ground over a grid against the point query, bit for bit, on
//! hand-made earthworks: a pad wider than a tile, pads holding part of
//! one, overlapping lots with buildings, carriageways across them (one of
//! no length), grids of every alignment and step; and the point query
//! against every piece taken in order, without the indexes.

use super::EarthworkParams;
use super::laid::{Earthworks, Lane};
use super::terraces::Pad;
use crate::terrain::{Built, Relief, Terrain, shape_by_points};
use glam::DVec2;

/// Near the origin, where the default terrain is hilly.
const O: DVec2 = DVec2::new(300.0, 200.0);

fn square(lo: DVec2, side: f64) -> Vec<DVec2> {
    let hi = lo + side;
    vec![lo, DVec2::new(hi.x, lo.y), hi, DVec2::new(lo.x, hi.y)]
}

fn lane(a: DVec2, b: DVec2, za: f64, zb: f64) -> Lane {
    Lane {
        a: O + a,
        b: O + b,
        za,
        zb,
        road: 3.0,
        half: 4.0,
        rank: 1,
        walled: [false; 2],
        toe: [0.0; 2],
    }
}

/// Earthworks with every case the grid narrows: two towns of pads, lanes
/// across them.
fn works(t: &Terrain) -> Earthworks {
    let z = t.height(O.x, O.y);
    let at = |x: f64, y: f64| O + DVec2::new(x, y);
    // Wider than a tile at every step below (60 m).
    let big = Pad {
        polygon: square(at(0.0, 0.0), 60.0),
        z: z + 3.0,
        building: Some(square(at(20.0, 20.0), 10.0)),
    };
    // A rotated, concave lot overlapping `big` (its building in the overlap).
    let notch = Pad {
        polygon: vec![
            at(50.0, -10.0),
            at(90.0, 5.0),
            at(75.0, 45.0),
            at(66.0, 20.0),
            at(45.0, 35.0),
        ],
        z: z - 6.0,
        building: Some(square(at(52.0, 2.0), 6.0)),
    };
    // A thin sliver, narrower than a block.
    let sliver = Pad {
        polygon: vec![
            at(-30.0, 10.0),
            at(-28.5, 10.0),
            at(-28.5, 70.0),
            at(-30.0, 70.0),
        ],
        z: z + 8.0,
        building: None,
    };
    // A second town, far enough that its slopes meet the first's.
    let far = Pad {
        polygon: square(at(110.0, 70.0), 25.0),
        z: z - 10.0,
        building: None,
    };
    let lanes = vec![
        lane(
            DVec2::new(-40.0, 30.3),
            DVec2::new(130.0, 30.3),
            z + 9.0,
            z + 2.5,
        ),
        // It outranks the first where they cross.
        Lane {
            rank: 0,
            ..lane(DVec2::new(30.0, -30.0), DVec2::new(37.0, 95.0), z, z + 4.0)
        },
        lane(
            DVec2::new(37.0, 95.0),
            DVec2::new(37.0, 95.0),
            z + 4.0,
            z + 4.0,
        ),
        lane(
            DVec2::new(37.0, 95.0),
            DVec2::new(140.0, 60.0),
            z + 4.0,
            z - 6.0,
        ),
    ];
    let towns = vec![vec![big, notch, sliver], vec![far]];
    Earthworks::new(t, lanes, towns, &EarthworkParams::default())
}

/// What is built at `p`, from every piece in index order (the indexes
/// only leave out what cannot matter).
fn every_piece(w: &Earthworks, p: DVec2, natural: f64) -> Option<Built> {
    if let Some(b) = w.level_at(p) {
        return Some(b);
    }
    let pads = (w.pads.iter().filter(|i| i.contains(p))).map(|i| &i.pad);
    if let Some(b) = w.standing(p, w.lanes.iter(), pads) {
        return Some(b);
    }
    let lanes = w.lanes.iter().filter_map(|l| Earthworks::lane_slope(l, p));
    let pads = w.pads.iter().filter_map(|i| {
        let run = i.slope_distance(p);
        (Earthworks::in_slope_box(i, p) && run <= i.toe).then_some((i.pad.z, run))
    });
    w.sloped(natural, lanes.chain(pads))
}

#[test]
fn the_grid_is_the_point_query_bit_for_bit_over_pads_and_lanes() {
    let t = Terrain::default();
    let w = works(&t);
    let mut kinds = [0usize; 5];
    // Aligned and not (block edges on pad edges too), steps finer and coarser than the cells, sizes not
    // a multiple of a block or a tile, and a grid running backwards.
    // Then small grids anywhere, at any step (a fixed xorshift).
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let small = (0..60).map(|_| {
        let (x, y) = (next() * 190.0 - 55.0, next() * 150.0 - 45.0);
        (
            x,
            y,
            0.2 + next() * 3.0,
            9 + (next() * 30.0) as usize,
            9 + (next() * 30.0) as usize,
        )
    });
    let grids = [
        (-50.0, -40.0, 1.0, 200, 150),
        (-51.0, -41.0, 1.0, 200, 150),
        (-52.0, -42.0, 1.0, 200, 150),
        (-49.63, -40.21, 0.5, 173, 141),
        (-52.1, -45.7, 2.5, 77, 61),
        (-60.0, -50.0, 3.0, 67, 53),
        (145.3, 110.9, -1.7, 123, 101),
    ];
    for (x0, y0, step, nx, ny) in grids.into_iter().chain(small) {
        let (x0, y0) = (O.x + x0, O.y + y0);
        let mut natural = Vec::new();
        t.heights_grid(x0, y0, step, nx, ny, &mut natural).unwrap();
        let (mut grid, mut points) = (natural.clone(), natural.clone());
        w.shape_grid(x0, y0, step, nx, ny, &mut grid);
        shape_by_points(&w, x0, y0, step, nx, ny, &mut points);
        for (k, (&g, &q)) in grid.iter().zip(&points).enumerate() {
            let p = DVec2::new(x0 + (k % nx) as f64 * step, y0 + (k / nx) as f64 * step);
            let built = w.built(p, natural[k]);
            assert_eq!(built, every_piece(&w, p, natural[k]), "at {p}");
            assert_eq!(g.to_bits(), q.to_bits(), "grid {g} point {q} at {p}");
            let h = built.map_or(natural[k], |b| b.height);
            assert_eq!(g.to_bits(), h.to_bits(), "at {p}");
            kinds[built.map_or(4, |b| b.kind as usize)] += 1;
        }
    }
    // Carriageway, pad, fill, cut and natural ground all met.
    assert!(kinds.iter().all(|&n| n > 100), "{kinds:?}");
}
