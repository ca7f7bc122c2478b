//! REQUEST output: DISPLACEMENT, VELOCITY, ACCELERATION and FORCE requests
//! evaluated on a solution frame, in Adams' conventions (seeds: REQUEST):
//! translational components of marker I relative to marker J (ground origin
//! when J is absent), time derivatives taken in the ground frame, everything
//! resolved in the RM marker's axes (ground when RM is absent); angles are
//! the body-fixed 3-1-3 Euler angles of I's axes relative to J's, in degrees.

use crate::analysis::Frame;
use crate::functions::{compile_variables, CompiledFunctionRequest, FrameContext};
use mbsolve_mech::contact_fn::RunSwitches;
use mbsolve_mech::forces::Direction;
use mbsolve_mech::local::{NoHess, NL};
use mbsolve_mech::rotation::{e_mat, rot};
use mbsolve_mech::states::StateContext;
use mbsolve_mech::{MarkerFrame, System};
use mbsolve_model::{ElementRef, FunctionRequest, Id, Model, MotionTarget, Request, RequestKind};
use nalgebra::{Matrix3, Vector3, Vector4};

/// Column suffixes of each request kind, in output order.
pub fn component_names(kind: RequestKind) -> [&'static str; 6] {
    match kind {
        RequestKind::Displacement => ["x", "y", "z", "psi", "theta", "phi"],
        RequestKind::Velocity => ["vx", "vy", "vz", "wx", "wy", "wz"],
        RequestKind::Acceleration => ["ax", "ay", "az", "wdx", "wdy", "wdz"],
        RequestKind::Force => ["fx", "fy", "fz", "tx", "ty", "tz"],
    }
}

/// Position, orientation, velocity, angular velocity, acceleration and
/// angular acceleration of a marker in ground.
pub(crate) struct MarkerState {
    pub x: Vector3<f64>,
    pub axes: Matrix3<f64>,
    pub v: Vector3<f64>,
    pub w: Vector3<f64>,
    pub acc: Vector3<f64>,
    pub wd: Vector3<f64>,
}

fn quat(x: &[f64], o: usize) -> Vector4<f64> {
    Vector4::new(x[o + 3], x[o + 4], x[o + 5], x[o + 6])
}

pub(crate) fn marker_state(_sys: &System, frame: &Frame, m: &MarkerFrame) -> MarkerState {
    let Some(b) = m.body else {
        return MarkerState {
            x: m.s,
            axes: m.axes,
            v: Vector3::zeros(),
            w: Vector3::zeros(),
            acc: Vector3::zeros(),
            wd: Vector3::zeros(),
        };
    };
    let o = 7 * b;
    let r = Vector3::new(frame.q[o], frame.q[o + 1], frame.q[o + 2]);
    let rd = Vector3::new(frame.u[o], frame.u[o + 1], frame.u[o + 2]);
    let rdd = Vector3::new(frame.a[o], frame.a[o + 1], frame.a[o + 2]);
    let p = quat(&frame.q, o);
    let a = rot(&p);
    let e = e_mat(&p);
    // ω = 2 E(p) ṗ; ω̇ = 2 E(p) p̈ because E(ṗ) ṗ = 0.
    let w = 2.0 * e * quat(&frame.u, o);
    let wd = 2.0 * e * quat(&frame.a, o);
    let s = a * m.s;
    MarkerState {
        x: r + s,
        axes: a * m.axes,
        v: rd + w.cross(&s),
        w,
        acc: rdd + wd.cross(&s) + w.cross(&w.cross(&s)),
        wd,
    }
}

/// Body-fixed 3-1-3 angles (ψ, θ, φ) of R = Rz(ψ) Rx(θ) Rz(φ), radians;
/// θ ∈ [0, π]. At θ = 0 or π only ψ ± φ is defined: φ is set to 0.
pub fn euler313_angles(r: &Matrix3<f64>) -> (f64, f64, f64) {
    let c = r[(2, 2)].clamp(-1.0, 1.0);
    let s = (r[(0, 2)].powi(2) + r[(1, 2)].powi(2)).sqrt();
    if s > 1e-12 {
        let theta = s.atan2(c);
        let psi = r[(0, 2)].atan2(-r[(1, 2)]);
        let phi = r[(2, 0)].atan2(r[(2, 1)]);
        (psi, theta, phi)
    } else if c > 0.0 {
        (r[(1, 0)].atan2(r[(0, 0)]), 0.0, 0.0)
    } else {
        // Rz(ψ) Rx(π) Rz(φ) with φ = 0: columns x = (cψ, sψ, 0).
        (r[(1, 0)].atan2(r[(0, 0)]), std::f64::consts::PI, 0.0)
    }
}

