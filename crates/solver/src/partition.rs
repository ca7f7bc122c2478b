//! The ODE form (SPEC §1 "ODE"): coordinate partitioning after Wehage &
//! Haug (ASME J. Mech. Design 104, 1982; Haug, *Computer-Aided Kinematics
//! and Dynamics of Mechanical Systems*, 1989, §6.3 and §7.1).
//!
//! The active constraint rows Φ(q, t) = 0 (joints, motions and each body's
//! Euler-parameter normalization pᵀp − 1 = 0) split the coordinates into
//! dependent ones q_D, one per active row, and independent ones q_I: the
//! pivot columns of a Gaussian elimination of Φ_q with complete pivoting
//! are dependent, the rest independent. The ODE state is y = (q_I, u_I, w),
//! w the user states with a rate (DIFF, LSE/TFSISO states; class
//! UserState, error-controlled), and each evaluation of
//! f(t, y) = (u_I, a_I, w′)
//! 1. solves Φ(q_I, q_D, t) = 0 for q_D by Newton with Φ_D = ∂Φ/∂q_D to
//!    |Φ| ≤ the position tolerance (at most MAXIT iterations, warm-started
//!    from the last evaluation);
//! 2. solves Φ_D u_D = −Φ_t − Φ_I u_I for the dependent velocities;
//! 3. solves the user-state rows for w′ (and the LSE/TFSISO outputs) at
//!    (q, u, w, t): an implicit DIFF's G(w, w′) = 0 by Newton, so the ODE
//!    stays explicit;
//! 4. solves [M Φ_qᵀ; Φ_q 0] [a; λ] = [Q − (velocity terms); γ] for all
//!    accelerations and the multipliers (reactions), the forces reading
//!    DIF/DIF1 at that (w, w′).
//!
//! Both systems are sparse (`SlotAssembler` + `SparseLu`): the pattern is
//! recorded once per partition and the symbolic analysis reused; nothing is
//! allocated per evaluation. Steps 2 and 3 solve by iterative refinement on
//! the factorizations of the last evaluation (a nearby state) and refactor
//! only when the refinement does not converge (`refined_solve`).
//!
//! INTERPOLATE = ON: the wrapper `PartitionedIntegrator` steps past the
//! outputs, interpolates the reduced state with the method's dense output
//! and recovers the full state there (steps 1–4).
//!
//! Repartition test: after each accepted step, κ = ‖Φ_D‖_∞·‖x‖_∞ with
//! Φ_D x = (1, …, 1) estimates the condition of the dependent block (one
//! extra solve with the factorization already there). When κ exceeds
//! REPARTITION_CONDITION_GROWTH times its value at the last partition, the
//! coordinates are partitioned again at the accepted state, the integrator
//! restarts from the new (q_I, u_I) at order 1 (`AfterStep::Restart`), and
//! an `Event::Repartition` names the new independent set.

use crate::analysis::Frame;
use crate::formulation::{
    coordinate_name, equation_name, AsmSink, DaeFormulation, FrameMap, Integrator, RedundancyWatch,
    Segment,
};
use crate::settings::{MethodParams, Plan};
use mbsolve_integrate::ode::{hermite_basis, mstiff::Mstiff, vstiff::Vstiff};
mod jacobian;

use mbsolve_integrate::{Abam, Rkf45};
use mbsolve_integrate::{
    AfterStep, DaeIntegrator, Event, IntegrationError, OdeProblem, ProblemError, SlotAssembler,
    SparseLu, Statistics, VarClass,
};
use mbsolve_mech::states::{StateForm, StateValues};
use mbsolve_mech::{MechData, Sink, System};
use mbsolve_model::{CorrectorKind, IntegratorKind};
use std::cell::RefCell;
use std::rc::Rc;

/// Repartition when the dependent block's condition estimate grew by this
/// factor since the partition. Ours: with 10, RKF45 on the pendulum at
/// ERROR 1e-7 rejected 8 steps in a row before each repartition and ABAM's
/// Newton on q_D failed to converge once; with 4, ABAM on the free
/// slider-crank at ERROR 1e-7 lost 1e-6 m within the steps before the
/// repartition (the error control sees only q_I, and the dependent
/// coordinates amplify its error by ‖Φ_D⁻¹Φ_I‖, which grows with κ); with
/// 2 that error stays at 3.5e-7.
pub const REPARTITION_CONDITION_GROWTH: f64 = 2.0;
/// A pivot below this fraction of the largest entry of Φ_q ends the
/// elimination: the active rows are dependent (ours; the redundancy check
/// before integration should have deactivated such rows).
pub const PARTITION_RANK_TOL: f64 = 1e-10;
/// The chord iteration on q_D refactors Φ_D when |Φ| did not fall below
/// this fraction of the previous iterate's (ours; a chord iteration with a
/// factorization from a nearby q contracts by far more; with 0.5 ABAM's
/// iteration near a turning point crept below the rule and ran out of
/// MAXIT at |Φ| = 1.4e-10).
pub const CHORD_RATE: f64 = 0.1;

/// Iterative refinement on the factorization of a nearby matrix
/// (`refined_solve`): the solution is taken when a correction falls below
/// REFINE_TOLERANCE relative to the solution (about what a fresh
/// factorization attains), each correction must shrink by
/// REFINE_CONTRACTION, and after REFINE_MAX_ITERATIONS the matrix is
/// factored afresh (ours; the factorization is from the last evaluation,
/// within a step). On the 16-link chain (1 s, ERROR 1e-5) this halves the
/// factorizations (ABAM 449 → 212 for 224 f-evaluations) and the time
/// per f-evaluation falls 10–20% for ABAM, VSTIFF and MSTIFF (RKF45's
/// stages are too far apart: no gain); 8 iterations at contraction 0.5
/// factor less (130) but take as long per evaluation.
pub const REFINE_TOLERANCE: f64 = 1e-13;
pub const REFINE_CONTRACTION: f64 = 0.1;
pub const REFINE_MAX_ITERATIONS: usize = 4;

