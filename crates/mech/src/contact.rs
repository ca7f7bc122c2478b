//! CONTACT elements: parry3d-f64 finds the contact points, normals and
//! penetration depths between the GRAPHICS solids of two parts; the normal
//! law (IMPACT or POISSON) and the regularized Coulomb friction of Adams'
//! CONTACT statement turn them into forces.
//!
//! For each contact point parry gives the witness points c_I on the I solid
//! and c_J on the J solid, the outward normal n of the I solid (from I
//! towards J) and δ = −distance, the penetration. The force F = f n + F_t
//! acts on the J part at c_J and −F on the I part at c_I (each part at its
//! own surface point, so a part's translation carries its point along; the
//! couple of the two points' offset δ n is zero for the normal force and
//! O(δ) for friction). With W = ∂(v_J(c_J) − v_I(c_I))/∂u (3×14), the
//! generalized force is Q = Wᵀ F and δ̇ = −nᵀW u.
//!
//! Jacobian (n and the material points frozen — exact for translations of
//! a ball or a box corner on a face, first-order otherwise):
//! ∂Q/∂q = −∂f/∂δ · Wᵀ(n + t) nᵀW and
//! ∂Q/∂u = −∂f/∂δ̇ · Wᵀ(n + t) nᵀW plus f Wᵀ ∂t/∂v W,
//! where F_t = f t(v_t), t = −μ(|v_t|) v_t/|v_t|. The geometric terms (how n, c and the moment arms turn with the bodies)
//! are left out.

use crate::local::{Grad, Hess, Jac3, Pose, NL, V3};
use crate::rotation::rot;
use crate::system::{gather, global_index, pose, scatter_hess, Sink, System};
use mbsolve_model::{ContactFriction, ElementRef, Geometry, Model, ModelError, NormalForce, Shape};
use nalgebra::{Matrix3, SMatrix, Vector3};
use parry3d_f64::bounding_volume::{Aabb, BoundingVolume};
use parry3d_f64::math::{Matrix as PMat, Pose as PPose, Rotation as PRot, Vector as PVec};
use parry3d_f64::query::{
    ContactManifold, ContactManifoldsWorkspace, DefaultQueryDispatcher, PersistentQueryDispatcher,
};
use parry3d_f64::shape::{Ball, ConvexPolyhedron, Cuboid, Cylinder, SharedShape, TriMesh};
use std::sync::{Mutex, MutexGuard};

/// Sides of the polygon that tessellates a FRUSTUM and rings of an
/// ELLIPSOID with unequal axes (Adams tessellates for RAPID as well).
const SIDES: usize = 48;

/// A CONTACT's Jacobian blocks are in the sparsity pattern while its
/// solids' bounding boxes, each loosened by this fraction of its largest
/// extent, overlap.
const PATTERN_MARGIN: f64 = 0.25;

/// A solid fixed in a body (or ground): its parry shape and its pose in the
/// body frame (ground frame for ground).
#[derive(Clone)]
pub struct PlacedShape {
    pub geometry: u32,
    shape: SharedShape,
    s: Vector3<f64>,
    axes: Matrix3<f64>,
}

impl std::fmt::Debug for PlacedShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "GRAPHICS/{}", self.geometry)
    }
}

/// One contact point between the two parts of a CONTACT, in ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactPoint {
    /// The witness point on the I solid (where −F acts on the I part).
    pub on_i: Vector3<f64>,
    /// The witness point on the J solid (where F acts on the J part).
    pub on_j: Vector3<f64>,
    /// Unit normal from the I solid towards the J solid.
    pub normal: Vector3<f64>,
    /// Penetration δ > 0.
    pub depth: f64,
    /// The (I solid, J solid) indices in IGEOM/JGEOM that touch here.
    pub(crate) pair: (usize, usize),
    /// Which solid the normal is fixed in (for the Jacobian's rotation terms).
    pub(crate) owner: NormalOwner,
}

/// How the contact normal turns with the bodies, from parry's features: a
/// normal is the outward normal of a face, so it turns with the face's
/// body; between two balls it lies along the line of centres. Anything
/// else (edge on edge, a ball's "face" against a vertex) keeps the normal
/// frozen in the Jacobian — a first-order approximation, exact for the
/// force but not for its derivative.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NormalOwner {
    /// A face of the I solid (not a ball).
    I,
    /// A face of the J solid (not a ball).
    J,
    /// Two balls: along the centres.
    Centres,
    /// Neither: frozen.
    Frozen,
}

