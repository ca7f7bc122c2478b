//! VSTIFF: VODE-style variable-coefficient BDF of orders 1..=5 in Nordsieck
//! form on an explicit ODE y′ = f(t, y) (Brown, Byrne & Hindmarsh, "VODE: a
//! variable-coefficient ODE solver", SIAM J. Sci. Stat. Comput. 10, 1989;
//! "BBH" below). MotionSolve's default stiff integrator of the ODE form
//! (seeds: `Param_Transient`, `integrator_type = VSTIFF`, `max_order` 5).
//!
//! What makes it VODE rather than GSTIFF (gstiff.rs, LSODE lineage):
//! - **Variable coefficients.** The corrected Nordsieck polynomial is the
//!   predicted one plus Δ·L(x), x = (t − t_n)/h, with
//!   L(x) = Π_{j=1}^{q−1} (1 + x/ξ_j) · (1 + c*·x), ξ_j = (t_n − t_{n−j})/h
//!   from the *actual* past steps, so the polynomial interpolates the past
//!   solution values on the real grid after a step change (GSTIFF's fixed
//!   l-vector assumes equal past steps). The last factor is chosen so that
//!   L′(0) = l₁ = Σ_{j=1}^{q} 1/j, the constant-step value: the fixed-leading-
//!   coefficient form of BBH §2, which keeps the Newton matrix I − γJ,
//!   γ = h/l₁, independent of the step history.
//! - **Jacobian kept apart from its LU** (BBH §3): the saved J is re-used to
//!   re-form and refactor I − γJ when only γ moved, so a step change costs a
//!   factorization, not a Jacobian. The reuse rules are the named constants
//!   below (VODE's CCMAX, MSBP, MSBJ).
//!
//! The local-error test constants are the constant-step ones (LSODE's
//! TESCO: error = ‖Δ‖/(q+1), order q−1 from z_q, order q+1 from the change
//! in Δ); VODE's TQ(1..3) generalize them to unequal steps, which matters
//! only within q steps of a step change, where our estimate is approximate.
//!
//! The module also holds what VSTIFF and MSTIFF (mstiff.rs) share: the
//! error weights (`OdeParams::weight`), the dense Newton corrector with its
//! Jacobian/LU reuse, and VODE's step-ratio rules.

use crate::control::{LANDING_STRETCH, REMAINING_ROUNDOFF};
use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::nordsieck::{factorial, Nordsieck};
use crate::params::OdeParams;
use crate::problem::{AfterStep, DaeIntegrator, OdeProblem, ProblemError, VarClass};

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
/// Step ratio after a corrector failure with a current Jacobian (ETACF).
pub(crate) const ETACF: f64 = 0.25;
/// A step increase below this ratio is not taken (VODE's THRESH).
pub(crate) const THRESH: f64 = 1.5;
/// Keeps the step ratio finite at a zero error estimate (VODE's ADDON).
pub(crate) const ADDON: f64 = 1e-6;
/// Safety biases on the error estimates of orders q−1, q and q+1 (VODE's
/// BIAS1, BIAS2, BIAS3).
pub(crate) const BIAS_DOWN: f64 = 6.0;
pub(crate) const BIAS_SAME: f64 = 6.0;
pub(crate) const BIAS_UP: f64 = 10.0;
/// Error-test failures in a row before the run stops (VODE's MXNEF).
pub(crate) const MAX_ERROR_FAILURES: usize = 7;
/// Corrector failures in a row before the run stops (VODE's MXNCF).
pub(crate) const MAX_CORRECTOR_FAILURES: usize = 10;
/// From this error-test failure in a row on, restart at order 1 with the
/// step cut by ETAMIN (VODE: KFLAG ≤ −3).
pub(crate) const ERROR_FAILURES_BEFORE_ORDER_ONE: usize = 3;
/// Steps held at the present step and order when the best ratio is below
/// THRESH, before the next look (ours; VODE waits NQWAIT steps).
pub(crate) const RECHECK_STEPS: usize = 3;

// ---- Newton corrector (VODE's DVNLSD) ----

/// Convergence-rate memory: rate = max(CRDOWN·rate, ‖δ_m‖/‖δ_{m−1}‖).
pub(crate) const CRDOWN: f64 = 0.3;
/// Rate assumed before two corrections were seen (LSODE's and VODE's 0.7
/// after a fresh matrix).
pub(crate) const INITIAL_RATE: f64 = 0.7;
/// Diverging when a correction grows by more than this (VODE's RDIV).
pub(crate) const RDIV: f64 = 2.0;
/// Converged when the corrections' contribution to the error estimate is
/// below CONIT = CONIT_NUMERATOR/(q+2) of the tolerance (VODE).
pub(crate) const CONIT_NUMERATOR: f64 = 0.5;

// ---- Jacobian and LU reuse (BBH §3; VODE's DVSTEP/DVJAC) ----

/// Re-form and refactor I − γJ when γ moved by more than this relative
/// amount since the factorization (VODE's CCMAX).
pub const CCMAX: f64 = 0.3;
/// Refactor at least every this many steps (VODE's MSBP).
pub const MSBP: u64 = 20;
/// Re-evaluate J at least every this many steps (VODE's MSBJ).
pub const MSBJ: u64 = 50;

