//! User states (DIFF) in the ODE form: y = (q_I, u_I, w) with w
//! error-controlled. A first-order lag against its closed form with ABAM,
//! RKF45, VSTIFF and MSTIFF, the implicit DIFF (solved for w′ in each
//! evaluation) against the same closed form, and a slider-crank whose
//! SFORCE reads DIF and DIF1 against GSTIFF/I3.

mod common;

use common::user_states::{coupled_states_model, lag_diff, lag_exact, TAU};
use mbsolve_model::*;
use mbsolve_solver::Simulation;

const ODE_METHODS: [IntegratorKind; 4] = [
    IntegratorKind::Abam,
    IntegratorKind::Rkf45,
    IntegratorKind::Vstiff,
    IntegratorKind::Mstiff,
];

fn settings(
    kind: IntegratorKind,
    formulation: Option<Formulation>,
    error: f64,
) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        kind_given: true,
        formulation,
        error: Some(error),
        ..Default::default()
    }
}

/// The lag DIFF on a pendulum (so the ODE state also holds q_I, u_I):
/// explicit, or implicit with the residual y' − (sin t − y)/τ = 0 from a
/// wrong IC rate 0.
fn lag_model(implicit: bool) -> Model {
    let mut m = mbsolve_solver::models::pendulum(1.0, 9.81);
    m.diffs.push(lag_diff(implicit));
    m
}

/// Largest |y − exact| and |y' − exact| over 40 outputs to t = 2, and
/// the number of steps.
fn lag_error(model: &Model, s: &IntegratorSettings) -> (f64, f64, u64) {
    let mut sim = Simulation::new(model).unwrap();
    let stats = sim.dynamic(2.0, Some(40), None, s).unwrap();
    assert_eq!(sim.frames.len(), 41);
    let mut err = 0.0f64;
    let mut rate_err = 0.0f64;
    for f in &sim.frames {
        let exact = lag_exact(f.t);
        err = err.max((f.w[0] - exact).abs());
        rate_err = rate_err.max((f.wp[0] - (f.t.sin() - exact) / TAU).abs());
    }
    (err, rate_err, stats.steps)
}

/// The lag with every ODE method at ERROR 1e-6: within 2e-5 of the closed
/// form (the bound of the DAE formulations' lag test), its rate within
/// 2e-5/τ, and tolerance-proportional: 100× tighter ERROR gives at least
/// 10× smaller error (it would not if w were outside error control).
#[test]
fn first_order_lag_matches_closed_form_with_every_ode_method() {
    for implicit in [false, true] {
        let model = lag_model(implicit);
        for kind in ODE_METHODS {
            let (err, rate_err, steps) = lag_error(&model, &settings(kind, None, 1e-6));
            let (fine, _, fine_steps) = lag_error(&model, &settings(kind, None, 1e-8));
            println!(
                "lag {} (implicit {implicit}): |y − exact| ≤ {err:.2e} ({steps} steps), {fine:.2e} at ERROR 1e-8 ({fine_steps} steps); |y' − exact| ≤ {rate_err:.2e}",
                kind.name()
            );
            assert!(err < 2e-5, "{}: error {err:.2e}", kind.name());
            assert!(
                rate_err < 2e-5 / TAU,
                "{}: rate error {rate_err:.2e}",
                kind.name()
            );
            assert!(fine * 10.0 < err, "{}: {err:.2e} → {fine:.2e}", kind.name());
        }
    }
}

/// The DAE formulations' coupled user-state model (`coupled_states_model`:
/// a driven slider-crank, an explicit and an implicit DIFF and an SFORCE
/// reading DIF and DIF1). The ODE methods at ERROR 1e-7 agree with GSTIFF/I3 at 1e-8
/// on DIF(1), DIF(2) and the slider position at every output to 1e-4.
#[test]
fn coupled_states_agree_with_gstiff_i3() {
    let model = coupled_states_model();
    let run = |s: &IntegratorSettings| {
        let mut sim = Simulation::new(&model).unwrap();
        sim.dynamic(1.0, Some(20), None, s).unwrap();
        sim.frames
    };
    let reference = run(&settings(
        IntegratorKind::Gstiff,
        Some(Formulation::I3),
        1e-8,
    ));
    for kind in ODE_METHODS {
        let frames = run(&settings(kind, None, 1e-7));
        assert_eq!(frames.len(), reference.len());
        let mut worst = 0.0f64;
        for (f, r) in frames.iter().zip(&reference) {
            assert!((f.t - r.t).abs() < 1e-12);
            // Slider: the fourth part's x (ground, crank, rod, slider).
            let slider = (f.q[2 * 7] - r.q[2 * 7]).abs();
            worst = worst
                .max((f.w[0] - r.w[0]).abs())
                .max((f.w[1] - r.w[1]).abs())
                .max(slider);
        }
        println!(
            "coupled {}: worst difference from GSTIFF/I3 {worst:.2e}",
            kind.name()
        );
        assert!(worst < 1e-4, "{}: {worst:.2e}", kind.name());
    }
}
