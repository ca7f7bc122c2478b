//! POINT_MASS (Adams Solver POINT_MASS statement): a body with mass,
//! position and translational velocity only. Its orientation (REULER, XG,
//! ZG) is fixed for the whole simulation, so markers on it keep their
//! orientation in ground; it has no inertia and no angular velocity, and
//! adds three degrees of freedom.
//!
//! A point mass lives in `Model::parts` like a part, under a key of its own
//! id space: [`key`] sets the top bit of the id, so POINT_MASS/1 and PART/1
//! are two bodies, markers on the point mass have `part == key(1)`, and
//! `ElementRef::Part(key(1))` prints as POINT_MASS/1. Readers refuse PART
//! and POINT_MASS ids at or above [`MAX_ID`], so the two spaces never meet.
//!
//! Adams limits what may act on a point mass to translational elements
//! (ACCGRAV, TRANSLATIONAL SFORCE, TRANSLATIONAL SPRINGDAMPER, VFORCE):
//! [`validate_connections`] refuses every rotational constraint, motion and
//! force on one by name.

use crate::validate::{err, ModelError};
use crate::{ElementRef, ForceKind, Id, JointKind, JprimKind, Measure, Model, Part, Placement};
use crate::{MarkerMotionAxis, MotionTarget, VectorStatement};
use nalgebra::Vector3;

/// The bit that marks a point-mass key in the part id space.
const TAG: Id = 1 << 31;

/// PART and POINT_MASS ids must be below this (2³¹; Adams ids are far
/// smaller), so that a point-mass key never equals a part id.
pub const MAX_ID: Id = TAG;

/// The `Model::parts` key of POINT_MASS/`id`.
pub fn key(id: Id) -> Id {
    id | TAG
}

/// Whether a part key names a point mass.
pub fn is_point_mass(part: Id) -> bool {
    part & TAG != 0
}

/// The POINT_MASS id of a part key, if it names a point mass.
pub fn point_mass_id(part: Id) -> Option<Id> {
    is_point_mass(part).then_some(part & !TAG)
}

/// "POINT_MASS/3" or "PART/3" for a part key.
pub fn body_label(part: Id) -> String {
    match point_mass_id(part) {
        Some(id) => format!("POINT_MASS/{id}"),
        None => format!("PART/{part}"),
    }
}

/// POINT_MASS/`id` as a `Model::parts` entry: no inertia, no angular
/// velocity; `placement` is its BCS (QG and the constant orientation).
pub fn point_mass(id: Id, mass: f64, placement: Placement, velocity: Vector3<f64>) -> Part {
    let mut p = Part::body(key(id), mass, crate::Inertia::default(), placement);
    p.name = format!("POINT_MASS/{id}");
    p.velocity = velocity;
    p
}

/// The checks of a point mass's own data (validate's part loop calls this
/// instead of the rigid-body checks): a mass ≥ 0 (0 when its constraints
/// fix it, as for a massless part), no inertia, no angular velocity, and
/// the CM marker and orientation checks of a part.
pub(crate) fn validate_point_mass(model: &Model, p: &Part) -> Result<(), ModelError> {
    let e = ElementRef::Part(p.id);
    if !(p.mass.is_finite() && p.mass >= 0.0) {
        return Err(err(
            model,
            e,
            format!(
                "point mass needs MASS ≥ 0, found {}",
                crate::readable(p.mass)
            ),
        ));
    }
    if p.inertia != crate::Inertia::default() || p.angular_velocity != Vector3::zeros() {
        return Err(err(
            model,
            e,
            "a point mass has no inertia and no angular velocity (Adams POINT_MASS)".into(),
        ));
    }
    crate::validate::check_cm_and_orientation(model, p)
}

/// The point mass a marker is on, if any (None for a missing marker: the
/// marker checks report that).
fn on_point_mass(model: &Model, marker: Id) -> Option<Id> {
    model.marker(marker).and_then(|m| point_mass_id(m.part))
}

