//! Element-local derivatives. An element touches at most two bodies, so its
//! quantities live on 14 local coordinates: slot 0 = (r, p) of the first body,
//! slot 1 = (r, p) of the second. A vector quantity (`V3`) carries its value,
//! its 3×14 Jacobian and the quadratic terms that make its Hessian (each
//! component of A(p)a' is a quadratic form in p, see `rotation`), so scalar
//! products get exact gradients and Hessians by the product rule.

use crate::rotation::{b_mat, k_mat, rot};
use nalgebra::{SMatrix, SVector, Vector3, Vector4};

pub const NL: usize = 14;
pub type Grad = SVector<f64, NL>;
pub type Hess = SMatrix<f64, NL, NL>;
pub type Jac3 = SMatrix<f64, 3, NL>;

/// Pose of a body in an element slot (None = ground: constant).
#[derive(Clone, Copy, Debug)]
pub struct Pose {
    pub r: Vector3<f64>,
    pub p: Vector4<f64>,
}

/// A vector-valued function of the local coordinates: affine in r, quadratic
/// in p. `quads` holds (slot, a') for each term A(p_slot)·a'.
#[derive(Clone, Debug)]
pub struct V3 {
    pub val: Vector3<f64>,
    pub jac: Jac3,
    quads: [Option<(usize, Vector3<f64>)>; 2],
}

impl V3 {
    pub fn constant(v: Vector3<f64>) -> V3 {
        V3 {
            val: v,
            jac: Jac3::zeros(),
            quads: [None, None],
        }
    }

    /// A(p)·a' for a body-fixed vector a' of the body in `slot`.
    pub fn axis(slot: usize, pose: Option<&Pose>, a: Vector3<f64>) -> V3 {
        match pose {
            None => V3::constant(a),
            Some(b) => {
                let mut jac = Jac3::zeros();
                jac.fixed_view_mut::<3, 4>(0, 7 * slot + 3)
                    .copy_from(&b_mat(&b.p, &a));
                V3 {
                    val: rot(&b.p) * a,
                    jac,
                    quads: [Some((slot, a)), None],
                }
            }
        }
    }

    /// r + A(p)·s' for a body-fixed point s'.
    pub fn point(slot: usize, pose: Option<&Pose>, s: Vector3<f64>) -> V3 {
        let mut v = V3::axis(slot, pose, s);
        if let Some(b) = pose {
            v.val += b.r;
            v.jac
                .fixed_view_mut::<3, 3>(0, 7 * slot)
                .copy_from(&nalgebra::Matrix3::identity());
        }
        v
    }

    /// self + c·other.
    pub fn add_scaled(mut self, other: &V3, c: f64) -> V3 {
        self.val += other.val * c;
        self.jac += other.jac * c;
        for (slot, a) in other.quads.iter().flatten() {
            let a = a * c;
            match self.quads.iter_mut().flatten().find(|(s, _)| s == slot) {
                Some((_, b)) => *b += a,
                None => {
                    let free = self.quads.iter_mut().find(|q| q.is_none());
                    *free.expect("a local vector spans at most two bodies") = Some((*slot, a));
                }
            }
        }
        self
    }

    pub fn scaled(mut self, c: f64) -> V3 {
        self.val *= c;
        self.jac *= c;
        for (_, a) in self.quads.iter_mut().flatten() {
            *a *= c;
        }
        self
    }

    /// out += scale · Σ_k w_k ∂²v_k/∂q².
    pub fn add_hessian_contraction(&self, w: &Vector3<f64>, scale: f64, out: &mut Hess) {
        for (slot, a) in self.quads.iter().flatten() {
            let o = 7 * slot + 3;
            let mut blk = out.fixed_view_mut::<4, 4>(o, o);
            blk += k_mat(a, w) * scale;
        }
    }
}

/// A scalar function of the local coordinates with gradient and (optionally)
/// Hessian.
#[derive(Clone, Debug)]
pub struct Scalar {
    pub val: f64,
    pub grad: Grad,
    pub hess: Hess,
}

/// a·b with exact gradient; Hessian when `hess` is set.
pub fn dot(a: &V3, b: &V3, hess: bool) -> Scalar {
    let val = a.val.dot(&b.val);
    let grad = a.jac.tr_mul(&b.val) + b.jac.tr_mul(&a.val);
    let mut h = Hess::zeros();
    if hess {
        h = a.jac.tr_mul(&b.jac);
        h += h.transpose();
        a.add_hessian_contraction(&b.val, 1.0, &mut h);
        b.add_hessian_contraction(&a.val, 1.0, &mut h);
    }
    Scalar { val, grad, hess: h }
}

