//! Reference_Array and Reference_Matrix → the Adams ARRAY and MATRIX
//! statements (MotionSolve Reference Guide, "Reference: Array" and
//! "Reference: Matrix"), and back.
//!
//! * `<Reference_Array id type="U|X|Y|IC" num_element>` holds its values as
//!   text: Reference_Variable ids for U (or the `variable_id` attribute),
//!   nothing for X and Y (the states and outputs of the control that names
//!   them), numbers for IC. The XML has no untyped array: an Adams ARRAY
//!   without a type is written as IC, MotionSolve's general list of
//!   numbers, and reads back as ARRAY/IC (the two behave the same
//!   everywhere an ARRAY is read).
//! * `<Reference_Matrix id nrow ncol [isroworder]>` holds the dense values
//!   as text (column order unless `isroworder = TRUE`: the docs' Python
//!   twin fills by columns when no order is given), or with
//!   `issparse = TRUE` and `nval`, `row col value` triples (1-based).

use crate::reader::{flag, list, numbers, parse_number, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::{ArrayKind, Model};
use std::fmt::Write as _;

pub(crate) fn statement(e: &mut Elem) -> Result<Option<Statement>, XmlError> {
    if e.tag.eq_ignore_ascii_case("Reference_Array") {
        return array(e).map(Some);
    }
    if e.tag.eq_ignore_ascii_case("Reference_Matrix") {
        return matrix(e).map(Some);
    }
    Ok(None)
}

/// The element's text as numbers (commas and whitespace separate them).
fn text_numbers(e: &Elem) -> Result<Vec<f64>, XmlError> {
    e.text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| {
            parse_number(w)
                .ok_or_else(|| e.err_here(format!("'{w}' in the values is not a number")))
        })
        .collect()
}

/// The most entries a Reference_Matrix may have: the model stores a matrix
/// dense, so nrow × ncol numbers are allocated whatever the text holds.
const MAX_ENTRIES: usize = 10_000_000;

/// Counts and indices as the integers the Adams builder reads.
fn integers(st: &mut Statement, key: &str, values: &[usize], pos: mbsolve_adm::Pos) {
    let v: Vec<String> = values.iter().map(|n| n.to_string()).collect();
    list(st, key, &v, pos);
}

/// A positive integer attribute.
fn count(e: &mut Elem, key: &str) -> Result<Option<(usize, mbsolve_adm::Pos)>, XmlError> {
    match e.number(key)? {
        None => Ok(None),
        Some((n, p)) if n >= 1.0 && n.fract() == 0.0 => Ok(Some((n as usize, p))),
        Some((n, p)) => Err(e.err(p, format!("{key} = {n} must be a positive integer"))),
    }
}

fn array(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("ARRAY", e.id);
    let (ty, tp) = e.required("type")?;
    let ty = ty.trim().to_ascii_uppercase();
    if !["U", "X", "Y", "IC"].contains(&ty.as_str()) {
        return Err(e.err(tp, format!("type = \"{ty}\" must be U, X, Y or IC")));
    }
    flag(&mut st, &ty, tp);
    let n = count(e, "num_element")?;
    let values = text_numbers(e)?;
    let given = match ty.as_str() {
        "U" => {
            // Ids in the text, or in variable_id (the docs' form).
            let mut ids: Vec<String> = Vec::new();
            let attr = e.get("variable_id");
            let source = match &attr {
                Some((v, _)) => v.clone(),
                None => e.text.clone(),
            };
            if attr.is_some() && !values.is_empty() {
                return Err(e.err_here("give the input ids as variable_id or as text, not both"));
            }
            for w in source
                .split(|c: char| c.is_whitespace() || c == ',')
                .filter(|w| !w.is_empty())
            {
                match w.parse::<u32>() {
                    Ok(v) if v > 0 => ids.push(v.to_string()),
                    _ => {
                        return Err(e.err_here(format!(
                            "'{w}' is not a Reference_Variable id (a U array lists the inputs' ids)"
                        )))
                    }
                }
            }
            let k = ids.len();
            if k > 0 {
                list(&mut st, "VARIABLES", &ids, e.pos);
            }
            k
        }
        "X" | "Y" => {
            if !values.is_empty() {
                return Err(e.err_here(format!(
                    "a type {ty} array holds no values (they are the states or outputs of the control that names it)"
                )));
            }
            0
        }
        _ => {
            if !values.is_empty() {
                numbers(&mut st, "NUMBERS", &values, e.pos);
            }
            values.len()
        }
    };
    if let Some((n, p)) = n {
        if given > 0 && n != given {
            return Err(e.err(p, format!("num_element = {n} but {given} values are given")));
        }
        integers(&mut st, "SIZE", &[n], p);
    }
    Ok(st)
}

