//! ACTIVATE/DEACTIVATE between simulations (Adams `.acf` commands and
//! MotionSolve `<Activate>`/`<Deactivate>`): a deactivated joint drops its
//! rows and the body falls freely, a deactivated SFORCE stops acting, a
//! reactivated element acts again from consistent initial conditions.

mod common;
use common::at;

use mbsolve_model::{Command, ElementRef};
use mbsolve_solver::analysis::Simulation;
use mbsolve_solver::commands::CommandRunner;

const PENDULUM: &str = "pendulum
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1E-3, 1E-3, 1E-3
MARKER/20, PART = 2, QP = 1, 0, 0
MARKER/21, PART = 2, QP = 0, 0, 0
JOINT/1, REVOLUTE, I = 21, J = 10
END
";

/// A 1 kg slider on a translational joint along z at z = 1, pushed by
/// SFORCE/1 of 2 N; no gravity (shared with the study tests).
const SLIDER: &str = include_str!("../../study/tests/data/slider.adm");

/// Run `acf` on `adm`; the simulation (frames kept) and the result.
fn run(adm: &str, acf: &str) -> (Simulation, Result<(), String>) {
    common::run_in_process(adm, acf)
}

/// The joint is deactivated at t = 0.5: from there the bob's CM follows
/// r(t) = r_s + v_s (t − t_s) + ½ g (t − t_s)² (no force but gravity), the
/// DOF count goes from 1 to 6 and the joint's multipliers are zero.
#[test]
fn pendulum_falls_freely_after_its_joint_is_deactivated() {
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 50\nDEACTIVATE/JOINT, ID = 1\nSIMULATE/DYNAMIC, END = 1.0, STEPS = 50\n";
    let (sim, r) = run(PENDULUM, acf);
    r.unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 6);
    let s = at(&sim.frames, 0.5).clone();
    // Before the switch the bob is on its circle and moving.
    let radius = (s.q[0].powi(2) + s.q[1].powi(2)).sqrt();
    assert!((radius - 1.0).abs() < 1e-8, "radius {radius}");
    assert!(s.u[1] < -1.0, "falling along its arc: {}", s.u[1]);
    let joint_rows: Vec<usize> = (0..sim.sys.neq())
        .filter(|k| sim.sys.equations[*k].element == ElementRef::Joint(1))
        .collect();
    assert_eq!(joint_rows.len(), 5);
    let mut worst = 0.0f64;
    let mut n = 0;
    for f in sim.frames.iter().filter(|f| f.t > 0.5 + 1e-9) {
        let dt = f.t - 0.5;
        let want = [
            s.q[0] + s.u[0] * dt,
            s.q[1] + s.u[1] * dt - 0.5 * 9.81 * dt * dt,
            s.q[2] + s.u[2] * dt,
        ];
        for (q, w) in f.q.iter().zip(want) {
            worst = worst.max((q - w).abs());
        }
        for &k in &joint_rows {
            assert_eq!(f.lambda[k], 0.0, "t = {}: joint multiplier", f.t);
        }
        n += 1;
    }
    assert_eq!(n, 50);
    assert!(worst < 1e-6, "free-fall deviation {worst:e}");
    // The last frame is well away from the circle: the joint is gone.
    let last = sim.frames.last().unwrap();
    let radius = (last.q[0].powi(2) + last.q[1].powi(2)).sqrt();
    assert!(radius > 1.2, "radius {radius}");
}

