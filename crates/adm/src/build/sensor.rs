//! SENSOR/id, FUNCTION = e, VALUE = v[, ERROR = tol][, EQ | GE | LE],
//! HALT | RETURN (Adams Solver SENSOR statement: EQ is the default
//! comparison, ERROR defaults to 0.001). The other actions and options
//! are refused by name: mbsolve checks a sensor at the output times only
//! and does not honour them.

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::{Id, Sensor, SensorAction, SensorCompare};

/// Adams' default ERROR of a SENSOR.
const DEFAULT_ERROR: f64 = 1e-3;

/// SENSOR keywords mbsolve reads but does not honour, refused by name.
const REFUSED: &[&str] = &[
    "BISECTION",
    "CODGEN",
    "DT",
    "EVALUATE",
    "EVALUATE_ROUTINE",
    "PRINT",
    "RESTART",
    "ROUTINE",
    "STEPSIZE",
    "TIMEERROR",
    "YYDUMP",
];

impl Builder<'_> {
    pub(super) fn sensor(&mut self, st: &Statement, label: String, id: Id) -> Result<(), AdmError> {
        let mut known = vec![
            "FUNCTION", "VALUE", "ERROR", "EQ", "GE", "LE", "HALT", "RETURN",
        ];
        known.extend_from_slice(REFUSED);
        let mut a = Args::new(self.file, st, label, &known, &[])?;
        self.define(Space::Sensor, id, st.pos, &a.label.clone())?;
        for key in REFUSED {
            if a.has(key) {
                return Err(a.err(
                    a.pos_of(key),
                    format!(
                        "{key} is not supported (mbsolve checks a SENSOR at the output times and honours only HALT and RETURN)"
                    ),
                ));
            }
        }
        let Some(e) = a.expr("FUNCTION")? else {
            return Err(a.err_here("missing FUNCTION ="));
        };
        let label = a.label.clone();
        let function = self.compile(e, &label)?.source().to_string();
        let value = a.number("VALUE")?;
        let value = a.require(value, "VALUE")?;
        let error = a.number("ERROR")?.unwrap_or(DEFAULT_ERROR);
        if !(error >= 0.0 && error.is_finite()) {
            return Err(a.err(a.pos_of("ERROR"), "ERROR must be ≥ 0"));
        }
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
            (false, false) => {
                return Err(a.err_here("give an action (HALT or RETURN; mbsolve supports no other)"))
            }
        };
        a.finish()?;
        self.model.sensors.push(Sensor {
            id,
            function,
            value,
            error,
            compare,
            action,
        });
        Ok(())
    }
}
