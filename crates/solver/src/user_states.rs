//! User states (DIFF) in the formulations: every first-order formulation
//! appends w to its state, y = (…, w) and y' = (…, w'), with the DIFF rows
//! G_w(q, u, w, w', t) = 0 at the end (mbsolve-mech `states.rs`). The
//! states are of class UserState: error-controlled and converged by every
//! corrector (seeds: corrector and error-control tables, "state variables
//! from differential equations (DIFFs)").

use crate::analysis::Frame;
use mbsolve_integrate::{IntegrationError, SlotAssembler, VarClass};
use mbsolve_mech::{MechData, System};

/// Where a formulation keeps the user states: w at `at` in y, w' at `at`
/// in y', their rows at `at` in the residual.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StateBlock {
    pub at: usize,
    pub nw: usize,
}

impl StateBlock {
    pub fn new(sys: &System, at: usize) -> Self {
        StateBlock { at, nw: sys.nw() }
    }

    /// Hand (w, w') of (y, y') to the mechanics before an evaluation.
    pub fn load(&self, data: &mut MechData, y: &[f64], yp: &[f64]) {
        let r = self.at..self.at + self.nw;
        data.states.set(&y[r.clone()], &yp[r]);
    }

    /// The classes of the appended states.
    pub fn extend_classes(&self, classes: &mut Vec<VarClass>) {
        classes.extend(std::iter::repeat_n(VarClass::UserState, self.nw));
    }

    /// Append the frame's (w, w') to initial (y, y').
    pub fn extend_initial(&self, s: &Frame, y: &mut Vec<f64>, yp: &mut Vec<f64>) {
        y.extend_from_slice(&s.w);
        yp.extend_from_slice(&s.wp);
    }

    /// The DIFF rows of the residual (after `load`).
    pub fn residual(&self, sys: &System, data: &MechData, q: &[f64], u: &[f64], t: f64, out: &mut [f64]) {
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
        sys.state_jacobian(data, q, u, t, &mut sink, self.at, Some(0), col_u, 1.0, self.at, c);
        let mut scaled = crate::formulation::ScaledSink {
            asm: sink.0,
            scale: force_scale,
        };
        sys.force_state_jacobian(data, q, u, t, &mut scaled, force_rows, self.at, c);
    }

    /// Frame values (w, w') from (y, y').
    pub fn frame_values(&self, y: &[f64], yp: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let r = self.at..self.at + self.nw;
        (y[r.clone()].to_vec(), yp[r].to_vec())
    }

    /// The name of unknown (or equation) `i` if it is a user state's.
    pub fn describe(&self, sys: &System, i: usize) -> Option<String> {
        (i >= self.at && i < self.at + self.nw).then(|| format!("{} state", sys.state_name(i - self.at)))
    }
}

/// HHT and NEWMARK integrate the second-order mechanics only: an error
/// naming the first DIFF when the model has user states.
pub(crate) fn reject_second_order(sys: &System, t: f64) -> Result<(), IntegrationError> {
    reject_form(sys, t, "HHT and NEWMARK (second-order mechanics only)")
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
            "{}: user states (DIFF) are not supported by {what} yet; use GSTIFF, WSTIFF or HASTIFF (I3, SI2 or SI1) or DSTIFF",
            sys.state_name(0)
        ),
    ))
}

/// DIF(id) or DIF1(id) of a frame, for function requests.
pub(crate) fn request_value(
    sys: &System,
    frame: &Frame,
    m: &mbsolve_expr::MeasureCall,
) -> Result<f64, mbsolve_expr::EvalError> {
    let id = m.args.first().copied().unwrap_or(0);
    let key = (mbsolve_model::ElementRef::Diff(id), 0);
    let k = sys
        .states
        .keys
        .iter()
        .position(|x| *x == key)
        .ok_or_else(|| mbsolve_expr::EvalError::new(format!("{m}: DIFF/{id} does not exist")))?;
    let values = if m.kind == mbsolve_expr::MeasureKind::Dif1 {
        &frame.wp
    } else {
        &frame.w
    };
    values
        .get(k)
        .copied()
        .ok_or_else(|| mbsolve_expr::EvalError::new(format!("{m}: no user-state values in this frame")))
}
