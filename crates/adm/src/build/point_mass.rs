//! POINT_MASS/id, MASS = m, CM = id, QG = x, y, z, REULER = a, b, c (or
//! XG/ZG), VX = …, VY = …, VZ = … (Adams Solver POINT_MASS statement), and
//! markers on one (`MARKER/id, POINT_MASS = id, QP = …`). Point masses
//! have an id space of their own: POINT_MASS/1 and PART/1 are two bodies
//! (see `mbsolve_model::point_mass`).

use super::{Builder, Space};
use crate::args::Args;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::point_mass::{key, point_mass, MAX_ID};
use mbsolve_model::{ElementRef, Id, Placement};
use nalgebra::Vector3;

/// What POINT_MASS takes. EXACT (coordinates held during the initial
/// conditions) is read by the argument parser and, like a PART's EXACT,
/// refused by name: the initial-condition analysis does not hold body
/// coordinates.
pub(super) const POINT_MASS_KEYS: &[&str] = &[
    "MASS", "CM", "QG", "REULER", "XG", "ZG", "VX", "VY", "VZ", "EXACT",
];

impl Builder<'_> {
    pub(super) fn point_mass(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
    ) -> Result<(), AdmError> {
        let mut a = Args::new(self.file, st, label, POINT_MASS_KEYS, &[])?;
        self.body_id_in_range(&a, id)?;
        self.define(Space::PointMass, id, st.pos, &a.label.clone())?;
        let mass = a.number("MASS")?.unwrap_or(0.0);
        if !(mass.is_finite() && mass >= 0.0) {
            return Err(a.err(
                a.pos_of("MASS"),
                format!("MASS must be ≥ 0, found {}", mbsolve_model::readable(mass)),
            ));
        }
        let cm = self.marker_arg(&mut a, "CM")?;
        let qg = a.vec3("QG")?.unwrap_or_else(Vector3::zeros);
        let rotation = super::orientation(&mut a, "REULER", "ZG", "XG", qg)?;
        // VX, VY, VZ: the CM's velocity in ground axes (Adams POINT_MASS).
        let mut v = Vector3::zeros();
        for (k, c) in ["VX", "VY", "VZ"].iter().enumerate() {
            v[k] = a.number(c)?.unwrap_or(0.0);
        }
        a.finish()?;
        let mut pm = point_mass(id, mass, Placement::new(qg, rotation), v);
        pm.cm = cm;
        self.model.parts.push(pm);
        self.source(ElementRef::Part(key(id)), st.pos);
        Ok(())
    }

    /// PART and POINT_MASS ids below 2³¹, so that the two id spaces can
    /// share `Model::parts` (`mbsolve_model::point_mass`).
    pub(super) fn body_id_in_range(&self, a: &Args, id: Id) -> Result<(), AdmError> {
        if id >= MAX_ID {
            return Err(a.err_here(format!(
                "id {id} is too large: PART and POINT_MASS ids must be below {MAX_ID}"
            )));
        }
        Ok(())
    }

    /// A marker's `POINT_MASS = id`: the point mass's key in the part id
    /// space, or None when the marker names no point mass (then it needs
    /// PART =).
    pub(super) fn marker_point_mass(&mut self, a: &mut Args) -> Result<Option<Id>, AdmError> {
        let Some((pm, pos)) = a.id("POINT_MASS")? else {
            return Ok(None);
        };
        if a.has("PART") {
            return Err(a.err(pos, "a marker is on a PART or on a POINT_MASS, not on both"));
        }
        if pm >= MAX_ID {
            return Err(a.err(pos, format!("POINT_MASS {pm} does not exist")));
        }
        let label = a.label.clone();
        self.refer(Space::PointMass, pm, pos, &label, "POINT_MASS");
        Ok(Some(key(pm)))
    }
}
