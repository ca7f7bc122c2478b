//! The validator behind `settings::validate`: defaults and ranges of
//! every argument, applied to the pair the settings name.

use super::*;

pub(super) struct Checker<'a> {
    pub s: &'a IntegratorSettings,
    pub front: FrontEnd,
}

/// The validated fixed-step option.
struct FixedOption {
    fixed: FixedStep,
    /// The constant step: DTOUT/HRATIO.
    step: f64,
    pattern: Vec<bool>,
    /// A HINIT other than the step, ignored.
    note: Option<String>,
}

impl Checker<'_> {
    fn n(&self, a: Arg) -> &'static str {
        a.name(self.front)
    }

    /// `v` satisfies `ok`, else "ARG = v must be `rule`".
    fn real(&self, a: Arg, v: f64, ok: bool, rule: &str) -> Result<f64, String> {
        if ok && !v.is_nan() {
            Ok(v)
        } else {
            Err(format!("{} = {} must be {rule}", self.n(a), fmt_num(v)))
        }
    }

    fn int(&self, a: Arg, v: i64, lo: i64, hi: Option<i64>) -> Result<usize, String> {
        let ok = v >= lo && hi.is_none_or(|h| v <= h);
        if ok {
            Ok(v as usize)
        } else {
            let rule = match hi {
                Some(h) => format!("from {lo} to {h}"),
                None => format!(">= {lo}"),
            };
            Err(format!("{} = {v} must be {rule}", self.n(a)))
        }
    }

    /// HRATIO and MAXERR without FIXIT: "only valid in the context of the
    /// fixed step option; so, it's ignored if FIXIT is unspecified"
    /// (seeds), whatever the integrator. One log line names them.
    fn ignored_without_fixit(&self) -> Option<String> {
        if self.s.fixit.is_some() {
            return None;
        }
        let given: Vec<&str> = [Hratio, Maxerr]
            .into_iter()
            .filter(|a| a.given(self.s))
            .map(|a| self.n(a))
            .collect();
        (!given.is_empty()).then(|| {
            format!(
                "{} ignored: {} only to the fixed-step option and {} is not given (seeds: \"it's ignored if FIXIT is unspecified\")",
                given.join(" and "),
                if given.len() == 1 { "it applies" } else { "they apply" },
                self.n(Fixit)
            )
        })
    }

    /// Reject every given argument the pair does not honour (HRATIO and
    /// MAXERR without FIXIT are ignored instead: `ignored_without_fixit`).
    fn applicable(&self, pair: &Pair) -> Result<(), String> {
        let s = self.s;
        for a in Arg::ALL {
            if !a.given(s) || pair.args.contains(a) {
                continue;
            }
            if matches!(a, Hratio | Maxerr) && s.fixit.is_none() {
                continue;
            }
            if pair.constant_step && matches!(a, Hinit | Hmin) {
                return Err(format!(
                    "{} has no effect with CONSTANT_BDF (its step is HMAX, default the output step)",
                    self.n(a)
                ));
            }
            let mut takers: Vec<&str> = PAIRS
                .iter()
                .filter(|p| p.args.contains(a))
                .map(|p| p.kind.name())
                .collect();
            takers.dedup();
            return Err(format!(
                "{} applies only to {}, not to {}",
                self.n(a),
                takers.join(" and "),
                pair.kind.name()
            ));
        }
        Ok(())
    }

    pub(super) fn plan(&self, dtout: f64) -> Result<Plan, String> {
        let s = self.s;
        if s.kind == IntegratorKind::Dstiff {
            return self.dstiff(dtout);
        }
        let pair = pair_of(s)?;
        self.applicable(pair)?;
        if !(dtout > 0.0 && dtout.is_finite()) {
            return Err(format!("the output step {} must be > 0", fmt_num(dtout)));
        }
        let mut notes: Vec<String> = self.ignored_without_fixit().into_iter().collect();
        if pair.family == Family::Ode {
            let mut plan = self.ode_plan(pair, dtout)?;
            plan.notes.splice(0..0, notes);
            return Ok(plan);
        }
        // MotionSolve's ODE-form tolerance attributes (SPEC §3).
        for (name, given) in [
            ("vel_tol_factor", s.vel_tol_factor.is_some()),
            ("rel_abs_tol_ratio", s.rel_abs_tol_ratio.is_some()),
        ] {
            if given {
                return Err(format!(
                    "{name} applies only to the ODE form (ABAM, RKF45, VSTIFF, MSTIFF), not to {}",
                    pair.kind.name()
                ));
            }
        }
        if s.kmax.is_some() && pair.family == Family::Hht {
            notes.push(format!(
                "KMAX ignored: {} is a constant-order integrator",
                pair.kind.name()
            ));
        }
        let kmax = self.int(Kmax, s.kmax.unwrap_or(6), 1, Some(6))?;
        let maxit = self.int(Maxit, s.maxit.unwrap_or(10), 1, None)?;
        let error = s.error.unwrap_or(s.kind.default_error());
        self.real(Error, error, error > 0.0 && error.is_finite(), "> 0")?;
        if let Some(p) = &s.pattern {
            if p.is_empty() || p.len() > 10 {
                return Err(format!(
                    "{} has {} values; it takes 1 to 10 of T/F",
                    self.n(Pattern),
                    p.len()
                ));
            }
        }
        if let Some(a) = s.adaptivity {
            self.real(
                Adaptivity,
                a,
                a >= 0.0 && a.is_finite(),
                ">= 0 (0 turns it off)",
            )?;
        }
        let corrector = s.corrector.unwrap_or(CorrectorKind::Original);
        let fixed = self.fixed_option(dtout)?;
        notes.extend(fixed.as_ref().and_then(|f| f.note.clone()));
        let steps = match &fixed {
            Some(f) => (f.step, f.step, f.step),
            None => self.steps(pair, dtout)?,
        };
        let method = match pair.family {
            Family::Hht => MethodParams::Hht(self.hht(pair, error, maxit, steps, fixed)?),
            Family::Gstiff | Family::Wstiff | Family::Hastiff | Family::Dstiff => {
                MethodParams::Bdf(self.bdf(pair, error, kmax, maxit, steps, fixed))
            }
            Family::Ode => return self.ode_plan(pair, dtout),
        };
        Ok(Plan {
            pair,
            method,
            corrector,
            interpolate: s.interpolate == Some(true) && s.fixit.is_none(),
            reconcile: true,
            notes,
        })
    }

    /// `INTEGRATOR/DSTIFF`: the arguments DSTIFF takes (its first row)
    /// mapped onto Param_Transient's DAE form, whose defaults and ranges
    /// apply (param_transient.rs); SI1 is refused until its row exists.
    fn dstiff(&self, dtout: f64) -> Result<Plan, String> {
        let first = PAIRS
            .iter()
            .find(|p| p.kind == IntegratorKind::Dstiff)
            .ok_or("DSTIFF has no row in the settings table")?;
        if self.s.formulation == Some(Formulation::Si2) {
            // "SI2 is not available with DSTIFF (it runs with …)".
            pair_of(self.s)?;
        }
        self.applicable(first)?;
        let mut plan = param_transient::from_adams(self.s)?
            .plan(dtout, self.front)
            .map_err(|(_, e)| e)?;
        plan.notes.extend(self.ignored_without_fixit());
        Ok(plan)
    }

    /// (HMAX, HMIN, HINIT) of a variable-step run.
    fn steps(&self, pair: &Pair, dtout: f64) -> Result<(f64, f64, f64), String> {
        let s = self.s;
        // HMAX: the output step; with INTERPOLATE = ON no limit (seeds).
        let hmax = match s.hmax {
            Some(h) => self.real(Hmax, h, h > 0.0 && h.is_finite(), "> 0")?,
            None if s.interpolate == Some(true) && !pair.constant_step => f64::INFINITY,
            None => dtout,
        };
        let hmin = match (s.hmin, pair.hmin) {
            (Some(h), _) => h,
            (None, HminDefault::MicroHmax) => 1e-6 * hmax.min(dtout),
            // Relative to the step range: HMAX, or the output step when
            // INTERPOLATE = ON leaves HMAX unlimited.
            (None, HminDefault::MachinePrecision) if pair.family == Family::Hht => {
                f64::EPSILON * if hmax.is_finite() { hmax } else { dtout }.max(1.0)
            }
            (None, HminDefault::MachinePrecision) => f64::EPSILON,
        };
        self.real(
            Hmin,
            hmin,
            hmin > 0.0 && hmin < hmax,
            &format!("> 0 and < {} = {}", self.n(Hmax), fmt_num(hmax)),
        )?;
        let hinit = match s.hinit {
            Some(h) => self.real(
                Hinit,
                h,
                h > hmin && h <= hmax,
                &format!(
                    "> {} = {} and <= {} = {}",
                    self.n(Hmin),
                    fmt_num(hmin),
                    self.n(Hmax),
                    fmt_num(hmax)
                ),
            )?,
            None if pair.constant_step => hmax,
            None => (dtout / 20.0).min(hmax).max(hmin),
        };
        Ok((hmax, hmin, hinit))
    }

    /// FIXIT given: FIXIT (1..10), HRATIO (positive integer), MAXERR (> 0),
    /// PATTERN (not all F) and HINIT; HMAX, HMIN, ERROR, MAXIT, KMAX and
    /// CORRECTOR are then ignored (seeds). Without FIXIT, HRATIO and MAXERR
    /// are ignored (`ignored_without_fixit`).
    fn fixed_option(&self, dtout: f64) -> Result<Option<FixedOption>, String> {
        let s = self.s;
        let Some(fixit) = s.fixit else {
            return Ok(None);
        };
        let iterations = self.int(Fixit, fixit, 1, Some(10))?;
        let hratio = self.int(Hratio, s.hratio.unwrap_or(1), 1, None)?;
        let maxerr = s.maxerr.unwrap_or(f64::INFINITY);
        self.real(Maxerr, maxerr, maxerr > 0.0, "> 0")?;
        let pattern = s
            .pattern
            .clone()
            .unwrap_or_else(|| DEFAULT_PATTERN.to_vec());
        if pattern.iter().all(|p| !p) {
            return Err(format!(
                "{} = {} (adaptive Jacobian evaluation) is not allowed with {}",
                self.n(Pattern),
                fmt_pattern(&pattern),
                self.n(Fixit)
            ));
        }
        // "The integration step size remains 'constant' or 'fixed'
        // throughout the simulation … The combination of DTOUT and HRATIO
        // settings specifies the integration step size"; a larger HINIT
        // "will reset it = DTOUT/HRATIO" (seeds). A smaller one cannot be
        // the step either (it would not be DTOUT/HRATIO nor constant up to
        // the outputs): it is ignored with a log line.
        let step = dtout / hratio as f64;
        let note = match s.hinit {
            Some(hi) => {
                self.real(Hinit, hi, hi > 0.0 && hi.is_finite(), "> 0")?;
                (hi != step).then(|| {
                    format!(
                        "{} = {} ignored: the fixed step is DTOUT/{} = {} throughout (seeds: fixed-step option)",
                        self.n(Hinit),
                        fmt_num(hi),
                        self.n(Hratio),
                        fmt_num(step)
                    )
                })
            }
            None => None,
        };
        Ok(Some(FixedOption {
            fixed: FixedStep { iterations, maxerr },
            step,
            pattern,
            note,
        }))
    }

    fn adaptivity(&self, pair: &Pair, error: f64, hmin: f64) -> f64 {
        // On by default where the pair takes it: at h = 100·HMIN it doubles
        // the tolerance; 0 turns it off.
        match self.s.adaptivity {
            Some(a) => a,
            None if pair.args.contains(Adaptivity) => error * 100.0 * hmin,
            None => 0.0,
        }
    }

    fn bdf(
        &self,
        pair: &Pair,
        error: f64,
        kmax: usize,
        maxit: usize,
        (hmax, hmin, hinit): (f64, f64, f64),
        fixed: Option<FixedOption>,
    ) -> BdfParams {
        let form = formulation_of(pair.formulation);
        let error_classes = form.error_classes().to_vec();
        if let Some(f) = fixed {
            // Order 1 at h = DTOUT/HRATIO (seeds).
            return BdfParams {
                error,
                hmax,
                hmin,
                hinit,
                kmax: 1,
                maxit: f.fixed.iterations,
                pattern: f.pattern,
                error_classes,
                // Exactly FIXIT iterations: convergence is only watched on
                // the displacements.
                corrector_classes: vec![VarClass::Displacement],
                adaptivity: 0.0,
                fixed: Some(f.fixed),
                constant_step: false,
                interpolate: false,
            };
        }
        let corrector = self.s.corrector.unwrap_or(CorrectorKind::Original);
        BdfParams {
            error,
            hmax,
            hmin,
            hinit,
            kmax,
            maxit,
            pattern: self
                .s
                .pattern
                .clone()
                .unwrap_or_else(|| DEFAULT_PATTERN.to_vec()),
            error_classes,
            corrector_classes: form.corrector_classes(corrector).to_vec(),
            adaptivity: self.adaptivity(pair, error, hmin),
            fixed: None,
            constant_step: pair.constant_step,
            interpolate: self.s.interpolate == Some(true),
        }
    }

    fn hht(
        &self,
        pair: &Pair,
        error: f64,
        maxit: usize,
        (hmax, hmin, hinit): (f64, f64, f64),
        fixed: Option<FixedOption>,
    ) -> Result<HhtParams, String> {
        let s = self.s;
        // α, β, γ (seeds: β = (1−α)²/4, γ = 1/2 − α for HHT; Newmark
        // stability: γ ≥ 1/2, β ≥ (γ + 1/2)²/4).
        let (alpha, beta, gamma) = if pair.kind == IntegratorKind::Newmark {
            let beta = s.beta.unwrap_or(0.36);
            let gamma = s.gamma.unwrap_or(0.7);
            if !(gamma.is_finite() && gamma >= 0.5) {
                return Err(format!(
                    "{} = {} violates the Newmark stability condition GAMMA >= 0.5",
                    self.n(Gamma),
                    fmt_num(gamma)
                ));
            }
            let bmin = (gamma + 0.5) * (gamma + 0.5) / 4.0;
            if !(beta.is_finite() && beta >= bmin * (1.0 - 1e-12)) {
                return Err(format!(
                    "{} = {} violates the Newmark stability condition BETA >= (GAMMA + 0.5)^2/4 = {} for GAMMA = {}",
                    self.n(Beta),
                    fmt_num(beta),
                    fmt_num(bmin),
                    fmt_num(gamma)
                ));
            }
            (0.0, beta, gamma)
        } else {
            let alpha = s.alpha.unwrap_or(-0.3);
            self.real(
                Alpha,
                alpha,
                (-1.0 / 3.0 - 1e-12..=0.0).contains(&alpha),
                ">= -1/3 and <= 0",
            )?;
            (alpha, (1.0 - alpha) * (1.0 - alpha) / 4.0, 0.5 - alpha)
        };
        let converge_multipliers = !matches!(s.corrector, Some(CorrectorKind::Modified));
        let (maxit, pattern, adaptivity, fixed) = match fixed {
            Some(f) => (f.fixed.iterations, f.pattern, 0.0, Some(f.fixed)),
            None => (
                maxit,
                s.pattern.clone().unwrap_or_else(|| vec![false]),
                self.adaptivity(pair, error, hmin),
                None,
            ),
        };
        Ok(HhtParams {
            alpha,
            beta,
            gamma,
            error,
            hmax,
            hmin,
            hinit,
            maxit,
            pattern,
            converge_multipliers,
            adaptivity,
            fixed,
        })
    }

    /// The ODE form (ABAM, RKF45): ERROR (default 1e-3), HMAX (default
    /// the output step), HMIN (machine precision), HINIT → the bound on
    /// the first step (default: 1/20 of the output step, MotionSolve's
    /// h0_max = 1e-8 from a MotionSolve file), KMAX (ABAM 1..12,
    /// default 12), MAXIT (Newton iterations on the dependent
    /// coordinates, default 10), and MotionSolve's `vel_tol_factor` and
    /// `rel_abs_tol_ratio` (> 0, default 1: Adams' ERROR weighs every
    /// state alike).
    fn ode_plan(&self, pair: &'static Pair, dtout: f64) -> Result<Plan, String> {
        let s = self.s;
        // KMAX: each method's own highest order is its default and bound
        // (SPEC §3: ABAM 12, VSTIFF 5, MSTIFF 9).
        let top = match pair.kind {
            IntegratorKind::Abam => ODE_ABAM_MAX_ORDER,
            IntegratorKind::Vstiff => mbsolve_integrate::ode::vstiff::VSTIFF_MAX_ORDER,
            IntegratorKind::Mstiff => mbsolve_integrate::ode::mstiff::MSTIFF_MAX_ORDER,
            _ => ODE_RKF45_ORDER,
        };
        let max_order = match pair.kind {
            IntegratorKind::Rkf45 => ODE_RKF45_ORDER,
            _ => self.int(Kmax, s.kmax.unwrap_or(top as i64), 1, Some(top as i64))?,
        };
        let maxit = self.int(Maxit, s.maxit.unwrap_or(10), 1, None)?;
        let error = s.error.unwrap_or(s.kind.default_error());
        self.real(Error, error, error > 0.0 && error.is_finite(), "> 0")?;
        // HMAX, HMIN and HINIT as every variable-step pair takes them;
        // HINIT bounds the first step (h0_max), whose MotionSolve default
        // differs from Adams' DTOUT/20.
        let (hmax, hmin, hinit) = self.steps(pair, dtout)?;
        let h0_max = match s.hinit {
            None if self.front == FrontEnd::MotionSolve => ODE_H0_MAX_DEFAULT.min(hmax),
            _ => hinit,
        };
        let factor = |name: &str, v: Option<f64>, zero: bool| match v {
            Some(x) if !(x.is_finite() && (x > 0.0 || (zero && x == 0.0))) => Err(format!(
                "{name} = {} must be {}",
                fmt_num(x),
                if zero { ">= 0" } else { "> 0" }
            )),
            Some(x) => Ok(x),
            None => Ok(ODE_TOLERANCE_FACTOR_DEFAULT),
        };
        let vel_tol_factor = factor("vel_tol_factor", s.vel_tol_factor, false)?;
        // 0: absolute tolerance only (the MotionSolve reader's range, and
        // what the ODE methods' weight ERROR·(1 + ratio·|y|) takes).
        let rel_abs_tol_ratio = factor("rel_abs_tol_ratio", s.rel_abs_tol_ratio, true)?;
        // Which velocity scale the run uses, and why (issue 32): each
        // product's own rule.
        let velocity_scale = match self.front {
            FrontEnd::MotionSolve => format!(
                "velocity error scale: vel_tol_factor = {} x integr_tol (MotionSolve Param_Transient; its default is 1000, the seed's Table 1 scale for velocities)",
                fmt_num(vel_tol_factor)
            ),
            FrontEnd::Adams if s.vel_tol_factor.is_some() => format!(
                "velocity error scale: vel_tol_factor = {} x ERROR (as given)",
                fmt_num(vel_tol_factor)
            ),
            FrontEnd::Adams => format!(
                "velocity error scale: {} x ERROR (Adams INTEGRATOR/{} has no vel_tol_factor: ERROR bounds velocities as it bounds displacements; MotionSolve decks use vel_tol_factor, default 1000)",
                fmt_num(vel_tol_factor),
                pair.kind.name()
            ),
        };
        Ok(Plan {
            pair,
            method: MethodParams::Ode(OdeParams {
                error,
                rel_abs_tol_ratio,
                vel_tol_factor,
                hmax,
                hmin,
                h0_max,
                max_order,
                maxit,
            }),
            corrector: CorrectorKind::Original,
            // INTERPOLATE = ON: the ODE methods step past the outputs and
            // interpolate the reduced state (partition.rs).
            interpolate: s.interpolate == Some(true),
            reconcile: true,
            notes: vec![velocity_scale],
        })
    }
}

/// ABAM's highest order (Shampine–Gordon; MotionSolve max_order table).
const ODE_ABAM_MAX_ORDER: usize = mbsolve_integrate::ode::abam::ABAM_MAX_ORDER;
/// RKF45's order (the propagated 5th-order solution).
const ODE_RKF45_ORDER: usize = 5;
/// `vel_tol_factor` and `rel_abs_tol_ratio` when not given (Adams
/// INTEGRATOR/ABAM, RKF45, VSTIFF, MSTIFF): 1, every state weighed by
/// ERROR·(1 + |y|) as Adams' ERROR does. MotionSolve decks always give
/// them: vel_tol_factor defaults to 1000 there (param_transient.rs, seed
/// Table 1).
const ODE_TOLERANCE_FACTOR_DEFAULT: f64 = 1.0;
/// MotionSolve's default h0_max (seeds: "The default value for h0_max is
/// 1.0E-8").
const ODE_H0_MAX_DEFAULT: f64 = 1e-8;
