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
//! Rotations mixed with translations beyond one rotation are rejected, as
//! are couplers whose joints move more than two parts (every constraint
//! equation spans at most two bodies).

use crate::constraints::{axis, origin, EqValue};
use crate::local::{atan2, dot, Grad, NoHess, Order, Pose, Scalar};
use crate::system::{pose, MarkerFrame, Primitive, System};
use mbsolve_model::{Coupler, CouplerFreedom, ElementRef, Gear, Model, ModelError};

/// One coupled joint: its I and J markers with their element slots.
#[derive(Clone, Debug)]
struct Term {
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
        let mut bodies: [Option<usize>; 2] = [None, None];
        let mut place = |m: MarkerFrame| -> Result<(MarkerFrame, usize), ModelError> {
            let Some(b) = m.body else { return Ok((m, 0)) };
            if let Some(s) = bodies.iter().position(|x| *x == Some(b)) {
                return Ok((m, s));
            }
            let Some(s) = bodies.iter().position(|x| x.is_none()) else {
                return Err(fail(
                    "its joints move more than two parts; mbsolve's constraint equations span at most two moving parts, so couple joints that share a part or ground".into(),
                ));
            };
            bodies[s] = Some(b);
            Ok((m, s))
        };
        let mut terms = Vec::new();
        for (id, freedom, scale) in &c.joints {
            let joint = model
                .joints
                .iter()
                .find(|j| j.id == *id)
                .expect("validated joint");
            terms.push(Term {
                i: place(*sys.marker(joint.i))?,
                j: place(*sys.marker(joint.j))?,
                rotation: *freedom == CouplerFreedom::Rotation,
                scale: *scale,
                initial: 0.0,
            });
        }
        let poses = [
            bodies[0].map(|b| pose(q0, b)),
            bodies[1].map(|b| pose(q0, b)),
        ];
        for (t, (id, ..)) in terms.iter_mut().zip(&c.joints) {
            let Some(q) = displacement::<NoHess>(t, &poses) else {
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
            terms,
            form,
        })
    }

    pub(crate) fn evaluate<H: Order>(&self, poses: &[Option<Pose>; 2]) -> EqValue<H> {
        let q: Vec<Scalar<H>> = self
            .terms
            .iter()
            .map(|t| displacement(t, poses).unwrap_or_else(nan))
            .collect();
        let s = match &self.form {
            Form::Linear | Form::OneTurn(_) => {
                let mut sum = Scalar {
                    val: 0.0,
                    grad: Grad::zeros(),
                    hess: H::with(crate::local::Hess::zeros),
                };
                for (k, (t, qk)) in self.terms.iter().zip(&q).enumerate() {
                    if matches!(self.form, Form::OneTurn(r) if r == k) {
                        continue;
                    }
                    let mut d = *qk;
                    d.val -= t.initial;
                    sum = sum.combined(1.0, &d, t.scale);
                }
                if let Form::OneTurn(r) = self.form {
                    // The turn the other terms imply, and the angle's branch
                    // nearest it.
                    let t = &self.terms[r];
                    let implied = t.initial - sum.val / t.scale;
                    let tau = std::f64::consts::TAU;
                    let mut a = q[r];
                    a.val += tau * ((implied - a.val) / tau).round();
                    a.val -= t.initial;
                    sum = sum.combined(1.0, &a, t.scale);
                }
                sum
            }
            Form::Turns { multiples, factor } => {
                let mut x = Scalar {
                    val: 0.0,
                    grad: Grad::zeros(),
                    hess: H::with(crate::local::Hess::zeros),
                };
                for ((t, qk), m) in self.terms.iter().zip(&q).zip(multiples) {
                    let mut d = *qk;
                    d.val -= t.initial;
                    x = x.combined(1.0, &d, *m);
                }
                // c sin x: ∇ = c cos x ∇x, ∇² = c (cos x ∇²x − sin x ∇x ∇xᵀ).
                let (sn, cs) = x.val.sin_cos();
                Scalar {
                    val: factor * sn,
                    grad: x.grad * (factor * cs),
                    hess: x
                        .hess
                        .map(|h| (h * cs - x.grad * x.grad.transpose() * sn) * *factor),
                }
            }
        };
        EqValue {
            s,
            phi_t: 0.0,
            phi_tt: 0.0,
            phi_qt: Grad::zeros(),
        }
    }
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
