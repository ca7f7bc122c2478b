//! Control_SISO and Control_StateEqn (linear) → the Adams TFSISO and LSE
//! statements, and back.
//!
//! * `<Control_SISO id x_array_id y_array_id u_array_id [is_static_hold]
//!   num_numerator_coef numerator_coef num_denominator_coef
//!   denominator_coef>` (MotionSolve Reference Guide, "Control: SISO").
//!   The coefficients are in ascending powers of s, as MotionView's
//!   `*SetControlSISOCoeffs(…, NUMER, 2, 10, 1, DENOM, 2, 0, 1)` example,
//!   a PI controller (10 + s)/s, shows; TFSISO takes the same order.
//! * `<Control_StateEqn id type="LINEAR" x_array_id u_array_id y_array_id
//!   ic_array_id a_matrix_id b_matrix_id c_matrix_id d_matrix_id
//!   [is_static_hold]>`: x' = A x + B u, y = C x + D u. The docs say the
//!   linear form exists (A, B, C, D constant) but the pages stored here
//!   stop before its attribute list. The array attributes are those
//!   MS-XML-GRAMMAR.md observed on the Altair Driver's Control_StateEqn;
//!   the `*_matrix_id` names are ours, unverified. `type = USERSUB` (the
//!   tyre GSE) needs a user subroutine and is refused by the generic
//!   usrsub check.

use crate::reader::{counted_list, flag, list, numbers, parse_number, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::{ElementRef, LinearSystem};
use std::fmt::Write as _;

/// The matrix attributes of a linear Control_StateEqn, with the LSE keys.
const MATRICES: [(&str, &str); 4] = [
    ("a_matrix_id", "A"),
    ("b_matrix_id", "B"),
    ("c_matrix_id", "C"),
    ("d_matrix_id", "D"),
];

pub(crate) fn statement(e: &mut Elem) -> Result<Option<Statement>, XmlError> {
    if e.tag.eq_ignore_ascii_case("Control_SISO") {
        return siso(e).map(Some);
    }
    if e.tag.eq_ignore_ascii_case("Control_StateEqn") {
        return state_eqn(e).map(Some);
    }
    Ok(None)
}

/// The array or matrix id `attr` as the statement's `key`; the ones the
/// Adams statement needs (TFSISO: U, X, Y; LSE: X, A) are required here,
/// so that the message names the XML attribute.
fn array_ref(e: &mut Elem, st: &mut Statement, attr: &str, key: &str) -> Result<(), XmlError> {
    let required = match st.name.as_str() {
        "TFSISO" => true,
        _ => matches!(key, "X" | "A"),
    };
    let id = if required {
        Some(e.required_id(attr)?)
    } else {
        e.id_attr(attr)?
    };
    if let Some((id, p)) = id {
        list(st, key, &[id.to_string()], p);
    }
    Ok(())
}

fn static_hold(e: &mut Elem, st: &mut Statement) -> Result<(), XmlError> {
    let at = e.get("is_static_hold").map(|(_, p)| p).unwrap_or(e.pos);
    if e.boolean("is_static_hold")? == Some(true) {
        flag(st, "STATIC_HOLD", at);
    }
    Ok(())
}

/// `coef` as numbers, checked against its `num_…` count when given.
fn coefficients(e: &mut Elem, coef: &str, st: &mut Statement, key: &str) -> Result<(), XmlError> {
    let (v, p) = counted_list(
        e,
        coef,
        &format!("num_{coef}"),
        parse_number,
        ("is not a number", "has", "values"),
    )?;
    if v.is_empty() {
        return Err(e.err(p, format!("{coef} has no values")));
    }
    numbers(st, key, &v, p);
    Ok(())
}

fn siso(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("TFSISO", e.id);
    coefficients(e, "numerator_coef", &mut st, "NUMERATOR")?;
    coefficients(e, "denominator_coef", &mut st, "DENOMINATOR")?;
    for (attr, key) in [
        ("u_array_id", "U"),
        ("x_array_id", "X"),
        ("y_array_id", "Y"),
    ] {
        array_ref(e, &mut st, attr, key)?;
    }
    static_hold(e, &mut st)?;
    Ok(st)
}

fn state_eqn(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("LSE", e.id);
    let (ty, tp) = e.required("type")?;
    if !ty.trim().eq_ignore_ascii_case("LINEAR") {
        return Err(e.err(
            tp,
            format!(
                "type = \"{}\" is not supported (LINEAR; a nonlinear state equation needs a user subroutine)",
                ty.trim()
            ),
        ));
    }
    for (attr, key) in [
        ("x_array_id", "X"),
        ("u_array_id", "U"),
        ("y_array_id", "Y"),
        ("ic_array_id", "IC"),
    ] {
        array_ref(e, &mut st, attr, key)?;
    }
    for (attr, key) in MATRICES {
        array_ref(e, &mut st, attr, key)?;
    }
    static_hold(e, &mut st)?;
    Ok(st)
}

fn ids(pairs: &[(&str, Option<u32>)]) -> String {
    pairs
        .iter()
        .filter_map(|(a, id)| id.map(|id| format!(" {a}=\"{id}\"")))
        .collect()
}

fn coefs(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x:e}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The model's LSEs and TFSISOs.
pub(crate) fn write(o: &mut String, systems: &[LinearSystem]) -> Result<(), String> {
    for l in systems {
        let hold = if l.static_hold { "TRUE" } else { "FALSE" };
        match l.element {
            ElementRef::Tfsiso(id) => {
                let _ = writeln!(
                    o,
                    "  <Control_SISO id=\"{id}\"{} is_static_hold=\"{hold}\" num_numerator_coef=\"{}\" numerator_coef=\"{}\" num_denominator_coef=\"{}\" denominator_coef=\"{}\"/>",
                    ids(&[("x_array_id", Some(l.x)), ("y_array_id", l.y), ("u_array_id", l.u)]),
                    l.numerator.len(),
                    coefs(&l.numerator),
                    l.denominator.len(),
                    coefs(&l.denominator),
                );
            }
            ElementRef::Lse(id) => {
                let mut pairs = vec![
                    ("x_array_id", Some(l.x)),
                    ("u_array_id", l.u),
                    ("y_array_id", l.y),
                    ("ic_array_id", l.ic),
                ];
                pairs.extend(MATRICES.iter().zip(l.matrices).map(|((a, _), m)| (*a, m)));
                let _ = writeln!(
                    o,
                    "  <Control_StateEqn id=\"{id}\" type=\"LINEAR\"{} is_static_hold=\"{hold}\"/>",
                    ids(&pairs)
                );
            }
            other => {
                return Err(format!(
                    "{other}: this linear system has no MotionSolve XML form here"
                ))
            }
        }
    }
    Ok(())
}
