//! Function expressions evaluated on a solution frame: the F1…F8 components
//! of REQUESTs. Implements the expression crate's [`EvalContext`] with the
//! Adams measures (seeds: function expressions): marker displacements,
//! velocities, accelerations and angles, net forces between markers, and
//! the element results JOINT, JPRIM, MOTION, SFORCE, SPDP, BUSH, FIELD,
//! BEAM and ORIENT.

use crate::analysis::Frame;
use crate::requests::{euler313_angles, marker_state, wrench, MarkerState, Source};
use mbsolve_expr::{EvalContext, EvalError, Expr, MeasureCall, MeasureKind};
use mbsolve_mech::rotation::params_from_matrix;
use mbsolve_mech::{MarkerFrame, System};
use mbsolve_model::{ElementRef, FunctionRequest, Model, MotionTarget, Variable};
use nalgebra::{Matrix3, Quaternion, Vector3, Vector4};
use std::collections::HashMap;

/// Below this √(R00² + R10²), pitch is ±90° and YAW/ROLL are not separable
/// (the force measures' threshold, `mech::euler_measures`).
const YPR_GIMBAL: f64 = 1e-12;

/// Time and measures of one frame.
pub struct FrameContext<'a> {
    pub sys: &'a System,
    /// The model's elements (JOINT, MOTION, … results name them).
    pub model: &'a Model,
    pub frame: &'a Frame,
    /// The model's initial coordinates (`sys.initial_state().0`): ORIENT
    /// takes its sign convention from them.
    pub initial_q: &'a [f64],
}

fn ground() -> MarkerState {
    MarkerState {
        x: Vector3::zeros(),
        axes: Matrix3::identity(),
        v: Vector3::zeros(),
        w: Vector3::zeros(),
        acc: Vector3::zeros(),
        wd: Vector3::zeros(),
    }
}

/// Column `k` of a 3×3 matrix.
fn col(m: &Matrix3<f64>, k: usize) -> Vector3<f64> {
    m.column(k).into_owned()
}

