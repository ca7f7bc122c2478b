//! mbsolve-msxml: MotionSolve XML solver decks (`<MultiBodySystem>` with
//! `<Model>` and `<Command>`, MS-XML-GRAMMAR.md) → [`mbsolve_model::Model`]
//! and the command sequence.
//!
//! The XML is parsed by roxmltree (line and column of every element and
//! attribute). Each supported element is translated into the equivalent
//! Adams statement, with source positions pointing into the XML file, and
//! built by the Adams reader's builder (`mbsolve_adm::build_statements`):
//! one set of semantics for both languages — ids unique per element type,
//! references resolved after the whole `<Model>`, VARIABLE inlining and
//! function compilation. What the XML states differently (marker poses in
//! the global frame as direction cosines, initial angular velocities in
//! global axes, an inertia frame other than the CM marker) is converted
//! here. An element or attribute we do not support is an error naming it
//! with its line and column; `check` gets all of them at once.

mod added;
mod arrays;
mod commands;
mod contact;
mod control;
mod data;
mod depth;
mod edit;
mod elastic;
mod elements;
mod general;
mod reader;
mod sensor;
mod states;
mod vector_forces;
mod write;

pub use edit::set_attribute;
pub use reader::{Attr, XmlRead};
pub use write::write_xml;

use std::fmt;
use std::path::Path;

/// One reader error: `file:line:col: message`, the message naming the
/// element (`Constraint_Joint id=3`) at fault.
#[derive(Clone, Debug, PartialEq)]
pub struct XmlError {
    pub file: String,
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl fmt::Display for XmlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}",
            self.file, self.line, self.col, self.message
        )
    }
}

/// Every error found in one file (unsupported elements are all listed,
/// not only the first).
#[derive(Clone, Debug, PartialEq)]
pub struct XmlErrors(pub Vec<XmlError>);

impl fmt::Display for XmlErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (k, e) in self.0.iter().enumerate() {
            if k > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for XmlErrors {}

impl From<XmlError> for XmlErrors {
    fn from(e: XmlError) -> Self {
        XmlErrors(vec![e])
    }
}

/// Whether `text` is a MotionSolve XML deck: its root element is
/// `MultiBodySystem` (any case), after an optional XML declaration,
/// processing instructions and comments. Readers are chosen by content,
/// not by the file name's extension.
pub fn is_motionsolve_xml(text: &str) -> bool {
    let mut rest = text.trim_start_matches('\u{feff}').trim_start();
    loop {
        if let Some(r) = rest.strip_prefix("<?") {
            match r.find("?>") {
                Some(k) => rest = r[k + 2..].trim_start(),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix("<!--") {
            match r.find("-->") {
                Some(k) => rest = r[k + 3..].trim_start(),
                None => return false,
            }
        } else if let Some(r) = rest.strip_prefix('<') {
            let name: String = r
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            return name.eq_ignore_ascii_case("MultiBodySystem");
        } else {
            return false;
        }
    }
}

/// Read a MotionSolve XML file.
pub fn read_xml(path: &Path) -> Result<XmlRead, XmlErrors> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| XmlError {
        file: name.clone(),
        line: 0,
        col: 0,
        message: format!("cannot read the file: {e}"),
    })?;
    read_xml_str(&String::from_utf8_lossy(&bytes), &name)
}

/// Read MotionSolve XML text; `file_name` is used in messages and in
/// `Model::sources`.
pub fn read_xml_str(text: &str, file_name: &str) -> Result<XmlRead, XmlErrors> {
    check_depth(text, file_name)?;
    reader::read(text, file_name)
}

pub use depth::MAX_DEPTH;

/// Refuse a deck nested deeper than [`MAX_DEPTH`] before it is parsed
/// (the parse would recurse that deep), at the first element beyond it.
pub(crate) fn check_depth(text: &str, file: &str) -> Result<(), XmlError> {
    match depth::too_deep(text, MAX_DEPTH) {
        None => Ok(()),
        Some((line, col)) => Err(XmlError {
            file: file.to_string(),
            line,
            col,
            message: format!(
                "elements are nested more than {MAX_DEPTH} levels deep here; a MotionSolve deck nests a few levels"
            ),
        }),
    }
}
