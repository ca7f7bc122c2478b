#![allow(clippy::needless_range_loop)]
//! SI2 formulation checks.

mod common;
use common::*;

use mbsolve_model::{Formulation, IntegratorSettings};
use mbsolve_solver::formulation::I3Problem;
use mbsolve_solver::si2::Si2Problem;
use mbsolve_solver::{models, Simulation};

fn settings(error: f64, si2: bool) -> IntegratorSettings {
    IntegratorSettings {
        error: Some(error),
        formulation: Some(if si2 {
            Formulation::Si2
        } else {
            Formulation::I3
        }),
        ..Default::default()
    }
}

/// The whole SI2 iteration matrix against central differences of the
/// residual along (e_j, c·e_j) — exactly ∂G/∂y_j + c ∂G/∂y'_j. Model: the
/// driven slider-crank (a MOTION, three redundant equations pinned) with a
/// spring-damper from the slider to ground, at a state off the constraint
/// manifold with nonzero λ, μ, q', u'. Measured worst relative error
/// 2.1e-10 (tolerance 1e-6).
#[test]
fn si2_jacobian_matches_finite_differences() {
    let sim = damped_slider_crank();
    let inactive = sim.data.active.iter().filter(|a| !**a).count();
    let (n, m) = (sim.sys.nq(), sim.sys.neq());
    let mut rng = Lcg(7);
    let s = &sim.state;
    let mut y = vec![0.0; 2 * n + 2 * m];
    let mut yp = vec![0.0; 2 * n + 2 * m];
    for i in 0..n {
        y[i] = s.q[i] + 0.01 * rng.next();
        y[n + i] = s.u[i] + 0.3 * rng.next();
        yp[i] = s.u[i] + 0.3 * rng.next();
        yp[n + i] = s.a[i] + rng.next();
    }
    for k in 0..2 * m {
        y[2 * n + k] = rng.next();
        yp[2 * n + k] = 5.0 * rng.next();
    }
    let (t, c) = (0.3, 37.0);
    let mut p = Si2Problem::new(&sim.sys, sim.data.clone());
    assert!(inactive > 0, "the check should cover pinned rows");
    assert_jacobian_matches_differences("SI2", &mut p, (t, c), &y, &yp, 1e-6);
}

