//! The settings table and validator against the seeds' defaults and the
//! messages users see.

use super::*;

fn kind(k: IntegratorKind) -> IntegratorSettings {
    IntegratorSettings {
        kind: k,
        ..Default::default()
    }
}
fn bdf(s: &IntegratorSettings) -> BdfParams {
    match validate(s, 0.01).unwrap().method {
        MethodParams::Bdf(p) => p,
        m => panic!("{m:?}"),
    }
}
fn hht(s: &IntegratorSettings) -> HhtParams {
    match validate(s, 0.01).unwrap().method {
        MethodParams::Hht(p) => p,
        m => panic!("{m:?}"),
    }
}
fn refused(s: IntegratorSettings) -> String {
    validate(&s, 0.01).unwrap_err()
}

#[test]
fn the_front_end_follows_the_origins_file() {
    let of = |o| FrontEnd::of_origin(Some(o), FrontEnd::Adams);
    assert_eq!(of("model.acf:3:1"), FrontEnd::Adams);
    assert_eq!(of("C:/m/MODEL.ADM:12:7"), FrontEnd::Adams);
    assert_eq!(of("C:/m/model.xml:12:7"), FrontEnd::MotionSolve);
    assert_eq!(of("elsewhere"), FrontEnd::Adams);
    assert_eq!(
        FrontEnd::of_origin(None, FrontEnd::MotionSolve),
        FrontEnd::MotionSolve
    );
}

#[test]
fn numbers_print_readably() {
    assert_eq!(fmt_num(1e300), "1e300");
    assert_eq!(fmt_num(-1.0), "-1");
    assert_eq!(fmt_num(0.01), "0.01");
    assert_eq!(fmt_num(1e-8), "1e-8");
    assert_eq!(fmt_num(f64::INFINITY), "inf");
}

#[test]
fn bdf_defaults_follow_the_seeds() {
    let p = bdf(&IntegratorSettings::default());
    assert_eq!(p.error, 1e-3);
    assert_eq!(p.hmax, 0.01);
    assert!((p.hmin - 1e-8).abs() < 1e-20);
    assert!((p.hinit - 0.0005).abs() < 1e-15);
    assert_eq!((p.kmax, p.maxit), (6, 10));
    assert_eq!(p.pattern, DEFAULT_PATTERN.to_vec());
    assert!((p.adaptivity - 1e-3 * 100.0 * 1e-8).abs() < 1e-25);
    // WSTIFF: the same, without ADAPTIVITY (GSTIFF and HHT only).
    let w = bdf(&kind(IntegratorKind::Wstiff));
    assert_eq!(
        w,
        BdfParams {
            adaptivity: 0.0,
            ..p
        }
    );
}

#[test]
fn hht_defaults_follow_the_seeds() {
    let p = hht(&kind(IntegratorKind::Hht));
    assert_eq!(p.alpha, -0.3);
    assert!((p.beta - 0.4225).abs() < 1e-15 && (p.gamma - 0.8).abs() < 1e-15);
    assert_eq!(p.error, 1e-5);
    assert_eq!((p.hmax, p.hmin), (0.01, f64::EPSILON));
    assert!((p.hinit - 5e-4).abs() < 1e-15);
    assert_eq!((p.maxit, p.pattern.clone()), (10, vec![false]));
    assert!(p.converge_multipliers && p.fixed.is_none());
    let p = hht(&kind(IntegratorKind::Newmark));
    assert_eq!((p.alpha, p.beta, p.gamma), (0.0, 0.36, 0.7));
}

#[test]
fn range_errors_name_the_origin_and_the_users_argument() {
    let s = IntegratorSettings {
        hmax: Some(-1.0),
        origin: Some("model.acf:3:1".into()),
        ..Default::default()
    };
    assert_eq!(
        refused(s),
        "model.acf:3:1: INTEGRATOR: HMAX = -1 must be > 0"
    );
    assert_eq!(
        refused(IntegratorSettings {
            hinit: Some(1e300),
            ..Default::default()
        }),
        "INTEGRATOR: HINIT = 1e300 must be > HMIN = 1e-8 and <= HMAX = 0.01"
    );
    assert_eq!(
        refused(IntegratorSettings {
            kmax: Some(7),
            ..Default::default()
        }),
        "INTEGRATOR: KMAX = 7 must be from 1 to 6"
    );
    assert_eq!(
        refused(IntegratorSettings {
            error: Some(-1.0),
            ..Default::default()
        }),
        "INTEGRATOR: ERROR = -1 must be > 0"
    );
    assert_eq!(
        refused(IntegratorSettings {
            hmin: Some(0.1),
            hmax: Some(0.01),
            ..Default::default()
        }),
        "INTEGRATOR: HMIN = 0.1 must be > 0 and < HMAX = 0.01"
    );
    // The MotionSolve names, for the Param_Transient front end.
    let s = IntegratorSettings {
        hmax: Some(-1.0),
        origin: Some("m.xml:12:5".into()),
        ..Default::default()
    };
    assert_eq!(
        validate(&s, 0.01).unwrap_err(),
        "m.xml:12:5: Param_Transient: h_max = -1 must be > 0"
    );
}

