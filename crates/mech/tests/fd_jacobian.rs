#![allow(clippy::needless_range_loop)]
//! Finite-difference check of every analytic derivative the kernel provides:
//! Φ_q for every joint type (RACKPIN included), joint primitive, joint
//! motion and marker motion (X … B3), ∂R/∂q, ∂R/∂u, ∂R/∂a of the body
//! equations (inertia, every force element, Φ_qᵀλ), Φ_t, and γ.
//! Tolerance: central differences with h = 1e-6, relative error ≤ 1e-6.

use mbsolve_mech::{Sink, System};
use mbsolve_model::*;
use nalgebra::{DMatrix, Vector3};
use std::sync::Arc;

struct Dense(DMatrix<f64>);
impl Sink for Dense {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0[(r, c)] += v;
    }
}

fn marker(m: &mut Model, id: Id, part: Id, pos: [f64; 3], eul: [f64; 3]) {
    m.markers.push(Marker {
        id,
        part,
        placement: Placement::at(pos[0], pos[1], pos[2]).with_euler313(eul[0], eul[1], eul[2]),
    });
}

/// Every joint kind, every JPRIM kind, joint and marker motions, a GCON and
/// every force kind on three bodies.
fn kitchen_sink() -> Model {
    let mut m = Model::new("fd");
    m.gravity = Vector3::new(0.0, -9.81, 0.3);
    m.parts.push(Part::ground(1));
    for (id, pos) in [
        (2, [0.5, 0.1, -0.2]),
        (3, [1.2, -0.4, 0.3]),
        (4, [-0.7, 0.9, 0.5]),
    ] {
        let mut p = Part::body(
            id,
            1.0 + id as f64,
            Inertia {
                ixx: 2.0,
                iyy: 3.0,
                izz: 4.0,
                ixy: 0.1,
                ixz: -0.2,
                iyz: 0.15,
            },
            Placement::at(pos[0], pos[1], pos[2]).with_euler313(0.3 * id as f64, 0.4, -0.2),
        );
        p.cm = Some(id * 100);
        m.parts.push(p);
        marker(&mut m, id * 100, id, [0.1, -0.05, 0.2], [0.2, 0.3, 0.1]);
    }
    let ms = [
        (11, 1, [0.1, 0.2, 0.3], [0.1, 0.2, 0.3]),
        (12, 1, [-0.3, 0.2, 0.1], [0.5, -0.2, 0.9]),
        (21, 2, [0.3, -0.2, 0.1], [-0.4, 0.7, 0.2]),
        (22, 2, [0.0, 0.4, -0.1], [1.0, 0.1, -0.5]),
        (31, 3, [0.2, 0.2, 0.2], [0.3, -0.6, 0.4]),
        (32, 3, [-0.1, 0.0, 0.3], [0.0, 0.5, 0.0]),
        (41, 4, [0.25, -0.3, 0.1], [0.7, 0.2, -0.3]),
    ];
    for (id, part, pos, eul) in ms {
        marker(&mut m, id, part, pos, eul);
    }
    let kinds = [
        (JointKind::Revolute, 21, 11),
        (JointKind::Translational, 31, 22),
        (JointKind::Spherical, 41, 32),
        (JointKind::Fixed, 32, 12),
        (JointKind::Cylindrical, 22, 41),
        (JointKind::Universal, 12, 31),
        (JointKind::Hooke, 41, 21),
        (JointKind::Planar, 11, 32),
    ];
    for (n, (kind, i, j)) in kinds.into_iter().enumerate() {
        m.joints.push(Joint {
            id: n as Id + 1,
            kind,
            i,
            j,
        });
    }
    let f = |a: f64| {
        Arc::new(TimeFn(move |t: f64| {
            [
                a * (2.0 * t).sin() + 0.1,
                2.0 * a * (2.0 * t).cos(),
                -4.0 * a * (2.0 * t).sin(),
            ]
        }))
    };
    m.joints.push(Joint {
        id: 9,
        kind: JointKind::RackPin {
            pitch_diameter: 0.35,
        },
        i: 22,
        j: 31,
    });
    m.motions
        .push(Motion::on_joint(1, 1, MotionDof::Rotation, f(0.7)));
    m.motions
        .push(Motion::on_joint(2, 2, MotionDof::Translation, f(0.3)));
    // Every marker-motion component, between two moving parts and to ground.
    let axes = [
        MarkerMotionAxis::X,
        MarkerMotionAxis::Y,
        MarkerMotionAxis::Z,
        MarkerMotionAxis::B1,
        MarkerMotionAxis::B2,
        MarkerMotionAxis::B3,
    ];
    for (n, axis) in axes.into_iter().enumerate() {
        let (i, j) = if n % 2 == 0 { (21, 32) } else { (41, 12) };
        m.motions.push(Motion {
            id: 3 + n as Id,
            target: MotionTarget::Markers { i, j, axis },
            function: f(0.2 + 0.05 * n as f64),
        });
    }
    // Every joint primitive.
    let prims = [
        (JprimKind::Atpoint, 21, 41),
        (JprimKind::Inline, 32, 22),
        (JprimKind::Inplane, 41, 11),
        (JprimKind::Orientation, 31, 21),
        (JprimKind::ParallelAxes, 12, 41),
        (JprimKind::Perpendicular, 22, 32),
    ];
    for (n, (kind, i, j)) in prims.into_iter().enumerate() {
        m.jprims.push(Jprim {
            id: n as Id + 1,
            kind,
            i,
            j,
        });
    }
    let meas = vec![
        Measure::Dm { i: 21, j: Some(31) },
        Measure::Vr { i: 21, j: Some(31) },
        Measure::Disp {
            i: 21,
            j: Some(31),
            k: Some(22),
            axis: 1,
        },
        Measure::Vel {
            i: 31,
            j: Some(21),
            k: Some(32),
            axis: 2,
        },
        Measure::AngVel {
            i: 21,
            j: Some(31),
            k: Some(31),
            axis: 0,
        },
        Measure::Angle {
            i: 21,
            j: Some(31),
            axis: 2,
        },
        Measure::Speed { i: 31, j: Some(21) },
        Measure::AngSpeed { i: 21, j: Some(31) },
    ];
    // A nonlinear function of all measures: Σ c_k m_k + m_0 m_1 + sin(m_5) + t
    // (VM and WM last, at a state where both are nonzero).
    let func = || -> Arc<dyn StateFunction> {
        Arc::new(StateFn {
            measures: meas.clone(),
            f: |t: f64, m: &[f64], dm: &mut [f64]| {
                let c = [1.5, -0.7, 2.0, 0.4, -1.1, 0.0, 0.9, -1.3];
                let mut v = t + m[0] * m[1] + m[5].sin();
                for k in 0..8 {
                    v += c[k] * m[k];
                    dm[k] = c[k];
                }
                dm[0] += m[1];
                dm[1] += m[0];
                dm[5] += m[5].cos();
                (v, 1.0)
            },
        })
    };
    let kinds = [
        ForceKind::TranslationalSpringDamper {
            stiffness: 50.0,
            damping: 3.0,
            free_length: 0.4,
            preload: 2.0,
        },
        ForceKind::RotationalSpringDamper {
            stiffness: 20.0,
            damping: 1.5,
            free_angle: 0.2,
            preload: 0.5,
        },
        ForceKind::TranslationalActionReaction { function: func() },
        ForceKind::RotationalActionReaction { function: func() },
        ForceKind::TranslationalActionOnly { function: func() },
        ForceKind::RotationalActionOnly { function: func() },
    ];
    // The rotational action-reaction SFORCE needs J's z axis along I's
    // (seeds: SFORCE): marker 33 on part 3 has marker 21's ground axes.
    let r21 = m.marker_in_ground(21).unwrap().rotation;
    let p3 = m.part(3).unwrap().placement.clone();
    m.markers.push(Marker {
        id: 33,
        part: 3,
        placement: Placement::new(Vector3::new(0.1, 0.3, -0.2), p3.rotation.transpose() * r21),
    });
    for (n, kind) in kinds.into_iter().enumerate() {
        let rotational = matches!(kind, ForceKind::RotationalActionReaction { .. });
        m.forces.push(Force {
            id: n as Id + 1,
            i: 21,
            j: if rotational { 33 } else { 31 },
            kind,
        });
    }
    // A general constraint (GCON) over parts 2 and 3 and ground, nonlinear
    // in its measures and time: f = DM·AZ + 0.3·DX + 0.1·sin(t)·DM − 0.2.
    m.gcons.push(Gcon {
        id: 1,
        i: 21,
        function: Arc::new(ConstraintFn {
            measures: vec![
                Measure::Dm { i: 21, j: Some(31) },
                Measure::Angle {
                    i: 22,
                    j: Some(32),
                    axis: 2,
                },
                Measure::Disp {
                    i: 21,
                    j: Some(11),
                    k: Some(32),
                    axis: 0,
                },
            ],
            f: |t: f64, m: &[f64], g: &mut [f64], h: &mut [f64]| {
                let (s, c) = t.sin_cos();
                g.copy_from_slice(&[m[1] + 0.1 * s, m[0], 0.3, 0.1 * c * m[0]]);
                h.iter_mut().for_each(|x| *x = 0.0);
                // Row-major 4×4 over (m0, m1, m2, t).
                h[1] = 1.0;
                h[4] = 1.0;
                h[3] = 0.1 * c;
                h[12] = 0.1 * c;
                h[15] = -0.1 * s * m[0];
                m[0] * m[1] + 0.3 * m[2] + 0.1 * s * m[0] - 0.2
            },
        }),
    });
    // One force to ground as well.
    m.forces.push(Force {
        id: 10,
        i: 41,
        j: 11,
        kind: ForceKind::TranslationalSpringDamper {
            stiffness: 10.0,
            damping: 1.0,
            free_length: 0.1,
            preload: 0.0,
        },
    });
    // VFORCE, VTORQUE, GFORCE at I = 21 (part 2) with the reaction on part
    // 3 (JFLOAT), components in the axes of a moving RM (on either part)
    // or of a ground RM; one GFORCE reacts on ground.
    // Against ground the measures must stay on part 2 and ground: a
    // nonlinear function of a distance, a velocity and an angular velocity.
    let ground_func = || -> Arc<dyn StateFunction> {
        Arc::new(StateFn {
            measures: vec![
                Measure::Dm { i: 21, j: Some(11) },
                Measure::Vel {
                    i: 21,
                    j: Some(11),
                    k: Some(22),
                    axis: 0,
                },
                Measure::AngVel {
                    i: 21,
                    j: None,
                    k: Some(22),
                    axis: 2,
                },
            ],
            f: |t: f64, m: &[f64], dm: &mut [f64]| {
                dm.copy_from_slice(&[0.5 + m[1], m[0], -0.8]);
                (0.5 * m[0] + m[0] * m[1] - 0.8 * m[2] + t, 1.0)
            },
        })
    };
    let vector = |statement, reaction_part, mask: &str| ForceKind::Vector {
        statement,
        jfloat: 90 + reaction_part,
        reaction_part,
        components: std::array::from_fn(|k| {
            (mask.as_bytes()[k] == b'1').then(|| {
                if reaction_part == 1 {
                    ground_func()
                } else {
                    func()
                }
            })
        }),
    };
    // Which of FX FY FZ TX TY TZ each element gives ('1').
    let vectors = [
        (VectorStatement::Vforce, 32, 3, "111000"),
        (VectorStatement::Vtorque, 22, 3, "000111"),
        (VectorStatement::Gforce, 12, 3, "101110"),
        (VectorStatement::Gforce, 22, 1, "111111"),
    ];
    for (n, (statement, rm, reaction_part, mask)) in vectors.into_iter().enumerate() {
        m.forces.push(Force {
            id: 20 + n as Id,
            i: 21,
            j: rm,
            kind: vector(statement, reaction_part, mask),
        });
    }
    elastic_elements(&mut m);
    point_on_curve(&mut m);
    curve_on_curve(&mut m);
    fe_part(&mut m);
    // COUPLERs: a rotation with a translation (REVOLUTE 1, TRANSLATIONAL
    // 2) and two rotations in the ratio 2:−5 (REVOLUTE 1, CYLINDRICAL 5).
    m.couplers.push(Coupler {
        id: 1,
        joints: vec![
            (1, CouplerFreedom::Rotation, 0.7),
            (2, CouplerFreedom::Translation, 1.3),
        ],
    });
    m.couplers.push(Coupler {
        id: 2,
        joints: vec![
            (1, CouplerFreedom::Rotation, 1.0),
            (5, CouplerFreedom::Rotation, -2.5),
        ],
    });
    // GEAR: REVOLUTE 1 (part 2 on ground) and TRANSLATIONAL 2 (part 3 on
    // part 2), carrier part 2 through the CV marker 22.
    m.gears.push(Gear {
        id: 1,
        joints: [1, 2],
        cv: 22,
    });
    m
}

