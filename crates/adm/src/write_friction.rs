//! FRICTION statements for `write_adm`: every argument that applies to the
//! joint's type, to full precision, so that reading the text back gives
//! the same `Friction`.

use crate::build::friction_applies;
use crate::write::num;
use mbsolve_model::{FrictionEffect, Model};

/// One line per FRICTION; Err names a friction whose joint is missing.
pub(crate) fn lines(m: &Model) -> Result<String, String> {
    let mut o = String::new();
    for f in &m.frictions {
        let Some(kind) = m.joints.iter().find(|j| j.id == f.joint).map(|j| j.kind) else {
            return Err(format!(
                "FRICTION/{}: JOINT/{} does not exist",
                f.id, f.joint
            ));
        };
        let mut args = vec![
            format!("FRICTION/{}, JOINT = {}", f.id, f.joint),
            format!("MU_STATIC = {}", num(f.mu_static)),
            format!("MU_DYNAMIC = {}", num(f.mu_dynamic)),
            format!(
                "STICTION_TRANSITION_VELOCITY = {}",
                num(f.stiction_transition_velocity)
            ),
        ];
        if f.max_stiction_deformation > 0.0 {
            args.push(format!(
                "MAX_STICTION_DEFORMATION = {}",
                num(f.max_stiction_deformation)
            ));
        }
        if f.effect != FrictionEffect::All {
            args.push(format!("EFFECT = {}", f.effect.name()));
        }
        let names = f.inputs.names();
        if names.is_empty() {
            args.push("INPUTS = NONE".into());
        } else if f.inputs != mbsolve_model::FrictionInputs::available(kind) {
            args.push(format!("INPUTS = ({})", names.join(":")));
        }
        for (key, v) in [
            ("FRICTION_FORCE_PRELOAD", f.force_preload),
            ("FRICTION_TORQUE_PRELOAD", f.torque_preload),
            ("PIN_RADIUS", f.pin_radius),
            ("BALL_RADIUS", f.ball_radius),
            ("FRICTION_ARM", f.friction_arm),
            ("BENDING_REACTION_ARM", f.bending_reaction_arm),
            ("REACTION_ARM", f.reaction_arm),
            ("INITIAL_OVERLAP", f.initial_overlap),
        ] {
            if friction_applies(key, kind) {
                args.push(format!("{key} = {}", num(v)));
            }
        }
        o.push_str(&args.join("\n, "));
        o.push('\n');
    }
    Ok(o)
}
