use crate::{ConstraintFunction, Id, Placement, StateFunction, TimeFunction};
use nalgebra::{Matrix3, Vector3};
use std::sync::Arc;

/// A rigid body (or the ground part).
#[derive(Clone, Debug)]
pub struct Part {
    pub id: Id,
    pub name: String,
    pub ground: bool,
    pub mass: f64,
    /// Centre-of-mass marker (must belong to this part). None = part origin.
    pub cm: Option<Id>,
    /// Inertia tensor about the CM, in the CM marker's axes (IP with products).
    pub inertia: Inertia,
    /// Initial placement of the part frame (BCS) in ground (QG, REULER).
    pub placement: Placement,
    /// Initial translational velocity of the CM, ground axes.
    pub velocity: Vector3<f64>,
    /// Initial angular velocity, ground axes.
    pub angular_velocity: Vector3<f64>,
}

impl Part {
    pub fn ground(id: Id) -> Self {
        Part {
            id,
            name: "ground".into(),
            ground: true,
            mass: 0.0,
            cm: None,
            inertia: Inertia::default(),
            placement: Placement::default(),
            velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        }
    }
    pub fn body(id: Id, mass: f64, inertia: Inertia, placement: Placement) -> Self {
        Part {
            id,
            name: format!("PART/{id}"),
            ground: false,
            mass,
            cm: None,
            inertia,
            placement,
            velocity: Vector3::zeros(),
            angular_velocity: Vector3::zeros(),
        }
    }
}

/// Inertia tensor components (Adams IP = xx, yy, zz, xy, xz, yz).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Inertia {
    pub ixx: f64,
    pub iyy: f64,
    pub izz: f64,
    pub ixy: f64,
    pub ixz: f64,
    pub iyz: f64,
}

impl Inertia {
    pub fn diagonal(ixx: f64, iyy: f64, izz: f64) -> Self {
        Inertia {
            ixx,
            iyy,
            izz,
            ..Default::default()
        }
    }
    pub fn matrix(&self) -> Matrix3<f64> {
        Matrix3::new(
            self.ixx, self.ixy, self.ixz, self.ixy, self.iyy, self.iyz, self.ixz, self.iyz,
            self.izz,
        )
    }
}

/// A coordinate frame fixed on a part.
#[derive(Clone, Debug)]
pub struct Marker {
    pub id: Id,
    pub part: Id,
    /// Placement relative to the part frame (QP, REULER).
    pub placement: Placement,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    Revolute,
    Translational,
    Spherical,
    Fixed,
    Cylindrical,
    /// UNIVERSAL: origins coincide, z_I ⟂ z_J (the z axes are the cross arms).
    Universal,
    /// HOOKE: origins coincide, x_I ⟂ y_J (the cross arms are x_I and y_J).
    Hooke,
    Planar,
    /// RACKPIN: couples the rotation of the pinion (I, about z_I) with the
    /// translation of the rack (J, along z_J): a positive turn of the pinion
    /// moves the rack by `pitch_diameter`/2 per radian along +z_J. The
    /// joint itself constrains nothing else (seeds: Adams JOINT/RACKPIN).
    RackPin {
        pitch_diameter: f64,
    },
}

impl JointKind {
    pub fn name(self) -> &'static str {
        match self {
            JointKind::Revolute => "REVOLUTE",
            JointKind::Translational => "TRANSLATIONAL",
            JointKind::Spherical => "SPHERICAL",
            JointKind::Fixed => "FIXED",
            JointKind::Cylindrical => "CYLINDRICAL",
            JointKind::Universal => "UNIVERSAL",
            JointKind::Hooke => "HOOKE",
            JointKind::Planar => "PLANAR",
            JointKind::RackPin { .. } => "RACKPIN",
        }
    }
}

/// An ideal joint between marker I (on one part) and marker J (on another).
#[derive(Clone, Debug)]
pub struct Joint {
    pub id: Id,
    pub kind: JointKind,
    pub i: Id,
    pub j: Id,
}

/// Which joint degree of freedom a motion drives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MotionDof {
    /// Translation of I along J's z axis (TRANSLATIONAL, CYLINDRICAL).
    Translation,
    /// Rotation of I about J's z axis (REVOLUTE, CYLINDRICAL).
    Rotation,
}

/// The component a marker motion (MOTION/id, I=, J=, X|Y|Z|B1|B2|B3)
/// prescribes, I relative to J.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerMotionAxis {
    /// (O_I − O_J)·x_J, i.e. DX(I, J, J); Y and Z likewise.
    X,
    Y,
    Z,
    /// The body-fixed 1-2-3 (x, y, z) Euler angles of I's axes relative to
    /// J's: A_Jᵀ A_I = Rx(B1) Ry(B2) Rz(B3).
    B1,
    B2,
    B3,
}

