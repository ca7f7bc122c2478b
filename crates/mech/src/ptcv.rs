//! PTCV: the origin of the I marker lies on a CURVE fixed in the RM marker's
//! frame. With x the I origin in RM coordinates and α* = α*(x) the
//! parameter of the curve point nearest to x (the root of
//! g(α, x) = (x − C(α))·C′(α) = 0), the two equations are
//!
//!   Φ₀ = d·n/|n|,  Φ₁ = d·a,   d = x − C(α*),  n = a × C′(α*),
//!
//! with a the unit axis most nearly perpendicular to all the curve's
//! tangents (the normal of a planar curve). d ⟂ C′ by the choice of α*, so
//! Φ = 0 ⇔ d = 0 wherever C′ is not along a (checked when the model is
//! validated). α* is a function of q, not a coordinate: no state, every
//! formulation (I3, SI2, SI1, the ODE partition, statics, kinematics) takes
//! the two rows as it takes a joint's.
//!
//! Exact derivatives: α*(x) is computed on second-order jets in x by two
//! Newton steps with the constant slope D = g_α at the converged point.
//! Starting from the exact value, each step raises the order of agreement
//! (error O(ε) → O(ε²) → O(ε³)), so the gradient and Hessian of α* — and of
//! Φ — are exact. The chain rule through x(q) = A_RMᵀ(x_I − x_RM) gives
//! ∇Φ and ∇²Φ on the local coordinates, as for a GCON.

use crate::constraints::{axis, origin, EqValue};
use crate::local::{dot, Grad, Order, Pose, Scalar, NL};
use crate::system::{MarkerFrame, Primitive, System};
use mbsolve_model::{CurveShape, ElementRef, Model, ModelError, Ptcv};
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};
use std::sync::Arc;

/// One PTCV equation (`row` 0: along a × C′, 1: along a).
#[derive(Clone, Debug)]
pub struct PtcvEq {
    pub bodies: [Option<usize>; 2],
    i: MarkerFrame,
    rm: MarkerFrame,
    curve: Arc<CurveShape>,
    a: Vector3<f64>,
    row: usize,
}

/// The PTCV's two equations.
pub(crate) fn primitives(
    sys: &System,
    model: &Model,
    p: &Ptcv,
) -> Result<[Primitive; 2], ModelError> {
    let e = ElementRef::Ptcv(p.id);
    let curve = model
        .curves
        .iter()
        .find(|c| c.id == p.curve)
        .expect("validated curve id");
    let shape = CurveShape::new(curve, model).map_err(|message| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    })?;
    let (a, _) = shape.normal_axis();
    let curve = Arc::new(shape);
    let (i, rm) = (*sys.marker(p.i), *sys.marker(p.rm));
    let eq = |row| {
        Primitive::Ptcv(Box::new(PtcvEq {
            bodies: [i.body, rm.body],
            i,
            rm,
            curve: curve.clone(),
            a,
            row,
        }))
    };
    Ok([eq(0), eq(1)])
}

/// A scalar function of N variables with gradient and Hessian (PTCV: the
/// three RM coordinates of x; CVCV: the twelve pose scalars of `cvcv`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct J<const N: usize = 3> {
    pub v: f64,
    pub g: SVector<f64, N>,
    pub h: SMatrix<f64, N, N>,
}

impl<const N: usize> J<N> {
    pub fn constant(v: f64) -> Self {
        J {
            v,
            g: SVector::zeros(),
            h: SMatrix::zeros(),
        }
    }
    /// The variable number `k` with value `v`.
    pub fn variable(v: f64, k: usize) -> Self {
        let mut x = J::constant(v);
        x.g[k] = 1.0;
        x
    }
    pub fn add(self, o: Self) -> Self {
        J {
            v: self.v + o.v,
            g: self.g + o.g,
            h: self.h + o.h,
        }
    }
    pub fn sub(self, o: Self) -> Self {
        self.add(o.scale(-1.0))
    }
    pub fn scale(self, c: f64) -> Self {
        J {
            v: self.v * c,
            g: self.g * c,
            h: self.h * c,
        }
    }
    pub fn mul(self, o: Self) -> Self {
        let cross = self.g * o.g.transpose();
        J {
            v: self.v * o.v,
            g: self.g * o.v + o.g * self.v,
            h: self.h * o.v + o.h * self.v + cross + cross.transpose(),
        }
    }
    /// f(self) for f with value f0, slope f1 and curvature f2 at self.v.
    pub fn compose(self, f0: f64, f1: f64, f2: f64) -> Self {
        J {
            v: f0,
            g: self.g * f1,
            h: self.h * f1 + self.g * self.g.transpose() * f2,
        }
    }
    pub fn sqrt(self) -> Self {
        let s = self.v.sqrt();
        self.compose(s, 0.5 / s, -0.25 / (s * self.v))
    }
    pub fn recip(self) -> Self {
        let r = 1.0 / self.v;
        self.compose(r, -r * r, 2.0 * r * r * r)
    }
}

/// The curve's k-th derivative C^(k)(α) composed with the jet α,
/// component-wise, to second order.
pub(crate) fn curve_jet<const N: usize>(c: &CurveShape, alpha: J<N>, k: usize) -> [J<N>; 3] {
    let d = c.eval(alpha.v);
    [0, 1, 2].map(|m| alpha.compose(d[k][m], d[k + 1][m], d[k + 2][m]))
}

type V = [J; 3];

