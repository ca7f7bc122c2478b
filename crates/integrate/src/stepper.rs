//! The one step loop. Every integration method (GSTIFF, CONSTANT_BDF,
//! WSTIFF, HHT, NEWMARK; later DSTIFF, HASTIFF, VSTIFF, MSTIFF, ABAM, RKF45)
//! implements [`Method`]: predict, correct, estimate the error, accept or
//! restore, choose the next step and order, interpolate. [`Stepper`] drives
//! it and owns everything the methods share: HMIN/HMAX, output landing
//! (`advance_to`) and stepping past (`advance_past`, INTERPOLATE = ON), the
//! corrector-failure and error-failure policy and caps (control.rs), the
//! error tolerance (ERROR, ADAPTIVITY), the fixed-step option (FIXIT) with
//! the RTI meter and MAXERR, the structure-change stop, the temporary
//! corrector switch and the statistics.

use crate::control::*;
use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::newton::Newton;
use crate::params::FixedStep;
use crate::problem::{DaeIntegrator, VarClass};
use crate::rti::RtiMeter;
use std::time::Instant;

/// The error tolerance of a step attempt: the weight of a variable of size
/// y is ERROR·max(|y|, 1), plus ADAPTIVITY/h while h < 100·HMIN (seeds:
/// ERROR, ADAPTIVITY). Methods choose the y (predicted, accepted or
/// current iterate); this says what a weight is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tolerance {
    pub error: f64,
    pub extra: f64,
}

impl Tolerance {
    pub fn weight(&self, y: f64) -> f64 {
        self.error * y.abs().max(1.0) + self.extra
    }
}

/// What the loop needs from a method's parameters.
#[derive(Clone, Debug)]
pub(crate) struct Limits {
    pub error: f64,
    pub hmin: f64,
    pub hmax: f64,
    pub hinit: f64,
    pub adaptivity: f64,
    pub fixed: Option<FixedStep>,
    /// CONSTANT_BDF: h = HMAX throughout, no error rejection.
    pub constant_step: bool,
}

/// A method's error estimate of a converged step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Estimate {
    /// The local error as a multiple of the tolerance (max norm).
    pub ratio: f64,
    /// The variable where it is largest.
    pub worst: usize,
}

/// Failed attempts since the last accepted step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Failures {
    /// Error-test failures in a row.
    pub error: usize,
    /// Failures of either kind in a row.
    pub consecutive: usize,
}

/// An accepted step, for the choice of the next one.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Accepted {
    pub h: f64,
    /// The step the method proposed before it was shortened to land on an
    /// output time (or split before one).
    pub natural: f64,
    pub shortened: bool,
    /// The step ended exactly on the output time (shortened or stretched
    /// to it; not one of the equal steps before it).
    pub landed: bool,
    /// The attempt before this one failed.
    pub after_failure: bool,
    pub estimate: Estimate,
}

/// What a method does with the shared corrector and diagnostics.
pub(crate) struct Work<'a> {
    pub newton: &'a mut Newton,
    pub stats: &'a mut Statistics,
    pub events: &'a mut Vec<Event>,
    pub tol: Tolerance,
    /// Fixed-step option: exactly this many corrector iterations, no
    /// convergence test.
    pub fixed_iterations: Option<usize>,
}

