//! Model validation: everything that makes a model impossible to run is
//! rejected here, before any numerics, with the element named.

use crate::{
    ElementRef, ForceKind, Id, JointKind, Measure, Model, MotionDof, MotionTarget, StateFunction,
};
use std::collections::HashSet;
use std::fmt;

/// A model that cannot run, with the element at fault.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelError {
    pub element: Option<ElementRef>,
    /// Element description including source location when known.
    pub location: String,
    pub message: String,
}

impl fmt::Display for ModelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.location.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.location, self.message)
        }
    }
}

impl std::error::Error for ModelError {}

pub(crate) fn err(model: &Model, e: ElementRef, message: String) -> ModelError {
    ModelError {
        element: Some(e),
        location: model.describe(e),
        message,
    }
}

/// Relative slack of the triangle-inequality check: IP values are often
/// written with three significant digits, so a thin rod or a flat plate
/// (Izz = Ixx + Iyy exactly in theory: IP = 0.333, 0.333, 0.667) may exceed
/// the bound by 0.15 % through rounding alone. 1 % keeps those and still
/// rejects a wrong tensor (IP = 1, 1, 5).
const TRIANGLE_SLACK: f64 = 1e-2;

/// The principal moments of a real body satisfy I₁ ≤ I₂ + I₃ for every
/// ordering (I₁ + I₂ − I₃ = 2∫z² dm ≥ 0). A positive-definite tensor can
/// still violate it (IP = 1, 1, 5), which no mass distribution has.
fn triangle_violation(i: &crate::Inertia) -> Option<String> {
    let diagonal = i.ixy == 0.0 && i.ixz == 0.0 && i.iyz == 0.0;
    let (m, names) = if diagonal {
        ([i.ixx, i.iyy, i.izz], ["Ixx", "Iyy", "Izz"])
    } else {
        let ev = i.matrix().symmetric_eigenvalues();
        let mut m = [ev[0], ev[1], ev[2]];
        m.sort_by(f64::total_cmp);
        (m, ["I1", "I2", "I3"])
    };
    for k in 0..3 {
        let (a, b) = ((k + 1) % 3, (k + 2) % 3);
        if m[k] > (m[a] + m[b]) * (1.0 + TRIANGLE_SLACK) {
            let what = if diagonal { "" } else { "principal moments: " };
            return Some(format!(
                "inertia violates the triangle inequality ({what}{} = {} > {} + {} = {}): no body has these moments",
                names[k],
                crate::readable(m[k]),
                names[a],
                names[b],
                crate::readable(m[a] + m[b])
            ));
        }
    }
    None
}

/// The parts whose inertia violates the triangle inequality, each as one
/// warning line naming the PART and where it was written. Adams runs such
/// decks (exported parts with moments rounded near the bound, idealised
/// parts), and the equations need only a positive-definite tensor, which
/// [`validate`] requires; so they are run as given and the user is told.
pub fn inertia_warnings(model: &Model) -> Vec<String> {
    model
        .parts
        .iter()
        .filter(|p| !p.ground && p.mass > 0.0)
        .filter_map(|p| {
            let msg = triangle_violation(&p.inertia)?;
            Some(format!(
                "warning: {}: {msg}; it is run as given, as Adams runs it",
                model.describe(ElementRef::Part(p.id))
            ))
        })
        .collect()
}

/// A body's CM marker is on the body itself, and its orientation is a
/// rotation (parts and point masses alike).
pub(crate) fn check_cm_and_orientation(model: &Model, p: &crate::Part) -> Result<(), ModelError> {
    let e = ElementRef::Part(p.id);
    if let Some(cm) = p.cm {
        match model.marker(cm) {
            Some(m) if m.part == p.id => {}
            Some(m) => {
                return Err(err(
                    model,
                    e,
                    format!(
                        "CM marker {cm} belongs to {}, not to this part",
                        crate::point_mass::body_label(m.part)
                    ),
                ))
            }
            None => return Err(err(model, e, format!("CM marker {cm} does not exist"))),
        }
    }
    let r = p.placement.rotation;
    if ((r.transpose() * r) - nalgebra::Matrix3::identity()).norm() > 1e-6 {
        return Err(err(model, e, "orientation is not a rotation".into()));
    }
    Ok(())
}

