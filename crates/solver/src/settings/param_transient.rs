//! MotionSolve `Param_Transient` as ONE validated object, both forms
//! (SPEC §3; seeds: motionsolve-param-transient "Attributes (ODE)" and
//! "Attributes (DAE)", "Table 1. Scale values", the dae_jacob_eval /
//! dae_jacob_init tables):
//!
//! * the DAE form (`integrator_type = DSTIFF`) yields a runnable DSTIFF
//!   `Plan` on the formulation `dae_index` names;
//! * the ODE form (`VSTIFF | MSTIFF | ABAM`) yields the settings of the
//!   coordinate-partitioned ODE form (`partition.rs`), which runs.
//!
//! Built from the reader's attributes (`from_attributes`: names
//! case-insensitive, each with its origin "file:line:column"), from a typed
//! builder (`ParamTransient::builder()`), or from an Adams
//! `INTEGRATOR/DSTIFF` (ERROR, HMAX, HMIN, HINIT, KMAX, MAXIT, INTERPOLATE,
//! I3/SI1; see the README's mapping table). Every attribute has one
//! default and one range, checked here; a message names the attribute as
//! the user wrote it and where.
//!
//! Defaults the seeds give: integrator_type DSTIFF ("the default integrator
//! in MotionSolve"), h0_max 1e-8, vel_tol_factor and dae_alg_tol_factor
//! 1000, max_order DSTIFF 5 / VSTIFF 5 / MSTIFF 9 / ABAM 12, dae_index 3
//! ("The default DE formulation is Index-3"), dae_vel_ctrl TRUE (SI1
//! "monitors the integration local error in both the displacement and
//! velocity states"). Ours where the seeds are silent: integr_tol 1e-3
//! (Adams ERROR), h_max the output step (also with dae_interpolation;
//! Adams INTEGRATOR/DSTIFF with INTERPOLATE = ON: unlimited, seed 000),
//! h_min machine precision (the first step is 1e-8),
//! dae_constr_tol as the other integrators' constraint tolerance
//! (`formulation::constraint_tolerance`), dae_corrector_maxit 10 (Adams
//! MAXIT), dae_corrector_minit 2 (the shared corrector's third
//! iteration), dae_jacob_eval = dae_jacob_init = 0 (adaptive, DASPK's own
//! behaviour), dae_eval_expiry never, dae_interpolation FALSE (the seed's
//! two meanings, who interpolates the outputs: FALSE DSTIFF's own
//! interpolant, TRUE the solver's, reconciled to the constraints; both
//! step past the outputs), rel_abs_tol_ratio 1 (RTOL = ATOL, as the DAE
//! form; 0 = absolute tolerance only).

use super::{fmt_num, pair_of, FrontEnd, MethodParams, Plan};
use crate::formulation::{constraint_tolerance, formulation_of};
use mbsolve_integrate::{BdfParams, DstiffParams, JacobianRule, OdeParams, VarClass};
use mbsolve_model::{CorrectorKind, Formulation, IntegratorKind, IntegratorSettings};

/// The integrators Param_Transient names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransientIntegrator {
    Dstiff,
    Vstiff,
    Mstiff,
    Abam,
}

impl TransientIntegrator {
    const ALL: [TransientIntegrator; 4] = [
        TransientIntegrator::Dstiff,
        TransientIntegrator::Vstiff,
        TransientIntegrator::Mstiff,
        TransientIntegrator::Abam,
    ];
    pub fn name(self) -> &'static str {
        match self {
            TransientIntegrator::Dstiff => "DSTIFF",
            TransientIntegrator::Vstiff => "VSTIFF",
            TransientIntegrator::Mstiff => "MSTIFF",
            TransientIntegrator::Abam => "ABAM",
        }
    }
    /// The built-in (and default) maximum order (seeds' table).
    pub fn max_order(self) -> i64 {
        match self {
            TransientIntegrator::Dstiff | TransientIntegrator::Vstiff => 5,
            TransientIntegrator::Mstiff => 9,
            TransientIntegrator::Abam => 12,
        }
    }
    /// DSTIFF integrates the DAE form; the others the ODE form.
    pub fn is_dae(self) -> bool {
        self == TransientIntegrator::Dstiff
    }
}

