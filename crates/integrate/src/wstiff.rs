//! WSTIFF: variable-coefficient BDF, orders 1..KMAX (≤ 6), variable step.
//! Seeds: INTEGRATOR/WSTIFF ("the BDF coefficients … are a function of the
//! integrator step size … WSTIFF can change step size without any loss of
//! accuracy"), "Prediction" (Newton divided differences), "Correction",
//! integration and corrector failures.
//!
//! The formulas are the modified-divided-difference, fixed-leading-
//! coefficient BDF of DASSL (Brenan, Campbell & Petzold, *Numerical Solution
//! of Initial-Value Problems in DAEs*, SIAM 1996, §5.2–5.4); the history is
//! divdiff.rs and the step loop stepper.rs:
//!
//! * the corrector solves G(t, y^P + e, y'^P + c·e) = 0 with the fixed leading
//!   coefficient c = (1 + 1/2 + … + 1/k)/h, by the shared quasi-Newton
//!   iteration (newton.rs);
//! * the local error is ck·‖e‖ with the variable-step constant
//!   ck = max(|α_{k+1} + α_s − α⁰|, α_{k+1}), and the order is chosen from
//!   the estimates at orders k−2, k−1, k and k+1, the terms
//!   (j+1)·σ_{j+1}·‖φ_{j+2}(n+1)‖ ≈ h^{j+1}‖y^{(j+1)}‖.
//!
//! One deliberate difference from DASSL: DASSL estimates order k+1 only
//! after k+1 steps of *equal* size (its difference e − φ_{k+2} is unscaled).
//! With INTERPOLATE = OFF every output time ends a step, so the step rarely
//! stays equal and the order, once lowered, would never recover. The scaled
//! difference φ_{k+3}(n+1) = e − β_{k+2}·φ_{k+2}(n) is the (k+1)-th modified
//! divided difference on any grid, so here order k+1 is considered after
//! k+1 steps at order k whatever their sizes (measured on Prothero–Robinson
//! with 100 outputs: as many or fewer steps and equal or smaller errors in
//! 16 of 18 settings).
//!
//! Unlike GSTIFF, a step-size change costs no accuracy: the coefficients
//! follow the actual step history instead of interpolating the Nordsieck
//! array to an equally spaced grid (see the step-oscillation test).

use crate::bdf::{relative_error, BdfCore};
use crate::control::*;
use crate::divdiff::DividedDifferences;
use crate::error::IntegrationError;
use crate::events::Statistics;
use crate::newton::Newton;
use crate::params::BdfParams;
use crate::problem::{DaeProblem, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};

/// Error estimates of a converged step (max norm relative to the error
/// weights, over the error-controlled variables).
#[derive(Clone, Copy, Debug, Default)]
struct Estimates {
    /// ck·‖e‖: the local error of this step as a multiple of the tolerance.
    err: f64,
    /// The variable with the largest error.
    worst: usize,
    /// Order suggested by the estimates at k−1 and k−2 (k or k−1).
    knew: usize,
    /// Error estimate at order `knew` (sets the next step).
    est: f64,
    /// (k+1)·σ_{k+1}·‖e‖ and k·σ_k·‖φ*_{k+1} + e‖: terms at orders k and k−1.
    terk: f64,
    terkm1: f64,
    erkm1: f64,
}

/// The WSTIFF method: its problem, parameters and divided differences.
pub struct WstiffMethod<'a, P: DaeProblem> {
    pub(crate) core: BdfCore<'a, P>,
    pub(crate) hist: DividedDifferences,
    /// Order of the next attempt (k).
    pub(crate) order: usize,
    /// Step of the current attempt.
    h: f64,
    /// Start-up phase: raise the order and double the step after every step
    /// until the first failure, order decrease or KMAX (BCP §5.4).
    startup: bool,
    /// Accepted steps at the current order since it last changed.
    steps_at_order: usize,
    /// Accumulated correction e = y − y^P.
    pub(crate) e: Vec<f64>,
    /// Scratch for the error estimates.
    delta: Vec<f64>,
    /// The estimates of the last converged step.
    est: Estimates,
}

/// WSTIFF under the one step loop.
pub type Wstiff<'a, P> = Stepper<WstiffMethod<'a, P>>;

impl<'a, P: DaeProblem> Wstiff<'a, P> {
    /// Start at (t0, y0, y0') with consistent initial values, order 1,
    /// step HINIT.
    pub fn new(problem: &'a mut P, params: BdfParams, t0: f64, y0: &[f64], yp0: &[f64]) -> Self {
        let n = problem.size();
        let kmax = params.kmax.clamp(1, 6);
        let params = BdfParams {
            kmax,
            constant_step: false,
            ..params
        };
        let method = WstiffMethod {
            hist: DividedDifferences::new(y0, yp0, params.hinit, kmax),
            order: 1,
            h: params.hinit,
            startup: true,
            steps_at_order: 0,
            e: vec![0.0; n],
            delta: vec![0.0; n],
            est: Estimates::default(),
            core: BdfCore::new(problem, params, y0, yp0),
        };
        let limits = method.core.limits();
        Stepper::with_method(method, limits, Newton::new(n), t0)
    }