/// Which force-producing elements a wrench sums.
#[derive(Clone, Copy)]
pub(crate) enum Source {
    /// Every joint, joint primitive, motion and force element acting between
    /// markers I and J (in either order), and every GCON or COUPLER both
    /// markers belong to: the FORCE request and FX…TM. Without J: the
    /// action-only forces applied at I, and a GCON whose I marker it is.
    Between(Id, Option<Id>),
    /// One element (JOINT(…), JPRIM(…), MOTION(…), SFORCE(…)).
    Element(ElementRef),
}

/// Adds a generalized force `gen` on slot `slot` of an element's two bodies
/// to the wrench (force, torque about `x`) on body `target` (None = ground).
/// For ground, Newton's third law: minus the wrench on the other body, unless
/// the element has no reaction (`reaction = false`: action-only forces).
#[allow(clippy::too_many_arguments)]
pub(crate) fn add_generalized(
    frame: &Frame,
    bodies: [Option<usize>; 2],
    target: Option<usize>,
    reaction: bool,
    gen: &[f64; NL],
    x: &Vector3<f64>,
    f: &mut Vector3<f64>,
    n: &mut Vector3<f64>,
) {
    let (slot, sign) = match target {
        Some(_) => match bodies.iter().position(|b| *b == target) {
            Some(s) => (s, 1.0),
            None => return,
        },
        None => {
            if !reaction || !bodies.contains(&None) {
                return;
            }
            match bodies.iter().position(|b| b.is_some()) {
                Some(s) => (s, -1.0),
                None => return,
            }
        }
    };
    let Some(b) = bodies[slot] else { return };
    let o = 7 * slot;
    let fs = Vector3::new(gen[o], gen[o + 1], gen[o + 2]);
    let qp = Vector4::new(gen[o + 3], gen[o + 4], gen[o + 5], gen[o + 6]);
    let p = quat(&frame.q, 7 * b);
    let n_cm = 0.5 * e_mat(&p) * qp;
    let r = Vector3::new(frame.q[7 * b], frame.q[7 * b + 1], frame.q[7 * b + 2]);
    // Torque about x: n_cm + (r − x) × f.
    *f += sign * fs;
    *n += sign * (n_cm + (r - x).cross(&fs));
}

