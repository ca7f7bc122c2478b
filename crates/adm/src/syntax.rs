//! Parse layer: Adams text → statements with source positions.
//!
//! Nothing here knows what a statement means. The rules (ADM-GRAMMAR §1–2, §6):
//! `!` starts a comment; a line whose first non-blank character is `,`, or
//! that follows a line ending in `&`, continues the previous statement; `;`
//! ends a statement; keywords are case-insensitive; `FUNCTION =` and the
//! component keys (`F1`…`F8`, `FX`…`TZ`) take an expression that runs to `\`,
//! to the end of the statement, to a comma at parenthesis depth 0 on the same
//! line, or to a continuation line that starts a new `KEY =` argument. In an
//! expression the leading comma of a continuation line is dropped.

use crate::error::{AdmError, Pos};

/// One argument: `KEY`, `KEY = v1, v2, …`, `KEY = expression` or `KEY = text`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    /// Upper-cased keyword as written (possibly abbreviated).
    pub key: String,
    pub pos: Pos,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A bare (conditional) keyword.
    Flag,
    /// Comma-separated values as written (numbers, words, colon lists).
    List(Vec<Item>),
    /// A function expression.
    Expr(ExprText),
    /// Raw text (REQUEST COMMENT/TITLE).
    Text(Item),
}

/// One value as written, trimmed.
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    pub text: String,
    pub pos: Pos,
}

/// Expression text with continuation commas removed, and the source
/// position of each byte so expression errors point into the file.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprText {
    pub text: String,
    pub byte_pos: Vec<Pos>,
    pub pos: Pos,
}

impl ExprText {
    /// Source position of a byte offset in `text`.
    pub fn pos_at(&self, offset: usize) -> Pos {
        self.byte_pos
            .get(offset)
            .or(self.byte_pos.last())
            .copied()
            .unwrap_or(self.pos)
    }
}

/// `NAME/id, args…`
#[derive(Clone, Debug, PartialEq)]
pub struct Statement {
    /// Upper-cased name as written (possibly abbreviated).
    pub name: String,
    pub pos: Pos,
    pub id: Option<u32>,
    pub args: Vec<Arg>,
}

impl Statement {
    /// "JOINT/3", or "UNITS" when there is no id.
    pub fn label(&self) -> String {
        match self.id {
            Some(id) => format!("{}/{}", self.name, id),
            None => self.name.clone(),
        }
    }
}

/// A parsed dataset: the title line and the statements before `END`.
#[derive(Clone, Debug, PartialEq)]
pub struct AdmSyntax {
    pub title: String,
    pub statements: Vec<Statement>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Normal,
    /// The leading comma of a continuation line.
    ContComma,
    /// Boundary between two physical lines of one statement.
    LineBreak,
}

#[derive(Clone, Copy, Debug)]
struct Ch {
    c: char,
    pos: Pos,
    kind: Kind,
}

/// A logical statement: its characters, or a continuation line with nothing
/// to continue.
enum Logical {
    Chars(Vec<Ch>),
    Orphan(Pos),
}

/// Split physical lines (`\n`, `\r\n`), numbering from 1.
pub(crate) fn lines(text: &str) -> Vec<&str> {
    text.split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect()
}

fn chars_of(s: &str, line: u32, col0: u32) -> impl Iterator<Item = Ch> + '_ {
    s.chars().enumerate().map(move |(k, c)| Ch {
        c,
        pos: Pos {
            line,
            col: col0 + k as u32,
        },
        kind: Kind::Normal,
    })
}