/// Every Param_Transient attribute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attr {
    IntegratorType,
    IntegrTol,
    HMax,
    HMin,
    H0Max,
    VelTolFactor,
    RelAbsTolRatio,
    MaxOrder,
    DaeAlgTolFactor,
    DaeIndex,
    DaeConstrTol,
    DaeCorrectorMaxit,
    DaeCorrectorMinit,
    DaeVelCtrl,
    DaeJacobEval,
    DaeJacobInit,
    DaeEvalExpiry,
    DaeInterpolation,
}

/// Which form takes an attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    Both,
    Dae,
    Ode,
}

/// The value type of an attribute.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Real,
    Integer,
    Flag,
    Integrator,
}

impl Attr {
    pub const ALL: [Attr; 18] = [
        Attr::IntegratorType,
        Attr::IntegrTol,
        Attr::HMax,
        Attr::HMin,
        Attr::H0Max,
        Attr::VelTolFactor,
        Attr::RelAbsTolRatio,
        Attr::MaxOrder,
        Attr::DaeAlgTolFactor,
        Attr::DaeIndex,
        Attr::DaeConstrTol,
        Attr::DaeCorrectorMaxit,
        Attr::DaeCorrectorMinit,
        Attr::DaeVelCtrl,
        Attr::DaeJacobEval,
        Attr::DaeJacobInit,
        Attr::DaeEvalExpiry,
        Attr::DaeInterpolation,
    ];

    /// (XML name, Adams INTEGRATOR argument it maps from, form, type).
    fn row(self) -> (&'static str, Option<&'static str>, Form, Kind) {
        use Attr::*;
        use Form::{Both, Dae, Ode};
        use Kind::*;
        match self {
            IntegratorType => ("integrator_type", None, Both, Integrator),
            IntegrTol => ("integr_tol", Some("ERROR"), Both, Real),
            HMax => ("h_max", Some("HMAX"), Both, Real),
            HMin => ("h_min", Some("HMIN"), Both, Real),
            H0Max => ("h0_max", Some("HINIT"), Both, Real),
            VelTolFactor => ("vel_tol_factor", None, Both, Real),
            RelAbsTolRatio => ("rel_abs_tol_ratio", None, Ode, Real),
            MaxOrder => ("max_order", Some("KMAX"), Both, Integer),
            DaeAlgTolFactor => ("dae_alg_tol_factor", None, Dae, Real),
            DaeIndex => ("dae_index", Some("I3/SI1"), Dae, Integer),
            DaeConstrTol => ("dae_constr_tol", None, Dae, Real),
            DaeCorrectorMaxit => ("dae_corrector_maxit", Some("MAXIT"), Dae, Integer),
            DaeCorrectorMinit => ("dae_corrector_minit", None, Dae, Integer),
            DaeVelCtrl => ("dae_vel_ctrl", None, Dae, Flag),
            DaeJacobEval => ("dae_jacob_eval", None, Dae, Integer),
            DaeJacobInit => ("dae_jacob_init", None, Dae, Integer),
            DaeEvalExpiry => ("dae_eval_expiry", None, Dae, Integer),
            DaeInterpolation => ("dae_interpolation", Some("INTERPOLATE"), Dae, Flag),
        }
    }

    /// The attribute's XML name.
    pub fn name(self) -> &'static str {
        self.row().0
    }

    /// The name a user of `front` wrote.
    fn name_in(self, front: FrontEnd) -> &'static str {
        match (front, self.row().1) {
            (FrontEnd::Adams, Some(adams)) => adams,
            _ => self.name(),
        }
    }

    fn of_name(name: &str) -> Option<Attr> {
        Attr::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(name))
    }
}

/// A value as given.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Value {
    Real(f64),
    Integer(i64),
    Flag(bool),
    Integrator(TransientIntegrator),
}

/// The attributes as given, each with its origin, before validation.
#[derive(Clone, Debug, Default)]
struct Given {
    values: Vec<(Attr, Value, Option<String>)>,
    front: Option<FrontEnd>,
}

