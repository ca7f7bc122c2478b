//! The SI2 formulation (Gear–Gupta–Leimkuhler stabilized index 2; seeds:
//! "The SI2 Formulation", eq. 36):
//!   q' − u + Φ_qᵀμ = 0,   M(q) u' + (velocity terms) − Q + Φ_qᵀλ = 0,
//!   Φ(q,t) = 0,   Φ_q u + Φ_t = 0.
//! Both the position and the velocity constraints hold at every corrected
//! step; μ is zero in the exact solution and only absorbs the discretization
//! error of q' = u. Deactivated (redundant) rows pin their λ_k and μ_k to 0,
//! except a row deactivated only near a singular configuration: its place
//! (Φ row, velocity row, λ_k and μ_k) is taken by the linear branch row
//! Ψ = g·(q − q₀), g·u = 0 (`redundancy::BranchRow`) until it is released.
//!
//! Conditioning (seeds: "the Jacobian of (36) does not become ill-conditioned
//! as h → 0"). With c = 1/(h·l0) the plain iteration matrix has O(c) entries
//! in the q and u rows and O(1) multiplier columns, so its condition number
//! grows like c². Two scalings make the matrix the LU factors tend to a
//! nonsingular h-independent limit,
//!   [I 0 0 Φ_qᵀ; 0 M Φ_qᵀ 0; Φ_q 0 0 0; (Φ_q u)_q Φ_q 0 0]:
//! - rows: the q and u rows are multiplied by s = 1/c (c of the last
//!   Jacobian; the residual uses the same s, and a Newton correction does not
//!   depend on a row scaling applied to both — the corrector-failure
//!   diagnostic's "largest residual" therefore sees those rows times h·l0);
//! - unknowns: the multipliers are carried in differential form, as HASTIFF
//!   does: the state holds ν and η with λ = ν' and μ = η'. The integrator's
//!   own BDF relation gives ∂λ/∂ν = c, so the multiplier columns carry
//!   c·Φ_qᵀ and, after the row scaling, exactly Φ_qᵀ — the Newton unknowns
//!   are h·l0·λ and h·l0·μ in effect, consistently for residual, Jacobian and
//!   the correction the integrator applies. The discrete solution in
//!   (q, u, λ, μ) is the same as with algebraic multipliers (ν is free, so
//!   ν' can take any value), and ν, η themselves never enter the equations.
//!
//! Measured 2-norm condition numbers at order 1 for h = 1e-2 … 1e-7
//! (tests/si2.rs): pendulum 23.2 throughout, four-bar 116 → 107; the plain
//! SI2 matrix grows with slope 2 (5.9e4 → 5.7e14 on the pendulum), I3's
//! with slope 3 and is singular to working precision below h = 1e-4.
//!
//! State y = (q, u, ν, η), y' = (q', u', λ, μ). Classes: q Displacement,
//! u Velocity, ν and η Multiplier (never error-controlled).

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
use mbsolve_model::Model;

pub struct Si2Problem<'a> {
    pub sys: &'a System,
    /// This problem's mechanics data (active set, evaluation cache).
    pub data: MechData,
    classes: Vec<VarClass>,
    phi: Vec<f64>,
    /// s = 1/c of the last Jacobian: the q and u rows are multiplied by it
    /// in the residual and the Jacobian alike (1 before the first Jacobian).
    row_scale: f64,
    /// Deactivated equations checked after every accepted step.
    pub watch: RedundancyWatch,
    /// |Φ| and |Φ_q u + Φ_t| bound for corrector convergence.
    pub constraint_tol: f64,
    /// The user states, after η.
    states: StateBlock,
}

impl<'a> Si2Problem<'a> {
    pub fn new(sys: &'a System, data: MechData) -> Self {
        let (n, m) = (sys.nq(), sys.neq());
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Velocity, n));
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, 2 * m));
        let states = StateBlock::new(sys, 2 * (n + m));
        states.extend_classes(&mut classes);
        Si2Problem {
            sys,
            data,
            classes,
            phi: vec![0.0; m],
            row_scale: 1.0,
            watch: RedundancyWatch::default(),
            constraint_tol: CONSTRAINT_TOL,
            states,
        }
    }

    /// (y0, y0') from a consistent state: ν = η = 0, λ from the state, μ = 0.
    pub fn initial_values(&self, s: &Frame) -> (Vec<f64>, Vec<f64>) {
        let m = self.sys.neq();
        let zeros = || std::iter::repeat_n(0.0, m);
        let y: Vec<f64> =
            s.q.iter()
                .chain(&s.u)
                .copied()
                .chain(zeros())
                .chain(zeros())
                .collect();
        let mut yp: Vec<f64> =
            s.u.iter()
                .chain(&s.a)
                .chain(&s.lambda)
                .copied()
                .chain(zeros())
                .collect();
        let mut y = y;
        self.states.extend_initial(s, &mut y, &mut yp);
        (y, yp)
    }
}