/// One integration method under the step loop. An explicit method has no
/// corrector: its `correct` evaluates the stages and returns Ok(true).
pub(crate) trait Method {
    /// Order of the next attempt.
    fn order(&self) -> usize;
    /// Before the first step towards the first output time `tout`: the
    /// method's own first step (VSTIFF/MSTIFF bound it by the output
    /// interval); None keeps the loop's HINIT.
    fn begin(&mut self, _t: f64, _tout: f64) -> Option<f64> {
        None
    }
    /// Factorizations of a method's own linear systems (VSTIFF/MSTIFF's
    /// dense I − γJ), added to the loop's corrector's.
    fn own_factorizations(&self) -> u64 {
        0
    }
    /// Classes of the corrector's unknowns (the temporary corrector switch).
    fn unknown_classes(&self) -> &[VarClass];
    /// Fit the history to a step of size h from t and predict.
    fn predict(&mut self, t: f64, h: f64);
    /// Correct the prediction. Ok(false): the corrector failed (event
    /// emitted).
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError>;
    /// Local error of the converged step.
    fn estimate(&mut self, h: f64, tol: &Tolerance) -> Estimate;
    /// Undo `predict` after a failed attempt.
    fn restore(&mut self);
    /// Make the corrected step the accepted state at `t_new`.
    fn accept(
        &mut self,
        t_new: f64,
        h: f64,
        stats: &mut Statistics,
    ) -> Result<(), IntegrationError>;
    /// After `accept`: the step (and order) of the next attempt.
    fn next_step(&mut self, step: &Accepted, tol: &Tolerance, limits: &Limits) -> f64;
    /// After a failed error test (state restored): the next, smaller step.
    fn after_error_failure(&mut self, h: f64, est: &Estimate, failures: &Failures) -> f64;
    /// After a corrector failure (state restored); `cut`: the loop cut h.
    fn after_corrector_failure(&mut self, _cut: bool) {}
    /// Fixed-step option: the local error measure relative to max(1, |y|)
    /// compared with MAXERR.
    fn local_error_measure(&self, h: f64, est: &Estimate) -> f64;
    /// Fixed-step option starts (GSTIFF: order 1).
    fn enter_fixed_step(&mut self) {}
    /// y and y' of the last corrected step.
    fn solution(&self) -> (&[f64], &[f64]);
    /// y at the last accepted step, valid after a failed attempt too.
    fn accepted(&self) -> &[f64];
    /// The solution at `t` within the last step, which ended at `t_last`.
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool;
    /// Multipliers as separate unknowns (HHT's λ).
    fn multipliers(&self) -> Option<&[f64]> {
        None
    }
    /// The problem's structure still fits the accepted state at t.
    fn structure_holds(&mut self, t: f64) -> bool;
    /// Name of error variable i for the integration-failure event.
    fn describe_error_variable(&self, i: usize) -> String;
}

/// A method under the one step loop. `Gstiff`, `Wstiff` and `Hht` are this
/// with their method.
pub struct Stepper<M> {
    pub(crate) method: M,
    pub(crate) limits: Limits,
    pub(crate) newton: Newton,
    /// Time of the last accepted step.
    pub t: f64,
    /// Step of the next attempt (before HMAX and output landing).
    pub h: f64,
    /// The last accepted step (0 before the first).
    h_last: f64,
    /// `Method::begin` was called.
    begun: bool,
    /// Largest local error measure of the run (fixed-step MAXERR check).
    pub max_local_error: f64,
    /// Real Time Index of each fixed step (set by the caller).
    pub rti: Option<RtiMeter>,
    pub stats: Statistics,
    pub events: Vec<Event>,
    /// Stop after one accepted step (`DaeIntegrator::step_toward`: the
    /// driver checks SENSORs after every step).
    single_step: bool,
    /// The first step after `begin`, when a caller set one
    /// (`DaeIntegrator::set_first_step`: SENSOR STEPSIZE).
    first_step: Option<f64>,
}

// `Method` is crate-internal: every method lives in this crate, and the
// trait moves with the Work/Newton types it names only when one does not.
#[allow(private_bounds)]
impl<M: Method> Stepper<M> {
    pub(crate) fn with_method(method: M, limits: Limits, newton: Newton, t0: f64) -> Self {
        Stepper {
            method,
            h: limits.hinit,
            limits,
            newton,
            t: t0,
            h_last: 0.0,
            begun: false,
            max_local_error: 0.0,
            rti: None,
            stats: Statistics {
                min_step: f64::INFINITY,
                ..Default::default()
            },
            events: Vec::new(),
            single_step: false,
            first_step: None,
        }
    }

    /// Current solution y(t) and y'(t).
    pub fn y(&self) -> &[f64] {
        self.method.solution().0
    }
    pub fn yp(&self) -> &[f64] {
        self.method.solution().1
    }
    /// The solution at the last accepted step (time `self.t`), valid also
    /// after a failed step attempt.
    pub fn accepted_y(&self) -> &[f64] {
        self.method.accepted()
    }
    /// Order of the next attempt.
    pub fn order(&self) -> usize {
        self.method.order()
    }

    /// Copy the linear solver's counters into the statistics.
    pub fn sync_stats(&mut self) {
        let (numeric, symbolic) = self.newton.factorizations();
        self.stats.factorizations = numeric + self.method.own_factorizations();
        self.stats.symbolic_factorizations = symbolic;
    }

