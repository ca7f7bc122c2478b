//! GSTIFF: Gear's variable-order (1..KMAX), variable-step BDF with fixed
//! coefficients in Nordsieck form (DIFSUB lineage). Seeds: INTEGRATOR,
//! "Prediction", "Correction", "Integration failures", "Corrector failures".
//!
//! The history is the Nordsieck array z_j = h^j y^(j)/j!. A step predicts by
//! the Pascal (Taylor) matrix, corrects with a quasi-Newton iteration on
//! G(t, y_p + Δ, y'_p + Δ/(h l0)) = 0, and estimates the local error from the
//! predictor–corrector difference. A step-size change rescales z (fixed
//! coefficients: the formula assumes the last steps were equal, which is the
//! accuracy cost GSTIFF accepts for speed).

use crate::events::{Event, Statistics};
use crate::hht::FixedStep;
use crate::newton::{Newton, Step};
use crate::problem::{class_mask, DaeIntegrator, DaeProblem, VarClass};
use crate::rti::RtiMeter;
use std::time::Instant;

/// Validated GSTIFF parameters (seeds: INTEGRATOR arguments).
#[derive(Clone, Debug, PartialEq)]
pub struct BdfParams {
    pub error: f64,
    pub hmax: f64,
    pub hmin: f64,
    pub hinit: f64,
    pub kmax: usize,
    pub maxit: usize,
    /// Jacobian re-evaluation pattern over corrector iterations; all false =
    /// evaluate only after a corrector failure.
    pub pattern: Vec<bool>,
    /// Classes whose local error is controlled (I3: displacements, user states).
    pub error_classes: Vec<VarClass>,
    /// Classes whose corrections must converge (ORIGINAL: all but multipliers).
    pub corrector_classes: Vec<VarClass>,
    /// ADAPTIVITY: while h < 100·HMIN, ADAPTIVITY/h is added to the error
    /// tolerance (0 = off).
    pub adaptivity: f64,
    /// Fixed-step option (FIXIT): h = `hinit` throughout at order 1,
    /// exactly FIXIT corrector iterations per step, no error rejection.
    pub fixed: Option<FixedStep>,
    /// CONSTANT_BDF: h = HMAX throughout (shortened only to land on output
    /// times); the error estimates choose the order, never the step.
    pub constant_step: bool,
    /// INTERPOLATE = ON: the driver steps past output times
    /// (`advance_past`) and interpolates there instead of landing on them.
    pub interpolate: bool,
}

/// Why an integration stopped before its output time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// The integration failed (step size, corrector, evaluation error).
    Failure,
    /// The step at `t` was accepted, but the problem reported that its
    /// structure no longer fits the solution (e.g. an equation deactivated
    /// as redundant is no longer satisfied): the caller rebuilds the problem
    /// and restarts from the state at `t`.
    StructureChanged,
}

/// The integration could not continue; results up to `t` are valid.
#[derive(Clone, Debug, PartialEq)]
pub struct IntegrationError {
    pub t: f64,
    pub message: String,
    pub kind: StopKind,
}

impl IntegrationError {
    pub fn failure(t: f64, message: impl Into<String>) -> Self {
        IntegrationError {
            t,
            message: message.into(),
            kind: StopKind::Failure,
        }
    }
    pub fn structure_changed(t: f64) -> Self {
        IntegrationError {
            t,
            message: "the problem's structure changed; restart required".into(),
            kind: StopKind::StructureChanged,
        }
    }
}

impl std::fmt::Display for IntegrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "integration stopped at t = {:.6e}: {}",
            self.t, self.message
        )
    }
}

/// Nordsieck l-vector of the order-k BDF (l1 = 1): coefficients of
/// Π_{i=1..k} (1 + x/i), divided by the x coefficient.
pub fn bdf_l(k: usize) -> Vec<f64> {
    let k = k.max(1);
    let mut c = vec![1.0];
    for i in 1..=k {
        let mut n = vec![0.0; c.len() + 1];
        for (j, v) in c.iter().enumerate() {
            n[j] += v;
            n[j + 1] += v / i as f64;
        }
        c = n;
    }
    let s = c[1];
    c.iter().map(|v| v / s).collect()
}

fn factorial(k: usize) -> f64 {
    (1..=k).map(|i| i as f64).product()
}

