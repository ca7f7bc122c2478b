//! PSI THETA PHI (body 3-1-3) and YAW PITCH ROLL (body 3-2-1) in force
//! functions: (1) the force function reads the same value as the request
//! (FrameContext) at random orientations, (2) the analytic ∂R/∂q of a force
//! reading all six matches central differences, (3) a torsion spring
//! T = −k·YAW (and −k·PSI, on the θ = 0 branch) gives the closed-form
//! oscillation φ(t) = φ0 cos(√(k/I) t).

mod common;

use common::force_probe::*;
use mbsolve_expr::{Expr, ExprStateFunction};
use mbsolve_mech::System;
use mbsolve_model::*;
use nalgebra::Vector3;
use std::sync::Arc;

const NAMES: [&str; 6] = ["PSI", "THETA", "PHI", "YAW", "PITCH", "ROLL"];

#[test]
fn force_values_equal_request_values_at_random_orientations() {
    let mut seed = 7u64;
    let mut worst = 0.0f64;
    for _ in 0..25 {
        let e2 = [rand(&mut seed), rand(&mut seed) / 2.0, rand(&mut seed)];
        let e3 = [rand(&mut seed), rand(&mut seed) / 2.0, rand(&mut seed)];
        for (i, j) in [(21, Some(31)), (31, Some(21)), (21, None), (31, Some(11))] {
            for name in NAMES {
                let text = match j {
                    Some(j) => format!("{name}({i}, {j})"),
                    None => format!("{name}({i})"),
                };
                // The force's J is the measure's J part (or ground).
                let (force, request) =
                    force_and_request(two_bodies(e2, e3), &text, i, j.unwrap_or(11));
                assert!(
                    (force - request).abs() <= 1e-12,
                    "{text} at {e2:?} {e3:?}: force reads {force}, request {request}"
                );
                worst = worst.max((force - request).abs());
            }
        }
    }
    println!("largest force − request difference {worst:.1e} rad");
}

/// ∂R/∂q (and ∂R/∂u) of forces whose functions read all six angles
/// between two moving parts and of a part against ground, by central
/// differences (`jacobian_matches_finite_differences`).
#[test]
fn euler_measure_jacobians_match_finite_differences() {
    let nonlinear = |args: &str| {
        let terms: Vec<String> = NAMES
            .iter()
            .enumerate()
            .map(|(k, n)| {
                format!(
                    "{}*SIN({n}({args}) + {})",
                    1.0 + 0.3 * k as f64,
                    0.1 * k as f64
                )
            })
            .collect();
        format!("{} + PSI({args})*ROLL({args})", terms.join(" + "))
    };
    let nonzero =
        three_forces_jacobian_matches(two_bodies([0.3, 0.8, -1.2], [2.1, 1.9, 0.4]), &nonlinear);
    // The forces do depend on the orientations (not a vacuous check).
    assert!(nonzero > 20, "{nonzero} nonzero entries");
}

#[test]
fn torsion_spring_on_yaw_and_psi_oscillates_with_the_closed_form_period() {
    for angle in ["YAW", "PSI"] {
        let err = torsion_spring_error(&|markers| format!("{angle}({markers})"));
        println!("{angle}: largest angle error over two periods {err:.1e} rad");
        // φ0 cos(ωt) within 1e-6 rad over two periods: a period off by
        // δT shifts the phase by 2·2π δT/T, so δT/T ≤ ~1e-7.
        assert!(err < 1e-6, "{angle}: {err}");
    }
}

/// `two_bodies` with the parts moving: CM velocities and angular
/// velocities (ground axes) from the pseudo-random stream.
fn two_moving_bodies(seed: &mut u64) -> Model {
    let e2 = [rand(seed), rand(seed) / 2.0, rand(seed)];
    let e3 = [rand(seed), rand(seed) / 2.0, rand(seed)];
    let mut m = two_bodies(e2, e3);
    for p in m.parts.iter_mut().filter(|p| p.id != 1) {
        p.velocity = Vector3::new(rand(seed), rand(seed), rand(seed)) * 0.3;
        p.angular_velocity = Vector3::new(rand(seed), rand(seed), rand(seed)) * 0.5;
    }
    m
}

