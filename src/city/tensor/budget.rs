//! The work a run would take, estimated before tracing from the boundary's
//! area and each level's spacings, so that parameters that are valid but
//! far too fine for the area are refused up front (naming the field to
//! raise) instead of running for minutes and gigabytes.
//!
//! Each family of a level fills the area with lines about `dsep` apart, so
//! a level traces about `2·area / dsep` metres of line: `2·area / (dsep·dstep)`
//! integration steps, and lays about three seed candidates every `dsep`
//! along it, `6·area / dsep²`. (On the reference scenario the traced
//! length is about 0.6 of this estimate. Adaptive steps, with a
//! `tolerance`, are fewer: the estimate of fixed steps bounds them.)

use super::TensorError;
use super::params::{StreamlineParams, TensorParams};

/// Most integration steps a run may be estimated to take (all levels).
pub const MAX_ESTIMATED_STEPS: f64 = 1.0e7;
/// Most seed candidates a run may be estimated to lay (all levels).
pub const MAX_ESTIMATED_SEEDS: f64 = 1.5e6;

/// Field `name` of level `level` (0: main), as a path in [`TensorParams`].
fn field(level: usize, name: &str) -> &'static str {
    const PATHS: [[&str; 3]; 3] = [
        ["main.dstep", "main.dtest", "main.dsep"],
        ["major.dstep", "major.dtest", "major.dsep"],
        ["minor.dstep", "minor.dtest", "minor.dsep"],
    ];
    let k = ["dstep", "dtest", "dsep"].iter().position(|&n| n == name);
    PATHS[level.min(2)][k.unwrap_or(2)]
}

/// The error of a run that traced its whole step budget at level `level`
/// (parameters `sp`): it names `dstep` unless that is at its most (half
/// `dtest`), else `dtest` (lines packed close).
pub(crate) fn traced_too_much(sp: &StreamlineParams, level: usize) -> TensorError {
    let name = if 2.0 * sp.dstep < sp.dtest {
        "dstep"
    } else {
        "dtest"
    };
    TensorError::Budget {
        field: field(level, name),
        what: "integration steps traced",
        estimate: super::MAX_TRACE_STEPS as f64,
        limit: super::MAX_TRACE_STEPS as f64,
    }
}

/// A level's estimated integration steps over `area` square metres.
fn steps(sp: &StreamlineParams, area: f64) -> f64 {
    2.0 * area / (sp.dsep * sp.dstep)
}

/// A level's estimated seed candidates over `area` square metres.
fn seeds(sp: &StreamlineParams, area: f64) -> f64 {
    6.0 * area / (sp.dsep * sp.dsep)
}

/// `Err(Budget)` when tracing `params` over `area` square metres is
/// estimated to take more than [`MAX_ESTIMATED_STEPS`] steps or
/// [`MAX_ESTIMATED_SEEDS`] seed candidates. The error names the costliest
/// level's field to raise: its `dstep` if raising that alone (up to half
/// its `dtest`) would do, else its `dsep`.
pub(crate) fn check(params: &TensorParams, area: f64) -> Result<(), TensorError> {
    let levels = params.levels();
    let costliest = |cost: fn(&StreamlineParams, f64) -> f64| {
        (0..3)
            .map(|i| (i, cost(levels[i], area)))
            .fold((0, 0.0), |a, b| if b.1 > a.1 { b } else { a })
    };
    let total = |cost: fn(&StreamlineParams, f64) -> f64| {
        levels.iter().map(|sp| cost(sp, area)).sum::<f64>()
    };
    let estimate = total(steps);
    if estimate.is_nan() || estimate > MAX_ESTIMATED_STEPS {
        let (i, worst) = costliest(steps);
        let sp = levels[i];
        // The dstep that would bring this level alone down to the share
        // the others leave it.
        let share = MAX_ESTIMATED_STEPS - (estimate - worst);
        let needed = sp.dstep * worst / share.max(1.0);
        let name = if share > 0.0 && needed <= sp.dtest / 2.0 {
            "dstep"
        } else {
            "dsep"
        };
        return Err(TensorError::Budget {
            field: field(i, name),
            what: "integration steps",
            estimate,
            limit: MAX_ESTIMATED_STEPS,
        });
    }
    let estimate = total(seeds);
    if estimate.is_nan() || estimate > MAX_ESTIMATED_SEEDS {
        let (i, _) = costliest(seeds);
        return Err(TensorError::Budget {
            field: field(i, "dsep"),
            what: "seed candidates",
            estimate,
            limit: MAX_ESTIMATED_SEEDS,
        });
    }
    Ok(())
}
