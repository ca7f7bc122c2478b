//! Joint FRICTION (issue 17 item 4) from `.adm` text through the reader and
//! the solver, against hand calculations: the braking torque of a revolute
//! joint with a preload (radial, axial and bending loads), a block sliding
//! in a translational joint (deceleration μd·g), sticking below the
//! breakaway force and breaking away above it; the reader's rules and the
//! write_adm round trip.
//!
//! The friction load is the joint's reaction, i.e. the multipliers λ of
//! the Newton iterate; ∂(friction)/∂λ is not in the Newton matrix
//! (quasi-Newton). The runs below show the corrector converging anyway:
//! each asserts the average corrector iterations per step.

use mbsolve_adm::{read_adm_str, write_adm};
use mbsolve_model::{Formulation, IntegratorKind, IntegratorSettings, Model};
use mbsolve_solver::Simulation;

const HEAD: &str = "friction\n\
    UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
    PART/1, GROUND\n\
    MARKER/10, PART = 1\n\
    MARKER/11, PART = 1, REULER = 90D, 90D, 0D\n";

const G: f64 = 9.81;

fn model(body: &str) -> Model {
    read_adm_str(&format!("{HEAD}{body}END\n"), "friction.adm").unwrap_or_else(|e| panic!("{e}"))
}

/// Runs to `end` with `steps` outputs at ERROR `error`; returns the frames
/// as (t, q, u) of body 0 and the average corrector iterations per step.
/// Output frames as (t, q, u) of body 0.
type Frames = Vec<(f64, Vec<f64>, Vec<f64>)>;

fn run(m: &Model, end: f64, steps: u64, error: f64) -> (Frames, f64) {
    let settings = IntegratorSettings {
        error: Some(error),
        ..Default::default()
    };
    run_with(m, end, steps, &settings)
}

/// `run` with any integrator settings.
fn run_with(m: &Model, end: f64, steps: u64, settings: &IntegratorSettings) -> (Frames, f64) {
    let mut sim = Simulation::new(m).unwrap_or_else(|e| panic!("{e:?}"));
    let stats = sim
        .dynamic(end, Some(steps), None, settings)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let frames = sim
        .frames
        .iter()
        .map(|f| (f.t, f.q[..7].to_vec(), f.u[..7].to_vec()))
        .collect();
    let per_step = stats.corrector_iterations as f64 / stats.steps as f64;
    (frames, per_step)
}

/// A 2 kg disk (Izz = 0.5) spinning at 10 rad/s on a revolute joint about
/// the global z axis, CM 0.1 m along the axis from the joint, gravity
/// `gravity`, FRICTION with the given INPUTS. Slip = Rp·ω = 0.5 m/s ≫
/// 1.5·vs, so μ = μd and the torque is constant: ω(t) = ω0 − τ t / Izz.
fn revolute_deck(gravity: &str, inputs: &str) -> String {
    format!(
        "ACCGRAV/{gravity} = -9.81\n\
         PART/2, MASS = 2, CM = 20, IP = 0.3, 0.3, 0.5, WZ = 10\n\
         MARKER/20, PART = 2, QP = 0, 0, 0.1\n\
         MARKER/21, PART = 2\n\
         JOINT/1, REVOLUTE, I = 21, J = 10\n\
         FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2\n\
         , STICTION_TRANSITION_VELOCITY = 0.01, PIN_RADIUS = 0.05, FRICTION_ARM = 0.1\n\
         , BENDING_REACTION_ARM = 0.2, FRICTION_TORQUE_PRELOAD = 0.5{inputs}\n"
    )
}

