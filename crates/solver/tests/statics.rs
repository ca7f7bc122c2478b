#![allow(clippy::needless_range_loop)]
//! Static and quasi-static analyses against analytic equilibria (stated
//! tolerances). Models are built here through the Rust API.

use mbsolve_model::*;
use mbsolve_solver::{models, Simulation, SolverError, StaticMethod, StaticSettings};
use nalgebra::Vector3;
use std::f64::consts::{FRAC_PI_2, PI};
use std::sync::Arc;

const G: f64 = 9.81;

/// Marker axes with z along ground +y.
fn up(at: [f64; 3]) -> Placement {
    Placement::at(at[0], at[1], at[2]).with_euler313(0.0, -FRAC_PI_2, 0.0)
}

/// Marker axes with z along ground +x.
fn along_x(at: [f64; 3]) -> Placement {
    Placement::at(at[0], at[1], at[2]).with_euler313(FRAC_PI_2, FRAC_PI_2, 0.0)
}

fn marker(m: &mut Model, id: Id, part: Id, placement: Placement) {
    m.markers.push(Marker {
        id,
        part,
        placement,
    });
}

fn spring(id: Id, i: Id, j: Id, k: f64, c: f64, free: f64) -> Force {
    Force {
        id,
        i,
        j,
        kind: ForceKind::TranslationalSpringDamper {
            stiffness: k,
            damping: c,
            free_length: free,
            preload: 0.0,
        },
    }
}

fn fim_s() -> StaticSettings {
    StaticSettings {
        method: Some(StaticMethod::FimS),
        ..Default::default()
    }
}

/// Mass m on a vertical translational joint hanging from a spring (k, c,
/// free length 1) attached at the ground origin; gravity −y. Starts at the
/// free length, so the static deflection is mg/k.
fn hanging(mass: f64, k: f64, c: f64) -> Model {
    let mut m = Model::new("hanging spring-mass");
    m.gravity = Vector3::new(0.0, -G, 0.0);
    m.parts.push(Part::ground(1));
    m.parts.push(Part::body(
        2,
        mass,
        Inertia::diagonal(0.1, 0.1, 0.1),
        Placement::at(0.0, -1.0, 0.0),
    ));
    marker(&mut m, 10, 1, up([0.0; 3]));
    marker(&mut m, 20, 2, up([0.0; 3]));
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Translational,
        i: 20,
        j: 10,
    });
    m.forces.push(spring(1, 20, 10, k, c, 1.0));
    m
}

/// Hanging spring-mass (m = 2, k = 100): FIM_S finds y = −(1 + mg/k) to
/// 1e-9 (the problem is linear; Newton is exact after one step), logs each
/// iteration with the largest imbalance and its element, and the reaction
/// of the joint balances nothing along y (the spring carries mg).
#[test]
fn hanging_spring_mass_deflects_mg_over_k() {
    let (mass, k) = (2.0, 100.0);
    let mut sim = Simulation::new(&hanging(mass, k, 5.0)).unwrap();
    let rep = sim.static_equilibrium(&fim_s()).unwrap();
    let y = sim.state.q[1];
    let exact = -(1.0 + mass * G / k);
    println!(
        "FIM_S: y = {y}, exact {exact}, {} iterations",
        rep.iterations
    );
    assert!((y - exact).abs() < 1e-9, "y = {y}, exact {exact}");
    assert_eq!(rep.method, StaticMethod::FimS);
    assert!(rep.iterations <= 3, "{} iterations", rep.iterations);
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("FIM_S iteration 0: imbalance")
            && l.contains("PART/2 y force balance")));
    // The default method FIM_D falls back to FIM_S for a pure static solution.
    let mut sim = Simulation::new(&hanging(mass, k, 5.0)).unwrap();
    let rep = sim.static_equilibrium(&StaticSettings::default()).unwrap();
    assert_eq!(rep.method, StaticMethod::FimS);
    assert!(sim
        .log
        .iter()
        .any(|l| l.contains("FIM_D falls back to FIM_S for a pure static solution")));
    assert!((sim.state.q[1] - exact).abs() < 1e-9);
    assert_eq!(sim.frames.len(), 1);
    assert_eq!(sim.frames[0].u, vec![0.0; 7]);
}

