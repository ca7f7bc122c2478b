//! Reference_Spline and Reference_String (MS-XML-GRAMMAR.md): read into the
//! Adams SPLINE and STRING statements, and written from the model.
//!
//! `<Reference_Spline id num_x linear_extrap>` holds `num_x` x y pairs as
//! text. Only that single-curve form is documented; any other attribute
//! (a surface's) is reported by name.

use crate::reader::{flag, list, numbers, parse_number, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::Model;
use std::fmt::Write as _;

pub(crate) fn spline(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("SPLINE", Some(id));
    let (n, np) = e
        .number("num_x")?
        .ok_or_else(|| e.err_here("missing num_x"))?;
    if !(n >= 1.0 && n.fract() == 0.0) {
        return Err(e.err(np, format!("num_x = {n} must be a positive integer")));
    }
    let n = n as usize;
    let mut values = Vec::with_capacity(2 * n);
    for w in e.text.split_whitespace() {
        match parse_number(w) {
            Some(v) => values.push(v),
            None => return Err(e.err_here(format!("'{w}' in the x y pairs is not a number"))),
        }
    }
    if values.len() != 2 * n {
        return Err(e.err_here(format!(
            "num_x = {n} needs {} numbers (x y pairs), found {}",
            2 * n,
            values.len()
        )));
    }
    let x: Vec<f64> = values.iter().step_by(2).copied().collect();
    let y: Vec<f64> = values.iter().skip(1).step_by(2).copied().collect();
    numbers(&mut st, "X", &x, e.pos);
    numbers(&mut st, "Y", &y, e.pos);
    if e.boolean("linear_extrap")? == Some(true) {
        flag(&mut st, "LINEAR_EXTRAPOLATE", e.pos);
    }
    Ok(st)
}

pub(crate) fn string(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("STRING", Some(id));
    let (text, p) = e.required("string")?;
    list(&mut st, "STRING", &[text], p);
    Ok(st)
}

/// The model's SPLINEs (single curves) and STRINGs; a family of curves has
/// no documented XML form and is refused by name.
pub(crate) fn write_data(o: &mut String, m: &Model, esc: fn(&str) -> String) -> Result<(), String> {
    for s in &m.splines {
        if s.z.is_some() {
            return Err(format!(
                "SPLINE/{}: a family of curves (Y = z, …) has no MotionSolve XML form here",
                s.id
            ));
        }
        let _ = writeln!(
            o,
            "  <Reference_Spline id=\"{}\" num_x=\"{}\" linear_extrap=\"{}\">",
            s.id,
            s.x.len(),
            if s.linear_extrapolate {
                "TRUE"
            } else {
                "FALSE"
            }
        );
        for (x, y) in s.x.iter().zip(&s.y[0]) {
            let _ = writeln!(o, "   {x:e} {y:e}");
        }
        let _ = writeln!(o, "  </Reference_Spline>");
    }
    for s in &m.strings {
        let _ = writeln!(
            o,
            "  <Reference_String id=\"{}\" string=\"{}\"/>",
            s.id,
            esc(&s.text)
        );
    }
    Ok(())
}
