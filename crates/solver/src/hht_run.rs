//! Dynamic analysis with HHT or NEWMARK on the I3 equations: the mechanics
//! seen as a second-order index-3 system (body equations R = M a + F with
//! F = velocity terms − Q + Φ_qᵀλ, position constraints Φ; deactivated
//! redundant rows pin λ_k = 0).

use crate::analysis::{Frame, RestartGuard, Simulation, SolverError};
use crate::formulation::{
    check_finite, constraint_rows, constraint_tolerance, coordinate_name, equation_name, AsmSink,
    RedundancyWatch, CONSTRAINT_TOL,
};
use crate::hht_settings::{describe, hht_params};
use crate::rti_report::time_unit;
use mbsolve_integrate::{
    Hht, ProblemError, RtiMeter, SecondOrderProblem, SlotAssembler, Statistics,
};
use mbsolve_mech::{Sink, System};
use mbsolve_model::IntegratorSettings;
use std::time::Instant;

/// A sink that multiplies every value (rows of the body equations get the
/// βh² factor of ∂R/∂q; see `jacobian`).
struct ScaledSink<'a> {
    inner: AsmSink<'a>,
    scale: f64,
}
impl Sink for ScaledSink<'_> {
    #[inline]
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.inner.add(r, c, self.scale * v);
    }
}

pub struct I3SecondOrder<'a> {
    pub sys: &'a System,
    phi: Vec<f64>,
    /// See `I3Problem::watch`.
    pub watch: RedundancyWatch,
    pub constraint_tol: f64,
}

impl<'a> I3SecondOrder<'a> {
    pub fn new(sys: &'a System) -> Self {
        I3SecondOrder {
            sys,
            phi: vec![0.0; sys.neq()],
            watch: RedundancyWatch::default(),
            constraint_tol: CONSTRAINT_TOL,
        }
    }
}

impl SecondOrderProblem for I3SecondOrder<'_> {
    fn nq(&self) -> usize {
        self.sys.nq()
    }
    fn nm(&self) -> usize {
        self.sys.neq()
    }
    fn body_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        self.sys.body_residual(q, u, a, lam, t, out);
        check_finite(out, |i| {
            format!("{} force balance", coordinate_name(self.sys, i))
        })
    }
    fn constraint_residual(
        &mut self,
        t: f64,
        q: &[f64],
        lam: &[f64],
        scale: f64,
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        constraint_rows(self.sys, q, lam, t, scale, &mut self.phi, out);
        check_finite(out, |k| equation_name(self.sys, k))
    }
    fn jacobian(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        cq: f64,
        cu: f64,
        ca: f64,
        asm: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        let n = self.sys.nq();
        // body_jacobian emits ∂R/∂q + c'u ∂R/∂u + c'a ∂R/∂a; with c' = c/cq
        // and every value multiplied by cq the matrix receives
        // βh² ∂R/∂q + γh ∂R/∂u + M/(1+α), all in one pass over the forces.
        let mut s = ScaledSink {
            inner: AsmSink(asm),
            scale: cq,
        };
        self.sys
            .body_jacobian(q, u, a, lam, t, &mut s, 0, Some(0), 0, cu / cq, ca / cq);
        let mut s = AsmSink(asm);
        self.sys
            .constraint_jacobian(q, t, &mut s, n, 0, Some((0, n)), Some(n));
        Ok(())
    }
    fn constraint_tolerance(&self) -> f64 {
        self.constraint_tol
    }
    fn structure_holds(&mut self, t: f64, q: &[f64]) -> bool {
        self.watch.holds(self.sys, q, t)
    }
    fn describe_coordinate(&self, i: usize) -> String {
        coordinate_name(self.sys, i)
    }
    fn describe_equation(&self, i: usize) -> String {
        let n = self.sys.nq();
        if i < n {
            format!("{} force balance", coordinate_name(self.sys, i))
        } else {
            equation_name(self.sys, i - n)
        }
    }
}

/// Integrate from the current (consistent) state through `times` with HHT
/// or NEWMARK; a failure keeps the frames computed so far.
pub fn dynamic(
    sim: &mut Simulation,
    times: &[f64],
    settings: &IntegratorSettings,
) -> Result<Statistics, SolverError> {
    let dt = times[0] - sim.state.t;
    let params = hht_params(settings, dt).map_err(SolverError::Settings)?;
    sim.log.push(describe(&params, settings.kind));
    if settings.kmax.is_some() {
        sim.log.push(format!(
            "KMAX ignored: {} is a constant-order integrator",
            settings.kind.name()
        ));
    }
    let start = Instant::now();
    let mut new_frames = Vec::new();
    let mut failure = None;
    let mut total: Option<Statistics> = None;
    let mut restarts = RestartGuard::default();
    let mut next = 0usize;
    let mut rti = params.fixed.as_ref().map(|_| {
        let (_, _, to_s) = time_unit(&sim.sys.model.units.time);
        RtiMeter::new(params.hinit * to_s)
    });
    // Segments between rank changes, as for GSTIFF (analysis.rs).
    loop {
        let mut problem = I3SecondOrder::new(&sim.sys);
        let s = &sim.state;
        problem.watch = RedundancyWatch::new(&sim.sys, &s.q, s.t);
        problem.constraint_tol = constraint_tolerance(params.error);
        let mut integ = Hht::new(
            &mut problem,
            params.clone(),
            s.t,
            &s.q,
            &s.u,
            &s.a,
            &s.lambda,
        )
        .map_err(|e| SolverError::Integration {
            t: e.t,
            message: e.message,
        })?;
        integ.rti = rti.take();
        let mut stop = None;
        while next < times.len() {
            let t = times[next];
            match integ.advance_to(t) {
                Ok(()) => {
                    let frame = Frame {
                        t,
                        q: integ.q().to_vec(),
                        u: integ.u().to_vec(),
                        a: integ.a().to_vec(),
                        lambda: integ.lambda().to_vec(),
                    };
                    next += 1;
                    if !sim.output.emit(&sim.sys, &sim.log, frame, &mut new_frames) {
                        break;
                    }
                }
                Err(e) => {
                    stop = Some((e, integ.t, integ.q().to_vec(), integ.u().to_vec()));
                    break;
                }
            }
        }
        integ.sync_stats();
        let stats = integ.stats.clone();
        let fixed = integ.params().fixed.is_some();
        let max_local = integ.max_local_error;
        rti = integ.rti.take();
        let events = std::mem::take(&mut integ.events);
        drop(integ);
        let drift = problem.watch.drift;
        for e in &events {
            sim.log.push(e.to_string());
        }
        if fixed {
            sim.log.push(format!(
                "fixed-step option: largest local error measure {max_local:.3e}"
            ));
        }
        match &mut total {
            None => total = Some(stats),
            Some(tot) => tot.accumulate(&stats),
        }
        match sim.after_segment(&mut restarts, stop, fixed, false, drift) {
            Ok(true) => continue,
            Ok(false) => break,
            Err(err) => {
                failure = Some(err);
                break;
            }
        }
    }
    sim.push_rti_report(rti, settings, "I3", params.hinit);
    let wall = start.elapsed().as_secs_f64();
    sim.finish_dynamic(total.unwrap_or_default(), wall, new_frames, failure)
}