/// Reactivated after a free fall, the joint pulls the bob back onto its
/// circle at the next SIMULATE (initial conditions re-run: positions
/// nearest the fallen ones), and the DOF count is 1 again.
#[test]
fn reactivated_joint_holds_again() {
    let acf = "t.adm\nt\nSIMULATE/DYNAMIC, END = 0.2, STEPS = 20\nDEACTIVATE/JOINT, ID = 1\nSIMULATE/DYNAMIC, END = 0.4, STEPS = 20\nACTIVATE/JOINT, ID = 1\nSIMULATE/DYNAMIC, END = 0.6, STEPS = 20\n";
    let (sim, r) = run(PENDULUM, acf);
    r.unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 1);
    let fallen = at(&sim.frames, 0.4);
    let r_fallen = (fallen.q[0].powi(2) + fallen.q[1].powi(2)).sqrt();
    assert!(r_fallen > 1.05, "fell off its circle: {r_fallen}");
    for f in sim.frames.iter().filter(|f| f.t > 0.4 + 1e-9) {
        let radius = (f.q[0].powi(2) + f.q[1].powi(2) + f.q[2].powi(2)).sqrt();
        assert!((radius - 1.0).abs() < 1e-6, "t = {}: radius {radius}", f.t);
    }
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("initial conditions re-run at t = 0.4")));
}

/// Two revolute joints on the same axis: the second's five equations are
/// redundant. With the first deactivated the redundancy check makes the
/// second's equations active, so the pendulum keeps swinging on its circle
/// (1 DOF) instead of falling.
#[test]
fn redundant_twin_joint_takes_over() {
    let adm = PENDULUM.replace("END\n", "JOINT/2, REVOLUTE, I = 21, J = 10\nEND\n");
    let acf = "t.adm\nt\nSIMULATE/DYNAMIC, END = 0.2, STEPS = 20\nDEACTIVATE/JOINT, ID = 1\nSIMULATE/DYNAMIC, END = 0.6, STEPS = 20\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 1);
    let second: Vec<usize> = (0..sim.sys.neq())
        .filter(|k| sim.sys.equations[*k].element == ElementRef::Joint(2))
        .collect();
    assert!(second.iter().all(|k| sim.data.active[*k]));
    for f in &sim.frames {
        let radius = (f.q[0].powi(2) + f.q[1].powi(2)).sqrt();
        assert!((radius - 1.0).abs() < 1e-6, "t = {}: radius {radius}", f.t);
    }
    assert!(at(&sim.frames, 0.6).q[1] < -0.5);
}

/// Run the slider 3 s in three SIMULATEs of 1 s with `between` (two
/// commands) after the first and second: z = 1 + t² up to t = 1 (2 N),
/// constant velocity to t = 2 (the force off or 0), then
/// z = 4 + 2 (t − 2) + (accel / 2)(t − 2)²; checked against that closed
/// form on every frame.
fn slider_three_phases(between: [&str; 2], accel: f64) -> Simulation {
    let acf = format!(
        "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\n{}\nSIMULATE/DYNAMIC, END = 2, STEPS = 10\n{}\nSIMULATE/DYNAMIC, END = 3, STEPS = 10\n",
        between[0], between[1]
    );
    let (sim, r) = run(SLIDER, &acf);
    r.unwrap();
    let z = |t: f64| {
        if t <= 1.0 {
            1.0 + t * t
        } else if t <= 2.0 {
            2.0 + 2.0 * (t - 1.0)
        } else {
            4.0 + 2.0 * (t - 2.0) + 0.5 * accel * (t - 2.0).powi(2)
        }
    };
    assert!(sim.frames.len() >= 31);
    let worst = sim
        .frames
        .iter()
        .map(|f| (f.q[2] - z(f.t)).abs())
        .fold(0.0, f64::max);
    assert!(worst < 1e-6, "deviation from the closed form {worst:e}");
    assert!((sim.frames.last().unwrap().t - 3.0).abs() < 1e-12);
    sim
}

/// SFORCE/1 deactivated at t = 1 stops acting; reactivated at t = 2 it
/// pushes with its 2 N again.
#[test]
fn sforce_stops_and_resumes_acting() {
    slider_three_phases(
        ["DEACTIVATE/SFORCE, ID = 1", "ACTIVATE/SFORCE, ID = 1"],
        2.0,
    );
}

/// SFORCE/1 redefined in the command file after the first SIMULATE: 0
/// from t = 1, −2 N from t = 2.
#[test]
fn sforce_redefined_between_simulations() {
    let sim = slider_three_phases(["SFORCE/1, FUNCTION = 0", "SFORCE/1, FUNCTION = -2"], -2.0);
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("SFORCE/1 modified by the command at t.acf:7")));
}

