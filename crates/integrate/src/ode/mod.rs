//! The ODE form's integrators (SPEC §1 "ODE").

pub mod mstiff;
pub mod vstiff;
