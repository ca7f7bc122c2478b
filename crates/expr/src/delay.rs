//! DELAY(e, delay, e0[, id]): the value e had at TIME − delay (Adams
//! Solver function reference, DELAY: "the value of an expression at a
//! delayed time"; "Negative values will be taken as zero"; e0 is "the
//! initial history of the expression … for the values of time less than
//! zero", "a function of TIME or a constant").
//!
//! How it is computed here:
//! - every evaluation of the call records (TIME, e) in the call's history
//!   (in a user state's or force's equation every evaluation the
//!   integrator makes; in a REQUEST every accepted step as well as every
//!   output frame, so its value at an output does not depend on the
//!   output step: `requests::Outputs::record_step`),
//!   a ring of [`HISTORY_CAPACITY`] samples allocated once, at the first
//!   evaluation (the initial conditions), so the step loop does not
//!   allocate. An evaluation at a time not after the latest sample first
//!   drops the samples at or after it: a rejected step, a Newton iterate
//!   at the same time or an output interpolated inside the last step
//!   replaces what was recorded there, so the history holds the latest
//!   solution at increasing times (the integrator's accepted steps, and
//!   the current iterate last);
//! - the value at TIME − delay is the cubic through the four samples
//!   around it (Lagrange; two or three near the start of the history).
//!   Adams' default is a sixth-order interpolant with jump and corner
//!   detection set by an IC ARRAY (the optional fourth argument); that
//!   array is not supported: the fourth argument must be absent or 0;
//! - before the first sample (the start of the run) the value is e0
//!   evaluated at TIME − delay; e0 may not read a measure;
//! - when the ring is full the oldest sample is dropped; a delay reaching
//!   back before the oldest kept sample (more than [`HISTORY_CAPACITY`]
//!   evaluations ago) fails by name instead of returning e0.
//!
//! Derivatives: the delayed value does not depend on the current state
//! (it is a past solution), so its derivative with respect to every
//! measure of e is zero; with respect to TIME, and through a delay that
//! depends on the state, it is the interpolant's slope times
//! d(TIME − delay). This is exact except while TIME − delay falls inside
//! the current step, where the cubic also passes through the current
//! iterate's sample, whose dependence on the state is left out (an
//! approximation of the Jacobian only: the residual is exact).
//! A run gets fresh histories when its functions are bound to its
//! `SensorValues` ([`Expr::with_sensor_values`]), so clones of one model
//! do not share them.

use crate::call_args::{checked, Arg};
use crate::eval::{eval as eval_node, Leaves};
use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, ExprError, Span};
use mbsolve_model::readable;
use std::sync::{Arc, Mutex, MutexGuard};

/// Samples one DELAY keeps (16 bytes each).
pub const HISTORY_CAPACITY: usize = 1 << 16;

/// The (time, value) samples of one DELAY call, oldest first.
#[derive(Debug, Default)]
pub(crate) struct History(Mutex<Ring>);

#[derive(Debug, Default)]
struct Ring {
    t: Vec<f64>,
    v: Vec<f64>,
    /// Index of the oldest sample.
    start: usize,
    len: usize,
    /// Whether a sample was ever dropped for room.
    dropped: bool,
}

