//! Analyses: initial conditions (assembly), kinematic analysis of zero-DOF
//! systems, and dynamic analysis (one driver for every pair of
//! `settings::PAIRS`). A failed run keeps the frames it computed.

use crate::formulation::equation_name;
use crate::functions::FrameContext;
use crate::linear::Kkt;
use crate::output::{output_count, FrameOutput};
use crate::redundancy::{find_redundant_with, singular_only, NEAR_SINGULAR_TOL, RANK_TOL};
use crate::rti_report::{rti_report, time_unit};
use crate::sensors::{AfterStep, SegmentWatch};
use crate::settings::{validate, Family, ParamTransient, Plan};
use mbsolve_integrate::{IntegrationError, RtiMeter, Statistics, StopKind};
use mbsolve_mech::{MechData, System};
use mbsolve_model::{CorrectorKind, IntegratorKind, IntegratorSettings, Model, ModelError};
use std::fmt;
use std::time::Instant;

/// The solution at one output time.
#[derive(Clone, Debug)]
pub struct Frame {
    pub t: f64,
    pub q: Vec<f64>,
    pub u: Vec<f64>,
    pub a: Vec<f64>,
    pub lambda: Vec<f64>,
    /// User states (DIFF) w and their rates w', in `System::states` order.
    pub w: Vec<f64>,
    pub wp: Vec<f64>,
    /// A kinematic analysis emitted it: COULOMB_FRICTION = DYNAMICS_ONLY
    /// contact friction was off (the CONTACT() result follows the force
    /// applied). Set by `emit_frame`.
    pub non_dynamic: bool,
    /// The analysis MODE it was emitted under (`analysis_mode`; requests
    /// evaluated after the run read it). Set by `Output::emit`.
    pub mode: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub enum SolverError {
    Model(ModelError),
    Settings(String),
    /// Initial conditions or kinematics could not be satisfied.
    Assembly(String),
    /// The integration stopped; frames up to `t` were kept.
    Integration {
        t: f64,
        message: String,
    },
    /// A static or quasi-static solution failed; the best configuration
    /// reached was kept.
    Statics(String),
    /// The output path stopped the analysis at the frame at `t` (a
    /// failing request: that frame was not written; a stop request: it
    /// was); `reason` says which, with the time.
    Stopped {
        t: f64,
        reason: String,
    },
}

impl fmt::Display for SolverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolverError::Model(e) => write!(f, "{e}"),
            SolverError::Settings(s) => write!(f, "{s}"),
            SolverError::Assembly(s) => write!(f, "{s}"),
            SolverError::Integration { t, message } => {
                write!(f, "dynamic analysis failed at t = {t:.6e}: {message}")
            }
            SolverError::Statics(s) => write!(f, "{s}"),
            SolverError::Stopped { reason, .. } => write!(f, "{reason}"),
        }
    }
}
impl std::error::Error for SolverError {}

/// A model being simulated: the model (the session's copy, which commands
/// edit), its immutable mechanics and per-run mechanics data, its current
/// state, the frames written so far and the message log.
pub struct Simulation {
    pub model: Model,
    pub sys: System,
    /// The active constraint set and evaluation cache of the analyses'
    /// own evaluations; each integration segment works on a clone.
    pub data: MechData,
    pub state: Frame,
    /// The output frames kept in memory: all of them while
    /// `output.retain` (the default), else only the last one.
    pub frames: Vec<Frame>,
    pub log: Vec<String>,
    pub stats: Vec<(String, Statistics, f64)>,
    /// Where each output frame goes as an analysis computes it (a sink,
    /// the progress hook, the stop flag): `FrameOutput::emit`.
    pub output: FrameOutput,
    /// Reports for the terminal as well as the message log (e.g. the Real
    /// Time Index of a fixed-step run).
    pub reports: Vec<String>,
    pub(crate) ic_done: bool,
    /// A SENSOR with HALT tripped: the analysis is over and later
    /// SIMULATE commands are not run (Adams SENSOR HALT).
    pub halted: bool,
    /// The sensors' held and switched-off flags, this run's own.
    pub(crate) sensor_state: crate::sensors::SensorState,
}

/// Largest active-constraint violation an assembly leaves (model units;
/// Adams' IC ERROR default, "the maximum displacement error … for the
/// assembly process", 1.0E-10).
pub(crate) const POS_TOL: f64 = 1e-10;

impl Simulation {
    pub fn new(model: &Model) -> Result<Self, SolverError> {
        // This run's own SENVAL cells, all 0 (a new run): clones of one
        // model share their functions, so each run rebinds its copy. Every
        // element starts active.
        let mut model = model.clone();
        model.bind_sensor_values(Default::default());
        model.inactive_forces.clear();
        let model = &model;
        let sys = System::new(model).map_err(SolverError::Model)?;
        let mut data = sys.new_data();
        data.states.w = sys.state_initial_values();
        data.solved = crate::reaction_fn::evaluator(&sys, model).map_err(SolverError::Assembly)?;
        let (w, wp) = (data.states.w.clone(), data.states.wp.clone());
        let (q, u) = sys.initial_state();
        let (n, m) = (sys.nq(), sys.neq());
        let mut log = vec![format!(
            "model '{}': {} moving parts, {} joints, {} motions, {} forces; {} coordinates, {} constraint equations",
            model.title,
            sys.nb(),
            model.joints.len(),
            model.motions.len(),
            model.forces.len(),
            n,
            m
        )];
        log.push(format!(
            "degrees of freedom before redundancy removal: {}",
            sys.dof(&data)
        ));
        Ok(Simulation {
            model: model.clone(),
            sys,
            data,
            state: Frame {
                t: 0.0,
                q,
                u,
                a: vec![0.0; n],
                lambda: vec![0.0; m],
                w,
                wp,
                non_dynamic: false,
                mode: 0.0,
            },
            frames: Vec::new(),
            log,
            stats: Vec::new(),
            output: FrameOutput::default(),
            reports: Vec::new(),
            ic_done: false,
            halted: false,
            sensor_state: crate::sensors::SensorState::new(model),
        })
    }