/// Check that the model can be assembled: ids unique and resolvable, masses
/// and inertias physical, joints between two different parts, motions on
/// joints that have the driven degree of freedom.
pub fn validate(model: &Model) -> Result<(), ModelError> {
    // The readers refuse a non-positive UCF; a model built through the API
    // is checked here, before the kernel divides the masses by it.
    let ucf = model.units.ucf();
    if !(ucf.is_finite() && ucf > 0.0) {
        return Err(ModelError {
            element: None,
            location: String::new(),
            message: format!(
                "the units consistency factor must be positive and finite, found {}",
                crate::readable(ucf)
            ),
        });
    }
    let grounds: Vec<_> = model.parts.iter().filter(|p| p.ground).collect();
    if grounds.len() != 1 {
        return Err(ModelError {
            element: None,
            location: String::new(),
            message: format!(
                "the model must have exactly one ground part, found {}",
                grounds.len()
            ),
        });
    }
    crate::states::validate_states(model)?;
    crate::implicit_vars::validate_implicit_variables(model)?;
    crate::discrete::validate_samplings(model)?;
    let mut seen = HashSet::new();
    for p in &model.parts {
        let e = ElementRef::Part(p.id);
        if !seen.insert(p.id) {
            return Err(err(model, e, "duplicate part id".into()));
        }
        if p.ground {
            continue;
        }
        if crate::point_mass::is_point_mass(p.id) {
            crate::point_mass::validate_point_mass(model, p)?;
            continue;
        }
        if p.mass == 0.0 {
            // Adams accepts a massless part whose motion its constraints
            // determine: the solver checks that on the constraint Jacobian
            // (solver/src/massless.rs). Inertia without mass is no body.
            if p.inertia != crate::Inertia::default() {
                return Err(err(
                    model,
                    e,
                    "massless part (MASS = 0 or no MASS) with a nonzero inertia (IP): give it a MASS, or no IP".into(),
                ));
            }
            continue;
        }
        if !(p.mass.is_finite() && p.mass > 0.0) {
            return Err(err(
                model,
                e,
                format!("part has no positive mass (MASS = {})", p.mass),
            ));
        }
        let j = p.inertia.matrix();
        if !j.iter().all(|v| v.is_finite()) || j.cholesky().is_none() {
            let i = p.inertia;
            return Err(err(
                model,
                e,
                format!(
                    "inertia tensor is not positive definite (IP = {}, {}, {}, {}, {}, {})",
                    i.ixx, i.iyy, i.izz, i.ixy, i.ixz, i.iyz
                ),
            ));
        }
        check_cm_and_orientation(model, p)?;
    }
    let mut seen = HashSet::new();
    for m in &model.markers {
        let e = ElementRef::Marker(m.id);
        if !seen.insert(m.id) {
            return Err(err(model, e, "duplicate marker id".into()));
        }
        if model.part(m.part).is_none() {
            return Err(err(
                model,
                e,
                format!(
                    "marker is on {}, which does not exist",
                    crate::point_mass::body_label(m.part)
                ),
            ));
        }
    }
    let marker_part = |owner: ElementRef, id: Id, role: &str| -> Result<Id, ModelError> {
        model
            .marker(id)
            .map(|m| m.part)
            .ok_or_else(|| err(model, owner, format!("{role} marker {id} does not exist")))
    };
    let mut seen = HashSet::new();
    for jt in &model.joints {
        let e = ElementRef::Joint(jt.id);
        if !seen.insert(jt.id) {
            return Err(err(model, e, "duplicate joint id".into()));
        }
        let pi = marker_part(e, jt.i, "I")?;
        let pj = marker_part(e, jt.j, "J")?;
        if pi == pj {
            return Err(err(
                model,
                e,
                format!(
                    "{} joint connects markers {} and {} of the same part {}",
                    jt.kind.name(),
                    jt.i,
                    jt.j,
                    crate::point_mass::body_label(pi)
                ),
            ));
        }
        if let JointKind::RackPin { pitch_diameter } = jt.kind {
            if !pitch_diameter.is_finite() || pitch_diameter == 0.0 {
                return Err(err(
                    model,
                    e,
                    format!("RACKPIN pitch diameter PD must be finite and not zero, got {pitch_diameter}"),
                ));
            }
        }
    }
    let mut seen = HashSet::new();
    for jp in &model.jprims {
        let e = ElementRef::Jprim(jp.id);
        if !seen.insert(jp.id) {
            return Err(err(model, e, "duplicate JPRIM id".into()));
        }
        let pi = marker_part(e, jp.i, "I")?;
        let pj = marker_part(e, jp.j, "J")?;
        if pi == pj {
            return Err(err(
                model,
                e,
                format!(
                    "{} primitive connects markers {} and {} of the same part {}",
                    jp.kind.name(),
                    jp.i,
                    jp.j,
                    crate::point_mass::body_label(pi)
                ),
            ));
        }
    }
    let mut seen = HashSet::new();
    let mut driven = HashSet::new();
    let mut driven_markers = HashSet::new();
    for mo in &model.motions {
        let e = ElementRef::Motion(mo.id);
        if !seen.insert(mo.id) {
            return Err(err(model, e, "duplicate motion id".into()));
        }
        let (joint, dof) = match mo.target {
            MotionTarget::Joint { joint, dof } => (joint, dof),
            MotionTarget::Markers { i, j, axis } => {
                let pi = marker_part(e, i, "I")?;
                let pj = marker_part(e, j, "J")?;
                if pi == pj {
                    return Err(err(
                        model,
                        e,
                        format!(
                            "motion between markers {i} and {j} of the same part {}",
                            crate::point_mass::body_label(pi)
                        ),
                    ));
                }
                if !driven_markers.insert((i, j, axis as u8)) {
                    return Err(err(
                        model,
                        e,
                        format!("markers {i} and {j} already have a {} motion", axis.name()),
                    ));
                }
                continue;
            }
        };
        let Some(jt) = model.joints.iter().find(|j| j.id == joint) else {
            return Err(err(
                model,
                e,
                format!("motion acts on JOINT/{joint}, which does not exist"),
            ));
        };
        let ok = matches!(
            (jt.kind, dof),
            (JointKind::Revolute, MotionDof::Rotation)
                | (JointKind::Translational, MotionDof::Translation)
                | (JointKind::Cylindrical, _)
        );
        if !ok {
            return Err(err(
                model,
                e,
                format!(
                    "a {:?} motion cannot drive {} JOINT/{}",
                    dof,
                    jt.kind.name(),
                    jt.id
                ),
            ));
        }
        if !driven.insert((joint, dof as u8)) {
            return Err(err(
                model,
                e,
                format!("JOINT/{joint} already has a {dof:?} motion"),
            ));
        }
    }
    let mut seen = HashSet::new();
    for v in &model.variables {
        if !seen.insert(v.id) {
            return Err(err(
                model,
                ElementRef::Variable(v.id),
                "duplicate VARIABLE id".into(),
            ));
        }
    }
    let mut seen = HashSet::new();
    for g in &model.gcons {
        let e = ElementRef::Gcon(g.id);
        if !seen.insert(g.id) {
            return Err(err(model, e, "duplicate GCON id".into()));
        }
        marker_part(e, g.i, "I")?;
        check_measure_list(model, e, g.function.measures())?;
    }
    let mut seen = HashSet::new();
    for c in &model.couplers {
        if !seen.insert(c.id) {
            return Err(err(
                model,
                ElementRef::Coupler(c.id),
                "duplicate COUPLER id".into(),
            ));
        }
        crate::coupler::validate(model, c)?;
    }
    let mut seen = HashSet::new();
    for g in &model.gears {
        if !seen.insert(g.id) {
            return Err(err(
                model,
                ElementRef::Gear(g.id),
                "duplicate GEAR id".into(),
            ));
        }
        crate::coupler::validate_gear(model, g)?;
    }
    let mut seen = HashSet::new();
    for c in &model.curves {
        if !seen.insert(c.id) {
            return Err(err(
                model,
                ElementRef::Curve(c.id),
                "duplicate CURVE id".into(),
            ));
        }
        crate::curve::validate_curve(model, c)?;
    }
    let mut seen = HashSet::new();
    for p in &model.ptcvs {
        if !seen.insert(p.id) {
            return Err(err(
                model,
                ElementRef::Ptcv(p.id),
                "duplicate PTCV id".into(),
            ));
        }
        crate::curve::validate_ptcv(model, p)?;
    }
    let mut seen = HashSet::new();
    for c in &model.cvcvs {
        if !seen.insert(c.id) {
            return Err(err(
                model,
                ElementRef::Cvcv(c.id),
                "duplicate CVCV id".into(),
            ));
        }
        crate::curve::validate_cvcv(model, c)?;
    }
    let mut seen = HashSet::new();
    for f in &model.forces {
        let e = f.element();
        if !seen.insert(e) {
            return Err(err(model, e, "duplicate id".into()));
        }
        marker_part(e, f.i, "I")?;
        let j_role = if matches!(f.kind, ForceKind::Vector { .. }) {
            "RM"
        } else {
            "J"
        };
        marker_part(e, f.j, j_role)?;
        if let ForceKind::Vector {
            reaction_part,
            jfloat,
            ..
        } = &f.kind
        {
            if model.part(*reaction_part).is_none() {
                return Err(err(
                    model,
                    e,
                    format!(
                        "JFLOAT marker {jfloat} is on part {reaction_part}, which does not exist"
                    ),
                ));
            }
        }
        match &f.kind {
            ForceKind::TranslationalSpringDamper {
                stiffness,
                damping,
                free_length,
                preload,
            }
            | ForceKind::RotationalSpringDamper {
                stiffness,
                damping,
                free_angle: free_length,
                preload,
            } => {
                for (name, v) in [
                    ("stiffness", stiffness),
                    ("damping", damping),
                    ("free length/angle", free_length),
                    ("preload", preload),
                ] {
                    if !v.is_finite() {
                        return Err(err(model, e, format!("{name} is not finite")));
                    }
                }
            }
            ForceKind::RotationalActionReaction { function } => {
                check_measures(model, e, function.as_ref())?;
                check_parallel_z(model, e, f.i, f.j)?;
            }
            ForceKind::TranslationalActionReaction { function }
            | ForceKind::TranslationalActionOnly { function }
            | ForceKind::RotationalActionOnly { function } => {
                check_measures(model, e, function.as_ref())?;
            }
            ForceKind::Vector { components, .. } => {
                for function in components.iter().flatten() {
                    check_measures(model, e, function.as_ref())?;
                }
            }
            ForceKind::Elastic(el) => crate::elastic::validate(model, e, f, el)?,
        }
    }
    let mut seen = HashSet::new();
    for r in &model.requests {
        let e = ElementRef::Request(r.id);
        if !seen.insert(r.id) {
            return Err(err(model, e, "duplicate request id".into()));
        }
        marker_part(e, r.i, "I")?;
        if let Some(j) = r.j {
            marker_part(e, j, "J")?;
        }
        if let Some(rm) = r.rm {
            marker_part(e, rm, "RM")?;
        }
    }
    // A CONTACT acts between two parts: a solid touching another solid of
    // its own part would exert a force on that part and its reaction on the
    // same part (Adams: IGEOM and JGEOM belong to different parts).
    for c in &model.contacts {
        let e = ElementRef::Contact(c.id);
        let part_of = |g: Id| {
            model
                .geometries
                .iter()
                .find(|s| s.id == g)
                .and_then(|s| model.marker(s.marker))
                .map(|m| m.part)
        };
        for &ig in &c.igeom {
            for &jg in &c.jgeom {
                if let (Some(pi), Some(pj)) = (part_of(ig), part_of(jg)) {
                    if pi == pj {
                        return Err(err(
                            model,
                            e,
                            format!(
                                "IGEOM GRAPHICS/{ig} and JGEOM GRAPHICS/{jg} are both on PART/{pi}; a contact acts between two parts"
                            ),
                        ));
                    }
                }
            }
        }
    }
    crate::point_mass::validate_connections(model)?;
    Ok(())
}

