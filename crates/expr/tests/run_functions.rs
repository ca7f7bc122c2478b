//! SWEEP, INTERP, INVPSD and MODE in expressions: each against its closed
//! form (value, exact d/dt and d²/dt² from the jets), and the exact error
//! messages with their spans.

use mbsolve_expr::Expr;
use mbsolve_model::{SensorValues, Spline};
use std::f64::consts::{PI, TAU};
use std::sync::Arc;

fn bind(text: &str, splines: &[Arc<Spline>]) -> Result<Expr, String> {
    let e = Expr::parse(text).map_err(|e| e.message)?;
    e.with_splines(&|id| splines.iter().find(|s| s.id == id).cloned())
        .map_err(|e| e.message)
}

fn curve(id: u32, x: &[f64], y: &[f64], linear_extrapolate: bool) -> Arc<Spline> {
    Arc::new(Spline::new(id, x.to_vec(), None, vec![y.to_vec()], linear_extrapolate).unwrap())
}

fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got}, want {want} (tol {tol})"
    );
}

/// SWEEP(TIME, a, x0, f0, x1, f1, dx) inside the sweep, past the ramp:
/// a·sin(2πφ) with φ = f0 (t − x0) + k (t − x0)² + f0 x0, k = (f1 − f0)/(2(x1 − x0)),
/// φ' the linear frequency; before x0 it is 0; after x1 the phase runs at
/// f1. Value, d/dt and d²/dt² from the closed form to 1e-12.
#[test]
fn sweep_matches_the_swept_sine_and_its_derivatives() {
    let (a, x0, f0, x1, f1, dx) = (2.5, 1.0, 0.5, 5.0, 4.0, 0.2);
    let e = Expr::parse("SWEEP(TIME, 2.5, 1, 0.5, 5, 4, 0.2)").unwrap();
    let k = (f1 - f0) / (2.0 * (x1 - x0));
    for t in [1.3, 2.0, 3.7, 4.9] {
        let s = t - x0;
        let phi = f0 * s + k * s * s + f0 * x0;
        let w = TAU * (f0 + 2.0 * k * s);
        let w1 = TAU * 2.0 * k;
        let [v, d, dd] = e.eval_time(t).unwrap();
        close("value", v, a * (TAU * phi).sin(), 1e-12);
        close("d/dt", d, a * (TAU * phi).cos() * w, 1e-12);
        close(
            "d2/dt2",
            dd,
            -a * (TAU * phi).sin() * w * w + a * (TAU * phi).cos() * w1,
            1e-12,
        );
    }
    // before x0: zero (the ramp has not started)
    assert_eq!(e.eval_time(0.7).unwrap(), [0.0, 0.0, 0.0]);
    // after x1: phase f1 t − (f1 − f0)(x1 + x0)/2, frequency f1
    for t in [5.0, 6.3] {
        let phi = f1 * t - 0.5 * (f1 - f0) * (x1 + x0);
        let [v, d, _] = e.eval_time(t).unwrap();
        close("value after x1", v, a * (TAU * phi).sin(), 1e-12);
        close("d/dt after x1", d, a * (TAU * phi).cos() * TAU * f1, 1e-12);
    }
    // on the ramp (x0 < t < x0 + dx): the exact derivative against a
    // central difference of the value (h = 1e-6: error O(h²) ≈ 1e-9)
    let h = 1e-6;
    for t in [1.05, 1.1, 1.17] {
        let [_, d, _] = e.eval_time(t).unwrap();
        let fd = (e.eval_time(t + h).unwrap()[0] - e.eval_time(t - h).unwrap()[0]) / (2.0 * h);
        close("ramp d/dt", d, fd, 1e-7);
    }
    // the ramp reaches full amplitude at x0 + dx, and φ is continuous at
    // x0 and x1 (2e-9 apart, the sides differ by the slope's 2e-9·63)
    for edge in [x0 + dx, x1] {
        let below = e.eval_time(edge - 1e-9).unwrap();
        let above = e.eval_time(edge + 1e-9).unwrap();
        close("continuity", below[0], above[0], 2e-7);
        close("slope continuity", below[1], above[1], 1e-6);
    }
}

