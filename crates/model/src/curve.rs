//! CURVE (Adams): a parametric B-spline curve α ↦ (x, y, z), α ∈ [−1, 1],
//! from the points of a MATRIX (one row per point, three columns), and PTCV,
//! the point-on-curve constraint that reads it.
//!
//! Adams Solver reference (CURVE statement): the parameter of a MATRIX curve
//! always runs from −1 to 1; ORDER is the B-spline order (degree + 1,
//! default 4, cubic); with CURVE_POINTS the curve passes through the
//! matrix's points, otherwise they are the B-spline's control points; a
//! CLOSED curve has its first and last points equal and is smooth across the
//! closure. Adams does not state its knot vector or how it parameterizes the
//! points of an interpolated curve. mbsolve chooses (inferred, standard
//! B-spline practice, Piegl & Tiller, The NURBS Book, §2.2, §9.2):
//!
//! - open control-point curves: the clamped uniform knot vector on [−1, 1];
//! - open CURVE_POINTS curves: chord-length parameters ū_k on [−1, 1] and
//!   knots by averaging (P&T eq. 9.8), so an ORDER = 2 curve is the polyline
//!   through the points;
//! - closed curves: the periodic uniform B-spline over the m distinct points
//!   (knots at the integers, s = (α + 1)·m/2 + (p + 1)/2 so α = −1 is at
//!   the first point); with CURVE_POINTS the control points solve the
//!   circulant collocation at those parameters.
//!
//! Beyond the ends of an open curve the end spans' polynomials continue the
//! curve (a PTCV contact point may leave it; Adams stops there).

use crate::{ElementRef, Id, Model, ModelError};
use nalgebra::{DMatrix, Matrix3, SymmetricEigen, Vector3};

/// The highest B-spline order accepted (degree 7): the basis works in
/// fixed-size arrays, and Adams View warns that high orders oscillate.
pub const MAX_CURVE_ORDER: usize = 8;

/// CURVE/id, MATRIX = id[, CURVE_POINTS][, ORDER = k][, OPEN | CLOSED].
#[derive(Clone, Debug, PartialEq)]
pub struct Curve {
    pub id: Id,
    pub matrix: Id,
    /// The matrix holds points on the curve (interpolated), not control
    /// points.
    pub curve_points: bool,
    pub order: usize,
    pub closed: bool,
}

/// PTCV/id, I = marker, JFLOAT = floating marker, CURVE = id, RM = marker:
/// the origin of I lies on the CURVE fixed in RM's frame (two equations;
/// the contact parameter α is the point of the curve nearest to I, so it is
/// no state: Adams' default initial contact, the point of the curve closest
/// to the initial I marker position).
#[derive(Clone, Debug, PartialEq)]
pub struct Ptcv {
    pub id: Id,
    pub i: Id,
    /// The floating marker Adams places at the contact point, on RM's part
    /// (kept to write the deck back; no element reads it here).
    pub jfloat: Id,
    /// The part JFLOAT is declared on.
    pub jfloat_part: Id,
    pub rm: Id,
    pub curve: Id,
}

/// CVCV/id, IFLOAT = id, ICURVE = id, IRM = id, JFLOAT = id, JCURVE = id,
/// JRM = id (Adams Solver reference, CVCV statement): a planar curve on the
/// IRM marker's part stays in contact with, and tangent to, a planar curve
/// on the JRM marker's part. Each curve lies in the x-y plane of its RM
/// marker (its z coordinates are zero) and the two curves lie in the same
/// plane; the parts may move in space. The contact parameters α (ICURVE)
/// and β (JCURVE) are no state: mbsolve solves them from the parts' poses
/// (see mbsolve_mech's `cvcv`), starting at the pair of closest points as
/// Adams does without IDISP/JDISP.
#[derive(Clone, Debug, PartialEq)]
pub struct Cvcv {
    pub id: Id,
    pub icurve: Id,
    pub irm: Id,
    /// The floating markers Adams places at the contact point, on the
    /// IRM's and the JRM's parts (kept to write the deck back; no element
    /// reads them here), and the parts they are declared on.
    pub ifloat: Id,
    pub ifloat_part: Id,
    pub jcurve: Id,
    pub jrm: Id,
    pub jfloat: Id,
    pub jfloat_part: Id,
}