// ---- Finite-difference Jacobian (VODE's DVJAC, MITER = 2) ----

/// Relative increment √ε (VODE's SRUR).
pub(crate) fn fd_relative_increment() -> f64 {
    f64::EPSILON.sqrt()
}
/// VODE's R0 = FD_R0_FACTOR·|h|·ε·n·‖f‖ floor on the increment, in units of
/// the error weight.
pub(crate) const FD_R0_FACTOR: f64 = 1000.0;

/// A pivot below this fraction of the largest entry of I − γJ is singular.
pub(crate) const SINGULAR_PIVOT: f64 = 1e-14;

/// VSTIFF's highest order (VODE's BDF maximum; seeds: max_order 5).
pub const VSTIFF_MAX_ORDER: usize = 5;

/// Dense LU with partial pivoting, row-major (the reduced ODE of the
/// partitioning formulation is small and its Jacobian dense).
pub(crate) struct DenseLu {
    n: usize,
    a: Vec<f64>,
    piv: Vec<usize>,
}

impl DenseLu {
    pub fn new(n: usize) -> Self {
        DenseLu {
            n,
            a: vec![0.0; n * n],
            piv: vec![0; n],
        }
    }
    /// Solve a·x = b for a k×k row-major system in place (b becomes x);
    /// None when singular.
    pub fn solve_small(a: &[f64], b: &mut [f64]) -> Option<()> {
        let mut lu = DenseLu::new(b.len());
        lu.a.copy_from_slice(a);
        lu.factor().ok()?;
        lu.solve(b);
        Some(())
    }
    /// Factor `a` in place; Err(column) when a pivot is (numerically) zero.
    pub fn factor(&mut self) -> Result<(), usize> {
        let n = self.n;
        let scale = self.a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        for k in 0..n {
            let p = (k..n)
                .max_by(|&i, &j| self.a[i * n + k].abs().total_cmp(&self.a[j * n + k].abs()))
                .unwrap_or(k);
            let pivot = self.a[p * n + k];
            if !pivot.is_finite() || pivot.abs() <= SINGULAR_PIVOT * scale || pivot == 0.0 {
                return Err(k);
            }
            self.piv[k] = p;
            if p != k {
                for j in 0..n {
                    self.a.swap(k * n + j, p * n + j);
                }
            }
            for i in k + 1..n {
                let m = self.a[i * n + k] / pivot;
                self.a[i * n + k] = m;
                for j in k + 1..n {
                    self.a[i * n + j] -= m * self.a[k * n + j];
                }
            }
        }
        Ok(())
    }
    pub fn solve(&self, b: &mut [f64]) {
        let n = self.n;
        for k in 0..n {
            b.swap(k, self.piv[k]);
        }
        for i in 0..n {
            let s: f64 = (0..i).map(|j| self.a[i * n + j] * b[j]).sum();
            b[i] -= s;
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|j| self.a[i * n + j] * b[j]).sum();
            b[i] = (b[i] - s) / self.a[i * n + i];
        }
    }
}

/// What both stiff ODE methods own: the problem, the accepted state, the
/// error weights and the Newton corrector with its saved Jacobian and LU.
pub(crate) struct OdeCore<P: OdeProblem> {
    pub problem: P,
    pub params: OdeParams,
    pub name: &'static str,
    pub classes: Vec<VarClass>,
    pub n: usize,
    pub t: f64,
    /// Accepted y and y′ = f(t, y) (up to the corrector's convergence).
    pub y: Vec<f64>,
    pub yp: Vec<f64>,
    /// Error weights from the accepted y (VODE's EWT, set after each step).
    pub w: Vec<f64>,
    /// Saved ∂f/∂y, column-major (VODE keeps J apart from the LU).
    jac: Vec<f64>,
    lu: DenseLu,
    have_jac: bool,
    lu_valid: bool,
    /// γ the LU was formed with.
    gamma_lu: f64,
    /// J was evaluated during the present step attempt (VODE's JCUR).
    pub jac_current: bool,
    /// The next attempt evaluates J first (after a corrector failure with a
    /// stale J).
    pub force_jac: bool,
    steps_since_jac: u64,
    steps_since_lu: u64,
    ftmp: Vec<f64>,
    fd_y: Vec<f64>,
    g: Vec<f64>,
    pub stats: Statistics,
    pub events: Vec<Event>,
}

/// Result of one corrector solve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Solve {
    Converged,
    /// Diverged, too slow, or the matrix was singular (event emitted).
    Failed,
}

