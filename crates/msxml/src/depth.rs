//! The nesting depth of a deck, bounded before it is parsed: deep
//! recursion over the element tree (the parser's and the reader's) would
//! overflow the stack, so a deck nested deeper than [`MAX_DEPTH`] is
//! refused with the line and column of the first element beyond it.
//!
//! One linear scan of the markup, no recursion and no allocation: comments,
//! CDATA sections, processing instructions and the DOCTYPE (with its
//! internal subset) are skipped; quoted attribute values may hold `>`.
//! Malformed markup is left for the parser to report.

/// Deepest element nesting read. A MotionSolve deck nests a handful of
/// levels (`MultiBodySystem` › `Model` › element › sub-element); 256 is far
/// beyond any deck and well within the smallest thread stack that parses
/// one (a sweep worker's 2 MB).
pub const MAX_DEPTH: usize = 256;

/// Where the nesting first went beyond `limit`: (line, column), 1-based,
/// the column counted in characters.
pub(crate) fn too_deep(text: &str, limit: usize) -> Option<(u32, u32)> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0usize;
    while let Some(k) = find(b, i, b"<") {
        let rest = &b[k..];
        i = if rest.starts_with(b"<!--") {
            skip_past(b, k + 4, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_past(b, k + 9, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_past(b, k + 2, b"?>")
        } else if rest.starts_with(b"<!") {
            skip_declaration(b, k + 2)
        } else if rest.starts_with(b"</") {
            depth = depth.saturating_sub(1);
            skip_past(b, k + 2, b">")
        } else {
            let (end, self_closing) = skip_tag(b, k + 1);
            if !self_closing {
                depth += 1;
                if depth > limit {
                    return Some(position(text, k));
                }
            }
            end
        };
    }
    None
}

/// First index ≥ from where `pat` starts.
fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| from + p)
}

/// The index just past the next `pat` (the end of the text if none).
fn skip_past(b: &[u8], from: usize, pat: &[u8]) -> usize {
    find(b, from, pat).map_or(b.len(), |p| p + pat.len())
}

/// A `<!…>` declaration: to its `>` outside quotes and outside the
/// `[…]` internal subset (whose own declarations hold `>`).
fn skip_declaration(b: &[u8], from: usize) -> usize {
    let (mut bracket, mut quote) = (0usize, None);
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'[' => bracket += 1,
                b']' => bracket = bracket.saturating_sub(1),
                b'>' if bracket == 0 => return i + 1,
                _ => {}
            },
        }
        i += 1;
    }
    b.len()
}

/// A start tag from just after its `<`: (index past its `>`, whether it
/// ends with `/>`), quoted attribute values skipped.
fn skip_tag(b: &[u8], from: usize) -> (usize, bool) {
    let mut quote = None;
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                b'"' | b'\'' => quote = Some(c),
                b'>' => return (i + 1, i > from && b[i - 1] == b'/'),
                _ => {}
            },
        }
        i += 1;
    }
    (b.len(), false)
}

/// (line, column) of byte `k`, 1-based, the column in characters.
fn position(text: &str, k: usize) -> (u32, u32) {
    let before = &text.as_bytes()[..k];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |p| p + 1);
    let col = String::from_utf8_lossy(&before[start..]).chars().count() + 1;
    (
        u32::try_from(line).unwrap_or(u32::MAX),
        u32::try_from(col).unwrap_or(u32::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_counts_open_elements_only() {
        let ok = "<?xml version=\"1.0\"?>\n<!DOCTYPE a [<!ENTITY x \"<b><b>\">]>\n\
                  <a><!-- <b><b><b> --><![CDATA[<b><b>]]><c k='>' v=\"/>\"/><c/><d>t</d></a>";
        assert_eq!(too_deep(ok, 2), None);
        assert_eq!(too_deep(ok, 1), Some((3, 61)));
        let deep = format!("<a>\n{}x{}</a>", "<b>".repeat(10), "</b>".repeat(10));
        assert_eq!(too_deep(&deep, 11), None);
        assert_eq!(too_deep(&deep, 10), Some((2, 28)));
        // Siblings do not add up; unterminated markup is the parser's.
        let wide = "<a>".to_string() + &"<b></b>".repeat(1000) + "</a>";
        assert_eq!(too_deep(&wide, 2), None);
        for bad in ["<!--", "<!DOCTYPE [", "<![CDATA[", "</", "<?", "a>"] {
            assert_eq!(too_deep(bad, 0), None, "{bad}");
        }
        for bad in ["<", "<a", "<a b='"] {
            assert_eq!(too_deep(bad, 0), Some((1, 1)), "{bad}");
        }
        assert_eq!(too_deep("é\né<é", 0), Some((2, 2)));
    }
}
