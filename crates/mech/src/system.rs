//! The mechanics as a model/data pair (like MuJoCo's mjModel/mjData and
//! Pinocchio's Model/Data): [`System`] (alias [`MechModel`]) is immutable,
//! built once from a validated `Model` and holding only what the kernel
//! needs resolved to indices (state layout, constraint equations and their
//! names, body equations, forces); [`MechData`] is per run: the active
//! constraint set, scratch slots and a per-(q, t) evaluation cache. The
//! kernel's functions take `(model, data, q, u, t)`.

use crate::constraints::EqValue;
use crate::forces::ForceElement;
use crate::local::{Grad, Hess, NoHess, Order, Pose, NL};
use crate::rotation::{g_mat, params_from_matrix, t_mat};
use mbsolve_model::{
    validate, ConstraintFunction, ElementRef, Gcon, Id, JointKind, JprimKind, MarkerMotionAxis,
    Measure, Model, ModelError, MotionDof, MotionTarget, Placement, TimeFunction,
};
use nalgebra::{Matrix3, Vector3, Vector4};
use rayon::prelude::*;
use std::sync::Arc;

/// Receives sparse matrix entries; duplicates are summed. Callers must emit
/// the same (row, col) sequence on every call so a fixed pattern can be reused.
pub trait Sink {
    fn add(&mut self, row: usize, col: usize, value: f64);
}

/// A rigid body: q = (r, p) at `7·index`, body frame at the CM with the CM
/// marker's axes, so the inertia tensor is constant in that frame.
#[derive(Clone, Debug)]
pub struct Body {
    pub part: Id,
    /// The part's mass divided by the units consistency factor (Adams
    /// UNITS: Force · UCF = Mass · Acceleration), so that mass times an
    /// acceleration in model units is a force in model units.
    pub mass: f64,
    /// The part's inertia about its CM, divided by UCF like `mass`.
    pub inertia: Matrix3<f64>,
    /// Part BCS expressed in the body frame (to map markers).
    pub bcs_in_body: Placement,
}

/// A marker resolved to its body (None = ground) and body-frame placement.
#[derive(Clone, Copy, Debug)]
pub struct MarkerFrame {
    pub id: Id,
    pub body: Option<usize>,
    pub s: Vector3<f64>,
    pub axes: Matrix3<f64>,
}

impl MarkerFrame {
    pub fn axis(&self, k: usize) -> Vector3<f64> {
        self.axes.column(k).into()
    }
}

/// A position-level measure of a general constraint, with each marker's
/// element slot (0 or 1; ground markers may take either).
#[derive(Clone, Debug)]
pub struct GeneralMeasure {
    pub kind: Measure,
    pub i: (MarkerFrame, usize),
    pub j: Option<(MarkerFrame, usize)>,
    pub k: Option<(MarkerFrame, usize)>,
}

/// One scalar constraint equation Φ_k(q, t) = 0.
#[derive(Clone, Debug)]
pub enum Primitive {
    /// f(m(q), t) = 0 over at most two bodies (GCON).
    General {
        bodies: [Option<usize>; 2],
        measures: Vec<GeneralMeasure>,
        f: Arc<dyn ConstraintFunction>,
    },
    /// A GCON whose function reads velocities: g(q, u, t) = A u + b = 0
    /// over at most two bodies, carried in its Pfaffian view (see
    /// `gcon_velocity`). `velocity[a]`: measure a is a velocity measure.
    VelocityGeneral {
        bodies: [Option<usize>; 2],
        measures: Vec<GeneralMeasure>,
        f: Arc<dyn ConstraintFunction>,
    },
    /// pᵀp − 1 = 0 (halved) for a body.
    Normalize { body: usize },
    /// (x_I − x_J)·e_axis = 0, ground axis.
    PointDiff {
        i: MarkerFrame,
        j: MarkerFrame,
        axis: usize,
    },
    /// (A_I a_I)·(A_J a_J) = 0 for marker axes a_I, a_J.
    Dot1 {
        i: MarkerFrame,
        ai: usize,
        j: MarkerFrame,
        aj: usize,
    },
    /// (A_J a_J)·(x_I − x_J) = 0.
    Dot2 {
        i: MarkerFrame,
        j: MarkerFrame,
        aj: usize,
    },
    /// a_J·(x_I − x_J) − f(t) = 0 for J's axis `axis` (z for joint motions).
    TranslationMotion {
        i: MarkerFrame,
        j: MarkerFrame,
        axis: usize,
        f: Arc<dyn TimeFunction>,
    },
    /// S cos f − C sin f = 0, i.e. sin(α − f) = 0 for the angle
    /// α = atan2(S, C), with S and C products of one I axis and one J axis
    /// (marker motions B1 and B3).
    AngleMotion {
        i: MarkerFrame,
        j: MarkerFrame,
        s: AxisProduct,
        c: AxisProduct,
        f: Arc<dyn TimeFunction>,
    },
    /// (A_I a_I)·(A_J a_J) − sin f(t) = 0 (marker motion B2).
    SineMotion {
        i: MarkerFrame,
        ai: usize,
        j: MarkerFrame,
        aj: usize,
        f: Arc<dyn TimeFunction>,
    },
    /// Rack and pinion: z_J·(x_I − x_J) + r θ − offset = 0 with θ the turn of
    /// the pinion (I) about z_I measured from the rack's z axis,
    /// θ = atan2(−y_I·z_J, x_I·z_J), continued across ±π to the branch
    /// nearest the turn the rack's travel implies, (offset − travel)/r
    /// (see `constraints::rack_pin`): no run-time state.
    RackPin {
        i: MarkerFrame,
        j: MarkerFrame,
        radius: f64,
        offset: f64,
    },
    /// x_I·(y_J cos f − x_J sin f) = 0, i.e. sin(θ − f) = 0.
    RotationMotion {
        i: MarkerFrame,
        j: MarkerFrame,
        f: Arc<dyn TimeFunction>,
    },
    /// COUPLER: joint displacements in a fixed ratio (see `coupler`).
    Coupler(Box<crate::coupler::CouplerEq>),
    /// GCON over three or four moving parts (see `gcon_multi`).
    GeneralMulti(Box<crate::gcon_multi::GconMulti>),
    /// PTCV: one of the point-on-curve equations (see `ptcv`).
    Ptcv(Box<crate::ptcv::PtcvEq>),
    /// CVCV: one of the curve-on-curve equations (see `cvcv`).
    Cvcv(Box<crate::cvcv::CvcvEq>),
}

/// sign · (A_I e_ai)·(A_J e_aj): the product of an I axis and a J axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisProduct {
    pub ai: usize,
    pub aj: usize,
    pub sign: f64,
}

#[derive(Clone, Debug)]
pub struct Equation {
    pub element: ElementRef,
    /// Adams-style equation name, e.g. "Zi.Xj".
    pub name: String,
    pub prim: Primitive,
}

impl Equation {
    /// Whether row (and column) `l` (0..14) of ∇²Φ is emitted: not for a
    /// position r (l mod 7 < 3) when Φ does not read the positions (there
    /// ∇²Φ and Φ_qt have exact-zero r rows and columns). The λ-weighted
    /// Hessians emit only these entries: a smaller fixed pattern (64
    /// instead of 196 entries for a two-body orientation equation), less
    /// assembly and less LU work. Equations affine in r (`Linear`) have
    /// zero r rows as well but keep them: dropping those too (and ∇Φ's zero
    /// r entries) changes the LU's ordering enough to flip the marginal
    /// ERROR = 1e-11 start-up runs of tests/robustness.rs and
    /// tests/models.rs, which sit at the corrector's round-off floor.
    #[inline]
    pub fn hess_row(&self, l: usize) -> bool {
        l % 7 >= 3 || self.position_dependence() != PositionDependence::None
    }

