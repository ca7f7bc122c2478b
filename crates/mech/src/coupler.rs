//! COUPLER: Σ r_k (q_k − q_k⁰) = 0 over two or three joint displacements
//! (q = z_J·(x_I − x_J) for a translation, q = atan2(x_I·y_J, x_I·x_J) for
//! a rotation about z_J; q⁰ in the input configuration), as one stateless
//! equation of the positions (the model/data split keeps every evaluation a
//! pure function of q):
//!
//! - translations only: the linear sum itself;
//! - one rotation: the angle, measured in (−π, π], is continued to the
//!   branch nearest the one the other terms imply (as the rack and pinion
//!   does), exact within half a turn of holding;
//! - rotations only: with the scale ratios r_k/r_1 = m_k/m_1 (integers,
//!   denominator at most 1000, found to 1e-6), Φ = (r_1/m_1) sin(Σ m_k Δθ_k),
//!   which is the sum to first order, blind to the 2π wrap of each angle
//!   (the m_k are integers), and holds on the branch the input starts on.
//!
//! Rotations mixed with translations beyond one rotation are rejected.
//!
//! Joints that move three or four parts (FRS5's COUPLER/2–5: two joints on
//! parts 222–31 and 223–31) make a row over more than two bodies. Each
//! joint's displacement reads two bodies, so the terms are grouped into two
//! pieces of at most two bodies each (`bodies`, `extra`); the row's
//! gradient is the sum of the pieces' 14-vectors, and so is its Hessian up
//! to the blocks coupling the two pieces. Those are exactly zero for the
//! linear forms (a sum of per-piece terms) and −c sin x ∇x₁∇x₂ᵀ for the
//! sine form, which vanishes where the coupler holds (Φ = c sin x = 0), so
//! the iteration matrices lose nothing at the solution and γ (acceleration
//! right-hand side) is exact on the constraint manifold.

use crate::constraints::{axis, origin, EqValue};
use crate::local::{atan2, dot, Grad, Hess, NoHess, Order, Pose, Scalar};
use crate::system::{pose, MarkerFrame, Primitive, System};
use crate::Sink;
use mbsolve_model::{Coupler, CouplerFreedom, ElementRef, Gear, Model, ModelError};

/// One coupled joint: its I and J markers with their element slots.
#[derive(Clone, Debug)]
struct Term {
    /// 0: the primary piece (`bodies`), 1: the extra piece.
    piece: usize,
    i: (MarkerFrame, usize),
    j: (MarkerFrame, usize),
    rotation: bool,
    scale: f64,
    /// The displacement in the input configuration.
    initial: f64,
}

#[derive(Clone, Debug)]
enum Form {
    Linear,
    /// Index of the single rotational term.
    OneTurn(usize),
    /// Integer multiples m_k of each term and the factor r_1/m_1.
    Turns {
        multiples: Vec<f64>,
        factor: f64,
    },
}

/// The coupler equation, ready to evaluate.
#[derive(Clone, Debug)]
pub struct CouplerEq {
    pub bodies: [Option<usize>; 2],
    /// The second pair of bodies, when the joints move more than two parts.
    pub extra: Option<[Option<usize>; 2]>,
    terms: Vec<Term>,
    form: Form,
}

/// The joint displacement q of one term; None where a rotation is
/// undefined (x_I along z_J).
fn displacement<H: Order>(t: &Term, poses: &[Option<Pose>; 2]) -> Option<Scalar<H>> {
    let (mi, si) = &t.i;
    let (mj, sj) = &t.j;
    if t.rotation {
        let xi = axis(mi, *si, poses, 0);
        let s = dot::<H>(&xi, &axis(mj, *sj, poses, 1));
        let c = dot::<H>(&xi, &axis(mj, *sj, poses, 0));
        if s.val.hypot(c.val) < 1e-9 {
            return None;
        }
        Some(atan2(&s, &c))
    } else {
        let d = origin(mi, *si, poses).add_scaled(&origin(mj, *sj, poses), -1.0);
        Some(dot(&axis(mj, *sj, poses, 2), &d))
    }
}

fn nan<H: Order>() -> Scalar<H> {
    Scalar {
        val: f64::NAN,
        grad: Grad::zeros(),
        hess: H::with(crate::local::Hess::zeros),
    }
}

/// Smallest q ≤ 1000 making every ratio times q an integer to 1e-6: the
/// integers, or None.
fn common_multiples(ratios: &[f64]) -> Option<Vec<f64>> {
    (1..=1000).map(f64::from).find_map(|q| {
        let m: Vec<f64> = ratios.iter().map(|r| (r * q).round()).collect();
        let fits = ratios
            .iter()
            .zip(&m)
            .all(|(r, m)| (r * q - m).abs() <= 1e-6 * m.abs().max(1.0));
        fits.then_some(m)
    })
}

