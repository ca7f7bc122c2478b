//! Formulations: how the mechanics becomes an integrator's problem. The
//! `DaeFormulation` trait is what the analysis driver knows of one: its
//! state layout, initial values from a consistent frame, the output frame
//! from the integrator's state (which velocities are kept and which are
//! projected), the redundancy watch, its log name and the variable classes
//! its correctors and error control use. I3 lives here, SI2 in `si2.rs`;
//! SI1 and the ODE form (coordinate partitioning with explicit ODE
//! integrators) plug in as further implementations and `PAIRS` rows.
//!
//! The I3 formulation: the index-3 equations of motion as an implicit DAE
//! G(t, y, y') = 0 with y = (q, u, λ):
//!   u − q' = 0,   M(q) u' + (velocity terms) − Q(q,u,t) + Φ_qᵀλ = 0,   Φ(q,t) = 0.
//! Deactivated (redundant) constraint rows become λ_k = 0. HHT/NEWMARK
//! integrate the same equations in second-order form (`second_order.rs`).

use crate::analysis::Frame;
use crate::second_order::I3SecondOrder;
use crate::settings::{Family, MethodParams, Plan};
use crate::user_states::StateBlock;
use mbsolve_integrate::{
    BdfParams, DaeProblem, Dstiff, Gstiff, Hastiff, Hht, IntegrationError, ProblemError,
    SlotAssembler, VarClass, Wstiff,
};
use mbsolve_mech::local::NoHess;
use mbsolve_mech::system::VelocityColumns;
use mbsolve_mech::{MechData, Sink, System};
use mbsolve_model::{CorrectorKind, Formulation, Model};

/// The integrator interface the driver uses.
pub use mbsolve_integrate::DaeIntegrator as Integrator;

/// What the analysis driver needs of a formulation.
pub trait DaeFormulation: Sync {
    /// Name in the message log ("I3", "SI2").
    fn name(&self) -> &'static str;
    /// Variables under local error control.
    fn error_classes(&self) -> &'static [VarClass];
    /// Variables whose corrections must converge with corrector `c`.
    fn corrector_classes(&self, c: CorrectorKind) -> &'static [VarClass];
    /// The problem of one integration segment starting at the consistent
    /// state `s`, watching the equations deactivated in `data`; the
    /// segment's problems work on their own clones of `data`.
    fn segment<'a>(
        &self,
        sys: &'a System,
        data: &MechData,
        s: &Frame,
        constraint_tol: f64,
    ) -> Box<dyn Segment<'a> + 'a>;
    /// A likely reason for an integration failure at t, if the
    /// formulation knows one.
    fn failure_hint(&self, _sys: &System, _model: &Model, _t: f64) -> Option<String> {
        None
    }
    /// The relative rank threshold of the re-check after an integration
    /// failure: rows about to become dependent (a singular configuration
    /// ahead) are deactivated below it.
    fn near_singular_tol(&self) -> f64 {
        crate::redundancy::NEAR_SINGULAR_TOL
    }
    /// The classes of the temporary switch to MODIFIED after a restart
    /// (seeds: "Automatic corrector algorithm switches"); None where the
    /// two correctors converge the same variables.
    fn modified_switch(&self) -> Option<&'static [VarClass]> {
        let m = self.corrector_classes(CorrectorKind::Modified);
        (m != self.corrector_classes(CorrectorKind::Original)).then_some(m)
    }
}

/// Output frames from the integrator's state in a formulation's layout.
/// A segment makes its map before lending itself to the integrator, so the
/// map may carry what the segment chose (the ODE form's partition into
/// independent and dependent coordinates, say).
pub trait FrameMap {
    /// The output frame at t from the integrator's (y, y'); `multipliers`
    /// when the integrator keeps λ outside y (HHT).
    fn frame(
        &mut self,
        sys: &System,
        t: f64,
        y: &[f64],
        yp: &[f64],
        multipliers: Option<&[f64]>,
    ) -> Frame {
        let mut frame = Frame::empty();
        self.frame_into(sys, t, y, yp, multipliers, &mut frame);
        frame
    }
    /// [`FrameMap::frame`] into a kept frame: its vectors are refilled in
    /// place, so a frame reused step after step allocates nothing once it
    /// has its sizes (the SENSOR checks of every step).
    fn frame_into(
        &mut self,
        sys: &System,
        t: f64,
        y: &[f64],
        yp: &[f64],
        multipliers: Option<&[f64]>,
        out: &mut Frame,
    );
    /// Whether the integrator's velocities are written as they are (they
    /// satisfy the velocity constraints and are error-controlled); if not,
    /// outputs project them onto the velocity constraints.
    fn keeps_velocities(&self) -> bool;
}

