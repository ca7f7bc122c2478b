//! Force elements as generalized forces Q(q, u, t) with exact Jacobians.
//!
//! A line-of-sight or about-axis force is work-conjugate to a measure m(q)
//! (distance, relative angle): Q = f ∇m, so ∂Q/∂q = ∇m ∇_q fᵀ + f ∇²m and
//! ∂Q/∂u = ∇m ∇_u fᵀ, with ṁ = ∇m·u because q̇ = u. Action-only forces use
//! their own direction map g(q) instead of ∇m.

use crate::constraints::{axis, origin};
use crate::contact_fn::RunSwitches;
use crate::local::{atan2, dot, norm, Grad, Hess, Jac3, NoHess, Order, Pose, Scalar, NL};
use crate::rotation::{e_mat, u_mat};
use crate::states::StateContext;
use crate::system::{gather, global_index, pose, scatter_hess, MarkerFrame, Sink, System};
use mbsolve_model::{ElementRef, ForceKind, Measure, Model, ModelError, StateFunction};
use nalgebra::{Matrix4, SMatrix, Vector3, Vector4};
use std::sync::Arc;

/// How the force magnitude is computed.
#[derive(Debug, Clone)]
pub enum Law {
    /// f = −k (m − m0) − c ṁ + preload.
    SpringDamper {
        k: f64,
        c: f64,
        m0: f64,
        preload: f64,
    },
    /// f = F(t, measures); measures mapped to element slots.
    Function {
        f: Arc<dyn StateFunction>,
        measures: Vec<SlotMeasure>,
    },
}