/// `stability` changes the iteration, not the solution: with 1e-10, 1e-2
/// and 1 the hanging mass and the four-bar reach the same equilibrium
/// within 1e-8.
#[test]
fn stability_does_not_change_the_solution() {
    for model in [hanging(2.0, 100.0, 0.0), spring_four_bar(60.0)] {
        let mut ys = Vec::new();
        for s in [1e-10, 1e-2, 1.0] {
            let mut sim = Simulation::new(&model).unwrap();
            let set = StaticSettings {
                method: Some(StaticMethod::FimS),
                stability: Some(s),
                max_imbalance: Some(1e-9),
                ..Default::default()
            };
            let rep = sim.static_equilibrium(&set).unwrap();
            println!(
                "{}: stability {s}: {} iterations",
                model.title, rep.iterations
            );
            ys.push(sim.state.q.clone());
        }
        for q in &ys[1..] {
            for i in 0..q.len() {
                assert!(
                    (q[i] - ys[0][i]).abs() < 1e-8,
                    "{}: coordinate {i}",
                    model.title
                );
            }
        }
    }
}

/// A point mass on a planar joint (plane z = 0) held by two springs from
/// ground anchors a1 = (−1, 0), a2 = (1.2, 0.3) under gravity. The
/// equilibrium, found here by a 2-D Newton on m g + Σ f_i = 0, is matched to
/// 1e-8. The part's rotation about z is neutral (the springs act at the CM):
/// the default stability handles it.
#[test]
fn two_spring_planar_equilibrium() {
    let (mass, k1, l1, k2, l2) = (3.0, 200.0, 0.8, 120.0, 1.0);
    let (a1, a2) = ([-1.0, 0.0], [1.2, 0.3]);
    let mut m = Model::new("two springs");
    m.gravity = Vector3::new(0.0, -G, 0.0);
    m.parts.push(Part::ground(1));
    m.parts.push(Part::body(
        2,
        mass,
        Inertia::diagonal(0.1, 0.1, 0.1),
        Placement::at(0.0, -0.5, 0.0),
    ));
    marker(&mut m, 10, 1, Placement::at(0.0, 0.0, 0.0));
    marker(&mut m, 11, 1, Placement::at(a1[0], a1[1], 0.0));
    marker(&mut m, 12, 1, Placement::at(a2[0], a2[1], 0.0));
    marker(&mut m, 20, 2, Placement::at(0.0, 0.0, 0.0));
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Planar,
        i: 20,
        j: 10,
    });
    m.forces.push(spring(1, 20, 11, k1, 0.0, l1));
    m.forces.push(spring(2, 20, 12, k2, 0.0, l2));
    // Reference: Newton on F(x) = (0, −mg) + Σ −k_i (l_i − L_i) (x − a_i)/l_i.
    let force = |x: [f64; 2]| {
        let mut f = [0.0, -mass * G];
        let mut jac = [[0.0; 2]; 2];
        for (a, k, l0) in [(a1, k1, l1), (a2, k2, l2)] {
            let d = [x[0] - a[0], x[1] - a[1]];
            let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
            let s = -k * (l - l0) / l;
            for r in 0..2 {
                f[r] += s * d[r];
                for c in 0..2 {
                    // ∂(s d_r)/∂x_c = s δ_rc − k L0 d_r d_c / l³
                    jac[r][c] += if r == c { s } else { 0.0 } - k * l0 * d[r] * d[c] / l.powi(3);
                }
            }
        }
        (f, jac)
    };
    let mut x = [0.0, -0.5];
    for _ in 0..50 {
        let (f, j) = force(x);
        let det = j[0][0] * j[1][1] - j[0][1] * j[1][0];
        x[0] -= (j[1][1] * f[0] - j[0][1] * f[1]) / det;
        x[1] -= (-j[1][0] * f[0] + j[0][0] * f[1]) / det;
    }
    assert!(force(x).0.iter().all(|v| v.abs() < 1e-10));
    let mut sim = Simulation::new(&m).unwrap();
    let set = StaticSettings {
        max_imbalance: Some(1e-8),
        ..fim_s()
    };
    let rep = sim.static_equilibrium(&set).unwrap();
    let q = &sim.state.q;
    println!(
        "two springs: ({}, {}) vs ({}, {}), {} iterations",
        q[0], q[1], x[0], x[1], rep.iterations
    );
    assert!((q[0] - x[0]).abs() < 1e-8 && (q[1] - x[1]).abs() < 1e-8);
    assert!(q[2].abs() < 1e-12);
}

