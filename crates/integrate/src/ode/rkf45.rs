//! RKF45: Runge–Kutta–Fehlberg 4(5) (E. Fehlberg, NASA TR R-315, 1969;
//! tableau as HNW I, Table II.5.3). Six stages per step give a 4th- and a
//! 5th-order solution; their difference is the local error estimate of the
//! 4th-order one. We propagate the 5th-order solution (local extrapolation,
//! as HNW recommend and as RKF45 codes since Shampine–Watts do), so the
//! estimate is conservative and the observed global order is 5.
//!
//! Step control: h_new = h·ODE_SAFETY·err^(−1/5) within
//! [ODE_MIN_DECREASE, ODE_MAX_INCREASE] (HNW II.4 eq. 4.13), no growth
//! right after a rejection. f(t+h, y₁) is evaluated with the stages (the
//! next step's first stage and the solution's y′), so an attempt costs 6
//! evaluations.
//!
//! Stiffness: stage 5 sits at t + h like y₁, so ρ = ‖f(y₁) − k₅‖/‖y₁ − Y₅‖
//! estimates the Lipschitz constant for free (HNW IV.2); h·ρ at the real
//! stability boundary of the 5th-order method for STIFF_STEPS_TO_FLAG steps
//! flags stiffness with advice to use VSTIFF.

use super::{lipschitz_estimate, ode_stepper, OdeCore, StiffnessMonitor, ODE_MAX_INCREASE};
use super::{ODE_MAX_RATIO_AFTER_REJECT, ODE_MIN_DECREASE};
use crate::control::ERROR_FAILURE_MAX_RATIO;
use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::params::OdeParams;
use crate::problem::{OdeProblem, VarClass};
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};

/// Fehlberg's nodes c and coupling coefficients a (row i: stage i's a_ij).
const C: [f64; 6] = [0.0, 0.25, 0.375, 12.0 / 13.0, 1.0, 0.5];
const A: [[f64; 5]; 6] = [
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [0.25, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 32.0, 9.0 / 32.0, 0.0, 0.0, 0.0],
    [1932.0 / 2197.0, -7200.0 / 2197.0, 7296.0 / 2197.0, 0.0, 0.0],
    [439.0 / 216.0, -8.0, 3680.0 / 513.0, -845.0 / 4104.0, 0.0],
    [
        -8.0 / 27.0,
        2.0,
        -3544.0 / 2565.0,
        1859.0 / 4104.0,
        -11.0 / 40.0,
    ],
];
/// 5th-order weights (propagated).
const B5: [f64; 6] = [
    16.0 / 135.0,
    0.0,
    6656.0 / 12825.0,
    28561.0 / 56430.0,
    -9.0 / 50.0,
    2.0 / 55.0,
];
/// 4th-order weights (the embedded solution whose error is estimated).
const B4: [f64; 6] = [
    25.0 / 216.0,
    0.0,
    1408.0 / 2565.0,
    2197.0 / 4104.0,
    -1.0 / 5.0,
    0.0,
];
/// Order of the embedded solution whose error the estimate measures: the
/// step ratio is err^(−1/(EMBEDDED_ORDER+1)).
const EMBEDDED_ORDER: usize = 4;
/// Real stability boundary of the propagated 5th-order Fehlberg solution:
/// |R(z)| = 1 at z = −3.678 (R(z) = 1 + z b₅ᵀ(I − zA)⁻¹1; checked in the
/// tests below).
pub const RKF45_STABILITY_BOUNDARY: f64 = 3.678;

/// RKF45's stages and its state.
pub struct Rkf45Method<'a, P: OdeProblem> {
    pub core: OdeCore<'a, P>,
    k: [Vec<f64>; 6],
    stage: Vec<f64>,
    /// Y₅, the stage-5 state at t + h (stiffness estimate).
    stage5: Vec<f64>,
    err: Vec<f64>,
    monitor: StiffnessMonitor,
    pending: Vec<Event>,
}

/// RKF45 under the one step loop.
pub type Rkf45<'a, P> = Stepper<Rkf45Method<'a, P>>;

impl<'a, P: OdeProblem> Rkf45<'a, P> {
    /// Start at (t0, y0); the first step from f(t0, y0) (HNW II.4),
    /// bounded by `h0_max` and HMAX.
    pub fn new(
        problem: &'a mut P,
        params: OdeParams,
        t0: f64,
        y0: &[f64],
    ) -> Result<Self, IntegrationError> {
        let mut core = OdeCore::new(problem, params, t0, y0)?;
        let h0 = core.first_step(EMBEDDED_ORDER)?;
        let n = core.size();
        let limits = core.limits(h0);
        let method = Rkf45Method {
            core,
            k: std::array::from_fn(|_| vec![0.0; n]),
            stage: vec![0.0; n],
            stage5: vec![0.0; n],
            err: vec![0.0; n],
            monitor: StiffnessMonitor::default(),
            pending: Vec::new(),
        };
        Ok(ode_stepper(method, limits, t0))
    }
}