/// Seeds (Adams SFORCE): "in the case of action-reaction torques, the
/// z-axis of the J marker must be parallel to, and pointed in the same
/// direction as, the z-axis of the I marker". Checked in the input
/// configuration, where the angle between the axes must be below 1e-5 rad
/// (cosine ≥ 1 − 5e-11): REULER angles written to ten digits in degrees
/// reproduce an axis to about 1e-10.
fn check_parallel_z(model: &Model, e: ElementRef, i: Id, j: Id) -> Result<(), ModelError> {
    let (Some(pi), Some(pj)) = (model.marker_in_ground(i), model.marker_in_ground(j)) else {
        return Ok(()); // unknown markers are reported by the caller
    };
    let (zi, zj) = (pi.rotation.column(2), pj.rotation.column(2));
    let c = zi.dot(&zj).clamp(-1.0, 1.0);
    if c < 1.0 - 5e-11 {
        return Err(err(
            model,
            e,
            format!(
                "a ROTATIONAL action-reaction SFORCE needs the z axes of I (MARKER/{i}) and J (MARKER/{j}) parallel and pointed the same way; they are {:.6} degrees apart",
                c.acos().to_degrees()
            ),
        ));
    }
    Ok(())
}

/// [`check_measures`] for other modules (user states).
pub(crate) fn check_function_measures(
    model: &Model,
    e: ElementRef,
    f: &dyn StateFunction,
) -> Result<(), ModelError> {
    check_measures(model, e, f)
}