pub struct Gstiff<'a, P: DaeProblem> {
    problem: &'a mut P,
    params: BdfParams,
    n: usize,
    pub t: f64,
    pub h: f64,
    pub order: usize,
    z: Vec<Vec<f64>>,
    zsave: Vec<Vec<f64>>,
    l: Vec<Vec<f64>>,
    y: Vec<f64>,
    /// Error weights of the current step.
    wt: Vec<f64>,
    newton: Newton,
    yp: Vec<f64>,
    acor: Vec<f64>,
    acor_prev: Vec<f64>,
    err_mask: Vec<bool>,
    conv_mask: Vec<bool>,
    steps_at_order: usize,
    /// ADAPTIVITY's addition to the absolute tolerance at the current h.
    tol_extra: f64,
    /// Largest local error measure of the run (fixed-step MAXERR check).
    pub max_local_error: f64,
    /// Real Time Index of each fixed step (set by the caller).
    pub rti: Option<RtiMeter>,
    pub stats: Statistics,
    pub events: Vec<Event>,
}

impl<'a, P: DaeProblem> Gstiff<'a, P> {
    /// Start at (t0, y0, y0') with consistent initial values.
    pub fn new(problem: &'a mut P, params: BdfParams, t0: f64, y0: &[f64], yp0: &[f64]) -> Self {
        let n = problem.size();
        let kmax = params.kmax;
        let classes = problem.classes().to_vec();
        let err_mask = class_mask(&classes, &params.error_classes);
        let conv_mask = class_mask(&classes, &params.corrector_classes);
        let h = params.hinit;
        let mut z = vec![vec![0.0; n]; kmax + 2];
        z[0].copy_from_slice(y0);
        for i in 0..n {
            z[1][i] = h * yp0[i];
        }
        Gstiff {
            problem,
            n,
            t: t0,
            h,
            order: 1,
            zsave: z.clone(),
            z,
            l: (0..=kmax + 1).map(bdf_l).collect(),
            y: y0.to_vec(),
            wt: vec![0.0; n],
            newton: Newton::new(n),
            yp: yp0.to_vec(),
            acor: vec![0.0; n],
            acor_prev: vec![0.0; n],
            err_mask,
            conv_mask,
            steps_at_order: 0,
            tol_extra: 0.0,
            max_local_error: 0.0,
            rti: None,
            stats: Statistics {
                min_step: f64::INFINITY,
                ..Default::default()
            },
            events: Vec::new(),
            params,
        }
    }

    /// Replace the start-up history with exact derivatives
    /// `derivs[j] = y^(j)(t0)` for j = 0..=order and start at that order
    /// (used to measure the order of accuracy free of start-up error).
    pub fn set_exact_history(&mut self, derivs: &[Vec<f64>], order: usize) {
        let order = order.min(self.params.kmax);
        let mut f = 1.0;
        for (j, d) in derivs.iter().enumerate().take(order + 1) {
            if j > 0 {
                f *= self.h / j as f64;
            }
            for i in 0..self.n {
                self.z[j][i] = f * d[i];
            }
        }
        self.order = order;
    }

    /// Current solution y(t) and y'(t).
    pub fn y(&self) -> &[f64] {
        &self.y
    }
    pub fn yp(&self) -> &[f64] {
        &self.yp
    }
    /// The solution at the last accepted step (time `self.t`), valid also
    /// after a failed step attempt.
    pub fn accepted_y(&self) -> &[f64] {
        &self.z[0]
    }
    pub fn problem(&mut self) -> &mut P {
        self.problem
    }

    fn weight(&self, i: usize) -> f64 {
        self.params.error * self.z[0][i].abs().max(1.0) + self.tol_extra
    }

    /// ADAPTIVITY/h while h < 100·HMIN (seeds: ADAPTIVITY), else 0.
    fn update_tolerance_extra(&mut self) {
        let p = &self.params;
        self.tol_extra = if p.adaptivity > 0.0 && self.h < 100.0 * p.hmin {
            p.adaptivity / self.h
        } else {
            0.0
        };
    }

    fn rescale(&mut self, r: f64) {
        let mut f = 1.0;
        for j in 1..=self.order {
            f *= r;
            for v in self.z[j].iter_mut() {
                *v *= f;
            }
        }
        self.h *= r;
    }

