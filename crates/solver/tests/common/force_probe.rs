//! Probes of force-function measures shared by the measure tests
//! (euler_force_measures.rs, orient_force_measure.rs): what a force
//! function reads against what a request reads, ∂R/∂q and ∂R/∂u against
//! central differences, and a torsion spring with a closed-form period.

use mbsolve_expr::{Expr, ExprStateFunction};
use mbsolve_mech::{Sink, System};
use mbsolve_model::*;
use mbsolve_solver::functions::FrameContext;
use mbsolve_solver::{Frame, Simulation};
use nalgebra::{DMatrix, Vector3};
use std::sync::{Arc, Mutex};

/// A force function that records the value its inner function returns.
#[derive(Debug)]
pub struct Recording {
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

pub fn marker(m: &mut Model, id: Id, part: Id, pos: [f64; 3], eul: [f64; 3]) {
    m.markers.push(Marker {
        id,
        part,
        placement: Placement::at(pos[0], pos[1], pos[2]).with_euler313(eul[0], eul[1], eul[2]),
    });
}

/// Ground (marker 11) and free parts 2 and 3 (markers 21, 31) at the
/// given Euler 313 orientations; markers themselves turned as well.
pub fn two_bodies(e2: [f64; 3], e3: [f64; 3]) -> Model {
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
pub fn rand(state: &mut u64) -> f64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    ((*state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * std::f64::consts::TAU
}

/// What a force function `text` on an action-only force from `i` to `j`
/// added to `m` reads at the initial state, and what a request of `text`
/// reads there.
pub fn force_and_request(m: Model, text: &str, i: Id, j: Id) -> (f64, f64) {
    force_and_request_at(m, text, i, j, &|q0| q0.to_vec())
}

/// As [`force_and_request`] at coordinates `moved(q0)`, the request taking
/// its initial configuration (ORIENT's sign rule) from q0.
pub fn force_and_request_at(
    mut m: Model,
    text: &str,
    i: Id,
    j: Id,
    moved: &dyn Fn(&[f64]) -> Vec<f64>,
) -> (f64, f64) {
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
    let (q0, u) = sys.initial_state();
    let q = moved(&q0);
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
            initial_q: &q0,
        })
        .unwrap();
    (force, request)
}

pub struct Dense(DMatrix<f64>);
impl Sink for Dense {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0[(r, c)] += v;
    }
}

/// ∂R/∂q and ∂R/∂u of the body residual (λ = 0, a = 0) at (q, u, t)
/// against central differences (h = 1e-6, relative 1e-6, as
/// crates/mech/tests/fd_jacobian.rs); returns the number of entries above
/// 1e-3 (so a test can show its forces depend on the coordinates).
pub fn jacobian_matches_finite_differences(sys: &System, q: &[f64], u: &[f64], t: f64) -> usize {
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

/// A free body turned by φ0 about ground z, torque −k·φ about ground z
/// with φ read by `angle` of markers 20 (on the body) and 10 (ground)
/// (ROTATIONAL action-only SFORCE): φ(t) = φ0 cos(√(k/Izz) t), period
/// 2π√(Izz/k). Returns the largest angle error over two periods.
pub fn torsion_spring_error(angle: &dyn Fn(&str) -> String) -> f64 {
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
    let text = format!("-{k}*({})", angle("20, 10"));
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

/// Adds to `m` three forces whose functions are `text(args)` — between
/// markers 21 and 31 (translational action-reaction), 31 and ground marker
/// 11 (rotational action-only), 21 and ground (args "21"; translational
/// action-only) — and checks ∂R/∂q, ∂R/∂u with
/// [`jacobian_matches_finite_differences`] at perturbed coordinates
/// (unnormalised Euler parameters) and velocities; returns its count.
pub fn three_forces_jacobian_matches(mut m: Model, text: &dyn Fn(&str) -> String) -> usize {
    let forces = [(21, Some(31)), (31, Some(11)), (21, None)];
    for (id, (i, j)) in forces.into_iter().enumerate() {
        let args = match j {
            Some(j) => format!("{i}, {j}"),
            None => format!("{i}"),
        };
        let function: Arc<dyn StateFunction> =
            Arc::new(ExprStateFunction::new(Expr::parse(&text(&args)).unwrap()).unwrap());
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
    jacobian_matches_finite_differences(&sys, &q, &u, 0.37)
}
