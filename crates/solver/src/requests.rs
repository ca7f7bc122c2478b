//! REQUEST output: DISPLACEMENT, VELOCITY, ACCELERATION and FORCE requests
//! evaluated on a solution frame, in Adams' conventions (seeds: REQUEST):
//! translational components of marker I relative to marker J (ground origin
//! when J is absent), time derivatives taken in the ground frame, everything
//! resolved in the RM marker's axes (ground when RM is absent); angles are
//! the body-fixed 3-1-3 Euler angles of I's axes relative to J's, in degrees.

use crate::analysis::Frame;
use mbsolve_mech::local::NL;
use mbsolve_mech::rotation::{e_mat, rot};
use mbsolve_mech::System;
use mbsolve_model::{ElementRef, Id, Model, Request, RequestKind};
use nalgebra::{Matrix3, Vector3, Vector4};

/// Column suffixes of each request kind, in output order.
pub fn component_names(kind: RequestKind) -> [&'static str; 6] {
    match kind {
        RequestKind::Displacement => ["x", "y", "z", "psi", "theta", "phi"],
        RequestKind::Velocity => ["vx", "vy", "vz", "wx", "wy", "wz"],
        RequestKind::Acceleration => ["ax", "ay", "az", "wdx", "wdy", "wdz"],
        RequestKind::Force => ["fx", "fy", "fz", "tx", "ty", "tz"],
    }
}

/// Column headers (`request_<id>.<component>`) of the requests that are
/// written, in model order, and notes about anything left out.
pub fn columns(model: &Model) -> (Vec<String>, Vec<String>) {
    let mut header = Vec::new();
    for r in &model.requests {
        for c in component_names(r.kind) {
            header.push(format!("request_{}.{c}", r.id));
        }
    }
    let mut notes = Vec::new();
    for f in &model.function_requests {
        notes.push(format!(
            "REQUEST/{}: function requests (F1..F8) are not computed yet; no columns written",
            f.id
        ));
    }
    (header, notes)
}

/// Position, orientation, velocity, angular velocity, acceleration and
/// angular acceleration of a marker in ground.
struct MarkerState {
    x: Vector3<f64>,
    axes: Matrix3<f64>,
    v: Vector3<f64>,
    w: Vector3<f64>,
    acc: Vector3<f64>,
    wd: Vector3<f64>,
}

fn quat(x: &[f64], o: usize) -> Vector4<f64> {
    Vector4::new(x[o + 3], x[o + 4], x[o + 5], x[o + 6])
}

fn marker_state(sys: &System, frame: &Frame, id: Id) -> MarkerState {
    let m = sys.marker(id);
    let Some(b) = m.body else {
        return MarkerState {
            x: m.s,
            axes: m.axes,
            v: Vector3::zeros(),
            w: Vector3::zeros(),
            acc: Vector3::zeros(),
            wd: Vector3::zeros(),
        };
    };
    let o = 7 * b;
    let r = Vector3::new(frame.q[o], frame.q[o + 1], frame.q[o + 2]);
    let rd = Vector3::new(frame.u[o], frame.u[o + 1], frame.u[o + 2]);
    let rdd = Vector3::new(frame.a[o], frame.a[o + 1], frame.a[o + 2]);
    let p = quat(&frame.q, o);
    let a = rot(&p);
    let e = e_mat(&p);
    // ω = 2 E(p) ṗ; ω̇ = 2 E(p) p̈ because E(ṗ) ṗ = 0.
    let w = 2.0 * e * quat(&frame.u, o);
    let wd = 2.0 * e * quat(&frame.a, o);
    let s = a * m.s;
    MarkerState {
        x: r + s,
        axes: a * m.axes,
        v: rd + w.cross(&s),
        w,
        acc: rdd + wd.cross(&s) + w.cross(&w.cross(&s)),
        wd,
    }
}

/// Body-fixed 3-1-3 angles (ψ, θ, φ) of R = Rz(ψ) Rx(θ) Rz(φ), radians;
/// θ ∈ [0, π]. At θ = 0 or π only ψ ± φ is defined: φ is set to 0.
pub fn euler313_angles(r: &Matrix3<f64>) -> (f64, f64, f64) {
    let c = r[(2, 2)].clamp(-1.0, 1.0);
    let s = (r[(0, 2)].powi(2) + r[(1, 2)].powi(2)).sqrt();
    if s > 1e-12 {
        let theta = s.atan2(c);
        let psi = r[(0, 2)].atan2(-r[(1, 2)]);
        let phi = r[(2, 0)].atan2(r[(2, 1)]);
        (psi, theta, phi)
    } else if c > 0.0 {
        (r[(1, 0)].atan2(r[(0, 0)]), 0.0, 0.0)
    } else {
        // Rz(ψ) Rx(π) Rz(φ) with φ = 0: columns x = (cψ, sψ, 0).
        (r[(1, 0)].atan2(r[(0, 0)]), std::f64::consts::PI, 0.0)
    }
}

