//! Reference helpers shared by the whole-model tests: the elliptic-integral
//! pendulum period, zero crossings between output frames, constraint
//! residuals and run-to-run differences.
#![allow(dead_code)]

pub mod accuracy;
pub mod coupler;
pub mod curves;
pub mod derivatives;
pub mod force_probe;
pub mod moving_state;
pub mod user_states;

use mbsolve_solver::{Frame, Simulation};

/// Complete elliptic integral of the first kind K(k) by the AGM.
pub fn ellip_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0, (1.0 - k * k).sqrt());
    for _ in 0..30 {
        let (an, bn) = ((a + b) / 2.0, (a * b).sqrt());
        a = an;
        b = bn;
    }
    std::f64::consts::PI / (2.0 * a)
}

/// Exact period of a pendulum of equivalent length `l` released from
/// horizontal (amplitude 90°).
pub fn horizontal_pendulum_period(l: f64, g: f64) -> f64 {
    4.0 * (l / g).sqrt() * ellip_k(std::f64::consts::FRAC_PI_4.sin())
}

/// Exact period of `models::pendulum(l, g)` released horizontally: a
/// physical pendulum of 1 kg at l with I_cm = 1e-3, so its equivalent
/// length is I_O/(m l) = (l² + 1e-3)/l.
pub fn pendulum_period(l: f64, g: f64) -> f64 {
    horizontal_pendulum_period((l * l + 1e-3) / l, g)
}

