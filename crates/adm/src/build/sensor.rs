//! SENSOR/id, FUNCTION = e, VALUE = v[, ERROR = tol][, EQ | GE | LE]
//! [, HALT | RETURN][, PRINT][, RESTART][, CODGEN][, STEPSIZE = h]
//! [, DT = dt][, EVALUATE = g][, TERROR = t][, BISECTION] (Adams Solver
//! SENSOR statement: EQ is the default comparison, ERROR defaults to
//! 0.001). YYDUMP (a dump of Adams' internal state vector) and
//! EVALUATE_ROUTINE are refused by name (ROUTINE, as everywhere, by the
//! user-subroutine check).
//!
//! Also the SENVAL(id) binding of every compiled expression.

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::{ExprText, Statement};
use crate::AdmError;
use mbsolve_expr::Expr;
use mbsolve_model::{Id, Sensor, SensorAction, SensorCompare, DEFAULT_TERROR};

/// Adams' default ERROR of a SENSOR.
const DEFAULT_ERROR: f64 = 1e-3;

/// SENSOR keywords mbsolve reads but does not honour, refused by name
/// with the reason.
const REFUSED: &[(&str, &str)] = &[
    (
        "YYDUMP",
        "it dumps Adams' internal state vector, which mbsolve does not have",
    ),
    (
        "EVALUATE_ROUTINE",
        "user subroutines (SEVSUB) cannot be run",
    ),
];

impl Builder<'_> {
    pub(super) fn sensor(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut known = vec![
            "FUNCTION",
            "VALUE",
            "ERROR",
            "EQ",
            "GE",
            "LE",
            "HALT",
            "RETURN",
            "PRINT",
            "RESTART",
            "CODGEN",
            "STEPSIZE",
            "DT",
            "EVALUATE",
            "TERROR",
            "BISECTION",
        ];
        known.extend(REFUSED.iter().map(|(k, _)| *k));
        let mut a = Args::new(self.file, st, label, &known, &[])?;
        self.define(Space::Sensor, id, st.pos, &a.label.clone())?;
        for (key, why) in REFUSED {
            if a.has(key) {
                return Err(a.err(a.pos_of(key), format!("{key} is not supported: {why}")));
            }
        }
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let function = self.compile(e, &label)?.source().to_string();
        let evaluate = match a.expr("EVALUATE")? {
            Some(g) => Some(self.compile(g, &label)?.source().to_string()),
            None => None,
        };
        let value = a.number("VALUE")?;
        let value = a.require(value, "VALUE")?;
        let error = a.number("ERROR")?.unwrap_or(DEFAULT_ERROR);
        if !(error >= 0.0 && error.is_finite()) {
            return Err(a.err(a.pos_of("ERROR"), "ERROR must be ≥ 0"));
        }
        let mut positive = |key: &str| -> Result<Option<f64>, AdmError> {
            match a.number(key)? {
                Some(v) if !(v > 0.0 && v.is_finite()) => {
                    Err(a.err(a.pos_of(key), format!("{key} must be > 0")))
                }
                v => Ok(v),
            }
        };
        let terror = positive("TERROR")?.unwrap_or(DEFAULT_TERROR);
        let stepsize = positive("STEPSIZE")?;
        let dt = positive("DT")?;
        let compares: Vec<SensorCompare> = [
            ("EQ", SensorCompare::Eq),
            ("GE", SensorCompare::Ge),
            ("LE", SensorCompare::Le),
        ]
        .into_iter()
        .filter_map(|(k, c)| match a.flag(k) {
            Ok(true) => Some(Ok(c)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        })
        .collect::<Result<_, _>>()?;
        if compares.len() > 1 {
            return Err(a.err_here("give one of EQ, GE, LE"));
        }
        let compare = compares.first().copied().unwrap_or(SensorCompare::Eq);
        let action = match (a.flag("HALT")?, a.flag("RETURN")?) {
            (true, false) => SensorAction::Halt,
            (false, true) => SensorAction::Return,
            (true, true) => return Err(a.err_here("give HALT or RETURN, not both")),
            (false, false) => SensorAction::Continue,
        };
        let (print, restart, codgen) = (a.flag("PRINT")?, a.flag("RESTART")?, a.flag("CODGEN")?);
        let bisection = a.flag("BISECTION")?;
        let does_something = action != SensorAction::Continue
            || print
            || restart
            || codgen
            || stepsize.is_some()
            || dt.is_some()
            || evaluate.is_some();
        if !does_something {
            return Err(a.err_here(
                "give an action (HALT, RETURN, PRINT, RESTART, CODGEN, STEPSIZE, DT) or EVALUATE",
            ));
        }
        a.finish()?;
        self.model.sensors.push(Sensor {
            id,
            function,
            value,
            error,
            compare,
            action,
            evaluate,
            terror,
            bisection,
            print,
            restart,
            codgen,
            stepsize,
            dt,
        });
        Ok(())
    }

    /// `expr` with its SENVAL calls bound to the model's sensor values,
    /// each id recorded as a reference to a SENSOR (checked once every
    /// statement is read: Adams allows forward references).
    pub(super) fn bind_senvals(&mut self, expr: Expr, e: &ExprText, label: &str) -> Expr {
        for (id, span) in expr.senvals_read() {
            let pos = e.pos_at(span.start);
            self.refer(
                Space::Sensor,
                id,
                pos,
                label,
                &format!("SENVAL({id}): SENSOR"),
            );
        }
        expr.with_sensor_values(&self.model.sensor_values)
    }
}
