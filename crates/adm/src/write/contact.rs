//! GRAPHICS solids and CONTACT statements written back (write_adm), in the
//! keywords the builder reads (build/contact.rs).

use super::num;
use mbsolve_model::{Model, NormalForce, Shape};
use std::fmt::Write as _;

fn ids(v: &[mbsolve_model::Id]) -> String {
    v.iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The contact solids and the CONTACT statements of `m`. A mesh read from
/// an EXTERNAL file is refused: its file is not kept in the model, and
/// convert writes nothing outside its output file.
pub(super) fn lines(m: &Model) -> Result<String, String> {
    let mut o = String::new();
    for g in &m.geometries {
        let (id, mk) = (g.id, g.marker);
        let line = match &g.shape {
            Shape::Box { x, y, z } => format!(
                "GRAPHICS/{id}, BOX, CORNER = {mk}, X = {}, Y = {}, Z = {}",
                num(*x),
                num(*y),
                num(*z)
            ),
            Shape::Cylinder { length, radius } => format!(
                "GRAPHICS/{id}, CYLINDER, CM = {mk}, LENGTH = {}, RADIUS = {}",
                num(*length),
                num(*radius)
            ),
            Shape::Frustum {
                length,
                bottom,
                top,
            } => format!(
                "GRAPHICS/{id}, FRUSTUM, CM = {mk}, LENGTH = {}, BOTTOM = {}, TOP = {}",
                num(*length),
                num(*bottom),
                num(*top)
            ),
            Shape::Ellipsoid { x, y, z } => format!(
                "GRAPHICS/{id}, ELLIPSOID, CM = {mk}, XSCALE = {}, YSCALE = {}, ZSCALE = {}",
                num(*x),
                num(*y),
                num(*z)
            ),
            Shape::Torus { major, minor } => format!(
                "GRAPHICS/{id}, TORUS, CM = {mk}, MAJOR_RADIUS = {}, MINOR_RADIUS = {}",
                num(*major),
                num(*minor)
            ),
            Shape::Mesh { .. } => {
                return Err(format!(
                    "GRAPHICS/{id}: EXTERNAL mesh geometry is not written by convert (the model keeps the triangles, not the file, and convert writes only its output file)"
                ))
            }
        };
        let _ = writeln!(o, "{line}");
    }
    for c in &m.contacts {
        let mut line = format!(
            "CONTACT/{}, IGEOM = {}, JGEOM = {}",
            c.id,
            ids(&c.igeom),
            ids(&c.jgeom)
        );
        match c.normal {
            NormalForce::Impact {
                stiffness,
                exponent,
                damping,
                dmax,
            } => {
                let _ = write!(
                    line,
                    ", IMPACT, STIFFNESS = {}, EXPONENT = {}, DAMPING = {}, DMAX = {}",
                    num(stiffness),
                    num(exponent),
                    num(damping),
                    num(dmax)
                );
            }
            NormalForce::Poisson {
                penalty,
                restitution,
                normal_trans,
            } => {
                let _ = write!(
                    line,
                    ", POISSON, PENALTY = {}, RESTITUTION_COEFFICIENT = {}, NORMAL_TRANS = {}",
                    num(penalty),
                    num(restitution),
                    num(normal_trans)
                );
            }
        }
        match c.friction {
            None => line.push_str(", COULOMB_FRICTION = OFF"),
            Some(f) => {
                let _ = write!(
                    line,
                    ", COULOMB_FRICTION = {}, MU_STATIC = {}, MU_DYNAMIC = {}, STICTION_TRANSITION_VELOCITY = {}, FRICTION_TRANSITION_VELOCITY = {}",
                    if f.dynamics_only { "DYNAMICS_ONLY" } else { "ON" },
                    num(f.mu_static),
                    num(f.mu_dynamic),
                    num(f.stiction_transition_velocity),
                    num(f.friction_transition_velocity)
                );
            }
        }
        let _ = writeln!(o, "{line}");
    }
    Ok(o)
}
