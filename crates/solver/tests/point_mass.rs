//! POINT_MASS (Adams Solver POINT_MASS statement: mass, position and
//! translational velocity, a constant orientation, three degrees of
//! freedom) end to end: a point mass on a spring against the closed-form
//! period, one thrown under gravity against the parabola, one hanging by a
//! SPHERICAL joint at the tip of a swinging rod against the compound
//! pendulum's exact period, the I3/SI2/SI1 iteration matrices against
//! central differences (the refusal of rotational elements on a point mass
//! is tested on decks: cli/tests/point_mass_deck.rs).

mod common;

use mbsolve_model::point_mass::{key, point_mass};
use mbsolve_model::*;
use mbsolve_solver::Simulation;
use nalgebra::Vector3;
use std::f64::consts::PI;

const G: f64 = 9.81;

fn marker(id: Id, part: Id, at: Vector3<f64>) -> Marker {
    Marker {
        id,
        part,
        placement: Placement::at(at.x, at.y, at.z),
    }
}

/// POINT_MASS/1 (mass `m`, CM marker 20) at `at` with velocity `v`, and
/// PART/1, the ground, with marker 10 at the origin: the two ids 1 live in
/// separate id spaces.
fn free_point_mass(m: f64, at: Vector3<f64>, v: Vector3<f64>) -> Model {
    let mut model = Model::new("point mass");
    model.parts.push(Part::ground(1));
    let mut pm = point_mass(1, m, Placement::at(at.x, at.y, at.z), v);
    pm.cm = Some(20);
    model.parts.push(pm);
    model.markers.push(marker(10, 1, Vector3::zeros()));
    model.markers.push(marker(20, key(1), Vector3::zeros()));
    model
}

/// m = 2 kg on a k = 50 N/m spring along x (free length 1, released at
/// x = 1.3 from rest, no gravity): x(t) = 1 + 0.3 cos(ω t), ω = √(k/m).
/// The period from the zero crossings of x − 1 matches 2π/ω to 1e-6
/// relative, and y, z stay 0. DOF = 3 (a point mass has no rotation).
fn spring_period(settings: IntegratorSettings) -> f64 {
    let (m, k) = (2.0, 50.0);
    let mut model = free_point_mass(m, Vector3::new(1.3, 0.0, 0.0), Vector3::zeros());
    model.forces.push(Force {
        id: 1,
        i: 20,
        j: 10,
        kind: ForceKind::TranslationalSpringDamper {
            stiffness: k,
            damping: 0.0,
            free_length: 1.0,
            preload: 0.0,
        },
    });
    let mut sim = Simulation::new(&model).unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 3);
    sim.dynamic(3.0, Some(3000), None, &settings).unwrap();
    let omega = (k / m).sqrt();
    let mut worst = 0.0f64;
    let mut crossings = Vec::new();
    for w in sim.frames.windows(2) {
        let (a, b) = (w[0].q[0] - 1.0, w[1].q[0] - 1.0);
        if a * b < 0.0 {
            crossings.push(w[0].t + (w[1].t - w[0].t) * a / (a - b));
        }
        let f = &w[1];
        let want = 1.0 + 0.3 * (omega * f.t).cos();
        worst = worst.max((f.q[0] - want).abs() + f.q[1].abs() + f.q[2].abs());
    }
    let period =
        2.0 * (crossings[crossings.len() - 1] - crossings[0]) / (crossings.len() - 1) as f64;
    let exact = 2.0 * PI / omega;
    println!(
        "{:?}/{:?}: period {period:.8} vs {exact:.8}, worst |x − x(t)| {worst:.2e} m",
        settings.kind, settings.formulation
    );
    assert!(worst < 1e-4, "{worst}");
    (period - exact).abs() / exact
}

#[test]
fn point_mass_on_a_spring_has_the_closed_form_period() {
    for s in [
        common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Gstiff, Formulation::Si2, 1e-7),
        common::settings(IntegratorKind::Hht, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Abam, Formulation::Ode, 1e-7),
    ] {
        let e = spring_period(s);
        assert!(e < 1e-6, "period off by {e:.2e} relative");
    }
}

/// Thrown at (1, 2, 3) m/s from (0, 5, 0) under g = −9.81 ŷ: the CM follows
/// r0 + v0 t − g t²/2 ŷ to 1e-6 m at ERROR 1e-8 (observed 9.8e-8 m), and
/// a marker on the point mass off its CM keeps its offset and its axes in
/// ground (to round-off: the orientation rows hold them).
#[test]
fn point_mass_falls_on_the_parabola_and_its_markers_do_not_turn() {
    let v0 = Vector3::new(1.0, 2.0, 3.0);
    let mut model = free_point_mass(0.5, Vector3::new(0.0, 5.0, 0.0), v0);
    model.gravity = Vector3::new(0.0, -G, 0.0);
    let mut off = marker(21, key(1), Vector3::new(0.2, -0.1, 0.3));
    off.placement = off.placement.with_euler313(0.3, 0.2, 0.1);
    model.markers.push(off);
    let mut sim = Simulation::new(&model).unwrap();
    let settings = common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-8);
    sim.dynamic(1.0, Some(50), None, &settings).unwrap();
    let mut worst = 0.0f64;
    let mut worst_turn = 0.0f64;
    let r21 = euler313(0.3, 0.2, 0.1);
    for f in &sim.frames {
        let want =
            Vector3::new(0.0, 5.0, 0.0) + v0 * f.t - Vector3::new(0.0, 0.5 * G * f.t * f.t, 0.0);
        worst = worst.max((Vector3::new(f.q[0], f.q[1], f.q[2]) - want).norm());
        let mk = *sim.sys.marker(21);
        let body = mbsolve_mech::system::pose(&f.q, mk.body.unwrap());
        let a = mbsolve_mech::rotation::rot(&body.p);
        let (x21, a21) = (body.r + a * mk.s, a * mk.axes);
        worst = worst.max((x21 - want - Vector3::new(0.2, -0.1, 0.3)).norm());
        worst_turn = worst_turn.max((a21 - r21).norm());
    }
    println!("thrown point mass: worst position error {worst:.2e} m, marker turn {worst_turn:.2e}");
    assert!(sim.frames.last().unwrap().t > 0.999);
    assert!(worst < 1e-6, "{worst}");
    assert!(worst_turn < 1e-12, "{worst_turn}");
}

