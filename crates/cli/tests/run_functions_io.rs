//! SWEEP, INTERP, INVPSD, DELAY and MODE are written as text by
//! write_adm and write_xml and read back unchanged (MotionSolve documents
//! SWEEP, DELAY(val, dt, ic) and MODE with Adams' meaning; the reader
//! compiles them again, binding INTERP and INVPSD to the SPLINE), and the
//! re-read models give the same REQUEST values on a run.

mod common;

const DECK: &str = "run functions\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
SPLINE/5, X = 0, 1, 2, 3, 4\n\
, Y = 1, 2, 1.5, 1, 1\n\
DIFF/1, FUNCTION = DELAY(SIN(TIME), 0.25, SIN(TIME)) + 0*MODE, IC = 0\n\
REQUEST/1, F1 = SWEEP(TIME, 1, 0, 1, 2, 3, 0.1)\\F2 = INTERP(TIME, 1, 5)\
\\F3 = INVPSD(TIME, 5, 1, 3, 5, 0, 2)\\F4 = MODE\\F5 = DELAY(TIME, 0.1, 0)\\F6 = DIF(1)\n\
END\n";

fn texts(m: &mbsolve_model::Model) -> Vec<String> {
    let mut out: Vec<String> = m.function_requests[0]
        .components
        .iter()
        .flatten()
        .cloned()
        .collect();
    out.push(m.diffs[0].function.source().unwrap_or("").to_string());
    out
}

/// The request rows of a 1 s run of `model` (10 outputs).
fn rows(model: &mbsolve_model::Model) -> Vec<Vec<f64>> {
    let outputs = mbsolve_solver::requests::Outputs::new(model).unwrap();
    let mut sim = mbsolve_solver::analysis::Simulation::new(model).unwrap();
    let outputs = outputs.bind_run(&sim.model);
    sim.dynamic(1.0, Some(10), None, &Default::default())
        .unwrap();
    let (rows, err) = outputs.table(&sim.sys, &sim.model, &sim.frames);
    assert!(err.is_none(), "{err:?}");
    rows
}

#[test]
fn run_functions_round_trip_through_adm_and_xml() {
    let model = mbsolve_adm::read_adm_str(DECK, "f.adm").unwrap();
    let want = texts(&model);
    assert_eq!(want[0], "SWEEP(TIME, 1, 0, 1, 2, 3, 0.1)");
    let adm = mbsolve_adm::write_adm(&model).unwrap();
    let again = mbsolve_adm::read_adm_str(&adm, "g.adm").unwrap();
    assert_eq!(texts(&again), want);
    let xml = mbsolve_msxml::write_xml(&model).unwrap();
    let read = mbsolve_msxml::read_xml_str(&xml, "g.xml").unwrap();
    assert_eq!(texts(&read.model), want);
    // `Outputs::table` evaluates the requests on the kept frames only (its
    // DELAY history holds the outputs, no steps), so all three runs agree
    // exactly; MODE is 3 on the first frame, then 4.
    let base = rows(&model);
    assert_eq!(base.len(), 11);
    assert_eq!(base[0][4], 3.0);
    assert!(base[1..].iter().all(|r| r[4] == 4.0));
    assert_eq!(rows(&again), base);
    assert_eq!(rows(&read.model), base);
}