/// One segment's problem: it lends itself to the integrator, and after the
/// integrator is dropped says whether a deactivated equation drifted.
pub trait Segment<'a> {
    /// How this segment's integrator state becomes output frames.
    fn frame_map(&self) -> Box<dyn FrameMap>;
    /// The integrator of `plan` on this problem, starting from `s`.
    fn integrator(
        &mut self,
        plan: &Plan,
        s: &Frame,
    ) -> Result<Box<dyn Integrator + '_>, IntegrationError>;
    /// The deactivated equation that broke the redundancy watch, if any.
    fn drift(&self) -> Option<(usize, f64)>;
}

/// The implementation of a formulation the table names.
pub fn formulation_of(f: Formulation) -> &'static dyn DaeFormulation {
    match f {
        Formulation::Si2 => &crate::si2::SI2,
        Formulation::Si1 => &crate::si1::SI1,
        Formulation::I3 => &I3,
        Formulation::Ode => &crate::partition::Ode,
    }
}

/// GSTIFF (CONSTANT_BDF) or WSTIFF on a first-order problem.
pub(crate) fn bdf_integrator<'b, P: DaeProblem>(
    family: Family,
    problem: &'b mut P,
    params: &BdfParams,
    t: f64,
    y0: &[f64],
    yp0: &[f64],
) -> Box<dyn Integrator + 'b> {
    match family {
        Family::Wstiff => Box::new(Wstiff::new(problem, params.clone(), t, y0, yp0)),
        Family::Hastiff => Box::new(Hastiff::new(problem, params.clone(), t, y0, yp0)),
        _ => Box::new(Gstiff::new(problem, params.clone(), t, y0, yp0)),
    }
}

/// The integrator of a first-order plan (GSTIFF, CONSTANT_BDF, WSTIFF,
/// DSTIFF) on any first-order formulation's problem, so DSTIFF with a new
/// formulation is one `PAIRS` row.
pub(crate) fn first_order_integrator<'b, P: DaeProblem>(
    plan: &Plan,
    problem: &'b mut P,
    t: f64,
    y0: &[f64],
    yp0: &[f64],
) -> Result<Box<dyn Integrator + 'b>, IntegrationError> {
    match &plan.method {
        MethodParams::Bdf(p) => Ok(bdf_integrator(plan.pair.family, problem, p, t, y0, yp0)),
        MethodParams::Dstiff(p) => Ok(Box::new(Dstiff::new(problem, p.clone(), t, y0, yp0))),
        MethodParams::Hht(_) => Err(wrong_family(t, plan.formulation().name())),
        // PAIRS never pairs an ODE-form method with a first-order DAE
        // formulation; say so rather than blame HHT.
        MethodParams::Ode(_) => Err(IntegrationError::failure(
            t,
            format!(
                "the {} formulation does not run the ODE-form integrators (ABAM, RKF45, VSTIFF, MSTIFF)",
                plan.formulation().name()
            ),
        )),
    }
}

pub(crate) fn wrong_family(t: f64, formulation: &str) -> IntegrationError {
    IntegrationError::failure(
        t,
        format!("the {formulation} formulation has no second-order form for HHT/NEWMARK"),
    )
}

/// Displacements (and user states) under error control; ORIGINAL converges
/// the velocities too, MODIFIED does not (seeds: corrector table).
const I3_ERROR: &[VarClass] = &[VarClass::Displacement, VarClass::UserState];
const I3_ORIGINAL: &[VarClass] = &[
    VarClass::Displacement,
    VarClass::Velocity,
    VarClass::UserState,
    VarClass::Solved,
];

/// The I3 formulation.
pub struct I3;

