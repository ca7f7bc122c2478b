//! SENSORs during a dynamic analysis (Adams Solver SENSOR statement).
//!
//! Adams checks a sensor after each successful integration step; when its
//! condition has become true it locates the crossing inside the step and
//! acts there. mbsolve does the same: after every accepted step each
//! sensor's margin (≥ 0 exactly where the condition holds, see
//! [`margin`]) is evaluated on the step-end state; a sensor whose margin
//! went from negative to ≥ 0 is located on the integrator's interpolant
//! by the Illinois variant of the secant method (regula falsi with the
//! retained end's value halved; BISECTION: plain bisection) until the
//! bracket is narrower than TERROR. The trip is the bracket's right end,
//! where the condition holds. The driver (`analysis.rs`) then acts at the
//! located time: the state there is made consistent and the analysis
//! either ends (HALT, RETURN), or restarts the integrator from it (at order
//! 1, with a fresh matrix pattern) when the sensor asks for RESTART or
//! CODGEN or has an EVALUATE (SENVAL changes the equations at the trip
//! time, so the integration must start again there), or else goes on from
//! the integrator's step end with its order and history (PRINT and DT need
//! no restart; Adams restarts only on RESTART). STEPSIZE = h without a
//! restart makes h the integrator's next step from there (Adams: it
//! "redefines the trial integration step size"; the order is kept, the
//! history rescaled to h, `DaeIntegrator::set_next_step`); with a restart
//! h is the restarted integrator's first step.
//!
//! A sensor trips only when its condition becomes true: one that stays
//! true does not trip again until it has been false at a check (also
//! across SIMULATE commands: the held flags live in the simulation's
//! [`SensorState`], so two simulations of one model do not share them).
//! A condition that holds at the start of the first analysis trips there.
//!
//! The check after each step allocates nothing once its buffers have
//! their sizes: the state at a step end or on the interpolant is written
//! into a kept frame (`FrameMap::frame_into`) and the margins into the
//! watch's buffers.

use crate::analysis::Frame;
use crate::functions::{compile_variables, FrameContext};
use crate::linear::Kkt;
use mbsolve_expr::Expr;
use mbsolve_model::{Id, Model, Sensor, SensorAction, SensorCompare, SensorValues};
use std::sync::Arc;

/// Most secant (or bisection) iterations of one location; after them the
/// bracket's right end is taken (2^-100 of a step is far below any TERROR).
const MAX_LOCATE_ITERATIONS: usize = 100;

/// The model's sensors with their FUNCTION and EVALUATE compiled
/// (VARIABLEs inlined, SPLINEs and SENVALs bound).
pub(crate) struct Sensors {
    compiled: Vec<Compiled>,
    values: Arc<SensorValues>,
}

struct Compiled {
    sensor: Sensor,
    function: Expr,
    evaluate: Option<Expr>,
}

/// The run-time flags of one simulation's sensors: whether a sensor's
/// condition held at its last check (it trips again only after it has
/// been false) and whether DEACTIVATE/SENSOR switched it off. Owned by the
/// `Simulation`, so runs from clones of one model do not interfere.
#[derive(Clone, Debug, Default)]
pub struct SensorState {
    flags: Vec<SensorFlags>,
}

#[derive(Clone, Copy, Debug)]
struct SensorFlags {
    id: Id,
    held: bool,
    off: bool,
}

