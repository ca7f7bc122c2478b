//! MODE (Adams Solver function: the analysis number, 1 kinematics,
//! 4 dynamics, 5 statics) read in one `.acf` running KINEMATIC, STATIC and
//! DYNAMIC on the same model: by a REQUEST directly, and through the force
//! an SFORCE applies (FUNCTION = MODE), which the MOTION's reaction carries.

mod common;

/// PART/2 slides along ground x on a TRANSLATIONAL joint, driven by
/// MOTION/1 at constant speed (zero DOF, no gravity, no acceleration): the
/// motion's reaction balances SFORCE/1 = MODE exactly, so
/// |MOTION(1,0,2,0)| = MODE on every frame (the SFORCE acts along x,
/// from MARKER/12 at x = −1 to the part).
const DECK: &str = "mode\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
ACCGRAV/IGRAV = 0, JGRAV = 0, KGRAV = 0\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
MARKER/11, PART = 1, REULER = 90D, 90D, 0D\n\
MARKER/12, PART = 1, QP = -1, 0, 0\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
MARKER/20, PART = 2\n\
MARKER/21, PART = 2, REULER = 90D, 90D, 0D\n\
JOINT/1, TRANSLATIONAL, I = 21, J = 11\n\
MOTION/1, JOINT = 1, TRANSLATION, FUNCTION = 0.1*TIME\n\
SFORCE/1, TRANSLATIONAL, I = 20, J = 12, FUNCTION = MODE\n\
REQUEST/1, F1 = MODE\\F2 = MOTION(1,0,2,0)\\F3 = IF(MODE - 4: 0, 1, 0)\n\
END\n";

#[test]
fn mode_is_the_analysis_that_evaluates() {
    let d = common::scratch("mode", "acf");
    let (header, rows, _) = common::run_deck(
        &d,
        "mode",
        DECK,
        "SIMULATE/KINEMATIC, END = 0.2, STEPS = 2\nSIMULATE/STATIC\nSIMULATE/DYNAMIC, END = 0.4, STEPS = 2\nSTOP\n",
    )
    .unwrap();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (mode, reaction, is_dynamic) = (
        col("request_1.f1"),
        col("request_1.f2"),
        col("request_1.f3"),
    );
    // (time, MODE): the initial-conditions frame, two kinematic frames,
    // the static frame at 0.2, two dynamic frames.
    let want = [
        (0.0, 3.0),
        (0.1, 1.0),
        (0.2, 1.0),
        (0.2, 5.0),
        (0.3, 4.0),
        (0.4, 4.0),
    ];
    let got: Vec<(f64, f64)> = rows.iter().map(|r| (r[0], r[mode])).collect();
    assert_eq!(got.len(), want.len(), "{got:?}");
    for ((t, m), (wt, wm)) in got.iter().zip(want) {
        assert!((t - wt).abs() < 1e-9 && *m == wm, "{got:?}");
    }
    for r in &rows {
        assert!(
            (r[reaction].abs() - r[mode]).abs() < 1e-9,
            "t = {}: reaction {} for MODE {}",
            r[0],
            r[reaction],
            r[mode]
        );
        assert_eq!(r[is_dynamic], if r[mode] == 4.0 { 1.0 } else { 0.0 });
    }
}
