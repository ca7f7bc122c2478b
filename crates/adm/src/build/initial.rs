//! JOINT IC=, ICTRAN=, ICROT= (joint initial conditions) and MOTION
//! VELOCITY|ACCELERATION with ICDISP, ICVEL (Adams JOINT and MOTION
//! statements).

use super::Builder;
use crate::args::{parse_number, Args};
use crate::AdmError;
use mbsolve_model::{
    Id, IntegratedMotion, JointIc, JointKind, MotionDof, MotionInput, MotionIntegral,
};
use std::sync::Arc;

/// IC on a REVOLUTE joint: an angle and an angular velocity, so the degree
/// suffix applies (`IC = 30D, 0`), as it does for ICROT.
fn rotation_ic(a: &mut Args, pos: crate::error::Pos) -> Result<Vec<f64>, AdmError> {
    let text = a.text("IC")?.unwrap_or_default();
    let items: Vec<&str> = text.split(',').map(str::trim).collect();
    if items.is_empty() || items.len() > 2 || items.iter().any(|t| t.is_empty()) {
        return Err(a.err(
            pos,
            format!("IC takes 1 or 2 values, found {}", items.len()),
        ));
    }
    items
        .iter()
        .map(|t| parse_number(t, true).map_err(|_| a.err(pos, format!("bad number '{t}' for IC"))))
        .collect()
}

impl Builder<'_> {
    /// IC = displacement[, velocity] on a REVOLUTE (rotation) or
    /// TRANSLATIONAL (translation) joint; ICTRAN and ICROT on a CYLINDRICAL
    /// joint (and the matching one of a REVOLUTE or TRANSLATIONAL). Held
    /// during the initial-condition analysis only (`JointIc`).
    pub(super) fn joint_ics(
        &mut self,
        a: &mut Args,
        joint: Id,
        kind: Option<JointKind>,
    ) -> Result<(), AdmError> {
        for key in ["IC", "ICTRAN", "ICROT"] {
            if !a.has(key) {
                continue;
            }
            let pos = a.pos_of(key);
            let dof = match (key, kind) {
                ("IC", Some(JointKind::Revolute)) | ("ICROT", Some(JointKind::Revolute)) => {
                    MotionDof::Rotation
                }
                ("IC", Some(JointKind::Translational))
                | ("ICTRAN", Some(JointKind::Translational)) => MotionDof::Translation,
                ("ICTRAN", Some(JointKind::Cylindrical)) => MotionDof::Translation,
                ("ICROT", Some(JointKind::Cylindrical)) => MotionDof::Rotation,
                ("IC", Some(JointKind::Cylindrical)) => {
                    return Err(a.err(
                        pos,
                        "a CYLINDRICAL joint has two degrees of freedom: give ICTRAN and ICROT instead of IC",
                    ))
                }
                _ => {
                    let name = kind.map(|k| k.name()).unwrap_or("this");
                    return Err(a.err(
                        pos,
                        format!(
                            "{key} (initial displacement and velocity) applies to REVOLUTE, TRANSLATIONAL and CYLINDRICAL joints, not to a {name} joint"
                        ),
                    ));
                }
            };
            let v = if key == "IC" && dof == MotionDof::Rotation {
                rotation_ic(a, pos)?
            } else {
                a.numbers_range(key, 1, 2)?.unwrap_or_default()
            };
            if self
                .model
                .joint_ics
                .iter()
                .any(|ic| ic.joint == joint && ic.dof == dof)
            {
                return Err(a.err(
                    pos,
                    format!("{key} repeats an initial condition already given"),
                ));
            }
            self.model.joint_ics.push(JointIc {
                joint,
                dof,
                displacement: v.first().copied().unwrap_or(0.0),
                velocity: v.get(1).copied(),
            });
        }
        Ok(())
    }

    /// VELOCITY or ACCELERATION with ICDISP (and ICVEL for ACCELERATION),
    /// recorded for the motion about to be pushed; its displacement
    /// function is built in `integrate_motions` once every function is
    /// final (VARVAL resolution and .acf redefinitions replace them).
    pub(super) fn motion_integral(&mut self, a: &mut Args) -> Result<(), AdmError> {
        let mut input = None;
        for (key, kind) in [
            ("VELOCITY", MotionInput::Velocity),
            ("ACCELERATION", MotionInput::Acceleration),
        ] {
            if a.flag(key)? {
                if input.is_some() {
                    return Err(a.err(
                        a.pos_of(key),
                        "DISPLACEMENT, VELOCITY and ACCELERATION are exclusive",
                    ));
                }
                input = Some(kind);
            }
        }
        let displacement = a.flag("DISPLACEMENT")?;
        if displacement && input.is_some() {
            return Err(a.err(
                a.pos_of("DISPLACEMENT"),
                "DISPLACEMENT, VELOCITY and ACCELERATION are exclusive",
            ));
        }
        // A rotational motion's ICDISP is an angle and its ICVEL an angular
        // velocity: `D` reads degrees there (`ICDISP = 0D`, real decks).
        let rotational = ["ROTATION", "B1", "B2", "B3"].iter().any(|k| a.has(k));
        let (icdisp, icvel) = if rotational {
            (a.angle_number("ICDISP")?, a.angle_number("ICVEL")?)
        } else {
            (a.number("ICDISP")?, a.number("ICVEL")?)
        };
        match input {
            None => {
                for (key, given) in [("ICDISP", icdisp.is_some()), ("ICVEL", icvel.is_some())] {
                    if given {
                        return Err(a.err(
                            a.pos_of(key),
                            format!("{key} applies to a VELOCITY or ACCELERATION motion"),
                        ));
                    }
                }
            }
            Some(MotionInput::Velocity) if icvel.is_some() => {
                return Err(a.err(
                    a.pos_of("ICVEL"),
                    "ICVEL applies to an ACCELERATION motion (a VELOCITY motion's function gives its velocity)",
                ))
            }
            Some(input) => self.motion_integrals.push((
                self.model.motions.len(),
                MotionIntegral {
                    input,
                    icdisp: icdisp.unwrap_or(0.0),
                    icvel: icvel.unwrap_or(0.0),
                },
            )),
        }
        Ok(())
    }

    /// Wrap each VELOCITY/ACCELERATION motion's final function in its
    /// displacement integral.
    pub(super) fn integrate_motions(&mut self) {
        for (k, spec) in std::mem::take(&mut self.motion_integrals) {
            let m = &mut self.model.motions[k];
            m.function = Arc::new(IntegratedMotion::new(m.function.clone(), spec));
        }
    }
}
