//! SENSOR/id on a falling body (Adams Solver SENSOR statement): checked
//! after every accepted step, the crossing located on the integrator's
//! interpolant to TERROR, and the actions done at the located time.

mod common;

use mbsolve_solver::analysis::{Frame, Simulation};

const G: f64 = 9.81;

/// A 1 kg free body whose marker 20 starts at y = 1 and falls under
/// gravity: y(t) = 1 − g t²/2. Marker 10 is on the ground 10 m below.
/// `extra` holds the SENSOR statement (and any other).
fn falling(extra: &str) -> String {
    format!(
        "falling
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
ACCGRAV/JGRAV = -9.81
PART/1, GROUND
MARKER/10, PART = 1, QP = 0, -10, 0
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2, QP = 0, 1, 0
{extra}
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

/// The message-log lines of the trips.
fn trips(sim: &Simulation) -> Vec<String> {
    sim.log
        .iter()
        .filter(|l| l.contains("tripped"))
        .cloned()
        .collect()
}

const TERROR: f64 = 1e-7;

/// LE, HALT, with coarse outputs (every 0.1 s): the trip is located inside
/// an output interval, at the analytic crossing t* = sqrt(2 (1 − 0.5)/g)
/// to TERROR, by the secant search and by BISECTION. The trip state is
/// the last output frame; the second SIMULATE is not run.
#[test]
fn halt_stops_at_the_located_crossing_within_terror() {
    let t_star = (2.0 * 0.5 / G).sqrt();
    for search in ["", ", BISECTION"] {
        let adm = falling(&format!(
            "SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, HALT, TERROR = 1E-7{search}"
        ));
        let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSIMULATE/DYNAMIC, END = 2, STEPS = 10\n";
        let (sim, r) = run(&adm, acf);
        r.unwrap();
        let last = sim.frames.last().unwrap();
        // The located time is the bracket's right end: t* ≤ t ≤ t* + TERROR
        // (plus the interpolant's error, far smaller at ERROR = 1e-8).
        assert!(
            last.t >= t_star - 1e-9 && last.t <= t_star + TERROR + 1e-9,
            "{search}: trip at t = {}, analytic {t_star}",
            last.t
        );
        assert!(
            (height(last) - 0.5).abs() <= G * t_star * TERROR + 1e-8,
            "{search}: y = {}",
            height(last)
        );
        // The outputs before the trip are the regular ones.
        let before: Vec<f64> = sim.frames.iter().map(|f| f.t).collect();
        assert_eq!(before.len(), 5, "{search}: {before:?}");
        assert!((before[3] - 0.3).abs() < 1e-12);
        assert!(sim.halted);
        let log = sim.log.join("\n");
        assert_eq!(trips(&sim).len(), 1, "{log}");
        assert!(
            log.contains("SIMULATE/DYNAMIC not run: a SENSOR halted the analysis"),
            "{log}"
        );
    }
}

/// The same located trip on every integrator family and formulation:
/// GSTIFF/SI2 with INTERPOLATE = ON (steps pass the outputs and the trip
/// is located on the interpolant), WSTIFF/I3, HHT and the ODE form
/// (VSTIFF, ABAM: the partition's dense output).
#[test]
fn the_trip_is_located_on_every_integrator() {
    let t_star = (2.0 * 0.5 / G).sqrt();
    let adm = falling(
        "SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, RETURN, TERROR = 1E-7",
    );
    for integrator in [
        "GSTIFF, SI2, ERROR = 1E-8, INTERPOLATE = ON",
        "WSTIFF, ERROR = 1E-8",
        "HHT, ERROR = 1E-8",
        "VSTIFF, ERROR = 1E-8",
        "ABAM, ERROR = 1E-8",
    ] {
        let acf =
            format!("t.adm\nt\nINTEGRATOR/{integrator}\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\n");
        let (sim, r) = run(&adm, &acf);
        r.unwrap_or_else(|e| panic!("{integrator}: {e}"));
        let last = sim.frames.last().unwrap();
        // The bracket's right end: t* ≤ t ≤ t* + TERROR (the motion is
        // quadratic, which every interpolant here reproduces closely).
        assert!(
            last.t >= t_star - 1e-9 && last.t <= t_star + TERROR + 1e-9,
            "{integrator}: trip at t = {}, analytic {t_star}",
            last.t
        );
        assert_eq!(sim.frames.len(), 5, "{integrator}");
        assert_eq!(trips(&sim).len(), 1, "{integrator}");
    }
}

/// GE on the falling speed −VY, RETURN: the first SIMULATE ends at the
/// trip, t* = 2/g, and the second one runs from there to its END on the
/// analytic path. The sensor stays true in the second SIMULATE and does
/// not trip again there.
#[test]
fn return_ends_the_simulate_and_a_held_sensor_does_not_trip_again() {
    let adm = falling(
        "SENSOR/2, FUNCTION = -VY(20), VALUE = 2, ERROR = 1E-12, GE, RETURN, TERROR = 1E-7",
    );
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\nSIMULATE/DYNAMIC, END = 1, STEPS = 100\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    assert!(!sim.halted);
    let t_star = 2.0 / G;
    let k = sim
        .frames
        .iter()
        .position(|f| f.t > 0.2 + 1e-9)
        .expect("a frame after 0.2");
    let trip = &sim.frames[k];
    assert!(
        trip.t >= t_star - 1e-9 && trip.t <= t_star + TERROR + 1e-9,
        "trip at {}",
        trip.t
    );
    assert!((-trip.u[1] - 2.0).abs() < G * TERROR + 1e-8);
    // The next frame belongs to the second SIMULATE: its 100 steps split
    // [t_trip, 1].
    let next = &sim.frames[k + 1];
    assert!(
        (next.t - (trip.t + (1.0 - trip.t) / 100.0)).abs() < 1e-9,
        "next output at {}",
        next.t
    );
    let last = sim.frames.last().unwrap();
    assert!((last.t - 1.0).abs() < 1e-12, "last output at {}", last.t);
    assert!((height(last) - (1.0 - G * last.t * last.t / 2.0)).abs() < 1e-5);
    assert_eq!(trips(&sim).len(), 1, "{:?}", trips(&sim));
}

/// A sensor that goes false trips again when it next becomes true:
/// SIN(2πt) ≥ 0.5 holds on [1/12, 5/12] of each period, so over 2 s it
/// trips at 1/12 and 13/12 (PRINT: each trip is an output frame), and
/// SENVAL holds EVALUATE = TIME of the last trip.
#[test]
fn a_sensor_trips_again_only_after_it_was_false() {
    let adm = falling(
        "SENSOR/3, FUNCTION = SIN(2*PI*TIME), VALUE = 0.5, ERROR = 1E-12, GE, PRINT, EVALUATE = TIME, TERROR = 1E-8\nVARIABLE/1, FUNCTION = SENVAL(3)\nREQUEST/1, F2 = SENVAL(3)",
    );
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 2, STEPS = 20\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    let lines = trips(&sim);
    assert_eq!(lines.len(), 2, "{lines:?}");
    let trip_times: Vec<f64> = sim
        .frames
        .iter()
        .map(|f| f.t)
        .filter(|t| (t * 10.0 - (t * 10.0).round()).abs() > 1e-6)
        .collect();
    assert_eq!(trip_times.len(), 2, "{trip_times:?}");
    for (t, want) in trip_times.iter().zip([1.0 / 12.0, 13.0 / 12.0]) {
        // The interpolant's error in SIN at ERROR = 1e-7 is ~1e-7, its
        // slope π√3: the time error is below 1e-6.
        assert!((t - want).abs() < 1e-6, "trip at {t}, analytic {want}");
    }
    assert!(lines[1].contains("SENVAL = 1.08333"), "{}", lines[1]);
}

/// DEACTIVATE/SENSOR (FRS5's command file): the sensor is not checked
/// while off, so SIN(2πt) ≥ 0.5 does not trip at 1/12; after
/// ACTIVATE/SENSOR at t = 1 it trips at 13/12 as usual. An unknown id is
/// an error naming the command's line.
#[test]
fn deactivated_sensor_is_not_checked_until_activated() {
    let adm = falling(
        "SENSOR/3, FUNCTION = SIN(2*PI*TIME), VALUE = 0.5, ERROR = 1E-12, GE, PRINT, EVALUATE = TIME, TERROR = 1E-8\nREQUEST/1, F2 = SENVAL(3)",
    );
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nDEACTIVATE/SENSOR, ID = 3\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nACTIVATE/SENSOR, ID = 3\nSIMULATE/DYNAMIC, END = 2, STEPS = 10\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    let lines = trips(&sim);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].contains("SENVAL = 1.08333"), "{}", lines[0]);
    let acf = "t.adm\nt\nDEACTIVATE/SENSOR, ID = 4\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\n";
    let (_, r) = run(&adm, acf);
    assert_eq!(
        r.unwrap_err(),
        "t.acf:3: DEACTIVATE: SENSOR/4 is not in the model"
    );
}

