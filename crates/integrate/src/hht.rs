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
//! Local error (seeds: error control on accelerations of body equations).
//! Expanding the exact solution about t_n with a_{n+1} = q̈ + h q⃛ + O(h²)
//! (a_n = q̈), the Newmark formulas (38), (39) miss the Taylor series by
//!
//!   q: (β − 1/6) h³ q⃛ + O(h⁴),   u: (γ − 1/2 + α) h² q⃛ + O(h³)
//!
//! (the α term from the pseudo-acceleration, a_{n+1} − q̈_{n+1} = α(q̈_{n+1}
//! − q̈_n) ≈ α h q⃛). The velocity term vanishes exactly when γ = 1/2 − α
//! (HHT, the trapezoidal Newmark): the method is then second order and the
//! displacement term leads. Otherwise (NEWMARK's default γ = 0.7) the
//! velocity error O(h²) leads and the method is first order: a velocity
//! error δu made in one step moves every later position, so the global
//! error is O(h). With q⃛ ≈ (a_{n+1} − a_n)/h both terms are estimated
//! from the acceleration change Δa_i, each against its own variable's
//! weight,
//!
//!   e_q,i = |β − 1/6| h² |Δa_i|       against ERROR·max(1, |q_i|),
//!   e_u,i = |γ − 1/2 + α| h |Δa_i|     against ERROR·max(1, |u_i|),
//!
//! (+ ADAPTIVITY/h when h < 100·HMIN), max norm, and the step follows the
//! order: ratio^(−1/(p+1)). Before, the velocity term was charged as the
//! displacement h·e_u (an h³ estimate for a first-order method), so h
//! followed ERROR^(1/3) and the global error ERROR^(1/3) only (slope
//! 0.2–0.35 on the conformance problems); per-step control of the
//! leading term gives ERROR^(1/2), p/(p+1) for p = 1. For HHT nothing
//! changes (e_u = 0).
//! The corrector is the shared one (newton.rs); the step loop stepper.rs.
//!
//! User states (DIFF, LSE, TFSISO, GSE, stiction deformation): first-order
//! rows G(q, u, w, w', t) = 0, discretized by the first-order analogue of
//! the same α-method (Arnold & Brüls' generalized-α with α_m = 0,
//! α_f = −α, applied to w' as to q̈): a pseudo-rate v with
//!
//!   (1 + α) w'_{n+1} − α w'_n = v_{n+1},   w_{n+1} = w_n + h ((1 − γ) v_n + γ v_{n+1}),
//!
//! and G holding at t_{n+1} with the true rate w'_{n+1}. The Newton unknown
//! is the pseudo-rate v_{n+1}, as a is for q: ∂w_{n+1}/∂v = γh and
//! ∂w'_{n+1}/∂v = 1/(1 + α), so the state columns γh ∂G/∂w + ∂G/∂w'/(1+α)
//! are multiplied, never divided, by h and a factorization kept over steps
//! of changing h stays a good one (with w_{n+1} as unknown the ∂G/∂w'
//! term was 1/((1+α)γh): a reused matrix then converged falsely and the
//! lag's error grew to 3e-3 at ERROR = 1e-7). An algebraic state (LSE
//! output, implicit VARIABLE: no w' in its row) keeps w_{n+1} as its
//! unknown instead: its column ∂G/∂w is then free of h. v_n ≈ w'(t_n) +
//! α h_prev w'' carries the last step's size; a step of another size h
//! takes v_n re-based to w'_n + α (h/h_prev)(w'_n − w'_{n−1}) (equal to
//! v_n at equal steps), else each step-size jump leaves a first-order
//! error (1 − γ) α (h_prev − h) h w'': measured on the lag at ERROR =
//! 1e-7, a landing step of 1e-5 followed by 8e-3 put 1.8e-5 into w. Taylor
//! expansion of the exact solution gives v_n = w'(t_n) + α h w'' + O(h²),
//! so the update's h² term is (γ + α) h² w'': second order exactly when
//! γ = 1/2 − α, HHT's own condition — the states need no extra parameter.
//! Its h³ term leaves the local error (1/12 − α/2 − α²) h³ w''' (1/12 at
//! α = 0: the trapezoidal rule). In the stiff limit the amplification
//! roots solve γ(1+α) z² + ((1−γ)(1+α) − γα) z − (1−γ)α = 0: at α = −0.3
//! z = −0.25, −0.43 (damped); at α = 0, 0 and −1 (trapezoidal). Seeds ("Error
//! control of HHT and Newmark integrators"): HHT and NEWMARK error-control
//! the DIFF states too, so they are of class UserState: estimated with
//! w''' from the last three pseudo-rates and converged by the corrector
//! (except those the problem says are not error-controlled: solved
//! quantities, and the states whose functions read them, whose rates carry
//! the index-3 multipliers' errors, mbsolve-solver `user_states.rs`).

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
    /// [q; u; w] and [u; q̈; w'] of the accepted state (the DaeIntegrator view).
    y: Vec<f64>,
    yp: Vec<f64>,
    classes: Vec<VarClass>,
    conv_mask: Vec<bool>,
    /// Largest local error relative to max(1, |q_i|) of the last estimate.
    local: f64,
    /// User states: w, the true rate w', the pseudo-rate v (module notes),
    /// their values at the step before and the step's trial values.
    states: StateTrack,
}

