//! Force and user-state functions that read accelerations, constraint
//! reactions or other elements' applied forces ([`Measure::Solved`]).
//!
//! Adams solves every force as an algebraic unknown of the DAE; here each
//! distinct solved measure the model's functions read is one algebraic
//! user state z_k (form `Output`), with the row
//!   z_k − g_k(t, q, u, u̇, λ, w) = 0,
//! where g_k is the quantity as the function requests evaluate it on a
//! solution frame. The forces read z_k like any user state, so their
//! columns ∂Q/∂z_k come exactly from the user-state seed (`states.rs`).
//! The mechanics does not evaluate g: the solver does (it owns the request
//! evaluator), through [`SolvedEval`] carried in [`MechData::solved`].
//! The formulation puts u̇ and λ where the evaluator reads them.

use crate::system::{MechData, Sink, System};
use mbsolve_model::Measure;
use std::fmt;

/// The point at which solved quantities are evaluated.
#[derive(Clone, Copy, Debug)]
pub struct SolvedPoint<'a> {
    pub t: f64,
    pub q: &'a [f64],
    pub u: &'a [f64],
    /// u̇ (the accelerations).
    pub a: &'a [f64],
    /// The multipliers λ, in the units the requests read.
    pub lam: &'a [f64],
    pub w: &'a [f64],
    pub wp: &'a [f64],
    pub non_dynamic: bool,
}

/// Where a formulation keeps the unknowns a solved row depends on: the
/// Jacobian entries are ∂/∂q at `col_q`, cu·∂/∂u at `col_u`, ca·∂/∂u̇ at
/// `col_a` (the same column as u in the forms where u̇ is y' of u: ∂/∂y +
/// c ∂/∂y'), clam·∂/∂λ at `col_lam`, ∂/∂w + cw·∂/∂w' at `col_w`; the rows at
/// `row0` (the first user-state row). None: not an unknown there.
#[derive(Clone, Copy, Debug)]
pub struct SolvedColumns {
    pub row0: usize,
    pub col_q: Option<usize>,
    pub col_u: Option<usize>,
    pub cu: f64,
    pub col_a: Option<usize>,
    pub ca: f64,
    pub col_lam: Option<usize>,
    pub clam: f64,
    pub col_w: usize,
    pub cw: f64,
}

/// The solver's evaluator of the solved quantities.
pub trait SolvedEval: Send + Sync + fmt::Debug {
    /// g_k for every solved measure (in `UserStates::solved` order) into
    /// `out`.
    fn values(&self, sys: &System, p: &SolvedPoint, out: &mut [f64]);
    /// The Jacobian entries of the solved rows z_k − g_k at `p`.
    fn jacobian(&self, sys: &System, p: &SolvedPoint, cols: &SolvedColumns, sink: &mut dyn Sink);
}

/// The solved measures `measures` reads that are not yet in `out`, appended.
pub(crate) fn collect(measures: &[Measure], out: &mut Vec<Measure>) {
    for m in measures {
        if matches!(m, Measure::Solved { .. }) && !out.contains(m) {
            out.push(*m);
        }
    }
}

/// "ACCX(202)": the call a solved measure stands for, as written.
pub fn solved_text(m: &Measure) -> String {
    match *m {
        Measure::Solved { name, args, nargs } => {
            let args: Vec<String> = args[..(nargs as usize).min(4)]
                .iter()
                .map(u32::to_string)
                .collect();
            format!("{name}({})", args.join(","))
        }
        other => format!("{other:?}"),
    }
}

impl System {
    /// Number of solved quantities (the last user states).
    pub fn n_solved(&self) -> usize {
        self.states.solved.len()
    }

    /// Index of the first solved quantity among the user states.
    pub fn solved_at(&self) -> usize {
        self.nw() - self.n_solved()
    }

    /// The solved rows z − g into `out` (the user-state rows, nw entries)
    /// at `p` with the evaluator of `data`; untouched without one.
    pub fn solved_residual(&self, data: &MechData, p: &SolvedPoint, out: &mut [f64]) {
        let (at, ns) = (self.solved_at(), self.n_solved());
        let Some(ev) = &data.solved else {
            return;
        };
        if ns == 0 {
            return;
        }
        let rows = &mut out[at..at + ns];
        ev.values(self, p, rows);
        for (k, r) in rows.iter_mut().enumerate() {
            *r = p.w[at + k] - *r;
        }
    }

    /// The solved rows' Jacobian entries (see [`SolvedColumns`]).
    pub fn solved_jacobian(
        &self,
        data: &MechData,
        p: &SolvedPoint,
        cols: &SolvedColumns,
        sink: &mut dyn Sink,
    ) {
        if self.n_solved() == 0 {
            return;
        }
        if let Some(ev) = &data.solved {
            ev.jacobian(self, p, cols, sink);
        }
    }
}