#[test]
fn sweep_argument_errors_are_named() {
    for (text, want) in [
        (
            "SWEEP(TIME, 1, 2, 1, 2, 3, 0.1)",
            "SWEEP needs x0 < x1 (x0 = 2, x1 = 2)",
        ),
        (
            "SWEEP(TIME, 1, 0, 1, 2, 3, 0)",
            "SWEEP needs a positive ramp width dx (dx = 0)",
        ),
    ] {
        let err = Expr::parse(text).unwrap().eval_time(0.5).unwrap_err();
        assert_eq!(err.message, want);
        assert_eq!(err.span.map(|s| (s.start, s.end)), Some((0, text.len())));
    }
    let err = Expr::parse("1 + SWEEP(TIME, 1, 0)").unwrap_err();
    assert_eq!(err.message, "SWEEP takes 7 arguments, found 3");
    assert_eq!((err.span.start, err.span.end), (4, 21));
}

/// INTERP(TIME, 1, id) is the broken line through the points (slope of
/// each segment, continued past the ends); INTERP(TIME, 3, id) is the
/// SPLINE's cubic, so on samples of a cubic it is the cubic with its
/// derivatives; the jets' d/dt equal iord = 1.
#[test]
fn interp_linear_and_cubic_match_their_closed_forms() {
    let xs = [0.0, 0.5, 1.0, 2.0, 3.0];
    let cubic = |t: f64| 1.0 - t + 0.5 * t * t * t;
    let ys: Vec<f64> = xs.iter().map(|&t| cubic(t)).collect();
    let s = [curve(4, &xs, &ys, false)];
    let lin = bind("INTERP(TIME, 1, 4)", &s).unwrap();
    let lin1 = bind("INTERP(TIME, 1, 4, 1)", &s).unwrap();
    for (t, seg) in [(0.2, 0), (0.75, 1), (1.5, 2), (2.9, 3), (-0.4, 0), (3.5, 3)] {
        let slope = (ys[seg + 1] - ys[seg]) / (xs[seg + 1] - xs[seg]);
        let want = ys[seg] + slope * (t - xs[seg]);
        let [v, d, dd] = lin.eval_time(t).unwrap();
        close("linear value", v, want, 1e-14);
        close("linear d/dt", d, slope, 1e-14);
        assert_eq!(dd, 0.0);
        close("iord 1", lin1.eval_time(t).unwrap()[0], slope, 1e-14);
    }
    let cub = bind("INTERP(TIME, 3, 4)", &s).unwrap();
    let cub2 = bind("INTERP(2*TIME, 3, 4, 2)", &s).unwrap();
    for t in [0.1, 0.8, 1.4, 2.6] {
        let [v, d, dd] = cub.eval_time(t).unwrap();
        close("cubic value", v, cubic(t), 1e-12);
        close("cubic d/dt", d, -1.0 + 1.5 * t * t, 1e-12);
        close("cubic d2/dt2", dd, 3.0 * t, 1e-12);
        // iord 2 at x = 2t: y''(2t) = 6t, and its d/dt = y'''·2 = 6
        let [v2, d2, _] = cub2.eval_time(t / 2.0).unwrap();
        close("iord 2", v2, 3.0 * t, 1e-12);
        close("iord 2 d/dt", d2, 6.0, 1e-10);
    }
}

#[test]
fn interp_errors_are_named() {
    let xs = [0.0, 1.0, 2.0, 3.0];
    let s = [curve(4, &xs, &[0.0, 1.0, 0.0, 1.0], false)];
    for (text, want, span) in [
        (
            "INTERP(TIME, 2, 4)",
            "INTERP: the method must be 1 (linear) or 3 (cubic), found '2'",
            (13, 14),
        ),
        (
            "INTERP(TIME, 1, 4, 3)",
            "INTERP: the derivative order iord must be 0, 1 or 2, found '3'",
            (19, 20),
        ),
        (
            "INTERP(TIME, 1, 9)",
            "INTERP: SPLINE/9 does not exist",
            (0, 18),
        ),
        (
            "INTERP(TIME, 1)",
            "INTERP takes 3 to 4 arguments (x, method, id[, iord]), found 2",
            (0, 15),
        ),
    ] {
        let e = Expr::parse(text)
            .and_then(|e| e.with_splines(&|id| s.iter().find(|c| c.id == id).cloned()));
        let err = e.unwrap_err();
        assert_eq!(err.message, want, "{text}");
        assert_eq!((err.span.start, err.span.end), span, "{text}");
    }
    let family = Arc::new(
        Spline::new(
            5,
            xs.to_vec(),
            Some(vec![0.0, 1.0]),
            vec![vec![0.0; 4], vec![1.0; 4]],
            false,
        )
        .unwrap(),
    );
    assert_eq!(
        bind("INTERP(TIME, 3, 5)", &[family]).unwrap_err(),
        "INTERP: SPLINE/5 is a family of curves (a surface): INTERP reads one time series"
    );
}

