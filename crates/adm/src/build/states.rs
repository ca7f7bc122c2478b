//! DIFF statements: user states (explicit y' = FUNCTION, or IMPLICIT
//! FUNCTION(y, y', …) = 0), read by DIF(id) and DIF1(id).

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_expr::ExprStateFunction;
use mbsolve_model::{Diff, ElementRef, Id, StateFunction};
use std::sync::Arc;
use variables::{PendingFunction, Unresolved};

use super::variables;

impl Builder<'_> {
    /// DIFF/id, IC = y0[, y0'], FUNCTION = e[, IMPLICIT][, STATIC_HOLD].
    pub(super) fn diff(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = Args::new(
            self.file,
            st,
            label,
            &["IC", "FUNCTION", "IMPLICIT", "STATIC_HOLD", "ROUTINE"],
            &[],
        )?;
        self.define(Space::Diff, id, st.pos, &a.label)?;
        let ic = a.numbers_range("IC", 1, 2)?.unwrap_or_else(|| vec![0.0]);
        let implicit = a.flag("IMPLICIT")?;
        let static_hold = a.flag("STATIC_HOLD")?;
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let expr = self.compile(e, &label)?;
        let function: Arc<dyn StateFunction> = if expr.variables_read().next().is_some() {
            self.pending_functions.push(PendingFunction::diff(
                self.file,
                self.model.diffs.len(),
                expr,
                e.clone(),
                label.clone(),
            ));
            Arc::new(Unresolved)
        } else {
            Arc::new(self.convert(ExprStateFunction::new(expr), e, &label)?)
        };
        a.finish()?;
        self.model.diffs.push(Diff {
            id,
            function,
            implicit,
            ic: ic[0],
            ic_rate: ic.get(1).copied(),
            static_hold,
        });
        self.source(ElementRef::Diff(id), st.pos);
        Ok(())
    }
}
