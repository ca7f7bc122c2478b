//! Analyses: initial conditions (assembly), kinematic analysis of zero-DOF
//! systems, and dynamic analysis with GSTIFF/I3. A failed run keeps the
//! frames it computed.

use crate::formulation::{equation_name, I3Problem};
use crate::linear::{Block, Kkt};
use crate::redundancy::find_redundant;
use crate::settings::bdf_params;
use mbsolve_integrate::{Gstiff, Statistics};
use mbsolve_mech::System;
use mbsolve_model::{IntegratorSettings, Model, ModelError};
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
        }
    }
}
impl std::error::Error for SolverError {}

/// A model being simulated: the system, its current state, the frames
/// written so far and the message log.
pub struct Simulation {
    pub sys: System,
    pub state: Frame,
    pub frames: Vec<Frame>,
    pub log: Vec<String>,
    pub stats: Vec<(String, Statistics, f64)>,
    /// Called with the time of each output frame as the kinematic,
    /// dynamic and quasi-static analyses write it (e.g. a progress bar).
    pub progress: Option<Box<dyn FnMut(f64) + Send>>,
    pub(crate) ic_done: bool,
}

const POS_TOL: f64 = 1e-10;

impl Simulation {
    pub fn new(model: &Model) -> Result<Self, SolverError> {
        let sys = System::new(model).map_err(SolverError::Model)?;
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
            sys.dof()
        ));
        Ok(Simulation {
            sys,
            state: Frame {
                t: 0.0,
                q,
                u,
                a: vec![0.0; n],
                lambda: vec![0.0; m],
            },
            frames: Vec::new(),
            log,
            stats: Vec::new(),
            progress: None,
            ic_done: false,
        })
    }

    /// Assemble positions (moving the given ones as little as possible),
    /// velocities, then accelerations and multipliers.
    pub fn initial_conditions(&mut self) -> Result<(), SolverError> {
        let t = self.state.t;
        let redundant = find_redundant(&self.sys, &self.state.q, t);
        for &k in &redundant {
            self.sys.active[k] = false;
            let e = &self.sys.equations[k];
            self.log.push(format!(
                "deactivating constraint equation {} in {} (redundant)",
                e.name,
                self.sys.model.describe(e.element)
            ));
        }
        if !redundant.is_empty() {
            self.log.push(format!(
                "degrees of freedom after redundancy removal: {}",
                self.sys.dof()
            ));
        }
        let q0 = self.state.q.clone();
        let u0 = self.state.u.clone();
        self.solve_configuration(t, &q0, &u0)?;
        self.ic_done = true;
        self.log
            .push(format!("initial conditions satisfied at t = {t}"));
        Ok(())
    }

    /// Positions near `q0`, velocities near `u0`, then accelerations and
    /// multipliers, all at time t; checks deactivated equations hold.
    pub(crate) fn solve_configuration(
        &mut self,
        t: f64,
        q0: &[f64],
        u0: &[f64],
    ) -> Result<(), SolverError> {
        let sys = &self.sys;
        let (n, m) = (sys.nq(), sys.neq());
        let mut kkt = Kkt::new(sys);
        let mut q = q0.to_vec();
        let mut phi = vec![0.0; m];
        let mut converged = false;
        for _ in 0..50 {
            sys.constraints(&q, t, &mut phi);
            let r1: Vec<f64> = (0..n).map(|i| -(q[i] - q0[i])).collect();
            let r2: Vec<f64> = phi.iter().map(|v| -v).collect();
            let (dq, _) = kkt
                .solve(sys, &q, t, Block::Identity, &r1, &r2)
                .map_err(|row| self.singular(row, "position"))?;
            let step = dq.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            for i in 0..n {
                q[i] += dq[i];
            }
            let pmax = phi.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if pmax < POS_TOL && step < 1e-8 {
                converged = true;
                break;
            }
        }
        sys.constraints(&q, t, &mut phi);
        if !converged {
            let k = (0..m)
                .max_by(|a, b| phi[*a].abs().total_cmp(&phi[*b].abs()))
                .unwrap_or(0);
            return Err(SolverError::Assembly(format!(
                "positions could not be assembled at t = {t}: largest constraint violation {:.3e} in {}",
                phi[k].abs(),
                equation_name(sys, k)
            )));
        }
        // Deactivated equations must hold in the assembled configuration.
        for k in 0..m {
            if !sys.active[k] {
                let v = sys.eval_equation(k, &q, t, false).s.val;
                if v.abs() > 1e-6 {
                    return Err(SolverError::Assembly(format!(
                        "redundant constraint equation {} in {} is not satisfied by the assembled configuration (residual {:.3e}): the model is inconsistently over-constrained",
                        sys.equations[k].name,
                        sys.model.describe(sys.equations[k].element),
                        v
                    )));
                }
            }
        }
        // Velocities: min |u − u0| subject to Φ_q u = −Φ_t.
        let mut rhs = vec![0.0; m];
        sys.velocity_rhs(&q, t, &mut rhs);
        let (u, _) = kkt
            .solve(sys, &q, t, Block::Identity, u0, &rhs)
            .map_err(|row| self.singular(row, "velocity"))?;
        // Accelerations and multipliers: [M Φ_qᵀ; Φ_q 0][a; λ] = [−R(q,u,0,0); γ].
        let mut r0 = vec![0.0; n];
        sys.body_residual(&q, &u, &vec![0.0; n], &vec![0.0; m], t, &mut r0);
        let r1: Vec<f64> = r0.iter().map(|v| -v).collect();
        let mut gamma = vec![0.0; m];
        sys.acceleration_rhs(&q, &u, t, &mut gamma);
        let (a, lambda) = kkt
            .solve(sys, &q, t, Block::Mass { u: &u }, &r1, &gamma)
            .map_err(|row| self.singular(row, "acceleration"))?;
        self.state = Frame { t, q, u, a, lambda };
        Ok(())
    }

    fn singular(&self, row: usize, phase: &str) -> SolverError {
        let n = self.sys.nq();
        let what = if row < n {
            crate::formulation::coordinate_name(&self.sys, row)
        } else {
            equation_name(&self.sys, row - n)
        };
        SolverError::Assembly(format!(
            "singular {phase} matrix during assembly (first failing unknown: {what}); check for missing or conflicting constraints"
        ))
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
        let n = match (steps, dtout) {
            (Some(s), _) if s > 0 => s,
            (None, Some(d)) if d > 0.0 => ((end - t0) / d - 1e-9).ceil().max(1.0) as u64,
            _ => {
                return Err(SolverError::Settings(
                    "SIMULATE: give STEPS > 0 or DTOUT > 0".into(),
                ))
            }
        };
        let dt = match (steps, dtout) {
            (Some(_), _) => (end - t0) / n as f64,
            (None, Some(d)) => d,
            _ => unreachable!(),
        };
        Ok((1..=n).map(|k| (t0 + k as f64 * dt).min(end)).collect())
    }

    fn ensure_ic(&mut self) -> Result<(), SolverError> {
        if !self.ic_done {
            self.initial_conditions()?;
        }
        if self.frames.is_empty() {
            self.frames.push(self.state.clone());
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
        self.ensure_ic()?;
        if self.sys.dof() != 0 {
            return Err(SolverError::Settings(format!(
                "kinematic analysis needs a zero-DOF model; this one has {} degrees of freedom",
                self.sys.dof()
            )));
        }
        let times = self.output_times(end, steps, dtout)?;
        let start = Instant::now();
        for t in times {
            let s = &self.state;
            let dt = t - s.t;
            let q0: Vec<f64> = (0..s.q.len())
                .map(|i| s.q[i] + dt * s.u[i] + 0.5 * dt * dt * s.a[i])
                .collect();
            let u0: Vec<f64> = (0..s.u.len()).map(|i| s.u[i] + dt * s.a[i]).collect();
            self.solve_configuration(t, &q0, &u0)?;
            self.frames.push(self.state.clone());
            if let Some(report) = self.progress.as_mut() {
                report(t);
            }
        }
        self.log.push(format!(
            "kinematic analysis to t = {end}: {:.3} s wall clock",
            start.elapsed().as_secs_f64()
        ));
        Ok(())
    }

    /// Dynamic analysis with GSTIFF, I3 (HHT and NEWMARK: `hht_run`).
    pub fn dynamic(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
        settings: &IntegratorSettings,
    ) -> Result<Statistics, SolverError> {
        self.ensure_ic()?;
        let times = self.output_times(end, steps, dtout)?;
        if matches!(
            settings.kind,
            mbsolve_model::IntegratorKind::Hht | mbsolve_model::IntegratorKind::Newmark
        ) {
            return crate::hht_run::dynamic(self, &times, settings);
        }
        let dt = times[0] - self.state.t;
        let params = bdf_params(settings, dt).map_err(SolverError::Settings)?;
        self.log.push(format!(
            "dynamic analysis: GSTIFF, I3, ERROR = {:e}, HMAX = {:e}, HMIN = {:e}, HINIT = {:e}, KMAX = {}, MAXIT = {}, PATTERN = {}",
            params.error,
            params.hmax,
            params.hmin,
            params.hinit,
            params.kmax,
            params.maxit,
            params.pattern.iter().map(|p| if *p { "T" } else { "F" }).collect::<Vec<_>>().join(":")
        ));
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let s = &self.state;
        let y0: Vec<f64> = s.q.iter().chain(&s.u).chain(&s.lambda).copied().collect();
        let yp0: Vec<f64> =
            s.u.iter()
                .chain(&s.a)
                .copied()
                .chain(std::iter::repeat_n(0.0, m))
                .collect();
        let start = Instant::now();
        let mut problem = I3Problem::new(&self.sys);
        let mut integ = Gstiff::new(&mut problem, params, s.t, &y0, &yp0);
        let mut new_frames = Vec::new();
        let mut failure = None;
        let (mut kkt_v, mut kkt_a) = (Kkt::new(&self.sys), Kkt::new(&self.sys));
        let mut inconsistent_outputs = 0usize;
        for &t in &times {
            match integ.advance_to(t) {
                Ok(()) => {
                    let (y, yp) = (integ.y(), integ.yp());
                    let mut frame = Frame {
                        t,
                        q: y[..n].to_vec(),
                        u: y[n..2 * n].to_vec(),
                        a: yp[n..2 * n].to_vec(),
                        lambda: y[2 * n..].to_vec(),
                    };
                    if !consistent_output(&self.sys, &mut frame, &mut kkt_v, &mut kkt_a) {
                        inconsistent_outputs += 1;
                    }
                    new_frames.push(frame);
                    if let Some(report) = self.progress.as_mut() {
                        report(t);
                    }
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        integ.sync_stats();
        let stats = integ.stats.clone();
        let events = std::mem::take(&mut integ.events);
        drop(integ);
        for e in &events {
            self.log.push(e.to_string());
        }
        if inconsistent_outputs > 0 {
            self.log.push(format!(
                "warning: at {inconsistent_outputs} output times the velocities, accelerations and reaction forces could not be made consistent (singular constraint Jacobian); the integrator's values were written"
            ));
        }
        let wall = start.elapsed().as_secs_f64();
        self.log.push(format!(
            "dynamic analysis statistics ({wall:.3} s wall clock):\n{stats}"
        ));
        self.stats.push(("dynamic".into(), stats.clone(), wall));
        if let Some(last) = new_frames.last() {
            self.state = last.clone();
        }
        self.frames.extend(new_frames);
        match failure {
            None => Ok(stats),
            Some(e) => {
                self.log.push(format!("ERROR: {e}"));
                Err(SolverError::Integration {
                    t: e.t,
                    message: e.message,
                })
            }
        }
    }
}

/// Output values consistent with the integrated positions: the I3
/// formulation controls the error of positions only, so at an output time
/// the velocities are projected onto the velocity constraints
/// (min |u − u_I3| subject to Φ_q u = −Φ_t) and the accelerations and
/// multipliers (reaction forces) are solved from the index-1 equations
/// [M Φ_qᵀ; Φ_q 0][a; λ] = [Q − (velocity terms); γ]. The integrator's own
/// state is not changed. Returns false (frame untouched) if a matrix is
/// singular.
fn consistent_output(sys: &System, fr: &mut Frame, kkt_v: &mut Kkt, kkt_a: &mut Kkt) -> bool {
    let (n, m) = (sys.nq(), sys.neq());
    let mut rhs = vec![0.0; m];
    sys.velocity_rhs(&fr.q, fr.t, &mut rhs);
    let Ok((u, _)) = kkt_v.solve(sys, &fr.q, fr.t, Block::Identity, &fr.u, &rhs) else {
        return false;
    };
    let mut r0 = vec![0.0; n];
    sys.body_residual(&fr.q, &u, &vec![0.0; n], &vec![0.0; m], fr.t, &mut r0);
    for v in r0.iter_mut() {
        *v = -*v;
    }
    let mut gamma = vec![0.0; m];
    sys.acceleration_rhs(&fr.q, &u, fr.t, &mut gamma);
    let Ok((a, lambda)) = kkt_a.solve(sys, &fr.q, fr.t, Block::Mass { u: &u }, &r0, &gamma) else {
        return false;
    };
    fr.u = u;
    fr.a = a;
    fr.lambda = lambda;
    true
}
