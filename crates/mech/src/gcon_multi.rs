//! GCON whose function reads markers on three or four moving parts
//! (SolidWorks Motion exports and FRS5-like decks write DX(a, b) − DX(c, d)
//! = 0 or AZ(i₁, j₁) + r·DZ(i₂, j₂) = 0).
//!
//! The row is carried as the COUPLER's is (`coupler.rs`): its bodies, in
//! the order the function first reads them, form two pieces of two bodies,
//! [b₀, b₁] (`Equation::bodies`) and [b₂, b₃] (`Equation::extra_bodies`),
//! each with a 14-entry gradient and a 14×14 Hessian. Unlike the coupler's,
//! a general f(m₁, …, mₙ) has Hessian blocks between the pieces that do not
//! vanish on the constraint: ∇²Φ = Σ fₐ∇²mₐ + Σ fₐᵦ∇mₐ∇mᵦᵀ, whose second
//! sum couples every body a measure reads with every body another reads,
//! and a measure such as DX(i, j, k) with i, j, k on three parts has cross
//! blocks of its own. So Φ is evaluated over all four bodies (28
//! coordinates) and split into the primary piece (value, time terms,
//! Φ_qt's first half), the extra piece, and [`CrossTerms`]: the block
//! H₀₁ = ∂²Φ/∂q₀∂q₁ and the extra piece's Φ_qt. Whatever reads second
//! derivatives adds them: the λ-weighted Hessian of the iteration matrices
//! (its pattern reserves the body-pair blocks, emitted with zeros when the
//! row is off), γ = −uᵀ∇²Φu − 2Φ_qt·u − Φ_tt (cross term 2u₀ᵀH₀₁u₁), and
//! SI2/SI1's velocity rows (∇²Φu + Φ_qt, each piece gets H₀₁u₁ or H₁₀u₀).
//!
//! Each measure is a sum of two-body terms, evaluated by the local
//! (14-coordinate) machinery and spread onto the 28: a measure over at
//! most two parts is one term, evaluated exactly as the two-body GCON does;
//! DX/DY/DZ(i, j, k) with i, j, k on three parts is x_I·a_K − x_J·a_K.
//! A function reading markers on five or more moving parts is refused.

use crate::constraints::{axis, general_measure, origin, EqValue};
use crate::local::{dot, Grad, Hess, NoHess, Order, Pose, Scalar, NL};
use crate::system::{global_index, pose, GeneralMeasure, MarkerFrame, Primitive, Sink, System};
use mbsolve_model::{ConstraintFunction, ElementRef, Gcon, Id, Measure, Model, ModelError};
use nalgebra::{SMatrix, SVector};
use std::sync::Arc;

/// Coordinates of the four bodies.
const NF: usize = 4 * 7;
type Grad4 = SVector<f64, NF>;
type Hess4 = SMatrix<f64, NF, NF>;

/// Measures evaluated in stack buffers; a function with more uses the heap
/// (as the two-body GCON does).
const ON_STACK: usize = 8;

/// How one term of a measure is evaluated on its two slots.
#[derive(Clone, Debug)]
enum TermForm {
    /// A GCON measure over at most two parts, as the two-body GCON has it.
    Measure(GeneralMeasure),
    /// x_P·a_K: P's origin along axis `a` of K (one half of DX/DY/DZ(i, j,
    /// k) over three parts).
    PointAlongAxis {
        p: (MarkerFrame, usize),
        k: (MarkerFrame, usize),
        a: usize,
    },
}

/// A two-body term of a measure: `pair` holds the positions (0..4, in
/// [`GconMulti::bodies`]) of the bodies in slots 0 and 1, None for ground
/// or an unused slot.
#[derive(Clone, Debug)]
struct Term {
    pair: [Option<usize>; 2],
    sign: f64,
    form: TermForm,
}

/// A GCON over three or four moving parts.
#[derive(Clone, Debug)]
pub struct GconMulti {
    /// The parts' bodies in the order the function first reads them (the
    /// I marker's part first): primary piece [0, 1], extra piece [2, 3].
    pub bodies: [Option<usize>; 4],
    /// Per measure, its one or two terms.
    measures: Vec<(Term, Option<Term>)>,
    f: Arc<dyn ConstraintFunction>,
}

/// The second-order terms of a row over two pieces that the two per-piece
/// Hessians and the primary piece's Φ_qt leave out.
#[derive(Clone, Debug)]
pub struct CrossTerms {
    /// ∂²Φ/∂q₀∂q₁: primary piece's coordinates (rows) by the extra
    /// piece's (columns); H₁₀ = H₀₁ᵀ.
    pub h01: Hess,
    /// Φ_qt over the extra piece.
    pub phi_qt: Grad,
}