/// Velocities whose derivative is taken in a moving frame (VX/VY/VZ with a
/// fourth argument, VM and VR with a third) and INCANG (which the parser
/// expands into displacement measures) read the same value in a force
/// function as in a request, on 25 random moving configurations.
#[test]
fn frame_velocity_and_incang_force_values_equal_request_values() {
    let texts = [
        "VX(21, 31, 11, 31)",
        "VY(21, 31, 31, 21)",
        "VZ(31, 21, 0, 31)",
        "VX(21, 0, 21, 21)",
        "VZ(21, 31, 0, 11)",
        "VM(21, 31, 31)",
        "VM(31, 11, 31)",
        "VR(21, 31, 21)",
        "INCANG(21, 31, 11)",
    ];
    let mut seed = 11u64;
    let mut worst = 0.0f64;
    for _ in 0..25 {
        let base = two_moving_bodies(&mut seed);
        for text in texts {
            let (force, request) = force_and_request(base.clone(), text, 21, 31);
            assert!(
                (force - request).abs() <= 1e-12 * (1.0 + request.abs()),
                "{text}: force reads {force}, request {request}"
            );
            worst = worst.max((force - request).abs());
        }
    }
    println!("largest force − request difference {worst:.1e}");
}

/// ∂R/∂q and ∂R/∂u of forces reading the frame velocities, by central
/// differences (`jacobian_matches_finite_differences`), between two
/// moving parts and a part against ground.
#[test]
fn frame_velocity_jacobians_match_finite_differences() {
    let mut seed = 5u64;
    let mut m = two_moving_bodies(&mut seed);
    let texts = [
        ("21, 31", "VX(21, 31, 11, 31)*VY(21, 31, 21, 21) + SIN(VZ(31, 21, 31, 21)) + VM(21, 31, 31)**2 + VR(21, 31, 31)"),
        ("31, 11", "VX(31, 11, 31, 31) + 0.5*VY(31, 0, 11, 31)*VM(31, 11, 31) + COS(VZ(31, 11, 0, 31))"),
    ];
    for (id, (pair, text)) in texts.into_iter().enumerate() {
        let ids: Vec<Id> = pair.split(", ").map(|x| x.parse().unwrap()).collect();
        let function: Arc<dyn StateFunction> =
            Arc::new(ExprStateFunction::new(Expr::parse(text).unwrap()).unwrap());
        m.forces.push(Force {
            id: id as Id + 1,
            i: ids[0],
            j: ids[1],
            kind: match id {
                0 => ForceKind::TranslationalActionReaction { function },
                _ => ForceKind::RotationalActionOnly { function },
            },
        });
    }
    let sys = System::new(&m).expect("valid model");
    let (q, u) = sys.initial_state();
    let nonzero = jacobian_matches_finite_differences(&sys, &q, &u, 0.37);
    assert!(nonzero > 40, "{nonzero} nonzero entries");
}

/// A pendulum (CM 0.5 from the pivot) turned by a MOTION from 5° at 400°/s
/// about ground z: at t, the line pivot → tip is at θ(t) = 5° + 400°·t
/// from the ground x axis. `torque` is the FUNCTION of a rotational
/// action-only SFORCE on it (about ground z).
fn driven_pendulum(torque: &str) -> Model {
    let deck = format!(
        "INCANG pendulum
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
MARKER/11, PART = 1, QP = 1, 0, 0
PART/2, MASS = 1, CM = 22, IP = 0.1, 0.1, 0.1, REULER = 5D, 0, 0
MARKER/20, PART = 2, QP = 0, 0, 0
MARKER/21, PART = 2, QP = 1, 0, 0
MARKER/22, PART = 2, QP = 0.5, 0, 0
JOINT/1, REVOLUTE, I = 20, J = 10
MOTION/1, ROTATIONAL, JOINT = 1, FUNCTION = 5D + 400D*TIME
SFORCE/1, ROTATIONAL, ACTIONONLY, I = 20, J = 10, FUNCTION = {torque}
REQUEST/1, F2 = INCANG(21, 10, 11)\\F3 = SFORCE(1, 0, 8, 10)
END
"
    );
    mbsolve_adm::read_adm_str(&deck, "incang_pendulum.adm").unwrap()
}

