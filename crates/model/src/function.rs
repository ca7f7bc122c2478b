//! Functions of time and state, as the mechanics sees them.
//!
//! The expression language (a later crate) compiles `FUNCTION = …` into these
//! traits; until then they are closures. A state function depends on time and
//! a list of kinematic *measures* (DM, VR, DX, …) that the mechanics kernel
//! evaluates with their analytic derivatives; the function reports its partial
//! derivatives with respect to each measure, and the kernel applies the chain
//! rule. So the mechanics never sees the expression and the expression never
//! sees coordinates.

use crate::Id;
use std::fmt;

/// A function of time only (MOTION). Returns value, first and second time
/// derivatives.
pub trait TimeFunction: Send + Sync + fmt::Debug {
    fn eval(&self, t: f64) -> [f64; 3];
    /// This function with its SENVAL calls bound to the cells of
    /// `values` (a simulation's own, `Model::bind_sensor_values`); None
    /// when it reads no SENVAL (it is kept as it is).
    fn rebound(&self, _values: &crate::SensorValues) -> Option<std::sync::Arc<dyn TimeFunction>> {
        None
    }
    /// Why the value at `t` is not finite ("FUNCTION = LOG(TIME): LOG of a
    /// non-positive number (0)"), for messages; None when it is finite or
    /// the function cannot say.
    fn explain(&self, _t: f64) -> Option<String> {
        None
    }
    /// The expression text the function was compiled from (writers need
    /// it); None for functions built in code.
    fn source(&self) -> Option<&str> {
        None
    }
    /// For a MOTION given by VELOCITY or ACCELERATION: which, with ICDISP
    /// and ICVEL (the source is then that function's text); None for a
    /// displacement.
    fn integrated(&self) -> Option<crate::MotionIntegral> {
        None
    }
}

/// Kinematic measures a state function may depend on. Markers by id; `None`
/// for an optional marker means ground origin / ground axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Measure {
    /// Distance |r_I − r_J| (DM).
    Dm { i: Id, j: Option<Id> },
    /// Component `axis` (0,1,2) of r_I − r_J resolved in marker K's axes (DX/DY/DZ).
    Disp {
        i: Id,
        j: Option<Id>,
        k: Option<Id>,
        axis: u8,
    },
    /// Radial velocity d/dt |r_I − r_J| (VR).
    Vr { i: Id, j: Option<Id> },
    /// Component `axis` of v_I − v_J in ground, resolved in K (VX/VY/VZ).
    Vel {
        i: Id,
        j: Option<Id>,
        k: Option<Id>,
        axis: u8,
    },
    /// Component `axis` of ω_I − ω_J resolved in K (WX/WY/WZ).
    AngVel {
        i: Id,
        j: Option<Id>,
        k: Option<Id>,
        axis: u8,
    },
    /// Component `axis` of the time derivative of r_I − r_J taken in marker
    /// L's frame, v_I − v_J − ω_L × (r_I − r_J), resolved in K (VX/VY/VZ
    /// with a fourth argument).
    FrameVel {
        i: Id,
        j: Option<Id>,
        k: Option<Id>,
        l: Id,
        axis: u8,
    },
    /// The magnitude of that derivative (VM with a third argument).
    FrameSpeed { i: Id, j: Option<Id>, l: Id },
    /// Rotation of I about J's z axis, atan2 form (AZ); x and y likewise.
    Angle { i: Id, j: Option<Id>, axis: u8 },
    /// Speed |v_I − v_J| in ground (VM without a reference frame).
    Speed { i: Id, j: Option<Id> },
    /// Angular speed |ω_I − ω_J| (WM).
    AngSpeed { i: Id, j: Option<Id> },
    /// A body-fixed Euler angle of I relative to J (R = R_Jᵀ R_I):
    /// `angle` 0 PSI, 1 THETA, 2 PHI (3-1-3), 3 YAW, 4 PITCH, 5 ROLL (3-2-1).
    Euler { i: Id, j: Option<Id>, angle: u8 },
    /// ORIENT(system, comp, i, j): component `comp` of orientation system
    /// `system` (1…29: Euler angle sequences, AX/AY/AZ, YAW/PITCH/ROLL,
    /// Euler parameters, Rodriguez parameters, direction cosines; defined in
    /// mbsolve-mech `orient_systems.rs`) of I relative to J, from the
    /// Euler parameters p = p_J* ⊗ p_I, negated when `flip` (set by the
    /// mechanics from the initial configuration so that e0 ≥ 0 there, as
    /// the request does; only system 27 depends on p's sign).
    Orient {
        i: Id,
        j: Option<Id>,
        system: u8,
        comp: u8,
        flip: bool,
    },
    /// CONTACT(id, jflag, comp, rm): component `comp` (1 |F|, 2–4 F x y z)
    /// of CONTACT/id's total force on its I (jflag 0) or J (jflag 1) part,
    /// resolved in marker `rm`'s axes (ground when None).
    Contact {
        id: Id,
        jflag: u8,
        comp: u8,
        rm: Option<Id>,
    },
    /// A user state (DIF(id): `element` DIFF/id, component 0) or its time
    /// derivative (`rate`, DIF1(id)); see `states.rs`.
    UserState {
        element: crate::ElementRef,
        component: u32,
        rate: bool,
    },
    /// A quantity the system solves for (`name(args…)`: ACCX, WDTX, FX…TM,
    /// JOINT, MOTION, JPRIM, SFORCE, SPDP, BUSH, FIELD, BEAM): it reads
    /// accelerations, reactions or applied forces, so it is an algebraic
    /// unknown z with the row z − g(q, u, u̇, λ, w) = 0 (mbsolve-mech
    /// `reaction_fn.rs`); the function reads z. `args[..nargs]` as written.
    Solved {
        name: &'static str,
        args: [u32; 4],
        nargs: u8,
    },
}