impl SensorState {
    /// Every sensor of `model` active and not held (a new run).
    pub fn new(model: &Model) -> SensorState {
        SensorState {
            flags: model
                .sensors
                .iter()
                .map(|s| SensorFlags {
                    id: s.id,
                    held: false,
                    off: false,
                })
                .collect(),
        }
    }
    fn get(&self, id: Id) -> Option<&SensorFlags> {
        self.flags.iter().find(|f| f.id == id)
    }
    fn slot(&mut self, id: Id) -> &mut SensorFlags {
        // Linear: a model has a handful of sensors, and a lookup here must
        // not allocate (it runs after every step).
        match self.flags.iter().position(|f| f.id == id) {
            Some(k) => &mut self.flags[k],
            None => {
                self.flags.push(SensorFlags {
                    id,
                    held: false,
                    off: false,
                });
                self.flags.last_mut().expect("just pushed")
            }
        }
    }
    /// Whether sensor `id`'s condition held at its last check.
    pub fn held(&self, id: Id) -> bool {
        self.get(id).is_some_and(|f| f.held)
    }
    fn set_held(&mut self, id: Id, held: bool) {
        self.slot(id).held = held;
    }
    /// Whether sensor `id` is switched off (DEACTIVATE/SENSOR).
    pub fn is_off(&self, id: Id) -> bool {
        self.get(id).is_some_and(|f| f.off)
    }
    /// ACTIVATE (true) or DEACTIVATE (false) sensor `id`.
    pub fn set_active(&mut self, id: Id, active: bool) {
        self.slot(id).off = !active;
    }
}

/// The sensors' margins at the last check (a step end or the segment
/// start) and its time, with the buffers of the next check. Each buffer
/// holds, for n sensors, the n margins and then the n deviations
/// FUNCTION − VALUE (`Sensors::margins`).
pub(crate) struct Watch {
    pub t: f64,
    margins: Vec<f64>,
    /// The margins at the step end being checked.
    now: Vec<f64>,
    /// The margins at a point of the locating search.
    probe: Vec<f64>,
}

/// Writes every sensor's margin on the integrator's state at τ into the
/// slice (one per sensor).
type MarginsAt<'a> = dyn FnMut(f64, &mut [f64]) -> Result<(), String> + 'a;

/// A located trip: sensor index and time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Located {
    pub index: usize,
    pub t: f64,
}

/// A sensor that tripped, with what the driver has to do.
pub(crate) struct Trip {
    pub id: u32,
    pub action: SensorAction,
    pub t: f64,
    pub value: f64,
    /// EVALUATE's value, now SENVAL(id).
    pub evaluated: Option<f64>,
    /// PRINT, HALT or RETURN: the trip state is an output frame.
    pub writes_frame: bool,
    pub stepsize: Option<f64>,
    pub dt: Option<f64>,
    /// The output path stopped the analysis on the trip frame.
    pub output_stopped: bool,
    /// A continuing trip restarts the integrator from the trip state;
    /// otherwise it goes on from its step end.
    pub restarts: bool,
}

/// The error of a STEPSIZE the integrator cannot take.
pub(crate) fn stepsize_refused(id: u32, h: f64) -> String {
    format!(
        "SENSOR/{id}: STEPSIZE = {h} cannot be honoured: the integrator takes fixed steps or HMIN is larger"
    )
}

/// The log line of a STEPSIZE under the fixed-step option, which the
/// seeds say is not honoured ("it does not honor any step size change
/// requests coming from these elements"): the run goes on at its step.
pub(crate) fn stepsize_ignored(id: u32, h: f64, step: f64) -> String {
    format!(
        "SENSOR/{id}: STEPSIZE = {h} ignored: the fixed-step integrator does not honour step size requests (the step stays {step:e})"
    )
}

/// ≥ 0 exactly where `compare` holds for f against value ± error; its sign
/// change is the crossing the search locates.
fn margin(compare: SensorCompare, f: f64, value: f64, error: f64) -> f64 {
    match compare {
        SensorCompare::Eq => error - (f - value).abs(),
        SensorCompare::Ge => f - (value - error),
        SensorCompare::Le => (value + error) - f,
    }
}

fn compile_one(
    model: &Model,
    variables: &std::collections::HashMap<u32, Expr>,
    text: &str,
) -> Result<Expr, String> {
    let e = Expr::parse(text)
        .and_then(|e| e.with_variables(variables))
        .map_err(|e| e.to_string())?;
    let e = e
        .with_model_splines(&model.splines)
        .map_err(|e| e.to_string())?;
    Ok(e.with_sensor_values(&model.sensor_values))
}

