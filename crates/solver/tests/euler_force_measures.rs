//! PSI THETA PHI (body 3-1-3) and YAW PITCH ROLL (body 3-2-1) in force
//! functions: (1) the force function reads the same value as the request
//! (FrameContext) at random orientations, (2) the analytic ∂R/∂q of a force
//! reading all six matches central differences, (3) a torsion spring
//! T = −k·YAW (and −k·PSI, on the θ = 0 branch) gives the closed-form
//! oscillation φ(t) = φ0 cos(√(k/I) t).

use mbsolve_expr::{Expr, ExprStateFunction};
use mbsolve_mech::{Sink, System};
use mbsolve_model::*;
use mbsolve_solver::functions::FrameContext;
use mbsolve_solver::{Frame, Simulation};
use nalgebra::{DMatrix, Vector3};
use std::sync::{Arc, Mutex};

const NAMES: [&str; 6] = ["PSI", "THETA", "PHI", "YAW", "PITCH", "ROLL"];

/// A force function that records the value its inner function returns.
#[derive(Debug)]
struct Recording {
    inner: ExprStateFunction,
    last: Mutex<f64>,
}

impl StateFunction for Recording {
    fn measures(&self) -> &[Measure] {
        self.inner.measures()
    }
    fn eval(&self, t: f64, m: &[f64], dm: &mut [f64]) -> (f64, f64) {
        let r = self.inner.eval(t, m, dm);
        *self.last.lock().unwrap() = r.0;
        r
    }
}

fn marker(m: &mut Model, id: Id, part: Id, pos: [f64; 3], eul: [f64; 3]) {
    m.markers.push(Marker {
        id,
        part,
        placement: Placement::at(pos[0], pos[1], pos[2]).with_euler313(eul[0], eul[1], eul[2]),
    });
}

/// Ground (marker 11) and free parts 2 and 3 (markers 21, 31) at the
/// given Euler 313 orientations; markers themselves turned as well.
fn two_bodies(e2: [f64; 3], e3: [f64; 3]) -> Model {
    let mut m = Model::new("euler measures");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    for (id, eul) in [(2, e2), (3, e3)] {
        let mut p = Part::body(
            id,
            1.0,
            Inertia::diagonal(1.0, 2.0, 3.0),
            Placement::at(0.1 * id as f64, 0.2, -0.3).with_euler313(eul[0], eul[1], eul[2]),
        );
        p.cm = Some(id * 100);
        m.parts.push(p);
        marker(&mut m, id * 100, id, [0.0; 3], [0.0; 3]);
    }
    marker(&mut m, 11, 1, [0.1, 0.2, 0.3], [0.4, -0.7, 1.1]);
    marker(&mut m, 21, 2, [0.3, -0.2, 0.1], [-0.4, 0.7, 0.2]);
    marker(&mut m, 31, 3, [0.2, 0.2, 0.2], [0.3, -0.6, 0.4]);
    m
}

/// A deterministic pseudo-random number in [−π, π).
fn rand(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * std::f64::consts::TAU
}

/// What a force function `text` on an action-only force from `i` to `j`
/// added to `m` reads at the initial state, and what a request of `text`
/// reads there.
fn force_and_request(mut m: Model, text: &str, i: Id, j: Id) -> (f64, f64) {
    let rec = Arc::new(Recording {
        inner: ExprStateFunction::new(Expr::parse(text).unwrap()).unwrap(),
        last: Mutex::new(f64::NAN),
    });
    m.forces.push(Force {
        id: 1,
        i,
        j,
        kind: ForceKind::TranslationalActionOnly {
            function: rec.clone(),
        },
    });
    let sys = System::new(&m).expect("valid model");
    let (q, u) = sys.initial_state();
    let n = sys.nq();
    let mut r = vec![0.0; n];
    let zeros = vec![0.0; n];
    let lam = vec![0.0; sys.neq()];
    sys.body_residual(&mut sys.new_data(), &q, &u, &zeros, &lam, 0.0, &mut r);
    let force = *rec.last.lock().unwrap();
    let frame = Frame {
        t: 0.0,
        q: q.clone(),
        u,
        a: zeros,
        lambda: lam,
        w: vec![],
        wp: vec![],
        non_dynamic: false,
        mode: 0.0,
    };
    let request = Expr::parse(text)
        .unwrap()
        .eval_in(&FrameContext {
            sys: &sys,
            model: &m,
            frame: &frame,
            initial_q: &q,
        })
        .unwrap();
    (force, request)
}

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

struct Dense(DMatrix<f64>);
impl Sink for Dense {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0[(r, c)] += v;
    }
}

