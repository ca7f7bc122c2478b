//! SPLINE and STRING statements, as the builder reads them back.

use super::num;
use mbsolve_model::{Id, JointKind, Model, MotionDof, MotionInput, MotionIntegral};
use std::fmt::Write as _;

pub(super) fn write_data(o: &mut String, m: &Model) {
    for s in &m.splines {
        let xs: Vec<String> = s.x.iter().map(|v| num(*v)).collect();
        let _ = write!(o, "SPLINE/{}\n, X = {}", s.id, xs.join(", "));
        for (k, row) in s.y.iter().enumerate() {
            let mut vals: Vec<String> = Vec::with_capacity(row.len() + 1);
            if let Some(z) = &s.z {
                vals.push(num(z[k]));
            }
            vals.extend(row.iter().map(|v| num(*v)));
            let _ = write!(o, "\n, Y = {}", vals.join(", "));
        }
        if s.linear_extrapolate {
            let _ = write!(o, "\n, LINEAR_EXTRAPOLATE");
        }
        let _ = writeln!(o);
    }
    for s in &m.strings {
        let _ = writeln!(o, "STRING/{}, STRING = {}", s.id, s.text);
    }
}

/// `, IC = d, v` (REVOLUTE, TRANSLATIONAL) or `, ICTRAN = …, ICROT = …`
/// (CYLINDRICAL) for a joint's initial conditions; empty when it has none.
pub(super) fn joint_ic_args(m: &Model, joint: Id, kind: JointKind) -> String {
    let mut out = String::new();
    for ic in m.joint_ics.iter().filter(|ic| ic.joint == joint) {
        let key = match (kind, ic.dof) {
            (JointKind::Cylindrical, MotionDof::Translation) => "ICTRAN",
            (JointKind::Cylindrical, MotionDof::Rotation) => "ICROT",
            _ => "IC",
        };
        let _ = write!(out, ", {key} = {}", num(ic.displacement));
        if let Some(v) = ic.velocity {
            let _ = write!(out, ", {}", num(v));
        }
    }
    out
}

/// `, VELOCITY, ICDISP = …` or `, ACCELERATION, ICDISP = …, ICVEL = …`.
pub(super) fn motion_integral_args(spec: Option<MotionIntegral>) -> String {
    match spec {
        None => String::new(),
        Some(s) => match s.input {
            MotionInput::Velocity => format!(", VELOCITY, ICDISP = {}", num(s.icdisp)),
            MotionInput::Acceleration => format!(
                ", ACCELERATION, ICDISP = {}, ICVEL = {}",
                num(s.icdisp),
                num(s.icvel)
            ),
        },
    }
}
