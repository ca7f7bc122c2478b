//! mbsolve-integrate: integrators over abstract DAE problems, the Newton
//! corrector, error norms, step and order control, and the sparse linear
//! solver. Nothing here knows about mechanics.

pub mod sparse;