impl Sensors {
    pub(crate) fn compile(model: &Model) -> Result<Sensors, String> {
        let values = model.sensor_values.clone();
        if model.sensors.is_empty() {
            return Ok(Sensors {
                compiled: Vec::new(),
                values,
            });
        }
        let variables = compile_variables(&model.variables)?;
        let compiled = model
            .sensors
            .iter()
            .map(|s| {
                let function = compile_one(model, &variables, &s.function)
                    .map_err(|e| format!("SENSOR/{}: FUNCTION: {e}", s.id))?;
                let evaluate = match &s.evaluate {
                    Some(g) => Some(
                        compile_one(model, &variables, g)
                            .map_err(|e| format!("SENSOR/{}: EVALUATE: {e}", s.id))?,
                    ),
                    None => None,
                };
                Ok(Compiled {
                    sensor: s.clone(),
                    function,
                    evaluate,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Sensors { compiled, values })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.compiled.is_empty()
    }

    fn function(&self, k: usize, ctx: &FrameContext) -> Result<f64, String> {
        let c = &self.compiled[k];
        c.function.eval_in(ctx).map_err(|err| {
            format!(
                "SENSOR/{}: FUNCTION = {} at t = {}: {err}",
                c.sensor.id,
                c.function.source(),
                ctx.frame.t
            )
        })
    }

    /// Every sensor's margin on one frame, into `out[k]` (one per
    /// sensor); when `out` has room for two per sensor, the deviations
    /// FUNCTION − VALUE follow in `out[n + k]` (the sign an EQ sensor's
    /// pass through its band is seen by, `after_step`).
    pub(crate) fn margins(&self, ctx: &FrameContext, out: &mut [f64]) -> Result<(), String> {
        let n = self.compiled.len();
        for k in 0..n {
            let s = &self.compiled[k].sensor;
            let f = self.function(k, ctx)?;
            out[k] = margin(s.compare, f, s.value, s.error);
            if out.len() >= 2 * n {
                out[n + k] = f - s.value;
            }
        }
        Ok(())
    }

    /// The check at the start of a segment: the watch, and the first
    /// sensor (file order) that holds there without having held at its
    /// last check.
    pub(crate) fn start(
        &self,
        state: &mut SensorState,
        ctx: &FrameContext,
    ) -> Result<(Watch, Option<Located>), String> {
        let n = self.compiled.len();
        let mut margins = vec![0.0; 2 * n];
        self.margins(ctx, &mut margins)?;
        let t = ctx.frame.t;
        // A held sensor that is false here is released.
        for (k, c) in self.compiled.iter().enumerate() {
            if margins[k] < 0.0 {
                state.set_held(c.sensor.id, false);
            }
        }
        let first = (0..n)
            .find(|&k| {
                let id = self.compiled[k].sensor.id;
                margins[k] >= 0.0 && !state.held(id) && !state.is_off(id)
            })
            .map(|index| Located { index, t });
        let watch = Watch {
            t,
            margins,
            now: vec![0.0; 2 * n],
            probe: vec![0.0; 2 * n],
        };
        Ok((watch, first))
    }

    /// The check after an accepted step ending at `tb`: `margins_at(τ,
    /// out)` writes every margin and deviation on the integrator's state
    /// at τ in [watch.t, tb] (the step end itself at τ = tb) into `out`.
    /// Returns the earliest located trip; without one, the held flags
    /// follow the step end.
    ///
    /// A condition is seen at the step ends, plus one case inside the
    /// step: an EQ sensor whose FUNCTION is outside the band VALUE ± ERROR
    /// at both ends but on opposite sides of VALUE has passed through the
    /// band (FUNCTION is continuous within a step): the crossing of VALUE
    /// is located on the interpolant, and the band's entry before it
    /// (`pass_through`). A condition that holds only inside a step
    /// otherwise (a GE/LE FUNCTION whose extremum crosses VALUE and comes
    /// back, an EQ FUNCTION touching the band on one side) is not seen;
    /// HMAX bounds the steps.
    pub(crate) fn after_step(
        &self,
        state: &mut SensorState,
        watch: &mut Watch,
        tb: f64,
        margins_at: &mut MarginsAt,
    ) -> Result<Option<Located>, String> {
        let Watch {
            margins: last,
            now,
            probe,
            ..
        } = watch;
        margins_at(tb, now)?;
        let n = self.compiled.len();
        let mut best: Option<Located> = None;
        for (k, c) in self.compiled.iter().enumerate() {
            let id = c.sensor.id;
            if state.held(id) || state.is_off(id) {
                continue;
            }
            if now[k] < 0.0 {
                let passed = c.sensor.compare == SensorCompare::Eq
                    && last[k] < 0.0
                    && last[n + k] * now[n + k] < 0.0;
                if passed {
                    let ends = [(watch.t, last[k], last[n + k]), (tb, now[k], now[n + k])];
                    let t = pass_through(&c.sensor, k, n, ends, probe, margins_at)?;
                    if best.is_none_or(|b| t < b.t) {
                        best = Some(Located { index: k, t });
                    }
                }
                continue;
            }
            let t = if last[k] < 0.0 {
                let s = &c.sensor;
                locate(watch.t, last[k], tb, now[k], s, &mut |tau| {
                    margins_at(tau, probe)?;
                    Ok(probe[k])
                })?
            } else {
                // True at the last check without being held: it was
                // released there (DEACTIVATE/ACTIVATE, a new SIMULATE).
                watch.t
            };
            if best.is_none_or(|b| t < b.t) {
                best = Some(Located { index: k, t });
            }
        }
        if best.is_none() {
            for (k, c) in self.compiled.iter().enumerate() {
                state.set_held(c.sensor.id, now[k] >= 0.0);
            }
        }
        watch.t = tb;
        std::mem::swap(&mut watch.margins, &mut watch.now);
        Ok(best)
    }

    /// The trip of sensor `at.index` on `frame` (the consistent state at
    /// the located time): EVALUATE is evaluated and becomes SENVAL(id),
    /// and every sensor's held flag is set from this state (the tripped
    /// one is held).
    pub(crate) fn trip(
        &self,
        state: &mut SensorState,
        at: Located,
        ctx: &FrameContext,
        restarts: bool,
    ) -> Result<Trip, String> {
        let mut margins = vec![0.0; self.compiled.len()];
        self.margins(ctx, &mut margins)?;
        for (k, c) in self.compiled.iter().enumerate() {
            state.set_held(c.sensor.id, k == at.index || margins[k] >= 0.0);
        }
        let c = &self.compiled[at.index];
        let s = &c.sensor;
        let evaluated = match &c.evaluate {
            Some(g) => {
                let v = g.eval_in(ctx).map_err(|err| {
                    format!(
                        "SENSOR/{}: EVALUATE = {} at t = {}: {err}",
                        s.id,
                        g.source(),
                        ctx.frame.t
                    )
                })?;
                self.values.set(s.id, v);
                Some(v)
            }
            None => None,
        };
        Ok(Trip {
            id: s.id,
            action: s.action,
            t: ctx.frame.t,
            value: self.function(at.index, ctx)?,
            evaluated,
            writes_frame: s.print || s.action != SensorAction::Continue,
            stepsize: s.stepsize,
            dt: s.dt,
            output_stopped: false,
            restarts,
        })
    }

    /// Whether a continuing trip of sensor `at.index` must restart the
    /// integrator from the trip state: RESTART and CODGEN ask for it;
    /// EVALUATE changes SENVAL, and with it the equations, from the trip
    /// time on; and without INTERPOLATE an output time that DT puts before
    /// the integrator's step end `t_now` has no state to come from.
    /// (STEPSIZE alone sets the next step: no restart, module text.)
    fn restarts(&self, at: Located, interpolate: bool, t_now: f64) -> bool {
        let s = &self.compiled[at.index].sensor;
        s.restart
            || s.codgen
            || s.evaluate.is_some()
            || (!interpolate && s.dt.is_some_and(|dt| at.t + dt < t_now))
    }
}

/// The crossing of one sensor's margin m in (ta, tb], m(ta) = ma < 0 ≤
/// m(tb) = mb, to a bracket narrower than the sensor's TERROR: Illinois
/// secant steps, or bisection with BISECTION. The right end (where the
/// condition holds) is returned.
fn locate(
    ta: f64,
    ma: f64,
    tb: f64,
    mb: f64,
    s: &Sensor,
    m: &mut dyn FnMut(f64) -> Result<f64, String>,
) -> Result<f64, String> {
    let (mut a, mut fa, mut b, mut fb) = (ta, ma, tb, mb);
    // Which end the last iterate replaced: +1 the right, −1 the left.
    let mut last = 0i8;
    for _ in 0..MAX_LOCATE_ITERATIONS {
        let width = b - a;
        if width <= s.terror {
            break;
        }
        let c = if s.bisection {
            0.5 * (a + b)
        } else {
            // The secant point, kept a quarter TERROR inside the bracket
            // so that a one-sided approach still closes it.
            let c = b - fb * width / (fb - fa);
            let inset = (0.25 * s.terror).min(0.25 * width);
            if c.is_finite() {
                c.clamp(a + inset, b - inset)
            } else {
                0.5 * (a + b)
            }
        };
        let fc = m(c)?;
        if fc >= 0.0 {
            b = c;
            fb = fc;
            if last == 1 {
                fa *= 0.5;
            }
            last = 1;
        } else {
            a = c;
            fa = fc;
            if last == -1 {
                fb *= 0.5;
            }
            last = -1;
        }
    }
    Ok(b)
}

/// Where EQ sensor `k` (of `n`) entered its band within a step whose ends
/// (time, margin, deviation FUNCTION − VALUE) lie outside the band on
/// opposite sides of VALUE: the crossing t₁ of VALUE (the deviation,
/// signed to rise, located as a margin is), then the band's entry in
/// (ta, t₁] where the margin is ≥ 0 at t₁. When the band is narrower than
/// FUNCTION's change over TERROR, no located point has a margin ≥ 0: the
/// trip is t₁, the crossing of VALUE within TERROR.
fn pass_through(
    s: &Sensor,
    k: usize,
    n: usize,
    [(ta, ma, da), (tb, _, db)]: [(f64, f64, f64); 2],
    probe: &mut [f64],
    margins_at: &mut MarginsAt,
) -> Result<f64, String> {
    let sign = -da.signum();
    let t1 = locate(ta, sign * da, tb, sign * db, s, &mut |tau| {
        margins_at(tau, probe)?;
        Ok(sign * probe[n + k])
    })?;
    margins_at(t1, probe)?;
    let m1 = probe[k];
    if m1 < 0.0 {
        return Ok(t1);
    }
    locate(ta, ma, t1, m1, s, &mut |tau| {
        margins_at(tau, probe)?;
        Ok(probe[k])
    })
}

/// The output times of a SIMULATE after a DT trip at `t`: every `dt` from
/// `t` on, and `end`.
pub(crate) fn times_after(t: f64, dt: f64, end: f64) -> Vec<f64> {
    // An output within a millionth of dt of END is END itself.
    let n = ((end - t) / dt - 1e-6).ceil().max(1.0) as u64;
    (1..=n).map(|k| (t + k as f64 * dt).min(end)).collect()
}

impl Trip {
    /// The message-log line of the trip.
    pub(crate) fn describe(&self) -> String {
        let what = match self.action {
            SensorAction::Halt => "the analysis halts (later SIMULATE commands are not run)",
            SensorAction::Return => "the current SIMULATE ends",
            SensorAction::Continue if self.restarts => {
                "the integration restarts at order 1 from the trip"
            }
            SensorAction::Continue if self.stepsize.is_some() => {
                "the integration goes on from its step end with the STEPSIZE as its next step"
            }
            SensorAction::Continue => "the integration goes on from its step end",
        };
        let evaluated = match self.evaluated {
            Some(v) => format!(", SENVAL = {v:.6e}"),
            None => String::new(),
        };
        let action = match self.action {
            SensorAction::Continue => String::new(),
            a => format!(", {}", a.keyword()),
        };
        format!(
            "t = {:.6e}: SENSOR/{} tripped (FUNCTION = {:.6e}{evaluated}{action}): {what}",
            self.t, self.id, self.value,
        )
    }
}

/// The frame at τ from the integrator into `out`: its step-end state at
/// τ ≥ its time, else its interpolant (false where it has none).
pub(crate) fn frame_at(
    sys: &mbsolve_mech::System,
    integ: &dyn crate::formulation::Integrator,
    frames: &mut dyn crate::formulation::FrameMap,
    tau: f64,
    yi: &mut Vec<f64>,
    ypi: &mut Vec<f64>,
    out: &mut Frame,
) -> bool {
    let (y, yp) = integ.solution();
    if tau >= integ.time() {
        frames.frame_into(sys, integ.time(), y, yp, integ.multipliers(), out);
        return true;
    }
    yi.resize(y.len(), 0.0);
    ypi.resize(yp.len(), 0.0);
    if !integ.interpolate(tau, yi, ypi) {
        return false;
    }
    frames.frame_into(sys, tau, yi, ypi, integ.multipliers(), out);
    true
}

/// What the sensor checks need of the simulation (its fields, apart: the
/// segment borrows the system meanwhile).
pub(crate) struct Hooks<'a> {
    pub sys: &'a mbsolve_mech::System,
    pub data: &'a mut mbsolve_mech::MechData,
    pub model: &'a Model,
    pub output: &'a mut crate::FrameOutput,
    pub log: &'a mut Vec<String>,
    pub halted: &'a mut bool,
    pub initial_q: &'a [f64],
    /// The simulation's sensor flags.
    pub state: &'a mut SensorState,
}

/// The integrator of the segment and the SIMULATE's output plan.
pub(crate) struct Run<'a> {
    pub integ: &'a dyn crate::formulation::Integrator,
    pub frames: &'a mut dyn crate::formulation::FrameMap,
    /// Frames written so far.
    pub kept: &'a mut Vec<Frame>,
    pub times: &'a mut Vec<f64>,
    /// Index of the next output time.
    pub next: &'a mut usize,
    pub end: f64,
    /// INTERPOLATE = ON: outputs come from the interpolant.
    pub interpolate: bool,
}

/// What the driver does after a step (`SegmentWatch::after_step`).
pub(crate) enum AfterStep {
    /// No trip before the next output time: write it if reached.
    Output,
    /// No trip and the output time is not reached: step again.
    StepOn,
    /// The SIMULATE ends (HALT, RETURN; or the error).
    Stop(Option<crate::SolverError>),
    /// Restart the integration from this trip state, with a STEPSIZE
    /// (sensor id, h) for its first step.
    Resume(Frame, Option<(u32, f64)>),
    /// No restart: the integrator's next step is the STEPSIZE (sensor id,
    /// h) of the trip (`DaeIntegrator::set_next_step`), then step again.
    NextStep(u32, f64),
}

/// The sensors during one segment: the last check and a trip located but
/// not yet acted on (it waits for the outputs before it).
pub(crate) struct SegmentWatch {
    watch: Watch,
    located: Option<Located>,
    yi: Vec<f64>,
    ypi: Vec<f64>,
    /// The state the margins are evaluated on, refilled at every check.
    frame: Frame,
}

impl SegmentWatch {
    /// The check on the segment's start state (None without sensors).
    pub(crate) fn start(
        sensors: &Sensors,
        state: &mut SensorState,
        ctx: &FrameContext,
    ) -> Result<Option<Self>, String> {
        if sensors.is_empty() {
            return Ok(None);
        }
        let (watch, located) = sensors.start(state, ctx)?;
        Ok(Some(SegmentWatch {
            watch,
            located,
            yi: Vec::new(),
            ypi: Vec::new(),
            frame: ctx.frame.clone(),
        }))
    }

