//! VARIABLE statements and the functions that read them (VARVAL), and the
//! checks on element results named in expressions, done once every
//! statement is read (Adams allows forward references).
//!
//! Explicit VARIABLEs are inlined: VARVAL(id) in an SFORCE, MOTION or GCON
//! function is replaced by the variable's expression
//! ([`mbsolve_expr::Expr::with_variables`]), so values and exact
//! derivatives flow through the usual measures. Function REQUESTs keep
//! their text; the solver inlines the model's variables when it compiles
//! them. A VARIABLE that depends on itself (directly or through other
//! VARIABLEs) is an implicit VARIABLE: an algebraic unknown v of the
//! system with the row v − f(v, …) = 0 ([`mbsolve_model::ImplicitVariable`]);
//! VARVAL of it is not inlined but reads that unknown.

use super::{Builder, Space};
use crate::args::Args;
use crate::error::Pos;
use crate::syntax::{ExprText, Statement};
use crate::AdmError;
use mbsolve_expr::{
    Expr, ExprConstraintFunction, ExprStateFunction, ExprTimeFunction, MeasureCall, MeasureKind,
};
use mbsolve_model::{
    ConstraintFunction, ElementRef, ForceKind, Id, Measure, StateFunction, TimeFunction, Variable,
};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Which model function a pending expression becomes.
enum Target {
    Force(usize),
    Motion(usize),
    Gcon(usize),
    Diff(usize),
    /// Component k (FX … TZ) of the VFORCE/VTORQUE/GFORCE at this index.
    VectorComponent(usize, usize),
}

/// A force, motion or GCON function that reads VARVAL.
pub(crate) struct PendingFunction {
    target: Target,
    expr: Expr,
    text: ExprText,
    label: String,
    /// The file `text` is in.
    file: String,
}

impl PendingFunction {
    /// Whether this converts the function of force `k` (`force`) or of
    /// motion `k`: a redefinition replaces it.
    pub fn converts(&self, force: bool, k: usize) -> bool {
        match self.target {
            Target::Force(i) => force && i == k,
            Target::Motion(i) => !force && i == k,
            Target::VectorComponent(i, _) => force && i == k,
            Target::Gcon(_) | Target::Diff(_) => false,
        }
    }

    pub fn force(file: &str, index: usize, expr: Expr, text: ExprText, label: String) -> Self {
        PendingFunction {
            target: Target::Force(index),
            expr,
            text,
            label,
            file: file.to_string(),
        }
    }
    pub fn motion(file: &str, index: usize, expr: Expr, text: ExprText, label: String) -> Self {
        PendingFunction {
            target: Target::Motion(index),
            expr,
            text,
            label,
            file: file.to_string(),
        }
    }
    pub fn diff(file: &str, index: usize, expr: Expr, text: ExprText, label: String) -> Self {
        PendingFunction {
            target: Target::Diff(index),
            expr,
            text,
            label,
            file: file.to_string(),
        }
    }
    /// Component `k` (0..6 = FX … TZ) of the vector force at `index`.
    pub fn vector_component(
        file: &str,
        index: usize,
        k: usize,
        expr: Expr,
        text: ExprText,
        label: String,
    ) -> Self {
        PendingFunction {
            target: Target::VectorComponent(index, k),
            expr,
            text,
            label,
            file: file.to_string(),
        }
    }
    pub fn gcon(file: &str, index: usize, expr: Expr, text: ExprText, label: String) -> Self {
        PendingFunction {
            target: Target::Gcon(index),
            expr,
            text,
            label,
            file: file.to_string(),
        }
    }
}

/// An element result (SFORCE(id, jflag, comp, rm)) named in an expression.
pub(crate) struct ElementCall {
    pub call: MeasureCall,
    pub file: String,
    pub pos: Pos,
    pub label: String,
}

/// Stands in for a function until its VARIABLEs are known; always replaced
/// by `Builder::finish` (or the build fails), never evaluated.
#[derive(Clone, Copy)]
pub(crate) struct Unresolved;

