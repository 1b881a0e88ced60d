//! Secondary (gameplay) parameters (thesis §6.4, app. B.3): named sliders
//! in `0..=1` that move several cost weights at once, each through a curve.
//!
//! Every default parameter sits at 0.5, where each of its links is neutral,
//! so the default [`GameplayParams`] leaves the weights as they are. As in
//! the thesis, more speed lowers the slope weight and raises smoothness.

use super::{CostWeights, PlanError};
use crate::terrain::ParamError;
use serde::{Deserialize, Serialize};

/// How a slider's value `v ∈ [0, 1]` maps to a curve value in `[0, 1]`
/// (thesis app. B.3: linear, quadratic, sinusoidal or custom).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum Curve {
    /// `v`.
    Linear,
    /// `v²`.
    Quadratic,
    /// `(1 − cos πv) / 2`.
    Sinusoidal,
    /// Nine control points at `v = 0, ⅛, …, 1`, linearly interpolated.
    Points([f64; 9]),
}

impl Curve {
    /// The curve's value at `v` (clamped to `0..=1`).
    pub fn at(&self, v: f64) -> f64 {
        let v = v.clamp(0.0, 1.0);
        match self {
            Curve::Linear => v,
            Curve::Quadratic => v * v,
            Curve::Sinusoidal => (1.0 - (std::f64::consts::PI * v).cos()) * 0.5,
            Curve::Points(p) => {
                let x = v * 8.0;
                let k = (x.floor() as usize).min(7);
                p[k] + (p[k + 1] - p[k]) * (x - k as f64)
            }
        }
    }
}

/// Which cost weight a link moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
pub enum Weight {
    /// [`CostWeights::distance`].
    Distance,
    /// [`CostWeights::slope`].
    Slope,
    /// [`CostWeights::smoothness`].
    Smoothness,
    /// [`CostWeights::dither`].
    Dither,
    /// [`CostWeights::uncertainty`] (kept in `0..=1`).
    Uncertainty,
}

/// One slider's effect on one weight: with `c` the curve's value, the
/// weight is multiplied by `lerp(at_zero, at_one, c)` (`add` false) or has
/// it added (`add` true; how a weight that is 0 by default, such as dither,
/// can be turned on). Results below 0 become 0.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct WeightLink {
    /// The weight moved.
    pub weight: Weight,
    /// The dependency's shape.
    pub curve: Curve,
    /// Factor (or addend) at curve value 0.
    pub at_zero: f64,
    /// Factor (or addend) at curve value 1.
    pub at_one: f64,
    /// Add instead of multiply.
    pub add: bool,
}

impl WeightLink {
    fn scale(weight: Weight, curve: Curve, at_zero: f64, at_one: f64) -> Self {
        Self {
            weight,
            curve,
            at_zero,
            at_one,
            add: false,
        }
    }
}

/// A named slider and its links.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(deny_unknown_fields)]
pub struct GameplayParam {
    /// Its name, e.g. "speed".
    pub name: String,
    /// Its value in `0..=1`.
    pub value: f64,
    /// The weights it moves.
    pub links: Vec<WeightLink>,
}

impl GameplayParam {
    /// Checks the value and the links (finite; the value in `0..=1`).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_range("value", self.value, 0.0, 1.0)?;
        for (i, l) in self.links.iter().enumerate() {
            l.validate().map_err(|e| e.at("links", i))?;
        }
        Ok(())
    }
}

impl WeightLink {
    /// Checks the numbers (finite, within ±1e6).
    pub fn validate(&self) -> Result<(), ParamError> {
        ParamError::check_range("at_zero", self.at_zero, -1e6, 1e6)?;
        ParamError::check_range("at_one", self.at_one, -1e6, 1e6)?;
        if let Curve::Points(c) = self.curve {
            for v in c {
                ParamError::check_range("curve", v, -1e6, 1e6)?;
            }
        }
        Ok(())
    }
}

/// The gameplay sliders; `Default` holds speed, fun, realism and difficulty.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bevy", derive(bevy::reflect::Reflect))]
#[serde(default, deny_unknown_fields)]
pub struct GameplayParams {
    /// The sliders, applied in order.
    pub params: Vec<GameplayParam>,
}

impl Default for GameplayParams {
    fn default() -> Self {
        use Curve::*;
        use Weight::*;
        let s = WeightLink::scale;
        let add = |weight, curve, at_zero, at_one| WeightLink {
            add: true,
            ..s(weight, curve, at_zero, at_one)
        };
        let param = |name: &str, links| GameplayParam {
            name: name.to_owned(),
            value: 0.5,
            links,
        };
        Self {
            params: vec![
                // §6.4: a fast road goes straight through the landscape.
                param(
                    "speed",
                    vec![
                        s(Slope, Linear, 1.8, 0.2),
                        s(Smoothness, Sinusoidal, 0.25, 1.75),
                    ],
                ),
                param(
                    "fun",
                    vec![
                        add(Dither, Linear, -1.0, 1.0),
                        add(Uncertainty, Linear, -0.2, 0.2),
                        s(Smoothness, Linear, 1.5, 0.5),
                    ],
                ),
                param(
                    "realism",
                    vec![
                        s(Slope, Linear, 0.5, 1.5),
                        s(Smoothness, Linear, 0.5, 1.5),
                        s(Dither, Linear, 1.8, 0.2),
                        s(Uncertainty, Linear, 1.8, 0.2),
                    ],
                ),
                param(
                    "difficulty",
                    vec![
                        s(Slope, Sinusoidal, 1.5, 0.5),
                        s(Smoothness, Linear, 1.6, 0.4),
                        add(Dither, Linear, -0.5, 0.5),
                    ],
                ),
            ],
        }
    }
}

impl GameplayParams {
    /// Sets a slider; an unknown name or a value outside `0..=1` is an error.
    pub fn set(&mut self, name: &str, value: f64) -> Result<(), PlanError> {
        ParamError::check_range("gameplay value", value, 0.0, 1.0)?;
        let p = self
            .params
            .iter_mut()
            .find(|p| p.name == name)
            .ok_or_else(|| PlanError::UnknownGameplay(name.to_owned()))?;
        p.value = value;
        Ok(())
    }

    /// A slider's value, if it exists.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.params.iter().find(|p| p.name == name).map(|p| p.value)
    }

    /// Adds (or replaces) a slider of your own.
    pub fn add(&mut self, param: GameplayParam) {
        self.params.retain(|p| p.name != param.name);
        self.params.push(param);
    }

    /// Checks values and links (finite; values in `0..=1`).
    pub fn validate(&self) -> Result<(), ParamError> {
        for (i, p) in self.params.iter().enumerate() {
            p.validate().map_err(|e| e.at("params", i))?;
        }
        Ok(())
    }

    /// The weights `base` becomes under the sliders' current values.
    pub fn weights(&self, base: &CostWeights) -> CostWeights {
        let mut w = *base;
        for p in &self.params {
            for l in &p.links {
                let c = l.curve.at(p.value);
                let k = l.at_zero + (l.at_one - l.at_zero) * c;
                let slot = match l.weight {
                    Weight::Distance => &mut w.distance,
                    Weight::Slope => &mut w.slope,
                    Weight::Smoothness => &mut w.smoothness,
                    Weight::Dither => &mut w.dither,
                    Weight::Uncertainty => &mut w.uncertainty,
                };
                let v = if l.add { *slot + k } else { *slot * k };
                *slot = if v.is_finite() { v.max(0.0) } else { *slot };
            }
        }
        w.uncertainty = w.uncertainty.min(1.0);
        w
    }
}
