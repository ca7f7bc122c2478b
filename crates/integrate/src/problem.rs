//! The abstract problem an implicit integrator sees: G(t, y, y') = 0 with the
//! iteration matrix ∂G/∂y + c·∂G/∂y' in a fixed sparse pattern.

use crate::sparse::SlotAssembler;

/// What a state is, so error control and the corrector can select variables
/// without knowing mechanics (seeds: "Error control in corrector").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarClass {
    Displacement,
    Velocity,
    Multiplier,
    UserState,
    /// An algebraic unknown mirroring others (a force a function reads,
    /// solved with the system): converged by every corrector, never
    /// error-controlled — its error is that of what it mirrors.
    Solved,
}

/// Per unknown: whether its class is one of `wanted` (error-control and
/// corrector-convergence masks).
pub fn class_mask(classes: &[VarClass], wanted: &[VarClass]) -> Vec<bool> {
    classes.iter().map(|c| wanted.contains(c)).collect()
}

/// A problem evaluation failed (e.g. a function expression could not be
/// evaluated); the message names the element.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemError(pub String);

pub trait DaeProblem {
    fn size(&self) -> usize;
    fn classes(&self) -> &[VarClass];
    /// G(t, y, y').
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError>;
    /// ∂G/∂y + c ∂G/∂y' into `a` (between `begin` and `finish`, done by the caller).
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError>;
    /// Extra convergence test on the residual evaluated in the last corrector
    /// iteration (e.g. position constraints satisfied to a tight tolerance).
    fn residual_acceptable(&self, _res: &[f64]) -> bool {
        true
    }
    /// Called with each accepted solution y(t). Return false when the
    /// problem's structure no longer fits it (an equation deactivated as
    /// redundant is no longer satisfied): the integrator stops after this
    /// step with `StopKind::StructureChanged`.
    fn structure_holds(&mut self, _t: f64, _y: &[f64]) -> bool {
        true
    }
    /// Human-readable name of unknown `i` ("PART/2 x displacement").
    fn describe_variable(&self, i: usize) -> String;
    /// Human-readable name of equation `i` ("JOINT/1 Zi.Xj").
    fn describe_equation(&self, i: usize) -> String;
}

/// A DAE integrator as the analysis driver sees it (GSTIFF, WSTIFF, …):
/// advance to output times, expose the solution and the diagnostics.
///
/// HHT/NEWMARK (second-order problems) present y = [q; u] and
/// y' = [u; q̈] (q̈ the true acceleration, length 2·nq), and their λ through
/// `multipliers`.
pub trait DaeIntegrator {
    /// Take steps until t = tout exactly.
    fn advance_to(&mut self, tout: f64) -> Result<(), crate::IntegrationError>;
    /// Time of the last accepted step.
    fn time(&self) -> f64;
    /// y and y' at `time()` after a successful `advance_to`.
    fn solution(&self) -> (&[f64], &[f64]);
    /// y at the last accepted step, valid also after a failed attempt.
    fn accepted(&self) -> &[f64];
    /// Statistics so far (linear-solver counters included).
    fn statistics(&mut self) -> crate::Statistics;
    /// The diagnostic events emitted so far (drained).
    fn take_events(&mut self) -> Vec<crate::Event>;
    /// Hand over a Real Time Index meter (fixed-step option only).
    fn put_rti(&mut self, _meter: Option<crate::RtiMeter>) {}
    /// Take the meter back with this segment's steps recorded.
    fn take_rti(&mut self) -> Option<crate::RtiMeter> {
        None
    }
    /// Largest local error measure so far (fixed-step MAXERR check).
    fn max_local_error(&self) -> f64 {
        0.0
    }
    /// Converge only the variables of `classes` for the next `steps`
    /// accepted steps (the automatic switch to the MODIFIED corrector);
    /// false if the integrator has no such switch.
    fn use_corrector_classes(&mut self, _classes: &[VarClass], _steps: usize) -> bool {
        false
    }
    /// INTERPOLATE = ON: steps until time() ≥ tout without landing on it
    /// (default: land on it).
    fn advance_past(&mut self, tout: f64) -> Result<(), crate::IntegrationError> {
        self.advance_to(tout)
    }
    /// The solution at `t` within the last step; false if the integrator
    /// cannot interpolate.
    fn interpolate(&self, _t: f64, _y: &mut [f64], _yp: &mut [f64]) -> bool {
        false
    }
    /// The multipliers at `time()` where they are unknowns of their own
    /// (HHT/NEWMARK's λ); None where they are part of y.
    fn multipliers(&self) -> Option<&[f64]> {
        None
    }
    /// One accepted step toward `tout` (landing on it when `land` and the
    /// step reaches it; else as `advance_past`), so a caller can watch
    /// every step (SENSORs). Default: the whole way, for integrators that
    /// cannot stop after one step.
    fn step_toward(&mut self, tout: f64, land: bool) -> Result<(), crate::IntegrationError> {
        if land {
            self.advance_to(tout)
        } else {
            self.advance_past(tout)
        }
    }
    /// Take `h` as the first step (before any step is taken; SENSOR
    /// STEPSIZE). False when the integrator cannot (fixed step sizes, h
    /// below HMIN, or it has stepped already).
    fn set_first_step(&mut self, _h: f64) -> bool {
        false
    }
    /// Take `h` as the next step, keeping the method's order and history
    /// (SENSOR STEPSIZE without RESTART: Adams' STEPSIZE sets the trial
    /// step, it does not restart). The history is rescaled to h when that
    /// step is predicted, as for any step-size change. False when the
    /// integrator cannot (fixed step sizes, or h below HMIN).
    fn set_next_step(&mut self, _h: f64) -> bool {
        false
    }
}

