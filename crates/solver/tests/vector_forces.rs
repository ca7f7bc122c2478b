//! VFORCE, VTORQUE and GFORCE on free bodies with closed-form answers, and
//! the reaction on the JFLOAT part checked by momentum conservation.

use mbsolve_mech::rotation::rot;
use mbsolve_model::*;
use mbsolve_solver::Simulation;
use nalgebra::{Matrix3, Vector3, Vector4};
use std::sync::Arc;

fn settings(error: f64) -> IntegratorSettings {
    IntegratorSettings {
        error: Some(error),
        ..Default::default()
    }
}

fn marker(m: &mut Model, id: Id, part: Id, placement: Placement) {
    m.markers.push(Marker {
        id,
        part,
        placement,
    });
}

/// Ground (part 1, marker 10) and, without gravity, free bodies 2, 3, …
/// with CM markers 20, 30, … at their origins, placed at `at`.
fn free_bodies(bodies: &[(f64, Inertia, Placement)]) -> Model {
    let mut m = Model::new("vector forces");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    marker(&mut m, 10, 1, Placement::default());
    for (n, (mass, inertia, at)) in bodies.iter().enumerate() {
        let id = n as Id + 2;
        let mut body = Part::body(id, *mass, *inertia, at.clone());
        body.cm = Some(10 * id);
        m.parts.push(body);
        marker(&mut m, 10 * id, id, Placement::default());
    }
    m
}

fn constant(v: f64) -> Option<Arc<dyn StateFunction>> {
    Some(Arc::new(Constant(v)))
}

fn vector(
    statement: VectorStatement,
    id: Id,
    i: Id,
    rm: Id,
    reaction_part: Id,
    components: [Option<Arc<dyn StateFunction>>; 6],
) -> Force {
    Force {
        id,
        i,
        j: rm,
        kind: ForceKind::Vector {
            statement,
            jfloat: 900 + id,
            reaction_part,
            components,
        },
    }
}

/// A constant VFORCE at the CM of a free body, components in the axes of a
/// rotated ground marker: x(t) = x0 + F t²/(2m), no rotation.
#[test]
fn constant_vforce_accelerates_a_free_body_uniformly() {
    let mass = 2.5;
    let at = Placement::at(0.3, -0.2, 1.0);
    let mut m = free_bodies(&[(mass, Inertia::diagonal(1.0, 2.0, 3.0), at)]);
    // RM: ground marker 11 turned by Euler 313 angles, so the components
    // (3, −1, 2) point along its rotated axes.
    let rm = Placement::default().with_euler313(0.4, 0.7, -0.3);
    let rm_axes: Matrix3<f64> = rm.rotation;
    marker(&mut m, 11, 1, rm);
    let local = Vector3::new(3.0, -1.0, 2.0);
    m.forces.push(vector(
        VectorStatement::Vforce,
        1,
        20,
        11,
        1,
        [
            constant(3.0),
            constant(-1.0),
            constant(2.0),
            None,
            None,
            None,
        ],
    ));
    let force = rm_axes * local;
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(2.0, Some(40), None, &settings(1e-8)).unwrap();
    let (mut position, mut turn) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        let x = Vector3::new(f.q[0], f.q[1], f.q[2]);
        let exact = Vector3::new(0.3, -0.2, 1.0) + force * (f.t * f.t / (2.0 * mass));
        position = position.max((x - exact).norm());
        let p = Vector4::new(f.q[3], f.q[4], f.q[5], f.q[6]);
        turn = turn.max((rot(&p) - Matrix3::identity()).norm());
    }
    // Integrator ERROR = 1e-8 over 2 s; measured 1.8e-8 m.
    println!("VFORCE: position error {position:.1e} m, rotation {turn:.1e}");
    assert!(sim.frames.last().unwrap().t > 1.999);
    assert!(position < 1e-6 && turn < 1e-10, "{position} {turn}");
}

/// A constant VTORQUE about the body's own principal z axis (RM = the CM
/// marker): ω = T t / I_zz, θ = T t² / (2 I_zz), the axis stays fixed.
#[test]
fn constant_vtorque_spins_a_free_body_about_its_axis() {
    let (izz, torque) = (0.8, 1.2);
    let mut m = free_bodies(&[(1.0, Inertia::diagonal(0.5, 0.6, izz), Placement::default())]);
    m.forces.push(vector(
        VectorStatement::Vtorque,
        1,
        20,
        20,
        1,
        [None, None, None, None, None, constant(torque)],
    ));
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(1.5, Some(30), None, &settings(1e-9)).unwrap();
    let (mut rate, mut angle) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        // Body-frame ω'; about the fixed z axis it equals the ground ω.
        let w = sim.sys.body_angular_velocity(&f.q, &f.u, 0);
        let exact_w = Vector3::new(0.0, 0.0, torque * f.t / izz);
        rate = rate.max((w - exact_w).norm());
        let p = Vector4::new(f.q[3], f.q[4], f.q[5], f.q[6]);
        let a = rot(&p);
        let theta = torque * f.t * f.t / (2.0 * izz);
        let exact = Matrix3::new(
            theta.cos(),
            -theta.sin(),
            0.0,
            theta.sin(),
            theta.cos(),
            0.0,
            0.0,
            0.0,
            1.0,
        );
        angle = angle.max((a - exact).norm());
    }
    println!("VTORQUE: ω error {rate:.1e} rad/s, attitude error {angle:.1e}");
    assert!(sim.frames.last().unwrap().t > 1.499);
    assert!(rate < 1e-7 && angle < 1e-6, "{rate} {angle}");
}

