//! COUPLER over joints that move three parts (as FRS5's COUPLER/2–5: two
//! joints on parts 222–31 and 223–31): the row spans a carrier and two
//! parts hinged or sliding on it. Closed forms, measured from the bodies'
//! own coordinates (not from the solver's equation):
//! - two pendulums hinged on a swinging carrier, SCALES 1, 2: the relative
//!   turns keep θ₁ + 2θ₂ = 0 on GSTIFF/I3, GSTIFF/SI2, HASTIFF/SI1, HHT,
//!   NEWMARK, ABAM and VSTIFF (ODE form; VSTIFF's reduced Jacobian by
//!   differences), with the energy held (the reactions do no work);
//! - a slider along a free carrier coupled to a wheel hinged on it
//!   (translation with rotation): 0.2 θ₁ + s₂ = 0;
//! - kinematics, carrier and first joint driven: the third part turns by
//!   φ_B = φ_C − (r₁/r₂)θ₁ exactly, through several turns;
//! - statics: the reduced potential is stationary in both freedoms;
//! - the rows' gradient, λ-weighted Hessian and γ against finite
//!   differences;
//! - joints on three separate pairs of parts are refused naming COUPLER/id,
//!   a repeated coupler is deactivated by name, and a coupler that
//!   contradicts motions is named in the over-constraint error.

mod common;

use common::coupler::{body, joint, marker, ramp, turn};
use common::derivatives::check_derivatives;
use mbsolve_mech::System;
use mbsolve_model::*;
use mbsolve_solver::{Frame, Simulation};
use nalgebra::Vector3;
use std::f64::consts::FRAC_PI_2;

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

/// Kinetic plus potential energy (unit masses, I_zz = 0.2 about the
/// turning axis z, gravity −y).
fn energy(sim: &Simulation, f: &Frame) -> f64 {
    (0..3)
        .map(|b| {
            let (o, w) = (7 * b, sim.sys.body_angular_velocity(&f.q, &f.u, b));
            let v2 = f.u[o].powi(2) + f.u[o + 1].powi(2) + f.u[o + 2].powi(2);
            0.5 * v2 + 0.5 * (0.1 * (w.x * w.x + w.y * w.y) + 0.2 * w.z * w.z) + 9.81 * f.q[o + 1]
        })
        .sum()
}

/// Largest |θ₁ + 2θ₂| over a 2 s swing, with θ₁ = φ_A − φ_C and
/// θ₂ = φ_B − φ_C from the bodies' orientations; how far A swung; and
/// the largest energy change (the coupler's reactions do no work, so a
/// missing or wrong reaction on the third part shows here).
fn swing(settings: &IntegratorSettings) -> (f64, f64, f64) {
    let m = pendulums_on_a_carrier();
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(2.0, Some(400), None, settings).unwrap();
    assert!(sim.frames.last().unwrap().t > 1.999);
    let (mut c, mut a, mut b) = (0.0, 0.0, 0.0);
    let (mut worst, mut reach, mut drift) = (0.0f64, 0.0f64, 0.0f64);
    let e0 = energy(&sim, &sim.frames[0]);
    for f in &sim.frames {
        drift = drift.max((energy(&sim, f) - e0).abs());
        c = turn(&f.q, 0, c);
        a = turn(&f.q, 1, a);
        b = turn(&f.q, 2, b);
        worst = worst.max(((a - c) + 2.0 * (b - c)).abs());
        reach = reach.max((a - c).abs());
    }
    (worst, reach, drift)
}