/// A SIMULATE ended early by RETURN (TIME ≥ 0.3) leaves the time at the
/// trip, so the next SIMULATE may repeat the same END (FRS5's command file
/// does): it continues from 0.3 to 1 without tripping again (the sensor
/// stays true). An END that is not after the actual time is refused when
/// the command runs.
#[test]
fn a_simulate_after_return_may_repeat_the_end() {
    let adm =
        falling("SENSOR/5, FUNCTION = TIME, VALUE = 0.3, ERROR = 1E-12, GE, RETURN, TERROR = 1E-9");
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    assert_eq!(trips(&sim).len(), 1);
    let last = sim.frames.last().unwrap();
    assert!((last.t - 1.0).abs() < 1e-12, "{}", last.t);
    let y = height(last);
    assert!((y - (1.0 - G / 2.0)).abs() < 1e-5, "{y}");
    let acf = "t.adm\nt\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\nSIMULATE/DYNAMIC, END = 0.2, STEPS = 10\n";
    let (_, r) = run(&adm, acf);
    let e = r.unwrap_err();
    assert!(
        e.contains("END = 0.2 must be after the current time"),
        "{e}"
    );
}

/// SENVAL read by a force: SFORCE/1 pushes marker 20 away from marker 10
/// (straight below it) with 2 m g once SENSOR/1 has tripped (SENVAL =
/// EVALUATE = TIME > 0), so from the trip at t* = sqrt(2·0.5/g) the body
/// decelerates at g: y(t) = 0.5 − g t* s + g s²/2 with s = t − t*.
#[test]
fn a_force_reads_senval_after_the_trip() {
    let adm = falling(
        "SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, EVALUATE = TIME, TERROR = 1E-9
SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = IF(SENVAL(1): 0, 0, 2*9.81)",
    );
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-9\nSIMULATE/DYNAMIC, END = 0.6, STEPS = 6\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    let t_star = (2.0 * 0.5 / G).sqrt();
    let last = sim.frames.last().unwrap();
    assert!((last.t - 0.6).abs() < 1e-12);
    let s = last.t - t_star;
    let y = 0.5 - G * t_star * s + G * s * s / 2.0;
    let v = -G * t_star + G * s;
    assert!(
        (height(last) - y).abs() < 1e-6,
        "y = {} vs {y}",
        height(last)
    );
    assert!((last.u[1] - v).abs() < 1e-6, "v = {} vs {v}", last.u[1]);
    // Without the PRINT action the trip is not an output frame.
    assert_eq!(sim.frames.len(), 7);
    assert!(
        trips(&sim)[0].contains("SENVAL = 3.19275"),
        "{:?}",
        trips(&sim)
    );
}