    /// Assemble positions (moving the given ones as little as possible),
    /// velocities, then accelerations and multipliers.
    pub fn initial_conditions(&mut self) -> Result<(), SolverError> {
        let _mode = self.mode_for_now(crate::analysis_mode::AnalysisMode::InitialConditions);
        // JOINT IC: held for the first initial-condition solve only.
        if !self.ic_done {
            if let Some((q, u)) = crate::joint_ic::held_start(self)? {
                self.state.q = q;
                self.state.u = u;
            }
        }
        let t = self.state.t;
        let q0 = self.state.q.clone();
        let u0 = self.state.u.clone();
        if let Some(cause) = self.sys.diagnose_non_finite(&q0, &u0, t) {
            return Err(SolverError::Assembly(cause));
        }
        // The redundant equations are decided on the assembled
        // configuration, not on the input (`ic_rank`).
        let q = self.assemble_deciding_rank(t, &q0)?;
        let removed = self.removed_equations();
        let any = !removed.is_empty();
        self.log.extend(removed);
        if any {
            self.log.push(format!(
                "degrees of freedom after redundancy removal: {}",
                self.sys.dof(&self.data)
            ));
        }
        crate::massless::check_massless(&self.sys, &self.model, &self.data, &q, t)?;
        self.solve_configuration(t, &q, &u0)?;
        self.ic_done = true;
        self.log
            .push(format!("initial conditions satisfied at t = {t}"));
        Ok(())
    }

    /// Positions near `q0`, velocities near `u0`, then accelerations and
    /// multipliers, all at time t. Deactivated equations must hold; one that
    /// does not triggers a rank re-check at the assembled configuration (a
    /// configuration change can make a redundant equation independent again).
    pub(crate) fn solve_configuration(
        &mut self,
        t: f64,
        q0: &[f64],
        u0: &[f64],
    ) -> Result<(), SolverError> {
        // A NaN or inf from an element is named here, not as a singular
        // matrix after the solve (issue 11).
        if let Some(cause) = self.sys.diagnose_non_finite(q0, u0, t) {
            return Err(SolverError::Assembly(cause));
        }
        let mut q = self.assemble_positions(t, q0)?;
        if self.violated_inactive(t, &q).is_some() && self.recheck_redundancy(t, &q) {
            q = self.assemble_positions(t, q0)?;
        }
        if let Some((k, v)) = self.violated_inactive(t, &q) {
            return Err(SolverError::Assembly(format!(
                "redundant constraint equation {} in {} is not satisfied by the assembled configuration (residual {:.3e}): the model is inconsistently over-constrained",
                self.sys.equations[k].name,
                self.sys.describe(self.sys.equations[k].element),
                v
            )));
        }
        let (sys, data) = (&self.sys, &mut self.data);
        let m = sys.neq();
        let mut kkt = Kkt::new(sys);
        // Velocities: min |u − u0| (translations weighed in metres, so the
        // deck's length unit does not change the answer) subject to
        // Φ_q u = −Φ_t.
        let mut rhs = vec![0.0; m];
        sys.velocity_rhs(data, &q, t, &mut rhs);
        let velocities = kkt.project(sys, data, &q, t, u0, &rhs);
        let (u, _) = velocities.map_err(|row| self.singular(row, "velocity"))?;
        let (sys, data) = (&self.sys, &mut self.data);
        // User-state rates at (q, u) and the current states (forces may
        // read them; DIFF functions read no accelerations).
        sys.solve_state_rates(data, &q, &u, t)
            .map_err(SolverError::Assembly)?;
        // Accelerations and multipliers: [M Φ_qᵀ; Φ_q 0][a; λ] = [−R(q,u,0,0); γ].
        let mut gamma = vec![0.0; m];
        sys.acceleration_rhs(data, &q, &u, t, &mut gamma);
        let accelerations =
            crate::reaction_fn::accelerations(&mut kkt, sys, data, &q, &u, t, &gamma)
                .map_err(SolverError::Assembly)?;
        let (a, lambda) = accelerations.map_err(|row| self.singular(row, "acceleration"))?;
        let (w, wp) = (self.data.states.w.clone(), self.data.states.wp.clone());
        self.state = Frame {
            t,
            q,
            u,
            a,
            lambda,
            w,
            wp,
            non_dynamic: false,
            mode: 0.0,
        };
        Ok(())
    }

    /// Newton on the active constraints for the positions nearest `q0`.
    fn assemble_positions(&mut self, t: f64, q0: &[f64]) -> Result<Vec<f64>, SolverError> {
        assemble_positions(&self.sys, &mut self.data, t, q0)
    }

    /// A deactivated equation violated (beyond 1e-6) at q, with its residual.
    fn violated_inactive(&self, t: f64, q: &[f64]) -> Option<(usize, f64)> {
        (0..self.sys.neq())
            .filter(|k| !self.data.active[*k] && !self.data.equation_is_off(*k))
            .map(|k| (k, self.sys.eval_equation(k, q, t, false).s.val))
            .find(|(_, v)| v.abs() > 1e-6)
    }

    fn singular(&self, row: usize, phase: &str) -> SolverError {
        singular(&self.sys, row, phase)
    }

    /// Err naming the first velocity GCON when `analysis` cannot take a
    /// velocity-level (non-holonomic) constraint, for the reason `why`.
    pub(crate) fn refuse_velocity_rows(
        &self,
        analysis: &str,
        why: &str,
    ) -> Result<(), SolverError> {
        match self.sys.equations.iter().find(|e| e.is_velocity()) {
            Some(e) => Err(SolverError::Settings(format!(
                "{}: its FUNCTION reads velocities (a non-holonomic constraint), which {analysis} does not take: {why}",
                self.sys.describe(e.element)
            ))),
            None => Ok(()),
        }
    }
}