impl Given {
    fn get(&self, a: Attr) -> Option<&(Attr, Value, Option<String>)> {
        self.values.iter().find(|(b, _, _)| *b == a)
    }
    fn set(&mut self, a: Attr, v: Value) {
        self.values.retain(|(b, _, _)| *b != a);
        self.values.push((a, v, None));
    }
    fn front(&self) -> FrontEnd {
        self.front.unwrap_or(FrontEnd::MotionSolve)
    }
    /// "origin: Param_Transient: message"; bare for the Adams path, whose
    /// validator prefixes the INTEGRATOR statement and its origin.
    fn error(&self, a: Attr, message: String) -> String {
        if self.front() == FrontEnd::Adams {
            return message;
        }
        match self.get(a).and_then(|g| g.2.as_deref()) {
            Some(o) => format!("{o}: Param_Transient: {message}"),
            None => format!("Param_Transient: {message}"),
        }
    }
    fn range(&self, a: Attr, shown: String, rule: &str) -> String {
        self.error(
            a,
            format!("{} = {shown} must be {rule}", a.name_in(self.front())),
        )
    }
    fn real(
        &self,
        a: Attr,
        default: f64,
        ok: impl Fn(f64) -> bool,
        rule: &str,
    ) -> Result<f64, String> {
        match self.get(a).map(|g| g.1) {
            None => Ok(default),
            Some(Value::Real(v)) if ok(v) && v.is_finite() => Ok(v),
            Some(Value::Real(v)) => Err(self.range(a, fmt_num(v), rule)),
            Some(other) => Err(self.range(a, format!("{other:?}"), rule)),
        }
    }
    fn opt_real(
        &self,
        a: Attr,
        ok: impl Fn(f64) -> bool,
        rule: &str,
    ) -> Result<Option<f64>, String> {
        match self.get(a) {
            None => Ok(None),
            Some(_) => self.real(a, 0.0, ok, rule).map(Some),
        }
    }
    fn int(&self, a: Attr, default: i64, lo: i64, hi: Option<i64>) -> Result<i64, String> {
        let v = match self.get(a).map(|g| g.1) {
            None => return Ok(default),
            Some(Value::Integer(v)) => v,
            Some(other) => return Err(self.range(a, format!("{other:?}"), "an integer")),
        };
        if v >= lo && hi.is_none_or(|h| v <= h) {
            return Ok(v);
        }
        let rule = match hi {
            Some(h) => format!("from {lo} to {h}"),
            None => format!(">= {lo}"),
        };
        Err(self.range(a, v.to_string(), &rule))
    }
    fn flag(&self, a: Attr, default: bool) -> bool {
        match self.get(a).map(|g| g.1) {
            Some(Value::Flag(b)) => b,
            _ => default,
        }
    }
}

/// The validated DAE form (DSTIFF). `h_max`, `h_min` and `dae_constr_tol`
/// stay `None` when not given: their defaults depend on the output step
/// and integr_tol and are applied by `plan`.
#[derive(Clone, Debug, PartialEq)]
pub struct DaeTransient {
    pub integr_tol: f64,
    pub h_max: Option<f64>,
    pub h_min: Option<f64>,
    pub h0_max: f64,
    pub vel_tol_factor: f64,
    pub max_order: usize,
    pub dae_alg_tol_factor: f64,
    /// dae_index 3 → I3, 1 → SI1.
    pub formulation: Formulation,
    pub dae_constr_tol: Option<f64>,
    pub dae_corrector_maxit: usize,
    pub dae_corrector_minit: usize,
    pub dae_vel_ctrl: bool,
    pub dae_jacob_eval: usize,
    pub dae_jacob_init: usize,
    pub dae_eval_expiry: Option<u64>,
    pub dae_interpolation: bool,
    /// Where each given attribute was written, for the checks that need
    /// the output step (h_min against the default h_max).
    pub origins: Vec<(Attr, String)>,
}

