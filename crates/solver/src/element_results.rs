//! Result functions of vector forces, curve constraints and joint friction
//! (Adams function reference): GFORCE, VFORCE and VTORQ (id, jflag, comp,
//! rm), PTCV and CVCV (id, jflag, comp, rm), FRICTION (id, index[, rm]).
//!
//! Same conventions as JOINT(), SFORCE(), BUSH() (`functions.rs`): the
//! wrench the element applies to the part of the marker that jflag names
//! (0 the I marker, 1 the J/JFLOAT marker), the torque about that marker's
//! origin, resolved in rm's axes (ground when 0); components 1 force
//! magnitude, 2–4 force, 5 torque magnitude, 6–8 torque.
//!
//! Floating markers: Adams keeps a vector force's JFLOAT superimposed on I
//! (reference, GFORCE statement: "the point of application of the reaction
//! force may move with respect to its part"), and a PTCV's JFLOAT, a
//! CVCV's IFLOAT and JFLOAT at the contact point. Here the reaction point
//! is taken where Adams puts the marker, on the floating marker's part.

use crate::analysis::Frame;
use crate::functions::FrameContext;
use crate::requests::{add_generalized, marker_state, wrench, Source};
use mbsolve_expr::{EvalError, MeasureCall, MeasureKind};
use mbsolve_mech::local::NL;
use mbsolve_mech::rotation::rot;
use mbsolve_mech::MarkerFrame;
use mbsolve_model::ElementRef;
use nalgebra::{Matrix3, Vector3, Vector4};

/// Component `comp` (1…8) of a wrench already resolved in rm's axes.
pub(crate) fn wrench_component(
    kind: MeasureKind,
    f: &Vector3<f64>,
    n: &Vector3<f64>,
    comp: u32,
) -> Result<f64, EvalError> {
    match comp {
        1 => Ok(f.norm()),
        2..=4 => Ok(f[comp as usize - 2]),
        5 => Ok(n.norm()),
        6..=8 => Ok(n[comp as usize - 6]),
        _ => Err(EvalError::new(format!(
            "{}: component must be 1…8 (1 force magnitude, 2–4 force x y z, 5 torque magnitude, 6–8 torque x y z), got {comp}",
            kind.name()
        ))),
    }
}

/// A marker frame on `body` (None = ground) whose origin is the ground
/// point `x` in the configuration of `frame`: where Adams places a
/// floating marker.
fn floating_at(frame: &Frame, id: u32, body: Option<usize>, x: &Vector3<f64>) -> MarkerFrame {
    let s = match body {
        Some(b) => {
            let o = 7 * b;
            let r = Vector3::new(frame.q[o], frame.q[o + 1], frame.q[o + 2]);
            let p = Vector4::new(
                frame.q[o + 3],
                frame.q[o + 4],
                frame.q[o + 5],
                frame.q[o + 6],
            );
            rot(&p).transpose() * (x - r)
        }
        None => *x,
    };
    MarkerFrame {
        id,
        body,
        s,
        axes: Matrix3::identity(),
    }
}

fn jflag_of(m: &MeasureCall) -> Result<u32, EvalError> {
    match m.args.get(1).copied().unwrap_or(0) {
        f @ (0 | 1) => Ok(f),
        f => Err(EvalError::new(format!(
            "{}: jflag must be 0 (I marker) or 1 (J marker), got {f}",
            m.kind.name()
        ))),
    }
}

