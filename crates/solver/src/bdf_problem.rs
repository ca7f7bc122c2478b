//! The problem the BDF family (GSTIFF, CONSTANT_BDF, WSTIFF) integrates: the
//! I3 or the SI2 formulation behind one `DaeProblem`, with the state layout
//! each uses for its initial values and output frames.

use crate::analysis::Frame;
use crate::formulation::{I3Problem, RedundancyWatch};
use crate::si2::Si2Problem;
use mbsolve_integrate::{DaeProblem, ProblemError, SlotAssembler, VarClass};
use mbsolve_mech::System;
use mbsolve_model::Formulation;

pub enum BdfProblem<'a> {
    I3(I3Problem<'a>),
    Si2(Si2Problem<'a>),
}

impl<'a> BdfProblem<'a> {
    /// The formulation's problem starting from the consistent state `s`,
    /// with the constraint tolerance for corrector convergence.
    pub fn new(sys: &'a System, formulation: Formulation, s: &Frame, constraint_tol: f64) -> Self {
        let watch = RedundancyWatch::new(sys, &s.q, s.t);
        match formulation {
            Formulation::Si2 => {
                let mut p = Si2Problem::new(sys);
                p.watch = watch;
                p.constraint_tol = constraint_tol;
                BdfProblem::Si2(p)
            }
            // SI1 is rejected by the settings before a problem is built.
            Formulation::I3 | Formulation::Si1 => {
                let mut p = I3Problem::new(sys);
                p.watch = watch;
                p.constraint_tol = constraint_tol;
                BdfProblem::I3(p)
            }
        }
    }

    pub fn is_si2(&self) -> bool {
        matches!(self, BdfProblem::Si2(_))
    }

    /// (y0, y0') from the consistent state `s`.
    pub fn initial_values(&self, s: &Frame) -> (Vec<f64>, Vec<f64>) {
        match self {
            BdfProblem::Si2(p) => p.initial_values(s),
            BdfProblem::I3(p) => {
                let m = p.sys.neq();
                let y = s.q.iter().chain(&s.u).chain(&s.lambda).copied().collect();
                let yp =
                    s.u.iter()
                        .chain(&s.a)
                        .copied()
                        .chain(std::iter::repeat_n(0.0, m))
                        .collect();
                (y, yp)
            }
        }
    }

    /// The deactivated equation that broke the redundancy watch, if any.
    pub fn drift(&self) -> Option<(usize, f64)> {
        match self {
            BdfProblem::Si2(p) => p.watch.drift,
            BdfProblem::I3(p) => p.watch.drift,
        }
    }

    fn inner(&self) -> &dyn DaeProblem {
        match self {
            BdfProblem::Si2(p) => p,
            BdfProblem::I3(p) => p,
        }
    }

    fn inner_mut(&mut self) -> &mut dyn DaeProblem {
        match self {
            BdfProblem::Si2(p) => p,
            BdfProblem::I3(p) => p,
        }
    }
}

/// The output frame at t from the integrator's (y, y') in the formulation's
/// layout: SI2 carries λ in y' (differential form), I3 in y.
pub fn frame_of(sys: &System, si2: bool, t: f64, y: &[f64], yp: &[f64]) -> Frame {
    let (n, m) = (sys.nq(), sys.neq());
    let lambda = if si2 {
        &yp[2 * n..2 * n + m]
    } else {
        &y[2 * n..]
    };
    Frame {
        t,
        q: y[..n].to_vec(),
        u: y[n..2 * n].to_vec(),
        a: yp[n..2 * n].to_vec(),
        lambda: lambda.to_vec(),
    }
}

impl DaeProblem for BdfProblem<'_> {
    fn size(&self) -> usize {
        self.inner().size()
    }
    fn classes(&self) -> &[VarClass] {
        self.inner().classes()
    }
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        self.inner_mut().residual(t, y, yp, out)
    }
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        self.inner_mut().jacobian(t, y, yp, c, a)
    }
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        self.inner().residual_acceptable(res)
    }
    fn structure_holds(&mut self, t: f64, y: &[f64]) -> bool {
        self.inner_mut().structure_holds(t, y)
    }
    fn describe_variable(&self, i: usize) -> String {
        self.inner().describe_variable(i)
    }
    fn describe_equation(&self, i: usize) -> String {
        self.inner().describe_equation(i)
    }
}
