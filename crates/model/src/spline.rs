//! SPLINE data (Adams SPLINE statement, MotionSolve Reference_Spline) and
//! the two interpolants the CUBSPL and AKISPL functions read.
//!
//! What the Adams Solver reference says (func_cubspl, func_akispl,
//! akispl_s/cubspl_s, the SPLINE statement and the Adams/View "Create
//! Spline" dialog; confirmed through the `search` tool, see the README):
//! - at least four x values, strictly increasing; a family of curves gives
//!   each curve at a z value, z strictly increasing;
//! - interpolation along x is cubic (CUBSPL: "the standard cubic method";
//!   AKISPL: Akima 1970, a local method), along z it is linear;
//! - the derivative order iord (0, 1, 2) is along x and may be given for
//!   a curve only;
//! - beyond the data Adams extrapolates with "a parabolic function over the
//!   first or last three data points"; with LINEAR_EXTRAPOLATE with "a
//!   linear function over the first or last two data points".
//!
//! The reference does not state CUBSPL's end conditions. We use de Boor's
//! not-a-knot condition (the default of de Boor's routine of the same name,
//! `CUBSPL` in "A Practical Guide to Splines"), which is also why four
//! points are the minimum: with four points the spline is the one cubic
//! through them. Outside the z range a family is extrapolated linearly from
//! its first or last two curves (the reference says "linear" only).

use crate::Id;

/// Interpolation method along x.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplineMethod {
    /// CUBSPL: C² cubic spline with not-a-knot ends.
    Cubic,
    /// AKISPL: Akima's local cubic (C¹).
    Akima,
}

/// Value and x-derivatives up to the third at a point of one curve (the
/// fourth vanishes: every piece is at most cubic).
pub type XDerivatives = [f64; 4];

/// One SPLINE: the x values, one curve or a family of curves y(x) at
/// increasing z, and the extrapolation rule. The Hermite slopes of both
/// interpolants are computed once, when the spline is built.
#[derive(Clone, Debug, PartialEq)]
pub struct Spline {
    pub id: Id,
    pub x: Vec<f64>,
    /// `Some(z)` for each curve of a family (Y = z, y1, …), `None` for a
    /// single curve (Y = y1, …).
    pub z: Option<Vec<f64>>,
    /// y values, one row per curve, each as long as `x`.
    pub y: Vec<Vec<f64>>,
    pub linear_extrapolate: bool,
    cubic_slopes: Vec<Vec<f64>>,
    akima_slopes: Vec<Vec<f64>>,
}

/// Minimum number of x values (Adams SPLINE: "at least four x values").
pub const SPLINE_MIN_POINTS: usize = 4;

impl Spline {
    /// Check the data and precompute the slopes; the message says what is
    /// wrong (the caller adds the statement and position).
    pub fn new(
        id: Id,
        x: Vec<f64>,
        z: Option<Vec<f64>>,
        y: Vec<Vec<f64>>,
        linear_extrapolate: bool,
    ) -> Result<Spline, String> {
        if x.len() < SPLINE_MIN_POINTS {
            return Err(format!(
                "X needs at least {SPLINE_MIN_POINTS} values, found {}",
                x.len()
            ));
        }
        if let Some(k) = (1..x.len()).find(|&k| x[k] <= x[k - 1]) {
            return Err(format!(
                "X values must increase strictly: x{} = {} follows x{} = {}",
                k + 1,
                crate::readable(x[k]),
                k,
                crate::readable(x[k - 1])
            ));
        }
        if y.is_empty() {
            return Err("missing Y =".into());
        }
        if let Some(z) = &z {
            if z.len() != y.len() {
                return Err("each curve of a family needs its z value".into());
            }
            if let Some(k) = (1..z.len()).find(|&k| z[k] <= z[k - 1]) {
                return Err(format!(
                    "the z values of the curves must increase strictly: z{} = {} follows z{} = {}",
                    k + 1,
                    crate::readable(z[k]),
                    k,
                    crate::readable(z[k - 1])
                ));
            }
        } else if y.len() != 1 {
            return Err("a single curve has one Y list".into());
        }
        for (c, row) in y.iter().enumerate() {
            if row.len() != x.len() {
                let which = match &z {
                    Some(z) => format!("the curve at z = {}", crate::readable(z[c])),
                    None => "Y".to_string(),
                };
                return Err(format!(
                    "{which} has {} values for {} x values",
                    row.len(),
                    x.len()
                ));
            }
        }
        let cubic_slopes = y.iter().map(|row| not_a_knot_slopes(&x, row)).collect();
        let akima_slopes = y.iter().map(|row| akima_slopes(&x, row)).collect();
        Ok(Spline {
            id,
            x,
            z,
            y,
            linear_extrapolate,
            cubic_slopes,
            akima_slopes,
        })
    }