/// A measure whose markers lie on the element's two bodies (or ground).
#[derive(Debug, Clone)]
pub struct SlotMeasure {
    pub(crate) kind: Measure,
    pub(crate) i: (MarkerFrame, usize),
    pub(crate) j: Option<(MarkerFrame, usize)>,
    k: Option<(MarkerFrame, usize)>,
    /// The CONTACT a [`Measure::Contact`] reads (`contact_fn.rs`).
    pub(crate) contact: Option<Arc<crate::contact_fn::ContactMeasure>>,
    /// The frame marker L of a [`Measure::FrameVel`] / [`Measure::FrameSpeed`].
    pub(crate) l: Option<(MarkerFrame, usize)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Conjugate {
    Distance,
    AngleZ,
}

#[derive(Debug, Clone)]
pub enum Direction {
    /// Q = f ∇m.
    Conjugate(Conjugate),
    /// Force on I along z_J (action only).
    ActionTranslation,
    /// Torque on I about z_J (action only).
    ActionRotation,
    /// VFORCE, VTORQUE, GFORCE: force F = Σ f_k x_RM,k applied at I and
    /// torque T = Σ t_k x_RM,k on I's part; the reaction −F, −T acts on the
    /// JFLOAT part at the material point that coincides with I (Adams moves
    /// the floating marker onto I). Components: [FX, FY, FZ, TX, TY, TZ],
    /// None = not given; `rm` is the RM marker with its slot.
    Vector {
        rm: (MarkerFrame, usize),
        components: Box<[Option<Law>; 6]>,
    },
    /// BUSHING, FIELD, BEAM: six-component linear law, reaction on J.
    Elastic(Box<crate::elastic::ElasticLaw>),
}

#[derive(Debug, Clone)]
pub struct ForceElement {
    pub element: ElementRef,
    pub i: MarkerFrame,
    pub j: MarkerFrame,
    pub direction: Direction,
    /// The magnitude law of a scalar element; None for [`Direction::Vector`],
    /// whose laws are its components.
    pub law: Option<Law>,
}

/// Measure value with its gradients on the element's 14 local q and u.
struct MeasureValue {
    val: f64,
    gq: Grad,
    gu: Grad,
}

pub(crate) fn build(sys: &System, model: &Model) -> Result<Vec<ForceElement>, ModelError> {
    let mut out = Vec::new();
    for f in &model.forces {
        let e = f.element();
        let i = *sys.marker(f.i);
        let j = match &f.kind {
            // The JFLOAT marker sits on I (its own placement is unused):
            // only its body matters, for the reaction.
            ForceKind::Vector {
                jfloat,
                reaction_part,
                ..
            } => MarkerFrame {
                id: *jfloat,
                body: sys.bodies.iter().position(|b| b.part == *reaction_part),
                s: Vector3::zeros(),
                axes: nalgebra::Matrix3::identity(),
            },
            _ => *sys.marker(f.j),
        };
        let bodies = [i.body, j.body];
        let slot_of = |id: u32| -> Result<(MarkerFrame, usize), ModelError> {
            let m = *sys.marker(id);
            match m.body {
                None => Ok((m, 0)),
                Some(b) if bodies[0] == Some(b) => Ok((m, 0)),
                Some(b) if bodies[1] == Some(b) => Ok((m, 1)),
                Some(_) => Err(ModelError {
                    element: Some(e),
                    location: model.describe(e),
                    message: format!(
                        "function refers to marker {id} on a third part; measures on parts other than those of I and J are not supported yet"
                    ),
                }),
            }
        };
        let func = |f: &Arc<dyn StateFunction>| -> Result<Law, ModelError> {
            let mut law = function_law(f, &slot_of, (i, 0))?;
            crate::contact_fn::attach(sys, model, e, &mut law, bodies)?;
            crate::orient_measure::attach(sys, &mut law);
            Ok(law)
        };
        let (direction, law) = match &f.kind {
            ForceKind::Vector { components, .. } => {
                let rm = slot_of(f.j)?;
                let mut laws: [Option<Law>; 6] = Default::default();
                for (law, c) in laws.iter_mut().zip(components.iter()) {
                    *law = c.as_ref().map(func).transpose()?;
                }
                (
                    Direction::Vector {
                        rm,
                        components: Box::new(laws),
                    },
                    None,
                )
            }
            ForceKind::Elastic(e) => (
                Direction::Elastic(Box::new(crate::elastic::ElasticLaw::new(e))),
                None,
            ),
            ForceKind::TranslationalSpringDamper {
                stiffness,
                damping,
                free_length,
                preload,
            } => (
                Direction::Conjugate(Conjugate::Distance),
                Some(Law::SpringDamper {
                    k: *stiffness,
                    c: *damping,
                    m0: *free_length,
                    preload: *preload,
                }),
            ),
            ForceKind::RotationalSpringDamper {
                stiffness,
                damping,
                free_angle,
                preload,
            } => (
                Direction::Conjugate(Conjugate::AngleZ),
                Some(Law::SpringDamper {
                    k: *stiffness,
                    c: *damping,
                    m0: *free_angle,
                    preload: *preload,
                }),
            ),
            ForceKind::TranslationalActionReaction { function } => (
                Direction::Conjugate(Conjugate::Distance),
                Some(func(function)?),
            ),
            ForceKind::RotationalActionReaction { function } => (
                Direction::Conjugate(Conjugate::AngleZ),
                Some(func(function)?),
            ),
            ForceKind::TranslationalActionOnly { function } => {
                (Direction::ActionTranslation, Some(func(function)?))
            }
            ForceKind::RotationalActionOnly { function } => {
                (Direction::ActionRotation, Some(func(function)?))
            }
        };
        out.push(ForceElement {
            element: e,
            i,
            j,
            direction,
            law,
        });
    }
    Ok(out)
}

/// The law of a function of measures whose markers `slot_of` places in the
/// element's two slots; user-state measures (DIF) take `anchor` as their
/// (unused) marker.
pub(crate) fn function_law(
    f: &Arc<dyn StateFunction>,
    slot_of: &dyn Fn(u32) -> Result<(MarkerFrame, usize), ModelError>,
    anchor: (MarkerFrame, usize),
) -> Result<Law, ModelError> {
    let mut ms = Vec::new();
    for m in f.measures() {
        let sm = match *m {
            Measure::Dm { i, j }
            | Measure::Vr { i, j }
            | Measure::Speed { i, j }
            | Measure::AngSpeed { i, j } => SlotMeasure {
                kind: *m,
                i: slot_of(i)?,
                j: j.map(slot_of).transpose()?,
                k: None,
                contact: None,
                l: None,
            },
            Measure::Disp { i, j, k, .. }
            | Measure::Vel { i, j, k, .. }
            | Measure::AngVel { i, j, k, .. } => SlotMeasure {
                kind: *m,
                i: slot_of(i)?,
                j: j.map(slot_of).transpose()?,
                k: k.map(slot_of).transpose()?,
                contact: None,
                l: None,
            },
            Measure::Angle { i, j, .. }
            | Measure::Euler { i, j, .. }
            | Measure::Orient { i, j, .. } => SlotMeasure {
                kind: *m,
                i: slot_of(i)?,
                j: j.map(slot_of).transpose()?,
                k: None,
                contact: None,
                l: None,
            },
            Measure::FrameVel { i, j, k, l, .. } => SlotMeasure {
                kind: *m,
                i: slot_of(i)?,
                j: j.map(slot_of).transpose()?,
                k: k.map(slot_of).transpose()?,
                contact: None,
                l: Some(slot_of(l)?),
            },
            Measure::FrameSpeed { i, j, l } => SlotMeasure {
                kind: *m,
                i: slot_of(i)?,
                j: j.map(slot_of).transpose()?,
                k: None,
                contact: None,
                l: Some(slot_of(l)?),
            },
            // User states and solved quantities are read from the state
            // values (chain_rule), with no marker; a contact is attached by
            // `contact_fn::attach`.
            Measure::UserState { .. } | Measure::Solved { .. } | Measure::Contact { .. } => {
                SlotMeasure {
                    kind: *m,
                    i: anchor,
                    j: None,
                    k: None,
                    contact: None,
                    l: None,
                }
            }
        };
        ms.push(sm);
    }
    Ok(Law::Function {
        f: f.clone(),
        measures: ms,
    })
}

fn slot_pose(m: &MarkerFrame, poses: &[Option<Pose>; 2], s: usize) -> [Option<Pose>; 2] {
    // Place the marker's body pose in its slot (other slot irrelevant).
    let mut p = [None, None];
    if m.body.is_some() {
        p[s] = poses[s];
    }
    p
}

/// Displacement vector x_I − x_J with markers in their slots.
pub(crate) fn rel_point(
    i: &(MarkerFrame, usize),
    j: &Option<(MarkerFrame, usize)>,
    poses: &[Option<Pose>; 2],
) -> crate::local::V3 {
    let xi = origin(&i.0, i.1, &slot_pose(&i.0, poses, i.1));
    match j {
        Some((mj, sj)) => xi.add_scaled(&origin(mj, *sj, &slot_pose(mj, poses, *sj)), -1.0),
        None => xi,
    }
}

pub(crate) fn k_axis(
    k: &Option<(MarkerFrame, usize)>,
    poses: &[Option<Pose>; 2],
    ax: usize,
) -> crate::local::V3 {
    match k {
        Some((mk, sk)) => axis(mk, *sk, &slot_pose(mk, poses, *sk), ax),
        None => {
            let mut e = Vector3::zeros();
            e[ax] = 1.0;
            crate::local::V3::constant(e)
        }
    }
}

fn angle<H: Order>(
    i: &MarkerFrame,
    si: usize,
    j: Option<&MarkerFrame>,
    sj: usize,
    poses: &[Option<Pose>; 2],
    ax: usize,
) -> Scalar<H> {
    let (b, c) = ((ax + 1) % 3, (ax + 2) % 3);
    let eb = axis(i, si, &slot_pose(i, poses, si), b);
    let (jb, jc) = match j {
        Some(mj) => (
            axis(mj, sj, &slot_pose(mj, poses, sj), b),
            axis(mj, sj, &slot_pose(mj, poses, sj), c),
        ),
        None => (k_axis(&None, poses, b), k_axis(&None, poses, c)),
    };
    atan2(&dot(&eb, &jc), &dot(&eb, &jb))
}

impl SlotMeasure {
    fn eval(&self, poses: &[Option<Pose>; 2], ul: &Grad, run: &RunSwitches) -> MeasureValue {
        let zero = Grad::zeros();
        match self.kind {
            // The value comes from the user states (chain_rule); it does
            // not depend on q or u.
            Measure::UserState { .. } | Measure::Solved { .. } => MeasureValue {
                val: 0.0,
                gq: zero,
                gu: zero,
            },
            Measure::Dm { .. } => {
                let s = norm::<NoHess>(&rel_point(&self.i, &self.j, poses));
                MeasureValue {
                    val: s.val,
                    gq: s.grad,
                    gu: zero,
                }
            }
            Measure::Vr { .. } => {
                let s = norm::<Hess>(&rel_point(&self.i, &self.j, poses));
                MeasureValue {
                    val: s.grad.dot(ul),
                    gq: s.hess * ul,
                    gu: s.grad,
                }
            }
            Measure::Disp { axis: ax, .. } => {
                let d = rel_point(&self.i, &self.j, poses);
                let s = dot::<NoHess>(&d, &k_axis(&self.k, poses, ax as usize));
                MeasureValue {
                    val: s.val,
                    gq: s.grad,
                    gu: zero,
                }
            }
            Measure::Vel { axis: ax, .. } => {
                let d = rel_point(&self.i, &self.j, poses);
                let a = k_axis(&self.k, poses, ax as usize);
                let v = d.jac * ul;
                let mut h = Hess::zeros();
                d.add_hessian_contraction(&a.val, 1.0, &mut h);
                MeasureValue {
                    val: v.dot(&a.val),
                    gq: h * ul + a.jac.tr_mul(&v),
                    gu: d.jac.tr_mul(&a.val),
                }
            }
            Measure::AngVel { axis: ax, .. } => {
                let a = k_axis(&self.k, poses, ax as usize);
                let mut val = 0.0;
                let mut gq = Grad::zeros();
                let mut gu = Grad::zeros();
                let mut omega = Vector3::zeros();
                let mut add = |m: &MarkerFrame, s: usize, sign: f64| {
                    if m.body.is_none() {
                        return;
                    }
                    let p = poses[s].unwrap().p;
                    let pd: Vector4<f64> = ul.fixed_rows::<4>(7 * s + 3).into();
                    let w = 2.0 * e_mat(&p) * pd;
                    omega += sign * w;
                    val += sign * a.val.dot(&w);
                    let um = u_mat(&a.val);
                    gu.fixed_rows_mut::<4>(7 * s + 3)
                        .axpy(2.0 * sign, &(um * p), 1.0);
                    gq.fixed_rows_mut::<4>(7 * s + 3)
                        .axpy(2.0 * sign, &(um.transpose() * pd), 1.0);
                };
                add(&self.i.0, self.i.1, 1.0);
                if let Some((mj, sj)) = &self.j {
                    add(mj, *sj, -1.0);
                }
                gq += a.jac.tr_mul(&omega);
                MeasureValue { val, gq, gu }
            }
            // |v| and |ω| from their three ground components: ∇|x| =
            // Σ (x_a/|x|) ∇x_a, taken as 0 at |x| = 0 (a one-sided choice:
            // the magnitude has no derivative there).
            Measure::Speed { i, j } | Measure::AngSpeed { i, j } => {
                let mut val = 0.0;
                let mut comps = [(0.0, Grad::zeros(), Grad::zeros()); 3];
                for (axis, c) in comps.iter_mut().enumerate() {
                    let axis = axis as u8;
                    let kind = match self.kind {
                        Measure::Speed { .. } => Measure::Vel {
                            i,
                            j,
                            k: None,
                            axis,
                        },
                        _ => Measure::AngVel {
                            i,
                            j,
                            k: None,
                            axis,
                        },
                    };
                    let part = SlotMeasure {
                        kind,
                        i: self.i,
                        j: self.j,
                        k: None,
                        contact: None,
                        l: None,
                    }
                    .eval(poses, ul, run);
                    val += part.val * part.val;
                    *c = (part.val, part.gq, part.gu);
                }
                let val = val.sqrt();
                let (mut gq, mut gu) = (Grad::zeros(), Grad::zeros());
                if val > 0.0 {
                    for (x, cq, cu) in &comps {
                        gq.axpy(x / val, cq, 1.0);
                        gu.axpy(x / val, cu, 1.0);
                    }
                }
                MeasureValue { val, gq, gu }
            }
            Measure::FrameVel { .. } | Measure::FrameSpeed { .. } => {
                let ax = match self.kind {
                    Measure::FrameVel { axis, .. } => Some(axis as usize),
                    _ => None,
                };
                let (val, gq, gu) = match &self.l {
                    Some(l) => {
                        crate::frame_measures::eval(&self.i, &self.j, &self.k, l, poses, ul, ax)
                    }
                    None => (f64::NAN, zero, zero),
                };
                MeasureValue { val, gq, gu }
            }
            Measure::Contact { .. } => {
                let (val, gq, gu) = match &self.contact {
                    Some(c) => c.eval(poses, ul, run),
                    None => (f64::NAN, zero, zero),
                };
                MeasureValue { val, gq, gu }
            }
            Measure::Angle { axis: ax, .. } => {
                let j = self.j.as_ref();
                let s = angle::<NoHess>(
                    &self.i.0,
                    self.i.1,
                    j.map(|x| &x.0),
                    j.map_or(1, |x| x.1),
                    poses,
                    ax as usize,
                );
                MeasureValue {
                    val: s.val,
                    gq: s.grad,
                    gu: zero,
                }
            }
            Measure::Euler { angle, .. } => {
                let s =
                    crate::euler_measures::euler_angle(&self.i.0, self.i.1, &self.j, poses, angle);
                MeasureValue {
                    val: s.val,
                    gq: s.grad,
                    gu: zero,
                }
            }
            Measure::Orient {
                system, comp, flip, ..
            } => {
                let (val, gq) =
                    crate::orient_measure::eval(&self.i, &self.j, poses, system, comp, flip);
                MeasureValue { val, gq, gu: zero }
            }
        }
    }
}

/// Local result of a force element: Q and optionally ∂Q/∂q, ∂Q/∂u.
pub(crate) struct LocalForce {
    pub(crate) q: Grad,
    jq: Hess,
    ju: Hess,
}

/// f(t, m(q, u)) with ∇_q f and ∇_u f by the chain rule over the measures;
/// the buffers hold one entry per measure.
#[allow(clippy::too_many_arguments)]
fn chain_rule(
    f: &dyn StateFunction,
    measures: &[SlotMeasure],
    poses: &[Option<Pose>; 2],
    ul: &Grad,
    t: f64,
    vals: &mut [f64],
    dm: &mut [f64],
    mv: &mut [Option<MeasureValue>],
    st: &StateContext,
) -> (f64, Grad, Grad) {
    for (k, m) in measures.iter().enumerate() {
        let v = m.eval(poses, ul, &st.run);
        vals[k] = st.value(&m.kind).unwrap_or(v.val);
        mv[k] = Some(v);
    }
    let (val, _dt) = f.eval(t, vals, dm);
    if st.seed.is_some() {
        // ∂f/∂w_k + c ∂f/∂w'_k in place of f (see `StateContext::seed`).
        let d = measures
            .iter()
            .zip(dm.iter())
            .map(|(m, d)| st.seed_weight(&m.kind) * d)
            .sum();
        return (d, Grad::zeros(), Grad::zeros());
    }
    let mut gq = Grad::zeros();
    let mut gu = Grad::zeros();
    for (v, d) in mv.iter().flatten().zip(dm.iter()) {
        gq += v.gq * *d;
        gu += v.gu * *d;
    }
    (val, gq, gu)
}

/// A distance below this fraction of the markers' distance from the
/// origin (at least 1 model length unit) is a coincidence: the unit vector
/// I − J is then rounding noise or 0/0.
const COINCIDENT: f64 = 1e-12;

impl ForceElement {
    /// Why this element gives a non-finite force at (q, u, t), or None:
    /// coincident markers of a force directed along I − J, a measure that
    /// is not finite, or the function's own explanation.
    pub fn diagnose(&self, q: &[f64], u: &[f64], t: f64) -> Option<String> {
        let bodies = self.bodies();
        let poses = [bodies[0].map(|b| pose(q, b)), bodies[1].map(|b| pose(q, b))];
        let ul = gather(&bodies, u);
        if let Direction::Conjugate(Conjugate::Distance) = self.direction {
            let xi = origin(&self.i, 0, &poses).val;
            let xj = origin(&self.j, 1, &poses).val;
            let scale = xi.norm().max(xj.norm()).max(1.0);
            if (xi - xj).norm() <= COINCIDENT * scale {
                return Some(format!(
                    "its markers I (MARKER/{}) and J (MARKER/{}) coincide, so the direction of the translational force (from J to I) is undefined",
                    self.i.id, self.j.id
                ));
            }
        }
        self.laws()
            .find_map(|law| diagnose_law(law, &poses, &ul, t))
    }

