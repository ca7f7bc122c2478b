//! Force and user-state functions that read accelerations (ACCX…WDTZ),
//! constraint reactions (JOINT, JPRIM, MOTION) or applied forces (SFORCE,
//! SPDP, BUSH, FIELD, BEAM, FX…TM): the solver half of mbsolve-mech
//! `reaction_fn.rs`. Each such quantity is an algebraic unknown z_k of the
//! system with the row z_k − g_k(t, q, u, u̇, λ, w) = 0, as Adams makes
//! every force an algebraic unknown of its DAE. g_k is the function
//! request's own evaluation ([`FrameContext::measure`]) on a frame filled
//! from the iterate, so whatever the requests evaluate works here too.
//!
//! Jacobian: the rows' entries by central differences over the few
//! columns each quantity depends on (the coordinates, velocities and — for
//! accelerations — u̇ of the bodies its markers or element lie on, the
//! multipliers of the equations on those bodies, and the user states the
//! forces it sums read: [`call_states`]), chosen once; the frame is a kept buffer, so nothing allocates in the
//! step loop. The forces reading z_k get their columns exactly from the
//! user-state seed (mech `states.rs`).

use crate::analysis::Frame;
use crate::functions::FrameContext;
use crate::linear::Kkt;
use mbsolve_expr::{solved_call, EvalContext, MeasureCall, MeasureKind};
use mbsolve_mech::reaction_fn::{SolvedColumns, SolvedEval, SolvedPoint};
use mbsolve_mech::{MechData, Sink, System};
use mbsolve_model::{ElementRef, Model, MotionTarget};
use std::sync::{Arc, Mutex};

/// Which block of the iterate a column of a solved row lies in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Block {
    Q,
    U,
    A,
    Lam,
    W,
    Wp,
}

/// One column some solved quantities depend on, and which.
#[derive(Clone, Debug)]
struct Column {
    block: Block,
    index: usize,
    calls: Vec<usize>,
}

/// The evaluator the mechanics calls (`MechData::solved`).
#[derive(Debug)]
pub(crate) struct Evaluator {
    calls: Vec<MeasureCall>,
    model: Model,
    initial_q: Vec<f64>,
    columns: Vec<Column>,
    scratch: Mutex<Scratch>,
}

#[derive(Debug)]
struct Scratch {
    frame: Frame,
    plus: Vec<f64>,
    minus: Vec<f64>,
}

/// The bodies a solved quantity reads: its markers', or its element's and
/// its result marker's. None when a referenced element or marker does not
/// exist (the first evaluation names it).
fn call_bodies(sys: &System, model: &Model, c: &MeasureCall) -> Option<Vec<usize>> {
    use MeasureKind as K;
    let marker_body = |id: u32| sys.markers.iter().find(|m| m.id == id).map(|m| m.body);
    let mut markers: Vec<u32> = Vec::new();
    let mut extra: Vec<usize> = Vec::new();
    let id = c.args.first().copied().unwrap_or(0);
    match c.kind {
        K::Joint => {
            let jt = model.joints.iter().find(|x| x.id == id)?;
            markers.extend([jt.i, jt.j]);
        }
        K::Jprim => {
            let jp = model.jprims.iter().find(|x| x.id == id)?;
            markers.extend([jp.i, jp.j]);
        }
        K::Motion => {
            let mo = model.motions.iter().find(|x| x.id == id)?;
            match mo.target {
                MotionTarget::Markers { i, j, .. } => markers.extend([i, j]),
                MotionTarget::Joint { joint, .. } => {
                    let jt = model.joints.iter().find(|x| x.id == joint)?;
                    markers.extend([jt.i, jt.j]);
                }
            }
        }
        K::Sforce | K::Spdp | K::Bush | K::Field | K::Beam => {
            let element = match c.kind {
                K::Spdp => ElementRef::Springdamper(id),
                K::Bush => ElementRef::Bushing(id),
                K::Field => ElementRef::Field(id),
                K::Beam => ElementRef::Beam(id),
                _ => ElementRef::Force(id),
            };
            let f = sys.forces.iter().find(|f| f.element == element)?;
            extra.extend(f.i.body);
            extra.extend(f.j.body);
        }
        // Element results whose bodies are not looked up here (vector and
        // general forces, curve constraints, joint friction): every body,
        // which is exact and only widens the difference columns.
        K::Gforce | K::Vforce | K::Vtorq | K::Ptcv | K::Cvcv | K::Friction => return None,
        _ => {}
    }
    // Marker arguments: all four for the marker measures, the result
    // frame (fourth) for the element results.
    let marker_args: &[usize] = match c.kind {
        K::Joint | K::Jprim | K::Motion | K::Sforce | K::Spdp | K::Bush | K::Field | K::Beam => {
            &[3]
        }
        _ => &[0, 1, 2, 3],
    };
    markers.extend(marker_args.iter().filter_map(|&n| c.arg(n)));
    let mut bodies = extra;
    for m in markers {
        bodies.extend(marker_body(m)?);
    }
    bodies.sort_unstable();
    bodies.dedup();
    Some(bodies)
}