impl MarkerMotionAxis {
    pub fn name(self) -> &'static str {
        match self {
            MarkerMotionAxis::X => "X",
            MarkerMotionAxis::Y => "Y",
            MarkerMotionAxis::Z => "Z",
            MarkerMotionAxis::B1 => "B1",
            MarkerMotionAxis::B2 => "B2",
            MarkerMotionAxis::B3 => "B3",
        }
    }
}

/// What a motion drives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MotionTarget {
    /// MOTION/id, JOINT=, TRANSLATION|ROTATION.
    Joint { joint: Id, dof: MotionDof },
    /// MOTION/id, I=, J=, X|Y|Z|B1|B2|B3.
    Markers {
        i: Id,
        j: Id,
        axis: MarkerMotionAxis,
    },
}

/// A prescribed motion (displacement as a function of time).
#[derive(Clone, Debug)]
pub struct Motion {
    pub id: Id,
    pub target: MotionTarget,
    pub function: Arc<dyn TimeFunction>,
}

impl Motion {
    /// A motion on a joint's degree of freedom.
    pub fn on_joint(id: Id, joint: Id, dof: MotionDof, function: Arc<dyn TimeFunction>) -> Self {
        Motion {
            id,
            target: MotionTarget::Joint { joint, dof },
            function,
        }
    }
    /// The driven joint, for joint motions.
    pub fn joint(&self) -> Option<Id> {
        match self.target {
            MotionTarget::Joint { joint, .. } => Some(joint),
            MotionTarget::Markers { .. } => None,
        }
    }
}

/// Joint primitives (JPRIM): constraints between marker I and marker J
/// (seeds: Adams JPRIM statement).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JprimKind {
    /// O_I = O_J (three translations).
    Atpoint,
    /// O_I on the z axis of J (two translations).
    Inline,
    /// O_I in the x-y plane of J (one translation).
    Inplane,
    /// The axes of I identical to those of J (three rotations).
    Orientation,
    /// z_I parallel to z_J (two rotations).
    ParallelAxes,
    /// z_I perpendicular to z_J (one rotation).
    Perpendicular,
}

impl JprimKind {
    pub fn name(self) -> &'static str {
        match self {
            JprimKind::Atpoint => "ATPOINT",
            JprimKind::Inline => "INLINE",
            JprimKind::Inplane => "INPLANE",
            JprimKind::Orientation => "ORIENTATION",
            JprimKind::ParallelAxes => "PARALLEL_AXES",
            JprimKind::Perpendicular => "PERPENDICULAR",
        }
    }
}

/// JPRIM/id, kind, I=, J=.
#[derive(Clone, Debug, PartialEq)]
pub struct Jprim {
    pub id: Id,
    pub kind: JprimKind,
    pub i: Id,
    pub j: Id,
}

/// VARIABLE/id, FUNCTION = expression: an explicit algebraic variable,
/// read by VARVAL(id). The text is in mbsolve-expr syntax; readers inline
/// it where force and motion functions use it, and function requests
/// inline it when they are compiled.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    pub id: Id,
    pub function: String,
}

/// A general constraint (GCON): `function` = 0, a function of time and
/// position-level measures. Its reaction acts at marker `i`.
#[derive(Clone, Debug)]
pub struct Gcon {
    pub id: Id,
    pub i: Id,
    pub function: Arc<dyn ConstraintFunction>,
}

/// Force elements.
#[derive(Clone, Debug)]
pub enum ForceKind {
    /// SPRINGDAMPER/TRANSLATIONAL: f = -k (l - length) - c l̇ + preload along I–J.
    TranslationalSpringDamper {
        stiffness: f64,
        damping: f64,
        free_length: f64,
        preload: f64,
    },
    /// SPRINGDAMPER/ROTATIONAL about the common z axes:
    /// τ = -k (θ - angle) - c θ̇ + preload.
    RotationalSpringDamper {
        stiffness: f64,
        damping: f64,
        free_angle: f64,
        preload: f64,
    },
    /// SFORCE/TRANSLATIONAL (action-reaction): positive value repels I from J
    /// along the line of sight.
    TranslationalActionReaction { function: Arc<dyn StateFunction> },
    /// SFORCE/ROTATIONAL (action-reaction): torque about J's z axis on I.
    RotationalActionReaction { function: Arc<dyn StateFunction> },
    /// SFORCE/ACTIONONLY/TRANSLATIONAL: force on I along J's z axis.
    TranslationalActionOnly { function: Arc<dyn StateFunction> },
    /// SFORCE/ACTIONONLY/ROTATIONAL: torque on I about J's z axis.
    RotationalActionOnly { function: Arc<dyn StateFunction> },
    /// VFORCE, VTORQUE, GFORCE: force components FX, FY, FZ and torque
    /// components TX, TY, TZ in the axes of marker `rm`, applied at I; the
    /// reaction acts on `reaction_part` (the part of the FLOATING marker
    /// `jfloat`) at the point coincident with I (Adams: JFLOAT follows I).
    /// For these elements `Force::j` is the RM marker.
    Vector {
        statement: VectorStatement,
        jfloat: crate::Id,
        reaction_part: crate::Id,
        /// [FX, FY, FZ, TX, TY, TZ]; None = not given (zero).
        components: [Option<Arc<dyn StateFunction>>; 6],
    },
    /// BUSHING, FIELD, BEAM: linear six-component elastic law between I
    /// and J (see [`crate::Elastic`]).
    Elastic(Box<crate::Elastic>),
}

