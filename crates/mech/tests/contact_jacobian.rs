//! CONTACT forces: the generalized force of a ball pressed into a box
//! against the IMPACT law by hand, and its Jacobian against central
//! differences in smooth regimes (penetrating, sliding faster than the
//! stiction velocity). The analytic Jacobian holds the rotation terms
//! (moment arms, the normal turning with its face, the witness points
//! moving over the bodies; crates/mech/src/contact.rs), so every q
//! direction is checked: translations and rotations (tangent to pᵀp = 1,
//! where the force is defined).

use mbsolve_mech::{Sink, System};
use mbsolve_model::*;
use nalgebra::{DMatrix, Vector3};

struct Dense(DMatrix<f64>);
impl Sink for Dense {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0[(r, c)] += v;
    }
}

const R: f64 = 0.1;

/// Ground box (top face z = 0) and one ball of radius R (part 2) whose
/// centre is at `z`; `friction` switches COULOMB_FRICTION on.
fn ball_on_box(z: f64, normal: NormalForce, friction: bool) -> Model {
    let mut m = Model::new("contact fd");
    m.gravity = Vector3::new(0.0, 0.0, -9.81);
    m.parts.push(Part::ground(1));
    let mut ball = Part::body(
        2,
        1.5,
        Inertia::diagonal(0.006, 0.006, 0.006),
        Placement::at(0.05, -0.02, z),
    );
    ball.cm = Some(20);
    m.parts.push(ball);
    m.markers.push(Marker {
        id: 20,
        part: 2,
        placement: Placement::default(),
    });
    // box corner at (−1, −1, −0.5): 2 × 2 × 0.5, top face at z = 0
    m.markers.push(Marker {
        id: 10,
        part: 1,
        placement: Placement::at(-1.0, -1.0, -0.5),
    });
    m.geometries.push(Geometry::sphere(1, 20, R));
    m.geometries.push(Geometry::cuboid(2, 10, [2.0, 2.0, 0.5]));
    m.contacts.push(Contact {
        id: 1,
        igeom: vec![1],
        jgeom: vec![2],
        normal,
        friction: friction.then_some(ContactFriction {
            dynamics_only: false,
            mu_static: 0.5,
            mu_dynamic: 0.3,
            stiction_transition_velocity: 0.1,
            friction_transition_velocity: 1.0,
        }),
    });
    m
}

const IMPACT: NormalForce = NormalForce::Impact {
    stiffness: 1.0e5,
    exponent: 1.5,
    damping: 40.0,
    dmax: 0.002,
};

#[test]
fn ball_force_follows_the_impact_law() {
    // δ = 1 mm (inside the damping ramp), closing at 0.3 m/s
    let depth = 0.001;
    let sys = System::new(&ball_on_box(R - depth, IMPACT, false)).unwrap();
    let (q, mut u) = sys.initial_state();
    u[2] = -0.3;
    let c = &sys.contacts[0];
    let mut pts = Vec::new();
    c.points(&q, &mut pts);
    assert_eq!(pts.len(), 1, "{pts:?}");
    assert!((pts[0].depth - depth).abs() < 1e-12, "{pts:?}");
    assert!((pts[0].normal - Vector3::new(0.0, 0.0, -1.0)).norm() < 1e-12);
    let u_ = depth / 0.002;
    let want = 1.0e5 * depth.powf(1.5) + 40.0 * u_ * u_ * (3.0 - 2.0 * u_) * 0.3;
    let qf = c.local_force(&q, &u);
    // the force pushes the ball up (+z) and exerts no moment about its
    // centre: at p = (1, 0, 0, 0) only the e0 row, which the normalization
    // constraint pᵀp = 1 absorbs, is not zero
    assert!((qf[2] - want).abs() < 1e-9 * want, "{} vs {want}", qf[2]);
    assert!(qf[0].abs() < 1e-12 && qf[1].abs() < 1e-12);
    for k in 4..7 {
        assert!(qf[k].abs() < 1e-12, "Q_p[{k}] = {}", qf[k]);
    }
    // separated: no force
    let sys = System::new(&ball_on_box(R + 1e-4, IMPACT, false)).unwrap();
    let (q, u) = sys.initial_state();
    assert_eq!(sys.contacts[0].local_force(&q, &u).norm(), 0.0);
}

