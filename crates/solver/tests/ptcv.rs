//! PTCV end to end: a bead on a circular wire in a vertical plane (the
//! point-on-curve rows make it a pendulum of the wire's radius) against the
//! exact large-amplitude period, with its energy conserved (the constraint
//! does no work), under the I3, SI2 and ODE (ABAM) formulations; a pin in a
//! straight inclined slot against s = g sin φ t²/2; the static equilibrium
//! of the bead at the bottom of the wire.

mod common;

use mbsolve_model::*;
use mbsolve_solver::Simulation;
use nalgebra::Vector3;
use std::f64::consts::PI;

const G: f64 = 9.81;

/// Ground with the RM marker 11 at the origin, a bead (PART/2, mass 1,
/// CM marker 20 = the I marker) at `at`, CURVE/1 through `points` (in RM
/// coordinates) and PTCV/1 holding marker 20 on it.
fn bead_on(points: &[Vector3<f64>], order: usize, closed: bool, at: Vector3<f64>) -> Model {
    let mut m = Model::new("ptcv");
    m.gravity = Vector3::new(0.0, -G, 0.0);
    m.parts.push(Part::ground(1));
    let mut b = Part::body(
        2,
        1.0,
        Inertia::diagonal(1e-3, 1e-3, 1e-3),
        Placement::at(at.x, at.y, at.z),
    );
    b.cm = Some(20);
    m.parts.push(b);
    for (id, part) in [(20, 2), (11, 1)] {
        m.markers.push(Marker {
            id,
            part,
            placement: Placement::default(),
        });
    }
    m.matrices.push(common::curves::matrix(1, points));
    m.curves.push(Curve {
        id: 1,
        matrix: 1,
        curve_points: true,
        order,
        closed,
    });
    m.ptcvs.push(Ptcv {
        id: 1,
        i: 20,
        jfloat: 99,
        jfloat_part: 1,
        rm: 11,
        curve: 1,
    });
    m
}

/// The wire: a circle through 64 points.
fn circle(r: f64) -> Vec<Vector3<f64>> {
    common::curves::circle(r, 64)
}

/// Released at rest θ0 = 0.8 rad from the bottom of a 0.5 m wire. The
/// period is T = 4 √(R/g) K(sin θ0/2); the interpolated 64-point circle
/// departs from the true one by 1.2e-7 m, so the periods agree to 2e-6.
/// Energy: the PTCV force is normal to the path, so ½m|v|² + m g y stays
/// at its initial value to the integration error.
fn bead_period_and_energy(settings: IntegratorSettings) -> (f64, f64) {
    let (r, th0) = (0.5, 0.8);
    let m = bead_on(
        &circle(r),
        4,
        true,
        Vector3::new(r * f64::sin(th0), -r * f64::cos(th0), 0.0),
    );
    let exact = 4.0 * (r / G).sqrt() * common::ellip_k((0.5 * th0).sin());
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(3.0, Some(3000), None, &settings).unwrap();
    let e0 = -G * r * th0.cos();
    let (mut worst_e, mut worst_r) = (0.0f64, 0.0f64);
    for b in &sim.frames {
        let e = 0.5 * (b.u[0].powi(2) + b.u[1].powi(2) + b.u[2].powi(2)) + G * b.q[1];
        worst_e = worst_e.max((e - e0).abs());
        worst_r = worst_r.max((Vector3::new(b.q[0], b.q[1], b.q[2]).norm() - r).abs());
    }
    // Zero crossings of x, two per period.
    let period = common::mean_period(&sim.frames);
    println!(
        "{:?}/{:?}: period {period:.7} vs {exact:.7}, |ΔE| {worst_e:.2e} J, |r − R| {worst_r:.2e} m",
        settings.kind, settings.formulation
    );
    assert!(worst_r < 1e-6, "bead left the wire by {worst_r}");
    ((period - exact).abs() / exact, worst_e / e0.abs())
}

fn with(kind: IntegratorKind, formulation: Option<Formulation>, error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        formulation,
        error: Some(error),
        ..Default::default()
    }
}

#[test]
fn bead_on_a_circular_wire_swings_with_the_pendulum_period_i3() {
    let (dt, de) = bead_period_and_energy(with(IntegratorKind::Gstiff, None, 1e-7));
    assert!(dt < 2e-6, "period error {dt}");
    assert!(de < 1e-5, "energy error {de}");
}

#[test]
fn bead_on_a_circular_wire_swings_with_the_pendulum_period_si2() {
    let (dt, de) =
        bead_period_and_energy(with(IntegratorKind::Gstiff, Some(Formulation::Si2), 1e-7));
    assert!(dt < 2e-6, "period error {dt}");
    assert!(de < 1e-5, "energy error {de}");
}

#[test]
fn bead_on_a_circular_wire_swings_with_the_pendulum_period_ode_form() {
    let (dt, de) = bead_period_and_energy(with(IntegratorKind::Abam, None, 1e-7));
    assert!(dt < 2e-6, "period error {dt}");
    assert!(de < 1e-5, "energy error {de}");
}

/// A pin on a straight slot (ORDER = 2 polyline through four collinear
/// points, inclined φ = 30° down along +x), released at rest at the first
/// point: it slides s = g sin φ t²/2 along the slot and stays on it.
#[test]
fn pin_in_an_inclined_slot_slides_like_a_translational_joint() {
    let phi = PI / 6.0;
    let dir = Vector3::new(phi.cos(), -phi.sin(), 0.0);
    let points: Vec<Vector3<f64>> = [0.0, 1.5, 4.0, 6.0].iter().map(|s| dir * *s).collect();
    let m = bead_on(&points, 2, false, Vector3::zeros());
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(
        1.0,
        Some(100),
        None,
        &with(IntegratorKind::Gstiff, None, 1e-8),
    )
    .unwrap();
    let mut worst = 0.0f64;
    for f in &sim.frames {
        let x = Vector3::new(f.q[0], f.q[1], f.q[2]);
        let s = 0.5 * G * phi.sin() * f.t * f.t;
        worst = worst.max((x - dir * s).norm());
    }
    let last = sim.frames.last().unwrap();
    println!(
        "slot: worst |x − x_exact| {worst:.2e} m over 1 s (t_end = {})",
        last.t
    );
    assert!(last.t > 0.999);
    assert!(worst < 1e-6, "{worst}");
}

/// Static equilibrium from θ = 0.6 rad: the bead settles at the bottom of
/// the wire (0, −R).
#[test]
fn bead_statics_finds_the_bottom_of_the_wire() {
    let r = 0.5;
    let m = bead_on(
        &circle(r),
        4,
        true,
        Vector3::new(r * 0.6f64.sin(), -r * 0.6f64.cos(), 0.0),
    );
    let mut sim = Simulation::new(&m).unwrap();
    sim.static_equilibrium(&StaticSettings::default()).unwrap();
    let q = &sim.frames.last().unwrap().q;
    println!("statics: bead at ({:.3e}, {:.9})", q[0], q[1]);
    assert!(q[0].abs() < 1e-8, "x = {}", q[0]);
    assert!((q[1] + r).abs() < 1e-6, "y = {}", q[1]);
}

#[test]
fn bead_on_a_circular_wire_swings_with_the_pendulum_period_si1_and_hht() {
    for settings in [
        with(IntegratorKind::Hastiff, Some(Formulation::Si1), 1e-7),
        with(IntegratorKind::Hht, None, 1e-7),
    ] {
        let (dt, de) = bead_period_and_energy(settings);
        assert!(dt < 2e-6, "period error {dt}");
        assert!(de < 1e-5, "energy error {de}");
    }
}
