//! VARIABLE/VARVAL through the whole chain (`.adm` → reader → solver →
//! CSV): in an SFORCE, a MOTION, a GCON and REQUEST F1…F8, checked against
//! closed forms.

mod common;

/// Writes `adm` and an `.acf` running it to `end` (DTOUT 0.01, ERROR
/// `error`), runs it; returns the CSV header and rows.
fn run(name: &str, adm: &str, end: f64, error: f64) -> (Vec<String>, Vec<Vec<f64>>) {
    let d = common::scratch("var", name);
    let acf = format!(
        "integrator/gstiff, error = {error}\nsimulate/dynamic, end = {end}, dtout = 0.01\nstop\n"
    );
    let (header, rows, _) = common::run_deck(&d, name, adm, &acf).unwrap_or_else(|e| panic!("{e}"));
    (header, rows)
}

fn col(h: &[String], name: &str) -> usize {
    h.iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name}"))
}

/// A 2 kg slider on a spring-damper written as SFORCE = −VARVAL(3) with
/// VARIABLE/3 = k·VARVAL(1) + c·VARVAL(2), VARIABLE/1 = DM − L, VARIABLE/2 =
/// VR: x(t) is the damped oscillator's closed form (k = 50, c = 0.8,
/// ω0 = 5, ζ = 0.04, x0 = 0.1), and the request reports the variables and
/// SFORCE(1,0,2,0) = −VARVAL(3). Measured at ERROR = 1e-7: x error
/// 6.5e-6 m over 3 s (the integrator's), force identities 4e-16 N.
#[test]
fn varval_in_sforce_and_requests() {
    let adm = "VARVAL spring\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        PART/1, GROUND\n\
        MARKER/10, PART = 1\n\
        MARKER/11, PART = 1, REULER = 90D, 90D, 0D\n\
        PART/2, MASS = 2, CM = 20, IP = 1, 1, 1, QG = 1.1, 0, 0\n\
        MARKER/20, PART = 2\n\
        MARKER/21, PART = 2, REULER = 90D, 90D, 0D\n\
        JOINT/1, TRANSLATIONAL, I = 21, J = 11\n\
        SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = -VARVAL(3)\n\
        VARIABLE/3, FUNCTION = 50*VARVAL(1) + 0.8*VARVAL(2)\n\
        VARIABLE/1, FUNCTION = DM(20,10) - 1.0\n\
        VARIABLE/2, FUNCTION = VR(20,10)\n\
        REQUEST/1, F2 = VARVAL(1)\\F3 = VARVAL(2)\\F4 = VARVAL(3)\\F6 = SFORCE(1,0,2,0)\n\
        END\n";
    let (h, rows) = run("spring", adm, 3.0, 1e-7);
    let (x, v, f, fx) = (
        col(&h, "request_1.f2"),
        col(&h, "request_1.f3"),
        col(&h, "request_1.f4"),
        col(&h, "request_1.f6"),
    );
    let (k, c, m, x0) = (50.0f64, 0.8f64, 2.0f64, 0.1f64);
    let w0 = (k / m).sqrt();
    let zeta = c / (2.0 * (k * m).sqrt());
    let wd = w0 * (1.0 - zeta * zeta).sqrt();
    let exact =
        |t: f64| x0 * (-zeta * w0 * t).exp() * ((wd * t).cos() + zeta * w0 / wd * (wd * t).sin());
    let (mut ex, mut ef) = (0.0f64, 0.0f64);
    for r in &rows {
        ex = ex.max((r[x] - exact(r[0])).abs());
        ef = ef
            .max((r[f] - (k * r[x] + c * r[v])).abs())
            .max((r[fx] + r[f]).abs());
    }
    println!("VARVAL spring: x error {ex:.1e} m (x0 = 0.1), force identities {ef:.1e} N");
    assert!(ex < 2e-5, "x error {ex}");
    assert!(ef < 1e-10, "force identity {ef}");
}

