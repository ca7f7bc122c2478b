//! User states (DIFF) in the formulations: every first-order formulation
//! appends w to its state, y = (…, w) and y' = (…, w'), with the DIFF rows
//! G_w(q, u, w, w', t) = 0 at the end (mbsolve-mech `states.rs`). The
//! states are of class UserState: error-controlled and converged by every
//! corrector (seeds: corrector and error-control tables, "state variables
//! from differential equations (DIFFs)"), except, under the index-3
//! formulation, a state whose function reads a solved quantity
//! ([`index3_error_controlled`]).

use crate::analysis::Frame;
use mbsolve_integrate::{IntegrationError, SlotAssembler, VarClass};
use mbsolve_mech::states::StateForm;
use mbsolve_mech::{MechData, Sink, System};

/// Where a formulation keeps the user states: w at `at` in y, w' at `at`
/// in y', their rows at `at` in the residual.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StateBlock {
    pub at: usize,
    pub nw: usize,
    /// The last `solved` states are solved quantities (`reaction_fn.rs`).
    pub solved: usize,
}

impl StateBlock {
    pub fn new(sys: &System, at: usize) -> Self {
        StateBlock {
            at,
            nw: sys.nw(),
            solved: sys.n_solved(),
        }
    }

    /// Hand (w, w') of (y, y') to the mechanics before an evaluation.
    pub fn load(&self, data: &mut MechData, y: &[f64], yp: &[f64]) {
        let r = self.at..self.at + self.nw;
        data.states.set(&y[r.clone()], &yp[r]);
    }

    /// The classes of the appended states. A solved quantity (a force,
    /// reaction or acceleration a function reads) is of class Solved:
    /// converged (by the ORIGINAL corrector in I3, by both in SI2/SI1) but
    /// never error-controlled (its start has no consistent rate to predict
    /// it by: as UserState the first steps fail on it; as Velocity SI2,
    /// which error-controls velocities, failed at t = 1.18 s on the
    /// pendulum of tests/reaction_fn.rs with the error in its JOINT()
    /// state, an algebraic quantity as λ is); as Multiplier it is never
    /// converged and stays ~1e-6 off its function (measured).
    pub fn extend_classes(&self, classes: &mut Vec<VarClass>) {
        let own = self.nw - self.solved;
        classes.extend(std::iter::repeat_n(VarClass::UserState, own));
        classes.extend(std::iter::repeat_n(VarClass::Solved, self.solved));
    }

    /// The classes of the appended states under the index-3 formulation:
    /// as `extend_classes`, and a state that [`index3_error_controlled`]
    /// leaves out is of class Solved too (converged, not error-controlled).
    pub fn extend_classes_index3(&self, sys: &System, classes: &mut Vec<VarClass>) {
        classes.extend(index3_error_controlled(sys).into_iter().map(|c| {
            if c {
                VarClass::UserState
            } else {
                VarClass::Solved
            }
        }));
    }

    /// Append the frame's (w, w') to initial (y, y').
    pub fn extend_initial(&self, s: &Frame, y: &mut Vec<f64>, yp: &mut Vec<f64>) {
        y.extend_from_slice(&s.w);
        yp.extend_from_slice(&s.wp);
    }

    /// The DIFF rows of the residual (after `load`).
    pub fn residual(
        &self,
        sys: &System,
        data: &MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
        out: &mut [f64],
    ) {
        sys.state_residual(data, q, u, t, &mut out[self.at..self.at + self.nw]);
    }