    /// Every law of the element: its scalar law, or the components of a
    /// VFORCE/VTORQUE/GFORCE.
    pub(crate) fn laws(&self) -> Box<dyn Iterator<Item = &Law> + '_> {
        match &self.direction {
            Direction::Vector { components, .. } => Box::new(components.iter().flatten()),
            _ => Box::new(self.law.iter()),
        }
    }

    fn bodies(&self) -> [Option<usize>; 2] {
        [self.i.body, self.j.body]
    }
}

/// Why a function law is not finite at this state, or None.
fn diagnose_law(law: &Law, poses: &[Option<Pose>; 2], ul: &Grad, t: f64) -> Option<String> {
    let Law::Function { f, measures } = law else {
        return None;
    };
    let mut vals = Vec::with_capacity(measures.len());
    for (k, m) in measures.iter().enumerate() {
        let v = m.eval(poses, ul, &RunSwitches::NONE).val;
        if !v.is_finite() {
            return Some(format!(
                "measure {} of its FUNCTION ({:?}) is {v}",
                k + 1,
                m.kind
            ));
        }
        vals.push(v);
    }
    let mut dm = vec![0.0; vals.len()];
    let (v, dt) = f.eval(t, &vals, &mut dm);
    if v.is_finite() && dt.is_finite() && dm.iter().all(|d| d.is_finite()) {
        return None;
    }
    Some(
        f.explain(t, &vals)
            .unwrap_or_else(|| format!("its function value is {v}")),
    )
}

