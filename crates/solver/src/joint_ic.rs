//! JOINT IC=, ICTRAN=, ICROT= (Adams): the joint's displacement, and its
//! velocity when given, are held during the initial-condition analysis and
//! released for the analyses that follow.
//!
//! Each held degree of freedom is, for the initial-condition solve only, a
//! motion d + v·(t − t₀) on the joint: positions are assembled with every
//! IC held, then velocities with the ICs that give a velocity held. The
//! state found satisfies every constraint of the model, so the model's own
//! initial-condition solve that follows keeps it (positions nearest q₀,
//! velocities nearest u₀) and then finds accelerations and forces with the
//! ICs released. An IC on a degree of freedom a MOTION drives is left to
//! the MOTION (it fixes that coordinate for all time).

use crate::analysis::{Simulation, SolverError};
use mbsolve_model::{JointIc, Motion, MotionTarget, TimeFunction};
use std::sync::Arc;

/// d + v·(t − t₀), the held joint coordinate.
#[derive(Debug)]
struct Held {
    displacement: f64,
    velocity: f64,
    t0: f64,
}

impl TimeFunction for Held {
    fn eval(&self, t: f64) -> [f64; 3] {
        [
            self.displacement + self.velocity * (t - self.t0),
            self.velocity,
            0.0,
        ]
    }
}

/// Positions q and velocities u.
type State = (Vec<f64>, Vec<f64>);

/// Positions and velocities with the model's joint ICs held, or None when
/// it has none (to hold).
pub(crate) fn held_start(sim: &Simulation) -> Result<Option<State>, SolverError> {
    let driven = |ic: &JointIc| {
        sim.model.motions.iter().any(|m| {
            matches!(m.target, MotionTarget::Joint { joint, dof } if joint == ic.joint && dof == ic.dof)
        })
    };
    let ics: Vec<&JointIc> = sim
        .model
        .joint_ics
        .iter()
        .filter(|ic| !driven(ic))
        .collect();
    if ics.is_empty() {
        return Ok(None);
    }
    let q = solve_held(sim, &ics, false, &sim.state.q, &sim.state.u)?.0;
    let u = if ics.iter().any(|ic| ic.velocity.is_some()) {
        solve_held(sim, &ics, true, &q, &sim.state.u)?.1
    } else {
        sim.state.u.clone()
    };
    Ok(Some((q, u)))
}

/// The initial-condition solve of the model with the ICs added as motions
/// (only those giving a velocity when `velocity_only`), from (q0, u0).
fn solve_held(
    sim: &Simulation,
    ics: &[&JointIc],
    velocity_only: bool,
    q0: &[f64],
    u0: &[f64],
) -> Result<State, SolverError> {
    let mut model = sim.model.clone();
    model.joint_ics.clear();
    let mut next = model.motions.iter().map(|m| m.id).max().unwrap_or(0);
    let mut names = Vec::new();
    for ic in ics {
        if velocity_only && ic.velocity.is_none() {
            continue;
        }
        next += 1;
        names.push((next, ic.joint));
        model.motions.push(Motion::on_joint(
            next,
            ic.joint,
            ic.dof,
            Arc::new(Held {
                displacement: ic.displacement,
                velocity: ic.velocity.unwrap_or(0.0),
                t0: sim.state.t,
            }),
        ));
    }
    // a message about a held coordinate names the joint, not the
    // stand-in motion
    let rename = |e: SolverError| -> SolverError {
        let fix = |s: String| {
            names.iter().rev().fold(s, |s, (m, j)| {
                s.replace(
                    &format!("MOTION/{m}"),
                    &format!("the initial condition of JOINT/{j}"),
                )
            })
        };
        match e {
            SolverError::Assembly(s) => SolverError::Assembly(fix(s)),
            other => other,
        }
    };
    let mut held = Simulation::new(&model).map_err(rename)?;
    held.state.t = sim.state.t;
    held.state.q = q0.to_vec();
    held.state.u = u0.to_vec();
    held.initial_conditions().map_err(rename)?;
    Ok((held.state.q, held.state.u))
}
