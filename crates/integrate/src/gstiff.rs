//! GSTIFF: Gear's variable-order (1..KMAX), variable-step BDF with fixed
//! coefficients in Nordsieck form (DIFSUB lineage). Seeds: INTEGRATOR,
//! "Prediction", "Correction", "Integration failures", "Corrector failures".
//! CONSTANT_BDF is GSTIFF at the fixed step HMAX, the error estimates
//! choosing only the order.
//!
//! The history is the Nordsieck array (nordsieck.rs). A step predicts by
//! the Pascal matrix, corrects with the shared quasi-Newton iteration on
//! G(t, y_p + Δ, y'_p + Δ/(h l0)) = 0, and estimates the local error from the
//! predictor–corrector difference. The step loop is stepper.rs.

use crate::bdf::{relative_error, BdfCore};
use crate::control::*;
use crate::error::IntegrationError;
use crate::events::Statistics;
use crate::newton::Newton;
use crate::nordsieck::{factorial, Nordsieck};
use crate::params::BdfParams;
use crate::problem::{DaeProblem, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};

pub use crate::nordsieck::bdf_l;

/// The GSTIFF method: its problem, parameters and Nordsieck history.
pub struct GstiffMethod<'a, P: DaeProblem> {
    core: BdfCore<'a, P>,
    hist: Nordsieck,
    /// The correction l_0·e of this step and of the step before.
    acor: Vec<f64>,
    acor_prev: Vec<f64>,
    steps_at_order: usize,
}

/// GSTIFF (and CONSTANT_BDF) under the one step loop.
pub type Gstiff<'a, P> = Stepper<GstiffMethod<'a, P>>;

impl<'a, P: DaeProblem> Gstiff<'a, P> {
    /// Start at (t0, y0, y0') with consistent initial values.
    pub fn new(problem: &'a mut P, params: BdfParams, t0: f64, y0: &[f64], yp0: &[f64]) -> Self {
        let n = problem.size();
        let method = GstiffMethod {
            hist: Nordsieck::new(y0, yp0, params.hinit, params.kmax),
            acor: vec![0.0; n],
            acor_prev: vec![0.0; n],
            steps_at_order: 0,
            core: BdfCore::new(problem, params, y0, yp0),
        };
        let limits = method.core.limits();
        Stepper::with_method(method, limits, Newton::new(n), t0)
    }

    /// Replace the start-up history with exact derivatives
    /// `derivs[j] = y^(j)(t0)` for j = 0..=order and start at that order
    /// (used to measure the order of accuracy free of start-up error).
    pub fn set_exact_history(&mut self, derivs: &[Vec<f64>], order: usize) {
        let m = &mut self.method;
        let order = order.min(m.core.params.kmax);
        m.hist.set_exact(derivs, order);
    }

    pub fn problem(&mut self) -> &mut P {
        self.method.core.problem
    }
}

