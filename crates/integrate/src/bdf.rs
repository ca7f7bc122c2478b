//! What the BDF family (GSTIFF, WSTIFF; later DSTIFF, VSTIFF) shares around
//! its history: the corrector's system G(t, y_P + e, y'_P + c·e) = 0 on a
//! `DaeProblem`, and the weighted max norm over the error-controlled
//! variables.

use crate::newton::{Newton, NewtonSystem, Norms, Step};
use crate::params::BdfParams;
use crate::problem::{class_mask, DaeProblem, ProblemError, VarClass};
use crate::sparse::SlotAssembler;
use crate::stepper::{Limits, Tolerance, Work};
use crate::IntegrationError;

/// What every BDF method holds besides its history: the problem, the
/// parameters, the corrected (y, y') of the last step, the error weights
/// and the error-control and convergence masks.
pub(crate) struct BdfCore<'a, P: DaeProblem> {
    pub problem: &'a mut P,
    pub params: BdfParams,
    pub y: Vec<f64>,
    pub yp: Vec<f64>,
    /// Error weights of the current step.
    wt: Vec<f64>,
    pub err_mask: Vec<bool>,
    conv_mask: Vec<bool>,
}

impl<'a, P: DaeProblem> BdfCore<'a, P> {
    pub fn new(problem: &'a mut P, params: BdfParams, y0: &[f64], yp0: &[f64]) -> Self {
        let classes = problem.classes();
        BdfCore {
            err_mask: class_mask(classes, &params.error_classes),
            conv_mask: class_mask(classes, &params.corrector_classes),
            wt: vec![0.0; y0.len()],
            y: y0.to_vec(),
            yp: yp0.to_vec(),
            problem,
            params,
        }
    }

    /// The step loop's view of the parameters.
    pub fn limits(&self) -> Limits {
        let p = &self.params;
        Limits {
            error: p.error,
            hmin: p.hmin,
            hmax: p.hmax,
            hinit: p.hinit,
            adaptivity: p.adaptivity,
            fixed: p.fixed.clone(),
            constant_step: p.constant_step,
        }
    }

    pub fn classes(&self) -> &[VarClass] {
        self.problem.classes()
    }

    /// Correct the prediction already in (y, y') with leading coefficient
    /// c, weights from `yref`, the correction accumulated in `acc`;
    /// iterating on y′ from the prediction `on_derivative` = (y^P, y′^P)
    /// when given (HASTIFF), on y otherwise (GSTIFF, WSTIFF).
    #[allow(clippy::too_many_arguments)]
    pub fn correct(
        &mut self,
        tn: f64,
        h: f64,
        c: f64,
        yref: &[f64],
        acc: &mut [f64],
        on_derivative: Option<(&[f64], &[f64])>,
        work: &mut Work,
    ) -> Result<bool, IntegrationError> {
        for i in 0..self.wt.len() {
            self.wt[i] = work.tol.weight(yref[i]);
        }
        BdfCorrection {
            problem: self.problem,
            tn,
            h,
            c,
            maxit: self.params.maxit,
            pattern: &self.params.pattern,
            conv_mask: &self.conv_mask,
            weights: &self.wt,
            on_derivative,
        }
        .run(&mut self.y, &mut self.yp, acc, work)
    }

    /// Weighted max norm of v over the error-controlled variables.
    pub fn norm(&self, yref: &[f64], tol: &Tolerance, v: impl Fn(usize) -> f64) -> (f64, usize) {
        masked_norm(&self.err_mask, yref, tol, v)
    }

    pub fn structure_holds(&mut self, t: f64) -> bool {
        self.problem.structure_holds(t, &self.y)
    }
}

/// The fixed-step MAXERR measure: |c·acc_i| relative to max(1, |y_i|).
pub(crate) fn relative_error(c: f64, acc: &[f64], yref: &[f64], i: usize) -> f64 {
    (c * acc[i]).abs() / yref[i].abs().max(1.0)
}

/// The BDF corrector system: unknowns y, with y' = y'_P + c·(y − y_P); the
/// accumulated correction e = y − y_P is kept for the error estimate.
///
/// HASTIFF (`on_derivative` = (y_P, y'_P)) iterates on y′ instead, y
/// following as y = y_P + (y′ − y′_P)/c = y_P + hβ₀(y′ − y′_P) (seeds:
/// "solving for y′, y discretized as a function of y′"). Its Newton matrix
/// ∂G/∂y′ + hβ₀∂G/∂y is held as c times itself — the ∂G/∂y + c∂G/∂y′ every
/// problem assembles; a uniform factor changes neither the LU's pivots nor
/// the solution — so the correction of y′ is c·d. The matrix's dominant
/// block ∂G/∂y′ does not depend on h: a Jacobian formed at another step
/// is used unscaled (`scales_stale_corrections`).
pub(crate) struct BdfSystem<'s, P: DaeProblem> {
    pub problem: &'s mut P,
    pub tn: f64,
    pub c: f64,
    pub y: &'s mut [f64],
    pub yp: &'s mut [f64],
    pub acc: &'s mut [f64],
    pub weights: &'s [f64],
    pub on_derivative: Option<(&'s [f64], &'s [f64])>,
}