/// Solve A x = b, A assembled in `asm` and b in `x` on entry, with `lu` a
/// factorization of A at a nearby state (the last evaluation's):
/// x = LU⁻¹b refined by x += LU⁻¹(b − A x) (Wilkinson's iterative
/// refinement with an approximate factorization) while the corrections
/// contract; else `lu` is refactored at A and the system solved directly.
/// One matrix-vector product and one solve per correction instead of a
/// numeric factorization per evaluation. `b` and `r`: scratch of A's size.
fn refined_solve(
    asm: &SlotAssembler,
    lu: &mut SparseLu,
    x: &mut [f64],
    b: &mut [f64],
    r: &mut [f64],
) -> Result<(), mbsolve_integrate::sparse::Singular> {
    b.copy_from_slice(x);
    let norm = |v: &[f64]| v.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if lu.solve(x).is_ok() {
        let mut previous = f64::INFINITY;
        for _ in 0..REFINE_MAX_ITERATIONS {
            asm.mul(x, r);
            for (ri, bi) in r.iter_mut().zip(b.iter()) {
                *ri = bi - *ri;
            }
            if lu.solve(r).is_err() {
                break;
            }
            let correction = norm(r);
            for (xi, di) in x.iter_mut().zip(r.iter()) {
                *xi += di;
            }
            if correction <= REFINE_TOLERANCE * norm(x).max(f64::MIN_POSITIVE) {
                return Ok(());
            }
            if correction > REFINE_CONTRACTION * previous {
                break;
            }
            previous = correction;
        }
    }
    lu.factor(asm)?;
    x.copy_from_slice(b);
    lu.solve(x)
}

/// The accepted full state the integrator's reduced state stands for, and
/// the repartition events, shared with the integrator wrapper.
#[derive(Default)]
struct Published {
    t: f64,
    q: Vec<f64>,
    u: Vec<f64>,
    a: Vec<f64>,
    lam: Vec<f64>,
    /// All user states (DIFF, LSE/TFSISO states and outputs) and rates.
    w: Vec<f64>,
    wp: Vec<f64>,
    /// The accepted state before it (the start of the last step), for
    /// interpolation across a repartition (`interpolate_full_state`).
    t_prev: f64,
    q_prev: Vec<f64>,
    u_prev: Vec<f64>,
    a_prev: Vec<f64>,
    w_prev: Vec<f64>,
    wp_prev: Vec<f64>,
    events: Vec<Event>,
    /// (numeric, symbolic) factorizations and rhs evaluations' Newton
    /// iterations of the problem's own linear systems.
    factorizations: u64,
    symbolic: u64,
    newton_iterations: u64,
    jacobians: u64,
    /// A deactivated (redundant) equation that left its band, and its
    /// residual: the constraint rank changed.
    drift: Option<(usize, f64)>,
}

/// A coordinate split: dependent coordinates in pivot order, independent
/// ones ascending.
#[derive(Clone, Debug, PartialEq)]
pub struct Partition {
    pub independent: Vec<usize>,
    pub dependent: Vec<usize>,
}

/// Gaussian elimination of the active rows of Φ_q (dense, rows × n,
/// row-major) with complete pivoting: the pivot columns are dependent.
/// Err(row): that row (the first one left without a pivot) depends on the
/// rows eliminated before it.
pub fn choose_partition(jac: &mut [f64], rows: usize, n: usize) -> Result<Partition, usize> {
    let scale = jac.iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1e-300);
    let mut col_used = vec![false; n];
    let mut row_used = vec![false; rows];
    let mut dependent = Vec::with_capacity(rows);
    for _ in 0..rows {
        let (mut best, mut br, mut bc) = (0.0, 0, 0);
        for r in (0..rows).filter(|r| !row_used[*r]) {
            for c in (0..n).filter(|c| !col_used[*c]) {
                let v = jac[r * n + c].abs();
                if v > best {
                    (best, br, bc) = (v, r, c);
                }
            }
        }
        if best <= PARTITION_RANK_TOL * scale {
            return Err((0..rows).find(|r| !row_used[*r]).unwrap_or(0));
        }
        row_used[br] = true;
        col_used[bc] = true;
        dependent.push(bc);
        let pivot = jac[br * n + bc];
        for r in (0..rows).filter(|r| !row_used[*r]) {
            let f = jac[r * n + bc] / pivot;
            if f != 0.0 {
                for c in 0..n {
                    jac[r * n + c] -= f * jac[br * n + c];
                }
            }
        }
    }
    let independent = (0..n).filter(|c| !col_used[*c]).collect();
    Ok(Partition {
        independent,
        dependent,
    })
}

/// `choose_partition` on sparse rows: the same pivots in the same order
/// (the largest remaining |entry|, the first in row-major order on ties;
/// the same updates a − f·b), in time and memory of the order of the
/// nonzeros and their fill instead of O(rows² × n) and a dense rows × n
/// array (N-link chain at its initial state: N = 200 took 2.3 s dense,
/// 0.22 s sparse; N = 400 40 s and 1.6 s). `entries`: (row, column,
/// value), repeats summed here.
pub fn choose_partition_sparse(
    mut entries: Vec<(usize, usize, f64)>,
    rows: usize,
    n: usize,
) -> Result<Partition, usize> {
    entries.sort_by_key(|e| (e.0, e.1));
    // Rows as column-sorted (column, value) lists; repeats summed.
    let mut row: Vec<Vec<(usize, f64)>> = vec![Vec::new(); rows];
    for (r, c, v) in entries {
        match row[r].last_mut() {
            Some(last) if last.0 == c => last.1 += v,
            _ => row[r].push((c, v)),
        }
    }
    let scale = row
        .iter()
        .flatten()
        .fold(0.0f64, |m, e| m.max(e.1.abs()))
        .max(1e-300);
    // Rows holding each column (may list a row whose entry was removed).
    let mut rows_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (r, entries) in row.iter().enumerate() {
        for &(c, _) in entries {
            rows_of[c].push(r);
        }
    }
    let mut col_used = vec![false; n];
    let mut row_used = vec![false; rows];
    let mut dependent = Vec::with_capacity(rows);
    let mut merged: Vec<(usize, f64)> = Vec::new();
    // Each row's largest |entry| in an unused column (the first on ties),
    // updated for the rows an elimination step touches: the pivot search
    // scans rows, not entries.
    let row_max = |entries: &[(usize, f64)], col_used: &[bool]| {
        let mut m = (0.0f64, 0usize);
        for &(c, v) in entries {
            if !col_used[c] && v.abs() > m.0 {
                m = (v.abs(), c);
            }
        }
        m
    };
    let mut max_of: Vec<(f64, usize)> = row.iter().map(|e| row_max(e, &col_used)).collect();
    for _ in 0..rows {
        let (mut best, mut br, mut bc) = (0.0, 0, 0);
        for r in (0..rows).filter(|r| !row_used[*r]) {
            if max_of[r].0 > best {
                (best, br, bc) = (max_of[r].0, r, max_of[r].1);
            }
        }
        if best <= PARTITION_RANK_TOL * scale {
            return Err((0..rows).find(|r| !row_used[*r]).unwrap_or(0));
        }
        row_used[br] = true;
        col_used[bc] = true;
        dependent.push(bc);
        let pivot_row = std::mem::take(&mut row[br]);
        let pivot = pivot_row.iter().find(|e| e.0 == bc).map_or(best, |e| e.1);
        let targets = std::mem::take(&mut rows_of[bc]);
        for &r in &targets {
            if row_used[r] {
                continue;
            }
            let Some(x) = row[r].iter().find(|e| e.0 == bc).map(|e| e.1) else {
                continue;
            };
            let f = x / pivot;
            if f == 0.0 {
                continue;
            }
            // row[r] −= f·pivot_row, merging the two sorted lists.
            merged.clear();
            let (a, b) = (&row[r], &pivot_row);
            let (mut i, mut j) = (0, 0);
            while i < a.len() || j < b.len() {
                let ca = a.get(i).map_or(usize::MAX, |e| e.0);
                let cb = b.get(j).map_or(usize::MAX, |e| e.0);
                if ca < cb {
                    merged.push(a[i]);
                    i += 1;
                } else if cb < ca {
                    merged.push((cb, -(f * b[j].1)));
                    rows_of[cb].push(r);
                    j += 1;
                } else {
                    merged.push((ca, a[i].1 - f * b[j].1));
                    i += 1;
                    j += 1;
                }
            }
            std::mem::swap(&mut row[r], &mut merged);
        }
        for &r in &targets {
            if !row_used[r] {
                max_of[r] = row_max(&row[r], &col_used);
            }
        }
        rows_of[bc] = targets;
        row[br] = pivot_row;
    }
    let independent = (0..n).filter(|c| !col_used[*c]).collect();
    Ok(Partition {
        independent,
        dependent,
    })
}

