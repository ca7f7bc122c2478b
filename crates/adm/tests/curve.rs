//! CURVE, PTCV and CVCV statements (MATRIX, CURVE_POINTS, ORDER,
//! OPEN/CLOSED; I, JFLOAT, CURVE, RM; IFLOAT, ICURVE, IRM, JFLOAT, JCURVE,
//! JRM), the writer's round trip, and the refusals by name: PTCV and CVCV
//! initial contact (DISP/ICM/VEL, IDISP/…/JVEL), MINPAR/MAXPAR on a MATRIX
//! curve, a CURSUB curve.

mod common;

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{Curve, Cvcv, Ptcv};

const BASE: &str = "curve\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1, QG = 1, 0, 0\n\
MARKER/20, PART = 2\n\
MARKER/30, PART = 1, FLOATING\n\
MATRIX/1, FULL = RORDER, ROWS = 5, COLUMNS = 3, VALUES = 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0, 1, 0, 0\n";

#[test]
fn curve_and_ptcv_are_read_and_written_back() {
    let m = common::build_on(
        BASE,
        "CURVE/7, CLOSED, MATRIX = 1, CURVE_POINTS\n\
         CURVE/8, OPEN, MATRIX = 1, ORDER = 2, MINPAR = -1, MAXPAR = 1\n\
         PTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 7\n",
    );
    assert_eq!(
        m.curves,
        vec![
            Curve {
                id: 7,
                matrix: 1,
                curve_points: true,
                order: 4,
                closed: true,
            },
            Curve {
                id: 8,
                matrix: 1,
                curve_points: false,
                order: 2,
                closed: false,
            },
        ]
    );
    assert_eq!(
        m.ptcvs,
        vec![Ptcv {
            id: 3,
            i: 20,
            jfloat: 30,
            jfloat_part: 1,
            rm: 10,
            curve: 7,
        }]
    );
    let text = write_adm(&m).unwrap();
    let back = read_adm_str(&text, "back.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.curves, m.curves);
    assert_eq!(back.ptcvs, m.ptcvs);
}

const CVCV_PARTS: &str = "MARKER/21, PART = 2\nMARKER/31, PART = 2, FLOATING\nCURVE/7, CLOSED, MATRIX = 1, CURVE_POINTS\n";

#[test]
fn cvcv_is_read_and_written_back() {
    let m = common::build_on(
        BASE,
        &format!("{CVCV_PARTS}CVCV/4, IFLOAT = 31, ICURVE = 7, IRM = 21, JFLOAT = 30, JCURVE = 7, JRM = 10\n"),
    );
    assert_eq!(
        m.cvcvs,
        vec![Cvcv {
            id: 4,
            icurve: 7,
            irm: 21,
            ifloat: 31,
            ifloat_part: 2,
            jcurve: 7,
            jrm: 10,
            jfloat: 30,
            jfloat_part: 1,
        }]
    );
    let text = write_adm(&m).unwrap();
    let back = read_adm_str(&text, "back.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.cvcvs, m.cvcvs);
}

#[test]
fn cvcv_errors_are_exact() {
    for (statement, want) in [
        (
            "CVCV/4, IFLOAT = 31, ICURVE = 7, IRM = 21, JFLOAT = 30, JCURVE = 7, JRM = 10, JDISP = 1, 0, 0\n",
            "m.adm:11:79: CVCV/4: JDISP (initial contact conditions) is not supported: mbsolve starts a CVCV at the closest points of the two curves, Adams' default without IDISP and JDISP",
        ),
        (
            "CVCV/4, IFLOAT = 21, ICURVE = 7, IRM = 21, JFLOAT = 30, JCURVE = 7, JRM = 10\n",
            "m.adm:11:18: CVCV/4: IFLOAT marker 21 is not a FLOATING marker defined before this statement",
        ),
        (
            "CVCV/4, IFLOAT = 31, ICURVE = 8, IRM = 21, JFLOAT = 30, JCURVE = 7, JRM = 10\n",
            "m.adm:11:31: CVCV/4: ICURVE 8 does not exist",
        ),
        (
            "CVCV/4, IFLOAT = 31, ICURVE = 7, IRM = 21, JFLOAT = 30, JCURVE = 7\n",
            "m.adm:11:1: CVCV/4: missing JRM =",
        ),
    ] {
        let got = common::error_on(BASE, &format!("{CVCV_PARTS}{statement}"));
        assert_eq!(got, want, "{statement}");
    }
}

/// Each (statements, exact reader message).
const CASES: &[(&str, &str)] = &[
            (
                "CURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 7, DISP = 1, 0, 0\n",
                "m.adm:9:50: PTCV/3: DISP (initial contact conditions) is not supported: mbsolve starts a PTCV at the curve point nearest to the I marker, Adams' default without DISP",
            ),
            ("CURVE/7, MATRIX = 1, MINPAR = 0\n", "m.adm:8:22: CURVE/7: MINPAR = 0: the parameter of a MATRIX curve always runs from -1 to 1 (MINPAR and MAXPAR set the range of a user-written CURSUB curve)"),
            ("CURVE/7, MATRIX = 1, ORDER = 9\n", "m.adm:8:22: CURVE/7: ORDER = 9: a CURVE's order is 2 (polyline) to 8"),
            ("CURVE/7, MATRIX = 1, OPEN, CLOSED\n", "m.adm:8:28: CURVE/7: OPEN and CLOSED are exclusive"),
            ("CURVE/7, MATRIX = 2\n", "m.adm:8:19: CURVE/7: MATRIX 2 does not exist"),
            ("CURVE/7\n", "m.adm:8:1: CURVE/7: missing MATRIX ="),
            (
                "CURVE/7, OPEN, MINPAR = 0, MAXPAR = 1, FUNCTION = USER(0)\n",
                "m.adm:8:40: CURVE/7: FUNCTION = USER(0) calls the user subroutine CURSUB; mbsolve cannot run Adams user subroutines (compiled libraries): write the function as an expression",
            ),
            (
                "CURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 10, RM = 10, CURVE = 7\n",
                "m.adm:9:26: PTCV/3: JFLOAT marker 10 is not a FLOATING marker defined before this statement",
            ),
            ("PTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 4\n", "m.adm:8:47: PTCV/3: CURVE 4 does not exist"),
            (
                "CURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 30, RM = 30, CURVE = 7\n",
                "m.adm:9:35: PTCV/3: RM marker 30 is a FLOATING marker: only the elements that position it (VFORCE, VTORQUE, GFORCE, PTCV, CVCV, CONTACT) may use it",
            ),
];

#[test]
fn exact_errors() {
    common::expect_errors(BASE, CASES);
}

/// Curve data and PTCV topology are model checks (validate), naming the
/// element and the reason.
#[test]
fn model_checks_name_the_element() {
    let cases = [
        (
            "MATRIX/2, FULL = RORDER, ROWS = 4, COLUMNS = 3, VALUES = 0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0\nCURVE/7, MATRIX = 2, CLOSED\n",
            "CURVE/7 (m.adm:9): a CLOSED curve's first and last points must be the same",
        ),
        (
            "MARKER/11, PART = 2\nCURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 30, RM = 11, CURVE = 7\n",
            "PTCV/3 (m.adm:10): the I marker 20 and the RM marker 11 are on the same part (PART/2); the point and the curve must be on different parts",
        ),
    ];
    for (extra, want) in cases {
        let m = common::build_on(BASE, extra);
        let got = mbsolve_model::validate(&m).unwrap_err().to_string();
        assert_eq!(got, want, "{extra}");
    }
}