    /// How Φ depends on the bodies' positions r (structure, from the
    /// primitive's formula).
    pub fn position_dependence(&self) -> PositionDependence {
        match &self.prim {
            // Products of axes and pᵀp: no r.
            Primitive::Normalize { .. }
            | Primitive::Dot1 { .. }
            | Primitive::AngleMotion { .. }
            | Primitive::SineMotion { .. }
            | Primitive::RotationMotion { .. } => PositionDependence::None,
            // (r_I + A_I s_I − r_J − A_J s_J)·e: r with constant
            // coefficients.
            Primitive::PointDiff { .. } => PositionDependence::Linear,
            // a_J(p_J)·(x_I − x_J), GCON functions of distances: r couples
            // with p or with itself.
            Primitive::Dot2 { .. }
            | Primitive::TranslationMotion { .. }
            | Primitive::RackPin { .. }
            | Primitive::Coupler(_)
            | Primitive::Ptcv(_)
            | Primitive::Cvcv(_)
            | Primitive::General { .. }
            | Primitive::VelocityGeneral { .. }
            | Primitive::GeneralMulti(_) => PositionDependence::Full,
        }
    }

    /// A velocity-level (non-holonomic) row: a GCON whose function reads
    /// velocities (`gcon_velocity`). It constrains u, not q: position
    /// assembly leaves it out, and the formulations impose g(q, u, t) = 0
    /// in place of Φ(q, t) = 0.
    pub fn is_velocity(&self) -> bool {
        matches!(self.prim, Primitive::VelocityGeneral { .. })
    }

    /// Bodies of slot 0 and slot 1.
    pub fn bodies(&self) -> [Option<usize>; 2] {
        match &self.prim {
            Primitive::Normalize { body } => [Some(*body), None],
            Primitive::General { bodies, .. } | Primitive::VelocityGeneral { bodies, .. } => {
                *bodies
            }
            Primitive::Coupler(c) => c.bodies,
            Primitive::GeneralMulti(g) => [g.bodies[0], g.bodies[1]],
            Primitive::Ptcv(c) => c.bodies,
            Primitive::Cvcv(c) => c.bodies,
            Primitive::PointDiff { i, j, .. }
            | Primitive::Dot1 { i, j, .. }
            | Primitive::Dot2 { i, j, .. }
            | Primitive::TranslationMotion { i, j, .. }
            | Primitive::AngleMotion { i, j, .. }
            | Primitive::SineMotion { i, j, .. }
            | Primitive::RackPin { i, j, .. }
            | Primitive::RotationMotion { i, j, .. } => [i.body, j.body],
        }
    }
}

/// How a constraint equation depends on body positions r.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PositionDependence {
    /// Φ does not read r: ∇²Φ has no r rows or columns (and ∇_rΦ = 0).
    None,
    /// Φ is affine in r with constant coefficients: ∇²Φ has no r rows or
    /// columns.
    Linear,
    /// r enters non-linearly or multiplied by orientations.
    Full,
}

/// The immutable mechanics model: built once, shared read-only (it is
/// `Sync`: parallel assembly reads it from several threads). What changes
/// during a run lives in [`MechData`].
#[derive(Debug)]
pub struct System {
    pub bodies: Vec<Body>,
    pub markers: Vec<MarkerFrame>,
    pub equations: Vec<Equation>,
    pub forces: Vec<ForceElement>,
    /// Joint friction (FRICTION), loaded by the joint reactions.
    pub frictions: Vec<crate::friction::FrictionElement>,
    /// CONTACT elements (crate::contact).
    pub contacts: Vec<crate::contact::ContactElement>,
    /// User states (DIFF): their equations and what forces read of them.
    pub states: crate::states::UserStates,
    pub gravity: Vector3<f64>,
    /// Source locations of the model's elements, for [`System::describe`].
    sources: Vec<(ElementRef, String)>,
    /// Initial (q, u) from the part placements and velocities.
    q0: Vec<f64>,
    u0: Vec<f64>,
    /// The SI size of the model's length unit (1 for METER, 1e-3 for
    /// MILLIMETER): the weight of translational coordinates in the
    /// least-change projections ([`System::projection_weight`]).
    length_si: f64,
}

/// The name the model/data split gives the immutable half.
pub type MechModel = System;

/// Models with at least this many moving bodies evaluate their elements in
/// parallel (rayon) by default (issue 13's threshold): below it the
/// per-element work is small against the fork-join, and the step cost is
/// dominated by the serial sparse LU anyway (`chain_bench --serial` /
/// `--parallel` compare the two paths).
pub const PARALLEL_MIN_BODIES: usize = 200;

/// Per-run mechanics data: the active constraint set, the parallel switch,
/// scratch slots and the evaluation cache. Each formulation problem owns
/// one (a clone of the analysis's), so nothing in [`System`] mutates.
#[derive(Clone, Debug)]
pub struct MechData {
    /// false = deactivated redundant equation (Φ row replaced by λ = 0).
    pub active: Vec<bool>,
    /// Deactivated equations that are dependent only near the current
    /// configuration, a singular one (a bifurcation such as a flat
    /// parallelogram), not structurally redundant: they are released as
    /// soon as they are independent again (see the solver's redundancy
    /// watch), not when their residual drifts.
    pub singular: Vec<bool>,
    /// true = equation of an element switched off by DEACTIVATE (also
    /// inactive in `active`, but not redundant: never re-checked or
    /// watched); see `activation.rs`.
    pub off: Vec<bool>,
    /// true = force element (index into `System::forces`) switched off by
    /// DEACTIVATE: it adds nothing to the residual or the Jacobian.
    pub forces_off: Vec<bool>,
    /// true = CONTACT (index into `System::contacts`) switched off by
    /// DEACTIVATE (`activation.rs`).
    pub contacts_off: Vec<bool>,
    /// Evaluate elements in parallel (default: at least
    /// [`PARALLEL_MIN_BODIES`] bodies). Either way the results are
    /// bit-identical: elements fill their own slots, summed in a fixed order.
    pub parallel: bool,
    /// Multipliers λ of the current iterate, read by joint friction (its
    /// load is the joint's reaction); set by each formulation before it
    /// evaluates forces (empty = no reactions).
    pub multipliers: Vec<f64>,
    cache: EvalCache,
    /// Per-equation Hessian slots of the parallel constraint-force Jacobian.
    hess: Vec<Hess>,
    /// Per-body slots of the parallel body Jacobian (see `body_block`).
    blocks: Vec<BodyBlock>,
    /// The user states (DIFF) forces and DIFF functions read: set by the
    /// formulation before each evaluation.
    pub states: crate::states::StateValues,
    /// A kinematic analysis is evaluating the forces (not a dynamic one):
    /// CONTACT friction declared COULOMB_FRICTION = DYNAMICS_ONLY is left
    /// out (see `contact.rs`).
    pub non_dynamic: bool,
    /// The solver's evaluator of the quantities functions read that the
    /// system solves for (`reaction_fn.rs`); None when there are none.
    pub solved: Option<std::sync::Arc<dyn crate::reaction_fn::SolvedEval>>,
}

impl MechData {
    /// Hands the multipliers of the current iterate to joint friction.
    pub fn set_multipliers(&mut self, lam: &[f64]) {
        self.multipliers.clear();
        self.multipliers.extend_from_slice(lam);
    }
}

/// Φ, ∇Φ and the time terms of every active equation at one (q, t): a
/// residual, its Jacobian and the velocity rows at the same (q, t) share
/// one evaluation. The key is compared exactly (q == q', t == t').
impl MechData {
    /// Forget the cached evaluation: the active set changed, and entries
    /// of equations that were inactive are stale.
    pub fn invalidate_cache(&mut self) {
        self.cache.valid = false;
    }
}

#[derive(Clone, Debug, Default)]
struct EvalCache {
    valid: bool,
    t: f64,
    q: Vec<f64>,
    values: Vec<EqValue<NoHess>>,
}

