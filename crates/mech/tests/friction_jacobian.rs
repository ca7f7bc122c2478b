#![allow(clippy::needless_range_loop)]
//! Joint friction (FRICTION): its Jacobian against central differences of
//! its residual on every joint type Adams gives friction, in the sliding
//! regime (slip ≫ 1.5 × STICTION_TRANSITION_VELOCITY) and inside the
//! smooth stiction cubic; and the law's coefficient against Adams' regime
//! values. The multipliers (reactions) are held fixed: ∂/∂λ is left out of
//! the Newton matrix by design (see `mbsolve_mech::friction`).

use mbsolve_adm::read_adm_str;
use mbsolve_mech::friction::{coefficient, FrictionAt, Place};
use mbsolve_mech::{Sink, System};
use mbsolve_model::FrictionEffect;
use nalgebra::DMatrix;

struct Dense(DMatrix<f64>);
impl Sink for Dense {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0[(r, c)] += v;
    }
}

/// Two moving parts in a general pose joined by `joint` (markers not
/// assembled: friction needs no consistent configuration), with FRICTION
/// arguments `args`.
fn model(joint: &str, args: &str) -> System {
    let text = format!(
        "fd\n\
         PART/1, GROUND\n\
         PART/2, MASS = 2, CM = 20, IP = 1, 2, 2.5, QG = 0.3, -0.2, 0.1, REULER = 20D, 35D, -10D\n\
         MARKER/20, PART = 2\n\
         MARKER/21, PART = 2, QP = 0.1, 0.2, -0.3, REULER = 10D, 50D, 30D\n\
         PART/3, MASS = 3, CM = 30, IP = 2, 2, 3, QG = 0.5, 0.4, -0.3, REULER = -30D, 15D, 60D\n\
         MARKER/30, PART = 3\n\
         MARKER/31, PART = 3, QP = -0.2, 0.1, 0.25, REULER = 40D, 70D, -20D\n\
         JOINT/1, {joint}, I = 21, J = 31\n\
         FRICTION/1, JOINT = 1, MU_STATIC = 0.4, MU_DYNAMIC = 0.3, {args}\n\
         END\n"
    );
    let m = read_adm_str(&text, "fd.adm").unwrap_or_else(|e| panic!("{e}"));
    System::new(&m).unwrap_or_else(|e| panic!("{e}"))
}

/// A deterministic "random" vector.
fn pseudo(n: usize, seed: f64, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|k| scale * ((k as f64 + 1.0) * seed).sin())
        .collect()
}

/// Largest |analytic − FD| relative to the largest entry, for ∂R/∂q and
/// ∂R/∂u of the friction residual at (q, u, λ).
fn jacobian_error(sys: &System, q: &[f64], u: &[f64], lam: &[f64]) -> (f64, f64, f64) {
    let n = sys.nq();
    let fr = &sys.frictions[0];
    let at = FrictionAt {
        q,
        u,
        lam,
        t: 0.0,
        w: &[],
    };
    let residual = |q: &[f64], u: &[f64]| {
        let mut r = vec![0.0; n];
        fr.add_residual(
            sys,
            &FrictionAt {
                q,
                u,
                lam,
                t: 0.0,
                w: &[],
            },
            &mut r,
        );
        r
    };
    let place = |col_q, cu| Place {
        row0: 0,
        col_q,
        col_u: 0,
        cu,
    };
    let mut jq = Dense(DMatrix::zeros(n, n));
    fr.add_jacobian(sys, &at, &mut jq, place(Some(0), 0.0));
    let mut ju = Dense(DMatrix::zeros(n, n));
    fr.add_jacobian(sys, &at, &mut ju, place(None, 1.0));
    let h = 1e-6;
    let (mut eq, mut eu, mut big) = (0.0f64, 0.0f64, 0.0f64);
    for c in 0..n {
        let (mut qp, mut qm) = (q.to_vec(), q.to_vec());
        qp[c] += h;
        qm[c] -= h;
        let (rp, rm) = (residual(&qp, u), residual(&qm, u));
        let (mut up, mut um) = (u.to_vec(), u.to_vec());
        up[c] += h;
        um[c] -= h;
        let (sp, sm) = (residual(q, &up), residual(q, &um));
        for r in 0..n {
            let fq = (rp[r] - rm[r]) / (2.0 * h);
            let fu = (sp[r] - sm[r]) / (2.0 * h);
            big = big.max(fq.abs()).max(fu.abs());
            eq = eq.max((jq.0[(r, c)] - fq).abs());
            eu = eu.max((ju.0[(r, c)] - fu).abs());
        }
    }
    (eq / big, eu / big, big)
}

