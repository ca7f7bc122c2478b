//! BEAM FORMULATION = NONLINEAR and STRING: mbsolve's own laws.
//!
//! Adams names these formulations ("the full non linear Euler-Bernoulli
//! theory", "a simplified non linear theory") but publishes no equations,
//! so both laws below are OUR design. Each keeps the LINEAR section matrix
//! K (same shear-area ratios) and damping C (CRATIO or CMATRIX), and each
//! reduces to LINEAR to first order in the deflection.
//!
//! **STRING** (second-order beam theory, chord or "P-Δ" form): the LINEAR
//! law in J's axes plus the lateral stiffness of the axial force
//! N = (EA/L)(x − L) (tension positive, the elastic axial force only)
//! on the chord:
//!
//!   f_y −= (N/L) y,    f_z −= (N/L) z,
//!
//! with y, z the lateral displacement of I in J's axes (the energy
//! ½ N (y² + z²)/L of the chord's rotation y/L, z/L). Lateral stiffness
//! rises under tension and falls under compression. This is the limit
//! N L²/EI → ∞ of the exact beam-column stiffness, i.e. a string: a chain
//! of STRING beams of negligible EI between beads is exactly the beaded
//! string, and a STRING column buckles at Euler's load as the chain is
//! refined. (The consistent cubic term N/(30L)[36, ∓3L; ∓3L, 4L²] on
//! (y, c) and (z, b) would make a string 20 % too stiff per element when
//! EI is small: with the beads' rotations free, the cubic cannot kink.)
//! "Simplified": N is not corrected for the shortening of the bent beam,
//! and the measures are LINEAR's (J-clamped), so large rotations are not
//! exact; the end rotations' own geometric terms are left out.
//!
//! **NONLINEAR** (co-rotational, small strain): a frame E = (e₁, e₂, e₃)
//! turns with the element: e₁ along the chord x_I − x_J (length ℓ),
//! e₃ ∥ e₁ × ½(y_I + y_J), e₂ = e₃ × e₁. Each end triad A = (a₁, a₂, a₃)
//! has rotations relative to E: θ_z = atan2(a₁·e₂, a₁·e₁),
//! θ_y = atan2(−a₁·e₃, a₁·e₁), θ_x = atan2(a₂·e₃ − a₃·e₂, a₂·e₂ + a₃·e₃).
//! The LINEAR law acts on the J-clamped deformation these imply,
//!
//!   δ̃ = (u, −L θ_Jz, L θ_Jy, θ_Ix − θ_Jx, θ_Iy − θ_Jy, θ_Iz − θ_Jz),
//!   u = ℓ − L + (L/30)(2θ_Jz² − θ_Jz θ_Iz + 2θ_Iz²)
//!             + (L/30)(2θ_Jy² − θ_Jy θ_Iy + 2θ_Iy²),
//!
//! the two quadratic terms being ½∫v′² dx of the cubic between the ends
//! (the bent beam's arc is longer than its chord: von Kármán strain), so
//! a circular arc carries no axial force to second order. δ̃ equals
//! LINEAR's δ − δ₀ to first order. The forces come from virtual work:
//! with ε the motion of I relative to J's rigid motion (translation of
//! x_I and small rotation of I's triad, ground axes) and B = ∂δ̃/∂ε,
//!
//!   f̃ = preload − K δ̃ − C δ̃̇,  δ̃̇ = B ε̇,  (F, T) at I = Bᵀ f̃,
//!
//! so the elastic part is −∂U/∂ε of U = ½ δ̃ᵀ K δ̃ (conservative) and the
//! damping dissipates. Every measure is a dot product of vectors that
//! turn with the bodies, so any rigid motion of both end markers, at any
//! angle, gives zero force. J's reaction is −F at x_I and −T, exact
//! because U is invariant under rigid motion. B is taken by a nested
//! forward-mode derivative ([`Nest`]) over ε at ε = 0, so the Jacobian
//! (the outer [`super::Dual`]) stays exact.

use super::{add, apply_at_i, cross, dot, sub, times, ElasticLaw, Frame, Real, V};
use crate::local::NL;
use crate::system::MarkerFrame;
use std::ops::{Add, Mul, Neg, Sub};