/// The validated ODE form (VSTIFF, MSTIFF, ABAM).
#[derive(Clone, Debug, PartialEq)]
pub struct OdeTransient {
    pub integrator: TransientIntegrator,
    pub integr_tol: f64,
    pub h_max: Option<f64>,
    pub h_min: Option<f64>,
    pub h0_max: f64,
    pub vel_tol_factor: f64,
    pub rel_abs_tol_ratio: f64,
    pub max_order: usize,
}

impl OdeTransient {
    /// The ODE form as the solver's integrator settings, validated by the
    /// ODE formulation's PAIRS rows: integr_tol → ERROR, h_max → HMAX,
    /// h_min → HMIN, h0_max → HINIT (the bound on the first step),
    /// max_order → KMAX, and vel_tol_factor and rel_abs_tol_ratio as they
    /// are.
    pub fn settings(&self) -> IntegratorSettings {
        IntegratorSettings {
            kind: match self.integrator {
                TransientIntegrator::Vstiff => IntegratorKind::Vstiff,
                TransientIntegrator::Mstiff => IntegratorKind::Mstiff,
                // DSTIFF never reaches the ODE form (validate).
                TransientIntegrator::Abam | TransientIntegrator::Dstiff => IntegratorKind::Abam,
            },
            kind_given: true,
            formulation: Some(Formulation::Ode),
            error: Some(self.integr_tol),
            hmax: self.h_max,
            hmin: self.h_min,
            hinit: Some(self.h0_max),
            kmax: Some(self.max_order as i64),
            vel_tol_factor: Some(self.vel_tol_factor),
            rel_abs_tol_ratio: Some(self.rel_abs_tol_ratio),
            origin: None,
            ..Default::default()
        }
    }
}

/// MotionSolve Param_Transient, validated.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamTransient {
    Dae(DaeTransient),
    Ode(OdeTransient),
}

/// Corrector iterations of the ODE-form implicit methods (no
/// Param_Transient attribute; Adams MAXIT's default).
const ODE_MAXIT: usize = 10;

impl ParamTransient {
    /// From the attributes of a `<Param_Transient>` element: (name, value,
    /// origin). Names are case-insensitive; an unknown, repeated,
    /// malformed or out-of-range attribute is an error naming it and its
    /// origin.
    pub fn from_attributes(attrs: &[(&str, &str, &str)]) -> Result<ParamTransient, String> {
        let mut given = Given::default();
        for &(name, text, origin) in attrs {
            let at = |m: String| format!("{origin}: Param_Transient: {m}");
            let Some(a) = Attr::of_name(name) else {
                return Err(at(format!("unknown attribute '{name}'")));
            };
            if given.get(a).is_some() {
                return Err(at(format!("{} is given twice", a.name())));
            }
            let value = parse(a, text.trim()).map_err(at)?;
            given.values.push((a, value, Some(origin.to_string())));
        }
        validate(&given)
    }

    /// A typed builder for API users (the same defaults and ranges).
    pub fn builder() -> ParamTransientBuilder {
        ParamTransientBuilder::default()
    }

    /// The DSTIFF plan of a run whose first output step is `dtout`; the
    /// ODE form validated as the ODE formulation's settings (`OdeTransient::settings`).
    pub fn plan(&self, dtout: f64) -> Result<Plan, String> {
        match self {
            ParamTransient::Dae(d) => {
                d.plan(dtout, FrontEnd::MotionSolve).map_err(|(a, e)| {
                    match a.and_then(|a| d.origins.iter().find(|o| o.0 == a)) {
                        Some((_, origin)) => format!("{origin}: Param_Transient: {e}"),
                        None => format!("Param_Transient: {e}"),
                    }
                })
            }
            // validate_as prefixes "Param_Transient: " once.
            ParamTransient::Ode(o) => {
                super::validate_as(&o.settings(), dtout, FrontEnd::MotionSolve)
            }
        }
    }

