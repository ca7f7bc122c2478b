//! The four corpus decks the XML writer used to refuse (issue 18): the
//! three chrono distance cases (a GCON, now a Constraint_General) and the
//! adamspy torque-spike deck (an ACTIONONLY SFORCE, now a
//! Force_Scalar_TwoBody with is_action_only). Written to XML, read back
//! and run, they give the Adams deck's results: coordinates and every
//! REQUEST (the FORCE request on the GCON's reaction marker included).

use mbsolve_adm::read_adm_str;
use mbsolve_model::{IntegratorSettings, Model};
use mbsolve_msxml::{read_xml_str, write_xml};
use mbsolve_solver::{requests, Simulation};
use std::path::{Path, PathBuf};

fn corpus() -> PathBuf {
    mbsolve_adm::corpus::locate(Path::new(env!("CARGO_MANIFEST_DIR")))
        .unwrap_or_else(|e| panic!("{e}"))
}

fn deck(rel: &str) -> Model {
    let p = corpus().join(rel);
    let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
    read_adm_str(&text, &p.display().to_string()).unwrap_or_else(|e| panic!("{e}"))
}

/// The largest difference of any coordinate and of any request component
/// between the two models' runs (same settings, same output times).
fn run_difference(a: &Model, x: &Model, end: f64, steps: u64) -> (f64, f64) {
    let s = IntegratorSettings {
        error: Some(1e-6),
        ..Default::default()
    };
    let mut sa = Simulation::new(a).unwrap();
    let mut sx = Simulation::new(x).unwrap();
    sa.dynamic(end, Some(steps), None, &s).unwrap();
    sx.dynamic(end, Some(steps), None, &s).unwrap();
    assert_eq!(sa.frames.len(), sx.frames.len());
    assert_eq!(sa.frames.len() as u64, steps + 1);
    let (mut dq, mut dr) = (0.0f64, 0.0f64);
    for (f, g) in sa.frames.iter().zip(&sx.frames) {
        for (u, v) in f.q.iter().zip(&g.q) {
            dq = dq.max((u - v).abs());
        }
        for (ra, rx) in a.requests.iter().zip(&x.requests) {
            let va = requests::evaluate(&sa.sys, a, f, ra);
            let vx = requests::evaluate(&sx.sys, x, g, rx);
            for (u, v) in va.iter().zip(&vx) {
                dr = dr.max((u - v).abs() / u.abs().max(1.0));
            }
        }
    }
    (dq, dr)
}

#[test]
fn gcon_and_action_only_decks_run_the_same_from_xml() {
    if !mbsolve_adm::corpus::present(std::path::Path::new(env!("CARGO_MANIFEST_DIR"))) {
        return;
    }
    for (rel, end, steps) in [
        ("chrono-distance-case01/test_Distance_Case01.adm", 0.5, 50),
        ("chrono-distance-case02/test_Distance_Case02.adm", 0.5, 50),
        ("chrono-distance-case03/test_Distance_Case03.adm", 0.5, 50),
        // The spike acts from t = 1 to 1.02 s.
        (
            "adamspy-torque-spike/test_analysis_with_spikes.adm",
            1.1,
            110,
        ),
    ] {
        let a = deck(rel);
        let text = write_xml(&a).unwrap_or_else(|e| panic!("{rel}: {e}"));
        if rel.starts_with("chrono") {
            // GCON/1, I = 0102, FUNCTION = DM(0202, 0102)-2: the reaction
            // marker is not the first one the function reads, so the
            // writer names it.
            assert!(
                text.contains(
                    "<Constraint_General id=\"1\" i_marker_id=\"102\" expr=\"DM(0202, 0102)-2\"/>"
                ),
                "{text}"
            );
            assert!(a.requests.iter().any(|r| r.i == 102), "{rel}");
        } else {
            assert!(text.contains("is_action_only=\"TRUE\""), "{text}");
        }
        let x = read_xml_str(&text, "converted.xml")
            .unwrap_or_else(|e| panic!("{rel}: {e}\n{text}"))
            .model;
        assert_eq!(x.gcons.len(), a.gcons.len());
        for (g, h) in x.gcons.iter().zip(&a.gcons) {
            assert_eq!((g.id, g.i), (h.id, h.i), "{rel}");
        }
        let (dq, dr) = run_difference(&a, &x, end, steps);
        println!("{rel}: coordinates differ by {dq:.1e}, requests by {dr:.1e}");
        // The same model: only the marker poses' round-off (frame
        // arithmetic in the writer) can differ.
        assert!(dq < 1e-9 && dr < 1e-8, "{rel}: {dq:e} {dr:e}");
    }
}

/// Without its reaction marker a Constraint_General's reaction acts at the
/// first marker its expression reads; an is_virtual one is refused by
/// name, as is a missing expr.
#[test]
fn constraint_general_reads_as_gcon() {
    let deck = |body: &str| {
        format!(
            "<MultiBodySystem><Model>\n\
             <Body_Rigid id=\"1\" IsGround=\"TRUE\"/>\n\
             <Reference_Marker id=\"10\" body_id=\"1\"/>\n\
             <Body_Rigid id=\"2\" cg_id=\"20\" mass=\"1\" inertia_xx=\"1\" inertia_yy=\"1\" inertia_zz=\"1\"/>\n\
             <Reference_Marker id=\"20\" body_id=\"2\" pos_x=\"1\"/>\n\
             {body}\n</Model></MultiBodySystem>"
        )
    };
    let m = read_xml_str(
        &deck("<Constraint_General id=\"4\" expr=\"DM(20, 10) - 1\"/>"),
        "g.xml",
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .model;
    assert_eq!(m.gcons.len(), 1);
    assert_eq!((m.gcons[0].id, m.gcons[0].i), (4, 20));
    assert_eq!(m.gcons[0].function.source(), Some("DM(20, 10) - 1"));
    let with_i = read_xml_str(
        &deck("<Constraint_General id=\"4\" i_marker_id=\"10\" expr=\"DM(20, 10) - 1\"/>"),
        "g.xml",
    )
    .unwrap_or_else(|e| panic!("{e}"))
    .model;
    assert_eq!(with_i.gcons[0].i, 10);
    for (body, want) in [
        (
            "<Constraint_General id=\"4\" expr=\"DM(20, 10) - 1\" is_virtual=\"TRUE\"/>",
            "g.xml:6:1: Constraint_General id=4: is_virtual = TRUE is not supported (mbsolve imposes a Constraint_General as an algebraic constraint)",
        ),
        (
            "<Constraint_General id=\"4\"/>",
            "g.xml:6:1: Constraint_General id=4: needs expr",
        ),
        (
            "<Constraint_General id=\"4\" expr=\"DM(20, 10) - 1\" usrsub_fnc_name=\"GCOSUB\"/>",
            "g.xml:6:1: Constraint_General id=4: needs a user subroutine (usrsub_fnc_name = \"GCOSUB\"), which mbsolve cannot run",
        ),
    ] {
        let e = read_xml_str(&deck(body), "g.xml").err().map(|e| e.to_string());
        assert_eq!(e.as_deref(), Some(want));
    }
}
