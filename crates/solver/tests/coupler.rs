//! COUPLER ratios: with one joint driven by a MOTION, the coupled joint
//! follows r1 q1 + r2 q2 = 0 exactly, through many turns (the angle wraps
//! at ±π several times), for two rotations and for a translation with a
//! rotation, and for a GEAR whose ratio its CV marker gives (couplers over
//! three moving parts: `coupler_three_parts.rs`).

mod common;

use common::coupler::{body, joint, marker, ramp, turn};
use mbsolve_model::*;
use mbsolve_solver::Simulation;
use nalgebra::Vector3;
use std::f64::consts::{FRAC_PI_2, TAU};

/// Ground (part 1) and bodies with CM markers 10·id at `at`, no gravity.
fn bodies(at: &[[f64; 3]]) -> Model {
    let mut m = Model::new("coupler");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    for (n, p) in at.iter().enumerate() {
        body(&mut m, n as Id + 2, *p);
    }
    m
}

fn settings() -> IntegratorSettings {
    IntegratorSettings {
        error: Some(1e-8),
        ..Default::default()
    }
}

/// Two bodies hinged to ground about z at x = 0 and x = `x2` (REVOLUTE 1
/// and 2), joint 1 driven at `rate` rad/s.
fn two_hinged(x2: f64, rate: f64) -> Model {
    let mut m = bodies(&[[0.0; 3], [x2, 0.0, 0.0]]);
    marker(&mut m, 11, 1, Placement::default());
    marker(&mut m, 12, 1, Placement::at(x2, 0.0, 0.0));
    joint(&mut m, 1, JointKind::Revolute, 20, 11);
    joint(&mut m, 2, JointKind::Revolute, 30, 12);
    m.motions
        .push(Motion::on_joint(1, 1, MotionDof::Rotation, ramp(rate)));
    m
}

/// Runs 2 s; the final turns of both bodies and the largest |law(θ1, θ2)|.
fn turns(m: &Model, law: impl Fn(f64, f64) -> f64) -> (f64, f64, f64) {
    let mut sim = Simulation::new(m).unwrap();
    sim.dynamic(2.0, Some(400), None, &settings()).unwrap();
    assert!(sim.frames.last().unwrap().t > 1.999);
    let (mut t1, mut t2, mut worst) = (0.0, 0.0, 0.0f64);
    for f in &sim.frames {
        t1 = turn(&f.q, 0, t1);
        t2 = turn(&f.q, 1, t2);
        worst = worst.max(law(t1, t2).abs());
    }
    (t1, t2, worst)
}

/// Two gears hinged to ground about z, SCALES = 5, 2: θ2 = −2.5 θ1. Gear 1
/// turns 1.6 times in 2 s, so gear 2 turns −4 times.
#[test]
fn two_rotations_keep_their_ratio_over_several_turns() {
    let mut m = two_hinged(1.0, 0.8 * TAU);
    m.couplers.push(Coupler {
        id: 1,
        joints: vec![
            (1, CouplerFreedom::Rotation, 5.0),
            (2, CouplerFreedom::Rotation, 2.0),
        ],
    });
    let (t1, t2, worst) = turns(&m, |t1, t2| 5.0 * t1 + 2.0 * t2);
    println!(
        "R:R coupler: final turns {:.4} and {:.4}, largest |5θ1 + 2θ2| {worst:.1e}",
        t1 / TAU,
        t2 / TAU
    );
    assert!((t2 / TAU + 4.0).abs() < 1e-6, "gear 2 turned {}", t2 / TAU);
    assert!(worst < 1e-8, "{worst}");
}

/// A slider on a translational joint along ground x (z axes along x),
/// driven x = 0.5 t, coupled to a wheel hinged to ground: SCALES = 1, 0.2
/// (wheel radius 0.2): θ = −x/0.2, 5 rad over 2 s (past π).
#[test]
fn translation_and_rotation_keep_their_ratio() {
    let mut m = bodies(&[[0.0, 1.0, 0.0], [0.0; 3]]);
    let along_x =
        |p: [f64; 3]| Placement::at(p[0], p[1], p[2]).with_euler313(FRAC_PI_2, FRAC_PI_2, 0.0);
    marker(&mut m, 21, 2, along_x([0.0; 3]));
    marker(&mut m, 11, 1, along_x([0.0, 1.0, 0.0]));
    marker(&mut m, 12, 1, Placement::default());
    joint(&mut m, 1, JointKind::Translational, 21, 11);
    joint(&mut m, 2, JointKind::Revolute, 30, 12);
    m.motions
        .push(Motion::on_joint(1, 1, MotionDof::Translation, ramp(0.5)));
    m.couplers.push(Coupler {
        id: 1,
        joints: vec![
            (1, CouplerFreedom::Translation, 1.0),
            (2, CouplerFreedom::Rotation, 0.2),
        ],
    });
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(2.0, Some(200), None, &settings()).unwrap();
    let (mut th, mut worst) = (0.0, 0.0f64);
    for f in &sim.frames {
        th = turn(&f.q, 1, th);
        worst = worst.max((f.q[0] + 0.2 * th).abs());
    }
    println!("T:R coupler: final θ {th:.6} rad, largest |x + 0.2θ| {worst:.1e}");
    assert!((th + 5.0).abs() < 1e-6, "θ = {th}");
    assert!(worst < 1e-8, "{worst}");
}

/// GEAR: gears hinged to ground at x = 0 and x = 0.05, CV marker on ground
/// at x = 0.02 with z along ground y (the common velocity at the pitch
/// point): pitch radii 0.02 and 0.03, so external gears counter-rotate
/// with θ2 = −(2/3) θ1. Gear 1 turns 1.5 times.
#[test]
fn gear_ratio_comes_from_the_cv_marker() {
    let mut m = two_hinged(0.05, 0.75 * TAU);
    marker(
        &mut m,
        13,
        1,
        Placement::at(0.02, 0.0, 0.0).with_euler313(0.0, -FRAC_PI_2, 0.0),
    );
    m.gears.push(Gear {
        id: 1,
        joints: [1, 2],
        cv: 13,
    });
    let (t1, t2, worst) = turns(&m, |t1, t2| t2 + 2.0 / 3.0 * t1);
    println!(
        "GEAR: turns {:.4} and {:.4}, largest |θ2 + 2θ1/3| {worst:.1e}",
        t1 / TAU,
        t2 / TAU
    );
    assert!((t2 / TAU + 1.0).abs() < 1e-6, "gear 2 turned {}", t2 / TAU);
    assert!(worst < 1e-8, "{worst}");
}
