//! The quasi-Newton corrector shared by the BDF integrators (GSTIFF,
//! WSTIFF): Jacobian evaluation by PATTERN or adaptively (PATTERN = F), LU
//! reuse across steps with the quasi-Newton scaling for a changed leading
//! coefficient, the convergence test on weighted corrections plus the
//! problem's own residual test, and the diagnostic events (seeds:
//! "Correction", "Corrector failures", "Singular matrix").

use crate::events::{Event, Statistics};
use crate::gstiff::IntegrationError;
use crate::problem::{class_mask, DaeProblem, ProblemError, VarClass};
use crate::sparse::{SlotAssembler, SparseLu};

/// Jacobian, its factorization and the corrector's memory between steps.
pub(crate) struct Newton {
    pub jac: SlotAssembler,
    pub lu: SparseLu,
    /// Leading coefficient the Jacobian was formed with.
    pub jac_c: f64,
    pub jac_valid: bool,
    /// Evaluate a new Jacobian at the next iteration.
    pub force_jacobian: bool,
    /// A Jacobian was evaluated during the last `correct` call.
    pub jac_fresh: bool,
    /// Convergence rate of the last converged step.
    pub last_rate: f64,
    pub res: Vec<f64>,
    /// The last (scaled) correction.
    pub delta: Vec<f64>,
    /// A temporary convergence mask (the automatic switch to the MODIFIED
    /// corrector after an integration restart) and the accepted steps it
    /// has left.
    temporary: Option<(Vec<bool>, usize)>,
}

/// What one corrector solve needs from its integrator.
pub(crate) struct Step<'a> {
    /// Time of the new step and its size.
    pub tn: f64,
    pub h: f64,
    /// Leading coefficient: y' = y'_pred + c·(y − y_pred).
    pub c: f64,
    pub maxit: usize,
    pub pattern: &'a [bool],
    /// Variables whose corrections must converge.
    pub conv_mask: &'a [bool],
    /// Error weights (absolute tolerance per variable).
    pub weights: &'a [f64],
}

