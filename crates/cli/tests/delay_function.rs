//! DELAY in a run (Adams Solver function DELAY: the value of an
//! expression at TIME − delay): in a user state's equation, recorded at
//! every evaluation the integrator makes, and in REQUESTs, recorded at
//! the output frames only.

mod common;

/// DIFF/1' = DELAY(SIN(TIME), 0.25, SIN(TIME)) from 0 (e0 continues the
/// sine before the start, so the delayed signal is smooth):
/// DIF(1) = cos 0.25 − cos(t − 0.25). REQUEST/1 reads the same delayed sine
/// with a delay that is a multiple of the 0.05 output step (0.3: the
/// samples are the earlier outputs themselves) and one that is not
/// (0.225: the cubic through outputs 0.05 apart, error ≤ h⁴/24 ≈ 3e-7).
const DECK: &str = "delay\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
DIFF/1, FUNCTION = DELAY(SIN(TIME), 0.25, SIN(TIME)), IC = 0\n\
REQUEST/1, F1 = DELAY(SIN(TIME), 0.3, SIN(TIME))\\F2 = DELAY(SIN(TIME), 0.225, SIN(TIME))\\F3 = DIF(1)\n\
END\n";

#[test]
fn delay_of_a_sine_is_the_shifted_sine() {
    let d = common::scratch("delay", "sine");
    let (header, rows, _) = common::run_deck(
        &d,
        "delay",
        DECK,
        "INTEGRATOR/GSTIFF, ERROR = 1E-9\nSIMULATE/DYNAMIC, END = 2, DTOUT = 0.05\nSTOP\n",
    )
    .unwrap();
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
    assert!(worst[1] < 5e-7, "delay not a multiple: {worst:?}");
    assert!(
        worst[2] < 1e-6,
        "DIFF integrating the delayed sine: {worst:?}"
    );
}
