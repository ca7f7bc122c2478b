//! VSTIFF and MSTIFF under the one step loop (stepper.rs): [`Stiff`] is
//! the [`Method`] of either history ([`StiffMethod`]: VSTIFF's Nordsieck
//! array in vstiff.rs, MSTIFF's MEBDF stages in mstiff.rs) with VODE's
//! step and order rules (Brown, Byrne & Hindmarsh 1989, DVSTEP; the
//! constants below) and the corrector of stiff_core.rs. The loop owns
//! HMIN/HMAX, output landing and stepping past (INTERPOLATE), the
//! failure counts and caps, and the statistics, as for every method.
//!
//! VODE's corrector-failure cut ETACF = 0.25 is the loop's
//! CORRECTOR_FAILURE_STEP_RATIO (0.25), and its "retry with a fresh J
//! before cutting" is the loop's rule too (`Newton::jac_fresh`, set from
//! the method's J). VODE stops after MXNEF = 7 error-test failures or
//! MXNCF = 10 corrector failures in a row; the loop's caps (control.rs)
//! apply instead, as for every method.

use super::stiff_core::StiffCore;
use crate::error::IntegrationError;
use crate::events::Statistics;
use crate::newton::Newton;
use crate::params::OdeParams;
use crate::problem::{AfterStep, OdeProblem, ProblemError, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};

// ---- Step and order control: VODE's constants (BBH; DVSTEP) ----

/// Largest step ratio until the first step increase (VODE's ETAMX1): the
/// first step is bounded by `h0_max` (1e-8 by default) and must be able to
/// grow to the problem's scale at once.
pub(crate) const ETAMX1: f64 = 1e4;
/// Largest step ratio after that (VODE's ETAMX2 = ETAMX3 = 10).
pub(crate) const ETAMX2: f64 = 10.0;
/// Largest step ratio after an error-test failure (VODE's ETAMXF).
pub(crate) const ETAMXF: f64 = 0.2;
/// Smallest step ratio after an error-test failure (VODE's ETAMIN).
pub(crate) const ETAMIN: f64 = 0.1;
/// A step increase below this ratio is not taken (VODE's THRESH).
pub(crate) const THRESH: f64 = 1.5;
/// Keeps the step ratio finite at a zero error estimate (VODE's ADDON).
pub(crate) const ADDON: f64 = 1e-6;
/// Safety biases on the error estimates of orders q−1, q and q+1 (VODE's
/// BIAS1, BIAS2, BIAS3).
pub(crate) const BIAS_DOWN: f64 = 6.0;
pub(crate) const BIAS_SAME: f64 = 6.0;
pub(crate) const BIAS_UP: f64 = 10.0;
/// From this error-test failure in a row on, restart at order 1 with the
/// step cut by ETAMIN (VODE: KFLAG ≤ −3).
pub(crate) const ERROR_FAILURES_BEFORE_ORDER_ONE: usize = 3;
/// Steps held at the present step and order when the best ratio is below
/// THRESH, before the next look (ours; VODE waits NQWAIT steps).
pub(crate) const RECHECK_STEPS: usize = 3;

/// The step ratio an error estimate `err` (tolerance units) of a method of
/// order p allows with safety bias `bias`: 1/((bias·err)^(1/(p+1)) + ADDON).
fn step_ratio(err: f64, p: usize, bias: f64) -> f64 {
    1.0 / ((bias * err).powf(1.0 / (p as f64 + 1.0)) + ADDON)
}

/// Step ratio after an error-test failure of a method of order p, within
/// [max(ETAMIN, hmin/h), ETAMXF].
fn failure_ratio(err: f64, p: usize, h: f64, hmin: f64) -> f64 {
    step_ratio(err, p, BIAS_SAME)
        .min(ETAMXF)
        .max(ETAMIN.max(hmin / h))
}