/// The user states a (non-acceleration) solved quantity may read, sorted
/// and unique: those the laws of the force elements its evaluation sums
/// read (the columns the force rows' own state Jacobian uses,
/// `System::force_state_reads`), and the FRICTION stiction deformations
/// where joint friction is summed. Acceleration kinds read none. None: all
/// of them (a kind not listed here).
fn call_states(sys: &System, c: &MeasureCall) -> Option<Vec<usize>> {
    use MeasureKind as K;
    let id = c.args.first().copied().unwrap_or(0);
    let element = match c.kind {
        K::Sforce => Some(ElementRef::Force(id)),
        K::Spdp => Some(ElementRef::Springdamper(id)),
        K::Bush => Some(ElementRef::Bushing(id)),
        K::Field => Some(ElementRef::Field(id)),
        K::Beam => Some(ElementRef::Beam(id)),
        K::Gforce => Some(ElementRef::Gforce(id)),
        K::Vforce => Some(ElementRef::Vforce(id)),
        K::Vtorq => Some(ElementRef::Vtorque(id)),
        _ => None,
    };
    // Which force elements (indices of `sys.forces`) the value sums, and
    // whether joint friction is among its terms.
    let (forces, friction): (Vec<usize>, bool) = match c.kind {
        _ if element.is_some() => {
            let e = element?;
            let forces = sys.forces.iter().enumerate();
            (
                forces
                    .filter(|(_, f)| f.element == e)
                    .map(|(k, _)| k)
                    .collect(),
                false,
            )
        }
        // The forces between markers I and J (`requests::wrench`): each
        // has I as one of its markers.
        K::Fx | K::Fy | K::Fz | K::Fm | K::Tx | K::Ty | K::Tz | K::Tm => {
            let i = c.arg(0)?;
            let forces = sys.forces.iter().enumerate();
            let at_i = forces.filter(|(_, f)| f.i.id == i || f.j.id == i);
            (at_i.map(|(k, _)| k).collect(), true)
        }
        K::Joint | K::Jprim | K::Motion | K::Ptcv | K::Cvcv | K::Friction => (Vec::new(), true),
        K::Accx | K::Accy | K::Accz | K::Wdtx | K::Wdty | K::Wdtz => (Vec::new(), false),
        _ => return None,
    };
    let mut states: Vec<usize> = forces
        .iter()
        .flat_map(|&k| sys.force_state_reads(k).iter().copied())
        .collect();
    if friction {
        let eqs = sys.states.equations.iter().enumerate();
        states.extend(eqs.filter(|(_, e)| e.stiction).map(|(j, _)| j));
    }
    states.sort_unstable();
    states.dedup();
    Some(states)
}

