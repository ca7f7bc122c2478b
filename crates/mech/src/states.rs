//! User states (DIFF) in the mechanics: their equations, with exact
//! derivatives, and the values forces read through DIF/DIF1.
//!
//! State k has the value w_k and the rate w'_k. Its equation is
//! - explicit DIFF: G_k = w'_k − f_k(t, m(q, u), w, w') = 0;
//! - implicit DIFF: G_k = f_k(t, m(q, u), w, w') = 0.
//!
//! f_k is a function law over at most two parts (like a force's), so its
//! gradients on q and u come from the same measure kernel; its derivatives
//! on w and w' come from the expression's jets: the law evaluated with the
//! seed (j, c) returns ∂f/∂w_j + c ∂f/∂w'_j (`StateContext::seed`). A force
//! whose function reads a user state is linear in its law values, so the
//! same seed gives its column ∂Q/∂w_j + c ∂Q/∂w'_j exactly.

use crate::forces::{function_law, Law};
use crate::local::{Grad, Pose};
use crate::scratch::Scratch;
use crate::system::{gather, global_index, pose, MarkerFrame, MechData, Sink, System};
use mbsolve_model::{ElementRef, Measure, Model, ModelError, StateFunction};
use nalgebra::Vector3;
use std::sync::Arc;

/// A user state: its element and component (0 for a DIFF).
pub type StateKey = (ElementRef, u32);

/// The user states' values w and rates w' at which the mechanics is
/// evaluated (set by the formulation before each evaluation).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateValues {
    pub w: Vec<f64>,
    pub wp: Vec<f64>,
    /// The last sample instant whose discrete-LSE update was applied
    /// (`discrete.rs`), so that a restart never applies one twice.
    pub sampled: Option<f64>,
}

impl StateValues {
    pub fn zeros(n: usize) -> Self {
        StateValues {
            w: vec![0.0; n],
            wp: vec![0.0; n],
            sampled: None,
        }
    }
    /// Copy w and w' in (lengths must match the model's state count).
    pub fn set(&mut self, w: &[f64], wp: &[f64]) {
        self.w.clear();
        self.w.extend_from_slice(w);
        self.wp.clear();
        self.wp.extend_from_slice(wp);
    }
}

/// What a function law reads of the user states.
pub struct StateContext<'a> {
    keys: &'a [StateKey],
    /// The solved measures (`reaction_fn.rs`), the last user states.
    solved: &'a [Measure],
    w: &'a [f64],
    wp: &'a [f64],
    /// Some((j, c)): evaluate ∂f/∂w_j + c ∂f/∂w'_j in place of f (and zero
    /// gradients on q, u).
    pub(crate) seed: Option<(usize, f64)>,
    /// The run's analysis kind and CONTACT switches, for CONTACT() measures.
    pub run: crate::contact_fn::RunSwitches<'a>,
}

impl<'a> StateContext<'a> {
    /// No user states (a model without DIFF, reports without values).
    pub const NONE: StateContext<'static> = StateContext {
        keys: &[],
        solved: &[],
        w: &[],
        wp: &[],
        seed: None,
        run: crate::contact_fn::RunSwitches::NONE,
    };

    /// (state index, rate) of a user-state measure.
    fn index(&self, m: &Measure) -> Option<(usize, bool)> {
        if let Measure::Solved { .. } = m {
            let k = self.solved.iter().position(|x| x == m)?;
            return Some((self.keys.len() - self.solved.len() + k, false));
        }
        let Measure::UserState {
            element,
            component,
            rate,
        } = *m
        else {
            return None;
        };
        let k = self
            .keys
            .iter()
            .position(|&key| key == (element, component))?;
        Some((k, rate))
    }

    /// The value of a user-state measure; None for other measures or when
    /// the context holds no values.
    pub(crate) fn value(&self, m: &Measure) -> Option<f64> {
        let (k, rate) = self.index(m)?;
        if rate {
            self.wp.get(k).copied()
        } else {
            self.w.get(k).copied()
        }
    }

    /// The weight of ∂f/∂m in the seeded derivative: 1 for w_j, c for w'_j.
    pub(crate) fn seed_weight(&self, m: &Measure) -> f64 {
        match (self.seed, self.index(m)) {
            (Some((j, c)), Some((k, rate))) if j == k => {
                if rate {
                    c
                } else {
                    1.0
                }
            }
            _ => 0.0,
        }
    }

    /// The same values without a seed (the measures' own values).
    pub(crate) fn unseeded(&self) -> StateContext<'a> {
        StateContext {
            keys: self.keys,
            solved: self.solved,
            w: self.w,
            wp: self.wp,
            seed: None,
            run: self.run,
        }
    }

    fn seeded(&self, j: usize, c: f64) -> Self {
        StateContext {
            keys: self.keys,
            solved: self.solved,
            w: self.w,
            wp: self.wp,
            seed: Some((j, c)),
            run: self.run,
        }
    }
}