/// STEPSIZE = h: the first step after the trip is h (the run's smallest
/// step; without STEPSIZE no step is that small); DT = dt: outputs every
/// dt from the trip on. A STEPSIZE below HMIN is refused at the trip.
#[test]
fn stepsize_and_dt_apply_from_the_trip() {
    let t_star = (2.0 * 0.5 / G).sqrt();
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\n";
    let min_step = |sensor: &str| {
        let (sim, r) = run(&falling(sensor), acf);
        r.unwrap();
        (sim.stats.last().unwrap().1.min_step, sim)
    };
    let (h_without, _) =
        min_step("SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, RESTART");
    let (h_with, sim) = min_step(
        "SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, RESTART, STEPSIZE = 1E-6, DT = 0.03",
    );
    assert!(
        h_without > 1e-5,
        "smallest step without STEPSIZE {h_without}"
    );
    assert!((h_with - 1e-6).abs() < 1e-18, "smallest step {h_with}");
    // Outputs 0.1, 0.2, 0.3, then every 0.03 from the trip, and END.
    let times: Vec<f64> = sim.frames.iter().map(|f| f.t).collect();
    assert_eq!(times.len(), 4 + 7, "{times:?}");
    for (k, t) in times[4..10].iter().enumerate() {
        let want = t_star + 0.03 * (k + 1) as f64;
        assert!((t - want).abs() < 1e-6, "{times:?}");
    }
    assert!((times[10] - 0.5).abs() < 1e-12);
    let (sim, r) = run(
        &falling("SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, LE, STEPSIZE = 1E-9"),
        acf,
    );
    assert!(
        r.unwrap_err().contains("SENSOR/1: STEPSIZE = 0.000000001 cannot be honoured: the integrator takes fixed steps or HMIN is larger"),
        "{:?}",
        sim.log.last()
    );
}