/// Join physical lines (starting at 1-based `first_line`) into logical statements.
fn join(lines: &[&str], first_line: u32) -> Vec<Logical> {
    let mut out = Vec::new();
    let mut current: Option<Vec<Ch>> = None;
    let mut prev_amp = false;
    for (k, raw) in lines.iter().enumerate() {
        let line = first_line + k as u32;
        let content = match raw.find('!') {
            Some(i) => &raw[..i],
            None => raw,
        };
        if content.trim().is_empty() {
            continue; // blank or comment-only: keeps a pending '&'
        }
        let mut content = content.trim_end();
        let amp = content.ends_with('&');
        if amp {
            content = &content[..content.len() - 1];
        }
        let segments: Vec<&str> = content.split(';').collect();
        let mut col = 1u32;
        for (si, seg) in segments.iter().enumerate() {
            let first = seg.trim_start().chars().next();
            let continues = si == 0 && (prev_amp || first == Some(','));
            if continues {
                match current.as_mut() {
                    Some(cur) => {
                        cur.push(Ch {
                            c: '\n',
                            pos: Pos { line, col },
                            kind: Kind::LineBreak,
                        });
                        let mut seen_comma = false;
                        for mut ch in chars_of(seg, line, col) {
                            if !seen_comma && ch.c == ',' {
                                ch.kind = Kind::ContComma;
                                seen_comma = true;
                            } else if !ch.c.is_whitespace() {
                                seen_comma = true;
                            }
                            cur.push(ch);
                        }
                    }
                    None => {
                        let lead = seg.chars().take_while(|c| c.is_whitespace()).count() as u32;
                        out.push(Logical::Orphan(Pos {
                            line,
                            col: col + lead,
                        }));
                    }
                }
            } else if !seg.trim().is_empty() {
                if let Some(cur) = current.take() {
                    out.push(Logical::Chars(cur));
                }
                current = Some(chars_of(seg, line, col).collect());
            }
            if si + 1 < segments.len() {
                // ';' ends the statement
                if let Some(cur) = current.take() {
                    out.push(Logical::Chars(cur));
                }
            }
            col += seg.chars().count() as u32 + 1;
        }
        prev_amp = amp;
    }
    if let Some(cur) = current.take() {
        out.push(Logical::Chars(cur));
    }
    out
}

/// Parse a dataset: line 1 is the title, statements run to `END`.
pub fn parse_adm(text: &str, file: &str) -> Result<AdmSyntax, AdmError> {
    check_layout(text, file)?;
    if text.trim().is_empty() {
        return Err(AdmError::new(
            file,
            Pos { line: 1, col: 1 },
            None,
            "the file is empty: an Adams dataset is a title line, then statements, then END",
        ));
    }
    let all = lines(text);
    let title = all
        .first()
        .map(|t| t.trim().to_string())
        .unwrap_or_default();
    let body = if all.len() > 1 { &all[1..] } else { &[][..] };
    let statements = parse_statements(body, 2, file, true)?;
    Ok(AdmSyntax { title, statements })
}

/// Line endings must be LF or CRLF. A file with CR-only endings (classic
/// Mac) would read as one long title line and nothing else.
pub(crate) fn check_layout(text: &str, file: &str) -> Result<(), AdmError> {
    if text.contains('\r') && !text.contains('\n') {
        return Err(AdmError::new(
            file,
            Pos { line: 1, col: 1 },
            None,
            "the line endings are CR only (classic Mac): convert them to LF or CRLF; as it is, the whole file is one line, the title",
        ));
    }
    Ok(())
}

/// Parse command lines (`.acf` body) starting at 1-based line `first_line`.
pub fn parse_command_lines(
    lines: &[&str],
    first_line: u32,
    file: &str,
) -> Result<Vec<Statement>, AdmError> {
    parse_statements(lines, first_line, file, false)
}

fn parse_statements(
    lines: &[&str],
    first_line: u32,
    file: &str,
    stop_at_end: bool,
) -> Result<Vec<Statement>, AdmError> {
    let mut out = Vec::new();
    for logical in join(lines, first_line) {
        let chars = match logical {
            Logical::Chars(c) => c,
            Logical::Orphan(pos) => {
                return Err(AdmError::new(
                    file,
                    pos,
                    None,
                    "continuation line ',' without a statement to continue",
                ))
            }
        };
        let st = StatementParser {
            s: &chars,
            i: 0,
            file,
        }
        .statement()?;
        if stop_at_end && st.name == "END" && st.id.is_none() && st.args.is_empty() {
            break;
        }
        out.push(st);
    }
    Ok(out)
}

/// Keys whose value is a function expression, in any statement.
pub fn is_expression_key(key: &str) -> bool {
    (key.len() >= 3 && "FUNCTION".starts_with(key))
        || key == "EVALUATE"
        || matches!(
            key,
            "F1" | "F2"
                | "F3"
                | "F4"
                | "F5"
                | "F6"
                | "F7"
                | "F8"
                | "FX"
                | "FY"
                | "FZ"
                | "TX"
                | "TY"
                | "TZ"
        )
}

