//! MKEAM, the Maximum Kinetic Energy Attrition Method (seed: "The Maximum
//! Kinetic Energy Attrition Method", steps 1–4):
//!
//! 1. the model with all damping removed (spring-damper, bushing, field
//!    and beam damping zeroed, velocity measures of function forces read as
//!    zero, CONTACT damping, restitution losses and friction and joint
//!    FRICTION removed) is a conservative
//!    system; time is frozen at the static time (motions and time functions
//!    keep their values) and the integration runs in pseudo-time;
//! 2. GSTIFF/I3 integrates from rest while the kinetic energy is monitored
//!    step by step; at a peak the integration backtracks to the step before
//!    the peak and re-integrates with smaller steps to locate it in time;
//! 3. at the peak (a potential-energy valley) velocities and accelerations
//!    are set to zero and the next iteration starts from there;
//! 4. iterations stop when the peak kinetic energy is below `max_ke_tol` and
//!    the largest relative change of the states over the iteration is below
//!    `max_dq_tol`, or after `max_num_iter` iterations.
//!
//! Only stable equilibria attract this process (seed: advantages).

use super::{StaticMethod, StaticParams, StaticReport};
use crate::analysis::{Simulation, SolverError};
use crate::formulation::{coordinate_name, I3Problem};
use crate::linear::{Block, Kkt};
use mbsolve_integrate::{BdfParams, DaeProblem, Gstiff, ProblemError, SlotAssembler, VarClass};
use mbsolve_mech::rotation::g_mat;
use mbsolve_mech::{MechData, System};
use mbsolve_model::{ForceKind, Measure, Model, StateFunction};
use nalgebra::{Vector3, Vector4};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A state function evaluated with its velocity measures at zero: the
/// velocity-dependent (damping) part removed.
#[derive(Debug)]
struct AtRest {
    inner: Arc<dyn StateFunction>,
}

fn is_velocity(m: &Measure) -> bool {
    matches!(
        m,
        Measure::Vr { .. }
            | Measure::Vel { .. }
            | Measure::AngVel { .. }
            | Measure::Speed { .. }
            | Measure::AngSpeed { .. }
            | Measure::FrameVel { .. }
            | Measure::FrameSpeed { .. }
    )
}

impl StateFunction for AtRest {
    fn measures(&self) -> &[Measure] {
        self.inner.measures()
    }
    fn eval(&self, t: f64, m: &[f64], dm: &mut [f64]) -> (f64, f64) {
        let ms = self.inner.measures();
        let rest: Vec<f64> = m
            .iter()
            .zip(ms)
            .map(|(v, k)| if is_velocity(k) { 0.0 } else { *v })
            .collect();
        let r = self.inner.eval(t, &rest, dm);
        for (d, k) in dm.iter_mut().zip(ms) {
            if is_velocity(k) {
                *d = 0.0;
            }
        }
        r
    }
}

/// The model with all damping removed (seed step 1).
pub(crate) fn undamped(model: &Model) -> Model {
    let mut m = model.clone();
    for f in &mut m.forces {
        match &mut f.kind {
            ForceKind::TranslationalSpringDamper { damping, .. }
            | ForceKind::RotationalSpringDamper { damping, .. } => *damping = 0.0,
            ForceKind::TranslationalActionReaction { function }
            | ForceKind::RotationalActionReaction { function }
            | ForceKind::TranslationalActionOnly { function }
            | ForceKind::RotationalActionOnly { function } => {
                if function.measures().iter().any(is_velocity) {
                    *function = Arc::new(AtRest {
                        inner: function.clone(),
                    });
                }
            }
            ForceKind::Elastic(e) => {
                e.damping = mbsolve_model::ElasticDamping::Ratio(0.0);
            }
            ForceKind::Vector { components, .. } => {
                for function in components.iter_mut().flatten() {
                    if function.measures().iter().any(is_velocity) {
                        *function = Arc::new(AtRest {
                            inner: function.clone(),
                        });
                    }
                }
            }
        }
    }
    // CONTACT damping and friction, and joint FRICTION, dissipate too
    // ("all damping is removed", seed): IMPACT damping zeroed, POISSON
    // made elastic (restitution 1: α = 0), friction coefficients and
    // preloads zeroed. The elements stay, with the same equations and
    // data layout as the simulation's system.
    for c in &mut m.contacts {
        match &mut c.normal {
            mbsolve_model::NormalForce::Impact { damping, .. } => *damping = 0.0,
            mbsolve_model::NormalForce::Poisson { restitution, .. } => *restitution = 1.0,
        }
        if let Some(f) = &mut c.friction {
            f.mu_static = 0.0;
            f.mu_dynamic = 0.0;
        }
    }
    for f in &mut m.frictions {
        f.mu_static = 0.0;
        f.mu_dynamic = 0.0;
        f.force_preload = 0.0;
        f.torque_preload = 0.0;
    }
    m
}