/// Unknown ids and kinds fail at the command, naming it.
#[test]
fn bad_activation_commands_name_the_element() {
    let (_, r) = run(
        PENDULUM,
        "t.adm\nt\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 2\nDEACTIVATE/JOINT, ID = 9\n",
    );
    assert_eq!(
        r.unwrap_err(),
        "t.acf:4: DEACTIVATE: JOINT/9 is not in the model"
    );
    let model = mbsolve_adm::read_adm_str(PENDULUM, "t.adm").unwrap();
    let mut sim = Simulation::new(&model).unwrap();
    let mut runner = CommandRunner::new(&sim);
    let cmd = Command::Activate {
        element: ElementRef::Part(2),
        active: false,
        origin: "x.acf:7".into(),
    };
    let e = runner
        .execute(&mut sim, &cmd, &mut |_, _, _, _| {})
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.acf:7: DEACTIVATE of PART/2 is not supported (only JOINT, MOTION, JPRIM, GCON, SFORCE, SPRINGDAMPER, VFORCE, VTORQUE, GFORCE, BUSHING, FIELD, BEAM and CONTACT can be switched)"
    );
}

/// Three parts held to ground by FIXED joints 101, 104 and 110, at rest;
/// gravity −9.81 along y.
const THREE_HELD: &str = "three held parts
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
MARKER/11, PART = 1, QP = 1, 0, 0
MARKER/12, PART = 1, QP = 2, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1E-3, 1E-3, 1E-3
MARKER/20, PART = 2, QP = 0, 0, 0
PART/3, MASS = 2, CM = 30, IP = 1E-3, 1E-3, 1E-3
MARKER/30, PART = 3, QP = 1, 0, 0
PART/4, MASS = 1, CM = 40, IP = 1E-3, 1E-3, 1E-3
MARKER/40, PART = 4, QP = 2, 0, 0
JOINT/101, FIXED, I = 20, J = 10
JOINT/104, FIXED, I = 30, J = 11
JOINT/110, FIXED, I = 40, J = 12
END
";

/// `DEACTIVATE/JOINT, RANGE = 100, 105` (Adams RANGE: every joint with an
/// id in the range; 100, 102, 103 and 105 name none and are skipped)
/// releases the parts of joints 101 and 104 at t = 0.5: they fall from
/// rest, y = −½ g (t − 0.5)², x and z unchanged; the part of joint 110
/// stays put. The reference spelling SIMULATE/DYNAMICS runs.
#[test]
fn deactivate_joint_range_releases_the_joints_in_the_range() {
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-10\nSIMULATE/DYNAMICS, END = 0.5, STEPS = 5\nDEACTIVATE/JOINT, RANGE = 100, 105\nSIMULATE/DYNAMICS, END = 1.0, STEPS = 50\n";
    let (sim, r) = run(THREE_HELD, acf);
    r.unwrap();
    let stride = sim.sys.nq() / 3;
    assert_eq!(sim.sys.nb(), 3);
    assert_eq!(sim.sys.dof(&sim.data), 12);
    let switched: Vec<&String> = sim
        .log
        .iter()
        .filter(|l| l.starts_with("DEACTIVATE command: "))
        .collect();
    assert_eq!(switched.len(), 2, "{switched:?}");
    assert!(switched[0].contains("JOINT/101"), "{}", switched[0]);
    assert!(switched[1].contains("JOINT/104"), "{}", switched[1]);
    let start = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]];
    let mut worst = 0.0f64;
    let mut n = 0;
    for f in sim.frames.iter().filter(|f| f.t > 0.5 + 1e-9) {
        let dt = f.t - 0.5;
        for (b, p) in start.iter().enumerate() {
            let fall = if b < 2 { -0.5 * 9.81 * dt * dt } else { 0.0 };
            let want = [p[0], p[1] + fall, p[2]];
            for (c, w) in want.iter().enumerate() {
                worst = worst.max((f.q[stride * b + c] - w).abs());
            }
        }
        n += 1;
    }
    assert_eq!(n, 50);
    println!("RANGE free fall: largest deviation from ½gt² {worst:e} m");
    assert!(worst < 1e-9, "free-fall deviation {worst:e}");
}