/// A value with its gradient on the six relative motions ε of I (three
/// translations, three small rotations, ground axes).
#[derive(Clone, Copy)]
struct Nest<T> {
    v: T,
    g: [T; 6],
}

impl<T: Real> Add for Nest<T> {
    type Output = Self;
    fn add(self, o: Self) -> Self {
        Nest {
            v: self.v + o.v,
            g: std::array::from_fn(|k| self.g[k] + o.g[k]),
        }
    }
}
impl<T: Real> Sub for Nest<T> {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        Nest {
            v: self.v - o.v,
            g: std::array::from_fn(|k| self.g[k] - o.g[k]),
        }
    }
}
/// The product rule: d(ab) = a db + b da (the `+` is intended).
#[allow(clippy::suspicious_arithmetic_impl)]
impl<T: Real> Mul for Nest<T> {
    type Output = Self;
    fn mul(self, o: Self) -> Self {
        Nest {
            v: self.v * o.v,
            g: std::array::from_fn(|k| self.g[k] * o.v + o.g[k] * self.v),
        }
    }
}
impl<T: Real> Neg for Nest<T> {
    type Output = Self;
    fn neg(self) -> Self {
        Nest {
            v: -self.v,
            g: std::array::from_fn(|k| -self.g[k]),
        }
    }
}

impl<T: Real> Real for Nest<T> {
    fn cst(v: f64) -> Self {
        Nest {
            v: T::cst(v),
            g: [T::cst(0.0); 6],
        }
    }
    fn scale(self, c: f64) -> Self {
        Nest {
            v: self.v.scale(c),
            g: std::array::from_fn(|k| self.g[k].scale(c)),
        }
    }
    /// d atan2(y, x) = (x dy − y dx)/(x² + y²).
    fn atan2(self, x: Self) -> Self {
        let inv = (self.v * self.v + x.v * x.v).recip();
        Nest {
            v: self.v.atan2(x.v),
            g: std::array::from_fn(|k| (self.g[k] * x.v - x.g[k] * self.v) * inv),
        }
    }
    fn sqrt(self) -> Self {
        let r = self.v.sqrt();
        let half = r.recip().scale(0.5);
        Nest {
            v: r,
            g: std::array::from_fn(|k| self.g[k] * half),
        }
    }
    fn recip(self) -> Self {
        let r = self.v.recip();
        let d = -(r * r);
        Nest {
            v: r,
            g: std::array::from_fn(|k| self.g[k] * d),
        }
    }
}

/// Rotations (θ_x, θ_y, θ_z) of the triad `a` relative to `e` (module
/// documentation); each is the rotation-vector component to first order.
fn relative<R: Real>(a: &[V<R>; 3], e: &[V<R>; 3]) -> [R; 3] {
    [
        (dot(a[1], e[2]) - dot(a[2], e[1])).atan2(dot(a[1], e[1]) + dot(a[2], e[2])),
        (-dot(a[0], e[2])).atan2(dot(a[0], e[0])),
        dot(a[0], e[1]).atan2(dot(a[0], e[0])),
    ]
}

/// δ̃ (module documentation) from the chord d = x_I − x_J, I's and J's
/// axes and the free length.
fn corotated<R: Real>(d: V<R>, ai: &[V<R>; 3], aj: &[V<R>; 3], length: f64) -> [R; 6] {
    let chord = dot(d, d).sqrt();
    let e1 = times(d, chord.recip());
    let mean_y = times(add(ai[1], aj[1]), R::cst(0.5));
    let n = cross(e1, mean_y);
    let e3 = times(n, dot(n, n).sqrt().recip());
    let e2 = cross(e3, e1);
    let e = [e1, e2, e3];
    let [tix, tiy, tiz] = relative(ai, &e);
    let [tjx, tjy, tjz] = relative(aj, &e);
    let arc = |tj: R, ti: R| (tj * tj).scale(2.0) - tj * ti + (ti * ti).scale(2.0);
    let u = chord - R::cst(length) + (arc(tjz, tiz) + arc(tjy, tiy)).scale(length / 30.0);
    [
        u,
        tjz.scale(-length),
        tjy.scale(length),
        tix - tjx,
        tiy - tjy,
        tiz - tjz,
    ]
}