/// 2-norm condition numbers of the iteration matrix at order 1 (c = 1/h) for
/// h = 1e-2 … 1e-7 at the consistent initial state: the SI2 matrix the LU
/// factors (scaled rows, multipliers in differential form) stays within a
/// factor 1.5 of its value at h = 1e-2 (measured: pendulum 23.2 at every h,
/// four-bar 116 → 107), while I3's grows with a log-log slope near 3
/// (measured 3.00 and 2.97 over h = 1e-2 … 1e-4: 5.0e6 → 5.0e12 on the
/// pendulum; singular to working precision from h = 1e-5) and SI2 without
/// the scaling near 2 (measured 2.00 and 1.98).
#[test]
fn si2_iteration_matrix_stays_conditioned_as_h_shrinks() {
    for (name, model) in [
        ("pendulum", models::pendulum(1.0, 9.81)),
        ("four-bar", models::four_bar()),
    ] {
        let mut sim = Simulation::new(&model).unwrap();
        sim.initial_conditions().unwrap();
        let (n, m) = (sim.sys.nq(), sim.sys.neq());
        let s = &sim.state;
        let zeros = vec![0.0; m];
        let y3: Vec<f64> = [&s.q[..], &s.u, &s.lambda].concat();
        let yp3: Vec<f64> = [&s.u[..], &s.a, &zeros].concat();
        let y2: Vec<f64> = [&s.q[..], &s.u, &zeros, &zeros].concat();
        let yp2: Vec<f64> = [&s.u[..], &s.a, &s.lambda, &zeros].concat();
        let mut i3 = I3Problem::new(&sim.sys, sim.data.clone());
        let mut si2 = Si2Problem::new(&sim.sys, sim.data.clone());
        let hs = [1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7];
        let mut rows = Vec::new();
        for &h in &hs {
            let c = 1.0 / h;
            let k3 = condition(&dense_jacobian(&mut i3, s.t, &y3, &yp3, c));
            let j2 = dense_jacobian(&mut si2, s.t, &y2, &yp2, c);
            let k2 = condition(&j2);
            // The same SI2 matrix without the scaling: rows of q and u
            // times c, multiplier columns (∂/∂λ, ∂/∂μ) divided by c.
            let mut plain = j2.clone();
            for i in 0..2 * n {
                plain.row_mut(i).scale_mut(c);
            }
            for k in 2 * n..2 * n + 2 * m {
                plain.column_mut(k).scale_mut(1.0 / c);
            }
            let kp = condition(&plain);
            println!(
                "{name}: h = {h:.0e}: cond I3 {k3:.3e}, SI2 (as factored) {k2:.3e}, SI2 unscaled {kp:.3e}"
            );
            rows.push((k3, k2, kp));
        }
        let decades = (hs[0] / hs[hs.len() - 1]).log10();
        let slope = |a: f64, b: f64| (b / a).log10() / decades;
        let s3 = slope(rows[0].0, rows[2].0) * decades / 2.0;
        let sp = slope(rows[0].2, rows[4].2) * decades / 4.0;
        let spread = rows.iter().map(|r| r.1).fold(0.0, f64::max)
            / rows.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
        println!(
            "{name}: log-log slope of cond vs 1/h: I3 {s3:.2} (h = 1e-2 … 1e-4), SI2 unscaled {sp:.2} (1e-2 … 1e-6); SI2 as factored varies by a factor {spread:.3} over h = 1e-2 … 1e-7"
        );
        assert!(
            spread < 1.5,
            "{name}: SI2 condition number varies by {spread}"
        );
        assert!((2.7..3.3).contains(&s3), "{name}: I3 slope {s3}");
        assert!((1.8..2.2).contains(&sp), "{name}: unscaled SI2 slope {sp}");
        // Below h = 1e-5 the I3 matrix is singular to working precision.
        assert!(rows[4].0 > 1e15, "{name}: I3 at h = 1e-6: {}", rows[4].0);
    }
}

/// Max |Φ|, max |Φ_q u + Φ_t| over the active equations at (q, u, t).
fn constraint_residuals(
    sys: &mbsolve_mech::System,
    data: &mut mbsolve_mech::MechData,
    q: &[f64],
    u: &[f64],
    t: f64,
) -> (f64, f64) {
    let m = sys.neq();
    let mut phi = vec![0.0; m];
    sys.constraints(data, q, t, &mut phi);
    let mut rhs = vec![0.0; m];
    sys.velocity_rhs(data, q, t, &mut rhs);
    let mut vel: f64 = 0.0;
    for k in 0..m {
        if data.active[k] {
            let v = sys.eval_equation(k, q, t, false);
            let ul = mbsolve_mech::system::gather(&sys.equations[k].bodies(), u);
            vel = vel.max((v.s.grad.dot(&ul) - rhs[k]).abs());
        }
    }
    (phi.iter().fold(0.0, |a, v| a.max(v.abs())), vel)
}

/// What the integrator itself holds at each output time (no output
/// projection): worst |Φ|, |Φ_q u + Φ_t|, |μ| (SI2) and the run's steps.
struct RawRun {
    phi: f64,
    vel: f64,
    mu: f64,
    steps: u64,
}

fn raw_run(model: &mbsolve_model::Model, si2: bool, error: f64, end: f64, dtout: f64) -> RawRun {
    let mut sim = Simulation::new(model).unwrap();
    sim.initial_conditions().unwrap();
    let s = settings(error, si2);
    let plan = mbsolve_solver::settings::validate(&s, dtout).unwrap();
    let sys = &sim.sys;
    let (n, m) = (sys.nq(), sys.neq());
    let tol = mbsolve_solver::formulation::constraint_tolerance(error);
    let mut segment = plan.formulation().segment(sys, &sim.data, &sim.state, tol);
    let mut g = segment.integrator(&plan, &sim.state).unwrap();
    let mut out = RawRun {
        phi: 0.0,
        vel: 0.0,
        mu: 0.0,
        steps: 0,
    };
    let nout = (end / dtout).round() as usize;
    for k in 1..=nout {
        let t = k as f64 * dtout;
        g.advance_to(t).unwrap();
        let (y, yp) = g.solution();
        let (phi, vel) = constraint_residuals(sys, &mut sim.data.clone(), &y[..n], &y[n..2 * n], t);
        out.phi = out.phi.max(phi);
        out.vel = out.vel.max(vel);
        if si2 {
            let mu = &yp[2 * n + m..];
            out.mu = mu.iter().fold(out.mu, |a, v| a.max(v.abs()));
        }
    }
    out.steps = g.statistics().steps;
    out
}

