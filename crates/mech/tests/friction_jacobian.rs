#![allow(clippy::needless_range_loop)]
//! Joint friction (FRICTION): its Jacobian against central differences of
//! its residual on every joint type Adams gives friction, in the sliding
//! regime (slip ≫ 1.5 × STICTION_TRANSITION_VELOCITY) and inside the
//! smooth stiction cubic; and the law's coefficient against Adams' regime
//! values; with MAX_STICTION_DEFORMATION, the deformation-state rows and
//! the force's state columns as well. The multipliers (reactions) are held fixed: ∂/∂λ is left out of
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

/// MAX_STICTION_DEFORMATION of the models.
const DMAX: f64 = 1e-3;

/// Slip components (deformation states) of each joint type in `JOINTS`.
fn components(joint: &str) -> usize {
    match joint {
        "REVOLUTE" | "TRANSLATIONAL" => 1,
        "SPHERICAL" => 3,
        _ => 2,
    }
}

/// The state rows and the friction's body rows at (q, u, w, w'): one
/// residual vector of n + nw entries (body rows first).
fn residual(sys: &System, lam: &[f64], q: &[f64], u: &[f64], w: &[f64], wp: &[f64]) -> Vec<f64> {
    let (n, nw) = (sys.nq(), sys.nw());
    let mut data = sys.new_data();
    data.states.set(w, wp);
    data.set_multipliers(lam);
    let mut r = vec![0.0; n + nw];
    let at = FrictionAt {
        q,
        u,
        lam,
        t: 0.0,
        w,
    };
    sys.frictions[0].add_residual(sys, &at, &mut r[..n]);
    sys.state_residual(&data, q, u, 0.0, &mut r[n..]);
    r
}

/// Largest |analytic − central difference| of ∂R/∂q, ∂R/∂u and
/// ∂R/∂w + cw ∂R/∂w', each relative to the largest entry of its block.
fn jacobian_errors(
    sys: &System,
    lam: &[f64],
    q: &[f64],
    u: &[f64],
    w: &[f64],
    wp: &[f64],
) -> [f64; 3] {
    let (n, nw) = (sys.nq(), sys.nw());
    let cw = 7.0;
    let mut data = sys.new_data();
    data.states.set(w, wp);
    data.set_multipliers(lam);
    // Columns: q at 0, u at n, w at 2n.
    let mut jac = Dense(DMatrix::zeros(n + nw, 2 * n + nw));
    let at = FrictionAt {
        q,
        u,
        lam,
        t: 0.0,
        w,
    };
    let place = |col_q, col_u| mbsolve_mech::friction::Place {
        row0: 0,
        col_q,
        col_u,
        cu: 1.0,
    };
    sys.frictions[0].add_jacobian(sys, &at, &mut jac, place(Some(0), n));
    sys.state_jacobian(&data, q, u, 0.0, &mut jac, n, Some(0), n, 1.0, 2 * n, cw);
    sys.force_state_jacobian(&data, q, u, 0.0, &mut jac, 0, 2 * n, cw);
    let mut errs = [0.0f64; 3];
    let mut big = [0.0f64; 3];
    for c in 0..2 * n + nw {
        let h = if c < n { 1e-7 } else { 1e-8 };
        let shifted = |sign: f64| {
            let (mut qh, mut uh, mut wh, mut wph) =
                (q.to_vec(), u.to_vec(), w.to_vec(), wp.to_vec());
            if c < n {
                qh[c] += sign * h;
            } else if c < 2 * n {
                uh[c - n] += sign * h;
            } else {
                // ∂/∂w + cw ∂/∂w' along the same direction.
                wh[c - 2 * n] += sign * h;
                wph[c - 2 * n] += sign * h * cw;
            }
            residual(sys, lam, &qh, &uh, &wh, &wph)
        };
        let (rp, rm) = (shifted(1.0), shifted(-1.0));
        let block = if c < n {
            0
        } else if c < 2 * n {
            1
        } else {
            2
        };
        for r in 0..n + nw {
            let fd = (rp[r] - rm[r]) / (2.0 * h);
            big[block] = big[block].max(fd.abs());
            errs[block] = errs[block].max((jac.0[(r, c)] - fd).abs());
        }
    }
    [0, 1, 2].map(|b| errs[b] / big[b].max(1e-300))
}

/// FRICTION with MAX_STICTION_DEFORMATION (`mbsolve_mech::friction::stiction`):
/// the deformation-state rows G = ż − f(q, u, z) and the friction force's
/// dependence on z and u against central differences. Every joint type, deformations inside the bound, velocities scaled so
/// the fastest slip group is in the sticking regime (σ < vs), the STEP
/// between vs and 1.5·vs, and sliding (σ ≫ 1.5·vs). Analytic ∂/∂u and ∂/∂w must match
/// central differences to 1e-6 of the largest entry, ∂/∂q (forward
/// differences inside the element) to 1e-4.
#[test]
fn stiction_state_and_force_jacobians_match_central_differences() {
    for (joint, args) in JOINTS {
        let comps = components(joint);
        let sys = model(
            joint,
            &format!(
                "STICTION_TRANSITION_VELOCITY = 0.01, MAX_STICTION_DEFORMATION = {DMAX}, {args}"
            ),
        );
        assert_eq!(sys.nw(), comps, "{joint}: one state per slip component");
        let (q, _) = sys.initial_state();
        let lam = pseudo(sys.neq(), 0.71, 20.0);
        let w = pseudo(comps, 1.3, 0.5 * DMAX / (comps as f64).sqrt());
        let wp = pseudo(comps, 0.4, 0.01);
        let vs = 0.01;
        let speeds_at = |u: &[f64]| -> Vec<f64> {
            let at = FrictionAt {
                q: &q,
                u,
                lam: &lam,
                t: 0.0,
                w: &w,
            };
            sys.frictions[0]
                .state(&sys, &at)
                .iter()
                .map(|s| s.slip[..s.n].iter().map(|v| v * v).sum::<f64>().sqrt())
                .collect()
        };
        let unit = pseudo(sys.nq(), 0.37, 1.0);
        let fastest = speeds_at(&unit).into_iter().fold(0.0, f64::max);
        // The fastest group's slip speed at 0.5·vs, 1.25·vs and 50·vs.
        for (regime, target) in [("sticking", 0.5), ("transition", 1.25), ("sliding", 50.0)] {
            let u: Vec<f64> = unit.iter().map(|v| v * target * vs / fastest).collect();
            let speeds = speeds_at(&u);
            let [eq, eu, ew] = jacobian_errors(&sys, &lam, &q, &u, &w, &wp);
            println!("{joint} {regime} (slip speeds {speeds:?}): |∂/∂q err| {eq:.1e}, |∂/∂u err| {eu:.1e}, |∂/∂w err| {ew:.1e}");
            match regime {
                "sticking" => assert!(speeds.iter().all(|&s| s < vs), "{joint}: {speeds:?}"),
                "sliding" => assert!(speeds.iter().any(|&s| s > 1.5 * vs), "{joint}: {speeds:?}"),
                _ => assert!(
                    speeds.iter().any(|&s| s > vs && s < 1.5 * vs),
                    "{joint}: no group in the transition: {speeds:?}"
                ),
            }
            assert!(eu < 1e-6, "{joint} {regime}: ∂/∂u error {eu:.2e}");
            assert!(ew < 1e-6, "{joint} {regime}: ∂/∂w error {ew:.2e}");
            assert!(eq < 1e-4, "{joint} {regime}: ∂/∂q error {eq:.2e}");
        }
    }
}