impl FrameContext<'_> {
    fn marker_frame(&self, id: u32) -> Result<&MarkerFrame, EvalError> {
        self.sys
            .markers
            .iter()
            .find(|m| m.id == id)
            .ok_or_else(|| EvalError::new(format!("MARKER/{id} does not exist")))
    }

    /// State of the marker in argument `n`; ground's origin when absent or 0.
    fn marker(&self, m: &MeasureCall, n: usize) -> Result<MarkerState, EvalError> {
        match m.arg(n) {
            Some(id) => Ok(marker_state(self.sys, self.frame, self.marker_frame(id)?)),
            None => Ok(ground()),
        }
    }

    /// Euler parameters of the axes of the marker in argument `n` in ground
    /// for coordinates `q`: the body's own (continuous) parameters composed
    /// with the marker's fixed orientation on the body.
    fn marker_quat(
        &self,
        m: &MeasureCall,
        n: usize,
        q: &[f64],
    ) -> Result<Quaternion<f64>, EvalError> {
        let quat = |p: nalgebra::Vector4<f64>| Quaternion::new(p[0], p[1], p[2], p[3]);
        let Some(id) = m.arg(n) else {
            return Ok(Quaternion::identity());
        };
        let mf = self.marker_frame(id)?;
        let pm = quat(params_from_matrix(&mf.axes));
        Ok(match mf.body {
            Some(b) => {
                let o = 7 * b + 3;
                let pb = Quaternion::new(q[o], q[o + 1], q[o + 2], q[o + 3]);
                (pb / pb.norm()) * pm
            }
            None => pm,
        })
    }

    /// Axes of the marker in argument `n` (ground when absent or 0).
    pub(crate) fn axes(&self, m: &MeasureCall, n: usize) -> Result<Matrix3<f64>, EvalError> {
        Ok(self.marker(m, n)?.axes)
    }

    /// Displacement of I from J and its first and second time derivatives
    /// taken in the frame of marker `l` (argument index; ground if absent).
    fn relative_motion(&self, m: &MeasureCall, l: usize) -> Result<[Vector3<f64>; 3], EvalError> {
        let (i, j, lf) = (self.marker(m, 0)?, self.marker(m, 1)?, self.marker(m, l)?);
        let d = i.x - j.x;
        let (w, wd) = (lf.w, lf.wd);
        let dv = (i.v - j.v) - w.cross(&d);
        let da = (i.acc - j.acc) - wd.cross(&d) - 2.0 * w.cross(&dv) - w.cross(&w.cross(&d));
        Ok([d, dv, da])
    }

    fn element_result(&self, m: &MeasureCall) -> Result<f64, EvalError> {
        let id = m.args.first().copied().unwrap_or(0);
        let jflag = m.args.get(1).copied().unwrap_or(0);
        let comp = m.args.get(2).copied().unwrap_or(0);
        let model = self.model;
        let (element, i, j) = match m.kind {
            MeasureKind::Joint => {
                let jt = model.joints.iter().find(|x| x.id == id);
                let jt = jt.ok_or_else(|| EvalError::new(format!("JOINT/{id} does not exist")))?;
                (ElementRef::Joint(id), jt.i, jt.j)
            }
            MeasureKind::Jprim => {
                let jp = model.jprims.iter().find(|x| x.id == id);
                let jp = jp.ok_or_else(|| EvalError::new(format!("JPRIM/{id} does not exist")))?;
                (ElementRef::Jprim(id), jp.i, jp.j)
            }
            MeasureKind::Motion => {
                let mo = model.motions.iter().find(|x| x.id == id);
                let mo = mo.ok_or_else(|| EvalError::new(format!("MOTION/{id} does not exist")))?;
                let (i, j) = match mo.target {
                    MotionTarget::Markers { i, j, .. } => (i, j),
                    MotionTarget::Joint { joint, .. } => {
                        let jt = model.joints.iter().find(|x| x.id == joint);
                        let jt = jt.ok_or_else(|| {
                            EvalError::new(format!("MOTION/{id}: JOINT/{joint} does not exist"))
                        })?;
                        (jt.i, jt.j)
                    }
                };
                (ElementRef::Motion(id), i, j)
            }
            kind => {
                // Force elements: SFORCE, SPRINGDAMPER (SPDP), BUSHING (BUSH),
                // FIELD and BEAM, each in its own id space.
                let element = match kind {
                    MeasureKind::Spdp => ElementRef::Springdamper(id),
                    MeasureKind::Bush => ElementRef::Bushing(id),
                    MeasureKind::Field => ElementRef::Field(id),
                    MeasureKind::Beam => ElementRef::Beam(id),
                    _ => ElementRef::Force(id),
                };
                let fe = self.sys.forces.iter().find(|f| f.element == element);
                let fe = fe.ok_or_else(|| EvalError::new(format!("{element} does not exist")))?;
                (fe.element, fe.i.id, fe.j.id)
            }
        };
        let at = match jflag {
            0 => i,
            1 => j,
            _ => {
                return Err(EvalError::new(format!(
                    "{}: jflag must be 0 (I marker) or 1 (J marker), got {jflag}",
                    m.kind.name()
                )))
            }
        };
        let (f, n) = wrench(
            self.sys,
            self.model,
            self.frame,
            self.marker_frame(at)?,
            Source::Element(element),
        );
        let rm = self.axes(m, 3)?;
        crate::element_results::wrench_component(
            m.kind,
            &(rm.transpose() * f),
            &(rm.transpose() * n),
            comp,
        )
    }
}

