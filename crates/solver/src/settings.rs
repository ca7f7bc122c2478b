//! INTEGRATOR settings → validated integrator parameters, with the documented
//! defaults (SPEC §2). Arguments that belong to integrators or options not
//! built yet are rejected, never ignored.

use mbsolve_integrate::{BdfParams, VarClass};
use mbsolve_model::{CorrectorKind, Formulation, IntegratorKind, IntegratorSettings};

fn not_yet(what: &str) -> String {
    format!("INTEGRATOR: {what} is not supported yet")
}

/// Validate the settings of a BDF run (GSTIFF or WSTIFF: same arguments,
/// defaults and ranges) whose output step is `dtout`.
pub fn bdf_params(s: &IntegratorSettings, dtout: f64) -> Result<BdfParams, String> {
    if !matches!(s.kind, IntegratorKind::Gstiff | IntegratorKind::Wstiff) {
        return Err(not_yet(&format!("the {} integrator", s.kind.name())));
    }
    let integrator = s.kind.name();
    match s.formulation {
        None | Some(Formulation::I3) => {}
        Some(Formulation::Si2) => return Err(not_yet("the SI2 formulation")),
        Some(Formulation::Si1) => {
            return Err("INTEGRATOR: SI1 is only available with HASTIFF".into())
        }
    }
    if s.kind == IntegratorKind::Wstiff {
        // Seeds: ADAPTIVITY affects only GSTIFF and HHT; the fixed-step
        // option exists for GSTIFF and HHT.
        for (given, arg, what) in [
            (
                s.adaptivity.is_some(),
                "ADAPTIVITY",
                "affects only GSTIFF and HHT",
            ),
            (
                s.fixit.is_some(),
                "FIXIT (fixed-step option)",
                "is available for GSTIFF and HHT",
            ),
            (
                s.hratio.is_some(),
                "HRATIO (fixed-step option)",
                "is available for GSTIFF and HHT",
            ),
            (
                s.maxerr.is_some(),
                "MAXERR (fixed-step option)",
                "is available for GSTIFF and HHT",
            ),
        ] {
            if given {
                return Err(format!("INTEGRATOR: {arg} {what}, not WSTIFF"));
            }
        }
    }
    for (given, name) in [
        (s.adaptivity.is_some(), "ADAPTIVITY"),
        (s.fixit.is_some(), "FIXIT (fixed-step option)"),
        (s.hratio.is_some(), "HRATIO (fixed-step option)"),
        (s.maxerr.is_some(), "MAXERR (fixed-step option)"),
        (s.interpolate == Some(true), "INTERPOLATE = ON"),
    ] {
        if given {
            return Err(not_yet(name));
        }
    }
    for (given, arg) in [
        (s.alpha.is_some(), "ALPHA"),
        (s.beta.is_some(), "BETA"),
        (s.gamma.is_some(), "GAMMA"),
    ] {
        if given {
            return Err(format!(
                "INTEGRATOR: {arg} applies only to HHT and NEWMARK, not to {integrator}"
            ));
        }
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
    let hmax = s.hmax.unwrap_or(dtout);
    if !(hmax > 0.0 && hmax.is_finite()) {
        return Err(format!(
            "INTEGRATOR: HMAX = {hmax} is out of range (HMAX > 0)"
        ));
    }
    let hmin = s.hmin.unwrap_or(1e-6 * hmax);
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
    /// HMIN = 1e-6·HMAX for WSTIFF/I3) and ranges; errors name WSTIFF.
    #[test]
    fn wstiff_shares_the_bdf_defaults_and_ranges() {
        let w = IntegratorSettings {
            kind: IntegratorKind::Wstiff,
            ..Default::default()
        };
        assert_eq!(
            bdf_params(&w, 0.01).unwrap(),
            bdf_params(&IntegratorSettings::default(), 0.01).unwrap()
        );
        let p = bdf_params(&w, 0.01).unwrap();
        assert!((p.hmin - 1e-8).abs() < 1e-20);
        let s = IntegratorSettings {
            kmax: Some(0),
            ..w.clone()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: KMAX = 0 is out of range (1 to 6)"
        );
        let s = IntegratorSettings {
            alpha: Some(-0.1),
            ..w.clone()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: ALPHA applies only to HHT and NEWMARK, not to WSTIFF"
        );
        let s = IntegratorSettings {
            fixit: Some(2),
            ..w.clone()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: FIXIT (fixed-step option) is available for GSTIFF and HHT, not WSTIFF"
        );
        let s = IntegratorSettings {
            adaptivity: Some(1e-8),
            ..w.clone()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: ADAPTIVITY affects only GSTIFF and HHT, not WSTIFF"
        );
        let s = IntegratorSettings {
            formulation: Some(Formulation::Si2),
            ..w
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
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
            ..Default::default()
        };
        assert_eq!(
            bdf_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: FIXIT (fixed-step option) is not supported yet"
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