    /// The DIFF rows' Jacobian (q columns at 0, u columns at `col_u`) and
    /// the force rows' (at `force_rows`, times `force_scale`) user-state
    /// columns, for ∂/∂y + c ∂/∂y' (after `load`).
    #[allow(clippy::too_many_arguments)]
    pub fn jacobian(
        &self,
        sys: &System,
        data: &MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
        c: f64,
        col_u: usize,
        force_rows: usize,
        force_scale: f64,
        a: &mut SlotAssembler,
    ) {
        if self.nw == 0 {
            return;
        }
        let mut sink = crate::formulation::AsmSink(a);
        sys.state_jacobian(
            data,
            q,
            u,
            t,
            &mut sink,
            self.at,
            Some(0),
            col_u,
            1.0,
            self.at,
            c,
        );
        let mut scaled = crate::formulation::ScaledSink {
            asm: sink.0,
            scale: force_scale,
        };
        sys.force_state_jacobian(data, q, u, t, &mut scaled, force_rows, self.at, c);
    }

    /// Frame values (w, w') from (y, y'), into kept buffers.
    pub fn frame_values_into(&self, y: &[f64], yp: &[f64], w: &mut Vec<f64>, wp: &mut Vec<f64>) {
        let r = self.at..self.at + self.nw;
        crate::output::fill(w, &y[r.clone()]);
        crate::output::fill(wp, &yp[r]);
    }

    /// The name of unknown (or equation) `i` if it is a user state's.
    pub fn describe(&self, sys: &System, i: usize) -> Option<String> {
        (i >= self.at && i < self.at + self.nw)
            .then(|| format!("{} state", sys.state_name(i - self.at)))
    }
}

