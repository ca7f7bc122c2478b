//! Static and quasi-static analysis (seeds: motionsolve-param-static; SPEC §4).
//!
//! - FIM_S, the Force Imbalance Method: Newton–Raphson on the force balance
//!   F(q, λ) = 0 with velocities and accelerations zero. The unknowns are the
//!   coordinates and the multipliers; the equations are the body equations
//!   R(q, 0, 0, λ, t) = −Q(q, 0, t) + Φ_qᵀλ = 0 and the active constraints
//!   Φ(q, t) = 0 (a deactivated redundant row reads λ_k = 0). √stability·M
//!   is added to the q-block of the Jacobian so that neutral equilibria do
//!   not make it singular; it changes the iteration, not the solution.
//! - MKEAM, the Maximum Kinetic Energy Attrition Method (`statics/mkeam.rs`).
//! - Quasi-statics by FIM_S at each output time or FIM_D, DAE integration of
//!   the force balance (`statics/quasi.rs`).
//!
//! Convergence of FIM_S (infinity norms, seed comment 3): the imbalance of
//! the body equations below `max_imbalance`, the constraint residual and the
//! change of the coordinates in the last iteration below `max_error`.

mod compliance;
mod mkeam;
mod quasi;

pub use compliance::Compliance;
pub use mbsolve_model::{StaticMethod, StaticSettings};

use crate::analysis::{Frame, Simulation, SolverError};
use crate::formulation::{constraint_rows, coordinate_name, equation_name, AsmSink};
use crate::settings::{fmt_num, FrontEnd};
use crate::user_states::StaticStates;
use mbsolve_integrate::{SlotAssembler, SparseLu};
use mbsolve_mech::{MechData, System};

/// Validated Param_Static values with the documented defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticParams {
    /// The method as requested (default FIM_D).
    pub requested: StaticMethod,
    /// The method that runs: FIM_D falls back to FIM_S for a pure static
    /// solution (seed: "FIM_D defaults to FIM_S when a pure static solution
    /// is required").
    pub method: StaticMethod,
    pub max_ke_tol: f64,
    pub max_dq_tol: f64,
    pub max_num_iter: usize,
    pub max_imbalance: f64,
    pub max_error: f64,
    pub stability: f64,
    pub compliance_delta: f64,
    /// Per-iteration limits on a part's translation and rotation (Adams
    /// TLIMIT, ALIMIT); infinite when not given.
    pub tlimit: f64,
    pub alimit: f64,
}

/// Which analysis the settings are for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaticAnalysis {
    Static,
    QuasiStatic,
}

/// Apply the documented defaults and ranges (seed: Param_Static attributes).
/// Attributes of the other method's family are rejected, never ignored.
/// Messages use the names the user wrote: the Adams EQUILIBRIUM arguments
/// (ERROR, IMBALANCE, MAXIT, STABILITY, TLIMIT, ALIMIT) when `s.origin`
/// is in an .adm/.acf file, the Param_Static attributes otherwise; they
/// start with the origin when there is one.
/// Why statics refuses a velocity GCON.
pub(crate) const STATICS_REFUSAL: &str = "at rest (u = 0) g(q, 0, t) = 0 is no condition on the positions when g is homogeneous in the velocities (and an impossible one otherwise), while the constraint still restricts the motions that equilibrium balances; mbsolve defines no static equilibrium for it (run a dynamic analysis)";

