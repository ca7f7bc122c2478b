//! Quasi-statics (seed comments 7–9): static solutions along time-varying
//! motions and forces at the output times.
//!
//! - FIM_S: a sequence of static solutions, each Newton iteration starting
//!   from the previous output's solution.
//! - FIM_D: the force balance integrated as a DAE with inertia removed, I3
//!   form y = (q, u, λ): u − q' = 0, R(q, 0, 0, λ, t) = 0, Φ(q, t) = 0, by
//!   GSTIFF. The BDF predictor extrapolates the solution path, so each step
//!   needs few corrector iterations. The local error tolerance is INTEGRATOR
//!   ERROR (the role of MotionSolve's `dae_constr_tol`); FIM_S solves the
//!   first and the last output with the Param_Static tolerances and takes
//!   over an output when the integrator fails, after which the integration
//!   restarts.

use super::{
    static_params, StaticAnalysis, StaticMethod, StaticParams, StaticReport, StaticSettings,
};
use crate::analysis::{Frame, Simulation, SolverError};
use crate::formulation::{
    check_finite, constraint_rows, qul_equation_name, qul_variable_name, AsmSink, CONSTRAINT_TOL,
};
use crate::settings::bdf_params;
use mbsolve_integrate::{DaeIntegrator, DaeProblem, Gstiff, ProblemError, SlotAssembler, VarClass};
use mbsolve_mech::states::StateValues;
use mbsolve_mech::{MechData, System};
use mbsolve_model::IntegratorSettings;
use std::time::Instant;

/// The force balance as a DAE G(t, y, y') = 0 with y = (q, u, λ).
pub(crate) struct QuasiStaticProblem<'a> {
    sys: &'a System,
    data: MechData,
    classes: Vec<VarClass>,
    phi: Vec<f64>,
    zeros: Vec<f64>,
    max_imbalance: f64,
    sqrt_stability: f64,
}

impl<'a> QuasiStaticProblem<'a> {
    pub fn new(sys: &'a System, data: &MechData, p: &StaticParams) -> Self {
        let (n, m) = (sys.nq(), sys.neq());
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Velocity, n));
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, m));
        QuasiStaticProblem {
            sys,
            data: data.clone(),
            classes,
            phi: vec![0.0; m],
            zeros: vec![0.0; n],
            max_imbalance: p.max_imbalance,
            sqrt_stability: p.stability.sqrt(),
        }
    }
}

impl DaeProblem for QuasiStaticProblem<'_> {
    fn size(&self) -> usize {
        2 * self.sys.nq() + self.sys.neq()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    /// The corrector must also bring the force imbalance below
    /// `max_imbalance` and the constraints to the I3 tolerance.
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let n = self.sys.nq();
        res[n..2 * n].iter().all(|v| v.abs() <= self.max_imbalance)
            && res[2 * n..].iter().all(|v| v.abs() <= CONSTRAINT_TOL)
    }
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        let n = self.sys.nq();
        let (q, rest) = y.split_at(n);
        let (u, lam) = rest.split_at(n);
        for i in 0..n {
            out[i] = u[i] - yp[i];
        }
        let z = &self.zeros;
        let data = &mut self.data;
        self.sys
            .body_residual(data, q, z, z, lam, t, &mut out[n..2 * n]);
        constraint_rows(
            self.sys,
            data,
            q,
            lam,
            t,
            1.0,
            &mut self.phi,
            &mut out[2 * n..],
        );
        check_finite(out, |i| self.describe_equation(i))
    }
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        _yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        let n = self.sys.nq();
        let q = &y[..n];
        let lam = &y[2 * n..];
        for i in 0..n {
            a.add(i, i, -c);
            a.add(i, n + i, 1.0);
        }
        let mut s = AsmSink(a);
        let z = &self.zeros;
        // Inertia removed: √stability·M only, on the q columns (as FIM_S).
        self.sys.body_jacobian(
            &mut self.data,
            q,
            z,
            z,
            Some(lam),
            t,
            &mut s,
            n,
            Some(0),
            0,
            0.0,
            self.sqrt_stability,
        );
        self.sys.constraint_jacobian(
            &mut self.data,
            q,
            t,
            &mut s,
            2 * n,
            0,
            Some((n, 2 * n)),
            Some(2 * n),
        );
        Ok(())
    }
    fn describe_variable(&self, i: usize) -> String {
        qul_variable_name(self.sys, i)
    }
    fn describe_equation(&self, i: usize) -> String {
        qul_equation_name(self.sys, i)
    }
}

fn static_frame(t: f64, q: &[f64], lam: &[f64], states: &StateValues) -> Frame {
    let n = q.len();
    Frame {
        t,
        q: q.to_vec(),
        u: vec![0.0; n],
        a: vec![0.0; n],
        lambda: lam.to_vec(),
        w: states.w.clone(),
        wp: states.wp.clone(),
        non_dynamic: false,
        mode: 0.0,
    }
}

