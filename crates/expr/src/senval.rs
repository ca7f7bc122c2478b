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
    /// `values` (a model's `sensor_values`), and MODE to its mode cell.
    pub fn with_sensor_values(&self, values: &SensorValues) -> Expr {
        let mut e = self.clone();
        let mut bind = |n: &mut Node| match n {
            Node::Senval(c) => c.cell = Some(values.cell(c.id)),
            Node::Mode(c) => c.cell = Some(values.mode_cell()),
            // a run's own DELAY history
            Node::Delay(c) => c.history = Default::default(),
            // and INCANG's
            Node::Incang(c) => c.history = Default::default(),
            _ => {}
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

#[cfg(test)]
mod tests {
    use super::*;

    /// SENVAL reads its sensor's cell as it is now (0 before a trip), and
    /// is constant: zero derivative in time and in every measure.
    #[test]
    fn senval_reads_the_cell_with_zero_derivatives() {
        let values = SensorValues::default();
        let e = Expr::parse("SENVAL(3)*TIME + DX(2)")
            .unwrap()
            .with_sensor_values(&values);
        assert_eq!(e.value(2.0, &[0.5]).unwrap(), 0.5);
        values.set(3, 1.25);
        let mut dm = [0.0];
        let (v, dt) = e.eval_with_gradient(2.0, &[0.5], &mut dm).unwrap();
        assert_eq!((v, dt, dm[0]), (1.25 * 2.0 + 0.5, 1.25, 1.0));
        let c = Expr::parse("SENVAL(3)")
            .unwrap()
            .with_sensor_values(&values);
        assert_eq!(c.eval_time(4.0).unwrap(), [1.25, 0.0, 0.0]);
        assert_eq!(
            e.senvals_read()
                .iter()
                .map(|(id, _)| *id)
                .collect::<Vec<_>>(),
            vec![3]
        );
    }

    #[test]
    fn unbound_and_malformed_senval_calls_are_errors() {
        let e = Expr::parse("1 + SENVAL(4)").unwrap();
        let err = e.value(0.0, &[]).unwrap_err();
        assert_eq!(err.message, "SENVAL(4) is not bound to the model's SENSORs");
        for (text, want) in [
            (
                "SENVAL(1.5)",
                "SENVAL: the SENSOR id must be a positive integer, found '1.5'",
            ),
            (
                "SENVAL(TIME)",
                "SENVAL: the SENSOR id must be a positive integer, found 'TIME'",
            ),
        ] {
            let err = Expr::parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
        let err = Expr::parse("SENVAL(1, 2)").unwrap_err().to_string();
        assert!(err.contains("SENVAL"), "{err}");
    }
}