/// A RANGE holding no element of its type fails when it runs, naming the
/// command and the range.
#[test]
fn an_empty_range_is_an_error_naming_it() {
    let (_, r) = run(
        THREE_HELD,
        "t.adm\nt\nSIMULATE/DYNAMICS, END = 0.1, STEPS = 2\nDEACTIVATE/JOINT, RANGE = 200, 300\n",
    );
    assert_eq!(
        r.unwrap_err(),
        "t.acf:4: DEACTIVATE/JOINT, RANGE = 200, 300: the model has no JOINT with an id in that range"
    );
}

/// A pendulum whose joint marker is 0.01 off the joint: the initial
/// conditions move the bob onto it.
const PENDULUM_OFF: &str = "pendulum off its joint
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1E-3, 1E-3, 1E-3
MARKER/20, PART = 2, QP = 1, 0.01, 0
MARKER/21, PART = 2, QP = 0, 0.01, 0
JOINT/1, REVOLUTE, I = 21, J = 10
END
";

/// SIMULATE/INITIAL_CONDITIONS writes the initial-conditions frame, as
/// Adams does: the assembled state (joint origin on ground's to 1e-10, not
/// the input 0.01 off), the same frame bit for bit as the one a dynamic
/// run writes at its start; a dynamic run after it does not write t = 0
/// again.
#[test]
fn initial_conditions_command_writes_the_assembled_frame() {
    let (mut ic, r) = run(PENDULUM_OFF, "t.adm\nt\nSIMULATE/INITIAL_CONDITIONS\n");
    r.unwrap();
    assert_eq!(ic.frames.len(), 1);
    let f = ic.frames[0].clone();
    assert_eq!(f.t, 0.0);
    assert_eq!(f.q, ic.state.q);
    assert_eq!(f.lambda, ic.state.lambda);
    // Every joint equation holds at the frame; the input did not.
    let mut phi = vec![0.0; ic.sys.neq()];
    ic.sys.constraints(&mut ic.data, &f.q, 0.0, &mut phi);
    let worst = phi.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(worst < 1e-10, "IC frame violates the joint by {worst:e}");
    let input = ic.sys.initial_state().0;
    ic.sys.constraints(&mut ic.data, &input, 0.0, &mut phi);
    let before = phi.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    assert!(before > 5e-3, "the input is off the joint by {before:e}");
    let (dy, r) = run(
        PENDULUM_OFF,
        "t.adm\nt\nSIMULATE/DYNAMICS, END = 0.1, STEPS = 2\n",
    );
    r.unwrap();
    assert_eq!(dy.frames[0].t, 0.0);
    assert_eq!(dy.frames[0].q, f.q);
    assert_eq!(dy.frames[0].u, f.u);
    assert_eq!(dy.frames[0].a, f.a);
    assert_eq!(dy.frames[0].lambda, f.lambda);
    let (both, r) = run(
        PENDULUM_OFF,
        "t.adm\nt\nsim/init\nSIMULATE/DYNAMICS, END = 0.1, STEPS = 2\n",
    );
    r.unwrap();
    let times: Vec<f64> = both.frames.iter().map(|f| f.t).collect();
    assert_eq!(times, [0.0, 0.05, 0.1]);
}

/// A slider on a translational joint along ground z, driven by MOTION/1.
const DRIVEN: &str = "driven slider
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2
JOINT/1, TRANSLATIONAL, I = 20, J = 10
MOTION/1, JOINT = 1, TRANSLATION, FUNCTION = TIME
END
";

