//! Unit tests: hand values, finite-difference derivative checks, messages.

use super::*;
use std::f64::consts::PI;

fn val(src: &str) -> f64 {
    Expr::parse(src)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .value(0.0, &[])
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn at(src: &str, t: f64) -> [f64; 3] {
    Expr::parse(src)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
        .eval_time(t)
        .unwrap_or_else(|e| panic!("{src}: {e}"))
}

fn parse_err(src: &str) -> ExprError {
    match Expr::parse(src) {
        Err(e) => e,
        Ok(_) => panic!("{src}: expected a parse error"),
    }
}

fn eval_err(src: &str, t: f64) -> EvalError {
    match Expr::parse(src).unwrap().value(t, &[]) {
        Err(e) => e,
        Ok(v) => panic!("{src}: expected an evaluation error, got {v}"),
    }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * (1.0 + b.abs())
}

macro_rules! assert_close {
    ($a:expr, $b:expr, $tol:expr, $ctx:expr) => {
        let (a, b) = ($a, $b);
        assert!(close(a, b, $tol), "{}: {} vs {}", $ctx, a, b);
    };
}

#[test]
fn arithmetic_and_precedence() {
    let cases: &[(&str, f64)] = &[
        ("1+2*3", 7.0),
        ("(1+2)*3", 9.0),
        ("2**3**2", 512.0),
        ("-2**2", -4.0),
        ("2**-1", 0.5),
        ("-3*-2", 6.0),
        ("+4", 4.0),
        ("8/4/2", 1.0),
        ("7-2-1", 4.0),
        ("1.0E-002*100", 1.0),
        (".5+1.", 1.5),
        ("3.445E-03**3", 3.445e-3f64.powi(3)),
        ("0201", 201.0),
        ("180D", PI),
        ("30.0d * 2", PI / 3.0),
        ("pi", PI),
        ("DTOR*180", PI),
        ("RTOD*PI", 180.0),
        ("  2 *\t3 ", 6.0),
    ];
    for (src, want) in cases {
        assert_close!(val(src), *want, 1e-14, src);
    }
}

#[test]
fn math_functions_hand_values() {
    let cases: &[(&str, f64)] = &[
        ("SIN(PI/6)", 0.5),
        ("cos(PI/3)", 0.5),
        ("TAN(PI/4)", 1.0),
        ("ASIN(0.5)", PI / 6.0),
        ("ACOS(0.5)", PI / 3.0),
        ("ATAN(1)", PI / 4.0),
        ("ATAN2(1, -1)", 3.0 * PI / 4.0),
        ("SINH(1)", 1f64.sinh()),
        ("COSH(1)", 1f64.cosh()),
        ("TANH(0.5)", 0.5f64.tanh()),
        ("EXP(1)", std::f64::consts::E),
        ("LOG(EXP(2))", 2.0),
        ("LOG10(1000)", 3.0),
        ("SQRT(16)", 4.0),
        ("ABS(-3)", 3.0),
        ("SIGN(3, -1)", -3.0),
        ("SIGN(-3, 2)", 3.0),
        ("MIN(2, 5)", 2.0),
        ("MAX(2, 5)", 5.0),
        ("MOD(7, 3)", 1.0),
        ("MOD(-7, 3)", -1.0),
        ("DIM(5, 3)", 2.0),
        ("DIM(3, 5)", 0.0),
        ("AINT(-2.7)", -2.0),
        ("ANINT(2.5)", 3.0),
        ("ANINT(-2.4)", -2.0),
        ("IF(-1: 10, 20, 30)", 10.0),
        ("IF(0: 10, 20, 30)", 20.0),
        ("IF(2: 10, 20, 30)", 30.0),
        // STEP: cubic s²(3−2s), s = 0.25 → 0.15625
        ("STEP(0.25, 0, 1, 1, 3)", 1.0 + 2.0 * 0.15625),
        ("STEP(-1, 0, 1, 1, 3)", 1.0),
        ("STEP(2, 0, 1, 1, 3)", 3.0),
        ("STEP(time, 1, 0, 1.01, 1)", 0.0),
        // STEP5: s³(10 − 15s + 6s²) at s = 0.5 → 0.5
        ("STEP5(0.5, 0, 0, 1, 2)", 1.0),
        (
            "STEP5(0.25, 0, 0, 1, 1)",
            0.25f64.powi(3) * (10.0 - 3.75 + 6.0 * 0.0625),
        ),
        // HAVSIN: (1 − cos(π s))/2
        ("HAVSIN(0.25, 0, 0, 1, 1)", (1.0 - (PI / 4.0).cos()) / 2.0),
        // SHF = a sin(ω(x−x0) − φ) + b
        (
            "SHF(1, 0.5, 2, PI, 0.1, 3)",
            2.0 * (PI * 0.5 - 0.1).sin() + 3.0,
        ),
        // POLY: 1 + 2u + 3u², u = 2 − 1
        ("POLY(2, 1, 1, 2, 3)", 6.0),
        // CHEBY: a0 + a1 T1 + a2 T2 with T2 = 2u² − 1, u = 0.5
        (
            "CHEBY(1.5, 1, 1, 2, 3)",
            1.0 + 2.0 * 0.5 + 3.0 * (2.0 * 0.25 - 1.0),
        ),
        // FORCOS: a0 + a1 cos(ωu) + a2 cos(2ωu)
        (
            "FORCOS(1, 0, 2, 1, 2, 3)",
            1.0 + 2.0 * 2f64.cos() + 3.0 * 4f64.cos(),
        ),
        (
            "FORSIN(1, 0, 2, 1, 2, 3)",
            1.0 + 2.0 * 2f64.sin() + 3.0 * 4f64.sin(),
        ),
    ];
    for (src, want) in cases {
        assert_close!(val(src), *want, 1e-13, src);
    }
}

/// Central differences of value → first derivative and of first → second
/// derivative agree with the jets to 1e-6 (relative + absolute).
#[test]
fn time_derivatives_match_finite_differences() {
    let exprs = [
        "3*TIME**2 - 2*TIME + 1",
        "SIN(2*TIME)*EXP(-TIME)",
        "COS(TIME)/(2+TIME)",
        "TAN(0.3*TIME)",
        "ASIN(0.3*TIME)",
        "ACOS(0.2*TIME)",
        "ATAN(TIME)",
        "ATAN2(SIN(TIME), 0.5+TIME)",
        "SINH(TIME)+COSH(TIME)*TANH(TIME)",
        "LOG(1+TIME) + LOG10(2+TIME)",
        "SQRT(1+TIME**2)",
        "ABS(TIME-2)",
        "SIGN(TIME**2, -1)",
        "MIN(TIME, 1-TIME) + MAX(TIME**2, 0.1)",
        "MOD(3*TIME, 1.3)",
        "DIM(TIME**2, 0.2)",
        "TIME**TIME",
        "2**TIME",
        "TIME**1.5",
        "IF(TIME-1: TIME**2, 0, SIN(TIME))",
        "STEP(TIME, 0.5, 1, 1.5, 3)",
        "STEP5(TIME, 0.5, 1, 1.5, 3)",
        "HAVSIN(TIME, 0.5, 1, 1.5, 3)",
        "SHF(TIME, 0.1, 2, 3, 0.4, 1)",
        "POLY(TIME, 0.2, 1, -2, 3, 0.5)",
        "CHEBY(TIME, 0.2, 1, -2, 3, 0.5)",
        "FORCOS(TIME, 0.2, 1.5, 1, -2, 3)",
        "FORSIN(TIME, 0.2, 1.5, 1, -2, 3)",
        "STEP(SIN(TIME), 0, 0, 1, TIME)",
        "30D*TIME",
    ];
    let h = 1e-4;
    for src in exprs {
        for t in [0.3, 0.7, 1.2] {
            let [_, d, dd] = at(src, t);
            let vp = at(src, t + h);
            let vm = at(src, t - h);
            let fd1 = (vp[0] - vm[0]) / (2.0 * h);
            let fd2 = (vp[1] - vm[1]) / (2.0 * h);
            assert_close!(d, fd1, 1e-6, format!("{src} d/dt at {t}"));
            assert_close!(dd, fd2, 1e-6, format!("{src} d2/dt2 at {t}"));
        }
    }
}

#[test]
fn measure_gradient_matches_finite_differences() {
    let e = Expr::parse(
        "-100.0*(dm(204,205)-2.0) - 1.0*vr(204,205)*SIN(TIME) + DM(204,205)**2*VR(204,205)",
    )
    .unwrap();
    assert_eq!(e.measures().len(), 2, "DM used twice is one measure");
    assert_eq!(e.measures()[0].to_string(), "DM(204,205)");
    let m = [2.5, -0.3];
    let t = 0.4;
    let mut dm = [0.0; 2];
    let (v, dt) = e.eval_with_gradient(t, &m, &mut dm).unwrap();
    assert_close!(v, e.value(t, &m).unwrap(), 1e-15, "value");
    let h = 1e-6;
    let fd_t = (e.value(t + h, &m).unwrap() - e.value(t - h, &m).unwrap()) / (2.0 * h);
    assert_close!(dt, fd_t, 1e-7, "df/dt");
    for k in 0..2 {
        let (mut p, mut q) = (m, m);
        p[k] += h;
        q[k] -= h;
        let fd = (e.value(t, &p).unwrap() - e.value(t, &q).unwrap()) / (2.0 * h);
        assert_close!(dm[k], fd, 1e-7, format!("df/dm{k}"));
    }
}

#[test]
fn parse_error_messages() {
    let cases: &[(&str, &str, (usize, usize))] = &[
        ("FOO(1)", "unknown function FOO", (0, 3)),
        ("1 + bar", "unknown name bar", (4, 7)),
        ("SIN(1, 2)", "SIN takes 1 argument, found 2", (0, 9)),
        (
            "STEP(TIME, 0, 1, 2)",
            "STEP takes 5 arguments, found 4",
            (0, 19),
        ),
        (
            "POLY(TIME)",
            "POLY takes 3 to 33 arguments, found 1",
            (0, 10),
        ),
        ("DX(1,2,3,4)", "DX takes 1 to 3 arguments, found 4", (0, 11)),
        (
            "2*",
            "unterminated expression: expected an operand after '*'",
            (1, 2),
        ),
        ("1+(2*3", "unclosed parenthesis: missing ')'", (2, 3)),
        ("SIN(1", "unclosed parenthesis: missing ')'", (3, 4)),
        ("", "empty expression", (0, 0)),
        ("1 2", "expected an operator, found '2'", (2, 3)),
        ("2 # 3", "unexpected character '#'", (2, 3)),
        ("1.0E+", "bad number '1.0E+'", (0, 5)),
        ("3x", "bad number '3x'", (0, 2)),
        (
            "DM(1, 2.5)",
            "DM argument 2 must be a non-negative integer id, found '2.5'",
            (6, 9),
        ),
        ("USER(1,2)", "function USER is not supported yet", (0, 4)),
        ("SIN", "SIN needs an argument list: SIN(...)", (0, 3)),
        ("IF(1, 2, 3)", "expected ':', found ','", (4, 5)),
        (
            "IF(1: 2, 3)",
            "IF takes 4 arguments (IF(x: neg, zero, pos)), found 3",
            (0, 11),
        ),
        (")", "expected an operand, found ')'", (0, 1)),
    ];
    for (src, msg, (s, e)) in cases {
        let err = parse_err(src);
        assert_eq!(err.message, *msg, "{src}");
        assert_eq!((err.span.start, err.span.end), (*s, *e), "{src} span");
    }
}

#[test]
fn evaluation_errors() {
    assert_eq!(eval_err("1/(TIME-1)", 1.0).message, "division by zero");
    assert_eq!(
        eval_err("1/(TIME-1)", 1.0).span,
        Some(Span { start: 1, end: 2 })
    );
    assert_eq!(
        eval_err("SQRT(TIME-2)", 1.0).message,
        "SQRT of a negative number (-1)"
    );
    assert_eq!(
        eval_err("LOG(TIME-1)", 1.0).message,
        "LOG of a non-positive number (0)"
    );
    assert_eq!(
        eval_err("ASIN(TIME+1)", 1.0).message,
        "ASIN argument outside [-1, 1] (2)"
    );
    assert_eq!(eval_err("MOD(1, TIME)", 0.0).message, "MOD by zero");
    assert_eq!(
        eval_err("(-2)**0.5", 0.0).message,
        "negative number (-2) raised to a non-integer power (0.5)"
    );
    assert_eq!(
        eval_err("0**(-1)", 0.0).message,
        "zero raised to a negative power"
    );
    assert_eq!(
        eval_err("ATAN2(0, 0)", 0.0).message,
        "ATAN2(0, 0) is undefined"
    );
    assert_eq!(
        eval_err("EXP(1000)", 0.0).message,
        "EXP is not finite (inf)"
    );
    assert_eq!(
        eval_err("STEP(TIME, 1, 0, 1, 1)", 0.0).message,
        "STEP needs x0 < x1 (x0 = 1, x1 = 1)"
    );
    // The branch IF does not take is not evaluated.
    assert_eq!(val("IF(-1: 1, 0, SQRT(-1))"), 1.0);
}

struct Ctx;
impl EvalContext for Ctx {
    fn time(&self) -> f64 {
        2.0
    }
    fn measure(&self, m: &MeasureCall) -> Result<f64, EvalError> {
        match m.kind {
            MeasureKind::Varval => Ok(10.0 * m.args[0] as f64),
            MeasureKind::Joint => Ok(m.args[2] as f64),
            MeasureKind::Orient => Ok(0.5),
            MeasureKind::Accx => Ok(-1.0),
            _ => Err(EvalError::new(format!("no value for {m}"))),
        }
    }
}

#[test]
fn context_evaluation_of_all_measure_kinds() {
    let e = Expr::parse("VARVAL(3) + JOINT(1,0,4,0)*TIME + ORIENT(27,1,0201,0101) + accx(5,6,7,8)")
        .unwrap();
    assert_eq!(e.eval_in(&Ctx).unwrap(), 30.0 + 8.0 + 0.5 - 1.0);
    assert_eq!(e.measures()[2].args, vec![27, 1, 201, 101]);
    let err = Expr::parse("DM(1,2)").unwrap().eval_in(&Ctx).unwrap_err();
    assert_eq!(err.message, "no value for DM(1,2)");
    // every measure name parses
    for name in [
        "DX", "DY", "DZ", "DM", "VX", "VY", "VZ", "VM", "VR", "WX", "WY", "WZ", "WM", "ACCX",
        "ACCY", "ACCZ", "WDTX", "WDTY", "WDTZ", "AX", "AY", "AZ", "PSI", "THETA", "PHI", "YAW",
        "PITCH", "ROLL", "FX", "FY", "FZ", "TX", "TY", "TZ",
    ] {
        let e = Expr::parse(&format!("{name}(1, 2)")).unwrap();
        assert_eq!(e.measures()[0].kind.name(), name);
    }
}

#[test]
fn state_function_adapter() {
    use mbsolve_model::{Measure, StateFunction};
    let f = ExprStateFunction::new(
        Expr::parse("-1.0*RTOD*(az(207,208)-0.0*DTOR) - 5.0E-002*RTOD*wz(207,208,208) + DX(1)")
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        f.measures(),
        &[
            Measure::Angle {
                i: 207,
                j: Some(208),
                axis: 2
            },
            Measure::AngVel {
                i: 207,
                j: Some(208),
                k: Some(208),
                axis: 2
            },
            Measure::Disp {
                i: 1,
                j: None,
                k: None,
                axis: 0
            },
        ]
    );
    let mut dm = [0.0; 3];
    let (v, dt) = StateFunction::eval(&f, 0.0, &[0.1, 0.2, 3.0], &mut dm);
    let rtod = 180.0 / PI;
    assert_close!(v, -rtod * 0.1 - 0.05 * rtod * 0.2 + 3.0, 1e-14, "value");
    assert_eq!(dt, 0.0);
    assert_close!(dm[0], -rtod, 1e-14, "d/daz");
    assert_close!(dm[1], -0.05 * rtod, 1e-14, "d/dwz");
    assert_eq!(dm[2], 1.0);

    // ACCX (like reactions and applied forces) is solved with the system:
    // a solved measure carrying the call as written (`solved.rs`).
    let f = ExprStateFunction::new(Expr::parse("2*ACCX(1,2)").unwrap()).unwrap();
    assert_eq!(
        StateFunction::measures(&f),
        [Measure::Solved {
            name: "ACCX",
            args: [1, 2, 0, 0],
            nargs: 2,
        }]
    );
    // VARVAL left after substitution reads an implicit VARIABLE: the
    // user-state measure of VARIABLE/1 (`implicit.rs`).
    let f = ExprStateFunction::new(Expr::parse("VARVAL(1)").unwrap()).unwrap();
    assert_eq!(
        StateFunction::measures(&f),
        [Measure::UserState {
            element: mbsolve_model::ElementRef::Variable(1),
            component: 0,
            rate: false,
        }]
    );
    // A reference-frame marker: the derivative taken in L's frame; VR's
    // frame drops out (ω_L × d ⟂ d).
    let f = ExprStateFunction::new(Expr::parse("VY(1,2,3,4) + VM(1,2,4) + VR(1,2,4)").unwrap())
        .unwrap();
    assert_eq!(
        StateFunction::measures(&f),
        [
            Measure::FrameVel {
                i: 1,
                j: Some(2),
                k: Some(3),
                l: 4,
                axis: 1
            },
            Measure::FrameSpeed {
                i: 1,
                j: Some(2),
                l: 4
            },
            Measure::Vr { i: 1, j: Some(2) },
        ]
    );
    // Errors come back as NaN through the trait, with the message via try_eval.
    let f = ExprStateFunction::new(Expr::parse("1/DM(1,2)").unwrap()).unwrap();
    let mut dm = [0.0];
    assert!(StateFunction::eval(&f, 0.0, &[0.0], &mut dm).0.is_nan());
    assert_eq!(
        f.try_eval(0.0, &[0.0], &mut dm).unwrap_err().message,
        "division by zero"
    );
}

#[test]
fn time_function_adapter() {
    use mbsolve_model::TimeFunction;
    let f = ExprTimeFunction::new(Expr::parse("30.0d * time + STEP(TIME, 0, 0, 1, 2)").unwrap())
        .unwrap();
    let [v, d, dd] = f.eval(0.5);
    let w = PI / 6.0;
    assert_close!(v, w * 0.5 + 1.0, 1e-14, "value");
    // STEP' = 2·6s(1−s) at s = 0.5 → 3; STEP'' = 2·6(1−2s) = 0
    assert_close!(d, w + 3.0, 1e-14, "d");
    assert!(dd.abs() < 1e-12);
    let err = ExprTimeFunction::new(Expr::parse("DM(1,2)*TIME").unwrap()).unwrap_err();
    assert_eq!(
        err.message,
        "a motion function may depend on TIME only; found DM(1,2)"
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "(".repeat(5000) + "1" + &")".repeat(5000);
    assert_eq!(parse_err(&deep).message, "expression is nested too deeply");
    // A long sum is legal Adams (issue 11): only nesting is limited. It is
    // one chain evaluated left to right, so the value is exact.
    let long = vec!["1"; 5000].join("+");
    assert_eq!(Expr::parse(&long).unwrap().value(0.0, &[]).unwrap(), 5000.0);
    let terms: Vec<String> = (1..=1500).map(|k| format!("{k}*TIME")).collect();
    let sum = Expr::parse(&terms.join("-")).unwrap();
    // 1 − (2 + … + 1500) = 2 − 1500·1501/2, times TIME
    let slope = 2.0 - 1500.0 * 1501.0 / 2.0;
    assert_eq!(sum.eval_time(2.0).unwrap(), [2.0 * slope, slope, 0.0]);
    let product = vec!["1.001"; 3000].join("*");
    let want = (0..3000).fold(1.0, |acc, _| acc * 1.001);
    assert_eq!(
        Expr::parse(&product).unwrap().value(0.0, &[]).unwrap(),
        want
    );
    let minus = "-".repeat(5000) + "1";
    assert_eq!(parse_err(&minus).message, "expression is nested too deeply");
}

/// eval_hessian against central differences of the exact gradient, and the
/// GCON adapter's restriction to position-level measures.
#[test]
fn hessian_by_polarization_matches_finite_differences() {
    let e = Expr::parse("SIN(DM(1,2))*TIME**2 + DM(1,2)*DX(3,4) - EXP(0.1*AZ(5,6)*TIME)").unwrap();
    let (t, m) = (0.7, [1.3, -0.4, 0.25]);
    let mut g = [0.0; 4];
    let mut h = [0.0; 16];
    let v = e.eval_hessian(t, &m, &mut g, &mut h).unwrap();
    assert_close!(v, e.value(t, &m).unwrap(), 1e-15, "value");
    // Gradient in (m, t) order from eval_with_gradient.
    let grad_at = |t: f64, m: &[f64]| {
        let mut dm = [0.0; 3];
        let (_, dt) = e.eval_with_gradient(t, m, &mut dm).unwrap();
        [dm[0], dm[1], dm[2], dt]
    };
    let g0 = grad_at(t, &m);
    for a in 0..4 {
        assert_close!(g[a], g0[a], 1e-14, "gradient");
        let step = 1e-6;
        let (mut tp, mut tm, mut mp, mut mm) = (t, t, m, m);
        if a == 3 {
            tp += step;
            tm -= step;
        } else {
            mp[a] += step;
            mm[a] -= step;
        }
        let (gp, gm) = (grad_at(tp, &mp), grad_at(tm, &mm));
        for b in 0..4 {
            let fd = (gp[b] - gm[b]) / (2.0 * step);
            assert!(
                (h[b * 4 + a] - fd).abs() < 1e-7 * (1.0 + fd.abs()),
                "H[{b}][{a}] {} vs {fd}",
                h[b * 4 + a]
            );
        }
    }
    let err = ExprConstraintFunction::new(Expr::parse("VR(1,2) - 1").unwrap()).unwrap_err();
    assert_eq!(
        err.message,
        "VR is not supported yet in a constraint function (only DX DY DZ DM AX AY AZ VX VY VZ WX WY WZ and TIME)"
    );
}

fn vars(list: &[(u32, &str)]) -> std::collections::HashMap<u32, Expr> {
    list.iter()
        .map(|(id, src)| (*id, Expr::parse(src).unwrap()))
        .collect()
}

/// VARVAL substitution gives the value and the exact first and second
/// derivatives of the expression written out by hand.
#[test]
fn variables_are_substituted_with_exact_derivatives() {
    let v = vars(&[
        (1, "DM(204,205) - 2.0"),
        (2, "VARVAL(1)**2 + SIN(TIME)*VR(204,205)"),
        (3, "3*VARVAL(2) - VARVAL(1)"),
    ]);
    let e = Expr::parse("-100*VARVAL(3) + VARVAL(1)*TIME")
        .unwrap()
        .with_variables(&v)
        .unwrap();
    let by_hand = Expr::parse(
        "-100*(3*((DM(204,205) - 2.0)**2 + SIN(TIME)*VR(204,205)) - (DM(204,205) - 2.0)) \
         + (DM(204,205) - 2.0)*TIME",
    )
    .unwrap();
    assert_eq!(e.measures(), by_hand.measures(), "DM then VR, each once");
    assert!(e.reads_time());
    let (t, m) = (0.7, [2.3, -0.4]);
    let (n, k) = (3, 2);
    let (mut g1, mut h1) = (vec![0.0; n], vec![0.0; n * n]);
    let (mut g2, mut h2) = (vec![0.0; n], vec![0.0; n * n]);
    let v1 = e.eval_hessian(t, &m, &mut g1, &mut h1).unwrap();
    let v2 = by_hand.eval_hessian(t, &m, &mut g2, &mut h2).unwrap();
    assert_close!(v1, v2, 1e-14, "value");
    for r in 0..=k {
        assert_close!(g1[r], g2[r], 1e-14, "gradient");
        for c in 0..=k {
            assert_close!(h1[r * n + c], h2[r * n + c], 1e-13, "Hessian");
        }
    }
    // A variable of time only keeps a motion function a function of time.
    let f = ExprTimeFunction::new(
        Expr::parse("VARVAL(9) * 2")
            .unwrap()
            .with_variables(&vars(&[(9, "30D*TIME")]))
            .unwrap(),
    )
    .unwrap();
    let [x, xd, xdd] = f.try_eval(1.5).unwrap();
    assert_close!(x, PI / 2.0, 1e-15, "motion value");
    assert_close!(xd, PI / 3.0, 1e-15, "motion rate");
    assert_eq!(xdd, 0.0);
}

#[test]
fn variable_cycles_and_unknown_ids_are_reported() {
    let v = vars(&[
        (1, "VARVAL(2) + 1"),
        (2, "2*VARVAL(3)"),
        (3, "VARVAL(1) - DM(1,2)"),
        (4, "VARVAL(4)"),
    ]);
    let src = "DX(5) + VARVAL(1)";
    let err = Expr::parse(src).unwrap().with_variables(&v).unwrap_err();
    assert_eq!(
        err.message,
        "implicit VARIABLE not supported yet: VARIABLE/1 depends on itself (VARIABLE/1 → VARIABLE/2 → VARIABLE/3 → VARIABLE/1)"
    );
    assert_eq!(&src[err.span.start..err.span.end], "VARVAL(1)");
    // A body that is exactly VARVAL(4) is the placeholder of an implicit
    // VARIABLE (`implicit.rs`): VARVAL(4) stays a measure.
    let kept = Expr::parse("2*VARVAL(4)")
        .unwrap()
        .with_variables(&v)
        .unwrap();
    assert_eq!(kept.measures().len(), 1);
    assert!(kept.measures()[0].kind == MeasureKind::Varval && kept.measures()[0].args == [4]);
    let src = "1 + VARVAL(77)";
    let err = Expr::parse(src).unwrap().with_variables(&v).unwrap_err();
    assert_eq!(err.message, "VARVAL(77): VARIABLE/77 does not exist");
    assert_eq!(&src[err.span.start..err.span.end], "VARVAL(77)");
    // A long chain of variables is refused, not a stack overflow.
    let chain: std::collections::HashMap<u32, Expr> = (1..=3000u32)
        .map(|k| (k, Expr::parse(&format!("VARVAL({}) + 1", k + 1)).unwrap()))
        .chain(std::iter::once((3001, Expr::parse("TIME").unwrap())))
        .collect();
    let err = Expr::parse("VARVAL(1)")
        .unwrap()
        .with_variables(&chain)
        .unwrap_err();
    assert_eq!(
        err.message,
        "VARIABLEs nested more than 200 deep (VARVAL within VARVAL) are not supported"
    );
    // Within the nesting bound, depth no longer accumulates: each VARIABLE
    // is a shared body evaluated on its own (150 levels of 8 additions).
    let deep: std::collections::HashMap<u32, Expr> = (1..=150u32)
        .map(|k| {
            (
                k,
                Expr::parse(&format!("VARVAL({})+1+1+1+1+1+1+1+1", k + 1)).unwrap(),
            )
        })
        .chain(std::iter::once((151, Expr::parse("TIME").unwrap())))
        .collect();
    let e = Expr::parse("VARVAL(1)")
        .unwrap()
        .with_variables(&deep)
        .unwrap();
    assert_eq!(e.shared_variables(), 151);
    assert_eq!(e.eval_time(0.5).unwrap(), [1200.5, 1.0, 0.0]);
}

/// Issue 11: 40 VARIABLEs, each VARVAL(next) + VARVAL(next), used to inline
/// into 2⁴⁰ copies. Shared, they are 40 bodies evaluated once each, and the
/// derivatives stay exact: VARIABLE/1 = 2⁴⁰·SIN(DM(1,2)·TIME).
#[test]
fn variable_fan_out_is_shared_not_copied() {
    let mut vars: std::collections::HashMap<u32, Expr> = (1..=40u32)
        .map(|k| {
            let f = format!("VARVAL({0}) + VARVAL({0})", k + 1);
            (k, Expr::parse(&f).unwrap())
        })
        .collect();
    vars.insert(41, Expr::parse("SIN(DM(1,2)*TIME)").unwrap());
    let e = Expr::parse("VARVAL(1)")
        .unwrap()
        .with_variables(&vars)
        .unwrap();
    assert_eq!(e.shared_variables(), 41);
    assert_eq!(e.measures().len(), 1, "DM(1,2) is one shared measure");
    let (t, d) = (0.3, 1.7);
    let scale = 2f64.powi(40);
    let mut dm = [0.0];
    let (v, dt) = e.eval_with_gradient(t, &[d], &mut dm).unwrap();
    // Powers of two scale exactly: compare bit for bit.
    assert_eq!(v, scale * (d * t).sin());
    assert_eq!(dt, scale * d * (d * t).cos());
    assert_eq!(dm[0], scale * t * (d * t).cos());
    // An evaluation error inside a shared body names the VARIABLE.
    vars.insert(41, Expr::parse("LOG(DM(1,2)*TIME)").unwrap());
    let e = Expr::parse("VARVAL(1)")
        .unwrap()
        .with_variables(&vars)
        .unwrap();
    assert_eq!(
        e.value(0.0, &[d]).unwrap_err().message,
        "in VARIABLE/41: LOG of a non-positive number (0)"
    );
}

#[test]
fn jprim_results_parse_with_their_roles() {
    let e = Expr::parse("JPRIM(212,1,8,346)").unwrap();
    let m = &e.measures()[0];
    assert_eq!(m.kind, MeasureKind::Jprim);
    assert_eq!(
        m.references().collect::<Vec<_>>(),
        vec![(ArgRole::Jprim, 212), (ArgRole::Marker, 346)]
    );
}

/// INCANG(i, j, k) is the angle at j between j→i and j→k (Adams function
/// reference: INCANG(3,2,4) is the angle between segments 2–3 and 2–4):
/// it reads DX/DY/DZ(i, j) and DX/DY/DZ(k, j), gives the angle between
/// them, and its gradient matches central differences.
#[test]
fn incang_is_the_included_angle_with_exact_gradient() {
    let e = Expr::parse("INCANG(3, 2, 4)").unwrap();
    let names: Vec<String> = e.measures().iter().map(|m| m.to_string()).collect();
    assert_eq!(
        names,
        ["DX(3,2)", "DY(3,2)", "DZ(3,2)", "DX(4,2)", "DY(4,2)", "DZ(4,2)"]
    );
    // a = (1, 0, 0), b = (1, 1, 0): 45°; a = (1, 0, 0), b = (-1, 0.2, 0): obtuse.
    for (m, want) in [
        ([1.0, 0.0, 0.0, 1.0, 1.0, 0.0], std::f64::consts::FRAC_PI_4),
        (
            [1.0, 0.0, 0.0, -1.0, 0.2, 0.0],
            std::f64::consts::PI - 0.2f64.atan(),
        ),
        ([0.0, 2.0, 0.0, 0.0, 0.0, -3.0], std::f64::consts::FRAC_PI_2),
    ] {
        let v = e.value(0.0, &m).unwrap();
        assert!(
            (v - want).abs() < 1e-14,
            "INCANG at {m:?} = {v}, want {want}"
        );
        let mut g = [0.0; 6];
        e.eval_with_gradient(0.0, &m, &mut g).unwrap();
        for k in 0..6 {
            let h = 1e-6;
            let (mut p, mut q) = (m, m);
            p[k] += h;
            q[k] -= h;
            let fd = (e.value(0.0, &p).unwrap() - e.value(0.0, &q).unwrap()) / (2.0 * h);
            assert!((g[k] - fd).abs() < 1e-7, "d/dm{k}: {} vs {fd}", g[k]);
        }
    }
    let bad = Expr::parse("INCANG(3, 0, 4)").unwrap_err();
    assert_eq!(
        bad.message,
        "INCANG argument 2 must be a positive integer marker id, found '0'"
    );
    let few = Expr::parse("INCANG(3, 2)").unwrap_err();
    assert_eq!(few.message, "INCANG takes 3 arguments, found 2");
}

/// The measures of INCANG(3, 2, 4) for the line j→i at angle `phi` in the
/// xy plane (length 1.5) and j→k along +x (length 2).
fn planar_lines(phi: f64) -> [f64; 6] {
    [1.5 * phi.cos(), 1.5 * phi.sin(), 0.0, 2.0, 0.0, 0.0]
}

/// INCANG follows the angle past 180° and 360° (Adams: a pendulum turning
/// from 5° to 355° reads 355°): the line j→i turning in a plane from 5°
/// to 725° in 5° steps (through 180° and 360° exactly) and back to −40°
/// reads φ itself to 1e-12, and its gradient is the planar angle's,
/// ∂φ/∂a = (−a_y, a_x, 0)/|a|², ∂φ/∂b = (b_y, −b_x, 0)/|b|², to 1e-12
/// (out of the plane 0: the angle is even in a_z and b_z there). The
/// first value is positive and the angle then passes through 0 into
/// negative values: from −20° towards +10°, the readings are 20° … 0 …
/// −10°.
#[test]
fn incang_is_continuous_past_180_and_360_degrees() {
    let e = Expr::parse("INCANG(3, 2, 4)").unwrap();
    let deg = PI / 180.0;
    let up = (0..=144).map(|k| 5.0 + 5.0 * k as f64);
    let down = (1..=153).map(|k| 725.0 - 5.0 * k as f64);
    for (step, phi) in up.chain(down).map(|d| d * deg).enumerate() {
        let t = 0.01 * step as f64;
        let m = planar_lines(phi);
        let mut g = [0.0; 6];
        let (v, _) = e.eval_with_gradient(t, &m, &mut g).unwrap();
        assert!(
            (v - phi).abs() < 1e-12,
            "at φ = {}°: INCANG = {}°",
            phi / deg,
            v / deg
        );
        let want = [-m[1] / 2.25, m[0] / 2.25, 0.0, m[4] / 4.0, -m[3] / 4.0, 0.0];
        for k in 0..6 {
            assert!(
                (g[k] - want[k]).abs() < 1e-12,
                "at φ = {}°: ∂/∂m{k} = {} (want {})",
                phi / deg,
                g[k],
                want[k]
            );
        }
    }
    let e = Expr::parse("INCANG(3, 2, 4)").unwrap();
    for (step, d) in (-20..=10).enumerate() {
        let v = e.value(step as f64, &planar_lines(d as f64 * deg)).unwrap();
        let want = if step == 0 { 20.0 } else { -d as f64 };
        assert!((v / deg - want).abs() < 1e-10, "at {d}°: {}°", v / deg);
    }
}

/// Off a plane: j→k along a fixed u = (2, 0.1, 0.4)/|·| and j→i at
/// 1.3·(cos s·u + sin s·e(s)), e(s) ⊥ u turning about u by 0.3·sin 2s, so
/// the lines' plane wobbles while the angle between them is s. Carried
/// from s = 0.3 past π (where the lines are opposite) to 6.2, INCANG reads
/// s to 1e-12, and its gradient equals central differences taken at the
/// same TIME (the same history) to 1e-7.
#[test]
fn incang_off_a_plane_is_continuous_with_exact_derivatives() {
    let e = Expr::parse("INCANG(3, 2, 4)").unwrap();
    let b = [2.0f64, 0.1, 0.4];
    let nb = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
    let u = b.map(|x| x / nb);
    // e1 ⊥ u, e2 = u × e1.
    let e1 = {
        let v = [u[1], -u[0], 0.0];
        let n = (v[0] * v[0] + v[1] * v[1]).sqrt();
        v.map(|x| x / n)
    };
    let e2 = [
        u[1] * e1[2] - u[2] * e1[1],
        u[2] * e1[0] - u[0] * e1[2],
        u[0] * e1[1] - u[1] * e1[0],
    ];
    let path = |s: f64| {
        let w = 0.3 * (2.0 * s).sin();
        let mut m = [0.0; 6];
        for k in 0..3 {
            m[k] = 1.3 * (s.cos() * u[k] + s.sin() * (w.cos() * e1[k] + w.sin() * e2[k]));
            m[3 + k] = b[k];
        }
        m
    };
    for step in 0..60 {
        let s = 0.3 + 0.1 * step as f64;
        let t = step as f64;
        let m = path(s);
        let mut g = [0.0; 6];
        let (v, _) = e.eval_with_gradient(t, &m, &mut g).unwrap();
        assert!((v - s).abs() < 1e-12, "at s = {s}: INCANG = {v}");
        for k in 0..6 {
            let h = 1e-6;
            let (mut p, mut q) = (m, m);
            p[k] += h;
            q[k] -= h;
            let fd = (e.value(t, &p).unwrap() - e.value(t, &q).unwrap()) / (2.0 * h);
            assert!(
                (g[k] - fd).abs() < 1e-7,
                "s = {s}, ∂/∂m{k}: {} vs {fd}",
                g[k]
            );
        }
    }
}
