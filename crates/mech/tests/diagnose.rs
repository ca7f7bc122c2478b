//! Issue 11: a NaN or infinity from a function, or an undefined force
//! direction, is named at the element that produced it (element, its
//! function, the time) instead of surfacing as a singular matrix.

use mbsolve_adm::read_adm_str;
use mbsolve_mech::System;

/// Ground marker 10 at the origin; part 2 with CM marker 20 at (1, 0, 0)
/// and marker 21 at the origin, on a revolute joint about z. Lines 1–7.
const BASE: &str = "pendulum\n\
PART/1, GROUND\n\
MARKER/10, PART = 1\n\
PART/2, MASS = 1, CM = 20, IP = 1, 1, 1\n\
MARKER/20, PART = 2, QP = 1, 0, 0\n\
MARKER/21, PART = 2\n\
JOINT/1, REVOLUTE, I = 21, J = 10\n";

fn system(extra: &str) -> System {
    let m = read_adm_str(&format!("{BASE}{extra}END\n"), "m.adm").unwrap_or_else(|e| panic!("{e}"));
    System::new(&m).unwrap_or_else(|e| panic!("{e}"))
}

fn diagnose(extra: &str, t: f64) -> Option<String> {
    let sys = system(extra);
    let (q, u) = sys.initial_state();
    sys.diagnose_non_finite(&q, &u, t)
}

#[test]
fn non_finite_functions_are_named_with_element_function_and_time() {
    let sforce = |f: &str| format!("SFORCE/5, TRANSLATIONAL, I = 20, J = 10, FUNCTION = {f}\n");
    let cases: &[(String, f64, &str)] = &[
        (sforce("1/0"), 0.0, "SFORCE/5 (m.adm:8): FUNCTION = 1/0: division by zero, at t = 0"),
        (sforce("SQRT(-1)"), 0.0, "SFORCE/5 (m.adm:8): FUNCTION = SQRT(-1): SQRT of a negative number (-1), at t = 0"),
        (sforce("LOG(0)"), 0.0, "SFORCE/5 (m.adm:8): FUNCTION = LOG(0): LOG of a non-positive number (0), at t = 0"),
        (sforce("LOG(TIME)"), 0.0, "SFORCE/5 (m.adm:8): FUNCTION = LOG(TIME): LOG of a non-positive number (0), at t = 0"),
        (sforce("ACOS(2)"), 0.0, "SFORCE/5 (m.adm:8): FUNCTION = ACOS(2): ACOS argument outside [-1, 1] (2), at t = 0"),
        (sforce("1e300*1e300*TIME"), 1.0, "SFORCE/5 (m.adm:8): FUNCTION = 1e300*1e300*TIME: result is not finite (inf), at t = 1"),
        // Through a VARIABLE: the VARIABLE is named too.
        (
            sforce("2*VARVAL(7)") + "VARIABLE/7, FUNCTION = LOG(0.25 - TIME)\n",
            0.25,
            "SFORCE/5 (m.adm:8): FUNCTION = 2*VARVAL(7): in VARIABLE/7: LOG of a non-positive number (0), at t = 0.25",
        ),
        // A MOTION that becomes NaN at t = 0.5.
        (
            "MOTION/3, JOINT = 1, FUNCTION = LOG(0.5 - TIME)\n".into(),
            0.5,
            "MOTION/3 (m.adm:8): FUNCTION = LOG(0.5 - TIME): LOG of a non-positive number (0), at t = 0.5",
        ),
        // A finite value with an infinite slope is just as fatal.
        (
            "MOTION/3, JOINT = 1, FUNCTION = SQRT(0.5 - TIME)\n".into(),
            0.5,
            "MOTION/3 (m.adm:8): FUNCTION = SQRT(0.5 - TIME): a derivative is -inf (the value is 0), at t = 0.5",
        ),
        // A GCON whose function fails.
        (
            "GCON/4, I = 20, FUNCTION = DZ(20, 10) - LOG(TIME)\n".into(),
            0.0,
            "GCON/4 (m.adm:8): FUNCTION = DZ(20, 10) - LOG(TIME): LOG of a non-positive number (0), at t = 0",
        ),
        // A translational SFORCE between coincident markers has no direction.
        (
            "SFORCE/6, TRANSLATIONAL, I = 21, J = 10, FUNCTION = 1\n".into(),
            0.0,
            "SFORCE/6 (m.adm:8): its markers I (MARKER/21) and J (MARKER/10) coincide, so the direction of the translational force (from J to I) is undefined, at t = 0",
        ),
    ];
    let mut bad = Vec::new();
    for (extra, t, want) in cases {
        let got = diagnose(extra, *t);
        if got.as_deref() != Some(*want) {
            bad.push(format!("for {extra:?}\n   got: {got:?}\n  want: {want}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn finite_models_have_no_diagnosis() {
    let extra = "SFORCE/5, TRANSLATIONAL, I = 20, J = 10, FUNCTION = LOG(TIME)\n\
                 MOTION/3, JOINT = 1, FUNCTION = SQRT(TIME)\n";
    assert_eq!(diagnose(extra, 0.5), None);
}

/// A force function reading more than 16 measures is evaluated with all of
/// them (it used to be cut at 16 and turned into NaN): 24 distinct
/// measures, each weighted 0, plus 1 = a unit force along ground z.
#[test]
fn force_functions_read_any_number_of_measures() {
    let mut terms = vec!["1".to_string()];
    for f in ["DX", "DY", "DZ"] {
        for i in [20, 21] {
            terms.push(format!("0*{f}({i},10)"));
            for k in [10, 20, 21] {
                terms.push(format!("0*{f}({i},10,{k})"));
            }
        }
    }
    let extra = format!(
        "SFORCE/5, TRANSLATIONAL, ACTIONONLY, I = 20, J = 10, FUNCTION = {}\n",
        terms.join(" + ")
    );
    let model = read_adm_str(&format!("{BASE}{extra}END\n"), "m.adm").unwrap();
    let sys = System::new(&model).unwrap();
    match &model.forces[0].kind {
        mbsolve_model::ForceKind::TranslationalActionOnly { function } => {
            assert_eq!(function.measures().len(), 24)
        }
        k => panic!("{k:?}"),
    }
    let (q, u) = sys.initial_state();
    let fe = &sys.forces[0];
    let qf = fe.local_force(&q, &u, 0.0);
    // Local slot 0 = part 2: (x, y, z, e0..e3); the force is +1 along z.
    assert_eq!((qf[0], qf[1], qf[2]), (0.0, 0.0, 1.0));
    assert_eq!(sys.diagnose_non_finite(&q, &u, 0.0), None);
}