/// Collects the entries of Φ_q's active rows as (active row, column,
/// value), duplicates not yet summed.
struct TripletRows<'a> {
    row_of: &'a [Option<usize>],
    out: &'a mut Vec<(usize, usize, f64)>,
}
impl Sink for TripletRows<'_> {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        if let Some(rr) = self.row_of[r] {
            self.out.push((rr, c, v));
        }
    }
}

/// Writes Φ_D (active rows × dependent columns) into a sparse assembler.
struct DependentSink<'a> {
    row_of: &'a [Option<usize>],
    dep_of: &'a [Option<usize>],
    asm: &'a mut SlotAssembler,
}
impl Sink for DependentSink<'_> {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        if let (Some(rr), Some(cc)) = (self.row_of[r], self.dep_of[c]) {
            self.asm.add(rr, cc, v);
        }
    }
}

/// The coordinate-partitioned equations of motion as an explicit ODE.
pub struct PartitionProblem<'a> {
    sys: &'a System,
    /// This problem's mechanics data (active set, evaluation cache).
    data: MechData,
    /// Active equation of each active row, and each equation's row.
    rows: Vec<usize>,
    row_of: Vec<Option<usize>>,
    part: Partition,
    dep_of: Vec<Option<usize>>,
    /// The user states with a rate (explicit and implicit DIFFs, LSE and
    /// TFSISO states), in state order: the last entries of y. The
    /// algebraic outputs (LSE/TFSISO Y) are not ODE states; each
    /// evaluation solves them with the rates (`solve_state_rates`).
    rated: Vec<usize>,
    classes: Vec<VarClass>,
    /// Newton tolerance on |Φ| and its iteration limit (MAXIT).
    position_tol: f64,
    maxit: usize,
    dblock: SlotAssembler,
    dlu: SparseLu,
    kkt: SlotAssembler,
    klu: SparseLu,
    /// Pattern version of `kkt` that `klu` was last factored for (0:
    /// none).
    klu_pattern: u64,
    /// Scratch of `refined_solve` (right-hand side, residual) for the
    /// dependent block and the augmented system.
    refine_b: Vec<f64>,
    refine_r: Vec<f64>,
    refine_kb: Vec<f64>,
    refine_kr: Vec<f64>,
    /// Buffers of the reduced Jacobian (`jacobian.rs`).
    jac_scratch: jacobian::JacobianScratch,
    /// The (t, y) of the last evaluation: the accepted y differs from it
    /// after a corrector's final update (VSTIFF, MSTIFF), and `after_step`
    /// then evaluates at the accepted y before publishing.
    last_t: f64,
    last_y: Vec<f64>,
    /// Full state of the last evaluation.
    q: Vec<f64>,
    u: Vec<f64>,
    a: Vec<f64>,
    lam: Vec<f64>,
    phi: Vec<f64>,
    vel: Vec<f64>,
    rhs_d: Vec<f64>,
    rhs_k: Vec<f64>,
    zero_n: Vec<f64>,
    /// Newton on the solved quantities per evaluation (`reaction_fn.rs`).
    solved_scratch: crate::reaction_fn::LoopScratch,
    /// Dependent-block condition estimate at the last partition.
    kappa_partition: f64,
    /// Deactivated equations checked at every accepted step.
    watch: RedundancyWatch,
    /// The last accepted full state: the Newton iteration on q_D starts
    /// from its Taylor polynomial q + Δt u + Δt²/2 a.
    acc_t: f64,
    acc_q: Vec<f64>,
    acc_u: Vec<f64>,
    acc_a: Vec<f64>,
    published: Rc<RefCell<Published>>,
}