/// Per user state: whether an index-3 formulation (GSTIFF, WSTIFF,
/// CONSTANT_BDF and DSTIFF I3; HHT and NEWMARK) error-controls it.
///
/// Not a solved quantity, nor a state whose function reads a value that
/// follows the multipliers λ or the accelerations: a reaction, an
/// acceleration, a net force or a friction force (`reaction_fn.rs`), an
/// applied force (SFORCE(), BUSH(), …) whose law reads such a value, or an
/// algebraic output (LSE/TFSISO Y, implicit VARIABLE) that reads one. "The
/// integration error cannot be monitored on either velocities or reaction
/// forces" under I3 (seeds, Index Reduction Methods), and λ's I3 errors
/// are not local truncation errors that a smaller step reduces: λ carries
/// an impulse that removes the velocity drift Φ_q u the steps before left
/// (HHT: it grows as 1/h after a step reduction), and BDF at order 1 puts
/// about half the centripetal term of Φ_q q̈ into λ, an O(1) error. A DIFF
/// integrating such a rate saw its error estimate stay at or above ERROR
/// whatever the step: on the pendulum of cli/tests/reaction_fn.rs HHT at
/// ERROR 1e-7 cut h from 2e-3 to 1e-15 with the estimate between 1 and
/// 276 × ERROR (λ ≈ 8 N off by 1.2, 40, 140 N at h = 8.3e-5, 3.4e-6,
/// 6.6e-7), and GSTIFF at ERROR 1e-9 from 3.3e-4 to 1e-8 at order 1 with
/// the estimate falling only in proportion to h. Such a state is
/// converged with the others and integrated on the steps the mechanics'
/// error control takes; the stabilized formulations (SI2, SI1), whose λ is
/// of index 2 or lower, error-control it. An applied force of positions,
/// velocities and integrated states (the power of a plain SFORCE) keeps
/// its DIFF under control.
pub fn index3_error_controlled(sys: &System) -> Vec<bool> {
    let eqs = &sys.states.equations;
    let at = sys.solved_at();
    // Per solved quantity that is an applied force: its element's index
    // in `sys.forces` (None: not an applied force, or not found).
    let law: Vec<Option<usize>> = (0..eqs.len())
        .map(|k| {
            let m = sys.states.solved.get(k.checked_sub(at)?)?;
            let element = applied_force_element(m)?;
            sys.forces.iter().position(|f| f.element == element)
        })
        .collect();
    // The values that carry λ's and the accelerations' errors.
    let mut carries: Vec<bool> = eqs
        .iter()
        .zip(&law)
        .map(|(e, l)| e.solved && l.is_none())
        .collect();
    loop {
        let mut changed = false;
        for (k, e) in eqs.iter().enumerate() {
            let reads = match law[k] {
                Some(f) => sys.states.force_reads(f),
                None if e.form == StateForm::Output => e.reads(),
                None => continue,
            };
            if !carries[k] && reads.iter().any(|&j| carries[j]) {
                carries[k] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    eqs.iter()
        .enumerate()
        .map(|(k, e)| !e.solved && !carries[k] && !e.reads().iter().any(|&j| carries[j]))
        .collect()
}

/// The force element whose law an applied-force measure (SFORCE(),
/// SPDP(), BUSH(), FIELD(), BEAM(), GFORCE(), VFORCE(), VTORQ()) reads;
/// None for the other solved measures.
fn applied_force_element(m: &mbsolve_model::Measure) -> Option<mbsolve_model::ElementRef> {
    use mbsolve_expr::MeasureKind as K;
    use mbsolve_model::ElementRef as E;
    let call = mbsolve_expr::solved_call(m)?;
    let id = call.args.first().copied()?;
    Some(match call.kind {
        K::Sforce => E::Force(id),
        K::Spdp => E::Springdamper(id),
        K::Bush => E::Bushing(id),
        K::Field => E::Field(id),
        K::Beam => E::Beam(id),
        K::Gforce => E::Gforce(id),
        K::Vforce => E::Vforce(id),
        K::Vtorq => E::Vtorque(id),
        _ => return None,
    })
}

/// Logs (once per run) the states the index-3 formulation (`formulation`
/// "I3") converges without error control ([`index3_error_controlled`]).
pub(crate) fn log_index3_uncontrolled(sys: &System, formulation: &str, log: &mut Vec<String>) {
    if formulation != "I3" {
        return;
    }
    let controlled = index3_error_controlled(sys);
    log_states_once(
        sys,
        log,
        |k| !controlled[k] && !sys.states.equations[k].solved,
        "I3: {} converged but not error-controlled: their functions read reactions, accelerations or applied forces the system solves for, whose index-3 errors a smaller step does not reduce (SI2 error-controls them)",
    );
}

/// Pushes `message` (its `{}` replaced by the names of the states `pick`
/// chooses) to the run log once, when any state is chosen.
fn log_states_once(
    sys: &System,
    log: &mut Vec<String>,
    pick: impl Fn(usize) -> bool,
    message: &str,
) {
    let names: Vec<String> = (0..sys.nw())
        .filter(|&k| pick(k))
        .map(|k| sys.state_name(k))
        .collect();
    if names.is_empty() {
        return;
    }
    let line = message.replacen("{}", &names.join(", "), 1);
    if !log.contains(&line) {
        log.push(line);
    }
}

/// A formulation or integrator (`what`) that does not carry user states:
/// an error naming the first DIFF when the model has any.
pub fn reject_form(sys: &System, t: f64, what: &str) -> Result<(), IntegrationError> {
    if sys.nw() == 0 {
        return Ok(());
    }
    Err(IntegrationError::failure(
        t,
        format!(
            "{}: user states (DIFF, LSE, TFSISO) are not supported by {what} yet; use GSTIFF, WSTIFF or HASTIFF (I3, SI2 or SI1) or DSTIFF",
            sys.state_name(0)
        ),
    ))
}

/// DIF(id), DIF1(id) or ARYVAL(id, k) (an LSE/TFSISO state or output) of
/// a frame, for function requests.
pub(crate) fn request_value(
    sys: &System,
    frame: &Frame,
    m: &mbsolve_expr::MeasureCall,
) -> Result<f64, mbsolve_expr::EvalError> {
    use mbsolve_expr::{EvalError, MeasureKind};
    use mbsolve_model::ElementRef;
    let id = m.args.first().copied().unwrap_or(0);
    let key = match m.kind {
        MeasureKind::Aryval => (
            ElementRef::Array(id),
            m.args.get(1).copied().unwrap_or(1).saturating_sub(1),
        ),
        _ => (ElementRef::Diff(id), 0),
    };
    let k = sys
        .states
        .keys
        .iter()
        .position(|x| *x == key)
        .ok_or_else(|| {
            EvalError::new(match key.0 {
                ElementRef::Array(a) => format!(
                    "{m}: ARRAY/{a} is not the X or Y array of an LSE or TFSISO (ARYVAL of other arrays is not supported yet)"
                ),
                e => format!("{m}: {e} does not exist"),
            })
        })?;
    let values = if m.kind == MeasureKind::Dif1 {
        &frame.wp
    } else {
        &frame.w
    };
    values
        .get(k)
        .copied()
        .ok_or_else(|| EvalError::new(format!("{m}: no user-state values in this frame")))
}

/// The user states in a static solution (FIM_S): unknowns after (q, λ),
/// with the row w' = 0 (the DIFF equation at u = 0, w' = 0) for a state
/// without STATIC_HOLD, and w − w_held = 0 for a held one (seeds, DIFF
/// STATIC_HOLD). A state whose equation reads no free state (an
/// integrator y' = f(q)) cannot be determined by w' = 0: it is held too.
pub(crate) struct StaticStates {
    /// Row and column of the first state.
    at: usize,
    held: Vec<Option<f64>>,
}

impl StaticStates {
    pub fn new(sys: &System, data: &MechData, at: usize) -> Self {
        let free = sys.static_free_states();
        let held = free
            .iter()
            .zip(&data.states.w)
            .map(|(f, w)| (!f).then_some(*w))
            .collect();
        StaticStates { at, held }
    }

    /// The states' rows of `res` (after the others) at (q, u = 0, t).
    pub fn residual(&self, sys: &System, data: &mut MechData, q: &[f64], t: f64, res: &mut [f64]) {
        if self.held.is_empty() {
            return;
        }
        data.states.wp.iter_mut().for_each(|v| *v = 0.0);
        let u = vec![0.0; q.len()];
        let rows = &mut res[self.at..self.at + self.held.len()];
        sys.state_residual(data, q, &u, t, rows);
        for (k, h) in self.held.iter().enumerate() {
            if let Some(h) = h {
                rows[k] = data.states.w[k] - h;
            }
        }
    }

    /// The states' rows (∂/∂q, ∂/∂w) and the force rows' state columns.
    pub fn jacobian(&self, sys: &System, data: &MechData, q: &[f64], t: f64, sink: &mut dyn Sink) {
        if self.held.is_empty() {
            return;
        }
        let u = vec![0.0; q.len()];
        let mut rows = HeldRows {
            inner: sink,
            at: self.at,
            held: &self.held,
        };
        sys.state_jacobian(
            data,
            q,
            &u,
            t,
            &mut rows,
            self.at,
            Some(0),
            0,
            0.0,
            self.at,
            0.0,
        );
        for (k, h) in self.held.iter().enumerate() {
            rows.inner.add(
                self.at + k,
                self.at + k,
                if h.is_some() { 1.0 } else { 0.0 },
            );
        }
        sys.force_state_jacobian(data, q, &u, t, rows.inner, 0, self.at, 0.0);
    }
}

/// Zeroes the entries of held states' rows (their row is w − w_held).
struct HeldRows<'a> {
    inner: &'a mut dyn Sink,
    at: usize,
    held: &'a [Option<f64>],
}

impl Sink for HeldRows<'_> {
    fn add(&mut self, r: usize, c: usize, v: f64) {
        let held = r >= self.at && self.held.get(r - self.at).is_some_and(Option::is_some);
        self.inner.add(r, c, if held { 0.0 } else { v });
    }
}

/// Logs (once per run) the DIFFs without STATIC_HOLD that a static solution
/// holds anyway because w' = 0 does not determine them.
pub(crate) fn log_held_states(sys: &System, log: &mut Vec<String>) {
    let free = sys.static_free_states();
    log_states_once(
        sys,
        log,
        |k| !free[k] && !sys.states.equations[k].static_hold,
        "statics: {} held at their values (their equations read no state a static solution determines, so w' = 0 cannot fix them)",
    );
}