/// A second-order index-3 system: n coordinates q (with u = q̇, a = q̈) and
/// m algebraic rows with multipliers λ.
pub trait SecondOrderProblem {
    /// Number of coordinates n.
    fn nq(&self) -> usize;
    /// Number of algebraic rows (multipliers) m.
    fn nm(&self) -> usize;
    /// R(q, u, a, λ, t) = M(q) a + F(q, u, λ, t) into `out` (length n); R must
    /// be linear in a.
    fn body_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError>;
    /// `scale`·Φ(q, t) into `out` (length m). A row that only pins its
    /// multiplier (e.g. a deactivated redundant equation) gives λ_k, unscaled.
    /// A velocity-level row g(q, u, t) = 0 gives `scale`·g (its Jacobian
    /// row: ∂g/∂q + (cu/cq)·∂g/∂u).
    fn constraint_residual(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        lam: &[f64],
        scale: f64,
        out: &mut [f64],
    ) -> Result<(), ProblemError>;
    /// Iteration matrix into `asm` (the caller brackets it with begin/finish),
    /// the same (row, col) sequence on every call:
    /// rows 0..n: cq ∂R/∂q + cu ∂R/∂u + ca ∂R/∂a in columns 0..n and ∂R/∂λ in
    /// columns n..n+m; rows n..n+m: ∂Φ/∂q in columns 0..n, and 1 at (n+k, n+k)
    /// for rows that pin their multiplier.
    #[allow(clippy::too_many_arguments)]
    fn jacobian(
        &mut self,
        t: f64,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        cq: f64,
        cu: f64,
        ca: f64,
        asm: &mut SlotAssembler,
    ) -> Result<(), ProblemError>;
    /// Absolute tolerance the unscaled Φ must meet when the corrector
    /// converges (infinite = no extra test).
    fn constraint_tolerance(&self) -> f64 {
        f64::INFINITY
    }
    /// Called with each accepted position vector q(t). Return false when the
    /// problem's structure no longer fits it (see `DaeProblem::structure_holds`).
    fn structure_holds(&mut self, _t: f64, _q: &[f64]) -> bool {
        true
    }
    /// Name of coordinate i ("PART/2 x").
    fn describe_coordinate(&self, i: usize) -> String;
    /// Name of equation i: body equation for i < n, algebraic row i − n.
    fn describe_equation(&self, i: usize) -> String;
    /// Number of first-order user states w (DIFF, LSE, …), whose rows
    /// G(q, u, w, w', t) = 0 follow the algebraic rows. Default none.
    fn nw(&self) -> usize {
        0
    }
    /// Hand (w, w') to the problem for the next residual or Jacobian.
    fn load_states(&mut self, _w: &[f64], _wp: &[f64]) {}
    /// G(q, u, w, w', t) of the loaded states into `out` (length nw).
    fn state_residual(
        &mut self,
        _t: f64,
        _q: &[f64],
        _u: &[f64],
        _out: &mut [f64],
    ) -> Result<(), ProblemError> {
        Ok(())
    }
    /// The user-state entries of the iteration matrix (after `load_states`),
    /// the same (row, col) sequence on every call: rows n+m..: cq ∂G/∂q +
    /// cu ∂G/∂u in columns 0..n and cv_k (∂G/∂w_k + cw_k ∂G/∂w'_k) in
    /// column n+m+k; rows 0..n: cv_k (∂R/∂w_k + cw_k ∂R/∂w'_k) there.
    #[allow(clippy::too_many_arguments)]
    fn state_jacobian(
        &mut self,
        _t: f64,
        _q: &[f64],
        _u: &[f64],
        _cq: f64,
        _cu: f64,
        _cw: &[f64],
        _cv: &[f64],
        _asm: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        Ok(())
    }
    /// Whether user state k is algebraic (its row reads no w'_k).
    fn state_is_algebraic(&self, _k: usize) -> bool {
        false
    }
    /// Whether user state k is error-controlled: false for an algebraic
    /// unknown that only mirrors other unknowns (a force a function reads,
    /// solved with the system), whose error is that of what it mirrors,
    /// and for a state whose rate reads such an unknown when its errors
    /// are not ones a smaller step reduces (index-3 multipliers).
    fn state_error_controlled(&self, _k: usize) -> bool {
        true
    }
    /// Name of user state k.
    fn describe_state(&self, k: usize) -> String {
        format!("user state {k}")
    }
}

