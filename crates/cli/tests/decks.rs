//! Issue 16 through the whole chain (`.adm`/`.acf` → reader → solver →
//! CSV and message log): PINPUT/POUTPUT and REQUEST names as CSV columns,
//! `check` naming every problem at once, the ACCGRAV command, KINEMATICS
//! HMAX. Each against a closed form or an exact count.

mod common;
use common::mbsolve;
use std::path::PathBuf;

fn scratch(name: &str) -> PathBuf {
    common::scratch("decks", name)
}

/// Writes `name.adm` and `name.acf`, runs them; returns the CSV header,
/// rows and the message log.
fn run(name: &str, adm: &str, acf: &str) -> common::RunResult {
    common::run_deck(&scratch(name), name, adm, &format!("{acf}stop\n"))
        .unwrap_or_else(|e| panic!("{e}"))
}

/// A 1 m pendulum on a REVOLUTE joint about z at the origin, under gravity
/// along -y, starting horizontal.
const PENDULUM: &str = "pendulum\n\
UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n\
PART/1, GROUND\n\
MARKER/1, PART=1\n\
PART/2, MASS=1, CM=21, IP=0.01,0.01,0.01\n\
MARKER/21, PART=2, QP=1,0,0\n\
MARKER/22, PART=2\n\
JOINT/1, REVOLUTE, I=22, J=1\n\
ACCGRAV/JGRAV=-9.81\n";

#[test]
fn plant_io_and_request_names_are_csv_columns() {
    let adm = format!(
        "{PENDULUM}VARIABLE/1, IC = 3, FUNCTION = DX(21)\n\
         VARIABLE/2, FUNCTION = 2*TIME\n\
         PINPUT/1, VARIABLES = 2\n\
         POUTPUT/1, VARIABLES = 1, 2\n\
         REQUEST/5, F2 = DY(21)\\F3 = VARVAL(2)\n\
         , CNAMES = \"\", \"y\", \"input\", RESULTS_NAME = arm, CLABELS = \"\", \"(m)\"\nEND\n"
    );
    let (header, rows, _) = run(
        "plantio",
        &adm,
        "integrator/gstiff, error = 1e-8\nsimulate/dynamic, end = 0.5, dtout = 0.05\n",
    );
    assert_eq!(
        header,
        [
            "time",
            "arm.y (m)",
            "arm.input",
            "pinput_1.VARVAL(2)",
            "poutput_1.VARVAL(1)",
            "poutput_1.VARVAL(2)"
        ]
    );
    assert_eq!(rows.len(), 11);
    for r in &rows {
        let (t, y, input, pin, x, pout2) = (r[0], r[1], r[2], r[3], r[4], r[5]);
        // VARIABLE/2 = 2 t, read three ways.
        for v in [input, pin, pout2] {
            assert!((v - 2.0 * t).abs() < 1e-12, "t = {t}: {v}");
        }
        // The CM stays on the unit circle: x from POUTPUT, y from REQUEST.
        assert!(
            (x * x + y * y - 1.0).abs() < 1e-6,
            "t = {t}: x = {x}, y = {y}"
        );
    }
    // It fell: y < 0 after the start.
    assert!(rows[10][1] < -0.5, "{:?}", rows[10]);
}