impl<P: OdeProblem> OdeCore<P> {
    /// Validate and start at (t0, y0). `max_order_limit`: the method's
    /// highest order; a larger `max_order` is rejected naming it.
    pub fn new(
        mut problem: P,
        t0: f64,
        y0: &[f64],
        params: &OdeParams,
        name: &'static str,
        max_order_limit: usize,
        max_order_reason: &str,
    ) -> Result<Self, IntegrationError> {
        let fail = |m: String| Err(IntegrationError::failure(t0, format!("{name}: {m}")));
        let n = problem.size();
        if y0.len() != n {
            return fail(format!(
                "the initial state has {} values but the problem has {n} states",
                y0.len()
            ));
        }
        if problem.classes().len() != n {
            return fail(format!(
                "the problem gives {} state classes for {n} states",
                problem.classes().len()
            ));
        }
        if params.max_order == 0 || params.max_order > max_order_limit {
            return fail(format!(
                "max_order = {} is outside 1..={max_order_limit}: {max_order_reason}",
                params.max_order
            ));
        }
        let positive = [
            ("integr_tol", params.error),
            ("h_max", params.hmax),
            ("h0_max", params.h0_max),
        ];
        for (arg, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return fail(format!("{arg} = {v} must be positive and finite"));
            }
        }
        if !(params.hmin.is_finite() && params.hmin >= 0.0 && params.hmin <= params.hmax) {
            return fail(format!(
                "h_min = {} must lie in [0, h_max = {}]",
                params.hmin, params.hmax
            ));
        }
        for (arg, v) in [
            ("rel_abs_tol_ratio", params.rel_abs_tol_ratio),
            ("vel_tol_factor", params.vel_tol_factor),
        ] {
            let ok = v.is_finite() && (v > 0.0 || (arg == "rel_abs_tol_ratio" && v == 0.0));
            if !ok {
                return fail(format!("{arg} = {v} must be finite and positive"));
            }
        }
        if params.h0_max < params.hmin {
            return fail(format!(
                "h0_max = {} is below h_min = {}: the first step could never be taken",
                params.h0_max, params.hmin
            ));
        }
        if params.maxit == 0 {
            return fail("maxit = 0: the corrector needs at least one iteration".into());
        }
        if !t0.is_finite() {
            return fail(format!("the start time {t0} is not finite"));
        }
        if let Some(i) = y0.iter().position(|v| !v.is_finite()) {
            return fail(format!(
                "the initial value of {} is not finite",
                problem.describe_variable(i)
            ));
        }
        let classes = problem.classes().to_vec();
        let mut yp = vec![0.0; n];
        if let Err(e) = problem.rhs(t0, y0, &mut yp) {
            return fail(e.0);
        }
        let mut core = OdeCore {
            problem,
            params: params.clone(),
            name,
            classes,
            n,
            t: t0,
            y: y0.to_vec(),
            yp,
            w: vec![1.0; n],
            jac: vec![0.0; n * n],
            lu: DenseLu::new(n),
            have_jac: false,
            lu_valid: false,
            gamma_lu: 0.0,
            jac_current: false,
            force_jac: false,
            steps_since_jac: 0,
            steps_since_lu: 0,
            ftmp: vec![0.0; n],
            fd_y: vec![0.0; n],
            g: vec![0.0; n],
            stats: Statistics {
                residual_evaluations: 1,
                min_step: f64::INFINITY,
                ..Default::default()
            },
            events: Vec::new(),
        };
        core.set_weights();
        Ok(core)
    }

    /// Weights from the accepted y (OdeParams::weight).
    pub fn set_weights(&mut self) {
        for i in 0..self.n {
            self.w[i] = self.params.weight(self.classes[i], self.y[i]);
        }
    }

    /// Weighted RMS norm (VODE's DVNORM): ‖v‖ ≤ 1 means within tolerance.
    pub fn norm(&self, v: impl Fn(usize) -> f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let s: f64 = (0..self.n).map(|i| (v(i) / self.w[i]).powi(2)).sum();
        (s / self.n as f64).sqrt()
    }

    /// f(t, y) into out, counted; a problem error stops the run naming it.
    pub fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), IntegrationError> {
        self.stats.residual_evaluations += 1;
        self.problem
            .rhs(t, y, out)
            .map_err(|e| IntegrationError::failure(t, format!("{}: {}", self.name, e.0)))
    }

    /// The first step: `h0_max` bounds it (seeds), and so do HMAX, the
    /// output interval, and the step over which y moves by one tolerance
    /// unit at its initial rate.
    pub fn initial_step(&self, span: f64) -> f64 {
        let fnorm = self.norm(|i| self.yp[i]);
        let by_rate = if fnorm > 0.0 {
            1.0 / fnorm
        } else {
            f64::INFINITY
        };
        self.params
            .h0_max
            .min(self.params.hmax)
            .min(span)
            .min(by_rate)
    }

    /// Make sure the LU of I − γJ is usable for γ at the attempt (t, y):
    /// J is evaluated on the first step, after a corrector failure with a
    /// stale J, and every MSBJ steps; the LU is re-formed from the saved J
    /// when γ moved by more than CCMAX or every MSBP steps (BBH §3).
    /// Ok(false): singular matrix (event emitted).
    pub fn prepare(
        &mut self,
        t: f64,
        y: &[f64],
        gamma: f64,
        h: f64,
    ) -> Result<bool, IntegrationError> {
        let need_jac = !self.have_jac || self.force_jac || self.steps_since_jac >= MSBJ;
        if need_jac {
            self.evaluate_jacobian(t, y, h)?;
        }
        let drift = (gamma / self.gamma_lu - 1.0).abs();
        if need_jac || !self.lu_valid || drift > CCMAX || self.steps_since_lu >= MSBP {
            return Ok(self.factor(t, gamma, h));
        }
        Ok(true)
    }

    fn evaluate_jacobian(&mut self, t: f64, y: &[f64], h: f64) -> Result<(), IntegrationError> {
        // The scratch vectors go back whatever happens: a failed
        // evaluation leaves the integrator usable for the caller's report.
        let mut f0 = std::mem::take(&mut self.ftmp);
        let mut f1 = std::mem::take(&mut self.g);
        let mut yd = std::mem::take(&mut self.fd_y);
        let result = self.jacobian_into(t, y, h, &mut f0, &mut f1, &mut yd);
        self.ftmp = f0;
        self.g = f1;
        self.fd_y = yd;
        result?;
        self.stats.jacobian_evaluations += 1;
        self.have_jac = true;
        self.jac_current = true;
        self.force_jac = false;
        self.steps_since_jac = 0;
        Ok(())
    }

    /// ∂f/∂y at (t, y) into the saved J: analytic when the problem has it,
    /// else forward differences, one f evaluation per column (n in all;
    /// VODE's MITER = 2 increments).
    fn jacobian_into(
        &mut self,
        t: f64,
        y: &[f64],
        h: f64,
        f0: &mut [f64],
        f1: &mut [f64],
        yd: &mut [f64],
    ) -> Result<(), IntegrationError> {
        let n = self.n;
        self.rhs(t, y, f0)?;
        let analytic = self
            .problem
            .jacobian(t, y, f0, &mut self.jac)
            .map_err(|e| IntegrationError::failure(t, format!("{}: {}", self.name, e.0)))?;
        if analytic {
            return Ok(());
        }
        let fnorm = self.norm(|i| f0[i]);
        let r0 = FD_R0_FACTOR * h.abs() * f64::EPSILON * n as f64 * fnorm;
        let r0 = if r0 > 0.0 { r0 } else { 1.0 };
        yd.copy_from_slice(y);
        for j in 0..n {
            let d = (fd_relative_increment() * y[j].abs()).max(r0 * self.w[j]);
            yd[j] = y[j] + d;
            self.rhs(t, yd, f1)?;
            yd[j] = y[j];
            for i in 0..n {
                self.jac[j * n + i] = (f1[i] - f0[i]) / d;
            }
        }
        Ok(())
    }

    fn factor(&mut self, t: f64, gamma: f64, h: f64) -> bool {
        let n = self.n;
        for i in 0..n {
            for j in 0..n {
                let id = if i == j { 1.0 } else { 0.0 };
                self.lu.a[i * n + j] = id - gamma * self.jac[j * n + i];
            }
        }
        self.stats.factorizations += 1;
        self.gamma_lu = gamma;
        self.steps_since_lu = 0;
        match self.lu.factor() {
            Ok(()) => {
                self.lu_valid = true;
                true
            }
            Err(col) => {
                self.lu_valid = false;
                self.events.push(Event::SingularMatrix {
                    t,
                    h,
                    variable: self.problem.describe_variable(col),
                });
                false
            }
        }
    }

    /// Solve y − γ·f(t, y) = r by the modified Newton iteration from the
    /// guess in `y`. `conv_scale` converts a correction's weighted norm into
    /// its share of the error test (converged when norm·min(1, rate)·scale
    /// ≤ 1). With γ ≠ γ_LU the correction is scaled by 2/(1 + γ/γ_LU)
    /// (BBH §3: the chord step's optimal scaling for a stale γ).
    #[allow(clippy::too_many_arguments)]
    pub fn newton(
        &mut self,
        t: f64,
        h: f64,
        y: &mut [f64],
        gamma: f64,
        r: &[f64],
        conv_scale: f64,
    ) -> Result<Solve, IntegrationError> {
        if !self.prepare(t, y, gamma, h)? {
            return Ok(Solve::Failed);
        }
        let n = self.n;
        let scale = 2.0 / (1.0 + gamma / self.gamma_lu);
        let mut rate = INITIAL_RATE;
        let mut del_prev = 0.0;
        let mut f = std::mem::take(&mut self.ftmp);
        let mut g = std::mem::take(&mut self.g);
        let mut outcome = Solve::Failed;
        let mut iterations = 0;
        for m in 0..self.params.maxit {
            iterations = m + 1;
            self.stats.corrector_iterations += 1;
            if let Err(e) = self.rhs(t, y, &mut f) {
                self.ftmp = f;
                self.g = g;
                return Err(e);
            }
            for i in 0..n {
                g[i] = r[i] + gamma * f[i] - y[i];
            }
            self.lu.solve(&mut g);
            if scale != 1.0 {
                g.iter_mut().for_each(|v| *v *= scale);
            }
            for i in 0..n {
                y[i] += g[i];
            }
            let del = self.norm(|i| g[i]);
            if m > 0 {
                rate = (CRDOWN * rate).max(del / del_prev);
            }
            if !del.is_finite() {
                break;
            }
            if del * rate.min(1.0) * conv_scale <= 1.0 || del == 0.0 {
                outcome = Solve::Converged;
                break;
            }
            if m > 0 && del > RDIV * del_prev {
                break;
            }
            del_prev = del;
        }
        if outcome == Solve::Failed {
            let worst = (0..n)
                .max_by(|&a, &b| {
                    (g[a] / self.w[a])
                        .abs()
                        .total_cmp(&(g[b] / self.w[b]).abs())
                })
                .unwrap_or(0);
            let variable = self.problem.describe_variable(worst);
            self.events.push(Event::CorrectorFailure {
                t,
                h,
                iterations,
                equation: format!("d/dt {variable}"),
                variable,
            });
        }
        self.ftmp = f;
        self.g = g;
        Ok(outcome)
    }

    /// After a corrector failure: retry with a fresh J if it was stale
    /// (true), else the caller cuts the step by ETACF (false).
    pub fn retry_with_fresh_jacobian(&mut self) -> bool {
        self.stats.corrector_failures += 1;
        if self.jac_current {
            self.lu_valid = false;
            false
        } else {
            self.force_jac = true;
            true
        }
    }

    /// Bookkeeping of an accepted step of size h ending at t_new.
    pub fn accepted(&mut self, t_new: f64, h: f64, order: usize) {
        self.t = t_new;
        self.steps_since_jac += 1;
        self.steps_since_lu += 1;
        self.jac_current = false;
        let s = &mut self.stats;
        s.steps += 1;
        s.min_step = s.min_step.min(h);
        s.max_step = s.max_step.max(h);
        s.max_order_used = s.max_order_used.max(order);
        self.set_weights();
    }

    /// Hand the accepted y to the problem; true when it rewrote y and the
    /// history must restart at order 1.
    pub fn after_step(&mut self) -> Result<bool, IntegrationError> {
        let t = self.t;
        let restart = self
            .problem
            .after_step(t, &mut self.y)
            .map_err(|e| IntegrationError::failure(t, format!("{}: {}", self.name, e.0)))?
            == AfterStep::Restart;
        if restart {
            let y = std::mem::take(&mut self.y);
            let mut yp = std::mem::take(&mut self.yp);
            let r = self.rhs(t, &y, &mut yp);
            self.y = y;
            self.yp = yp;
            r?;
            self.set_weights();
        }
        Ok(restart)
    }

    /// An error-test failure: counted and logged at the worst variable.
    pub fn error_failure(&mut self, h: f64, order: usize, ratio: f64, worst: usize) {
        self.stats.rejected_steps += 1;
        self.events.push(Event::IntegrationFailure {
            t: self.t,
            h,
            order,
            error_ratio: ratio,
            variable: self.problem.describe_variable(worst),
        });
    }

    /// The variable with the largest weighted value of v.
    pub fn worst(&self, v: impl Fn(usize) -> f64) -> usize {
        (0..self.n)
            .max_by(|&a, &b| {
                (v(a) / self.w[a])
                    .abs()
                    .total_cmp(&(v(b) / self.w[b]).abs())
            })
            .unwrap_or(0)
    }

    /// The step of an attempt towards tout from the natural step h: capped
    /// by HMAX, stretched by LANDING_STRETCH to land on tout when `land`.
    /// Returns (step, lands).
    pub fn attempt(&self, h: f64, tout: f64, land: bool) -> (f64, bool) {
        let h = h.min(self.params.hmax);
        let remaining = tout - self.t;
        if land && h * LANDING_STRETCH >= remaining {
            (remaining, true)
        } else if land && LANDING_SPLIT * h > remaining {
            // tout is within two natural steps: two equal steps instead of
            // a full one and a short landing one. The alternating ratios
            // (e.g. 6.9e-3 then 3.1e-3 on a 1e-2 output step) made the
            // error estimates of the variable-step formulas unreliable:
            // pendulum (ERROR 1e-6, 250 outputs, VSTIFF/ODE) 1.6e-4 m off
            // in 551 steps, 4.7e-6 m in 326 with the split (issue 15).
            (remaining / LANDING_SPLIT, false)
        } else {
            (h, false)
        }
    }

    /// The attempt is too small to continue.
    pub fn check_step(&self, h: f64, tout: f64) -> Result<(), IntegrationError> {
        let remaining = tout - self.t;
        if h < self.params.hmin && h < remaining * (1.0 - REMAINING_ROUNDOFF) {
            return Err(IntegrationError::failure(
                self.t,
                format!(
                    "{}: step size {h:.3e} fell below h_min = {:.3e} after repeated failures",
                    self.name, self.params.hmin
                ),
            ));
        }
        if self.t + h == self.t {
            return Err(IntegrationError::failure(
                self.t,
                format!(
                    "{}: step size {h:.3e} is below the resolution of the time {:.6e}",
                    self.name, self.t
                ),
            ));
        }
        Ok(())
    }
}

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

