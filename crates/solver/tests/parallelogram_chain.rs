//! Robustness (issue: integrator core, item 5): a row of 40 parallelogram
//! four-bars released flat — the singular configuration of every loop at
//! once — swings through its flat configurations again and again (at θ = 0
//! and θ = −π, the turning points). Every loop moves with the first, so the
//! reduced 1-DOF pendulum (`models::parallelogram_chain_rhs`, integrated
//! here by RK4 at 1e-5 s) is the reference.

mod common;
use common::accuracy::ReducedPendulum;
use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings};
use mbsolve_solver::{models, Simulation};

/// θ(t) of the reduced pendulum at the times `ts`.
fn reference_theta(loops: usize, r: f64, ts: &[f64]) -> Vec<f64> {
    let mut p = ReducedPendulum::new(|th: f64| models::parallelogram_chain_rhs(loops, r, 9.81, th));
    ts.iter().map(|&t| p.theta_at(t, 1e-5)).collect()
}

/// Tip error of the last crank against the reduced pendulum (m), the
/// largest crank-angle spread (sin of the angle between any crank and the
/// first: 0 on the parallelogram branch), and the number of passes
/// through the far flat configuration (θ = −π).
fn measure(sim: &Simulation, loops: usize, r: f64, l: f64) -> (f64, f64, usize) {
    let ts: Vec<f64> = sim.frames.iter().map(|f| f.t).collect();
    let theta = reference_theta(loops, r, &ts);
    let crank_angle = |q: &[f64], body: usize| {
        let o = 7 * body;
        2.0 * q[o + 6].atan2(q[o + 3])
    };
    let (mut tip_error, mut branch_error) = (0.0f64, 0.0f64);
    let mut far_flat = 0;
    let mut was_far = false;
    for (f, th) in sim.frames.iter().zip(&theta) {
        let last = loops; // cranks are bodies 0..=loops
        let o = 7 * last;
        let a = crank_angle(&f.q, last);
        let tip = [f.q[o] + 0.5 * r * a.cos(), f.q[o + 1] + 0.5 * r * a.sin()];
        let exact = [loops as f64 * l + r * th.cos(), r * th.sin()];
        tip_error =
            tip_error.max(((tip[0] - exact[0]).powi(2) + (tip[1] - exact[1]).powi(2)).sqrt());
        let a0 = crank_angle(&f.q, 0);
        for body in 1..=loops {
            let d = (crank_angle(&f.q, body) - a0).sin().abs();
            branch_error = branch_error.max(d);
        }
        let far = a0.cos() < 0.0 && a0.sin().abs() < (3.1f64).sin();
        if far && !was_far {
            far_flat += 1;
        }
        was_far = far;
    }
    (tip_error, branch_error, far_flat)
}

fn count(sim: &Simulation, text: &str) -> usize {
    sim.log.iter().filter(|l| l.contains(text)).count()
}

/// What one WSTIFF/SI2 run of the chain measured (see `measure`), and its
/// counts of singular-row deactivations and of reactivations.
struct ChainRun {
    frames: usize,
    tip_error: f64,
    branch_error: f64,
    far_flat: usize,
    singular: usize,
    reactivations: usize,
}

impl ChainRun {
    /// The requirement of issue 12: the tip within 1e-6 m of the reduced
    /// pendulum, and every crank on the first one's angle to 1e-6 (the
    /// parallelogram branch).
    fn assert_within_1e_6_on_the_branch(&self) {
        assert!(self.tip_error < 1e-6, "tip error {}", self.tip_error);
        assert!(
            self.branch_error < 1e-6,
            "cranks apart by {}",
            self.branch_error
        );
    }
}