#[test]
fn misplaced_arguments_are_rejected_by_name() {
    let w = kind(IntegratorKind::Wstiff);
    assert_eq!(
        refused(IntegratorSettings {
            alpha: Some(-0.1),
            ..w.clone()
        }),
        "INTEGRATOR: ALPHA applies only to HHT, not to WSTIFF"
    );
    assert_eq!(
        refused(IntegratorSettings {
            fixit: Some(2),
            ..w.clone()
        }),
        "INTEGRATOR: FIXIT applies only to GSTIFF and HHT, not to WSTIFF"
    );
    assert_eq!(
        refused(IntegratorSettings {
            adaptivity: Some(1e-8),
            ..w.clone()
        }),
        "INTEGRATOR: ADAPTIVITY applies only to GSTIFF and HHT, not to WSTIFF"
    );
    assert_eq!(
        refused(IntegratorSettings {
            beta: Some(0.3),
            ..kind(IntegratorKind::Hht)
        }),
        "INTEGRATOR: BETA applies only to NEWMARK, not to HHT"
    );
    assert_eq!(
        refused(IntegratorSettings {
            hinit: Some(1e-3),
            ..kind(IntegratorKind::ConstantBdf)
        }),
        "INTEGRATOR: HINIT has no effect with CONSTANT_BDF (its step is HMAX, default the output step)"
    );
    // INTERPOLATE = ON runs with HHT too (no HMAX limit by default).
    let p = hht(&IntegratorSettings {
        interpolate: Some(true),
        ..kind(IntegratorKind::Hht)
    });
    assert_eq!(p.hmax, f64::INFINITY);
}

#[test]
fn formulations_follow_the_table() {
    let si2 = |k| IntegratorSettings {
        formulation: Some(Formulation::Si2),
        ..kind(k)
    };
    assert_eq!(
        refused(si2(IntegratorKind::Hht)),
        "INTEGRATOR: SI2 is not available with HHT (it runs with GSTIFF, WSTIFF, CONSTANT_BDF, HASTIFF)"
    );
    // SI1 runs with HASTIFF (and MotionSolve's DSTIFF) only (seeds' table: "GSTIFF SI1,
    // WSTIFF SI1, CONSTANT_BDF SI1 … Not Supported in the Adams Solver
    // (C++)"); HASTIFF takes SI1 (its default) or SI2, never I3.
    for k in [
        IntegratorKind::Gstiff,
        IntegratorKind::Wstiff,
        IntegratorKind::ConstantBdf,
    ] {
        assert_eq!(
            refused(IntegratorSettings {
                formulation: Some(Formulation::Si1),
                ..kind(k)
            }),
            format!(
                "INTEGRATOR: SI1 with {} is not supported in the Adams Solver (C++) (SI1 runs with HASTIFF, DSTIFF only)",
                k.name()
            )
        );
    }
    assert_eq!(
        refused(IntegratorSettings {
            formulation: Some(Formulation::I3),
            ..kind(IntegratorKind::Hastiff)
        }),
        "INTEGRATOR: I3 is not available with HASTIFF (it runs with GSTIFF, WSTIFF, CONSTANT_BDF, HHT, NEWMARK, DSTIFF)"
    );
    let hastiff = validate(&kind(IntegratorKind::Hastiff), 0.1).unwrap();
    assert_eq!(hastiff.formulation().name(), "SI1");
    for (arg, value) in [("ADAPTIVITY", "ADAPTIVITY = 1e-8"), ("FIXIT", "FIXIT = 2")] {
        let s = IntegratorSettings {
            adaptivity: (arg == "ADAPTIVITY").then_some(1e-8),
            fixit: (arg == "FIXIT").then_some(2),
            ..kind(IntegratorKind::Hastiff)
        };
        let why = refused(s);
        assert!(
            why.starts_with(&format!("INTEGRATOR: {arg} applies only to "))
                && why.ends_with("not to HASTIFF"),
            "{value}: {why}"
        );
    }
    // SI2: machine-precision HMIN, velocities under error control and
    // converged with either corrector (seeds: "Error control in
    // corrector"); I3 keeps 1e-6·HMAX and displacements only.
    let dv = vec![
        VarClass::Displacement,
        VarClass::Velocity,
        VarClass::UserState,
    ];
    // The correctors also converge the solved quantities, which are never
    // error-controlled (reaction_fn.rs).
    let dvs = [dv.clone(), vec![VarClass::Solved]].concat();
    let p = bdf(&si2(IntegratorKind::Gstiff));
    assert_eq!(p.hmin, f64::EPSILON);
    assert_eq!(
        (p.error_classes.clone(), p.corrector_classes),
        (dv.clone(), dvs.clone())
    );
    let modified = IntegratorSettings {
        corrector: Some(CorrectorKind::Modified),
        ..si2(IntegratorKind::Wstiff)
    };
    assert_eq!(bdf(&modified).corrector_classes, dvs);
    assert!(bdf(&si2(IntegratorKind::ConstantBdf)).constant_step);
    let i3 = bdf(&IntegratorSettings::default());
    assert_eq!(
        i3.error_classes,
        vec![VarClass::Displacement, VarClass::UserState]
    );
    assert_eq!(i3.corrector_classes, dvs);
}

