//! WSTIFF on whole models, against the references the GSTIFF tests use
//! (models.rs): the pendulum period, four-bar constraint residuals, the
//! seeds' stiff spring pair, and rejection and recovery at a force
//! discontinuity (stated tolerances; measured figures printed, with GSTIFF's
//! for comparison).

mod common;
use common::*;

use mbsolve_integrate::Statistics;
use mbsolve_model::*;
use mbsolve_solver::{models, Simulation};

fn wstiff(error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind: IntegratorKind::Wstiff,
        error: Some(error),
        ..Default::default()
    }
}

fn gstiff(error: f64) -> IntegratorSettings {
    IntegratorSettings {
        error: Some(error),
        ..Default::default()
    }
}

/// Relative period error of the horizontally released pendulum (L = 1 m).
fn pendulum_period(settings: &IntegratorSettings) -> (f64, Statistics, Simulation) {
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    let stats = sim.dynamic(3.0, None, Some(0.01), settings).unwrap();
    let crossings: Vec<f64> = sim
        .frames
        .windows(2)
        .filter(|w| (w[0].q[0] > 0.0) != (w[1].q[0] > 0.0))
        .map(|w| crossing(&w[0], &w[1]))
        .collect();
    assert!(crossings.len() >= 2, "pendulum must swing through twice");
    let period = 2.0 * (crossings[1] - crossings[0]);
    let exact = common::pendulum_period(1.0, 9.81);
    ((period - exact).abs() / exact, stats, sim)
}

/// Pendulum period within 1e-4 relative of the elliptic-integral value at
/// ERROR = 1e-6, constraint residual below 1e-8 at every output, and the
/// log names WSTIFF.
#[test]
fn wstiff_pendulum_period() {
    let (rel, st, sim) = pendulum_period(&wstiff(1e-6));
    let (grel, gst, _) = pendulum_period(&gstiff(1e-6));
    let phi = worst_phi(&sim);
    println!(
        "WSTIFF pendulum: period error {rel:.2e}, {} steps, {} rejected, {} Jacobians, max |Phi| {phi:.2e}; GSTIFF: {grel:.2e}, {} steps",
        st.steps, st.rejected_steps, st.jacobian_evaluations, gst.steps
    );
    assert!(rel < 1e-4, "period relative error {rel}");
    assert!(phi < 1e-8, "constraint residual {phi}");
    assert!(
        sim.log
            .iter()
            .any(|l| l.starts_with("dynamic analysis: WSTIFF, I3, ERROR = 1e-6")),
        "{:?}",
        sim.log
    );
}

/// Planar four-bar (three redundant equations deactivated): |Φ| < 1e-8 at
/// every output with WSTIFF at ERROR = 1e-4.
#[test]
fn wstiff_four_bar_constraints() {
    let mut sim = Simulation::new(&models::four_bar()).unwrap();
    let st = sim.dynamic(2.0, None, Some(0.01), &wstiff(1e-4)).unwrap();
    let worst = worst_phi(&sim);
    println!(
        "WSTIFF four-bar: max |Phi| = {worst:.2e} over {} outputs, {} steps",
        sim.frames.len(),
        st.steps
    );
    assert_eq!(sim.frames.len(), 201);
    assert!(worst < 1e-8, "constraint violation {worst}");
}

/// Largest deviation from the closed form relative to x0 over the outputs
/// of `sim` (spring-mass released from x0 = 0.1).
fn spring_error(sim: &Simulation, k: f64, c: f64) -> f64 {
    let x0 = 0.1;
    sim.frames
        .iter()
        .map(|f| ((f.q[0] - 1.0) - models::spring_mass_exact(1.0, k, c, x0, f.t)).abs())
        .fold(0.0, f64::max)
        / x0
}

fn spring_run(k: f64, c: f64, settings: &IntegratorSettings) -> (f64, Statistics) {
    let mut sim = Simulation::new(&models::spring_mass(1.0, k, c, 0.1)).unwrap();
    let st = sim.dynamic(1.0, None, Some(0.01), settings).unwrap();
    (spring_error(&sim, k, c), st)
}

/// The seeds' spring pair, as GSTIFF is tested: K = 1e4, C = 2 within 1e-3
/// of the amplitude at ERROR = 1e-8; K = 1e8, C = 2e4 (critically damped at
/// 1e4 rad/s) within 1e-4 at ERROR = 1e-4 in fewer than 400 steps for 1 s.
/// Stiff stability: continued past the transient (t = 0.05 s, e^{−500}),
/// the run to 1 s restarts at order 1 and HINIT and needs no step near the
/// 1e-4 s time scale of the decayed mode (smallest step ≥ 4e-4, the
/// start-up HINIT is 5e-4) and fewer than 120 steps: HMAX = DTOUT = 0.01
/// makes 95 the floor, a 1e-4 step would need 9500.
#[test]
fn wstiff_spring_pair_and_stiff_stability() {
    let (soft, soft_st) = spring_run(1e4, 2.0, &wstiff(1e-8));
    let (gsoft, gsoft_st) = spring_run(1e4, 2.0, &gstiff(1e-8));
    println!(
        "K=1e4, C=2: WSTIFF max relative error {soft:.2e}, {} steps; GSTIFF {gsoft:.2e}, {} steps",
        soft_st.steps, gsoft_st.steps
    );
    assert!(soft < 1e-3, "soft spring error {soft}");
    let (stiff, stiff_st) = spring_run(1e8, 2e4, &wstiff(1e-4));
    let (gstiff_err, gstiff_st) = spring_run(1e8, 2e4, &gstiff(1e-4));
    println!(
        "K=1e8, C=2e4: WSTIFF max relative error {stiff:.2e}, {} steps (step {:.2e}..{:.2e}); GSTIFF {gstiff_err:.2e}, {} steps",
        stiff_st.steps, stiff_st.min_step, stiff_st.max_step, gstiff_st.steps
    );
    assert!(stiff < 1e-4, "stiff spring error {stiff}");
    assert!(
        stiff_st.steps < 400,
        "stiff spring took {} steps",
        stiff_st.steps
    );

    let mut sim = Simulation::new(&models::spring_mass(1.0, 1e8, 2e4, 0.1)).unwrap();
    let transient = sim.dynamic(0.05, None, Some(0.01), &wstiff(1e-4)).unwrap();
    let after = sim.dynamic(1.0, None, Some(0.01), &wstiff(1e-4)).unwrap();
    let err = spring_error(&sim, 1e8, 2e4);
    println!(
        "K=1e8, C=2e4 in two runs: 0..0.05 s {} steps (smallest {:.2e}), 0.05..1 s {} steps (smallest {:.2e}, largest {:.2e}), max relative error {err:.2e}",
        transient.steps, transient.min_step, after.steps, after.min_step, after.max_step
    );
    assert!(
        after.min_step >= 4e-4,
        "step {:.2e} after the transient",
        after.min_step
    );
    assert!(
        after.steps < 120,
        "{} steps after the transient",
        after.steps
    );
    assert!(err < 1e-4, "error {err}");
}

