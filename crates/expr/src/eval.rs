//! Tree evaluation on jets. Every domain problem is an [`EvalError`], never a
//! panic or a silent NaN.

use crate::jet::Jet;
use crate::names::Builtin;
use crate::parse::{BinOp, Node};
use crate::{EvalError, Span};
use mbsolve_model::readable;

/// Supplies time and measure values (as jets, so the caller chooses which
/// direction is seeded).
pub(crate) trait Leaves {
    fn time(&self) -> Jet;
    fn measure(&self, slot: usize) -> Result<Jet, EvalError>;
}

fn fail(message: impl Into<String>, span: Span) -> EvalError {
    EvalError {
        message: message.into(),
        span: Some(span),
    }
}

fn finite(j: Jet, what: &str, span: Span) -> Result<Jet, EvalError> {
    if j.v.is_finite() {
        Ok(j)
    } else {
        Err(fail(
            format!("{what} is not finite ({})", readable(j.v)),
            span,
        ))
    }
}

/// A substituted VARIABLE shared by every VARVAL that reads it: its tree
/// (reading earlier bodies through [`Node::Var`]) and its id for messages.
#[derive(Clone, Debug)]
pub(crate) struct VarBody {
    pub id: u32,
    pub node: Node,
}

/// Evaluate `root` after each shared VARIABLE body once, in order (each
/// reads only earlier ones), so a VARIABLE read n times costs one
/// evaluation, and the jets carry exact derivatives through it. An error
/// inside a body names the VARIABLE.
pub(crate) fn eval_program<L: Leaves>(
    root: &Node,
    bodies: &[VarBody],
    l: &L,
) -> Result<Jet, EvalError> {
    let mut vals = Vec::with_capacity(bodies.len());
    for b in bodies {
        let v = eval(&b.node, l, &vals).map_err(|e| EvalError {
            message: format!("in VARIABLE/{}: {}", b.id, e.message),
            span: e.span,
        })?;
        vals.push(v);
    }
    eval(root, l, &vals)
}

fn apply(op: BinOp, x: Jet, y: Jet, span: Span) -> Result<Jet, EvalError> {
    Ok(match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => {
            if y.v == 0.0 {
                return Err(fail("division by zero", span));
            }
            finite(x / y, "quotient", span)?
        }
        BinOp::Pow => power(x, y, span)?,
    })
}

pub(crate) fn eval<L: Leaves>(node: &Node, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let eval = |n: &Node, l: &L| eval(n, l, vars);
    Ok(match node {
        Node::Const(v) => Jet::constant(*v),
        Node::Time => l.time(),
        Node::Measure(i) => l.measure(*i)?,
        Node::Var(k) => *vars
            .get(*k)
            .ok_or_else(|| EvalError::new("VARIABLE value missing"))?,
        Node::Neg(a) => -eval(a, l)?,
        Node::Bin { op, a, b, span } => {
            let x = eval(a, l)?;
            let y = eval(b, l)?;
            apply(*op, x, y, *span)?
        }
        Node::Chain { first, rest } => {
            let mut acc = eval(first, l)?;
            for (op, n, span) in rest {
                acc = apply(*op, acc, eval(n, l)?, *span)?;
            }
            // a sum of finite terms can still overflow (1e308 + 1e308)
            if let Some((_, _, span)) = rest.last() {
                acc = finite(acc, "result", *span)?;
            }
            acc
        }
        Node::If(n) => {
            let c = eval(&n[0], l)?;
            let branch = if c.v < 0.0 {
                1
            } else if c.v == 0.0 {
                2
            } else {
                3
            };
            eval(&n[branch], l)?
        }
        Node::Call { f, args, span } => call(*f, args, l, vars, *span)?,
        Node::Spline(c) => crate::spline::eval(c, l, vars)?,
        Node::Curve(c) => crate::curve::eval(c, l, vars)?,
        Node::Senval(c) => crate::senval::eval(c)?,
        Node::Mode(c) => crate::mode::eval(c)?,
        Node::Interp(c) => crate::interp::eval(c, l, vars)?,
        Node::Invpsd(c) => crate::invpsd::eval(c, l, vars)?,
        Node::Delay(c) => crate::delay::eval(c, l, vars)?,
        Node::Incang(c) => crate::incang::eval(c, l, vars)?,
    })
}

