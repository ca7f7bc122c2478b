//! The frame-output path: every output frame an analysis computes goes
//! through [`FrameOutput::emit`], which hands it to a sink (the CLI streams
//! it to the CSV), reports progress, checks for a stop request and keeps the
//! frame in memory only when asked to (DESIGN.md: "Results are streamed").

use crate::analysis::{Frame, SolverError};
use mbsolve_mech::System;
use mbsolve_model::Model;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Most output steps one SIMULATE may ask for. Output times are allocated
/// up front (8 bytes each) and each frame costs a request row, so the count
/// is bounded before anything is allocated: 1e7 outputs is a 10,000 s run at
/// DTOUT = 1 ms, and 80 MB of output times.
pub const MAX_OUTPUT_STEPS: u64 = 10_000_000;

/// How a stop request's reason begins.
pub const INTERRUPTED: &str = "interrupted";

/// Receives each output frame as it is computed.
pub trait FrameSink: Send {
    /// Write one frame. `log` is the message log so far (a sink may append
    /// the lines it has not seen yet). An error stops the analysis; the
    /// frames written before it stay written.
    /// `model` is the simulation's model (requests read its elements).
    fn write(
        &mut self,
        sys: &System,
        model: &Model,
        log: &[String],
        frame: &Frame,
    ) -> Result<(), String>;

    /// Whether the sink wants every accepted integration step of a dynamic
    /// analysis ([`FrameSink::step`]): requests reading DELAY record their
    /// history there (`requests::Outputs::records_steps`).
    fn wants_steps(&self) -> bool {
        false
    }

    /// An accepted step's state (not an output frame; nothing is written).
    fn step(&mut self, _sys: &System, _model: &Model, _frame: &Frame) {}
}

/// Where output frames go.
pub struct FrameOutput {
    /// Keep every frame in `Simulation::frames` (the default: tests and
    /// examples read them). When false only the last frame is kept there,
    /// so memory does not grow with the number of outputs.
    pub retain: bool,
    pub sink: Option<Box<dyn FrameSink>>,
    /// Called with the time of each output frame (e.g. a progress bar).
    pub progress: Option<Box<dyn FnMut(f64) + Send>>,
    /// Set from outside (a signal handler) to stop the analysis cleanly:
    /// checked at every output, after every integration step of a dynamic
    /// analysis and in every iteration of the statics' loops; the frames
    /// before it stay written.
    pub stop: Option<Arc<AtomicBool>>,
    /// Frames emitted so far, over all analyses.
    pub written: usize,
    /// Time of the last frame emitted.
    pub last_t: Option<f64>,
    stopped: Option<SolverError>,
}

impl Default for FrameOutput {
    fn default() -> Self {
        FrameOutput {
            retain: true,
            sink: None,
            progress: None,
            stop: None,
            written: 0,
            last_t: None,
            stopped: None,
        }
    }
}

impl FrameOutput {
    /// Emit one frame: to the sink, then into `kept` (every frame when
    /// retaining, else only this last one), then to the progress hook.
    /// Returns false when the analysis must stop before computing more: the
    /// sink failed or a stop was requested; [`FrameOutput::take_stop`] says
    /// why. Once stopped, every later call returns false.
    pub fn emit(
        &mut self,
        sys: &System,
        model: &Model,
        log: &[String],
        mut frame: Frame,
        kept: &mut Vec<Frame>,
    ) -> bool {
        if self.stopped.is_some() {
            return false;
        }
        // Every analysis emits here: the frame keeps its analysis MODE.
        frame.mode = model.sensor_values.mode();
        let t = frame.t;
        if let Some(sink) = self.sink.as_mut() {
            if let Err(e) = sink.write(sys, model, log, &frame) {
                self.stopped = Some(SolverError::Stopped {
                    t,
                    reason: format!("output failed: {e}"),
                });
                return false;
            }
        }
        self.written += 1;
        self.last_t = Some(t);
        if !self.retain {
            kept.clear();
        }
        kept.push(frame);
        if let Some(report) = self.progress.as_mut() {
            report(t);
        }
        if self.stop_requested() {
            self.stopped = Some(interrupted_at(t));
            return false;
        }
        true
    }

    /// Whether a stop was requested from outside (one atomic load: cheap
    /// enough for every step and iteration).
    pub fn stop_requested(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// Whether the sink wants every accepted step ([`FrameSink::step`]).
    pub(crate) fn wants_steps(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.wants_steps())
    }

    /// An accepted step's state to the sink.
    pub(crate) fn step(&mut self, sys: &System, model: &Model, frame: &Frame) {
        if let Some(sink) = self.sink.as_mut() {
            sink.step(sys, model, frame);
        }
    }

    /// Why the last `emit` returned false (taken once).
    pub fn take_stop(&mut self) -> Option<SolverError> {
        self.stopped.take()
    }
}