/// Directions in q to check: the translation columns and, per body, three
/// unit quaternion directions orthogonal to p (rotations).
fn q_directions(q: &[f64]) -> Vec<Vec<f64>> {
    let n = q.len();
    let mut dirs = Vec::new();
    for b in 0..n / 7 {
        for k in 0..3 {
            let mut d = vec![0.0; n];
            d[7 * b + k] = 1.0;
            dirs.push(d);
        }
        let p = nalgebra::Vector4::from_column_slice(&q[7 * b + 3..7 * b + 7]);
        let mut basis: Vec<nalgebra::Vector4<f64>> = vec![p.normalize()];
        for k in 0..4 {
            let mut e = nalgebra::Vector4::ith(k, 1.0);
            for v in &basis {
                e -= v * v.dot(&e);
            }
            if e.norm() > 1e-6 && basis.len() < 4 {
                basis.push(e.normalize());
            }
        }
        for e in &basis[1..] {
            let mut d = vec![0.0; n];
            d[7 * b + 3..7 * b + 7].copy_from_slice(e.as_slice());
            dirs.push(d);
        }
    }
    dirs
}

/// The contact's ∂R/∂u (every column) and ∂R/∂q (along [`q_directions`])
/// against central differences (h = 1e-7), each entry within 1e-6 of the
/// largest Jacobian entry.
fn check_jacobian(model: &Model, u_set: &[(usize, f64)]) {
    check_jacobian_at(model, None, u_set);
}

fn check_jacobian_at(model: &Model, q_at: Option<Vec<f64>>, u_set: &[(usize, f64)]) {
    let sys = System::new(model).unwrap();
    let n = sys.nq();
    let (q0, mut u) = sys.initial_state();
    let q = q_at.unwrap_or(q0);
    for &(k, v) in u_set {
        u[k] = v;
    }
    let c = &sys.contacts[0];
    let resid = |q: &[f64], u: &[f64]| {
        let mut r = vec![0.0; n];
        c.add_residual(q, u, false, &mut r);
        r
    };
    let mut jq = Dense(DMatrix::zeros(n, n));
    c.add_jacobian(&q, &u, false, &mut jq, 0, Some(0), 0, 0.0);
    let mut ju = Dense(DMatrix::zeros(n, n));
    c.add_jacobian(&q, &u, false, &mut ju, 0, None, 0, 1.0);
    assert!(jq.0.amax().max(ju.0.amax()) > 0.0, "the contact is active");
    check_rows("CONTACT", &q, &u, &resid, &jq.0, &ju.0);
}

#[test]
fn impact_jacobian_matches_finite_differences() {
    // inside the damping ramp, closing and sliding
    check_jacobian(
        &ball_on_box(R - 0.001, IMPACT, false),
        &[(0, 0.2), (2, -0.3)],
    );
    // beyond DMAX, separating slowly (the law stays positive)
    check_jacobian(&ball_on_box(R - 0.004, IMPACT, false), &[(2, 0.05)]);
}

#[test]
fn poisson_jacobian_matches_finite_differences() {
    let poisson = NormalForce::Poisson {
        penalty: 2.0e5,
        restitution: 0.5,
        normal_trans: 0.5,
    };
    // inside the ±NORMAL_TRANS transition, where ∂f/∂δ̇ is not zero
    check_jacobian(&ball_on_box(R - 0.002, poisson, false), &[(2, -0.2)]);
}

#[test]
fn friction_jacobian_matches_finite_differences() {
    // slip speeds in the three smooth pieces of μ(v): stiction ramp,
    // transition, dynamic; with spin (ω about y changes the slip at c)
    for (vx, vy) in [(0.05, 0.02), (0.4, -0.3), (1.5, 0.4)] {
        let model = ball_on_box(R - 0.001, IMPACT, true);
        check_jacobian(&model, &[(0, vx), (1, vy), (2, -0.1), (5, 0.3)]);
    }
}