/// atan2(y, x) on jets; (x, y) ≠ (0, 0).
pub(crate) fn atan2(y: Jet, x: Jet) -> Jet {
    // θ' = N/D with N = x·y' − y·x', D = x² + y²;
    // θ'' = (N' − θ'·D')/D with N' = x·y'' − y·x'', D' = 2(x·x' + y·y').
    let n = x.v * y.d - y.v * x.d;
    let n1 = x.v * y.dd - y.v * x.dd;
    let den = x.v * x.v + y.v * y.v;
    let den1 = 2.0 * (x.v * x.d + y.v * y.d);
    let d = n / den;
    Jet {
        v: y.v.atan2(x.v),
        d,
        dd: (n1 - d * den1) / den,
    }
}

fn power(x: Jet, y: Jet, span: Span) -> Result<Jet, EvalError> {
    let r = if y.is_constant() {
        let p = y.v;
        if x.v < 0.0 && p.fract() != 0.0 {
            return Err(fail(
                format!(
                    "negative number ({}) raised to a non-integer power ({})",
                    readable(x.v),
                    readable(p)
                ),
                span,
            ));
        }
        if x.v == 0.0 && p < 0.0 {
            return Err(fail("zero raised to a negative power", span));
        }
        x.powf(p)
    } else {
        // x**y = exp(y ln x) when the exponent varies.
        if x.v <= 0.0 {
            if x.v == 0.0 && y.v > 0.0 && x.is_constant() {
                return Ok(Jet::constant(0.0));
            }
            return Err(fail(
                format!(
                    "non-positive number ({}) raised to a variable power",
                    readable(x.v)
                ),
                span,
            ));
        }
        (y * x.ln()).exp()
    };
    finite(r, "power", span)
}

