//! CUBSPL and AKISPL in expressions: values and slopes against closed
//! forms, exact first and second derivatives against finite differences,
//! and the errors Adams' definitions call for.

use mbsolve_expr::Expr;
use mbsolve_model::Spline;
use std::sync::Arc;

fn bind(text: &str, splines: &[Arc<Spline>]) -> Result<Expr, String> {
    let e = Expr::parse(text).map_err(|e| e.message)?;
    e.with_splines(&|id| splines.iter().find(|s| s.id == id).cloned())
        .map_err(|e| e.message)
}

fn curve(id: u32, x: &[f64], f: impl Fn(f64) -> f64) -> Arc<Spline> {
    let y = x.iter().map(|&v| f(v)).collect();
    Arc::new(Spline::new(id, x.to_vec(), None, vec![y], false).unwrap())
}

/// A family y(x, z) = (1 + z)·sin(x) + z² sampled at z = 0, 1, 3.
fn surface(id: u32) -> Arc<Spline> {
    let x: Vec<f64> = (0..9).map(|k| 0.4 * k as f64).collect();
    let zs = vec![0.0, 1.0, 3.0];
    let y = zs
        .iter()
        .map(|z| x.iter().map(|v| (1.0 + z) * v.sin() + z * z).collect())
        .collect();
    Arc::new(Spline::new(id, x, Some(zs), y, false).unwrap())
}

/// CUBSPL(TIME, 0, id[, iord]) on samples of a cubic gives the cubic and
/// its derivatives exactly (not-a-knot), and the jets' d/dt and d²/dt² of
/// CUBSPL(…, 0) equal iord 1 and 2.
#[test]
fn cubspl_of_a_cubic_is_exact_with_its_derivatives() {
    let f = |t: f64| 0.5 + 2.0 * t - t * t + 0.25 * t * t * t;
    let s = [curve(7, &[0.0, 0.3, 1.0, 1.6, 2.5, 4.0], f)];
    let e0 = bind("CUBSPL(TIME, 0, 7)", &s).unwrap();
    let e1 = bind("CUBSPL(TIME, 0, 7, 1)", &s).unwrap();
    let e2 = bind("CUBSPL(TIME, 0, 7, 2)", &s).unwrap();
    for &t in &[0.1, 0.7, 1.3, 2.0, 3.9] {
        let [v, d, dd] = e0.eval_time(t).unwrap();
        let slope = 2.0 - 2.0 * t + 0.75 * t * t;
        let curvature = -2.0 + 1.5 * t;
        assert!((v - f(t)).abs() < 1e-12, "value at {t}");
        assert!((d - slope).abs() < 1e-11, "slope at {t}");
        assert!((dd - curvature).abs() < 1e-10, "curvature at {t}");
        let [v1, d1, _] = e1.eval_time(t).unwrap();
        assert!((v1 - slope).abs() < 1e-11);
        assert!((d1 - curvature).abs() < 1e-10);
        let [v2, d2, dd2] = e2.eval_time(t).unwrap();
        assert!((v2 - curvature).abs() < 1e-10);
        assert!((d2 - 1.5).abs() < 1e-10, "third derivative at {t}");
        assert_eq!(dd2, 0.0);
    }
}

/// AKISPL on evenly spaced samples of a quadratic reproduces it, through
/// a measure: d/dm of AKISPL(2·DX(1,2), 0, 3) is 2·f′(2m).
#[test]
fn akispl_of_a_quadratic_through_a_measure() {
    let f = |x: f64| 3.0 - x + 0.5 * x * x;
    let x: Vec<f64> = (0..8).map(|k| -2.0 + 0.75 * k as f64).collect();
    let s = [curve(3, &x, f)];
    let e = bind("AKISPL(2*DX(1,2), 0, 3)", &s).unwrap();
    for &m in &[-0.9, -0.2, 0.4, 1.1] {
        let mut g = [0.0];
        let (v, dt) = e.eval_with_gradient(0.0, &[m], &mut g).unwrap();
        assert!((v - f(2.0 * m)).abs() < 1e-12);
        assert!((g[0] - 2.0 * (-1.0 + 2.0 * m)).abs() < 1e-12);
        assert_eq!(dt, 0.0);
    }
}

