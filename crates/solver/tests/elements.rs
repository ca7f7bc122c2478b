#![allow(clippy::needless_range_loop)]
//! Joint primitives, the rack and pinion and marker motions on models with
//! closed-form answers (stated tolerances; measured values in the comments).

mod common;

use mbsolve_mech::rotation::rot;
use mbsolve_model::*;
use mbsolve_solver::requests;
use mbsolve_solver::{Frame, Simulation};
use nalgebra::{Matrix3, Vector3, Vector4};
use std::sync::Arc;

fn settings(error: f64) -> IntegratorSettings {
    IntegratorSettings {
        error: Some(error),
        ..Default::default()
    }
}

/// A frame at `origin` whose z axis is `z` and x axis `x` (orthonormal).
fn frame(origin: [f64; 3], x: Vector3<f64>, z: Vector3<f64>) -> Placement {
    Placement::new(
        Vector3::from(origin),
        Matrix3::from_columns(&[x, z.cross(&x), z]),
    )
}

fn marker(m: &mut Model, id: Id, part: Id, placement: Placement) {
    m.markers.push(Marker {
        id,
        part,
        placement,
    });
}

/// Ground (part 1, marker 10 at the origin) and a body (part 2, CM marker
/// 20 at its origin) placed at `at`.
fn ground_and_body(mass: f64, inertia: Inertia, at: Placement) -> Model {
    let mut m = Model::new("elements");
    m.parts.push(Part::ground(1));
    let mut body = Part::body(2, mass, inertia, at);
    body.cm = Some(20);
    m.parts.push(body);
    marker(&mut m, 10, 1, Placement::default());
    marker(&mut m, 20, 2, Placement::default());
    m
}

fn jprim(m: &mut Model, id: Id, kind: JprimKind, i: Id, j: Id) {
    m.jprims.push(Jprim { id, kind, i, j });
}

use common::eval_expr as eval;

fn marker_axes(sim: &Simulation, f: &Frame, id: Id) -> (Vector3<f64>, Matrix3<f64>) {
    let mf = sim.sys.marker(id);
    match mf.body {
        None => (mf.s, mf.axes),
        Some(b) => {
            let o = 7 * b;
            let p = Vector4::new(f.q[o + 3], f.q[o + 4], f.q[o + 5], f.q[o + 6]);
            let a = rot(&p);
            let r = Vector3::new(f.q[o], f.q[o + 1], f.q[o + 2]);
            (r + a * mf.s, a * mf.axes)
        }
    }
}

/// INLINE: a 2 kg body on a line inclined 30° down from horizontal slides as
/// a particle, s(t) = ½ g sin α t², and the primitive's reaction is the
/// normal force m g cos α along the line's normal (JPRIM(…) and the FORCE
/// request agree). At ERROR = 1e-8 the position error is the integrator's
/// (measured 4.1e-8 m; 4.1e-6 at 1e-6, 2.4e-10 at 1e-10); the reaction is
/// exact at every output (measured 3.6e-15 N).
#[test]
fn inline_keeps_a_point_on_a_line() {
    let (g, alpha, mass) = (9.81, 30f64.to_radians(), 2.0);
    let d = Vector3::new(alpha.cos(), 0.0, -alpha.sin());
    let n = Vector3::new(alpha.sin(), 0.0, alpha.cos());
    let mut m = ground_and_body(mass, Inertia::diagonal(0.1, 0.2, 0.3), Placement::default());
    m.gravity = Vector3::new(0.0, 0.0, -g);
    marker(&mut m, 11, 1, frame([0.0; 3], n, d));
    jprim(&mut m, 1, JprimKind::Inline, 20, 11);
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(1.0, None, Some(0.05), &settings(1e-8)).unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 4);
    let request = Request {
        id: 1,
        kind: RequestKind::Force,
        i: 20,
        j: Some(11),
        rm: None,
        comment: String::new(),
    };
    let reaction = n * (mass * g * alpha.cos());
    let (mut pos, mut force) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        let s = 0.5 * g * alpha.sin() * f.t * f.t;
        let r = Vector3::new(f.q[0], f.q[1], f.q[2]);
        pos = pos.max((r - d * s).norm());
        let fr = requests::evaluate(&sim.sys, &sim.model, f, &request);
        for k in 0..3 {
            let on_i = eval(&sim, f, &format!("JPRIM(1,0,{},0)", k + 2));
            let on_j = eval(&sim, f, &format!("JPRIM(1,1,{},0)", k + 2));
            force = force
                .max((on_i - reaction[k]).abs())
                .max((on_j + reaction[k]).abs())
                .max((fr[k] - reaction[k]).abs())
                .max(fr[k + 3].abs());
        }
    }
    println!("INLINE slide: position error {pos:.2e} m, reaction error {force:.2e} N");
    assert!(pos < 1e-7, "position error {pos}");
    assert!(force < 1e-10, "reaction error {force}");
}