/// What an explicit-ODE problem asks of its integrator after an accepted step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AfterStep {
    /// Keep the history and go on.
    Continue,
    /// The problem rewrote y (e.g. coordinate partitioning chose a new
    /// independent set): the history no longer describes y, so the
    /// integrator discards it and starts again from (t, y) at order 1.
    Restart,
}

/// An explicit ODE y′ = f(t, y): the ODE form (coordinate partitioning,
/// SPEC §1 "ODE") that ABAM, RKF45, VSTIFF and MSTIFF integrate. The
/// integrators know nothing of mechanics; state classes drive error
/// control (displacement vs velocity weights, seeds: `vel_tol_factor`).
pub trait OdeProblem {
    /// Number of states n.
    fn size(&self) -> usize;
    /// The class of each state (length n).
    fn classes(&self) -> &[VarClass];
    /// f(t, y) into `out` (length n).
    fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError>;
    /// ∂f/∂y at (t, y), with `f` = f(t, y) already evaluated, into `jac`
    /// (dense, column-major, n × n). `Ok(false)`: no analytic Jacobian; the
    /// stiff methods then difference `rhs` column by column (n evaluations,
    /// counted in the statistics).
    fn jacobian(
        &mut self,
        _t: f64,
        _y: &[f64],
        _f: &[f64],
        _jac: &mut [f64],
    ) -> Result<bool, ProblemError> {
        Ok(false)
    }
    /// Called with each accepted y(t). The problem may rewrite `y` in place
    /// (a repartition) and then answers `Restart`.
    fn after_step(&mut self, _t: f64, _y: &mut [f64]) -> Result<AfterStep, ProblemError> {
        Ok(AfterStep::Continue)
    }
    /// Human-readable name of state `i` ("PART/2 x displacement").
    fn describe_variable(&self, i: usize) -> String;
}