impl DaeFormulation for I3 {
    fn name(&self) -> &'static str {
        "I3"
    }
    fn error_classes(&self) -> &'static [VarClass] {
        I3_ERROR
    }
    fn corrector_classes(&self, c: CorrectorKind) -> &'static [VarClass] {
        match c {
            CorrectorKind::Original | CorrectorKind::OrigConstant => I3_ORIGINAL,
            CorrectorKind::Modified => I3_ERROR,
        }
    }
    fn segment<'a>(
        &self,
        sys: &'a System,
        data: &MechData,
        s: &Frame,
        constraint_tol: f64,
    ) -> Box<dyn Segment<'a> + 'a> {
        Box::new(I3Segment {
            sys,
            data: data.clone(),
            watch: Some(RedundancyWatch::new(sys, data, &s.q, s.t)),
            constraint_tol,
            first: None,
            second: None,
        })
    }
}

/// I3 frames: y = (q, u, λ) for the BDF family, (q, u) with λ apart for
/// HHT; y' = (u, a, ...).
struct I3Frames;

impl FrameMap for I3Frames {
    fn keeps_velocities(&self) -> bool {
        // Velocities are not error-controlled and need not satisfy
        // Φ_q u = −Φ_t: projected at outputs.
        false
    }
    fn frame_into(
        &mut self,
        sys: &System,
        t: f64,
        y: &[f64],
        yp: &[f64],
        multipliers: Option<&[f64]>,
        out: &mut Frame,
    ) {
        let (n, m) = (sys.nq(), sys.neq());
        let lambda = multipliers.unwrap_or_else(|| &y[2 * n..2 * n + m]);
        // HHT's y = (q, u, w), its multipliers apart.
        let states_at = match multipliers {
            None => 2 * n + m,
            Some(_) => 2 * n,
        };
        StateBlock::new(sys, states_at).frame_values_into(y, yp, &mut out.w, &mut out.wp);
        out.fill_mechanics(t, &y[..n], &y[n..2 * n], &yp[n..2 * n], lambda);
    }
}

/// I3 in first-order form (BDF) or second-order form (HHT/NEWMARK),
/// whichever the plan's integrator takes.
struct I3Segment<'a> {
    sys: &'a System,
    data: MechData,
    watch: Option<RedundancyWatch>,
    constraint_tol: f64,
    first: Option<I3Problem<'a>>,
    second: Option<I3SecondOrder<'a>>,
}

impl<'a> Segment<'a> for I3Segment<'a> {
    fn frame_map(&self) -> Box<dyn FrameMap> {
        Box::new(I3Frames)
    }
    fn integrator(
        &mut self,
        plan: &Plan,
        s: &Frame,
    ) -> Result<Box<dyn Integrator + '_>, IntegrationError> {
        let watch = self.watch.take().unwrap_or_default();
        match &plan.method {
            MethodParams::Bdf(_) | MethodParams::Dstiff(_) => {
                let mut problem = I3Problem::new(self.sys, self.data.clone());
                problem.watch = watch;
                problem.constraint_tol = self.constraint_tol;
                let problem = self.first.insert(problem);
                // y = (q, u, λ), y' = (u, a, 0).
                let m = self.sys.neq();
                let mut y0: Vec<f64> = s.q.iter().chain(&s.u).chain(&s.lambda).copied().collect();
                let mut yp0: Vec<f64> =
                    s.u.iter()
                        .chain(&s.a)
                        .copied()
                        .chain(std::iter::repeat_n(0.0, m))
                        .collect();
                // y = (q, u, λ, w), y' = (u, a, 0, w').
                problem.states.extend_initial(s, &mut y0, &mut yp0);
                first_order_integrator(plan, problem, s.t, &y0, &yp0)
            }
            MethodParams::Hht(p) => {
                let mut problem = I3SecondOrder::new(self.sys, self.data.clone());
                problem.watch = watch;
                problem.constraint_tol = self.constraint_tol;
                let problem = self.second.insert(problem);
                Ok(Box::new(
                    Hht::new(problem, p.clone(), s.t, &s.q, &s.u, &s.a, &s.lambda)?
                        .with_states(&s.w, &s.wp)?,
                ))
            }
            MethodParams::Ode(_) => Err(IntegrationError::failure(
                s.t,
                "the I3 formulation does not run the ODE-form integrators",
            )),
        }
    }
    fn drift(&self) -> Option<(usize, f64)> {
        let first = self.first.as_ref().and_then(|p| p.watch.drift);
        first.or_else(|| self.second.as_ref().and_then(|p| p.watch.drift))
    }
}

