//! The I3 equations as the second-order problem HHT and NEWMARK integrate:
//! the mechanics seen as a second-order index-3 system (body equations R = M a + F with
//! F = velocity terms − Q + Φ_qᵀλ, position constraints Φ; deactivated
//! redundant rows pin λ_k = 0).

use crate::formulation::{
    check_finite, constraint_rows, coordinate_name, equation_name, AsmSink, RedundancyWatch,
    ScaledSink, CONSTRAINT_TOL,
};
use mbsolve_integrate::{ProblemError, SecondOrderProblem, SlotAssembler};
use mbsolve_mech::{MechData, System};

pub struct I3SecondOrder<'a> {
    pub sys: &'a System,
    /// This problem's mechanics data (active set, evaluation cache).
    pub data: MechData,
    phi: Vec<f64>,
    /// See `I3Problem::watch`.
    pub watch: RedundancyWatch,
    pub constraint_tol: f64,
    /// The accelerations and multipliers of the last body residual or
    /// Jacobian, which the solved quantities' rows read
    /// (`reaction_fn.rs`; the state rows come after them in each pass).
    solved_at: (Vec<f64>, Vec<f64>),
    /// Per user state: error-controlled or not
    /// (`user_states::index3_error_controlled`).
    controlled: Vec<bool>,
}

impl<'a> I3SecondOrder<'a> {
    pub fn new(sys: &'a System, data: MechData) -> Self {
        I3SecondOrder {
            sys,
            data,
            phi: vec![0.0; sys.neq()],
            watch: RedundancyWatch::default(),
            constraint_tol: CONSTRAINT_TOL,
            solved_at: (Vec::new(), Vec::new()),
            controlled: crate::user_states::index3_error_controlled(sys),
        }
    }
}