/// A force that switches on between output times (t0 = 0.505) on an
/// undamped spring-mass (K = 100, M = 1), as GSTIFF's test: WSTIFF rejects
/// steps at the jump (logged at t = 5.0…e-1), recovers, and the response
/// after it matches x = (F/K)(1 − cos ω(t − t0)) within 2% of its amplitude.
#[test]
fn wstiff_force_discontinuity_rejects_and_recovers() {
    let (k, f, t0) = (100.0, 5.0, 0.505);
    let mut sim = Simulation::new(&switched_force_spring(k, f, t0)).unwrap();
    let stats = sim.dynamic(1.5, None, Some(0.01), &wstiff(1e-6)).unwrap();
    let amp = f / k;
    let worst = switched_force_error(&sim.frames, k, f, t0);
    let failures: Vec<&String> = sim
        .log
        .iter()
        .filter(|l| l.starts_with("integration failure") || l.starts_with("corrector failure"))
        .collect();
    println!(
        "WSTIFF discontinuity: {} steps, {} rejected, {} corrector failures, max error {:.2e} (amplitude {amp}); first failure: {:?}",
        stats.steps,
        stats.rejected_steps,
        stats.corrector_failures,
        worst,
        failures.first()
    );
    assert!(
        stats.rejected_steps + stats.corrector_failures > 0,
        "the jump must cause a rejection"
    );
    assert!(
        failures.iter().any(|l| l.contains("t = 5.0")),
        "a failure is logged at the jump: {failures:?}"
    );
    assert!(
        failures.iter().any(|l| l.contains("PART/")),
        "the failure names the variable: {failures:?}"
    );
    assert!(worst < 2e-2 * amp, "error after recovery {worst}");
}

/// PATTERN = F (adaptive Jacobian) for WSTIFF, as for GSTIFF: on the
/// four-bar fewer Jacobian evaluations than the default pattern, fewer than
/// 5 corrector failures, and an error against a tight WSTIFF reference no
/// worse than 2× the default's with |Φ| < 1e-8; on the stiff spring
/// (K = 1e8, C = 2e4) the closed form within 1e-4 of the amplitude.
#[test]
fn wstiff_adaptive_pattern_saves_jacobians() {
    let run = |pattern: Option<Vec<bool>>, error: f64| {
        let mut sim = Simulation::new(&models::four_bar()).unwrap();
        let s = IntegratorSettings {
            pattern,
            ..wstiff(error)
        };
        let st = sim.dynamic(2.0, None, Some(0.01), &s).unwrap();
        (sim, st)
    };
    let (reference, _) = run(None, 1e-9);
    let err = |sim: &Simulation| {
        let mut dev = 0.0f64;
        for (a, b) in sim.frames.iter().zip(&reference.frames) {
            for i in 0..a.q.len() {
                dev = dev.max((a.q[i] - b.q[i]).abs());
            }
        }
        dev
    };
    let (adaptive, st_f) = run(Some(vec![false]), 1e-5);
    let (default, st_d) = run(None, 1e-5);
    let (e_f, e_d) = (err(&adaptive), err(&default));
    let phi = worst_phi(&adaptive);
    println!(
        "WSTIFF four-bar PATTERN=F: {} Jacobians, {} steps, {} corrector failures, error {e_f:.2e}; default: {} Jacobians, {} steps, error {e_d:.2e}; |Phi| {phi:.2e}",
        st_f.jacobian_evaluations, st_f.steps, st_f.corrector_failures, st_d.jacobian_evaluations, st_d.steps
    );
    assert!(5 * st_f.jacobian_evaluations < 4 * st_d.jacobian_evaluations);
    assert!(st_f.corrector_failures < 5);
    assert!(e_f < 2.0 * e_d && phi < 1e-8, "{e_f} {e_d} {phi}");

    let s = IntegratorSettings {
        pattern: Some(vec![false]),
        ..wstiff(1e-4)
    };
    let mut sim = Simulation::new(&models::spring_mass(1.0, 1e8, 2e4, 0.1)).unwrap();
    let st = sim.dynamic(1.0, None, Some(0.01), &s).unwrap();
    let worst = spring_error(&sim, 1e8, 2e4);
    println!(
        "WSTIFF stiff spring PATTERN=F: {} Jacobians, {} steps, relative error {worst:.2e}",
        st.jacobian_evaluations, st.steps
    );
    assert!(worst < 1e-4, "{worst}");
}
