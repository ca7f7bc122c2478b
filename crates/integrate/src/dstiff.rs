//! DSTIFF: MotionSolve's default DAE integrator, "based on the publicly
//! available integrator DASPK" (seeds: motionsolve-param-transient,
//! "Numerical Solution" and "DAE Form"). A fixed-leading-coefficient,
//! divided-difference BDF of order ≤ `max_order` (≤ 5) on G(t, y, y') = 0,
//! whatever formulation (I3, SI1) built the problem: the formulation only
//! chooses the variable classes the error test and the corrector see.
//!
//! What DSTIFF shares with WSTIFF, and takes from it unchanged, is DASSL's
//! engine (Brenan, Campbell & Petzold, SIAM 1996, §5.2–5.4): the modified
//! divided differences (divdiff.rs), the corrector
//! G(t, y^P + e, y'^P + c·e) = 0 with c = −α_s/h, the error estimate
//! ck·‖e‖ and the order/step selection from the terms at k−2 … k+1
//! (wstiff.rs). What makes it DSTIFF is what DASPK and the seeds add:
//!
//! * the error norm is DDWNRM, the weighted RMS norm with
//!   w_i = RTOL_i·|y_i| + ATOL_i and RTOL = ATOL = integr_tol·scale_i,
//!   scale 1 for displacements and user states, `vel_tol_factor` for
//!   velocities and `dae_alg_tol_factor` for multipliers (seeds, Table 1);
//!   the same weights measure the corrector's convergence (max norm, every
//!   class converging, multipliers apart so the shared round-off stall
//!   rule applies to index-3 λ at small steps);
//! * the first step is bounded by `h0_max` (default 1e-8) and, as DASSL's
//!   initial step, by 0.5/‖y'_0‖ so the first step changes y by at most
//!   half a tolerance unit;
//! * the Jacobian follows `dae_jacob_eval` / `dae_jacob_init`
//!   (`JacobianRule`, exactly the seed's MOD(M, eval) = 0 or M < init),
//!   until `dae_eval_expiry` accepted steps have passed, then the adaptive
//!   default;
//! * divergence is checked only from iteration `dae_corrector_minit` on.
//!
//! `dae_constr_tol` is enforced by the problem's residual test
//! (`DaeProblem::residual_acceptable`), which the solver sets from it.

use crate::bdf::weighted_rms_norm;
use crate::error::IntegrationError;
use crate::events::Statistics;
use crate::newton::{JacobianRule, Newton};
use crate::params::BdfParams;
use crate::problem::{class_mask, DaeProblem, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};
use crate::wstiff::WstiffMethod;

/// The highest order DSTIFF takes (seeds: "The default maximum order for
/// DSTIFF is 5"; DASPK's MAXORD ≤ 5).
pub const DSTIFF_MAX_ORDER: usize = 5;

/// DASSL's initial-step rule: the first step changes y by at most this
/// many weighted-norm units (h0·‖y'_0‖ ≤ 0.5; BCP §5.4, DDASSL's "HO").
pub const DSTIFF_FIRST_STEP_CHANGE: f64 = 0.5;

/// Validated DSTIFF settings (the DAE form of Param_Transient).
#[derive(Clone, Debug, PartialEq)]
pub struct DstiffParams {
    /// integr_tol (`error`), h_max, h_min, h0_max (`hinit`), max_order
    /// (`kmax`), dae_corrector_maxit (`maxit`), the error-controlled and
    /// converging classes and dae_interpolation (`interpolate`).
    /// `pattern`, `adaptivity`, `fixed` and `constant_step` are unused.
    pub bdf: BdfParams,
    /// Velocity tolerance factor (scale of velocity weights).
    pub vel_tol_factor: f64,
    /// Multiplier tolerance factor (scale of multiplier weights).
    pub alg_tol_factor: f64,
    /// dae_jacob_eval / dae_jacob_init.
    pub jacobian: JacobianRule,
    /// dae_eval_expiry: accepted steps after which `jacobian` gives way to
    /// the adaptive default (None: never).
    pub eval_expiry: Option<u64>,
    /// dae_corrector_minit: first iteration checked for divergence.
    pub corrector_minit: usize,
    /// dae_constr_tol: the absolute tolerance every constraint must meet
    /// when the corrector converges (applied by the problem).
    pub constraint_tol: f64,
}

impl DstiffParams {
    /// The tolerance scale of a variable of class `c` (seeds, Table 1).
    pub fn scale(&self, c: VarClass) -> f64 {
        match c {
            VarClass::Displacement | VarClass::UserState => 1.0,
            VarClass::Velocity | VarClass::Solved => self.vel_tol_factor,
            VarClass::Multiplier => self.alg_tol_factor,
        }
    }
}

/// The DSTIFF method: DASSL's engine with DASPK's norm, first step and
/// corrector schedule.
pub struct DstiffMethod<'a, P: DaeProblem> {
    engine: WstiffMethod<'a, P>,
    rule: JacobianRule,
    expiry: Option<u64>,
    /// Accepted steps so far (for `dae_eval_expiry`).
    steps: u64,
}

/// DSTIFF under the one step loop.
pub type Dstiff<'a, P> = Stepper<DstiffMethod<'a, P>>;