impl Simulation {
    /// SIMULATE/STATIC with END and STEPS/DTOUT: static solutions at the
    /// output times for time-varying motions and forces, by FIM_S or FIM_D
    /// (Param_Static `method`; MKEAM is rejected). `integrator` controls the
    /// FIM_D integration. Frames report zero velocities and accelerations;
    /// the final state is made consistent for a following dynamic analysis.
    pub fn quasi_static(
        &mut self,
        end: f64,
        steps: Option<u64>,
        dtout: Option<f64>,
        settings: &StaticSettings,
        integrator: &IntegratorSettings,
    ) -> Result<StaticReport, SolverError> {
        let p =
            static_params(settings, StaticAnalysis::QuasiStatic).map_err(SolverError::Settings)?;
        self.refuse_velocity_rows("a quasi-static analysis", super::STATICS_REFUSAL)?;
        self.set_mode(crate::analysis_mode::AnalysisMode::QuasiStatics);
        if !self.ic_done {
            self.initial_conditions()?;
        }
        let times = self.output_times(end, steps, dtout)?;
        let params = if p.method == StaticMethod::FimD {
            let mut b =
                bdf_params(integrator, times[0] - self.state.t).map_err(SolverError::Settings)?;
            // q is fixed by the force balance at each step (it is algebraic:
            // no error accumulates), and u = q' only follows the path, so no
            // local-error control: steps are limited by HMAX and by the
            // corrector, which must converge on the displacements (weights
            // ERROR·max(|q|, 1)) with the force imbalance below
            // max_imbalance and the constraints below the I3 tolerance (the
            // role of dae_constr_tol).
            b.error_classes = vec![];
            b.corrector_classes = vec![VarClass::Displacement];
            // The integration starts on the path's tangent: no start-up
            // steps are needed unless HINIT asks for them.
            if integrator.hinit.is_none() {
                b.hinit = b.hmax;
            }
            Some(b)
        } else {
            None
        };
        self.log_params(&p, "quasi-static analysis");
        let t0 = self.state.t;
        let (q0, l0) = (self.state.q.clone(), self.state.lambda.clone());
        let first = self.fim_s(&p, t0, &q0, &l0)?;
        let mut iterations = first.iterations;
        let mut jacobians = first.iterations;
        let mut imbalance = first.imbalance;
        let frames_before = self.output.written;
        if self.output.written == 0 {
            self.emit_frame_unreported(static_frame(t0, &first.q, &first.lam, &self.data.states))?;
        }
        let q_end = match params {
            None => {
                let (mut q, mut lam) = (first.q, first.lam);
                for &t in &times {
                    let eq = self.fim_s(&p, t, &q, &lam)?;
                    iterations += eq.iterations;
                    jacobians += eq.iterations;
                    imbalance = imbalance.max(eq.imbalance);
                    self.emit_frame(static_frame(t, &eq.q, &eq.lam, &self.data.states))?;
                    (q, lam) = (eq.q, eq.lam);
                }
                q
            }
            Some(b) => {
                // FIM_D holds back the last output: seed comment 8 polishes
                // it with FIM_S before it is written.
                let (its, jacs, imb, last) = self.fim_d(&p, b, &times, t0, first.q, first.lam)?;
                iterations += its;
                jacobians += jacs;
                imbalance = imbalance.max(imb);
                let eq = self.fim_s(&p, last.t, &last.q, &last.lambda)?;
                iterations += eq.iterations;
                jacobians += eq.iterations;
                imbalance = imbalance.max(eq.imbalance);
                self.emit_frame(static_frame(last.t, &eq.q, &eq.lam, &self.data.states))?;
                eq.q
            }
        };
        let t_end = *times.last().expect("at least one output time");
        let zeros = vec![0.0; q_end.len()];
        self.solve_configuration(t_end, &q_end, &zeros)?;
        self.log.push(format!(
            "quasi-static analysis ({}) to t = {t_end}: {} outputs, {iterations} Newton iterations and {jacobians} Jacobian evaluations in total, largest imbalance {imbalance:.3e}",
            p.method.name(),
            times.len()
        ));
        Ok(StaticReport {
            method: p.method,
            iterations,
            jacobians,
            imbalance,
            frames: self.output.written - frames_before,
        })
    }

