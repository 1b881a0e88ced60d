//! Grids are bit-identical to `Terrain::height` with every kernel this CPU runs.

use super::*;
use crate::terrain::TerrainParams;

/// Whether this CPU has what a kernel is compiled for, asked directly
/// (not through [`GridKernel::available`], which is under test).
fn cpu_has(kernel: GridKernel) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::is_x86_feature_detected as has;
        match kernel {
            GridKernel::Scalar => true,
            GridKernel::Avx2 => has!("avx2"),
            GridKernel::Avx512 => has!("avx512f"),
            GridKernel::Avx512Vbmi => {
                has!("avx512f")
                    && has!("avx512bw")
                    && has!("avx512dq")
                    && has!("avx512vbmi")
                    && has!("avx2")
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        kernel == GridKernel::Scalar
    }
}

#[test]
fn every_kernel_the_cpu_has_runs_and_gives_the_heights_bit_for_bit() {
    let reference = Terrain::default();
    // A profile too long for byte tables, with mountains.
    let mut p = TerrainParams::random(5, 1024).unwrap();
    p.mountain_base = Some(30.0);
    let random = Terrain::new(p).unwrap();
    let mut out = Vec::new();
    let mut tested = Vec::new();
    for kernel in GridKernel::ALL {
        if !cpu_has(kernel) {
            let instead = reference.grid_kernel_for(kernel);
            assert!(cpu_has(instead), "{kernel:?} falls back to {instead:?}");
            eprintln!("GridKernel::{kernel:?} is not on this CPU: untested ({instead:?} runs)");
            continue;
        }
        // The kernel asked for is the one that runs (VBMI needs a
        // byte-sized profile: the long one gets plain AVX-512).
        assert_eq!(reference.grid_kernel_for(kernel), kernel);
        let on_random = match kernel {
            GridKernel::Avx512Vbmi => GridKernel::Avx512,
            k => k,
        };
        assert_eq!(random.grid_kernel_for(kernel), on_random);
        for t in [&reference, &random] {
            // Odd sizes exercise the SIMD tails.
            for (x0, y0, step, w, h) in [
                (18990.0, 1250.0, 1.0, 37, 5),
                (-4999.7, -4999.3, 3.7, 23, 7),
                (1e7 + 0.5, 3.0, -2.5, 9, 9),
            ] {
                t.heights_grid_with(kernel, x0, y0, step, w, h, &mut out)
                    .unwrap();
                for j in 0..h {
                    for i in 0..w {
                        let e = t.height(x0 + i as f64 * step, y0 + j as f64 * step);
                        assert_eq!(out[j * w + i].to_bits(), e.to_bits(), "{kernel:?}");
                    }
                }
            }
        }
        tested.push(kernel);
    }
    eprintln!("grid kernels tested on this CPU: {tested:?}");
    let fastest = GridKernel::ALL.into_iter().rev().find(|&k| cpu_has(k));
    assert_eq!(Some(GridKernel::detect()), fastest);
    // Scattered points: VBMI where the CPU and the profile have it.
    assert_eq!(random.points_kernel(), GridKernel::Scalar);
    if cpu_has(GridKernel::Avx512Vbmi) {
        assert_eq!(reference.points_kernel(), GridKernel::Avx512Vbmi);
    } else {
        assert_eq!(reference.points_kernel(), GridKernel::Scalar);
        eprintln!("heights_at_points: no AVX-512 VBMI on this CPU, only the scalar path ran");
    }
}
