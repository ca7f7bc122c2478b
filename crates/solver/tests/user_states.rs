#![allow(clippy::needless_range_loop)]
//! User states (DIFF): a first-order lag against its closed form with every
//! first-order integrator and formulation, the implicit form against the
//! explicit one, HHT and NEWMARK on the lag, and the iteration matrices of I3,
//! SI2 and SI1 against finite differences with forces and DIFFs that read
//! DIF and DIF1.

mod common;
use common::user_states::{coupled_states_model, diff, function, lag_diff, lag_exact, TAU};
use common::*;

use mbsolve_model::*;
use mbsolve_solver::Simulation;

/// A model with nothing but the lag DIFF (explicit, or implicit with the
/// residual y' − (sin t − y)/τ = 0).
fn lag_model(implicit: bool) -> Model {
    let mut m = Model::new("lag");
    m.parts.push(Part::ground(1));
    m.diffs.push(lag_diff(implicit));
    m
}

/// Largest |y − y_exact| over 40 outputs to t = 2 and the last frame's y'.
fn lag_error(model: &Model, s: &IntegratorSettings) -> Result<(f64, Vec<(f64, f64)>), String> {
    let mut sim = Simulation::new(model).map_err(|e| e.to_string())?;
    sim.dynamic(2.0, Some(40), None, s)
        .map_err(|e| e.to_string())?;
    let err = sim
        .frames
        .iter()
        .map(|f| (f.w[0] - lag_exact(f.t)).abs())
        .fold(0.0, f64::max);
    let rates = sim.frames.iter().map(|f| (f.t, f.wp[0])).collect();
    Ok((err, rates))
}

const FIRST_ORDER_PAIRS: [(IntegratorKind, Formulation); 7] = [
    (IntegratorKind::Gstiff, Formulation::I3),
    (IntegratorKind::Wstiff, Formulation::I3),
    (IntegratorKind::ConstantBdf, Formulation::I3),
    (IntegratorKind::Gstiff, Formulation::Si2),
    (IntegratorKind::Wstiff, Formulation::Si2),
    (IntegratorKind::Hastiff, Formulation::Si1),
    (IntegratorKind::Hastiff, Formulation::Si2),
];

/// The lag against its closed form with every first-order (integrator,
/// formulation) pair at ERROR = 1e-6 (CONSTANT_BDF at HMAX = 1e-3): the
/// user state is error-controlled (class UserState). Measured (printed)
/// 5.8e-7 … 2.5e-6, CONSTANT_BDF 1.4e-5; the bound is 2e-5. The reported
/// rate w' is the right-hand side at the output (checked against the exact
/// derivative to the same tolerance scaled by 1/τ).
#[test]
fn first_order_lag_matches_closed_form_with_every_first_order_pair() {
    let model = lag_model(false);
    for (kind, form) in FIRST_ORDER_PAIRS {
        let mut s = settings(kind, form, 1e-6);
        if kind == IntegratorKind::ConstantBdf {
            // A fixed step (HMAX) rather than ERROR sets its accuracy.
            s.hmax = Some(1e-3);
        }
        let (err, rates) = lag_error(&model, &s).unwrap();
        let rate_err = rates
            .iter()
            .map(|&(t, r)| (r - (t.sin() - lag_exact(t)) / TAU).abs())
            .fold(0.0, f64::max);
        println!(
            "lag {}/{form:?}: |y − exact| ≤ {err:.2e}, |y' − exact| ≤ {rate_err:.2e}",
            kind.name()
        );
        assert!(err < 2e-5, "{}/{form:?}: error {err:.2e}", kind.name());
        assert!(
            rate_err < 2e-5 / TAU,
            "{}/{form:?}: rate error {rate_err:.2e}",
            kind.name()
        );
    }
}

/// Tolerance proportionality: GSTIFF I3's lag error shrinks with ERROR
/// (at least 10× from 1e-4 to 1e-7), which it would not if the user state
/// were outside error control.
#[test]
fn lag_error_follows_error_tolerance() {
    let model = lag_model(false);
    let coarse = lag_error(
        &model,
        &settings(IntegratorKind::Gstiff, Formulation::I3, 1e-4),
    )
    .unwrap()
    .0;
    let fine = lag_error(
        &model,
        &settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
    )
    .unwrap()
    .0;
    println!("lag GSTIFF/I3: error {coarse:.2e} at ERROR 1e-4, {fine:.2e} at 1e-7");
    assert!(fine * 10.0 < coarse, "{coarse:.2e} → {fine:.2e}");
}