/// One stiff ODE method under the shared step loop [`OdeStiff`]: its
/// history, its stages and its error estimates. The loop owns the step,
/// the order's hold (NQWAIT), the failure policy and output landing.
pub(crate) trait StiffMethod<P: OdeProblem>: Sized {
    /// The method's name in messages ("VSTIFF").
    const NAME: &'static str;
    /// Highest order, and why (a larger `max_order` is rejected with it).
    const MAX_ORDER: usize;
    const MAX_ORDER_REASON: &'static str;
    /// The history at (t0, y0) of a validated core.
    fn build(core: &OdeCore<P>) -> Self;
    /// Order of the next attempt.
    fn order(&self) -> usize;
    /// Fit the history to the step h of the next attempt.
    fn set_step(&mut self, core: &mut OdeCore<P>, h: f64);
    /// Attempt the step h ending at t_new: Some(local error in tolerance
    /// units) once the corrector converged, None after a corrector failure
    /// (event emitted).
    fn attempt(
        &mut self,
        core: &mut OdeCore<P>,
        h: f64,
        t_new: f64,
    ) -> Result<Option<f64>, IntegrationError>;
    /// The state with the largest contribution to the failed error test.
    fn worst(&self, core: &OdeCore<P>) -> usize;
    /// Error estimates of orders q−1 and (when `up`) q+1 for the attempt
    /// just made.
    fn neighbours(&self, core: &OdeCore<P>, up: bool) -> (Option<f64>, Option<f64>);
    /// Undo the attempt's changes to the history.
    fn restore(&mut self);
    /// Make the attempt the accepted state: history, core.y and core.yp.
    fn accept(&mut self, core: &mut OdeCore<P>, h: f64);
    /// Move to order q ± 1 after an accepted step or a failure.
    fn set_order(&mut self, core: &OdeCore<P>, q: usize);
    /// Start again at order 1 from core.y, core.yp with the step h.
    fn restart(&mut self, core: &OdeCore<P>, h: f64);
    /// The solution at t within the last step (ending at `t_last`), if the
    /// method can interpolate.
    fn interpolate(&self, _t_last: f64, _t: f64, _y: &mut [f64], _yp: &mut [f64]) -> bool {
        false
    }
    fn can_interpolate(&self) -> bool {
        false
    }
}