/// INPLANE and ORIENTATION: a body in the x-y plane of a tilted marker
/// accelerates with the in-plane part of gravity, and ORIENTATION keeps its
/// axes fixed although it starts spinning (the spin is removed by the
/// initial-velocity projection). At ERROR = 1e-8, measured: position
/// 4.5e-8 m (the integrator's, as for INLINE), rotation 0.
#[test]
fn inplane_and_orientation() {
    let g = Vector3::new(0.0, -3.0, -9.0);
    let z = Vector3::new(0.0, 0.6, 0.8);
    let x = Vector3::new(1.0, 0.0, 0.0);
    let mut m = ground_and_body(1.5, Inertia::diagonal(0.2, 0.3, 0.4), Placement::default());
    m.gravity = g;
    m.parts[1].angular_velocity = Vector3::new(0.3, -0.2, 1.0);
    marker(&mut m, 11, 1, frame([0.0; 3], x, z));
    jprim(&mut m, 1, JprimKind::Inplane, 20, 11);
    jprim(&mut m, 2, JprimKind::Orientation, 20, 10);
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(1.0, None, Some(0.05), &settings(1e-8)).unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 2);
    let g_plane = g - z * g.dot(&z);
    let (mut pos, mut turn) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        let r = Vector3::new(f.q[0], f.q[1], f.q[2]);
        pos = pos.max((r - g_plane * (0.5 * f.t * f.t)).norm());
        let (_, axes) = marker_axes(&sim, f, 20);
        turn = turn.max((axes - Matrix3::identity()).abs().max());
    }
    println!("INPLANE + ORIENTATION: position error {pos:.2e} m, rotation {turn:.2e}");
    assert!(pos < 1e-7, "position error {pos}");
    assert!(turn < 1e-12, "the body turned by {turn}");
}

/// A spinning pendulum hung at (0, 0, 0) from its marker 1 m off the CM.
fn pendulum_3d() -> Model {
    let mut m = ground_and_body(
        1.0,
        Inertia::diagonal(0.04, 0.1, 0.1),
        Placement::at(1.0, 0.0, 0.0),
    );
    m.gravity = Vector3::new(0.0, 0.0, -9.81);
    m.parts[1].velocity = Vector3::new(0.0, 1.5, 0.0);
    m.parts[1].angular_velocity = Vector3::new(0.0, 0.0, 1.5);
    marker(&mut m, 21, 2, Placement::at(-1.0, 0.0, 0.0));
    m
}