/// The implicit form F = y' − (sin t − y)/τ = 0 (started from a wrong
/// IC rate 0, which the initial conditions correct) gives the explicit
/// form's solution: both within 2e-5 of the closed form, and the initial
/// rate solved to (sin 0 − y0)/τ = −2.5.
#[test]
fn implicit_diff_equals_explicit() {
    for (kind, form) in [
        (IntegratorKind::Gstiff, Formulation::I3),
        (IntegratorKind::Wstiff, Formulation::Si2),
    ] {
        let s = settings(kind, form, 1e-6);
        let (ei, rates) = lag_error(&lag_model(true), &s).unwrap();
        let (ee, _) = lag_error(&lag_model(false), &s).unwrap();
        println!(
            "implicit lag {}/{form:?}: error {ei:.2e} (explicit {ee:.2e})",
            kind.name()
        );
        assert!(ei < 2e-5 && ee < 2e-5);
        assert!(
            (rates[0].1 + 2.5).abs() < 1e-9,
            "initial rate {}",
            rates[0].1
        );
    }
}

/// HHT and NEWMARK carry the user states with the first-order analogue of
/// their α-method (integrate `hht.rs` notes), error-controlled: the lag,
/// explicit and implicit, against its closed form at ERROR = 1e-6 within
/// 2e-5 (HHT, measured 9.7e-6) and 3e-4 (NEWMARK, first order, measured
/// 1.3e-4); the first frame's rate is the consistent one.
#[test]
fn hht_and_newmark_integrate_the_lag() {
    for (kind, bound) in [(IntegratorKind::Hht, 2e-5), (IntegratorKind::Newmark, 3e-4)] {
        for implicit in [false, true] {
            let (e, rates) =
                lag_error(&lag_model(implicit), &settings(kind, Formulation::I3, 1e-6)).unwrap();
            println!("{} implicit={implicit}: lag error {e:.2e}", kind.name());
            assert!(e < bound, "{} implicit={implicit}: {e}", kind.name());
            assert!(
                (rates[0].1 + 2.5).abs() < 1e-9,
                "initial rate {}",
                rates[0].1
            );
        }
    }
}

/// The driven slider-crank with a spring-damper, plus DIFF/1 (explicit,
/// reading the slider's DX and VX and DIF(2)), DIFF/2 (implicit, reading
/// DIF1(1)) and an SFORCE that reads DIF(1) and DIF1(2): every coupling of
/// states, forces and mechanics.
fn coupled_model() -> Simulation {
    let model = coupled_states_model();
    let mut sim = Simulation::new(&model).unwrap();
    sim.initial_conditions().unwrap();
    sim
}

/// I3, SI2 and SI1 iteration matrices (∂G/∂y + c ∂G/∂y') against central
/// differences of the residual, with the user-state columns of the force
/// rows (SFORCE reading DIF and DIF1), the DIFF rows' q, u, w and w'
/// columns, at c = 40. Tolerance 1e-6 relative; measured (printed) ~1e-9.
#[test]
fn jacobians_with_user_states_match_finite_differences() {
    let sim = coupled_model();
    assert_eq!(sim.sys.nw(), 2);
    assert_formulation_jacobians("DIFF", &sim);
}

/// The coupled model integrates with GSTIFF I3 and SI2 to the same answer
/// (the states, the forces that read them and the mechanics together):
/// DIF(1) at t = 1 agrees to 1e-4 between the two formulations.
#[test]
fn coupled_states_agree_between_formulations() {
    let mut finals = Vec::new();
    for form in [Formulation::I3, Formulation::Si2] {
        let mut sim = coupled_model();
        sim.dynamic(
            1.0,
            Some(20),
            None,
            &settings(IntegratorKind::Gstiff, form, 1e-6),
        )
        .unwrap();
        let last = sim.frames.last().unwrap();
        finals.push((last.w[0], last.w[1]));
    }
    println!(
        "coupled DIF(1), DIF(2) at t = 1: I3 {:?}, SI2 {:?}",
        finals[0], finals[1]
    );
    assert!((finals[0].0 - finals[1].0).abs() < 1e-4);
    assert!((finals[0].1 - finals[1].1).abs() < 1e-4);
}

