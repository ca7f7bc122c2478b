//! FRICTION/id, JOINT = id, MU_STATIC = r, MU_DYNAMIC = r
//! [, STICTION_TRANSITION_VELOCITY = r] [, MAX_STICTION_DEFORMATION = r]
//! [, EFFECT = ALL|STICTION|SLIDING]
//! [, INPUTS = ALL | NONE | (PRELOAD:REACTION_FORCE:BENDING_MOMENT:TORSIONAL_MOMENT)]
//! [, FRICTION_FORCE_PRELOAD = r] [, FRICTION_TORQUE_PRELOAD = r]
//! [, PIN_RADIUS = r] [, BALL_RADIUS = r] [, FRICTION_ARM = r]
//! [, BENDING_REACTION_ARM = r] [, REACTION_ARM = r]
//! [, INITIAL_OVERLAP = r] [, OVERLAP_DELTA = CONSTANT]
//! (Adams Solver FRICTION statement; the law is `mbsolve_mech::friction`).
//!
//! Arguments of the Adams statement that mbsolve does not honour are
//! refused by name with the reason: OVERLAP_DELTA = INCREASE/DECREASE,
//! TRANSITION_VELOCITY_COEFFICIENT. INACTIVE = STATIC is accepted: friction
//! never acts in mbsolve's static and quasi-static solutions. An argument that does not apply to the
//! joint's type (BALL_RADIUS on a REVOLUTE joint) is an error, checked once
//! every statement is read (the JOINT may come later in the file).

use super::{Builder, Space};
use crate::args::Args;
use crate::error::Pos;
use crate::syntax::Statement;
use crate::AdmError;
use mbsolve_model::{
    readable, ElementRef, Friction, FrictionEffect, FrictionInputs, Id, JointKind,
};

const KEYS: &[&str] = &[
    "JOINT",
    "MU_STATIC",
    "MU_DYNAMIC",
    "STICTION_TRANSITION_VELOCITY",
    "MAX_STICTION_DEFORMATION",
    "TRANSITION_VELOCITY_COEFFICIENT",
    "EFFECT",
    "INPUTS",
    "INACTIVE",
    "FRICTION_FORCE_PRELOAD",
    "FRICTION_TORQUE_PRELOAD",
    "PIN_RADIUS",
    "BALL_RADIUS",
    "FRICTION_ARM",
    "BENDING_REACTION_ARM",
    "REACTION_ARM",
    "INITIAL_OVERLAP",
    "OVERLAP_DELTA",
];

/// The arguments that apply to some joint types only, with those types.
const JOINT_SPECIFIC: &[(&str, &[JointKind])] = &[
    (
        "FRICTION_FORCE_PRELOAD",
        &[JointKind::Translational, JointKind::Cylindrical],
    ),
    (
        "FRICTION_TORQUE_PRELOAD",
        &[
            JointKind::Revolute,
            JointKind::Cylindrical,
            JointKind::Spherical,
            JointKind::Universal,
            JointKind::Hooke,
        ],
    ),
    (
        "PIN_RADIUS",
        &[
            JointKind::Revolute,
            JointKind::Cylindrical,
            JointKind::Universal,
            JointKind::Hooke,
        ],
    ),
    ("BALL_RADIUS", &[JointKind::Spherical]),
    (
        "FRICTION_ARM",
        &[JointKind::Revolute, JointKind::Universal, JointKind::Hooke],
    ),
    (
        "BENDING_REACTION_ARM",
        &[JointKind::Revolute, JointKind::Universal, JointKind::Hooke],
    ),
    ("REACTION_ARM", &[JointKind::Translational]),
    (
        "INITIAL_OVERLAP",
        &[JointKind::Translational, JointKind::Cylindrical],
    ),
    (
        "OVERLAP_DELTA",
        &[JointKind::Translational, JointKind::Cylindrical],
    ),
];

/// Whether a joint-specific argument applies to a joint type (true for an
/// argument every type takes).
pub(crate) fn friction_applies(key: &str, kind: JointKind) -> bool {
    JOINT_SPECIFIC
        .iter()
        .find(|(k, _)| *k == key)
        .is_none_or(|(_, kinds)| kinds.contains(&kind))
}

