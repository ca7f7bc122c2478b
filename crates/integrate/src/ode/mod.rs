//! The ODE form's integrators (ABAM, RKF45, VSTIFF, MSTIFF; SPEC §1
//! "ODE") on an [`OdeProblem`] y′ = f(t, y). Each is a [`Method`] under the
//! one step loop (stepper.rs): HMIN/HMAX, output landing, failure policy and
//! statistics are the loop's. An explicit method's `correct` evaluates its
//! stages and returns Ok(true); the loop's `Newton` is empty (size 0).
//!
//! What the four share lives here: [`OdeCore`] (problem, parameters, the
//! current and accepted state with f, the weighted RMS error norm with
//! `OdeParams::weight`, the first step, the accepted-step hand-over with
//! the problem's `after_step` restart, cubic Hermite interpolation) and
//! the stiffness monitor of the explicit methods.
//!
//! To the analysis driver they are `DaeIntegrator`s: `solution()` is
//! (y, f(t, y)).

/// The `Method` items every ODE-form method answers from its `core:
/// OdeCore` alike: the solution (y, f), the accepted state, Hermite
/// interpolation (`own_interpolation`: the method has its own), no
/// structure watch, the local error measure and the
/// names of the states.
macro_rules! ode_method_state {
    () => {
        fn interpolate(&self, _t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
            self.core.hermite(t, y, yp)
        }
        ode_method_state!(own_interpolation);
    };
    (own_interpolation) => {
        fn local_error_measure(&self, _h: f64, est: &Estimate) -> f64 {
            est.ratio * self.core.params.error
        }
        fn solution(&self) -> (&[f64], &[f64]) {
            (&self.core.y, &self.core.f)
        }
        fn accepted(&self) -> &[f64] {
            &self.core.y_acc
        }
        fn structure_holds(&mut self, _t: f64) -> bool {
            true
        }
        fn describe_error_variable(&self, i: usize) -> String {
            self.core.problem.describe_variable(i)
        }
    };
}

pub mod abam;
pub mod mstiff;
pub mod rkf45;
pub mod stiff;
pub mod stiff_core;
pub mod vstiff;

use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::newton::Newton;
use crate::params::OdeParams;
use crate::problem::{AfterStep, OdeProblem, VarClass};
use crate::stepper::{Estimate, Limits, Method, Stepper, Work};

pub use abam::{Abam, AbamMethod};
pub use rkf45::{Rkf45, Rkf45Method};

// ---- Step control of the explicit ODE methods (named once, as control.rs) ----

/// Safety factor on the step ratio an error estimate allows: 0.9, as
/// Hairer–Nørsett–Wanner (HNW I, II.4 eq. 4.13 "fac") and DASSL.
pub const ODE_SAFETY: f64 = 0.9;
/// Largest step ratio after an accepted step: HNW's facmax = 5 for one-step
/// methods; ABAM doubles at most (Shampine–Gordon STEP).
pub const ODE_MAX_INCREASE: f64 = 5.0;
/// Smallest step ratio after an accepted or rejected step (HNW facmin 0.2).
pub const ODE_MIN_DECREASE: f64 = 0.2;
/// After a rejected step the step never grows again in that step (HNW:
/// facmax = 1 right after a rejection).
pub const ODE_MAX_RATIO_AFTER_REJECT: f64 = 1.0;
/// Floor of the error measure in the step-ratio formula.
pub const ODE_ERROR_FLOOR: f64 = 1e-10;

/// Stiffness monitor (HNW II, IV.2 "stiffness detection" for DOPRI5): a
/// step is "at the stability boundary" when h·ρ ≥ this fraction of the
/// method's boundary, ρ the Lipschitz estimate ‖f(y₁) − f(y₂)‖/‖y₁ − y₂‖ of
/// two states at one time. HNW flag stiffness after 15 such steps with
/// fewer than 6 others in between. Steps at HMAX are not limited by
/// stability and do not count, nor do states that differ only by round-off
/// (‖y₁ − y₂‖ ≤ STIFF_ROUNDOFF·‖y₁‖: ρ is then noise; ours, after ABAM on
/// the pendulum at order 12 and ERROR 1e-7 "detected" stiffness at HMAX).
pub const STIFF_BOUNDARY_FRACTION: f64 = 0.9;
pub const STIFF_STEPS_TO_FLAG: usize = 15;
pub const STIFF_NONSTIFF_RESET: usize = 6;
pub const STIFF_ROUNDOFF: f64 = 1e-10;
/// A step within this fraction of HMAX is "at HMAX" (ours).
pub const STIFF_AT_HMAX: f64 = 0.99;

