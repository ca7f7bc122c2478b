//! Contact geometry (GRAPHICS solids) and CONTACT elements as plain data.
//!
//! Shapes follow Adams' GRAPHICS definitions, each in the frame of the
//! marker that places it:
//! - BOX: from the CORNER marker along its +x, +y, +z by X, Y, Z;
//! - CYLINDER: base centre at CM, axis +z, LENGTH (may be negative), RADIUS;
//! - FRUSTUM: base centre at CM, axis +z, LENGTH, BOTTOM and TOP radii;
//! - ELLIPSOID: centred at CM; XSCALE, YSCALE, ZSCALE are the diameters
//!   along the marker axes (the aview-hpc deck's 3.937 in "ELLIPSOID" is the
//!   100 mm ball whose steel mass its PART states);
//! - TORUS: centred at CM in its xy plane, MAJOR_RADIUS and MINOR_RADIUS
//!   (tessellated: parry has no torus);
//! - a triangle mesh read from an EXTERNAL `.shl` or `.stl` file, in the RM
//!   marker's frame.

use crate::Id;

/// A solid in its placing marker's frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Box {
        x: f64,
        y: f64,
        z: f64,
    },
    Cylinder {
        length: f64,
        radius: f64,
    },
    Frustum {
        length: f64,
        bottom: f64,
        top: f64,
    },
    Ellipsoid {
        x: f64,
        y: f64,
        z: f64,
    },
    /// TORUS: centred at CM, in its xy plane (axis z).
    Torus {
        major: f64,
        minor: f64,
    },
    /// Vertices and triangles (vertex indices), marker frame.
    Mesh {
        vertices: Vec<[f64; 3]>,
        triangles: Vec<[u32; 3]>,
    },
}

impl Shape {
    /// The Adams GRAPHICS keyword for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Shape::Box { .. } => "BOX",
            Shape::Cylinder { .. } => "CYLINDER",
            Shape::Frustum { .. } => "FRUSTUM",
            Shape::Ellipsoid { .. } => "ELLIPSOID",
            Shape::Torus { .. } => "TORUS",
            Shape::Mesh { .. } => "EXTERNAL",
        }
    }
}

/// A GRAPHICS solid that CONTACT elements may refer to.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    /// The GRAPHICS id.
    pub id: Id,
    /// The marker that places the shape (CORNER, CM or RM).
    pub marker: Id,
    pub shape: Shape,
}

impl Geometry {
    /// A BOX of sides x, y, z from its CORNER marker.
    pub fn cuboid(id: Id, corner: Id, [x, y, z]: [f64; 3]) -> Self {
        Geometry {
            id,
            marker: corner,
            shape: Shape::Box { x, y, z },
        }
    }
    /// A sphere of radius `r` centred at `marker` (an ELLIPSOID with equal
    /// diameters, as Adams View writes a sphere).
    pub fn sphere(id: Id, marker: Id, r: f64) -> Self {
        Geometry {
            id,
            marker,
            shape: Shape::Ellipsoid {
                x: 2.0 * r,
                y: 2.0 * r,
                z: 2.0 * r,
            },
        }
    }
}

/// The normal-force model of a CONTACT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormalForce {
    /// IMPACT: f = k δ^e + STEP(δ, 0, 0, DMAX, c) δ̇, never negative.
    Impact {
        stiffness: f64,
        exponent: f64,
        damping: f64,
        dmax: f64,
    },
    /// POISSON (restitution): f = p δ (1 + α s(δ̇)) with
    /// α = (1 − ε²)/(1 + ε²) and s a STEP from −1 (separating) to +1
    /// (approaching) over ±NORMAL_TRANS, so the loading/unloading work ratio
    /// is ε² and the rebound speed ratio ε.
    Poisson {
        penalty: f64,
        restitution: f64,
        normal_trans: f64,
    },
}