/// A FRICTION whose joint-type rules are checked in `finish`.
pub(super) struct PendingFriction {
    index: usize,
    pos: Pos,
    label: String,
    /// Joint-specific arguments given, with their positions.
    given: Vec<(&'static str, Pos)>,
    /// INPUTS named explicitly (not ALL), with the position of INPUTS.
    named_inputs: Option<(FrictionInputs, Pos)>,
}

/// The old Adams/View joint-friction arguments written on JOINT (the
/// bipendololeo corpus deck), separated by spaces.
const OLD_JOINT_FRICTION: &str = "DELTA_V MAXIMUM_DEFORMATION MU_DYN_ROT MU_STAT_ROT MAX_FRIC_ROT \
    MU_DYN_TRANS MU_STAT_TRANS MAX_FRIC_TRANS PRELOAD_RADIAL PRELOAD_AXIAL PRELOAD_X PRELOAD_Y \
    INNER_RADIUS OUTER_RADIUS HEIGHT WIDTH FRICTION";

impl Builder<'_> {
    pub(super) fn friction(
        &mut self,
        st: &Statement,
        label: String,
        id: Id,
    ) -> Result<(), AdmError> {
        // INACTIVE_DURING is Adams/View's name of INACTIVE, as exported decks
        // write it.
        let mut a = Args::new(
            self.file,
            st,
            label,
            KEYS,
            &[("INACTIVE_DURING", "INACTIVE")],
        )?;
        self.define(Space::Friction, id, st.pos, &a.label)?;
        let Some((joint, jpos)) = a.id("JOINT")? else {
            return Err(a.err_here("missing JOINT = the joint the friction acts in"));
        };
        self.refer(Space::Joint, joint, jpos, &a.label, "JOINT");
        // Refused: Adams arguments whose behaviour mbsolve does not have.
        if a.has("TRANSITION_VELOCITY_COEFFICIENT") {
            return Err(a.err(
                a.pos_of("TRANSITION_VELOCITY_COEFFICIENT"),
                "TRANSITION_VELOCITY_COEFFICIENT is not supported: the transition to dynamic friction ends at 1.5 × STICTION_TRANSITION_VELOCITY (Adams' friction regime determination)",
            ));
        }
        // INACTIVE = STATIC (Adams: no friction in static and quasi-static
        // solutions) is what mbsolve does for every FRICTION: its statics
        // evaluate the forces at u = 0, where the slip and so the friction
        // force vanish, and the force balance's Jacobian has no u columns.
        // NONE (the default: friction in every analysis) states what an
        // Adams/View export leaves unset.
        if let Some((w, p)) = a.word("INACTIVE")? {
            let w = w.to_ascii_uppercase();
            if !["STATIC", "NONE"].contains(&w.as_str()) {
                return Err(a.err(p, format!("bad INACTIVE '{w}' (STATIC or NONE)")));
            }
        }
        let number = |a: &mut Args, key: &str| -> Result<Option<(f64, Pos)>, AdmError> {
            let pos = a.pos_of(key);
            Ok(a.number(key)?.map(|v| (v, pos)))
        };
        let required = |a: &Args, v: Option<(f64, Pos)>, key: &str| {
            v.ok_or_else(|| a.err_here(format!("missing {key} =")))
        };
        let mu_static = number(&mut a, "MU_STATIC")?;
        let (mu_static, ps) = required(&a, mu_static, "MU_STATIC")?;
        let mu_dynamic = number(&mut a, "MU_DYNAMIC")?;
        let (mu_dynamic, pd) = required(&a, mu_dynamic, "MU_DYNAMIC")?;
        for (key, v, pos) in [("MU_STATIC", mu_static, ps), ("MU_DYNAMIC", mu_dynamic, pd)] {
            if v < 0.0 {
                return Err(a.err(
                    pos,
                    format!("{key} must not be negative, found {}", readable(v)),
                ));
            }
        }
        let mut fr = Friction::new(id, joint, mu_static, mu_dynamic);
        let mut given = Vec::new();
        let positive: [(&'static str, &mut f64); 8] = [
            (
                "STICTION_TRANSITION_VELOCITY",
                &mut fr.stiction_transition_velocity,
            ),
            ("PIN_RADIUS", &mut fr.pin_radius),
            ("BALL_RADIUS", &mut fr.ball_radius),
            ("FRICTION_ARM", &mut fr.friction_arm),
            ("BENDING_REACTION_ARM", &mut fr.bending_reaction_arm),
            ("REACTION_ARM", &mut fr.reaction_arm),
            ("INITIAL_OVERLAP", &mut fr.initial_overlap),
            ("FRICTION_FORCE_PRELOAD", &mut fr.force_preload),
        ];
        for (key, slot) in positive {
            if let Some((v, pos)) = number(&mut a, key)? {
                // Adams: every arm, radius and velocity > 0; a preload ≥ 0
                // (Adams writes "> 0"; zero is its default).
                let ok = if key == "FRICTION_FORCE_PRELOAD" {
                    v >= 0.0
                } else {
                    v > 0.0
                };
                if !ok {
                    let rule = if key == "FRICTION_FORCE_PRELOAD" {
                        "must not be negative"
                    } else {
                        "must be positive"
                    };
                    return Err(a.err(pos, format!("{key} {rule}, found {}", readable(v))));
                }
                *slot = v;
                given.push((key, pos));
            }
        }
        if let Some((v, pos)) = number(&mut a, "FRICTION_TORQUE_PRELOAD")? {
            if v < 0.0 {
                return Err(a.err(
                    pos,
                    format!(
                        "FRICTION_TORQUE_PRELOAD must not be negative, found {}",
                        readable(v)
                    ),
                ));
            }
            fr.torque_preload = v;
            given.push(("FRICTION_TORQUE_PRELOAD", pos));
        }
        if let Some((w, pos)) = a.word("OVERLAP_DELTA")? {
            match w.as_str() {
                "CONSTANT" => given.push(("OVERLAP_DELTA", pos)),
                "INCREASE" | "DECREASE" => {
                    return Err(a.err(pos, format!("OVERLAP_DELTA = {w} (an overlap that changes with the joint's travel) is not supported yet; CONSTANT is")))
                }
                other => return Err(a.err(pos, format!("OVERLAP_DELTA = {other}: expected CONSTANT, INCREASE or DECREASE"))),
            }
        }
        if let Some((w, pos)) = a.word("EFFECT")? {
            fr.effect = match w.as_str() {
                "ALL" => FrictionEffect::All,
                "STICTION" => FrictionEffect::Stiction,
                "SLIDING" => FrictionEffect::Sliding,
                other => {
                    return Err(a.err(
                        pos,
                        format!("EFFECT = {other}: expected ALL, STICTION or SLIDING"),
                    ))
                }
            };
        }
        let mut named_inputs = None;
        if a.has("INPUTS") {
            let pos = a.pos_of("INPUTS");
            let text = a.text("INPUTS")?.unwrap_or_default();
            let (inputs, named) = parse_inputs(&text).map_err(|m| a.err(pos, m))?;
            fr.inputs = inputs;
            if named {
                named_inputs = Some((inputs, pos));
            }
        }
        // MAX_STICTION_DEFORMATION: the stiction-deformation state
        // (mbsolve_mech::friction::stiction), with its range and the
        // EFFECT and coefficient combinations it needs.
        if let Some((v, pos)) = number(&mut a, "MAX_STICTION_DEFORMATION")? {
            fr.max_stiction_deformation = v;
            fr.check_deformation().map_err(|m| a.err(pos, m))?;
        }
        let label = a.label.clone();
        a.finish()?;
        self.friction_pending.push(PendingFriction {
            index: self.model.frictions.len(),
            pos: st.pos,
            label,
            given,
            named_inputs,
        });
        self.model.frictions.push(fr);
        self.source(ElementRef::Friction(id), st.pos);
        Ok(())
    }

    /// The joint-type rules of every FRICTION, once all JOINTs are known:
    /// a joint type Adams gives friction, arguments and INPUTS that apply to
    /// it. INPUTS = ALL is narrowed to what the joint has.
    pub(super) fn check_frictions(&mut self) -> Result<(), AdmError> {
        for p in std::mem::take(&mut self.friction_pending) {
            let joint = self.model.frictions[p.index].joint;
            let Some(kind) = self
                .model
                .joints
                .iter()
                .find(|j| j.id == joint)
                .map(|j| j.kind)
            else {
                continue; // a missing joint is reported by the reference check
            };
            if !matches!(
                kind,
                JointKind::Revolute
                    | JointKind::Translational
                    | JointKind::Cylindrical
                    | JointKind::Spherical
                    | JointKind::Universal
                    | JointKind::Hooke
            ) {
                return Err(self.err(p.pos, &p.label, format!(
                    "JOINT/{joint} is {}: Adams defines FRICTION on REVOLUTE, TRANSLATIONAL, CYLINDRICAL, SPHERICAL, UNIVERSAL and HOOKE joints only",
                    kind.name()
                )));
            }
            for (key, pos) in &p.given {
                if !friction_applies(key, kind) {
                    let kinds = JOINT_SPECIFIC
                        .iter()
                        .find(|(k, _)| k == key)
                        .map(|(_, v)| *v)
                        .unwrap_or(&[]);
                    let names: Vec<_> = kinds.iter().map(|k| k.name()).collect();
                    return Err(self.err(
                        *pos,
                        &p.label,
                        format!(
                            "{key} does not apply to JOINT/{joint}, a {} joint (it applies to {})",
                            kind.name(),
                            names.join(", ")
                        ),
                    ));
                }
            }
            let available = FrictionInputs::available(kind);
            if let Some((named, pos)) = p.named_inputs {
                for (on, have, name) in [
                    (
                        named.bending_moment,
                        available.bending_moment,
                        "BENDING_MOMENT",
                    ),
                    (
                        named.torsional_moment,
                        available.torsional_moment,
                        "TORSIONAL_MOMENT",
                    ),
                ] {
                    if on && !have {
                        return Err(self.err(
                            pos,
                            &p.label,
                            format!("INPUTS: a {} joint has no {name} input", kind.name()),
                        ));
                    }
                }
            }
            let inputs = &mut self.model.frictions[p.index].inputs;
            inputs.bending_moment &= available.bending_moment;
            inputs.torsional_moment &= available.torsional_moment;
        }
        Ok(())
    }

    /// JOINT with the old Adams/View friction arguments (DELTA_V,
    /// MU_DYN_ROT, …): refused naming the first one, with the FRICTION
    /// statement that replaces them. Their law (the creep bound
    /// MAXIMUM_DEFORMATION, the torque cap MAX_FRIC_ROT, radial and axial
    /// preloads over INNER_RADIUS and OUTER_RADIUS) is not documented in
    /// the Adams Solver reference we could consult, so mapping them would
    /// be a guess.
    pub(super) fn reject_old_joint_friction(&self, a: &Args) -> Result<(), AdmError> {
        let first = OLD_JOINT_FRICTION
            .split_whitespace()
            .filter(|k| a.has(k))
            .min_by_key(|k| {
                let p = a.pos_of(k);
                (p.line, p.col)
            });
        let Some(key) = first else { return Ok(()) };
        Err(a.err(
            a.pos_of(key),
            format!(
                "{key} is one of Adams/View's old joint-friction arguments (DELTA_V, MAXIMUM_DEFORMATION, MU_DYN_ROT, MU_STAT_ROT, MAX_FRIC_ROT, PRELOAD_RADIAL, PRELOAD_AXIAL, INNER_RADIUS, OUTER_RADIUS, …), whose law Adams Solver does not document; write a FRICTION statement instead (FRICTION/id, JOINT = id, MU_STATIC = MU_STAT_ROT, MU_DYNAMIC = MU_DYN_ROT, STICTION_TRANSITION_VELOCITY = DELTA_V, PIN_RADIUS = …)"
            ),
        ))
    }
}

/// INPUTS = ALL | NONE | (NAME:NAME:…) → the switches, and whether names
/// were listed (for the per-joint availability check).
fn parse_inputs(text: &str) -> Result<(FrictionInputs, bool), String> {
    let t = text.trim();
    let t = t.strip_prefix('(').unwrap_or(t);
    let t = t.strip_suffix(')').unwrap_or(t);
    let words: Vec<String> = t
        .split([':', ',', ' '])
        .map(|w| w.trim().to_ascii_uppercase())
        .filter(|w| !w.is_empty())
        .collect();
    match words.as_slice() {
        [w] if w == "ALL" => return Ok((FrictionInputs::ALL, false)),
        [w] if w == "NONE" => {
            return Ok((
                FrictionInputs {
                    preload: false,
                    reaction_force: false,
                    bending_moment: false,
                    torsional_moment: false,
                },
                false,
            ))
        }
        [] => {
            return Err("INPUTS needs ALL, NONE or a list such as (PRELOAD:REACTION_FORCE)".into())
        }
        _ => {}
    }
    let mut i = FrictionInputs {
        preload: false,
        reaction_force: false,
        bending_moment: false,
        torsional_moment: false,
    };
    for w in &words {
        let slot = match w.as_str() {
            "PRELOAD" => &mut i.preload,
            "REACTION_FORCE" => &mut i.reaction_force,
            "BENDING_MOMENT" => &mut i.bending_moment,
            "TORSIONAL_MOMENT" => &mut i.torsional_moment,
            other => {
                return Err(format!(
                    "INPUTS: unknown input {other} (ALL, NONE, or PRELOAD, REACTION_FORCE, BENDING_MOMENT, TORSIONAL_MOMENT separated by ':')"
                ))
            }
        };
        *slot = true;
    }
    Ok((i, true))
}