/// The state, parameters and problem every ODE-form method shares.
pub struct OdeCore<'a, P: OdeProblem> {
    pub problem: &'a mut P,
    pub params: OdeParams,
    pub classes: Vec<VarClass>,
    /// The solution of the last attempt (the accepted one after `accept`).
    pub y: Vec<f64>,
    /// f(t, y) for `y` (after `accept`; methods keep stage values apart).
    pub f: Vec<f64>,
    /// The last accepted step: time, state, f.
    pub t_acc: f64,
    pub y_acc: Vec<f64>,
    pub f_acc: Vec<f64>,
    /// The accepted step before it (Hermite interpolation within the last
    /// step).
    pub t_prev: f64,
    pub y_prev: Vec<f64>,
    pub f_prev: Vec<f64>,
    /// Right-hand-side evaluations not yet handed to the statistics.
    pub evaluations: u64,
}

impl<'a, P: OdeProblem> OdeCore<'a, P> {
    /// Start at (t0, y0); evaluates f(t0, y0).
    pub fn new(
        problem: &'a mut P,
        params: OdeParams,
        t0: f64,
        y0: &[f64],
    ) -> Result<Self, IntegrationError> {
        let n = problem.size();
        if y0.len() != n {
            return Err(IntegrationError::failure(
                t0,
                format!("initial state has {} entries, the problem {n}", y0.len()),
            ));
        }
        let classes = problem.classes().to_vec();
        let mut core = OdeCore {
            problem,
            params,
            classes,
            y: y0.to_vec(),
            f: vec![0.0; n],
            t_acc: t0,
            y_acc: y0.to_vec(),
            f_acc: vec![0.0; n],
            t_prev: t0,
            y_prev: y0.to_vec(),
            f_prev: vec![0.0; n],
            evaluations: 0,
        };
        let mut f0 = vec![0.0; n];
        core.rhs(t0, y0, &mut f0)?;
        core.f.copy_from_slice(&f0);
        core.f_acc.copy_from_slice(&f0);
        core.f_prev.copy_from_slice(&f0);
        Ok(core)
    }

    pub fn size(&self) -> usize {
        self.y.len()
    }

