//! Tests of the adaptive integration (`StreamlineParams::tolerance`): zero
//! keeps the fixed steps bit for bit, the default gives the same streets.

use super::*;
use crate::city::StreetsInput;
use std::f64::consts::TAU;

fn v(x: f64, y: f64) -> DVec2 {
    DVec2::new(x, y)
}

fn square(lo: f64, hi: f64) -> Vec<DVec2> {
    vec![v(lo, lo), v(hi, lo), v(hi, hi), v(lo, hi)]
}

/// An FNV-1a hash of every line (points, level, family, ends, traced
/// range) and of the rings and fixed roads with their junction points.
fn fingerprint(t: &TracedStreets) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    let mut eat = |x: u64| {
        for b in x.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    };
    let points = |pts: &[DVec2], eat: &mut dyn FnMut(u64)| {
        eat(pts.len() as u64);
        for p in pts {
            eat(p.x.to_bits());
            eat(p.y.to_bits());
        }
    };
    for l in &t.lines {
        points(&l.points, &mut eat);
        eat(l.level as u64);
        eat(l.family as u64);
        eat(l.traced.start as u64);
        eat(l.traced.end as u64);
        for e in l.ends {
            eat(e as u64);
        }
    }
    points(&t.boundary, &mut eat);
    for o in t.obstacles.iter().chain(&t.fixed) {
        points(o, &mut eat);
    }
    h
}

/// The small scenario of the tests, with a lake and a highway gate.
fn small() -> (TensorField, StreetsInput) {
    let mut field = TensorField::default();
    field.add(BasisField::grid(v(300.0, 300.0), 600.0, 2.0, 0.3));
    field.add(BasisField::radial(v(390.0, 210.0), 150.0, 3.0));
    let lake = (0..24)
        .map(|k| v(150.0, 420.0) + 60.0 * DVec2::from_angle(k as f64 * TAU / 24.0))
        .collect();
    let input = StreetsInput {
        boundary: square(0.0, 600.0),
        obstacles: vec![lake],
        fixed: vec![vec![v(-200.0, 300.0), v(0.0, 300.0), v(300.0, 300.0)]],
        ..StreetsInput::default()
    };
    (field, input)
}

/// The tests' coarse levels, with `tolerance` if given.
fn small_params(tolerance: Option<f64>) -> TensorParams {
    let level = |dsep, dtest, dlookahead| StreamlineParams {
        dsep,
        dtest,
        dlookahead,
        tolerance: tolerance.unwrap_or(DEFAULT_TOLERANCE),
        ..StreamlineParams::major()
    };
    TensorParams {
        seed: 5,
        main: level(150.0, 75.0, 150.0),
        major: level(60.0, 20.0, 80.0),
        minor: level(30.0, 15.0, 40.0),
        ..TensorParams::default()
    }
}

/// With a lake and a highway gate: edges, obstacles, joins and gates.
#[test]
fn zero_tolerance_keeps_the_fixed_steps_bit_for_bit() {
    // The fingerprint of the fixed-step tracer before adaptive steps.
    let (field, input) = small();
    let g = TensorStreets::new(small_params(Some(0.0))).unwrap();
    let t = g.trace(&field, &input).unwrap();
    assert_eq!(t.lines.len(), 47);
    assert_eq!(fingerprint(&t), 0x0d93_6bae_9cdb_bfd1);
}

/// The largest distance from a point of `a` to polyline `b`.
fn directed_hausdorff(a: &[DVec2], b: &[DVec2]) -> f64 {
    a.iter()
        .map(|&p| {
            (b.windows(2))
                .map(|w| crate::geom::distance_to_segment(p, w[0], w[1]))
                .fold(f64::INFINITY, f64::min)
        })
        .fold(0.0, f64::max)
}

fn hausdorff(a: &[DVec2], b: &[DVec2]) -> f64 {
    directed_hausdorff(a, b).max(directed_hausdorff(b, a))
}

/// `params` with every level's tolerance set to `tol`.
fn with_tolerance(params: &TensorParams, tol: f64) -> TensorParams {
    let mut p = params.clone();
    for l in [&mut p.main, &mut p.major, &mut p.minor] {
        l.tolerance = tol;
    }
    p
}

fn total_length(t: &TracedStreets) -> f64 {
    Level::ALL.iter().map(|&l| t.raw_length(l)).sum()
}

fn total_points(t: &TracedStreets) -> usize {
    Level::ALL.iter().map(|&l| t.raw_points(l)).sum()
}