/// INCANG follows the turn past 180° and 360° (Adams: a pendulum turning
/// from 5° to 355° reads 355°, not 5°), in a request and in a force
/// function alike: kinematics of the driven pendulum to 405° (1 s, 100
/// outputs, 4° apart); the request's INCANG(tip, pivot, ground +x) and the
/// SFORCE whose FUNCTION is that INCANG (read back as SFORCE(1, 0, 8, 10),
/// its torque about ground z) both equal the closed form θ(t) = 5° +
/// 400°·t to 1e-9 rad at every output.
#[test]
fn incang_reads_the_continuous_angle_past_180_degrees() {
    let model = driven_pendulum("INCANG(21, 10, 11)");
    let mut sim = mbsolve_solver::Simulation::new(&model).unwrap();
    sim.kinematic(1.0, Some(100), None).unwrap();
    let outputs = mbsolve_solver::requests::Outputs::new(&model)
        .unwrap()
        .bind_run(&sim.model);
    let col = |name: &str| outputs.header.iter().position(|h| h == name).unwrap() + 1;
    let (incang, torque) = (col("request_1.f2"), col("request_1.f3"));
    let (rows, failed) = outputs.table(&sim.sys, &sim.model, &sim.frames);
    assert!(failed.is_none(), "{failed:?}");
    assert_eq!(rows.len(), 101);
    let deg = std::f64::consts::PI / 180.0;
    let (mut worst, mut past_180) = (0.0f64, 0);
    for r in &rows {
        let theta = 5.0 * deg + 400.0 * deg * r[0];
        for c in [incang, torque] {
            assert!(
                (r[c] - theta).abs() < 1e-9,
                "t = {}: column {c} reads {}°, closed form {}°",
                r[0],
                r[c] / deg,
                theta / deg
            );
            worst = worst.max((r[c] - theta).abs());
        }
        past_180 += usize::from(theta > 180.0 * deg);
    }
    println!("INCANG past 180°: largest error {worst:.1e} rad over {past_180} outputs beyond 180°");
    assert!(past_180 > 50);
}

/// The force path through its derivatives: a rotor (Izz = 0.1, no
/// gravity, no motion) on a torsion spring T = −k·(INCANG − π) released
/// at 5° swings to 355° and back, θ(t) = π − (π − 5°)·cos(√(k/Izz)·t);
/// the folded angle (never above π) would hold it below 180°. Over one
/// period at ERROR = 1e-10 the rotor angle follows the closed form to
/// 1e-6 rad, and the request's INCANG reads the rotor angle to 1e-9.
#[test]
fn torsion_spring_on_incang_swings_past_180_degrees() {
    let (k, izz) = (2.0f64, 0.1f64);
    let mut model = driven_pendulum(&format!("-{k}*(INCANG(21, 10, 11) - PI)"));
    model.motions.clear();
    model.gravity = Vector3::zeros();
    // The CM at the pivot: a rotor of Izz about the joint axis.
    let cm = model.markers.iter_mut().find(|m| m.id == 22).unwrap();
    cm.placement = Placement::at(0.0, 0.0, 0.0);
    let omega = (k / izz).sqrt();
    let period = std::f64::consts::TAU / omega;
    let mut sim = mbsolve_solver::Simulation::new(&model).unwrap();
    let settings = IntegratorSettings {
        error: Some(1e-10),
        ..Default::default()
    };
    sim.dynamic(period, Some(100), None, &settings).unwrap();
    let outputs = mbsolve_solver::requests::Outputs::new(&model)
        .unwrap()
        .bind_run(&sim.model);
    let incang = outputs
        .header
        .iter()
        .position(|h| h == "request_1.f2")
        .unwrap()
        + 1;
    let (rows, failed) = outputs.table(&sim.sys, &sim.model, &sim.frames);
    assert!(failed.is_none(), "{failed:?}");
    let theta0 = 5f64.to_radians();
    let (mut worst, mut worst_request, mut highest) = (0.0f64, 0.0f64, 0.0f64);
    for (f, r) in sim.frames.iter().zip(&rows) {
        // Rotation about z: e0 = cos(θ/2), e3 = sin(θ/2), θ in [0, 2π).
        let theta = (2.0f64 * f.q[6].atan2(f.q[3])).rem_euclid(std::f64::consts::TAU);
        let exact = std::f64::consts::PI - (std::f64::consts::PI - theta0) * (omega * f.t).cos();
        worst = worst.max((theta - exact).abs());
        worst_request = worst_request.max((r[incang] - theta).abs());
        highest = highest.max(theta);
    }
    println!(
        "torsion spring on INCANG: largest angle error {worst:.1e} rad, request − rotor {worst_request:.1e}, highest {:.3}°",
        highest.to_degrees()
    );
    assert!(
        highest > 354.9f64.to_radians(),
        "it swings to 355°: {highest}"
    );
    assert!(worst < 1e-6, "{worst}");
    assert!(worst_request < 1e-9, "{worst_request}");
}