/// A CONTACT resolved to its two bodies (slot 0 = I part, 1 = J part).
#[derive(Debug)]
pub struct ContactElement {
    pub id: u32,
    pub bodies: [Option<usize>; 2],
    pub igeom: Vec<PlacedShape>,
    pub jgeom: Vec<PlacedShape>,
    pub normal: NormalForce,
    pub friction: Option<ContactFriction>,
    /// Buffers the narrow phase reuses, so that an evaluation inside the
    /// step loop allocates nothing once they are sized (issue 17; the
    /// no-alloc test measures it). Behind a mutex because the System is
    /// shared read-only; contacts are evaluated one at a time, so the lock
    /// is never contended.
    scratch: Mutex<Scratch>,
}

impl Clone for ContactElement {
    /// A clone starts with empty buffers (they hold no state between
    /// evaluations, see [`Scratch`]).
    fn clone(&self) -> Self {
        ContactElement {
            id: self.id,
            bodies: self.bodies,
            igeom: self.igeom.clone(),
            jgeom: self.jgeom.clone(),
            normal: self.normal,
            friction: self.friction,
            scratch: Mutex::new(Scratch::default()),
        }
    }
}

/// The narrow phase's buffers. They carry capacity, not state: every
/// manifold's points are cleared before parry fills it again, so parry's
/// temporal-coherence shortcut (`try_update_contacts`, which reuses the
/// previous contact features when the pose moved little) never fires and
/// an evaluation is a pure function of q, as the Newton iteration and the
/// FD Jacobian checks need.
#[derive(Default)]
struct Scratch {
    /// The contact points of the last evaluation.
    points: Vec<ContactPoint>,
    /// World poses and bounding boxes of the J solids.
    jposes: Vec<(PPose, Aabb)>,
    /// Per (I solid, J solid) pair, row-major: parry's manifolds and its
    /// workspace (used by meshes).
    pairs: Vec<PairScratch>,
}

#[derive(Default)]
struct PairScratch {
    manifolds: Vec<ContactManifold<(), ()>>,
    workspace: Option<ContactManifoldsWorkspace>,
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scratch({} pairs)", self.pairs.len())
    }
}

fn to_p(v: &Vector3<f64>) -> PVec {
    PVec::new(v.x, v.y, v.z)
}
fn from_p(v: PVec) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

fn ppose(origin: &Vector3<f64>, r: &Matrix3<f64>) -> PPose {
    let m = PMat::from_cols(
        to_p(&r.column(0).into()),
        to_p(&r.column(1).into()),
        to_p(&r.column(2).into()),
    );
    PPose::from_parts(to_p(origin), PRot::from_mat3(&m).normalize())
}