const JOINTS: [(&str, &str); 6] = [
    (
        "REVOLUTE",
        "PIN_RADIUS = 0.05, FRICTION_ARM = 0.08, BENDING_REACTION_ARM = 0.3, FRICTION_TORQUE_PRELOAD = 0.7",
    ),
    (
        "TRANSLATIONAL",
        "REACTION_ARM = 0.2, INITIAL_OVERLAP = 0.4, FRICTION_FORCE_PRELOAD = 1.5",
    ),
    (
        "CYLINDRICAL",
        "PIN_RADIUS = 0.06, INITIAL_OVERLAP = 0.3, FRICTION_FORCE_PRELOAD = 1, FRICTION_TORQUE_PRELOAD = 0.2",
    ),
    ("SPHERICAL", "BALL_RADIUS = 0.04, FRICTION_TORQUE_PRELOAD = 0.3"),
    (
        "UNIVERSAL",
        "PIN_RADIUS = 0.03, FRICTION_ARM = 0.05, BENDING_REACTION_ARM = 0.2",
    ),
    (
        "HOOKE",
        "PIN_RADIUS = 0.03, FRICTION_ARM = 0.05, BENDING_REACTION_ARM = 0.2",
    ),
];

/// Checks every joint type at STICTION_TRANSITION_VELOCITY `vs` with
/// pseudo-random velocities and multipliers (seeds `su`, `sl`): each slip
/// group's speed must satisfy `regime` and the Jacobian must match central
/// differences (∂/∂u to 1e-6, ∂/∂q to 1e-5 of the largest entry).
fn check_jacobians(vs: f64, su: f64, sl: f64, regime: &dyn Fn(&str, f64, f64)) {
    for (joint, args) in JOINTS {
        let sys = model(
            joint,
            &format!("STICTION_TRANSITION_VELOCITY = {vs}, {args}"),
        );
        let (q, _) = sys.initial_state();
        let u = pseudo(sys.nq(), su, 1.0);
        let lam = pseudo(sys.neq(), sl, 20.0);
        let at = FrictionAt {
            q: &q,
            u: &u,
            lam: &lam,
            t: 0.0,
            w: &[],
        };
        for s in sys.frictions[0].state(&sys, &at) {
            let speed = s.slip[..s.n].iter().map(|v| v * v).sum::<f64>().sqrt();
            regime(joint, speed, s.mu);
        }
        let (eq, eu, big) = jacobian_error(&sys, &q, &u, &lam);
        println!("{joint} (vs = {vs}): |∂R/∂q err| {eq:.1e}, |∂R/∂u err| {eu:.1e} (largest entry {big:.2})");
        assert!(big > 1e-3, "{joint}: the friction Jacobian is empty");
        assert!(eu < 1e-6, "{joint}: ∂R/∂u error {eu:.2e}");
        assert!(eq < 1e-5, "{joint}: ∂R/∂q error {eq:.2e}");
    }
}

/// Sliding regime: velocities of order 1 with STICTION_TRANSITION_VELOCITY
/// = 1e-3, so every slip is far above 1.5·vs. Measured: ∂/∂u agrees to
/// ~1e-10 (analytic), ∂/∂q to ~2e-7 (forward differences inside the
/// element against central ones here).
#[test]
fn friction_jacobian_matches_central_differences_when_sliding() {
    check_jacobians(1e-3, 0.77, 1.31, &|joint, speed, mu| {
        assert!(speed > 1.5e-3, "{joint}: slip {speed} is not sliding");
        assert_eq!(mu, 0.3, "{joint}: sliding uses MU_DYNAMIC");
    });
}

/// Inside the stiction cubic (slip below vs): the law is smooth there too,
/// so the same check holds (vs = 10, velocities of order 1).
#[test]
fn friction_jacobian_matches_central_differences_in_the_stiction_cubic() {
    check_jacobians(10.0, 0.53, 0.91, &|joint, speed, mu| {
        assert!(speed < 10.0, "{joint}: slip {speed} is not below vs");
        assert!(mu < 0.4, "{joint}: μ {mu} reached MU_STATIC below vs");
    });
}

/// The coefficient follows Adams' friction regime determination: 0 at
/// zero slip, μs at vs, the STEP to μd at 1.5 vs, μd beyond; continuous
/// with a continuous slope at vs (both branches give 0 there).
#[test]
fn coefficient_follows_the_regimes() {
    let (ms, md, vs) = (0.5, 0.3, 0.1);
    let mu = |s: f64| coefficient(FrictionEffect::All, ms, md, vs, s);
    assert_eq!(mu(0.0).0, 0.0);
    assert!((mu(vs).0 - ms).abs() < 1e-15);
    assert!((mu(vs * (1.0 - 1e-12)).0 - ms).abs() < 1e-11);
    assert!(
        mu(vs * (1.0 - 1e-9)).1.abs() < 1e-6,
        "slope at vs from below"
    );
    assert_eq!(mu(vs).1, 0.0);
    // STEP midpoint: the mean of μs and μd.
    assert!((mu(1.25 * vs).0 - 0.4).abs() < 1e-15);
    assert_eq!(mu(1.5 * vs).0, md);
    assert_eq!(mu(10.0).0, md);
    // EFFECT = SLIDING: μd at vs and beyond; STICTION: nothing beyond 1.5 vs.
    assert_eq!(coefficient(FrictionEffect::Sliding, ms, md, vs, vs).0, md);
    assert_eq!(
        coefficient(FrictionEffect::Stiction, ms, md, vs, 2.0 * vs).0,
        0.0
    );
    assert!((coefficient(FrictionEffect::Stiction, ms, md, vs, vs).0 - ms).abs() < 1e-15);
}
