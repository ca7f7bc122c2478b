//! Velocities whose time derivative is taken in a moving frame, as force
//! measures with exact gradients: VX/VY/VZ(i, j, k, l) and VM(i, j, l)
//! (Adams function reference: the derivative of the displacement of I from
//! J as seen by an observer fixed in marker L's frame).
//!
//! With d = x_I − x_J and ω_L the angular velocity of L's part,
//!
//!   d_L/dt d = ḋ − ω_L × d,   VX = a · (ḋ − ω_L × d) = a·ḋ − ω_L·(d × a),
//!
//! a the K axis (ground axis without K). The first term is the ground
//! velocity measure (`forces.rs`, `Measure::Vel`); the second has the
//! form of the angular-velocity measure with the vector c = d × a in place
//! of the axis: ω_L·c = 2 ṗᵀ U(c) p on L's slot (`rotation::u_mat`), so
//! ∂/∂ṗ = 2 U(c) p, ∂/∂p = 2 U(c)ᵀ ṗ, plus c's own q-dependence
//! ∂c = d × ∂a − a × ∂d. VR needs no frame: ω_L × d ⟂ d.

use crate::forces::{k_axis, rel_point};
use crate::local::{Grad, Hess, Jac3, Pose};
use crate::rotation::u_mat;
use crate::system::MarkerFrame;
use nalgebra::{Matrix3, Vector4};

type Slotted = (MarkerFrame, usize);

/// [v]× (v × x = [v]× x).
fn skew(v: &nalgebra::Vector3<f64>) -> Matrix3<f64> {
    v.cross_matrix()
}

/// VX/VY/VZ with a frame (`ax` Some) or VM with a frame (`ax` None): the
/// magnitude from the three ground components, ∇|x| = Σ (x_a/|x|) ∇x_a,
/// taken as 0 at |x| = 0 as for VM without a frame.
pub(crate) fn eval(
    i: &Slotted,
    j: &Option<Slotted>,
    k: &Option<Slotted>,
    l: &Slotted,
    poses: &[Option<Pose>; 2],
    ul: &Grad,
    ax: Option<usize>,
) -> (f64, Grad, Grad) {
    // Component `ax` along K's axis (ground's without K) of
    // d_L/dt (x_I − x_J): value, ∂/∂q, ∂/∂u.
    let component = |k: &Option<Slotted>, ax: usize| -> (f64, Grad, Grad) {
        let d = rel_point(i, j, poses);
        let a = k_axis(k, poses, ax);
        // a·ḋ, as the ground velocity measure.
        let v = d.jac * ul;
        let mut h = Hess::zeros();
        d.add_hessian_contraction(&a.val, 1.0, &mut h);
        let mut val = v.dot(&a.val);
        let mut gq = h * ul + a.jac.tr_mul(&v);
        let mut gu = d.jac.tr_mul(&a.val);
        // − ω_L·c with c = d × a.
        let (lm, ls) = l;
        let Some(pose) = lm.body.and(poses[*ls]) else {
            return (val, gq, gu);
        };
        let c = d.val.cross(&a.val);
        let c_jac: Jac3 = skew(&d.val) * a.jac - skew(&a.val) * d.jac;
        let p = pose.p;
        let pd: Vector4<f64> = ul.fixed_rows::<4>(7 * ls + 3).into();
        let um = u_mat(&c);
        let omega = 2.0 * crate::rotation::e_mat(&p) * pd;
        val -= c.dot(&omega);
        gu.fixed_rows_mut::<4>(7 * ls + 3)
            .axpy(-2.0, &(um * p), 1.0);
        gq.fixed_rows_mut::<4>(7 * ls + 3)
            .axpy(-2.0, &(um.transpose() * pd), 1.0);
        gq -= c_jac.tr_mul(&omega);
        (val, gq, gu)
    };
    if let Some(ax) = ax {
        return component(k, ax);
    }
    let comps = [0, 1, 2].map(|a| component(&None, a));
    let val = comps.iter().map(|c| c.0 * c.0).sum::<f64>().sqrt();
    let (mut gq, mut gu) = (Grad::zeros(), Grad::zeros());
    if val > 0.0 {
        for (x, cq, cu) in &comps {
            gq.axpy(x / val, cq, 1.0);
            gu.axpy(x / val, cu, 1.0);
        }
    }
    (val, gq, gu)
}
