//! Conformance with the reference data in `tests/data/` (copies of
//! `shared/reference/`): heights bit for bit, kinds and features exactly.

use bevy_relief::terrain::{Feature, GridKernel, Terrain, TerrainKind};

const POINTS: &str = include_str!("../data/relf_points.csv");
const FEATURES: &str = include_str!("../data/relf_features_0_0_1000.csv");

struct Row {
    x: f64,
    y: f64,
    height: f64,
    kind: &'static str,
    feature: &'static str,
}

fn rows() -> Vec<Row> {
    POINTS
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&'static str> = l.split(',').collect();
            Row {
                x: f[0].parse().unwrap(),
                y: f[1].parse().unwrap(),
                height: f[2].parse().unwrap(),
                kind: f[3],
                feature: f[4],
            }
        })
        .collect()
}

#[test]
fn heights_are_bit_identical_to_the_reference() {
    let t = Terrain::default();
    let rows = rows();
    assert_eq!(rows.len(), 2000);
    for r in &rows {
        assert_eq!(
            t.height(r.x, r.y).to_bits(),
            r.height.to_bits(),
            "height({}, {})",
            r.x,
            r.y
        );
    }
}

#[test]
fn kinds_and_features_match_the_reference() {
    let t = Terrain::default();
    let mut seen_kinds = std::collections::BTreeSet::new();
    for r in &rows() {
        let s = t.terra(r.x, r.y);
        assert_eq!(s.kind.name(), r.kind, "kind at ({}, {})", r.x, r.y);
        assert_eq!(
            s.feature.map_or("none", Feature::name),
            r.feature,
            "feature at ({}, {})",
            r.x,
            r.y
        );
        if s.kind == TerrainKind::Lake {
            assert_eq!(s.height, 204.0);
            assert_eq!(s.depth, 204.0 - r.height);
        } else {
            assert_eq!(s.height.to_bits(), r.height.to_bits());
        }
        seen_kinds.insert(s.kind);
    }
    assert!(seen_kinds.len() >= 6, "{seen_kinds:?}");
}

#[test]
fn exactly_the_reference_features_in_the_square() {
    let t = Terrain::default();
    let expected: Vec<(i64, i64, &str)> = FEATURES
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2])
        })
        .collect();
    let mut found = Vec::new();
    for y in 0..1000i64 {
        for x in 0..1000i64 {
            let s = t.terra(x as f64, y as f64);
            if let Some(f) = s.feature {
                found.push((x, y, f.name()));
                if f != Feature::Cone {
                    assert_eq!(s.code, Some(bevy_relief::terrain::ControlCode::at(x, y)));
                }
            }
        }
    }
    let key = |v: &(i64, i64, &str)| (v.1, v.0);
    let mut expected = expected;
    expected.sort_by_key(key);
    found.sort_by_key(key);
    assert_eq!(found, expected);
}

/// The kernels this CPU runs (`GridKernel::available`, which the crate's
/// own tests check against the CPU's features); says which it cannot.
fn kernels_on_this_cpu() -> Vec<GridKernel> {
    let (on, off): (Vec<_>, Vec<_>) = GridKernel::ALL.into_iter().partition(|k| k.available());
    for k in off {
        eprintln!("GridKernel::{k:?} is not on this CPU: not tested here");
    }
    on
}