#[test]
fn pendulums_on_a_swinging_carrier_keep_the_coupled_turns_on_every_formulation() {
    let runs = [
        common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Gstiff, Formulation::Si2, 1e-7),
        common::settings(IntegratorKind::Hastiff, Formulation::Si1, 1e-7),
        common::settings(IntegratorKind::Hht, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Abam, Formulation::Ode, 1e-7),
        common::settings(IntegratorKind::Newmark, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Vstiff, Formulation::Ode, 1e-7),
    ];
    for settings in &runs {
        let (worst, reach, drift) = swing(settings);
        println!(
            "{:?}/{:?}: largest |θ1 + 2θ2| {worst:.1e} rad, largest |θ1| {reach:.3} rad, |ΔE| {drift:.1e} J",
            settings.kind, settings.formulation
        );
        // The coupler moves: A turns on the carrier by a visible angle.
        assert!(
            reach > 0.05,
            "{:?}: A barely moved ({reach})",
            settings.kind
        );
        assert!(worst < 1e-9, "{:?}: |θ1 + 2θ2| = {worst}", settings.kind);
        // HHT's α = −0.3 and NEWMARK damp numerically (2.5e-4 J and
        // 7.3e-2 J measured; NEWMARK loses 7.8e-2 J on the same model
        // without the coupler); the others hold the energy to a few 1e-6 J
        // at ERROR 1e-7.
        let allowed = match settings.kind {
            IntegratorKind::Hht => 1e-3,
            IntegratorKind::Newmark => 0.1,
            _ => 1e-5,
        };
        assert!(drift < allowed, "{:?}: |ΔE| = {drift} J", settings.kind);
    }
}

/// Carrier C (part 2) slides freely along ground x (JOINT/3, z axes along
/// x); wheel A (part 3, CM at x = 0.8 off its hinge) hinged on C at the
/// origin (JOINT/1); slider B (part 4) slides along C's y axis (JOINT/2,
/// z axes along y); gravity −y. COUPLER/6: 0.2·θ₁ + s₂ = 0 (TYPE R T,
/// SCALES 0.2, 1): the wheel winds up the slider's drop.
fn slider_and_wheel() -> Model {
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
    m
}