/// Displacements, velocities and user states: under error control and
/// converged with either corrector in the stabilized formulations (seeds:
/// one row for "GSTIFF SI2, WSTIFF SI2, HASTIFF SI1/SI2").
const STABILIZED_CLASSES: &[VarClass] = &[
    VarClass::Displacement,
    VarClass::Velocity,
    VarClass::UserState,
];

/// The corrector converges the solved quantities too (`reaction_fn.rs`),
/// which are not error-controlled.
const STABILIZED_CORRECTOR: &[VarClass] = &[
    VarClass::Displacement,
    VarClass::Velocity,
    VarClass::UserState,
    VarClass::Solved,
];

/// A stabilized formulation (SI2 in si2.rs, SI1 in si1.rs): the classes
/// above, the BDF family only, and MOTIONs that must be smooth.
pub struct Stabilized {
    pub name: &'static str,
    /// The segment's problem starting at s, watching the equations
    /// deactivated in the system, with the corrector's constraint tolerance.
    pub segment: for<'a> fn(&'a System, &MechData, &Frame, f64) -> Box<dyn Segment<'a> + 'a>,
    /// `DaeFormulation::near_singular_tol`: looser where the problem holds
    /// branch rows (`redundancy::BRANCH_ENTRY`).
    pub near_singular_tol: f64,
}

impl DaeFormulation for Stabilized {
    fn name(&self) -> &'static str {
        self.name
    }
    fn error_classes(&self) -> &'static [VarClass] {
        STABILIZED_CLASSES
    }
    fn corrector_classes(&self, _c: CorrectorKind) -> &'static [VarClass] {
        STABILIZED_CORRECTOR
    }
    fn segment<'a>(
        &self,
        sys: &'a System,
        data: &MechData,
        s: &Frame,
        constraint_tol: f64,
    ) -> Box<dyn Segment<'a> + 'a> {
        (self.segment)(sys, data, s, constraint_tol)
    }
    fn near_singular_tol(&self) -> f64 {
        self.near_singular_tol
    }
    /// Velocity constraints (and SI1's Φ̈ with its Φ_tt) make a MOTION
    /// whose velocity jumps fail (si2.rs, `non_smooth_motion`).
    fn failure_hint(&self, _sys: &System, model: &Model, t: f64) -> Option<String> {
        crate::si2::non_smooth_motion(model, t).map(|m| {
            m.replace(
                "the SI2 formulation requires",
                &format!("the {} formulation requires", self.name),
            )
        })
    }
}

/// A formulation's problem that only the first-order BDF family
/// integrates (SI2, SI1): its consistent start, its redundancy watch and
/// where its y′ holds the accelerations and λ (both formulations carry
/// the multipliers in differential form).
pub(crate) trait BdfOnlyProblem: DaeProblem {
    /// The formulation's name in messages.
    const NAME: &'static str;
    /// Offsets, in multiples of nq, of a and λ in y′.
    const ACCELERATION_AT: usize;
    const MULTIPLIERS_AT: usize;
    /// (y0, y0′) from a consistent state.
    fn initial_values(&self, s: &Frame) -> (Vec<f64>, Vec<f64>);
    fn watch(&self) -> &RedundancyWatch;
}

/// A stabilized formulation's static (`Stabilized`), its segment
/// constructor and its [`BdfOnlyProblem`] impl, for a problem type with
/// `new(&System, MechData)`, `initial_values(&Frame)` and public `watch` and
/// `constraint_tol` fields (si2.rs, si1.rs).
macro_rules! stabilized_formulation {
    ($(#[$doc:meta])* $static:ident = $name:literal, $problem:ident,
     acceleration at $a:literal, multipliers at $l:literal $(, $branches:ident rows)?) => {
        $(#[$doc])*
        pub static $static: $crate::formulation::Stabilized = $crate::formulation::Stabilized {
            name: $name,
            // (`branch rows` given: the problem holds branch rows.)
            near_singular_tol: if false $(|| !stringify!($branches).is_empty())? {
                $crate::redundancy::BRANCH_ENTRY
            } else {
                $crate::redundancy::NEAR_SINGULAR_TOL
            },
            segment: {
                fn segment<'a>(
                    sys: &'a ::mbsolve_mech::System,
                    data: &::mbsolve_mech::MechData,
                    s: &$crate::analysis::Frame,
                    constraint_tol: f64,
                ) -> Box<dyn $crate::formulation::Segment<'a> + 'a> {
                    let mut problem = $problem::new(sys, data.clone());
                    problem.watch =
                        $crate::formulation::RedundancyWatch::new(sys, data, &s.q, s.t);
                    // Only a problem that puts the branch rows in its
                    // equations (`branch rows`) asks for them.
                    $(
                        if !stringify!($branches).is_empty() {
                            problem.watch = problem.watch.with_branch_rows(sys, data, s);
                        }
                    )?
                    problem.constraint_tol = constraint_tol;
                    Box::new($crate::formulation::BdfOnlySegment(problem))
                }
                segment
            },
        };
        impl $crate::formulation::BdfOnlyProblem for $problem<'_> {
            const NAME: &'static str = $name;
            const ACCELERATION_AT: usize = $a;
            const MULTIPLIERS_AT: usize = $l;
            fn initial_values(&self, s: &$crate::analysis::Frame) -> (Vec<f64>, Vec<f64>) {
                $problem::initial_values(self, s)
            }
            fn watch(&self) -> &$crate::formulation::RedundancyWatch {
                &self.watch
            }
        }
    };
}
pub(crate) use stabilized_formulation;

