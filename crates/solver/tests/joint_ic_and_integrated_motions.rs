//! JOINT initial conditions (held during the initial-condition analysis,
//! then released) and MOTIONs given by velocity or acceleration, on models
//! with closed-form answers.

use mbsolve_expr::{Expr, ExprTimeFunction};
use mbsolve_model::*;
use mbsolve_solver::functions::FrameContext;
use mbsolve_solver::{models, Frame, Simulation};
use nalgebra::Vector3;
use std::sync::Arc;

/// A measure (AZ, WZ, DZ, …) on a frame of `sim`.
fn measure(sim: &Simulation, frame: &Frame, text: &str) -> f64 {
    let initial_q = sim.sys.initial_state().0;
    let ctx = FrameContext {
        sys: &sim.sys,
        model: &sim.model,
        frame,
        initial_q: &initial_q,
    };
    Expr::parse(text)
        .unwrap()
        .eval_in(&ctx)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn run(model: &Model, end: f64, dtout: f64) -> Simulation {
    let mut sim = Simulation::new(model).unwrap();
    let settings = IntegratorSettings {
        error: Some(1e-8),
        ..Default::default()
    };
    sim.dynamic(end, None, Some(dtout), &settings)
        .unwrap_or_else(|e| panic!("{e}"));
    sim
}

/// A pendulum (L = 1 m, m = 1 kg, I_cm = 1e-3, gravity −y) built
/// horizontal with IC = 0.5 rad, 2 rad/s on its hinge: the first output
/// has θ = 0.5 and ω = 2, and the motion that follows is free (energy
/// ½·I_O·ω² + m·g·L·sin θ conserved; θ leaves 0.5 + 2t).
#[test]
fn revolute_ic_starts_the_pendulum_then_releases_it() {
    let mut model = models::pendulum(1.0, 9.81);
    model.joint_ics.push(JointIc {
        joint: 1,
        dof: MotionDof::Rotation,
        displacement: 0.5,
        velocity: Some(2.0),
    });
    let sim = run(&model, 0.5, 0.05);
    let first = &sim.frames[0];
    assert_eq!(first.t, 0.0);
    assert!((measure(&sim, first, "AZ(20,10)") - 0.5).abs() < 1e-10);
    assert!((measure(&sim, first, "WZ(20,10)") - 2.0).abs() < 1e-10);
    let io = 1e-3 + 1.0;
    let energy = |f: &Frame| {
        let (th, w) = (measure(&sim, f, "AZ(20,10)"), measure(&sim, f, "WZ(20,10)"));
        0.5 * io * w * w + 9.81 * th.sin()
    };
    let e0 = 0.5 * io * 4.0 + 9.81 * 0.5f64.sin();
    let last = sim.frames.last().unwrap();
    assert!(
        (energy(last) - e0).abs() < 1e-5 * e0,
        "{} vs {e0}",
        energy(last)
    );
    // released: gravity has slowed it well below the held 2 rad/s
    assert!(measure(&sim, last, "WZ(20,10)") < 1.5);
}

/// A free body on a cylindrical joint along ground z (no gravity): ICTRAN
/// = 0.3 m, 1.5 m/s and ICROT = 0.2 rad (velocity left free: the part's
/// own, zero). The slide then coasts: z = 0.3 + 1.5t, angle 0.2.
#[test]
fn cylindrical_ictran_and_icrot() {
    let mut model = Model::new("cylinder");
    model.parts.push(Part::ground(1));
    model.parts.push(Part::body(
        2,
        2.0,
        Inertia::diagonal(0.1, 0.1, 0.1),
        Placement::default(),
    ));
    for (id, part) in [(10, 1), (20, 2)] {
        model.markers.push(Marker {
            id,
            part,
            placement: Placement::default(),
        });
    }
    model.joints.push(Joint {
        id: 3,
        kind: JointKind::Cylindrical,
        i: 20,
        j: 10,
    });
    model.joint_ics.push(JointIc {
        joint: 3,
        dof: MotionDof::Translation,
        displacement: 0.3,
        velocity: Some(1.5),
    });
    model.joint_ics.push(JointIc {
        joint: 3,
        dof: MotionDof::Rotation,
        displacement: 0.2,
        velocity: None,
    });
    let sim = run(&model, 1.0, 0.25);
    for f in &sim.frames {
        let z = measure(&sim, f, "DZ(20,10)");
        assert!((z - (0.3 + 1.5 * f.t)).abs() < 1e-8, "t = {}: z = {z}", f.t);
        assert!((measure(&sim, f, "AZ(20,10)") - 0.2).abs() < 1e-9);
    }
}

/// A slider on a translational joint driven by a VELOCITY motion v = cos 3t
/// with ICDISP = 0.1 follows 0.1 + sin(3t)/3; an ACCELERATION motion a = 2
/// with ICDISP = −0.2, ICVEL = 1 follows −0.2 + t + t².
#[test]
fn velocity_and_acceleration_motions_follow_their_integrals() {
    for (text, input, icdisp, icvel, exact) in [
        (
            "COS(3*TIME)",
            MotionInput::Velocity,
            0.1,
            0.0,
            (|t: f64| 0.1 + (3.0 * t).sin() / 3.0) as fn(f64) -> f64,
        ),
        (
            "2",
            MotionInput::Acceleration,
            -0.2,
            1.0,
            (|t: f64| -0.2 + t + t * t) as fn(f64) -> f64,
        ),
    ] {
        let mut model = Model::new("slider");
        model.gravity = Vector3::new(0.0, 0.0, -9.81);
        model.parts.push(Part::ground(1));
        model.parts.push(Part::body(
            2,
            1.0,
            Inertia::diagonal(0.1, 0.1, 0.1),
            Placement::default(),
        ));
        for (id, part) in [(10, 1), (20, 2)] {
            model.markers.push(Marker {
                id,
                part,
                placement: Placement::default(),
            });
        }
        model.joints.push(Joint {
            id: 1,
            kind: JointKind::Translational,
            i: 20,
            j: 10,
        });
        let v = ExprTimeFunction::new(Expr::parse(text).unwrap()).unwrap();
        let spec = MotionIntegral {
            input,
            icdisp,
            icvel,
        };
        model.motions.push(Motion::on_joint(
            1,
            1,
            MotionDof::Translation,
            Arc::new(IntegratedMotion::new(Arc::new(v), spec)),
        ));
        let sim = run(&model, 2.0, 0.1);
        assert_eq!(sim.frames.len(), 21);
        for f in &sim.frames {
            let z = measure(&sim, f, "DZ(20,10)");
            assert!((z - exact(f.t)).abs() < 1e-9, "{text} t = {}: {z}", f.t);
        }
    }
}