impl<P: DaeProblem> GstiffMethod<'_, P> {
    fn norm_masked(&self, tol: &Tolerance, v: impl Fn(usize) -> f64) -> f64 {
        self.core.norm(&self.hist.z[0], tol, v).0
    }

    /// Step ratios orders k, k−1 and k+1 could sustain (Gear/LSODE safety
    /// factors); k+1 only after k+1 steps at order k.
    fn sustainable_ratios(&self, err: f64, tol: &Tolerance) -> (f64, Option<f64>, Option<f64>) {
        let k = self.hist.order;
        let kf = k as f64;
        let l = &self.hist.l;
        let r_same = 1.0 / (GEAR_SAFETY_SAME * err.powf(1.0 / (kf + 1.0)) + GEAR_RATIO_GUARD);
        let r_down = (k > 1).then(|| {
            let f = l[k - 1][0] * factorial(k - 1);
            let ed = self.norm_masked(tol, |i| f * self.hist.z[k][i]);
            1.0 / (GEAR_SAFETY_DOWN * ed.powf(1.0 / kf) + GEAR_RATIO_GUARD)
        });
        let r_up = (k < self.core.params.kmax && self.steps_at_order > k).then(|| {
            let f = l[k + 1][0] / (kf + 2.0) * factorial(k) * l[k][k] / l[k][0];
            let eu = self.norm_masked(tol, |i| f * (self.acor[i] - self.acor_prev[i]));
            1.0 / (GEAR_SAFETY_UP * eu.powf(1.0 / (kf + 2.0)) + GEAR_RATIO_GUARD)
        });
        (r_same, r_down, r_up)
    }

    /// The order with the largest sustainable ratio among k−1, k, k+1.
    fn best_order(&self, err: f64, tol: &Tolerance) -> (f64, usize, Option<f64>) {
        let k = self.hist.order;
        let (r_same, r_down, r_up) = self.sustainable_ratios(err, tol);
        let mut best = (r_same, k);
        if let Some(r) = r_down.filter(|&r| r > best.0) {
            best = (r, k - 1);
        }
        if let Some(r) = r_up.filter(|&r| r > best.0) {
            best = (r, k + 1);
        }
        (best.0, best.1, r_up)
    }

    fn set_order(&mut self, new_k: usize) {
        let k = self.hist.order;
        if new_k > k {
            self.hist.raise_order(&self.acor);
        } else if new_k < k {
            self.hist.lower_order();
        }
    }

    /// CONSTANT_BDF: its step is always at the cap, so the order follows
    /// GSTIFF's rule at the HMAX cap: while the present order passes its
    /// error test with the safety margin (r_same ≥ 1), the order only rises
    /// (when k + 1 passes too); otherwise the order whose estimate is
    /// smallest among k−1, k, k+1 is taken. Choosing the smallest estimate
    /// every time dropped I3 to order 1 for a few steps wherever y'' crossed
    /// zero, a fixed fraction of the time: first-order global error
    /// (oscillator, KMAX 2: 2.4e-3, 1.1e-3, 5.4e-4 as h halved; now order 2).
    fn select_order_only(&mut self, err: f64, tol: &Tolerance) {
        let k = self.hist.order;
        let (r_same, _, r_up) = self.sustainable_ratios(err, tol);
        let new_k = if r_same >= 1.0 {
            if r_up.is_some_and(|r| r >= 1.0) {
                k + 1
            } else {
                k
            }
        } else {
            self.best_order(err, tol).1
        };
        self.set_order(new_k);
        if new_k != k {
            self.steps_at_order = 0;
        }
    }

    /// Step and order after an accepted step (Gear/LSODE); returns the next
    /// natural step. `step.h` is the step just taken (the history's step),
    /// `step.natural` the one the control wanted before output landing.
    fn select_step_and_order(&mut self, step: &Accepted, tol: &Tolerance, hmax: f64) -> f64 {
        let k = self.hist.order;
        let natural = step.natural.min(hmax);
        // Hold step and order for k + 1 steps after a change (IALTH).
        if self.steps_at_order < k + GEAR_HOLD_EXTRA_STEPS {
            return natural;
        }
        let err = step.estimate.ratio;
        let (r_same, _, r_up) = self.sustainable_ratios(err, tol);
        // Ratios are relative to the step taken; against the natural step:
        let to_natural = step.h / natural;
        // At the HMAX cap every order that can sustain HMAX takes the same
        // step, so prefer the highest such order: it is the most accurate
        // (seeds: HMAX keeps GSTIFF at constant step and high order).
        if natural >= hmax * (1.0 - AT_HMAX_ROUNDOFF) && r_same * to_natural >= 1.0 {
            if r_up.is_some_and(|r| r * to_natural >= 1.0) {
                self.set_order(k + 1);
                self.steps_at_order = 0;
            }
            return hmax;
        }
        let (r, new_k, _) = self.best_order(err, tol);
        let rn = r * to_natural;
        if new_k == k && rn < GEAR_DEADBAND && (rn >= 1.0 || !step.shortened) {
            // Not worth a change; look again in GEAR_RECHECK_STEPS steps.
            self.steps_at_order = (k + GEAR_HOLD_EXTRA_STEPS).saturating_sub(GEAR_RECHECK_STEPS);
            return natural;
        }
        self.set_order(new_k);
        self.steps_at_order = 0;
        // min/max rather than clamp: a NaN ratio falls to a bound instead
        // of poisoning the history.
        #[allow(clippy::manual_clamp)]
        let rn = rn.min(GEAR_MAX_INCREASE).max(GEAR_MIN_DECREASE);
        natural * rn
    }

    /// Rescale the history to step h; the last correction scales like
    /// h^(k+1), so the order-raise estimate (acor − acor_prev) stays
    /// meaningful across a step change.
    fn rescale_to(&mut self, h: f64) {
        if h != self.hist.h {
            let r = h / self.hist.h;
            self.hist.rescale(r);
            let f = r.powi(self.hist.order as i32 + 1);
            for v in self.acor_prev.iter_mut() {
                *v *= f;
            }
        }
    }
}

