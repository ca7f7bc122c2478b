//! The redundant constraint equations of an initial-conditions analysis,
//! decided on the assembled configuration (Adams: the initial conditions
//! analysis makes the displacements "physically consistent" by
//! Newton–Raphson, "moving parts until both parts of each joint are in
//! contact", and reports the redundant equations it removed).
//!
//! The rank of Φ_q is a property of a configuration: rows that are exactly
//! dependent on the constraint manifold are only nearly dependent off it.
//! A PLANAR and a SPHERICAL joint holding one part to ground have one
//! redundant equation everywhere on their manifold, but at an input tilted
//! by ε the rows are ε-independent, so a rank test at the input finds none
//! for any ε above RANK_TOL and the run goes on with a Jacobian that turns
//! singular as the assembly converges. So here:
//!
//! 1. a provisional set is found at the input (RANK_TOL), and the positions
//!    are assembled with the rest;
//! 2. when that Newton iteration fails (a singular matrix, or no
//!    convergence: on nearly dependent rows with residuals that are not
//!    exactly consistent its steps jump), the rank is decided again with
//!    looser thresholds (`LOOSER_RANK_TOLS`) at the iterate that came
//!    nearest the manifold, and the assembly is retried from the input;
//! 3. at the assembled configuration — every active equation within
//!    `POS_TOL` (Adams' IC ERROR default, 1e-10), so rows dependent on the
//!    manifold are dependent there to about that, far below RANK_TOL = 1e-8
//!    — the set is decided once more at RANK_TOL, and the positions are
//!    re-assembled with it (from the assembled ones) until it no longer
//!    changes. That decision is the one the run uses, logs and `mbsolve
//!    check` reports (`Simulation::removed_equations`).
//!
//! Exact and tilted inputs assemble to the same configuration, so they
//! remove the same equation.

use crate::analysis::{assemble_positions, assemble_positions_tracked, Simulation, SolverError};
use crate::redundancy::{
    find_redundant, find_redundant_with, singular_only, NEAR_SINGULAR_TOL, RANK_TOL,
};

/// Rank thresholds of the retries after a failed assembly, loosest last:
/// rows of an input a little off the manifold (rounded direction cosines,
/// a few 1e-7 rad) are caught by the first, a stalled Newton iteration's
/// nearest iterate by the second.
const LOOSER_RANK_TOLS: [f64; 2] = [1e-6, NEAR_SINGULAR_TOL];

/// Rounds of "decide the rank at the assembled configuration, re-assemble"
/// (one changes the set at most once in practice; the cap only bounds a
/// set that would alternate).
const MAX_RANK_ROUNDS: usize = 4;

impl Simulation {
    /// Positions near `q0` that satisfy the active constraints, with the
    /// redundant equations decided at them (module doc). Sets
    /// `data.active` and `data.singular`; logs nothing (the caller logs
    /// `removed_equations`). An error is the first assembly's when no
    /// retry assembles.
    pub(crate) fn assemble_deciding_rank(
        &mut self,
        t: f64,
        q0: &[f64],
    ) -> Result<Vec<f64>, SolverError> {
        let at_input = find_redundant(&self.sys, &self.model, &self.data.off, q0, t);
        self.set_redundant(&at_input);
        let mut q = match assemble_positions_tracked(&self.sys, &mut self.data, t, q0) {
            Ok(q) => q,
            Err((first, nearest)) => self
                .assemble_with_looser_rank(t, q0, &nearest)
                .ok_or(first)?,
        };
        for _ in 0..MAX_RANK_ROUNDS {
            let redundant =
                find_redundant_with(&self.sys, &self.model, &self.data.off, &q, t, RANK_TOL);
            if redundant == self.redundant_now() {
                break;
            }
            self.set_redundant(&redundant);
            q = assemble_positions(&self.sys, &mut self.data, t, &q)?;
        }
        let redundant = self.redundant_now();
        let singular = singular_only(&self.sys, &self.data, &self.model, &q, t, &redundant);
        for k in 0..self.sys.neq() {
            self.data.singular[k] = singular.binary_search(&k).is_ok();
        }
        Ok(q)
    }

