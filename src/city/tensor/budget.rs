//! The work a run would take, estimated before tracing from the boundary's
//! area and each level's spacings, so that parameters that are valid but
//! far too fine for the area are refused up front (naming the field to
//! raise) instead of running for minutes and gigabytes.
//!
//! Each family of a level fills the area with lines about `dsep` apart, so
//! a level traces about `2·area / dsep` metres of line: `2·area / (dsep·dstep)`
//! integration steps, and lays about three seed candidates every `dsep`
//! along it, `6·area / dsep²`. (On the reference scenario the traced
//! length is about 0.6 of this estimate.)

use super::TensorError;
use super::params::{StreamlineParams, TensorParams};

/// Most integration steps a run may be estimated to take (all levels).
pub const MAX_ESTIMATED_STEPS: f64 = 1.0e7;
/// Most seed candidates a run may be estimated to lay (all levels).
pub const MAX_ESTIMATED_SEEDS: f64 = 4.0e6;

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
    let field = |i: usize, name: &str| -> &'static str {
        match (i, name) {
            (0, "dstep") => "main.dstep",
            (1, "dstep") => "major.dstep",
            (2, "dstep") => "minor.dstep",
            (0, _) => "main.dsep",
            (1, _) => "major.dsep",
            _ => "minor.dsep",
        }
    };
    let estimate = total(steps);
    if !(estimate <= MAX_ESTIMATED_STEPS) {
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
    if !(estimate <= MAX_ESTIMATED_SEEDS) {
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