    fn predict(&mut self) {
        for j in 0..=self.order {
            self.zsave[j].copy_from_slice(&self.z[j]);
        }
        let k = self.order;
        for j in 0..k {
            for i in (j..k).rev() {
                let (lo, hi) = self.z.split_at_mut(i + 1);
                for (a, b) in lo[i].iter_mut().zip(hi[0].iter()) {
                    *a += b;
                }
            }
        }
    }

    fn restore(&mut self) {
        for j in 0..=self.order {
            self.z[j].copy_from_slice(&self.zsave[j]);
        }
    }

    /// Newton iteration on the predicted state (the shared corrector).
    /// Ok(true) = converged.
    fn correct(&mut self) -> Result<bool, IntegrationError> {
        let tn = self.t + self.h;
        let c = 1.0 / (self.h * self.l[self.order][0]);
        let hinv = 1.0 / self.h;
        for i in 0..self.n {
            self.y[i] = self.z[0][i];
            self.yp[i] = self.z[1][i] * hinv;
            self.wt[i] = self.weight(i);
        }
        let step = Step {
            tn,
            h: self.h,
            c,
            maxit: self.params.maxit,
            pattern: &self.params.pattern,
            conv_mask: &self.conv_mask,
            weights: &self.wt,
        };
        self.newton.correct(
            self.problem,
            &step,
            &mut self.y,
            &mut self.yp,
            &mut self.acor,
            &mut self.stats,
            &mut self.events,
        )
    }

    /// Local error estimate for the current order, as a multiple of the tolerance.
    fn error_ratio(&self) -> (f64, usize) {
        let k = self.order;
        let f = factorial(k) * self.l[k][k] / (k as f64 + 1.0);
        let mut worst = (0.0, 0);
        for i in 0..self.n {
            if self.err_mask[i] {
                let e = (f * self.acor[i]).abs() / self.weight(i);
                if e > worst.0 {
                    worst = (e, i);
                }
            }
        }
        worst
    }

    fn norm_masked(&self, v: impl Fn(usize) -> f64) -> f64 {
        let mut m: f64 = 0.0;
        for i in 0..self.n {
            if self.err_mask[i] {
                m = m.max(v(i).abs() / self.weight(i));
            }
        }
        m
    }

    /// INTERPOLATE = ON: take steps (never shortened for output times)
    /// until t ≥ tout; `interpolate` then gives the solution at tout.
    pub fn advance_past(&mut self, tout: f64) -> Result<(), IntegrationError> {
        if self.t >= tout {
            return Ok(());
        }
        self.advance_until(tout, false)
    }

    /// The Nordsieck interpolant at `t` within the last step
    /// (t − h ≤ t ≤ self.t): y = Σ z_j s^j, y' = Σ j z_j s^(j−1) / h with
    /// s = (t − self.t)/h.
    pub fn interpolate(&self, t: f64, y: &mut [f64], yp: &mut [f64]) {
        let s = (t - self.t) / self.h;
        for i in 0..self.n {
            let (mut v, mut d, mut p) = (0.0, 0.0, 1.0);
            for j in 0..=self.order {
                v += self.z[j][i] * p;
                if j < self.order {
                    d += (j + 1) as f64 * self.z[j + 1][i] * p;
                }
                p *= s;
            }
            y[i] = v;
            yp[i] = d / self.h;
        }
    }

