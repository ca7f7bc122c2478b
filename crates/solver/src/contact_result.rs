//! CONTACT(id, jflag, comp, rm) for requests: the total contact force on
//! the I part (jflag 0) or the J part (jflag 1), summed over the contact
//! points, in the axes of marker rm (ground when 0). In a kinematic
//! analysis (`non_dynamic`) COULOMB_FRICTION = DYNAMICS_ONLY friction is
//! left out, as it is from the force the residual applies.

use mbsolve_expr::{EvalError, MeasureCall};
use mbsolve_mech::System;
use nalgebra::Matrix3;

pub fn component(
    sys: &System,
    q: &[f64],
    u: &[f64],
    non_dynamic: bool,
    m: &MeasureCall,
    rm_axes: &Matrix3<f64>,
) -> Result<f64, EvalError> {
    let id = m.args.first().copied().unwrap_or(0);
    let jflag = m.args.get(1).copied().unwrap_or(0);
    let comp = m.args.get(2).copied().unwrap_or(0);
    let c = sys
        .contacts
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| EvalError::new(format!("CONTACT/{id} does not exist")))?;
    let (on_j, _) = c.force_on_j_in(q, u, non_dynamic);
    let f = match jflag {
        0 => -on_j,
        1 => on_j,
        _ => {
            return Err(EvalError::new(format!(
                "CONTACT: jflag must be 0 (I geometry) or 1 (J geometry), got {jflag}"
            )))
        }
    };
    let f = rm_axes.transpose() * f;
    match comp {
        1 => Ok(f.norm()),
        2..=4 => Ok(f[comp as usize - 2]),
        5..=8 => Err(EvalError::new(
            "CONTACT: torque components (5–8) are not supported yet",
        )),
        _ => Err(EvalError::new(format!(
            "CONTACT: component must be 1…4 (1 force magnitude, 2–4 force x y z), got {comp}"
        ))),
    }
}
