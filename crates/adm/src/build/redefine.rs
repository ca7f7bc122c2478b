//! FUNCTION redefinitions from a command file (`VARIABLE/id, FUNCTION = e`,
//! the same for SFORCE and MOTION) given before the first SIMULATE: they
//! act as edits of the dataset, applied once every statement is read and
//! before the references are checked. Errors point into the command file.

use super::variables::{PendingFunction, Unresolved};
use super::{err_in, Builder};
use crate::args::{resolve, Args};
use crate::error::AdmError;
use crate::syntax::Statement;
use mbsolve_expr::{ExprStateFunction, ExprTimeFunction};
use mbsolve_model::{ForceKind, StateFunction, TimeFunction};
use std::sync::Arc;

/// The commands that may redefine an element's FUNCTION.
pub(crate) const REDEFINABLE: &[&str] = &["VARIABLE", "SFORCE", "MOTION"];

impl<'a> Builder<'a> {
    /// Apply one redefinition read from `acf_file`.
    pub fn redefine(&mut self, st: &Statement, acf_file: &'a str) -> Result<(), AdmError> {
        let adm_file = std::mem::replace(&mut self.file, acf_file);
        let result = self.redefine_in_acf(st);
        self.file = adm_file;
        result
    }

    fn redefine_in_acf(&mut self, st: &Statement) -> Result<(), AdmError> {
        let name = resolve(&st.name, REDEFINABLE, &[])
            .map_err(|_| self.err(st.pos, &st.label(), "not a FUNCTION redefinition"))?;
        let Some(id) = st.id else {
            return Err(self.err(st.pos, name, format!("{name} needs an id ({name}/id)")));
        };
        let label = format!("{name}/{id}");
        let mut a = Args::new(self.file, st, label.clone(), &["FUNCTION"], &[])?;
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        a.finish()?;
        let missing = || {
            err_in(
                self.file,
                st.pos,
                &label,
                format!("{label} does not exist in the dataset, so it cannot be redefined"),
            )
        };
        let expr = self.compile(e, &label)?;
        match name {
            "VARIABLE" => {
                let k = self
                    .variables
                    .iter()
                    .position(|v| v.0 == id)
                    .ok_or_else(missing)?;
                let m = self
                    .model
                    .variables
                    .iter()
                    .position(|v| v.id == id)
                    .ok_or_else(missing)?;
                self.model.variables[m].function = expr.source().to_string();
                self.variables[k] = (id, expr, e.clone(), label, self.file.to_string());
            }
            "SFORCE" => {
                // SFORCE ids have their own space (SPRINGDAMPERs share
                // `model.forces`): only the four SFORCE kinds match.
                let k = self
                    .model
                    .forces
                    .iter()
                    .position(|f| {
                        f.id == id
                            && matches!(
                                f.kind,
                                ForceKind::TranslationalActionReaction { .. }
                                    | ForceKind::RotationalActionReaction { .. }
                                    | ForceKind::TranslationalActionOnly { .. }
                                    | ForceKind::RotationalActionOnly { .. }
                            )
                    })
                    .ok_or_else(missing)?;
                self.pending_functions.retain(|p| !p.converts(true, k));
                let f: Arc<dyn StateFunction> = if expr.variables_read().next().is_some() {
                    self.pending_functions.push(PendingFunction::force(
                        self.file,
                        k,
                        expr,
                        e.clone(),
                        label,
                    ));
                    Arc::new(Unresolved)
                } else {
                    Arc::new(self.convert(ExprStateFunction::new(expr), e, &label)?)
                };
                match &mut self.model.forces[k].kind {
                    ForceKind::TranslationalActionReaction { function }
                    | ForceKind::RotationalActionReaction { function }
                    | ForceKind::TranslationalActionOnly { function }
                    | ForceKind::RotationalActionOnly { function } => *function = f,
                    _ => {}
                }
            }
            _ => {
                let k = self
                    .model
                    .motions
                    .iter()
                    .position(|m| m.id == id)
                    .ok_or_else(missing)?;
                self.pending_functions.retain(|p| !p.converts(false, k));
                let f: Arc<dyn TimeFunction> = if expr.variables_read().next().is_some() {
                    self.pending_functions.push(PendingFunction::motion(
                        self.file,
                        k,
                        expr,
                        e.clone(),
                        label,
                    ));
                    Arc::new(Unresolved)
                } else {
                    Arc::new(self.convert(ExprTimeFunction::new(expr), e, &label)?)
                };
                self.model.motions[k].function = f;
            }
        }
        Ok(())
    }
}