/// The integrator's own SI2 state (read from the integrator at every output,
/// before any output processing) satisfies both the position and the
/// velocity constraints to round-off on the pendulum (3 s) and the four-bar
/// (2 s): measured |Φ| ≤ 1.1e-14 and |Φ_q u + Φ_t| ≤ 4.3e-14 at ERROR
/// 1e-3 and 1e-5. μ — zero in the exact solution — is an error-level
/// quantity, largest in the order-1 start where BDF1 leaves q' − u of order
/// h·|u|²/L normal to the constraints: max |μ| 1.7e-3 / 1.5e-3 (pendulum,
/// ERROR 1e-3 / 1e-5). I3's raw
/// velocities violate the velocity constraints by about 1e-3 (the driver
/// projects them at outputs).
#[test]
fn si2_state_keeps_position_and_velocity_constraints() {
    for (name, model, end) in [
        ("pendulum", models::pendulum(1.0, 9.81), 3.0),
        ("four-bar", models::four_bar(), 2.0),
    ] {
        let mut mus = Vec::new();
        for error in [1e-3, 1e-5] {
            let i3 = raw_run(&model, false, error, end, 0.01);
            let si2 = raw_run(&model, true, error, end, 0.01);
            println!(
                "{name} ERROR {error:.0e}: SI2 max |Phi| {:.2e}, max |Phi_q u + Phi_t| {:.2e}, max |mu| {:.2e}, {} steps; I3 raw: |Phi| {:.2e}, velocity residual {:.2e}, {} steps",
                si2.phi, si2.vel, si2.mu, si2.steps, i3.phi, i3.vel, i3.steps
            );
            assert!(si2.phi < 1e-10, "{name}: |Phi| {}", si2.phi);
            assert!(si2.vel < 1e-10, "{name}: velocity residual {}", si2.vel);
            assert!(i3.vel > 100.0 * si2.vel.max(1e-14), "{name}: I3 {}", i3.vel);
            mus.push(si2.mu);
        }
        // μ is an error-level quantity (largest in the order-1 start-up,
        // whose first steps are HINIT whatever ERROR): bounded well below
        // the velocity scale (~4 m/s here).
        assert!(mus.iter().all(|m| *m < 1e-2), "{name}: max |mu| {mus:?}");
    }
}

/// Output frames of a dynamic run at output step `dtout`, and its step count.
fn run(
    model: &mbsolve_model::Model,
    s: &IntegratorSettings,
    end: f64,
    dtout: f64,
) -> (Simulation, u64) {
    let mut sim = Simulation::new(model).unwrap();
    let st = sim.dynamic(end, None, Some(dtout), s).unwrap();
    (sim, st.steps)
}

/// Worst error of the bob's CM velocity (x and y) and position (x and y)
/// over the outputs against a reference run.
fn errors_against(sim: &Simulation, reference: &Simulation) -> (f64, f64) {
    let mut worst = (0.0f64, 0.0f64);
    for (f, r) in sim.frames.iter().zip(&reference.frames) {
        assert_eq!(f.t, r.t);
        worst.0 = worst
            .0
            .max((f.u[0] - r.u[0]).abs().max((f.u[1] - r.u[1]).abs()));
        worst.1 = worst
            .1
            .max((f.q[0] - r.q[0]).abs().max((f.q[1] - r.q[1]).abs()));
    }
    worst
}