    /// Whether the spline is a family of curves (a surface y(x, z)).
    pub fn is_surface(&self) -> bool {
        self.z.as_ref().is_some_and(|z| z.len() > 1)
    }

    /// Value and x-derivatives of curve `c` at `x`.
    pub fn curve_at(&self, method: SplineMethod, c: usize, x: f64) -> XDerivatives {
        let xs = &self.x;
        let ys = &self.y[c];
        let n = xs.len();
        if x < xs[0] || x > xs[n - 1] {
            let (a, b, c3) = if x < xs[0] {
                (0, 1, 2)
            } else {
                (n - 1, n - 2, n - 3)
            };
            return if self.linear_extrapolate {
                let s = (ys[b] - ys[a]) / (xs[b] - xs[a]);
                [ys[a] + s * (x - xs[a]), s, 0.0, 0.0]
            } else {
                parabola([xs[a], xs[b], xs[c3]], [ys[a], ys[b], ys[c3]], x)
            };
        }
        let slopes = match method {
            SplineMethod::Cubic => &self.cubic_slopes[c],
            SplineMethod::Akima => &self.akima_slopes[c],
        };
        // interval k with xs[k] ≤ x ≤ xs[k+1]
        let k = xs.partition_point(|&v| v <= x).clamp(1, n - 1) - 1;
        hermite(
            xs[k],
            xs[k + 1],
            ys[k],
            ys[k + 1],
            slopes[k],
            slopes[k + 1],
            x,
        )
    }

    /// The interpolated surface at (x, z): value and the partial
    /// derivatives f, f_x, f_xx, f_xxx, f_z, f_xz, f_xxz (f_zz and higher z
    /// derivatives vanish: the z interpolation is linear). For a single
    /// curve z is ignored and the z derivatives are zero.
    pub fn surface_at(&self, method: SplineMethod, x: f64, z: f64) -> SurfacePoint {
        let Some(zs) = self.z.as_ref().filter(|z| z.len() > 1) else {
            return SurfacePoint {
                x: self.curve_at(method, 0, x),
                z: [0.0; 4],
            };
        };
        let m = zs.len();
        let k = zs.partition_point(|&v| v <= z).clamp(1, m - 1) - 1;
        let (za, zb) = (zs[k], zs[k + 1]);
        let w = (z - za) / (zb - za);
        let fa = self.curve_at(method, k, x);
        let fb = self.curve_at(method, k + 1, x);
        let mut p = SurfacePoint {
            x: [0.0; 4],
            z: [0.0; 4],
        };
        for i in 0..4 {
            p.x[i] = (1.0 - w) * fa[i] + w * fb[i];
            p.z[i] = (fb[i] - fa[i]) / (zb - za);
        }
        p
    }
}

/// Interpolated surface values: `x[i]` = ∂ⁱf/∂xⁱ and `z[i]` = ∂ⁱ⁺¹f/∂xⁱ∂z.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfacePoint {
    pub x: XDerivatives,
    pub z: XDerivatives,
}

