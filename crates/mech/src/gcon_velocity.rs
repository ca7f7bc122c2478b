//! GCON whose FUNCTION reads velocities: a non-holonomic (velocity-level)
//! constraint g(q, u, t) = 0 (Adams GCON statement: a FUNCTION with
//! velocity measures and no time integral is non-holonomic, and it is
//! handled correctly when it is in Pfaffian form, i.e. affine in the
//! velocities).
//!
//! With q̇ = u (Euler parameters: 7 coordinates per body) every velocity
//! measure this module reads is linear in u, m_v = c_v(q)ᵀ u, and a
//! Pfaffian FUNCTION f(m_p, m_v, t) = Σ_v α_v(m_p, t) m_v + β(m_p, t) is
//!
//!   g(q, u, t) = A(q, t) u + b(q, t),   A = Σ_v α_v c_v,   b = β,
//!
//! which is what Φ̇ = Φ_q u + Φ_t looks like for a holonomic row. The row is
//! therefore carried in that "Pfaffian view" (`EqValue` with Φ = 0,
//! ∇Φ = A, Φ_t = b, ∇²Φ = ∂A/∂q, Φ_qt = ½(b_q + A_t), Φ_tt = b_t), so that
//! the velocity rows (Φ_q u + Φ_t), the acceleration right-hand side
//! γ = −uᵀ(∂A/∂q)u − (b_q + A_t)·u − b_t, the constraint forces Aᵀλ and
//! their Jacobian λ ∂A/∂q need nothing of their own. ∂A/∂q is not
//! symmetric (that is what makes the constraint non-integrable):
//! `hess[(r, c)] = ∂A_r/∂q_c`. The formulations that impose the row
//! itself (I3, HHT/NEWMARK: g = 0 in place of Φ = 0) use [`VelocityRow`]:
//! g, ∂g/∂q = (∂A/∂q)ᵀu + b_q and ∂g/∂u = A.
//!
//! Measures: VX VY VZ (v_I − v_J in ground, resolved in K) and WX WY WZ
//! (ω_I − ω_J resolved in K), with DX DY DZ DM AX AY AZ and TIME; each of
//! v = ṙ + (∂(A(p)s)/∂p)ṗ and ω = 2E(p)ṗ is linear in u.

use crate::constraints::{general_measure, origin, EqValue};
use crate::local::{Grad, Hess, NoHess, Order, Pose, Scalar, V3};
use crate::rotation::e_mat;
use crate::system::{GeneralMeasure, MarkerFrame};
use mbsolve_model::{ConstraintFunction, Measure};
use nalgebra::{Vector3, Vector4};

/// Whether a measure is one of the velocity measures of a velocity GCON.
pub fn is_velocity_measure(m: &Measure) -> bool {
    matches!(m, Measure::Vel { .. } | Measure::AngVel { .. })
}