/// The example four-bar (crank 1, coupler 2, rocker 2, ground 2; 1 kg rods;
/// three redundant equations) with a torsional spring k at the crank pivot,
/// relaxed at the model's crank angle 1 rad.
fn spring_four_bar(k: f64) -> Model {
    let mut m = models::four_bar();
    m.title = "four-bar with torsional spring".into();
    m.forces.push(Force {
        id: 1,
        i: 20,
        j: 10,
        kind: ForceKind::RotationalSpringDamper {
            stiffness: k,
            damping: 0.5,
            free_angle: 0.0,
            preload: 0.0,
        },
    });
    m
}

/// Potential energy of `spring_four_bar` at crank angle θ: gravity on the
/// three rod centres plus ½k(θ − 1)².
fn four_bar_potential(th: f64, k: f64) -> f64 {
    let (a, b, c, d) = (1.0, 2.0, 2.0, 2.0);
    let pa = [a * th.cos(), a * th.sin()];
    let (dx, dy) = (d - pa[0], -pa[1]);
    let dist = (dx * dx + dy * dy).sqrt();
    let along = (b * b - c * c + dist * dist) / (2.0 * dist);
    let h = (b * b - along * along).sqrt();
    let pb = [
        pa[0] + along * dx / dist - h * dy / dist,
        pa[1] + along * dy / dist + h * dx / dist,
    ];
    let ys = (pa[1] / 2.0) + (pa[1] + pb[1]) / 2.0 + pb[1] / 2.0;
    G * ys + 0.5 * k * (th - 1.0).powi(2)
}

/// Crank angle where dV/dθ = 0, by bisection on a central difference.
fn four_bar_equilibrium(k: f64, lo: f64, hi: f64) -> f64 {
    let dv = |th: f64| (four_bar_potential(th + 1e-6, k) - four_bar_potential(th - 1e-6, k)) / 2e-6;
    let (mut lo, mut hi) = (lo, hi);
    assert!(dv(lo) * dv(hi) < 0.0, "no sign change of dV/dθ");
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if (dv(lo) > 0.0) == (dv(mid) > 0.0) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Four-bar with a torsional spring: FIM_S (deactivated redundant rows
/// keep λ = 0) and MKEAM both find the crank angle of dV/dθ = 0 to 1e-6 rad.
#[test]
fn four_bar_with_torsional_spring() {
    let k = 60.0;
    let exact = four_bar_equilibrium(k, 0.2, 1.0);
    let crank = |q: &[f64]| q[1].atan2(q[0]);
    let mut sim = Simulation::new(&spring_four_bar(k)).unwrap();
    let set = StaticSettings {
        max_imbalance: Some(1e-8),
        ..fim_s()
    };
    let rep = sim.static_equilibrium(&set).unwrap();
    let th = crank(&sim.state.q);
    println!(
        "four-bar FIM_S: θ = {th}, exact {exact}, {} iterations",
        rep.iterations
    );
    assert!((th - exact).abs() < 1e-6, "θ = {th}, exact {exact}");
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("deactivating constraint equation")));
    let mut sim = Simulation::new(&spring_four_bar(k)).unwrap();
    let set = StaticSettings {
        method: Some(StaticMethod::Mkeam),
        max_dq_tol: Some(1e-7),
        max_ke_tol: Some(1e-10),
        ..Default::default()
    };
    let rep = sim.static_equilibrium(&set).unwrap();
    let th = crank(&sim.state.q);
    println!(
        "four-bar MKEAM: θ = {th}, exact {exact}, {} iterations",
        rep.iterations
    );
    assert!((th - exact).abs() < 1e-6, "θ = {th}, exact {exact}");
}

