//! FUNCTION redefinitions from a command file (`VARIABLE/id, FUNCTION = e`,
//! the same for SFORCE and MOTION) given before the first SIMULATE: they
//! act as edits of the dataset, applied once every statement is read and
//! before the references are checked. Errors point into the command file.

use super::variables::{sforce_function, PendingFunction, Unresolved};
use super::{err_in, Builder};
use crate::args::{resolve, Args};
use crate::error::AdmError;
use crate::syntax::ExprText;
use crate::syntax::Statement;
use mbsolve_expr::{Expr, ExprStateFunction, ExprTimeFunction};
use mbsolve_model::{StateFunction, TimeFunction};
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
                    .iter_mut()
                    .position(|f| f.id == id && sforce_function(&mut f.kind).is_some())
                    .ok_or_else(missing)?;
                self.pending_functions.retain(|p| !p.converts(true, k));
                let f: Arc<dyn StateFunction> = self.function_or_pending(
                    expr,
                    e,
                    &label,
                    |file, x, t, l| PendingFunction::force(file, k, x, t, l),
                    Arc::new(Unresolved) as Arc<dyn StateFunction>,
                    |x| ExprStateFunction::new(x).map(|f| Arc::new(f) as Arc<dyn StateFunction>),
                )?;
                if let Some(function) = sforce_function(&mut self.model.forces[k].kind) {
                    *function = f;
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
                self.model.motions[k].function = self.function_or_pending(
                    expr,
                    e,
                    &label,
                    |file, x, t, l| PendingFunction::motion(file, k, x, t, l),
                    Arc::new(Unresolved) as Arc<dyn TimeFunction>,
                    |x| ExprTimeFunction::new(x).map(|f| Arc::new(f) as Arc<dyn TimeFunction>),
                )?;
            }
        }
        Ok(())
    }

    /// A model function (force, motion, GCON, DIFF, vector component):
    /// converted now, or, when it reads
    /// VARVAL, left [`Unresolved`] and converted by `resolve_variables`
    /// once every VARIABLE is known.
    pub(crate) fn function_or_pending<F: ?Sized>(
        &mut self,
        expr: Expr,
        text: &ExprText,
        label: &str,
        pending: impl FnOnce(&str, Expr, ExprText, String) -> PendingFunction,
        unresolved: Arc<F>,
        convert: impl FnOnce(Expr) -> Result<Arc<F>, mbsolve_expr::ExprError>,
    ) -> Result<Arc<F>, AdmError> {
        if expr.variables_read().next().is_some() {
            let p = pending(self.file, expr, text.clone(), label.to_string());
            self.pending_functions.push(p);
            Ok(unresolved)
        } else {
            convert(expr).map_err(|x| self.err(text.pos_at(x.span.start), label, &x.message))
        }
    }
}