/// Which statement a [`ForceKind::Vector`] came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorStatement {
    /// VFORCE: FX, FY, FZ.
    Vforce,
    /// VTORQUE: TX, TY, TZ.
    Vtorque,
    /// GFORCE: all six.
    Gforce,
}

impl VectorStatement {
    pub fn name(self) -> &'static str {
        match self {
            VectorStatement::Vforce => "VFORCE",
            VectorStatement::Vtorque => "VTORQUE",
            VectorStatement::Gforce => "GFORCE",
        }
    }
}

impl ForceKind {
    /// A SPRINGDAMPER's (rotational, [stiffness, damping, free length or
    /// angle, preload]); None for an SFORCE.
    pub fn spring(&self) -> Option<(bool, [f64; 4])> {
        match *self {
            ForceKind::TranslationalSpringDamper {
                stiffness,
                damping,
                free_length,
                preload,
            } => Some((false, [stiffness, damping, free_length, preload])),
            ForceKind::RotationalSpringDamper {
                stiffness,
                damping,
                free_angle,
                preload,
            } => Some((true, [stiffness, damping, free_angle, preload])),
            _ => None,
        }
    }

    /// An SFORCE's (function, rotational, action-only); None for a
    /// SPRINGDAMPER.
    pub fn sforce(&self) -> Option<(&Arc<dyn StateFunction>, bool, bool)> {
        match self {
            ForceKind::TranslationalActionReaction { function } => Some((function, false, false)),
            ForceKind::RotationalActionReaction { function } => Some((function, true, false)),
            ForceKind::TranslationalActionOnly { function } => Some((function, false, true)),
            ForceKind::RotationalActionOnly { function } => Some((function, true, true)),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Force {
    pub id: Id,
    pub i: Id,
    pub j: Id,
    pub kind: ForceKind,
}

impl Force {
    /// The element as a statement names it: SPRINGDAMPER/id or SFORCE/id.
    /// Ids are unique per statement type (Adams), so SPRINGDAMPER/1 and
    /// SFORCE/1 are two elements.
    pub fn element(&self) -> crate::ElementRef {
        match self.kind {
            ForceKind::TranslationalSpringDamper { .. }
            | ForceKind::RotationalSpringDamper { .. } => crate::ElementRef::Springdamper(self.id),
            ForceKind::Vector { statement, .. } => match statement {
                VectorStatement::Vforce => crate::ElementRef::Vforce(self.id),
                VectorStatement::Vtorque => crate::ElementRef::Vtorque(self.id),
                VectorStatement::Gforce => crate::ElementRef::Gforce(self.id),
            },
            ForceKind::Elastic(ref e) => match e.statement {
                crate::ElasticStatement::Bushing => crate::ElementRef::Bushing(self.id),
                crate::ElasticStatement::Field => crate::ElementRef::Field(self.id),
                crate::ElasticStatement::Beam => crate::ElementRef::Beam(self.id),
            },
            _ => crate::ElementRef::Force(self.id),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestKind {
    Displacement,
    Velocity,
    Acceleration,
    Force,
}

/// REQUEST/id, DISPLACEMENT|VELOCITY|ACCELERATION|FORCE, I=, J=, RM=.
#[derive(Clone, Debug)]
pub struct Request {
    pub id: Id,
    pub kind: RequestKind,
    pub i: Id,
    /// None = ground origin.
    pub j: Option<Id>,
    /// Marker whose axes resolve the result. None = ground.
    pub rm: Option<Id>,
    pub comment: String,
}

/// REQUEST/id, F1=…\F2=…\…\F8=… : a function request. Each component is the
/// expression text in mbsolve-expr syntax (None = not given); the reader has
/// checked that the marker and element ids it names exist. Evaluated for
/// output only, through `mbsolve_expr::Expr::eval_in`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionRequest {
    pub id: Id,
    pub components: [Option<String>; 8],
    pub comment: String,
    /// RESULTS_NAME: the name of the request in the output (the CSV column
    /// prefix instead of `request_<id>`).
    pub results_name: Option<String>,
    /// CNAMES: the name of each component F1…F8 (the CSV column suffix
    /// instead of `f<k>`); `None` or empty = the default.
    pub cnames: [Option<String>; 8],
    /// CLABELS: each component's label (Adams writes units such as
    /// "(ft)"), appended to its CSV column name after a blank.
    pub clabels: [Option<String>; 8],
}

/// An Adams/Controls plant input or output (PINPUT, POUTPUT): the ordered
/// VARIABLEs the plant exchanges with a controller.
#[derive(Clone, Debug, PartialEq)]
pub struct PlantIo {
    pub id: Id,
    pub variables: Vec<Id>,
}