/// Arguments mbsolve cannot honour are refused by name, with the reason;
/// a sensor must do something.
#[test]
fn unsupported_sensor_arguments_are_refused_by_name() {
    for (key, why) in [
        (
            "YYDUMP",
            "it dumps Adams' internal state vector, which mbsolve does not have",
        ),
        (
            "EVALUATE_ROUTINE = lib::sev",
            "user subroutines (SEVSUB) cannot be run",
        ),
    ] {
        let adm = falling(&format!(
            "SENSOR/1, FUNCTION = DY(20), VALUE = 0, LE, HALT, {key}"
        ));
        let name = key.split(' ').next().unwrap();
        let e = mbsolve_adm::read_adm_str(&adm, "t.adm")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("SENSOR/1: {name} is not supported: {why}")),
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
        e.contains(
            "SENSOR/1: give an action (HALT, RETURN, PRINT, RESTART, CODGEN, STEPSIZE, DT) or EVALUATE"
        ),
        "{e}"
    );
    let e = mbsolve_adm::read_adm_str(
        &falling("SENSOR/1, FUNCTION = DY(20), VALUE = 0, LE, HALT, TERROR = 0"),
        "t.adm",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("SENSOR/1: TERROR must be > 0"), "{e}");
    let e = mbsolve_adm::read_adm_str(&falling("VARIABLE/1, FUNCTION = SENVAL(7)"), "t.adm")
        .unwrap_err()
        .to_string();
    assert!(e.contains("SENVAL(7): SENSOR"), "{e}");
}

/// write_adm writes the SENSOR back with every option and the written
/// deck reads to the same sensor.
#[test]
fn write_adm_round_trips_a_sensor() {
    let adm = falling(
        "SENSOR/3, FUNCTION = DY(20) - 0.25, VALUE = 0.5, ERROR = 2E-3, GE, RETURN, PRINT, CODGEN, BISECTION, TERROR = 1E-5, STEPSIZE = 1E-4, DT = 0.5, EVALUATE = TIME + 1",
    );
    let m = mbsolve_adm::read_adm_str(&adm, "t.adm").unwrap();
    let text = mbsolve_adm::write_adm(&m).unwrap();
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap();
    assert_eq!(back.sensors, m.sensors);
    let s = &m.sensors[0];
    assert_eq!(s.compare, mbsolve_model::SensorCompare::Ge);
    assert_eq!(
        (s.error, s.terror, s.stepsize, s.dt),
        (2e-3, 1e-5, Some(1e-4), Some(0.5))
    );
    assert!(s.print && s.codgen && s.bisection && !s.restart);
    assert_eq!(s.evaluate.as_deref(), Some("TIME + 1"));
}