    /// Replace the start-up history with exact past solutions
    /// `past[j] = y(t0 − j·h)`, j = 0..=order+1, taken at the constant step
    /// `h`, and continue at that order and step (used to measure the order
    /// of accuracy free of start-up error). `past[0]` must be y0.
    pub fn set_exact_history(&mut self, past: &[Vec<f64>], h: f64, order: usize) {
        self.method.set_exact_history(past, h, order);
        self.h = h;
    }

    pub fn problem(&mut self) -> &mut P {
        self.method.core.problem
    }
}

impl<P: DaeProblem> WstiffMethod<'_, P> {
    /// See `Wstiff::set_exact_history` (HASTIFF shares it).
    pub(crate) fn set_exact_history(&mut self, past: &[Vec<f64>], h: f64, order: usize) {
        let order = order.clamp(1, self.core.params.kmax);
        assert!(past.len() >= order + 2, "need order + 2 past solutions");
        self.hist.set_exact(past, h, order);
        self.order = order;
        self.steps_at_order = order + 1;
        self.startup = false;
    }

    /// The fixed leading coefficient c = −α_s/h of the order-k corrector.
    pub(crate) fn leading_coefficient(&self, h: f64) -> f64 {
        -DividedDifferences::alpha_s(self.order) / h
    }

    /// Weighted max norm over the error-controlled variables (weights from
    /// y_n), with the variable where it is reached.
    fn error_norm(&self, tol: &Tolerance, v: impl Fn(usize) -> f64) -> (f64, usize) {
        self.core.norm(&self.hist.phi[0], tol, v)
    }

    /// Error estimates at orders k, k−1, k−2 of the converged step (BCP
    /// §5.4); the order is lowered when the lower-order terms are no larger.
    /// Uses `delta` as scratch.
    fn estimates(&mut self, tol: &Tolerance) -> Estimates {
        let k = self.order;
        let (phi, sigma) = (&self.hist.phi, &self.hist.sigma);
        let ck = self.hist.error_constant(k);
        let (enorm, worst) = self.error_norm(tol, |i| self.e[i]);
        let erk = sigma[k + 1] * enorm;
        let terk = (k + 1) as f64 * erk;
        let mut out = Estimates {
            err: ck * enorm,
            worst,
            knew: k,
            est: erk,
            terk,
            terkm1: f64::INFINITY,
            erkm1: f64::INFINITY,
        };
        if k > 1 {
            for i in 0..self.e.len() {
                self.delta[i] = phi[k][i] + self.e[i];
            }
            let erkm1 = sigma[k] * self.error_norm(tol, |i| self.delta[i]).0;
            let terkm1 = k as f64 * erkm1;
            out.erkm1 = erkm1;
            out.terkm1 = terkm1;
            let lower = if k > 2 {
                for i in 0..self.e.len() {
                    self.delta[i] += phi[k - 1][i];
                }
                let terkm2 =
                    (k - 1) as f64 * sigma[k - 1] * self.error_norm(tol, |i| self.delta[i]).0;
                terkm1.max(terkm2) <= terk
            } else {
                terkm1 <= DASSL_ORDER_ONE_MARGIN * terk
            };
            if lower {
                out.knew = k - 1;
                out.est = erkm1;
            }
        }
        out
    }

    /// Order and step for the next step after an accepted one (BCP §5.4):
    /// order k−1 when its estimate is no larger; order k+1 considered after
    /// k+1 steps at order k, from the (k+1)-th modified divided difference
    /// φ_{k+3}(n+1) = e − β_{k+2}·φ_{k+2}(n). DASSL forms that estimate only
    /// after k+1 steps of constant size (where β = 1); the scaled form holds
    /// on any grid, so the order can recover while output times force the
    /// step to change (INTERPOLATE = OFF). The step doubles when the error
    /// allows twice the step, shrinks when it does not allow the same step,
    /// and is otherwise kept.
    /// Order and next step after an accepted step (DASSL, BCP §5.4). The
    /// step's ratio is measured against the natural step: a step shortened
    /// to land on an output time does not shrink the next one.
    fn select_step_and_order(&mut self, tol: &Tolerance, natural: f64) {
        let taken = self.h;
        self.h = natural;
        let est = self.est;
        let k = self.order;
        let kmax = self.core.params.kmax;
        if est.knew + 1 == k || k == kmax {
            self.startup = false;
        }
        if self.startup {
            self.order = k + 1;
            self.steps_at_order = 0;
            self.h *= DASSL_STARTUP_GROWTH;
            return;
        }
        let mut new_k = k;
        let mut e = est.est;
        if est.knew + 1 == k {
            new_k = k - 1;
            e = est.erkm1;
        } else if k < kmax && self.steps_at_order > k {
            let b = self.hist.beta_kp2;
            let (dnorm, _) = self.error_norm(tol, |i| self.e[i] - b * self.hist.phi[k + 1][i]);
            let erkp1 = self.hist.sigma_kp2 * dnorm;
            let terkp1 = (k + 2) as f64 * erkp1;
            if k > 1 && est.terkm1 <= est.terk.min(terkp1) {
                new_k = k - 1;
                e = est.erkm1;
            } else if (k > 1 && terkp1 < est.terk)
                || (k == 1 && terkp1 < DASSL_ORDER_ONE_MARGIN * est.terk)
            {
                new_k = k + 1;
                e = erkp1;
            }
        }
        if new_k != k {
            self.steps_at_order = 0;
        }
        self.order = new_k;
        let r = dassl_ratio(e, new_k) * taken / natural;
        if r >= DASSL_DOUBLE_AT {
            self.h *= DASSL_DOUBLE_AT;
        } else if r <= 1.0 {
            self.h *= r.clamp(DASSL_MIN_DECREASE, DASSL_MAX_DECREASE);
        }
    }
}

