//! Tests of the limits: work budgets, blocks that are real faces, fields
//! with no weight, and circles around a radial centre.

use super::*;
use crate::city::StreetsInput;
use crate::city::polygon::signed_area;
use std::f64::consts::{PI, TAU};

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

fn square(lo: f64, hi: f64) -> Vec<DVec2> {
    vec![v(lo, lo), v(hi, lo), v(hi, hi), v(lo, hi)]
}

fn input(boundary: Vec<DVec2>) -> StreetsInput {
    StreetsInput {
        boundary,
        ..StreetsInput::default()
    }
}

/// A grid and a radial centre over a square of side `side`.
fn mixed_field(side: f64) -> TensorField {
    let mut field = TensorField::default();
    field.add(BasisField::grid(v(side / 2.0, side / 2.0), side, 2.0, 0.3));
    field.add(BasisField::radial(
        v(0.65 * side, 0.35 * side),
        side / 4.0,
        3.0,
    ));
    field
}

#[test]
fn too_fine_spacings_are_refused_naming_the_field_to_raise() {
    // Valid, but tens of millions of steps on a 400 m square.
    let mut params = TensorParams {
        minor: StreamlineParams {
            dstep: 0.05,
            dtest: 0.1,
            dsep: 0.1,
            simplify_tolerance: 0.05,
            min_length: 0.1,
            ..StreamlineParams::minor()
        },
        ..TensorParams::default()
    };
    let g = TensorStreets::new(params.clone()).unwrap();
    let err = g
        .generate(&mixed_field(400.0), &input(square(0.0, 400.0)))
        .unwrap_err();
    // Raising dstep alone (at most dtest / 2) cannot help here.
    assert!(
        matches!(
            err,
            TensorError::Budget {
                field: "minor.dsep",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().starts_with("minor.dsep:"), "{err}");
    // A fine step alone is named as such.
    params.minor = StreamlineParams {
        dstep: 0.05,
        ..StreamlineParams::minor()
    };
    let g = TensorStreets::new(params).unwrap();
    let err = g
        .trace(&mixed_field(3000.0), &input(square(0.0, 3000.0)))
        .unwrap_err();
    assert!(
        matches!(
            err,
            TensorError::Budget {
                field: "minor.dstep",
                ..
            }
        ),
        "{err}"
    );
    // Coarse main roads over a huge area: the seeds run out first.
    let wide = StreamlineParams {
        dstep: 100.0,
        dtest: 200.0,
        dsep: 200.0,
        ..StreamlineParams::main()
    };
    let p = TensorParams {
        main: wide.clone(),
        major: wide.clone(),
        minor: wide,
        ..TensorParams::default()
    };
    let err = budget::check(&p, 2.0e10).unwrap_err();
    assert!(
        matches!(
            err,
            TensorError::Budget {
                what: "seed candidates",
                ..
            }
        ),
        "{err}"
    );
    // The defaults fit the largest square their field cell allows, with room.
    let most = MAX_FIELD_CELLS * TensorParams::default().field_cell.powi(2);
    assert!(budget::check(&TensorParams::default(), most).is_ok());
    assert!(budget::check(&TensorParams::default(), 1.5 * most).is_ok());
}

#[test]
fn a_run_past_its_step_budget_is_an_error() {
    let (field, ring) = (mixed_field(600.0), input(square(0.0, 600.0)));
    // Fixed steps, and adaptive ones (fewer).
    for (tolerance, short) in [(0.0, 20_000), (DEFAULT_TOLERANCE, 5_000)] {
        let mut params = TensorParams::default();
        for level in [&mut params.main, &mut params.major, &mut params.minor] {
            level.tolerance = tolerance;
        }
        let g = TensorStreets::new(params).unwrap();
        let err = g.trace_within(&field, &ring, short, true).unwrap_err();
        assert!(
            matches!(
                err,
                TensorError::Budget {
                    field: "major.dstep" | "minor.dstep",
                    what: "integration steps traced",
                    ..
                }
            ),
            "{err}"
        );
        assert!(g.trace_within(&field, &ring, 10_000_000, true).is_ok());
    }
}

#[test]
fn a_budget_that_ends_as_both_halves_step_is_not_overdrawn() {
    // A line's two halves step together, so its last pair of steps can
    // take one more than the budget left: the budget then ends at zero
    // (an error naming the field), never below it.
    let (field, ring) = (mixed_field(600.0), input(square(0.0, 600.0)));
    for tolerance in [0.0, DEFAULT_TOLERANCE] {
        let mut params = TensorParams::default();
        for level in [&mut params.main, &mut params.major, &mut params.minor] {
            level.tolerance = tolerance;
            level.max_length = 400.0;
        }
        let g = TensorStreets::new(params).unwrap();
        // (A whole run takes tens of thousands of steps.)
        for short in 1_000..1_040 {
            match g.trace_within(&field, &ring, short, true) {
                Err(TensorError::Budget { .. }) => {}
                other => panic!("{short}: {:?}", other.map(|t| t.lines.len())),
            }
        }
    }
}

#[test]
fn every_block_is_a_real_face_inside_the_ring() {
    let coarse = StreamlineParams {
        dstep: 100.0,
        dtest: 200.0,
        dsep: 200.0,
        ..StreamlineParams::major()
    };
    let base = TensorParams {
        main: coarse.clone(),
        major: coarse.clone(),
        minor: coarse,
        ..TensorParams::default()
    };
    // The small test field (which made zero-area blocks of dead ends), the
    // reference field and a larger mixed one.
    let mut small = TensorField::default();
    small.add(BasisField::grid(v(300.0, 300.0), 600.0, 2.0, 0.3));
    small.add(BasisField::radial(v(390.0, 210.0), 150.0, 3.0));
    let mut reference = TensorField::default();
    reference.add(BasisField::grid(v(1000.0, 1000.0), 2000.0, 2.0, 0.3));
    reference.add(BasisField::radial(v(1300.0, 700.0), 400.0, 5.0));
    let cases = [
        (&small, 400.0),
        (&small, 600.0),
        (&reference, 600.0),
        (&mixed_field(1000.0), 1000.0),
    ];
    let mut checked = 0;
    for (field, side) in cases {
        for seed in 0..3 {
            let params = TensorParams {
                seed,
                ..base.clone()
            };
            let ring = square(0.0, side);
            let s = TensorStreets::new(params)
                .unwrap()
                .generate(field, &input(ring))
                .unwrap();
            assert!(s.network.check_planar().is_ok());
            assert_eq!(s.blocks.len(), s.block_widths.len());
            for b in &s.blocks {
                assert!(signed_area(b) > MIN_BLOCK_AREA, "{side} {seed}: {b:?}");
                assert!(
                    b.iter().all(|p| p.cmpge(DVec2::splat(-1e-9)).all()
                        && p.cmple(DVec2::splat(side + 1e-9)).all()),
                    "{b:?}"
                );
                checked += 1;
            }
            // Every street reaches the ring: one connected graph.
            let parts = s.graph.components();
            assert!(parts.iter().all(|&p| p == 0), "{side} {seed}");
        }
    }
    assert!(checked > 9, "{checked}");
}

#[test]
fn fields_without_weight_give_no_streets() {
    let g = TensorStreets::new(TensorParams::default()).unwrap();
    let ring = input(square(0.0, 600.0));
    // No basis field; one that does not reach; one whose weight underflows
    // to zero over the square (decay 100, 1e-4 of its size from its edge).
    let mut far = TensorField::default();
    far.add(BasisField::grid(v(-700.0, 300.0), 650.0, 1.0, 0.2));
    let mut faint = TensorField::default();
    faint.add(BasisField::grid(
        v(-1.0e8, 300.0),
        1.0e8 + 1.0e4 + 700.0,
        100.0,
        0.2,
    ));
    let mut faint_radial = TensorField::default();
    faint_radial.add(BasisField::radial(
        v(-1.0e8, 300.0),
        1.0e8 + 1.0e4 + 700.0,
        100.0,
    ));
    for field in [TensorField::default(), far, faint, faint_radial] {
        assert!(field.major(v(300.0, 300.0)).is_none());
        let t = g.trace(&field, &ring).unwrap();
        assert!(t.lines.is_empty(), "{}", t.lines.len());
        let t1 = std::time::Instant::now();
        let s = t.to_streets();
        println!("to_streets in {:?}", t1.elapsed());
        assert_eq!(s.network.roads.len(), 1);
        assert_eq!(s.blocks.len(), 1);
    }
}

/// Traces a minor line once round `c` from `c + (r, 0)` by RK4 through
/// `cache`; where it ends.
fn once_round(cache: &SampledField, c: DVec2, r: f64) -> DVec2 {
    let start = c + v(r, 0.0);
    let (mut p, mut prev) = (start, v(0.0, 1.0));
    let (mut turned, mut last) = (0.0, 0.0);
    for _ in 0..(1.2 * TAU * r) as usize {
        let d = trace::rk4(cache, true, p, prev, 1.0).unwrap();
        p += d;
        prev = d;
        let a = (p - c).y.atan2((p - c).x).rem_euclid(TAU);
        turned += (a - last + PI).rem_euclid(TAU) - PI;
        last = a;
        if turned >= TAU {
            return p;
        }
    }
    panic!("r {r}: turned only {turned}");
}

#[test]
fn circles_round_a_lone_radial_centre_close_within_one_percent() {
    let c = v(1000.0, 1000.0);
    let cell = TensorParams::default().field_cell;
    for r in (300..=900).step_by(50).map(f64::from) {
        for size in [r + 2.0 * cell, 1.2 * r, 3.0 * r, 1.0e6] {
            for decay in [0.5, 1.0, 4.0] {
                let mut field = TensorField::default();
                field.add(BasisField::radial(c, size, decay));
                let cache = field
                    .sampled(v(-10.0, -10.0), v(2010.0, 2010.0), cell)
                    .unwrap();
                let end = once_round(&cache, c, r);
                let start = c + v(r, 0.0);
                let what = format!("r {r} size {size} decay {decay}");
                assert!(
                    end.distance(start) < 0.01 * r,
                    "{what}: {}",
                    end.distance(start)
                );
                assert!((end.distance(c) - r).abs() < 0.01 * r, "{what}");
            }
        }
    }
    // Traced as streets: every circle keeps its radius within 1 %, and its
    // ends meet (on itself or on another line) within 1 % of it.
    let mut field = TensorField::default();
    field.add(BasisField::radial(c, 1000.0, 1.0));
    let t = TensorStreets::new(TensorParams::default())
        .unwrap()
        .trace(&field, &input(square(0.0, 2000.0)))
        .unwrap();
    let mut circles = 0;
    for l in t.lines.iter().filter(|l| l.family == Family::Minor) {
        let pts = &l.points[l.traced.clone()];
        let turned: f64 = pts
            .windows(2)
            .map(|w| {
                let (a, b) = (w[0] - c, w[1] - c);
                (b.y.atan2(b.x) - a.y.atan2(a.x) + PI).rem_euclid(TAU) - PI
            })
            .sum();
        let r = pts.iter().map(|p| p.distance(c)).sum::<f64>() / pts.len() as f64;
        if turned.abs() < 0.9 * TAU || !(300.0..=900.0).contains(&r) {
            continue;
        }
        assert!(
            pts.iter().all(|p| (p.distance(c) - r).abs() < 0.01 * r),
            "r {r}"
        );
        assert!(l.ends.iter().all(|&e| e == LineEnd::Joined), "{:?}", l.ends);
        circles += 1;
    }
    assert!(circles >= 5, "{circles}");
}
