//! A force function reading another force's value (SFORCE(), a solved
//! quantity: solver `reaction_fn.rs`) sees that force DEACTIVATEd: the
//! quantity reads the run's switches, as the request of the same value
//! does, not those of the model as the run began.

mod common;

/// Two 1 kg blocks on TRANSLATIONAL joints along ground z (no gravity
/// along z): SFORCE/1 pushes block 2 with 10 N; SFORCE/2 pushes block 3
/// with half of SFORCE/1's value. Until t = 0.5 block 3 accelerates at
/// 5 m/s²; from the DEACTIVATE of SFORCE/1 on, SFORCE(1,0,4,0) is 0, so
/// block 3 coasts at its velocity of 2.5 m/s (exact up to the integrator's
/// accuracy, ERROR 1e-8: its position 1e-6 m, its velocity 1e-6 m/s).
fn deck() -> String {
    let mut text = String::from(
        "solved deactivate\n\
         UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
         ACCGRAV/IGRAV = -9.81, JGRAV = 0, KGRAV = 0\n\
         PART/1, GROUND\n",
    );
    // Block p at x = p, its joint and its SFORCE/(p − 1).
    for (p, function) in [(2, "10"), (3, "0.5*SFORCE(1,0,4,0)")] {
        let (i, j, f) = (10 * p, 10 * p + 1, p - 1);
        text += &format!(
            "PART/{p}, MASS = 1, CM = {i}, IP = 1, 1, 1\n\
             MARKER/{i}, PART = {p}, QP = {p}, 0, 0\n\
             MARKER/{j}, PART = 1, QP = {p}, 0, 0\n\
             JOINT/{p}, TRANSLATIONAL, I = {i}, J = {j}\n\
             SFORCE/{f}, TRANSLATIONAL, ACTIONONLY, I = {i}, J = {j}, FUNCTION = {function}\n"
        );
    }
    text + "END\n"
}

#[test]
fn solved_force_value_sees_the_deactivation() {
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\n\
        SIMULATE/DYNAMIC, END = 0.5, STEPS = 10\n\
        DEACTIVATE/SFORCE, ID = 1\n\
        SIMULATE/DYNAMIC, END = 1.0, STEPS = 10\n";
    let (sim, r) = common::run_in_process(&deck(), acf);
    r.unwrap();
    // Block 3's z is q[7 + 2], its velocity u[7 + 2].
    let (mut worst_z, mut worst_v) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        let t = f.t;
        let (z, v) = if t <= 0.5 + 1e-12 {
            (2.5 * t * t, 5.0 * t)
        } else {
            (0.625 + 2.5 * (t - 0.5), 2.5)
        };
        worst_z = worst_z.max((f.q[9] - z).abs());
        worst_v = worst_v.max((f.u[9] - v).abs());
    }
    println!("block 3: position {worst_z:.2e} m, velocity {worst_v:.2e} m/s");
    assert!(sim.frames.last().is_some_and(|f| (f.t - 1.0).abs() < 1e-9));
    assert!(worst_z < 1e-6, "position off by {worst_z:.3e}");
    assert!(worst_v < 1e-6, "velocity off by {worst_v:.3e}");
}
