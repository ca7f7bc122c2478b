//! SENSOR: a condition on a function of the state, checked during a
//! dynamic analysis after every accepted integration step, and what the
//! analysis does when it becomes true (Adams Solver SENSOR statement).

use crate::Id;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// The default TERROR, the tolerance on a located trip time (model time
/// units). The Adams reference at hand does not state one; this is ours.
pub const DEFAULT_TERROR: f64 = 1e-6;

/// How FUNCTION is compared with VALUE (Adams SENSOR: EQ is the default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensorCompare {
    /// |FUNCTION − VALUE| ≤ ERROR.
    Eq,
    /// FUNCTION ≥ VALUE − ERROR.
    Ge,
    /// FUNCTION ≤ VALUE + ERROR.
    Le,
}

impl SensorCompare {
    /// Whether `f` satisfies the comparison with `value` within `error`.
    pub fn holds(self, f: f64, value: f64, error: f64) -> bool {
        match self {
            SensorCompare::Eq => (f - value).abs() <= error,
            SensorCompare::Ge => f >= value - error,
            SensorCompare::Le => f <= value + error,
        }
    }

    pub fn keyword(self) -> &'static str {
        match self {
            SensorCompare::Eq => "EQ",
            SensorCompare::Ge => "GE",
            SensorCompare::Le => "LE",
        }
    }
}

/// Whether the analysis goes on after the trip (Adams SENSOR HALT and
/// RETURN; neither: the analysis continues with the other actions done).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensorAction {
    /// End the analysis: the current SIMULATE stops at the trip and no
    /// later SIMULATE runs.
    Halt,
    /// End the current SIMULATE at the trip; the next command runs.
    Return,
    /// Go on integrating from the trip (the other actions apply).
    Continue,
}

impl SensorAction {
    pub fn keyword(self) -> &'static str {
        match self {
            SensorAction::Halt => "HALT",
            SensorAction::Return => "RETURN",
            SensorAction::Continue => "",
        }
    }
}

/// SENSOR/id, FUNCTION = f, VALUE = v, ERROR = e, EQ|GE|LE, the actions
/// (HALT, RETURN, PRINT, RESTART, CODGEN, STEPSIZE = h, DT = dt) and
/// EVALUATE = g, with TERROR and BISECTION for locating the trip.
#[derive(Clone, Debug, PartialEq)]
pub struct Sensor {
    pub id: Id,
    /// The sensed function's source text (VARVAL allowed; the solver
    /// inlines the VARIABLEs when it compiles it, as for function REQUESTs).
    pub function: String,
    pub value: f64,
    /// The tolerance of the comparison (Adams default 1e-3).
    pub error: f64,
    pub compare: SensorCompare,
    pub action: SensorAction,
    /// EVALUATE = g: evaluated at the trip; SENVAL(id) returns it.
    pub evaluate: Option<String>,
    /// TERROR: the tolerance on the located trip time (default 1e-6, ours:
    /// the Adams reference at hand gives none).
    pub terror: f64,
    /// BISECTION: locate the trip by bisection instead of the secant-type
    /// (Illinois) search.
    pub bisection: bool,
    /// PRINT: write an output frame at the trip.
    pub print: bool,
    /// RESTART: restart the integrator at order 1 at the trip.
    pub restart: bool,
    /// CODGEN: a new pivot sequence (symbolic factorization) at the trip.
    pub codgen: bool,
    /// STEPSIZE = h: the first step after the trip.
    pub stepsize: Option<f64>,
    /// DT = dt: the output interval from the trip on.
    pub dt: Option<f64>,
}

impl Sensor {
    /// A sensor with the defaults (EQ, ERROR 1e-3, TERROR 1e-6, secant
    /// search) and no action besides `action`.
    pub fn new(id: Id, function: &str, value: f64, action: SensorAction) -> Sensor {
        Sensor {
            id,
            function: function.to_string(),
            value,
            error: 1e-3,
            compare: SensorCompare::Eq,
            action,
            evaluate: None,
            terror: DEFAULT_TERROR,
            bisection: false,
            print: false,
            restart: false,
            codgen: false,
            stepsize: None,
            dt: None,
        }
    }
}