/// DASSL's sustainable step ratio (2·est + 1e-4)^(−1/(k+1)).
fn dassl_ratio(est: f64, k: usize) -> f64 {
    (DASSL_EST_FACTOR * est + DASSL_EST_GUARD).powf(-1.0 / (k as f64 + 1.0))
}

impl<P: DaeProblem> Method for WstiffMethod<'_, P> {
    fn order(&self) -> usize {
        self.order
    }
    fn unknown_classes(&self) -> &[VarClass] {
        self.core.classes()
    }
    fn predict(&mut self, _t: f64, h: f64) {
        self.h = h;
        self.hist.begin_step(h, self.order);
        self.hist
            .predict(self.order, &mut self.core.y, &mut self.core.yp);
    }
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        let c = self.leading_coefficient(h);
        self.core
            .correct(t + h, h, c, &self.hist.phi[0], &mut self.e, None, work)
    }
    fn estimate(&mut self, _h: f64, tol: &Tolerance) -> Estimate {
        self.est = self.estimates(tol);
        Estimate {
            ratio: self.est.err,
            worst: self.est.worst,
        }
    }
    fn restore(&mut self) {
        self.hist.restore(self.h, self.order);
    }
    fn accept(&mut self, _t: f64, h: f64, _stats: &mut Statistics) -> Result<(), IntegrationError> {
        self.hist.order_old = self.order;
        self.hist.h_old = h;
        self.steps_at_order += 1;
        Ok(())
    }
    fn next_step(&mut self, step: &Accepted, tol: &Tolerance, limits: &Limits) -> f64 {
        let k = self.order;
        if limits.fixed.is_none() {
            self.select_step_and_order(tol, step.natural.min(limits.hmax));
        }
        self.hist.update(k, self.core.params.kmax, &self.e);
        self.h
    }
    fn after_error_failure(&mut self, h: f64, _est: &Estimate, failures: &Failures) -> f64 {
        let est = self.est;
        self.startup = false;
        // First failure: the order the estimates suggest and the step its
        // error allows; second: a quarter step; third and later: order 1
        // and a quarter step (BCP §5.4).
        let r = match failures.error {
            1 => {
                self.order = est.knew;
                (ERROR_FAILURE_SAFETY * dassl_ratio(est.est, est.knew))
                    .clamp(DASSL_ERROR_FAILURE_MIN_RATIO, ERROR_FAILURE_MAX_RATIO)
            }
            f if f < ERROR_FAILURES_BEFORE_RESTART => {
                self.order = est.knew;
                DASSL_ERROR_FAILURE_MIN_RATIO
            }
            _ => {
                self.order = 1;
                DASSL_ERROR_FAILURE_MIN_RATIO
            }
        };
        if self.order != self.hist.order_old {
            self.steps_at_order = 0;
        }
        h * r
    }
    fn after_corrector_failure(&mut self, _cut: bool) {
        self.startup = false;
    }
    fn local_error_measure(&self, _h: f64, est: &Estimate) -> f64 {
        let c = self.hist.error_constant(self.order);
        relative_error(c, &self.e, &self.hist.phi[0], est.worst)
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.core.y, &self.core.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.hist.phi[0]
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
