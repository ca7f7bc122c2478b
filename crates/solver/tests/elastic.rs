//! BUSHING, FIELD and BEAM against closed forms: a bushing is a linear
//! spring-damper per axis (damped oscillator, static deflection with
//! preload), a FIELD's static deflection is δ₀ + K⁻¹(preload + load), and a
//! BEAM clamped at J deflects under a tip load in each of its six
//! directions as the Timoshenko cantilever does.

use mbsolve_mech::rotation::rot;
use mbsolve_model::*;
use mbsolve_solver::{models::spring_mass_exact, Simulation, StaticMethod, StaticSettings};
use nalgebra::{Matrix3, Matrix6, Vector3, Vector4, Vector6};
use std::sync::Arc;

/// A ground marker 10 at `j` and one free body 2 (no gravity) whose CM
/// marker 20 (axes = body axes) is the element's I marker, placed at
/// `at` in ground.
fn one_body(mass: f64, inertia: Inertia, j: Placement, at: Placement) -> Model {
    let mut m = Model::new("elastic");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    m.markers.push(Marker {
        id: 10,
        part: 1,
        placement: j,
    });
    let mut body = Part::body(2, mass, inertia, at);
    body.cm = Some(20);
    m.parts.push(body);
    m.markers.push(Marker {
        id: 20,
        part: 2,
        placement: Placement::default(),
    });
    m
}

fn elastic(id: Id, e: Elastic) -> Force {
    Force {
        id,
        i: 20,
        j: 10,
        kind: ForceKind::Elastic(Box::new(e)),
    }
}

/// δ = (x, y, z, AX, AY, AZ) of marker 20 (the body's CM frame) relative
/// to the ground marker with placement `j`, from a state q.
fn delta(q: &[f64], j: &Placement) -> Vector6<f64> {
    let x = Vector3::new(q[0], q[1], q[2]);
    let a: Matrix3<f64> = rot(&Vector4::new(q[3], q[4], q[5], q[6]));
    let d = j.rotation.transpose() * (x - j.origin);
    let rel = j.rotation.transpose() * a; // columns: I axes in J axes
    Vector6::new(
        d[0],
        d[1],
        d[2],
        (-rel[(1, 2)]).atan2(rel[(2, 2)]),
        rel[(0, 2)].atan2(rel[(2, 2)]),
        rel[(1, 0)].atan2(rel[(0, 0)]),
    )
}

/// FIM_S to a force imbalance below `imbalance` (model force units).
fn statics(sim: &mut Simulation, imbalance: f64) {
    let set = StaticSettings {
        method: Some(StaticMethod::FimS),
        max_imbalance: Some(imbalance),
        ..Default::default()
    };
    sim.static_equilibrium(&set).expect("static equilibrium");
}

/// A turned J marker, so that "in J's axes" is not the ground's axes.
fn turned(at: [f64; 3]) -> Placement {
    Placement::at(at[0], at[1], at[2]).with_euler313(0.5, 0.8, -0.3)
}

/// BUSHING with K and C along J's y only: a body displaced x0 along y_J
/// oscillates as the damped spring-mass x'' + (c/m) x' + (k/m) x = 0;
/// the torsional pair KT, CT about z_J turns it as θ'' + (ct/I) θ' +
/// (kt/I) θ = 0 (I about a principal axis, so the motion stays planar and
/// AZ is the exact angle).
#[test]
fn bushing_is_a_linear_spring_damper_on_each_axis() {
    let (mass, k, c, x0) = (2.0, 80.0, 1.5, 0.05);
    let (izz, kt, ct, th0) = (0.4, 30.0, 0.2, 0.1);
    let j = turned([0.2, -0.1, 0.4]);
    let mut at = j.clone();
    at.origin += j.rotation.column(1) * x0;
    at.rotation = j.rotation * euler313(th0, 0.0, 0.0);
    let mut m = one_body(mass, Inertia::diagonal(0.3, 0.35, izz), j.clone(), at);
    m.forces.push(elastic(
        1,
        Elastic::bushing(
            [0.0, k, 0.0],
            [0.0, c, 0.0],
            [0.0, 0.0, kt],
            [0.0, 0.0, ct],
            [0.0; 3],
            [0.0; 3],
        ),
    ));
    let mut sim = Simulation::new(&m).unwrap();
    let set = IntegratorSettings {
        error: Some(1e-10),
        ..Default::default()
    };
    sim.dynamic(2.0, Some(100), None, &set).unwrap();
    let (mut ey, mut eth, mut other) = (0.0f64, 0.0f64, 0.0f64);
    for f in &sim.frames {
        let d = delta(&f.q, &j);
        ey = ey.max((d[1] - spring_mass_exact(mass, k, c, x0, f.t)).abs());
        eth = eth.max((d[5] - spring_mass_exact(izz, kt, ct, th0, f.t)).abs());
        other = other.max(d[0].abs().max(d[2].abs()).max(d[3].abs()).max(d[4].abs()));
    }
    println!("BUSHING: y error {ey:.2e} m, AZ error {eth:.2e} rad, off-axis {other:.1e}");
    assert!(sim.frames.last().unwrap().t > 1.999);
    // ERROR = 1e-10: measured 8.4e-10 m and 2.4e-8 rad.
    assert!(ey < 1e-8 && eth < 3e-7, "{ey} {eth}");
    assert!(other < 1e-10, "{other}");
}

