//! IMPACT() and BISTOP(): Adams' one-sided and two-sided penalty laws, on
//! jets so that their derivatives are exact like every other function's.
//!
//! Adams' definitions (Adams/Solver function reference, IMPACT and BISTOP):
//!
//! ```text
//! IMPACT(x, ẋ, x1, k, e, cmax, d)
//!   x ≥ x1 : 0
//!   x < x1 : max(0, k·(x1 − x)^e − STEP(x, x1 − d, cmax, x1, 0)·ẋ)
//!
//! BISTOP(x, ẋ, x1, x2, k, e, cmax, d)
//!   x < x1      : max(0, k·(x1 − x)^e − STEP(x, x1 − d, cmax, x1, 0)·ẋ)
//!   x1 ≤ x ≤ x2 : 0
//!   x > x2      : min(0, −k·(x − x2)^e − STEP(x, x2, 0, x2 + d, cmax)·ẋ)
//! ```
//!
//! The damping coefficient rises from 0 at first touch to `cmax` at a
//! penetration `d` along the cubic STEP, so the force is continuous at
//! contact; the max/min keeps the damper from pulling the bodies together.
//! At zero penetration the force is 0 for every exponent; an exponent below
//! 1 (a softening law) is allowed and has an unbounded slope only at the
//! touching point itself, where the law is not evaluated off the free side.

use crate::jet::Jet;
use crate::{EvalError, Span};
use mbsolve_model::readable;

fn fail(message: String, span: Span) -> EvalError {
    EvalError {
        message,
        span: Some(span),
    }
}

/// The parameters shared by both laws, checked as Adams requires:
/// k ≥ 0, e > 0, cmax ≥ 0, d > 0.
struct Penalty {
    k: Jet,
    e: Jet,
    cmax: Jet,
    d: Jet,
}

impl Penalty {
    fn check(name: &str, k: Jet, e: Jet, cmax: Jet, d: Jet, span: Span) -> Result<Self, EvalError> {
        let bad = |what: &str, v: f64| {
            Err(fail(
                format!("{name} needs {what} (got {})", readable(v)),
                span,
            ))
        };
        if k.v < 0.0 {
            return bad("a stiffness k ≥ 0", k.v);
        }
        if e.v <= 0.0 {
            return bad("an exponent e > 0", e.v);
        }
        if cmax.v < 0.0 {
            return bad("a damping cmax ≥ 0", cmax.v);
        }
        if d.v <= 0.0 {
            return bad("a penetration depth d > 0", d.v);
        }
        Ok(Penalty { k, e, cmax, d })
    }

    /// k·δ^e for δ > 0 (δ^e as exp(e ln δ) when the exponent itself varies).
    fn spring(&self, depth: Jet) -> Jet {
        let power = if self.e.is_constant() {
            depth.powf(self.e.v)
        } else {
            (self.e * depth.ln()).exp()
        };
        self.k * power
    }

    /// The damping coefficient at penetration `depth` > 0: Adams' cubic
    /// STEP from 0 at δ = 0 to cmax at δ = d (the same curve whichever side
    /// the stop is on, since both STEPs there are written in δ).
    fn damping(&self, depth: Jet) -> Jet {
        if depth.v >= self.d.v {
            return self.cmax;
        }
        let s = depth / self.d;
        self.cmax * s * s * (Jet::constant(3.0) - s * 2.0)
    }

    /// The one-sided law in penetration δ > 0 and its rate δ̇ (δ̇ > 0 while
    /// closing): max(0, k·δ^e + c(δ)·δ̇).
    fn push(&self, depth: Jet, depth_rate: Jet) -> Jet {
        let f = self.spring(depth) + self.damping(depth) * depth_rate;
        if f.v > 0.0 {
            f
        } else {
            Jet::constant(0.0)
        }
    }
}

/// The first `N` arguments, evaluated by `arg`.
fn args<const N: usize>(
    arg: &impl Fn(usize) -> Result<Jet, EvalError>,
) -> Result<[Jet; N], EvalError> {
    let mut out = [Jet::constant(0.0); N];
    for (k, slot) in out.iter_mut().enumerate() {
        *slot = arg(k)?;
    }
    Ok(out)
}

/// IMPACT(x, ẋ, x1, k, e, cmax, d); `arg(n)` evaluates argument n.
pub(crate) fn impact(
    arg: &impl Fn(usize) -> Result<Jet, EvalError>,
    span: Span,
) -> Result<Jet, EvalError> {
    let [x, xdot, x1, k, e, cmax, d] = args(arg)?;
    let law = Penalty::check("IMPACT", k, e, cmax, d, span)?;
    if x.v >= x1.v {
        return Ok(Jet::constant(0.0));
    }
    // δ = x1 − x, δ̇ = −ẋ
    Ok(law.push(x1 - x, -xdot))
}

/// BISTOP(x, ẋ, x1, x2, k, e, cmax, d); `arg(n)` evaluates argument n.
pub(crate) fn bistop(
    arg: &impl Fn(usize) -> Result<Jet, EvalError>,
    span: Span,
) -> Result<Jet, EvalError> {
    let [x, xdot, x1, x2, k, e, cmax, d] = args(arg)?;
    let law = Penalty::check("BISTOP", k, e, cmax, d, span)?;
    if x1.v >= x2.v {
        return Err(fail(
            format!(
                "BISTOP needs x1 < x2 (x1 = {}, x2 = {})",
                readable(x1.v),
                readable(x2.v)
            ),
            span,
        ));
    }
    Ok(if x.v < x1.v {
        law.push(x1 - x, -xdot)
    } else if x.v > x2.v {
        // the upper stop pushes towards −x: δ = x − x2, δ̇ = ẋ
        -law.push(x - x2, xdot)
    } else {
        Jet::constant(0.0)
    })
}