#[test]
fn newmark_stability_and_alpha_range() {
    let mut s = kind(IntegratorKind::Newmark);
    s.gamma = Some(0.4);
    assert_eq!(
        refused(s.clone()),
        "INTEGRATOR: GAMMA = 0.4 violates the Newmark stability condition GAMMA >= 0.5"
    );
    s.gamma = Some(0.7);
    s.beta = Some(0.3);
    assert!(refused(s.clone())
        .starts_with("INTEGRATOR: BETA = 0.3 violates the Newmark stability condition"));
    s.beta = Some(0.25);
    s.gamma = Some(0.5);
    assert_eq!(hht(&s).order(), 2);
    let mut s = kind(IntegratorKind::Hht);
    s.alpha = Some(-0.4);
    assert_eq!(
        refused(s.clone()),
        "INTEGRATOR: ALPHA = -0.4 must be >= -1/3 and <= 0"
    );
    s.alpha = Some(-0.333333);
    assert!(validate(&s, 0.01).is_ok());
}

#[test]
fn fixed_step_option() {
    let mut s = kind(IntegratorKind::Hht);
    s.fixit = Some(3);
    s.hratio = Some(4);
    let p = hht(&s);
    assert_eq!(p.hinit, 0.0025);
    assert_eq!(p.pattern, DEFAULT_PATTERN.to_vec());
    assert_eq!(p.fixed.as_ref().unwrap().iterations, 3);
    s.pattern = Some(vec![false]);
    assert_eq!(
        refused(s),
        "INTEGRATOR: PATTERN = F (adaptive Jacobian evaluation) is not allowed with FIXIT"
    );
    let s = IntegratorSettings {
        fixit: Some(3),
        formulation: Some(Formulation::Si2),
        ..Default::default()
    };
    let p = bdf(&s);
    assert_eq!((p.kmax, p.hinit), (1, 0.01));
    assert!(p.error_classes.contains(&VarClass::Velocity));
    assert_eq!(
        refused(IntegratorSettings {
            fixit: Some(11),
            ..Default::default()
        }),
        "INTEGRATOR: FIXIT = 11 must be from 1 to 10"
    );
}

/// The analysis log line reports only the arguments the pair honours: a
/// rejected argument (ADAPTIVITY for WSTIFF and HASTIFF) has no
/// effective value to show.
#[test]
fn the_log_line_shows_only_honoured_arguments() {
    let line = |k: IntegratorKind| validate(&kind(k), 0.01).unwrap().describe();
    assert!(line(IntegratorKind::Gstiff).contains(", ADAPTIVITY = "));
    for k in [IntegratorKind::Wstiff, IntegratorKind::Hastiff] {
        let l = line(k);
        assert!(!l.contains("ADAPTIVITY"), "{l}");
        assert!(
            l.contains(", PATTERN = ") && l.contains(", CORRECTOR = "),
            "{l}"
        );
    }
    assert!(line(IntegratorKind::Hht).contains(", ADAPTIVITY = "));
}