impl<'a> PartitionProblem<'a> {
    /// Partition at the consistent state `s`.
    pub fn new(
        sys: &'a System,
        mut data: MechData,
        s: &Frame,
        position_tol: f64,
        maxit: usize,
    ) -> Result<Self, String> {
        let (n, m, nw) = (sys.nq(), sys.neq(), sys.nw());
        // The user states start from the consistent frame's (w, w').
        if s.w.len() == nw && s.wp.len() == nw {
            data.states.set(&s.w, &s.wp);
        } else {
            data.states = StateValues::zeros(nw);
            data.states.w = sys.state_initial_values();
        }
        let rated = (0..nw)
            .filter(|&k| sys.states.equations[k].form != StateForm::Output)
            .collect();
        let rows: Vec<usize> = (0..m).filter(|k| data.active[*k]).collect();
        let mut row_of = vec![None; m];
        for (r, &k) in rows.iter().enumerate() {
            row_of[k] = Some(r);
        }
        let ma = rows.len();
        let published = Published {
            t: s.t,
            q: s.q.clone(),
            u: s.u.clone(),
            a: s.a.clone(),
            lam: s.lambda.clone(),
            w: data.states.w.clone(),
            wp: data.states.wp.clone(),
            t_prev: s.t,
            q_prev: s.q.clone(),
            u_prev: s.u.clone(),
            a_prev: s.a.clone(),
            w_prev: data.states.w.clone(),
            wp_prev: data.states.wp.clone(),
            ..Default::default()
        };
        let watch = RedundancyWatch::new(sys, &data, &s.q, s.t);
        let mut p = PartitionProblem {
            sys,
            data,
            rows,
            row_of,
            part: Partition {
                independent: Vec::new(),
                dependent: Vec::new(),
            },
            dep_of: vec![None; n],
            rated,
            classes: Vec::new(),
            position_tol,
            maxit,
            dblock: SlotAssembler::new(ma),
            dlu: SparseLu::new(),
            kkt: SlotAssembler::new(n + m),
            klu: SparseLu::new(),
            klu_pattern: 0,
            refine_b: vec![0.0; ma],
            refine_r: vec![0.0; ma],
            refine_kb: vec![0.0; n + m],
            refine_kr: vec![0.0; n + m],
            jac_scratch: Default::default(),
            last_t: f64::NAN,
            last_y: Vec::new(),
            q: s.q.clone(),
            u: s.u.clone(),
            a: s.a.clone(),
            lam: s.lambda.clone(),
            phi: vec![0.0; m],
            vel: vec![0.0; m],
            rhs_d: vec![0.0; ma],
            rhs_k: vec![0.0; n + m],
            zero_n: vec![0.0; n],
            solved_scratch: crate::reaction_fn::LoopScratch::new(sys),
            kappa_partition: 0.0,
            watch,
            acc_t: s.t,
            acc_q: s.q.clone(),
            acc_u: s.u.clone(),
            acc_a: s.a.clone(),
            published: Rc::new(RefCell::new(published)),
        };
        p.repartition(s.t).map_err(|e| e.0)?;
        Ok(p)
    }

    /// All coordinates q of the last evaluated (or, after `after_step`,
    /// the accepted) full state.
    pub fn full_positions(&self) -> &[f64] {
        &self.q
    }

    /// The reduced state (q_I, u_I, w) of the last evaluated full state.
    pub fn reduced_state(&self) -> Vec<f64> {
        let i = &self.part.independent;
        i.iter()
            .map(|&c| self.q[c])
            .chain(i.iter().map(|&c| self.u[c]))
            .chain(self.rated.iter().map(|&k| self.data.states.w[k]))
            .collect()
    }

    /// The present split.
    pub fn partition(&self) -> &Partition {
        &self.part
    }

    /// Choose the split at the present full state (q, t).
    fn repartition(&mut self, t: f64) -> Result<(), ProblemError> {
        let (n, ma) = (self.sys.nq(), self.rows.len());
        let mut entries = Vec::new();
        let mut sink = TripletRows {
            row_of: &self.row_of,
            out: &mut entries,
        };
        self.sys
            .constraint_jacobian(&mut self.data, &self.q, t, &mut sink, 0, 0, None, None);
        self.part = choose_partition_sparse(entries, ma, n).map_err(|r| {
            ProblemError(format!(
                "no partition into dependent and independent coordinates at t = {t:.6e}: equation {} depends on the other active equations (constraint Jacobian of rank < {ma})",
                equation_name(self.sys, self.rows[r])
            ))
        })?;
        self.dep_of.iter_mut().for_each(|d| *d = None);
        for (j, &c) in self.part.dependent.iter().enumerate() {
            self.dep_of[c] = Some(j);
        }
        let nd = self.part.independent.len();
        self.classes = std::iter::repeat_n(VarClass::Displacement, nd)
            .chain(std::iter::repeat_n(VarClass::Velocity, nd))
            .chain(std::iter::repeat_n(VarClass::UserState, self.rated.len()))
            .collect();
        self.factor_dependent(t)?;
        self.kappa_partition = self.condition_estimate()?;
        Ok(())
    }

    /// Assemble and factor Φ_D at (self.q, t).
    fn factor_dependent(&mut self, t: f64) -> Result<(), ProblemError> {
        self.assemble_dependent(t);
        self.dlu.factor(&self.dblock).map_err(|_| {
            ProblemError(format!(
                "t = {t:.6e}: the dependent-coordinate block of the constraint Jacobian is singular"
            ))
        })?;
        Ok(())
    }

    /// Assemble Φ_D at (self.q, t) (a constraint-Jacobian evaluation).
    fn assemble_dependent(&mut self, t: f64) {
        self.published.borrow_mut().jacobians += 1;
        loop {
            self.dblock.begin();
            let mut sink = DependentSink {
                row_of: &self.row_of,
                dep_of: &self.dep_of,
                asm: &mut self.dblock,
            };
            self.sys
                .constraint_jacobian(&mut self.data, &self.q, t, &mut sink, 0, 0, None, None);
            if self.dblock.finish() {
                break;
            }
        }
    }

    /// κ = max|Φ_D entry| · ‖Φ_D⁻¹ 1‖_∞ with the present factorization
    /// (a growth indicator, compared only with itself).
    fn condition_estimate(&mut self) -> Result<f64, ProblemError> {
        if self.rows.is_empty() {
            return Ok(1.0);
        }
        let largest = self
            .dblock
            .values
            .iter()
            .fold(0.0f64, |a, v| a.max(v.abs()));
        self.rhs_d.iter_mut().for_each(|v| *v = 1.0);
        if self.dlu.solve(&mut self.rhs_d).is_err() {
            return Ok(f64::INFINITY);
        }
        let x = self.rhs_d.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        Ok(largest * x)
    }

