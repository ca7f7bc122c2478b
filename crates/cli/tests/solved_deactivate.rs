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
const DECK: &str = "solved deactivate\n\
    UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
    ACCGRAV/IGRAV = -9.81, JGRAV = 0, KGRAV = 0\n\
    PART/1, GROUND\n\
    PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
    MARKER/20, PART = 2, QP = 2, 0, 0\n\
    MARKER/21, PART = 1, QP = 2, 0, 0\n\
    JOINT/2, TRANSLATIONAL, I = 20, J = 21\n\
    SFORCE/1, TRANSLATIONAL, ACTIONONLY, I = 20, J = 21, FUNCTION = 10\n\
    PART/3, MASS = 1, CM = 30, IP = 1, 1, 1\n\
    MARKER/30, PART = 3, QP = 3, 0, 0\n\
    MARKER/31, PART = 1, QP = 3, 0, 0\n\
    JOINT/3, TRANSLATIONAL, I = 30, J = 31\n\
    SFORCE/2, TRANSLATIONAL, ACTIONONLY, I = 30, J = 31, FUNCTION = 0.5*SFORCE(1,0,4,0)\n\
    END\n";

#[test]
fn solved_force_value_sees_the_deactivation() {
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-8\n\
        SIMULATE/DYNAMIC, END = 0.5, STEPS = 10\n\
        DEACTIVATE/SFORCE, ID = 1\n\
        SIMULATE/DYNAMIC, END = 1.0, STEPS = 10\n";
    let (sim, r) = common::run_in_process(DECK, acf);
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
