//! The analysis MODE every function of a run reads (Adams Solver function
//! MODE): each analysis sets it in the run's `SensorValues` when it
//! starts; the initial-conditions solve sets 3 for its own duration and
//! gives the calling analysis its number back. Frames are emitted (and
//! requests evaluated on them) under the number of the analysis that
//! computed them: the first frame of a run, the initial conditions (whose
//! reactions the IC solve computed), under 3.

use crate::analysis::Simulation;
use mbsolve_model::SensorValues;
use std::sync::Arc;

/// Adams' analysis numbers (2 is reserved; 7, linear analysis, and 9,
/// CONSUB initialization, are analyses this solver does not run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnalysisMode {
    Kinematics = 1,
    InitialConditions = 3,
    Dynamics = 4,
    Statics = 5,
    QuasiStatics = 6,
}

/// Restores the mode found at creation when dropped.
pub(crate) struct ModeGuard {
    values: Arc<SensorValues>,
    previous: f64,
}

impl Drop for ModeGuard {
    fn drop(&mut self) {
        self.values.set_mode(self.previous);
    }
}

impl Simulation {
    /// Make `mode` the run's analysis MODE.
    pub(crate) fn set_mode(&self, mode: AnalysisMode) {
        self.model.sensor_values.set_mode(mode as u8 as f64);
    }

    /// `mode` until the guard is dropped (the initial-conditions solve
    /// inside another analysis).
    pub(crate) fn mode_for_now(&self, mode: AnalysisMode) -> ModeGuard {
        let values = self.model.sensor_values.clone();
        let previous = values.mode();
        values.set_mode(mode as u8 as f64);
        ModeGuard { values, previous }
    }
}
