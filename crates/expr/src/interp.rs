//! INTERP(x, method, id[, iord]): the iord-th derivative (0, 1 or 2) at
//! x of the time series SPLINE/id, interpolated linearly (method 1) or by
//! a cubic (method 3) (Adams Solver function reference, INTERP).
//!
//! Adams reads INTERP's data from a SPLINE with a FILE argument (a DAC or
//! RPC III time history); this solver's SPLINE holds its points in the
//! dataset, so INTERP reads a single-curve SPLINE's (x, y) points as the
//! time series. What the reference leaves open, and what we chose:
//! - method 3 is the SPLINE's own cubic (CUBSPL's not-a-knot spline, see
//!   `mbsolve_model::spline`), with the SPLINE's extrapolation rule
//!   (parabolic, or linear with LINEAR_EXTRAPOLATE), so INTERP(x, 3, id)
//!   equals CUBSPL(x, 0, id);
//! - method 1 joins the points by straight lines; beyond the data it
//!   continues the first or last segment (the linear rule the SPLINE
//!   statement documents for LINEAR_EXTRAPOLATE). Its slope jumps at the
//!   points, as the reference warns ("discontinuous in the first
//!   derivative"); at a point the slope is the segment's on the right;
//! - a family of curves (a surface) is refused: a time series is one
//!   curve. The five-argument form some texts show (a channel column
//!   before iord) has no published meaning for an in-dataset SPLINE and is
//!   refused by the argument count.
//!
//! Derivatives are exact on jets: with g = y^(iord), g' = y^(iord+1)·x'
//! and g'' = y^(iord+2)·x'² + y^(iord+1)·x''.

use crate::call_args::{checked, Arg};
use crate::eval::{eval as eval_node, Leaves};
use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, ExprError, Span};
use mbsolve_model::{Spline, SplineMethod};
use std::sync::Arc;

/// One INTERP call.
#[derive(Clone, Debug)]
pub(crate) struct InterpCall {
    pub x: Node,
    /// true: method 3 (cubic); false: method 1 (linear).
    pub cubic: bool,
    pub id: u32,
    pub iord: u8,
    pub data: Option<Arc<Spline>>,
    pub span: Span,
}

impl InterpCall {
    /// A copy with x rebuilt by `go` (VARVAL substitution).
    pub fn map(&self, go: impl Fn(&Node) -> Node, span: Span) -> Node {
        let mut c = self.clone();
        (c.x, c.span) = (go(&self.x), span);
        Node::Interp(Box::new(c))
    }
}

/// The call from its parsed arguments: method, id and iord are integer
/// constants (Adams: integer variables).
pub(crate) fn parse(
    args: Vec<Arg>,
    full: Span,
    text: &dyn Fn(Span) -> String,
) -> Result<(Node, u32), ExprError> {
    let (depth, mut it) = checked("INTERP", "x, method, id[, iord]", (3, 4), args, full)?;
    let (x, _, _) = it.next().unwrap_or((Node::Const(0.0), 0, full));
    let mut integer = |what: &str, ok: &dyn Fn(f64) -> bool| -> Result<Option<u32>, ExprError> {
        match it.next() {
            None => Ok(None),
            Some((Node::Const(v), _, _)) if v.fract() == 0.0 && ok(v) => Ok(Some(v as u32)),
            Some((_, _, s)) => Err(ExprError {
                message: format!("INTERP: {what}, found '{}'", text(s)),
                span: s,
            }),
        }
    };
    let method = integer("the method must be 1 (linear) or 3 (cubic)", &|v| {
        v == 1.0 || v == 3.0
    })?;
    let id = integer("the SPLINE id must be a positive integer", &|v| {
        (1.0..=u32::MAX as f64).contains(&v)
    })?;
    let iord = integer("the derivative order iord must be 0, 1 or 2", &|v| {
        (0.0..=2.0).contains(&v)
    })?;
    Ok((
        Node::Interp(Box::new(InterpCall {
            x,
            cubic: method == Some(3),
            id: id.unwrap_or(0),
            iord: iord.unwrap_or(0) as u8,
            data: None,
            span: full,
        })),
        depth,
    ))
}

/// Value and x-derivatives of the broken line through the points.
fn linear(s: &Spline, x: f64) -> [f64; 4] {
    let (xs, ys) = (&s.x, &s.y[0]);
    let n = xs.len();
    // segment k with xs[k] ≤ x < xs[k+1], the end segments beyond the data
    let k = xs.partition_point(|&v| v <= x).clamp(1, n - 1) - 1;
    let slope = (ys[k + 1] - ys[k]) / (xs[k + 1] - xs[k]);
    [ys[k] + slope * (x - xs[k]), slope, 0.0, 0.0]
}

pub(crate) fn eval<L: Leaves>(c: &InterpCall, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let Some(s) = &c.data else {
        return Err(EvalError {
            message: format!("INTERP: SPLINE/{} is not bound to its data", c.id),
            span: Some(c.span),
        });
    };
    let x = eval_node(&c.x, l, vars)?;
    let d = if c.cubic {
        s.curve_at(SplineMethod::Cubic, 0, x.v)
    } else {
        linear(s, x.v)
    };
    let k = c.iord as usize;
    let at = |i: usize| d.get(k + i).copied().unwrap_or(0.0);
    let j = Jet {
        v: at(0),
        d: at(1) * x.d,
        dd: at(2) * x.d * x.d + at(1) * x.dd,
    };
    if !(j.v.is_finite() && j.d.is_finite() && j.dd.is_finite()) {
        return Err(EvalError {
            message: "INTERP is not finite".into(),
            span: Some(c.span),
        });
    }
    Ok(j)
}

/// The binding check: a time series is one curve.
pub(crate) fn check(c: &InterpCall, s: &Spline) -> Result<(), ExprError> {
    if s.is_surface() {
        return Err(ExprError {
            message: format!(
                "INTERP: SPLINE/{} is a family of curves (a surface): INTERP reads one time series",
                c.id
            ),
            span: c.span,
        });
    }
    Ok(())
}
