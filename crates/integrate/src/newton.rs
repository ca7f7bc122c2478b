//! The quasi-Newton corrector shared by every implicit integrator (GSTIFF,
//! WSTIFF, HHT/NEWMARK): Jacobian evaluation by PATTERN or adaptively
//! (PATTERN = F), LU reuse across steps with the quasi-Newton scaling for a
//! changed leading coefficient, the convergence test on weighted
//! corrections plus the system's own residual test, the fixed-iteration
//! variant of the fixed-step option, and the diagnostic events (seeds:
//! "Correction", "Corrector failures", "Singular matrix").
//!
//! The integrator describes one step's nonlinear system through
//! [`NewtonSystem`]: it evaluates the residual and iteration matrix at its
//! current iterate, applies a correction to its own unknowns (y and y' for
//! the BDF family; accelerations, multipliers and the Newmark positions and
//! velocities for HHT) and returns the correction's weighted norms.

use crate::control::*;
use crate::error::IntegrationError;
use crate::events::{Event, Statistics};
use crate::problem::{class_mask, ProblemError, VarClass};
use crate::sparse::{SlotAssembler, SparseLu};

/// Weighted max norms of one applied correction.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Norms {
    /// Over the converging unknowns that are not multipliers.
    pub primary: f64,
    /// Over the converging multipliers (0 when none converge).
    pub multipliers: f64,
    /// The converging unknown with the largest weighted correction.
    pub worst: usize,
}

/// One step's nonlinear system G(x) = 0 around the integrator's iterate.
pub(crate) trait NewtonSystem {
    /// The leading coefficient the iteration matrix depends on (BDF: c of
    /// y' = y'_pred + c·(y − y_pred)); None when the matrix holds
    /// step-multiplied terms only (HHT) and is reused as is.
    fn coefficient(&self) -> Option<f64>;
    /// Whether a correction computed with a Jacobian formed at another
    /// leading coefficient is scaled by 2/(1 + c/c_J) (the BDF family on
    /// y, whose matrix is dominated by c·∂G/∂y′). HASTIFF iterates on y′,
    /// whose matrix ∂G/∂y′ + ∂G/∂y/c has no such dominant c: it says no.
    fn scales_stale_corrections(&self) -> bool {
        true
    }
    /// G at the current iterate.
    fn residual(&mut self, out: &mut [f64]) -> Result<(), ProblemError>;
    /// ∂G/∂x at the current iterate (the caller brackets begin/finish).
    fn jacobian(&mut self, asm: &mut SlotAssembler) -> Result<(), ProblemError>;
    /// x += d; the weighted norms of d over the unknowns where `converge`.
    fn apply(&mut self, d: &[f64], converge: &[bool]) -> Norms;
    /// Extra convergence test on the residual of the last iteration (e.g.
    /// position constraints within a tight absolute tolerance).
    fn residual_acceptable(&self, res: &[f64]) -> bool;
    fn describe_equation(&self, i: usize) -> String;
    fn describe_unknown(&self, i: usize) -> String;
}

/// What one corrector solve needs from its integrator.
pub(crate) struct Step<'a> {
    /// Time of the new step and its size.
    pub tn: f64,
    pub h: f64,
    pub maxit: usize,
    pub pattern: &'a [bool],
    /// Unknowns whose corrections must converge.
    pub conv_mask: &'a [bool],
}

/// DSTIFF's Jacobian schedule (seeds, Param_Transient: `dae_jacob_eval`,
/// `dae_jacob_init`): at the 0-based corrector iteration M a new Jacobian
/// is evaluated when MOD(M, eval) = 0 or M < init. `eval = 0` drops the
/// first condition and lets the corrector decide from its convergence rate
/// ("0 implies the integrator automatically determines when a new Jacobian
/// is needed"); `init = 0` forces no initial evaluations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JacobianRule {
    pub eval: usize,
    pub init: usize,
}

impl JacobianRule {
    /// Both attributes 0: the corrector's own (adaptive) decision only.
    pub const ADAPTIVE: JacobianRule = JacobianRule { eval: 0, init: 0 };

