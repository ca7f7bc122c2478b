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

/// A 2 kg ball resting on a ground box (IMPACT CONTACT/1, started at its
/// static penetration), pushed along global x (frictionless) by
/// SFORCE/1 = 0.1·CONTACT(1,0,4,0), and a 1 kg block on a TRANSLATIONAL
/// joint along global x pushed by SFORCE/2 = SFORCE(1,0,2,0) (SFORCE/1's
/// x component: a solved quantity, whose evaluation sums SFORCE/1's law
/// with the run's CONTACT switches). Until t = 0.5 the block accelerates at about
/// 0.1 m g / 1 kg; DEACTIVATE/CONTACT then lets the ball fall through the
/// box (its penetration, and CONTACT() if it were still read, grows), and
/// both forces read 0: the block coasts at its velocity at 0.5 to 1e-6 m/s.
#[test]
fn solved_force_value_sees_a_deactivated_contact() {
    let adm = "contact off\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        ACCGRAV/IGRAV = 0, JGRAV = 0, KGRAV = -9.81\n\
        PART/1, GROUND\n\
        MARKER/10, PART = 1, QP = -1, -1, -0.5\n\
        MARKER/11, PART = 1, QP = 0, 3, 0, REULER = 90D, 90D, 0D\n\
        GRAPHICS/1, BOX, CORNER = 10, X = 2, Y = 2, Z = 0.5\n\
        PART/2, MASS = 2, CM = 20, IP = 1, 1, 1, QG = 0, 0, 0.199635\n\
        MARKER/20, PART = 2\n\
        GRAPHICS/2, ELLIPSOID, CM = 20, XSCALE = 0.4, YSCALE = 0.4, ZSCALE = 0.4\n\
        CONTACT/1, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E6, DAMPING = 500, DMAX = 1E-3, EXPONENT = 1.5\n\
        PART/3, MASS = 1, CM = 30, IP = 1, 1, 1, QG = 0, 3, 0\n\
        MARKER/30, PART = 3, REULER = 90D, 90D, 0D\n\
        JOINT/3, TRANSLATIONAL, I = 30, J = 11\n\
        SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 20, J = 11, FUNCTION = 0.1*CONTACT(1,0,4,0)\n\
        SFORCE/2, TRANSLATIONAL, ACTIONONLY, I = 30, J = 11, FUNCTION = SFORCE(1,0,2,0)\n\
        END\n";
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-6\n\
        SIMULATE/DYNAMIC, END = 0.5, STEPS = 10\n\
        DEACTIVATE/CONTACT, ID = 1\n\
        SIMULATE/DYNAMIC, END = 1.0, STEPS = 10\n";
    let (sim, r) = common::run_in_process(adm, acf);
    r.unwrap();
    // The block (second moving part): x velocity u[7].
    let v_half = common::at(&sim.frames, 0.5).u[7];
    // Pushed by 0.1 · m g ≈ 1.96 N for 0.5 s: about 1 m/s.
    assert!(
        (v_half - 0.981).abs() < 0.05,
        "the block was pushed: {v_half}"
    );
    let ball_z = sim.frames.last().map(|f| f.q[2]).unwrap_or(0.0);
    assert!(ball_z < 0.0, "the ball fell through the box: {ball_z}");
    let mut worst = 0.0f64;
    for f in sim.frames.iter().filter(|f| f.t > 0.5 + 1e-9) {
        worst = worst.max((f.u[7] - v_half).abs());
    }
    println!("block at {v_half:.4} m/s at t = 0.5; after: {worst:.2e} m/s off");
    assert!(worst < 1e-6, "the block did not coast: {worst:.3e} m/s");
}
