//! DELAY in a run (Adams Solver function DELAY: the value of an
//! expression at TIME − delay): in a user state's equation, recorded at
//! every evaluation the integrator makes, and in REQUESTs, recorded at
//! every accepted step and output frame, so a request's delayed value
//! does not depend on the output step.

mod common;

/// DIFF/1' = DELAY(SIN(TIME), 0.25, SIN(TIME)) from 0 (e0 continues the
/// sine before the start, so the delayed signal is smooth):
/// DIF(1) = cos 0.25 − cos(t − 0.25). REQUEST/1 reads the same delayed sine
/// with a delay that is a multiple of the 0.05 output step (0.3: the
/// samples include the earlier outputs themselves) and one that is not
/// (0.225: the cubic through the integrator's steps around t − 0.225).
const DECK: &str = "delay\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
DIFF/1, FUNCTION = DELAY(SIN(TIME), 0.25, SIN(TIME)), IC = 0\n\
REQUEST/1, F1 = DELAY(SIN(TIME), 0.3, SIN(TIME))\\F2 = DELAY(SIN(TIME), 0.225, SIN(TIME))\\F3 = DIF(1)\n\
END\n";

#[test]
fn delay_of_a_sine_is_the_shifted_sine() {
    let (header, rows) = run_with_output_step("sine", "0.05");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (multiple, other, state) = (
        col("request_1.f1"),
        col("request_1.f2"),
        col("request_1.f3"),
    );
    assert_eq!(rows.len(), 41);
    let mut worst = [0.0f64; 3];
    for r in &rows {
        let t = r[0];
        let errors = [
            (r[multiple] - (t - 0.3).sin()).abs(),
            (r[other] - (t - 0.225).sin()).abs(),
            (r[state] - (0.25f64.cos() - (t - 0.25).cos())).abs(),
        ];
        for (w, e) in worst.iter_mut().zip(errors) {
            *w = w.max(e);
        }
    }
    assert!(
        worst[0] < 1e-12,
        "delay a multiple of the output step: {worst:?}"
    );
    // The steps (HMAX 0.005) are ten times shorter than the outputs: the
    // cubic through them is far closer than the 1.5e-7 (measured) of a
    // history recorded at the outputs only.
    assert!(worst[1] < 1e-8, "delay not a multiple: {worst:?}");
    assert!(
        worst[2] < 1e-6,
        "DIFF integrating the delayed sine: {worst:?}"
    );
}

/// The deck run with GSTIFF at ERROR 1e-9 and HMAX 0.005 (steps ten
/// times shorter than the outputs; the smooth sine alone would let the
/// steps reach the output step) to t = 2 with output step `dtout`: the
/// CSV header and rows.
fn run_with_output_step(name: &str, dtout: &str) -> (Vec<String>, Vec<Vec<f64>>) {
    let d = common::scratch("delay", name);
    let acf = format!(
        "INTEGRATOR/GSTIFF, ERROR = 1E-9, HMAX = 0.005\nSIMULATE/DYNAMIC, END = 2, DTOUT = {dtout}\nSTOP\n"
    );
    let (header, rows, _) = common::run_deck(&d, "delay", DECK, &acf).unwrap();
    (header, rows)
}

/// A request's DELAY records the solution at every accepted step, not
/// only at the outputs: the delayed sine (delay 0.225, not a multiple of
/// either output step) at the outputs of a run with DTOUT = 0.1 equals
/// the same outputs of a run with DTOUT = 0.05 within 1e-9 (with the
/// history at the outputs only they differed by the interpolation error
/// of a cubic through samples 0.1 rather than 0.05 apart: 1.6e-6).
#[test]
fn request_delay_does_not_depend_on_the_output_step() {
    let (header, fine) = run_with_output_step("fine", "0.05");
    let (_, coarse) = run_with_output_step("coarse", "0.1");
    let col = header.iter().position(|h| h == "request_1.f2").unwrap();
    assert_eq!((fine.len(), coarse.len()), (41, 21));
    let mut worst = 0.0f64;
    for (k, r) in coarse.iter().enumerate() {
        let f = &fine[2 * k];
        assert!(
            (f[0] - r[0]).abs() < 1e-12,
            "output times {} {}",
            f[0],
            r[0]
        );
        worst = worst.max((f[col] - r[col]).abs());
    }
    println!("DELAY(SIN(TIME), 0.225, …) at DTOUT 0.1 against 0.05: {worst:.2e}");
    assert!(worst < 1e-9, "the outputs differ by {worst:.3e}");
}
