//! SENSOR: a condition on a function of the state, checked during a
//! dynamic analysis, and what the analysis does when it holds (Adams
//! Solver SENSOR statement).

use crate::Id;

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

/// What the analysis does when the sensor trips.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SensorAction {
    /// End the analysis: the current SIMULATE stops at the trip and no
    /// later SIMULATE runs.
    Halt,
    /// End the current SIMULATE at the trip; the next command runs.
    Return,
}

impl SensorAction {
    pub fn keyword(self) -> &'static str {
        match self {
            SensorAction::Halt => "HALT",
            SensorAction::Return => "RETURN",
        }
    }
}

/// SENSOR/id, FUNCTION = f, VALUE = v, ERROR = e, EQ|GE|LE, HALT|RETURN.
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
}
