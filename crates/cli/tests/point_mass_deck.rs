//! POINT_MASS in an Adams dataset: read with its own id space (POINT_MASS/1
//! beside PART/1), markers on it (MARKER/id, POINT_MASS = id), run, written
//! back by `write_adm`, refused by name by `write_xml`, and rotational
//! elements on it refused with the file and line.

mod common;

const SPRING: &str = "point mass on a spring
UNITS/FORCE = NEWTON, MASS = KILOGRAM, LENGTH = METER, TIME = SECOND
PART/1, GROUND
MARKER/10, PART = 1
POINT_MASS/1, MASS = 2, CM = 20, QG = 1.3, 0, 0, REULER = 90D, 0, 0
MARKER/20, POINT_MASS = 1
{extra}
SPRINGDAMPER/1, TRANSLATIONAL, I = 20, J = 10, K = 50, C = 0, LENGTH = 1
END
";

fn deck(extra: &str) -> String {
    SPRING.replace("{extra}", extra)
}

/// x(t) = 1 + 0.3 cos(√(k/m) t) with k = 50 N/m, m = 2 kg: the point mass
/// oscillates along the spring with the closed-form motion (1e-5 m at
/// ERROR 1e-7), with three degrees of freedom; its REULER orientation is
/// held (it turns the CM frame, not the motion).
#[test]
fn a_point_mass_deck_runs_the_closed_form_oscillation() {
    let acf = "t.adm\nt\nINTEGRATOR/GSTIFF, ERROR = 1E-7\nSIMULATE/DYNAMIC, END = 2, STEPS = 200\n";
    let (sim, r) = common::run_in_process(&deck(""), acf);
    r.unwrap();
    assert_eq!(sim.sys.dof(&sim.data), 3);
    let omega = (50.0f64 / 2.0).sqrt();
    let mut worst = 0.0f64;
    for f in &sim.frames {
        let want = 1.0 + 0.3 * (omega * f.t).cos();
        worst = worst.max((f.q[0] - want).abs() + f.q[1].abs() + f.q[2].abs());
    }
    assert!(sim.frames.last().unwrap().t > 1.999);
    assert!(worst < 1e-5, "{worst}");
}

/// `write_adm` writes the POINT_MASS statement and its markers; reading
/// that back gives the same bodies and markers. `write_xml` refuses it.
#[test]
fn write_adm_round_trips_a_point_mass_and_write_xml_refuses_it() {
    let model = mbsolve_adm::read_adm_str(
        &deck("PART/2, MASS = 1, CM = 30, IP = 1, 1, 1\nMARKER/30, PART = 2, QP = 0, 3, 0"),
        "t.adm",
    )
    .unwrap();
    let text = mbsolve_adm::write_adm(&model).unwrap();
    assert!(text.contains("POINT_MASS/1, MASS = 2, QG = "), "{text}");
    assert!(text.contains("MARKER/20, POINT_MASS = 1,"), "{text}");
    assert!(text.contains("MARKER/30, PART = 2,"), "{text}");
    let back = mbsolve_adm::read_adm_str(&text, "w.adm").unwrap();
    assert_eq!(back.parts.len(), 3);
    for (a, b) in model.parts.iter().zip(&back.parts) {
        assert_eq!((a.id, a.mass, a.cm, &a.name), (b.id, b.mass, b.cm, &b.name));
        assert!((a.placement.origin - b.placement.origin).norm() < 1e-12);
        assert!((a.placement.rotation - b.placement.rotation).norm() < 1e-12);
    }
    for (a, b) in model.markers.iter().zip(&back.markers) {
        assert_eq!((a.id, a.part), (b.id, b.part));
    }
    assert_eq!(
        mbsolve_msxml::write_xml(&model).unwrap_err(),
        "POINT_MASS/1: a point mass has no verified MotionSolve XML form here (Body_Point's attributes are not in the grammar)"
    );
}

/// The tail of every refusal of a rotational element on POINT_MASS/1.
const NO_ROTATION: &str = "acts on POINT_MASS/1, which has no rotational degrees of freedom (Adams POINT_MASS): on a point mass use a SPHERICAL joint, an ATPOINT, INLINE or INPLANE JPRIM, an X, Y or Z marker MOTION, and a translational SFORCE or SPRINGDAMPER, a VFORCE or gravity";

/// The model check of a deck with `extra`: its error, or None.
fn model_error(extra: &str) -> Option<String> {
    let model = mbsolve_adm::read_adm_str(&deck(extra), "t.adm").unwrap();
    mbsolve_solver::analysis::Simulation::new(&model)
        .err()
        .map(|e| e.to_string())
}