pub fn static_params(s: &StaticSettings, analysis: StaticAnalysis) -> Result<StaticParams, String> {
    let front = FrontEnd::of_origin(s.origin.as_deref(), FrontEnd::MotionSolve);
    let prefix = match (&s.origin, front) {
        (Some(o), FrontEnd::Adams) => format!("{o}: EQUILIBRIUM: "),
        (Some(o), FrontEnd::MotionSolve) => format!("{o}: Param_Static: "),
        (None, _) => "Param_Static: ".to_string(),
    };
    // Param_Static attribute → EQUILIBRIUM argument (adm `equilibrium_settings`).
    let name = |attribute: &'static str| -> &'static str {
        if front == FrontEnd::MotionSolve {
            return attribute;
        }
        match attribute {
            "max_error" => "ERROR",
            "max_imbalance" => "IMBALANCE",
            "max_num_iter" => "MAXIT",
            "stability" => "STABILITY",
            "method" => "STATIC",
            other => other,
        }
    };
    let real = |attribute: &'static str, v: Option<f64>, default: f64, zero_ok: bool| {
        let x = v.unwrap_or(default);
        let ok = x.is_finite() && if zero_ok { x >= 0.0 } else { x > 0.0 };
        if ok {
            Ok(x)
        } else {
            let rule = if zero_ok { ">= 0" } else { "> 0" };
            let n = name(attribute);
            Err(format!(
                "{prefix}{n} = {} is out of range ({n} {rule})",
                fmt_num(x)
            ))
        }
    };
    let requested = s.method.unwrap_or(StaticMethod::FimD);
    let mkeam_only = [
        (s.max_ke_tol.is_some(), "max_ke_tol"),
        (s.max_dq_tol.is_some(), "max_dq_tol"),
    ];
    let fim_only = [
        (s.max_imbalance.is_some(), "max_imbalance"),
        (s.max_error.is_some(), "max_error"),
        (s.stability.is_some(), "stability"),
        (s.compliance_delta.is_some(), "compliance_delta"),
    ];
    if requested == StaticMethod::Mkeam {
        if analysis == StaticAnalysis::QuasiStatic {
            return Err(format!("{prefix}method = MKEAM is not available for quasi-static analysis; use FIM_D or FIM_S"));
        }
        if let Some((_, attribute)) = fim_only.iter().find(|(given, _)| *given) {
            return Err(format!(
                "{prefix}{} applies to methods FIM_S and FIM_D, not to MKEAM",
                name(attribute)
            ));
        }
    } else if let Some((_, attribute)) = mkeam_only.iter().find(|(given, _)| *given) {
        return Err(format!(
            "{prefix}{attribute} applies only to method MKEAM, not to {}",
            requested.name()
        ));
    }
    let max_num_iter = s.max_num_iter.unwrap_or(100);
    if max_num_iter < 1 {
        let n = name("max_num_iter");
        return Err(format!(
            "{prefix}{n} = {max_num_iter} is out of range ({n} >= 1)"
        ));
    }
    let method = match (requested, analysis) {
        (StaticMethod::FimD, StaticAnalysis::Static) => StaticMethod::FimS,
        (m, _) => m,
    };
    Ok(StaticParams {
        requested,
        method,
        max_ke_tol: real("max_ke_tol", s.max_ke_tol, 1e-5, false)?,
        max_dq_tol: real("max_dq_tol", s.max_dq_tol, 1e-3, false)?,
        max_num_iter: max_num_iter as usize,
        max_imbalance: real("max_imbalance", s.max_imbalance, 1e-4, false)?,
        max_error: real("max_error", s.max_error, 1e-4, false)?,
        stability: real("stability", s.stability, 1e-10, true)?,
        compliance_delta: real("compliance_delta", s.compliance_delta, 1e-3, false)?,
        tlimit: s
            .tlimit
            .map_or(Ok(f64::INFINITY), |v| real("TLIMIT", Some(v), v, false))?,
        alimit: s
            .alimit
            .map_or(Ok(f64::INFINITY), |v| real("ALIMIT", Some(v), v, false))?,
    })
}

/// What a static or quasi-static analysis did.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticReport {
    /// The method that ran.
    pub method: StaticMethod,
    /// Newton iterations (linear solves) in total: FIM_S iterations, plus
    /// for FIM_D the corrector iterations of the DAE integration; MKEAM
    /// counts its kinetic-energy iterations.
    pub iterations: usize,
    /// Jacobian evaluations (FIM_S: one per iteration; FIM_D: those of the
    /// integration, which reuses its Jacobian across iterations and steps,
    /// plus the FIM_S ones; MKEAM: 0, its integrations are in the log).
    pub jacobians: usize,
    /// Largest force imbalance (infinity norm) at the reported solutions
    /// (MKEAM: the residual kinetic energy of the last iteration).
    pub imbalance: f64,
    /// Output frames written.
    pub frames: usize,
}

