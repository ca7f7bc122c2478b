//! The I3 formulation: the index-3 equations of motion as an implicit DAE
//! G(t, y, y') = 0 with y = (q, u, λ):
//!   u − q' = 0,   M(q) u' + (velocity terms) − Q(q,u,t) + Φ_qᵀλ = 0,   Φ(q,t) = 0.
//! Deactivated (redundant) constraint rows become λ_k = 0.

use mbsolve_integrate::{DaeProblem, ProblemError, SlotAssembler, VarClass};
use mbsolve_mech::{Sink, System};

/// Adapter: a mech sink writing into the integrator's assembler.
pub struct AsmSink<'a>(pub &'a mut SlotAssembler);
impl Sink for AsmSink<'_> {
    #[inline]
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0.add(r, c, v);
    }
}

pub struct I3Problem<'a> {
    pub sys: &'a System,
    classes: Vec<VarClass>,
    phi: Vec<f64>,
    /// Deactivated equations checked after every accepted step (empty
    /// unless set by the caller).
    pub watch: RedundancyWatch,
    /// |Φ| bound for corrector convergence (see `constraint_tolerance`).
    pub constraint_tol: f64,
}

impl<'a> I3Problem<'a> {
    pub fn new(sys: &'a System) -> Self {
        let (n, m) = (sys.nq(), sys.neq());
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Velocity, n));
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, m));
        I3Problem {
            sys,
            classes,
            phi: vec![0.0; m],
            watch: RedundancyWatch::default(),
            constraint_tol: CONSTRAINT_TOL,
        }
    }
}

const COORD: [&str; 7] = ["x", "y", "z", "e0", "e1", "e2", "e3"];

/// "PART/2 x" style name of body coordinate `i`.
pub fn coordinate_name(sys: &System, i: usize) -> String {
    format!("PART/{} {}", sys.bodies[i / 7].part, COORD[i % 7])
}

/// "JOINT/1 Zi.Xj" style name of constraint equation `k`.
pub fn equation_name(sys: &System, k: usize) -> String {
    let e = &sys.equations[k];
    format!("{} {}", sys.model.describe(e.element), e.name)
}

/// The algebraic rows shared by every formulation: scale·Φ_k for active
/// equations, λ_k for deactivated (redundant) ones. `phi` is scratch of
/// length neq; `out` has neq entries.
pub(crate) fn constraint_rows(
    sys: &System,
    q: &[f64],
    lam: &[f64],
    t: f64,
    scale: f64,
    phi: &mut [f64],
    out: &mut [f64],
) {
    sys.constraints(q, t, phi);
    for k in 0..out.len() {
        out[k] = if sys.active[k] {
            scale * phi[k]
        } else {
            lam[k]
        };
    }
}

/// Err naming the first non-finite residual row (`what` names row i).
pub(crate) fn check_finite(v: &[f64], what: impl Fn(usize) -> String) -> Result<(), ProblemError> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(ProblemError(format!("non-finite residual in {}", what(i)))),
        None => Ok(()),
    }
}

/// A deactivated (redundant) equation violated by more than this (absolute,
/// model units) is no longer dependent on the active ones: the configuration
/// has changed the constraint rank. A truly dependent row follows the active
/// rows to a small multiple of CONSTRAINT_TOL.
pub const REDUNDANT_DRIFT_TOL: f64 = 1e-7;

/// Watches the deactivated (redundant) equations during an integration: an
/// equation whose residual grows by more than REDUNDANT_DRIFT_TOL from its
/// value at the start has become independent of the active ones.
#[derive(Default)]
pub struct RedundancyWatch {
    inactive: Vec<usize>,
    allowed: Vec<f64>,
    /// The equation (and its residual) that broke the watch.
    pub drift: Option<(usize, f64)>,
}