/// BUSHING preload against its stiffness under a constant VFORCE load F
/// at I along J's axes: static δ_k = (preload_k + F_k)/K_k on all six axes.
#[test]
fn bushing_static_deflection_with_preload() {
    let j = turned([0.0, 0.3, -0.2]);
    let mut m = one_body(1.0, Inertia::diagonal(1.0, 1.0, 1.0), j.clone(), j.clone());
    let k = [200.0, 300.0, 400.0];
    let kt = [50.0, 60.0, 70.0];
    let force = [1.0, -2.0, 1.5];
    let torque = [0.3, 0.2, -0.4];
    m.forces.push(elastic(
        1,
        Elastic::bushing(k, [1.0; 3], kt, [0.1; 3], force, torque),
    ));
    let load = [2.0, 1.0, -3.0, -0.1, 0.5, 0.2];
    add_load(&mut m, load);
    let mut sim = Simulation::new(&m).unwrap();
    statics(&mut sim, 1e-10);
    let d = delta(&sim.state.q, &j);
    let stiff = [k[0], k[1], k[2], kt[0], kt[1], kt[2]];
    let pre = [
        force[0], force[1], force[2], torque[0], torque[1], torque[2],
    ];
    let mut worst = 0.0f64;
    for n in 0..6 {
        let exact = (pre[n] + load[n]) / stiff[n];
        worst = worst.max((d[n] - exact).abs() / exact.abs());
    }
    println!("BUSHING statics: largest relative error {worst:.2e}");
    assert!(worst < 1e-9, "{worst}");
}

/// A constant GFORCE at I (marker 20) with components in the J marker's
/// axes (RM = 10), reaction on ground.
fn add_load(m: &mut Model, load: [f64; 6]) {
    m.markers.push(Marker {
        id: 90,
        part: 1,
        placement: Placement::default(),
    });
    let c = |v: f64| -> Option<Arc<dyn StateFunction>> { Some(Arc::new(Constant(v))) };
    m.forces.push(Force {
        id: 1,
        i: 20,
        j: 10,
        kind: ForceKind::Vector {
            statement: VectorStatement::Gforce,
            jfloat: 90,
            reaction_part: 1,
            components: std::array::from_fn(|k| c(load[k])),
        },
    });
}

/// FIELD with a full symmetric positive-definite K, free lengths and
/// preloads: static δ = δ₀ + K⁻¹ (preload + load), load in J's axes.
#[test]
fn field_static_deflection_is_k_inverse_of_the_load() {
    let j = turned([0.1, 0.0, 0.2]);
    let reference = Vector6::new(0.3, -0.1, 0.2, 0.0, 0.0, 0.0);
    let mut at = j.clone();
    at.origin += j.rotation * Vector3::new(reference[0], reference[1], reference[2]);
    let mut m = one_body(1.0, Inertia::diagonal(1.0, 1.0, 1.0), j.clone(), at);
    let b = Matrix6::from_fn(|r, c| ((r * 7 + c * 3) as f64 * 0.37).sin());
    let stiffness = b * b.transpose() * 40.0 + Matrix6::identity() * 100.0;
    let preload = Vector6::new(0.5, -1.0, 2.0, 0.1, -0.2, 0.3);
    m.forces.push(elastic(
        1,
        Elastic {
            statement: ElasticStatement::Field,
            stiffness,
            damping: ElasticDamping::Ratio(0.01),
            reference,
            preload,
            beam: None,
            formulation: BeamFormulation::Linear,
        },
    ));
    let load = [1.0, 2.0, -1.0, 0.2, 0.1, -0.3];
    add_load(&mut m, load);
    let mut sim = Simulation::new(&m).unwrap();
    statics(&mut sim, 1e-10);
    let d = delta(&sim.state.q, &j);
    let exact =
        reference + stiffness.try_inverse().unwrap() * (preload + Vector6::from_row_slice(&load));
    let err = (d - exact).norm() / (exact - reference).norm();
    println!("FIELD statics: relative error {err:.2e}");
    assert!(err < 1e-9, "{err}");
}