/// The parry shape of a GRAPHICS solid and its pose in the placing
/// marker's frame; an error text for a degenerate one.
fn parry_shape(shape: &Shape) -> Result<(SharedShape, Vector3<f64>, Matrix3<f64>), String> {
    let id = Matrix3::identity();
    // parry's cylinder axis is its local y; turn it onto the marker's z.
    let y_to_z = Matrix3::new(1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 0.0, 1.0, 0.0);
    let positive = |what: &str, v: f64| {
        if v > 0.0 && v.is_finite() {
            Ok(())
        } else {
            Err(format!("{what} must be positive, found {v}"))
        }
    };
    Ok(match shape {
        Shape::Box { x, y, z } => {
            // Adams: the box spans the CORNER marker's octant; negative
            // sizes go the other way, so the centre is at half of each.
            for (k, v) in [("X", x), ("Y", y), ("Z", z)] {
                positive(k, v.abs())?;
            }
            let half = PVec::new(x.abs(), y.abs(), z.abs()) * 0.5;
            (
                SharedShape::new(Cuboid::new(half)),
                Vector3::new(x / 2.0, y / 2.0, z / 2.0),
                id,
            )
        }
        Shape::Cylinder { length, radius } => {
            positive("LENGTH", length.abs())?;
            positive("RADIUS", *radius)?;
            (
                SharedShape::new(Cylinder::new(length.abs() / 2.0, *radius)),
                Vector3::new(0.0, 0.0, length / 2.0),
                y_to_z,
            )
        }
        Shape::Frustum {
            length,
            bottom,
            top,
        } => {
            positive("LENGTH", length.abs())?;
            if *bottom < 0.0 || *top < 0.0 || bottom + top <= 0.0 {
                return Err("BOTTOM and TOP radii must be non-negative, not both zero".into());
            }
            let mut pts = Vec::with_capacity(2 * SIDES);
            for k in 0..SIDES {
                let a = 2.0 * std::f64::consts::PI * k as f64 / SIDES as f64;
                let (s, c) = a.sin_cos();
                pts.push(PVec::new(bottom * c, bottom * s, 0.0));
                pts.push(PVec::new(top * c, top * s, *length));
            }
            let hull = ConvexPolyhedron::from_convex_hull(&pts)
                .ok_or_else(|| "the FRUSTUM is degenerate".to_string())?;
            (SharedShape::new(hull), Vector3::zeros(), id)
        }
        Shape::Ellipsoid { x, y, z } => {
            for (k, v) in [("XSCALE", x), ("YSCALE", y), ("ZSCALE", z)] {
                positive(k, *v)?;
            }
            if x == y && y == z {
                (SharedShape::new(Ball::new(x / 2.0)), Vector3::zeros(), id)
            } else {
                let mut pts = Vec::new();
                let rings = SIDES / 2;
                for i in 0..=rings {
                    let th = std::f64::consts::PI * i as f64 / rings as f64;
                    for k in 0..SIDES {
                        let ph = 2.0 * std::f64::consts::PI * k as f64 / SIDES as f64;
                        pts.push(PVec::new(
                            x / 2.0 * th.sin() * ph.cos(),
                            y / 2.0 * th.sin() * ph.sin(),
                            z / 2.0 * th.cos(),
                        ));
                    }
                }
                let hull = ConvexPolyhedron::from_convex_hull(&pts)
                    .ok_or_else(|| "the ELLIPSOID is degenerate".to_string())?;
                (SharedShape::new(hull), Vector3::zeros(), id)
            }
        }
        Shape::Torus { major, minor } => {
            positive("MAJOR_RADIUS", *major)?;
            positive("MINOR_RADIUS", *minor)?;
            if minor >= major {
                return Err("MINOR_RADIUS must be less than MAJOR_RADIUS".into());
            }
            // SIDES around the axis × SIDES/2 around the tube, as quads
            let (nu, nv) = (SIDES, SIDES / 2);
            let mut v = Vec::with_capacity(nu * nv);
            for i in 0..nu {
                let a = 2.0 * std::f64::consts::PI * i as f64 / nu as f64;
                for j in 0..nv {
                    let b = 2.0 * std::f64::consts::PI * j as f64 / nv as f64;
                    let rr = major + minor * b.cos();
                    v.push(PVec::new(rr * a.cos(), rr * a.sin(), minor * b.sin()));
                }
            }
            let idx = |i: usize, j: usize| ((i % nu) * nv + j % nv) as u32;
            let mut t = Vec::with_capacity(2 * nu * nv);
            for i in 0..nu {
                for j in 0..nv {
                    let (a, b, c, d) = (idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1));
                    t.push([a, b, c]);
                    t.push([a, c, d]);
                }
            }
            let mesh = TriMesh::new(v, t).map_err(|e| format!("{e}"))?;
            (SharedShape::new(mesh), Vector3::zeros(), id)
        }
        Shape::Mesh {
            vertices,
            triangles,
        } => {
            let v = vertices
                .iter()
                .map(|p| PVec::new(p[0], p[1], p[2]))
                .collect();
            let mesh = TriMesh::new(v, triangles.clone()).map_err(|e| format!("{e}"))?;
            (SharedShape::new(mesh), Vector3::zeros(), id)
        }
    })
}

