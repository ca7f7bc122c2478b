//! Constraint primitives (Haug's point coincidence, dot-1 and dot-2) and the
//! joint-motion drivers, evaluated with exact derivatives on local coordinates.

use crate::local::{atan2, dot, norm, Grad, Hess, Pose, Scalar, V3};
use crate::system::{GeneralMeasure, MarkerFrame, Primitive};
use mbsolve_model::{ConstraintFunction, Measure};
use nalgebra::Vector3;

/// Φ_k with ∇Φ (and ∇²Φ on request) plus the explicit time terms.
#[derive(Clone, Debug)]
pub struct EqValue {
    pub s: Scalar,
    pub phi_t: f64,
    pub phi_tt: f64,
    pub phi_qt: Grad,
}

fn slot(m: &MarkerFrame, s: usize, poses: &[Option<Pose>; 2]) -> Option<Pose> {
    m.body.and(poses[s])
}

/// Marker origin of I (slot 0) or J (slot 1).
pub fn origin(m: &MarkerFrame, s: usize, poses: &[Option<Pose>; 2]) -> V3 {
    V3::point(s, slot(m, s, poses).as_ref(), m.s)
}

/// Marker axis k (0 = x, 1 = y, 2 = z) in ground.
pub fn axis(m: &MarkerFrame, s: usize, poses: &[Option<Pose>; 2], k: usize) -> V3 {
    V3::axis(s, slot(m, s, poses).as_ref(), m.axis(k))
}

fn static_value(s: Scalar) -> EqValue {
    EqValue {
        s,
        phi_t: 0.0,
        phi_tt: 0.0,
        phi_qt: Grad::zeros(),
    }
}

/// Value with gradient (and Hessian on request) of one GCON measure.
fn general_measure(m: &GeneralMeasure, poses: &[Option<Pose>; 2], hess: bool) -> Scalar {
    let (mi, si) = &m.i;
    let pt = |(mk, sk): &(MarkerFrame, usize)| origin(mk, *sk, poses);
    let unit = |a: usize| {
        let mut e = Vector3::zeros();
        e[a] = 1.0;
        V3::constant(e)
    };
    match m.kind {
        Measure::Dm { .. } | Measure::Disp { .. } => {
            let mut d = origin(mi, *si, poses);
            if let Some(j) = &m.j {
                d = d.add_scaled(&pt(j), -1.0);
            }
            match m.kind {
                Measure::Disp { axis: a, .. } => {
                    let e = match &m.k {
                        Some((mk, sk)) => axis(mk, *sk, poses, a as usize),
                        None => unit(a as usize),
                    };
                    dot(&d, &e, hess)
                }
                _ => norm(&d, hess),
            }
        }
        Measure::Angle { axis: a, .. } => {
            let (b, c) = ((a as usize + 1) % 3, (a as usize + 2) % 3);
            let eb = axis(mi, *si, poses, b);
            let (jb, jc) = match &m.j {
                Some((mj, sj)) => (axis(mj, *sj, poses, b), axis(mj, *sj, poses, c)),
                None => (unit(b), unit(c)),
            };
            atan2(&dot(&eb, &jc, hess), &dot(&eb, &jb, hess), hess)
        }
        // Rejected when the system is built.
        _ => Scalar {
            val: f64::NAN,
            grad: Grad::zeros(),
            hess: Hess::zeros(),
        },
    }
}

/// Φ = f(m(q), t) by the chain rule: ∇Φ = Σ fᵢ∇mᵢ,
/// ∇²Φ = Σ fᵢ∇²mᵢ + Σ fᵢⱼ∇mᵢ∇mⱼᵀ, Φ_qt = Σ fᵢₜ∇mᵢ.
fn general(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
    hess: bool,
) -> EqValue {
    let ms: Vec<Scalar> = measures
        .iter()
        .map(|m| general_measure(m, poses, hess))
        .collect();
    let k = ms.len();
    let n = k + 1;
    let vals: Vec<f64> = ms.iter().map(|m| m.val).collect();
    let mut g = vec![0.0; n];
    let mut h = vec![0.0; n * n];
    let val = f.eval2(t, &vals, &mut g, &mut h);
    let mut grad = Grad::zeros();
    let mut phi_qt = Grad::zeros();
    let mut hs = Hess::zeros();
    for (a, ma) in ms.iter().enumerate() {
        grad += ma.grad * g[a];
        phi_qt += ma.grad * h[a * n + k];
        if hess {
            hs += ma.hess * g[a];
            for (b, mb) in ms.iter().enumerate() {
                let c = h[a * n + b];
                if c != 0.0 {
                    hs += (ma.grad * mb.grad.transpose()) * c;
                }
            }
        }
    }
    EqValue {
        s: Scalar {
            val,
            grad,
            hess: hs,
        },
        phi_t: g[k],
        phi_tt: h[k * n + k],
        phi_qt,
    }
}

pub fn evaluate(prim: &Primitive, poses: &[Option<Pose>; 2], t: f64, hess: bool) -> EqValue {
    match prim {
        Primitive::General { measures, f, .. } => general(measures, f.as_ref(), poses, t, hess),
        Primitive::Normalize { .. } => {
            let p = poses[0].expect("normalization has a body").p;
            let mut grad = Grad::zeros();
            grad.fixed_rows_mut::<4>(3).copy_from(&p);
            let mut h = Hess::zeros();
            if hess {
                for k in 3..7 {
                    h[(k, k)] = 1.0;
                }
            }
            static_value(Scalar {
                val: 0.5 * (p.norm_squared() - 1.0),
                grad,
                hess: h,
            })
        }
        Primitive::PointDiff { i, j, axis: k } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            let mut e = Vector3::zeros();
            e[*k] = 1.0;
            static_value(dot(&d, &V3::constant(e), hess))
        }
        Primitive::Dot1 { i, ai, j, aj } => {
            static_value(dot(&axis(i, 0, poses, *ai), &axis(j, 1, poses, *aj), hess))
        }
        Primitive::Dot2 { i, j, aj } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            static_value(dot(&axis(j, 1, poses, *aj), &d, hess))
        }
        Primitive::TranslationMotion { i, j, f } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            let mut s = dot(&axis(j, 1, poses, 2), &d, hess);
            let [fv, fd, fdd] = f.eval(t);
            s.val -= fv;
            EqValue {
                s,
                phi_t: -fd,
                phi_tt: -fdd,
                phi_qt: Grad::zeros(),
            }
        }
        Primitive::RotationMotion { i, j, f } => {
            let [fv, fd, fdd] = f.eval(t);
            let (sn, cs) = fv.sin_cos();
            let xi = axis(i, 0, poses, 0);
            let xj = axis(j, 1, poses, 0);
            let yj = axis(j, 1, poses, 1);
            // V = y_J cos f − x_J sin f; W = dV/df = −y_J sin f − x_J cos f.
            let v = yj.clone().scaled(cs).add_scaled(&xj, -sn);
            let w = yj.scaled(-sn).add_scaled(&xj, -cs);
            let s = dot(&xi, &v, hess);
            let sw = dot(&xi, &w, false);
            EqValue {
                phi_t: fd * sw.val,
                phi_tt: fdd * sw.val - fd * fd * s.val,
                phi_qt: sw.grad * fd,
                s,
            }
        }
    }
}
