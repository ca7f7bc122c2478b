//! mbsolve-integrate: integrators over abstract DAE problems, the Newton
//! corrector, error norms, step and order control, and the sparse linear
//! solver. Nothing here knows about mechanics.
//!
//! Layout: `stepper` is the one step loop every method plugs into
//! (`Method`); `control` names every step-control and failure-policy
//! constant; `newton` is the one corrector; `nordsieck` and `divdiff` are
//! the BDF histories; `gstiff`, `wstiff`, `hastiff` (WSTIFF's history
//! with a corrector on y′) and `hht` are the methods.

// Index loops over coupled arrays (q, u, λ, residual rows) read like the
// equations they implement.
#![allow(clippy::needless_range_loop)]

mod bdf;
pub mod control;
mod divdiff;
pub mod error;
pub mod events;
pub mod gstiff;
pub mod hastiff;
pub mod hht;
mod newton;
mod nordsieck;
pub mod ode;
pub mod params;
pub mod problem;
pub mod rti;
pub mod sparse;
pub mod stepper;
pub mod wstiff;

pub use error::{IntegrationError, StopKind};
pub use events::{Event, Statistics};
pub use gstiff::Gstiff;
pub use hastiff::Hastiff;
pub use hht::Hht;
pub use params::{BdfParams, FixedStep, HhtParams, OdeParams};
pub use problem::{
    AfterStep, DaeIntegrator, DaeProblem, OdeProblem, ProblemError, SecondOrderProblem, VarClass,
};
pub use rti::{RtiMeter, RtiSummary};
pub use sparse::{SlotAssembler, SparseLu};
pub use stepper::Stepper;
pub use wstiff::Wstiff;
