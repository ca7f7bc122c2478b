//! Request functions GFORCE(), VFORCE(), VTORQ(), PTCV() and CVCV()
//! (FRICTION(): crates/cli/tests/friction.rs) through the whole chain (`.adm` → reader → solver → REQUEST
//! columns of the CSV), each against a closed form with a stated tolerance.

mod common;

fn col(h: &[String], name: &str) -> usize {
    h.iter()
        .position(|c| c == name)
        .unwrap_or_else(|| panic!("no column {name} in {h:?}"))
}

/// Units, no gravity, ground PART/1 with MARKER/10 at the origin.
const ZERO_G: &str = "UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
    ACCGRAV/IGRAV = 0, JGRAV = 0, KGRAV = 0\n\
    PART/1, GROUND\n\
    MARKER/10, PART = 1\n";

/// Runs `adm` with GSTIFF at `error` to `end` (DTOUT 0.05).
fn run(name: &str, adm: &str, end: f64, error: f64) -> (Vec<String>, Vec<Vec<f64>>) {
    let d = common::scratch("vcf-results", name);
    let (h, rows, _) = common::run_deck(
        &d,
        name,
        adm,
        &format!(
            "integrator/gstiff, error = {error}\nsimulate/dynamic, end = {end}, dtout = 0.05\nstop\n"
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(rows.len(), (end / 0.05).round() as usize + 1);
    (h, rows)
}

/// A crank turned by a MOTION (θ = 0.5 t + 0.2 t², zero DOF) carries the
/// I markers; the JFLOAT markers are on a second part held by a FIXED
/// joint. GFORCE/1 has components (2t, −1, 3) N and (0.5, −0.2, 0.4t) N·m
/// in ground axes; VFORCE/2 (1, 2t, 0) N and VTORQ/3 (0, 0, 1.5 − t) N·m
/// in the crank's axes (RM = 22, turning with θ).
///
/// Closed forms: at I (jflag 0) the applied force and torque themselves;
/// at JFLOAT (jflag 1, superimposed on I) their negatives; a vector force
/// has no moment about its own point of application, so VFORCE's torque
/// components vanish, as do VTORQ's force components; with rm = 22 the
/// ground vectors are seen in the crank's turning axes.
#[test]
fn vector_force_results_are_the_applied_components() {
    let adm = &format!(
        "vector force results\n{ZERO_G}\
        PART/2, MASS = 2, CM = 21, IP = 2, 2, 3\n\
        MARKER/21, PART = 2\n\
        MARKER/22, PART = 2, QP = 0.4, 0, 0.3\n\
        JOINT/1, REVOLUTE, I = 21, J = 10\n\
        MOTION/1, JOINT = 1, ROTATION, FUNCTION = 0.5*TIME + 0.2*TIME**2\n\
        PART/3, MASS = 1, CM = 30, IP = 1, 1, 1, QG = 2, 0, 0\n\
        MARKER/30, PART = 3\n\
        MARKER/31, PART = 3, FLOATING\n\
        JOINT/2, FIXED, I = 30, J = 10\n\
        GFORCE/1, I = 22, JFLOAT = 31, RM = 10, FX = 2*TIME\\FY = -1\\FZ = 3\\TX = 0.5\\TY = -0.2\\TZ = 0.4*TIME\n\
        VFORCE/2, I = 22, JFLOAT = 31, RM = 22, FX = 1\\FY = 2*TIME\\FZ = 0\n\
        VTORQUE/3, I = 22, JFLOAT = 31, RM = 22, TX = 0\\TY = 0\\TZ = 1.5 - TIME\n\
        REQUEST/1, F1 = GFORCE(1,0,2,10)\\F2 = GFORCE(1,0,3,10)\\F3 = GFORCE(1,0,4,10)\
        \\F4 = GFORCE(1,0,6,10)\\F5 = GFORCE(1,0,7,10)\\F6 = GFORCE(1,0,8,10)\\F7 = GFORCE(1,0,1,10)\\F8 = GFORCE(1,0,5,10)\n\
        REQUEST/2, F1 = GFORCE(1,1,2,10)\\F2 = GFORCE(1,1,3,10)\\F3 = GFORCE(1,1,4,10)\
        \\F4 = GFORCE(1,1,6,10)\\F5 = GFORCE(1,1,7,10)\\F6 = GFORCE(1,1,8,10)\\F7 = GFORCE(1,0,2,22)\\F8 = GFORCE(1,0,3,22)\n\
        REQUEST/3, F1 = VFORCE(2,0,2,22)\\F2 = VFORCE(2,0,3,22)\\F3 = VFORCE(2,0,2,10)\
        \\F4 = VFORCE(2,1,3,10)\\F5 = VFORCE(2,0,5,10)\\F6 = VFORCE(2,1,5,10)\\F7 = VTORQ(3,0,8,10)\\F8 = VTORQ(3,1,1,10)\n\
        END\n"
    );
    let (h, rows) = run("vector", adm, 1.0, 1e-7);
    let c = |r: &Vec<f64>, req: u32, f: u32| r[col(&h, &format!("request_{req}.f{f}"))];
    let mut worst = 0.0f64;
    for r in &rows {
        let t = r[0];
        let th = 0.5 * t + 0.2 * t * t;
        let (cs, sn) = (th.cos(), th.sin());
        let (fx, fy, fz) = (2.0 * t, -1.0, 3.0);
        let (tx, ty, tz) = (0.5, -0.2, 0.4 * t);
        // VFORCE (1, 2t, 0) in the crank's axes, seen in ground.
        let (vx, vy) = (cs - sn * 2.0 * t, sn + cs * 2.0 * t);
        let expected = [
            (c(r, 1, 1), fx),
            (c(r, 1, 2), fy),
            (c(r, 1, 3), fz),
            (c(r, 1, 4), tx),
            (c(r, 1, 5), ty),
            (c(r, 1, 6), tz),
            (c(r, 1, 7), (fx * fx + fy * fy + fz * fz).sqrt()),
            (c(r, 1, 8), (tx * tx + ty * ty + tz * tz).sqrt()),
            (c(r, 2, 1), -fx),
            (c(r, 2, 2), -fy),
            (c(r, 2, 3), -fz),
            (c(r, 2, 4), -tx),
            (c(r, 2, 5), -ty),
            (c(r, 2, 6), -tz),
            // Ground force seen in the crank's axes (turned by θ about z).
            (c(r, 2, 7), cs * fx + sn * fy),
            (c(r, 2, 8), -sn * fx + cs * fy),
            (c(r, 3, 1), 1.0),
            (c(r, 3, 2), 2.0 * t),
            (c(r, 3, 3), vx),
            (c(r, 3, 4), -vy),
            (c(r, 3, 5), 0.0),
            (c(r, 3, 6), 0.0),
            (c(r, 3, 7), 1.5 - t),
            (c(r, 3, 8), 0.0),
        ];
        for (k, (got, want)) in expected.iter().enumerate() {
            let e = (got - want).abs();
            assert!(e < 1e-9, "t = {t}: entry {k}: {got} vs {want}");
            worst = worst.max(e);
        }
    }
    println!("vector force results: worst error {worst:.1e}");
}

/// `count` + 1 points of a closed circle of radius `rad` about the origin
/// in the x-y plane, as MATRIX values (x, y, 0 per row).
fn circle(rad: f64, count: usize) -> String {
    (0..=count)
        .map(|k| {
            let th = std::f64::consts::TAU * k as f64 / count as f64;
            format!("{:.17}, {:.17}, 0", rad * th.cos(), rad * th.sin())
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A deck with gravity −y, ground marker 11 (the curves' frame) and
/// floating marker 12, then `body`; REQUEST/1 reads part 2's CM marker 20
/// (ACCX, ACCY, VX, VY) and the constraint's result `name`(1, jflag, comp,
/// 11) at 20 (jflag 0: 2, 3, 4, 5), REQUEST/2 its reaction (jflag 1: 2, 3,
/// 5) and the magnitude at I (jflag 0, 1).
fn curve_deck(name: &str, body: &str) -> String {
    format!(
        "{name} reaction\n\
        UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND\n\
        ACCGRAV/JGRAV = -9.81\n\
        PART/1, GROUND\n\
        MARKER/11, PART = 1\n\
        MARKER/12, PART = 1, FLOATING\n\
        {body}\
        REQUEST/1, F1 = ACCX(20,11)\\F2 = ACCY(20,11)\\F3 = VX(20,11)\\F4 = VY(20,11)\
        \\F5 = {name}(1,0,2,11)\\F6 = {name}(1,0,3,11)\\F7 = {name}(1,0,4,11)\\F8 = {name}(1,0,5,11)\n\
        REQUEST/2, F1 = {name}(1,1,2,11)\\F2 = {name}(1,1,3,11)\\F3 = {name}(1,1,5,11)\\F4 = {name}(1,0,1,11)\n\
        END\n"
    )
}

/// Runs a `curve_deck` of a part of mass `m` whose only other force is
/// gravity and checks the constraint's force on it against Newton's law,
/// F = m (a − g) (a read by ACCX/ACCY in the same request, so exact
/// whatever the integration error): no work (F·v = 0), no out-of-plane
/// part, no moment about the contact point; the other side (jflag 1, the
/// JFLOAT at the contact point) takes −F. Returns the worst error and the
/// largest |F|.
fn reaction_obeys_newton(name: &str, adm: &str, m: f64) -> (f64, f64) {
    let (h, rows) = run(name, adm, 1.0, 1e-8);
    let c = |r: &Vec<f64>, req: u32, f: u32| r[col(&h, &format!("request_{req}.f{f}"))];
    let g = 9.81;
    let (mut worst, mut peak) = (0.0f64, 0.0f64);
    for row in &rows {
        let (ax, ay, vx, vy) = (c(row, 1, 1), c(row, 1, 2), c(row, 1, 3), c(row, 1, 4));
        let (fx, fy) = (m * ax, m * (ay + g));
        let normal = fx.hypot(fy);
        peak = peak.max(normal);
        let power = c(row, 1, 5) * vx + c(row, 1, 6) * vy;
        assert!(power.abs() < 1e-6, "t = {}: F·v = {power}", row[0]);
        let expected = [
            (c(row, 1, 5), fx),
            (c(row, 1, 6), fy),
            (c(row, 1, 7), 0.0),
            (c(row, 1, 8), 0.0),
            (c(row, 2, 1), -fx),
            (c(row, 2, 2), -fy),
            (c(row, 2, 3), 0.0),
            (c(row, 2, 4), normal),
        ];
        for (k, (got, want)) in expected.iter().enumerate() {
            let e = (got - want).abs();
            worst = worst.max(e);
            assert!(
                e < 1e-9,
                "{name} t = {}: entry {k}: {got} vs {want}",
                row[0]
            );
        }
    }
    (worst, peak)
}

/// A bead (1 kg, CM on the I marker) on a frictionless circular wire of
/// radius 0.5 in the ground x-y plane (PTCV), released at 0.7 rad from the
/// bottom: the wire's force obeys `reaction_obeys_newton`. (A closed form
/// in the radius, F·p̂ = −m v²/r + m g y/r, misses by 1e-4 relative: the
/// bead follows the interpolating cubic, whose curvature is not exactly
/// 1/r.)
#[test]
fn ptcv_reaction_obeys_newtons_law() {
    let a0 = 0.7f64;
    let body = format!(
        "PART/2, MASS = 1, CM = 20, IP = 1e-3, 1e-3, 1e-3, QG = {x0}, {y0}, 0\n\
        MARKER/20, PART = 2\n\
        PTCV/1, I = 20, JFLOAT = 12, CURVE = 1, RM = 11\n\
        CURVE/1, CLOSED, MATRIX = 1, CURVE_POINTS\n\
        MATRIX/1, FULL = RORDER, ROWS = 97, COLUMNS = 3, VALUES = {values}\n",
        x0 = 0.5 * a0.sin(),
        y0 = -0.5 * a0.cos(),
        values = circle(0.5, 96)
    );
    let (worst, peak) = reaction_obeys_newton("PTCV", &curve_deck("PTCV", &body), 1.0);
    println!("PTCV reaction: worst error {worst:.1e} N of {peak:.2} N");
}

/// A disc of radius 0.5 slides (frictionless) inside a circular track of
/// radius 1.5 in the ground x-y plane (CVCV), released with its centre at
/// 0.8 rad (solver/tests/cvcv.rs's model, JPRIM PARALLEL_AXES keeping the
/// disc in its plane, which transmits only torques): the track's force on
/// the disc obeys `reaction_obeys_newton`.
#[test]
fn cvcv_reaction_obeys_newtons_law() {
    let a0 = 0.8f64;
    let body = format!(
        "PART/2, MASS = 2, CM = 20, IP = 1, 1, 0.25, QG = {x0}, {y0}, 0\n\
        MARKER/20, PART = 2\n\
        MARKER/21, PART = 2, FLOATING\n\
        JPRIM/1, PARALLEL_AXES, I = 20, J = 11\n\
        CVCV/1, IFLOAT = 21, ICURVE = 1, IRM = 20, JFLOAT = 12, JCURVE = 2, JRM = 11\n\
        CURVE/1, CLOSED, MATRIX = 1, CURVE_POINTS\n\
        CURVE/2, CLOSED, MATRIX = 2, CURVE_POINTS\n\
        MATRIX/1, FULL = RORDER, ROWS = 97, COLUMNS = 3, VALUES = {ci}\n\
        MATRIX/2, FULL = RORDER, ROWS = 97, COLUMNS = 3, VALUES = {cj}\n",
        x0 = a0.sin(),
        y0 = -a0.cos(),
        ci = circle(0.5, 96),
        cj = circle(1.5, 96),
    );
    let (worst, peak) = reaction_obeys_newton("CVCV", &curve_deck("CVCV", &body), 2.0);
    println!("CVCV reaction: worst error {worst:.1e} N of {peak:.2} N");
}

/// A bead (m = 1) in a viscous fluid that turns with a turntable (Ω = 2
/// rad/s about ground z, a MOTION on a revolute): a VFORCE drags it by
/// −c times its velocity relative to the table, measured in the table's
/// frame, FX = −c·VX(30, 20, 0, 20), FY = −c·VY(30, 20, 0, 20) (marker 20
/// on the table's axis). In ground, with z = x + i y (no gravity, the bead
/// stays in the plane): m z̈ = −c (ż − iΩ z), so z = A e^(λ₁t) + B e^(λ₂t)
/// with λ² + (c/m) λ − i cΩ/m = 0, A + B = z₀, λ₁A + λ₂B = ż₀.
#[test]
fn drag_in_a_rotating_frame_follows_the_closed_form() {
    use nalgebra::Complex;
    let (m, c, w) = (1.0, 0.8, 2.0);
    let adm = &format!(
        "rotating drag\n{ZERO_G}\
        PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
        MARKER/20, PART = 2\n\
        MARKER/21, PART = 2, FLOATING\n\
        JOINT/1, REVOLUTE, I = 20, J = 10\n\
        MOTION/1, JOINT = 1, ROTATION, FUNCTION = 2*TIME\n\
        PART/3, MASS = 1, CM = 30, IP = 0.1, 0.1, 0.1, QG = 0.5, 0, 0, VY = 0.3\n\
        MARKER/30, PART = 3\n\
        VFORCE/1, I = 30, JFLOAT = 21, RM = 10, FX = -0.8*VX(30, 20, 0, 20)\\FY = -0.8*VY(30, 20, 0, 20)\\FZ = 0\n\
        REQUEST/1, F1 = DX(30, 10)\\F2 = DY(30, 10)\\F3 = DZ(30, 10)\n\
        END\n"
    );
    let (h, rows) = run("rotating-drag", adm, 3.0, 1e-9);
    let (z0, zd0) = (Complex::new(0.5, 0.0), Complex::new(0.0, 0.3));
    let (b, k) = (Complex::new(c / m, 0.0), Complex::new(0.0, c * w / m));
    let root = (b * b + k * 4.0).sqrt();
    let (l1, l2) = ((-b + root) / 2.0, (-b - root) / 2.0);
    let a = (zd0 - l2 * z0) / (l1 - l2);
    let bb = z0 - a;
    let mut worst = 0.0f64;
    for r in &rows {
        let t = Complex::new(r[0], 0.0);
        let z = a * (l1 * t).exp() + bb * (l2 * t).exp();
        let (x, y, zc) = (
            r[col(&h, "request_1.f1")],
            r[col(&h, "request_1.f2")],
            r[col(&h, "request_1.f3")],
        );
        let e = (x - z.re).abs().max((y - z.im).abs()).max(zc.abs());
        worst = worst.max(e);
        assert!(
            e < 1e-6,
            "t = {}: ({x}, {y}, {zc}) vs ({}, {})",
            r[0],
            z.re,
            z.im
        );
    }
    println!("bead in the rotating fluid: worst position error {worst:.1e} m");
}
