//! HHT and NEWMARK: observed orders, numerical damping, a constrained pair
//! under error control, ERROR and ADAPTIVITY honoured.

mod common;

use common::{oscillator, tied_pair, Modes};
use mbsolve_integrate::{Hht, HhtParams};

/// Undamped x'' = −x from x = 1 at fixed step h (ERROR never binding):
/// error at t = 2 against cos t.
fn oscillator_error(params: HhtParams) -> f64 {
    let mut p = oscillator(&[1.0]);
    let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-1.0], &[]).unwrap();
    g.advance_to(2.0).unwrap();
    ((g.q()[0] - 2f64.cos()).powi(2) + (g.u()[0] + 2f64.sin()).powi(2)).sqrt()
}

fn observed_order(make: impl Fn(f64) -> HhtParams, h: f64) -> (f64, f64, f64) {
    let (e1, e2) = (oscillator_error(make(h)), oscillator_error(make(h / 2.0)));
    (e1, e2, (e1 / e2).log2())
}

/// HHT (α = −0.3, −0.1) and trapezoidal Newmark are second order,
/// Newmark (β, γ) = (0.36, 0.7) first order: log2(e(h)/e(h/2)) within
/// 0.1 of the order at h = 0.01.
#[test]
fn observed_orders_on_the_oscillator() {
    for alpha in [-0.3, -0.1] {
        let (e1, e2, s) = observed_order(|h| HhtParams::hht(alpha, 1e3, h), 0.01);
        println!("HHT alpha = {alpha}: {e1:.3e} -> {e2:.3e}, order {s:.3}");
        assert!((s - 2.0).abs() < 0.1, "HHT order {s}");
    }
    let (e1, e2, s) = observed_order(|h| HhtParams::newmark(0.36, 0.7, 1e3, h), 0.01);
    println!("NEWMARK 0.36/0.7: {e1:.3e} -> {e2:.3e}, order {s:.3}");
    assert!((s - 1.0).abs() < 0.1, "Newmark order {s}");
    let (e1, e2, s) = observed_order(|h| HhtParams::newmark(0.25, 0.5, 1e3, h), 0.01);
    println!("NEWMARK 0.25/0.5: {e1:.3e} -> {e2:.3e}, order {s:.3}");
    assert!((s - 2.0).abs() < 0.1, "trapezoidal order {s}");
}

/// Mode amplitude from its energy: sqrt(q² + u²/ω²).
fn amplitude(q: f64, u: f64, w: f64) -> f64 {
    (q * q + u * u / (w * w)).sqrt()
}

/// Two uncoupled modes ω = 1 and ω = 1000 at h = 0.01 (ωh = 0.01 and 10)
/// over 628 steps (about one period of the low mode): α = −0.3 removes
/// the high mode (spectral radius 0.54 per step at ωh → ∞) and keeps the
/// low one within 1e-3; α = 0 (trapezoidal) keeps both.
#[test]
fn hht_damps_the_high_mode_and_keeps_the_low_one() {
    let tend = 628.0 * 0.01;
    let run = |alpha: f64| {
        let mut p = oscillator(&[1.0, 1e6]);
        let params = HhtParams::hht(alpha, 1e3, 0.01);
        let mut g = Hht::new(
            &mut p,
            params,
            0.0,
            &[1.0, 1.0],
            &[0.0, 0.0],
            &[-1.0, -1e6],
            &[],
        )
        .unwrap();
        g.advance_to(tend).unwrap();
        (
            amplitude(g.q()[0], g.u()[0], 1.0),
            amplitude(g.q()[1], g.u()[1], 1e3),
        )
    };
    let (low, high) = run(-0.3);
    println!("alpha = -0.3: low-mode amplitude ratio {low:.6}, high-mode {high:.3e}");
    assert!((low - 1.0).abs() < 1e-3, "low mode {low}");
    assert!(high < 1e-6, "high mode {high}");
    let (low0, high0) = run(0.0);
    println!("alpha = 0: low-mode amplitude ratio {low0:.6}, high-mode {high0:.6}");
    assert!((low0 - 1.0).abs() < 1e-3 && (high0 - 1.0).abs() < 1e-3);
}