/// Wrench (force, torque about marker I's origin) in ground that the joints,
/// motions and force elements acting between markers I and J apply to
/// marker I's part. Generalized constraint force on a body = −Φ_qᵀλ
/// (residual R = M a − Q + Φ_qᵀλ); its Euler-parameter part Q_p maps to the
/// torque about the CM by n = ½ E(p) Q_p.
fn force_on_i(sys: &System, frame: &Frame, req: &Request) -> (Vector3<f64>, Vector3<f64>) {
    let (ri, rj) = (req.i, req.j);
    // Slot of the request's I marker in joint `id`, if the joint connects
    // exactly the request's I and J markers (in either order).
    let joint_matches = |id: Id| {
        let jt = sys.model.joints.iter().find(|jt| jt.id == id)?;
        if (jt.i, Some(jt.j)) == (ri, rj) {
            Some(0)
        } else if Some(jt.i) == rj && jt.j == ri {
            Some(1)
        } else {
            None
        }
    };
    let motion_joint = |id: Id| {
        sys.model
            .motions
            .iter()
            .find(|m| m.id == id)
            .map(|m| m.joint)
    };
    let xi = marker_state(sys, frame, ri).x;
    let mut f = Vector3::zeros();
    let mut n = Vector3::zeros();
    // Adds −sign·g (sign = +1 for a generalized force to add as is) of the
    // given slot as a wrench on marker I.
    let mut add = |bodies: [Option<usize>; 2], slot_of_i: usize, gen: &[f64; NL]| {
        // Prefer the I body; if it is ground, use Newton's third law on J.
        let (slot, sign) = if bodies[slot_of_i].is_some() {
            (slot_of_i, 1.0)
        } else {
            (1 - slot_of_i, -1.0)
        };
        let Some(b) = bodies[slot] else {
            return;
        };
        let o = 7 * slot;
        let fs = Vector3::new(gen[o], gen[o + 1], gen[o + 2]);
        let qp = Vector4::new(gen[o + 3], gen[o + 4], gen[o + 5], gen[o + 6]);
        let p = quat(&frame.q, 7 * b);
        let n_cm = 0.5 * e_mat(&p) * qp;
        let r = Vector3::new(frame.q[7 * b], frame.q[7 * b + 1], frame.q[7 * b + 2]);
        // Torque about x_I: n_cm + (r − x_I) × f.
        f += sign * fs;
        n += sign * (n_cm + (r - xi).cross(&fs));
    };
    for (k, eq) in sys.equations.iter().enumerate() {
        if !sys.active[k] || frame.lambda[k] == 0.0 {
            continue;
        }
        let slot_of_i = match eq.element {
            ElementRef::Joint(id) => joint_matches(id),
            ElementRef::Motion(id) => motion_joint(id).and_then(joint_matches),
            _ => None,
        };
        let Some(slot_of_i) = slot_of_i else { continue };
        let v = sys.eval_equation(k, &frame.q, frame.t, false);
        let mut gen = [0.0; NL];
        for (l, g) in gen.iter_mut().enumerate() {
            *g = -frame.lambda[k] * v.s.grad[l];
        }
        add(eq.bodies(), slot_of_i, &gen);
    }
    for fe in &sys.forces {
        let slot_of_i = if (fe.i.id, Some(fe.j.id)) == (ri, rj) {
            0
        } else if Some(fe.i.id) == rj && fe.j.id == ri {
            1
        } else {
            continue;
        };
        let q = fe.local_force(&frame.q, &frame.u, frame.t);
        let mut gen = [0.0; NL];
        gen.copy_from_slice(q.as_slice());
        add([fe.i.body, fe.j.body], slot_of_i, &gen);
    }
    (f, n)
}

/// The six components of a request at one frame.
pub fn evaluate(sys: &System, frame: &Frame, req: &Request) -> [f64; 6] {
    let i = marker_state(sys, frame, req.i);
    let j = req.j.map(|id| marker_state(sys, frame, id));
    let rm = match req.rm {
        Some(id) => marker_state(sys, frame, id).axes,
        None => Matrix3::identity(),
    };
    let rel = |fi: &dyn Fn(&MarkerState) -> Vector3<f64>| match &j {
        Some(j) => fi(&i) - fi(j),
        None => fi(&i),
    };
    let (lin, ang) = match req.kind {
        RequestKind::Displacement => {
            let d = rm.transpose() * rel(&|m| m.x);
            let rj = j.as_ref().map(|j| j.axes).unwrap_or_else(Matrix3::identity);
            let (psi, theta, phi) = euler313_angles(&(rj.transpose() * i.axes));
            return [
                d[0],
                d[1],
                d[2],
                psi.to_degrees(),
                theta.to_degrees(),
                phi.to_degrees(),
            ];
        }
        RequestKind::Velocity => (rel(&|m| m.v), rel(&|m| m.w)),
        RequestKind::Acceleration => (rel(&|m| m.acc), rel(&|m| m.wd)),
        RequestKind::Force => force_on_i(sys, frame, req),
    };
    let (l, a) = (rm.transpose() * lin, rm.transpose() * ang);
    [l[0], l[1], l[2], a[0], a[1], a[2]]
}

/// One row per frame: time then every request's components.
pub fn table(sys: &System, frames: &[Frame]) -> Vec<Vec<f64>> {
    frames
        .iter()
        .map(|fr| {
            let mut row = vec![fr.t];
            for r in &sys.model.requests {
                row.extend_from_slice(&evaluate(sys, fr, r));
            }
            row
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbsolve_model::euler313;

    #[test]
    fn euler313_round_trip() {
        for &(psi, theta, phi) in &[
            (0.3, 0.7, -1.2),
            (-2.5, 2.9, 3.0),
            (1.0, 0.0, 0.0),
            (0.4, std::f64::consts::PI, 0.0),
        ] {
            let r = euler313(psi, theta, phi);
            let (a, b, c) = euler313_angles(&r);
            let r2 = euler313(a, b, c);
            assert!((r - r2).abs().max() < 1e-12, "{psi} {theta} {phi}");
            assert!((b - theta).abs() < 1e-12);
        }
    }
}