/// The stop of an analysis interrupted at `t` (a stop request between
/// outputs or at one): its reason begins with [`INTERRUPTED`].
pub fn interrupted_at(t: f64) -> SolverError {
    SolverError::Stopped {
        t,
        reason: format!("{INTERRUPTED} at t = {t:e}"),
    }
}

/// `dst` becomes a copy of `src`, reusing its allocation (none once its
/// capacity suffices).
pub(crate) fn fill(dst: &mut Vec<f64>, src: &[f64]) {
    dst.clear();
    dst.extend_from_slice(src);
}

impl Frame {
    /// A frame with no values yet, to be filled by `FrameMap::frame_into`.
    pub fn empty() -> Frame {
        Frame {
            t: 0.0,
            q: Vec::new(),
            u: Vec::new(),
            a: Vec::new(),
            lambda: Vec::new(),
            w: Vec::new(),
            wp: Vec::new(),
            non_dynamic: false,
            mode: 0.0,
        }
    }

    /// Refill t, q, u, a and λ in place (w and w' are the formulation's).
    pub(crate) fn fill_mechanics(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lambda: &[f64],
    ) {
        self.t = t;
        // The analysis marks kinematic frames when it emits them.
        self.non_dynamic = false;
        fill(&mut self.q, q);
        fill(&mut self.u, u);
        fill(&mut self.a, a);
        fill(&mut self.lambda, lambda);
    }
}

/// Number of output steps for SIMULATE over (t0, end] with STEPS or DTOUT,
/// refused beyond [`MAX_OUTPUT_STEPS`] before anything is allocated.
pub fn output_count(
    t0: f64,
    end: f64,
    steps: Option<u64>,
    dtout: Option<f64>,
) -> Result<u64, SolverError> {
    let limit = || format!("the limit is {MAX_OUTPUT_STEPS:e} output steps per SIMULATE");
    match (steps, dtout) {
        (Some(s), _) if s > MAX_OUTPUT_STEPS => Err(SolverError::Settings(format!(
            "SIMULATE: STEPS = {s} is too many output steps; {}",
            limit()
        ))),
        (Some(s), _) if s > 0 => Ok(s),
        (None, Some(d)) if d > 0.0 && d.is_finite() => {
            let n = ((end - t0) / d - 1e-9).ceil().max(1.0);
            if n.is_finite() && n <= MAX_OUTPUT_STEPS as f64 {
                Ok(n as u64)
            } else {
                Err(SolverError::Settings(format!(
                    "SIMULATE: DTOUT = {d:e} from t = {t0:e} to END = {end:e} gives {n:.3e} output steps; {}",
                    limit()
                )))
            }
        }
        _ => Err(SolverError::Settings(
            "SIMULATE: give STEPS > 0 or DTOUT > 0".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings_error(r: Result<u64, SolverError>) -> String {
        match r {
            Err(SolverError::Settings(s)) => s,
            other => panic!("expected a settings error, got {other:?}"),
        }
    }

    #[test]
    fn output_counts_are_bounded_before_allocating() {
        assert_eq!(output_count(0.0, 1.0, Some(100), None).unwrap(), 100);
        assert_eq!(output_count(0.0, 1.0, None, Some(0.25)).unwrap(), 4);
        // A partial last interval still gets its output (at END).
        assert_eq!(output_count(0.0, 1.0, None, Some(0.3)).unwrap(), 4);
        assert_eq!(
            output_count(0.0, 1.0, Some(MAX_OUTPUT_STEPS), None).unwrap(),
            MAX_OUTPUT_STEPS
        );
        assert_eq!(
            settings_error(output_count(0.0, 1.0, Some(4294967296), None)),
            "SIMULATE: STEPS = 4294967296 is too many output steps; the limit is 1e7 output steps per SIMULATE"
        );
        assert_eq!(
            settings_error(output_count(0.0, 1.0, None, Some(1e-300))),
            "SIMULATE: DTOUT = 1e-300 from t = 0e0 to END = 1e0 gives 1.000e300 output steps; the limit is 1e7 output steps per SIMULATE"
        );
        for (end, d) in [(1.0, 1e-20), (1e300, 1.0), (f64::INFINITY, 1.0)] {
            let e = settings_error(output_count(0.0, end, None, Some(d)));
            assert!(e.contains("the limit is 1e7 output steps"), "{e}");
        }
        for (s, d) in [
            (Some(0), None),
            (None, Some(0.0)),
            (None, Some(f64::NAN)),
            (None, None),
        ] {
            assert_eq!(
                settings_error(output_count(0.0, 1.0, s, d)),
                "SIMULATE: give STEPS > 0 or DTOUT > 0"
            );
        }
    }
}