/// The segment of a [`BdfOnlyProblem`].
pub(crate) struct BdfOnlySegment<P>(pub P);

impl<'a, P: BdfOnlyProblem + 'a> Segment<'a> for BdfOnlySegment<P> {
    fn frame_map(&self) -> Box<dyn FrameMap> {
        Box::new(StabilizedFrames {
            acceleration_at: P::ACCELERATION_AT,
            multipliers_at: P::MULTIPLIERS_AT,
        })
    }
    fn integrator(
        &mut self,
        plan: &Plan,
        s: &Frame,
    ) -> Result<Box<dyn Integrator + '_>, IntegrationError> {
        if let MethodParams::Hht(_) = &plan.method {
            return Err(wrong_family(s.t, P::NAME));
        }
        let (y0, yp0) = self.0.initial_values(s);
        first_order_integrator(plan, &mut self.0, s.t, &y0, &yp0)
    }
    fn drift(&self) -> Option<(usize, f64)> {
        self.0.watch().drift
    }
}

/// Frames of the stabilized formulations: q and u lead y, and a and λ sit
/// in y′ at their formulation's offsets.
struct StabilizedFrames {
    acceleration_at: usize,
    multipliers_at: usize,
}

impl FrameMap for StabilizedFrames {
    fn keeps_velocities(&self) -> bool {
        // The corrector converged on Φ_q u + Φ_t = 0 and u is
        // error-controlled: written as integrated.
        true
    }
    fn frame_into(
        &mut self,
        sys: &System,
        t: f64,
        y: &[f64],
        yp: &[f64],
        _multipliers: Option<&[f64]>,
        out: &mut Frame,
    ) {
        let (n, m) = (sys.nq(), sys.neq());
        let (a, l) = (self.acceleration_at * n, self.multipliers_at * n);
        // The user states close y (the formulation's own unknowns first).
        StateBlock::new(sys, y.len() - sys.nw()).frame_values_into(y, yp, &mut out.w, &mut out.wp);
        out.fill_mechanics(t, &y[..n], &y[n..2 * n], &yp[a..a + n], &yp[l..l + m]);
    }
}

/// Adapter: a mech sink writing into the integrator's assembler.
pub struct AsmSink<'a>(pub &'a mut SlotAssembler);
impl Sink for AsmSink<'_> {
    #[inline]
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.0.add(r, c, v);
    }
}

/// A mech sink writing `scale`·value into the integrator's assembler (SI2's
/// row scaling; HHT's βh² factor on the body rows).
pub(crate) struct ScaledSink<'a> {
    pub asm: &'a mut SlotAssembler,
    pub scale: f64,
}
impl Sink for ScaledSink<'_> {
    #[inline]
    fn add(&mut self, r: usize, c: usize, v: f64) {
        self.asm.add(r, c, self.scale * v);
    }
}

pub struct I3Problem<'a> {
    pub sys: &'a System,
    /// This problem's mechanics data (active set, evaluation cache).
    pub data: MechData,
    classes: Vec<VarClass>,
    phi: Vec<f64>,
    /// Deactivated equations checked after every accepted step (empty
    /// unless set by the caller).
    pub watch: RedundancyWatch,
    /// |Φ| bound for corrector convergence (see `constraint_tolerance`).
    pub constraint_tol: f64,
    /// The user states, after λ.
    pub(crate) states: StateBlock,
}