/// A B-spline curve ready to evaluate.
#[derive(Clone, Debug)]
pub struct CurveShape {
    /// Degree p = order − 1.
    p: usize,
    ctrl: Vec<Vector3<f64>>,
    /// Open: the full knot vector (n + order knots). Closed: empty (the
    /// knots are the integers).
    knots: Vec<f64>,
    closed: bool,
}

/// Value and the first four derivatives with respect to α (the fourth
/// gives the second time derivative of C″(α(t)) in CURVE(α, 2, …)).
pub type CurveJet = [Vector3<f64>; 5];

impl CurveShape {
    /// The curve of CURVE/`c` from its MATRIX; the error says what is wrong
    /// with the data.
    pub fn new(c: &Curve, model: &Model) -> Result<CurveShape, String> {
        let Some(m) = model.matrices.iter().find(|m| m.id == c.matrix) else {
            return Err(format!("MATRIX/{} does not exist", c.matrix));
        };
        if m.columns != 3 {
            return Err(format!(
                "MATRIX/{} has {} columns; a CURVE's matrix has one row per point and three columns (x, y, z)",
                m.id, m.columns
            ));
        }
        let pts: Vec<Vector3<f64>> = (0..m.rows)
            .map(|r| Vector3::new(m.get(r, 0), m.get(r, 1), m.get(r, 2)))
            .collect();
        CurveShape::from_points(&pts, c.order, c.curve_points, c.closed)
    }

    /// The curve of order `order` from points (on the curve when
    /// `curve_points`, else control points).
    pub fn from_points(
        pts: &[Vector3<f64>],
        order: usize,
        curve_points: bool,
        closed: bool,
    ) -> Result<CurveShape, String> {
        if !(2..=MAX_CURVE_ORDER).contains(&order) {
            return Err(format!(
                "ORDER = {order}: a CURVE's order is 2 (polyline) to {MAX_CURVE_ORDER}"
            ));
        }
        // Adams: "You must supply at least four curve points."
        if pts.len() < 4 {
            return Err(format!(
                "the matrix has {} points; a CURVE needs at least four",
                pts.len()
            ));
        }
        if pts.iter().any(|v| !v.iter().all(|x| x.is_finite())) {
            return Err("the matrix has a non-finite coordinate".into());
        }
        let p = order - 1;
        let scale = pts.iter().map(|v| v.norm()).fold(1.0, f64::max);
        if closed {
            let (first, last) = (pts[0], pts[pts.len() - 1]);
            if (first - last).norm() > 1e-9 * scale {
                return Err("a CLOSED curve's first and last points must be the same".into());
            }
            let m = pts.len() - 1;
            if m < order {
                return Err(format!(
                    "a CLOSED curve of ORDER = {order} needs at least {order} distinct points, found {m}"
                ));
            }
            let distinct = &pts[..m];
            let ctrl = if curve_points {
                // Circulant collocation: point k at s_k = k + (p + 1)/2.
                let mut a = DMatrix::zeros(m, m);
                for k in 0..m {
                    let s = k as f64 + 0.5 * (p + 1) as f64;
                    let span = s.floor() as isize;
                    let d = ders_basis(span, s, p, 0, |i| i as f64);
                    for (r, n) in d[0].iter().take(p + 1).enumerate() {
                        let j = (span - p as isize + r as isize).rem_euclid(m as isize) as usize;
                        a[(k, j)] += n;
                    }
                }
                solve_points(a, distinct)?
            } else {
                distinct.to_vec()
            };
            return Ok(CurveShape {
                p,
                ctrl,
                knots: Vec::new(),
                closed: true,
            });
        }
        let n = pts.len();
        if n < order {
            return Err(format!(
                "an ORDER = {order} curve needs at least {order} points, found {n}"
            ));
        }
        let mut knots = vec![-1.0; order];
        let ctrl = if curve_points {
            // Chord-length parameters on [−1, 1].
            let mut u = vec![0.0; n];
            for k in 1..n {
                let d = (pts[k] - pts[k - 1]).norm();
                if d <= 1e-12 * scale {
                    return Err(format!(
                        "curve points {} and {} coincide; CURVE_POINTS must be distinct",
                        k,
                        k + 1
                    ));
                }
                u[k] = u[k - 1] + d;
            }
            let total = u[n - 1];
            for v in u.iter_mut() {
                *v = 2.0 * *v / total - 1.0;
            }
            // Knots by averaging p consecutive parameters.
            for j in 1..n - p {
                knots.push(u[j..j + p].iter().sum::<f64>() / p as f64);
            }
            knots.extend(std::iter::repeat_n(1.0, order));
            let mut a = DMatrix::zeros(n, n);
            for (k, &uk) in u.iter().enumerate() {
                let span = open_span(&knots, n, p, uk);
                let d = ders_basis(span as isize, uk, p, 0, |i| knots[i as usize]);
                for r in 0..=p {
                    a[(k, span - p + r)] = d[0][r];
                }
            }
            solve_points(a, pts)?
        } else {
            let inner = n - order;
            for j in 1..=inner {
                knots.push(-1.0 + 2.0 * j as f64 / (inner + 1) as f64);
            }
            knots.extend(std::iter::repeat_n(1.0, order));
            pts.to_vec()
        };
        Ok(CurveShape {
            p,
            ctrl,
            knots,
            closed: false,
        })
    }