impl Ring {
    fn at(&self, k: usize) -> (f64, f64) {
        let i = (self.start + k) % HISTORY_CAPACITY;
        (self.t[i], self.v[i])
    }
    fn record(&mut self, t: f64, v: f64) {
        if self.t.is_empty() {
            self.t = vec![0.0; HISTORY_CAPACITY];
            self.v = vec![0.0; HISTORY_CAPACITY];
        }
        while self.len > 0 && self.at(self.len - 1).0 >= t {
            self.len -= 1;
        }
        if self.len == HISTORY_CAPACITY {
            self.start = (self.start + 1) % HISTORY_CAPACITY;
            self.len -= 1;
            self.dropped = true;
        }
        let i = (self.start + self.len) % HISTORY_CAPACITY;
        self.t[i] = t;
        self.v[i] = v;
        self.len += 1;
    }
    /// Value and slope at `t` (inside the samples) from the Lagrange
    /// polynomial through up to four samples around it.
    fn sample(&self, t: f64) -> (f64, f64) {
        let n = self.len;
        // first sample after t (1 ≤ hi ≤ n − 1 when there are two or more)
        let (mut lo, mut hi) = (0, n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.at(mid).0 <= t {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        // four samples, two on each side when there are: t₀ ≤ … ≤ t₃
        let right = lo.clamp(1, n.max(2) - 1).min(n - 1);
        let last = (right.saturating_sub(2) + 3).min(n - 1);
        let first = last.saturating_sub(3);
        // on the stack: the step loop does not allocate
        let mut pts = [(0.0, 0.0); 4];
        for (p, k) in pts.iter_mut().zip(first..=last) {
            *p = self.at(k);
        }
        lagrange(&pts[..=last - first], t)
    }
}

/// Value and first derivative at t of the polynomial through `pts`.
fn lagrange(pts: &[(f64, f64)], t: f64) -> (f64, f64) {
    let (mut value, mut slope) = (0.0, 0.0);
    for (j, &(tj, vj)) in pts.iter().enumerate() {
        let mut basis = 1.0;
        let mut dbasis = 0.0;
        for (m, &(tm, _)) in pts.iter().enumerate() {
            if m == j {
                continue;
            }
            let w = 1.0 / (tj - tm);
            // d(basis·(t − tm)w) = dbasis·(t − tm)w + basis·w
            dbasis = dbasis * (t - tm) * w + basis * w;
            basis *= (t - tm) * w;
        }
        value += vj * basis;
        slope += vj * dbasis;
    }
    (value, slope)
}

impl History {
    fn ring(&self) -> MutexGuard<'_, Ring> {
        // A poisoned lock only means another thread panicked while holding
        // it; the samples (plain numbers) are still usable.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One DELAY call.
#[derive(Clone, Debug)]
pub(crate) struct DelayCall {
    pub e: Node,
    pub delay: Node,
    pub e0: Node,
    pub history: Arc<History>,
    pub span: Span,
}

impl DelayCall {
    /// A copy with its expressions rebuilt by `go` (VARVAL substitution)
    /// and a history of its own.
    pub fn map(&self, go: impl Fn(&Node) -> Node, span: Span) -> Node {
        Node::Delay(Box::new(DelayCall {
            e: go(&self.e),
            delay: go(&self.delay),
            e0: go(&self.e0),
            history: Arc::default(),
            span,
        }))
    }
}

impl crate::Expr {
    /// Whether a node matching `pred` appears, in the expression or a
    /// substituted VARIABLE (a walk over a copy: run once per check, not
    /// per evaluation).
    pub(crate) fn any_node(&self, pred: impl Fn(&Node) -> bool) -> bool {
        let mut found = false;
        let mut copy = self.clone();
        let mut visit = |n: &mut Node| found |= pred(n);
        crate::spline::walk_mut(&mut copy.root, &mut visit);
        for b in &mut copy.vars {
            crate::spline::walk_mut(&mut b.node, &mut visit);
        }
        found
    }

    /// Whether DELAY or INCANG appears (in the expression or a
    /// substituted VARIABLE): their histories want the solution at every
    /// accepted step, so a request reading one is also evaluated there
    /// (`requests::Outputs::record_step`), not only at output frames.
    pub fn keeps_history(&self) -> bool {
        self.any_node(|n| matches!(n, Node::Delay(_) | Node::Incang(_)))
    }
}

fn reads_measure(n: &Node) -> bool {
    let mut found = false;
    let mut copy = n.clone();
    crate::spline::walk_mut(&mut copy, &mut |n| {
        found |= matches!(n, Node::Measure(_) | Node::Var(_))
    });
    found
}

pub(crate) fn parse(
    args: Vec<Arg>,
    full: Span,
    text: &dyn Fn(Span) -> String,
) -> Result<(Node, u32), ExprError> {
    let (depth, mut it) = checked("DELAY", "e, delay, e0[, id]", (3, 4), args, full)?;
    let mut next = || it.next().unwrap_or((Node::Const(0.0), 0, full));
    let (e, _, _) = next();
    let (delay, _, _) = next();
    let (e0, _, s0) = next();
    if reads_measure(&e0) {
        return Err(ExprError {
            message: format!(
                "DELAY: the initial history e0 must be a function of TIME or a constant, found '{}'",
                text(s0)
            ),
            span: s0,
        });
    }
    if let Some((id, _, s)) = it.next() {
        if !matches!(id, Node::Const(v) if v == 0.0) {
            return Err(ExprError {
                message: format!(
                    "DELAY: the interpolation-settings ARRAY (fourth argument) is not supported; omit it or give 0, found '{}'",
                    text(s)
                ),
                span: s,
            });
        }
    }
    Ok((
        Node::Delay(Box::new(DelayCall {
            e,
            delay,
            e0,
            history: Arc::default(),
            span: full,
        })),
        depth,
    ))
}

/// Leaves for e0: TIME moved back to TIME − delay, no measures (the
/// parser refuses an e0 that reads one).
struct Back {
    at: Jet,
}

impl Leaves for Back {
    fn time(&self) -> Jet {
        self.at
    }
    fn measure(&self, _slot: usize) -> Result<Jet, EvalError> {
        Err(EvalError::new("DELAY: e0 reads a measure"))
    }
}

pub(crate) fn eval<L: Leaves>(c: &DelayCall, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let time = l.time();
    let e = eval_node(&c.e, l, vars)?;
    let mut delay = eval_node(&c.delay, l, vars)?;
    if delay.v <= 0.0 {
        // Adams: a negative delay is taken as zero.
        delay = Jet::constant(0.0);
    }
    let mut ring = c.history.ring();
    ring.record(time.v, e.v);
    if delay.v == 0.0 {
        return Ok(e);
    }
    let back = time - delay;
    let oldest = ring.at(0).0;
    if back.v < oldest {
        if ring.dropped {
            return Err(EvalError {
                message: format!(
                    "DELAY: TIME − delay = {} is older than the {HISTORY_CAPACITY} samples kept (back to {})",
                    readable(back.v),
                    readable(oldest)
                ),
                span: Some(c.span),
            });
        }
        drop(ring);
        return eval_node(&c.e0, &Back { at: back }, vars);
    }
    let (v, slope) = ring.sample(back.v);
    if !(v.is_finite() && slope.is_finite()) {
        return Err(EvalError {
            message: format!("DELAY is not finite at TIME − delay = {}", readable(back.v)),
            span: Some(c.span),
        });
    }
    Ok(Jet {
        v,
        d: slope * back.d,
        dd: 0.0,
    })
}
