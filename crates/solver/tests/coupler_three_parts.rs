//! COUPLER over joints that move three parts (as FRS5's COUPLER/2–5: two
//! joints on parts 222–31 and 223–31): the row spans a carrier and two
//! parts hinged or sliding on it. Closed forms, measured from the bodies'
//! own coordinates (not from the solver's equation):
//! - two pendulums hinged on a swinging carrier, SCALES 1, 2: the relative
//!   turns keep θ₁ + 2θ₂ = 0 on GSTIFF/I3, GSTIFF/SI2, HASTIFF/SI1, HHT
//!   and ABAM (ODE form);
//! - a slider along a free carrier coupled to a wheel hinged on it
//!   (translation with rotation): 0.2 θ₁ + s₂ = 0;
//! - kinematics, carrier and first joint driven: the third part turns by
//!   φ_B = φ_C − (r₁/r₂)θ₁ exactly, through several turns;
//! - joints on three separate pairs of parts are refused naming COUPLER/id,
//!   and a coupler that contradicts motions names it too.

mod common;

use mbsolve_model::*;
use mbsolve_solver::Simulation;
use nalgebra::{Vector3, Vector4};
use std::f64::consts::{FRAC_PI_2, TAU};
use std::sync::Arc;

fn marker(m: &mut Model, id: Id, part: Id, placement: Placement) {
    m.markers.push(Marker {
        id,
        part,
        placement,
    });
}

fn body(m: &mut Model, id: Id, at: [f64; 3]) {
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

fn joint(m: &mut Model, id: Id, kind: JointKind, i: Id, j: Id) {
    m.joints.push(Joint { id, kind, i, j });
}

/// Turn of body `b` about ground z, continued from the previous value.
fn turn(q: &[f64], b: usize, previous: f64) -> f64 {
    let o = 7 * b;
    let a = mbsolve_mech::rotation::rot(&Vector4::new(q[o + 3], q[o + 4], q[o + 5], q[o + 6]));
    let raw = a[(1, 0)].atan2(a[(0, 0)]);
    raw + TAU * ((previous - raw) / TAU).round()
}

/// Carrier C (part 2) hinged to ground about z at the origin (JOINT/3);
/// pendulum A (part 3, CM at x = 1) hinged on C at x = 0.6 (JOINT/1);
/// pendulum B (part 4, CM at x = −1) hinged on C at x = −0.5 (JOINT/2);
/// gravity −y. COUPLER/5: JOINTS 1, 2, TYPE R R, SCALES 1, 2.
fn pendulums_on_a_carrier() -> Model {
    let mut m = Model::new("coupler3");
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    body(&mut m, 2, [0.0; 3]);
    body(&mut m, 3, [1.0, 0.0, 0.0]);
    body(&mut m, 4, [-1.0, 0.0, 0.0]);
    marker(&mut m, 11, 1, Placement::default());
    marker(&mut m, 21, 2, Placement::at(0.6, 0.0, 0.0));
    marker(&mut m, 22, 2, Placement::at(-0.5, 0.0, 0.0));
    marker(&mut m, 31, 3, Placement::at(-0.4, 0.0, 0.0));
    marker(&mut m, 41, 4, Placement::at(0.5, 0.0, 0.0));
    joint(&mut m, 3, JointKind::Revolute, 20, 11);
    joint(&mut m, 1, JointKind::Revolute, 31, 21);
    joint(&mut m, 2, JointKind::Revolute, 41, 22);
    m.couplers.push(Coupler {
        id: 5,
        joints: vec![
            (1, CouplerFreedom::Rotation, 1.0),
            (2, CouplerFreedom::Rotation, 2.0),
        ],
    });
    m
}

fn with(kind: IntegratorKind, formulation: Option<Formulation>, error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        formulation,
        error: Some(error),
        ..Default::default()
    }
}