/// Newton iteration limits and tolerances.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NewtonOptions<'a> {
    pub max_imbalance: f64,
    pub max_error: f64,
    pub stability: f64,
    pub max_iter: usize,
    /// Iterations to take even if the start already satisfies the tolerances.
    pub min_iter: usize,
    /// Extra applied generalized force (compliance perturbations).
    pub load: Option<&'a [f64]>,
    /// Method name for the log ("FIM_S").
    pub label: &'a str,
    /// Write one log line per iteration.
    pub verbose: bool,
    /// Largest translation and rotation (radians) of a part per iteration.
    pub limits: [f64; 2],
    /// The stop flag (`FrameOutput::stop`), checked at every iteration.
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
}

/// A (possibly approximate) static solution.
#[derive(Clone, Debug)]
pub(crate) struct Equilibrium {
    pub q: Vec<f64>,
    pub lam: Vec<f64>,
    pub iterations: usize,
    pub imbalance: f64,
    pub violation: f64,
}

/// The iteration failed; `best` is the configuration with the smallest
/// scaled residual reached.
#[derive(Clone, Debug)]
pub(crate) struct NewtonFailure {
    pub best: Equilibrium,
    pub message: String,
}

/// Reusable Newton solver for the force balance of one system.
pub(crate) struct ForceBalance {
    /// The Newton iteration's mechanics data (active set, cache).
    data: MechData,
    asm: SlotAssembler,
    lu: SparseLu,
    zeros: Vec<f64>,
    res: Vec<f64>,
    phi: Vec<f64>,
    jdx: Vec<f64>,
    /// The Newton step.
    dx: Vec<f64>,
    /// The user states' static rows (after the constraint rows; the
    /// states are unknowns after λ).
    states: StaticStates,
}

/// Residual norms: (imbalance, its row, constraint violation, its row).
struct Norms {
    imbalance: f64,
    imbalance_row: usize,
    violation: f64,
    violation_row: usize,
}

/// Name of unknown `i` of the (q, λ) system.
pub(crate) fn unknown_name(sys: &System, i: usize) -> String {
    let n = sys.nq();
    if i < n {
        coordinate_name(sys, i)
    } else if i >= n + sys.neq() {
        format!("{} state", sys.state_name(i - n - sys.neq()))
    } else {
        format!("multiplier of {}", equation_name(sys, i - n))
    }
}

/// Name of algebraic row `k` (after the force balance): a constraint
/// equation, or a user state's static equation.
fn static_row_name(sys: &System, k: usize) -> String {
    if k < sys.neq() {
        equation_name(sys, k)
    } else {
        format!("{} static equation", sys.state_name(k - sys.neq()))
    }
}

impl ForceBalance {
    pub fn new(sys: &System, data: &MechData) -> Self {
        let (n, m) = (sys.nq(), sys.neq());
        let states = StaticStates::new(sys, data, n + m);
        let size = n + m + sys.nw();
        // At rest: the user states' rates are zero too.
        let mut data = data.clone();
        data.states.wp.iter_mut().for_each(|v| *v = 0.0);
        ForceBalance {
            data,
            asm: SlotAssembler::new(size),
            lu: SparseLu::new(),
            zeros: vec![0.0; n],
            res: vec![0.0; size],
            phi: vec![0.0; m],
            jdx: vec![0.0; size],
            dx: vec![0.0; size],
            states,
        }
    }