impl RedundancyWatch {
    /// Watch the equations deactivated in `sys`, starting from (q, t).
    pub fn new(sys: &System, q: &[f64], t: f64) -> Self {
        let inactive: Vec<usize> = (0..sys.neq()).filter(|k| !sys.active[*k]).collect();
        let allowed = inactive
            .iter()
            .map(|&k| REDUNDANT_DRIFT_TOL + sys.eval_equation(k, q, t, false).s.val.abs())
            .collect();
        RedundancyWatch {
            inactive,
            allowed,
            drift: None,
        }
    }

    /// False (and `drift` set) if a watched equation left its band at q.
    pub fn holds(&mut self, sys: &System, q: &[f64], t: f64) -> bool {
        for (&k, &tol) in self.inactive.iter().zip(&self.allowed) {
            let v = sys.eval_equation(k, q, t, false).s.val;
            if v.abs() > tol {
                self.drift = Some((k, v));
                return false;
            }
        }
        true
    }
}

/// Position constraints must hold to this absolute tolerance (model length
/// units) when the corrector converges, so outputs satisfy |Φ| ≪ ERROR.
pub const CONSTRAINT_TOL: f64 = 1e-10;

/// The constraint tolerance for an integration at `error`: CONSTRAINT_TOL,
/// tightened to ERROR/100 (not below 1e-12, the round-off floor of the
/// index-3 iteration at small steps) for very small ERROR — otherwise the constraint
/// noise the corrector leaves is as large as the error weights and the local
/// error estimate stops shrinking with the step (seen at ERROR = 1e-10).
pub fn constraint_tolerance(error: f64) -> f64 {
    CONSTRAINT_TOL.min(0.01 * error).max(1e-12)
}

impl DaeProblem for I3Problem<'_> {
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let start = 2 * self.sys.nq();
        res[start..].iter().all(|v| v.abs() <= self.constraint_tol)
    }
    fn size(&self) -> usize {
        2 * self.sys.nq() + self.sys.neq()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        let n = self.sys.nq();
        let (q, rest) = y.split_at(n);
        let (u, lam) = rest.split_at(n);
        let up = &yp[n..2 * n];
        for i in 0..n {
            out[i] = u[i] - yp[i];
        }
        self.sys.body_residual(q, u, up, lam, t, &mut out[n..2 * n]);
        constraint_rows(self.sys, q, lam, t, 1.0, &mut self.phi, &mut out[2 * n..]);
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
        let n = self.sys.nq();
        let (q, rest) = y.split_at(n);
        let (u, lam) = rest.split_at(n);
        let up = &yp[n..2 * n];
        for i in 0..n {
            a.add(i, i, -c);
            a.add(i, n + i, 1.0);
        }
        let mut s = AsmSink(a);
        self.sys
            .body_jacobian(q, u, up, lam, t, &mut s, n, Some(0), n, 1.0, c);
        self.sys
            .constraint_jacobian(q, t, &mut s, 2 * n, 0, Some((n, 2 * n)), Some(2 * n));
        Ok(())
    }
    fn structure_holds(&mut self, t: f64, y: &[f64]) -> bool {
        self.watch.holds(self.sys, &y[..self.sys.nq()], t)
    }
    fn describe_variable(&self, i: usize) -> String {
        qul_variable_name(self.sys, i)
    }
    fn describe_equation(&self, i: usize) -> String {
        qul_equation_name(self.sys, i)
    }
}

/// Name of unknown i of y = (q, u, λ).
pub(crate) fn qul_variable_name(sys: &System, i: usize) -> String {
    let n = sys.nq();
    if i < n {
        format!("{} displacement", coordinate_name(sys, i))
    } else if i < 2 * n {
        format!("{} velocity", coordinate_name(sys, i - n))
    } else {
        format!("multiplier of {}", equation_name(sys, i - 2 * n))
    }
}

/// Name of equation i of G = (velocity definitions, force balance, Φ).
pub(crate) fn qul_equation_name(sys: &System, i: usize) -> String {
    let n = sys.nq();
    if i < n {
        format!("{} velocity definition", coordinate_name(sys, i))
    } else if i < 2 * n {
        format!("{} force balance", coordinate_name(sys, i - n))
    } else {
        equation_name(sys, i - 2 * n)
    }
}