/// A ball (m = 1) resting on a table (m = 4) that sits on a vertical spring
/// (k = 500, free length 1, table top at y = 1): the ball's slide in x, z and
/// spin about y are neutral. Without stability the Jacobian is singular and
/// the error says so; with the default stability FIM_S converges: the table
/// sinks by (m_ball + m_table) g / k and the ball keeps its x, z (to 1e-9:
/// the stability term leaves rounding-level steps in the neutral directions).
fn ball_on_table() -> Model {
    let r = 0.1;
    let mut m = Model::new("ball on a table");
    m.gravity = Vector3::new(0.0, -G, 0.0);
    m.parts.push(Part::ground(1));
    m.parts.push(Part::body(
        2,
        1.0,
        Inertia::diagonal(0.4 * r * r, 0.4 * r * r, 0.4 * r * r),
        Placement::at(0.3, 1.0 + r, -0.2),
    ));
    m.parts.push(Part::body(
        3,
        4.0,
        Inertia::diagonal(1.0, 1.0, 1.0),
        Placement::at(0.0, 1.0, 0.0),
    ));
    marker(&mut m, 10, 1, up([0.0; 3]));
    marker(&mut m, 20, 2, up([0.0, -r, 0.0]));
    marker(&mut m, 30, 3, up([0.0; 3]));
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Planar,
        i: 20,
        j: 30,
    });
    m.joints.push(Joint {
        id: 2,
        kind: JointKind::Translational,
        i: 30,
        j: 10,
    });
    m.forces.push(spring(1, 30, 10, 500.0, 0.0, 1.0));
    m
}

#[test]
fn neutral_equilibrium_needs_stability() {
    let mut sim = Simulation::new(&ball_on_table()).unwrap();
    let set = StaticSettings {
        stability: Some(0.0),
        ..fim_s()
    };
    let err = sim.static_equilibrium(&set).unwrap_err();
    let msg = err.to_string();
    println!("{msg}");
    assert!(matches!(err, SolverError::Statics(_)));
    assert!(
        msg.contains("FIM_S: singular Jacobian at iteration 0")
            && msg.contains("needs stability > 0 (now 0")
            && msg.contains("try method = MKEAM"),
        "{msg}"
    );
    // The best configuration reached is kept as state and frame.
    assert_eq!(sim.frames.len(), 1);
    assert_eq!(sim.frames[0].q, sim.state.q);

    let mut sim = Simulation::new(&ball_on_table()).unwrap();
    let rep = sim.static_equilibrium(&fim_s()).unwrap();
    let q = &sim.state.q;
    let sink = 5.0 * G / 500.0;
    println!(
        "ball on table: table y = {}, ball ({}, {}, {}), {} iterations",
        q[8], q[0], q[1], q[2], rep.iterations
    );
    assert!((q[8] - (1.0 - sink)).abs() < 1e-9, "table y = {}", q[8]);
    assert!((q[1] - (1.1 - sink)).abs() < 1e-9, "ball y = {}", q[1]);
    assert!((q[0] - 0.3).abs() < 1e-9 && (q[2] + 0.2).abs() < 1e-9);
}

/// Pendulum (L = 1) started 0.3 rad from the inverted position: FIM_S
/// converges to the nearer, unstable, inverted equilibrium (CM at (0, 1));
/// MKEAM finds only stable equilibria and ends hanging (CM at (0, −1)), to
/// 1e-4 with max_dq_tol = 1e-6.
#[test]
fn mkeam_finds_the_stable_equilibrium_fim_s_the_nearest() {
    let near_inverted = || {
        let mut m = models::pendulum(1.0, G);
        let th0 = PI - 0.3; // from the hanging position
        let dir = [th0.sin(), -th0.cos()];
        m.parts[1].placement =
            Placement::at(dir[0], dir[1], 0.0).with_euler313(dir[1].atan2(dir[0]), 0.0, 0.0);
        m
    };
    let mut sim = Simulation::new(&near_inverted()).unwrap();
    let rep = sim.static_equilibrium(&fim_s()).unwrap();
    let q = &sim.state.q;
    println!(
        "pendulum FIM_S: CM ({}, {}), {} iterations",
        q[0], q[1], rep.iterations
    );
    assert!(q[0].abs() < 1e-6 && (q[1] - 1.0).abs() < 1e-6);

    let mut sim = Simulation::new(&near_inverted()).unwrap();
    let set = StaticSettings {
        method: Some(StaticMethod::Mkeam),
        max_dq_tol: Some(1e-6),
        ..Default::default()
    };
    let rep = sim.static_equilibrium(&set).unwrap();
    let q = &sim.state.q;
    println!(
        "pendulum MKEAM: CM ({}, {}), {} iterations",
        q[0], q[1], rep.iterations
    );
    for l in sim.log.iter().filter(|l| l.starts_with("MKEAM")) {
        println!("  {l}");
    }
    assert_eq!(rep.method, StaticMethod::Mkeam);
    assert!(
        q[0].abs() < 1e-4 && (q[1] + 1.0).abs() < 1e-4,
        "CM ({}, {})",
        q[0],
        q[1]
    );
}