    pub fn closed(&self) -> bool {
        self.closed
    }

    /// Number of polynomial spans over α ∈ [−1, 1].
    pub fn spans(&self) -> usize {
        if self.closed {
            self.ctrl.len()
        } else {
            self.ctrl.len() - self.p
        }
    }

    /// C(α) and its first four derivatives (those beyond the degree are
    /// zero).
    pub fn eval(&self, alpha: f64) -> CurveJet {
        let p = self.p;
        let nd = p.min(4);
        let mut out = [Vector3::zeros(); 5];
        if self.closed {
            let m = self.ctrl.len();
            let scale = 0.5 * m as f64;
            let mut s = (alpha + 1.0) * scale + 0.5 * (p + 1) as f64;
            s = s.rem_euclid(m as f64);
            let span = (s.floor() as isize).clamp(0, m as isize - 1);
            let d = ders_basis(span, s, p, nd, |i| i as f64);
            let mut f = 1.0;
            for (o, dk) in out.iter_mut().zip(&d).take(nd + 1) {
                for (r, basis) in dk.iter().enumerate().take(p + 1) {
                    let j = (span - p as isize + r as isize).rem_euclid(m as isize) as usize;
                    *o += self.ctrl[j] * (basis * f);
                }
                f *= scale;
            }
        } else {
            let n = self.ctrl.len();
            let span = open_span(&self.knots, n, p, alpha);
            let d = ders_basis(span as isize, alpha, p, nd, |i| self.knots[i as usize]);
            for (o, dk) in out.iter_mut().zip(&d).take(nd + 1) {
                for (r, basis) in dk.iter().enumerate().take(p + 1) {
                    *o += self.ctrl[span - p + r] * *basis;
                }
            }
        }
        out
    }

    /// The parameter of the curve point nearest to `x`: the nearest of
    /// eight samples per span over [−1, 1], polished by Newton's method on
    /// g(α) = (C(α) − x)·C′(α) (which may leave [−1, 1] on an open curve:
    /// the end spans continue it).
    pub fn closest(&self, x: &Vector3<f64>) -> f64 {
        let samples = 8 * self.spans();
        let mut best = (f64::INFINITY, -1.0);
        for k in 0..=samples {
            let a = -1.0 + 2.0 * k as f64 / samples as f64;
            let d = (self.eval(a)[0] - x).norm_squared();
            if d < best.0 {
                best = (d, a);
            }
        }
        let step = 2.0 / samples as f64;
        let mut a = best.1;
        for _ in 0..50 {
            let [c, c1, c2, ..] = self.eval(a);
            let g = (c - x).dot(&c1);
            let dg = c1.norm_squared() + (c - x).dot(&c2);
            // Far from the curve g may turn the wrong way (dg ≤ 0): fall
            // back to a gradient step of at most one sample spacing.
            let da = if dg > 0.0 {
                -g / dg
            } else {
                -g.signum() * step
            };
            let da = da.clamp(-step, step);
            a += da;
            if da.abs() <= 1e-15 * (1.0 + a.abs()) {
                break;
            }
        }
        a
    }