#[test]
fn adaptive_lines_are_spaced_as_the_separation_tests_need() {
    let (field, input) = small();
    let params = small_params(None);
    let g = TensorStreets::new(params.clone()).unwrap();
    let t = g.trace(&field, &input).unwrap();
    assert_eq!(t.lines, g.trace(&field, &input).unwrap().lines);
    let fixed = TensorStreets::new(small_params(Some(0.0)))
        .unwrap()
        .trace(&field, &input)
        .unwrap();
    // Far fewer points, about the same streets.
    assert!(total_points(&t) * 3 < total_points(&fixed));
    let ratio = total_length(&t) / total_length(&fixed);
    assert!((ratio - 1.0).abs() < 0.05, "{ratio}");
    for line in &t.lines {
        let sp = params.levels()[line.level as usize];
        // The filing interval: at most `dtest / 4`.
        let most = sp.every() as f64 * sp.dstep;
        assert!(most <= sp.dtest / 4.0);
        for w in line.points[line.traced.clone()].windows(2) {
            // (The samples are f32.)
            assert!(
                w[0].distance(w[1]) <= most * (1.0 + 1e-5),
                "{:?}",
                line.level
            );
            assert!(w[0].is_finite() && w[0] != w[1]);
        }
    }
    assert!(t.to_streets().network.check_planar().is_ok());
}

#[test]
fn the_tolerance_is_validated() {
    let field_of = |f: fn(&mut TensorParams)| {
        let mut p = TensorParams::default();
        f(&mut p);
        TensorStreets::new(p).unwrap_err().field().to_owned()
    };
    assert_eq!(field_of(|p| p.minor.tolerance = -0.1), "minor.tolerance");
    assert_eq!(field_of(|p| p.main.tolerance = f64::NAN), "main.tolerance");
    assert_eq!(
        field_of(|p| p.major.tolerance = f64::INFINITY),
        "major.tolerance"
    );
    // At most `dtest`.
    assert_eq!(field_of(|p| p.major.tolerance = 31.0), "major.tolerance");
    let mut p = TensorParams::default();
    assert_eq!(p.minor.tolerance, DEFAULT_TOLERANCE);
    p.minor.tolerance = 0.0;
    assert!(TensorStreets::new(p.clone()).is_ok());
    let read: TensorParams = ron::from_str("(minor: (tolerance: 0.0))").unwrap();
    assert_eq!(
        (read.main.tolerance, read.minor.tolerance),
        (DEFAULT_TOLERANCE, 0.0)
    );
}

/// The reference scenario of `benches/tensor.rs`.
fn reference() -> (TensorField, StreetsInput, TensorParams) {
    let mut field = TensorField::default();
    field.add(BasisField::grid(v(1000.0, 1000.0), 2000.0, 2.0, 0.3));
    field.add(BasisField::radial(v(1300.0, 700.0), 400.0, 5.0));
    let input = StreetsInput {
        boundary: square(0.0, 2000.0),
        ..StreetsInput::default()
    };
    let params = TensorParams {
        seed: 42,
        ..TensorParams::default()
    };
    (field, input, params)
}

/// The reference scenario at tolerance 0 (slow in debug builds).
#[test]
#[ignore]
fn zero_tolerance_keeps_the_reference_streets_bit_for_bit() {
    let (field, input, params) = reference();
    let g = TensorStreets::new(with_tolerance(&params, 0.0)).unwrap();
    let t = g.trace(&field, &input).unwrap();
    assert_eq!(t.lines.len(), 177);
    assert_eq!(fingerprint(&t), 0xcd17_3ae4_1f2a_5ff9);
}

/// The reference scenario with the default tolerance against fixed steps:
/// the main lines within 2 m, the total length within 3 % (slow in debug
/// builds).
#[test]
#[ignore]
fn adaptive_steps_trace_the_reference_streets() {
    let (field, input, params) = reference();
    let trace = |p: TensorParams| {
        TensorStreets::new(p)
            .unwrap()
            .trace(&field, &input)
            .unwrap()
    };
    let fixed = trace(with_tolerance(&params, 0.0));
    let adaptive = trace(params);
    let mains = |t: &TracedStreets| -> Vec<Vec<DVec2>> {
        (t.of(Level::Main).filter(|l| !l.traced.is_empty()))
            .map(|l| l.points.clone())
            .collect()
    };
    let (a, f) = (mains(&adaptive), mains(&fixed));
    assert_eq!(a.len(), f.len());
    assert_eq!(adaptive.lines.len(), fixed.lines.len());
    for (a, f) in a.iter().zip(&f) {
        let d = hausdorff(a, f);
        assert!(d <= 2.0, "{d}");
    }
    let ratio = total_length(&adaptive) / total_length(&fixed);
    assert!((ratio - 1.0).abs() <= 0.03, "{ratio}");
    assert!(total_points(&adaptive) * 3 < total_points(&fixed));
    assert!(adaptive.to_streets().network.check_planar().is_ok());
}