pub(crate) fn build(sys: &System, model: &Model) -> Result<Vec<ContactElement>, ModelError> {
    let mut out = Vec::with_capacity(model.contacts.len());
    for c in &model.contacts {
        let e = ElementRef::Contact(c.id);
        let err = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        let side =
            |ids: &[u32], key: &str| -> Result<(Vec<PlacedShape>, Option<usize>), ModelError> {
                let mut shapes = Vec::with_capacity(ids.len());
                let mut body: Option<Option<usize>> = None;
                for &g in ids {
                    let geom: &Geometry = model
                        .geometries
                        .iter()
                        .find(|x| x.id == g)
                        .ok_or_else(|| err(format!("{key} = {g}: no GRAPHICS/{g} solid")))?;
                    let m = *sys.marker(geom.marker);
                    match body {
                        None => body = Some(m.body),
                        Some(b) if b != m.body => {
                            return Err(err(format!(
                            "{key}: the solids must all be on one part (GRAPHICS/{g} is on another)"
                        )))
                        }
                        _ => {}
                    }
                    let (shape, s, axes) = parry_shape(&geom.shape).map_err(|msg| {
                        err(format!(
                            "{key} = {g}: GRAPHICS/{g} {}: {msg}",
                            geom.shape.name()
                        ))
                    })?;
                    shapes.push(PlacedShape {
                        geometry: g,
                        shape,
                        s: m.s + m.axes * s,
                        axes: m.axes * axes,
                    });
                }
                Ok((shapes, body.flatten()))
            };
        let (igeom, bi) = side(&c.igeom, "IGEOM")?;
        let (jgeom, bj) = side(&c.jgeom, "JGEOM")?;
        if bi == bj {
            return Err(err(
                "IGEOM and JGEOM are on the same part: a contact needs two parts".into(),
            ));
        }
        out.push(ContactElement {
            id: c.id,
            bodies: [bi, bj],
            igeom,
            jgeom,
            normal: c.normal,
            friction: c.friction,
            scratch: Mutex::new(Scratch::default()),
        });
    }
    Ok(out)
}

/// Generalized force and its Jacobians on the element's 14 local q and u.
struct LocalContact {
    q: Grad,
    jq: Hess,
    ju: Hess,
}

/// One contact point's force F on the J part (ground axes), W, and with
/// the Jacobian: ∂F/∂q, ∂F/∂u (3×14) and `lever` = ∂(WᵀF)/∂q at fixed F.
struct PointForce {
    f: Vector3<f64>,
    w: Jac3,
    dq: Jac3,
    du: Jac3,
    lever: Hess,
}

/// How a contact point's witness points c_I, c_J and normal n move with
/// the local q, for the Jacobian. The models (exact for the cases named,
/// first-order otherwise):
/// - a ball's witness point is its centre ± radius·n (the centre is a
///   material point, the point itself slides over the sphere);
/// - a witness point on the face the normal belongs to is the other
///   point projected onto that face's plane: ∂c = P ∂c_other + n nᵀ ∂a
///   − h ∂n, a the material point at c, h = (c_other − c)·n;
/// - any other witness point (a vertex of a box or of a tessellation) is
///   a material point of its body;
/// - n turns with its face's body, lies along the centres of two balls,
///   or is frozen (edge on edge: [`NormalOwner::Frozen`]).
///
/// With s = Rᵀ(c − r) the body-frame coordinates of c, W(q) = ∂x(q; s)/∂q
/// for the material points x = r + R s, so ∂(W u)/∂q and ∂(WᵀF)/∂q are the
/// material second derivatives plus ∂/∂s · ∂s/∂q, ∂s/∂q = Rᵀ(∂c/∂q − ∂x/∂q).
struct PointGeometry {
    w: Jac3,
    /// The material points at c_I (slot 0) and c_J (slot 1).
    mat: [V3; 2],
    /// ∂c/∂q of the two witness points (the models above).
    c_q: [Jac3; 2],
    /// ∂n/∂q.
    nq: Jac3,
    /// Rotation of each slot's body (identity for ground).
    rot: [Matrix3<f64>; 2],
    /// ∂(R e_m)/∂q for m = x, y, z, per slot.
    axes_jac: [[Jac3; 3]; 2],
    moving: [bool; 2],
}