impl Newton {
    pub fn new(n: usize) -> Self {
        Newton {
            jac: SlotAssembler::new(n),
            lu: SparseLu::new(),
            jac_c: 0.0,
            jac_valid: false,
            force_jacobian: true,
            jac_fresh: false,
            last_rate: 0.7,
            res: vec![0.0; n],
            delta: vec![0.0; n],
            temporary: None,
        }
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

    /// ∂G/∂y + c ∂G/∂y' at (tn, y, y').
    pub fn evaluate_jacobian<P: DaeProblem>(
        &mut self,
        problem: &mut P,
        tn: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        stats: &mut Statistics,
    ) -> Result<(), ProblemError> {
        loop {
            self.jac.begin();
            problem.jacobian(tn, y, yp, c, &mut self.jac)?;
            if self.jac.finish() {
                break;
            }
        }
        stats.jacobian_evaluations += 1;
        self.jac_c = c;
        Ok(())
    }

    /// Factor the current Jacobian; false (and a singular-matrix event
    /// naming the dependent equation) when it is singular.
    pub fn factor<P: DaeProblem>(
        &mut self,
        problem: &P,
        tn: f64,
        h: f64,
        events: &mut Vec<Event>,
    ) -> bool {
        match self.lu.factor(&self.jac) {
            Ok(refactored) => {
                if refactored {
                    events.push(Event::SymbolicRefactorization { t: tn });
                }
                self.jac_valid = true;
                true
            }
            Err(_) => {
                self.jac_valid = false;
                events.push(self.singular_event(problem, tn, h, None));
                false
            }
        }
    }

    fn singular_event<P: DaeProblem>(
        &self,
        problem: &P,
        tn: f64,
        h: f64,
        nonfinite: Option<usize>,
    ) -> Event {
        Event::SingularMatrix {
            t: tn,
            h,
            variable: self.jac.describe_singular(
                nonfinite,
                |r| problem.describe_equation(r),
                |c| problem.describe_variable(c),
            ),
        }
    }

    /// Iterate from the prediction in (y, y'): each correction d gives
    /// y += d, y' += c·d, acc += d. Ok(true) = converged; Ok(false) = the
    /// corrector failed (event emitted) and the caller reduces the step.
    #[allow(clippy::too_many_arguments)]
    pub fn correct<P: DaeProblem>(
        &mut self,
        problem: &mut P,
        s: &Step,
        y: &mut [f64],
        yp: &mut [f64],
        acc: &mut [f64],
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        let temporary = self.temporary.take();
        let mask = match &temporary {
            Some((m, _)) => m.as_slice(),
            None => s.conv_mask,
        };
        let result = self.iterate(problem, s, mask, y, yp, acc, stats, events);
        self.temporary = temporary;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn iterate<P: DaeProblem>(
        &mut self,
        problem: &mut P,
        s: &Step,
        conv_mask: &[bool],
        y: &mut [f64],
        yp: &mut [f64],
        acc: &mut [f64],
        stats: &mut Statistics,
        events: &mut Vec<Event>,
    ) -> Result<bool, IntegrationError> {
        let (tn, c, n) = (s.tn, s.c, y.len());
        acc.iter_mut().for_each(|v| *v = 0.0);
        let pattern_all_false = s.pattern.iter().all(|p| !p);
        // A Jacobian evaluated during this step (no second re-evaluation
        // for slow convergence).
        let mut fresh = false;
        self.jac_fresh = false;
        let mut prev_norm: f64 = 0.0;
        let mut rate = self.last_rate;
        let perr = |e: ProblemError| IntegrationError::failure(tn, e.0);
        for it in 0..s.maxit {
            let want = if pattern_all_false {
                // Adaptive: also when the leading coefficient moved far
                // from the one the Jacobian was formed with.
                let drift = c / self.jac_c;
                self.force_jacobian || !self.jac_valid || !(0.75..=1.33).contains(&drift)
            } else {
                s.pattern[it % s.pattern.len()] || self.force_jacobian || !self.jac_valid
            };
            if want {
                fresh = true;
                self.jac_fresh = true;
                self.evaluate_jacobian(problem, tn, y, yp, c, stats)
                    .map_err(perr)?;
                self.force_jacobian = false;
                if !self.factor(problem, tn, s.h, events) {
                    return Ok(false);
                }
            }
            problem.residual(tn, y, yp, &mut self.res).map_err(perr)?;
            stats.residual_evaluations += 1;
            stats.corrector_iterations += 1;
            for i in 0..n {
                self.delta[i] = -self.res[i];
            }
            if let Err(e) = self.lu.solve(&mut self.delta) {
                self.jac_valid = false;
                events.push(self.singular_event(problem, tn, s.h, Some(e.row)));
                return Ok(false);
            }
            // A Jacobian formed with another c: scale the correction
            // (quasi-Newton, as LSODE and DASSL do) so a step-size change
            // is not overshot.
            let cfac = if self.jac_c != c {
                2.0 / (1.0 + c / self.jac_c)
            } else {
                1.0
            };
            let mut norm: f64 = 0.0;
            for i in 0..n {
                let d = self.delta[i] * cfac;
                self.delta[i] = d;
                y[i] += d;
                yp[i] += c * d;
                acc[i] += d;
                if conv_mask[i] {
                    norm = norm.max(d.abs() / s.weights[i]);
                }
            }
            if it > 0 {
                rate = (0.2 * rate).max(norm / prev_norm.max(1e-300));
            }
            let small = norm * (1.5 * rate).min(1.0) <= 0.1 || norm <= 1e-3;
            if small && problem.residual_acceptable(&self.res) {
                self.last_rate = rate;
                return Ok(true);
            }
            if it >= 2 && rate > 2.0 {
                break;
            }
            // PATTERN = F (adaptive): a reused Jacobian whose convergence
            // rate predicts no convergence within MAXIT is re-evaluated now
            // rather than after a corrector failure.
            if pattern_all_false && it > 0 && !fresh {
                let left = (s.maxit - it - 1) as i32;
                if rate >= 0.9 || norm * rate.powi(left.max(0)) > 0.1 {
                    self.force_jacobian = true;
                    fresh = true;
                }
            }
            prev_norm = norm;
        }
        problem.residual(tn, y, yp, &mut self.res).map_err(perr)?;
        stats.residual_evaluations += 1;
        let eq = (0..n)
            .max_by(|&a, &b| self.res[a].abs().total_cmp(&self.res[b].abs()))
            .unwrap_or(0);
        let var = (0..n)
            .filter(|&i| conv_mask[i])
            .max_by(|&a, &b| {
                (self.delta[a].abs() / s.weights[a])
                    .total_cmp(&(self.delta[b].abs() / s.weights[b]))
            })
            .unwrap_or(0);
        events.push(Event::CorrectorFailure {
            t: tn,
            h: s.h,
            iterations: s.maxit,
            equation: problem.describe_equation(eq),
            variable: problem.describe_variable(var),
        });
        Ok(false)
    }
}