/// Largest |θ₁ + 2θ₂| over a 2 s swing, with θ₁ = φ_A − φ_C and
/// θ₂ = φ_B − φ_C from the bodies' orientations; and how far A swung.
fn swing(settings: &IntegratorSettings) -> (f64, f64) {
    let m = pendulums_on_a_carrier();
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(2.0, Some(400), None, settings).unwrap();
    assert!(sim.frames.last().unwrap().t > 1.999);
    let (mut c, mut a, mut b) = (0.0, 0.0, 0.0);
    let (mut worst, mut reach) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        c = turn(&f.q, 0, c);
        a = turn(&f.q, 1, a);
        b = turn(&f.q, 2, b);
        worst = worst.max(((a - c) + 2.0 * (b - c)).abs());
        reach = reach.max((a - c).abs());
    }
    (worst, reach)
}

#[test]
fn pendulums_on_a_swinging_carrier_keep_the_coupled_turns_on_every_formulation() {
    let runs = [
        with(IntegratorKind::Gstiff, Some(Formulation::I3), 1e-7),
        with(IntegratorKind::Gstiff, Some(Formulation::Si2), 1e-7),
        with(IntegratorKind::Hastiff, Some(Formulation::Si1), 1e-7),
        with(IntegratorKind::Hht, None, 1e-7),
        with(IntegratorKind::Abam, None, 1e-7),
    ];
    for settings in &runs {
        let (worst, reach) = swing(settings);
        println!(
            "{:?}/{:?}: largest |θ1 + 2θ2| {worst:.1e} rad, largest |θ1| {reach:.3} rad",
            settings.kind, settings.formulation
        );
        // The coupler moves: A turns on the carrier by a visible angle.
        assert!(reach > 0.05, "{:?}: A barely moved ({reach})", settings.kind);
        assert!(worst < 1e-9, "{:?}: |θ1 + 2θ2| = {worst}", settings.kind);
    }
}

/// Carrier C (part 2) slides freely along ground x (JOINT/3, z axes along
/// x); wheel A (part 3, CM at x = 0.8 off its hinge) hinged on C at the
/// origin (JOINT/1); slider B (part 4) slides along C's y axis (JOINT/2,
/// z axes along y); gravity −y. COUPLER/6: 0.2·θ₁ + s₂ = 0 (TYPE R T,
/// SCALES 0.2, 1): the wheel winds up the slider's drop.
#[test]
fn a_slider_and_a_wheel_on_a_sliding_carrier_keep_their_ratio() {
    let mut m = Model::new("coupler3 mixed");
    m.gravity = Vector3::new(0.0, -9.81, 0.0);
    m.parts.push(Part::ground(1));
    body(&mut m, 2, [0.0; 3]);
    body(&mut m, 3, [0.8, 0.0, 0.0]);
    body(&mut m, 4, [0.0, 0.5, 0.0]);
    let along_x = Placement::default().with_euler313(FRAC_PI_2, FRAC_PI_2, 0.0);
    let along_y = Placement::default().with_euler313(0.0, -FRAC_PI_2, 0.0);
    marker(&mut m, 11, 1, along_x.clone());
    marker(&mut m, 21, 2, along_x);
    joint(&mut m, 3, JointKind::Translational, 21, 11);
    marker(&mut m, 22, 2, Placement::default());
    marker(&mut m, 31, 3, Placement::at(-0.8, 0.0, 0.0));
    joint(&mut m, 1, JointKind::Revolute, 31, 22);
    marker(&mut m, 23, 2, along_y.clone());
    marker(&mut m, 41, 4, along_y);
    joint(&mut m, 2, JointKind::Translational, 41, 23);
    m.couplers.push(Coupler {
        id: 6,
        joints: vec![
            (1, CouplerFreedom::Rotation, 0.2),
            (2, CouplerFreedom::Translation, 1.0),
        ],
    });
    for settings in [
        with(IntegratorKind::Gstiff, Some(Formulation::I3), 1e-7),
        with(IntegratorKind::Gstiff, Some(Formulation::Si2), 1e-7),
        with(IntegratorKind::Abam, None, 1e-7),
    ] {
        let mut sim = Simulation::new(&m).unwrap();
        sim.dynamic(2.0, Some(400), None, &settings).unwrap();
        let (y0, mut th) = (sim.frames[0].q[15] - sim.frames[0].q[1], 0.0);
        let (mut worst, mut drop, mut slide) = (0.0f64, 0.0f64, 0.0f64);
        for f in &sim.frames {
            th = turn(&f.q, 1, th);
            // s₂: B's travel along C's y (C only translates).
            let s = f.q[15] - f.q[1] - y0;
            worst = worst.max((0.2 * th + s).abs());
            drop = drop.max(s.abs());
            slide = slide.max(f.q[0].abs());
        }
        println!(
            "{:?}/{:?}: largest |0.2θ1 + s2| {worst:.1e}, largest |s2| {drop:.3} m, carrier travel {slide:.3} m",
            settings.kind, settings.formulation
        );
        assert!(drop > 0.05, "the slider barely moved ({drop})");
        assert!(worst < 1e-9, "{:?}: |0.2θ1 + s2| = {worst}", settings.kind);
    }
}