    /// Steps 1–4 of the module doc at (t, y), with the user states' rates
    /// (and algebraic outputs) between steps 2 and 3.
    fn evaluate(&mut self, t: f64, y: &[f64]) -> Result<(), ProblemError> {
        let (n, nd) = (self.sys.nq(), self.part.independent.len());
        self.last_t = t;
        self.last_y.clear();
        self.last_y.extend_from_slice(y);
        for (j, &c) in self.part.independent.iter().enumerate() {
            self.q[c] = y[j];
            self.u[c] = y[nd + j];
        }
        for (j, &k) in self.rated.iter().enumerate() {
            self.data.states.w[k] = y[2 * nd + j];
        }
        let dt = t - self.acc_t;
        for &c in &self.part.dependent {
            self.q[c] = self.acc_q[c] + dt * (self.acc_u[c] + 0.5 * dt * self.acc_a[c]);
        }
        // 1. Dependent positions by Newton on Φ_D Δq_D = −Φ: a chord
        // iteration with the factorization of the last evaluation (a nearby
        // q), refactored at the present q when it stops halving |Φ|.
        let mut iterations = 0;
        let mut previous = f64::INFINITY;
        loop {
            self.sys
                .constraints(&mut self.data, &self.q, t, &mut self.phi);
            let worst = self
                .rows
                .iter()
                .fold(0.0f64, |a, &k| a.max(self.phi[k].abs()));
            if !worst.is_finite() {
                return Err(ProblemError(format!(
                    "t = {t:.6e}: non-finite constraint residual while solving the dependent coordinates"
                )));
            }
            if worst <= self.position_tol {
                break;
            }
            if iterations == self.maxit {
                return Err(ProblemError(format!(
                    "t = {t:.6e}: the dependent coordinates did not converge in MAXIT = {} Newton iterations (|Φ| = {worst:.3e} > {:.1e})",
                    self.maxit, self.position_tol
                )));
            }
            if worst > CHORD_RATE * previous {
                self.factor_dependent(t)?;
            }
            previous = worst;
            for (r, &k) in self.rows.iter().enumerate() {
                self.rhs_d[r] = -self.phi[k];
            }
            self.dlu
                .solve(&mut self.rhs_d)
                .map_err(|_| ProblemError("singular dependent block".into()))?;
            for (j, &c) in self.part.dependent.iter().enumerate() {
                self.q[c] += self.rhs_d[j];
            }
            iterations += 1;
        }
        // 2. Dependent velocities: Φ_D u_D = −(Φ_I u_I + Φ_t), with Φ_D at
        // the converged q, solved by refinement on the chord's
        // factorization (`refined_solve`).
        self.assemble_dependent(t);
        for &c in &self.part.dependent {
            self.u[c] = 0.0;
        }
        self.sys.constraint_terms(
            &mut self.data,
            &self.q,
            t,
            &mut self.phi,
            &mut [],
            Some((&self.u, &mut self.vel)),
        );
        for (r, &k) in self.rows.iter().enumerate() {
            self.rhs_d[r] = -self.vel[k];
        }
        refined_solve(
            &self.dblock,
            &mut self.dlu,
            &mut self.rhs_d,
            &mut self.refine_b,
            &mut self.refine_r,
        )
        .map_err(|_| {
            ProblemError(format!(
                "t = {t:.6e}: the dependent-coordinate block of the constraint Jacobian is singular"
            ))
        })?;
        for (j, &c) in self.part.dependent.iter().enumerate() {
            self.u[c] = self.rhs_d[j];
        }
        // User states: the rates w' (and the algebraic outputs) at (q, u,
        // w, t), solved by Newton on the state rows G(w', w) = 0 from the
        // last evaluation's w' (`solve_state_rates`). An explicit DIFF
        // converges in one step; an implicit one is solved for w' here, so
        // y' = f(t, y) stays an explicit ODE (index 1: ∂G/∂w' nonsingular,
        // as the initial conditions require already). Forces read these
        // (w, w') through DIF/DIF1 in step 3.
        if !self.data.states.w.is_empty() {
            self.sys
                .solve_state_rates(&mut self.data, &self.q, &self.u, t)
                .map_err(ProblemError)?;
        }
        // 3. Accelerations and multipliers from the augmented system.
        loop {
            self.kkt.begin();
            let mut s = AsmSink(&mut self.kkt);
            // λ = 0 here: no ∂(Φ_qᵀλ)/∂q, and no q columns anyway.
            self.sys.body_jacobian(
                &mut self.data,
                &self.q,
                &self.u,
                &self.zero_n,
                None,
                t,
                &mut s,
                0,
                None,
                0,
                0.0,
                1.0,
            );
            self.sys.constraint_jacobian(
                &mut self.data,
                &self.q,
                t,
                &mut s,
                n,
                0,
                Some((0, n)),
                Some(n),
            );
            if self.kkt.finish() {
                break;
            }
        }
        let singular = |_| {
            ProblemError(format!(
                "t = {t:.6e}: the augmented mass-constraint matrix is singular"
            ))
        };
        // The first factorization at the pattern; later ones only when the
        // refinement on the last one does not converge.
        if self.klu_pattern != self.kkt.pattern_version {
            self.klu.factor(&self.kkt).map_err(singular)?;
            self.klu_pattern = self.kkt.pattern_version;
        }
        let (body, cons) = self.rhs_k.split_at_mut(n);
        // Joint friction reads the λ of the previous evaluation (lagged).
        self.data.set_multipliers(&self.lam);
        self.sys
            .applied_residual(&self.data, &self.q, &self.u, &self.zero_n, t, body);
        body.iter_mut().for_each(|v| *v = -*v);
        self.sys
            .acceleration_rhs(&self.data, &self.q, &self.u, t, cons);
        refined_solve(
            &self.kkt,
            &mut self.klu,
            &mut self.rhs_k,
            &mut self.refine_kb,
            &mut self.refine_kr,
        )
        .map_err(singular)?;
        self.a.copy_from_slice(&self.rhs_k[..n]);
        self.lam.copy_from_slice(&self.rhs_k[n..]);
        // Quantities functions read that depend on (a, λ) (`reaction_fn.rs`):
        // made consistent with them, re-solving for each trial value.
        let (sys, q, u, zero_n) = (self.sys, &self.q, &self.u, &self.zero_n);
        let (kkt, klu, rhs_k) = (&self.kkt, &mut self.klu, &mut self.rhs_k);
        let (rb, rr) = (&mut self.refine_kb, &mut self.refine_kr);
        let resolve = |data: &mut MechData, a: &mut [f64], lam: &mut [f64]| {
            let (body, cons) = rhs_k.split_at_mut(n);
            sys.applied_residual(data, q, u, zero_n, t, body);
            body.iter_mut().for_each(|v| *v = -*v);
            sys.acceleration_rhs(data, q, u, t, cons);
            refined_solve(kkt, klu, rhs_k, rb, rr).map_err(singular)?;
            a.copy_from_slice(&rhs_k[..n]);
            lam.copy_from_slice(&rhs_k[n..]);
            Ok(())
        };
        let (data, a, lam) = (&mut self.data, &mut self.a, &mut self.lam);
        let scratch = &mut self.solved_scratch;
        crate::reaction_fn::ode_consistent(
            sys,
            data,
            scratch,
            q,
            u,
            t,
            a,
            lam,
            resolve,
            ProblemError,
        )?;
        let mut p = self.published.borrow_mut();
        p.newton_iterations += iterations as u64;
        Ok(())
    }
}