    /// The rule of the seed's tables: a new Jacobian at iteration `m`.
    pub fn wants(&self, m: usize) -> bool {
        (self.eval > 0 && m.is_multiple_of(self.eval)) || m < self.init
    }

    /// Whether the convergence rate also decides (eval = 0).
    pub fn adaptive(&self) -> bool {
        self.eval == 0
    }
}

/// Jacobian, its factorization and the corrector's memory between steps.
pub(crate) struct Newton {
    jac: SlotAssembler,
    lu: SparseLu,
    /// Leading coefficient the Jacobian was formed with.
    jac_c: Option<f64>,
    jac_valid: bool,
    /// Evaluate a new Jacobian at the next iteration.
    pub force_jacobian: bool,
    /// A Jacobian was evaluated during the last `correct` call.
    pub jac_fresh: bool,
    /// Convergence rate of the last converged step.
    last_rate: f64,
    res: Vec<f64>,
    delta: Vec<f64>,
    /// A temporary convergence mask (the automatic switch to the MODIFIED
    /// corrector after an integration restart) and the accepted steps it
    /// has left.
    temporary: Option<(Vec<bool>, usize)>,
    /// DSTIFF: the Jacobian schedule that replaces PATTERN (None: PATTERN).
    pub jacobian_rule: Option<JacobianRule>,
    /// First 0-based iteration at which divergence is checked
    /// (DSTIFF's `dae_corrector_minit`; otherwise LSODE's third iteration).
    pub divergence_from: usize,
}

impl Newton {
    pub fn new(n: usize) -> Self {
        Newton {
            jac: SlotAssembler::new(n),
            lu: SparseLu::new(),
            jac_c: None,
            jac_valid: false,
            force_jacobian: true,
            jac_fresh: false,
            last_rate: NEWTON_INITIAL_RATE,
            res: vec![0.0; n],
            delta: vec![0.0; n],
            temporary: None,
            jacobian_rule: None,
            divergence_from: NEWTON_DIVERGENCE_ITERATION,
        }
    }

    /// (numeric, symbolic) factorizations so far.
    pub fn factorizations(&self) -> (u64, u64) {
        (self.lu.factorizations, self.lu.symbolic_factorizations)
    }

    /// Converge only the unknowns whose class is in `converge` for the
    /// next `steps` accepted steps (the switch to MODIFIED after a
    /// restart); the event announcing it.
    pub fn use_temporarily(
        &mut self,
        classes: &[VarClass],
        converge: &[VarClass],
        steps: usize,
        t: f64,
    ) -> Event {
        self.temporary = Some((class_mask(classes, converge), steps));
        Event::CorrectorSwitch {
            t,
            to_modified: true,
            steps,
        }
    }

    /// Count an accepted step at time t; when the temporary mask runs out,
    /// the event that says the corrector is back to its setting.
    pub fn step_accepted(&mut self, t: f64) -> Option<Event> {
        let (_, left) = self.temporary.as_mut()?;
        *left = left.saturating_sub(1);
        if *left > 0 {
            return None;
        }
        self.temporary = None;
        Some(Event::CorrectorSwitch {
            t,
            to_modified: false,
            steps: 0,
        })
    }

    /// Evaluate and factor the iteration matrix; false (and a
    /// singular-matrix event naming the dependent equation) when singular.
    fn refresh<S: NewtonSystem>(
        &mut self,
        sys: &mut S,
        s: &Step,
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        loop {
            self.jac.begin();
            sys.jacobian(&mut self.jac)
                .map_err(|e| IntegrationError::failure(s.tn, e.0))?;
            if self.jac.finish() {
                break;
            }
        }
        stats.jacobian_evaluations += 1;
        self.jac_c = sys.coefficient();
        self.force_jacobian = false;
        self.jac_fresh = true;
        match self.lu.factor(&self.jac) {
            Ok(refactored) => {
                if refactored {
                    events.push(Event::SymbolicRefactorization { t: s.tn });
                }
                self.jac_valid = true;
                Ok(true)
            }
            Err(_) => {
                self.jac_valid = false;
                events.push(self.singular_event(sys, s, None));
                Ok(false)
            }
        }
    }

