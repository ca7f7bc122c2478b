//! mbsolve-solver: formulations that turn the mechanics into integrator
//! problems, and the analyses (initial conditions, kinematic, dynamic).

// Index loops over coupled arrays (q, u, λ, residual rows) read like the
// equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod analysis;
pub mod analysis_mode;
pub mod commands;
pub mod contact_result;
pub mod contact_settings;
mod discrete;
mod element_results;
pub mod event_log;
pub mod formulation;
mod friction_ic;
mod friction_result;
pub mod functions;
mod ic_rank;
mod implicit_vars;
mod joint_ic;
pub mod linear;
mod massless;
pub mod models;
pub mod output;
pub mod partition;
mod reaction_fn;
pub mod redundancy;
pub mod requests;
pub mod rti_report;
pub mod second_order;
mod sensors;
pub mod settings;
pub mod si1;
pub mod si2;
pub mod statics;
pub mod user_states;

pub use analysis::{Frame, Simulation, SolverError};
pub use output::{FrameOutput, FrameSink, MAX_OUTPUT_STEPS};
pub use statics::{Compliance, StaticMethod, StaticReport, StaticSettings};
