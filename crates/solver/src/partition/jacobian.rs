//! The Jacobian ∂f/∂y of the reduced ODE y′ = f(t, y), y = (q_I, u_I),
//! f = (u_I, a_I), through the partitioning (VSTIFF's and MSTIFF's Newton
//! matrix) instead of 2·n_I finite-difference f-evaluations.
//!
//! A column j is the derivative along the full-state tangent of a unit
//! change of y_j:
//! - position column (q_I = e_j): δq_D = −Φ_D⁻¹Φ_I e_j keeps Φ = 0, and
//!   δu_D = −Φ_D⁻¹ (Φ_q u + Φ_t)_q δq keeps Φ_q u + Φ_t = 0 (u_I fixed);
//! - velocity column (u_I = e_j): δq = 0, δu_D = −Φ_D⁻¹Φ_I e_j.
//!
//! The accelerations and multipliers solve F = [R(q, u, a) + Φ_qᵀλ;
//! Φ_q a − γ(q, u)] = 0, so [M Φ_qᵀ; Φ_q 0] [δa; δλ] = −(F_q δq + F_u δu)
//! with, all exact (the Newton matrices' pieces of I3 and SI2):
//! - R_q (mass matrix, forces and ∇²Φ·λ) and R_u from `body_jacobian`;
//! - (Φ_q a)_q δq = Σ_k (∇²Φ_k a)·δq per row (equation Hessians);
//! - −γ_u δu = 2 (∇²Φ u + Φ_qt)·δu per row (γ = −(Φ_q u)_q u − 2Φ_qt u −
//!   Φ_tt is quadratic in u);
//!
//! and one piece by central differences, as the mechanics has no third
//! derivatives of the constraints: each active equation's ∂γ_k/∂q on its
//! own (at most 14) local coordinates, once per Jacobian (two evaluations
//! of that equation per coordinate, no Newton iteration and no solve);
//! then γ_q δq per row is a dot product. Then δf_j = (δu_I, δa_I). Each
//! column costs one Φ_D solve (two for a position column) and one
//! augmented solve on factorizations at the present state.
//!
//! On the 16-link chain (32 columns) one Jacobian took 1170 µs with γ_q δq
//! differenced along each column's tangent (2·n_I evaluations of all of
//! γ), 780 µs of it in γ; per equation and coordinate read (`hess_row`)
//! it is computed once.
//!
//! Not covered (the caller falls back to finite differences): models
//! with user states (w′ depends on (q, u, w) through the state rows, an
//! implicit DIFF's through a solve) and joint friction (it reads λ, and
//! `body_jacobian` has no ∂/∂λ), and rows over more than two bodies (a
//! COUPLER whose joints move three or four parts: its γ_q spans two
//! pieces; finite differences are exact enough for a Newton matrix).

use super::PartitionProblem;
use mbsolve_integrate::ProblemError;
use mbsolve_mech::local::{Grad, Hess, NL};
use mbsolve_mech::system::{gather, global_index};
use mbsolve_mech::Sink;

/// Relative step of the central differences of γ_k in one coordinate:
/// ε³ balances truncation against rounding (ε ≈ eps^(1/3)).
const GAMMA_STEP: f64 = 6e-6;

/// Buffers of the reduced Jacobian, kept between calls.
#[derive(Default)]
pub(super) struct JacobianScratch {
    /// (row, column, value) of R_q (columns 0..n) and R_u (n..2n).
    body: Vec<(usize, usize, f64)>,
    /// (active row, column, value) of Φ_q.
    phi_q: Vec<(usize, usize, f64)>,
    /// Per active row: (∇²Φ u + Φ_qt) and ∇²Φ a on the equation's local
    /// coordinates.
    dvel: Vec<Grad>,
    hess_a: Vec<Grad>,
    /// Per active row: ∂γ_k/∂q on the equation's local coordinates.
    gamma_q: Vec<Grad>,
    dq: Vec<f64>,
    du: Vec<f64>,
    rhs: Vec<f64>,
    rd: Vec<f64>,
    q_shift: Vec<f64>,
}

/// Collects sink entries as triplets, rows mapped through `row_of` (None:
/// rows as given).
struct TripletSink<'a> {
    row_of: Option<&'a [Option<usize>]>,
    out: &'a mut Vec<(usize, usize, f64)>,
}
impl Sink for TripletSink<'_> {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        let r = match self.row_of {
            Some(map) => match map[r] {
                Some(rr) => rr,
                None => return,
            },
            None => r,
        };
        if v != 0.0 {
            self.out.push((r, c, v));
        }
    }
}

