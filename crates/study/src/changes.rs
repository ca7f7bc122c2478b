//! Changes by element and argument (`PART/2.MASS = 2`), applied to the
//! dataset and command-file *text*. The changed text then goes through the
//! ordinary reader, so a new FUNCTION is recompiled and every value is
//! validated exactly as if it had been written in the file, with the file,
//! line and element in the error.

use mbsolve_adm::syntax::{self, Statement, Value};
use mbsolve_adm::{AdmError, Pos};

/// The text a run is made of: the dataset and, optionally, the command file.
#[derive(Clone, Debug, PartialEq)]
pub struct Source {
    pub adm: String,
    /// The dataset's file name, for messages.
    pub adm_name: String,
    pub acf: Option<String>,
    pub acf_name: String,
}

/// One change: set `argument` of `element` (a dataset statement such as
/// `PART/2`, `SFORCE/1`, `VARIABLE/3`, or `INTEGRATOR` for the command
/// sequence's integrator settings) to `value`, written as in the dataset.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub element: String,
    pub argument: String,
    pub value: String,
}

impl Change {
    /// `PART/2.MASS` and a value; the key is checked here, the value when
    /// the changed text is read.
    pub fn parse(key: &str, value: &str) -> Result<Change, String> {
        let (element, argument) = key.trim().rsplit_once('.').ok_or_else(|| {
            format!("'{key}': a change is ELEMENT.ARGUMENT, e.g. PART/2.MASS or INTEGRATOR.ERROR")
        })?;
        Change::new(element, argument, value)
    }

    pub fn new(element: &str, argument: &str, value: &str) -> Result<Change, String> {
        let element = element.trim().to_ascii_uppercase();
        let argument = argument.trim().to_ascii_uppercase();
        let ident = |s: &str| {
            s.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        let element_ok = match element.split_once('/') {
            Some((name, id)) => ident(name) && !id.is_empty() && id.parse::<u32>().is_ok(),
            // MotionSolve settings elements have no id (Param_Transient).
            None => is_integrator(&element) || element.starts_with("PARAM_"),
        };
        if !element_ok {
            return Err(format!(
                "'{element}': the element is NAME/id (PART/2, SFORCE/1, VARIABLE/3, Body_Rigid/2) or INTEGRATOR (Param_Transient in a MotionSolve deck)"
            ));
        }
        if !ident(&argument) {
            return Err(format!("{element}: '{argument}' is not an argument name"));
        }
        // These characters end a value or a statement in Adams text
        // (ADM-GRAMMAR §1–2): a value holding one would change more than
        // the one argument.
        if let Some(c) = value
            .chars()
            .find(|c| matches!(c, '!' | ';' | '\\' | '&' | '\n' | '\r'))
        {
            return Err(format!(
                "{element}.{argument}: the value '{value}' contains '{}', which ends a value in a dataset",
                c.escape_default()
            ));
        }
        if value.trim().is_empty() {
            return Err(format!("{element}.{argument}: the value is empty"));
        }
        Ok(Change {
            element,
            argument,
            value: value.trim().to_string(),
        })
    }

    /// `PART/2.MASS`
    pub fn key(&self) -> String {
        format!("{}.{}", self.element, self.argument)
    }
}

fn is_integrator(name: &str) -> bool {
    name.len() >= 3 && "INTEGRATOR".starts_with(name)
}

/// Adams accepts abbreviated names and keys: `written` (as in the file)
/// matches `wanted` (as the user gives it) when equal, or when `wanted`
/// abbreviates `written` with at least 3 characters (so `I` never matches
/// `IP`). A `wanted` longer than `written` never matches: `MASSX` is not
/// `MASS` (it would edit MASS silently); it is added as given, and the
/// reader then refuses it by name (or a file abbreviation `MAS` beside an
/// added `MASS` is refused as given twice).
fn abbreviates(written: &str, wanted: &str) -> bool {
    written == wanted || (wanted.len() >= 3 && written.starts_with(wanted))
}

/// Apply the changes in order and return the changed text.
pub fn apply(src: &Source, changes: &[Change]) -> Result<Source, AdmError> {
    if mbsolve_msxml::is_motionsolve_xml(&src.adm) {
        return crate::xml::apply(src, changes);
    }
    let mut out = src.clone();
    for c in changes {
        if is_integrator(&c.element) {
            let (text, name) = integrator_change(&out, c)?;
            out.acf = Some(text);
            out.acf_name = name;
        } else {
            out.adm = statement_change(&out.adm, &out.adm_name, c)?;
        }
    }
    Ok(out)
}

/// The last source line a statement occupies.
fn last_line(st: &Statement) -> u32 {
    let mut last = st.pos.line;
    for a in &st.args {
        last = last.max(a.pos.line);
        match &a.value {
            Value::Flag => {}
            Value::List(items) => {
                for i in items {
                    last = last.max(i.pos.line);
                }
            }
            Value::Expr(e) => {
                last = last.max(e.pos.line);
                for p in &e.byte_pos {
                    last = last.max(p.line);
                }
            }
            Value::Text(t) => last = last.max(t.pos.line),
        }
    }
    last
}

fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::Flag => None,
        Value::List(items) => Some(
            items
                .iter()
                .map(|i| i.text.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ),
        // Continuation commas are already removed from expression text;
        // the line breaks become blanks on the one line written back.
        Value::Expr(e) => Some(e.text.replace(['\n', '\r'], " ")),
        Value::Text(t) => Some(t.text.clone()),
    }
}

