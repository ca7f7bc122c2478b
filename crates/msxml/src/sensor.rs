//! Sensor_Event: an event sensor (the SENSOR statement), read and written.
//!
//! Attributes of the model element (MotionSolve Reference, "Sensor:
//! Event"): `id, label, value, type="EXPRESSION", expr, compare =
//! GE|LT|EQ, error_tol, dt, stepsize, halt, return, verbose`. LT is read
//! as Adams' LE: the two differ only on the threshold, which the error
//! tolerance widens anyway. `zero_crossing` and `hmax` are refused by
//! name; the documented list
//! ends there for us, so PRINT, RESTART, CODGEN, BISECTION, TERROR and
//! EVALUATE have no verified attribute and a model with them is not
//! written. `error_tol` is required: the MotionSolve default is not
//! documented in the grammar we have.
//!
//! `evaluate_id` names a Sensor_Evaluate (MotionSolve Reference Guide,
//! "Sensor: Evaluate", xml-format_97: `id, label, type = "EXPRESSION",
//! expr`), evaluated when the event trips; SENVAL(id) reads the value by
//! the *Sensor_Evaluate's* id (MotionSolve "SENVAL"). Adams keeps the
//! expression on the sensor (SENSOR EVALUATE =) and SENVAL reads it by the
//! *sensor's* id, so the Sensor_Event becomes SENSOR/<the Sensor_Evaluate's
//! id>: SENVAL then reads the same value in both. A Sensor_Evaluate named by
//! two Sensor_Events (one value updated by either trip) and an event whose
//! Sensor_Evaluate id is another Sensor_Event's id are refused by name.

use crate::reader::{expr, flag, numbers, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::{Sensor, SensorAction, SensorCompare};
use std::collections::HashMap;
use std::fmt::Write;

/// Sensor_Event attributes that exist but that mbsolve does not honour.
const REFUSED: &[(&str, &str)] = &[
    ("zero_crossing", "is not supported"),
    ("hmax", "is not supported"),
];

/// What the Sensor_Events and Sensor_Evaluates of the whole `<Model>` say
/// about each other (collected before any is translated).
#[derive(Default)]
pub(crate) struct Evaluates {
    /// Each Sensor_Evaluate's expr, by its id.
    exprs: HashMap<u32, String>,
    /// The Sensor_Events naming each Sensor_Evaluate (by its id).
    named_by: HashMap<u32, Vec<u32>>,
    /// Every Sensor_Event id.
    events: Vec<u32>,
}

impl Evaluates {
    pub fn collect(elems: &[Elem]) -> Evaluates {
        let mut v = Evaluates::default();
        for e in elems {
            if e.tag.eq_ignore_ascii_case("Sensor_Evaluate") {
                if let (Some(id), Some(x)) = (e.id, e.peek("expr")) {
                    v.exprs.insert(id, x.trim().to_string());
                }
            } else if e.tag.eq_ignore_ascii_case("Sensor_Event") {
                let Some(id) = e.id else { continue };
                v.events.push(id);
                if let Some(k) = e.peek("evaluate_id").and_then(|k| k.trim().parse().ok()) {
                    v.named_by.entry(k).or_default().push(id);
                }
            }
        }
        v
    }
}

/// `<Sensor_Evaluate id type="EXPRESSION" expr/>`: checked here; its
/// expression goes into the SENSOR of the Sensor_Event naming it.
pub(crate) fn sensor_evaluate(e: &mut Elem) -> Result<Option<Vec<Statement>>, XmlError> {
    if !e.tag.eq_ignore_ascii_case("Sensor_Evaluate") {
        return Ok(None);
    }
    only(e, "type", "EXPRESSION", "; a user subroutine cannot run")?;
    e.required("expr")?;
    Ok(Some(Vec::new()))
}

/// `<Sensor_Event id value type="EXPRESSION" expr compare error_tol [dt]
/// [stepsize] [halt] [return] [verbose="FALSE"] [evaluate_id]>` as
/// SENSOR/id (SENSOR/evaluate_id with a Sensor_Evaluate, see above).
pub(crate) fn sensor_event(e: &mut Elem, evaluates: &Evaluates) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    for (attr, why) in REFUSED {
        if let Some((_, p)) = e.get(attr) {
            return Err(e.err(p, format!("{attr}: {why}")));
        }
    }
    let evaluate = match e.id_attr("evaluate_id")? {
        None => None,
        Some((k, p)) => {
            let Some(x) = evaluates.exprs.get(&k) else {
                return Err(e.err(
                    p,
                    format!(
                        "evaluate_id = {k}: no Sensor_Evaluate with this id (of type EXPRESSION)"
                    ),
                ));
            };
            let by = evaluates.named_by.get(&k).map_or(&[][..], Vec::as_slice);
            if let Some(other) = by.iter().find(|o| **o != id) {
                return Err(e.err(
                    p,
                    format!("evaluate_id = {k}: Sensor_Event {other} names the same Sensor_Evaluate; mbsolve keeps one SENVAL per sensor, so each Sensor_Evaluate may serve one Sensor_Event"),
                ));
            }
            if k != id && evaluates.events.contains(&k) {
                return Err(e.err(
                    p,
                    format!("evaluate_id = {k}: mbsolve gives this sensor the Sensor_Evaluate's id (SENVAL reads it), and Sensor_Event {k} already has it"),
                ));
            }
            Some((k, x.clone(), p))
        }
    };
    let mut st = e.statement("SENSOR", Some(evaluate.as_ref().map_or(id, |(k, _, _)| *k)));
    if let Some((_, x, p)) = &evaluate {
        expr(&mut st, "EVALUATE", x, *p);
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
        // EVALUATE: a Sensor_Evaluate with the sensor's id (SENVAL reads
        // the Sensor_Evaluate's id in MotionSolve, the sensor's in Adams).
        if let Some(g) = &s.evaluate {
            let g = mbsolve_adm::function_source(Some(g), &label)?;
            let _ = writeln!(
                o,
                "  <Sensor_Evaluate id=\"{}\" type=\"EXPRESSION\" expr=\"{}\"/>",
                s.id,
                esc(g)
            );
            let _ = write!(line, " evaluate_id=\"{}\"", s.id);
        }
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
