//! HHT (Hilber–Hughes–Taylor α-method) and Newmark β-γ integrators for the
//! index-3 second-order DAE
//!
//!   R(q, u, a, λ, t) = M(q) a + F(q, u, λ, t) = 0,   Φ(q, t) = 0,   u = q̇, a = q̈,
//!
//! Seeds: "The HHT and Newmark Integrators" (eqs. 38–55), "Remarks", "Error
//! control of HHT and Newmark integrators". The unknowns of a step are the
//! accelerations a and the multipliers λ at t_{n+1}; positions and velocities
//! follow from the Newmark formulas (38), (39):
//!
//!   q_{n+1} = q_n + h u_n + h² ((1/2 − β) a_n + β a_{n+1})
//!   u_{n+1} = u_n + h ((1 − γ) a_n + γ a_{n+1}).
//!
//! The HHT discretization (47), scaled by 1/(1+α) (48), is
//!
//!   (1/(1+α)) M a_{n+1} + F_{n+1} − (α/(1+α)) F_n = 0,
//!
//! written here as R(q, u, a/(1+α), λ) − (α/(1+α)) F_n since R is linear in
//! a; F_n = R(q_n, u_n, 0, λ_n, t_n) is kept from the accepted step. The
//! position constraints are scaled by 1/(βh²) (53), so the iteration matrix
//!
//!   [ M/(1+α) + βh² ∂R/∂q + γh ∂R/∂u    Φ_qᵀ ]
//!   [ Φ_q                                0   ]
//!
//! holds step-size-multiplied terms only (Remarks 1–2): it stays well
//! conditioned as h → 0 and a factorization survives several steps while h
//! changes moderately. NEWMARK is the same with α = 0 and free β, γ.
//!
//! Local error (seeds: error control on accelerations of body equations):
//! the Newmark position formula has truncation error (β − 1/6) h³ q⃛ and the
//! velocity formula (γ − 1/2 + α) h² q⃛ (zero for HHT's γ = 1/2 − α, the
//! second-order condition); with q⃛ ≈ (a_{n+1} − a_n)/h both are estimated
//! from the acceleration change and measured in displacement units,
//!
//!   e_i = (|β − 1/6| + |γ − 1/2 + α|) h² |a_{n+1,i} − a_{n,i}|,
//!
//! against ERROR·max(1, |q_i|) (+ ADAPTIVITY/h when h < 100·HMIN), max norm.

use crate::events::{Event, Statistics};
use crate::gstiff::IntegrationError;
use crate::problem::ProblemError;
use crate::rti::RtiMeter;
use crate::sparse::{SlotAssembler, SparseLu};
use std::time::Instant;

/// A second-order index-3 system: n coordinates q (with u = q̇, a = q̈) and
/// m algebraic rows with multipliers λ.
pub trait SecondOrderProblem {
    /// Number of coordinates n.
    fn nq(&self) -> usize;
    /// Number of algebraic rows (multipliers) m.
    fn nm(&self) -> usize;
    /// R(q, u, a, λ, t) = M(q) a + F(q, u, λ, t) into `out` (length n); R must
    /// be linear in a.
    fn body_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError>;
    /// `scale`·Φ(q, t) into `out` (length m). A row that only pins its
    /// multiplier (e.g. a deactivated redundant equation) gives λ_k, unscaled.
    fn constraint_residual(
        &mut self,
        t: f64,
        q: &[f64],
        lam: &[f64],
        scale: f64,
        out: &mut [f64],
    ) -> Result<(), ProblemError>;
    /// Iteration matrix into `asm` (the caller brackets it with begin/finish),
    /// the same (row, col) sequence on every call:
    /// rows 0..n: cq ∂R/∂q + cu ∂R/∂u + ca ∂R/∂a in columns 0..n and ∂R/∂λ in
    /// columns n..n+m; rows n..n+m: ∂Φ/∂q in columns 0..n, and 1 at (n+k, n+k)
    /// for rows that pin their multiplier.
    #[allow(clippy::too_many_arguments)]
    fn jacobian(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        cq: f64,
        cu: f64,
        ca: f64,
        asm: &mut SlotAssembler,
    ) -> Result<(), ProblemError>;
    /// Absolute tolerance the unscaled Φ must meet when the corrector
    /// converges (infinite = no extra test).
    fn constraint_tolerance(&self) -> f64 {
        f64::INFINITY
    }
    /// Called with each accepted position vector q(t). Return false when the
    /// problem's structure no longer fits it (see `DaeProblem::structure_holds`).
    fn structure_holds(&mut self, _t: f64, _q: &[f64]) -> bool {
        true
    }
    /// Name of coordinate i ("PART/2 x").
    fn describe_coordinate(&self, i: usize) -> String;
    /// Name of equation i: body equation for i < n, algebraic row i − n.
    fn describe_equation(&self, i: usize) -> String;
}