/// MKEAM removes damping: the damped hanging mass ends at mg/k (1e-6 with
/// max_dq_tol = 1e-7).
#[test]
fn mkeam_hanging_mass() {
    let (mass, k) = (2.0, 100.0);
    let mut sim = Simulation::new(&hanging(mass, k, 50.0)).unwrap();
    let set = StaticSettings {
        method: Some(StaticMethod::Mkeam),
        max_dq_tol: Some(1e-7),
        ..Default::default()
    };
    let rep = sim.static_equilibrium(&set).unwrap();
    let exact = -(1.0 + mass * G / k);
    println!(
        "MKEAM hanging: y = {}, {} iterations",
        sim.state.q[1], rep.iterations
    );
    assert!((sim.state.q[1] - exact).abs() < 1e-6);
}

/// A failed FIM_S keeps the best configuration and names the complementary
/// method: the four-bar with max_num_iter = 1 cannot converge.
#[test]
fn failure_keeps_the_best_configuration() {
    let mut sim = Simulation::new(&spring_four_bar(60.0)).unwrap();
    let set = StaticSettings {
        max_num_iter: Some(1),
        ..fim_s()
    };
    let msg = sim.static_equilibrium(&set).unwrap_err().to_string();
    println!("{msg}");
    assert!(msg.starts_with(
        "static equilibrium failed: FIM_S did not converge in 1 iterations at t = 0: imbalance"
    ));
    assert!(msg.ends_with(
        "try method = MKEAM (it finds stable equilibria far from the model configuration)"
    ));
    assert_eq!(sim.frames.len(), 1);
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("FIM_S iteration 1: imbalance")));
}

/// Static equilibrium, then dynamics: the hanging mass released from its
/// equilibrium stays there to within ERROR (1e-3) over 1 s.
#[test]
fn dynamics_starts_from_the_equilibrium() {
    let (mass, k) = (2.0, 100.0);
    let mut sim = Simulation::new(&hanging(mass, k, 0.0)).unwrap();
    sim.static_equilibrium(&fim_s()).unwrap();
    let settings = IntegratorSettings::default();
    sim.dynamic(1.0, None, Some(0.01), &settings).unwrap();
    let exact = -(1.0 + mass * G / k);
    let dev = sim
        .frames
        .iter()
        .map(|f| (f.q[1] - exact).abs())
        .fold(0.0f64, f64::max);
    println!("largest departure from the equilibrium: {dev:.3e}");
    assert!(dev < 1e-3);
    assert_eq!(sim.frames[0].t, 0.0);
    assert!((sim.frames.last().unwrap().t - 1.0).abs() < 1e-12);
}

/// Horizontal slider (k = 200, free length 1) pushed along +x by a force
/// ramped as F(t) = 50 t: the quasi-static deflection is F(t)/k at every
/// output, with FIM_S (a sequence of statics) and FIM_D (DAE integration),
/// to 1e-6. FIM_D needs fewer Newton iterations in total (measured: FIM_S
/// 40, two per output; FIM_D 20, its predictor is exact on a linear path).
#[test]
fn quasi_static_ramp() {
    let (k, rate) = (200.0, 50.0);
    let mut m = models::spring_mass(1.0, k, 0.0, 0.0);
    m.markers.push(Marker {
        id: 11,
        part: 1,
        placement: along_x([0.0; 3]),
    });
    m.forces.push(Force {
        id: 2,
        i: 20,
        j: 11,
        kind: ForceKind::TranslationalActionOnly {
            function: Arc::new(StateFn {
                measures: vec![],
                f: move |t: f64, _m: &[f64], _dm: &mut [f64]| (rate * t, rate),
            }),
        },
    });
    let mut counts = Vec::new();
    for method in [StaticMethod::FimS, StaticMethod::FimD] {
        let mut sim = Simulation::new(&m).unwrap();
        let set = StaticSettings {
            method: Some(method),
            ..Default::default()
        };
        let rep = sim
            .quasi_static(2.0, Some(20), None, &set, &IntegratorSettings::default())
            .unwrap();
        assert_eq!(rep.method, method);
        assert_eq!(sim.frames.len(), 21);
        for f in &sim.frames {
            let exact = 1.0 + rate * f.t / k;
            assert!(
                (f.q[0] - exact).abs() < 1e-6,
                "{}: t = {}: x = {}, exact {exact}",
                method.name(),
                f.t,
                f.q[0]
            );
        }
        println!(
            "{}: {} Newton iterations, {} Jacobian evaluations",
            method.name(),
            rep.iterations,
            rep.jacobians
        );
        counts.push(rep.iterations);
    }
    assert!(
        counts[1] < counts[0],
        "FIM_D {} vs FIM_S {}",
        counts[1],
        counts[0]
    );
    let mut sim = Simulation::new(&m).unwrap();
    let set = StaticSettings {
        method: Some(StaticMethod::Mkeam),
        ..Default::default()
    };
    let err = sim
        .quasi_static(2.0, Some(20), None, &set, &IntegratorSettings::default())
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Param_Static: method = MKEAM is not available for quasi-static analysis; use FIM_D or FIM_S"
    );
}