impl EvalContext for FrameContext<'_> {
    fn time(&self) -> f64 {
        self.frame.t
    }

    fn measure(&self, m: &MeasureCall) -> Result<f64, EvalError> {
        use MeasureKind as K;
        let comp = |v: Vector3<f64>, k: usize| -> Result<f64, EvalError> {
            Ok((self.axes(m, 2)?.transpose() * v)[k])
        };
        match m.kind {
            K::Dx | K::Dy | K::Dz => {
                let k = [K::Dx, K::Dy, K::Dz]
                    .iter()
                    .position(|x| *x == m.kind)
                    .unwrap_or(0);
                comp(self.marker(m, 0)?.x - self.marker(m, 1)?.x, k)
            }
            K::Dm => Ok((self.marker(m, 0)?.x - self.marker(m, 1)?.x).norm()),
            K::Vx | K::Vy | K::Vz => {
                let k = [K::Vx, K::Vy, K::Vz]
                    .iter()
                    .position(|x| *x == m.kind)
                    .unwrap_or(0);
                comp(self.relative_motion(m, 3)?[1], k)
            }
            K::Vm => Ok(self.relative_motion(m, 2)?[1].norm()),
            K::Vr => {
                let [d, dv, _] = self.relative_motion(m, 2)?;
                let dist = d.norm();
                Ok(if dist > 0.0 { d.dot(&dv) / dist } else { 0.0 })
            }
            K::Accx | K::Accy | K::Accz => {
                let k = [K::Accx, K::Accy, K::Accz]
                    .iter()
                    .position(|x| *x == m.kind)
                    .unwrap_or(0);
                comp(self.relative_motion(m, 3)?[2], k)
            }
            K::Wx | K::Wy | K::Wz => {
                let k = [K::Wx, K::Wy, K::Wz]
                    .iter()
                    .position(|x| *x == m.kind)
                    .unwrap_or(0);
                comp(self.marker(m, 0)?.w - self.marker(m, 1)?.w, k)
            }
            K::Wm => Ok((self.marker(m, 0)?.w - self.marker(m, 1)?.w).norm()),
            K::Wdtx | K::Wdty | K::Wdtz => {
                let k = [K::Wdtx, K::Wdty, K::Wdtz]
                    .iter()
                    .position(|x| *x == m.kind)
                    .unwrap_or(0);
                let (i, j, l) = (self.marker(m, 0)?, self.marker(m, 1)?, self.marker(m, 3)?);
                let dw = i.w - j.w;
                comp((i.wd - j.wd) - l.w.cross(&dw), k)
            }
            K::Ax | K::Ay | K::Az => {
                // Rotation of I about axis a of J: atan2(b_I·c_J, b_I·b_J)
                // with (a, b, c) cyclic.
                let a = [K::Ax, K::Ay, K::Az]
                    .iter()
                    .position(|x| *x == m.kind)
                    .unwrap_or(0);
                let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                let (ri, rj) = (self.axes(m, 0)?, self.axes(m, 1)?);
                let bi = col(&ri, b);
                Ok(bi.dot(&col(&rj, c)).atan2(bi.dot(&col(&rj, b))))
            }
            K::Psi | K::Theta | K::Phi | K::Yaw | K::Pitch | K::Roll => {
                let r = self.axes(m, 1)?.transpose() * self.axes(m, 0)?;
                Ok(match m.kind {
                    K::Psi => euler313_angles(&r).0,
                    K::Theta => euler313_angles(&r).1,
                    K::Phi => euler313_angles(&r).2,
                    // Body 3-2-1: R = Rz(yaw) Ry(θ) Rx(roll). Adams' PITCH
                    // is −θ ("following automotive conventions", func_pitch).
                    // At pitch ±90° (R00 = R10 = 0) yaw and roll are not
                    // separable: yaw carries the whole turn, atan2(−R01,
                    // R11), and roll reads 0, as ORIENT(6, …) does.
                    K::Yaw
                        if (r[(1, 0)] * r[(1, 0)] + r[(0, 0)] * r[(0, 0)]).sqrt() <= YPR_GIMBAL =>
                    {
                        (-r[(0, 1)]).atan2(r[(1, 1)])
                    }
                    K::Roll
                        if (r[(1, 0)] * r[(1, 0)] + r[(0, 0)] * r[(0, 0)]).sqrt() <= YPR_GIMBAL =>
                    {
                        0.0
                    }
                    K::Yaw => r[(1, 0)].atan2(r[(0, 0)]),
                    K::Pitch => r[(2, 0)].clamp(-1.0, 1.0).asin(),
                    _ => r[(2, 1)].atan2(r[(2, 2)]),
                })
            }
            K::Fx | K::Fy | K::Fz | K::Fm | K::Tx | K::Ty | K::Tz | K::Tm => {
                let i = m.arg(0).unwrap_or(0);
                let at = self.marker_frame(i)?;
                let (f, n) = wrench(
                    self.sys,
                    self.model,
                    self.frame,
                    at,
                    Source::Between(i, m.arg(1)),
                );
                match m.kind {
                    K::Fm => Ok(f.norm()),
                    K::Tm => Ok(n.norm()),
                    K::Fx => comp(f, 0),
                    K::Fy => comp(f, 1),
                    K::Fz => comp(f, 2),
                    K::Tx => comp(n, 0),
                    K::Ty => comp(n, 1),
                    _ => comp(n, 2),
                }
            }
            K::Joint
            | K::Jprim
            | K::Motion
            | K::Sforce
            | K::Spdp
            | K::Bush
            | K::Field
            | K::Beam => self.element_result(m),
            K::Gforce | K::Vforce | K::Vtorq | K::Ptcv | K::Cvcv | K::Friction => {
                crate::element_results::component(self, m)
            }
            K::Contact => {
                let rm = self.axes(m, 3)?;
                let f = self.frame;
                crate::contact_result::component(self.sys, &f.q, &f.u, f.non_dynamic, m, &rm)
            }
            K::Orient => {
                let (system, comp) = mbsolve_expr::orient_system(m).map_err(EvalError::new)?;
                let rel = |q: &[f64]| -> Result<Quaternion<f64>, EvalError> {
                    Ok(self.marker_quat(m, 3, q)?.conjugate() * self.marker_quat(m, 2, q)?)
                };
                let p = rel(&self.frame.q)?;
                // Continuous in time like the body's Euler parameters, with
                // the sign that makes e0 ≥ 0 in the initial configuration
                // (only system 27 depends on it).
                let p0 = rel(self.initial_q)?;
                let sign = if p0.w < 0.0 { -1.0 } else { 1.0 };
                let p = Vector4::new(p.w, p.i, p.j, p.k) * sign;
                Ok(mbsolve_mech::orient_systems::component(system, comp, &p).0)
            }
            K::Dif | K::Dif1 | K::Aryval => {
                crate::user_states::request_value(self.sys, self.frame, m)
            }
            // Function requests inline their explicit VARIABLEs when
            // compiled; VARVAL left reads an implicit one's value.
            K::Varval => crate::implicit_vars::request_value(self.sys, self.frame, m),
        }
    }
}