    /// Take steps until t = tout exactly.
    pub fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        if self.params.fixed.is_some() {
            return self.advance_fixed(tout);
        }
        self.advance_until(tout, true)
    }

    /// Steps until t reaches tout, landing on it exactly when `land`.
    fn advance_until(&mut self, tout: f64, land: bool) -> Result<(), IntegrationError> {
        let mut consecutive_failures = 0usize;
        let mut error_failures = 0usize;
        while self.t < tout {
            // Land exactly on the output time (INTERPOLATE = OFF).
            let remaining = tout - self.t;
            if self.params.constant_step {
                let target = if land && self.params.hmax * (1.0 + 1e-9) >= remaining {
                    remaining
                } else {
                    self.params.hmax
                };
                if target != self.h {
                    self.rescale(target / self.h);
                }
            }
            let mut r = 1.0;
            if self.h > self.params.hmax {
                r = self.params.hmax / self.h;
            }
            if land && (self.h * r > remaining || self.h * r * 1.05 >= remaining) {
                r = remaining / self.h;
            }
            if r != 1.0 && !self.params.constant_step {
                self.rescale(r);
                // (the order-raise count survives a landing rescale)
            }
            if self.h < self.params.hmin * (1.0 - 1e-12) && self.h < remaining * (1.0 - 1e-9) {
                return Err(IntegrationError::failure(
                    self.t,
                    format!(
                        "step size {:.3e} fell below HMIN = {:.3e} after repeated failures",
                        self.h, self.params.hmin
                    ),
                ));
            }
            self.update_tolerance_extra();
            self.predict();
            let converged = self.correct()?;
            if !converged {
                self.restore();
                self.stats.corrector_failures += 1;
                consecutive_failures += 1;
                self.newton.force_jacobian = true;
                if self.params.constant_step {
                    if consecutive_failures > 2 {
                        return Err(IntegrationError::failure(
                            self.t,
                            format!(
                                "CONSTANT_BDF: the corrector does not converge at the fixed step h = {:.3e} even with a fresh Jacobian; reduce HMAX",
                                self.h
                            ),
                        ));
                    }
                    continue;
                }
                // A reused Jacobian gets one retry at the same h with a
                // fresh one; a failure with a fresh Jacobian cuts the step.
                if !self.newton.jac_fresh && consecutive_failures <= 20 {
                    continue;
                }
                if consecutive_failures > 20 {
                    return Err(IntegrationError::failure(self.t, "repeated corrector failures; see the message log for the equation that dominates"));
                }
                self.rescale(0.25);
                self.steps_at_order = 0;
                continue;
            }
            let (err, worst) = self.error_ratio();
            if err > 1.0 && !self.params.constant_step {
                self.restore();
                self.stats.rejected_steps += 1;
                error_failures += 1;
                consecutive_failures += 1;
                self.events.push(Event::IntegrationFailure {
                    t: self.t + self.h,
                    h: self.h,
                    order: self.order,
                    error_ratio: err,
                    variable: self.problem.describe_variable(worst),
                });
                if consecutive_failures > 30 {
                    return Err(IntegrationError::failure(
                        self.t,
                        "too many consecutive integration failures",
                    ));
                }
                let mut r = (0.9 / err.powf(1.0 / (self.order as f64 + 1.0))).clamp(0.1, 0.9);
                if error_failures >= 3 {
                    self.order = 1;
                    r = 0.1;
                }
                self.rescale(r);
                self.steps_at_order = 0;
                continue;
            }
            // Accept: update the Nordsieck array with e = acor / l0.
            let k = self.order;
            let l0 = self.l[k][0];
            for j in 0..=k {
                let lj = self.l[k][j] / l0;
                for i in 0..self.n {
                    self.z[j][i] += lj * self.acor[i];
                }
            }
            self.t += self.h;
            self.stats.steps += 1;
            self.stats.min_step = self.stats.min_step.min(self.h);
            self.stats.max_step = self.stats.max_step.max(self.h);
            self.stats.max_order_used = self.stats.max_order_used.max(k);
            consecutive_failures = 0;
            error_failures = 0;
            self.steps_at_order += 1;
            if let Some(e) = self.newton.step_accepted(self.t) {
                self.events.push(e);
            }
            self.select_step_and_order(err);
            std::mem::swap(&mut self.acor, &mut self.acor_prev);
            if !self.problem.structure_holds(self.t, &self.y) {
                self.sync_stats();
                return Err(IntegrationError::structure_changed(self.t));
            }
        }
        // y, y' at t are those of the last corrected step.
        self.sync_stats();
        Ok(())
    }

    /// Fixed-step option (seeds: "Fixed Step Integrator Option"): order 1,
    /// h = HINIT (= DTOUT/HRATIO) throughout, exactly FIXIT corrector
    /// iterations per step with the PATTERN's Jacobian evaluations, no
    /// rejection and no restart; stops when the local error measure
    /// (relative to max(1, |y|)) exceeds MAXERR.
    fn advance_fixed(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let (iterations, maxerr) = match &self.params.fixed {
            Some(f) => (f.iterations, f.maxerr),
            None => unreachable!("advance_fixed without the fixed-step option"),
        };
        if self.order != 1 {
            for v in self.z[2..].iter_mut().flatten() {
                *v = 0.0;
            }
            self.order = 1;
        }
        while self.t < tout {
            let started = Instant::now();
            let remaining = tout - self.t;
            let target = if self.params.hinit * (1.0 + 1e-9) >= remaining {
                remaining
            } else {
                self.params.hinit
            };
            if target != self.h {
                self.rescale(target / self.h);
            }
            self.predict();
            if !self.correct_fixed(iterations)? {
                return Err(IntegrationError::failure(
                    self.t,
                    "the fixed-step corrector could not solve its linear system (singular matrix); restarts are not done with FIXIT",
                ));
            }
            let (_, worst) = self.error_ratio();
            let f = factorial(1) * self.l[1][1] / 2.0;
            let abs_err = (f * self.acor[worst]).abs() / self.z[0][worst].abs().max(1.0);
            self.max_local_error = self.max_local_error.max(abs_err);
            if abs_err > maxerr {
                return Err(IntegrationError::failure(
                    self.t + self.h,
                    format!(
                        "local error {abs_err:.3e} in {} exceeds MAXERR = {maxerr:e}",
                        self.problem.describe_variable(worst)
                    ),
                ));
            }
            let l0 = self.l[1][0];
            for j in 0..=1 {
                let lj = self.l[1][j] / l0;
                for i in 0..self.n {
                    self.z[j][i] += lj * self.acor[i];
                }
            }
            self.t += self.h;
            self.stats.steps += 1;
            self.stats.min_step = self.stats.min_step.min(self.h);
            self.stats.max_step = self.stats.max_step.max(self.h);
            self.stats.max_order_used = 1;
            if let Some(m) = &mut self.rti {
                m.record(self.t, started.elapsed());
            }
            if !self.problem.structure_holds(self.t, &self.y) {
                self.sync_stats();
                return Err(IntegrationError::structure_changed(self.t));
            }
        }
        self.sync_stats();
        Ok(())
    }

    /// Exactly `iterations` corrector iterations, the Jacobian evaluated
    /// where PATTERN says (and on the first iteration if none is valid).
    /// Ok(false) = singular matrix.
    fn correct_fixed(&mut self, iterations: usize) -> Result<bool, IntegrationError> {
        let tn = self.t + self.h;
        let c = 1.0 / (self.h * self.l[1][0]);
        let hinv = 1.0 / self.h;
        for i in 0..self.n {
            self.y[i] = self.z[0][i];
            self.yp[i] = self.z[1][i] * hinv;
            self.acor[i] = 0.0;
        }
        for it in 0..iterations {
            let want = self.params.pattern[it % self.params.pattern.len()]
                || !self.newton.jac_valid
                || (it == 0 && self.newton.jac_c != c);
            if want {
                self.newton
                    .evaluate_jacobian(self.problem, tn, &self.y, &self.yp, c, &mut self.stats)
                    .map_err(|e| IntegrationError::failure(tn, e.0))?;
                if !self
                    .newton
                    .factor(self.problem, tn, self.h, &mut self.events)
                {
                    return Ok(false);
                }
            }
            self.problem
                .residual(tn, &self.y, &self.yp, &mut self.newton.res)
                .map_err(|e| IntegrationError::failure(tn, e.0))?;
            self.stats.residual_evaluations += 1;
            self.stats.corrector_iterations += 1;
            for i in 0..self.n {
                self.newton.delta[i] = -self.newton.res[i];
            }
            if self.newton.lu.solve(&mut self.newton.delta).is_err() {
                self.newton.jac_valid = false;
                return Ok(false);
            }
            for i in 0..self.n {
                let d = self.newton.delta[i];
                self.y[i] += d;
                self.yp[i] += c * d;
                self.acor[i] += d;
            }
        }
        Ok(true)
    }

    /// CONSTANT_BDF: the order whose error estimate is smallest (largest
    /// sustainable step ratio) among k−1, k, k+1; the step stays.
    fn select_order_only(&mut self, err: f64) {
        let k = self.order;
        let kf = k as f64;
        let r_same = 1.0 / (1.2 * err.powf(1.0 / (kf + 1.0)) + 1e-6);
        let mut best = (r_same, k);
        if k > 1 {
            let f = self.l[k - 1][0] * factorial(k - 1);
            let ed = self.norm_masked(|i| f * self.z[k][i]);
            let r = 1.0 / (1.3 * ed.powf(1.0 / kf) + 1e-6);
            if r > best.0 {
                best = (r, k - 1);
            }
        }
        if k < self.params.kmax && self.steps_at_order > k {
            let l0 = self.l[k][0];
            let f = self.l[k + 1][0] / (kf + 2.0) * factorial(k) * self.l[k][k] / l0;
            let eu = self.norm_masked(|i| f * (self.acor[i] - self.acor_prev[i]));
            let r = 1.0 / (1.4 * eu.powf(1.0 / (kf + 2.0)) + 1e-6);
            if r > best.0 {
                best = (r, k + 1);
            }
        }
        let new_k = best.1;
        if new_k > k {
            let c = self.l[k][k] / (kf + 1.0) / self.l[k][0];
            for i in 0..self.n {
                self.z[k + 1][i] = c * self.acor[i];
            }
        } else if new_k < k {
            for v in self.z[k].iter_mut() {
                *v = 0.0;
            }
        }
        if new_k != k {
            self.order = new_k;
            self.steps_at_order = 0;
        }
    }

    /// Copy the linear solver's counters into the statistics.
    pub fn sync_stats(&mut self) {
        self.stats.factorizations = self.newton.lu.factorizations;
        self.stats.symbolic_factorizations = self.newton.lu.symbolic_factorizations;
    }

    fn select_step_and_order(&mut self, err: f64) {
        if self.params.constant_step {
            self.select_order_only(err);
            return;
        }
        let k = self.order;
        let kf = k as f64;
        // Step ratios each order could sustain (Gear/LSODE safety factors).
        let r_same = 1.0 / (1.2 * err.powf(1.0 / (kf + 1.0)) + 1e-6);
        let r_down = if k > 1 {
            let f = self.l[k - 1][0] * factorial(k - 1);
            let ed = self.norm_masked(|i| f * self.z[k][i]);
            Some(1.0 / (1.3 * ed.powf(1.0 / kf) + 1e-6))
        } else {
            None
        };
        let r_up = if k < self.params.kmax && self.steps_at_order > k {
            let l0 = self.l[k][0];
            let f = self.l[k + 1][0] / (kf + 2.0) * factorial(k) * self.l[k][k] / l0;
            let eu = self.norm_masked(|i| f * (self.acor[i] - self.acor_prev[i]));
            Some(1.0 / (1.4 * eu.powf(1.0 / (kf + 2.0)) + 1e-6))
        } else {
            None
        };
        // At the HMAX cap every order that can sustain HMAX takes the same
        // step, so prefer the highest such order: it is the most accurate
        // (seeds: HMAX keeps GSTIFF at constant step and high order).
        let cap = self.params.hmax / self.h;
        if self.h >= self.params.hmax * (1.0 - 1e-12) && r_same >= 1.0 {
            if let Some(r) = r_up.filter(|&r| r >= 1.0) {
                let c = self.l[k][k] / (kf + 1.0) / self.l[k][0];
                for i in 0..self.n {
                    self.z[k + 1][i] = c * self.acor[i];
                }
                self.order = k + 1;
                self.steps_at_order = 0;
                self.rescale(r.min(cap).max(1.0));
            }
            return;
        }
        let mut best = (r_same, k);
        if let Some(r) = r_down {
            if r > best.0 {
                best = (r, k - 1);
            }
        }
        if let Some(r) = r_up {
            if r > best.0 {
                best = (r, k + 1);
            }
        }
        let (mut r, new_k) = best;
        if new_k == k && (1.0..1.1).contains(&r) {
            return; // not worth a step change with fixed coefficients
        }
        r = r.min(2.0);
        if new_k > k {
            // New column z_{k+1} = l_k e / (k+1), e = acor / l0.
            let c = self.l[k][k] / (kf + 1.0) / self.l[k][0];
            for i in 0..self.n {
                self.z[k + 1][i] = c * self.acor[i];
            }
        }
        if new_k < k {
            for v in self.z[k].iter_mut() {
                *v = 0.0;
            }
        }
        self.order = new_k;
        self.steps_at_order = 0;
        self.rescale(r.max(0.2));
    }
}