fn matrix(e: &mut Elem) -> Result<Statement, XmlError> {
    let mut st = e.statement("MATRIX", e.id);
    let (rows, rp) = count(e, "nrow")?.ok_or_else(|| e.err_here("needs nrow"))?;
    let (cols, cp) = count(e, "ncol")?.ok_or_else(|| e.err_here("needs ncol"))?;
    integers(&mut st, "ROWS", &[rows], rp);
    integers(&mut st, "COLUMNS", &[cols], cp);
    // The model stores every matrix dense (sparse ones too).
    if rows.checked_mul(cols).is_none_or(|n| n > MAX_ENTRIES) {
        return Err(e.err(
            rp,
            format!("nrow × ncol = {rows} × {cols} is more than the {MAX_ENTRIES} entries a matrix is stored with (dense)"),
        ));
    }
    let values = text_numbers(e)?;
    let sparse = e.boolean("issparse")?.unwrap_or(false);
    let row_order = e.boolean("isroworder")?;
    if sparse {
        if let Some(p) = e
            .get("isroworder")
            .map(|(_, p)| p)
            .filter(|_| row_order.is_some())
        {
            return Err(e.err(p, "isroworder applies to a dense matrix, not a sparse one"));
        }
        if values.len() % 3 != 0 {
            return Err(e.err_here(format!(
                "a sparse matrix lists row col value triples; found {} numbers",
                values.len()
            )));
        }
        let k = values.len() / 3;
        if let Some((n, p)) = count(e, "nval")? {
            if n != k {
                return Err(e.err(p, format!("nval = {n} but {k} entries are given")));
            }
        }
        flag(&mut st, "SPARSE", e.pos);
        if k > 0 {
            let col =
                |j: usize| -> Vec<f64> { values.iter().skip(j).step_by(3).copied().collect() };
            for (j, key) in [(0, "I"), (1, "J")] {
                let mut idx = Vec::with_capacity(k);
                for x in col(j) {
                    if x < 1.0 || x.fract() != 0.0 {
                        return Err(e.err_here(format!(
                            "{x} is not a 1-based row or column index (a sparse matrix lists row col value triples)"
                        )));
                    }
                    idx.push(x as usize);
                }
                integers(&mut st, key, &idx, e.pos);
            }
            numbers(&mut st, "VALUES", &col(2), e.pos);
        }
    } else {
        if let Some((_, p)) = e.get("nval") {
            return Err(e.err(p, "nval applies to a sparse matrix (issparse = TRUE)"));
        }
        let order = if row_order == Some(true) {
            "RORDER"
        } else {
            "CORDER"
        };
        list(&mut st, "FULL", &[order.to_string()], e.pos);
        numbers(&mut st, "VALUES", &values, e.pos);
    }
    Ok(st)
}