    /// Take steps until t = tout exactly.
    pub fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let result = if self.limits.fixed.is_some() {
            self.advance_fixed(tout)
        } else {
            self.advance_until(tout, true)
        };
        self.sync_stats();
        result
    }

    /// INTERPOLATE = ON: take steps (never shortened for output times)
    /// until t ≥ tout; `interpolate` then gives the solution at tout. The
    /// fixed-step option lands on tout as `advance_to` does.
    pub fn advance_past(&mut self, tout: f64) -> Result<(), IntegrationError> {
        if self.t >= tout || self.limits.fixed.is_some() {
            return self.advance_to(tout);
        }
        let result = self.advance_until(tout, false);
        self.sync_stats();
        result
    }

    /// The attempt's (natural step, step, lands on `tout`): the method's
    /// step capped by HMAX; when landing, the largest step that may land is
    /// the natural one stretched by LANDING_STRETCH but never beyond HMAX,
    /// and once `tout` is at most LANDING_EQUAL_STEPS of those away it is
    /// reached in equal steps — no sliver before an output time, and no
    /// step change inside the approach (which costs a fixed-coefficient
    /// method accuracy and HHT smoothness). The natural step survives the
    /// landing: the method sees it in `Accepted::natural`.
    fn attempt_step(&self, tout: f64, land: bool) -> (f64, f64, bool) {
        let remaining = tout - self.t;
        let fixed_size = self.limits.fixed.is_some() || self.limits.constant_step;
        let natural = if self.limits.fixed.is_some() {
            self.limits.hinit
        } else if self.limits.constant_step {
            self.limits.hmax
        } else {
            self.h.min(self.limits.hmax)
        };
        if !land {
            return (natural, natural, false);
        }
        let reach = if fixed_size {
            natural * (1.0 + FIXED_STEP_LANDING_ROUNDOFF)
        } else {
            let hmax = self.limits.hmax * (1.0 + HMAX_LANDING_ROUNDOFF);
            (natural * LANDING_STRETCH).min(hmax.max(natural))
        };
        if reach >= remaining {
            // Output times such as 0.1·i differ from the previous step by
            // rounding: keep that step exactly so the history stays uniform
            // (t is set to tout on acceptance).
            let h = if (remaining - self.h_last).abs() <= UNIFORM_STEP_ROUNDOFF * self.h_last {
                self.h_last
            } else {
                remaining
            };
            return (natural, h, true);
        }
        if !fixed_size {
            let steps = (remaining / reach).ceil();
            if steps <= LANDING_EQUAL_STEPS {
                return (natural, remaining / steps, false);
            }
        }
        (natural, natural, false)
    }

    fn tolerance(&self, h: f64) -> Tolerance {
        let l = &self.limits;
        let extra = if l.adaptivity > 0.0 && h < ADAPTIVITY_HMIN_FACTOR * l.hmin {
            l.adaptivity / h
        } else {
            0.0
        };
        Tolerance {
            error: l.error,
            extra,
        }
    }

    fn work(&mut self, tol: Tolerance, fixed_iterations: Option<usize>) -> (&mut M, Work<'_>) {
        (
            &mut self.method,
            Work {
                newton: &mut self.newton,
                stats: &mut self.stats,
                events: &mut self.events,
                tol,
                fixed_iterations,
            },
        )
    }

    /// Bookkeeping of an accepted step; Err when the structure changed.
    fn record_accepted(&mut self, t_new: f64, h: f64) -> Result<(), IntegrationError> {
        self.method.accept(t_new, h, &mut self.stats)?;
        self.t = t_new;
        self.h_last = h;
        self.stats.steps += 1;
        self.stats.min_step = self.stats.min_step.min(h);
        self.stats.max_step = self.stats.max_step.max(h);
        self.stats.max_order_used = self.stats.max_order_used.max(self.method.order());
        Ok(())
    }

    fn check_structure(&mut self) -> Result<(), IntegrationError> {
        if self.method.structure_holds(self.t) {
            Ok(())
        } else {
            Err(IntegrationError::structure_changed(self.t))
        }
    }

    /// Steps until t reaches tout, landing on it exactly when `land`.
    fn advance_until(&mut self, tout: f64, land: bool) -> Result<(), IntegrationError> {
        if !std::mem::replace(&mut self.begun, true) {
            if let Some(h) = self.method.begin(self.t, tout) {
                self.h = h;
            }
            if let Some(h) = self.first_step.take() {
                self.h = h;
            }
        }
        let mut failures = Failures::default();
        let mut after_failure = false;
        let constant = self.limits.constant_step;
        while self.t < tout {
            let remaining = tout - self.t;
            let (natural, h, landing) = self.attempt_step(tout, land);
            if h < self.limits.hmin * (1.0 - HMIN_ROUNDOFF)
                && h < remaining * (1.0 - REMAINING_ROUNDOFF)
            {
                return Err(IntegrationError::failure(
                    self.t,
                    format!(
                        "step size {h:.3e} fell below HMIN = {:.3e} after repeated failures",
                        self.limits.hmin
                    ),
                ));
            }
            if self.t + h == self.t {
                return Err(IntegrationError::failure(
                    self.t,
                    format!(
                        "step size {h:.3e} is below the resolution of the time {:.6e}",
                        self.t
                    ),
                ));
            }
            let tol = self.tolerance(h);
            let t = self.t;
            self.method.predict(t, h);
            let (method, mut work) = self.work(tol, None);
            if !method.correct(t, h, &mut work)? {
                self.method.restore();
                self.stats.corrector_failures += 1;
                failures.consecutive += 1;
                after_failure = true;
                self.newton.force_jacobian = true;
                self.h = h;
                if constant {
                    if failures.consecutive > CONSTANT_STEP_CORRECTOR_RETRIES {
                        return Err(IntegrationError::failure(
                            self.t,
                            format!(
                                "CONSTANT_BDF: the corrector does not converge at the fixed step h = {h:.3e} even with a fresh Jacobian; reduce HMAX"
                            ),
                        ));
                    }
                    self.method.after_corrector_failure(false);
                    continue;
                }
                if failures.consecutive > MAX_CORRECTOR_FAILURES {
                    return Err(IntegrationError::failure(self.t, "repeated corrector failures; see the message log for the equation that dominates"));
                }
                // A reused Jacobian gets one retry at the same h with a
                // fresh one; a failure with a fresh Jacobian cuts the step.
                let cut = self.newton.jac_fresh;
                if cut {
                    self.h = h * CORRECTOR_FAILURE_STEP_RATIO;
                }
                self.method.after_corrector_failure(cut);
                continue;
            }
            let est = self.method.estimate(h, &tol);
            if est.ratio > 1.0 && !constant {
                self.method.restore();
                self.stats.rejected_steps += 1;
                failures.error += 1;
                failures.consecutive += 1;
                after_failure = true;
                self.events.push(Event::IntegrationFailure {
                    t: self.t + h,
                    h,
                    order: self.method.order(),
                    error_ratio: est.ratio,
                    variable: self.method.describe_error_variable(est.worst),
                });
                if failures.consecutive > MAX_CONSECUTIVE_FAILURES {
                    return Err(IntegrationError::failure(
                        self.t,
                        "too many consecutive integration failures",
                    ));
                }
                self.h = self.method.after_error_failure(h, &est, &failures);
                continue;
            }
            let t_new = if landing { tout } else { self.t + h };
            self.record_accepted(t_new, h)?;
            failures = Failures::default();
            if let Some(e) = self.newton.step_accepted(self.t) {
                self.events.push(e);
            }
            let step = Accepted {
                h,
                natural,
                shortened: h < natural,
                landed: landing,
                after_failure,
                estimate: est,
            };
            after_failure = false;
            self.h = self.method.next_step(&step, &tol, &self.limits);
            self.check_structure()?;
            if self.single_step {
                break;
            }
        }
        Ok(())
    }

    /// Fixed-step option (seeds: "Fixed Step Integrator Option"): h = HINIT
    /// (= DTOUT/HRATIO) throughout, exactly FIXIT corrector iterations per
    /// step with the PATTERN's Jacobian evaluations, no rejection and no
    /// restart; stops when the local error measure (relative to
    /// max(1, |y|)) exceeds MAXERR. Each step's Real Time Index is recorded.
    fn advance_fixed(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let (iterations, maxerr) = match &self.limits.fixed {
            Some(f) => (f.iterations, f.maxerr),
            None => return self.advance_until(tout, true),
        };
        self.method.enter_fixed_step();
        while self.t < tout {
            let started = Instant::now();
            let (_, h, landing) = self.attempt_step(tout, true);
            let tol = self.tolerance(h);
            let t = self.t;
            self.method.predict(t, h);
            let (method, mut work) = self.work(tol, Some(iterations));
            if !method.correct(t, h, &mut work)? {
                return Err(IntegrationError::failure(
                    self.t,
                    "the fixed-step corrector could not solve its linear system (singular matrix); restarts are not done with FIXIT",
                ));
            }
            let est = self.method.estimate(h, &tol);
            let local = self.method.local_error_measure(h, &est);
            self.max_local_error = self.max_local_error.max(local);
            if local > maxerr {
                return Err(IntegrationError::failure(
                    self.t + h,
                    format!(
                        "local error {local:.3e} in {} exceeds MAXERR = {maxerr:e}",
                        self.method.describe_error_variable(est.worst)
                    ),
                ));
            }
            let t_new = if landing { tout } else { self.t + h };
            self.record_accepted(t_new, h)?;
            // The history takes the step in (the methods choose no new
            // step or order under the fixed-step option).
            let step = Accepted {
                h,
                natural: h,
                shortened: false,
                landed: landing,
                after_failure: false,
                estimate: est,
            };
            self.method.next_step(&step, &tol, &self.limits);
            if let Some(m) = &mut self.rti {
                m.record(self.t, started.elapsed());
            }
            self.check_structure()?;
            if self.single_step {
                break;
            }
        }
        Ok(())
    }

    /// Converge only the unknowns of `classes` for the next `steps`
    /// accepted steps (the automatic switch to MODIFIED).
    pub fn use_corrector_classes(&mut self, classes: &[VarClass], steps: usize) {
        let e = self
            .newton
            .use_temporarily(self.method.unknown_classes(), classes, steps, self.t);
        self.events.push(e);
    }

    /// The solution at `t` within the last step.
    pub fn interpolate(&self, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        self.method.interpolate(self.t, t, y, yp)
    }
}

