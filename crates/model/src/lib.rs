//! mbsolve-model: the plain-data description of a mechanical system.
//!
//! A [`Model`] is what every reader (Adams `.adm`, MotionSolve `.xml`, the Rust
//! API) produces and what the mechanics kernel consumes. It holds no numerics:
//! only parts, markers, joints, motions, forces and requests, plus [`validate`]
//! which rejects models that cannot run, naming the element at fault.

mod contact;
mod coupler;
mod curve;
mod discrete;
mod elastic;
mod elements;
pub mod fe_part;
mod friction;
mod function;
mod implicit_vars;
mod initial;
pub mod point_mass;
mod sensor;
mod settings;
mod spline;
mod states;
mod units;
mod validate;

pub use contact::*;
pub use coupler::{Coupler, CouplerFreedom, Gear};
pub use curve::{Curve, CurveJet, CurveShape, Cvcv, Ptcv, MAX_CURVE_ORDER};
pub use discrete::Sampling;
pub use elastic::*;
pub use elements::*;
pub use friction::*;
pub use function::*;
pub use implicit_vars::ImplicitVariable;
pub use initial::*;
pub use sensor::{Sensor, SensorAction, SensorCompare, SensorValues, SenvalCell, DEFAULT_TERROR};
pub use settings::*;
pub use spline::*;
pub use states::*;
pub use units::{resolve_unit, unit_names, Dimension, Units, SYSTEMS};
pub use validate::{inertia_warnings, validate, ModelError};

use nalgebra::{Matrix3, Vector3};

/// Element identifier as written in the dataset (`PART/2`, `MARKER/0102`, …).
pub type Id = u32;

/// A frame placement: origin and orientation (columns are the frame's x, y, z
/// axes expressed in the parent frame).
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    pub origin: Vector3<f64>,
    pub rotation: Matrix3<f64>,
}

impl Default for Placement {
    fn default() -> Self {
        Placement {
            origin: Vector3::zeros(),
            rotation: Matrix3::identity(),
        }
    }
}

impl Placement {
    pub fn new(origin: Vector3<f64>, rotation: Matrix3<f64>) -> Self {
        Placement { origin, rotation }
    }
    pub fn at(x: f64, y: f64, z: f64) -> Self {
        Placement {
            origin: Vector3::new(x, y, z),
            rotation: Matrix3::identity(),
        }
    }
    /// Body-fixed 3-1-3 Euler angles (Adams REULER), radians.
    pub fn with_euler313(mut self, psi: f64, theta: f64, phi: f64) -> Self {
        self.rotation = euler313(psi, theta, phi);
        self
    }
    /// Compose: `self` is expressed in `parent`; the result is in parent's parent.
    pub fn in_frame(&self, parent: &Placement) -> Placement {
        Placement {
            origin: parent.origin + parent.rotation * self.origin,
            rotation: parent.rotation * self.rotation,
        }
    }
}

/// Rotation matrix of body-fixed 3-1-3 Euler angles (Adams REULER convention):
/// rotate `psi` about z, then `theta` about the new x, then `phi` about the new z.
pub fn euler313(psi: f64, theta: f64, phi: f64) -> Matrix3<f64> {
    let rz = |a: f64| {
        let (s, c) = a.sin_cos();
        Matrix3::new(c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)
    };
    let rx = |a: f64| {
        let (s, c) = a.sin_cos();
        Matrix3::new(1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c)
    };
    rz(psi) * rx(theta) * rz(phi)
}