/// |d| with gradient and Hessian (d must not vanish; `eps` guards the
/// division for coincident points).
pub fn norm(d: &V3, hess: bool) -> Scalar {
    let l = d.val.norm().max(1e-300);
    let n = d.val / l;
    let grad = d.jac.tr_mul(&n);
    let mut h = Hess::zeros();
    if hess {
        h = d.jac.tr_mul(&d.jac) / l - grad * grad.transpose() / l;
        d.add_hessian_contraction(&n, 1.0, &mut h);
    }
    Scalar {
        val: l,
        grad,
        hess: h,
    }
}

/// atan2(s, c) with gradient and Hessian.
pub fn atan2(s: &Scalar, c: &Scalar, hess: bool) -> Scalar {
    let rho = s.val * s.val + c.val * c.val;
    let val = s.val.atan2(c.val);
    let grad = (s.grad * c.val - c.grad * s.val) / rho;
    let mut h = Hess::zeros();
    if hess {
        let cross = s.grad * c.grad.transpose() - c.grad * s.grad.transpose();
        let drho = s.grad * (2.0 * s.val) + c.grad * (2.0 * c.val);
        h = (s.hess * c.val - c.hess * s.val + cross) / rho - grad * drho.transpose() / rho;
    }
    Scalar { val, grad, hess: h }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn poses() -> [Pose; 2] {
        let p0 = Vector4::new(0.8, 0.1, -0.4, 0.3);
        let p1 = Vector4::new(0.5, -0.6, 0.2, 0.4);
        [
            Pose {
                r: Vector3::new(0.3, -0.2, 1.1),
                p: p0 / p0.norm(),
            },
            Pose {
                r: Vector3::new(-0.5, 0.9, 0.2),
                p: p1 / p1.norm(),
            },
        ]
    }

    fn pack(b: &[Pose; 2]) -> Grad {
        let mut x = Grad::zeros();
        for s in 0..2 {
            x.fixed_rows_mut::<3>(7 * s).copy_from(&b[s].r);
            x.fixed_rows_mut::<4>(7 * s + 3).copy_from(&b[s].p);
        }
        x
    }
    fn unpack(x: &Grad) -> [Pose; 2] {
        let f = |s: usize| Pose {
            r: x.fixed_rows::<3>(7 * s).into(),
            p: x.fixed_rows::<4>(7 * s + 3).into(),
        };
        [f(0), f(1)]
    }

    /// Central-difference check of gradient and Hessian of f.
    fn check(f: impl Fn(&[Pose; 2], bool) -> Scalar) {
        let b = poses();
        let x = pack(&b);
        let s = f(&b, true);
        let h = 1e-6;
        for j in 0..NL {
            let mut dx = Grad::zeros();
            dx[j] = h;
            let fp = f(&unpack(&(x + dx)), false);
            let fm = f(&unpack(&(x - dx)), false);
            let g = (fp.val - fm.val) / (2.0 * h);
            assert!(
                (g - s.grad[j]).abs() < 1e-7 * (1.0 + g.abs()),
                "grad {j}: {g} vs {}",
                s.grad[j]
            );
            let hc = (fp.grad - fm.grad) / (2.0 * h);
            for i in 0..NL {
                assert!(
                    (hc[i] - s.hess[(i, j)]).abs() < 1e-6 * (1.0 + hc[i].abs()),
                    "hess ({i},{j}): {} vs {}",
                    hc[i],
                    s.hess[(i, j)]
                );
            }
        }
    }

    #[test]
    fn dot_of_axes_and_points() {
        let a = Vector3::new(0.2, 0.5, -0.9);
        let s0 = Vector3::new(0.4, -0.1, 0.3);
        let s1 = Vector3::new(-0.2, 0.6, 0.1);
        check(|b, h| {
            dot(
                &V3::axis(0, Some(&b[0]), a),
                &V3::axis(1, Some(&b[1]), s1),
                h,
            )
        });
        check(|b, h| {
            let d = V3::point(1, Some(&b[1]), s1).add_scaled(&V3::point(0, Some(&b[0]), s0), -1.0);
            dot(&V3::axis(0, Some(&b[0]), a), &d, h)
        });
        check(|b, h| {
            let d = V3::point(1, Some(&b[1]), s1).add_scaled(&V3::point(0, Some(&b[0]), s0), -1.0);
            norm(&d, h)
        });
        check(|b, h| {
            let x = V3::axis(0, Some(&b[0]), Vector3::x());
            let y1 = V3::axis(1, Some(&b[1]), Vector3::y());
            let x1 = V3::axis(1, Some(&b[1]), Vector3::x());
            atan2(&dot(&x, &y1, h), &dot(&x, &x1, h), h)
        });
        // Two terms on the same slot merge.
        check(|b, h| {
            let v = V3::axis(1, Some(&b[1]), Vector3::y())
                .scaled(0.3)
                .add_scaled(&V3::axis(1, Some(&b[1]), Vector3::x()), -0.8);
            dot(&V3::axis(0, Some(&b[0]), a), &v, h)
        });
    }
}
