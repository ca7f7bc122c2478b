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

/// The commands that may redefine an element's FUNCTION (and, for MOTION,
/// its input type and initial conditions; for REQUEST, its components).
pub(crate) const REDEFINABLE: &[&str] = &["VARIABLE", "SFORCE", "MOTION", "REQUEST"];

/// The units a UNITS command states, read by the dataset's UNITS statement
/// reader (the same names, checks and messages).
pub(crate) fn units_of_command(
    file: &str,
    st: &Statement,
) -> Result<mbsolve_model::Units, AdmError> {
    let mut b = Builder::new(file, "");
    let st = Statement {
        name: "UNITS".into(),
        ..st.clone()
    };
    b.statement(&st)?;
    Ok(b.model.units.clone())
}

impl<'a> Builder<'a> {
    /// Apply one redefinition read from `acf_file`, given before the first
    /// SIMULATE.
    pub fn redefine(&mut self, st: &Statement, acf_file: &'a str) -> Result<(), AdmError> {
        self.redefine_from(st, acf_file, false)
    }

    /// Apply one redefinition given after a SIMULATE (`late`): it switches
    /// the running model from there on.
    pub fn redefine_from(
        &mut self,
        st: &Statement,
        acf_file: &'a str,
        late: bool,
    ) -> Result<(), AdmError> {
        let adm_file = std::mem::replace(&mut self.file, acf_file);
        let result = self.redefine_in_acf(st, late);
        self.file = adm_file;
        result
    }

    fn redefine_in_acf(&mut self, st: &Statement, late: bool) -> Result<(), AdmError> {
        let name = resolve(&st.name, REDEFINABLE, &[])
            .map_err(|_| self.err(st.pos, &st.label(), "not a FUNCTION redefinition"))?;
        let Some(id) = st.id else {
            return Err(self.err(st.pos, name, format!("{name} needs an id ({name}/id)")));
        };
        let label = format!("{name}/{id}");
        match name {
            "MOTION" => return self.redefine_motion(st, id, label, late),
            "REQUEST" => return self.redefine_request(st, id, label),
            _ => {}
        }
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
            _ => unreachable!("MOTION and REQUEST are handled above"),
        }
        Ok(())
    }

    /// `MOTION/id, [DISPLACEMENT|VELOCITY|ACCELERATION], [FUNCTION = e],
    /// [ICDISP = r], [ICVEL = r]`: each argument given respecifies the
    /// dataset's; the others keep their values (an input type given
    /// without ICDISP/ICVEL starts them at 0, as the statement does).
    fn redefine_motion(
        &mut self,
        st: &Statement,
        id: mbsolve_model::Id,
        label: String,
        late: bool,
    ) -> Result<(), AdmError> {
        use mbsolve_model::{MotionInput, MotionIntegral};
        let mut a = Args::new(
            self.file,
            st,
            label.clone(),
            &[
                "DISPLACEMENT",
                "VELOCITY",
                "ACCELERATION",
                "FUNCTION",
                "ICDISP",
                "ICVEL",
                "LIST",
            ],
            &[],
        )?;
        // LIST prints the motion in Adams' message file: nothing to do.
        a.ignore(&["LIST"]);
        let Some(k) = self.model.motions.iter().position(|m| m.id == id) else {
            return Err(err_in(
                self.file,
                st.pos,
                &label,
                format!("{label} does not exist in the dataset, so it cannot be redefined"),
            ));
        };
        let current = self
            .motion_integrals
            .iter()
            .position(|(m, _)| *m == k)
            .map(|p| self.motion_integrals[p].1);
        if late && current.is_some() {
            return Err(a.err_here(
                "redefining a VELOCITY or ACCELERATION motion after a SIMULATE is not supported: its displacement is integrated from ICDISP (and ICVEL) at t = 0, so it would not continue from the current displacement (give the command before the first SIMULATE)",
            ));
        }
        let mut input = current.map(|c| c.input);
        let mut given_type = None;
        for (key, kind) in [
            ("DISPLACEMENT", None),
            ("VELOCITY", Some(MotionInput::Velocity)),
            ("ACCELERATION", Some(MotionInput::Acceleration)),
        ] {
            if a.flag(key)? {
                if let Some(first) = given_type {
                    return Err(a.err(a.pos_of(key), format!("{first} and {key} are exclusive")));
                }
                given_type = Some(key);
                input = kind;
            }
        }
        // A new input type starts from the statement's defaults.
        let keep = given_type.is_none();
        let icdisp_pos = a.pos_of("ICDISP");
        let icvel_pos = a.pos_of("ICVEL");
        let icdisp = a.number("ICDISP")?;
        let icvel = a.number("ICVEL")?;
        let e = a.expr("FUNCTION")?;
        a.finish()?;
        let spec = match input {
            None => {
                for (key, given, pos) in [
                    ("ICDISP", icdisp.is_some(), icdisp_pos),
                    ("ICVEL", icvel.is_some(), icvel_pos),
                ] {
                    if given {
                        return Err(self.err(
                            pos,
                            &label,
                            format!("{key} applies to a VELOCITY or ACCELERATION motion"),
                        ));
                    }
                }
                None
            }
            Some(MotionInput::Velocity) if icvel.is_some() => {
                return Err(self.err(
                    icvel_pos,
                    &label,
                    "ICVEL applies to an ACCELERATION motion (a VELOCITY motion's function gives its velocity)",
                ))
            }
            Some(input) => {
                let old = current.filter(|_| keep);
                Some(MotionIntegral {
                    input,
                    icdisp: icdisp.or(old.map(|c| c.icdisp)).unwrap_or(0.0),
                    icvel: icvel.or(old.map(|c| c.icvel)).unwrap_or(0.0),
                })
            }
        };
        if let Some(e) = e {
            let expr = self.compile(e, &label)?;
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
        self.motion_integrals.retain(|(m, _)| *m != k);
        if let Some(spec) = spec {
            self.motion_integrals.push((k, spec));
        }
        Ok(())
    }

    /// `REQUEST/id, F2 = e, …`: the components given replace those of the
    /// dataset's function REQUEST; the others stay.
    fn redefine_request(
        &mut self,
        st: &Statement,
        id: mbsolve_model::Id,
        label: String,
    ) -> Result<(), AdmError> {
        let fkeys = ["F2", "F3", "F4", "F6", "F7", "F8"];
        let mut keys: Vec<&'static str> = fkeys.to_vec();
        keys.push("LIST");
        let mut a = Args::new(self.file, st, label.clone(), &keys, &[])?;
        a.ignore(&["LIST"]);
        let Some(k) = self.model.function_requests.iter().position(|r| r.id == id) else {
            let why = if self.model.requests.iter().any(|r| r.id == id) {
                format!("{label} is a DISPLACEMENT, VELOCITY, ACCELERATION or FORCE request; F2 … F8 respecify the components of a function request (REQUEST/{id}, F1 = …, …)")
            } else {
                format!("{label} does not exist in the dataset, so it cannot be redefined")
            };
            return Err(err_in(self.file, st.pos, &label, why));
        };
        let mut new = Vec::new();
        for key in fkeys {
            if let Some(e) = a.expr(key)? {
                let expr = self.compile(e, &label)?;
                let n: usize = key[1..].parse().expect("F1 … F8");
                new.push((n - 1, expr.source().to_string()));
            }
        }
        a.finish()?;
        for (n, source) in new {
            self.model.function_requests[k].components[n] = Some(source);
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