/// The SENVAL value of each sensor. SENVAL(id) in an expression is bound
/// to its sensor's cell when the expression is compiled; a simulation
/// gives its model its own cells (`Model::bind_sensor_values`), so runs
/// from clones of one model do not share them. The held and switched-off
/// flags are the simulation's (solver `SensorState`).
#[derive(Debug, Default)]
pub struct SensorValues {
    table: Mutex<SensorTable>,
    /// The analysis MODE of the run (Adams: 1 kinematics, 3 initial
    /// conditions, 4 dynamics, 5 statics, 6 quasi-statics, 7 linear; 0
    /// before any analysis), set by the solver when an analysis starts.
    mode: Arc<SenvalCell>,
}

#[derive(Debug, Default)]
struct SensorTable {
    cells: BTreeMap<Id, Arc<SenvalCell>>,
}

/// One sensor's SENVAL: 0 until the sensor first trips, then the value of
/// its EVALUATE at the last trip.
#[derive(Debug, Default)]
pub struct SenvalCell(AtomicU64);

impl SenvalCell {
    pub fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    pub fn set(&self, v: f64) {
        self.0.store(v.to_bits(), Ordering::Relaxed)
    }
}

impl SensorValues {
    fn table(&self) -> MutexGuard<'_, SensorTable> {
        // A poisoned lock only means another thread panicked while holding
        // it; the table (plain values) is still usable.
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }
    /// The SENVAL cell of sensor `id` (created at 0 on first use: an
    /// expression may name a SENSOR that is read later).
    pub fn cell(&self, id: Id) -> Arc<SenvalCell> {
        self.table().cells.entry(id).or_default().clone()
    }
    /// The ids that SENVAL calls have named so far.
    pub fn ids_read(&self) -> Vec<Id> {
        self.table().cells.keys().copied().collect()
    }
    /// SENVAL(id) now.
    pub fn get(&self, id: Id) -> f64 {
        self.table().cells.get(&id).map_or(0.0, |c| c.get())
    }
    pub fn set(&self, id: Id, v: f64) {
        self.cell(id).set(v)
    }
    /// The cell MODE reads.
    pub fn mode_cell(&self) -> Arc<SenvalCell> {
        self.mode.clone()
    }
    /// The analysis MODE now.
    pub fn mode(&self) -> f64 {
        self.mode.get()
    }
    pub fn set_mode(&self, mode: f64) {
        self.mode.set(mode)
    }
}

impl crate::Model {
    /// Bind every function's SENVAL calls to `values` and make it the
    /// model's: a simulation gives its copy of the model fresh cells, so
    /// that runs from clones of one model (which share their functions)
    /// keep their own SENVALs. Functions without SENVAL stay shared.
    pub fn bind_sensor_values(&mut self, values: Arc<SensorValues>) {
        use crate::{ConstraintFunction, ForceKind, StateFunction, TimeFunction};
        let state = |f: &mut Arc<dyn StateFunction>| {
            if let Some(g) = f.rebound(&values) {
                *f = g;
            }
        };
        let time = |f: &mut Arc<dyn TimeFunction>| {
            if let Some(g) = f.rebound(&values) {
                *f = g;
            }
        };
        let constraint = |f: &mut Arc<dyn ConstraintFunction>| {
            if let Some(g) = f.rebound(&values) {
                *f = g;
            }
        };
        self.motions.iter_mut().for_each(|m| time(&mut m.function));
        self.gcons
            .iter_mut()
            .for_each(|g| constraint(&mut g.function));
        for f in &mut self.forces {
            match &mut f.kind {
                ForceKind::TranslationalActionReaction { function }
                | ForceKind::RotationalActionReaction { function }
                | ForceKind::TranslationalActionOnly { function }
                | ForceKind::RotationalActionOnly { function } => state(function),
                ForceKind::Vector { components, .. } => {
                    components.iter_mut().flatten().for_each(state)
                }
                _ => {}
            }
        }
        self.implicit_variables
            .iter_mut()
            .for_each(|v| state(&mut v.function));
        self.diffs.iter_mut().for_each(|d| state(&mut d.function));
        for l in &mut self.linear_systems {
            l.states.iter_mut().chain(&mut l.outputs).for_each(state);
        }
        self.sensor_values = values;
    }
}
