//! DSTIFF on small problems: the seed's Jacobian tables reproduced by the
//! corrector itself, dae_corrector_minit, dae_eval_expiry, the DDWNRM
//! scales and first step, and the observed order at fixed steps, k = 1..5.

mod common;

use common::{exact, Linear, TestProblem};
use mbsolve_integrate::dstiff::DSTIFF_MAX_ORDER;
use mbsolve_integrate::{
    DaeProblem, Dstiff, DstiffParams, JacobianRule, ProblemError, SlotAssembler, VarClass,
};

/// y' + y = 0 whose Jacobian is given scaled by `jac_factor` (1 =
/// exact; 2 = Newton contracts by 1/2 per iteration; 0.3 = it diverges
/// at rate 2.3), logging 'J' for each Jacobian and 'R' for each residual.
struct Decay {
    classes: Vec<VarClass>,
    jac_factor: f64,
    log: String,
}

type Outcome = Result<(), ProblemError>;

impl DaeProblem for Decay {
    fn size(&self) -> usize {
        1
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn residual(&mut self, _: f64, y: &[f64], yp: &[f64], g: &mut [f64]) -> Outcome {
        self.log.push('R');
        g[0] = yp[0] + y[0];
        Ok(())
    }
    fn jacobian(&mut self, _: f64, _: &[f64], _: &[f64], c: f64, a: &mut SlotAssembler) -> Outcome {
        self.log.push('J');
        a.add(0, 0, self.jac_factor * (c + 1.0));
        Ok(())
    }
    fn describe_variable(&self, _i: usize) -> String {
        "y".into()
    }
    fn describe_equation(&self, _i: usize) -> String {
        "G".into()
    }
}

fn decay(jac_factor: f64) -> Decay {
    Decay {
        classes: vec![VarClass::Displacement],
        jac_factor,
        log: String::new(),
    }
}

fn params(error: f64, h0: f64, maxit: usize, jacobian: JacobianRule) -> DstiffParams {
    let mut bdf = common::params(error, 5, h0);
    bdf.maxit = maxit;
    bdf.hmin = 1e-14;
    DstiffParams {
        bdf,
        vel_tol_factor: 1000.0,
        alg_tol_factor: 1000.0,
        jacobian,
        eval_expiry: None,
        corrector_minit: maxit,
        constraint_tol: f64::INFINITY,
    }
}

/// Which iterations M of the first corrector solve evaluated a new
/// Jacobian, from the problem's J/R log (each R is one iteration).
fn first_solve_schedule(log: &str, iterations: usize) -> Vec<bool> {
    let mut out = Vec::new();
    let mut fresh = false;
    for ch in log.chars() {
        match ch {
            'J' => fresh = true,
            _ => {
                out.push(fresh);
                fresh = false;
            }
        }
        if out.len() == iterations {
            break;
        }
    }
    out
}

/// The seed's tables reproduced by the corrector itself: a problem
/// whose Newton iteration contracts only by 1/2 (Jacobian off by a
/// factor 2) at a tolerance of 1e-12 never converges in 8 iterations,
/// so the first solve shows the schedule for M = 0..7.
#[test]
fn corrector_evaluates_jacobians_on_the_seed_schedule() {
    for (rule, table) in [
        (
            JacobianRule { eval: 2, init: 2 },
            &[true, true, true, false, true][..],
        ),
        (
            JacobianRule { eval: 3, init: 2 },
            &[true, true, false, true, false, false, true, false][..],
        ),
    ] {
        let mut prob = decay(2.0);
        // y'0 = 0 keeps the first step at h0_max = 0.1 (a consistent
        // y'0 = −1 would bound it by 0.5/‖y'0‖ = 1e-12 and the
        // prediction would be exact).
        let mut d = Dstiff::new(&mut prob, params(1e-12, 0.1, 8, rule), 0.0, &[1.0], &[0.0]);
        // The run fails (the corrector never converges); the log is what is checked.
        let _ = d.advance_to(0.1);
        let log = d.problem().log.clone();
        assert_eq!(
            first_solve_schedule(&log, table.len()),
            table,
            "{rule:?}: log {log}"
        );
    }
}

/// dae_corrector_minit: a corrector diverging at rate 2.3 stops at
/// iteration minit (0-based), i.e. after minit + 1 residuals.
#[test]
fn divergence_is_checked_from_corrector_minit_on() {
    for minit in [2usize, 5] {
        let mut p = params(1e-6, 0.1, 10, JacobianRule { eval: 1, init: 0 });
        p.corrector_minit = minit;
        let mut prob = decay(0.3);
        // y'0 = 0: a first step of h0_max and a poor prediction.
        let mut d = Dstiff::new(&mut prob, p, 0.0, &[1.0], &[0.0]);
        let _ = d.advance_to(0.1);
        let log = d.problem().log.clone();
        let first = log.split("RR").next().unwrap_or("");
        let residuals = first.chars().filter(|&c| c == 'R').count() + 1;
        assert_eq!(residuals, minit + 1, "minit = {minit}: log {log}");
    }
}

/// dae_eval_expiry: with dae_jacob_eval = 1 every iteration has a new
/// Jacobian; after 3 steps the adaptive default reuses it.
#[test]
fn eval_expiry_returns_to_the_adaptive_default() {
    let every = JacobianRule { eval: 1, init: 0 };
    let run = |expiry: Option<u64>| {
        let mut p = params(1e-6, 0.01, 10, every);
        p.eval_expiry = expiry;
        p.corrector_minit = 2;
        let mut prob = decay(1.0);
        let mut d = Dstiff::new(&mut prob, p, 0.0, &[1.0], &[-1.0]);
        d.advance_to(1.0).unwrap();
        (d.stats.jacobian_evaluations, d.stats.corrector_iterations)
    };
    let (jac, its) = run(None);
    assert_eq!(jac, its, "dae_jacob_eval = 1: one Jacobian per iteration");
    let (jac_exp, its_exp) = run(Some(3));
    assert!(
        jac_exp * 4 < its_exp,
        "after expiry the Jacobian is reused: {jac_exp} Jacobians for {its_exp} iterations"
    );
}

/// DDWNRM weights: RTOL = ATOL = integr_tol·scale with the seeds'
/// class scales; the first step is h0_max unless 0.5/‖y'_0‖ is smaller:
/// w = 1e-3·(|1| + 1) = 2e-3, ‖y'_0‖ = 1/2e-3 = 500, so h0 = 1e-3.
#[test]
fn ddwnrm_scales_and_first_step() {
    let mut p = params(1e-3, 1.0, 4, JacobianRule::ADAPTIVE);
    p.vel_tol_factor = 10.0;
    p.alg_tol_factor = 100.0;
    assert_eq!(p.scale(VarClass::Displacement), 1.0);
    assert_eq!(p.scale(VarClass::UserState), 1.0);
    assert_eq!(p.scale(VarClass::Velocity), 10.0);
    assert_eq!(p.scale(VarClass::Multiplier), 100.0);
    p.corrector_minit = 2;
    for (h0_max, first) in [(1.0, 1e-3), (1e-8, 1e-8)] {
        p.bdf.hinit = h0_max;
        let mut prob = decay(1.0);
        let mut d = Dstiff::new(&mut prob, p.clone(), 0.0, &[1.0], &[-1.0]);
        d.advance_to(0.1).unwrap();
        assert!(
            (d.stats.min_step - first).abs() < 1e-12 * first,
            "h0_max = {h0_max:e}: first step {:e}",
            d.stats.min_step
        );
    }
}

/// Largest error at t = 2 of DSTIFF at order k and constant step h
/// (h_max = h, a tolerance no step violates), started from the exact
/// history; and the highest order used.
fn error_at_fixed_steps(k: usize, h: f64) -> (f64, usize) {
    let kind = Linear::Oscillator;
    let mut prob = TestProblem::new(kind);
    let mut p = params(1e3, h, 10, JacobianRule::ADAPTIVE);
    p.bdf.kmax = k;
    p.corrector_minit = 2;
    let mut d = Dstiff::new(
        &mut prob,
        p,
        0.0,
        &exact(kind, 0, 0.0),
        &exact(kind, 1, 0.0),
    );
    let past: Vec<Vec<f64>> = (0..=k + 1)
        .map(|j| exact(kind, 0, -(j as f64) * h))
        .collect();
    d.set_exact_history(&past, h, k);
    d.advance_to(2.0).unwrap();
    let e = exact(kind, 0, 2.0);
    let err = (0..2).map(|i| (d.y()[i] - e[i]).abs()).fold(0.0, f64::max);
    (err, d.stats.max_order_used)
}

/// The observed order log2(e(h)/e(h/2)) is k within 0.3 for k = 1..5
/// (the BDF-k global error is O(h^k)), and the run stays at order k.
#[test]
fn observed_order_is_k_for_k_1_to_5() {
    for k in 1..=DSTIFF_MAX_ORDER {
        let h = if k <= 2 { 0.01 } else { 0.04 };
        let (a, order) = error_at_fixed_steps(k, h);
        let (b, _) = error_at_fixed_steps(k, h / 2.0);
        let observed = (a / b).log2();
        println!("DSTIFF k = {k}: errors {a:.2e} {b:.2e}, observed order {observed:.2}");
        assert_eq!(order, k, "the run stayed at order {k}");
        assert!(
            (observed - k as f64).abs() < 0.3,
            "k = {k}: errors {a:e}, {b:e}, observed order {observed}"
        );
    }
}
