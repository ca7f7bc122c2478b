//! mbsolve-expr: the Adams function-expression language.
//!
//! [`Expr::parse`] turns text such as `-100*(DM(204,205)-2) - VR(204,205)`
//! into a compiled tree once; evaluation then walks the tree on second-order
//! forward-mode numbers, so every evaluation can return the value together
//! with exact derivatives with respect to TIME and to each *measure* the
//! expression reads (DM, VR, JOINT(…), VARVAL(…), …).
//!
//! Measures are supplied by the caller, either as a slice in
//! [`Expr::measures`] order or through an [`EvalContext`]. The adapters
//! [`ExprTimeFunction`] and [`ExprStateFunction`] implement the model's
//! `TimeFunction` (MOTION) and `StateFunction` (SFORCE) traits.
//!
//! Nothing here panics on bad input: parse problems are [`ExprError`]s with a
//! byte span, evaluation problems (division by zero, SQRT of a negative
//! number, …) are [`EvalError`]s.

mod adapt;
mod call_args;
mod contact_fn;
mod contact_laws;
mod curve;
mod delay;
mod eval;
mod implicit;
mod incang;
mod interp;
mod invpsd;
mod jet;
mod mode;
mod names;
mod orient_fn;
mod parse;
mod senval;
mod solved;
mod spline;
mod subst;
mod sweep;

pub use adapt::{ExprConstraintFunction, ExprStateFunction, ExprTimeFunction};
pub use curve::{fill_slot as fill_curve_slot, CurveSlot};
pub use delay::HISTORY_CAPACITY as DELAY_HISTORY_CAPACITY;
pub use implicit::{implicit_variables, with_unknowns};
pub use names::{ArgRole, Builtin, MeasureCall, MeasureKind};
pub use orient_fn::orient_system;
pub use solved::{is_solved_kind, solved_call};

use eval::Leaves;
use jet::Jet;
use std::fmt;

/// Byte range in the expression text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// A problem in the expression text (or in converting it to a model
/// function), with the byte range of the offending text.
#[derive(Clone, Debug, PartialEq)]
pub struct ExprError {
    pub message: String,
    pub span: Span,
}

impl fmt::Display for ExprError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for ExprError {}

/// A problem found while evaluating (e.g. "division by zero"), with the span
/// of the operation when known.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError {
    pub message: String,
    pub span: Option<Span>,
}

impl EvalError {
    pub fn new(message: impl Into<String>) -> Self {
        EvalError {
            message: message.into(),
            span: None,
        }
    }
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for EvalError {}

/// The caller's side of an evaluation: time and the value of any measure.
pub trait EvalContext {
    fn time(&self) -> f64;
    fn measure(&self, m: &MeasureCall) -> Result<f64, EvalError>;
}

/// A compiled function expression.
#[derive(Clone, Debug)]
pub struct Expr {
    source: String,
    root: parse::Node,
    /// Substituted VARIABLEs, shared by every VARVAL that reads them
    /// (empty for a parsed expression; see [`Expr::with_variables`]).
    vars: Vec<eval::VarBody>,
    measures: Vec<MeasureCall>,
    measure_spans: Vec<Span>,
    reads_time: bool,
}

/// Which input direction carries the unit seed.
#[derive(Clone, Copy, PartialEq)]
enum Seed {
    None,
    Time,
    Slot(usize),
}

struct SliceLeaves<'a> {
    t: f64,
    m: &'a [f64],
    seed: Seed,
    /// Direction (dt, dm) used instead of `seed` when present.
    dir: Option<(f64, &'a [f64])>,
}

impl Leaves for SliceLeaves<'_> {
    fn time(&self) -> Jet {
        if let Some((dt, _)) = self.dir {
            Jet {
                v: self.t,
                d: dt,
                dd: 0.0,
            }
        } else if self.seed == Seed::Time {
            Jet::variable(self.t)
        } else {
            Jet::constant(self.t)
        }
    }
    fn measure(&self, slot: usize) -> Result<Jet, EvalError> {
        let v = *self
            .m
            .get(slot)
            .ok_or_else(|| EvalError::new("measure value missing"))?;
        if let Some((_, dm)) = self.dir {
            return Ok(Jet {
                v,
                d: dm.get(slot).copied().unwrap_or(0.0),
                dd: 0.0,
            });
        }
        Ok(if self.seed == Seed::Slot(slot) {
            Jet::variable(v)
        } else {
            Jet::constant(v)
        })
    }
}

struct CtxLeaves<'a> {
    ctx: &'a dyn EvalContext,
    measures: &'a [MeasureCall],
}

impl Leaves for CtxLeaves<'_> {
    fn time(&self) -> Jet {
        Jet::constant(self.ctx.time())
    }
    fn measure(&self, slot: usize) -> Result<Jet, EvalError> {
        let call = self
            .measures
            .get(slot)
            .ok_or_else(|| EvalError::new("measure value missing"))?;
        let v = self.ctx.measure(call)?;
        if !v.is_finite() {
            return Err(EvalError::new(format!("{call} is not finite ({v})")));
        }
        Ok(Jet::constant(v))
    }
}

impl Expr {
    /// Parse and compile. Names are case-insensitive; numbers may carry a
    /// `D` suffix (degrees).
    pub fn parse(source: &str) -> Result<Expr, ExprError> {
        let p = parse::parse(source)?;
        Ok(Expr {
            source: source.to_string(),
            root: p.root,
            vars: Vec::new(),
            measures: p.measures,
            measure_spans: p.measure_spans,
            reads_time: p.reads_time,
        })
    }