impl<P: DaeProblem> DaeIntegrator for Gstiff<'_, P> {
    fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        Gstiff::advance_to(self, tout)
    }
    fn time(&self) -> f64 {
        self.t
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.y, &self.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.z[0]
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
    fn advance_past(&mut self, tout: f64) -> Result<(), IntegrationError> {
        Gstiff::advance_past(self, tout)
    }
    fn use_corrector_classes(&mut self, classes: &[VarClass], steps: usize) -> bool {
        let e = self
            .newton
            .use_temporarily(self.problem.classes(), classes, steps, self.t);
        self.events.push(e);
        true
    }
    fn interpolate(&self, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        Gstiff::interpolate(self, t, y, yp);
        true
    }
    fn max_local_error(&self) -> f64 {
        self.max_local_error
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::ProblemError;
    use crate::sparse::SlotAssembler;

    /// y1' = y2, y2' = −y1 written as G = y' − f(y) (smooth, non-stiff).
    struct Oscillator {
        classes: Vec<VarClass>,
    }
    impl DaeProblem for Oscillator {
        fn size(&self) -> usize {
            2
        }
        fn classes(&self) -> &[VarClass] {
            &self.classes
        }
        fn residual(
            &mut self,
            _t: f64,
            y: &[f64],
            yp: &[f64],
            out: &mut [f64],
        ) -> Result<(), ProblemError> {
            out[0] = yp[0] - y[1];
            out[1] = yp[1] + y[0];
            Ok(())
        }
        fn jacobian(
            &mut self,
            _t: f64,
            _y: &[f64],
            _yp: &[f64],
            c: f64,
            a: &mut SlotAssembler,
        ) -> Result<(), ProblemError> {
            a.add(0, 0, c);
            a.add(0, 1, -1.0);
            a.add(1, 0, 1.0);
            a.add(1, 1, c);
            Ok(())
        }
        fn describe_variable(&self, i: usize) -> String {
            format!("y{i}")
        }
        fn describe_equation(&self, i: usize) -> String {
            format!("eq{i}")
        }
    }

    fn global_error(k: usize, h: f64) -> f64 {
        let mut p = Oscillator {
            classes: vec![VarClass::Displacement; 2],
        };
        let params = BdfParams {
            error: 1e3, // never binding: HMAX fixes the step
            hmax: h,
            hmin: 1e-12,
            hinit: h,
            kmax: k,
            maxit: 10,
            pattern: vec![true],
            error_classes: vec![VarClass::Displacement],
            corrector_classes: vec![VarClass::Displacement],
            adaptivity: 0.0,
            fixed: None,
            constant_step: false,
            interpolate: false,
        };
        let mut g = Gstiff::new(&mut p, params, 0.0, &[1.0, 0.0], &[0.0, -1.0]);
        // y = (cos t, −sin t): derivatives cycle through (c, −s), (−s, −c), …
        let d: Vec<Vec<f64>> = (0..=k)
            .map(|j| match j % 4 {
                0 => vec![1.0, 0.0],
                1 => vec![0.0, -1.0],
                2 => vec![-1.0, 0.0],
                _ => vec![0.0, 1.0],
            })
            .collect();
        g.set_exact_history(&d, k);
        let tend = 2.0;
        g.advance_to(tend).unwrap();
        assert_eq!(g.order, k, "order must stay at KMAX");
        let y = g.y();
        ((y[0] - tend.cos()).powi(2) + (y[1] + tend.sin()).powi(2)).sqrt()
    }

    /// Observed order on a smooth problem with KMAX = k and fixed steps:
    /// log2(e(h)/e(h/2)) within 0.25 of k for k = 1..5.
    #[test]
    fn observed_order_matches_kmax() {
        for k in 1..=5 {
            let h = match k {
                1 | 2 => 0.01,
                _ => 0.04,
            };
            let (e1, e2) = (global_error(k, h), global_error(k, h / 2.0));
            let slope = (e1 / e2).log2();
            println!("KMAX = {k}: error {e1:.3e} -> {e2:.3e}, observed order {slope:.3}");
            assert!(
                (slope - k as f64).abs() < 0.25,
                "KMAX = {k}: observed order {slope}"
            );
        }
    }

    /// ADAPTIVITY adds ADAPTIVITY/h to the tolerance only while h < 100·HMIN.
    /// On the oscillator at ERROR = 1e-12 with HMIN = 1e-5, HMAX = 1e-3
    /// (every step below the 1e-3 threshold) the start-up needs steps under
    /// HMIN, so the run fails without ADAPTIVITY and completes with
    /// ADAPTIVITY = 1e-12; with HMIN = 1e-9 (threshold 1e-7, below every
    /// step) ADAPTIVITY changes nothing.
    #[test]
    fn adaptivity_relaxes_the_tolerance_below_100_hmin() {
        let run = |error: f64, hmin: f64, hmax: f64, adaptivity: f64| {
            let mut p = Oscillator {
                classes: vec![VarClass::Displacement; 2],
            };
            let params = BdfParams {
                error,
                hmax,
                hmin,
                hinit: 1e-5,
                kmax: 6,
                maxit: 10,
                pattern: vec![true],
                error_classes: vec![VarClass::Displacement],
                corrector_classes: vec![VarClass::Displacement],
                adaptivity,
                fixed: None,
                constant_step: false,
                interpolate: false,
            };
            let mut g = Gstiff::new(&mut p, params, 0.0, &[1.0, 0.0], &[0.0, -1.0]);
            g.advance_to(1.0).map(|_| g.stats.steps)
        };
        let off = run(1e-12, 1e-5, 1e-3, 0.0);
        let on = run(1e-12, 1e-5, 1e-3, 1e-12);
        let (off_small, on_small) = (run(1e-10, 1e-9, 0.1, 0.0), run(1e-10, 1e-9, 0.1, 1e-12));
        println!("HMIN 1e-5: without ADAPTIVITY {off:?}, with {on:?}; HMIN 1e-9: {off_small:?}, {on_small:?}");
        assert!(off.unwrap_err().message.contains("fell below HMIN"));
        assert!(on.is_ok());
        assert_eq!(off_small.unwrap(), on_small.unwrap());
    }

    /// y0' + y0 = 0 with two copies of the same algebraic equation
    /// (y1 + y2 = 1 and 2y1 + 2y2 = 2): the iteration matrix is singular and
    /// the event names the dependent equation and unknown.
    struct Duplicated {
        classes: Vec<VarClass>,
    }
    impl DaeProblem for Duplicated {
        fn size(&self) -> usize {
            3
        }
        fn classes(&self) -> &[VarClass] {
            &self.classes
        }
        fn residual(
            &mut self,
            _t: f64,
            y: &[f64],
            yp: &[f64],
            out: &mut [f64],
        ) -> Result<(), ProblemError> {
            out[0] = yp[0] + y[0];
            out[1] = y[1] + y[2] - 1.0;
            out[2] = 2.0 * y[1] + 2.0 * y[2] - 2.0;
            Ok(())
        }
        fn jacobian(
            &mut self,
            _t: f64,
            _y: &[f64],
            _yp: &[f64],
            c: f64,
            a: &mut SlotAssembler,
        ) -> Result<(), ProblemError> {
            a.add(0, 0, c + 1.0);
            a.add(1, 1, 1.0);
            a.add(1, 2, 1.0);
            a.add(2, 1, 2.0);
            a.add(2, 2, 2.0);
            Ok(())
        }
        fn describe_variable(&self, i: usize) -> String {
            format!("y{i}")
        }
        fn describe_equation(&self, i: usize) -> String {
            format!("eq{i}")
        }
    }

    #[test]
    fn singular_matrix_names_the_dependent_equation() {
        let mut p = Duplicated {
            classes: vec![VarClass::Displacement; 3],
        };
        let params = BdfParams {
            error: 1e-3,
            hmax: 0.1,
            hmin: 1e-6,
            hinit: 1e-2,
            kmax: 6,
            maxit: 10,
            pattern: vec![true],
            error_classes: vec![VarClass::Displacement],
            corrector_classes: vec![VarClass::Displacement],
            adaptivity: 0.0,
            fixed: None,
            constant_step: false,
            interpolate: false,
        };
        let mut g = Gstiff::new(&mut p, params, 0.0, &[1.0, 0.5, 0.5], &[-1.0, 0.0, 0.0]);
        assert!(g.advance_to(1.0).is_err());
        let text = g
            .events
            .iter()
            .find(|e| matches!(e, Event::SingularMatrix { .. }))
            .map(|e| e.to_string())
            .expect("a singular-matrix event");
        assert!(
            text.ends_with("unknown y2 (equation eq2 depends on the equations before it)"),
            "{text}"
        );
    }

    #[test]
    fn l_vectors_match_gear() {
        let l2 = bdf_l(2);
        assert!((l2[0] - 2.0 / 3.0).abs() < 1e-15 && (l2[2] - 1.0 / 3.0).abs() < 1e-15);
        let l3 = bdf_l(3);
        assert!((l3[0] - 6.0 / 11.0).abs() < 1e-15 && (l3[3] - 1.0 / 11.0).abs() < 1e-15);
        let l6 = bdf_l(6);
        assert!((l6[0] - 20.0 / 49.0).abs() < 1e-15 && (l6[6] - 1.0 / 1764.0).abs() < 1e-15);
    }
}