    /// The unit vector most nearly perpendicular to every tangent of the
    /// curve (the normal of a planar curve; some perpendicular of a
    /// straight one), and the smallest |a × t̂| over the samples.
    pub fn normal_axis(&self) -> (Vector3<f64>, f64) {
        let samples = 16 * self.spans();
        let mut s = Matrix3::zeros();
        let mut tangents = Vec::with_capacity(samples + 1);
        for k in 0..=samples {
            let a = -1.0 + 2.0 * k as f64 / samples as f64;
            let t = self.eval(a)[1];
            let n = t.norm();
            if n > 0.0 {
                let t = t / n;
                s += t * t.transpose();
                tangents.push(t);
            }
        }
        let eig = SymmetricEigen::new(s);
        let k = eig.eigenvalues.imin();
        let axis: Vector3<f64> = eig.eigenvectors.column(k).into();
        let worst = tangents
            .iter()
            .map(|t| axis.cross(t).norm())
            .fold(1.0, f64::min);
        (axis, worst)
    }
}

/// The span index i (p ≤ i < n) with knots[i] ≤ u < knots[i + 1], clamped
/// to the first and last spans outside [−1, 1].
fn open_span(knots: &[f64], n: usize, p: usize, u: f64) -> usize {
    let mut i = p;
    while i + 1 < n && knots[i + 1] <= u {
        i += 1;
    }
    i
}

/// Control points from the collocation matrix `a` (A·P = D).
fn solve_points(a: DMatrix<f64>, pts: &[Vector3<f64>]) -> Result<Vec<Vector3<f64>>, String> {
    let n = pts.len();
    let mut rhs = DMatrix::zeros(n, 3);
    for (k, v) in pts.iter().enumerate() {
        for c in 0..3 {
            rhs[(k, c)] = v[c];
        }
    }
    let sol = a
        .lu()
        .solve(&rhs)
        .ok_or("the curve points give a singular interpolation system")?;
    Ok((0..n)
        .map(|k| Vector3::new(sol[(k, 0)], sol[(k, 1)], sol[(k, 2)]))
        .collect())
}

type Basis = [[f64; MAX_CURVE_ORDER]; 5];

/// The non-zero B-spline basis functions N_{span−p+r, p} (r = 0..=p) at u
/// and their derivatives up to order `nd` ≤ min(p, 4): Piegl & Tiller,
/// algorithm A2.3. `knot(i)` gives knot i (any integer index the span
/// touches, span − p + 1 … span + p).
fn ders_basis(span: isize, u: f64, p: usize, nd: usize, knot: impl Fn(isize) -> f64) -> Basis {
    let mut ndu = [[0.0; MAX_CURVE_ORDER]; MAX_CURVE_ORDER];
    let mut left = [0.0; MAX_CURVE_ORDER];
    let mut right = [0.0; MAX_CURVE_ORDER];
    ndu[0][0] = 1.0;
    for j in 1..=p {
        left[j] = u - knot(span + 1 - j as isize);
        right[j] = knot(span + j as isize) - u;
        let mut saved = 0.0;
        for r in 0..j {
            ndu[j][r] = right[r + 1] + left[j - r];
            let temp = ndu[r][j - 1] / ndu[j][r];
            ndu[r][j] = saved + right[r + 1] * temp;
            saved = left[j - r] * temp;
        }
        ndu[j][j] = saved;
    }
    let mut ders: Basis = [[0.0; MAX_CURVE_ORDER]; 5];
    for j in 0..=p {
        ders[0][j] = ndu[j][p];
    }
    let mut a = [[0.0; MAX_CURVE_ORDER]; 2];
    for r in 0..=p {
        let (mut s1, mut s2) = (0, 1);
        a[0][0] = 1.0;
        for k in 1..=nd {
            let mut d = 0.0;
            let rk = r as isize - k as isize;
            let pk = p - k;
            if r >= k {
                a[s2][0] = a[s1][0] / ndu[pk + 1][rk as usize];
                d = a[s2][0] * ndu[rk as usize][pk];
            }
            let j1 = if rk >= -1 { 1 } else { (-rk) as usize };
            let j2 = if r as isize - 1 <= pk as isize {
                k - 1
            } else {
                p - r
            };
            for j in j1..=j2 {
                let idx = (rk + j as isize) as usize;
                a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][idx];
                d += a[s2][j] * ndu[idx][pk];
            }
            if r <= pk {
                a[s2][k] = -a[s1][k - 1] / ndu[pk + 1][r];
                d += a[s2][k] * ndu[r][pk];
            }
            ders[k][r] = d;
            std::mem::swap(&mut s1, &mut s2);
        }
    }
    let mut f = p as f64;
    for (k, row) in ders.iter_mut().enumerate().take(nd + 1).skip(1) {
        for v in row.iter_mut().take(p + 1) {
            *v *= f;
        }
        f *= (p - k) as f64;
    }
    ders
}

