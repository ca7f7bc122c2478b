//! CVCV: a planar curve C_I on the IRM marker's part stays in contact with,
//! and tangent to, a planar curve C_J on the JRM marker's part (Adams
//! Solver reference, CVCV statement: each curve lies in the x-y plane of
//! its RM marker, the two in the same plane).
//!
//! Everything is written in JRM coordinates. With R = A_JRMᵀ A_IRM and
//! o = A_JRMᵀ(x_IRM − x_JRM) (twelve pose scalars s), the I curve's point
//! and tangent are P(α) = o + R C_I(α), T(α) = R C_I′(α), and with
//! d = P(α) − C_J(β), t = C_J′(β), z = (0, 0, 1):
//!
//!   E₁ = d·t = 0             (no gap along the common tangent)
//!   E₂ = (T × t)·z = 0       (the tangents are parallel in the plane)
//!
//! fix the contact parameters α*(s), β*(s), and the two constraint rows are
//!
//!   Φ₀ = d·(z × t)/|t|       (no gap along the in-plane normal)
//!   Φ₁ = d·z                 (the contact point of C_I in C_J's plane).
//!
//! Why α and β are no state (NOTE13 asked for them as coordinates): the
//! singular equations are the nearest-point ones, (C_I − C_J)·C_I′ = 0 and
//! (C_I − C_J)·C_J′ = 0, which vanish identically on both tangents when
//! d = 0. E₁, E₂ replace the second by the tangency itself; their Jacobian
//! ∂(E₁, E₂)/∂(α, β) at contact has determinant |C_I′||C_J′|²(κ_I ± κ_J)
//! (up to sign), regular unless the curves conform (equal curvature at the
//! contact, e.g. a disc in a bore of its own radius; refused at the input
//! configuration, NaN during a run). So α*, β* are smooth functions of the
//! poses and CVCV is two stateless rows, as PTCV: every formulation (I3,
//! SI2, SI1, the ODE partition, HHT, statics, kinematics) takes them as it
//! takes a joint's. On the constraint manifold ∂Φ₀/∂α = T·n/|t| = 0 (by
//! E₂) and ∂Φ₀/∂β = d·∂(n/|t|)/∂β = 0 (by d = 0), so the reaction Φ_qᵀλ
//! is the frictionless contact force along the common normal, as with
//! α, β as coordinates carrying zero-mass equations Φ_αᵀλ = 0.
//!
//! Exact derivatives: as in `ptcv`, α*, β* are taken on second-order jets
//! in s by two Newton steps with the constant matrix D = ∂(E₁, E₂)/∂(α, β)
//! at the converged point (error O(ε) → O(ε²) → O(ε³)), then chained
//! through s(q) (dot products of marker axes and origins) to the local
//! coordinates.
//!
//! The root: Newton from the last converged pair (shared by the two rows);
//! if that fails or moves more than 5 % of the parameter range, from
//! the closest pair of points over samples of both curves in the plane
//! (Adams' default initial contact without IDISP/JDISP).

use crate::constraints::{axis, origin, EqValue};
use crate::local::{dot, Grad, Hess, Order, Pose, Scalar};
use crate::ptcv::{chain, curve_jet, J};
use crate::system::{pose, MarkerFrame, Primitive, System};
use mbsolve_model::{CurveShape, Cvcv, ElementRef, Model, ModelError};
use nalgebra::{Matrix2, Matrix3, Vector2, Vector3};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Number of pose scalars: R row-major (9), then o (3).
const NS: usize = 12;
type S = J<NS>;

/// Samples per curve span in the closest-pair search.
const SAMPLES_PER_SPAN: usize = 2;
/// At most this many samples per curve (the pair search is quadratic).
const MAX_SAMPLES: usize = 400;
/// The farthest (in α or β, of the range 2) a root found from the last
/// one may be and still be taken: E₁ = E₂ = 0 has other roots (the far
/// sides of two circles), which a long Newton walk could reach; farther
/// moves go back to the closest-pair search.
const WARM_REACH: f64 = 0.1;

