//! User states (DIFF) in the ODE form: y = (q_I, u_I, w) with w
//! error-controlled. A first-order lag against its closed form with ABAM,
//! RKF45, VSTIFF and MSTIFF, the implicit DIFF (solved for w′ in each
//! evaluation) against the same closed form, and a slider-crank whose
//! SFORCE reads DIF and DIF1 against GSTIFF/I3.

use mbsolve_expr::{Expr, ExprStateFunction};
use mbsolve_model::*;
use mbsolve_solver::Simulation;
use std::sync::Arc;

const ODE_METHODS: [IntegratorKind; 4] = [
    IntegratorKind::Abam,
    IntegratorKind::Rkf45,
    IntegratorKind::Vstiff,
    IntegratorKind::Mstiff,
];

fn function(text: &str) -> Arc<dyn StateFunction> {
    Arc::new(ExprStateFunction::new(Expr::parse(text).unwrap()).unwrap())
}

fn diff(id: Id, text: &str, implicit: bool, ic: f64, ic_rate: Option<f64>) -> Diff {
    Diff {
        id,
        function: function(text),
        implicit,
        ic,
        ic_rate,
        static_hold: false,
    }
}

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

/// Lag time constant and initial value.
const TAU: f64 = 0.2;
const Y0: f64 = 0.5;

/// y' = (sin t − y)/τ, y(0) = y0: y = A e^{−t/τ} + (sin t − τ cos t)/(1 + τ²)
/// with A = y0 + τ/(1 + τ²).
fn lag_exact(t: f64) -> f64 {
    let k = 1.0 + TAU * TAU;
    (Y0 + TAU / k) * (-t / TAU).exp() + (t.sin() - TAU * t.cos()) / k
}

/// The lag DIFF on a pendulum (so the ODE state also holds q_I, u_I):
/// explicit, or implicit with the residual y' − (sin t − y)/τ = 0 from a
/// wrong IC rate 0.
fn lag_model(implicit: bool) -> Model {
    let mut m = mbsolve_solver::models::pendulum(1.0, 9.81);
    let d = if implicit {
        diff(1, "DIF1(1) - (SIN(TIME) - DIF(1))/0.2", true, Y0, Some(0.0))
    } else {
        diff(1, "(SIN(TIME) - DIF(1))/0.2", false, Y0, None)
    };
    m.diffs.push(d);
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

/// The driven slider-crank with a spring-damper, DIFF/1 (explicit, reading
/// the slider's DX and VX and DIF(2)), DIFF/2 (implicit, reading DIF1(1))
/// and an SFORCE reading DIF(1) and DIF1(2) (the model of the DAE
/// formulations' user-state tests): every coupling of states, forces and
/// mechanics. The ODE methods at ERROR 1e-7 agree with GSTIFF/I3 at 1e-8
/// on DIF(1), DIF(2) and the slider position at every output to 1e-4.
#[test]
fn coupled_states_agree_with_gstiff_i3() {
    let mut model = mbsolve_solver::models::slider_crank(0.5, 1.5, 3.0);
    model.forces.push(Force {
        id: 1,
        i: 40,
        j: 10,
        kind: ForceKind::TranslationalSpringDamper {
            stiffness: 200.0,
            damping: 5.0,
            free_length: 1.0,
            preload: 0.0,
        },
    });
    model.forces.push(Force {
        id: 2,
        i: 40,
        j: 10,
        kind: ForceKind::TranslationalActionReaction {
            function: function("-50*DIF(1)*DX(40,10) + 3*DIF1(2)"),
        },
    });
    model.diffs.push(diff(
        1,
        "(DX(40,10) - DIF(1))/0.3 + 0.5*VX(40,10)*DIF(2)",
        false,
        0.2,
        None,
    ));
    model.diffs.push(diff(
        2,
        "DIF1(2) + 2*DIF(2)*DIF(2) - DIF(1)*DIF1(1)",
        true,
        -0.1,
        Some(0.0),
    ));
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