/// INVPSD on a PSD that falls linearly from 4 at 1 Hz to 1 at 4 Hz,
/// 31 frequencies (Δf = 0.1 Hz, so the signal repeats every 10 s): the
/// discrete Fourier transform of one period, sampled at 2000 points,
/// gives each component's amplitude Aᵢ; its level Aᵢ²/(2wᵢ) equals the
/// PSD at fᵢ (to 1e-9, the DFT being exact for these band-limited sines),
/// and the mean square over the period equals the trapezoid integral of
/// the PSD, 7.5 (1e-9). The same seed gives the same signal, another
/// seed another one; d/dt is exact against a central difference.
#[test]
fn invpsd_components_have_the_psd_levels() {
    let s = [curve(
        3,
        &[0.5, 1.0, 4.0, 5.0],
        &[4.0, 4.0, 1.0, 1.0],
        false,
    )];
    let e = bind("INVPSD(TIME, 3, 1, 4, 31, 0, 7)", &s).unwrap();
    let period = 10.0;
    let n = 2000;
    let samples: Vec<f64> = (0..n)
        .map(|k| e.eval_time(period * k as f64 / n as f64).unwrap()[0])
        .collect();
    let df = 0.1;
    for i in 0..31 {
        let f = 1.0 + i as f64 * df;
        let (mut re, mut im) = (0.0, 0.0);
        for (k, v) in samples.iter().enumerate() {
            let arg = TAU * f * period * k as f64 / n as f64;
            re += v * arg.cos();
            im += v * arg.sin();
        }
        let amplitude = 2.0 * (re * re + im * im).sqrt() / n as f64;
        let share = if i == 0 || i == 30 { df / 2.0 } else { df };
        let psd = 4.0 - (f - 1.0);
        close(
            &format!("level at {f} Hz"),
            amplitude * amplitude / (2.0 * share),
            psd,
            1e-9,
        );
    }
    let mean_square = samples.iter().map(|v| v * v).sum::<f64>() / n as f64;
    close("mean square", mean_square, 7.5, 1e-9);
    let again = bind("INVPSD(TIME, 3, 1, 4, 31, 0, 7)", &s).unwrap();
    let other = bind("INVPSD(TIME, 3, 1, 4, 31, 0, 8)", &s).unwrap();
    assert_eq!(again.eval_time(1.234).unwrap(), e.eval_time(1.234).unwrap());
    assert_ne!(
        other.eval_time(1.234).unwrap()[0],
        e.eval_time(1.234).unwrap()[0]
    );
    let h = 1e-6;
    let [_, d, _] = e.eval_time(2.0).unwrap();
    let fd = (e.eval_time(2.0 + h).unwrap()[0] - e.eval_time(2.0 - h).unwrap()[0]) / (2.0 * h);
    close("d/dt", d, fd, 1e-7);
}

/// In log–log (linlog = 1) a PSD ∝ f⁻² between points stays exactly on
/// the power law: PSD = 100 f⁻² at every generated frequency.
#[test]
fn invpsd_log_domain_follows_a_power_law() {
    let xs = [1.0, 2.0, 5.0, 10.0];
    let ys: Vec<f64> = xs.iter().map(|f| 100.0 / (f * f)).collect();
    let s = [curve(6, &xs, &ys, false)];
    let e = bind("INVPSD(TIME, 6, 2, 8, 7, 1, 1)", &s).unwrap();
    // Δf = 1 Hz: period 1 s
    let n = 400;
    let samples: Vec<f64> = (0..n)
        .map(|k| e.eval_time(k as f64 / n as f64).unwrap()[0])
        .collect();
    for i in 0..7 {
        let f = 2.0 + i as f64;
        let (mut re, mut im) = (0.0, 0.0);
        for (k, v) in samples.iter().enumerate() {
            let arg = TAU * f * k as f64 / n as f64;
            re += v * arg.cos();
            im += v * arg.sin();
        }
        let amplitude = 2.0 * (re * re + im * im).sqrt() / n as f64;
        let share = if i == 0 || i == 6 { 0.5 } else { 1.0 };
        close(
            &format!("level at {f} Hz"),
            amplitude * amplitude / (2.0 * share),
            100.0 / (f * f),
            1e-9,
        );
    }
}

