//! Invariants of [`subdivide`] on hand-made awkward blocks and random planar
//! street graphs.

use super::*;
use crate::city::EdgeRole;
use crate::geom::{PlanarGraph, segment_intersection};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::float::single::SingleFloatOverlay;
use rand_chacha::rand_core::RngCore;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

/// Streets from nodes and labelled edges.
fn streets(
    nodes: &[(f64, f64)],
    edges: &[(usize, usize, EdgeRole)],
    obstacles: Vec<Vec<DVec2>>,
) -> Streets {
    let mut g = PlanarGraph::new(64.0);
    for &(x, y) in nodes {
        g.add_node(v(x, y));
    }
    for &(a, b, role) in edges {
        assert!(!g.crosses(
            g.pos(a as u32),
            g.pos(b as u32),
            [Some(a as u32), Some(b as u32)]
        ));
        g.add_edge(a as u32, b as u32, role.label());
    }
    Streets::from_graph(&g, obstacles, EdgeRole::default_style)
}

/// A closed loop of ring edges through `n` consecutive nodes from `first`.
fn ring(first: usize, n: usize) -> Vec<(usize, usize, EdgeRole)> {
    (0..n)
        .map(|i| (first + i, first + (i + 1) % n, EdgeRole::Ring))
        .collect()
}

fn area_of(shapes: &[Vec<Vec<[f64; 2]>>]) -> f64 {
    (shapes.iter().flatten())
        .map(|c| signed_area(&c.iter().map(|&[x, y]| v(x, y)).collect::<Vec<_>>()))
        .sum()
}

fn arr(p: &[DVec2]) -> Vec<[f64; 2]> {
    p.iter().map(|q| [q.x, q.y]).collect()
}

/// Area of `a` outside `b`, and of `a` inside `b`.
fn outside_inside(a: &[DVec2], b: &[DVec2]) -> (f64, f64) {
    let (a, b) = (arr(a), arr(b));
    (
        area_of(&a.overlay(&b, OverlayRule::Difference, FillRule::NonZero)),
        area_of(&a.overlay(&b, OverlayRule::Intersect, FillRule::NonZero)),
    )
}

/// Whether a polygon is simple: no two non-adjacent edges meet, no
/// repeated vertex.
fn simple(p: &[DVec2]) -> bool {
    let m = p.len();
    (0..m).all(|i| {
        (i + 1..m).all(|j| {
            let adjacent = j == i + 1 || (i == 0 && j == m - 1);
            p[i] != p[j]
                && (adjacent
                    || segment_intersection(p[i], p[(i + 1) % m], p[j], p[(j + 1) % m]).is_none())
        })
    })
}

/// Every street segment with half its width.
fn segments(s: &Streets) -> Vec<(DVec2, DVec2, f64)> {
    (s.network.roads.iter())
        .flat_map(|r| {
            r.points
                .windows(2)
                .map(move |w| (w[0], w[1], r.width / 2.0))
        })
        .collect()
}

/// Least distance from polygon `p` (edges and inside) to segment `a–b`.
fn poly_distance(p: &[DVec2], a: DVec2, b: DVec2) -> f64 {
    if polygon::polygon_contains(p, a) || polygon::polygon_contains(p, b) {
        return 0.0;
    }
    let m = p.len();
    (0..m)
        .map(|i| inset::segment_distance(p[i], p[(i + 1) % m], a, b))
        .fold(f64::INFINITY, f64::min)
}

use crate::city::polygon;