pub(crate) fn validate_curve(model: &Model, c: &Curve) -> Result<(), ModelError> {
    let e = ElementRef::Curve(c.id);
    CurveShape::new(c, model)
        .map(|_| ())
        .map_err(|message| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        })
}

pub(crate) fn validate_ptcv(model: &Model, p: &Ptcv) -> Result<(), ModelError> {
    let e = ElementRef::Ptcv(p.id);
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    let Some(curve) = model.curves.iter().find(|c| c.id == p.curve) else {
        return Err(fail(format!("CURVE/{} does not exist", p.curve)));
    };
    let (Some(i), Some(rm)) = (model.marker(p.i), model.marker(p.rm)) else {
        return Err(fail(format!(
            "its I marker {} or RM marker {} does not exist",
            p.i, p.rm
        )));
    };
    if i.part == rm.part {
        return Err(fail(format!(
            "the I marker {} and the RM marker {} are on the same part (PART/{}); the point and the curve must be on different parts",
            p.i, p.rm, i.part
        )));
    }
    if p.jfloat_part != rm.part {
        return Err(fail(format!(
            "the JFLOAT marker {} is on PART/{}; it must be on the curve's part, PART/{} of the RM marker {}",
            p.jfloat, p.jfloat_part, rm.part, p.rm
        )));
    }
    let shape =
        CurveShape::new(curve, model).map_err(|m| fail(format!("CURVE/{}: {m}", p.curve)))?;
    // The two equations are written along a × t and a (a ⟂ the tangents);
    // they lose rank where the tangent turns along a.
    let (_, worst) = shape.normal_axis();
    if worst < 0.3 {
        return Err(fail(format!(
            "CURVE/{} turns through every direction in space (its tangent comes within 17° of any fixed axis); mbsolve's PTCV needs a curve whose tangents all stay away from one axis (any planar curve does)",
            p.curve
        )));
    }
    Ok(())
}