/// How a state's function makes its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateForm {
    /// w' − f = 0 (DIFF, LSE/TFSISO states).
    Explicit,
    /// f = 0 (DIFF IMPLICIT).
    Implicit,
    /// w − f = 0: an algebraic output (LSE/TFSISO Y, implicit VARIABLE),
    /// no derivative.
    Output,
    /// w' = 0: a discrete-LSE state, held between its sample instants,
    /// where w ← f (`discrete.rs`).
    Held,
}

/// One user state's equation.
#[derive(Clone, Debug)]
pub struct StateEquation {
    pub element: ElementRef,
    pub form: StateForm,
    pub ic: f64,
    pub ic_rate: Option<f64>,
    pub static_hold: bool,
    bodies: [Option<usize>; 2],
    law: Law,
    /// A function over more than two moving parts (`multi_law.rs`); then
    /// `bodies` and `law` are unused.
    multi: Option<crate::multi_law::MultiLaw>,
    /// The states the function reads (DIF or DIF1), sorted.
    reads: Vec<usize>,
    /// SAMPLE_PERIOD and SAMPLE_OFFSET of a `Held` state.
    pub sampling: Option<mbsolve_model::Sampling>,
    /// A FRICTION stiction-deformation state: its row comes from the
    /// friction's law (`friction::stiction`), not from `law`.
    pub stiction: bool,
    /// A solved quantity's row z − g (`reaction_fn.rs`): filled by the
    /// solver's evaluator, not from `law`.
    pub solved: bool,
}

/// The model's user states as the mechanics sees them.
#[derive(Clone, Debug, Default)]
pub struct UserStates {
    pub keys: Vec<StateKey>,
    pub equations: Vec<StateEquation>,
    /// For each force element (by index), the states its laws read.
    force_reads: Vec<Vec<usize>>,
    /// The solved measures the functions read (`reaction_fn.rs`): the
    /// last `solved.len()` user states, in this order.
    pub solved: Vec<Measure>,
    /// `solve_state_rates`' buffers (the ODE form calls it per evaluation).
    rate_work: Scratch<RateWork>,
}

/// The residual, Jacobian (row-major) and step of `solve_state_rates`.
#[derive(Debug, Default)]
struct RateWork {
    g: Vec<f64>,
    jac: Vec<f64>,
}

impl UserStates {
    /// The states the laws of force element `f` (index in `System::forces`)
    /// read, sorted (empty for an unknown index).
    pub fn force_reads(&self, f: usize) -> &[usize] {
        self.force_reads.get(f).map_or(&[], Vec::as_slice)
    }
}

