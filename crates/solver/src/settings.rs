//! One settings validator driven by one table of (integrator, formulation)
//! pairs (SPEC §1–2; seeds: INTEGRATOR arguments, "The HHT and Newmark
//! Integrators", "Fixed Step Integrator Option").
//!
//! `PAIRS` lists every pair that runs, with the arguments it honours; an
//! argument given to a pair that does not list it is rejected by name,
//! never ignored. `Arg` carries each argument's name in every front end
//! (the Adams INTEGRATOR statement/command now; MotionSolve
//! `Param_Transient` maps its attributes onto the same arguments), so a
//! range error speaks the user's own language, prefixed with the
//! statement's origin ("model.acf:3:1: INTEGRATOR: HMAX = -1 must be > 0").
//! Adding an integrator is one row here and one arm in `method_params`.

use crate::formulation::{formulation_of, DaeFormulation};
use mbsolve_integrate::{BdfParams, FixedStep, HhtParams, VarClass};
use mbsolve_model::{CorrectorKind, Formulation, IntegratorKind, IntegratorSettings};

/// Every argument of the dynamic integrators, by meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    Error,
    Hmax,
    Hmin,
    Hinit,
    Kmax,
    Maxit,
    Pattern,
    Corrector,
    Adaptivity,
    Interpolate,
    Fixit,
    Hratio,
    Maxerr,
    Alpha,
    Beta,
    Gamma,
}

/// Which reader the settings came from: its names are used in messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrontEnd {
    /// Adams INTEGRATOR / EQUILIBRIUM statements and commands.
    Adams,
    /// MotionSolve Param_Transient / Param_Static.
    MotionSolve,
}

impl FrontEnd {
    /// The front end an origin ("file:line:column") was written in: Adams
    /// for .adm/.acf files, MotionSolve for .xml; `default` without one.
    pub fn of_origin(origin: Option<&str>, default: FrontEnd) -> FrontEnd {
        let Some(o) = origin else { return default };
        let file = o.split(':').next().unwrap_or("").to_ascii_lowercase();
        if file.ends_with(".xml") {
            FrontEnd::MotionSolve
        } else if file.ends_with(".adm") || file.ends_with(".acf") {
            FrontEnd::Adams
        } else {
            default
        }
    }

    /// The statement name that prefixes integrator messages.
    fn integrator_statement(self) -> &'static str {
        match self {
            FrontEnd::Adams => "INTEGRATOR",
            FrontEnd::MotionSolve => "Param_Transient",
        }
    }
}

impl Arg {
    /// Every argument, in the order the checks report them.
    pub const ALL: [Arg; 16] = [
        Arg::Error,
        Arg::Hmax,
        Arg::Hmin,
        Arg::Hinit,
        Arg::Kmax,
        Arg::Maxit,
        Arg::Pattern,
        Arg::Corrector,
        Arg::Adaptivity,
        Arg::Interpolate,
        Arg::Fixit,
        Arg::Hratio,
        Arg::Maxerr,
        Arg::Alpha,
        Arg::Beta,
        Arg::Gamma,
    ];

    /// The argument's name in `front` (SPEC §2 for Adams, §3 for
    /// MotionSolve; arguments MotionSolve lacks keep the Adams name).
    pub fn name(self, front: FrontEnd) -> &'static str {
        let (adams, motionsolve) = match self {
            Arg::Error => ("ERROR", Some("integr_tol")),
            Arg::Hmax => ("HMAX", Some("h_max")),
            Arg::Hmin => ("HMIN", Some("h_min")),
            Arg::Hinit => ("HINIT", Some("h0_max")),
            Arg::Kmax => ("KMAX", Some("max_order")),
            Arg::Maxit => ("MAXIT", Some("dae_corrector_maxit")),
            Arg::Pattern => ("PATTERN", Some("dae_jacob_eval")),
            Arg::Corrector => ("CORRECTOR", None),
            Arg::Adaptivity => ("ADAPTIVITY", None),
            Arg::Interpolate => ("INTERPOLATE", Some("dae_interpolation")),
            Arg::Fixit => ("FIXIT", None),
            Arg::Hratio => ("HRATIO", None),
            Arg::Maxerr => ("MAXERR", None),
            Arg::Alpha => ("ALPHA", None),
            Arg::Beta => ("BETA", None),
            Arg::Gamma => ("GAMMA", None),
        };
        match front {
            FrontEnd::MotionSolve => motionsolve.unwrap_or(adams),
            FrontEnd::Adams => adams,
        }
    }

    /// Whether `s` gives this argument (INTERPOLATE = OFF is the default
    /// and counts as not given).
    fn given(self, s: &IntegratorSettings) -> bool {
        match self {
            Arg::Error => s.error.is_some(),
            Arg::Hmax => s.hmax.is_some(),
            Arg::Hmin => s.hmin.is_some(),
            Arg::Hinit => s.hinit.is_some(),
            Arg::Kmax => s.kmax.is_some(),
            Arg::Maxit => s.maxit.is_some(),
            Arg::Pattern => s.pattern.is_some(),
            Arg::Corrector => s.corrector.is_some(),
            Arg::Adaptivity => s.adaptivity.is_some(),
            Arg::Interpolate => s.interpolate == Some(true),
            Arg::Fixit => s.fixit.is_some(),
            Arg::Hratio => s.hratio.is_some(),
            Arg::Maxerr => s.maxerr.is_some(),
            Arg::Alpha => s.alpha.is_some(),
            Arg::Beta => s.beta.is_some(),
            Arg::Gamma => s.gamma.is_some(),
        }
    }
}