fn call<L: Leaves>(
    f: Builtin,
    args: &[Node],
    l: &L,
    vars: &[Jet],
    span: Span,
) -> Result<Jet, EvalError> {
    let a = |k: usize| -> Result<Jet, EvalError> {
        match args.get(k) {
            Some(n) => eval(n, l, vars),
            None => Err(fail("missing argument", span)),
        }
    };
    let name = f.name();
    let r = match f {
        Builtin::Sin => a(0)?.sin(),
        Builtin::Cos => a(0)?.cos(),
        Builtin::Tan => a(0)?.tan(),
        Builtin::Asin | Builtin::Acos => {
            let x = a(0)?;
            if !(-1.0..=1.0).contains(&x.v) {
                return Err(fail(
                    format!("{name} argument outside [-1, 1] ({})", readable(x.v)),
                    span,
                ));
            }
            if f == Builtin::Asin {
                x.asin()
            } else {
                x.acos()
            }
        }
        Builtin::Atan => a(0)?.atan(),
        Builtin::Atan2 => {
            let y = a(0)?;
            let x = a(1)?;
            if x.v == 0.0 && y.v == 0.0 {
                return Err(fail("ATAN2(0, 0) is undefined", span));
            }
            atan2(y, x)
        }
        Builtin::Sinh => a(0)?.sinh(),
        Builtin::Cosh => a(0)?.cosh(),
        Builtin::Tanh => a(0)?.tanh(),
        Builtin::Exp => a(0)?.exp(),
        Builtin::Log | Builtin::Log10 => {
            let x = a(0)?;
            if x.v <= 0.0 {
                return Err(fail(
                    format!("{name} of a non-positive number ({})", readable(x.v)),
                    span,
                ));
            }
            if f == Builtin::Log {
                x.ln()
            } else {
                x.ln().scale(1.0 / std::f64::consts::LN_10)
            }
        }
        Builtin::Sqrt => {
            let x = a(0)?;
            if x.v < 0.0 {
                return Err(fail(
                    format!("SQRT of a negative number ({})", readable(x.v)),
                    span,
                ));
            }
            x.sqrt()
        }
        Builtin::Abs => {
            let x = a(0)?;
            if x.v < 0.0 {
                -x
            } else {
                x
            }
        }
        Builtin::Sign => {
            // Fortran SIGN(a, b) = |a| with the sign of b.
            let x = a(0)?;
            let s = a(1)?;
            let ax = if x.v < 0.0 { -x } else { x };
            if s.v >= 0.0 {
                ax
            } else {
                -ax
            }
        }
        Builtin::Min | Builtin::Max => {
            let x = a(0)?;
            let y = a(1)?;
            let take_x = if f == Builtin::Min {
                x.v <= y.v
            } else {
                x.v >= y.v
            };
            if take_x {
                x
            } else {
                y
            }
        }
        Builtin::Mod => {
            // Fortran MOD(a, b) = a − AINT(a/b)·b
            let x = a(0)?;
            let y = a(1)?;
            if y.v == 0.0 {
                return Err(fail("MOD by zero", span));
            }
            let k = (x.v / y.v).trunc();
            x - y * k
        }
        Builtin::Dim => {
            let x = a(0)?;
            let y = a(1)?;
            if x.v > y.v {
                x - y
            } else {
                Jet::constant(0.0)
            }
        }
        Builtin::Aint => Jet::flat(a(0)?.v.trunc()),
        Builtin::Anint => Jet::flat(a(0)?.v.round()),
        Builtin::Step | Builtin::Step5 | Builtin::Havsin => {
            let x = a(0)?;
            let x0 = a(1)?;
            let h0 = a(2)?;
            let x1 = a(3)?;
            let h1 = a(4)?;
            if x1.v <= x0.v {
                return Err(fail(
                    format!(
                        "{name} needs x0 < x1 (x0 = {}, x1 = {})",
                        readable(x0.v),
                        readable(x1.v)
                    ),
                    span,
                ));
            }
            if x.v <= x0.v {
                h0
            } else if x.v >= x1.v {
                h1
            } else {
                let s = (x - x0) / (x1 - x0);
                let shape = match f {
                    // s²(3 − 2s)
                    Builtin::Step => s * s * (Jet::constant(3.0) - s * 2.0),
                    // s³(10 − 15s + 6s²)
                    Builtin::Step5 => s * s * s * (Jet::constant(10.0) - s * 15.0 + s * s * 6.0),
                    // (1 − cos(π s))/2
                    _ => (Jet::constant(1.0) - (s * std::f64::consts::PI).cos()) * 0.5,
                };
                h0 + (h1 - h0) * shape
            }
        }
        Builtin::Shf => {
            // a·sin(ω(x − x0) − φ) + b
            let x = a(0)?;
            let x0 = a(1)?;
            let amp = a(2)?;
            let w = a(3)?;
            let phi = a(4)?;
            let b = a(5)?;
            amp * (w * (x - x0) - phi).sin() + b
        }
        Builtin::Poly | Builtin::Cheby => {
            let u = a(0)? - a(1)?;
            let mut sum = Jet::constant(0.0);
            if f == Builtin::Poly {
                // Horner from the highest coefficient
                for k in (2..args.len()).rev() {
                    sum = sum * u + a(k)?;
                }
            } else {
                // T0 = 1, T1 = u, Tj = 2u·T(j−1) − T(j−2)
                let mut t_prev = Jet::constant(0.0);
                let mut t = Jet::constant(1.0);
                for k in 2..args.len() {
                    sum = sum + a(k)? * t;
                    let next = if k == 2 { u } else { u * t * 2.0 - t_prev };
                    t_prev = t;
                    t = next;
                }
            }
            sum
        }
        Builtin::Forcos | Builtin::Forsin => {
            // a0 + Σ aj·cos(j ω (x − x0))   (sin for FORSIN)
            let u = a(0)? - a(1)?;
            let w = a(2)?;
            let mut sum = a(3)?;
            for k in 4..args.len() {
                let arg = w * u * ((k - 3) as f64);
                let basis = if f == Builtin::Forcos {
                    arg.cos()
                } else {
                    arg.sin()
                };
                sum = sum + a(k)? * basis;
            }
            sum
        }
        Builtin::Impact => crate::contact_laws::impact(&a, span)?,
        Builtin::Bistop => crate::contact_laws::bistop(&a, span)?,
        Builtin::Sweep => crate::sweep::sweep(&a, span)?,
    };
    finite(r, name, span)
}
