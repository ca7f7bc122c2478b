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
use mbsolve_integrate::{BdfParams, DstiffParams, FixedStep, HhtParams, OdeParams, VarClass};
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
        // "file:line:column": the file is what precedes the last two
        // fields (it may itself contain ':', e.g. a drive letter).
        let file = o.rsplitn(3, ':').nth(2).unwrap_or(o).to_ascii_lowercase();
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

impl Arg {
    /// Whether `s` gives this argument (see `given`).
    pub fn is_given(self, s: &IntegratorSettings) -> bool {
        self.given(s)
    }

    /// Whether some row of `kind` honours this argument.
    pub fn taken_by(self, kind: IntegratorKind) -> bool {
        PAIRS
            .iter()
            .any(|p| p.kind == kind && p.args.contains(self))
    }

    /// Move this argument's value, when `from` has one, to `to`.
    pub fn move_value(self, from: &mut IntegratorSettings, to: &mut IntegratorSettings) {
        fn mv<T>(a: &mut Option<T>, b: &mut Option<T>) {
            if a.is_some() {
                *b = a.take();
            }
        }
        let (f, t) = (from, to);
        match self {
            Arg::Error => mv(&mut f.error, &mut t.error),
            Arg::Hmax => mv(&mut f.hmax, &mut t.hmax),
            Arg::Hmin => mv(&mut f.hmin, &mut t.hmin),
            Arg::Hinit => mv(&mut f.hinit, &mut t.hinit),
            Arg::Kmax => mv(&mut f.kmax, &mut t.kmax),
            Arg::Maxit => mv(&mut f.maxit, &mut t.maxit),
            Arg::Pattern => mv(&mut f.pattern, &mut t.pattern),
            Arg::Corrector => mv(&mut f.corrector, &mut t.corrector),
            Arg::Adaptivity => mv(&mut f.adaptivity, &mut t.adaptivity),
            Arg::Interpolate => mv(&mut f.interpolate, &mut t.interpolate),
            Arg::Fixit => mv(&mut f.fixit, &mut t.fixit),
            Arg::Hratio => mv(&mut f.hratio, &mut t.hratio),
            Arg::Maxerr => mv(&mut f.maxerr, &mut t.maxerr),
            Arg::Alpha => mv(&mut f.alpha, &mut t.alpha),
            Arg::Beta => mv(&mut f.beta, &mut t.beta),
            Arg::Gamma => mv(&mut f.gamma, &mut t.gamma),
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
    /// HASTIFF: WSTIFF's variable-coefficient BDF iterating on y′.
    Hastiff,
    /// HHT / Newmark on the second-order equations.
    Hht,
    /// DASPK-style BDF (DSTIFF), any first-order formulation.
    Dstiff,
    /// An explicit or stiff ODE method on the coordinate-partitioned
    /// equations (ABAM, RKF45, VSTIFF, MSTIFF).
    Ode,
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
/// NEWMARK: no ADAPTIVITY ("ADAPTIVITY affects only the GSTIFF and HHT
/// integrators in C++ Solver", seeds), refused by name as for WSTIFF, and
/// not on by default.
const NEWMARK: Args = COMMON.with(&[Interpolate, Beta, Gamma]);
/// The Adams arguments `INTEGRATOR/DSTIFF` maps onto Param_Transient
/// (param_transient.rs; README table); PATTERN, CORRECTOR and the rest
/// have no DSTIFF meaning and are rejected by name.
const DSTIFF: Args = Args::of(&[Error, Hmax, Hmin, Hinit, Kmax, Maxit, Interpolate]);
/// The ODE form (README "Adams arguments of the ODE form"): HINIT bounds
/// the first step (MotionSolve h0_max), MAXIT limits the Newton iterations
/// on the dependent coordinates, KMAX the order (ABAM 1..12; RKF45 has one
/// order and rejects it). VSTIFF and MSTIFF take the same arguments (KMAX
/// 1..5 and 1..9). INTERPOLATE = ON steps past the outputs and
/// interpolates the reduced state, the dependent coordinates recovered
/// there (partition.rs).
const ABAM: Args = Args::of(&[Error, Hmax, Hmin, Hinit, Kmax, Maxit, Interpolate]);
const RKF45: Args = ABAM.without(&[Kmax]);
macro_rules! pair {
    ($kind:ident, $form:ident, $family:ident, $args:expr, $hmin:ident) => {
        pair!($kind, $form, $family, $args, $hmin, false)
    };
    ($kind:ident, $form:ident, $family:ident, $args:expr, $hmin:ident, $constant:expr) => {
        Pair {
            kind: IntegratorKind::$kind,
            formulation: Formulation::$form,
            family: Family::$family,
            args: $args,
            hmin: HminDefault::$hmin,
            constant_step: $constant,
        }
    };
}

/// Every (integrator, formulation) pair that runs. The first row of an
/// integrator gives its default formulation.
#[rustfmt::skip]
pub const PAIRS: &[Pair] = &[
    //    integrator   formulation  family  arguments     HMIN default      constant step
    pair!(Gstiff,      I3,          Gstiff, GSTIFF,       MicroHmax),
    pair!(Gstiff,      Si2,         Gstiff, GSTIFF,       MachinePrecision),
    pair!(Wstiff,      I3,          Wstiff, BDF,          MicroHmax),
    pair!(Wstiff,      Si2,         Wstiff, BDF,          MachinePrecision),
    pair!(ConstantBdf, I3,          Gstiff, CONSTANT_BDF, MicroHmax,        true),
    pair!(ConstantBdf, Si2,         Gstiff, CONSTANT_BDF, MachinePrecision, true),
    pair!(Hht,         I3,          Hht,    HHT,          MachinePrecision),
    pair!(Newmark,     I3,          Hht,    NEWMARK,      MachinePrecision),
    pair!(Hastiff,     Si1,         Hastiff, BDF,         MachinePrecision),
    pair!(Hastiff,     Si2,         Hastiff, BDF,         MachinePrecision),
    pair!(Dstiff,      I3,          Dstiff, DSTIFF,       MachinePrecision),
    pair!(Dstiff,      Si1,         Dstiff, DSTIFF,       MachinePrecision),
    pair!(Abam,        Ode,         Ode,    ABAM,         MachinePrecision),
    pair!(Rkf45,       Ode,         Ode,    RKF45,        MachinePrecision),
    pair!(Vstiff,      Ode,         Ode,    ABAM,         MachinePrecision),
    pair!(Mstiff,      Ode,         Ode,    ABAM,         MachinePrecision),
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
    Dstiff(DstiffParams),
    Ode(OdeParams),
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
    /// With `interpolate`: the interpolated outputs are reconciled to the
    /// constraints (Adams INTERPOLATE = ON: "it refines (or reconciles) the
    /// solution"; MotionSolve dae_interpolation = TRUE: MotionSolve
    /// interpolates). False: the integrator's own interpolant as it is
    /// (dae_interpolation = FALSE: "uses the DASPK integrator to
    /// interpolate").
    pub reconcile: bool,
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
            MethodParams::Dstiff(p) => shared!(p.bdf),
            MethodParams::Ode(p) => Shared {
                error: p.error,
                hmax: p.hmax,
                hmin: p.hmin,
                hinit: p.h0_max,
                maxit: p.maxit,
                pattern: &[],
                adaptivity: 0.0,
                fixed: None,
            },
        }
    }

    /// The absolute tolerance every constraint must meet when the
    /// corrector converges: DSTIFF's dae_constr_tol, else
    /// `constraint_tolerance(ERROR)`.
    pub fn constraint_tolerance(&self) -> f64 {
        match &self.method {
            MethodParams::Dstiff(p) => p.constraint_tol,
            _ => crate::formulation::constraint_tolerance(self.error()),
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
        if let MethodParams::Dstiff(p) = &self.method {
            return param_transient::describe(p, self.formulation().name());
        }
        let kind = self.pair.kind.name();
        let form = self.formulation().name();
        if let MethodParams::Ode(p) = &self.method {
            return format!(
                "dynamic analysis: {kind}, ODE form (coordinate partitioning), ERROR = {:e}, HMAX = {:e}, HMIN = {:e}, first step <= {:e}, order <= {}, MAXIT = {} (dependent-coordinate Newton), relative/absolute tolerance ratio {}, velocity tolerance factor {}",
                p.error, p.hmax, p.hmin, p.h0_max, p.max_order, p.maxit, p.rel_abs_tol_ratio, p.vel_tol_factor
            );
        }
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
            MethodParams::Bdf(p) | MethodParams::Dstiff(DstiffParams { bdf: p, .. }) => {
                (String::new(), format!(", KMAX = {}", p.kmax))
            }
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
            MethodParams::Ode(_) => (String::new(), String::new()),
        };
        let order = if coeffs.is_empty() { ", order 1" } else { "" };
        match fixed {
            Some(f) => format!(
                "dynamic analysis: fixed-step {kind}, {form}{order}{coeffs}, step = {hinit:e}, FIXIT = {}, PATTERN = {}, MAXERR = {:e}",
                f.iterations,
                fmt_pattern(pattern),
                f.maxerr
            ),
            None => {
                // Only the arguments the pair honours (a rejected one has
                // no effective value to report).
                let honours = |a: Arg| self.pair.args.contains(a);
                let mut line = format!(
                    "dynamic analysis: {kind}, {form}{coeffs}, ERROR = {error:e}, HMAX = {hmax:e}, HMIN = {hmin:e}, HINIT = {hinit:e}{kmax}, INTERPOLATE = {}, MAXIT = {maxit}",
                    if self.interpolate { "ON" } else { "OFF" },
                );
                if honours(Arg::Pattern) {
                    line += &format!(", PATTERN = {}", fmt_pattern(pattern));
                }
                if honours(Arg::Corrector) {
                    line += &format!(", CORRECTOR = {}", corrector_name(self.corrector));
                }
                if honours(Arg::Adaptivity) {
                    line += &format!(", ADAPTIVITY = {adaptivity:e}");
                }
                line
            }
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
        } else if f == Formulation::Si1 {
            // Seeds' error-control table: "GSTIFF SI1, WSTIFF SI1,
            // CONSTANT_BDF SI1 … Not Supported in the Adams Solver (C++)".
            format!(
                "SI1 with {} is not supported in the Adams Solver (C++) (SI1 runs with {} only)",
                s.kind.name(),
                with.join(", ")
            )
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
        Formulation::Ode => "ODE",
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
    checker::Checker { s, front }
        .plan(dtout)
        .map_err(|e| format!("{prefix}{e}"))
}

/// The BDF parameters of GSTIFF, WSTIFF or CONSTANT_BDF settings (the
/// quasi-static FIM_D integration).
pub fn bdf_params(s: &IntegratorSettings, dtout: f64) -> Result<BdfParams, String> {
    match validate(s, dtout)?.method {
        MethodParams::Bdf(p) => Ok(p),
        MethodParams::Hht(_) | MethodParams::Dstiff(_) | MethodParams::Ode(_) => Err(format!(
            "INTEGRATOR: {} is not a BDF integrator (GSTIFF, WSTIFF or CONSTANT_BDF)",
            s.kind.name()
        )),
    }
}

mod checker;
mod param_transient;
pub use param_transient::{
    Attr as TransientAttr, DaeTransient, OdeTransient, ParamTransient, ParamTransientBuilder,
    TransientIntegrator,
};
#[cfg(test)]
mod tests;
