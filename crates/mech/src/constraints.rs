//! Constraint primitives (Haug's point coincidence, dot-1 and dot-2) and the
//! joint-motion drivers, evaluated with exact derivatives on local coordinates.

use crate::local::{atan2, dot, norm, Grad, Hess, NoHess, Order, Pose, Scalar, V3};
use crate::system::{AxisProduct, GeneralMeasure, MarkerFrame, Primitive};
use mbsolve_model::{ConstraintFunction, Measure};
use nalgebra::Vector3;

/// Φ_k with ∇Φ (and ∇²Φ for `H = Hess`) plus the explicit time terms.
#[derive(Clone, Debug)]
pub struct EqValue<H: Order = Hess> {
    pub s: Scalar<H>,
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

fn static_value<H: Order>(s: Scalar<H>) -> EqValue<H> {
    EqValue {
        s,
        phi_t: 0.0,
        phi_tt: 0.0,
        phi_qt: Grad::zeros(),
    }
}

/// Value with gradient (and Hessian for `H = Hess`) of one GCON measure.
pub(crate) fn general_measure<H: Order>(
    m: &GeneralMeasure,
    poses: &[Option<Pose>; 2],
) -> Scalar<H> {
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
                    dot(&d, &e)
                }
                _ => norm(&d),
            }
        }
        Measure::Angle { axis: a, .. } => {
            let (b, c) = ((a as usize + 1) % 3, (a as usize + 2) % 3);
            let eb = axis(mi, *si, poses, b);
            let (jb, jc) = match &m.j {
                Some((mj, sj)) => (axis(mj, *sj, poses, b), axis(mj, *sj, poses, c)),
                None => (unit(b), unit(c)),
            };
            atan2(&dot(&eb, &jc), &dot(&eb, &jb))
        }
        // Rejected when the system is built.
        _ => nan_scalar(),
    }
}

fn nan_scalar<H: Order>() -> Scalar<H> {
    Scalar {
        val: f64::NAN,
        grad: Grad::zeros(),
        hess: H::with(Hess::zeros),
    }
}

/// The values of a GCON's measures at `poses` (for diagnosis).
pub(crate) fn general_values(measures: &[GeneralMeasure], poses: &[Option<Pose>; 2]) -> Vec<f64> {
    measures
        .iter()
        .map(|m| {
            // A velocity GCON's FUNCTION is read at the velocities' zero
            // (`gcon_velocity`).
            if crate::gcon_velocity::is_velocity_measure(&m.kind) {
                0.0
            } else {
                general_measure::<NoHess>(m, poses).val
            }
        })
        .collect()
}

/// GCON measures evaluated in stack buffers; a GCON with more measures
/// uses the heap.
const GCON_ON_STACK: usize = 8;

/// Φ = f(m(q), t) by the chain rule: ∇Φ = Σ fᵢ∇mᵢ,
/// ∇²Φ = Σ fᵢ∇²mᵢ + Σ fᵢⱼ∇mᵢ∇mⱼᵀ, Φ_qt = Σ fᵢₜ∇mᵢ.
fn general<H: Order>(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
) -> EqValue<H> {
    let k = measures.len();
    let n = k + 1;
    if k <= GCON_ON_STACK {
        let mut ms = [nan_scalar::<H>(); GCON_ON_STACK];
        let mut vals = [0.0; GCON_ON_STACK];
        let mut g = [0.0; GCON_ON_STACK + 1];
        let mut h = [0.0; (GCON_ON_STACK + 1) * (GCON_ON_STACK + 1)];
        general_in(
            measures,
            f,
            poses,
            t,
            &mut ms[..k],
            &mut vals[..k],
            &mut g[..n],
            &mut h[..n * n],
        )
    } else {
        general_in(
            measures,
            f,
            poses,
            t,
            &mut vec![nan_scalar::<H>(); k],
            &mut vec![0.0; k],
            &mut vec![0.0; n],
            &mut vec![0.0; n * n],
        )
    }
}