/// Rotational joints, primitives, motions and loads on a point mass are
/// refused at model build naming the element (with its file and line) and
/// the point mass; the translational ones Adams allows are taken.
#[test]
fn rotational_elements_on_a_point_mass_are_refused_by_name() {
    for (extra, what) in [
        (
            "JOINT/4, REVOLUTE, I = 20, J = 10",
            "JOINT/4 (t.adm:7): a REVOLUTE joint",
        ),
        (
            "JOINT/4, FIXED, I = 10, J = 20",
            "JOINT/4 (t.adm:7): a FIXED joint",
        ),
        (
            "JPRIM/5, ORIENTATION, I = 20, J = 10",
            "JPRIM/5 (t.adm:7): an ORIENTATION primitive",
        ),
        (
            "MOTION/6, I = 20, J = 10, B3, FUNCTION = TIME",
            "MOTION/6 (t.adm:7): a rotational motion (B3)",
        ),
        (
            "SFORCE/7, ROTATIONAL, I = 20, J = 10, FUNCTION = 1",
            "SFORCE/7 (t.adm:7): this force",
        ),
        (
            "MARKER/11, PART = 1, FLOATING\nVTORQUE/8, I = 20, JFLOAT = 11, RM = 10, TZ = 1",
            "VTORQUE/8 (t.adm:8): this force",
        ),
    ] {
        assert_eq!(
            model_error(extra),
            Some(format!("{what} {NO_ROTATION}")),
            "{extra}"
        );
    }
    for extra in [
        "JOINT/4, SPHERICAL, I = 20, J = 10",
        "JPRIM/5, INPLANE, I = 20, J = 10",
        "MOTION/6, I = 20, J = 10, Z, FUNCTION = 0",
        "MARKER/11, PART = 1, FLOATING\nVFORCE/8, I = 20, JFLOAT = 11, RM = 10, FX = 1",
    ] {
        assert_eq!(model_error(extra), None, "{extra}");
    }
}

/// An unknown point mass on a marker, a second POINT_MASS/1 (PART/1 beside
/// it is no duplicate) and a marker on both a PART and a POINT_MASS are
/// read errors.
#[test]
fn deck_errors_name_the_point_mass() {
    let e = mbsolve_adm::read_adm_str(&deck("MARKER/21, POINT_MASS = 9"), "t.adm").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.adm:7:25: MARKER/21: POINT_MASS 9 does not exist"
    );
    let e = mbsolve_adm::read_adm_str(&deck("POINT_MASS/1, MASS = 1"), "t.adm").unwrap_err();
    assert!(
        e.to_string()
            .contains("duplicate id: POINT_MASS/1 is already defined at t.adm:5"),
        "{e}"
    );
    let e = mbsolve_adm::read_adm_str(&deck("MARKER/21, POINT_MASS = 1, PART = 1"), "t.adm")
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("a marker is on a PART or on a POINT_MASS, not on both"),
        "{e}"
    );
}

/// `check` counts PARTs on the parts line (ground and PART/2: two, one
/// moving) and the point mass on its own line only, once.
#[test]
fn check_lists_the_point_masses() {
    let d = common::scratch("point-mass", "check");
    let path = d.join("pm.adm");
    let extra = "PART/2, MASS = 1, CM = 30, IP = 1, 1, 1\nMARKER/30, PART = 2, QP = 0, 3, 0";
    std::fs::write(&path, deck(extra)).unwrap();
    let o = common::mbsolve(&["check", path.to_str().unwrap()]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let line =
        |start: &str| -> Vec<&str> { out.lines().filter(|l| l.starts_with(start)).collect() };
    let parts = line("parts: ");
    assert_eq!(parts.len(), 1, "{out}");
    assert!(
        parts[0].starts_with("parts: 2 (1 moving), markers: 3,"),
        "{out}"
    );
    assert_eq!(line("point masses"), ["point masses: 1"], "{out}");
}

/// A joint, primitive or motion between two markers of one point mass is
/// refused naming the point mass, not its internal part key.
#[test]
fn elements_within_one_point_mass_name_it() {
    for (extra, want) in [
        (
            "MARKER/21, POINT_MASS = 1\nJOINT/4, SPHERICAL, I = 20, J = 21",
            "SPHERICAL joint connects markers 20 and 21 of the same part POINT_MASS/1",
        ),
        (
            "MARKER/21, POINT_MASS = 1\nJPRIM/5, INPLANE, I = 20, J = 21",
            "INPLANE primitive connects markers 20 and 21 of the same part POINT_MASS/1",
        ),
        (
            "MARKER/21, POINT_MASS = 1\nMOTION/6, I = 20, J = 21, Z, FUNCTION = 0",
            "motion between markers 20 and 21 of the same part POINT_MASS/1",
        ),
    ] {
        let message = match mbsolve_adm::read_adm_str(&deck(extra), "t.adm") {
            Err(e) => e.to_string(),
            Ok(model) => mbsolve_solver::analysis::Simulation::new(&model)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default(),
        };
        assert!(message.contains(want), "{extra}: {message}");
    }
}
