//! SENVAL(id): the value of SENSOR/id's EVALUATE expression at the
//! sensor's last trip (Adams Solver SENVAL function; 0 before the first
//! trip). It is constant between trips, so its derivatives with respect
//! to time and to every measure are zero.
//!
//! The parser leaves the call unbound; [`Expr::with_sensor_values`] binds
//! it to the sensor's cell in the model's `SensorValues`, which the solver
//! sets at each trip. An unbound call fails evaluation naming the SENSOR.

use crate::jet::Jet;
use crate::parse::Node;
use crate::{EvalError, Expr, Span};
use mbsolve_model::{SensorValues, SenvalCell};
use std::sync::Arc;

/// One SENVAL call.
#[derive(Clone, Debug)]
pub(crate) struct SenvalCall {
    pub id: u32,
    pub cell: Option<Arc<SenvalCell>>,
    pub span: Span,
}

pub(crate) fn eval(c: &SenvalCall) -> Result<Jet, EvalError> {
    match &c.cell {
        Some(cell) => Ok(Jet::constant(cell.get())),
        None => Err(EvalError {
            message: format!("SENVAL({}) is not bound to the model's SENSORs", c.id),
            span: Some(c.span),
        }),
    }
}

impl Expr {
    /// This expression with every SENVAL(id) bound to sensor id's cell in
    /// `values` (a model's `sensor_values`).
    pub fn with_sensor_values(&self, values: &SensorValues) -> Expr {
        let mut e = self.clone();
        let mut bind = |n: &mut Node| {
            if let Node::Senval(c) = n {
                c.cell = Some(values.cell(c.id));
            }
        };
        crate::spline::walk_mut(&mut e.root, &mut bind);
        for b in &mut e.vars {
            crate::spline::walk_mut(&mut b.node, &mut bind);
        }
        e
    }

    /// The sensor ids this expression's SENVAL calls name, with their spans.
    pub fn senvals_read(&self) -> Vec<(u32, Span)> {
        let mut out = Vec::new();
        let mut copy = self.clone();
        let mut visit = |n: &mut Node| {
            if let Node::Senval(c) = n {
                out.push((c.id, c.span));
            }
        };
        crate::spline::walk_mut(&mut copy.root, &mut visit);
        for b in &mut copy.vars {
            crate::spline::walk_mut(&mut b.node, &mut visit);
        }
        out
    }
}