/// One CVCV row (`row` 0: in-plane normal gap, 1: out-of-plane gap).
#[derive(Clone, Debug)]
pub struct CvcvEq {
    pub bodies: [Option<usize>; 2],
    irm: MarkerFrame,
    jrm: MarkerFrame,
    contact: Arc<Contact>,
    row: usize,
}

/// The two curves and the last converged (α, β), shared by both rows.
#[derive(Debug)]
struct Contact {
    icurve: CurveShape,
    jcurve: CurveShape,
    /// f64 bits of the last α and β; NaN before the first solve.
    last: [AtomicU64; 2],
}

/// E = (E₁, E₂) and D = ∂E/∂(α, β) at (α, β) for the pose (R, o).
fn residual(
    c: &Contact,
    r: &Matrix3<f64>,
    o: &Vector3<f64>,
    a: f64,
    b: f64,
) -> (Vector2<f64>, Matrix2<f64>) {
    let [ci, ci1, ci2, ..] = c.icurve.eval(a);
    let [cj, t, t1, ..] = c.jcurve.eval(b);
    let d = o + r * ci - cj;
    let (tt, tt1) = (r * ci1, r * ci2);
    let cross = |u: &Vector3<f64>, v: &Vector3<f64>| u.x * v.y - u.y * v.x;
    let e = Vector2::new(d.dot(&t), cross(&tt, &t));
    let dm = Matrix2::new(
        tt.dot(&t),
        -t.norm_squared() + d.dot(&t1),
        cross(&tt1, &t),
        cross(&tt, &t1),
    );
    (e, dm)
}

impl Contact {
    fn samples(c: &CurveShape) -> usize {
        (SAMPLES_PER_SPAN * c.spans()).clamp(16, MAX_SAMPLES)
    }

    /// Newton on E from (a, b); None unless it converges. Steps are
    /// limited to one sample spacing of each curve.
    fn newton(
        &self,
        r: &Matrix3<f64>,
        o: &Vector3<f64>,
        mut a: f64,
        mut b: f64,
    ) -> Option<(f64, f64)> {
        let limit = Vector2::new(
            2.0 / Self::samples(&self.icurve) as f64,
            2.0 / Self::samples(&self.jcurve) as f64,
        );
        for _ in 0..60 {
            let (e, dm) = residual(self, r, o, a, b);
            let step = -dm.try_inverse()? * e;
            if !step.iter().all(|x| x.is_finite()) {
                return None;
            }
            let step = Vector2::new(
                step.x.clamp(-limit.x, limit.x),
                step.y.clamp(-limit.y, limit.y),
            );
            a += step.x;
            b += step.y;
            if step.x.abs() <= 1e-14 * (1.0 + a.abs()) && step.y.abs() <= 1e-14 * (1.0 + b.abs()) {
                return Some((a, b));
            }
        }
        None
    }

    /// The closest pair of sample points of the two curves in C_J's plane.
    fn closest_pair(&self, r: &Matrix3<f64>, o: &Vector3<f64>) -> (f64, f64) {
        let sample = |k: usize, n: usize| -1.0 + 2.0 * k as f64 / n as f64;
        let (ni, nj) = (Self::samples(&self.icurve), Self::samples(&self.jcurve));
        let pi: Vec<Vector2<f64>> = (0..=ni)
            .map(|k| (o + r * self.icurve.eval(sample(k, ni))[0]).xy())
            .collect();
        let pj: Vec<Vector2<f64>> = (0..=nj)
            .map(|k| self.jcurve.eval(sample(k, nj))[0].xy())
            .collect();
        let mut best = (f64::INFINITY, 0, 0);
        for (ki, x) in pi.iter().enumerate() {
            for (kj, y) in pj.iter().enumerate() {
                let d = (x - y).norm_squared();
                if d < best.0 {
                    best = (d, ki, kj);
                }
            }
        }
        (sample(best.1, ni), sample(best.2, nj))
    }

