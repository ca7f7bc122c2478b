//! The ODE form (coordinate partitioning) with ABAM and RKF45 on the
//! bundled mechanisms: period, constraint residuals at every output,
//! repartitions named in the log, the slider-crank against its closed form,
//! and the settings' names and ranges.

mod common;

use common::accuracy::pendulum_exact;
use common::{crossings, pendulum_period, worst_phi};
use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings};
use mbsolve_solver::formulation::DaeFormulation;
use mbsolve_solver::models;
use mbsolve_solver::partition::Ode;
use mbsolve_solver::settings::{validate, MethodParams};
use mbsolve_solver::Simulation;

fn ode_settings(kind: IntegratorKind, error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        kind_given: true,
        error: Some(error),
        ..Default::default()
    }
}

const METHODS: [IntegratorKind; 2] = [IntegratorKind::Abam, IntegratorKind::Rkf45];

/// Pendulum released horizontally, 3 s at ERROR 1e-7: the half-period from
/// two zero crossings within 1e-4 of the elliptic-integral period, |Φ| ≤
/// 1e-9 at every output (the Newton tolerance 1e-10 plus output
/// rounding), and at least one repartition: the rod passes the bottom,
/// where the coordinate first chosen dependent (x, pivot 2x = 2 m at the
/// start) has a zero column in Φ_q.
#[test]
fn pendulum_period_residual_and_repartition() {
    let exact = pendulum_period(1.0, 9.81);
    for kind in METHODS {
        let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
        let stats = sim
            .dynamic(3.0, None, Some(0.01), &ode_settings(kind, 1e-7))
            .unwrap();
        let c = crossings(&sim.frames);
        assert!(c.len() >= 2, "{kind:?}: crossings {c:?}");
        let rel = (2.0 * (c[1] - c[0]) - exact).abs() / exact;
        let phi = worst_phi(&sim);
        let repartitions: Vec<&String> = sim
            .log
            .iter()
            .filter(|l| l.contains("new independent coordinates"))
            .collect();
        eprintln!(
            "{kind:?}: period error {rel:.2e}, max |Phi| {phi:.2e}, {} steps, {} f-evaluations, {} repartitions; first: {:?}",
            stats.steps,
            stats.residual_evaluations,
            repartitions.len(),
            repartitions.first()
        );
        if std::env::var("ODE_LOG").is_ok() {
            eprintln!("{}", sim.log.join("\n"));
        }
        assert!(rel < 1e-4, "{kind:?}: period error {rel:e}");
        assert!(phi < 1e-9, "{kind:?}: |Phi| {phi:e}");
        assert!(!repartitions.is_empty(), "{kind:?}: no repartition");
        // Not stiff, and no evaluation failed near the turning points.
        assert!(
            !sim.log
                .iter()
                .any(|l| l.contains("appears stiff") || l.contains("did not converge")),
            "{kind:?}: {:#?}",
            sim.log
        );
        assert!(repartitions[0].contains("PART/2"), "{}", repartitions[0]);
    }
}

/// Slider-crank (r = 0.1, l = 0.4) driven at ω = 2π: the slider position
/// against the closed form within 1e-6 m over 1 s at ERROR 1e-8.
#[test]
fn slider_crank_against_the_closed_form() {
    let (r, l, omega) = (0.1, 0.4, 2.0 * std::f64::consts::PI);
    for kind in METHODS {
        let mut sim = Simulation::new(&models::slider_crank(r, l, omega)).unwrap();
        sim.dynamic(1.0, None, Some(0.01), &ode_settings(kind, 1e-8))
            .unwrap();
        let mut worst = 0.0f64;
        for f in &sim.frames {
            let exact = models::slider_crank_exact(r, l, omega, f.t);
            // Slider: the third part (ground, crank, rod, slider).
            let x = f.q[2 * 7];
            worst = worst.max((x - exact[0]).abs());
        }
        eprintln!("{kind:?}: slider-crank max slider error {worst:.2e}");
        assert!(worst < 1e-6, "{kind:?}: slider error {worst:e}");
    }
}