/// Pendulum over 3 s with outputs every 0.1 s (so HMAX = DTOUT does not cap
/// the steps and ERROR governs the accuracy), against a tight reference (I3
/// at ERROR = 1e-10, cross-checked against SI2 at 1e-10): at the same ERROR
/// SI2's velocities (error-controlled states) are more accurate than I3's
/// (projected BDF derivatives of the positions) at every ERROR from 1e-3 to
/// 1e-7 — measured 1.8 to 19 times — with 10–40 % more steps.
///
/// Not asserted, and reported: with DTOUT = 0.01 (every step capped at
/// 0.01) the comparison is erratic (ratio 0.2 at ERROR = 1e-3, 0.3 at 3e-5)
/// because GSTIFF's step control keeps SI2 at order 1 for the first half
/// second there (a step shrunk by < 10 % after every success resets the
/// order-raise count).
#[test]
fn si2_velocities_are_more_accurate_than_i3() {
    let model = models::pendulum(1.0, 9.81);
    let (end, dtout) = (3.0, 0.1);
    let tight = |si2| IntegratorSettings {
        hmin: Some(1e-12),
        ..settings(1e-10, si2)
    };
    let (reference, rsteps) = run(&model, &tight(false), end, dtout);
    let (check, csteps) = run(&model, &tight(true), end, dtout);
    let (agree, _) = errors_against(&check, &reference);
    println!("reference: I3 at 1e-10 ({rsteps} steps) vs SI2 at 1e-10 ({csteps} steps): velocities agree to {agree:.2e}");
    assert!(agree < 1e-6, "references disagree by {agree}");
    for error in [1e-3, 1e-4, 1e-5, 1e-6, 1e-7] {
        let (i3, n3) = run(&model, &settings(error, false), end, dtout);
        let (si2, n2) = run(&model, &settings(error, true), end, dtout);
        let ((v3, p3), (v2, p2)) = (
            errors_against(&i3, &reference),
            errors_against(&si2, &reference),
        );
        println!(
            "ERROR {error:.0e}: max velocity error I3 {v3:.3e}, SI2 {v2:.3e} (ratio {:.1}); position error I3 {p3:.3e}, SI2 {p2:.3e}; steps I3 {n3}, SI2 {n2}",
            v3 / v2
        );
        assert!(v2 * 1.5 < v3, "ERROR {error}: SI2 {v2} vs I3 {v3}");
    }
}

/// Relative period error of the pendulum released horizontally (the bob's
/// own inertia 1e-3 makes I_O = 1.001 m L²).
fn period_error(sim: &Simulation) -> f64 {
    let mut crossings = Vec::new();
    for w in sim.frames.windows(2) {
        if (w[0].q[0] > 0.0) != (w[1].q[0] > 0.0) {
            crossings.push(crossing(&w[0], &w[1]));
        }
    }
    assert!(
        crossings.len() >= 2,
        "the pendulum must swing through twice"
    );
    let period = 2.0 * (crossings[1] - crossings[0]);
    let exact = common::pendulum_period(1.0, 9.81);
    (period - exact).abs() / exact
}

/// Pendulum period with SI2 (outputs every 0.01 s over 3 s) within 1e-4
/// relative of the elliptic-integral value at ERROR = 1e-6 and 1e-7 (at
/// 1e-5 both formulations are just above 1e-4: printed, not asserted); the
/// I3 figures at the same ERROR are printed for comparison. Measured: SI2
/// 1.08e-4 / 3.50e-5 / 1.55e-6 (660 / 1104 / 1127 steps), I3 1.28e-4 /
/// 2.63e-5 / 3.81e-6 (419 / 533 / 915 steps) at ERROR 1e-5 / 1e-6 / 1e-7.
#[test]
fn si2_pendulum_period() {
    let model = models::pendulum(1.0, 9.81);
    for error in [1e-5, 1e-6, 1e-7] {
        let (i3, n3) = run(&model, &settings(error, false), 3.0, 0.01);
        let (si2, n2) = run(&model, &settings(error, true), 3.0, 0.01);
        let (e3, e2) = (period_error(&i3), period_error(&si2));
        println!(
            "ERROR {error:.0e}: period relative error SI2 {e2:.2e} ({n2} steps), I3 {e3:.2e} ({n3} steps)"
        );
        if error < 1e-5 {
            assert!(e2 < 1e-4, "SI2 period error {e2}");
        }
    }
}

