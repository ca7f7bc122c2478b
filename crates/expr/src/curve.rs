//! CURVE(alpha, iord, comp, id) (Adams Solver function reference): component
//! `comp` (1 = x, 2 = y, 3 = z) of the `iord`-th derivative (0, 1 or 2) with
//! respect to α of CURVE/id at α = alpha, evaluated on jets so the
//! expression's derivatives stay exact: with g = C_comp^(iord),
//! g′ = C^(iord+1)·α′ and g″ = C^(iord+2)·α′² + C^(iord+1)·α″.
//!
//! The parser leaves the curve unbound. [`Expr::with_curves`] binds each
//! call to a slot that the reader fills once the dataset's MATRIX and CURVE
//! statements are all read (Adams allows forward references);
//! [`Expr::with_model_curves`] binds to a finished model's curves. An
//! unfilled slot fails evaluation naming the CURVE.

use crate::eval::{eval as eval_node, Leaves};
use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, Expr, ExprError, Span};
use mbsolve_model::{CurveShape, Model};
use std::sync::{Arc, OnceLock};

/// The curve data of one CURVE id, filled when it is known.
pub type CurveSlot = Arc<OnceLock<CurveShape>>;

/// One CURVE(alpha, iord, comp, id) call.
#[derive(Clone, Debug)]
pub(crate) struct CurveCall {
    pub alpha: Node,
    pub iord: u8,
    /// 0 = x, 1 = y, 2 = z (Adams' comp − 1).
    pub comp: u8,
    pub id: u32,
    pub data: Option<CurveSlot>,
    pub span: Span,
}

impl CurveCall {
    /// A copy with alpha rebuilt by `go` (VARVAL substitution).
    pub fn map(&self, go: impl Fn(&Node) -> Node, span: Span) -> Node {
        Node::Curve(Box::new(CurveCall {
            alpha: go(&self.alpha),
            data: self.data.clone(),
            span,
            ..*self
        }))
    }
}

/// The call from its parsed arguments (node, depth, text span): iord, comp
/// and id are integer constants (Adams: integer variables).
pub(crate) fn parse(
    args: Vec<(Node, u32, Span)>,
    full: Span,
    text: impl Fn(Span) -> String,
) -> Result<(Node, u32), ExprError> {
    if args.len() != 4 {
        return Err(ExprError {
            message: format!(
                "CURVE takes 4 arguments (alpha, iord, comp, id), found {}",
                args.len()
            ),
            span: full,
        });
    }
    let depth = 1 + args.iter().map(|a| a.1).max().unwrap_or(0);
    let mut it = args.into_iter();
    let (alpha, _, _) = it.next().unwrap_or((Node::Const(0.0), 0, full));
    let mut integer = |what: &str, lo: f64, hi: f64| -> Result<u32, ExprError> {
        match it.next() {
            Some((Node::Const(v), _, _)) if v >= lo && v <= hi && v.fract() == 0.0 => Ok(v as u32),
            Some((_, _, s)) => Err(ExprError {
                message: format!("CURVE: {what}, found '{}'", text(s)),
                span: s,
            }),
            None => Err(ExprError {
                message: format!("CURVE: {what}"),
                span: full,
            }),
        }
    };
    let iord = integer("the derivative order iord must be 0, 1 or 2", 0.0, 2.0)?;
    let comp = integer("the component comp must be 1 (x), 2 (y) or 3 (z)", 1.0, 3.0)?;
    let id = integer(
        "the CURVE id must be a positive integer",
        1.0,
        u32::MAX as f64,
    )?;
    Ok((
        Node::Curve(Box::new(CurveCall {
            alpha,
            iord: iord as u8,
            comp: (comp - 1) as u8,
            id,
            data: None,
            span: full,
        })),
        depth,
    ))
}

pub(crate) fn eval<L: Leaves>(c: &CurveCall, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let Some(shape) = c.data.as_ref().and_then(|s| s.get()) else {
        return Err(EvalError {
            message: format!("CURVE: CURVE/{} is not bound to its data", c.id),
            span: Some(c.span),
        });
    };
    let a = eval_node(&c.alpha, l, vars)?;
    let d = shape.eval(a.v);
    let (k, m) = (c.iord as usize, c.comp as usize);
    let j = Jet {
        v: d[k][m],
        d: d[k + 1][m] * a.d,
        dd: d[k + 2][m] * a.d * a.d + d[k + 1][m] * a.dd,
    };
    if !(j.v.is_finite() && j.d.is_finite() && j.dd.is_finite()) {
        return Err(EvalError {
            message: "CURVE is not finite".into(),
            span: Some(c.span),
        });
    }
    Ok(j)
}

/// Fill `slot` with CURVE/`id` of `model` if it exists and its data are
/// sound (else leave it empty: the reader's reference check or the model
/// check names the problem).
pub fn fill_slot(slot: &CurveSlot, model: &Model, id: u32) {
    if let Some(shape) = model
        .curves
        .iter()
        .find(|c| c.id == id)
        .and_then(|c| CurveShape::new(c, model).ok())
    {
        let _ = slot.set(shape);
    }
}

impl Expr {
    /// Ids of the CURVEs this expression reads, with the span of each call.
    pub fn curves_read(&self) -> Vec<(u32, Span)> {
        let mut out = Vec::new();
        let mut copy = self.clone();
        copy.walk_nodes(&mut |n| {
            if let Node::Curve(c) = n {
                out.push((c.id, c.span));
            }
        });
        out
    }

    /// This expression with every CURVE() call bound to the slot `slot`
    /// gives for its id.
    pub fn with_curves(&self, slot: &mut dyn FnMut(u32) -> CurveSlot) -> Expr {
        let mut e = self.clone();
        e.walk_nodes(&mut |n| {
            if let Node::Curve(c) = n {
                c.data = Some(slot(c.id));
            }
        });
        e
    }

    /// [`Expr::with_curves`] on the curves of a finished model; an unknown
    /// id, or a curve whose data is wrong, is an error at the call.
    pub fn with_model_curves(&self, model: &Model) -> Result<Expr, ExprError> {
        for (id, span) in self.curves_read() {
            let message = match model.curves.iter().find(|c| c.id == id) {
                None => format!("CURVE: CURVE/{id} does not exist"),
                Some(c) => match CurveShape::new(c, model) {
                    Ok(_) => continue,
                    Err(m) => format!("CURVE: CURVE/{id}: {m}"),
                },
            };
            return Err(ExprError { message, span });
        }
        Ok(self.with_curves(&mut |id| {
            let slot = CurveSlot::default();
            fill_slot(&slot, model, id);
            slot
        }))
    }

    fn walk_nodes(&mut self, f: &mut dyn FnMut(&mut Node)) {
        crate::spline::walk_mut(&mut self.root, f);
        for b in &mut self.vars {
            crate::spline::walk_mut(&mut b.node, f);
        }
    }
}