/// Cubic Hermite piece on [x0, x1] with end values y0, y1 and slopes s0,
/// s1: value and three derivatives at x.
fn hermite(x0: f64, x1: f64, y0: f64, y1: f64, s0: f64, s1: f64, x: f64) -> XDerivatives {
    let h = x1 - x0;
    let t = x - x0;
    let delta = (y1 - y0) / h;
    // y = y0 + s0 t + c2 t² + c3 t³
    let c2 = (3.0 * delta - 2.0 * s0 - s1) / h;
    let c3 = (s0 + s1 - 2.0 * delta) / (h * h);
    [
        y0 + t * (s0 + t * (c2 + t * c3)),
        s0 + t * (2.0 * c2 + 3.0 * t * c3),
        2.0 * c2 + 6.0 * t * c3,
        6.0 * c3,
    ]
}

/// The parabola through three points, at x.
fn parabola(xs: [f64; 3], ys: [f64; 3], x: f64) -> XDerivatives {
    // Newton form: y0 + d01 (x − x0) + d012 (x − x0)(x − x1)
    let d01 = (ys[1] - ys[0]) / (xs[1] - xs[0]);
    let d12 = (ys[2] - ys[1]) / (xs[2] - xs[1]);
    let d012 = (d12 - d01) / (xs[2] - xs[0]);
    let (u, v) = (x - xs[0], x - xs[1]);
    [
        ys[0] + d01 * u + d012 * u * v,
        d01 + d012 * (u + v),
        2.0 * d012,
        0.0,
    ]
}

/// Node slopes of the not-a-knot cubic spline (de Boor, "A Practical Guide
/// to Splines", CUBSPL with ibcbeg = ibcend = 0): the C² conditions at the
/// interior points and third-derivative continuity across x₂ and x_{n−1},
/// a tridiagonal system in the slopes solved by elimination. Needs n ≥ 4.
fn not_a_knot_slopes(x: &[f64], y: &[f64]) -> Vec<f64> {
    let n = x.len();
    let h: Vec<f64> = (0..n - 1).map(|i| x[i + 1] - x[i]).collect();
    let d: Vec<f64> = (0..n - 1).map(|i| (y[i + 1] - y[i]) / h[i]).collect();
    // row i: sub[i]·s[i−1] + diag[i]·s[i] + sup[i]·s[i+1] = rhs[i]
    let mut sub = vec![0.0; n];
    let mut diag = vec![0.0; n];
    let mut sup = vec![0.0; n];
    let mut rhs = vec![0.0; n];
    diag[0] = h[1];
    sup[0] = h[0] + h[1];
    rhs[0] = ((h[0] + 2.0 * (h[0] + h[1])) * h[1] * d[0] + h[0] * h[0] * d[1]) / (h[0] + h[1]);
    for i in 1..n - 1 {
        sub[i] = h[i];
        diag[i] = 2.0 * (h[i - 1] + h[i]);
        sup[i] = h[i - 1];
        rhs[i] = 3.0 * (h[i] * d[i - 1] + h[i - 1] * d[i]);
    }
    let (a, b) = (h[n - 2], h[n - 3]);
    sub[n - 1] = a + b;
    diag[n - 1] = b;
    rhs[n - 1] = ((a + 2.0 * (a + b)) * b * d[n - 2] + a * a * d[n - 3]) / (a + b);
    solve_tridiagonal(&sub, &mut diag, &sup, &mut rhs);
    rhs
}

/// Thomas elimination in place; `rhs` becomes the solution. The not-a-knot
/// system is the one de Boor eliminates without pivoting: the first row's
/// pivot is h₁ > 0 and every later pivot stays positive.
fn solve_tridiagonal(sub: &[f64], diag: &mut [f64], sup: &[f64], rhs: &mut [f64]) {
    let n = diag.len();
    for i in 1..n {
        let g = sub[i] / diag[i - 1];
        diag[i] -= g * sup[i - 1];
        rhs[i] -= g * rhs[i - 1];
    }
    rhs[n - 1] /= diag[n - 1];
    for i in (0..n - 1).rev() {
        rhs[i] = (rhs[i] - sup[i] * rhs[i + 1]) / diag[i];
    }
}