/// Fixed-step option (seeds: "Fixed Step Integrator Option"): constant h,
/// exactly `iterations` corrector iterations per step, no error rejection.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedStep {
    pub iterations: usize,
    /// Stop when the local error measure exceeds this (infinite = never).
    pub maxerr: f64,
}

/// Validated HHT / Newmark parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct HhtParams {
    /// α ∈ [−1/3, 0] (0 for NEWMARK).
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub error: f64,
    pub hmax: f64,
    pub hmin: f64,
    pub hinit: f64,
    pub maxit: usize,
    /// Jacobian re-evaluation over corrector iterations; all false = adaptive
    /// (re-evaluate only when the convergence rate predicts failure).
    pub pattern: Vec<bool>,
    /// CORRECTOR = ORIGINAL: multiplier corrections must converge too;
    /// MODIFIED: ignore their fluctuations.
    pub converge_multipliers: bool,
    /// Added to the tolerance as ADAPTIVITY/h when h < 100·HMIN; 0 = off.
    pub adaptivity: f64,
    pub fixed: Option<FixedStep>,
}

impl HhtParams {
    /// HHT with β = (1−α)²/4, γ = 1/2 − α and otherwise neutral settings
    /// (tests and the API; the solver validates user input).
    pub fn hht(alpha: f64, error: f64, hmax: f64) -> Self {
        HhtParams {
            alpha,
            beta: (1.0 - alpha) * (1.0 - alpha) / 4.0,
            gamma: 0.5 - alpha,
            error,
            hmax,
            hmin: f64::EPSILON,
            hinit: hmax,
            maxit: 10,
            pattern: vec![false],
            converge_multipliers: true,
            adaptivity: 0.0,
            fixed: None,
        }
    }
    /// NEWMARK with the given β, γ.
    pub fn newmark(beta: f64, gamma: f64, error: f64, hmax: f64) -> Self {
        HhtParams {
            alpha: 0.0,
            beta,
            gamma,
            ..Self::hht(0.0, error, hmax)
        }
    }
    /// Order of accuracy: 2 when γ = 1/2 − α (HHT, trapezoidal Newmark), else 1.
    pub fn order(&self) -> usize {
        if (self.gamma - 0.5 + self.alpha).abs() < 1e-12 {
            2
        } else {
            1
        }
    }
    fn error_constant(&self) -> f64 {
        (self.beta - 1.0 / 6.0).abs() + (self.gamma - 0.5 + self.alpha).abs()
    }
}

/// Corrector outcome.
enum Corrector {
    Converged,
    Failed,
}

pub struct Hht<'a, P: SecondOrderProblem> {
    problem: &'a mut P,
    params: HhtParams,
    n: usize,
    m: usize,
    pub t: f64,
    /// Step size to try next (before clipping to HMAX and output times).
    pub h: f64,
    q: Vec<f64>,
    u: Vec<f64>,
    a: Vec<f64>,
    lam: Vec<f64>,
    /// F_n = R(q_n, u_n, 0, λ_n, t_n).
    f_prev: Vec<f64>,
    /// a, λ and h of the step before (predictor); h_prev = 0: none yet.
    a_prev: Vec<f64>,
    lam_prev: Vec<f64>,
    h_prev: f64,
    qt: Vec<f64>,
    ut: Vec<f64>,
    at: Vec<f64>,
    lamt: Vec<f64>,
    a_arg: Vec<f64>,
    zeros: Vec<f64>,
    res: Vec<f64>,
    delta: Vec<f64>,
    jac: SlotAssembler,
    lu: SparseLu,
    jac_valid: bool,
    force_jacobian: bool,
    /// Jacobian evaluated during the current step attempt.
    jac_fresh: bool,
    last_rate: f64,
    /// Largest local error measure of the run (fixed-step MAXERR check).
    pub max_local_error: f64,
    /// Real Time Index of each fixed step (set by the caller, who knows
    /// the step in seconds).
    pub rti: Option<RtiMeter>,
    pub stats: Statistics,
    pub events: Vec<Event>,
}

