//! SENSORs during a dynamic analysis (Adams Solver SENSOR statement).
//!
//! Adams checks a sensor after each successful integration step and
//! locates the trip by a secant (or BISECTION) search. mbsolve checks it
//! at each output time, on the output frame (after the velocities and
//! accelerations are made consistent): the trip time reported is the
//! first output time at which the condition holds, so it lags the true
//! crossing by less than one output step.

use crate::analysis::Frame;
use crate::functions::{compile_variables, FrameContext};
use mbsolve_expr::Expr;
use mbsolve_mech::System;
use mbsolve_model::{Model, Sensor, SensorAction};

/// The model's sensors with their functions compiled (VARIABLEs inlined,
/// SPLINEs bound).
pub(crate) struct Sensors {
    compiled: Vec<(Sensor, Expr)>,
}

/// A sensor whose condition held at an output frame.
pub(crate) struct Trip {
    pub id: u32,
    pub action: SensorAction,
    pub t: f64,
    pub value: f64,
}

impl Sensors {
    pub(crate) fn compile(model: &Model) -> Result<Sensors, String> {
        if model.sensors.is_empty() {
            return Ok(Sensors {
                compiled: Vec::new(),
            });
        }
        let variables = compile_variables(&model.variables)?;
        let compiled = model
            .sensors
            .iter()
            .map(|s| {
                Expr::parse(&s.function)
                    .and_then(|e| e.with_variables(&variables))
                    .map_err(|e| e.to_string())
                    .and_then(|e| {
                        e.with_model_splines(&model.splines)
                            .map_err(|e| e.to_string())
                    })
                    .map(|e| (s.clone(), e))
                    .map_err(|e| format!("SENSOR/{}: FUNCTION: {e}", s.id))
            })
            .collect::<Result<_, _>>()?;
        Ok(Sensors { compiled })
    }

    /// The first sensor (in file order) whose condition holds on `frame`.
    pub(crate) fn check(
        &self,
        sys: &System,
        model: &Model,
        frame: &Frame,
        initial_q: &[f64],
    ) -> Result<Option<Trip>, String> {
        let ctx = FrameContext {
            sys,
            model,
            frame,
            initial_q,
        };
        for (s, e) in &self.compiled {
            let f = e.eval_in(&ctx).map_err(|err| {
                format!(
                    "SENSOR/{}: FUNCTION = {} at t = {}: {err}",
                    s.id,
                    e.source(),
                    frame.t
                )
            })?;
            if s.compare.holds(f, s.value, s.error) {
                return Ok(Some(Trip {
                    id: s.id,
                    action: s.action,
                    t: frame.t,
                    value: f,
                }));
            }
        }
        Ok(None)
    }
}

impl Trip {
    /// The message-log line of the trip.
    pub(crate) fn describe(&self) -> String {
        let what = match self.action {
            SensorAction::Halt => "the analysis halts (later SIMULATE commands are not run)",
            SensorAction::Return => "the current SIMULATE ends",
        };
        format!(
            "t = {:.6e}: SENSOR/{} tripped (FUNCTION = {:.6e}, {}): {what}",
            self.t,
            self.id,
            self.value,
            self.action.keyword()
        )
    }
}