impl SecondOrderProblem for I3SecondOrder<'_> {
    fn nq(&self) -> usize {
        self.sys.nq()
    }
    fn nm(&self) -> usize {
        self.sys.neq()
    }
    fn body_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        self.sys.body_residual(&mut self.data, q, u, a, lam, t, out);
        if self.sys.n_solved() > 0 {
            crate::output::fill(&mut self.solved_at.0, a);
            crate::output::fill(&mut self.solved_at.1, lam);
        }
        check_finite(out, |i| {
            format!("{} force balance", coordinate_name(self.sys, i))
        })
    }
    fn constraint_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        lam: &[f64],
        scale: f64,
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        let data = &mut self.data;
        constraint_rows(self.sys, data, q, lam, t, scale, &mut self.phi, out);
        // Velocity-level rows (velocity GCONs): scale·g(q, u, t), so the
        // unscaled |g| meets the constraint tolerance as |Φ| does.
        self.sys.velocity_row_values(data, q, u, t, scale, out);
        check_finite(out, |k| equation_name(self.sys, k))
    }
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
    ) -> Result<(), ProblemError> {
        let n = self.sys.nq();
        if self.sys.n_solved() > 0 {
            crate::output::fill(&mut self.solved_at.0, a);
            crate::output::fill(&mut self.solved_at.1, lam);
        }
        // body_jacobian emits ∂R/∂q + c'u ∂R/∂u + c'a ∂R/∂a; with c' = c/cq
        // and every value multiplied by cq the matrix receives
        // βh² ∂R/∂q + γh ∂R/∂u + M/(1+α), all in one pass over the forces.
        let mut s = ScaledSink { asm, scale: cq };
        let data = &mut self.data;
        self.sys.body_jacobian(
            data,
            q,
            u,
            a,
            Some(lam),
            t,
            &mut s,
            0,
            Some(0),
            0,
            cu / cq,
            ca / cq,
        );
        let mut s = AsmSink(asm);
        // ∂(g/βh²)/∂a = ∂g/∂q + (γh/βh²)·∂g/∂u for a velocity-level row.
        self.sys.constraint_jacobian_with_velocity_rows(
            data,
            q,
            t,
            &mut s,
            n,
            0,
            Some((0, n)),
            Some(n),
            mbsolve_mech::system::VelocityColumns::Combined { u, cu: cu / cq },
        );
        Ok(())
    }
    fn constraint_tolerance(&self) -> f64 {
        self.constraint_tol
    }
    fn structure_holds(&mut self, t: f64, q: &[f64]) -> bool {
        self.watch.holds(self.sys, q, t)
    }
    fn describe_coordinate(&self, i: usize) -> String {
        coordinate_name(self.sys, i)
    }
    fn describe_equation(&self, i: usize) -> String {
        let n = self.sys.nq();
        if i < n {
            format!("{} force balance", coordinate_name(self.sys, i))
        } else {
            equation_name(self.sys, i - n)
        }
    }
    fn nw(&self) -> usize {
        self.sys.nw()
    }
    fn load_states(&mut self, w: &[f64], wp: &[f64]) {
        self.data.states.set(w, wp);
    }
    fn state_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        self.sys.state_residual(&self.data, q, u, t, out);
        let (a, lam) = (&self.solved_at.0, &self.solved_at.1);
        let p = crate::reaction_fn::point(&self.data, t, q, u, a, lam);
        self.sys.solved_residual(&self.data, &p, out);
        check_finite(out, |k| format!("{} state", self.sys.state_name(k)))
    }
    /// The DIFF rows after the algebraic rows, their unknowns (the
    /// pseudo-rates v, or w of algebraic states) in the same positions; the
    /// a-columns take βh² ∂G/∂q + γh ∂G/∂u (the Newmark formulas' dq/da,
    /// du/da), state column k of DIFF and body rows cv_k (∂/∂w_k + cw_k
    /// ∂/∂w'_k). `cw` is one value for all states (the mechanics takes one
    /// seed). `jacobian` runs first and has set the multipliers the
    /// stiction rows read.
    fn state_jacobian(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        cq: f64,
        cu: f64,
        cw: &[f64],
        cv: &[f64],
        asm: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        let (n, at) = (self.sys.nq(), self.sys.nq() + self.sys.neq());
        let cw = cw.first().copied().unwrap_or(0.0);
        let mut rows = ColumnScales { asm, n, cq, at, cv };
        self.sys.state_jacobian(
            &self.data,
            q,
            u,
            t,
            &mut rows,
            at,
            Some(0),
            0,
            cu / cq,
            at,
            cw,
        );
        self.sys
            .force_state_jacobian(&self.data, q, u, t, &mut rows, 0, at, cw);
        // Solved quantities' rows: q, u and the true acceleration
        // (a + α q̈ₙ)/(1 + α) all follow the unknown a (cw·cu = 1/(1 + α)).
        let (a, lam) = (&self.solved_at.0, &self.solved_at.1);
        let p = crate::reaction_fn::point(&self.data, t, q, u, a, lam);
        let cols = crate::reaction_fn::second_order_columns(at, n, (cq, cu, cw * cu), cw);
        self.sys.solved_jacobian(&self.data, &p, &cols, &mut rows);
        Ok(())
    }
    fn state_is_algebraic(&self, k: usize) -> bool {
        self.sys.states.equations[k].form == mbsolve_mech::states::StateForm::Output
    }
    /// Not a solved quantity (`reaction_fn.rs`), which mirrors q, u, a
    /// and λ (its pseudo-rate starts from no consistent rate, and
    /// estimating it rejected the first steps), nor a state whose function
    /// reads one (`user_states::index3_error_controlled`: HHT's λ after a
    /// step reduction).
    fn state_error_controlled(&self, k: usize) -> bool {
        self.controlled[k]
    }
    fn describe_state(&self, k: usize) -> String {
        format!("{} state", self.sys.state_name(k))
    }
}

/// A sink that multiplies the entries in the acceleration columns 0..n by
/// `cq` (= βh²: the user-state rows' ∂G/∂q) and those in state column
/// `at + k` by `cv[k]` (∂w_k/∂unknown_k).
struct ColumnScales<'a> {
    asm: &'a mut SlotAssembler,
    n: usize,
    cq: f64,
    at: usize,
    cv: &'a [f64],
}

impl mbsolve_mech::Sink for ColumnScales<'_> {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        let scale = if c < self.n {
            self.cq
        } else if c >= self.at {
            self.cv[c - self.at]
        } else {
            1.0
        };
        self.asm.add(r, c, scale * v);
    }
}
