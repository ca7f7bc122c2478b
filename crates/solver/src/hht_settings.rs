//! INTEGRATOR settings → validated HHT / NEWMARK parameters with the
//! documented defaults (seeds: INTEGRATOR arguments, "The HHT and Newmark
//! Integrators", "Fixed Step Integrator Option"; SPEC §2).

use mbsolve_integrate::HhtParams;
use mbsolve_model::{CorrectorKind, Formulation, IntegratorKind, IntegratorSettings};

use crate::settings::{fixed_step_option, fmt_pattern};

/// Validate the settings of an HHT or NEWMARK run whose output step is
/// `dtout`. Defaults: ALPHA −0.3 (HHT), BETA 0.36 and GAMMA 0.7 (NEWMARK),
/// ERROR 1e-5, HMAX = output step, HMIN = machine precision relative to
/// max(1, HMAX), HINIT = output step / 20, MAXIT 10, PATTERN F (adaptive) or
/// T:F:F:F:T:F:F:F:T:F with FIXIT, CORRECTOR ORIGINAL, ADAPTIVITY
/// ERROR·100·HMIN (the tolerance doubles at h = 100·HMIN and grows as 1/h
/// below it).
pub fn hht_params(s: &IntegratorSettings, dtout: f64) -> Result<HhtParams, String> {
    let name = s.kind.name();
    let newmark = match s.kind {
        IntegratorKind::Hht => false,
        IntegratorKind::Newmark => true,
        _ => {
            return Err(format!(
                "INTEGRATOR: {name} is not an HHT/NEWMARK integrator"
            ))
        }
    };
    match s.formulation {
        None | Some(Formulation::I3) => {}
        Some(Formulation::Si2) => {
            return Err(format!(
                "INTEGRATOR: SI2 is not available with {name} (HHT and NEWMARK use I3)"
            ))
        }
        Some(Formulation::Si1) => {
            return Err("INTEGRATOR: SI1 is only available with HASTIFF".into())
        }
    }
    if s.interpolate == Some(true) {
        return Err("INTEGRATOR: INTERPOLATE = ON is not supported yet".into());
    }
    if !(dtout > 0.0 && dtout.is_finite()) {
        return Err(format!("output step {dtout} must be positive"));
    }

    // α, β, γ (seeds: β = (1−α)²/4, γ = 1/2 − α for HHT; Newmark
    // A-stability: γ ≥ 1/2, β ≥ (γ + 1/2)²/4).
    let (alpha, beta, gamma) = if newmark {
        if let Some(a) = s.alpha {
            return Err(format!(
                "INTEGRATOR: ALPHA = {a} applies only to HHT; NEWMARK takes BETA and GAMMA"
            ));
        }
        let beta = s.beta.unwrap_or(0.36);
        let gamma = s.gamma.unwrap_or(0.7);
        if !(gamma.is_finite() && gamma >= 0.5) {
            return Err(format!(
                "INTEGRATOR: GAMMA = {gamma} violates the Newmark stability condition GAMMA >= 0.5"
            ));
        }
        let bmin = (gamma + 0.5) * (gamma + 0.5) / 4.0;
        if !(beta.is_finite() && beta >= bmin * (1.0 - 1e-12)) {
            return Err(format!(
                "INTEGRATOR: BETA = {beta} violates the Newmark stability condition BETA >= (GAMMA + 0.5)^2/4 = {bmin} for GAMMA = {gamma}"
            ));
        }
        (0.0, beta, gamma)
    } else {
        for (given, arg) in [(s.beta, "BETA"), (s.gamma, "GAMMA")] {
            if let Some(v) = given {
                return Err(format!(
                    "INTEGRATOR: {arg} = {v} applies only to NEWMARK; HHT derives it from ALPHA"
                ));
            }
        }
        let alpha = s.alpha.unwrap_or(-0.3);
        if !(-1.0 / 3.0 - 1e-12..=0.0).contains(&alpha) {
            return Err(format!(
                "INTEGRATOR: ALPHA = {alpha} is out of range (-1/3 <= ALPHA <= 0)"
            ));
        }
        (alpha, (1.0 - alpha) * (1.0 - alpha) / 4.0, 0.5 - alpha)
    };

    if let Some(k) = s.kmax {
        // Ignored by HHT and NEWMARK (constant order), but still a KMAX.
        if !(1..=6).contains(&k) {
            return Err(format!("INTEGRATOR: KMAX = {k} is out of range (1 to 6)"));
        }
    }
    let error = s.error.unwrap_or(1e-5);
    if !(error > 0.0 && error.is_finite()) {
        return Err(format!(
            "INTEGRATOR: ERROR = {error} is out of range (ERROR > 0)"
        ));
    }
    let maxit = s.maxit.unwrap_or(10);
    if maxit < 1 {
        return Err(format!(
            "INTEGRATOR: MAXIT = {maxit} is out of range (MAXIT > 0)"
        ));
    }
    if let Some(p) = &s.pattern {
        if p.is_empty() || p.len() > 10 {
            return Err(format!(
                "INTEGRATOR: PATTERN has {} values; it takes 1 to 10 of T/F",
                p.len()
            ));
        }
    }
    let converge_multipliers = !matches!(s.corrector, Some(CorrectorKind::Modified));

    if s.fixit.is_some() && newmark {
        return Err(
            "INTEGRATOR: FIXIT (fixed-step option) is available for GSTIFF and HHT, not NEWMARK"
                .into(),
        );
    }
    if let Some(f) = fixed_step_option(s, dtout)? {
        return Ok(HhtParams {
            alpha,
            beta,
            gamma,
            error,
            hmax: f.step,
            hmin: f.step,
            hinit: f.step,
            maxit: f.fixed.iterations,
            pattern: f.pattern,
            converge_multipliers,
            adaptivity: 0.0,
            fixed: Some(f.fixed),
        });
    }

    let hmax = s.hmax.unwrap_or(dtout);
    if !(hmax > 0.0 && hmax.is_finite()) {
        return Err(format!(
            "INTEGRATOR: HMAX = {hmax} is out of range (HMAX > 0)"
        ));
    }
    let hmin = s.hmin.unwrap_or(f64::EPSILON * hmax.max(1.0));
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
    let adaptivity = match s.adaptivity {
        Some(a) if a >= 0.0 && a.is_finite() => a,
        Some(a) => {
            return Err(format!(
                "INTEGRATOR: ADAPTIVITY = {a} is out of range (ADAPTIVITY >= 0; 0 turns it off)"
            ))
        }
        None => error * 100.0 * hmin,
    };
    Ok(HhtParams {
        alpha,
        beta,
        gamma,
        error,
        hmax,
        hmin,
        hinit,
        maxit: maxit as usize,
        pattern: s.pattern.clone().unwrap_or_else(|| vec![false]),
        converge_multipliers,
        adaptivity,
        fixed: None,
    })
}

