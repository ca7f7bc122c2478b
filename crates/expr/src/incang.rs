//! INCANG(i, j, k): the included angle at marker j between the line from j
//! to i and the line from j to k (Adams Solver function reference, INCANG:
//! its example INCANG(3,2,4) measures between the segments 2–3 and 2–4;
//! the reference notes that the first non-zero value of a simulation is
//! positive). Adams follows the angle past 180°, as its result files show:
//! a pendulum turning from 5° to 355° reads 355°, not 5°. (RecurDyn, which
//! documents the same function, says so in words: the angle accumulates
//! over the simulation and grows beyond 180° while the lines keep turning
//! the same way.)
//!
//! How it is computed here, with a = DX/DY/DZ(i, j), b = DX/DY/DZ(k, j)
//! (measures in ground, differentiated exactly by the caller):
//! - the unsigned angle is atan2(|a × b|, a · b) ∈ [0, π];
//! - its sign and its turn come from the call's history, the unit normal
//!   n = ±(a × b)/|a × b| and the angle of the latest earlier evaluation:
//!   the normal keeps the orientation of the previous one (n·n_prev ≥ 0),
//!   and the value is atan2((a × b)·n, a · b) (negative when a × b points
//!   against the previous normal: the lines have passed through 0 or π)
//!   plus the multiple of 2π that puts it nearest the previous angle. In a
//!   plane (a pendulum) that is the signed angle about the plane's normal,
//!   unwound; the first evaluation, without history, is the unsigned angle
//!   (positive, as Adams says);
//! - while the lines are aligned to within `ALIGNED` (|a × b| tiny against
//!   |a||b|, where the normal is undefined), (a × b)·n_prev stands for the
//!   sine, so the value passes through 0 and π smoothly in a plane.
//!
//! History, as DELAY keeps it (`delay`): every evaluation records (TIME,
//! n, angle), after dropping the samples at or after its TIME, so a
//! rejected step, a Newton iterate at the same time or an output
//! interpolated inside the last step replaces what was recorded there; the
//! reference of an evaluation at TIME t is the latest sample before t (the
//! last step's solution while the corrector iterates at t), or the one at
//! t itself when none is earlier (repeated evaluations at the first time).
//! The angle must turn by less than π between consecutive samples, which
//! integration steps and kinematic configurations do by far. A request
//! reading INCANG is evaluated at every accepted step for it
//! (`Expr::keeps_history`), not only at the outputs. `KEPT` samples are
//! kept inline, so the step loop does not allocate.
//!
//! Derivatives: the history is constant, so with respect to the measures
//! they are those of atan2(±|a × b|, a · b) (exact, first and second), and
//! of atan2((a × b)·n_prev, a · b) while aligned. A run gets a fresh
//! history when its functions are bound to its `SensorValues`, as DELAY's.

use crate::eval::{atan2, eval as eval_node, Leaves};
use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, Span};
use std::sync::{Arc, Mutex, MutexGuard};

/// |a × b| ≤ ALIGNED·|a||b| (the lines within ≈ 1e-9 rad of 0 or π): the
/// normal is taken from the history.
const ALIGNED: f64 = 1e-9;

/// Samples kept per call: more than the evaluations a rejected step or an
/// interpolated output goes back over.
const KEPT: usize = 8;

/// One INCANG call.
#[derive(Clone, Debug)]
pub(crate) struct IncangCall {
    /// DX, DY, DZ(i, j): the line from j to i.
    pub a: [Node; 3],
    /// DX, DY, DZ(k, j): the line from j to k.
    pub b: [Node; 3],
    /// The marker ids i, j, k (for messages).
    pub ids: [u32; 3],
    pub history: Arc<Turns>,
    pub span: Span,
}