/// COULOMB_FRICTION = ON / DYNAMICS_ONLY with its coefficients.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFriction {
    /// DYNAMICS_ONLY: friction only in dynamic analyses (not in kinematic
    /// ones; static and quasi-static ones evaluate forces at rest, where
    /// the velocity-regularized friction is zero either way).
    pub dynamics_only: bool,
    pub mu_static: f64,
    pub mu_dynamic: f64,
    pub stiction_transition_velocity: f64,
    pub friction_transition_velocity: f64,
}

/// CONTACT between the solids IGEOM (all on one part) and JGEOM (all on
/// another part).
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    pub id: Id,
    pub igeom: Vec<Id>,
    pub jgeom: Vec<Id>,
    pub normal: NormalForce,
    pub friction: Option<ContactFriction>,
}

/// Adams' cubic STEP shape h(u) = u²(3 − 2u) on [0, 1] and its slope.
fn cubic(u: f64) -> (f64, f64) {
    if u <= 0.0 {
        (0.0, 0.0)
    } else if u >= 1.0 {
        (1.0, 0.0)
    } else {
        (u * u * (3.0 - 2.0 * u), 6.0 * u * (1.0 - u))
    }
}

impl NormalForce {
    /// Normal force f ≥ 0 at penetration δ > 0 and rate δ̇ (> 0 closing),
    /// with ∂f/∂δ and ∂f/∂δ̇.
    pub fn law(&self, depth: f64, rate: f64) -> (f64, f64, f64) {
        let (f, fd, fr) = match *self {
            NormalForce::Impact {
                stiffness: k,
                exponent: e,
                damping: c,
                dmax,
            } => {
                // IMPACT: k δ^e + STEP(δ, 0, 0, dmax, c) δ̇
                let (h, h1) = cubic(depth / dmax);
                let spring = k * depth.powf(e);
                let slope = k * e * depth.powf(e - 1.0);
                (spring + c * h * rate, slope + c * h1 / dmax * rate, c * h)
            }
            NormalForce::Poisson {
                penalty: p,
                restitution: eps,
                normal_trans: vt,
            } => {
                let alpha = (1.0 - eps * eps) / (1.0 + eps * eps);
                // s = STEP(δ̇, −vt, −1, vt, 1)
                let (h, h1) = cubic((rate + vt) / (2.0 * vt));
                let s = 2.0 * h - 1.0;
                let s1 = h1 / vt;
                (
                    p * depth * (1.0 + alpha * s),
                    p * (1.0 + alpha * s),
                    p * depth * alpha * s1,
                )
            }
        };
        if f > 0.0 {
            (f, fd, fr)
        } else {
            (0.0, 0.0, 0.0)
        }
    }
}

impl ContactFriction {
    /// Adams' CONTACT friction coefficient at slip speed v ≥ 0: a cubic
    /// STEP through 0 from −μs to μs over [−vs, vs], then STEP from μs to
    /// μd over [vs, vd], then μd; with its slope dμ/dv.
    pub fn mu(&self, v: f64) -> (f64, f64) {
        let (ms, md) = (self.mu_static, self.mu_dynamic);
        let (vs, vd) = (
            self.stiction_transition_velocity,
            self.friction_transition_velocity,
        );
        if v < vs {
            let (h, h1) = cubic((v + vs) / (2.0 * vs));
            (ms * (2.0 * h - 1.0), ms * h1 / vs)
        } else if v < vd {
            let (h, h1) = cubic((v - vs) / (vd - vs));
            (ms + (md - ms) * h, (md - ms) * h1 / (vd - vs))
        } else {
            (md, 0.0)
        }
    }
}

/// CONTACT(id, …) in a function of element `e` names an existing CONTACT.
pub(crate) fn check_contact_reference(
    model: &crate::Model,
    e: crate::ElementRef,
    id: Id,
) -> Result<(), crate::ModelError> {
    if model.contacts.iter().any(|c| c.id == id) {
        Ok(())
    } else {
        Err(crate::validate::err(
            model,
            e,
            format!("function refers to CONTACT/{id}, which does not exist"),
        ))
    }
}