/// One line for the message log with the effective values.
pub fn describe(p: &HhtParams, kind: IntegratorKind) -> String {
    let coeffs = if kind == IntegratorKind::Newmark {
        format!("BETA = {}, GAMMA = {}", p.beta, p.gamma)
    } else {
        format!(
            "ALPHA = {} (beta = {}, gamma = {})",
            p.alpha, p.beta, p.gamma
        )
    };
    let corrector = if p.converge_multipliers {
        "ORIGINAL"
    } else {
        "MODIFIED"
    };
    match &p.fixed {
        Some(f) => format!(
            "dynamic analysis: fixed-step {}, I3, {coeffs}, step = {:e}, FIXIT = {}, PATTERN = {}, MAXERR = {:e}",
            kind.name(),
            p.hinit,
            f.iterations,
            fmt_pattern(&p.pattern),
            f.maxerr
        ),
        None => format!(
            "dynamic analysis: {}, I3, {coeffs}, ERROR = {:e}, HMAX = {:e}, HMIN = {:e}, HINIT = {:e}, MAXIT = {}, PATTERN = {}, CORRECTOR = {corrector}, ADAPTIVITY = {:e}",
            kind.name(),
            p.error,
            p.hmax,
            p.hmin,
            p.hinit,
            p.maxit,
            fmt_pattern(&p.pattern),
            p.adaptivity
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hht() -> IntegratorSettings {
        IntegratorSettings {
            kind: IntegratorKind::Hht,
            ..Default::default()
        }
    }
    fn newmark() -> IntegratorSettings {
        IntegratorSettings {
            kind: IntegratorKind::Newmark,
            ..Default::default()
        }
    }

    #[test]
    fn defaults_follow_the_seeds() {
        let p = hht_params(&hht(), 0.01).unwrap();
        assert_eq!(p.alpha, -0.3);
        assert!((p.beta - 0.4225).abs() < 1e-15 && (p.gamma - 0.8).abs() < 1e-15);
        assert_eq!(p.error, 1e-5);
        assert_eq!(p.hmax, 0.01);
        assert_eq!(p.hmin, f64::EPSILON);
        assert!((p.hinit - 5e-4).abs() < 1e-15);
        assert_eq!((p.maxit, p.pattern.clone()), (10, vec![false]));
        assert!(p.converge_multipliers && p.fixed.is_none());
        assert_eq!(p.order(), 2);
        let p = hht_params(&newmark(), 0.01).unwrap();
        assert_eq!((p.alpha, p.beta, p.gamma), (0.0, 0.36, 0.7));
        assert_eq!(p.order(), 1);
    }

    #[test]
    fn newmark_stability_condition_names_the_parameter() {
        let mut s = newmark();
        s.gamma = Some(0.4);
        assert_eq!(
            hht_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: GAMMA = 0.4 violates the Newmark stability condition GAMMA >= 0.5"
        );
        s.gamma = Some(0.7);
        s.beta = Some(0.3);
        let e = hht_params(&s, 0.01).unwrap_err();
        assert!(
            e.starts_with("INTEGRATOR: BETA = 0.3 violates the Newmark stability condition"),
            "{e}"
        );
        s.beta = Some(0.25);
        s.gamma = Some(0.5);
        assert_eq!(hht_params(&s, 0.01).unwrap().order(), 2);
    }

    #[test]
    fn out_of_range_and_misplaced_arguments_are_rejected() {
        let mut s = hht();
        s.alpha = Some(-0.4);
        assert_eq!(
            hht_params(&s, 0.01).unwrap_err(),
            "INTEGRATOR: ALPHA = -0.4 is out of range (-1/3 <= ALPHA <= 0)"
        );
        s.alpha = Some(0.1);
        assert!(hht_params(&s, 0.01).is_err());
        s.alpha = Some(-0.333333);
        assert!(hht_params(&s, 0.01).is_ok());
        s.alpha = None;
        s.beta = Some(0.3);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("BETA = 0.3 applies only to NEWMARK"));
        let mut s = newmark();
        s.alpha = Some(-0.1);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("ALPHA = -0.1 applies only to HHT"));
        let mut s = hht();
        s.formulation = Some(Formulation::Si2);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("SI2 is not available with HHT"));
        let mut s = hht();
        s.hratio = Some(2);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("HRATIO applies only"));
        let mut s = hht();
        s.interpolate = Some(true);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("not supported yet"));
        let mut s = hht();
        s.adaptivity = Some(-1.0);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("ADAPTIVITY = -1"));
        s.adaptivity = Some(0.0);
        assert_eq!(hht_params(&s, 0.01).unwrap().adaptivity, 0.0);
    }

    #[test]
    fn fixed_step_option() {
        let mut s = hht();
        s.fixit = Some(3);
        s.hratio = Some(4);
        let p = hht_params(&s, 0.01).unwrap();
        assert_eq!(p.hinit, 0.0025);
        assert_eq!(p.pattern, crate::settings::DEFAULT_PATTERN.to_vec());
        assert_eq!(p.fixed.as_ref().unwrap().iterations, 3);
        s.pattern = Some(vec![false]);
        assert!(hht_params(&s, 0.01)
            .unwrap_err()
            .contains("is not allowed with FIXIT"));
        let mut s = newmark();
        s.fixit = Some(3);
        assert!(hht_params(&s, 0.01).unwrap_err().contains("not NEWMARK"));
    }
}