fn check_measures(model: &Model, e: ElementRef, f: &dyn StateFunction) -> Result<(), ModelError> {
    check_measure_list(model, e, f.measures())
}

fn check_measure_list(
    model: &Model,
    e: ElementRef,
    measures: &[Measure],
) -> Result<(), ModelError> {
    for m in measures {
        match *m {
            Measure::UserState {
                element, component, ..
            } => crate::states::check_state_reference(model, e, element, component)?,
            Measure::Contact { id, .. } => crate::contact::check_contact_reference(model, e, id)?,
            _ => {}
        }
        for id in m.markers() {
            if model.marker(id).is_none() {
                return Err(err(
                    model,
                    e,
                    format!("function refers to marker {id}, which does not exist"),
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    fn base() -> Model {
        let mut m = Model::new("t");
        m.parts.push(Part::ground(1));
        m.parts.push(Part::body(
            2,
            1.0,
            Inertia::diagonal(1.0, 1.0, 1.0),
            Placement::default(),
        ));
        m.markers.push(Marker {
            id: 10,
            part: 1,
            placement: Placement::default(),
        });
        m.markers.push(Marker {
            id: 20,
            part: 2,
            placement: Placement::default(),
        });
        m
    }

    #[test]
    fn massless_part_needs_zero_inertia() {
        let mut m = base();
        m.parts[1].mass = 0.0;
        m.parts[1].inertia = crate::Inertia::diagonal(1.0, 1.0, 1.0);
        let e = validate(&m).unwrap_err();
        assert_eq!(
            e.to_string(),
            "PART/2: massless part (MASS = 0 or no MASS) with a nonzero inertia (IP): give it a MASS, or no IP"
        );
        // without inertia it is accepted here; the solver checks that its
        // constraints determine its motion
        m.parts[1].inertia = crate::Inertia::default();
        assert!(validate(&m).is_ok());
        m.parts[1].mass = -1.0;
        assert_eq!(
            validate(&m).unwrap_err().to_string(),
            "PART/2: part has no positive mass (MASS = -1)"
        );
    }

    #[test]
    fn rejects_indefinite_inertia() {
        let mut m = base();
        m.parts[1].inertia = Inertia {
            ixx: 1.0,
            iyy: 1.0,
            izz: 1.0,
            ixy: 2.0,
            ixz: 0.0,
            iyz: 0.0,
        };
        let e = validate(&m).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("PART/2: inertia tensor is not positive definite"));
    }

    #[test]
    fn rejects_marker_on_unknown_part() {
        let mut m = base();
        m.markers.push(Marker {
            id: 30,
            part: 7,
            placement: Placement::default(),
        });
        m.sources.push((ElementRef::Marker(30), "a.adm:12".into()));
        let e = validate(&m).unwrap_err();
        assert_eq!(
            e.to_string(),
            "MARKER/30 (a.adm:12): marker is on PART/7, which does not exist"
        );
    }

    #[test]
    fn rejects_joint_on_same_part() {
        let mut m = base();
        m.markers.push(Marker {
            id: 21,
            part: 2,
            placement: Placement::default(),
        });
        m.joints.push(Joint {
            id: 5,
            kind: JointKind::Revolute,
            i: 20,
            j: 21,
        });
        let e = validate(&m).unwrap_err();
        assert_eq!(
            e.to_string(),
            "JOINT/5: REVOLUTE joint connects markers 20 and 21 of the same part PART/2"
        );
    }

    #[test]
    fn rejects_rotation_motion_on_translational_joint() {
        let mut m = base();
        m.joints.push(Joint {
            id: 5,
            kind: JointKind::Translational,
            i: 20,
            j: 10,
        });
        m.motions.push(Motion::on_joint(
            1,
            5,
            MotionDof::Rotation,
            std::sync::Arc::new(Constant(0.0)),
        ));
        let e = validate(&m).unwrap_err();
        assert_eq!(
            e.to_string(),
            "MOTION/1: a Rotation motion cannot drive TRANSLATIONAL JOINT/5"
        );
    }

    #[test]
    fn rejects_bad_rackpin_jprim_and_marker_motion() {
        let mut m = base();
        m.joints.push(Joint {
            id: 3,
            kind: JointKind::RackPin {
                pitch_diameter: 0.0,
            },
            i: 20,
            j: 10,
        });
        assert_eq!(
            validate(&m).unwrap_err().to_string(),
            "JOINT/3: RACKPIN pitch diameter PD must be finite and not zero, got 0"
        );
        let mut m = base();
        m.markers.push(Marker {
            id: 21,
            part: 2,
            placement: Placement::default(),
        });
        m.jprims.push(Jprim {
            id: 4,
            kind: JprimKind::Inline,
            i: 20,
            j: 21,
        });
        assert_eq!(
            validate(&m).unwrap_err().to_string(),
            "JPRIM/4: INLINE primitive connects markers 20 and 21 of the same part PART/2"
        );
        let mut m = base();
        for id in [1, 2] {
            m.motions.push(Motion {
                id,
                target: MotionTarget::Markers {
                    i: 20,
                    j: 10,
                    axis: MarkerMotionAxis::B2,
                },
                function: std::sync::Arc::new(Constant(0.0)),
            });
        }
        assert_eq!(
            validate(&m).unwrap_err().to_string(),
            "MOTION/2: markers 20 and 10 already have a B2 motion"
        );
    }

    /// Seeds (SFORCE): an action-reaction torque needs z_I ∥ z_J, same sense.
    #[test]
    fn rotational_sforce_needs_parallel_z_axes() {
        let mut m = base();
        m.markers[1].placement = Placement::default().with_euler313(0.0, 0.5, 0.0);
        let torque = |m: &mut Model| {
            m.forces.push(Force {
                id: 1,
                i: 20,
                j: 10,
                kind: ForceKind::RotationalActionReaction {
                    function: std::sync::Arc::new(Constant(1.0)),
                },
            })
        };
        torque(&mut m);
        assert_eq!(
            validate(&m).unwrap_err().to_string(),
            "SFORCE/1: a ROTATIONAL action-reaction SFORCE needs the z axes of I (MARKER/20) and J (MARKER/10) parallel and pointed the same way; they are 28.647890 degrees apart"
        );
        // Turned about the common z axis only: accepted.
        let mut m = base();
        m.markers[1].placement = Placement::default().with_euler313(1.2, 0.0, 0.0);
        torque(&mut m);
        assert!(validate(&m).is_ok());
    }

    #[test]
    fn accepts_valid_model() {
        assert!(validate(&base()).is_ok());
    }
}
