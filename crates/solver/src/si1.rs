//! The SI1 formulation (stabilized index 1; seeds: adams-integrator-
//! statement "The I1 (Hiller–Anantharaman index-1) Formulation",
//! motionsolve-param-transient "Equation Formulation": the "seemingly
//! redundant" velocity and acceleration constraints added to I3). All three
//! constraint levels hold at every corrected step:
//!
//!   q′ − u + Φ_qᵀμ = 0                      (n)  μ keeps Φ = 0
//!   u′ − a + Φ_qᵀρ = 0                      (n)  ρ keeps Φ̇ = 0
//!   M(q) a + (velocity terms) − Q + Φ_qᵀλ = 0 (n)  λ keeps Φ̈ = 0
//!   Φ(q,t) = 0,  Φ̇ = Φ_q u + Φ_t = 0,
//!   Φ̈ = Φ_q a + (Φ_q u)_q u + 2Φ_qt u + Φ_tt = 0.
//!
//! The acceleration a is an unknown of its own, so the force balance and
//! Φ̈ = 0 determine (a, λ) algebraically — index 1 — while μ and ρ, zero in
//! the exact solution, absorb the discretization error of q′ = u and
//! u′ = a, as SI2's μ does for q′ = u. Error control: displacements and
//! velocities (seeds' table, "HASTIFF SI1/SI2": one row for ORIGINAL and
//! MODIFIED, so there is no temporary switch).
//!
//! Scaling (as SI2, si2.rs): the three dynamic row blocks are multiplied by
//! s = hβ₀ = 1/c of the last Jacobian, and a and every multiplier are
//! carried in differential form (the state holds α, ν, η, ζ with a = α′,
//! λ = ν′, μ = η′, ρ = ζ′), so their columns carry s·c = 1 times the
//! coefficient. The acceleration rows are scaled by s as well: their α
//! column is s·c·Φ_q = Φ_q and their q, u columns vanish with h. The
//! h → 0 limit of the matrix, in columns (q, u, α, ν, η, ζ),
//!   [I 0 0 0 Φ_qᵀ 0; 0 I −I 0 0 Φ_qᵀ; 0 0 M Φ_qᵀ 0 0;
//!    Φ_q 0 0 0 0 0; (Φ_q u)_q Φ_q 0 0 0 0; 0 0 Φ_q 0 0 0],
//! is block triangular over three saddle-point blocks, each nonsingular
//! when Φ_q has full row rank: the matrix "cannot become ill-conditioned
//! even at small step sizes" (seeds). HASTIFF's own statement of the
//! scaling — constraints by 1/(hβ₀) — is this matrix times c.
//!
//! ∂Φ̈/∂q needs third derivatives of Φ, which the mechanics does not give;
//! it is the central difference of the analytic Φ̈ over each equation's
//! local coordinates (an O(δ²) term in rows already multiplied by hβ₀).
//!
//! Deactivated (redundant) rows pin their ν_k, η_k and ζ_k to 0.
//! State y = (q, u, α, ν, η, ζ), y′ = (q′, u′, a, λ, μ, ρ). Classes: q
//! Displacement, u Velocity, α and the multipliers Multiplier (never
//! error-controlled).

use crate::analysis::Frame;
use crate::formulation::{
    check_finite, coordinate_name, equation_name, rows_from_values, stabilized_formulation,
    AsmSink, RedundancyWatch, ScaledSink, CONSTRAINT_TOL,
};
use crate::user_states::StateBlock;
use mbsolve_integrate::{DaeProblem, ProblemError, SlotAssembler, VarClass};
use mbsolve_mech::local::{Grad, Hess, NL};
use mbsolve_mech::system::{gather, global_index, scatter_hess};
use mbsolve_mech::{MechData, System};

/// Relative step of the central difference of Φ̈ over q (δ = this ×
/// max(1, |q_i|)): truncation δ²·|Φ̈‴| and round-off ε·|Φ̈|/δ both near
/// 1e-10 relative.
const ACCELERATION_FD_STEP: f64 = 1e-5;