/// ATPOINT is the SPHERICAL joint's point constraint: the same run, and
/// JPRIM(…) reports the same reaction as JOINT(…). Measured: identical to
/// the last bit (the same equations in the same order).
#[test]
fn atpoint_equals_a_spherical_joint() {
    let mut sph = pendulum_3d();
    sph.joints.push(Joint {
        id: 1,
        kind: JointKind::Spherical,
        i: 21,
        j: 10,
    });
    let mut atp = pendulum_3d();
    jprim(&mut atp, 1, JprimKind::Atpoint, 21, 10);
    let run = |m: &Model| {
        let mut sim = Simulation::new(m).unwrap();
        sim.dynamic(2.0, None, Some(0.02), &settings(1e-6)).unwrap();
        sim
    };
    let (a, b) = (run(&sph), run(&atp));
    let mut dq = 0.0f64;
    let mut dr = 0.0f64;
    for (fa, fb) in a.frames.iter().zip(&b.frames) {
        for k in 0..fa.q.len() {
            dq = dq.max((fa.q[k] - fb.q[k]).abs());
        }
        for c in [2, 3, 4, 6, 7, 8] {
            let ja = eval(&a, fa, &format!("JOINT(1,0,{c},0)"));
            let jb = eval(&b, fb, &format!("JPRIM(1,0,{c},0)"));
            dr = dr.max((ja - jb).abs());
        }
    }
    let swing = a.frames.iter().map(|f| f.q[2].abs()).fold(0.0, f64::max);
    println!("ATPOINT vs SPHERICAL: max |dq| {dq:.1e}, max reaction difference {dr:.1e}; swing {swing:.2} m");
    assert!(swing > 0.5, "the pendulum must swing");
    assert!(dq <= 1e-14 && dr <= 1e-12, "{dq} {dr}");
}

/// ATPOINT + PARALLEL_AXES is a revolute joint (same equations, same
/// names): the pendulum swings identically. With PERPENDICULAR instead
/// (the body's z kept perpendicular to ground x), the primitive carries the
/// pendulum's full moment m g L at release, z_I stays perpendicular to z_J
/// through the 3-D motion and, the constraints being ideal, energy is
/// conserved up to the integrator's damping. Measured at ERROR = 1e-7:
/// |z_I·z_J| 1.1e-16, energy drift 5.0e-4 J (m g L = 9.81 J), largest
/// primitive torque 9.81 N·m.
#[test]
fn parallel_axes_and_perpendicular() {
    let mut rev = pendulum_3d();
    rev.parts[1].velocity = Vector3::zeros();
    rev.parts[1].angular_velocity = Vector3::zeros();
    rev.gravity = Vector3::new(0.0, -9.81, 0.0);
    let mut par = rev.clone();
    rev.joints.push(Joint {
        id: 1,
        kind: JointKind::Revolute,
        i: 21,
        j: 10,
    });
    jprim(&mut par, 1, JprimKind::Atpoint, 21, 10);
    jprim(&mut par, 2, JprimKind::ParallelAxes, 21, 10);
    let run = |m: &Model| {
        let mut sim = Simulation::new(m).unwrap();
        sim.dynamic(1.5, None, Some(0.05), &settings(1e-6)).unwrap();
        sim
    };
    let (a, b) = (run(&rev), run(&par));
    let names = |s: &Simulation| -> Vec<String> {
        s.sys.equations.iter().map(|e| e.name.clone()).collect()
    };
    assert_eq!(names(&a), names(&b));
    let dq = a
        .frames
        .iter()
        .zip(&b.frames)
        .flat_map(|(x, y)| x.q.iter().zip(&y.q).map(|(p, q)| (p - q).abs()))
        .fold(0.0, f64::max);
    println!("ATPOINT + PARALLEL_AXES vs REVOLUTE: max |dq| {dq:.1e}");
    assert!(dq <= 1e-14, "{dq}");

    // z of marker 22 (the body's z) must stay perpendicular to ground x
    // while the pendulum, spinning about ground z, swings down about y.
    let mut perp = pendulum_3d();
    marker(
        &mut perp,
        12,
        1,
        frame([0.0; 3], Vector3::z(), Vector3::x()),
    );
    marker(&mut perp, 22, 2, Placement::at(-1.0, 0.0, 0.0));
    jprim(&mut perp, 1, JprimKind::Atpoint, 21, 10);
    jprim(&mut perp, 2, JprimKind::Perpendicular, 22, 12);
    let mut sim = Simulation::new(&perp).unwrap();
    sim.dynamic(2.0, None, Some(0.02), &settings(1e-7)).unwrap();
    let energy = |f: &Frame| {
        let v = Vector3::new(f.u[0], f.u[1], f.u[2]);
        let p = Vector4::new(f.q[3], f.q[4], f.q[5], f.q[6]);
        let pd = Vector4::new(f.u[3], f.u[4], f.u[5], f.u[6]);
        let w = 2.0 * mbsolve_mech::rotation::g_mat(&p) * pd;
        let i = sim.sys.bodies[0].inertia;
        0.5 * v.norm_squared() + 0.5 * w.dot(&(i * w)) + 9.81 * f.q[2]
    };
    let e0 = energy(&sim.frames[0]);
    let (mut dot, mut drift, mut tilt, mut torque) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for f in &sim.frames {
        torque = torque.max(eval(&sim, f, "JPRIM(2,0,5,0)"));
        let (_, ai) = marker_axes(&sim, f, 22);
        let (_, aj) = marker_axes(&sim, f, 12);
        dot = dot.max(ai.column(2).dot(&aj.column(2)).abs());
        drift = drift.max((energy(f) - e0).abs());
        tilt = tilt.max(f.q[2].abs());
    }
    println!(
        "PERPENDICULAR: max |z_I·z_J| {dot:.1e}, energy drift {drift:.1e} J, swing {tilt:.2} m, largest torque {torque:.2} N·m"
    );
    assert!(tilt > 0.3, "the body must move in 3-D");
    assert!(torque > 1.0, "the primitive must carry load ({torque})");
    assert!(dot < 1e-9, "z_I·z_J = {dot}");
    assert!(drift < 1e-3, "energy drift {drift}");
}

