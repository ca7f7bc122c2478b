//! Control_Diff: a user state (the DIFF statement), read and written.

use crate::reader::{expr, flag, numbers, Elem};
use crate::XmlError;
use mbsolve_adm::syntax::Statement;
use mbsolve_model::Diff;
use std::fmt::Write;

/// `<Control_Diff id is_implicit ic ic_dot is_static_hold type="EXPRESSION"
/// expr>` as DIFF/id (MS-XML-GRAMMAR: the implicit form's `expr` is a
/// residual in DIF and DIF1).
pub(crate) fn diff(e: &mut Elem) -> Result<Statement, XmlError> {
    let id = e.id.unwrap_or(0);
    let mut st = e.statement("DIFF", Some(id));
    if let Some((t, p)) = e.get("type") {
        if !t.trim().eq_ignore_ascii_case("EXPRESSION") {
            return Err(e.err(
                p,
                format!(
                    "type = \"{}\" is not supported (EXPRESSION; a user subroutine cannot run)",
                    t.trim()
                ),
            ));
        }
    }
    let ic = e.number("ic")?;
    let rate = e.number("ic_dot")?;
    let pos = ic.or(rate).map(|(_, p)| p).unwrap_or(e.pos);
    let mut values = vec![ic.map_or(0.0, |(v, _)| v)];
    values.extend(rate.map(|(v, _)| v));
    numbers(&mut st, "IC", &values, pos);
    for (attr, key) in [
        ("is_implicit", "IMPLICIT"),
        ("is_static_hold", "STATIC_HOLD"),
    ] {
        let at = e.get(attr).map(|(_, p)| p).unwrap_or(e.pos);
        if e.boolean(attr)? == Some(true) {
            flag(&mut st, key, at);
        }
    }
    let (x, p) = e.required("expr")?;
    expr(&mut st, "FUNCTION", &x, p);
    Ok(st)
}

/// Control_Diff elements for the model's DIFFs.
pub(crate) fn write_diffs(
    o: &mut String,
    diffs: &[Diff],
    esc: fn(&str) -> String,
) -> Result<(), String> {
    for d in diffs {
        let f = mbsolve_adm::function_source(d.function.source(), &format!("DIFF/{}", d.id))?;
        let rate = d
            .ic_rate
            .map(|r| format!(" ic_dot=\"{r:e}\""))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "  <Control_Diff id=\"{}\" type=\"EXPRESSION\" is_implicit=\"{}\" ic=\"{:e}\"{rate} is_static_hold=\"{}\" expr=\"{}\"/>",
            d.id,
            if d.implicit { "TRUE" } else { "FALSE" },
            d.ic,
            if d.static_hold { "TRUE" } else { "FALSE" },
            esc(f)
        );
    }
    Ok(())
}
