//! mbsolve-solver: formulations that turn the mechanics into integrator
//! problems, and the analyses (initial conditions, kinematic, dynamic).

pub mod analysis;
pub mod formulation;
pub mod linear;
pub mod models;
pub mod redundancy;
pub mod settings;

pub use analysis::{Frame, Simulation, SolverError};