/// Compliance of the hanging mass: 1/k along the joint (y), zero in the
/// constrained directions, to 1e-9 relative.
#[test]
fn compliance_of_the_hanging_mass() {
    let k = 100.0;
    let mut sim = Simulation::new(&hanging(2.0, k, 0.0)).unwrap();
    sim.static_equilibrium(&fim_s()).unwrap();
    let c = sim.compliance_matrix(&fim_s()).unwrap();
    println!("C_yy = {:e} (1/k = {:e})", c.matrix[(1, 1)], 1.0 / k);
    assert_eq!(c.labels[1], "PART/2 y");
    assert!((c.matrix[(1, 1)] * k - 1.0).abs() < 1e-9);
    for r in 0..6 {
        for col in 0..6 {
            if (r, col) != (1, 1) {
                assert!(
                    c.matrix[(r, col)].abs() < 1e-9 / k,
                    "C[{r}][{col}] = {}",
                    c.matrix[(r, col)]
                );
            }
        }
    }
}

/// Pendulum (m = 1, L = 1) hanging, with a torque T(t) = 4t about the pivot
/// ramped over 2 s: quasi-static angle from hanging θ = asin(T / mgL), so
/// the CM is at (T/mg, −cos θ). FIM_S and FIM_D match to 1e-6 at every
/// output. With a FIM_D integration that cannot proceed (MAXIT = 1, HMIN
/// close to the output step) FIM_S takes over the outputs and the answers
/// are unchanged. Measured: FIM_S 60 Newton iterations and Jacobians
/// (three per output), FIM_D 59 corrector iterations with 20 Jacobians.
#[test]
fn quasi_static_nonlinear_and_integrator_difficulty() {
    let mut m = models::pendulum(1.0, G);
    m.parts[1].placement = Placement::at(0.0, -1.0, 0.0).with_euler313(-FRAC_PI_2, 0.0, 0.0);
    m.forces.push(Force {
        id: 1,
        i: 20,
        j: 10,
        kind: ForceKind::RotationalActionOnly {
            function: Arc::new(StateFn {
                measures: vec![],
                f: |t: f64, _m: &[f64], _dm: &mut [f64]| (4.0 * t, 4.0),
            }),
        },
    });
    let hard = IntegratorSettings {
        maxit: Some(1),
        hmin: Some(0.099),
        hinit: Some(0.1),
        ..Default::default()
    };
    let mut jacobians = Vec::new();
    for (method, integ) in [
        (StaticMethod::FimS, IntegratorSettings::default()),
        (StaticMethod::FimD, IntegratorSettings::default()),
        (StaticMethod::FimD, hard),
    ] {
        let mut sim = Simulation::new(&m).unwrap();
        let set = StaticSettings {
            method: Some(method),
            ..Default::default()
        };
        let rep = sim.quasi_static(2.0, Some(20), None, &set, &integ).unwrap();
        if std::env::var("STATICS_DEBUG").is_ok() {
            for l in &sim.log {
                println!("  | {l}");
            }
        }
        for f in &sim.frames {
            let torque = 4.0 * f.t;
            let th = (torque / G).asin();
            let (x, y) = (f.q[0], f.q[1]);
            assert!(
                (x - th.sin()).abs() < 1e-6 && (y + th.cos()).abs() < 1e-6,
                "{}: t = {}: CM ({x}, {y}), exact ({}, {})",
                method.name(),
                f.t,
                th.sin(),
                -th.cos()
            );
        }
        let fallbacks = sim
            .log
            .iter()
            .filter(|l| l.starts_with("FIM_D: integrator difficulty"))
            .count();
        println!(
            "pendulum torque ramp {} (MAXIT {:?}): {} Newton iterations, {} Jacobian evaluations, {fallbacks} FIM_S take-overs",
            method.name(),
            integ.maxit,
            rep.iterations,
            rep.jacobians
        );
        jacobians.push(rep.jacobians);
        assert_eq!(sim.frames.len(), 21);
        if integ.maxit == Some(1) {
            assert!(fallbacks > 0);
        } else {
            assert_eq!(fallbacks, 0);
        }
    }
    // FIM_D reuses its Jacobian over a step's corrector iterations.
    assert!(jacobians[1] < jacobians[0], "{jacobians:?}");
}

