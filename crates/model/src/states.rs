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
    component: u32,
) -> Result<(), ModelError> {
    let exists = match state {
        ElementRef::Diff(id) => model.diffs.iter().any(|d| d.id == id),
        // VARVAL of an implicit VARIABLE (`implicit_vars.rs`).
        ElementRef::Variable(id) => model.implicit_variables.iter().any(|v| v.id == id),
        // The X (states) or Y (outputs) array of an LSE/TFSISO.
        ElementRef::Array(id) => {
            let owner = model
                .linear_systems
                .iter()
                .find(|l| l.x == id || l.y == Some(id));
            if let Some(l) = owner {
                let size = if l.x == id {
                    l.states.len()
                } else {
                    l.outputs.len()
                };
                if component as usize >= size {
                    return Err(err(
                        model,
                        e,
                        format!(
                            "ARYVAL({id}, {}): {state} has {size} elements (1 to {size})",
                            component.wrapping_add(1)
                        ),
                    ));
                }
            }
            let owner = owner.is_some();
            if !owner && model.arrays.iter().any(|a| a.id == id) {
                return Err(err(
                    model,
                    e,
                    format!("ARYVAL reads {state}, which is not the X or Y array of an LSE or TFSISO; ARYVAL of other arrays is not supported yet"),
                ));
            }
            owner
        }
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

/// ARRAY types (Adams ARRAY statement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    /// NUMBERS without a type, or IC (initial values of an LSE's states).
    Numbers,
    Ic,
    /// U: the inputs of an LSE/TFSISO, VARIABLE ids.
    U,
    /// X: the states of the LSE/TFSISO that names it.
    X,
    /// Y: the outputs of the LSE/TFSISO that names it.
    Y,
}

impl ArrayKind {
    pub fn name(self) -> &'static str {
        match self {
            ArrayKind::Numbers => "",
            ArrayKind::Ic => "IC",
            ArrayKind::U => "U",
            ArrayKind::X => "X",
            ArrayKind::Y => "Y",
        }
    }
}

/// ARRAY/id: numbers (general, IC), VARIABLE ids (U), or the size of a
/// state (X) or output (Y) vector; read by ARYVAL(id, k).
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub id: Id,
    pub kind: ArrayKind,
    pub size: Option<usize>,
    pub numbers: Vec<f64>,
    pub variables: Vec<Id>,
}

/// MATRIX/id: a dense rows × columns matrix (FULL in row or column order,
/// or SPARSE entries), stored row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    pub id: Id,
    pub rows: usize,
    pub columns: usize,
    pub values: Vec<f64>,
    /// Written back as SPARSE (I, J, VALUES) when true.
    pub sparse: bool,
}

impl Matrix {
    pub fn get(&self, r: usize, c: usize) -> f64 {
        self.values[r * self.columns + c]
    }
}

/// LSE/id (x' = A x + B u, y = C x + D u) or TFSISO/id (a transfer
/// function, realised in controllable canonical form): its arrays and
/// matrices as written, and the compiled right-hand sides — one function
/// per state (x'_k) and per output (y_k) over the states (ARYVAL of the X
/// array), the inputs (the U array's VARIABLEs) and TIME.
#[derive(Clone, Debug)]
pub struct LinearSystem {
    pub element: ElementRef,
    pub x: Id,
    pub u: Option<Id>,
    pub y: Option<Id>,
    /// LSE: the A, B, C, D and IC ids.
    pub matrices: [Option<Id>; 4],
    pub ic: Option<Id>,
    /// TFSISO: the numerator and denominator coefficients (ascending powers of s).
    pub numerator: Vec<f64>,
    pub denominator: Vec<f64>,
    pub static_hold: bool,
    pub x0: Vec<f64>,
    pub states: Vec<Arc<dyn StateFunction>>,
    pub outputs: Vec<Arc<dyn StateFunction>>,
}
