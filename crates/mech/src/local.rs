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

/// The second derivatives a [`Scalar`] carries: [`Hess`] where a
/// formulation asks for them (velocity-constraint Jacobians, γ, the λ-weighted
/// constraint Hessians of the Jacobian), [`NoHess`] on the lean path of
/// residuals and first-derivative Jacobians. `NoHess` is zero-sized, so that
/// path neither computes nor copies any 14×14 block.
pub trait Order: Copy + std::fmt::Debug {
    /// The Hessian computed by `f`, or nothing on the lean path.
    fn with(f: impl FnOnce() -> Hess) -> Self;
    /// `f` applied to the Hessian.
    fn map(self, f: impl FnOnce(Hess) -> Hess) -> Self;
    /// `f` applied to two Hessians.
    fn zip(self, other: Self, f: impl FnOnce(Hess, Hess) -> Hess) -> Self;
    /// The Hessian, if carried.
    fn get(&self) -> Option<&Hess>;
}

impl Order for Hess {
    #[inline]
    fn with(f: impl FnOnce() -> Hess) -> Self {
        f()
    }
    #[inline]
    fn map(self, f: impl FnOnce(Hess) -> Hess) -> Self {
        f(self)
    }
    #[inline]
    fn zip(self, other: Self, f: impl FnOnce(Hess, Hess) -> Hess) -> Self {
        f(self, other)
    }
    #[inline]
    fn get(&self) -> Option<&Hess> {
        Some(self)
    }
}

/// No second derivatives (the lean path).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NoHess;

impl Order for NoHess {
    #[inline]
    fn with(_: impl FnOnce() -> Hess) -> Self {
        NoHess
    }
    #[inline]
    fn map(self, _: impl FnOnce(Hess) -> Hess) -> Self {
        NoHess
    }
    #[inline]
    fn zip(self, _: Self, _: impl FnOnce(Hess, Hess) -> Hess) -> Self {
        NoHess
    }
    #[inline]
    fn get(&self) -> Option<&Hess> {
        None
    }
}

/// A scalar function of the local coordinates with gradient and, for
/// `H = Hess`, Hessian.
#[derive(Clone, Copy, Debug)]
pub struct Scalar<H: Order = Hess> {
    pub val: f64,
    pub grad: Grad,
    pub hess: H,
}

impl<H: Order> Scalar<H> {
    /// self · c.
    pub fn scaled(self, c: f64) -> Self {
        Scalar {
            val: self.val * c,
            grad: self.grad * c,
            hess: self.hess.map(|h| h * c),
        }
    }
    /// self · a + other · b.
    pub fn combined(&self, a: f64, other: &Self, b: f64) -> Self {
        Scalar {
            val: self.val * a + other.val * b,
            grad: self.grad * a + other.grad * b,
            hess: self.hess.zip(other.hess, |x, y| x * a + y * b),
        }
    }
}

/// a·b with exact gradient, and Hessian for `H = Hess`.
pub fn dot<H: Order>(a: &V3, b: &V3) -> Scalar<H> {
    let val = a.val.dot(&b.val);
    let grad = a.jac.tr_mul(&b.val) + b.jac.tr_mul(&a.val);
    let hess = H::with(|| {
        let mut h = a.jac.tr_mul(&b.jac);
        h += h.transpose();
        a.add_hessian_contraction(&b.val, 1.0, &mut h);
        b.add_hessian_contraction(&a.val, 1.0, &mut h);
        h
    });
    Scalar { val, grad, hess }
}

/// |d| with gradient and Hessian (d must not vanish; `eps` guards the
/// division for coincident points).
pub fn norm<H: Order>(d: &V3) -> Scalar<H> {
    let l = d.val.norm().max(1e-300);
    let n = d.val / l;
    let grad = d.jac.tr_mul(&n);
    let hess = H::with(|| {
        let mut h = d.jac.tr_mul(&d.jac) / l - grad * grad.transpose() / l;
        d.add_hessian_contraction(&n, 1.0, &mut h);
        h
    });
    Scalar { val: l, grad, hess }
}

/// atan2(s, c) with gradient and Hessian.
pub fn atan2<H: Order>(s: &Scalar<H>, c: &Scalar<H>) -> Scalar<H> {
    let rho = s.val * s.val + c.val * c.val;
    let val = s.val.atan2(c.val);
    let grad = (s.grad * c.val - c.grad * s.val) / rho;
    let hess = s.hess.zip(c.hess, |sh, ch| {
        let cross = s.grad * c.grad.transpose() - c.grad * s.grad.transpose();
        let drho = s.grad * (2.0 * s.val) + c.grad * (2.0 * c.val);
        (sh * c.val - ch * s.val + cross) / rho - grad * drho.transpose() / rho
    });
    Scalar { val, grad, hess }
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
    fn check(f: impl Fn(&[Pose; 2]) -> Scalar, lean: impl Fn(&[Pose; 2]) -> Scalar<NoHess>) {
        let b = poses();
        let x = pack(&b);
        let s = f(&b);
        // The lean path gives the same value and gradient, bit for bit.
        let l = lean(&b);
        assert_eq!((l.val, l.grad), (s.val, s.grad));
        let h = 1e-6;
        for j in 0..NL {
            let mut dx = Grad::zeros();
            dx[j] = h;
            let fp = lean(&unpack(&(x + dx)));
            let fm = lean(&unpack(&(x - dx)));
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

    /// Runs `check` on a body evaluated with Hessians and on the lean path.
    macro_rules! check {
        (|$b:ident| $body:expr) => {
            check(|$b| $body, |$b| $body)
        };
    }

    #[test]
    fn dot_of_axes_and_points() {
        let a = Vector3::new(0.2, 0.5, -0.9);
        let s0 = Vector3::new(0.4, -0.1, 0.3);
        let s1 = Vector3::new(-0.2, 0.6, 0.1);
        check!(|b| { dot(&V3::axis(0, Some(&b[0]), a), &V3::axis(1, Some(&b[1]), s1)) });
        check!(|b| {
            let d = V3::point(1, Some(&b[1]), s1).add_scaled(&V3::point(0, Some(&b[0]), s0), -1.0);
            dot(&V3::axis(0, Some(&b[0]), a), &d)
        });
        check!(|b| {
            let d = V3::point(1, Some(&b[1]), s1).add_scaled(&V3::point(0, Some(&b[0]), s0), -1.0);
            norm(&d)
        });
        check!(|b| {
            let x = V3::axis(0, Some(&b[0]), Vector3::x());
            let y1 = V3::axis(1, Some(&b[1]), Vector3::y());
            let x1 = V3::axis(1, Some(&b[1]), Vector3::x());
            atan2(&dot(&x, &y1), &dot(&x, &x1))
        });
        // Two terms on the same slot merge.
        check!(|b| {
            let v = V3::axis(1, Some(&b[1]), Vector3::y())
                .scaled(0.3)
                .add_scaled(&V3::axis(1, Some(&b[1]), Vector3::x()), -0.8);
            dot(&V3::axis(0, Some(&b[0]), a), &v)
        });
    }
}