/// One stiff ODE method's history, stages and error estimates. [`Stiff`]
/// puts it under the one step loop with VODE's step and order rules; the
/// loop owns HMIN/HMAX, output landing and the failure policy.
pub(crate) trait StiffMethod<P: OdeProblem>: Sized {
    /// The method's name in messages ("VSTIFF").
    const NAME: &'static str;
    /// Highest order, and why (a larger `max_order` is rejected with it).
    const MAX_ORDER: usize;
    const MAX_ORDER_REASON: &'static str;
    /// The history at (t0, y0) of a validated core.
    fn build(core: &StiffCore<P>) -> Self;
    /// Order of the next attempt.
    fn order(&self) -> usize;
    /// Fit the history to the step h of the next attempt.
    fn set_step(&mut self, core: &mut StiffCore<P>, h: f64);
    /// Attempt the step h ending at t_new: Some(local error in tolerance
    /// units) once the corrector converged, None after a corrector failure
    /// (event emitted).
    fn attempt(
        &mut self,
        core: &mut StiffCore<P>,
        h: f64,
        t_new: f64,
    ) -> Result<Option<f64>, IntegrationError>;
    /// The state with the largest contribution to the failed error test.
    fn worst(&self, core: &StiffCore<P>) -> usize;
    /// Error estimates of orders q−1 and (when `up`) q+1 for the attempt
    /// just made.
    fn neighbours(&self, core: &StiffCore<P>, up: bool) -> (Option<f64>, Option<f64>);
    /// Undo the attempt's changes to the history.
    fn restore(&mut self);
    /// Make the attempt the accepted state: history, core.y and core.yp.
    fn accept(&mut self, core: &mut StiffCore<P>, h: f64);
    /// Move to order q ± 1 after an accepted step or a failure.
    fn set_order(&mut self, core: &StiffCore<P>, q: usize);
    /// Start again at order 1 from core.y, core.yp with the step h.
    fn restart(&mut self, core: &StiffCore<P>, h: f64);
    /// The solution at t within the last step (ending at `t_last`) from
    /// the method's dense output.
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool;
}

/// A time within this relative rounding of the last step's start is inside
/// it (ours).
const INTERPOLATION_ROUNDOFF: f64 = 1e-12;

/// A stiff method under the one step loop: its history `M`, the shared
/// corrector and VODE's step and order rules.
// `StiffMethod` is crate-internal as stepper.rs's `Method` is.
#[allow(private_bounds)]
pub struct Stiff<P: OdeProblem, M: StiffMethod<P>> {
    pub(crate) core: StiffCore<P>,
    pub(crate) method: M,
    pub(crate) qmax: usize,
    /// The step the method wants next (before HMAX and output landing).
    pub(crate) h: f64,
    /// The first step was chosen (`Method::begin`) or set exactly.
    pub(crate) started: bool,
    /// Accepted steps before the next order/step change (NQWAIT).
    pub(crate) qwait: usize,
    /// Largest ratio for the next change (ETAMX1, ETAMX2, or 1 after a
    /// failure).
    etamax: f64,
    /// The last accepted step, for interpolation (0: none since a restart).
    h_last: f64,
    /// Step of the present attempt.
    h_attempt: f64,
    /// Error estimates of the attempt at orders q, q−1 and q+1.
    err: f64,
    down: Option<f64>,
    up: Option<f64>,
    /// The problem rewrote y after the last accepted step (a restart at
    /// order 1 with the step `h`).
    restarted: bool,
}

/// VSTIFF or MSTIFF under the one step loop.
pub type StiffStepper<P, M> = Stepper<Stiff<P, M>>;

#[allow(private_bounds)]
impl<P: OdeProblem, M: StiffMethod<P>> Stepper<Stiff<P, M>> {
    /// Start at (t0, y0) with validated settings: the one construction
    /// call of both methods (`Vstiff::new`, `Mstiff::new`). A `max_order`
    /// above the method's highest is rejected naming it.
    pub fn new(
        problem: P,
        t0: f64,
        y0: &[f64],
        params: &OdeParams,
    ) -> Result<Self, IntegrationError> {
        let core = StiffCore::new(
            problem,
            t0,
            y0,
            params,
            M::NAME,
            M::MAX_ORDER,
            M::MAX_ORDER_REASON,
        )?;
        let method = M::build(&core);
        let qmax = core.params.max_order;
        let h = core.params.h0_max.min(core.params.hmax);
        let limits = Limits {
            error: core.params.error,
            hmin: core.params.hmin,
            hmax: core.params.hmax,
            hinit: h,
            adaptivity: 0.0,
            fixed: None,
            constant_step: false,
        };
        let stiff = Stiff {
            core,
            method,
            qmax,
            h,
            started: false,
            qwait: 2,
            etamax: ETAMX1,
            h_last: 0.0,
            h_attempt: h,
            err: 0.0,
            down: None,
            up: None,
            restarted: false,
        };
        Ok(Stepper::with_method(stiff, limits, Newton::new(0), t0))
    }

    pub fn problem(&mut self) -> &mut P {
        &mut self.method.core.problem
    }
}

