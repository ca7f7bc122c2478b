//! Edits of a deck's text by element and attribute (`mbsolve-study`'s
//! changes on a MotionSolve deck): the attribute's value is replaced in
//! place, or the attribute added to the start tag, so the rest of the text
//! and every line number stay as they were and the ordinary reader then
//! validates the changed deck, with positions in its messages.

use crate::XmlError;
use roxmltree::{Document, Node};

fn pos(doc: &Document, byte: usize) -> (u32, u32) {
    let p = doc.text_pos_at(byte);
    (p.row, p.col)
}

/// XML text for an attribute value in double quotes.
fn escape(v: &str) -> String {
    v.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Set attribute `attr` of the `<Model>` element `tag` (any case) whose
/// `id` is `id` (or the only such element when `id` is None, for
/// Param_Transient and the like) to `value`. Errors name the file and,
/// when there is one, the line of the element.
pub fn set_attribute(
    text: &str,
    file: &str,
    tag: &str,
    id: Option<u32>,
    attr: &str,
    value: &str,
) -> Result<String, XmlError> {
    let fail = |(line, col): (u32, u32), message: String| XmlError {
        file: file.to_string(),
        line,
        col,
        message,
    };
    crate::check_depth(text, file)?;
    let doc = Document::parse(text).map_err(|e| {
        let p = e.pos();
        fail((p.row, p.col), format!("malformed XML: {e}"))
    })?;
    let what = match id {
        Some(id) => format!("{tag} id={id}"),
        None => tag.to_string(),
    };
    let model = doc
        .root_element()
        .children()
        .find(|c| c.is_element() && c.tag_name().name().eq_ignore_ascii_case("Model"))
        .ok_or_else(|| fail((0, 0), "no <Model> section".into()))?;
    let matches = |n: &Node| {
        n.is_element()
            && n.tag_name().name().eq_ignore_ascii_case(tag)
            && match id {
                None => true,
                Some(id) => n
                    .attributes()
                    .find(|a| a.name().eq_ignore_ascii_case("id"))
                    .is_some_and(|a| a.value().trim().parse::<u32>() == Ok(id)),
            }
    };
    let found: Vec<Node> = model.children().filter(matches).collect();
    let node = match found.as_slice() {
        [one] => *one,
        [] => {
            return Err(fail(
                (0, 0),
                format!("cannot change {what}.{attr}: there is no {what} in the <Model> section"),
            ))
        }
        [_, second, ..] => {
            return Err(fail(
                pos(&doc, second.range().start),
                format!("cannot change {what}.{attr}: {what} is defined more than once"),
            ))
        }
    };
    if attr.eq_ignore_ascii_case("id") {
        return Err(fail(
            pos(&doc, node.range().start),
            format!("{what}: the id cannot be changed"),
        ));
    }
    let new = escape(value);
    if let Some(a) = node
        .attributes()
        .find(|a| a.name().eq_ignore_ascii_case(attr))
    {
        let r = a.range_value();
        return Ok(format!("{}{new}{}", &text[..r.start], &text[r.end..]));
    }
    // Not written yet: add it at the end of the start tag (before `/>` or
    // `>`), outside any quoted value.
    let start = node.range().start;
    let mut quote = None;
    let mut end = None;
    for (k, c) in text[start..].char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') => quote = Some(c),
            (None, '>') => {
                end = Some(start + k);
                break;
            }
            _ => {}
        }
    }
    let Some(mut at) = end else {
        return Err(fail(
            pos(&doc, start),
            format!("{what}: unterminated start tag"),
        ));
    };
    if text[..at].ends_with('/') {
        at -= 1;
    }
    Ok(format!("{} {attr}=\"{new}\"{}", &text[..at], &text[at..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECK: &str = "<MultiBodySystem>\n<Model>\n  <Body_Rigid id=\"2\" mass=\"1.\"/>\n  <Param_Transient integr_tol=\"1e-3\">\n  </Param_Transient>\n</Model>\n<Command><Force_Scalar_TwoBody id=\"2\" val_expression=\"1\"/></Command>\n</MultiBodySystem>\n";

    #[test]
    fn replaces_or_adds_keeping_lines() {
        let t = set_attribute(DECK, "d.xml", "BODY_RIGID", Some(2), "MASS", "3.5").unwrap();
        assert!(t.contains("<Body_Rigid id=\"2\" mass=\"3.5\"/>"), "{t}");
        let t = set_attribute(&t, "d.xml", "body_rigid", Some(2), "inertia_xx", "a<\"b").unwrap();
        assert!(
            t.contains("mass=\"3.5\" inertia_xx=\"a&lt;&quot;b\"/>"),
            "{t}"
        );
        let t = set_attribute(&t, "d.xml", "Param_Transient", None, "h_max", "0.01").unwrap();
        assert!(
            t.contains("<Param_Transient integr_tol=\"1e-3\" h_max=\"0.01\">"),
            "{t}"
        );
        assert_eq!(t.lines().count(), DECK.lines().count());
    }

    #[test]
    fn errors_name_the_element() {
        let e = set_attribute(
            DECK,
            "d.xml",
            "Force_Scalar_TwoBody",
            Some(2),
            "val_expression",
            "0",
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "d.xml:0:0: cannot change Force_Scalar_TwoBody id=2.val_expression: there is no Force_Scalar_TwoBody id=2 in the <Model> section"
        );
        let e = set_attribute(DECK, "d.xml", "Body_Rigid", Some(2), "id", "3").unwrap_err();
        assert_eq!(
            e.to_string(),
            "d.xml:3:3: Body_Rigid id=2: the id cannot be changed"
        );
    }
}
