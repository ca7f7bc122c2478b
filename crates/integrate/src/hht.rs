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
//! The corrector is the shared one (newton.rs); the step loop stepper.rs.

use crate::control::*;
use crate::error::IntegrationError;
use crate::events::Statistics;
use crate::newton::{Newton, NewtonSystem, Norms, Step};
use crate::problem::{class_mask, ProblemError, SecondOrderProblem, VarClass};
use crate::sparse::SlotAssembler;
use crate::stepper::{Accepted, Estimate, Failures, Limits, Method, Stepper, Tolerance, Work};

pub use crate::params::{FixedStep, HhtParams};

/// The HHT / NEWMARK method: the accepted state, the step's trial state
/// and the data the predictor and interpolation need.
pub struct HhtMethod<'a, P: SecondOrderProblem> {
    problem: &'a mut P,
    params: HhtParams,
    n: usize,
    q: Vec<f64>,
    u: Vec<f64>,
    a: Vec<f64>,
    lam: Vec<f64>,
    /// The true acceleration q̈_n of the accepted step. The Newmark formulas
    /// advance with the pseudo-acceleration a (Arnold & Brüls' form of the
    /// α-method, HHT: α_m = 0, α_f = −α): (1 + α) q̈_{n+1} − α q̈_n =
    /// a_{n+1}, and the equations of motion hold at t_{n+1} with q̈_{n+1}.
    /// The form M_{n+1} a_{n+1} + (1 + α) F_{n+1} − α F_n = 0 used before
    /// is the same for a constant mass matrix but first order when M(q)
    /// varies (rotating rigid bodies): measured on a single rod pendulum at
    /// α = −0.3, error 6.5e-6 → 3.2e-6 → 1.6e-6 as h halves, now second
    /// order.
    qdd: Vec<f64>,
    /// q̈ of the step before (interpolation of u).
    qdd_prev: Vec<f64>,
    /// q, u, a, λ and h of the step before (predictor, interpolation);
    /// h_prev = 0: none yet.
    q_prev: Vec<f64>,
    u_prev: Vec<f64>,
    a_prev: Vec<f64>,
    lam_prev: Vec<f64>,
    h_prev: f64,
    qt: Vec<f64>,
    ut: Vec<f64>,
    at: Vec<f64>,
    lamt: Vec<f64>,
    a_arg: Vec<f64>,
    /// [q; u] and [u; q̈] of the accepted state (the DaeIntegrator view).
    y: Vec<f64>,
    yp: Vec<f64>,
    classes: Vec<VarClass>,
    conv_mask: Vec<bool>,
    /// Largest local error relative to max(1, |q_i|) of the last estimate.
    local: f64,
}

/// HHT / NEWMARK under the one step loop.
pub type Hht<'a, P> = Stepper<HhtMethod<'a, P>>;

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
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, m));
        let converge: &[VarClass] = if params.converge_multipliers {
            &[VarClass::Displacement, VarClass::Multiplier]
        } else {
            &[VarClass::Displacement]
        };
        let limits = Limits {
            error: params.error,
            hmin: params.hmin,
            hmax: params.hmax,
            hinit: params.hinit,
            adaptivity: params.adaptivity,
            fixed: params.fixed.clone(),
            constant_step: false,
        };
        let method = HhtMethod {
            problem,
            n,
            q: q0.to_vec(),
            u: u0.to_vec(),
            a: a0.to_vec(),
            lam: lam0.to_vec(),
            qdd: a0.to_vec(),
            qdd_prev: a0.to_vec(),
            q_prev: q0.to_vec(),
            u_prev: u0.to_vec(),
            a_prev: vec![0.0; n],
            lam_prev: vec![0.0; m],
            h_prev: 0.0,
            qt: q0.to_vec(),
            ut: u0.to_vec(),
            at: a0.to_vec(),
            lamt: lam0.to_vec(),
            a_arg: vec![0.0; n],
            y: [q0, u0].concat(),
            yp: [u0, a0].concat(),
            conv_mask: class_mask(&classes, converge),
            classes,
            local: 0.0,
            params,
        };
        Ok(Stepper::with_method(method, limits, Newton::new(n + m), t0))
    }

    pub fn q(&self) -> &[f64] {
        &self.method.q
    }
    pub fn u(&self) -> &[f64] {
        &self.method.u
    }
    /// The acceleration q̈ at `time()`: the one the equations of motion
    /// hold with (not the Newmark pseudo-acceleration the formulas carry).
    pub fn acceleration(&self) -> &[f64] {
        &self.method.qdd
    }
    pub fn lambda(&self) -> &[f64] {
        &self.method.lam
    }
    pub fn params(&self) -> &HhtParams {
        &self.method.params
    }
}

