//! Constraint primitives (Haug's point coincidence, dot-1 and dot-2) and the
//! joint-motion drivers, evaluated with exact derivatives on local coordinates.

use crate::local::{atan2, dot, norm, Grad, Hess, Pose, Scalar, V3};
use crate::system::{AxisProduct, GeneralMeasure, MarkerFrame, Primitive};
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

/// The values of a GCON's measures at `poses` (for diagnosis).
pub(crate) fn general_values(measures: &[GeneralMeasure], poses: &[Option<Pose>; 2]) -> Vec<f64> {
    measures
        .iter()
        .map(|m| general_measure(m, poses, false).val)
        .collect()
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

/// The rack-and-pinion's two measures: the travel z_J·(x_I − x_J) and the
/// pinion's turn about z_I from the rack's z axis, atan2(−y_I·z_J, x_I·z_J)
/// in (−π, π]; the turn is None where it is undefined (z_J ∥ z_I).
pub fn rack_pin_measures(
    i: &MarkerFrame,
    j: &MarkerFrame,
    poses: &[Option<Pose>; 2],
    hess: bool,
) -> (Option<Scalar>, Option<Scalar>) {
    let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
    let zj = axis(j, 1, poses, 2);
    let travel = dot(&zj, &d, hess);
    let c = dot(&axis(i, 0, poses, 0), &zj, hess);
    let mut s = dot(&axis(i, 0, poses, 1), &zj, hess);
    s.val = -s.val;
    s.grad = -s.grad;
    s.hess = -s.hess;
    if s.val.hypot(c.val) < 1e-9 {
        return (Some(travel), None);
    }
    (Some(travel), Some(atan2(&s, &c, hess)))
}

/// Φ of the rack and pinion with the pinion's turn on the branch nearest the
/// committed one; returns the continued turn as well.
fn rack_pin(prim: &Primitive, poses: &[Option<Pose>; 2], hess: bool) -> (EqValue, f64) {
    let Primitive::RackPin {
        i,
        j,
        radius,
        offset,
        branch,
    } = prim
    else {
        unreachable!("rack_pin is called on RackPin only")
    };
    let (travel, angle) = rack_pin_measures(i, j, poses, hess);
    let travel = travel.expect("the travel is always defined");
    let nan = || Scalar {
        val: f64::NAN,
        grad: Grad::zeros(),
        hess: Hess::zeros(),
    };
    let angle = angle.unwrap_or_else(nan);
    let turn = branch.continued(angle.val);
    let s = Scalar {
        val: travel.val + radius * turn - offset,
        grad: travel.grad + angle.grad * *radius,
        hess: travel.hess + angle.hess * *radius,
    };
    (static_value(s), turn)
}

/// Φ(q, t) as the corrector sees it: like [`evaluate`], and an angle
/// continued across ±π commits its branch.
pub fn evaluate_committing(prim: &Primitive, poses: &[Option<Pose>; 2], t: f64) -> f64 {
    match prim {
        Primitive::RackPin { branch, .. } => {
            let (v, turn) = rack_pin(prim, poses, false);
            branch.commit(turn);
            v.s.val
        }
        _ => evaluate(prim, poses, t, false).s.val,
    }
}

/// sign · (A_I e_ai)·(A_J e_aj) with derivatives.
fn axis_product(
    p: &AxisProduct,
    i: &MarkerFrame,
    j: &MarkerFrame,
    poses: &[Option<Pose>; 2],
    hess: bool,
) -> Scalar {
    let mut s = dot(&axis(i, 0, poses, p.ai), &axis(j, 1, poses, p.aj), hess);
    s.val *= p.sign;
    s.grad *= p.sign;
    s.hess *= p.sign;
    s
}

pub fn evaluate(prim: &Primitive, poses: &[Option<Pose>; 2], t: f64, hess: bool) -> EqValue {
    match prim {
        Primitive::RackPin { .. } => rack_pin(prim, poses, hess).0,
        Primitive::AngleMotion { i, j, s, c, f } => {
            // Φ = S cos f − C sin f; with W = −S sin f − C cos f = ∂Φ/∂f:
            // Φ_t = f′W, Φ_tt = f″W − f′²Φ, Φ_qt = f′∇W.
            let [fv, fd, fdd] = f.eval(t);
            let (sn, cs) = fv.sin_cos();
            let sv = axis_product(s, i, j, poses, hess);
            let cv = axis_product(c, i, j, poses, hess);
            let phi = Scalar {
                val: sv.val * cs - cv.val * sn,
                grad: sv.grad * cs - cv.grad * sn,
                hess: sv.hess * cs - cv.hess * sn,
            };
            let w = -sv.val * sn - cv.val * cs;
            let wgrad = -(sv.grad * sn) - cv.grad * cs;
            EqValue {
                phi_t: fd * w,
                phi_tt: fdd * w - fd * fd * phi.val,
                phi_qt: wgrad * fd,
                s: phi,
            }
        }
        Primitive::SineMotion { i, ai, j, aj, f } => {
            // Φ = a_I·a_J − sin f: Φ_t = −f′cos f, Φ_tt = f′² sin f − f″ cos f.
            let [fv, fd, fdd] = f.eval(t);
            let (sn, cs) = fv.sin_cos();
            let mut s = dot(&axis(i, 0, poses, *ai), &axis(j, 1, poses, *aj), hess);
            s.val -= sn;
            EqValue {
                s,
                phi_t: -fd * cs,
                phi_tt: fd * fd * sn - fdd * cs,
                phi_qt: Grad::zeros(),
            }
        }
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
        Primitive::TranslationMotion { i, j, axis: a, f } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            let mut s = dot(&axis(j, 1, poses, *a), &d, hess);
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
