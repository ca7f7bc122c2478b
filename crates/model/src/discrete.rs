//! Discrete LSE (Adams LSE SAMPLE_PERIOD, SAMPLE_OFFSET): the states of a
//! sampled linear system follow the difference equation
//! x_{k+1} = A x_k + B u(t_k) at the sample instants t_k = offset + k·period
//! (k ≥ 0) and are held in between; its outputs y = C x + D u are algebraic
//! as for a continuous LSE (with D = 0 they are held too).

use crate::validate::err;
use crate::{ElementRef, Model, ModelError};

/// The sampling of one LSE (by its element).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampling {
    pub element: ElementRef,
    /// SAMPLE_PERIOD (> 0).
    pub period: f64,
    /// SAMPLE_OFFSET: the first sample instant (default 0).
    pub offset: f64,
}

impl Sampling {
    /// The first sample instant strictly after `t` (a tolerance of 1e-12
    /// of the period counts an instant reached by rounding as passed).
    pub fn next_after(&self, t: f64) -> f64 {
        if t < self.offset {
            return self.offset;
        }
        let k = ((t - self.offset) / self.period + 1e-9).floor() + 1.0;
        self.offset + k * self.period
    }

    /// Whether `t` is a sample instant (to 1e-9 of the period).
    pub fn is_instant(&self, t: f64) -> bool {
        if t < self.offset - 1e-9 * self.period {
            return false;
        }
        let x = (t - self.offset) / self.period;
        (x - x.round()).abs() < 1e-9
    }
}

/// Every sampling names an LSE of the model, once, with a positive finite
/// period and a finite offset.
pub(crate) fn validate_samplings(model: &Model) -> Result<(), ModelError> {
    for (k, s) in model.samplings.iter().enumerate() {
        let e = s.element;
        if !model.linear_systems.iter().any(|l| l.element == e) {
            return Err(err(
                model,
                e,
                "SAMPLE_PERIOD of an element that is no LSE".into(),
            ));
        }
        if model.samplings[..k].iter().any(|x| x.element == e) {
            return Err(err(model, e, "sampled twice".into()));
        }
        if !(s.period.is_finite() && s.period > 0.0) {
            return Err(err(model, e, "SAMPLE_PERIOD must be positive".into()));
        }
        if !s.offset.is_finite() {
            return Err(err(model, e, "SAMPLE_OFFSET must be finite".into()));
        }
    }
    Ok(())
}
