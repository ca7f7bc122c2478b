//! Arguments Adams ignores (seed 000, INTEGRATOR): HRATIO and MAXERR
//! without FIXIT, an argument stored for another integrator, a SENSOR
//! STEPSIZE under the fixed-step option, a HINIT other than DTOUT/HRATIO
//! under FIXIT. Each run goes on as the seed says and the message log says
//! once what was ignored.

mod common;

use mbsolve_solver::analysis::Simulation;

/// A 1 kg free body falling from y = 1 under gravity; `extra` holds more
/// statements (INTEGRATOR, SENSOR).
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

fn run(adm: &str, commands: &str) -> Simulation {
    let (sim, r) = common::run_in_process(adm, &format!("t.adm\nt\n{commands}"));
    if let Err(e) = r {
        panic!("{e}\n{}", sim.log.join("\n"));
    }
    sim
}

fn lines_with<'a>(sim: &'a Simulation, text: &str) -> Vec<&'a String> {
    sim.log.iter().filter(|l| l.contains(text)).collect()
}

/// The (steps, smallest step, largest step) of the last analysis.
fn steps(sim: &Simulation) -> (u64, f64, f64) {
    let s = &sim.stats.last().unwrap().1;
    (s.steps, s.min_step, s.max_step)
}

/// FIXIT = 3, HRATIO = 2, HINIT = 1E-4 at DTOUT = 0.1: the step is
/// DTOUT/HRATIO = 0.05 throughout (10 steps to END = 0.5), not HINIT.
#[test]
fn fixit_step_is_dtout_over_hratio_not_a_smaller_hinit() {
    let sim = run(
        &falling(""),
        "INTEGRATOR/GSTIFF, FIXIT = 3, HRATIO = 2, HINIT = 1E-4\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\n",
    );
    let (n, lo, hi) = steps(&sim);
    assert_eq!(n, 10);
    assert!(
        (lo - 0.05).abs() < 1e-15 && (hi - 0.05).abs() < 1e-15,
        "{lo} {hi}"
    );
    assert_eq!(
        lines_with(&sim, "HINIT = 0.0001 ignored").len(),
        1,
        "{:?}",
        sim.log
    );
    // The initial frame and the five outputs.
    assert_eq!(sim.frames.len(), 6);
}

/// A SENSOR STEPSIZE under FIXIT is not honoured (seeds: "it does not
/// honor any step size change requests coming from these elements"): the
/// run completes at DTOUT/HRATIO and the log says so once.
#[test]
fn sensor_stepsize_under_fixit_is_ignored() {
    let sim = run(
        &falling("SENSOR/1, FUNCTION = DY(20), VALUE = 0.5, ERROR = 1E-12, LE, STEPSIZE = 1E-6"),
        "INTEGRATOR/GSTIFF, FIXIT = 3, HRATIO = 4\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\n",
    );
    let (n, lo, hi) = steps(&sim);
    assert_eq!(n, 20);
    assert!(
        (lo - 0.025).abs() < 1e-15 && (hi - 0.025).abs() < 1e-15,
        "{lo} {hi}"
    );
    assert_eq!(lines_with(&sim, "tripped").len(), 1, "{:?}", sim.log);
    assert_eq!(
        lines_with(
            &sim,
            "SENSOR/1: STEPSIZE = 0.000001 ignored: the fixed-step integrator does not honour step size requests (the step stays 2.5e-2)"
        )
        .len(),
        1,
        "{:?}",
        sim.log
    );
    assert!((sim.frames.last().unwrap().t - 0.5).abs() < 1e-12);
}

/// HRATIO and MAXERR without FIXIT: ignored (seeds), a variable-step run
/// with one log line.
#[test]
fn hratio_and_maxerr_without_fixit_run_variable_step() {
    let sim = run(
        &falling(""),
        "INTEGRATOR/WSTIFF, HRATIO = 4, MAXERR = 0.5\nSIMULATE/DYNAMIC, END = 0.5, STEPS = 5\n",
    );
    assert_eq!(
        lines_with(&sim, "HRATIO and MAXERR ignored: they apply only to the fixed-step option and FIXIT is not given").len(),
        1,
        "{:?}",
        sim.log
    );
    assert_eq!(lines_with(&sim, "dynamic analysis: WSTIFF, I3").len(), 1);
}

/// ALPHA from the dataset's INTEGRATOR/HHT is kept, not used, when the
/// command file switches to GSTIFF, and acts again after INTEGRATOR/HHT.
#[test]
fn alpha_of_the_dataset_is_kept_when_the_commands_switch_to_gstiff() {
    let sim = run(
        &falling("INTEGRATOR/HHT, ALPHA = -0.2"),
        "INTEGRATOR/GSTIFF\nSIMULATE/DYNAMIC, END = 0.2, STEPS = 2\nINTEGRATOR/HHT\nSIMULATE/DYNAMIC, END = 0.4, STEPS = 2\n",
    );
    assert_eq!(
        lines_with(&sim, "ALPHA = -2e-1 kept from HHT but not used by GSTIFF").len(),
        1,
        "{:?}",
        sim.log
    );
    let analyses = lines_with(&sim, "dynamic analysis: ");
    assert_eq!(analyses.len(), 2, "{analyses:?}");
    assert!(
        analyses[0].starts_with("dynamic analysis: GSTIFF, I3"),
        "{}",
        analyses[0]
    );
    assert!(
        analyses[1].contains("HHT, I3, ALPHA = -0.2 "),
        "{}",
        analyses[1]
    );
}