/// A complete mechanical system.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub title: String,
    pub units: Units,
    /// Gravitational acceleration in ground coordinates (ACCGRAV).
    pub gravity: Vector3<f64>,
    pub parts: Vec<Part>,
    pub markers: Vec<Marker>,
    pub joints: Vec<Joint>,
    pub motions: Vec<Motion>,
    /// Joint primitives (JPRIM).
    pub jprims: Vec<Jprim>,
    /// General constraints (GCON): f(measures, t) = 0.
    pub gcons: Vec<Gcon>,
    /// COUPLERs between joint displacements.
    pub couplers: Vec<Coupler>,
    /// GEAR pairs (a COUPLER whose ratio the CV marker gives).
    pub gears: Vec<Gear>,
    /// Parametric curves (CURVE), read by PTCV and CURVE().
    pub curves: Vec<Curve>,
    /// Point-on-curve constraints (PTCV).
    pub ptcvs: Vec<Ptcv>,
    /// Curve-on-curve constraints (CVCV).
    pub cvcvs: Vec<Cvcv>,
    pub forces: Vec<Force>,
    /// Joint friction (FRICTION).
    pub frictions: Vec<Friction>,
    /// Explicit algebraic variables (VARIABLE), read by VARVAL(id).
    pub variables: Vec<Variable>,
    /// The VARIABLEs on algebraic loops, solved as unknowns (VARVAL of
    /// them reads a user state).
    pub implicit_variables: Vec<ImplicitVariable>,
    /// User states (DIFF), read by DIF(id) and DIF1(id).
    pub diffs: Vec<Diff>,
    /// ARRAY and MATRIX data, read by LSE/TFSISO and ARYVAL(id, k).
    pub arrays: Vec<Array>,
    pub matrices: Vec<Matrix>,
    /// LSE and TFSISO: linear state equations (user states too).
    pub linear_systems: Vec<LinearSystem>,
    /// The discrete LSEs' sampling (SAMPLE_PERIOD/SAMPLE_OFFSET).
    pub samplings: Vec<Sampling>,
    pub requests: Vec<Request>,
    /// Function requests (REQUEST/id, F1=…\…\F8=…), output only.
    pub function_requests: Vec<FunctionRequest>,
    /// The dataset's INTEGRATOR statement, if any.
    pub integrator: IntegratorSettings,
    /// Static solver settings (Param_Static / EQUILIBRIUM statement).
    pub equilibrium: StaticSettings,
    /// Kinematic analysis settings (KINEMATICS statement).
    pub kinematics: KinematicSettings,
    /// Adams/Controls plant inputs (PINPUT), in file order.
    pub plant_inputs: Vec<PlantIo>,
    /// Adams/Controls plant outputs (POUTPUT), in file order.
    pub plant_outputs: Vec<PlantIo>,
    /// Interpolation tables (SPLINE), read by CUBSPL and AKISPL.
    pub splines: Vec<std::sync::Arc<Spline>>,
    /// Text data (STRING/id, STRING = text): stored and written back.
    pub strings: Vec<StringData>,
    /// Joint degrees of freedom held during the initial-condition analysis
    /// (JOINT IC=, ICTRAN=, ICROT=).
    pub joint_ics: Vec<JointIc>,
    /// GRAPHICS solids that CONTACT elements refer to.
    pub geometries: Vec<Geometry>,
    /// CONTACT elements.
    pub contacts: Vec<Contact>,
    /// FE_PARTs as read; their node bodies, element BEAMs and markers are
    /// in `parts`, `forces` and `markers` (model::fe_part).
    pub fe_parts: Vec<fe_part::FePart>,
    /// SENSORs, checked at the output times of dynamic analyses.
    pub sensors: Vec<Sensor>,
    /// The sensors' SENVAL values; SENVAL calls bind to them. A simulation
    /// gives its copy of the model its own (`Model::bind_sensor_values`).
    pub sensor_values: std::sync::Arc<SensorValues>,
    /// Force elements a DEACTIVATE switched off in a simulation's copy of
    /// the model: their results (SFORCE(), BUSH(), FORCE requests, …) are
    /// zero, the force they apply. Empty in a model as read.
    pub inactive_forces: Vec<ElementRef>,
    /// Where each element came from (file:line), for messages. Keyed by
    /// element kind and id; empty for models built through the API.
    pub sources: Vec<(ElementRef, String)>,
}

/// A reference to a model element, used in messages ("JOINT/2").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElementRef {
    Part(Id),
    Marker(Id),
    Joint(Id),
    Motion(Id),
    /// An SFORCE.
    Force(Id),
    Springdamper(Id),
    Request(Id),
    Gcon(Id),
    Jprim(Id),
    Variable(Id),
    Vforce(Id),
    Vtorque(Id),
    Gforce(Id),
    Friction(Id),
    Spline(Id),
    String(Id),
    Graphics(Id),
    Contact(Id),
    Bushing(Id),
    Field(Id),
    Beam(Id),
    Coupler(Id),
    Gear(Id),
    Diff(Id),
    Array(Id),
    Matrix(Id),
    Lse(Id),
    Tfsiso(Id),
    Curve(Id),
    Ptcv(Id),
    Sensor(Id),
    Cvcv(Id),
}

