//! INVPSD(x, id, f0, f1, nf, linlog, seed): a random signal of x whose
//! power spectral density is the one SPLINE/id gives against frequency
//! (Adams Solver function reference, INVPSD: "a series of sinusoidal
//! functions where the amplitudes, Ai, are determined in such a way that
//! the effective value for the PSD and the time signal are the same. The
//! phase angle is calculated by a pseudo-random number generator. Using
//! the same seed value will always result in the same set of phase
//! angles.").
//!
//! The reference gives neither the frequencies, the amplitude rule nor
//! the generator; our construction:
//! - nf ≥ 2 frequencies evenly spaced from f0 to f1 (cycles per unit of
//!   x): fᵢ = f0 + i·Δf, Δf = (f1 − f0)/(nf − 1), i = 0 … nf − 1;
//! - PSD(fᵢ) from the SPLINE's points joined by straight lines, in the
//!   linear domain (linlog = 0) or in log–log (linlog = 1: ln PSD linear
//!   in ln f, so the points and frequencies must be positive); frequencies
//!   outside the SPLINE's range are refused, not extrapolated;
//! - each sine carries the power of its share wᵢ of the band by the
//!   trapezoid rule (wᵢ = Δf inside, Δf/2 at f0 and f1): Aᵢ = √(2 PSD(fᵢ) wᵢ),
//!   so the mean square of the signal, Σ Aᵢ²/2, equals the trapezoid
//!   integral of the PSD over [f0, f1] (the one-sided PSD convention, the
//!   effective values agree), and the level of each component,
//!   Aᵢ²/(2wᵢ), is the PSD at its frequency;
//! - phases φᵢ = 2π uᵢ with uᵢ uniform on [0, 1) from SplitMix64 (Steele,
//!   Lea & Flood 2014) seeded with the seed rounded to the nearest integer
//!   (Adams FORTRAN: NINT), so a seed always gives the same signal — but
//!   not Adams' signal, whose generator is unpublished.
//!
//! INVPSD = Σ Aᵢ sin(2π fᵢ x + φᵢ), exact derivatives on jets. id, f0, f1,
//! nf, linlog and seed must be constants (the sines are built once, when
//! the SPLINE is bound). Adams C++ allows any nf; we cap it at 100000
//! sines (each evaluation sums them all).

use crate::call_args::{checked, Arg};
use crate::eval::{eval as eval_node, Leaves};
use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, ExprError, Span};
use mbsolve_model::{readable, Spline};
use std::f64::consts::TAU;
use std::sync::Arc;

/// One sine of the signal: amplitude, angular frequency (rad per unit of
/// x), phase.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Component {
    pub amplitude: f64,
    pub omega: f64,
    pub phase: f64,
}

/// One INVPSD call.
#[derive(Clone, Debug)]
pub(crate) struct InvpsdCall {
    pub x: Node,
    pub id: u32,
    pub f0: f64,
    pub f1: f64,
    pub nf: u32,
    pub log: bool,
    pub seed: i64,
    pub components: Option<Arc<Vec<Component>>>,
    pub span: Span,
}

impl InvpsdCall {
    /// A copy with x rebuilt by `go` (VARVAL substitution).
    pub fn map(&self, go: impl Fn(&Node) -> Node, span: Span) -> Node {
        let mut c = self.clone();
        (c.x, c.span) = (go(&self.x), span);
        Node::Invpsd(Box::new(c))
    }
}

pub(crate) fn parse(
    args: Vec<Arg>,
    full: Span,
    text: &dyn Fn(Span) -> String,
) -> Result<(Node, u32), ExprError> {
    let usage = "x, id, f0, f1, nf, linlog, seed";
    let (depth, mut it) = checked("INVPSD", usage, (7, 7), args, full)?;
    let (x, _, _) = it.next().unwrap_or((Node::Const(0.0), 0, full));
    let mut constant = |what: &str, ok: &dyn Fn(f64) -> bool| -> Result<(f64, Span), ExprError> {
        match it.next() {
            Some((Node::Const(v), _, s)) if ok(v) => Ok((v, s)),
            Some((_, _, s)) => Err(ExprError {
                message: format!("INVPSD: {what}, found '{}'", text(s)),
                span: s,
            }),
            None => Err(ExprError {
                message: format!("INVPSD: {what}"),
                span: full,
            }),
        }
    };
    let int = |v: f64| v.fract() == 0.0;
    let (id, _) = constant("the SPLINE id must be a positive integer", &|v| {
        int(v) && (1.0..=u32::MAX as f64).contains(&v)
    })?;
    let (f0, _) = constant("f0 must be a constant frequency ≥ 0", &|v| v >= 0.0)?;
    let (f1, s1) = constant("f1 must be a constant frequency", &|v| v.is_finite())?;
    if f1 <= f0 {
        return Err(ExprError {
            message: format!(
                "INVPSD needs f0 < f1 (f0 = {}, f1 = {})",
                readable(f0),
                readable(f1)
            ),
            span: s1,
        });
    }
    let (nf, _) = constant(
        "the number of frequencies nf must be an integer from 2 to 100000",
        &|v| int(v) && (2.0..=1e5).contains(&v),
    )?;
    let (linlog, _) = constant("linlog must be 0 (linear) or 1 (logarithmic)", &|v| {
        v == 0.0 || v == 1.0
    })?;
    let (seed, _) = constant("the seed must be a constant", &|v| v.abs() < 9e15)?;
    Ok((
        Node::Invpsd(Box::new(InvpsdCall {
            x,
            id: id as u32,
            f0,
            f1,
            nf: nf as u32,
            log: linlog == 1.0,
            seed: seed.round() as i64,
            components: None,
            span: full,
        })),
        depth,
    ))
}