/// Where [`System::constraint_jacobian_with_velocity_rows`] puts a
/// velocity-level row's ∂g/∂u.
#[derive(Clone, Copy, Debug)]
pub enum VelocityColumns<'a> {
    /// In u's own columns at `col_u` (y = (q, u, …): I3 with BDF).
    Split { u: &'a [f64], col_u: usize },
    /// Added to the q columns times `cu` (one unknown moving q and u as
    /// cq and cu: HHT's a, `cu` = γh/βh²).
    Combined { u: &'a [f64], cu: f64 },
}

/// One body's Jacobian entries: ∂/∂r̈ (3), ∂/∂(u, a) of the p rows (16)
/// and ∂/∂p (16), in emission order.
type BodyBlock = [f64; 35];

/// Global q index of local coordinate `l` (0..14) for slot bodies, if any.
pub fn global_index(bodies: &[Option<usize>; 2], l: usize) -> Option<usize> {
    bodies[l / 7].map(|b| 7 * b + l % 7)
}

pub fn pose(q: &[f64], b: usize) -> Pose {
    let o = 7 * b;
    Pose {
        r: Vector3::new(q[o], q[o + 1], q[o + 2]),
        p: Vector4::new(q[o + 3], q[o + 4], q[o + 5], q[o + 6]),
    }
}

/// Local 14-vector of a global vector for the slot bodies.
pub fn gather(bodies: &[Option<usize>; 2], x: &[f64]) -> Grad {
    let mut g = Grad::zeros();
    for l in 0..NL {
        if let Some(k) = global_index(bodies, l) {
            g[l] = x[k];
        }
    }
    g
}

impl System {
    pub fn new(model: &Model) -> Result<System, ModelError> {
        validate(model)?;
        // Force · UCF = Mass · Acceleration (Adams UNITS): the kernel's
        // inertia is mass / UCF, so m·a, gravity and every reaction are in
        // the deck's force unit (mbsolve_model::units).
        let inv_ucf = 1.0 / model.units.ucf();
        let mut bodies = Vec::new();
        let mut body_of_part = std::collections::HashMap::new();
        for p in model.parts.iter().filter(|p| !p.ground) {
            // Body frame = CM marker frame (or the BCS when no CM is given).
            let cm = match p.cm {
                Some(id) => model
                    .marker(id)
                    .map(|m| m.placement.clone())
                    .unwrap_or_default(),
                None => Placement::default(),
            };
            let rt = cm.rotation.transpose();
            let bcs_in_body = Placement::new(-rt * cm.origin, rt);
            body_of_part.insert(p.id, bodies.len());
            bodies.push(Body {
                part: p.id,
                mass: p.mass * inv_ucf,
                inertia: crate::point_mass::body_inertia(p) * inv_ucf,
                bcs_in_body,
            });
        }
        let markers: Vec<MarkerFrame> = model
            .markers
            .iter()
            .map(|m| {
                let body = body_of_part.get(&m.part).copied();
                let pl = match body {
                    Some(b) => m.placement.in_frame(&bodies[b].bcs_in_body),
                    None => m.placement.in_frame(&model.part(m.part).unwrap().placement),
                };
                MarkerFrame {
                    id: m.id,
                    body,
                    s: pl.origin,
                    axes: pl.rotation,
                }
            })
            .collect();
        let (q0, u0) = initial_state(model, &bodies);
        let mut sys = System {
            bodies,
            markers,
            equations: Vec::new(),
            forces: Vec::new(),
            frictions: Vec::new(),
            contacts: Vec::new(),
            states: Default::default(),
            gravity: model.gravity,
            sources: model.sources.clone(),
            q0,
            u0,
            length_si: model.units.si(mbsolve_model::Dimension::Length),
        };
        sys.build_equations(model)?;
        // contacts first: force functions may read CONTACT() (`contact_fn.rs`)
        sys.contacts = crate::contact::build(&sys, model)?;
        sys.forces = crate::forces::build(&sys, model)?;
        sys.frictions = crate::friction::build(&sys, model)?;
        sys.states = crate::states::build(&sys, model)?;
        crate::friction::stiction::link(&mut sys);
        Ok(sys)
    }

    /// Fresh per-run data: every equation active, parallel from
    /// [`PARALLEL_MIN_BODIES`] bodies.
    pub fn new_data(&self) -> MechData {
        MechData {
            active: vec![true; self.neq()],
            singular: vec![false; self.neq()],
            off: vec![false; self.neq()],
            forces_off: vec![false; self.forces.len()],
            contacts_off: vec![false; self.contacts.len()],
            parallel: self.nb() >= PARALLEL_MIN_BODIES,
            multipliers: Vec::new(),
            cache: EvalCache::default(),
            hess: Vec::new(),
            blocks: Vec::new(),
            states: crate::states::StateValues::zeros(self.nw()),
            non_dynamic: false,
            solved: None,
        }
    }

    /// "JOINT/2 (m.adm:12)": the element with its source location, as
    /// `Model::describe` gives it.
    pub fn describe(&self, e: ElementRef) -> String {
        match self.sources.iter().find(|(r, _)| *r == e) {
            Some((_, loc)) => format!("{e} ({loc})"),
            None => e.to_string(),
        }
    }

    pub fn marker(&self, id: Id) -> &MarkerFrame {
        self.markers
            .iter()
            .find(|m| m.id == id)
            .expect("validated marker id")
    }

    fn build_equations(&mut self, model: &Model) -> Result<(), ModelError> {
        let mut eqs = Vec::new();
        // Input configuration: the rack-and-pinion's phase is measured in it.
        let q0 = self.q0.clone();
        for b in 0..self.bodies.len() {
            eqs.push(Equation {
                element: ElementRef::Part(self.bodies[b].part),
                name: "Euler parameter normalization".into(),
                prim: Primitive::Normalize { body: b },
            });
        }
        crate::point_mass::orientation_rows(&self.bodies, &q0, &mut eqs);
        const AX: [&str; 3] = ["X", "Y", "Z"];
        for jt in &model.joints {
            let e = ElementRef::Joint(jt.id);
            let (i, j) = (*self.marker(jt.i), *self.marker(jt.j));
            let mut push = |name: String, prim: Primitive| {
                eqs.push(Equation {
                    element: e,
                    name,
                    prim,
                })
            };
            let point = |push: &mut dyn FnMut(String, Primitive)| {
                for axis in 0..3 {
                    push(
                        format!("{0}i-{0}j", AX[axis]),
                        Primitive::PointDiff { i, j, axis },
                    );
                }
            };
            let dot1 = |push: &mut dyn FnMut(String, Primitive), ai: usize, aj: usize| {
                push(
                    format!("{}i.{}j", AX[ai], AX[aj]),
                    Primitive::Dot1 { i, ai, j, aj },
                );
            };
            let dot2 = |push: &mut dyn FnMut(String, Primitive), aj: usize| {
                push(format!("{}j.(Oi-Oj)", AX[aj]), Primitive::Dot2 { i, j, aj });
            };
            match jt.kind {
                JointKind::Spherical => point(&mut push),
                JointKind::Revolute => {
                    point(&mut push);
                    dot1(&mut push, 2, 0);
                    dot1(&mut push, 2, 1);
                }
                JointKind::Universal => {
                    point(&mut push);
                    dot1(&mut push, 2, 2);
                }
                JointKind::Hooke => {
                    point(&mut push);
                    dot1(&mut push, 0, 1);
                }
                JointKind::Fixed => {
                    point(&mut push);
                    dot1(&mut push, 2, 0);
                    dot1(&mut push, 2, 1);
                    dot1(&mut push, 0, 1);
                }
                JointKind::Cylindrical => {
                    dot2(&mut push, 0);
                    dot2(&mut push, 1);
                    dot1(&mut push, 2, 0);
                    dot1(&mut push, 2, 1);
                }
                JointKind::Translational => {
                    dot2(&mut push, 0);
                    dot2(&mut push, 1);
                    dot1(&mut push, 2, 0);
                    dot1(&mut push, 2, 1);
                    dot1(&mut push, 0, 1);
                }
                JointKind::Planar => {
                    dot2(&mut push, 2);
                    dot1(&mut push, 2, 0);
                    dot1(&mut push, 2, 1);
                }
                JointKind::RackPin { pitch_diameter } => {
                    push(
                        "Zj.(Oi-Oj)+PD/2*AZ".into(),
                        self.rack_pin(model, e, i, j, 0.5 * pitch_diameter, &q0)?,
                    );
                }
            }
        }
        // Joint primitives, named like the joints' equations (seeds: JPRIM).
        for jp in &model.jprims {
            let e = ElementRef::Jprim(jp.id);
            let (i, j) = (*self.marker(jp.i), *self.marker(jp.j));
            let mut push = |name: String, prim: Primitive| {
                eqs.push(Equation {
                    element: e,
                    name,
                    prim,
                })
            };
            match jp.kind {
                JprimKind::Atpoint => {
                    for axis in 0..3 {
                        push(
                            format!("{0}i-{0}j", AX[axis]),
                            Primitive::PointDiff { i, j, axis },
                        );
                    }
                }
                JprimKind::Inline | JprimKind::Inplane => {
                    let axes: &[usize] = if jp.kind == JprimKind::Inline {
                        &[0, 1]
                    } else {
                        &[2]
                    };
                    for &aj in axes {
                        push(format!("{}j.(Oi-Oj)", AX[aj]), Primitive::Dot2 { i, j, aj });
                    }
                }
                JprimKind::Orientation | JprimKind::ParallelAxes | JprimKind::Perpendicular => {
                    let pairs: &[(usize, usize)] = match jp.kind {
                        JprimKind::Orientation => &[(2, 0), (2, 1), (0, 1)],
                        JprimKind::ParallelAxes => &[(2, 0), (2, 1)],
                        _ => &[(2, 2)],
                    };
                    for &(ai, aj) in pairs {
                        push(
                            format!("{}i.{}j", AX[ai], AX[aj]),
                            Primitive::Dot1 { i, ai, j, aj },
                        );
                    }
                }
            }
        }
        for mo in &model.motions {
            let f = mo.function.clone();
            let (name, prim) = match mo.target {
                MotionTarget::Joint { joint, dof } => {
                    let jt = model.joints.iter().find(|j| j.id == joint).unwrap();
                    let (i, j) = (*self.marker(jt.i), *self.marker(jt.j));
                    match dof {
                        MotionDof::Translation => (
                            "translation",
                            Primitive::TranslationMotion { i, j, axis: 2, f },
                        ),
                        MotionDof::Rotation => ("rotation", Primitive::RotationMotion { i, j, f }),
                    }
                }
                MotionTarget::Markers { i, j, axis } => {
                    let (i, j) = (*self.marker(i), *self.marker(j));
                    (axis.name(), marker_motion(i, j, axis, f))
                }
            };
            eqs.push(Equation {
                element: ElementRef::Motion(mo.id),
                name: name.into(),
                prim,
            });
        }
        // Velocity GCONs are built last (below): a rank decision that
        // finds a velocity row dependent on position rows deactivates the
        // later row, the velocity one, and never a position row for it.
        for g in model.gcons.iter().filter(|g| !reads_velocities(g)) {
            eqs.push(Equation {
                element: ElementRef::Gcon(g.id),
                name: "f(q,t)".into(),
                prim: self.general_primitive(model, g)?,
            });
        }
        for c in &model.couplers {
            eqs.push(Equation {
                element: ElementRef::Coupler(c.id),
                name: "coupler".into(),
                prim: crate::coupler::primitive(self, model, c, &q0)?,
            });
        }
        for g in &model.gears {
            eqs.push(Equation {
                element: ElementRef::Gear(g.id),
                name: "gear".into(),
                prim: crate::coupler::gear_primitive(self, model, g, &q0)?,
            });
        }
        for p in &model.ptcvs {
            for (prim, name) in crate::ptcv::primitives(self, model, p)?
                .into_iter()
                .zip(["(Oi-C).(a x C')", "(Oi-C).a"])
            {
                eqs.push(Equation {
                    element: ElementRef::Ptcv(p.id),
                    name: name.into(),
                    prim,
                });
            }
        }
        for c in &model.cvcvs {
            for (prim, name) in crate::cvcv::primitives(self, model, c, &q0)?
                .into_iter()
                .zip(["(Ci-Cj).n", "(Ci-Cj).zj"])
            {
                eqs.push(Equation {
                    element: ElementRef::Cvcv(c.id),
                    name: name.into(),
                    prim,
                });
            }
        }
        for g in model.gcons.iter().filter(|g| reads_velocities(g)) {
            eqs.push(Equation {
                element: ElementRef::Gcon(g.id),
                name: "f(q,u,t)".into(),
                prim: self.velocity_primitive(model, g, &q0)?,
            });
        }
        self.equations = eqs;
        Ok(())
    }

    /// The rack-and-pinion equation, with its offset making it hold in the
    /// input configuration `q0` (inferred: the seeds say the joint relates
    /// the pinion's turn to the rack's travel, not where they start).
    fn rack_pin(
        &self,
        model: &Model,
        e: ElementRef,
        i: MarkerFrame,
        j: MarkerFrame,
        radius: f64,
        q0: &[f64],
    ) -> Result<Primitive, ModelError> {
        let poses = [i.body.map(|b| pose(q0, b)), j.body.map(|b| pose(q0, b))];
        let (travel, angle) = crate::constraints::rack_pin_measures::<NoHess>(&i, &j, &poses);
        let (Some(travel), Some(angle)) = (travel, angle) else {
            return Err(ModelError {
                element: Some(e),
                location: model.describe(e),
                message: format!(
                    "RACKPIN: the rack's z axis (MARKER/{}) is parallel to the pinion's axis (z of MARKER/{}), so the pinion's turn is undefined; the pinion's x axis should lie along the rack's z axis",
                    j.id, i.id
                ),
            });
        };
        Ok(Primitive::RackPin {
            i,
            j,
            radius,
            offset: travel.val + radius * angle.val,
        })
    }

    /// A velocity GCON (`gcon_velocity`): its measures on at most two
    /// moving parts, its FUNCTION affine in the velocity measures (Adams'
    /// Pfaffian form), probed at the input configuration.
    fn velocity_primitive(
        &self,
        model: &Model,
        g: &Gcon,
        q0: &[f64],
    ) -> Result<Primitive, ModelError> {
        let e = ElementRef::Gcon(g.id);
        let refuse = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        for kind in g.function.measures() {
            if let Measure::FrameVel { .. } = kind {
                return Err(refuse(
                    "a GCON may not read VX, VY or VZ with a reference frame (the fourth argument) yet: only the velocity in ground".into(),
                ));
            }
        }
        let (bodies, measures) = self.place_measures(model, g, true)?;
        let velocity: Vec<bool> = measures
            .iter()
            .map(|m| crate::gcon_velocity::is_velocity_measure(&m.kind))
            .collect();
        let poses = [
            bodies[0].map(|b| pose(q0, b)),
            bodies[1].map(|b| pose(q0, b)),
        ];
        let m_p: Vec<f64> = measures
            .iter()
            .map(|m| {
                if crate::gcon_velocity::is_velocity_measure(&m.kind) {
                    0.0
                } else {
                    crate::constraints::general_measure::<NoHess>(m, &poses).val
                }
            })
            .collect();
        if let Some(why) =
            crate::gcon_velocity::pfaffian_violation(g.function.as_ref(), &velocity, &m_p, 0.0)
        {
            return Err(refuse(format!(
                "its FUNCTION is not in Pfaffian form (affine in the velocity measures VX VY VZ WX WY WZ), which a velocity GCON must be: {why}"
            )));
        }
        Ok(Primitive::VelocityGeneral {
            bodies,
            measures,
            f: g.function.clone(),
        })
    }

    /// The GCON's measures with their markers assigned to the (at most two)
    /// bodies they touch.
    fn general_primitive(&self, model: &Model, g: &Gcon) -> Result<Primitive, ModelError> {
        if let Some(p) = crate::gcon_multi::primitive(self, model, g)? {
            return Ok(p);
        }
        let (bodies, measures) = self.place_measures(model, g, false)?;
        Ok(Primitive::General {
            bodies,
            measures,
            f: g.function.clone(),
        })
    }

    /// The GCON's measures with each marker in the slot of its body (at
    /// most two moving bodies); `velocity`: VX VY VZ WX WY WZ may be read
    /// too (a velocity GCON).
    #[allow(clippy::type_complexity)]
    fn place_measures(
        &self,
        model: &Model,
        g: &Gcon,
        velocity: bool,
    ) -> Result<([Option<usize>; 2], Vec<GeneralMeasure>), ModelError> {
        let e = ElementRef::Gcon(g.id);
        let only = if velocity {
            "a GCON function may read only DX DY DZ DM AX AY AZ VX VY VZ WX WY WZ and TIME"
        } else {
            "a GCON function may read only DX DY DZ DM AX AY AZ and TIME"
        };
        let refuse = |message: String| ModelError {
            element: Some(e),
            location: model.describe(e),
            message,
        };
        let mut bodies: [Option<usize>; 2] = [None, None];
        let mut place = |id: Id| -> Result<(MarkerFrame, usize), ModelError> {
            let m = *self.marker(id);
            let Some(b) = m.body else { return Ok((m, 0)) };
            if let Some(s) = bodies.iter().position(|x| *x == Some(b)) {
                return Ok((m, s));
            }
            match bodies.iter().position(|x| x.is_none()) {
                Some(s) => {
                    bodies[s] = Some(b);
                    Ok((m, s))
                }
                // Over more than two parts with only the position
                // measures, `gcon_multi` builds the row: one of the others
                // is read.
                None if velocity => Err(refuse(format!(
                    "a GCON whose function reads velocities may read markers on at most two moving parts (MARKER/{id} on PART/{} is the third)",
                    self.bodies[b].part
                ))),
                None => Err(refuse(only.into())),
            }
        };
        let mut measures = Vec::new();
        for kind in g.function.measures() {
            let (i, j, k) = match *kind {
                Measure::Dm { i, j } | Measure::Angle { i, j, .. } => (i, j, None),
                Measure::Disp { i, j, k, .. } => (i, j, k),
                Measure::Vel { i, j, k, .. } | Measure::AngVel { i, j, k, .. } if velocity => {
                    (i, j, k)
                }
                _ => return Err(refuse(only.into())),
            };
            let i = place(i)?;
            let j = j.map(&mut place).transpose()?;
            let k = k.map(&mut place).transpose()?;
            measures.push(GeneralMeasure {
                kind: *kind,
                i,
                j,
                k,
            });
        }
        Ok((bodies, measures))
    }

    pub fn nb(&self) -> usize {
        self.bodies.len()
    }
    /// Number of position (= velocity) coordinates.
    pub fn nq(&self) -> usize {
        7 * self.bodies.len()
    }

    /// The weight of coordinate `i` in a least-change projection (velocities
    /// nearest the integrator's or the input's): (length unit in m)² for a
    /// translational coordinate, 1 for an Euler parameter. With it the
    /// projection measures changes in metres whatever the deck's length
    /// unit, so a MILLIMETER deck projects as its SI twin does (an
    /// unweighted one would weigh translations 10⁶ times more).
    pub fn projection_weight(&self, i: usize) -> f64 {
        if i % 7 < 3 {
            self.length_si * self.length_si
        } else {
            1.0
        }
    }
    pub fn neq(&self) -> usize {
        self.equations.len()
    }

    /// Degrees of freedom of the positions: 6 per body minus the active
    /// position-level equations (joints, motions, GCONs of positions, …);
    /// a velocity GCON does not take one (see [`System::velocity_dof`]).
    pub fn dof(&self, data: &MechData) -> i64 {
        let nb = self.nb();
        let active = (0..self.neq())
            .filter(|&k| data.active[k] && !self.equations[k].is_velocity())
            .count();
        7 * nb as i64 - active as i64
    }

    /// Degrees of freedom of the velocities: [`System::dof`] minus the
    /// active velocity-level rows (non-holonomic GCONs).
    pub fn velocity_dof(&self, data: &MechData) -> i64 {
        let rows = (0..self.neq())
            .filter(|&k| data.active[k] && self.equations[k].is_velocity())
            .count();
        self.dof(data) - rows as i64
    }

    /// Initial (q, u) from the model's part placements and velocities.
    pub fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        (self.q0.clone(), self.u0.clone())
    }

    /// Body-frame angular velocity ω' = 2 G(p) ṗ.
    pub fn body_angular_velocity(&self, q: &[f64], u: &[f64], b: usize) -> Vector3<f64> {
        let p = pose(q, b).p;
        let pd = Vector4::new(u[7 * b + 3], u[7 * b + 4], u[7 * b + 5], u[7 * b + 6]);
        2.0 * g_mat(&p) * pd
    }

    /// Body equations R = M(q) a + (velocity terms) − Q(q,u,t) + Φ_qᵀλ,
    /// written into `out` (length nq). Haug eq. 11.1.x in Euler parameters:
    /// R_p = 4GᵀJG p̈ + 8 G(ṗ)ᵀ J G(p) ṗ − Q_p + Φ_pᵀλ.
    #[allow(clippy::too_many_arguments)]
    pub fn body_residual(
        &self,
        data: &mut MechData,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: &[f64],
        t: f64,
        out: &mut [f64],
    ) {
        data.set_multipliers(lam);
        self.applied_residual(data, q, u, a, t, out);
        self.add_constraint_forces(data, q, t, lam, out);
    }

    /// One body's 7 rows of the body equations without forces and Φ_qᵀλ.
    fn inertial_rows(&self, b: usize, q: &[f64], u: &[f64], a: &[f64], out: &mut [f64]) {
        let body = &self.bodies[b];
        let g = self.gravity;
        let o = 7 * b;
        let p = pose(q, b).p;
        let pd = Vector4::new(u[o + 3], u[o + 4], u[o + 5], u[o + 6]);
        let pdd = Vector4::new(a[o + 3], a[o + 4], a[o + 5], a[o + 6]);
        for k in 0..3 {
            out[k] = body.mass * (a[o + k] - g[k]);
        }
        let gp = g_mat(&p);
        let gd = g_mat(&pd);
        let rp = 4.0 * gp.transpose() * (body.inertia * (gp * pdd))
            + 8.0 * gd.transpose() * (body.inertia * (gp * pd));
        for k in 0..4 {
            out[3 + k] = rp[k];
        }
    }

    /// The body equations without the constraint forces Φ_qᵀλ (added by
    /// [`System::constraint_terms`] in the same pass as Φ). Bodies fill
    /// their own 7 rows (in parallel when `data.parallel`); forces then add
    /// in model order, so both paths give the same bits.
    pub fn applied_residual(
        &self,
        data: &MechData,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        t: f64,
        out: &mut [f64],
    ) {
        let rows = &mut out[..self.nq()];
        if data.parallel {
            rows.par_chunks_mut(7)
                .enumerate()
                .for_each(|(b, r)| self.inertial_rows(b, q, u, a, r));
        } else {
            rows.chunks_mut(7)
                .enumerate()
                .for_each(|(b, r)| self.inertial_rows(b, q, u, a, r));
        }
        let st = self.law_context(data);
        for (k, f) in self.forces.iter().enumerate() {
            if !data.force_is_off(k) {
                f.add_residual(&st, q, u, t, out);
            }
        }
        let lam = &data.multipliers;
        let w = &data.states.w;
        let at = crate::friction::FrictionAt { q, u, lam, t, w };
        for fr in &self.frictions {
            fr.add_residual(self, &at, out);
        }
        for (k, c) in self.contacts.iter().enumerate() {
            if !data.contact_is_off(k) {
                c.add_residual(q, u, data.non_dynamic, out);
            }
        }
    }

    /// Φ, ∇Φ and the time terms of every active equation at (q, t), from
    /// `data`'s cache when it holds this (q, t), else evaluated into it (in
    /// parallel when `data.parallel`; each equation fills its own slot).
    /// Entries of deactivated equations are not evaluated (stale).
    pub fn values<'d>(&self, data: &'d mut MechData, q: &[f64], t: f64) -> &'d [EqValue<NoHess>] {
        let MechData {
            active,
            parallel,
            cache,
            ..
        } = data;
        let hit = cache.valid && cache.t == t && cache.q.as_slice() == q;
        if !hit {
            cache.valid = false;
            if cache.values.len() != self.neq() {
                cache.values = vec![zero_value(); self.neq()];
            }
            let eval = |(k, v): (usize, &mut EqValue<NoHess>)| {
                if active[k] {
                    *v = self.equation::<NoHess>(k, q, t);
                }
            };
            if *parallel {
                cache.values.par_iter_mut().enumerate().for_each(eval);
            } else {
                cache.values.iter_mut().enumerate().for_each(eval);
            }
            cache.q.clear();
            cache.q.extend_from_slice(q);
            cache.t = t;
            cache.valid = true;
        }
        &data.cache.values
    }

    /// The constraint terms of a residual from one evaluation per equation:
    /// Φ into `phi` as [`System::constraints`] gives it (0 for deactivated
    /// rows), `out += Φ_qᵀ·mult` for each `(mult, out)` of `forces` as
    /// [`System::add_constraint_forces`] adds it, and, when `velocity` =
    /// `(u, vel)` is given, vel = Φ_q u + Φ_t (0 for deactivated rows).
    pub fn constraint_terms(
        &self,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        phi: &mut [f64],
        forces: &mut [(&[f64], &mut [f64])],
        mut velocity: Option<(&[f64], &mut [f64])>,
    ) {
        self.values(data, q, t);
        let (active, values) = (&data.active, &data.cache.values);
        for k in 0..self.neq() {
            if !active[k] {
                phi[k] = 0.0;
                if let Some((_, vel)) = velocity.as_mut() {
                    vel[k] = 0.0;
                }
                continue;
            }
            let bodies = self.equations[k].bodies();
            let v = &values[k];
            phi[k] = v.s.val;
            for (mult, out) in forces.iter_mut() {
                if mult[k] == 0.0 {
                    continue;
                }
                for l in 0..NL {
                    if let Some(gi) = global_index(&bodies, l) {
                        out[gi] += v.s.grad[l] * mult[k];
                    }
                }
            }
            if let Some((u, vel)) = velocity.as_mut() {
                vel[k] = v.s.grad.dot(&gather(&bodies, u)) + v.phi_t;
            }
            if let Some((extra, x)) = self.extra_piece::<NoHess>(k, q, t) {
                for (mult, out) in forces.iter_mut() {
                    for l in 0..NL {
                        if let Some(gi) = global_index(&extra, l) {
                            out[gi] += x.grad[l] * mult[k];
                        }
                    }
                }
                if let Some((u, vel)) = velocity.as_mut() {
                    vel[k] += x.grad.dot(&gather(&extra, u));
                }
            }
        }
    }

    /// One body's Jacobian entries in emission order (see `BodyBlock`).
    #[allow(clippy::too_many_arguments)]
    fn body_block(
        &self,
        b: usize,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        cu: f64,
        ca: f64,
        with_q: bool,
        out: &mut BodyBlock,
    ) {
        let body = &self.bodies[b];
        let o = 7 * b;
        let p = pose(q, b).p;
        let pd = Vector4::new(u[o + 3], u[o + 4], u[o + 5], u[o + 6]);
        let pdd = Vector4::new(a[o + 3], a[o + 4], a[o + 5], a[o + 6]);
        let j = body.inertia;
        let gp = g_mat(&p);
        let gd = g_mat(&pd);
        // d/da and d/du blocks.
        let mpp = 4.0 * gp.transpose() * j * gp;
        let w2 = j * (gp * pd);
        let dpd = 8.0 * (t_mat(&w2) + gd.transpose() * j * gp);
        for k in 0..3 {
            out[k] = ca * body.mass;
        }
        for r in 0..4 {
            for c in 0..4 {
                out[3 + 4 * r + c] = ca * mpp[(r, c)] + cu * dpd[(r, c)];
            }
        }
        if with_q {
            // d/dp of 4 Gᵀ(p) J G(p) a + 8 G(ṗ)ᵀ J G(p) ṗ, using G(p)x = −G(x)p.
            let ga = g_mat(&pdd);
            let w1 = j * (gp * pdd);
            let dp = 4.0 * (t_mat(&w1) - gp.transpose() * j * ga) - 8.0 * gd.transpose() * j * gd;
            for r in 0..4 {
                for c in 0..4 {
                    out[19 + 4 * r + c] = dp[(r, c)];
                }
            }
        }
    }

    /// Emits a body's block at its fixed positions.
    fn emit_body_block(
        b: usize,
        block: &BodyBlock,
        sink: &mut dyn Sink,
        row0: usize,
        col_q: Option<usize>,
        col_u: usize,
    ) {
        let o = 7 * b;
        for k in 0..3 {
            sink.add(row0 + o + k, col_u + o + k, block[k]);
        }
        for r in 0..4 {
            for c in 0..4 {
                sink.add(row0 + o + 3 + r, col_u + o + 3 + c, block[3 + 4 * r + c]);
            }
        }
        if let Some(cq) = col_q {
            for r in 0..4 {
                for c in 0..4 {
                    sink.add(row0 + o + 3 + r, cq + o + 3 + c, block[19 + 4 * r + c]);
                }
            }
        }
    }

    /// Entries of ∂R/∂q (columns at `col_q`), cu·∂R/∂u + ca·∂R/∂a (columns at
    /// `col_u`), rows at `row0`. Pass cu = 0 and ca = 1 for the mass matrix.
    /// ∂(Φ_qᵀλ)/∂q is included for `lam = Some(λ)`; with None the caller
    /// emits the λ-weighted Hessians itself (SI2, from Hessians it needs
    /// anyway). With `data.parallel`, bodies and equations compute their
    /// blocks in parallel into slots of `data`; emission is serial and in
    /// the same order either way.
    #[allow(clippy::too_many_arguments)]
    pub fn body_jacobian(
        &self,
        data: &mut MechData,
        q: &[f64],
        u: &[f64],
        a: &[f64],
        lam: Option<&[f64]>,
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col_q: Option<usize>,
        col_u: usize,
        cu: f64,
        ca: f64,
    ) {
        let with_q = col_q.is_some();
        if data.parallel {
            let blocks = &mut data.blocks;
            blocks.resize(self.nb(), [0.0; 35]);
            blocks
                .par_iter_mut()
                .enumerate()
                .for_each(|(b, blk)| self.body_block(b, q, u, a, cu, ca, with_q, blk));
            for (b, blk) in blocks.iter().enumerate() {
                Self::emit_body_block(b, blk, sink, row0, col_q, col_u);
            }
        } else {
            let mut blk = [0.0; 35];
            for b in 0..self.nb() {
                self.body_block(b, q, u, a, cu, ca, with_q, &mut blk);
                Self::emit_body_block(b, &blk, sink, row0, col_q, col_u);
            }
        }
        let st = self.law_context(data);
        for (k, f) in self.forces.iter().enumerate() {
            if data.force_is_off(k) {
                // Same entries as when on, with value 0: the fixed pattern.
                let mut zero = crate::activation::ZeroSink(sink);
                f.add_jacobian(&st, q, u, t, &mut zero, row0, col_q, col_u, cu);
            } else {
                f.add_jacobian(&st, q, u, t, sink, row0, col_q, col_u, cu);
            }
        }
        if let Some(lam) = lam {
            data.set_multipliers(lam);
        }
        let at = crate::friction::FrictionAt {
            q,
            u,
            lam: &data.multipliers,
            t,
            w: &data.states.w,
        };
        let place = crate::friction::Place {
            row0,
            col_q,
            col_u,
            cu,
        };
        for fr in &self.frictions {
            fr.add_jacobian(self, &at, sink, place);
        }
        for (k, c) in self.contacts.iter().enumerate() {
            let nd = data.non_dynamic;
            if data.contact_is_off(k) {
                let mut zero = crate::activation::ZeroSink(sink);
                c.add_jacobian(q, u, nd, &mut zero, row0, col_q, col_u, cu);
            } else {
                c.add_jacobian(q, u, nd, sink, row0, col_q, col_u, cu);
            }
        }
        if let (Some(cq), Some(lam)) = (col_q, lam) {
            self.constraint_force_jacobian(data, q, t, lam, sink, row0, cq);
        }
    }

    fn slot_poses(&self, q: &[f64], bodies: &[Option<usize>; 2]) -> [Option<Pose>; 2] {
        [bodies[0].map(|b| pose(q, b)), bodies[1].map(|b| pose(q, b))]
    }

    /// Equation k: value, gradient and time terms, with the Hessian for
    /// `H = Hess` only (`NoHess` is the lean path). Needs no run-time data:
    /// it is a pure function of (q, t).
    pub fn equation<H: Order>(&self, k: usize, q: &[f64], t: f64) -> EqValue<H> {
        let eq = &self.equations[k];
        if let Primitive::Coupler(c) = &eq.prim {
            return Self::coupler_pieces(c, q).0;
        }
        if let Primitive::GeneralMulti(g) = &eq.prim {
            return g.pieces(q, t).0;
        }
        let poses = self.slot_poses(q, &eq.bodies());
        crate::constraints::evaluate(&eq.prim, &poses, t)
    }

    /// Equation k with a Hessian when `hess` is set (zero otherwise), for
    /// reports and tests; the solver's hot paths use [`System::equation`].
    pub fn eval_equation(&self, k: usize, q: &[f64], t: f64, hess: bool) -> EqValue {
        if hess {
            return self.equation::<Hess>(k, q, t);
        }
        let v = self.equation::<NoHess>(k, q, t);
        EqValue {
            s: crate::local::Scalar {
                val: v.s.val,
                grad: v.s.grad,
                hess: Hess::zeros(),
            },
            phi_t: v.phi_t,
            phi_tt: v.phi_tt,
            phi_qt: v.phi_qt,
        }
    }

    /// Φ(q, t); deactivated equations give 0.
    pub fn constraints(&self, data: &mut MechData, q: &[f64], t: f64, out: &mut [f64]) {
        self.values(data, q, t);
        for k in 0..self.neq() {
            out[k] = if data.active[k] {
                data.cache.values[k].s.val
            } else {
                0.0
            };
        }
    }

    /// Emits Φ_q at (row0 + k, col0 + j) and, when `transpose` is given,
    /// Φ_qᵀ at (t_row0 + j, t_col0 + k). Inactive rows emit zeros (fixed
    /// pattern) and a unit diagonal at (row0 + k, diag_col0 + k) if given.
    #[allow(clippy::too_many_arguments)]
    pub fn constraint_jacobian(
        &self,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col0: usize,
        transpose: Option<(usize, usize)>,
        diag_col0: Option<usize>,
    ) {
        self.jacobian_rows(data, q, t, sink, row0, col0, transpose, diag_col0, None);
    }

    #[allow(clippy::too_many_arguments)]
    fn jacobian_rows(
        &self,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col0: usize,
        transpose: Option<(usize, usize)>,
        diag_col0: Option<usize>,
        velocity: Option<VelocityColumns>,
    ) {
        self.values(data, q, t);
        for k in 0..self.neq() {
            let bodies = self.equations[k].bodies();
            let on = data.active[k];
            if let (Some(vc), true) = (velocity, self.equations[k].is_velocity()) {
                let u = match vc {
                    VelocityColumns::Split { u, .. } | VelocityColumns::Combined { u, .. } => u,
                };
                let row = if on {
                    self.velocity_row(k, q, u, t)
                } else {
                    None
                };
                let zero = Grad::zeros();
                let (dq, du) = row.as_ref().map_or((&zero, &zero), |r| (&r.dq, &r.du));
                for l in 0..NL {
                    if let Some(gi) = global_index(&bodies, l) {
                        match vc {
                            VelocityColumns::Split { col_u, .. } => {
                                sink.add(row0 + k, col0 + gi, dq[l]);
                                sink.add(row0 + k, col_u + gi, du[l]);
                            }
                            VelocityColumns::Combined { cu, .. } => {
                                sink.add(row0 + k, col0 + gi, dq[l] + cu * du[l]);
                            }
                        }
                        if let Some((tr, tc)) = transpose {
                            sink.add(tr + gi, tc + k, du[l]);
                        }
                    }
                }
                if let Some(dc) = diag_col0 {
                    sink.add(row0 + k, dc + k, if on { 0.0 } else { 1.0 });
                }
                continue;
            }
            let grad = &data.cache.values[k].s.grad;
            for l in 0..NL {
                if let Some(gi) = global_index(&bodies, l) {
                    let val = if on { grad[l] } else { 0.0 };
                    sink.add(row0 + k, col0 + gi, val);
                    if let Some((tr, tc)) = transpose {
                        sink.add(tr + gi, tc + k, val);
                    }
                }
            }
            self.for_extra_gradient(k, q, t, on, |gi, val| {
                sink.add(row0 + k, col0 + gi, val);
                if let Some((tr, tc)) = transpose {
                    sink.add(tr + gi, tc + k, val);
                }
            });
            if let Some(dc) = diag_col0 {
                sink.add(row0 + k, dc + k, if on { 0.0 } else { 1.0 });
            }
        }
    }

    /// Whether any equation is a velocity-level row ([`Equation::is_velocity`]).
    pub fn has_velocity_rows(&self) -> bool {
        self.equations.iter().any(Equation::is_velocity)
    }

    /// The velocity-level row k itself at (q, u, t): g, ∂g/∂q, ∂g/∂u on its
    /// local coordinates; None for a position-level row.
    pub fn velocity_row(
        &self,
        k: usize,
        q: &[f64],
        u: &[f64],
        t: f64,
    ) -> Option<crate::gcon_velocity::VelocityRow> {
        let eq = &self.equations[k];
        let Primitive::VelocityGeneral {
            bodies,
            measures,
            f,
        } = &eq.prim
        else {
            return None;
        };
        let poses = self.slot_poses(q, bodies);
        Some(crate::gcon_velocity::row(
            measures,
            f.as_ref(),
            &poses,
            t,
            &gather(bodies, u),
        ))
    }

    /// Puts `scale`·g(q, u, t) in the rows of the active velocity-level
    /// equations of `out` (one entry per equation; the other rows are left
    /// as they are): the formulations that impose g = 0 where a position
    /// row imposes Φ = 0 (I3, HHT/NEWMARK). Reads the evaluation cache at
    /// (q, t): g = ∇Φ·u + Φ_t in the Pfaffian view.
    pub fn velocity_row_values(
        &self,
        data: &mut MechData,
        q: &[f64],
        u: &[f64],
        t: f64,
        scale: f64,
        out: &mut [f64],
    ) {
        if !self.has_velocity_rows() {
            return;
        }
        self.values(data, q, t);
        for (k, eq) in self.equations.iter().enumerate() {
            if eq.is_velocity() && data.active[k] {
                let v = &data.cache.values[k];
                out[k] = scale * (v.s.grad.dot(&gather(&eq.bodies(), u)) + v.phi_t);
            }
        }
    }

    /// [`System::constraint_jacobian`] for a formulation that imposes the
    /// velocity-level rows themselves (g = 0): their rows take ∂g/∂q in
    /// the q columns and ∂g/∂u as `velocity` says (the transposed block,
    /// the constraint forces' ∂g/∂u, is unchanged).
    #[allow(clippy::too_many_arguments)]
    pub fn constraint_jacobian_with_velocity_rows(
        &self,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        sink: &mut dyn Sink,
        row0: usize,
        col0: usize,
        transpose: Option<(usize, usize)>,
        diag_col0: Option<usize>,
        velocity: VelocityColumns,
    ) {
        self.jacobian_rows(
            data,
            q,
            t,
            sink,
            row0,
            col0,
            transpose,
            diag_col0,
            Some(velocity),
        );
    }

    /// out += Φ_qᵀ λ over active equations.
    pub fn add_constraint_forces(
        &self,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        lam: &[f64],
        out: &mut [f64],
    ) {
        self.values(data, q, t);
        for k in 0..self.neq() {
            if !data.active[k] || lam[k] == 0.0 {
                continue;
            }
            let bodies = self.equations[k].bodies();
            let grad = &data.cache.values[k].s.grad;
            for l in 0..NL {
                if let Some(gi) = global_index(&bodies, l) {
                    out[gi] += grad[l] * lam[k];
                }
            }
            self.for_extra_gradient(k, q, t, true, |gi, g| out[gi] += g * lam[k]);
        }
    }

    /// λ_k ∇²Φ_k of equation k (zero when inactive or λ_k = 0).
    fn weighted_hess(&self, active: &[bool], k: usize, q: &[f64], t: f64, lam: &[f64]) -> Hess {
        if active[k] && lam[k] != 0.0 {
            self.equation::<Hess>(k, q, t).s.hess * lam[k]
        } else {
            Hess::zeros()
        }
    }

    /// ∂(Φ_qᵀλ)/∂q = Σ λ_k ∇²Φ_k, emitted with a fixed pattern.
    #[allow(clippy::too_many_arguments)]
    fn constraint_force_jacobian(
        &self,
        data: &mut MechData,
        q: &[f64],
        t: f64,
        lam: &[f64],
        sink: &mut dyn Sink,
        row0: usize,
        col_q: usize,
    ) {
        if data.parallel {
            let MechData { active, hess, .. } = data;
            hess.resize(self.neq(), Hess::zeros());
            hess.par_iter_mut()
                .enumerate()
                .for_each(|(k, h)| *h = self.weighted_hess(active, k, q, t, lam));
            for (k, h) in hess.iter().enumerate() {
                self.equations[k].scatter_hess(h, sink, row0, col_q);
                self.scatter_extra_hess(active, k, q, t, lam, sink, row0, col_q);
            }
        } else {
            for k in 0..self.neq() {
                let h = self.weighted_hess(&data.active, k, q, t, lam);
                self.equations[k].scatter_hess(&h, sink, row0, col_q);
                self.scatter_extra_hess(&data.active, k, q, t, lam, sink, row0, col_q);
            }
        }
    }

    /// Right-hand side of the velocity constraints Φ_q u = −Φ_t.
    pub fn velocity_rhs(&self, data: &mut MechData, q: &[f64], t: f64, out: &mut [f64]) {
        self.values(data, q, t);
        for k in 0..self.neq() {
            out[k] = if data.active[k] {
                -data.cache.values[k].phi_t
            } else {
                0.0
            };
        }
    }

    /// Right-hand side of the acceleration constraints
    /// Φ_q a = γ = −(Φ_q u)_q u − 2 Φ_qt u − Φ_tt.
    pub fn acceleration_rhs(&self, data: &MechData, q: &[f64], u: &[f64], t: f64, out: &mut [f64]) {
        for k in 0..self.neq() {
            if !data.active[k] {
                out[k] = 0.0;
                continue;
            }
            let bodies = self.equations[k].bodies();
            let v = self.equation::<Hess>(k, q, t);
            let ul = gather(&bodies, u);
            out[k] = -(ul.dot(&(v.s.hess * ul))) - 2.0 * v.phi_qt.dot(&ul) - v.phi_tt;
            if let Some((extra, x)) = self.extra_piece::<Hess>(k, q, t) {
                let ul = gather(&extra, u);
                out[k] -= ul.dot(&(x.hess * ul));
                // A GCON over more than two parts: the cross-piece terms.
                if let Some(c) = self.cross_terms(k, q, t) {
                    out[k] -= c.acceleration_term(&gather(&bodies, u), &ul);
                }
            }
        }
    }
}

