//! User states: first-order differential equations the model adds to the
//! mechanics (Adams DIFF), read by DIF(id) and DIF1(id) in function
//! expressions. Each state is integrated with the mechanics and
//! error-controlled as a user state by every integrator (seeds: "state
//! variables from differential equations (DIFFs)" in the corrector and
//! error-control tables).

use crate::{ElementRef, Id, StateFunction};
use std::sync::Arc;

/// DIFF/id: one user state y with
/// - explicit form: y' = FUNCTION(TIME, measures, DIF, DIF1, …);
/// - implicit form (IMPLICIT): FUNCTION(TIME, measures, DIF, DIF1, …) = 0,
///   a residual in y and y' (DIF(id), DIF1(id)).
#[derive(Clone, Debug)]
pub struct Diff {
    pub id: Id,
    pub function: Arc<dyn StateFunction>,
    pub implicit: bool,
    /// IC = y(t0).
    pub ic: f64,
    /// The second IC value: y'(t0) of an implicit DIFF (the start of the
    /// solve for a consistent y'); None when not given.
    pub ic_rate: Option<f64>,
    /// STATIC_HOLD: y keeps its value in static and quasi-static analyses
    /// (otherwise statics solves y' = 0 for y, as Adams does).
    pub static_hold: bool,
}

impl Diff {
    pub fn element(&self) -> ElementRef {
        ElementRef::Diff(self.id)
    }
}

use crate::validate::err;
use crate::{Model, ModelError};
use std::collections::HashSet;

/// Unique DIFF ids, finite initial values, and every measure of a DIFF
/// function naming an existing marker or user state.
pub(crate) fn validate_states(model: &Model) -> Result<(), ModelError> {
    let mut seen = HashSet::new();
    for d in &model.diffs {
        let e = d.element();
        if !seen.insert(d.id) {
            return Err(err(model, e, "duplicate DIFF id".into()));
        }
        if !d.ic.is_finite() || d.ic_rate.is_some_and(|v| !v.is_finite()) {
            return Err(err(model, e, "IC must be finite".into()));
        }
        crate::validate::check_function_measures(model, e, d.function.as_ref())?;
    }
    Ok(())
}

/// A DIF/DIF1 reference must name an existing user state.
pub(crate) fn check_state_reference(
    model: &Model,
    e: ElementRef,
    state: ElementRef,
) -> Result<(), ModelError> {
    let exists = match state {
        ElementRef::Diff(id) => model.diffs.iter().any(|d| d.id == id),
        _ => false,
    };
    if exists {
        Ok(())
    } else {
        Err(err(
            model,
            e,
            format!("function refers to {state}, which does not exist"),
        ))
    }
}
