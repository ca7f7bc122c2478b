//! CURVE and PTCV in write_xml: refused by name. MotionSolve's parametric
//! curve and point-to-curve elements are not read by mbsolve's XML reader,
//! so a written deck could not be read back.

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
            "PTCV/{}: point-on-curve constraints are not written to MotionSolve XML (mbsolve does not read its point-to-curve element)",
            p.id
        ));
    }
    if let Some(c) = m.curves.first() {
        return Err(format!(
            "CURVE/{}: curves are not written to MotionSolve XML (mbsolve does not read its parametric curve element)",
            c.id
        ));
    }
    Ok(())
}