impl CrossTerms {
    /// What each piece's ∇²Φu + Φ_qt lacks: [H₀₁u₁, H₁₀u₀ + Φ_qt,₁] for
    /// the pieces' velocities u₀, u₁.
    pub fn velocity_terms(&self, u0: &Grad, u1: &Grad) -> [Grad; 2] {
        [self.h01 * u1, self.h01.tr_mul(u0) + self.phi_qt]
    }

    /// What uᵀ∇²Φu + 2Φ_qt·u over the pieces lacks: 2u₀ᵀH₀₁u₁ + 2Φ_qt,₁·u₁.
    pub fn acceleration_term(&self, u0: &Grad, u1: &Grad) -> f64 {
        2.0 * (u0.dot(&(self.h01 * u1)) + self.phi_qt.dot(u1))
    }
}

/// Φ over the four bodies.
struct Full {
    val: f64,
    grad: Grad4,
    hess: Option<Hess4>,
    phi_t: f64,
    phi_tt: f64,
    phi_qt: Grad4,
}

/// The moving parts a marker list reads, appended to `bodies` in order.
fn collect(sys: &System, ids: &[Id], bodies: &mut Vec<(usize, Id)>) {
    for id in ids {
        if let Some(b) = sys.marker(*id).body {
            if !bodies.iter().any(|(x, _)| *x == b) {
                bodies.push((b, *id));
            }
        }
    }
}

/// The GCON as a row over three or four parts; None when its function
/// reads at most two moving parts (the two-body `Primitive::General`) or a
/// measure a GCON may not read (refused by `System::general_primitive`).
pub(crate) fn primitive(
    sys: &System,
    model: &Model,
    g: &Gcon,
) -> Result<Option<Primitive>, ModelError> {
    let e = ElementRef::Gcon(g.id);
    let mut found: Vec<(usize, Id)> = Vec::new();
    for kind in g.function.measures() {
        if !matches!(
            kind,
            Measure::Dm { .. } | Measure::Disp { .. } | Measure::Angle { .. }
        ) {
            return Ok(None);
        }
        collect(sys, &kind.markers(), &mut found);
    }
    if found.len() <= 2 {
        return Ok(None);
    }
    if let Some((b, id)) = found.get(4) {
        return Err(ModelError {
            element: Some(e),
            location: model.describe(e),
            message: format!(
                "a GCON whose function reads markers on more than four moving parts is not supported (MARKER/{id} on PART/{} is the fifth)",
                sys.bodies[*b].part
            ),
        });
    }
    // The part of the GCON's I marker first, so that it is in the primary
    // piece: the FORCE request at I (`requests::wrench`) reads that
    // piece's gradient.
    let at_i = sys.marker(g.i).body;
    if let Some(s) = found.iter().position(|(b, _)| Some(*b) == at_i) {
        let first = found.remove(s);
        found.insert(0, first);
    }
    let mut bodies = [None; 4];
    for (s, (b, _)) in found.iter().enumerate() {
        bodies[s] = Some(*b);
    }
    let position = |m: &MarkerFrame| {
        m.body
            .and_then(|b| bodies.iter().position(|x| *x == Some(b)))
    };
    let measures = g
        .function
        .measures()
        .iter()
        .map(|kind| {
            let frame = |id: Id| *sys.marker(id);
            let (i, j, k) = match *kind {
                Measure::Dm { i, j } | Measure::Angle { i, j, .. } => (i, j, None),
                Measure::Disp { i, j, k, .. } => (i, j, k),
                _ => unreachable!("checked above: DM, DX/DY/DZ, AX/AY/AZ only"),
            };
            let (i, j, k) = (frame(i), j.map(frame), k.map(frame));
            let mut pair: [Option<usize>; 2] = [None, None];
            for m in [Some(&i), j.as_ref(), k.as_ref()].into_iter().flatten() {
                if let Some(p) = position(m) {
                    if !pair.contains(&Some(p)) {
                        if let Some(free) = pair.iter_mut().find(|x| x.is_none()) {
                            *free = Some(p);
                        } else {
                            // Three parts: only DX/DY/DZ(i, j, k) reads three.
                            let (Measure::Disp { axis, .. }, Some(j), Some(k)) = (kind, j, k)
                            else {
                                unreachable!("a measure on three parts has three markers")
                            };
                            return three_part_displacement(i, j, k, *axis as usize, &position);
                        }
                    }
                }
            }
            let place = |m: MarkerFrame| {
                let s = position(&m).and_then(|p| pair.iter().position(|x| *x == Some(p)));
                (m, s.unwrap_or(0))
            };
            let m = GeneralMeasure {
                kind: *kind,
                i: place(i),
                j: j.map(place),
                k: k.map(place),
            };
            let term = Term {
                pair,
                sign: 1.0,
                form: TermForm::Measure(m),
            };
            (term, None)
        })
        .collect();
    Ok(Some(Primitive::GeneralMulti(Box::new(GconMulti {
        bodies,
        measures,
        f: g.function.clone(),
    }))))
}