impl CouplerEq {
    pub(crate) fn build(
        sys: &System,
        model: &Model,
        c: &Coupler,
        q0: &[f64],
        e: ElementRef,
    ) -> Result<CouplerEq, ModelError> {
        let fail = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        let mut pieces: [[Option<usize>; 2]; 2] = [[None, None]; 2];
        let mut terms = Vec::new();
        for (id, freedom, scale) in &c.joints {
            let joint = model
                .joints
                .iter()
                .find(|j| j.id == *id)
                .expect("validated joint");
            let (mi, mj) = (*sys.marker(joint.i), *sys.marker(joint.j));
            let Some((piece, si, sj)) = place(&mut pieces, mi.body, mj.body) else {
                return Err(fail(format!(
                    "its joints move more than two pairs of parts (JOINT/{id} fits neither); mbsolve's COUPLER spans at most two pairs of moving parts"
                )));
            };
            terms.push(Term {
                piece,
                i: (mi, si),
                j: (mj, sj),
                rotation: *freedom == CouplerFreedom::Rotation,
                scale: *scale,
                initial: 0.0,
            });
        }
        let [bodies, second] = pieces;
        let extra = second.iter().any(Option::is_some).then_some(second);
        let poses = piece_poses(q0, &bodies, extra.as_ref());
        for (t, (id, ..)) in terms.iter_mut().zip(&c.joints) {
            let Some(q) = displacement::<NoHess>(t, &poses[t.piece]) else {
                return Err(fail(format!(
                    "the rotation of JOINT/{id} is undefined: the x axis of its I marker lies along the z axis of its J marker"
                )));
            };
            t.initial = q.val;
        }
        let turns: Vec<usize> = (0..terms.len()).filter(|&k| terms[k].rotation).collect();
        let form = match turns.len() {
            0 => Form::Linear,
            1 => Form::OneTurn(turns[0]),
            n if n == terms.len() => {
                let ratios: Vec<f64> = terms.iter().map(|t| t.scale / terms[0].scale).collect();
                let Some(multiples) = common_multiples(&ratios) else {
                    return Err(fail(format!(
                        "the SCALES of its rotations are in no ratio of integers up to 1000 (to 1e-6): {ratios:?} relative to the first"
                    )));
                };
                Form::Turns {
                    factor: terms[0].scale / multiples[0],
                    multiples,
                }
            }
            _ => {
                return Err(fail(
                    "it couples two rotations with a translation; mbsolve couples a translation with at most one rotation".into(),
                ))
            }
        };
        Ok(CouplerEq {
            bodies,
            extra,
            terms,
            form,
        })
    }

    /// Φ with the primary piece's gradient (and Hessian) in `.0` and, for
    /// a coupler over more than two bodies, the extra piece's in `.1`
    /// (value 0: Φ is `.0.s.val`). `poses[p]` are piece p's slot poses.
    pub(crate) fn evaluate<H: Order>(
        &self,
        poses: &[[Option<Pose>; 2]; 2],
    ) -> (EqValue<H>, Option<Scalar<H>>) {
        let zero = || Scalar {
            val: 0.0,
            grad: Grad::zeros(),
            hess: H::with(crate::local::Hess::zeros),
        };
        let mut q: [Option<Scalar<H>>; 3] = [None; 3];
        for (qk, t) in q.iter_mut().zip(&self.terms) {
            *qk = Some(displacement(t, &poses[t.piece]).unwrap_or_else(nan));
        }
        let q = |k: usize| q[k].expect("a coupler has at most three terms");
        // Per piece: the sum of its terms (linear forms) or its part of
        // the turn x (sine form).
        let mut sums = [zero(), zero()];
        let sine = match &self.form {
            Form::Linear | Form::OneTurn(_) => {
                for (k, t) in self.terms.iter().enumerate() {
                    if matches!(self.form, Form::OneTurn(r) if r == k) {
                        continue;
                    }
                    let mut d = q(k);
                    d.val -= t.initial;
                    sums[t.piece] = sums[t.piece].combined(1.0, &d, t.scale);
                }
                if let Form::OneTurn(r) = self.form {
                    // The turn the other terms imply, and the angle's branch
                    // nearest it.
                    let t = &self.terms[r];
                    let implied = t.initial - (sums[0].val + sums[1].val) / t.scale;
                    let tau = std::f64::consts::TAU;
                    let mut a = q(r);
                    a.val += tau * ((implied - a.val) / tau).round();
                    a.val -= t.initial;
                    sums[t.piece] = sums[t.piece].combined(1.0, &a, t.scale);
                }
                None
            }
            Form::Turns { multiples, factor } => {
                for (k, (t, m)) in self.terms.iter().zip(multiples).enumerate() {
                    let mut d = q(k);
                    d.val -= t.initial;
                    sums[t.piece] = sums[t.piece].combined(1.0, &d, *m);
                }
                Some(*factor)
            }
        };
        let total = sums[0].val + sums[1].val;
        let [mut s, mut extra] = sums;
        if let Some(factor) = sine {
            // c sin x: ∇ = c cos x ∇x, ∇² = c (cos x ∇²x − sin x ∇x ∇xᵀ),
            // per piece (the cross-piece blocks, ∝ sin x, are left out; see
            // the module comment).
            let (sn, cs) = total.sin_cos();
            let piece = |x: &Scalar<H>| Scalar {
                val: 0.0,
                grad: x.grad * (factor * cs),
                hess: x
                    .hess
                    .map(|h| (h * cs - x.grad * x.grad.transpose() * sn) * factor),
            };
            s = piece(&s);
            extra = piece(&extra);
            s.val = factor * sn;
        } else {
            s.val = total;
        }
        extra.val = 0.0;
        (
            EqValue {
                s,
                phi_t: 0.0,
                phi_tt: 0.0,
                phi_qt: Grad::zeros(),
            },
            self.extra.map(|_| extra),
        )
    }
}

