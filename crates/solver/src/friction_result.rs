//! Joint FRICTION in the joint's force results (FORCE requests between the
//! joint's markers, JOINT results): Adams reports the total force the
//! joint transmits, its constraint reaction plus the friction acting in it
//! (issue 17). The friction wrench is the element's generalized force on
//! its two parts, evaluated at the frame's (q, u, λ) as in the residual.

use crate::analysis::Frame;
use crate::requests::add_generalized;
use mbsolve_mech::friction::FrictionAt;
use mbsolve_mech::local::NL;
use mbsolve_mech::System;
use mbsolve_model::Id;
use nalgebra::Vector3;

/// What joint friction reads of a frame: (q, u, λ, t) and the user
/// states (stiction deformations).
pub(crate) fn friction_at(frame: &Frame) -> FrictionAt<'_> {
    FrictionAt {
        q: &frame.q,
        u: &frame.u,
        lam: &frame.lambda,
        t: frame.t,
        w: &frame.w,
    }
}

/// Adds to (f, n) the friction wrench on part `target` about `x` of every
/// FRICTION whose joint `selected` accepts (by joint id).
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_joint_friction(
    sys: &System,
    frame: &Frame,
    target: Option<usize>,
    x: &Vector3<f64>,
    f: &mut Vector3<f64>,
    n: &mut Vector3<f64>,
    selected: impl Fn(Id) -> bool,
) {
    let at = friction_at(frame);
    for fr in sys.frictions.iter().filter(|fr| selected(fr.joint)) {
        let q = fr.local_force(sys, &at);
        let mut gen = [0.0; NL];
        gen.copy_from_slice(q.as_slice());
        // Friction is internal to the joint: equal and opposite on the
        // two parts (a reaction, also seen from ground).
        add_generalized(frame, [fr.i.body, fr.j.body], target, true, &gen, x, f, n);
    }
}