/// Rewrite one dataset statement with one argument set (replaced when
/// present, added when not).
fn statement_change(text: &str, file: &str, c: &Change) -> Result<String, AdmError> {
    let fail = |pos: Pos, msg: String| AdmError::new(file, pos, Some(c.element.clone()), msg);
    let (name, id) = c
        .element
        .split_once('/')
        .map(|(n, i)| (n, i.parse::<u32>().ok()))
        .unwrap_or((&c.element, None));
    let parsed = syntax::parse_adm(text, file)?;
    let found: Vec<&Statement> = parsed
        .statements
        .iter()
        .filter(|s| s.id == id && abbreviates(&s.name, name))
        .collect();
    let st = match found.as_slice() {
        [one] => *one,
        [] => {
            return Err(fail(
                Pos::default(),
                format!(
                    "cannot change {}: there is no {} in the dataset",
                    c.key(),
                    c.element
                ),
            ))
        }
        [_, second, ..] => {
            return Err(fail(
                second.pos,
                format!(
                    "cannot change {}: {} is defined more than once",
                    c.key(),
                    c.element
                ),
            ))
        }
    };
    let (first, last) = (st.pos.line, last_line(st));
    if let Some(other) = parsed
        .statements
        .iter()
        .find(|o| !std::ptr::eq(*o, st) && o.pos.line <= last && last_line(o) >= first)
    {
        return Err(fail(
            st.pos,
            format!(
                "cannot change {}: {} shares a line with {} (put it on lines of its own)",
                c.key(),
                c.element,
                other.label()
            ),
        ));
    }
    let mut args: Vec<(String, Option<String>, bool)> = st
        .args
        .iter()
        .map(|a| {
            (
                a.key.clone(),
                value_text(&a.value),
                matches!(a.value, Value::Text(_)),
            )
        })
        .collect();
    match args
        .iter_mut()
        .find(|(k, _, _)| abbreviates(k, &c.argument))
    {
        Some(slot) => slot.1 = Some(c.value.clone()),
        None => args.push((c.argument.clone(), Some(c.value.clone()), false)),
    }
    // Raw text (a REQUEST COMMENT) runs to the end of the statement: last.
    args.sort_by_key(|a| a.2);
    // One line, then blank lines for the ones the statement took, so every
    // later statement keeps its line number in messages. On one line an
    // expression ends at the next comma outside parentheses (ADM-GRAMMAR
    // §2), which is where the next argument starts.
    let mut new = format!("{}/{}", st.name, id.unwrap_or_default());
    for (key, value, _) in &args {
        match value {
            Some(v) => new.push_str(&format!(", {key} = {v}")),
            None => new.push_str(&format!(", {key}")),
        }
    }
    for _ in first..last {
        new.push('\n');
    }
    Ok(replace_lines(text, first, last, &new))
}

/// Replace 1-based lines `first..=last` of `text` with `new`.
fn replace_lines(text: &str, first: u32, last: u32, new: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let (a, b) = (first as usize - 1, (last as usize).min(lines.len()));
    let mut out: Vec<&str> = lines[..a].to_vec();
    out.push(new);
    out.extend_from_slice(&lines[b..]);
    out.join("\n")
}

