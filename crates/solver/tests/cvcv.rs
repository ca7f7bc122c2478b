//! CVCV end to end: a disc (a circle of radius r on PART/2) rolling and
//! sliding without friction inside a circular track (radius R, fixed in
//! ground), both in the vertical x-y plane. The contact normal passes
//! through the disc's centre, so the centre moves as a pendulum of length
//! L = R − r with the exact large-amplitude period T = 4 √(L/g) K(sin θ0/2)
//! and the disc does not spin. The contact parameters α (on the disc) and
//! β (on the track) both move. Checked under I3, SI2, SI1, HHT and the ODE
//! form: the period, the energy, the centre's distance from the track's
//! centre and the rows' residuals; assembly from a gap; read-time and
//! build-time errors. Also an elliptic cam turning at constant speed
//! against a flat-faced follower: a kinematic analysis against the exact
//! lift (the ellipse's support function) and its rate.

mod common;

use common::curves::matrix;
use mbsolve_mech::rotation::g_mat;
use mbsolve_model::*;
use mbsolve_solver::Simulation;
use nalgebra::{Vector3, Vector4};
use std::f64::consts::PI;

const G: f64 = 9.81;
const TRACK: f64 = 1.5;
const DISC: f64 = 0.5;

/// The track and disc circles through 96 points: the interpolating cubics
/// depart from the circles by about 2.4e-7 of the radius.
fn circle(r: f64) -> Vec<Vector3<f64>> {
    common::curves::circle(r, 96)
}

/// Ground (JRM marker 11 at the origin, track CURVE/2), the disc PART/2
/// (mass 2, Izz 0.25; CM marker 20 = IRM marker 21 at its centre, disc
/// CURVE/1) with its centre at `centre`, JPRIM/1 PARALLEL_AXES keeping the
/// disc in the plane's orientation (CVCV itself leaves the tilts free),
/// CVCV/1.
fn disc_in_track(centre: Vector3<f64>) -> Model {
    let mut m = Model::new("cvcv");
    m.gravity = Vector3::new(0.0, -G, 0.0);
    m.parts.push(Part::ground(1));
    let mut b = Part::body(
        2,
        2.0,
        Inertia::diagonal(0.2, 0.2, 0.25),
        Placement::at(centre.x, centre.y, centre.z),
    );
    b.cm = Some(20);
    m.parts.push(b);
    for (id, part) in [(20, 2), (21, 2), (11, 1)] {
        m.markers.push(Marker {
            id,
            part,
            placement: Placement::default(),
        });
    }
    m.matrices.push(matrix(1, &circle(DISC)));
    m.matrices.push(matrix(2, &circle(TRACK)));
    for id in [1, 2] {
        m.curves.push(Curve {
            id,
            matrix: id,
            curve_points: true,
            order: 4,
            closed: true,
        });
    }
    m.jprims.push(Jprim {
        id: 1,
        kind: JprimKind::ParallelAxes,
        i: 21,
        j: 11,
    });
    m.cvcvs.push(Cvcv {
        id: 1,
        icurve: 1,
        irm: 21,
        ifloat: 98,
        ifloat_part: 2,
        jcurve: 2,
        jrm: 11,
        jfloat: 99,
        jfloat_part: 1,
    });
    m
}

fn with(kind: IntegratorKind, formulation: Option<Formulation>, error: f64) -> IntegratorSettings {
    IntegratorSettings {
        kind,
        formulation,
        error: Some(error),
        ..Default::default()
    }
}

