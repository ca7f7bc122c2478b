//! ABAM and RKF45 on plain ODEs with analytic solutions: observed orders,
//! tolerance proportionality, the stiffness monitor and the restart that
//! `AfterStep::Restart` asks for.

use mbsolve_integrate::{
    Abam, AfterStep, DaeIntegrator, Event, OdeParams, OdeProblem, ProblemError, Rkf45, VarClass,
};

/// y1' = y2, y2' = −y1 from (0, 1): y = (sin t, cos t).
struct Oscillator {
    classes: Vec<VarClass>,
}

impl Oscillator {
    fn new() -> Self {
        Oscillator {
            classes: vec![VarClass::Displacement, VarClass::Velocity],
        }
    }
}

impl OdeProblem for Oscillator {
    fn size(&self) -> usize {
        2
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn rhs(&mut self, _t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError> {
        out[0] = y[1];
        out[1] = -y[0];
        Ok(())
    }
    fn describe_variable(&self, i: usize) -> String {
        format!("y{i}")
    }
}

fn params(error: f64, hmax: f64, max_order: usize) -> OdeParams {
    OdeParams {
        error,
        rel_abs_tol_ratio: 1.0,
        vel_tol_factor: 1.0,
        hmax,
        hmin: 1e-14,
        h0_max: hmax,
        max_order,
        maxit: 10,
    }
}

fn oscillator_error(y: &[f64], t: f64) -> f64 {
    (y[0] - t.sin()).abs().max((y[1] - t.cos()).abs())
}

/// RKF45 at a fixed step (tolerance so loose the step stays at HMAX): the
/// global error at t = 4 falls by 2⁵ per halving (observed order 5 ± 0.3,
/// the propagated 5th-order solution).
#[test]
fn rkf45_observed_order_is_five() {
    let end = 4.0;
    let errors: Vec<f64> = [0.2, 0.1, 0.05]
        .iter()
        .map(|&h| {
            let mut p = Oscillator::new();
            let mut integ = Rkf45::new(&mut p, params(1e3, h, 5), 0.0, &[0.0, 1.0]).unwrap();
            integ.advance_to(end).unwrap();
            assert_eq!(integ.stats.rejected_steps, 0);
            oscillator_error(integ.y(), end)
        })
        .collect();
    for w in errors.windows(2) {
        let order = (w[0] / w[1]).log2();
        assert!((order - 5.0).abs() < 0.3, "{errors:?}: order {order}");
    }
}

/// ABAM held at order k (max_order = k) at a fixed step: the PECE pair of
/// order k (k-step Bashforth, Moulton of order k + 1) has global order
/// k + 1; observed from h = 0.02 and 0.01 within 0.35.
#[test]
fn abam_observed_order_at_fixed_orders() {
    let end = 4.0;
    for k in 1..=5 {
        let errors: Vec<f64> = [0.02, 0.01]
            .iter()
            .map(|&h| {
                let mut p = Oscillator::new();
                let mut prm = params(1e3, h, k);
                // The start-up climbs orders 1..k from a tiny first step,
                // whose error is far below the fixed-step one.
                prm.h0_max = 1e-6;
                let mut integ = Abam::new(&mut p, prm, 0.0, &[0.0, 1.0]).unwrap();
                integ.advance_to(end).unwrap();
                assert_eq!(integ.stats.max_order_used, k);
                oscillator_error(integ.y(), end)
            })
            .collect();
        let order = (errors[0] / errors[1]).log2();
        assert!(
            (order - (k as f64 + 1.0)).abs() < 0.35,
            "max_order {k}: {errors:?}, observed order {order}"
        );
    }
}

/// Variable step: the global error follows the tolerance. Over five decades
/// of ERROR the log-log slope of the error at t = 10 is within [0.8, 1.2]
/// and the error stays below 100·ERROR.
#[test]
fn global_error_is_proportional_to_the_tolerance() {
    let end = 10.0;
    for method in ["ABAM", "RKF45"] {
        let tols = [1e-5, 1e-7, 1e-9, 1e-10];
        let errors: Vec<f64> = tols
            .iter()
            .map(|&tol| {
                let mut p = Oscillator::new();
                let prm = OdeParams {
                    h0_max: 1e-8,
                    ..params(tol, 1.0, 12)
                };
                let y = if method == "ABAM" {
                    let mut i = Abam::new(&mut p, prm, 0.0, &[0.0, 1.0]).unwrap();
                    i.advance_to(end).unwrap();
                    i.y().to_vec()
                } else {
                    let mut i = Rkf45::new(&mut p, prm, 0.0, &[0.0, 1.0]).unwrap();
                    i.advance_to(end).unwrap();
                    i.y().to_vec()
                };
                oscillator_error(&y, end)
            })
            .collect();
        for (e, tol) in errors.iter().zip(&tols) {
            assert!(*e < 100.0 * tol, "{method}: error {e:e} at ERROR {tol:e}");
        }
        let slope = (errors[0] / errors[3]).log10() / (tols[0] / tols[3]).log10();
        assert!(
            (0.8..=1.2).contains(&slope),
            "{method}: slope {slope}, errors {errors:?}"
        );
    }
}

/// y' = −1000 (y − cos t): stiff once the transient has died. Both
/// explicit methods keep h·1000 at their stability boundary and say so.
struct StiffDecay;

impl OdeProblem for StiffDecay {
    fn size(&self) -> usize {
        1
    }
    fn classes(&self) -> &[VarClass] {
        &[VarClass::Displacement]
    }
    fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError> {
        out[0] = -1000.0 * (y[0] - t.cos());
        Ok(())
    }
    fn describe_variable(&self, _i: usize) -> String {
        "y".into()
    }
}

#[test]
fn explicit_methods_detect_stiffness_and_advise_vstiff() {
    for method in ["ABAM", "RKF45"] {
        let mut p = StiffDecay;
        let prm = params(1e-4, 1.0, 12);
        let mut integ: Box<dyn DaeIntegrator> = if method == "ABAM" {
            Box::new(Abam::new(&mut p, prm, 0.0, &[1.0]).unwrap())
        } else {
            Box::new(Rkf45::new(&mut p, prm, 0.0, &[1.0]).unwrap())
        };
        integ.advance_to(2.0).unwrap();
        // Quasi-steady solution y ≈ cos t + 1e-3 sin t.
        let y = integ.solution().0[0];
        assert!((y - (2f64.cos() + 1e-3 * 2f64.sin())).abs() < 1e-4);
        let events = integ.take_events();
        let advice = events
            .iter()
            .find(|e| matches!(e, Event::StiffnessDetected { .. }))
            .unwrap_or_else(|| panic!("{method}: no stiffness event"));
        assert!(advice.to_string().contains("VSTIFF"), "{advice}");
        // The steps stayed near the stability boundary 1000·h ≈ 0.2–4:
        // the mean step is below 5e-3 where the accuracy alone would allow
        // steps of ~0.1 (ERROR 1e-4 on cos t).
        let stats = integ.statistics();
        let mean = 2.0 / stats.steps as f64;
        eprintln!(
            "{method} on y' = -1000 (y - cos t): {} steps, {} rejected, {} f-evaluations, steps {:.2e}..{:.2e}",
            stats.steps, stats.rejected_steps, stats.residual_evaluations, stats.min_step, stats.max_step
        );
        assert!(mean < 5e-3, "{method}: mean step {mean}");
    }
}

/// The oscillator written in shifted coordinates z = y − s: at t ≥ 1 the
/// problem re-bases (s ← s + z, z ← 0 for the first state) and asks for a
/// restart. The solution stays on sin t.
struct Rebasing {
    shift: f64,
    rebased: usize,
    classes: Vec<VarClass>,
}

impl OdeProblem for Rebasing {
    fn size(&self) -> usize {
        2
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn rhs(&mut self, _t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError> {
        out[0] = y[1];
        out[1] = -(y[0] + self.shift);
        Ok(())
    }
    fn after_step(&mut self, t: f64, y: &mut [f64]) -> Result<AfterStep, ProblemError> {
        if t >= 1.0 && self.rebased == 0 {
            self.shift += y[0];
            y[0] = 0.0;
            self.rebased += 1;
            return Ok(AfterStep::Restart);
        }
        Ok(AfterStep::Continue)
    }
    fn describe_variable(&self, i: usize) -> String {
        format!("z{i}")
    }
}

#[test]
fn a_restart_from_after_step_keeps_the_solution() {
    for method in ["ABAM", "RKF45"] {
        let mut p = Rebasing {
            shift: 0.0,
            rebased: 0,
            classes: vec![VarClass::Displacement, VarClass::Velocity],
        };
        let prm = params(1e-8, 0.5, 12);
        let y = if method == "ABAM" {
            let mut i = Abam::new(&mut p, prm, 0.0, &[0.0, 1.0]).unwrap();
            i.advance_to(3.0).unwrap();
            // The order rose again after the restart.
            assert!(i.order() > 3, "order {}", i.order());
            i.y().to_vec()
        } else {
            let mut i = Rkf45::new(&mut p, prm, 0.0, &[0.0, 1.0]).unwrap();
            i.advance_to(3.0).unwrap();
            i.y().to_vec()
        };
        assert_eq!(p.rebased, 1);
        let err = (y[0] + p.shift - 3f64.sin())
            .abs()
            .max((y[1] - 3f64.cos()).abs());
        assert!(err < 1e-6, "{method}: error {err:e}");
    }
}

/// ABAM steps past output times and interpolates its Adams polynomial
/// there (Shampine–Gordon INTRP): on the oscillator at ERROR 1e-9 and
/// HMAX = 1 the 50 outputs in [0, 5] are within 1e-7 of (sin t, cos t),
/// their rates within 1e-6, and the outputs do not change the steps (as
/// many as a run with no outputs).
#[test]
fn abam_interpolates_its_adams_polynomial() {
    let prm = OdeParams {
        h0_max: 1e-8,
        ..params(1e-9, 1.0, 12)
    };
    let (mut p, mut q) = (Oscillator::new(), Oscillator::new());
    let mut past = Abam::new(&mut p, prm.clone(), 0.0, &[0.0, 1.0]).unwrap();
    let (mut y, mut yp) = ([0.0; 2], [0.0; 2]);
    let (mut worst, mut worst_rate) = (0.0f64, 0.0f64);
    for i in 1..=50 {
        let t = 0.1 * i as f64;
        past.advance_past(t).unwrap();
        assert!(
            DaeIntegrator::interpolate(&past, t, &mut y, &mut yp),
            "t = {t}"
        );
        worst = worst.max(oscillator_error(&y, t));
        worst_rate = worst_rate.max((yp[0] - t.cos()).abs().max((yp[1] + t.sin()).abs()));
    }
    let steps = DaeIntegrator::statistics(&mut past).steps;
    let mut free = Abam::new(&mut q, prm, 0.0, &[0.0, 1.0]).unwrap();
    free.advance_past(5.0).unwrap();
    let free_steps = DaeIntegrator::statistics(&mut free).steps;
    println!(
        "ABAM: interpolation error {worst:.2e}, rate {worst_rate:.2e}; {steps} steps past outputs, {free_steps} with none"
    );
    assert!(
        worst < 1e-7 && worst_rate < 1e-6,
        "{worst:e}, {worst_rate:e}"
    );
    assert_eq!(steps, free_steps);
}