/// Braking torque against the hand calculation
/// τ = μd·(Tpre + Rp·F_radial + Rn·|F_axial| + Rp·M_bending/Rb):
/// - gravity across the axis (JGRAV): F_radial = m g = 19.62 N, bending
///   M = m g·0.1 = 1.962 N·m: τ = 0.2·(0.5 + 0.981 + 0.4905) = 0.3943 N·m;
/// - gravity along the axis (KGRAV): F_axial = m g, no bending:
///   τ = 0.2·(0.5 + 0.1·19.62) = 0.4924 N·m;
/// - INPUTS = (PRELOAD) across the axis: τ = 0.2·0.5 = 0.1 N·m;
/// - INPUTS = (REACTION_FORCE:BENDING_MOMENT): τ = 0.2·1.4715 = 0.2943 N·m.
///
/// Checked on the turned angle θ(t) = ω0 t − τ t²/(2 Izz) over 2 s
/// (18.4 rad) at ERROR 1e-8. Measured: |θ error| 0.7e-6 … 3.7e-6 rad (it
/// follows ERROR: 1.6e-2 at 1e-4, 1.8e-4 at 1e-6 — integration error, not
/// a torque error), about 1.8 corrector iterations per step.
#[test]
fn revolute_braking_torque_matches_the_hand_calculation() {
    let (m, rp, rn, rb, tpre, mu_d, izz, d) = (2.0, 0.05, 0.1, 0.2, 0.5, 0.2, 0.5, 0.1);
    let cases = [
        (
            "JGRAV",
            "",
            mu_d * (tpre + rp * m * G + rp * m * G * d / rb),
        ),
        ("KGRAV", "", mu_d * (tpre + rn * m * G)),
        ("JGRAV", "\n, INPUTS = (PRELOAD)", mu_d * tpre),
        (
            "JGRAV",
            "\n, INPUTS = (REACTION_FORCE:BENDING_MOMENT)",
            mu_d * (rp * m * G + rp * m * G * d / rb),
        ),
    ];
    for (gravity, inputs, torque) in cases {
        let (frames, per_step) = run(&model(&revolute_deck(gravity, inputs)), 2.0, 20, 1e-8);
        let alpha = torque / izz;
        // θ about z from p = (cos θ/2, 0, 0, sin θ/2), unwrapped between
        // outputs (|Δθ| ≤ 1 rad per 0.1 s): I3 controls displacements, so
        // the angle, not ω, is what ERROR bounds.
        let (mut worst, mut theta, mut last) = (0.0f64, 0.0f64, 0.0f64);
        for (t, q, _) in &frames {
            let wrapped = 2.0 * q[6].atan2(q[3]);
            let mut step = wrapped - last;
            step -= (step / std::f64::consts::TAU).round() * std::f64::consts::TAU;
            theta += step;
            last = wrapped;
            worst = worst.max((theta - (10.0 * t - 0.5 * alpha * t * t)).abs());
        }
        println!("{gravity}{inputs:?}: τ = {torque:.4} N·m, |θ error| {worst:.1e} rad, {per_step:.2} iterations/step");
        assert_eq!(frames.last().unwrap().0, 2.0);
        assert!(worst < 1e-5, "{gravity} {inputs}: θ error {worst:.2e}");
        assert!(
            per_step < 4.0,
            "{gravity} {inputs}: {per_step} iterations per step"
        );
    }
}

/// A 2 kg block in a translational joint along global x, gravity −y, so
/// the joint's lateral reaction is m g; `extra` adds statements.
fn block_deck(vx: f64, extra: &str) -> String {
    format!(
        "ACCGRAV/JGRAV = -9.81\n\
         PART/2, MASS = 2, CM = 20, IP = 1, 1, 1, VX = {vx}\n\
         MARKER/20, PART = 2\n\
         MARKER/21, PART = 2, REULER = 90D, 90D, 0D\n\
         JOINT/1, TRANSLATIONAL, I = 21, J = 11\n\
         FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.25\n\
         , STICTION_TRANSITION_VELOCITY = 0.001\n{extra}"
    )
}

