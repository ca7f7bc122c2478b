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
