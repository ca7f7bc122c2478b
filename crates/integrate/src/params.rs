//! Validated integrator parameters (seeds: INTEGRATOR arguments). The
//! solver's settings validator builds these; the integrators honour every
//! field.

use crate::problem::VarClass;

/// Fixed-step option (seeds: "Fixed Step Integrator Option"): constant h,
/// exactly `iterations` corrector iterations per step, no error rejection.
#[derive(Clone, Debug, PartialEq)]
pub struct FixedStep {
    pub iterations: usize,
    /// Stop when the local error measure exceeds this (infinite = never).
    pub maxerr: f64,
}

/// Validated GSTIFF / WSTIFF / CONSTANT_BDF parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct BdfParams {
    pub error: f64,
    pub hmax: f64,
    pub hmin: f64,
    pub hinit: f64,
    pub kmax: usize,
    pub maxit: usize,
    /// Jacobian re-evaluation pattern over corrector iterations; all false =
    /// evaluate only after a corrector failure.
    pub pattern: Vec<bool>,
    /// Classes whose local error is controlled (I3: displacements, user states).
    pub error_classes: Vec<VarClass>,
    /// Classes whose corrections must converge (ORIGINAL: all but multipliers).
    pub corrector_classes: Vec<VarClass>,
    /// ADAPTIVITY: while h < 100·HMIN, ADAPTIVITY/h is added to the error
    /// tolerance (0 = off).
    pub adaptivity: f64,
    /// Fixed-step option (FIXIT): h = `hinit` throughout at order 1,
    /// exactly FIXIT corrector iterations per step, no error rejection.
    pub fixed: Option<FixedStep>,
    /// CONSTANT_BDF: h = HMAX throughout (shortened only to land on output
    /// times); the error estimates choose the order, never the step.
    pub constant_step: bool,
    /// INTERPOLATE = ON: the driver steps past output times
    /// (`advance_past`) and interpolates there instead of landing on them.
    pub interpolate: bool,
}

/// Validated HHT / Newmark parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct HhtParams {
    /// α ∈ [−1/3, 0] (0 for NEWMARK).
    pub alpha: f64,
    pub beta: f64,
    pub gamma: f64,
    pub error: f64,
    pub hmax: f64,
    pub hmin: f64,
    pub hinit: f64,
    pub maxit: usize,
    /// Jacobian re-evaluation over corrector iterations; all false = adaptive
    /// (re-evaluate only when the convergence rate predicts failure).
    pub pattern: Vec<bool>,
    /// CORRECTOR = ORIGINAL: multiplier corrections must converge too;
    /// MODIFIED: ignore their fluctuations.
    pub converge_multipliers: bool,
    /// Added to the tolerance as ADAPTIVITY/h when h < 100·HMIN; 0 = off.
    pub adaptivity: f64,
    pub fixed: Option<FixedStep>,
}

impl HhtParams {
    /// HHT with β = (1−α)²/4, γ = 1/2 − α and otherwise neutral settings
    /// (tests and the API; the solver validates user input).
    pub fn hht(alpha: f64, error: f64, hmax: f64) -> Self {
        HhtParams {
            alpha,
            beta: (1.0 - alpha) * (1.0 - alpha) / 4.0,
            gamma: 0.5 - alpha,
            error,
            hmax,
            hmin: f64::EPSILON,
            hinit: hmax,
            maxit: 10,
            pattern: vec![false],
            converge_multipliers: true,
            adaptivity: 0.0,
            fixed: None,
        }
    }
    /// NEWMARK with the given β, γ.
    pub fn newmark(beta: f64, gamma: f64, error: f64, hmax: f64) -> Self {
        HhtParams {
            alpha: 0.0,
            beta,
            gamma,
            ..Self::hht(0.0, error, hmax)
        }
    }
    /// Order of accuracy: 2 when γ = 1/2 − α (HHT, trapezoidal Newmark), else 1.
    pub fn order(&self) -> usize {
        if (self.gamma - 0.5 + self.alpha).abs() < crate::control::SECOND_ORDER_CONDITION_TOL {
            2
        } else {
            1
        }
    }
    /// Truncation-error constants of the Newmark formulas (module doc of
    /// hht): (|β − 1/6|, |γ − 1/2 + α|), the displacement's h³ q⃛ and the
    /// velocity's h² q⃛ coefficients. The second is zero for HHT and for
    /// the trapezoidal Newmark; otherwise it is the first-order term.
    pub(crate) fn error_constants(&self) -> (f64, f64) {
        (
            (self.beta - 1.0 / 6.0).abs(),
            (self.gamma - 0.5 + self.alpha).abs(),
        )
    }
    /// The local error is O(h^(order+1)), so an error ratio r allows the
    /// step ratio r^(−1/(order+1)): 1/3 for HHT, 1/2 for a first-order
    /// NEWMARK.
    pub(crate) fn error_exponent(&self) -> f64 {
        1.0 / (self.order() + 1) as f64
    }
}

/// Settings of an ODE-form integrator (ABAM, RKF45, VSTIFF, MSTIFF), already
/// validated by the solver's settings layer (Adams INTEGRATOR or MotionSolve
/// `Param_Transient`, ODE form).
#[derive(Clone, Debug, PartialEq)]
pub struct OdeParams {
    /// `integr_tol` / ERROR: the absolute tolerance of displacements and
    /// user states.
    pub error: f64,
    /// `rel_abs_tol_ratio`: the relative tolerance is this factor times
    /// `error` (seeds: "multiplies integr_tol to yield the relative error
    /// tolerance").
    pub rel_abs_tol_ratio: f64,
    /// `vel_tol_factor`: velocities get this factor times the tolerances.
    pub vel_tol_factor: f64,
    /// Largest step (`h_max` / HMAX).
    pub hmax: f64,
    /// Smallest step before the run fails (HMIN).
    pub hmin: f64,
    /// Bound on the first step (`h0_max`, default 1e-8; Adams HINIT).
    pub h0_max: f64,
    /// Highest order (`max_order` / KMAX).
    pub max_order: usize,
    /// Corrector iterations per step for the implicit methods (MAXIT).
    pub maxit: usize,
}

impl OdeParams {
    /// Error weight of a state of class `class` with value `y`: every
    /// ODE-form method measures its local error as a weighted RMS norm
    /// with these weights, so tolerances mean the same for all four.
    pub fn weight(&self, class: crate::VarClass, y: f64) -> f64 {
        let scale = match class {
            crate::VarClass::Velocity => self.vel_tol_factor,
            _ => 1.0,
        };
        scale * self.error * (1.0 + self.rel_abs_tol_ratio * y.abs())
    }
}