/// BUSHING between two moving parts, FIELD (full K and C) to ground, BEAM
/// (LINEAR, NONLINEAR, STRING) with CRATIO: preloads and free lengths
/// nonzero so every term of the law is exercised.
/// A curved FE part (model::fe_part: four node bodies with lumped inertia,
/// three co-rotational BEAMs with CRATIOK damping), its node 1 tied to
/// PART/2 by a BUSHING so that its bodies are loaded from both sides.
fn fe_part(m: &mut Model) {
    use mbsolve_model::fe_part::{build_fe_part, FeIds, FeMaterial, FeNodeInput, FeSection};
    let nodes: Vec<FeNodeInput> = [
        ([0.0, 0.0, 0.0], [-0.3, 0.0, 0.2], 1.0),
        ([0.3, 0.09, 0.0], [-0.1, 0.0, 0.1], 1.2),
        ([0.6, 0.12, 0.0], [0.1, 0.0, 0.0], 1.0),
        ([0.9, 0.09, 0.0], [0.3, 0.0, -0.1], 0.8),
    ]
    .iter()
    .enumerate()
    .map(|(k, (p, e, s))| FeNodeInput {
        label: k as Id + 1,
        placement: Placement::at(p[0], p[1], p[2])
            .with_euler313(e[0], e[1], e[2])
            .in_frame(&Placement::at(0.1, 0.2, 0.3).with_euler313(0.2, 0.3, 0.5)),
        section: FeSection {
            area: 0.01 * s,
            iyy: 2e-6 * s,
            izz: 1e-6 * s,
            iyz: 0.0,
            jxx: 2.5e-6 * s,
        },
    })
    .collect();
    let material = FeMaterial {
        id: 1,
        density: 7800.0,
        // Soft enough that the forces stay of the size of the other
        // elements' (the check is 1e-6 per entry).
        youngs_modulus: 2e5,
        poissons_ratio: 0.3,
    };
    let mut ids = FeIds {
        part: 60,
        marker: 6000,
        beam: 600,
    };
    let built = build_fe_part(7, &nodes, material, 0.01, &mut ids).expect("valid FE part");
    m.markers.push(Marker {
        id: 6100,
        part: built.bodies[0].id,
        placement: Placement::at(0.05, 0.0, 0.0),
    });
    m.forces.push(Force {
        id: 610,
        i: 6100,
        j: 21,
        kind: ForceKind::Elastic(Box::new(Elastic::bushing(
            [50.0, 60.0, 70.0],
            [0.5, 0.6, 0.7],
            [5.0, 6.0, 7.0],
            [0.05, 0.06, 0.07],
            [0.0; 3],
            [0.0; 3],
        ))),
    });
    m.parts.extend(built.bodies);
    m.markers.extend(built.markers);
    m.forces.extend(built.forces);
    m.fe_parts.push(built.part);
}