impl Measure {
    /// The markers the measure reads (none for a user state).
    pub fn markers(&self) -> Vec<Id> {
        self.marker_slots().into_iter().flatten().collect()
    }

    /// The markers the measure reads in fixed slots, in the order of
    /// [`Measure::markers`] (None: an unused slot): a caller in the step
    /// loop need not allocate.
    pub fn marker_slots(&self) -> [Option<Id>; 4] {
        match *self {
            Measure::Dm { i, j }
            | Measure::Vr { i, j }
            | Measure::Angle { i, j, .. }
            | Measure::Speed { i, j }
            | Measure::AngSpeed { i, j }
            | Measure::Euler { i, j, .. }
            | Measure::Orient { i, j, .. } => [Some(i), j, None, None],
            Measure::Disp { i, j, k, .. }
            | Measure::Vel { i, j, k, .. }
            | Measure::AngVel { i, j, k, .. } => [Some(i), j, k, None],
            Measure::FrameVel { i, j, k, l, .. } => [Some(i), j, k, Some(l)],
            Measure::FrameSpeed { i, j, l } => [Some(i), j, Some(l), None],
            Measure::Contact { rm, .. } => [rm, None, None, None],
            Measure::UserState { .. } | Measure::Solved { .. } => [None; 4],
        }
    }
}

/// A function of time and measures (SFORCE, single-component forces).
pub trait StateFunction: Send + Sync + fmt::Debug {
    /// The measures this function reads, in a fixed order.
    fn measures(&self) -> &[Measure];
    /// Value at time `t` and measure values `m`; writes ∂f/∂mᵢ into `dm`
    /// (same length as `m`) and returns (f, ∂f/∂t).
    fn eval(&self, t: f64, m: &[f64], dm: &mut [f64]) -> (f64, f64);
    /// This function with its SENVAL calls bound to the cells of
    /// `values` (a simulation's own, `Model::bind_sensor_values`); None
    /// when it reads no SENVAL (it is kept as it is).
    fn rebound(&self, _values: &crate::SensorValues) -> Option<std::sync::Arc<dyn StateFunction>> {
        None
    }
    /// Why the value at (t, m) is not finite, as [`TimeFunction::explain`].
    fn explain(&self, _t: f64, _m: &[f64]) -> Option<String> {
        None
    }
    /// The expression text the function was compiled from (writers need
    /// it); None for functions built in code.
    fn source(&self) -> Option<&str> {
        None
    }
}