impl DaeProblem for Si2Problem<'_> {
    fn size(&self) -> usize {
        2 * (self.sys.nq() + self.sys.neq()) + self.sys.nw()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    /// Position and velocity constraints both within the tolerance.
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let start = 2 * self.sys.nq();
        res[start..start + 2 * self.sys.neq()]
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
        let (nu, eta) = (&y[2 * n..2 * n + m], &y[2 * n + m..2 * (n + m)]);
        let (qp, up) = (&yp[..n], &yp[n..2 * n]);
        let (lam, mu) = (&yp[2 * n..2 * n + m], &yp[2 * n + m..2 * (n + m)]);
        self.states.load(&mut self.data, y, yp);
        self.states.residual(self.sys, &self.data, q, u, t, out);
        let p = crate::reaction_fn::point(&self.data, t, q, u, up, lam);
        let rows = &mut out[self.states.at..self.states.at + self.states.nw];
        self.sys.solved_residual(&self.data, &p, rows);
        let (r1, rest) = out.split_at_mut(n);
        let (r2, rest) = rest.split_at_mut(n);
        let (r3, rest) = rest.split_at_mut(m);
        let r4 = &mut rest[..m];
        for i in 0..n {
            r1[i] = qp[i] - u[i];
        }
        let data = &mut self.data;
        data.set_multipliers(lam);
        self.sys.applied_residual(data, q, u, up, t, r2);
        // One evaluation of each constraint for Φ, Φ_qᵀμ, Φ_qᵀλ and the
        // velocity rows Φ_q u + Φ_t (η_k for deactivated equations).
        self.sys.constraint_terms(
            data,
            q,
            t,
            &mut self.phi,
            &mut [(mu, &mut *r1), (lam, &mut *r2)],
            Some((u, &mut *r4)),
        );
        for k in 0..m {
            if !data.active[k] {
                r4[k] = eta[k];
            }
        }
        // Branch rows of inactive singular-configuration equations
        // (`redundancy::BranchRow`): Ψ and Ψ_q u with multipliers λ_k, μ_k.
        for b in &self.watch.branches {
            r4[b.k] = b.rate(u);
            for (&c, &g) in b.cols.iter().zip(&b.grad) {
                r1[c] += mu[b.k] * g;
                r2[c] += lam[b.k] * g;
            }
        }
        let s = self.row_scale;
        for v in r1.iter_mut().chain(r2.iter_mut()) {
            *v *= s;
        }
        rows_from_values(&data.active, &self.phi, nu, 1.0, r3);
        for b in &self.watch.branches {
            r3[b.k] = b.value(q);
        }
        // A velocity-level row (velocity GCON) has no position row: its
        // velocity row g = A u + b (r4, from the Pfaffian view) holds with
        // λ_k, and its position row pins η_k (so μ_k = 0).
        for (k, eq) in self.sys.equations.iter().enumerate() {
            if eq.is_velocity() && data.active[k] {
                r3[k] = eta[k];
            }
        }
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
        let (q, u) = (&y[..n], &y[n..2 * n]);
        let up = &yp[n..2 * n];
        let (lam, mu) = (&yp[2 * n..2 * n + m], &yp[2 * n + m..2 * (n + m)]);
        self.row_scale = 1.0 / c;
        let s = self.row_scale;
        // User-state rows (unscaled) and the force rows' (scaled by s)
        // user-state columns.
        self.states.load(&mut self.data, y, yp);
        self.states
            .jacobian(self.sys, &self.data, q, u, t, c, n, n, s, a);
        // Solved quantities' rows (unscaled): u̇ = y' of u, λ = ν'.
        let cols = crate::reaction_fn::first_order_columns(self.states.at, n, n, (2 * n, true), c);
        let p = crate::reaction_fn::point(&self.data, t, q, u, up, lam);
        self.sys
            .solved_jacobian(&self.data, &p, &cols, &mut crate::formulation::AsmSink(a));
        // ∂λ/∂ν = ∂μ/∂η = c, times the row scale: ≈ 1.
        let sc = s * c;
        let (row_vel, col_nu, col_eta) = (2 * n + m, 2 * n, 2 * n + m);
        // q rows: s·(q' − u + Φ_qᵀμ).
        for i in 0..n {
            a.add(i, i, sc);
            a.add(i, n + i, -s);
        }
        // u rows: s·R(q, u, u', λ); its s·λ_k ∇²Φ_k are emitted below
        // from the one Hessian each equation's rows need.
        self.sys.body_jacobian(
            &mut self.data,
            q,
            u,
            up,
            None,
            t,
            &mut ScaledSink { asm: a, scale: s },
            n,
            Some(0),
            n,
            1.0,
            c,
        );
        for k in 0..m {
            let eq = &self.sys.equations[k];
            let on = self.data.active[k];
            let v = on.then(|| self.sys.equation::<Hess>(k, q, t));
            let extra = on.then(|| self.sys.extra_piece::<Hess>(k, q, t)).flatten();
            // A GCON over more than two parts: what each piece's
            // (∇²Φ u + Φ_qt) lacks, and its blocks between the pieces.
            let cross = on.then(|| self.sys.cross_terms(k, q, t)).flatten();
            let missing = cross.as_ref().map_or([Grad::zeros(); 2], |c| {
                let extra = eq.extra_bodies().unwrap_or([None, None]);
                c.velocity_terms(&gather(&eq.bodies(), u), &gather(&extra, u))
            });
            // The row's pieces: its two bodies and, over more than two
            // bodies (COUPLER), the extra pair, each with (∇Φ, ∇²Φ,
            // (Φ_q u + Φ_t)_q = ∇²Φ u + Φ_qt), None when inactive.
            // A velocity-level row: its velocity row's q derivative is
            // ∂g/∂q = (∂A/∂q)ᵀu + b_q (∂A/∂q is not symmetric).
            let velocity_row = on.then(|| self.sys.velocity_row(k, q, u, t)).flatten();
            let primary = v.as_ref().map(|v| {
                let dvel = match &velocity_row {
                    Some(r) => r.dq,
                    None => v.s.hess * gather(&eq.bodies(), u) + v.phi_qt + missing[0],
                };
                (v.s.grad, v.s.hess, dvel)
            });
            let velocity = eq.is_velocity();
            let second = extra
                .as_ref()
                .map(|(b, x)| (x.grad, x.hess, x.hess * gather(b, u) + missing[1]));
            let pieces = std::iter::once((eq.bodies(), primary, true))
                .chain(eq.extra_bodies().map(|b| (b, second, false)));
            for (bodies, piece, primary) in pieces {
                // (∇²Φ u + Φ_qt) has structurally zero r entries where ∇²Φ
                // has no r rows: not emitted (see `Equation::hess_row`).
                for l in 0..NL {
                    let Some(gi) = global_index(&bodies, l) else {
                        continue;
                    };
                    if eq.hess_row(l) {
                        a.add(row_vel + k, gi, piece.as_ref().map_or(0.0, |p| p.2[l]));
                    }
                    let g = piece.as_ref().map_or(0.0, |p| p.0[l]);
                    a.add(2 * n + k, gi, if velocity { 0.0 } else { g });
                    a.add(n + gi, col_nu + k, sc * g);
                    a.add(row_vel + k, n + gi, g);
                    a.add(gi, col_eta + k, sc * g);
                }
                if primary {
                    let branch = self.watch.branch_row(k);
                    let pin = if on || branch.is_some() { 0.0 } else { 1.0 };
                    a.add(2 * n + k, col_nu + k, pin);
                    a.add(row_vel + k, col_eta + k, pin);
                    if velocity {
                        a.add(2 * n + k, col_eta + k, if on { 1.0 } else { 0.0 });
                    }
                    // A branch row is linear: g in its rows and multiplier
                    // columns.
                    for (&c, &g) in branch.iter().flat_map(|b| b.cols.iter().zip(&b.grad)) {
                        a.add(2 * n + k, c, g);
                        a.add(row_vel + k, n + c, g);
                        a.add(n + c, col_nu + k, sc * g);
                        a.add(c, col_eta + k, sc * g);
                    }
                }
                // s·μ_k ∇²Φ_k in the q rows (fixed pattern: zeros when μ_k = 0).
                let h = match &piece {
                    Some(p) if mu[k] != 0.0 => p.1 * (s * mu[k]),
                    _ => Hess::zeros(),
                };
                let hl = match &piece {
                    Some(p) if lam[k] != 0.0 => p.1 * lam[k],
                    _ => Hess::zeros(),
                };
                if primary {
                    eq.scatter_hess(&h, &mut AsmSink(a), 0, 0);
                    // s·λ_k ∇²Φ_k in the u rows (∂(Φ_qᵀλ)/∂q of R; zeros
                    // when λ_k = 0), as `System::body_jacobian` would add it.
                    eq.scatter_hess(&hl, &mut ScaledSink { asm: a, scale: s }, n, 0);
                } else {
                    scatter_hess(&bodies, &h, &mut AsmSink(a), 0, 0);
                    scatter_hess(&bodies, &hl, &mut ScaledSink { asm: a, scale: s }, n, 0);
                }
            }
            let c = cross.as_ref().filter(|_| mu[k] != 0.0);
            self.sys
                .scatter_cross_hess(k, c, s * mu[k], &mut AsmSink(a), 0, 0);
            let c = cross.as_ref().filter(|_| lam[k] != 0.0);
            let mut scaled = ScaledSink { asm: a, scale: s };
            self.sys.scatter_cross_hess(k, c, lam[k], &mut scaled, n, 0);
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
        if i < n {
            format!("{} displacement", coordinate_name(self.sys, i))
        } else if i < 2 * n {
            format!("{} velocity", coordinate_name(self.sys, i - n))
        } else if i < 2 * n + m {
            format!("multiplier of {}", equation_name(self.sys, i - 2 * n))
        } else {
            format!(
                "velocity-constraint multiplier of {}",
                equation_name(self.sys, i - 2 * n - m)
            )
        }
    }
    fn describe_equation(&self, i: usize) -> String {
        if let Some(name) = self.states.describe(self.sys, i) {
            return name;
        }
        let (n, m) = (self.sys.nq(), self.sys.neq());
        if i < n {
            format!("{} velocity definition", coordinate_name(self.sys, i))
        } else if i < 2 * n {
            format!("{} force balance", coordinate_name(self.sys, i - n))
        } else if i < 2 * n + m {
            equation_name(self.sys, i - 2 * n)
        } else {
            format!("{} (velocity)", equation_name(self.sys, i - 2 * n - m))
        }
    }
}