    /// The expression text as given.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The distinct measures the expression reads, in slot order.
    pub fn measures(&self) -> &[MeasureCall] {
        &self.measures
    }

    /// Byte span of the first use of measure `slot`.
    pub fn measure_span(&self, slot: usize) -> Span {
        self.measure_spans.get(slot).copied().unwrap_or_default()
    }

    /// Whether TIME appears.
    pub fn reads_time(&self) -> bool {
        self.reads_time
    }

    fn check_len(&self, m: &[f64]) -> Result<(), EvalError> {
        if m.len() != self.measures.len() {
            return Err(EvalError::new(format!(
                "expected {} measure values, got {}",
                self.measures.len(),
                m.len()
            )));
        }
        Ok(())
    }

    fn run(&self, t: f64, m: &[f64], seed: Seed) -> Result<Jet, EvalError> {
        eval::eval_program(
            &self.root,
            &self.vars,
            &SliceLeaves {
                t,
                m,
                seed,
                dir: None,
            },
        )
    }

    /// Value with the first and second derivative along the direction
    /// (dt, dm) in (TIME, measures) space: f, ∇f·v and vᵀ∇²f v.
    pub fn eval_directional(
        &self,
        t: f64,
        m: &[f64],
        dt: f64,
        dm: &[f64],
    ) -> Result<[f64; 3], EvalError> {
        self.check_len(m)?;
        self.check_len(dm)?;
        let leaves = SliceLeaves {
            t,
            m,
            seed: Seed::None,
            dir: Some((dt, dm)),
        };
        let j = eval::eval_program(&self.root, &self.vars, &leaves)?;
        Ok([j.v, j.d, j.dd])
    }

    /// Value, gradient and Hessian with respect to (m₀ … m_{k−1}, TIME):
    /// `grad` has k + 1 entries, `hess` (k + 1)² row-major. Second
    /// derivatives come from directional jets by polarization.
    pub fn eval_hessian(
        &self,
        t: f64,
        m: &[f64],
        grad: &mut [f64],
        hess: &mut [f64],
    ) -> Result<f64, EvalError> {
        let k = self.measures.len();
        self.check_len(m)?;
        let n = k + 1;
        if grad.len() != n || hess.len() != n * n {
            return Err(EvalError::new(
                "gradient or Hessian buffer has the wrong size",
            ));
        }
        // The direction on the stack for the usual handful of measures: a
        // GCON's residual evaluation must not allocate (issue 13).
        const ON_STACK: usize = 16;
        let mut stack = [0.0; ON_STACK];
        let mut heap = Vec::new();
        let dir: &mut [f64] = if k <= ON_STACK {
            &mut stack[..k]
        } else {
            heap.resize(k, 0.0);
            &mut heap
        };
        let mut along = |a: Option<usize>, b: Option<usize>| -> Result<[f64; 3], EvalError> {
            dir.iter_mut().for_each(|d| *d = 0.0);
            let mut dt = 0.0;
            for x in [a, b].into_iter().flatten() {
                if x == k {
                    dt += 1.0;
                } else {
                    dir[x] += 1.0;
                }
            }
            self.eval_directional(t, m, dt, dir)
        };
        let mut value = 0.0;
        for i in 0..n {
            let [v, d, dd] = along(Some(i), None)?;
            value = v;
            grad[i] = d;
            hess[i * n + i] = dd;
        }
        for i in 0..n {
            for j in i + 1..n {
                let dd = along(Some(i), Some(j))?[2];
                let h = 0.5 * (dd - hess[i * n + i] - hess[j * n + j]);
                hess[i * n + j] = h;
                hess[j * n + i] = h;
            }
        }
        Ok(value)
    }

    /// Value at time `t` with measure values `m` (in [`Expr::measures`] order).
    pub fn value(&self, t: f64, m: &[f64]) -> Result<f64, EvalError> {
        self.check_len(m)?;
        Ok(self.run(t, m, Seed::None)?.v)
    }

    /// Value and ∂f/∂t; writes ∂f/∂mᵢ into `dm`.
    pub fn eval_with_gradient(
        &self,
        t: f64,
        m: &[f64],
        dm: &mut [f64],
    ) -> Result<(f64, f64), EvalError> {
        self.check_len(m)?;
        self.check_len(dm)?;
        let first = self.run(
            t,
            m,
            if self.reads_time {
                Seed::Time
            } else {
                Seed::None
            },
        )?;
        for (slot, d) in dm.iter_mut().enumerate() {
            *d = self.run(t, m, Seed::Slot(slot))?.d;
        }
        Ok((first.v, first.d))
    }

    /// Value, first and second derivative with respect to TIME, for an
    /// expression that reads no measures (MOTION).
    pub fn eval_time(&self, t: f64) -> Result<[f64; 3], EvalError> {
        self.check_len(&[])?;
        let j = self.run(t, &[], Seed::Time)?;
        Ok([j.v, j.d, j.dd])
    }

    /// Value with time and measures from a caller-supplied context (any
    /// measure kind, including element results and VARVAL).
    pub fn eval_in(&self, ctx: &dyn EvalContext) -> Result<f64, EvalError> {
        let leaves = CtxLeaves {
            ctx,
            measures: &self.measures,
        };
        Ok(eval::eval_program(&self.root, &self.vars, &leaves)?.v)
    }
}

#[cfg(test)]
mod tests;