/// A GCON written through a VARIABLE (VARVAL(5) = DM − 1 = 0: a 1 m
/// distance pendulum started at 2 m/s) and a revolute driven by
/// MOTION = VARVAL(6), with VARIABLE/6 = 2·TIME + VARVAL(7) and VARIABLE/7 =
/// 0.5·SIN(TIME): the distance holds while the bob swings and AZ follows
/// 2t + 0.5 sin t. Measured: |DM − 1| 2e-16 over a 0.61 m swing, angle
/// error 2e-16 rad.
#[test]
fn varval_in_gcon_and_motion() {
    let adm = "VARVAL constraint and motion\n\
        PART/1, GROUND\n\
        MARKER/10, PART = 1\n\
        MARKER/11, PART = 1, QP = 5, 0, 0\n\
        PART/2, MASS = 1, CM = 20, IP = 0.1, 0.1, 0.1, QG = 0, -1, 0, VX = 2\n\
        MARKER/20, PART = 2\n\
        PART/3, MASS = 1, CM = 30, IP = 0.1, 0.1, 0.1, QG = 5.5, 0, 0\n\
        MARKER/30, PART = 3\n\
        MARKER/31, PART = 3, QP = -0.5, 0, 0\n\
        GCON/1, I = 20, FUNCTION = VARVAL(5)\n\
        VARIABLE/5, FUNCTION = DM(20, 10) - 1\n\
        JOINT/1, REVOLUTE, I = 31, J = 11\n\
        MOTION/1, JOINT = 1, FUNCTION = VARVAL(6)\n\
        VARIABLE/6, FUNCTION = 2*TIME + VARVAL(7)\n\
        VARIABLE/7, FUNCTION = 0.5*SIN(TIME)\n\
        ACCGRAV/JGRAV = -9.81\n\
        REQUEST/1, F2 = DM(20,10)\\F3 = AZ(31,11)\\F4 = VARVAL(6)\\F6 = DX(20,10)\n\
        END\n";
    let (h, rows) = run("gcon", adm, 2.0, 1e-6);
    let (dm, az, v6, dx) = (
        col(&h, "request_1.f2"),
        col(&h, "request_1.f3"),
        col(&h, "request_1.f4"),
        col(&h, "request_1.f6"),
    );
    let swing = rows.iter().map(|r| r[dx].abs()).fold(0.0, f64::max);
    assert!(swing > 0.5, "the bob must swing ({swing})");
    let tau = std::f64::consts::TAU;
    let (mut ed, mut ea) = (0.0f64, 0.0f64);
    for r in &rows {
        let want = 2.0 * r[0] + 0.5 * r[0].sin();
        ed = ed.max((r[dm] - 1.0).abs());
        let e = (r[az] - want).rem_euclid(tau);
        ea = ea.max(e.min(tau - e)).max((r[v6] - want).abs());
    }
    println!(
        "VARVAL GCON/MOTION: |DM - 1| {ed:.1e} (swing {swing:.2} m), angle error {ea:.1e} rad"
    );
    assert!(ed < 1e-8 && ea < 1e-9, "{ed} {ea}");
}

/// An implicit VARIABLE (a cycle through VARVAL) is solved with the
/// system: v1 = sin t + v2, v2 = v1/2 ⇒ v1 = 2 sin t, v2 = sin t; VARIABLE/3
/// = 3·v1 only reads the loop (explicit, inlined). REQUEST F2…F4 read all
/// three through VARVAL, to 1e-12 (the loop is linear, Newton exact).
#[test]
fn implicit_variables_are_solved() {
    let adm = "loop\nPART/1, GROUND\n\
        VARIABLE/1, IC = 0.3, FUNCTION = SIN(TIME) + VARVAL(2)\n\
        VARIABLE/2, FUNCTION = VARVAL(1)/2\n\
        VARIABLE/3, FUNCTION = 3*VARVAL(1)\n\
        REQUEST/1, F2 = VARVAL(1)\\F3 = VARVAL(2)\\F4 = VARVAL(3)\n\
        END\n";
    let (h, rows) = run("implicit", adm, 1.0, 1e-6);
    let (v1, v2, v3) = (
        col(&h, "request_1.f2"),
        col(&h, "request_1.f3"),
        col(&h, "request_1.f4"),
    );
    assert_eq!(rows.len(), 101);
    let mut e = 0.0f64;
    for r in &rows {
        let s = r[0].sin();
        e = e
            .max((r[v1] - 2.0 * s).abs())
            .max((r[v2] - s).abs())
            .max((r[v3] - 6.0 * s).abs());
    }
    println!("implicit VARIABLE loop through requests: {e:.1e}");
    assert!(e < 1e-12, "{e}");
}

/// A command that turns an explicit VARIABLE into an implicit one between
/// analyses would add a user state: refused by name, not run.
#[test]
fn redefinition_that_makes_a_loop_between_analyses_is_refused() {
    let adm = "loop\nPART/1, GROUND\n\
        VARIABLE/1, FUNCTION = TIME\n\
        VARIABLE/2, FUNCTION = 2*VARVAL(1)\n\
        REQUEST/1, F2 = VARVAL(2)\n\
        END\n";
    let acf = "t.adm\nt\nSIMULATE/DYNAMIC, END = 0.1, STEPS = 2\n\
        VARIABLE/1, FUNCTION = 1 - 0.5*VARVAL(2)\n\
        SIMULATE/DYNAMIC, END = 0.2, STEPS = 2\n";
    let (sim, r) = common::run_in_process(adm, acf);
    let e = r.unwrap_err();
    assert!(
        e.contains("t.acf:4: VARIABLE/1: the change alters the model's coordinates, constraint equations, force elements or user states (an implicit VARIABLE is one), which a command cannot do between analyses"),
        "{e}"
    );
    // The first analysis ran to its end.
    assert_eq!(sim.frames.last().map(|f| f.t), Some(0.1));
}