/// Node slopes of Akima's method (H. Akima, J. ACM 17(4), 1970, 589–602):
/// with the segment slopes m, the slope at a point is
/// (|m₊₁ − m₀|·m₋₁ + |m₋₁ − m₋₂|·m₀) / (|m₊₁ − m₀| + |m₋₁ − m₋₂|), the mean of
/// m₋₁ and m₀ when both weights vanish; two slopes are added beyond each
/// end as Akima does (m₋₁ = 2m₀ − m₁, m₋₂ = 2m₋₁ − m₀), which is the
/// parabola through the end points.
fn akima_slopes(x: &[f64], y: &[f64]) -> Vec<f64> {
    let n = x.len();
    // m[k + 2] is the slope of segment k; two extra on each side
    let mut m = vec![0.0; n + 3];
    for k in 0..n - 1 {
        m[k + 2] = (y[k + 1] - y[k]) / (x[k + 1] - x[k]);
    }
    m[1] = 2.0 * m[2] - m[3];
    m[0] = 2.0 * m[1] - m[2];
    m[n + 1] = 2.0 * m[n] - m[n - 1];
    m[n + 2] = 2.0 * m[n + 1] - m[n];
    (0..n)
        .map(|i| {
            // point i sits between segments i−1 (m[i+1]) and i (m[i+2])
            let w1 = (m[i + 3] - m[i + 2]).abs();
            let w2 = (m[i + 1] - m[i]).abs();
            if w1 + w2 == 0.0 {
                0.5 * (m[i + 1] + m[i + 2])
            } else {
                (w1 * m[i + 1] + w2 * m[i + 2]) / (w1 + w2)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(x: &[f64], f: impl Fn(f64) -> f64, linear: bool) -> Spline {
        let y = x.iter().map(|&v| f(v)).collect();
        Spline::new(1, x.to_vec(), None, vec![y], linear).unwrap()
    }

    /// Not-a-knot reproduces any cubic exactly (uneven spacing): value,
    /// slope, curvature and third derivative, to rounding.
    #[test]
    fn cubic_spline_reproduces_a_cubic() {
        let f = |x: f64| 2.0 - x + 0.5 * x * x - 0.3 * x * x * x;
        let s = curve(&[-1.0, -0.2, 0.5, 1.7, 2.0, 3.5], f, false);
        for &x in &[-1.0, -0.6, 0.1, 0.5, 1.0, 1.9, 3.2, 3.5] {
            let v = s.curve_at(SplineMethod::Cubic, 0, x);
            let exact = [f(x), -1.0 + x - 0.9 * x * x, 1.0 - 1.8 * x, -1.8];
            for i in 0..4 {
                assert!(
                    (v[i] - exact[i]).abs() < 1e-11,
                    "x={x} d{i}: {} vs {}",
                    v[i],
                    exact[i]
                );
            }
        }
    }

    /// The spline is C²: value, slope and curvature agree from both sides
    /// of every interior knot, and it passes through the data.
    #[test]
    fn cubic_spline_is_c2_and_interpolates() {
        let x = [0.0, 0.7, 1.1, 2.0, 2.4, 3.9, 5.0];
        let s = curve(&x, |v| (2.0 * v).sin() + 0.1 * v, false);
        for (k, &xk) in x.iter().enumerate().take(x.len() - 1).skip(1) {
            let e = 1e-9;
            let l = s.curve_at(SplineMethod::Cubic, 0, xk - e);
            let r = s.curve_at(SplineMethod::Cubic, 0, xk + e);
            for i in 0..3 {
                assert!(
                    (l[i] - r[i]).abs() < 1e-6,
                    "knot {k} d{i}: {} vs {}",
                    l[i],
                    r[i]
                );
            }
            let at = s.curve_at(SplineMethod::Cubic, 0, xk);
            assert!((at[0] - s.y[0][k]).abs() < 1e-14);
        }
    }

    /// Akima on evenly spaced data from a quadratic reproduces it exactly
    /// (the slope formula then gives the mean of neighbouring secants, the
    /// quadratic's exact slope, and the end extension continues it).
    #[test]
    fn akima_reproduces_a_quadratic_on_even_data() {
        let f = |x: f64| 1.0 + 2.0 * x - 0.75 * x * x;
        let x: Vec<f64> = (0..7).map(|k| -1.0 + 0.5 * k as f64).collect();
        let s = curve(&x, f, false);
        for &v in &[-1.0, -0.8, 0.0, 0.3, 1.1, 2.0] {
            let r = s.curve_at(SplineMethod::Akima, 0, v);
            assert!((r[0] - f(v)).abs() < 1e-12, "value at {v}");
            assert!((r[1] - (2.0 - 1.5 * v)).abs() < 1e-12, "slope at {v}");
            assert!((r[2] + 1.5).abs() < 1e-11, "curvature at {v}");
        }
    }

    /// Akima's published property: no overshoot on a step: flat data stay
    /// flat (slope 0 at the points next to the jump).
    #[test]
    fn akima_stays_flat_beside_a_step() {
        let x = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let s = curve(&x, |v| if v < 3.0 { 0.0 } else { 1.0 }, false);
        for &v in &[0.5, 1.5, 3.5, 4.5, 5.5] {
            let r = s.curve_at(SplineMethod::Akima, 0, v);
            let want = if v < 3.0 { 0.0 } else { 1.0 };
            assert!((r[0] - want).abs() < 1e-14, "at {v}: {}", r[0]);
        }
    }

    /// Extrapolation: the parabola through the last three points by
    /// default, the line through the last two with LINEAR_EXTRAPOLATE.
    #[test]
    fn extrapolation_follows_the_end_points() {
        let x = [0.0, 1.0, 2.0, 4.0];
        let y = [0.0, 1.0, 3.0, 2.0];
        let quad = Spline::new(1, x.to_vec(), None, vec![y.to_vec()], false).unwrap();
        // parabola through (1,1), (2,3), (4,2): p(x) = 1 + 2(x−1) − (5/6)(x−1)(x−2)
        let p = |v: f64| 1.0 + 2.0 * (v - 1.0) - 5.0 / 6.0 * (v - 1.0) * (v - 2.0);
        let r = quad.curve_at(SplineMethod::Cubic, 0, 5.0);
        assert!((r[0] - p(5.0)).abs() < 1e-13);
        assert!((r[1] - (2.0 - 5.0 / 6.0 * 7.0)).abs() < 1e-13);
        assert!((r[2] + 5.0 / 3.0).abs() < 1e-13);
        let lin = Spline::new(1, x.to_vec(), None, vec![y.to_vec()], true).unwrap();
        let r = lin.curve_at(SplineMethod::Akima, 0, -2.0);
        assert_eq!(r, [-2.0, 1.0, 0.0, 0.0]);
    }

    /// A family is linear in z between curves and beyond them.
    #[test]
    fn surface_is_linear_in_z() {
        let x = vec![0.0, 1.0, 2.0, 3.0];
        let s = Spline::new(
            1,
            x.clone(),
            Some(vec![0.0, 2.0]),
            vec![vec![0.0, 1.0, 2.0, 3.0], vec![0.0, 3.0, 6.0, 9.0]],
            false,
        )
        .unwrap();
        // y = x (1 + z)
        for &(xv, zv) in &[(0.5, 0.5), (2.5, 1.5), (1.0, 3.0)] {
            let p = s.surface_at(SplineMethod::Cubic, xv, zv);
            assert!((p.x[0] - xv * (1.0 + zv)).abs() < 1e-12);
            assert!((p.x[1] - (1.0 + zv)).abs() < 1e-12);
            assert!((p.z[0] - xv).abs() < 1e-12);
            assert!((p.z[1] - 1.0).abs() < 1e-12);
        }
    }

    /// Uneven data against an independent implementation: SciPy 1.17
    /// `CubicSpline(x, y, bc_type="not-a-knot")` and
    /// `Akima1DInterpolator(x, y, method="akima")` (Akima 1970 with the
    /// same end extension), printed to 16 digits; agreement to 1e-12.
    #[test]
    fn matches_scipy_not_a_knot_and_akima() {
        let x = [0.0, 0.7, 1.1, 2.0, 2.4, 3.9, 5.0];
        let y = vec![1.0, -0.5, 0.3, 2.2, 1.9, -1.0, 0.4];
        let s = Spline::new(1, x.to_vec(), None, vec![y], false).unwrap();
        let reference: [(f64, [f64; 3], [f64; 2]); 5] = [
            (
                0.35,
                [
                    -3.918893854284271e-01,
                    -1.902156144104088e+00,
                    1.047982670087228e+01,
                ],
                [-2.842817164179102e-01, -2.633662046908315e+00],
            ),
            (
                1.5,
                [
                    1.387621153826474e+00,
                    2.545739180377384e+00,
                    -2.118727379245039e+00,
                ],
                [1.163096594784338e+00, 2.192283524079522e+00],
            ),
            (
                2.2,
                [
                    2.141228253185909e+00,
                    -8.250970146192844e-01,
                    -4.561412659295423e+00,
                ],
                [2.208677479464009e+00, -1.26437368994748e+00],
            ),
            (
                3.0,
                [
                    7.029891548418264e-01,
                    -2.268326554334739e+00,
                    -2.12291284997109e-01,
                ],
                [7.506040832476355e-01, -2.28495225504706e+00],
            ),
            (
                4.6,
                [
                    -8.130439566932589e-01,
                    1.863924052538879e+00,
                    5.377604543589133e+00,
                ],
                [-5.855115316145688e-01, 1.954119303188587e+00],
            ),
        ];
        for (t, cubic, akima) in reference {
            let c = s.curve_at(SplineMethod::Cubic, 0, t);
            let a = s.curve_at(SplineMethod::Akima, 0, t);
            for i in 0..3 {
                assert!(
                    (c[i] - cubic[i]).abs() < 1e-12,
                    "CUBSPL d{i} at {t}: {}",
                    c[i]
                );
            }
            for i in 0..2 {
                assert!(
                    (a[i] - akima[i]).abs() < 1e-12,
                    "AKISPL d{i} at {t}: {}",
                    a[i]
                );
            }
        }
    }

    #[test]
    fn bad_data_is_named() {
        let e = Spline::new(1, vec![0.0, 1.0, 2.0], None, vec![vec![0.0; 3]], false);
        assert_eq!(e.unwrap_err(), "X needs at least 4 values, found 3");
        let e = Spline::new(1, vec![0.0, 1.0, 1.0, 2.0], None, vec![vec![0.0; 4]], false);
        assert_eq!(
            e.unwrap_err(),
            "X values must increase strictly: x3 = 1 follows x2 = 1"
        );
        let e = Spline::new(1, vec![0.0, 1.0, 2.0, 3.0], None, vec![vec![0.0; 3]], false);
        assert_eq!(e.unwrap_err(), "Y has 3 values for 4 x values");
    }
}

/// A STRING statement: text that user subroutines read by id. Nothing in
/// mbsolve reads it; it is kept so that a converted model keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct StringData {
    pub id: Id,
    pub text: String,
}