/// How the integrator of a pair advances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Fixed-coefficient BDF (GSTIFF; CONSTANT_BDF with `constant_step`).
    Gstiff,
    /// Variable-coefficient BDF (WSTIFF).
    Wstiff,
    /// HHT / Newmark on the second-order equations.
    Hht,
}

/// The HMIN default of a pair (SPEC §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HminDefault {
    /// 1e-6·HMAX (the output step when HMAX is unlimited): BDF on I3, whose
    /// Jacobian is ill-conditioned at small steps.
    MicroHmax,
    /// Machine precision (SI2; relative to max(1, HMAX) for HHT/NEWMARK).
    MachinePrecision,
}

/// One (integrator, formulation) pair the solver runs.
#[derive(Debug)]
pub struct Pair {
    pub kind: IntegratorKind,
    pub formulation: Formulation,
    pub family: Family,
    /// Arguments honoured (everything else is rejected by name).
    pub args: Args,
    /// Arguments of this pair that are not implemented yet: rejected as
    /// "not supported yet" rather than as misplaced.
    pub not_yet: &'static [Arg],
    pub hmin: HminDefault,
    /// The step is HMAX throughout (CONSTANT_BDF).
    pub constant_step: bool,
}

/// A set of arguments (one bit per `Arg`), so that rows of the table can
/// be built from one another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Args(u32);

impl Args {
    pub const fn of(args: &[Arg]) -> Args {
        let mut bits = 0u32;
        let mut i = 0;
        while i < args.len() {
            bits |= 1 << args[i] as u32;
            i += 1;
        }
        Args(bits)
    }
    pub const fn with(self, more: &[Arg]) -> Args {
        Args(self.0 | Args::of(more).0)
    }
    pub const fn without(self, less: &[Arg]) -> Args {
        Args(self.0 & !Args::of(less).0)
    }
    pub fn contains(self, a: Arg) -> bool {
        self.0 & (1 << a as u32) != 0
    }
}

use Arg::*;
/// The arguments every variable-step pair takes.
const COMMON: Args = Args::of(&[Error, Hmax, Hmin, Hinit, Kmax, Maxit, Pattern, Corrector]);
const BDF: Args = COMMON.with(&[Interpolate]);
/// The fixed-step option and ADAPTIVITY (GSTIFF and HHT; seeds).
const FIXED_STEP: &[Arg] = &[Fixit, Hratio, Maxerr];
const GSTIFF: Args = BDF.with(FIXED_STEP).with(&[Adaptivity]);
/// CONSTANT_BDF: the step is HMAX, so HINIT and HMIN would be ignored.
const CONSTANT_BDF: Args = BDF.without(&[Hinit, Hmin]);
/// KMAX is accepted and ignored by HHT/NEWMARK (constant order; SPEC §2).
const HHT: Args = COMMON
    .with(FIXED_STEP)
    .with(&[Adaptivity, Interpolate, Alpha]);
