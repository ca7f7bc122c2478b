//! Step counts of the ODE-form integrators (issue 15) on the conformance
//! suite's problems, for before/after comparisons of the step loop:
//! the seeds' spring pair (M = 1, released 0.01 m; soft K = 1e4, C = 2 and
//! stiff K = 1e8, C = 2e4), 1 s with 200 outputs at the default ERROR; the
//! pendulum (1 m, released horizontally) at ERROR 1e-6 for 3 s with outputs
//! every 10 ms; the four-bar with a spinning crank (the proportionality
//! problem) at ERROR 1e-2 … 1e-4. Prints steps, rejections, corrector
//! failures, Jacobians, factorizations and f-evaluations, or the failure.
//!
//! cargo run --release --example ode_steps

#[path = "../../solver/tests/common/accuracy.rs"]
#[allow(dead_code)]
mod accuracy;

use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::{models, Simulation};

fn settings(kind: IntegratorKind, error: Option<f64>) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        kind_given: true,
        formulation: Some(Formulation::Ode),
        error,
        ..Default::default()
    }
}

fn row(label: &str, model: &Model, end: f64, outputs: u64, s: &IntegratorSettings) {
    let mut sim = Simulation::new(model).expect("model builds");
    match sim.dynamic(end, Some(outputs), None, s) {
        Ok(st) => println!(
            "{label:<34} {:>7} {:>6} {:>6} {:>6} {:>7} {:>8}",
            st.steps,
            st.rejected_steps,
            st.corrector_failures,
            st.jacobian_evaluations,
            st.factorizations,
            st.residual_evaluations
        ),
        Err(e) => println!("{label:<34} failed: {e}"),
    }
}

fn main() {
    println!(
        "{:<34} {:>7} {:>6} {:>6} {:>6} {:>7} {:>8}",
        "", "steps", "rej", "cfail", "jac", "LU", "f-evals"
    );
    let kinds = [
        IntegratorKind::Vstiff,
        IntegratorKind::Mstiff,
        IntegratorKind::Abam,
        IntegratorKind::Rkf45,
    ];
    for kind in kinds {
        let name = kind.name();
        for (what, k, c) in [("soft pair", 1e4, 2.0), ("stiff pair", 1e8, 2e4)] {
            let model = models::spring_mass(1.0, k, c, 0.01);
            row(
                &format!("{name} {what}"),
                &model,
                1.0,
                200,
                &settings(kind, None),
            );
        }
        row(
            &format!("{name} pendulum 1e-6"),
            &models::pendulum(1.0, 9.81),
            3.0,
            300,
            &settings(kind, Some(1e-6)),
        );
        for e in [1e-2, 1e-3, 1e-4] {
            row(
                &format!("{name} four-bar {e:e}"),
                &accuracy::spinning_four_bar(6.0),
                3.0,
                10,
                &settings(kind, Some(e)),
            );
        }
    }
}
