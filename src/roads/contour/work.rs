//! The work a road request may do: each kind of work the generator does is
//! counted as it is done, against a budget of its own, so that every
//! parameter set [`ContourParams::validate`](super::ContourParams::validate)
//! accepts ends in bounded time and memory, with a [`RoadAreaError`] that
//! names the work that ran out rather than minutes of work.

use super::RoadAreaError;

/// A kind of work a contour-road request does, each with its own budget
/// ([`RoadWork::limit`]), counted over the whole request (every simulation
/// of a growing focus box). The budgets grow with the area asked for, from
/// a 10 km square's ([`RoadWork::base`]) to a cap ([`RoadWork::max`]), so a
/// request ends in bounded time and memory whatever the parameters:
///
/// | work | up to 100 km² | at most |
/// | --- | --- | --- |
/// | start-grid cells | 200,000 | 262,144 |
/// | growth steps | 1,000,000 | 4,000,000 |
/// | cell entries | 1,500,000 | 6,000,000 |
/// | lake and town samples | 4,000,000 | 16,000,000 |
/// | segment pair tests | 5,000,000 | 25,000,000 |
/// | crossings | 100,000 | 1,000,000 |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoadWork {
    /// Cells of the start points' grid looked at: a height and a town test
    /// each, and memory for the paths of each start until the simulation
    /// ends.
    StartCells,
    /// Growth steps: one proposed segment each (three heights and the step
    /// arithmetic).
    Steps,
    /// Cell entries: a proposed segment in each 40 m cell its box touches
    /// (memory until the simulation ends).
    CellEntries,
    /// Whole-metre lake and town samples, along the steps that the quick
    /// bounds cannot clear.
    Samples,
    /// Pairs of segments looked at for a meeting (cell entries visited).
    PairTests,
    /// Meetings found: crossings and stops to sort and resolve (memory for
    /// one round).
    Meetings,
}

impl RoadWork {
    /// Every kind of work.
    pub const ALL: [RoadWork; 6] = [
        Self::StartCells,
        Self::Steps,
        Self::CellEntries,
        Self::Samples,
        Self::PairTests,
        Self::Meetings,
    ];

    /// What a request for at most 100 km² (a 10 km square) may do: about
    /// a second of work on one core at most (and a few hundred MB), several
    /// times what the defaults need there.
    pub const fn base(self) -> u64 {
        match self {
            Self::StartCells => 200_000,
            Self::Steps => 1_000_000,
            Self::CellEntries => 1_500_000,
            Self::Samples => 4_000_000,
            Self::PairTests => 5_000_000,
            Self::Meetings => 100_000,
        }
    }

    /// The most any request may do, however large: enough for the defaults
    /// up to [`MAX_ROAD_AREA`].
    ///
    /// [`MAX_ROAD_AREA`]: super::MAX_ROAD_AREA
    pub const fn max(self) -> u64 {
        match self {
            Self::StartCells => 262_144,
            Self::Steps => 4_000_000,
            Self::CellEntries => 6_000_000,
            Self::Samples => 16_000_000,
            Self::PairTests => 25_000_000,
            Self::Meetings => 1_000_000,
        }
    }

    /// The most of this work a request for `area` m² may do: [`Self::base`]
    /// up to 100 km², then as much per km², up to [`Self::max`].
    pub fn limit(self, area: f64) -> u64 {
        let share = area / 1e8;
        let scaled = if share.is_finite() {
            self.base() as f64 * share
        } else {
            f64::INFINITY
        };
        scaled.clamp(self.base() as f64, self.max() as f64) as u64
    }

    /// What is counted, for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::StartCells => "start-grid cells",
            Self::Steps => "growth steps",
            Self::CellEntries => "cell entries",
            Self::Samples => "lake and town samples",
            Self::PairTests => "segment pair tests",
            Self::Meetings => "crossings",
        }
    }

    /// Which parameters to change to need less of it, for messages.
    pub fn advice(self) -> &'static str {
        match self {
            Self::StartCells => "lower density or ask for a smaller area",
            Self::Steps => "lower max_points, max_rounds or density, or ask for a smaller area",
            Self::CellEntries => "lower step or density, or ask for a smaller area",
            Self::Samples => "lower step or density, or ask for a smaller area",
            Self::PairTests | Self::Meetings => {
                "lower density or step (the roads are too crowded), or ask for a smaller area"
            }
        }
    }
}

/// The work done so far in one request, and what it may do.
#[derive(Clone, Debug)]
pub(super) struct Budget {
    used: [u64; 6],
    limit: [u64; 6],
}

impl Budget {
    /// The budget of a request for `area` m² (see [`RoadWork::limit`]).
    pub(super) fn for_area(area: f64) -> Self {
        Self {
            used: [0; 6],
            limit: RoadWork::ALL.map(|w| w.limit(area)),
        }
    }

    /// A budget with other limits (to test what running out does).
    #[cfg(test)]
    pub(super) fn with_limits(limit: [u64; 6]) -> Self {
        Self {
            used: [0; 6],
            limit,
        }
    }