/// Newton on the active constraints for the positions nearest `q0`.
pub(crate) fn assemble_positions(
    sys: &System,
    data: &mut MechData,
    t: f64,
    q0: &[f64],
) -> Result<Vec<f64>, SolverError> {
    assemble_positions_tracked(sys, data, t, q0).map_err(|(e, _)| e)
}

/// `assemble_positions`, and on failure also the iterate with the smallest
/// largest active-constraint violation (`q0` itself when no iterate did
/// better): where a Newton iteration on nearly dependent rows stalls, that
/// iterate is nearer the constraint manifold than the input, so the rank
/// decided there is nearer the one at the assembled configuration
/// (`ic_rank`).
pub(crate) fn assemble_positions_tracked(
    sys: &System,
    data: &mut MechData,
    t: f64,
    q0: &[f64],
) -> Result<Vec<f64>, (SolverError, Vec<f64>)> {
    // A velocity-level row (velocity GCON) constrains velocities, not
    // positions: the assembly leaves it out (its row pins its multiplier).
    let mut positional;
    let data = if sys.has_velocity_rows() {
        positional = data.clone();
        for (k, eq) in sys.equations.iter().enumerate() {
            if eq.is_velocity() {
                positional.active[k] = false;
            }
        }
        positional.invalidate_cache();
        &mut positional
    } else {
        data
    };
    let (n, m) = (sys.nq(), sys.neq());
    let mut kkt = Kkt::new(sys);
    let mut q = q0.to_vec();
    let mut phi = vec![0.0; m];
    let mut best = (f64::INFINITY, q0.to_vec());
    for _ in 0..ASSEMBLY_MAXIT {
        sys.constraints(data, &q, t, &mut phi);
        let pmax = phi.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if pmax < best.0 {
            best = (pmax, q.clone());
        }
        // the least change from the input, translations weighed in metres
        // (`System::projection_weight`), so a deck in mm assembles as its
        // SI twin does
        let r1: Vec<f64> = (0..n).map(|i| -(q[i] - q0[i])).collect();
        let r2: Vec<f64> = phi.iter().map(|v| -v).collect();
        let (dq, _) = match kkt.project(sys, data, &q, t, &r1, &r2) {
            Ok(x) => x,
            Err(row) => return Err((singular(sys, row, "position"), best.1)),
        };
        let step = dq.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        for i in 0..n {
            q[i] += dq[i];
        }
        if pmax < POS_TOL && step < 1e-8 {
            return Ok(q);
        }
    }
    sys.constraints(data, &q, t, &mut phi);
    let k = (0..m)
        .max_by(|a, b| phi[*a].abs().total_cmp(&phi[*b].abs()))
        .unwrap_or(0);
    Err((
        SolverError::Assembly(format!(
            "positions could not be assembled at t = {t}: largest constraint violation {:.3e} in {}",
            phi[k].abs(),
            equation_name(sys, k)
        )),
        best.1,
    ))
}

/// Newton iterations of one position assembly.
const ASSEMBLY_MAXIT: usize = 50;

fn singular(sys: &System, row: usize, phase: &str) -> SolverError {
    let n = sys.nq();
    let what = if row < n {
        crate::formulation::coordinate_name(sys, row)
    } else {
        equation_name(sys, row - n)
    };
    SolverError::Assembly(format!(
        "singular {phase} matrix during assembly (first failing unknown: {what}); check for missing or conflicting constraints"
    ))
}

impl Simulation {
    /// Emit one output frame through `self.output` (kept in
    /// `self.frames` when retaining); Err when the output path stops the
    /// analysis.
    pub(crate) fn emit_frame(&mut self, mut frame: Frame) -> Result<(), SolverError> {
        frame.non_dynamic = self.data.non_dynamic;
        if self
            .output
            .emit(&self.sys, &self.model, &self.log, frame, &mut self.frames)
        {
            Ok(())
        } else {
            Err(self.output.take_stop().unwrap_or(SolverError::Stopped {
                t: self.state.t,
                reason: "output stopped".into(),
            }))
        }
    }

    /// `emit_frame` for frames that are not analysis output times (the
    /// initial conditions, a static equilibrium): the progress hook, which
    /// follows an analysis from its start to END, is not called.
    pub(crate) fn emit_frame_unreported(&mut self, frame: Frame) -> Result<(), SolverError> {
        let progress = self.output.progress.take();
        let emitted = self.emit_frame(frame);
        self.output.progress = progress;
        emitted
    }

    pub(crate) fn output_times(
        &self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
    ) -> Result<Vec<f64>, SolverError> {
        let t0 = self.state.t;
        if end.is_nan() || end <= t0 {
            return Err(SolverError::Settings(format!(
                "SIMULATE: END = {end} must be after the current time {t0}"
            )));
        }
        let n = output_count(t0, end, steps, dtout)?;
        let dt = match (steps, dtout) {
            (Some(_), _) => (end - t0) / n as f64,
            (None, Some(d)) => d,
            _ => unreachable!(),
        };
        Ok((1..=n).map(|k| (t0 + k as f64 * dt).min(end)).collect())
    }

    /// The current state, as the initial conditions solved it, written as
    /// an output frame (SIMULATE/INITIAL_CONDITIONS).
    pub(crate) fn write_initial_conditions_frame(&mut self) -> Result<(), SolverError> {
        let _mode = self.mode_for_now(crate::analysis_mode::AnalysisMode::InitialConditions);
        self.emit_frame_unreported(self.state.clone())
    }

