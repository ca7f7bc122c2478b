//! Joint friction (Adams FRICTION statement): Coulomb friction with a
//! velocity-based stiction transition on a REVOLUTE, TRANSLATIONAL,
//! CYLINDRICAL, SPHERICAL, UNIVERSAL or HOOKE joint, whose normal load comes
//! from the joint's reactions (and preloads). The law is in
//! `mbsolve_mech::friction`.

use crate::{Id, JointKind};

/// EFFECT = ALL | STICTION | SLIDING (Adams FRICTION): which friction
/// regimes the law includes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrictionEffect {
    /// Stiction below STICTION_TRANSITION_VELOCITY, sliding above.
    All,
    /// Static friction only (no force once the joint slides).
    Stiction,
    /// Dynamic friction only (MU_DYNAMIC at every slip speed).
    Sliding,
}

impl FrictionEffect {
    pub fn name(self) -> &'static str {
        match self {
            FrictionEffect::All => "ALL",
            FrictionEffect::Stiction => "STICTION",
            FrictionEffect::Sliding => "SLIDING",
        }
    }
}

/// INPUTS = ALL | NONE | (PRELOAD:REACTION_FORCE:BENDING_MOMENT:TORSIONAL_MOMENT):
/// the loads the friction law reads (Adams' switches SW1…SW4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrictionInputs {
    pub preload: bool,
    pub reaction_force: bool,
    pub bending_moment: bool,
    pub torsional_moment: bool,
}

impl FrictionInputs {
    pub const ALL: FrictionInputs = FrictionInputs {
        preload: true,
        reaction_force: true,
        bending_moment: true,
        torsional_moment: true,
    };
    /// The inputs a joint type has (Adams INPUTS: PRELOAD, REACTION_FORCE,
    /// BENDING_MOMENT, TORSIONAL_MOMENT). A torsional moment enters only
    /// where the joint slides along its axis and holds the rotation about
    /// it (TRANSLATIONAL); a spherical joint carries no moment. (Adams'
    /// availability table was not readable to us; this follows the loads
    /// of each joint's block diagram.)
    pub fn available(kind: JointKind) -> FrictionInputs {
        let mut i = FrictionInputs::ALL;
        match kind {
            JointKind::Translational => {}
            JointKind::Spherical => {
                i.bending_moment = false;
                i.torsional_moment = false;
            }
            _ => i.torsional_moment = false,
        }
        i
    }

    /// The selected input names in Adams' order.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        for (on, name) in [
            (self.preload, "PRELOAD"),
            (self.reaction_force, "REACTION_FORCE"),
            (self.bending_moment, "BENDING_MOMENT"),
            (self.torsional_moment, "TORSIONAL_MOMENT"),
        ] {
            if on {
                v.push(name);
            }
        }
        v
    }
}

/// FRICTION/id on JOINT = `joint`. Lengths and loads in model units; the
/// arguments that do not apply to the joint's type keep their defaults and
/// are not read (the reader refuses them by name).
#[derive(Clone, Debug, PartialEq)]
pub struct Friction {
    pub id: Id,
    pub joint: Id,
    pub mu_static: f64,
    pub mu_dynamic: f64,
    /// Slip speed (on the contact surface) below which stiction acts.
    pub stiction_transition_velocity: f64,
    /// MAX_STICTION_DEFORMATION: the largest creep (surface displacement)
    /// of the stiction regime. 0 = no deformation state: the
    /// velocity-regularized stiction (`mbsolve_mech::friction`); > 0 adds a
    /// stiction-deformation state per slip component
    /// (`mbsolve_mech::stiction`).
    pub max_stiction_deformation: f64,
    pub effect: FrictionEffect,
    pub inputs: FrictionInputs,
    /// FRICTION_FORCE_PRELOAD (TRANSLATIONAL, CYLINDRICAL).
    pub force_preload: f64,
    /// FRICTION_TORQUE_PRELOAD (REVOLUTE, CYLINDRICAL, SPHERICAL, UNIVERSAL, HOOKE).
    pub torque_preload: f64,
    /// PIN_RADIUS Rp (REVOLUTE, CYLINDRICAL, UNIVERSAL, HOOKE).
    pub pin_radius: f64,
    /// BALL_RADIUS (SPHERICAL).
    pub ball_radius: f64,
    /// FRICTION_ARM Rn: arm of the axial force (REVOLUTE, UNIVERSAL, HOOKE).
    pub friction_arm: f64,
    /// BENDING_REACTION_ARM: arm converting the bending moment into a load
    /// (REVOLUTE, UNIVERSAL, HOOKE).
    pub bending_reaction_arm: f64,
    /// REACTION_ARM: arm converting the torsional moment into a load
    /// (TRANSLATIONAL).
    pub reaction_arm: f64,
    /// INITIAL_OVERLAP Xs0: the bending moment divided by it is a load
    /// (TRANSLATIONAL, CYLINDRICAL; OVERLAP_DELTA = CONSTANT).
    pub initial_overlap: f64,
}

impl Friction {
    /// Adams' defaults (FRICTION statement, Adams Solver C++ reference):
    /// arms and radii 1.0, STICTION_TRANSITION_VELOCITY 0.1, preloads 0,
    /// no MAX_STICTION_DEFORMATION (no deformation state),
    /// EFFECT = ALL, INPUTS = ALL. The coefficients have no default there
    /// that we could confirm; callers give them.
    pub fn new(id: Id, joint: Id, mu_static: f64, mu_dynamic: f64) -> Friction {
        Friction {
            id,
            joint,
            mu_static,
            mu_dynamic,
            stiction_transition_velocity: 0.1,
            max_stiction_deformation: 0.0,
            effect: FrictionEffect::All,
            inputs: FrictionInputs::ALL,
            force_preload: 0.0,
            torque_preload: 0.0,
            pin_radius: 1.0,
            ball_radius: 1.0,
            friction_arm: 1.0,
            bending_reaction_arm: 1.0,
            reaction_arm: 1.0,
            initial_overlap: 1.0,
        }
    }

    /// The range and combination rules of MAX_STICTION_DEFORMATION
    /// (`mbsolve_mech::friction::stiction`): not negative; with a
    /// deformation EFFECT = ALL and MU_STATIC, MU_DYNAMIC > 0. Ok for a
    /// friction without it.
    pub fn check_deformation(&self) -> Result<(), String> {
        let d = self.max_stiction_deformation;
        if !(d >= 0.0 && d.is_finite()) {
            return Err(format!(
                "MAX_STICTION_DEFORMATION must not be negative, found {}",
                crate::readable(d)
            ));
        }
        if d == 0.0 {
            return Ok(());
        }
        match self.effect {
            FrictionEffect::All => {}
            FrictionEffect::Stiction => return Err("MAX_STICTION_DEFORMATION with EFFECT = STICTION is not supported: the deformation state needs a friction coefficient when sliding, which EFFECT = STICTION takes away".into()),
            FrictionEffect::Sliding => return Err("MAX_STICTION_DEFORMATION with EFFECT = SLIDING is not supported: EFFECT = SLIDING has no stiction regime for the deformation to act in".into()),
        }
        if self.mu_static <= 0.0 || self.mu_dynamic <= 0.0 {
            return Err(format!(
                "MAX_STICTION_DEFORMATION needs MU_STATIC > 0 and MU_DYNAMIC > 0 (the deformation relaxes at a rate ∝ MU_STATIC/MU_DYNAMIC), found {} and {}",
                crate::readable(self.mu_static),
                crate::readable(self.mu_dynamic)
            ));
        }
        Ok(())
    }
}
