//! ORIENT(type, comp, i[, j]) in force functions: the measure the mechanics
//! evaluates (`mbsolve_mech::orient_measure`). The types and components are
//! those the requests evaluate (`solver::functions`, same messages): type 27,
//! the Euler parameters e0…e3 of I relative to J (ground when j is 0).

use crate::MeasureCall;
use mbsolve_model::Measure;

/// The measure of an ORIENT(…) call, or why it cannot be one.
pub(crate) fn measure(call: &MeasureCall) -> Result<Measure, String> {
    let ty = call.args.first().copied().unwrap_or(0);
    let comp = call.args.get(1).copied().unwrap_or(0);
    if ty != 27 {
        return Err(format!(
            "ORIENT type {ty} is not supported yet (only 27, Euler parameters)"
        ));
    }
    if !(1..=4).contains(&comp) {
        return Err(format!(
            "ORIENT(27, …): component must be 1…4 (e0, e1, e2, e3), got {comp}"
        ));
    }
    let Some(i) = call.arg(2) else {
        return Err(format!("{call}: marker I must be given (not 0)"));
    };
    Ok(Measure::Orient {
        i,
        j: call.arg(3),
        comp: comp as u8,
        flip: false,
    })
}