pub struct Si1Problem<'a> {
    pub sys: &'a System,
    /// This problem's mechanics data (active set, evaluation cache).
    pub data: MechData,
    classes: Vec<VarClass>,
    phi: Vec<f64>,
    /// Scratch copy of q for the differences of Φ̈.
    q_shift: Vec<f64>,
    /// s = 1/c of the last Jacobian (1 before the first).
    row_scale: f64,
    pub watch: RedundancyWatch,
    /// |Φ| and |Φ̇| bound for corrector convergence.
    pub constraint_tol: f64,
    /// The user states, after ζ.
    states: StateBlock,
}

/// Φ̈_k = Φ_q a + uᵀ∇²Φ u + 2Φ_qt·u + Φ_tt over the equation's local
/// coordinates, and its gradient in u (2∇²Φ u + 2Φ_qt).
fn acceleration_constraint(
    sys: &System,
    k: usize,
    q: &[f64],
    u: &[f64],
    a: &[f64],
    t: f64,
) -> (f64, Grad) {
    let bodies = sys.equations[k].bodies();
    let v = sys.equation::<Hess>(k, q, t);
    let (ul, al) = (gather(&bodies, u), gather(&bodies, a));
    let hu = v.s.hess * ul;
    let mut val = v.s.grad.dot(&al) + ul.dot(&hu) + 2.0 * v.phi_qt.dot(&ul) + v.phi_tt;
    // A row over more than two bodies: its extra piece's Φ_q a + uᵀ∇²Φ u
    // (and a GCON's cross-piece terms; its u gradient: `CrossTerms`).
    if let Some((extra, x)) = sys.extra_piece::<Hess>(k, q, t) {
        let (ul1, al) = (gather(&extra, u), gather(&extra, a));
        val += x.grad.dot(&al) + ul1.dot(&(x.hess * ul1));
        if let Some(c) = sys.cross_terms(k, q, t) {
            val += c.acceleration_term(&ul, &ul1);
        }
    }
    (val, 2.0 * hu + 2.0 * v.phi_qt)
}

impl<'a> Si1Problem<'a> {
    pub fn new(sys: &'a System, data: MechData) -> Self {
        let (n, m) = (sys.nq(), sys.neq());
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Velocity, n));
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, n + 3 * m));
        let states = StateBlock::new(sys, 3 * (n + m));
        states.extend_classes(&mut classes);
        Si1Problem {
            sys,
            data,
            classes,
            phi: vec![0.0; m],
            q_shift: vec![0.0; n],
            row_scale: 1.0,
            watch: RedundancyWatch::default(),
            constraint_tol: CONSTRAINT_TOL,
            states,
        }
    }

    /// (y0, y0′) from a consistent state: α = ν = η = ζ = 0, a and λ from
    /// the state, μ = ρ = 0.
    pub fn initial_values(&self, s: &Frame) -> (Vec<f64>, Vec<f64>) {
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let zeros = |k| std::iter::repeat_n(0.0, k);
        let y: Vec<f64> =
            s.q.iter()
                .chain(&s.u)
                .copied()
                .chain(zeros(n + 3 * m))
                .collect();
        let mut yp: Vec<f64> =
            s.u.iter()
                .chain(&s.a)
                .chain(&s.a)
                .chain(&s.lambda)
                .copied()
                .chain(zeros(2 * m))
                .collect();
        let mut y = y;
        self.states.extend_initial(s, &mut y, &mut yp);
        (y, yp)
    }

    /// ∂Φ̈_k/∂q at local coordinate l (global gi), by central differences.
    fn acceleration_dq(
        &mut self,
        k: usize,
        gi: usize,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        t: f64,
    ) -> f64 {
        let d = ACCELERATION_FD_STEP * q[gi].abs().max(1.0);
        self.q_shift.copy_from_slice(q);
        self.q_shift[gi] = q[gi] + d;
        let plus = acceleration_constraint(self.sys, k, &self.q_shift, u, a, t).0;
        self.q_shift[gi] = q[gi] - d;
        let minus = acceleration_constraint(self.sys, k, &self.q_shift, u, a, t).0;
        (plus - minus) / (2.0 * d)
    }
}

