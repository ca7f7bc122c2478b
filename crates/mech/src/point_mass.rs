//! POINT_MASS in the rigid-body kernel (model: `mbsolve_model::point_mass`).
//!
//! A point mass is a kernel body like a part (q = (r, p), seven
//! coordinates) whose orientation is held at its initial value by three
//! orientation rows against ground, the rows of a JPRIM/ORIENTATION
//! (z_I·x_J, z_I·y_J, x_I·y_J): 7 coordinates − 1 normalization − 3
//! orientation rows leave Adams' three translational degrees of freedom,
//! and markers on it keep their orientation in ground (Adams POINT_MASS).
//! Every formulation (I3, SI2, SI1, the ODE form) takes the rows like a
//! joint's, so no formulation knows about point masses.
//!
//! With the orientation held, ω ≡ 0: the rotational body equations reduce
//! to J·0 = (torques) + Φ_pᵀλ and the orientation multipliers take up any
//! torque (of a joint reaction at a marker off the CM, say), as a point
//! without rotation would ignore it. The rotational inertia J therefore
//! never enters the motion; it only keeps the rotational block of the
//! Newton matrix regular, so it is set to m·(1 length unit)² (0 for a
//! massless point mass, which its constraints must then fix like a
//! massless part).

use crate::system::{Body, Equation, MarkerFrame, Primitive};
use mbsolve_model::point_mass::is_point_mass;
use mbsolve_model::{ElementRef, Part};
use nalgebra::{Matrix3, Vector3, Vector4};

/// The kernel inertia of a part: its IP, or the nominal m·1 of a point mass.
pub fn body_inertia(p: &Part) -> Matrix3<f64> {
    if is_point_mass(p.id) {
        Matrix3::identity() * p.mass
    } else {
        p.inertia.matrix()
    }
}

/// The orientation rows of every point-mass body, holding its body frame at
/// its orientation in `q0` (the input configuration).
pub(crate) fn orientation_rows(bodies: &[Body], q0: &[f64], eqs: &mut Vec<Equation>) {
    const AX: [&str; 3] = ["X", "Y", "Z"];
    for (b, body) in bodies.iter().enumerate() {
        if !is_point_mass(body.part) {
            continue;
        }
        let o = 7 * b;
        let p0 = Vector4::new(q0[o + 3], q0[o + 4], q0[o + 5], q0[o + 6]);
        // I: the body frame itself; J: a ground frame with the body frame's
        // initial axes. Neither is a model marker (id 0).
        let i = MarkerFrame {
            id: 0,
            body: Some(b),
            s: Vector3::zeros(),
            axes: Matrix3::identity(),
        };
        let j = MarkerFrame {
            id: 0,
            body: None,
            s: Vector3::zeros(),
            axes: crate::rotation::rot(&p0),
        };
        for (ai, aj) in [(2, 0), (2, 1), (0, 1)] {
            eqs.push(Equation {
                element: ElementRef::Part(body.part),
                name: format!("fixed orientation {}i.{}j", AX[ai], AX[aj]),
                prim: Primitive::Dot1 { i, ai, j, aj },
            });
        }
    }
}