/// The model's ARRAYs and MATRIXes.
pub(crate) fn write(o: &mut String, m: &Model) {
    for a in &m.arrays {
        let ty = match a.kind {
            ArrayKind::Numbers | ArrayKind::Ic => "IC",
            k => k.name(),
        };
        let n = match a.kind {
            ArrayKind::U => Some(a.variables.len()),
            ArrayKind::X | ArrayKind::Y => a.size,
            _ => Some(a.numbers.len()),
        }
        .filter(|n| *n > 0)
        .map(|n| format!(" num_element=\"{n}\""))
        .unwrap_or_default();
        let body: Vec<String> = match a.kind {
            ArrayKind::U => a.variables.iter().map(|v| v.to_string()).collect(),
            ArrayKind::X | ArrayKind::Y => Vec::new(),
            _ => a.numbers.iter().map(|x| format!("{x:e}")).collect(),
        };
        let _ = writeln!(
            o,
            "  <Reference_Array id=\"{}\" type=\"{ty}\"{n}>{}</Reference_Array>",
            a.id,
            body.join(" ")
        );
    }
    for x in &m.matrices {
        let _ = write!(
            o,
            "  <Reference_Matrix id=\"{}\" nrow=\"{}\" ncol=\"{}\"",
            x.id, x.rows, x.columns
        );
        if x.sparse {
            let entries: Vec<String> = (0..x.rows)
                .flat_map(|r| (0..x.columns).map(move |c| (r, c)))
                .filter(|&(r, c)| x.get(r, c) != 0.0)
                .map(|(r, c)| format!("{} {} {:e}", r + 1, c + 1, x.get(r, c)))
                .collect();
            let nval = if entries.is_empty() {
                String::new()
            } else {
                format!(" nval=\"{}\"", entries.len())
            };
            let _ = writeln!(
                o,
                " issparse=\"TRUE\"{nval}>{}</Reference_Matrix>",
                entries.join(" ")
            );
        } else {
            let v: Vec<String> = x.values.iter().map(|v| format!("{v:e}")).collect();
            let _ = writeln!(o, " isroworder=\"TRUE\">{}</Reference_Matrix>", v.join(" "));
        }
    }
}

/// A `<Reference_Array id type="IC" num_element>` command (MotionSolve
/// Reference Guide, "Reference: Array" command element, xml-format_26):
/// the IC array's values become the command's text. Its RESTART and PRINT
/// types (integrator restarts and output at listed times) are not run, and
/// the U, X and Y arrays (which name variables and control states) have no
/// command form, and after a Simulate the values would be read by nothing:
/// each refused by name.
pub(crate) fn modify(
    cmd: &Elem,
    base: &Elem,
    given: &[(String, String, mbsolve_adm::Pos)],
    merged: &mut Elem,
    after_simulate: bool,
) -> Result<(), XmlError> {
    let model_type = base.peek("type").unwrap_or("").trim().to_ascii_uppercase();
    if let Some((_, v, p)) = given
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case("type"))
    {
        let t = v.trim().to_ascii_uppercase();
        if t == "RESTART" || t == "PRINT" {
            return Err(cmd.err(
                *p,
                format!("type = \"{t}\" is not supported (integrator restarts and output times from an array are not run; IC only)"),
            ));
        }
        if t != "IC" {
            return Err(cmd.err(
                *p,
                format!("type = \"{t}\" must be IC (a command changes an IC array's values)"),
            ));
        }
    }
    if model_type != "IC" {
        return Err(cmd.err_here(format!(
            "Reference_Array {} is of type {model_type}: a command changes the values of an IC array only",
            base.id.unwrap_or(0)
        )));
    }
    // The LSE, TFSISO and GSE states start from their IC array once, and
    // ARYVAL reads X and Y arrays only: later values would be read by
    // nothing.
    if after_simulate {
        return Err(cmd.err_here(
            "after a Simulate nothing reads an IC array's values (the control states start from them once); a command can change them before the first Simulate only",
        ));
    }
    if cmd.text.trim().is_empty() {
        return Err(cmd.err_here("gives no values (the new values are the element's text)"));
    }
    merged.text = cmd.text.clone();
    Ok(())
}