/// Kinetic energy ½ mṙᵀṙ + ½ ω'ᵀJω' with ω' = 2G(p)ṗ.
pub(crate) fn kinetic_energy(sys: &System, q: &[f64], u: &[f64]) -> f64 {
    let mut e = 0.0;
    for (b, body) in sys.bodies.iter().enumerate() {
        let o = 7 * b;
        let v = Vector3::new(u[o], u[o + 1], u[o + 2]);
        let p = Vector4::new(q[o + 3], q[o + 4], q[o + 5], q[o + 6]);
        let pd = Vector4::new(u[o + 3], u[o + 4], u[o + 5], u[o + 6]);
        let w = 2.0 * g_mat(&p) * pd;
        e += 0.5 * body.mass * v.norm_squared() + 0.5 * w.dot(&(body.inertia * w));
    }
    e
}

/// A DAE evaluated at a frozen physical time: the integrator's time is the
/// pseudo-time of the kinetic-energy iterations.
struct FrozenTime<P> {
    inner: P,
    t: f64,
}

impl<P: DaeProblem> DaeProblem for FrozenTime<P> {
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn classes(&self) -> &[VarClass] {
        self.inner.classes()
    }
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        self.inner.residual(self.t, y, yp, out)
    }
    fn jacobian(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        self.inner.jacobian(self.t, y, yp, c, a)
    }
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        self.inner.residual_acceptable(res)
    }
    fn describe_variable(&self, i: usize) -> String {
        self.inner.describe_variable(i)
    }
    fn describe_equation(&self, i: usize) -> String {
        self.inner.describe_equation(i)
    }
}

/// One integrator state in pseudo-time with its kinetic energy.
#[derive(Clone, Debug)]
struct Sample {
    tau: f64,
    y: Vec<f64>,
    yp: Vec<f64>,
    ke: f64,
}

enum Search {
    /// Kinetic-energy samples rising to `peak` and falling after it.
    Peak {
        before: Sample,
        peak: Sample,
        after: Sample,
    },
    /// No peak within the step budget or the time window: the sample with
    /// the largest kinetic energy.
    NoPeak(Sample),
}

/// Local error tolerance of the pseudo-time integration (displacements).
const PSEUDO_ERROR: f64 = 1e-5;
/// First step, largest step and horizon of the pseudo-time integration
/// (model time units): a system that has not reached a kinetic-energy peak
/// by the horizon is taken to be at rest.
const PSEUDO_HINIT: f64 = 1e-3;
const PSEUDO_HMAX: f64 = 1e4;
const PSEUDO_HORIZON: f64 = 1e6;
/// Steps allowed while searching for one peak.
const MAX_STEPS: usize = 3000;
/// Refinement levels of the backtracking and the relative width of the
/// final bracket in pseudo-time.
const MAX_BACKTRACKS: usize = 6;
const BRACKET: f64 = 1e-4;