impl<P: SecondOrderProblem> HhtMethod<'_, P> {
    /// a_arg ← q̈_{n+1} = (a_{n+1} + α q̈_n)/(1 + α) of the trial a.
    fn true_acceleration(&mut self) {
        let alpha = self.params.alpha;
        for i in 0..self.n {
            self.a_arg[i] = (self.at[i] + alpha * self.qdd[i]) / (1.0 + alpha);
        }
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

    /// Name of unknown i: accelerations, then multipliers.
    fn unknown_name(&self, i: usize) -> String {
        if i < self.n {
            format!("{} acceleration", self.problem.describe_coordinate(i))
        } else {
            format!("multiplier of {}", self.problem.describe_equation(i))
        }
    }
}

/// One HHT step's system in the unknowns (a, λ) at t_{n+1} = tn.
struct HhtSystem<'s, 'a, P: SecondOrderProblem> {
    m: &'s mut HhtMethod<'a, P>,
    tn: f64,
    h: f64,
    tol: Tolerance,
}

impl<P: SecondOrderProblem> NewtonSystem for HhtSystem<'_, '_, P> {
    fn coefficient(&self) -> Option<f64> {
        None
    }
    /// Discretized equations (48) and (53) at the trial state.
    fn residual(&mut self, out: &mut [f64]) -> Result<(), ProblemError> {
        let m = &mut *self.m;
        let n = m.n;
        m.true_acceleration();
        let (body, cons) = out.split_at_mut(n);
        m.problem
            .body_residual(self.tn, &m.qt, &m.ut, &m.a_arg, &m.lamt, body)?;
        let scale = 1.0 / (m.params.beta * self.h * self.h);
        m.problem
            .constraint_residual(self.tn, &m.qt, &m.lamt, scale, cons)?;
        if let Some(i) = out.iter().position(|v| !v.is_finite()) {
            return Err(ProblemError(format!(
                "non-finite residual in {}",
                m.problem.describe_equation(i)
            )));
        }
        Ok(())
    }
    fn jacobian(&mut self, asm: &mut SlotAssembler) -> Result<(), ProblemError> {
        let m = &mut *self.m;
        m.true_acceleration();
        let (cq, cu) = (m.params.beta * self.h * self.h, m.params.gamma * self.h);
        let ca = 1.0 / (1.0 + m.params.alpha);
        m.problem
            .jacobian(self.tn, &m.qt, &m.ut, &m.a_arg, &m.lamt, cq, cu, ca, asm)
    }
    /// The correction's weighted norms over the displacements and
    /// velocities it implies, and over the multipliers.
    fn apply(&mut self, d: &[f64], converge: &[bool]) -> Norms {
        let m = &mut *self.m;
        let n = m.n;
        let (cq, cu) = (m.params.beta * self.h * self.h, m.params.gamma * self.h);
        let mut norms = Norms::default();
        for i in 0..n {
            m.at[i] += d[i];
            m.qt[i] += cq * d[i];
            m.ut[i] += cu * d[i];
            if converge[i] {
                let e = ((cq * d[i]).abs() / self.tol.weight(m.qt[i]))
                    .max((cu * d[i]).abs() / self.tol.weight(m.ut[i]));
                if e > norms.primary {
                    norms.primary = e;
                    norms.worst = i;
                }
            }
        }
        for k in 0..m.lamt.len() {
            m.lamt[k] += d[n + k];
            if converge[n + k] {
                let e = d[n + k].abs() / self.tol.weight(m.lamt[k]);
                if e > norms.multipliers {
                    norms.multipliers = e;
                    if norms.multipliers > norms.primary {
                        norms.worst = n + k;
                    }
                }
            }
        }
        norms
    }
    /// The unscaled constraint residual Φ within the problem's tolerance.
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let s = self.m.params.beta * self.h * self.h;
        let violation = res[self.m.n..]
            .iter()
            .fold(0.0f64, |acc, v| acc.max((v * s).abs()));
        violation <= self.m.problem.constraint_tolerance()
    }
    fn describe_equation(&self, i: usize) -> String {
        self.m.problem.describe_equation(i)
    }
    fn describe_unknown(&self, i: usize) -> String {
        self.m.unknown_name(i)
    }
}