/// Every solid type placed by its marker: a ball of radius R pressed
/// δ = 1 mm into the top of the solid (a face, or a vertex of the
/// tessellation where the solid is curved) gives one contact point with
/// depth δ and the normal −z (from the ball into the solid).
#[test]
fn every_solid_is_placed_by_its_marker() {
    let depth = 1e-3;
    // (solid, marker origin, height of its top above the origin)
    let solids = [
        (
            Shape::Box {
                x: 0.4,
                y: 0.4,
                z: 0.2,
            },
            [-0.2, -0.2, 0.0],
            0.2,
        ),
        (
            Shape::Cylinder {
                length: 0.3,
                radius: 0.2,
            },
            [0.0; 3],
            0.3,
        ),
        (
            Shape::Frustum {
                length: 0.25,
                bottom: 0.3,
                top: 0.15,
            },
            [0.0; 3],
            0.25,
        ),
        (
            Shape::Ellipsoid {
                x: 0.6,
                y: 0.4,
                z: 0.3,
            },
            [0.0; 3],
            0.15,
        ),
        (
            Shape::Torus {
                major: 0.3,
                minor: 0.05,
            },
            [-0.3, 0.0, 0.0],
            0.05,
        ),
        (
            Shape::Mesh {
                vertices: vec![[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [0.0, 1.0, 0.0]],
                triangles: vec![[0, 1, 2]],
            },
            [0.0; 3],
            0.0,
        ),
    ];
    for (shape, at, top) in solids {
        let name = shape.name();
        let mut m = ball_on_box(top + R - depth, IMPACT, false);
        m.markers[1].placement = Placement::at(at[0], at[1], at[2]);
        m.geometries[1].shape = shape;
        // the ball sits above the marker's z axis (the torus: above its tube)
        m.parts[1].placement.origin.x = 0.0;
        m.parts[1].placement.origin.y = 0.0;
        let sys = System::new(&m).unwrap();
        let (q, _) = sys.initial_state();
        let mut pts = Vec::new();
        sys.contacts[0].points(&q, &mut pts);
        assert!(!pts.is_empty(), "{name}: no contact");
        let deepest = pts.iter().map(|p| p.depth).fold(0.0, f64::max);
        assert!((deepest - depth).abs() < 1e-9, "{name}: depth {deepest}");
        for p in &pts {
            assert!(
                (p.normal - Vector3::new(0.0, 0.0, -1.0)).norm() < 1e-6,
                "{name}: {p:?}"
            );
        }
    }
}

/// Counts the entries a Jacobian emits.
struct Count(usize);
impl Sink for Count {
    fn add(&mut self, _r: usize, _c: usize, _v: f64) {
        self.0 += 1;
    }
}

/// The sparsity pattern holds a CONTACT's blocks only while its solids are
/// near: a ball 1 m above the box emits nothing (a model of many far-apart
/// CONTACTs stays sparse), one within the margin emits its 7×7 q and u
/// blocks (the ground side has no coordinates) though its force is still
/// zero, and one in contact emits the same entries.
#[test]
fn jacobian_pattern_holds_only_near_pairs() {
    let emitted = |z: f64| {
        let sys = System::new(&ball_on_box(z, IMPACT, true)).unwrap();
        let (q, u) = sys.initial_state();
        let mut count = Count(0);
        sys.contacts[0].add_jacobian(&q, &u, false, &mut count, 0, Some(0), 0, 1.0);
        (count.0, sys.contacts[0].local_force(&q, &u).norm())
    };
    let (far, far_force) = emitted(R + 1.0);
    let (near, near_force) = emitted(R + 0.02);
    let (touching, touching_force) = emitted(R - 0.001);
    assert_eq!((far, far_force), (0, 0.0));
    assert_eq!(near_force, 0.0);
    assert!(touching_force > 0.0);
    assert_eq!(near, 2 * 7 * 7);
    assert_eq!(touching, near);
}

/// MARKER/id on `part` at `placement`.
fn marker(m: &mut Model, id: Id, part: Id, placement: Placement) {
    m.markers.push(Marker {
        id,
        part,
        placement,
    });
}

/// A 0.3 × 0.2 × 0.1 box (part 2, the I solid) placed off its centre of
/// mass and tilted (Euler 3-1-3 0.3, 0.4, 0.2 rad), one corner pressed
/// into a 2 × 2 × 0.5 slab (the J solid): on ground, or on part 3 tilted
/// by (0.1, 0.15, 0) so that the face the normal belongs to turns with a
/// body. The box is lowered until its deepest corner is 1 mm in.
fn tilted_box(slab_moves: bool, friction: bool) -> (Model, Vec<f64>) {
    let mut m = Model::new("tilted box");
    m.gravity = Vector3::new(0.0, 0.0, -9.81);
    m.parts.push(Part::ground(1));
    let mut b = Part::body(
        2,
        2.0,
        Inertia::diagonal(0.01, 0.02, 0.015),
        Placement::new(Vector3::new(0.1, 0.05, 0.3), euler313(0.3, 0.4, 0.2)),
    );
    b.cm = Some(20);
    m.parts.push(b);
    marker(&mut m, 20, 2, Placement::default());
    // the box's corner marker, off the centre of mass
    marker(&mut m, 21, 2, Placement::at(-0.1, -0.05, -0.02));
    let slab_part = if slab_moves {
        let mut s = Part::body(
            3,
            20.0,
            Inertia::diagonal(1.0, 1.2, 1.5),
            Placement::new(Vector3::zeros(), euler313(0.1, 0.15, 0.0)),
        );
        s.cm = Some(30);
        m.parts.push(s);
        marker(&mut m, 30, 3, Placement::default());
        3
    } else {
        1
    };
    marker(&mut m, 10, slab_part, Placement::at(-1.0, -1.0, -0.5));
    m.geometries.push(Geometry::cuboid(1, 21, [0.3, 0.2, 0.1]));
    m.geometries.push(Geometry::cuboid(2, 10, [2.0, 2.0, 0.5]));
    m.contacts.push(Contact {
        id: 1,
        igeom: vec![1],
        jgeom: vec![2],
        normal: IMPACT,
        friction: friction.then_some(ContactFriction {
            dynamics_only: false,
            mu_static: 0.5,
            mu_dynamic: 0.3,
            stiction_transition_velocity: 0.1,
            friction_transition_velocity: 1.0,
        }),
    });
    // lower the box (its q, not the model) in 0.5 mm steps until a corner
    // touches, then correct until the deepest corner is 1 mm in
    let sys = System::new(&m).unwrap();
    let (mut q, _) = sys.initial_state();
    let deepest = |q: &[f64]| {
        let mut pts = Vec::new();
        sys.contacts[0].points(q, &mut pts);
        pts.iter().map(|p| p.depth).fold(-1.0, f64::max)
    };
    while deepest(&q) < 0.0 {
        q[2] -= 5e-4;
    }
    for _ in 0..20 {
        q[2] += deepest(&q) - 1e-3;
    }
    (m, q)
}

#[test]
fn tilted_box_jacobian_with_rotation_matches_finite_differences() {
    for slab_moves in [false, true] {
        let (m, q) = tilted_box(slab_moves, true);
        let sys = System::new(&m).unwrap();
        let mut pts = Vec::new();
        sys.contacts[0].points(&q, &mut pts);
        assert_eq!(pts.len(), 1, "one corner in: {pts:?}");
        assert!((pts[0].depth - 1e-3).abs() < 1e-9, "{pts:?}");
        // frictionless, at rest: the rotation terms alone (moment arm)
        check_jacobian_at(&tilted_box(slab_moves, false).0, Some(q.clone()), &[]);
        // sliding and spinning (both bodies when the slab moves): the slip
        // in the transition range of μ, closing
        let mut u_set = vec![
            (0, 0.3),
            (1, -0.2),
            (2, -0.05),
            (4, 0.4),
            (5, -0.3),
            (6, 0.2),
        ];
        if slab_moves {
            u_set.extend([(7, -0.1), (8, 0.05), (11, 0.2), (12, 0.1)]);
        }
        check_jacobian_at(&m, Some(q), &u_set);
    }
}

/// Residual rows as a function of (q, u).
type Residual<'a> = dyn Fn(&[f64], &[f64]) -> Vec<f64> + 'a;

/// ∂R/∂u (every column) and ∂R/∂q (along [`q_directions`]) of `resid`
/// (rows × n) against central differences (h = 1e-7), within 1e-6 of the
/// largest Jacobian entry.
fn check_rows(
    what: &str,
    q: &[f64],
    u: &[f64],
    resid: &Residual,
    jq: &DMatrix<f64>,
    ju: &DMatrix<f64>,
) {
    let n = q.len();
    let h = 1e-7;
    let scale = jq.amax().max(ju.amax());
    assert!(scale > 0.0, "{what}: a Jacobian");
    let u_dirs: Vec<Vec<f64>> = (0..n)
        .map(|k| {
            let mut d = vec![0.0; n];
            d[k] = 1.0;
            d
        })
        .collect();
    for (which, dirs, jac) in [(1, u_dirs, ju), (0, q_directions(q), jq)] {
        for dir in dirs {
            let mut vars = [q.to_vec(), u.to_vec()];
            vars[which]
                .iter_mut()
                .zip(&dir)
                .for_each(|(x, d)| *x += h * d);
            let rp = resid(&vars[0], &vars[1]);
            vars[which]
                .iter_mut()
                .zip(&dir)
                .for_each(|(x, d)| *x -= 2.0 * h * d);
            let rm = resid(&vars[0], &vars[1]);
            let an = jac * nalgebra::DVector::from_column_slice(&dir);
            for r in 0..rp.len() {
                let fd = (rp[r] - rm[r]) / (2.0 * h);
                assert!(
                    (an[r] - fd).abs() <= 1e-6 * scale,
                    "{what}: ∂R{r}/∂{} along {dir:?}: analytic {} vs FD {fd} (scale {scale})",
                    ["q", "u"][which],
                    an[r]
                );
            }
        }
    }
}

/// CONTACT(1, 0, 1, 0), CONTACT(1, 1, 2, 0) and CONTACT(1, 0, 4, 11) (rm a
/// tilted ground marker) of the tilted box on the moving slab.
fn contact_measures() -> Vec<Measure> {
    vec![
        Measure::Contact {
            id: 1,
            jflag: 0,
            comp: 1,
            rm: None,
        },
        Measure::Contact {
            id: 1,
            jflag: 1,
            comp: 2,
            rm: None,
        },
        Measure::Contact {
            id: 1,
            jflag: 0,
            comp: 4,
            rm: Some(11),
        },
    ]
}

/// The sliding, spinning state of the tilted-box test.
const SLIDING: [(usize, f64); 10] = [
    (0, 0.3),
    (1, -0.2),
    (2, -0.05),
    (4, 0.4),
    (5, -0.3),
    (6, 0.2),
    (7, -0.1),
    (8, 0.05),
    (11, 0.2),
    (12, 0.1),
];

/// An SFORCE between the box and the slab whose function reads CONTACT()
/// three ways (magnitude on I, x on J, z in a tilted ground marker's axes):
/// its Jacobian chains through the contact force's own ∂F/∂q and ∂F/∂u.
#[test]
fn force_function_reading_contact_matches_finite_differences() {
    use mbsolve_mech::states::StateContext;
    let (mut m, q) = tilted_box(true, true);
    marker(
        &mut m,
        11,
        1,
        Placement::default().with_euler313(0.2, 0.3, 0.1),
    );
    m.forces.push(Force {
        id: 1,
        i: 20,
        j: 30,
        kind: ForceKind::TranslationalActionReaction {
            function: std::sync::Arc::new(StateFn {
                measures: contact_measures(),
                f: |_t: f64, c: &[f64], d: &mut [f64]| {
                    d[0] = 0.3;
                    d[1] = 0.02 * c[1];
                    d[2] = 0.5 * (0.01 * c[2]).cos();
                    (
                        0.3 * c[0] + 0.01 * c[1] * c[1] + 50.0 * (0.01 * c[2]).sin(),
                        0.0,
                    )
                },
            }),
        },
    });
    let sys = System::new(&m).unwrap();
    let n = sys.nq();
    let mut u = vec![0.0; n];
    for (k, v) in SLIDING {
        u[k] = v;
    }
    let f = &sys.forces[0];
    let st = StateContext::NONE;
    assert!(
        f.local_force(&q, &u, 0.0).norm() > 1.0,
        "the SFORCE is loaded"
    );
    let resid = |q: &[f64], u: &[f64]| {
        let mut r = vec![0.0; n];
        f.add_residual(&st, q, u, 0.0, &mut r);
        r
    };
    let mut jq = Dense(DMatrix::zeros(n, n));
    f.add_jacobian(&st, &q, &u, 0.0, &mut jq, 0, Some(0), 0, 0.0);
    let mut ju = Dense(DMatrix::zeros(n, n));
    f.add_jacobian(&st, &q, &u, 0.0, &mut ju, 0, None, 0, 1.0);
    check_rows("SFORCE", &q, &u, &resid, &jq.0, &ju.0);
}

/// A DIFF over three moving parts (the box, the slab and a free part 4):
/// f = DX(40, 20) · CONTACT(1, 0, 4, 0) + sin(DZ(30, 40)) + CONTACT(1, 1,
/// 1, 0)/100. Each measure lives on its own bodies (`multi_law.rs`); the
/// row's Jacobian against central differences.
#[test]
fn diff_over_three_parts_reading_contact_matches_finite_differences() {
    let (mut m, q) = tilted_box(true, true);
    let mut p4 = Part::body(
        4,
        1.0,
        Inertia::diagonal(0.01, 0.01, 0.01),
        Placement::at(0.4, -0.3, 0.5).with_euler313(0.5, 0.2, 0.0),
    );
    p4.cm = Some(40);
    m.parts.push(p4);
    marker(&mut m, 40, 4, Placement::default());
    let meas = vec![
        Measure::Disp {
            i: 40,
            j: Some(20),
            k: None,
            axis: 0,
        },
        Measure::Contact {
            id: 1,
            jflag: 0,
            comp: 4,
            rm: None,
        },
        Measure::Disp {
            i: 30,
            j: Some(40),
            k: None,
            axis: 2,
        },
        Measure::Contact {
            id: 1,
            jflag: 1,
            comp: 1,
            rm: None,
        },
    ];
    m.diffs.push(Diff {
        id: 1,
        function: std::sync::Arc::new(StateFn {
            measures: meas,
            f: |_t: f64, c: &[f64], d: &mut [f64]| {
                d[0] = c[1];
                d[1] = c[0];
                d[2] = c[2].cos();
                d[3] = 0.01;
                (c[0] * c[1] + c[2].sin() + 0.01 * c[3], 0.0)
            },
        }),
        implicit: false,
        ic: 0.0,
        ic_rate: None,
        static_hold: false,
    });
    let sys = System::new(&m).unwrap();
    let n = sys.nq();
    assert_eq!(n, 21);
    // the tilted box's q, the new part at its initial pose
    let mut q_all = sys.initial_state().0;
    q_all[..14].copy_from_slice(&q[..14]);
    let mut u = vec![0.0; n];
    for (k, v) in SLIDING {
        u[k] = v;
    }
    u[14] = 0.2;
    u[17] = -0.1;
    let data = sys.new_data();
    let resid = |q: &[f64], u: &[f64]| {
        let mut r = vec![0.0; 1];
        sys.state_residual(&data, q, u, 0.0, &mut r);
        r
    };
    // w' − f: ∂/∂q = −∂f/∂q
    let mut jq = Dense(DMatrix::zeros(1, n + 1));
    sys.state_jacobian(&data, &q_all, &u, 0.0, &mut jq, 0, Some(0), 0, 0.0, n, 0.0);
    let mut ju = Dense(DMatrix::zeros(1, n + 1));
    sys.state_jacobian(&data, &q_all, &u, 0.0, &mut ju, 0, None, 0, 1.0, n, 0.0);
    let (jq, ju) = (
        jq.0.columns(0, n).into_owned(),
        ju.0.columns(0, n).into_owned(),
    );
    // every part's columns are in the row
    for b in 0..3 {
        assert!(jq.columns(7 * b, 7).amax() > 0.0, "part slot {b}");
    }
    check_rows("DIFF", &q_all, &u, &resid, &jq, &ju);
}