fn vdot(a: &V, b: &V) -> J {
    a[0].mul(b[0]).add(a[1].mul(b[1])).add(a[2].mul(b[2]))
}

fn vsub(a: &V, b: &V) -> V {
    [0, 1, 2].map(|k| a[k].add(b[k].scale(-1.0)))
}

fn curve_at(c: &CurveShape, alpha: J, k: usize) -> V {
    curve_jet(c, alpha, k)
}

impl PtcvEq {
    /// Φ of this row as a function of x (RM coordinates of the I origin),
    /// with gradient and Hessian in x.
    fn in_rm(&self, xv: &Vector3<f64>) -> J {
        let c = &*self.curve;
        let x: V = [0, 1, 2].map(|k| {
            let mut g = Vector3::zeros();
            g[k] = 1.0;
            J {
                v: xv[k],
                g,
                h: Matrix3::zeros(),
            }
        });
        let a0 = c.closest(xv);
        let [c0, c1, c2, ..] = c.eval(a0);
        let slope = -c1.norm_squared() + (xv - c0).dot(&c2);
        let mut alpha = J::constant(a0);
        for _ in 0..2 {
            let g = vdot(&vsub(&x, &curve_at(c, alpha, 0)), &curve_at(c, alpha, 1));
            alpha = alpha.add(g.scale(-1.0 / slope));
        }
        let d = vsub(&x, &curve_at(c, alpha, 0));
        let a: V = [0, 1, 2].map(|k| J::constant(self.a[k]));
        match self.row {
            0 => {
                let t = curve_at(c, alpha, 1);
                // n = a × t with a constant.
                let n = [
                    t[2].scale(a[1].v).add(t[1].scale(-a[2].v)),
                    t[0].scale(a[2].v).add(t[2].scale(-a[0].v)),
                    t[1].scale(a[0].v).add(t[0].scale(-a[1].v)),
                ];
                vdot(&d, &n).mul(vdot(&n, &n).sqrt().recip())
            }
            _ => vdot(&d, &a),
        }
    }

    /// Φ with ∇Φ (and ∇²Φ for `H = Hess`) on the local coordinates.
    pub fn evaluate<H: Order>(&self, poses: &[Option<Pose>; 2]) -> EqValue<H> {
        let d = origin(&self.i, 0, poses).add_scaled(&origin(&self.rm, 1, poses), -1.0);
        let xs: [Scalar<H>; 3] = [0, 1, 2].map(|k| dot::<H>(&d, &axis(&self.rm, 1, poses, k)));
        let f = self.in_rm(&Vector3::new(xs[0].val, xs[1].val, xs[2].val));
        chain(&xs, &f)
    }
}

/// A stateless, time-independent row Φ = f(s(q)) on the local coordinates
/// from the scalars s (with their local derivatives) and f's jet in s:
/// ∇Φ = Σ_k f_k ∇s_k, ∇²Φ = Σ_k f_k ∇²s_k + Σ_kl f_kl ∇s_k ∇s_lᵀ.
pub(crate) fn chain<H: Order, const N: usize>(s: &[Scalar<H>; N], f: &J<N>) -> EqValue<H> {
    let mut gs = SMatrix::<f64, NL, N>::zeros();
    for (k, sk) in s.iter().enumerate() {
        gs.set_column(k, &sk.grad);
    }
    let grad = gs * f.g;
    let hess = H::with(|| {
        let mut h = gs * f.h * gs.transpose();
        for (k, sk) in s.iter().enumerate() {
            if let Some(sh) = sk.hess.get() {
                h += sh * f.g[k];
            }
        }
        h
    });
    EqValue {
        s: Scalar {
            val: f.v,
            grad,
            hess,
        },
        phi_t: 0.0,
        phi_tt: 0.0,
        phi_qt: Grad::zeros(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The x-space gradient and Hessian of both rows against central
    /// differences, near (not on) a space curve.
    #[test]
    fn derivatives_in_curve_coordinates_are_exact() {
        let pts: Vec<Vector3<f64>> = (0..7)
            .map(|k| {
                let t = 0.5 * k as f64;
                Vector3::new(t, t.sin(), 0.2 * t * t)
            })
            .collect();
        let shape = Arc::new(CurveShape::from_points(&pts, 4, true, false).unwrap());
        let (a, _) = shape.normal_axis();
        let m = MarkerFrame {
            id: 1,
            body: None,
            s: Vector3::zeros(),
            axes: Matrix3::identity(),
        };
        for row in 0..2 {
            let eq = PtcvEq {
                bodies: [None, None],
                i: m,
                rm: m,
                curve: shape.clone(),
                a,
                row,
            };
            let x = Vector3::new(1.3, 0.9, 0.45);
            let f = eq.in_rm(&x);
            let h = 1e-5;
            for k in 0..3 {
                let mut dx = Vector3::zeros();
                dx[k] = h;
                let (fp, fm) = (eq.in_rm(&(x + dx)), eq.in_rm(&(x - dx)));
                let g = (fp.v - fm.v) / (2.0 * h);
                assert!(
                    (g - f.g[k]).abs() < 1e-8,
                    "row {row} grad {k}: {g} vs {}",
                    f.g[k]
                );
                let hk = (fp.g - fm.g) / (2.0 * h);
                for l in 0..3 {
                    assert!(
                        (hk[l] - f.h[(l, k)]).abs() < 1e-6,
                        "row {row} hess ({l},{k}): {} vs {}",
                        hk[l],
                        f.h[(l, k)]
                    );
                }
            }
        }
    }
}