impl Law {
    /// Magnitude f with ∇_q f, ∇_u f, given the conjugate measure (if any).
    pub(crate) fn value(
        &self,
        poses: &[Option<Pose>; 2],
        ul: &Grad,
        t: f64,
        conj: Option<&Scalar>,
        st: &StateContext,
    ) -> (f64, Grad, Grad) {
        match self {
            // No user state in a spring-damper law: ∂f/∂w = 0.
            Law::SpringDamper { .. } if st.seed.is_some() => (0.0, Grad::zeros(), Grad::zeros()),
            Law::SpringDamper { k, c, m0, preload } => {
                let m = conj.expect("spring-damper has a conjugate measure");
                let mdot = m.grad.dot(ul);
                let f = -k * (m.val - m0) - c * mdot + preload;
                (f, -m.grad * *k - (m.hess * ul) * *c, -m.grad * *c)
            }
            Law::Function { f, measures } => {
                // Usually a handful of measures: stack buffers, no
                // allocation; any number beyond that on the heap (issue 11:
                // they used to be cut at 16 without a word).
                const ON_STACK: usize = 16;
                let n = measures.len();
                if n <= ON_STACK {
                    let mut vals = [0.0; ON_STACK];
                    let mut dm = [0.0; ON_STACK];
                    let mut mv: [Option<MeasureValue>; ON_STACK] = Default::default();
                    chain_rule(
                        f.as_ref(),
                        measures,
                        poses,
                        ul,
                        t,
                        &mut vals[..n],
                        &mut dm[..n],
                        &mut mv[..n],
                        st,
                    )
                } else {
                    let mut mv: Vec<Option<MeasureValue>> = (0..n).map(|_| None).collect();
                    chain_rule(
                        f.as_ref(),
                        measures,
                        poses,
                        ul,
                        t,
                        &mut vec![0.0; n],
                        &mut vec![0.0; n],
                        &mut mv,
                        st,
                    )
                }
            }
        }
    }
}