/// WSTIFF with SI2 (the same SI2 problem behind the variable-coefficient
/// BDF): at ERROR = 1e-6 the pendulum period is within 1e-4 relative of
/// the elliptic-integral value and every output keeps |‖r‖ − 1| and the
/// radial velocity at round-off (< 1e-12).
#[test]
fn wstiff_si2_pendulum() {
    let model = models::pendulum(1.0, 9.81);
    let s = IntegratorSettings {
        kind: mbsolve_model::IntegratorKind::Wstiff,
        ..settings(1e-6, true)
    };
    let (sim, steps) = run(&model, &s, 3.0, 0.01);
    assert!(sim
        .log
        .iter()
        .any(|l| l.contains("dynamic analysis: WSTIFF, SI2")));
    let e = period_error(&sim);
    let (mut pos, mut vel) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        let (x, y) = (f.q[0], f.q[1]);
        pos = pos.max(((x * x + y * y).sqrt() - 1.0).abs());
        vel = vel.max((x * f.u[0] + y * f.u[1]).abs());
    }
    println!("WSTIFF/SI2 pendulum: period error {e:.2e}, {steps} steps, |r|-1 {pos:.1e}, radial velocity {vel:.1e}");
    assert!(e < 1e-4, "{e}");
    assert!(pos < 1e-12 && vel < 1e-12, "{pos} {vel}");
}

/// The seeds' spring pair with SI2: K = 1e4, C = 2 within 1e-3 of the
/// amplitude at ERROR = 1e-8, and the stiff K = 1e8, C = 2e4 within 1e-4
/// at ERROR = 1e-4 in fewer than 400 steps for 1 s (the mode decays, the
/// steps grow: velocity error control does not hold the step at the
/// stiff time scale). Measured: soft 7.5e-6 in 2825 steps (I3 3.0e-4 in
/// 5100), stiff 1.1e-13 in 225 steps (I3 5.8e-10 in 144).
#[test]
fn si2_spring_pair() {
    let spring = |k: f64, c: f64, error: f64, si2: bool| {
        let x0 = 0.1;
        let model = models::spring_mass(1.0, k, c, x0);
        let (sim, steps) = run(&model, &settings(error, si2), 1.0, 0.01);
        let worst = sim
            .frames
            .iter()
            .map(|f| ((f.q[0] - 1.0) - models::spring_mass_exact(1.0, k, c, x0, f.t)).abs())
            .fold(0.0, f64::max);
        (worst / x0, steps)
    };
    let (soft, soft_steps) = spring(1e4, 2.0, 1e-8, true);
    let (soft3, soft3_steps) = spring(1e4, 2.0, 1e-8, false);
    println!("K=1e4, C=2, ERROR 1e-8: SI2 {soft:.2e} ({soft_steps} steps), I3 {soft3:.2e} ({soft3_steps} steps)");
    assert!(soft < 1e-3, "soft spring error {soft}");
    let (stiff, stiff_steps) = spring(1e8, 2e4, 1e-4, true);
    let (stiff3, stiff3_steps) = spring(1e8, 2e4, 1e-4, false);
    println!("K=1e8, C=2e4, ERROR 1e-4: SI2 {stiff:.2e} ({stiff_steps} steps), I3 {stiff3:.2e} ({stiff3_steps} steps)");
    assert!(stiff < 1e-4, "stiff spring error {stiff}");
    assert!(stiff_steps < 400, "stiff spring took {stiff_steps} steps");
}