/// [`general`] in caller-provided buffers of one entry per measure (`g`:
/// k + 1, `h`: (k + 1)²).
#[allow(clippy::too_many_arguments)]
fn general_in<H: Order>(
    measures: &[GeneralMeasure],
    f: &dyn ConstraintFunction,
    poses: &[Option<Pose>; 2],
    t: f64,
    ms: &mut [Scalar<H>],
    vals: &mut [f64],
    g: &mut [f64],
    h: &mut [f64],
) -> EqValue<H> {
    for ((m, s), v) in measures.iter().zip(ms.iter_mut()).zip(vals.iter_mut()) {
        *s = general_measure(m, poses);
        *v = s.val;
    }
    let k = ms.len();
    let n = k + 1;
    let val = f.eval2(t, vals, g, h);
    let mut grad = Grad::zeros();
    let mut phi_qt = Grad::zeros();
    for (a, ma) in ms.iter().enumerate() {
        grad += ma.grad * g[a];
        phi_qt += ma.grad * h[a * n + k];
    }
    let hess = H::with(|| {
        let mut hs = Hess::zeros();
        for (a, ma) in ms.iter().enumerate() {
            // Σ fᵢ∇²mᵢ: the measures carry Hessians exactly when H does.
            if let Some(mh) = ma.hess.get() {
                hs += mh * g[a];
            }
            for (b, mb) in ms.iter().enumerate() {
                let c = h[a * n + b];
                if c != 0.0 {
                    hs += (ma.grad * mb.grad.transpose()) * c;
                }
            }
        }
        hs
    });
    EqValue {
        s: Scalar { val, grad, hess },
        phi_t: g[k],
        phi_tt: h[k * n + k],
        phi_qt,
    }
}

/// The rack-and-pinion's two measures: the travel z_J·(x_I − x_J) and the
/// pinion's turn about z_I from the rack's z axis, atan2(−y_I·z_J, x_I·z_J)
/// in (−π, π]; the turn is None where it is undefined (z_J ∥ z_I).
pub fn rack_pin_measures<H: Order>(
    i: &MarkerFrame,
    j: &MarkerFrame,
    poses: &[Option<Pose>; 2],
) -> (Option<Scalar<H>>, Option<Scalar<H>>) {
    let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
    let zj = axis(j, 1, poses, 2);
    let travel = dot(&zj, &d);
    let c = dot(&axis(i, 0, poses, 0), &zj);
    let s = dot::<H>(&axis(i, 0, poses, 1), &zj).scaled(-1.0);
    if s.val.hypot(c.val) < 1e-9 {
        return (Some(travel), None);
    }
    (Some(travel), Some(atan2(&s, &c)))
}

/// Φ of the rack and pinion. The pinion's turn θ is measured as atan2 in
/// (−π, π] and continued to the branch nearest the turn the rack's travel
/// implies, θ* = (offset − travel)/r: Φ = r·(θ − θ*) is then the smooth
/// constraint wherever |Φ| < rπ (within half a turn of holding), with no
/// state to carry between evaluations (the model/data split keeps the model
/// immutable and every evaluation a pure function of (q, t)).
fn rack_pin<H: Order>(prim: &Primitive, poses: &[Option<Pose>; 2]) -> EqValue<H> {
    let Primitive::RackPin {
        i,
        j,
        radius,
        offset,
    } = prim
    else {
        unreachable!("rack_pin is called on RackPin only")
    };
    let (travel, angle) = rack_pin_measures::<H>(i, j, poses);
    let travel = travel.expect("the travel is always defined");
    let angle = angle.unwrap_or_else(nan_scalar);
    let implied = (offset - travel.val) / radius;
    let tau = std::f64::consts::TAU;
    let turn = angle.val + tau * ((implied - angle.val) / tau).round();
    let s = Scalar {
        val: travel.val + radius * turn - offset,
        grad: travel.grad + angle.grad * *radius,
        hess: travel.hess.zip(angle.hess, |a, b| a + b * *radius),
    };
    static_value(s)
}

