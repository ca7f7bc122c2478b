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
    run_with(model, end, dtout, IntegratorKind::Gstiff, None)
}

fn run_with(
    model: &Model,
    end: f64,
    dtout: f64,
    kind: IntegratorKind,
    formulation: Option<Formulation>,
) -> Simulation {
    let mut sim = Simulation::new(model).unwrap();
    let settings = IntegratorSettings {
        kind,
        formulation,
        error: Some(1e-8),
        ..Default::default()
    };
    sim.dynamic(end, None, Some(dtout), &settings)
        .unwrap_or_else(|e| panic!("{e}"));
    sim
}

/// Ground (marker 10) and a 1 kg body (marker 20) at the origin, joined by
/// JOINT/`id` of `kind` (I = 20, J = 10).
fn one_joint(id: Id, kind: JointKind) -> Model {
    let mut model = Model::new("one joint");
    model.parts.push(Part::ground(1));
    let inertia = Inertia::diagonal(0.1, 0.1, 0.1);
    model
        .parts
        .push(Part::body(2, 1.0, inertia, Placement::default()));
    for (marker, part) in [(10, 1), (20, 2)] {
        let placement = Placement::default();
        model.markers.push(Marker {
            id: marker,
            part,
            placement,
        });
    }
    model.joints.push(Joint {
        id,
        kind,
        i: 20,
        j: 10,
    });
    model
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
    let model = &mut one_joint(3, JointKind::Cylindrical);
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
    let sim = run(model, 1.0, 0.25);
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
        let mut model = one_joint(1, JointKind::Translational);
        model.gravity = Vector3::new(0.0, 0.0, -9.81);
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

/// PART/3 without mass or inertia at `at`, with marker 30 at its origin,
/// joined to marker `to` by JOINT/2 of `kind` (I = 30).
fn add_massless(model: &mut Model, at: Placement, kind: JointKind, to: Id) {
    model.parts.push(Part::body(3, 0.0, Inertia::default(), at));
    let placement = Placement::default();
    model.markers.push(Marker {
        id: 30,
        part: 3,
        placement,
    });
    model.joints.push(Joint {
        id: 2,
        kind,
        i: 30,
        j: to,
    });
}

/// The pendulum with a massless part (no MASS, no IP) welded to it by a
/// FIXED joint: the constraints determine the massless part, so the model
/// runs (Adams' rule) and swings exactly as the pendulum alone.
#[test]
fn massless_part_determined_by_its_constraints_runs() {
    let plain = models::pendulum(1.0, 9.81);
    let mut with = plain.clone();
    with.markers.push(Marker {
        id: 21,
        part: 2,
        placement: Placement::at(-0.5, 0.0, 0.0),
    });
    add_massless(
        &mut with,
        Placement::at(0.5, 0.0, 0.0),
        JointKind::Fixed,
        21,
    );
    // every formulation family: index 3, stabilized index 2, HHT, the
    // coordinate-partitioned ODE form
    for (kind, form) in [
        (IntegratorKind::Gstiff, Some(Formulation::I3)),
        (IntegratorKind::Gstiff, Some(Formulation::Si2)),
        (IntegratorKind::Hht, None),
        (IntegratorKind::Abam, None),
    ] {
        let a = run_with(&plain, 1.0, 0.1, kind, form);
        let b = run_with(&with, 1.0, 0.1, kind, form);
        assert_eq!(a.frames.len(), b.frames.len());
        for (fa, fb) in a.frames.iter().zip(&b.frames) {
            let (ta, tb) = (measure(&a, fa, "AZ(20,10)"), measure(&b, fb, "AZ(20,10)"));
            assert!(
                (ta - tb).abs() < 1e-6,
                "{kind:?} t = {}: {ta} vs {tb}",
                fa.t
            );
            // the massless part follows: its marker stays at mid-rod
            let d = measure(&b, fb, "DM(30,10)");
            assert!((d - 0.5).abs() < 1e-8, "t = {}: DM = {d}", fb.t);
        }
        assert!(measure(&a, a.frames.last().unwrap(), "AZ(20,10)") < -0.5);
    }
}

/// A massless part on a revolute joint alone: its rotation is free, which
/// Adams rejects; the error names the part and the free count.
#[test]
fn massless_part_left_free_is_named() {
    let mut model = models::pendulum(1.0, 9.81);
    add_massless(&mut model, Placement::default(), JointKind::Revolute, 10);
    let mut sim = Simulation::new(&model).unwrap();
    let e = sim
        .dynamic(1.0, None, Some(0.1), &IntegratorSettings::default())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "PART/3: massless part (no MASS): its constraints leave 1 of its 6 degrees of freedom free; Adams accepts a massless part only when its constraints determine its motion: constrain it, or give it mass and inertia"
    );
}