/// Two-link chain whose first joint is driven at ω1 = 1 rad/s until `tk`
/// and at ω2 = 3 rad/s after: with `blend` = 0 the displacement is
/// piecewise linear (a velocity jump at tk); with `blend` > 0 the velocity
/// changes over [tk − blend, tk + blend] by a quintic smoothstep (C²).
fn driven_chain(tk: f64, blend: f64) -> mbsolve_model::Model {
    use mbsolve_model::{Motion, MotionDof, TimeFn};
    let (w1, w2) = (1.0, 3.0);
    let dw = w2 - w1;
    let f = move |t: f64| -> [f64; 3] {
        if blend == 0.0 {
            return if t < tk {
                [w1 * t, w1, 0.0]
            } else {
                [w1 * tk + w2 * (t - tk), w2, 0.0]
            };
        }
        let (a, width) = (tk - blend, 2.0 * blend);
        let x = ((t - a) / width).clamp(0.0, 1.0);
        let s = x * x * x * (10.0 - 15.0 * x + 6.0 * x * x);
        let ds = 30.0 * x * x * (1.0 - x) * (1.0 - x) / width;
        let integral = x.powi(4) * (2.5 - 3.0 * x + x * x) * width;
        let past = (t - a - width).max(0.0);
        [
            w1 * t + dw * (integral + past),
            w1 + dw * s,
            if (0.0..1.0).contains(&x) {
                dw * ds
            } else {
                0.0
            },
        ]
    };
    let mut m = models::chain(2);
    m.motions.push(Motion::on_joint(
        1,
        1,
        MotionDof::Rotation,
        std::sync::Arc::new(TimeFn(f)),
    ));
    m
}

/// A MOTION whose velocity jumps (piecewise-linear rotation, kink at
/// t = 0.2537) on a two-link chain: SI2 fails near the kink with a message
/// that names MOTION/1 and says the motion is not smooth enough for SI2,
/// keeping the outputs before it; I3 gets through with |Φ| < 1e-8. The same
/// chain with the velocity change blended over ±0.01 s (C²) runs with SI2,
/// and the kink detector does not flag it. Measured: SI2 stops at
/// t = 0.2537 with the step (1.8e-16) below HMIN (machine precision), I3
/// completes in 148 steps with |Φ| ≤ 1e-15, the blended motion takes 188
/// SI2 steps with both residuals ≤ 1.3e-15.
#[test]
fn si2_rejects_a_motion_with_a_velocity_jump() {
    use mbsolve_solver::SolverError;
    let tk = 0.2537;
    let kinked = driven_chain(tk, 0.0);
    let (i3, n3) = run(&kinked, &settings(1e-4, false), 0.5, 0.01);
    let phi = i3
        .frames
        .iter()
        .map(|f| constraint_residuals(&i3.sys, &mut i3.data.clone(), &f.q, &f.u, f.t).0)
        .fold(0.0, f64::max);
    println!("kinked motion, I3: completed 0.5 s in {n3} steps, max |Phi| {phi:.2e}");
    assert_eq!(i3.frames.last().unwrap().t, 0.5);
    assert!(phi < 1e-8, "{phi}");

    let mut sim = Simulation::new(&kinked).unwrap();
    let err = sim
        .dynamic(0.5, None, Some(0.01), &settings(1e-4, true))
        .unwrap_err();
    println!("kinked motion, SI2: {err}");
    let SolverError::Integration { t, message } = &err else {
        panic!("expected an integration failure, got {err}");
    };
    assert!((t - tk).abs() < 1e-6, "failed at {t}");
    assert!(
        message.contains("MOTION/1: its velocity jumps"),
        "{message}"
    );
    assert!(message.contains("not smooth") || message.contains("smooth and twice differentiable"));
    assert!(message.contains("SI2"), "{message}");
    let last = sim.frames.last().unwrap().t;
    assert!((0.25..tk).contains(&last), "outputs kept up to {last}");

    let smooth = driven_chain(tk, 0.01);
    let (si2, n2) = run(&smooth, &settings(1e-4, true), 0.5, 0.01);
    let (phi, vel) = si2
        .frames
        .iter()
        .map(|f| constraint_residuals(&si2.sys, &mut si2.data.clone(), &f.q, &f.u, f.t))
        .fold((0.0f64, 0.0f64), |a, b| (a.0.max(b.0), a.1.max(b.1)));
    println!(
        "blended motion, SI2: {n2} steps, max |Phi| {phi:.2e}, max velocity residual {vel:.2e}"
    );
    assert!(phi < 1e-10 && vel < 1e-10, "{phi} {vel}");
    assert_eq!(mbsolve_solver::si2::non_smooth_motion(&si2.model, tk), None);
    assert!(mbsolve_solver::si2::non_smooth_motion(&sim.model, tk - 1e-12).is_some());
}

