//! ORIENT(system, comp, i[, j]): which orientation systems and components
//! exist, checked once for the requests (`solver::functions`) and the force
//! functions (the measure the mechanics evaluates,
//! `mbsolve_mech::orient_measure`). The systems are Adams' table (the
//! definitions and their sources are in `mbsolve_mech::orient_systems`):
//! 1–12 body-fixed and 13–24 space-fixed Euler sequences, 25 AX/AY/AZ,
//! 26 YAW/PITCH/ROLL, 27 Euler parameters, 28 Rodriguez parameters, 29
//! direction cosines.

use crate::MeasureCall;
use mbsolve_model::Measure;

/// The (system, component) of an ORIENT(…) call, or why it has none.
pub fn orient_system(call: &MeasureCall) -> Result<(u8, u8), String> {
    let ty = call.args.first().copied().unwrap_or(0);
    let comp = call.args.get(1).copied().unwrap_or(0);
    let (count, names) = match ty {
        1..=12 => (3, "first, second, third angle of the body-fixed sequence"),
        13..=24 => (3, "first, second, third angle of the space-fixed sequence"),
        25 => (3, "AX, AY, AZ"),
        26 => (3, "YAW, PITCH, ROLL"),
        27 => (4, "e0, e1, e2, e3"),
        28 => (3, "Rodriguez parameters"),
        29 => (
            9,
            "direction cosines of I's x, y, z axes on J's x, y, z axes",
        ),
        _ => {
            return Err(format!(
                "ORIENT type {ty} is not an orientation system (they are 1…29)"
            ))
        }
    };
    if !(1..=count).contains(&comp) {
        return Err(format!(
            "ORIENT({ty}, …): component must be 1…{count} ({names}), got {comp}"
        ));
    }
    Ok((ty as u8, comp as u8))
}

/// The measure of an ORIENT(…) call, or why it cannot be one.
pub(crate) fn measure(call: &MeasureCall) -> Result<Measure, String> {
    let (system, comp) = orient_system(call)?;
    let Some(i) = call.arg(2) else {
        return Err(format!("{call}: marker I must be given (not 0)"));
    };
    Ok(Measure::Orient {
        i,
        j: call.arg(3),
        system,
        comp,
        flip: false,
    })
}