/// `check` prints every problem, one per line, then their count; a deck
/// that builds lists its plant inputs and outputs.
#[test]
fn check_names_every_problem_and_lists_plant_io() {
    let d = scratch("check");
    let bad = d.join("bad.adm");
    std::fs::write(
        &bad,
        format!(
            "{PENDULUM}SFORCE/1, ROTATIONAL, I = 22, J = 1, FUNCTION = USER(1, 2)\n\
             VARIABLE/3, FUNCTION = USER(5)\n, ROUTINE = ctl::Law\n\
             CONTACT/1, IGEOM = 1, JGEOM = 2\nEND\n"
        ),
    )
    .unwrap();
    let o = mbsolve(&["check", bad.to_str().unwrap()]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let p = bad.display();
    let cannot = "mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression";
    assert_eq!(
        err.trim_end(),
        format!(
            "mbsolve: error: {p}:10:38: SFORCE/1: FUNCTION = USER(1, 2) calls the user subroutine SFOSUB; {cannot}\n\
             {p}:11:13: VARIABLE/3: FUNCTION = USER(5) calls the user subroutine ctl::Law; {cannot}\n\
             {p}:13:1: CONTACT/1: missing STIFFNESS =\n\
             3 problems in {p}"
        )
    );
    let good = d.join("good.adm");
    std::fs::write(
        &good,
        format!(
            "{PENDULUM}VARIABLE/1, FUNCTION = DX(21)\nVARIABLE/2, FUNCTION = 1\n\
             PINPUT/7, VARIABLES = 2\nPOUTPUT/8, VARIABLES = 1, 2\nEND\n"
        ),
    )
    .unwrap();
    let o = mbsolve(&["check", good.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("\nPINPUT/7: VARIABLES = 2\nPOUTPUT/8: VARIABLES = 1, 2\n"),
        "{out}"
    );
}

/// ACCGRAV/JGRAV = 0 between two SIMULATEs switches gravity off: a body
/// falling from rest for 0.5 s then coasts, y(1) = -g/8 - g/4.
#[test]
fn accgrav_command_changes_gravity_between_simulates() {
    let adm = "free fall\n\
        UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n\
        PART/1, GROUND\nMARKER/1, PART=1\n\
        PART/2, MASS=1, CM=21, IP=0.01,0.01,0.01\nMARKER/21, PART=2\n\
        ACCGRAV/JGRAV=-9.81\nREQUEST/1, DISPLACEMENT, I=21, J=1\nEND\n";
    let (header, rows, log) = run(
        "accgrav",
        adm,
        "integrator/gstiff, error = 1e-8\nsim/dyn, end = 0.5, dtout = 0.5\naccg/jgrav = 0\n\
         sim/dyn, end = 1.0, dtout = 0.5\n",
    );
    assert_eq!(header[2], "request_1.y");
    let g = 9.81;
    let y = |t: f64| rows.iter().find(|r| (r[0] - t).abs() < 1e-12).unwrap()[2];
    assert!((y(0.5) + g / 8.0).abs() < 1e-5, "y(0.5) = {}", y(0.5));
    assert!(
        (y(1.0) + g / 8.0 + g / 4.0).abs() < 1e-5,
        "y(1) = {}",
        y(1.0)
    );
    assert!(
        log.contains("ACCGRAV command: gravity = (0, 0, 0)"),
        "{log}"
    );
}

/// KINEMATICS HMAX = 0.01 makes the kinematic analysis of a crank driven at
/// one turn per second solve 100 configurations to t = 1 instead of the 4
/// output times, and every output matches x = cos 2πt.
#[test]
fn kinematics_hmax_bounds_the_time_between_solutions() {
    let crank = "crank\n\
        UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n\
        PART/1, GROUND\nMARKER/1, PART=1\n\
        PART/2, MASS=1, CM=21, IP=0.01,0.01,0.01\nMARKER/21, PART=2, QP=1,0,0\nMARKER/22, PART=2\n\
        JOINT/1, REVOLUTE, I=22, J=1\nMOTION/1, ROTATIONAL, JOINT=1, FUNCTION=2*PI*TIME\n\
        REQUEST/1, DISPLACEMENT, I=21, J=1\n";
    for (extra, solved) in [("KINEMATICS/, HMAX = 0.01\n", 100), ("", 4)] {
        let (_, rows, log) = run(
            if solved == 4 { "kin4" } else { "kin100" },
            &format!("{crank}{extra}END\n"),
            "simulate/kinematic, end = 1, dtout = 0.25\n",
        );
        assert_eq!(rows.len(), 5);
        for r in &rows {
            let want = (2.0 * std::f64::consts::PI * r[0]).cos();
            assert!((r[1] - want).abs() < 1e-8, "t = {}: x = {}", r[0], r[1]);
        }
        let line = format!("kinematic analysis to t = 1: {solved} configurations solved");
        assert!(log.contains(&line), "{extra:?}: {log}");
    }
}

/// FUNCTION redefinitions before the first SIMULATE edit the dataset: a
/// crank driven through VARVAL(1) = 2πt, redefined to πt, gives
/// x = cos πt; an action-only SFORCE of 0 redefined to 2 N pushes a 1 kg
/// body to z = t².
#[test]
fn command_file_redefines_variable_and_sforce_functions() {
    let adm = "crank driven through a VARIABLE, and a pushed free body\n\
        UNITS/FORCE=NEWTON, MASS=KILOGRAM, LENGTH=METER, TIME=SECOND\n\
        PART/1, GROUND\nMARKER/1, PART=1\n\
        PART/2, MASS=1, CM=21, IP=0.01,0.01,0.01\nMARKER/21, PART=2, QP=1,0,0\nMARKER/22, PART=2\n\
        JOINT/1, REVOLUTE, I=22, J=1\n\
        VARIABLE/1, FUNCTION=2*PI*TIME\nMOTION/1, ROTATIONAL, JOINT=1, FUNCTION=VARVAL(1)\n\
        PART/3, MASS=1, CM=31, IP=0.01,0.01,0.01\nMARKER/31, PART=3\n\
        SFORCE/1, TRANSLATIONAL, ACTIONONLY, I=31, J=1, FUNCTION=0\n\
        REQUEST/1, DISPLACEMENT, I=21, J=1\nREQUEST/2, DISPLACEMENT, I=31, J=1\nEND\n";
    let (header, rows, _) = run(
        "redefine",
        adm,
        "variable/1, function = PI*TIME\nsforce/1, function = 2\n\
         integrator/gstiff, error = 1e-8\nsim/dyn, end = 1, dtout = 0.25\n",
    );
    assert_eq!(header[1], "request_1.x");
    assert_eq!(header[9], "request_2.z");
    assert_eq!(rows.len(), 5);
    for r in &rows {
        let t = r[0];
        let x = (std::f64::consts::PI * t).cos();
        assert!(
            (r[1] - x).abs() < 1e-8,
            "t = {t}: crank x = {}, want {x}",
            r[1]
        );
        assert!(
            (r[9] - t * t).abs() < 1e-6,
            "t = {t}: z = {}, want {}",
            r[9],
            t * t
        );
    }
}

/// `mbsolve convert` to MotionSolve XML names what has no XML form instead
/// of dropping it; to .adm it keeps it.
#[test]
fn convert_keeps_or_names_plant_io() {
    let d = scratch("convert");
    let adm = d.join("plant.adm");
    std::fs::write(
        &adm,
        format!("{PENDULUM}VARIABLE/1, FUNCTION = DX(21)\nPOUTPUT/8, VARIABLES = 1\nEND\n"),
    )
    .unwrap();
    let xml = d.join("plant.xml");
    let o = mbsolve(&[
        "convert",
        adm.to_str().unwrap(),
        "-o",
        xml.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("PINPUT/POUTPUT 8: Adams/Controls plant inputs and outputs have no MotionSolve XML form here"),
        "{err}"
    );
    let out = d.join("copy.adm");
    let o = mbsolve(&[
        "convert",
        adm.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("POUTPUT/8, VARIABLES = 1\n"), "{text}");
}