    fn ensure_ic(&mut self) -> Result<(), SolverError> {
        if !self.ic_done {
            self.initial_conditions()?;
        }
        if self.output.written == 0 {
            // The initial-conditions frame (its reactions are the IC solve's).
            let _mode = self.mode_for_now(crate::analysis_mode::AnalysisMode::InitialConditions);
            self.emit_frame_unreported(self.state.clone())?;
        }
        Ok(())
    }

    /// Kinematic analysis of a zero-DOF system: positions, velocities,
    /// accelerations and reactions at each output time.
    pub fn kinematic(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
    ) -> Result<(), SolverError> {
        self.set_mode(crate::analysis_mode::AnalysisMode::Kinematics);
        // Not a dynamic analysis: DYNAMICS_ONLY contact friction is off.
        self.data.non_dynamic = true;
        let done = self.kinematic_run(end, steps, dtout);
        self.data.non_dynamic = false;
        done
    }

    fn kinematic_run(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
    ) -> Result<(), SolverError> {
        self.ensure_ic()?;
        self.refuse_velocity_rows(
            "a kinematic analysis",
            "kinematics finds the positions from the position constraints, and a velocity constraint leaves them undetermined; run a dynamic analysis",
        )?;
        if self.sys.nw() > 0 {
            return Err(SolverError::Settings(format!(
                "{}: kinematic analysis does not integrate user states (DIFF, LSE, TFSISO) yet; run a dynamic analysis",
                self.sys.state_name(0)
            )));
        }
        if self.sys.dof(&self.data) != 0 {
            let removed = self.data.active.iter().filter(|a| !**a).count();
            let hint = if removed > 0 && self.sys.dof(&self.data) > 0 {
                format!(
                    " after removing {removed} redundant constraint equations in the current configuration (if that configuration is singular, e.g. links aligned, start the model away from it)"
                )
            } else {
                String::new()
            };
            return Err(SolverError::Settings(format!(
                "kinematic analysis needs a zero-DOF model; this one has {} degrees of freedom{hint}",
                self.sys.dof(&self.data)
            )));
        }
        let times = self.output_times(end, steps, dtout)?;
        let start = Instant::now();
        // KINEMATICS HMAX: output times farther apart are reached through
        // intermediate configurations, each predicted from the last.
        let hmax = self.model.kinematics.hmax;
        let mut solved = 0usize;
        for t in times {
            let span = t - self.state.t;
            let n = match hmax {
                Some(h) if h > 0.0 && span > h => (span / h).ceil() as usize,
                _ => 1,
            };
            let t_from = self.state.t;
            for k in 1..=n {
                let tk = if k == n {
                    t
                } else {
                    t_from + span * k as f64 / n as f64
                };
                let s = &self.state;
                let dt = tk - s.t;
                let q0: Vec<f64> = (0..s.q.len())
                    .map(|i| s.q[i] + dt * s.u[i] + 0.5 * dt * dt * s.a[i])
                    .collect();
                let u0: Vec<f64> = (0..s.u.len()).map(|i| s.u[i] + dt * s.a[i]).collect();
                self.solve_configuration(tk, &q0, &u0)?;
                solved += 1;
            }
            self.emit_frame(self.state.clone())?;
        }
        self.log.push(format!(
            "kinematic analysis to t = {end}: {solved} configurations solved, {:.3} s wall clock",
            start.elapsed().as_secs_f64()
        ));
        Ok(())
    }

    /// Dynamic analysis with any (integrator, formulation) pair of
    /// `settings::PAIRS`: the one driver. It owns the segments between
    /// restarts (rank changes, failures), the temporary corrector switch,
    /// INTERPOLATE, the fixed-step RTI report and the output frames, which
    /// all leave through `emit`.
    pub fn dynamic(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
        settings: &IntegratorSettings,
    ) -> Result<Statistics, SolverError> {
        let (settings, note) = crate::contact_settings::for_contacts(settings, &self.model)
            .map_err(SolverError::Settings)?;
        self.log.extend(note);
        let settings = &settings;
        self.dynamic_planned(end, steps, dtout, |dt| validate(settings, dt), settings)
    }

    /// Dynamic analysis with MotionSolve `Param_Transient` settings: the
    /// DAE form runs DSTIFF; the ODE form runs VSTIFF, MSTIFF or ABAM on
    /// the coordinate-partitioned equations.
    pub fn dynamic_transient(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
        params: &ParamTransient,
    ) -> Result<Statistics, SolverError> {
        // The settings only feed the fixed-step RTI report, which DSTIFF
        // never produces.
        let settings = IntegratorSettings {
            kind: IntegratorKind::Dstiff,
            ..Default::default()
        };
        self.dynamic_planned(end, steps, dtout, |dt| params.plan(dt), &settings)
    }

