//! The abstract problem an implicit integrator sees: G(t, y, y') = 0 with the
//! iteration matrix ∂G/∂y + c·∂G/∂y' in a fixed sparse pattern.

use crate::sparse::SlotAssembler;

/// What a state is, so error control and the corrector can select variables
/// without knowing mechanics (seeds: "Error control in corrector").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarClass {
    Displacement,
    Velocity,
    Multiplier,
    UserState,
}

/// Per unknown: whether its class is one of `wanted` (error-control and
/// corrector-convergence masks).
pub fn class_mask(classes: &[VarClass], wanted: &[VarClass]) -> Vec<bool> {
    classes.iter().map(|c| wanted.contains(c)).collect()
}

/// A problem evaluation failed (e.g. a function expression could not be
/// evaluated); the message names the element.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemError(pub String);

pub trait DaeProblem {
    fn size(&self) -> usize;
    fn classes(&self) -> &[VarClass];
    /// G(t, y, y').
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError>;
    /// ∂G/∂y + c ∂G/∂y' into `a` (between `begin` and `finish`, done by the caller).
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError>;
    /// Extra convergence test on the residual evaluated in the last corrector
    /// iteration (e.g. position constraints satisfied to a tight tolerance).
    fn residual_acceptable(&self, _res: &[f64]) -> bool {
        true
    }
    /// Called with each accepted solution y(t). Return false when the
    /// problem's structure no longer fits it (an equation deactivated as
    /// redundant is no longer satisfied): the integrator stops after this
    /// step with `StopKind::StructureChanged`.
    fn structure_holds(&mut self, _t: f64, _y: &[f64]) -> bool {
        true
    }
    /// Human-readable name of unknown `i` ("PART/2 x displacement").
    fn describe_variable(&self, i: usize) -> String;
    /// Human-readable name of equation `i` ("JOINT/1 Zi.Xj").
    fn describe_equation(&self, i: usize) -> String;
}

/// A DAE integrator as the analysis driver sees it (GSTIFF, WSTIFF, …):
/// advance to output times, expose the solution and the diagnostics.
pub trait DaeIntegrator {
    /// Take steps until t = tout exactly.
    fn advance_to(&mut self, tout: f64) -> Result<(), crate::IntegrationError>;
    /// Time of the last accepted step.
    fn time(&self) -> f64;
    /// y and y' at `time()` after a successful `advance_to`.
    fn solution(&self) -> (&[f64], &[f64]);
    /// y at the last accepted step, valid also after a failed attempt.
    fn accepted(&self) -> &[f64];
    /// Statistics so far (linear-solver counters included).
    fn statistics(&mut self) -> crate::Statistics;
    /// The diagnostic events emitted so far (drained).
    fn take_events(&mut self) -> Vec<crate::Event>;
    /// Hand over a Real Time Index meter (fixed-step option only).
    fn put_rti(&mut self, _meter: Option<crate::RtiMeter>) {}
    /// Take the meter back with this segment's steps recorded.
    fn take_rti(&mut self) -> Option<crate::RtiMeter> {
        None
    }
    /// Largest local error measure so far (fixed-step MAXERR check).
    fn max_local_error(&self) -> f64 {
        0.0
    }
    /// Converge only the variables of `classes` for the next `steps`
    /// accepted steps (the automatic switch to the MODIFIED corrector);
    /// false if the integrator has no such switch.
    fn use_corrector_classes(&mut self, _classes: &[VarClass], _steps: usize) -> bool {
        false
    }
    /// INTERPOLATE = ON: steps until time() ≥ tout without landing on it
    /// (default: land on it).
    fn advance_past(&mut self, tout: f64) -> Result<(), crate::IntegrationError> {
        self.advance_to(tout)
    }
    /// The solution at `t` within the last step; false if the integrator
    /// cannot interpolate.
    fn interpolate(&self, _t: f64, _y: &mut [f64], _yp: &mut [f64]) -> bool {
        false
    }
}