    /// Whether the integrator should take another step toward output
    /// time `t` (no trip is waiting and `t` is not reached).
    pub(crate) fn wants_step(&self, integ: &dyn crate::formulation::Integrator, t: f64) -> bool {
        self.located.is_none() && integ.time() < t
    }

    /// After a step toward `t` (the next output time, or a discrete
    /// sample instant before it), or at the segment start: check the
    /// sensors on the new step, and act on a located trip once the outputs
    /// before it are written.
    pub(crate) fn after_step(
        &mut self,
        sensors: &Sensors,
        h: Hooks,
        mut run: Run,
        t: f64,
    ) -> AfterStep {
        let integ = run.integ;
        if self.located.is_none() && integ.time() > self.watch.t {
            let tb = integ.time();
            let (sys, model, initial_q) = (h.sys, h.model, h.initial_q);
            let (frames, yi, ypi) = (&mut *run.frames, &mut self.yi, &mut self.ypi);
            let fr = &mut self.frame;
            let mut margins_at = |tau: f64, out: &mut [f64]| {
                if !frame_at(sys, integ, frames, tau, yi, ypi, fr) {
                    return Err(format!(
                        "no interpolant at t = {tau} to locate a SENSOR trip"
                    ));
                }
                let ctx = FrameContext {
                    sys,
                    model,
                    frame: fr,
                    initial_q,
                };
                sensors.margins(&ctx, out)
            };
            match sensors.after_step(&mut *h.state, &mut self.watch, tb, &mut margins_at) {
                // A trip beyond END (INTERPOLATE stepped past it) belongs
                // to a later SIMULATE.
                Ok(l) => self.located = l.filter(|l| l.t <= run.end),
                Err(message) => {
                    *run.next = run.times.len();
                    return AfterStep::Stop(Some(crate::SolverError::Integration {
                        t: tb,
                        message,
                    }));
                }
            }
        }
        let Some(at) = self.located.filter(|l| l.t <= t) else {
            return if integ.time() < t {
                AfterStep::StepOn
            } else {
                AfterStep::Output
            };
        };
        let (sys, model, initial_q) = (h.sys, h.model, h.initial_q);
        let (trip, frame) = match act(sensors, at, h, &mut run) {
            Ok(r) => r,
            Err(e) => {
                *run.next = run.times.len();
                return AfterStep::Stop(Some(e));
            }
        };
        // The trip frame stands for an output time it falls on.
        let t_out = run.times[*run.next];
        if trip.writes_frame && at.t >= t_out * (1.0 - 1e-12) {
            *run.next += 1;
        }
        if trip.output_stopped || trip.action != SensorAction::Continue {
            *run.next = run.times.len();
            return AfterStep::Stop(None);
        }
        if let Some(dt) = trip.dt {
            run.times.truncate(*run.next);
            run.times.extend(times_after(at.t, dt, run.end));
        }
        if !trip.restarts {
            // The integrator goes on as it is; the driver takes the next
            // output time afresh (DT may have moved it). The watch restarts
            // from the trip state, so the rest of the step, (trip, step
            // end], is checked again: another sensor crossing there is
            // located where it crosses (the tripped one is held).
            let ctx = FrameContext {
                sys,
                model,
                frame: &frame,
                initial_q,
            };
            if let Err(message) = sensors.margins(&ctx, &mut self.watch.margins) {
                *run.next = run.times.len();
                return AfterStep::Stop(Some(crate::SolverError::Integration { t: at.t, message }));
            }
            self.watch.t = at.t;
            self.located = None;
            return match trip.stepsize {
                Some(h) => AfterStep::NextStep(trip.id, h),
                None => AfterStep::StepOn,
            };
        }
        AfterStep::Resume(frame, trip.stepsize.map(|h| (trip.id, h)))
    }
}

/// Sensor `at.index` trips at `at.t`: the state there (the integrator's
/// step end or its interpolant, positions assembled, velocities and
/// accelerations made consistent), EVALUATE and the held flags set, the
/// output frame written when the sensor asks for one, the trip logged and
/// HALT recorded.
fn act(
    sensors: &Sensors,
    at: Located,
    h: Hooks,
    run: &mut Run,
) -> Result<(Trip, Frame), crate::SolverError> {
    let (sys, integ) = (h.sys, run.integ);
    let (mut yi, mut ypi) = (Vec::new(), Vec::new());
    let interpolated = at.t < integ.time();
    let mut frame = Frame::empty();
    if !frame_at(
        sys,
        integ,
        &mut *run.frames,
        at.t,
        &mut yi,
        &mut ypi,
        &mut frame,
    ) {
        return Err(crate::SolverError::Integration {
            t: at.t,
            message: "the integrator has no interpolant to give the SENSOR trip state".into(),
        });
    }
    if interpolated {
        if let Ok(q) = crate::analysis::assemble_positions(sys, h.data, at.t, &frame.q) {
            frame.q = q;
        }
    }
    let (mut kkt_v, mut kkt_a) = (Kkt::new(sys), Kkt::new(sys));
    let project = !run.frames.keeps_velocities() || interpolated;
    let consistent = crate::analysis::consistent_output(
        sys, h.data, &mut frame, &mut kkt_v, &mut kkt_a, project,
    );
    if !consistent {
        return Err(crate::SolverError::Integration {
            t: at.t,
            message:
                "the SENSOR trip state could not be made consistent (singular constraint Jacobian)"
                    .into(),
        });
    }
    let ctx = FrameContext {
        sys,
        model: h.model,
        frame: &frame,
        initial_q: h.initial_q,
    };
    let restarts = sensors.restarts(at, run.interpolate, integ.time());
    let mut trip = sensors
        .trip(h.state, at, &ctx, restarts)
        .map_err(|message| crate::SolverError::Integration { t: at.t, message })?;
    // A stop from the output path ends the analysis; it is reported when
    // the analysis ends.
    if trip.writes_frame {
        trip.output_stopped = !h.output.emit(sys, h.model, h.log, frame.clone(), run.kept);
    }
    h.log.push(trip.describe());
    *h.halted |= trip.action == SensorAction::Halt;
    Ok((trip, frame))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sensor(bisection: bool, terror: f64) -> Sensor {
        let mut s = Sensor::new(1, "TIME", 0.0, SensorAction::Return);
        s.bisection = bisection;
        s.terror = terror;
        s
    }

    /// Both searches bracket the root of a curved margin to TERROR and
    /// return the end where the condition holds; the secant search needs
    /// far fewer evaluations than bisection.
    #[test]
    fn locate_brackets_the_root_within_terror() {
        let root = 0.3f64.sqrt();
        for (bisection, most) in [(false, 12), (true, 30)] {
            let mut calls = 0;
            let s = sensor(bisection, 1e-9);
            let t = locate(0.0, -0.3, 1.0, 0.7, &s, &mut |x| {
                calls += 1;
                Ok(x * x - 0.3)
            })
            .unwrap();
            assert!(t >= root && t - root <= 1e-9, "{bisection}: {t} vs {root}");
            assert!(calls <= most, "{bisection}: {calls} evaluations");
        }
    }

    #[test]
    fn margins_are_nonnegative_exactly_where_the_comparison_holds() {
        for compare in [SensorCompare::Eq, SensorCompare::Ge, SensorCompare::Le] {
            for f in [-2.0, 0.9, 0.999, 1.0, 1.001, 1.2, 3.0] {
                assert_eq!(
                    margin(compare, f, 1.0, 0.1) >= 0.0,
                    compare.holds(f, 1.0, 0.1),
                    "{compare:?} {f}"
                );
            }
        }
    }

    #[test]
    fn dt_times_run_from_the_trip_to_end() {
        assert_eq!(times_after(0.25, 0.5, 1.5), vec![0.75, 1.25, 1.5]);
        assert_eq!(times_after(0.25, 0.25, 1.0), vec![0.5, 0.75, 1.0]);
    }
}
