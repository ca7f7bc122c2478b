//! COUPLER (Adams): Σ r_k q_k = 0 over two or three joints, q_k the
//! translation of the joint's I marker along z_J (TRANSLATIONAL,
//! CYLINDRICAL) or its rotation about z_J (REVOLUTE, CYLINDRICAL).
//! mbsolve measures each q_k from the input configuration, so the coupler
//! holds there as given.

use crate::{ElementRef, Id, JointKind, Model, ModelError};

/// Which displacement of a joint a coupler reads (TYPE = T | R).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CouplerFreedom {
    Translation,
    Rotation,
}

impl CouplerFreedom {
    pub fn letter(self) -> &'static str {
        match self {
            CouplerFreedom::Translation => "T",
            CouplerFreedom::Rotation => "R",
        }
    }
}

/// COUPLER/id, JOINTS = …, TYPE = …, SCALES = …: one (joint, freedom,
/// scale) per coupled joint.
#[derive(Clone, Debug, PartialEq)]
pub struct Coupler {
    pub id: Id,
    pub joints: Vec<(Id, CouplerFreedom, f64)>,
}

pub(crate) fn validate(model: &Model, c: &Coupler) -> Result<(), ModelError> {
    let e = ElementRef::Coupler(c.id);
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    if !(2..=3).contains(&c.joints.len()) {
        return Err(fail(format!(
            "couples {} joints; a COUPLER takes two or three",
            c.joints.len()
        )));
    }
    for (id, freedom, scale) in &c.joints {
        let Some(joint) = model.joints.iter().find(|j| j.id == *id) else {
            return Err(fail(format!("JOINT/{id} does not exist")));
        };
        let ok = match joint.kind {
            JointKind::Revolute => *freedom == CouplerFreedom::Rotation,
            JointKind::Translational => *freedom == CouplerFreedom::Translation,
            JointKind::Cylindrical => true,
            _ => {
                return Err(fail(format!(
                    "JOINT/{id} is {}; a COUPLER couples TRANSLATIONAL, REVOLUTE and CYLINDRICAL joints only",
                    joint.kind.name()
                )))
            }
        };
        if !ok {
            return Err(fail(format!(
                "TYPE {} does not fit JOINT/{id}, which is {}",
                freedom.letter(),
                joint.kind.name()
            )));
        }
        if !scale.is_finite() || *scale == 0.0 {
            return Err(fail(format!(
                "the scale of JOINT/{id} is {}; scales must be finite and nonzero",
                crate::readable(*scale)
            )));
        }
    }
    Ok(())
}

/// GEAR/id, JOINTS = id1, id2, CV = marker (Adams): the two joints turn
/// (or slide) so that their parts have a common velocity along z of the CV
/// marker at its origin. The CV marker sits on the carrier, the part the
/// two joints share; each joint's displacement drives its gear relative to
/// the carrier. mbsolve makes it the COUPLER whose scales are the
/// velocities per unit joint rate at the CV point in the input
/// configuration (constant in the carrier's frame).
#[derive(Clone, Debug, PartialEq)]
pub struct Gear {
    pub id: Id,
    pub joints: [Id; 2],
    pub cv: Id,
}

pub(crate) fn validate_gear(model: &Model, g: &Gear) -> Result<(), ModelError> {
    let e = ElementRef::Gear(g.id);
    let fail = |message: String| ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    };
    let Some(cv) = model.marker(g.cv) else {
        return Err(fail(format!("CV marker {} does not exist", g.cv)));
    };
    for id in g.joints {
        let Some(joint) = model.joints.iter().find(|j| j.id == id) else {
            return Err(fail(format!("JOINT/{id} does not exist")));
        };
        if !matches!(
            joint.kind,
            JointKind::Revolute | JointKind::Translational | JointKind::Cylindrical
        ) {
            return Err(fail(format!(
                "JOINT/{id} is {}; a GEAR couples TRANSLATIONAL, REVOLUTE and CYLINDRICAL joints only",
                joint.kind.name()
            )));
        }
        let part = |m| model.marker(m).map(|m| m.part);
        if part(joint.i) != Some(cv.part) && part(joint.j) != Some(cv.part) {
            return Err(fail(format!(
                "JOINT/{id} does not connect to the carrier, PART/{} (the part of the CV marker {})",
                cv.part, g.cv
            )));
        }
    }
    Ok(())
}