/// Wrench (force, torque about the marker's origin) in ground that the
/// selected elements apply to marker `at`'s part. Generalized constraint
/// force on a body = −Φ_qᵀλ (residual R = M a − Q + Φ_qᵀλ); its
/// Euler-parameter part Q_p maps to the torque about the CM by n = ½ E(p) Q_p.
pub(crate) fn wrench(
    sys: &System,
    model: &Model,
    frame: &Frame,
    at: &MarkerFrame,
    src: Source,
) -> (Vector3<f64>, Vector3<f64>) {
    let x = marker_state(sys, frame, at).x;
    let target = at.body;
    let joint_markers = |id: Id| {
        model
            .joints
            .iter()
            .find(|jt| jt.id == id)
            .map(|jt| (jt.i, Some(jt.j)))
    };
    let jprim_markers = |id: Id| {
        model
            .jprims
            .iter()
            .find(|jp| jp.id == id)
            .map(|jp| (jp.i, Some(jp.j)))
    };
    let motion_markers = |id: Id| {
        let mo = model.motions.iter().find(|m| m.id == id)?;
        match mo.target {
            MotionTarget::Joint { joint, .. } => joint_markers(joint),
            MotionTarget::Markers { i, j, .. } => Some((i, Some(j))),
        }
    };
    // Element markers (a, b) connect the pair (i, j) in either order.
    let between = |pair: Option<(Id, Option<Id>)>, i: Id, j: Option<Id>| {
        pair.is_some_and(|(a, b)| (a == i && b == j) || (Some(a) == j && b == Some(i)))
    };
    let selected = |el: ElementRef, markers: Option<(Id, Option<Id>)>| match src {
        Source::Element(e) => e == el,
        Source::Between(i, j) => between(markers, i, j),
    };
    // Constraints over a set of markers rather than a pair (a GCON: its I
    // marker and the markers its function reads, over up to four parts;
    // a COUPLER: the markers of its joints) connect I and J when both are
    // in the set. A GCON acts at its I marker, so without J the request
    // at that marker selects it. No allocation: `wrench` runs in the step
    // loop when a force function reads FX…TM (`reaction_fn.rs`).
    let in_set = |el: ElementRef, first: Option<Id>, of: &dyn Fn(Id) -> bool| match src {
        Source::Element(e) => e == el,
        Source::Between(i, None) => Some(i) == first,
        Source::Between(i, Some(j)) => i != j && of(i) && of(j),
    };
    let gcon_selected = |id: Id| {
        let Some(g) = model.gcons.iter().find(|g| g.id == id) else {
            return false;
        };
        let reads = |m: Id| {
            m == g.i
                || g.function
                    .measures()
                    .iter()
                    .any(|x| x.marker_slots().contains(&Some(m)))
        };
        in_set(ElementRef::Gcon(id), Some(g.i), &reads)
    };
    let coupler_selected = |id: Id| {
        let Some(c) = model.couplers.iter().find(|c| c.id == id) else {
            return false;
        };
        let of = |m: Id| {
            c.joints.iter().any(|&(joint, _, _)| {
                joint_markers(joint).is_some_and(|(a, b)| a == m || b == Some(m))
            })
        };
        // A COUPLER has no I marker of its own: J is required.
        in_set(ElementRef::Coupler(id), None, &of)
    };
    let mut f = Vector3::zeros();
    let mut n = Vector3::zeros();
    for (k, eq) in sys.equations.iter().enumerate() {
        // A deactivated (redundant) equation's row is λ_k = 0: it
        // carries no force.
        if frame.lambda[k] == 0.0 {
            continue;
        }
        let markers = match eq.element {
            ElementRef::Joint(id) => joint_markers(id),
            ElementRef::Jprim(id) => jprim_markers(id),
            ElementRef::Motion(id) => motion_markers(id),
            // Curve constraints act between I (IFLOAT) and their floating
            // marker(s) (PTCV(), CVCV() results: `element_results.rs`).
            ElementRef::Ptcv(id) => model
                .ptcvs
                .iter()
                .find(|p| p.id == id)
                .map(|p| (p.i, Some(p.jfloat))),
            ElementRef::Cvcv(id) => model
                .cvcvs
                .iter()
                .find(|c| c.id == id)
                .map(|c| (c.ifloat, Some(c.jfloat))),
            ElementRef::Gcon(_) | ElementRef::Coupler(_) => None,
            _ => continue,
        };
        let chosen = match eq.element {
            ElementRef::Gcon(id) => gcon_selected(id),
            ElementRef::Coupler(id) => coupler_selected(id),
            el => selected(el, markers),
        };
        if !chosen {
            continue;
        }
        // Generalized reaction −λ_k ∇Φ_k on the element's bodies; a row
        // over more than two bodies (a GCON over three or four parts, a
        // COUPLER over three) has a second piece with its own two bodies
        // (`System::extra_piece`), whose gradient adds to the first's.
        let v = sys.eval_equation(k, &frame.q, frame.t, false);
        let mut gen = [0.0; NL];
        for (l, g) in gen.iter_mut().enumerate() {
            *g = -frame.lambda[k] * v.s.grad[l];
        }
        add_generalized(frame, eq.bodies(), target, true, &gen, &x, &mut f, &mut n);
        if let Some((bodies, piece)) = sys.extra_piece::<NoHess>(k, &frame.q, frame.t) {
            for (l, g) in gen.iter_mut().enumerate() {
                *g = -frame.lambda[k] * piece.grad[l];
            }
            add_generalized(frame, bodies, target, true, &gen, &x, &mut f, &mut n);
        }
    }
    crate::friction_result::add_joint_friction(sys, frame, target, &x, &mut f, &mut n, |id| {
        selected(ElementRef::Joint(id), joint_markers(id))
    });
    let contacts_off = inactive_contacts(sys, model);
    // With the frame's user states (a force may read DIF, VARVAL or a
    // solved quantity, `reaction_fn.rs`) and the run's switches.
    let st = run_context(sys, frame, &contacts_off);
    for fe in &sys.forces {
        // Without J (omitted or 0), FX…TM and the FORCE request sum the
        // action-only forces applied at I: the Adams function reference
        // (FX, FM, …: "omit j … for action-only forces") and the REQUEST
        // statement's FORCE argument (Adams Solver FORTRAN and C++). The
        // C++ FM page's prose says "all forces acting on marker i", but
        // its own example reads FM(23) as the action-only forces; we
        // follow the majority. Action-only: SFORCE … ACTIONONLY
        // (Direction::Action*), applied at its I marker.
        let action_only_at_i = match src {
            Source::Between(i, None) => {
                fe.i.id == i
                    && matches!(
                        fe.direction,
                        Direction::ActionTranslation | Direction::ActionRotation
                    )
            }
            _ => false,
        };
        if !action_only_at_i && !selected(fe.element, Some((fe.i.id, Some(fe.j.id)))) {
            continue;
        }
        // A deactivated force element applies nothing.
        if model.inactive_forces.contains(&fe.element) {
            continue;
        }
        let reaction = matches!(
            fe.direction,
            Direction::Conjugate(_) | Direction::Vector { .. } | Direction::Elastic(_)
        );
        if !reaction && target == fe.j.body && target.is_some() {
            continue;
        }
        let q = fe.local_force_with(&frame.q, &frame.u, frame.t, &st);
        let mut gen = [0.0; NL];
        gen.copy_from_slice(q.as_slice());
        add_generalized(
            frame,
            [fe.i.body, fe.j.body],
            target,
            reaction,
            &gen,
            &x,
            &mut f,
            &mut n,
        );
    }
    (f, n)
}