    /// The one driver, with the plan made for the first output step.
    fn dynamic_planned(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
        plan_of: impl FnOnce(f64) -> Result<Plan, String>,
        settings: &IntegratorSettings,
    ) -> Result<Statistics, SolverError> {
        self.set_mode(crate::analysis_mode::AnalysisMode::Dynamics);
        self.ensure_ic()?;
        let mut times = self.output_times(end, steps, dtout)?;
        let dt = times[0] - self.state.t;
        let plan = plan_of(dt).map_err(SolverError::Settings)?;
        let form = plan.formulation();
        match plan.pair.formulation {
            mbsolve_model::Formulation::Si1 => self.refuse_velocity_rows(
                "the SI1 formulation",
                "SI1 differentiates every constraint once more (g = 0 and ġ = 0), and its Jacobian of ġ needs the second derivatives of velocity measures, which mbsolve does not have yet; use I3 or SI2",
            )?,
            mbsolve_model::Formulation::Ode => self.refuse_velocity_rows(
                "the ODE formulation (coordinate partitioning)",
                "its partition takes the independent velocities from the position constraints' Jacobian, and a velocity constraint would need a velocity partition of its own, which mbsolve does not have yet; use the DAE form (DSTIFF) or an Adams integrator with I3 or SI2",
            )?,
            _ => {}
        }
        self.log.push(plan.describe());
        self.log.extend(plan.notes.iter().cloned());
        crate::user_states::log_index3_uncontrolled(&self.sys, form.name(), &mut self.log);
        let fixed_step = plan.fixed_step();
        let interpolate = plan.interpolate();
        let n = self.sys.nq();
        let mut rti = fixed_step.map(|h| {
            let (_, _, to_s) = time_unit(&self.model.units.time);
            RtiMeter::new(h * to_s)
        });
        let mut max_local = 0.0f64;
        let (mut yi, mut ypi) = (Vec::new(), Vec::new());
        // An accepted step's state for the output's DELAY histories.
        let mut step_frame = Frame::empty();
        let start = Instant::now();
        let mut new_frames = Vec::new();
        let mut failure = None;
        let (mut kkt_v, mut kkt_a) = (Kkt::new(&self.sys), Kkt::new(&self.sys));
        let mut inconsistent_outputs = 0usize;
        let mut total: Option<Statistics> = None;
        let mut restarts = RestartGuard {
            restart_order: if plan.pair.family == Family::Hht {
                ""
            } else {
                " at order 1"
            },
            near_singular_tol: form.near_singular_tol(),
            ..Default::default()
        };
        let mut next = 0usize;
        let sensors =
            crate::sensors::Sensors::compile(&self.model).map_err(SolverError::Settings)?;
        let initial_q = self.sys.initial_state().0;
        // A SENSOR trip that continues: a STEPSIZE (sensor id, h) for the
        // first step of the next segment.
        let mut first_step: Option<(u32, f64)> = None;
        let mut event_log = crate::event_log::EventLog::default();
        let mut stall = crate::event_log::StallWatch::new(self.state.t, end);
        // A STEPSIZE under the fixed-step option was logged as ignored.
        let mut stepsize_ignored = false;
        // One integrator per segment; a segment ends at the last output time
        // or when the integration restarts (constraint rank change, or a
        // failure retried from consistent conditions at order 1).
        loop {
            // A discrete LSE's update due where this segment starts.
            if let Err(message) = self.apply_due_samples() {
                let t = self.state.t;
                failure = Some(SolverError::Integration { t, message });
                break;
            }
            let mut resample = false;
            let s = &self.state;
            let mut segment = form.segment(&self.sys, &self.data, s, plan.constraint_tolerance());
            let mut frames = segment.frame_map();
            let mut integ = match segment.integrator(&plan, s) {
                Ok(i) => i,
                Err(e) => {
                    failure = Some(SolverError::Integration {
                        t: e.t,
                        message: e.message,
                    });
                    break;
                }
            };
            integ.put_rti(rti.take());
            // The automatic switch to MODIFIED after a restart: only from
            // ORIGINAL (not ORIG_CONSTANT or MODIFIED), and only where the
            // two correctors differ (I3; SI2 has one variable set).
            if std::mem::take(&mut restarts.switch_corrector)
                && plan.corrector == CorrectorKind::Original
            {
                if let Some(classes) = form.modified_switch() {
                    integ.use_corrector_classes(classes, MODIFIED_STEPS_AFTER_RESTART);
                }
            }
            if let Some((id, h)) = first_step.take() {
                if let Some(step) = fixed_step {
                    if !std::mem::replace(&mut stepsize_ignored, true) {
                        let line = crate::sensors::stepsize_ignored(id, h, step);
                        self.log.push(line);
                    }
                } else if !integ.set_first_step(h) {
                    failure = Some(SolverError::Settings(crate::sensors::stepsize_refused(
                        id, h,
                    )));
                    break;
                }
            }
            let mut stop = None;
            // SENSORs: checked after every step (`sensors` module).
            let ctx = FrameContext {
                sys: &self.sys,
                model: &self.model,
                frame: &self.state,
                initial_q: &initial_q,
            };
            let mut watch = match SegmentWatch::start(&sensors, &mut self.sensor_state, &ctx) {
                Ok(w) => w,
                Err(message) => {
                    let t = self.state.t;
                    failure = Some(SolverError::Integration { t, message });
                    break;
                }
            };
            let mut trip_resume = None;
            let record_steps = self.output.wants_steps();
            // The integrator takes one step at a time (the same steps as
            // one advance to the output time): after each, the stop flag
            // (the CLI's signals) is seen, the events go to the bounded
            // log and the stall watch counts the step.
            let watch_stop = self.output.stop.is_some();
            while next < times.len() {
                // A discrete LSE's sample instant before the output time
                // ends the segment there (`discrete.rs`).
                let sample = crate::discrete::sample_before(&self.sys, integ.time(), times[next]);
                let t = sample.unwrap_or(times[next]);
                let land = !interpolate || sample.is_some();
                let t_before = integ.time();
                let advanced = match &watch {
                    Some(w) if !w.wants_step(&*integ, t) => Ok(()),
                    Some(_) => integ.step_toward(t, land),
                    None if integ.time() < t => integ.step_toward(t, land),
                    None => Ok(()),
                };
                if let Err(e) = advanced {
                    let y = integ.accepted();
                    // A restart continues from the accepted user states,
                    // which close y in every formulation that has them.
                    let nw = self.sys.nw();
                    if nw > 0 && y.len() >= nw {
                        self.data.states.w = y[y.len() - nw..].to_vec();
                    }
                    stop = Some((e, integ.time(), y[..n].to_vec(), y[n..2 * n].to_vec()));
                    break;
                }
                let step_events = integ.take_events();
                for e in &step_events {
                    stall.failure(e);
                    event_log.record(e, &mut self.log);
                }
                let tb = integ.time();
                if tb > t_before {
                    if let Some(message) = stall.step(tb, tb - t_before) {
                        failure = Some(SolverError::Integration { t: tb, message });
                        break;
                    }
                }
                // The accepted step to the output's DELAY histories
                // (`requests::Outputs::record_step`), on a kept frame.
                if record_steps && tb > t_before {
                    let (yi, ypi) = (&mut yi, &mut ypi);
                    crate::sensors::frame_at(
                        &self.sys,
                        &*integ,
                        &mut *frames,
                        tb,
                        yi,
                        ypi,
                        &mut step_frame,
                    );
                    self.output.step(&self.sys, &self.model, &step_frame);
                }
                if watch_stop && self.output.stop_requested() {
                    failure = Some(crate::output::interrupted_at(integ.time()));
                    break;
                }
                if watch.is_none() && integ.time() < t {
                    continue;
                }
                if let Some(w) = &mut watch {
                    let hooks = crate::sensors::Hooks {
                        sys: &self.sys,
                        data: &mut self.data,
                        model: &self.model,
                        output: &mut self.output,
                        log: &mut self.log,
                        halted: &mut self.halted,
                        initial_q: &initial_q,
                        state: &mut self.sensor_state,
                    };
                    let run = crate::sensors::Run {
                        integ: &*integ,
                        frames: &mut *frames,
                        kept: &mut new_frames,
                        times: &mut times,
                        next: &mut next,
                        end,
                        interpolate,
                    };
                    match w.after_step(&sensors, hooks, run, t) {
                        AfterStep::Output => {}
                        AfterStep::StepOn => continue,
                        AfterStep::Stop(err) => {
                            failure = failure.or(err);
                            break;
                        }
                        AfterStep::Resume(frame, step) => {
                            (trip_resume, first_step) = (Some(frame), step);
                            break;
                        }
                        AfterStep::NextStep(id, h) => {
                            if let Some(step) = fixed_step {
                                // Seeds: fixed steps ignore STEPSIZE.
                                if !std::mem::replace(&mut stepsize_ignored, true) {
                                    let line = crate::sensors::stepsize_ignored(id, h, step);
                                    self.log.push(line);
                                }
                            } else if !integ.set_next_step(h) {
                                let message = crate::sensors::stepsize_refused(id, h);
                                failure = Some(SolverError::Settings(message));
                                break;
                            }
                            continue;
                        }
                    }
                }
                if sample.is_some() {
                    let (y, yp) = integ.solution();
                    let mut frame = frames.frame(&self.sys, t, y, yp, integ.multipliers());
                    let project = !frames.keeps_velocities();
                    let (sys, data) = (&self.sys, &mut self.data);
                    consistent_output(sys, data, &mut frame, &mut kkt_v, &mut kkt_a, project);
                    self.state = frame;
                    resample = true;
                    break;
                }
                if yi.len() != integ.solution().0.len() {
                    yi.resize(integ.solution().0.len(), 0.0);
                    ypi.resize(integ.solution().1.len(), 0.0);
                }
                let interpolated = interpolate && integ.interpolate(t, &mut yi, &mut ypi);
                let mut frame = if interpolated {
                    // INTERPOLATE = ON: reconcile the interpolated positions
                    // to the constraints (velocities, accelerations and
                    // reactions follow below).
                    let mut frame = frames.frame(&self.sys, t, &yi, &ypi, integ.multipliers());
                    if plan.reconcile {
                        if let Ok(q) = assemble_positions(&self.sys, &mut self.data, t, &yi[..n]) {
                            frame.q = q;
                        }
                    }
                    frame
                } else {
                    let (y, yp) = integ.solution();
                    frames.frame(&self.sys, t, y, yp, integ.multipliers())
                };
                let project = !frames.keeps_velocities() || interpolated;
                let (sys, data) = (&self.sys, &mut self.data);
                if !consistent_output(sys, data, &mut frame, &mut kkt_v, &mut kkt_a, project) {
                    inconsistent_outputs += 1;
                }
                next += 1;
                // A sample at this output time: the update follows it.
                let resume = (next < times.len() && crate::discrete::is_sample(&self.sys, t))
                    .then(|| frame.clone());
                if !self
                    .output
                    .emit(&self.sys, &self.model, &self.log, frame, &mut new_frames)
                {
                    break;
                }
                if let Some(frame) = resume {
                    self.state = frame;
                    resample = true;
                    break;
                }
            }
            let stats = integ.statistics();
            let events = integ.take_events();
            rti = integ.take_rti();
            max_local = max_local.max(integ.max_local_error());
            drop(integ);
            let drift = segment.drift();
            drop(segment);
            for e in &events {
                event_log.record(e, &mut self.log);
            }
            match &mut total {
                None => total = Some(stats),
                Some(tot) => tot.accumulate(&stats),
            }
            if resample && failure.is_none() {
                continue;
            }
            if let Some(frame) = trip_resume {
                // A SENSOR trip that restarts: a new integrator from the
                // trip state, at order 1 (RESTART), with a new matrix
                // pattern (CODGEN).
                self.data.states.set(&frame.w, &frame.wp);
                self.state = frame;
                continue;
            }
            match self.after_segment(&mut restarts, stop, fixed_step.is_some(), drift) {
                Ok(true) => continue,
                Ok(false) => break,
                Err(err) => {
                    failure = Some(err);
                    break;
                }
            }
        }
        event_log.finish(&mut self.log);
        let stats = total.unwrap_or_default();
        if let Some(SolverError::Integration { t, message }) = &mut failure {
            if let Some(why) = form.failure_hint(&self.sys, &self.model, *t) {
                *message = format!("{message}; {why}");
            }
        }
        if inconsistent_outputs > 0 {
            self.log.push(format!(
                "warning: at {inconsistent_outputs} output times the velocities, accelerations and reaction forces could not be made consistent (singular constraint Jacobian); the integrator's values were written"
            ));
        }
        if let Some(h) = fixed_step {
            self.log.push(format!(
                "fixed-step option: largest local error measure {max_local:.3e}"
            ));
            self.push_rti_report(rti, settings, form.name(), h);
        }
        let wall = start.elapsed().as_secs_f64();
        self.finish_dynamic(stats, wall, new_frames, failure)
    }