/// DX/DY/DZ(i, j, k) = (x_I − x_J)·a_K with I, J, K on three parts, as
/// x_I·a_K − x_J·a_K: two terms of two parts each.
fn three_part_displacement(
    i: MarkerFrame,
    j: MarkerFrame,
    k: MarkerFrame,
    a: usize,
    position: &dyn Fn(&MarkerFrame) -> Option<usize>,
) -> (Term, Option<Term>) {
    let term = |p: MarkerFrame, sign: f64| Term {
        pair: [position(&p), position(&k)],
        sign,
        form: TermForm::PointAlongAxis {
            p: (p, 0),
            k: (k, 1),
            a,
        },
    };
    (term(i, 1.0), Some(term(j, -1.0)))
}

impl Term {
    fn eval<H: Order>(&self, poses: &[Option<Pose>; 4]) -> Scalar<H> {
        let slots = [
            self.pair[0].and_then(|p| poses[p]),
            self.pair[1].and_then(|p| poses[p]),
        ];
        let s = match &self.form {
            TermForm::Measure(m) => general_measure::<H>(m, &slots),
            TermForm::PointAlongAxis { p, k, a } => {
                dot(&origin(&p.0, p.1, &slots), &axis(&k.0, k.1, &slots, *a))
            }
        };
        s.scaled(self.sign)
    }

    /// The 28-coordinate index of local coordinate `l` (0..14).
    fn index(&self, l: usize) -> Option<usize> {
        self.pair[l / 7].map(|p| 7 * p + l % 7)
    }

    fn spread_grad(&self, g: &Grad, out: &mut Grad4) {
        for l in 0..NL {
            if let Some(x) = self.index(l) {
                out[x] += g[l];
            }
        }
    }

    fn spread_hess(&self, h: &Hess, w: f64, out: &mut Hess4) {
        for r in 0..NL {
            let Some(x) = self.index(r) else { continue };
            for c in 0..NL {
                if let Some(y) = self.index(c) {
                    out[(x, y)] += w * h[(r, c)];
                }
            }
        }
    }
}

impl GconMulti {
    /// The extra piece's bodies.
    pub fn extra(&self) -> [Option<usize>; 2] {
        [self.bodies[2], self.bodies[3]]
    }

    /// The values of the measures (for diagnosis).
    pub(crate) fn measure_values(&self, q: &[f64]) -> Vec<f64> {
        let poses = self.poses(q);
        self.measures
            .iter()
            .map(|(a, b)| {
                a.eval::<NoHess>(&poses).val
                    + b.as_ref().map_or(0.0, |b| b.eval::<NoHess>(&poses).val)
            })
            .collect()
    }

    pub(crate) fn function(&self) -> &dyn ConstraintFunction {
        self.f.as_ref()
    }

    fn poses(&self, q: &[f64]) -> [Option<Pose>; 4] {
        self.bodies.map(|b| b.map(|b| pose(q, b)))
    }

