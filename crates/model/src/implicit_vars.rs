//! Implicit VARIABLEs (algebraic loops): a VARIABLE whose FUNCTION reads
//! itself through VARVAL, directly or via other VARIABLEs. Its value v is
//! an algebraic unknown of the system with the equation v = f(v, …), solved
//! with the mechanics by every formulation that hosts user states; f reads
//! the loop's values as user-state measures (`Measure::UserState` with
//! element VARIABLE/id).

use crate::validate::err;
use crate::{ElementRef, Id, Model, ModelError, StateFunction};
use std::sync::Arc;

/// VARIABLE/id on an algebraic loop; its text stays in `Model::variables`.
#[derive(Clone, Debug)]
pub struct ImplicitVariable {
    pub id: Id,
    /// f, with the explicit VARIABLEs it reads inlined.
    pub function: Arc<dyn StateFunction>,
    /// IC = the initial guess for v (Adams VARIABLE IC): the start of the
    /// first Newton solve of the loop.
    pub ic: f64,
}

impl ImplicitVariable {
    pub fn element(&self) -> ElementRef {
        ElementRef::Variable(self.id)
    }
}

/// Finite initial guesses, each implicit VARIABLE also in
/// `Model::variables`, and every measure of its function valid.
pub(crate) fn validate_implicit_variables(model: &Model) -> Result<(), ModelError> {
    for v in &model.implicit_variables {
        let e = v.element();
        if !model.variables.iter().any(|x| x.id == v.id) {
            return Err(err(
                model,
                e,
                "an implicit VARIABLE must also be listed among the model's VARIABLEs".into(),
            ));
        }
        if !v.ic.is_finite() {
            return Err(err(model, e, "IC must be finite".into()));
        }
        crate::validate::check_function_measures(model, e, v.function.as_ref())?;
    }
    Ok(())
}
