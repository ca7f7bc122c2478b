//! HASTIFF: observed order for KMAX = 1..6 from exact history, agreement
//! with WSTIFF (whose history and step control it shares; only the
//! corrector's unknown differs), stiff stability, and the unscaled reuse of
//! a Jacobian formed at another step (PATTERN = F).

mod common;

use common::{exact, exact_history_run, params, DividedDifferenceBdf, Linear, TestProblem};
use mbsolve_integrate::{BdfParams, DaeIntegrator, Hastiff, Wstiff};

fn hastiff_run(kind: Linear, p: BdfParams, outputs: &[f64]) -> (f64, u64, (usize, usize)) {
    let run = exact_history_run(kind, p, outputs, DividedDifferenceBdf::Hastiff);
    (run.error, run.steps, run.orders)
}

/// Observed order on the oscillator with KMAX = k at fixed steps (HMAX,
/// ERROR never binding), from exact history: log2(e(h)/e(h/2)) within
/// 0.3 of k for k = 1..6 (seeds: HASTIFF's maximum order is six), the
/// order staying at KMAX.
#[test]
fn hastiff_observed_order_matches_kmax_up_to_six() {
    let kind = Linear::Oscillator;
    for k in 1..=6 {
        let h = match k {
            1 | 2 => 0.01,
            3 | 4 => 0.04,
            _ => 0.08,
        };
        let a = hastiff_run(kind, params(1e3, k, h), &[2.0]);
        let b = hastiff_run(kind, params(1e3, k, h / 2.0), &[2.0]);
        let slope = (a.0 / b.0).log2();
        println!(
            "HASTIFF KMAX = {k}: error {:.3e} ({} steps) -> {:.3e} ({} steps), observed order {slope:.3}",
            a.0, a.1, b.0, b.1
        );
        assert_eq!((a.2, b.2), ((k, k), (k, k)), "order must stay at KMAX");
        assert!(
            (slope - k as f64).abs() < 0.3,
            "KMAX = {k}: observed order {slope}"
        );
    }
}

/// With a fresh Jacobian every iteration (PATTERN = T) the corrector on y′
/// and WSTIFF's on y solve the same equations from the same prediction:
/// same steps, orders and solution up to rounding (measured at order ≤ 6:
/// the same 64 steps, largest difference 3.3e-16 in y at ERROR 1e-6).
#[test]
fn hastiff_follows_wstiff_with_a_fresh_jacobian() {
    let kind = Linear::Oscillator;
    let p = BdfParams {
        hinit: 1e-3,
        pattern: vec![true],
        ..params(1e-6, 6, 0.5)
    };
    let (mut pa, mut pb) = (TestProblem::new(kind), TestProblem::new(kind));
    let (y0, yp0) = (exact(kind, 0, 0.0), exact(kind, 1, 0.0));
    let mut h = Hastiff::new(&mut pa, p.clone(), 0.0, &y0, &yp0);
    let mut w = Wstiff::new(&mut pb, p, 0.0, &y0, &yp0);
    let mut worst = 0.0f64;
    for i in 1..=10 {
        let t = 0.5 * i as f64;
        h.advance_to(t).unwrap();
        w.advance_to(t).unwrap();
        for (a, b) in h.y().iter().zip(w.y()) {
            worst = worst.max((a - b).abs());
        }
    }
    let (sh, sw) = (h.statistics(), w.statistics());
    println!(
        "HASTIFF {} steps (order ≤ {}), WSTIFF {} steps (order ≤ {}), largest difference {worst:.2e}",
        sh.steps, sh.max_order_used, sw.steps, sw.max_order_used
    );
    assert_eq!(sh.steps, sw.steps);
    assert!(worst < 1e-8, "difference {worst}");
}

/// Prothero–Robinson with λ = −1e6: steps set by the smooth solution
/// (1e6 steps of 1/|λ| would be needed by an explicit method), error
/// within ERROR, with PATTERN = F (the Jacobian of an earlier step reused
/// unscaled, see hastiff.rs).
#[test]
fn hastiff_stiff_problem_takes_large_steps_with_an_adaptive_jacobian() {
    let kind = Linear::ProtheroRobinson(-1e6);
    let mut prob = TestProblem::new(kind);
    let p = BdfParams {
        hinit: 1e-4,
        pattern: vec![false],
        ..params(1e-6, 6, 0.1)
    };
    let mut w = Hastiff::new(&mut prob, p, 0.0, &[0.0], &[1.0]);
    let worst = common::prothero_robinson_error(&mut w);
    let st = w.statistics();
    println!(
        "HASTIFF λ = -1e6, PATTERN = F: {} steps, {} rejected, {} Jacobians, highest order {}, max error {worst:.2e}",
        st.steps, st.rejected_steps, st.jacobian_evaluations, st.max_order_used
    );
    assert!(st.steps < 200, "{} steps", st.steps);
    assert!(
        st.jacobian_evaluations < st.steps,
        "PATTERN = F reuses Jacobians"
    );
    assert!(worst < 1e-6, "error {worst}");
}