/// The columns the quantities depend on (each listing its quantities).
fn columns(sys: &System, model: &Model, calls: &[MeasureCall]) -> Vec<Column> {
    use MeasureKind as K;
    let (nq, m, nw) = (sys.nq(), sys.neq(), sys.nw());
    // Per block, per index: the calls reading it.
    let mut reads: Vec<(Block, Vec<Vec<usize>>)> = vec![
        (Block::Q, vec![Vec::new(); nq]),
        (Block::U, vec![Vec::new(); nq]),
        (Block::A, vec![Vec::new(); nq]),
        (Block::Lam, vec![Vec::new(); m]),
        (Block::W, vec![Vec::new(); nw]),
        (Block::Wp, vec![Vec::new(); nw]),
    ];
    for (k, c) in calls.iter().enumerate() {
        // An unknown element or marker: every body (its evaluation fails
        // and names it anyway).
        let bodies = call_bodies(sys, model, c).unwrap_or_else(|| (0..sys.nb()).collect());
        let accel = matches!(
            c.kind,
            K::Accx | K::Accy | K::Accz | K::Wdtx | K::Wdty | K::Wdtz
        );
        for &b in &bodies {
            for i in 7 * b..(7 * b + 7).min(nq) {
                reads[0].1[i].push(k);
                reads[1].1[i].push(k);
                if accel {
                    reads[2].1[i].push(k);
                }
            }
        }
        // Reactions and net forces read the multipliers of the equations
        // on these bodies, and the user states of the forces they sum.
        if !accel {
            for (e, eq) in sys.equations.iter().enumerate() {
                // A COUPLER row may reach two more bodies (its extra piece).
                let extra = eq.extra_bodies().unwrap_or([None, None]);
                if eq
                    .bodies()
                    .iter()
                    .chain(extra.iter())
                    .flatten()
                    .any(|b| bodies.contains(b))
                {
                    reads[3].1[e].push(k);
                }
            }
            let states = call_states(sys, c).unwrap_or_else(|| (0..nw).collect());
            for j in states {
                reads[4].1[j].push(k);
                reads[5].1[j].push(k);
            }
        }
    }
    let mut out = Vec::new();
    for (block, per) in reads {
        for (index, calls) in per.into_iter().enumerate() {
            if !calls.is_empty() {
                out.push(Column {
                    block,
                    index,
                    calls,
                });
            }
        }
    }
    out
}

/// The evaluator of `sys`'s solved quantities; None without any. Err names
/// a quantity that cannot be evaluated (an element or marker that does
/// not exist, a component out of range).
pub(crate) fn evaluator(
    sys: &System,
    model: &Model,
) -> Result<Option<Arc<dyn SolvedEval>>, String> {
    if sys.n_solved() == 0 {
        return Ok(None);
    }
    let calls: Vec<MeasureCall> = sys
        .states
        .solved
        .iter()
        .map(|m| solved_call(m).expect("a solved measure names a known function"))
        .collect();
    let (q, u) = sys.initial_state();
    let (n, m, nw) = (sys.nq(), sys.neq(), sys.nw());
    let frame = Frame {
        t: 0.0,
        q: q.clone(),
        u,
        a: vec![0.0; n],
        lambda: vec![0.0; m],
        w: vec![0.0; nw],
        wp: vec![0.0; nw],
        non_dynamic: false,
        // MODE is read from the run's cell (`analysis_mode.rs`), not from
        // this working frame.
        mode: 0.0,
    };
    let ctx = FrameContext {
        sys,
        model,
        frame: &frame,
        initial_q: &q,
    };
    for c in &calls {
        if let Err(e) = ctx.measure(c) {
            return Err(format!("{c} in a force or state function: {}", e.message));
        }
    }
    let columns = columns(sys, model, &calls);
    let ns = calls.len();
    Ok(Some(Arc::new(Evaluator {
        calls,
        model: model.clone(),
        initial_q: q,
        columns,
        scratch: Mutex::new(Scratch {
            frame,
            plus: vec![0.0; ns],
            minus: vec![0.0; ns],
        }),
    })))
}

fn fill_frame(frame: &mut Frame, p: &SolvedPoint) {
    frame.t = p.t;
    crate::output::fill(&mut frame.q, p.q);
    crate::output::fill(&mut frame.u, p.u);
    crate::output::fill(&mut frame.a, p.a);
    crate::output::fill(&mut frame.lambda, p.lam);
    crate::output::fill(&mut frame.w, p.w);
    crate::output::fill(&mut frame.wp, p.wp);
    frame.non_dynamic = p.non_dynamic;
}

impl Evaluator {
    fn eval(&self, sys: &System, frame: &Frame, k: usize) -> f64 {
        let ctx = FrameContext {
            sys,
            model: &self.model,
            frame,
            initial_q: &self.initial_q,
        };
        ctx.measure(&self.calls[k]).unwrap_or(f64::NAN)
    }
}

fn entry(frame: &mut Frame, block: Block, i: usize) -> &mut f64 {
    match block {
        Block::Q => &mut frame.q[i],
        Block::U => &mut frame.u[i],
        Block::A => &mut frame.a[i],
        Block::Lam => &mut frame.lambda[i],
        Block::W => &mut frame.w[i],
        Block::Wp => &mut frame.wp[i],
    }
}