    fn singular_event<S: NewtonSystem>(
        &self,
        sys: &S,
        s: &Step,
        nonfinite: Option<usize>,
    ) -> Event {
        Event::SingularMatrix {
            t: s.tn,
            h: s.h,
            variable: self.jac.describe_singular(
                nonfinite,
                |r| sys.describe_equation(r),
                |c| sys.describe_unknown(c),
            ),
        }
    }

    /// One corrector iteration's residual and linear solve into `delta`,
    /// scaled for a Jacobian formed with another leading coefficient
    /// (quasi-Newton, as LSODE and DASSL do, so a step-size change is not
    /// overshot). Ok(false): singular (event emitted).
    fn solve<S: NewtonSystem>(
        &mut self,
        sys: &mut S,
        s: &Step,
        iteration: usize,
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        if let Err(e) = sys.residual(&mut self.res) {
            if iteration == 0 {
                return Err(IntegrationError::failure(s.tn, e.0));
            }
            // After a Newton update the iterate may have left the region
            // where the model is defined (a diverging corrector overflows
            // to a non-finite residual): a corrector failure, so the step
            // is retried smaller, as a divergent one is. At the predicted
            // point (iteration 0) the error is the model's and is fatal.
            stats.residual_evaluations += 1;
            self.jac_valid = false;
            events.push(Event::CorrectorFailure {
                t: s.tn,
                h: s.h,
                iterations: iteration,
                equation: e.0,
                variable: "(none: the residual could not be evaluated)".into(),
            });
            return Ok(false);
        }
        stats.residual_evaluations += 1;
        stats.corrector_iterations += 1;
        for (d, r) in self.delta.iter_mut().zip(&self.res) {
            *d = -r;
        }
        if let Err(e) = self.lu.solve(&mut self.delta) {
            self.jac_valid = false;
            events.push(self.singular_event(sys, s, Some(e.row)));
            return Ok(false);
        }
        if let (Some(c), Some(cj)) = (sys.coefficient(), self.jac_c) {
            if c != cj && sys.scales_stale_corrections() {
                let cfac = 2.0 / (1.0 + c / cj);
                self.delta.iter_mut().for_each(|d| *d *= cfac);
            }
        }
        Ok(true)
    }

    /// Iterate from the prediction held by `sys`. Ok(true) = converged;
    /// Ok(false) = the corrector failed (event emitted) and the caller
    /// reduces the step.
    pub fn correct<S: NewtonSystem>(
        &mut self,
        sys: &mut S,
        s: &Step,
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        let temporary = self.temporary.take();
        let mask = match &temporary {
            Some((m, _)) => m.as_slice(),
            None => s.conv_mask,
        };
        let result = self.iterate(sys, s, mask, stats, events);
        self.temporary = temporary;
        result
    }

