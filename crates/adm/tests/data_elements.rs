//! SPLINE and STRING statements: read (with forward references from the
//! functions that use them), honoured by CUBSPL/AKISPL, written back by
//! write_adm, and their errors.

mod common;

use mbsolve_adm::{diagnose_adm, read_adm_str, write_adm};
use mbsolve_model::SplineMethod;

const BASE: &str = "title line\n\
PART/1, GROUND\n\
MARKER/11, PART = 1\n\
PART/2, MASS = 2, CM = 21, IP = 1, 1, 1\n\
MARKER/21, PART = 2\n\
JOINT/1, TRANSLATIONAL, I = 21, J = 11\n";

/// The MOTION reads SPLINE/5 before the SPLINE statement (Adams allows
/// forward references): its value and time derivatives are the spline's.
const DECK: &str = "MOTION/1, JOINT = 1, TRANSLATION, FUNCTION = CUBSPL(TIME, 0, 5)\n\
SFORCE/1, TRANSLATIONAL, I = 21, J = 11, FUNCTION = AKISPL(DZ(21, 11), 0.5, 6) + 0*CUBSPL(TIME, 0, 5, 1)\n\
SPLINE/5, X = 0, 0.5, 1.2, 2, 3\n\
, Y = 0, 0.25, 1.44, 4, 9\n\
SPLINE/6, LINEAR_EXTRAPOLATE\n\
, X = -1, 0, 1, 2\n\
, Y = 0, 0, 1, 2, 3\n\
, Y = 1, 0, 2, 4, 6\n\
STRING/7001, STRING = test_string_1\n";

#[test]
fn splines_are_read_and_honoured_through_the_functions() {
    let m = common::build_on(BASE, DECK);
    assert_eq!(m.splines.len(), 2);
    let s6 = &m.splines[1];
    assert_eq!(s6.z.as_deref(), Some(&[0.0, 1.0][..]));
    assert!(s6.linear_extrapolate);
    // y = t² sampled: the not-a-knot spline reproduces the quadratic
    let motion = &m.motions[0];
    for t in [0.3, 1.0, 2.7] {
        let [v, d, dd] = motion.function.eval(t);
        assert!((v - t * t).abs() < 1e-12, "value at {t}");
        assert!((d - 2.0 * t).abs() < 1e-11, "slope at {t}");
        assert!((dd - 2.0).abs() < 1e-10, "curvature at {t}");
    }
    // the family at z = 0.5 is halfway between y = x + 1 and y = 2x + 2
    let p = s6.surface_at(SplineMethod::Akima, 0.4, 0.5);
    assert!((p.x[0] - 1.5 * 1.4).abs() < 1e-12);
    assert_eq!(m.strings[0].text, "test_string_1");
    assert_eq!(m.strings[0].id, 7001);
}

/// write_adm writes SPLINE and STRING so that reading the text back gives
/// the same data and the same function values.
#[test]
fn splines_and_strings_are_written_back() {
    let m = common::build_on(BASE, DECK);
    let text = write_adm(&m).unwrap();
    let back = read_adm_str(&text, "back.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back.splines, m.splines);
    assert_eq!(back.strings, m.strings);
    for t in [0.1, 2.2, 3.5] {
        assert_eq!(
            back.motions[0].function.eval(t),
            m.motions[0].function.eval(t)
        );
    }
}

#[test]
fn spline_errors_name_the_statement() {
    common::expect_errors(
        BASE,
        &[
            (
                "SPLINE/5, X = 0, 1, 2, Y = 0, 1, 2\n",
                "m.adm:7:1: SPLINE/5: X needs at least 4 values, found 3",
            ),
            (
                "SPLINE/5, X = 0, 1, 2, 3, Y = 0, 1, 2\n",
                "m.adm:7:27: SPLINE/5: Y needs one value per x value: found 3 values with 4 x values",
            ),
            (
                "SPLINE/5, X = 0, 1, 2, 3, Y = 1, 0, 1, 2, 3, Y = 2, 0, 1\n",
                "m.adm:7:46: SPLINE/5: a family of curves needs Y = z, y1, …, yn for each curve: found 3 values with 4 x values",
            ),
            (
                "SPLINE/5, X = 0, 2, 1, 3, Y = 0, 1, 2, 3\n",
                "m.adm:7:1: SPLINE/5: X values must increase strictly: x3 = 1 follows x2 = 2",
            ),
            (
                "SPLINE/5, FILE = road.rsp, CHANNEL = 2\n",
                "m.adm:7:11: SPLINE/5: FILE is not supported: mbsolve does not read Adams Durability (DAC, RPC III) spline files; give the data as X = …, Y = …",
            ),
            (
                "SPLINE/5, X = 0, 1, 2, 3, Y = 0, 1, 2, 3\nSPLINE/5, X = 0, 1, 2, 3, Y = 0, 1, 2, 3\n",
                "m.adm:8:1: SPLINE/5: duplicate id: SPLINE/5 is already defined at m.adm:7",
            ),
            (
                "SFORCE/1, TRANSLATIONAL, I = 21, J = 11, FUNCTION = CUBSPL(TIME, 0, 9)\n",
                "m.adm:7:53: SFORCE/1: CUBSPL: SPLINE/9 does not exist",
            ),
            (
                "STRING/3\n",
                "m.adm:7:1: STRING/3: missing STRING = text",
            ),
        ],
    );
}

/// A bad SPLINE is reported once, at its statement, by the every-problem
/// reader, and the function that reads it says the SPLINE is missing.
#[test]
fn diagnose_lists_the_bad_spline_and_its_reader() {
    let text = format!(
        "{BASE}SFORCE/1, TRANSLATIONAL, I = 21, J = 11, FUNCTION = CUBSPL(TIME, 0, 5)\n\
         SPLINE/5, X = 0, 1, Y = 0, 1\nEND\n"
    );
    let errors = diagnose_adm(&text, "m.adm").unwrap_err();
    let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    assert_eq!(
        messages,
        [
            "m.adm:7:53: SFORCE/1: CUBSPL: SPLINE/5 does not exist",
            "m.adm:8:1: SPLINE/5: X needs at least 4 values, found 2",
        ]
    );
}