impl<P: DaeProblem> Method for GstiffMethod<'_, P> {
    fn order(&self) -> usize {
        self.hist.order
    }
    fn unknown_classes(&self) -> &[VarClass] {
        self.core.classes()
    }
    fn predict(&mut self, _t: f64, h: f64) {
        self.rescale_to(h);
        self.hist.predict();
    }
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        let c = self
            .hist
            .start_corrector(&mut self.core.y, &mut self.core.yp);
        self.core
            .correct(t + h, h, c, &self.hist.z[0], &mut self.acor, None, work)
    }
    fn estimate(&mut self, _h: f64, tol: &Tolerance) -> Estimate {
        let f = self.hist.error_constant();
        let (ratio, worst) = self.core.norm(&self.hist.z[0], tol, |i| f * self.acor[i]);
        Estimate { ratio, worst }
    }
    fn restore(&mut self) {
        self.hist.restore();
    }
    fn accept(
        &mut self,
        _t: f64,
        _h: f64,
        _stats: &mut Statistics,
    ) -> Result<(), IntegrationError> {
        self.hist.update(&self.acor);
        self.steps_at_order += 1;
        Ok(())
    }
    fn next_step(&mut self, step: &Accepted, tol: &Tolerance, limits: &Limits) -> f64 {
        let next = if limits.fixed.is_some() {
            self.hist.h
        } else if limits.constant_step {
            self.select_order_only(step.estimate.ratio, tol);
            self.hist.h
        } else {
            self.select_step_and_order(step, tol, limits.hmax)
        };
        std::mem::swap(&mut self.acor, &mut self.acor_prev);
        next
    }
    fn after_error_failure(&mut self, h: f64, est: &Estimate, failures: &Failures) -> f64 {
        let k = self.hist.order as f64;
        let mut r = (ERROR_FAILURE_SAFETY / est.ratio.powf(1.0 / (k + 1.0)))
            .clamp(ERROR_FAILURE_MIN_RATIO, ERROR_FAILURE_MAX_RATIO);
        if failures.error >= ERROR_FAILURES_BEFORE_RESTART {
            self.hist.order = 1;
            r = ERROR_FAILURE_MIN_RATIO;
        }
        self.steps_at_order = 0;
        // Rescale now by r itself (h is the history's step).
        let _ = h;
        self.hist.rescale(r);
        self.hist.h
    }
    fn after_corrector_failure(&mut self, cut: bool) {
        if cut {
            self.steps_at_order = 0;
        }
    }
    fn local_error_measure(&self, _h: f64, est: &Estimate) -> f64 {
        relative_error(
            self.hist.error_constant(),
            &self.acor,
            &self.hist.z[0],
            est.worst,
        )
    }
    fn enter_fixed_step(&mut self) {
        if self.hist.order != 1 {
            self.hist.truncate_to_order_one();
        }
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.core.y, &self.core.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.hist.z[0]
    }
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        self.hist.interpolate(t_last, t, y, yp);
        true
    }
    fn structure_holds(&mut self, t: f64) -> bool {
        self.core.structure_holds(t)
    }
    fn describe_error_variable(&self, i: usize) -> String {
        self.core.problem.describe_variable(i)
    }
}
