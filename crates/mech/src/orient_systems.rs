//! The orientation systems of ORIENT(system, comp, i[, j]): one definition
//! of every component, shared by the requests (`solver::functions`,
//! `K::Orient`) and the force-function measure (`orient_measure.rs`), as a
//! function of the Euler parameters p = q_J* ⊗ q_I of marker I relative to
//! marker J, with its exact gradient ∂value/∂p.
//!
//! Sources for the table (what each system means; the formulas below are
//! ours):
//! - Adams Solver's ORIENT page, <https://adams.thisaray.com/adams_solver/orient.html>:
//!   systems 1–10 are the first, second and third angles of the
//!   body-fixed sequences 1-2-3, 2-3-1, 3-1-2, 1-3-2, 2-1-3, 3-2-1, 1-2-1,
//!   1-3-1, 2-1-2 and 2-3-2; J defaults to the global frame. (Only the page's
//!   opening could be retrieved.)
//! - BETA CAE's ANSA kinetics API documents the same ORIENT table in full
//!   (`ansa/kinetics.py`, function `Orient`, as stored in the public GitHub
//!   repository zff90/hua): 1–10 as above, 11 and 12 body-fixed 3-1-3 and
//!   3-2-3, 13–24 the space-fixed sequences in the same order as 1–12,
//!   25 AX/AY/AZ, 26 YAW/PITCH/ROLL, 27 the Euler parameters (4
//!   components), 28 the Rodriguez parameters, 29 the nine direction
//!   cosines (comp 1–3: I's x axis on J's x, y, z; 4–6 I's y axis; 7–9 I's
//!   z axis).
//! - Adams' PITCH page, <https://adams.thisaray.com/adams_solver/func_pitch.html>:
//!   PITCH is the negative of the second body-fixed 3-2-1 angle, so system
//!   26's second component is −(system 6's second).
//!
//! Definitions (R = R_Jᵀ R_I = A(p), R_ab = e_J,a · e_I,b; axes 1, 2, 3 are
//! x, y, z; R_k(θ) a right-handed rotation about axis k):
//! - Body-fixed a-b-c (angles θ1, θ2, θ3): R = R_a(θ1) R_b(θ2) R_c(θ3).
//! - Space-fixed a-b-c: θ1 about J's fixed axis a first, then θ2 about the
//!   fixed b, then θ3 about the fixed c: R = R_c(θ3) R_b(θ2) R_a(θ1), which
//!   is body-fixed c-b-a with the angles (θ3, θ2, θ1).
//! - Tait-Bryan sequences (a, b, c distinct, ε the sign of the permutation
//!   (a, b, c)): θ2 = atan2(ε R_ac, √(R_bc² + R_cc²)) ∈ [−π/2, π/2],
//!   θ1 = atan2(−ε R_bc, R_cc), θ3 = atan2(−ε R_ab, R_aa), both in [−π, π].
//! - Proper Euler sequences (a-b-a, d the third axis, ε the sign of
//!   (a, b, d)): θ2 = atan2(√(R_ba² + R_da²), R_aa) ∈ [0, π],
//!   θ1 = atan2(R_ba, −ε R_da), θ3 = atan2(R_ab, ε R_ad).
//! - Gimbal lock (cos θ2 resp. sin θ2 at most 1e-12, the threshold of the
//!   PSI/THETA/PHI requests): θ1 and θ3 are not separable. θ3 is then 0 and
//!   θ1 carries the whole rotation, θ1 = atan2(ε R_xb, R_bb) with x the
//!   axis other than a and b (exact for R = R_a(θ1) R_b(θ2)); the gradient
//!   of θ3 is 0 there and that of θ2's √… term is taken as 0 (one-sided
//!   choices on a set of measure zero; the values stay finite).
//! - 25: AX, AY, AZ as those functions (atan2(R_cb, R_bb) for axis a, with
//!   (a, b, c) cyclic). 26: YAW = θ1, PITCH = −θ2, ROLL = θ3 of body 3-2-1.
//! - 27: e0…e3 of p, as given (the caller applies the sign rule, e0 ≥ 0 in
//!   the initial configuration).
//! - 28: the (classical) Rodriguez parameters ρ_k = e_k / e0 = n_k tan(φ/2)
//!   for a rotation φ about n, independent of p's sign. At φ = 180° (e0 = 0)
//!   they are unbounded: the value is then the IEEE quotient (±∞, or NaN
//!   when e_k is 0 too).
//! - 29: R_ab with a = (comp − 1) mod 3 (J's axis), b = ⌊(comp − 1)/3⌋ (I's).

use crate::rotation::{k_mat, rot};
use nalgebra::{Matrix3, Vector3, Vector4};

/// cos θ2 (Tait-Bryan) or sin θ2 (proper Euler) at or below which the
/// sequence is in gimbal lock.
const GIMBAL: f64 = 1e-12;

