//! The reduced ODE's Jacobian through the partitioning (partition/
//! jacobian.rs) against central differences of f on the four-bar and the
//! 16-link chain and the free slider-crank, at a moving state (after 0.3 s
//! of ABAM).

mod common;

use common::moving_state::moving_state;
use mbsolve_integrate::OdeProblem;
use mbsolve_model::Model;
use mbsolve_solver::models;
use mbsolve_solver::partition::PartitionProblem;

/// Worst |J_analytic − J_fd| relative to the largest entry of J_fd's
/// column (or 1), and the matrix size.
fn jacobian_error(model: &Model) -> (f64, usize) {
    let (sim, frame) = moving_state(model);
    // A tight Newton tolerance so that the differences of f are not
    // dominated by the dependent coordinates' convergence noise.
    let mut p = PartitionProblem::new(&sim.sys, sim.data.clone(), &frame, 1e-14, 30).unwrap();
    let y = p.reduced_state();
    let size = p.size();
    let t = frame.t;
    let mut f = vec![0.0; size];
    p.rhs(t, &y, &mut f).unwrap();
    let mut jac = vec![0.0; size * size];
    assert!(
        p.jacobian(t, &y, &f, &mut jac).unwrap(),
        "no analytic Jacobian"
    );
    let (mut fp, mut fm) = (vec![0.0; size], vec![0.0; size]);
    let mut worst = 0.0f64;
    for j in 0..size {
        let h = 1e-5 * y[j].abs().max(1.0);
        let mut yd = y.clone();
        yd[j] = y[j] + h;
        p.rhs(t, &yd, &mut fp).unwrap();
        yd[j] = y[j] - h;
        p.rhs(t, &yd, &mut fm).unwrap();
        let fd: Vec<f64> = (0..size).map(|i| (fp[i] - fm[i]) / (2.0 * h)).collect();
        let scale = fd.iter().fold(1.0f64, |a, v| a.max(v.abs()));
        for i in 0..size {
            worst = worst.max((jac[j * size + i] - fd[i]).abs() / scale);
        }
    }
    (worst, size)
}

/// Four-bar, 16-link chain and free slider-crank: the analytic reduced
/// Jacobian within 1e-6 (relative to each column's largest entry) of
/// central differences (step 1e-5: truncation ~1e-10, Newton noise
/// 1e-14/1e-5 ~ 1e-9; measured, printed).
#[test]
fn reduced_jacobian_matches_central_differences() {
    let mut spinning = models::four_bar();
    if let Some(crank) = spinning.parts.iter_mut().find(|p| p.id == 2) {
        let (th, omega) = (1.0f64, 6.0);
        crank.angular_velocity.z = omega;
        crank.velocity.x = -0.5 * th.sin() * omega;
        crank.velocity.y = 0.5 * th.cos() * omega;
    }
    for (name, model) in [
        ("four-bar", spinning),
        ("16-link chain", models::chain(16)),
        (
            "free slider-crank",
            models::free_slider_crank(0.5, 1.5, 2.0 * std::f64::consts::PI),
        ),
    ] {
        let (err, size) = jacobian_error(&model);
        println!("{name}: reduced Jacobian {size}×{size}, worst relative difference {err:.2e}");
        assert!(err < 1e-6, "{name}: {err:.2e}");
    }
}