/// Released at rest θ0 = 0.8 rad from the bottom: (relative period error,
/// relative energy drift). Also asserts the centre stays at L from the
/// track's centre, the disc does not spin, and |Φ| stays small.
fn swing(settings: IntegratorSettings) -> (f64, f64) {
    let (l, th0): (f64, f64) = (TRACK - DISC, 0.8);
    let m = disc_in_track(Vector3::new(l * th0.sin(), -l * th0.cos(), 0.0));
    let exact = 4.0 * (l / G).sqrt() * common::ellip_k((0.5 * th0).sin());
    let mut sim = Simulation::new(&m).unwrap();
    sim.dynamic(3.0, Some(3000), None, &settings).unwrap();
    let mass = 2.0;
    let e0 = -mass * G * l * th0.cos();
    let (mut worst_e, mut worst_l, mut worst_spin, mut worst_phi) =
        (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for f in &sim.frames {
        let v2 = f.u[0].powi(2) + f.u[1].powi(2) + f.u[2].powi(2);
        // Body angular velocity ω' = 2 G(p) ṗ (u holds ṙ and ṗ).
        let p = Vector4::new(f.q[3], f.q[4], f.q[5], f.q[6]);
        let w = 2.0 * g_mat(&p) * Vector4::new(f.u[3], f.u[4], f.u[5], f.u[6]);
        let w2 = 0.2 * (w.x.powi(2) + w.y.powi(2)) + 0.25 * w.z.powi(2);
        let e = 0.5 * mass * v2 + 0.5 * w2 + mass * G * f.q[1];
        worst_e = worst_e.max((e - e0).abs());
        worst_l = worst_l.max((Vector3::new(f.q[0], f.q[1], f.q[2]).norm() - l).abs());
        worst_spin = worst_spin.max(w.norm());
        worst_phi = worst_phi.max(common::max_phi(&sim, f));
    }
    let period = common::mean_period(&sim.frames);
    println!(
        "{:?}/{:?}: period {period:.7} vs {exact:.7}, |ΔE| {worst_e:.2e} J, |d − L| {worst_l:.2e} m, |ω| {worst_spin:.1e}, |Φ| {worst_phi:.1e}",
        settings.kind, settings.formulation
    );
    // The two interpolated circles are each within ≈ 2.4e-7·r of the true
    // ones: the centre distance within 1e-6 of L.
    assert!(
        worst_l < 1e-6,
        "the centre left the circle of radius L by {worst_l}"
    );
    assert!(worst_spin < 1e-5, "the disc turns: |ω| = {worst_spin}");
    assert!(worst_phi < 1e-7, "CVCV residual {worst_phi}");
    ((period - exact).abs() / exact, worst_e / e0.abs())
}

#[test]
fn disc_in_a_circular_track_swings_with_the_pendulum_period() {
    for settings in [
        with(IntegratorKind::Gstiff, None, 1e-7),
        with(IntegratorKind::Gstiff, Some(Formulation::Si2), 1e-7),
        with(IntegratorKind::Hastiff, Some(Formulation::Si1), 1e-7),
        with(IntegratorKind::Hht, None, 1e-7),
        with(IntegratorKind::Abam, None, 1e-7),
    ] {
        let (dt, de) = swing(settings);
        assert!(dt < 2e-6, "period error {dt}");
        assert!(de < 1e-5, "energy error {de}");
    }
}

/// Placed 0.02 m short of contact (the centre at 0.98 from the track's
/// centre, straight below it): the initial-conditions analysis closes the
/// gap along the normal, and the disc rests at the bottom in static
/// equilibrium.
#[test]
fn a_gap_at_the_input_configuration_is_closed_by_assembly() {
    let m = disc_in_track(Vector3::new(0.0, -0.98, 0.0));
    let mut sim = Simulation::new(&m).unwrap();
    sim.static_equilibrium(&StaticSettings::default()).unwrap();
    let f = sim.frames.last().unwrap();
    println!("assembled centre ({:.3e}, {:.12})", f.q[0], f.q[1]);
    assert!(f.q[0].abs() < 1e-8, "x = {}", f.q[0]);
    assert!((f.q[1] + (TRACK - DISC)).abs() < 1e-6, "y = {}", f.q[1]);
    assert!(common::max_phi(&sim, f) < 1e-9);
}

fn model_error(m: &Model) -> String {
    match Simulation::new(m) {
        Ok(_) => panic!("the model was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_cvcv_data_is_refused_with_the_reason() {
    let centre = Vector3::new(0.0, -1.0, 0.0);
    // The disc curve leaves its RM marker's x-y plane.
    let mut m = disc_in_track(centre);
    let mut lifted = circle(DISC);
    for p in lifted.iter_mut() {
        p.z = 0.1 * p.x;
    }
    m.matrices[0] = matrix(1, &lifted);
    let e = model_error(&m);
    assert!(
        e.contains("ICURVE/1 leaves the x-y plane of its RM marker 21"),
        "{e}"
    );
    // IFLOAT on the track's part, not the disc's.
    let mut m = disc_in_track(centre);
    m.cvcvs[0].ifloat_part = 1;
    let e = model_error(&m);
    assert!(
        e.contains("the IFLOAT marker 98 is on PART/1; it must be on PART/2 of the IRM marker 21"),
        "{e}"
    );
    // Both curves on one part.
    let mut m = disc_in_track(centre);
    m.cvcvs[0].jrm = 20;
    m.cvcvs[0].jfloat_part = 2;
    let e = model_error(&m);
    assert!(e.contains("are on the same part (PART/2)"), "{e}");
    // Two straight slots crossing at 45°: no pair of points with parallel
    // tangents, so no contact point.
    let mut m = disc_in_track(centre);
    let line = |dir: Vector3<f64>| -> Vec<Vector3<f64>> {
        (0..4).map(|k| dir * (k as f64 - 1.5)).collect()
    };
    m.matrices[0] = matrix(1, &line(Vector3::new(1.0, 0.0, 0.0)));
    m.matrices[1] = matrix(2, &line(Vector3::new(1.0, 1.0, 0.0)));
    for c in m.curves.iter_mut() {
        c.closed = false;
        c.order = 2;
    }
    let e = model_error(&m);
    assert!(e.contains("CVCV/1"), "{e}");
    assert!(
        e.contains("have no regular contact point near their closest points"),
        "{e}"
    );
}

/// An elliptic cam (semi-axes 0.6 and 0.4, PART/2 on a REVOLUTE joint
/// turned at ω = 3 rad/s by a MOTION) lifts a flat-faced follower
/// (PART/3: JPRIM ORIENTATION and INPLANE leave it the y translation; its
/// face is a straight ORDER = 2 curve along its x axis). CVCV holds the
/// face on the cam: zero DOF. The face touches the cam at the ellipse's
/// support point in the y direction, so the exact lift is
/// h(θ) = √(a² sin²θ + b² cos²θ), ḣ = (a² − b²) sin θ cos θ ω / h. The
/// 96-point interpolated ellipse departs from the exact one by ≈ 1e-7.
#[test]
fn elliptic_cam_lifts_a_flat_follower_by_its_support_function() {
    let (a, b, omega) = (0.6f64, 0.4f64, 3.0f64);
    let mut m = Model::new("cam");
    m.parts.push(Part::ground(1));
    for (id, y) in [(2, 0.0), (3, b)] {
        m.parts.push(Part::body(
            id,
            1.0,
            Inertia::diagonal(0.1, 0.1, 0.1),
            Placement::at(0.0, y, 0.0),
        ));
    }
    // Marker 13's z axis along global x: its x-y plane is the y-z plane.
    let along_x = Placement::default().with_euler313(0.5 * PI, 0.5 * PI, 0.0);
    for (id, part, placement) in [
        (10, 1, Placement::default()),
        (12, 1, Placement::default()),
        (13, 1, along_x),
        (21, 2, Placement::default()),
        (31, 3, Placement::default()),
        (32, 3, Placement::default()),
    ] {
        m.markers.push(Marker {
            id,
            part,
            placement,
        });
    }
    m.joints.push(Joint {
        id: 1,
        kind: JointKind::Revolute,
        i: 21,
        j: 10,
    });
    m.motions.push(Motion::on_joint(
        1,
        1,
        MotionDof::Rotation,
        std::sync::Arc::new(TimeFn(move |t: f64| [omega * t, omega, 0.0])),
    ));
    for (id, kind, j) in [(1, JprimKind::Orientation, 12), (2, JprimKind::Inplane, 13)] {
        m.jprims.push(Jprim { id, kind, i: 31, j });
    }
    let ellipse: Vec<Vector3<f64>> = (0..=96)
        .map(|k| {
            let s = 2.0 * PI * k as f64 / 96.0;
            Vector3::new(a * s.cos(), b * s.sin(), 0.0)
        })
        .collect();
    let face: Vec<Vector3<f64>> = (0..4)
        .map(|k| Vector3::new(k as f64 - 1.5, 0.0, 0.0))
        .collect();
    m.matrices.push(matrix(1, &face));
    m.matrices.push(matrix(2, &ellipse));
    for (id, order, closed) in [(1, 2, false), (2, 4, true)] {
        m.curves.push(Curve {
            id,
            matrix: id,
            curve_points: true,
            order,
            closed,
        });
    }
    m.cvcvs.push(Cvcv {
        id: 1,
        icurve: 1,
        irm: 32,
        ifloat: 98,
        ifloat_part: 3,
        jcurve: 2,
        jrm: 21,
        jfloat: 99,
        jfloat_part: 2,
    });
    let mut sim = Simulation::new(&m).unwrap();
    sim.kinematic(2.0, Some(200), None).unwrap();
    let (mut worst_h, mut worst_v) = (0.0f64, 0.0f64);
    for f in &sim.frames {
        let th = omega * f.t;
        let h = (a * a * th.sin().powi(2) + b * b * th.cos().powi(2)).sqrt();
        let v = (a * a - b * b) * th.sin() * th.cos() * omega / h;
        worst_h = worst_h.max((f.q[8] - h).abs());
        worst_v = worst_v.max((f.u[8] - v).abs());
    }
    println!(
        "cam: {} frames to t = {}, worst |lift − h| {worst_h:.2e} m, |rate − ḣ| {worst_v:.2e} m/s",
        sim.frames.len(),
        sim.frames.last().unwrap().t
    );
    assert!(sim.frames.last().unwrap().t > 1.999);
    assert!(worst_h < 1e-6, "lift error {worst_h}");
    assert!(worst_v < 1e-5, "lift-rate error {worst_v}");
}
