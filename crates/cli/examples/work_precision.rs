//! Work-precision table (issue 12, item 4): for every (integrator,
//! formulation) pair of the settings table, the global error at ERROR =
//! 1e-2 … 1e-9 on the conformance suite's five problems (pendulum, four-bar
//! with a spinning crank, free slider-crank, 4-link chain, the seeds' soft
//! spring pair), the steps taken, and the least-squares log-log slope of
//! error against ERROR. The error of a run is the largest deviation of the
//! body CM positions over the outputs from the problem's reference (closed
//! form or converged 1-DOF ODE; otherwise WSTIFF/SI2 at ERROR = 1e-11,
//! whose difference to ERROR = 1e-10 is printed as its own uncertainty).
//! The problems and the measurement are the suite's own
//! (crates/solver/tests/common/accuracy.rs); every row of `settings::PAIRS`
//! is measured, HASTIFF/SI1 and HASTIFF/SI2 included.
//!
//! cargo run --release --example work_precision
//! cargo run --release --example work_precision NEWMARK   # only the pairs whose name contains it
//! cargo run --release --example work_precision NEWMARK pendulum   # and only that problem

#[path = "../../solver/tests/common/accuracy.rs"]
#[allow(dead_code)]
mod accuracy;

use accuracy::*;
use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings};

fn main() {
    let only = std::env::args().nth(1).unwrap_or_default().to_uppercase();
    let problem = std::env::args().nth(2).unwrap_or_default();
    println!("{}", table_header());
    for p in problems().into_iter().filter(|p| p.name.contains(&problem)) {
        let reference = reference(&p);
        if let Reference::Tight = p.reference {
            let s = IntegratorSettings {
                kind: IntegratorKind::Wstiff,
                formulation: Some(Formulation::Si2),
                error: Some(1e-10),
                ..Default::default()
            };
            match positions(&p, &s) {
                Ok((run, _)) => println!(
                    "| {}: reference WSTIFF/SI2 ERROR = 1e-11 differs from 1e-10 by {:.1e} |",
                    p.name,
                    max_error(&run, &reference)
                ),
                Err(e) => println!("| {}: ERROR = 1e-10 check failed: {e} |", p.name),
            }
        }
        for pair in pairs().filter(|p| pair_name(p).contains(&only)) {
            let runs = sweep_with_steps(pair, &p, &reference);
            let errors: Vec<f64> = runs.iter().map(|r| r.0).collect();
            let steps: Vec<String> = runs.iter().map(|r| r.1.to_string()).collect();
            let label = format!("{}, {}", p.name, pair_name(pair));
            println!("{}", table_row(&label, &errors));
            println!("|   steps: {} |", steps.join(", "));
            for (run, error) in runs.iter().zip(ERRORS) {
                if run.0.is_nan() {
                    if let Err(e) = positions(&p, &pair_settings(pair, error)) {
                        println!("|   ERROR = {error:e} failed: {e} |");
                    }
                }
            }
        }
    }
    println!(
        "criterion (issue 12): no decade with growth > 2, slope >= 0.7 (BDF) or 0.5 (HHT, NEWMARK)"
    );
}