/// The MOTION command before the first SIMULATE respecifies the input
/// type and initial conditions (Adams MOTION command): VELOCITY, FUNCTION
/// = 2, ICDISP = 0.5 gives z = 0.5 + 2t; ACCELERATION, FUNCTION = 2,
/// ICDISP = 0.1, ICVEL = 0.3 gives z = 0.1 + 0.3t + t², to 1e-9.
#[test]
fn motion_command_respecifies_type_and_initial_conditions() {
    type Exact = fn(f64) -> (f64, f64);
    let cases: [(&str, Exact); 2] = [
        ("MOTION/1, VELOCITY, FUNCTION = 2, ICDISP = 0.5", |t| {
            (0.5 + 2.0 * t, 2.0)
        }),
        (
            "MOTION/1, ACC, ICDISP = 0.1, ICVEL = 0.3, FUNCTION = 2",
            |t| (0.1 + 0.3 * t + t * t, 0.3 + 2.0 * t),
        ),
    ];
    for (command, exact) in cases {
        let acf = format!("t.adm\nt\n{command}\nSIMULATE/KINEMATICS, END = 1, STEPS = 10\n");
        let (sim, r) = run(DRIVEN, &acf);
        r.unwrap_or_else(|e| panic!("{command}: {e}"));
        assert_eq!(sim.frames.len(), 11);
        for f in &sim.frames {
            let (z, vz) = exact(f.t);
            assert!(
                (f.q[2] - z).abs() < 1e-9,
                "{command}: t = {}: z {} vs {z}",
                f.t,
                f.q[2]
            );
            assert!(
                (f.u[2] - vz).abs() < 1e-9,
                "{command}: t = {}: vz {} vs {vz}",
                f.t,
                f.u[2]
            );
        }
    }
}

/// A MOTION command after a SIMULATE switches the function from the next
/// analysis on: z = t up to 0.5, then z = 0.5 + 2 (t − 0.5), velocity 1
/// then 2.
#[test]
fn motion_redefined_between_simulations_follows_the_new_function() {
    let acf = "t.adm\nt\nSIMULATE/KINEMATICS, END = 0.5, STEPS = 5\nMOTION/1, FUNCTION = 0.5 + 2*(TIME - 0.5)\nSIMULATE/KINEMATICS, END = 1, STEPS = 5\n";
    let (sim, r) = run(DRIVEN, acf);
    r.unwrap();
    assert_eq!(sim.frames.len(), 11);
    for f in &sim.frames {
        let (z, vz) = if f.t <= 0.5 + 1e-12 {
            (f.t, 1.0)
        } else {
            (0.5 + 2.0 * (f.t - 0.5), 2.0)
        };
        assert!(
            (f.q[2] - z).abs() < 1e-9,
            "t = {}: z {} vs {z}",
            f.t,
            f.q[2]
        );
        // At t = 0.5 the first analysis's frame (velocity 1) is kept.
        assert!(
            (f.u[2] - vz).abs() < 1e-9,
            "t = {}: vz {} vs {vz}",
            f.t,
            f.u[2]
        );
    }
    assert!(sim
        .log
        .iter()
        .any(|l| l.starts_with("MOTION/1 modified by the command at t.acf:4")));
}

/// The UNITS command: one restating the dataset's units is logged; one
/// stating others is refused when the run reaches it, naming both.
#[test]
fn units_command_restates_or_is_refused() {
    let (sim, r) = run(
        PENDULUM,
        "t.adm\nt\nUNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\nSIMULATE/DYNAMICS, END = 0.1, STEPS = 2\n",
    );
    r.unwrap();
    assert!(sim.log.iter().any(|l| l
        == "UNITS command at t.acf:3: restates the dataset's units (FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND); no change"));
    let (_, r) = run(
        PENDULUM,
        "t.adm\nt\nSIMULATE/DYNAMICS, END = 0.1, STEPS = 2\nUNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND\n",
    );
    assert_eq!(
        r.unwrap_err(),
        "t.acf:4: UNITS command: FORCE = NEWTON, MASS = KILOGRAM, LENGTH = MILLIMETER, TIME = SECOND differ from the dataset's units FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND; the Adams Solver command reference has no UNITS command, units are the dataset's UNITS statement, and mbsolve does not change units between analyses (put the units in the dataset)"
    );
}