fn elastic_elements(m: &mut Model) {
    let full = |scale: f64| {
        nalgebra::Matrix6::from_fn(|r, c| {
            scale * (1.0 + (r * 6 + c) as f64 * 0.1).sin() + if r == c { 4.0 * scale } else { 0.0 }
        })
    };
    let field = Elastic {
        statement: ElasticStatement::Field,
        stiffness: full(30.0),
        damping: ElasticDamping::Matrix(full(0.7)),
        reference: nalgebra::Vector6::new(0.1, -0.2, 0.05, 0.02, -0.03, 0.01),
        preload: nalgebra::Vector6::new(1.0, -2.0, 0.5, 0.3, -0.1, 0.2),
        beam: None,
        formulation: BeamFormulation::Linear,
    };
    let section = BeamSection {
        length: 0.8,
        ixx: 2e-3,
        iyy: 1e-3,
        izz: 1.5e-3,
        area: 0.05,
        asy: 1.2,
        asz: 10.0 / 9.0,
        emodulus: 2e4,
        gmodulus: 8e3,
    };
    let elements = [
        (
            31,
            21,
            Elastic::bushing(
                [50.0, 60.0, 70.0],
                [1.0, 2.0, 3.0],
                [8.0, 9.0, 10.0],
                [0.3, 0.4, 0.5],
                [1.0, 2.0, -1.0],
                [0.2, -0.3, 0.1],
            ),
        ),
        (41, 12, field),
        (22, 32, Elastic::beam(section, ElasticDamping::Ratio(0.01))),
        // NONLINEAR and STRING (beam_nl.rs), far from their free length
        // and with the markers' axes turned apart.
        (
            21,
            32,
            Elastic::beam(section, ElasticDamping::Ratio(0.02))
                .with_formulation(BeamFormulation::Nonlinear),
        ),
        (
            31,
            12,
            Elastic::beam(section, ElasticDamping::Ratio(0.02))
                .with_formulation(BeamFormulation::String),
        ),
    ];
    for (n, (i, j, e)) in elements.into_iter().enumerate() {
        m.forces.push(Force {
            id: 40 + n as Id,
            i,
            j,
            kind: ForceKind::Elastic(Box::new(e)),
        });
    }
}