/// Checks every invariant of `lots` for `s` and returns the share of the
/// buildable area (blocks not tiny) the lots cover.
fn check(s: &Streets, p: &LotParams, lots: &[Lot]) -> f64 {
    let segs = segments(s);
    for (k, lot) in lots.iter().enumerate() {
        let poly = &lot.polygon;
        assert!(
            poly.len() >= 3 && signed_area(poly) > 0.0 && simple(poly),
            "lot {k} {poly:?}"
        );
        // In its block, off its streets and obstacles.
        let (out, _) = outside_inside(poly, &s.blocks[lot.block]);
        assert!(out < 1e-3, "lot {k} leaves its block by {out} m²");
        for &(a, b, h) in &segs {
            let d = poly_distance(poly, a, b);
            assert!(
                d >= h - 1e-3,
                "lot {k} is {d} m from a street of half width {h}"
            );
        }
        for o in &s.obstacles {
            let (_, inside) = outside_inside(poly, o);
            assert!(inside < 1e-3, "lot {k} covers {inside} m² of an obstacle");
        }
        // Its building inside it, clear of every street.
        if let Some(bd) = &lot.building {
            let f = &bd.footprint;
            assert!(
                f.len() >= 3 && f.len() <= MAX_FOOTPRINT_VERTICES && simple(f),
                "{f:?}"
            );
            assert!(signed_area(f) >= p.min_building_area);
            let (out, _) = outside_inside(f, poly);
            assert!(out < 1e-6, "building {k} leaves its lot by {out} m²");
            for &(a, b, h) in &segs {
                let d = poly_distance(f, a, b);
                assert!(
                    d >= h + p.setback - 1e-6,
                    "building {k} {d} m from a street ({h})"
                );
            }
            assert!((p.min_height..=p.max_height).contains(&bd.height));
        }
    }
    // No two lots overlap.
    let boxes: Vec<(DVec2, DVec2)> = lots
        .iter()
        .map(|l| crate::geom::bounds(&l.polygon))
        .collect();
    for i in 0..lots.len() {
        for j in i + 1..lots.len() {
            let ((a0, a1), (b0, b1)) = (boxes[i], boxes[j]);
            if a0.cmplt(b1).all() && b0.cmplt(a1).all() {
                let (_, inside) = outside_inside(&lots[i].polygon, &lots[j].polygon);
                assert!(inside < 1e-3, "lots {i} and {j} overlap by {inside} m²");
            }
        }
    }
    coverage(s, p, lots)
}

/// The share of the buildable area (every street's ribbon and obstacle cut
/// out exactly, by `i_overlay`) of blocks that are not tiny covered by lots.
fn coverage(s: &Streets, p: &LotParams, lots: &[Lot]) -> f64 {
    let ribbons = Ribbons::new(&s.network).unwrap();
    let (mut buildable, mut covered) = (0.0, 0.0);
    for (b, block) in s.blocks.iter().enumerate() {
        let near: Vec<Ribbon> = ribbons
            .near(block)
            .into_iter()
            .map(|i| ribbons.list[i])
            .collect();
        let obs: Vec<&[DVec2]> = s.obstacles.iter().map(|o| o.as_slice()).collect();
        let area: f64 = inset::overlay_inset(block, &near, &obs)
            .iter()
            .map(|x| x.area())
            .sum();
        if area >= 2.0 * p.min_area {
            buildable += area;
            covered += (lots.iter().filter(|l| l.block == b))
                .map(|l| signed_area(&l.polygon))
                .sum::<f64>();
        }
    }
    if buildable > 0.0 {
        covered / buildable
    } else {
        1.0
    }
}

/// A square ring of side 120 m at the origin with a street across it.
fn two_blocks() -> Streets {
    let nodes = [
        (0., 0.),
        (60., 0.),
        (120., 0.),
        (120., 120.),
        (60., 120.),
        (0., 120.),
    ];
    let mut edges = ring(0, 6);
    edges.push((1, 4, EdgeRole::Street(1)));
    streets(&nodes, &edges, vec![])
}

#[test]
fn a_square_town_is_cut_into_lots_with_buildings() {
    let s = two_blocks();
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    let cover = check(&s, &p, &lots);
    assert!(cover >= 0.95, "{cover}");
    let sum = LotSummary::of(&lots);
    assert_eq!(sum.blocks, 2);
    // Each block is 60 × 120 less ribbons: ~ 51 × 112.5 m, so 4 to 16 lots.
    assert!((8..=32).contains(&sum.lots), "{sum:?}");
    assert!(sum.buildings >= sum.lots * 3 / 4, "{sum:?}");
    for l in &lots {
        let a = signed_area(&l.polygon);
        assert!(a >= p.min_area - 1e-9 && a <= p.max_area, "{a}");
    }
}