/// The law context of a force evaluated for a result: the frame's
/// analysis kind and the run's deactivated CONTACTs (`off`, from
/// [`inactive_contacts`]), which a CONTACT() in the force's function
/// honours (`mbsolve_mech::contact_fn`).
fn run_context<'a>(sys: &'a System, frame: &'a Frame, off: &'a [bool]) -> StateContext<'a> {
    let mut st = sys.state_context_of(&frame.w, &frame.wp);
    st.run = RunSwitches {
        non_dynamic: frame.non_dynamic,
        contacts_off: off,
    };
    st
}

/// Contacts whose switches fit on the stack in [`ContactSwitches`].
const STACK_CONTACTS: usize = 256;

/// Per contact of `sys.contacts`: DEACTIVATEd in this run. `wrench` runs
/// in the step loop when a force function reads a solved quantity
/// (`reaction_fn.rs`), so the switches are not collected into a new Vec:
/// none when no CONTACT is deactivated (an empty slice: all on,
/// `RunSwitches::contacts_off`), else on the stack up to
/// [`STACK_CONTACTS`] contacts (a Vec beyond).
// The large variant is the point: the switches on the stack, not the heap
// (one value per `wrench` call, never stored).
#[allow(clippy::large_enum_variant)]
enum ContactSwitches {
    AllOn,
    Stack([bool; STACK_CONTACTS], usize),
    Heap(Vec<bool>),
}

impl std::ops::Deref for ContactSwitches {
    type Target = [bool];
    fn deref(&self) -> &[bool] {
        match self {
            ContactSwitches::AllOn => &[],
            ContactSwitches::Stack(a, n) => &a[..*n],
            ContactSwitches::Heap(v) => v,
        }
    }
}

fn inactive_contacts(sys: &System, model: &Model) -> ContactSwitches {
    let any_off = model
        .inactive_forces
        .iter()
        .any(|e| matches!(e, ElementRef::Contact(_)));
    let off = |c: &mbsolve_mech::contact::ContactElement| {
        model.inactive_forces.contains(&ElementRef::Contact(c.id))
    };
    let n = sys.contacts.len();
    if !any_off {
        ContactSwitches::AllOn
    } else if n <= STACK_CONTACTS {
        let mut a = [false; STACK_CONTACTS];
        for (s, c) in a.iter_mut().zip(&sys.contacts) {
            *s = off(c);
        }
        ContactSwitches::Stack(a, n)
    } else {
        ContactSwitches::Heap(sys.contacts.iter().map(off).collect())
    }
}

