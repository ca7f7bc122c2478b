//! User-state (DIFF) models shared by the DAE formulations' tests
//! (tests/user_states.rs) and the ODE form's (tests/ode_user_states.rs).

use mbsolve_expr::{Expr, ExprStateFunction};
use mbsolve_model::*;
use std::sync::Arc;

/// A state function parsed from Adams function text.
pub fn function(text: &str) -> Arc<dyn StateFunction> {
    Arc::new(ExprStateFunction::new(Expr::parse(text).unwrap()).unwrap())
}

pub fn diff(id: Id, text: &str, implicit: bool, ic: f64, ic_rate: Option<f64>) -> Diff {
    Diff {
        id,
        function: function(text),
        implicit,
        ic,
        ic_rate,
        static_hold: false,
    }
}

/// The driven slider-crank with a spring-damper, plus DIFF/1 (explicit,
/// reading the slider's DX and VX and DIF(2)), DIFF/2 (implicit, reading
/// DIF1(1)) and an SFORCE that reads DIF(1) and DIF1(2): every coupling of
/// states, forces and mechanics.
pub fn coupled_states_model() -> Model {
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
    model
}

/// Lag time constant and initial value of the lag tests.
pub const TAU: f64 = 0.2;
pub const Y0: f64 = 0.5;

/// y' = (sin t − y)/τ, y(0) = y0: y = A e^{−t/τ} + (sin t − τ cos t)/(1 + τ²)
/// with A = y0 + τ/(1 + τ²).
pub fn lag_exact(t: f64) -> f64 {
    let k = 1.0 + TAU * TAU;
    (Y0 + TAU / k) * (-t / TAU).exp() + (t.sin() - TAU * t.cos()) / k
}

/// DIFF/1, the lag: explicit, or implicit with the residual
/// y' − (sin t − y)/τ = 0 from a wrong IC rate 0.
pub fn lag_diff(implicit: bool) -> Diff {
    if implicit {
        diff(1, "DIF1(1) - (SIN(TIME) - DIF(1))/0.2", true, Y0, Some(0.0))
    } else {
        diff(1, "(SIN(TIME) - DIF(1))/0.2", false, Y0, None)
    }
}
