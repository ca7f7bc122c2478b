//! Parallel element evaluation (issue 13) gives the same bits as the serial
//! path: every element fills its own slot and the slots are summed and
//! emitted in one fixed order, so no floating-point sum is reordered. Checked
//! on a 250-body pendulum chain (above `PARALLEL_MIN_BODIES`, so the
//! default is parallel): residual terms, Jacobian entries and a short
//! integration's output frames, compared with `==` on the bit patterns.

use mbsolve_mech::{MechData, Sink, System, PARALLEL_MIN_BODIES};
use mbsolve_model::IntegratorSettings;
use mbsolve_solver::{models, Frame, Simulation};

const BODIES: usize = 250;

/// Records every entry in emission order.
#[derive(Default)]
struct Entries(Vec<(usize, usize, u64)>);
impl Sink for Entries {
    fn add(&mut self, row: usize, col: usize, value: f64) {
        self.0.push((row, col, value.to_bits()));
    }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A state off the constraint manifold with every term non-zero: the
/// assembled initial state plus a deterministic perturbation.
fn state(sim: &Simulation) -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) {
    let wiggle = |k: usize, scale: f64| scale * ((k as f64) * 0.731).sin();
    let s = &sim.state;
    let q: Vec<f64> =
        s.q.iter()
            .enumerate()
            .map(|(k, v)| v + wiggle(k, 1e-3))
            .collect();
    let u: Vec<f64> =
        s.u.iter()
            .enumerate()
            .map(|(k, v)| v + wiggle(k + 7, 0.3))
            .collect();
    let a: Vec<f64> =
        s.a.iter()
            .enumerate()
            .map(|(k, v)| v + wiggle(k + 3, 2.0))
            .collect();
    let lam: Vec<f64> = (0..sim.sys.neq()).map(|k| 10.0 + wiggle(k, 5.0)).collect();
    (q, u, a, lam)
}

/// Everything one residual and one Jacobian evaluation produce.
fn evaluate(
    sys: &System,
    data: &mut MechData,
    x: &(Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>),
) -> Vec<Vec<u64>> {
    let (q, u, a, lam) = x;
    let (n, m, t) = (sys.nq(), sys.neq(), 0.3);
    let mut applied = vec![0.0; n];
    sys.applied_residual(data, q, u, a, t, &mut applied);
    let (mut phi, mut forces, mut vel) = (vec![0.0; m], applied.clone(), vec![0.0; m]);
    sys.constraint_terms(
        data,
        q,
        t,
        &mut phi,
        &mut [(lam, &mut forces)],
        Some((u, &mut vel)),
    );
    let mut body = vec![0.0; n];
    sys.body_residual(data, q, u, a, lam, t, &mut body);
    let mut jac = Entries::default();
    sys.body_jacobian(
        data,
        q,
        u,
        a,
        Some(lam),
        t,
        &mut jac,
        0,
        Some(0),
        n,
        0.7,
        1.3,
    );
    sys.constraint_jacobian(data, q, t, &mut jac, n, 0, Some((0, n)), Some(n));
    let jac: Vec<u64> = jac
        .0
        .iter()
        .flat_map(|&(r, c, v)| [r as u64, c as u64, v])
        .collect();
    vec![
        bits(&applied),
        bits(&phi),
        bits(&forces),
        bits(&vel),
        bits(&body),
        jac,
    ]
}

#[test]
fn parallel_residual_and_jacobian_are_bit_identical_to_serial() {
    let mut sim = Simulation::new(&models::chain(BODIES)).unwrap();
    sim.initial_conditions().unwrap();
    const { assert!(BODIES >= PARALLEL_MIN_BODIES) };
    assert!(
        sim.data.parallel,
        "a {BODIES}-body model defaults to parallel"
    );
    let small = System::new(&models::chain(PARALLEL_MIN_BODIES - 1)).unwrap();
    assert!(!small.new_data().parallel, "below the threshold: serial");
    let x = state(&sim);
    let mut serial = sim.data.clone();
    serial.parallel = false;
    let mut parallel = sim.data.clone();
    parallel.parallel = true;
    let s = evaluate(&sim.sys, &mut serial, &x);
    let p = evaluate(&sim.sys, &mut parallel, &x);
    let names = [
        "applied",
        "phi",
        "phi_q^T lambda",
        "velocity rows",
        "body residual",
        "jacobian",
    ];
    for ((a, b), name) in s.iter().zip(&p).zip(names) {
        assert!(!a.is_empty(), "{name}: nothing evaluated");
        assert!(a == b, "{name}: serial and parallel differ");
    }
    // The state is off the manifold and loaded: the compared values are
    // not trivially zero.
    let phi_max = s[1]
        .iter()
        .map(|b| f64::from_bits(*b).abs())
        .fold(0.0, f64::max);
    assert!(phi_max > 1e-6, "constraint residuals {phi_max}");
}

fn run(parallel: bool) -> Vec<Frame> {
    let mut sim = Simulation::new(&models::chain(BODIES)).unwrap();
    sim.data.parallel = parallel;
    let settings = IntegratorSettings {
        error: Some(1e-3),
        ..Default::default()
    };
    sim.dynamic(0.02, Some(4), None, &settings).unwrap();
    sim.frames
}

#[test]
fn parallel_integration_is_bit_identical_to_serial() {
    let (s, p) = (run(false), run(true));
    assert_eq!(s.len(), 5, "initial frame and 4 outputs");
    assert_eq!(s.len(), p.len());
    for (a, b) in s.iter().zip(&p) {
        assert_eq!(a.t.to_bits(), b.t.to_bits());
        for (x, y) in [
            (&a.q, &b.q),
            (&a.u, &b.u),
            (&a.a, &b.a),
            (&a.lambda, &b.lambda),
        ] {
            assert!(
                bits(x) == bits(y),
                "frame at t = {}: serial and parallel differ",
                a.t
            );
        }
    }
    // The chain has moved: the comparison is not of the initial state only.
    let last = s.last().unwrap();
    assert!(last.u.iter().any(|v| v.abs() > 1e-3));
}