#[test]
fn concave_blocks_l_and_u() {
    let l = [
        (0., 0.),
        (160., 0.),
        (160., 60.),
        (60., 60.),
        (60., 160.),
        (0., 160.),
    ];
    let u = [
        (0., 0.),
        (150., 0.),
        (150., 130.),
        (110., 130.),
        (110., 50.),
        (40., 50.),
        (40., 130.),
        (0., 130.),
    ];
    for nodes in [&l[..], &u[..]] {
        let s = streets(nodes, &ring(0, nodes.len()), vec![]);
        assert_eq!(s.blocks.len(), 1);
        let p = LotParams::default();
        let lots = subdivide(&s, &p);
        let cover = check(&s, &p, &lots);
        assert!(cover >= 0.8, "{cover}");
        assert!(lots.len() >= 6 && lots.iter().filter(|l| l.building.is_some()).count() >= 4);
    }
}

#[test]
fn a_thin_block_gets_lots_but_no_room_for_buildings() {
    // 300 × 14 m between streets: 14 − 4 (ring) − 3.5 (street) = 6.5 m deep.
    let nodes = [(0., 0.), (300., 0.), (300., 14.), (0., 14.)];
    let mut edges = ring(0, 4);
    edges[2].2 = EdgeRole::Street(0);
    let s = streets(&nodes, &edges, vec![]);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert!(check(&s, &p, &lots) >= 0.9);
    assert!(lots.len() >= 2);
    // 6.5 m less two setbacks leaves 0.5 m: no building fits.
    assert!(lots.iter().all(|l| l.building.is_none()));
}

#[test]
fn a_dead_end_cuts_its_ribbon_out_of_the_block() {
    // A 140 m square with a 70 m dead end from the middle of its south side.
    let nodes = [
        (0., 0.),
        (70., 0.),
        (140., 0.),
        (140., 140.),
        (0., 140.),
        (70., 70.),
    ];
    let mut edges = ring(0, 5);
    edges.push((1, 5, EdgeRole::Street(0)));
    let s = streets(&nodes, &edges, vec![]);
    assert_eq!(s.blocks.len(), 1);
    // The face walks the dead end in and out: a point repeats.
    let b = &s.blocks[0];
    assert_eq!(b.len(), 7);
    assert_eq!(b.iter().filter(|&&q| q == v(70., 0.)).count(), 2);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert!(check(&s, &p, &lots) >= 0.9);
    // Some lot fronts on the dead end (its street edge 3.5 m off x = 70).
    assert!(lots.iter().any(|l| {
        l.polygon
            .iter()
            .any(|q| ((q.x - 70.0).abs() - 3.5).abs() < 1e-6 && q.y > 10.0)
    }));
}

#[test]
fn tiny_blocks_vanish_or_stay_small() {
    // A 9 m triangle vanishes under its ribbons; a 30 m one keeps a scrap.
    for (side, any) in [(9.0, false), (30.0, true)] {
        let h = side * 3f64.sqrt() / 2.0;
        let s = streets(
            &[(0., 0.), (side, 0.), (side / 2.0, h)],
            &ring(0, 3),
            vec![],
        );
        let p = LotParams::default();
        let lots = subdivide(&s, &p);
        check(&s, &p, &lots);
        assert_eq!(!lots.is_empty(), any, "{side}");
        assert!(lots.iter().all(|l| l.building.is_none()));
    }
}

#[test]
fn lakes_are_kept_out_of_lots() {
    // One lake straddling the cross street, one inside the east block.
    let lakes = vec![circle(v(60., 20.), 25.0), circle(v(95., 70.), 12.0)];
    let nodes = [
        (0., 0.),
        (60., 0.),
        (120., 0.),
        (120., 120.),
        (60., 120.),
        (0., 120.),
    ];
    let mut edges = ring(0, 6);
    edges.push((1, 4, EdgeRole::Street(1)));
    let s = streets(&nodes, &edges, lakes);
    let p = LotParams {
        max_area: 800.0,
        ..LotParams::default()
    };
    let lots = subdivide(&s, &p);
    assert!(check(&s, &p, &lots) >= 0.7);
    assert!(lots.len() >= 8);
}

/// A 24-gon of radius `r` around `c`.
fn circle(c: DVec2, r: f64) -> Vec<DVec2> {
    (0..24)
        .map(|i| c + DVec2::from_angle(i as f64 * std::f64::consts::TAU / 24.0) * r)
        .collect()
}