/// The body-fixed sequences of systems 1…12 (0-based axes); systems 13…24
/// are the space-fixed sequences in the same order.
const SEQUENCES: [[usize; 3]; 12] = [
    [0, 1, 2],
    [1, 2, 0],
    [2, 0, 1],
    [0, 2, 1],
    [1, 0, 2],
    [2, 1, 0],
    [0, 1, 0],
    [0, 2, 0],
    [1, 0, 1],
    [1, 2, 1],
    [2, 0, 2],
    [2, 1, 2],
];

/// A scalar linear in the entries of R: value and ∂/∂R_ab.
#[derive(Clone, Copy)]
struct Lin {
    v: f64,
    d: Matrix3<f64>,
}

impl Lin {
    /// s·R_ab.
    fn entry(r: &Matrix3<f64>, a: usize, b: usize, s: f64) -> Lin {
        let mut d = Matrix3::zeros();
        d[(a, b)] = s;
        Lin {
            v: s * r[(a, b)],
            d,
        }
    }

    fn neg(self) -> Lin {
        Lin {
            v: -self.v,
            d: -self.d,
        }
    }

    /// atan2(s, c); gradient 0 at s = c = 0.
    fn atan2(s: Lin, c: Lin) -> Lin {
        let rho = s.v * s.v + c.v * c.v;
        Lin {
            v: s.v.atan2(c.v),
            d: if rho > 0.0 {
                (s.d * c.v - c.d * s.v) / rho
            } else {
                Matrix3::zeros()
            },
        }
    }

    /// √(x² + y²); gradient taken as 0 at or below the gimbal threshold.
    fn hypot(x: Lin, y: Lin) -> Lin {
        let h = (x.v * x.v + y.v * y.v).sqrt();
        Lin {
            v: h,
            d: if h > GIMBAL {
                (x.d * x.v + y.d * y.v) / h
            } else {
                Matrix3::zeros()
            },
        }
    }

    fn zero() -> Lin {
        Lin {
            v: 0.0,
            d: Matrix3::zeros(),
        }
    }
}

/// The sign of the permutation (a, b, c) of (0, 1, 2).
fn parity(a: usize, b: usize) -> f64 {
    if (a + 1) % 3 == b {
        1.0
    } else {
        -1.0
    }
}

/// The three angles of the body-fixed sequence `seq` (R = R_a R_b R_c).
fn body_angles(seq: [usize; 3], r: &Matrix3<f64>) -> [Lin; 3] {
    let [a, b, c] = seq;
    let e = |x: usize, y: usize, s: f64| Lin::entry(r, x, y, s);
    if c != a {
        let eps = parity(a, b);
        let cos2 = Lin::hypot(e(b, c, 1.0), e(c, c, 1.0));
        let second = Lin::atan2(e(a, c, eps), cos2);
        if cos2.v > GIMBAL {
            [
                Lin::atan2(e(b, c, -eps), e(c, c, 1.0)),
                second,
                Lin::atan2(e(a, b, -eps), e(a, a, 1.0)),
            ]
        } else {
            [Lin::atan2(e(c, b, eps), e(b, b, 1.0)), second, Lin::zero()]
        }
    } else {
        let d = 3 - a - b;
        let eps = parity(a, b);
        let sin2 = Lin::hypot(e(b, a, 1.0), e(d, a, 1.0));
        let second = Lin::atan2(sin2, e(a, a, 1.0));
        if sin2.v > GIMBAL {
            [
                Lin::atan2(e(b, a, 1.0), e(d, a, -eps)),
                second,
                Lin::atan2(e(a, b, 1.0), e(a, d, eps)),
            ]
        } else {
            [Lin::atan2(e(d, b, eps), e(b, b, 1.0)), second, Lin::zero()]
        }
    }
}

/// Component `comp` of the systems defined through R (1…26 and 29).
fn from_matrix(system: u8, comp: u8, r: &Matrix3<f64>) -> Lin {
    let k = comp as usize - 1;
    match system {
        1..=12 => body_angles(SEQUENCES[system as usize - 1], r)[k],
        13..=24 => {
            let [a, b, c] = SEQUENCES[system as usize - 13];
            body_angles([c, b, a], r)[2 - k]
        }
        25 => {
            let (b, c) = ((k + 1) % 3, (k + 2) % 3);
            Lin::atan2(Lin::entry(r, c, b, 1.0), Lin::entry(r, b, b, 1.0))
        }
        26 => {
            let angle = body_angles([2, 1, 0], r)[k];
            if k == 1 {
                angle.neg()
            } else {
                angle
            }
        }
        _ => Lin::entry(r, k % 3, k / 3, 1.0),
    }
}