impl<P: OdeProblem> Rkf45Method<'_, P> {
    /// The six stages from (t, y_acc) with step h, then f(t + h, y₁):
    /// core.y = the 5th-order solution y₁, core.f = f(t + h, y₁), `err` =
    /// y₅ − y₄. false: an evaluation failed (event emitted).
    fn stages(&mut self, t: f64, h: f64, work: &mut Work) -> bool {
        let n = self.core.size();
        self.k[0].copy_from_slice(&self.core.f_acc);
        for s in 1..6 {
            for i in 0..n {
                let mut acc = 0.0;
                for j in 0..s {
                    acc += A[s][j] * self.k[j][i];
                }
                self.stage[i] = self.core.y_acc[i] + h * acc;
            }
            let mut ks = std::mem::take(&mut self.k[s]);
            let stage = std::mem::take(&mut self.stage);
            let ok = self
                .core
                .rhs_in_attempt(t + C[s] * h, h, &stage, &mut ks, work);
            self.stage = stage;
            self.k[s] = ks;
            if !ok {
                return false;
            }
            if s == 4 {
                self.stage5.copy_from_slice(&self.stage);
            }
        }
        for i in 0..n {
            let (mut y5, mut e) = (0.0, 0.0);
            for s in 0..6 {
                y5 += B5[s] * self.k[s][i];
                e += (B5[s] - B4[s]) * self.k[s][i];
            }
            self.core.y[i] = self.core.y_acc[i] + h * y5;
            self.err[i] = h * e;
        }
        let y = std::mem::take(&mut self.core.y);
        let mut f = std::mem::take(&mut self.core.f);
        let ok = self.core.rhs_in_attempt(t + h, h, &y, &mut f, work);
        self.core.y = y;
        self.core.f = f;
        ok
    }
}

impl<P: OdeProblem> Method for Rkf45Method<'_, P> {
    fn order(&self) -> usize {
        EMBEDDED_ORDER + 1
    }
    fn unknown_classes(&self) -> &[VarClass] {
        &self.core.classes
    }
    fn predict(&mut self, _t: f64, _h: f64) {}
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        work.events.append(&mut self.pending);
        let ok = self.stages(t, h, work);
        self.core.flush_evaluations(work.stats);
        Ok(ok)
    }
    fn estimate(&mut self, _h: f64, _tol: &Tolerance) -> Estimate {
        self.core.error_norm(&self.err, &self.core.y)
    }
    fn restore(&mut self) {
        self.core.restore();
    }
    fn accept(
        &mut self,
        t_new: f64,
        h: f64,
        stats: &mut Statistics,
    ) -> Result<(), IntegrationError> {
        let rho = lipschitz_estimate(&self.core.y, &self.core.f, &self.stage5, &self.k[4]);
        if let Some(e) = self.monitor.record(
            t_new,
            h,
            self.core.params.hmax,
            rho,
            RKF45_STABILITY_BOUNDARY,
            "RKF45",
        ) {
            self.pending.push(e);
        }
        self.core.accept_state(t_new)?;
        self.core.flush_evaluations(stats);
        Ok(())
    }
    fn next_step(&mut self, step: &Accepted, _tol: &Tolerance, _limits: &Limits) -> f64 {
        let max = if step.after_failure {
            ODE_MAX_RATIO_AFTER_REJECT
        } else {
            ODE_MAX_INCREASE
        };
        let h = step.h * OdeCore::<P>::step_ratio(step.estimate.ratio, EMBEDDED_ORDER, max);
        // A step shortened to land on an output time says nothing against
        // the step the method wanted.
        if step.shortened {
            h.max(step.natural)
        } else {
            h
        }
    }
    fn after_error_failure(&mut self, h: f64, est: &Estimate, _failures: &Failures) -> f64 {
        let r = OdeCore::<P>::step_ratio(est.ratio, EMBEDDED_ORDER, ODE_MAX_RATIO_AFTER_REJECT);
        h * r.clamp(ODE_MIN_DECREASE, ERROR_FAILURE_MAX_RATIO)
    }
    ode_method_state!();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tableau's order conditions: Σb = 1, Σb c = 1/2, Σb c² = 1/3,
    /// Σb c³ = 1/4 for both weight sets, Σb₅ c⁴ = 1/5; row sums = c.
    #[test]
    fn tableau_satisfies_order_conditions() {
        for (s, row) in A.iter().enumerate() {
            let sum: f64 = row.iter().sum();
            assert!((sum - C[s]).abs() < 1e-14, "row {s}");
        }
        for (b, top) in [(&B4, 4), (&B5, 5)] {
            for p in 1..=top {
                let v: f64 = (0..6).map(|s| b[s] * C[s].powi(p - 1)).sum();
                assert!((v - 1.0 / p as f64).abs() < 1e-14, "order {top}, p {p}");
            }
        }
    }

    /// |R(−3.678)| = 1 within 1e-3 and |R| < 1 just inside.
    #[test]
    fn stability_boundary_is_where_the_amplification_reaches_one() {
        let r = |z: f64| {
            // Stages of y' = z y from y = 1, h = 1.
            let mut k = [0.0; 6];
            for s in 0..6 {
                let y: f64 = 1.0 + (0..s).map(|j| A[s][j] * k[j]).sum::<f64>();
                k[s] = z * y;
            }
            1.0 + (0..6).map(|s| B5[s] * k[s]).sum::<f64>()
        };
        assert!((r(-RKF45_STABILITY_BOUNDARY).abs() - 1.0).abs() < 1e-3);
        assert!(r(-0.99 * RKF45_STABILITY_BOUNDARY).abs() < 1.0);
        assert!(r(-1.01 * RKF45_STABILITY_BOUNDARY).abs() > 1.0);
    }
}