    /// F(q, λ) into `self.res`; Err names a non-finite equation.
    fn residual(
        &mut self,
        sys: &System,
        q: &[f64],
        lam: &[f64],
        t: f64,
        load: Option<&[f64]>,
    ) -> Result<Norms, String> {
        let n = sys.nq();
        let z = &self.zeros;
        sys.body_residual(&mut self.data, q, z, z, lam, t, &mut self.res[..n]);
        if let Some(f) = load {
            for i in 0..n {
                self.res[i] -= f[i];
            }
        }
        let data = &mut self.data;
        let m = sys.neq();
        constraint_rows(
            sys,
            data,
            q,
            lam,
            t,
            1.0,
            &mut self.phi,
            &mut self.res[n..n + m],
        );
        self.states.residual(sys, data, q, t, &mut self.res);
        crate::reaction_fn::static_residual(
            sys,
            data,
            q,
            lam,
            t,
            n + m,
            &self.zeros,
            &mut self.res,
        );
        if let Some(i) = self.res.iter().position(|v| !v.is_finite()) {
            let what = if i < n {
                format!("{} force balance", coordinate_name(sys, i))
            } else if i >= n + m {
                format!("{} static equation", sys.state_name(i - n - m))
            } else {
                equation_name(sys, i - n)
            };
            return Err(format!("non-finite residual in {what}"));
        }
        let argmax = |r: &[f64]| {
            r.iter()
                .enumerate()
                .fold((0.0f64, 0usize), |(b, bi), (i, v)| {
                    if v.abs() > b {
                        (v.abs(), i)
                    } else {
                        (b, bi)
                    }
                })
        };
        let (imbalance, imbalance_row) = argmax(&self.res[..n]);
        // The user states' static rows count as constraint errors.
        let (violation, violation_row) = argmax(&self.res[n..]);
        Ok(Norms {
            imbalance,
            imbalance_row,
            violation,
            violation_row,
        })
    }

    /// ∂F/∂(q, λ) + √stability·M in the q-block.
    fn jacobian(&mut self, sys: &System, q: &[f64], lam: &[f64], t: f64, stability: f64) {
        let n = sys.nq();
        let ca = stability.sqrt();
        loop {
            self.asm.begin();
            let mut s = AsmSink(&mut self.asm);
            let z = &self.zeros;
            let data = &mut self.data;
            sys.body_jacobian(data, q, z, z, Some(lam), t, &mut s, 0, Some(0), 0, 0.0, ca);
            sys.constraint_jacobian(data, q, t, &mut s, n, 0, Some((0, n)), Some(n));
            self.states.jacobian(sys, data, q, t, &mut s);
            crate::reaction_fn::static_jacobian(sys, data, (q, lam, z), t, n, &mut s);
            if self.asm.finish() {
                break;
            }
        }
    }

    /// Tangent of the solution path at an equilibrium (q, λ) of time t:
    /// J [q'; λ'] = −∂F/∂t, with ∂F/∂t by a central difference in time.
    /// Err when the Jacobian is singular.
    pub fn path_derivative(
        &mut self,
        sys: &System,
        q: &[f64],
        lam: &[f64],
        t: f64,
        stability: f64,
    ) -> Result<Vec<f64>, String> {
        let eps = 1e-6 * t.abs().max(1.0);
        self.residual(sys, q, lam, t + eps, None)?;
        let plus = self.res.clone();
        self.residual(sys, q, lam, t - eps, None)?;
        let mut d: Vec<f64> = plus
            .iter()
            .zip(&self.res)
            .map(|(a, b)| -(a - b) / (2.0 * eps))
            .collect();
        // Inactive rows read λ_k: their time derivative is zero.
        self.jacobian(sys, q, lam, t, stability);
        self.lu
            .factor(&self.asm)
            .map(|_| ())
            .and_then(|_| self.lu.solve(&mut d))
            .map_err(|s| {
                format!(
                    "singular Jacobian (first failing unknown {})",
                    unknown_name(sys, s.row)
                )
            })?;
        Ok(d)
    }

