//! Adapters from [`Expr`] to the model's function traits.

use crate::{EvalError, Expr, ExprError, MeasureKind};
use mbsolve_model::{ConstraintFunction, Measure, SensorValues, StateFunction, TimeFunction};
use std::sync::Arc;

/// `expr` with its SENVAL calls, MODE and DELAY histories bound to
/// `values` (the run); None without any.
fn rebound_expr(expr: &Expr, values: &SensorValues) -> Option<Expr> {
    (!expr.senvals_read().is_empty() || expr.reads_run()).then(|| expr.with_sensor_values(values))
}

/// A MOTION function: an expression of TIME only.
///
/// The `TimeFunction` trait has no error channel: an evaluation error gives
/// NaN values (the integrator then fails with a non-finite residual); use
/// [`ExprTimeFunction::try_eval`] to get the message.
#[derive(Clone, Debug)]
pub struct ExprTimeFunction {
    expr: Expr,
}

impl ExprTimeFunction {
    pub fn new(expr: Expr) -> Result<Self, ExprError> {
        if let Some(m) = expr.measures().first() {
            return Err(ExprError {
                message: format!("a motion function may depend on TIME only; found {m}"),
                span: expr.measure_span(0),
            });
        }
        Ok(ExprTimeFunction { expr })
    }
    pub fn expr(&self) -> &Expr {
        &self.expr
    }
    /// Value, d/dt and d²/dt².
    pub fn try_eval(&self, t: f64) -> Result<[f64; 3], EvalError> {
        self.expr.eval_time(t)
    }
}

impl TimeFunction for ExprTimeFunction {
    fn rebound(&self, values: &SensorValues) -> Option<Arc<dyn TimeFunction>> {
        let expr = rebound_expr(&self.expr, values)?;
        Some(Arc::new(ExprTimeFunction { expr }))
    }
    fn source(&self) -> Option<&str> {
        Some(self.expr().source())
    }
    fn eval(&self, t: f64) -> [f64; 3] {
        self.try_eval(t).unwrap_or([f64::NAN; 3])
    }
    fn explain(&self, t: f64) -> Option<String> {
        let r = self.try_eval(t);
        explain(
            &self.expr,
            r.as_ref().map(|v| &v[..]).map_err(|e| e.clone()),
        )
    }
}

/// "FUNCTION = text: cause" when `r` is an error or holds a non-finite
/// value (entry 0) or derivative (the others: SQRT(TIME) at 0 has a finite
/// value and an infinite slope).
fn explain(e: &Expr, r: Result<&[f64], EvalError>) -> Option<String> {
    let cause = match r {
        Err(err) => err.message,
        Ok(v) => match v.iter().position(|x| !x.is_finite()) {
            None => return None,
            Some(0) => format!("the value is {}", v[0]),
            Some(k) => format!("a derivative is {} (the value is {})", v[k], v[0]),
        },
    };
    Some(format!("FUNCTION = {}: {cause}", e.source().trim()))
}

/// A force function of TIME and the kinematic measures the mechanics kernel
/// provides (DX DY DZ DM VX VY VZ VM VR WX WY WZ WM AX AY AZ, PSI THETA PHI
/// YAW PITCH ROLL; VX VY VZ VM with a reference-frame marker).
///
/// As for [`ExprTimeFunction`], an evaluation error gives NaN through the
/// trait; [`ExprStateFunction::try_eval`] returns the message.
#[derive(Clone, Debug)]
pub struct ExprStateFunction {
    expr: Expr,
    measures: Vec<Measure>,
}