pub(crate) fn validate_cvcv(model: &Model, c: &Cvcv) -> Result<(), ModelError> {
    let e = ElementRef::Cvcv(c.id);
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    let mut parts = [0; 2];
    for (k, (side, curve, rm, float, float_part)) in [
        ("I", c.icurve, c.irm, c.ifloat, c.ifloat_part),
        ("J", c.jcurve, c.jrm, c.jfloat, c.jfloat_part),
    ]
    .into_iter()
    .enumerate()
    {
        let Some(cv) = model.curves.iter().find(|x| x.id == curve) else {
            return Err(fail(format!("{side}CURVE: CURVE/{curve} does not exist")));
        };
        let Some(m) = model.marker(rm) else {
            return Err(fail(format!("{side}RM marker {rm} does not exist")));
        };
        if float_part != m.part {
            return Err(fail(format!(
                "the {side}FLOAT marker {float} is on PART/{float_part}; it must be on PART/{} of the {side}RM marker {rm}, the part that carries {side}CURVE",
                m.part
            )));
        }
        let shape = CurveShape::new(cv, model).map_err(|m| fail(format!("CURVE/{curve}: {m}")))?;
        // Adams: "The z component of the curve must be zero. As a result,
        // the curve lies in the x-y plane of the [RM] marker."
        let samples = 16 * shape.spans();
        let scale = (0..=samples)
            .map(|k| shape.eval(-1.0 + 2.0 * k as f64 / samples as f64)[0].norm())
            .fold(1.0, f64::max);
        for k in 0..=samples {
            let a = -1.0 + 2.0 * k as f64 / samples as f64;
            let [x, t, ..] = shape.eval(a);
            if x.z.abs() > 1e-9 * scale {
                return Err(fail(format!(
                    "{side}CURVE/{curve} leaves the x-y plane of its RM marker {rm} (z = {} at α = {}); a CVCV curve's z coordinates must be zero",
                    crate::readable(x.z),
                    crate::readable(a)
                )));
            }
            if t.xy().norm() == 0.0 {
                return Err(fail(format!(
                    "{side}CURVE/{curve} has a zero tangent at α = {}; the contact normal is undefined there",
                    crate::readable(a)
                )));
            }
        }
        parts[k] = m.part;
    }
    if parts[0] == parts[1] {
        return Err(fail(format!(
            "the IRM marker {} and the JRM marker {} are on the same part (PART/{}); the two curves must be on different parts",
            c.irm, c.jrm, parts[0]
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circle(m: usize, r: f64) -> Vec<Vector3<f64>> {
        (0..=m)
            .map(|k| {
                let t = std::f64::consts::TAU * k as f64 / m as f64;
                Vector3::new(r * t.cos(), r * t.sin(), 0.0)
            })
            .collect()
    }

    /// Derivatives against central differences of the curve itself.
    fn check_derivatives(c: &CurveShape) {
        let h = 1e-5;
        for k in 0..=40 {
            let a = -0.97 + 1.94 * k as f64 / 40.0 + 1e-3;
            let j = c.eval(a);
            let (jp, jm) = (c.eval(a + h), c.eval(a - h));
            for d in 0..4 {
                let fd = (jp[d] - jm[d]) / (2.0 * h);
                let scale = 1.0 + j[d + 1].norm();
                assert!(
                    (fd - j[d + 1]).norm() < 1e-6 * scale,
                    "derivative {} at α = {a}: {fd} vs {}",
                    d + 1,
                    j[d + 1]
                );
            }
        }
    }

    #[test]
    fn interpolated_curves_pass_through_their_points() {
        // Open, chord-length, cubic: every point at its parameter is hit.
        let pts: Vec<Vector3<f64>> = (0..6)
            .map(|k| {
                let x = k as f64 * 0.7;
                Vector3::new(x, x.sin(), 0.3 * x)
            })
            .collect();
        for order in 2..=5 {
            let c = CurveShape::from_points(&pts, order, true, false).unwrap();
            for p in &pts {
                let a = c.closest(p);
                assert!((c.eval(a)[0] - p).norm() < 1e-12, "order {order}: {p}");
            }
            assert!((c.eval(-1.0)[0] - pts[0]).norm() < 1e-12);
            assert!((c.eval(1.0)[0] - pts[5]).norm() < 1e-12);
            check_derivatives(&c);
        }
        // Closed through 12 points on a circle of radius 2: hits them, and
        // stays within the cubic's interpolation error of the circle
        // (h⁴-order; with 30° steps the radius deviates < 2e-3·R).
        let pts = circle(12, 2.0);
        let c = CurveShape::from_points(&pts, 4, true, true).unwrap();
        assert!((c.eval(-1.0)[0] - pts[0]).norm() < 1e-12);
        for (k, p) in pts.iter().enumerate().take(12) {
            let a = -1.0 + 2.0 * k as f64 / 12.0;
            assert!((c.eval(a)[0] - p).norm() < 1e-12, "point {k}");
        }
        let mut worst: f64 = 0.0;
        for k in 0..=200 {
            let a = -1.0 + 2.0 * k as f64 / 200.0;
            worst = worst.max((c.eval(a)[0].norm() - 2.0).abs());
        }
        assert!(worst < 4e-3, "radius deviation {worst}");
        // Periodic: value and derivatives agree across the closure.
        let (x, y) = (c.eval(1.0 - 1e-12), c.eval(-1.0 + 1e-12));
        for d in 0..3 {
            assert!((x[d] - y[d]).norm() < 1e-8 * (1.0 + x[d].norm()), "C^{d}");
        }
        check_derivatives(&c);
        // The normal of the planar circle is ±z.
        let (axis, worst) = c.normal_axis();
        assert!((axis.z.abs() - 1.0).abs() < 1e-12 && worst > 0.999);
    }

    #[test]
    fn control_point_curves_are_clamped_bsplines() {
        // Control points on a line, equally spaced: the clamped uniform
        // cubic is the straight line with end points at the first and last
        // control points.
        let pts: Vec<Vector3<f64>> = (0..5)
            .map(|k| Vector3::new(k as f64, 2.0 * k as f64, 0.0))
            .collect();
        let c = CurveShape::from_points(&pts, 4, false, false).unwrap();
        assert!((c.eval(-1.0)[0] - pts[0]).norm() < 1e-14);
        assert!((c.eval(1.0)[0] - pts[4]).norm() < 1e-14);
        for k in 0..=20 {
            let v = c.eval(-1.0 + 0.1 * k as f64);
            assert!((v[0].y - 2.0 * v[0].x).abs() < 1e-13);
            assert!(v[1].cross(&Vector3::new(1.0, 2.0, 0.0)).norm() < 1e-12);
        }
        check_derivatives(&c);
        // A single-span cubic is the Bézier curve of its four control
        // points: C(α) = Σ B_k(s) P_k with s = (α + 1)/2.
        let pts = [
            Vector3::new(0.0, 0.0, 0.0),
            Vector3::new(1.0, 2.0, 0.0),
            Vector3::new(3.0, 2.0, 1.0),
            Vector3::new(4.0, 0.0, 0.5),
        ];
        let c = CurveShape::from_points(&pts, 4, false, false).unwrap();
        let s: f64 = 0.3;
        let bez = pts[0] * (1.0 - s).powi(3)
            + pts[1] * (3.0 * s * (1.0 - s).powi(2))
            + pts[2] * (3.0 * s * s * (1.0 - s))
            + pts[3] * s.powi(3);
        assert!((c.eval(2.0 * s - 1.0)[0] - bez).norm() < 1e-14);
        // The third derivative of a cubic Bézier is 6(P3 − 3P2 + 3P1 − P0),
        // times (ds/dα)³ = 1/8.
        let third = (pts[3] - pts[2] * 3.0 + pts[1] * 3.0 - pts[0]) * 6.0 / 8.0;
        assert!((c.eval(0.1)[3] - third).norm() < 1e-13);
    }

    #[test]
    fn bad_curve_data_is_refused_with_the_reason() {
        let pts = circle(12, 1.0);
        let mut open = pts.clone();
        open[12].x += 0.5;
        assert_eq!(
            CurveShape::from_points(&open, 4, true, true).unwrap_err(),
            "a CLOSED curve's first and last points must be the same"
        );
        assert_eq!(
            CurveShape::from_points(&pts[..3], 2, true, false).unwrap_err(),
            "the matrix has 3 points; a CURVE needs at least four"
        );
        assert_eq!(
            CurveShape::from_points(&pts, 9, true, false).unwrap_err(),
            "ORDER = 9: a CURVE's order is 2 (polyline) to 8"
        );
        let mut dup = pts.clone();
        dup[3] = dup[2];
        assert_eq!(
            CurveShape::from_points(&dup, 4, true, false).unwrap_err(),
            "curve points 3 and 4 coincide; CURVE_POINTS must be distinct"
        );
    }
}