/// A connected random planar street graph: a jittered grid with missing
/// and diagonal edges and dead ends, labels of every width, and on odd
/// seeds a lake somewhere.
fn random_streets(seed: u64, n: usize) -> Streets {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut u = move || crate::num::unit(rng.next_u64());
    let mut g = PlanarGraph::new(64.0);
    let spacing = 70.0;
    for j in 0..n {
        for i in 0..n {
            let jit = v(u() - 0.5, u() - 0.5) * 30.0;
            g.add_node(v(i as f64, j as f64) * spacing + jit);
        }
    }
    let roles = [
        EdgeRole::Ring,
        EdgeRole::Main,
        EdgeRole::Street(0),
        EdgeRole::Street(1),
        EdgeRole::Street(3),
    ];
    let add = |g: &mut PlanarGraph, a: u32, b: u32, r: f64| {
        if !g.crosses(g.pos(a), g.pos(b), [Some(a), Some(b)]) {
            g.add_edge(a, b, roles[(r * roles.len() as f64) as usize].label());
        }
    };
    let id = |i: usize, j: usize| (j * n + i) as u32;
    for j in 0..n {
        for i in 0..n {
            if i + 1 < n && u() < 0.85 {
                let r = u();
                add(&mut g, id(i, j), id(i + 1, j), r);
            }
            if j + 1 < n && u() < 0.85 {
                let r = u();
                add(&mut g, id(i, j), id(i, j + 1), r);
            }
            if i + 1 < n && j + 1 < n && u() < 0.15 {
                let r = u();
                add(&mut g, id(i, j), id(i + 1, j + 1), r);
            }
        }
    }
    // Dead ends into the blocks.
    for _ in 0..n {
        let a = (u() * (n * n) as f64) as u32;
        let to = g.pos(a) + DVec2::from_angle(u() * std::f64::consts::TAU) * (20.0 + 20.0 * u());
        if !g.any_node_closer(to, 15.0) && !g.crosses(g.pos(a), to, [Some(a), None]) {
            let b = g.add_node(to);
            g.add_edge(a, b, EdgeRole::Street(2).label());
        }
    }
    // Keep the largest connected part.
    let parts = g.components();
    let mut count = vec![0usize; parts.len()];
    for &c in &parts {
        count[c as usize] += 1;
    }
    let big = (0..count.len())
        .max_by_key(|&c| (count[c], std::cmp::Reverse(c)))
        .unwrap_or(0);
    let (g, _) = g.retain_nodes(|x| parts[x as usize] as usize == big);
    let lakes = (seed % 2 == 1)
        .then(|| circle(v(u(), u()) * spacing * (n - 1) as f64, 15.0 + 30.0 * u()))
        .into_iter()
        .collect();
    Streets::from_graph(&g, lakes, EdgeRole::default_style)
}

#[test]
fn random_street_graphs_keep_every_invariant() {
    let mut total = 0;
    for seed in 0..12 {
        let s = random_streets(seed, 5);
        let p = LotParams {
            seed,
            ..LotParams::default()
        };
        let lots = subdivide(&s, &p);
        let cover = check(&s, &p, &lots);
        assert!(cover >= 0.7, "seed {seed}: {cover}");
        total += lots.len();
    }
    assert!(total > 200, "{total}");
}

#[test]
fn same_inputs_same_lots_in_any_block_order() {
    let s = random_streets(3, 6);
    let p = LotParams::default();
    let lots = subdivide(&s, &p);
    assert_eq!(lots, subdivide(&s, &p));
    // The blocks reversed: the same lots, block by block.
    let mut r = s.clone();
    r.blocks.reverse();
    r.block_widths.reverse();
    let back = subdivide(&r, &p);
    let n = s.blocks.len();
    let key = |l: &Lot| format!("{:?}", l.polygon);
    let mut a: Vec<String> = lots
        .iter()
        .map(|l| format!("{} {}", l.block, key(l)))
        .collect();
    let mut b: Vec<String> = back
        .iter()
        .map(|l| format!("{} {}", n - 1 - l.block, key(l)))
        .collect();
    a.sort();
    b.sort();
    assert_eq!(a, b);
    // Another seed moves the cuts.
    let other = subdivide(&s, &LotParams { seed: 1, ..p });
    assert_ne!(lots, other);
}