/// The spring-mass slider (k = 100 from free length 1, no gravity) with an
/// SFORCE 20 − 40·DIF(1) and DIFF/1 lagging the stretch x = DM − 1,
/// y' = (x − y)/0.1, plus DIFF/2 integrating the stretch (y' = x, IC 3).
/// At a static equilibrium y' = 0 gives y = x, so −100 x + 20 − 40 x = 0:
/// x = 1/7; with STATIC_HOLD the state keeps IC = 0 and x = 20/100. DIFF/2's
/// equation does not depend on its state: it is held at 3 (and logged).
#[test]
fn statics_solve_user_states_or_hold_them() {
    for (hold, x_exact, y_exact) in [(false, 1.0 / 7.0, 1.0 / 7.0), (true, 0.2, 0.0)] {
        let mut model = mbsolve_solver::models::spring_mass(2.0, 100.0, 0.0, 0.3);
        model.forces.push(Force {
            id: 2,
            i: 20,
            j: 10,
            kind: ForceKind::TranslationalActionReaction {
                function: function("20 - 40*DIF(1)"),
            },
        });
        let mut lag = diff(1, "(DM(20,10) - 1 - DIF(1))/0.1", false, 0.0, None);
        lag.static_hold = hold;
        model.diffs.push(lag);
        model.diffs.push(diff(2, "DM(20,10) - 1", false, 3.0, None));
        let mut sim = Simulation::new(&model).unwrap();
        let set = fim_s(1e-10);
        sim.static_equilibrium(&set).unwrap();
        let x = sim.state.q[0] - 1.0;
        let last = sim.frames.last().unwrap();
        println!(
            "statics (STATIC_HOLD {hold}): x = {x:.12}, DIF(1) = {:.12}",
            last.w[0]
        );
        assert!((x - x_exact).abs() < 1e-9, "x = {x}");
        assert!((last.w[0] - y_exact).abs() < 1e-9, "DIF(1) = {}", last.w[0]);
        assert_eq!(last.w[1], 3.0);
        assert!(
            sim.log
                .iter()
                .any(|l| l.contains("statics: DIFF/2 held at their values")),
            "{:?}",
            sim.log
        );
    }
}

/// MKEAM integrates the mechanics alone: a model with a DIFF is refused
/// naming it and the method that does carry user states.
#[test]
fn mkeam_rejects_user_states_by_name() {
    let mut sim = Simulation::new(&lag_model(false)).unwrap();
    let set = StaticSettings {
        method: Some(StaticMethod::Mkeam),
        ..Default::default()
    };
    let e = sim.static_equilibrium(&set).unwrap_err().to_string();
    assert!(
        e.contains(
            "DIFF/1: MKEAM does not carry user states (DIFF, LSE, TFSISO) yet; use method = FIM_S"
        ),
        "{e}"
    );
}

/// MotionSolve's DAE form (DSTIFF, dae_index 3 → I3 and 1 → SI1) carries
/// the user states too: the lag within 2e-5 of its closed form at
/// integr_tol = 1e-6 (measured, printed: ~1e-6); so does the ODE form
/// (VSTIFF, y = (q_I, u_I, w)), on a model without moving parts.
#[test]
fn dstiff_and_the_ode_form_integrate_user_states() {
    use mbsolve_solver::settings::{ParamTransient, TransientIntegrator};
    let mut runs: Vec<(&str, ParamTransient)> =
        [("DSTIFF dae_index 3", "3"), ("DSTIFF dae_index 1", "1")]
            .into_iter()
            .map(|(name, index)| {
                let attributes = [("integr_tol", "1e-6", "test"), ("dae_index", index, "test")];
                (name, ParamTransient::from_attributes(&attributes).unwrap())
            })
            .collect();
    let vstiff = ParamTransient::builder()
        .integrator_type(TransientIntegrator::Vstiff)
        .integr_tol(1e-6)
        .build()
        .unwrap();
    runs.push(("VSTIFF (ODE form)", vstiff));
    for (name, p) in runs {
        let mut sim = Simulation::new(&lag_model(false)).unwrap();
        sim.dynamic_transient(2.0, Some(40), None, &p).unwrap();
        let err = sim
            .frames
            .iter()
            .map(|f| (f.w[0] - lag_exact(f.t)).abs())
            .fold(0.0, f64::max);
        println!("lag {name}: error {err:.2e}");
        assert!(err < 2e-5, "{name}: {err:.2e}");
    }
}
