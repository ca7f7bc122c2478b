//! write_xml refuses CVCV by name: the XML reader has no Constraint_CVCV
//! (nor a parametric curve element), so a written deck could not be read
//! back.

use mbsolve_adm::read_adm_str;
use mbsolve_msxml::write_xml;

#[test]
fn cvcv_is_refused_by_name() {
    let deck = "cvcv\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
MARKER/30, PART = 1, FLOATING\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1, QG = 1, 0, 0\n\
MARKER/20, PART = 2\n\
MARKER/31, PART = 2, FLOATING\n\
MATRIX/1, FULL = RORDER, ROWS = 5, COLUMNS = 3, VALUES = 1, 0, 0, 0, 1, 0, -1, 0, 0, 0, -1, 0, 1, 0, 0\n\
CURVE/7, CLOSED, MATRIX = 1, CURVE_POINTS\n\
CVCV/4, IFLOAT = 31, ICURVE = 7, IRM = 20, JFLOAT = 30, JCURVE = 7, JRM = 10\n\
END\n";
    let m = read_adm_str(deck, "m.adm").unwrap();
    assert_eq!(
        write_xml(&m).unwrap_err(),
        "CVCV/4: curve-on-curve constraints are not written to MotionSolve XML (mbsolve does not read its Constraint_CVCV element)"
    );
}