/// Gradient and Hessian of a surface spline call in two measures, against
/// central differences of the value (gradient) and of the gradient
/// (Hessian), inside the data and beyond it in both x and z.
#[test]
fn surface_derivatives_match_finite_differences() {
    let s = [
        surface(11),
        curve(12, &[0.0, 1.0, 2.5, 3.0, 4.0], |x| x.cos()),
    ];
    for text in [
        "CUBSPL(DX(1,2), DY(1,2), 11) * 2 + DX(1,2)",
        "AKISPL(DX(1,2), DY(1,2), 11)",
        "AKISPL(DX(1,2)*DY(1,2), 0, 12, 1)",
        "CUBSPL(DY(1,2), 0, 12, 2) + CUBSPL(DX(1,2), 0, 12)",
    ] {
        let e = bind(text, &s).unwrap();
        for &m in &[[0.9, 0.5], [2.2, 2.1], [3.5, 4.3], [-0.3, -0.5]] {
            let mut g = [0.0; 3];
            let mut h = [0.0; 9];
            e.eval_hessian(0.0, &m, &mut g, &mut h).unwrap();
            let eps = 1e-6;
            for i in 0..2 {
                let mut p = m;
                let mut q = m;
                p[i] += eps;
                q[i] -= eps;
                let fd = (e.value(0.0, &p).unwrap() - e.value(0.0, &q).unwrap()) / (2.0 * eps);
                assert!(
                    (g[i] - fd).abs() < 1e-6 * (1.0 + fd.abs()),
                    "{text} at {m:?}: d/dm{i} {} vs {fd}",
                    g[i]
                );
                for j in 0..2 {
                    let mut gp = [0.0; 2];
                    let mut gq = [0.0; 2];
                    e.eval_with_gradient(0.0, &p, &mut gp).unwrap();
                    e.eval_with_gradient(0.0, &q, &mut gq).unwrap();
                    let fd2 = (gp[j] - gq[j]) / (2.0 * eps);
                    assert!(
                        (h[i * 3 + j] - fd2).abs() < 1e-4 * (1.0 + fd2.abs()),
                        "{text} at {m:?}: d2/dm{i}dm{j} {} vs {fd2}",
                        h[i * 3 + j]
                    );
                }
            }
        }
    }
}

/// The z interpolation is linear: halfway between the curves at z = 1 and
/// z = 3 the value is their mean.
#[test]
fn surface_is_linear_between_curves() {
    let s = [surface(11)];
    let e = bind("CUBSPL(TIME, 2, 11)", &s).unwrap();
    let a = bind("CUBSPL(TIME, 1, 11)", &s).unwrap();
    let b = bind("CUBSPL(TIME, 3, 11)", &s).unwrap();
    for &t in &[0.5, 1.7, 2.9] {
        let mid = 0.5 * (a.eval_time(t).unwrap()[0] + b.eval_time(t).unwrap()[0]);
        assert!((e.eval_time(t).unwrap()[0] - mid).abs() < 1e-14);
    }
}

#[test]
fn errors_name_the_spline_and_the_rule() {
    let s = [surface(11), curve(12, &[0.0, 1.0, 2.0, 3.0], |x| x)];
    assert_eq!(
        bind("CUBSPL(TIME, 0, 4)", &s).unwrap_err(),
        "CUBSPL: SPLINE/4 does not exist"
    );
    assert_eq!(
        bind("AKISPL(TIME, 1, 11, 1)", &s).unwrap_err(),
        "AKISPL: SPLINE/11 is a family of curves (a surface): the derivative order applies to a single curve only"
    );
    assert_eq!(
        bind("AKISPL(TIME, 0, 12, 3)", &s).unwrap_err(),
        "AKISPL: the derivative order must be 0, 1 or 2, found '3'"
    );
    assert_eq!(
        bind("CUBSPL(TIME, 0, DX(1))", &s).unwrap_err(),
        "CUBSPL: the SPLINE id must be a positive integer, found 'DX(1)'"
    );
    assert_eq!(
        bind("CUBSPL(TIME, 0)", &s).unwrap_err(),
        "CUBSPL takes 3 to 4 arguments, found 2"
    );
    // evaluated without binding: the SPLINE is named, nothing panics
    let unbound = Expr::parse("CUBSPL(TIME, 0, 12)").unwrap();
    assert_eq!(
        unbound.eval_time(1.0).unwrap_err().message,
        "CUBSPL: SPLINE/12 is not bound to its data"
    );
    let e = bind("AKISPL(TIME, 0, 12) + CUBSPL(TIME, 0, 11)", &s).unwrap();
    let ids: Vec<u32> = e.splines_read().iter().map(|(id, _)| *id).collect();
    assert_eq!(ids, [12, 11]);
}