impl ExprStateFunction {
    pub fn new(expr: Expr) -> Result<Self, ExprError> {
        let mut measures = Vec::with_capacity(expr.measures().len());
        for (slot, call) in expr.measures().iter().enumerate() {
            let unsupported = |what: String| ExprError {
                message: format!("{what} is not supported yet in a force function"),
                span: expr.measure_span(slot),
            };
            if let Some(m) = user_state_measure(call) {
                measures.push(m);
                continue;
            }
            if let Some(m) = crate::solved::measure(call) {
                measures.push(m);
                continue;
            }
            if call.kind == MeasureKind::Contact {
                let m = crate::contact_fn::measure(call).map_err(|message| ExprError {
                    message,
                    span: expr.measure_span(slot),
                })?;
                measures.push(m);
                continue;
            }
            if call.kind == MeasureKind::Orient {
                let m = crate::orient_fn::measure(call).map_err(|message| ExprError {
                    message,
                    span: expr.measure_span(slot),
                })?;
                measures.push(m);
                continue;
            }
            let i = match call.arg(0) {
                Some(i) => i,
                None => {
                    return Err(ExprError {
                        message: format!("{call}: marker I must be given (not 0)"),
                        span: expr.measure_span(slot),
                    })
                }
            };
            let (j, k, l) = (call.arg(1), call.arg(2), call.arg(3));
            use MeasureKind as K;
            let axis = |x: K, y: K| -> u8 {
                if call.kind == x {
                    0
                } else if call.kind == y {
                    1
                } else {
                    2
                }
            };
            let m = match call.kind {
                K::Dm => Measure::Dm { i, j },
                K::Dx | K::Dy | K::Dz => Measure::Disp {
                    i,
                    j,
                    k,
                    axis: axis(K::Dx, K::Dy),
                },
                // VR(i, j, l): the frame drops out (ω_L × d ⟂ d).
                K::Vr => Measure::Vr { i, j },
                // VX/VY/VZ(i, j, k, l): the derivative taken in L's frame
                // (mech frame_measures).
                K::Vx | K::Vy | K::Vz => match l {
                    Some(l) => Measure::FrameVel {
                        i,
                        j,
                        k,
                        l,
                        axis: axis(K::Vx, K::Vy),
                    },
                    None => Measure::Vel {
                        i,
                        j,
                        k,
                        axis: axis(K::Vx, K::Vy),
                    },
                },
                K::Wx | K::Wy | K::Wz => Measure::AngVel {
                    i,
                    j,
                    k,
                    axis: axis(K::Wx, K::Wy),
                },
                // VM(i, j, l): third argument the frame L.
                K::Vm => match k {
                    Some(l) => Measure::FrameSpeed { i, j, l },
                    None => Measure::Speed { i, j },
                },
                K::Wm => Measure::AngSpeed { i, j },
                K::Ax | K::Ay | K::Az => Measure::Angle {
                    i,
                    j,
                    axis: axis(K::Ax, K::Ay),
                },
                // Body-fixed 3-1-3 and 3-2-1 Euler angles of I relative to
                // J, defined as the requests define them (mech euler_measures).
                K::Psi | K::Theta | K::Phi | K::Yaw | K::Pitch | K::Roll => Measure::Euler {
                    i,
                    j,
                    angle: [K::Psi, K::Theta, K::Phi, K::Yaw, K::Pitch, K::Roll]
                        .iter()
                        .position(|x| *x == call.kind)
                        .unwrap_or(0) as u8,
                },
                other => return Err(unsupported(other.name().to_string())),
            };
            measures.push(m);
        }
        Ok(ExprStateFunction { expr, measures })
    }
    pub fn expr(&self) -> &Expr {
        &self.expr
    }
    /// Value and ∂f/∂t; fills ∂f/∂mᵢ.
    pub fn try_eval(&self, t: f64, m: &[f64], dm: &mut [f64]) -> Result<(f64, f64), EvalError> {
        self.expr.eval_with_gradient(t, m, dm)
    }
}

impl StateFunction for ExprStateFunction {
    fn rebound(&self, values: &SensorValues) -> Option<Arc<dyn StateFunction>> {
        let expr = rebound_expr(&self.expr, values)?;
        Some(Arc::new(ExprStateFunction {
            expr,
            measures: self.measures.clone(),
        }))
    }
    fn source(&self) -> Option<&str> {
        Some(self.expr().source())
    }
    fn measures(&self) -> &[Measure] {
        &self.measures
    }
    fn eval(&self, t: f64, m: &[f64], dm: &mut [f64]) -> (f64, f64) {
        match self.try_eval(t, m, dm) {
            Ok(r) => r,
            Err(_) => {
                dm.iter_mut().for_each(|d| *d = f64::NAN);
                (f64::NAN, f64::NAN)
            }
        }
    }
    fn explain(&self, t: f64, m: &[f64]) -> Option<String> {
        let mut dm = vec![0.0; m.len()];
        let r = self.try_eval(t, m, &mut dm).map(|(v, dt)| {
            let mut all = vec![v, dt];
            all.extend_from_slice(&dm);
            all
        });
        explain(&self.expr, r.as_deref().map_err(|e| e.clone()))
    }
}