/// The user states' accepted, previous and trial values.
#[derive(Clone, Default)]
struct StateTrack {
    nw: usize,
    w: Vec<f64>,
    wp: Vec<f64>,
    v: Vec<f64>,
    w_prev: Vec<f64>,
    wp_prev: Vec<f64>,
    v_prev: Vec<f64>,
    wt: Vec<f64>,
    wpt: Vec<f64>,
    vt: Vec<f64>,
    /// Per state: algebraic (unknown w) or not (unknown v); the step's
    /// ∂w/∂unknown and ∂w'/∂w for the iteration matrix.
    algebraic: Vec<bool>,
    /// Per state: error-controlled or not (a solved quantity is not:
    /// `SecondOrderProblem::state_error_controlled`).
    controlled: Vec<bool>,
    cv: Vec<f64>,
    cw: Vec<f64>,
    /// v_n re-based to the step h: w'_n + α (h/h_prev)(w'_n − w'_{n−1}),
    /// which is v_n when h = h_prev (module notes).
    veff: Vec<f64>,
}

impl StateTrack {
    fn new(nw: usize) -> Self {
        let z = vec![0.0; nw];
        StateTrack {
            nw,
            w: z.clone(),
            wp: z.clone(),
            v: z.clone(),
            w_prev: z.clone(),
            wp_prev: z.clone(),
            v_prev: z.clone(),
            wt: z.clone(),
            wpt: z.clone(),
            vt: z.clone(),
            algebraic: vec![false; nw],
            controlled: vec![true; nw],
            cv: z.clone(),
            cw: z.clone(),
            veff: z,
        }
    }
    /// Trial v and w' from the trial w (module notes).
    fn rates_from_value(&mut self, h: f64, alpha: f64, gamma: f64) {
        for k in 0..self.nw {
            self.vt[k] = (self.wt[k] - self.w[k] - h * (1.0 - gamma) * self.veff[k]) / (gamma * h);
            self.wpt[k] = (self.vt[k] + alpha * self.wp[k]) / (1.0 + alpha);
        }
    }
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
        let (n, m, nw) = (problem.nq(), problem.nm(), problem.nw());
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, m));
        classes.extend(std::iter::repeat_n(VarClass::UserState, nw));
        let converge: &[VarClass] = if params.converge_multipliers {
            &[
                VarClass::Displacement,
                VarClass::Multiplier,
                VarClass::UserState,
            ]
        } else {
            &[VarClass::Displacement, VarClass::UserState]
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
        let algebraic = (0..nw).map(|k| problem.state_is_algebraic(k)).collect();
        let controlled = (0..nw).map(|k| problem.state_error_controlled(k)).collect();
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
            y: [q0, u0, &vec![0.0; nw]].concat(),
            yp: [u0, a0, &vec![0.0; nw]].concat(),
            conv_mask: class_mask(&classes, converge),
            classes,
            local: 0.0,
            params,
            states: StateTrack {
                algebraic,
                controlled,
                ..StateTrack::new(nw)
            },
        };
        Ok(Stepper::with_method(
            method,
            limits,
            Newton::new(n + m + nw),
            t0,
        ))
    }

    /// Start the user states at (w0, w'0), consistent with the mechanics
    /// at t0 (the pseudo-rate starts at w'0, as a does at q̈0). Their
    /// counts must match the problem's `nw`.
    pub fn with_states(mut self, w0: &[f64], wp0: &[f64]) -> Result<Self, IntegrationError> {
        let m = &mut self.method;
        let nw = m.states.nw;
        if w0.len() != nw || wp0.len() != nw {
            return Err(IntegrationError::failure(
                self.t,
                format!(
                    "HHT: {} initial user states and {} rates for {nw} states",
                    w0.len(),
                    wp0.len()
                ),
            ));
        }
        let st = &mut m.states;
        for x in [&mut st.w, &mut st.w_prev, &mut st.wt] {
            x.copy_from_slice(w0);
        }
        for x in [
            &mut st.wp,
            &mut st.wp_prev,
            &mut st.wpt,
            &mut st.v,
            &mut st.v_prev,
            &mut st.vt,
        ] {
            x.copy_from_slice(wp0);
        }
        let n2 = 2 * m.n;
        m.y[n2..].copy_from_slice(w0);
        m.yp[n2..].copy_from_slice(wp0);
        Ok(self)
    }

    /// The user states w at `time()`.
    pub fn states(&self) -> &[f64] {
        &self.method.states.w
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

    /// Name of unknown i: accelerations, then multipliers, then user states.
    fn unknown_name(&self, i: usize) -> String {
        let nl = self.n + self.lam.len();
        if i < self.n {
            format!("{} acceleration", self.problem.describe_coordinate(i))
        } else if i < nl {
            format!("multiplier of {}", self.problem.describe_equation(i))
        } else {
            self.problem.describe_state(i - nl)
        }
    }
    /// Name of equation i: body and algebraic rows, then user-state rows.
    fn equation_name(&self, i: usize) -> String {
        let nl = self.n + self.lam.len();
        if i < nl {
            self.problem.describe_equation(i)
        } else {
            self.problem.describe_state(i - nl)
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
        let (n, nm) = (m.n, m.lamt.len());
        m.true_acceleration();
        if m.states.nw > 0 {
            m.problem.load_states(&m.states.wt, &m.states.wpt);
        }
        let (body, rest) = out.split_at_mut(n);
        let (cons, rows_w) = rest.split_at_mut(nm);
        m.problem
            .body_residual(self.tn, &m.qt, &m.ut, &m.a_arg, &m.lamt, body)?;
        let scale = 1.0 / (m.params.beta * self.h * self.h);
        m.problem
            .constraint_residual(self.tn, &m.qt, &m.ut, &m.lamt, scale, cons)?;
        m.problem.state_residual(self.tn, &m.qt, &m.ut, rows_w)?;
        if let Some(i) = out.iter().position(|v| !v.is_finite()) {
            return Err(ProblemError(format!(
                "non-finite residual in {}",
                m.equation_name(i)
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
            .jacobian(self.tn, &m.qt, &m.ut, &m.a_arg, &m.lamt, cq, cu, ca, asm)?;
        if m.states.nw == 0 {
            return Ok(());
        }
        // d/dv = γh (∂/∂w + ∂/∂w' /((1 + α) γh)) (module notes); an
        // algebraic state's unknown is w itself.
        let st = &mut m.states;
        for k in 0..st.nw {
            st.cw[k] = ca / cu;
            st.cv[k] = if st.algebraic[k] { 1.0 } else { cu };
        }
        m.problem.load_states(&st.wt, &st.wpt);
        m.problem
            .state_jacobian(self.tn, &m.qt, &m.ut, cq, cu, &st.cw, &st.cv, asm)
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
        let nm = m.lamt.len();
        for k in 0..nm {
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
        let nl = n + nm;
        for k in 0..m.states.nw {
            let dw = if m.states.algebraic[k] { 1.0 } else { cu } * d[nl + k];
            m.states.wt[k] += dw;
            if converge[nl + k] {
                let e = dw.abs() / self.tol.weight(m.states.wt[k]);
                if e > norms.primary {
                    norms.primary = e;
                    norms.worst = nl + k;
                }
            }
        }
        if m.states.nw > 0 {
            let (alpha, gamma) = (m.params.alpha, m.params.gamma);
            m.states.rates_from_value(self.h, alpha, gamma);
        }
        norms
    }
    /// The unscaled constraint residual Φ within the problem's tolerance.
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let s = self.m.params.beta * self.h * self.h;
        let violation = res[self.m.n..self.m.n + self.m.lamt.len()]
            .iter()
            .fold(0.0f64, |acc, v| acc.max((v * s).abs()));
        violation <= self.m.problem.constraint_tolerance()
    }
    fn describe_equation(&self, i: usize) -> String {
        self.m.equation_name(i)
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
        // User states: v extrapolated like a, w from the update formula.
        let (alpha, g) = (self.params.alpha, self.params.gamma);
        let r = if self.h_prev > 0.0 {
            h / self.h_prev
        } else {
            0.0
        };
        let st = &mut self.states;
        for k in 0..st.nw {
            st.veff[k] = st.wp[k] + alpha * r * (st.wp[k] - st.wp_prev[k]);
            st.vt[k] = st.v[k] + r * (st.v[k] - st.v_prev[k]);
            st.wt[k] = st.w[k] + h * ((1.0 - g) * st.veff[k] + g * st.vt[k]);
            st.wpt[k] = (st.vt[k] + alpha * st.wp[k]) / (1.0 + alpha);
        }
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
        let (cq, cu) = self.params.error_constants();
        let (cq, cu) = (cq * h * h, cu * h);
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
            let (eq, eu) = (cq * w * da.abs(), cu * w * da.abs());
            let (rq, ru) = (eq / tol.weight(self.qt[i]), eu / tol.weight(self.ut[i]));
            // Velocities are numbered after the user states (n + nw + i)
            // so that a failure names the variable that failed.
            let (r, at) = if ru > rq {
                (ru, self.n + self.states.nw + i)
            } else {
                (rq, i)
            };
            if r > worst.ratio {
                worst = Estimate {
                    ratio: r,
                    worst: at,
                };
            }
            let local = (eq / self.qt[i].abs().max(1.0)).max(eu / self.ut[i].abs().max(1.0));
            self.local = self.local.max(local);
        }
        // User states (module notes): local error (1/12 − α/2 − α²) h³ w'''
        // plus |γ + α − 1/2| h² w'' (zero for HHT; NEWMARK's first-order
        // term), with w'' ≈ (v_{n+1} − v_n)/h and w''' from the divided
        // difference of the last three pseudo-rates. The first step has no
        // w''' yet and charges h²|w''| in its place.
        let (alpha, g) = (self.params.alpha, self.params.gamma);
        let c3 = (1.0 / 12.0 - alpha / 2.0 - alpha * alpha).abs();
        let c2 = (g + alpha - 0.5).abs();
        let hp = self.h_prev;
        let st = &self.states;
        for k in 0..st.nw {
            if !st.controlled[k] {
                continue;
            }
            let w2 = (st.vt[k] - st.v[k]) / h;
            let e3 = if two_step {
                let w3 = 2.0 / (h + hp) * (w2 - (st.v[k] - st.v_prev[k]) / hp);
                c3 * h * h * h * w3.abs()
            } else {
                h * h * w2.abs()
            };
            let e = e3 + c2 * h * h * w2.abs();
            let r = e / tol.weight(st.wt[k]);
            if r > worst.ratio {
                worst = Estimate {
                    ratio: r,
                    worst: self.n + k,
                };
            }
            self.local = self.local.max(e / st.wt[k].abs().max(1.0));
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
        self.y[n..2 * n].copy_from_slice(&self.u);
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
        self.yp[n..2 * n].copy_from_slice(&self.qdd);
        let st = &mut self.states;
        if st.nw > 0 {
            st.w_prev.copy_from_slice(&st.w);
            st.wp_prev.copy_from_slice(&st.wp);
            std::mem::swap(&mut st.w, &mut st.wt);
            std::mem::swap(&mut st.v, &mut st.vt);
            st.v_prev.copy_from_slice(&st.vt);
            st.wp.copy_from_slice(&st.wpt);
            self.y[2 * n..].copy_from_slice(&st.w);
            self.yp[2 * n..].copy_from_slice(&st.wp);
        }
        Ok(())
    }
    /// Next step: error ∝ h^(p+1) (p = 2 for HHT, 1 for NEWMARK with
    /// γ ≠ 1/2). Small increases are not worth losing the
    /// factorization; no increase right after a failure.
    fn next_step(&mut self, step: &Accepted, _tol: &Tolerance, limits: &Limits) -> f64 {
        let (h, natural) = (step.h, step.natural);
        let err = step.estimate.ratio.max(HHT_ERROR_FLOOR);
        let mut r = (HHT_SAFETY * err.powf(-self.params.error_exponent())).min(HHT_MAX_INCREASE);
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
            (ERROR_FAILURE_SAFETY * est.ratio.powf(-self.params.error_exponent()))
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
    /// ends of the step), of u (from u, q̈) and of w (from w, w'), so
    /// y = [q; u; w], y' = [u; q̈; w'] are third-order accurate within the step.
    fn interpolate(&self, t_last: f64, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let h = self.h_prev;
        if h <= 0.0 {
            y.copy_from_slice(&self.y);
            yp.copy_from_slice(&self.yp);
            return true;
        }
        let n = self.n;
        let (b, db) = hermite((t - (t_last - h)) / h);
        let st = &self.states;
        let ends = [
            (&self.q_prev, &self.u_prev, &self.q, &self.u, 0, n),
            (&self.u_prev, &self.qdd_prev, &self.u, &self.qdd, n, n),
            (&st.w_prev, &st.wp_prev, &st.w, &st.wp, 2 * n, st.nw),
        ];
        for (x0, d0, x1, d1, off, len) in ends {
            for i in 0..len {
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
    /// Displacements 0..n, user states n..n + nw, velocities after them
    /// (`estimate`).
    fn describe_error_variable(&self, i: usize) -> String {
        let nw = self.states.nw;
        if i >= self.n + nw {
            let i = i - self.n - nw;
            return format!("{} velocity", self.problem.describe_coordinate(i));
        }
        if i >= self.n {
            return self.problem.describe_state(i - self.n);
        }
        format!("{} displacement", self.problem.describe_coordinate(i))
    }
}