/// HRATIO and MAXERR without FIXIT are ignored, as the seeds say ("it's
/// ignored if FIXIT is unspecified"), with one log line, for any
/// integrator; the plan is the variable-step one without them.
#[test]
fn hratio_and_maxerr_without_fixit_are_ignored_with_a_note() {
    let plain = validate(&IntegratorSettings::default(), 0.01).unwrap();
    for k in [
        IntegratorKind::Gstiff,
        IntegratorKind::Wstiff,
        IntegratorKind::Abam,
    ] {
        let s = IntegratorSettings {
            hratio: Some(4),
            maxerr: Some(0.5),
            ..kind(k)
        };
        let p = validate(&s, 0.01).unwrap();
        assert_eq!(p.fixed_step(), None, "{k:?}");
        assert_eq!(
            p.notes[0],
            "HRATIO and MAXERR ignored: they apply only to the fixed-step option and FIXIT is not given (seeds: \"it's ignored if FIXIT is unspecified\")",
            "{k:?}"
        );
        assert_eq!(p.notes.iter().filter(|n| n.contains("HRATIO")).count(), 1);
    }
    let s = IntegratorSettings {
        maxerr: Some(0.5),
        ..Default::default()
    };
    let p = validate(&s, 0.01).unwrap();
    assert!(
        p.notes[0].starts_with("MAXERR ignored: it applies only"),
        "{:?}",
        p.notes
    );
    assert_eq!(p.describe(), plain.describe());
    // With FIXIT they act: HRATIO sets the step.
    let s = IntegratorSettings {
        fixit: Some(2),
        hratio: Some(4),
        ..Default::default()
    };
    assert_eq!(validate(&s, 0.01).unwrap().fixed_step(), Some(0.0025));
}

/// FIXIT: the step is DTOUT/HRATIO whatever HINIT (seeds: "the
/// integration step size remains 'constant' … The combination of DTOUT
/// and HRATIO settings specifies the integration step size"); a HINIT
/// that differs is named in the log as ignored.
#[test]
fn fixed_step_is_dtout_over_hratio_whatever_hinit() {
    for hinit in [1e-4, 0.0025, 0.5] {
        let s = IntegratorSettings {
            fixit: Some(3),
            hratio: Some(4),
            hinit: Some(hinit),
            ..kind(IntegratorKind::Hht)
        };
        let p = validate(&s, 0.01).unwrap();
        assert_eq!(p.fixed_step(), Some(0.0025), "HINIT {hinit}");
        assert_eq!(hht(&s).hinit, 0.0025);
        if hinit == 0.0025 {
            assert!(p.notes.is_empty(), "{:?}", p.notes);
        } else {
            assert_eq!(
                p.notes,
                vec![format!("HINIT = {} ignored: the fixed step is DTOUT/HRATIO = 0.0025 throughout (seeds: fixed-step option)", fmt_num(hinit))]
            );
        }
    }
    let s = IntegratorSettings {
        fixit: Some(3),
        hinit: Some(-1.0),
        ..Default::default()
    };
    assert_eq!(refused(s), "INTEGRATOR: HINIT = -1 must be > 0");
}

/// ADAPTIVITY affects only GSTIFF and HHT (seeds): NEWMARK refuses it by
/// name and runs without it by default.
#[test]
fn newmark_has_no_adaptivity() {
    let s = IntegratorSettings {
        adaptivity: Some(1e-8),
        ..kind(IntegratorKind::Newmark)
    };
    assert_eq!(
        refused(s),
        "INTEGRATOR: ADAPTIVITY applies only to GSTIFF and HHT, not to NEWMARK"
    );
    let p = hht(&kind(IntegratorKind::Newmark));
    assert_eq!(p.adaptivity, 0.0);
    assert!(hht(&kind(IntegratorKind::Hht)).adaptivity > 0.0);
    let line = validate(&kind(IntegratorKind::Newmark), 0.01)
        .unwrap()
        .describe();
    assert!(!line.contains("ADAPTIVITY"), "{line}");
}
