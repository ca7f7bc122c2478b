//! BUSHING, FIELD and BEAM (linear) as generalized forces on the element's
//! 14 local coordinates, with exact Jacobians by forward-mode automatic
//! differentiation: the same code runs on `f64` for the residual and on
//! [`Dual`] numbers carrying ∂/∂q and ∂/∂u (28 seeds) for the Jacobian.
//!
//! Law (mbsolve_model::Elastic): f = preload − K (δ − δ₀) − C δ̇ with
//! δ = (x, y, z, AX, AY, AZ) of I relative to J in J's axes; F = A_J f₁..₃
//! acts at x_I, T = A_J f₄..₆ on I's part; the reaction −F acts at the
//! same point on J's part with −T, which is Adams' J reaction −F at x_J
//! with −T − (x_I − x_J) × F. Virtual work with δθ = 2 E(p) δp (ground
//! axes) gives Q_r = F, Q_p = 2 E(p)ᵀ (T + (x_I − r) × F) per body.

use crate::local::{Grad, Hess, Pose, NL};
use mbsolve_model::BeamFormulation;

mod beam_nl;
use crate::system::MarkerFrame;
use nalgebra::{Matrix6, SVector, Vector3, Vector4};
use std::ops::{Add, Mul, Neg, Sub};

/// Derivative seeds: local q (0..14) then local u (14..28).
const ND: usize = 2 * NL;

/// The arithmetic the element law needs.
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Neg<Output = Self>
{
    fn cst(v: f64) -> Self;
    fn scale(self, c: f64) -> Self;
    fn atan2(self, x: Self) -> Self;
    fn sqrt(self) -> Self;
    fn recip(self) -> Self;
}

impl Real for f64 {
    fn cst(v: f64) -> Self {
        v
    }
    fn scale(self, c: f64) -> Self {
        self * c
    }
    fn atan2(self, x: Self) -> Self {
        f64::atan2(self, x)
    }
    fn sqrt(self) -> Self {
        f64::sqrt(self)
    }
    fn recip(self) -> Self {
        1.0 / self
    }
}

/// A value with its gradient on the 28 local seeds.
#[derive(Clone, Copy, Debug)]
struct Dual {
    v: f64,
    g: SVector<f64, ND>,
}

impl Dual {
    fn seed(v: f64, k: usize) -> Dual {
        let mut g = SVector::zeros();
        g[k] = 1.0;
        Dual { v, g }
    }
}

/// Sum and difference: value and gradient combine alike.
macro_rules! linear_op {
    ($trait:ident, $method:ident, $op:tt) => {
        impl $trait for Dual {
            type Output = Dual;
            fn $method(self, o: Dual) -> Dual {
                Dual {
                    v: self.v $op o.v,
                    g: self.g $op o.g,
                }
            }
        }
    };
}
linear_op!(Add, add, +);
linear_op!(Sub, sub, -);
impl Mul for Dual {
    type Output = Dual;
    fn mul(self, o: Dual) -> Dual {
        Dual {
            v: self.v * o.v,
            g: self.g * o.v + o.g * self.v,
        }
    }
}
impl Neg for Dual {
    type Output = Dual;
    fn neg(self) -> Dual {
        Dual {
            v: -self.v,
            g: -self.g,
        }
    }
}

impl Real for Dual {
    fn cst(v: f64) -> Self {
        Dual {
            v,
            g: SVector::zeros(),
        }
    }
    fn scale(self, c: f64) -> Self {
        Dual {
            v: self.v * c,
            g: self.g * c,
        }
    }
    /// d atan2(y, x) = (x dy − y dx)/(x² + y²).
    fn atan2(self, x: Self) -> Self {
        let rho = self.v * self.v + x.v * x.v;
        Dual {
            v: self.v.atan2(x.v),
            g: (self.g * x.v - x.g * self.v) / rho,
        }
    }
    /// d √v = dv / (2 √v).
    fn sqrt(self) -> Self {
        let r = self.v.sqrt();
        Dual {
            v: r,
            g: self.g * (0.5 / r),
        }
    }
    /// d (1/v) = −dv / v².
    fn recip(self) -> Self {
        Dual {
            v: 1.0 / self.v,
            g: self.g * (-1.0 / (self.v * self.v)),
        }
    }
}

pub(crate) type V<T> = [T; 3];