    /// Log the statistics, keep the frames and the last state, and report
    /// the failure (if any) after the frames computed before it.
    pub(crate) fn finish_dynamic(
        &mut self,
        stats: Statistics,
        wall: f64,
        new_frames: Vec<Frame>,
        failure: Option<SolverError>,
    ) -> Result<Statistics, SolverError> {
        self.log.push(format!(
            "dynamic analysis statistics ({wall:.3} s wall clock):\n{stats}"
        ));
        self.stats.push(("dynamic".into(), stats.clone(), wall));
        if let Some(last) = new_frames.last() {
            self.state = last.clone();
            self.data.states.set(&last.w, &last.wp);
        }
        if self.output.retain {
            self.frames.extend(new_frames);
        } else if !new_frames.is_empty() {
            self.frames = new_frames;
        }
        // A stop from the output path ends the integration loop like the
        // last output time does; it is the failure to report.
        let failure = failure.or_else(|| self.output.take_stop());
        match failure {
            None => Ok(stats),
            Some(e) => {
                self.log.push(format!("ERROR: {e}"));
                Err(e)
            }
        }
    }

    /// A segment ended: `stop` is None at the last output time, else the
    /// integrator's stop with its last accepted state. Ok(true): restart the
    /// integrator (the rank changed; consistent conditions are in
    /// `self.state`); Ok(false): the analysis is done; Err: it failed
    /// (fixed-step runs never restart, seeds).
    ///
    /// A failure that is not a rank change restarts the integration once
    /// per time point, at most
    /// MAX_FAILURE_RESTARTS times per analysis (seeds: "Integration
    /// restarts"): consistent initial conditions at the last accepted state,
    /// order 1, and `guard.switch_corrector` asks the next integrator for
    /// the temporary switch to the MODIFIED corrector.
    pub(crate) fn after_segment(
        &mut self,
        guard: &mut RestartGuard,
        stop: Option<(IntegrationError, f64, Vec<f64>, Vec<f64>)>,
        fixed: bool,
        drift: Option<(usize, f64)>,
    ) -> Result<bool, SolverError> {
        let Some((mut e, t, q, u)) = stop else {
            return Ok(false);
        };
        let failure = e.kind == StopKind::Failure;
        // Name the element whose function went non-finite (issue 11).
        if let Some(cause) = failure
            .then(|| self.sys.diagnose_non_finite(&q, &u, e.t))
            .flatten()
        {
            e.message = format!("{cause} ({})", e.message);
        }
        if fixed && failure {
            // No restarts with the fixed-step option (seeds).
            return Err(SolverError::Integration {
                t: e.t,
                message: e.message,
            });
        }
        if self.restart_on_rank_change(guard, &e, t, &q, &u, drift)? {
            return Ok(true);
        }
        if failure && guard.failure_restarts < MAX_FAILURE_RESTARTS && guard.may_retry_failure(t) {
            guard.failure_restarts += 1;
            guard.last_t = Some(t);
            if self.solve_configuration(t, &q, &u).is_ok() {
                self.log.push(format!(
                    "t = {t:.6e}: integration restart from consistent initial conditions{} (after: {})",
                    guard.restart_order,
                    e.message
                ));
                guard.switch_corrector = true;
                return Ok(true);
            }
        }
        Err(SolverError::Integration {
            t: e.t,
            message: e.message,
        })
    }

