//! Force_Bushing, Force_Field, Force_Beam and Constraint_Coupler → the
//! Adams BUSHING, FIELD, BEAM and COUPLER statements they mean
//! (MS-XML-GRAMMAR.md §4; the MotionSolve reference pages of the
//! elements), built by the Adams builder.

use crate::elements::markers_ij;
use crate::reader::{list, numbers, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_adm::Pos;

/// The six preload attributes (force x, y, z, torque x, y, z).
pub(crate) const PRELOADS: [&str; 6] = [
    "preload_x",
    "preload_y",
    "preload_z",
    "preload_tx",
    "preload_ty",
    "preload_tz",
];
/// A Force_Field's six free lengths.
pub(crate) const LENGTHS: [&str; 6] = [
    "length_x",
    "length_y",
    "length_z",
    "length_tx",
    "length_ty",
    "length_tz",
];

/// The Adams statement for one of the three elements, or None for any
/// other tag.
pub(crate) fn statement(e: &mut Elem) -> Result<Option<Statement>, XmlError> {
    let tag = e.tag.to_ascii_lowercase();
    let name = match tag.as_str() {
        "force_bushing" => "BUSHING",
        "force_field" => "FIELD",
        "force_beam" => "BEAM",
        "constraint_coupler" => return coupler(e).map(Some),
        _ => return Ok(None),
    };
    let mut st = e.statement(name, e.id);
    markers_ij(e, &mut st)?;
    match name {
        "BUSHING" => {
            for (key, attrs) in [
                ("K", ["kx", "ky", "kz"]),
                ("KT", ["ktx", "kty", "ktz"]),
                ("C", ["cx", "cy", "cz"]),
                ("CT", ["ctx", "cty", "ctz"]),
                ("FORCE", [PRELOADS[0], PRELOADS[1], PRELOADS[2]]),
                ("TORQUE", [PRELOADS[3], PRELOADS[4], PRELOADS[5]]),
            ] {
                group(e, &mut st, key, &attrs)?;
            }
        }
        "FIELD" => {
            // Kij, Cij: row i, column j; FIELD's K and C are by columns.
            for m in ["K", "C"] {
                let names: Vec<String> = (1..=6)
                    .flat_map(|c| (1..=6).map(move |r| format!("{m}{r}{c}")))
                    .collect();
                let names: Vec<&str> = names.iter().map(String::as_str).collect();
                group(e, &mut st, m, &names)?;
            }
            if let Some((v, p)) = e.number("cratio")? {
                numbers(&mut st, "CRATIO", &[v], p);
            }
            group(e, &mut st, "LENGTH", &LENGTHS)?;
            group(e, &mut st, "FORCE", &PRELOADS)?;
        }
        _ => {
            for (attr, key) in [
                ("length", "LENGTH"),
                ("E", "EMODULUS"),
                ("G", "GMODULUS"),
                ("area", "AREA"),
                ("ixx", "IXX"),
                ("iyy", "IYY"),
                ("izz", "IZZ"),
                ("ASY", "ASY"),
                ("ASZ", "ASZ"),
                ("cratio", "CRATIO"),
            ] {
                if let Some((v, p)) = e.number(attr)? {
                    numbers(&mut st, key, &[v], p);
                }
            }
            for attr in PRELOADS {
                if let Some((v, p)) = e.number(attr)? {
                    if v != 0.0 {
                        return Err(e.err(
                            p,
                            format!("{attr} = {v}: a preload on a beam is not supported (the Adams BEAM it translates to has none)"),
                        ));
                    }
                }
            }
            // MotionSolve's Force_Beam is the linear Timoshenko beam.
            list(&mut st, "FORMULATION", &["LINEAR".into()], e.pos);
        }
    }
    Ok(Some(st))
}

/// The attributes `attrs` as one Adams list `key` (missing ones 0), when
/// any of them is given.
fn group(e: &mut Elem, st: &mut Statement, key: &str, attrs: &[&str]) -> Result<(), XmlError> {
    let mut values = vec![0.0; attrs.len()];
    let mut first = None;
    for (v, attr) in values.iter_mut().zip(attrs) {
        if let Some((x, p)) = e.number(attr)? {
            *v = x;
            first.get_or_insert(p);
        }
    }
    if let Some(p) = first {
        numbers(st, key, &values, p);
    }
    Ok(())
}

/// Constraint_Coupler: joint1_id, freedom_1 (T | R), joint2_id, freedom_2
/// [, joint3_id, freedom_3], coefficients = "r1 r2 [r3]" → COUPLER/id,
/// JOINTS, TYPE, SCALES.
fn coupler(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("COUPLER", e.id);
    let mut ids = Vec::new();
    let mut types = Vec::new();
    let mut first: Option<Pos> = None;
    for k in 1..=3 {
        let Some((j, p)) = e.id_attr(&format!("joint{k}_id"))? else {
            continue;
        };
        first.get_or_insert(p);
        ids.push(j.to_string());
        let (f, fp) = e.required(&format!("freedom_{k}"))?;
        match f.trim().to_ascii_uppercase().as_str() {
            t @ ("T" | "R") => types.push(t.to_string()),
            other => return Err(e.err(fp, format!("freedom_{k} = \"{other}\" must be T or R"))),
        }
    }
    let pos = first.unwrap_or(e.pos);
    list(&mut st, "JOINTS", &ids, pos);
    list(&mut st, "TYPE", &[types.join(":")], pos);
    let (c, cp) = e.required("coefficients")?;
    let mut scales = Vec::new();
    for w in c
        .split(|ch: char| ch.is_whitespace() || ch == ',')
        .filter(|w| !w.is_empty())
    {
        match w.parse::<f64>() {
            Ok(v) => scales.push(v),
            Err(_) => return Err(e.err(cp, format!("coefficients: '{w}' is not a number"))),
        }
    }
    numbers(&mut st, "SCALES", &scales, cp);
    Ok(st)
}
