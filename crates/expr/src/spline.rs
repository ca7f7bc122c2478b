//! CUBSPL(x, z, id[, iord]) and AKISPL(x, z, id[, iord]): the SPLINE/id
//! interpolants of `mbsolve_model::Spline`, evaluated on jets so the
//! expression's derivatives stay exact (the chain rule through the
//! spline's own x and z derivatives).
//!
//! The parser leaves the spline unbound; [`Expr::with_splines`] binds every
//! call to its data once the dataset's SPLINE statements are read (Adams
//! allows forward references). An unbound call fails evaluation naming the
//! SPLINE.

use crate::eval::{eval as eval_node, Leaves};
use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, Expr, ExprError, Span};
use mbsolve_model::{Spline, SplineMethod};
use std::sync::Arc;

/// One CUBSPL/AKISPL call.
#[derive(Clone, Debug)]
pub(crate) struct SplineCall {
    pub method: SplineMethod,
    pub x: Node,
    pub z: Node,
    pub id: u32,
    /// Derivative order along x (0, 1 or 2).
    pub iord: u8,
    /// Whether iord was written (Adams forbids it on a surface).
    pub iord_given: bool,
    pub data: Option<Arc<Spline>>,
    pub span: Span,
}

impl SplineCall {
    pub fn name(&self) -> &'static str {
        match self.method {
            SplineMethod::Cubic => "CUBSPL",
            SplineMethod::Akima => "AKISPL",
        }
    }

    /// A copy with x and z rebuilt by `go` (VARVAL substitution).
    pub fn map(&self, go: impl Fn(&Node) -> Node, span: Span) -> Node {
        Node::Spline(Box::new(SplineCall {
            x: go(&self.x),
            z: go(&self.z),
            data: self.data.clone(),
            span,
            ..*self
        }))
    }
}

/// `CUBSPL` or `AKISPL`, by name.
pub(crate) fn lookup(name: &str) -> Option<SplineMethod> {
    match name {
        "CUBSPL" => Some(SplineMethod::Cubic),
        "AKISPL" => Some(SplineMethod::Akima),
        _ => None,
    }
}

/// The call's jet: g = ∂^iord f/∂x^iord at (x, z), with g' and g'' by the
/// chain rule from the spline's partial derivatives (f is cubic in x on each
/// piece and linear in z, so ∂⁴/∂x⁴ and ∂²/∂z² vanish).
pub(crate) fn eval<L: Leaves>(c: &SplineCall, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let Some(s) = &c.data else {
        return Err(EvalError {
            message: format!("{}: SPLINE/{} is not bound to its data", c.name(), c.id),
            span: Some(c.span),
        });
    };
    let x = eval_node(&c.x, l, vars)?;
    let z = eval_node(&c.z, l, vars)?;
    let p = s.surface_at(c.method, x.v, z.v);
    let k = c.iord as usize;
    let fx = |i: usize| p.x.get(k + i).copied().unwrap_or(0.0);
    let fxz = |i: usize| p.z.get(k + i).copied().unwrap_or(0.0);
    let v = fx(0);
    let d = fx(1) * x.d + fxz(0) * z.d;
    let dd = fx(2) * x.d * x.d + 2.0 * fxz(1) * x.d * z.d + fx(1) * x.dd + fxz(0) * z.dd;
    let j = Jet { v, d, dd };
    if !(j.v.is_finite() && j.d.is_finite() && j.dd.is_finite()) {
        return Err(EvalError {
            message: format!("{} is not finite", c.name()),
            span: Some(c.span),
        });
    }
    Ok(j)
}

impl Expr {
    /// Ids of the SPLINEs this expression reads (CUBSPL, AKISPL, INTERP,
    /// INVPSD), in
    /// order of appearance, with the span of each call.
    pub fn splines_read(&self) -> Vec<(u32, Span)> {
        let mut out = Vec::new();
        let mut visit = |n: &mut Node| match n {
            Node::Spline(c) => out.push((c.id, c.span)),
            Node::Interp(c) => out.push((c.id, c.span)),
            Node::Invpsd(c) => out.push((c.id, c.span)),
            _ => {}
        };
        // one tree walker (the mutable one) on a copy: this runs once per
        // check, not per evaluation
        let mut copy = self.clone();
        walk_mut(&mut copy.root, &mut visit);
        for b in &mut copy.vars {
            walk_mut(&mut b.node, &mut visit);
        }
        out
    }

