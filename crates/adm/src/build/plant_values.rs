//! PINVAL(id, n) and POUVAL(id, n): the value of the n-th VARIABLE of
//! PINPUT/id or POUTPUT/id (Adams/Controls). The lists are read ahead of the
//! other statements (`predefine_plant_io`, like the SPLINE data), and every
//! call in a FUNCTION is rewritten to VARVAL(v) of the VARIABLE it names
//! before the expression is parsed, so it reads the same value with the
//! same derivatives. The rewritten call is padded with spaces to its
//! original length when shorter, so later error columns stay where they
//! were written; an expression written back out reads VARVAL(v).

use super::Builder;
use crate::args::{parse_id, resolve};
use crate::syntax::{Statement, Value};
use mbsolve_model::Id;
use std::collections::HashMap;

/// (input, id) → the VARIABLE ids of PINPUT/id (input) or POUTPUT/id.
pub type PlantLists = HashMap<(bool, Id), Vec<Id>>;

impl Builder<'_> {
    /// Reads every PINPUT/POUTPUT VARIABLES list ahead; malformed ones are
    /// left for the statement itself to report.
    pub fn predefine_plant_io(&mut self, statements: &[Statement]) {
        for st in statements {
            let input = match resolve(&st.name, super::STATEMENTS, &[]) {
                Ok("PINPUT") => true,
                Ok("POUTPUT") => false,
                _ => continue,
            };
            let Some(id) = st.id else { continue };
            for arg in &st.args {
                if let (Ok("VARIABLES"), Value::List(items)) =
                    (resolve(&arg.key, &["VARIABLES"], &[]), &arg.value)
                {
                    let ids: Option<Vec<Id>> = items.iter().map(|i| parse_id(&i.text)).collect();
                    if let Some(ids) = ids {
                        self.plant_lists.entry((input, id)).or_insert(ids);
                    }
                }
            }
        }
    }
}

/// `text` with each PINVAL(id, n) / POUVAL(id, n) replaced by VARVAL(v);
/// on a bad call, (byte offset of the call, message).
pub(super) fn rewrite(text: &str, lists: &PlantLists) -> Result<String, (usize, String)> {
    let upper = text.to_ascii_uppercase();
    let bytes = upper.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut done = 0;
    let mut at = 0;
    while at + 6 <= bytes.len() {
        let (input, name) = match &bytes[at..at + 6] {
            b"PINVAL" => (true, "PINVAL"),
            b"POUVAL" => (false, "POUVAL"),
            _ => {
                at += 1;
                continue;
            }
        };
        let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$';
        if (at > 0 && word(bytes[at - 1])) || bytes.get(at + 6).is_some_and(|&c| word(c)) {
            at += 1;
            continue;
        }
        let open = at + 6 + upper[at + 6..].len() - upper[at + 6..].trim_start().len();
        let close = match (bytes.get(open), upper[open..].find(')')) {
            (Some(b'('), Some(c)) => open + c,
            _ => return Err((at, format!("{name} must be called as {name}(id, n)"))),
        };
        let call = text[at..=close].split_whitespace().collect::<String>();
        let args: Vec<Option<Id>> = text[open + 1..close].split(',').map(parse_id).collect();
        let (id, n) = match args[..] {
            [Some(id), Some(n)] if id > 0 && n > 0 => (id, n),
            _ => {
                return Err((
                    at,
                    format!(
                    "{call}: the arguments must be the PINPUT/POUTPUT id and n ≥ 1, both integers"
                ),
                ))
            }
        };
        let element = if input { "PINPUT" } else { "POUTPUT" };
        let Some(list) = lists.get(&(input, id)) else {
            return Err((at, format!("{call}: {element}/{id} does not exist")));
        };
        let Some(v) = list.get(n as usize - 1) else {
            return Err((
                at,
                format!(
                    "{call}: {element}/{id} has {} VARIABLES, so n must be 1…{}, got {n}",
                    list.len(),
                    list.len()
                ),
            ));
        };
        out.push_str(&text[done..at]);
        let varval = format!("VARVAL({v})");
        let width = close + 1 - at;
        out.push_str(&format!("{varval:<width$}"));
        done = close + 1;
        at = done;
    }
    out.push_str(&text[done..]);
    Ok(out)
}
