//! A moving consistent state of a model for the ODE form's Jacobian test
//! (tests/ode_jacobian.rs) and bench (examples/ode_jacobian_bench.rs).

use mbsolve_model::{IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::{Frame, Simulation};

/// The simulation and its last frame after 0.3 s of ABAM at ERROR 1e-8.
pub fn moving_state(model: &Model) -> (Simulation, Frame) {
    let mut sim = Simulation::new(model).unwrap();
    let abam = IntegratorSettings {
        kind: IntegratorKind::Abam,
        kind_given: true,
        error: Some(1e-8),
        ..Default::default()
    };
    sim.dynamic(0.3, Some(3), None, &abam).unwrap();
    let frame = sim.frames.last().unwrap().clone();
    (sim, frame)
}
