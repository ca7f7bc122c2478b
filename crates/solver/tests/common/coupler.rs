//! Model pieces and the turn measure shared by the COUPLER tests.

use mbsolve_model::*;
use nalgebra::Vector4;
use std::f64::consts::TAU;
use std::sync::Arc;

pub fn marker(m: &mut Model, id: Id, part: Id, placement: Placement) {
    m.markers.push(Marker {
        id,
        part,
        placement,
    });
}

/// PART/id of unit mass (inertia 0.1, 0.1, 0.2) at `at`, its CM marker
/// 10·id at the part's origin.
pub fn body(m: &mut Model, id: Id, at: [f64; 3]) {
    let mut b = Part::body(
        id,
        1.0,
        Inertia::diagonal(0.1, 0.1, 0.2),
        Placement::at(at[0], at[1], at[2]),
    );
    b.cm = Some(10 * id);
    m.parts.push(b);
    marker(m, 10 * id, id, Placement::default());
}

pub fn joint(m: &mut Model, id: Id, kind: JointKind, i: Id, j: Id) {
    m.joints.push(Joint { id, kind, i, j });
}

/// Ramp motion a·t (value, rate, acceleration).
pub fn ramp(a: f64) -> Arc<dyn TimeFunction> {
    Arc::new(TimeFn(move |t: f64| [a * t, a, 0.0]))
}

/// Turn of body `b` about ground z, continued from the previous value.
pub fn turn(q: &[f64], b: usize, previous: f64) -> f64 {
    let o = 7 * b;
    let a = mbsolve_mech::rotation::rot(&Vector4::new(q[o + 3], q[o + 4], q[o + 5], q[o + 6]));
    let raw = a[(1, 0)].atan2(a[(0, 0)]);
    raw + TAU * ((previous - raw) / TAU).round()
}
