//! Sensor_Event: an event sensor (the SENSOR statement), read and written.
//!
//! Attributes of the model element (MotionSolve Reference, "Sensor:
//! Event"): `id, label, value, type="EXPRESSION", expr, compare =
//! GE|LT|EQ, error_tol, dt, stepsize, halt, return, verbose`. LT is read
//! as Adams' LE: the two differ only on the threshold, which the error
//! tolerance widens anyway. `evaluate_id` (a Sensor_Evaluate element),
//! `zero_crossing` and `hmax` are refused by name; the documented list
//! ends there for us, so PRINT, RESTART, CODGEN, BISECTION, TERROR and
//! EVALUATE have no verified attribute and a model with them is not
//! written. `error_tol` is required: the MotionSolve default is not
//! documented in the grammar we have.

use crate::reader::{expr, flag, numbers, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::{Sensor, SensorAction, SensorCompare};
use std::fmt::Write;

/// Sensor_Event attributes that exist but that mbsolve does not honour.
const REFUSED: &[(&str, &str)] = &[
    (
        "evaluate_id",
        "Sensor_Evaluate elements are not supported yet",
    ),
    ("zero_crossing", "is not supported"),
    ("hmax", "is not supported"),
];

/// `<Sensor_Event id value type="EXPRESSION" expr compare error_tol [dt]
/// [stepsize] [halt] [return] [verbose="FALSE"]>` as SENSOR/id.
pub(crate) fn sensor_event(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("SENSOR", Some(id));
    for (attr, why) in REFUSED {
        if let Some((_, p)) = e.get(attr) {
            return Err(e.err(p, format!("{attr}: {why}")));
        }
    }
    only(e, "type", "EXPRESSION", "; a user subroutine cannot run")?;
    only(e, "verbose", "FALSE", ": one message per trip")?;
    let (x, p) = e.required("expr")?;
    expr(&mut st, "FUNCTION", &x, p);
    let (value, p) = match e.number("value")? {
        Some(v) => v,
        None => return Err(e.err_here("needs value")),
    };
    numbers(&mut st, "VALUE", &[value], p);
    let (error, p) = match e.number("error_tol")? {
        Some(v) => v,
        None => {
            return Err(e.err_here(
                "needs error_tol (its MotionSolve default is not documented in the grammar mbsolve follows)",
            ))
        }
    };
    numbers(&mut st, "ERROR", &[error], p);
    if let Some((c, p)) = e.get("compare") {
        let key = match c.trim().to_ascii_uppercase().as_str() {
            "GE" => "GE",
            "EQ" => "EQ",
            "LT" | "LE" => "LE",
            other => {
                return Err(e.err(
                    p,
                    format!("compare = \"{other}\" is not supported (GE, LT, EQ)"),
                ))
            }
        };
        flag(&mut st, key, p);
    }
    for (attr, key) in [("dt", "DT"), ("stepsize", "STEPSIZE")] {
        if let Some((v, p)) = e.number(attr)? {
            numbers(&mut st, key, &[v], p);
        }
    }
    for (attr, key) in [("halt", "HALT"), ("return", "RETURN")] {
        if let Some((_, p)) = e.get(attr) {
            if e.boolean(attr)? == Some(true) {
                flag(&mut st, key, p);
            }
        }
    }
    Ok(st)
}

/// `attr`, when given, must be `allowed` (any case); `why` completes the
/// message.
fn only(e: &mut Elem, attr: &str, allowed: &str, why: &str) -> Result<(), XmlError> {
    match e.get(attr) {
        Some((v, p)) if !v.trim().eq_ignore_ascii_case(allowed) => Err(e.err(
            p,
            format!(
                "{attr} = \"{}\" is not supported ({allowed}{why})",
                v.trim()
            ),
        )),
        _ => Ok(()),
    }
}

/// Sensor_Event elements for the model's SENSORs; a sensor using an
/// option Sensor_Event has no verified attribute for is refused by name.
pub(crate) fn write_sensors(
    o: &mut String,
    sensors: &[Sensor],
    esc: fn(&str) -> String,
) -> Result<(), String> {
    for s in sensors {
        let label = format!("SENSOR/{}", s.id);
        let unwritable = [
            (s.print, "PRINT"),
            (s.restart, "RESTART"),
            (s.codgen, "CODGEN"),
            (s.bisection, "BISECTION"),
            (s.evaluate.is_some(), "EVALUATE"),
            (s.terror != mbsolve_model::DEFAULT_TERROR, "TERROR"),
        ];
        if let Some((_, key)) = unwritable.iter().find(|(on, _)| *on) {
            return Err(format!(
                "{label}: {key} has no Sensor_Event attribute mbsolve has verified; the sensor is not written to MotionSolve XML"
            ));
        }
        let f = mbsolve_adm::function_source(Some(&s.function), &label)?;
        let compare = match s.compare {
            SensorCompare::Ge => "GE",
            SensorCompare::Eq => "EQ",
            SensorCompare::Le => "LT",
        };
        let mut line = format!(
            "  <Sensor_Event id=\"{}\" type=\"EXPRESSION\" expr=\"{}\" value=\"{:e}\" compare=\"{compare}\" error_tol=\"{:e}\"",
            s.id,
            esc(f),
            s.value,
            s.error
        );
        match s.action {
            SensorAction::Halt => line.push_str(" halt=\"TRUE\""),
            SensorAction::Return => line.push_str(" return=\"TRUE\""),
            SensorAction::Continue => {}
        }
        for (attr, v) in [("dt", s.dt), ("stepsize", s.stepsize)] {
            if let Some(v) = v {
                let _ = write!(line, " {attr}=\"{v:e}\"");
            }
        }
        let _ = writeln!(o, "{line}/>");
    }
    Ok(())
}