impl SolvedEval for Evaluator {
    fn values(&self, sys: &System, p: &SolvedPoint, out: &mut [f64]) {
        let mut s = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        fill_frame(&mut s.frame, p);
        for (k, o) in out.iter_mut().enumerate().take(self.calls.len()) {
            *o = self.eval(sys, &s.frame, k);
        }
    }

    fn jacobian(&self, sys: &System, p: &SolvedPoint, cols: &SolvedColumns, sink: &mut dyn Sink) {
        let at = sys.solved_at();
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        fill_frame(&mut s.frame, p);
        for k in 0..self.calls.len() {
            sink.add(cols.row0 + at + k, cols.col_w + at + k, 1.0);
        }
        for col in &self.columns {
            let (target, weight) = match col.block {
                Block::Q => (cols.col_q, 1.0),
                Block::U => (cols.col_u, cols.cu),
                Block::A => (cols.col_a, cols.ca),
                Block::Lam => (cols.col_lam, cols.clam),
                Block::W => (Some(cols.col_w), 1.0),
                Block::Wp => (Some(cols.col_w), cols.cw),
            };
            let Some(c0) = target else { continue };
            // Central differences, step relative to the entry's size.
            let x = *entry(&mut s.frame, col.block, col.index);
            let h = 1e-6 * (1.0 + x.abs());
            *entry(&mut s.frame, col.block, col.index) = x + h;
            for (n, &k) in col.calls.iter().enumerate() {
                s.plus[n] = self.eval(sys, &s.frame, k);
            }
            *entry(&mut s.frame, col.block, col.index) = x - h;
            for (n, &k) in col.calls.iter().enumerate() {
                s.minus[n] = self.eval(sys, &s.frame, k);
            }
            *entry(&mut s.frame, col.block, col.index) = x;
            for (n, &k) in col.calls.iter().enumerate() {
                let d = (s.plus[n] - s.minus[n]) / (2.0 * h);
                sink.add(cols.row0 + at + k, c0 + col.index, -weight * d);
            }
        }
    }
}

/// The point of a first-order formulation's iterate: u̇ and λ as given,
/// the user states as loaded into `data`.
pub(crate) fn point<'a>(
    data: &'a MechData,
    t: f64,
    q: &'a [f64],
    u: &'a [f64],
    a: &'a [f64],
    lam: &'a [f64],
) -> SolvedPoint<'a> {
    SolvedPoint {
        t,
        q,
        u,
        a,
        lam,
        w: &data.states.w,
        wp: &data.states.wp,
        non_dynamic: data.non_dynamic,
    }
}

/// The columns of a first-order formulation y = (q, u, …) with the user
/// states (and their rows) at `at`, u̇ = y' of column `col_a` and λ of
/// `col_lam` (`lam_rate`: λ is y' of that column, as in SI2 and SI1, or y
/// itself, as in I3): ∂/∂y + c ∂/∂y'.
pub(crate) fn first_order_columns(
    at: usize,
    n: usize,
    col_a: usize,
    (col_lam, lam_rate): (usize, bool),
    c: f64,
) -> SolvedColumns {
    SolvedColumns {
        row0: at,
        col_q: Some(0),
        col_u: Some(n),
        cu: 1.0,
        col_a: Some(col_a),
        ca: c,
        col_lam: Some(col_lam),
        clam: if lam_rate { c } else { 1.0 },
        col_w: at,
        cw: c,
    }
}

/// The solved rows of a static solution (unknowns q, then λ at n, then the
/// user states at `at`): u = 0 and u̇ = 0 (`zeros`), so accelerations read
/// 0 and reactions are the static ones.
#[allow(clippy::too_many_arguments)]
pub(crate) fn static_residual(
    sys: &System,
    data: &MechData,
    q: &[f64],
    lam: &[f64],
    t: f64,
    at: usize,
    zeros: &[f64],
    res: &mut [f64],
) {
    if sys.n_solved() == 0 {
        return;
    }
    let p = point(data, t, q, zeros, zeros, lam);
    sys.solved_residual(data, &p, &mut res[at..at + sys.nw()]);
}