/// The FORCE request: the wrench that the elements acting between markers I
/// and J apply to marker I's part, about marker I's origin.
fn force_on_i(
    sys: &System,
    model: &Model,
    frame: &Frame,
    req: &Request,
) -> (Vector3<f64>, Vector3<f64>) {
    wrench(
        sys,
        model,
        frame,
        sys.marker(req.i),
        Source::Between(req.i, req.j),
    )
}

/// The six components of a request at one frame.
pub fn evaluate(sys: &System, model: &Model, frame: &Frame, req: &Request) -> [f64; 6] {
    let i = marker_state(sys, frame, sys.marker(req.i));
    let j = req.j.map(|id| marker_state(sys, frame, sys.marker(id)));
    let rm = match req.rm {
        Some(id) => marker_state(sys, frame, sys.marker(id)).axes,
        None => Matrix3::identity(),
    };
    let rel = |fi: &dyn Fn(&MarkerState) -> Vector3<f64>| match &j {
        Some(j) => fi(&i) - fi(j),
        None => fi(&i),
    };
    let (lin, ang) = match req.kind {
        RequestKind::Displacement => {
            let d = rm.transpose() * rel(&|m| m.x);
            let rj = j.as_ref().map(|j| j.axes).unwrap_or_else(Matrix3::identity);
            let (psi, theta, phi) = euler313_angles(&(rj.transpose() * i.axes));
            return [
                d[0],
                d[1],
                d[2],
                psi.to_degrees(),
                theta.to_degrees(),
                phi.to_degrees(),
            ];
        }
        RequestKind::Velocity => (rel(&|m| m.v), rel(&|m| m.w)),
        RequestKind::Acceleration => (rel(&|m| m.acc), rel(&|m| m.wd)),
        RequestKind::Force => force_on_i(sys, model, frame, req),
    };
    let (l, a) = (rm.transpose() * lin, rm.transpose() * ang);
    [l[0], l[1], l[2], a[0], a[1], a[2]]
}

enum Item {
    Standard(Request),
    Function(CompiledFunctionRequest),
}

/// The requests a run writes, compiled once, in id order.
pub struct Outputs {
    /// Column headers after `time`: `request_<id>.<component>`.
    pub header: Vec<String>,
    items: Vec<Item>,
    /// The function-request components reading DELAY or INCANG, (item,
    /// component): evaluated at every accepted step too
    /// ([`Outputs::record_step`]).
    delayed: Vec<(usize, usize)>,
}

impl Outputs {
    pub fn new(model: &Model) -> Result<Outputs, String> {
        let mut items: Vec<(Id, Item)> = model
            .requests
            .iter()
            .map(|r| (r.id, Item::Standard(r.clone())))
            .collect();
        let variables = compile_variables(&model.variables)?;
        for f in &model.function_requests {
            items.push((
                f.id,
                Item::Function(
                    CompiledFunctionRequest::new(f, &variables)?
                        .bind_splines(&model.splines)?
                        .bind_curves(model)?
                        .bind_sensor_values(&model.sensor_values),
                ),
            ));
        }
        items.sort_by_key(|(id, _)| *id);
        // Adams/Controls plant inputs and outputs after the requests: one
        // column per VARIABLE, `pinput_<id>.VARVAL(<v>)` /
        // `poutput_<id>.VARVAL(<v>)`, eight to a compiled request.
        for (kind, ios) in [
            ("pinput", &model.plant_inputs),
            ("poutput", &model.plant_outputs),
        ] {
            for io in ios {
                for chunk in io.variables.chunks(8) {
                    let mut f = FunctionRequest {
                        id: io.id,
                        components: Default::default(),
                        comment: String::new(),
                        results_name: Some(format!("{kind}_{}", io.id)),
                        cnames: Default::default(),
                        clabels: Default::default(),
                    };
                    for (k, v) in chunk.iter().enumerate() {
                        f.components[k] = Some(format!("VARVAL({v})"));
                        f.cnames[k] = Some(format!("VARVAL({v})"));
                    }
                    items.push((
                        io.id,
                        Item::Function(CompiledFunctionRequest::new(&f, &variables)?),
                    ));
                }
            }
        }
        let mut header = Vec::new();
        for (_, it) in &items {
            match it {
                Item::Standard(r) => {
                    for c in component_names(r.kind) {
                        header.push(format!("request_{}.{c}", r.id));
                    }
                }
                Item::Function(f) => header.extend(f.column_names()),
            }
        }
        let items: Vec<Item> = items.into_iter().map(|(_, it)| it).collect();
        let mut delayed = Vec::new();
        for (i, it) in items.iter().enumerate() {
            if let Item::Function(f) = it {
                let reads = f.components.iter().enumerate();
                delayed.extend(
                    reads
                        .filter(|(_, (_, e))| e.keeps_history())
                        .map(|(c, _)| (i, c)),
                );
            }
        }
        Ok(Outputs {
            header,
            items,
            delayed,
        })
    }