/// ∂R/∂q and ∂R/∂u of the body residual (λ = 0, a = 0) at (q, u, t)
/// against central differences (h = 1e-6, relative 1e-6, as
/// crates/mech/tests/fd_jacobian.rs); returns the number of entries above
/// 1e-3 (so a test can show its forces depend on the coordinates).
fn jacobian_matches_finite_differences(sys: &System, q: &[f64], u: &[f64], t: f64) -> usize {
    let n = sys.nq();
    let a = vec![0.0; n];
    let lam = vec![0.0; sys.neq()];
    let resid = |q: &[f64], u: &[f64]| {
        let mut r = vec![0.0; n];
        sys.body_residual(&mut sys.new_data(), q, u, &a, &lam, t, &mut r);
        r
    };
    let h = 1e-6;
    let mut fd = DMatrix::zeros(n, 2 * n);
    for c in 0..2 * n {
        let (mut qp, mut up) = (q.to_vec(), u.to_vec());
        let x = if c < n { &mut qp[c] } else { &mut up[c - n] };
        *x += h;
        let rp = resid(&qp, &up);
        let x = if c < n { &mut qp[c] } else { &mut up[c - n] };
        *x -= 2.0 * h;
        let rm = resid(&qp, &up);
        for r in 0..n {
            fd[(r, c)] = (rp[r] - rm[r]) / (2.0 * h);
        }
    }
    let mut jac = Dense(DMatrix::zeros(n, 2 * n));
    sys.body_jacobian(
        &mut sys.new_data(),
        q,
        u,
        &a,
        Some(&lam),
        t,
        &mut jac,
        0,
        Some(0),
        n,
        1.0,
        0.0,
    );
    let mut nonzero = 0;
    for r in 0..n {
        for c in 0..2 * n {
            let (x, y) = (jac.0[(r, c)], fd[(r, c)]);
            assert!(
                (x - y).abs() <= 1e-6 * (1.0 + y.abs()),
                "dR/d{} ({r},{}): analytic {x} vs finite difference {y}",
                if c < n { "q" } else { "u" },
                c % n
            );
            if y.abs() > 1e-3 {
                nonzero += 1;
            }
        }
    }
    nonzero
}

/// ∂R/∂q (and ∂R/∂u) of forces whose functions read all six angles
/// between two moving parts and of a part against ground, by central
/// differences (`jacobian_matches_finite_differences`).
#[test]
fn euler_measure_jacobians_match_finite_differences() {
    let mut m = two_bodies([0.3, 0.8, -1.2], [2.1, 1.9, 0.4]);
    let nonlinear = |i: Id, j: Option<Id>| {
        let args = match j {
            Some(j) => format!("{i}, {j}"),
            None => format!("{i}"),
        };
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
        let text = format!("{} + PSI({args})*ROLL({args})", terms.join(" + "));
        let f: Arc<dyn StateFunction> =
            Arc::new(ExprStateFunction::new(Expr::parse(&text).unwrap()).unwrap());
        f
    };
    // Between two moving parts, and part 3 and part 2 against ground.
    let forces = [(21, Some(31)), (31, Some(11)), (21, None)];
    for (id, (i, j)) in forces.into_iter().enumerate() {
        let function = nonlinear(i, j);
        m.forces.push(Force {
            id: id as Id + 1,
            i,
            j: j.unwrap_or(11),
            kind: match id {
                0 => ForceKind::TranslationalActionReaction { function },
                1 => ForceKind::RotationalActionOnly { function },
                _ => ForceKind::TranslationalActionOnly { function },
            },
        });
    }
    let sys = System::new(&m).expect("valid model");
    let n = sys.nq();
    let (mut q, _) = sys.initial_state();
    for (k, x) in q.iter_mut().enumerate() {
        *x += 0.01 * ((k as f64) * 1.3).sin();
    }
    let u: Vec<f64> = (0..n).map(|k| 0.5 * ((k as f64) * 0.7).cos()).collect();
    let nonzero = jacobian_matches_finite_differences(&sys, &q, &u, 0.37);
    // The forces do depend on the orientations (not a vacuous check).
    assert!(nonzero > 20, "{nonzero} nonzero entries");
}

/// A free body turned by φ0 about ground z, torque −k·ANGLE(20, 10) about
/// ground z (ROTATIONAL action-only SFORCE, J = ground marker 10): φ(t) =
/// φ0 cos(√(k/Izz) t), period 2π√(Izz/k).
fn torsion_spring(angle: &str) -> f64 {
    let (izz, k, phi0) = (0.8, 3.0, 0.4);
    let mut m = Model::new("torsion");
    m.gravity = Vector3::zeros();
    m.parts.push(Part::ground(1));
    marker(&mut m, 10, 1, [0.0; 3], [0.0; 3]);
    let mut p = Part::body(
        2,
        1.0,
        Inertia::diagonal(0.5, 0.6, izz),
        Placement::at(0.0, 0.0, 0.0).with_euler313(phi0, 0.0, 0.0),
    );
    p.cm = Some(20);
    m.parts.push(p);
    marker(&mut m, 20, 2, [0.0; 3], [0.0; 3]);
    let text = format!("-{k}*{angle}(20, 10)");
    m.forces.push(Force {
        id: 1,
        i: 20,
        j: 10,
        kind: ForceKind::RotationalActionOnly {
            function: Arc::new(ExprStateFunction::new(Expr::parse(&text).unwrap()).unwrap()),
        },
    });
    let omega = (k / izz).sqrt();
    let period = std::f64::consts::TAU / omega;
    let mut sim = Simulation::new(&m).unwrap();
    let settings = IntegratorSettings {
        error: Some(1e-10),
        ..Default::default()
    };
    sim.dynamic(2.0 * period, Some(200), None, &settings)
        .unwrap();
    assert!(sim.frames.last().unwrap().t > 2.0 * period - 1e-9);
    let mut worst = 0.0f64;
    for f in &sim.frames {
        // Rotation about z: e0 = cos(φ/2), e3 = sin(φ/2).
        let phi = 2.0 * f.q[6].atan2(f.q[3]);
        worst = worst.max((phi - phi0 * (omega * f.t).cos()).abs());
    }
    worst
}

#[test]
fn torsion_spring_on_yaw_and_psi_oscillates_with_the_closed_form_period() {
    for angle in ["YAW", "PSI"] {
        let err = torsion_spring(angle);
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