    /// This expression with every CUBSPL/AKISPL bound to its SPLINE among
    /// `splines` (a model's). An unknown id, or an iord on a surface (a family
    /// of curves; Adams: "iord may not be specified when interpolating on a
    /// surface"), is an error at the call.
    pub fn with_model_splines(&self, splines: &[Arc<Spline>]) -> Result<Expr, ExprError> {
        self.with_splines(&|id| splines.iter().find(|s| s.id == id).cloned())
    }

    /// [`Expr::with_model_splines`] with any lookup.
    pub fn with_splines(
        &self,
        find: &dyn Fn(u32) -> Option<Arc<Spline>>,
    ) -> Result<Expr, ExprError> {
        let mut e = self.clone();
        bind(&mut e.root, find)?;
        for b in &mut e.vars {
            bind(&mut b.node, find)?;
        }
        Ok(e)
    }
}

fn bind(n: &mut Node, find: &dyn Fn(u32) -> Option<Arc<Spline>>) -> Result<(), ExprError> {
    let mut result = Ok(());
    walk_mut(n, &mut |n| {
        if result.is_err() {
            return;
        }
        let bound = match n {
            Node::Interp(c) => Some(
                match find(c.id) {
                    None => Err(format!("INTERP: SPLINE/{} does not exist", c.id)),
                    Some(s) => crate::interp::check(c, &s)
                        .map(|()| c.data = Some(s))
                        .map_err(|e| e.message),
                }
                .map_err(|m| (m, c.span)),
            ),
            Node::Invpsd(c) => Some(
                match find(c.id) {
                    None => Err(format!("INVPSD: SPLINE/{} does not exist", c.id)),
                    Some(s) => crate::invpsd::build(c, &s)
                        .map(|k| c.components = Some(Arc::new(k)))
                        .map_err(|e| e.message),
                }
                .map_err(|m| (m, c.span)),
            ),
            _ => None,
        };
        if let Some(Err((message, span))) = bound {
            result = Err(ExprError { message, span });
            return;
        }
        if let Node::Spline(c) = n {
            match find(c.id) {
                None => {
                    result = Err(ExprError {
                        message: format!("{}: SPLINE/{} does not exist", c.name(), c.id),
                        span: c.span,
                    })
                }
                Some(s) if c.iord_given && c.iord > 0 && s.is_surface() => {
                    result = Err(ExprError {
                        message: format!(
                            "{}: SPLINE/{} is a family of curves (a surface): the derivative order applies to a single curve only",
                            c.name(),
                            c.id
                        ),
                        span: c.span,
                    })
                }
                Some(s) => c.data = Some(s),
            }
        }
    });
    result
}

/// Pre-order visit of every node (the tree depth is bounded by the parser).
pub(crate) fn walk_mut(n: &mut Node, f: &mut dyn FnMut(&mut Node)) {
    f(n);
    match n {
        Node::Neg(a) => walk_mut(a, f),
        Node::Bin { a, b, .. } => {
            walk_mut(a, f);
            walk_mut(b, f);
        }
        Node::Chain { first, rest } => {
            walk_mut(first, f);
            rest.iter_mut().for_each(|(_, r, _)| walk_mut(r, f));
        }
        Node::Call { args, .. } => args.iter_mut().for_each(|a| walk_mut(a, f)),
        Node::If(k) => k.iter_mut().for_each(|a| walk_mut(a, f)),
        Node::Spline(c) => {
            walk_mut(&mut c.x, f);
            walk_mut(&mut c.z, f);
        }
        Node::Curve(c) => walk_mut(&mut c.alpha, f),
        Node::Interp(c) => walk_mut(&mut c.x, f),
        Node::Invpsd(c) => walk_mut(&mut c.x, f),
        Node::Incang(c) => {
            c.a.iter_mut()
                .chain(c.b.iter_mut())
                .for_each(|n| walk_mut(n, f))
        }
        Node::Delay(c) => {
            walk_mut(&mut c.e, f);
            walk_mut(&mut c.delay, f);
            walk_mut(&mut c.e0, f);
        }
        Node::Const(_)
        | Node::Time
        | Node::Measure(_)
        | Node::Var(_)
        | Node::Senval(_)
        | Node::Mode(_) => {}
    }
}