    /// The Real Time Index report of a fixed-step run, logged and shown.
    pub(crate) fn push_rti_report(
        &mut self,
        meter: Option<RtiMeter>,
        settings: &IntegratorSettings,
        formulation: &str,
        step: f64,
    ) {
        if let Some(summary) = meter.and_then(|m| m.summary()) {
            let report = rti_report(
                &format!("Fixed Step {}/{formulation}", settings.kind.name()),
                &self.model.units.time,
                settings.hratio.unwrap_or(1),
                step,
                &summary,
            );
            self.log.push(report.clone());
            self.reports.push(report);
        }
    }

    /// The integration stopped at the accepted state (t, q, u): because a
    /// deactivated equation drifted (`drift`), or because it failed. Re-check
    /// the constraint rank there; if the redundant set changed, log it,
    /// compute consistent initial conditions at t and return Ok(true): the
    /// caller restarts its integrator (order 1). Ok(false): nothing changed,
    /// the stop stands.
    pub(crate) fn restart_on_rank_change(
        &mut self,
        guard: &mut RestartGuard,
        e: &IntegrationError,
        t: f64,
        q: &[f64],
        u: &[f64],
        drift: Option<(usize, f64)>,
    ) -> Result<bool, SolverError> {
        let structural = e.kind == StopKind::StructureChanged;
        if !structural && !guard.may_retry_failure(t) {
            return Ok(false);
        }
        if guard.count >= MAX_RANK_RESTARTS {
            return Err(SolverError::Integration {
                t,
                message: format!(
                    "the constraint rank changed {MAX_RANK_RESTARTS} times; the model keeps passing through singular configurations"
                ),
            });
        }
        // After a failure, rows about to become dependent (a singular
        // configuration ahead) are looked for with the looser threshold.
        let rel_tol = if structural {
            RANK_TOL
        } else {
            NEAR_SINGULAR_TOL.max(guard.near_singular_tol)
        };
        if !self.recheck_redundancy_with(t, q, rel_tol) {
            return match drift {
                Some((k, v)) if structural => Err(SolverError::Integration {
                    t,
                    message: format!(
                        "redundant constraint equation {} in {} is violated ({v:.3e}) although it is still dependent on the active equations: the model is inconsistently over-constrained",
                        self.sys.equations[k].name,
                        self.sys.describe(self.sys.equations[k].element)
                    ),
                }),
                _ => Ok(false),
            };
        }
        guard.count += 1;
        guard.last_t = Some(t);
        self.solve_configuration(t, q, u)
            .map_err(|err| SolverError::Integration {
                t,
                message: format!("no consistent restart after the constraint rank changed: {err}"),
            })?;
        self.log.push(format!(
            "integration restarted at t = {t:.6e} from consistent initial conditions{}",
            guard.restart_order
        ));
        Ok(true)
    }