impl<'a, P: SecondOrderProblem> Hht<'a, P> {
    /// Start at t0 from a consistent state: Φ(q0) = 0, Φ_q u0 = −Φ_t, and
    /// (a0, λ0) solving the equations of motion with the acceleration
    /// constraints.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        problem: &'a mut P,
        params: HhtParams,
        t0: f64,
        q0: &[f64],
        u0: &[f64],
        a0: &[f64],
        lam0: &[f64],
    ) -> Result<Self, IntegrationError> {
        let (n, m) = (problem.nq(), problem.nm());
        let mut s = Hht {
            problem,
            n,
            m,
            t: t0,
            h: params.hinit,
            q: q0.to_vec(),
            u: u0.to_vec(),
            a: a0.to_vec(),
            lam: lam0.to_vec(),
            f_prev: vec![0.0; n],
            a_prev: vec![0.0; n],
            lam_prev: vec![0.0; m],
            h_prev: 0.0,
            qt: q0.to_vec(),
            ut: u0.to_vec(),
            at: a0.to_vec(),
            lamt: lam0.to_vec(),
            a_arg: vec![0.0; n],
            zeros: vec![0.0; n],
            res: vec![0.0; n + m],
            delta: vec![0.0; n + m],
            jac: SlotAssembler::new(n + m),
            lu: SparseLu::new(),
            jac_valid: false,
            force_jacobian: true,
            jac_fresh: false,
            last_rate: 0.5,
            max_local_error: 0.0,
            rti: None,
            stats: Statistics {
                min_step: f64::INFINITY,
                ..Default::default()
            },
            events: Vec::new(),
            params,
        };
        s.problem
            .body_residual(t0, q0, u0, &s.zeros, lam0, &mut s.f_prev)
            .map_err(|e| IntegrationError::failure(t0, e.0))?;
        s.stats.residual_evaluations += 1;
        Ok(s)
    }

    pub fn q(&self) -> &[f64] {
        &self.q
    }
    pub fn u(&self) -> &[f64] {
        &self.u
    }
    pub fn a(&self) -> &[f64] {
        &self.a
    }
    pub fn lambda(&self) -> &[f64] {
        &self.lam
    }
    pub fn params(&self) -> &HhtParams {
        &self.params
    }

    /// Copy the linear solver's counters into the statistics.
    pub fn sync_stats(&mut self) {
        self.stats.factorizations = self.lu.factorizations;
        self.stats.symbolic_factorizations = self.lu.symbolic_factorizations;
    }

    /// Trial q, u from the Newmark formulas with the trial accelerations.
    fn newmark_update(&mut self, h: f64) {
        let (b, g) = (self.params.beta, self.params.gamma);
        let h2 = h * h;
        for i in 0..self.n {
            self.qt[i] = self.q[i] + h * self.u[i] + h2 * ((0.5 - b) * self.a[i] + b * self.at[i]);
            self.ut[i] = self.u[i] + h * ((1.0 - g) * self.a[i] + g * self.at[i]);
        }
    }

    /// Predictor: a and λ extrapolated linearly from the last two accepted
    /// steps (constant on the first step); q and u from the Newmark formulas.
    fn predict(&mut self, h: f64) {
        if self.h_prev > 0.0 {
            let r = h / self.h_prev;
            for i in 0..self.n {
                self.at[i] = self.a[i] + r * (self.a[i] - self.a_prev[i]);
            }
            for k in 0..self.m {
                self.lamt[k] = self.lam[k] + r * (self.lam[k] - self.lam_prev[k]);
            }
        } else {
            self.at.copy_from_slice(&self.a);
            self.lamt.copy_from_slice(&self.lam);
        }
        self.newmark_update(h);
    }

    /// Discretized equations (48) and (53) at the trial state.
    fn residual(&mut self, tn: f64, h: f64) -> Result<(), ProblemError> {
        let n = self.n;
        let ca = 1.0 / (1.0 + self.params.alpha);
        for i in 0..n {
            self.a_arg[i] = ca * self.at[i];
        }
        let (body, cons) = self.res.split_at_mut(n);
        self.problem
            .body_residual(tn, &self.qt, &self.ut, &self.a_arg, &self.lamt, body)?;
        let cf = self.params.alpha / (1.0 + self.params.alpha);
        for i in 0..n {
            body[i] -= cf * self.f_prev[i];
        }
        let scale = 1.0 / (self.params.beta * h * h);
        self.problem
            .constraint_residual(tn, &self.qt, &self.lamt, scale, cons)?;
        self.stats.residual_evaluations += 1;
        if let Some(i) = self.res.iter().position(|v| !v.is_finite()) {
            return Err(ProblemError(format!(
                "non-finite residual in {}",
                self.problem.describe_equation(i)
            )));
        }
        Ok(())
    }

    fn evaluate_jacobian(&mut self, tn: f64, h: f64) -> Result<bool, ProblemError> {
        let ca = 1.0 / (1.0 + self.params.alpha);
        for i in 0..self.n {
            self.a_arg[i] = ca * self.at[i];
        }
        let (cq, cu) = (self.params.beta * h * h, self.params.gamma * h);
        loop {
            self.jac.begin();
            self.problem.jacobian(
                tn,
                &self.qt,
                &self.ut,
                &self.a_arg,
                &self.lamt,
                cq,
                cu,
                ca,
                &mut self.jac,
            )?;
            if self.jac.finish() {
                break;
            }
        }
        self.stats.jacobian_evaluations += 1;
        self.force_jacobian = false;
        self.jac_fresh = true;
        match self.lu.factor(&self.jac) {
            Ok(refactored) => {
                if refactored {
                    self.events.push(Event::SymbolicRefactorization { t: tn });
                }
                self.jac_valid = true;
                Ok(true)
            }
            Err(_) => {
                self.jac_valid = false;
                let variable = self.diagnose_singular(None);
                self.events
                    .push(Event::SingularMatrix { t: tn, h, variable });
                Ok(false)
            }
        }
    }

    fn weight_q(&self, i: usize) -> f64 {
        self.params.error * self.qt[i].abs().max(1.0)
    }
    fn weight_u(&self, i: usize) -> f64 {
        self.params.error * self.ut[i].abs().max(1.0)
    }
    fn weight_lam(&self, k: usize) -> f64 {
        self.params.error * self.lamt[k].abs().max(1.0)
    }

    /// Apply the correction in `delta`; returns its weighted norms over the
    /// displacements and velocities it implies, and over the multipliers
    /// (zero with MODIFIED), and the index of the largest term.
    fn apply_correction(&mut self, h: f64) -> (f64, f64, usize) {
        let n = self.n;
        let (cq, cu) = (self.params.beta * h * h, self.params.gamma * h);
        let (mut nqu, mut nlam, mut worst) = (0.0f64, 0.0f64, 0usize);
        for i in 0..n {
            let d = self.delta[i];
            self.at[i] += d;
            self.qt[i] += cq * d;
            self.ut[i] += cu * d;
            let e = ((cq * d).abs() / self.weight_q(i)).max((cu * d).abs() / self.weight_u(i));
            if e > nqu {
                nqu = e;
                worst = i;
            }
        }
        for k in 0..self.m {
            let d = self.delta[n + k];
            self.lamt[k] += d;
            if self.params.converge_multipliers {
                let e = d.abs() / self.weight_lam(k);
                if e > nlam {
                    nlam = e;
                    if nlam > nqu {
                        worst = n + k;
                    }
                }
            }
        }
        (nqu, nlam, worst)
    }

    /// Largest unscaled constraint residual of the last residual evaluation.
    fn constraint_violation(&self, h: f64) -> f64 {
        let s = self.params.beta * h * h;
        self.res[self.n..]
            .iter()
            .fold(0.0f64, |acc, v| acc.max((v * s).abs()))
    }

    /// Quasi-Newton iteration for (a, λ) at t + h from the predictor.
    fn correct(&mut self, h: f64) -> Result<Corrector, IntegrationError> {
        let tn = self.t + h;
        let perr = |e: ProblemError| IntegrationError::failure(tn, e.0);
        self.jac_fresh = false;
        let adaptive = self.params.pattern.iter().all(|p| !p);
        let maxit = match &self.params.fixed {
            Some(f) => f.iterations,
            None => self.params.maxit,
        };
        let tol = self.problem.constraint_tolerance();
        let mut rate = self.last_rate;
        let mut prev_norm = 0.0f64;
        let (mut prev_qu, mut prev_lam) = (0.0f64, 0.0f64);
        let mut it = 0usize;
        let mut worst_var = 0usize;
        while it < maxit {
            let want = if adaptive {
                self.force_jacobian || !self.jac_valid
            } else {
                self.params.pattern[it % self.params.pattern.len()]
                    || self.force_jacobian
                    || !self.jac_valid
            };
            if want && !self.evaluate_jacobian(tn, h).map_err(perr)? {
                return Ok(Corrector::Failed);
            }
            self.residual(tn, h).map_err(perr)?;
            self.stats.corrector_iterations += 1;
            for i in 0..self.n + self.m {
                self.delta[i] = -self.res[i];
            }
            if let Err(s) = self.lu.solve(&mut self.delta) {
                self.jac_valid = false;
                let variable = self.diagnose_singular(Some(s.row));
                self.events
                    .push(Event::SingularMatrix { t: tn, h, variable });
                return Ok(Corrector::Failed);
            }
            let violation = self.constraint_violation(h);
            let (norm_qu, norm_lam, var) = self.apply_correction(h);
            let norm = norm_qu.max(norm_lam);
            worst_var = var;
            if self.params.fixed.is_some() {
                it += 1;
                continue; // fixed amount of work: no convergence test
            }
            let (mut rate_qu, mut rate_lam) = (rate, rate);
            if it > 0 {
                rate = (0.2 * rate).max(norm / prev_norm.max(1e-300));
                rate_qu = norm_qu / prev_qu.max(1e-300);
                rate_lam = norm_lam / prev_lam.max(1e-300);
            }
            let converged = |x: f64, r: f64| x * (1.5 * r).min(1.0) <= 0.1 || x <= 1e-3;
            // At tiny steps the scaled constraints Φ/(βh²) carry the
            // round-off of Φ amplified by 1/h², and the multiplier
            // corrections stall at that floor: with converged displacements
            // and velocities and Φ within tolerance, a multiplier correction
            // that no longer shrinks is noise (with a reused Jacobian only if
            // it does not shrink at all; slow progress means a stale matrix).
            let stall = if self.jac_fresh { 0.5 } else { 0.9 };
            let noise_floor = it > 0 && converged(norm_qu, rate_qu) && rate_lam >= stall;
            if (converged(norm, rate) || noise_floor) && violation <= tol {
                self.last_rate = rate;
                return Ok(Corrector::Converged);
            }
            (prev_qu, prev_lam) = (norm_qu, norm_lam);
            // Adaptive Jacobian (PATTERN = F): a reused matrix whose
            // convergence rate predicts failure within MAXIT is replaced, and
            // the iteration continues with a fresh count.
            if adaptive && it > 0 && !self.jac_fresh {
                let left = (maxit - 1 - it) as i32;
                let predicted = norm * rate.powi(left.max(0)) * (1.5 * rate).min(1.0);
                if rate >= 1.0 || predicted > 0.1 {
                    self.force_jacobian = true;
                    if rate >= 1.0 {
                        self.predict(h);
                    }
                    it = 0;
                    prev_norm = 0.0;
                    rate = self.last_rate;
                    continue;
                }
            }
            if it >= 2 && rate > 2.0 {
                break;
            }
            prev_norm = norm;
            it += 1;
        }
        if self.params.fixed.is_some() {
            return Ok(Corrector::Converged);
        }
        self.residual(tn, h).map_err(perr)?;
        let eq = (0..self.n + self.m)
            .max_by(|&x, &y| self.res[x].abs().total_cmp(&self.res[y].abs()))
            .unwrap_or(0);
        let variable = if worst_var < self.n {
            format!(
                "{} acceleration",
                self.problem.describe_coordinate(worst_var)
            )
        } else {
            format!(
                "multiplier of {}",
                self.problem.describe_equation(worst_var)
            )
        };
        self.events.push(Event::CorrectorFailure {
            t: tn,
            h,
            iterations: maxit,
            equation: self.problem.describe_equation(eq),
            variable,
        });
        Ok(Corrector::Failed)
    }

    /// Local error of the corrected step as a multiple of the tolerance,
    /// the coordinate where it is largest, and the largest error relative to
    /// max(1, |q_i|) (for MAXERR).
    fn error_ratio(&self, h: f64) -> (f64, usize, f64) {
        let c = self.params.error_constant() * h * h;
        let extra = if self.params.adaptivity > 0.0 && h < 100.0 * self.params.hmin {
            self.params.adaptivity / h
        } else {
            0.0
        };
        let mut worst = (0.0f64, 0usize, 0.0f64);
        for i in 0..self.n {
            let e = c * (self.at[i] - self.a[i]).abs();
            let scale = self.qt[i].abs().max(1.0);
            let r = e / (self.params.error * scale + extra);
            if r > worst.0 {
                worst.0 = r;
                worst.1 = i;
            }
            worst.2 = worst.2.max(e / scale);
        }
        worst
    }

    /// Name of unknown i: accelerations, then multipliers.
    fn unknown_name(&self, i: usize) -> String {
        if i < self.n {
            format!("{} acceleration", self.problem.describe_coordinate(i))
        } else {
            format!("multiplier of {}", self.problem.describe_equation(i))
        }
    }

    /// As GSTIFF's: the first dependent equation and unknown of the
    /// singular iteration matrix, else the unknown that came out non-finite.
    fn diagnose_singular(&self, nonfinite: Option<usize>) -> String {
        self.jac.describe_singular(
            nonfinite,
            |r| self.problem.describe_equation(r),
            |c| self.unknown_name(c),
        )
    }

    /// Make the trial state the accepted state at t + h.
    fn accept(&mut self, h: f64, land: Option<f64>) -> Result<(), IntegrationError> {
        let tn = land.unwrap_or(self.t + h);
        std::mem::swap(&mut self.q, &mut self.qt);
        std::mem::swap(&mut self.u, &mut self.ut);
        std::mem::swap(&mut self.a, &mut self.at);
        std::mem::swap(&mut self.lam, &mut self.lamt);
        self.a_prev.copy_from_slice(&self.at);
        self.lam_prev.copy_from_slice(&self.lamt);
        self.h_prev = h;
        self.problem
            .body_residual(
                tn,
                &self.q,
                &self.u,
                &self.zeros,
                &self.lam,
                &mut self.f_prev,
            )
            .map_err(|e| IntegrationError::failure(tn, e.0))?;
        self.stats.residual_evaluations += 1;
        self.t = tn;
        self.stats.steps += 1;
        self.stats.min_step = self.stats.min_step.min(h);
        self.stats.max_step = self.stats.max_step.max(h);
        self.stats.max_order_used = self.params.order();
        if !self.problem.structure_holds(tn, &self.q) {
            self.sync_stats();
            return Err(IntegrationError::structure_changed(tn));
        }
        Ok(())
    }

    /// Take steps until t = tout exactly (INTERPOLATE = OFF).
    pub fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        if self.params.fixed.is_some() {
            return self.advance_fixed(tout);
        }
        let mut consecutive_failures = 0usize;
        let mut rejected_last = false;
        while self.t < tout {
            let remaining = tout - self.t;
            let natural = self.h.min(self.params.hmax);
            // Land on the output time; two steps short of it, split the rest
            // evenly rather than leave a sliver (HHT accelerations follow
            // abrupt step changes poorly).
            let (h, land) = if natural * 1.05 >= remaining {
                (remaining, Some(tout))
            } else if natural * 2.0 > remaining {
                (0.5 * remaining, None)
            } else {
                (natural, None)
            };
            let shortened = h < natural;
            if natural < self.params.hmin * (1.0 - 1e-12) && h < remaining {
                return Err(IntegrationError::failure(
                    self.t,
                    format!(
                        "step size {:.3e} fell below HMIN = {:.3e} after repeated failures",
                        natural, self.params.hmin
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
            self.predict(h);
            match self.correct(h)? {
                Corrector::Converged => {}
                Corrector::Failed => {
                    self.stats.corrector_failures += 1;
                    consecutive_failures += 1;
                    if consecutive_failures > 20 {
                        return Err(IntegrationError::failure(self.t, "repeated corrector failures; see the message log for the equation that dominates"));
                    }
                    // A reused Jacobian gets one retry at the same h with a
                    // fresh one; a fresh Jacobian that fails cuts the step.
                    if self.jac_fresh {
                        self.h = h * 0.25;
                    }
                    self.force_jacobian = true;
                    rejected_last = true;
                    continue;
                }
            }
            let (err, worst, _) = self.error_ratio(h);
            if err > 1.0 {
                self.stats.rejected_steps += 1;
                consecutive_failures += 1;
                self.events.push(Event::IntegrationFailure {
                    t: self.t + h,
                    h,
                    order: self.params.order(),
                    error_ratio: err,
                    variable: format!("{} displacement", self.problem.describe_coordinate(worst)),
                });
                if consecutive_failures > 30 {
                    return Err(IntegrationError::failure(
                        self.t,
                        "too many consecutive integration failures",
                    ));
                }
                let r = if consecutive_failures >= 3 {
                    0.1
                } else {
                    (0.9 * err.powf(-1.0 / 3.0)).clamp(0.1, 0.9)
                };
                self.h = h * r;
                rejected_last = true;
                continue;
            }
            self.accept(h, land)?;
            consecutive_failures = 0;
            // Next step: error ∝ h³. Small increases are not worth losing
            // the factorization; no increase right after a failure.
            let mut r = (0.9 * err.max(1e-12).powf(-1.0 / 3.0)).min(2.0);
            if (1.0..1.25).contains(&r) || (rejected_last && r > 1.0) {
                r = 1.0;
            }
            rejected_last = false;
            self.h = if shortened {
                // A step shortened to land on an output time says nothing
                // against the step size it replaced.
                if r < 1.0 {
                    natural.min(h * r).max(natural * r)
                } else {
                    natural
                }
            } else {
                h * r
            }
            .min(self.params.hmax);
        }
        self.sync_stats();
        Ok(())
    }

    /// Fixed-step option: h = HINIT throughout, exactly FIXIT corrector
    /// iterations per step, no rejection; stops when the local error
    /// measure exceeds MAXERR.
    fn advance_fixed(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let maxerr = self
            .params
            .fixed
            .as_ref()
            .map_or(f64::INFINITY, |f| f.maxerr);
        while self.t < tout {
            let remaining = tout - self.t;
            let natural = self.params.hinit;
            let (h, land) = if natural * (1.0 + 1e-9) >= remaining {
                (remaining, Some(tout))
            } else {
                (natural, None)
            };
            let started = Instant::now();
            self.predict(h);
            if let Corrector::Failed = self.correct(h)? {
                return Err(IntegrationError::failure(self.t, "the fixed-step corrector could not solve its linear system (singular matrix); restarts are not done with FIXIT"));
            }
            let (_, worst, abs_err) = self.error_ratio(h);
            self.max_local_error = self.max_local_error.max(abs_err);
            if abs_err > maxerr {
                return Err(IntegrationError::failure(
                    self.t + h,
                    format!(
                        "local error {abs_err:.3e} in {} exceeds MAXERR = {maxerr:e}",
                        self.problem.describe_coordinate(worst)
                    ),
                ));
            }
            self.accept(h, land)?;
            if let Some(m) = &mut self.rti {
                m.record(self.t, started.elapsed());
            }
        }
        self.sync_stats();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linear M a + C u + K q = 0 with diagonal M, C, K (uncoupled modes) and
    /// an optional linear constraint q_0 − q_1 = 0 (m = 1).
    struct Linear {
        m: Vec<f64>,
        c: Vec<f64>,
        k: Vec<f64>,
        tie: bool,
    }
    impl SecondOrderProblem for Linear {
        fn nq(&self) -> usize {
            self.m.len()
        }
        fn nm(&self) -> usize {
            usize::from(self.tie)
        }
        fn body_residual(
            &mut self,
            _t: f64,
            q: &[f64],
            u: &[f64],
            a: &[f64],
            lam: &[f64],
            out: &mut [f64],
        ) -> Result<(), ProblemError> {
            for i in 0..q.len() {
                out[i] = self.m[i] * a[i] + self.c[i] * u[i] + self.k[i] * q[i];
            }
            if self.tie {
                out[0] += lam[0];
                out[1] -= lam[0];
            }
            Ok(())
        }
        fn constraint_residual(
            &mut self,
            _t: f64,
            q: &[f64],
            _lam: &[f64],
            scale: f64,
            out: &mut [f64],
        ) -> Result<(), ProblemError> {
            if self.tie {
                out[0] = scale * (q[0] - q[1]);
            }
            Ok(())
        }
        fn jacobian(
            &mut self,
            _t: f64,
            _q: &[f64],
            _u: &[f64],
            _a: &[f64],
            _lam: &[f64],
            cq: f64,
            cu: f64,
            ca: f64,
            asm: &mut SlotAssembler,
        ) -> Result<(), ProblemError> {
            let n = self.m.len();
            for i in 0..n {
                asm.add(i, i, cq * self.k[i] + cu * self.c[i] + ca * self.m[i]);
            }
            if self.tie {
                asm.add(0, n, 1.0);
                asm.add(1, n, -1.0);
                asm.add(n, 0, 1.0);
                asm.add(n, 1, -1.0);
            }
            Ok(())
        }
        fn describe_coordinate(&self, i: usize) -> String {
            format!("q{i}")
        }
        fn describe_equation(&self, i: usize) -> String {
            format!("eq{i}")
        }
    }

    fn oscillator(k: &[f64]) -> Linear {
        Linear {
            m: vec![1.0; k.len()],
            c: vec![0.0; k.len()],
            k: k.to_vec(),
            tie: false,
        }
    }

    /// Undamped x'' = −x from x = 1 at fixed step h (ERROR never binding):
    /// error at t = 2 against cos t.
    fn oscillator_error(params: HhtParams) -> f64 {
        let mut p = oscillator(&[1.0]);
        let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-1.0], &[]).unwrap();
        g.advance_to(2.0).unwrap();
        ((g.q()[0] - 2f64.cos()).powi(2) + (g.u()[0] + 2f64.sin()).powi(2)).sqrt()
    }

    fn observed_order(make: impl Fn(f64) -> HhtParams, h: f64) -> (f64, f64, f64) {
        let (e1, e2) = (oscillator_error(make(h)), oscillator_error(make(h / 2.0)));
        (e1, e2, (e1 / e2).log2())
    }

    /// HHT (α = −0.3, −0.1) and trapezoidal Newmark are second order,
    /// Newmark (β, γ) = (0.36, 0.7) first order: log2(e(h)/e(h/2)) within
    /// 0.1 of the order at h = 0.01.
    #[test]
    fn observed_orders_on_the_oscillator() {
        for alpha in [-0.3, -0.1] {
            let (e1, e2, s) = observed_order(|h| HhtParams::hht(alpha, 1e3, h), 0.01);
            println!("HHT alpha = {alpha}: {e1:.3e} -> {e2:.3e}, order {s:.3}");
            assert!((s - 2.0).abs() < 0.1, "HHT order {s}");
        }
        let (e1, e2, s) = observed_order(|h| HhtParams::newmark(0.36, 0.7, 1e3, h), 0.01);
        println!("NEWMARK 0.36/0.7: {e1:.3e} -> {e2:.3e}, order {s:.3}");
        assert!((s - 1.0).abs() < 0.1, "Newmark order {s}");
        let (e1, e2, s) = observed_order(|h| HhtParams::newmark(0.25, 0.5, 1e3, h), 0.01);
        println!("NEWMARK 0.25/0.5: {e1:.3e} -> {e2:.3e}, order {s:.3}");
        assert!((s - 2.0).abs() < 0.1, "trapezoidal order {s}");
    }

    /// Mode amplitude from its energy: sqrt(q² + u²/ω²).
    fn amplitude(q: f64, u: f64, w: f64) -> f64 {
        (q * q + u * u / (w * w)).sqrt()
    }

    /// Two uncoupled modes ω = 1 and ω = 1000 at h = 0.01 (ωh = 0.01 and 10)
    /// over 628 steps (about one period of the low mode): α = −0.3 removes
    /// the high mode (spectral radius 0.54 per step at ωh → ∞) and keeps the
    /// low one within 1e-3; α = 0 (trapezoidal) keeps both.
    #[test]
    fn hht_damps_the_high_mode_and_keeps_the_low_one() {
        let tend = 628.0 * 0.01;
        let run = |alpha: f64| {
            let mut p = oscillator(&[1.0, 1e6]);
            let params = HhtParams::hht(alpha, 1e3, 0.01);
            let mut g = Hht::new(
                &mut p,
                params,
                0.0,
                &[1.0, 1.0],
                &[0.0, 0.0],
                &[-1.0, -1e6],
                &[],
            )
            .unwrap();
            g.advance_to(tend).unwrap();
            (
                amplitude(g.q()[0], g.u()[0], 1.0),
                amplitude(g.q()[1], g.u()[1], 1e3),
            )
        };
        let (low, high) = run(-0.3);
        println!("alpha = -0.3: low-mode amplitude ratio {low:.6}, high-mode {high:.3e}");
        assert!((low - 1.0).abs() < 1e-3, "low mode {low}");
        assert!(high < 1e-6, "high mode {high}");
        let (low0, high0) = run(0.0);
        println!("alpha = 0: low-mode amplitude ratio {low0:.6}, high-mode {high0:.6}");
        assert!((low0 - 1.0).abs() < 1e-3 && (high0 - 1.0).abs() < 1e-3);
    }

    /// Two unit masses tied by q0 = q1, one spring K = 4 on q0: the pair
    /// oscillates at ω = √2; the constraint holds to round-off, λ is the
    /// tie force K q0 / 2, and the error control keeps the solution within
    /// 1e-3 of cos(√2 t) at ERROR = 1e-6 with variable steps.
    #[test]
    fn constrained_pair_with_error_control() {
        let mut p = Linear {
            m: vec![1.0, 1.0],
            c: vec![0.0, 0.0],
            k: vec![4.0, 0.0],
            tie: true,
        };
        let mut params = HhtParams::hht(-0.3, 1e-6, 0.1);
        params.hinit = 1e-3;
        // Consistent start: a0 = −2 for both, and −2 + 4·1 + λ0 = 0 → λ0 = −2.
        let mut g = Hht::new(
            &mut p,
            params,
            0.0,
            &[1.0, 1.0],
            &[0.0, 0.0],
            &[-2.0, -2.0],
            &[-2.0],
        )
        .unwrap();
        let w = 2f64.sqrt();
        let mut worst: f64 = 0.0;
        for k in 1..=40 {
            let t = 0.1 * k as f64;
            g.advance_to(t).unwrap();
            assert!((g.q()[0] - g.q()[1]).abs() < 1e-12);
            worst = worst.max((g.q()[0] - (w * t).cos()).abs());
        }
        g.sync_stats();
        println!("constrained pair: max error {worst:.2e}, {:?}", g.stats);
        assert!(worst < 1e-3, "error {worst}");
        assert!(g.stats.steps > 40 && g.stats.jacobian_evaluations < g.stats.steps / 4);
    }

    /// Error control works: on x'' = −100 x, ERROR = 1e-7 instead of 1e-5
    /// gives a global error at least 10× smaller, with more steps.
    #[test]
    fn tighter_error_gives_smaller_error() {
        let run = |error: f64| {
            let mut p = oscillator(&[100.0]);
            let mut params = HhtParams::hht(-0.3, error, 0.1);
            params.hinit = 1e-4;
            let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-100.0], &[]).unwrap();
            let mut worst: f64 = 0.0;
            for k in 1..=10 {
                let t = 0.1 * k as f64;
                g.advance_to(t).unwrap();
                worst = worst.max((g.q()[0] - (10.0 * t).cos()).abs());
            }
            (worst, g.stats.steps)
        };
        let (e1, n1) = run(1e-5);
        let (e2, n2) = run(1e-7);
        println!("ERROR 1e-5: error {e1:.2e} in {n1} steps; ERROR 1e-7: {e2:.2e} in {n2} steps");
        assert!(e2 < e1 / 10.0, "{e1} vs {e2}");
        assert!(n2 > n1);
    }

    /// ADAPTIVITY adds ADAPTIVITY/h to the tolerance only while h < 100·HMIN:
    /// on x'' = −100 x at ERROR = 1e-9 with HMIN = 1e-4, ADAPTIVITY = 1e-8
    /// (1e-5 extra tolerance at h = 1e-3) takes fewer steps than 0 (off),
    /// and with HMIN = 1e-7 (threshold 1e-5, below the steps taken) it
    /// changes nothing.
    #[test]
    fn adaptivity_relaxes_the_tolerance_below_100_hmin() {
        let steps = |hmin: f64, adaptivity: f64| {
            let mut p = oscillator(&[100.0]);
            let mut params = HhtParams::hht(-0.3, 1e-9, 0.1);
            params.hinit = 1e-3;
            params.hmin = hmin;
            params.adaptivity = adaptivity;
            let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-100.0], &[]).unwrap();
            g.advance_to(1.0).unwrap();
            g.stats.steps
        };
        let (off, on) = (steps(1e-4, 0.0), steps(1e-4, 1e-8));
        let (off_small, on_small) = (steps(1e-7, 0.0), steps(1e-7, 1e-8));
        println!("HMIN 1e-4: {off} steps without, {on} with ADAPTIVITY; HMIN 1e-7: {off_small}, {on_small}");
        assert!(2 * on < off, "{on} vs {off}");
        assert_eq!(off_small, on_small);
    }
}