    /// The ODE form's integrator and settings (None for the DAE form).
    pub fn ode_params(&self, dtout: f64) -> Option<(TransientIntegrator, OdeParams)> {
        let ParamTransient::Ode(o) = self else {
            return None;
        };
        let hmax = o.h_max.unwrap_or(dtout);
        Some((
            o.integrator,
            OdeParams {
                error: o.integr_tol,
                rel_abs_tol_ratio: o.rel_abs_tol_ratio,
                vel_tol_factor: o.vel_tol_factor,
                hmax,
                hmin: o.h_min.unwrap_or(f64::EPSILON),
                h0_max: o.h0_max.min(hmax),
                max_order: o.max_order,
                maxit: ODE_MAXIT,
            },
        ))
    }
}

/// Parse one attribute's text by its type.
fn parse(a: Attr, text: &str) -> Result<Value, String> {
    let bad = |what: &str| format!("{} = \"{text}\" is not {what}", a.name());
    match a.row().3 {
        Kind::Real => text
            .parse::<f64>()
            .map(Value::Real)
            .map_err(|_| bad("a number")),
        // Integer attributes may be written as reals ("10.0"; the seeds
        // type dae_corrector_maxit as real).
        Kind::Integer => match text.parse::<f64>() {
            Ok(v) if v.fract() == 0.0 && v.abs() < 1e15 => Ok(Value::Integer(v as i64)),
            _ => Err(bad("an integer")),
        },
        Kind::Flag => match text.to_ascii_uppercase().as_str() {
            "TRUE" => Ok(Value::Flag(true)),
            "FALSE" => Ok(Value::Flag(false)),
            _ => Err(bad("TRUE or FALSE")),
        },
        Kind::Integrator => TransientIntegrator::ALL
            .into_iter()
            .find(|k| k.name().eq_ignore_ascii_case(text))
            .map(Value::Integrator)
            .ok_or_else(|| bad("DSTIFF, VSTIFF, MSTIFF or ABAM")),
    }
}

/// Defaults and ranges of both forms.
fn validate(g: &Given) -> Result<ParamTransient, String> {
    use Attr::*;
    let integrator = match g.get(IntegratorType).map(|x| x.1) {
        Some(Value::Integrator(k)) => k,
        _ => TransientIntegrator::Dstiff,
    };
    // An attribute of the other form is not honoured: refuse it.
    for (a, _, _) in &g.values {
        let form = a.row().2;
        let wrong = (form == Form::Dae && !integrator.is_dae())
            || (form == Form::Ode && integrator.is_dae());
        if wrong {
            let which = if integrator.is_dae() { "ODE" } else { "DAE" };
            let takers = if integrator.is_dae() {
                "VSTIFF, MSTIFF and ABAM"
            } else {
                "DSTIFF"
            };
            return Err(g.error(
                *a,
                format!(
                    "{} belongs to the {which} form ({takers}), not to integrator_type = {}",
                    a.name_in(g.front()),
                    integrator.name()
                ),
            ));
        }
    }
    let positive = |v: f64| v > 0.0;
    let integr_tol = g.real(IntegrTol, 1e-3, positive, "> 0")?;
    let h_max = g.opt_real(HMax, positive, "> 0")?;
    let h_min = g.opt_real(HMin, positive, "> 0")?;
    if let (Some(lo), Some(hi)) = (h_min, h_max) {
        if lo >= hi {
            let rule = format!("< {} = {}", HMax.name_in(g.front()), fmt_num(hi));
            return Err(g.range(HMin, fmt_num(lo), &rule));
        }
    }
    let h0_max = g.real(H0Max, 1e-8, positive, "> 0")?;
    let vel_tol_factor = g.real(VelTolFactor, 1000.0, positive, "> 0")?;
    let max_order = g.int(
        MaxOrder,
        integrator.max_order(),
        1,
        Some(integrator.max_order()),
    )? as usize;
    if !integrator.is_dae() {
        let rel_abs_tol_ratio = g.real(RelAbsTolRatio, 1.0, |v| v >= 0.0, ">= 0")?;
        return Ok(ParamTransient::Ode(OdeTransient {
            integrator,
            integr_tol,
            h_max,
            h_min,
            h0_max,
            vel_tol_factor,
            rel_abs_tol_ratio,
            max_order,
        }));
    }
    let formulation = match g.int(DaeIndex, 3, 1, Some(3))? {
        3 => Formulation::I3,
        1 => Formulation::Si1,
        v => return Err(g.range(DaeIndex, v.to_string(), "3 (I3) or 1 (SI1)")),
    };
    let dae_vel_ctrl = g.flag(DaeVelCtrl, true);
    if g.get(DaeVelCtrl).is_some() && formulation == Formulation::I3 {
        return Err(g.error(
            DaeVelCtrl,
            "dae_vel_ctrl applies only to dae_index = 1 (SI1): the I3 formulation never includes velocities in its error test (seeds)".into(),
        ));
    }
    let maxit = g.int(DaeCorrectorMaxit, 10, 1, None)?;
    let rule = format!(
        "from 0 to {} = {maxit}",
        DaeCorrectorMaxit.name_in(g.front())
    );
    let minit = g.int(DaeCorrectorMinit, 2.min(maxit), 0, None)?;
    if minit > maxit {
        return Err(g.range(DaeCorrectorMinit, minit.to_string(), &rule));
    }
    Ok(ParamTransient::Dae(DaeTransient {
        integr_tol,
        h_max,
        h_min,
        h0_max,
        vel_tol_factor,
        max_order,
        dae_alg_tol_factor: g.real(DaeAlgTolFactor, 1000.0, positive, "> 0")?,
        formulation,
        dae_constr_tol: g.opt_real(DaeConstrTol, positive, "> 0")?,
        dae_corrector_maxit: maxit as usize,
        dae_corrector_minit: minit as usize,
        dae_vel_ctrl,
        dae_jacob_eval: g.int(DaeJacobEval, 0, 0, None)? as usize,
        dae_jacob_init: g.int(DaeJacobInit, 0, 0, None)? as usize,
        dae_eval_expiry: match g.get(DaeEvalExpiry) {
            Some(_) => Some(g.int(DaeEvalExpiry, 0, 0, None)? as u64),
            None => None,
        },
        dae_interpolation: g.flag(DaeInterpolation, false),
        origins: g
            .values
            .iter()
            .filter_map(|(a, _, o)| Some((*a, o.clone()?)))
            .collect(),
    }))
}