/// sign · (A_I e_ai)·(A_J e_aj) with derivatives.
fn axis_product<H: Order>(
    p: &AxisProduct,
    i: &MarkerFrame,
    j: &MarkerFrame,
    poses: &[Option<Pose>; 2],
) -> Scalar<H> {
    dot::<H>(&axis(i, 0, poses, p.ai), &axis(j, 1, poses, p.aj)).scaled(p.sign)
}

/// Φ with ∇Φ and the time terms; ∇²Φ for `H = Hess` only.
pub fn evaluate<H: Order>(prim: &Primitive, poses: &[Option<Pose>; 2], t: f64) -> EqValue<H> {
    match prim {
        Primitive::RackPin { .. } => rack_pin(prim, poses),
        // `System::equation` gives a coupler's pieces; over two bodies the
        // extra piece is empty.
        Primitive::Coupler(c) => c.evaluate(&[*poses, [None, None]]).0,
        // Over four bodies: `System::equation` evaluates it from q; two
        // slots' poses cannot, so this is never reached.
        Primitive::GeneralMulti(_) => static_value(nan_scalar()),
        Primitive::Ptcv(c) => c.evaluate(poses),
        Primitive::Cvcv(c) => c.evaluate(poses),
        Primitive::AngleMotion { i, j, s, c, f } => {
            // Φ = S cos f − C sin f; with W = −S sin f − C cos f = ∂Φ/∂f:
            // Φ_t = f′W, Φ_tt = f″W − f′²Φ, Φ_qt = f′∇W.
            let [fv, fd, fdd] = f.eval(t);
            let (sn, cs) = fv.sin_cos();
            let sv = axis_product::<H>(s, i, j, poses);
            let cv = axis_product::<H>(c, i, j, poses);
            let phi = sv.combined(cs, &cv, -sn);
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
            let mut s = dot::<H>(&axis(i, 0, poses, *ai), &axis(j, 1, poses, *aj));
            s.val -= sn;
            EqValue {
                s,
                phi_t: -fd * cs,
                phi_tt: fd * fd * sn - fdd * cs,
                phi_qt: Grad::zeros(),
            }
        }
        Primitive::General { measures, f, .. } => general(measures, f.as_ref(), poses, t),
        Primitive::VelocityGeneral { measures, f, .. } => {
            crate::gcon_velocity::evaluate(measures, f.as_ref(), poses, t)
        }
        Primitive::Normalize { .. } => {
            let p = poses[0].expect("normalization has a body").p;
            let mut grad = Grad::zeros();
            grad.fixed_rows_mut::<4>(3).copy_from(&p);
            let hess = H::with(|| {
                let mut h = Hess::zeros();
                for k in 3..7 {
                    h[(k, k)] = 1.0;
                }
                h
            });
            static_value(Scalar {
                val: 0.5 * (p.norm_squared() - 1.0),
                grad,
                hess,
            })
        }
        Primitive::PointDiff { i, j, axis: k } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            let mut e = Vector3::zeros();
            e[*k] = 1.0;
            static_value(dot(&d, &V3::constant(e)))
        }
        Primitive::Dot1 { i, ai, j, aj } => {
            static_value(dot(&axis(i, 0, poses, *ai), &axis(j, 1, poses, *aj)))
        }
        Primitive::Dot2 { i, j, aj } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            static_value(dot(&axis(j, 1, poses, *aj), &d))
        }
        Primitive::TranslationMotion { i, j, axis: a, f } => {
            let d = origin(i, 0, poses).add_scaled(&origin(j, 1, poses), -1.0);
            let mut s = dot::<H>(&axis(j, 1, poses, *a), &d);
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
            let s = dot::<H>(&xi, &v);
            let sw = dot::<NoHess>(&xi, &w);
            EqValue {
                phi_t: fd * sw.val,
                phi_tt: fdd * sw.val - fd * fd * s.val,
                phi_qt: sw.grad * fd,
                s,
            }
        }
    }
}