/// Sliding at 2 m/s: the deceleration is μd·N/m = 0.25·9.81 = 2.4525 m/s²
/// until the block stops at t = 0.8155 s; then it stays (|v| < vs).
/// Measured at ERROR 1e-6: |v − v_exact| ≤ 1e-7 m/s up to t = 0.75.
#[test]
fn sliding_block_decelerates_at_mu_dynamic_g() {
    let (frames, per_step) = run(&model(&block_deck(2.0, "")), 1.2, 120, 1e-6);
    let decel = 0.25 * G;
    let mut worst = 0.0f64;
    for (t, _, u) in frames.iter().filter(|f| f.0 <= 0.75) {
        worst = worst.max((u[0] - (2.0 - decel * t)).abs());
    }
    let (_, _, u_end) = frames.last().unwrap();
    println!(
        "sliding: |v error| {worst:.1e} m/s, final v {:.1e} m/s, {per_step:.2} iterations/step",
        u_end[0]
    );
    assert!(worst < 1e-5, "v error {worst:.2e}");
    assert!(
        u_end[0].abs() < 1e-3,
        "after stopping the block creeps at {}",
        u_end[0]
    );
    assert!(per_step < 4.0, "{per_step} iterations per step");
}

/// The same sliding block through every formulation's hand-over of the
/// multipliers: I3 and SI2 (λ in the unknowns), SI1 (HASTIFF), HHT (λ kept
/// apart by the second-order form) and the ODE form (VSTIFF; λ of the
/// previous evaluation, lagged). Each must give μd·g within 1e-5 m/s and
/// converge in a few corrector iterations per step (quasi-Newton in λ).
#[test]
fn every_formulation_hands_the_reactions_to_friction() {
    let pairs = [
        (IntegratorKind::Gstiff, Formulation::Si2),
        (IntegratorKind::Hastiff, Formulation::Si1),
        (IntegratorKind::Hht, Formulation::I3),
        (IntegratorKind::Vstiff, Formulation::Ode),
    ];
    let m = model(&block_deck(2.0, ""));
    for (kind, formulation) in pairs {
        let settings = IntegratorSettings {
            kind,
            formulation: Some(formulation),
            error: Some(1e-6),
            ..Default::default()
        };
        let (frames, per_step) = run_with(&m, 0.7, 70, &settings);
        let mut worst = 0.0f64;
        for (t, _, u) in &frames {
            worst = worst.max((u[0] - (2.0 - 0.25 * G * t)).abs());
        }
        println!(
            "{kind:?}/{formulation:?}: |v error| {worst:.1e} m/s, {per_step:.2} iterations/step"
        );
        assert!((frames.last().unwrap().0 - 0.7).abs() < 1e-12);
        assert!(
            worst < 1e-5,
            "{kind:?}/{formulation:?}: v error {worst:.2e}"
        );
        assert!(
            per_step < 5.0,
            "{kind:?}/{formulation:?}: {per_step} iterations per step"
        );
    }
}

/// Below the breakaway force μs·m g = 5.886 N (F = 0.8 of it) the block
/// sticks: velocity-based stiction lets it creep at the speed v* where
/// μ(v*)·N = F, μs·(1.5 x − 0.5 x³) = 0.8 μs with x = v*/vs, x = 0.6084,
/// v* = 6.08e-4 m/s, below vs (measured: the same to 4 digits; the
/// block has moved 0.6 mm after 1 s). Above it (F = 1.2 of it) the block breaks
/// away and accelerates at (F − μd m g)/m = 1.0791 m/s².
#[test]
fn block_sticks_below_breakaway_and_slides_above() {
    let breakaway = 0.3 * 2.0 * G;
    // x: 1.5 x − 0.5 x³ = 0.8 by Newton from 0.5.
    let mut x = 0.5f64;
    for _ in 0..30 {
        x -= (1.5 * x - 0.5 * x.powi(3) - 0.8) / (1.5 - 1.5 * x * x);
    }
    let creep = x * 0.001;
    let stick = format!(
        "SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = {}\n",
        0.8 * breakaway
    );
    let (frames, _) = run(&model(&block_deck(0.0, &stick)), 1.0, 10, 1e-6);
    let (_, q_end, u_end) = frames.last().unwrap();
    println!(
        "stick: v = {:.4e} m/s (creep {creep:.4e}), x travel {:.2e} m",
        u_end[0], q_end[0]
    );
    assert!(creep < 0.001);
    assert!(
        (u_end[0] - creep).abs() < 0.01 * creep,
        "v {} vs creep {creep}",
        u_end[0]
    );
    assert!(q_end[0].abs() < 1e-3, "the block moved {} m", q_end[0]);

    let slide = format!(
        "SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = {}\n",
        1.2 * breakaway
    );
    let (frames, _) = run(&model(&block_deck(0.0, &slide)), 1.0, 10, 1e-6);
    let v = |t: f64| frames.iter().find(|f| (f.0 - t).abs() < 1e-9).unwrap().2[0];
    let accel = (v(1.0) - v(0.5)) / 0.5;
    let exact = (1.2 * breakaway - 0.25 * 2.0 * G) / 2.0;
    println!("breakaway: a = {accel:.6} m/s² (exact {exact:.6})");
    assert!(v(0.5) > 0.0015, "the block did not break away");
    assert!((accel - exact).abs() < 1e-4, "a = {accel}, exact {exact}");
}