    /// Newton–Raphson from (q0, λ0) at time t (seed comment 3).
    pub fn solve(
        &mut self,
        sys: &System,
        t: f64,
        q0: &[f64],
        lam0: &[f64],
        o: &NewtonOptions,
        log: &mut Vec<String>,
    ) -> Result<Equilibrium, NewtonFailure> {
        let n = sys.nq();
        let mut q = q0.to_vec();
        let mut lam = lam0.to_vec();
        let mut change = 0.0f64;
        // The best iterate (by the scaled residual), kept in buffers sized
        // once: an iteration allocates nothing unless it logs (issue 13).
        let mut best = Equilibrium {
            q: q.clone(),
            lam: lam.clone(),
            iterations: 0,
            imbalance: f64::INFINITY,
            violation: f64::INFINITY,
        };
        let mut best_merit = f64::INFINITY;
        let mut iterations = 0usize;
        loop {
            if o.stop
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            {
                let message = format!(
                    "{} {} at iteration {iterations} (t = {t})",
                    o.label,
                    crate::output::INTERRUPTED
                );
                return Err(NewtonFailure { best, message });
            }
            let r = match self.residual(sys, &q, &lam, t, o.load) {
                Ok(r) => r,
                Err(e) => {
                    let msg = format!("{} at iteration {iterations} (t = {t}): {e}", o.label);
                    return Err(NewtonFailure { best, message: msg });
                }
            };
            let imb_name = || format!("{} force balance", coordinate_name(sys, r.imbalance_row));
            if o.verbose {
                log.push(format!(
                    "{} iteration {iterations}: imbalance {:.3e} in {}; constraint error {:.3e} in {}; change {:.3e}",
                    o.label,
                    r.imbalance,
                    imb_name(),
                    r.violation,
                    if sys.neq() + sys.nw() > 0 { static_row_name(sys, r.violation_row) } else { "-".into() },
                    change
                ));
            }
            let merit = (r.imbalance / o.max_imbalance).max(r.violation / o.max_error);
            // The first iterate is the best so far even when its merit is
            // not finite.
            if iterations == 0 || merit < best_merit {
                best_merit = merit;
                best.q.copy_from_slice(&q);
                best.lam.copy_from_slice(&lam);
                best.iterations = iterations;
                best.imbalance = r.imbalance;
                best.violation = r.violation;
            }
            if iterations >= o.min_iter
                && r.imbalance <= o.max_imbalance
                && r.violation <= o.max_error
                && change <= o.max_error
            {
                return Ok(Equilibrium {
                    q,
                    lam,
                    iterations,
                    imbalance: r.imbalance,
                    violation: r.violation,
                });
            }
            if iterations >= o.max_iter {
                let b = &best;
                let msg = format!(
                    "{} did not converge in {} iterations at t = {t}: imbalance {:.3e} in {} (max_imbalance = {:e}), constraint error {:.3e}, last change {:.3e} (max_error = {:e}); best reached: imbalance {:.3e}, constraint error {:.3e}",
                    o.label,
                    o.max_iter,
                    r.imbalance,
                    imb_name(),
                    o.max_imbalance,
                    r.violation,
                    change,
                    o.max_error,
                    b.imbalance,
                    b.violation
                );
                return Err(NewtonFailure { best, message: msg });
            }
            self.jacobian(sys, &q, &lam, t, o.stability);
            let dx = &mut self.dx;
            for (d, r) in dx.iter_mut().zip(&self.res) {
                *d = -r;
            }
            let solved = self
                .lu
                .factor(&self.asm)
                .map(|_| ())
                .and_then(|_| self.lu.solve(dx));
            // A pivot that is zero only to rounding gives a finite but
            // meaningless step: check the linear residual as well.
            let singular_row = match solved {
                Err(s) => Some(s.row),
                Ok(()) => {
                    self.asm.mul(dx, &mut self.jdx);
                    let scale = self.res.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                    let bad = (0..dx.len())
                        .map(|i| (self.jdx[i] + self.res[i]).abs())
                        .fold(0.0f64, f64::max);
                    (bad > 1e-6 * scale.max(f64::MIN_POSITIVE)).then(|| {
                        (0..dx.len())
                            .max_by(|&a, &b| dx[a].abs().total_cmp(&dx[b].abs()))
                            .unwrap_or(0)
                    })
                }
            };
            if let Some(row) = singular_row {
                let msg = format!(
                    "{}: singular Jacobian at iteration {iterations} (t = {t}), first failing unknown {}; a neutral equilibrium (the model can move without a change of force) needs stability > 0 (now {:e}, e.g. 0.01)",
                    o.label,
                    unknown_name(sys, row),
                    o.stability
                );
                return Err(NewtonFailure { best, message: msg });
            }
            iterations += 1;
            // TLIMIT / ALIMIT: shorten the whole step so no part moves more
            // than the limits (rotation angle ≈ 2|Δp| for Euler parameters).
            let mut scale: f64 = 1.0;
            for b in 0..n / 7 {
                let c = 7 * b;
                let dr = (0..3).map(|i| dx[c + i] * dx[c + i]).sum::<f64>().sqrt();
                let dp = (3..7).map(|i| dx[c + i] * dx[c + i]).sum::<f64>().sqrt();
                scale = scale
                    .min(o_limit(o.limits[0], dr))
                    .min(o_limit(o.limits[1], 2.0 * dp));
            }
            if scale < 1.0 && o.verbose {
                log.push(format!(
                    "{}: iteration {iterations}: step limited by TLIMIT/ALIMIT to {scale:.3e} of the Newton step",
                    o.label
                ));
            }
            change = 0.0;
            for i in 0..n {
                q[i] += scale * dx[i];
                change = change.max((scale * dx[i]).abs());
            }
            for k in 0..lam.len() {
                lam[k] += scale * dx[n + k];
            }
            for (k, w) in self.data.states.w.iter_mut().enumerate() {
                *w += scale * dx[n + lam.len() + k];
            }
        }
    }
}

