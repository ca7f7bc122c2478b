//! mbsolve-integrate: integrators over abstract DAE problems, the Newton
//! corrector, error norms, step and order control, and the sparse linear
//! solver. Nothing here knows about mechanics.

// Index loops over coupled arrays (q, u, λ, residual rows) read like the
// equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod events;
pub mod gstiff;
pub mod hht;
mod newton;
pub mod problem;
pub mod rti;
pub mod sparse;
pub mod wstiff;

pub use events::{Event, Statistics};
pub use gstiff::{BdfParams, Gstiff, IntegrationError, StopKind};
pub use hht::{FixedStep, Hht, HhtParams, SecondOrderProblem};
pub use problem::{DaeIntegrator, DaeProblem, ProblemError, VarClass};
pub use rti::{RtiMeter, RtiSummary};
pub use sparse::{SlotAssembler, SparseLu};
pub use wstiff::Wstiff;
