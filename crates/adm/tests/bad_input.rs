//! Issue 11, the `.adm` rows: inputs that were silently accepted, wrongly
//! rejected or badly reported. Each case asserts the exact message, which
//! names the file, line, column and element.

use mbsolve_adm::{read_acf_str, read_adm_full, read_adm_str};
use mbsolve_model::{validate, Command, ForceKind};

/// Ground, one part with its CM marker, a second marker; no UNITS, so a
/// case may add its own. Lines 1–6; a case starts at line 7.
const BASE: &str = "title\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
PART/2, MASS = 2, CM = 20, IP = 1, 2, 3\n\
MARKER/20, PART = 2, QP = 1, 0, 0\n\
MARKER/21, PART = 2\n";

fn deck(extra: &str) -> String {
    format!("{BASE}{extra}END\n")
}

fn build(extra: &str) -> mbsolve_model::Model {
    read_adm_str(&deck(extra), "m.adm").unwrap_or_else(|e| panic!("{e}"))
}

/// The function of the model's first force, an action-reaction SFORCE.
fn first_sforce_function(
    m: &mbsolve_model::Model,
) -> std::sync::Arc<dyn mbsolve_model::StateFunction> {
    match &m.forces[0].kind {
        ForceKind::TranslationalActionReaction { function } => function.clone(),
        k => panic!("{k:?}"),
    }
}