/// The states a list of measures reads, sorted and unique (the solved
/// measures are the last `solved.len()` of `keys`' final length `nw`).
fn states_read(
    keys: &[StateKey],
    solved: &[Measure],
    nw: usize,
    measures: &[Measure],
) -> Vec<usize> {
    let mut out: Vec<usize> = measures
        .iter()
        .filter_map(|m| match *m {
            Measure::UserState {
                element, component, ..
            } => keys.iter().position(|&k| k == (element, component)),
            Measure::Solved { .. } => solved
                .iter()
                .position(|x| x == m)
                .map(|k| nw - solved.len() + k),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The user states of `model` (DIFFs, in model order) for `sys`, whose
/// forces are built.
pub(crate) fn build(sys: &System, model: &Model) -> Result<UserStates, ModelError> {
    let specs = state_specs(model);
    let mut keys: Vec<StateKey> = specs.iter().map(|s| s.key).collect();
    // Every solved measure a force or state function reads, once.
    let mut solved = Vec::new();
    for f in &sys.forces {
        for law in f.laws() {
            if let Law::Function { f, .. } = law {
                crate::reaction_fn::collect(f.measures(), &mut solved);
            }
        }
    }
    for spec in &specs {
        crate::reaction_fn::collect(spec.function.measures(), &mut solved);
    }
    let n_stiction: usize = crate::friction::stiction::state_layout(sys)
        .iter()
        .map(|(_, n)| *n)
        .sum();
    let nw = keys.len() + n_stiction + solved.len();
    let mut equations = Vec::with_capacity(specs.len());
    for spec in specs {
        let e = spec.element;
        let fail = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        // The moving parts the function's markers (and CONTACT()s) lie on;
        // more than two take the per-measure path (`multi_law.rs`).
        let mut all: Vec<usize> = Vec::new();
        for m in spec.function.measures() {
            let bs = crate::multi_law::measure_bodies(sys, m).map_err(|id| {
                fail(format!(
                    "function refers to marker {id}, which does not exist"
                ))
            })?;
            for b in bs {
                if !all.contains(&b) {
                    all.push(b);
                }
            }
        }
        let bodies: [Option<usize>; 2] = [all.first().copied(), all.get(1).copied()];
        let slot_of = |id: u32| -> Result<(MarkerFrame, usize), ModelError> {
            let m = *sys.marker(id);
            let s = match m.body {
                Some(b) if bodies[1] == Some(b) => 1,
                _ => 0,
            };
            Ok((m, s))
        };
        let anchor = MarkerFrame {
            id: 0,
            body: None,
            s: Vector3::zeros(),
            axes: nalgebra::Matrix3::identity(),
        };
        let (law, multi) = if all.len() > 2 {
            let multi = crate::multi_law::MultiLaw::build(sys, model, e, spec.function)?;
            // placeholder: the multi-part law replaces it
            let law = Law::Function {
                f: spec.function.clone(),
                measures: Vec::new(),
            };
            (law, Some(multi))
        } else {
            let mut law = function_law(spec.function, &slot_of, (anchor, 0))?;
            crate::contact_fn::attach(sys, model, e, &mut law, bodies)?;
            crate::orient_measure::attach(sys, &mut law);
            (law, None)
        };
        equations.push(StateEquation {
            element: e,
            form: spec.form,
            ic: spec.ic,
            ic_rate: spec.ic_rate,
            static_hold: spec.static_hold,
            bodies,
            law,
            multi,
            reads: states_read(&keys, &solved, nw, spec.function.measures()),
            sampling: spec.sampling,
            stiction: false,
            solved: false,
        });
    }
    // FRICTION stiction deformations, after the others: explicit, z(0) = 0,
    // held in statics (at u = 0 their rate law gives no equation).
    for (e, n) in crate::friction::stiction::state_layout(sys) {
        for c in 0..n {
            keys.push((e, c as u32));
            let mut eq = StateEquation::filled_elsewhere(e, StateForm::Explicit);
            eq.static_hold = true;
            eq.stiction = true;
            equations.push(eq);
        }
    }
    // The solved quantities, last: z − g = 0, an algebraic output whose
    // row the solver fills (`reaction_fn.rs`).
    for k in 0..solved.len() {
        keys.push((ElementRef::Request(u32::MAX), k as u32));
        let mut eq =
            StateEquation::filled_elsewhere(ElementRef::Request(u32::MAX), StateForm::Output);
        eq.solved = true;
        equations.push(eq);
    }
    let force_reads = sys
        .forces
        .iter()
        .map(|f| {
            let mut all: Vec<usize> = f
                .laws()
                .flat_map(|law| match law {
                    Law::Function { f, .. } => states_read(&keys, &solved, nw, f.measures()),
                    Law::SpringDamper { .. } => Vec::new(),
                })
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        })
        .collect();
    Ok(UserStates {
        keys,
        equations,
        force_reads,
        solved,
        rate_work: Scratch::default(),
    })
}

impl StateEquation {
    /// The states the function reads (DIF, DIF1 and the solved
    /// quantities, `reaction_fn.rs`), sorted.
    pub fn reads(&self) -> &[usize] {
        &self.reads
    }

    /// A state whose row does not come from a function law (a stiction
    /// deformation, a solved quantity): IC 0, no law, nothing read.
    fn filled_elsewhere(element: ElementRef, form: StateForm) -> Self {
        StateEquation {
            element,
            form,
            ic: 0.0,
            ic_rate: None,
            static_hold: false,
            bodies: [None, None],
            law: Law::SpringDamper {
                k: 0.0,
                c: 0.0,
                m0: 0.0,
                preload: 0.0,
            },
            multi: None,
            reads: Vec::new(),
            sampling: None,
            stiction: false,
            solved: false,
        }
    }

    /// The sign of f in the row (+f implicit, −f otherwise).
    fn sign(&self) -> f64 {
        if self.form == StateForm::Implicit {
            1.0
        } else {
            -1.0
        }
    }

    fn poses(&self, q: &[f64]) -> [Option<Pose>; 2] {
        [
            self.bodies[0].map(|b| pose(q, b)),
            self.bodies[1].map(|b| pose(q, b)),
        ]
    }

    /// f with ∇_q f and ∇_u f on the equation's local coordinates (zero
    /// gradients for a multi-part law: see [`StateEquation::gradient`]).
    fn eval(&self, q: &[f64], u: &[f64], t: f64, st: &StateContext) -> (f64, Grad, Grad) {
        if let Some(m) = &self.multi {
            return (m.value(q, u, t, st, None), Grad::zeros(), Grad::zeros());
        }
        let ul = gather(&self.bodies, u);
        self.law.value(&self.poses(q), &ul, t, None, st)
    }

    /// (global coordinate, ∂f/∂q, ∂f/∂u) into `emit`, the same sequence on
    /// every call (repeated coordinates add up).
    fn gradient(
        &self,
        q: &[f64],
        u: &[f64],
        t: f64,
        st: &StateContext,
        emit: &mut dyn FnMut(usize, f64, f64),
    ) {
        if let Some(m) = &self.multi {
            m.value(q, u, t, st, Some(emit));
            return;
        }
        let (_, fq, fu) = self.eval(q, u, t, st);
        for l in 0..crate::local::NL {
            if let Some(g) = global_index(&self.bodies, l) {
                emit(g, fq[l], fu[l]);
            }
        }
    }
}

impl System {
    /// Number of user states.
    pub fn nw(&self) -> usize {
        self.states.keys.len()
    }

    /// The user-state context of `values` for force and DIFF laws.
    pub fn state_context<'a>(&'a self, values: &'a StateValues) -> StateContext<'a> {
        self.state_context_of(&values.w, &values.wp)
    }

    /// The user-state context of a frame's (w, w') (reports).
    pub fn state_context_of<'a>(&'a self, w: &'a [f64], wp: &'a [f64]) -> StateContext<'a> {
        StateContext {
            keys: &self.states.keys,
            solved: &self.states.solved,
            w,
            wp,
            seed: None,
            run: crate::contact_fn::RunSwitches::NONE,
        }
    }

    /// "DIFF/3" style name of user state k.
    pub fn state_name(&self, k: usize) -> String {
        if self.states.equations[k].solved {
            let m = &self.states.solved[k - self.solved_at()];
            return format!("the value of {}", crate::reaction_fn::solved_text(m));
        }
        match self.states.keys[k] {
            (e @ ElementRef::Array(_), c) => format!(
                "{} ({e} element {})",
                self.describe(self.states.equations[k].element),
                c + 1
            ),
            (e @ ElementRef::Friction(_), c) if self.states.equations[k].stiction => {
                format!("{} stiction deformation {}", self.describe(e), c + 1)
            }
            (e, _) => self.describe(e),
        }
    }

    /// The user-state rows G (nw entries) at (q, u, t) and the states in
    /// `data.states`: w'_k − f_k for an explicit DIFF, f_k for an implicit one.
    pub fn state_residual(&self, data: &MechData, q: &[f64], u: &[f64], t: f64, out: &mut [f64]) {
        let st = self.law_context(data);
        for (k, eq) in self.states.equations.iter().enumerate() {
            if eq.stiction || eq.solved {
                continue;
            }
            let f = eq.eval(q, u, t, &st).0;
            out[k] = match eq.form {
                StateForm::Implicit => f,
                StateForm::Explicit => data.states.wp[k] - f,
                StateForm::Output => data.states.w[k] - f,
                StateForm::Held => data.states.wp[k],
            };
        }
        let (w, wp) = (&data.states.w, &data.states.wp);
        self.stiction_residual(q, u, w, wp, out);
    }

    /// Entries of the user-state rows (at `row0`): ∂G/∂q (columns at
    /// `col_q`), cu·∂G/∂u (at `col_u`) and ∂G/∂w + cw·∂G/∂w' (at
    /// `col_w`). The same entries in the same order on every call.
    #[allow(clippy::too_many_arguments)]
    pub fn state_jacobian(
        &self,
        data: &MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col_q: Option<usize>,
        col_u: usize,
        cu: f64,
        col_w: usize,
        cw: f64,
    ) {
        let st = self.law_context(data);
        for (k, eq) in self.states.equations.iter().enumerate() {
            if eq.stiction || eq.solved {
                continue;
            }
            if eq.form == StateForm::Held {
                sink.add(row0 + k, col_w + k, cw);
                continue;
            }
            let sign = eq.sign();
            eq.gradient(q, u, t, &st, &mut |g, fq, fu| {
                if let Some(cq) = col_q {
                    sink.add(row0 + k, cq + g, sign * fq);
                }
                sink.add(row0 + k, col_u + g, sign * cu * fu);
            });
            match eq.form {
                StateForm::Explicit => sink.add(row0 + k, col_w + k, cw),
                StateForm::Output => sink.add(row0 + k, col_w + k, 1.0),
                StateForm::Implicit | StateForm::Held => {}
            }
            for &j in &eq.reads {
                let d = eq.eval(q, u, t, &st.seeded(j, cw)).0;
                sink.add(row0 + k, col_w + j, sign * d);
            }
        }
        let place = crate::friction::stiction::StatePlace {
            row0,
            col_q,
            col_u,
            cu,
            col_w,
            cw,
        };
        self.stiction_jacobian(q, u, &data.states.w, sink, place);
    }

    /// Entries of the body rows (at `row0`, residual convention −Q) in the
    /// user-state columns (at `col_w`): −(∂Q/∂w_j + cw ∂Q/∂w'_j) for the
    /// forces whose functions read state j.
    #[allow(clippy::too_many_arguments)]
    pub fn force_state_jacobian(
        &self,
        data: &MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col_w: usize,
        cw: f64,
    ) {
        let st = self.law_context(data);
        for (f, reads) in self.forces.iter().zip(&self.states.force_reads) {
            let bodies = [f.i.body, f.j.body];
            for &j in reads {
                let dq = f.local(q, u, t, false, &st.seeded(j, cw)).q;
                for l in 0..crate::local::NL {
                    if let Some(g) = global_index(&bodies, l) {
                        sink.add(row0 + g, col_w + j, -dq[l]);
                    }
                }
            }
        }
        let (lam, w) = (&data.multipliers, &data.states.w);
        self.stiction_force_jacobian(q, u, lam, w, t, sink, row0, col_w);
    }

    /// The user states force element `k`'s laws read (DIF or DIF1; the
    /// columns of [`System::force_state_jacobian`]), sorted.
    pub fn force_state_reads(&self, k: usize) -> &[usize] {
        self.states.force_reads.get(k).map_or(&[], |r| r.as_slice())
    }

    /// Initial user-state values (IC).
    pub fn state_initial_values(&self) -> Vec<f64> {
        self.states.equations.iter().map(|e| e.ic).collect()
    }

    /// Consistent rates w' at (q, u, t) for the states w in `data.states`
    /// (written back there): f for explicit DIFFs; for implicit ones Newton
    /// on the implicit rows for w', starting from their IC rate (or the
    /// current w'). Err names the state whose equation cannot be solved.
    pub fn solve_state_rates(
        &self,
        data: &mut MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
    ) -> Result<(), String> {
        let nw = self.nw();
        if nw == 0 {
            return Ok(());
        }
        for (k, eq) in self.states.equations.iter().enumerate() {
            if eq.form == StateForm::Implicit && data.states.wp[k] == 0.0 {
                if let Some(r) = eq.ic_rate {
                    data.states.wp[k] = r;
                }
            }
        }
        // Kept buffers: no allocation once sized (the ODE form's step loop).
        let mut work = self.states.rate_work.lock();
        let RateWork { g, jac } = &mut *work;
        g.resize(nw, 0.0);
        jac.resize(nw * nw, 0.0);
        for _ in 0..30 {
            self.state_residual(data, q, u, t, g);
            let worst = g.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            let scale = data.states.wp.iter().fold(1.0f64, |a, v| a.max(v.abs()));
            if !worst.is_finite() {
                break;
            }
            if worst <= 1e-12 * scale {
                return Ok(());
            }
            // ∂G/∂w' for the states with a rate, ∂G/∂w for the outputs
            // (algebraic: solved here too), the rest fixed.
            jac.iter_mut().for_each(|v| *v = 0.0);
            let st = self.law_context(data);
            let output = |j: usize| self.states.equations[j].form == StateForm::Output;
            for (k, eq) in self.states.equations.iter().enumerate() {
                let sign = eq.sign();
                if eq.form != StateForm::Implicit {
                    jac[k * nw + k] += 1.0;
                }
                if eq.form == StateForm::Held {
                    continue;
                }
                for &j in &eq.reads {
                    let with_w = eq.eval(q, u, t, &st.seeded(j, 1.0)).0;
                    let w_only = eq.eval(q, u, t, &st.seeded(j, 0.0)).0;
                    let d = if output(j) { w_only } else { with_w - w_only };
                    jac[k * nw + j] += sign * d;
                }
            }
            // A zero row is an implicit DIFF that reads no rate at all (an
            // algebraic equation): if the solve fails, name it, not the row
            // with the largest residual, which Newton never got to move.
            let zero_row = (0..nw).find(|&k| jac[k * nw..(k + 1) * nw].iter().all(|v| *v == 0.0));
            // g becomes the Newton step.
            if crate::dense::solve_in_place(jac, g, nw).is_none() {
                if let Some(k) = zero_row {
                    return Err(format!(
                        "the equation of {} reads no time derivative (DIF1) at t = {t}, so it cannot be solved for a consistent one: an implicit DIFF must depend on DIF1 of its own state (algebraic implicit DIFFs are not supported yet)",
                        self.state_name(k)
                    ));
                }
                break;
            }
            for k in 0..nw {
                if self.states.equations[k].form == StateForm::Output {
                    data.states.w[k] -= g[k];
                } else {
                    data.states.wp[k] -= g[k];
                }
            }
        }
        self.state_residual(data, q, u, t, g);
        let k = (0..nw)
            .max_by(|a, b| g[*a].abs().total_cmp(&g[*b].abs()))
            .unwrap_or(0);
        Err(format!(
            "the equation of {} cannot be solved for a consistent time derivative at t = {t} (residual {:.3e}); an implicit DIFF must depend on DIF1 of its own state",
            self.state_name(k),
            g[k]
        ))
    }
}

impl System {
    /// Which user states a static solution determines from w' = 0: those
    /// without STATIC_HOLD whose equations read at least one such state
    /// (the others are held at their values).
    pub fn static_free_states(&self) -> Vec<bool> {
        let eqs = &self.states.equations;
        let mut free: Vec<bool> = eqs.iter().map(|e| !e.static_hold).collect();
        // A state reading only held states cannot be solved for; drop
        // until nothing changes. An output's row holds its own value.
        loop {
            let next: Vec<bool> = eqs
                .iter()
                .enumerate()
                .map(|(k, e)| {
                    free[k] && (e.form == StateForm::Output || e.reads.iter().any(|&j| free[j]))
                })
                .collect();
            if next == free {
                return free;
            }
            free = next;
        }
    }
}

/// One user state as the model gives it.
struct StateSpec<'m> {
    element: ElementRef,
    key: StateKey,
    function: &'m Arc<dyn StateFunction>,
    form: StateForm,
    ic: f64,
    ic_rate: Option<f64>,
    static_hold: bool,
    sampling: Option<mbsolve_model::Sampling>,
}