/// A stiff method under the ODE step loop: VODE's step and order rules,
/// failure policy and output landing, shared by VSTIFF and MSTIFF.
// `StiffMethod` is crate-internal as stepper.rs's `Method` is: both methods
// live in this crate.
#[allow(private_bounds)]
pub struct OdeStiff<P: OdeProblem, M: StiffMethod<P>> {
    pub(crate) core: OdeCore<P>,
    pub(crate) method: M,
    pub(crate) qmax: usize,
    /// The step the method wants next (before HMAX and output landing).
    pub(crate) h: f64,
    pub(crate) started: bool,
    /// Accepted steps before the next order/step change (NQWAIT).
    pub(crate) qwait: usize,
    /// Largest ratio for the next change (ETAMX1, ETAMX2, or 1 after a
    /// failure).
    etamax: f64,
    /// The last accepted step, for interpolation.
    h_last: f64,
}

#[allow(private_bounds)]
impl<P: OdeProblem, M: StiffMethod<P>> OdeStiff<P, M> {
    /// Start at (t0, y0) with validated settings: the one construction
    /// call of both methods (`Vstiff::new`, `Mstiff::new`). A `max_order`
    /// above the method's highest is rejected naming it.
    pub fn new(
        problem: P,
        t0: f64,
        y0: &[f64],
        params: &OdeParams,
    ) -> Result<Self, IntegrationError> {
        let core = OdeCore::new(
            problem,
            t0,
            y0,
            params,
            M::NAME,
            M::MAX_ORDER,
            M::MAX_ORDER_REASON,
        )?;
        let method = M::build(&core);
        Ok(Self::with_method(core, method))
    }