#[allow(private_bounds)]
impl<M: Method> DaeIntegrator for Stepper<M> {
    fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        Stepper::advance_to(self, tout)
    }
    fn advance_past(&mut self, tout: f64) -> Result<(), IntegrationError> {
        Stepper::advance_past(self, tout)
    }
    fn time(&self) -> f64 {
        self.t
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        self.method.solution()
    }
    fn accepted(&self) -> &[f64] {
        self.method.accepted()
    }
    fn multipliers(&self) -> Option<&[f64]> {
        self.method.multipliers()
    }
    fn statistics(&mut self) -> Statistics {
        self.sync_stats();
        self.stats.clone()
    }
    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }
    fn put_rti(&mut self, meter: Option<RtiMeter>) {
        self.rti = meter;
    }
    fn take_rti(&mut self) -> Option<RtiMeter> {
        self.rti.take()
    }
    fn max_local_error(&self) -> f64 {
        self.max_local_error
    }
    fn use_corrector_classes(&mut self, classes: &[VarClass], steps: usize) -> bool {
        Stepper::use_corrector_classes(self, classes, steps);
        true
    }
    fn interpolate(&self, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        Stepper::interpolate(self, t, y, yp)
    }
    fn step_toward(&mut self, tout: f64, land: bool) -> Result<(), IntegrationError> {
        self.single_step = true;
        let result = if land {
            Stepper::advance_to(self, tout)
        } else {
            Stepper::advance_past(self, tout)
        };
        self.single_step = false;
        result
    }
    fn set_first_step(&mut self, h: f64) -> bool {
        if self.begun
            || self.limits.fixed.is_some()
            || self.limits.constant_step
            || h < self.limits.hmin
        {
            return false;
        }
        self.first_step = Some(h);
        true
    }
    fn set_next_step(&mut self, h: f64) -> bool {
        if !self.begun {
            return self.set_first_step(h);
        }
        if self.limits.fixed.is_some() || self.limits.constant_step || h < self.limits.hmin {
            return false;
        }
        // `attempt_step` takes self.h (capped by HMAX, shortened to land on
        // an output) and the method's `predict` rescales its history to it.
        self.h = h;
        true
    }
}
