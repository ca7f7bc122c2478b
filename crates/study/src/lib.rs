//! mbsolve-study: what a parameter study needs from the solver, as a
//! library the `mbsolve sweep` command and the Python package share.
//!
//! A study ships *text*: the dataset (`.adm`), the optional command file
//! (`.acf`) and a list of [`Change`]s. [`changes`] applies the changes to
//! the text (so the ordinary reader recompiles and validates everything,
//! with positions in its messages); [`run`] executes the command sequence
//! into memory; [`sweep`] expands a parameter table into variants.

pub mod changes;
pub mod model_view;
pub mod run;
pub mod sweep;
mod xml;

pub use changes::{apply, Change, Source};
pub use run::{load, run, Loaded, RunOutcome, StudyError};
pub use sweep::{variants, Mode, Variants, MAX_VARIANTS};