impl DaeProblem for Si1Problem<'_> {
    fn size(&self) -> usize {
        3 * (self.sys.nq() + self.sys.neq()) + self.sys.nw()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    /// Position and velocity constraints within the tolerance (the
    /// acceleration rows are linear in a: each Newton update satisfies
    /// them to round-off).
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let (n, m) = (self.sys.nq(), self.sys.neq());
        res[3 * n..3 * n + 2 * m]
            .iter()
            .all(|v| v.abs() <= self.constraint_tol)
    }
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let (q, u) = (&y[..n], &y[n..2 * n]);
        let (nu, eta, zeta) = (
            &y[3 * n..3 * n + m],
            &y[3 * n + m..3 * n + 2 * m],
            &y[3 * n + 2 * m..3 * (n + m)],
        );
        let (qp, up, acc) = (&yp[..n], &yp[n..2 * n], &yp[2 * n..3 * n]);
        let lam = &yp[3 * n..3 * n + m];
        let (mu, rho) = (
            &yp[3 * n + m..3 * n + 2 * m],
            &yp[3 * n + 2 * m..3 * (n + m)],
        );
        self.states.load(&mut self.data, y, yp);
        self.states.residual(self.sys, &self.data, q, u, t, out);
        let p = crate::reaction_fn::point(&self.data, t, q, u, acc, lam);
        let rows = &mut out[self.states.at..self.states.at + self.states.nw];
        self.sys.solved_residual(&self.data, &p, rows);
        let (r1, rest) = out.split_at_mut(n);
        let (r2, rest) = rest.split_at_mut(n);
        let (r3, rest) = rest.split_at_mut(n);
        let (r4, rest) = rest.split_at_mut(m);
        let (r5, rest) = rest.split_at_mut(m);
        let r6 = &mut rest[..m];
        for i in 0..n {
            r1[i] = qp[i] - u[i];
            r2[i] = up[i] - acc[i];
        }
        self.data.set_multipliers(lam);
        self.sys.applied_residual(&self.data, q, u, acc, t, r3);
        self.sys.constraint_terms(
            &mut self.data,
            q,
            t,
            &mut self.phi,
            &mut [(mu, &mut *r1), (rho, &mut *r2), (lam, &mut *r3)],
            Some((u, &mut *r5)),
        );
        let s = self.row_scale;
        for k in 0..m {
            if self.data.active[k] {
                r6[k] = s * acceleration_constraint(self.sys, k, q, u, acc, t).0;
            } else {
                r5[k] = eta[k];
                r6[k] = zeta[k];
            }
        }
        for v in r1.iter_mut().chain(r2.iter_mut()).chain(r3.iter_mut()) {
            *v *= s;
        }
        rows_from_values(&self.data.active, &self.phi, nu, 1.0, r4);
        check_finite(out, |i| self.describe_equation(i))
    }
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let sys = self.sys;
        let (q, u) = (&y[..n], &y[n..2 * n]);
        let acc = &yp[2 * n..3 * n];
        let lam = &yp[3 * n..3 * n + m];
        let (mu, rho) = (
            &yp[3 * n + m..3 * n + 2 * m],
            &yp[3 * n + 2 * m..3 * (n + m)],
        );
        self.row_scale = 1.0 / c;
        let s = self.row_scale;
        // User-state rows (unscaled) and the force rows' (scaled by s)
        // user-state columns.
        self.states.load(&mut self.data, y, yp);
        self.states
            .jacobian(sys, &self.data, q, u, t, c, n, 2 * n, s, a);
        // Solved quantities' rows (unscaled): a = α', λ = ν'.
        let cols =
            crate::reaction_fn::first_order_columns(self.states.at, n, 2 * n, (3 * n, true), c);
        let p = crate::reaction_fn::point(&self.data, t, q, u, acc, lam);
        sys.solved_jacobian(&self.data, &p, &cols, &mut crate::formulation::AsmSink(a));
        // ∂(a, λ, μ, ρ)/∂(α, ν, η, ζ) = c, times the row scale: ≈ 1.
        let sc = s * c;
        let (col_u, col_alpha) = (n, 2 * n);
        let (col_nu, col_eta, col_zeta) = (3 * n, 3 * n + m, 3 * n + 2 * m);
        let (row_pos, row_vel, row_acc) = (3 * n, 3 * n + m, 3 * n + 2 * m);
        for i in 0..n {
            // s·(q′ − u): q′ = c·q + …
            a.add(i, i, sc);
            a.add(i, col_u + i, -s);
            // s·(u′ − a): u′ = c·u + …, a = c·α + …
            a.add(n + i, col_u + i, sc);
            a.add(n + i, col_alpha + i, -sc);
        }
        // Force balance s·R(q, u, a, λ): ∂/∂q and ∂/∂u (the u columns), then
        // c·M into the α columns (a = α′).
        let mut scaled = ScaledSink { asm: a, scale: s };
        sys.body_jacobian(
            &mut self.data,
            q,
            u,
            acc,
            Some(lam),
            t,
            &mut scaled,
            2 * n,
            Some(0),
            col_u,
            1.0,
            0.0,
        );
        sys.body_jacobian(
            &mut self.data,
            q,
            u,
            acc,
            Some(lam),
            t,
            &mut scaled,
            2 * n,
            None,
            col_alpha,
            0.0,
            c,
        );
        for k in 0..m {
            let on = self.data.active[k];
            let v = on.then(|| sys.equation::<Hess>(k, q, t));
            let extra = on.then(|| sys.extra_piece::<Hess>(k, q, t)).flatten();
            // A GCON over more than two parts: what each piece's
            // (∇²Φ u + Φ_qt) lacks, and its blocks between the pieces.
            let cross = on.then(|| sys.cross_terms(k, q, t)).flatten();
            let missing = cross.as_ref().map_or([Grad::zeros(); 2], |c| {
                let eq = &sys.equations[k];
                let extra = eq.extra_bodies().unwrap_or([None, None]);
                c.velocity_terms(&gather(&eq.bodies(), u), &gather(&extra, u))
            });
            // The row's pieces: its two bodies and, over more than two
            // bodies (COUPLER), the extra pair: (bodies, ∇Φ, ∇²Φ, (Φ_q u +
            // Φ_t)_q = ∇²Φ u + Φ_qt, ∂Φ̈/∂u) each, None when inactive.
            let primary = v.as_ref().map(|v| {
                let dvel = v.s.hess * gather(&sys.equations[k].bodies(), u) + v.phi_qt + missing[0];
                let dacc_u = acceleration_constraint(sys, k, q, u, acc, t).1 + 2.0 * missing[0];
                (v.s.grad, v.s.hess, dvel, dacc_u)
            });
            let second = extra.as_ref().map(|(b, x)| {
                let hu = x.hess * gather(b, u) + missing[1];
                (x.grad, x.hess, hu, 2.0 * hu)
            });
            let pieces = std::iter::once((sys.equations[k].bodies(), primary))
                .chain(sys.equations[k].extra_bodies().map(|b| (b, second)));
            for (p, (bodies, piece)) in pieces.enumerate() {
                for l in 0..NL {
                    let Some(gi) = global_index(&bodies, l) else {
                        continue;
                    };
                    let g = piece.as_ref().map_or(0.0, |p| p.0[l]);
                    let dq = if on {
                        self.acceleration_dq(k, gi, q, u, acc, t)
                    } else {
                        0.0
                    };
                    a.add(gi, col_eta + k, sc * g);
                    a.add(n + gi, col_zeta + k, sc * g);
                    a.add(2 * n + gi, col_nu + k, sc * g);
                    a.add(row_pos + k, gi, g);
                    a.add(row_vel + k, gi, piece.as_ref().map_or(0.0, |p| p.2[l]));
                    a.add(row_vel + k, col_u + gi, g);
                    a.add(row_acc + k, gi, s * dq);
                    a.add(
                        row_acc + k,
                        col_u + gi,
                        piece.as_ref().map_or(0.0, |p| s * p.3[l]),
                    );
                    a.add(row_acc + k, col_alpha + gi, sc * g);
                }
                if p == 0 {
                    let pin = if on { 0.0 } else { 1.0 };
                    a.add(row_pos + k, col_nu + k, pin);
                    a.add(row_vel + k, col_eta + k, pin);
                    a.add(row_acc + k, col_zeta + k, pin);
                }
                // s·μ_k ∇²Φ_k in the q rows and s·ρ_k ∇²Φ_k in the u rows
                // (fixed pattern: zeros when the multiplier is 0).
                for (row0, mult) in [(0, mu[k]), (n, rho[k])] {
                    let h = match &piece {
                        Some(p) if mult != 0.0 => p.1 * (s * mult),
                        _ => Hess::zeros(),
                    };
                    scatter_hess(&bodies, &h, &mut AsmSink(a), row0, 0);
                }
            }
            for (row0, mult) in [(0, mu[k]), (n, rho[k])] {
                let c = cross.as_ref().filter(|_| mult != 0.0);
                sys.scatter_cross_hess(k, c, s * mult, &mut AsmSink(a), row0, 0);
            }
        }
        Ok(())
    }
    fn structure_holds(&mut self, t: f64, y: &[f64]) -> bool {
        self.watch.holds(self.sys, &y[..self.sys.nq()], t)
    }
    fn describe_variable(&self, i: usize) -> String {
        if let Some(name) = self.states.describe(self.sys, i) {
            return name;
        }
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let sys = self.sys;
        match i {
            _ if i < n => format!("{} displacement", coordinate_name(sys, i)),
            _ if i < 2 * n => format!("{} velocity", coordinate_name(sys, i - n)),
            _ if i < 3 * n => format!("{} acceleration", coordinate_name(sys, i - 2 * n)),
            _ if i < 3 * n + m => format!("multiplier of {}", equation_name(sys, i - 3 * n)),
            _ if i < 3 * n + 2 * m => format!(
                "position-constraint multiplier of {}",
                equation_name(sys, i - 3 * n - m)
            ),
            _ => format!(
                "velocity-constraint multiplier of {}",
                equation_name(sys, i - 3 * n - 2 * m)
            ),
        }
    }
    fn describe_equation(&self, i: usize) -> String {
        if let Some(name) = self.states.describe(self.sys, i) {
            return name;
        }
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let sys = self.sys;
        match i {
            _ if i < n => format!("{} velocity definition", coordinate_name(sys, i)),
            _ if i < 2 * n => format!("{} acceleration definition", coordinate_name(sys, i - n)),
            _ if i < 3 * n => format!("{} force balance", coordinate_name(sys, i - 2 * n)),
            _ if i < 3 * n + m => equation_name(sys, i - 3 * n),
            _ if i < 3 * n + 2 * m => format!("{} (velocity)", equation_name(sys, i - 3 * n - m)),
            _ => format!("{} (acceleration)", equation_name(sys, i - 3 * n - 2 * m)),
        }
    }
}

stabilized_formulation! {
    /// The SI1 formulation (y′ = (u, u′, a, λ, μ, ρ): a = α′ (not u′), λ = ν′.)
    SI1 = "SI1", Si1Problem, acceleration at 2, multipliers at 3
}