/// INACTIVE = STATIC (Adams: no friction in static solutions) is read and
/// holds: the block pushed by 1 N against a 100 N/m spring, well below its
/// breakaway force μs m g = 5.9 N, settles in the static equilibrium at
/// exactly F/K = 0.01 m, where Adams' stiction would have held it at 0.
#[test]
fn inactive_static_friction_leaves_the_static_equilibrium_to_the_spring() {
    let extra = "MARKER/12, PART = 1, QP = -1, 0, 0\n\
                 SPRINGDAMPER/1, TRANSLATIONAL, I = 20, J = 12, K = 100, C = 0, LENGTH = 1\n\
                 SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 21, J = 11, FUNCTION = 1\n";
    let deck = block_deck(0.0, extra).replace(
        "STICTION_TRANSITION_VELOCITY = 0.001\n",
        "STICTION_TRANSITION_VELOCITY = 0.001, INACTIVE = STATIC\n",
    );
    assert!(deck.contains("INACTIVE = STATIC"));
    let m = model(&deck);
    assert_eq!(m.frictions.len(), 1);
    let mut sim = Simulation::new(&m).unwrap_or_else(|e| panic!("{e:?}"));
    sim.static_equilibrium(&Default::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    let x = sim.state.q[0];
    println!("INACTIVE = STATIC: static x = {x:.12} m (F/K = 0.01)");
    assert!((x - 0.01).abs() < 1e-9, "x = {x}");
}

/// A FORCE request between the joint's markers reports the friction acting
/// in the joint with its reaction, as Adams' joint results do: the block
/// sliding at 2 m/s has −μd·m·g = −4.905 N along the joint axis (ground
/// x), where the constraint reaction has nothing, and +m·g across it.
#[test]
fn joint_force_request_includes_the_friction() {
    let deck = block_deck(2.0, "REQUEST/1, FORCE, I = 21, J = 11\n");
    let m = model(&deck);
    let mut sim = Simulation::new(&m).unwrap_or_else(|e| panic!("{e:?}"));
    let settings = IntegratorSettings {
        error: Some(1e-6),
        ..Default::default()
    };
    sim.dynamic(0.5, Some(10), None, &settings)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let (friction, weight) = (0.25 * 2.0 * G, 2.0 * G);
    let mut worst = 0.0f64;
    for f in &sim.frames {
        let r = mbsolve_solver::requests::evaluate(&sim.sys, &sim.model, f, &m.requests[0]);
        worst = worst
            .max((r[0] + friction).abs())
            .max((r[1] - weight).abs())
            .max(r[2].abs());
    }
    println!("FORCE request: worst deviation from (−μd m g, m g, 0): {worst:.2e} N");
    assert!(worst < 1e-6, "{worst} N");
}

/// `check` counts FRICTION (and CONTACT) elements.
#[test]
fn check_counts_friction_elements() {
    let dir = std::env::temp_dir().join(format!("mbsolve-friction-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let adm = dir.join("block.adm");
    std::fs::write(&adm, format!("{HEAD}{}END\n", block_deck(0.0, ""))).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mbsolve"))
        .args(["check", adm.to_str().unwrap()])
        .output()
        .expect("mbsolve runs");
    let _ = std::fs::remove_dir_all(&dir);
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(s.lines().any(|l| l == "frictions: 1, contacts: 0"), "{s}");
}

/// The reader's rules, each an exact message: arguments that do not apply
/// to the joint's type, inputs the joint has not, arguments refused with a
/// reason, a joint type without friction.
#[test]
fn reader_refuses_what_it_does_not_honour_by_name() {
    let rev = "PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
               MARKER/20, PART = 2\n\
               JOINT/1, REVOLUTE, I = 20, J = 10\n\
               JOINT/2, FIXED, I = 20, J = 11\n";
    let err = |extra: &str| {
        read_adm_str(&format!("{HEAD}{rev}{extra}END\n"), "f.adm")
            .err()
            .unwrap_or_else(|| panic!("accepted {extra}"))
            .to_string()
    };
    let cases = [
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, BALL_RADIUS = 0.1\n",
            "f.adm:10:59: FRICTION/1: BALL_RADIUS does not apply to JOINT/1, a REVOLUTE joint (it applies to SPHERICAL)",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, INPUTS = (PRELOAD:TORSIONAL_MOMENT)\n",
            "f.adm:10:59: FRICTION/1: INPUTS: a REVOLUTE joint has no TORSIONAL_MOMENT input",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, MAX_STICTION_DEFORMATION = -0.01\n",
            "f.adm:10:59: FRICTION/1: MAX_STICTION_DEFORMATION must not be negative, found -0.01",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, EFFECT = SLIDING, MAX_STICTION_DEFORMATION = 0.01\n",
            "f.adm:10:77: FRICTION/1: MAX_STICTION_DEFORMATION with EFFECT = SLIDING is not supported: EFFECT = SLIDING has no stiction regime for the deformation to act in",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0, MAX_STICTION_DEFORMATION = 0.01\n",
            "f.adm:10:57: FRICTION/1: MAX_STICTION_DEFORMATION needs MU_STATIC > 0 and MU_DYNAMIC > 0 (the deformation relaxes at a rate ∝ MU_STATIC/MU_DYNAMIC), found 0.3 and 0",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, INACTIVE = DYNAMIC\n",
            "f.adm:10:70: FRICTION/1: bad INACTIVE 'DYNAMIC' (STATIC or NONE)",
        ),
        // INACTIVE_DURING (Adams/View's name of INACTIVE) is read as INACTIVE
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, INACTIVE_DURING = DYNAMIC\n",
            "f.adm:10:77: FRICTION/1: bad INACTIVE 'DYNAMIC' (STATIC or NONE)",
        ),
        (
            "FRICTION/1, JOINT = 2, MU_STATIC = 0.3, MU_DYNAMIC = 0.2\n",
            "f.adm:10:1: FRICTION/1: JOINT/2 is FIXED: Adams defines FRICTION on REVOLUTE, TRANSLATIONAL, CYLINDRICAL, SPHERICAL, UNIVERSAL and HOOKE joints only",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3\n",
            "f.adm:10:1: FRICTION/1: missing MU_DYNAMIC =",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, PIN_RADIUS = 0\n",
            "f.adm:10:59: FRICTION/1: PIN_RADIUS must be positive, found 0",
        ),
        (
            "FRICTION/1, JOINT = 1, MU_STATIC = 0.3, MU_DYNAMIC = 0.2, EFFECT = STICKY\n",
            "f.adm:10:68: FRICTION/1: EFFECT = STICKY: expected ALL, STICTION or SLIDING",
        ),
        (
            "FRICTION/1, JOINT = 9, MU_STATIC = 0.3, MU_DYNAMIC = 0.2\n",
            "f.adm:10:21: FRICTION/1: JOINT 9 does not exist",
        ),
    ];
    for (extra, expected) in cases {
        assert_eq!(err(extra), expected);
    }
}

/// write_adm writes every FRICTION argument that applies to the joint and
/// reading the text back gives the same element.
#[test]
fn write_adm_round_trips_friction() {
    let decks = [
        revolute_deck("JGRAV", "\n, EFFECT = SLIDING, INPUTS = (PRELOAD:BENDING_MOMENT)"),
        block_deck(
            1.0,
            "FRICTION/2, JOINT = 2, MU_STATIC = 0.5, MU_DYNAMIC = 0.4, BALL_RADIUS = 0.02, INPUTS = NONE\n\
             MARKER/30, PART = 2\n\
             PART/3, MASS = 1, CM = 31, IP = 1, 1, 1\n\
             MARKER/31, PART = 3\n\
             JOINT/2, SPHERICAL, I = 31, J = 30\n",
        ),
    ];
    for deck in decks {
        let m = model(&deck);
        let text = write_adm(&m).unwrap();
        let back = read_adm_str(&text, "back.adm").unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert!(!m.frictions.is_empty());
        assert_eq!(back.frictions, m.frictions, "{text}");
    }
    // MotionSolve XML has no friction element we read: refused by name.
    let m = model(&revolute_deck("JGRAV", ""));
    assert_eq!(
        mbsolve_msxml::write_xml(&m).unwrap_err(),
        "FRICTION/1: joint friction is not written to MotionSolve XML yet (its Force_JointFriction element is not read by mbsolve either)"
    );
}

/// The corpus deck with joint friction (bipendololeo, a double pendulum in
/// mm) in its old JOINT form is refused by name (tests/corpus_decks.rs);
/// rewritten as FRICTION statements (MU_STAT_ROT → MU_STATIC, MU_DYN_ROT →
/// MU_DYNAMIC, DELTA_V → STICTION_TRANSITION_VELOCITY, INNER_RADIUS →
/// PIN_RADIUS; MAXIMUM_DEFORMATION left out, see the reader) and without
/// the hand-inserted GFORCE block (which Adams rejects too), it builds and
/// runs, and both frictions dissipate: each group's output opposes its
/// slip at every output.
#[test]
fn corpus_double_pendulum_runs_with_friction_statements() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    let root = mbsolve_adm::corpus::locate(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"));
    let raw = std::fs::read(root.join("mbdyn-a2m-double-pendulum/bipendololeo.adm")).unwrap();
    let text = String::from_utf8_lossy(&raw).replace('\r', "");
    let mut out = String::new();
    for line in text.lines() {
        let old = line.contains("DELTA_V")
            || line.starts_with(", MU_DYN_ROT")
            || line.starts_with(", PRELOAD_AXIAL");
        if line.starts_with("GFORCE/")
            || line.starts_with("VTORQUE/")
            || line.starts_with("VFORCE/")
        {
            continue;
        }
        if old {
            if let Some(head) = line
                .split(", DELTA_V")
                .next()
                .filter(|_| line.contains("DELTA_V"))
            {
                out.push_str(head);
                out.push('\n');
            }
            continue;
        }
        if line == "END" {
            for id in [1, 2] {
                out.push_str(&format!(
                    "FRICTION/{id}, JOINT = {id}, MU_STATIC = 0.4, MU_DYNAMIC = 0.3, STICTION_TRANSITION_VELOCITY = 0.01, PIN_RADIUS = 1\n"
                ));
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    let m =
        read_adm_str(&out, "bipendololeo_friction.adm").unwrap_or_else(|e| panic!("{e}\n{out}"));
    assert_eq!(m.frictions.len(), 2);
    let mut sim = Simulation::new(&m).unwrap_or_else(|e| panic!("{e:?}"));
    sim.dynamic(0.2, Some(20), None, &IntegratorSettings::default())
        .unwrap_or_else(|e| panic!("{e:?}"));
    assert!((sim.frames.last().unwrap().t - 0.2).abs() < 1e-12);
    let sys = mbsolve_mech::System::new(&m).unwrap();
    let mut dissipated = 0;
    for f in &sim.frames {
        for fr in &sys.frictions {
            let at = mbsolve_mech::friction::FrictionAt {
                q: &f.q,
                u: &f.u,
                lam: &f.lambda,
                t: f.t,
                w: &f.w,
            };
            for s in fr.state(&sys, &at) {
                let power: f64 = (0..s.n).map(|k| s.output[k] * s.slip[k]).sum();
                assert!(power <= 0.0, "friction power {power} > 0 at t = {}", f.t);
                dissipated += usize::from(power < 0.0);
            }
        }
    }
    assert!(dissipated > 0, "no friction acted");
}

/// FRICTION(id, index[, rm]) on the spinning disc of
/// `revolute_braking_torque_matches_the_hand_calculation` (gravity across
/// the axis): index 6 is the friction torque on the disc about the J
/// marker's z axis, −τ = −μd·(Tpre + Rp·m g + Rp·m g·d/Rb) = −0.3943 N·m
/// (sliding throughout); a revolute joint's friction has no force (1–3)
/// and no torque about the other axes (4, 5); with rm = 11 (turned by
/// 3-1-3 angles 90°, 90°, 0) the torque is resolved in 11's axes. An index
/// past the forces and torques is refused by name.
#[test]
fn friction_function_is_the_braking_torque() {
    use mbsolve_solver::requests::Outputs;
    let (m, rp, rb, tpre, mu_d, d) = (2.0, 0.05, 0.2, 0.5, 0.2, 0.1);
    let torque = mu_d * (tpre + rp * m * G + rp * m * G * d / rb);
    let requests = "REQUEST/1, F1 = FRICTION(1, 1)\\F2 = FRICTION(1, 2)\\F3 = FRICTION(1, 3)\
        \\F4 = FRICTION(1, 4)\\F5 = FRICTION(1, 5)\\F6 = FRICTION(1, 6)\n\
        REQUEST/2, F1 = FRICTION(1, 4, 11)\\F2 = FRICTION(1, 5, 11)\\F3 = FRICTION(1, 6, 11)\n\
        REQUEST/3, F1 = FRICTION(1, 7)\n";
    let model = model(&format!("{}{requests}", revolute_deck("JGRAV", "")));
    let mut sim = Simulation::new(&model).unwrap();
    let settings = IntegratorSettings {
        error: Some(1e-8),
        ..Default::default()
    };
    sim.dynamic(1.0, Some(10), None, &settings).unwrap();
    let q0 = sim.sys.initial_state().0;
    let rm = mbsolve_model::euler313(90f64.to_radians(), 90f64.to_radians(), 0.0);
    let in_rm = rm.transpose() * nalgebra::Vector3::new(0.0, 0.0, -torque);
    let want = [0.0, 0.0, 0.0, 0.0, 0.0, -torque, in_rm.x, in_rm.y, in_rm.z];
    let mut without_index_7 = sim.model.clone();
    without_index_7.function_requests.retain(|r| r.id != 3);
    let outputs = Outputs::new(&without_index_7).unwrap();
    assert_eq!(sim.frames.len(), 11);
    for f in &sim.frames {
        let row = outputs.row(&sim.sys, &sim.model, f, &q0).unwrap();
        for (k, w) in want.iter().enumerate() {
            let got = row[k + 1];
            assert!(
                (got - w).abs() < 1e-9,
                "t = {}: column {k}: {got}, want {w}",
                f.t
            );
        }
    }
    let err = Outputs::new(&sim.model)
        .unwrap()
        .row(&sim.sys, &sim.model, &sim.frames[0], &q0)
        .unwrap_err();
    assert!(
        err.contains("FRICTION: index 7 is not supported (1–3 friction force along, 4–6 friction torque about the joint's J marker x y z axes; the coefficients, velocities and creep, indices 7–22, are not available)"),
        "{err}"
    );
}
