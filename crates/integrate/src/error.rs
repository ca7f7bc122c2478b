//! Why an integration stopped: the error every integrator returns.

/// Why an integration stopped before its output time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopKind {
    /// The integration failed (step size, corrector, evaluation error).
    Failure,
    /// The step at `t` was accepted, but the problem reported that its
    /// structure no longer fits the solution (e.g. an equation deactivated
    /// as redundant is no longer satisfied): the caller rebuilds the problem
    /// and restarts from the state at `t`.
    StructureChanged,
}

/// The integration could not continue; results up to `t` are valid.
#[derive(Clone, Debug, PartialEq)]
pub struct IntegrationError {
    pub t: f64,
    pub message: String,
    pub kind: StopKind,
}

impl IntegrationError {
    pub fn failure(t: f64, message: impl Into<String>) -> Self {
        IntegrationError {
            t,
            message: message.into(),
            kind: StopKind::Failure,
        }
    }
    pub fn structure_changed(t: f64) -> Self {
        IntegrationError {
            t,
            message: "the problem's structure changed; restart required".into(),
            kind: StopKind::StructureChanged,
        }
    }
}

impl std::fmt::Display for IntegrationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "integration stopped at t = {:.6e}: {}",
            self.t, self.message
        )
    }
}