/// ORIENT(system, comp, I, J) for the Euler parameters `p` of I relative to
/// J (p = q_J* ⊗ q_I, |p| = 1, already carrying the system-27 sign rule),
/// with ∂value/∂p. `system` 1…29 and `comp` in its range, as checked by the
/// expression layer (`mbsolve_expr::orient_system`); anything else reads
/// NaN.
pub fn component(system: u8, comp: u8, p: &Vector4<f64>) -> (f64, Vector4<f64>) {
    let unit = |k: usize| {
        let mut e = Vector4::zeros();
        e[k] = 1.0;
        e
    };
    match (system, comp) {
        (27, 1..=4) => (p[comp as usize - 1], unit(comp as usize - 1)),
        (28, 1..=3) => {
            let (ek, e0) = (p[comp as usize], p[0]);
            let grad = unit(comp as usize) / e0 - unit(0) * (ek / (e0 * e0));
            (ek / e0, grad)
        }
        (1..=26, 1..=3) | (29, 1..=9) => {
            let s = from_matrix(system, comp, &rot(p));
            // A_ab(p) = e_aᵀ A(p) e_b is a quadratic form whose Hessian is
            // K(e_b, e_a) (rotation.rs), so ∂A_ab/∂p = K(e_b, e_a) p.
            let mut grad = Vector4::zeros();
            for a in 0..3 {
                for b in 0..3 {
                    let w = s.d[(a, b)];
                    if w != 0.0 {
                        grad += k_mat(&Vector3::ith(b, 1.0), &Vector3::ith(a, 1.0)) * p * w;
                    }
                }
            }
            (s.v, grad)
        }
        _ => (f64::NAN, Vector4::zeros()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rotation::params_from_matrix;
    use nalgebra::Rotation3;

    fn elementary(axis: usize, angle: f64) -> Matrix3<f64> {
        Rotation3::from_axis_angle(&Vector3::ith_axis(axis), angle).into_inner()
    }

    /// Every Euler sequence recovers the angles it was composed from.
    #[test]
    fn sequences_recover_their_angles() {
        for (n, seq) in SEQUENCES.iter().enumerate() {
            let proper = seq[0] == seq[2];
            for (t1, t2, t3) in [
                (0.3f64, 0.4f64, -2.5f64),
                (-2.9, 1.2, 0.1),
                (1.7, -0.2, 3.0),
            ] {
                let t2 = if proper { t2.abs() + 0.5 } else { t2 };
                let r = elementary(seq[0], t1) * elementary(seq[1], t2) * elementary(seq[2], t3);
                let p = params_from_matrix(&r);
                for (k, want) in [t1, t2, t3].into_iter().enumerate() {
                    let got = component(n as u8 + 1, k as u8 + 1, &p).0;
                    assert!((got - want).abs() < 1e-12, "{seq:?} {k}: {got} vs {want}");
                }
            }
        }
    }

    /// In gimbal lock θ3 reads 0 and θ1 the combined turn: 1-2-3 at
    /// θ2 = ±π/2 is R_x(θ1 ± θ3) R_y(±π/2); 3-1-3 at θ2 = 0 is R_z(θ1 + θ3)
    /// and at θ2 = π is R_z(θ1 − θ3) R_x(π).
    #[test]
    fn gimbal_lock_gives_the_combined_first_angle() {
        use std::f64::consts::{FRAC_PI_2, PI};
        let (t1, t3) = (0.3, 0.4);
        for (system, seq, t2, want) in [
            (1, [0, 1, 2], FRAC_PI_2, [t1 + t3, FRAC_PI_2, 0.0]),
            (1, [0, 1, 2], -FRAC_PI_2, [t1 - t3, -FRAC_PI_2, 0.0]),
            (11, [2, 0, 2], 0.0, [t1 + t3, 0.0, 0.0]),
            (11, [2, 0, 2], PI, [t1 - t3, PI, 0.0]),
        ] {
            let r = elementary(seq[0], t1) * elementary(seq[1], t2) * elementary(seq[2], t3);
            let p = params_from_matrix(&r);
            for (k, want) in want.into_iter().enumerate() {
                let got = component(system, k as u8 + 1, &p).0;
                assert!(
                    (got - want).abs() < 1e-12,
                    "{system} θ2 = {t2}, angle {k}: {got} vs {want}"
                );
            }
        }
    }

    /// ∂value/∂p of every system and component against central differences
    /// (h = 1e-6) in all four directions, at orientations away from gimbal
    /// lock and from 180°.
    #[test]
    fn gradients_match_central_differences() {
        let mut systems: Vec<(u8, u8)> = Vec::new();
        for system in 1..=29u8 {
            let n = match system {
                27 => 4,
                29 => 9,
                _ => 3,
            };
            systems.extend((1..=n).map(|c| (system, c)));
        }
        for r in [
            elementary(0, 0.7) * elementary(1, -0.4) * elementary(2, 2.2),
            elementary(2, -1.9) * elementary(0, 1.1) * elementary(1, 0.5),
        ] {
            let p = params_from_matrix(&r);
            for &(system, comp) in &systems {
                let (_, grad) = component(system, comp, &p);
                for k in 0..4 {
                    let h = 1e-6;
                    let (mut pp, mut pm) = (p, p);
                    pp[k] += h;
                    pm[k] -= h;
                    let fd = (component(system, comp, &pp).0 - component(system, comp, &pm).0)
                        / (2.0 * h);
                    assert!(
                        (grad[k] - fd).abs() < 1e-7 * (1.0 + fd.abs()),
                        "ORIENT({system}, {comp}): ∂/∂p{k} {} vs {fd}",
                        grad[k]
                    );
                }
            }
        }
    }
}