/// Keys whose value is a file name (`FILE/MODEL=`, `OUTPUT_PREFIX=`,
/// `COMMAND=` of the `.acf` FILE command). A name runs to a comma or the end
/// of the line: a Windows path (`C:\Users\…\test`, as the Adams View export
/// writes it) holds backslashes that elsewhere end an argument.
/// The STRING statement's text is read the same way (`STRING/90, STRING =
/// .\\Test01_AD.ipt`, as FAST2ADAMS writes it; commas are not allowed in
/// it, ADM-GRAMMAR §2).
fn is_path_key(statement: &str, key: &str) -> bool {
    let file = statement.len() >= 3 && "FILE".starts_with(statement);
    let string = statement.len() >= 3 && "STRING".starts_with(statement);
    (file
        && ["MODEL", "OUTPUT_PREFIX", "COMMAND"]
            .iter()
            .any(|k| k.starts_with(key)))
        || (string && !key.is_empty() && "STRING".starts_with(key))
}

/// Keys whose value is raw text (REQUEST COMMENT= / C= / TITLE=).
fn is_text_key(statement: &str, key: &str) -> bool {
    let request = statement.len() >= 3 && "REQUEST".starts_with(statement);
    request && ("COMMENT".starts_with(key) || (key.len() >= 2 && "TITLE".starts_with(key)))
}

struct StatementParser<'a> {
    s: &'a [Ch],
    i: usize,
    file: &'a str,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}
fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

