//! CURVE(alpha, iord, comp, id) in expressions: values and α-derivatives
//! against the closed form of a quartic Bézier curve (an ORDER = 5 curve on
//! five control points is one, with u = (α + 1)/2), the jets' exact time
//! derivatives through α(t) = 0.9 sin t against central differences, and
//! the errors.

use mbsolve_expr::Expr;
use mbsolve_model::{Curve, Matrix, Model};

const CTRL: [[f64; 3]; 5] = [
    [0.0, 0.0, 0.0],
    [1.0, 2.0, -1.0],
    [2.5, -1.0, 0.5],
    [3.0, 1.5, 2.0],
    [4.0, 0.0, 1.0],
];

fn model() -> Model {
    let mut m = Model::new("curve");
    m.matrices.push(Matrix {
        id: 3,
        rows: 5,
        columns: 3,
        values: CTRL.iter().flatten().copied().collect(),
        sparse: false,
    });
    m.curves.push(Curve {
        id: 7,
        matrix: 3,
        curve_points: false,
        order: 5,
        closed: false,
    });
    m
}

fn bind(text: &str) -> Result<Expr, String> {
    Expr::parse(text)
        .and_then(|e| e.with_model_curves(&model()))
        .map_err(|e| e.message)
}

/// d^k/dα^k of the quartic Bézier component `c` at α (k ≤ 4).
fn bezier(alpha: f64, k: usize, c: usize) -> f64 {
    // Derivative of the control polygon k times (forward differences),
    // times (n!/(n−k)!)·(du/dα)^k with du/dα = 1/2.
    let mut p: Vec<f64> = CTRL.iter().map(|r| r[c]).collect();
    let mut factor = 1.0;
    for j in 0..k {
        factor *= (4 - j) as f64 * 0.5;
        p = p.windows(2).map(|w| w[1] - w[0]).collect();
    }
    let u = 0.5 * (alpha + 1.0);
    let n = p.len() - 1;
    let binom = |n: usize, i: usize| -> f64 {
        (0..i).fold(1.0, |a, j| a * (n - j) as f64 / (j + 1) as f64)
    };
    let value: f64 = (0..=n)
        .map(|i| binom(n, i) * u.powi(i as i32) * (1.0 - u).powi((n - i) as i32) * p[i])
        .sum();
    factor * value
}

#[test]
fn values_and_derivatives_match_the_bezier_closed_form() {
    for iord in 0..=2 {
        for comp in 1..=3 {
            let e = bind(&format!("CURVE(TIME, {iord}, {comp}, 7)")).unwrap();
            for &a in &[-1.0, -0.55, 0.1, 0.8, 1.0] {
                let [v, d, dd] = e.eval_time(a).unwrap();
                let want = [0, 1, 2].map(|k| bezier(a, iord + k, comp - 1));
                for (got, want) in [v, d, dd].iter().zip(want) {
                    assert!(
                        (got - want).abs() < 1e-11 * (1.0 + want.abs()),
                        "CURVE(α = {a}, {iord}, {comp}): {got} vs {want}"
                    );
                }
            }
        }
    }
}

/// Through α(t) = 0.9 sin t the jets' d/dt and d²/dt² are the chain rule:
/// checked against central differences of the value and of d/dt.
#[test]
fn time_derivatives_through_alpha_match_finite_differences() {
    let h = 1e-5;
    for iord in 0..=2 {
        let e = bind(&format!("CURVE(0.9*SIN(TIME), {iord}, 2, 7)")).unwrap();
        for &t in &[-1.2, -0.3, 0.4, 1.1] {
            let [_, d, dd] = e.eval_time(t).unwrap();
            let (p, m) = (e.eval_time(t + h).unwrap(), e.eval_time(t - h).unwrap());
            let fd = (p[0] - m[0]) / (2.0 * h);
            let fdd = (p[1] - m[1]) / (2.0 * h);
            assert!(
                (d - fd).abs() < 1e-7 * (1.0 + fd.abs()),
                "iord {iord} t {t}: {d} vs {fd}"
            );
            assert!(
                (dd - fdd).abs() < 1e-6 * (1.0 + fdd.abs()),
                "iord {iord} t {t}: {dd} vs {fdd}"
            );
        }
    }
}

#[test]
fn bad_calls_are_refused_with_the_reason() {
    let cases = [
        (
            "CURVE(TIME, 3, 1, 7)",
            "CURVE: the derivative order iord must be 0, 1 or 2, found '3'",
        ),
        (
            "CURVE(TIME, 0, 4, 7)",
            "CURVE: the component comp must be 1 (x), 2 (y) or 3 (z), found '4'",
        ),
        (
            "CURVE(TIME, 0, 1)",
            "CURVE takes 4 arguments (alpha, iord, comp, id), found 3",
        ),
        ("CURVE(TIME, 0, 1, 9)", "CURVE: CURVE/9 does not exist"),
    ];
    for (text, want) in cases {
        assert_eq!(bind(text).unwrap_err(), want, "{text}");
    }
    // Unbound (parsed but never given its data): an evaluation error.
    let e = Expr::parse("CURVE(TIME, 0, 1, 7)").unwrap();
    assert_eq!(
        e.eval_time(0.0).unwrap_err().message,
        "CURVE: CURVE/7 is not bound to its data"
    );
}