/// An INTEGRATOR change: `INTEGRATOR/ARG = value` is inserted before the
/// first command and after every INTEGRATOR command of the command file,
/// so it holds for every analysis whatever the file sets (a command that
/// names no integrator keeps the current one and changes only what it
/// gives: `mbsolve_solver::commands::apply_integrator`). Without a command
/// file the default sequence is written out: SIMULATE/DYNAMIC, END = 1,
/// STEPS = 100 (initial conditions run before it).
fn integrator_change(src: &Source, c: &Change) -> Result<(String, String), AdmError> {
    let line = format!("INTEGRATOR/{} = {}", c.argument, c.value);
    let Some(acf) = &src.acf else {
        return Ok((
            format!("{line}\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\nSTOP\n"),
            "(default commands)".into(),
        ));
    };
    let parsed = mbsolve_adm::parse_acf(acf, &src.acf_name)?;
    let mut after: Vec<u32> = parsed
        .statements
        .iter()
        .filter(|s| is_integrator(&s.name))
        .map(last_line)
        .collect();
    let mut lines: Vec<String> = acf.split('\n').map(str::to_string).collect();
    // Insert from the bottom up so earlier line numbers stay valid.
    after.sort_unstable();
    for l in after.iter().rev() {
        lines.insert((*l as usize).min(lines.len()), line.clone());
    }
    if let Some(first) = parsed.statements.first() {
        lines.insert(first.pos.line as usize - 1, line.clone());
    }
    Ok((lines.join("\n"), src.acf_name.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADM: &str = "t\nPART/1, GROUND\nPART/2, MASS = 1, CM = 20 ! bob\n, IP = 1E-3, 1E-3, 1E-3\nMARKER/20, PART = 2\nSFORCE/1, TRANSLATIONAL, I = 20, J = 10\n, FUNCTION = -10*(DM(20,10)\n, -1)\nEND\n";

    fn src(acf: Option<&str>) -> Source {
        Source {
            adm: ADM.into(),
            adm_name: "t.adm".into(),
            acf: acf.map(str::to_string),
            acf_name: "t.acf".into(),
        }
    }

    #[test]
    fn a_statement_is_rewritten_with_the_one_argument_changed() {
        let c = Change::parse("part/2.mass", "2.5").unwrap();
        let out = apply(&src(None), &[c]).unwrap();
        assert_eq!(
            out.adm,
            "t\nPART/1, GROUND\nPART/2, MASS = 2.5, CM = 20, IP = 1E-3, 1E-3, 1E-3\n\nMARKER/20, PART = 2\nSFORCE/1, TRANSLATIONAL, I = 20, J = 10\n, FUNCTION = -10*(DM(20,10)\n, -1)\nEND\n"
        );
    }

    #[test]
    fn an_expression_spanning_lines_is_replaced_whole_and_abbreviations_match() {
        let c = Change::parse("SFORCE/1.FUNC", "-20*(DM(20,10)-1)").unwrap();
        let out = apply(&src(None), &[c]).unwrap();
        assert!(out.adm.contains(
            "SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = -20*(DM(20,10)-1)\n\n\nEND"
        ));
        // A missing argument is added; a missing element is an error naming it.
        let out = apply(
            &src(None),
            &[Change::parse("MARKER/20.QP", "1, 0, 0").unwrap()],
        )
        .unwrap();
        assert!(out
            .adm
            .contains("MARKER/20, PART = 2, QP = 1, 0, 0\nSFORCE"));
        let e = apply(&src(None), &[Change::parse("PART/9.MASS", "1").unwrap()]).unwrap_err();
        assert_eq!(e.statement.as_deref(), Some("PART/9"));
        assert_eq!(
            e.message,
            "cannot change PART/9.MASS: there is no PART/9 in the dataset"
        );
    }

    /// A key that extends a keyword (`MASSX`, `PARTX/2`) never edits it.
    #[test]
    fn a_key_longer_than_the_keyword_is_not_an_abbreviation() {
        let out = apply(&src(None), &[Change::parse("PART/2.MASSX", "3").unwrap()]).unwrap();
        assert!(out.adm.contains("MASS = 1, "), "{}", out.adm);
        let e = mbsolve_adm::read_adm_str(&out.adm, "m.adm").unwrap_err();
        assert!(e.message.contains("unknown keyword MASSX"), "{e}");
        let e = apply(&src(None), &[Change::parse("PARTX/2.MASS", "3").unwrap()]).unwrap_err();
        assert_eq!(
            e.message,
            "cannot change PARTX/2.MASS: there is no PARTX/2 in the dataset"
        );
        // an abbreviation of the keyword still edits it
        let out = apply(&src(None), &[Change::parse("PART/2.MAS", "3").unwrap()]).unwrap();
        assert!(out.adm.contains("MASS = 3"), "{}", out.adm);
    }

    #[test]
    fn keys_and_values_that_would_change_more_than_one_argument_are_refused() {
        assert!(Change::parse("PART2.MASS", "1").is_err());
        assert!(Change::parse("PART/2", "1").is_err());
        assert_eq!(
            Change::parse("PART/2.MASS", "1 ! x").unwrap_err(),
            "PART/2.MASS: the value '1 ! x' contains '!', which ends a value in a dataset"
        );
        assert!(Change::parse("PART/2.MASS", " ").is_err());
    }

    #[test]
    fn integrator_changes_follow_every_integrator_command() {
        let acf = "t.adm\nrun\nINTEGRATOR/GSTIFF, ERROR = 1E-6\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSTOP\n";
        let c = Change::parse("INTEGRATOR.ERROR", "1E-4").unwrap();
        let out = apply(&src(Some(acf)), std::slice::from_ref(&c)).unwrap();
        assert_eq!(
            out.acf.as_deref(),
            Some("t.adm\nrun\nINTEGRATOR/ERROR = 1E-4\nINTEGRATOR/GSTIFF, ERROR = 1E-6\nINTEGRATOR/ERROR = 1E-4\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSTOP\n")
        );
        let built = mbsolve_adm::read_acf_str(out.acf.as_deref().unwrap(), "t.acf").unwrap();
        let last = built.commands.iter().rev().find_map(|c| match c {
            mbsolve_model::Command::Integrator { settings, .. } => Some(settings.clone()),
            _ => None,
        });
        assert_eq!(last.unwrap().error, Some(1e-4));
        let none = apply(&src(None), &[c]).unwrap();
        assert!(none
            .acf
            .unwrap()
            .starts_with("INTEGRATOR/ERROR = 1E-4\nSIMULATE/DYNAMIC"));
    }
}