const NEWMARK: Args = COMMON.with(&[Adaptivity, Interpolate, Beta, Gamma]);
macro_rules! pair {
    ($kind:ident, $form:ident, $family:ident, $args:expr, $hmin:ident) => {
        pair!($kind, $form, $family, $args, $hmin, &[], false)
    };
    ($kind:ident, $form:ident, $family:ident, $args:expr, $hmin:ident, $not_yet:expr, $constant:expr) => {
        Pair {
            kind: IntegratorKind::$kind,
            formulation: Formulation::$form,
            family: Family::$family,
            args: $args,
            not_yet: $not_yet,
            hmin: HminDefault::$hmin,
            constant_step: $constant,
        }
    };
}

/// Every (integrator, formulation) pair that runs. The first row of an
/// integrator gives its default formulation.
pub const PAIRS: &[Pair] = &[
    pair!(Gstiff, I3, Gstiff, GSTIFF, MicroHmax),
    pair!(Gstiff, Si2, Gstiff, GSTIFF, MachinePrecision),
    pair!(Wstiff, I3, Wstiff, BDF, MicroHmax),
    pair!(Wstiff, Si2, Wstiff, BDF, MachinePrecision),
    pair!(ConstantBdf, I3, Gstiff, CONSTANT_BDF, MicroHmax, &[], true),
    pair!(
        ConstantBdf,
        Si2,
        Gstiff,
        CONSTANT_BDF,
        MachinePrecision,
        &[],
        true
    ),
    pair!(Hht, I3, Hht, HHT, MachinePrecision),
    pair!(Newmark, I3, Hht, NEWMARK, MachinePrecision),
];

pub(crate) const DEFAULT_PATTERN: [bool; 10] = [
    true, false, false, false, true, false, false, false, true, false,
];

pub(crate) fn fmt_pattern(p: &[bool]) -> String {
    p.iter()
        .map(|b| if *b { "T" } else { "F" })
        .collect::<Vec<_>>()
        .join(":")
}

/// A number as a user reads it: plain for 1e-4 ≤ |v| < 1e6 (0.01, -1,
/// 0.36), scientific otherwise (1e300, 1e-8), never a 301-digit integer.
pub fn fmt_num(v: f64) -> String {
    if v == 0.0 || !v.is_finite() || (1e-4..1e6).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

/// The parameters the integrator of a pair takes.
#[derive(Clone, Debug, PartialEq)]
pub enum MethodParams {
    Bdf(BdfParams),
    Hht(HhtParams),
}

/// Validated settings of a dynamic run.
#[derive(Clone, Debug)]
pub struct Plan {
    pub pair: &'static Pair,
    pub method: MethodParams,
    /// CORRECTOR as given or its default (ORIGINAL).
    pub corrector: CorrectorKind,
    /// INTERPOLATE = ON (forced off by the fixed-step option, seeds): step
    /// past output times and interpolate.
    pub interpolate: bool,
    /// Notes for the message log (arguments the seeds say are ignored).
    pub notes: Vec<String>,
}

impl Plan {
    pub fn formulation(&self) -> &'static dyn DaeFormulation {
        formulation_of(self.pair.formulation)
    }
    /// The settings BDF and HHT parameters share.
    fn shared(&self) -> Shared<'_> {
        macro_rules! shared {
            ($p:expr) => {
                Shared {
                    error: $p.error,
                    hmax: $p.hmax,
                    hmin: $p.hmin,
                    hinit: $p.hinit,
                    maxit: $p.maxit,
                    pattern: &$p.pattern,
                    adaptivity: $p.adaptivity,
                    fixed: $p.fixed.as_ref(),
                }
            };
        }
        match &self.method {
            MethodParams::Bdf(p) => shared!(p),
            MethodParams::Hht(p) => shared!(p),
        }
    }
    pub fn error(&self) -> f64 {
        self.shared().error
    }
    /// The step of the fixed-step option (None: variable step).
    pub fn fixed_step(&self) -> Option<f64> {
        let s = self.shared();
        s.fixed.map(|_| s.hinit)
    }
    pub fn interpolate(&self) -> bool {
        self.interpolate
    }

    /// One line for the message log with the effective values.
    pub fn describe(&self) -> String {
        let kind = self.pair.kind.name();
        let form = self.formulation().name();
        let Shared {
            error,
            hmax,
            hmin,
            hinit,
            maxit,
            pattern,
            adaptivity,
            fixed,
        } = self.shared();
        // HHT/NEWMARK: their coefficients first; BDF: KMAX and INTERPOLATE.
        let (coeffs, kmax) = match &self.method {
            MethodParams::Bdf(p) => (String::new(), format!(", KMAX = {}", p.kmax)),
            MethodParams::Hht(p) if self.pair.kind == IntegratorKind::Newmark => (
                format!(", BETA = {}, GAMMA = {}", p.beta, p.gamma),
                String::new(),
            ),
            MethodParams::Hht(p) => (
                format!(
                    ", ALPHA = {} (beta = {}, gamma = {})",
                    p.alpha, p.beta, p.gamma
                ),
                String::new(),
            ),
        };
        let order = if coeffs.is_empty() { ", order 1" } else { "" };
        match fixed {
            Some(f) => format!(
                "dynamic analysis: fixed-step {kind}, {form}{order}{coeffs}, step = {hinit:e}, FIXIT = {}, PATTERN = {}, MAXERR = {:e}",
                f.iterations,
                fmt_pattern(pattern),
                f.maxerr
            ),
            None => format!(
                "dynamic analysis: {kind}, {form}{coeffs}, ERROR = {error:e}, HMAX = {hmax:e}, HMIN = {hmin:e}, HINIT = {hinit:e}{kmax}, INTERPOLATE = {}, MAXIT = {maxit}, PATTERN = {}, CORRECTOR = {}, ADAPTIVITY = {adaptivity:e}",
                if self.interpolate { "ON" } else { "OFF" },
                fmt_pattern(pattern),
                corrector_name(self.corrector)
            ),
        }
    }
}

