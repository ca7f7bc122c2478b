//! write_xml refuses CURVE and PTCV by name: the XML reader has no element
//! for them, so a written deck could not be read back.

use mbsolve_adm::read_adm_str;
use mbsolve_msxml::write_xml;

const DECK: &str = "curve\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
MARKER/30, PART = 1, FLOATING\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1, QG = 1, 0, 0\n\
MARKER/20, PART = 2\n\
MATRIX/1, FULL = RORDER, ROWS = 4, COLUMNS = 3, VALUES = 1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0\n\
CURVE/7, MATRIX = 1, CURVE_POINTS\n";

#[test]
fn curve_and_ptcv_are_refused_by_name() {
    let curve_only = read_adm_str(&format!("{DECK}END\n"), "m.adm").unwrap();
    assert_eq!(
        write_xml(&curve_only).unwrap_err(),
        "CURVE/7: curves are not written to MotionSolve XML (Reference_ParamCurve's documentation does not fix its spline order and parameter range, so it is not verified to be the Adams CURVE)"
    );
    let with_ptcv = read_adm_str(
        &format!("{DECK}PTCV/3, I = 20, JFLOAT = 30, RM = 10, CURVE = 7\nEND\n"),
        "m.adm",
    )
    .unwrap();
    assert_eq!(
        write_xml(&with_ptcv).unwrap_err(),
        "PTCV/3: point-on-curve constraints are not written to MotionSolve XML (Constraint_PTCV needs a Reference_ParamCurve, which is not written, and has no floating marker)"
    );
}
