//! GSTIFF: observed order, ADAPTIVITY, singular-matrix diagnosis, Gear's
//! l-vectors.

mod common;

use common::{params, Linear, TestProblem};
use mbsolve_integrate::gstiff::bdf_l;
use mbsolve_integrate::{
    BdfParams, DaeProblem, Event, Gstiff, ProblemError, SlotAssembler, VarClass,
};

fn global_error(k: usize, h: f64) -> f64 {
    let mut p = TestProblem::new(Linear::Oscillator);
    let params = BdfParams {
        hmin: 1e-12,
        hinit: h,
        ..params(1e3, k, h) // never binding: HMAX fixes the step
    };
    let mut g = Gstiff::new(&mut p, params, 0.0, &[1.0, 0.0], &[0.0, -1.0]);
    // y = (cos t, −sin t): derivatives cycle through (c, −s), (−s, −c), …
    let d: Vec<Vec<f64>> = (0..=k)
        .map(|j| match j % 4 {
            0 => vec![1.0, 0.0],
            1 => vec![0.0, -1.0],
            2 => vec![-1.0, 0.0],
            _ => vec![0.0, 1.0],
        })
        .collect();
    g.set_exact_history(&d, k);
    let tend = 2.0;
    g.advance_to(tend).unwrap();
    assert_eq!(g.order(), k, "order must stay at KMAX");
    let y = g.y();
    ((y[0] - tend.cos()).powi(2) + (y[1] + tend.sin()).powi(2)).sqrt()
}

/// Observed order on a smooth problem with KMAX = k and fixed steps:
/// log2(e(h)/e(h/2)) within 0.25 of k for k = 1..5.
#[test]
fn observed_order_matches_kmax() {
    for k in 1..=5 {
        let h = match k {
            1 | 2 => 0.01,
            _ => 0.04,
        };
        let (e1, e2) = (global_error(k, h), global_error(k, h / 2.0));
        let slope = (e1 / e2).log2();
        println!("KMAX = {k}: error {e1:.3e} -> {e2:.3e}, observed order {slope:.3}");
        assert!(
            (slope - k as f64).abs() < 0.25,
            "KMAX = {k}: observed order {slope}"
        );
    }
}

/// ADAPTIVITY adds ADAPTIVITY/h to the tolerance only while h < 100·HMIN.
/// On the oscillator at ERROR = 1e-12 with HMIN = 1e-5, HMAX = 1e-3
/// (every step below the 1e-3 threshold) the start-up needs steps under
/// HMIN, so the run fails without ADAPTIVITY and completes with
/// ADAPTIVITY = 1e-12; with HMIN = 1e-9 (threshold 1e-7, below every
/// step) ADAPTIVITY changes nothing.
#[test]
fn adaptivity_relaxes_the_tolerance_below_100_hmin() {
    let run = |error: f64, hmin: f64, hmax: f64, adaptivity: f64| {
        let mut p = TestProblem::new(Linear::Oscillator);
        let params = BdfParams {
            error,
            hmax,
            hmin,
            hinit: 1e-5,
            kmax: 6,
            maxit: 10,
            pattern: vec![true],
            error_classes: vec![VarClass::Displacement],
            corrector_classes: vec![VarClass::Displacement],
            adaptivity,
            fixed: None,
            constant_step: false,
            interpolate: false,
        };
        let mut g = Gstiff::new(&mut p, params, 0.0, &[1.0, 0.0], &[0.0, -1.0]);
        g.advance_to(1.0).map(|_| g.stats.steps)
    };
    let off = run(1e-12, 1e-5, 1e-3, 0.0);
    let on = run(1e-12, 1e-5, 1e-3, 1e-12);
    let (off_small, on_small) = (run(1e-10, 1e-9, 0.1, 0.0), run(1e-10, 1e-9, 0.1, 1e-12));
    println!("HMIN 1e-5: without ADAPTIVITY {off:?}, with {on:?}; HMIN 1e-9: {off_small:?}, {on_small:?}");
    assert!(off.unwrap_err().message.contains("fell below HMIN"));
    assert!(on.is_ok());
    assert_eq!(off_small.unwrap(), on_small.unwrap());
}

/// y0' + y0 = 0 with two copies of the same algebraic equation
/// (y1 + y2 = 1 and 2y1 + 2y2 = 2): the iteration matrix is singular and
/// the event names the dependent equation and unknown.
struct Duplicated {
    classes: Vec<VarClass>,
}
impl DaeProblem for Duplicated {
    fn size(&self) -> usize {
        3
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
        out[0] = yp[0] + y[0];
        out[1] = y[1] + y[2] - 1.0;
        out[2] = 2.0 * y[1] + 2.0 * y[2] - 2.0;
        Ok(())
    }
    fn jacobian(
        &mut self,
        _t: f64,
        _y: &[f64],
        _yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        a.add(0, 0, c + 1.0);
        a.add(1, 1, 1.0);
        a.add(1, 2, 1.0);
        a.add(2, 1, 2.0);
        a.add(2, 2, 2.0);
        Ok(())
    }
    fn describe_variable(&self, i: usize) -> String {
        format!("y{i}")
    }
    fn describe_equation(&self, i: usize) -> String {
        format!("eq{i}")
    }
}

#[test]
fn singular_matrix_names_the_dependent_equation() {
    let mut p = Duplicated {
        classes: vec![VarClass::Displacement; 3],
    };
    let params = BdfParams {
        hmin: 1e-6,
        hinit: 1e-2,
        ..params(1e-3, 6, 0.1)
    };
    let mut g = Gstiff::new(&mut p, params, 0.0, &[1.0, 0.5, 0.5], &[-1.0, 0.0, 0.0]);
    assert!(g.advance_to(1.0).is_err());
    let text = g
        .events
        .iter()
        .find(|e| matches!(e, Event::SingularMatrix { .. }))
        .map(|e| e.to_string())
        .expect("a singular-matrix event");
    assert!(
        text.ends_with("unknown y2 (equation eq2 depends on the equations before it)"),
        "{text}"
    );
}

#[test]
fn l_vectors_match_gear() {
    let l2 = bdf_l(2);
    assert!((l2[0] - 2.0 / 3.0).abs() < 1e-15 && (l2[2] - 1.0 / 3.0).abs() < 1e-15);
    let l3 = bdf_l(3);
    assert!((l3[0] - 6.0 / 11.0).abs() < 1e-15 && (l3[3] - 1.0 / 11.0).abs() < 1e-15);
    let l6 = bdf_l(6);
    assert!((l6[0] - 20.0 / 49.0).abs() < 1e-15 && (l6[6] - 1.0 / 1764.0).abs() < 1e-15);
}
