//! A Newton iterate outside the model's domain is a corrector failure, not
//! the end of the run. A diverging corrector can overflow the model to a
//! non-finite residual (the adamspy-drillstring deck, stripped of its user
//! subroutines, did so in its first GSTIFF step and stopped at t = 5e-4).
//! As with a divergent iteration, the step is retried smaller (SUNDIALS
//! IDA treats a residual function's recoverable failure the same way). At
//! the predicted point, before any update, the error stays fatal: there it
//! is the model's, not the iteration's.

mod common;

use common::params;
use mbsolve_integrate::{
    BdfParams, DaeProblem, Event, Gstiff, ProblemError, SlotAssembler, VarClass,
};

/// y' = −K atan(y), defined only for |y| ≤ LIMIT (outside, the residual
/// fails as a model's non-finite residual does). From y = 5 with a first
/// step of 1, Newton's iterates swing to −4.9 and then past +10.
struct Saturating {
    classes: Vec<VarClass>,
}

const K: f64 = 10.0;
const LIMIT: f64 = 10.0;

impl DaeProblem for Saturating {
    fn size(&self) -> usize {
        1
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn residual(
        &mut self,
        _t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        if y[0].abs() > LIMIT {
            return Err(ProblemError("non-finite residual in eq0".into()));
        }
        out[0] = yp[0] + K * y[0].atan();
        Ok(())
    }
    fn jacobian(
        &mut self,
        _t: f64,
        y: &[f64],
        _yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        a.add(0, 0, c + K / (1.0 + y[0] * y[0]));
        Ok(())
    }
    fn describe_variable(&self, i: usize) -> String {
        format!("y{i}")
    }
    fn describe_equation(&self, i: usize) -> String {
        format!("eq{i}")
    }
}

/// The reference: classical RK4 at h = 1e-4 (error far below 1e-6).
fn reference(t_end: f64) -> f64 {
    let f = |y: f64| -K * y.atan();
    let (n, mut y) = (30_000, 5.0);
    let h = t_end / n as f64;
    for _ in 0..n {
        let k1 = f(y);
        let k2 = f(y + 0.5 * h * k1);
        let k3 = f(y + 0.5 * h * k2);
        let k4 = f(y + h * k3);
        y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
    }
    y
}

#[test]
fn an_iterate_outside_the_domain_cuts_the_step() {
    let mut p = Saturating {
        classes: vec![VarClass::Displacement],
    };
    let bdf = BdfParams {
        hinit: 1.0,
        ..params(1e-6, 5, 1.0)
    };
    // y'(0) = 0 (not the consistent −K atan 5): the predictor stays at 5,
    // inside the domain; the iterates leave it.
    let mut g = Gstiff::new(&mut p, bdf, 0.0, &[5.0], &[0.0]);
    g.advance_to(3.0).unwrap();
    let failure = g
        .events
        .iter()
        .find(|e| matches!(e, Event::CorrectorFailure { .. }))
        .map(|e| e.to_string())
        .expect("a corrector failure");
    assert!(failure.contains("non-finite residual in eq0"), "{failure}");
    let (y, want) = (g.y()[0], reference(3.0));
    assert!((y - want).abs() < 1e-4, "y(3) = {y}, reference {want}");
}

/// The same error at the predicted point (y = 12 from the start) is the
/// model's: the run fails with it.
#[test]
fn the_error_at_the_predicted_point_is_fatal() {
    let mut p = Saturating {
        classes: vec![VarClass::Displacement],
    };
    let mut g = Gstiff::new(&mut p, params(1e-6, 5, 0.1), 0.0, &[12.0], &[0.0]);
    let e = g.advance_to(1.0).unwrap_err().to_string();
    assert!(e.contains("non-finite residual in eq0"), "{e}");
}