impl<P: DaeProblem> NewtonSystem for BdfSystem<'_, P> {
    fn coefficient(&self) -> Option<f64> {
        Some(self.c)
    }
    fn scales_stale_corrections(&self) -> bool {
        self.on_derivative.is_none()
    }
    fn residual(&mut self, out: &mut [f64]) -> Result<(), ProblemError> {
        self.problem.residual(self.tn, self.y, self.yp, out)
    }
    fn jacobian(&mut self, asm: &mut SlotAssembler) -> Result<(), ProblemError> {
        self.problem.jacobian(self.tn, self.y, self.yp, self.c, asm)
    }
    fn apply(&mut self, d: &[f64], converge: &[bool]) -> Norms {
        let mut norms = Norms::default();
        for i in 0..d.len() {
            // The change of y, in which convergence is judged either way.
            let dy = match self.on_derivative {
                None => {
                    self.y[i] += d[i];
                    self.yp[i] += self.c * d[i];
                    d[i]
                }
                Some((y_pred, yp_pred)) => {
                    self.yp[i] += self.c * d[i];
                    let e = (self.yp[i] - yp_pred[i]) / self.c;
                    self.y[i] = y_pred[i] + e;
                    e - self.acc[i]
                }
            };
            self.acc[i] += dy;
            if converge[i] {
                let e = dy.abs() / self.weights[i];
                if e > norms.primary {
                    norms.primary = e;
                    norms.worst = i;
                }
            }
        }
        norms
    }
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        self.problem.residual_acceptable(res)
    }
    fn describe_equation(&self, i: usize) -> String {
        self.problem.describe_equation(i)
    }
    fn describe_unknown(&self, i: usize) -> String {
        self.problem.describe_variable(i)
    }
}

/// Arguments of one BDF corrector solve.
pub(crate) struct BdfCorrection<'s, P: DaeProblem> {
    pub problem: &'s mut P,
    pub tn: f64,
    pub h: f64,
    pub c: f64,
    pub maxit: usize,
    pub pattern: &'s [bool],
    pub conv_mask: &'s [bool],
    pub weights: &'s [f64],
    /// HASTIFF: iterate on y′ from this prediction (y_P, y′_P).
    pub on_derivative: Option<(&'s [f64], &'s [f64])>,
}

impl<P: DaeProblem> BdfCorrection<'_, P> {
    /// Solve from the prediction in (y, y'), accumulating the correction in
    /// `acc` (zeroed first); the fixed-step option iterates exactly.
    pub fn run(
        self,
        y: &mut [f64],
        yp: &mut [f64],
        acc: &mut [f64],
        work: &mut Work,
    ) -> Result<bool, IntegrationError> {
        acc.iter_mut().for_each(|v| *v = 0.0);
        let step = Step {
            tn: self.tn,
            h: self.h,
            maxit: work.fixed_iterations.unwrap_or(self.maxit),
            pattern: self.pattern,
            conv_mask: self.conv_mask,
        };
        let mut sys = BdfSystem {
            problem: self.problem,
            tn: self.tn,
            c: self.c,
            y,
            yp,
            acc,
            weights: self.weights,
            on_derivative: self.on_derivative,
        };
        let newton: &mut Newton = work.newton;
        if work.fixed_iterations.is_some() {
            newton.correct_fixed(&mut sys, &step, work.stats, work.events)
        } else {
            newton.correct(&mut sys, &step, work.stats, work.events)
        }
    }
}

/// Weighted max norm of v over the masked variables, weights from the
/// reference values `yref`, with the variable where it is reached.
pub(crate) fn masked_norm(
    mask: &[bool],
    yref: &[f64],
    tol: &Tolerance,
    v: impl Fn(usize) -> f64,
) -> (f64, usize) {
    let mut worst = (0.0, 0);
    for i in 0..mask.len() {
        if mask[i] {
            let e = v(i).abs() / tol.weight(yref[i]);
            if e > worst.0 {
                worst = (e, i);
            }
        }
    }
    worst
}