impl PointGeometry {
    fn new(c: &ContactElement, poses: &[Option<Pose>; 2], cp: &ContactPoint, jac: bool) -> Self {
        let at = [cp.on_i, cp.on_j];
        let mat: [V3; 2] = std::array::from_fn(|slot| match &poses[slot] {
            Some(b) => V3::point(slot, Some(b), rot(&b.p).transpose() * (at[slot] - b.r)),
            None => V3::constant(at[slot]),
        });
        let mut g = PointGeometry {
            w: mat[1].jac - mat[0].jac,
            mat,
            c_q: [Jac3::zeros(); 2],
            nq: Jac3::zeros(),
            rot: [Matrix3::identity(); 2],
            axes_jac: [[Jac3::zeros(); 3]; 2],
            moving: [poses[0].is_some(), poses[1].is_some()],
        };
        if !jac {
            return g;
        }
        let n = cp.normal;
        let proj = Matrix3::identity() - n * n.transpose();
        for (slot, pose) in poses.iter().enumerate() {
            if let Some(b) = pose {
                g.rot[slot] = rot(&b.p);
                for m in 0..3 {
                    g.axes_jac[slot][m] = V3::axis(slot, Some(b), Vector3::ith(m, 1.0)).jac;
                }
            }
        }
        let solids = [&c.igeom[cp.pair.0], &c.jgeom[cp.pair.1]];
        let centre = |slot: usize| V3::point(slot, poses[slot].as_ref(), solids[slot].s);
        let radius = |slot: usize| solids[slot].shape.as_ball().map(|b| b.radius);
        g.nq = match cp.owner {
            NormalOwner::I | NormalOwner::J => {
                let slot = usize::from(cp.owner == NormalOwner::J);
                match &poses[slot] {
                    Some(b) => V3::axis(slot, Some(b), g.rot[slot].transpose() * n).jac,
                    None => Jac3::zeros(),
                }
            }
            NormalOwner::Centres => {
                let (ci, cj) = (centre(0), centre(1));
                let d = (cj.val - ci.val).norm();
                proj * (cj.jac - ci.jac) / d
            }
            NormalOwner::Frozen => Jac3::zeros(),
        };
        // c_I = centre_I + ρ n (n is I's outward normal), c_J = centre_J − ρ n
        for (slot, sign) in [(0usize, 1.0), (1, -1.0)] {
            g.c_q[slot] = match radius(slot) {
                Some(rho) => centre(slot).jac + g.nq * (sign * rho),
                None => g.mat[slot].jac,
            };
        }
        let face = match cp.owner {
            NormalOwner::I => Some(0usize),
            NormalOwner::J => Some(1),
            _ => None,
        };
        if let Some(fs) = face {
            let other = 1 - fs;
            let h = (at[other] - at[fs]).dot(&n);
            g.c_q[fs] = proj * g.c_q[other] + n * (n.transpose() * g.mat[fs].jac) - g.nq * h;
        }
        g
    }

    /// ∂s/∂q = Rᵀ(∂c/∂q − ∂x/∂q) of slot `slot`'s witness point.
    fn s_q(&self, slot: usize) -> Jac3 {
        self.rot[slot].transpose() * (self.c_q[slot] - self.mat[slot].jac)
    }

    /// ∂(W u)/∂q at fixed u.
    fn velocity_q(&self, ul: &Grad) -> Jac3 {
        let mut out = Jac3::zeros();
        for (slot, sign) in [(0usize, -1.0), (1, 1.0)] {
            if !self.moving[slot] {
                continue;
            }
            for k in 0..3 {
                let mut h = Hess::zeros();
                self.mat[slot].add_hessian_contraction(&Vector3::ith(k, 1.0), 1.0, &mut h);
                let row = (h * ul).transpose() * sign;
                let mut r = out.row_mut(k);
                r += row;
            }
            let avel = Matrix3::from_columns(&[
                self.axes_jac[slot][0] * ul,
                self.axes_jac[slot][1] * ul,
                self.axes_jac[slot][2] * ul,
            ]);
            out += avel * self.s_q(slot) * sign;
        }
        out
    }

    /// ∂(WᵀF)/∂q at fixed F.
    fn lever(&self, force: &Vector3<f64>) -> Hess {
        let mut out = Hess::zeros();
        for (slot, sign) in [(0usize, -1.0), (1, 1.0)] {
            if !self.moving[slot] {
                continue;
            }
            self.mat[slot].add_hessian_contraction(force, sign, &mut out);
            let m = SMatrix::<f64, NL, 3>::from_columns(&[
                self.axes_jac[slot][0].tr_mul(force),
                self.axes_jac[slot][1].tr_mul(force),
                self.axes_jac[slot][2].tr_mul(force),
            ]);
            out += m * self.s_q(slot) * sign;
        }
        out
    }
}

impl ContactElement {
    fn poses(&self, q: &[f64]) -> [Option<Pose>; 2] {
        [
            self.bodies[0].map(|b| pose(q, b)),
            self.bodies[1].map(|b| pose(q, b)),
        ]
    }

    fn world(&self, slot: usize, poses: &[Option<Pose>; 2], g: &PlacedShape) -> PPose {
        match &poses[slot] {
            None => ppose(&g.s, &g.axes),
            Some(b) => {
                let a = rot(&b.p);
                ppose(&(b.r + a * g.s), &(a * g.axes))
            }
        }
    }