#[allow(private_bounds)]
impl<P: OdeProblem, M: StiffMethod<P>> Stiff<P, M> {
    /// After an accepted step: the next step and order from the estimates
    /// of orders q−1, q, q+1 (VODE's biases and THRESH); the largest ratio
    /// wins, ties going to the present order. Between 1 and THRESH nothing
    /// changes; a ratio below 1 is taken at once (ours: VODE keeps h until
    /// an error-test failure).
    fn select(&mut self, h: f64, landed: bool, err: f64, down: Option<f64>, up: Option<f64>) {
        // An error failure caps the next change at 1 (VODE's ETAMAX = 1
        // after KFLAG < 0); the cap lasts for this one look only.
        let etamax = self.etamax;
        if etamax < ETAMX2 {
            self.etamax = ETAMX2;
        }
        let q = self.method.order();
        // A landing step was shorter than the method's own: keep that one.
        let natural = if landed { self.h.max(h) } else { h };
        if self.qwait > 1 {
            self.qwait -= 1;
            self.h = natural;
            return;
        }
        // Each order's ratio, limited by ETAMAX but not yet by HMAX (VODE
        // compares before its HMXI clamp).
        let limit = |e: f64| e.min(etamax);
        let candidates = [
            down.map(|d| (q - 1, limit(step_ratio(d, q - 1, BIAS_DOWN)))),
            Some((q, limit(step_ratio(err, q, BIAS_SAME)))),
            up.map(|u| (q + 1, limit(step_ratio(u, q + 1, BIAS_UP)))),
        ];
        let hmax_ratio = self.core.params.hmax / h;
        // At the HMAX cap every order that reaches it takes the same step,
        // so the largest step no longer tells them apart: VODE's
        // comparison would keep order 1 when the HMAX-capped ratios tie,
        // or fall to it on the uncapped ones (lower orders' ratios grow
        // fastest as the error shrinks). There the highest order whose
        // biased error estimate at HMAX meets the tolerance is taken: the
        // same cost per step for a higher-order local error (issue 15).
        let at_cap = candidates
            .iter()
            .flatten()
            .filter(|&&(_, eta)| eta >= hmax_ratio)
            .map(|&(order, _)| order)
            .max();
        if let Some(q_cap) = at_cap.filter(|&q_cap| q_cap != q) {
            // An order change at the cap is taken even when the step
            // stays (ratio 1 < THRESH): the accuracy is the gain.
            self.method.set_order(&self.core, q_cap);
            self.h = self.core.params.hmax;
            self.etamax = ETAMX2;
            self.qwait = q_cap + 1;
            return;
        }
        // Otherwise VODE's comparison on the HMAX-capped ratios: order q,
        // then q−1 and q+1 only when strictly larger.
        let mut best = (q, candidates[1].map_or(0.0, |c| c.1).min(hmax_ratio));
        for (order, eta) in [candidates[0], candidates[2]].into_iter().flatten() {
            let eta = eta.min(hmax_ratio);
            if eta > best.1 {
                best = (order, eta);
            }
        }
        let (q_new, eta) = best;
        if (1.0..THRESH).contains(&eta) {
            self.qwait = RECHECK_STEPS;
            self.h = natural;
            return;
        }
        if q_new != q {
            self.method.set_order(&self.core, q_new);
        }
        self.h = if landed && eta >= 1.0 {
            natural.max(h * eta)
        } else {
            h * eta
        };
        if eta > 1.0 {
            self.etamax = ETAMX2;
        }
        self.qwait = q_new + 1;
    }

    /// After an error-test failure (history restored): VODE's cut, with
    /// order q−1 when it allows a larger step, and a restart at order 1
    /// from the ERROR_FAILURES_BEFORE_ORDER_ONE-th failure on.
    fn cut_after_error_failure(&mut self, h: f64, err: f64, down: Option<f64>, failures: usize) {
        let q = self.method.order();
        let hmin = self.core.params.hmin;
        self.etamax = 1.0;
        if failures >= ERROR_FAILURES_BEFORE_ORDER_ONE {
            self.h = h * ETAMIN.max(hmin / h);
            self.method.restart(&self.core, self.h);
            self.qwait = 2;
            return;
        }
        let mut eta = failure_ratio(err, q, h, hmin);
        if let Some(d) = down {
            let eta_down = failure_ratio(d, q - 1, h, hmin);
            if eta_down > eta {
                self.method.set_order(&self.core, q - 1);
                eta = eta_down;
            }
        }
        self.h = h * eta;
        self.qwait = self.method.order() + 1;
    }
}

