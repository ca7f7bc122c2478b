//! Diagnostics are data: integrators emit typed events; the message log and
//! the statistics are renderings of this stream.

use std::fmt;

#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The local error test failed; the step is repeated with a smaller h.
    IntegrationFailure {
        t: f64,
        h: f64,
        order: usize,
        error_ratio: f64,
        variable: String,
    },
    /// Newton iterations did not converge.
    CorrectorFailure {
        t: f64,
        h: f64,
        iterations: usize,
        equation: String,
        variable: String,
    },
    /// The iteration matrix was singular.
    SingularMatrix { t: f64, h: f64, variable: String },
    /// A numeric factorization failed and the symbolic analysis was redone.
    SymbolicRefactorization { t: f64 },
    /// The corrector switched to MODIFIED for `steps` accepted steps (after
    /// an integration restart), or back to ORIGINAL.
    CorrectorSwitch {
        t: f64,
        to_modified: bool,
        steps: usize,
    },
    /// An explicit ODE-form method (ABAM, RKF45) found its step held at
    /// its stability boundary: the problem is stiff (HNW IV.2).
    StiffnessDetected { t: f64, h: f64, method: String },
    /// The ODE form chose a new set of independent coordinates (coordinate
    /// partitioning): the integrator restarts at order 1.
    Repartition {
        t: f64,
        independent: Vec<String>,
        reason: String,
    },
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::IntegrationFailure { t, h, order, error_ratio, variable } => write!(
                f,
                "integration failure at t = {t:.6e}: step h = {h:.3e}, order {order}, local error {error_ratio:.3} × tolerance, largest in {variable}"
            ),
            Event::CorrectorFailure { t, h, iterations, equation, variable } => write!(
                f,
                "corrector failure at t = {t:.6e}: h = {h:.3e}, no convergence after {iterations} iterations; largest residual in {equation}, largest correction in {variable}"
            ),
            Event::SingularMatrix { t, h, variable } => {
                write!(f, "singular matrix at t = {t:.6e} (h = {h:.3e}), unknown {variable}")
            }
            Event::SymbolicRefactorization { t } => {
                write!(f, "symbolic refactorization at t = {t:.6e}")
            }
            Event::CorrectorSwitch { t, to_modified: true, steps } => write!(
                f,
                "t = {t:.6e}: CORRECTOR switched from ORIGINAL to MODIFIED for the next {steps} successful steps (integration restart)"
            ),
            Event::CorrectorSwitch { t, to_modified: false, .. } => {
                write!(f, "t = {t:.6e}: CORRECTOR restored to ORIGINAL")
            }
            Event::StiffnessDetected { t, h, method } => write!(
                f,
                "t = {t:.6e}: {method} keeps its step h = {h:.3e} at its stability boundary: the problem appears stiff; use INTEGRATOR/VSTIFF (or MSTIFF)"
            ),
            Event::Repartition { t, independent, reason } => write!(
                f,
                "t = {t:.6e}: coordinate partitioning chose new independent coordinates ({reason}): {}",
                independent.join(", ")
            ),
        }
    }
}

/// Run statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Statistics {
    pub steps: u64,
    pub rejected_steps: u64,
    pub corrector_failures: u64,
    pub corrector_iterations: u64,
    pub jacobian_evaluations: u64,
    pub factorizations: u64,
    pub symbolic_factorizations: u64,
    pub residual_evaluations: u64,
    pub max_order_used: usize,
    pub min_step: f64,
    pub max_step: f64,
}

impl Statistics {
    /// Add the counters of a later run segment (after a restart).
    pub fn accumulate(&mut self, o: &Statistics) {
        self.steps += o.steps;
        self.rejected_steps += o.rejected_steps;
        self.corrector_failures += o.corrector_failures;
        self.corrector_iterations += o.corrector_iterations;
        self.jacobian_evaluations += o.jacobian_evaluations;
        self.factorizations += o.factorizations;
        self.symbolic_factorizations += o.symbolic_factorizations;
        self.residual_evaluations += o.residual_evaluations;
        self.max_order_used = self.max_order_used.max(o.max_order_used);
        self.min_step = self.min_step.min(o.min_step);
        self.max_step = self.max_step.max(o.max_step);
    }
}

impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  steps                      {}", self.steps)?;
        writeln!(f, "  rejected steps             {}", self.rejected_steps)?;
        writeln!(
            f,
            "  corrector failures         {}",
            self.corrector_failures
        )?;
        writeln!(
            f,
            "  corrector iterations       {}",
            self.corrector_iterations
        )?;
        writeln!(
            f,
            "  Jacobian evaluations       {}",
            self.jacobian_evaluations
        )?;
        writeln!(f, "  LU factorizations          {}", self.factorizations)?;
        writeln!(
            f,
            "  symbolic factorizations    {}",
            self.symbolic_factorizations
        )?;
        writeln!(
            f,
            "  residual evaluations       {}",
            self.residual_evaluations
        )?;
        writeln!(f, "  highest order used         {}", self.max_order_used)?;
        write!(
            f,
            "  step size range            {:.3e} .. {:.3e}",
            self.min_step, self.max_step
        )
    }
}