/// Whether a GCON's function reads velocities (a velocity GCON).
fn reads_velocities(g: &Gcon) -> bool {
    g.function.measures().iter().any(|m| {
        crate::gcon_velocity::is_velocity_measure(m) || matches!(m, Measure::FrameVel { .. })
    })
}

/// An empty cache slot.
fn zero_value() -> EqValue<NoHess> {
    EqValue {
        s: crate::local::Scalar {
            val: 0.0,
            grad: Grad::zeros(),
            hess: NoHess,
        },
        phi_t: 0.0,
        phi_tt: 0.0,
        phi_qt: Grad::zeros(),
    }
}

/// Initial (q, u) from the model's part placements and velocities.
fn initial_state(model: &Model, bodies: &[Body]) -> (Vec<f64>, Vec<f64>) {
    let mut q = vec![0.0; 7 * bodies.len()];
    let mut u = vec![0.0; 7 * bodies.len()];
    for (b, body) in bodies.iter().enumerate() {
        let part = model.part(body.part).unwrap();
        // Body frame in ground = part placement ∘ (CM in BCS).
        let inv = &body.bcs_in_body; // BCS in body; body in BCS is its inverse
        let cm_in_bcs = Placement::new(
            -inv.rotation.transpose() * inv.origin,
            inv.rotation.transpose(),
        );
        let bf = cm_in_bcs.in_frame(&part.placement);
        let p = params_from_matrix(&bf.rotation);
        let o = 7 * b;
        q[o..o + 3].copy_from_slice(bf.origin.as_slice());
        q[o + 3..o + 7].copy_from_slice(p.as_slice());
        // ṗ = ½ Eᵀ(p) ω (ω in ground axes), CM velocity given directly.
        let pdot = crate::rotation::e_mat(&p).transpose() * part.angular_velocity * 0.5;
        u[o..o + 3].copy_from_slice(part.velocity.as_slice());
        u[o + 3..o + 7].copy_from_slice(pdot.as_slice());
    }
    (q, u)
}