/// m_v = cᵀu: its coefficient c(q) and, for `H = Hess`, C = ∂c/∂q
/// (`C[(r, c)] = ∂c_r/∂q_c`).
fn velocity_coefficient<H: Order>(m: &GeneralMeasure, poses: &[Option<Pose>; 2]) -> (Grad, H) {
    let (axis, angular) = match m.kind {
        Measure::Vel { axis, .. } => (axis as usize, false),
        Measure::AngVel { axis, .. } => (axis as usize, true),
        _ => return (Grad::repeat(f64::NAN), H::with(|| Hess::repeat(f64::NAN))),
    };
    let e = match &m.k {
        Some((mk, sk)) => crate::constraints::axis(mk, *sk, poses, axis),
        None => {
            let mut v = Vector3::zeros();
            v[axis] = 1.0;
            V3::constant(v)
        }
    };
    if !angular {
        // v_I − v_J = J_d u with d = x_I − x_J: c = J_dᵀe,
        // ∂c/∂q = Σ_k e_k ∇²d_k + J_dᵀ J_e.
        let mut d = origin(&m.i.0, m.i.1, poses);
        if let Some((mj, sj)) = &m.j {
            d = d.add_scaled(&origin(mj, *sj, poses), -1.0);
        }
        let c = d.jac.tr_mul(&e.val);
        let cq = H::with(|| {
            let mut h = d.jac.tr_mul(&e.jac);
            d.add_hessian_contraction(&e.val, 1.0, &mut h);
            h
        });
        return (c, cq);
    }
    // ω of a marker = ω of its body = 2E(p)ṗ in ground: c has 2E(p)ᵀe in
    // the body's p entries (negated for J); ∂c/∂q = 2 ∂(E(p)ᵀe)/∂p
    // + 2E(p)ᵀJ_e, E being linear in p.
    let mut c = Grad::zeros();
    let mut cq = H::with(Hess::zeros);
    let mut add = |mf: &MarkerFrame, s: usize, sign: f64| {
        let Some(p) = mf.body.and(poses[s]).map(|b| b.p) else {
            return;
        };
        let o = 7 * s + 3;
        let ep = e_mat(&p);
        let col = ep.tr_mul(&e.val) * (2.0 * sign);
        for r in 0..4 {
            c[o + r] += col[r];
        }
        cq = cq.map(|mut h| {
            for j in 0..4 {
                let mut unit = Vector4::zeros();
                unit[j] = 1.0;
                let dcol = e_mat(&unit).tr_mul(&e.val) * (2.0 * sign);
                for r in 0..4 {
                    h[(o + r, o + j)] += dcol[r];
                }
            }
            let ej = ep.transpose() * e.jac * (2.0 * sign);
            for r in 0..4 {
                for k in 0..crate::local::NL {
                    h[(o + r, k)] += ej[(r, k)];
                }
            }
            h
        });
    };
    add(&m.i.0, m.i.1, 1.0);
    if let Some((mj, sj)) = &m.j {
        add(mj, *sj, -1.0);
    }
    (c, cq)
}

/// A, b and their derivatives for one velocity GCON at (poses, t).
pub struct PfaffianTerms<H: Order> {
    /// ∂g/∂u.
    pub a: Grad,
    /// g at u = 0.
    pub b: f64,
    pub b_q: Grad,
    pub a_t: Grad,
    pub b_t: f64,
    /// ∂A/∂q, `hess[(r, c)] = ∂A_r/∂q_c`.
    pub a_q: H,
}

/// Measures evaluated in stack buffers up to this many (the heap beyond).
const ON_STACK: usize = 8;

/// [`PfaffianTerms`] by the chain rule through f evaluated at the velocity
/// measures' zero (f is affine in them: `pfaffian_violation` checks it).
pub fn terms<H: Order>(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
) -> PfaffianTerms<H> {
    let k = measures.len();
    let n = k + 1;
    if k <= ON_STACK {
        let mut vals = [0.0; ON_STACK];
        let mut g = [0.0; ON_STACK + 1];
        let mut h = [0.0; (ON_STACK + 1) * (ON_STACK + 1)];
        terms_in(
            measures,
            f,
            poses,
            t,
            &mut vals[..k],
            &mut g[..n],
            &mut h[..n * n],
        )
    } else {
        terms_in(
            measures,
            f,
            poses,
            t,
            &mut vec![0.0; k],
            &mut vec![0.0; n],
            &mut vec![0.0; n * n],
        )
    }
}

