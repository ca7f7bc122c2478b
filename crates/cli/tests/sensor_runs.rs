//! SENSOR run-time state per simulation, and trips that do not restart the
//! integrator (issue 16 follow-ups).
//!
//! - SENVAL values and the held/switched-off flags belong to the run: two
//!   simulations from clones of one read model (which share their compiled
//!   functions) give the results of one run, interleaved or in parallel.
//! - A trip whose actions need no restart (PRINT, DT) leaves the
//!   integrator's order, step and history as they are (Adams restarts only
//!   on RESTART): the run takes the steps of the run without the sensor.

use mbsolve_model::{
    Command, ElementRef, Formulation, IntegratorKind, IntegratorSettings, Marker, Model, Placement,
    Sensor, SensorAction, SensorCompare,
};
use mbsolve_solver::analysis::{Frame, Simulation};
use mbsolve_solver::models;

const G: f64 = 9.81;

/// A 1 kg body falling from y = 1 (marker 20 at its CM, marker 10 on the
/// ground 10 m below). SENSOR/1 trips at y = 0.5 (t* = sqrt(1/g)) and sets
/// SENVAL(1) = TIME; SFORCE/1 then pushes the body up with 2 m g, so from
/// t* it decelerates at g.
const SENVAL_DECK: &str = "falling with a SENVAL force
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, -10, 0
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2, QP = 0, 1, 0
SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, EVALUATE = TIME, TERROR = 1E-9
SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = IF(SENVAL(1): 0, 0, 2*9.81)
END
";

fn gstiff(error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind: IntegratorKind::Gstiff,
        error: Some(error),
        ..Default::default()
    }
}

/// The two SIMULATEs of one run: to 0.4 (the trip at t* = 0.319 is in
/// it), then to 0.6.
fn first_half(sim: &mut Simulation) {
    sim.dynamic(0.4, Some(4), None, &gstiff(1e-9))
        .expect("the first SIMULATE integrates");
}
fn second_half(sim: &mut Simulation) {
    sim.dynamic(0.6, Some(2), None, &gstiff(1e-9))
        .expect("the second SIMULATE integrates");
}

fn frames_of(model: &Model) -> Vec<Frame> {
    let mut sim = Simulation::new(model).expect("a valid model");
    first_half(&mut sim);
    second_half(&mut sim);
    sim.frames
}

/// Frames equal to the last bit in t, q and u.
fn assert_same(what: &str, got: &[Frame], want: &[Frame]) {
    assert_eq!(got.len(), want.len(), "{what}: frame count");
    for (g, w) in got.iter().zip(want) {
        assert_eq!((g.t, &g.q, &g.u), (w.t, &w.q, &w.u), "{what}");
    }
}

/// Run A trips and continues; run B, from a clone of the same read model,
/// starts meanwhile (once, this reset the shared SENVAL to 0 and switched
/// A's force off) and runs to the end; A then finishes. Both give the
/// single run's frames, which follow the closed form y = 0.5 − g t* s +
/// g s²/2 (s = t − t*) after the trip; so do two runs on two threads. The
/// read model's own SENVAL stays 0.
#[test]
fn runs_from_clones_of_one_model_keep_their_own_sensor_state() {
    let model = mbsolve_adm::read_adm_str(SENVAL_DECK, "senval.adm").expect("the deck reads");
    let reference = frames_of(&model);
    let t_star = (1.0 / G).sqrt();
    let last = reference.last().expect("frames");
    let s = last.t - t_star;
    let y = 0.5 - G * t_star * s + G * s * s / 2.0;
    assert!((last.t - 0.6).abs() < 1e-12);
    assert!((last.q[1] - y).abs() < 1e-6, "y = {} vs {y}", last.q[1]);

    let mut a = Simulation::new(&model.clone()).expect("a valid model");
    first_half(&mut a);
    let b_frames = frames_of(&model.clone());
    second_half(&mut a);
    assert_same("interleaved run A", &a.frames, &reference);
    assert_same("interleaved run B", &b_frames, &reference);

    let parallel: Vec<Vec<Frame>> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..2)
            .map(|_| {
                let m = model.clone();
                scope.spawn(move || frames_of(&m))
            })
            .collect();
        runs.into_iter()
            .map(|r| r.join().expect("a run thread"))
            .collect()
    });
    for (k, frames) in parallel.iter().enumerate() {
        assert_same(&format!("parallel run {k}"), frames, &reference);
    }
    assert_eq!(model.sensor_values.get(1), 0.0, "the read model's SENVAL");
}