/// SplitMix64: the next 64 random bits of `state`.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The PSD at f from the SPLINE's points joined by straight lines (in
/// log–log when `log`).
fn psd_at(s: &Spline, f: f64, log: bool) -> f64 {
    let (xs, ys) = (&s.x, &s.y[0]);
    let n = xs.len();
    let k = xs.partition_point(|&v| v <= f).clamp(1, n - 1) - 1;
    let (xa, xb, ya, yb) = (xs[k], xs[k + 1], ys[k], ys[k + 1]);
    if log {
        let w = (f.ln() - xa.ln()) / (xb.ln() - xa.ln());
        (ya.ln() + w * (yb.ln() - ya.ln())).exp()
    } else {
        ya + (f - xa) / (xb - xa) * (yb - ya)
    }
}

/// The sines of `c` on SPLINE `s`, or why they cannot be built.
pub(crate) fn build(c: &InvpsdCall, s: &Spline) -> Result<Vec<Component>, ExprError> {
    let fail = |message: String| ExprError {
        message,
        span: c.span,
    };
    let id = c.id;
    if s.is_surface() {
        return Err(fail(format!(
            "INVPSD: SPLINE/{id} is a family of curves (a surface): a PSD is one curve"
        )));
    }
    let (lo, hi) = (s.x[0], s.x[s.x.len() - 1]);
    if c.f0 < lo || c.f1 > hi {
        return Err(fail(format!(
            "INVPSD: the frequencies {} to {} leave SPLINE/{id}'s range {} to {}",
            readable(c.f0),
            readable(c.f1),
            readable(lo),
            readable(hi)
        )));
    }
    if c.log && (lo <= 0.0 || s.y[0].iter().any(|&p| p <= 0.0)) {
        return Err(fail(format!(
            "INVPSD: logarithmic interpolation (linlog = 1) needs positive frequencies and PSD values in SPLINE/{id}"
        )));
    }
    if let Some(p) = s.y[0].iter().find(|&&p| p < 0.0) {
        return Err(fail(format!(
            "INVPSD: SPLINE/{id} has a negative PSD value ({})",
            readable(*p)
        )));
    }
    let nf = c.nf as usize;
    let df = (c.f1 - c.f0) / (nf - 1) as f64;
    let mut state = c.seed as u64;
    Ok((0..nf)
        .map(|i| {
            let f = c.f0 + i as f64 * df;
            let share = if i == 0 || i == nf - 1 { 0.5 * df } else { df };
            let u = (splitmix64(&mut state) >> 11) as f64 / (1u64 << 53) as f64;
            Component {
                amplitude: (2.0 * psd_at(s, f, c.log).max(0.0) * share).sqrt(),
                omega: TAU * f,
                phase: TAU * u,
            }
        })
        .collect())
}

pub(crate) fn eval<L: Leaves>(c: &InvpsdCall, l: &L, vars: &[Jet]) -> Result<Jet, EvalError> {
    let Some(comps) = &c.components else {
        return Err(EvalError {
            message: format!("INVPSD: SPLINE/{} is not bound to its data", c.id),
            span: Some(c.span),
        });
    };
    let x = eval_node(&c.x, l, vars)?;
    let (mut v, mut d1, mut d2) = (0.0, 0.0, 0.0);
    for k in comps.iter() {
        let (s, co) = (k.omega * x.v + k.phase).sin_cos();
        v += k.amplitude * s;
        d1 += k.amplitude * k.omega * co;
        d2 -= k.amplitude * k.omega * k.omega * s;
    }
    Ok(Jet {
        v,
        d: d1 * x.d,
        dd: d2 * x.d * x.d + d1 * x.dd,
    })
}
