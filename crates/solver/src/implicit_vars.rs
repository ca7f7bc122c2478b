//! Implicit VARIABLEs (algebraic loops) in the solver: their values are
//! user states of form `Output` (v − f(v, …) = 0, mbsolve-mech
//! `states.rs`), solved with the mechanics by I3, SI2, SI1 and FIM_S
//! statics. Function REQUESTs and SENSORs read them through VARVAL, which
//! the substitution keeps for them ([`mbsolve_expr::with_unknowns`]).

use crate::analysis::Frame;
use mbsolve_expr::{EvalError, MeasureCall};
use mbsolve_mech::System;
use mbsolve_model::ElementRef;

/// VARVAL(id) of an implicit VARIABLE on a frame: its user-state value.
pub(crate) fn request_value(
    sys: &System,
    frame: &Frame,
    m: &MeasureCall,
) -> Result<f64, EvalError> {
    let id = m.args.first().copied().unwrap_or(0);
    let k = sys
        .states
        .keys
        .iter()
        .position(|x| *x == (ElementRef::Variable(id), 0))
        .ok_or_else(|| {
            EvalError::new(format!(
                "{m}: VARIABLEs are substituted when a request is compiled, and VARIABLE/{id} is not an implicit one"
            ))
        })?;
    frame
        .w
        .get(k)
        .copied()
        .ok_or_else(|| EvalError::new(format!("{m}: no user-state values in this frame")))
}