impl PartitionProblem<'_> {
    /// The reduced state of the present partition at t by cubic Hermite
    /// interpolation of the full (q, u) with (u, a) between the last two
    /// published accepted states: the dense output across a repartition,
    /// where the method's own history restarted in the new coordinates.
    fn hermite_reduced(&self, t: f64, y: &mut [f64]) -> bool {
        let p = self.published.borrow();
        let h = p.t - p.t_prev;
        if h <= 0.0 || t < p.t_prev || t > p.t {
            return false;
        }
        let [h00, h10, h01, h11] = hermite_basis((t - p.t_prev) / h);
        let nd = self.part.independent.len();
        for (j, &c) in self.part.independent.iter().enumerate() {
            y[j] = h00 * p.q_prev[c] + h10 * h * p.u_prev[c] + h01 * p.q[c] + h11 * h * p.u[c];
            y[nd + j] = h00 * p.u_prev[c] + h10 * h * p.a_prev[c] + h01 * p.u[c] + h11 * h * p.a[c];
        }
        for (j, &k) in self.rated.iter().enumerate() {
            y[2 * nd + j] =
                h00 * p.w_prev[k] + h10 * h * p.wp_prev[k] + h01 * p.w[k] + h11 * h * p.wp[k];
        }
        true
    }
}

/// The partitioned problem as the integrator borrows it, shared with the
/// wrapper, which evaluates it at interpolated output times between
/// advances (`PartitionedIntegrator::interpolate`). The state classes are
/// kept here (a repartition keeps their number and order).
pub struct SharedPartition<'a> {
    problem: Rc<RefCell<PartitionProblem<'a>>>,
    classes: Vec<VarClass>,
}

impl<'a> SharedPartition<'a> {
    pub fn new(problem: PartitionProblem<'a>) -> Self {
        let classes = problem.classes.clone();
        SharedPartition {
            problem: Rc::new(RefCell::new(problem)),
            classes,
        }
    }
}

impl OdeProblem for SharedPartition<'_> {
    fn size(&self) -> usize {
        self.classes.len()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError> {
        self.problem.borrow_mut().rhs(t, y, out)
    }
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        f: &[f64],
        jac: &mut [f64],
    ) -> Result<bool, ProblemError> {
        self.problem.borrow_mut().jacobian(t, y, f, jac)
    }
    fn after_step(&mut self, t: f64, y: &mut [f64]) -> Result<AfterStep, ProblemError> {
        self.problem.borrow_mut().after_step(t, y)
    }
    fn describe_variable(&self, i: usize) -> String {
        self.problem.borrow().describe_variable(i)
    }
}

impl OdeProblem for PartitionProblem<'_> {
    fn size(&self) -> usize {
        2 * self.part.independent.len() + self.rated.len()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    /// Through the partitioning (`jacobian.rs`); finite differences for
    /// models with user states or joint friction.
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        _f: &[f64],
        jac: &mut [f64],
    ) -> Result<bool, ProblemError> {
        self.reduced_jacobian(t, y, jac)
    }
    fn rhs(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ProblemError> {
        self.evaluate(t, y)?;
        let nd = self.part.independent.len();
        for (j, &c) in self.part.independent.iter().enumerate() {
            out[j] = self.u[c];
            out[nd + j] = self.a[c];
        }
        for (j, &k) in self.rated.iter().enumerate() {
            out[2 * nd + j] = self.data.states.wp[k];
        }
        Ok(())
    }
    /// Publish the full state at the accepted y, then test the dependent
    /// block's conditioning. ABAM (PECE) and RKF45 evaluated f there last;
    /// VSTIFF's and MSTIFF's corrector ends with an update of y after its
    /// last evaluation, so the dependent coordinates, velocities,
    /// accelerations and user-state rates are recovered at the accepted y
    /// first (one more evaluation, outside the integrator's count, on the
    /// factorizations at hand).
    fn after_step(&mut self, t: f64, y: &mut [f64]) -> Result<AfterStep, ProblemError> {
        if t != self.last_t || y != self.last_y.as_slice() {
            self.evaluate(t, y)?;
        }
        self.publish_counters();
        self.acc_t = t;
        self.acc_q.copy_from_slice(&self.q);
        self.acc_u.copy_from_slice(&self.u);
        self.acc_a.copy_from_slice(&self.a);
        {
            let mut p = self.published.borrow_mut();
            let p = &mut *p;
            p.t_prev = p.t;
            std::mem::swap(&mut p.q_prev, &mut p.q);
            std::mem::swap(&mut p.u_prev, &mut p.u);
            std::mem::swap(&mut p.a_prev, &mut p.a);
            std::mem::swap(&mut p.w_prev, &mut p.w);
            std::mem::swap(&mut p.wp_prev, &mut p.wp);
            p.t = t;
            p.q.copy_from_slice(&self.q);
            p.u.copy_from_slice(&self.u);
            p.a.copy_from_slice(&self.a);
            p.lam.copy_from_slice(&self.lam);
            p.w.copy_from_slice(&self.data.states.w);
            p.wp.copy_from_slice(&self.data.states.wp);
        }
        if !self.watch.holds(self.sys, &self.q, t) {
            self.published.borrow_mut().drift = self.watch.drift;
            return Err(ProblemError(format!(
                "t = {t:.6e}: a deactivated constraint equation is no longer dependent"
            )));
        }
        let kappa = self.condition_estimate()?;
        if kappa <= REPARTITION_CONDITION_GROWTH * self.kappa_partition {
            return Ok(AfterStep::Continue);
        }
        let old = self.kappa_partition;
        self.repartition(t)?;
        let nd = self.part.independent.len();
        if y.len() != 2 * nd + self.rated.len() {
            return Err(ProblemError(format!(
                "repartition at t = {t:.6e} changed the number of independent coordinates"
            )));
        }
        for (j, &c) in self.part.independent.iter().enumerate() {
            y[j] = self.q[c];
            y[nd + j] = self.u[c];
        }
        let independent = self
            .part
            .independent
            .iter()
            .map(|&c| coordinate_name(self.sys, c))
            .collect();
        self.published.borrow_mut().events.push(Event::Repartition {
            t,
            independent,
            reason: format!(
                "dependent-block condition estimate {kappa:.3e} > {REPARTITION_CONDITION_GROWTH} × {old:.3e} at the last partition"
            ),
        });
        Ok(AfterStep::Restart)
    }
    fn describe_variable(&self, i: usize) -> String {
        let nd = self.part.independent.len();
        if let Some(&k) = i.checked_sub(2 * nd).and_then(|j| self.rated.get(j)) {
            return format!("{} state", self.sys.state_name(k));
        }
        let (c, what) = if i < nd {
            (self.part.independent[i], "displacement")
        } else {
            (self.part.independent[i - nd], "velocity")
        };
        format!("{} {what} (independent)", coordinate_name(self.sys, c))
    }
}