impl<'a> I3Problem<'a> {
    pub fn new(sys: &'a System, data: MechData) -> Self {
        let (n, m) = (sys.nq(), sys.neq());
        let mut classes = vec![VarClass::Displacement; n];
        classes.extend(std::iter::repeat_n(VarClass::Velocity, n));
        classes.extend(std::iter::repeat_n(VarClass::Multiplier, m));
        let states = StateBlock::new(sys, 2 * n + m);
        states.extend_classes_index3(sys, &mut classes);
        I3Problem {
            sys,
            data,
            classes,
            phi: vec![0.0; m],
            watch: RedundancyWatch::default(),
            constraint_tol: CONSTRAINT_TOL,
            states,
        }
    }
}

const COORD: [&str; 7] = ["x", "y", "z", "e0", "e1", "e2", "e3"];

/// "PART/2 x" style name of body coordinate `i`.
pub fn coordinate_name(sys: &System, i: usize) -> String {
    let body = mbsolve_model::point_mass::body_label(sys.bodies[i / 7].part);
    format!("{body} {}", COORD[i % 7])
}

/// "JOINT/1 Zi.Xj" style name of constraint equation `k`.
pub fn equation_name(sys: &System, k: usize) -> String {
    let e = &sys.equations[k];
    format!("{} {}", sys.describe(e.element), e.name)
}

/// The algebraic rows shared by every formulation: scale·Φ_k for active
/// equations, λ_k for deactivated (redundant) ones. `phi` is scratch of
/// length neq; `out` has neq entries.
#[allow(clippy::too_many_arguments)]
pub(crate) fn constraint_rows(
    sys: &System,
    data: &mut MechData,
    q: &[f64],
    lam: &[f64],
    t: f64,
    scale: f64,
    phi: &mut [f64],
    out: &mut [f64],
) {
    sys.constraints(data, q, t, phi);
    rows_from_values(&data.active, phi, lam, scale, out);
}

/// [`constraint_rows`] from the values Φ already evaluated (by
/// `System::constraint_terms`); `active` is the data's active set.
pub(crate) fn rows_from_values(
    active: &[bool],
    phi: &[f64],
    lam: &[f64],
    scale: f64,
    out: &mut [f64],
) {
    for k in 0..out.len() {
        out[k] = if active[k] { scale * phi[k] } else { lam[k] };
    }
}

/// Err naming the first non-finite residual row (`what` names row i).
pub(crate) fn check_finite(v: &[f64], what: impl Fn(usize) -> String) -> Result<(), ProblemError> {
    match v.iter().position(|x| !x.is_finite()) {
        Some(i) => Err(ProblemError(format!("non-finite residual in {}", what(i)))),
        None => Ok(()),
    }
}

/// A deactivated (redundant) equation violated by more than this (absolute,
/// model units) is no longer dependent on the active ones: the configuration
/// has changed the constraint rank. A truly dependent row follows the active
/// rows to a small multiple of CONSTRAINT_TOL.
pub const REDUNDANT_DRIFT_TOL: f64 = 1e-7;

/// Watches the deactivated (redundant) equations during an integration: an
/// equation whose residual grows by more than REDUNDANT_DRIFT_TOL from its
/// value at the start has become independent of the active ones. An
/// equation deactivated only because the configuration is singular
/// (`MechData::singular`) is also released as soon as it is independent
/// again (`redundancy::SINGULAR_RELEASE`): its residual alone would let the
/// motion leave its branch unnoticed.
#[derive(Default)]
pub struct RedundancyWatch {
    inactive: Vec<usize>,
    allowed: Vec<f64>,
    /// The singular-configuration equations, and what measuring their
    /// independence needs (the active set, a saddle-point solver, a
    /// gradient buffer).
    singular: Vec<usize>,
    probe: Option<SingularProbe>,
    /// The branch rows standing in for the singular-configuration
    /// equations (`with_branch_rows`), and each equation's index into
    /// them (empty when there are none).
    pub branches: Vec<crate::redundancy::BranchRow>,
    branch_of: Vec<Option<usize>>,
    /// The equation (and its residual) that broke the watch.
    pub drift: Option<(usize, f64)>,
}