    /// Every contact point at q, each solid pair tested first on its
    /// bounding boxes (the broad phase), then by parry's manifolds.
    pub fn points(&self, q: &[f64], out: &mut Vec<ContactPoint>) {
        let mut scratch = self.scratch();
        self.find_points(&self.poses(q), &mut scratch);
        out.clear();
        out.extend_from_slice(&scratch.points);
    }

    fn scratch(&self) -> MutexGuard<'_, Scratch> {
        // A panic elsewhere while the lock was held leaves only buffers.
        self.scratch.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// [`ContactElement::points`] into `scratch.points`, on reused buffers.
    fn find_points(&self, poses: &[Option<Pose>; 2], scratch: &mut Scratch) {
        let Scratch {
            points,
            jposes,
            pairs,
        } = scratch;
        points.clear();
        let dispatcher = DefaultQueryDispatcher;
        jposes.clear();
        jposes.extend(self.jgeom.iter().map(|g| {
            let p = self.world(1, poses, g);
            (p, g.shape.compute_aabb(&p))
        }));
        let npairs = self.igeom.len() * self.jgeom.len();
        if pairs.len() != npairs {
            pairs.resize_with(npairs, PairScratch::default);
        }
        for (a, gi) in self.igeom.iter().enumerate() {
            let pi = self.world(0, poses, gi);
            let bi = gi.shape.compute_aabb(&pi);
            for (b, (gj, (pj, bj))) in self.jgeom.iter().zip(jposes.iter()).enumerate() {
                if !bi.intersects(bj) {
                    continue;
                }
                let pair = &mut pairs[a * self.jgeom.len() + b];
                // No temporal coherence (see `Scratch`): recompute afresh.
                for m in pair.manifolds.iter_mut() {
                    m.points.clear();
                    m.local_n1 = PVec::new(0.0, 0.0, 0.0);
                    m.local_n2 = PVec::new(0.0, 0.0, 0.0);
                }
                let pos12 = pi.inv_mul(pj);
                if dispatcher
                    .contact_manifolds(
                        &pos12,
                        &*gi.shape,
                        &*gj.shape,
                        0.0,
                        &mut pair.manifolds,
                        &mut pair.workspace,
                    )
                    .is_err()
                {
                    continue;
                }
                let (ball_i, ball_j) = (gi.shape.as_ball().is_some(), gj.shape.as_ball().is_some());
                for m in &pair.manifolds {
                    // subshape poses (meshes): points and normals are in the
                    // subshape frames, which are the shapes' own for
                    // triangle meshes and convex solids.
                    let n = from_p(pi.transform_vector(m.local_n1));
                    for c in &m.points {
                        let owner = if ball_i && ball_j {
                            NormalOwner::Centres
                        } else if !ball_i && c.fid1.is_face() {
                            NormalOwner::I
                        } else if !ball_j && c.fid2.is_face() {
                            NormalOwner::J
                        } else {
                            NormalOwner::Frozen
                        };
                        if c.dist >= 0.0 {
                            continue;
                        }
                        let p1 = from_p(pi.transform_point(c.local_p1));
                        let p2 = from_p(pi.transform_point(pos12.transform_point(c.local_p2)));
                        points.push(ContactPoint {
                            on_i: p1,
                            on_j: p2,
                            normal: n,
                            depth: -c.dist,
                            pair: (a, b),
                            owner,
                        });
                    }
                }
            }
        }
    }

    /// The friction law acting in this analysis: none for
    /// COULOMB_FRICTION = DYNAMICS_ONLY outside dynamics (`non_dynamic`).
    fn friction_in(&self, non_dynamic: bool) -> Option<&ContactFriction> {
        self.friction
            .as_ref()
            .filter(|f| !(non_dynamic && f.dynamics_only))
    }

