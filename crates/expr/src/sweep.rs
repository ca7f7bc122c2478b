//! SWEEP(x, a, x0, f0, x1, f1, dx): a sine of constant amplitude whose
//! frequency rises linearly from f0 at x0 to f1 at x1 (Adams Solver
//! function reference, SWEEP; the MotionSolve text agrees):
//!
//! ```text
//! SWEEP = STEP5(x, x0, 0, x0 + dx, 1) · a · sin(2π φ(x))
//! φ(x) = f0·x                                          x ≤ x0
//!      = f0·(x − x0) + (f1 − f0)/(2(x1 − x0))·(x − x0)² + f0·x0   x0 < x < x1
//!      = f1·x − (f1 − f0)/2 · (x1 + x0)                x ≥ x1
//! ```
//!
//! φ is the phase in cycles, so dφ/dx is the instantaneous frequency: f0
//! before x0, linear from f0 to f1 between, f1 after; φ and φ' are
//! continuous at x0 and x1. The published formula writes the ramp as
//! `STEP5(x, 0, 0, dx, 1)` while its text says "x0 + dx [is] the value of
//! the independent variable where the sweep function becomes fully
//! active"; the two agree when x0 = 0. We follow the text (the ramp starts
//! at x0), which is what a sweep starting late needs: with the literal
//! formula a sweep starting at x0 = 5 would be at full amplitude from
//! x = dx, five units before it starts. The argument order is Adams'
//! (x, a, x0, f0, x1, f1, dx). Evaluated on jets: the value and its
//! derivatives are exact, with respect to x and to every argument.

use crate::jet::Jet;
use crate::{EvalError, Span};
use mbsolve_model::readable;

pub(crate) fn sweep(
    a: &dyn Fn(usize) -> Result<Jet, EvalError>,
    span: Span,
) -> Result<Jet, EvalError> {
    let x = a(0)?;
    let amp = a(1)?;
    let x0 = a(2)?;
    let f0 = a(3)?;
    let x1 = a(4)?;
    let f1 = a(5)?;
    let dx = a(6)?;
    let fail = |message: String| EvalError {
        message,
        span: Some(span),
    };
    if x1.v <= x0.v {
        return Err(fail(format!(
            "SWEEP needs x0 < x1 (x0 = {}, x1 = {})",
            readable(x0.v),
            readable(x1.v)
        )));
    }
    if dx.v <= 0.0 {
        return Err(fail(format!(
            "SWEEP needs a positive ramp width dx (dx = {})",
            readable(dx.v)
        )));
    }
    let phase = if x.v <= x0.v {
        f0 * x
    } else if x.v < x1.v {
        let s = x - x0;
        let k = (f1 - f0) / ((x1 - x0) * 2.0);
        f0 * s + k * s * s + f0 * x0
    } else {
        f1 * x - (f1 - f0) * (x1 + x0) * 0.5
    };
    // STEP5(x, x0, 0, x0 + dx, 1): s³(10 − 15s + 6s²) on the ramp.
    let ramp = if x.v <= x0.v {
        Jet::constant(0.0)
    } else if x.v >= x0.v + dx.v {
        Jet::constant(1.0)
    } else {
        let s = (x - x0) / dx;
        s * s * s * (Jet::constant(10.0) - s * 15.0 + s * s * 6.0)
    };
    Ok(ramp * amp * (phase * std::f64::consts::TAU).sin())
}