fn time_fn(f: impl Fn(f64) -> [f64; 3] + Send + Sync + 'static) -> Arc<dyn TimeFunction> {
    Arc::new(TimeFn(f))
}

/// All six marker-motion components prescribe a free body completely
/// (zero DOF): the kinematic analysis reproduces DX, DY, DZ(I, J, J) and
/// the body-fixed 1-2-3 angles of I relative to J, and the velocity and
/// acceleration of the X component. Measured: 1.4e-16, 3.3e-16, 4.4e-16.
#[test]
fn marker_motions_prescribe_displacements_and_123_angles() {
    let mut m = ground_and_body(
        1.0,
        Inertia::diagonal(0.1, 0.2, 0.3),
        Placement::at(0.1, 0.0, 0.2),
    );
    m.gravity = Vector3::new(0.0, 0.0, -9.81);
    marker(
        &mut m,
        11,
        1,
        Placement::at(0.5, -0.2, 0.1).with_euler313(0.4, 0.3, -0.2),
    );
    marker(
        &mut m,
        21,
        2,
        Placement::at(0.0, 0.1, 0.0).with_euler313(-0.3, 0.2, 0.5),
    );
    type Law = fn(f64) -> [f64; 3];
    let laws: [(MarkerMotionAxis, Law); 6] = [
        (MarkerMotionAxis::X, |t| {
            [
                0.3 * (2.0 * t).sin(),
                0.6 * (2.0 * t).cos(),
                -1.2 * (2.0 * t).sin(),
            ]
        }),
        (MarkerMotionAxis::Y, |t| [0.1 * t, 0.1, 0.0]),
        (MarkerMotionAxis::Z, |t| [0.2 + 0.05 * t * t, 0.1 * t, 0.1]),
        (MarkerMotionAxis::B1, |t| {
            [0.2 * t.sin(), 0.2 * t.cos(), -0.2 * t.sin()]
        }),
        (MarkerMotionAxis::B2, |t| [0.1 * t, 0.1, 0.0]),
        (MarkerMotionAxis::B3, |t| [0.5 * t, 0.5, 0.0]),
    ];
    for (n, (axis, law)) in laws.iter().enumerate() {
        let law = *law;
        m.motions.push(Motion {
            id: n as Id + 1,
            target: MotionTarget::Markers {
                i: 21,
                j: 11,
                axis: *axis,
            },
            function: time_fn(law),
        });
    }
    let mut sim = Simulation::new(&m).unwrap();
    sim.initial_conditions().unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 0);
    sim.kinematic(2.0, Some(40), None).unwrap();
    let (mut disp, mut angle, mut rate) = (0.0f64, 0.0f64, 0.0f64);
    for f in &sim.frames {
        let (oi, ai) = marker_axes(&sim, f, 21);
        let (oj, aj) = marker_axes(&sim, f, 11);
        let d = aj.transpose() * (oi - oj);
        let r = aj.transpose() * ai;
        let b2 = r[(0, 2)].asin();
        let b1 = (-r[(1, 2)]).atan2(r[(2, 2)]);
        let b3 = (-r[(0, 1)]).atan2(r[(0, 0)]);
        for k in 0..3 {
            disp = disp.max((d[k] - (laws[k].1)(f.t)[0]).abs());
        }
        for (k, b) in [b1, b2, b3].into_iter().enumerate() {
            angle = angle.max((b - (laws[3 + k].1)(f.t)[0]).abs());
        }
        // J is on ground: d/dt of DX(I,J,J) is VX(I,J,J,J), likewise ACCX.
        let [_, v, a] = (laws[0].1)(f.t);
        rate = rate
            .max((eval(&sim, f, "VX(21,11,11,11)") - v).abs())
            .max((eval(&sim, f, "ACCX(21,11,11,11)") - a).abs());
    }
    println!("marker motions: displacement {disp:.1e}, 1-2-3 angles {angle:.1e}, X rate/acceleration {rate:.1e}");
    assert!(disp < 1e-10 && angle < 1e-10, "{disp} {angle}");
    assert!(rate < 1e-8, "{rate}");
}