/// DIF(id) and DIF1(id): the value and the time derivative of DIFF/id;
/// ARYVAL(id, k): an LSE/TFSISO state or output; VARVAL(id): an implicit
/// VARIABLE's value.
fn user_state_measure(call: &crate::MeasureCall) -> Option<Measure> {
    let rate = match call.kind {
        MeasureKind::Dif => false,
        MeasureKind::Dif1 => true,
        // ARYVAL(id, k): component k − 1 of the X or Y array `id`.
        MeasureKind::Aryval => {
            return Some(Measure::UserState {
                element: mbsolve_model::ElementRef::Array(call.args.first().copied().unwrap_or(0)),
                // ARYVAL(id, 0) names no element: u32::MAX fails validation.
                component: call
                    .args
                    .get(1)
                    .and_then(|k| k.checked_sub(1))
                    .unwrap_or(u32::MAX),
                rate: false,
            });
        }
        // VARVAL left in an expression reads an implicit VARIABLE, an
        // unknown of the system (`implicit.rs`).
        MeasureKind::Varval => {
            return Some(Measure::UserState {
                element: mbsolve_model::ElementRef::Variable(
                    call.args.first().copied().unwrap_or(0),
                ),
                component: 0,
                rate: false,
            });
        }
        _ => return None,
    };
    Some(Measure::UserState {
        element: mbsolve_model::ElementRef::Diff(call.args.first().copied().unwrap_or(0)),
        component: 0,
        rate,
    })
}

/// A GCON function: an expression of TIME and position-level measures
/// (DX DY DZ DM AX AY AZ), with exact first and second derivatives.
#[derive(Clone, Debug)]
pub struct ExprConstraintFunction {
    inner: ExprStateFunction,
}

impl ExprConstraintFunction {
    pub fn new(expr: Expr) -> Result<Self, ExprError> {
        for (slot, call) in expr.measures().iter().enumerate() {
            use MeasureKind as K;
            let accepted = matches!(
                call.kind,
                K::Dm | K::Dx | K::Dy | K::Dz | K::Ax | K::Ay | K::Az
            ) || matches!(call.kind, K::Vx | K::Vy | K::Vz | K::Wx | K::Wy | K::Wz);
            let message = match call.kind {
                _ if accepted => continue,
                // Adams: a GCON is handled correctly when its FUNCTION is
                // in Pfaffian form (affine in the velocities).
                K::Vm | K::Wm => format!(
                    "{} is not linear in the velocities, and a GCON that reads velocities must be in Pfaffian form (affine in VX VY VZ WX WY WZ)",
                    call.kind.name()
                ),
                _ => format!(
                    "{} is not supported yet in a constraint function (only DX DY DZ DM AX AY AZ VX VY VZ WX WY WZ and TIME)",
                    call.kind.name()
                ),
            };
            return Err(ExprError {
                message,
                span: expr.measure_span(slot),
            });
        }
        Ok(ExprConstraintFunction {
            inner: ExprStateFunction::new(expr)?,
        })
    }
    pub fn expr(&self) -> &Expr {
        &self.inner.expr
    }
}

impl ConstraintFunction for ExprConstraintFunction {
    fn rebound(&self, values: &SensorValues) -> Option<Arc<dyn ConstraintFunction>> {
        let expr = rebound_expr(&self.inner.expr, values)?;
        Some(Arc::new(ExprConstraintFunction {
            inner: ExprStateFunction {
                expr,
                measures: self.inner.measures.clone(),
            },
        }))
    }
    fn source(&self) -> Option<&str> {
        Some(self.expr().source())
    }
    fn measures(&self) -> &[Measure] {
        &self.inner.measures
    }
    fn eval2(&self, t: f64, m: &[f64], grad: &mut [f64], hess: &mut [f64]) -> f64 {
        match self.inner.expr.eval_hessian(t, m, grad, hess) {
            Ok(v) => v,
            Err(_) => {
                grad.iter_mut()
                    .chain(hess.iter_mut())
                    .for_each(|d| *d = f64::NAN);
                f64::NAN
            }
        }
    }
    fn explain(&self, t: f64, m: &[f64]) -> Option<String> {
        self.inner.explain(t, m)
    }
}
