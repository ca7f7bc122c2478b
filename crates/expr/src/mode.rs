//! MODE: the number of the analysis that is evaluating the expression
//! (Adams Solver function reference, MODE; MotionSolve's MODE gives the
//! same table): 1 kinematics, 3 initial conditions, 4 dynamics,
//! 5 statics, 6 quasi-statics, 7 linear analysis.
//!
//! Written as a bare name (`IF(MODE - 4: 0, 0, -100*DX(1,2))`), like
//! TIME. The value lives in the run's `SensorValues` (the per-simulation
//! table SENVAL also reads), which the solver sets when an analysis
//! starts; [`Expr::with_sensor_values`] binds MODE to it together with the
//! SENVAL calls, so every function of a run (forces, motions, user states,
//! sensors, requests) sees the same number. It is constant during an
//! analysis: its derivatives with respect to time and to every measure are
//! zero. An unbound MODE (an expression never given a run) fails
//! evaluation by name rather than guessing an analysis.

use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, Expr, Span};
use mbsolve_model::SenvalCell;
use std::sync::Arc;

/// One MODE reference.
#[derive(Clone, Debug)]
pub(crate) struct ModeCall {
    pub cell: Option<Arc<SenvalCell>>,
    pub span: Span,
}

pub(crate) fn eval(c: &ModeCall) -> Result<Jet, EvalError> {
    match &c.cell {
        Some(cell) => Ok(Jet::constant(cell.get())),
        None => Err(EvalError {
            message: "MODE is not bound to a run (no analysis sets it)".into(),
            span: Some(c.span),
        }),
    }
}

impl Expr {
    /// Whether MODE, DELAY or INCANG (the latter two keep a run's
    /// history) appears, in the expression or a substituted VARIABLE: such
    /// an expression needs binding to its run ([`Expr::with_sensor_values`]).
    pub fn reads_run(&self) -> bool {
        self.any_node(|n| matches!(n, Node::Mode(_) | Node::Delay(_) | Node::Incang(_)))
    }
}