/// BEAM clamped at J (ground), I at the free end, a tip load in each of
/// the six directions of J's axes in turn (A steel-like section in mm,
/// N: L = 500, E = 2.1e5, G = 8e4, A = 300, I_yy = 2.5e4, I_zz = 2.25e4,
/// I_xx = 4e4, ASY = 1.2, ASZ = 10/9), against the Timoshenko cantilever:
/// Fx: x − L = FL/(EA); Fy: y = F(L³/(3EI_zz) + L·ASY/(GA)),
/// AZ = FL²/(2EI_zz); Fz: z = F(L³/(3EI_yy) + L·ASZ/(GA)), AY = −FL²/(2EI_yy);
/// Tx: AX = TL/(GI_xx); Ty: AY = TL/(EI_yy), z = −TL²/(2EI_yy);
/// Tz: AZ = TL/(EI_zz), y = TL²/(2EI_zz). Loads give deflections near
/// 1e-3 L and 1e-3 rad.
#[test]
fn beam_cantilever_matches_timoshenko_in_six_directions() {
    let s = BeamSection {
        length: 500.0,
        ixx: 4e4,
        iyy: 2.5e4,
        izz: 2.25e4,
        area: 300.0,
        asy: 1.2,
        asz: 10.0 / 9.0,
        emodulus: 2.1e5,
        gmodulus: 8e4,
    };
    let (l, e, g, a) = (s.length, s.emodulus, s.gmodulus, s.area);
    let j = turned([10.0, -20.0, 5.0]);
    let mut worst = 0.0f64;
    for dir in 0..6 {
        let magnitude = [2e4, 50.0, 80.0, 1e4, 2e4, 2e4][dir];
        let mut load = [0.0; 6];
        load[dir] = magnitude;
        let mut exact = Vector6::zeros();
        exact[0] = l;
        let (f, t) = (magnitude, magnitude);
        match dir {
            0 => exact[0] += f * l / (e * a),
            1 => {
                exact[1] = f * (l.powi(3) / (3.0 * e * s.izz) + l * s.asy / (g * a));
                exact[5] = f * l * l / (2.0 * e * s.izz);
            }
            2 => {
                exact[2] = f * (l.powi(3) / (3.0 * e * s.iyy) + l * s.asz / (g * a));
                exact[4] = -f * l * l / (2.0 * e * s.iyy);
            }
            3 => exact[3] = t * l / (g * s.ixx),
            4 => {
                exact[4] = t * l / (e * s.iyy);
                exact[2] = -t * l * l / (2.0 * e * s.iyy);
            }
            _ => {
                exact[5] = t * l / (e * s.izz);
                exact[1] = t * l * l / (2.0 * e * s.izz);
            }
        }
        let mut at = j.clone();
        at.origin += j.rotation.column(0) * l;
        let mut m = one_body(1e-3, Inertia::diagonal(1.0, 1.0, 1.0), j.clone(), at);
        m.forces
            .push(elastic(1, Elastic::beam(s, ElasticDamping::Ratio(1e-3))));
        add_load(&mut m, load);
        let mut sim = Simulation::new(&m).unwrap();
        statics(&mut sim, 1e-6);
        let d = delta(&sim.state.q, &j);
        let dev = d - exact;
        let scale = (exact - Vector6::new(l, 0.0, 0.0, 0.0, 0.0, 0.0)).amax();
        let err = dev.amax() / scale;
        println!(
            "BEAM load {}: deflection {:?}, relative error {err:.2e}",
            ["Fx", "Fy", "Fz", "Tx", "Ty", "Tz"][dir],
            (d - Vector6::new(l, 0.0, 0.0, 0.0, 0.0, 0.0)).as_slice()
        );
        assert!(scale > 1e-4, "the load must deflect the beam measurably");
        worst = worst.max(err);
    }
    assert!(worst < 1e-8, "{worst}");
}