impl StatementParser<'_> {
    fn peek(&self) -> Option<Ch> {
        self.s.get(self.i).copied()
    }
    fn peek_at(&self, k: usize) -> Option<Ch> {
        self.s.get(k).copied()
    }
    fn here(&self) -> Pos {
        self.peek()
            .or(self.s.last().copied())
            .map(|c| c.pos)
            .unwrap_or_default()
    }
    fn err(&self, pos: Pos, msg: impl Into<String>) -> AdmError {
        AdmError::new(self.file, pos, None, msg)
    }
    /// Skip blanks, and line breaks too when `lines`.
    fn skip_ws_from(&self, mut k: usize, lines: bool) -> usize {
        while let Some(ch) = self.peek_at(k) {
            let blank = ch.kind != Kind::ContComma && ch.c.is_whitespace();
            if blank && (lines || ch.kind != Kind::LineBreak) {
                k += 1;
            } else {
                break;
            }
        }
        k
    }
    fn skip_ws(&mut self, lines: bool) {
        self.i = self.skip_ws_from(self.i, lines);
    }
    fn ident_at(&self, mut k: usize) -> (String, usize) {
        let mut name = String::new();
        if let Some(ch) = self.peek_at(k) {
            if is_ident_start(ch.c) {
                while let Some(ch) = self.peek_at(k) {
                    if is_ident(ch.c) {
                        name.push(ch.c.to_ascii_uppercase());
                        k += 1;
                    } else {
                        break;
                    }
                }
            }
        }
        (name, k)
    }
    /// Does a `KEY =` (not `==`) start at index `k`?
    fn key_assignment_at(&self, k: usize) -> bool {
        let (name, k) = self.ident_at(k);
        if name.is_empty() {
            return false;
        }
        let k = self.skip_ws_from(k, false);
        self.peek_at(k).map(|c| c.c) == Some('=') && self.peek_at(k + 1).map(|c| c.c) != Some('=')
    }

    fn statement(mut self) -> Result<Statement, AdmError> {
        self.skip_ws(true);
        let pos = self.here();
        let (name, k) = self.ident_at(self.i);
        if name.is_empty() {
            let found = self.peek().map(|c| c.c).unwrap_or(' ');
            return Err(self.err(pos, format!("expected a statement name, found '{found}'")));
        }
        self.i = k;
        self.skip_ws(true);
        let mut id = None;
        if self.peek().map(|c| c.c) == Some('/') {
            self.i += 1;
            self.skip_ws(true);
            let id_pos = self.here();
            let mut digits = String::new();
            while let Some(ch) = self.peek() {
                if ch.c.is_ascii_digit() {
                    digits.push(ch.c);
                    self.i += 1;
                } else {
                    break;
                }
            }
            if !digits.is_empty() {
                if let Some(ch) = self.peek() {
                    if is_ident(ch.c) || ch.c == '.' {
                        return Err(self.err(id_pos, format!("{name}: bad id '{digits}{}'", ch.c)));
                    }
                }
                id =
                    Some(digits.parse::<u32>().map_err(|_| {
                        self.err(id_pos, format!("{name}: id {digits} is too large"))
                    })?);
            }
        }
        let mut st = Statement {
            name,
            pos,
            id,
            args: Vec::new(),
        };
        self.args(&mut st)?;
        Ok(st)
    }

    fn args(&mut self, st: &mut Statement) -> Result<(), AdmError> {
        loop {
            self.skip_ws(true);
            let Some(ch) = self.peek() else {
                return Ok(());
            };
            if ch.c == ',' || ch.c == '\\' {
                self.i += 1;
                continue;
            }
            let pos = ch.pos;
            let (key, k) = self.ident_at(self.i);
            if key.is_empty() {
                return Err(AdmError::new(
                    self.file,
                    pos,
                    Some(st.label()),
                    format!("{}: expected a keyword, found '{}'", st.label(), ch.c),
                ));
            }
            self.i = k;
            let k = self.skip_ws_from(self.i, false);
            let value = if self.peek_at(k).map(|c| c.c) == Some('=') {
                self.i = k + 1;
                self.skip_ws(false);
                if is_expression_key(&key) {
                    Value::Expr(self.expression())
                } else if is_text_key(&st.name, &key) {
                    Value::Text(self.text(true))
                } else if is_path_key(&st.name, &key) {
                    Value::Text(self.text(false))
                } else {
                    Value::List(self.values(st, &key, pos)?)
                }
            } else {
                Value::Flag
            };
            st.args.push(Arg { key, pos, value });
        }
    }

    /// Raw text to a comma or the end of the line, and to a `\\` when
    /// `backslash_ends` (a file name keeps its backslashes).
    fn text(&mut self, backslash_ends: bool) -> Item {
        let pos = self.here();
        let mut text = String::new();
        while let Some(ch) = self.peek() {
            if ch.c == ',' || (backslash_ends && ch.c == '\\') || ch.kind == Kind::LineBreak {
                break;
            }
            text.push(ch.c);
            self.i += 1;
        }
        Item {
            text: text.trim().to_string(),
            pos,
        }
    }

    fn values(&mut self, st: &Statement, key: &str, key_pos: Pos) -> Result<Vec<Item>, AdmError> {
        let mut items = Vec::new();
        // `KEY =` at the end of a line with the values on continuation lines
        let k = self.skip_ws_from(self.i, true);
        if self.peek_at(k).map(|c| c.kind) == Some(Kind::ContComma) {
            let k2 = self.skip_ws_from(k + 1, true);
            if self.value_starts_at(k2) {
                self.i = k2;
            }
        }
        loop {
            self.skip_ws(false);
            let pos = self.here();
            let mut text = String::new();
            let mut quoted = false;
            while let Some(ch) = self.peek() {
                if ch.kind == Kind::LineBreak {
                    break;
                }
                if ch.c == '"' {
                    quoted = !quoted;
                } else if !quoted && (ch.c == ',' || ch.c == '\\') {
                    break;
                }
                text.push(ch.c);
                self.i += 1;
            }
            let text = text.trim().to_string();
            if text.is_empty() {
                return Err(AdmError::new(
                    self.file,
                    if items.is_empty() { key_pos } else { pos },
                    Some(st.label()),
                    format!("{}: missing value for {key} =", st.label()),
                ));
            }
            items.push(Item { text, pos });
            if self.peek().map(|c| c.c) == Some('\\') {
                self.i += 1;
                return Ok(items);
            }
            // Another value follows a comma only if it looks like a number.
            let k = self.skip_ws_from(self.i, true);
            if self.peek_at(k).map(|c| c.c) != Some(',') {
                return Ok(items);
            }
            let mut k2 = self.skip_ws_from(k + 1, true);
            // `v,` at the end of a line and `, v` on the next (FAST2ADAMS
            // writes lists so): the two commas are one separator.
            if self.peek_at(k).map(|c| c.kind) == Some(Kind::Normal)
                && self.peek_at(k2).map(|c| c.kind) == Some(Kind::ContComma)
            {
                k2 = self.skip_ws_from(k2 + 1, true);
            }
            if self.value_starts_at(k2) {
                self.i = k2;
            } else {
                return Ok(items);
            }
        }
    }

    /// After a comma inside a value list: does another value start at `k`?
    /// Numbers do; so do colon lists (`a::b`, `T:F`). A word followed by `=`
    /// is the next argument and a lone word is a conditional keyword.
    fn value_starts_at(&self, k: usize) -> bool {
        match self.peek_at(k).map(|c| c.c) {
            Some(c) if c.is_ascii_digit() || matches!(c, '.' | '+' | '-' | '"') => true,
            Some(c) if is_ident_start(c) => {
                let (_, e) = self.ident_at(k);
                let e = self.skip_ws_from(e, false);
                self.peek_at(e).map(|c| c.c) == Some(':')
            }
            _ => false,
        }
    }

    fn expression(&mut self) -> ExprText {
        let start = self.here();
        let mut text = String::new();
        let mut byte_pos = Vec::new();
        let mut depth = 0i32;
        while let Some(ch) = self.peek() {
            match (ch.c, ch.kind) {
                ('\\', _) => {
                    self.i += 1;
                    break;
                }
                (_, Kind::LineBreak) => {
                    let k = self.skip_ws_from(self.i + 1, true);
                    if let Some(next) = self.peek_at(k) {
                        if next.kind == Kind::ContComma {
                            let after = self.skip_ws_from(k + 1, false);
                            if depth <= 0 && self.key_assignment_at(after) {
                                break; // `, KEY = …` starts the next argument
                            }
                            self.i = k + 1; // drop the continuation comma
                            continue;
                        }
                    }
                    self.i += 1;
                    continue;
                }
                (',', Kind::Normal) if depth <= 0 => break,
                _ => {}
            }
            if ch.c == '(' {
                depth += 1;
            } else if ch.c == ')' {
                depth -= 1;
            }
            let mut buf = [0u8; 4];
            for _ in 0..ch.c.encode_utf8(&mut buf).len() {
                byte_pos.push(ch.pos);
            }
            text.push(ch.c);
            self.i += 1;
        }
        let trimmed = text.trim_end().len();
        text.truncate(trimmed);
        byte_pos.truncate(trimmed);
        // leading blanks were skipped by the caller
        ExprText {
            text,
            byte_pos,
            pos: start,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Statement {
        let s = parse_adm(&format!("title\n{text}\nEND\n"), "t.adm").unwrap();
        assert_eq!(s.statements.len(), 1, "{:?}", s.statements);
        s.statements.into_iter().next().unwrap()
    }
    fn items(v: &Value) -> Vec<&str> {
        match v {
            Value::List(items) => items.iter().map(|i| i.text.as_str()).collect(),
            other => panic!("not a list: {other:?}"),
        }
    }
    fn expr(v: &Value) -> &str {
        match v {
            Value::Expr(e) => &e.text,
            other => panic!("not an expression: {other:?}"),
        }
    }

    #[test]
    fn continuation_commas_and_lists() {
        let st =
            one("MARKER/0102, PART = 01\n, QP = 1, 2, 3\r\n!, junk\n, REULER = 180D, 45D, 180D");
        assert_eq!(st.name, "MARKER");
        assert_eq!(st.id, Some(102));
        assert_eq!(st.args.len(), 3);
        assert_eq!(items(&st.args[1].value), ["1", "2", "3"]);
        assert_eq!(items(&st.args[2].value), ["180D", "45D", "180D"]);
        assert_eq!(st.args[2].pos, Pos { line: 5, col: 3 });
    }

    /// FAST2ADAMS lists: each line ends in a comma and the next starts with one.
    #[test]
    fn trailing_and_leading_commas_are_one_separator() {
        let st = one("ARRAY/5\n, IC, SIZE = 3\n, NUMBERS = 2.0E+00,\n, 1.0E+01,\n, 21\n, IC");
        assert_eq!(st.args.len(), 4);
        assert_eq!(items(&st.args[2].value), ["2.0E+00", "1.0E+01", "21"]);
        // a trailing comma before the next argument ends the list
        let st = one("ARRAY/5, NUMBERS = 1,\n, SIZE = 1");
        assert_eq!(items(&st.args[0].value), ["1"]);
        assert_eq!(st.args[1].key, "SIZE");
    }

    #[test]
    fn string_text_keeps_backslashes_and_blanks() {
        let st = one("STRING/90\n, STRING = .\\Test01_AD.ipt");
        assert!(matches!(&st.args[0].value, Value::Text(t) if t.text == ".\\Test01_AD.ipt"));
        let st = one("STRING/21, STRING = FAST Test #01: AWT-27CR2 (m/s^2).");
        assert!(
            matches!(&st.args[0].value, Value::Text(t) if t.text == "FAST Test #01: AWT-27CR2 (m/s^2).")
        );
    }

    #[test]
    fn expression_continuation_drops_leading_comma() {
        let st = one("SFORCE/7, TRANSLATIONAL, I = 81, J = 78, FUNCTION = 1.8*2.0*\n,(0.175/(0.175-\n,1.3*(0.5066-\n,DM(68,\n,64)\n,)))**1.2");
        assert_eq!(
            expr(&st.args[3].value),
            "1.8*2.0*(0.175/(0.175-1.3*(0.5066-DM(68,64))))**1.2"
        );
        let st = one("SFORCE/1\n, FUNCTION =  - 100.0*(dm(204,205)-2.0)\n, - 1.0*vr(204,205)\n, + 0.0\n, I = 3");
        assert_eq!(
            expr(&st.args[0].value),
            "- 100.0*(dm(204,205)-2.0) - 1.0*vr(204,205) + 0.0"
        );
        assert_eq!(st.args[1].key, "I");
    }

    #[test]
    fn component_expressions_and_comment() {
        let st = one("REQUEST/04, F2=ORIENT(27,1,0201,0101)\\F3=ORIENT(27,2,0201,0101),C=EULER PARAMETERS: (x)");
        assert_eq!(expr(&st.args[0].value), "ORIENT(27,1,0201,0101)");
        assert_eq!(st.args[1].key, "F3");
        assert_eq!(
            st.args[2].value,
            Value::Text(Item {
                text: "EULER PARAMETERS: (x)".into(),
                pos: Pos { line: 2, col: 67 }
            })
        );
    }

    #[test]
    fn semicolons_ampersands_and_end() {
        let s = parse_adm(
            "t\nPART/1,MASS=40,CM=1;PART/2,GROUND;\nINTEGRATOR/ &\n, HHT &\n, ERROR = 1.0E-05\nEND\nGARBAGE ,,,\n",
            "t.adm",
        )
        .unwrap();
        let names: Vec<String> = s.statements.iter().map(|s| s.label()).collect();
        assert_eq!(names, ["PART/1", "PART/2", "INTEGRATOR"]);
        assert_eq!(s.statements[2].args[0].key, "HHT");
        assert_eq!(items(&s.statements[2].args[1].value), ["1.0E-05"]);
    }

    #[test]
    fn file_names_keep_backslashes() {
        let st = parse_command_lines(&[r"file/model=C:\Users\a.b\test, out=C:\o\x"], 2, "t.acf")
            .unwrap()
            .remove(0);
        let text = |v: &Value| match v {
            Value::Text(i) => i.text.clone(),
            other => panic!("not text: {other:?}"),
        };
        assert_eq!(text(&st.args[0].value), r"C:\Users\a.b\test");
        assert_eq!(st.args[1].key, "OUT");
        assert_eq!(text(&st.args[1].value), r"C:\o\x");
    }

    #[test]
    fn parse_errors() {
        let e = parse_adm("t\n, QP = 1\n", "t.adm").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.adm:2:1: continuation line ',' without a statement to continue"
        );
        let e = parse_adm("t\nMARKER/12a, PART=1\n", "t.adm").unwrap_err();
        assert_eq!(e.to_string(), "t.adm:2:8: MARKER: bad id '12a'");
        let e = parse_adm("t\nPART/1, MASS=\n", "t.adm").unwrap_err();
        assert_eq!(e.to_string(), "t.adm:2:9: PART/1: missing value for MASS =");
        let e = parse_adm("t\n=3\n", "t.adm").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.adm:2:1: expected a statement name, found '='"
        );
    }
}
