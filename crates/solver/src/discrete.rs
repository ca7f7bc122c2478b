//! Discrete LSE (SAMPLE_PERIOD, SAMPLE_OFFSET) in the dynamic driver: a
//! segment ends at each sample instant t_k (the integrator lands on it),
//! and the next segment starts there after the update x ← A x + B u(t_k)
//! (mbsolve-mech `states.rs`, `System::apply_samples`), at order 1 as
//! after any restart. An output at a sample instant shows the states
//! before that instant's update (the held value of the interval it ends).

use crate::analysis::Simulation;
use mbsolve_mech::System;

/// Relative tolerance for a sample instant that coincides with an output
/// time (the output then comes first and the update after it).
const SAME_TIME: f64 = 1e-12;

/// The first sample instant after `now` and before the output time `tout`
/// (strictly: a sample at `tout` is handled after that output).
pub(crate) fn sample_before(sys: &System, now: f64, tout: f64) -> Option<f64> {
    let ts = sys.next_sample_after(now)?;
    (ts < tout - SAME_TIME * tout.abs().max(1.0)).then_some(ts)
}

/// Whether `t` is a sample instant of some discrete LSE.
pub(crate) fn is_sample(sys: &System, t: f64) -> bool {
    sys.states
        .equations
        .iter()
        .any(|e| e.sampling.is_some_and(|s| s.is_instant(t)))
}

impl Simulation {
    /// The update due at the current state's time, if any: the sampled
    /// states change, the outputs and rates follow, and the state the next
    /// segment starts from carries them.
    pub(crate) fn apply_due_samples(&mut self) -> Result<(), String> {
        if self.sys.next_sample_after(f64::NEG_INFINITY).is_none() {
            return Ok(());
        }
        let (q, u, t) = (self.state.q.clone(), self.state.u.clone(), self.state.t);
        self.data.states.set(&self.state.w, &self.state.wp);
        if self.sys.apply_samples(&mut self.data, &q, &u, t)? {
            self.state.w = self.data.states.w.clone();
            self.state.wp = self.data.states.wp.clone();
        }
        Ok(())
    }
}