/// A constant vector lifted into [`Nest`] (J's axes: ε moves I only).
fn fixed<T: Real>(v: V<T>) -> V<Nest<T>> {
    v.map(|x| Nest {
        v: x,
        g: [T::cst(0.0); 6],
    })
}

/// The co-rotational NONLINEAR law: the generalized force on the 14 local
/// coordinates (module documentation).
pub(super) fn corotational<T: Real>(
    law: &ElasticLaw,
    i: &MarkerFrame,
    j: &MarkerFrame,
    f: [Frame<T>; 2],
) -> [T; NL] {
    let [fi, fj] = f;
    let axes = |fr: &Frame<T>, m: &MarkerFrame| -> [V<T>; 3] {
        std::array::from_fn(|k| fr.rotate(&m.axis(k)))
    };
    let (ai, aj) = (axes(&fi, i), axes(&fj, j));
    let (si, sj) = (fi.rotate(&i.s), fj.rotate(&j.s));
    let xi = add(fi.r, si);
    let d = sub(xi, add(fj.r, sj));
    let (wi, wj) = (fi.omega(), fj.omega());
    // ε̇: I's velocity relative to J's rigid motion, and ω_I − ω_J.
    let vi = add(fi.rd, cross(wi, si));
    let vj = add(fj.rd, cross(wj, sj));
    let eps_rate = {
        let dd = sub(sub(vi, vj), cross(wj, d));
        let wrel = sub(wi, wj);
        [dd[0], dd[1], dd[2], wrel[0], wrel[1], wrel[2]]
    };
    // ε: x_I + ε₀..₂, and each axis a + ε₃..₅ × a (first order suffices
    // for the gradient at ε = 0).
    let zero = T::cst(0.0);
    let d_n: V<Nest<T>> = std::array::from_fn(|c| {
        let mut g = [zero; 6];
        g[c] = T::cst(1.0);
        Nest { v: d[c], g }
    });
    let ai_n: [V<Nest<T>>; 3] = std::array::from_fn(|k| {
        let a = ai[k];
        // e_m × a for m = x, y, z.
        let turned = [
            [zero, -a[2], a[1]],
            [a[2], zero, -a[0]],
            [-a[1], a[0], zero],
        ];
        std::array::from_fn(|c| {
            let mut g = [zero; 6];
            for m in 0..3 {
                g[3 + m] = turned[m][c];
            }
            Nest { v: a[c], g }
        })
    });
    let aj_n = aj.map(fixed);
    let delta = corotated(d_n, &ai_n, &aj_n, law.reference[0]);
    let rate: [T; 6] =
        std::array::from_fn(|r| (0..6).fold(zero, |acc, m| acc + delta[r].g[m] * eps_rate[m]));
    let local: [T; 6] = std::array::from_fn(|r| {
        let mut v = T::cst(law.preload[r]);
        for c in 0..6 {
            v = v - delta[c].v.scale(law.k[(r, c)]) - rate[c].scale(law.c[(r, c)]);
        }
        v
    });
    let generalized: [T; 6] =
        std::array::from_fn(|m| (0..6).fold(zero, |acc, r| acc + delta[r].g[m] * local[r]));
    apply_at_i(
        [fi, fj],
        xi,
        [generalized[0], generalized[1], generalized[2]],
        [generalized[3], generalized[4], generalized[5]],
    )
}

/// STRING: the chord (P-Δ) geometric stiffness of the axial force added
/// to LINEAR's law `f` (J's axes) at the deformation `delta` (module
/// documentation).
pub(super) fn add_geometric_stiffness<T: Real>(law: &ElasticLaw, delta: &[T; 6], f: &mut [T; 6]) {
    let length = law.reference[0];
    // N/L = (EA/L)(x − L)/L: K₁₁ of the section matrix is EA/L.
    let n_over_l = (delta[0] - T::cst(length)).scale(law.k[(0, 0)] / length);
    f[1] = f[1] - n_over_l * delta[1];
    f[2] = f[2] - n_over_l * delta[2];
}