impl std::fmt::Display for ElementRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ElementRef::Part(i) => write!(f, "{}", point_mass::body_label(*i)),
            ElementRef::Marker(i) => write!(f, "MARKER/{i}"),
            ElementRef::Joint(i) => write!(f, "JOINT/{i}"),
            ElementRef::Motion(i) => write!(f, "MOTION/{i}"),
            ElementRef::Force(i) => write!(f, "SFORCE/{i}"),
            ElementRef::Springdamper(i) => write!(f, "SPRINGDAMPER/{i}"),
            ElementRef::Request(i) => write!(f, "REQUEST/{i}"),
            ElementRef::Gcon(i) => write!(f, "GCON/{i}"),
            ElementRef::Jprim(i) => write!(f, "JPRIM/{i}"),
            ElementRef::Variable(i) => write!(f, "VARIABLE/{i}"),
            ElementRef::Vforce(i) => write!(f, "VFORCE/{i}"),
            ElementRef::Vtorque(i) => write!(f, "VTORQUE/{i}"),
            ElementRef::Gforce(i) => write!(f, "GFORCE/{i}"),
            ElementRef::Friction(i) => write!(f, "FRICTION/{i}"),
            ElementRef::Spline(i) => write!(f, "SPLINE/{i}"),
            ElementRef::String(i) => write!(f, "STRING/{i}"),
            ElementRef::Graphics(i) => write!(f, "GRAPHICS/{i}"),
            ElementRef::Contact(i) => write!(f, "CONTACT/{i}"),
            ElementRef::Bushing(i) => write!(f, "BUSHING/{i}"),
            ElementRef::Field(i) => write!(f, "FIELD/{i}"),
            ElementRef::Beam(i) => write!(f, "BEAM/{i}"),
            ElementRef::Coupler(i) => write!(f, "COUPLER/{i}"),
            ElementRef::Gear(i) => write!(f, "GEAR/{i}"),
            ElementRef::Diff(i) => write!(f, "DIFF/{i}"),
            ElementRef::Array(i) => write!(f, "ARRAY/{i}"),
            ElementRef::Matrix(i) => write!(f, "MATRIX/{i}"),
            ElementRef::Lse(i) => write!(f, "LSE/{i}"),
            ElementRef::Tfsiso(i) => write!(f, "TFSISO/{i}"),
            ElementRef::Curve(i) => write!(f, "CURVE/{i}"),
            ElementRef::Ptcv(i) => write!(f, "PTCV/{i}"),
            ElementRef::Sensor(i) => write!(f, "SENSOR/{i}"),
            ElementRef::Cvcv(i) => write!(f, "CVCV/{i}"),
        }
    }
}

/// A number for a message: plain when it reads well (0.04, 2, 1500),
/// scientific otherwise (1e300 is not printed as 301 digits), with at most
/// 6 significant digits.
pub fn readable(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-4..1e6).contains(&a) {
        let s = format!("{:.6}", v);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        // keep 6 significant digits for small values
        if a < 1.0 && v != 0.0 {
            let sig = format!("{:.5e}", v).parse::<f64>().unwrap_or(v);
            return format!("{sig}");
        }
        s.to_string()
    } else if v.is_finite() {
        let s = format!("{:.5e}", v);
        // 1.50000e300 → 1.5e300
        match s.split_once('e') {
            Some((m, e)) => {
                let m = m.trim_end_matches('0').trim_end_matches('.');
                format!("{m}e{e}")
            }
            None => s,
        }
    } else {
        format!("{v}")
    }
}

impl Model {
    pub fn new(title: &str) -> Self {
        Model {
            title: title.into(),
            ..Default::default()
        }
    }
    pub fn part(&self, id: Id) -> Option<&Part> {
        self.parts.iter().find(|p| p.id == id)
    }
    pub fn marker(&self, id: Id) -> Option<&Marker> {
        self.markers.iter().find(|m| m.id == id)
    }
    /// "JOINT/2 (model.adm:14)" when the source is known, else "JOINT/2".
    pub fn describe(&self, e: ElementRef) -> String {
        match self.sources.iter().find(|(r, _)| *r == e) {
            Some((_, loc)) => format!("{e} ({loc})"),
            None => e.to_string(),
        }
    }
    /// Placement of a marker in ground, from the part's initial placement.
    pub fn marker_in_ground(&self, id: Id) -> Option<Placement> {
        let m = self.marker(id)?;
        let p = self.part(m.part)?;
        Some(m.placement.in_frame(&p.placement))
    }
}

#[cfg(test)]
mod readable_tests {
    use super::readable;

    #[test]
    fn numbers_in_messages_read_well() {
        assert_eq!(readable(5.0), "5");
        assert_eq!(readable(0.04), "0.04");
        assert_eq!(readable(-2.5), "-2.5");
        assert_eq!(readable(1e300), "1e300");
        assert_eq!(readable(1.5e-7), "1.5e-7");
        assert_eq!(readable(123456.0), "123456");
        assert_eq!(readable(1.0 / 3.0), "0.333333");
        assert_eq!(readable(f64::INFINITY), "inf");
        assert_eq!(readable(0.0), "0");
    }
}