    /// Redundancy detection at (t, q); deactivates and reactivates
    /// equations to match, logging each change. Returns whether anything
    /// changed.
    pub(crate) fn recheck_redundancy(&mut self, t: f64, q: &[f64]) -> bool {
        self.recheck_redundancy_with(t, q, RANK_TOL)
    }

    /// `recheck_redundancy` with the relative rank threshold `rel_tol`.
    pub(crate) fn recheck_redundancy_with(&mut self, t: f64, q: &[f64], rel_tol: f64) -> bool {
        let redundant = find_redundant_with(&self.sys, &self.model, &self.data.off, q, t, rel_tol);
        let singular = singular_only(&self.sys, &self.data, &self.model, q, t, &redundant);
        let mut changed = false;
        for k in 0..self.sys.neq() {
            let active = redundant.binary_search(&k).is_err() && !self.data.equation_is_off(k);
            self.data.singular[k] = singular.binary_search(&k).is_ok();
            if self.data.active[k] == active {
                continue;
            }
            changed = true;
            self.data.active[k] = active;
            let e = &self.sys.equations[k];
            let what = if active {
                "reactivating constraint equation"
            } else {
                "deactivating constraint equation"
            };
            let why = if active {
                "no longer redundant in the current configuration"
            } else if self.data.singular[k] {
                "dependent only near this singular configuration; reactivated as soon as it is independent again"
            } else {
                "redundant in the current configuration"
            };
            self.log.push(format!(
                "t = {t:.6e}: {what} {} in {} ({why})",
                e.name,
                self.sys.describe(e.element)
            ));
        }
        if changed {
            // The evaluation cache holds values of the rows active when it
            // was filled: a reactivated row at the same (q, t) must not read
            // a stale entry.
            self.data.invalidate_cache();
            self.log.push(format!(
                "degrees of freedom after the rank change: {}",
                self.sys.dof(&self.data)
            ));
        }
        changed
    }
}

/// Restarts after rank changes in one analysis are limited; a failure is
/// retried with a rank check once per time point.
#[derive(Default)]
pub(crate) struct RestartGuard {
    count: usize,
    last_t: Option<f64>,
    failure_restarts: usize,
    /// The next integrator switches to the MODIFIED corrector for a while.
    pub switch_corrector: bool,
    /// How the log describes the restart's order (" at order 1" for the
    /// variable-order BDF family, empty for the constant-order HHT).
    pub restart_order: &'static str,
    /// The formulation's `near_singular_tol` (at least NEAR_SINGULAR_TOL).
    pub near_singular_tol: f64,
}

const MAX_RANK_RESTARTS: usize = 100;
const MAX_FAILURE_RESTARTS: usize = 3;
/// Successful steps after a restart before the corrector returns to
/// ORIGINAL.
const MODIFIED_STEPS_AFTER_RESTART: usize = 10;

impl RestartGuard {
    fn may_retry_failure(&self, t: f64) -> bool {
        self.last_t != Some(t)
    }
}

/// Output values consistent with the integrated positions: the I3
/// formulation controls the error of positions only, so at an output time
/// the velocities are projected onto the velocity constraints
/// (min |u − u_I3| subject to Φ_q u = −Φ_t) when `project_velocities`
/// (SI2's velocities already satisfy them and are error-controlled, so they
/// are kept), and the accelerations and multipliers (reaction forces) are
/// solved from the index-1 equations
/// [M Φ_qᵀ; Φ_q 0][a; λ] = [Q − (velocity terms); γ]. The integrator's own
/// state is not changed. Returns false (frame untouched) if a matrix is
/// singular.
pub(crate) fn consistent_output(
    sys: &System,
    data: &mut MechData,
    fr: &mut Frame,
    kkt_v: &mut Kkt,
    kkt_a: &mut Kkt,
    project_velocities: bool,
) -> bool {
    let m = sys.neq();
    // Forces that read DIF/DIF1 see the frame's user states.
    data.states.set(&fr.w, &fr.wp);
    let u = if project_velocities {
        let mut rhs = vec![0.0; m];
        sys.velocity_rhs(data, &fr.q, fr.t, &mut rhs);
        let Ok((u, _)) = kkt_v.project(sys, data, &fr.q, fr.t, &fr.u, &rhs) else {
            return false;
        };
        u
    } else {
        fr.u.clone()
    };
    let mut gamma = vec![0.0; m];
    sys.acceleration_rhs(data, &fr.q, &u, fr.t, &mut gamma);
    // Solved quantities (a force reading JOINT(), ACCX, …: `reaction_fn.rs`)
    // are re-solved with (a, λ), z = g(q, u, a(z), λ(z), w) by Newton from
    // the integrator's z, so that a force reading a reaction equals its
    // expression on the output's own λ; the user-state rates and outputs
    // follow the new z.
    let Ok(Ok((a, lambda))) =
        crate::reaction_fn::accelerations(kkt_a, sys, data, &fr.q, &u, fr.t, &gamma)
    else {
        return false;
    };
    if sys.n_solved() > 0 {
        fr.w.copy_from_slice(&data.states.w);
        fr.wp.copy_from_slice(&data.states.wp);
    }
    fr.u = u;
    fr.a = a;
    fr.lambda = lambda;
    true
}
