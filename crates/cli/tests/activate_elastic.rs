//! ACTIVATE/DEACTIVATE of BUSHING, FIELD, BEAM and CONTACT (`.acf`
//! commands and MotionSolve `<Deactivate>`): a deactivated element adds
//! no force (the body moves freely, the applied residual is that of the
//! element-free system) and a reactivated one acts again.

mod common;
use common::at;

use mbsolve_model::ElementRef;
use mbsolve_solver::analysis::{Frame, Simulation};

/// A 2 kg body held by one elastic element (statement `element`) between
/// its CM marker 20 and ground marker 10, no gravity, started 0.1 m along
/// x from the free position; the element's x stiffness is 50 N/m (for the
/// BEAM, 3EI/L³ would couple rotation, so it is a BUSHING or a FIELD).
fn elastic_deck(element: &str) -> String {
    format!(
        "elastic\n\
         UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
         PART/1, GROUND\n\
         MARKER/10, PART = 1\n\
         PART/2, MASS = 2, CM = 20, IP = 1, 1, 1, QG = 0.1, 0, 0\n\
         MARKER/20, PART = 2\n\
         {element}\n\
         END\n"
    )
}

/// Energy ½ k x² + ½ m v² along x (k = 50, m = 2).
fn energy(f: &Frame) -> f64 {
    0.5 * 50.0 * f.q[0] * f.q[0] + 0.5 * 2.0 * f.u[0] * f.u[0]
}

/// Oscillates to t = 0.4, DEACTIVATE: from there x = x_s + v_s (t − t_s)
/// (no force at all) to 1e-9; ACTIVATE at t = 0.8: it oscillates again
/// with the energy it had at 0.8 (to 1e-5 relative at ERROR 1e-7, the
/// integrator's), and the applied residual with the element off equals the
/// inertia terms alone.
fn off_and_on(element: &str, kind: &str, e: ElementRef) {
    let acf = format!(
        "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 0.4, STEPS = 40\n\
         DEACTIVATE/{kind}, ID = 1\nSIMULATE/DYNAMIC, END = 0.8, STEPS = 40\n\
         ACTIVATE/{kind}, ID = 1\nSIMULATE/DYNAMIC, END = 1.6, STEPS = 80\n"
    );
    let (sim, r) = common::run_in_process(&elastic_deck(element), &acf);
    r.unwrap_or_else(|m| panic!("{kind}: {m}"));
    // The element acted before the switch: x(0.4) = 0.1 cos(5·0.4).
    let s = at(&sim.frames, 0.4).clone();
    assert!(
        (s.q[0] - 0.1 * 2f64.cos()).abs() < 1e-5,
        "{kind}: x(0.4) = {}",
        s.q[0]
    );
    let mut free = 0.0f64;
    for f in sim
        .frames
        .iter()
        .filter(|f| f.t > 0.4 + 1e-9 && f.t < 0.8 + 1e-9)
    {
        free = free.max((f.q[0] - (s.q[0] + s.u[0] * (f.t - 0.4))).abs());
        free = free.max((f.u[0] - s.u[0]).abs());
    }
    let r = at(&sim.frames, 0.8).clone();
    let e0 = energy(&r);
    let mut drift = 0.0f64;
    let mut crossed = false;
    for f in sim.frames.iter().filter(|f| f.t > 0.8 + 1e-9) {
        drift = drift.max((energy(f) - e0).abs() / e0);
        crossed |= f.q[0].signum() != r.q[0].signum();
    }
    println!("{kind}: free-flight deviation {free:.1e}, energy drift after ACTIVATE {drift:.1e}");
    assert!(free < 1e-9, "{kind}: {free}");
    assert!(drift < 1e-5, "{kind}: {drift}");
    assert!(
        crossed,
        "{kind}: the reactivated element pulls the body back"
    );
    // Zero force while off: at a displaced, moving state the applied
    // residual is the same as with the element's stiffness never there.
    let mut data = sim.data.clone();
    sim.sys.set_element_active(&mut data, e, false).unwrap();
    let (n, q, u) = (sim.sys.nq(), r.q.clone(), r.u.clone());
    let a = vec![0.0; n];
    let (mut off, mut on) = (vec![0.0; n], vec![0.0; n]);
    sim.sys.applied_residual(&data, &q, &u, &a, 0.9, &mut off);
    sim.sys
        .applied_residual(&sim.data, &q, &u, &a, 0.9, &mut on);
    let force_on: f64 = on.iter().zip(&off).map(|(a, b)| (a - b).abs()).sum();
    assert!(
        force_on > 1.0,
        "{kind}: the element acts when on ({force_on})"
    );
    let inertial_only = {
        let empty = mbsolve_adm::read_adm_str(&elastic_deck(""), "e.adm").unwrap();
        let sim0 = Simulation::new(&empty).unwrap();
        let mut out = vec![0.0; n];
        sim0.sys
            .applied_residual(&sim0.data, &q, &u, &a, 0.9, &mut out);
        out
    };
    assert_eq!(
        off, inertial_only,
        "{kind}: a deactivated element adds nothing"
    );
}