/// Step fraction that keeps a change of size `d` within `limit`.
fn o_limit(limit: f64, d: f64) -> f64 {
    if d > limit {
        limit / d
    } else {
        1.0
    }
}

impl Simulation {
    /// SIMULATE/STATIC: the static equilibrium at the current time with the
    /// Param_Static settings. On success the equilibrium becomes the current
    /// state (a following dynamic analysis starts from it) and one output
    /// frame. On failure the best configuration reached is kept as the state
    /// and a frame, and the message names the complementary method.
    pub fn static_equilibrium(
        &mut self,
        settings: &StaticSettings,
    ) -> Result<StaticReport, SolverError> {
        let p = static_params(settings, StaticAnalysis::Static).map_err(SolverError::Settings)?;
        self.refuse_velocity_rows("a static analysis", STATICS_REFUSAL)?;
        self.set_mode(crate::analysis_mode::AnalysisMode::Statics);
        if !self.ic_done {
            self.initial_conditions()?;
        }
        let t = self.state.t;
        self.log_params(&p, "static equilibrium");
        match p.method {
            StaticMethod::Mkeam => mkeam::run(self, &p, t),
            _ => {
                let (q0, l0) = (self.state.q.clone(), self.state.lambda.clone());
                let eq = self.fim_s(&p, t, &q0, &l0)?;
                let imbalance = eq.imbalance;
                let iterations = eq.iterations;
                self.accept_static(t, &eq.q, Some(&eq.lam))?;
                self.log.push(format!(
                    "static equilibrium found by FIM_S in {iterations} iterations: imbalance {imbalance:.3e}"
                ));
                Ok(StaticReport {
                    method: StaticMethod::FimS,
                    iterations,
                    jacobians: iterations,
                    imbalance,
                    frames: 1,
                })
            }
        }
    }

