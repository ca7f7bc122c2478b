//! The stiff ODE methods' cost with the reduced Jacobian (issue 15): the
//! N-link chain (default 16; uniform rods, released horizontally from
//! rest), 1 s, 100 outputs, VSTIFF and MSTIFF at ERROR 1e-6 (the loosest
//! decade reaching a 1e-6 m tip error, stop 12), best of three runs:
//! steps, f-evaluations, Jacobian evaluations, factorizations and wall
//! time per step. Then the cost of one reduced Jacobian at t = 0.3 s:
//! through the partitioning against size forward-difference f-evaluations
//! (what the stiff methods do without it), best of 20.
//!
//! cargo run --release -p mbsolve-solver --example ode_jacobian_bench [N]

#[path = "../tests/common/moving_state.rs"]
mod moving_state;

use mbsolve_integrate::OdeProblem;
use mbsolve_model::{IntegratorKind, IntegratorSettings};
use mbsolve_solver::partition::PartitionProblem;
use mbsolve_solver::{models, Simulation};
use std::time::Instant;

fn main() {
    let n = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(16);
    let model = models::chain(n);
    println!("| {n}-link chain, 1 s, ERROR 1e-6 | steps | f-evals | Jacobian evaluations (with Φ_D assemblies) | LUs | µs/step |");
    for kind in [IntegratorKind::Vstiff, IntegratorKind::Mstiff] {
        let s = IntegratorSettings {
            kind,
            kind_given: true,
            error: Some(1e-6),
            ..Default::default()
        };
        let mut best = f64::INFINITY;
        let mut stats = None;
        for _ in 0..3 {
            let mut sim = Simulation::new(&model).unwrap();
            let start = Instant::now();
            let st = sim.dynamic(1.0, Some(100), None, &s).unwrap();
            best = best.min(start.elapsed().as_secs_f64());
            stats = Some(st);
        }
        let st = stats.unwrap();
        println!(
            "| {} | {} | {} | {} | {} | {:.0} |",
            kind.name(),
            st.steps,
            st.residual_evaluations,
            st.jacobian_evaluations,
            st.factorizations,
            1e6 * best / st.steps as f64
        );
    }
    jacobian_cost(&model);
}

/// Wall time of one analytic reduced Jacobian and of `size` forward
/// differences of f at the state of an ABAM run at t = 0.3.
fn jacobian_cost(model: &mbsolve_model::Model) {
    let (sim, frame) = moving_state::moving_state(model);
    let mut p = PartitionProblem::new(&sim.sys, sim.data.clone(), &frame, 1e-10, 10).unwrap();
    let (t, y, size) = (frame.t, p.reduced_state(), p.size());
    let mut f = vec![0.0; size];
    let mut f1 = vec![0.0; size];
    let mut jac = vec![0.0; size * size];
    p.rhs(t, &y, &mut f).unwrap();
    let (mut analytic, mut differences) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..20 {
        p.rhs(t, &y, &mut f).unwrap();
        let start = Instant::now();
        p.jacobian(t, &y, &f, &mut jac).unwrap();
        analytic = analytic.min(start.elapsed().as_secs_f64());
        let start = Instant::now();
        let mut yd = y.clone();
        for j in 0..size {
            yd[j] = y[j] + 1e-7;
            p.rhs(t, &yd, &mut f1).unwrap();
            yd[j] = y[j];
        }
        differences = differences.min(start.elapsed().as_secs_f64());
    }
    println!(
        "reduced Jacobian {size}×{size}: through the partitioning {:.0} µs, {size} forward differences {:.0} µs",
        1e6 * analytic,
        1e6 * differences
    );
}
