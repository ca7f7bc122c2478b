//! Data elements: SPLINE (read by CUBSPL/AKISPL) and STRING.
//!
//! SPLINE/id, X = x1, …, xn, Y = y1, …, yn [, LINEAR_EXTRAPOLATE]
//! SPLINE/id, X = …, Y = z1, y11, …, y1n, Y = z2, y21, …, y2n, …
//! (Adams Solver SPLINE statement: a curve, or a family of curves at
//! increasing z; Y repeats, which the one-key-once `Args` reader does not
//! allow, so the arguments are read here directly.) FILE (with CHANNEL and
//! BLOCK) reads Adams Durability (DAC, RPC III) time histories, which
//! mbsolve does not read: it is rejected by name.
//!
//! SPLINE data are read before every other statement (`predefine_splines`)
//! so that a CUBSPL in any expression binds to its data when compiled,
//! wherever the SPLINE stands in the file.

use super::{Builder, Space};
use crate::args::{parse_number, resolve};
use crate::error::Pos;
use crate::syntax::{Statement, Value};
use crate::AdmError;
use mbsolve_model::{ElementRef, Id, Spline, StringData};
use std::sync::Arc;

const SPLINE_KEYS: &[&str] = &["X", "Y", "LINEAR_EXTRAPOLATE", "FILE", "CHANNEL", "BLOCK"];

impl Builder<'_> {
    /// Read every SPLINE's data ahead of the other statements (see the
    /// module note). A SPLINE in error is left out here and reported, in
    /// file order, when its statement is built.
    pub fn predefine_splines(&mut self, statements: &[Statement]) {
        for st in statements {
            let is_spline = matches!(resolve(&st.name, super::STATEMENTS, &[]), Ok("SPLINE"));
            if let (true, Some(id)) = (is_spline, st.id) {
                if let Ok(s) = self.spline_data(st, &format!("SPLINE/{id}"), id) {
                    self.splines.entry(id).or_insert_with(|| Arc::new(s));
                }
            }
        }
    }

    pub(super) fn spline(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        self.define(Space::Spline, id, st.pos, &label)?;
        let s = Arc::new(self.spline_data(st, &label, id)?);
        self.splines.insert(id, s.clone());
        self.model.splines.push(s);
        self.source(ElementRef::Spline(id), st.pos);
        Ok(())
    }

    fn spline_data(&self, st: &Statement, label: &str, id: Id) -> Result<Spline, AdmError> {
        let mut x: Option<Vec<f64>> = None;
        let mut rows: Vec<(Vec<f64>, Pos)> = Vec::new();
        let mut linear = false;
        for arg in &st.args {
            let key = match resolve(&arg.key, SPLINE_KEYS, &[]) {
                Ok(k) => k,
                Err(e) if e.is_empty() => {
                    return Err(self.err(arg.pos, label, format!("unknown keyword {}", arg.key)))
                }
                Err(e) => {
                    return Err(self.err(
                        arg.pos,
                        label,
                        format!("ambiguous keyword abbreviation {} ({e})", arg.key),
                    ))
                }
            };
            match key {
                "LINEAR_EXTRAPOLATE" => {
                    if arg.value != Value::Flag {
                        return Err(self.err(arg.pos, label, "LINEAR_EXTRAPOLATE takes no value"));
                    }
                    linear = true;
                }
                "X" if x.is_some() => {
                    return Err(self.err(arg.pos, label, "X is given twice"));
                }
                "X" => x = Some(self.spline_numbers(arg, label, key)?),
                "Y" => rows.push((self.spline_numbers(arg, label, key)?, arg.pos)),
                _ => {
                    return Err(self.err(
                        arg.pos,
                        label,
                        format!(
                            "{key} is not supported: mbsolve does not read Adams Durability (DAC, RPC III) spline files; give the data as X = …, Y = …"
                        ),
                    ))
                }
            }
        }
        let Some(x) = x else {
            return Err(self.err(st.pos, label, "missing X ="));
        };
        let n = x.len();
        // Y = y1…yn is one curve; Y = z, y1…yn (n + 1 values) one curve of
        // a family. Any other length is wrong for both forms.
        let family = rows.len() > 1 || rows.first().is_some_and(|(r, _)| r.len() == n + 1);
        let mut z = Vec::new();
        let mut y = Vec::new();
        for (row, pos) in rows {
            let want = if family { n + 1 } else { n };
            if row.len() != want {
                let form = if family {
                    "a family of curves needs Y = z, y1, …, yn for each curve"
                } else {
                    "Y needs one value per x value"
                };
                return Err(self.err(
                    pos,
                    label,
                    format!("{form}: found {} values with {n} x values", row.len()),
                ));
            }
            if family {
                z.push(row[0]);
                y.push(row[1..].to_vec());
            } else {
                y.push(row);
            }
        }
        Spline::new(id, x, family.then_some(z), y, linear).map_err(|m| self.err(st.pos, label, m))
    }

    fn spline_numbers(
        &self,
        arg: &crate::syntax::Arg,
        label: &str,
        key: &str,
    ) -> Result<Vec<f64>, AdmError> {
        let Value::List(items) = &arg.value else {
            return Err(self.err(arg.pos, label, format!("{key} needs values ({key} = …)")));
        };
        items
            .iter()
            .map(|it| {
                parse_number(&it.text, false).map_err(|_| {
                    self.err(it.pos, label, format!("bad number '{}' for {key}", it.text))
                })
            })
            .collect()
    }

    /// STRING/id, STRING = text: kept and written back; nothing reads it
    /// (Adams user subroutines do, through GTSTRG).
    pub(super) fn string(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut a = crate::args::Args::new(self.file, st, label, &["STRING"], &[])?;
        self.define(Space::String, id, st.pos, &a.label)?;
        let Some(text) = a.text("STRING")? else {
            return Err(a.err_here("missing STRING = text"));
        };
        a.finish()?;
        self.model.strings.push(StringData { id, text });
        self.source(ElementRef::String(id), st.pos);
        Ok(())
    }
}
