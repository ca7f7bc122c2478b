//! ORIENT(system, comp, i, j) as a force-function measure: component
//! `comp` of orientation system `system` of marker I relative to marker J
//! (`orient_systems`, the definitions the requests use too), with its
//! exact gradient in the local coordinates.
//!
//! The relative parameters follow the request (`solver::functions`,
//! `K::Orient`) formula for formula, so a force and a request of the same
//! component agree bit for bit: each marker's orientation is q_M = n(p_B) ⊗
//! p_M with n(p) = p/|p| the body's normalised Euler parameters and p_M the
//! marker's constant parameters in the body (e0 ≥ 0,
//! `rotation::params_from_matrix`); ground markers take p_M, an absent J
//! the identity. The relative parameters are p = q_J* ⊗ q_I, negated when
//! they have e0 < 0 in the model's initial configuration (the request's
//! rule for system 27; [`attach`] sets the flag from q0). Every component
//! is then a function of p with ∂value/∂p from `orient_systems::component`.
//!
//! The product is bilinear, so ∂p/∂q_I = [q_J* ⊗ e_k]_k and ∂p/∂q_J =
//! [e_k* ⊗ q_I]_k exactly; ∂q_M/∂p_B = [e_k ⊗ p_M]_k (I − n nᵀ)/|p_B|.
//! The chain ∂value/∂q = Σ_k ∂value/∂p_k · ∂p_k/∂q is exact: p's variations
//! are tangent to |p| = 1, where A(p) in homogeneous form is the rotation.

use crate::forces::{Law, SlotMeasure};
use crate::local::{Grad, Pose};
use crate::orient_systems::component;
use crate::rotation::params_from_matrix;
use crate::system::{pose, MarkerFrame, System};
use mbsolve_model::Measure;
use nalgebra::{Matrix4, Quaternion, Vector4};

fn quat(v: &Vector4<f64>) -> Quaternion<f64> {
    Quaternion::new(v[0], v[1], v[2], v[3])
}

fn vec4(q: &Quaternion<f64>) -> Vector4<f64> {
    Vector4::new(q.w, q.i, q.j, q.k)
}

/// The marker's orientation in ground and, when it moves with the body in
/// its slot, (slot, ∂q_M/∂p_B).
fn marker_quat(
    m: &MarkerFrame,
    s: usize,
    poses: &[Option<Pose>; 2],
) -> (Quaternion<f64>, Option<(usize, Matrix4<f64>)>) {
    let pm = quat(&params_from_matrix(&m.axes));
    match m.body.and(poses[s]) {
        None => (pm, None),
        Some(b) => {
            let norm = b.p.norm();
            let n = b.p / norm;
            // Linear in n: column k is e_k ⊗ p_M.
            let right = Matrix4::from_fn(|r, k| {
                let mut e = Vector4::zeros();
                e[k] = 1.0;
                vec4(&(quat(&e) * pm))[r]
            });
            let dn = (Matrix4::identity() - n * n.transpose()) / norm;
            (quat(&n) * pm, Some((s, right * dn)))
        }
    }
}

/// p = q_J* ⊗ q_I (before the initial-sign rule) with its gradient rows.
fn relative(
    i: &(MarkerFrame, usize),
    j: &Option<(MarkerFrame, usize)>,
    poses: &[Option<Pose>; 2],
) -> (Vector4<f64>, [Grad; 4]) {
    let (qi, di) = marker_quat(&i.0, i.1, poses);
    let (qj, dj) = match j {
        Some((mj, sj)) => marker_quat(mj, *sj, poses),
        None => (Quaternion::identity(), None),
    };
    let p = vec4(&(qj.conjugate() * qi));
    let mut grad = [Grad::zeros(); 4];
    let basis = |k: usize| {
        let mut e = Vector4::zeros();
        e[k] = 1.0;
        quat(&e)
    };
    if let Some((s, d)) = di {
        let dp = Matrix4::from_fn(|r, k| vec4(&(qj.conjugate() * basis(k)))[r]) * d;
        for (r, g) in grad.iter_mut().enumerate() {
            for c in 0..4 {
                g[7 * s + 3 + c] += dp[(r, c)];
            }
        }
    }
    if let Some((s, d)) = dj {
        let dp = Matrix4::from_fn(|r, k| vec4(&(basis(k).conjugate() * qi))[r]) * d;
        for (r, g) in grad.iter_mut().enumerate() {
            for c in 0..4 {
                g[7 * s + 3 + c] += dp[(r, c)];
            }
        }
    }
    (p, grad)
}

/// Component `comp` of orientation system `system` (`orient_systems`) with
/// its q-gradient, from the relative parameters negated when `flip`.
pub(crate) fn eval(
    i: &(MarkerFrame, usize),
    j: &Option<(MarkerFrame, usize)>,
    poses: &[Option<Pose>; 2],
    system: u8,
    comp: u8,
    flip: bool,
) -> (f64, Grad) {
    let (p, grad) = relative(i, j, poses);
    let sign = if flip { -1.0 } else { 1.0 };
    let (val, dp) = component(system, comp, &(p * sign));
    let mut gq = Grad::zeros();
    for (g, d) in grad.iter().zip(dp.iter()) {
        if *d != 0.0 {
            gq.axpy(d * sign, g, 1.0);
        }
    }
    (val, gq)
}

/// Sets each ORIENT measure's sign so that e0 ≥ 0 in the initial
/// configuration `sys.initial_state()`, as the request does.
pub(crate) fn attach(sys: &System, law: &mut Law) {
    let Law::Function { measures, .. } = law else {
        return;
    };
    let (q0, _) = sys.initial_state();
    for sm in measures.iter_mut() {
        let SlotMeasure { kind, i, j, .. } = sm;
        let Measure::Orient { flip, .. } = kind else {
            continue;
        };
        let mut poses = [None, None];
        for (mk, s) in std::iter::once(&*i).chain(j.as_ref()) {
            if let Some(b) = mk.body {
                poses[*s] = Some(pose(&q0, b));
            }
        }
        *flip = relative(i, j, &poses).0[0] < 0.0;
    }
}