#[test]
fn invpsd_errors_are_named() {
    let s = [curve(
        3,
        &[0.5, 1.0, 4.0, 5.0],
        &[4.0, 4.0, 1.0, 0.0],
        false,
    )];
    for (text, want) in [
        (
            "INVPSD(TIME, 3, 1, 9, 10, 0, 1)",
            "INVPSD: the frequencies 1 to 9 leave SPLINE/3's range 0.5 to 5",
        ),
        (
            "INVPSD(TIME, 3, 1, 4, 10, 1, 1)",
            "INVPSD: logarithmic interpolation (linlog = 1) needs positive frequencies and PSD values in SPLINE/3",
        ),
        (
            "INVPSD(TIME, 3, 1, 4, 1, 0, 1)",
            "INVPSD: the number of frequencies nf must be an integer from 2 to 100000, found '1'",
        ),
        ("INVPSD(TIME, 3, 4, 1, 5, 0, 1)", "INVPSD needs f0 < f1 (f0 = 4, f1 = 1)"),
        (
            "INVPSD(TIME, 3, TIME, 4, 5, 0, 1)",
            "INVPSD: f0 must be a constant frequency ≥ 0, found 'TIME'",
        ),
        (
            "INVPSD(TIME, 3, 1, 4, 5, 2, 1)",
            "INVPSD: linlog must be 0 (linear) or 1 (logarithmic), found '2'",
        ),
    ] {
        assert_eq!(bind(text, &s).unwrap_err(), want, "{text}");
    }
}

/// MODE reads the run's mode cell (0 before any analysis), with zero
/// derivatives; unbound, it fails by name; MODE(…) is refused.
#[test]
fn mode_reads_the_run_and_is_constant() {
    let values = SensorValues::default();
    let e = Expr::parse("IF(MODE - 4: 0, 0, -100*TIME) + MODE")
        .unwrap()
        .with_sensor_values(&values);
    assert!(e.reads_run());
    assert_eq!(e.eval_time(2.0).unwrap(), [0.0, 0.0, 0.0]);
    values.set_mode(4.0);
    assert_eq!(e.eval_time(2.0).unwrap(), [4.0, 0.0, 0.0]);
    values.set_mode(5.0);
    assert_eq!(e.eval_time(2.0).unwrap(), [5.0 - 200.0, -100.0, 0.0]);
    let unbound = Expr::parse("2 + MODE").unwrap().eval_time(0.0).unwrap_err();
    assert_eq!(
        unbound.message,
        "MODE is not bound to a run (no analysis sets it)"
    );
    assert_eq!(unbound.span.map(|s| (s.start, s.end)), Some((4, 8)));
    let err = Expr::parse("MODE(1)").unwrap_err();
    assert_eq!(
        err.message,
        "MODE takes no argument list: write MODE, as TIME"
    );
    assert!(!Expr::parse("TIME").unwrap().reads_run());
}

/// Q, QDOT, QDDOT and UV (flexible-body modal coordinates) are refused
/// with the reason, at the name.
#[test]
fn modal_coordinate_functions_are_refused_with_the_reason() {
    for name in ["Q", "QDOT", "QDDOT", "UV"] {
        let text = format!("1 + {name}(3, 1)");
        let err = Expr::parse(&text).unwrap_err();
        assert_eq!(
            err.message,
            format!("function {name} is not supported: it reads the modal coordinates of a flexible body (FLEX_BODY), which this solver does not model: its bodies are rigid parts, point masses, beams and FE parts, whose nodes are read through their markers")
        );
        assert_eq!((err.span.start, err.span.end), (4, 4 + name.len()));
    }
    let _ = PI;
}