/// DEACTIVATE/SENSOR in one run does not switch the sensor off in a run
/// from a clone of the same model.
#[test]
fn deactivating_a_sensor_in_one_run_leaves_the_other_run_alone() {
    let model = mbsolve_adm::read_adm_str(SENVAL_DECK, "senval.adm").expect("the deck reads");
    let trips = |sim: &Simulation| sim.log.iter().filter(|l| l.contains("tripped")).count();
    let mut quiet = Simulation::new(&model.clone()).expect("a valid model");
    let mut runner = mbsolve_solver::commands::CommandRunner::new(&quiet);
    let deactivate = Command::Activate {
        element: ElementRef::Sensor(1),
        active: false,
        origin: "test".into(),
    };
    runner
        .execute(&mut quiet, &deactivate, &mut |_, _, _, _| {})
        .expect("DEACTIVATE/SENSOR runs");
    let mut other = Simulation::new(&model.clone()).expect("a valid model");
    for sim in [&mut quiet, &mut other] {
        sim.dynamic(0.6, Some(6), None, &gstiff(1e-9))
            .expect("integrates");
    }
    assert_eq!(trips(&quiet), 0, "{:?}", quiet.log);
    assert_eq!(trips(&other), 1, "{:?}", other.log);
}

/// The pendulum (1 m, 1 kg, released horizontal) with marker 21 at the
/// bob; `sensor` on DX(21, 10) ≤ 0 when given (x falls through 0 at
/// t ≈ 0.59 s and, one period of ≈ 2.37 s later, at ≈ 2.96 s; at ≈ 1.78 s it
/// rises through 0, where the condition turns false).
fn pendulum(sensor: Option<Sensor>) -> Model {
    let mut m = models::pendulum(1.0, G);
    m.markers.push(Marker {
        id: 21,
        part: 2,
        placement: Placement::at(0.0, 0.0, 0.0),
    });
    m.sensors.extend(sensor);
    m
}

fn print_sensor(restart: bool) -> Sensor {
    let mut s = Sensor::new(1, "DX(21, 10)", 0.0, SensorAction::Continue);
    s.compare = SensorCompare::Le;
    s.print = true;
    s.restart = restart;
    s.terror = 1e-9;
    s
}

/// Steps and frames of a 3.5 s run, GSTIFF/SI2 at ERROR 1e-6, outputs
/// every 0.1 s (plus the PRINT frames).
fn run_pendulum(model: &Model) -> (u64, Vec<Frame>, Vec<String>) {
    let settings = IntegratorSettings {
        formulation: Some(Formulation::Si2),
        ..gstiff(1e-6)
    };
    let mut sim = Simulation::new(model).expect("a valid model");
    let stats = sim
        .dynamic(3.5, Some(35), None, &settings)
        .expect("the run integrates");
    (stats.steps, sim.frames, sim.log)
}