/// A uniform rod (PART/2, M = 1 kg, length L = 1 m) on a REVOLUTE joint to
/// ground at the origin (axis z), swinging in the xy plane, and
/// POINT_MASS/2 (m = 0.5 kg) hanging from the rod's tip by a SPHERICAL
/// joint whose marker on the point mass sits 0.1 m off its CM. A point
/// mass has no rotation, so its CM moves rigidly with the tip (its offset
/// fixed in ground) and adds m L² to the rod's inertia about the pivot,
/// I = M L²/3 + m L², with no inertia of its own. The compound pendulum
/// θ'' = −(M g L/2 + m g L)/I sin θ has the exact period
/// T = 4 √(I/(m_tot g d)) K(sin θ0/2).
fn rod_with_point_mass(theta0: f64) -> (Model, f64) {
    let (big_m, m, l) = (1.0, 0.5, 1.0);
    let mut model = Model::new("rod + point mass");
    model.gravity = Vector3::new(0.0, -G, 0.0);
    model.parts.push(Part::ground(1));
    let (s, c) = theta0.sin_cos();
    let dir = Vector3::new(s, -c, 0.0);
    let mid = dir * (0.5 * l);
    let tip = dir * l;
    let ic = big_m * l * l / 12.0;
    let mut rod = Part::body(
        2,
        big_m,
        Inertia::diagonal(ic, 1e-4, ic),
        Placement::at(mid.x, mid.y, mid.z).with_euler313(theta0, 0.0, 0.0),
    );
    rod.cm = Some(20);
    model.parts.push(rod);
    let offset = Vector3::new(0.1, 0.0, 0.0);
    let pm_at = tip - offset;
    let mut pm = point_mass(
        2,
        m,
        Placement::at(pm_at.x, pm_at.y, pm_at.z),
        Vector3::zeros(),
    );
    pm.cm = Some(30);
    model.parts.push(pm);
    model.markers.push(marker(10, 1, Vector3::zeros()));
    model.markers.push(marker(20, 2, Vector3::zeros()));
    // Pivot (rod top) and tip in the rod's frame: the rod lies along its −y.
    model
        .markers
        .push(marker(21, 2, Vector3::new(0.0, 0.5 * l, 0.0)));
    model
        .markers
        .push(marker(22, 2, Vector3::new(0.0, -0.5 * l, 0.0)));
    model.markers.push(marker(30, key(2), Vector3::zeros()));
    model.markers.push(marker(31, key(2), offset));
    model.joints.push(Joint {
        id: 1,
        kind: JointKind::Revolute,
        i: 21,
        j: 10,
    });
    model.joints.push(Joint {
        id: 2,
        kind: JointKind::Spherical,
        i: 31,
        j: 22,
    });
    let inertia = big_m * l * l / 3.0 + m * l * l;
    let moment = big_m * G * 0.5 * l + m * G * l;
    let exact = 4.0 * (inertia / moment).sqrt() * common::ellip_k((0.5 * theta0).sin());
    (model, exact)
}

fn rod_period(settings: IntegratorSettings) -> f64 {
    let (model, exact) = rod_with_point_mass(0.6);
    let mut sim = Simulation::new(&model).unwrap();
    // rod 6 − 5 (revolute) + point mass 3 − 3 (spherical) = 1
    assert_eq!(sim.sys.dof(&sim.data), 1);
    sim.dynamic(4.0, Some(4000), None, &settings).unwrap();
    // The rod's CM x crosses 0 twice per period.
    let period = common::mean_period(&sim.frames);
    println!(
        "{:?}/{:?}: rod + point mass period {period:.7} vs {exact:.7}",
        settings.kind, settings.formulation
    );
    (period - exact).abs() / exact
}

#[test]
fn point_mass_on_a_spherical_joint_adds_m_l_squared_to_a_swinging_rod() {
    for s in [
        common::settings(IntegratorKind::Gstiff, Formulation::I3, 1e-7),
        common::settings(IntegratorKind::Gstiff, Formulation::Si2, 1e-7),
        common::settings(IntegratorKind::Hastiff, Formulation::Si1, 1e-7),
        common::settings(IntegratorKind::Abam, Formulation::Ode, 1e-7),
    ] {
        let e = rod_period(s);
        assert!(e < 2e-6, "period off by {e:.2e} relative");
    }
}

/// The point-mass orientation rows in the I3, SI2 and SI1 iteration
/// matrices against central differences of the residuals.
#[test]
fn point_mass_iteration_matrices_match_differences() {
    let (model, _) = rod_with_point_mass(0.6);
    let mut sim = Simulation::new(&model).unwrap();
    sim.initial_conditions().unwrap();
    common::assert_formulation_jacobians("POINT_MASS", &sim);
}
