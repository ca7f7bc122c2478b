//! HASTIFF: the Hiller–Anantharaman stiff integrator (seeds:
//! adams-integrator-statement "HASTIFF"): variable order 1..KMAX (≤ 6),
//! variable step, a BDF that "takes step sizes into account when
//! calculating the coefficients" and that solves for y′, y being
//! discretized as a function of y′.
//!
//! The step and order selection, the history (modified divided
//! differences), the error estimate and the failure policy are WSTIFF's
//! (wstiff.rs, DASSL's fixed-leading-coefficient form, BCP §5.2–5.4): the
//! method wraps a `WstiffMethod` and replaces only the corrector. Its
//! iterate is y′; y follows it through the BDF relation
//!
//!   y = y^P + hβ₀·(y′ − y′^P),   hβ₀ = 1/c = h/(1 + 1/2 + … + 1/k),
//!
//! so the Newton matrix is ∂G/∂y′ + hβ₀·∂G/∂y (bdf.rs, `BdfSystem` with
//! `on_derivative`: the LU holds c times that matrix, the ∂G/∂y + c·∂G/∂y′
//! every BDF problem assembles; a uniform factor changes neither the
//! pivots chosen nor the solution). The seed's other two
//! characteristics belong to the formulation the problem implements (SI1
//! or SI2 in the solver): multipliers in differential form and the
//! constraints scaled by 1/(hβ₀) relative to the dynamic rows — SI2/SI1
//! scale the dynamic rows by hβ₀ instead, the same matrix up to a uniform
//! factor.
//!
//! What solving for y′ changes in the iteration: with y′ as the unknown
//! the matrix's dominant block ∂G/∂y′ does not depend on h, so a Jacobian
//! formed at another step (PATTERN with F entries) is used as it is,
//! without the 2/(1 + c/c_J) rescaling the y-iterating BDF family needs.

use crate::error::IntegrationError;
use crate::events::Statistics;
use crate::newton::Newton;
use crate::params::BdfParams;
use crate::problem::{DaeProblem, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};
use crate::wstiff::{Wstiff, WstiffMethod};

/// The HASTIFF method: WSTIFF's history and control with a corrector on y′.
pub struct HastiffMethod<'a, P: DaeProblem> {
    w: WstiffMethod<'a, P>,
    /// The prediction (y^P, y′^P) of the current attempt.
    y_pred: Vec<f64>,
    yp_pred: Vec<f64>,
}

/// HASTIFF under the one step loop.
pub type Hastiff<'a, P> = Stepper<HastiffMethod<'a, P>>;

impl<'a, P: DaeProblem> Hastiff<'a, P> {
    /// Start at (t0, y0, y0′) with consistent initial values, order 1, step
    /// HINIT. `params.fixed` and `params.constant_step` must be unset (the
    /// settings reject FIXIT for HASTIFF; it has no constant-step variant).
    pub fn new(problem: &'a mut P, params: BdfParams, t0: f64, y0: &[f64], yp0: &[f64]) -> Self {
        let n = problem.size();
        let w = Wstiff::new(problem, params, t0, y0, yp0);
        let method = HastiffMethod {
            w: w.method,
            y_pred: vec![0.0; n],
            yp_pred: vec![0.0; n],
        };
        Stepper::with_method(method, w.limits, Newton::new(n), t0)
    }

    /// As `Wstiff::set_exact_history`: exact past solutions
    /// `past[j] = y(t0 − j·h)`, j = 0..=order+1, at the constant step h
    /// (to measure the order of accuracy free of start-up error).
    pub fn set_exact_history(&mut self, past: &[Vec<f64>], h: f64, order: usize) {
        self.method.w.set_exact_history(past, h, order);
        self.h = h;
    }

    pub fn problem(&mut self) -> &mut P {
        self.method.w.core.problem
    }
}

impl<P: DaeProblem> Method for HastiffMethod<'_, P> {
    fn order(&self) -> usize {
        self.w.order()
    }
    fn unknown_classes(&self) -> &[VarClass] {
        self.w.unknown_classes()
    }
    fn predict(&mut self, t: f64, h: f64) {
        self.w.predict(t, h);
        self.y_pred.copy_from_slice(&self.w.core.y);
        self.yp_pred.copy_from_slice(&self.w.core.yp);
    }
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        let w = &mut self.w;
        let c = w.leading_coefficient(h);
        let prediction = Some((&self.y_pred[..], &self.yp_pred[..]));
        w.core
            .correct(t + h, h, c, &w.hist.phi[0], &mut w.e, prediction, work)
    }
    fn estimate(&mut self, h: f64, tol: &Tolerance) -> Estimate {
        self.w.estimate(h, tol)
    }
    fn restore(&mut self) {
        self.w.restore()
    }
    fn accept(&mut self, t: f64, h: f64, stats: &mut Statistics) -> Result<(), IntegrationError> {
        self.w.accept(t, h, stats)
    }
    fn next_step(&mut self, step: &Accepted, tol: &Tolerance, limits: &Limits) -> f64 {
        self.w.next_step(step, tol, limits)
    }
    fn after_error_failure(&mut self, h: f64, est: &Estimate, failures: &Failures) -> f64 {
        self.w.after_error_failure(h, est, failures)
    }
    fn after_corrector_failure(&mut self, cut: bool) {
        self.w.after_corrector_failure(cut)
    }
    fn local_error_measure(&self, h: f64, est: &Estimate) -> f64 {
        self.w.local_error_measure(h, est)
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        self.w.solution()
    }
    fn accepted(&self) -> &[f64] {
        self.w.accepted()
    }
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        self.w.interpolate(t_last, t, y, yp)
    }
    fn structure_holds(&mut self, t: f64) -> bool {
        self.w.structure_holds(t)
    }
    fn describe_error_variable(&self, i: usize) -> String {
        self.w.describe_error_variable(i)
    }
}