/// Two PTCVs: I on part 3 on a closed interpolated circle (CURVE_POINTS,
/// first point repeated last as Adams requires)
/// fixed in ground, and I on part 4 on an open control-point curve on part
/// 2, so both the ground and the two-body chain rule are checked. The state
/// is perturbed off the curves: the rows are checked off their manifold.
fn point_on_curve(m: &mut Model) {
    marker(m, 15, 1, [0.1, 0.0, 0.0], [0.2, 0.1, 0.0]);
    marker(m, 35, 3, [0.0, 0.1, 0.0], [0.0, 0.0, 0.0]);
    marker(m, 25, 2, [0.0, 0.0, 0.1], [0.4, -0.3, 0.2]);
    marker(m, 45, 4, [0.1, 0.1, 0.0], [0.0, 0.0, 0.0]);
    let circle: Vec<f64> = (0..=8)
        .flat_map(|k| {
            let th = k as f64 * std::f64::consts::PI / 4.0;
            [1.2 * th.cos(), 1.2 * th.sin(), 0.0]
        })
        .collect();
    let open = vec![
        -2.0, 0.5, 0.1, -1.4, 1.1, 0.0, -0.8, 0.6, -0.1, -0.2, 1.4, 0.0, 0.5, 0.9, 0.1,
    ];
    for (id, values) in [(1, circle), (2, open)] {
        m.matrices.push(Matrix {
            id,
            rows: values.len() / 3,
            columns: 3,
            values,
            sparse: false,
        });
    }
    m.curves.push(Curve {
        id: 1,
        matrix: 1,
        curve_points: true,
        order: 4,
        closed: true,
    });
    m.curves.push(Curve {
        id: 2,
        matrix: 2,
        curve_points: false,
        order: 3,
        closed: false,
    });
    for (id, i, rm, part, curve) in [(1, 35, 15, 1, 1), (2, 45, 25, 2, 2)] {
        m.ptcvs.push(Ptcv {
            id,
            i,
            jfloat: rm,
            jfloat_part: part,
            rm,
            curve,
        });
    }
}