    fn log_params(&mut self, p: &StaticParams, what: &str) {
        let mut line = format!("{what}: method = {}", p.method.name());
        if p.requested != p.method {
            line.push_str(&format!(
                " ({} falls back to {} for a pure static solution)",
                p.requested.name(),
                p.method.name()
            ));
        }
        match p.method {
            StaticMethod::Mkeam => line.push_str(&format!(
                ", max_ke_tol = {:e}, max_dq_tol = {:e}, max_num_iter = {}",
                p.max_ke_tol, p.max_dq_tol, p.max_num_iter
            )),
            _ => line.push_str(&format!(
                ", max_imbalance = {:e}, max_error = {:e}, stability = {:e}, max_num_iter = {}",
                p.max_imbalance, p.max_error, p.stability, p.max_num_iter
            )),
        }
        self.log.push(line);
    }

    /// One FIM_S solution at time t from (q0, λ0), logging each iteration;
    /// on failure the best configuration becomes the state and a frame.
    pub(crate) fn fim_s(
        &mut self,
        p: &StaticParams,
        t: f64,
        q0: &[f64],
        lam0: &[f64],
    ) -> Result<Equilibrium, SolverError> {
        let opts = NewtonOptions {
            max_imbalance: p.max_imbalance,
            max_error: p.max_error,
            stability: p.stability,
            max_iter: p.max_num_iter,
            min_iter: 0,
            load: None,
            label: "FIM_S",
            verbose: true,
            limits: [p.tlimit, p.alimit],
            stop: self.output.stop.as_deref(),
        };
        let mut fb = ForceBalance::new(&self.sys, &self.data);
        crate::user_states::log_held_states(&self.sys, &mut self.log);
        let solved = fb.solve(&self.sys, t, q0, lam0, &opts, &mut self.log);
        // The user states solved with (q, λ) (w' = 0, or held).
        self.data.states.set(&fb.data.states.w, &fb.data.states.wp);
        match solved {
            Ok(eq) => Ok(eq),
            Err(_) if self.output.stop_requested() => Err(crate::output::interrupted_at(t)),
            Err(f) => {
                let message = format!(
                    "static equilibrium failed: {}; the best configuration reached is kept. The force imbalance and kinetic energy methods are complementary: try method = MKEAM (it finds stable equilibria far from the model configuration)",
                    f.message
                );
                Err(self.keep_best(t, &f.best.q, &f.best.lam, message))
            }
        }
    }

    /// Keep a failed solution's best configuration as the state and a frame.
    pub(crate) fn keep_best(
        &mut self,
        t: f64,
        q: &[f64],
        lam: &[f64],
        message: String,
    ) -> SolverError {
        let n = q.len();
        self.state = Frame {
            t,
            q: q.to_vec(),
            u: vec![0.0; n],
            a: vec![0.0; n],
            lambda: lam.to_vec(),
            w: self.data.states.w.clone(),
            wp: vec![0.0; self.data.states.wp.len()],
            non_dynamic: false,
            mode: 0.0,
        };
        // The statics failure is the error to report, even if the output
        // path also stops here.
        let _ = self.emit_frame_unreported(self.state.clone());
        self.log.push(format!("ERROR: {message}"));
        SolverError::Statics(message)
    }

