//! mbsolve-adm: reader for Adams datasets (`.adm`) and command files (`.acf`).
//!
//! Two layers: [`syntax`] parses any Adams statement into a tree with source
//! positions (it knows nothing about meaning); the builder maps the statements
//! we support onto [`mbsolve_model::Model`] and reports everything else as
//! "not supported yet" with its location — nothing is dropped silently.
//!
//! ```no_run
//! let model = mbsolve_adm::read_adm(std::path::Path::new("pendulum.adm"))?;
//! let acf = mbsolve_adm::read_acf(std::path::Path::new("pendulum.acf"))?;
//! # Ok::<(), mbsolve_adm::AdmError>(())
//! ```

mod args;
mod build;
mod commands;
pub mod corpus;
pub mod error;
pub mod syntax;
mod write;
mod write_friction;
mod write_states;

pub use build::Skipped;
pub use commands::{parse_acf, read_acf_str, resolve_redefinitions, AcfFile, AcfSyntax};
pub use error::{AdmError, Pos};
pub use write::{function_source, write_adm};

use mbsolve_model::Model;
use std::path::Path;

/// A built model plus the statements that were read but have no effect on
/// the solution (GRAPHICS, RESULTS).
#[derive(Clone, Debug)]
pub struct AdmRead {
    pub model: Model,
    pub skipped: Vec<Skipped>,
}

fn read_text(path: &Path) -> Result<String, AdmError> {
    // Latin-1 comments are common in old decks: decode lossily.
    std::fs::read(path)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| {
            AdmError::new(
                &path.display().to_string(),
                Pos { line: 0, col: 0 },
                None,
                format!("cannot read the file: {e}"),
            )
        })
}

/// Read a dataset file.
pub fn read_adm(path: &Path) -> Result<Model, AdmError> {
    read_adm_str(&read_text(path)?, &path.display().to_string())
}

/// Read dataset text; `file_name` is used in messages and `Model::sources`.
pub fn read_adm_str(text: &str, file_name: &str) -> Result<Model, AdmError> {
    Ok(read_adm_full(text, file_name)?.model)
}

/// Read dataset text and also report the statements skipped as having no
/// effect on the solution.
pub fn read_adm_full(text: &str, file_name: &str) -> Result<AdmRead, AdmError> {
    let syntax = syntax::parse_adm(text, file_name)?;
    build_statements(&syntax.statements, &syntax.title, file_name)
}

/// Build a model from statements, with the dataset's semantics and checks
/// (ids per type, references resolved after the whole input, VARIABLE
/// inlining, function compilation). Other front ends (the MotionSolve XML
/// reader) translate their elements into statements whose positions point
/// into their own file, so every message names that file and line.
pub fn build_statements(
    statements: &[syntax::Statement],
    title: &str,
    file_name: &str,
) -> Result<AdmRead, AdmError> {
    let mut b = build::Builder::new(file_name, title);
    b.predefine_splines(statements);
    b.predefine_plant_io(statements);
    for st in statements {
        b.statement(st)?;
    }
    let (model, skipped) = b.finish()?;
    Ok(AdmRead { model, skipped })
}

/// Read a dataset and report every problem at once rather than the first:
/// each statement's first error, in file order (so `check` lists every
/// user subroutine and every unsupported element of a deck), then, when
/// every statement was read, the first error of the cross-statement checks
/// (references, VARIABLE cycles), which would only repeat the statement
/// errors otherwise.
pub fn diagnose_adm(text: &str, file_name: &str) -> Result<AdmRead, Vec<AdmError>> {
    let syntax = syntax::parse_adm(text, file_name).map_err(|e| vec![e])?;
    let mut b = build::Builder::new(file_name, &syntax.title);
    b.predefine_splines(&syntax.statements);
    b.predefine_plant_io(&syntax.statements);
    let errors: Vec<AdmError> = syntax
        .statements
        .iter()
        .filter_map(|st| b.statement(st).err())
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let (model, skipped) = b.finish().map_err(|e| vec![e])?;
    Ok(AdmRead { model, skipped })
}

/// Read a dataset with the FUNCTION redefinitions of a command file
/// (VARIABLE, SFORCE, MOTION commands before the first SIMULATE) applied as
/// edits: errors in a redefinition name `acf_file` and its line.
pub fn read_adm_redefined(path: &Path, acf: &AcfFile, acf_file: &str) -> Result<Model, AdmError> {
    read_adm_str_redefined(
        &read_text(path)?,
        &path.display().to_string(),
        acf,
        acf_file,
    )
}

/// [`read_adm_redefined`] on dataset text.
pub fn read_adm_str_redefined(
    text: &str,
    file_name: &str,
    acf: &AcfFile,
    acf_file: &str,
) -> Result<Model, AdmError> {
    read_adm_str_redefined_late(text, file_name, acf, &[], acf_file)
}

/// The dataset with the command file's redefinitions before the first
/// SIMULATE applied, then `late` ones (given after a SIMULATE, checked as
/// such: `Builder::redefine_from`).
pub(crate) fn read_adm_str_redefined_late(
    text: &str,
    file_name: &str,
    acf: &AcfFile,
    late: &[syntax::Statement],
    acf_file: &str,
) -> Result<Model, AdmError> {
    let syntax = syntax::parse_adm(text, file_name)?;
    let mut b = build::Builder::new(file_name, &syntax.title);
    b.predefine_splines(&syntax.statements);
    b.predefine_plant_io(&syntax.statements);
    for st in &syntax.statements {
        b.statement(st)?;
    }
    for st in &acf.redefinitions {
        b.redefine(st, acf_file)?;
    }
    for st in late {
        b.redefine_from(st, acf_file, true)?;
    }
    Ok(b.finish()?.0)
}

/// Read a command file.
pub fn read_acf(path: &Path) -> Result<AcfFile, AdmError> {
    read_acf_str(&read_text(path)?, &path.display().to_string())
}
