//! Initial-condition data that is not a part's: joint initial displacements
//! and velocities (JOINT IC=, ICTRAN=, ICROT=), and motions given by their
//! velocity or acceleration (MOTION VELOCITY|ACCELERATION, ICDISP, ICVEL).

use crate::{Id, MotionDof, TimeFunction};
use std::sync::{Arc, Mutex};

/// A joint degree of freedom held during the initial-condition analysis
/// and released afterwards (Adams JOINT IC/ICTRAN/ICROT: "Adams Solver
/// does not vary these during the initial conditions analysis").
/// The displacement is the joint's absolute one, as a MOTION measures it:
/// I's origin along J's z axis, or I's x axis turned about J's z axis.
#[derive(Clone, Debug, PartialEq)]
pub struct JointIc {
    pub joint: Id,
    pub dof: MotionDof,
    pub displacement: f64,
    /// Held too when given; otherwise left to the velocity analysis.
    pub velocity: Option<f64>,
}

/// What a MOTION's FUNCTION gives when it is not the displacement.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MotionInput {
    Velocity,
    Acceleration,
}

/// A MOTION given by velocity or acceleration with its integration
/// constants (Adams MOTION ICDISP, ICVEL; both default to zero).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MotionIntegral {
    pub input: MotionInput,
    pub icdisp: f64,
    pub icvel: f64,
}

/// The displacement function of a velocity or acceleration MOTION:
/// d(t) = ICDISP + ∫₀ᵗ v  (VELOCITY), or
/// d(t) = ICDISP + ICVEL·t + ∫₀ᵗ (t − τ) a(τ) dτ  (ACCELERATION),
/// integrated from time 0, the start of the simulation. The integrals are
/// computed by adaptive Gauss–Kronrod quadrature over fixed time slabs
/// whose integrals are kept, so a value does not depend on the order in
/// which times are asked for; d′ and d″ come from the function itself.
#[derive(Debug)]
pub struct IntegratedMotion {
    inner: Arc<dyn TimeFunction>,
    spec: MotionIntegral,
    /// (∫ f, ∫ τ f) over slab k = [kH, (k+1)H], by k.
    slabs: Mutex<std::collections::HashMap<i64, (f64, f64)>>,
}

/// Slab width of the cached integrals, in model time units.
const SLAB: f64 = 0.015625;
/// Relative tolerance of each slab's quadrature.
const QUAD_RTOL: f64 = 1e-13;
/// Bisections allowed below a slab (a discontinuity in the function).
const QUAD_MAX_DEPTH: u32 = 40;

impl IntegratedMotion {
    pub fn new(inner: Arc<dyn TimeFunction>, spec: MotionIntegral) -> Self {
        IntegratedMotion {
            inner,
            spec,
            slabs: Mutex::new(Default::default()),
        }
    }

    /// The function as written (the velocity or acceleration).
    pub fn written(&self) -> &Arc<dyn TimeFunction> {
        &self.inner
    }

    /// (∫₀ᵗ f, ∫₀ᵗ τ f(τ) dτ).
    fn integrals(&self, t: f64) -> (f64, f64) {
        let f = |s: f64| self.inner.eval(s)[0];
        let (sign, end) = if t >= 0.0 { (1.0, t) } else { (-1.0, -t) };
        let whole = (end / SLAB).floor() as i64;
        let mut i1 = 0.0;
        let mut i2 = 0.0;
        {
            let mut slabs = match self.slabs.lock() {
                Ok(g) => g,
                Err(p) => p.into_inner(),
            };
            for k in 0..whole {
                let key = if sign > 0.0 { k } else { -k - 1 };
                let (a, b) = (sign * k as f64 * SLAB, sign * (k + 1) as f64 * SLAB);
                let (s1, s2) = *slabs.entry(key).or_insert_with(|| quad(&f, a, b, 0));
                i1 += s1;
                i2 += s2;
            }
        }
        let (s1, s2) = quad(&f, sign * whole as f64 * SLAB, t, 0);
        (i1 + s1, i2 + s2)
    }
}