#[allow(clippy::too_many_arguments)]
fn search(
    sys: &System,
    data: &MechData,
    t: f64,
    start: &Sample,
    hinit: f64,
    hmax: f64,
    tau_end: f64,
    steps: &mut usize,
    stop: Option<&AtomicBool>,
) -> Result<Search, String> {
    let n = sys.nq();
    let params = BdfParams {
        error: PSEUDO_ERROR,
        hmax,
        hmin: (hinit * 1e-10).max(1e-14),
        hinit: hinit.min(hmax),
        kmax: 6,
        maxit: 10,
        pattern: vec![true],
        error_classes: vec![VarClass::Displacement],
        corrector_classes: vec![VarClass::Displacement, VarClass::Velocity],
        adaptivity: 0.0,
        fixed: None,
        constant_step: false,
        interpolate: false,
    };
    let mut prob = FrozenTime {
        inner: I3Problem::new(sys, data.clone()),
        t,
    };
    let mut integ = Gstiff::new(&mut prob, params, start.tau, &start.y, &start.yp);
    let mut prev: Option<Sample> = None;
    let mut cur = start.clone();
    let mut best = start.clone();
    let mut taken = 0usize;
    while taken < MAX_STEPS && integ.t < tau_end {
        if stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(crate::output::INTERRUPTED.into());
        }
        let target = (integ.t + integ.h.min(hmax)).min(tau_end);
        integ.advance_to(target).map_err(|e| e.to_string())?;
        taken += 1;
        let (y, yp) = (integ.y(), integ.yp());
        let next = Sample {
            tau: integ.t,
            ke: kinetic_energy(sys, &y[..n], &y[n..2 * n]),
            y: y.to_vec(),
            yp: yp.to_vec(),
        };
        if !next.ke.is_finite() {
            return Err(format!(
                "kinetic energy became non-finite at pseudo-time {}",
                next.tau
            ));
        }
        if let Some(p) = &prev {
            if cur.ke > p.ke && next.ke <= cur.ke {
                *steps += taken;
                return Ok(Search::Peak {
                    before: p.clone(),
                    peak: cur,
                    after: next,
                });
            }
        }
        if next.ke > best.ke {
            best = next.clone();
        }
        prev = Some(std::mem::replace(&mut cur, next));
    }
    *steps += taken;
    Ok(Search::NoPeak(best))
}

/// Integrate from rest to the first kinetic-energy peak and locate it by
/// backtracking (seed step 2). Returns the peak sample.
fn locate_peak(
    sys: &System,
    data: &MechData,
    t: f64,
    start: &Sample,
    steps: &mut usize,
    stop: Option<&AtomicBool>,
) -> Result<(Sample, usize), String> {
    let mut backtracks = 0;
    let (mut before, mut peak, mut after) = match search(
        sys,
        data,
        t,
        start,
        PSEUDO_HINIT,
        PSEUDO_HMAX,
        PSEUDO_HORIZON,
        steps,
        stop,
    )? {
        Search::NoPeak(s) => return Ok((s, 0)),
        Search::Peak {
            before,
            peak,
            after,
        } => (before, peak, after),
    };
    while backtracks < MAX_BACKTRACKS && after.tau - before.tau > BRACKET * (peak.tau - start.tau) {
        backtracks += 1;
        let width = after.tau - before.tau;
        let h = width / 16.0;
        match search(sys, data, t, &before, h, h, after.tau, steps, stop)? {
            Search::Peak {
                before: b,
                peak: p,
                after: a,
            } => {
                before = b;
                peak = p;
                after = a;
            }
            // The finer samples rise to the end of the old bracket: the peak
            // lies at its edge; keep the best sample found.
            Search::NoPeak(s) => {
                if s.ke > peak.ke {
                    peak = s;
                }
                break;
            }
        }
    }
    Ok((peak, backtracks))
}

