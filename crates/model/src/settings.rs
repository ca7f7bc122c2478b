//! Analysis settings as the user wrote them (INTEGRATOR statement/command,
//! SIMULATE commands). Plain data with `None` for "not given": the solver
//! applies the documented defaults and validates ranges once, in one place.

/// Dynamic integrators of the Adams INTEGRATOR statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum IntegratorKind {
    #[default]
    Gstiff,
    Wstiff,
    Hastiff,
    ConstantBdf,
    Hht,
    Newmark,
    /// MotionSolve's DASPK-style DAE integrator (Param_Transient DAE form;
    /// `INTEGRATOR/DSTIFF` in the Adams FORTRAN solver's set).
    Dstiff,
    /// ODE form (coordinate partitioning): Adams–Bashforth–Moulton.
    Abam,
    /// ODE form: Runge–Kutta–Fehlberg 4(5).
    Rkf45,
    /// ODE form: VODE-style stiff BDF.
    Vstiff,
    /// ODE form: Cash's modified extended BDF.
    Mstiff,
}

impl IntegratorKind {
    /// The documented default ERROR: 1e-3 for the BDF family, 1e-5 for HHT
    /// and NEWMARK (seeds: "The default ERROR for HHT and Newmark is 1.E-5").
    pub fn default_error(self) -> f64 {
        match self {
            IntegratorKind::Hht | IntegratorKind::Newmark => 1e-5,
            _ => 1e-3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            IntegratorKind::Gstiff => "GSTIFF",
            IntegratorKind::Wstiff => "WSTIFF",
            IntegratorKind::Hastiff => "HASTIFF",
            IntegratorKind::ConstantBdf => "CONSTANT_BDF",
            IntegratorKind::Hht => "HHT",
            IntegratorKind::Newmark => "NEWMARK",
            IntegratorKind::Dstiff => "DSTIFF",
            IntegratorKind::Abam => "ABAM",
            IntegratorKind::Rkf45 => "RKF45",
            IntegratorKind::Vstiff => "VSTIFF",
            IntegratorKind::Mstiff => "MSTIFF",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    I3,
    Si2,
    Si1,
    /// Coordinate partitioning into an ODE in the independent coordinates.
    Ode,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CorrectorKind {
    Original,
    Modified,
    OrigConstant,
}

/// INTEGRATOR arguments exactly as given; `None` = not specified.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct IntegratorSettings {
    pub kind: IntegratorKind,
    /// The statement/command named the integrator (GSTIFF, HHT, …). An
    /// INTEGRATOR command that names none keeps the current one.
    pub kind_given: bool,
    pub formulation: Option<Formulation>,
    pub error: Option<f64>,
    pub hmax: Option<f64>,
    pub hmin: Option<f64>,
    pub hinit: Option<f64>,
    pub kmax: Option<i64>,
    pub maxit: Option<i64>,
    pub pattern: Option<Vec<bool>>,
    pub corrector: Option<CorrectorKind>,
    pub adaptivity: Option<f64>,
    pub interpolate: Option<bool>,
    pub fixit: Option<i64>,
    pub hratio: Option<i64>,
    pub maxerr: Option<f64>,
    pub alpha: Option<f64>,
    pub beta: Option<f64>,
    pub gamma: Option<f64>,
    /// MotionSolve `vel_tol_factor` (ODE form): velocities get this factor
    /// times `integr_tol`.
    pub vel_tol_factor: Option<f64>,
    /// MotionSolve `rel_abs_tol_ratio` (ODE form): the relative tolerance
    /// is this factor times `integr_tol`.
    pub rel_abs_tol_ratio: Option<f64>,
    /// Where the statement or command was written ("model.acf:3:1"), so a
    /// range error can name it; None for settings built in code.
    pub origin: Option<String>,
}

/// SIMULATE mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimulateMode {
    /// Kinematic if the model has zero DOF, else dynamic (Adams TRANSIENT).
    Transient,
    Dynamic,
    Kinematic,
    Static,
    InitialConditions,
}

/// Output sampling: END with STEPS or DTOUT.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OutputSpec {
    pub end: f64,
    pub steps: Option<u64>,
    pub dtout: Option<f64>,
    /// DURATION = d: the run ends d after the time the previous analysis
    /// reached (a SENSOR with RETURN may have ended it before its END);
    /// `end` is then only the reader's expectation.
    pub duration: Option<f64>,
}