#[test]
fn a_slider_and_a_wheel_on_a_sliding_carrier_keep_their_ratio() {
    let m = slider_and_wheel();
    for settings in [
        common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Gstiff, Formulation::Si2, 1e-7),
        common::settings(IntegratorKind::Abam, Formulation::Ode, 1e-7),
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

/// The FORCE request on the wheel (31 to 22, JOINT/1's markers) and on the
/// slider (41 to 23, JOINT/2's) of [`slider_and_wheel`]: the joint and the
/// COUPLER (both markers belong to its joints) are every constraint on
/// that part, so the request must be the whole constraint wrench,
/// F = m·a − m·g and, about the request's marker x, T = I ω̇ + ω × I ω +
/// (r_cm − x) × F (gravity has no moment about the CM), with a, ω, ω̇ of
/// the same frame, to 1e-9. The wheel lies in the COUPLER's first piece,
/// the slider in its second; the COUPLER used to be left out of FORCE
/// requests altogether. GSTIFF I3 and SI2.
#[test]
fn force_requests_on_a_three_part_coupler_are_the_whole_constraint_wrench() {
    use mbsolve_model::{Request, RequestKind};
    use mbsolve_solver::requests::evaluate;
    let m = slider_and_wheel();
    let request = |kind, i, j| Request {
        id: 1,
        kind,
        i,
        j,
        rm: None,
        comment: String::new(),
    };
    let g = Vector3::new(0.0, -9.81, 0.0);
    for settings in [
        common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Gstiff, Formulation::Si2, 1e-7),
    ] {
        let mut sim = Simulation::new(&m).unwrap();
        sim.dynamic(1.0, Some(20), None, &settings).unwrap();
        let (mut worst, mut largest) = (0.0f64, 0.0f64);
        for f in &sim.frames {
            // (I, J, body index): wheel A (part 3), slider B (part 4).
            for (i, j, b) in [(31, 22, 1), (41, 23, 2)] {
                let o = 7 * b;
                let at = |kind| evaluate(&sim.sys, &sim.model, f, &request(kind, i, None));
                let (x, acc) = (at(RequestKind::Displacement), at(RequestKind::Acceleration));
                let w = at(RequestKind::Velocity);
                let (x, w, wd) = (
                    Vector3::new(x[0], x[1], x[2]),
                    Vector3::new(w[3], w[4], w[5]),
                    Vector3::new(acc[3], acc[4], acc[5]),
                );
                let p = nalgebra::Vector4::new(f.q[o + 3], f.q[o + 4], f.q[o + 5], f.q[o + 6]);
                let a_rot = mbsolve_mech::rotation::rot(&p);
                let inertia = a_rot
                    * nalgebra::Matrix3::from_diagonal(&Vector3::new(0.1, 0.1, 0.2))
                    * a_rot.transpose();
                let r = Vector3::new(f.q[o], f.q[o + 1], f.q[o + 2]);
                let force = Vector3::new(f.a[o], f.a[o + 1], f.a[o + 2]) - g;
                let torque = inertia * wd + w.cross(&(inertia * w)) + (r - x).cross(&force);
                let fr = evaluate(
                    &sim.sys,
                    &sim.model,
                    f,
                    &request(RequestKind::Force, i, Some(j)),
                );
                for k in 0..3 {
                    worst = worst.max((fr[k] - force[k]).abs());
                    worst = worst.max((fr[k + 3] - torque[k]).abs());
                }
                largest = largest.max(force.norm());
            }
        }
        println!(
            "{:?}/{:?}: FORCE requests against the constraint wrench {worst:.1e} (largest force {largest:.2} N)",
            settings.kind, settings.formulation
        );
        assert!(largest > 1.0, "the parts barely pushed ({largest} N)");
        assert!(worst < 1e-9, "{:?}: off by {worst:e}", settings.kind);
    }
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
    println!(
        "kinematic three-part coupler: final φ_B {b:.9} rad, largest |φ_B + 0.3t| {worst:.1e}"
    );
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

/// Unit quaternion of a turn φ about z.
fn about_z(q: &mut [f64], b: usize, phi: f64) {
    let o = 7 * b + 3;
    q[o..o + 4].copy_from_slice(&[(0.5 * phi).cos(), 0.0, 0.0, (0.5 * phi).sin()]);
}

/// The coupler rows' gradients (both pieces), their λ-weighted Hessians
/// and γ match finite differences: the sine form (rotations only) where
/// the coupler holds away from the input configuration (θ₁ = 2, θ₂ = −1
/// on a carrier turned 0.7 rad; there the cross-piece Hessian blocks,
/// ∝ sin x, vanish), and the linear form (rotation with translation) at a
/// generic perturbed state with non-unit Euler parameters.
#[test]
fn three_part_coupler_rows_match_finite_differences() {
    let sys = System::new(&pendulums_on_a_carrier()).unwrap();
    assert!(sys.equations.iter().any(|e| e.extra_bodies().is_some()));
    let (mut q, _) = sys.initial_state();
    about_z(&mut q, 0, 0.7);
    about_z(&mut q, 1, 0.7 + 2.0);
    about_z(&mut q, 2, 0.7 - 1.0);
    let n = sys.nq();
    let u: Vec<f64> = (0..n).map(|k| 0.5 * (0.7 * k as f64).cos()).collect();
    let a: Vec<f64> = (0..n).map(|k| 0.3 * (1.9 * k as f64).sin()).collect();
    check_derivatives(&sys, &q, &u, &a, 0.0);

    let sys = System::new(&slider_and_wheel()).unwrap();
    assert!(sys.equations.iter().any(|e| e.extra_bodies().is_some()));
    let (mut q, _) = sys.initial_state();
    for (k, x) in q.iter_mut().enumerate() {
        *x += 0.05 * (1.3 * k as f64).sin();
    }
    check_derivatives(&sys, &q, &u, &a, 0.0);
}

/// A second coupler stating the same law (SCALES 2, 4 on the same joints)
/// is redundant: it is found and deactivated by name, one equation, and
/// the remaining one holds the law (2 DOF left of 3 hinges − 1 coupler).
#[test]
fn a_repeated_three_part_coupler_is_deactivated_by_name() {
    let mut m = pendulums_on_a_carrier();
    m.couplers.push(Coupler {
        id: 8,
        joints: vec![
            (1, CouplerFreedom::Rotation, 2.0),
            (2, CouplerFreedom::Rotation, 4.0),
        ],
    });
    let mut sim = Simulation::new(&m).unwrap();
    sim.initial_conditions().unwrap();
    let off: Vec<ElementRef> = (0..sim.sys.neq())
        .filter(|&k| !sim.data.active[k])
        .map(|k| sim.sys.equations[k].element)
        .collect();
    assert_eq!(off, [ElementRef::Coupler(8)]);
    assert!(
        sim.log
            .iter()
            .any(|l| l.starts_with("deactivating constraint equation") && l.contains("COUPLER/8")),
        "{:?}",
        sim.log
    );
    assert_eq!(sim.sys.dof(&sim.data), 2);
}

/// Motions on all three hinges contradict the coupler: the message names
/// it and says the model is inconsistently over-constrained.
#[test]
fn a_three_part_coupler_contradicting_motions_is_named() {
    let mut m = pendulums_on_a_carrier();
    for (id, joint, rate) in [(1, 3, 0.3), (2, 1, 1.2), (3, 2, 1.2)] {
        m.motions
            .push(Motion::on_joint(id, joint, MotionDof::Rotation, ramp(rate)));
    }
    let mut sim = Simulation::new(&m).unwrap();
    let err = sim.kinematic(0.5, Some(10), None).unwrap_err().to_string();
    assert!(
        err.contains("in COUPLER/5 is not satisfied by the assembled configuration")
            && err.contains("inconsistently over-constrained"),
        "{err}"
    );
}

/// Static equilibrium of the pendulums on the carrier: with φ_A = φ_C + θ₁
/// and φ_B = φ_C − θ₁/2 (the coupler), the potential
/// V = g (0.6 sin φ_C + 0.4 sin φ_A − 0.5 sin φ_C − 0.5 sin φ_B) (unit
/// masses; C's CM is on its hinge) is stationary in both freedoms:
/// ∂V/∂φ_C = g (0.1 cos φ_C + 0.4 cos φ_A − 0.5 cos φ_B) = 0 and
/// ∂V/∂θ₁ = g (0.4 cos φ_A + 0.25 cos φ_B) = 0, checked on the bodies'
/// turns to 1e-8 N·m (at the input configuration the second is 6.4 N·m).
/// Steps limited to ALIMIT 0.1 rad, TLIMIT 0.5: the pendulums start
/// horizontal, where full Newton steps overshoot this non-convex potential.
#[test]
fn statics_of_pendulums_on_a_carrier_make_the_reduced_potential_stationary() {
    let mut sim = Simulation::new(&pendulums_on_a_carrier()).unwrap();
    let settings = StaticSettings {
        alimit: Some(0.1),
        tlimit: Some(0.5),
        max_num_iter: Some(500),
        ..common::fim_s(1e-10)
    };
    sim.static_equilibrium(&settings).unwrap();
    let f = sim.frames.last().unwrap();
    let (c, a, b) = (turn(&f.q, 0, 0.0), turn(&f.q, 1, 0.0), turn(&f.q, 2, 0.0));
    let g = 9.81;
    let d_carrier = g * (0.1 * c.cos() + 0.4 * a.cos() - 0.5 * b.cos());
    let d_coupled = g * (0.4 * a.cos() + 0.25 * b.cos());
    println!(
        "statics: φ_C {c:.6}, φ_A {a:.6}, φ_B {b:.6}; ∂V/∂φ_C {d_carrier:.1e}, ∂V/∂θ1 {d_coupled:.1e}, |θ1 + 2θ2| {:.1e}",
        ((a - c) + 2.0 * (b - c)).abs()
    );
    assert!(((a - c) + 2.0 * (b - c)).abs() < 1e-9);
    assert!(d_carrier.abs() < 1e-8, "∂V/∂φ_C = {d_carrier}");
    assert!(d_coupled.abs() < 1e-8, "∂V/∂θ1 = {d_coupled}");
}