    /// The force F of one contact point (on the J part, ground axes) and,
    /// with `jac`, its derivatives and the generalized force's geometric
    /// terms; None where the normal law gives no force.
    ///
    /// F = f(δ, δ̇)(n + t(v_t)), v = W u the relative velocity of the
    /// witness points (material points of their bodies at this q), δ̇ =
    /// −n·v, v_t = (I − n nᵀ) v, t = −μ(|v_t|) v_t/|v_t|. The Jacobian
    /// holds (see [`PointGeometry`] for the models of c and n):
    /// - ∂δ/∂q = −nᵀW (exact: the witness points slide tangentially);
    /// - ∂n/∂q, the normal turning with its face's body;
    /// - ∂v/∂q at fixed u: the material points' second derivatives and
    ///   the witness points' motion relative to their bodies;
    /// - ∂(WᵀF)/∂q at fixed F (`lever`): the moment arms turning and the
    ///   points moving on their bodies.
    fn point_force(
        &self,
        poses: &[Option<Pose>; 2],
        ul: &Grad,
        cp: &ContactPoint,
        friction: Option<&ContactFriction>,
        jac: bool,
    ) -> Option<PointForce> {
        let geo = PointGeometry::new(self, poses, cp, jac);
        let w = geo.w;
        let n = cp.normal;
        let v = w * ul;
        let rate = -n.dot(&v);
        let (f, fd, fr) = self.normal.law(cp.depth, rate);
        if f == 0.0 {
            return None;
        }
        let proj = Matrix3::identity() - n * n.transpose();
        // friction direction t (F_t = f t) and D = ∂t/∂v_t
        let mut t = Vector3::zeros();
        let mut d = Matrix3::zeros();
        if let Some(fr_law) = friction {
            let vt = proj * v;
            let speed = vt.norm();
            if speed > 0.0 {
                let (mu, mu1) = fr_law.mu(speed);
                let dir = vt / speed;
                t = -dir * mu;
                // ∂(μ v̂)/∂v_t = μ' v̂ v̂ᵀ + μ/|v_t| (I − v̂ v̂ᵀ)
                let vv = dir * dir.transpose();
                d = -(vv * mu1 + (Matrix3::identity() - vv) * (mu / speed));
            } else {
                // at zero slip the friction is a viscous law of slope μ'(0)
                d = -Matrix3::identity() * fr_law.mu(0.0).1;
            }
        }
        let force = (n + t) * f;
        let mut out = PointForce {
            f: force,
            w,
            dq: Jac3::zeros(),
            du: Jac3::zeros(),
            lever: Hess::zeros(),
        };
        if !jac {
            return Some(out);
        }
        let ndot: SMatrix<f64, 1, NL> = n.transpose() * w;
        let (nq, vq) = (&geo.nq, geo.velocity_q(ul));
        // ∂δ̇/∂q = −(vᵀ ∂n/∂q + nᵀ ∂v/∂q)
        let rate_q = -(v.transpose() * nq + n.transpose() * vq);
        let f_q = -ndot * fd + rate_q * fr;
        let f_u = -ndot * fr;
        // v_t = P v: ∂v_t/∂q = P ∂v/∂q − (n vᵀ + (n·v) I) ∂n/∂q
        let vt_q = proj * vq - (n * v.transpose() + Matrix3::identity() * n.dot(&v)) * nq;
        out.dq = (n + t) * f_q + (nq + d * vt_q) * f;
        out.du = (n + t) * f_u + d * proj * w * f;
        out.lever = geo.lever(&force);
        Some(out)
    }

    fn local(&self, q: &[f64], u: &[f64], non_dynamic: bool, jac: bool) -> LocalContact {
        let poses = self.poses(q);
        let ul = gather(&self.bodies, u);
        self.local_at(&poses, &ul, non_dynamic, jac)
    }

    /// Q = Σ WᵀF over the points, with ∂Q/∂q = Σ (Wᵀ ∂F/∂q + lever) and
    /// ∂Q/∂u = Σ Wᵀ ∂F/∂u when `jac`.
    fn local_at(
        &self,
        poses: &[Option<Pose>; 2],
        ul: &Grad,
        non_dynamic: bool,
        jac: bool,
    ) -> LocalContact {
        let friction = self.friction_in(non_dynamic);
        let mut out = LocalContact {
            q: Grad::zeros(),
            jq: Hess::zeros(),
            ju: Hess::zeros(),
        };
        let mut scratch = self.scratch();
        self.find_points(poses, &mut scratch);
        for cp in scratch.points.iter() {
            let Some(pf) = self.point_force(poses, ul, cp, friction, jac) else {
                continue;
            };
            out.q += pf.w.transpose() * pf.f;
            if jac {
                out.jq += pf.w.transpose() * pf.dq + pf.lever;
                out.ju += pf.w.transpose() * pf.du;
            }
        }
        out
    }