impl DaeTransient {
    /// The DSTIFF plan at output step `dtout`; messages in `front`'s
    /// names, without the statement prefix, with the attribute at fault.
    pub(super) fn plan(&self, dtout: f64, front: FrontEnd) -> Result<Plan, (Option<Attr>, String)> {
        let name = |a: Attr| a.name_in(front);
        let settings = IntegratorSettings {
            kind: IntegratorKind::Dstiff,
            formulation: Some(self.formulation),
            ..Default::default()
        };
        let pair = pair_of(&settings).map_err(|_| {
            let (given, instead) = match front {
                FrontEnd::Adams => ("SI1", "I3"),
                FrontEnd::MotionSolve => ("dae_index = 1 (SI1)", "dae_index = 3"),
            };
            let message = format!(
                "{given} is not available with DSTIFF yet: it arrives with the SI1 formulation; use {instead}"
            );
            (Some(Attr::DaeIndex), message)
        })?;
        if !(dtout > 0.0 && dtout.is_finite()) {
            return Err((
                None,
                format!("the output step {} must be > 0", fmt_num(dtout)),
            ));
        }
        // Who interpolates (seeds, dae_interpolation): MotionSolve decks
        // always step past outputs; FALSE leaves the outputs to DSTIFF's
        // own interpolant (DASPK's), TRUE has the solver interpolate and
        // reconcile them to the constraints. h_max defaults to the output
        // step either way. Adams INTEGRATOR/DSTIFF keeps INTERPOLATE's
        // meaning: OFF lands on every output, ON steps past them with no
        // HMAX limit and reconciles (seed 000).
        let (interpolate, reconcile) = match front {
            FrontEnd::MotionSolve => (true, self.dae_interpolation),
            FrontEnd::Adams => (self.dae_interpolation, true),
        };
        let hmax = match self.h_max {
            Some(h) => h,
            None if front == FrontEnd::Adams && interpolate => f64::INFINITY,
            None => dtout,
        };
        let hmin = self.h_min.unwrap_or(f64::EPSILON);
        if hmin >= hmax {
            return Err((
                Some(Attr::HMin),
                format!(
                    "{} = {} must be < {} = {} (the output step by default)",
                    name(Attr::HMin),
                    fmt_num(hmin),
                    name(Attr::HMax),
                    fmt_num(hmax)
                ),
            ));
        }
        if self.h0_max <= hmin {
            return Err((
                Some(Attr::H0Max),
                format!(
                    "{} = {} must be > {} = {}",
                    name(Attr::H0Max),
                    fmt_num(self.h0_max),
                    name(Attr::HMin),
                    fmt_num(hmin)
                ),
            ));
        }
        let form = formulation_of(self.formulation);
        let mut error_classes = form.error_classes().to_vec();
        if !self.dae_vel_ctrl {
            error_classes.retain(|c| *c != VarClass::Velocity);
        }
        let params = DstiffParams {
            bdf: BdfParams {
                error: self.integr_tol,
                hmax,
                hmin,
                hinit: self.h0_max.min(hmax),
                kmax: self.max_order,
                maxit: self.dae_corrector_maxit,
                pattern: vec![false],
                error_classes,
                // DASPK's corrector converges every component in the
                // weighted norm, multipliers included (their weights carry
                // dae_alg_tol_factor).
                corrector_classes: vec![
                    VarClass::Displacement,
                    VarClass::Velocity,
                    VarClass::Multiplier,
                    VarClass::UserState,
                    VarClass::Solved,
                ],
                adaptivity: 0.0,
                fixed: None,
                constant_step: false,
                interpolate: self.dae_interpolation,
            },
            vel_tol_factor: self.vel_tol_factor,
            alg_tol_factor: self.dae_alg_tol_factor,
            jacobian: JacobianRule {
                eval: self.dae_jacob_eval,
                init: self.dae_jacob_init,
            },
            eval_expiry: self.dae_eval_expiry,
            corrector_minit: self.dae_corrector_minit,
            constraint_tol: self
                .dae_constr_tol
                .unwrap_or_else(|| constraint_tolerance(self.integr_tol)),
        };
        let notes = match front {
            FrontEnd::MotionSolve if reconcile => vec![
                "dae_interpolation = TRUE: DSTIFF steps past the outputs; MotionSolve interpolates them and reconciles them to the constraints".to_string(),
            ],
            FrontEnd::MotionSolve => vec![
                "dae_interpolation = FALSE: DSTIFF steps past the outputs and its own (DASPK) interpolant gives them, not reconciled to the constraints".to_string(),
            ],
            FrontEnd::Adams => Vec::new(),
        };
        Ok(Plan {
            pair,
            method: MethodParams::Dstiff(params),
            corrector: CorrectorKind::Original,
            interpolate,
            reconcile,
            notes,
        })
    }
}