    fn with_method(core: OdeCore<P>, method: M) -> Self {
        let qmax = core.params.max_order;
        let h = core.params.h0_max.min(core.params.hmax);
        OdeStiff {
            core,
            method,
            qmax,
            h,
            started: false,
            qwait: 2,
            etamax: ETAMX1,
            h_last: 0.0,
        }
    }

    /// Order of the next attempt.
    pub fn order(&self) -> usize {
        self.method.order()
    }
    pub fn problem(&mut self) -> &mut P {
        &mut self.core.problem
    }

    /// Take steps until t = tout exactly (`land`) or until t ≥ tout.
    fn advance(&mut self, tout: f64, land: bool) -> Result<(), IntegrationError> {
        if !self.started {
            let h0 = self.core.initial_step(tout - self.core.t);
            if h0 > 0.0 {
                self.h = h0;
                self.method.restart(&self.core, h0);
            }
            self.started = true;
        }
        let mut error_failures = 0;
        let mut corrector_failures = 0;
        while self.core.t < tout {
            let (h, lands) = self.core.attempt(self.h, tout, land);
            self.core.check_step(h, tout)?;
            self.method.set_step(&mut self.core, h);
            let t_new = if lands { tout } else { self.core.t + h };
            let q = self.method.order();
            let Some(err) = self.method.attempt(&mut self.core, h, t_new)? else {
                self.method.restore();
                corrector_failures += 1;
                if corrector_failures > MAX_CORRECTOR_FAILURES {
                    return Err(IntegrationError::failure(
                        self.core.t,
                        format!("{}: repeated corrector failures; see the message log for the state that dominates", self.core.name),
                    ));
                }
                if !self.core.retry_with_fresh_jacobian() {
                    self.h = h * ETACF;
                    self.etamax = 1.0;
                }
                continue;
            };
            if err > 1.0 {
                let worst = self.method.worst(&self.core);
                let (down, _) = self.method.neighbours(&self.core, false);
                self.method.restore();
                self.core.error_failure(h, q, err, worst);
                error_failures += 1;
                if error_failures >= MAX_ERROR_FAILURES {
                    return Err(IntegrationError::failure(
                        self.core.t,
                        format!(
                            "{}: {MAX_ERROR_FAILURES} error-test failures in a row; largest error in {}",
                            self.core.name,
                            self.core.problem.describe_variable(worst)
                        ),
                    ));
                }
                self.after_error_failure(h, err, down, error_failures);
                continue;
            }
            let (down, up) = self
                .method
                .neighbours(&self.core, self.qwait <= 1 && q < self.qmax);
            self.method.accept(&mut self.core, h);
            self.core.accepted(t_new, h, q);
            self.h_last = h;
            error_failures = 0;
            corrector_failures = 0;
            if self.core.after_step()? {
                self.method.restart(&self.core, self.h);
                self.qwait = 2;
                continue;
            }
            self.select(h, lands, err, down, up);
        }
        Ok(())
    }

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
    fn after_error_failure(&mut self, h: f64, err: f64, down: Option<f64>, failures: usize) {
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
impl<P: OdeProblem, M: StiffMethod<P>> DaeIntegrator for OdeStiff<P, M> {
    fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        self.advance(tout, true)
    }
    /// VSTIFF steps past tout (never shortened) and `interpolate` gives the
    /// solution there from the Nordsieck polynomial (VODE's ITASK = 1 with
    /// DVINDY); a method that cannot interpolate lands on tout.
    fn advance_past(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let land = !self.method.can_interpolate();
        self.advance(tout, land)
    }
    fn time(&self) -> f64 {
        self.core.t
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.core.y, &self.core.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.core.y
    }
    fn statistics(&mut self) -> Statistics {
        self.core.stats.clone()
    }
    fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.core.events)
    }
    fn interpolate(&self, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let inside = self.h_last > 0.0
            && t <= self.core.t
            && t >= self.core.t - self.h_last * (1.0 + INTERPOLATION_ROUNDOFF);
        inside && self.method.interpolate(self.core.t, t, y, yp)
    }
}