pub(crate) fn run(
    sim: &mut Simulation,
    p: &StaticParams,
    t: f64,
) -> Result<StaticReport, SolverError> {
    if sim.sys.nw() > 0 {
        return Err(SolverError::Statics(format!(
            "{}: MKEAM does not carry user states (DIFF, LSE, TFSISO) yet; use method = FIM_S",
            sim.sys.state_name(0)
        )));
    }
    let usys = System::new(&undamped(&sim.model)).map_err(SolverError::Model)?;
    // Same equations as the simulation's system: its active set applies.
    let mut data = sim.data.clone();
    let (n, m) = (usys.nq(), usys.neq());
    let mut kkt = Kkt::new(&usys);
    let mut q = sim.state.q.clone();
    let zeros_n = vec![0.0; n];
    let zeros_m = vec![0.0; m];
    let mut last_ke = f64::INFINITY;
    let mut steps = 0usize;
    let stop = sim.output.stop.clone();
    for it in 1..=p.max_num_iter {
        // Rest: u = 0; accelerations and multipliers from
        // [M Φ_qᵀ; Φ_q 0][a; λ] = [−R(q,0,0,0); 0] (time frozen: γ = 0).
        let mut r0 = vec![0.0; n];
        usys.body_residual(&mut data, &q, &zeros_n, &zeros_n, &zeros_m, t, &mut r0);
        let r1: Vec<f64> = r0.iter().map(|v| -v).collect();
        let solved = kkt.solve(
            &usys,
            &mut data,
            &q,
            t,
            Block::Mass { u: &zeros_n },
            &r1,
            &zeros_m,
        );
        let (a, lam) = match solved {
            Ok(x) => x,
            Err(row) => {
                let msg = format!(
                    "static equilibrium failed: MKEAM iteration {it}: singular mass matrix (first failing unknown {}); try method = FIM_S",
                    super::unknown_name(&usys, row)
                );
                return Err(sim.keep_best(t, &q, &zeros_m, msg));
            }
        };
        let start = Sample {
            tau: 0.0,
            y: q.iter().chain(&zeros_n).chain(&lam).copied().collect(),
            yp: zeros_n.iter().chain(&a).chain(&zeros_m).copied().collect(),
            ke: 0.0,
        };
        let (peak, backtracks) = match locate_peak(
            &usys,
            &data,
            t,
            &start,
            &mut steps,
            stop.as_deref(),
        ) {
            Ok(x) => x,
            Err(_) if sim.output.stop_requested() => return Err(crate::output::interrupted_at(t)),
            Err(e) => {
                let msg = format!(
                    "static equilibrium failed: MKEAM iteration {it}: {e}; the best configuration reached is kept. The kinetic energy and force imbalance methods are complementary: try method = FIM_S"
                );
                return Err(sim.keep_best(t, &q, &lam, msg));
            }
        };
        let (mut dq, mut row) = (0.0f64, 0usize);
        for i in 0..n {
            let d = (peak.y[i] - q[i]).abs() / q[i].abs().max(1.0);
            if d > dq {
                dq = d;
                row = i;
            }
        }
        sim.log.push(format!(
            "MKEAM iteration {it}: kinetic-energy peak {:.3e} at pseudo-time {:.4e} ({backtracks} backtracks); largest relative state change {dq:.3e} in {}",
            peak.ke,
            peak.tau,
            coordinate_name(&usys, row)
        ));
        // Seed step 3: zero velocities and accelerations at the peak.
        q.copy_from_slice(&peak.y[..n]);
        last_ke = peak.ke;
        if peak.ke <= p.max_ke_tol && dq <= p.max_dq_tol {
            sim.accept_static(t, &q, None)?;
            sim.log.push(format!(
                "static equilibrium found by MKEAM in {it} iterations ({steps} integration steps): residual kinetic energy {:.3e}",
                peak.ke
            ));
            return Ok(StaticReport {
                method: StaticMethod::Mkeam,
                iterations: it,
                jacobians: 0,
                imbalance: peak.ke,
                frames: 1,
            });
        }
    }
    let msg = format!(
        "static equilibrium failed: MKEAM did not converge in {} iterations: kinetic-energy peak {last_ke:.3e} (max_ke_tol = {:e}); the best configuration reached is kept. The kinetic energy and force imbalance methods are complementary: try method = FIM_S",
        p.max_num_iter, p.max_ke_tol
    );
    Err(sim.keep_best(t, &q, &zeros_m, msg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbsolve_model::NormalForce;

    /// "All damping is removed" (seed): CONTACT damping (IMPACT), the
    /// restitution loss (POISSON) and contact friction, and joint FRICTION
    /// with its preload, besides the spring-dampers; the stiffness stays
    /// and the undamped model still builds.
    #[test]
    fn undamped_removes_contact_and_friction_damping() {
        let deck = "t
PART/1, GROUND
MARKER/10, PART = 1
MARKER/12, PART = 1, QP = -1, -0.5, -1
GRAPHICS/1, BOX, CORNER = 12, X = 15, Y = 0.5, Z = 2
PART/5, MASS = 1, CM = 50, IP = 1E-3, 1E-3, 1E-3, QG = 0, 0.2, 0
MARKER/50, PART = 5
GRAPHICS/5, ELLIPSOID, CM = 50, XSCALE = 0.1, YSCALE = 0.1, ZSCALE = 0.1
CONTACT/1, IGEOM = 5, JGEOM = 1, IMPACT, STIFFNESS = 1E6, DAMPING = 2E3, DMAX = 1E-4, EXPONENT = 1.5
, COULOMB_FRICTION = ON, MU_STATIC = 0.3, MU_DYNAMIC = 0.2
, STICTION_TRANSITION_VELOCITY = 0.1, FRICTION_TRANSITION_VELOCITY = 0.2
CONTACT/2, IGEOM = 5, JGEOM = 1, POISSON, PENALTY = 1E5, RESTITUTION_COEFFICIENT = 0.5
PART/2, MASS = 1, CM = 20, IP = 0.02, 0.02, 0.02
MARKER/20, PART = 2, QP = 0, -1, 0
MARKER/21, PART = 2
JOINT/1, REVOLUTE, I = 21, J = 10
FRICTION/1, JOINT = 1, MU_STATIC = 0.1, MU_DYNAMIC = 0.08, PIN_RADIUS = 0.01
, STICTION_TRANSITION_VELOCITY = 0.01, FRICTION_TORQUE_PRELOAD = 0.5
END
";
        let model = mbsolve_adm::read_adm_str(deck, "t.adm").unwrap_or_else(|e| panic!("{e}"));
        assert!(model.contacts[0].friction.is_some());
        assert_eq!(model.frictions[0].torque_preload, 0.5);
        let u = undamped(&model);
        match u.contacts[0].normal {
            NormalForce::Impact {
                damping, stiffness, ..
            } => assert_eq!((damping, stiffness), (0.0, 1e6)),
            n => panic!("{n:?}"),
        }
        let f = u.contacts[0].friction.unwrap();
        assert_eq!((f.mu_static, f.mu_dynamic), (0.0, 0.0));
        match u.contacts[1].normal {
            NormalForce::Poisson {
                restitution,
                penalty,
                ..
            } => assert_eq!((restitution, penalty), (1.0, 1e5)),
            n => panic!("{n:?}"),
        }
        let j = &u.frictions[0];
        assert_eq!(
            (j.mu_static, j.mu_dynamic, j.torque_preload, j.force_preload),
            (0.0, 0.0, 0.0, 0.0)
        );
        // A POISSON contact at restitution 1 returns what it took: the
        // force on approach equals the force on separation.
        let (approach, _, _) = u.contacts[1].normal.law(1e-3, 1.0);
        let (separate, _, _) = u.contacts[1].normal.law(1e-3, -1.0);
        assert_eq!(approach, separate);
        System::new(&u).unwrap();
    }
}