/// MOTION I/J B3 = ω t on a body hinged about z prescribes the angle: the
/// run matches AZ(I, J) = ω t (modulo 2π) over more than a turn, and the
/// same as the joint motion ROTATION. Measured: 1.1e-15 rad; identical to
/// the joint motion's run.
#[test]
fn b3_motion_prescribes_the_angle() {
    let omega = 4.0;
    let hinged = |marker_motion: bool| {
        let mut m = ground_and_body(
            1.0,
            Inertia::diagonal(0.1, 0.1, 0.2),
            Placement::at(0.5, 0.0, 0.0),
        );
        m.gravity = Vector3::new(0.0, -9.81, 0.0);
        marker(&mut m, 21, 2, Placement::at(-0.5, 0.0, 0.0));
        m.joints.push(Joint {
            id: 1,
            kind: JointKind::Revolute,
            i: 21,
            j: 10,
        });
        let f = time_fn(move |t| [omega * t, omega, 0.0]);
        m.motions.push(Motion {
            id: 1,
            target: if marker_motion {
                MotionTarget::Markers {
                    i: 21,
                    j: 10,
                    axis: MarkerMotionAxis::B3,
                }
            } else {
                MotionTarget::Joint {
                    joint: 1,
                    dof: MotionDof::Rotation,
                }
            },
            function: f,
        });
        let mut sim = Simulation::new(&m).unwrap();
        sim.dynamic(2.0, None, Some(0.05), &settings(1e-6)).unwrap();
        sim
    };
    let (b3, joint) = (hinged(true), hinged(false));
    assert_eq!(b3.sys.dof(&b3.data), 0);
    let tau = std::f64::consts::TAU;
    let (mut err, mut diff) = (0.0f64, 0.0f64);
    for (f, g) in b3.frames.iter().zip(&joint.frames) {
        let az = eval(&b3, f, "AZ(21,10)");
        let want = (omega * f.t + std::f64::consts::PI).rem_euclid(tau) - std::f64::consts::PI;
        let e = (az - want).abs();
        err = err.max(e.min(tau - e));
        for k in 0..7 {
            diff = diff.max((f.q[k] - g.q[k]).abs());
        }
    }
    println!(
        "B3 motion: angle error {err:.1e} rad over {:.1} turns; vs joint motion {diff:.1e}",
        omega * 2.0 / tau
    );
    assert!(err < 1e-9 && diff < 1e-8, "{err} {diff}");
}