#[test]
fn grid_matches_height_bit_for_bit_on_every_kernel() {
    let t = Terrain::default();
    let mut out = Vec::new();
    // Odd sizes exercise the SIMD tails; steps include fractions and negatives.
    let cases = [
        (18990.0, 1250.0, 1.0, 37, 5),
        (-1811.25, 3062.5, 0.25, 19, 3),
        (-4999.7, -4999.3, 3.7, 23, 7),
        (49_999_000.0, -49_999_500.0, 16.0, 17, 4),
        (1e7 + 0.5, 3.0, -2.5, 9, 9),
        (0.0, 0.0, 0.0, 8, 1),
        // Absurdly far: every kernel wraps the index the same way.
        (3.0e18, -7.0e19, 1.0e17, 16, 2),
        (1.0e300, -1.0e300, 1.0e290, 9, 2),
    ];
    for kernel in kernels_on_this_cpu() {
        for &(x0, y0, step, w, h) in &cases {
            t.heights_grid_with(kernel, x0, y0, step, w, h, &mut out)
                .unwrap();
            assert_eq!(out.len(), w * h);
            for j in 0..h {
                for i in 0..w {
                    let e = t.height(x0 + i as f64 * step, y0 + j as f64 * step);
                    assert_eq!(
                        out[j * w + i].to_bits(),
                        e.to_bits(),
                        "{kernel:?} {x0} {y0} {step} {i} {j}"
                    );
                }
            }
        }
        // The reference points on a grid through each of them.
        for r in rows().iter().take(200) {
            t.heights_grid_with(kernel, r.x, r.y, 0.5, 8, 1, &mut out)
                .unwrap();
            assert_eq!(out[0].to_bits(), r.height.to_bits());
        }
        // Non-finite origins give NaN, never a panic or a wild index.
        t.heights_grid_with(kernel, f64::NAN, 0.0, 1.0, 16, 2, &mut out)
            .unwrap();
        assert!(out.iter().all(|v| v.is_nan()));
        t.heights_grid_with(kernel, f64::INFINITY, 0.0, 1.0, 16, 2, &mut out)
            .unwrap();
        assert!(out.iter().all(|v| v.is_nan()));
    }
    assert!(
        t.heights_grid(0.0, 0.0, 1.0, usize::MAX, 2, &mut out)
            .is_err()
    );
    assert!(out.is_empty());
}

#[test]
fn heights_at_scattered_points_match_height_bit_for_bit() {
    let mountains = bevy_relief::terrain::TerrainParams {
        mountain_base: Some(300.0),
        time: 3.5,
        ..Default::default()
    };
    for t in [Terrain::default(), Terrain::new(mountains).unwrap()] {
        // Scattered points, far ones and non-finite ones; 8-lane batches and a tail.
        let mut xs: Vec<f64> = (0..203)
            .map(|i| 19000.0 + (i * i % 97) as f64 * 7.37)
            .collect();
        let mut ys: Vec<f64> = (0..203)
            .map(|i| 1260.0 - (i * 31 % 89) as f64 * 3.11)
            .collect();
        xs.extend([3.0e18, 1.0e300, f64::NAN, -49_999_000.5, f64::INFINITY]);
        ys.extend([-7.0e19, -1.0e300, 0.0, 12.25, 1.0]);
        let mut out = Vec::new();
        t.heights_at_points(&xs, &ys, &mut out);
        assert_eq!(out.len(), xs.len());
        for i in 0..xs.len() {
            let e = t.height(xs[i], ys[i]);
            assert!(
                out[i].to_bits() == e.to_bits() || (out[i].is_nan() && e.is_nan()),
                "({}, {}): {} vs {e}",
                xs[i],
                ys[i],
                out[i]
            );
        }
        // The reference points too.
        let (xs, ys): (Vec<f64>, Vec<f64>) = rows().iter().map(|r| (r.x, r.y)).unzip();
        t.heights_at_points(&xs, &ys, &mut out);
        if t.params().mountain_base.is_none() {
            for (r, h) in rows().iter().zip(&out) {
                assert_eq!(h.to_bits(), r.height.to_bits());
            }
        }
    }
}

#[test]
fn grid_is_exact_for_random_profiles_and_mountains() {
    let mut p = bevy_relief::terrain::TerrainParams::random(5, 1024).unwrap();
    p.mountain_base = Some(30.0);
    p.time = 12.5;
    let t = Terrain::new(p).unwrap();
    let mut out = Vec::new();
    for kernel in kernels_on_this_cpu() {
        t.heights_grid_with(kernel, 123.4, -567.8, 1.3, 41, 6, &mut out)
            .unwrap();
        for j in 0..6 {
            for i in 0..41 {
                let e = t.height(123.4 + i as f64 * 1.3, -567.8 + j as f64 * 1.3);
                assert_eq!(out[j * 41 + i].to_bits(), e.to_bits());
            }
        }
    }
}