/// `INTEGRATOR/DSTIFF`: ERROR → integr_tol, HMAX → h_max, HMIN → h_min,
/// HINIT → h0_max, KMAX → max_order, MAXIT → dae_corrector_maxit,
/// INTERPOLATE → dae_interpolation, I3/SI1 → dae_index 3/1; the other DAE
/// attributes keep their defaults. Range errors use the Adams names.
pub(super) fn from_adams(s: &IntegratorSettings) -> Result<DaeTransient, String> {
    use Attr::*;
    let mut g = Given {
        front: Some(FrontEnd::Adams),
        ..Default::default()
    };
    let mut put = |a: Attr, v: Option<Value>| {
        if let Some(v) = v {
            g.values.push((a, v, None));
        }
    };
    put(IntegrTol, s.error.map(Value::Real));
    put(HMax, s.hmax.map(Value::Real));
    put(HMin, s.hmin.map(Value::Real));
    put(H0Max, s.hinit.map(Value::Real));
    put(MaxOrder, s.kmax.map(Value::Integer));
    put(DaeCorrectorMaxit, s.maxit.map(Value::Integer));
    put(DaeInterpolation, s.interpolate.map(Value::Flag));
    put(
        DaeIndex,
        s.formulation.map(|f| {
            Value::Integer(match f {
                Formulation::I3 => 3,
                Formulation::Si2 => 2,
                Formulation::Si1 => 1,
                // PAIRS has no DSTIFF/ODE row, so validation refuses the
                // pair before this; 0 would fail dae_index's range anyway.
                Formulation::Ode => 0,
            })
        }),
    );
    match validate(&g)? {
        ParamTransient::Dae(d) => Ok(d),
        ParamTransient::Ode(_) => unreachable!("no integrator_type was given: DSTIFF"),
    }
}