/// `loops` loops (r = 1, l = 2) with WSTIFF/SI2 at `error` to `end`,
/// outputs every 0.01 s.
fn wstiff_si2_run(loops: usize, error: f64, end: f64) -> ChainRun {
    let (r, l) = (1.0, 2.0);
    let mut sim = Simulation::new(&models::parallelogram_chain(loops, r, l)).unwrap();
    let settings = IntegratorSettings {
        kind: IntegratorKind::Wstiff,
        formulation: Some(Formulation::Si2),
        error: Some(error),
        ..Default::default()
    };
    sim.dynamic(end, None, Some(0.01), &settings).unwrap();
    let (tip_error, branch_error, far_flat) = measure(&sim, loops, r, l);
    let run = ChainRun {
        frames: sim.frames.len(),
        tip_error,
        branch_error,
        far_flat,
        singular: count(&sim, "dependent only"),
        reactivations: count(&sim, "reactivating constraint equation"),
    };
    println!(
        "{loops} loops to {end} s, WSTIFF/SI2 {error:e}: tip error {tip_error:.2e} m, crank-angle spread {branch_error:.2e}, {far_flat} far flat passes, {} singular-row deactivations, {} reactivations, {} structural Z deactivations",
        run.singular,
        run.reactivations,
        count(&sim, "deactivating constraint equation Z")
    );
    assert_eq!(count(&sim, "deactivating constraint equation Z"), 3 * loops);
    run
}

/// GSTIFF/I3 at the default ERROR, 10 s: every singular pass completes (the
/// redundant set is re-checked and the integration restarts where the rank
/// changes), the last crank's tip follows the reduced pendulum within 1e-3 m
/// (measured 5.7e-5 m), every crank keeps the first one's angle (the
/// parallelogram branch, not the crossed one), and the chain reaches the far
/// flat configuration (θ < −3.1) at least three times.
#[test]
fn forty_loops_through_flat_configurations_with_gstiff() {
    let (loops, r, l) = (40, 1.0, 2.0);
    let mut sim = Simulation::new(&models::parallelogram_chain(loops, r, l)).unwrap();
    sim.dynamic(10.0, None, Some(0.01), &IntegratorSettings::default())
        .unwrap();
    let (tip_error, branch_error, far_flat) = measure(&sim, loops, r, l);
    let restarts = count(&sim, "integration restarted");
    println!(
        "40 loops, GSTIFF/I3: {} frames, tip error {tip_error:.2e} m, crank-angle spread {branch_error:.2e}, {far_flat} far flat passes, {restarts} rank-change restarts",
        sim.frames.len()
    );
    assert_eq!(sim.frames.len(), 1001);
    assert!(tip_error < 1e-3, "tip error {tip_error}");
    assert!(branch_error < 1e-4, "cranks apart by {branch_error}");
    assert!(far_flat >= 3, "{far_flat} passes through θ = −π");
}

/// One loop with WSTIFF/SI2 at ERROR = 1e-9 for 10 s. The closure row that
/// is dependent only at the flat configurations (not structurally, like
/// the three out-of-plane rows) is told apart by a probe off the singular
/// point, deactivated only while the configuration is (near) singular and
/// reactivated as soon as it is independent again — not when its residual
/// drifts, which is quadratic in the crossed-branch deviation and let the
/// motion stray 1.9e-6 m before; meanwhile its branch row holds the
/// parallelogram branch (crank spread 3.8e-11). The tip must follow the
/// reduced pendulum to 1e-6 m (measured 6.7e-7 m) through at least three
/// far flat passes.
#[test]
fn one_loop_through_flat_configurations_with_wstiff_si2_at_1e_9() {
    let run = wstiff_si2_run(1, 1e-9, 10.0);
    assert_eq!(run.frames, 1001);
    assert!(run.tip_error < 1e-6, "tip error {}", run.tip_error);
    assert!(run.far_flat >= 3, "{} passes through θ = −π", run.far_flat);
    // Only the in-plane closure row is singular-only; the out-of-plane
    // rows stay deactivated as structurally redundant (`wstiff_si2_run`).
    assert!(
        run.singular >= run.far_flat,
        "{} singular-row deactivations",
        run.singular
    );
}