/// What measuring a singular-configuration equation's independence needs,
/// allocated once per segment: the active set, a saddle-point solver, the
/// gradient buffer and the zero right-hand side of the constraint rows.
pub struct SingularProbe {
    pub data: MechData,
    pub kkt: crate::linear::Kkt,
    pub grad: Vec<f64>,
    pub zeros: Vec<f64>,
}

impl RedundancyWatch {
    /// Watch the equations deactivated in `data`, starting from (q, t).
    pub fn new(sys: &System, data: &MechData, q: &[f64], t: f64) -> Self {
        let inactive: Vec<usize> = (0..sys.neq())
            .filter(|k| !data.active[*k] && !data.equation_is_off(*k))
            .collect();
        let allowed = inactive
            .iter()
            .map(|&k| REDUNDANT_DRIFT_TOL + sys.equation::<NoHess>(k, q, t).s.val.abs())
            .collect();
        let singular: Vec<usize> = inactive
            .iter()
            .copied()
            .filter(|&k| data.singular[k])
            .collect();
        let probe = (!singular.is_empty()).then(|| SingularProbe {
            data: data.clone(),
            kkt: crate::linear::Kkt::new(sys),
            grad: vec![0.0; sys.nq()],
            zeros: vec![0.0; sys.neq()],
        });
        RedundancyWatch {
            inactive,
            allowed,
            singular,
            probe,
            branches: Vec::new(),
            branch_of: Vec::new(),
            drift: None,
        }
    }

    /// Hold each singular-configuration equation's branch by its linear
    /// continuation (`redundancy::branch_rows`) while it is inactive; the
    /// formulation that reads `branches` puts them in the inactive rows.
    pub fn with_branch_rows(mut self, sys: &System, data: &MechData, s: &Frame) -> Self {
        self.branches = crate::redundancy::branch_rows(sys, data, &s.q, &s.u, &s.a, s.t);
        if !self.branches.is_empty() {
            self.branch_of = vec![None; sys.neq()];
            for (i, b) in self.branches.iter().enumerate() {
                self.branch_of[b.k] = Some(i);
            }
        }
        self
    }

    /// The branch row standing in for inactive equation k, if any.
    pub fn branch_row(&self, k: usize) -> Option<&crate::redundancy::BranchRow> {
        self.branch_of
            .get(k)
            .copied()
            .flatten()
            .map(|i| &self.branches[i])
    }

    /// False (and `drift` set) if a watched equation left its band at q,
    /// or a singular-configuration equation is independent again.
    pub fn holds(&mut self, sys: &System, q: &[f64], t: f64) -> bool {
        for (&k, &tol) in self.inactive.iter().zip(&self.allowed) {
            let v = sys.equation::<NoHess>(k, q, t).s.val;
            if v.abs() > tol {
                self.drift = Some((k, v));
                return false;
            }
        }
        if let Some(p) = &mut self.probe {
            let mut factored = false;
            for &k in &self.singular {
                let r = crate::redundancy::independence(sys, p, q, t, k, &mut factored);
                let release = if self.branch_of.get(k).copied().flatten().is_some() {
                    crate::redundancy::BRANCH_RELEASE
                } else {
                    crate::redundancy::SINGULAR_RELEASE
                };
                if r >= release {
                    self.drift = Some((k, sys.equation::<NoHess>(k, q, t).s.val));
                    return false;
                }
            }
        }
        true
    }
}

/// Position constraints must hold to this absolute tolerance (model length
/// units) when the corrector converges, so outputs satisfy |Φ| ≪ ERROR.
pub const CONSTRAINT_TOL: f64 = 1e-10;

/// The constraint tolerance for an integration at `error`: CONSTRAINT_TOL,
/// tightened to ERROR/100 (not below 1e-12, the round-off floor of the
/// index-3 iteration at small steps) for very small ERROR — otherwise the constraint
/// noise the corrector leaves is as large as the error weights and the local
/// error estimate stops shrinking with the step (seen at ERROR = 1e-10).
pub fn constraint_tolerance(error: f64) -> f64 {
    CONSTRAINT_TOL.min(0.01 * error).max(1e-12)
}