/// The equation of a marker motion (seeds: MOTION, I=, J=): X, Y, Z are
/// DX, DY, DZ(I, J, J); B1, B2, B3 the body-fixed 1-2-3 angles of I's axes
/// relative to J's, A_Jᵀ A_I = Rx(B1) Ry(B2) Rz(B3), so that
/// sin B2 = x_J·z_I, tan B1 = −(y_J·z_I)/(z_J·z_I) and
/// tan B3 = −(x_J·y_I)/(x_J·x_I). B2 is prescribed through its sine, valid
/// for |B2| < π/2 (the range of the 1-2-3 sequence's middle angle).
fn marker_motion(
    i: MarkerFrame,
    j: MarkerFrame,
    axis: MarkerMotionAxis,
    f: Arc<dyn TimeFunction>,
) -> Primitive {
    let product = |ai: usize, aj: usize, sign: f64| AxisProduct { ai, aj, sign };
    match axis {
        MarkerMotionAxis::X => Primitive::TranslationMotion { i, j, axis: 0, f },
        MarkerMotionAxis::Y => Primitive::TranslationMotion { i, j, axis: 1, f },
        MarkerMotionAxis::Z => Primitive::TranslationMotion { i, j, axis: 2, f },
        MarkerMotionAxis::B1 => Primitive::AngleMotion {
            i,
            j,
            s: product(2, 1, -1.0),
            c: product(2, 2, 1.0),
            f,
        },
        MarkerMotionAxis::B2 => Primitive::SineMotion {
            i,
            ai: 2,
            j,
            aj: 0,
            f,
        },
        MarkerMotionAxis::B3 => Primitive::AngleMotion {
            i,
            j,
            s: product(1, 0, -1.0),
            c: product(0, 0, 1.0),
            f,
        },
    }
}