/// A constraint function of time and position-level measures (GCON):
/// Φ = f(m(q), t) = 0. The mechanics needs second derivatives for the
/// index-3 Jacobian and the acceleration right-hand side.
pub trait ConstraintFunction: Send + Sync + fmt::Debug {
    /// The measures this function reads (DM, DX/DY/DZ, AX/AY/AZ only).
    fn measures(&self) -> &[Measure];
    /// Value at time `t` and measure values `m`; fills `grad` (k + 1
    /// entries: ∂f/∂mᵢ, then ∂f/∂t) and `hess` ((k + 1)², row-major, same
    /// order).
    fn eval2(&self, t: f64, m: &[f64], grad: &mut [f64], hess: &mut [f64]) -> f64;
    /// This function with its SENVAL calls bound to the cells of
    /// `values` (a simulation's own, `Model::bind_sensor_values`); None
    /// when it reads no SENVAL (it is kept as it is).
    fn rebound(
        &self,
        _values: &crate::SensorValues,
    ) -> Option<std::sync::Arc<dyn ConstraintFunction>> {
        None
    }
    /// Why the value at (t, m) is not finite, as [`TimeFunction::explain`].
    fn explain(&self, _t: f64, _m: &[f64]) -> Option<String> {
        None
    }
    /// The expression text the function was compiled from (writers need
    /// it); None for functions built in code.
    fn source(&self) -> Option<&str> {
        None
    }
}

/// A `TimeFunction` from a closure returning value and derivatives.
pub struct TimeFn<F>(pub F);

impl<F: Fn(f64) -> [f64; 3] + Send + Sync> TimeFunction for TimeFn<F> {
    fn eval(&self, t: f64) -> [f64; 3] {
        (self.0)(t)
    }
}
impl<F> fmt::Debug for TimeFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TimeFn(closure)")
    }
}

/// A constant function of time (also usable as a state function).
#[derive(Debug, Clone, Copy)]
pub struct Constant(pub f64);

impl TimeFunction for Constant {
    fn eval(&self, _t: f64) -> [f64; 3] {
        [self.0, 0.0, 0.0]
    }
}
impl StateFunction for Constant {
    fn measures(&self) -> &[Measure] {
        &[]
    }
    fn eval(&self, _t: f64, _m: &[f64], _dm: &mut [f64]) -> (f64, f64) {
        (self.0, 0.0)
    }
}

/// A state function from a closure `f(t, m, dm) -> (value, ∂f/∂t)`.
pub struct StateFn<F> {
    pub measures: Vec<Measure>,
    pub f: F,
}

impl<F: Fn(f64, &[f64], &mut [f64]) -> (f64, f64) + Send + Sync> StateFunction for StateFn<F> {
    fn measures(&self) -> &[Measure] {
        &self.measures
    }
    fn eval(&self, t: f64, m: &[f64], dm: &mut [f64]) -> (f64, f64) {
        (self.f)(t, m, dm)
    }
}
impl<F> fmt::Debug for StateFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateFn({:?})", self.measures)
    }
}

/// A constraint function from a closure `f(t, m, grad, hess) -> value`
/// (see [`ConstraintFunction::eval2`] for the layout).
pub struct ConstraintFn<F> {
    pub measures: Vec<Measure>,
    pub f: F,
}

impl<F: Fn(f64, &[f64], &mut [f64], &mut [f64]) -> f64 + Send + Sync> ConstraintFunction
    for ConstraintFn<F>
{
    fn measures(&self) -> &[Measure] {
        &self.measures
    }
    fn eval2(&self, t: f64, m: &[f64], grad: &mut [f64], hess: &mut [f64]) -> f64 {
        (self.f)(t, m, grad, hess)
    }
}
impl<F> fmt::Debug for ConstraintFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConstraintFn({:?})", self.measures)
    }
}