/// The fixed-step option with SI2 (seeds: FIXIT supports I3 and SI2): 1200
/// steps of DTOUT/4 at order 1 with 3 corrector iterations each, the RTI
/// report titled "Fixed Step GSTIFF/SI2", the log naming SI2, and both
/// constraint levels at round-off in the outputs (velocities not
/// projected; measured 2.2e-16 and 8.9e-16; the period error, 8.4e-3, is
/// backward Euler's damping). CONSTANT_BDF with SI2: every step HMAX = 1e-3
/// and the period within 1e-5 (measured 2.2e-6, order up to 4).
#[test]
fn si2_fixed_step_and_constant_bdf() {
    let model = models::pendulum(1.0, 9.81);
    let mut sim = Simulation::new(&model).unwrap();
    let s = IntegratorSettings {
        fixit: Some(3),
        hratio: Some(4),
        ..settings(1e-9, true)
    };
    let st = sim.dynamic(3.0, None, Some(0.01), &s).unwrap();
    let (phi, vel) = sim
        .frames
        .iter()
        .map(|f| constraint_residuals(&sim.sys, &mut sim.data.clone(), &f.q, &f.u, f.t))
        .fold((0.0f64, 0.0f64), |a, b| (a.0.max(b.0), a.1.max(b.1)));
    println!(
        "fixed-step GSTIFF/SI2: {} steps, max |Phi| {phi:.2e}, velocity residual {vel:.2e}, period error {:.2e}",
        st.steps,
        period_error(&sim)
    );
    assert_eq!((st.steps, st.corrector_iterations), (1200, 3600));
    assert!(sim
        .log
        .iter()
        .any(|l| l.contains("Integrator name : Fixed Step GSTIFF/SI2")));
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("dynamic analysis: fixed-step GSTIFF, SI2, order 1")));
    assert!(phi < 1e-10 && vel < 1e-10, "{phi} {vel}");

    let mut sim = Simulation::new(&model).unwrap();
    let s = IntegratorSettings {
        kind: mbsolve_model::IntegratorKind::ConstantBdf,
        hmax: Some(1e-3),
        ..settings(1e-6, true)
    };
    let st = sim.dynamic(2.0, Some(100), None, &s).unwrap();
    let e = period_error(&sim);
    println!(
        "CONSTANT_BDF/SI2: {} steps, order up to {}, period error {e:.2e}",
        st.steps, st.max_order_used
    );
    assert_eq!((st.steps, st.rejected_steps), (2000, 0));
    assert!(e < 1e-5, "period error {e}");
}

/// INTERPOLATE = ON with SI2 (four-bar, outputs every 5 ms, no HMAX): the
/// interpolated outputs are reconciled — positions assembled, velocities
/// projected (an interpolant is not on the velocity constraints) — so both
/// residuals stay below 1e-10, and the run takes fewer steps than OFF
/// (measured 181 vs 419 steps, residuals ≤ 3.6e-15).
#[test]
fn si2_interpolate_on() {
    let run_four_bar = |interpolate: bool| {
        let mut sim = Simulation::new(&models::four_bar()).unwrap();
        let s = IntegratorSettings {
            interpolate: Some(interpolate),
            ..settings(1e-5, true)
        };
        let st = sim.dynamic(2.0, None, Some(0.005), &s).unwrap();
        let (phi, vel) = sim
            .frames
            .iter()
            .map(|f| constraint_residuals(&sim.sys, &mut sim.data.clone(), &f.q, &f.u, f.t))
            .fold((0.0f64, 0.0f64), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        (st.steps, phi, vel)
    };
    let (on, phi, vel) = run_four_bar(true);
    let (off, phi_off, vel_off) = run_four_bar(false);
    println!("SI2 INTERPOLATE: ON {on} steps, |Phi| {phi:.2e}, velocity residual {vel:.2e}; OFF {off} steps, {phi_off:.2e}, {vel_off:.2e}");
    assert!(phi < 1e-10 && vel < 1e-10, "{phi} {vel}");
    assert!(on < off, "{on} vs {off}");
}