impl DaeProblem for I3Problem<'_> {
    fn residual_acceptable(&self, res: &[f64]) -> bool {
        let start = 2 * self.sys.nq();
        res[start..start + self.sys.neq()]
            .iter()
            .all(|v| v.abs() <= self.constraint_tol)
    }
    fn size(&self) -> usize {
        2 * self.sys.nq() + self.sys.neq() + self.sys.nw()
    }
    fn classes(&self) -> &[VarClass] {
        &self.classes
    }
    fn residual(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        out: &mut [f64],
    ) -> Result<(), ProblemError> {
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let (q, rest) = y.split_at(n);
        let (u, rest) = rest.split_at(n);
        let lam = &rest[..m];
        let up = &yp[n..2 * n];
        for i in 0..n {
            out[i] = u[i] - yp[i];
        }
        self.states.load(&mut self.data, y, yp);
        self.states.residual(self.sys, &self.data, q, u, t, out);
        let p = crate::reaction_fn::point(&self.data, t, q, u, up, lam);
        let rows = &mut out[self.states.at..self.states.at + self.states.nw];
        self.sys.solved_residual(&self.data, &p, rows);
        // One evaluation of each constraint for Φ and Φ_qᵀλ.
        let (head, rows) = out.split_at_mut(2 * n);
        let forces = &mut head[n..];
        let data = &mut self.data;
        data.set_multipliers(lam);
        self.sys.applied_residual(data, q, u, up, t, forces);
        self.sys
            .constraint_terms(data, q, t, &mut self.phi, &mut [(lam, forces)], None);
        rows_from_values(&data.active, &self.phi, lam, 1.0, &mut rows[..m]);
        // Velocity-level rows (velocity GCONs): g(q, u, t) = 0 in Φ's place.
        self.sys
            .velocity_row_values(data, q, u, t, 1.0, &mut rows[..m]);
        check_finite(out, |i| self.describe_equation(i))
    }
    fn jacobian(
        &mut self,
        t: f64,
        y: &[f64],
        yp: &[f64],
        c: f64,
        a: &mut SlotAssembler,
    ) -> Result<(), ProblemError> {
        let (n, m) = (self.sys.nq(), self.sys.neq());
        let (q, rest) = y.split_at(n);
        let (u, rest) = rest.split_at(n);
        let lam = &rest[..m];
        let up = &yp[n..2 * n];
        for i in 0..n {
            a.add(i, i, -c);
            a.add(i, n + i, 1.0);
        }
        self.states.load(&mut self.data, y, yp);
        self.states
            .jacobian(self.sys, &self.data, q, u, t, c, n, n, 1.0, a);
        let mut s = AsmSink(a);
        let p = crate::reaction_fn::point(&self.data, t, q, u, up, lam);
        let cols = crate::reaction_fn::first_order_columns(self.states.at, n, n, (2 * n, false), c);
        self.sys.solved_jacobian(&self.data, &p, &cols, &mut s);
        let data = &mut self.data;
        self.sys
            .body_jacobian(data, q, u, up, Some(lam), t, &mut s, n, Some(0), n, 1.0, c);
        self.sys.constraint_jacobian_with_velocity_rows(
            data,
            q,
            t,
            &mut s,
            2 * n,
            0,
            Some((n, 2 * n)),
            Some(2 * n),
            VelocityColumns::Split { u, col_u: n },
        );
        Ok(())
    }
    fn structure_holds(&mut self, t: f64, y: &[f64]) -> bool {
        self.watch.holds(self.sys, &y[..self.sys.nq()], t)
    }
    fn describe_variable(&self, i: usize) -> String {
        (self.states.describe(self.sys, i)).unwrap_or_else(|| qul_variable_name(self.sys, i))
    }
    fn describe_equation(&self, i: usize) -> String {
        (self.states.describe(self.sys, i)).unwrap_or_else(|| qul_equation_name(self.sys, i))
    }
}

/// Name of unknown i of y = (q, u, λ).
pub(crate) fn qul_variable_name(sys: &System, i: usize) -> String {
    let n = sys.nq();
    if i < n {
        format!("{} displacement", coordinate_name(sys, i))
    } else if i < 2 * n {
        format!("{} velocity", coordinate_name(sys, i - n))
    } else {
        format!("multiplier of {}", equation_name(sys, i - 2 * n))
    }
}

/// Name of equation i of G = (velocity definitions, force balance, Φ).
pub(crate) fn qul_equation_name(sys: &System, i: usize) -> String {
    let n = sys.nq();
    if i < n {
        format!("{} velocity definition", coordinate_name(sys, i))
    } else if i < 2 * n {
        format!("{} force balance", coordinate_name(sys, i - n))
    } else {
        equation_name(sys, i - 2 * n)
    }
}