fn terms_in<H: Order>(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
    vals: &mut [f64],
    g: &mut [f64],
    h: &mut [f64],
) -> PfaffianTerms<H> {
    let k = measures.len();
    let n = k + 1;
    // Position measures at q; velocity measures at 0 (f is affine in them).
    let mut pos: [Option<Scalar<NoHess>>; ON_STACK] = [None; ON_STACK];
    let mut pos_heap = Vec::new();
    let mut pos_of = |a: usize, s: Scalar<NoHess>| {
        if a < ON_STACK {
            pos[a] = Some(s);
        } else {
            pos_heap.push((a, s));
        }
    };
    for (a, m) in measures.iter().enumerate() {
        if is_velocity_measure(&m.kind) {
            vals[a] = 0.0;
        } else {
            let s = general_measure::<NoHess>(m, poses);
            vals[a] = s.val;
            pos_of(a, s);
        }
    }
    let position = |a: usize| -> Option<Scalar<NoHess>> {
        if a < ON_STACK {
            pos[a]
        } else {
            pos_heap.iter().find(|(b, _)| *b == a).map(|(_, s)| *s)
        }
    };
    let b = f.eval2(t, vals, g, h);
    let mut out = PfaffianTerms {
        a: Grad::zeros(),
        b,
        b_q: Grad::zeros(),
        a_t: Grad::zeros(),
        b_t: g[k],
        a_q: H::with(Hess::zeros),
    };
    for (a, m) in measures.iter().enumerate() {
        match position(a) {
            Some(s) => out.b_q += s.grad * g[a],
            None => {
                let (c, cq) = velocity_coefficient::<H>(m, poses);
                out.a += c * g[a];
                out.a_t += c * h[a * n + k];
                out.a_q = out.a_q.zip(cq, |mut acc, cq| {
                    acc += cq * g[a];
                    // α_v depends on the position measures: c_v ⊗ ∇m_p.
                    for p in 0..k {
                        let w = h[a * n + p];
                        if w != 0.0 {
                            if let Some(sp) = position(p) {
                                acc += (c * sp.grad.transpose()) * w;
                            }
                        }
                    }
                    acc
                });
            }
        }
    }
    out
}

/// The row in its Pfaffian view (module notes).
pub fn evaluate<H: Order>(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
) -> EqValue<H> {
    let x = terms::<H>(measures, f, poses, t);
    EqValue {
        s: Scalar {
            val: 0.0,
            grad: x.a,
            hess: x.a_q,
        },
        phi_t: x.b,
        phi_tt: x.b_t,
        phi_qt: (x.b_q + x.a_t) * 0.5,
    }
}

/// The row itself at (q, u, t): g and its gradients, on the equation's 14
/// local coordinates.
#[derive(Clone, Copy, Debug)]
pub struct VelocityRow {
    pub g: f64,
    /// ∂g/∂q = (∂A/∂q)ᵀu + b_q.
    pub dq: Grad,
    /// ∂g/∂u = A.
    pub du: Grad,
}

/// [`VelocityRow`] at local velocities `ul`.
pub fn row(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
    ul: &Grad,
) -> VelocityRow {
    let x = terms::<Hess>(measures, f, poses, t);
    VelocityRow {
        g: x.a.dot(ul) + x.b,
        dq: x.a_q.tr_mul(ul) + x.b_q,
        du: x.a,
    }
}

/// Why f is not affine in its velocity measures at the position-measure
/// values `m_p` (a probe at the velocity measures' zero and at two other
/// points: the gradient in the velocity measures must not change, and the
/// velocity–velocity second derivatives must vanish); None when it is.
pub fn pfaffian_violation(
    f: &dyn ConstraintFunction,
    velocity: &[bool],
    m_p: &[f64],
    t: f64,
) -> Option<String> {
    let k = velocity.len();
    let n = k + 1;
    let probe = |scale: f64, m: &mut Vec<f64>, g: &mut Vec<f64>, h: &mut Vec<f64>| {
        for a in 0..k {
            m[a] = if velocity[a] {
                // Distinct, irregular values per measure.
                scale * (0.37 + 0.61 * a as f64)
            } else {
                m_p[a]
            };
        }
        f.eval2(t, m, g, h);
    };
    let (mut m, mut g0, mut h) = (vec![0.0; k], vec![0.0; n], vec![0.0; n * n]);
    probe(0.0, &mut m, &mut g0, &mut h);
    for scale in [0.0, 1.3, -2.9] {
        let mut g = vec![0.0; n];
        probe(scale, &mut m, &mut g, &mut h);
        for a in (0..k).filter(|&a| velocity[a]) {
            let scale_a = g0[a].abs().max(1.0);
            if !g[a].is_finite() || (g[a] - g0[a]).abs() > 1e-9 * scale_a {
                return Some(format!(
                    "its derivative in velocity measure {} changes with the velocities",
                    a + 1
                ));
            }
            for b in (0..k).filter(|&b| velocity[b]) {
                if h[a * n + b].abs() > 1e-9 * scale_a {
                    return Some(format!(
                        "it has a second derivative in velocity measures {} and {}",
                        a + 1,
                        b + 1
                    ));
                }
            }
        }
    }
    None
}