    /// α*, β* for the pose (R, o), or None (no regular root near the
    /// closest points).
    fn solve(&self, r: &Matrix3<f64>, o: &Vector3<f64>) -> Option<(f64, f64)> {
        let last = self
            .last
            .each_ref()
            .map(|x| f64::from_bits(x.load(Ordering::Relaxed)));
        let warm = last[0]
            .is_finite()
            .then(|| self.newton(r, o, last[0], last[1]))
            .flatten()
            .filter(|(a, b)| (a - last[0]).abs() < WARM_REACH && (b - last[1]).abs() < WARM_REACH);
        let root = warm.or_else(|| {
            let (a, b) = self.closest_pair(r, o);
            self.newton(r, o, a, b)
        })?;
        self.last[0].store(root.0.to_bits(), Ordering::Relaxed);
        self.last[1].store(root.1.to_bits(), Ordering::Relaxed);
        Some(root)
    }
}

/// R and o as plain numbers from the twelve pose scalars.
fn pose_of(s: &[f64; NS]) -> (Matrix3<f64>, Vector3<f64>) {
    (
        Matrix3::from_row_slice(&s[..9]),
        Vector3::new(s[9], s[10], s[11]),
    )
}

/// x·y − … : the z component of u × v for jets.
fn cross_z(u: &[S; 3], v: &[S; 3]) -> S {
    u[0].mul(v[1]).sub(u[1].mul(v[0]))
}

impl CvcvEq {
    /// Φ of this row as a function of the pose scalars s, with gradient
    /// and Hessian in s; None where no contact point is found.
    fn in_jrm(&self, s: &[f64; NS]) -> Option<S> {
        let c = &*self.contact;
        let (r, o) = pose_of(s);
        let (a0, b0) = c.solve(&r, &o)?;
        let (_, dm) = residual(c, &r, &o, a0, b0);
        let dinv = dm.try_inverse()?;
        let rj: [S; 9] = std::array::from_fn(|k| S::variable(s[k], k));
        let oj: [S; 3] = std::array::from_fn(|k| S::variable(s[9 + k], 9 + k));
        // d = o + R C_I(α) − C_J(β), T = R C_I′(α), t = C_J′(β).
        let geometry = |al: S, be: S| {
            let (ci, ci1) = (curve_jet(&c.icurve, al, 0), curve_jet(&c.icurve, al, 1));
            let (cj, t) = (curve_jet(&c.jcurve, be, 0), curve_jet(&c.jcurve, be, 1));
            let rot = |v: &[S; 3], a: usize| {
                rj[3 * a]
                    .mul(v[0])
                    .add(rj[3 * a + 1].mul(v[1]))
                    .add(rj[3 * a + 2].mul(v[2]))
            };
            let d: [S; 3] = std::array::from_fn(|a| oj[a].add(rot(&ci, a)).sub(cj[a]));
            let tt: [S; 3] = std::array::from_fn(|a| rot(&ci1, a));
            (d, tt, t)
        };
        let (mut al, mut be) = (S::constant(a0), S::constant(b0));
        for _ in 0..2 {
            let (d, tt, t) = geometry(al, be);
            let e1 = d[0].mul(t[0]).add(d[1].mul(t[1])).add(d[2].mul(t[2]));
            let e2 = cross_z(&tt, &t);
            let da = e1.scale(dinv[(0, 0)]).add(e2.scale(dinv[(0, 1)]));
            let db = e1.scale(dinv[(1, 0)]).add(e2.scale(dinv[(1, 1)]));
            al = al.sub(da);
            be = be.sub(db);
        }
        let (d, _, t) = geometry(al, be);
        Some(match self.row {
            0 => {
                // d·(z × t)/|t| with z × t = (−t_y, t_x, 0).
                let len = t[0].mul(t[0]).add(t[1].mul(t[1])).sqrt();
                d[1].mul(t[0]).sub(d[0].mul(t[1])).mul(len.recip())
            }
            _ => d[2],
        })
    }