/// A function REQUEST compiled once: its defined components F1…F8.
pub struct CompiledFunctionRequest {
    pub id: u32,
    /// (component index 0..8, expression)
    pub components: Vec<(usize, Expr)>,
    /// The CSV column of each component, in the order of `components`.
    names: Vec<String>,
}

/// The model's VARIABLEs compiled, by id, for [`Expr::with_variables`]; the
/// implicit ones (on algebraic loops) as placeholders, so VARVAL of them
/// stays and reads their solved value.
pub fn compile_variables(variables: &[Variable]) -> Result<HashMap<u32, Expr>, String> {
    let parsed = variables
        .iter()
        .map(|v| {
            Expr::parse(&v.function)
                .map(|e| (v.id, e))
                .map_err(|e| format!("VARIABLE/{}: {e}", v.id))
        })
        .collect::<Result<HashMap<u32, Expr>, String>>()?;
    let implicit = mbsolve_expr::implicit_variables(&parsed);
    Ok(mbsolve_expr::with_unknowns(&parsed, &implicit))
}

impl CompiledFunctionRequest {
    /// Compiles the defined components with every VARVAL(id) replaced by
    /// VARIABLE/id's expression (`variables`, from [`compile_variables`]).
    pub fn new(req: &FunctionRequest, variables: &HashMap<u32, Expr>) -> Result<Self, String> {
        let mut components = Vec::new();
        for (k, src) in req.components.iter().enumerate() {
            if let Some(src) = src {
                let e = Expr::parse(src)
                    .and_then(|e| e.with_variables(variables))
                    .map_err(|e| format!("REQUEST/{}: F{}: {e}", req.id, k + 1))?;
                components.push((k, e));
            }
        }
        // `<RESULTS_NAME>.<CNAME> <CLABEL>`, each part defaulting to
        // `request_<id>`, `f<n>` and nothing (REQUEST RESULTS_NAME, CNAMES,
        // CLABELS).
        let prefix = req
            .results_name
            .clone()
            .unwrap_or_else(|| format!("request_{}", req.id));
        let names = components
            .iter()
            .map(|(k, _)| {
                let base = match &req.cnames[*k] {
                    Some(c) => format!("{prefix}.{c}"),
                    None => format!("{prefix}.f{}", k + 1),
                };
                match &req.clabels[*k] {
                    Some(l) => format!("{base} {l}"),
                    None => base,
                }
            })
            .collect();
        Ok(CompiledFunctionRequest {
            id: req.id,
            components,
            names,
        })
    }

    /// Every CUBSPL/AKISPL of the components bound to the model's SPLINEs.
    pub fn bind_splines(
        self,
        splines: &[std::sync::Arc<mbsolve_model::Spline>],
    ) -> Result<Self, String> {
        self.rebind(|e| e.with_model_splines(splines))
    }

    /// Every CURVE() of the components bound to the model's CURVEs.
    pub fn bind_curves(self, model: &mbsolve_model::Model) -> Result<Self, String> {
        self.rebind(|e| e.with_model_curves(model))
    }

    /// Every component replaced by `bind` of it; an error names the
    /// component.
    fn rebind(
        mut self,
        bind: impl Fn(&Expr) -> Result<Expr, mbsolve_expr::ExprError>,
    ) -> Result<Self, String> {
        for (k, e) in &mut self.components {
            *e = bind(e).map_err(|e| format!("REQUEST/{}: F{}: {e}", self.id, *k + 1))?;
        }
        Ok(self)
    }

    /// Every SENVAL of the components bound to the model's sensors.
    pub fn bind_sensor_values(mut self, values: &mbsolve_model::SensorValues) -> Self {
        for (_, e) in &mut self.components {
            *e = e.with_sensor_values(values);
        }
        self
    }