    /// Accept an equilibrium: positions polished onto the constraints, then
    /// consistent velocities and accelerations become the state (so dynamics
    /// can start from it); the frame reports zero velocities and
    /// accelerations and the static multipliers (if given).
    pub(crate) fn accept_static(
        &mut self,
        t: f64,
        q: &[f64],
        lam: Option<&[f64]>,
    ) -> Result<(), SolverError> {
        let n = q.len();
        let zeros = vec![0.0; n];
        self.solve_configuration(t, q, &zeros)?;
        self.emit_frame_unreported(Frame {
            t,
            q: self.state.q.clone(),
            u: zeros.clone(),
            a: zeros,
            lambda: lam
                .map(<[f64]>::to_vec)
                .unwrap_or_else(|| self.state.lambda.clone()),
            w: self.state.w.clone(),
            wp: self.state.wp.clone(),
            non_dynamic: false,
            mode: 0.0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_seed() {
        let p = static_params(&StaticSettings::default(), StaticAnalysis::QuasiStatic).unwrap();
        assert_eq!(p.requested, StaticMethod::FimD);
        assert_eq!(p.method, StaticMethod::FimD);
        assert_eq!(
            (p.max_ke_tol, p.max_dq_tol, p.max_num_iter),
            (1e-5, 1e-3, 100)
        );
        assert_eq!(
            (
                p.max_imbalance,
                p.max_error,
                p.stability,
                p.compliance_delta
            ),
            (1e-4, 1e-4, 1e-10, 1e-3)
        );
        let s = static_params(&StaticSettings::default(), StaticAnalysis::Static).unwrap();
        assert_eq!(s.requested, StaticMethod::FimD);
        assert_eq!(s.method, StaticMethod::FimS);
    }

    #[test]
    fn out_of_range_values_name_the_attribute() {
        let check = |s: StaticSettings, msg: &str| {
            assert_eq!(static_params(&s, StaticAnalysis::Static).unwrap_err(), msg);
        };
        check(
            StaticSettings {
                max_imbalance: Some(-1.0),
                ..Default::default()
            },
            "Param_Static: max_imbalance = -1 is out of range (max_imbalance > 0)",
        );
        check(
            StaticSettings {
                max_error: Some(0.0),
                ..Default::default()
            },
            "Param_Static: max_error = 0 is out of range (max_error > 0)",
        );
        check(
            StaticSettings {
                stability: Some(-1e-3),
                ..Default::default()
            },
            "Param_Static: stability = -0.001 is out of range (stability >= 0)",
        );
        check(
            StaticSettings {
                compliance_delta: Some(f64::NAN),
                ..Default::default()
            },
            "Param_Static: compliance_delta = NaN is out of range (compliance_delta > 0)",
        );
        check(
            StaticSettings {
                max_num_iter: Some(0),
                ..Default::default()
            },
            "Param_Static: max_num_iter = 0 is out of range (max_num_iter >= 1)",
        );
        check(
            StaticSettings {
                method: Some(StaticMethod::Mkeam),
                max_ke_tol: Some(0.0),
                ..Default::default()
            },
            "Param_Static: max_ke_tol = 0 is out of range (max_ke_tol > 0)",
        );
        check(
            StaticSettings {
                method: Some(StaticMethod::Mkeam),
                max_dq_tol: Some(-2.0),
                ..Default::default()
            },
            "Param_Static: max_dq_tol = -2 is out of range (max_dq_tol > 0)",
        );
    }

    #[test]
    fn attributes_of_the_other_method_are_rejected() {
        let s = StaticSettings {
            method: Some(StaticMethod::Mkeam),
            stability: Some(0.01),
            ..Default::default()
        };
        assert_eq!(
            static_params(&s, StaticAnalysis::Static).unwrap_err(),
            "Param_Static: stability applies to methods FIM_S and FIM_D, not to MKEAM"
        );
        let s = StaticSettings {
            method: Some(StaticMethod::FimS),
            max_ke_tol: Some(1e-6),
            ..Default::default()
        };
        assert_eq!(
            static_params(&s, StaticAnalysis::Static).unwrap_err(),
            "Param_Static: max_ke_tol applies only to method MKEAM, not to FIM_S"
        );
        let s = StaticSettings {
            max_dq_tol: Some(1e-6),
            ..Default::default()
        };
        assert_eq!(
            static_params(&s, StaticAnalysis::Static).unwrap_err(),
            "Param_Static: max_dq_tol applies only to method MKEAM, not to FIM_D"
        );
    }

    #[test]
    fn mkeam_is_rejected_for_quasi_statics() {
        let s = StaticSettings {
            method: Some(StaticMethod::Mkeam),
            ..Default::default()
        };
        assert_eq!(
            static_params(&s, StaticAnalysis::QuasiStatic).unwrap_err(),
            "Param_Static: method = MKEAM is not available for quasi-static analysis; use FIM_D or FIM_S"
        );
        assert_eq!(
            static_params(&s, StaticAnalysis::Static).unwrap().method,
            StaticMethod::Mkeam
        );
    }
}