/// The Adams names and ranges: KMAX for ABAM is 1..12 (default 12),
/// VSTIFF 1..5, MSTIFF 1..9; RKF45 has one order and rejects KMAX by name;
/// INTERPOLATE is accepted (the ODE form interpolates, see
/// `interpolated_outputs_recover_the_dependent_coordinates`); a
/// formulation other than ODE is refused.
#[test]
fn settings_of_the_ode_form() {
    let abam = ode_settings(IntegratorKind::Abam, 1e-4);
    match validate(&abam, 0.01).unwrap().method {
        MethodParams::Ode(p) => {
            assert_eq!(p.max_order, 12);
            assert_eq!(p.h0_max, 0.01 / 20.0);
            assert_eq!(p.maxit, 10);
        }
        other => panic!("{other:?}"),
    }
    let e = validate(
        &IntegratorSettings {
            kmax: Some(13),
            ..abam.clone()
        },
        0.01,
    )
    .unwrap_err();
    assert_eq!(e, "INTEGRATOR: KMAX = 13 must be from 1 to 12");
    let e = validate(
        &IntegratorSettings {
            kmax: Some(4),
            ..ode_settings(IntegratorKind::Rkf45, 1e-4)
        },
        0.01,
    )
    .unwrap_err();
    assert!(
        e.contains("KMAX applies only to") && e.contains("not to RKF45"),
        "{e}"
    );
    let on = validate(
        &IntegratorSettings {
            interpolate: Some(true),
            ..abam.clone()
        },
        0.01,
    )
    .unwrap();
    assert!(on.interpolate());
    let e = validate(
        &IntegratorSettings {
            formulation: Some(Formulation::I3),
            ..abam.clone()
        },
        0.01,
    )
    .unwrap_err();
    assert!(e.contains("I3 is not available with ABAM"), "{e}");
    // VSTIFF and MSTIFF: KMAX up to their own highest order (5, 9).
    for (kind, top) in [(IntegratorKind::Vstiff, 5), (IntegratorKind::Mstiff, 9)] {
        match validate(&ode_settings(kind, 1e-4), 0.01).unwrap().method {
            MethodParams::Ode(p) => assert_eq!(p.max_order, top),
            other => panic!("{other:?}"),
        }
        let e = validate(
            &IntegratorSettings {
                kmax: Some(top as i64 + 1),
                ..ode_settings(kind, 1e-4)
            },
            0.01,
        )
        .unwrap_err();
        assert_eq!(
            e,
            format!("INTEGRATOR: KMAX = {} must be from 1 to {top}", top + 1)
        );
    }
}

/// The seeds' stiff spring (M = 1, K = 1e8, C = 2e4, critically damped,
/// eigenvalues −1e4 twice), 0.1 s at the default ERROR: ABAM and RKF45 stay
/// stable only by holding h·1e4 at their stability boundary (ABAM 0.18…2.4
/// by order, RKF45 3.7), i.e. h ≲ 4e-4 where the decayed solution would
/// allow far larger steps; both say so in the log with advice to use
/// VSTIFF, and the motion has decayed (|x| < 1e-6 after 0.05 s).
#[test]
fn stiff_spring_is_detected_and_vstiff_advised() {
    for kind in METHODS {
        let mut sim = Simulation::new(&models::spring_mass(1.0, 1e8, 2e4, 0.01)).unwrap();
        let st = sim
            .dynamic(
                0.1,
                Some(20),
                None,
                &IntegratorSettings {
                    error: None,
                    ..ode_settings(kind, 0.0)
                },
            )
            .unwrap();
        let advice = sim.log.iter().find(|l| l.contains("appears stiff"));
        eprintln!(
            "{kind:?} on the stiff spring: {} steps, {} rejected, {} f-evaluations, h in [{:.2e}, {:.2e}]; {advice:?}",
            st.steps, st.rejected_steps, st.residual_evaluations, st.min_step, st.max_step
        );
        let advice = advice.unwrap_or_else(|| panic!("{kind:?}: no stiffness advice"));
        assert!(advice.contains("VSTIFF"), "{advice}");
        assert!(st.steps as f64 > 0.1 / 4e-4, "{kind:?}: {} steps", st.steps);
        let late = sim
            .frames
            .iter()
            .filter(|f| f.t >= 0.05)
            .map(|f| (f.q[0] - 1.0).abs())
            .fold(0.0, f64::max);
        assert!(late < 1e-6, "{kind:?}: |x| = {late:e}");
    }
}

/// MotionSolve's ODE-form attributes (SPEC §3): from a `.xml` origin the
/// messages use its names, `h0_max` defaults to 1e-8, `vel_tol_factor` and
/// `rel_abs_tol_ratio` reach the error weights (a looser velocity
/// tolerance takes fewer steps on the pendulum), must be > 0, and are
/// refused by name for a DAE-form integrator.
#[test]
fn motionsolve_ode_form_attributes() {
    let xml = IntegratorSettings {
        vel_tol_factor: Some(1000.0),
        rel_abs_tol_ratio: Some(0.1),
        origin: Some("m.xml:4:3".into()),
        ..ode_settings(IntegratorKind::Abam, 1e-6)
    };
    match validate(&xml, 0.01).unwrap().method {
        MethodParams::Ode(p) => {
            assert_eq!((p.vel_tol_factor, p.rel_abs_tol_ratio), (1000.0, 0.1));
            assert_eq!(p.h0_max, 1e-8);
            assert_eq!(p.max_order, 12);
        }
        other => panic!("{other:?}"),
    }
    let e = validate(
        &IntegratorSettings {
            kmax: Some(20),
            ..xml.clone()
        },
        0.01,
    )
    .unwrap_err();
    assert_eq!(
        e,
        "m.xml:4:3: Param_Transient: max_order = 20 must be from 1 to 12"
    );
    let e = validate(
        &IntegratorSettings {
            vel_tol_factor: Some(-1.0),
            ..xml.clone()
        },
        0.01,
    )
    .unwrap_err();
    assert_eq!(
        e,
        "m.xml:4:3: Param_Transient: vel_tol_factor = -1 must be > 0"
    );
    let e = validate(
        &IntegratorSettings {
            kind: IntegratorKind::Gstiff,
            ..xml.clone()
        },
        0.01,
    )
    .unwrap_err();
    assert!(
        e.ends_with("vel_tol_factor applies only to the ODE form (ABAM, RKF45, VSTIFF, MSTIFF), not to GSTIFF"),
        "{e}"
    );
    let steps = |factor: f64| {
        let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
        let s = IntegratorSettings {
            vel_tol_factor: Some(factor),
            hmax: Some(1.0),
            ..ode_settings(IntegratorKind::Rkf45, 1e-8)
        };
        sim.dynamic(1.0, Some(10), None, &s).unwrap().steps
    };
    let (tight, loose) = (steps(1.0), steps(1e4));
    assert!(loose < tight, "steps: factor 1 {tight}, factor 1e4 {loose}");
}

