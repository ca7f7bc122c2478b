//! VM and WM (speed and angular speed) in force functions, here DIFFs
//! integrating them: a body falling from rest has |v| = g t, so ∫VM dt =
//! g t²/2 (the speed starts at zero, where |v| has no derivative); a free
//! body with a spherical inertia spins at a constant ω, so ∫WM dt = |ω| t.
//! (Their Jacobian columns are checked in mech/tests/fd_jacobian.rs.)

mod common;

const DECK: &str = "speed measures\n\
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
ACCGRAV/IGRAV = 0, JGRAV = 0, KGRAV = -9.81\n\
PART/1, GROUND\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
MARKER/20, PART = 2\n\
PART/3, MASS = 2, CM = 30, IP = 0.5, 0.5, 0.5, QG = 1, 0, 0, VX = 0.3, WX = 1.2, WY = -0.5, WZ = 2\n\
MARKER/30, PART = 3\n\
DIFF/1, FUNCTION = VM(20)\n\
DIFF/2, FUNCTION = WM(30)\n\
DIFF/3, FUNCTION = WM(30, 20) + VM(30, 20)\n\
REQUEST/1, F2 = DIF(1)\\F3 = DIF(2)\\F4 = DIF(3)\n\
END\n";

/// At ERROR 1e-8 over 1 s: DIF(1) = g t²/2, DIF(2) = |ω| t, and DIF(3),
/// relative to the other falling body (which does not rotate), = |ω| t
/// plus the relative speed |v₃ − v₂| = 0.3 (both fall alike) times t.
/// Bound 1e-5.
#[test]
fn vm_and_wm_integrate_to_their_closed_forms() {
    let d = common::scratch("speed", "measures");
    let (h, rows, _) = common::run_deck(
        &d,
        "speed",
        DECK,
        "integrator/gstiff, error = 1e-8\nsimulate/dynamic, end = 1, dtout = 0.05\nstop\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(h[1..], ["request_1.f2", "request_1.f3", "request_1.f4"]);
    assert_eq!(rows.len(), 21);
    let g = 9.81;
    let w = (1.2f64 * 1.2 + 0.5 * 0.5 + 2.0 * 2.0).sqrt();
    let mut worst = 0.0f64;
    for r in &rows {
        let t = r[0];
        for (got, want) in [
            (r[1], g * t * t / 2.0),
            (r[2], w * t),
            (r[3], (w + 0.3) * t),
        ] {
            worst = worst.max((got - want).abs());
        }
    }
    println!("largest error {worst:.2e}");
    assert!(worst < 1e-5, "{worst}");
}
