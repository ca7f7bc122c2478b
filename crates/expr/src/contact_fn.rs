//! CONTACT(id, jflag, comp, rm) in force functions: the measure the
//! mechanics evaluates (the contact's total force with its derivatives,
//! `mbsolve_mech::contact_fn`). Arguments as Adams and MotionSolve define
//! them: jflag 0 reports the force on the I geometry's part, 1 on the J
//! geometry's; comp 1 the magnitude, 2–4 the x, y, z components in rm's
//! axes (ground when 0).

use crate::MeasureCall;
use mbsolve_model::Measure;

/// The measure of a CONTACT(…) call, or why it cannot be one.
pub(crate) fn measure(call: &MeasureCall) -> Result<Measure, String> {
    let arg = |k: usize| call.args.get(k).copied().unwrap_or(0);
    let id = arg(0);
    if id == 0 {
        return Err("CONTACT: the CONTACT id (first argument) must be given".into());
    }
    let jflag = match arg(1) {
        f @ (0 | 1) => f as u8,
        f => {
            return Err(format!(
                "CONTACT: jflag must be 0 (I geometry) or 1 (J geometry), got {f}"
            ))
        }
    };
    let comp = match arg(2) {
        c @ 1..=4 => c as u8,
        5..=8 => {
            return Err(
                "CONTACT: torque components (5–8) are not supported yet in a force function".into(),
            )
        }
        c => {
            return Err(format!(
                "CONTACT: component must be 1…4 (1 force magnitude, 2–4 force x y z), got {c}"
            ))
        }
    };
    if call.args.len() > 4 {
        return Err(format!(
            "CONTACT takes 4 arguments (id, jflag, comp, rm), got {}",
            call.args.len()
        ));
    }
    Ok(Measure::Contact {
        id,
        jflag,
        comp,
        rm: call.arg(3),
    })
}