    /// Counts `n` more of `work`, or refuses it (counting nothing) when the
    /// total would exceed its limit. The callers ask before the work where
    /// they can (start cells, steps, samples) and otherwise right after a
    /// small piece of it (the cell entries, pair tests and meetings of eight
    /// steps), so the work done never goes beyond the limits by more than
    /// that.
    #[inline]
    pub(super) fn spend(&mut self, work: RoadWork, n: u64) -> Result<(), RoadAreaError> {
        let k = work as usize;
        let total = self.used[k].saturating_add(n);
        if total > self.limit[k] {
            return Err(RoadAreaError::TooMuchWork {
                work,
                limit: self.limit[k],
            });
        }
        self.used[k] = total;
        Ok(())
    }

    /// How much of `work` has been done.
    #[cfg(test)]
    pub(super) fn used(&self, work: RoadWork) -> u64 {
        self.used[work as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roads::{ContourParams, ContourRoads};
    use crate::terrain::Terrain;
    use glam::DVec2;
    use std::f64::consts::FRAC_PI_2;

    /// One request under `budget`: roads that are planar, or a refusal that
    /// names what to change; and never more work than the budget allows.
    fn request(p: &ContourParams, min: DVec2, max: DVec2, budget: &mut Budget) -> bool {
        let t = Terrain::default();
        let c = ContourRoads::new(p.clone()).expect("valid parameters");
        let done = match c.generate_within(&t, min, max, budget) {
            Ok(net) => {
                if let Err(e) = net.check_planar() {
                    panic!("{p:?} at {min}: not planar at {}", e.at);
                }
                true
            }
            Err(e @ RoadAreaError::TooMuchWork { work, .. }) => {
                assert!(e.to_string().contains(work.advice()), "{e}");
                false
            }
            Err(
                RoadAreaError::TooMuchGrowth { .. }
                | RoadAreaError::TooLarge { .. }
                | RoadAreaError::BadSide { .. }
                | RoadAreaError::TooFar { .. },
            ) => false,
        };
        for w in RoadWork::ALL {
            assert!(
                budget.used(w) <= budget.limit[w as usize],
                "{w:?} for {p:?}"
            );
        }
        done
    }

    #[test]
    fn hostile_parameters_give_planar_roads_or_a_typed_error() {
        // Every extreme of the parameters, on small areas, under a fiftieth
        // of a request's budget (so that the test stays quick).
        let small = RoadWork::ALL.map(|w| w.base() / 50);
        let (mut done, mut refused) = (0, 0);
        for density in [0.01, 100.0, 1000.0] {
            for step in [1.0, 10.0, 100.0] {
                for (max_points, max_rounds) in [(2, 300), (100, 30), (10_000, 300)] {
                    for turn in [0.0, 1.0, FRAC_PI_2] {
                        let p = ContourParams {
                            density,
                            step,
                            max_points,
                            max_rounds,
                            turn,
                            initial_margin: 0.0,
                            ..Default::default()
                        };
                        for at in [DVec2::new(1570.0, 2570.0), DVec2::new(-2300.0, 400.0)] {
                            let mut budget = Budget::with_limits(small);
                            if request(&p, at, at + 60.0, &mut budget) {
                                done += 1;
                            } else {
                                refused += 1;
                            }
                        }
                    }
                }
            }
        }
        // Both outcomes occur.
        assert!(
            done >= 10 && refused >= 10,
            "{done} done, {refused} refused"
        );
    }

    #[test]
    fn running_out_of_work_is_an_error_that_says_what_to_change() {
        let t = Terrain::default();
        let p = ContourParams {
            density: 1000.0,
            step: 100.0,
            max_points: 2,
            ..Default::default()
        };
        let c = ContourRoads::new(p).unwrap();
        // A tenth of the budget: the cell entries of 100 m steps run out.
        let mut budget = Budget::with_limits(RoadWork::ALL.map(|w| w.base() / 10));
        let err =
            (c.generate_within(&t, DVec2::ZERO, DVec2::splat(3000.0), &mut budget)).unwrap_err();
        assert_eq!(
            err,
            RoadAreaError::TooMuchWork {
                work: RoadWork::CellEntries,
                limit: RoadWork::CellEntries.base() / 10
            }
        );
        assert!(err.to_string().contains("lower step or density"), "{err}");
        // The limits grow with the area asked for, between the base and the cap.
        for w in RoadWork::ALL {
            assert_eq!(w.limit(0.0), w.base());
            assert_eq!(w.limit(1e8), w.base());
            assert_eq!(w.limit(2e8), (2 * w.base()).min(w.max()));
            assert_eq!(w.limit(f64::INFINITY), w.max());
            assert_eq!(w.limit(f64::NAN), w.max());
        }
    }

    /// The parameters a hostile probe found: 7.8 s and 1.5 GiB for a 10 km
    /// square before the budgets. With them, every request on a 10 km square
    /// ends within its budget (the `roads` bench times them: under half a
    /// second each, 300 MB). Too slow for a debug build.
    #[test]
    #[cfg_attr(debug_assertions, ignore)]
    fn hostile_parameters_on_a_10_km_square_stay_within_the_budget() {
        let (min, max) = (DVec2::ZERO, DVec2::splat(10_000.0));
        for (density, step, max_points, turn) in [
            (1000.0, 100.0, 2, 0.09),
            (1000.0, 1.0, 10_000, 0.09),
            (1000.0, 50.0, 10, FRAC_PI_2),
            (1000.0, 1.0, 2, 0.09),
            (300.0, 30.0, 30, 0.09),
        ] {
            let p = ContourParams {
                density,
                step,
                max_points,
                turn,
                ..Default::default()
            };
            request(&p, min, max, &mut Budget::for_area(1e8));
        }
    }
}