    /// Φ with ∇Φ (and ∇²Φ for `H = Hess`) on the local coordinates.
    pub fn evaluate<H: Order>(&self, poses: &[Option<Pose>; 2]) -> EqValue<H> {
        let xi = |k| axis(&self.irm, 0, poses, k);
        let xj = |k| axis(&self.jrm, 1, poses, k);
        let d = origin(&self.irm, 0, poses).add_scaled(&origin(&self.jrm, 1, poses), -1.0);
        let s: [Scalar<H>; NS] = std::array::from_fn(|k| {
            if k < 9 {
                dot::<H>(&xj(k / 3), &xi(k % 3))
            } else {
                dot::<H>(&xj(k - 9), &d)
            }
        });
        let values: [f64; NS] = std::array::from_fn(|k| s[k].val);
        let Some(f) = self.in_jrm(&values) else {
            return EqValue {
                s: Scalar {
                    val: f64::NAN,
                    grad: Grad::zeros(),
                    hess: H::with(Hess::zeros),
                },
                phi_t: 0.0,
                phi_tt: 0.0,
                phi_qt: Grad::zeros(),
            };
        };
        chain(&s, &f)
    }
}

/// The CVCV's two rows, checked at the input configuration `q0`: a regular
/// contact pair must exist there.
pub(crate) fn primitives(
    sys: &System,
    model: &Model,
    c: &Cvcv,
    q0: &[f64],
) -> Result<[Primitive; 2], ModelError> {
    let e = ElementRef::Cvcv(c.id);
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    let shape = |id| {
        let curve = model
            .curves
            .iter()
            .find(|x| x.id == id)
            .expect("validated curve id");
        CurveShape::new(curve, model).map_err(|m| fail(format!("CURVE/{id}: {m}")))
    };
    let contact = Arc::new(Contact {
        icurve: shape(c.icurve)?,
        jcurve: shape(c.jcurve)?,
        last: [f64::NAN, f64::NAN].map(|x| AtomicU64::new(x.to_bits())),
    });
    let (irm, jrm) = (*sys.marker(c.irm), *sys.marker(c.jrm));
    let eq = |row| CvcvEq {
        bodies: [irm.body, jrm.body],
        irm,
        jrm,
        contact: contact.clone(),
        row,
    };
    let poses = [irm.body.map(|b| pose(q0, b)), jrm.body.map(|b| pose(q0, b))];
    let probe = eq(0);
    if probe
        .evaluate::<crate::local::NoHess>(&poses)
        .s
        .val
        .is_nan()
    {
        return Err(fail(format!(
            "at the input configuration ICURVE/{} and JCURVE/{} have no regular contact point near their closest points (no pair with parallel tangents and no gap along them, or the curves conform there: equal curvature, the contact point undefined)",
            c.icurve, c.jcurve
        )));
    }
    Ok([
        Primitive::Cvcv(Box::new(probe)),
        Primitive::Cvcv(Box::new(eq(1))),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circle(r: f64, centre: Vector3<f64>, n: usize) -> CurveShape {
        let pts: Vec<Vector3<f64>> = (0..=n)
            .map(|k| {
                let t = std::f64::consts::TAU * k as f64 / n as f64;
                centre + Vector3::new(r * t.cos(), r * t.sin(), 0.0)
            })
            .collect();
        CurveShape::from_points(&pts, 4, true, true).unwrap()
    }

    fn equation(row: usize, icurve: CurveShape, jcurve: CurveShape) -> CvcvEq {
        let m = MarkerFrame {
            id: 1,
            body: None,
            s: Vector3::zeros(),
            axes: Matrix3::identity(),
        };
        CvcvEq {
            bodies: [None, None],
            irm: m,
            jrm: m,
            contact: Arc::new(Contact {
                icurve,
                jcurve,
                last: [f64::NAN, f64::NAN].map(|x| AtomicU64::new(x.to_bits())),
            }),
            row,
        }
    }

    /// A pose: R a rotation about a tilted axis, o an offset.
    fn pose_scalars(angle: f64, tilt: f64, o: Vector3<f64>) -> [f64; NS] {
        let r = nalgebra::Rotation3::from_axis_angle(
            &nalgebra::Unit::new_normalize(Vector3::new(tilt, -0.5 * tilt, 1.0)),
            angle,
        );
        let mut s = [0.0; NS];
        for a in 0..3 {
            for b in 0..3 {
                s[3 * a + b] = r[(a, b)];
            }
            s[9 + a] = o[a];
        }
        s
    }

    /// The s-space gradient and Hessian of both rows against central
    /// differences, off the constraint manifold (a gap, a tilt and an
    /// out-of-plane offset), for a disc outside a curved track.
    #[test]
    fn derivatives_in_pose_scalars_are_exact() {
        let disc = circle(0.4, Vector3::new(0.05, -0.02, 0.0), 24);
        // An ellipse-like closed track: curvature varies along it.
        let pts: Vec<Vector3<f64>> = (0..=20)
            .map(|k| {
                let t = std::f64::consts::TAU * k as f64 / 20.0;
                Vector3::new(1.5 * t.cos(), 1.0 * t.sin(), 0.0)
            })
            .collect();
        let track = CurveShape::from_points(&pts, 4, true, true).unwrap();
        for row in 0..2 {
            let eq = equation(row, disc.clone(), track.clone());
            let s = pose_scalars(0.3, 0.05, Vector3::new(1.2, 1.05, 0.02));
            let f = eq.in_jrm(&s).expect("contact pair");
            let h = 1e-5;
            for k in 0..NS {
                let (mut sp, mut sm) = (s, s);
                sp[k] += h;
                sm[k] -= h;
                let (fp, fm) = (eq.in_jrm(&sp).unwrap(), eq.in_jrm(&sm).unwrap());
                let g = (fp.v - fm.v) / (2.0 * h);
                assert!(
                    (g - f.g[k]).abs() < 1e-7 * (1.0 + g.abs()),
                    "row {row} grad {k}: {g} vs {}",
                    f.g[k]
                );
                let hk = (fp.g - fm.g) / (2.0 * h);
                for l in 0..NS {
                    assert!(
                        (hk[l] - f.h[(l, k)]).abs() < 1e-5 * (1.0 + hk[l].abs()),
                        "row {row} hess ({l},{k}): {} vs {}",
                        hk[l],
                        f.h[(l, k)]
                    );
                }
            }
        }
    }

    /// Two circles in one plane: Φ₀ is the centre distance minus the sum
    /// of the radii (outside) or the difference (inside), to the
    /// interpolation error of the 48-point circles (≈ 3e-7 of the radius).
    #[test]
    fn gap_of_two_circles_is_the_centre_distance_minus_the_radii() {
        for (ri, rj, centre, outside) in [
            (0.5, 1.0, Vector3::new(1.6, 0.3, 0.0), true),
            (0.5, 1.5, Vector3::new(0.7, -0.6, 0.0), false),
        ] {
            let disc = circle(ri, Vector3::zeros(), 48);
            let track = circle(rj, Vector3::zeros(), 48);
            let eq = equation(0, disc, track);
            let s = pose_scalars(0.7, 0.0, centre);
            let dist = centre.norm();
            let gap = if outside {
                dist - ri - rj
            } else {
                rj - ri - dist
            };
            let f = eq.in_jrm(&s).unwrap();
            assert!((f.v.abs() - gap.abs()).abs() < 2e-6, "gap {} vs {gap}", f.v);
        }
    }
}