/// Typed construction of a `ParamTransient` for API users: each setter
/// records the attribute as given; `build` applies the same defaults and
/// ranges as `from_attributes`.
#[derive(Clone, Debug, Default)]
pub struct ParamTransientBuilder {
    given: Given,
}

macro_rules! setters {
    ($($(#[$doc:meta])* $fn:ident: $attr:ident, $ty:ty => $wrap:expr;)*) => {
        impl ParamTransientBuilder {
            $($(#[$doc])* pub fn $fn(mut self, v: $ty) -> Self {
                #[allow(clippy::redundant_closure_call)]
                self.given.set(Attr::$attr, ($wrap)(v));
                self
            })*
        }
    };
}

setters! {
    integrator_type: IntegratorType, TransientIntegrator => Value::Integrator;
    integr_tol: IntegrTol, f64 => Value::Real;
    h_max: HMax, f64 => Value::Real;
    h_min: HMin, f64 => Value::Real;
    h0_max: H0Max, f64 => Value::Real;
    vel_tol_factor: VelTolFactor, f64 => Value::Real;
    rel_abs_tol_ratio: RelAbsTolRatio, f64 => Value::Real;
    max_order: MaxOrder, i64 => Value::Integer;
    dae_alg_tol_factor: DaeAlgTolFactor, f64 => Value::Real;
    /// 3 = I3, 1 = SI1.
    dae_index: DaeIndex, i64 => Value::Integer;
    dae_constr_tol: DaeConstrTol, f64 => Value::Real;
    dae_corrector_maxit: DaeCorrectorMaxit, i64 => Value::Integer;
    dae_corrector_minit: DaeCorrectorMinit, i64 => Value::Integer;
    dae_vel_ctrl: DaeVelCtrl, bool => Value::Flag;
    dae_jacob_eval: DaeJacobEval, i64 => Value::Integer;
    dae_jacob_init: DaeJacobInit, i64 => Value::Integer;
    dae_eval_expiry: DaeEvalExpiry, i64 => Value::Integer;
    dae_interpolation: DaeInterpolation, bool => Value::Flag;
}

impl ParamTransientBuilder {
    pub fn build(&self) -> Result<ParamTransient, String> {
        validate(&self.given)
    }
}

/// The message-log line of a DSTIFF run: the formulation and every
/// effective value, defaults included.
pub(super) fn describe(p: &DstiffParams, formulation: &str) -> String {
    let b = &p.bdf;
    let expiry = match p.eval_expiry {
        Some(n) => n.to_string(),
        None => "never".into(),
    };
    let flag = |on: bool| if on { "TRUE" } else { "FALSE" };
    format!(
        "dynamic analysis: DSTIFF, {formulation}, integr_tol = {:e}, h_max = {:e}, h_min = {:e}, h0_max = {:e}, max_order = {}, vel_tol_factor = {}, dae_alg_tol_factor = {}, dae_constr_tol = {:e}, dae_corrector_maxit = {}, dae_corrector_minit = {}, dae_vel_ctrl = {}, dae_jacob_eval = {}, dae_jacob_init = {}, dae_eval_expiry = {expiry}, dae_interpolation = {}",
        b.error,
        b.hmax,
        b.hmin,
        b.hinit,
        b.kmax,
        p.vel_tol_factor,
        p.alg_tol_factor,
        p.constraint_tol,
        b.maxit,
        p.corrector_minit,
        flag(b.error_classes.contains(&VarClass::Velocity)),
        p.jacobian.eval,
        p.jacobian.init,
        flag(b.interpolate),
    )
}