/// The model's user states in layout order: DIFFs, then each LSE/TFSISO's
/// states (keyed by its X array) and outputs (keyed by its Y array), then
/// the implicit VARIABLEs (keyed by their VARIABLE).
fn state_specs(model: &Model) -> Vec<StateSpec<'_>> {
    let mut specs = Vec::new();
    for d in &model.diffs {
        specs.push(StateSpec {
            element: d.element(),
            key: (d.element(), 0),
            function: &d.function,
            form: if d.implicit {
                StateForm::Implicit
            } else {
                StateForm::Explicit
            },
            ic: d.ic,
            ic_rate: d.ic_rate,
            static_hold: d.static_hold,
            sampling: None,
        });
    }
    for l in &model.linear_systems {
        // A sampled (discrete) LSE holds its states between samples and
        // is held in statics too.
        let sampling = model
            .samplings
            .iter()
            .find(|s| s.element == l.element)
            .copied();
        for (k, f) in l.states.iter().enumerate() {
            specs.push(StateSpec {
                element: l.element,
                key: (ElementRef::Array(l.x), k as u32),
                function: f,
                form: if sampling.is_some() {
                    StateForm::Held
                } else {
                    StateForm::Explicit
                },
                ic: l.x0.get(k).copied().unwrap_or(0.0),
                ic_rate: None,
                static_hold: l.static_hold || sampling.is_some(),
                sampling,
            });
        }
        for (k, f) in l.outputs.iter().enumerate() {
            specs.push(StateSpec {
                element: l.element,
                key: (ElementRef::Array(l.y.unwrap_or(0)), k as u32),
                function: f,
                form: StateForm::Output,
                ic: 0.0,
                ic_rate: None,
                static_hold: false,
                sampling: None,
            });
        }
    }
    // Implicit VARIABLEs: v − f(v, …) = 0, algebraic like an output; IC is
    // the starting guess of the first solve (Adams VARIABLE IC).
    for v in &model.implicit_variables {
        specs.push(StateSpec {
            element: v.element(),
            key: (v.element(), 0),
            function: &v.function,
            form: StateForm::Output,
            ic: v.ic,
            ic_rate: None,
            static_hold: false,
            sampling: None,
        });
    }
    specs
}