/// Two CVCVs: a small circle (CURVE/3) on part 4 against the closed
/// circle CURVE/1 on part 2 (two-body chain rule), and on part 3 against
/// CURVE/1 on ground; the planes are tilted against each other and the
/// perturbed state leaves gaps, so the rows are checked off their
/// manifold. Needs `point_on_curve` (CURVE/1, marker 15).
fn curve_on_curve(m: &mut Model) {
    marker(m, 46, 4, [0.0, 0.1, 0.0], [0.1, 0.05, 0.0]);
    marker(m, 26, 2, [0.1, 0.0, 0.0], [0.2, 0.1, 0.0]);
    marker(m, 36, 3, [0.0, 0.0, 0.1], [-0.2, 0.08, 0.0]);
    let small: Vec<f64> = (0..=8)
        .flat_map(|k| {
            let th = k as f64 * std::f64::consts::PI / 4.0;
            [0.3 * th.cos(), 0.3 * th.sin(), 0.0]
        })
        .collect();
    m.matrices.push(Matrix {
        id: 3,
        rows: 9,
        columns: 3,
        values: small,
        sparse: false,
    });
    m.curves.push(Curve {
        id: 3,
        matrix: 3,
        curve_points: true,
        order: 4,
        closed: true,
    });
    for (id, irm, ipart, jrm, jpart) in [(1, 46, 4, 26, 2), (2, 36, 3, 15, 1)] {
        m.cvcvs.push(Cvcv {
            id,
            icurve: 3,
            irm,
            ifloat: irm,
            ifloat_part: ipart,
            jcurve: 1,
            jrm,
            jfloat: jrm,
            jfloat_part: jpart,
        });
    }
}