impl ForceElement {
    /// The magnitude law of an element other than VFORCE/VTORQUE/GFORCE.
    fn scalar_law(&self) -> &Law {
        self.law.as_ref().expect("scalar force element has a law")
    }

    pub(crate) fn local(
        &self,
        q: &[f64],
        u: &[f64],
        t: f64,
        jac: bool,
        st: &StateContext,
    ) -> LocalForce {
        let bodies = self.bodies();
        let poses = [bodies[0].map(|b| pose(q, b)), bodies[1].map(|b| pose(q, b))];
        let ul = gather(&bodies, u);
        let mut out = LocalForce {
            q: Grad::zeros(),
            jq: Hess::zeros(),
            ju: Hess::zeros(),
        };
        match &self.direction {
            Direction::Conjugate(c) => {
                // Spring damping and Jacobians need ∇²m.
                let m = match c {
                    Conjugate::Distance => {
                        let d = origin(&self.i, 0, &poses)
                            .add_scaled(&origin(&self.j, 1, &poses), -1.0);
                        norm::<Hess>(&d)
                    }
                    Conjugate::AngleZ => angle::<Hess>(&self.i, 0, Some(&self.j), 1, &poses, 2),
                };
                let (f, fq, fu) = self.scalar_law().value(&poses, &ul, t, Some(&m), st);
                out.q = m.grad * f;
                if jac {
                    out.jq = m.grad * fq.transpose() + m.hess * f;
                    out.ju = m.grad * fu.transpose();
                }
            }
            Direction::ActionTranslation => {
                let (f, fq, fu) = self.scalar_law().value(&poses, &ul, t, None, st);
                let x = origin(&self.i, 0, &poses);
                let z = axis(&self.j, 1, &poses, 2);
                let g = x.jac.tr_mul(&z.val);
                out.q = g * f;
                if jac {
                    let mut dg = x.jac.tr_mul(&z.jac);
                    x.add_hessian_contraction(&z.val, 1.0, &mut dg);
                    out.jq = g * fq.transpose() + dg * f;
                    out.ju = g * fu.transpose();
                }
            }
            Direction::ActionRotation => {
                let (f, fq, fu) = self.scalar_law().value(&poses, &ul, t, None, st);
                let z = axis(&self.j, 1, &poses, 2);
                let mut g = Grad::zeros();
                let mut dg = Hess::zeros();
                if let Some(pi) = poses[0] {
                    let um: Matrix4<f64> = u_mat(&z.val);
                    g.fixed_rows_mut::<4>(3).copy_from(&(um * pi.p * 2.0));
                    let et: SMatrix<f64, 4, 3> = e_mat(&pi.p).transpose() * 2.0;
                    let mut blk = dg.fixed_rows_mut::<4>(3);
                    blk += et * z.jac;
                    let mut d = dg.fixed_view_mut::<4, 4>(3, 3);
                    d += um * 2.0;
                }
                out.q = g * f;
                if jac {
                    out.jq = g * fq.transpose() + dg * f;
                    out.ju = g * fu.transpose();
                }
            }
            Direction::Vector { rm, components } => {
                vector_force(&self.i, rm, components, &poses, &ul, t, jac, &mut out, st);
            }
            Direction::Elastic(law) => {
                let (q, d) = law.local(&self.i, &self.j, &poses, &ul, jac);
                out.q = q;
                if let Some((jq, ju)) = d {
                    (out.jq, out.ju) = (jq, ju);
                }
            }
        }
        out
    }

