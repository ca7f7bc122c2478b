//! mbsolve-adm: reader for Adams datasets (.adm) and command files (.acf).
pub mod error;
pub mod syntax;
pub use error::{AdmError, Pos};