pub(crate) fn add<T: Real>(a: V<T>, b: V<T>) -> V<T> {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub(crate) fn sub<T: Real>(a: V<T>, b: V<T>) -> V<T> {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
pub(crate) fn dot<T: Real>(a: V<T>, b: V<T>) -> T {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(crate) fn cross<T: Real>(a: V<T>, b: V<T>) -> V<T> {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
pub(crate) fn times<T: Real>(a: V<T>, s: T) -> V<T> {
    [a[0] * s, a[1] * s, a[2] * s]
}

/// One body's (or ground's) coordinates and their rates.
#[derive(Clone, Copy)]
pub(crate) struct Frame<T> {
    r: V<T>,
    p: [T; 4],
    rd: V<T>,
    pd: [T; 4],
}

impl<T: Real> Frame<T> {
    /// A(p) a' for a constant body-fixed vector (homogeneous form, as
    /// `rotation::rot`).
    fn rotate(&self, a: &Vector3<f64>) -> V<T> {
        let [e0, e1, e2, e3] = self.p;
        let c = |v: f64| T::cst(v);
        let two = 2.0;
        let m = [
            [
                e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3,
                (e1 * e2 - e0 * e3).scale(two),
                (e1 * e3 + e0 * e2).scale(two),
            ],
            [
                (e1 * e2 + e0 * e3).scale(two),
                e0 * e0 - e1 * e1 + e2 * e2 - e3 * e3,
                (e2 * e3 - e0 * e1).scale(two),
            ],
            [
                (e1 * e3 - e0 * e2).scale(two),
                (e2 * e3 + e0 * e1).scale(two),
                e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3,
            ],
        ];
        std::array::from_fn(|r| m[r][0] * c(a[0]) + m[r][1] * c(a[1]) + m[r][2] * c(a[2]))
    }

    /// ω = 2 E(p) ṗ = 2 (e0 ė − ė0 e + e × ė), ground axes.
    fn omega(&self) -> V<T> {
        let e = [self.p[1], self.p[2], self.p[3]];
        let ed = [self.pd[1], self.pd[2], self.pd[3]];
        let w = add(
            sub(times(ed, self.p[0]), times(e, self.pd[0])),
            cross(e, ed),
        );
        times(w, T::cst(2.0))
    }

    /// 2 E(p)ᵀ v = 2 (−e·v, e0 v − e × v).
    fn torque_to_p(&self, v: V<T>) -> [T; 4] {
        let e = [self.p[1], self.p[2], self.p[3]];
        let w = sub(times(v, self.p[0]), cross(e, v));
        let two = T::cst(2.0);
        [-(dot(e, v)) * two, w[0] * two, w[1] * two, w[2] * two]
    }
}

/// K, C, δ₀ and the preload of one element.
#[derive(Clone, Debug)]
pub struct ElasticLaw {
    pub k: Matrix6<f64>,
    pub c: Matrix6<f64>,
    pub reference: [f64; 6],
    pub preload: [f64; 6],
    /// A BEAM's FORMULATION (LINEAR for BUSHING and FIELD).
    pub formulation: BeamFormulation,
}

impl ElasticLaw {
    pub fn new(e: &mbsolve_model::Elastic) -> ElasticLaw {
        ElasticLaw {
            k: e.stiffness,
            c: e.damping_matrix(),
            reference: std::array::from_fn(|n| e.reference[n]),
            preload: std::array::from_fn(|n| e.preload[n]),
            formulation: e.formulation,
        }
    }

    /// δ (six measures) and δ̇ of I relative to J, and the generalized
    /// force on the 14 local coordinates.
    fn generalized<T: Real>(&self, i: &MarkerFrame, j: &MarkerFrame, f: [Frame<T>; 2]) -> [T; NL] {
        if self.formulation == BeamFormulation::Nonlinear {
            return beam_nl::corotational(self, i, j, f);
        }
        let [fi, fj] = f;
        let axes = |fr: &Frame<T>, m: &MarkerFrame| -> [V<T>; 3] {
            std::array::from_fn(|k| fr.rotate(&m.axis(k)))
        };
        let (ai, aj) = (axes(&fi, i), axes(&fj, j));
        let (si, sj) = (fi.rotate(&i.s), fj.rotate(&j.s));
        let (xi, xj) = (add(fi.r, si), add(fj.r, sj));
        let d = sub(xi, xj);
        let (wi, wj) = (fi.omega(), fj.omega());
        // Velocity of I's and J's origins, and d as seen from J:
        // ḋ − ω_J × d.
        let vi = add(fi.rd, cross(wi, si));
        let vj = add(fj.rd, cross(wj, sj));
        let dd = sub(sub(vi, vj), cross(wj, d));
        let wrel = sub(wi, wj);
        // Adams AX, AY, AZ (I relative to J).
        let [xi_, _, zi] = ai;
        let [xj_, yj, zj] = aj;
        let delta: [T; 6] = [
            dot(d, xj_),
            dot(d, yj),
            dot(d, zj),
            (-dot(zi, yj)).atan2(dot(zi, zj)),
            dot(zi, xj_).atan2(dot(zi, zj)),
            dot(xi_, yj).atan2(dot(xi_, xj_)),
        ];
        let rate: [T; 6] = [
            dot(dd, xj_),
            dot(dd, yj),
            dot(dd, zj),
            dot(wrel, xj_),
            dot(wrel, yj),
            dot(wrel, zj),
        ];
        let mut law: [T; 6] = std::array::from_fn(|r| {
            let mut v = T::cst(self.preload[r]);
            for c in 0..6 {
                v = v
                    - (delta[c] - T::cst(self.reference[c])).scale(self.k[(r, c)])
                    - rate[c].scale(self.c[(r, c)]);
            }
            v
        });
        if self.formulation == BeamFormulation::String {
            beam_nl::add_geometric_stiffness(self, &delta, &mut law);
        }
        let along = |a: &[T]| {
            add(
                add(times(aj[0], a[0]), times(aj[1], a[1])),
                times(aj[2], a[2]),
            )
        };
        apply_at_i([fi, fj], xi, along(&law[..3]), along(&law[3..]))
    }
}

/// The generalized force on the 14 local coordinates of a force `force`
/// at x_I and a torque `torque` (ground axes) on I's body, with the
/// reaction −F at the same point and −T on J's body.
pub(crate) fn apply_at_i<T: Real>(
    f: [Frame<T>; 2],
    xi: V<T>,
    force: V<T>,
    torque: V<T>,
) -> [T; NL] {
    let mut q = [T::cst(0.0); NL];
    for (s, fr, sign) in [(0, &f[0], 1.0), (1, &f[1], -1.0)] {
        let moment = add(torque, cross(sub(xi, fr.r), force));
        let qp = fr.torque_to_p(moment);
        for k in 0..3 {
            q[7 * s + k] = force[k].scale(sign);
        }
        for k in 0..4 {
            q[7 * s + 3 + k] = qp[k].scale(sign);
        }
    }
    q
}

impl ElasticLaw {
    /// Q with, when `jac`, ∂Q/∂q and ∂Q/∂u on the local coordinates.
    pub(crate) fn local(
        &self,
        i: &MarkerFrame,
        j: &MarkerFrame,
        poses: &[Option<Pose>; 2],
        ul: &Grad,
        jac: bool,
    ) -> (Grad, Option<(Hess, Hess)>) {
        // Ground: the identity frame at rest (its marker data is already
        // in ground).
        let still = Pose {
            r: Vector3::zeros(),
            p: Vector4::new(1.0, 0.0, 0.0, 0.0),
        };
        if !jac {
            let frames: [Frame<f64>; 2] = std::array::from_fn(|s| {
                let moving = poses[s].is_some();
                let pose = poses[s].unwrap_or(still);
                let rate = |k: usize| if moving { ul[7 * s + k] } else { 0.0 };
                Frame {
                    r: std::array::from_fn(|k| pose.r[k]),
                    p: std::array::from_fn(|k| pose.p[k]),
                    rd: std::array::from_fn(rate),
                    pd: std::array::from_fn(|k| rate(3 + k)),
                }
            });
            let q = self.generalized(i, j, frames);
            return (Grad::from_column_slice(&q), None);
        }
        let frames: [Frame<Dual>; 2] = std::array::from_fn(|s| {
            let moving = poses[s].is_some();
            let pose = poses[s].unwrap_or(still);
            let var = |v: f64, k: usize| {
                if moving {
                    Dual::seed(v, k)
                } else {
                    Dual::cst(v)
                }
            };
            let x: [Dual; 7] = std::array::from_fn(|k| {
                let v = if k < 3 { pose.r[k] } else { pose.p[k - 3] };
                var(v, 7 * s + k)
            });
            let xd: [Dual; 7] = std::array::from_fn(|k| {
                var(if moving { ul[7 * s + k] } else { 0.0 }, NL + 7 * s + k)
            });
            Frame {
                r: [x[0], x[1], x[2]],
                p: [x[3], x[4], x[5], x[6]],
                rd: [xd[0], xd[1], xd[2]],
                pd: [xd[3], xd[4], xd[5], xd[6]],
            }
        });
        let q = self.generalized(i, j, frames);
        let mut jq = Hess::zeros();
        let mut ju = Hess::zeros();
        for r in 0..NL {
            for c in 0..NL {
                jq[(r, c)] = q[r].g[c];
                ju[(r, c)] = q[r].g[NL + c];
            }
        }
        (Grad::from_fn(|r, _| q[r].v), Some((jq, ju)))
    }
}