impl PartitionProblem<'_> {
    /// ∂f/∂y at (t, y) into `jac` (column-major, size × size); Ok(false)
    /// where not covered (module doc).
    pub(super) fn reduced_jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        jac: &mut [f64],
    ) -> Result<bool, ProblemError> {
        if self.sys.nw() > 0
            || !self.sys.frictions.is_empty()
            || self
                .sys
                .equations
                .iter()
                .any(|e| e.extra_bodies().is_some())
        {
            return Ok(false);
        }
        if t != self.last_t || y != self.last_y.as_slice() {
            self.evaluate(t, y)?;
        }
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let nd = self.part.independent.len();
        let size = 2 * nd;
        let ma = self.rows.len();
        // Fresh factorizations at the present state: the evaluation's are
        // refined ones from a nearby state.
        self.factor_dependent(t)?;
        self.klu.factor(&self.kkt).map_err(|_| {
            ProblemError(format!(
                "t = {t:.6e}: the augmented mass-constraint matrix is singular"
            ))
        })?;
        let mut s = std::mem::take(&mut self.jac_scratch);
        s.body.clear();
        self.sys.body_jacobian(
            &mut self.data,
            &self.q,
            &self.u,
            &self.a,
            Some(&self.lam),
            t,
            &mut TripletSink {
                row_of: None,
                out: &mut s.body,
            },
            0,
            Some(0),
            n,
            1.0,
            0.0,
        );
        s.phi_q.clear();
        self.sys.constraint_jacobian(
            &mut self.data,
            &self.q,
            t,
            &mut TripletSink {
                row_of: Some(&self.row_of),
                out: &mut s.phi_q,
            },
            0,
            0,
            None,
            None,
        );
        s.dvel.clear();
        s.hess_a.clear();
        s.gamma_q.clear();
        s.q_shift.clear();
        s.q_shift.extend_from_slice(&self.q);
        for &k in &self.rows {
            let bodies = self.sys.equations[k].bodies();
            let v = self.sys.equation::<Hess>(k, &self.q, t);
            let ul = gather(&bodies, &self.u);
            s.dvel.push(v.s.hess * ul + v.phi_qt);
            s.hess_a.push(v.s.hess * gather(&bodies, &self.a));
            // γ_k = −uᵀ∇²Φ_k u − 2Φ_qt·u − Φ_tt (`acceleration_rhs`) at
            // q ± h e_l for each local coordinate l.
            let gamma = |q: &[f64]| {
                let v = self.sys.equation::<Hess>(k, q, t);
                -(ul.dot(&(v.s.hess * ul))) - 2.0 * v.phi_qt.dot(&ul) - v.phi_tt
            };
            // Coordinates Φ_k does not read (`hess_row`: no positions r)
            // leave γ_k unchanged: zero entries, not differenced.
            let eq = &self.sys.equations[k];
            let mut grad = Grad::zeros();
            for l in (0..NL).filter(|&l| eq.hess_row(l)) {
                let Some(g) = global_index(&bodies, l) else {
                    continue;
                };
                let h = GAMMA_STEP * self.q[g].abs().max(1.0);
                s.q_shift[g] = self.q[g] + h;
                let plus = gamma(&s.q_shift);
                s.q_shift[g] = self.q[g] - h;
                let minus = gamma(&s.q_shift);
                s.q_shift[g] = self.q[g];
                grad[l] = (plus - minus) / (2.0 * h);
            }
            s.gamma_q.push(grad);
        }
        s.dq.resize(n, 0.0);
        s.du.resize(n, 0.0);
        s.rhs.resize(n + m, 0.0);
        s.rd.resize(ma, 0.0);
        let singular = |_| {
            ProblemError(format!(
                "t = {t:.6e}: the dependent-coordinate block of the constraint Jacobian is singular"
            ))
        };
        for col in 0..size {
            let position = col < nd;
            let c = self.part.independent[col % nd];
            // The tangent's independent part and the dependent positions.
            s.dq.iter_mut().for_each(|v| *v = 0.0);
            s.du.iter_mut().for_each(|v| *v = 0.0);
            let unit = if position { &mut s.dq } else { &mut s.du };
            unit[c] = 1.0;
            // −Φ_I e_j, solved by Φ_D for the dependent part of the unit
            // vector's own kind (δq_D or δu_D).
            s.rd.iter_mut().for_each(|v| *v = 0.0);
            for &(r, cc, v) in &s.phi_q {
                if cc == c {
                    s.rd[r] -= v;
                }
            }
            self.dlu.solve(&mut s.rd).map_err(singular)?;
            for (j, &d) in self.part.dependent.iter().enumerate() {
                unit[d] = s.rd[j];
            }
            if position {
                // δu_D = −Φ_D⁻¹ (∇²Φ u + Φ_qt)·δq.
                for (r, &k) in self.rows.iter().enumerate() {
                    let bodies = self.sys.equations[k].bodies();
                    s.rd[r] = -s.dvel[r].dot(&gather(&bodies, &s.dq));
                }
                self.dlu.solve(&mut s.rd).map_err(singular)?;
                for (j, &d) in self.part.dependent.iter().enumerate() {
                    s.du[d] = s.rd[j];
                }
            }
            // −(F_q δq + F_u δu): the body rows.
            s.rhs.iter_mut().for_each(|v| *v = 0.0);
            for &(r, cc, v) in &s.body {
                let x = if cc < n { s.dq[cc] } else { s.du[cc - n] };
                s.rhs[r] -= v * x;
            }
            // The constraint rows: −((∇²Φ a)·δq − γ_q δq − γ_u δu).
            for (r, &k) in self.rows.iter().enumerate() {
                let bodies = self.sys.equations[k].bodies();
                let mut f = 2.0 * s.dvel[r].dot(&gather(&bodies, &s.du));
                if position {
                    let dq = gather(&bodies, &s.dq);
                    f += s.hess_a[r].dot(&dq) - s.gamma_q[r].dot(&dq);
                }
                s.rhs[n + k] = -f;
            }
            self.klu.solve(&mut s.rhs).map_err(|_| {
                ProblemError(format!(
                    "t = {t:.6e}: the augmented mass-constraint matrix is singular"
                ))
            })?;
            let out = &mut jac[col * size..(col + 1) * size];
            for (j, &ci) in self.part.independent.iter().enumerate() {
                out[j] = s.du[ci];
                out[nd + j] = s.rhs[ci];
            }
        }
        self.jac_scratch = s;
        Ok(true)
    }
}