impl System {
    /// The first sample instant of a discrete LSE strictly after `t`.
    pub fn next_sample_after(&self, t: f64) -> Option<f64> {
        self.states
            .equations
            .iter()
            .filter_map(|e| e.sampling.map(|s| s.next_after(t)))
            .min_by(f64::total_cmp)
    }

    /// At a sample instant t of a discrete LSE not yet applied
    /// (`StateValues::sampled`): its states take x ← A x + B u(t) (their
    /// functions, evaluated with the values before the update, so the
    /// update is simultaneous), then the outputs and rates are made
    /// consistent again. Ok(true) when an update was applied.
    pub fn apply_samples(
        &self,
        data: &mut MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
    ) -> Result<bool, String> {
        let due: Vec<usize> = (0..self.nw())
            .filter(|&k| {
                let eq = &self.states.equations[k];
                eq.sampling.is_some_and(|s| {
                    s.is_instant(t)
                        && data
                            .states
                            .sampled
                            .is_none_or(|last| t - last > 1e-9 * s.period)
                })
            })
            .collect();
        if due.is_empty() {
            return Ok(false);
        }
        let st = self.law_context(data);
        let next: Vec<f64> = due
            .iter()
            .map(|&k| self.states.equations[k].eval(q, u, t, &st).0)
            .collect();
        for (&k, v) in due.iter().zip(next) {
            data.states.w[k] = v;
        }
        data.states.sampled = Some(t);
        data.invalidate_cache();
        self.solve_state_rates(data, q, u, t)?;
        Ok(true)
    }
}