#[test]
fn buildings_rise_towards_the_centre() {
    let s = random_streets(9, 8);
    let centre = v(245., 245.);
    let p = LotParams {
        centre,
        radius: 350.0,
        ..LotParams::default()
    };
    let lots = subdivide(&s, &p);
    let (mut near, mut far) = (vec![], vec![]);
    for b in lots.iter().filter_map(|l| l.building.as_ref()) {
        let c = b.footprint.iter().sum::<DVec2>() / b.footprint.len() as f64;
        if c.distance(centre) < 120.0 {
            near.push(b.height);
        } else if c.distance(centre) > 250.0 {
            far.push(b.height);
        }
    }
    let mean = |x: &[f64]| x.iter().sum::<f64>() / x.len() as f64;
    assert!(near.len() >= 10 && far.len() >= 10);
    assert!(
        mean(&near) > mean(&far) + 5.0,
        "{} {}",
        mean(&near),
        mean(&far)
    );
    // No jitter: strictly by distance.
    let p0 = LotParams {
        height_jitter: 0.0,
        ..p.clone()
    };
    assert!(
        p0.height_at(centre) == p.max_height && p0.height_at(centre + v(400., 0.)) == p.min_height
    );
    assert!(p0.height_at(centre + v(100., 0.)) > p0.height_at(centre + v(200., 0.)));
}

#[test]
fn bad_params_are_refused_by_name_and_give_no_lots() {
    assert!(LotParams::default().validate().is_ok());
    let s = two_blocks();
    let cases: Vec<(&str, LotParams)> = vec![
        (
            "min_area",
            LotParams {
                min_area: f64::NAN,
                ..Default::default()
            },
        ),
        (
            "max_area",
            LotParams {
                max_area: 100.0,
                ..Default::default()
            },
        ),
        (
            "min_frontage",
            LotParams {
                min_frontage: -1.0,
                ..Default::default()
            },
        ),
        (
            "split_jitter",
            LotParams {
                split_jitter: 0.5,
                ..Default::default()
            },
        ),
        (
            "setback",
            LotParams {
                setback: f64::INFINITY,
                ..Default::default()
            },
        ),
        (
            "radius",
            LotParams {
                radius: 0.0,
                ..Default::default()
            },
        ),
        (
            "centre",
            LotParams {
                centre: v(f64::NAN, 0.),
                ..Default::default()
            },
        ),
        (
            "max_height",
            LotParams {
                max_height: 1.0,
                ..Default::default()
            },
        ),
        (
            "max_lots",
            LotParams {
                max_lots: 0,
                ..Default::default()
            },
        ),
    ];
    for (field, p) in cases {
        let msg = p.validate().unwrap_err().to_string();
        assert!(msg.starts_with(field), "{field}: {msg}");
        assert!(subdivide(&s, &p).is_empty());
    }
}

#[test]
fn degenerate_streets_give_nothing_and_never_panic() {
    let empty = Streets::from_graph(&PlanarGraph::new(10.0), vec![], EdgeRole::default_style);
    assert!(subdivide(&empty, &LotParams::default()).is_empty());
    let p = LotParams::default();
    // A NaN road point or width: nothing.
    let mut s = two_blocks();
    s.network.roads[0].points[0].x = f64::NAN;
    assert!(subdivide(&s, &p).is_empty());
    let mut s = two_blocks();
    s.network.roads[0].width = f64::NAN;
    assert!(subdivide(&s, &p).is_empty());
    // A NaN block, a clockwise one and a two-point one are skipped.
    let mut s = two_blocks();
    s.blocks[0][0].y = f64::NAN;
    s.blocks[1].reverse();
    s.blocks.push(vec![v(0., 0.), v(1., 1.)]);
    assert!(subdivide(&s, &p).is_empty());
    // A NaN obstacle: nothing.
    let mut s = two_blocks();
    s.obstacles
        .push(vec![v(0., 0.), v(f64::NAN, 1.), v(1., 0.)]);
    assert!(subdivide(&s, &p).is_empty());
    // The lot cap holds.
    let s = two_blocks();
    assert_eq!(subdivide(&s, &LotParams { max_lots: 3, ..p }).len(), 3);
}

#[test]
fn lot_params_round_trip_through_ron() {
    let p = LotParams {
        seed: 5,
        centre: v(10., -3.),
        ..LotParams::default()
    };
    let text = ron::to_string(&p).unwrap();
    assert_eq!(ron::from_str::<LotParams>(&text).unwrap(), p);
    assert_eq!(ron::from_str::<LotParams>("(seed: 2)").unwrap().seed, 2);
    assert!(ron::from_str::<LotParams>("(sead: 2)").is_err());
}