/// SI2 needs motions whose displacement is smooth (seeds: "Non-smooth
/// motions, which theoretically cause infinite accelerations, cause failures
/// in the SI2 formulation"): a velocity jump forces a jump in u through
/// Φ_q u + Φ_t = 0 that no step size can make small. After an SI2 failure
/// at t (the last accepted time) this names the MOTION whose velocity jumps
/// just after t, located by bisection; None if no motion has a jump there.
pub fn non_smooth_motion(model: &Model, t: f64) -> Option<String> {
    let scale = t.abs().max(1.0);
    let left = t - 1e-9 * scale;
    for motion in &model.motions {
        let f = &motion.function;
        let v0 = f.eval(left)[1];
        for w in [1e-8, 1e-6, 1e-4, 1e-2] {
            let right = t + w * scale;
            let v1 = f.eval(right)[1];
            let jump = v1 - v0;
            // (NaN compares false: no jump.)
            let significant = jump.abs() > 1e-9 * v0.abs().max(v1.abs()).max(1.0);
            if !significant {
                continue;
            }
            // Bisect for the crossing of the mid value; a jump stays a jump
            // across the final interval, a smooth crossing does not.
            let mid = v0 + 0.5 * jump;
            let (mut lo, mut hi) = (left, right);
            for _ in 0..80 {
                let x = 0.5 * (lo + hi);
                if x <= lo || x >= hi {
                    break;
                }
                if (f.eval(x)[1] - mid) * jump < 0.0 {
                    lo = x;
                } else {
                    hi = x;
                }
            }
            let (vl, vr) = (f.eval(lo)[1], f.eval(hi)[1]);
            if (vr - vl).abs() > 0.5 * jump.abs() {
                return Some(format!(
                    "MOTION/{}: its velocity jumps from {vl:.6e} to {vr:.6e} at t = {hi:.9e} (the displacement has a kink); the SI2 formulation requires MOTIONs that are smooth and twice differentiable (non-smooth motions cause failures in SI2) — smooth the motion (e.g. STEP5 or HAVSIN) or use the I3 formulation",
                    motion.id
                ));
            }
        }
    }
    None
}

stabilized_formulation! {
    /// The SI2 formulation (y′ = (u, a, λ, μ): a = u′, λ = ν′.)
    SI2 = "SI2", Si2Problem, acceleration at 1, multipliers at 2, branch rows
}