    /// Column names of the defined components: `request_<id>.f<n>` unless
    /// the REQUEST gives RESULTS_NAME, CNAMES or CLABELS.
    pub fn column_names(&self) -> Vec<String> {
        self.names.clone()
    }

    /// Values of the defined components on one frame.
    pub fn evaluate(&self, ctx: &FrameContext, out: &mut Vec<f64>) -> Result<(), String> {
        let frame = ctx.frame;
        for (k, e) in &self.components {
            let v = e.eval_in(ctx).map_err(|err| {
                format!(
                    "REQUEST/{}: F{} = {} at t = {}: {err}",
                    self.id,
                    k + 1,
                    e.source(),
                    frame.t
                )
            })?;
            out.push(v);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{models, Simulation};
    use mbsolve_model::{Marker, Placement};

    fn eval(sim: &Simulation, frame: &Frame, text: &str) -> f64 {
        Expr::parse(text)
            .unwrap()
            .eval_in(&FrameContext {
                sys: &sim.sys,
                model: &sim.model,
                frame,
                initial_q: &sim.sys.initial_state().0,
            })
            .unwrap()
    }

    /// Hand values on a pendulum (L = 1, hinge at the origin about z) with
    /// marker 30 at the bob, turned θ = 0.5 rad and spinning at ω = 2 rad/s
    /// about z; and the hinge reaction at release against Newton's law.
    #[test]
    fn measures_match_hand_values() {
        let mut model = models::pendulum(1.0, 9.81);
        model.markers.push(Marker {
            id: 30,
            part: 2,
            placement: Placement::at(0.0, 0.0, 0.0),
        });
        let mut sim = Simulation::new(&model).unwrap();
        sim.initial_conditions().unwrap();
        let (sys, s0) = (&sim, sim.state.clone());
        // Reaction on the bob's part (jflag 0: marker 20) balances gravity
        // and inertia: R_y = m (a_y + g); the ground gets −R (jflag 1).
        let ry = s0.a[1] + 9.81;
        assert!((eval(sys, &s0, "JOINT(1,0,3,0)") - ry).abs() < 1e-9);
        assert!((eval(sys, &s0, "JOINT(1,1,3,0)") + ry).abs() < 1e-9);
        assert!((eval(sys, &s0, "JOINT(1,0,1,0)") - ry.abs()).abs() < 1e-9);
        let (th, w) = (0.5f64, 2.0f64);
        let (c, s) = (th.cos(), th.sin());
        let (ch, sh) = ((th / 2.0).cos(), (th / 2.0).sin());
        let mut fr = s0.clone();
        fr.q[..7].copy_from_slice(&[c, s, 0.0, ch, 0.0, 0.0, sh]);
        fr.u[..7].copy_from_slice(&[-w * s, w * c, 0.0, -sh * w / 2.0, 0.0, 0.0, ch * w / 2.0]);
        let pdd = [-ch * w * w / 4.0, 0.0, 0.0, -sh * w * w / 4.0];
        fr.a[..7].copy_from_slice(&[-w * w * c, -w * w * s, 0.0, pdd[0], pdd[1], pdd[2], pdd[3]]);
        let cases = [
            ("DX(30,10)", c),
            ("DY(30,10)", s),
            ("DX(30,10,30)", 1.0),
            ("DM(30,10)", 1.0),
            ("VX(30,10)", -w * s),
            ("VY(30,10,0,30)", 0.0),
            ("VM(30,10)", w),
            ("VR(30,10)", 0.0),
            ("WZ(30,10)", w),
            ("WM(30,10)", w),
            ("ACCX(30,10)", -w * w * c),
            ("ACCY(30,10,30)", 0.0),
            ("WDTZ(30,10)", 0.0),
            ("AZ(30,10)", th),
            ("PSI(30,10)", th),
            ("YAW(30,10)", th),
            ("ROLL(30,10)", 0.0),
            ("ORIENT(27,1,30,10)", ch),
            ("ORIENT(27,4,30,10)", sh),
        ];
        for (text, want) in cases {
            let got = eval(sys, &fr, text);
            assert!((got - want).abs() < 1e-12, "{text}: {got} vs {want}");
        }
        let err = Expr::parse("ORIENT(27,5,30,10)")
            .unwrap()
            .eval_in(&FrameContext {
                sys: &sys.sys,
                model: &sys.model,
                frame: &fr,
                initial_q: &sys.sys.initial_state().0,
            })
            .unwrap_err();
        assert_eq!(
            err.message,
            "ORIENT(27, …): component must be 1…4 (e0, e1, e2, e3), got 5"
        );
    }
}
