//! The names the expression language knows: math functions, shaping
//! functions, and measures (values the caller supplies: marker kinematics,
//! element results, variables).

use std::fmt;

/// Built-in functions computed by the expression itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Log,
    Log10,
    Sqrt,
    Abs,
    Sign,
    Min,
    Max,
    Mod,
    Dim,
    Aint,
    Anint,
    Step,
    Step5,
    Havsin,
    Shf,
    Poly,
    Cheby,
    Forcos,
    Forsin,
    Impact,
    Bistop,
    Sweep,
}

impl Builtin {
    /// (name, function, minimum and maximum argument count)
    const TABLE: &'static [(&'static str, Builtin, usize, usize)] = &[
        ("SIN", Builtin::Sin, 1, 1),
        ("COS", Builtin::Cos, 1, 1),
        ("TAN", Builtin::Tan, 1, 1),
        ("ASIN", Builtin::Asin, 1, 1),
        ("ACOS", Builtin::Acos, 1, 1),
        ("ATAN", Builtin::Atan, 1, 1),
        ("ATAN2", Builtin::Atan2, 2, 2),
        ("SINH", Builtin::Sinh, 1, 1),
        ("COSH", Builtin::Cosh, 1, 1),
        ("TANH", Builtin::Tanh, 1, 1),
        ("EXP", Builtin::Exp, 1, 1),
        ("LOG", Builtin::Log, 1, 1),
        ("LOG10", Builtin::Log10, 1, 1),
        ("SQRT", Builtin::Sqrt, 1, 1),
        ("ABS", Builtin::Abs, 1, 1),
        ("SIGN", Builtin::Sign, 2, 2),
        ("MIN", Builtin::Min, 2, 2),
        ("MAX", Builtin::Max, 2, 2),
        ("MOD", Builtin::Mod, 2, 2),
        ("DIM", Builtin::Dim, 2, 2),
        ("AINT", Builtin::Aint, 1, 1),
        ("ANINT", Builtin::Anint, 1, 1),
        ("STEP", Builtin::Step, 5, 5),
        ("STEP5", Builtin::Step5, 5, 5),
        ("HAVSIN", Builtin::Havsin, 5, 5),
        ("SHF", Builtin::Shf, 6, 6),
        // POLY/CHEBY(x, x0, a0, …, a30); FORCOS/FORSIN(x, x0, w, a0, …, a30)
        ("POLY", Builtin::Poly, 3, 33),
        ("CHEBY", Builtin::Cheby, 3, 33),
        ("FORCOS", Builtin::Forcos, 4, 34),
        ("FORSIN", Builtin::Forsin, 4, 34),
        // IMPACT(x, ẋ, x1, k, e, cmax, d); BISTOP(x, ẋ, x1, x2, k, e, cmax, d)
        ("IMPACT", Builtin::Impact, 7, 7),
        ("BISTOP", Builtin::Bistop, 8, 8),
        // SWEEP(x, a, x0, f0, x1, f1, dx)
        ("SWEEP", Builtin::Sweep, 7, 7),
    ];

    pub fn lookup(name: &str) -> Option<(Builtin, usize, usize)> {
        Self::TABLE
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|&(_, b, lo, hi)| (b, lo, hi))
    }

    pub fn name(self) -> &'static str {
        Self::TABLE
            .iter()
            .find(|(_, b, ..)| *b == self)
            .map(|(n, ..)| *n)
            .unwrap_or("?")
    }
}

/// Quantities an expression reads from its surroundings. Their integer
/// arguments (marker or element ids, component numbers) are part of the
/// measure, so `DM(204,205)` and `DM(204,206)` are two measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeasureKind {
    Dx,
    Dy,
    Dz,
    Dm,
    Vx,
    Vy,
    Vz,
    Vm,
    Vr,
    Wx,
    Wy,
    Wz,
    Wm,
    Accx,
    Accy,
    Accz,
    Wdtx,
    Wdty,
    Wdtz,
    Ax,
    Ay,
    Az,
    Psi,
    Theta,
    Phi,
    Yaw,
    Pitch,
    Roll,
    /// Net force/torque components between markers: FX(i[,j[,k]]) …
    Fx,
    Fy,
    Fz,
    Fm,
    Tx,
    Ty,
    Tz,
    Tm,
    /// VARVAL(variable id)
    Varval,
    /// JOINT(id, jflag, comp, rm)
    Joint,
    /// JPRIM(id, jflag, comp, rm)
    Jprim,
    /// MOTION(id, jflag, comp, rm)
    Motion,
    /// SFORCE(id, jflag, comp, rm)
    Sforce,
    /// ORIENT(type, comp, i[, j])
    Orient,
    /// CONTACT(id, jflag, comp, rm)
    Contact,
    /// DIF(diff id): a user state's value
    Dif,
    /// DIF1(diff id): a user state's time derivative
    Dif1,
    /// ARYVAL(array id, k): element k of an LSE/TFSISO's X or Y array
    Aryval,
    /// BEAM(id, jflag, comp, rm)
    Beam,
    /// BUSH(id, jflag, comp, rm): a BUSHING's force
    Bush,
    /// FIELD(id, jflag, comp, rm)
    Field,
    /// SPDP(id, jflag, comp, rm): a SPRINGDAMPER's force
    Spdp,
    /// GFORCE(id, jflag, comp, rm), VFORCE(…), VTORQ(…): a vector force's
    /// force at I (jflag 0) or its reaction at JFLOAT (jflag 1)
    Gforce,
    Vforce,
    Vtorq,
    /// FRICTION(id, index[, rm]): a joint FRICTION's output component
    Friction,
    /// PTCV(id, jflag, comp, rm), CVCV(…): a curve constraint's reaction
    Ptcv,
    Cvcv,
}