/// Two unit masses tied by q0 = q1, one spring K = 4 on q0: the pair
/// oscillates at ω = √2; the constraint holds to round-off, λ is the
/// tie force K q0 / 2, and the error control keeps the solution within
/// 1e-3 of cos(√2 t) at ERROR = 1e-6 with variable steps.
#[test]
fn constrained_pair_with_error_control() {
    let mut p = Modes {
        m: vec![1.0, 1.0],
        c: vec![0.0, 0.0],
        k: vec![4.0, 0.0],
        tie: true,
    };
    let mut params = HhtParams::hht(-0.3, 1e-6, 0.1);
    params.hinit = 1e-3;
    let mut g = tied_pair(params, &mut p);
    let w = 2f64.sqrt();
    let mut worst: f64 = 0.0;
    for k in 1..=40 {
        let t = 0.1 * k as f64;
        g.advance_to(t).unwrap();
        assert!((g.q()[0] - g.q()[1]).abs() < 1e-12);
        worst = worst.max((g.q()[0] - (w * t).cos()).abs());
    }
    g.sync_stats();
    println!("constrained pair: max error {worst:.2e}, {:?}", g.stats);
    assert!(worst < 1e-3, "error {worst}");
    assert!(g.stats.steps > 40 && g.stats.jacobian_evaluations < g.stats.steps / 4);
}

/// Error control works: on x'' = −100 x, ERROR = 1e-7 instead of 1e-5
/// gives a global error at least 10× smaller, with more steps.
#[test]
fn tighter_error_gives_smaller_error() {
    let run = |error: f64| {
        let mut p = oscillator(&[100.0]);
        let mut params = HhtParams::hht(-0.3, error, 0.1);
        params.hinit = 1e-4;
        let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-100.0], &[]).unwrap();
        let mut worst: f64 = 0.0;
        for k in 1..=10 {
            let t = 0.1 * k as f64;
            g.advance_to(t).unwrap();
            worst = worst.max((g.q()[0] - (10.0 * t).cos()).abs());
        }
        (worst, g.stats.steps)
    };
    let (e1, n1) = run(1e-5);
    let (e2, n2) = run(1e-7);
    println!("ERROR 1e-5: error {e1:.2e} in {n1} steps; ERROR 1e-7: {e2:.2e} in {n2} steps");
    assert!(e2 < e1 / 10.0, "{e1} vs {e2}");
    assert!(n2 > n1);
}

/// ADAPTIVITY adds ADAPTIVITY/h to the tolerance only while h < 100·HMIN:
/// on x'' = −100 x at ERROR = 1e-9 with HMIN = 1e-4, ADAPTIVITY = 1e-8
/// (1e-5 extra tolerance at h = 1e-3) takes fewer steps than 0 (off),
/// and with HMIN = 1e-7 (threshold 1e-5, below the steps taken) it
/// changes nothing.
#[test]
fn adaptivity_relaxes_the_tolerance_below_100_hmin() {
    let steps = |hmin: f64, adaptivity: f64| {
        let mut p = oscillator(&[100.0]);
        let mut params = HhtParams::hht(-0.3, 1e-9, 0.1);
        params.hinit = 1e-3;
        params.hmin = hmin;
        params.adaptivity = adaptivity;
        let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-100.0], &[]).unwrap();
        g.advance_to(1.0).unwrap();
        g.stats.steps
    };
    let (off, on) = (steps(1e-4, 0.0), steps(1e-4, 1e-8));
    let (off_small, on_small) = (steps(1e-7, 0.0), steps(1e-7, 1e-8));
    println!(
        "HMIN 1e-4: {off} steps without, {on} with ADAPTIVITY; HMIN 1e-7: {off_small}, {on_small}"
    );
    assert!(2 * on < off, "{on} vs {off}");
    assert_eq!(off_small, on_small);
}

/// The acceleration HHT reports (y′'s second half, which outputs and
/// reactions read) is the true q̈ that satisfies the equations of motion
/// at t_{n+1}, not Arnold–Brüls' pseudo-acceleration a = (1 + α) q̈_{n+1}
/// − α q̈_n: on x″ = −x, q̈ + q = 0 to round-off (the pseudo-acceleration
/// is off by O(αh)), and q̈ is second-order accurate against −cos t.
#[test]
fn reported_acceleration_satisfies_the_equations_of_motion() {
    use mbsolve_integrate::DaeIntegrator;
    let accel_error = |h: f64| {
        let mut p = oscillator(&[1.0]);
        let params = HhtParams::hht(-0.3, 1e3, h);
        let mut g = Hht::new(&mut p, params, 0.0, &[1.0], &[0.0], &[-1.0], &[]).unwrap();
        g.advance_to(2.0).unwrap();
        let (y, yp) = g.solution();
        assert!(
            (yp[1] + y[0]).abs() < 1e-13,
            "q̈ + q = {:e} at h = {h}",
            yp[1] + y[0]
        );
        (yp[1] + 2f64.cos()).abs()
    };
    let (e1, e2) = (accel_error(0.01), accel_error(0.005));
    let order = (e1 / e2).log2();
    println!("HHT acceleration error {e1:.3e} -> {e2:.3e}, order {order:.3}");
    assert!((order - 2.0).abs() < 0.1, "acceleration order {order}");
}
