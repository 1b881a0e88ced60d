//! One line's work that needs no store but its own family's: tracing it
//! from its seed ([`LineCx::trace`]) and laying the seed candidates along
//! it, with what can be decided of them without the other family's store.
//! So a line of each family can be traced at once (see
//! [`trace_level`](super::Generator::trace_level)).

use crate::city::tensor::field::SampledField;
use crate::city::tensor::lines::shorter_than;
use crate::city::tensor::region::Region;
use crate::city::tensor::seeds::{Density, Walk, lay};
use crate::city::tensor::store::Store;
use crate::city::tensor::trace::{Family, Limits, Scratch, Stop, direction, trace_both};
use glam::DVec2;

/// What a level's lines are traced with (all of it shared, read-only).
#[derive(Clone, Copy)]
pub(super) struct LineCx<'a> {
    pub field: &'a SampledField,
    pub region: &'a Region,
    pub lim: Limits,
    pub density: Density,
    pub dsep: f64,
    pub dstep: f64,
    pub min_length: f64,
    /// Whether some level steps adaptively (lines then carry their points'
    /// times).
    pub timed: bool,
}

/// A seed candidate laid along a line, in the order laid: its family,
/// where, and whether it is kept if that is known yet (`None`: it is free,
/// and the other family's store decides).
#[derive(Clone, Copy, Debug)]
pub(super) struct Laid {
    pub family: Family,
    pub pos: DVec2,
    pub keep: Option<bool>,
}

/// A traced line, not yet added to the run.
pub(super) struct Traced {
    pub family: Family,
    /// Backward half reversed, the seed, the forward half.
    pub points: Vec<DVec2>,
    /// The points' times from the first (empty unless the run is timed).
    pub times: Vec<f64>,
    /// Why the backward and the forward half stopped.
    pub stops: [Stop; 2],
    /// Points before the seed.
    pub before: usize,
    /// The candidates laid along it.
    pub laid: Vec<Laid>,
}

impl LineCx<'_> {
    /// Traces line `id` of `family` through `seed` into `store` (its
    /// family's) with at most `budget` steps: the steps taken, and the line
    /// with its candidates, or `None` if the field degenerates there or the
    /// line is too short (its points are then unfiled again).
    pub fn trace(
        &self,
        store: &mut Store,
        scratch: &mut Scratch,
        (family, seed, id): (Family, DVec2, u32),
        budget: u64,
    ) -> (u64, Option<Traced>) {
        let Some(dir) = direction(self.field, family, seed) else {
            return (0, None);
        };
        store.mark();
        store.insert(seed, id, 0);
        let mut left = budget;
        let [stop_f, stop_b] = trace_both(
            self.field,
            self.region,
            store,
            family,
            (seed, dir),
            id,
            &self.lim,
            &mut left,
            scratch,
        );
        let used = budget - left;
        let [fwd, bwd] = &scratch.halves;
        let mut points = Vec::with_capacity(bwd.len() + 1 + fwd.len());
        points.extend(bwd.iter().rev());
        points.push(seed);
        points.extend_from_slice(fwd);
        if shorter_than(&points, self.min_length.max(1.0e-9)) {
            store.undo();
            return (used, None);
        }
        let adaptive = self.lim.tol > 0.0;
        let times = if adaptive {
            let [fwd, bwd] = &scratch.times;
            let t0 = bwd.last().copied().unwrap_or(0.0);
            let mut times = Vec::with_capacity(points.len());
            times.extend(bwd.iter().rev().map(|t| t0 - t));
            times.push(t0);
            times.extend(fwd.iter().map(|t| t0 + t));
            times
        } else if self.timed {
            (0..points.len()).map(|i| i as f64 * self.lim.h).collect()
        } else {
            Vec::new()
        };
        let minor = family == Family::Minor;
        let vel = |p: DVec2, to: DVec2| self.field.towards(p, minor, to);
        let walk = if adaptive {
            Walk::Times {
                times: &times,
                per: self.dstep,
                step: self.dstep,
                vel: Some(&vel),
            }
        } else {
            Walk::Steps(self.dstep)
        };
        let mut laid = Vec::new();
        lay(&points, family, self.dsep, walk, self.density, |f, pos| {
            let keep = if !self.region.is_free(pos) {
                Some(false)
            } else if f == family {
                Some(!store.any_within(pos, self.dsep / self.density.at(pos), None))
            } else {
                None
            };
            laid.push(Laid {
                family: f,
                pos,
                keep,
            });
        });
        let before = scratch.halves[1].len();
        let line = Traced {
            family,
            points,
            times,
            stops: [stop_b, stop_f],
            before,
            laid,
        };
        (used, Some(line))
    }
}
