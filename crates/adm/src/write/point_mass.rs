//! POINT_MASS statements and markers on point masses in `write_adm`
//! (`mbsolve_model::point_mass`): the point mass's own id, MASS, CM, its
//! frame (QG and the constant orientation) and VX/VY/VZ in ground axes.

use super::{frame, num};
use mbsolve_model::point_mass::point_mass_id;
use mbsolve_model::{Marker, Part};
use nalgebra::Vector3;
use std::fmt::Write as _;

/// The POINT_MASS statement of a point-mass entry of `Model::parts`, or
/// None for a part.
pub(super) fn statement(p: &Part) -> Option<String> {
    let id = point_mass_id(p.id)?;
    let mut s = format!(
        "POINT_MASS/{id}, MASS = {}, {}",
        num(p.mass),
        frame(&p.placement, "QG", "ZG", "XG")
    );
    s.push_str(&cm_and_velocity(p));
    Some(s)
}

/// `, CM = id` and `, VX = …, VY = …, VZ = …` (ground axes) where given:
/// the arguments PART and POINT_MASS share.
pub(super) fn cm_and_velocity(p: &Part) -> String {
    let mut s = String::new();
    if let Some(cm) = p.cm {
        let _ = write!(s, ", CM = {cm}");
    }
    if p.velocity != Vector3::zeros() {
        for (key, v) in ["VX", "VY", "VZ"].iter().zip(p.velocity.iter()) {
            let _ = write!(s, ", {key} = {}", num(*v));
        }
    }
    s
}

/// `MARKER/id, POINT_MASS = n, …` for a marker on a point mass, or None.
pub(super) fn marker(k: &Marker) -> Option<String> {
    let id = point_mass_id(k.part)?;
    Some(format!(
        "MARKER/{}, POINT_MASS = {id}, {}",
        k.id,
        frame(&k.placement, "QP", "ZP", "XP")
    ))
}