/// "… on POINT_MASS/n: a point mass has no rotation (Adams POINT_MASS);
/// only …" for an element that constrains or loads a point mass's rotation.
fn refusal(what: &str, pm: Id) -> String {
    format!(
        "{what} acts on POINT_MASS/{pm}, which has no rotational degrees of freedom (Adams POINT_MASS): on a point mass use a SPHERICAL joint, an ATPOINT, INLINE or INPLANE JPRIM, an X, Y or Z marker MOTION, and a translational SFORCE or SPRINGDAMPER, a VFORCE or gravity"
    )
}

/// Refuse every element that constrains, drives or loads the rotation of a
/// point mass, naming the element and the point mass.
pub(crate) fn validate_connections(model: &Model) -> Result<(), ModelError> {
    let pair = |i: Id, j: Id| on_point_mass(model, i).or_else(|| on_point_mass(model, j));
    for jt in &model.joints {
        if let Some(pm) = pair(jt.i, jt.j) {
            if jt.kind != JointKind::Spherical {
                return Err(err(
                    model,
                    ElementRef::Joint(jt.id),
                    refusal(&format!("a {} joint", jt.kind.name()), pm),
                ));
            }
        }
    }
    for jp in &model.jprims {
        if let Some(pm) = pair(jp.i, jp.j) {
            if !matches!(
                jp.kind,
                JprimKind::Atpoint | JprimKind::Inline | JprimKind::Inplane
            ) {
                return Err(err(
                    model,
                    ElementRef::Jprim(jp.id),
                    refusal(&format!("an {} primitive", jp.kind.name()), pm),
                ));
            }
        }
    }
    for mo in &model.motions {
        if let MotionTarget::Markers { i, j, axis } = mo.target {
            if let Some(pm) = pair(i, j) {
                if matches!(
                    axis,
                    MarkerMotionAxis::B1 | MarkerMotionAxis::B2 | MarkerMotionAxis::B3
                ) {
                    return Err(err(
                        model,
                        ElementRef::Motion(mo.id),
                        refusal(&format!("a rotational motion ({})", axis.name()), pm),
                    ));
                }
            }
        }
        // A joint motion drives a joint, and the only joint a point mass
        // takes (SPHERICAL) has no motion.
    }
    for f in &model.forces {
        let mut pm = pair(f.i, f.j);
        if let ForceKind::Vector { reaction_part, .. } = &f.kind {
            // For VFORCE/VTORQUE/GFORCE `j` is the RM marker, which only
            // resolves components: what is loaded is I's part and the
            // JFLOAT part.
            pm = on_point_mass(model, f.i).or_else(|| point_mass_id(*reaction_part));
        }
        let Some(pm) = pm else { continue };
        let allowed = match &f.kind {
            ForceKind::TranslationalSpringDamper { .. }
            | ForceKind::TranslationalActionReaction { .. }
            | ForceKind::TranslationalActionOnly { .. } => true,
            ForceKind::Vector { statement, .. } => *statement == VectorStatement::Vforce,
            _ => false,
        };
        if !allowed {
            return Err(err(model, f.element(), refusal("this force", pm)));
        }
    }
    for g in &model.gcons {
        for m in g.function.measures() {
            if let Measure::Angle { i, j, .. } = *m {
                let pm =
                    on_point_mass(model, i).or_else(|| j.and_then(|j| on_point_mass(model, j)));
                if let Some(pm) = pm {
                    return Err(err(
                        model,
                        ElementRef::Gcon(g.id),
                        refusal("an angle (AX, AY, AZ) in a GCON", pm),
                    ));
                }
            }
        }
    }
    for fr in &model.frictions {
        let Some(jt) = model.joints.iter().find(|j| j.id == fr.joint) else {
            continue;
        };
        if let Some(pm) = pair(jt.i, jt.j) {
            return Err(err(
                model,
                ElementRef::Friction(fr.id),
                refusal("joint friction (a torque in the joint)", pm),
            ));
        }
    }
    for c in &model.contacts {
        let on = |g: Id| {
            model
                .geometries
                .iter()
                .find(|x| x.id == g)
                .and_then(|x| on_point_mass(model, x.marker))
        };
        if let Some(pm) = c.igeom.iter().chain(&c.jgeom).find_map(|g| on(*g)) {
            return Err(err(
                model,
                ElementRef::Contact(c.id),
                refusal("a CONTACT", pm),
            ));
        }
    }
    Ok(())
}