    fn iterate<S: NewtonSystem>(
        &mut self,
        sys: &mut S,
        s: &Step,
        mask: &[bool],
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        let adaptive = match self.jacobian_rule {
            Some(rule) => rule.adaptive(),
            None => s.pattern.iter().all(|p| !p),
        };
        self.jac_fresh = false;
        let mut prev = Norms::default();
        let mut prev_norm: f64 = 0.0;
        let mut rate = self.last_rate;
        let mut worst = 0;
        for it in 0..s.maxit {
            let want = if adaptive {
                // Adaptive: also when the leading coefficient moved far
                // from the one the Jacobian was formed with.
                let drifted = match (sys.coefficient(), self.jac_c) {
                    (Some(c), Some(cj)) => !NEWTON_COEFFICIENT_DRIFT.contains(&(c / cj)),
                    _ => false,
                };
                let scheduled = self.jacobian_rule.is_some_and(|r| r.wants(it));
                scheduled || self.force_jacobian || !self.jac_valid || drifted
            } else if let Some(rule) = self.jacobian_rule {
                rule.wants(it) || self.force_jacobian || !self.jac_valid
            } else {
                s.pattern[it % s.pattern.len()] || self.force_jacobian || !self.jac_valid
            };
            if want && !self.refresh(sys, s, stats, events)? {
                return Ok(false);
            }
            if !self.solve(sys, s, it, stats, events)? {
                return Ok(false);
            }
            let norms = sys.apply(&self.delta, mask);
            worst = norms.worst;
            let norm = norms.primary.max(norms.multipliers);
            let (mut rate_primary, mut rate_multipliers) = (rate, rate);
            if it > 0 {
                rate = (NEWTON_RATE_MEMORY * rate).max(norm / prev_norm.max(TINY_NORM));
                rate_primary = norms.primary / prev.primary.max(TINY_NORM);
                rate_multipliers = norms.multipliers / prev.multipliers.max(TINY_NORM);
            }
            let converged = |x: f64, r: f64| {
                x * (NEWTON_RATE_FACTOR * r).min(1.0) <= NEWTON_CONVERGED || x <= NEWTON_NEGLIGIBLE
            };
            // Multiplier corrections that stall at a round-off floor while
            // everything else converged are noise (see NEWTON_STALL_RATE_*;
            // with a reused Jacobian only if they do not shrink at all, as
            // slow progress there means a stale matrix).
            let stall = if self.jac_fresh {
                NEWTON_STALL_RATE_FRESH
            } else {
                NEWTON_STALL_RATE_REUSED
            };
            let noise_floor = it > 0
                && norms.multipliers > 0.0
                && converged(norms.primary, rate_primary)
                && rate_multipliers >= stall;
            if (converged(norm, rate) || noise_floor) && sys.residual_acceptable(&self.res) {
                self.last_rate = rate;
                return Ok(true);
            }
            if it >= self.divergence_from.max(1) && rate > NEWTON_DIVERGENCE_RATE {
                break;
            }
            // PATTERN = F (adaptive): a reused Jacobian whose convergence
            // rate predicts no convergence within MAXIT is re-evaluated now
            // rather than after a corrector failure.
            if adaptive && it > 0 && !self.jac_fresh {
                let left = (s.maxit - it - 1) as i32;
                if rate >= NEWTON_REEVALUATION_RATE
                    || norm * rate.powi(left.max(0)) > NEWTON_CONVERGED
                {
                    self.force_jacobian = true;
                }
            }
            prev = norms;
            prev_norm = norm;
        }
        // The residual at the failed iterate, to name its largest equation;
        // a diverged iterate may not have one (non-finite): the failure is
        // the same, named by the error.
        let equation = match sys.residual(&mut self.res) {
            Ok(()) => {
                let eq = (0..self.res.len())
                    .max_by(|&a, &b| self.res[a].abs().total_cmp(&self.res[b].abs()))
                    .unwrap_or(0);
                sys.describe_equation(eq)
            }
            Err(e) => e.0,
        };
        stats.residual_evaluations += 1;
        events.push(Event::CorrectorFailure {
            t: s.tn,
            h: s.h,
            iterations: s.maxit,
            equation,
            variable: sys.describe_unknown(worst),
        });
        Ok(false)
    }

    /// Fixed-step option: exactly `s.maxit` iterations without a
    /// convergence test, the Jacobian evaluated where PATTERN says (and on
    /// the first iteration if none is valid or its coefficient changed).
    /// Ok(false) = singular matrix (event emitted).
    pub fn correct_fixed<S: NewtonSystem>(
        &mut self,
        sys: &mut S,
        s: &Step,
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        self.jac_fresh = false;
        for it in 0..s.maxit {
            let stale = it == 0 && sys.coefficient() != self.jac_c;
            let want =
                s.pattern[it % s.pattern.len()] || self.force_jacobian || !self.jac_valid || stale;
            if want && !self.refresh(sys, s, stats, events)? {
                return Ok(false);
            }
            // Iteration "0" for every solve: with FIXIT there is no retry
            // at a smaller step, so a residual that cannot be evaluated
            // stays the error it is.
            if !self.solve(sys, s, 0, stats, events)? {
                return Ok(false);
            }
            sys.apply(&self.delta, s.conv_mask);
        }
        Ok(true)
    }
}
