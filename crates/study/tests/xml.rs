//! Studies on MotionSolve decks: changes set attributes of `<Model>`
//! elements by type and id in the deck text; the deck's own commands and
//! Param_Transient (DSTIFF) run.

use mbsolve_study::{load, run, Change, Source};

fn pendulum() -> Source {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/pendulum.xml");
    Source {
        adm: std::fs::read_to_string(path).unwrap(),
        adm_name: "pendulum.xml".into(),
        acf: None,
        acf_name: String::new(),
    }
}

fn ch(e: &str, a: &str, v: &str) -> Change {
    Change::new(e, a, v).unwrap()
}

fn column(out: &mbsolve_study::RunOutcome, name: &str) -> Vec<f64> {
    let n = out.header.len();
    let k = out.header.iter().position(|h| h == name).unwrap();
    out.data.chunks(n).map(|r| r[k]).collect()
}

/// Mass and inertia doubled: the same motion, twice the pivot reaction.
#[test]
fn doubling_mass_and_inertia_keeps_the_motion_and_doubles_the_reaction() {
    let src = pendulum();
    let base = run(&src, &[], None).unwrap();
    assert_eq!(base.error, None);
    assert!(base.log.iter().any(|l| l.contains("DSTIFF")));
    let changes = [
        ch("Body_Rigid/2", "mass", "2."),
        ch("Body_Rigid/2", "inertia_xx", "2E-3"),
        ch("Body_Rigid/2", "inertia_yy", "2E-3"),
        ch("Body_Rigid/2", "inertia_zz", "2E-3"),
    ];
    let heavy = run(&src, &changes, None).unwrap();
    assert_eq!(heavy.error, None);
    assert_eq!(heavy.rows(), 251);
    let (y0, y1) = (column(&base, "request_1.y"), column(&heavy, "request_1.y"));
    let motion = y0
        .iter()
        .zip(&y1)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(motion < 1e-6, "motion differs by {motion:e}");
    let (f0, f1) = (
        column(&base, "request_3.fy"),
        column(&heavy, "request_3.fy"),
    );
    let scale = f0
        .iter()
        .zip(&f1)
        .filter(|(a, _)| a.abs() > 1.0)
        .map(|(a, b)| (b / a - 2.0).abs())
        .fold(0.0, f64::max);
    assert!(scale < 1e-5, "reaction ratio off by {scale:e}");
}

#[test]
fn xml_changes_are_validated_with_the_deck_line() {
    let src = pendulum();
    let e = load(&src, &[ch("Body_Rigid/2", "mass", "-1")])
        .err()
        .unwrap();
    // Caught by the model's validation, which names the part as the model
    // does (PART/2), at the Body_Rigid's line.
    assert_eq!((e.line, e.element.as_deref()), (Some(11), Some("PART/2")));
    assert_eq!(e.file, "pendulum.xml");
    let e = load(&src, &[ch("Body_Rigid/9", "mass", "1")])
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "pendulum.xml: BODY_RIGID/9: cannot change BODY_RIGID id=9.mass: there is no BODY_RIGID id=9 in the <Model> section"
    );
    let e = load(&src, &[ch("INTEGRATOR", "ERROR", "1e-4")])
        .err()
        .unwrap();
    assert_eq!(
        e.to_string(),
        "pendulum.xml: INTEGRATOR: INTEGRATOR.ERROR: a MotionSolve deck sets its integrator in Param_Transient (e.g. PARAM_TRANSIENT.INTEGR_TOL)"
    );
    // A Param_Transient change reaches the run: an out-of-range tolerance.
    let e = run(&src, &[ch("Param_Transient", "integr_tol", "-1")], None)
        .err()
        .unwrap();
    assert!(e.to_string().contains("integr_tol = -1 must be > 0"), "{e}");
}