/// Ramp motion a·t (value, rate, acceleration).
fn ramp(a: f64) -> Arc<dyn TimeFunction> {
    Arc::new(TimeFn(move |t: f64| [a * t, a, 0.0]))
}

/// Kinematics: the carrier turns at 0.3 rad/s (MOTION on JOINT/3) and A on
/// it at 1.2 rad/s (MOTION on JOINT/1): θ₂ = −θ₁/2 = −0.6 t, so B turns
/// absolutely at φ_B = 0.3 t − 0.6 t = −0.3 t; over 8 s A passes ±π on the
/// carrier several times (θ₁ = 9.6 rad).
#[test]
fn driven_carrier_and_joint_give_the_third_part_its_closed_form_turn() {
    let mut m = pendulums_on_a_carrier();
    m.motions
        .push(Motion::on_joint(1, 3, MotionDof::Rotation, ramp(0.3)));
    m.motions
        .push(Motion::on_joint(2, 1, MotionDof::Rotation, ramp(1.2)));
    let mut sim = Simulation::new(&m).unwrap();
    sim.kinematic(8.0, Some(160), None).unwrap();
    assert!(sim.frames.last().unwrap().t > 7.999);
    let (mut b, mut worst) = (0.0, 0.0f64);
    for f in &sim.frames {
        b = turn(&f.q, 2, b);
        worst = worst.max((b + 0.3 * f.t).abs());
    }
    println!("kinematic three-part coupler: final φ_B {b:.9} rad, largest |φ_B + 0.3t| {worst:.1e}");
    assert!((b + 2.4).abs() < 1e-9, "φ_B(8) = {b}");
    assert!(worst < 1e-9, "{worst}");
}

/// Joints on three separate pairs of moving parts do not fit the two
/// pieces of a row: refused, naming the element and the joint.
#[test]
fn joints_on_three_pairs_of_parts_are_refused() {
    let mut m = Model::new("coupler3 pairs");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    for id in 2..=6 {
        body(&mut m, id, [id as f64, 0.0, 0.0]);
    }
    marker(&mut m, 11, 1, Placement::default());
    joint(&mut m, 1, JointKind::Revolute, 20, 30);
    joint(&mut m, 2, JointKind::Revolute, 40, 50);
    joint(&mut m, 3, JointKind::Revolute, 60, 11);
    m.couplers.push(Coupler {
        id: 7,
        joints: vec![
            (1, CouplerFreedom::Rotation, 1.0),
            (2, CouplerFreedom::Rotation, 2.0),
            (3, CouplerFreedom::Rotation, 3.0),
        ],
    });
    let err = Simulation::new(&m).err().expect("refused").to_string();
    assert!(
        err.contains("COUPLER/7")
            && err.contains("its joints move more than two pairs of parts (JOINT/3 fits neither)"),
        "{err}"
    );
}