/// The solved rows' static Jacobian entries (∂/∂q, ∂/∂λ, ∂/∂w), the
/// layout of [`static_residual`] with λ at `n` and the states at n + m.
pub(crate) fn static_jacobian(
    sys: &System,
    data: &MechData,
    (q, lam, zeros): (&[f64], &[f64], &[f64]),
    t: f64,
    n: usize,
    sink: &mut dyn Sink,
) {
    if sys.n_solved() == 0 {
        return;
    }
    let at = n + sys.neq();
    let p = point(data, t, q, zeros, zeros, lam);
    let cols = SolvedColumns {
        row0: at,
        col_q: Some(0),
        col_u: None,
        cu: 0.0,
        col_a: None,
        ca: 0.0,
        col_lam: Some(n),
        clam: 1.0,
        col_w: at,
        cw: 0.0,
    };
    sys.solved_jacobian(data, &p, &cols, sink);
}

/// The columns of the second-order (HHT/NEWMARK) problem, whose unknowns
/// are a (columns 0..n; q, u and the true acceleration follow it by cq,
/// cu and ca), λ at n and the user states at `at`. The state rows' sink
/// scales the columns below n by cq, so cu and ca are given relative to it.
pub(crate) fn second_order_columns(
    at: usize,
    n: usize,
    (cq, cu, ca): (f64, f64, f64),
    cw: f64,
) -> SolvedColumns {
    SolvedColumns {
        row0: at,
        col_q: Some(0),
        col_u: Some(0),
        cu: cu / cq,
        col_a: Some(0),
        ca: ca / cq,
        col_lam: Some(n),
        clam: 1.0,
        col_w: at,
        cw,
    }
}

/// Newton iterations at most for consistent solved quantities.
const MAX_ITERATIONS: usize = 30;

/// The kept buffers of [`solve_loop`]: residuals over all user states (the
/// solved rows are the last `ns`), z, the ns × ns Jacobian (row-major) and
/// its pivots. Sized once per system, so the ODE form's per-evaluation
/// Newton on z allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct LoopScratch {
    r: Vec<f64>,
    rp: Vec<f64>,
    z: Vec<f64>,
    jac: Vec<f64>,
}

impl LoopScratch {
    pub(crate) fn new(sys: &System) -> LoopScratch {
        let (nw, ns) = (sys.nw(), sys.n_solved());
        LoopScratch {
            r: vec![0.0; nw],
            rp: vec![0.0; nw],
            z: vec![0.0; ns],
            jac: vec![0.0; ns * ns],
        }
    }
}

/// Newton on the solved quantities z (the last user states in
/// `data.states.w`) for r(z) = z − g(z) = 0, where `resid` evaluates r at
/// the z in `data` (re-solving whatever depends on z) into its slice (all
/// user-state rows; the solved ones are read); the Jacobian of r by
/// forward differences, one `resid` per quantity. `fail` makes the
/// caller's error of a message. Nothing allocates but the messages.
fn solve_loop<E>(
    sys: &System,
    data: &mut MechData,
    t: f64,
    scratch: &mut LoopScratch,
    mut resid: impl FnMut(&mut MechData, &mut [f64]) -> Result<(), E>,
    fail: impl Fn(String) -> E,
) -> Result<(), E> {
    let (at, ns) = (sys.solved_at(), sys.n_solved());
    let names = || -> String {
        let names: Vec<String> = (0..ns).map(|k| sys.state_name(at + k)).collect();
        names.join(", ")
    };
    let LoopScratch { r, rp, z, jac } = scratch;
    for _ in 0..MAX_ITERATIONS {
        resid(data, r)?;
        z.copy_from_slice(&data.states.w[at..at + ns]);
        let scale = z.iter().fold(1.0f64, |s, v| s.max(v.abs()));
        let r = &mut r[at..at + ns];
        if r.iter().all(|v| v.abs() <= 1e-12 * scale) {
            return Ok(());
        }
        for j in 0..ns {
            let h = 1e-7 * (1.0 + z[j].abs());
            data.states.w[at + j] = z[j] + h;
            resid(data, rp)?;
            data.states.w[at + j] = z[j];
            for i in 0..ns {
                jac[i * ns + j] = (rp[at + i] - r[i]) / h;
            }
        }
        let det_scale = jac.iter().fold(0.0f64, |s, v| s.max(v.abs()));
        // r becomes the Newton step dz.
        match mbsolve_mech::dense::solve_in_place(jac, r, ns) {
            Some(det) if det.abs() > 1e-10 * det_scale.powi(ns as i32) => {}
            _ => {
                return Err(fail(format!(
                    "the functions reading {} form an algebraic loop with no unique solution at t = {t} (the loop's equation z = g(z) is singular: a force that reads itself with gain 1?)",
                    names()
                )))
            }
        }
        for k in 0..ns {
            data.states.w[at + k] = z[k] - r[k];
        }
    }
    Err(fail(format!(
        "the functions reading {} did not converge to consistent values at t = {t}",
        names()
    )))
}