impl IncangCall {
    /// A copy with its measures rebuilt by `go` (VARVAL substitution) and
    /// a history of its own.
    pub fn map(&self, go: impl Fn(&Node) -> Node, span: Span) -> Node {
        Node::Incang(Box::new(IncangCall {
            a: self.a.clone().map(|n| go(&n)),
            b: self.b.clone().map(|n| go(&n)),
            ids: self.ids,
            history: Arc::default(),
            span,
        }))
    }
}

/// The recorded (TIME, normal, angle) samples of one call, oldest first.
#[derive(Debug, Default)]
pub(crate) struct Turns(Mutex<Samples>);

impl Turns {
    fn samples(&self) -> MutexGuard<'_, Samples> {
        // A poisoned lock only means another thread panicked holding it;
        // the samples (plain numbers) are still usable.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    t: f64,
    /// The oriented unit normal; None while the lines were aligned and no
    /// earlier normal existed.
    normal: Option<[f64; 3]>,
    angle: f64,
}

#[derive(Debug, Default)]
struct Samples {
    kept: [Sample; KEPT],
    len: usize,
}

impl Samples {
    /// The latest sample before t, else the one at t.
    fn reference(&self, t: f64) -> Option<Sample> {
        let kept = &self.kept[..self.len];
        kept.iter()
            .rev()
            .find(|s| s.t < t)
            .or_else(|| kept.iter().find(|s| s.t == t))
            .copied()
    }

    fn record(&mut self, sample: Sample) {
        while self.len > 0 && self.kept[self.len - 1].t >= sample.t {
            self.len -= 1;
        }
        if self.len == KEPT {
            self.kept.copy_within(1.., 0);
            self.len -= 1;
        }
        self.kept[self.len] = sample;
        self.len += 1;
    }
}

fn dot(x: [f64; 3], y: [f64; 3]) -> f64 {
    x[0] * y[0] + x[1] * y[1] + x[2] * y[2]
}

pub(crate) fn eval<L: Leaves>(c: &IncangCall, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let t = l.time().v;
    let mut a = [Jet::constant(0.0); 3];
    let mut b = [Jet::constant(0.0); 3];
    for k in 0..3 {
        a[k] = eval_node(&c.a[k], l, vars)?;
        b[k] = eval_node(&c.b[k], l, vars)?;
    }
    let [i, j, k] = c.ids;
    let values = |x: &[Jet; 3]| [x[0].v, x[1].v, x[2].v];
    let (la, lb) = (
        dot(values(&a), values(&a)).sqrt(),
        dot(values(&b), values(&b)).sqrt(),
    );
    if la == 0.0 || lb == 0.0 {
        return Err(EvalError {
            message: format!(
                "INCANG({i}, {j}, {k}): MARKER/{} is at MARKER/{j}, so the angle is undefined",
                if la == 0.0 { i } else { k }
            ),
            span: Some(c.span),
        });
    }
    let cosine = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let cross = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let cv = values(&cross);
    let size = dot(cv, cv).sqrt();
    let mut turns = c.history.samples();
    let reference = turns.reference(t);
    let previous = reference.and_then(|s| s.normal);
    let (sine, normal) = if size > ALIGNED * la * lb {
        let sign = match previous {
            Some(n) if dot(cv, n) < 0.0 => -1.0,
            _ => 1.0,
        };
        let magnitude = (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt();
        (magnitude.scale(sign), Some(cv.map(|x| sign * x / size)))
    } else if let Some(n) = previous {
        (
            cross[0].scale(n[0]) + cross[1].scale(n[1]) + cross[2].scale(n[2]),
            Some(n),
        )
    } else {
        // Aligned with no earlier normal: the value is 0 or π and the
        // direction it leaves by is not known yet.
        (Jet::constant(size), None)
    };
    let principal = atan2(sine, cosine);
    let angle = match reference {
        Some(r) => {
            let tau = std::f64::consts::TAU;
            principal + Jet::constant(tau * ((r.angle - principal.v) / tau).round())
        }
        None => principal,
    };
    turns.record(Sample {
        t,
        normal,
        angle: angle.v,
    });
    Ok(angle)
}
