//! Results of deactivated force elements: after DEACTIVATE, SFORCE(),
//! SPDP(), BUSH(), FIELD() and BEAM() and the FORCE request between the
//! element's markers report zero, the force the element applies; after
//! ACTIVATE they report the force law again.

mod common;

use mbsolve_solver::analysis::Simulation;
use mbsolve_solver::requests::Outputs;

/// A 1 kg body (CM marker 20 at (0, 0.1, 0)) held to ground marker 10 at
/// (−1, 0, 0) by one element of each kind; no gravity. Every element is
/// loaded at the start: the SFORCE is 5 N, the spring (free length 0.5) is
/// stretched by ≈ 0.5, the bushing and field are displaced by (1, 0.1, 0)
/// and the beam (length 1) is bent by 0.1. REQUEST/1 reads each element's
/// force magnitude, REQUEST/2 is the FORCE request between 20 and 10.
const DECK: &str = "five force elements
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
PART/1, GROUND
MARKER/10, PART = 1, QP = -1, 0, 0
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1
MARKER/20, PART = 2, QP = 0, 0.1, 0
SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = 5
SPRINGDAMPER/1, TRANSLATIONAL, I = 20, J = 10, K = 100, C = 0, LENGTH = 0.5
BUSHING/1, I = 20, J = 10, K = 10, 10, 10
FIELD/1, I = 20, J = 10, K = 10, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1
BEAM/1, I = 20, J = 10, LENGTH = 1, IXX = 4, IYY = 2, IZZ = 3, AREA = 10, EMOD = 100, GMOD = 40
REQUEST/1, F1 = SFORCE(1, 0, 1, 0)\\F2 = SPDP(1, 0, 1, 0)\\F3 = BUSH(1, 0, 1, 0)\\F4 = FIELD(1, 0, 1, 0)\\F5 = BEAM(1, 0, 1, 0)
REQUEST/2, FORCE, I = 20, J = 10
END
";

const ELEMENTS: [&str; 5] = ["SFORCE", "SPRINGDAMPER", "BUSHING", "FIELD", "BEAM"];

/// The command file: SIMULATE to 0.01, then `between` (commands on every
/// element), then SIMULATE to 0.02.
fn acf(between: &[&str]) -> String {
    let mut s =
        "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-6\nSIMULATE/DYNAMIC, END = 0.01, STEPS = 1\n"
            .to_string();
    for verb in between {
        for e in ELEMENTS {
            s.push_str(&format!("{verb}/{e}, ID = 1\n"));
        }
    }
    s.push_str("SIMULATE/DYNAMIC, END = 0.02, STEPS = 1\n");
    s
}

/// The request columns (header, values) at the last frame.
fn last_row(sim: &Simulation) -> Vec<(String, f64)> {
    let outputs = Outputs::new(&sim.model).expect("the requests compile");
    let initial_q = sim.sys.initial_state().0;
    let frame = sim.frames.last().expect("frames");
    assert!((frame.t - 0.02).abs() < 1e-12);
    let row = outputs
        .row(&sim.sys, &sim.model, frame, &initial_q)
        .expect("the requests evaluate");
    // row[0] is the time.
    outputs
        .header
        .iter()
        .cloned()
        .zip(row[1..].to_vec())
        .collect()
}

fn run(between: &[&str]) -> (Simulation, Vec<(String, f64)>) {
    let (sim, r) = common::run_in_process(DECK, &acf(between));
    r.unwrap();
    let row = last_row(&sim);
    (sim, row)
}

#[test]
fn deactivated_force_elements_report_zero_and_reactivated_ones_their_law() {
    // The request columns: 5 function components, then the FORCE
    // request's FX FY FZ TX TY TZ.
    let (_, active) = run(&[]);
    assert_eq!(active.len(), 5 + 6, "{active:?}");
    for (name, v) in &active[..5] {
        assert!(v.abs() > 0.1, "{name} = {v} while active");
    }
    let total: f64 = active[5..8].iter().map(|(_, v)| v * v).sum::<f64>().sqrt();
    assert!(total > 0.1, "FORCE request while active: {active:?}");

    let (sim, off) = run(&["DEACTIVATE"]);
    for (name, v) in &off {
        assert_eq!(*v, 0.0, "{name} after DEACTIVATE");
    }
    // The body is indeed free: no force acts on it.
    let last = sim.frames.last().expect("frames");
    let a = last.a[..3].iter().map(|x| x.abs()).fold(0.0, f64::max);
    assert!(a < 1e-9, "acceleration {a} with every element off");

    let (_, back) = run(&["DEACTIVATE", "ACTIVATE"]);
    for (name, v) in &back[..5] {
        assert!(v.abs() > 0.1, "{name} = {v} after ACTIVATE");
    }
}