/// An output within this many natural steps is reached in this many equal
/// steps (ours, see [`OdeCore::attempt`]).
const LANDING_SPLIT: f64 = 2.0;

/// A time within this relative rounding of the last step's start is inside
/// it (ours).
const INTERPOLATION_ROUNDOFF: f64 = 1e-12;

/// VSTIFF's history: the Nordsieck array with the FLC l-vector.
pub struct NordsieckBdf {
    nord: Nordsieck,
    qmax: usize,
    /// Accepted steps, most recent first (VODE's TAU).
    tau: Vec<f64>,
    /// The FLC l-vector of the present attempt (l₀ = 1).
    l: Vec<f64>,
    /// Δ = y_n − y_pred of the attempt, and of the last accepted step.
    acor: Vec<f64>,
    acor_prev: Vec<f64>,
    /// Step and order of `acor_prev` (order 0: none).
    acor_prev_h: f64,
    acor_prev_order: usize,
    r: Vec<f64>,
    ynew: Vec<f64>,
    h: f64,
}

/// VSTIFF: VODE-style variable-coefficient BDF on an explicit ODE.
pub type Vstiff<P> = OdeStiff<P, NordsieckBdf>;

impl<P: OdeProblem> OdeStiff<P, NordsieckBdf> {
    /// Start from exact derivatives `derivs[j] = y^(j)(t0)` at `order` with
    /// the step h and all past steps equal to h (order measurements free
    /// of start-up error).
    pub fn set_exact_history(&mut self, derivs: &[Vec<f64>], order: usize, h: f64) {
        let order = order.clamp(1, self.qmax);
        let m = &mut self.method;
        m.nord.h = h;
        m.nord.set_exact(derivs, order);
        m.tau = vec![h; m.qmax];
        self.h = h;
        self.qwait = order + 1;
        self.started = true;
    }
}

impl NordsieckBdf {
    /// The FLC l-vector of order q for the step h and the past steps `tau`
    /// (missing past steps taken equal to h): coefficients of
    /// Π_{j=1}^{q−1}(1 + x/ξ_j)·(1 + c*·x), c* = Σ_{j≤q} 1/j − Σ_{j<q} 1/ξ_j.
    pub fn flc_l(q: usize, h: f64, tau: &[f64], l: &mut Vec<f64>) {
        l.clear();
        l.resize(q + 1, 0.0);
        l[0] = 1.0;
        let mut deg = 0;
        let mul = |l: &mut Vec<f64>, deg: &mut usize, c: f64| {
            for i in (1..=*deg + 1).rev() {
                l[i] += c * l[i - 1];
            }
            *deg += 1;
        };
        let mut hsum = h;
        let mut inv_sum = 0.0;
        for j in 1..q {
            let xi = hsum / h;
            mul(l, &mut deg, 1.0 / xi);
            inv_sum += 1.0 / xi;
            hsum += tau.get(j - 1).copied().unwrap_or(h);
        }
        let harmonic: f64 = (1..=q).map(|j| 1.0 / j as f64).sum();
        mul(l, &mut deg, harmonic - inv_sum);
    }
}