/// The rack and pinion of the Chrono deck (pinion: I_zz = 0.1 about its z
/// axis = ground x, on a revolute; rack: 1 kg on a translational joint along
/// −z; PD = 0.1) falls with a = g m/(m + I/r²) = 0.239187 m/s², and the
/// travel equals PD/2 times the pinion's turn through 9.5 turns. The
/// reaction on the pinion is −m(g − a) along ground z at the I marker.
/// At ERROR = 1e-8, measured: travel − r·turn 2.7e-15 m, reaction error
/// 1.6e-14 N, x(t) error 5.1e-5 m after the 3 m fall (the integrator's:
/// 8.1e-4 at ERROR = 1e-6, 5.5e-7 at 1e-10).
#[test]
fn rack_and_pinion_closed_form_over_many_turns() {
    let (g, r) = (9.80665, 0.05);
    let mut m = Model::new("rack and pinion");
    m.gravity = Vector3::new(0.0, 0.0, -g);
    m.parts.push(Part::ground(1));
    let down = Vector3::new(0.0, 0.0, -1.0);
    let mut pinion = Part::body(
        2,
        1.0,
        Inertia::diagonal(0.04, 0.1, 0.1),
        Placement::default(),
    );
    pinion.cm = Some(201);
    let mut rack = Part::body(
        3,
        1.0,
        Inertia::diagonal(0.1, 0.1, 0.04),
        Placement::default(),
    );
    rack.cm = Some(301);
    m.parts.push(pinion);
    m.parts.push(rack);
    // Pinion axis (z) along ground x, its x axis along the rack's travel.
    let pin = frame([0.0; 3], down, Vector3::x());
    let rack_axes = |at: [f64; 3]| frame(at, Vector3::x(), down);
    marker(&mut m, 102, 1, pin.clone());
    marker(&mut m, 103, 1, rack_axes([0.0, -0.1, 0.0]));
    marker(&mut m, 201, 2, pin.clone());
    marker(&mut m, 202, 2, pin);
    marker(&mut m, 301, 3, rack_axes([0.0, 0.1, 0.0]));
    marker(&mut m, 302, 3, rack_axes([0.0, -0.1, 0.0]));
    marker(&mut m, 303, 3, rack_axes([0.0; 3]));
    for (id, kind, i, j) in [
        (1, JointKind::Revolute, 102, 202),
        (2, JointKind::Translational, 103, 302),
        (
            3,
            JointKind::RackPin {
                pitch_diameter: 2.0 * r,
            },
            202,
            303,
        ),
    ] {
        m.joints.push(Joint { id, kind, i, j });
    }
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(5.0, None, Some(0.01), &settings(1e-8)).unwrap();
    let a = g / (1.0 + 0.1 / (r * r));
    let (mut travel, mut fall, mut force) = (0.0f64, 0.0f64, 0.0f64);
    let mut turn = 0.0f64;
    let mut last = 0.0f64;
    for f in &sim.frames {
        // The pinion's turn about ground x, unwrapped along the frames.
        let (_, axes) = marker_axes(&sim, f, 202);
        let x = axes.column(0);
        let raw = x[1].atan2(-x[2]);
        turn += (raw - last + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        last = raw;
        let z_rack = f.q[7 + 2];
        travel = travel.max((-z_rack - r * turn).abs());
        fall = fall.max((z_rack + 0.5 * a * f.t * f.t).abs());
        force = force
            .max((eval(&sim, f, "JOINT(3,0,4,0)") + (g - a)).abs())
            .max((eval(&sim, f, "JOINT(3,0,6,0)") - r * (g - a)).abs());
    }
    println!(
        "rack and pinion: {:.1} turns; travel − r·turn {travel:.1e} m, x(t) error {fall:.1e} m, reaction error {force:.1e}",
        turn / std::f64::consts::TAU
    );
    assert!(turn > 9.0 * std::f64::consts::TAU, "{turn}");
    assert!(
        travel < 1e-12 && fall < 1e-4 && force < 1e-10,
        "{travel} {fall} {force}"
    );
}