    /// Whether a request reads DELAY or INCANG, whose histories want every
    /// accepted integration step ([`Outputs::record_step`]).
    pub fn records_steps(&self) -> bool {
        !self.delayed.is_empty()
    }

    /// The requests reading DELAY or INCANG evaluated at an accepted
    /// step's `frame` (not an output): each records its sample in its
    /// history (INCANG: the turn it has reached, `expr/src/incang.rs`),
    /// as a DELAY in a state's equation records every evaluation, so the
    /// delayed value at an output interpolates the solution's steps rather
    /// than the outputs (Adams: "the value of an expression at a delayed
    /// time", a buffer the solver manages). The values are discarded; an
    /// evaluation error is left to the output frame, which reports it.
    pub fn record_step(&self, sys: &System, model: &Model, frame: &Frame, initial_q: &[f64]) {
        let ctx = FrameContext {
            sys,
            model,
            frame,
            initial_q,
        };
        for &(i, c) in &self.delayed {
            if let Item::Function(f) = &self.items[i] {
                let _ = f.components[c].1.eval_in(&ctx);
            }
        }
    }

    /// Time then every request's components on one frame; `initial_q` is
    /// `sys.initial_state().0` (ORIENT's sign convention).
    pub fn row(
        &self,
        sys: &System,
        model: &Model,
        frame: &Frame,
        initial_q: &[f64],
    ) -> Result<Vec<f64>, String> {
        let mut row = Vec::with_capacity(self.header.len() + 1);
        row.push(frame.t);
        // MODE reads the analysis that emitted the frame (the same number
        // while the run writes it; the frame's own when evaluated after).
        model.sensor_values.set_mode(frame.mode);
        let ctx = FrameContext {
            sys,
            model,
            frame,
            initial_q,
        };
        for it in &self.items {
            match it {
                Item::Standard(r) => row.extend_from_slice(&evaluate(sys, model, frame, r)),
                Item::Function(f) => f.evaluate(&ctx, &mut row)?,
            }
        }
        Ok(row)
    }

    /// The function requests with SENVAL and MODE reading `model`'s run
    /// values: a `Simulation` gives its copy of the model its own
    /// (`Model::bind_sensor_values`), so requests compiled from the model
    /// as read must be pointed at the running one's.
    pub fn bind_run(mut self, model: &Model) -> Outputs {
        self.items = self
            .items
            .into_iter()
            .map(|it| match it {
                Item::Function(f) => Item::Function(f.bind_sensor_values(&model.sensor_values)),
                other => other,
            })
            .collect();
        self
    }

    /// One row per frame; stops at the first frame a function cannot be
    /// evaluated on and returns the rows before it with the error. After
    /// the run, a DELAY's history holds these frames only (a sink records
    /// every accepted step: [`Outputs::record_step`]).
    pub fn table(
        &self,
        sys: &System,
        model: &Model,
        frames: &[Frame],
    ) -> (Vec<Vec<f64>>, Option<String>) {
        let mut rows = Vec::with_capacity(frames.len());
        let initial_q = sys.initial_state().0;
        for fr in frames {
            match self.row(sys, model, fr, &initial_q) {
                Ok(r) => rows.push(r),
                Err(e) => return (rows, Some(e)),
            }
        }
        (rows, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mbsolve_model::euler313;

    #[test]
    fn euler313_round_trip() {
        for &(psi, theta, phi) in &[
            (0.3, 0.7, -1.2),
            (-2.5, 2.9, 3.0),
            (1.0, 0.0, 0.0),
            (0.4, std::f64::consts::PI, 0.0),
        ] {
            let r = euler313(psi, theta, phi);
            let (a, b, c) = euler313_angles(&r);
            let r2 = euler313(a, b, c);
            assert!((r - r2).abs().max() < 1e-12, "{psi} {theta} {phi}");
            assert!((b - theta).abs() < 1e-12);
        }
    }
}