    /// Φ = f(m(q), t) over the four bodies by the chain rule, as the
    /// two-body GCON: ∇Φ = Σ fₐ∇mₐ, ∇²Φ = Σ fₐ∇²mₐ + Σ fₐᵦ∇mₐ∇mᵦᵀ,
    /// Φ_qt = Σ fₐₜ∇mₐ.
    fn full(&self, q: &[f64], t: f64, with_hess: bool) -> Full {
        let poses = self.poses(q);
        let k = self.measures.len();
        let n = k + 1;
        if k <= ON_STACK {
            let mut grads = [Grad4::zeros(); ON_STACK];
            let mut vals = [0.0; ON_STACK];
            let mut g = [0.0; ON_STACK + 1];
            let mut h = [0.0; (ON_STACK + 1) * (ON_STACK + 1)];
            self.full_in(
                &poses,
                t,
                with_hess,
                &mut grads[..k],
                &mut vals[..k],
                &mut g[..n],
                &mut h[..n * n],
            )
        } else {
            self.full_in(
                &poses,
                t,
                with_hess,
                &mut vec![Grad4::zeros(); k],
                &mut vec![0.0; k],
                &mut vec![0.0; n],
                &mut vec![0.0; n * n],
            )
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn full_in(
        &self,
        poses: &[Option<Pose>; 4],
        t: f64,
        with_hess: bool,
        grads: &mut [Grad4],
        vals: &mut [f64],
        g: &mut [f64],
        h: &mut [f64],
    ) -> Full {
        for ((terms, m), v) in self
            .measures
            .iter()
            .zip(grads.iter_mut())
            .zip(vals.iter_mut())
        {
            *m = Grad4::zeros();
            *v = 0.0;
            for term in std::iter::once(&terms.0).chain(terms.1.as_ref()) {
                let s = term.eval::<NoHess>(poses);
                *v += s.val;
                term.spread_grad(&s.grad, m);
            }
        }
        let k = grads.len();
        let n = k + 1;
        let val = self.f.eval2(t, vals, g, h);
        let mut grad = Grad4::zeros();
        let mut phi_qt = Grad4::zeros();
        for (a, ma) in grads.iter().enumerate() {
            grad += ma * g[a];
            phi_qt += ma * h[a * n + k];
        }
        let hess = with_hess.then(|| {
            let mut hs = Hess4::zeros();
            for (a, terms) in self.measures.iter().enumerate() {
                if g[a] != 0.0 {
                    for term in std::iter::once(&terms.0).chain(terms.1.as_ref()) {
                        term.spread_hess(&term.eval::<Hess>(poses).hess, g[a], &mut hs);
                    }
                }
                for (b, mb) in grads.iter().enumerate() {
                    let c = h[a * n + b];
                    if c != 0.0 {
                        hs += (grads[a] * mb.transpose()) * c;
                    }
                }
            }
            hs
        });
        Full {
            val,
            grad,
            hess,
            phi_t: g[k],
            phi_tt: h[k * n + k],
            phi_qt,
        }
    }

    /// The primary piece (value, time terms), the extra piece (value 0)
    /// and, for `H = Hess`, the cross terms.
    pub(crate) fn pieces<H: Order>(
        &self,
        q: &[f64],
        t: f64,
    ) -> (EqValue<H>, Scalar<H>, Option<CrossTerms>) {
        let with_hess = H::with(Hess::zeros).get().is_some();
        let v = self.full(q, t, with_hess);
        let block = |r: usize, c: usize| {
            let hs = v.hess.as_ref();
            H::with(|| hs.map_or_else(Hess::zeros, |h| h.fixed_view::<NL, NL>(r, c).into()))
        };
        let primary = EqValue {
            s: Scalar {
                val: v.val,
                grad: v.grad.fixed_rows::<NL>(0).into(),
                hess: block(0, 0),
            },
            phi_t: v.phi_t,
            phi_tt: v.phi_tt,
            phi_qt: v.phi_qt.fixed_rows::<NL>(0).into(),
        };
        let extra = Scalar {
            val: 0.0,
            grad: v.grad.fixed_rows::<NL>(NL).into(),
            hess: block(NL, NL),
        };
        let cross = v.hess.map(|h| CrossTerms {
            h01: h.fixed_view::<NL, NL>(0, NL).into(),
            phi_qt: v.phi_qt.fixed_rows::<NL>(NL).into(),
        });
        (primary, extra, cross)
    }
}

impl System {
    /// Row k's [`CrossTerms`] at (q, t): Some for a GCON over three or
    /// four parts. The COUPLER's row has none: its cross blocks vanish
    /// where it holds (`coupler.rs`).
    pub fn cross_terms(&self, k: usize, q: &[f64], t: f64) -> Option<CrossTerms> {
        match &self.equations[k].prim {
            Primitive::GeneralMulti(g) => g.pieces::<Hess>(q, t).2,
            _ => None,
        }
    }

    /// w·H₀₁ at (row0 + primary, col + extra) and w·H₁₀ at (row0 + extra,
    /// col + primary) for a row with cross terms; zeros when `cross` is
    /// None (the fixed pattern of an inactive row or a zero multiplier).
    /// Rows without cross terms emit nothing.
    #[allow(clippy::too_many_arguments)]
    pub fn scatter_cross_hess(
        &self,
        k: usize,
        cross: Option<&CrossTerms>,
        w: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col: usize,
    ) {
        let eq = &self.equations[k];
        if !matches!(eq.prim, Primitive::GeneralMulti(_)) {
            return;
        }
        let (first, Some(second)) = (eq.bodies(), eq.extra_bodies()) else {
            return;
        };
        for r in 0..NL {
            let Some(gr) = global_index(&first, r) else {
                continue;
            };
            for c in 0..NL {
                let Some(gc) = global_index(&second, c) else {
                    continue;
                };
                let x = cross.map_or(0.0, |x| w * x.h01[(r, c)]);
                sink.add(row0 + gr, col + gc, x);
                sink.add(row0 + gc, col + gr, x);
            }
        }
    }
}