/// The ODE integrator as the driver sees it: y = (q, u, w) and y' = (u, a, w') of
/// all coordinates, λ through `multipliers`, from the state the problem
/// published at the last accepted step.
pub struct PartitionedIntegrator<'b, 'a: 'b> {
    inner: Box<dyn DaeIntegrator + 'b>,
    problem: Rc<RefCell<PartitionProblem<'a>>>,
    published: Rc<RefCell<Published>>,
    y: Vec<f64>,
    yp: Vec<f64>,
    lam: Vec<f64>,
}

impl PartitionedIntegrator<'_, '_> {
    fn sync(&mut self) {
        let p = self.published.borrow();
        self.y.clear();
        self.y.extend_from_slice(&p.q);
        self.y.extend_from_slice(&p.u);
        self.yp.clear();
        self.yp.extend_from_slice(&p.u);
        self.yp.extend_from_slice(&p.a);
        self.y.extend_from_slice(&p.w);
        self.yp.extend_from_slice(&p.wp);
        self.lam.clear();
        self.lam.extend_from_slice(&p.lam);
    }
}

impl PartitionedIntegrator<'_, '_> {
    /// After an advance: the published state, and a stop on a drifted
    /// deactivated equation as a structure change at the state published
    /// last (the step that showed it).
    fn advanced(&mut self, r: Result<(), IntegrationError>) -> Result<(), IntegrationError> {
        self.sync();
        let p = self.published.borrow();
        r.map_err(|e| match p.drift {
            Some(_) => IntegrationError::structure_changed(p.t),
            None => e,
        })
    }
}

impl DaeIntegrator for PartitionedIntegrator<'_, '_> {
    fn advance_to(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let r = self.inner.advance_to(tout);
        self.advanced(r)
    }
    /// INTERPOLATE = ON: the method steps past tout (never shortened).
    fn advance_past(&mut self, tout: f64) -> Result<(), IntegrationError> {
        let r = self.inner.advance_past(tout);
        self.advanced(r)
    }
    fn step_toward(&mut self, tout: f64, land: bool) -> Result<(), IntegrationError> {
        let r = self.inner.step_toward(tout, land);
        self.advanced(r)
    }
    fn set_first_step(&mut self, h: f64) -> bool {
        self.inner.set_first_step(h)
    }
    fn set_next_step(&mut self, h: f64) -> bool {
        self.inner.set_next_step(h)
    }
    /// The reduced state at t from the method's dense output (VSTIFF's
    /// Nordsieck polynomial, MSTIFF's history polynomial, ABAM's and
    /// RKF45's interpolants), or, within a step that ended in a
    /// repartition, from the full states at its ends; then the full state
    /// recovered there by an evaluation (steps 1–4 of the module doc: the
    /// dependent coordinates by the partition's Newton iteration to the
    /// position tolerance, the dependent velocities, the accelerations and
    /// the user-state rates): y = (q, u, w), y′ = (u, a, w′).
    fn interpolate(&self, t: f64, y: &mut [f64], yp: &mut [f64]) -> bool {
        let Ok(mut problem) = self.problem.try_borrow_mut() else {
            return false;
        };
        let (n, nw) = (problem.sys.nq(), problem.sys.nw());
        if y.len() != 2 * n + nw || yp.len() != 2 * n + nw {
            return false;
        }
        let size = problem.size();
        let (mut yr, mut ypr) = (vec![0.0; size], vec![0.0; size]);
        if !self.inner.interpolate(t, &mut yr, &mut ypr) && !problem.hermite_reduced(t, &mut yr) {
            return false;
        }
        if problem.evaluate(t, &yr).is_err() {
            return false;
        }
        y[..n].copy_from_slice(&problem.q);
        y[n..2 * n].copy_from_slice(&problem.u);
        y[2 * n..].copy_from_slice(&problem.data.states.w);
        yp[..n].copy_from_slice(&problem.u);
        yp[n..2 * n].copy_from_slice(&problem.a);
        yp[2 * n..].copy_from_slice(&problem.data.states.wp);
        true
    }
    fn time(&self) -> f64 {
        self.published.borrow().t
    }
    fn solution(&self) -> (&[f64], &[f64]) {
        (&self.y, &self.yp)
    }
    fn accepted(&self) -> &[f64] {
        &self.y
    }
    fn statistics(&mut self) -> Statistics {
        let mut s = self.inner.statistics();
        let p = self.published.borrow();
        s.factorizations += p.factorizations;
        s.symbolic_factorizations += p.symbolic;
        s.corrector_iterations += p.newton_iterations;
        s.jacobian_evaluations += p.jacobians;
        s
    }
    fn take_events(&mut self) -> Vec<Event> {
        let mut e = self.inner.take_events();
        e.append(&mut self.published.borrow_mut().events);
        e
    }
    fn multipliers(&self) -> Option<&[f64]> {
        Some(&self.lam)
    }
}

/// The ODE form's output frames: y = (q, u, w), y' = (u, a, w'), λ apart.
pub struct OdeFrames;