/// The slot poses of the primary and the extra piece.
pub(crate) fn piece_poses(
    q: &[f64],
    bodies: &[Option<usize>; 2],
    extra: Option<&[Option<usize>; 2]>,
) -> [[Option<Pose>; 2]; 2] {
    let slots = |b: &[Option<usize>; 2]| [b[0].map(|b| pose(q, b)), b[1].map(|b| pose(q, b))];
    [slots(bodies), extra.map_or([None, None], slots)]
}

/// The first of the two pieces that has (or has room for) both moving
/// bodies of a joint, with their slots; the pieces fill as terms arrive.
fn place(
    pieces: &mut [[Option<usize>; 2]; 2],
    bi: Option<usize>,
    bj: Option<usize>,
) -> Option<(usize, usize, usize)> {
    for (p, piece) in pieces.iter_mut().enumerate() {
        let mut trial = *piece;
        let mut slot = |b: Option<usize>, ground_slot: usize| -> Option<usize> {
            let Some(b) = b else { return Some(ground_slot) };
            if let Some(s) = trial.iter().position(|x| *x == Some(b)) {
                return Some(s);
            }
            let s = trial.iter().position(Option::is_none)?;
            trial[s] = Some(b);
            Some(s)
        };
        if let (Some(si), Some(sj)) = (slot(bi, 0), slot(bj, 1)) {
            *piece = trial;
            return Some((p, si, sj));
        }
    }
    None
}

/// The coupler's constraint equation.
pub(crate) fn primitive(
    sys: &System,
    model: &Model,
    c: &Coupler,
    q0: &[f64],
) -> Result<Primitive, ModelError> {
    Ok(Primitive::Coupler(Box::new(CouplerEq::build(
        sys,
        model,
        c,
        q0,
        ElementRef::Coupler(c.id),
    )?)))
}

/// The GEAR as the COUPLER of its joints: joint k's rate moves its gear's
/// material point at the CV origin p with velocity sign_k·v_k, where
/// v_k = z_J × (p − o_J) for a rotation (REVOLUTE, CYLINDRICAL) and z_J for
/// a translation, and sign_k = +1 when J is on the carrier (the joint's
/// displacement is its gear's motion relative to the carrier), −1 when I
/// is. Equal velocities along z_CV: s₁ q̇₁ + s₂ q̇₂ = 0 with
/// s₁ = sign₁ z_CV·v₁, s₂ = −sign₂ z_CV·v₂, constant in the carrier frame,
/// so it integrates to the coupler s₁ Δq₁ + s₂ Δq₂ = 0.
pub(crate) fn gear_primitive(
    sys: &System,
    model: &Model,
    g: &Gear,
    q0: &[f64],
) -> Result<Primitive, ModelError> {
    let e = ElementRef::Gear(g.id);
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    let cv = model.marker_in_ground(g.cv).expect("validated CV marker");
    let carrier = model.marker(g.cv).expect("validated CV marker").part;
    let (p, zc) = (cv.origin, cv.rotation.column(2).into_owned());
    let mut joints = Vec::new();
    for (k, id) in g.joints.iter().enumerate() {
        let jt = model
            .joints
            .iter()
            .find(|j| j.id == *id)
            .expect("validated joint");
        let sign = if model.marker(jt.j).map(|m| m.part) == Some(carrier) {
            1.0
        } else {
            -1.0
        };
        let at = model.marker_in_ground(jt.j).expect("validated marker");
        let z = at.rotation.column(2).into_owned();
        let rotation = jt.kind != mbsolve_model::JointKind::Translational;
        let v = if rotation {
            z.cross(&(p - at.origin))
        } else {
            z
        };
        let rate = sign * zc.dot(&v);
        if rate.abs() < 1e-12 * (1.0 + (p - at.origin).norm()) {
            return Err(fail(format!(
                "JOINT/{id} moves nothing along z of the CV marker {} at its origin (the contact point is on the joint's axis, or z_CV is perpendicular to the motion)",
                g.cv
            )));
        }
        let freedom = if rotation {
            CouplerFreedom::Rotation
        } else {
            CouplerFreedom::Translation
        };
        joints.push((*id, freedom, if k == 0 { rate } else { -rate }));
    }
    let c = Coupler { id: g.id, joints };
    Ok(Primitive::Coupler(Box::new(CouplerEq::build(
        sys, model, &c, q0, e,
    )?)))
}