/// See `Plan::shared`.
struct Shared<'a> {
    error: f64,
    hmax: f64,
    hmin: f64,
    hinit: f64,
    maxit: usize,
    pattern: &'a [bool],
    adaptivity: f64,
    fixed: Option<&'a FixedStep>,
}

fn corrector_name(c: CorrectorKind) -> &'static str {
    match c {
        CorrectorKind::Original => "ORIGINAL",
        CorrectorKind::Modified => "MODIFIED",
        CorrectorKind::OrigConstant => "ORIG_CONSTANT",
    }
}

/// The pair the settings name, or the error saying why none runs.
pub fn pair_of(s: &IntegratorSettings) -> Result<&'static Pair, String> {
    let rows = || PAIRS.iter().filter(|p| p.kind == s.kind);
    let Some(first) = rows().next() else {
        return Err(format!(
            "the {} integrator is not supported yet",
            s.kind.name()
        ));
    };
    let Some(f) = s.formulation else {
        return Ok(first);
    };
    rows().find(|p| p.formulation == f).ok_or_else(|| {
        let with: Vec<&str> = PAIRS
            .iter()
            .filter(|p| p.formulation == f)
            .map(|p| p.kind.name())
            .collect();
        let form = formulation_name(f);
        if with.is_empty() {
            format!("{form} is not supported yet")
        } else {
            format!(
                "{form} is not available with {} (it runs with {})",
                s.kind.name(),
                with.join(", ")
            )
        }
    })
}

fn formulation_name(f: Formulation) -> &'static str {
    match f {
        Formulation::I3 => "I3",
        Formulation::Si2 => "SI2",
        Formulation::Si1 => "SI1",
    }
}

/// Validate the Adams INTEGRATOR settings of a dynamic run whose first
/// output step is `dtout`.
pub fn validate(s: &IntegratorSettings, dtout: f64) -> Result<Plan, String> {
    let front = FrontEnd::of_origin(s.origin.as_deref(), FrontEnd::Adams);
    validate_as(s, dtout, front)
}

/// `validate` with the messages in the names of `front`.
pub fn validate_as(s: &IntegratorSettings, dtout: f64, front: FrontEnd) -> Result<Plan, String> {
    let prefix = match &s.origin {
        Some(o) => format!("{o}: {}: ", front.integrator_statement()),
        None => format!("{}: ", front.integrator_statement()),
    };
    Checker { s, front }
        .plan(dtout)
        .map_err(|e| format!("{prefix}{e}"))
}

/// The BDF parameters of GSTIFF, WSTIFF or CONSTANT_BDF settings (the
/// quasi-static FIM_D integration).
pub fn bdf_params(s: &IntegratorSettings, dtout: f64) -> Result<BdfParams, String> {
    match validate(s, dtout)?.method {
        MethodParams::Bdf(p) => Ok(p),
        MethodParams::Hht(_) => Err(format!(
            "INTEGRATOR: {} is not a BDF integrator (GSTIFF, WSTIFF or CONSTANT_BDF)",
            s.kind.name()
        )),
    }
}

struct Checker<'a> {
    s: &'a IntegratorSettings,
    front: FrontEnd,
}