/// GFORCE, VFORCE, VTORQ, PTCV, CVCV and FRICTION results on one frame.
pub(crate) fn component(ctx: &FrameContext, m: &MeasureCall) -> Result<f64, EvalError> {
    let id = m.args.first().copied().unwrap_or(0);
    let (sys, model, frame) = (ctx.sys, ctx.model, ctx.frame);
    let missing = |e: ElementRef| EvalError::new(format!("{e} does not exist"));
    if m.kind == MeasureKind::Friction {
        return friction(ctx, m, id);
    }
    let jflag = jflag_of(m)?;
    let comp = m.args.get(2).copied().unwrap_or(0);
    let (f, n) = match m.kind {
        MeasureKind::Gforce | MeasureKind::Vforce | MeasureKind::Vtorq => {
            let element = match m.kind {
                MeasureKind::Gforce => ElementRef::Gforce(id),
                MeasureKind::Vforce => ElementRef::Vforce(id),
                _ => ElementRef::Vtorque(id),
            };
            let fe = sys.forces.iter().find(|f| f.element == element);
            let fe = fe.ok_or_else(|| missing(element))?;
            // The force element's J is its JFLOAT on the reaction part.
            let at = match jflag {
                0 => fe.i,
                _ => {
                    let x = marker_state(sys, frame, &fe.i).x;
                    floating_at(frame, fe.j.id, fe.j.body, &x)
                }
            };
            wrench(sys, model, frame, &at, Source::Element(element))
        }
        MeasureKind::Ptcv => {
            let element = ElementRef::Ptcv(id);
            let p = model.ptcvs.iter().find(|p| p.id == id);
            let p = p.ok_or_else(|| missing(element))?;
            let i = *sys.marker(p.i);
            // The rows act at I's origin (PTCV: x is I's origin), so the
            // reaction on RM's part acts at the contact point there.
            let at = match jflag {
                0 => i,
                _ => {
                    let x = marker_state(sys, frame, &i).x;
                    floating_at(frame, p.jfloat, sys.marker(p.rm).body, &x)
                }
            };
            wrench(sys, model, frame, &at, Source::Element(element))
        }
        _ => {
            let element = ElementRef::Cvcv(id);
            let c = model.cvcvs.iter().find(|c| c.id == id);
            let c = c.ok_or_else(|| missing(element))?;
            let rm = *sys.marker(if jflag == 0 { c.irm } else { c.jrm });
            let (f, n) = wrench(sys, model, frame, &rm, Source::Element(element));
            // The reaction is one force through the contact point (the
            // floating marker), frictionless: its moment about any point of
            // its line of action is the part of n along f, which is also
            // its moment about the contact point (zero on the constraint).
            let f2 = f.norm_squared();
            let n_line = if f2 > 0.0 { f * (n.dot(&f) / f2) } else { n };
            (f, n_line)
        }
    };
    let rm = ctx.axes(m, 3)?;
    wrench_component(m.kind, &(rm.transpose() * f), &(rm.transpose() * n), comp)
}

/// FRICTION(id, index[, rm]) (Adams function reference, FRICTION): index
/// 1–3 the friction force along, 4–6 the friction torque about the x, y, z
/// axes of the joint's J marker (of rm when given, MotionSolve's third
/// argument): the friction the joint applies to its I marker's part, the
/// torque about I's origin (as JOINT(id, 0, …)).
fn friction(ctx: &FrameContext, m: &MeasureCall, id: u32) -> Result<f64, EvalError> {
    let (sys, frame) = (ctx.sys, ctx.frame);
    let element = ElementRef::Friction(id);
    let fr = sys.frictions.iter().find(|f| f.element == element);
    let fr = fr.ok_or_else(|| EvalError::new(format!("{element} does not exist")))?;
    let index = m.args.get(1).copied().unwrap_or(0);
    if !(1..=6).contains(&index) {
        return Err(EvalError::new(format!(
            "FRICTION: index {index} is not supported (1–3 friction force along, 4–6 friction torque about the joint's J marker x y z axes; the coefficients, velocities and creep, indices 7–22, are not available)"
        )));
    }
    let q = fr.local_force(sys, &crate::friction_result::friction_at(frame));
    let mut gen = [0.0; NL];
    gen.copy_from_slice(q.as_slice());
    let x = marker_state(sys, frame, &fr.i).x;
    let (mut f, mut n) = (Vector3::zeros(), Vector3::zeros());
    let bodies = [fr.i.body, fr.j.body];
    add_generalized(frame, bodies, fr.i.body, true, &gen, &x, &mut f, &mut n);
    let axes = match m.arg(2) {
        Some(_) => ctx.axes(m, 2)?,
        None => marker_state(sys, frame, &fr.j).axes,
    };
    let k = index as usize - 1;
    Ok(if k < 3 {
        (axes.transpose() * f)[k]
    } else {
        (axes.transpose() * n)[k - 3]
    })
}