/// The fixed steps' field samples (neighbouring cells only) and the
/// adaptive ones' (any cell) agree bit for bit within a cell of the place
/// (on the grid and off it).
#[test]
fn both_samplings_agree_on_the_neighbouring_cells() {
    use super::trace::{Place, sample};
    let field = small().0;
    let sampled = field.sampled(v(0.0, 0.0), v(600.0, 600.0), 5.0).unwrap();
    let (mut checked, mut s) = (0, 12345u64);
    let mut unit = || {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    for _ in 0..20_000 {
        let p = v(unit() as f64 * 620.0 - 10.0, unit() as f64 * 620.0 - 10.0);
        let place = Place::of(&sampled, p);
        let du = [unit() * 3.2 - 1.6, unit() * 3.2 - 1.6];
        let to = [unit() - 0.5, unit() - 0.5];
        let a = sample::<false, false>(&sampled, &place, p, du, 1.0, to);
        let b = sample::<false, true>(&sampled, &place, p, du, 1.0, to);
        let (u, w) = (place.u + du[0], place.v + du[1]);
        // (Place::of keeps `u`, `w` in [0, 1) even off the grid.)
        if (-1.0..2.0).contains(&u) && (-1.0..2.0).contains(&w) {
            assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "{p} {du:?}");
            checked += 1;
        }
        let c = sample::<true, false>(&sampled, &place, p, du, -1.0, to);
        let d = sample::<true, true>(&sampled, &place, p, du, -1.0, to);
        if (-1.0..2.0).contains(&u) && (-1.0..2.0).contains(&w) {
            assert_eq!(c.map(f32::to_bits), d.map(f32::to_bits), "{p} {du:?}");
        }
    }
    assert!(checked > 5_000, "{checked}");
}

/// The reference scenario at the default tolerance, pinned: the store's
/// layout and the pending points change how the separation queries look,
/// never what they answer (slow in debug builds). (Pinned anew when steps
/// grew past the filing interval, cut into pieces along their curves:
/// 177 lines, as many as fixed steps trace, where there were 183.)
#[test]
#[ignore]
fn default_tolerance_keeps_the_reference_streets_bit_for_bit() {
    let (field, input, params) = reference();
    let t = TensorStreets::new(params)
        .unwrap()
        .trace(&field, &input)
        .unwrap();
    assert_eq!(t.lines.len(), 177);
    assert_eq!(fingerprint(&t), 0xb787_eb2f_5ec7_fc1c);
}

/// A step is cut into pieces of equal time along its curve, each at most
/// the filing interval long, the last ending where the step does; a curve
/// too long for that is cut along its chord.
#[test]
fn steps_are_cut_into_pieces_that_fit_the_filing_interval() {
    use super::bs3::{Bs3, MAX_PIECES, STRETCH, STRIDE, longest_step, pieces};
    let most = 3.0;
    let h = longest_step(most);
    let start = v(100.0, -40.0);
    let step = |d: DVec2, k1: DVec2, k4: DVec2| Bs3 {
        d,
        err: 0.0,
        h,
        k1,
        k4,
    };
    let check = |s: &Bs3| -> usize {
        let mut ends = [DVec2::ZERO; MAX_PIECES];
        let (n, longest) = pieces(s, start, most, &mut ends);
        assert_eq!(ends[n - 1], start + s.d);
        let (mut from, mut most_seen) = (start, 0.0f64);
        for &e in &ends[..n] {
            let len = e.distance(from);
            assert!(len <= most && e != from, "{n} {e} {from}");
            assert!(len <= s.h / n as f64 * STRETCH, "{n} {len}");
            most_seen = most_seen.max(e.distance(from));
            from = e;
        }
        // (The filing counts on it.)
        assert!((longest - most_seen).abs() < 1e-12, "{longest} {most_seen}");
        n
    };
    // Straight: as few pieces as the time needs, evenly spaced.
    let straight = step(v(h, 0.0), v(1.0, 0.0), v(1.0, 0.0));
    assert_eq!(straight.at(0.0), DVec2::ZERO);
    assert!(straight.at(0.25).distance(v(0.25 * h, 0.0)) < 1e-12);
    assert_eq!(check(&straight), STRIDE as usize);
    // A quarter turn: its ends and directions kept, each piece fits.
    let r = h / std::f64::consts::FRAC_PI_2;
    let turn = step(v(r, r), v(1.0, 0.0), v(0.0, 1.0));
    assert!(turn.at(1.0).distance(v(r, r)) < 1e-12);
    let n = check(&turn);
    assert!((STRIDE as usize..MAX_PIECES).contains(&n), "{n}");
    // A curve far longer than its time: along the chord.
    let wild = step(v(h, 0.0), v(0.0, 40.0), v(0.0, -40.0));
    assert_eq!(check(&wild), MAX_PIECES);
    // Pieces short enough but far longer than their time: along the chord.
    let bent = Bs3 {
        h: 4.0,
        ..step(v(4.0, 0.0), v(0.0, 1.0), v(0.0, -1.0))
    };
    assert_eq!(check(&bent), MAX_PIECES);
    // A short step: one piece.
    let short = Bs3 {
        h: 1.0,
        ..step(v(1.0, 0.0), v(1.0, 0.0), v(1.0, 0.0))
    };
    assert_eq!(check(&short), 1);
}
