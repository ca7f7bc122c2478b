//! Body-fixed Euler angles of marker I relative to marker J as force-function
//! measures (PSI THETA PHI, YAW PITCH ROLL), with exact gradients in the
//! local coordinates.
//!
//! The values follow the request definitions (`solver::requests::
//! euler313_angles` and `FrameContext::measure`) formula for formula, so a
//! force and a request of the same angle agree: with R = R_Jᵀ R_I, R_ab =
//! e_J,a · e_I,b is one dot product of two marker axes, and its gradient
//! comes from the axes' Jacobians (δe = [δθ]× e in the Euler-parameter
//! coordinates the kernel uses, through [`V3::axis`](crate::local::V3)).
//!
//! 3-1-3 (R = Rz(ψ) Rx(θ) Rz(φ)): θ = atan2(√(R02² + R12²), R22), ψ =
//! atan2(R02, −R12), φ = atan2(R20, R21). At θ = 0 or π (√… ≤ 1e-12) ψ and
//! φ are not separable; like the request, ψ then carries the whole rotation
//! about z, atan2(R10, R00), and φ = 0 (gradient 0). θ's gradient there is
//! taken as 0: θ has a cone (no derivative) at 0 and π.
//!
//! 3-2-1 (R = Rz(yaw) Ry(θ) Rx(roll)): yaw = atan2(R10, R00), roll =
//! atan2(R21, R22), and PITCH = −θ = asin(R20): Adams' PITCH is the negative
//! of the second body 3-2-1 angle (automotive convention, func_pitch). At
//! θ = ±90° (√(R00² + R10²) ≤ 1e-12) yaw carries the whole turn,
//! atan2(−R01, R11), and roll reads 0 (gradient 0), as ORIENT(6, …) does;
//! pitch's gradient 1/√(1 − R20²) is taken as 0 where |R20| ≥ 1 (one-sided
//! choices at a measure-zero set; the values stay finite, so no run-time
//! error).

use crate::constraints::axis;
use crate::forces::k_axis;
use crate::local::{Grad, NoHess, Pose, Scalar};
use crate::system::MarkerFrame;

type S = Scalar<NoHess>;

/// Below this, θ is 0 or π (the request's threshold).
const GIMBAL: f64 = 1e-12;

fn constant(v: f64) -> S {
    Scalar {
        val: v,
        grad: Grad::zeros(),
        hess: NoHess,
    }
}

/// atan2(s, c) with gradient; gradient 0 at s = c = 0.
fn atan2(s: &S, c: &S) -> S {
    let rho = s.val * s.val + c.val * c.val;
    let grad = if rho > 0.0 {
        (s.grad * c.val - c.grad * s.val) / rho
    } else {
        Grad::zeros()
    };
    Scalar {
        val: s.val.atan2(c.val),
        grad,
        hess: NoHess,
    }
}

/// Pitch is ±90° (R00 = R10 = 0 within the request's threshold): yaw and
/// roll are not separable there.
fn ypr_locked(r00: &S, r10: &S) -> bool {
    (r10.val * r10.val + r00.val * r00.val).sqrt() <= GIMBAL
}

/// Euler angle `angle` (0 PSI, 1 THETA, 2 PHI, 3 YAW, 4 PITCH, 5 ROLL) of
/// marker I (slot `si`) relative to J (with its slot; ground axes when None).
pub(crate) fn euler_angle(
    i: &MarkerFrame,
    si: usize,
    j: &Option<(MarkerFrame, usize)>,
    poses: &[Option<Pose>; 2],
    angle: u8,
) -> S {
    let ei = |b: usize| axis(i, si, poses, b);
    let ej = |a: usize| k_axis(j, poses, a);
    // R_ab = e_J,a · e_I,b.
    let r = |a: usize, b: usize| crate::local::dot::<NoHess>(&ej(a), &ei(b));
    match angle {
        0..=2 => {
            let (r02, r12, r22) = (r(0, 2), r(1, 2), r(2, 2));
            let s2 = r02.val * r02.val + r12.val * r12.val;
            let s = s2.sqrt();
            if s > GIMBAL {
                match angle {
                    0 => atan2(&r02, &r12.scaled(-1.0)),
                    1 => {
                        // √(R02² + R12²) with its gradient (s > 0 here).
                        let sq = Scalar {
                            val: s,
                            grad: (r02.grad * r02.val + r12.grad * r12.val) / s,
                            hess: NoHess,
                        };
                        // The request clamps R22 to [−1, 1] first; that moves
                        // atan2 by at most rounding.
                        let c = Scalar {
                            val: r22.val.clamp(-1.0, 1.0),
                            ..r22
                        };
                        atan2(&sq, &c)
                    }
                    _ => atan2(&r(2, 0), &r(2, 1)),
                }
            } else {
                match angle {
                    0 => atan2(&r(1, 0), &r(0, 0)),
                    1 if r22.val > 0.0 => constant(0.0),
                    1 => constant(std::f64::consts::PI),
                    _ => constant(0.0),
                }
            }
        }
        3 | 5 if ypr_locked(&r(0, 0), &r(1, 0)) => {
            if angle == 3 {
                // Pitch ±90°: yaw carries the whole turn, atan2(−R01, R11).
                atan2(&r(0, 1).scaled(-1.0), &r(1, 1))
            } else {
                constant(0.0)
            }
        }
        3 => atan2(&r(1, 0), &r(0, 0)),
        4 => {
            let x = r(2, 0);
            let xc = x.val.clamp(-1.0, 1.0);
            let d = 1.0 - xc * xc;
            Scalar {
                val: xc.asin(),
                grad: if d > 0.0 {
                    x.grad / d.sqrt()
                } else {
                    Grad::zeros()
                },
                hess: NoHess,
            }
        }
        _ => atan2(&r(2, 1), &r(2, 2)),
    }
}
