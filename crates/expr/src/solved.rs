//! Measures a force or state function reads that the system solves for:
//! accelerations (ACCX…ACCZ, WDTX…WDTZ), constraint reactions (JOINT,
//! JPRIM, MOTION, PTCV, CVCV), applied forces (SFORCE, SPDP, BUSH, FIELD,
//! BEAM, GFORCE, VFORCE, VTORQ, FRICTION, and the net forces FX…TM). Adams treats every force as an algebraic unknown
//! of the DAE; these become [`Measure::Solved`] unknowns z with the row
//! z − g = 0, g evaluated as the function requests evaluate it.

use crate::{MeasureCall, MeasureKind};
use mbsolve_model::Measure;

/// Whether a function reading `kind` needs a solved unknown.
pub fn is_solved_kind(kind: MeasureKind) -> bool {
    use MeasureKind as K;
    matches!(
        kind,
        K::Accx
            | K::Accy
            | K::Accz
            | K::Wdtx
            | K::Wdty
            | K::Wdtz
            | K::Fx
            | K::Fy
            | K::Fz
            | K::Fm
            | K::Tx
            | K::Ty
            | K::Tz
            | K::Tm
            | K::Joint
            | K::Jprim
            | K::Motion
            | K::Sforce
            | K::Spdp
            | K::Bush
            | K::Field
            | K::Beam
            | K::Gforce
            | K::Vforce
            | K::Vtorq
            | K::Ptcv
            | K::Cvcv
            | K::Friction
    )
}

/// The solved measure of `call`, None when `call` is read directly.
pub(crate) fn measure(call: &MeasureCall) -> Option<Measure> {
    if !is_solved_kind(call.kind) || call.args.len() > 4 {
        return None;
    }
    let mut args = [0u32; 4];
    args[..call.args.len()].copy_from_slice(&call.args);
    Some(Measure::Solved {
        name: call.kind.name(),
        args,
        nargs: call.args.len() as u8,
    })
}

/// The call a solved measure stands for (None for other measures).
pub fn solved_call(m: &Measure) -> Option<MeasureCall> {
    let Measure::Solved { name, args, nargs } = *m else {
        return None;
    };
    Some(MeasureCall {
        kind: MeasureKind::lookup(name)?,
        args: args[..(nargs as usize).min(4)].to_vec(),
    })
}