/// DELAY(SIN(TIME), d, COS(TIME)) evaluated along t = 0, 0.01, …: before
/// TIME − d reaches the first sample it is e0 at TIME − d, cos(t − d);
/// after, the cubic through the recorded sines, sin(t − d), to 1e-8 (the
/// cubic's error, h⁴/24 ≈ 4e-10 at h = 0.01), with the delay a multiple
/// (0.25) and not a multiple (0.255) of the spacing; its d/dt is the
/// cubic's slope, cos(t − d) to 1e-6 (1e-4 on the first two samples,
/// where only three exist). Re-evaluating at an earlier time
/// drops the later samples (a rejected step), so a wrong value recorded
/// beyond it is forgotten.
#[test]
fn delay_follows_the_shifted_signal() {
    for d in [0.25, 0.255] {
        let e = Expr::parse(&format!("DELAY(SIN(TIME), {d}, COS(TIME))")).unwrap();
        for k in 0..200 {
            let t = 0.01 * k as f64;
            let [v, dv, _] = e.eval_time(t).unwrap();
            if t < d {
                close("e0 value", v, (t - d).cos(), 1e-15);
                close("e0 slope", dv, -(t - d).sin(), 1e-15);
            } else {
                close(&format!("delayed value at {t}"), v, (t - d).sin(), 1e-8);
                // three samples at the start of the history: a parabola,
                // slope error h²/6 ≈ 2e-5
                let tol = if t - d < 0.02 { 1e-4 } else { 1e-6 };
                close(&format!("delayed slope at {t}"), dv, (t - d).cos(), tol);
            }
        }
    }
    // a rejected step: DELAY(TIME², 0.5, 0) records 4 at t = 2, then the
    // step is retried to t = 1.6; the sample at 2 is dropped, so 2.05
    // interpolates over 1.6 … not over the stale sample.
    let e = Expr::parse("DELAY(TIME*TIME, 0.5, 0)").unwrap();
    for k in 0..=15 {
        e.eval_time(0.1 * k as f64).unwrap();
    }
    e.eval_time(1.6).unwrap();
    let v = e.eval_time(2.05).unwrap()[0];
    close("after a retried step", v, 1.55 * 1.55, 1e-12);
}

/// The delayed value does not depend on the current state: zero gradient
/// with respect to the measure it delays, while a state-dependent delay
/// carries −e'·∂delay/∂m.
#[test]
fn delay_gradient_leaves_out_the_current_state() {
    let e = Expr::parse("DELAY(TIME + DX(2), 0.5 + 0.1*DY(2), 0)").unwrap();
    let mut dm = [0.0, 0.0];
    for k in 0..=20 {
        e.eval_with_gradient(0.1 * k as f64, &[0.0, 1.0], &mut dm)
            .unwrap();
    }
    let (v, dt) = e.eval_with_gradient(2.0, &[0.0, 1.0], &mut dm).unwrap();
    close("value", v, 2.0 - 0.6, 1e-12);
    close("d/dt", dt, 1.0, 1e-12);
    assert_eq!(dm[0], 0.0, "no dependence on the current DX");
    close("through the delay", dm[1], -0.1, 1e-12);
}

#[test]
fn delay_errors_are_named() {
    for (text, want, span) in [
        (
            "DELAY(DX(2), 0.1, DX(3))",
            "DELAY: the initial history e0 must be a function of TIME or a constant, found 'DX(3)'",
            (18, 23),
        ),
        (
            "DELAY(DX(2), 0.1, 0, 5)",
            "DELAY: the interpolation-settings ARRAY (fourth argument) is not supported; omit it or give 0, found '5'",
            (21, 22),
        ),
        (
            "DELAY(DX(2), 0.1)",
            "DELAY takes 3 to 4 arguments (e, delay, e0[, id]), found 2",
            (0, 17),
        ),
    ] {
        let err = Expr::parse(text).unwrap_err();
        assert_eq!(err.message, want, "{text}");
        assert_eq!((err.span.start, err.span.end), span, "{text}");
    }
    assert!(Expr::parse("DELAY(DX(2), 0.1, 0, 0)").is_ok());
}