/// (∫ₐᵇ f, ∫ₐᵇ τ f) by 7-point Gauss / 15-point Kronrod, bisected until the
/// two agree.
fn quad(f: &dyn Fn(f64) -> f64, a: f64, b: f64, depth: u32) -> (f64, f64) {
    if a == b {
        return (0.0, 0.0);
    }
    let (c, h) = (0.5 * (a + b), 0.5 * (b - a));
    let (mut k1, mut k2, mut g1, mut g2) = (0.0, 0.0, 0.0, 0.0);
    for (n, (&x, &wk)) in KRONROD_X.iter().zip(&KRONROD_W).enumerate() {
        for s in if x == 0.0 {
            &[1.0][..]
        } else {
            &[1.0, -1.0][..]
        } {
            let tau = c + s * h * x;
            let v = f(tau);
            k1 += wk * v;
            k2 += wk * tau * v;
            if n % 2 == 1 {
                let wg = GAUSS_W[n / 2];
                g1 += wg * v;
                g2 += wg * tau * v;
            }
        }
    }
    let (k1, k2, g1, g2) = (k1 * h, k2 * h, g1 * h, g2 * h);
    let scale = k1.abs() + k2.abs() + f64::MIN_POSITIVE;
    let converged = (k1 - g1).abs() + (k2 - g2).abs() <= QUAD_RTOL * scale
        || (k1 - g1).abs() + (k2 - g2).abs() < 1e-300;
    if converged || depth >= QUAD_MAX_DEPTH || !k1.is_finite() {
        return (k1, k2);
    }
    let l = quad(f, a, c, depth + 1);
    let r = quad(f, c, b, depth + 1);
    (l.0 + r.0, l.1 + r.1)
}

/// Kronrod 15-point abscissae on [0, 1] (the odd entries are the 7-point
/// Gauss nodes) and weights (Piessens et al., QUADPACK qk15).
const KRONROD_X: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
const KRONROD_W: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_2,
    0.140_653_259_715_525_9,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_8,
];
/// Gauss 7-point weights for the nodes KRONROD_X[1], [3], [5], [7].
const GAUSS_W: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

impl TimeFunction for IntegratedMotion {
    fn rebound(&self, values: &crate::SensorValues) -> Option<Arc<dyn TimeFunction>> {
        let inner = self.inner.rebound(values)?;
        Some(Arc::new(IntegratedMotion::new(inner, self.spec)))
    }
    fn eval(&self, t: f64) -> [f64; 3] {
        let [f, df, _] = self.inner.eval(t);
        let (i1, i2) = self.integrals(t);
        let s = &self.spec;
        match s.input {
            MotionInput::Velocity => [s.icdisp + i1, f, df],
            MotionInput::Acceleration => [s.icdisp + s.icvel * t + t * i1 - i2, s.icvel + i1, f],
        }
    }
    fn explain(&self, t: f64) -> Option<String> {
        self.inner.explain(t)
    }
    fn source(&self) -> Option<&str> {
        self.inner.source()
    }
    fn integrated(&self) -> Option<MotionIntegral> {
        Some(self.spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Cosine;
    impl TimeFunction for Cosine {
        fn eval(&self, t: f64) -> [f64; 3] {
            [
                (3.0 * t).cos(),
                -3.0 * (3.0 * t).sin(),
                -9.0 * (3.0 * t).cos(),
            ]
        }
    }

    /// v = cos 3t: d = ICDISP + sin(3t)/3, to 1e-13, forwards and
    /// backwards in time, and whatever order the times are asked in.
    #[test]
    fn velocity_motion_integrates_in_closed_form() {
        let m = IntegratedMotion::new(
            Arc::new(Cosine),
            MotionIntegral {
                input: MotionInput::Velocity,
                icdisp: 0.25,
                icvel: 0.0,
            },
        );
        for t in [2.7, 0.01, 1.0, -0.4, 0.5, 12.3] {
            let [d, v, a] = m.eval(t);
            assert!(
                (d - (0.25 + (3.0 * t).sin() / 3.0)).abs() < 1e-13,
                "t = {t}: {d}"
            );
            assert_eq!(v, (3.0 * t).cos());
            assert_eq!(a, -3.0 * (3.0 * t).sin());
        }
    }

    /// a = cos 3t: v = ICVEL + sin(3t)/3, d = ICDISP + ICVEL t + (1 − cos 3t)/9.
    #[test]
    fn acceleration_motion_integrates_twice() {
        let m = IntegratedMotion::new(
            Arc::new(Cosine),
            MotionIntegral {
                input: MotionInput::Acceleration,
                icdisp: -1.0,
                icvel: 2.0,
            },
        );
        for t in [0.0, 0.3, 1.9, 7.25] {
            let [d, v, a] = m.eval(t);
            let d_exact = -1.0 + 2.0 * t + (1.0 - (3.0 * t).cos()) / 9.0;
            assert!((d - d_exact).abs() < 1e-12, "t = {t}: {d} vs {d_exact}");
            assert!((v - (2.0 + (3.0 * t).sin() / 3.0)).abs() < 1e-13);
            assert_eq!(a, (3.0 * t).cos());
        }
    }
}