/// One analysis command, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// INTEGRATOR/… ; `default` is the DEFAULT keyword (reset to the chosen
    /// integrator's own defaults before applying the given arguments).
    Integrator {
        settings: IntegratorSettings,
        default: bool,
    },
    Simulate {
        mode: SimulateMode,
        output: Option<OutputSpec>,
    },
    /// EQUILIBRIUM/… : static solver settings; `default` resets them to the
    /// documented defaults before applying the given arguments.
    Equilibrium {
        settings: StaticSettings,
        default: bool,
    },
    /// ACCGRAV/… : each gravity component given (IGRAV, JGRAV, KGRAV, in
    /// ground axes) replaces the current one from here on; the others keep
    /// their values.
    Accgrav { components: [Option<f64>; 3] },
    /// ACTIVATE/DEACTIVATE (MotionSolve Activate/Deactivate): the element
    /// acts (`active`) or is removed (constraint rows dropped, force zero)
    /// from the next analysis on; `origin` is where the command was written.
    Activate {
        element: crate::ElementRef,
        active: bool,
        origin: String,
    },
    /// ACTIVATE/DEACTIVATE with RANGE = a, b: every element of `first`'s
    /// type whose id lies in [id of `first`, `last`] and that the running
    /// model holds, switched as [`Command::Activate`] does, in id order;
    /// ids in the range without such an element are skipped.
    ActivateRange {
        first: crate::ElementRef,
        last: crate::Id,
        active: bool,
        origin: String,
    },
    /// The UNITS command: the units it states. A run whose dataset units
    /// differ refuses it (mbsolve does not change units between analyses);
    /// one that restates them is logged.
    Units { units: crate::Units, origin: String },
    /// A MotionSolve modify command after an analysis (`<Motion_Joint
    /// id=… expr=…/>`, …): the reader's model with the element redefined,
    /// which replaces the running one from the next analysis on (the same
    /// parts, constraints and forces; the functions may differ). `what`
    /// names the element ("Motion_Joint id=3").
    Redefine {
        model: RedefinedModel,
        what: String,
        origin: String,
    },
    /// A MotionSolve `<Param_Transient>` command: the deck's transient
    /// attributes merged with the command's, as (name, value, origin);
    /// validated when it runs.
    ParamTransient {
        attributes: Vec<(String, String, String)>,
    },
}

/// A model built by a front end for [`Command::Redefine`]; commands
/// compare equal when they hold the same model object.
#[derive(Clone, Debug)]
pub struct RedefinedModel(pub std::sync::Arc<crate::Model>);

impl PartialEq for RedefinedModel {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Static and quasi-static solution methods (MotionSolve Param_Static).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StaticMethod {
    /// Maximum Kinetic Energy Attrition Method.
    Mkeam,
    /// Force Imbalance Method, Newton–Raphson on the force balance.
    FimS,
    /// Force Imbalance Method by DAE integration (quasi-statics).
    FimD,
}

impl StaticMethod {
    pub fn name(self) -> &'static str {
        match self {
            StaticMethod::Mkeam => "MKEAM",
            StaticMethod::FimS => "FIM_S",
            StaticMethod::FimD => "FIM_D",
        }
    }
}

/// Param_Static attributes exactly as given; `None` = not specified. The
/// solver applies the documented defaults and ranges (mbsolve-solver
/// `statics::static_params`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaticSettings {
    pub method: Option<StaticMethod>,
    pub max_ke_tol: Option<f64>,
    pub max_dq_tol: Option<f64>,
    pub max_num_iter: Option<i64>,
    pub max_imbalance: Option<f64>,
    pub max_error: Option<f64>,
    pub stability: Option<f64>,
    pub compliance_delta: Option<f64>,
    /// Adams EQUILIBRIUM TLIMIT: largest translational change of a part per
    /// Newton iteration (FIM_S); no limit when absent.
    pub tlimit: Option<f64>,
    /// Adams EQUILIBRIUM ALIMIT: largest rotation of a part per Newton
    /// iteration, radians (FIM_S); no limit when absent.
    pub alimit: Option<f64>,
    /// Where the statement or command was written ("model.acf:3:1"), so a
    /// range error can name it; None for settings built in code.
    pub origin: Option<String>,
}

/// The KINEMATICS statement: settings of the kinematic analysis of a
/// zero-DOF model. `hmax` bounds the time between two configurations the
/// analysis solves (Adams KINEMATICS HMAX): output times farther apart are
/// reached through intermediate solutions, so Newton starts close to the
/// branch it follows. `None` = solve at the output times only.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KinematicSettings {
    pub hmax: Option<f64>,
}