/// Time where x (body 0 CM) crosses zero between two frames, by cubic
/// Hermite interpolation with the velocity.
pub fn crossing(f0: &Frame, f1: &Frame) -> f64 {
    let h = f1.t - f0.t;
    let (p0, p1, m0, m1) = (f0.q[0], f1.q[0], f0.u[0] * h, f1.u[0] * h);
    let x = |s: f64| {
        let (s2, s3) = (s * s, s * s * s);
        (2.0 * s3 - 3.0 * s2 + 1.0) * p0
            + (s3 - 2.0 * s2 + s) * m0
            + (-2.0 * s3 + 3.0 * s2) * p1
            + (s3 - s2) * m1
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if (x(lo) > 0.0) == (x(mid) > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    f0.t + 0.5 * (lo + hi) * h
}

/// All zero crossings of body 0's x over a run.
pub fn crossings(frames: &[Frame]) -> Vec<f64> {
    frames
        .windows(2)
        .filter(|w| (w[0].q[0] > 0.0) != (w[1].q[0] > 0.0))
        .map(|w| crossing(&w[0], &w[1]))
        .collect()
}

/// The period of body 0's x from its zero crossings (two per period);
/// at least three crossings are required.
pub fn mean_period(frames: &[Frame]) -> f64 {
    let c = crossings(frames);
    assert!(c.len() >= 3, "{c:?}");
    2.0 * (c[c.len() - 1] - c[0]) / (c.len() - 1) as f64
}

/// Evaluates a function expression (JPRIM(…), DX(…), CONTACT(…), …) on a
/// frame of `sim`, as a request does.
pub fn eval_expr(sim: &Simulation, f: &Frame, text: &str) -> f64 {
    let q0 = sim.sys.initial_state().0;
    mbsolve_expr::Expr::parse(text)
        .unwrap()
        .eval_in(&mbsolve_solver::functions::FrameContext {
            sys: &sim.sys,
            model: &sim.model,
            frame: f,
            initial_q: &q0,
        })
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// Largest |Φ| (active equations) at one frame.
pub fn max_phi(sim: &Simulation, f: &Frame) -> f64 {
    let mut phi = vec![0.0; sim.sys.neq()];
    sim.sys
        .constraints(&mut sim.data.clone(), &f.q, f.t, &mut phi);
    phi.iter().fold(0.0, |a, v| a.max(v.abs()))
}

/// Largest |Φ| over every frame of a run.
pub fn worst_phi(sim: &Simulation) -> f64 {
    sim.frames
        .iter()
        .map(|f| max_phi(sim, f))
        .fold(0.0, f64::max)
}

/// Largest coordinate difference over all frames of two runs.
pub fn max_diff(a: &Simulation, b: &Simulation) -> f64 {
    a.frames
        .iter()
        .zip(&b.frames)
        .map(|(x, y)| {
            (0..x.q.len())
                .map(|i| (x.q[i] - y.q[i]).abs())
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// The seeds' discontinuity case: an undamped spring-mass (`spring_mass`
/// with M = 1, K = k) on which a constant force f switches on at t0.
pub fn switched_force_spring(k: f64, f: f64, t0: f64) -> mbsolve_model::Model {
    use mbsolve_model::{Force, ForceKind, StateFn};
    let mut model = mbsolve_solver::models::spring_mass(1.0, k, 0.0, 0.0);
    model.forces.push(Force {
        id: 2,
        i: 20,
        j: 10,
        kind: ForceKind::TranslationalActionOnly {
            function: std::sync::Arc::new(StateFn {
                measures: vec![],
                f: move |t: f64, _m: &[f64], _d: &mut [f64]| (if t >= t0 { f } else { 0.0 }, 0.0),
            }),
        },
    });
    model
}

/// Largest deviation of `switched_force_spring` from its closed form
/// x = (f/k)(1 − cos √k (t − t0)) after t0 (0 before).
pub fn switched_force_error(frames: &[Frame], k: f64, f: f64, t0: f64) -> f64 {
    let (amp, w) = (f / k, k.sqrt());
    frames
        .iter()
        .map(|fr| {
            let exact = if fr.t < t0 {
                0.0
            } else {
                amp * (1.0 - (w * (fr.t - t0)).cos())
            };
            ((fr.q[0] - 1.0) - exact).abs()
        })
        .fold(0.0, f64::max)
}

/// The iteration matrix ∂G/∂y + c ∂G/∂y′ as a problem emits it, dense
/// (the SI2 and SI1 Jacobian and conditioning tests).
pub fn dense_jacobian(
    p: &mut dyn mbsolve_integrate::DaeProblem,
    t: f64,
    y: &[f64],
    yp: &[f64],
    c: f64,
) -> nalgebra::DMatrix<f64> {
    let n = p.size();
    let mut a = mbsolve_integrate::SlotAssembler::new(n);
    loop {
        a.begin();
        p.jacobian(t, y, yp, c, &mut a).unwrap();
        if a.finish() {
            break;
        }
    }
    let d = a.to_dense();
    nalgebra::DMatrix::from_fn(n, n, |i, j| d[i][j])
}

/// 2-norm condition number.
pub fn condition(a: &nalgebra::DMatrix<f64>) -> f64 {
    let sv = a.clone().svd(false, false).singular_values;
    sv.max() / sv.min()
}

/// Deterministic values in [−1, 1).
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// The problem's whole iteration matrix at (t, y, y′, c) against central
/// differences of its residual along (e_j, c·e_j) — exactly ∂G/∂y_j +
/// c ∂G/∂y′_j. The Jacobian is evaluated first (a problem may take its row
/// scale from it). Prints the worst relative error with the equation and
/// unknown where it occurs, and asserts it is below `tol`.
pub fn assert_jacobian_matches_differences(
    label: &str,
    p: &mut dyn mbsolve_integrate::DaeProblem,
    (t, c): (f64, f64),
    y: &[f64],
    yp: &[f64],
    tol: f64,
) {
    let jac = dense_jacobian(p, t, y, yp, c);
    let size = y.len();
    let (mut gp, mut gm) = (vec![0.0; size], vec![0.0; size]);
    let mut worst = (0.0f64, 0, 0);
    for j in 0..size {
        let d = 1e-6 * y[j].abs().max(1.0);
        let (mut y1, mut yp1) = (y.to_vec(), yp.to_vec());
        y1[j] += d;
        yp1[j] += c * d;
        p.residual(t, &y1, &yp1, &mut gp).unwrap();
        y1[j] -= 2.0 * d;
        yp1[j] -= 2.0 * c * d;
        p.residual(t, &y1, &yp1, &mut gm).unwrap();
        for i in 0..size {
            let fd = (gp[i] - gm[i]) / (2.0 * d);
            let e = (fd - jac[(i, j)]).abs() / jac[(i, j)].abs().max(1.0);
            if e > worst.0 {
                worst = (e, i, j);
            }
        }
    }
    println!(
        "{label} Jacobian ({size}×{size}) vs central differences: worst relative error {:.2e} at ({}: {}, {}: {})",
        worst.0,
        worst.1,
        p.describe_equation(worst.1),
        worst.2,
        p.describe_variable(worst.2)
    );
    assert!(
        worst.0 < tol,
        "{label}: Jacobian entry off by {:.2e}",
        worst.0
    );
}

/// The driven slider-crank (a MOTION; three redundant equations pinned)
/// with a spring-damper from the slider to ground, at its consistent
/// initial state: the model of the SI2 and SI1 Jacobian checks.
pub fn damped_slider_crank() -> Simulation {
    let mut model = mbsolve_solver::models::slider_crank(0.5, 1.5, 3.0);
    model.forces.push(mbsolve_model::Force {
        id: 1,
        i: 40,
        j: 10,
        kind: mbsolve_model::ForceKind::TranslationalSpringDamper {
            stiffness: 50.0,
            damping: 3.0,
            free_length: 1.2,
            preload: 0.5,
        },
    });
    let mut sim = Simulation::new(&model).unwrap();
    sim.initial_conditions().unwrap();
    sim
}

/// A first-order integrator with its formulation at ERROR `error`.
pub fn settings(
    kind: mbsolve_model::IntegratorKind,
    formulation: mbsolve_model::Formulation,
    error: f64,
) -> mbsolve_model::IntegratorSettings {
    mbsolve_model::IntegratorSettings {
        kind,
        kind_given: true,
        formulation: Some(formulation),
        error: Some(error),
        ..Default::default()
    }
}

/// Off-manifold (y, y') with nonzero multipliers, rates and states.
#[allow(clippy::needless_range_loop)]
pub fn perturbed(sim: &Simulation, size: usize, seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Lcg(seed);
    let n = sim.sys.nq();
    let s = &sim.state;
    let mut y: Vec<f64> = (0..size).map(|_| 0.3 * rng.next()).collect();
    let yp: Vec<f64> = (0..size).map(|_| 0.5 * rng.next()).collect();
    for i in 0..n {
        y[i] = s.q[i] + 0.01 * rng.next();
        y[n + i] = s.u[i] + 0.1 * rng.next();
    }
    (y, yp)
}

/// The I3, SI2 and SI1 iteration matrices (∂G/∂y + c ∂G/∂y') of `sim`
/// against central differences of their residuals at t = 0.3, c = 40, each
/// at its own off-manifold point (`perturbed`). Tolerance 1e-6 relative;
/// SI1's ∂Φ̈/∂q is itself a central difference (si1.rs): 1e-5, as in its
/// own Jacobian test. `what` names the user states in the messages.
pub fn assert_formulation_jacobians(what: &str, sim: &Simulation) {
    use mbsolve_integrate::DaeProblem;
    use mbsolve_solver::formulation::I3Problem;
    use mbsolve_solver::si1::Si1Problem;
    use mbsolve_solver::si2::Si2Problem;
    let (n, m, nw) = (sim.sys.nq(), sim.sys.neq(), sim.sys.nw());
    let tc = (0.3, 40.0);
    let mut i3 = I3Problem::new(&sim.sys, sim.data.clone());
    let (y, yp) = perturbed(sim, 2 * n + m + nw, 3);
    assert_jacobian_matches_differences(&format!("I3 + {what}"), &mut i3, tc, &y, &yp, 1e-6);
    let mut si2 = Si2Problem::new(&sim.sys, sim.data.clone());
    let (y, yp) = perturbed(sim, si2.size(), 5);
    assert_jacobian_matches_differences(&format!("SI2 + {what}"), &mut si2, tc, &y, &yp, 1e-6);
    let mut si1 = Si1Problem::new(&sim.sys, sim.data.clone());
    let (y, yp) = perturbed(sim, si1.size(), 9);
    assert_jacobian_matches_differences(&format!("SI1 + {what}"), &mut si1, tc, &y, &yp, 1e-5);
}

/// FIM_S statics converged to `tol` in imbalance and error.
pub fn fim_s(tol: f64) -> mbsolve_model::StaticSettings {
    mbsolve_model::StaticSettings {
        method: Some(mbsolve_model::StaticMethod::FimS),
        max_imbalance: Some(tol),
        max_error: Some(tol),
        ..Default::default()
    }
}