fn read_error(extra: &str) -> String {
    match read_adm_str(&deck(extra), "m.adm") {
        Ok(_) => panic!("expected an error for {extra:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn silent_acceptances_are_errors() {
    let cases: &[(&str, &str)] = &[
        // The degree suffix D on a non-angle.
        (
            "PART/3, MASS = 1D\n",
            "m.adm:7:16: PART/3: '1D' for MASS: the degree suffix D applies to angles only (REULER, ANGLE, ALIMIT, WX, WY, WZ, ICROT, and a rotational MOTION's ICDISP and ICVEL)",
        ),
        (
            "MARKER/22, PART = 2, QP = 57.2957795D, 0, 0\n",
            "m.adm:7:27: MARKER/22: '57.2957795D' for QP: the degree suffix D applies to angles only (REULER, ANGLE, ALIMIT, WX, WY, WZ, ICROT, and a rotational MOTION's ICDISP and ICVEL)",
        ),
        // UNITS from Adams' list only.
        (
            "UNITS/FORCE = FURLONG\n",
            "m.adm:7:15: UNITS: FORCE = FURLONG is not an Adams unit (one of CENTINEWTON, DYNE, KILOGRAM_FORCE, KNEWTON, KPOUND_FORCE, MEGANEWTON, MICRONEWTON, MILLINEWTON, NANONEWTON, NEWTON, OUNCE_FORCE, POUND_FORCE, POUNDAL)",
        ),
        (
            "UNITS/FORCE = NEWTON, TIME = FORTNIGHT\n",
            "m.adm:7:30: UNITS: TIME = FORTNIGHT is not an Adams unit (one of DAY, HOUR, MICROSECOND, MILLISECOND, MINUTE, NANOSECOND, SECOND)",
        ),
        // Id 0: one rule for statement ids and id arguments.
        (
            "MARKER/0, PART = 2\n",
            "m.adm:7:1: MARKER/0: ids are positive integers (Adams numbers elements from 1)",
        ),
        (
            "PART/3, MASS = 1, CM = 0, IP = 1, 1, 1\n",
            "m.adm:7:24: PART/3: CM = 0: ids are positive integers (Adams numbers elements from 1)",
        ),
        (
            "JOINT/1, REVOLUTE, I = 0, J = 10\n",
            "m.adm:7:24: JOINT/1: I = 0: ids are positive integers (Adams numbers elements from 1)",
        ),
        // Non-finite literals, in arguments and in FUNCTIONs alike.
        (
            "MARKER/22, PART = 2, QP = 1e400, 0, 0\n",
            "m.adm:7:27: MARKER/22: '1e400' for QP is out of range (beyond ±1.8e308)",
        ),
        (
            "SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = 1e400*TIME\n",
            "m.adm:7:53: SFORCE/1: number '1e400' is out of range (beyond ±1.8e308)",
        ),
        // Every GCON has its own id.
        (
            "GCON/3, I = 20, FUNCTION = DM(20, 10) - 1\nGCON/4, I = 20, FUNCTION = DX(20, 10) - 1\nGCON/3, I = 20, FUNCTION = DY(20, 10)\n",
            "m.adm:9:1: GCON/3: duplicate id: GCON/3 is already defined at m.adm:7",
        ),
        (
            "GCON/3, I = 999, FUNCTION = DM(20, 10) - 1\n",
            "m.adm:7:13: GCON/3: I marker 999 does not exist",
        ),
        (
            "GCON, I = 20, FUNCTION = DM(20, 10) - 1\n",
            "m.adm:7:1: GCON needs an id (GCON/id)",
        ),
        // Deep nesting stays a clean error.
        (
            &format!(
                "SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = {}1{}\n",
                "(".repeat(1_000_000),
                ")".repeat(1_000_000)
            ),
            "m.adm:7:253: SFORCE/1: expression is nested too deeply",
        ),
    ];
    let mut bad = Vec::new();
    for (extra, want) in cases {
        let got = read_error(extra);
        if got != *want {
            bad.push(format!(
                "for {:?}\n   got: {got}\n  want: {want}",
                &extra[..extra.len().min(80)]
            ));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn angles_still_take_degrees() {
    let m = build("MARKER/22, PART = 2, REULER = 90D, 0, 0\nSPRINGDAMPER/1, ROTATIONAL, I = 20, J = 10, KT = 1, ANGLE = 30D\n");
    let r = m.marker(22).unwrap().placement.rotation;
    // 90° about z: x → y
    assert!((r[(1, 0)] - 1.0).abs() < 1e-15, "{r}");
    match &m.forces[0].kind {
        ForceKind::RotationalSpringDamper { free_angle, .. } => {
            assert!((free_angle - 30f64.to_radians()).abs() < 1e-15)
        }
        k => panic!("{k:?}"),
    }
}

/// Principal moments that violate the triangle inequality are no body's,
/// but Adams runs such decks (issue 29: moments rounded near the bound), so
/// the model is accepted and one warning names the PART and where it was
/// written; a tensor that is not positive definite is still refused.
#[test]
fn inertia_triangle_inequality() {
    let check = |ip: &str| -> Result<Vec<String>, String> {
        let part = format!("PART/3, MASS = 1, IP = {ip}\n");
        let m = build(&part);
        validate(&m).map_err(|e| e.to_string())?;
        Ok(mbsolve_model::inertia_warnings(&m))
    };
    assert_eq!(
        check("1, 1, 5"),
        Ok(vec!["warning: PART/3 (m.adm:7): inertia violates the triangle inequality (Izz = 5 > Ixx + Iyy = 2): no body has these moments; it is run as given, as Adams runs it".into()])
    );
    // With products of inertia the principal moments are checked: the
    // tensor [[1, 0.9, 0], [0.9, 1, 0], [0, 0, 2.5]] is positive definite,
    // but its principal moments are 0.1, 1.9 and 2.5 > 0.1 + 1.9.
    assert_eq!(
        check("1, 1, 2.5, 0.9, 0, 0"),
        Ok(vec!["warning: PART/3 (m.adm:7): inertia violates the triangle inequality (principal moments: I3 = 2.5 > I1 + I2 = 2): no body has these moments; it is run as given, as Adams runs it".into()])
    );
    // A flat plate (Izz = Ixx + Iyy up to the three digits written) is a
    // body: no warning; 2 % beyond the bound warns.
    assert_eq!(check("0.333, 0.333, 0.667"), Ok(vec![]));
    assert_eq!(check("9.999E-4, 9.999E-4, 2.0E-3"), Ok(vec![]));
    assert_eq!(check("1, 1, 2.04").map(|w| w.len()), Ok(1));
    assert!(check("1, -1, 1")
        .unwrap_err()
        .contains("inertia tensor is not positive definite"));
}

/// Ids are unique per statement type: SPRINGDAMPER/1 beside SFORCE/1 (the
/// FRS5 corpus deck has them) are two elements.
#[test]
fn ids_are_per_statement_type() {
    let m = build("SPRINGDAMPER/1, TRANSLATIONAL, I = 20, J = 10, K = 3\nSFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = 2\nGCON/1, I = 20, FUNCTION = DM(20, 10) - 1\nGCON/2, I = 20, FUNCTION = DZ(20, 10)\n");
    let names: Vec<String> = m.forces.iter().map(|f| f.element().to_string()).collect();
    assert_eq!(names, ["SPRINGDAMPER/1", "SFORCE/1"]);
    let gcons: Vec<u32> = m.gcons.iter().map(|g| g.id).collect();
    assert_eq!(gcons, [1, 2]);
    validate(&m).unwrap();
    assert_eq!(
        m.describe(m.forces[1].element()),
        "SFORCE/1 (m.adm:8)",
        "messages name the SFORCE and where it was written"
    );
}

/// Long sums are legal Adams; and a function may read any number of
/// measures (the mechanics used to cut them at 16).
#[test]
fn long_sums_and_many_measures() {
    let terms: Vec<String> = (0..1500).map(|k| format!("{k}*DX(20,10)")).collect();
    let f = first_sforce_function(&build(&format!(
        "SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = {}\n",
        terms.join("+")
    )));
    assert_eq!(f.measures().len(), 1);
    let mut dm = [0.0];
    // Σ k for k < 1500 = 1124250: exact in doubles.
    assert_eq!(f.eval(0.0, &[2.0], &mut dm), (2.0 * 1_124_250.0, 0.0));
    assert_eq!(dm, [1_124_250.0]);
}

/// 40 VARIABLEs, each VARVAL(next) + VARVAL(next): exponential when
/// inlined as a tree, linear as a DAG; the value and derivative are exact
/// (2⁴⁰·TIME).
#[test]
fn variable_fan_out_reads_in_linear_time() {
    let mut extra = String::from("SFORCE/1, TRANSLATIONAL, I = 20, J = 10, FUNCTION = VARVAL(1)\n");
    for k in 1..=40 {
        extra += &format!(
            "VARIABLE/{k}, FUNCTION = VARVAL({0}) + VARVAL({0})\n",
            k + 1
        );
    }
    extra += "VARIABLE/41, FUNCTION = TIME\n";
    let f = first_sforce_function(&build(&extra));
    assert_eq!(f.eval(0.5, &[], &mut []), (2f64.powi(39), 2f64.powi(40)));
}

#[test]
fn layout_hints() {
    let e = read_adm_str("", "m.adm").unwrap_err().to_string();
    assert_eq!(
        e,
        "m.adm:1:1: the file is empty: an Adams dataset is a title line, then statements, then END"
    );
    let e = read_adm_str(&deck("").replace('\n', "\r"), "m.adm")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "m.adm:1:1: the line endings are CR only (classic Mac): convert them to LF or CRLF; as it is, the whole file is one line, the title");
    // The title line forgotten: PART/1, GROUND became the title.
    let e = read_adm_str(&BASE.replacen("title\n", "", 1), "m.adm")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "m.adm:1:1: the model has no ground part: line 1 is the title and is not read as a statement, yet it holds 'PART/1, GROUND': add a title line above it");
    let e = read_adm_str("title\nPART/2, MASS = 1\nEND\n", "m.adm")
        .unwrap_err()
        .to_string();
    assert_eq!(e, "m.adm:1:1: the model has no ground part: no PART has GROUND (PART/id, GROUND); note that line 1 is always the title");
}

/// INTEGRATOR and EQUILIBRIUM settings carry where they were written, so
/// the solver's range errors can name it.
#[test]
fn settings_know_their_origin() {
    let r = read_adm_full(
        &deck("INTEGRATOR/GSTIFF, ERROR = 1e-5\nEQUILIBRIUM/MAXIT = 30\n"),
        "m.adm",
    )
    .unwrap();
    assert_eq!(r.model.integrator.origin.as_deref(), Some("m.adm:7:1"));
    assert_eq!(r.model.equilibrium.origin.as_deref(), Some("m.adm:8:1"));
    let acf = read_acf_str(
        "m.adm\nout\nINTEGRATOR/HHT, ERROR = 1e-4\n  EQUIL/TLIMIT = 2, ALIMIT = 10D\nSIMULATE/STATIC\n",
        "m.acf",
    )
    .unwrap();
    match &acf.commands[0] {
        Command::Integrator { settings, .. } => {
            assert_eq!(settings.origin.as_deref(), Some("m.acf:3:1"))
        }
        c => panic!("{c:?}"),
    }
    match &acf.commands[1] {
        Command::Equilibrium { settings, .. } => {
            assert_eq!(settings.origin.as_deref(), Some("m.acf:4:3"));
            assert_eq!(settings.alimit, Some(10f64.to_radians()));
        }
        c => panic!("{c:?}"),
    }
}
