//! CURVE and PTCV statements (MATRIX, CURVE_POINTS, ORDER, OPEN/CLOSED;
//! I, JFLOAT, CURVE, RM), the writer's round trip, and the refusals by
//! name: CVCV, PTCV initial contact (DISP/ICM/VEL), MINPAR/MAXPAR on a
//! MATRIX curve, a CURSUB curve.

mod common;

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{Curve, Ptcv};

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

#[test]
fn exact_errors() {
    common::expect_errors(
        BASE,
        &[
            ("CVCV/1, IFLOAT = 30, JFLOAT = 30\n", ""),
            (
                "CURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 7, DISP = 1, 0, 0\n",
                "",
            ),
            ("CURVE/7, MATRIX = 1, MINPAR = 0\n", ""),
            ("CURVE/7, MATRIX = 1, ORDER = 9\n", ""),
            ("CURVE/7, MATRIX = 1, OPEN, CLOSED\n", ""),
            ("CURVE/7, MATRIX = 2\n", ""),
            ("CURVE/7\n", ""),
            (
                "CURVE/7, OPEN, MINPAR = 0, MAXPAR = 1, FUNCTION = USER(0)\n",
                "",
            ),
            (
                "CURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 10, RM = 10, CURVE = 7\n",
                "",
            ),
            ("PTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 4\n", ""),
            (
                "CURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 30, RM = 30, CURVE = 7\n",
                "",
            ),
            (
                "CURVE/7, MATRIX = 1, CLOSED\nPTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 7\n",
                "",
            ),
            (
                "MARKER/11, PART = 2\nCURVE/7, MATRIX = 1\nPTCV/3, I = 20, JFLOAT = 30, RM = 11, CURVE = 7\n",
                "",
            ),
        ],
    );
}