impl FrameMap for OdeFrames {
    fn keeps_velocities(&self) -> bool {
        // The dependent velocities solve the velocity constraints exactly.
        true
    }
    fn frame_into(
        &mut self,
        sys: &System,
        t: f64,
        y: &[f64],
        yp: &[f64],
        multipliers: Option<&[f64]>,
        out: &mut Frame,
    ) {
        let n = sys.nq();
        let lambda = multipliers.unwrap_or_default();
        out.fill_mechanics(t, &y[..n], &y[n..2 * n], &yp[n..2 * n], lambda);
        crate::output::fill(&mut out.w, &y[2 * n..]);
        crate::output::fill(&mut out.wp, &yp[2 * n..]);
    }
}

/// Wrap an ODE integrator on `problem` for the driver; the factorization
/// counts of the problem's own systems join the statistics at the end.
fn wrap<'b, 'a: 'b>(
    inner: Box<dyn DaeIntegrator + 'b>,
    problem: Rc<RefCell<PartitionProblem<'a>>>,
) -> Box<dyn Integrator + 'b> {
    let published = problem.borrow().published.clone();
    let mut w = PartitionedIntegrator {
        inner,
        problem,
        published,
        y: Vec::new(),
        yp: Vec::new(),
        lam: Vec::new(),
    };
    w.sync();
    Box::new(w)
}

impl PartitionProblem<'_> {
    /// Copy the problem's linear-solver counters where the wrapper reads
    /// them (called after each accepted step).
    fn publish_counters(&self) {
        let mut p = self.published.borrow_mut();
        p.factorizations = self.dlu.factorizations + self.klu.factorizations;
        p.symbolic = self.dlu.symbolic_factorizations + self.klu.symbolic_factorizations;
    }
}

/// The ODE form: coordinate partitioning under ABAM, RKF45, VSTIFF or
/// MSTIFF.
pub struct Ode;

/// Independent positions and velocities are error-controlled (their
/// weights: `OdeParams::weight`).
const ODE_STATES: &[VarClass] = &[VarClass::Displacement, VarClass::Velocity];

impl DaeFormulation for Ode {
    fn name(&self) -> &'static str {
        "ODE"
    }
    fn error_classes(&self) -> &'static [VarClass] {
        ODE_STATES
    }
    fn corrector_classes(&self, _c: CorrectorKind) -> &'static [VarClass] {
        ODE_STATES
    }
    fn segment<'a>(
        &self,
        sys: &'a System,
        data: &MechData,
        _s: &Frame,
        constraint_tol: f64,
    ) -> Box<dyn Segment<'a> + 'a> {
        Box::new(OdeSegment {
            sys,
            data: data.clone(),
            constraint_tol,
            problem: None,
        })
    }
    fn modified_switch(&self) -> Option<&'static [VarClass]> {
        // No corrector to switch.
        None
    }
}

struct OdeSegment<'a> {
    data: MechData,
    sys: &'a System,
    constraint_tol: f64,
    problem: Option<SharedPartition<'a>>,
}

impl<'a> Segment<'a> for OdeSegment<'a> {
    fn frame_map(&self) -> Box<dyn FrameMap> {
        Box::new(OdeFrames)
    }
    fn integrator(
        &mut self,
        plan: &Plan,
        s: &Frame,
    ) -> Result<Box<dyn Integrator + '_>, IntegrationError> {
        let MethodParams::Ode(params) = &plan.method else {
            return Err(IntegrationError::failure(
                s.t,
                "the ODE form runs only the ODE integrators (ABAM, RKF45, VSTIFF, MSTIFF)",
            ));
        };
        let problem = PartitionProblem::new(
            self.sys,
            self.data.clone(),
            s,
            self.constraint_tol,
            params.maxit,
        )
        .map_err(|e| IntegrationError::failure(s.t, e))?;
        let y0 = problem.reduced_state();
        let problem = self.problem.insert(SharedPartition::new(problem));
        let shared = problem.problem.clone();
        let inner: Box<dyn DaeIntegrator + '_> = match plan.pair.kind {
            IntegratorKind::Abam => Box::new(Abam::new(problem, params.clone(), s.t, &y0)?),
            IntegratorKind::Rkf45 => Box::new(Rkf45::new(problem, params.clone(), s.t, &y0)?),
            IntegratorKind::Vstiff => Box::new(Vstiff::new(problem, s.t, &y0, params)?),
            IntegratorKind::Mstiff => Box::new(Mstiff::new(problem, s.t, &y0, params)?),
            other => {
                return Err(IntegrationError::failure(
                    s.t,
                    format!("{} is not an ODE-form integrator", other.name()),
                ))
            }
        };
        Ok(wrap(inner, shared))
    }
    fn drift(&self) -> Option<(usize, f64)> {
        self.problem
            .as_ref()
            .and_then(|p| p.problem.borrow().published.borrow().drift)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3×3 nonsymmetric matrix needing pivoting, scaled off-diagonal by
    /// `s`, into `a`.
    fn fill(a: &mut SlotAssembler, s: f64) {
        a.begin();
        for (r, c, v) in [
            (0, 1, 2.0 * s),
            (0, 2, 1.0),
            (1, 0, 1.0 * s),
            (1, 1, 0.5),
            (2, 0, 3.0),
            (2, 1, 1.0 * s),
            (2, 2, 4.0),
        ] {
            a.add(r, c, v);
        }
        assert!(a.finish());
    }

    /// With the factorization of a nearby matrix (off-diagonal 1e-6
    /// relative away) the refinement reaches the solution of the present
    /// one to 1e-13 (residual) without a factorization; with one of a far
    /// matrix (2×) the corrections do not contract and it refactors once,
    /// still solving exactly.
    #[test]
    fn refinement_on_a_nearby_factorization() {
        let (mut a, mut lu) = (SlotAssembler::new(3), SparseLu::new());
        let (mut b, mut r) = (vec![0.0; 3], vec![0.0; 3]);
        let rhs = [1.0, -2.0, 0.5];
        for (scale, refactors) in [(1.0 + 1e-6, 0), (2.0, 1)] {
            fill(&mut a, 1.0);
            lu.factor(&a).unwrap();
            let before = lu.factorizations;
            fill(&mut a, scale);
            let mut x = rhs.to_vec();
            refined_solve(&a, &mut lu, &mut x, &mut b, &mut r).unwrap();
            a.mul(&x, &mut r);
            let residual = (0..3).map(|i| (r[i] - rhs[i]).abs()).fold(0.0, f64::max);
            assert!(residual < 1e-13, "scale {scale}: residual {residual:e}");
            assert_eq!(lu.factorizations - before, refactors, "scale {scale}");
        }
    }
}
