//! INTEGRATOR settings → validated integrator parameters, with the documented
//! defaults (SPEC §2). Arguments that belong to integrators or options not
//! built yet are rejected, never ignored.

use mbsolve_integrate::{BdfParams, FixedStep, VarClass};
use mbsolve_model::{CorrectorKind, Formulation, IntegratorKind, IntegratorSettings};

fn not_yet(what: &str) -> String {
    format!("INTEGRATOR: {what} is not supported yet")
}

pub(crate) const DEFAULT_PATTERN: [bool; 10] = [
    true, false, false, false, true, false, false, false, true, false,
];

pub(crate) fn fmt_pattern(p: &[bool]) -> String {
    p.iter()
        .map(|b| if *b { "T" } else { "F" })
        .collect::<Vec<_>>()
        .join(":")
}

/// The validated fixed-step option (seeds: "Fixed Step Integrator Option").
pub(crate) struct FixedOption {
    pub fixed: FixedStep,
    /// The constant step: DTOUT/HRATIO, or a smaller HINIT.
    pub step: f64,
    pub pattern: Vec<bool>,
}

/// FIXIT given: validate FIXIT (1..10), HRATIO (positive integer), MAXERR
/// (> 0), PATTERN (not all F) and HINIT; HMAX, HMIN, ERROR, MAXIT, KMAX and
/// CORRECTOR are then ignored. Without FIXIT, HRATIO and MAXERR are errors.
pub(crate) fn fixed_step_option(
    s: &IntegratorSettings,
    dtout: f64,
) -> Result<Option<FixedOption>, String> {
    let Some(fixit) = s.fixit else {
        for (given, arg) in [
            (s.hratio.is_some(), "HRATIO"),
            (s.maxerr.is_some(), "MAXERR"),
        ] {
            if given {
                return Err(format!(
                    "INTEGRATOR: {arg} applies only to the fixed-step option (give FIXIT)"
                ));
            }
        }
        return Ok(None);
    };
    if !(1..=10).contains(&fixit) {
        return Err(format!(
            "INTEGRATOR: FIXIT = {fixit} is out of range (1 to 10)"
        ));
    }
    let hratio = s.hratio.unwrap_or(1);
    if hratio < 1 {
        return Err(format!(
            "INTEGRATOR: HRATIO = {hratio} is out of range (a positive integer)"
        ));
    }
    let maxerr = s.maxerr.unwrap_or(f64::INFINITY);
    if maxerr.is_nan() || maxerr <= 0.0 {
        return Err(format!(
            "INTEGRATOR: MAXERR = {maxerr} is out of range (MAXERR > 0)"
        ));
    }
    let pattern = s
        .pattern
        .clone()
        .unwrap_or_else(|| DEFAULT_PATTERN.to_vec());
    if pattern.is_empty() || pattern.len() > 10 {
        return Err(format!(
            "INTEGRATOR: PATTERN has {} values; it takes 1 to 10 of T/F",
            pattern.len()
        ));
    }
    if pattern.iter().all(|p| !p) {
        return Err(format!(
            "INTEGRATOR: PATTERN = {} (adaptive Jacobian evaluation) is not allowed with FIXIT",
            fmt_pattern(&pattern)
        ));
    }
    if !(dtout > 0.0 && dtout.is_finite()) {
        return Err(format!("output step {dtout} must be positive"));
    }
    let step = dtout / hratio as f64;
    let step = match s.hinit {
        Some(hi) if hi > 0.0 && hi.is_finite() => hi.min(step),
        Some(hi) => {
            return Err(format!(
                "INTEGRATOR: HINIT = {hi} is out of range (HINIT > 0)"
            ))
        }
        None => step,
    };
    if let Some(a) = s.adaptivity {
        if !(a >= 0.0 && a.is_finite()) {
            return Err(format!(
                "INTEGRATOR: ADAPTIVITY = {a} is out of range (ADAPTIVITY >= 0)"
            ));
        }
    }
    Ok(Some(FixedOption {
        fixed: FixedStep {
            iterations: fixit as usize,
            maxerr,
        },
        step,
        pattern,
    }))
}