    /// FIM_D over the output times from the static solution (q, λ) at t0;
    /// returns the corrector and FIM_S iterations, the Jacobian evaluations,
    /// the largest force imbalance at the outputs and the last output's
    /// frame, which is not emitted (the caller polishes it first).
    fn fim_d(
        &mut self,
        p: &StaticParams,
        params: mbsolve_integrate::BdfParams,
        times: &[f64],
        t0: f64,
        q: Vec<f64>,
        lam: Vec<f64>,
    ) -> Result<(usize, usize, f64, Frame), SolverError> {
        let n = q.len();
        let mut held = None;
        let mut imbalance = 0.0f64;
        let mut r = vec![0.0; n];
        self.log.push(format!(
            "FIM_D: GSTIFF on the force balance with inertia removed (I3), ERROR = {:e}, HMAX = {:e}, KMAX = {}",
            params.error, params.hmax, params.kmax
        ));
        // Start on the path's tangent so the first steps need no start-up.
        let mut fb = super::ForceBalance::new(&self.sys, &self.data);
        let mut u = match fb.path_derivative(&self.sys, &q, &lam, t0, p.stability) {
            Ok(d) => d[..n].to_vec(),
            Err(e) => {
                self.log.push(format!(
                    "FIM_D: no path tangent at t = {t0} ({e}); starting from rest"
                ));
                vec![0.0; n]
            }
        };
        let (mut t, mut q, mut lam) = (t0, q, lam);
        let mut idx = 0;
        let mut iterations = 0usize;
        let mut jacobians = 0usize;
        let r0 = vec![0.0; n];
        while idx < times.len() {
            let start = Instant::now();
            let y0: Vec<f64> = q.iter().chain(&u).chain(&lam).copied().collect();
            let yp0: Vec<f64> = u
                .iter()
                .copied()
                .chain(std::iter::repeat_n(0.0, n + lam.len()))
                .collect();
            let mut problem = QuasiStaticProblem::new(&self.sys, &self.data, p);
            let mut integ = Gstiff::new(&mut problem, params.clone(), t, &y0, &yp0);
            let mut failure = None;
            let mut stopped = None;
            while idx < times.len() {
                // With a stop flag: one step at a time, the flag seen after
                // each (the same steps as one advance).
                let advanced = if self.output.stop.is_some() {
                    let tk = times[idx];
                    let mut r = Ok(());
                    while r.is_ok() && integ.time() < tk && !self.output.stop_requested() {
                        r = integ.step_toward(tk, true);
                    }
                    r
                } else {
                    integ.advance_to(times[idx])
                };
                if advanced.is_ok() && self.output.stop_requested() {
                    stopped = Some(crate::output::interrupted_at(integ.time()));
                    break;
                }
                match advanced {
                    Ok(()) => {
                        let y = integ.y();
                        t = times[idx];
                        q.copy_from_slice(&y[..n]);
                        u.copy_from_slice(&y[n..2 * n]);
                        lam.copy_from_slice(&y[2 * n..]);
                        let z = &r0;
                        self.sys
                            .body_residual(&mut self.data, &q, z, z, &lam, t, &mut r);
                        imbalance = r.iter().fold(imbalance, |a, v| a.max(v.abs()));
                        let frame = static_frame(t, &q, &lam, &self.data.states);
                        idx += 1;
                        if idx == times.len() {
                            held = Some(frame);
                        } else if !self.output.emit(
                            &self.sys,
                            &self.model,
                            &self.log,
                            frame,
                            &mut self.frames,
                        ) {
                            stopped = self.output.take_stop();
                            break;
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
            iterations += stats.corrector_iterations as usize;
            jacobians += stats.jacobian_evaluations as usize;
            self.log.extend(events.iter().map(|e| e.to_string()));
            let wall = start.elapsed().as_secs_f64();
            self.log.push(format!(
                "FIM_D integration statistics ({wall:.3} s wall clock):\n{stats}"
            ));
            self.stats
                .push(("quasi-static (FIM_D)".into(), stats, wall));
            if let Some(e) = stopped {
                return Err(e);
            }
            if let Some(e) = failure {
                let tk = times[idx];
                self.log.push(format!(
                    "FIM_D: integrator difficulty ({e}); FIM_S solves t = {tk} and the integration restarts there"
                ));
                let eq = self.fim_s(p, tk, &q, &lam)?;
                iterations += eq.iterations;
                jacobians += eq.iterations;
                imbalance = imbalance.max(eq.imbalance);
                let frame = static_frame(tk, &eq.q, &eq.lam, &self.data.states);
                if idx + 1 == times.len() {
                    held = Some(frame);
                } else {
                    self.emit_frame(frame)?;
                }
                (t, q, lam) = (tk, eq.q, eq.lam);
                match fb.path_derivative(&self.sys, &q, &lam, t, p.stability) {
                    Ok(d) => u.copy_from_slice(&d[..n]),
                    Err(_) => u.iter_mut().for_each(|v| *v = 0.0),
                }
                idx += 1;
            }
        }
        let last =
            held.ok_or_else(|| SolverError::Statics("FIM_D: no output was computed".into()))?;
        Ok((iterations, jacobians, imbalance, last))
    }
}