impl<'a, P: DaeProblem> Dstiff<'a, P> {
    /// Start at (t0, y0, y0') with consistent initial values, order 1.
    pub fn new(problem: &'a mut P, params: DstiffParams, t0: f64, y0: &[f64], yp0: &[f64]) -> Self {
        let n = problem.size();
        let scale: Vec<f64> = problem.classes().iter().map(|&c| params.scale(c)).collect();
        let bdf = BdfParams {
            kmax: params.bdf.kmax.clamp(1, DSTIFF_MAX_ORDER),
            // The Jacobian schedule is `rule` (pattern all F = adaptive
            // underneath); DSTIFF has no ADAPTIVITY and no fixed step.
            pattern: vec![false],
            adaptivity: 0.0,
            fixed: None,
            constant_step: false,
            ..params.bdf.clone()
        };
        let h0 = first_step(&bdf, problem.classes(), &scale, y0, yp0);
        let mut engine = WstiffMethod::new(problem, bdf, y0, yp0);
        engine.core().rms_scale = Some(scale);
        let multipliers = class_mask(engine.core().classes(), &[VarClass::Multiplier]);
        engine.core().multiplier_mask = Some(multipliers);
        engine.set_first_step(y0, yp0, h0);
        let mut limits = engine.core().limits();
        limits.hinit = h0;
        let mut newton = Newton::new(n);
        newton.divergence_from = params.corrector_minit;
        let method = DstiffMethod {
            engine,
            rule: params.jacobian,
            expiry: params.eval_expiry,
            steps: 0,
        };
        Stepper::with_method(method, limits, newton, t0)
    }

    /// See `Wstiff::set_exact_history`.
    pub fn set_exact_history(&mut self, past: &[Vec<f64>], h: f64, order: usize) {
        self.method.engine.set_exact_history(past, h, order);
        self.h = h;
    }

    pub fn problem(&mut self) -> &mut P {
        self.method.engine.core().problem
    }
}

/// DASSL's first step bounded by h0_max (`hinit`) and h_max: the largest
/// h ≤ h0_max with h·‖y'_0‖ ≤ 0.5 in the DDWNRM norm, but not below h_min.
fn first_step(p: &BdfParams, classes: &[VarClass], scale: &[f64], y0: &[f64], yp0: &[f64]) -> f64 {
    let tol = Tolerance {
        error: p.error,
        extra: 0.0,
    };
    let mask = class_mask(classes, &p.error_classes);
    let (ypnorm, _) = weighted_rms_norm(&mask, scale, y0, &tol, |i| yp0[i]);
    let mut h = p.hinit.min(p.hmax);
    if ypnorm * h > DSTIFF_FIRST_STEP_CHANGE {
        h = DSTIFF_FIRST_STEP_CHANGE / ypnorm;
    }
    h.max(p.hmin)
}

impl<P: DaeProblem> Method for DstiffMethod<'_, P> {
    fn order(&self) -> usize {
        self.engine.order()
    }
    fn unknown_classes(&self) -> &[VarClass] {
        self.engine.unknown_classes()
    }
    fn predict(&mut self, t: f64, h: f64) {
        self.engine.predict(t, h)
    }
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        // seeds: dae_eval_expiry — after that many steps the pattern is
        // ignored and the default (adaptive) evaluation is used.
        let expired = self.expiry.is_some_and(|n| self.steps >= n);
        work.newton.jacobian_rule = Some(if expired {
            JacobianRule::ADAPTIVE
        } else {
            self.rule
        });
        self.engine.correct(t, h, work)
    }
    fn estimate(&mut self, h: f64, tol: &Tolerance) -> Estimate {
        self.engine.estimate(h, tol)
    }
    fn restore(&mut self) {
        self.engine.restore()
    }
    fn accept(&mut self, t: f64, h: f64, stats: &mut Statistics) -> Result<(), IntegrationError> {
        self.steps += 1;
        self.engine.accept(t, h, stats)
    }
    fn next_step(&mut self, step: &Accepted, tol: &Tolerance, limits: &Limits) -> f64 {
        self.engine.next_step(step, tol, limits)
    }
    fn after_error_failure(&mut self, h: f64, est: &Estimate, failures: &Failures) -> f64 {
        self.engine.after_error_failure(h, est, failures)
    }
    fn after_corrector_failure(&mut self, cut: bool) {
        self.engine.after_corrector_failure(cut)
    }
    fn local_error_measure(&self, h: f64, est: &Estimate) -> f64 {
        self.engine.local_error_measure(h, est)
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        self.engine.solution()
    }
    fn accepted(&self) -> &[f64] {
        self.engine.accepted()
    }
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        self.engine.interpolate(t_last, t, y, yp)
    }
    fn structure_holds(&mut self, t: f64) -> bool {
        self.engine.structure_holds(t)
    }
    fn describe_error_variable(&self, i: usize) -> String {
        self.engine.describe_error_variable(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's two tables (Param_Transient, comment on dae_jacob_eval
    /// and dae_jacob_init), row by row: M → new Jacobian?
    #[test]
    fn jacobian_rule_reproduces_both_seed_tables() {
        let eval2 = JacobianRule { eval: 2, init: 2 };
        let table1 = [true, true, true, false, true];
        for (m, want) in table1.iter().enumerate() {
            assert_eq!(eval2.wants(m), *want, "dae_jacob_eval = 2, M = {m}");
        }
        let eval3 = JacobianRule { eval: 3, init: 2 };
        let table2 = [true, true, false, true, false, false, true, false];
        for (m, want) in table2.iter().enumerate() {
            assert_eq!(eval3.wants(m), *want, "dae_jacob_eval = 3, M = {m}");
        }
        // dae_jacob_eval = 1: every iteration; dae_jacob_init = 1 alone:
        // the first iteration only (seeds' attribute lists).
        let every = JacobianRule { eval: 1, init: 0 };
        assert!((0..6).all(|m| every.wants(m)));
        let first = JacobianRule { eval: 0, init: 1 };
        assert!(first.wants(0) && (1..6).all(|m| !first.wants(m)));
        assert!(first.adaptive() && !every.adaptive());
    }
}
