//! mbsolve-mech: rigid-body mechanics in Cartesian coordinates with Euler
//! parameters (position r and p = (e0,e1,e2,e3) per part, q̇ = u, the
//! normalization pᵀp = 1 as a constraint). Every element provides its residual
//! and exact partial derivatives; the caller scatters them into a sparse
//! matrix through [`Sink`].

// Index loops over coupled arrays (q, u, λ, residual rows) read like the
// equations they implement.
#![allow(clippy::needless_range_loop)]

pub mod activation;
pub mod constraints;
pub mod contact;
pub mod contact_fn;
mod coupler;
mod cvcv;
pub mod dense;
mod diagnose;
pub mod elastic;
mod euler_measures;
pub mod forces;
mod frame_measures;
pub mod friction;
pub mod gcon_multi;
pub mod gcon_velocity;
pub mod local;
mod multi_law;
mod orient_measure;
pub mod orient_systems;
pub mod point_mass;
mod ptcv;
pub mod reaction_fn;
pub mod rotation;
mod scratch;
pub mod states;
pub mod system;

pub use system::{
    Body, Equation, GeneralMeasure, MarkerFrame, MechData, MechModel, Primitive, Sink, System,
    PARALLEL_MIN_BODIES,
};