impl fmt::Debug for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Unresolved")
    }
}
impl TimeFunction for Unresolved {
    fn eval(&self, _t: f64) -> [f64; 3] {
        [f64::NAN; 3]
    }
}
impl StateFunction for Unresolved {
    fn measures(&self) -> &[Measure] {
        &[]
    }
    fn eval(&self, _t: f64, _m: &[f64], _dm: &mut [f64]) -> (f64, f64) {
        (f64::NAN, f64::NAN)
    }
}
impl ConstraintFunction for Unresolved {
    fn measures(&self) -> &[Measure] {
        &[]
    }
    fn eval2(&self, _t: f64, _m: &[f64], _g: &mut [f64], _h: &mut [f64]) -> f64 {
        f64::NAN
    }
}

impl Builder<'_> {
    /// VARIABLE/id, FUNCTION = expression.
    pub(super) fn variable(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
    ) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, &["FUNCTION", "IC", "ROUTINE"], &[])?;
        self.define(Space::Variable, id, st.pos, &a.label)?;
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let expr = self.compile(e, &label)?;
        // IC = the initial guess of an implicit VARIABLE's value (Adams
        // VARIABLE: "an approximate initial value … may help converge"):
        // the start of the loop's first solve. An explicit VARIABLE's value
        // is computed exactly, so, as in Adams, the guess cannot change it.
        if let Some(ic) = a.number("IC")? {
            self.variable_ics.insert(id, ic);
        }
        a.finish()?;
        self.model.variables.push(Variable {
            id,
            function: expr.source().to_string(),
        });
        self.variables
            .push((id, expr, e.clone(), label, self.file.to_string()));
        self.source(ElementRef::Variable(id), st.pos);
        Ok(())
    }

    /// The VARIABLEs on algebraic loops become implicit (unknowns of the
    /// system); every other one is inlined where VARVAL reads it. Then the
    /// pending functions are inlined and converted.
    pub(super) fn resolve_variables(&mut self) -> Result<(), AdmError> {
        let parsed: HashMap<Id, Expr> = self
            .variables
            .iter()
            .map(|(id, e, ..)| (*id, e.clone()))
            .collect();
        let implicit = mbsolve_expr::implicit_variables(&parsed);
        let map = mbsolve_expr::with_unknowns(&parsed, &implicit);
        for (id, expr, text, label, file) in &self.variables {
            let at = |x: mbsolve_expr::ExprError| {
                super::err_in(file, text.pos_at(x.span.start), label, &x.message)
            };
            if !implicit.contains(id) {
                Expr::variable_with_variables(*id, &map).map_err(at)?;
                continue;
            }
            let function = compile_implicit(*id, expr, &map).map_err(at)?;
            self.model
                .implicit_variables
                .push(mbsolve_model::ImplicitVariable {
                    id: *id,
                    function,
                    ic: self.variable_ics.get(id).copied().unwrap_or(0.0),
                });
        }
        for p in std::mem::take(&mut self.pending_functions) {
            let inlined = expr_result(p.expr.with_variables(&map), &p)?;
            match p.target {
                Target::Force(k) => {
                    let f = expr_result(ExprStateFunction::new(inlined), &p)?;
                    if let Some(function) = sforce_function(&mut self.model.forces[k].kind) {
                        *function = Arc::new(f);
                    }
                }
                Target::Motion(k) => {
                    let f = expr_result(ExprTimeFunction::new(inlined), &p)?;
                    self.model.motions[k].function = Arc::new(f);
                }
                Target::Gcon(k) => {
                    let f = expr_result(ExprConstraintFunction::new(inlined), &p)?;
                    self.model.gcons[k].function = Arc::new(f);
                }
                Target::Diff(k) => {
                    let f = expr_result(ExprStateFunction::new(inlined), &p)?;
                    self.model.diffs[k].function = Arc::new(f);
                }
                Target::VectorComponent(i, k) => {
                    let f = expr_result(ExprStateFunction::new(inlined), &p)?;
                    if let ForceKind::Vector { components, .. } = &mut self.model.forces[i].kind {
                        components[k] = Some(Arc::new(f));
                    }
                }
            }
        }
        self.resolve_linear_systems(&map)
    }

    /// Element results are checked when read, as Adams does ("illegal
    /// function expression"): SFORCE, SPDP, BUSH, FIELD and BEAM (id,
    /// jflag, comp, rm) need jflag 0 or 1 and comp 1…8, and a ROTATIONAL
    /// SFORCE or SPRINGDAMPER applies a torque only, so its force
    /// components (1–4) are rejected ("Wrong component: 2. No force in
    /// corresponding object.", ADM-GRAMMAR §6, chrono RotSpring).
    pub(super) fn check_element_calls(&self) -> Result<(), AdmError> {
        for c in &self.element_calls {
            if let Some(why) = element_call_error(&self.model, &c.call) {
                return Err(super::err_in(
                    &c.file,
                    c.pos,
                    &c.label,
                    format!("illegal function expression {}: {why}", c.call),
                ));
            }
        }
        Ok(())
    }
}