impl crate::system::Equation {
    /// The second pair of bodies of a row over more than two (a COUPLER
    /// whose joints move three or four parts), whose gradient and Hessian
    /// [`System::extra_piece`] gives; None for every other row.
    pub fn extra_bodies(&self) -> Option<[Option<usize>; 2]> {
        match &self.prim {
            Primitive::Coupler(c) => c.extra,
            Primitive::GeneralMulti(g) => Some(g.extra()),
            _ => None,
        }
    }
}

impl System {
    /// Equation k's primary piece (what [`System::equation`] gives) and its
    /// extra piece, if any (value 0, no time terms).
    pub(crate) fn coupler_pieces<H: Order>(
        c: &CouplerEq,
        q: &[f64],
    ) -> (EqValue<H>, Option<Scalar<H>>) {
        c.evaluate(&piece_poses(q, &c.bodies, c.extra.as_ref()))
    }

    /// The extra piece of row k over more than two bodies: its two bodies
    /// and ∇Φ_k (∇²Φ_k for `H = Hess`) over them, to be added to the
    /// primary piece's; None for a row over at most two bodies.
    pub fn extra_piece<H: Order>(
        &self,
        k: usize,
        q: &[f64],
        t: f64,
    ) -> Option<([Option<usize>; 2], Scalar<H>)> {
        match &self.equations[k].prim {
            Primitive::Coupler(c) => Some((c.extra?, Self::coupler_pieces::<H>(c, q).1?)),
            // Its cross terms: `System::cross_terms`.
            Primitive::GeneralMulti(g) => Some((g.extra(), g.pieces::<H>(q, t).1)),
            _ => None,
        }
    }

    /// Calls `f(global index, ∂Φ_k/∂q)` over the extra piece of row k (see
    /// [`System::extra_piece`]), with 0 when `on` is false (the fixed
    /// pattern of a deactivated row).
    pub fn for_extra_gradient(
        &self,
        k: usize,
        q: &[f64],
        t: f64,
        on: bool,
        mut f: impl FnMut(usize, f64),
    ) {
        let Some(extra) = self.equations[k].extra_bodies() else {
            return;
        };
        let grad = on.then(|| self.extra_piece::<NoHess>(k, q, t)).flatten();
        for l in 0..crate::local::NL {
            if let Some(gi) = crate::system::global_index(&extra, l) {
                f(gi, grad.as_ref().map_or(0.0, |(_, s)| s.grad[l]));
            }
        }
    }
}

impl System {
    /// λ_k ∇²Φ_k of row k's extra piece into (row0 + gi, col + gj), and
    /// for a GCON over more than two parts its cross-piece blocks
    /// (`gcon_multi.rs`), zeros when inactive or λ_k = 0 (the fixed
    /// pattern; a coupler reads positions, so every entry is emitted, as
    /// `Equation::scatter_hess` does for it).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn scatter_extra_hess(
        &self,
        active: &[bool],
        k: usize,
        q: &[f64],
        t: f64,
        lam: &[f64],
        sink: &mut dyn Sink,
        row0: usize,
        col: usize,
    ) {
        let Some(extra) = self.equations[k].extra_bodies() else {
            return;
        };
        let on = active[k] && lam[k] != 0.0;
        let h = if on {
            self.extra_piece::<Hess>(k, q, t)
                .map_or_else(Hess::zeros, |(_, x)| x.hess * lam[k])
        } else {
            Hess::zeros()
        };
        crate::system::scatter_hess(&extra, &h, sink, row0, col);
        // A GCON over more than two parts: λ_k H₀₁ and its transpose.
        let cross = on.then(|| self.cross_terms(k, q, t)).flatten();
        self.scatter_cross_hess(k, cross.as_ref(), lam[k], sink, row0, col);
    }
}
