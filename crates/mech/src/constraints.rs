//! Constraint primitives (Haug's point coincidence, dot-1 and dot-2) and the
//! joint-motion drivers, evaluated with exact derivatives on local coordinates.

use crate::local::{dot, Grad, Hess, Pose, Scalar, V3};
use crate::system::{MarkerFrame, Primitive};
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

pub fn evaluate(prim: &Primitive, poses: &[Option<Pose>; 2], t: f64, hess: bool) -> EqValue {
    match prim {
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
