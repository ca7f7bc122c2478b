//! Constraint_General ↔ the Adams GCON (MotionSolve Reference Guide,
//! "Constraint: General", model element xml-format_40: `id`, `label`,
//! `expr` — "an expression (that will be set to zero) defining the
//! general constraint" — or a GCOSUB user subroutine, and `is_virtual`).
//!
//! The Adams GCON also names a marker I on which its reaction acts; it
//! changes no motion, only where FORCE requests find the reaction.
//! MotionSolve's element has no such attribute (MotionView's General
//! Constraints panel: "Use Reaction marker … (ADAMS only)"). When it is
//! absent, the reaction marker is the first marker the expression reads
//! (the Adams builder's rule for GCONs written without I). A GCON whose I
//! is another marker is written with `i_marker_id`, an mbsolve extension
//! read back here, so that Adams decks round-trip: MotionSolve documents
//! no such attribute.

use crate::reader::{expr, list, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::Model;
use std::fmt::Write as _;

/// The GCON statement for a Constraint_General, or None for any other tag.
pub(crate) fn statement(e: &mut Elem) -> Result<Option<Statement>, XmlError> {
    if !e.tag.eq_ignore_ascii_case("Constraint_General") {
        return Ok(None);
    }
    let mut st = e.statement("GCON", e.id);
    if e.boolean("is_virtual")? == Some(true) {
        return Err(e.err_here(
            "is_virtual = TRUE is not supported (mbsolve imposes a Constraint_General as an algebraic constraint)",
        ));
    }
    if let Some((i, p)) = e.id_attr("i_marker_id")? {
        list(&mut st, "I", &[i.to_string()], p);
    }
    let (x, p) = e.required("expr")?;
    expr(&mut st, "FUNCTION", x.trim(), p);
    Ok(Some(st))
}

/// The model's GCONs as Constraint_General, with `i_marker_id` only where
/// the reaction marker is not the first marker the expression reads.
pub(crate) fn write(o: &mut String, m: &Model) -> Result<(), String> {
    for g in &m.gcons {
        let label = format!("GCON/{}", g.id);
        let text = mbsolve_adm::function_source(g.function.source(), &label)?;
        let first = g
            .function
            .measures()
            .iter()
            .find_map(|x| x.markers().first().copied());
        let _ = write!(o, "  <Constraint_General id=\"{}\"", g.id);
        if first != Some(g.i) {
            let _ = write!(o, " i_marker_id=\"{}\"", g.i);
        }
        let _ = writeln!(o, " expr=\"{}\"/>", crate::write::esc(text));
    }
    Ok(())
}
