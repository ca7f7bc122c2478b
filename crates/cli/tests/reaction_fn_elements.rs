//! Force functions reading the element results the request evaluator
//! added later (GFORCE(), VFORCE(), VTORQ()): they take the same solved
//! path as SFORCE() (solver `reaction_fn.rs`). One block of mass M on a
//! TRANSLATIONAL joint along ground z: a VFORCE (or GFORCE) applies F
//! along z, and an SFORCE reads half of it, so the block accelerates at
//! 1.5·F/M (closed form), and the SFORCE equals 0.5·F.

mod common;

const M: f64 = 2.0;
const F: f64 = 10.0;

fn deck(element: &str, function: &str) -> String {
    format!(
        "element results in force functions\n\
         UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
         ACCGRAV/IGRAV = -9.81, JGRAV = 0, KGRAV = 0\n\
         PART/1, GROUND\n\
         PART/2, MASS = {M}, CM = 20, IP = 1, 1, 1\n\
         MARKER/20, PART = 2, QP = 2, 0, 0\n\
         MARKER/21, PART = 1, QP = 2, 0, 0\n\
         MARKER/19, PART = 1, FLOATING\n\
         JOINT/2, TRANSLATIONAL, I = 20, J = 21\n\
         {element}\n\
         SFORCE/2, TRANSLATIONAL, ACTIONONLY, I = 20, J = 21, FUNCTION = {function}\n\
         REQUEST/1, F2 = SFORCE(2,0,4,0)\\F3 = DZ(20,21)\\F4 = ACCZ(20)\n\
         END\n"
    )
}

fn check(name: &str, element: &str, function: &str) {
    let d = common::scratch("reaction_fn_elements", name);
    let (_, rows, _) = common::run_deck(
        &d,
        name,
        &deck(element, function),
        "integrator/gstiff, error = 1e-8\nsimulate/dynamic, end = 1, steps = 10\nstop\n",
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let a = 1.5 * F / M;
    assert!(rows.len() >= 10, "{name}: {} rows", rows.len());
    for r in &rows {
        assert!(
            (r[1] - 0.5 * F).abs() < 1e-9,
            "{name}: SFORCE {} at t = {}",
            r[1],
            r[0]
        );
        assert!(
            (r[2] - 0.5 * a * r[0] * r[0]).abs() < 1e-7,
            "{name}: DZ {} at t = {}",
            r[2],
            r[0]
        );
        assert!(
            (r[3] - a).abs() < 1e-7,
            "{name}: ACCZ {} at t = {}",
            r[3],
            r[0]
        );
    }
}

#[test]
fn sforce_reads_a_vforce() {
    check(
        "vforce",
        &format!("VFORCE/1, I = 20, JFLOAT = 19, RM = 21, FX = 0\\FY = 0\\FZ = {F}"),
        "0.5*VFORCE(1,0,4,21)",
    );
}

#[test]
fn sforce_reads_a_gforce() {
    check(
        "gforce",
        &format!(
            "GFORCE/1, I = 20, JFLOAT = 19, RM = 21, FX = 0\\FY = 0\\FZ = {F}\\TX = 0\\TY = 0\\TZ = 0"
        ),
        "0.5*GFORCE(1,0,4,21)",
    );
}