impl Equation {
    /// Scatter this equation's local 14×14 Hessian block into global
    /// (row0 + gi, col + gj), structurally non-zero entries only
    /// ([`Equation::hess_entry`]).
    pub fn scatter_hess(&self, h: &Hess, sink: &mut dyn Sink, row0: usize, col: usize) {
        let bodies = self.bodies();
        for r in 0..NL {
            if !self.hess_row(r) {
                continue;
            }
            let Some(gr) = global_index(&bodies, r) else {
                continue;
            };
            for c in 0..NL {
                if !self.hess_row(c) {
                    continue;
                }
                if let Some(gc) = global_index(&bodies, c) {
                    sink.add(row0 + gr, col + gc, h[(r, c)]);
                }
            }
        }
    }
}

/// Scatter a local 14×14 block into global (row0 + gi, col + gj).
pub fn scatter_hess(
    bodies: &[Option<usize>; 2],
    h: &Hess,
    sink: &mut dyn Sink,
    row0: usize,
    col: usize,
) {
    for r in 0..NL {
        let Some(gr) = global_index(bodies, r) else {
            continue;
        };
        for c in 0..NL {
            if let Some(gc) = global_index(bodies, c) {
                sink.add(row0 + gr, col + gc, h[(r, c)]);
            }
        }
    }
}