    /// out −= Q (residual convention R = M a − Q + Φ_qᵀλ).
    pub fn add_residual(&self, st: &StateContext, q: &[f64], u: &[f64], t: f64, out: &mut [f64]) {
        let bodies = self.bodies();
        let lf = self.local(q, u, t, false, st);
        for l in 0..NL {
            if let Some(g) = global_index(&bodies, l) {
                out[g] -= lf.q[l];
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub fn add_jacobian(
        &self,
        st: &StateContext,
        q: &[f64],
        u: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col_q: Option<usize>,
        col_u: usize,
        cu: f64,
    ) {
        let bodies = self.bodies();
        let lf = self.local(q, u, t, true, st);
        if let Some(cq) = col_q {
            scatter_hess(&bodies, &(-lf.jq), sink, row0, cq);
        }
        scatter_hess(&bodies, &(lf.ju * -cu), sink, row0, col_u);
    }

    /// Generalized force Q on the element's local coordinates (for reports).
    pub fn local_force(&self, q: &[f64], u: &[f64], t: f64) -> Grad {
        self.local(q, u, t, false, &StateContext::NONE).q
    }

    /// [`ForceElement::local_force`] with the user states `st` (forces
    /// that read DIF/DIF1).
    pub fn local_force_with(&self, q: &[f64], u: &[f64], t: f64, st: &StateContext) -> Grad {
        self.local(q, u, t, false, st).q
    }
}

/// A global vector with its first derivatives on the local q and u.
struct VecDerivs {
    val: Vector3<f64>,
    dq: Jac3,
    du: Jac3,
}

impl VecDerivs {
    fn zero() -> Self {
        VecDerivs {
            val: Vector3::zeros(),
            dq: Jac3::zeros(),
            du: Jac3::zeros(),
        }
    }
}

/// VFORCE/VTORQUE/GFORCE: F at I and T on I, −F and −T on the JFLOAT body
/// (slot 1) at the material point coincident with I. Virtual work
/// δW = F·δx_I + T·δθ_I − F·(δr_J + δθ_J × d) − T·δθ_J with d = x_I − r_J,
/// and δθ = 2 E(p) δp (ground-axes angular velocity), so
/// Q_qI = (∂x_I/∂q)ᵀ F + [p_I rows] 2 E(p_I)ᵀ T,
/// Q_rJ = −F, Q_pJ = −2 E(p_J)ᵀ (d × F + T); U(v) p = E(p)ᵀ v.
#[allow(clippy::too_many_arguments)]
fn vector_force(
    i: &MarkerFrame,
    rm: &(MarkerFrame, usize),
    components: &[Option<Law>; 6],
    poses: &[Option<Pose>; 2],
    ul: &Grad,
    t: f64,
    jac: bool,
    out: &mut LocalForce,
    st: &StateContext,
) {
    let mut force = VecDerivs::zero();
    let mut torque = VecDerivs::zero();
    for (k, law) in components.iter().enumerate() {
        let Some(law) = law else { continue };
        let (f, fq, fu) = law.value(poses, ul, t, None, st);
        let a = axis(&rm.0, rm.1, poses, k % 3);
        let v = if k < 3 { &mut force } else { &mut torque };
        v.val += a.val * f;
        if jac {
            v.dq += a.val * fq.transpose() + a.jac * f;
            v.du += a.val * fu.transpose();
        }
    }
    let xi = origin(i, 0, poses);
    out.q += xi.jac.tr_mul(&force.val);
    if jac {
        out.jq += xi.jac.tr_mul(&force.dq);
        xi.add_hessian_contraction(&force.val, 1.0, &mut out.jq);
        out.ju += xi.jac.tr_mul(&force.du);
    }
    // Torque on a body in slot s: Q_p = 2 U(τ) p, ∂/∂τ = 2 E(p)ᵀ, ∂/∂p = 2 U(τ).
    let mut add_torque = |s: usize, p: &Vector4<f64>, tau: &VecDerivs, sign: f64| {
        let r0 = 7 * s + 3;
        let um: Matrix4<f64> = u_mat(&tau.val);
        out.q
            .fixed_rows_mut::<4>(r0)
            .axpy(2.0 * sign, &(um * p), 1.0);
        if jac {
            let et: SMatrix<f64, 4, 3> = e_mat(p).transpose() * (2.0 * sign);
            let mut rows = out.jq.fixed_rows_mut::<4>(r0);
            rows += et * tau.dq;
            let mut d = out.jq.fixed_view_mut::<4, 4>(r0, r0);
            d += um * (2.0 * sign);
            let mut rows = out.ju.fixed_rows_mut::<4>(r0);
            rows += et * tau.du;
        }
    };
    if let Some(pi) = poses[0] {
        add_torque(0, &pi.p, &torque, 1.0);
    }
    if let Some(pj) = poses[1] {
        let d = xi.val - pj.r;
        let mut dd = xi.jac;
        for c in 0..3 {
            dd[(c, 7 + c)] -= 1.0;
        }
        let fx = force.val.cross_matrix();
        let dx = d.cross_matrix();
        let tau_j = VecDerivs {
            val: d.cross(&force.val) + torque.val,
            dq: -fx * dd + dx * force.dq + torque.dq,
            du: dx * force.du + torque.du,
        };
        add_torque(1, &pj.p, &tau_j, -1.0);
        out.q.fixed_rows_mut::<3>(7).axpy(-1.0, &force.val, 1.0);
        if jac {
            let mut rows = out.jq.fixed_rows_mut::<3>(7);
            rows -= force.dq;
            let mut rows = out.ju.fixed_rows_mut::<3>(7);
            rows -= force.du;
        }
    }
}