/// 40 loops with WSTIFF/SI2 at ERROR = 1e-9 for 10 s (issue 12, item 5).
/// Near each flat configuration the 40 closure rows are nearly dependent
/// together; each is replaced by its branch row (`redundancy::BranchRow`:
/// the linear continuation of the branch the motion is on) from a failure
/// re-check at 5e-3 independence (or from t = 0) until it is 1e-2
/// independent again. Without the branch rows the free crossed modes
/// drifted 2.3e-5 m by t = 8e-3; releasing the true rows at 2e-4 or 2e-3
/// failed the corrector at every step size (docs/parallelogram-experiments.md). The tip must
/// follow the reduced pendulum to 1e-6 m (measured 3.9e-7 m; crank spread
/// 1.7e-7, 5 far flat passes, 9 singular phases) with every crank on the
/// first one's angle, through at least three far flat passes, each phase
/// entered and left with all 40 rows at once.
/// (68 s in release on a loaded 2-core machine: 16651 steps, 17541 LUs.)
#[test]
fn forty_loops_through_flat_configurations_with_wstiff_si2_at_1e_9() {
    let run = wstiff_si2_run(40, 1e-9, 10.0);
    assert_eq!(run.frames, 1001);
    run.assert_within_1e_6_on_the_branch();
    assert!(run.far_flat >= 3, "{} passes through θ = −π", run.far_flat);
    // Every singular phase (t = 0, then one per flat pass) switches all
    // 40 closure rows, off and on again.
    assert!(
        run.singular >= 40 * (run.far_flat + 1),
        "{} singular-row deactivations",
        run.singular
    );
    assert_eq!(run.singular % 40, 0, "{} deactivations", run.singular);
    assert_eq!(run.reactivations, run.singular);
}

/// The 10 s run above up to t = 1.3 s: the start from rest at the flat
/// configuration (branch rows from t = 0, released at t = 0.056) and the
/// first far flat pass (θ = −π at t ≈ 1.115: entered by the failure
/// re-check at t = 1.0906, released at t = 1.17). Tip within 1e-6 m of the
/// reduced pendulum (measured 4.1e-8 m to t = 1.5) and cranks together.
#[test]
fn forty_loops_through_the_first_far_flat_pass_with_wstiff_si2_at_1e_9() {
    let run = wstiff_si2_run(40, 1e-9, 1.3);
    assert_eq!(run.frames, 131);
    run.assert_within_1e_6_on_the_branch();
    assert_eq!(run.far_flat, 1);
    // Two singular phases of all 40 closure rows, both left again.
    assert_eq!(run.singular, 80);
    assert_eq!(run.reactivations, 80);
}

/// Experiment driver, not a test (docs/parallelogram-experiments.md):
/// LOOPS, ERROR, TEND, KIND from the environment; prints the log tail, the
/// statistics and the errors, asserts nothing (time it from the shell).
#[test]
#[ignore]
fn probe_chain() {
    let env = |k: &str, d: f64| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (loops, r, l) = (env("LOOPS", 40.0) as usize, 1.0, 2.0);
    let mut sim = Simulation::new(&models::parallelogram_chain(loops, r, l)).unwrap();
    let settings = if std::env::var("KIND").as_deref() == Ok("gstiff") {
        IntegratorSettings::default()
    } else {
        IntegratorSettings {
            kind: IntegratorKind::Wstiff,
            formulation: Some(Formulation::Si2),
            error: Some(env("ERROR", 1e-9)),
            pattern: std::env::var("PATTERN_T").ok().map(|_| vec![true]),
            ..Default::default()
        }
    };
    let res = sim.dynamic(env("TEND", 10.0), None, Some(env("DT", 0.01)), &settings);
    let lines: Vec<_> = sim
        .log
        .iter()
        .filter(|l| !l.contains("activating"))
        .collect();
    for line in &lines[lines.len().saturating_sub(40)..] {
        println!("LOG {line}");
    }
    for line in sim.log.iter().filter(|l| l.contains("statistics")) {
        println!("STATS {line}");
    }
    let (tip_error, branch_error, far_flat) = measure(&sim, loops, r, l);
    println!(
        "RESULT loops {loops}: {:?} frames {} t_end {:.4e} tip {tip_error:.3e} spread {branch_error:.2e} far {far_flat} singular {} react {}",
        res.as_ref().err(),
        sim.frames.len(),
        sim.frames.last().map(|f| f.t).unwrap_or(0.0),
        count(&sim, "dependent only"),
        count(&sim, "reactivating constraint equation"),
    );
}