/// r = z − g at `p` into `r` (the solved rows only are written).
fn loop_residual(sys: &System, data: &MechData, p: &SolvedPoint, r: &mut [f64]) {
    sys.solved_residual(data, p, r);
}

/// (a, λ), or the singular unknown of the saddle-point solve.
type AccelerationsOrRow = Result<(Vec<f64>, Vec<f64>), usize>;

/// Why consistent accelerations could not be had.
enum IcFailure {
    Singular(usize),
    Message(String),
}

/// Consistent accelerations and multipliers (`friction_ic::accelerations`)
/// when functions read solved quantities: z = g(q, u, a(z), λ(z), w) by
/// Newton on z with a finite-difference Jacobian (one saddle-point solve
/// per quantity), the user-state outputs kept consistent on the way.
/// Err(message) names the quantities whose loop has no unique solution;
/// Ok(Err(row)) a singular unknown of the saddle-point solve.
#[allow(clippy::too_many_arguments)]
pub(crate) fn accelerations(
    kkt: &mut Kkt,
    sys: &System,
    data: &mut MechData,
    q: &[f64],
    u: &[f64],
    t: f64,
    gamma: &[f64],
) -> Result<AccelerationsOrRow, String> {
    if sys.n_solved() == 0 || data.solved.is_none() {
        return Ok(crate::friction_ic::accelerations(
            kkt, sys, data, q, u, t, gamma,
        ));
    }
    let mut last = (Vec::new(), Vec::new());
    let resid = |data: &mut MechData, r: &mut [f64]| -> Result<(), IcFailure> {
        sys.solve_state_rates(data, q, u, t)
            .map_err(IcFailure::Message)?;
        let (a, lam) = crate::friction_ic::accelerations(kkt, sys, data, q, u, t, gamma)
            .map_err(IcFailure::Singular)?;
        loop_residual(sys, data, &point(data, t, q, u, &a, &lam), r);
        last = (a, lam);
        Ok(())
    };
    // Start-up only: its buffers are its own.
    let mut scratch = LoopScratch::new(sys);
    match solve_loop(sys, data, t, &mut scratch, resid, IcFailure::Message) {
        Ok(()) => Ok(Ok(last)),
        Err(IcFailure::Singular(row)) => Ok(Err(row)),
        Err(IcFailure::Message(m)) => Err(m),
    }
}

/// The ODE form (coordinate partitioning): after (a, λ) are solved at the
/// current z, z is made consistent by [`solve_loop`]; `resolve` re-solves
/// (a, λ) for the z in `data` (the factored augmented matrix does not
/// depend on z, only its right-hand side). `scratch`: the problem's kept
/// buffers ([`LoopScratch::new`] of `sys`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn ode_consistent<E>(
    sys: &System,
    data: &mut MechData,
    scratch: &mut LoopScratch,
    q: &[f64],
    u: &[f64],
    t: f64,
    a: &mut [f64],
    lam: &mut [f64],
    mut resolve: impl FnMut(&mut MechData, &mut [f64], &mut [f64]) -> Result<(), E>,
    fail: impl Fn(String) -> E,
) -> Result<(), E> {
    if sys.n_solved() == 0 || data.solved.is_none() {
        return Ok(());
    }
    let mut first = true;
    let resid = |data: &mut MechData, r: &mut [f64]| -> Result<(), E> {
        // The (a, λ) handed in are those at the z in `data`.
        if !first {
            resolve(data, a, lam)?;
        }
        first = false;
        loop_residual(sys, data, &point(data, t, q, u, a, lam), r);
        Ok(())
    };
    // The loop returns after an evaluation at the converged z: (a, λ) are
    // that evaluation's.
    solve_loop(sys, data, t, scratch, resid, fail)
}
