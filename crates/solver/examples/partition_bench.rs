//! The cost of choosing the coordinate partition (issue 15): for the
//! N-link chain (default N = 100, 200, 400) at its initial state, the
//! wall time of `PartitionProblem::new` (Φ_q, the elimination with
//! complete pivoting that picks the dependent coordinates, Φ_D's
//! factorization and condition estimate), best of three, and the chosen
//! split's size; then 0.05 s of VSTIFF at ERROR 1e-3 (steps, µs/step).
//!
//! cargo run --release -p mbsolve-solver --example partition_bench [N ...]

use mbsolve_model::{IntegratorKind, IntegratorSettings};
use mbsolve_solver::partition::PartitionProblem;
use mbsolve_solver::{models, Simulation};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let ns = if args.is_empty() {
        vec![100, 200, 400]
    } else {
        args
    };
    println!("| N | nq | independent | partition ms | VSTIFF steps | µs/step |");
    for n in ns {
        let mut sim = Simulation::new(&models::chain(n)).unwrap();
        sim.initial_conditions().unwrap();
        let frame = sim.state.clone();
        let mut best = f64::INFINITY;
        let mut independent = 0;
        for _ in 0..3 {
            let start = Instant::now();
            let p = PartitionProblem::new(&sim.sys, sim.data.clone(), &frame, 1e-10, 10).unwrap();
            best = best.min(start.elapsed().as_secs_f64());
            independent = p.partition().independent.len();
        }
        let s = IntegratorSettings {
            kind: IntegratorKind::Vstiff,
            kind_given: true,
            error: Some(1e-3),
            ..Default::default()
        };
        let mut run = Simulation::new(&models::chain(n)).unwrap();
        let start = Instant::now();
        let stats = run.dynamic(0.05, Some(5), None, &s).unwrap();
        let wall = start.elapsed().as_secs_f64();
        println!(
            "| {n} | {} | {independent} | {:.1} | {} | {:.0} |",
            sim.sys.nq(),
            1e3 * best,
            stats.steps,
            1e6 * wall / stats.steps as f64
        );
    }
}
