//! SENSOR/id with HALT and RETURN on a falling body (Adams Solver SENSOR
//! statement). mbsolve checks a sensor at the output times, so the trip
//! is the first output time at which the condition holds: it lies within
//! one output step after the analytic crossing.

mod common;

use mbsolve_solver::analysis::{Frame, Simulation};

const G: f64 = 9.81;

/// A 1 kg free body whose marker 20 starts at y = 1 and falls under
/// gravity: y(t) = 1 − g t²/2. `sensor` is the SENSOR statement.
fn falling(sensor: &str) -> String {
    format!(
        "falling
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2, QP = 0, 1, 0
{sensor}
END
"
    )
}

/// Run `acf` on `adm`; the simulation (frames kept) and the result.
fn run(adm: &str, acf: &str) -> (Simulation, Result<(), String>) {
    common::run_in_process(adm, acf)
}

/// Height of marker 20 (the CM) in a frame: q = (x, y, z, …).
fn height(f: &Frame) -> f64 {
    f.q[1]
}

/// LE, HALT: the analysis stops at the first output time with
/// y ≤ VALUE + ERROR, which lies in [t*, t* + Δt_out) for the analytic
/// crossing t* = sqrt(2 (1 − ERROR) / g); the second SIMULATE is not run.
#[test]
fn halt_stops_the_analysis_at_the_first_output_time_past_the_crossing() {
    let error = 1e-3;
    let adm = falling("SENSOR/1, FUNCTION = DY(20), VALUE = 0, ERROR = 1E-3, LE, HALT");
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 1, STEPS = 1000\nSIMULATE/DYNAMIC, END = 2, STEPS = 10\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    let t_star = (2.0 * (1.0 - error) / G).sqrt();
    let last = sim.frames.last().unwrap();
    let dt_out = 1e-3;
    assert!(
        last.t >= t_star - 1e-9 && last.t < t_star + dt_out + 1e-9,
        "last output at t = {}, analytic crossing {t_star}",
        last.t
    );
    // The trip frame satisfies the condition; the one before does not.
    assert!(height(last) <= error, "y = {}", height(last));
    let before = &sim.frames[sim.frames.len() - 2];
    assert!(height(before) > error, "y = {}", height(before));
    // Analytic height at the trip time (GSTIFF ERROR = 1e-8).
    assert!((height(last) - (1.0 - G * last.t * last.t / 2.0)).abs() < 1e-5);
    assert!(sim.halted);
    let log = sim.log.join("\n");
    assert!(log.contains("SENSOR/1 tripped"), "{log}");
    assert!(
        log.contains("SIMULATE/DYNAMIC not run: a SENSOR halted the analysis"),
        "{log}"
    );
}

/// EQ on the falling speed −VY, RETURN: the first SIMULATE ends at the
/// trip, the second one runs from there to its END. The band
/// |−VY − 2| ≤ 0.01 is wider than the speed gained per output step
/// (g · 1e-3), so an output falls in it; past it the speed never returns.
#[test]
fn return_ends_the_current_simulate_and_the_next_one_runs() {
    // Falling speed g t reaches 2 m/s at t* = 2/g.
    let adm = falling("SENSOR/2, FUNCTION = -VY(20), VALUE = 2, ERROR = 0.01, RETURN");
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 500\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    assert!(!sim.halted);
    let t_star = 2.0 / G;
    // The trip frame: the first in the band, within one output step
    // (0.5/500) of the band's lower edge.
    let trip = sim
        .frames
        .iter()
        .find(|f| (-f.u[1] - 2.0).abs() <= 0.01)
        .expect("a frame at the trip");
    let t_edge = t_star - 0.01 / G;
    assert!(
        trip.t >= t_edge - 1e-9 && trip.t < t_edge + 1e-3 + 1e-9,
        "trip at {}",
        trip.t
    );
    // No output of the first SIMULATE after the trip: the next frame
    // belongs to the second SIMULATE, whose 100 steps split [t_trip, 1].
    let k = sim.frames.iter().position(|f| f.t == trip.t).unwrap();
    let next = &sim.frames[k + 1];
    assert!(
        (next.t - (trip.t + (1.0 - trip.t) / 100.0)).abs() < 1e-9,
        "next output at {}",
        next.t
    );
    // The second SIMULATE reached its END on the analytic path.
    let last = sim.frames.last().unwrap();
    assert!((last.t - 1.0).abs() < 1e-12, "last output at {}", last.t);
    assert!((height(last) - (1.0 - G * last.t * last.t / 2.0)).abs() < 1e-5);
}

/// Actions and options mbsolve does not honour are refused by name.
#[test]
fn unsupported_sensor_arguments_are_refused_by_name() {
    for key in [
        "STEPSIZE = 1E-3",
        "RESTART",
        "PRINT",
        "CODGEN",
        "YYDUMP",
        "BISECTION",
        "EVALUATE = TIME",
        "DT = 0.1",
    ] {
        let adm = falling(&format!(
            "SENSOR/1, FUNCTION = DY(20), VALUE = 0, LE, HALT, {key}"
        ));
        let name = key.split(' ').next().unwrap();
        let e = mbsolve_adm::read_adm_str(&adm, "t.adm")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!(
                "SENSOR/1: {name} is not supported (mbsolve checks a SENSOR at the output times and honours only HALT and RETURN)"
            )),
            "{e}"
        );
    }
    let e = mbsolve_adm::read_adm_str(
        &falling("SENSOR/1, FUNCTION = DY(20), VALUE = 0, LE"),
        "t.adm",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("SENSOR/1: give an action (HALT or RETURN; mbsolve supports no other)"),
        "{e}"
    );
}

/// write_adm writes the SENSOR back and the written deck reads to the
/// same sensor.
#[test]
fn write_adm_round_trips_a_sensor() {
    let adm = falling("SENSOR/3, FUNCTION = DY(20) - 0.25, VALUE = 0.5, ERROR = 2E-3, GE, RETURN");
    let m = mbsolve_adm::read_adm_str(&adm, "t.adm").unwrap();
    let text = mbsolve_adm::write_adm(&m).unwrap();
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap();
    assert_eq!(back.sensors, m.sensors);
    assert_eq!(m.sensors[0].compare, mbsolve_model::SensorCompare::Ge);
    assert_eq!(m.sensors[0].error, 2e-3);
}