/// The element results [`Builder::check_element_calls`] checks at read
/// time (JOINT, JPRIM and MOTION results are checked when evaluated).
pub(super) fn checked_at_read(kind: MeasureKind) -> bool {
    matches!(
        kind,
        MeasureKind::Sforce
            | MeasureKind::Spdp
            | MeasureKind::Bush
            | MeasureKind::Field
            | MeasureKind::Beam
    )
}

/// Why an element-result call cannot be evaluated, if it cannot: the
/// solver's rules (`solver/src/functions.rs`, `element_result`) applied to
/// the call's constant arguments. A missing element is reported by the
/// id check, so it passes here.
fn element_call_error(model: &mbsolve_model::Model, call: &MeasureCall) -> Option<String> {
    use mbsolve_model::ElementRef as E;
    let id = call.args.first().copied().unwrap_or(0);
    let jflag = call.args.get(1).copied().unwrap_or(0);
    let comp = call.args.get(2).copied().unwrap_or(0);
    let name = call.kind.name();
    if jflag > 1 {
        return Some(format!(
            "{name}: jflag must be 0 (I marker) or 1 (J marker), got {jflag}"
        ));
    }
    if !(1..=8).contains(&comp) {
        return Some(format!(
            "{name}: component must be 1…8 (1 force magnitude, 2–4 force x y z, 5 torque magnitude, 6–8 torque x y z), got {comp}"
        ));
    }
    let element = match call.kind {
        MeasureKind::Spdp => E::Springdamper(id),
        MeasureKind::Sforce => E::Force(id),
        _ => return None,
    };
    let f = model.forces.iter().find(|f| f.element() == element)?;
    let rotational = matches!(
        f.kind,
        ForceKind::RotationalActionReaction { .. }
            | ForceKind::RotationalActionOnly { .. }
            | ForceKind::RotationalSpringDamper { .. }
    );
    (rotational && comp <= 4).then(|| {
        format!("Wrong component: {comp}. No force in corresponding object ({element} is ROTATIONAL: it applies a torque only)")
    })
}

/// The function of an SFORCE (any of its four kinds); `None` for the
/// other force elements in `model.forces` (SPRINGDAMPER).
pub(crate) fn sforce_function(kind: &mut ForceKind) -> Option<&mut Arc<dyn StateFunction>> {
    match kind {
        ForceKind::TranslationalActionReaction { function }
        | ForceKind::RotationalActionReaction { function }
        | ForceKind::TranslationalActionOnly { function }
        | ForceKind::RotationalActionOnly { function } => Some(function),
        _ => None,
    }
}

/// An expression-crate result as a reader error at the pending function's
/// text.
fn expr_result<T>(
    r: Result<T, mbsolve_expr::ExprError>,
    p: &PendingFunction,
) -> Result<T, AdmError> {
    r.map_err(|x| super::err_in(&p.file, p.text.pos_at(x.span.start), &p.label, &x.message))
}

/// The function f of implicit VARIABLE/id (its row is v − f = 0): its
/// expression with the explicit VARIABLEs inlined and VARVAL of the loop's
/// VARIABLEs kept as unknowns (`map` from [`mbsolve_expr::with_unknowns`]).
/// "VARVAL(id)" alone is refused: v = v determines no value.
fn compile_implicit(
    id: Id,
    expr: &Expr,
    map: &HashMap<Id, Expr>,
) -> Result<Arc<dyn StateFunction>, mbsolve_expr::ExprError> {
    if expr.is_unknown_variable(id) {
        return Err(mbsolve_expr::ExprError {
            message: format!(
                "VARIABLE/{id} = VARVAL({id}) determines no value (an implicit VARIABLE needs an equation v = f(v, …) that fixes v)"
            ),
            span: Default::default(),
        });
    }
    let inlined = expr.with_variables(map)?;
    Ok(Arc::new(ExprStateFunction::new(inlined)?))
}