impl<P: OdeProblem> StiffMethod<P> for NordsieckBdf {
    const NAME: &'static str = "VSTIFF";
    /// VODE's BDF stops at order 5: BDF 6 has a stability angle of only
    /// ≈ 18° and BDF 7+ are not zero-stable.
    const MAX_ORDER: usize = VSTIFF_MAX_ORDER;
    const MAX_ORDER_REASON: &'static str =
        "VODE's BDF formulas stop at order 5 (Brown, Byrne & Hindmarsh 1989)";
    fn build(core: &OdeCore<P>) -> Self {
        let n = core.n;
        let params = &core.params;
        let h = params.h0_max.min(params.hmax);
        NordsieckBdf {
            nord: Nordsieck::new(&core.y, &core.yp, h, params.max_order),
            qmax: params.max_order,
            tau: Vec::new(),
            l: vec![1.0, 1.0],
            acor: vec![0.0; n],
            acor_prev: vec![0.0; n],
            acor_prev_h: 0.0,
            acor_prev_order: 0,
            r: vec![0.0; n],
            ynew: vec![0.0; n],
            h,
        }
    }
    fn order(&self) -> usize {
        self.nord.order
    }
    fn set_step(&mut self, _core: &mut OdeCore<P>, h: f64) {
        if h != self.nord.h {
            self.nord.rescale(h / self.nord.h);
        }
        self.h = h;
    }
    fn attempt(
        &mut self,
        core: &mut OdeCore<P>,
        h: f64,
        t_new: f64,
    ) -> Result<Option<f64>, IntegrationError> {
        let q = self.nord.order;
        Self::flc_l(q, h, &self.tau, &mut self.l);
        let l1 = self.l[1];
        self.nord.predict();
        for i in 0..core.n {
            self.r[i] = self.nord.z[0][i] - self.nord.z[1][i] / l1;
            self.ynew[i] = self.nord.z[0][i];
        }
        // Converged when the corrections' share of the error estimate
        // ‖Δ‖/(q+1) is below CONIT = 0.5/(q+2).
        let conv_scale = (q as f64 + 2.0) / (CONIT_NUMERATOR * (q as f64 + 1.0));
        if core.newton(t_new, h, &mut self.ynew, h / l1, &self.r, conv_scale)? == Solve::Failed {
            return Ok(None);
        }
        for i in 0..core.n {
            self.acor[i] = self.ynew[i] - self.nord.z[0][i];
        }
        Ok(Some(core.norm(|i| self.acor[i]) / (q as f64 + 1.0)))
    }
    fn worst(&self, core: &OdeCore<P>) -> usize {
        core.worst(|i| self.acor[i])
    }
    /// Order q−1 from z_q (unchanged by the prediction), q+1 from the
    /// change in Δ since the last step at this order (LSODE's TESCO(1), (3)).
    fn neighbours(&self, core: &OdeCore<P>, up: bool) -> (Option<f64>, Option<f64>) {
        let q = self.nord.order;
        let down = (q > 1).then(|| core.norm(|i| self.nord.z[q][i]) * factorial(q - 1));
        let up = (up && self.acor_prev_order == q).then(|| {
            let ratio = (self.h / self.acor_prev_h).powi(q as i32 + 1);
            core.norm(|i| self.acor[i] - ratio * self.acor_prev[i]) / (q as f64 + 2.0)
        });
        (down, up)
    }
    fn restore(&mut self) {
        self.nord.restore();
    }
    /// z_j += l_j·Δ; y = z_0, y′ = z_1/h.
    fn accept(&mut self, core: &mut OdeCore<P>, h: f64) {
        let q = self.nord.order;
        for j in 0..=q {
            let lj = self.l[j];
            for i in 0..core.n {
                self.nord.z[j][i] += lj * self.acor[i];
            }
        }
        self.tau.insert(0, h);
        self.tau.truncate(self.qmax + 1);
        for i in 0..core.n {
            core.y[i] = self.nord.z[0][i];
            core.yp[i] = self.nord.z[1][i] / h;
        }
        std::mem::swap(&mut self.acor, &mut self.acor_prev);
        self.acor_prev_h = h;
        self.acor_prev_order = q;
    }
    /// Raise: z_{q+1} = l_q·Δ/(q+1) from the last accepted Δ; lower: drop z_q.
    fn set_order(&mut self, core: &OdeCore<P>, q_new: usize) {
        let q = self.nord.order;
        if q_new > q {
            let c = self.l[q] / (q as f64 + 1.0);
            for i in 0..core.n {
                self.nord.z[q + 1][i] = c * self.acor_prev[i];
            }
            self.nord.order = q + 1;
        } else {
            while self.nord.order > q_new.max(1) {
                self.nord.lower_order();
            }
        }
    }
    fn restart(&mut self, core: &OdeCore<P>, h: f64) {
        self.nord = Nordsieck::new(&core.y, &core.yp, h, self.qmax);
        self.h = h;
        self.tau.clear();
        self.acor_prev_order = 0;
    }
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        self.nord.interpolate(t_last, t, y, yp);
        true
    }
    fn can_interpolate(&self) -> bool {
        true
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