/// What an integer argument of a measure refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgRole {
    Marker,
    Variable,
    Joint,
    Jprim,
    Motion,
    Sforce,
    Contact,
    /// A flag, a component number or a type code.
    Number,
    /// A DIFF (user state).
    Diff,
    /// An ARRAY.
    Array,
    Beam,
    Bushing,
    Field,
    Springdamper,
    Gforce,
    Vforce,
    Vtorque,
    Friction,
    Ptcv,
    Cvcv,
}

use ArgRole::{
    Joint as J_, Jprim as JP, Marker as M, Motion as MO, Number as N, Sforce as SF, Variable as V,
};

impl MeasureKind {
    /// (name, kind, argument roles, minimum argument count)
    const TABLE: &'static [(&'static str, MeasureKind, &'static [ArgRole], usize)] = &[
        ("DX", MeasureKind::Dx, &[M, M, M], 1),
        ("DY", MeasureKind::Dy, &[M, M, M], 1),
        ("DZ", MeasureKind::Dz, &[M, M, M], 1),
        ("DM", MeasureKind::Dm, &[M, M], 1),
        ("VX", MeasureKind::Vx, &[M, M, M, M], 1),
        ("VY", MeasureKind::Vy, &[M, M, M, M], 1),
        ("VZ", MeasureKind::Vz, &[M, M, M, M], 1),
        ("VM", MeasureKind::Vm, &[M, M, M], 1),
        ("VR", MeasureKind::Vr, &[M, M, M], 1),
        ("WX", MeasureKind::Wx, &[M, M, M], 1),
        ("WY", MeasureKind::Wy, &[M, M, M], 1),
        ("WZ", MeasureKind::Wz, &[M, M, M], 1),
        ("WM", MeasureKind::Wm, &[M, M], 1),
        ("ACCX", MeasureKind::Accx, &[M, M, M, M], 1),
        ("ACCY", MeasureKind::Accy, &[M, M, M, M], 1),
        ("ACCZ", MeasureKind::Accz, &[M, M, M, M], 1),
        ("WDTX", MeasureKind::Wdtx, &[M, M, M, M], 1),
        ("WDTY", MeasureKind::Wdty, &[M, M, M, M], 1),
        ("WDTZ", MeasureKind::Wdtz, &[M, M, M, M], 1),
        ("AX", MeasureKind::Ax, &[M, M], 1),
        ("AY", MeasureKind::Ay, &[M, M], 1),
        ("AZ", MeasureKind::Az, &[M, M], 1),
        ("PSI", MeasureKind::Psi, &[M, M], 1),
        ("THETA", MeasureKind::Theta, &[M, M], 1),
        ("PHI", MeasureKind::Phi, &[M, M], 1),
        ("YAW", MeasureKind::Yaw, &[M, M], 1),
        ("PITCH", MeasureKind::Pitch, &[M, M], 1),
        ("ROLL", MeasureKind::Roll, &[M, M], 1),
        ("FX", MeasureKind::Fx, &[M, M, M], 1),
        ("FY", MeasureKind::Fy, &[M, M, M], 1),
        ("FZ", MeasureKind::Fz, &[M, M, M], 1),
        ("FM", MeasureKind::Fm, &[M, M], 1),
        ("TX", MeasureKind::Tx, &[M, M, M], 1),
        ("TY", MeasureKind::Ty, &[M, M, M], 1),
        ("TZ", MeasureKind::Tz, &[M, M, M], 1),
        ("TM", MeasureKind::Tm, &[M, M], 1),
        ("VARVAL", MeasureKind::Varval, &[V], 1),
        ("JOINT", MeasureKind::Joint, &[J_, N, N, M], 4),
        ("JPRIM", MeasureKind::Jprim, &[JP, N, N, M], 4),
        ("MOTION", MeasureKind::Motion, &[MO, N, N, M], 4),
        ("SFORCE", MeasureKind::Sforce, &[SF, N, N, M], 4),
        ("ORIENT", MeasureKind::Orient, &[N, N, M, M], 3),
        (
            "CONTACT",
            MeasureKind::Contact,
            &[ArgRole::Contact, N, N, M],
            4,
        ),
        ("DIF", MeasureKind::Dif, &[ArgRole::Diff], 1),
        ("DIF1", MeasureKind::Dif1, &[ArgRole::Diff], 1),
        ("ARYVAL", MeasureKind::Aryval, &[ArgRole::Array, N], 2),
        ("BEAM", MeasureKind::Beam, &[ArgRole::Beam, N, N, M], 4),
        ("BUSH", MeasureKind::Bush, &[ArgRole::Bushing, N, N, M], 4),
        ("FIELD", MeasureKind::Field, &[ArgRole::Field, N, N, M], 4),
        (
            "SPDP",
            MeasureKind::Spdp,
            &[ArgRole::Springdamper, N, N, M],
            4,
        ),
        (
            "GFORCE",
            MeasureKind::Gforce,
            &[ArgRole::Gforce, N, N, M],
            4,
        ),
        (
            "VFORCE",
            MeasureKind::Vforce,
            &[ArgRole::Vforce, N, N, M],
            4,
        ),
        ("VTORQ", MeasureKind::Vtorq, &[ArgRole::Vtorque, N, N, M], 4),
        // Adams: FRICTION(id, index); MotionSolve adds an optional rm.
        (
            "FRICTION",
            MeasureKind::Friction,
            &[ArgRole::Friction, N, M],
            2,
        ),
        ("PTCV", MeasureKind::Ptcv, &[ArgRole::Ptcv, N, N, M], 4),
        ("CVCV", MeasureKind::Cvcv, &[ArgRole::Cvcv, N, N, M], 4),
    ];

    pub fn lookup(name: &str) -> Option<MeasureKind> {
        Self::TABLE
            .iter()
            .find(|(n, ..)| *n == name)
            .map(|&(_, k, ..)| k)
    }

    fn entry(self) -> (&'static str, &'static [ArgRole], usize) {
        Self::TABLE
            .iter()
            .find(|(_, k, ..)| *k == self)
            .map(|&(n, _, r, lo)| (n, r, lo))
            .unwrap_or(("?", &[], 0))
    }

    pub fn name(self) -> &'static str {
        self.entry().0
    }
    /// Roles of the arguments, in order (the maximum argument count is the length).
    pub fn roles(self) -> &'static [ArgRole] {
        self.entry().1
    }
    pub fn min_args(self) -> usize {
        self.entry().2
    }
}