    /// `assemble_deciding_rank` after the element set changed (ACTIVATE,
    /// DEACTIVATE, a redefined element): the equations whose state
    /// changed are logged as a rank re-check logs them ("t = …:
    /// deactivating constraint equation … (redundant in the current
    /// configuration)", "reactivating …"), with the new DOF.
    pub(crate) fn reassemble_deciding_rank(
        &mut self,
        t: f64,
        q0: &[f64],
    ) -> Result<Vec<f64>, SolverError> {
        let before = self.data.active.clone();
        let q = self.assemble_deciding_rank(t, q0)?;
        let mut changed = false;
        for k in 0..self.sys.neq() {
            let active = self.data.active[k];
            if self.data.equation_is_off(k) || before[k] == active {
                continue;
            }
            changed = true;
            let e = &self.sys.equations[k];
            let (what, why) = if active {
                (
                    "reactivating constraint equation",
                    "no longer redundant in the current configuration",
                )
            } else if self.data.singular[k] {
                (
                    "deactivating constraint equation",
                    "dependent only near this singular configuration; reactivated as soon as it is independent again",
                )
            } else {
                (
                    "deactivating constraint equation",
                    "redundant in the current configuration",
                )
            };
            let line = format!(
                "t = {t:.6e}: {what} {} in {} ({why})",
                e.name,
                self.sys.describe(e.element)
            );
            self.log.push(line);
        }
        if changed {
            self.log.push(format!(
                "degrees of freedom after the rank change: {}",
                self.sys.dof(&self.data)
            ));
        }
        Ok(q)
    }

    /// Step 2 of the module doc: the rank decided at `nearest` with each
    /// of `LOOSER_RANK_TOLS`, the assembly retried from `q0`.
    fn assemble_with_looser_rank(
        &mut self,
        t: f64,
        q0: &[f64],
        nearest: &[f64],
    ) -> Option<Vec<f64>> {
        for tol in LOOSER_RANK_TOLS {
            let redundant =
                find_redundant_with(&self.sys, &self.model, &self.data.off, nearest, t, tol);
            self.set_redundant(&redundant);
            if let Ok(q) = assemble_positions(&self.sys, &mut self.data, t, q0) {
                return Some(q);
            }
        }
        None
    }

    /// Every equation active except `redundant` (sorted) and those of
    /// deactivated elements.
    fn set_redundant(&mut self, redundant: &[usize]) {
        for k in 0..self.sys.neq() {
            self.data.active[k] =
                redundant.binary_search(&k).is_err() && !self.data.equation_is_off(k);
            self.data.singular[k] = false;
        }
        self.data.invalidate_cache();
    }

    /// The equations inactive for redundancy (not for a deactivated
    /// element), in model order.
    fn redundant_now(&self) -> Vec<usize> {
        (0..self.sys.neq())
            .filter(|&k| !self.data.active[k] && !self.data.equation_is_off(k))
            .collect()
    }

    /// One line per constraint equation the run leaves out as redundant
    /// ("deactivating constraint equation Zi.Yj in JOINT/2 (m.adm:12)
    /// (redundant)"), in model order: what the initial conditions log and
    /// `mbsolve check` prints, read from the active set itself.
    pub fn removed_equations(&self) -> Vec<String> {
        self.redundant_now()
            .into_iter()
            .map(|k| {
                let e = &self.sys.equations[k];
                format!(
                    "deactivating constraint equation {} in {} ({})",
                    e.name,
                    self.sys.describe(e.element),
                    if self.data.singular[k] {
                        "dependent only at this singular configuration; reactivated as soon as it is independent again"
                    } else {
                        "redundant"
                    }
                )
            })
            .collect()
    }
}