    /// f(t, y) into `out`, counted; a problem error stops the run at t.
    pub fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), IntegrationError> {
        self.evaluations += 1;
        self.problem
            .rhs(t, y, out)
            .map_err(|e| IntegrationError::failure(t, e.0))
    }

    /// f(t, y) into `out` during a step attempt: a problem error (e.g. the
    /// ODE form's dependent coordinates not converging at a trial state)
    /// is a failed attempt — an event naming it, and Ok(false) so the loop
    /// cuts the step — not the end of the run.
    pub(crate) fn rhs_in_attempt(
        &mut self,
        t: f64,
        h: f64,
        y: &[f64],
        out: &mut [f64],
        work: &mut Work,
    ) -> bool {
        self.evaluations += 1;
        match self.problem.rhs(t, y, out) {
            Ok(()) => true,
            Err(e) => {
                work.events.push(Event::CorrectorFailure {
                    t,
                    h,
                    iterations: 0,
                    equation: e.0,
                    variable: "(right-hand side evaluation)".into(),
                });
                // The loop cuts h only after a failure "with a fresh
                // Jacobian": an explicit method has none to refresh.
                work.newton.jac_fresh = true;
                false
            }
        }
    }

    /// Hand the counted evaluations to the statistics.
    pub fn flush_evaluations(&mut self, stats: &mut Statistics) {
        stats.residual_evaluations += std::mem::take(&mut self.evaluations);
    }

    /// Weighted RMS norm of `err` with the weights `OdeParams::weight` of
    /// each state at max(|y_acc|, |y_new|) (SPEC §3: weighted RMS, as
    /// DDWNRM; HNW II.4 eq. 4.10 for the max), and where it is largest.
    pub(crate) fn error_norm(&self, err: &[f64], y_new: &[f64]) -> Estimate {
        let n = err.len().max(1);
        let (mut sum, mut worst, mut largest) = (0.0, 0, -1.0);
        for i in 0..err.len() {
            let size = self.y_acc[i].abs().max(y_new[i].abs());
            let e = err[i] / self.params.weight(self.classes[i], size);
            let e2 = e * e;
            if e2 > largest {
                largest = e2;
                worst = i;
            }
            sum += e2;
        }
        Estimate {
            ratio: (sum / n as f64).sqrt(),
            worst,
        }
    }

    /// The first step (HNW II.4 "starting step size", from f(t0, y0) and
    /// one more evaluation), for a method of order `order`, bounded by
    /// `h0_max` (MotionSolve `h0_max`, Adams HINIT) and HMAX.
    pub fn first_step(&mut self, order: usize) -> Result<f64, IntegrationError> {
        let n = self.size();
        let cap = self.params.h0_max.min(self.params.hmax);
        let scaled = |core: &Self, v: &[f64]| {
            let s: f64 = (0..n)
                .map(|i| {
                    let w = core.params.weight(core.classes[i], core.y_acc[i]);
                    (v[i] / w).powi(2)
                })
                .sum();
            (s / n.max(1) as f64).sqrt()
        };
        let d0 = scaled(self, &self.y_acc);
        let d1 = scaled(self, &self.f_acc);
        let h0 = if d0 < 1e-5 || d1 < 1e-5 {
            1e-6
        } else {
            0.01 * d0 / d1
        }
        .min(cap);
        let y1: Vec<f64> = (0..n).map(|i| self.y_acc[i] + h0 * self.f_acc[i]).collect();
        let mut f1 = vec![0.0; n];
        self.rhs(self.t_acc + h0, &y1, &mut f1)?;
        let df: Vec<f64> = (0..n).map(|i| f1[i] - self.f_acc[i]).collect();
        let d2 = scaled(self, &df) / h0;
        let p = order as f64 + 1.0;
        let h1 = if d1.max(d2) <= 1e-15 {
            (h0 * 1e-3).max(1e-6)
        } else {
            (0.01 / d1.max(d2)).powf(1.0 / p)
        };
        Ok((100.0 * h0).min(h1).min(cap).max(f64::MIN_POSITIVE))
    }

    /// Make (t_new, y, f) the accepted state and let the problem see it.
    /// Returns true when the problem rewrote y (`AfterStep::Restart`): f is
    /// then re-evaluated and the method must discard its history.
    pub fn accept_state(&mut self, t_new: f64) -> Result<bool, IntegrationError> {
        std::mem::swap(&mut self.y_prev, &mut self.y_acc);
        std::mem::swap(&mut self.f_prev, &mut self.f_acc);
        self.t_prev = self.t_acc;
        self.t_acc = t_new;
        self.y_acc.copy_from_slice(&self.y);
        self.f_acc.copy_from_slice(&self.f);
        let after = self
            .problem
            .after_step(t_new, &mut self.y_acc)
            .map_err(|e| IntegrationError::failure(t_new, e.0))?;
        if after == AfterStep::Continue {
            return Ok(false);
        }
        let y = self.y_acc.clone();
        let mut f = std::mem::take(&mut self.f_acc);
        self.rhs(t_new, &y, &mut f)?;
        self.f_acc = f;
        self.y.copy_from_slice(&self.y_acc);
        self.f.copy_from_slice(&self.f_acc);
        // The step before the restart is in other coordinates: interpolate
        // only within steps taken after it.
        self.t_prev = t_new;
        self.y_prev.copy_from_slice(&self.y_acc);
        self.f_prev.copy_from_slice(&self.f_acc);
        Ok(true)
    }

    /// Back to the accepted state after a failed attempt.
    pub fn restore(&mut self) {
        self.y.copy_from_slice(&self.y_acc);
        self.f.copy_from_slice(&self.f_acc);
    }

    /// Cubic Hermite interpolation within the last accepted step (from
    /// y, f at both ends; third order, which is what output sampling
    /// between steps needs — the driver lands on output times otherwise).
    pub fn hermite(&self, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let h = self.t_acc - self.t_prev;
        if h <= 0.0 || t < self.t_prev || t > self.t_acc || y.len() != self.size() {
            return false;
        }
        let s = (t - self.t_prev) / h;
        let [h00, h10, h01, h11] = hermite_basis(s);
        let (d00, d10, d01, d11) = (
            6.0 * s * (s - 1.0) / h,
            (1.0 - s) * (1.0 - 3.0 * s),
            6.0 * s * (1.0 - s) / h,
            s * (3.0 * s - 2.0),
        );
        for i in 0..y.len() {
            let (y0, y1, f0, f1) = (self.y_prev[i], self.y_acc[i], self.f_prev[i], self.f_acc[i]);
            y[i] = h00 * y0 + h10 * h * f0 + h01 * y1 + h11 * h * f1;
            yp[i] = d00 * y0 + d10 * f0 + d01 * y1 + d11 * f1;
        }
        true
    }

    /// The loop's limits: no ADAPTIVITY, no fixed-step option (settings
    /// reject both for the ODE form), first step `hinit`.
    pub(crate) fn limits(&self, hinit: f64) -> Limits {
        Limits {
            error: self.params.error,
            hmin: self.params.hmin,
            hmax: self.params.hmax,
            hinit,
            adaptivity: 0.0,
            fixed: None,
            constant_step: false,
        }
    }

    /// The step ratio an error ratio `err` allows a method whose error
    /// estimate is O(h^(order+1)): ODE_SAFETY·err^(−1/(order+1)) within
    /// [ODE_MIN_DECREASE, `max_increase`].
    pub fn step_ratio(err: f64, order: usize, max_increase: f64) -> f64 {
        let r = ODE_SAFETY * err.max(ODE_ERROR_FLOOR).powf(-1.0 / (order as f64 + 1.0));
        r.clamp(ODE_MIN_DECREASE, max_increase)
    }
}

