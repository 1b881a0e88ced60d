//! Tests of the tensor-field streets.

use super::*;
use crate::city::StreetsInput;

fn square(side: f64) -> Vec<DVec2> {
    vec![DVec2::ZERO, DVec2::new(side, 0.0), DVec2::new(side, side), DVec2::new(0.0, side)]
}

#[test]
fn smoke() {
    let mut field = TensorField::default();
    field.add(BasisField::grid(DVec2::new(1000.0, 1000.0), 2000.0, 2.0, 0.3));
    field.add(BasisField::radial(DVec2::new(1300.0, 700.0), 400.0, 5.0));
    let params = TensorParams { seed: 42, ..TensorParams::default() };
    let input = StreetsInput { boundary: square(2000.0), ..StreetsInput::default() };
    let t = std::time::Instant::now();
    let traced = TensorStreets::new(params).unwrap().trace(&field, &input).unwrap();
    println!("trace {:?}", t.elapsed());
    for l in Level::ALL {
        println!("{l:?}: {} lines, {:.0} m, {} pts", traced.of(l).count(), traced.raw_length(l), traced.raw_points(l));
    }
    let t = std::time::Instant::now();
    let s = traced.to_streets();
    println!("streets {:?}", t.elapsed());
    println!("{} roads {} blocks", s.network.roads.len(), s.blocks.len());
    assert!(s.network.check_planar().is_ok());
}

#[test]
#[ignore]
fn zz_rk4_micro() {
    let mut field = TensorField::default();
    field.add(BasisField::grid(DVec2::new(1000.0, 1000.0), 2000.0, 2.0, 0.3));
    field.add(BasisField::radial(DVec2::new(1300.0, 700.0), 400.0, 5.0));
    let s = field.sampled(DVec2::ZERO, DVec2::splat(2000.0), 5.0).unwrap();
    let mut total = DVec2::ZERO;
    let mut steps = 0;
    for k in 0..100 {
        let mut p = DVec2::new(100.0 + k as f64 * 15.0, 500.0);
        let mut prev = DVec2::X;
        for _ in 0..10_000 {
            let Some(d) = trace::rk4(&s, true, p, prev, 1.0) else { break };
            p += d;
            steps += 1;
            prev = d;
            if !(p.x > 0.0 && p.y > 0.0 && p.x < 2000.0 && p.y < 2000.0) { break; }
        }
        total += p;
    }
    println!("{total} {steps}");
}