fn state(sys: &System) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let (mut q, _) = sys.initial_state();
    let n = sys.nq();
    // Perturb so nothing is at a special point; p need not be unit.
    for (k, x) in q.iter_mut().enumerate() {
        *x += 0.01 * ((k as f64) * 1.3).sin();
    }
    let u: Vec<f64> = (0..n).map(|k| 0.5 * ((k as f64) * 0.7).cos()).collect();
    let a: Vec<f64> = (0..n).map(|k| 0.3 * ((k as f64) * 1.9).sin()).collect();
    let lam: Vec<f64> = (0..sys.neq()).map(|k| ((k as f64) * 0.37).cos()).collect();
    (q, u, a, lam)
}

fn assert_close(name: &str, analytic: &DMatrix<f64>, fd: &DMatrix<f64>) {
    for r in 0..fd.nrows() {
        for c in 0..fd.ncols() {
            let (x, y) = (analytic[(r, c)], fd[(r, c)]);
            assert!(
                (x - y).abs() <= 1e-6 * (1.0 + y.abs()),
                "{name}: entry ({r},{c}) analytic {x} vs finite difference {y}"
            );
        }
    }
}

#[test]
fn every_element_jacobian_matches_finite_differences() {
    let sys = System::new(&kitchen_sink()).expect("valid model");
    let (n, m) = (sys.nq(), sys.neq());
    let (q, u, a, lam) = state(&sys);
    let t = 0.37;
    let h = 1e-6;
    let resid = |q: &[f64], u: &[f64], a: &[f64]| {
        let mut r = vec![0.0; n];
        sys.body_residual(&mut sys.new_data(), q, u, a, &lam, t, &mut r);
        r
    };
    let fd = |which: usize| {
        let mut j = DMatrix::zeros(n, n);
        for c in 0..n {
            let mut vars = [q.clone(), u.clone(), a.clone()];
            vars[which][c] += h;
            let rp = resid(&vars[0], &vars[1], &vars[2]);
            vars[which][c] -= 2.0 * h;
            let rm = resid(&vars[0], &vars[1], &vars[2]);
            for r in 0..n {
                j[(r, c)] = (rp[r] - rm[r]) / (2.0 * h);
            }
        }
        j
    };
    let mut data = sys.new_data();
    let l = Some(lam.as_slice());
    // ∂R/∂q.
    let mut jq = Dense(DMatrix::zeros(n, 2 * n));
    sys.body_jacobian(
        &mut data,
        &q,
        &u,
        &a,
        l,
        t,
        &mut jq,
        0,
        Some(0),
        n,
        0.0,
        0.0,
    );
    assert_close("dR/dq", &jq.0.columns(0, n).into_owned(), &fd(0));
    // ∂R/∂u (cu = 1, ca = 0) and ∂R/∂a (cu = 0, ca = 1).
    let mut ju = Dense(DMatrix::zeros(n, n));
    sys.body_jacobian(&mut data, &q, &u, &a, l, t, &mut ju, 0, None, 0, 1.0, 0.0);
    assert_close("dR/du", &ju.0, &fd(1));
    let mut ja = Dense(DMatrix::zeros(n, n));
    sys.body_jacobian(&mut data, &q, &u, &a, l, t, &mut ja, 0, None, 0, 0.0, 1.0);
    assert_close("dR/da", &ja.0, &fd(2));

    // Φ_q, and its transpose emitted alongside.
    let mut jp = Dense(DMatrix::zeros(m + n, n + m));
    sys.constraint_jacobian(&mut data, &q, t, &mut jp, 0, 0, Some((m, n)), None);
    let mut fdp = DMatrix::zeros(m, n);
    let (mut pp, mut pm) = (vec![0.0; m], vec![0.0; m]);
    for c in 0..n {
        let mut qp = q.clone();
        qp[c] += h;
        sys.constraints(&mut sys.new_data(), &qp, t, &mut pp);
        qp[c] -= 2.0 * h;
        sys.constraints(&mut sys.new_data(), &qp, t, &mut pm);
        for r in 0..m {
            fdp[(r, c)] = (pp[r] - pm[r]) / (2.0 * h);
        }
    }
    assert_close("Phi_q", &jp.0.view((0, 0), (m, n)).into_owned(), &fdp);
    assert_close("Phi_q^T", &jp.0.view((m, n), (n, m)).transpose(), &fdp);

    // Φ_t: −velocity_rhs against d/dt Φ.
    let mut vr = vec![0.0; m];
    sys.velocity_rhs(&mut data, &q, t, &mut vr);
    sys.constraints(&mut data, &q, t + h, &mut pp);
    sys.constraints(&mut data, &q, t - h, &mut pm);
    for k in 0..m {
        let phit = (pp[k] - pm[k]) / (2.0 * h);
        assert!(
            (phit + vr[k]).abs() < 1e-6 * (1.0 + phit.abs()),
            "Phi_t row {k}"
        );
    }
    // γ: along the path q(s) = q + s u + s²/2 a, t(s) = t + s, the second
    // derivative of Φ is Φ_q a − γ.
    let mut gamma = vec![0.0; m];
    sys.acceleration_rhs(&data, &q, &u, t, &mut gamma);
    let path = |s: f64| -> Vec<f64> {
        let qs: Vec<f64> = (0..n)
            .map(|k| q[k] + s * u[k] + 0.5 * s * s * a[k])
            .collect();
        let mut out = vec![0.0; m];
        sys.constraints(&mut sys.new_data(), &qs, t + s, &mut out);
        out
    };
    let hs = 1e-4;
    let (p0, p1, p2) = (path(-hs), path(0.0), path(hs));
    for k in 0..m {
        let second = (p0[k] - 2.0 * p1[k] + p2[k]) / (hs * hs);
        let phiq_a: f64 = (0..n).map(|c| fdp[(k, c)] * a[c]).sum();
        let expect = phiq_a - gamma[k];
        assert!(
            (second - expect).abs() < 1e-5 * (1.0 + expect.abs()),
            "gamma row {k} ({}): {second} vs {expect}",
            sys.equations[k].name
        );
    }
}