/// A PRINT-only trip keeps the integrator: the run takes exactly the steps
/// of the run without the sensor (the watch only reads the interpolant),
/// its regular outputs equal that run's, and the PRINT frames lie on the
/// vertical (x = 0 within ERROR). With RESTART each trip starts again at
/// order 1 and costs extra steps.
#[test]
fn a_print_only_trip_keeps_the_integrator_order_and_steps() {
    let (plain_steps, plain, _) = run_pendulum(&pendulum(None));
    let (print_steps, print, log) = run_pendulum(&pendulum(Some(print_sensor(false))));
    let (restart_steps, _, restart_log) = run_pendulum(&pendulum(Some(print_sensor(true))));
    let trips: Vec<&String> = log.iter().filter(|l| l.contains("tripped")).collect();
    assert_eq!(trips.len(), 2, "{trips:?}");
    assert!(
        trips
            .iter()
            .all(|l| l.ends_with("the integration goes on from its step end")),
        "{trips:?}"
    );
    assert!(restart_log
        .iter()
        .any(|l| l.ends_with("the integration restarts at order 1 from the trip")));
    assert_eq!(
        print_steps, plain_steps,
        "steps with and without the sensor"
    );
    assert!(
        restart_steps > plain_steps,
        "RESTART: {restart_steps} steps, without the sensor {plain_steps}"
    );
    // The regular outputs are the same states.
    let regular: Vec<&Frame> = print
        .iter()
        .filter(|f| plain.iter().any(|p| p.t == f.t))
        .collect();
    assert_eq!(regular.len(), plain.len());
    for (r, p) in regular.iter().zip(&plain) {
        let dq =
            r.q.iter()
                .zip(&p.q)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
        assert!(dq <= 1e-12, "t = {}: |Δq| = {dq:e}", r.t);
    }
    // The PRINT frames: the bob at x = 0 (the sensor's ERROR 1e-3 bounds
    // the margin; the located crossing of DX ≤ 1e-3 is within TERROR).
    let printed: Vec<&Frame> = print
        .iter()
        .filter(|f| !plain.iter().any(|p| p.t == f.t))
        .collect();
    assert_eq!(printed.len(), 2);
    for f in printed {
        assert!((f.q[0] - 1e-3).abs() < 1e-6, "t = {}: x = {}", f.t, f.q[0]);
    }
}

/// Two PRINT sensors on the falling body crossing y = 0.5 and y = 0.49
/// (t = sqrt(2 (1 − y)/g): 0.319275 s and 0.322450 s), 3 ms apart and so
/// inside one step of the loose run (the fall is a quadratic, which BDF
/// integrates exactly, so the steps grow to the 0.1 s output step). The
/// first trip keeps the integrator, and the rest of its step is checked
/// again from the trip state: the second crossing is located to TERROR
/// too, not at the step's end.
#[test]
fn a_second_crossing_in_the_same_step_is_located_after_a_kept_trip() {
    let sensor = |id: u32, y: f64| {
        format!(
            "SENSOR/{id}, FUNCTION = DY(20), VALUE = {y}, ERROR = 1E-12, LE, PRINT, TERROR = 1E-9"
        )
    };
    let deck = SENVAL_DECK
        .replace(
            "SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, EVALUATE = TIME, TERROR = 1E-9\n",
            &format!("{}\n{}\n", sensor(1, 0.5), sensor(2, 0.49)),
        )
        .replace(
            "SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = IF(SENVAL(1): 0, 0, 2*9.81)\n",
            "",
        );
    let model = mbsolve_adm::read_adm_str(&deck, "two.adm").expect("the deck reads");
    let mut sim = Simulation::new(&model).expect("a valid model");
    let stats = sim
        .dynamic(0.5, Some(5), None, &gstiff(1e-3))
        .expect("the run integrates");
    let trips: Vec<&String> = sim.log.iter().filter(|l| l.contains("tripped")).collect();
    assert_eq!(trips.len(), 2, "{trips:?}");
    assert!(trips
        .iter()
        .all(|l| l.ends_with("the integration goes on from its step end")));
    // Few steps: the crossings share one (0.1 s outputs, exact quadratic).
    assert!(stats.steps <= 20, "{} steps", stats.steps);
    let printed: Vec<&Frame> = sim
        .frames
        .iter()
        .filter(|f| (f.t * 10.0 - (f.t * 10.0).round()).abs() > 1e-9)
        .collect();
    assert_eq!(printed.len(), 2);
    for (f, y) in printed.iter().zip([0.5, 0.49]) {
        // Located on the integrated solution: its height is the VALUE to
        // TERROR times the speed (≈ 3.1 m/s), whatever ERROR; the time is
        // the closed form's to the loose run's own error.
        assert!(
            (f.q[1] - y).abs() <= 4.0 * 1e-9,
            "t = {}: y = {} at the trip of y = {y}",
            f.t,
            f.q[1]
        );
        let want = (2.0 * (1.0 - y) / G).sqrt();
        assert!(
            (f.t - want).abs() < 2e-4,
            "trip at {}, closed form {want}",
            f.t
        );
    }
}
