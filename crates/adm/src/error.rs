//! The one error type of the reader: parse and build errors alike.

use std::fmt;

/// A position in a source file (1-based line and column; a tab counts as one
/// column).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A reader error: `file:line:col: message`. `statement` names the statement
/// at fault (`JOINT/3`, `UNITS`) when there is one.
#[derive(Clone, Debug, PartialEq)]
pub struct AdmError {
    pub file: String,
    pub pos: Pos,
    pub statement: Option<String>,
    pub message: String,
}

impl AdmError {
    pub fn new(
        file: &str,
        pos: Pos,
        statement: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        AdmError {
            file: file.to_string(),
            pos,
            statement,
            message: message.into(),
        }
    }
}

impl fmt::Display for AdmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.pos.line, self.pos.col, self.message
        )
    }
}

impl std::error::Error for AdmError {}
