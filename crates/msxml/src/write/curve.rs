//! CURVE and PTCV in write_xml: refused by name. MotionSolve's parametric
//! curve is Reference_ParamCurve (Reference Guide xml-format_92:
//! is_u_closed, is_curve_points, quintic, matrix_id or points); its pages
//! do not say which spline order it fits or how it parameterizes the
//! points, so whether it is the Adams CURVE (ORDER 2–8, parameter −1…1) is
//! unverified. Constraint_PTCV (xml-format_44: i_marker_id, j_marker_id,
//! curve_id, disp_x0…, vel_0) needs one, and names no floating marker, so
//! an Adams PTCV's JFLOAT would not survive a round trip. mbsolve neither
//! reads nor writes them.

use mbsolve_model::Model;

pub(super) fn refuse(m: &Model) -> Result<(), String> {
    if let Some(c) = m.cvcvs.first() {
        return Err(format!(
            "CVCV/{}: curve-on-curve constraints are not written to MotionSolve XML (mbsolve does not read its Constraint_CVCV element)",
            c.id
        ));
    }
    if let Some(p) = m.ptcvs.first() {
        return Err(format!(
            "PTCV/{}: point-on-curve constraints are not written to MotionSolve XML (Constraint_PTCV needs a Reference_ParamCurve, which is not written, and has no floating marker)",
            p.id
        ));
    }
    if let Some(c) = m.curves.first() {
        return Err(format!(
            "CURVE/{}: curves are not written to MotionSolve XML (Reference_ParamCurve's documentation does not fix its spline order and parameter range, so it is not verified to be the Adams CURVE)",
            c.id
        ));
    }
    Ok(())
}