/// INTERPOLATE = ON in the ODE form, for all four methods: the pendulum
/// (released horizontally, 3 s, through two repartitions) at ERROR 1e-6
/// with outputs every 2 ms, driven output by output through the
/// partitioned integrator itself (no reconciliation by the driver). Every
/// output is interpolated from the method's dense output (or, within a
/// step that ended in a repartition, from the full states at its ends)
/// with the dependent coordinates recovered by the partition's Newton
/// iteration: the active constraints hold to the Newton tolerance (the
/// plan's constraint tolerance) at every output, the steps pass the
/// outputs (largest step > 2 ms), and the interpolated CM is as close to
/// the converged reference as the accepted steps are: within their
/// largest error plus 30 × ERROR (and within the conformance suite's
/// 1e-3 m). RKF45's interpolant is the cubic Hermite of its step ends, of
/// third order against its fifth-order steps: at steps up to 0.09 s it
/// adds 2.1e-5 (measured: 4.3e-5 interpolated, 2.2e-5 at the step ends);
/// the others add less than ERROR.
#[test]
fn interpolated_outputs_recover_the_dependent_coordinates() {
    let kinds = [
        IntegratorKind::Abam,
        IntegratorKind::Rkf45,
        IntegratorKind::Vstiff,
        IntegratorKind::Mstiff,
    ];
    for kind in kinds {
        let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
        sim.initial_conditions().unwrap();
        let settings = IntegratorSettings {
            interpolate: Some(true),
            ..ode_settings(kind, 1e-6)
        };
        let dt = 0.002;
        let plan = validate(&settings, dt).unwrap();
        let tol = plan.constraint_tolerance();
        let start = sim.state.clone();
        let mut segment = Ode.segment(&sim.sys, &sim.data, &start, tol);
        let mut integ = segment.integrator(&plan, &start).unwrap();
        let n = sim.sys.nq();
        let (mut y, mut yp) = (vec![0.0; 2 * n], vec![0.0; 2 * n]);
        let mut phi = vec![0.0; sim.sys.neq()];
        let mut data = sim.data.clone();
        let (mut worst_phi, mut worst_error) = (0.0f64, 0.0f64);
        let mut worst_step_error = 0.0f64;
        for k in 1..=1500 {
            let t = dt * k as f64;
            integ.advance_past(t).unwrap();
            assert!(integ.time() >= t);
            assert!(integ.interpolate(t, &mut y, &mut yp), "{kind:?} at t = {t}");
            sim.sys.constraints(&mut data, &y[..n], t, &mut phi);
            let active = (0..phi.len()).filter(|&r| data.active[r]);
            worst_phi = active.fold(worst_phi, |w, r| w.max(phi[r].abs()));
            let error = |q: &[f64], t: f64| {
                let exact = pendulum_exact(t);
                (q[0] - exact[0]).abs().max((q[1] - exact[1]).abs())
            };
            worst_error = worst_error.max(error(&y, t));
            worst_step_error = worst_step_error.max(error(integ.solution().0, integ.time()));
        }
        let stats = integ.statistics();
        let repartitions = integ
            .take_events()
            .iter()
            .filter(|e| e.to_string().contains("new independent coordinates"))
            .count();
        eprintln!(
            "{kind:?}: interpolated outputs: error {worst_error:.2e} (at the step ends {worst_step_error:.2e}), max |Phi| {worst_phi:.1e} (tolerance {tol:.0e}), {} steps (largest {:.2e}), {repartitions} repartitions",
            stats.steps, stats.max_step
        );
        assert!(repartitions >= 1, "{kind:?}: no repartition");
        assert!(
            stats.max_step > dt,
            "{kind:?}: largest step {:e}",
            stats.max_step
        );
        assert!(worst_phi <= tol, "{kind:?}: |Phi| {worst_phi:e} > {tol:e}");
        assert!(
            worst_error <= worst_step_error + 30.0 * 1e-6 && worst_error < 1e-3,
            "{kind:?}: error {worst_error:e}, at the step ends {worst_step_error:e}"
        );
    }
}