/// Validate the settings for a dynamic run whose output step is `dtout`
/// (GSTIFF, WSTIFF, CONSTANT_BDF: the same arguments, defaults and ranges;
/// ADAPTIVITY, FIXIT and INTERPOLATE = ON are GSTIFF's).
pub fn bdf_params(s: &IntegratorSettings, dtout: f64) -> Result<BdfParams, String> {
    let constant_step = s.kind == IntegratorKind::ConstantBdf;
    if !matches!(
        s.kind,
        IntegratorKind::Gstiff | IntegratorKind::Wstiff | IntegratorKind::ConstantBdf
    ) {
        return Err(not_yet(&format!("the {} integrator", s.kind.name())));
    }
    if constant_step {
        // The step is HMAX throughout: HINIT and HMIN would be ignored.
        for (given, arg) in [(s.hinit.is_some(), "HINIT"), (s.hmin.is_some(), "HMIN")] {
            if given {
                return Err(format!(
                    "INTEGRATOR: {arg} has no effect with CONSTANT_BDF (its step is HMAX, default the output step)"
                ));
            }
        }
    }
    match s.formulation {
        None | Some(Formulation::I3) => {}
        Some(Formulation::Si2) => return Err(not_yet("the SI2 formulation")),
        Some(Formulation::Si1) => {
            return Err("INTEGRATOR: SI1 is only available with HASTIFF".into())
        }
    }
    let interpolate = s.interpolate == Some(true) && s.fixit.is_none();
    if interpolate && !matches!(s.kind, IntegratorKind::Gstiff | IntegratorKind::ConstantBdf) {
        return Err(not_yet(&format!("INTERPOLATE = ON with {}", s.kind.name())));
    }
    for (given, name) in [
        (s.alpha.is_some(), "ALPHA"),
        (s.beta.is_some(), "BETA"),
        (s.gamma.is_some(), "GAMMA"),
    ] {
        if given {
            return Err(format!(
                "INTEGRATOR: {name} applies only to HHT and NEWMARK, not to {}",
                s.kind.name()
            ));
        }
    }
    if s.fixit.is_some() && s.kind != IntegratorKind::Gstiff {
        return Err(format!(
            "INTEGRATOR: FIXIT (fixed-step option) is available for GSTIFF and HHT, not {}",
            s.kind.name()
        ));
    }
    if let Some(f) = fixed_step_option(s, dtout)? {
        // Order 1 at h = DTOUT/HRATIO; ERROR, HMAX, HMIN, KMAX, MAXIT and
        // CORRECTOR have no effect (seeds).
        return Ok(BdfParams {
            error: s.error.unwrap_or(1e-3),
            hmax: f.step,
            hmin: f.step,
            hinit: f.step,
            kmax: 1,
            maxit: f.fixed.iterations,
            pattern: f.pattern,
            error_classes: vec![VarClass::Displacement, VarClass::UserState],
            corrector_classes: vec![VarClass::Displacement],
            adaptivity: 0.0,
            fixed: Some(f.fixed),
            constant_step: false,
            interpolate: false,
        });
    }
    let error = s.error.unwrap_or(1e-3);
    if !(error > 0.0 && error.is_finite()) {
        return Err(format!(
            "INTEGRATOR: ERROR = {error} is out of range (ERROR > 0)"
        ));
    }
    if !(dtout > 0.0 && dtout.is_finite()) {
        return Err(format!("output step {dtout} must be positive"));
    }
    // HMAX default: the output step; with INTERPOLATE = ON no limit (seeds),
    // and then HMIN's default 1e-6·HMAX is taken on the output step.
    let hmax = match s.hmax {
        Some(h) => h,
        None if interpolate && !constant_step => f64::INFINITY,
        None => dtout,
    };
    if !(hmax > 0.0 && (hmax.is_finite() || s.hmax.is_none())) {
        return Err(format!(
            "INTEGRATOR: HMAX = {hmax} is out of range (HMAX > 0)"
        ));
    }
    let hmin = s.hmin.unwrap_or(1e-6 * hmax.min(dtout));
    if !(hmin > 0.0 && hmin < hmax) {
        return Err(format!(
            "INTEGRATOR: HMIN = {hmin} is out of range (0 < HMIN < HMAX = {hmax})"
        ));
    }
    let hinit = match s.hinit {
        Some(h) => {
            if !(h > hmin && h <= hmax) {
                return Err(format!(
                    "INTEGRATOR: HINIT = {h} is out of range (HMIN = {hmin} < HINIT <= HMAX = {hmax})"
                ));
            }
            h
        }
        None if constant_step => hmax,
        None => (dtout / 20.0).min(hmax).max(hmin),
    };
    let kmax = s.kmax.unwrap_or(6);
    if !(1..=6).contains(&kmax) {
        return Err(format!(
            "INTEGRATOR: KMAX = {kmax} is out of range (1 to 6)"
        ));
    }
    let maxit = s.maxit.unwrap_or(10);
    if maxit < 1 {
        return Err(format!(
            "INTEGRATOR: MAXIT = {maxit} is out of range (MAXIT > 0)"
        ));
    }
    let pattern = s.pattern.clone().unwrap_or_else(|| {
        vec![
            true, false, false, false, true, false, false, false, true, false,
        ]
    });
    if pattern.is_empty() || pattern.len() > 10 {
        return Err(format!(
            "INTEGRATOR: PATTERN has {} values; it takes 1 to 10 of T/F",
            pattern.len()
        ));
    }
    let corrector_classes = match s.corrector.unwrap_or(CorrectorKind::Original) {
        // ORIGINAL: every state but multipliers must converge (seeds table).
        // The automatic switch to MODIFIED arrives with the BDF-family issue;
        // until then ORIGINAL behaves as ORIG_CONSTANT.
        CorrectorKind::Original | CorrectorKind::OrigConstant => {
            vec![
                VarClass::Displacement,
                VarClass::Velocity,
                VarClass::UserState,
            ]
        }
        CorrectorKind::Modified => vec![VarClass::Displacement, VarClass::UserState],
    };
    // ADAPTIVITY (GSTIFF only, seeds): on by default with the same default
    // as HHT — at h = 100·HMIN it doubles the tolerance; 0 turns it off.
    let adaptivity = match s.adaptivity {
        Some(a) if s.kind != IntegratorKind::Gstiff => {
            return Err(format!(
                "INTEGRATOR: ADAPTIVITY = {a} applies only to GSTIFF and HHT, not to {}",
                s.kind.name()
            ))
        }
        Some(a) if a >= 0.0 && a.is_finite() => a,
        Some(a) => {
            return Err(format!(
                "INTEGRATOR: ADAPTIVITY = {a} is out of range (ADAPTIVITY >= 0; 0 turns it off)"
            ))
        }
        None if s.kind == IntegratorKind::Gstiff => error * 100.0 * hmin,
        None => 0.0,
    };
    Ok(BdfParams {
        error,
        hmax,
        hmin,
        hinit,
        kmax: kmax as usize,
        maxit: maxit as usize,
        pattern,
        error_classes: vec![VarClass::Displacement, VarClass::UserState],
        corrector_classes,
        adaptivity,
        fixed: None,
        constant_step,
        interpolate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_follow_the_seeds() {
        let p = bdf_params(&IntegratorSettings::default(), 0.01).unwrap();
        assert_eq!(p.error, 1e-3);
        assert_eq!(p.hmax, 0.01);
        assert!((p.hmin - 1e-8).abs() < 1e-20);
        assert!((p.hinit - 0.0005).abs() < 1e-15);
        assert_eq!((p.kmax, p.maxit), (6, 10));
        assert_eq!(
            p.pattern,
            vec![true, false, false, false, true, false, false, false, true, false]
        );
    }

    #[test]
    fn out_of_range_values_are_rejected_with_the_argument_named() {
        let mut s = IntegratorSettings {
            kmax: Some(7),
            ..Default::default()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: KMAX = 7 is out of range (1 to 6)"
        );
        s.kmax = None;
        s.error = Some(-1.0);
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: ERROR = -1 is out of range (ERROR > 0)"
        );
        s.error = None;
        s.hmin = Some(0.1);
        s.hmax = Some(0.01);
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: HMIN = 0.1 is out of range (0 < HMIN < HMAX = 0.01)"
        );
    }

    /// WSTIFF takes GSTIFF's arguments with the same defaults (SPEC §2:
    /// HMIN = 1e-6·HMAX for WSTIFF/I3) and ranges, except ADAPTIVITY (on
    /// by default for GSTIFF only); GSTIFF-only options are refused by name.
    #[test]
    fn wstiff_shares_the_bdf_defaults_and_ranges() {
        let w = IntegratorSettings {
            kind: IntegratorKind::Wstiff,
            ..Default::default()
        };
        let p = bdf_params(&w, 0.01).unwrap();
        let g = bdf_params(&IntegratorSettings::default(), 0.01).unwrap();
        assert_eq!(p.adaptivity, 0.0);
        assert_eq!(
            p,
            BdfParams {
                adaptivity: 0.0,
                ..g
            }
        );
        assert!((p.hmin - 1e-8).abs() < 1e-20);
        let refused = |s: IntegratorSettings| bdf_params(&s, 0.01).unwrap_err();
        assert_eq!(
            refused(IntegratorSettings {
                kmax: Some(0),
                ..w.clone()
            }),
            "INTEGRATOR: KMAX = 0 is out of range (1 to 6)"
        );
        assert_eq!(
            refused(IntegratorSettings {
                alpha: Some(-0.1),
                ..w.clone()
            }),
            "INTEGRATOR: ALPHA applies only to HHT and NEWMARK, not to WSTIFF"
        );
        assert_eq!(
            refused(IntegratorSettings {
                fixit: Some(2),
                ..w.clone()
            }),
            "INTEGRATOR: FIXIT (fixed-step option) is available for GSTIFF and HHT, not WSTIFF"
        );
        assert_eq!(
            refused(IntegratorSettings {
                adaptivity: Some(1e-8),
                ..w.clone()
            }),
            "INTEGRATOR: ADAPTIVITY = 0.00000001 applies only to GSTIFF and HHT, not to WSTIFF"
        );
        assert_eq!(
            refused(IntegratorSettings {
                interpolate: Some(true),
                ..w.clone()
            }),
            "INTEGRATOR: INTERPOLATE = ON with WSTIFF is not supported yet"
        );
        assert_eq!(
            refused(IntegratorSettings {
                formulation: Some(Formulation::Si2),
                ..w
            }),
            "INTEGRATOR: the SI2 formulation is not supported yet"
        );
    }

    #[test]
    fn later_features_are_rejected_not_ignored() {
        let s = IntegratorSettings {
            kind: IntegratorKind::Hht,
            ..Default::default()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: the HHT integrator is not supported yet"
        );
        let s = IntegratorSettings {
            fixit: Some(3),
            pattern: Some(vec![false]),
            ..Default::default()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: PATTERN = F (adaptive Jacobian evaluation) is not allowed with FIXIT"
        );
        let s = IntegratorSettings {
            formulation: Some(Formulation::Si2),
            ..Default::default()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: the SI2 formulation is not supported yet"
        );
    }
}