/// STEPSIZE = h without RESTART sets the integrator's next step (Adams:
/// it "redefines the trial integration step size"; no restart): the run
/// takes the h step from the step end (its smallest step) and keeps its
/// integrator, order and history (`DaeIntegrator::set_next_step`, whose
/// order is tested in the integrate crate): it analyses one matrix
/// pattern, as the run with a PRINT trip does, where the same trip with
/// RESTART starts a new integrator at order 1 on a fresh pattern. The
/// outputs stay on the closed form y = 1 − g t²/2 (to 10·ERROR, as
/// before the trip).
#[test]
fn stepsize_without_restart_keeps_the_integrator() {
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\n";
    let sensor = "SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE";
    let stats = |extra: &str| {
        let (sim, r) = run(&falling(&format!("{sensor}{extra}")), acf);
        r.unwrap();
        (sim.stats.last().unwrap().1.clone(), sim)
    };
    let (print, _) = stats(", PRINT");
    let (next, sim) = stats(", STEPSIZE = 1E-6");
    let (restart, _) = stats(", RESTART, STEPSIZE = 1E-6");
    let trips = trips(&sim);
    assert_eq!(trips.len(), 1, "{trips:?}");
    assert!(
        trips[0].ends_with(
            "the integration goes on from its step end with the STEPSIZE as its next step"
        ),
        "{trips:?}"
    );
    assert_eq!(next.min_step, 1e-6, "the STEPSIZE step was taken");
    assert!(print.min_step > 1e-5, "{}", print.min_step);
    assert_eq!(
        (
            next.symbolic_factorizations,
            restart.symbolic_factorizations
        ),
        (
            print.symbolic_factorizations,
            print.symbolic_factorizations + 1
        ),
        "matrix patterns: a restart analyses a fresh one"
    );
    assert_eq!(sim.frames.len(), 6);
    for f in &sim.frames {
        let want = 1.0 - 0.5 * G * f.t * f.t;
        assert!(
            (height(f) - want).abs() < 1e-6,
            "t = {}: y = {}",
            f.t,
            height(f)
        );
    }
}

/// An EQ sensor with a band far narrower than one step's change of its
/// FUNCTION (ERROR = 1e-6 m on a body falling at ~3 m/s, steps of
/// ~10 ms): no step end lies in the band, but FUNCTION is on opposite
/// sides of VALUE at the ends of one step, so it passed through the band
/// there. The trip is the band's entry y = 0.5 + 1e-6, located on the
/// interpolant to TERROR: t = sqrt(2 (0.5 − 1e-6)/g).
#[test]
fn eq_sensor_trips_when_function_passes_through_its_band_within_a_step() {
    let t_entry = (2.0 * (0.5 - 1e-6) / G).sqrt();
    let adm =
        falling("SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-6, EQ, HALT, TERROR = 1E-7");
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\nSIMULATE/DYNAMIC, END = 1, STEPS = 10\n";
    let (sim, r) = run(&adm, acf);
    r.unwrap();
    assert_eq!(trips(&sim).len(), 1, "{:?}", sim.log);
    let last = sim.frames.last().unwrap();
    assert!(
        last.t >= t_entry - 1e-9 && last.t <= t_entry + TERROR + 1e-9,
        "trip at t = {}, band entry {t_entry}",
        last.t
    );
    assert!(
        (height(last) - 0.5).abs() <= 1e-6 + 1e-8,
        "y = {}",
        height(last)
    );
}

/// The documented limit: a LE condition that holds only strictly inside
/// one step — FUNCTION = (TIME − 0.273)² ≤ 1e-8 holds for |t − 0.273| ≤
/// 1e-4, a 2e-4 s window inside a step of the falling body's run — is not
/// seen (only an EQ band passed through is found inside a step); a HMAX
/// below the window finds it.
#[test]
fn le_condition_true_only_inside_one_step_is_not_seen() {
    let adm =
        falling("SENSOR/1, FUNCTION = (TIME - 0.273)**2, VALUE = 1E-8, ERROR = 1E-12, LE, HALT");
    let acf = |hmax: &str| {
        format!(
            "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-6{hmax}\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\n"
        )
    };
    let (sim, r) = run(&adm, &acf(""));
    r.unwrap();
    assert!(trips(&sim).is_empty(), "{:?}", trips(&sim));
    assert!(sim.stats.last().unwrap().1.min_step > 2e-4);
    let (sim, r) = run(&adm, &acf(", HMAX = 1E-4"));
    r.unwrap();
    assert_eq!(trips(&sim).len(), 1, "{:?}", sim.log);
    let t = sim.frames.last().unwrap().t;
    assert!((t - (0.273 - 1e-4)).abs() < 1e-5, "trip at t = {t}");
}