/// The validated fixed-step option.
struct FixedOption {
    fixed: FixedStep,
    /// The constant step: DTOUT/HRATIO, or a smaller HINIT.
    step: f64,
    pattern: Vec<bool>,
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

    /// Reject every given argument the pair does not honour.
    fn applicable(&self, pair: &Pair) -> Result<(), String> {
        let s = self.s;
        for a in Arg::ALL {
            if !a.given(s) || pair.args.contains(a) {
                continue;
            }
            if pair.not_yet.contains(&a) {
                return Err(format!(
                    "{} is not supported yet with {}",
                    self.n(a),
                    pair.kind.name()
                ));
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

    fn plan(&self, dtout: f64) -> Result<Plan, String> {
        let s = self.s;
        let pair = pair_of(s)?;
        self.applicable(pair)?;
        if !(dtout > 0.0 && dtout.is_finite()) {
            return Err(format!("the output step {} must be > 0", fmt_num(dtout)));
        }
        let mut notes = Vec::new();
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
        let steps = match &fixed {
            Some(f) => (f.step, f.step, f.step),
            None => self.steps(pair, dtout)?,
        };
        let method = match pair.family {
            Family::Hht => MethodParams::Hht(self.hht(pair, error, maxit, steps, fixed)?),
            Family::Gstiff | Family::Wstiff => {
                MethodParams::Bdf(self.bdf(pair, error, kmax, maxit, steps, fixed))
            }
        };
        Ok(Plan {
            pair,
            method,
            corrector,
            interpolate: s.interpolate == Some(true) && s.fixit.is_none(),
            notes,
        })
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
    /// are errors.
    fn fixed_option(&self, dtout: f64) -> Result<Option<FixedOption>, String> {
        let s = self.s;
        let Some(fixit) = s.fixit else {
            for a in [Hratio, Maxerr] {
                if a.given(s) {
                    return Err(format!(
                        "{} applies only to the fixed-step option (give {})",
                        self.n(a),
                        self.n(Fixit)
                    ));
                }
            }
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
        let step = dtout / hratio as f64;
        let step = match s.hinit {
            Some(hi) => self
                .real(Hinit, hi, hi > 0.0 && hi.is_finite(), "> 0")?
                .min(step),
            None => step,
        };
        Ok(Some(FixedOption {
            fixed: FixedStep { iterations, maxerr },
            step,
            pattern,
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
}

#[cfg(test)]
mod tests {
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
            "INTEGRATOR: ADAPTIVITY applies only to GSTIFF and HHT and NEWMARK, not to WSTIFF"
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
        assert_eq!(
            refused(IntegratorSettings {
                hratio: Some(2),
                ..Default::default()
            }),
            "INTEGRATOR: HRATIO applies only to the fixed-step option (give FIXIT)"
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
            "INTEGRATOR: SI2 is not available with HHT (it runs with GSTIFF, WSTIFF, CONSTANT_BDF)"
        );
        assert_eq!(
            refused(IntegratorSettings {
                formulation: Some(Formulation::Si1),
                ..Default::default()
            }),
            "INTEGRATOR: SI1 is not supported yet"
        );
        assert_eq!(
            refused(kind(IntegratorKind::Hastiff)),
            "INTEGRATOR: the HASTIFF integrator is not supported yet"
        );
        // SI2: machine-precision HMIN, velocities under error control and
        // converged with either corrector (seeds: "Error control in
        // corrector"); I3 keeps 1e-6·HMAX and displacements only.
        let dv = vec![
            VarClass::Displacement,
            VarClass::Velocity,
            VarClass::UserState,
        ];
        let p = bdf(&si2(IntegratorKind::Gstiff));
        assert_eq!(p.hmin, f64::EPSILON);
        assert_eq!(
            (p.error_classes.clone(), p.corrector_classes),
            (dv.clone(), dv.clone())
        );
        let modified = IntegratorSettings {
            corrector: Some(CorrectorKind::Modified),
            ..si2(IntegratorKind::Wstiff)
        };
        assert_eq!(bdf(&modified).corrector_classes, dv);
        assert!(bdf(&si2(IntegratorKind::ConstantBdf)).constant_step);
        let i3 = bdf(&IntegratorSettings::default());
        assert_eq!(
            i3.error_classes,
            vec![VarClass::Displacement, VarClass::UserState]
        );
        assert_eq!(i3.corrector_classes, dv);
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
}