    /// The total force on the J part (ground axes) at local poses and
    /// velocities, with its derivatives on the 14 local q and u (the
    /// CONTACT() function in expressions); `non_dynamic` as for the
    /// residual.
    pub fn force_jet(
        &self,
        poses: &[Option<Pose>; 2],
        ul: &Grad,
        non_dynamic: bool,
    ) -> (Vector3<f64>, Jac3, Jac3) {
        let friction = self.friction_in(non_dynamic);
        let mut total = (Vector3::zeros(), Jac3::zeros(), Jac3::zeros());
        let mut scratch = self.scratch();
        self.find_points(poses, &mut scratch);
        for cp in scratch.points.iter() {
            if let Some(pf) = self.point_force(poses, ul, cp, friction, true) {
                total.0 += pf.f;
                total.1 += pf.dq;
                total.2 += pf.du;
            }
        }
        total
    }

    /// out −= Q (residual convention R = M a − Q + Φ_qᵀλ); `non_dynamic`:
    /// a kinematic analysis (DYNAMICS_ONLY friction off).
    pub fn add_residual(&self, q: &[f64], u: &[f64], non_dynamic: bool, out: &mut [f64]) {
        let lc = self.local(q, u, non_dynamic, false);
        for l in 0..NL {
            if let Some(g) = global_index(&self.bodies, l) {
                out[g] -= lc.q[l];
            }
        }
    }

    /// Whether any (I solid, J solid) pair has bounding boxes within
    /// [`PATTERN_MARGIN`] of each other at q: the pairs that may touch
    /// soon. Only these emit Jacobian blocks, so a model with many
    /// CONTACTs far apart keeps a sparse Jacobian; as parts approach, the
    /// pattern grows and the assembler re-records it (a symbolic
    /// refactorization). The margin keeps that rare: a pair enters the
    /// pattern well before its contact force can be nonzero.
    fn near(&self, q: &[f64]) -> bool {
        let poses = self.poses(q);
        let box_of = |slot: usize, g: &PlacedShape| {
            let b = g.shape.compute_aabb(&self.world(slot, &poses, g));
            let margin = PATTERN_MARGIN * (b.maxs - b.mins).max_element();
            b.loosened(margin)
        };
        self.igeom.iter().any(|gi| {
            let bi = box_of(0, gi);
            self.jgeom.iter().any(|gj| bi.intersects(&box_of(1, gj)))
        })
    }

    /// The 14×14 blocks at (row0, col_q) and (row0, col_u) while the two
    /// parts are near (see [`ContactElement::near`]); nothing otherwise:
    /// the force and its Jacobian are zero there.
    #[allow(clippy::too_many_arguments)]
    pub fn add_jacobian(
        &self,
        q: &[f64],
        u: &[f64],
        non_dynamic: bool,
        sink: &mut dyn Sink,
        row0: usize,
        col_q: Option<usize>,
        col_u: usize,
        cu: f64,
    ) {
        if !self.near(q) {
            return;
        }
        let lc = self.local(q, u, non_dynamic, true);
        if let Some(cq) = col_q {
            scatter_hess(&self.bodies, &(-lc.jq), sink, row0, cq);
        }
        scatter_hess(&self.bodies, &(lc.ju * -cu), sink, row0, col_u);
    }

    /// Generalized force on the local coordinates (for tests and reports).
    pub fn local_force(&self, q: &[f64], u: &[f64]) -> Grad {
        self.local(q, u, false, false).q
    }

    /// Total force on the J part (ground axes) and the number of points:
    /// the CONTACT() result in a dynamic analysis.
    pub fn force_on_j(&self, q: &[f64], u: &[f64]) -> (Vector3<f64>, usize) {
        self.force_on_j_in(q, u, false)
    }

    /// [`ContactElement::force_on_j`] in the analysis `non_dynamic` says:
    /// the force the residual applies (DYNAMICS_ONLY friction off outside
    /// dynamics).
    pub fn force_on_j_in(&self, q: &[f64], u: &[f64], non_dynamic: bool) -> (Vector3<f64>, usize) {
        let friction = self.friction_in(non_dynamic);
        let poses = self.poses(q);
        let ul = gather(&self.bodies, u);
        let mut scratch = self.scratch();
        self.find_points(&poses, &mut scratch);
        let total = scratch
            .points
            .iter()
            .filter_map(|cp| self.point_force(&poses, &ul, cp, friction, false))
            .fold(Vector3::zeros(), |a, pf| a + pf.f);
        (total, scratch.points.len())
    }
}