/// Adams functions that exist but that this crate does not implement yet:
/// reported as "not supported yet" rather than "unknown function".
pub(crate) const NOT_SUPPORTED: &[&str] = &[
    "USER", "PINVAL", "POUVAL", "NFORCE", "TFSISO", "Q", "QDOT", "QDDOT", "UV",
];

/// Why a listed function is refused for good (not "yet"), when there is a
/// reason beyond missing work: Q, QDOT, QDDOT and UV read the modal
/// coordinates of a modal flexible body (Adams FLEX_BODY), which this
/// solver does not have; an FE_PART's nodes are bodies read through markers.
pub(crate) fn refusal_reason(name: &str) -> Option<&'static str> {
    match name {
        "Q" | "QDOT" | "QDDOT" | "UV" => Some(
            "it reads the modal coordinates of a flexible body (FLEX_BODY), which this solver does not model: its bodies are rigid parts, point masses, beams and FE parts, whose nodes are read through their markers",
        ),
        _ => None,
    }
}

/// A measure with its integer arguments as written (0 = ground / default).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct MeasureCall {
    pub kind: MeasureKind,
    pub args: Vec<u32>,
}

impl MeasureCall {
    /// Argument `n`, `None` when absent or 0 (ground / default frame).
    pub fn arg(&self, n: usize) -> Option<u32> {
        self.args.get(n).copied().filter(|&a| a != 0)
    }
    /// Every (role, id) pair, including absent-as-zero arguments skipped.
    pub fn references(&self) -> impl Iterator<Item = (ArgRole, u32)> + '_ {
        self.kind
            .roles()
            .iter()
            .zip(self.args.iter())
            .filter(|(r, a)| **r != ArgRole::Number && **a != 0)
            .map(|(r, a)| (*r, *a))
    }
}

impl fmt::Display for MeasureCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.kind.name())?;
        for (n, a) in self.args.iter().enumerate() {
            if n > 0 {
                f.write_str(",")?;
            }
            write!(f, "{a}")?;
        }
        f.write_str(")")
    }
}
