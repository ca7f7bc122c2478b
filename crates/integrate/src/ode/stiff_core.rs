//! What VSTIFF (vstiff.rs) and MSTIFF (mstiff.rs) share below the step
//! loop: the problem and its accepted state, the error weights
//! (`OdeParams::weight`, VODE's EWT), and VODE's modified Newton
//! corrector on y − γ·f(t, y) = r with the Jacobian kept apart from the
//! LU of I − γJ (Brown, Byrne & Hindmarsh, "VODE: a variable-coefficient
//! ODE solver", SIAM J. Sci. Stat. Comput. 10, 1989; "BBH" below, §3): J
//! analytic when the problem has it, else forward differences, one
//! f-evaluation per column; the saved J re-forms and refactors I − γJ when
//! only γ moved, so a step change costs a factorization, not a Jacobian.
//! The reduced ODE of the partitioning formulation is small and its
//! Jacobian dense, hence the dense LU.

use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::params::OdeParams;
use crate::problem::{AfterStep, OdeProblem, VarClass};

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
pub(crate) struct StiffCore<P: OdeProblem> {
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
    /// The attempt failed because f or J could not be evaluated: a fresh
    /// J would not help, the step must be cut.
    pub evaluation_failed: bool,
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

impl<P: OdeProblem> StiffCore<P> {
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
        let positive = [("integr_tol", params.error), ("h0_max", params.h0_max)];
        for (arg, v) in positive {
            if !(v.is_finite() && v > 0.0) {
                return fail(format!("{arg} = {v} must be positive and finite"));
            }
        }
        // HMAX is unlimited with INTERPOLATE = ON (seeds).
        if params.hmax.is_nan() || params.hmax <= 0.0 {
            return fail(format!("h_max = {} must be positive", params.hmax));
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
        let mut core = StiffCore {
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
            evaluation_failed: false,
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
        match self.prepare(t, y, gamma, h) {
            Ok(true) => {}
            Ok(false) => return Ok(Solve::Failed),
            Err(e) => return Ok(self.evaluation_failed(t, h, 0, e)),
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
                return Ok(self.evaluation_failed(t, h, iterations, e));
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

    /// f (or J) could not be evaluated at an iterate of the attempt (e.g.
    /// the ODE form's dependent coordinates not converging at a trial
    /// state, as MSTIFF's second stage two steps ahead can ask): a failed
    /// attempt, named in the log, after which the loop cuts the step
    /// (`evaluation_failed` set) — not the end of the run, as for ABAM and
    /// RKF45 (`OdeCore::rhs_in_attempt`).
    fn evaluation_failed(
        &mut self,
        t: f64,
        h: f64,
        iterations: usize,
        e: IntegrationError,
    ) -> Solve {
        self.evaluation_failed = true;
        self.events.push(Event::CorrectorFailure {
            t,
            h,
            iterations,
            equation: e.message,
            variable: "(right-hand side evaluation)".into(),
        });
        Solve::Failed
    }

    /// After a corrector failure (the loop counts it): with a J evaluated
    /// for this attempt the step is cut (`cut`) and the LU re-formed;
    /// with a stale J the next attempt evaluates J first (BBH §3).
    pub fn after_corrector_failure(&mut self, cut: bool) {
        if cut {
            self.lu_valid = false;
        } else {
            self.force_jac = true;
        }
    }

    /// Bookkeeping of an accepted step ending at t_new (the loop counts
    /// the step): reuse counters and the weights of the new y.
    pub fn accepted(&mut self, t_new: f64) {
        self.t = t_new;
        self.steps_since_jac += 1;
        self.steps_since_lu += 1;
        self.jac_current = false;
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

    /// Hand the counted evaluations, Jacobians and corrector iterations
    /// to the loop's statistics (factorizations stay here: the loop adds
    /// `stats.factorizations` through `Method::own_factorizations`), and
    /// the events to its log.
    pub fn flush(&mut self, stats: &mut Statistics, events: Option<&mut Vec<Event>>) {
        stats.residual_evaluations += std::mem::take(&mut self.stats.residual_evaluations);
        stats.jacobian_evaluations += std::mem::take(&mut self.stats.jacobian_evaluations);
        stats.corrector_iterations += std::mem::take(&mut self.stats.corrector_iterations);
        if let Some(events) = events {
            events.append(&mut self.events);
        }
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
}