/// Linear and angular momentum (about the ground origin) of the bodies.
fn momenta(sim: &Simulation, q: &[f64], u: &[f64]) -> (Vector3<f64>, Vector3<f64>) {
    let (mut lin, mut ang) = (Vector3::zeros(), Vector3::zeros());
    for (b, body) in sim.sys.bodies.iter().enumerate() {
        let o = 7 * b;
        let r = Vector3::new(q[o], q[o + 1], q[o + 2]);
        let v = Vector3::new(u[o], u[o + 1], u[o + 2]);
        let p = Vector4::new(q[o + 3], q[o + 4], q[o + 5], q[o + 6]);
        let a = rot(&p);
        // Body-frame ω' (2 G(p) ṗ) and body-frame inertia: h = A J ω'.
        let w = sim.sys.body_angular_velocity(q, u, b);
        lin += v * body.mass;
        ang += r.cross(&(v * body.mass)) + a * body.inertia * w;
    }
    (lin, ang)
}

/// A GFORCE with all six components, functions of time and state, in the
/// axes of a marker on the acting body, between two free bodies: the
/// reaction on the JFLOAT part (at the point coincident with I) makes the
/// pair's linear and angular momentum stay zero, while each body moves.
#[test]
fn gforce_reaction_conserves_momentum_of_two_free_bodies() {
    let mut m = free_bodies(&[
        (
            1.5,
            Inertia {
                ixx: 0.4,
                iyy: 0.5,
                izz: 0.6,
                ixy: 0.02,
                ixz: -0.01,
                iyz: 0.03,
            },
            Placement::at(0.2, 0.1, -0.3).with_euler313(0.3, 0.5, 0.1),
        ),
        (
            2.0,
            Inertia::diagonal(0.7, 0.3, 0.5),
            Placement::at(-0.5, 0.4, 0.2).with_euler313(-0.2, 0.9, 0.4),
        ),
    ]);
    // I off the CM of body 2; RM a rotated marker on body 2.
    marker(&mut m, 21, 2, Placement::at(0.3, -0.2, 0.15));
    marker(
        &mut m,
        22,
        2,
        Placement::at(0.0, 0.1, 0.0).with_euler313(0.6, -0.4, 1.1),
    );
    let state = |c: f64| -> Option<Arc<dyn StateFunction>> {
        Some(Arc::new(StateFn {
            measures: vec![Measure::Dm { i: 21, j: Some(30) }],
            f: move |t: f64, m: &[f64], dm: &mut [f64]| {
                dm[0] = c * t.cos();
                (c * (1.0 + m[0] * t.cos()), -c * m[0] * t.sin())
            },
        }))
    };
    m.forces.push(vector(
        VectorStatement::Gforce,
        1,
        21,
        22,
        3,
        [
            state(1.0),
            state(-0.5),
            constant(0.8),
            state(0.3),
            constant(-0.2),
            state(0.4),
        ],
    ));
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(1.0, Some(20), None, &settings(1e-9)).unwrap();
    let (mut lin, mut ang, mut moved) = (0.0f64, 0.0f64, 0.0f64);
    let q0 = sim.sys.initial_state().0;
    for f in &sim.frames {
        let (l, h) = momenta(&sim, &f.q, &f.u);
        lin = lin.max(l.norm());
        ang = ang.max(h.norm());
        moved = moved
            .max((f.q[0] - q0[0]).abs())
            .max((f.q[7] - q0[7]).abs());
    }
    println!(
        "GFORCE: |linear momentum| ≤ {lin:.1e}, |angular momentum| ≤ {ang:.1e}, moved {moved:.2} m"
    );
    assert!(sim.frames.last().unwrap().t > 0.999);
    assert!(moved > 0.05, "the force should move the bodies: {moved}");
    // Integrator ERROR = 1e-9: measured 1.2e-15 (linear) and 1.7e-7
    // (angular, integration error); a reaction without its moment d × F
    // gives an angular momentum of 2.4 (measured).
    assert!(lin < 1e-9 && ang < 1e-5, "{lin} {ang}");
}