/// The cubic Hermite basis at s ∈ [0, 1] of a step: the weights of y₀,
/// h·y₀′, y₁ and h·y₁′.
pub fn hermite_basis(s: f64) -> [f64; 4] {
    [
        (1.0 + 2.0 * s) * (1.0 - s) * (1.0 - s),
        s * (1.0 - s) * (1.0 - s),
        s * s * (3.0 - 2.0 * s),
        s * s * (s - 1.0),
    ]
}

/// A method under the one step loop, with an empty corrector.
pub(crate) fn ode_stepper<M: Method>(method: M, limits: Limits, t0: f64) -> Stepper<M> {
    Stepper::with_method(method, limits, Newton::new(0), t0)
}

/// HNW's stiffness test for the explicit methods: counts accepted steps
/// whose h·ρ sits at the stability boundary; flags once (an event advising
/// VSTIFF) after STIFF_STEPS_TO_FLAG of them.
#[derive(Clone, Debug, Default)]
pub struct StiffnessMonitor {
    at_boundary: usize,
    others: usize,
    flagged: bool,
}

impl StiffnessMonitor {
    /// Record an accepted step of size h with Lipschitz estimate `rho`
    /// against the method's real stability boundary `boundary` (h·|λ| on
    /// the negative real axis); the advice event when stiffness is first
    /// detected.
    pub fn record(
        &mut self,
        t: f64,
        h: f64,
        hmax: f64,
        rho: f64,
        boundary: f64,
        method: &'static str,
    ) -> Option<Event> {
        if self.flagged || !rho.is_finite() || h >= STIFF_AT_HMAX * hmax {
            return None;
        }
        if h * rho >= STIFF_BOUNDARY_FRACTION * boundary {
            self.at_boundary += 1;
            self.others = 0;
            if self.at_boundary >= STIFF_STEPS_TO_FLAG {
                self.flagged = true;
                return Some(Event::StiffnessDetected {
                    t,
                    h,
                    method: method.to_string(),
                });
            }
        } else {
            self.others += 1;
            if self.others >= STIFF_NONSTIFF_RESET {
                self.at_boundary = 0;
            }
        }
        None
    }
}

/// ρ ≈ ‖f(y₁) − f(y₂)‖₂ / ‖y₁ − y₂‖₂ for two states at one time (HNW
/// IV.2); NaN (no estimate) when the states differ only by round-off.
pub fn lipschitz_estimate(y1: &[f64], f1: &[f64], y2: &[f64], f2: &[f64]) -> f64 {
    let dy: f64 = y1.iter().zip(y2).map(|(a, b)| (a - b) * (a - b)).sum();
    let df: f64 = f1.iter().zip(f2).map(|(a, b)| (a - b) * (a - b)).sum();
    let size: f64 = y1.iter().map(|a| a * a).sum::<f64>().max(1.0);
    if dy > STIFF_ROUNDOFF * STIFF_ROUNDOFF * size {
        (df / dy).sqrt()
    } else {
        f64::NAN
    }
}