/// Adams TLIMIT: with a per-iteration translation limit of 0.05 below the
/// 0.196 deflection, FIM_S takes at least ⌈0.196/0.05⌉ = 4 limited steps,
/// logs them, and still reaches y = −(1 + mg/k); a non-positive TLIMIT is
/// rejected by name.
#[test]
fn tlimit_limits_each_newton_step() {
    let (mass, k) = (2.0, 100.0);
    let mut sim = Simulation::new(&hanging(mass, k, 5.0)).unwrap();
    let set = StaticSettings {
        method: Some(StaticMethod::FimS),
        tlimit: Some(0.05),
        ..Default::default()
    };
    let rep = sim.static_equilibrium(&set).unwrap();
    let exact = -(1.0 + mass * G / k);
    println!("TLIMIT = 0.05: {} iterations", rep.iterations);
    assert!((sim.state.q[1] - exact).abs() < 1e-9);
    assert!(rep.iterations >= 4, "{} iterations", rep.iterations);
    let limited = sim
        .log
        .iter()
        .filter(|l| l.contains("step limited by TLIMIT/ALIMIT"))
        .count();
    assert!(limited >= 3, "{limited} limited steps logged");
    let bad = StaticSettings {
        tlimit: Some(0.0),
        ..Default::default()
    };
    let mut sim = Simulation::new(&hanging(mass, k, 5.0)).unwrap();
    let err = sim.static_equilibrium(&bad).unwrap_err().to_string();
    assert!(
        err.contains("TLIMIT = 0 is out of range (TLIMIT > 0)"),
        "{err}"
    );
}

/// Settings from an Adams EQUILIBRIUM statement (origin in an .adm/.acf
/// file) are reported with the EQUILIBRIUM names and where they were
/// written; numbers print readably (1e300, not 301 digits).
#[test]
fn equilibrium_settings_are_reported_in_adams_names() {
    use mbsolve_solver::statics::{static_params, StaticAnalysis};
    let from_acf = |s: StaticSettings| StaticSettings {
        origin: Some("model.acf:3:1".into()),
        ..s
    };
    let err = |s: StaticSettings| static_params(&s, StaticAnalysis::Static).unwrap_err();
    assert_eq!(
        err(from_acf(StaticSettings {
            max_imbalance: Some(-1.0),
            ..Default::default()
        })),
        "model.acf:3:1: EQUILIBRIUM: IMBALANCE = -1 is out of range (IMBALANCE > 0)"
    );
    assert_eq!(
        err(from_acf(StaticSettings {
            max_num_iter: Some(0),
            ..Default::default()
        })),
        "model.acf:3:1: EQUILIBRIUM: MAXIT = 0 is out of range (MAXIT >= 1)"
    );
    assert_eq!(
        err(from_acf(StaticSettings {
            max_error: Some(-1e300),
            ..Default::default()
        })),
        "model.acf:3:1: EQUILIBRIUM: ERROR = -1e300 is out of range (ERROR > 0)"
    );
    assert_eq!(
        err(from_acf(StaticSettings {
            alimit: Some(-2.0),
            ..Default::default()
        })),
        "model.acf:3:1: EQUILIBRIUM: ALIMIT = -2 is out of range (ALIMIT > 0)"
    );
    // The same value from a MotionSolve model keeps the Param_Static name.
    assert_eq!(
        err(StaticSettings {
            max_imbalance: Some(-1.0),
            origin: Some("m.xml:7:3".into()),
            ..Default::default()
        }),
        "m.xml:7:3: Param_Static: max_imbalance = -1 is out of range (max_imbalance > 0)"
    );
}