/// Cubic Hermite basis on s ∈ [0, 1] and its s-derivative.
fn hermite(s: f64) -> ([f64; 4], [f64; 4]) {
    let (s2, s3) = (s * s, s * s * s);
    (
        [
            2.0 * s3 - 3.0 * s2 + 1.0,
            s3 - 2.0 * s2 + s,
            -2.0 * s3 + 3.0 * s2,
            s3 - s2,
        ],
        [
            6.0 * s2 - 6.0 * s,
            3.0 * s2 - 4.0 * s + 1.0,
            -6.0 * s2 + 6.0 * s,
            3.0 * s2 - 2.0 * s,
        ],
    )
}

impl<P: SecondOrderProblem> Method for HhtMethod<'_, P> {
    fn order(&self) -> usize {
        self.params.order()
    }
    fn unknown_classes(&self) -> &[VarClass] {
        &self.classes
    }
    /// Predictor: a and λ extrapolated linearly from the last two accepted
    /// steps (constant on the first step); q and u from the Newmark formulas.
    fn predict(&mut self, _t: f64, h: f64) {
        if self.h_prev > 0.0 {
            let r = h / self.h_prev;
            for i in 0..self.n {
                self.at[i] = self.a[i] + r * (self.a[i] - self.a_prev[i]);
            }
            for k in 0..self.lam.len() {
                self.lamt[k] = self.lam[k] + r * (self.lam[k] - self.lam_prev[k]);
            }
        } else {
            self.at.copy_from_slice(&self.a);
            self.lamt.copy_from_slice(&self.lam);
        }
        self.newmark_update(h);
    }
    fn correct(&mut self, t: f64, h: f64, work: &mut Work) -> Result<bool, IntegrationError> {
        let mask = std::mem::take(&mut self.conv_mask);
        let pattern = std::mem::take(&mut self.params.pattern);
        let step = Step {
            tn: t + h,
            h,
            maxit: work.fixed_iterations.unwrap_or(self.params.maxit),
            pattern: &pattern,
            conv_mask: &mask,
        };
        let mut sys = HhtSystem {
            m: self,
            tn: t + h,
            h,
            tol: work.tol,
        };
        let result = if work.fixed_iterations.is_some() {
            work.newton
                .correct_fixed(&mut sys, &step, work.stats, work.events)
        } else {
            work.newton
                .correct(&mut sys, &step, work.stats, work.events)
        };
        self.conv_mask = mask;
        self.params.pattern = pattern;
        result
    }
    fn estimate(&mut self, h: f64, tol: &Tolerance) -> Estimate {
        let c = self.params.error_constant() * h * h;
        let mut worst = Estimate {
            ratio: 0.0,
            worst: 0,
        };
        self.local = 0.0;
        // The change of acceleration over the step, measured across two
        // steps, (a_{n+1} − a_{n−1})·h/(h + h_prev), once a step before
        // exists: to leading order the same h·a' as a_{n+1} − a_n, but a
        // period-2 oscillation of the constrained accelerations and
        // multipliers — undamped at α = 0 (trapezoidal rule) — cancels
        // instead of driving the estimate and collapsing the step.
        let two_step = self.h_prev > 0.0;
        let w = if two_step { h / (h + self.h_prev) } else { 1.0 };
        for i in 0..self.n {
            let da = if two_step {
                self.at[i] - self.a_prev[i]
            } else {
                self.at[i] - self.a[i]
            };
            let e = c * w * da.abs();
            let r = e / tol.weight(self.qt[i]);
            if r > worst.ratio {
                worst = Estimate { ratio: r, worst: i };
            }
            self.local = self.local.max(e / self.qt[i].abs().max(1.0));
        }
        worst
    }
    fn restore(&mut self) {}
    fn accept(
        &mut self,
        _tn: f64,
        h: f64,
        _stats: &mut Statistics,
    ) -> Result<(), IntegrationError> {
        self.q_prev.copy_from_slice(&self.q);
        self.u_prev.copy_from_slice(&self.u);
        std::mem::swap(&mut self.q, &mut self.qt);
        std::mem::swap(&mut self.u, &mut self.ut);
        std::mem::swap(&mut self.a, &mut self.at);
        std::mem::swap(&mut self.lam, &mut self.lamt);
        self.a_prev.copy_from_slice(&self.at);
        self.lam_prev.copy_from_slice(&self.lamt);
        self.h_prev = h;
        let n = self.n;
        self.y[..n].copy_from_slice(&self.q);
        self.y[n..].copy_from_slice(&self.u);
        // The true acceleration at t_{n+1}: q̈_{n+1} = (a_{n+1} + α q̈_n)/(1 + α).
        // It, not the pseudo-acceleration a, is y′'s second half: outputs
        // (ACCX, reactions) and interpolation see q̈, which satisfies the
        // equations of motion at t_{n+1}.
        let alpha = self.params.alpha;
        self.qdd_prev.copy_from_slice(&self.qdd);
        for i in 0..n {
            self.qdd[i] = (self.a[i] + alpha * self.qdd[i]) / (1.0 + alpha);
        }
        self.yp[..n].copy_from_slice(&self.u);
        self.yp[n..].copy_from_slice(&self.qdd);
        Ok(())
    }
    /// Next step: error ∝ h³. Small increases are not worth losing the
    /// factorization; no increase right after a failure.
    fn next_step(&mut self, step: &Accepted, _tol: &Tolerance, limits: &Limits) -> f64 {
        let (h, natural) = (step.h, step.natural);
        let err = step.estimate.ratio.max(HHT_ERROR_FLOOR);
        let mut r = (HHT_SAFETY * err.powf(-HHT_ERROR_EXPONENT)).min(HHT_MAX_INCREASE);
        if (1.0..HHT_DEADBAND).contains(&r) || (step.after_failure && r > 1.0) {
            r = 1.0;
        }
        if step.shortened {
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
        .min(limits.hmax)
    }
    fn after_error_failure(&mut self, h: f64, est: &Estimate, failures: &Failures) -> f64 {
        let r = if failures.consecutive >= ERROR_FAILURES_BEFORE_RESTART {
            ERROR_FAILURE_MIN_RATIO
        } else {
            (ERROR_FAILURE_SAFETY * est.ratio.powf(-HHT_ERROR_EXPONENT))
                .clamp(ERROR_FAILURE_MIN_RATIO, ERROR_FAILURE_MAX_RATIO)
        };
        h * r
    }
    fn local_error_measure(&self, _h: f64, _est: &Estimate) -> f64 {
        self.local
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.y, &self.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.y
    }
    fn multipliers(&self) -> Option<&[f64]> {
        Some(&self.lam)
    }
    /// INTERPOLATE = ON: cubic Hermite interpolation of q (from q, u at both
    /// ends of the step) and of u (from u, q̈), so y = [q; u], y' = [u; q̈]
    /// are third-order accurate within the step.
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let h = self.h_prev;
        if h <= 0.0 {
            y.copy_from_slice(&self.y);
            yp.copy_from_slice(&self.yp);
            return true;
        }
        let n = self.n;
        let (b, db) = hermite((t - (t_last - h)) / h);
        let ends = [
            (&self.q_prev, &self.u_prev, &self.q, &self.u, 0),
            (&self.u_prev, &self.qdd_prev, &self.u, &self.qdd, n),
        ];
        for (x0, d0, x1, d1, off) in ends {
            for i in 0..n {
                let v = [x0[i], h * d0[i], x1[i], h * d1[i]];
                y[off + i] = (0..4).map(|j| b[j] * v[j]).sum();
                yp[off + i] = (0..4).map(|j| db[j] * v[j]).sum::<f64>() / h;
            }
        }
        true
    }
    fn structure_holds(&mut self, t: f64) -> bool {
        self.problem.structure_holds(t, &self.q)
    }
    fn describe_error_variable(&self, i: usize) -> String {
        format!("{} displacement", self.problem.describe_coordinate(i))
    }
}
