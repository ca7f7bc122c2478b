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
//! cargo run --release --example ode_steps chain KIND ERROR [N]
//!
//! `chain`: only the N-link chain (default 16), 1 s, 100 outputs, with one
//! ODE integrator (ABAM, RKF45, VSTIFF, MSTIFF) at one ERROR: steps,
//! f-evaluations, factorizations and wall time (for `perf stat`).

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

fn chain(args: &[String]) {
    let kind = match args.first().map(String::as_str) {
        Some("RKF45") => IntegratorKind::Rkf45,
        Some("VSTIFF") => IntegratorKind::Vstiff,
        Some("MSTIFF") => IntegratorKind::Mstiff,
        _ => IntegratorKind::Abam,
    };
    let error = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1e-5);
    let n = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(16);
    let model = models::chain(n);
    let mut sim = Simulation::new(&model).expect("model builds");
    let start = std::time::Instant::now();
    match sim.dynamic(1.0, Some(100), None, &settings(kind, Some(error))) {
        Ok(st) => {
            let wall = start.elapsed().as_secs_f64();
            println!(
                "{} {n}-link chain ERROR {error:e}: {} steps, {} f-evaluations, {} factorizations, {:.4} s, {:.1} us/f-evaluation",
                kind.name(),
                st.steps,
                st.residual_evaluations,
                st.factorizations,
                wall,
                1e6 * wall / st.residual_evaluations as f64
            )
        }
        Err(e) => println!("failed: {e}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("chain") {
        return chain(&args[1..]);
    }
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
