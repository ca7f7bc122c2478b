//! DSTIFF through the Param_Transient API and INTEGRATOR/DSTIFF.

mod common;
use common::*;

use mbsolve_solver::settings::ParamTransient;
use mbsolve_solver::{models, Simulation};

#[test]
fn probe() {
    let pt = ParamTransient::builder().integr_tol(1e-6).build().unwrap();
    let mut sim = Simulation::new(&models::pendulum(1.0, 9.81)).unwrap();
    let st = sim.dynamic_transient(3.0, None, Some(0.01), &pt);
    println!("{st:?}");
    println!("{}", sim.log.join("\n").chars().take(3000).collect::<String>());
    let c = crossings(&sim.frames);
    let exact = pendulum_period(1.0, 9.81);
    println!("period rel {:e} phi {:e}", (2.0 * (c[1] - c[0]) - exact).abs() / exact, worst_phi(&sim));
}