#[allow(private_bounds)]
impl<P: OdeProblem, M: StiffMethod<P>> Method for Stiff<P, M> {
    fn order(&self) -> usize {
        self.method.order()
    }
    fn unknown_classes(&self) -> &[VarClass] {
        &self.core.classes
    }
    /// The first step: `h0_max`, HMAX, the first output interval and the
    /// initial rate bound it (`StiffCore::initial_step`); the history
    /// restarts at order 1 with it. A history set exactly keeps its step.
    fn begin(&mut self, t: f64, tout: f64) -> Option<f64> {
        if !self.started {
            let h0 = self.core.initial_step(tout - t);
            if h0 > 0.0 {
                self.h = h0;
                self.method.restart(&self.core, h0);
            }
            self.started = true;
        }
        Some(self.h)
    }
    fn predict(&mut self, _t: f64, h: f64) {
        self.h_attempt = h;
        self.method.set_step(&mut self.core, h);
    }
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        let attempt = self.method.attempt(&mut self.core, h, t + h);
        self.core.flush(work.stats, Some(work.events));
        match attempt? {
            Some(err) => {
                self.err = err;
                Ok(true)
            }
            None => {
                // The loop cuts h only after a failure with a J evaluated
                // for this attempt, or when f could not be evaluated; with
                // a stale J it retries at h.
                let unevaluated = std::mem::take(&mut self.core.evaluation_failed);
                work.newton.jac_fresh = self.core.jac_current || unevaluated;
                Ok(false)
            }
        }
    }
    /// The error of order q, and those of q∓1 for the choice that
    /// follows (before `accept` moves the history on).
    fn estimate(&mut self, _h: f64, _tol: &Tolerance) -> Estimate {
        let q = self.method.order();
        let up = self.err <= 1.0 && self.qwait <= 1 && q < self.qmax;
        (self.down, self.up) = self.method.neighbours(&self.core, up);
        Estimate {
            ratio: self.err,
            worst: self.method.worst(&self.core),
        }
    }
    fn restore(&mut self) {
        self.method.restore();
    }
    fn accept(
        &mut self,
        t_new: f64,
        h: f64,
        stats: &mut Statistics,
    ) -> Result<(), IntegrationError> {
        self.method.accept(&mut self.core, h);
        self.core.accepted(t_new);
        self.h_last = h;
        let restarted = self.core.after_step();
        self.core.flush(stats, None);
        self.restarted = restarted?;
        if self.restarted {
            self.method.restart(&self.core, self.h);
            self.qwait = 2;
            // The last step is in the coordinates before the rewrite.
            self.h_last = 0.0;
        }
        Ok(())
    }
    fn next_step(&mut self, step: &Accepted, _tol: &Tolerance, _limits: &Limits) -> f64 {
        if !std::mem::take(&mut self.restarted) {
            let (err, down, up) = (self.err, self.down, self.up);
            // VODE keeps its own step after one shortened to land on an
            // output time; the equal steps before it are its steps.
            self.select(step.h, step.landed, err, down, up);
        }
        self.h
    }
    fn after_error_failure(&mut self, h: f64, est: &Estimate, failures: &Failures) -> f64 {
        let down = self.down;
        self.cut_after_error_failure(h, est.ratio, down, failures.error);
        self.h
    }
    /// `cut`: the loop cut the step by CORRECTOR_FAILURE_STEP_RATIO
    /// (VODE's ETACF); the change is capped at 1 for the next look.
    fn after_corrector_failure(&mut self, cut: bool) {
        self.core.after_corrector_failure(cut);
        if cut {
            self.h = self.h_attempt * crate::control::CORRECTOR_FAILURE_STEP_RATIO;
            self.etamax = 1.0;
        }
    }
    fn own_factorizations(&self) -> u64 {
        self.core.stats.factorizations
    }
    fn local_error_measure(&self, _h: f64, est: &Estimate) -> f64 {
        est.ratio * self.core.params.error
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.core.y, &self.core.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.core.y
    }
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let inside = self.h_last > 0.0
            && t <= t_last
            && t >= t_last - self.h_last * (1.0 + INTERPOLATION_ROUNDOFF);
        inside && self.method.interpolate(t_last, t, y, yp)
    }
    fn structure_holds(&mut self, _t: f64) -> bool {
        true
    }
    fn describe_error_variable(&self, i: usize) -> String {
        self.core.problem.describe_variable(i)
    }
}

/// A borrowed problem is a problem: `Vstiff::new(&mut p, …)` leaves `p`
/// with the caller, as `Gstiff::new(&mut p, …)` does.
impl<T: OdeProblem + ?Sized> OdeProblem for &mut T {
    fn size(&self) -> usize {
        (**self).size()
    }
    fn classes(&self) -> &[VarClass] {
        (**self).classes()
    }
    fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError> {
        (**self).rhs(t, y, out)
    }
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        f: &[f64],
        jac: &mut [f64],
    ) -> Result<bool, ProblemError> {
        (**self).jacobian(t, y, f, jac)
    }
    fn after_step(&mut self, t: f64, y: &mut [f64]) -> Result<AfterStep, ProblemError> {
        (**self).after_step(t, y)
    }
    fn describe_variable(&self, i: usize) -> String {
        (**self).describe_variable(i)
    }
}