#[test]
fn deactivated_bushing_gives_no_force_and_acts_again_when_activated() {
    off_and_on(
        "BUSHING/1, I = 20, J = 10, K = 50, 50, 50, KT = 10, 10, 10",
        "BUSHING",
        ElementRef::Bushing(1),
    );
}

#[test]
fn deactivated_field_gives_no_force_and_acts_again_when_activated() {
    off_and_on(
        "FIELD/1, I = 20, J = 10, K = 50, 0, 0, 0, 0, 0, 0, 50, 0, 0, 0, 0, 0, 0, 50, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 10",
        "FIELD",
        ElementRef::Field(1),
    );
}

/// A 2 kg ball (ELLIPSOID, radius 0.2) dropped from 0.3 m above a ground
/// box, IMPACT contact. Active to t = 0.6 it stops the ball at the box
/// (its centre stays above 0.19 m); DEACTIVATE/CONTACT: from there the
/// ball falls through as in free fall, z = z_s + v_s dt − ½ g dt², to 1e-5
/// (ERROR 1e-6; measured 1.6e-6, printed).
#[test]
fn deactivated_contact_lets_the_ball_fall_through() {
    let adm = "ball\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        ACCGRAV/KGRAV = -9.81\n\
        PART/1, GROUND\n\
        MARKER/10, PART = 1, QP = -1, -1, -0.5\n\
        GRAPHICS/1, BOX, CORNER = 10, X = 2, Y = 2, Z = 0.5\n\
        PART/2, MASS = 2, CM = 20, IP = 1, 1, 1\n\
        MARKER/20, PART = 2, QP = 0, 0, 0.5\n\
        GRAPHICS/2, ELLIPSOID, CM = 20, XSCALE = 0.4, YSCALE = 0.4, ZSCALE = 0.4\n\
        CONTACT/1, IGEOM = 2, JGEOM = 1, IMPACT, STIFFNESS = 1E6, DAMPING = 500, DMAX = 1E-3, EXPONENT = 1.5\n\
        END\n";
    let acf =
        "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-6\nSIMULATE/DYNAMIC, END = 0.6, STEPS = 60\n\
        DEACTIVATE/CONTACT, ID = 1\nSIMULATE/DYNAMIC, END = 1.0, STEPS = 40\n";
    let (sim, r) = common::run_in_process(adm, acf);
    r.unwrap();
    let lowest = sim
        .frames
        .iter()
        .filter(|f| f.t <= 0.6 + 1e-9)
        .map(|f| f.q[2])
        .fold(f64::INFINITY, f64::min);
    assert!(lowest > 0.19, "the active contact holds the ball: {lowest}");
    let s = at(&sim.frames, 0.6).clone();
    let mut worst = 0.0f64;
    for f in sim.frames.iter().filter(|f| f.t > 0.6 + 1e-9) {
        let dt = f.t - 0.6;
        worst = worst.max((f.q[2] - (s.q[2] + s.u[2] * dt - 0.5 * 9.81 * dt * dt)).abs());
    }
    let last = sim.frames.last().unwrap();
    println!("contact off: lowest z while on {lowest:.4}, free-fall deviation {worst:.1e}, final z {:.3}", last.q[2]);
    assert!(worst < 1e-5, "{worst}");
    assert!(last.q[2] < 0.0, "through the box top: {}", last.q[2]);
}
