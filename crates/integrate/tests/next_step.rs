//! `DaeIntegrator::set_next_step` (SENSOR STEPSIZE without RESTART, Adams:
//! STEPSIZE "redefines the trial integration step size"): the next step
//! has the given size, and the method keeps its order and history (its
//! Nordsieck array or divided differences rescaled to the new step), where
//! a restart would begin again at order 1 from the current state only.

mod common;

use common::{exact, params, Linear, TestProblem};
use mbsolve_integrate::{BdfParams, DaeIntegrator, FixedStep, Gstiff, Wstiff};

/// The step after `set_next_step(h)`.
const H: f64 = 1e-6;

/// Runs the oscillator (y = (cos t, −sin t)) to t = 1 at ERROR 1e-8, sets
/// the next step to H and takes one step: it is H long, at the order the
/// method had, and the run then reaches t = 2 with the error of the
/// tolerance. A step below HMIN is refused.
fn next_step_keeps_the_order<S: DaeIntegrator>(name: &str, s: &mut S, order: fn(&S) -> usize) {
    s.advance_to(1.0).unwrap();
    let k = order(s);
    let before = s.statistics();
    assert!(k >= 3, "{name}: order {k} at t = 1");
    assert!(before.min_step > 10.0 * H, "{name}: {}", before.min_step);
    assert!(s.set_next_step(H), "{name}: STEPSIZE refused");
    s.step_toward(2.0, true).unwrap();
    let after = s.statistics();
    assert_eq!(after.steps, before.steps + 1, "{name}");
    assert!(
        (s.time() - (1.0 + H)).abs() < 1e-15,
        "{name}: t = {}",
        s.time()
    );
    assert_eq!(after.min_step, H, "{name}");
    assert_eq!(order(s), k, "{name}: order after the step");
    assert!(!s.set_next_step(1e-13), "{name}: a step below HMIN");
    s.advance_to(2.0).unwrap();
    let y = s.solution().0;
    let want = exact(Linear::Oscillator, 0, 2.0);
    let err = (y[0] - want[0]).abs().max((y[1] - want[1]).abs());
    println!("{name}: order {k}, error at t = 2 {err:.2e}");
    assert!(err < 1e-6, "{name}: error {err:e}");
}

#[test]
fn set_next_step_keeps_order_and_history() {
    let kind = Linear::Oscillator;
    let (y0, yp0) = (exact(kind, 0, 0.0), exact(kind, 1, 0.0));
    let p = || BdfParams {
        hmin: 1e-12,
        hinit: 1e-3,
        ..params(1e-8, 6, 0.5)
    };
    let mut prob = TestProblem::new(kind);
    next_step_keeps_the_order(
        "GSTIFF",
        &mut Gstiff::new(&mut prob, p(), 0.0, &y0, &yp0),
        |s| s.order(),
    );
    let mut prob = TestProblem::new(kind);
    next_step_keeps_the_order(
        "WSTIFF",
        &mut Wstiff::new(&mut prob, p(), 0.0, &y0, &yp0),
        |s| s.order(),
    );
}

/// Fixed steps (the fixed-step option, CONSTANT_BDF) cannot take a
/// STEPSIZE.
#[test]
fn fixed_steps_refuse_set_next_step() {
    let kind = Linear::Oscillator;
    let (y0, yp0) = (exact(kind, 0, 0.0), exact(kind, 1, 0.0));
    for constant in [false, true] {
        let mut prob = TestProblem::new(kind);
        let p = BdfParams {
            fixed: (!constant).then_some(FixedStep {
                iterations: 3,
                maxerr: f64::INFINITY,
            }),
            constant_step: constant,
            ..params(1e-6, 3, 0.01)
        };
        let mut g = Gstiff::new(&mut prob, p, 0.0, &y0, &yp0);
        g.advance_to(0.1).unwrap();
        assert!(!g.set_next_step(1e-3), "constant_step {constant}");
    }
}
